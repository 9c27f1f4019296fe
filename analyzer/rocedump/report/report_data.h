/* report_data.h: what --report collects while frames arrive (internal to report.c,
 * report_cong.c and report_page.c): points and bins per stream, its congestion outcomes, the
 * capture's event timeline and pause intervals. */
#ifndef ROCEDUMP_REPORT_DATA_H
#define ROCEDUMP_REPORT_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"
#include "report/tbins.h"
#include "u64map.h"

/* Times the report plots lie within ±REPORT_TS_MAX ns of 1970 (the years 1823 to 2116): a time
 * stamp beyond is plotted at that limit (the page's note counts them). So two times differ by
 * less than INT64_MAX, and the bins (tbins.h) stay within the int64 range. */
#define REPORT_TS_MAX ((INT64_C(1) << 62) - 1)
/* Frames spanning more than 10 years: the page's note calls their time stamps absurd. */
#define REPORT_SPAN_ABSURD_NS (INT64_C(315576000) * 1000000000)

static inline int64_t report_ts(int64_t t)
{
	return t > REPORT_TS_MAX ? REPORT_TS_MAX : t < -REPORT_TS_MAX ? -REPORT_TS_MAX : t;
}

/* What a point is: a request of the stream's source, or a response to its destination's requests. */
enum rpoint_kind { RK_REQ = 0, RK_ACK, RK_NAK, RK_RNR, RK_RRESP, RK_AACK, RK_KINDS };
/* Congestion outcomes of a stream (report_cong.c), written as points too: a CNP answering the
 * stream (val: its CE-to-CNP latency, RF_UNEXPECTED when it answered no CE mark), a CE mark of
 * the stream whose CNP never came (t and frame: the mark's) */
enum { RK_CNP = RK_KINDS, RK_CE_MISSED };
#define RF_RETX 0x01u     /* psn.retransmit */
#define RF_OOO 0x02u      /* psn.out_of_order */
#define RF_GAP 0x04u      /* psn.gap before it */
#define RF_TMO 0x08u      /* retransmit.timeout: val is the age of the original sending, if known */
#define RF_END 0x10u      /* ends a message (LAST/ONLY) */
#define RF_READ 0x20u     /* a READ request */
#define RF_ERROR 0x40u    /* carries an error-severity event */
#define RF_RECOVER 0x80u  /* the requester's restart after a NAK: val is the time since the NAK */
#define RF_CE 0x100u      /* IP ECN field CE (congestion experienced) */
#define RF_COPY 0x200u    /* frame.copy: a copy of a frame seen before, in no count of its stream */
#define RF_UNEXPECTED 0x400u  /* RK_CNP: cnp.unexpected */
#define RF_RARE (RF_RETX | RF_OOO | RF_GAP | RF_TMO | RF_ERROR | RF_RECOVER | RF_COPY)  /* kept exactly when binned */

/* A point as made and as written out; exact points are kept encoded (struct rdetail). */
struct rpoint {
	int64_t t;          /* ns since 1970 */
	int64_t val;        /* ns: a response's response time, a timeout resend's age of the first
			     * sending (RF_TMO), a restart's time since the NAK (RF_RECOVER); -1 none */
	uint64_t frame;     /* rocedump's frame number */
	int64_t psn;        /* unwrapped: 2^24 added per wrap */
	uint32_t len;       /* wire bytes */
	uint8_t kind;
	uint16_t flags;     /* RF_* */
	uint16_t code;      /* NAK code; RNR timer */
};

/* One time bin of one stream. */
struct sbin {
	uint32_t req, retx, ooo, gap, tmo, msgs, acks, naks, rresp, other, ce, copies;
	uint64_t bytes;
	int64_t psn_lo, psn_hi;   /* of its requests (req > 0) */
	int64_t ack_hi;           /* highest PSN ACKed (acks > 0) */
	int64_t rr_lo, rr_hi;     /* READ responses' PSNs (rresp > 0) */
	int64_t rt_min, rt_max;   /* response times, ns (rt_n > 0) */
	uint64_t rt_sum;
	uint32_t rt_n;
};

/* Response times of a binned stream by half-octave of microseconds: bucket 0 below 1 µs, then
 * 1 + 2k for [2^k, 2^k·√2) µs and 2 + 2k for [2^k·√2, 2^(k+1)) µs. */
