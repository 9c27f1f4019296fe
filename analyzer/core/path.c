/* path.c: path analysis across capture points (see path.h and roce/path.h): the sightings of each
 * packet folded into its stream's statistics as the sightings table forgets it, and at the end each
 * stream's path, its hops' losses, delays and the points' clock offsets. */
#include "path.h"

#include <stdlib.h>
#include <string.h>

int path_init(struct path_state *st)
{
	memset(st, 0, sizeof(*st));
	st->rng = UINT64_C(0x9e3779b97f4a7c15);
	return u64map_init(&st->index, 64);
}

static void results_free(struct path_state *st)
{
	free(st->r_points);
	free(st->r_streams);
	free(st->r_hops);
	free(st->r_totals);
	st->r_points = NULL;
	st->r_streams = NULL;
	st->r_hops = st->r_totals = NULL;
}

void path_free(struct path_state *st)
{
	for (uint32_t k = 0; k < st->n; k++) {
		for (unsigned q = 0; q < st->s[k].n_pairs; q++)
			free(st->s[k].pairs[q].d);
		free(st->s[k].pairs);
		free(st->s[k].pat);
		free(st->s[k].pend);
	}
	free(st->s);
	u64map_free(&st->index);
	results_free(st);
	st->s = NULL;
	st->n = st->alloc = 0;
}

int64_t path_point_new(struct path_state *st, uint32_t i, const struct roce_pkt *p, const uint8_t *frame)
{
	if (i >= COPY_POINTS_MAX)
		return 0;
	struct roce_path_point *pt = &st->points[i];
	*pt = (struct roce_path_point){.capture_if = p->capture_if, .sll_ifindex = p->sll_ifindex,
				       .offset_uncertainty_ns = -1};
	pt->mirrored = roce_mirror_point_of(p, frame, &pt->mirror);
	if (pt->mirrored && p->wrap.kind == ROCE_WRAP_ERSPAN3)
		pt->direction = p->wrap.direction;
	if (i >= st->n_points)
		st->n_points = i + 1;
	int64_t off, unc;
	uint8_t src;
	if (st->offset_fn && st->offset_fn(st->offset_user, i, pt, &off, &unc, &src) && src != ROCE_OFFSET_NONE) {
		pt->offset_ns = off;
		pt->offset_uncertainty_ns = unc;
		pt->offset_source = src;
	}
	return pt->offset_ns;
}

/* ---- folding ---- */

/* Grows *p (of *alloc elements of size sz) to hold one more than n; false when out of memory. */
static bool room(void **p, uint8_t *alloc, unsigned n, size_t sz)
{
	if (n < *alloc)
		return true;
	unsigned k = *alloc ? 2u * *alloc : 2u;
	k = k > 255 ? 255 : k;
	if (k <= n)
		return false;
	void *m = realloc(*p, k * sz);
	if (!m)
		return false;
	*p = m;
	*alloc = (uint8_t)k;
	return true;
}

static struct path_stream *stream_of(struct path_state *st, uint32_t id)
{
	const struct u64map_rows rows = {&st->s, &st->alloc, st->n, sizeof(*st->s), 64, UINT32_MAX};
	bool added;
	uint32_t k = u64map_get_or_append(&st->index, id, &rows, &added);
	if (k == UINT32_MAX)
		return NULL;
	if (added)
		st->s[st->n++] = (struct path_stream){.stream = id};
	return &st->s[k];
}

/* The stream's slot for the table's point, made if new; -1 past ROCE_PATH_POINTS. */
static int slot_of(struct path_stream *s, uint32_t point)
{
	for (unsigned k = 0; k < s->n_slots; k++)
		if (s->point[k] == point)
			return (int)k;
	if (s->n_slots == ROCE_PATH_POINTS)
		return -1;
	s->point[s->n_slots] = (uint16_t)point;
	return s->n_slots++;
}

static void pattern_add(struct path_state *st, struct path_stream *s, uint8_t mask)
{
	for (unsigned k = 0; k < s->n_pat; k++)
		if (s->pat[k].mask == mask) {
			s->pat[k].count++;
			return;
		}
	if (!room((void **)&s->pat, &s->pat_alloc, s->n_pat, sizeof(*s->pat))) {
		st->oom = true;
		return;
	}
	s->pat[s->n_pat++] = (struct path_pattern){mask, 1};
}

static struct path_pair *pair_of(struct path_state *st, struct path_stream *s, uint8_t i, uint8_t j)
{
	for (unsigned k = 0; k < s->n_pairs; k++)
		if (s->pairs[k].i == i && s->pairs[k].j == j)
			return &s->pairs[k];
	if (!room((void **)&s->pairs, &s->pairs_alloc, s->n_pairs, sizeof(*s->pairs))) {
		st->oom = true;
		return NULL;
	}
	struct path_pair *q = &s->pairs[s->n_pairs++];
	*q = (struct path_pair){.i = i, .j = j, .dmin = INT64_MAX, .dmax = INT64_MIN};
	return q;
}

/* One more delay into q's samples: kept while there is room, then a uniform sample
 * (reservoir sampling). */
