/* unit_util.h: shared helpers of the Criterion unit tests (tests/unit/test_*.c): a default flow for
 * the builder, distinctive header values, event assertions, header comparison and the truncation
 * sweep (decode at every caplen, checking what a truncated decode may and may not report). */
#ifndef UNIT_UTIL_H
#define UNIT_UTIL_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>

#include "roce/roce.h"

#define FRAME_CAP 4096
#define ETH_HLEN_U 14u /* Ethernet II header */

/* A default RC flow: 02:..:01 -> 02:..:02, 10.0.0.1 -> 10.0.0.2 (IPv6/GIDs fd00::1 -> fd00::2 when
 * ip_version or version is changed by the caller through u_set_v6()), TOS 0x02, TTL 63, ID 0x4242,
 * DF, UDP source port 0xc123, P_Key 0xffff, QP 0x000123, PSN 0x000010. */
void u_base(struct roce_build *b);
/* Switch the addresses to 16-byte IPv6 addresses / GIDs. */
void u_set_v6(struct roce_build *b);
/* Distinctive values in the BTH and every extended header of this opcode (hdrs = the opcode's). */
void u_fill_hdrs(struct roce_hdrs *h, uint8_t opcode, unsigned seed);
/* Deterministic payload bytes (never all zero). */
const uint8_t *u_payload(void);

/* Build into out (FRAME_CAP bytes), asserting success; returns the length. */
uint32_t u_build(const struct roce_build *b, uint8_t *out);
/* Decode with the default config, caplen == wirelen == len. */
int u_decode(const uint8_t *f, uint32_t len, unsigned linktype, struct roce_pkt *p);

/* Events */
int u_ev(const char *name);  /* the event's id; asserts it exists */
bool u_has(const struct roce_pkt *p, const char *name);
const char *u_events_str(const struct roce_pkt *p);  /* "a,b,c" (static buffer) */
void u_expect_events(const struct roce_pkt *p, const char *const *names, unsigned n, const char *where);
#define EXPECT_EVENTS(p, ...)                                                                      \
	do {                                                                                       \
		const char *const u_names_[] = {__VA_ARGS__};                                      \
		u_expect_events((p), u_names_, sizeof(u_names_) / sizeof(u_names_[0]), __func__); \
	} while (0)
#define EXPECT_NO_EVENTS(p) u_expect_events((p), NULL, 0, __func__)
/* The event is present and the packet's worst severity is at least its severity. */
void u_expect_event_sev(const struct roce_pkt *p, const char *name, enum roce_severity sev);

/* Header comparison: every BTH field, and every field of each extended header in want->hdrs. */
void u_assert_bth_eq(const struct roce_bth *want, const struct roce_bth *got, const char *ctx);
void u_assert_hdrs_eq(const struct roce_hdrs *want, const struct roce_hdrs *got, const char *ctx);

/* Every stream's row of an analyzer (roce_analyzer_foreach into u_rows_keep), and two analyzers'
 * rows compared field by field (k: the row's place, for the message). */
struct u_rows {
	struct roce_stream_stats *s;
	size_t n, cap;
};
void u_rows_keep(const struct roce_stream_stats *s, void *rows);
void u_assert_same_row(size_t k, const struct roce_stream_stats *x, const struct roce_stream_stats *y);

/* A field of /proc/self/status given in KiB ("VmSize", "RssFile"), asserting it is there. */
long u_status_kib(const char *field);

/* Rewrite the IPv4 header checksum of the header at ip (hlen bytes). */
void u_ip4_fix_csum(uint8_t *ip, unsigned hlen);
uint16_t u_be16(const uint8_t *p);
void u_put_be16(uint8_t *p, uint16_t v);

/* Expected layout of a frame for the truncation sweep: region i covers [r[i].start, r[i+1].start)
 * and a capture ending inside it must report trunc_layer r[i].layer. */
struct u_layout {
	struct { uint32_t start; uint8_t layer; } r[32];
	unsigned n;
	uint32_t ident_off; /* from this caplen on, the decoder knows the RoCE version */
	uint32_t end;       /* one past the ICRC (the packet, without Ethernet padding) */
};
void u_layout_add(struct u_layout *l, uint32_t start, enum roce_layer layer);
/* The regions of the innermost packet from a full decode (the link regions are the caller's when
 * add_link is false: wrappers add their own first). */
void u_layout_from_pkt(struct u_layout *l, const struct roce_pkt *full, bool add_link);

/* Decode f at every caplen 0..lay->end-1 (wirelen = len; with mirror, wirelen = caplen too), each
 * time from a heap copy of exactly caplen bytes, and check: version and opcode never garbage,
 * "truncated" present, trunc_layer as the layout says, ICRC never good/bad (unverifiable once the
 * frame is known to be RoCE), no error-severity event, no invalid layer. */
void u_sweep_truncation(const uint8_t *f, uint32_t len, unsigned linktype, const struct u_layout *lay,
			bool mirror);

/* a[0..n-1] = 0..n-1 in a pseudo-random order (Fisher-Yates on xorshift64 state *rng, never 0). */
void u_permutation(unsigned *a, unsigned n, uint64_t *rng);

#endif