#define RT_BUCKETS 66

#define REPORT_MARKS_MAX 4096  /* rare points (RF_RARE, NAKs) a binned stream keeps exactly */

/* A stream past REPORT_EXACT_POINTS (or whose points the budget could not hold): bins. */
struct rdetail {
	struct tbins tb;
	struct sbin bins[TBINS_N];
	struct rpoint marks[REPORT_MARKS_MAX];
	uint64_t rt_hist[RT_BUCKETS];
	uint32_t n_marks, marks_dropped;
};

/* A stream's congestion outcomes (report_cong.c): CNPs and missed CE marks as points up to
 * REPORT_CONG_EXACT, then per time bin; the CE-to-CNP latencies' half-octave histogram. */
#define REPORT_CONG_EXACT 2048
struct cbin {
	uint32_t cnp, missed, lat_n;
	int64_t lat_min, lat_max;   /* ns (lat_n > 0) */
};
struct rcong {
	struct rpoint *ev;        /* exact: the outcomes in order of arrival; NULL once binned */
	uint32_t n, cap;
	struct tbins tb;          /* binned */
	struct cbin *bins;        /* TBINS_N, NULL while exact */
	uint64_t lat_hist[RT_BUCKETS];
};

/* A stream: its exact points are kept as the difference from its previous point, in
 * variable-length integers (report.c: point_encode): 8 to 12 bytes a point where struct rpoint
 * takes 40, so a capture's points cost a quarter of the memory and of the memory traffic. The
 * encoder's fields come first: every frame of the stream touches them. */
struct rstream {
	uint8_t *enc;             /* exact mode: the encoded points; NULL once binned or dropped */
	uint32_t enc_len, enc_cap;
	uint32_t n;               /* exact points */
	uint32_t id;              /* the analyzer's stream id */
	int64_t last_t;           /* the previous point's time and frame */
	uint64_t last_frame;
	int64_t last_psn[2];      /* the previous request's / response's PSN, unwrapped */
	bool has_psn[2];
	bool dropped;             /* over the memory budget: no series */
	uint64_t ev[3];           /* events on its frames, by severity */
	struct rdetail *d;        /* binned mode */
	struct rcong *cg;         /* congestion outcomes, if any */
};

#define GBIN_FRAMES 8          /* frame numbers a timeline bin lists */
struct gbin {
	uint64_t frames, bytes, roce;
	uint64_t sev[3];          /* events by severity */
	uint64_t ev_frames;       /* frames with events */
	uint64_t f[GBIN_FRAMES];  /* the first of them */
};

/* Per-hop series (report_path.c): the first REPORT_HOPS_MAX hops the path analysis folds packets
 * into, each in TBINS_N bins kept the same as the timeline's (t0, width: the timeline's when they
 * were last written). */
#define REPORT_HOPS_MAX 16
struct rhop;
struct report_hops {
	struct rhop *hop[REPORT_HOPS_MAX];
	uint32_t n;
	uint64_t left_out;        /* packets' shares of further hops, not binned */
	int64_t t0, width;
};

struct report {
	struct report_config cfg;
	FILE *out;
	char *path;
	struct u64map index;      /* stream id -> streams[] */
	struct rstream *streams;
	uint32_t n_streams, streams_alloc;
	uint64_t mem;             /* bytes of points and bins held */
	uint64_t dropped_streams; /* streams without series (memory budget) */
	bool have_ts;
	int64_t first_ts, last_ts; /* within ±REPORT_TS_MAX */
	/* time stamps for the page's note: the previous frame's (as read), frames earlier than the
	 * frame before them and the largest such step back (ns), frames before 1970, frames
	 * beyond ±REPORT_TS_MAX (or held at the int64 range when read) */
	int64_t prev_ts;
	uint64_t ts_backwards, ts_before_1970, ts_clamped;
	int64_t ts_max_back;
	struct tbins tl;          /* the event timeline */
	struct gbin bins[TBINS_N];
	/* PFC/PAUSE (report_cong.c): pause intervals as they ended, the RoCE frames sent into one */
	struct rpause *pauses;
	uint32_t n_pauses, pauses_alloc;
	uint64_t pauses_dropped;
	struct rpoint *into_pause; /* t, frame; code: priority; psn: the destination MAC (48 bits) */
	uint32_t n_into, into_alloc;
	uint64_t into_dropped;
	struct report_hops hops;
	const struct roce_path *paths;  /* the analyzer's, at the end (NULL: none) */
};

