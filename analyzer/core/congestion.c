/* congestion.c: congestion analysis (see include/roce/congestion.h and congestion.h).
 *
 * PFC and PAUSE (IEEE 802.1Qbb §36.1.3, IEEE 802.3 Annex 31B): a frame with pause time q > 0 for
 * a priority sets its timer to q × 512 bit times at the link speed; a later frame restarts it;
 * q = 0 (XON) ends it. The paused time of a source and priority is the union of these intervals,
 * clipped at the capture's end. Malformed frames (macc.c says why) are not accounted.
 *
 * ECN and CNP (IBTA Annex A17.9; DCQCN): the notification point B answers CE marks on a stream
 * A→B with a CNP B→A to A's QP, at most one per QP per interval. A CNP is due for the first CE
 * mark more than one interval after the last CNP seen or due on its stream; CE marks inside that
 * interval are covered. A due mark waits in a ring ordered by time; the first frame past its
 * deadline (mark + timeout) without a CNP gets cnp.missing naming the CE frame. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "grow.h"
#include "stream_table.h"
#include "wire.h"

#define NONE INT64_MIN
#define DUE_WAITING 0
#define DUE_ANSWERED 1
#define DUE_MISSED 2
#define RING_MAX (1u << 20)   /* due CE marks waiting at once (40 MiB) */
#define PAUSE_ROW 8            /* pfc_src.prio[] index of the legacy PAUSE */

int cong_init(struct roce_analyzer *a, const struct roce_congestion_config *cfg)
{
	struct cong_state *c = &a->cong;
	struct roce_congestion_config defaults;
	if (!cfg) {
		roce_congestion_config_init(&defaults);
		cfg = &defaults;
	}
	c->link_bps = cfg->link_bps ? cfg->link_bps : ROCE_LINK_BPS_DEFAULT;
	c->storm_ns = cfg->pfc_storm_ns > 0 ? cfg->pfc_storm_ns : ROCE_PFC_STORM_NS_DEFAULT;
	c->interval_ns = cfg->cnp_interval_ns > 0 ? cfg->cnp_interval_ns : 0;
	c->timeout_ns = cfg->cnp_timeout_ns > 0 ? cfg->cnp_timeout_ns : ROCE_CNP_TIMEOUT_NS_DEFAULT;
	for (unsigned d = 0; d < 64; d++)
		c->dscp_prio[d] = cfg->dscp_map ? (uint8_t)(cfg->dscp_prio[d] & 7) : (uint8_t)(d >> 3);
	c->next_deadline = INT64_MAX;
	c->pause_until = NONE;
	c->first_ts = NONE;
	c->last_ts = NONE;
	if (u64map_init(&c->cnp_pairs, 16) < 0 || u64map_init(&c->pfc_map, 16) < 0)
		return -1;
	return 0;
}

void cong_free(struct roce_analyzer *a)
{
	struct cong_state *c = &a->cong;
	u64map_free(&c->cnp_pairs);
	u64map_free(&c->pfc_map);
	free(c->ring);
	free(c->pairs);
	free(c->pfc);
}

/* ---- per-stream blocks ---- */

static struct cong_block *block_of(const struct roce_analyzer *a, const struct stream *s)
{
	uint32_t i = a->ids[s - a->s].cong;
	return i ? block_at(&a->cong_pool, i) : NULL;
}

static struct cong_block *block_need(struct roce_analyzer *a, struct stream *s)
{
	struct cong_block *b = block_of(a, s);
	if (b)
		return b;
	uint32_t i = block_take(&a->cong_pool);
	if (!i)
		return NULL;
	a->ids[s - a->s].cong = i;
	b = block_at(&a->cong_pool, i);
	b->cover_ts = b->last_ce_ts = b->open_ce_ts = NONE;
	return b;
}

void cong_stream_gone(struct roce_analyzer *a, uint32_t idx)
{
	block_give(&a->cong_pool, a->ids[idx].cong);
	a->ids[idx].cong = 0;
}

/* ---- the ring of CE marks due a CNP ---- */

static struct cong_due *due_at(const struct cong_state *c, uint32_t n)
{
	return &c->ring[n & c->ring_mask];
}

