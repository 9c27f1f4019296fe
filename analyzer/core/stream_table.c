/* stream_table.c: the transport analyzer's tables (see stream_table.h): interned addresses, the
 * stream map, its order of use and eviction, the analyzer's life cycle, and the per-stream
 * reports (roce_analyzer_foreach). */
#include "stream_table.h"

#include "grow.h"
#include "pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- addresses ---- */

/* The address's id if it is interned (true); else false, with *key the free key it would take. */
static bool addr_find(const struct roce_analyzer *a, const uint8_t *addr, unsigned len, uint32_t *id, uint64_t *key)
{
	for (*key = addr_key(addr, len);; *key = (*key + 1) | ADDR_KEY_V6) {  /* only IPv6 keys can collide */
		if (!u64map_get(&a->addr_index, *key, id))
			return false;  /* a new address; *key is free */
		if (len == 4 || addr_is(a->addrs[*id], addr, len))
			return true;
	}
}

uint32_t addr_id(struct roce_analyzer *a, const uint8_t *addr, unsigned len)
{
	uint64_t key;
	uint32_t id;

	if (addr_find(a, addr, len, &id, &key))
		return id;
	const struct u64map_rows rows = {&a->addrs, &a->addrs_alloc, a->n_addrs, sizeof(*a->addrs), 64, MAX_ADDRS};
	if ((id = u64map_append(&a->addr_index, key, &rows)) == NO_IDX)
		return NO_IDX;
	memset(a->addrs[id], 0, sizeof(a->addrs[id]));
	memcpy(a->addrs[id], addr, len);
	a->addrs[id][16] = (uint8_t)len;
	a->n_addrs++;
	return id;
}

/* The id of an IPv4 address already interned: one exact lookup, inline. */
static inline bool addr_known_v4(const struct roce_analyzer *a, const uint8_t *addr, uint32_t *id)
{
	return u64map_get(&a->addr_index, addr_key(addr, 4), id);
}

/* Both addresses' ids, when both are interned already; nothing changes. */
static inline bool addr_pair_known(const struct roce_analyzer *a, const uint8_t *addrs, unsigned len, uint32_t *src,
				   uint32_t *dst)
{
	uint64_t key;
	if (len == 4)  /* exact keys: one inline lookup each */
		return addr_known_v4(a, addrs, src) && addr_known_v4(a, addrs + 4, dst);
	return addr_find(a, addrs, len, src, &key) && addr_find(a, addrs + len, len, dst, &key);
}

bool addr_pair_peek(const struct roce_analyzer *a, const uint8_t *addrs, unsigned len, uint32_t *src, uint32_t *dst)
{
	return addr_pair_recent(a, addrs, len, src, dst) || addr_pair_known(a, addrs, len, src, dst);
}

bool addr_pair_ids_slow(struct roce_analyzer *a, const uint8_t *addrs, unsigned len, uint32_t *src, uint32_t *dst)
{
	if (!addr_pair_known(a, addrs, len, src, dst)) {
		*src = addr_id(a, addrs, len);
		*dst = addr_id(a, addrs + len, len);
		if (*src == NO_IDX || *dst == NO_IDX)
			return false;
	}
	a->recent_pairs[1] = a->recent_pairs[0];  /* ids never change: a cached pair stays right */
	struct addr_pair *c = &a->recent_pairs[0];
	addr_pair_copy(c->bytes, addrs, len);  /* addr_pair_ids() compares 8 bytes for IPv4, 32 for IPv6 */
	c->len = len;
	c->src = *src;
	c->dst = *dst;
	return true;
}

/* ---- side blocks ---- */

int block_reserve(struct block_pool *p)
{
	if (p->free_head || p->n_used < p->n_alloc)
		return 0;
	uint32_t n = grow_capacity(p->n_alloc, 256, UINT32_MAX);
	if (n == p->n_alloc)
		return -1;
	void *m = pages_grow(p->mem, (size_t)p->n_alloc * p->size, (size_t)n * p->size);
	if (!m)
		return -1;
	p->mem = m;
	p->n_alloc = n;
	if (p->pf)
		prefault_publish(p->pf, m, (size_t)p->n_used * p->size, (size_t)n * p->size);
	return 0;
}

