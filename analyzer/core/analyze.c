/* analyze.c: per-stream transport analysis (see analyze.h; IBTA Vol 1 §9.4 PSN rules, §9.7.5
 * ACK/NAK and go-back-N, §9.7.2 READ PSN accounting, §9.5 message segmentation).
 *
 * PSNs are 24-bit and compared modulo 2^24 with a window of 2^23 (psn_diff). Each stream keeps
 * the next new request PSN and a bitmap of the PSNs missing among the 64 below it. A request
 * ahead of next opens a gap (psn.gap); one behind it either fills a hole (a late packet:
 * psn.out_of_order, or the resend of a packet lost before the capture point) or repeats a PSN
 * already seen (psn.retransmit). A backward jump from the previous request is a restart: after a
 * NAK or RNR NAK on the reverse stream it must be at the NAK's PSN (else nak.restart_wrong);
 * without one it is a timeout resend (retransmit.timeout). Streams are paired from RDMA-CM
 * REQ/REP when the capture has them, else by PSN: a response is matched to the newest request
 * stream between the same two addresses (up to 16 back) whose sent PSNs cover it. */
#include "roce/analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/mad.h"
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
#define HOLE_BITS 128u
#define ALL_HOLES (~(holes_t)0)

static holes_t holes_shift(holes_t h, uint32_t n)
{
	return n >= HOLE_BITS ? 0 : h << n;
}
static holes_t low_bits(uint32_t n)  /* n ones */
{
	return n >= HOLE_BITS ? ALL_HOLES : ((holes_t)1 << n) - 1;
}

struct stream {
	uint64_t key;             /* src id : 20 | dst id : 20 | dqpn : 24 */
	uint32_t lru_prev, lru_next;
	uint32_t next_psn, first_psn;
	uint32_t prev_end;        /* the PSN after the previous request */
	holes_t holes;            /* bit k: PSN next_psn - 1 - k was never seen */
	uint32_t restart_psn, peer_qpn;
	uint32_t pair_next;       /* the request stream between the same hosts created before this one */
	uint32_t resp_next, acked_psn, nak_psn;
	holes_t resp_holes;       /* as holes, for READ response PSNs below resp_next */
	uint32_t msg_bytes, msg_dmalen;
	uint16_t pkey, flags;
	uint8_t transport, msg_op, pmtu_log, nak_code;
	int64_t progress_ts, nak_ts, last_ts;
	uint32_t rnr_wait_us;     /* the timer of the RNR NAK that armed the restart, 0 for a NAK */
	uint32_t max_idle_us;     /* the longest silence between two of the stream's frames */
	uint32_t recover_count, recover_max_us;  /* NAK or RNR NAK to the restart that answers it */
	uint64_t recover_sum_us;
	uint32_t packets, requests, messages, gaps, missing, retransmits, ooo, timeouts;
	/* round trip: the latest request that asks for a response, until its response arrives */
	uint32_t rtt_psn;
	int64_t rtt_ts;
	uint32_t rtt_min_us, rtt_max_us, rtt_count;
	uint64_t rtt_sum_us;
	uint64_t bytes;
	uint16_t naks[5], rnr;
};
/* 256 bytes on x86-64 (the 128-bit PSN maps align it to 16): 1 M streams take 256 MiB. */
_Static_assert(sizeof(struct stream) <= 256, "keep per-stream state small");

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
};

static int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static bool in_range(uint32_t psn, uint32_t lo, uint32_t hi)
{
	return psn_diff(psn, lo) >= 0 && psn_diff(psn, hi) < 0;
}

/* ---- addresses ---- */

static uint64_t addr_hash(const uint8_t *a, unsigned len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ len;
	for (unsigned i = 0; i < len; i++)
		h = (h ^ a[i]) * UINT64_C(0x100000001b3);
	return h;
}

/* Constant-size compares, inlined by the compiler (a libc memcmp call costs more than the work). */
static bool same_addr(const uint8_t *stored, const uint8_t *addr, unsigned len)
{
	return stored[16] == len && (len == 4 ? memcmp(stored, addr, 4) == 0 : memcmp(stored, addr, 16) == 0);
}

static uint32_t remember(struct roce_analyzer *a, uint32_t id)
{
	a->recent[1] = a->recent[0];
	a->recent[0] = id;
	return id;
}

