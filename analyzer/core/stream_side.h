/* stream_side.h: a stream's side blocks (stream_blocks.h) taken from and found in their pools
 * (inline: the analysis reaches them on every frame), the pools themselves, the round-trip and
 * latency histograms and their quantiles, and a stream's path MTU. */
#ifndef ROCE_STREAM_SIDE_H
#define ROCE_STREAM_SIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer_state.h"

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

#endif