uint32_t block_take(struct block_pool *p)
{
	uint32_t i = p->free_head;
	if (i) {
		memcpy(&p->free_head, block_at(p, i), sizeof(p->free_head));
	} else {
		if (block_reserve(p) < 0)
			return 0;
		if (!p->n_used)
			p->n_used = 1;  /* block 0 stands for none */
		i = p->n_used++;
		if (p->pf)
			prefault_used(p->pf, (size_t)p->n_used * p->size);
	}
	memset(block_at(p, i), 0, p->size);
	return i;
}

void block_give(struct block_pool *p, uint32_t i)
{
	if (!i)
		return;
	memcpy(block_at(p, i), &p->free_head, sizeof(p->free_head));
	p->free_head = i;
}

/* ---- round-trip histograms (struct rtt_hist) ---- */

static uint32_t rtt_hist_block(const struct rtt_hist *h)
{
	uint32_t i;
	memcpy(&i, h->w, sizeof(i));
	return i;
}

void rtt_hist_get(const struct roce_analyzer *a, const struct rtt_hist *h, uint8_t hist[RTT_BUCKETS])
{
	if (h->base == RTT_SPILLED) {
		memcpy(hist, block_at(&a->hist_pool, rtt_hist_block(h)), RTT_BUCKETS);
		return;
	}
	memset(hist, 0, RTT_BUCKETS);
	if (h->base != RTT_EMPTY)
		memcpy(hist + h->base, h->w, RTT_WINDOW);
}

/* Where a round-trip histogram's window goes for non-zero buckets lo..hi (hi - lo < RTT_WINDOW):
 * room for 4 octaves below lo when it can, the rest above (a stream's slow round trips are its
 * tail). */
static unsigned rtt_window_base(unsigned lo, unsigned hi)
{
	int base = (int)lo - 8;
	if (base + (int)RTT_WINDOW - 1 < (int)hi)
		base = (int)hi - (int)RTT_WINDOW + 1;
	if (base < 0)
		base = 0;
	if (base > (int)(RTT_BUCKETS - RTT_WINDOW))
		base = RTT_BUCKETS - RTT_WINDOW;
	return (unsigned)base;
}

void rtt_hist_add_slow(struct roce_analyzer *a, struct rtt_hist *h, unsigned k)
{
	if (h->base == RTT_EMPTY) {  /* the first sample: the window goes where it is */
		h->base = (uint8_t)rtt_window_base(k, k);
		h->w[k - h->base] = 1;
		return;
	}
	if (h->base == RTT_SPILLED) {
		hist_add(block_at(&a->hist_pool, rtt_hist_block(h)), RTT_BUCKETS, k);
		return;
	}
	uint8_t hist[RTT_BUCKETS];
	rtt_hist_get(a, h, hist);
	hist_add(hist, RTT_BUCKETS, k);
	unsigned lo = 0, hi = RTT_BUCKETS - 1;
	while (!hist[lo])
		lo++;
	while (!hist[hi])
		hi--;
	if (hi - lo < RTT_WINDOW) {
		h->base = (uint8_t)rtt_window_base(lo, hi);
		memcpy(h->w, hist + h->base, RTT_WINDOW);
		return;
	}
	uint32_t i = block_take(&a->hist_pool);
	if (!i)
		return;  /* out of memory: the sample stays out of the histogram (its statistics have it) */
	memcpy(block_at(&a->hist_pool, i), hist, RTT_BUCKETS);
	h->base = RTT_SPILLED;
	memcpy(h->w, &i, sizeof(i));
}

/* An evicted stream's requester block back to its pool, its spilled histogram and ring with it. */
static void req_give(struct roce_analyzer *a, uint32_t i)
{
	if (!i)
		return;
	const struct req_block *b = block_at(&a->req_pool, i);
	if (b->ack_taken && b->ack.hist.base == RTT_SPILLED)
		block_give(&a->hist_pool, rtt_hist_block(&b->ack.hist));
	if (b->ack_taken && b->ack.psn == RTT_IN_RING)
		block_give(&a->rtt_pool, (uint32_t)b->ack.ts);
	block_give(&a->req_pool, i);
}