static void sample_add(struct path_state *st, struct path_pair *q, int64_t d)
{
	q->total++;
	if (q->n < ROCE_PATH_SAMPLES) {
		if (q->n == q->alloc) {
			uint32_t n = q->alloc ? 2 * q->alloc : 16;
			int64_t *m = realloc(q->d, n * sizeof(*m));
			if (!m) {
				st->oom = true;
				return;
			}
			q->d = m;
			q->alloc = n;
		}
		q->d[q->n++] = d;
		return;
	}
	st->rng ^= st->rng << 13;
	st->rng ^= st->rng >> 7;
	st->rng ^= st->rng << 17;
	uint64_t r = st->rng % q->total;
	if (r < ROCE_PATH_SAMPLES)
		q->d[r] = d;
}

static void pair_add(struct path_state *st, struct path_pair *q, int64_t ti, int64_t tj)
{
	int64_t d = tj - ti;
	q->both++;
	q->i_first += ti <= tj;
	q->dmin = d < q->dmin ? d : q->dmin;
	q->dmax = d > q->dmax ? d : q->dmax;
	if (q->both > 1 && ((ti < q->prev_i && tj > q->prev_j) || (ti > q->prev_i && tj < q->prev_j)))
		q->inversions++;
	q->prev_i = ti;
	q->prev_j = tj;
	sample_add(st, q, d);
}

static unsigned stream_path(const struct path_stream *s, uint8_t *slots);

/* A packet folded while its stream had one point (slot 0), at t: kept for sample_pending. */
static void pend_add(struct path_state *st, struct path_stream *s, int64_t t)
{
	if (s->n_pend < PATH_PENDING && !s->pend && !(s->pend = malloc(PATH_PENDING * sizeof(*s->pend))))
		st->oom = true;
	if (s->pend && s->n_pend < PATH_PENDING)
		s->pend[s->n_pend++] = t;
	else if (s->pend)
		s->pend_more++;
}

/* The packets folded while the stream had one point: lost on the hop from it, now that the path
 * has one (none when the point is the path's last). */
static void sample_pending(struct path_state *st, struct path_stream *s, const uint8_t *path, unsigned n)
{
	unsigned h = 0;
	while (h + 1 < n && path[h] != 0)
		h++;
	for (uint32_t k = 0; h + 1 < n && k < s->n_pend + s->pend_more; k++) {
		struct roce_path_sample x = {.stream = s->stream, .from = s->point[0], .to = s->point[path[h + 1]],
					     .t_ns = s->pend[k < s->n_pend ? k : s->n_pend - 1], .lost = true};
		st->sample_fn(st->sample_user, &x);
	}
	free(s->pend);
	s->pend = NULL;
	s->n_pend = s->pend_more = 0;
}

/* The slots of a path of n beyond hop h's end (path[h + 1]), as a mask. */
static uint8_t slots_after(const uint8_t *path, unsigned n, unsigned h)
{
	uint8_t after = 0;
	for (unsigned k = h + 2; k < n; k++)
		after |= (uint8_t)(1u << path[k]);
	return after;
}

/* What became of a packet seen at the slots of mask on the hop from slot a to slot b: not seen at
 * a; seen at both; lost on the hop; or missed by b's mirror only (seen at a slot after b). */
enum hop_outcome { HOP_NOT_FROM, HOP_SEEN, HOP_LOST, HOP_MIRROR_LOST };

static enum hop_outcome hop_outcome(uint8_t mask, unsigned a, unsigned b, uint8_t after)
{
	if (!(mask >> a & 1))
		return HOP_NOT_FROM;
	if (mask >> b & 1)
		return HOP_SEEN;
	return mask & after ? HOP_MIRROR_LOST : HOP_LOST;
}

/* The packet's share of each hop of its stream's path as known now (the sample function's): seen
 * at both ends (its delay), or lost after from (from the last point of the path that saw it). */
static void sample_hops(struct path_state *st, const struct sightings *t, struct path_stream *s,
			uint8_t mask, const int64_t *ts)
{
	uint8_t path[ROCE_PATH_POINTS];
	unsigned n = stream_path(s, path);
	if (s->pend)
		sample_pending(st, s, path, n);
	for (unsigned h = 0; h + 1 < n; h++) {
		unsigned a = path[h], b = path[h + 1];
		enum hop_outcome o = hop_outcome(mask, a, b, slots_after(path, n, h));
		if (o == HOP_NOT_FROM || o == HOP_MIRROR_LOST)
			continue;  /* not seen at from, or missed by to's mirror only */
		struct roce_path_sample x = {.stream = s->stream, .from = s->point[a], .to = s->point[b],
					     .t_ns = ts[a] + t->points[s->point[a]].offset, .lost = o == HOP_LOST};
		if (!x.lost)
			x.raw_delay_ns = ts[b] - ts[a];
		st->sample_fn(st->sample_user, &x);
	}
}

