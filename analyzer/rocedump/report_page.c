/* report_page.c: writes rocedump --report's HTML page: the template (report/report.html) with
 * its @@NAME@@ markers filled: the styles, the data blocks (JSON in <script
 * type="application/json">: the summary and streams objects as -q -T json and --summary -T json
 * print them, and the report's own series), and the scripts (the vendored uPlot and
 * report/report.js). Nothing on the page is fetched from elsewhere. */
#define _GNU_SOURCE  /* memmem */
#include "report_data.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_assets.h"
#include "sb.h"

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

/* A JSON string. */
static void put_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
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

#define PUT_COLUMN(out, name, arr, n, expr)                       \
	do {                                                      \
		col_begin(name);                                  \
		for (uint32_t i_ = 0; i_ < (n); i_++) {           \
			col_next(out, i_);                        \
			col_i((int64_t)expr((arr)[i_]));          \
		}                                                 \
		col_end(out);                                     \
	} while (0)

static void put_points(FILE *out, const struct rpoint *p, uint32_t n, int64_t t0)
{
	fprintf(out, "{\"n\":%" PRIu32, n);
	col_begin("t");
	for (uint32_t i = 0; i < n; i++) {
		col_next(out, i);
		col_us((int64_t)((uint64_t)p[i].t - (uint64_t)t0), false);
	}
	col_end(out);
#define P_FRAME(x) (x).frame
#define P_PSN(x) (x).psn
#define P_KIND(x) (x).kind
#define P_FLAGS(x) (x).flags
#define P_CODE(x) (x).code
#define P_LEN(x) (x).len
	PUT_COLUMN(out, "frame", p, n, P_FRAME);
	PUT_COLUMN(out, "psn", p, n, P_PSN);
	PUT_COLUMN(out, "kind", p, n, P_KIND);
	PUT_COLUMN(out, "flags", p, n, P_FLAGS);
	PUT_COLUMN(out, "code", p, n, P_CODE);
	PUT_COLUMN(out, "len", p, n, P_LEN);
	col_begin("val");
	for (uint32_t i = 0; i < n; i++) {
		col_next(out, i);
		col_us(p[i].val, true);
	}
	col_end(out);
	fputs("}", out);
}

