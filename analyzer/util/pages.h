/* pages.h: memory for large tables (the analyzer's streams, its maps), in pages of their own
 * rather than from malloc: page-aligned, so that a 64-byte stream core is one cache line, not two;
 * grown by mremap, which moves pages instead of copying them; and backed by transparent huge pages
 * where the system allows (madvise, the default setting of most distributions), so that looking
 * streams up in random order over hundreds of megabytes does not also miss the TLB on nearly every
 * access. */
#ifndef ROCE_PAGES_H
#define ROCE_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* bytes of zeroed memory, or NULL when out of memory. */
void *pages_alloc(size_t bytes);
/* old (old_bytes, NULL for none) grown to bytes, its contents kept and the rest zeroed; NULL when
 * out of memory (old stays). */
void *pages_grow(void *old, size_t old_bytes, size_t bytes);
void pages_free(void *p, size_t bytes);
/* A zeroed hash table of slot_bytes-sized slots, their number a power of two, at least hint (and
 * 16), at most max_slots (a power of two): *mask receives their number - 1. NULL when out of memory. */
void *pages_table(uint32_t hint, uint32_t max_slots, size_t slot_bytes, uint32_t *mask);

#endif
