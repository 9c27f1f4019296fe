/* path_out.c: path analysis in the -q summary (see path_out.h). */
#include "output/path_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "roce/fields.h"

void path_point_name(char *buf, size_t cap, const struct roce_path_point *pt, const struct capstats *cs)
{
	size_t n = 0;
	buf[0] = '\0';
	if (pt->capture_if) {
		const char *name = cs ? capstats_iface_name(cs, pt->capture_if) : "";
		if (name && *name)
			n += (size_t)snprintf(buf + n, cap - n, "%s", name);
		else
			n += (size_t)snprintf(buf + n, cap - n, "if%" PRIu32, capstats_iface_id(pt->capture_if));
	}
	if (pt->sll_ifindex && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "%sifindex %" PRIu32, n ? " " : "", pt->sll_ifindex);
	if (pt->mirrored && n < cap) {
		char m[ROCE_MIRROR_NAME_MAX];
		roce_mirror_point_name(m, sizeof(m), &pt->mirror);
		n += (size_t)snprintf(buf + n, cap - n, "%s%s%s", n ? " " : "", m,
				      pt->mirror.kind == ROCE_WRAP_ERSPAN3 ? (pt->direction ? " egress" : " ingress") : "");
	}
	if (!n)
		snprintf(buf, cap, "capture");
}

/* The point a --point-offset names: by its name, or by its number. */
static int point_named(const struct roce_path_point *pts, uint32_t n, const struct capstats *cs, const char *name)
{
	char buf[PATH_POINT_NAME_MAX], *end;
	for (uint32_t i = 0; i < n; i++) {
		path_point_name(buf, sizeof(buf), &pts[i], cs);
		if (!strcmp(buf, name))
			return (int)i;
	}
	unsigned long k = strtoul(name, &end, 10);
	return *name && !*end && k < n ? (int)k : -1;
}

/* o's --point-offset values by point (*off, *has: calloc'ed, n of them). 0; EXIT_USAGE (with a
 * message when loud) when a name matches no point; -1 when out of memory. */
static int point_offsets(const struct roce_path_point *pts, uint32_t n, const struct capstats *cs,
			 const struct options *o, bool loud, int64_t **off, bool **has)
{
	*off = calloc(n ? n : 1, sizeof(**off));
	*has = calloc(n ? n : 1, sizeof(**has));
	int rc = *off && *has ? 0 : -1;
	for (unsigned k = 0; rc >= 0 && k < o->n_point_offsets; k++) {
		int i = point_named(pts, n, cs, o->point_offsets[k].name);
		if (i < 0 && n >= 2) {
			if (loud)
				fprintf(stderr, "rocedump: --point-offset: no capture point named '%s' (the -q summary's "
						"path table lists them)\n", o->point_offsets[k].name);
			rc = EXIT_USAGE;
		} else if (i >= 0) {
			(*off)[i] = o->point_offsets[k].ns;
			(*has)[i] = true;
		}
	}
	return rc;
}

/* roce_path_offset_fn: the point's --point-offset, or its first pass estimate. */
static bool point_offset(void *user, uint32_t i, const struct roce_path_point *pt, int64_t *off, int64_t *unc,
			 uint8_t *src)
{
	const struct path_offsets *c = user;
	char name[PATH_POINT_NAME_MAX], *end;
	path_point_name(name, sizeof(name), pt, c->cs);
	for (unsigned k = 0; k < c->o->n_point_offsets; k++) {
		const char *want = c->o->point_offsets[k].name;
		unsigned long n = strtoul(want, &end, 10);
		if (!strcmp(want, name) || (*want && !*end && n == i)) {
			*off = c->o->point_offsets[k].ns;
			*unc = 0;
			*src = ROCE_OFFSET_GIVEN;
			return true;
		}
	}
	if (!c->wide || !c->wide->applied || i >= c->wide->n || c->wide->uncertainty_ns[i] < 0)
		return false;
	*off = c->wide->offset_ns[i];
	*unc = c->wide->uncertainty_ns[i];
	*src = ROCE_OFFSET_WIDE;
	return true;
}