/* Room for one more entry (two: number 0 is skipped when the numbers wrap); false at the cap
 * or out of memory. */
static bool ring_room(struct cong_state *c)
{
	uint32_t cap = c->ring ? c->ring_mask + 1 : 0;
	if (c->tail - c->head + 2 <= cap)
		return true;
	uint32_t n = grow_capacity(cap, 256, RING_MAX);
	if (n == cap)
		return false;
	struct cong_due *r = malloc((size_t)n * sizeof(*r));
	if (!r)
		return false;
	for (uint32_t k = c->head; k != c->tail; k++)
		r[k & (n - 1)] = *due_at(c, k);
	free(c->ring);
	c->ring = r;
	c->ring_mask = n - 1;
	return true;
}

static bool in_ring(const struct cong_state *c, uint32_t n)
{
	return n && n - c->head < c->tail - c->head;
}

static void set_next_deadline(struct cong_state *c)
{
	while (c->head != c->tail && due_at(c, c->head)->state != DUE_WAITING)
		c->head++;
	c->next_deadline = c->head != c->tail ? due_at(c, c->head)->ce_ts + c->timeout_ns : INT64_MAX;
}

/* A CE mark at ts on stream key (block b) is due a CNP. */
static void due_add(struct cong_state *c, struct cong_block *b, uint64_t key, int64_t ts, uint64_t frame)
{
	if (!ring_room(c)) {
		c->due_untracked++;
		return;
	}
	if (!c->tail)  /* 0 means none: a place holder, never waiting */
		due_at(c, c->tail++)->state = DUE_ANSWERED;
	uint32_t n = c->tail++;
	*due_at(c, n) = (struct cong_due){ts, frame, key, 0, key_qpn(key), DUE_WAITING};
	if (in_ring(c, b->due_tail))
		due_at(c, b->due_tail)->next = n;
	else
		b->due_head = n;
	b->due_tail = n;
	b->n_due++;
	if (c->next_deadline == INT64_MAX)
		set_next_deadline(c);
}

/* Entry n, waiting in stream b's list, was answered or missed. */
static void due_done(struct cong_state *c, struct cong_block *b, uint32_t n, uint8_t state)
{
	due_at(c, n)->state = state;
	if (!b)
		return;
	b->n_due--;
	while (in_ring(c, b->due_head) && due_at(c, b->due_head)->state != DUE_WAITING)
		b->due_head = due_at(c, b->due_head)->next;
	if (!in_ring(c, b->due_head))
		b->due_head = b->due_tail = 0;
}

/* The ids of stream st on finding x. */
static void finding_ids(const struct roce_analyzer *a, const struct stream *st, struct roce_finding *x)
{
	const struct stream_ids *id = &a->ids[st - a->s];
	x->stream = id->id;
	x->pair = id->pair;
}

/* cnp.missing for each waiting mark whose deadline ts has passed. */
static void expire(struct roce_analyzer *a, struct roce_pkt *p, int64_t ts, struct roce_findings *out)
{
	struct cong_state *c = &a->cong;
	for (; c->head != c->tail; c->head++) {
		struct cong_due *d = due_at(c, c->head);
		if (d->state != DUE_WAITING)
			continue;
		if (ts - d->ce_ts <= c->timeout_ns)
			break;
		const struct stream *st = stream_find(a, d->stream_key);
		struct cong_block *b = st ? block_of(a, st) : NULL;
		if (b && b->n_due) {
			b->missing++;
			due_done(c, b, c->head, DUE_MISSED);
			if (c->on_outcome) {
				const struct stream_ids *id = &a->ids[st - a->s];
				struct roce_cong_outcome o = {.kind = ROCE_CONG_MISSING, .stream = id->id, .pair = id->pair,
							      .frame = d->ce_frame, .ts = d->ce_ts, .ns = c->timeout_ns};
				c->on_outcome(&o, c->on_outcome_user);
			}
		} else {
			d->state = DUE_MISSED;  /* its stream was evicted */
		}
		struct roce_finding *x = finding_add(a, p, out, ROCE_EV_CNP_MISSING, d->qpn);
		if (x) {
			x->ref_frame = d->ce_frame;
			x->delta_ns = ts - d->ce_ts;
			if (st)  /* the CE-marked frame's stream (gone: evicted) */
				finding_ids(a, st, x);
		}
	}
	set_next_deadline(c);
}

