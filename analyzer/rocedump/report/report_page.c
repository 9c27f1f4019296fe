/* report_page.c: writes rocedump --report's HTML page: the template (report/report.html) with
 * its @@NAME@@ markers filled: the styles, the data blocks (JSON in <script
 * type="application/json">: the summary and streams objects as -q -T json and --summary -T json
 * print them, and the report's own series), and the scripts (the vendored uPlot and
 * report/report.js). Nothing on the page is fetched from elsewhere. */
#define _GNU_SOURCE  /* memmem */
#include "report/report_data.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report_assets.h"
#include "jsonstr.h"
#include "output/sb.h"

/* JSON text inside <script>: a '<' (only ever inside a string) as \u003c, so "</script>" in a
 * name cannot end the block. */
static void put_json_text(FILE *out, const char *s, size_t n)
{
	const char *end = s + n;
	while (s < end) {
		const char *lt = memchr(s, '<', (size_t)(end - s));
		fwrite(s, 1, (size_t)((lt ? lt : end) - s), out);
		if (!lt)
			break;
		fputs("\\u003c", out);
		s = lt + 1;
	}
}

/* json_put_fn over a file. */
static void put_file(void *ctx, const char *bytes, size_t n)
{
	fwrite(bytes, 1, n, ctx);
}

/* A JSON string's characters, without the quotes ('<', '>' and '&' escaped too: it sits in a
 * <script>). */
static void put_str_body(FILE *out, const char *s)
{
	json_escape(s, true, put_file, out);
}

/* A JSON string. */
static void put_str(FILE *out, const char *s)
{
	fputc('"', out);
	put_str_body(out, s);
	fputc('"', out);
}