/* lo and hi widened to take v. */
static void widen(int64_t *lo, int64_t *hi, int64_t v)
{
	*lo = v < *lo ? v : *lo;
	*hi = v > *hi ? v : *hi;
}

void path_out_offsets(struct roce_analyzer *an, struct path_offsets *ctx)
{
	int64_t lo = 0, hi = 0;  /* the offsets' spread, given and estimated */
	for (unsigned k = 0; k < ctx->o->n_point_offsets; k++)
		widen(&lo, &hi, ctx->o->point_offsets[k].ns);
	for (uint32_t i = 0; ctx->wide && ctx->wide->applied && i < ctx->wide->n; i++)
		if (ctx->wide->uncertainty_ns[i] >= 0)
			widen(&lo, &hi, ctx->wide->offset_ns[i]);
	roce_analyzer_path_offsets(an, point_offset, ctx, hi - lo);
}

int path_out_finish(struct roce_analyzer *an, const struct capstats *cs, const struct options *o)
{
	const struct roce_path_point *pts;
	uint32_t n = roce_analyzer_path_points(an, &pts);
	int64_t *off;
	bool *has;
	int rc = point_offsets(pts, n, cs, o, true, &off, &has);
	if (rc == 0 && roce_analyzer_path_finish(an, off, has) < 0)
		rc = -1;
	free(off);
	free(has);
	return rc;
}

const struct roce_path *path_out_snapshot(struct roce_analyzer *an, const struct capstats *cs, const struct options *o,
					  bool last)
{
	const struct roce_path_point *pts;
	uint32_t n = roce_analyzer_path_points(an, &pts);
	int64_t *off;
	bool *has;
	const struct roce_path *p = NULL;
	if (point_offsets(pts, n, cs, o, false, &off, &has) >= 0)  /* a point not seen yet: not an error now */
		p = !last ? roce_analyzer_path_snapshot(an, off, has)
			  : roce_analyzer_path_finish(an, off, has) == 0 ? roce_analyzer_path(an) : NULL;
	free(off);
	free(has);
	return p;
}

/* path_warn_unmatched: a hop is warned of when at least UNMATCHED_MIN of its later point's
 * packets, and more than 1 in UNMATCHED_SHARE of them, are unmatched, and its lost packets are
 * that many too. A packet delayed past the window is both: lost after the earlier point, and
 * unmatched at the later one. One the earlier point's mirror missed is only unmatched; a correct
 * capture has none or a few (a packet's sightings straddling the capture's start or end). */
#define UNMATCHED_MIN 10
#define UNMATCHED_SHARE 20

static bool many_of(uint64_t n, uint64_t of)
{
	return n >= UNMATCHED_MIN && n * UNMATCHED_SHARE > of;
}

void path_warn_unmatched(const struct roce_analyzer *an, const struct options *o, FILE *err)
{
	const struct roce_path *p = roce_analyzer_path(an);
	for (uint32_t k = 0; p && k < p->n_hops; k++) {
		const struct roce_path_hop *h = &p->hops[k];
		uint64_t explained = h->delays + h->mirror_lost;
		uint64_t un = h->seen_to > explained ? h->seen_to - explained : 0;
		if (!many_of(un, h->seen_to) || !many_of(h->lost, h->seen_to))
			continue;
		char w[ROCE_DURSTR_MAX];
		roce_fmt_duration(w, (double)o->copy_window_us * 1e3);
		fprintf(err,
			"rocedump: warning: path: hop %" PRIu32 ">%" PRIu32 ": %" PRIu64 " of the %" PRIu64
			" packets point %" PRIu32 " saw match no sighting at point %" PRIu32
			" within the copy window (%s), and the hop counts %" PRIu64 " lost: is its delay, or the points' "
			"clock offset, longer than the window? (--copy-window-us, --point-offset)\n",
			h->from, h->to, un, h->seen_to, h->to, h->from, w, h->lost);
	}
}