/* ---- ECN marks ---- */

void cong_mark(struct roce_analyzer *a, struct stream *s, const struct roce_pkt *p, int64_t ts)
{
	struct cong_state *c = &a->cong;
	struct cong_block *b = block_need(a, s);
	if (!b)
		return;
	unsigned ecn = roce_ecn(&p->net);
	b->ecn[ecn]++;
	b->fecn += p->h.bth.fecn;
	b->becn += p->h.bth.becn;
	if (ecn != 3)
		return;
	b->last_ce_ts = ts;
	if (b->open_ce_ts == NONE) {
		b->open_ce_ts = ts;
		b->open_ce_frame = c->frame;
	}
	if (b->cover_ts == NONE || ts - b->cover_ts > c->interval_ns) {
		b->cover_ts = ts;
		due_add(c, b, s->key, ts, c->frame);
	}
}

void cong_ect0_settle(struct roce_analyzer *a, struct stream *s, uint64_t ect0_packets)
{
	s->ect0_only = 0;
	struct cong_block *b = block_need(a, s);
	if (b)
		b->ecn[2] += ect0_packets;
}

/* ---- CNPs ---- */

/* Bucket 4k + j + 1 holds [2^(k + j/4), 2^(k + (j+1)/4)). */
static unsigned lat_bucket(int64_t ns)
{
	if (ns < 1)
		return 0;
	unsigned k = 63u - (unsigned)__builtin_clzll((uint64_t)ns);
	if (k >= 32)
		return LAT_BUCKETS - 1;
	uint64_t x = ((uint64_t)ns << 16) >> k;  /* ns / 2^k, 16 fraction bits: [1, 2) */
	unsigned j = (x >= 77935) + (x >= 92682) + (x >= 110218);  /* 2^(1/4), 2^(1/2), 2^(3/4) */
	unsigned b = 4 * k + j + 1;
	return b < LAT_BUCKETS ? b : LAT_BUCKETS - 1;
}

static void lat_add(struct cong_block *b, int64_t ns)
{
	if (!b->lat_n || ns < b->lat_min)
		b->lat_min = ns;
	if (ns > b->lat_max)
		b->lat_max = ns;
	b->lat_n++;
	hist_add(b->hist, LAT_BUCKETS, lat_bucket(ns));
}

/* The smallest nanoseconds lat_bucket() puts in bucket b (its thresholds, rounded up). */
static int64_t lat_bucket_lo(unsigned b)
{
	static const uint64_t t[4] = {65536, 77935, 92682, 110218};  /* 2^16 · 2^(j/4) */
	if (!b)
		return 0;
	unsigned k = (b - 1) / 4;
	return (int64_t)(((t[(b - 1) % 4] << k) + 65535) >> 16);
}

/* The q-quantile of b's latencies and the nanoseconds its bucket may hold (within [min, max]). */
static void lat_quantile(const struct cong_block *b, double q, int64_t *v, int64_t range[2])
{
	int k = hist_quantile_bucket(b->hist, LAT_BUCKETS, q);
	*v = range[0] = range[1] = 0;
	if (k < 0)
		return;
	range[0] = lat_bucket_lo((unsigned)k);
	range[1] = k == LAT_BUCKETS - 1 ? b->lat_max : lat_bucket_lo((unsigned)k + 1) - 1;
	if (range[0] < b->lat_min)
		range[0] = b->lat_min;
	if (range[1] > b->lat_max)
		range[1] = b->lat_max;
	if (k == 0 || k == LAT_BUCKETS - 1) {
		*v = k ? b->lat_max : 0;
		return;
	}
	/* the bucket's geometric middle, 2^((k - 1/2) / 4) = 2^((2k - 1) / 8), within its samples */
	static const double eighth[8] = {1.0, 1.0905077, 1.1892071, 1.2968396, 1.4142136, 1.5422108, 1.6817928,
					 1.8340081};
	unsigned e = 2 * (unsigned)k - 1;
	int64_t m = (int64_t)((double)(UINT64_C(1) << (e >> 3)) * eighth[e & 7] + 0.5);
	*v = m < range[0] ? range[0] : m > range[1] ? range[1] : m;
}

