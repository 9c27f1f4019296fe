/* stream_table.h: the transport analyzer's state (internal): per-stream records, the bounded
 * stream table (an open-addressing map, each stream stamped when last used) and interned addresses. The rules that
 * update a stream live in analyze.c; the table and its reports in stream_table.c. */
#ifndef ROCE_STREAM_TABLE_H
#define ROCE_STREAM_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "congestion.h"
#include "copies.h"
#include "path.h"
#include "idxmap.h"
#include "mirror.h"
#include "stream_hash.h"
#include "roce/analyze.h"
#include "u64map.h"

#define PSN_MASK 0xffffffu
#define NO_IDX UINT32_MAX
/* stream.peer_qpn of an unpaired stream: QPN 0xFFFFFF addresses multicast (IBTA Vol 1), never
 * the peer of a connected QP */
#define PEER_NONE 0xffffffu
/* Stamps of last use (stream.touched) are TOUCH_BITS wide: the clock is renumbered before it
 * passes TOUCH_MAX (stream_touch), after 10^12 lookups. */
#define TOUCH_BITS 40
#define TOUCH_MAX ((UINT64_C(1) << TOUCH_BITS) - 1)
#define ADDR_BITS 20
#define MAX_ADDRS (1u << ADDR_BITS)

/* stream flags */
#define F_REQ_SEEN 0x0001u
#define F_RESP_SEEN 0x0002u    /* a READ response was seen (resp_max valid) */
#define F_ACK_SEEN 0x0004u     /* acked_psn valid */
#define F_IN_MSG 0x0008u       /* a SEND/WRITE message is open */
#define F_MSG_UNKNOWN 0x0010u  /* message state lost (gap): no sequence checks until FIRST/ONLY */
#define F_RESTART 0x0020u      /* a NAK asked this stream to restart at restart_psn */
#define F_RESEND 0x0040u       /* between a go-back-N restart and catching up with next_psn */
#define F_IPID 0x0080u         /* the stream's IPv4 ids count (seen to change); ip_id: the newest */
#define F_NAK_SEEN 0x0100u     /* nak_psn / nak_code valid */
#define F_READ_UNKNOWN 0x0200u /* last READ's PSN span unknown (no PMTU yet) */
#define F_RTT_PENDING 0x0400u  /* timed requests wait for their response (struct rtt_ring) */
#define F_PAIRED_PSN 0x0800u   /* peer_qpn learned by PSN matching */
#define F_PAIRED_CM 0x1000u    /* peer_qpn learned from an RDMA-CM REQ/REP exchange */
#define F_MSN_KNOWN 0x2000u    /* the ack block's msn_psn / msn hold the last ACK */
#define F_LEN_UNKNOWN 0x4000u  /* the open WRITE's FIRST had no RETH: no DMA length to check */
#define F_TURN_PENDING 0x8000u /* a response came: the requester's next new request times its turn */

/* PSNs tracked below the next one: go-back-N resends reach this deep in the DUT captures (71
 * PSNs for WRITEs, 130 for READs) */
typedef unsigned __int128 holes_t;

/* Round-trip quantiles come from a histogram of half-octave buckets from 1 us (bucket 2k holds
 * [2^k, 2^k·√2), 2k+1 holds [2^k·√2, 2^(k+1)); the last one everything from 11.9 s up): a
 * median or p99 is known to within ±19 %. Counts are 8 bits; when one would overflow, all are
 * halved, which keeps their proportions. */
#define RTT_BUCKETS 48
#define HOLE_BITS 128u
#define ALL_HOLES (~(holes_t)0)

static inline holes_t holes_shift(holes_t h, uint32_t n)
{
	return n >= HOLE_BITS ? 0 : h << n;
}
static inline holes_t low_bits(uint32_t n)  /* n ones */
{
	return n >= HOLE_BITS ? ALL_HOLES : ((holes_t)1 << n) - 1;
}

/* Per-stream state comes in parts: the core (struct stream, 64 bytes: one cache line), which
 * every stream has, and blocks that a stream takes when it first needs them, from pools shared by
 * all streams, and gives back when it is evicted:
 *   req   the requester's side, from its first request (struct req_block, 192 bytes: three
 *         lines): the PSN window, the message being sent, the send log's link, its counts; and
 *         its acknowledgement tracking (struct ack_block: response-time statistics and the
 *         requester's turn, the MSN check, messages by kind), in use from its first request that
 *         asks for a response or ends a message, or its first response (a round-trip histogram
 *         spread too wide for its window takes 48 bytes more, struct rtt_hist);
 *   loss  loss and recovery: counts, NAK state and go-back-N episodes, retries, losses after
 *         the capture point, from its first anomaly (a gap, resend or late request, a NAK or RNR
 *         NAK sent or received, a resent READ response) (128 bytes);
 *   resp  the window of READ response PSNs, from its first READ response (32 bytes).
 * Beside the table, 16 bytes a stream hold its ids, copy count and congestion block (struct
 * stream_ids). A clean requester takes 272 bytes, a stream that only responds 80, and a response
 * touches one line of its own. The core is full to the bit: its counts and stamps are as wide as
 * they need be, packed in 64-bit words. */