/* Text for HTML. */
static void put_html(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* The capture's names, ", " between them, each written by put. */
static void put_names(FILE *out, const struct report *r, void (*put)(FILE *, const char *))
{
	for (unsigned i = 0; i < r->cfg.n_captures; i++) {
		if (i)
			put(out, ", ");
		put(out, r->cfg.captures[i]);
	}
}

/* A time as microseconds since the capture's first frame: integral, or with 3 decimals. */
static void put_us(FILE *out, int64_t t, int64_t t0)
{
	int64_t d = (int64_t)((uint64_t)t - (uint64_t)t0);
	if (d % 1000 == 0)
		fprintf(out, "%" PRId64, d / 1000);
	else
		fprintf(out, "%s%" PRId64 ".%03" PRId64, d < 0 ? "-" : "", (d < 0 ? -(d / 1000) : d / 1000),
			d < 0 ? -(d % 1000) : d % 1000);
}

static void put_dur_us(FILE *out, int64_t ns)
{
	if (ns < 0)
		fputs("null", out);
	else
		put_us(out, ns, 0);
}

/* ---- series ---- */

/* ---- columns: arrays of numbers, written through a string builder (printf per number made
 * a quarter of the report's time) ---- */

static struct sb col;

static void col_begin(const char *name)
{
	sb_reset(&col);
	sb_puts(&col, ",\"");
	sb_puts(&col, name);
	sb_puts(&col, "\":[");
}

/* Before value i: its comma, and the builder emptied into out when it is nearly full. */
static void col_next(FILE *out, uint32_t i)
{
	sb_end_record(&col, out);
	if (i)
		sb_putn(&col, ",", 1);
}

static void col_i(int64_t v)
{
	if (v < 0) {
		sb_putn(&col, "-", 1);
		sb_putu(&col, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_putu(&col, (uint64_t)v);
	}
}

/* ns as µs: integral, or with 3 decimals; null when negative and nullable. */
static void col_us(int64_t ns, bool nullable)
{
	if (ns < 0 && nullable) {
		sb_putn(&col, "null", 4);
		return;
	}
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		sb_putn(&col, "-", 1);
	sb_putu(&col, a / 1000);
	if (a % 1000) {
		sb_putn(&col, ".", 1);
		sb_putu0(&col, a % 1000, 3);
	}
}

static void col_end(FILE *out)
{
	sb_putn(&col, "]", 1);
	sb_flush(&col, out);
}

/* The columns of an array of structs (points, bins, the timeline), one table each: a column's
 * name, its field, how the field is read and written, and the count field that must be non-zero
 * for the value to be there (else null). */
enum col_kind {
	CK_U8, CK_U16, CK_U32, CK_U64, CK_I64,  /* integers */
	CK_T,        /* int64 ns since 1970: µs since t0 */
	CK_US,       /* int64 ns: µs, null when negative */
	CK_MEAN_US,  /* uint64 sum of ns over the count field: µs */
};
#define NO_IF UINT16_MAX
struct col_spec {
	const char *name;
	uint16_t off, if_off;   /* the field; the uint32 count that must be non-zero (NO_IF: none) */
	uint8_t kind;
};
#define COL(type, field, kind) {#field, offsetof(type, field), NO_IF, kind}
#define COL_IF(type, field, kind, cond) {#field, offsetof(type, field), offsetof(type, cond), kind}

static uint64_t field_u(const unsigned char *p, unsigned size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

static void put_columns(FILE *out, const void *base, size_t stride, uint32_t n, const struct col_spec *cs,
			size_t ncs, int64_t t0)
{
	static const unsigned char size[] = {[CK_U8] = 1, [CK_U16] = 2, [CK_U32] = 4, [CK_U64] = 8, [CK_I64] = 8,
					     [CK_T] = 8, [CK_US] = 8, [CK_MEAN_US] = 8};
	for (size_t k = 0; k < ncs; k++) {
		const struct col_spec *c = &cs[k];
		col_begin(c->name);
		for (uint32_t i = 0; i < n; i++) {
			const unsigned char *e = (const unsigned char *)base + (size_t)i * stride;
			uint64_t count = c->if_off == NO_IF ? 1 : field_u(e + c->if_off, 4);
			int64_t v = (int64_t)field_u(e + c->off, size[c->kind]);
			col_next(out, i);
			if (c->kind == CK_T)
				col_us((int64_t)((uint64_t)v - (uint64_t)t0), false);
			else if (c->kind == CK_MEAN_US)
				col_us(count ? (int64_t)((uint64_t)v / count) : -1, true);
			else if (c->kind == CK_US)
				col_us(count ? v : -1, true);
			else if (count)
				col_i(v);
			else
				sb_putn(&col, "null", 4);
		}
		col_end(out);
	}
}

static const struct col_spec point_cols[] = {
	COL(struct rpoint, t, CK_T), COL(struct rpoint, frame, CK_U64), COL(struct rpoint, psn, CK_I64),
	COL(struct rpoint, kind, CK_U8), COL(struct rpoint, flags, CK_U16), COL(struct rpoint, code, CK_U16),
	COL(struct rpoint, len, CK_U32), COL(struct rpoint, val, CK_US),
};

static void put_points(FILE *out, const struct rpoint *p, uint32_t n, int64_t t0)
{
	fprintf(out, "{\"n\":%" PRIu32, n);
	put_columns(out, p, sizeof(*p), n, point_cols, sizeof(point_cols) / sizeof(point_cols[0]), t0);
	fputs("}", out);
}

/* PSN extremes: null in a bin without them; response times: per bin, null in a bin without any */
static const struct col_spec bin_cols[] = {
	COL(struct sbin, req, CK_U32), COL(struct sbin, retx, CK_U32), COL(struct sbin, ooo, CK_U32),
	COL(struct sbin, gap, CK_U32), COL(struct sbin, tmo, CK_U32), COL(struct sbin, msgs, CK_U32),
	COL(struct sbin, acks, CK_U32), COL(struct sbin, naks, CK_U32), COL(struct sbin, rresp, CK_U32),
	COL(struct sbin, other, CK_U32), COL(struct sbin, ce, CK_U32), COL(struct sbin, copies, CK_U32),
	COL(struct sbin, bytes, CK_U64),
	COL_IF(struct sbin, psn_lo, CK_I64, req), COL_IF(struct sbin, psn_hi, CK_I64, req),
	COL_IF(struct sbin, ack_hi, CK_I64, acks), COL_IF(struct sbin, rr_lo, CK_I64, rresp),
	COL_IF(struct sbin, rr_hi, CK_I64, rresp), COL(struct sbin, rt_n, CK_U32),
	COL_IF(struct sbin, rt_min, CK_US, rt_n), COL_IF(struct sbin, rt_max, CK_US, rt_n),
	{"rt_mean", offsetof(struct sbin, rt_sum), offsetof(struct sbin, rt_n), CK_MEAN_US},
};

static void put_bins(FILE *out, const struct rdetail *d, int64_t t0)
{
	uint32_t n = d->tb.used;
	fputs("{\"mode\":\"bins\",\"t0\":", out);
	put_us(out, d->tb.t0, t0);
	fputs(",\"width\":", out);
	put_dur_us(out, d->tb.width);
	fprintf(out, ",\"n\":%" PRIu32, n);
	put_columns(out, d->bins, sizeof(d->bins[0]), n, bin_cols, sizeof(bin_cols) / sizeof(bin_cols[0]), t0);
	/* the stream's half-octave histogram of response times */
	fputs(",\"rt_hist\":", out);
	report_put_hist(out, d->rt_hist);
	fputs(",\"marks\":", out);
	put_points(out, d->marks, d->n_marks, t0);
	fprintf(out, ",\"marks_dropped\":%" PRIu32, d->marks_dropped);  /* the caller closes it */
}

static void put_series(FILE *out, const struct rstream *s, int64_t t0)
{
	if (!s) {
		fputs("{\"mode\":\"none\",\"reason\":\"no frames seen on this stream\"}", out);
	} else if (s->dropped) {
		fputs("{\"mode\":\"none\",\"reason\":\"memory budget for the report's series exhausted\"}", out);
	} else if (s->d) {
		put_bins(out, s->d, t0);
		report_cong_put_series(out, s, t0);
		fputc('}', out);
	} else {
		struct rpoint *pts = malloc(((size_t)s->n + 1) * sizeof(*pts));
		if (!pts) {
			fputs("{\"mode\":\"none\",\"reason\":\"out of memory\"}", out);
			return;
		}
		rstream_decode(s, pts);
		fputs("{\"mode\":\"exact\",\"points\":", out);
		put_points(out, pts, s->n, t0);
		free(pts);
		report_cong_put_series(out, s, t0);
		fputc('}', out);
	}
}

/* ---- the report block ---- */

static const struct col_spec timeline_cols[] = {
	COL(struct gbin, frames, CK_U64), COL(struct gbin, bytes, CK_U64), COL(struct gbin, roce, CK_U64),
	{"info", offsetof(struct gbin, sev) + ROCE_SEV_INFO * sizeof(uint64_t), NO_IF, CK_U64},
	{"warn", offsetof(struct gbin, sev) + ROCE_SEV_WARN * sizeof(uint64_t), NO_IF, CK_U64},
	{"error", offsetof(struct gbin, sev) + ROCE_SEV_ERROR * sizeof(uint64_t), NO_IF, CK_U64},
	COL(struct gbin, ev_frames, CK_U64),
};

static void put_timeline(FILE *out, const struct report *r)
{
	uint32_t n = r->tl.used;
	const struct gbin *b = r->bins;
	fputs("{\"t0\":", out);
	put_us(out, r->tl.t0, r->first_ts);
	fputs(",\"width\":", out);
	put_dur_us(out, r->tl.width);
	fprintf(out, ",\"n\":%" PRIu32, n);
	put_columns(out, b, sizeof(*b), n, timeline_cols, sizeof(timeline_cols) / sizeof(timeline_cols[0]), 0);
	fputs(",\"frame_list\":[", out);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? ",[" : "[", out);
		for (uint64_t k = 0; k < b[i].ev_frames && k < GBIN_FRAMES; k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", b[i].f[k]);
		fputc(']', out);
	}
	fputs("]}", out);
}

/* What the page's note says of the time stamps: frames out of order (and the largest step back),
 * before 1970, beyond the range plotted (held at its limit, REPORT_TS_MAX ns either side of
 * 1970), and whether the frames span more than 10 years. */
static void put_ts_checks(FILE *out, const struct report *r)
{
	int64_t span = r->have_ts ? r->last_ts - r->first_ts : 0;
	fprintf(out, ",\"timestamps\":{\"backwards\":%" PRIu64 ",\"max_step_back_us\":", r->ts_backwards);
	put_us(out, r->ts_max_back, 0);
	fprintf(out, ",\"before_1970\":%" PRIu64 ",\"clamped\":%" PRIu64 ",\"limit_s\":%" PRId64 ",\"absurd_span\":%s}",
		r->ts_before_1970, r->ts_clamped, REPORT_TS_MAX / 1000000000, span > REPORT_SPAN_ABSURD_NS ? "true" : "false");
}

static void put_report(FILE *out, struct report *r, const struct report_sel *sel)
{
	fputs("{\"tool\":\"rocedump\",\"version\":", out);
	put_str(out, ROCEDUMP_VERSION);
	fputs(",\"capture\":\"", out);
	put_names(out, r, put_str_body);
	fputs("\",\"captures\":[", out);
	for (unsigned i = 0; i < r->cfg.n_captures; i++) {
		fputs(i ? "," : "", out);
		put_str(out, r->cfg.captures[i]);
	}
	fputc(']', out);
	int64_t t0 = r->have_ts ? r->first_ts : 0;
	/* seconds since 1970 as a string: 19 digits of nanoseconds are past a double's precision */
	lldiv_t q = lldiv(t0, 1000000000);
	if (q.rem < 0) {
		q.quot--;
		q.rem += 1000000000;
	}
	fprintf(out, ",\"first_ts\":\"%lld.%09lld\",\"span_us\":", q.quot, q.rem);
	put_us(out, r->have_ts ? r->last_ts : 0, t0);
	put_ts_checks(out, r);
	fprintf(out, ",\"options\":{\"plots\":%u,\"exact_points\":%u,\"table_max\":%u,\"bins\":%u,\"marks_max\":%u}",
		r->cfg.plots, (unsigned)REPORT_EXACT_POINTS, (unsigned)REPORT_TABLE_MAX, (unsigned)TBINS_N,
		(unsigned)REPORT_MARKS_MAX);
	fprintf(out, ",\"streams_without_series\":%" PRIu64 ",\"pairs_total\":%" PRIu32 ",\"pairs_listed\":%" PRIu32,
		r->dropped_streams, sel->n_pairs, sel->listed);
	fputs(",\"event_table\":[", out);
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		fputs(e ? ",{\"name\":" : "{\"name\":", out);
		put_str(out, roce_event_name((enum roce_event)e));
		fputs(",\"severity\":", out);
		put_str(out, roce_severity_name(roce_event_severity((enum roce_event)e)));
		fputs(",\"description\":", out);
		put_str(out, roce_event_description((enum roce_event)e));
		fputc('}', out);
	}
	fputs("],\"timeline\":", out);
	put_timeline(out, r);
	fputs(",\"pairs\":[", out);
	for (uint32_t i = 0; i < sel->listed; i++) {
		const struct rpair *p = &sel->pairs[i];
		fprintf(out, "%s{\"pair\":%" PRIu32 ",\"pair_id\":%" PRIu32 ",\"rank\":%" PRIu32 ",\"rows\":[", i ? "," : "",
			p->pair, p->pair_id, i);
		for (uint32_t k = 0; k < p->rows && p->first_row != UINT32_MAX; k++)
			fprintf(out, "%s%" PRIu32, k ? "," : "", p->first_row + k);
		fprintf(out, "],\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64 ",\"retransmits\":%" PRIu64
			     ",\"bytes\":%" PRIu64 ",\"plotted\":%s}",
			p->errors, p->warnings, p->retransmits, p->bytes, i < r->cfg.plots ? "true" : "false");
	}
	/* series: one per row, null for the rows of pairs without plots */
	fputs("],\"series\":[", out);
	for (uint32_t i = 0; i < sel->n_rows; i++) {
		if (i)
			fputc(',', out);
		const struct rrow *row = &sel->rows[i];
		if (row->rank < r->cfg.plots)
			put_series(out, row->s, t0);
		else
			fputs("null", out);
	}
	fputs("]", out);
	report_cong_put(out, r, t0);
	report_path_put(out, r, r->paths);
	fputs("}", out);
}

/* ---- shared with report_cong.c ---- */

void report_put_us(FILE *out, int64_t t, int64_t t0)
{
	put_us(out, t, t0);
}

void report_put_points(FILE *out, const struct rpoint *p, uint32_t n, int64_t t0)
{
	put_points(out, p, n, t0);
}

void report_put_hist(FILE *out, const uint64_t *hist)
{
	const char *sep = "";
	fputc('[', out);
	for (unsigned k = 0; k < RT_BUCKETS; k++) {
		if (!hist[k])
			continue;
		/* bucket 0: [0, 1); 1 + 2j: [2^j, 2^j·√2); 2 + 2j: [2^j·√2, 2^(j+1)) */
		double lo = k == 0 ? 0 : (double)(UINT64_C(1) << ((k - 1) / 2)) * ((k - 1) % 2 ? 1.4142135623730951 : 1);
		double hi = k == 0 ? 1 : (double)(UINT64_C(1) << ((k - 1) / 2)) * ((k - 1) % 2 ? 2 : 1.4142135623730951);
		fprintf(out, "%s[%.3f,%.3f,%" PRIu64 "]", sep, lo, hi, hist[k]);
		sep = ",";
	}
	fputc(']', out);
}

/* ---- the page ---- */

static void put_data(FILE *out, struct report *r, const struct report_sel *sel)
{
	fputs("<script type=\"application/json\" id=\"rd-summary\">", out);
	put_json_text(out, sel->summary_json, sel->summary_len);
	fputs("</script>\n<script type=\"application/json\" id=\"rd-streams\">", out);
	put_json_text(out, sel->streams_json, sel->streams_len);
	fputs("</script>\n<script type=\"application/json\" id=\"rd-report\">", out);
	put_report(out, r, sel);
	fputs("</script>\n", out);
}

static void put_asset(FILE *out, const unsigned char *a, size_t n)
{
	fwrite(a, 1, n, out);
}

int report_page_write(struct report *r, const struct report_sel *sel, char *err, size_t errlen)
{
	FILE *out = r->out;
	const char *t = (const char *)report_html, *end = t + report_html_len;
	while (t < end) {
		const char *m = memmem(t, (size_t)(end - t), "@@", 2);
		const char *m2 = m ? memmem(m + 2, (size_t)(end - m - 2), "@@", 2) : NULL;
		if (!m || !m2) {
			fwrite(t, 1, (size_t)(end - t), out);
			break;
		}
		fwrite(t, 1, (size_t)(m - t), out);
		size_t n = (size_t)(m2 - m - 2);
		const char *name = m + 2;
		if (n == 5 && memcmp(name, "TITLE", 5) == 0) {
			put_names(out, r, put_html);
		} else if (n == 5 && memcmp(name, "STYLE", 5) == 0) {
			put_asset(out, uplot_min_css, uplot_min_css_len);
			put_asset(out, report_css, report_css_len);
		} else if (n == 4 && memcmp(name, "DATA", 4) == 0) {
			put_data(out, r, sel);
		} else if (n == 6 && memcmp(name, "SCRIPT", 6) == 0) {
			put_asset(out, uplot_iife_min_js, uplot_iife_min_js_len);
			fputs("\n</script>\n<script>\n", out);
			put_asset(out, report_js, report_js_len);
		} else {
			fwrite(m, 1, (size_t)(m2 + 2 - m), out);  /* not a marker */
		}
		t = m2 + 2;
	}
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(err, errlen, "%s: %s", r->cfg.path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
