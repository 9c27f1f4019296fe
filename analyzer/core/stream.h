/* stream.h: a stream's core record (internal): struct stream, one cache line, with its flags,
 * its 40-bit counts and the PSN window's holes; the stream key (source and destination address
 * ids, destination QP) and the 24-bit PSN arithmetic the analysis does on it. */
#ifndef ROCE_STREAM_H
#define ROCE_STREAM_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