struct stream {
	uint64_t key;             /* src id : 20 | dst id : 20 | dqpn : 24 */
	int64_t last_ts;
	uint64_t bytes : 56;      /* 72 PB on one stream */
	uint64_t packets_hi : 8;  /* the packet count's high 8 bits (packets_add) */
	uint64_t touched : TOUCH_BITS;  /* the analyzer's clock when the stream was last looked up
				   * (stream_touch): unique, so the streams' order of last use (the
				   * least recently used is evicted; reports list them in that order) */
	uint64_t flags : 16;      /* F_* */
	uint64_t pmtu_log : 4;    /* log2 of the learned path MTU (8-12), 0 while unknown */
	uint64_t ect0_only : 1;   /* every packet so far was ECT(0), no FECN or BECN: counted here, not in
				   * a congestion block (the common case, which then needs none) */
	uint64_t peer_qpn : 24;   /* the other direction's QPN, PEER_NONE while unpaired */
	uint64_t acked_psn : 24;  /* the newest PSN ACKed on this stream (F_ACK_SEEN) */
	uint64_t ip_id : 16;      /* the newest non-zero IPv4 id of its frames (F_IPID): which frame
				   * was sent first, whatever order the network delivered them in */
	uint32_t peer_idx;        /* where the peer_qpn stream was last found (checked by key) */
	uint32_t max_idle_us;     /* the longest silence between two of the stream's frames */
	uint32_t packets;         /* low 32 bits; the high 8 above */
	uint32_t req, loss, resp; /* blocks (above), 0 if none */
};
_Static_assert(sizeof(struct stream) == 64, "per-stream core state: one cache line");

/* A stream's packet, request and message counts are 40 bits, a 32-bit low part and an 8-bit high
 * part: 1.1 T packets on one stream, hours of one QP at line rate, where 32 bits wrapped after
 * seconds to minutes. */
static inline void count40_add(uint32_t *lo, uint8_t *hi)
{
	if (!++*lo)
		++*hi;
}

