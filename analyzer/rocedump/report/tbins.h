/* tbins.h: a bounded series of time bins that widens as time goes on, for the --report plots.
 *
 * TBINS_N bins of equal width cover [t0, t0 + TBINS_N * width). A time past the last bin halves
 * the resolution: bins 2i and 2i+1 merge into bin i (the caller's merge function adds their
 * counts, takes min/max) and the width doubles, as often as needed. A time before t0 (time
 * stamps that step back) moves t0 back by whole bins, the bins shifting up, halving the
 * resolution first while they would not fit. Memory is fixed whatever the length of the
 * capture; times spanning S end in at most TBINS_N bins of width below 2 * S / TBINS_N (or the
 * first width, 1 µs).
 *
 * Times must lie within ±2^62 ns (report_data.h: report_ts() holds them there): t0 then never
 * leaves the int64 range and the distance of two times fits in one. */
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

/* Bins 2i and 2i+1 into bin i, the width doubled. */
static inline void tbins_halve(struct tbins *tb, void *bins, size_t elem, tbins_merge_fn merge)
{
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

/* t0 moved back by whole bins to t or before (t < t0): the bins shift up by as many. */
static inline void tbins_extend_back(struct tbins *tb, void *bins, size_t elem, tbins_merge_fn merge, int64_t t)
{
	for (;;) {
		uint64_t back = (uint64_t)tb->t0 - (uint64_t)t, w = (uint64_t)tb->width;
		uint64_t k = back / w + (back % w != 0);
		if (k <= TBINS_N - tb->used) {
			char *b = bins;
			memmove(b + k * elem, b, tb->used * elem);
			memset(b, 0, k * elem);
			tb->t0 = (int64_t)((uint64_t)tb->t0 - k * w);
			tb->used += (unsigned)k;
			return;
		}
		tbins_halve(tb, bins, elem, merge);
	}
}

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
		tbins_extend_back(tb, bins, elem, merge, t);
	uint64_t off = (uint64_t)t - (uint64_t)tb->t0;
	while (off / (uint64_t)tb->width >= TBINS_N)
		tbins_halve(tb, bins, elem, merge);
	unsigned i = (unsigned)(off / (uint64_t)tb->width);
	if (i + 1 > tb->used)
		tb->used = i + 1;
	return i;
}

#endif
