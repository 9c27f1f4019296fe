/* congestion_out.c: rocedump's congestion reports (see congestion_out.h). Text tables fit in 120
 * columns; times in the JSON are nanoseconds (a pause quantum is 1.28 ns at 400 Gb/s). */
#include "output/congestion_out.h"

#include <inttypes.h>
#include <string.h>

#include "output/fmt.h"

/* ---- PFC and PAUSE ---- */

struct pfc_ctx {
	FILE *out;
	int64_t span_ns;
	unsigned rows;
	bool pause;             /* JSON: the legacy PAUSE rows, else the PFC ones */
	const char *sep;
};

static void pfc_text_row(const struct roce_pfc_row *r, void *user)
{
	struct pfc_ctx *c = user;
	char mac[18], paused[FMT_DUR_MAX], longest[FMT_DUR_MAX], prio[8];
	if (!c->rows++)
		fprintf(c->out, "%-17s %-5s %10s %10s %10s %12s %12s %8s %7s\n", "source", "prio", "frames", "xoff", "xon",
			"paused", "longest", "paused%", "storms");
	fmt_mac(mac, r->src);
	fmt_duration(paused, (double)r->paused_ns);
	fmt_duration(longest, (double)r->longest_ns);
	if (r->priority < 0)
		snprintf(prio, sizeof(prio), "PAUSE");
	else
		snprintf(prio, sizeof(prio), "p%d", r->priority);
	double pct = c->span_ns > 0 ? 100.0 * (double)r->paused_ns / (double)c->span_ns : 0.0;
	fprintf(c->out, "%-17s %-5s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12s %12s %7.2f%% %7" PRIu64 "\n", mac, prio,
		r->frames, r->xoff, r->xon, paused, longest, pct, r->storms);
}

struct pair_ctx {
	FILE *out;
	unsigned rows;
	const char *sep;
};

static void pair_text_row(const struct roce_cnp_pair_row *r, void *user)
{
	struct pair_ctx *c = user;
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];
	if (!c->rows++)
		fprintf(c->out, "CNPs answering no one stream (none or several with unanswered CE marks):\n");
	fmt_ip(src, r->src, r->addr_len);
	fmt_ip(dst, r->dst, r->addr_len);
	fprintf(c->out, "  %s > %s: %" PRIu64 " (ambiguous %" PRIu64 ")\n", src, dst, r->cnps, r->ambiguous);
}

static void count_pfc(const struct roce_pfc_row *r, void *user)
{
	(void)r;
	++*(unsigned *)user;
}

void congestion_print_text(const struct roce_analyzer *a, uint64_t link_bps, FILE *out)
{
	struct pfc_ctx c = {out, roce_analyzer_span_ns(a), 0, false, ""};
	char span[FMT_DUR_MAX];
	unsigned n = 0;
	roce_analyzer_pfc_foreach(a, count_pfc, &n);
	uint64_t untracked = roce_analyzer_pfc_untracked(a);
	struct pair_ctx p = {out, 0, ""};
	roce_analyzer_cnp_pairs_foreach(a, pair_text_row, &p);
	if (!n && !untracked)
		return;
	fmt_duration(span, (double)c.span_ns);
	fprintf(out, "PFC/PAUSE by source MAC and priority (link %.0f Gb/s, capture %s):\n", (double)link_bps / 1e9, span);
	roce_analyzer_pfc_foreach(a, pfc_text_row, &c);
	if (untracked)
		fprintf(out, "  (%" PRIu64 " frames of sources past the first 4096 not accounted)\n", untracked);
}

static void pfc_json_row(const struct roce_pfc_row *r, void *user)
{
	struct pfc_ctx *c = user;
	if ((r->priority < 0) != c->pause)
		return;
	char mac[18];
	fmt_mac(mac, r->src);
	fprintf(c->out, "%s{\"src\":\"%s\"", c->sep, mac);
	if (!c->pause)
		fprintf(c->out, ",\"priority\":%d", r->priority);
	fprintf(c->out, ",\"frames\":%" PRIu64 ",\"xoff\":%" PRIu64 ",\"xon\":%" PRIu64 ",\"paused_ns\":%" PRId64
			",\"longest_ns\":%" PRId64 ",\"storms\":%" PRIu64 ",\"paused_fraction\":%.6f}",
		r->frames, r->xoff, r->xon, r->paused_ns, r->longest_ns, r->storms,
		c->span_ns > 0 ? (double)r->paused_ns / (double)c->span_ns : 0.0);
	c->sep = ",";
}

static void pair_json_row(const struct roce_cnp_pair_row *r, void *user)
{
	struct pair_ctx *c = user;
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];
	fmt_ip(src, r->src, r->addr_len);
	fmt_ip(dst, r->dst, r->addr_len);
	fprintf(c->out, "%s{\"src\":\"%s\",\"dst\":\"%s\",\"cnps\":%" PRIu64 ",\"ambiguous\":%" PRIu64 "}", c->sep, src,
		dst, r->cnps, r->ambiguous);
	c->sep = ",";
}

