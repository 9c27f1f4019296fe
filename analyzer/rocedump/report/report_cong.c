/* report_cong.c: rocedump --report's congestion data (report_data.h): what the analyzer's
 * congestion analysis (include/roce/congestion.h) reaches, outcome by outcome, kept for the plots:
 *   - per stream, the CNPs answering its CE marks with their CE-to-CNP latencies, and its CE marks
 *     whose CNP never came (RoCEv2, IBTA Annex A17.9): points up to REPORT_CONG_EXACT, then
 *     counts per time bin (tbins.h), and a half-octave histogram of the latencies;
 *   - over the capture, each PFC/PAUSE interval of a source MAC and priority (IEEE 802.1Qbb,
 *     802.3 Annex 31B) as a frame ended it, and the others from the analyzer's rows; the
 *     RoCE frames sent into a pause (pfc.traffic_while_paused).
 * The counts are the analyzer's: each outcome it counts in the summary comes here once. */
#include "report/report_data.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/fmt.h"
#include "grow.h"

/* ---- per stream: CNPs and missed CE marks ---- */

static void cbin_merge(void *dst, const void *src)
{
	struct cbin *a = dst;
	const struct cbin *b = src;
	if (b->lat_n) {
		a->lat_min = a->lat_n && a->lat_min < b->lat_min ? a->lat_min : b->lat_min;
		a->lat_max = a->lat_n && a->lat_max > b->lat_max ? a->lat_max : b->lat_max;
	}
	a->cnp += b->cnp;
	a->missed += b->missed;
	a->lat_n += b->lat_n;
}

static void cbin_add(struct rcong *c, const struct rpoint *pt)
{
	struct cbin one = {.cnp = pt->kind == RK_CNP, .missed = pt->kind == RK_CE_MISSED};
	if (pt->kind == RK_CNP && pt->val >= 0) {
		one.lat_n = 1;
		one.lat_min = one.lat_max = pt->val;
	}
	unsigned i = tbins_index(&c->tb, c->bins, sizeof(*c->bins), cbin_merge, pt->t);
	cbin_merge(&c->bins[i], &one);
}

/* Exact -> binned; false when the budget has no room. */
static bool cong_to_bins(struct report *r, struct rcong *c)
{
	if (!report_budget_take(r, TBINS_N * sizeof(*c->bins)))
		return false;
	if (!(c->bins = calloc(TBINS_N, sizeof(*c->bins)))) {
		r->mem -= TBINS_N * sizeof(*c->bins);
		return false;
	}
	for (uint32_t i = 0; i < c->n; i++)
		cbin_add(c, &c->ev[i]);
	r->mem -= (uint64_t)c->cap * sizeof(*c->ev);
	free(c->ev);
	c->ev = NULL;
	c->n = c->cap = 0;
	return true;
}

static void cong_point(struct report *r, struct rstream *s, const struct rpoint *pt)
{
	if (!s->cg) {
		if (!report_budget_take(r, sizeof(*s->cg)))
			return;
		if (!(s->cg = calloc(1, sizeof(*s->cg)))) {
			r->mem -= sizeof(*s->cg);
			return;
		}
	}
	struct rcong *c = s->cg;
	if (pt->kind == RK_CNP && pt->val >= 0)
		c->lat_hist[report_rt_bucket(pt->val)]++;
	if (!c->bins && c->n == c->cap && c->n < REPORT_CONG_EXACT) {
		uint32_t cap = grow_capacity(c->cap, 16, REPORT_CONG_EXACT);
		void *m = NULL;
		if (report_budget_take(r, (size_t)(cap - c->cap) * sizeof(*c->ev))) {
			if (!(m = realloc(c->ev, (size_t)cap * sizeof(*c->ev))))
				r->mem -= (uint64_t)(cap - c->cap) * sizeof(*c->ev);
		}
		if (m) {
			c->ev = m;
			c->cap = cap;
		}
	}
	if (!c->bins && c->n < c->cap)
		c->ev[c->n++] = *pt;
	else if (c->bins || cong_to_bins(r, c))
		cbin_add(c, pt);
}