void path_fold(void *user, const struct sightings *t, const struct sight_entry *e)
{
	struct path_state *st = user;
	if (t->n_points < 2 || !e->stream)
		return;
	struct path_stream *s = stream_of(st, e->stream);
	if (!s) {
		st->oom = true;
		return;
	}
	int64_t ts[ROCE_PATH_POINTS];
	uint8_t mask = 0;
	for (unsigned k = 0; k < e->n; k++) {
		const struct sighting *x = sighting_at(e, k);
		int slot = slot_of(s, x->point);
		if (slot < 0 || (mask >> slot & 1))
			continue;
		mask |= (uint8_t)(1u << slot);
		ts[slot] = x->ts;
		st->points[x->point].packets++;
	}
	pattern_add(st, s, mask);
	if (mask != (uint8_t)((1u << s->n_slots) - 1))  /* a point of its stream missed it */
		st->missed[st->n_missed++ % PATH_MISSED_LOG] =
			(struct path_missed){.frame = e->s[0].frame, .stream = e->stream, .mask = mask};
	for (uint8_t i = 0; i < s->n_slots && (mask & (mask - 1)); i++)  /* two points or more */
		for (uint8_t j = i + 1; j < s->n_slots; j++) {
			if (!(mask >> i & 1) || !(mask >> j & 1))
				continue;
			struct path_pair *q = pair_of(st, s, i, j);
			if (q)
				pair_add(st, q, ts[i], ts[j]);
		}
	if (st->sample_fn && s->n_slots >= 2)
		sample_hops(st, t, s, mask, ts);
	else if (st->sample_fn && (mask & 1))
		pend_add(st, s, ts[0] + t->points[s->point[0]].offset);
}

/* ---- the end: paths, hops, offsets ---- */

/* The pair of slots a and b (either order), NULL if no packet was seen at both. */
static const struct path_pair *pair_find(const struct path_stream *s, unsigned a, unsigned b)
{
	unsigned i = a < b ? a : b, j = a < b ? b : a;
	for (unsigned k = 0; k < s->n_pairs; k++)
		if (s->pairs[k].i == i && s->pairs[k].j == j)
			return &s->pairs[k];
	return NULL;
}

/* Whether slot a sees the stream's packets before slot b, by a majority of the packets both saw. */
static bool sees_first(const struct path_stream *s, unsigned a, unsigned b)
{
	const struct path_pair *q = pair_find(s, a, b);
	if (!q)
		return false;
	uint64_t first = a < b ? q->i_first : q->both - q->i_first;
	return 2 * first > q->both;
}

/* The stream's path: its slots in the majority order (each by how many others it sees first),
 * ties by point number. Returns how many. */
static unsigned stream_path(const struct path_stream *s, uint8_t *slots)
{
	unsigned score[ROCE_PATH_POINTS] = {0}, n = s->n_slots;
	for (unsigned a = 0; a < n; a++) {
		slots[a] = (uint8_t)a;
		for (unsigned b = 0; b < n; b++)
			score[a] += a != b && sees_first(s, a, b);
	}
	for (unsigned a = 1; a < n; a++)  /* insertion sort: at most ROCE_PATH_POINTS */
		for (unsigned b = a; b > 0; b--) {
			uint8_t x = slots[b - 1], y = slots[b];
			if (score[x] > score[y] || (score[x] == score[y] && s->point[x] < s->point[y]))
				break;
			slots[b - 1] = y;
			slots[b] = x;
		}
	return n;
}

/* A hop's counts from the stream's patterns: path[h] to path[h + 1] of a path of n slots. */
static void hop_counts(const struct path_stream *s, const uint8_t *path, unsigned n, unsigned h,
		       struct roce_path_hop *r)
{
	unsigned a = path[h], b = path[h + 1];
	uint8_t after = slots_after(path, n, h);
	for (unsigned k = 0; k < s->n_pat; k++) {
		uint8_t m = s->pat[k].mask;
		uint64_t c = s->pat[k].count;
		if (m >> b & 1)
			r->seen_to += c;
		enum hop_outcome o = hop_outcome(m, a, b, after);
		if (o != HOP_NOT_FROM)
			r->seen_from += c;
		if (o == HOP_LOST)
			r->lost += c;
		else if (o == HOP_MIRROR_LOST)
			r->mirror_lost += c;
	}
	const struct path_pair *q = pair_find(s, a, b);
	if (q) {
		r->delays = q->both;
		r->reordered = q->inversions;
	}
}

/* The raw delays from slot a to slot b (to's time minus from's): the pair's samples, negated when
 * the pair runs the other way. */
static int64_t raw_min(const struct path_pair *q, bool fwd)
{
	return fwd ? q->dmin : -q->dmax;
}

/* The smallest raw delay of every (from, to) of the table's points seen as a hop. */
struct dir_min {
	struct u64map index;      /* from << 32 | to -> mins */
	int64_t *mins;
	uint32_t n, alloc;
};

static int dir_min_note(struct dir_min *dm, uint32_t from, uint32_t to, int64_t v)
{
	uint64_t key = (uint64_t)from << 32 | to;
	const struct u64map_rows rows = {&dm->mins, &dm->alloc, dm->n, sizeof(*dm->mins), 16, UINT32_MAX};
	bool added;
	uint32_t k = u64map_get_or_append(&dm->index, key, &rows, &added);
	if (k == UINT32_MAX)
		return -1;
	if (added)
		dm->mins[dm->n++] = v;
	else
		dm->mins[k] = v < dm->mins[k] ? v : dm->mins[k];
	return 0;
}

