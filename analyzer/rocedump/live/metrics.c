/* metrics.c: Prometheus text exposition of the run's counters (see metrics.h). */
#define _GNU_SOURCE  /* open_memstream */
#include "live/metrics.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/fmt.h"
#include "output/path_out.h"
#include "roce/mirror.h"

static bool ranks_above(const struct roce_stream_stats *a, const struct roce_stream_stats *b)
{
	return a->retransmits != b->retransmits ? a->retransmits > b->retransmits : a->missing_psns > b->missing_psns;
}

static void keep_top(const struct roce_stream_stats *s, void *user)
{
	struct metrics_top *top = user;
	if (!s->retransmits && !s->missing_psns)
		return;
	unsigned i = top->n;
	if (i == METRICS_TOP_STREAMS) {
		if (!ranks_above(s, &top->s[i - 1]))
			return;
		i--;
	} else {
		top->n++;
	}
	while (i > 0 && ranks_above(s, &top->s[i - 1])) {
		top->s[i] = top->s[i - 1];
		i--;
	}
	top->s[i] = *s;
}

void metrics_top_streams(const struct roce_analyzer *an, struct metrics_top *top)
{
	top->n = 0;
	roce_analyzer_foreach(an, keep_top, top);
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A live capture on several interfaces: each one's counts, labelled with its name. */
static void capture_ifaces(FILE *f, const struct capstats *cs)
{
	head(f, "rocedump_capture_received_total", "counter",
	     "Packets the kernel received for the capture (passed the filter).");
	for (uint32_t i = 0; i < cs->n_ifaces; i++)
		fprintf(f, "rocedump_capture_received_total{interface=\"%s\"} %" PRIu64 "\n",
			capstats_iface_name(cs, capstats_iface_key(0, cs->iface[i].if_id)), cs->iface[i].recv);
	head(f, "rocedump_capture_dropped_total", "counter",
	     "Packets the capture lost: by the kernel (capture buffer full) or by the interface. A PSN gap may be one of these.");
	for (uint32_t i = 0; i < cs->n_ifaces; i++) {
		const char *name = capstats_iface_name(cs, capstats_iface_key(0, cs->iface[i].if_id));
		fprintf(f, "rocedump_capture_dropped_total{by=\"kernel\",interface=\"%s\"} %" PRIu64 "\n", name,
			cs->iface[i].os_drop);
		fprintf(f, "rocedump_capture_dropped_total{by=\"interface\",interface=\"%s\"} %" PRIu64 "\n", name,
			cs->iface[i].if_drop);
	}
}

static void capture(FILE *f, const struct capstats *cs)
{
	struct capstats_totals t = capstats_totals(cs);
	if (cs->format == CAPSTATS_LIVE && cs->n_ifaces > 1) {
		capture_ifaces(f, cs);
		return;
	}
	if (cs->format == CAPSTATS_LIVE) {
		head(f, "rocedump_capture_received_total", "counter",
		     "Packets the kernel received for the capture (passed the filter).");
		fprintf(f, "rocedump_capture_received_total %" PRIu64 "\n", cs->iface[0].recv);
	}
	if (!t.has_if_drop && !t.has_os_drop)
		return;
	head(f, "rocedump_capture_dropped_total", "counter",
	     "Packets the capture lost: by the kernel (capture buffer full) or by the interface. A PSN gap may be one of these.");
	if (t.has_os_drop)
		fprintf(f, "rocedump_capture_dropped_total{by=\"kernel\"} %" PRIu64 "\n", t.os_drop);
	if (t.has_if_drop)
		fprintf(f, "rocedump_capture_dropped_total{by=\"interface\"} %" PRIu64 "\n", t.if_drop);
}

static void frames(FILE *f, const struct summary *s)
{
	head(f, "rocedump_frames_total", "counter",
	     "Frames analysed, by BTH opcode (code; opcode: transport_name; none: not RoCE or no BTH).");
	uint64_t with_op = 0;
	for (unsigned op = 0; op < 256; op++) {
		if (!s->opcode[op])
			continue;
		const struct roce_opcode_info *i = roce_opcode_info((uint8_t)op);
		with_op += s->opcode[op];
		const char *tr = roce_transport_name((enum roce_transport)i->transport);
		if (!i->name)
			fprintf(f, "rocedump_frames_total{code=\"0x%02x\",opcode=\"RESERVED\"}", op);
		else if (strcmp(tr, i->name) == 0)  /* CNP */
			fprintf(f, "rocedump_frames_total{code=\"0x%02x\",opcode=\"%s\"}", op, i->name);
		else
			fprintf(f, "rocedump_frames_total{code=\"0x%02x\",opcode=\"%s_%s\"}", op, tr, i->name);
		fprintf(f, " %" PRIu64 "\n", s->opcode[op]);
	}
	fprintf(f, "rocedump_frames_total{code=\"none\",opcode=\"none\"} %" PRIu64 "\n", s->frames - with_op);
	head(f, "rocedump_bytes_total", "counter", "Bytes of the frames analysed, as on the wire.");
	fprintf(f, "rocedump_bytes_total %" PRIu64 "\n", s->bytes);
	head(f, "rocedump_roce_frames_total", "counter", "RoCE frames by version.");
	fprintf(f, "rocedump_roce_frames_total{version=\"v1\"} %" PRIu64 "\n", s->roce[1]);
	fprintf(f, "rocedump_roce_frames_total{version=\"v2\"} %" PRIu64 "\n", s->roce[2]);
	head(f, "rocedump_icrc_total", "counter", "RoCE frames by ICRC outcome.");
	fprintf(f, "rocedump_icrc_total{status=\"good\"} %" PRIu64 "\n", s->icrc[ROCE_ICRC_GOOD]);
	fprintf(f, "rocedump_icrc_total{status=\"bad\"} %" PRIu64 "\n", s->icrc[ROCE_ICRC_BAD]);
	fprintf(f, "rocedump_icrc_total{status=\"unverifiable\"} %" PRIu64 "\n", s->icrc[ROCE_ICRC_UNVERIFIABLE]);
	head(f, "rocedump_events_total", "counter", "Frames with each anomaly event (rocedump --list-events).");
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
		fprintf(f, "rocedump_events_total{event=\"%s\",severity=\"%s\"} %" PRIu64 "\n",
			roce_event_name((enum roce_event)e), roce_severity_name(roce_event_severity((enum roce_event)e)),
			s->events[e]);
}

/* ---- congestion: ECN marks, PFC and PAUSE ---- */

/* Totals of one PFC priority (t[0-7]) or of the legacy PAUSE (t[8]) over every source MAC. */
enum { PFC_FRAMES, PFC_XOFF, PFC_XON, PFC_STORMS, PFC_PAUSED_NS, PFC_FIELDS };
struct pfc_totals {
	uint64_t v[PFC_FIELDS];
};

static void add_pfc_row(const struct roce_pfc_row *r, void *user)
{
	struct pfc_totals *t = &((struct pfc_totals *)user)[r->priority < 0 ? 8 : r->priority];
	t->v[PFC_FRAMES] += r->frames;
	t->v[PFC_XOFF] += r->xoff;
	t->v[PFC_XON] += r->xon;
	t->v[PFC_STORMS] += r->storms;
	t->v[PFC_PAUSED_NS] += r->paused_ns > 0 ? (uint64_t)r->paused_ns : 0;
}

static void congestion(FILE *f, const struct summary *s, const struct roce_analyzer *an)
{
	static const char *const codepoints[4] = {"not_ect", "ect1", "ect0", "ce"};
	static const struct {
		const char *name, *help;
	} pfc[PFC_FIELDS] = {
		[PFC_FRAMES] = {"rocedump_pfc_frames_total",
				"PFC frames naming each priority (priority=\"pause\": 802.3x PAUSE frames), all sources."},
		[PFC_XOFF] = {"rocedump_pfc_xoff_total", "Of them, with a pause time above zero."},
		[PFC_XON] = {"rocedump_pfc_xon_total", "Of them, with a pause time of zero (resume)."},
		[PFC_STORMS] = {"rocedump_pfc_storms_total", "Pauses longer than --pfc-storm-ms (pfc.storm)."},
		[PFC_PAUSED_NS] = {"rocedump_pfc_paused_seconds_total",
				   "Time paused, summed over the sources (a source's pauses as a union; one still "
				   "going counts up to the last frame)."},
	};
	head(f, "rocedump_ecn_frames_total", "counter",
	     "RoCE frames by the IP header's ECN codepoint (ce: congestion experienced, due a CNP).");
	for (unsigned i = 0; i < 4; i++)
		fprintf(f, "rocedump_ecn_frames_total{codepoint=\"%s\"} %" PRIu64 "\n", codepoints[i], s->ecn[i]);
	struct pfc_totals t[9] = {{{0}}};
	roce_analyzer_pfc_foreach(an, add_pfc_row, t);
	for (unsigned m = 0; m < PFC_FIELDS; m++) {
		head(f, pfc[m].name, "counter", pfc[m].help);
		for (unsigned k = 0; k < 9; k++) {
			fputs(pfc[m].name, f);
			if (k < 8)
				fprintf(f, "{priority=\"%u\"}", k);
			else
				fputs("{priority=\"pause\"}", f);
			if (m == PFC_PAUSED_NS)
				fprintf(f, " %.9f\n", (double)t[k].v[m] / 1e9);
			else
				fprintf(f, " %" PRIu64 "\n", t[k].v[m]);
		}
	}
	head(f, "rocedump_pfc_untracked_frames_total", "counter",
	     "PFC/PAUSE frames of sources past the first 4096, not in the rocedump_pfc_ figures.");
	fprintf(f, "rocedump_pfc_untracked_frames_total %" PRIu64 "\n", roce_analyzer_pfc_untracked(an));
}

static void stream_labels(FILE *f, const struct roce_stream_stats *s)
{
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];
	fmt_ip(src, s->src, s->addr_len);
	fmt_ip(dst, s->dst, s->addr_len);
	fprintf(f, "{src=\"%s\",dst=\"%s\",dqpn=\"0x%06" PRIx32 "\"}", src, dst, s->dqpn);
}