/* ---- the stream table: map + order of use ---- */

/* The order of use is kept as a stamp on each stream (stream.touched), not as a list: a list
 * moved a stream to its head on every lookup, writing to two neighbours and the old head, three
 * cache misses a frame once the streams outgrow the caches. Evicting needs the least recently
 * used stream: a.evict holds the streams sorted by their stamps as they were when it was made.
 * A stream looked up since, or made since, has a stamp above every one there, so the first
 * entry whose stamp is still its stream's is the least recently used of all; entries that fail
 * the test are dropped, and the list is made again when it runs out. Each stream enters it once
 * a making, so the sorts cost O(log n) a lookup or eviction, and nothing before the cap. */

static int by_touch(const void *x, const void *y)
{
	uint64_t a = ((const struct touch_rec *)x)->touched, b = ((const struct touch_rec *)y)->touched;
	return a < b ? -1 : a > b;
}

/* The streams in order of use, least recent first, into *o (grown as needed); -1: out of memory. */
static int order_of_use(const struct roce_analyzer *a, struct use_order *o)
{
	if (a->n_used > o->alloc) {
		void *p = realloc(o->rec, (size_t)a->n_used * sizeof(*o->rec));
		if (!p)
			return -1;
		o->rec = p;
		o->alloc = a->n_used;
	}
	for (uint32_t i = 0; i < a->n_used; i++)
		o->rec[i] = (struct touch_rec){a->s[i].touched, i};
	if (a->n_used)  /* no streams: o->rec may be NULL, which qsort may not be given */
		qsort(o->rec, a->n_used, sizeof(*o->rec), by_touch);
	o->n = a->n_used;
	o->pos = 0;
	return 0;
}

void touch_renumber(struct roce_analyzer *a)
{
	struct use_order *o = &a->evict;
	if (order_of_use(a, o) < 0) {  /* out of memory: the order of use is lost, not the streams */
		for (uint32_t i = 0; i < a->n_used; i++)
			a->s[i].touched = i + 1;
		o->n = o->pos = 0;
		a->clock = a->n_used;
		return;
	}
	for (uint32_t k = 0; k < o->n; k++)  /* the list stays in order, with the new stamps */
		a->s[o->rec[k].idx].touched = o->rec[k].touched = k + 1;
	a->clock = o->n;
}

/* The least recently used stream (the table is full); NO_IDX when out of memory. */
static uint32_t least_recent(struct roce_analyzer *a)
{
	struct use_order *o = &a->evict;
	for (;;) {
		if (o->pos == o->n && order_of_use(a, o) < 0)
			return NO_IDX;
		const struct touch_rec *r = &o->rec[o->pos++];
		if (a->s[r->idx].touched == r->touched)
			return r->idx;
	}
}

static void fill_stats(const struct roce_analyzer *a, uint32_t i, struct roce_stream_stats *st);

/* A free entry: a new one while under the cap, else the least recently used one, evicted (its
 * row first to the on_evict hook, as roce_analyzer_foreach() would give it). */