static uint32_t addr_id(struct roce_analyzer *a, const uint8_t *addr, unsigned len)
{
	for (unsigned r = 0; r < 2; r++) {
		uint32_t c = a->recent[r];
		if (c < a->n_addrs && same_addr(a->addrs[c], addr, len))
			return c;
	}
	uint64_t key = addr_hash(addr, len);
	uint32_t id;

	for (;; key++) {  /* a 64-bit hash collision moves on to the next key */
		if (!u64map_get(&a->addr_index, key, &id))
			break;  /* a new address; key is free */
		if (same_addr(a->addrs[id], addr, len))
			return remember(a, id);
	}
	if (a->n_addrs == MAX_ADDRS)
		return NO_IDX;
	if (a->n_addrs == a->addrs_alloc) {
		uint32_t n = a->addrs_alloc ? a->addrs_alloc * 2 : 64;
		void *p = realloc(a->addrs, (size_t)n * sizeof(*a->addrs));
		if (!p)
			return NO_IDX;
		a->addrs = p;
		a->addrs_alloc = n;
	}
	id = a->n_addrs;
	if (u64map_put(&a->addr_index, key, id) < 0)
		return NO_IDX;
	memset(a->addrs[id], 0, sizeof(a->addrs[id]));
	memcpy(a->addrs[id], addr, len);
	a->addrs[id][16] = (uint8_t)len;
	a->n_addrs++;
	return remember(a, id);
}

/* ---- the stream table: map + LRU list ---- */

static uint64_t stream_key(uint32_t src, uint32_t dst, uint32_t qpn)
{
	return (uint64_t)src << 44 | (uint64_t)dst << 24 | (qpn & PSN_MASK);
}
static uint32_t key_src(uint64_t k) { return (uint32_t)(k >> 44); }
static uint32_t key_dst(uint64_t k) { return (uint32_t)(k >> 24) & (MAX_ADDRS - 1); }
static uint32_t key_qpn(uint64_t k) { return (uint32_t)k & PSN_MASK; }
static uint64_t pair_key(uint32_t src, uint32_t dst) { return (uint64_t)src << 20 | dst; }

static void lru_unlink(struct roce_analyzer *a, uint32_t i)
{
	struct stream *e = &a->s[i];
	if (e->lru_prev != NO_IDX)
		a->s[e->lru_prev].lru_next = e->lru_next;
	else
		a->lru_head = e->lru_next;
	if (e->lru_next != NO_IDX)
		a->s[e->lru_next].lru_prev = e->lru_prev;
	else
		a->lru_tail = e->lru_prev;
}

static void lru_push_head(struct roce_analyzer *a, uint32_t i)
{
	struct stream *e = &a->s[i];
	e->lru_prev = NO_IDX;
	e->lru_next = a->lru_head;
	if (a->lru_head != NO_IDX)
		a->s[a->lru_head].lru_prev = i;
	a->lru_head = i;
	if (a->lru_tail == NO_IDX)
		a->lru_tail = i;
}

/* A free entry: a new one while under the cap, else the least recently used one, evicted. */
static uint32_t entry_take(struct roce_analyzer *a)
{
	if (a->n_used < a->max_streams) {
		if (a->n_used == a->n_alloc) {
			uint32_t n = a->n_alloc ? a->n_alloc * 2 : 256;
			if (n > a->max_streams)
				n = a->max_streams;
			void *p = realloc(a->s, (size_t)n * sizeof(*a->s));
			if (!p)
				return NO_IDX;
			a->s = p;
			a->n_alloc = n;
		}
		return a->n_used++;
	}
	uint32_t victim = a->lru_tail;
	lru_unlink(a, victim);
	u64map_del(&a->streams, a->s[victim].key);
	a->evictions++;
	return victim;
}

static struct stream *stream_get(struct roce_analyzer *a, uint64_t key, uint32_t *idx)
{
	uint32_t i;
	if (u64map_get(&a->streams, key, &i)) {
		if (a->lru_head != i) {
			lru_unlink(a, i);
			lru_push_head(a, i);
		}
		*idx = i;
		return &a->s[i];
	}
	i = entry_take(a);
	if (i == NO_IDX || u64map_put(&a->streams, key, i) < 0)
		return NULL;
	struct stream *e = &a->s[i];
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->peer_qpn = NO_QPN;
	e->pmtu_log = 0;
	lru_push_head(a, i);
	*idx = i;
	return e;
}