/* A pause interval as plotted: its start held within the times plotted (report_ts), its length
 * (ns, from the analyzer) cut where they end. */
static void pause_set(struct rpause *ps, int64_t start, int64_t len)
{
	ps->start = report_ts(start);
	ps->len = len < 0 ? 0 : len < REPORT_TS_MAX - ps->start ? len : REPORT_TS_MAX - ps->start;
}

/* The analyzer's outcomes (roce_analyzer_on_congestion). */
static void pause_add(struct report *r, const struct rpause *ps)
{
	if (r->n_pauses == r->pauses_alloc) {
		uint32_t n = grow_capacity(r->pauses_alloc, 64, REPORT_PAUSES_MAX);
		void *m = NULL;
		if (n == r->pauses_alloc || !report_budget_take(r, (size_t)(n - r->pauses_alloc) * sizeof(*ps)) ||
		    !(m = realloc(r->pauses, (size_t)n * sizeof(*ps)))) {
			r->pauses_dropped++;
			return;
		}
		r->pauses = m;
		r->pauses_alloc = n;
	}
	r->pauses[r->n_pauses++] = *ps;
}

void report_congestion(const struct roce_cong_outcome *o, void *user)
{
	struct report *r = user;
	if (o->kind == ROCE_CONG_PAUSE) {
		struct rpause ps = {.priority = o->priority,
				    .flags = (uint8_t)((o->storm ? RP_STORM : 0) | (o->expired ? RP_EXPIRED : 0))};
		memcpy(ps.src, o->src, 6);
		pause_set(&ps, o->ts, o->ns);
		pause_add(r, &ps);
		return;
	}
	struct rstream *s = report_stream(r, o->stream, true);
	if (!s)
		return;
	struct rpoint pt = {.t = report_ts(o->ts), .frame = o->frame, .val = -1};
	if (o->kind == ROCE_CONG_CNP) {
		pt.kind = RK_CNP;
		pt.val = o->ns;
		pt.flags = o->unexpected ? RF_UNEXPECTED : 0;
	} else {
		pt.kind = RK_CE_MISSED;
	}
	cong_point(r, s, &pt);
}

/* ---- frames sent into a pause ---- */

void report_cong_frame(struct report *r, uint64_t frame_no, int64_t t, const struct frame *f,
		       const struct roce_pkt *p, const struct roce_findings *fi)
{
	if (!roce_evset_has(&p->events, ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED))
		return;
	if (r->n_into == REPORT_INTO_PAUSE_MAX || p->eth_off < 0) {
		r->into_dropped++;
		return;
	}
	if (r->n_into == r->into_alloc) {
		uint32_t n = grow_capacity(r->into_alloc, 64, UINT32_MAX);
		void *m = NULL;
		if (!report_budget_take(r, (size_t)(n - r->into_alloc) * sizeof(*r->into_pause)) ||
		    !(m = realloc(r->into_pause, (size_t)n * sizeof(*r->into_pause)))) {
			r->into_dropped++;
			return;
		}
		r->into_pause = m;
		r->into_alloc = n;
	}
	struct rpoint pt = {.t = t, .frame = frame_no, .val = -1, .len = p->wirelen};
	const uint8_t *mac = f->data + p->eth_off;  /* the destination: the MAC that paused it */
	for (unsigned i = 0; i < 6; i++)
		pt.psn = pt.psn << 8 | mac[i];
	for (unsigned i = 0; i < fi->n; i++)
		if (fi->f[i].event == ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED)
			pt.code = (uint16_t)(fi->f[i].pause ? 8 : fi->f[i].priority);  /* 8: a legacy PAUSE */
	r->into_pause[r->n_into++] = pt;
}

/* ---- JSON ---- */