static inline uint64_t count40(uint32_t lo, uint8_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

static inline void packets_add(struct stream *s)
{
	if (!++s->packets)
		s->packets_hi++;
}

static inline uint64_t packets_of(const struct stream *s)
{
	return count40(s->packets, (uint8_t)s->packets_hi);
}

enum msg_kind { MSG_SEND, MSG_WRITE, MSG_READ, MSG_ATOMIC, MSG_OTHER, MSG_KINDS };

/* A stream's round-trip histogram (RTT_BUCKETS buckets, hist_add) as a window of RTT_WINDOW of
 * them from bucket `base`: every bucket outside the window is 0. The first sample places the
 * window (base RTT_EMPTY until then): 8 buckets below it, 18 above. A sample outside it moves the
 * window when all the non-zero buckets still fit (round trips spread over less than 2^13.5, as a
 * stream's do), else the whole histogram moves to a block of its own (base RTT_SPILLED, the
 * block's index in the window's first four bytes). Counts are the whole histogram's, bucket for
 * bucket (a halving leaves empty buckets empty): quantiles are the same as from the whole one.
 * 28 bytes, not 48: the acknowledgement tracking fits two cache lines. */
#define RTT_WINDOW 27u
#define RTT_SPILLED 0xffu
#define RTT_EMPTY 0xfeu           /* no sample yet: the first places the window */
struct rtt_hist {
	uint8_t base;
	uint8_t w[RTT_WINDOW];
};

/* Response time: every request asking for a response is timed, up to RTT_OUTSTANDING of a
 * stream's at a time (the per-stream budget; a request sent while that many wait is not timed,
 * and counted: untimed). One waiting request waits in the ack block (ts, psn); when a second is
 * timed while one waits, the stream takes a ring (struct rtt_ring, 784 bytes, from rtt_pool)
 * that holds its waiting requests from then on, in the order sent, and keeps it (ack.psn
 * RTT_IN_RING, ack.ts the ring's index). A stream with one request out at a time takes none. */
#define RTT_OUTSTANDING 64u
#define RTT_IN_RING 0xffffffffu   /* ack.psn: no PSN (24 bits), the requests are in the ring */
#define RTT_DROPPED INT64_MIN     /* a ring entry's ts: resent (Karn's rule), not timed */
struct rtt_ring {
	uint32_t head, n;         /* the oldest entry's slot, the entries waiting */
	uint64_t untimed;         /* requests not timed: RTT_OUTSTANDING were waiting */
	int64_t ts[RTT_OUTSTANDING];   /* send times */
	uint32_t psn[RTT_OUTSTANDING];
};
_Static_assert(sizeof(struct rtt_ring) == 784, "784 bytes (docs/transport.md)");

/* Two cache lines: what a request touches in the first (the block starts on a line), but for its
 * turn (after a response, the second); a response touches both. */
struct ack_block {
	holes_t msg_ends;         /* bit k: PSN next_psn - 1 - k ended a request message (as holes) */
	int64_t ts;               /* round trip: the waiting request's send time (F_RTT_PENDING); or
				   * the stream's ring (psn RTT_IN_RING) */
	uint32_t psn;             /* the waiting request's PSN, or RTT_IN_RING */
	uint32_t by_kind[MSG_KINDS];  /* completed request messages by kind (enum msg_kind) */
	uint64_t sum_us;          /* round trips: their sum ... */
	uint32_t msn_psn, msn;    /* the last ACK's PSN and MSN (F_MSN_KNOWN) */
	/* second line: the requester's side, a response to its next new request (F_TURN_PENDING) */
	int64_t turn_ts;          /* the response */
	uint64_t turn_sum_us;
	uint32_t turn_count, turn_max_us;
	uint32_t min_us, max_us, count;  /* ... and the rest of their statistics */
	struct rtt_hist hist;
};
_Static_assert(sizeof(struct ack_block) == 128, "two cache lines");
_Static_assert(offsetof(struct ack_block, turn_ts) == 64, "a request's fields in the first line, its turn's in the second");
/* The part of the block a request touches but for its turn (the look-ahead loads no more for one). */
#define ACK_REQUEST_BYTES offsetof(struct ack_block, turn_ts)

/* A requester's block: what its requests read and write in the first line, its acknowledgement
 * tracking in the next two (in use once ack_need() took it: ack_taken). Three whole lines (the
 * pool starts on a page). */
struct req_block {
	holes_t holes;            /* bit k: PSN next_psn - 1 - k was never seen */
	uint32_t next_psn, first_psn;
	uint32_t prev_end;        /* the PSN after the previous request */
	uint32_t pair_next;       /* the request stream between the same hosts created before this one */
	uint32_t msg_bytes, msg_dmalen;
	uint32_t last_send;       /* send log entry of the newest first sending, 0 if none */
	uint32_t requests, messages;  /* low 32 bits; the high 8 below (count40) */
	uint16_t pkey;
	uint8_t transport, msg_op;
	uint8_t requests_hi, messages_hi;
	bool ack_taken;           /* ack holds acknowledgement tracking */
	uint16_t first_id;        /* the IPv4 id of the stream's first request, 0 if none */
	struct ack_block ack;
};
_Static_assert(sizeof(struct req_block) == 192, "three cache lines");
_Static_assert(offsetof(struct req_block, ack) == 64, "a request's own fields in the first line");

struct loss_block {
	int64_t nak_ts;           /* the NAK or RNR NAK that armed the restart (F_RESTART) */
	uint64_t recover_sum_us;
	uint32_t restart_psn;     /* F_RESTART */
	uint32_t rnr_wait_us;     /* the timer of the RNR NAK that armed the restart, 0 for a NAK */
	uint32_t recover_count, recover_max_us;  /* NAK or RNR NAK to the restart that answers it */
	uint32_t nak_psn : 24;    /* the last NAK sent on this stream (F_NAK_SEEN), and its code */
	uint32_t nak_code : 8;
	uint32_t gaps, missing, retransmits, ooo, timeouts;
	uint32_t timeout_aged, timeout_max_us;  /* timeouts whose original send is known; their ages */
	uint64_t timeout_sum_us;
	uint32_t naks[5], rnr;    /* NAKs sent on this stream, by code; RNR NAKs */
	uint32_t nak_frame;       /* the frame of the NAK or RNR NAK that armed the restart (frame_back) */
	uint32_t episode_psn;     /* the first resend after the NAK (L_EPISODE) */
	uint32_t restart_lo;      /* the lowest PSN of the NAKs not answered yet (L_UNANSWERED): NAKs
				   * in a row, a restart at any of their PSNs answers one */
	/* the stuck PSN: restarts since an ACK last covered it (none: 0 and 0), retry_seen of them
	 * at it, retry_inferred at a later PSN of its run (its own resend missing from the capture);
	 * each count stops at 255 */
	uint32_t retry_psn : 24;
	uint32_t retry_seen : 8;
	uint32_t lost_psn : 24;   /* the last PSN lost after the capture point (L_LOST) */
	uint32_t retry_inferred : 8;
	uint32_t lost_after;      /* PSNs seen, then lost after the capture point (analyze.c) */
	uint32_t resend_frame;    /* L_SUSPECT: the timeout resend that counted lost_psn (frame_back) */
	uint16_t wrong_id;        /* L_PENDING: the IPv4 id of the new PSN that ended the episode */
	uint8_t lflags;           /* L_* */
};
_Static_assert(sizeof(struct loss_block) == 128, "128 bytes");
#define L_EPISODE 0x01u        /* F_RESTART: the go-back-N restart has begun (episode_psn) */
#define L_LOST 0x02u           /* lost_psn counted, no ACK covering it since */
#define L_UNANSWERED 0x04u     /* NAKs came (restart_lo) and no restart has begun since */
#define L_PENDING 0x08u        /* the episode ended without p; a resend of p sent before its end
				* (IPv4 id) may still arrive late: the verdict waits (analyze.c) */
#define L_RETRY_REPORTED 0x10u /* retransmit.retry_exceeded was given for retry_psn */
#define L_SUSPECT 0x20u        /* lost_psn was counted by the timeout resend in resend_frame, its
				* only restart, before any ACK covered it: a second ACK of the PSN
				* that first covers it would show the original arrived (analyze.c) */
#define PENDING_IDS 64         /* ... until a frame sent this many ids after the episode's end */

struct resp_block {
	holes_t holes;            /* as stream.holes, for READ response PSNs below next */
	uint32_t next;
};

/* An array the analysis fills from its start, as published for roce_analyzer_prefault() on
 * another thread (prefault.c): where its mapping is, how much of it is in use. The analysing
 * thread stores, the prefaulting thread loads (relaxed: populating pages changes no byte in
 * them, so a mix of old and new values only populates the wrong pages, or none). */
struct prefault_area {
	_Atomic(uint8_t *) base;  /* the mapping's start, NULL: none */
	_Atomic size_t used;      /* bytes in use from base on */
	_Atomic size_t size;      /* the mapping's size */
};
enum prefault_kind { PF_CORES, PF_IDS, PF_REQ, PF_LOSS, PF_AREAS };

static inline void prefault_publish(struct prefault_area *pf, void *base, size_t used, size_t size)
{
	atomic_store_explicit(&pf->base, (uint8_t *)base, memory_order_relaxed);
	atomic_store_explicit(&pf->size, size, memory_order_relaxed);
	atomic_store_explicit(&pf->used, used, memory_order_relaxed);
}
static inline void prefault_used(struct prefault_area *pf, size_t used)
{
	atomic_store_explicit(&pf->used, used, memory_order_relaxed);
}

/* Fixed-size blocks by index; index 0 is never handed out (0 means none). Taking a block may
 * move the pool: pointers into it are valid until the next block_take on the same pool. */
struct block_pool {
	uint8_t *mem;
	uint32_t size;            /* bytes per block */
	uint32_t n_alloc, n_used;
	uint32_t free_head;       /* given-back blocks, linked through their first 4 bytes; 0 ends */
	struct prefault_area *pf; /* where its growth is published (NULL: nowhere) */
};

/* The send log: the first sending of every request PSN of every stream (a new request, or a
 * late one filling a hole), newest last, in a ring of SEND_LOG_SIZE entries; each entry links to
 * its stream's previous one (stream.last_send), so the original send of a PSN that times out is
 * found by walking back its own stream's sends. Entries are numbered from 1 (0: none), and
 * entry n lives at n % SEND_LOG_SIZE until overwritten. */
#define SEND_LOG_SIZE (1u << 16)
#define SEND_LOG_WALK 4096u      /* at most this many of a stream's sends are walked back */
struct send_rec {
	int64_t ts;
	uint32_t seq, prev;       /* this entry's number; the stream's previous entry */
	uint32_t stream;          /* stream index */
	uint32_t psn, span;       /* the request's first PSN and the PSNs it takes (READ: several) */
	uint32_t frame;           /* its frame number's low 32 bits (frame_back) */
};

/* A frame number kept as its low 32 bits: the number nearest now with those bits (the frames
 * referred to are at most 2^31 numbers away: earlier ones, or, in a file whose interfaces are
 * analysed in time order, ones later in the file analysed before now); 0 when that is none. */
static inline uint64_t frame_back(uint64_t now, uint32_t lo)
{
	int64_t back = (int32_t)((uint32_t)now - lo);
	if (back < 0)
		return now + (uint64_t)-back;
	return (uint64_t)back < now ? now - (uint64_t)back : 0;
}

/* A stream's numbers for the outside (analyze.h): kept beside the table, not in the 64-byte
 * core, one entry per table entry. */
struct stream_ids {
	uint32_t id, pair;
	uint32_t copies;          /* frames of the stream that were copies (copies.h) */
	uint32_t cong;            /* its congestion block (congestion.h) in cong_pool, 0: none; here
				     and not in the core: touched only by marked frames and CNPs */
};

/* roce_analyze_prefetch() (prefetch.c) loads a frame's state in four stages, AHEAD_STEP frames
 * apart: its frames in flight are the last AHEAD_RING it was given. */
#define AHEAD_STEP 4u
#define AHEAD_RING (4u * AHEAD_STEP)
/* A frame's stream_hint: its stream's hash (bits 0-31) with HINT_HASH set (stream_hash.h); from
 * the look-ahead, HINT_AHEAD too and the frame's number there (mod AHEAD_IDS) from bit
 * HINT_AHEAD_SHIFT on, which finds the ids stage 2 noted for a new stream. AHEAD_IDS frames are
 * far more than the look-ahead and the pipeline keep in flight. */
#define HINT_AHEAD (UINT64_C(1) << 33)
#define HINT_AHEAD_SHIFT 34
#define AHEAD_IDS 256u
_Static_assert((AHEAD_RING & (AHEAD_RING - 1)) == 0, "a power of two: (n - k) % AHEAD_RING is right across n's wrap");

struct roce_analyzer {
	uint32_t max_streams, pmtu_cfg;
	struct idxmap streams;    /* key → index into s[] (idxmap.h: checked against s[].key) */
	struct idxmap pairs;      /* (src id, dst id) → most recent request stream index (checked
				   * against that stream's key: one evicted since is not found) */
	struct u64map addr_index; /* address hash → address id */
	struct stream *s;
	struct stream_ids *ids;   /* beside s[], as many (ids_alloc of them: more after a failed growth of s[]) */
	uint32_t next_id;         /* the last stream id given */
	uint32_t n_alloc, n_used, ids_alloc;
	uint64_t clock;           /* stream lookups so far: the last one's stream.touched */
	uint32_t newest;          /* the stream looked up last, NO_IDX before any */
	struct use_order {        /* streams by stream.touched, oldest first, as at some moment: */
		struct touch_rec {  /* the eviction candidates (entry_take in stream_table.c) */
			uint64_t touched;
			uint32_t idx;
		} *rec;
		uint32_t n, pos, alloc;
	} evict;
	uint8_t (*addrs)[17];     /* address bytes + length */
	struct addr_pair {        /* the last two address pairs looked up, newest first */
		uint8_t bytes[32];
		uint32_t len, src, dst;  /* len 0: empty */
	} recent_pairs[2];
	struct pending_req {      /* CM REQs waiting for their REP (a small ring) */
		uint32_t comm_id, active, passive, qpn;
		uint8_t path_mtu;
		bool used;
	} reqs[16];
	unsigned next_req;
	uint32_t n_addrs, addrs_alloc;
	uint64_t evictions;
	/* roce_analyzer_on_evict: told of each stream before it is evicted */
	void (*on_evict)(const struct roce_stream_stats *s, void *user);
	void *on_evict_user;
	uint64_t refused;         /* frames no stream took: out of memory, or of addresses (roce_analyzer_refused) */
	struct send_rec *sends;   /* the send log (above) */
	uint32_t send_seq;        /* the newest entry's number */
	struct block_pool req_pool, loss_pool, resp_pool, cong_pool;
	struct block_pool hist_pool;  /* spilled round-trip histograms (struct rtt_hist) */
	struct block_pool rtt_pool;   /* rings of requests waiting for their response (struct rtt_ring) */
	struct cong_state cong;   /* congestion analysis (congestion.h) */
	struct sightings *copies; /* the sightings table (copies.h); NULL: copies not looked for */
	struct path_state *path;  /* path analysis on the sightings (path.h); with copies */
	struct mirror_table mirror;  /* mirror sessions (mirror.h) */
	int64_t copy_window_ns;
	struct loss_block loss_scratch;  /* counts go here when a loss block cannot be had */
	struct found {            /* the frame's findings (roce_findings.f points at f): emptied per
				   * frame, grown when a frame has more than ever before (no allocation
				   * per frame once it holds the most a frame has had) */
		struct roce_finding *f;
		uint32_t alloc;
		uint64_t lost;        /* findings whose details memory could not hold (the event is set) */
		uint64_t count[ROCE_EV_COUNT];  /* findings so far, by event (roce_analyzer_findings) */
	} found;
	/* the arrays new streams fill, published for roce_analyzer_prefault() (prefault.c): the
	 * analysing thread stores, another thread loads, about once a millisecond */
	struct prefault_area pf[PF_AREAS];
	struct prefault_done {    /* the prefaulting thread's own: populated up to here */
		const uint8_t *base;
		size_t upto;
	} pf_done[PF_AREAS];
	bool pf_unsupported;      /* the prefaulting thread's own: the kernel cannot populate */
	struct ahead {            /* roce_analyze_prefetch()'s frames in flight (prefetch.c) */
		struct ahead_rec {
			uint8_t addrs[32];  /* the frame's source and destination address */
			uint64_t pair;    /* a new stream's: its requests' host pair (pairs map), 0: none */
			uint32_t hash;    /* its stream's hash (stream_hash.h) */
			uint8_t len;      /* the addresses' length, 0: no stream */
			uint32_t idx;     /* its stream's index, found a stage later (NO_IDX: none) */
			uint32_t peer;    /* a response's request stream, found a stage later */
			bool response;
		} rec[AHEAD_RING];
		struct ahead_ids {    /* a new stream's address ids, as stage 2 found them, for
				       * roce_analyze() (checked against the frame's addresses there) */
			uint32_t hash, src, dst;  /* src NO_IDX: none */
		} ids[AHEAD_IDS];
		uint32_t n;           /* frames seen */
	} ahead;
};

bool finding_grow(struct roce_analyzer *a, struct roce_findings *out);

/* The frame gets event e, counted; out, when there is one, the details: a pointer to them is
 * returned (NULL without out, or out of memory), zeroed but for qpn (delta_ns and priority -1),
 * for more; it is valid until the next finding_add(). */
static inline struct roce_finding *finding_add(struct roce_analyzer *a, struct roce_pkt *p, struct roce_findings *out,
					       enum roce_event e, uint32_t qpn)
{
	roce_evset_add(&p->events, e);
	a->found.count[e]++;
	if (!out || (out->n >= a->found.alloc && !finding_grow(a, out)))
		return NULL;
	struct roce_finding *x = &a->found.f[out->n++];
	*x = (struct roce_finding){.event = (uint16_t)e, .qpn = qpn, .delta_ns = -1, .priority = -1};
	return x;
}

static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static inline bool in_range(uint32_t psn, uint32_t lo, uint32_t hi)
{
	return psn_diff(psn, lo) >= 0 && psn_diff(psn, hi) < 0;
}


static inline uint64_t stream_key(uint32_t src, uint32_t dst, uint32_t qpn)
{
	return (uint64_t)src << 44 | (uint64_t)dst << 24 | (qpn & PSN_MASK);
}
static inline uint32_t key_src(uint64_t k) { return (uint32_t)(k >> 44); }
static inline uint32_t key_dst(uint64_t k) { return (uint32_t)(k >> 24) & (MAX_ADDRS - 1); }
static inline uint32_t key_qpn(uint64_t k) { return (uint32_t)k & PSN_MASK; }
static inline uint64_t pair_key(uint32_t src, uint32_t dst) { return (uint64_t)src << 20 | dst; }
_Static_assert(24 + ADDR_BITS == 44, "a stream key >> 24 is its pair key");

/* The stream's path MTU: configured, or learned (0 while unknown). */
static inline uint32_t pmtu_of(const struct roce_analyzer *a, const struct stream *s)
{
	return a->pmtu_cfg ? a->pmtu_cfg : s->pmtu_log ? 1u << s->pmtu_log : 0;
}

/* Histograms of 8-bit counts (round trips here, CE-to-CNP latencies in congestion.c): one more
 * sample in bucket k, all counts halved first when it would overflow (proportions kept); and the
 * bucket holding the sample below which a fraction q (0..1) of them lie, -1 when empty. */
static inline void hist_add(uint8_t *hist, unsigned n, unsigned k)
{
	if (hist[k] == UINT8_MAX)
		for (unsigned i = 0; i < n; i++)
			hist[i] = (uint8_t)((hist[i] + 1) / 2);
	hist[k]++;
}
int hist_quantile_bucket(const uint8_t *hist, unsigned n, double q);

/* One more round trip in bucket k of h (struct rtt_hist): in its window, a hist_add there. */
void rtt_hist_add_slow(struct roce_analyzer *a, struct rtt_hist *h, unsigned k);
static inline void rtt_hist_add(struct roce_analyzer *a, struct rtt_hist *h, unsigned k)
{
	unsigned at = k - h->base;  /* wraps when below; RTT_EMPTY and RTT_SPILLED are above every k */
	if (at < RTT_WINDOW)
		hist_add(h->w, RTT_WINDOW, at);
	else
		rtt_hist_add_slow(a, h, k);
}
/* h as the whole histogram. */
void rtt_hist_get(const struct roce_analyzer *a, const struct rtt_hist *h, uint8_t hist[RTT_BUCKETS]);

/* The round trip below which a fraction q (0..1) of a stream's samples lie, in microseconds (v),
 * with the whole microseconds its bucket may hold: lo <= v <= hi, within [min, max]. */
struct rtt_q {
	uint32_t v, lo, hi;
};
struct rtt_q rtt_quantile(const struct roce_analyzer *a, const struct ack_block *r, double q);

/* A zeroed block's index, or 0 when out of memory; block_give() hands one back (0: nothing).
 * block_reserve(): room for the next block_take() made (it then cannot fail); -1 when out of
 * memory. */
uint32_t block_take(struct block_pool *p);
int block_reserve(struct block_pool *p);
void block_give(struct block_pool *p, uint32_t i);
static inline void *block_at(const struct block_pool *p, uint32_t i)
{
	return p->mem + (size_t)i * p->size;
}

/* A stream's side blocks: *_of() the one it has, or NULL; *_need() the one it has or a new
 * one, NULL only when out of memory. */
static inline void *side_need(struct block_pool *p, uint32_t *idx)
{
	if (!*idx)
		*idx = block_take(p);
	return *idx ? block_at(p, *idx) : NULL;
}
static inline struct req_block *req_of(const struct roce_analyzer *a, const struct stream *s)
{
	return s->req ? block_at(&a->req_pool, s->req) : NULL;
}
static inline struct ack_block *ack_of(const struct roce_analyzer *a, const struct stream *s)
{
	struct req_block *b = req_of(a, s);
	return b && b->ack_taken ? &b->ack : NULL;
}
static inline struct loss_block *loss_of(const struct roce_analyzer *a, const struct stream *s)
{
	return s->loss ? block_at(&a->loss_pool, s->loss) : NULL;
}
static inline struct resp_block *resp_of(const struct roce_analyzer *a, const struct stream *s)
{
	return s->resp ? block_at(&a->resp_pool, s->resp) : NULL;
}
static inline struct req_block *req_need(struct roce_analyzer *a, struct stream *s)
{
	return side_need(&a->req_pool, &s->req);
}
/* A requester's acknowledgement tracking, put in use if need be. */
static inline struct ack_block *req_ack(struct req_block *b)
{
	if (!b->ack_taken) {
		b->ack_taken = true;
		b->ack.hist.base = RTT_EMPTY;  /* no round trip yet */
	}
	return &b->ack;
}
/* The same for a stream; NULL for one that never sent a request (no block). */
static inline struct ack_block *ack_need(const struct roce_analyzer *a, const struct stream *s)
{
	struct req_block *b = req_of(a, s);
	return b ? req_ack(b) : NULL;
}
static inline struct loss_block *loss_need(struct roce_analyzer *a, struct stream *s)
{
	return side_need(&a->loss_pool, &s->loss);
}
static inline struct resp_block *resp_need(struct roce_analyzer *a, struct stream *s)
{
	return side_need(&a->resp_pool, &s->resp);
}

/* The address map's key (addr_index). An IPv4 address is its own key, with bit 32 set: exact, so
 * a key found is the address (no compare with the stored bytes, which at many hosts is a cache
 * miss of its own). An IPv6 address (or GID) is a hash of its two 8-byte halves with bit 63 set,
 * so that it never meets an IPv4 key; its stored bytes are compared, and a collision moves on to
 * the next key. Both cost a few instructions an address, where a byte-wise hash costs tens. */
#define ADDR_KEY_V4 (UINT64_C(1) << 32)
#define ADDR_KEY_V6 (UINT64_C(1) << 63)

static inline uint64_t addr_key(const uint8_t *addr, unsigned len)
{
	if (len == 4) {
		uint32_t v;
		memcpy(&v, addr, 4);
		return ADDR_KEY_V4 | v;
	}
	uint64_t lo, hi;
	memcpy(&lo, addr, 8);
	memcpy(&hi, addr + 8, 8);
	hi *= UINT64_C(0x9e3779b97f4a7c15);
	return ((lo ^ (hi >> 29 | hi << 35)) * UINT64_C(0xff51afd7ed558ccd)) | ADDR_KEY_V6;
}

/* The id of an address (4 or 16 bytes), interned on first sight; NO_IDX when the table is full. */
uint32_t addr_id(struct roce_analyzer *a, const uint8_t *addr, unsigned len);

/* The ids of a packet's addresses as addr_pair_ids() would give them, but only if both are interned
 * already; nothing changes (no address interned, the recent pairs as they were). */
bool addr_pair_peek(const struct roce_analyzer *a, const uint8_t *addrs, unsigned len, uint32_t *src, uint32_t *dst);
bool addr_pair_ids_slow(struct roce_analyzer *a, const uint8_t *addrs, unsigned len, uint32_t *src, uint32_t *dst);
/* The ids of the two address pairs looked up last, if addrs is one of them. */
static inline bool addr_pair_recent(const struct roce_analyzer *a, const uint8_t *addrs, unsigned len, uint32_t *src,
				    uint32_t *dst)
{
	for (unsigned r = 0; r < 2; r++) {
		const struct addr_pair *c = &a->recent_pairs[r];
		/* constant-size compares, inlined (a libc memcmp call costs more than the work) */
		if (c->len == len && (len == 4 ? memcmp(c->bytes, addrs, 8) == 0 : memcmp(c->bytes, addrs, 32) == 0)) {
			*src = c->src;
			*dst = c->dst;
			return true;
		}
	}
	return false;
}
/* The ids of a packet's source and destination addresses (len bytes each, the destination right
 * after the source, as IP headers and the GRH have them); false when the table is full. The two
 * pairs looked up last answer inline: most frames belong to the connection of the frame before. */
static inline bool addr_pair_ids(struct roce_analyzer *a, const uint8_t *addrs, unsigned len, uint32_t *src,
				 uint32_t *dst)
{
	return addr_pair_recent(a, addrs, len, src, dst) || addr_pair_ids_slow(a, addrs, len, src, dst);
}

/* A stream's hash in the stream map (stream_hash.h), from its key: its addresses' bytes and QP. */
static inline uint32_t stream_hash(const struct roce_analyzer *a, uint64_t key)
{
	const uint8_t *src = a->addrs[key_src(key)], *dst = a->addrs[key_dst(key)];
	return stream_hash_raw(src, dst, src[16], key_qpn(key));
}

/* Whether the interned address stored (its bytes, then its length) is addr (len bytes). */
static inline bool addr_is(const uint8_t *stored, const uint8_t *addr, unsigned len)
{
	return stored[16] == len && (len == 4 ? memcmp(stored, addr, 4) == 0 : memcmp(stored, addr, 16) == 0);
}

/* Whether address ids src and dst are a frame's addresses (the source's len bytes, then the
 * destination's). */
static inline bool addr_ids_are(const struct roce_analyzer *a, uint32_t src, uint32_t dst, const uint8_t *addrs,
				unsigned len)
{
	return addr_is(a->addrs[src], addrs, len) && addr_is(a->addrs[dst], addrs + len, len);
}

/* A frame's two addresses (len bytes each) copied to to (32 bytes), in fixed sizes: a copy of
 * 2 * len bytes compiled to rep movsq (~10 % of the time with many hosts). */
static inline void addr_pair_copy(uint8_t *to, const uint8_t *addrs, unsigned len)
{
	if (len == 4)
		memcpy(to, addrs, 8);
	else
		memcpy(to, addrs, 32);
}

/* The index of the stream of a frame with these addresses (the source's len bytes, then the
 * destination's) and destination QP, h their stream_hash_raw(): found by the addresses' bytes,
 * without looking either of them up. False: no such stream (and maybe not both addresses
 * interned yet). */
static inline __attribute__((always_inline)) bool stream_of_addrs(const struct roce_analyzer *a, uint32_t h, const uint8_t *addrs, unsigned len,
				   uint32_t qpn, uint32_t *idx)
{
	const struct idxmap *m = &a->streams;
	for (uint32_t i = idxmap_next(m, h, h & m->mask); m->slots[i].val; i = idxmap_next(m, h, (i + 1) & m->mask)) {
		uint32_t j = m->slots[i].val - 1;
		uint64_t k = a->s[j].key;
		if (key_qpn(k) == qpn && addr_ids_are(a, key_src(k), key_dst(k), addrs, len)) {
			*idx = j;
			return true;
		}
	}
	return false;
}

/* The slot of the stream with this key (h: its hash) in the stream map, or the empty slot that
 * ends its run: a slot whose hash matches is checked against the stream's key. */
static inline uint32_t stream_slot(const struct roce_analyzer *a, uint64_t key, uint32_t h)
{
	const struct idxmap *m = &a->streams;
	uint32_t i = idxmap_next(m, h, h & m->mask);
	while (m->slots[i].val && a->s[m->slots[i].val - 1].key != key)
		i = idxmap_next(m, h, (i + 1) & m->mask);
	return i;
}

/* The index of the stream with this key, or false. */
static inline bool stream_index(const struct roce_analyzer *a, uint64_t key, uint32_t *idx)
{
	uint32_t v = a->streams.slots[stream_slot(a, key, stream_hash(a, key))].val;
	if (!v)
		return false;
	*idx = v - 1;
	return true;
}

/* The host pair's newest request stream (pair key k, pair_key()), if the pairs map has one whose
 * key still says it is that pair's (a stream evicted since is not). */
static inline bool pair_head(const struct roce_analyzer *a, uint64_t k, uint32_t *idx)
{
	const struct idxmap *m = &a->pairs;
	uint32_t h = idxmap_hash(k);
	for (uint32_t i = idxmap_next(m, h, h & m->mask); m->slots[i].val; i = idxmap_next(m, h, (i + 1) & m->mask)) {
		uint32_t j = m->slots[i].val - 1;
		if (j < a->n_used && a->s[j].key >> 24 == k) {
			*idx = j;
			return true;
		}
	}
	return false;
}
/* idx is its host pair's newest request stream (pair key k). */
void pair_set_head(struct roce_analyzer *a, uint64_t k, uint32_t idx);

/* The clock passed TOUCH_MAX: every stream's stamp renumbered 1, 2, ... in their order of use,
 * and the clock set to the newest. */
void touch_renumber(struct roce_analyzer *a);

/* The clock's next stamp. */
static inline uint64_t touch_next(struct roce_analyzer *a)
{
	if (__builtin_expect(a->clock >= TOUCH_MAX, 0))
		touch_renumber(a);
	return ++a->clock;
}

/* Stream i, stamped the most recently used. */
static inline struct stream *stream_touch(struct roce_analyzer *a, uint32_t i)
{
	a->s[i].touched = touch_next(a);  /* no list to relink: neighbours stay untouched */
	a->newest = i;
	return &a->s[i];
}

/* stream_get() for a key not in the table (h: its hash). */
struct stream *stream_add(struct roce_analyzer *a, uint64_t key, uint32_t h, uint32_t *idx);

/* The stream with this key, created (evicting the least recently used one at the cap) if new,
 * and stamped the most recently used; NULL when out of memory. *idx receives its index. The
 * common case, a known stream, is inline: it runs for every frame. */
static inline struct stream *stream_get(struct roce_analyzer *a, uint64_t key, uint32_t *idx)
{
	uint32_t h = stream_hash(a, key), v = a->streams.slots[stream_slot(a, key, h)].val;
	if (!v)
		return stream_add(a, key, h, idx);
	*idx = v - 1;
	return stream_touch(a, v - 1);
}
/* The stream with this key if it is in the table, without touching the order of use. */
struct stream *stream_find(struct roce_analyzer *a, uint64_t key);

#endif
