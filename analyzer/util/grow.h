/* grow.h: arrays that grow by doubling, for the tables of addresses, host pairs, pause
 * sources and the report's streams: one place that computes the new capacity without overflow
 * and keeps the array as it was when memory runs out. */
#ifndef ROCE_GROW_H
#define ROCE_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The capacity after cap: twice it, first (at least 1) when it is 0, and never more than max;
 * cap itself when it is max already (full). */
static inline uint32_t grow_capacity(uint32_t cap, uint32_t first, uint32_t max)
{
	uint32_t n = !cap ? (first ? first : 1) : cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
	return n > max ? (cap < max ? max : cap) : n;
}

/* items, an array of *cap items of item_size bytes, reallocated to grow_capacity(*cap, first,
 * max) items, *cap set to that; NULL when it is full (*cap is max) or out of memory, and then
 * items and *cap are as they were. */
static inline void *grow_array(void *items, uint32_t *cap, size_t item_size, uint32_t first, uint32_t max)
{
	uint32_t n = grow_capacity(*cap, first, max);
	if (n == *cap || (size_t)n > SIZE_MAX / item_size)
		return NULL;
	void *p = realloc(items, (size_t)n * item_size);
	if (p)
		*cap = n;
	return p;
}

#endif
