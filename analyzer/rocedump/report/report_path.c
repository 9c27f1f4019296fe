/* report_path.c: rocedump --report's per-hop series (report_data.h): each packet's share of a path
 * hop as the path analysis folds it (roce_analyzer_on_path_sample, include/roce/path.h), binned in
 * the event timeline's bins (the same t0 and width at the end), per hop from -> to totalled over
 * streams: packets seen at both ends, packets lost between them, and the delays' min, max and a
 * log-linear histogram for the quantiles (bounded: no delay is kept). At the end each hop's delays
 * get the rest of its clock offset taken off, as the path table's (analyzer/core/path.c). */
#include "report/report_data.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Delays are binned as their distance from the hop's first delay (its anchor), so that a large
 * clock offset left in the raw delays costs no precision: below 8 ns exactly, then 8 buckets per
 * octave (within 6.25 % of the distance from the anchor), up to 2^40 ns; by sign. */
#define HOP_SUB 8u
#define HOP_OCTAVES 38u                               /* 2^3 to 2^40 ns */
#define HOP_SIDE (HOP_SUB + HOP_OCTAVES * HOP_SUB)    /* buckets per sign */
#define HOP_BUCKETS ((size_t)2 * HOP_SIDE)
#define HOP_FAR ((INT64_C(1) << 40) - 1)

struct hbin {
	uint32_t n, lost;
	int64_t mn, mx;           /* raw delays (n > 0) */
	uint32_t *hist;           /* HOP_BUCKETS, NULL: none yet (or the budget had no room) */
};

struct rhop {
	uint32_t from, to;
	int64_t anchor;           /* the hop's first raw delay */
	bool anchored;
	struct hbin bins[TBINS_N];
};

/* The bucket of v (a distance from the anchor), in the order of the values. */
static unsigned bucket_of(int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)-(v < -HOP_FAR ? -HOP_FAR : v) : (uint64_t)(v > HOP_FAR ? HOP_FAR : v);
	unsigned k = (unsigned)u;
	if (u >= HOP_SUB) {
		unsigned e = 63u - (unsigned)__builtin_clzll(u);  /* 3 .. 39 */
		k = (e - 2) * HOP_SUB + (unsigned)((u >> (e - 3)) & (HOP_SUB - 1));
	}
	return v < 0 ? HOP_SIDE - 1 - k : HOP_SIDE + k;
}

/* The middle of bucket b's values. */
static int64_t bucket_mid(unsigned b)
{
	bool neg = b < HOP_SIDE;
	unsigned k = neg ? HOP_SIDE - 1 - b : b - HOP_SIDE;
	int64_t mid = k;
	if (k >= HOP_SUB) {
		unsigned e = k / HOP_SUB + 2, m = k % HOP_SUB;
		mid = (int64_t)((uint64_t)(HOP_SUB + m) << (e - 3)) + (INT64_C(1) << (e - 3)) / 2;
	}
	return neg ? -mid : mid;
}

/* a += b, b emptied; the bytes of histogram freed. */
static size_t hbin_merge(struct hbin *a, struct hbin *b)
{
	size_t freed = 0;
	if (b->n) {
		a->mn = a->n && a->mn < b->mn ? a->mn : b->mn;
		a->mx = a->n && a->mx > b->mx ? a->mx : b->mx;
	}
	a->n += b->n;
	a->lost += b->lost;
	if (b->hist && !a->hist) {
		a->hist = b->hist;
	} else if (b->hist) {
		for (size_t k = 0; k < HOP_BUCKETS; k++)
			a->hist[k] += b->hist[k];
		free(b->hist);
		freed = HOP_BUCKETS * sizeof(*b->hist);
	}
	*b = (struct hbin){0};
	return freed;
}

/* The timeline's bins moved on (halved, or shifted back) since the hops' bins were last written:
 * each old bin goes into the new bin holding its start, as the timeline's own did. */
static void hops_follow(struct report *r)
{
	struct report_hops *hp = &r->hops;
	if (hp->t0 == r->tl.t0 && hp->width == r->tl.width)
		return;
	for (uint32_t h = 0; h < hp->n; h++) {
		struct hbin *b = hp->hop[h]->bins, moved[TBINS_N] = {{0}};
		for (unsigned i = 0; i < TBINS_N; i++) {
			uint64_t start = (uint64_t)hp->t0 + (uint64_t)i * (uint64_t)hp->width - (uint64_t)r->tl.t0;
			uint64_t j = start / (uint64_t)r->tl.width;
			if ((b[i].n || b[i].lost) && j < TBINS_N)
				r->mem -= hbin_merge(&moved[j], &b[i]);
		}
		memcpy(b, moved, sizeof(moved));
	}
	hp->t0 = r->tl.t0;
	hp->width = r->tl.width;
}

/* The hop's series, made if new and there is room (REPORT_HOPS_MAX, the budget). */
static struct rhop *hop_of(struct report *r, uint32_t from, uint32_t to)
{
	struct report_hops *hp = &r->hops;
	for (uint32_t h = 0; h < hp->n; h++)
		if (hp->hop[h]->from == from && hp->hop[h]->to == to)
			return hp->hop[h];
	if (hp->n == REPORT_HOPS_MAX || !report_budget_take(r, sizeof(struct rhop)))
		return NULL;
	struct rhop *x = calloc(1, sizeof(*x));
	if (!x) {
		r->mem -= sizeof(struct rhop);
		return NULL;
	}
	x->from = from;
	x->to = to;
	hp->hop[hp->n++] = x;
	return x;
}