void report_cong_put_series(FILE *out, const struct rstream *s, int64_t t0)
{
	const struct rcong *c = s->cg;
	if (!c)
		return;
	fputs(",\"cong\":{\"lat_hist\":", out);
	report_put_hist(out, c->lat_hist);
	if (!c->bins) {
		fputs(",\"mode\":\"exact\",\"points\":", out);
		report_put_points(out, c->ev, c->n, t0);
		fputc('}', out);
		return;
	}
	uint32_t n = c->tb.used;
	fputs(",\"mode\":\"bins\",\"t0\":", out);
	report_put_us(out, c->tb.t0, t0);
	fputs(",\"width\":", out);
	report_put_us(out, c->tb.width, 0);
	fprintf(out, ",\"n\":%" PRIu32, n);
	static const char *const names[5] = {"cnp", "missed", "lat_n", "lat_min", "lat_max"};
	for (unsigned k = 0; k < 5; k++) {
		fprintf(out, ",\"%s\":[", names[k]);
		for (uint32_t i = 0; i < n; i++) {
			const struct cbin *b = &c->bins[i];
			if (i)
				fputc(',', out);
			if (k < 3)
				fprintf(out, "%" PRIu32, k == 0 ? b->cnp : k == 1 ? b->missed : b->lat_n);
			else if (!b->lat_n)
				fputs("null", out);
			else
				report_put_us(out, k == 3 ? b->lat_min : b->lat_max, 0);
		}
		fputc(']', out);
	}
	fputc('}', out);
}

/* A pause no frame ended (its timer ran out unseen, or the capture ended), from the analyzer's row. */
static void open_pause(const struct roce_pfc_row *row, void *user)
{
	struct report *r = user;
	if (!row->open)
		return;
	struct rpause ps = {.priority = row->priority, .flags = (uint8_t)(RP_OPEN | (row->open_storm ? RP_STORM : 0))};
	memcpy(ps.src, row->src, 6);
	/* the end less the start without overflow: INT64_MAX when they lie further apart */
	uint64_t len = (uint64_t)row->open_end_ns - (uint64_t)row->open_start_ns;
	pause_set(&ps, row->open_start_ns, row->open_end_ns <= row->open_start_ns ? 0 : len > INT64_MAX ? INT64_MAX : (int64_t)len);
	pause_add(r, &ps);
}

void report_cong_finish(struct report *r, const struct roce_analyzer *an)
{
	roce_analyzer_pfc_foreach(an, open_pause, r);
}

void report_cong_put(FILE *out, const struct report *r, int64_t t0)
{
	char mac[18];
	fprintf(out, ",\"pauses\":{\"n\":%" PRIu32 ",\"dropped\":%" PRIu64, r->n_pauses, r->pauses_dropped);
	static const char *const names[5] = {"src", "priority", "start", "len", "flags"};
	for (unsigned k = 0; k < 5; k++) {
		fprintf(out, ",\"%s\":[", names[k]);
		for (uint32_t i = 0; i < r->n_pauses; i++) {
			const struct rpause *ps = &r->pauses[i];
			if (i)
				fputc(',', out);
			if (k == 0) {
				fmt_mac(mac, ps->src);
				fprintf(out, "\"%s\"", mac);
			} else if (k == 1) {
				fprintf(out, "%d", ps->priority);
			} else if (k == 2) {
				report_put_us(out, ps->start, t0);
			} else if (k == 3) {
				report_put_us(out, ps->len, 0);
			} else {
				fprintf(out, "%u", ps->flags);
			}
		}
		fputc(']', out);
	}
	fprintf(out, "},\"into_pause\":{\"dropped\":%" PRIu64 ",\"points\":", r->into_dropped);
	report_put_points(out, r->into_pause, r->n_into, t0);
	fputc('}', out);
}

void report_cong_free(struct report *r, struct rstream *s)
{
	if (s) {
		if (s->cg) {
			free(s->cg->ev);
			free(s->cg->bins);
			free(s->cg);
			s->cg = NULL;
		}
		return;
	}
	free(r->pauses);
	free(r->into_pause);
}
