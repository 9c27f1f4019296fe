/* tbins.h: a bounded series of time bins that widens as time goes on, for the --report plots.
 *
 * TBINS_N bins of equal width cover [t0, t0 + TBINS_N * width). A time past the last bin halves
 * the resolution: bins 2i and 2i+1 merge into bin i (the caller's merge function adds their
 * counts, takes min/max) and the width doubles, as often as needed. Memory is fixed whatever
 * the length of the capture; a capture of span S ends with bins of width below 2 * S / TBINS_N.
 * A time before t0 (time stamps that step back) counts in the first bin. */
#ifndef ROCEDUMP_TBINS_H
#define ROCEDUMP_TBINS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TBINS_N 256
#define TBINS_WIDTH0 1000  /* ns: the first width, 1 µs */

struct tbins {
	int64_t t0;        /* the first bin's start (ns since 1970) */
	int64_t width;     /* ns */
	unsigned used;     /* bins up to the last one written, 0 before the first time */
};

/* merge: dst += src (both of the caller's bin type). */
typedef void (*tbins_merge_fn)(void *dst, const void *src);

/* The index of t's bin in bins[TBINS_N] of elem bytes each, merging them as needed. */
static inline unsigned tbins_index(struct tbins *tb, void *bins, size_t elem, tbins_merge_fn merge, int64_t t)
{
	if (!tb->used) {
		tb->t0 = t;
		tb->width = TBINS_WIDTH0;
		tb->used = 1;
		return 0;
	}
	if (t < tb->t0)
		return 0;
	uint64_t off = (uint64_t)t - (uint64_t)tb->t0;
	while (off / (uint64_t)tb->width >= TBINS_N) {
		char *b = bins;
		for (size_t i = 0; i < TBINS_N / 2; i++) {
			if (i)
				memcpy(b + i * elem, b + 2 * i * elem, elem);
			merge(b + i * elem, b + (2 * i + 1) * elem);
		}
		memset(b + TBINS_N / 2 * elem, 0, TBINS_N / 2 * elem);
		tb->width *= 2;
		tb->used = (tb->used + 1) / 2;
	}
	unsigned i = (unsigned)(off / (uint64_t)tb->width);
	if (i + 1 > tb->used)
		tb->used = i + 1;
	return i;
}

#endif