static void streams(FILE *f, const struct roce_analyzer *an, const struct metrics_top *top)
{
	head(f, "rocedump_streams", "gauge", "Streams (source > destination QP) the transport analysis tracks.");
	fprintf(f, "rocedump_streams %" PRIu64 "\n", roce_analyzer_streams(an));
	head(f, "rocedump_stream_evictions_total", "counter", "Streams evicted from a full table (--max-streams).");
	fprintf(f, "rocedump_stream_evictions_total %" PRIu64 "\n", roce_analyzer_evictions(an));
	head(f, "rocedump_frames_unanalysed_total", "counter",
	     "Frames left out of the transport analysis: no memory (or no room among 2^20 addresses) for their streams.");
	fprintf(f, "rocedump_frames_unanalysed_total %" PRIu64 "\n", roce_analyzer_refused(an));
	if (!top || !top->n)
		return;
	head(f, "rocedump_stream_retransmits_total", "counter",
	     "Retransmitted packets of the streams with the most (at most 10 streams).");
	for (unsigned i = 0; i < top->n; i++) {
		fputs("rocedump_stream_retransmits_total", f);
		stream_labels(f, &top->s[i]);
		fprintf(f, " %" PRIu64 "\n", top->s[i].retransmits);
	}
	head(f, "rocedump_stream_missing_psns_total", "counter", "PSNs never seen on the same streams.");
	for (unsigned i = 0; i < top->n; i++) {
		fputs("rocedump_stream_missing_psns_total", f);
		stream_labels(f, &top->s[i]);
		fprintf(f, " %" PRIu64 "\n", top->s[i].missing_psns);
	}
}

