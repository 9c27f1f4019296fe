/* congestion.h (internal): the congestion analysis' state and its entry points from the
 * analyzer (analyze.c, stream_table.c); the public side is include/roce/congestion.h.
 *
 * State is kept apart from the streams' 64-byte core: a side block (struct cong_block) only for
 * a stream that carries ECN-marked packets other than plain ECT(0) ones alone (ECT(1), CE, a mix
 * of codepoints), FECN/BECN or CNPs, found through the stream's ids entry; PFC state per source
 * MAC in a bounded table; the CE marks due a CNP in a ring ordered by time, whose head's deadline
 * is the one compare every frame pays. */
#ifndef ROCE_CONGESTION_INT_H
#define ROCE_CONGESTION_INT_H

#include <stdint.h>

#include "roce/analyze.h"
#include "u64map.h"

struct roce_analyzer;
struct stream;

/* CE-to-CNP latencies: quarter-octave buckets of nanoseconds (bucket b >= 1 holds
 * [2^((b-1)/4), 2^(b/4)), up to 2^31.75 ns = 3.6 s; bucket 0 holds 0), 8-bit counts halved
 * together when one would overflow. */
#define LAT_BUCKETS 128

struct cong_block {
	uint64_t ecn[4];          /* by codepoint; [0] unused (Not-ECT is the stream's packets less the rest) */
	uint64_t fecn, becn;
	uint64_t cnps, unexpected, missing;
	int64_t cover_ts;         /* the last CNP seen or due on the stream (INT64_MIN: none) */
	int64_t last_ce_ts;       /* the newest CE mark (INT64_MIN: none) */
	int64_t open_ce_ts;       /* the first CE mark since the last CNP (INT64_MIN: none) */
	uint64_t open_ce_frame;
	uint32_t due_head, due_tail; /* the stream's due entries still waiting, oldest and newest; 0 if none */
	uint32_t n_due;           /* its entries still waiting (pending at the end) */
	uint64_t lat_n;
	int64_t lat_min, lat_max;
	uint8_t hist[LAT_BUCKETS];
};
_Static_assert(sizeof(struct cong_block) == 272, "272 bytes (README)");

/* A CE mark due a CNP. Entries are numbered from 1 in time order; entry n lives at n & mask. */
struct cong_due {
	int64_t ce_ts;
	uint64_t ce_frame;
	uint64_t stream_key;
	uint32_t next;            /* the same stream's next due entry, 0 if none yet */
	uint32_t qpn;
	uint8_t state;            /* DUE_WAITING, DUE_ANSWERED, DUE_MISSED */
};

/* One priority of one source MAC (prio[8]: its legacy PAUSE). */
struct pfc_prio {
	int64_t start, end;       /* the open pause interval [start, end) (open: end > start) */
	int64_t paused_ns, longest_ns;
	uint64_t frames, xoff, xon, storms;
	bool open, storm_fired, seen;
};
struct pfc_src {
	uint8_t mac[6];
	struct pfc_prio prio[9];
};
#define PFC_MAX_SOURCES 4096u

struct cong_state {
	/* settings */
	uint64_t link_bps;
	int64_t storm_ns, interval_ns, timeout_ns;
	uint8_t dscp_prio[64];
	/* ECN / CNP */
	struct cong_due *ring;
	uint32_t ring_mask;       /* capacity - 1, 0 before the first */
	uint32_t head, tail;      /* oldest entry kept; the next number to give (head == tail: empty) */
	int64_t next_deadline;    /* the head entry's, INT64_MAX when none waits */
	uint64_t due_untracked;   /* dues not kept: the ring at its cap */
	struct u64map cnp_pairs;  /* (src id, dst id) of unattributed CNPs -> index into pairs[] */
	struct cnp_pair { uint32_t src, dst; uint64_t cnps, ambiguous; } *pairs;
	uint32_t n_pairs, pairs_alloc;
	/* PFC */
	struct u64map pfc_map;    /* MAC -> index into pfc[] */
	struct pfc_src *pfc;
	uint32_t n_pfc, pfc_alloc;
	uint64_t pfc_untracked;
	int64_t pause_until;      /* no pause lasts past this: traffic before it is checked */
	/* the capture's extent, as analyzed, and the frame being analyzed (its number in the file) */
	int64_t first_ts, last_ts;
	uint64_t frame;
	roce_cong_fn on_outcome;  /* roce_analyzer_on_congestion */
	void *on_outcome_user;
};

int cong_init(struct roce_analyzer *a, const struct roce_congestion_config *cfg);
void cong_free(struct roce_analyzer *a);

/* Per frame, from roce_analyze(), before anything else: the frame's number and time; CE
 * deadlines that passed (cnp.missing on this frame); a MAC control frame's accounting; a RoCE
 * frame sent into a pause. */
void cong_frame_slow(struct roce_analyzer *a, struct roce_pkt *p, const uint8_t *frame, int64_t ts,
		     struct roce_findings *out);
/* A CNP (src, dst: address ids). */
void cong_cnp(struct roce_analyzer *a, struct roce_pkt *p, int64_t ts, uint32_t src, uint32_t dst,
	      struct roce_findings *out);
/* A packet of stream s with ECN bits, FECN or BECN set. A stream whose packets are all ECT(0)
 * without FECN or BECN (stream.ect0_only) counts them in its core, not here: cong_frame() calls
 * cong_mark() only for the others, after moving that count into the block. */
void cong_mark(struct roce_analyzer *a, struct stream *s, const struct roce_pkt *p, int64_t ts);
void cong_ect0_settle(struct roce_analyzer *a, struct stream *s, uint64_t ect0_packets);
/* The stream at idx leaves the table (it has a block: ids[idx].cong). */
void cong_stream_gone(struct roce_analyzer *a, uint32_t idx);
/* A stream's congestion figures into its report row. */
void cong_fill_stats(const struct roce_analyzer *a, const struct stream *s, struct roce_stream_stats *st);

#endif
