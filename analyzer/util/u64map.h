/* u64map.h: an open-addressing hash map from 64-bit keys to 32-bit values: linear
 * probing, backward-shift deletion (no tombstones), O(1) expected per operation, grows by
 * doubling at 70 % load. Used for the analyzer's address, stream and address-pair tables. */
#ifndef ROCE_U64MAP_H
#define ROCE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A key and its value side by side, 12 bytes (packed: the map's memory stays what separate key
 * and value arrays took): a lookup touches one cache line, two for the one slot in six that
 * straddles a line boundary (with separate arrays, always two; the map's lookups were a quarter
 * of the time at 100 k QPs). */
struct __attribute__((packed)) u64map_slot {
	uint64_t key;
	uint32_t val;      /* value + 1; 0 marks an empty slot */
};
_Static_assert(sizeof(struct u64map_slot) == 12, "12-byte slots");

struct u64map {
	struct u64map_slot *slots;
	uint32_t mask;     /* capacity - 1 (capacity is a power of two) */
	uint32_t count;
};

/* Returns 0, or -1 when out of memory. */
int u64map_init(struct u64map *m, uint32_t capacity_hint);
void u64map_free(struct u64map *m);
/* A key's 32-bit hash (the murmur3 finaliser's low half); the stream index (idxmap.h) uses it too. */
static inline uint32_t u64map_hash(uint64_t key)
{
	key ^= key >> 33;
	key *= UINT64_C(0xff51afd7ed558ccd);
	key ^= key >> 33;
	key *= UINT64_C(0xc4ceb9fe1a85ec53);
	key ^= key >> 33;
	return (uint32_t)key;
}

static inline uint32_t u64map_slot_of(const struct u64map *m, uint64_t key)
{
	return u64map_hash(key) & m->mask;
}

/* The slot holding key, or the empty slot that ends its probe run (where it would go), searched
 * from slot i (u64map_slot_of(m, key), unless the caller has it already). */
static inline uint32_t u64map_probe_from(const struct u64map *m, uint64_t key, uint32_t i)
{
	while (m->slots[i].val && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}
static inline uint32_t u64map_probe(const struct u64map *m, uint64_t key)
{
	return u64map_probe_from(m, key, u64map_slot_of(m, key));
}

/* The value for key, or false. Inline: it runs for every frame the analyzer sees. */
static inline bool u64map_get(const struct u64map *m, uint64_t key, uint32_t *val)
{
	const struct u64map_slot *e = &m->slots[u64map_probe(m, key)];
	if (!e->val)
		return false;
	*val = e->val - 1;
	return true;
}
/* Insert or replace; val must be below UINT32_MAX. Returns 0, or -1 when out of memory (the map
 * is unchanged then). */
int u64map_put(struct u64map *m, uint64_t key, uint32_t val);
void u64map_del(struct u64map *m, uint64_t key);

/* A table whose rows are found by key through a u64map: n rows of size bytes in an array that
 * grows by doubling (grow.h: the first capacity first, never more than max rows). */
struct u64map_rows {
	void *items_ptr;   /* the address of the table's array pointer (a struct row **) */
	uint32_t *cap;     /* the number of rows allocated */
	uint32_t n;        /* the number of rows in use */
	size_t size;
	uint32_t first, max;
};
/* Append a row for key, which m does not hold: the array grown when it is full, key mapped to row
 * n. Returns n (the caller fills that row and counts it), or UINT32_MAX when the table holds max
 * rows already or memory runs out (the array may have moved, key is not added). */
uint32_t u64map_append(struct u64map *m, uint64_t key, const struct u64map_rows *t);
/* The row of key, found, or else appended (*added set; u64map_append()). */
static inline uint32_t u64map_get_or_append(struct u64map *m, uint64_t key, const struct u64map_rows *t,
					     bool *added)
{
	uint32_t i;
	*added = !u64map_get(m, key, &i);
	return *added ? u64map_append(m, key, t) : i;
}

#endif