/* ---- mirror sessions (roce/mirror.h): one series per session and counter ---- */

struct mirror_series {
	FILE *f;
	const char *name;
	unsigned which;  /* 0 frames, 1 lost, 2 reordered, 3 lost PSNs */
};

static void mirror_row(const struct roce_mirror_row *r, void *user)
{
	struct mirror_series *m = user;
	const uint64_t v[4] = {r->frames, r->lost, r->reordered, r->lost_psns};
	char name[ROCE_MIRROR_NAME_MAX];
	if (m->which && !r->has_seq)
		return;
	roce_mirror_point_name(name, sizeof(name), &r->point);
	fprintf(m->f, "%s{session=\"%s\"} %" PRIu64 "\n", m->name, name, v[m->which]);
}

static void mirror(FILE *f, const struct roce_analyzer *an, const struct capstats *cs)
{
	static const char *const names[4][2] = {
		{"rocedump_mirror_frames_total", "Frames seen per GRE tunnel or ERSPAN session."},
		{"rocedump_mirror_lost_frames_total", "Frames the session's own sequence numbers show lost by the mirror "
						      "or on the way to the collector (an upper bound with a filter)."},
		{"rocedump_mirror_reordered_frames_total", "Frames of the session that came late, taken back from a gap."},
		{"rocedump_mirror_lost_psns_total", "Missing PSNs of psn.gap events counted lost at the session's mirror."},
	};
	if (!roce_analyzer_mirror_sessions(an))
		return;
	struct mirror_series m = {f, NULL, 0};
	for (unsigned i = 0; i < 4; i++) {
		m.name = names[i][0];
		m.which = i;
		head(f, names[i][0], "counter", names[i][1]);
		roce_analyzer_mirror_foreach(an, mirror_row, &m);
	}
	head(f, "rocedump_mirror_upper_bound", "gauge", "1 when a capture filter was applied: mirror losses may be its.");
	fprintf(f, "rocedump_mirror_upper_bound %d\n", cs && cs->filtered ? 1 : 0);
}

