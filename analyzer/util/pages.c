/* pages.c: memory for large tables in pages of their own (see pages.h). */
#define _GNU_SOURCE  /* mremap */
#include "pages.h"

#include <sys/mman.h>

void *pages_grow(void *old, size_t old_bytes, size_t bytes)
{
	void *p;
	if (old)
		p = mremap(old, old_bytes, bytes, MREMAP_MAYMOVE);
	else  /* an anonymous mapping takes fd -1 (mmap(2)), which cppcheck's posix library refuses */
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);  // cppcheck-suppress invalidFunctionArg
	if (p == MAP_FAILED)
		return NULL;
	/* advice only: where THP is off (or "never"), small pages, and nothing else changes. Huge
	 * pages spare TLB misses on the large tables of 100 k streams and more. */
	(void)madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

void *pages_alloc(size_t bytes)
{
	return pages_grow(NULL, 0, bytes);
}

void *pages_table(uint32_t hint, uint32_t max_slots, size_t slot_bytes, uint32_t *mask)
{
	uint32_t n = 16;
	while (n < hint && n < max_slots)
		n <<= 1;
	void *p = pages_alloc((size_t)n * slot_bytes);
	if (p)
		*mask = n - 1;
	return p;
}

void pages_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}