static uint32_t entry_take(struct roce_analyzer *a)
{
	if (a->n_used < a->max_streams) {
		if (a->n_used == a->n_alloc) {
			uint32_t n = grow_capacity(a->n_alloc, 256, a->max_streams);
			void *p;
			if (a->ids_alloc < n) {  /* in pages as the cores: huge ones where allowed (pages.h) */
				p = pages_grow(a->ids, (size_t)a->ids_alloc * sizeof(*a->ids), (size_t)n * sizeof(*a->ids));
				if (!p)
					return NO_IDX;
				a->ids = p;
				a->ids_alloc = n;
				prefault_publish(&a->pf[PF_IDS], p, (size_t)a->n_used * sizeof(*a->ids),
						 (size_t)n * sizeof(*a->ids));
			}
			if (!(p = pages_grow(a->s, (size_t)a->n_alloc * sizeof(*a->s), (size_t)n * sizeof(*a->s))))
				return NO_IDX;  /* ids[] grew alone: n_alloc (the cores' size) stays */
			a->s = p;
			a->n_alloc = n;
			prefault_publish(&a->pf[PF_CORES], p, (size_t)a->n_used * sizeof(*a->s), (size_t)n * sizeof(*a->s));
		}
		uint32_t i = a->n_used++;
		prefault_used(&a->pf[PF_CORES], (size_t)a->n_used * sizeof(*a->s));
		prefault_used(&a->pf[PF_IDS], (size_t)a->n_used * sizeof(*a->ids));
		return i;
	}
	uint32_t victim = least_recent(a);
	if (victim == NO_IDX)
		return NO_IDX;
	if (a->on_evict) {
		struct roce_stream_stats st;
		fill_stats(a, victim, &st);
		a->on_evict(&st, a->on_evict_user);
	}
	struct stream *v = &a->s[victim];
	idxmap_del_at(&a->streams, stream_slot(a, v->key, stream_hash(a, v->key)));
	req_give(a, v->req);
	block_give(&a->loss_pool, v->loss);
	block_give(&a->resp_pool, v->resp);
	if (a->ids[victim].cong)
		cong_stream_gone(a, victim);
	a->evictions++;
	return victim;
}

struct stream *stream_add(struct roce_analyzer *a, uint64_t key, uint32_t h, uint32_t *idx)
{
	/* room in the map first: an entry taken (a victim evicted) and then not mapped would be
	 * a stream half made, listed in the reports with no key and no packets */
	if (idxmap_reserve(&a->streams) < 0)
		return NULL;
	uint32_t i = entry_take(a);
	if (i == NO_IDX || idxmap_add(&a->streams, h, i) < 0)  /* room reserved: cannot fail */
		return NULL;
	struct stream *e = &a->s[i];
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->peer_qpn = PEER_NONE;
	e->touched = touch_next(a);
	a->newest = i;
	if (!++a->next_id)
		a->next_id = 1;  /* 0 means none: after 2^32 - 1 streams, ids start over */
	a->ids[i] = (struct stream_ids){a->next_id, a->next_id, 0, 0};
	*idx = i;
	return e;
}

struct stream *stream_find(struct roce_analyzer *a, uint64_t key)
{
	uint32_t i;
	return stream_index(a, key, &i) ? &a->s[i] : NULL;
}

void pair_set_head(struct roce_analyzer *a, uint64_t k, uint32_t idx)
{
	struct idxmap *m = &a->pairs;
	uint32_t h = idxmap_hash(k);
	if (idxmap_reserve(m) < 0)
		return;  /* out of memory: the pair's streams are found by their keys alone */
	uint32_t i = idxmap_next(m, h, h & m->mask);
	for (; m->slots[i].val; i = idxmap_next(m, h, (i + 1) & m->mask)) {
		uint64_t held = a->s[m->slots[i].val - 1].key >> 24;
		/* this pair's slot, or one whose stream was evicted and now holds a pair of another
		 * hash: taken over (a pair of the same hash is another pair's) */
		if (held == k || idxmap_hash(held) != h) {
			m->slots[i].val = idx + 1;
			return;
		}
	}
	idxmap_fill(m, i, h, idx);
}