/* ---- path analysis (roce/path.h): per hop, at most METRICS_PATH_HOPS ---- */

/* A label value as the exposition format takes it: backslash, double quote and newline escaped. */
static void label_value(char *buf, size_t cap, const char *v)
{
	size_t n = 0;
	for (; *v && n + 3 < cap; v++) {
		if (*v == '\\' || *v == '"' || *v == '\n')
			buf[n++] = '\\';
		buf[n++] = *v;
		if (*v == '\n')
			buf[n - 1] = 'n';
	}
	buf[n] = '\0';
}

struct hop_label {
	const struct roce_path_hop *h;
	char from[2 * PATH_POINT_NAME_MAX], to[2 * PATH_POINT_NAME_MAX];
};

static int more_seen(const void *a, const void *b)
{
	const struct hop_label *x = a, *y = b;
	if (x->h->seen_from != y->h->seen_from)
		return x->h->seen_from > y->h->seen_from ? -1 : 1;
	return x->h < y->h ? -1 : x->h > y->h;
}

/* The hops shown: the METRICS_PATH_HOPS that saw the most packets at their from, named. */
static unsigned hops_shown(const struct roce_path *p, const struct capstats *cs, struct hop_label *out)
{
	struct hop_label *all = calloc(p->n_hops ? p->n_hops : 1, sizeof(*all));
	unsigned n = 0;
	if (!all)
		return 0;
	for (uint32_t k = 0; k < p->n_hops; k++)
		all[k].h = &p->hops[k];
	qsort(all, p->n_hops, sizeof(*all), more_seen);
	for (; n < p->n_hops && n < METRICS_PATH_HOPS; n++) {
		char name[PATH_POINT_NAME_MAX];
		out[n].h = all[n].h;
		path_point_name(name, sizeof(name), &p->points[all[n].h->from], cs);
		label_value(out[n].from, sizeof(out[n].from), name);
		path_point_name(name, sizeof(name), &p->points[all[n].h->to], cs);
		label_value(out[n].to, sizeof(out[n].to), name);
	}
	free(all);
	return n;
}