/* A CNP that answered no one stream, counted for its address pair. */
static void cnp_pair_count(struct cong_state *c, uint32_t src, uint32_t dst, bool ambiguous)
{
	const struct u64map_rows rows = {&c->pairs, &c->pairs_alloc, c->n_pairs, sizeof(*c->pairs), 16, UINT32_MAX};
	bool added;
	uint32_t i = u64map_get_or_append(&c->cnp_pairs, pair_key(src, dst), &rows, &added);
	if (i == UINT32_MAX)
		return;
	if (added)
		c->pairs[c->n_pairs++] = (struct cnp_pair){src, dst, 0, 0};
	c->pairs[i].cnps++;
	c->pairs[i].ambiguous += ambiguous;
}

/* The stream A→B a CNP B→A to A's QP q answers (src = B, dst = A): the one paired with q, or the
 * one unpaired stream with a CE mark still unanswered within the timeout; NULL if none or several
 * (*ambiguous). */
static struct stream *cnp_target(struct roce_analyzer *a, uint32_t src, uint32_t dst, uint32_t q, int64_t ts,
				 bool *ambiguous)
{
	struct stream *rev = stream_find(a, stream_key(src, dst, q)), *t;
	*ambiguous = false;
	if (rev && rev->peer_qpn != PEER_NONE && (t = stream_find(a, stream_key(dst, src, (uint32_t)rev->peer_qpn))))
		return t;
	uint32_t i;
	struct stream *only = NULL;
	unsigned n = 0;
	if (!pair_head(a, pair_key(dst, src), &i))
		return NULL;
	for (unsigned hops = 0; hops < 64 && i < a->n_used; hops++) {
		struct stream *s = &a->s[i];
		const struct req_block *sq = req_of(a, s);
		if (key_src(s->key) != dst || key_dst(s->key) != src || !sq)
			break;  /* evicted and reused: the chain ends here */
		i = sq->pair_next;
		if (s->peer_qpn == q)
			return s;
		if (s->peer_qpn != PEER_NONE)
			continue;
		const struct cong_block *b = block_of(a, s);
		if (b && b->last_ce_ts != NONE && ts - b->last_ce_ts <= a->cong.timeout_ns && ts >= b->open_ce_ts &&
		    b->open_ce_ts != NONE) {
			only = s;
			n++;
		}
	}
	*ambiguous = n > 1;
	return n == 1 ? only : NULL;
}

void cong_cnp(struct roce_analyzer *a, struct roce_pkt *p, int64_t ts, uint32_t src, uint32_t dst,
	      struct roce_findings *out)
{
	struct cong_state *c = &a->cong;
	uint32_t q = p->h.bth.dqpn;
	bool ambiguous;
	struct stream *t = cnp_target(a, src, dst, q, ts, &ambiguous);
	struct cong_block *b = t ? block_need(a, t) : NULL;
	if (!b) {
		cnp_pair_count(c, src, dst, ambiguous);
		if (!ambiguous)
			finding_add(a, p, out, ROCE_EV_CNP_UNEXPECTED, q);
		return;
	}
	b->cnps++;
	bool unexpected = b->last_ce_ts == NONE || ts - b->last_ce_ts > c->timeout_ns;
	if (unexpected) {
		b->unexpected++;
		struct roce_finding *x = finding_add(a, p, out, ROCE_EV_CNP_UNEXPECTED, key_qpn(t->key));
		if (x)
			finding_ids(a, t, x);
	}
	/* it answers the stream's oldest due mark still waiting (the ones past their deadline were
	 * missed before this frame), else the first mark since the last CNP, within the timeout */
	int64_t lat = -1;
	uint64_t ce_frame = 0;
	if (in_ring(c, b->due_head) && due_at(c, b->due_head)->ce_ts <= ts) {
		lat = ts - due_at(c, b->due_head)->ce_ts;
		ce_frame = due_at(c, b->due_head)->ce_frame;
		due_done(c, b, b->due_head, DUE_ANSWERED);
	} else if (b->open_ce_ts != NONE && ts >= b->open_ce_ts && ts - b->open_ce_ts <= c->timeout_ns) {
		lat = ts - b->open_ce_ts;
		ce_frame = b->open_ce_frame;
	}
	if (lat >= 0) {
		lat_add(b, lat);
		if (out) {  /* the link a Wireshark user follows from the CNP to its CE frame */
			out->cnp_ce_frame = ce_frame;
			out->cnp_ce_ns = lat;
		}
	}
	if (c->on_outcome) {
		const struct stream_ids *id = &a->ids[t - a->s];
		struct roce_cong_outcome o = {.kind = ROCE_CONG_CNP, .stream = id->id, .pair = id->pair, .frame = c->frame,
					      .ts = ts, .ns = lat, .unexpected = unexpected};
		c->on_outcome(&o, c->on_outcome_user);
	}
	b->open_ce_ts = NONE;
	b->cover_ts = ts;
}