/* A duration for the table, "-" for none. */
static const char *dur(char *b, int64_t ns)
{
	if (ns < 0)
		return "-";
	roce_fmt_duration(b, (double)ns);
	return b;
}

static const char *source_name(uint8_t s)
{
	return s == ROCE_OFFSET_GIVEN ? "given" : s == ROCE_OFFSET_ESTIMATED ? "estimated" : s == ROCE_OFFSET_WIDE ? "estimated-wide" : "none";
}

static void text_hop(const struct roce_path_hop *h, FILE *out)
{
	char hop[24], d[4][ROCE_DURSTR_MAX], o[ROCE_DURSTR_MAX], u[ROCE_DURSTR_MAX];
	snprintf(hop, sizeof(hop), "%" PRIu32 ">%" PRIu32, h->from, h->to);
	fprintf(out, "  %-7s %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %9s %9s %9s %9s", hop,
		h->seen_from, h->seen_to, h->lost, h->mirror_lost, h->reordered, dur(d[0], h->delay_min_ns),
		dur(d[1], h->delay_p50_ns), dur(d[2], h->delay_p99_ns), dur(d[3], h->delay_max_ns));
	if (h->offset_source == ROCE_OFFSET_NONE) {
		fprintf(out, "  none\n");
		return;
	}
	roce_fmt_duration(o, (double)(h->offset_ns < 0 ? -h->offset_ns : h->offset_ns));
	roce_fmt_duration(u, (double)h->offset_uncertainty_ns);
	fprintf(out, "  %s%s +-%s %s\n", h->offset_ns < 0 ? "-" : "+", o, u, source_name(h->offset_source));
}

#define PATH_STREAMS_SHOWN 64u

void path_print_text(const struct roce_analyzer *an, const struct capstats *cs, FILE *out)
{
	const struct roce_path *p = roce_analyzer_path(an);
	if (!p)
		return;
	char name[PATH_POINT_NAME_MAX];
	fprintf(out, "path (capture points; delay: to's time less from's, less the clock offset to's minus from's):\n");
	for (uint32_t i = 0; i < p->n_points; i++) {
		path_point_name(name, sizeof(name), &p->points[i], cs);
		fprintf(out, "  point %" PRIu32 ": %s\n", i, name);
	}
	if (!p->n_hops) {
		fprintf(out, "  (no packet seen at two of them)\n");
		return;
	}
	fprintf(out, "  %-7s %9s %9s %7s %7s %7s %9s %9s %9s %9s  %s\n", "hop", "seen from", "seen to", "lost", "mirror",
		"reorder", "delay min", "p50", "p99", "max", "offset");
	for (uint32_t k = 0; k < p->n_hops; k++)
		text_hop(&p->hops[k], out);
	for (uint32_t k = 0; k < p->n_hops; k++)
		if (p->hops[k].clamped)
			fprintf(out, "  hop %" PRIu32 ">%" PRIu32 ": %" PRIu64 " delays negative after the offset, "
				     "clamped to 0\n", p->hops[k].from, p->hops[k].to, p->hops[k].clamped);
	for (uint32_t k = 0; k < p->n_streams && k < PATH_STREAMS_SHOWN; k++) {
		const struct roce_path_stream *s = &p->streams[k];
		fprintf(out, "  stream %" PRIu32 ": ", s->stream);
		for (uint32_t i = 0; i < s->n_points; i++)
			fprintf(out, "%s%" PRIu32, i ? ">" : "", s->points[i]);
		fprintf(out, ", lost");
		for (uint32_t h = 0; h + 1 < s->n_points; h++)
			fprintf(out, " %" PRIu64, s->hops[h].lost);
		fprintf(out, ", mirror lost");
		for (uint32_t h = 0; h + 1 < s->n_points; h++)
			fprintf(out, " %" PRIu64, s->hops[h].mirror_lost);
		fputc('\n', out);
	}
	if (p->n_streams > PATH_STREAMS_SHOWN)
		fprintf(out, "  (%" PRIu32 " more streams: -T json has them)\n", p->n_streams - PATH_STREAMS_SHOWN);
}