enum { HOP_SEEN_FROM, HOP_SEEN_TO, HOP_LOST, HOP_MIRROR_LOST, HOP_REORDERED, HOP_COUNTS };

static void hop_counters(FILE *f, const struct hop_label *hl, unsigned n)
{
	static const struct {
		const char *name, *extra, *help;
	} c[HOP_COUNTS] = {
		[HOP_SEEN_FROM] = {"rocedump_path_seen_total", ",at=\"from\"",
				   "Packets of the hop's streams seen at its from point (at=from) and at its to point (at=to)."},
		[HOP_SEEN_TO] = {"rocedump_path_seen_total", ",at=\"to\"", NULL},
		[HOP_LOST] = {"rocedump_path_lost_total", "",
			      "Packets seen at from, never at to nor past it on the path: lost between the two."},
		[HOP_MIRROR_LOST] = {"rocedump_path_mirror_lost_total", "",
				     "Packets seen at from, not at to but past it: lost by to's mirror."},
		[HOP_REORDERED] = {"rocedump_path_reordered_total", "",
				   "Packets in another order at to than at from."},
	};
	for (unsigned m = 0; m < HOP_COUNTS; m++) {
		if (c[m].help)
			head(f, c[m].name, "counter", c[m].help);
		for (unsigned k = 0; k < n; k++) {
			const struct roce_path_hop *h = hl[k].h;
			const uint64_t v[HOP_COUNTS] = {h->seen_from, h->seen_to, h->lost, h->mirror_lost, h->reordered};
			fprintf(f, "%s{from=\"%s\",to=\"%s\"%s} %" PRIu64 "\n", c[m].name, hl[k].from, hl[k].to, c[m].extra,
				v[m]);
		}
	}
}

static void hop_gauges(FILE *f, const struct hop_label *hl, unsigned n)
{
	/* a summary without _sum: the delays' sum is not kept */
	head(f, "rocedump_path_delay_seconds", "summary",
	     "Delay from the hop's from point to its to point, less the clock offset: quantiles 0.5 and 0.99 "
	     "(exact up to 65536 delays per stream hop, of a uniform sample beyond); _count: the delays measured "
	     "(packets seen at both ends).");
	for (unsigned k = 0; k < n; k++) {
		const struct roce_path_hop *h = hl[k].h;
		if (h->delay_min_ns >= 0)
			fprintf(f, "rocedump_path_delay_seconds{from=\"%s\",to=\"%s\",quantile=\"0.5\"} %.9f\n"
				   "rocedump_path_delay_seconds{from=\"%s\",to=\"%s\",quantile=\"0.99\"} %.9f\n",
				hl[k].from, hl[k].to, (double)h->delay_p50_ns / 1e9, hl[k].from, hl[k].to,
				(double)h->delay_p99_ns / 1e9);
		fprintf(f, "rocedump_path_delay_seconds_count{from=\"%s\",to=\"%s\"} %" PRIu64 "\n", hl[k].from, hl[k].to,
			h->delays);
	}
	head(f, "rocedump_path_delay_min_seconds", "gauge", "The hop's smallest delay: its base delay (wire, switch).");
	for (unsigned k = 0; k < n; k++)
		if (hl[k].h->delay_min_ns >= 0)
			fprintf(f, "rocedump_path_delay_min_seconds{from=\"%s\",to=\"%s\"} %.9f\n", hl[k].from, hl[k].to,
				(double)hl[k].h->delay_min_ns / 1e9);
	head(f, "rocedump_path_delay_max_seconds", "gauge", "The hop's largest delay.");
	for (unsigned k = 0; k < n; k++)
		if (hl[k].h->delay_min_ns >= 0)
			fprintf(f, "rocedump_path_delay_max_seconds{from=\"%s\",to=\"%s\"} %.9f\n", hl[k].from, hl[k].to,
				(double)hl[k].h->delay_max_ns / 1e9);
	head(f, "rocedump_path_clock_offset_seconds", "gauge",
	     "The to point's clock minus the from point's (given or estimated), taken off the delays.");
	for (unsigned k = 0; k < n; k++)
		if (hl[k].h->offset_source != ROCE_OFFSET_NONE)
			fprintf(f, "rocedump_path_clock_offset_seconds{from=\"%s\",to=\"%s\"} %.9f\n", hl[k].from, hl[k].to,
				(double)hl[k].h->offset_ns / 1e9);
	head(f, "rocedump_path_clock_offset_uncertainty_seconds", "gauge",
	     "The clock offset is within plus or minus this (0: given).");
	for (unsigned k = 0; k < n; k++)
		if (hl[k].h->offset_uncertainty_ns >= 0)
			fprintf(f, "rocedump_path_clock_offset_uncertainty_seconds{from=\"%s\",to=\"%s\"} %.9f\n",
				hl[k].from, hl[k].to, (double)hl[k].h->offset_uncertainty_ns / 1e9);
}