struct roce_analyzer *roce_analyzer_new(const struct roce_analyzer_config *cfg, char errbuf[ROCE_ERRBUF_SIZE])
{
	struct roce_analyzer *a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(errbuf, ROCE_ERRBUF_SIZE, "out of memory");
		return NULL;
	}
	a->max_streams = cfg && cfg->max_streams ? cfg->max_streams : ROCE_MAX_STREAMS_DEFAULT;
	for (unsigned k = 0; k < AHEAD_RING; k++)  /* the look-ahead's frames in flight: none yet */
		a->ahead.rec[k].idx = a->ahead.rec[k].peer = NO_IDX;
	for (unsigned k = 0; k < AHEAD_IDS; k++)
		a->ahead.ids[k].src = NO_IDX;
	a->pmtu_cfg = cfg ? cfg->pmtu : 0;
	a->newest = NO_IDX;
	a->req_pool.size = sizeof(struct req_block);
	a->loss_pool.size = sizeof(struct loss_block);
	a->resp_pool.size = sizeof(struct resp_block);
	a->cong_pool.size = sizeof(struct cong_block);
	a->hist_pool.size = RTT_BUCKETS;
	a->rtt_pool.size = sizeof(struct rtt_ring);
	a->req_pool.pf = &a->pf[PF_REQ];
	a->loss_pool.pf = &a->pf[PF_LOSS];
	a->sends = calloc(SEND_LOG_SIZE, sizeof(*a->sends));
	int64_t window_us = !cfg ? ROCE_COPY_WINDOW_US_DEFAULT : cfg->copy_window_us > 0 ? cfg->copy_window_us : -1;
	if (window_us >= 0) {
		a->copy_window_ns = window_us > INT64_MAX / 1000 ? INT64_MAX : window_us * 1000;
		a->copies = malloc(sizeof(*a->copies));
		if (a->copies && sightings_init(a->copies, a->copy_window_ns) < 0) {
			if (a->copies)
		sightings_free(a->copies);
	free(a->copies);
			a->copies = NULL;
		}
		a->path = a->copies ? malloc(sizeof(*a->path)) : NULL;
		if (a->path && path_init(a->path) < 0) {
			free(a->path);
			a->path = NULL;
		}
		if (a->path) {
			a->copies->fold = path_fold;
			a->copies->fold_user = a->path;
		}
	}
	if (!a->sends || (window_us >= 0 && (!a->copies || !a->path)) || idxmap_init(&a->streams, 1024) < 0 ||
	    idxmap_init(&a->pairs, 256) < 0 || u64map_init(&a->addr_index, 256) < 0 ||
	    cong_init(a, cfg ? cfg->congestion : NULL) < 0) {
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
	idxmap_free(&a->streams);
	idxmap_free(&a->pairs);
	u64map_free(&a->addr_index);
	pages_free(a->s, (size_t)a->n_alloc * sizeof(*a->s));
	pages_free(a->ids, (size_t)a->ids_alloc * sizeof(*a->ids));
	free(a->evict.rec);
	free(a->addrs);
	free(a->sends);
	if (a->copies)
		sightings_free(a->copies);
	free(a->copies);
	if (a->path)
		path_free(a->path);
	free(a->path);
	free(a->found.f);
	mirror_free(&a->mirror);
	pages_free(a->req_pool.mem, (size_t)a->req_pool.n_alloc * a->req_pool.size);
	pages_free(a->loss_pool.mem, (size_t)a->loss_pool.n_alloc * a->loss_pool.size);
	pages_free(a->resp_pool.mem, (size_t)a->resp_pool.n_alloc * a->resp_pool.size);
	pages_free(a->hist_pool.mem, (size_t)a->hist_pool.n_alloc * a->hist_pool.size);
	pages_free(a->rtt_pool.mem, (size_t)a->rtt_pool.n_alloc * a->rtt_pool.size);
	cong_free(a);
	pages_free(a->cong_pool.mem, (size_t)a->cong_pool.n_alloc * a->cong_pool.size);
	free(a);
}

/* ---- reports ---- */

int hist_quantile_bucket(const uint8_t *hist, unsigned n, double q)
{
	unsigned total = 0, seen = 0;
	for (unsigned i = 0; i < n; i++)
		total += hist[i];
	if (!total)
		return -1;
	unsigned want = (unsigned)(q * total + 0.999999);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < n; b++) {
		seen += hist[b];
		if (seen >= want)
			return (int)b;
	}
	return (int)n - 1;
}

/* The smallest and largest whole microseconds bucket b (RTT_BUCKETS) holds: bucket 2k from 2^k to
 * below 2^k·√2, 2k+1 from there to below 2^(k+1); bucket 0 holds 0 and 1 (1 is 2^0). */