/* A PFC/PAUSE interval of one source MAC and priority. */
#define REPORT_PAUSES_MAX 100000   /* intervals kept; later ones only counted */
#define REPORT_INTO_PAUSE_MAX 4096 /* frames sent into a pause kept */
#define RP_STORM 1u
#define RP_EXPIRED 2u
#define RP_OPEN 4u                 /* ended by no frame: at its timer's end or the capture's */
struct rpause {
	int64_t start, len;       /* ns */
	uint8_t src[6];
	int8_t priority;          /* -1: PAUSE */
	uint8_t flags;            /* RP_* */
};

/* The selection report_finish() makes: pairs sorted by trouble, rows listed, rows plotted. */
struct rpair {
	uint32_t pair;            /* its number in the listing (the rows' "pair") */
	uint32_t pair_id;         /* the analyzer's pair id */
	uint32_t rows;            /* rows of the pair (1 or 2) */
	uint64_t errors, warnings, retransmits, bytes;
	uint32_t first_row;       /* its first row's index in the page's rows, when listed */
};

struct rrow {
	struct rstream *s;        /* NULL: the stream has no report state */
	uint32_t rank;            /* its pair's rank */
};

struct report_sel {
	struct rpair *pairs;      /* sorted by trouble */
	uint32_t n_pairs, listed; /* listed = the first pairs of pairs[] in the table */
	struct rrow *rows;        /* the rows of the listed pairs, in the streams block's order */
	uint32_t n_rows;
	char *streams_json;       /* the streams block */
	size_t streams_len;
	char *summary_json;
	size_t summary_len;
};

/* report.c: s's exact points, decoded into out[s->n]. */
void rstream_decode(const struct rstream *s, struct rpoint *out);
/* report.c: the stream of the analyzer's stream id, created when create is set; whether the
 * report's memory budget has room for bytes more (taken if so); a response time's bucket of a
 * half-octave histogram (RT_BUCKETS). */
struct rstream *report_stream(struct report *r, uint32_t id, bool create);
bool report_budget_take(struct report *r, size_t bytes);
unsigned report_rt_bucket(int64_t ns);

/* report_cong.c: a frame's share (frames sent into a pause); at the end, the pauses still on
 * (from the analyzer's rows); the JSON of a stream's congestion outcomes (,"cong":{...}, nothing
 * when it has none) and of the capture's pauses (,"pauses":{...},"into_pause":{...}); freeing
 * a stream's (s), or the report's (s NULL). */
void report_cong_frame(struct report *r, uint64_t frame_no, int64_t t, const struct frame *f,
		       const struct roce_pkt *p, const struct roce_findings *fi);
void report_cong_put_series(FILE *out, const struct rstream *s, int64_t t0);
void report_cong_finish(struct report *r, const struct roce_analyzer *an);
void report_cong_put(FILE *out, const struct report *r, int64_t t0);
void report_cong_free(struct report *r, struct rstream *s);

/* report.c: the timeline's bin of time t (within ±REPORT_TS_MAX), its bins moved on as needed. */
unsigned report_tl_index(struct report *r, int64_t t);

/* report_path.c: the JSON of the hops' series (,"hops":{...}, nothing when the capture has no hop);
 * freeing them. */
void report_path_put(FILE *out, struct report *r, const struct roce_path *p);
void report_path_free(struct report *r);

/* report_page.c: JSON pieces shared with report_cong.c: a time as µs since t0; points as
 * columns; a half-octave histogram as [[lo_us, hi_us, count], ...]. */
void report_put_us(FILE *out, int64_t t, int64_t t0);
void report_put_points(FILE *out, const struct rpoint *p, uint32_t n, int64_t t0);
void report_put_hist(FILE *out, const uint64_t *hist);

/* report_page.c: write the page. */
int report_page_write(struct report *r, const struct report_sel *sel, char *err, size_t errlen);

#endif