/* ---- PFC and PAUSE ---- */

static uint64_t mac_key(const uint8_t *m)
{
	return (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 | (uint64_t)m[2] << 24 | (uint64_t)m[3] << 16 |
	       (uint64_t)m[4] << 8 | m[5];
}

static struct pfc_src *pfc_source(struct cong_state *c, const uint8_t *mac, bool add)
{
	uint32_t i;
	uint64_t k = mac_key(mac);
	if (u64map_get(&c->pfc_map, k, &i))
		return &c->pfc[i];
	if (!add)
		return NULL;
	if (c->n_pfc == PFC_MAX_SOURCES) {
		c->pfc_untracked++;
		return NULL;
	}
	const struct u64map_rows rows = {&c->pfc, &c->pfc_alloc, c->n_pfc, sizeof(*c->pfc), 8, PFC_MAX_SOURCES};
	if (u64map_append(&c->pfc_map, k, &rows) == UINT32_MAX)
		return NULL;
	struct pfc_src *s = &c->pfc[c->n_pfc++];
	memset(s, 0, sizeof(*s));
	memcpy(s->mac, mac, 6);
	return s;
}

/* The bytes of frame p's readable part (decode.h). */
static struct span frame_span(const struct roce_pkt *p, const uint8_t *frame)
{
	return (struct span){frame, roce_readable_len(p->caplen)};
}

/* The source MAC of a frame: Ethernet's, or a cooked capture's link address (6 bytes long);
 * NULL if none. */
static const uint8_t *src_mac(const struct roce_pkt *p, const uint8_t *frame)
{
	const struct span s = frame_span(p, frame);
	const uint8_t *h;
	if (p->eth_off >= 0)
		return span_at(&s, (uint32_t)p->eth_off + ETH_SRC, 6);
	if (p->linktype == ROCE_LINK_SLL && (h = span_at(&s, 0, SLL_HLEN)))
		return ld_be16(h + SLL_HALEN) == 6 ? h + SLL_ADDR : NULL;
	if (p->linktype == ROCE_LINK_SLL2 && (h = span_at(&s, 0, SLL2_HLEN)))
		return h[SLL2_HALEN] == 6 ? h + SLL2_ADDR : NULL;
	return NULL;
}

/* The destination MAC of a frame's Ethernet header; NULL if none. */
static const uint8_t *dst_mac(const struct roce_pkt *p, const uint8_t *frame)
{
	const struct span s = frame_span(p, frame);
	return p->eth_off >= 0 ? span_at(&s, (uint32_t)p->eth_off + ETH_DST, 6) : NULL;
}

static int8_t row_priority(unsigned k)
{
	if (k == PAUSE_ROW)
		return -1;
	return (int8_t)k;
}

/* The open interval of source s's row k ends at end (expired: by its timer). */
static void pause_close(const struct cong_state *c, struct pfc_src *s, unsigned k, int64_t end, bool expired)
{
	struct pfc_prio *r = &s->prio[k];
	int64_t d = end > r->start ? end - r->start : 0;
	r->paused_ns += d;
	if (d > r->longest_ns)
		r->longest_ns = d;
	r->open = false;
	if (c->on_outcome) {
		struct roce_cong_outcome o = {.kind = ROCE_CONG_PAUSE, .ts = r->start, .ns = d, .priority = row_priority(k),
					      .storm = r->storm_fired, .expired = expired};
		memcpy(o.src, s->mac, 6);
		c->on_outcome(&o, c->on_outcome_user);
	}
}

static void pfc_frame(struct roce_analyzer *a, struct roce_pkt *p, const uint8_t *frame, int64_t ts,
		      struct roce_findings *out)
{
	struct cong_state *c = &a->cong;
	const struct roce_macc *m = &p->macc;
	const uint8_t *mac;
	if (m->malformed || (m->opcode != ROCE_MACC_PFC && m->opcode != ROCE_MACC_PAUSE) ||
	    m->fields < (m->opcode == ROCE_MACC_PFC ? 8 : 1) || !(mac = src_mac(p, frame)))
		return;
	struct pfc_src *s = pfc_source(c, mac, true);
	if (!s)
		return;
	struct roce_finding *x;
	/* pauses that ran out since this source's last frame */
	for (unsigned k = 0; k <= PAUSE_ROW; k++) {
		struct pfc_prio *r = &s->prio[k];
		if (r->open && r->end <= ts) {
			pause_close(c, s, k, r->end, true);
			if ((x = finding_add(a, p, out, ROCE_EV_PFC_RESUME, 0))) {
				x->priority = row_priority(k);
				x->expired = true;
				x->delta_ns = r->end - r->start;
			}
		}
	}
	for (unsigned k = 0; k <= PAUSE_ROW; k++) {
		if (m->opcode == ROCE_MACC_PFC ? k == PAUSE_ROW || !(m->enbv >> k & 1) : k != PAUSE_ROW)
			continue;
		struct pfc_prio *r = &s->prio[k];
		unsigned q = m->quanta[k == PAUSE_ROW ? 0 : k];
		r->seen = true;
		r->frames++;
		if (!q) {
			r->xon++;
			if (r->open) {
				pause_close(c, s, k, ts, false);
				if ((x = finding_add(a, p, out, ROCE_EV_PFC_RESUME, 0))) {
					x->priority = row_priority(k);
					x->delta_ns = ts - r->start;
				}
			}
			continue;
		}
		r->xoff++;
		int64_t end = ts + (int64_t)(((uint64_t)q * 512 * 1000000000 + c->link_bps / 2) / c->link_bps);
		if (r->open) {  /* a refresh: the timer restarts */
			r->end = end;
			if (!r->storm_fired && ts - r->start > c->storm_ns) {
				r->storm_fired = true;
				r->storms++;
				if ((x = finding_add(a, p, out, ROCE_EV_PFC_STORM, 0))) {
					x->priority = row_priority(k);
					x->delta_ns = ts - r->start;
				}
			}
		} else {
			r->open = true;
			r->storm_fired = false;
			r->start = ts;
			r->end = end;
			if ((x = finding_add(a, p, out, ROCE_EV_PFC_PAUSE, 0))) {
				x->priority = row_priority(k);
				x->quanta = (uint16_t)q;
			}
		}
		if (end > c->pause_until)
			c->pause_until = end;
	}
}

/* A RoCE frame toward a MAC that paused its priority (or all traffic), inside the pause. */
static void paused_traffic(struct roce_analyzer *a, struct roce_pkt *p, const uint8_t *frame, int64_t ts,
			   struct roce_findings *out)
{
	struct cong_state *c = &a->cong;
	const uint8_t *dst = dst_mac(p, frame);
	if (!dst)
		return;  /* no destination MAC: the direction is not known */
	const struct pfc_src *s = pfc_source(c, dst, false);
	if (!s)
		return;
	unsigned prio = p->n_vlan ? p->vlan[0].pcp : c->dscp_prio[roce_dscp(&p->net)];
	const struct pfc_prio *r = &s->prio[prio];
	bool pause = false;
	if (!(r->open && ts >= r->start && ts < r->end)) {
		r = &s->prio[PAUSE_ROW];
		if (!(r->open && ts >= r->start && ts < r->end))
			return;
		pause = true;
	}
	struct roce_finding *x = finding_add(a, p, out, ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED, p->op ? p->h.bth.dqpn : 0);
	if (x) {
		x->priority = (int8_t)prio;
		x->pause = pause;
		x->delta_ns = ts - r->start;
	}
}

void cong_frame_slow(struct roce_analyzer *a, struct roce_pkt *p, const uint8_t *frame, int64_t ts,
		     struct roce_findings *out)
{
	struct cong_state *c = &a->cong;
	if (ts > c->next_deadline)
		expire(a, p, ts, out);
	if (p->net.kind == ROCE_NET_MACC)
		pfc_frame(a, p, frame, ts, out);
	else if (p->version && ts < c->pause_until)
		paused_traffic(a, p, frame, ts, out);
}

/* ---- reports ---- */

void cong_fill_stats(const struct roce_analyzer *a, const struct stream *s, struct roce_stream_stats *st)
{
	const struct cong_block *b = block_of(a, s);
	if (!b)
		return;
	for (unsigned e = 1; e < 4; e++) {
		st->ecn[e] = b->ecn[e];
		st->ecn[0] -= st->ecn[0] >= b->ecn[e] ? b->ecn[e] : st->ecn[0];
	}
	st->fecn = b->fecn;
	st->becn = b->becn;
	st->cnps = b->cnps;
	st->cnp_unexpected = b->unexpected;
	st->cnp_missing = b->missing;
	st->cnp_pending = b->n_due;
	st->ce_to_cnp_count = b->lat_n;
	if (b->lat_n) {
		st->ce_to_cnp_min_ns = b->lat_min;
		st->ce_to_cnp_max_ns = b->lat_max;
		lat_quantile(b, 0.50, &st->ce_to_cnp_p50_ns, st->ce_to_cnp_p50_range_ns);
		lat_quantile(b, 0.99, &st->ce_to_cnp_p99_ns, st->ce_to_cnp_p99_range_ns);
	}
}

void roce_analyzer_pfc_foreach(const struct roce_analyzer *a, void (*fn)(const struct roce_pfc_row *r, void *user),
			       void *user)
{
	const struct cong_state *c = &a->cong;
	for (uint32_t i = 0; i < c->n_pfc; i++) {
		const struct pfc_src *s = &c->pfc[i];
		for (unsigned k = 0; k <= PAUSE_ROW; k++) {
			const struct pfc_prio *r = &s->prio[k];
			if (!r->seen)
				continue;
			struct roce_pfc_row row = {.priority = row_priority(k), .frames = r->frames, .xoff = r->xoff,
						   .xon = r->xon, .storms = r->storms, .paused_ns = r->paused_ns,
						   .longest_ns = r->longest_ns};
			memcpy(row.src, s->mac, 6);
			if (r->open) {  /* clipped at the capture's end */
				int64_t end = r->end < c->last_ts ? r->end : c->last_ts;
				int64_t d = end > r->start ? end - r->start : 0;
				row.paused_ns += d;
				if (d > row.longest_ns)
					row.longest_ns = d;
				row.open = true;
				row.open_start_ns = r->start;
				row.open_end_ns = r->start + d;
				row.open_storm = r->storm_fired;
			}
			fn(&row, user);
		}
	}
}

void roce_analyzer_on_congestion(struct roce_analyzer *a, roce_cong_fn fn, void *user)
{
	a->cong.on_outcome = fn;
	a->cong.on_outcome_user = user;
}

int64_t roce_analyzer_span_ns(const struct roce_analyzer *a)
{
	return a->cong.first_ts == NONE ? 0 : a->cong.last_ts - a->cong.first_ts;
}

uint64_t roce_analyzer_pfc_untracked(const struct roce_analyzer *a)
{
	return a->cong.pfc_untracked;
}

void roce_analyzer_cnp_pairs_foreach(const struct roce_analyzer *a,
				     void (*fn)(const struct roce_cnp_pair_row *r, void *user), void *user)
{
	const struct cong_state *c = &a->cong;
	for (uint32_t i = 0; i < c->n_pairs; i++) {
		const struct cnp_pair *q = &c->pairs[i];
		struct roce_cnp_pair_row row = {.addr_len = a->addrs[q->src][16], .cnps = q->cnps,
						.ambiguous = q->ambiguous};
		memcpy(row.src, a->addrs[q->src], 16);
		memcpy(row.dst, a->addrs[q->dst], 16);
		fn(&row, user);
	}
}