static void rtt_bucket_range(unsigned b, uint32_t *lo, uint32_t *hi)
{
	unsigned k = b / 2;
	uint64_t two = UINT64_C(2) << (2 * k);  /* 2^(2k+1): v·v below it is below 2^k·√2 */
	uint64_t r = (uint64_t)((double)(UINT64_C(1) << k) * 1.4142135);  /* then exact: */
	while (r * r > two - 1)
		r--;
	while ((r + 1) * (r + 1) <= two - 1)
		r++;
	if (b % 2 == 0) {
		*lo = k ? UINT32_C(1) << k : 0;
		*hi = (uint32_t)r;
	} else {
		*lo = (uint32_t)r + 1;
		*hi = b == RTT_BUCKETS - 1 ? UINT32_MAX : (UINT32_C(1) << (k + 1)) - 1;
	}
}

struct rtt_q rtt_quantile(const struct roce_analyzer *a, const struct ack_block *r, double q)
{
	struct rtt_q out = {0, 0, 0};
	uint8_t hist[RTT_BUCKETS];
	rtt_hist_get(a, &r->hist, hist);
	int b = hist_quantile_bucket(hist, RTT_BUCKETS, q);
	if (b < 0)
		return out;
	rtt_bucket_range((unsigned)b, &out.lo, &out.hi);
	if (out.lo < r->min_us)
		out.lo = r->min_us;
	if (out.hi > r->max_us)
		out.hi = r->max_us;
	if (b == RTT_BUCKETS - 1) {
		out.v = r->max_us;  /* open above: its largest sample */
		return out;
	}
	/* the bucket's geometric middle: 2^k · 2^(1/4) or 2^k · 2^(3/4), within its samples */
	double v = (double)(1u << (b / 2)) * (b % 2 ? 1.6817928 : 1.1892071);
	uint32_t u = (uint32_t)(v + 0.5);
	out.v = u < out.lo ? out.lo : u > out.hi ? out.hi : u;
	return out;
}

