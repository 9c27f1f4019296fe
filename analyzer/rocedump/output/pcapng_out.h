/* pcapng_out.h: rocedump -w: the frames read, written to a pcapng file, each frame that has
 * events carrying them as its comment (pcapng_out.c). */
#ifndef ROCEDUMP_PCAPNG_OUT_H
#define ROCEDUMP_PCAPNG_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct frame;

struct pcapng_out {
	FILE *f;
	bool close;               /* not standard output */
	unsigned linktype;
	uint32_t *keys;           /* the input interface (struct frame's iface) of each interface written */
	uint32_t n_ifaces, ifaces_alloc;
	uint32_t last_key, last_id;  /* the previous frame's, looked up again first */
};

/* Create path ("-": standard output) and write the section header. Each interface of the input
 * (struct frame's iface, with its if_name) becomes an interface of the output, of linktype (a
 * LINKTYPE_* number) with nanosecond time stamps, written before its first frame: a copy seen on
 * two interfaces stays on two. 0, or -1 with a message. */
int pcapng_out_open(struct pcapng_out *w, const char *path, unsigned linktype, char *errbuf, size_t errlen);

/* One enhanced packet block: the frame's bytes, its length on the wire and time, and comment
 * (comment_len bytes, none when 0) as its opt_comment. */
void pcapng_out_frame(struct pcapng_out *w, const struct frame *f, const char *comment, size_t comment_len);

/* An interface statistics block (pcapng §4.6) for the first interface at time now_ns: the counts of the
 * capture between start_ns and now_ns (isb_starttime, isb_endtime): packets received by the
 * filter (isb_ifrecv), dropped by the interface (isb_ifdrop) and by the OS (isb_osdrop). */
struct pcapng_isb {
	uint64_t start_ns, now_ns;
	uint64_t recv, if_drop, os_drop;
};
void pcapng_out_isb(struct pcapng_out *w, const struct pcapng_isb *isb);

/* Flush and close: 0, or -1 when a write failed (message in errbuf). */
int pcapng_out_close(struct pcapng_out *w, char *errbuf, size_t errlen);

#endif