static void put_bins(FILE *out, const struct rdetail *d, int64_t t0)
{
	const struct sbin *b = d->bins;
	uint32_t n = d->tb.used;
	fputs("{\"mode\":\"bins\",\"t0\":", out);
	put_us(out, d->tb.t0, t0);
	fputs(",\"width\":", out);
	put_dur_us(out, d->tb.width);
	fprintf(out, ",\"n\":%" PRIu32, n);
#define B_REQ(x) (x).req
#define B_RETX(x) (x).retx
#define B_OOO(x) (x).ooo
#define B_GAP(x) (x).gap
#define B_TMO(x) (x).tmo
#define B_MSGS(x) (x).msgs
#define B_ACKS(x) (x).acks
#define B_NAKS(x) (x).naks
#define B_RRESP(x) (x).rresp
#define B_OTHER(x) (x).other
#define B_CE(x) (x).ce
#define B_BYTES(x) (x).bytes
	PUT_COLUMN(out, "req", b, n, B_REQ);
	PUT_COLUMN(out, "retx", b, n, B_RETX);
	PUT_COLUMN(out, "ooo", b, n, B_OOO);
	PUT_COLUMN(out, "gap", b, n, B_GAP);
	PUT_COLUMN(out, "tmo", b, n, B_TMO);
	PUT_COLUMN(out, "msgs", b, n, B_MSGS);
	PUT_COLUMN(out, "acks", b, n, B_ACKS);
	PUT_COLUMN(out, "naks", b, n, B_NAKS);
	PUT_COLUMN(out, "rresp", b, n, B_RRESP);
	PUT_COLUMN(out, "other", b, n, B_OTHER);
	PUT_COLUMN(out, "ce", b, n, B_CE);
#define B_COPIES(x) (x).copies
	PUT_COLUMN(out, "copies", b, n, B_COPIES);
	PUT_COLUMN(out, "bytes", b, n, B_BYTES);
	/* PSN extremes: null in a bin without them */
	static const char *const names[5] = {"psn_lo", "psn_hi", "ack_hi", "rr_lo", "rr_hi"};
	for (unsigned c = 0; c < 5; c++) {
		col_begin(names[c]);
		for (uint32_t i = 0; i < n; i++) {
			bool has = c < 2 ? b[i].req : c == 2 ? b[i].acks : b[i].rresp;
			int64_t v = c == 0 ? b[i].psn_lo : c == 1 ? b[i].psn_hi : c == 2 ? b[i].ack_hi : c == 3 ? b[i].rr_lo : b[i].rr_hi;
			col_next(out, i);
			if (has)
				col_i(v);
			else
				sb_putn(&col, "null", 4);
		}
		col_end(out);
	}
	/* response times: per bin, and the stream's half-octave histogram [lo_us, hi_us, count] */
#define B_RTN(x) (x).rt_n
	PUT_COLUMN(out, "rt_n", b, n, B_RTN);
	static const char *const rt_names[3] = {"rt_min", "rt_max", "rt_mean"};
	for (unsigned c = 0; c < 3; c++) {
		col_begin(rt_names[c]);
		for (uint32_t i = 0; i < n; i++) {
			col_next(out, i);
			int64_t v = c == 0 ? b[i].rt_min : c == 1 ? b[i].rt_max : b[i].rt_n ? (int64_t)(b[i].rt_sum / b[i].rt_n) : 0;
			col_us(b[i].rt_n ? v : -1, true);
		}
		col_end(out);
	}
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

static void put_timeline(FILE *out, const struct report *r)
{
	uint32_t n = r->tl.used;
	const struct gbin *b = r->bins;
	fputs("{\"t0\":", out);
	put_us(out, r->tl.t0, r->first_ts);
	fputs(",\"width\":", out);
	put_dur_us(out, r->tl.width);
	fprintf(out, ",\"n\":%" PRIu32, n);
#define G_FRAMES(x) (x).frames
#define G_BYTES(x) (x).bytes
#define G_ROCE(x) (x).roce
#define G_INFO(x) (x).sev[ROCE_SEV_INFO]
#define G_WARN(x) (x).sev[ROCE_SEV_WARN]
#define G_ERROR(x) (x).sev[ROCE_SEV_ERROR]
#define G_EVF(x) (x).ev_frames
	PUT_COLUMN(out, "frames", b, n, G_FRAMES);
	PUT_COLUMN(out, "bytes", b, n, G_BYTES);
	PUT_COLUMN(out, "roce", b, n, G_ROCE);
	PUT_COLUMN(out, "info", b, n, G_INFO);
	PUT_COLUMN(out, "warn", b, n, G_WARN);
	PUT_COLUMN(out, "error", b, n, G_ERROR);
	PUT_COLUMN(out, "ev_frames", b, n, G_EVF);
	fputs(",\"frame_list\":[", out);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? ",[" : "[", out);
		for (uint64_t k = 0; k < b[i].ev_frames && k < GBIN_FRAMES; k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", b[i].f[k]);
		fputc(']', out);
	}
	fputs("]}", out);
}

static void put_report(FILE *out, const struct report *r, const struct report_sel *sel)
{
	fputs("{\"tool\":\"rocedump\",\"version\":", out);
	put_str(out, ROCEDUMP_VERSION);
	fputs(",\"capture\":", out);
	put_str(out, r->cfg.capture ? r->cfg.capture : "");
	int64_t t0 = r->have_ts ? r->first_ts : 0;
	/* seconds since 1970 as a string: 19 digits of nanoseconds are past a double's precision */
	lldiv_t q = lldiv(t0, 1000000000);
	if (q.rem < 0) {
		q.quot--;
		q.rem += 1000000000;
	}
	fprintf(out, ",\"first_ts\":\"%lld.%09lld\",\"span_us\":", q.quot, q.rem);
	put_us(out, r->have_ts ? r->last_ts : 0, t0);
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

static void put_data(FILE *out, const struct report *r, const struct report_sel *sel)
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
			put_html(out, r->cfg.capture ? r->cfg.capture : "");
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