void report_path_sample(void *user, const struct roce_path_sample *s)
{
	struct report *r = user;
	struct rhop *x = hop_of(r, s->from, s->to);
	if (!x) {
		r->hops.left_out++;
		return;
	}
	unsigned i = report_tl_index(r, report_ts(s->t_ns));
	hops_follow(r);
	struct hbin *b = &x->bins[i];
	if (s->lost) {
		b->lost++;
		return;
	}
	int64_t d = s->raw_delay_ns;
	if (!x->anchored) {
		x->anchor = d;
		x->anchored = true;
	}
	b->mn = b->n && b->mn < d ? b->mn : d;
	b->mx = b->n && b->mx > d ? b->mx : d;
	b->n++;
	if (!b->hist && report_budget_take(r, HOP_BUCKETS * sizeof(*b->hist)) &&
	    !(b->hist = calloc(HOP_BUCKETS, sizeof(*b->hist))))
		r->mem -= HOP_BUCKETS * sizeof(*b->hist);
	if (b->hist)
		b->hist[bucket_of((int64_t)((uint64_t)d - (uint64_t)x->anchor))]++;
}

void report_path_free(struct report *r)
{
	for (uint32_t h = 0; h < r->hops.n; h++) {
		for (unsigned i = 0; i < TBINS_N; i++)
			free(r->hops.hop[h]->bins[i].hist);
		free(r->hops.hop[h]);
	}
	r->hops.n = 0;
}

/* ---- the JSON ---- */

/* The k-th smallest raw delay of the bin (k < n), from its histogram: its bucket's middle, held
 * within the bin's min and max. */
static int64_t bin_rank(const struct hbin *b, int64_t anchor, uint32_t k)
{
	uint64_t seen = 0;
	unsigned q = 0;
	while (q + 1 < HOP_BUCKETS && seen + b->hist[q] <= k)
		seen += b->hist[q++];
	int64_t v = (int64_t)((uint64_t)anchor + (uint64_t)bucket_mid(q));
	return v < b->mn ? b->mn : v > b->mx ? b->mx : v;
}

/* A delay as the path table gives it: less the rest of the hop's offset, 0 when negative. */
static int64_t delay_of(int64_t raw, int64_t left)
{
	int64_t d = (int64_t)((uint64_t)raw - (uint64_t)left);
	return d < 0 ? 0 : d;
}

enum hop_col { HC_N, HC_LOST, HC_MIN, HC_P50, HC_P99, HC_MAX };

static void put_col(FILE *out, const struct rhop *x, unsigned n, enum hop_col c, int64_t left)
{
	static const char *const name[] = {"n", "lost", "min", "p50", "p99", "max"};
	fprintf(out, ",\"%s\":[", name[c]);
	for (unsigned i = 0; i < n; i++) {
		const struct hbin *b = &x->bins[i];
		fputs(i ? "," : "", out);
		if (c == HC_N || c == HC_LOST) {
			fprintf(out, "%" PRIu32, c == HC_N ? b->n : b->lost);
			continue;
		}
		bool rank = c == HC_P50 || c == HC_P99;
		if (!b->n || (rank && !b->hist)) {
			fputs("null", out);
			continue;
		}
		/* nearest rank, as the path table's quantiles */
		uint32_t k = c == HC_P50 ? (b->n - 1) / 2 : (uint32_t)(((uint64_t)b->n * 99 + 99) / 100) - 1;
		int64_t raw = c == HC_MIN ? b->mn : c == HC_MAX ? b->mx : bin_rank(b, x->anchor, k);
		fprintf(out, "%" PRId64, delay_of(raw, left));
	}
	fputc(']', out);
}

/* The total hop of the path results with x's ends; NULL if none. */
static const struct roce_path_hop *total_of(const struct roce_path *p, const struct rhop *x)
{
	for (uint32_t h = 0; p && h < p->n_hops; h++)
		if (p->hops[h].from == x->from && p->hops[h].to == x->to)
			return &p->hops[h];
	return NULL;
}

void report_path_put(FILE *out, struct report *r, const struct roce_path *p)
{
	if (!p || !p->n_hops || !r->hops.n)
		return;
	hops_follow(r);
	unsigned n = r->tl.used;
	fprintf(out, ",\"hops\":{\"n\":%u,\"max_hops\":%u,\"left_out\":%" PRIu64 ",\"list\":[", n,
		(unsigned)REPORT_HOPS_MAX, r->hops.left_out);
	const char *sep = "";
	for (uint32_t h = 0; h < r->hops.n; h++) {
		const struct rhop *x = r->hops.hop[h];
		const struct roce_path_hop *t = total_of(p, x);
		if (!t)
			continue;
		const struct roce_path_point *pf = &p->points[x->from], *pt = &p->points[x->to];
		int64_t left = t->offset_ns - (pt->offset_ns - pf->offset_ns);
		fprintf(out, "%s{\"from\":%" PRIu32 ",\"to\":%" PRIu32, sep, x->from, x->to);
		for (enum hop_col c = HC_N; c <= HC_MAX; c++)
			put_col(out, x, n, c, left);
		fputc('}', out);
		sep = ",";
	}
	fputs("]}", out);
}