/* The stream with this key if it is in the table, without touching the LRU order. */
static struct stream *stream_find(struct roce_analyzer *a, uint64_t key)
{
	uint32_t i;
	return u64map_get(&a->streams, key, &i) ? &a->s[i] : NULL;
}

struct roce_analyzer *roce_analyzer_new(const struct roce_analyzer_config *cfg, char errbuf[ROCE_ERRBUF_SIZE])
{
	struct roce_analyzer *a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "out of memory");
		return NULL;
	}
	a->max_streams = cfg && cfg->max_streams ? cfg->max_streams : 1u << 20;
	a->pmtu_cfg = cfg ? cfg->pmtu : 0;
	a->lru_head = a->lru_tail = NO_IDX;
	a->recent[0] = a->recent[1] = NO_IDX;
	if (u64map_init(&a->streams, 1024) < 0 || u64map_init(&a->pairs, 256) < 0 ||
	    u64map_init(&a->addr_index, 256) < 0) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "out of memory");
		roce_analyzer_free(a);
		return NULL;
	}
	return a;
}

void roce_analyzer_free(struct roce_analyzer *a)
{
	if (!a)
		return;
	u64map_free(&a->streams);
	u64map_free(&a->pairs);
	u64map_free(&a->addr_index);
	free(a->s);
	free(a->addrs);
	free(a);
}

/* ---- findings ---- */

struct frame_ctx {
	struct roce_pkt *p;
	struct roce_findings *out;
	uint32_t qpn;
	int64_t ts;
};

static void find(struct frame_ctx *f, enum roce_event e, bool has_psn, uint32_t expected, uint32_t seen,
		 int64_t delta)
{
	roce_evset_add(&f->p->events, e);
	if (f->out && f->out->n < ROCE_MAX_FINDINGS)
		f->out->f[f->out->n++] = (struct roce_finding){(uint16_t)e, has_psn, f->qpn, expected, seen, delta};
}

/* ---- requests ---- */

static uint32_t pmtu_of(const struct roce_analyzer *a, const struct stream *s)
{
	return a->pmtu_cfg ? a->pmtu_cfg : s->pmtu_log ? 1u << s->pmtu_log : 0;
}

static void check_pmtu(struct roce_analyzer *a, struct stream *s, struct frame_ctx *f)
{
	const struct roce_pkt *p = f->p;
	unsigned seg = p->op->seg;
	uint32_t pmtu = pmtu_of(a, s);

	if (seg == ROCE_SEG_FIRST || seg == ROCE_SEG_MIDDLE) {
		if (!pmtu) {
			uint32_t n = p->payload_len;
			if (n >= 256 && n <= 4096 && (n & (n - 1)) == 0 && !p->h.bth.padcnt)
				s->pmtu_log = (uint8_t)__builtin_ctz(n);
			return;
		}
		if (p->payload_len != pmtu || p->h.bth.padcnt)
			find(f, ROCE_EV_MSG_PMTU_VIOLATION, true, p->h.bth.psn, p->h.bth.psn, -1);
	} else if ((seg == ROCE_SEG_LAST || seg == ROCE_SEG_ONLY) && pmtu && p->payload_len > pmtu) {
		find(f, ROCE_EV_MSG_PMTU_VIOLATION, true, p->h.bth.psn, p->h.bth.psn, -1);
	}
}

/* FIRST/MIDDLE/LAST/ONLY order and WRITE lengths, for a request that is not a resend. */
static void check_message(struct stream *s, struct frame_ctx *f)
{
	const struct roce_pkt *p = f->p;
	const struct roce_opcode_info *op = p->op;
	uint32_t psn = p->h.bth.psn;
	bool known = !(s->flags & F_MSG_UNKNOWN);
	bool open = (s->flags & F_IN_MSG) && known;

	if (op->op != ROCE_OP_SEND && op->op != ROCE_OP_WRITE) {
		if (open)
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		s->flags &= (uint16_t)~(F_IN_MSG | F_MSG_UNKNOWN);
		s->messages++;
		return;
	}
	switch (op->seg) {
	case ROCE_SEG_FIRST:
		if (open)
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		s->flags = (uint16_t)((s->flags | F_IN_MSG) & ~F_MSG_UNKNOWN);
		s->msg_op = op->op;
		s->msg_bytes = p->payload_len;
		s->msg_dmalen = op->op == ROCE_OP_WRITE ? p->h.reth.dmalen : 0;
		break;
	case ROCE_SEG_MIDDLE:
	case ROCE_SEG_LAST:
		if (known && (!(s->flags & F_IN_MSG) || s->msg_op != op->op))
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		else if (known)
			s->msg_bytes += p->payload_len;
		if (op->seg == ROCE_SEG_LAST) {
			if (open && s->msg_op == ROCE_OP_WRITE && s->msg_bytes != s->msg_dmalen)
				find(f, ROCE_EV_MSG_LENGTH_MISMATCH, true, psn, psn, -1);
			s->flags &= (uint16_t)~(F_IN_MSG | F_MSG_UNKNOWN);
			s->messages++;
		}
		break;
	default: /* ONLY */
		if (open)
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		if (op->op == ROCE_OP_WRITE && p->payload_len != p->h.reth.dmalen)
			find(f, ROCE_EV_MSG_LENGTH_MISMATCH, true, psn, psn, -1);
		s->flags &= (uint16_t)~(F_IN_MSG | F_MSG_UNKNOWN);
		s->messages++;
		break;
	}
}

