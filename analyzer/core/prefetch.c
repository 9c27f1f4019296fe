/* prefetch.c: roce_analyze_prefetch() (analyze.h), the analyzer's look-ahead. With more streams
 * than the caches hold, a frame's analysis waits on several memory loads in a row (its stream's
 * map slot, then its core, then the side blocks the core names, and for a response its request
 * stream's core and block), each known only once the one before has arrived. Given the frames to
 * come, in order, a few frames before each reaches roce_analyze(), this starts those loads one
 * stage a call, AHEAD_STEP frames apart, so that they arrive while the frames before are being
 * analysed: hash first, then prefetch, then process. What it notes for the analysis (the frame's
 * stream hash and content key, a new stream's address ids) is checked where it is used, and a
 * wrong guess (a stream made, moved or evicted meanwhile) only loads a line for nothing. */
#include "stream_table.h"

/* Streams below this fit the caches (a core is 64 bytes, a block up to 272): no look-ahead. */
#define AHEAD_ABOVE 8192u

/* Always inlined, each of them: a function that only prefetches has no effect the compiler must
 * keep, and GCC 12 split load_block()'s loop into a function of its own, found it free of side
 * effects and deleted every call to it: the side blocks were never loaded ahead (the binary had
 * 13 prefetch instructions, not 19), and the analysis waited on them (~30 % of its time at 100 k
 * QPs). */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE void load(const void *p)
{
	__builtin_prefetch(p, 1, 3);  /* for writing: the analysis updates what it loads */
}

ALWAYS_INLINE void load_lines(const void *p, size_t bytes)
{
	const char *c = p;
	for (size_t at = 0; at < bytes; at += 64)
		load(c + at);
	load(c + bytes - 1);  /* a block not aligned to a line ends in one more */
}

ALWAYS_INLINE void load_block(const struct block_pool *pool, uint32_t i)
{
	if (i)
		load_lines(block_at(pool, i), pool->size);
}

/* A stream's core: one whole line (the cores start on a page, 64 bytes each). */
ALWAYS_INLINE void load_core(const struct stream *s)
{
	_Static_assert(sizeof(*s) == 64, "a core is one line");
	load(s);
}

bool roce_analyze_prefetch(struct roce_analyzer *a, struct roce_pkt *p, const uint8_t *frame)
{
	if (a->n_used < AHEAD_ABOVE)
		return false;
	struct ahead *h = &a->ahead;
	uint32_t n = h->n++;
	uint32_t i;

	/* 1: this frame's stream hash and content key, noted for roce_analyze() (unless the decoder
	 * worked them out: ROCE_DECODE_STREAM_HASH, ROCE_DECODE_COPY_KEY), its map slot and its set
	 * in the copy table */
	struct ahead_rec *r = &h->rec[n % AHEAD_RING];
	r->len = 0;
	r->pair = 0;
	r->idx = r->peer = NO_IDX;
	if (transport_analysable(p) && p->op->op != ROCE_OP_CNP) {  /* CNPs make no stream */
		const uint8_t *addrs = frame + p->net.addr_off;
		unsigned len = p->net.addr_len;
		uint32_t sh = p->stream_hint ? (uint32_t)p->stream_hint
					     : stream_hash_raw(addrs, addrs + len, len, p->h.bth.dqpn);
		p->stream_hint = HINT_HASH | HINT_AHEAD | (uint64_t)(n % AHEAD_IDS) << HINT_AHEAD_SHIFT | sh;
		h->ids[n % AHEAD_IDS].src = NO_IDX;
		addr_pair_copy(r->addrs, addrs, len);  /* for a new stream's host pair, a stage later */
		r->len = (uint8_t)len;
		r->response = p->op->flags & ROCE_OPF_RESPONSE;
		r->hash = (uint32_t)p->stream_hint;
		load(&a->streams.slots[r->hash & a->streams.mask]);
		if (a->copies) {  /* its bucket in the sightings table (copies.h) */
			if (!p->copy_hint)  /* unless the decoder found it (ROCE_DECODE_COPY_KEY) */
				p->copy_hint = copy_content_key(p, frame);
			load(&a->copies->bucket[sightings_bucket_index(a->copies, p->copy_hint)]);
		}
	}
	/* 2: the frame AHEAD_STEP before: its slot has arrived; its stream's core (the first slot of
	 * its hash: a guess, not checked against the key, which is in the core) */
	r = &h->rec[(n - AHEAD_STEP) % AHEAD_RING];
	uint32_t src, dst;
	if (r->len) {
		const struct idxmap_slot *e = &a->streams.slots[idxmap_next(&a->streams, r->hash, r->hash & a->streams.mask)];
		if (e->val) {
			r->idx = i = e->val - 1;
			load_core(&a->s[i]);
		} else if (addr_pair_peek(a, r->addrs, r->len, &src, &dst)) {
			/* a new stream between known hosts: their ids, which roce_analyze() then need
			 * not look up again, and its requests' host pair, whose chain it joins or walks */
			h->ids[(n - AHEAD_STEP) % AHEAD_IDS] = (struct ahead_ids){r->hash, src, dst};
			r->pair = r->response ? pair_key(dst, src) : pair_key(src, dst);
			load(&a->pairs.slots[idxmap_hash(r->pair) & a->pairs.mask]);
		}
	}
	/* 3: the frame before that: the side blocks its core names; a response's request stream,
	 * for a new response stream the newest request stream of its host pair (where the search
	 * for it begins) */
	r = &h->rec[(n - 2 * AHEAD_STEP) % AHEAD_RING];
	if (r->idx == NO_IDX && r->response && r->pair) {
		uint32_t ph = idxmap_hash(r->pair);
		i = a->pairs.slots[idxmap_next(&a->pairs, ph, ph & a->pairs.mask)].val;  /* a guess, as above */
		if (i && i - 1 < a->n_used) {
			r->peer = i - 1;
			load_core(&a->s[i - 1]);
		}
	}
	if (r->idx != NO_IDX) {
		const struct stream *s = &a->s[r->idx];
		/* a request touches its block's first two lines (its own fields, the acknowledgement
		 * tracking's first), and its turn the third; a response touches none of its own */
		if (!r->response && s->req)
			load_lines(block_at(&a->req_pool, s->req),
				   s->flags & F_TURN_PENDING ? sizeof(struct req_block)
							     : offsetof(struct req_block, ack) + ACK_REQUEST_BYTES);
		load_block(&a->resp_pool, s->resp);
		if (s->loss)
			load(block_at(&a->loss_pool, s->loss));
		if (r->response && s->peer_qpn != PEER_NONE && s->peer_idx < a->n_used) {
			r->peer = s->peer_idx;
			load_core(&a->s[s->peer_idx]);
		}
	}
	/* 4: the frame before that: the request stream's block */
	r = &h->rec[(n - 3 * AHEAD_STEP) % AHEAD_RING];
	if (r->peer != NO_IDX)
		load_block(&a->req_pool, a->s[r->peer].req);
	return true;
}