static void json_hop(const struct roce_path_hop *h, FILE *out)
{
	fprintf(out, "{\"from\":%" PRIu32 ",\"to\":%" PRIu32 ",\"seen_from\":%" PRIu64 ",\"seen_to\":%" PRIu64
		     ",\"lost\":%" PRIu64 ",\"mirror_lost\":%" PRIu64 ",\"reordered\":%" PRIu64 ",\"delays\":%" PRIu64
		     ",\"clamped\":%" PRIu64 ",\"delay_ns\":",
		h->from, h->to, h->seen_from, h->seen_to, h->lost, h->mirror_lost, h->reordered, h->delays, h->clamped);
	if (h->delay_min_ns < 0)
		fputs("null", out);
	else
		fprintf(out, "{\"min\":%" PRId64 ",\"p50\":%" PRId64 ",\"p99\":%" PRId64 ",\"max\":%" PRId64 "}",
			h->delay_min_ns, h->delay_p50_ns, h->delay_p99_ns, h->delay_max_ns);
	fprintf(out, ",\"offset_ns\":%" PRId64 ",\"offset_uncertainty_ns\":", h->offset_ns);
	if (h->offset_uncertainty_ns < 0)
		fputs("null", out);
	else
		fprintf(out, "%" PRId64, h->offset_uncertainty_ns);
	fprintf(out, ",\"offset_source\":\"%s\"}", source_name(h->offset_source));
}

void path_print_json(const struct roce_analyzer *an, const struct capstats *cs, FILE *out)
{
	const struct roce_path *p = roce_analyzer_path(an);
	if (!p)
		return;
	char name[PATH_POINT_NAME_MAX];
	fputs(",\"path\":{\"points\":[", out);
	for (uint32_t i = 0; i < p->n_points; i++) {
		path_point_name(name, sizeof(name), &p->points[i], cs);
		const struct roce_path_point *pt = &p->points[i];
		fprintf(out, "%s{\"point\":%" PRIu32 ",\"name\":\"%s\",\"packets\":%" PRIu64, i ? "," : "", i, name,
			pt->packets);
		if (pt->offset_source != ROCE_OFFSET_NONE)  /* taken off its time stamps before matching */
			fprintf(out, ",\"offset_ns\":%" PRId64 ",\"offset_uncertainty_ns\":%" PRId64 ",\"offset_source\":\"%s\"",
				pt->offset_ns, pt->offset_uncertainty_ns, source_name(pt->offset_source));
		fputc('}', out);
	}
	fputs("],\"streams\":[", out);
	for (uint32_t k = 0; k < p->n_streams; k++) {
		const struct roce_path_stream *s = &p->streams[k];
		fprintf(out, "%s{\"stream\":%" PRIu32 ",\"path\":[", k ? "," : "", s->stream);
		for (uint32_t i = 0; i < s->n_points; i++)
			fprintf(out, "%s%" PRIu32, i ? "," : "", s->points[i]);
		fputs("],\"hops\":[", out);
		for (uint32_t h = 0; h + 1 < s->n_points; h++) {
			fputs(h ? "," : "", out);
			json_hop(&s->hops[h], out);
		}
		fputs("]}", out);
	}
	fputs("],\"hops\":[", out);
	for (uint32_t k = 0; k < p->n_hops; k++) {
		fputs(k ? "," : "", out);
		json_hop(&p->hops[k], out);
	}
	fputs("]}", out);
}
