/* stream_blocks.h: the blocks a stream takes when it first needs them (internal): the
 * requester's side with its acknowledgement tracking (response times, round-trip histogram and
 * ring), loss and recovery, READ responses. Their pools and accessors: stream_side.h. */
#ifndef ROCE_STREAM_BLOCKS_H
#define ROCE_STREAM_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream.h"

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

#endif