/* One stream's row. */
static void fill_stats(const struct roce_analyzer *a, uint32_t i, struct roce_stream_stats *st)
{
	const struct stream *e = &a->s[i];
	memset(st, 0, sizeof(*st));
	st->stream = a->ids[i].id;
	st->pair = a->ids[i].pair;
	uint32_t sid = key_src(e->key), did = key_dst(e->key);
	st->addr_len = a->addrs[sid][16];
	memcpy(st->src, a->addrs[sid], 16);
	memcpy(st->dst, a->addrs[did], 16);
	st->dqpn = key_qpn(e->key);
	st->pmtu = pmtu_of(a, e);
	st->packets = packets_of(e);
	st->bytes = e->bytes;
	st->last_psn = PSN_MASK;  /* next_psn 0 less one, for a stream that sent no request */
	const struct req_block *q = req_of(a, e);
	if (q) {
		st->transport = q->transport;
		st->requests = count40(q->requests, q->requests_hi);
		st->has_psn = (e->flags & F_REQ_SEEN) && q->transport != ROCE_TR_UD;
		st->first_psn = q->first_psn;
		st->last_psn = (q->next_psn - 1) & PSN_MASK;
		st->messages = count40(q->messages, q->messages_hi);
	}
	st->responses = st->packets - st->requests;
	const struct loss_block *l = loss_of(a, e);
	if (l) {
		st->lost_after = l->lost_after;
		st->lost_before = l->missing > l->ooo ? l->missing - l->ooo : 0;
		st->lost_mirror = mirror_stream_lost(&a->mirror, a->ids[i].id);
		st->lost_before -= st->lost_mirror < st->lost_before ? st->lost_mirror : st->lost_before;
		st->gaps = l->gaps;
		st->missing_psns = l->missing;
		st->retransmits = l->retransmits;
		st->out_of_order = l->ooo;
		st->timeouts = l->timeouts;
		for (unsigned c = 0; c < 5; c++)
			st->naks[c] = l->naks[c];
		st->rnr_naks = l->rnr;
		st->recover_count = l->recover_count;
		st->recover_max_us = l->recover_max_us;
		st->recover_mean_us = l->recover_count ? (uint32_t)(l->recover_sum_us / l->recover_count) : 0;
		st->timeout_aged = l->timeout_aged;
		st->timeout_age_max_us = l->timeout_max_us;
		st->timeout_age_mean_us = l->timeout_aged ? (uint32_t)(l->timeout_sum_us / l->timeout_aged) : 0;
	}
	st->paired = (e->flags & F_PAIRED_CM) ? ROCE_PAIRED_CM : (e->flags & F_PAIRED_PSN) ? ROCE_PAIRED_PSN : ROCE_PAIRED_NONE;
	st->peer_qpn = e->peer_qpn == PEER_NONE ? 0 : (uint32_t)e->peer_qpn;
	const struct ack_block *r = ack_of(a, e);
	if (r) {
		st->messages_send = r->by_kind[MSG_SEND];
		st->messages_write = r->by_kind[MSG_WRITE];
		st->messages_read = r->by_kind[MSG_READ];
		st->messages_atomic = r->by_kind[MSG_ATOMIC];
		st->messages_other = r->by_kind[MSG_OTHER];
	}
	if (r && r->psn == RTT_IN_RING)
		st->response_untimed = ((const struct rtt_ring *)block_at(&a->rtt_pool, (uint32_t)r->ts))->untimed;
	if (r && r->turn_count) {
		st->turn_count = r->turn_count;
		st->turn_max_us = r->turn_max_us;
		st->turn_mean_us = (uint32_t)(r->turn_sum_us / r->turn_count);
	}
	if (r && r->count) {
		st->response_count = r->count;
		st->response_min_us = r->min_us;
		st->response_max_us = r->max_us;
		st->response_mean_us = (uint32_t)(r->sum_us / r->count);
		struct rtt_q p50 = rtt_quantile(a, r, 0.50), p99 = rtt_quantile(a, r, 0.99);
		st->response_p50_us = p50.v;
		st->response_p50_range_us[0] = p50.lo;
		st->response_p50_range_us[1] = p50.hi;
		st->response_p99_us = p99.v;
		st->response_p99_range_us[0] = p99.lo;
		st->response_p99_range_us[1] = p99.hi;
	}
	st->max_idle_us = e->max_idle_us;
	st->ecn[0] = st->packets;  /* less the marked ones, which cong_fill_stats() counts */
	if (a->ids[i].cong)
		cong_fill_stats(a, e, st);
	if (e->ect0_only) {  /* then the block, if any, counts no codepoint */
		st->ecn[2] = st->packets;
		st->ecn[0] = 0;
	}
	st->copies = a->ids[i].copies;
}

/* The index of the stream that e is paired with, if that one is paired with e too; NO_IDX if not. */
static uint32_t mutual_peer(const struct roce_analyzer *a, const struct stream *e)
{
	uint32_t j;
	if (e->peer_qpn == PEER_NONE ||
	    !stream_index(a, stream_key(key_dst(e->key), key_src(e->key), e->peer_qpn), &j) ||
	    a->s[j].peer_qpn != key_qpn(e->key))
		return NO_IDX;
	return j;
}

static bool bit_test(const uint8_t *bits, uint32_t i)
{
	return bits[i / 8] >> (i % 8) & 1;
}

static void bit_set(uint8_t *bits, uint32_t i)
{
	bits[i / 8] |= (uint8_t)(1u << (i % 8));
}

void roce_analyzer_foreach(const struct roce_analyzer *a, void (*fn)(const struct roce_stream_stats *s, void *user),
			   void *user)
{
	/* least recently used first; a stream's mutual peer right after it. Out of memory: no
	 * grouping, or the table's own order, but nothing lost */
	uint8_t *done = calloc(a->n_used / 8 + 1, 1);
	struct use_order o = {0};
	bool ordered = order_of_use(a, &o) == 0;
	for (uint32_t k = 0; k < a->n_used; k++) {
		uint32_t i = ordered ? o.rec[k].idx : k;
		if (done && bit_test(done, i))
			continue;
		struct roce_stream_stats st;
		fill_stats(a, i, &st);
		fn(&st, user);
		if (done) {
			bit_set(done, i);
			uint32_t j = mutual_peer(a, &a->s[i]);
			if (j != NO_IDX && !bit_test(done, j)) {
				fill_stats(a, j, &st);
				fn(&st, user);
				bit_set(done, j);
			}
		}
	}
	free(done);
	free(o.rec);
}

