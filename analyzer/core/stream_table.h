/* stream_table.h: the transport analyzer's state (internal): per-stream records, the bounded
 * stream table (an open-addressing map plus an LRU list) and interned addresses. The rules that
 * update a stream live in analyze.c; the table and its reports in stream_table.c. */
#ifndef ROCE_STREAM_TABLE_H
#define ROCE_STREAM_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/analyze.h"
#include "u64map.h"

#define PSN_MASK 0xffffffu
#define NO_IDX UINT32_MAX
#define NO_QPN UINT32_MAX
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
#define F_NAK_SEEN 0x0100u     /* nak_psn / nak_code valid */
#define F_READ_UNKNOWN 0x0200u /* last READ's PSN span unknown (no PMTU yet) */
#define F_RTT_PENDING 0x0400u  /* rtt_psn / rtt_ts wait for their response */
#define F_PAIRED_PSN 0x0800u   /* peer_qpn learned by PSN matching */
#define F_PAIRED_CM 0x1000u    /* peer_qpn learned from an RDMA-CM REQ/REP exchange */

/* PSNs tracked below the next one: go-back-N resends reach this deep in the DUT captures (71
 * PSNs for WRITEs, 130 for READs) */
typedef unsigned __int128 holes_t;

/* Round-trip quantiles come from a histogram of half-octave buckets from 1 us (bucket 2k holds
 * [2^k, 2^k·√2), 2k+1 holds [2^k·√2, 2^(k+1)); the last one everything from 46 ms up): a
 * median or p99 is known to within ±19 %. Counts are 8 bits; when one would overflow, all are
 * halved, which keeps their proportions. */
#define RTT_BUCKETS 32
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

/* Fields by size, largest first, so that nothing is lost to alignment holes. */
struct stream {
	holes_t holes;            /* bit k: PSN next_psn - 1 - k was never seen */
	holes_t resp_holes;       /* as holes, for READ response PSNs below resp_next */
	uint64_t key;             /* src id : 20 | dst id : 20 | dqpn : 24 */
	int64_t nak_ts, last_ts;
	uint64_t recover_sum_us;
	int64_t rtt_ts;           /* round trip: the latest request that asks for a response, */
	uint64_t rtt_sum_us;      /* until its response arrives */
	uint64_t bytes;
	uint32_t lru_prev, lru_next;
	uint32_t next_psn, first_psn;
	uint32_t prev_end;        /* the PSN after the previous request */
	uint32_t restart_psn, peer_qpn;
	uint32_t pair_next;       /* the request stream between the same hosts created before this one */
	uint32_t resp_next, acked_psn, nak_psn;
	uint32_t msg_bytes, msg_dmalen;
	uint32_t last_send;       /* send log entry of the newest new request, 0 if none */
	uint32_t rnr_wait_us;     /* the timer of the RNR NAK that armed the restart, 0 for a NAK */
	uint32_t max_idle_us;     /* the longest silence between two of the stream's frames */
	uint32_t recover_count, recover_max_us;  /* NAK or RNR NAK to the restart that answers it */
	uint32_t packets, requests, messages, gaps, missing, retransmits, ooo, timeouts;
	uint32_t rtt_psn;
	uint32_t rtt_min_us, rtt_max_us, rtt_count;
	uint8_t rtt_hist[RTT_BUCKETS];  /* half-octave histogram of the round trips, for quantiles */
	uint16_t naks[5], rnr;
	uint16_t pkey, flags;
	uint8_t transport, msg_op, pmtu_log, nak_code;
};
/* 272 bytes on x86-64 (the 128-bit PSN maps align it to 16): 1 M streams take 272 MiB. */
_Static_assert(sizeof(struct stream) <= 272, "keep per-stream state small");

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
	uint32_t unused;
};

struct roce_analyzer {
	uint32_t max_streams, pmtu_cfg;
	struct u64map streams;    /* key → index into s[] */
	struct u64map pairs;      /* (src id, dst id) → most recent request stream index */
	struct u64map addr_index; /* address hash → address id */
	struct stream *s;
	uint32_t n_alloc, n_used;
	uint32_t lru_head, lru_tail;  /* most / least recently used */
	uint8_t (*addrs)[17];     /* address bytes + length */
	uint32_t recent[2];       /* ids of the last two addresses looked up (most frames repeat them) */
	struct pending_req {      /* CM REQs waiting for their REP (a small ring) */
		uint32_t comm_id, active, passive, qpn;
		uint8_t path_mtu;
		bool used;
	} reqs[16];
	unsigned next_req;
	uint32_t n_addrs, addrs_alloc;
	uint64_t evictions;
	struct send_rec *sends;   /* the send log (above) */
	uint32_t send_seq;        /* the newest entry's number */
};

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

/* The stream's path MTU: configured, or learned (0 while unknown). */
static inline uint32_t pmtu_of(const struct roce_analyzer *a, const struct stream *s)
{
	return a->pmtu_cfg ? a->pmtu_cfg : s->pmtu_log ? 1u << s->pmtu_log : 0;
}

/* The round trip below which a fraction q (0..1) of a stream's samples lie, in microseconds. */
uint32_t rtt_quantile_us(const struct stream *s, double q);

/* The id of an address (4 or 16 bytes), interned on first sight; NO_IDX when the table is full. */
uint32_t addr_id(struct roce_analyzer *a, const uint8_t *addr, unsigned len);
/* The stream with this key, created (evicting the least recently used one at the cap) if new,
 * and made the most recently used; NULL when out of memory. *idx receives its index. */
struct stream *stream_get(struct roce_analyzer *a, uint64_t key, uint32_t *idx);
/* The stream with this key if it is in the table, without touching the LRU order. */
struct stream *stream_find(struct roce_analyzer *a, uint64_t key);

#endif