static bool dir_min_get(const struct dir_min *dm, uint32_t from, uint32_t to, int64_t *v)
{
	uint32_t k;
	if (!u64map_get(&dm->index, (uint64_t)from << 32 | to, &k))
		return false;
	*v = dm->mins[k];
	return true;
}

/* The offset of hop from -> to: given, estimated from the two directions' minima, or none. The
 * table's times already had the points' offsets taken off (path_point_new): *left is what remains
 * of the hop's offset in its delays. */
static void hop_offset(const struct path_state *st, const struct dir_min *dm, const int64_t *off, bool given,
		       struct roce_path_hop *r, int64_t *left)
{
	const struct roce_path_point *f = &st->points[r->from], *t = &st->points[r->to];
	int64_t applied = t->offset_ns - f->offset_ns, ab, ba;
	bool wide = f->offset_source == ROCE_OFFSET_WIDE && t->offset_source == ROCE_OFFSET_WIDE;
	*left = 0;
	r->offset_ns = applied;
	if (given) {
		r->offset_ns = off[r->to] - off[r->from];
		*left = r->offset_ns - applied;
		r->offset_uncertainty_ns = 0;
		r->offset_source = ROCE_OFFSET_GIVEN;
	} else if (dir_min_get(dm, r->from, r->to, &ab) && dir_min_get(dm, r->to, r->from, &ba)) {
		*left = (ab - ba) / 2;
		r->offset_ns = applied + *left;
		r->offset_uncertainty_ns = (ab + ba) / 2;
		r->offset_source = wide ? ROCE_OFFSET_WIDE : ROCE_OFFSET_ESTIMATED;
	} else if (wide) {  /* one direction now, both in the first pass */
		r->offset_uncertainty_ns = f->offset_uncertainty_ns + t->offset_uncertainty_ns;
		r->offset_source = ROCE_OFFSET_WIDE;
	} else {
		r->offset_uncertainty_ns = -1;
		r->offset_source = ROCE_OFFSET_NONE;
	}
}

/* The k-th smallest of v[0..n) (k < n), v partly reordered: quickselect, O(n) on average, where a
 * sort would take most of the analysis's time on a long capture. */