void roce_analyzer_latest(const struct roce_analyzer *a, void (*fn)(const struct roce_stream_stats *s, void *user),
			  void *user)
{
	uint32_t i = a->newest;
	if (i == NO_IDX)
		return;
	struct roce_stream_stats st;
	fill_stats(a, i, &st);
	fn(&st, user);
	uint32_t j = mutual_peer(a, &a->s[i]);
	if (j != NO_IDX && j != i) {
		fill_stats(a, j, &st);
		fn(&st, user);
	}
}

uint64_t roce_analyzer_streams(const struct roce_analyzer *a)
{
	return a->n_used;
}

void roce_analyzer_on_evict(struct roce_analyzer *a, void (*fn)(const struct roce_stream_stats *s, void *user),
			    void *user)
{
	a->on_evict = fn;
	a->on_evict_user = user;
}

uint64_t roce_analyzer_evictions(const struct roce_analyzer *a)
{
	return a->evictions;
}

uint64_t roce_analyzer_refused(const struct roce_analyzer *a)
{
	return a->refused;
}

/* ---- the frame's findings ---- */

/* Room for one more finding in the analyzer's array (8 at first, then doubled), out->f following
 * it; false, the array as it was, when memory runs out (that finding's details are lost). */
bool finding_grow(struct roce_analyzer *a, struct roce_findings *out)
{
	struct roce_finding *f = grow_array(a->found.f, &a->found.alloc, sizeof(*f), 8, UINT32_MAX);
	if (!f) {
		a->found.lost++;
		return false;
	}
	a->found.f = f;
	out->f = f;
	return true;
}

uint64_t roce_analyzer_findings(const struct roce_analyzer *a, enum roce_event e)
{
	return (unsigned)e < ROCE_EV_COUNT ? a->found.count[e] : 0;
}

uint32_t roce_analyzer_path_points(const struct roce_analyzer *a, const struct roce_path_point **points)
{
	*points = a->path ? a->path->points : NULL;
	return a->path ? a->path->n_points : 0;
}

int roce_analyzer_path_finish(struct roce_analyzer *a, const int64_t *offset_ns, const bool *has_offset)
{
	return a->path ? path_finish(a->path, a->copies, offset_ns, has_offset) : 0;
}

const struct roce_path *roce_analyzer_path_snapshot(struct roce_analyzer *a, const int64_t *offset_ns,
						    const bool *has_offset)
{
	return a->path ? path_snapshot(a->path, a->copies, offset_ns, has_offset) : NULL;
}

void roce_analyzer_time_ordered(struct roce_analyzer *a)
{
	if (a->copies)
		sightings_time_ordered(a->copies);
}

void roce_analyzer_path_offsets(struct roce_analyzer *a, roce_path_offset_fn fn, void *user, int64_t spread_ns)
{
	if (a->path) {
		a->path->offset_fn = fn;
		a->path->offset_user = user;
	}
	if (a->copies)
		a->copies->slack_ns = spread_ns > 0 ? spread_ns : 0;
}

void roce_analyzer_on_path_sample(struct roce_analyzer *a, roce_path_sample_fn fn, void *user)
{
	if (a->path) {
		a->path->sample_fn = fn;
		a->path->sample_user = user;
	}
}

uint32_t roce_analyzer_path_wide_offsets(const struct roce_analyzer *a, uint32_t n, int64_t *offset_ns,
					 int64_t *uncertainty_ns)
{
	return a->path ? path_wide_offsets(a->path, n, offset_ns, uncertainty_ns) : 0;
}

const struct roce_path *roce_analyzer_path(const struct roce_analyzer *a)
{
	return a->path ? path_result(a->path) : NULL;
}

uint64_t roce_analyzer_copies_unchecked(const struct roce_analyzer *a)
{
	return a->copies ? a->copies->unchecked : 0;
}