/* PSNs a request consumes: a READ of N bytes reserves ceil(N / PMTU) response PSNs. */
static uint32_t psn_span(struct roce_analyzer *a, struct stream *s, const struct roce_pkt *p)
{
	if (p->op->op != ROCE_OP_READ_REQ)
		return 1;
	uint32_t pmtu = pmtu_of(a, s), len = p->h.reth.dmalen;
	if (!pmtu) {
		s->flags |= F_READ_UNKNOWN;
		s->msg_dmalen = len;
		return 1;
	}
	return len ? (uint32_t)(((uint64_t)len + pmtu - 1) / pmtu) : 1;
}

static void advance(struct stream *s, struct frame_ctx *f, uint32_t psn, uint32_t span, uint32_t missing)
{
	if (((psn + span) & PSN_MASK) < s->next_psn)  /* crossed 0xFFFFFF -> 0, gaps included */
		find(f, ROCE_EV_PSN_WRAP, true, s->next_psn, psn, -1);
	s->holes = holes_shift(s->holes, missing + span) | holes_shift(low_bits(missing), span);
	s->next_psn = (psn + span) & PSN_MASK;
	s->progress_ts = f->ts;
	s->flags &= (uint16_t)~F_RESEND;
}

static uint32_t us_since(int64_t then, int64_t now)
{
	uint64_t us = now > then ? (uint64_t)(now - then) / 1000 : 0;
	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* The requester answered a NAK or RNR NAK: time its recovery; an RNR retry must wait the timer. */
static void restarted(struct stream *s, struct frame_ctx *f)
{
	uint32_t us = us_since(s->nak_ts, f->ts);
	if (s->rnr_wait_us && us < s->rnr_wait_us)
		find(f, ROCE_EV_RNR_RETRY_EARLY, true, s->restart_psn, f->p->h.bth.psn, f->ts - s->nak_ts);
	if (us > s->recover_max_us)
		s->recover_max_us = us;
	s->recover_sum_us += us;
	s->recover_count++;
}

static void on_request(struct roce_analyzer *a, struct stream *s, struct frame_ctx *f)
{
	const struct roce_pkt *p = f->p;
	uint32_t psn = p->h.bth.psn;

	s->requests++;
	if (!(s->flags & F_REQ_SEEN)) {
		/* the capture may start inside a message: no sequence checks until FIRST/ONLY */
		s->flags |= F_REQ_SEEN | F_MSG_UNKNOWN;
		s->transport = p->op->transport;
		s->pkey = p->h.bth.pkey;
		s->first_psn = s->next_psn = s->prev_end = psn;
		s->holes = ALL_HOLES;  /* nothing below the first PSN was seen */
	} else {
		if (p->op->transport != s->transport)
			find(f, ROCE_EV_MSG_TRANSPORT_MIXED, false, 0, 0, -1);
		if (p->h.bth.pkey != s->pkey) {
			find(f, ROCE_EV_PKEY_INCONSISTENT, false, 0, 0, -1);
			s->pkey = p->h.bth.pkey;
		}
	}
	if (p->op->transport == ROCE_TR_UD) {
		s->messages++;  /* UD: every SEND is a message; counters only, no PSN rules */
		return;
	}

	int32_t d = psn_diff(psn, s->next_psn);
	/* the previous READ reserved an unknown number of PSNs (no PMTU yet): up to one per 256
	 * bytes, the smallest path MTU, so its successor may come up to ceil(N/256) - 1 PSNs later */
	bool read_span = (s->flags & F_READ_UNKNOWN) && d > 0 &&
			 (uint64_t)d <= ((uint64_t)s->msg_dmalen + 255) / 256 - 1;
	s->flags &= (uint16_t)~F_READ_UNKNOWN;
	uint32_t span = psn_span(a, s, p);
	/* a jump back from the previous request restarts the send queue (forward jumps are packets
	 * lost before the capture point) */
	bool restart_point = psn_diff(psn, s->prev_end) < 0;
	s->prev_end = (psn + span) & PSN_MASK;

	if (d >= 0) {
		if ((s->flags & F_RESTART) && psn == s->restart_psn) {
			restarted(s, f);  /* the NAK named the next PSN: nothing to resend */
			s->flags &= (uint16_t)~F_RESTART;
		}
		if (read_span) {
			s->holes = holes_shift(s->holes, (uint32_t)d);  /* sent: the READ consumed them */
			s->next_psn = psn;
			d = 0;
		}
		if (d > 0) {
			find(f, ROCE_EV_PSN_GAP, true, s->next_psn, psn, -1);
			s->gaps++;
			s->missing += (uint32_t)d;
			s->flags |= F_MSG_UNKNOWN;
		}
		check_pmtu(a, s, f);
		check_message(s, f);
		advance(s, f, psn, span, (uint32_t)d);
		if (s->transport != ROCE_TR_UC && !(s->flags & F_RTT_PENDING) &&
		    (p->h.bth.ackreq || p->op->op == ROCE_OP_READ_REQ || p->op->op == ROCE_OP_CMP_SWAP ||
		     p->op->op == ROCE_OP_FETCH_ADD)) {
			s->flags |= F_RTT_PENDING;  /* time one request at a time: resends do not count */
			s->rtt_psn = psn;
			s->rtt_ts = f->ts;
		}
		return;
	}

	/* behind next_psn: a late packet, or a resend (a pending round trip is no longer clean) */
	s->flags &= (uint16_t)~F_RTT_PENDING;
	uint32_t k = (uint32_t)(-d) - 1;  /* bit of this PSN in holes */
	bool hole = k < HOLE_BITS && ((s->holes >> k) & 1);
	if (hole)
		s->holes &= ~((holes_t)1 << k);
	if (psn_diff(psn, s->first_psn) < 0)
		s->first_psn = psn;
	if (restart_point && (s->flags & F_RESTART) && (!hole || psn == s->restart_psn)) {
		restarted(s, f);
		/* restarting past the NAK's PSN skips requests; restarting before it is only needed
		 * for a READ whose responses did not all arrive (the NAK acknowledges the rest) */
		int32_t off = psn_diff(psn, s->restart_psn);
		if (off > 0 || (off < 0 && p->op->op != ROCE_OP_READ_REQ))
			find(f, ROCE_EV_NAK_RESTART_WRONG, true, s->restart_psn, psn, f->ts - s->nak_ts);
		s->flags = (uint16_t)((s->flags & ~F_RESTART) | F_RESEND);
	} else if (restart_point && !hole) {
		find(f, ROCE_EV_RETRANSMIT_TIMEOUT, true, s->next_psn, psn, f->ts - s->progress_ts);
		s->timeouts++;
		s->flags |= F_RESEND;
	}
	if (!hole) {
		find(f, ROCE_EV_PSN_RETRANSMIT, true, s->next_psn, psn, -1);
		s->retransmits++;
	} else if (!(s->flags & F_RESEND)) {
		find(f, ROCE_EV_PSN_OUT_OF_ORDER, true, s->next_psn, psn, -1);
		s->ooo++;
	}
	uint32_t end = (psn + span) & PSN_MASK;
	int32_t over = psn_diff(end, s->next_psn);
	if (over > 0) {  /* a resent READ reserving more PSNs than first counted (PMTU learned since) */
		s->holes = holes_shift(s->holes, (uint32_t)over);
		s->next_psn = end;
	}
	if (over >= 0)
		s->flags &= (uint16_t)~F_RESEND;  /* caught up: the next packet is new */
}

/* ---- responses ---- */

/* The request stream these responses answer: (dst → src, some QPN). */
static struct stream *peer_of(struct roce_analyzer *a, struct stream *r, uint32_t src, uint32_t dst, uint32_t psn)
{
	if (r->peer_qpn != NO_QPN) {
		struct stream *q = stream_find(a, stream_key(dst, src, r->peer_qpn));
		if (q && (q->flags & F_REQ_SEEN))
			return q;
	}
	/* the request streams from dst to src, newest first, until one has sent this PSN */
	uint32_t i;
	struct stream *q = NULL;
	if (!u64map_get(&a->pairs, pair_key(dst, src), &i))
		return NULL;
	for (unsigned hops = 0; hops < 16 && i < a->n_used; hops++, i = a->s[i].pair_next) {
		struct stream *c = &a->s[i];
		if (key_src(c->key) != dst || key_dst(c->key) != src || !(c->flags & F_REQ_SEEN))
			return NULL;  /* evicted and reused: the chain ends here */
		if (in_range(psn, c->first_psn, (c->next_psn + 1) & PSN_MASK)) {
			q = c;
			break;
		}
	}
	if (!q)
		return NULL;
	r->peer_qpn = key_qpn(q->key);
	q->peer_qpn = key_qpn(r->key);
	r->flags |= F_PAIRED_PSN;
	q->flags |= F_PAIRED_PSN;
	return q;
}

/* A response at psn answers q's timed request if it covers its PSN (coalesced ACKs included). */
static void rtt_sample(struct stream *q, uint32_t psn, int64_t ts)
{
	if (!q || !(q->flags & F_RTT_PENDING) || psn_diff(psn, q->rtt_psn) < 0 || ts < q->rtt_ts)
		return;
	uint64_t us = (uint64_t)(ts - q->rtt_ts) / 1000;
	uint32_t v = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	if (!q->rtt_count || v < q->rtt_min_us)
		q->rtt_min_us = v;
	if (v > q->rtt_max_us)
		q->rtt_max_us = v;
	q->rtt_sum_us += v;
	q->rtt_count++;
	q->flags &= (uint16_t)~F_RTT_PENDING;
}

static void arm_restart(struct stream *q, uint32_t psn, int64_t ts, uint32_t rnr_wait_us)
{
	if (!q)
		return;
	q->rnr_wait_us = rnr_wait_us;
	q->flags = (uint16_t)((q->flags | F_RESTART) & ~F_RESEND);
	q->restart_psn = psn;
	q->nak_ts = ts;
}

static void on_response(struct roce_analyzer *a, struct stream *r, struct frame_ctx *f, uint32_t src, uint32_t dst)
{
	const struct roce_pkt *p = f->p;
	uint32_t psn = p->h.bth.psn;
	struct stream *q = peer_of(a, r, src, dst, psn);

	if (p->op->op == ROCE_OP_READ_RESP) {
		if (!(r->flags & F_RESP_SEEN)) {
			r->flags |= F_RESP_SEEN;
			r->resp_next = psn;
			r->resp_holes = ALL_HOLES;
		}
		int32_t d = psn_diff(psn, r->resp_next);
		if (d >= 0) {  /* new: PSNs skipped on the way are holes */
			r->resp_holes = holes_shift(r->resp_holes, (uint32_t)d + 1) | holes_shift(low_bits((uint32_t)d), 1);
			r->resp_next = (psn + 1) & PSN_MASK;
		} else {
			uint32_t k = (uint32_t)(-d) - 1;
			if (k < HOLE_BITS && ((r->resp_holes >> k) & 1)) {
				r->resp_holes &= ~((holes_t)1 << k);  /* first sighting of a late PSN */
			} else {
				find(f, ROCE_EV_PSN_RETRANSMIT, true, r->resp_next, psn, -1);
				r->retransmits++;
			}
		}
		check_pmtu(a, r, f);
		if (q && !q->pmtu_log)
			q->pmtu_log = r->pmtu_log;  /* the READs' PSN spans need the path MTU */
		if (p->op->seg == ROCE_SEG_FIRST || p->op->seg == ROCE_SEG_ONLY)
			rtt_sample(q, psn, f->ts);
	}
	if (!(p->h.hdrs & ROCE_HDR_AETH))
		return;
	uint8_t syn = p->h.aeth.syndrome;
	unsigned code = roce_aeth_value(syn);
	switch (roce_aeth_kind(syn)) {
	case ROCE_AETH_ACK:
		if (p->op->op == ROCE_OP_READ_RESP)
			break;  /* READ responses' PSNs are checked above; their AETH MSN is not an ACK's */
		if (q && psn_diff(psn, q->next_psn) >= 0) {  /* acknowledges what was never sent */
			find(f, ROCE_EV_ACK_UNSOLICITED, true, (q->next_psn - 1) & PSN_MASK, psn, -1);
			break;
		}
		if ((r->flags & F_ACK_SEEN) && psn_diff(psn, r->acked_psn) < 0)
			find(f, ROCE_EV_ACK_PSN_BACKWARDS, true, r->acked_psn, psn, -1);
		else
			r->acked_psn = psn;
		r->flags |= F_ACK_SEEN;
		rtt_sample(q, psn, f->ts);
		break;
	case ROCE_AETH_RNR_NAK:
		find(f, ROCE_EV_NAK_RNR, true, psn, psn, -1);
		r->rnr++;
		arm_restart(q, psn, f->ts, roce_rnr_timer_usec(code));
		break;
	case ROCE_AETH_NAK: {
		static const enum roce_event by_code[5] = {
			ROCE_EV_NAK_PSN_SEQ_ERR, ROCE_EV_NAK_INVALID_REQUEST, ROCE_EV_NAK_REMOTE_ACCESS,
			ROCE_EV_NAK_REMOTE_OP, ROCE_EV_NAK_INVALID_RD,
		};
		if (code > 4)
			break;  /* reserved: the decoder reported it */
		find(f, by_code[code], true, psn, psn, -1);
		r->naks[code]++;
		bool pending = !q || (q->flags & F_RESTART);
		if ((r->flags & F_NAK_SEEN) && r->nak_psn == psn && r->nak_code == code && pending)
			find(f, ROCE_EV_NAK_DUPLICATE, true, psn, psn, -1);
		r->flags |= F_NAK_SEEN;
		r->nak_psn = psn;
		r->nak_code = (uint8_t)code;
		if (code == ROCE_NAK_PSN_SEQ_ERR)
			arm_restart(q, psn, f->ts, 0);
		break;
	}
	default:
		break;
	}
}

/* ---- RDMA-CM: pair the two directions of a connection from its REQ and REP ---- */

static void cm_pair(struct roce_analyzer *a, const struct roce_mad *m, uint32_t src, uint32_t dst)
{
	if (m->cm_kind == ROCE_CM_REQ) {  /* src is the active side */
		struct pending_req *r = &a->reqs[a->next_req++ % 16];
		*r = (struct pending_req){m->local_comm_id, src, dst, m->cm.req.local_qpn, m->cm.req.path_mtu, true};
		return;
	}
	if (m->cm_kind != ROCE_CM_REP)
		return;
	for (unsigned i = 0; i < 16; i++) {
		struct pending_req *r = &a->reqs[i];
		if (!r->used || r->comm_id != m->remote_comm_id || r->active != dst || r->passive != src)
			continue;
		/* active -> passive goes to REP.local_qpn; passive -> active to REQ.local_qpn */
		uint32_t i1, i2;
		struct stream *fwd = stream_get(a, stream_key(r->active, r->passive, m->cm.rep.local_qpn), &i1);
		struct stream *rev = fwd ? stream_get(a, stream_key(r->passive, r->active, r->qpn), &i2) : NULL;
		if (!rev)
			return;
		fwd = &a->s[i1];  /* the second lookup may have moved entries */
		fwd->peer_qpn = r->qpn;
		rev->peer_qpn = m->cm.rep.local_qpn;
		fwd->flags = (uint16_t)((fwd->flags | F_PAIRED_CM) & ~F_PAIRED_PSN);
		rev->flags = (uint16_t)((rev->flags | F_PAIRED_CM) & ~F_PAIRED_PSN);
		unsigned mtu = roce_cm_mtu_bytes(r->path_mtu);
		if (mtu && !fwd->pmtu_log)
			fwd->pmtu_log = (uint8_t)__builtin_ctz(mtu);
		if (mtu && !rev->pmtu_log)
			rev->pmtu_log = (uint8_t)__builtin_ctz(mtu);
		r->used = false;
		return;
	}
}

/* ---- entry point ---- */

void roce_analyze(struct roce_analyzer *a, struct roce_pkt *p, const uint8_t *frame, int64_t ts_ns,
		  struct roce_findings *out)
{
	if (out)
		out->n = 0;
	if (!p->version || !p->op || !(p->op->flags & ROCE_OPF_VALID) || p->op->op == ROCE_OP_CNP ||
	    p->trunc_layer == ROCE_LAYER_EXT || !p->net.addr_len)
		return;
	const struct roce_net *n = &p->net;
	uint32_t src = addr_id(a, frame + n->addr_off, n->addr_len);
	uint32_t dst = addr_id(a, frame + n->addr_off + n->addr_len, n->addr_len);
	if (src == NO_IDX || dst == NO_IDX)
		return;
	uint32_t idx;
	struct stream *s = stream_get(a, stream_key(src, dst, p->h.bth.dqpn), &idx);
	if (!s)
		return;
	struct frame_ctx f = {p, out, p->h.bth.dqpn, ts_ns};
	if (s->packets) {
		uint32_t idle = us_since(s->last_ts, ts_ns);
		if (idle > s->max_idle_us)
			s->max_idle_us = idle;
	}
	s->last_ts = ts_ns;
	s->packets++;
	s->bytes += p->wirelen;
	if (p->h.bth.dqpn == 1 && p->op->transport == ROCE_TR_UD) {
		struct roce_mad m;
		if (roce_mad_decode_pkt(p, frame, &m) == 1)
			cm_pair(a, &m, src, dst);
		s = &a->s[idx];  /* pairing may have added streams */
	}
	if (p->op->flags & ROCE_OPF_RESPONSE) {
		on_response(a, s, &f, src, dst);
		return;
	}
	bool first = !(s->flags & F_REQ_SEEN);
	on_request(a, s, &f);
	if (first) {  /* a new request stream heads its host pair's chain */
		uint32_t head;
		s->pair_next = u64map_get(&a->pairs, pair_key(src, dst), &head) ? head : NO_IDX;
		u64map_put(&a->pairs, pair_key(src, dst), idx);
	}
}

/* ---- reports ---- */

void roce_analyzer_foreach(const struct roce_analyzer *a, void (*fn)(const struct roce_stream_stats *s, void *user),
			   void *user)
{
	for (uint32_t i = a->lru_tail; i != NO_IDX; i = a->s[i].lru_prev) {
		const struct stream *e = &a->s[i];
		struct roce_stream_stats st;
		memset(&st, 0, sizeof(st));
		uint32_t sid = key_src(e->key), did = key_dst(e->key);
		st.addr_len = a->addrs[sid][16];
		memcpy(st.src, a->addrs[sid], 16);
		memcpy(st.dst, a->addrs[did], 16);
		st.dqpn = key_qpn(e->key);
		st.transport = e->transport;
		st.pmtu = pmtu_of(a, e);
		st.packets = e->packets;
		st.bytes = e->bytes;
		st.requests = e->requests;
		st.responses = e->packets - e->requests;
		st.has_psn = (e->flags & F_REQ_SEEN) && e->transport != ROCE_TR_UD;
		st.first_psn = e->first_psn;
		st.last_psn = (e->next_psn - 1) & PSN_MASK;
		st.gaps = e->gaps;
		st.missing_psns = e->missing;
		st.retransmits = e->retransmits;
		st.out_of_order = e->ooo;
		st.timeouts = e->timeouts;
		for (unsigned c = 0; c < 5; c++)
			st.naks[c] = e->naks[c];
		st.rnr_naks = e->rnr;
		st.messages = e->messages;
		st.paired = (e->flags & F_PAIRED_CM) ? ROCE_PAIRED_CM : (e->flags & F_PAIRED_PSN) ? ROCE_PAIRED_PSN : ROCE_PAIRED_NONE;
		st.peer_qpn = e->peer_qpn == NO_QPN ? 0 : e->peer_qpn;
		st.rtt_count = e->rtt_count;
		st.rtt_min_us = e->rtt_min_us;
		st.rtt_max_us = e->rtt_max_us;
		st.rtt_mean_us = e->rtt_count ? (uint32_t)(e->rtt_sum_us / e->rtt_count) : 0;
		st.recover_count = e->recover_count;
		st.recover_max_us = e->recover_max_us;
		st.recover_mean_us = e->recover_count ? (uint32_t)(e->recover_sum_us / e->recover_count) : 0;
		st.max_idle_us = e->max_idle_us;
		fn(&st, user);
	}
}

uint64_t roce_analyzer_streams(const struct roce_analyzer *a)
{
	return a->n_used;
}

uint64_t roce_analyzer_evictions(const struct roce_analyzer *a)
{
	return a->evictions;
}
