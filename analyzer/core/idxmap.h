/* idxmap.h: an open-addressing index from 64-bit keys to records that hold their key (internal):
 * the analyzer's stream table (key → stream) and host-pair chains (pair → newest request stream).
 *
 * A slot is 8 bytes: the key's 32-bit hash and the record's index. The key itself is not
 * stored: a slot whose hash matches is checked against the record, which the caller reads next
 * anyway (a stream's core). So the index takes 8 bytes a slot where a key-and-value map took 12,
 * a cache line holds 8 slots, and the look-ahead (prefetch.c) can guess a record from its hash
 * alone, without loading the record to compare keys. Linear probing from hash & mask, growth by
 * doubling at 70 % load (the stored hashes place the slots again: no record is read), and
 * backward-shift deletion (no tombstones). */
#ifndef ROCE_IDXMAP_H
#define ROCE_IDXMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "u64map.h"

struct idxmap_slot {
	uint32_t hash;     /* idxmap_hash() of the record's key */
	uint32_t val;      /* the record's index + 1; 0 marks an empty slot */
};

struct idxmap {
	struct idxmap_slot *slots;
	uint32_t mask;     /* capacity - 1 (capacity is a power of two) */
	uint32_t count;
};

/* Returns 0, or -1 when out of memory. */
int idxmap_init(struct idxmap *m, uint32_t capacity_hint);
void idxmap_free(struct idxmap *m);

/* A key's hash, u64map's (the murmur3 finaliser): its home slot is hash & mask. */
static inline uint32_t idxmap_hash(uint64_t key)
{
	return u64map_hash(key);
}

/* The next slot from i on (i included) whose hash is h, or the empty slot that ends the run (its
 * val is 0). A caller checks the record a match names and, if it holds another key (two keys
 * with one hash), goes on from the slot after it. */
static inline uint32_t idxmap_next(const struct idxmap *m, uint32_t h, uint32_t i)
{
	while (m->slots[i].val && m->slots[i].hash != h)
		i = (i + 1) & m->mask;
	return i;
}

/* Make room for one more slot (growing the map); -1 when out of memory. Slot numbers found
 * before it may change. */
int idxmap_reserve(struct idxmap *m);
/* Fill the empty slot i (idxmap_next() found it, with room reserved since) with hash h and
 * index val. */
static inline void idxmap_fill(struct idxmap *m, uint32_t i, uint32_t h, uint32_t val)
{
	m->slots[i] = (struct idxmap_slot){h, val + 1};
	m->count++;
}
/* Add hash h → index val (its key is known to be absent); -1 when out of memory. */
int idxmap_add(struct idxmap *m, uint32_t h, uint32_t val);
/* Empty slot i, pulling the rest of its run back into the hole. */
void idxmap_del_at(struct idxmap *m, uint32_t i);

#endif