void congestion_print_json(const struct roce_analyzer *a, FILE *out)
{
	struct pfc_ctx c = {out, roce_analyzer_span_ns(a), 0, false, ""};
	fputs(",\"pfc\":[", out);
	roce_analyzer_pfc_foreach(a, pfc_json_row, &c);
	fputs("],\"pause\":[", out);
	c.pause = true;
	c.sep = "";
	roce_analyzer_pfc_foreach(a, pfc_json_row, &c);
	fputs("],\"cnp_unattributed\":[", out);
	struct pair_ctx p = {out, 0, ""};
	roce_analyzer_cnp_pairs_foreach(a, pair_json_row, &p);
	fprintf(out, "],\"pfc_untracked\":%" PRIu64, roce_analyzer_pfc_untracked(a));
}

/* ---- per stream ---- */

bool congestion_stream_has(const struct roce_stream_stats *s)
{
	return s->ecn[1] || s->ecn[2] || s->ecn[3] || s->cnps || s->fecn || s->becn || s->cnp_missing || s->cnp_pending;
}

void congestion_stream_text_header(FILE *out)
{
	fprintf(out, "congestion: packets by ECN codepoint, CNPs from the destination, cnp.missing, CE marks pending "
		     "at the end, FECN/BECN\n");
	fprintf(out, "%4s %6s %-15s   %-15s %-8s %7s %5s %4s %5s %4s %4s %4s %-19s %5s\n", "pair", "stream", "source",
		"destination", "qp", "not-ect", "ect0", "ect1", "ce", "cnps", "miss", "pend", "ce>cnp us 50/99/max", "f/b");
}

void congestion_stream_text_row(FILE *out, const struct roce_stream_stats *s)
{
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX], lat[48] = "-", fb[24];
	fmt_ip(src, s->src, s->addr_len);
	fmt_ip(dst, s->dst, s->addr_len);
	if (s->ce_to_cnp_count) {  /* microseconds: one decimal below 100, none above (19 columns) */
		const int64_t ns[3] = {s->ce_to_cnp_p50_ns, s->ce_to_cnp_p99_ns, s->ce_to_cnp_max_ns};
		size_t n = 0;
		for (unsigned i = 0; i < 3 && n < sizeof(lat); i++) {
			double us = (double)ns[i] / 1e3;
			int k = snprintf(lat + n, sizeof(lat) - n, "%s%.*f", i ? "/" : "", us < 100 ? 1 : 0, us);
			n += k > 0 ? (size_t)k : 0;
		}
	}
	snprintf(fb, sizeof(fb), "%" PRIu64 "/%" PRIu64, s->fecn, s->becn);
	fprintf(out, "%4" PRIu32 " %6" PRIu32 " %-15s > %-15s 0x%06" PRIx32 " %7" PRIu64 " %5" PRIu64 " %4" PRIu64
		     " %5" PRIu64 " %4" PRIu64 " %4" PRIu64 " %4" PRIu64 " %-19s %5s\n",
		s->pair, s->stream, src, dst, s->dqpn, s->ecn[0], s->ecn[2], s->ecn[1], s->ecn[3], s->cnps, s->cnp_missing,
		s->cnp_pending, lat, fb);
}

void congestion_stream_json(const struct roce_stream_stats *s, FILE *out)
{
	fprintf(out, ",\"congestion\":{\"ecn\":{\"not_ect\":%" PRIu64 ",\"ect0\":%" PRIu64 ",\"ect1\":%" PRIu64
		     ",\"ce\":%" PRIu64 "},\"cnps\":%" PRIu64 ",\"cnp_unexpected\":%" PRIu64,
		s->ecn[0], s->ecn[2], s->ecn[1], s->ecn[3], s->cnps, s->cnp_unexpected);
	if (s->ce_to_cnp_count)
		fprintf(out, ",\"ce_to_cnp_ns\":{\"count\":%" PRIu64 ",\"min\":%" PRId64 ",\"p50\":%" PRId64
			     ",\"p50_range_ns\":[%" PRId64 ",%" PRId64 "],\"p99\":%" PRId64 ",\"p99_range_ns\":[%" PRId64
			     ",%" PRId64 "],\"max\":%" PRId64 "}",
			s->ce_to_cnp_count, s->ce_to_cnp_min_ns, s->ce_to_cnp_p50_ns, s->ce_to_cnp_p50_range_ns[0],
			s->ce_to_cnp_p50_range_ns[1], s->ce_to_cnp_p99_ns, s->ce_to_cnp_p99_range_ns[0],
			s->ce_to_cnp_p99_range_ns[1], s->ce_to_cnp_max_ns);
	else
		fputs(",\"ce_to_cnp_ns\":null", out);
	fprintf(out, ",\"cnp_missing\":%" PRIu64 ",\"cnp_pending\":%" PRIu64 ",\"fecn\":%" PRIu64 ",\"becn\":%" PRIu64 "}",
		s->cnp_missing, s->cnp_pending, s->fecn, s->becn);
}