static int64_t kth(int64_t *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n;  /* k is in [lo, hi) */
	while (hi - lo > 1) {
		int64_t pivot = v[lo + (hi - lo) / 2], x;
		uint32_t lt = lo, i = lo, gt = hi;  /* [lo, lt) < pivot, [lt, i) == pivot, [gt, hi) > pivot */
		while (i < gt) {
			if (v[i] < pivot) {
				x = v[lt];
				v[lt++] = v[i];
				v[i++] = x;
			} else if (v[i] > pivot) {
				x = v[--gt];
				v[gt] = v[i];
				v[i] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

/* The delay figures of r from n raw delays (v, reordered here), less the offset left in them,
 * negative ones counted clamped and taken as 0; min and max from the exact extremes. */
static void hop_delays(struct roce_path_hop *r, int64_t *v, uint32_t n, int64_t mn, int64_t mx, int64_t left)
{
	r->delay_min_ns = r->delay_p50_ns = r->delay_p99_ns = r->delay_max_ns = -1;
	if (!n)
		return;
	uint32_t neg = 0;
	for (uint32_t k = 0; k < n; k++)
		neg += v[k] - left < 0;
	r->clamped = neg;
	int64_t p50 = kth(v, n, (n - 1) / 2) - left;
	int64_t p99 = kth(v, n, (uint32_t)((n * 99ull + 99) / 100) - 1) - left;
	r->delay_min_ns = mn - left < 0 ? 0 : mn - left;
	r->delay_max_ns = mx - left < 0 ? 0 : mx - left;
	r->delay_p50_ns = p50 < 0 ? 0 : p50;
	r->delay_p99_ns = p99 < 0 ? 0 : p99;
}

/* A pair's raw delays from a to b into v (room for q->n). */
static void raw_copy(const struct path_pair *q, bool fwd, int64_t *v)
{
	for (uint32_t k = 0; k < q->n; k++)
		v[k] = fwd ? q->d[k] : -q->d[k];
}

/* Streams seen at two points or more, and the hops they have. */
static uint32_t count_hops(const struct path_state *st, uint32_t *streams)
{
	uint32_t h = 0;
	*streams = 0;
	for (uint32_t k = 0; k < st->n; k++)
		if (st->s[k].n_slots >= 2) {
			++*streams;
			h += st->s[k].n_slots - 1u;
		}
	return h;
}

/* Each stream's path and hop counts into the results; the raw minima of each direction noted. */
static int build_streams(struct path_state *st, struct dir_min *dm)
{
	uint32_t ns = 0, nh = 0;
	for (uint32_t k = 0; k < st->n; k++) {
		const struct path_stream *s = &st->s[k];
		if (s->n_slots < 2)
			continue;
		uint8_t path[ROCE_PATH_POINTS];
		unsigned n = stream_path(s, path);
		struct roce_path_stream *rs = &st->r_streams[ns++];
		*rs = (struct roce_path_stream){.stream = s->stream, .n_points = n, .hops = &st->r_hops[nh]};
		for (unsigned i = 0; i < n; i++)
			rs->points[i] = s->point[path[i]];
		for (unsigned h = 0; h + 1 < n; h++) {
			struct roce_path_hop *r = &st->r_hops[nh++];
			*r = (struct roce_path_hop){.from = s->point[path[h]], .to = s->point[path[h + 1]]};
			hop_counts(s, path, n, h, r);
			const struct path_pair *q = pair_find(s, path[h], path[h + 1]);
			if (q && dir_min_note(dm, r->from, r->to, raw_min(q, path[h] < path[h + 1])) < 0)
				return -1;
		}
	}
	return 0;
}

/* A total's raw delays, gathered from its streams' hops. */
struct total_samples {
	int64_t *v;
	uint64_t n, alloc;
	int64_t mn, mx;
	int64_t left;             /* the hop's offset left in them */
};

static int total_add(struct total_samples *ts, const int64_t *v, uint32_t n, int64_t mn, int64_t mx)
{
	if (n && ts->n + n > ts->alloc) {
		uint64_t a = ts->alloc ? ts->alloc : 64;
		while (a < ts->n + n)
			a *= 2;
		int64_t *m = realloc(ts->v, a * sizeof(*m));
		if (!m)
			return -1;
		ts->v = m;
		ts->alloc = a;
	}
	if (n)
		memcpy(ts->v + ts->n, v, n * sizeof(*v));
	ts->n += n;
	ts->mn = mn < ts->mn ? mn : ts->mn;
	ts->mx = mx > ts->mx ? mx : ts->mx;
	return 0;
}

/* The hop's total (by from and to), made if new. */
static struct roce_path_hop *total_of(struct path_state *st, struct u64map *tot, struct total_samples *smp,
				      const struct roce_path_hop *r, int64_t left, struct total_samples **ts)
{
	uint32_t t;
	uint64_t key = (uint64_t)r->from << 32 | r->to;
	if (!u64map_get(tot, key, &t)) {
		t = st->result.n_hops++;
		if (u64map_put(tot, key, t) < 0)
			return NULL;
		st->r_totals[t] = (struct roce_path_hop){.from = r->from, .to = r->to, .offset_ns = r->offset_ns,
							 .offset_uncertainty_ns = r->offset_uncertainty_ns,
							 .offset_source = r->offset_source};
		smp[t] = (struct total_samples){.mn = INT64_MAX, .mx = INT64_MIN, .left = left};
	}
	*ts = &smp[t];
	return &st->r_totals[t];
}

/* One stream hop's offset and delays (its raw delays into v), and its share of its total. */
static int stream_hop(const struct path_stream *s, struct roce_path_hop *r, unsigned a,
		      unsigned b, int64_t *v, struct roce_path_hop *x, struct total_samples *ts)
{
	const struct path_pair *q = pair_find(s, a, b);
	uint32_t n = 0;
	int64_t mn = 0, mx = 0;
	if (q) {
		raw_copy(q, a < b, v);
		n = q->n;
		mn = raw_min(q, a < b);
		mx = a < b ? q->dmax : -q->dmin;
		if (total_add(ts, v, n, mn, mx) < 0)
			return -1;
	}
	hop_delays(r, v, n, mn, mx, ts->left);
	x->seen_from += r->seen_from;
	x->seen_to += r->seen_to;
	x->lost += r->lost;
	x->mirror_lost += r->mirror_lost;
	x->reordered += r->reordered;
	x->delays += r->delays;
	return 0;
}

/* The offsets and delays of every stream's hops, and their totals by (from, to). */
static int build_delays(struct path_state *st, const struct dir_min *dm, const int64_t *off, bool given,
			struct total_samples *smp)
{
	struct u64map tot;
	if (u64map_init(&tot, 16) < 0)
		return -1;
	int64_t *v = malloc(ROCE_PATH_SAMPLES * sizeof(*v));
	int rc = v ? 0 : -1;
	for (uint32_t k = 0, si = 0; rc == 0 && k < st->n; k++) {
		struct path_stream *s = &st->s[k];
		if (s->n_slots < 2)
			continue;
		struct roce_path_stream *rs = &st->r_streams[si++];
		for (unsigned h = 0; rc == 0 && h + 1 < rs->n_points; h++) {
			struct roce_path_hop *r = (struct roce_path_hop *)&rs->hops[h];
			int64_t left;
			hop_offset(st, dm, off, given, r, &left);
			struct total_samples *ts;
			struct roce_path_hop *x = total_of(st, &tot, smp, r, left, &ts);
			rc = x ? stream_hop(s, r, (unsigned)slot_of(s, rs->points[h]), (unsigned)slot_of(s, rs->points[h + 1]),
					    v, x, ts) : -1;
		}
	}
	for (uint32_t t = 0; rc == 0 && t < st->result.n_hops; t++) {
		uint64_t d = st->r_totals[t].delays;
		hop_delays(&st->r_totals[t], smp[t].v, (uint32_t)smp[t].n, smp[t].mn, smp[t].mx, smp[t].left);
		st->r_totals[t].delays = d;
	}
	u64map_free(&tot);
	free(v);
	return rc;
}

/* The results from the statistics folded so far (the fold's state is only read). */
static int path_compute(struct path_state *st, const int64_t *offset_ns, const bool *has_offset)
{
	results_free(st);
	uint32_t n_streams, n_hops = count_hops(st, &n_streams), np = st->n_points;
	st->r_points = calloc(np ? np : 1, sizeof(*st->r_points));
	st->r_streams = calloc(n_streams ? n_streams : 1, sizeof(*st->r_streams));
	st->r_hops = calloc(n_hops ? n_hops : 1, sizeof(*st->r_hops));
	st->r_totals = calloc(n_hops ? n_hops : 1, sizeof(*st->r_totals));
	struct total_samples *smp = calloc(n_hops ? n_hops : 1, sizeof(*smp));
	int64_t *off = calloc(np ? np : 1, sizeof(*off));
	struct dir_min dm = {0};
	bool given = false;
	int rc = st->r_points && st->r_streams && st->r_hops && st->r_totals && smp && off &&
			 u64map_init(&dm.index, 16) == 0 ? 0 : -1;
	for (uint32_t i = 0; rc == 0 && i < np; i++) {
		st->r_points[i] = st->points[i];
		if (has_offset && has_offset[i]) {
			off[i] = offset_ns[i];
			given = true;
		} else if (st->points[i].offset_source == ROCE_OFFSET_GIVEN) {
			off[i] = st->points[i].offset_ns;
			given = true;
		}
	}
	st->result = (struct roce_path){.n_points = np, .points = st->r_points, .n_streams = n_streams,
					.streams = st->r_streams, .hops = st->r_totals};
	if (rc == 0)
		rc = build_streams(st, &dm);
	if (rc == 0)
		rc = build_delays(st, &dm, off, given, smp);
	for (uint32_t h = 0; smp && h < n_hops; h++)
		free(smp[h].v);
	free(smp);
	free(off);
	free(dm.mins);
	if (dm.index.slots)
		u64map_free(&dm.index);
	if (rc < 0 || st->oom) {
		results_free(st);
		return -1;
	}
	return 0;
}

int path_finish(struct path_state *st, struct sightings *t, const int64_t *offset_ns, const bool *has_offset)
{
	sightings_flush(t);
	if (st->finished || t->n_points < 2)
		return 0;
	st->snapshot = false;
	int rc = path_compute(st, offset_ns, has_offset);
	st->finished = rc == 0;
	return rc;
}

const struct roce_path *path_snapshot(struct path_state *st, const struct sightings *t, const int64_t *offset_ns,
				      const bool *has_offset)
{
	if (st->finished)
		return &st->result;
	st->snapshot = false;
	if (t->n_points < 2 || path_compute(st, offset_ns, has_offset) < 0)
		return NULL;
	st->snapshot = true;
	return &st->result;
}

const struct roce_path *path_result(const struct path_state *st)
{
	return st->finished ? &st->result : NULL;
}

/* ---- the points' offsets from a wide first pass ---- */

/* One stream's raw delays from point a to point b (a < b: b's time minus a's), lo to hi. */
struct span {
	uint32_t a, b;
	int64_t lo, hi;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *p = x, *q = y;
	if (p->a != q->a || p->b != q->b)
		return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b < q->b ? -1 : 1);
	return p->lo < q->lo ? -1 : p->lo > q->lo;
}

/* Every stream's spans of raw delays between two points (oriented from the lower point), sorted
 * by the two points, then by lo; their number, -1 when out of memory. */
static int64_t spans_of(const struct path_state *st, uint32_t n, struct span **out)
{
	size_t k = 0, cap = 0;
	for (uint32_t i = 0; i < st->n; i++)
		cap += st->s[i].n_pairs;
	struct span *v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < st->n; i++)
		for (unsigned j = 0; j < st->s[i].n_pairs; j++) {
			const struct path_stream *s = &st->s[i];
			const struct path_pair *q = &s->pairs[j];
			uint32_t a = s->point[q->i], b = s->point[q->j];
			if (!q->both || a >= n || b >= n)
				continue;
			v[k++] = a < b ? (struct span){a, b, q->dmin, q->dmax} : (struct span){b, a, -q->dmax, -q->dmin};
		}
	qsort(v, k, sizeof(*v), span_cmp);
	*out = v;
	return (int64_t)k;
}

/* b's offset relative to a from the spans of the streams crossing both (v[0..n), sorted by lo):
 * those from a to b have every delay above it, those from b to a every delay below; of the ways
 * to split the spans so, the one with the widest gap. The offset is the gap's middle, within half
 * of it. false: every stream crosses them the same way. */
static bool pair_offset(const struct span *v, size_t n, int64_t *off, int64_t *unc)
{
	int64_t below = INT64_MIN, best = -1;
	for (size_t k = 1; k < n; k++) {
		below = v[k - 1].hi > below ? v[k - 1].hi : below;
		if (v[k].lo > below && v[k].lo - below > best) {
			best = v[k].lo - below;
			*off = below + best / 2;
			*unc = best - best / 2;
		}
	}
	return best >= 0;
}

/* Point b's offset from a's, linked through the pair estimates (po, pu: n x n, pu -1: none) by the
 * chain of the least total uncertainty from point 0. */
static void chain_offsets(uint32_t n, const int64_t *po, const int64_t *pu, int64_t *off, int64_t *unc)
{
	for (uint32_t i = 0; i < n; i++)
		unc[i] = off[i] = i ? -1 : 0;
	for (;;) {
		uint32_t ba = 0, bb = 0;
		int64_t bu = -1;
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = 0; unc[a] >= 0 && b < n; b++)
				if (unc[b] < 0 && pu[a * n + b] >= 0 && (bu < 0 || unc[a] + pu[a * n + b] < bu)) {
					bu = unc[a] + pu[a * n + b];
					ba = a;
					bb = b;
				}
		if (bu < 0)
			return;
		off[bb] = off[ba] + po[ba * n + bb];
		unc[bb] = bu;
	}
}

uint32_t path_wide_offsets(const struct path_state *st, uint32_t n, int64_t *offset_ns, int64_t *uncertainty_ns)
{
	n = n < st->n_points ? n : st->n_points;
	for (uint32_t i = 0; i < n; i++)
		uncertainty_ns[i] = offset_ns[i] = i ? -1 : 0;
	struct span *v = NULL;
	int64_t k = n > 1 ? spans_of(st, n, &v) : 0;
	int64_t *po = k > 0 ? malloc((size_t)n * n * sizeof(*po)) : NULL, *pu = po ? malloc((size_t)n * n * sizeof(*pu)) : NULL;
	if (pu) {
		for (size_t i = 0; i < (size_t)n * n; i++)
			pu[i] = -1;
		for (int64_t lo = 0, hi; lo < k; lo = hi) {
			for (hi = lo + 1; hi < k && v[hi].a == v[lo].a && v[hi].b == v[lo].b; hi++)
				;
			uint32_t a = v[lo].a, b = v[lo].b;
			if (pair_offset(v + lo, (size_t)(hi - lo), &po[a * n + b], &pu[a * n + b])) {
				po[b * n + a] = -po[a * n + b];
				pu[b * n + a] = pu[a * n + b];
			}
		}
		chain_offsets(n, po, pu, offset_ns, uncertainty_ns);
	}
	free(v);
	free(po);
	free(pu);
	return n;
}

/* ---- the hop a resent packet's original was lost on ---- */

#define PATH_NEIGHBOURS 64u  /* entries either side of the packet's looked at */

/* The points of entry x in the order it was seen there (first sightings), their number. */
static unsigned seen_order(const struct sight_entry *x, uint32_t *pts)
{
	int64_t ts[ROCE_PATH_POINTS];
	unsigned n = 0;
	for (unsigned k = 0; k < x->n; k++) {
		const struct sighting *y = sighting_at(x, k);
		unsigned i = 0;
		while (i < n && pts[i] != y->point)
			i++;
		if (i < n || n == ROCE_PATH_POINTS)
			continue;
		for (i = n++; i > 0 && ts[i - 1] > y->ts; i--) {
			pts[i] = pts[i - 1];
			ts[i] = ts[i - 1];
		}
		pts[i] = y->point;
		ts[i] = y->ts;
	}
	return n;
}

/* The time up to which point i's frames are all in: its newest, a later one of a point of the
 * same capture interface (one interface receives its mirror sessions in time order), or the
 * capture's newest time stamp less the farthest any frame came back behind it (a capture in time
 * order across its points, as rocedump reads it, or as reordercap writes it). */
static int64_t reached(const struct sightings *t, const struct path_state *st, uint32_t i)
{
	int64_t r = sightings_reached(t, i);
	const struct roce_path_point *p = &st->points[i];
	for (uint32_t j = 0; j < t->n_points && j < st->n_points; j++)
		if (st->points[j].capture_if == p->capture_if && st->points[j].sll_ifindex == p->sll_ifindex &&
		    t->points[j].newest > r)
			r = t->points[j].newest;
	return r;
}

static bool seen_at(const struct sight_entry *x, uint32_t point)
{
	for (unsigned k = 0; k < x->n; k++)
		if (sighting_at(x, k)->point == point)
			return true;
	return false;
}

/* Whether point `to` can no longer see entry at: a later packet of its stream got there (packets
 * keep their order on the way), or the capture there is past its sighting at `from` by the copy
 * window (before that, it may still come, late, and the resend merely outran it). */
static bool window_over(const struct sightings *t, const struct path_state *st, uint32_t at, uint32_t from,
			uint32_t to)
{
	const struct sight_entry *e = &t->ring[at & t->mask];
	for (uint32_t r = at + 1, d = 0; d < PATH_NEIGHBOURS && r - t->head < t->tail - t->head; r++, d++) {
		const struct sight_entry *x = &t->ring[r & t->mask];
		if (x->stream == e->stream && seen_at(x, to))
			return true;
	}
	int64_t seen = INT64_MAX;
	for (unsigned k = 0; k < e->n; k++) {
		const struct sighting *y = sighting_at(e, k);
		if (y->point == from && y->ts < seen)
			seen = y->ts;
	}
	return seen != INT64_MAX && reached(t, st, to) - seen >= t->window_ns;
}

void path_note_resend(struct path_state *st, uint32_t stream, uint32_t psn, uint64_t frame)
{
	st->sent[st->n_sent++ % PATH_SENT_LOG] = (struct path_sent){stream, psn, (uint32_t)frame};
}

bool path_latest_resend(const struct path_state *st, uint32_t stream, uint32_t psn, uint32_t *frame)
{
	uint32_t n = st->n_sent < PATH_SENT_LOG ? st->n_sent : PATH_SENT_LOG;
	for (uint32_t k = 1; k <= n; k++) {
		const struct path_sent *x = &st->sent[(st->n_sent - k) % PATH_SENT_LOG];
		if (x->stream == stream && x->psn == psn) {
			*frame = x->frame;
			return true;
		}
	}
	return false;
}

/* The hop a packet was lost on, of a path of np points of which it was seen at those seen[]:
 * the one after the last point that saw it (*last), when there is one and every point before
 * saw it too (one that missed it before is its mirror's loss, not a hop's). */
static bool hop_after_last_seen(const bool *seen, unsigned np, unsigned *last)
{
	*last = np;
	for (unsigned i = 0; i < np; i++)
		if (seen[i])
			*last = i;
	if (*last + 1 >= np)
		return false;
	for (unsigned i = 0; i < *last; i++)
		if (!seen[i])
			return false;
	return true;
}

/* path_lost_hop for a packet the table has forgotten: from the log of packets a point missed and
 * its stream's path as folded so far (the table forgot it: every point is a copy window past it). */
static bool lost_hop_folded(const struct path_state *st, uint32_t frame, int resend_point, uint32_t *from,
			    uint32_t *to)
{
	uint32_t n = st->n_missed < PATH_MISSED_LOG ? st->n_missed : PATH_MISSED_LOG;
	const struct path_missed *m = NULL;
	for (uint32_t k = 1; k <= n && !m; k++) {
		const struct path_missed *x = &st->missed[(st->n_missed - k) % PATH_MISSED_LOG];
		if (x->frame == frame)
			m = x;
	}
	uint32_t k;
	if (!m || !u64map_get(&st->index, m->stream, &k))
		return false;
	const struct path_stream *s = &st->s[k];
	uint8_t path[ROCE_PATH_POINTS];
	bool seen[ROCE_PATH_POINTS];
	unsigned np = stream_path(s, path), last;
	for (unsigned i = 0; i < np; i++)
		seen[i] = m->mask >> path[i] & 1;
	if (!hop_after_last_seen(seen, np, &last))
		return false;
	bool here = resend_point < 0;  /* the resend seen where the original was */
	for (unsigned i = 0; i < s->n_slots; i++)
		here |= (m->mask >> i & 1) && s->point[i] == (uint32_t)resend_point;
	if (!here)
		return false;
	*from = s->point[path[last]];
	*to = s->point[path[last + 1]];
	return true;
}

bool path_lost_hop(const struct sightings *t, const struct path_state *st, uint32_t frame, bool resend,
		   uint32_t *from, uint32_t *to)
{
	if (t->n_points < 2)
		return false;
	const struct sight_entry *e = sightings_of_frame(t, frame);
	if (!e)
		return lost_hop_folded(st, frame, resend ? (int)t->last_point : -1, from, to);
	if (!e->stream)
		return false;
	uint32_t q = (uint32_t)(e - t->ring), at = t->head + ((q - t->head) & t->mask);
	uint32_t path[ROCE_PATH_POINTS], mine[ROCE_PATH_POINTS], np = 0;
	for (uint32_t d = 0; d < 2 * PATH_NEIGHBOURS; d++) {  /* the neighbour seen at the most points */
		uint32_t r = d < PATH_NEIGHBOURS ? at - 1 - d : at + 1 + (d - PATH_NEIGHBOURS);
		if (r - t->head >= t->tail - t->head)
			continue;
		const struct sight_entry *x = &t->ring[r & t->mask];
		uint32_t pts[ROCE_PATH_POINTS];
		unsigned n = x->stream == e->stream && x->n > np ? seen_order(x, pts) : 0;
		if (n > np) {
			memcpy(path, pts, n * sizeof(*pts));
			np = n;
		}
	}
	unsigned nm = seen_order(e, mine), last;  /* last: the last point of the path it was seen at */
	bool here = !resend;  /* the resend (the frame the table saw last) seen where the original was */
	for (unsigned k = 0; k < nm; k++)
		here |= mine[k] == t->last_point;
	if (!here)
		return false;
	bool seen[ROCE_PATH_POINTS] = {false};
	for (unsigned i = 0; i < np; i++)
		for (unsigned k = 0; k < nm; k++)
			seen[i] |= mine[k] == path[i];
	if (!hop_after_last_seen(seen, np, &last))
		return false;
	if (!window_over(t, st, at, path[last], path[last + 1]))
		return false;
	*from = path[last];
	*to = path[last + 1];
	return true;
}