_Static_assert(METRICS_PATH_HOPS == 32, "rocedump_path_hops's help names the limit");

static void path(FILE *f, const struct roce_path *p, const struct capstats *cs)
{
	if (!p)
		return;
	head(f, "rocedump_path_hops", "gauge",
	     "Hops between capture points (by from and to) in the path analysis; the per-hop series show at most 32.");
	fprintf(f, "rocedump_path_hops %" PRIu32 "\n", p->n_hops);
	struct hop_label *hl = calloc(METRICS_PATH_HOPS, sizeof(*hl));
	unsigned n = hl ? hops_shown(p, cs, hl) : 0;
	if (n) {
		hop_counters(f, hl, n);
		hop_gauges(f, hl, n);
	}
	free(hl);
}

/* --export: the rows by what became of them (a spooled row is counted again once sent). */
static void exported(FILE *f, const struct export_counts *x)
{
	if (!x)
		return;
	head(f, "rocedump_export_rows_total", "counter",
	     "Rows for ClickHouse (--export): sent, spooled to disk for a retry, dropped (the spool full).");
	fprintf(f, "rocedump_export_rows_total{outcome=\"sent\"} %" PRIu64 "\n", x->sent);
	fprintf(f, "rocedump_export_rows_total{outcome=\"spooled\"} %" PRIu64 "\n", x->spooled);
	fprintf(f, "rocedump_export_rows_total{outcome=\"dropped\"} %" PRIu64 "\n", x->dropped);
	head(f, "rocedump_export_spool_batches", "gauge",
	     "Batches waiting in --export-spool for the server (an alert's figure: the server away).");
	fprintf(f, "rocedump_export_spool_batches %" PRIu64 "\n", x->spool_batches);
	head(f, "rocedump_export_spool_bytes", "gauge",
	     "The bytes of the batches in --export-spool, waiting or set aside (the --export-spool-max cap holds both).");
	fprintf(f, "rocedump_export_spool_bytes %" PRIu64 "\n", x->spool_bytes);
	head(f, "rocedump_export_spool_refused_batches", "gauge",
	     "Spooled batches set aside in --export-spool (*.refused): the server refused each while it took others.");
	fprintf(f, "rocedump_export_spool_refused_batches %" PRIu64 "\n", x->spool_refused);
}

char *metrics_render(const struct metrics_view *v, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	head(f, "rocedump_build_info", "gauge", "rocedump's version.");
	fprintf(f, "rocedump_build_info{version=\"%s\"} 1\n", ROCEDUMP_VERSION);
	head(f, "rocedump_snapshot_timestamp_seconds", "gauge", "When these figures were taken.");
	fprintf(f, "rocedump_snapshot_timestamp_seconds %.3f\n", v->now);
	capture(f, v->cs);
	frames(f, v->sum);
	congestion(f, v->sum, v->an);
	streams(f, v->an, v->top);
	mirror(f, v->an, v->cs);
	path(f, v->path, v->cs);
	exported(f, v->exp);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
