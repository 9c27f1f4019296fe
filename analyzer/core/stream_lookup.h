/* stream_lookup.h: the lookups every frame makes, inline where they are hot: its addresses'
 * ids (interned on first sight, the two pairs looked up last answered at once), its stream in the
 * stream map (by key, or by the addresses' bytes before they are looked up), the host pair's newest
 * request stream, and the clock of last use that orders streams for eviction. */
#ifndef ROCE_STREAM_LOOKUP_H
#define ROCE_STREAM_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyzer_state.h"
#include "idxmap.h"
#include "stream_hash.h"

/* The address map's key (addr_index). An IPv4 address is its own key, with bit 32 set: exact, so
 * a key found is the address (no compare with the stored bytes, which at many hosts is a cache
 * miss of its own). An IPv6 address (or GID) is a hash of its two 8-byte halves with bit 63 set,
 * so that it never meets an IPv4 key; its stored bytes are compared, and a collision moves on to
 * the next key. Both cost a few instructions an address, where a byte-wise hash costs tens. */
#define ADDR_KEY_V4 (UINT64_C(1) << 32)
#define ADDR_KEY_V6 (UINT64_C(1) << 63)

static inline uint64_t addr_key(const uint8_t *addr, unsigned len)
{
	if (len == 4)
		return ADDR_KEY_V4 | ld_ne32(addr);
	uint64_t lo = ld_ne64(addr), hi = ld_ne64(addr + 8);
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
