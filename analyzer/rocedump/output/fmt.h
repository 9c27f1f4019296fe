/* fmt.h: text forms shared by the text and JSON printers: addresses, time stamps and JSON strings. */
#ifndef ROCEDUMP_FMT_H
#define ROCEDUMP_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/decode.h"
#include "roce/fields.h"

#define FMT_ADDR_MAX ROCE_ADDRSTR_MAX  /* INET6_ADDRSTRLEN */

/* The core's forms (fields.c), which the field table's strings use too. */
static inline void fmt_mac(char out[18], const uint8_t *mac) { roce_fmt_mac(out, mac); }
/* An IPv4 or IPv6 address (or GID) of len 4 or 16 bytes. */
static inline void fmt_ip(char out[FMT_ADDR_MAX], const uint8_t *addr, unsigned len) { roce_fmt_ip(out, addr, len); }
/* The packet's network source address in frame, its destination the len bytes after it (RoCEv1:
 * GIDs); NULL when it has none, or they lie past the bytes captured. */
static inline const uint8_t *fmt_net_src(const struct roce_pkt *p, const uint8_t *frame, unsigned *len)
{
	const struct roce_net *n = &p->net;
	*len = n->addr_len;
	return n->addr_len && n->addr_off + 2u * n->addr_len <= roce_readable_len(p->caplen) ? frame + n->addr_off : NULL;
}
/* The packet's network source and destination as text. Empty strings when there is none. */
void fmt_net_addrs(const struct roce_pkt *p, const uint8_t *frame, char src[FMT_ADDR_MAX], char dst[FMT_ADDR_MAX]);
/* How a frame's time is printed: tcpdump's -t count (its ndo_tflag), UTC where tcpdump uses the
 * local time zone. */
enum ts_style {
	TS_TIME = 0,        /* HH:MM:SS.frac */
	TS_NONE = 1,        /* -t: none */
	TS_EPOCH = 2,       /* -tt: seconds since 1970, .frac */
	TS_DELTA_PREV = 3,  /* -ttt: [ -]HH:MM:SS.frac since the previous frame printed */
	TS_DATE = 4,        /* -tttt: YYYY-MM-DD HH:MM:SS.frac */
	TS_DELTA_FIRST = 5, /* -ttttt: [ -]HH:MM:SS.frac since the first frame printed */
};
#define TS_STYLES 6

/* The reference of the two delta styles: the previous or the first frame printed. */
struct ts_clock {
	int64_t sec;
	uint32_t nsec;
	bool set;
};

/* A duration: "5.120ns", "335.5us", "1.234ms", "2.500s" (the core's form). */
#define FMT_DUR_MAX ROCE_DURSTR_MAX
static inline void fmt_duration(char out[FMT_DUR_MAX], double ns) { roce_fmt_duration(out, ns); }

#define FMT_TIME_MAX 48
/* The time stamp (sec, nsec) in style, with 6 digits of fraction or 9 when nano; "" for TS_NONE.
 * The delta styles read and move *clock. Hours of a delta are not wrapped at 24 (tcpdump's are). */
void fmt_time(char out[FMT_TIME_MAX], enum ts_style style, bool nano, int64_t sec, uint32_t nsec,
	      struct ts_clock *clock);

#endif
