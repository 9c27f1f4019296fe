/* prefault.c: roce_analyzer_prefault() (analyze.h): the memory the analysis is about to take,
 * faulted in from another thread. A new stream takes a core (64 bytes), its ids (16) and, for a
 * requester, a requester block (192), each at the end of an array that grows by doubling in
 * pages of its own (pages.h). The first write to each page faults, and the kernel zeroes it (2 MiB
 * at a time with huge pages); in a virtual machine the host may have to back the page first. At
 * a million streams that is a large share of the analysing thread's time. Populating the pages just past each array's use from another thread
 * (madvise MADV_POPULATE_WRITE, Linux 5.14) takes it off the analysing thread; what the analysis
 * finds there is the same zeroes either way.
 *
 * The analysing thread publishes each array's mapping and use (struct prefault_area, relaxed
 * atomics); this reads them, and may read a mapping that has just moved (mremap). Populating a
 * page changes no byte in it, in whatever mapping it lies, so a stale or torn view costs at most
 * pages populated for nothing, or an ENOMEM for an address no longer mapped. */
#define _GNU_SOURCE  /* MADV_POPULATE_WRITE */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stream_table.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14; older kernels refuse it (EINVAL) */
#endif

#define PF_PAGE ((size_t)2 << 20)          /* a huge page, populated whole */
#define PF_LEAD_MAX (2 * PF_PAGE)          /* how far past its use an array is populated */
#define PF_LEAD_SHARE 8u                   /* ... at most an eighth of its use: the pages populated
					    * for nothing at the end stay a small part of the RSS */

bool roce_analyzer_prefault(struct roce_analyzer *a)
{
	bool populated = false;
	for (unsigned k = 0; k < PF_AREAS && !a->pf_unsupported; k++) {
		struct prefault_area *pf = &a->pf[k];
		struct prefault_done *done = &a->pf_done[k];
		uint8_t *base = atomic_load_explicit(&pf->base, memory_order_relaxed);
		size_t size = atomic_load_explicit(&pf->size, memory_order_relaxed);
		size_t used = atomic_load_explicit(&pf->used, memory_order_relaxed);
		size_t lead = used / PF_LEAD_SHARE;
		if (!base || used >= size || lead < PF_PAGE)
			continue;  /* nothing mapped past its use, or too little in use to be worth it */
		if (lead > PF_LEAD_MAX)
			lead = PF_LEAD_MAX;
		size_t from = used & ~(PF_PAGE - 1), to = size - used < lead ? size : used + lead;
		if (done->base != base)
			*done = (struct prefault_done){base, 0};  /* grown elsewhere: populated nothing there */
		if (from < done->upto)
			from = done->upto;
		if (to <= from)
			continue;
		if (madvise(base + from, to - from, MADV_POPULATE_WRITE) == 0) {
			size_t page = (size_t)sysconf(_SC_PAGESIZE);  /* 4 KiB here; 16 or 64 KiB on some arm64 */
			done->upto = (to + page - 1) & ~(page - 1);  /* whole pages: the next from stays aligned */
			populated = true;
		} else if (errno == EINVAL) {
			a->pf_unsupported = true;  /* a kernel before 5.14: the analysing thread faults */
		}
	}
	return populated;
}
