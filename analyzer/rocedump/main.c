/* main.c: rocedump, a tcpdump-style RoCE analyzer over the core library.
 *
 *   rocedump -r FILE [-c N] [-n] [-v[v]] [-e] [-q] [-T text|json] [--strict] [--roce-port N]
 *            [--summary] [--threads N] [--batch N] [--report FILE [--report-plots N]] [EXPR]
 *   rocedump -i IFACE [-s N] [-B KiB] [-p] [-Q in|out|inout] [-j TYPE] [-l] [-U] [-w FILE [-C MB]
 *            [-G S] [-W N]] [-Z USER] [--metrics ADDR:PORT] [--metrics-file PATH] ... [EXPR]
 *
 * Exit status: 0 ok; 1 an error-severity event occurred and --strict was given; 2 usage or
 * input error (message on stderr, prefixed "rocedump: "). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/export.h"
#include "input/input.h"
#include "input/live.h"
#include "live/metrics.h"
#include "live/metrics_out.h"
#include "live/prefaulter.h"
#include "live/privs.h"
#include "live/progress.h"
#include "live/signals.h"
#include "options.h"
#include "output/dfilter.h"
#include "output/print.h"
#include "output/rotate.h"
#include "output/streams.h"
#include "output/summary.h"
#include "output/path_out.h"
#include "pipeline.h"
#include "report/report.h"
#include "roce/roce.h"

#define EXIT_EVENTS 1
/* -q ends with the per-stream table (as --summary) when it has at most this many rows; a
 * capture of many queue pairs gets one line instead (1 M QPs would be ~400 MB of table). */
#define QUIET_TABLE_MAX 64
/* The sink looks at the clocks every this many frames (and whenever it waits for input). */
#define TICK_FRAMES 256
#define METRICS_PUBLISH_S 1.0
#define METRICS_FILE_S 5.0
/* The top-N walk of the stream table is skipped while it would take more than 1/this of the time. */
#define TOP_WALK_SHARE 20

/* What happens to each decoded frame, in capture order: the transport analysis, the -q summary,
 * the frame's line or JSON object; and, now and then, the work of a long run (metrics, progress,
 * SIGUSR1, the live counts). */
struct sink_ctx {
	const struct options *o;
	struct input *in;
	struct roce_analyzer *an;
	struct summary *sum;
	struct sb *line;
	struct rotor *out;         /* -w */
	struct report *rep;        /* --report */
	uint64_t n;                /* frames so far */
	uint64_t offset;           /* -r: about the bytes of the file used so far (progress) */
	unsigned record_overhead;  /* a record's bytes besides the frame's */
	unsigned tick;             /* frames since the clocks were read */
	time_t wall;               /* the wall clock at the last look, seconds */
	double mono;               /* the monotonic clock at the last look */
	double stats_at, metrics_at, metrics_file_at, top_at, top_cost;
	struct metrics_server *metrics;
	struct metrics_top top;
	const struct roce_path *path;  /* the path analysis when the metrics last looked (path_out_snapshot) */
	struct progress progress;
	struct exporter *exp;      /* --export */
	struct export_counts exp_final; /* its counts at its end */
	double exp_end_at;         /* the monotonic clock when its end began (end_export) */
	int64_t first_ns;          /* the first frame's time (--export's captures row) */
	struct frame last_ts;      /* the last frame's time stamp (ts_sec, ts_nsec), in ns at the end */
	char devices[LIVE_DEVICES_MAX * 17];  /* the -i interfaces, comma-separated (--export's source) */
	int error;                 /* a -w or --metrics-file failure: EXIT_USAGE */
	char err[INPUT_ERRLEN];
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* tcpdump's count lines for in's counts, each ending in suffix, on standard error. */
static void put_counts(const struct input *in, const char *suffix)
{
	fprintf(stderr, "%" PRIu64 " packet%s received by filter%s\n", in->recv, in->recv == 1 ? "" : "s", suffix);
	fprintf(stderr, "%" PRIu64 " packet%s dropped by kernel%s\n", in->drop, in->drop == 1 ? "" : "s", suffix);
	if (in->ifdrop)
		fprintf(stderr, "%" PRIu64 " packet%s dropped by interface%s\n", in->ifdrop, in->ifdrop == 1 ? "" : "s",
			suffix);
}

/* tcpdump's count lines, on standard error; several interfaces: their totals, then each one's. */
static void print_counts(struct sink_ctx *sc)
{
	struct input *in = sc->in;
	input_update_stats(in);
	fprintf(stderr, "%" PRIu64 " packet%s captured\n", sc->n, sc->n == 1 ? "" : "s");
	put_counts(in, "");
	for (unsigned i = 0; in->merge && input_part(in, i); i++) {
		char suffix[64];
		snprintf(suffix, sizeof(suffix), " on %s", input_part(in, i)->name);
		put_counts(input_part(in, i), suffix);
	}
	fflush(stderr);
}

/* Render the metrics; publish them to the HTTP server, and write the file when due. */
static void publish_metrics(struct sink_ctx *sc, bool final)
{
	const struct options *o = sc->o;
	/* The top-N walk visits every stream, the path snapshot every kept delay: at most
	 * 1/TOP_WALK_SHARE of the time goes to them. */
	if (final || sc->mono - sc->top_at >= sc->top_cost * TOP_WALK_SHARE) {
		double t0 = mono_now();
		metrics_top_streams(sc->an, &sc->top);
		sc->path = path_out_snapshot(sc->an, input_capstats(sc->in), o, final);
		sc->top_at = mono_now();
		sc->top_cost = sc->top_at - t0;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct export_counts xc;
	if (sc->exp)
		export_counts(sc->exp, &xc);
	else
		xc = sc->exp_final;
	struct metrics_view v = {.sum = sc->sum, .an = sc->an, .cs = input_capstats(sc->in), .top = &sc->top,
				 .now = (double)now.tv_sec + (double)now.tv_nsec / 1e9,
				 .exp = sc->o->export_url ? &xc : NULL, .path = sc->path};
	size_t len;
	char *text = metrics_render(&v, &len);
	if (!text)
		return;
	if (o->metrics_file && (final || sc->mono - sc->metrics_file_at >= METRICS_FILE_S)) {
		sc->metrics_file_at = sc->mono;
		char err[INPUT_ERRLEN];
		if (metrics_file_write(o->metrics_file, text, len, err, sizeof(err)) < 0 && !sc->error) {
			fprintf(stderr, "rocedump: %s\n", err);
			sc->error = EXIT_USAGE;
		}
	}
	if (sc->metrics)
		metrics_server_publish(sc->metrics, text, len);
	else
		free(text);
}

/* The clocks, and whatever is due by them. */
static void periodic(struct sink_ctx *sc)
{
	const struct options *o = sc->o;
	sc->tick = 0;
	sc->mono = mono_now();
	sc->wall = time(NULL);
	if (sc->in->live && sc->mono - sc->stats_at >= 1.0) {  /* before the 32-bit counts wrap */
		sc->stats_at = sc->mono;
		input_update_stats(sc->in);
	}
	if (signals_take_info() && sc->in->live)
		print_counts(sc);
	if ((sc->metrics || o->metrics_file) && sc->mono - sc->metrics_at >= METRICS_PUBLISH_S) {
		sc->metrics_at = sc->mono;
		publish_metrics(sc, false);
	}
	progress_update(&sc->progress, sc->n, sc->offset, sc->mono);
	if (sc->exp)
		export_tick(sc->exp, sc->mono);
}

/* -C, -G: a new file before this frame when one is due. False: stop (-G -W done, or an error). */
static bool rotate_if_due(struct sink_ctx *sc)
{
	int rc = rotor_before_frame(sc->out, sc->wall, sc->err, sizeof(sc->err));
	if (rc < 0) {
		fprintf(stderr, "rocedump: %s\n", sc->err);
		sc->error = EXIT_USAGE;
	}
	return rc == 0;
}

/* -w: the frame, with its events as the comment. */
static void write_frame(struct sink_ctx *sc, const struct frame *f, const struct roce_pkt *pkt,
			const struct roce_findings *fi)
{
	static struct sb comment;
	sb_reset(&comment);
	if (!roce_evset_empty(&pkt->events)) {
		sb_puts(&comment, "rocedump: ");
		print_events(&comment, pkt, fi, sc->o->print.verbose > 1);
	}
	rotor_frame(sc->out, f, comment.buf, comment.len);
}

static bool sink_frame(void *ctx, const struct frame *f, struct roce_pkt *pkt)
{
	struct sink_ctx *sc = ctx;
	const struct options *o = sc->o;
	struct roce_findings findings;

	if (++sc->tick >= TICK_FRAMES)
		periodic(sc);
	if (signals_stop())
		return false;
	if (sc->out && (sc->out->cfg.max_bytes || sc->out->cfg.seconds) && !rotate_if_due(sc))
		return false;
	sc->n++;
	sc->offset += f->caplen + sc->record_overhead;
	pkt->capture_if = f->iface;  /* copies: the pcapng interface */
	if (sc->n == 1 && !f->iface)  /* a pcap file or one interface: in order, as the plugin judges it */
		roce_analyzer_time_ordered(sc->an);
	roce_analyze(sc->an, pkt, f->number, f->data, frame_ts_ns(f),
		     o->quiet && !sc->out && !sc->rep && !sc->exp ? NULL : &findings);
	summary_add(sc->sum, pkt);
	if (sc->exp) {
		sc->last_ts.ts_sec = f->ts_sec;
		sc->last_ts.ts_nsec = f->ts_nsec;
		if (sc->n == 1)
			sc->first_ns = frame_ts_ns(f);
		export_frame(sc->exp, f, pkt, &findings);
	}
	if (sc->rep)  /* every frame analyzed, as the summary: -Y selects what is printed */
		report_frame(sc->rep, f->number, f, pkt, &findings);
	if (o->display && (sc->out || !o->quiet)) {
		struct roce_field_src src = print_field_src(&o->print, f->number, f, pkt);
		if (!dfilter_match(o->display, &src, &pkt->events))
			return !o->count || (long long)sc->n < o->count;
	}
	if (sc->out) {
		write_frame(sc, f, pkt, &findings);
	} else if (!o->quiet) {
		if (o->format == OUT_JSON)
			print_json(sc->line, &o->print, f->number, f, pkt, &findings);
		else
			print_text(sc->line, &o->print, sc->n, f, pkt, &findings);
		sb_end_record(sc->line, stdout);
		if (o->print.hex && o->format == OUT_TEXT)
			print_hex(sc->line, stdout, &o->print, f, pkt);
		if (o->line_buffered)
			sb_flush(sc->line, stdout);
	}
	return !o->count || (long long)sc->n < o->count;
}

/* The analysis waits for input: everything so far goes out, then the periodic work. */
static bool sink_idle(void *ctx)
{
	struct sink_ctx *sc = ctx;
	sb_flush(sc->line, stdout);
	fflush(stdout);
	if (sc->out)
		rotor_flush(sc->out);
	periodic(sc);
	return !signals_stop();
}

/* A frame the sink will see soon: its analyzer state starts loading (while the analyzer has
 * streams enough to want it). */
static bool sink_peek(void *ctx, const struct frame *f, struct roce_pkt *pkt)
{
	const struct sink_ctx *sc = ctx;
	return roce_analyze_prefetch(sc->an, pkt, f->data);
}

_Static_assert(LIVE_DEVICES_MAX <= ROTATE_IFACES_MAX, "a -w file's statistics cover every -i");

/* The live capture's counts for the statistics blocks at the end of each -w file: one interface's,
 * or each one's of several (their global interfaces, merge.c). */
static struct rotate_counts live_counts(void *ctx)
{
	struct input *in = ctx;
	struct rotate_counts c = {0};
	if (!in->live)
		return c;
	input_update_stats(in);
	c.valid = true;
	if (!in->merge) {
		c.n = 1;
		c.iface[0] = (struct rotate_iface){.recv = in->recv, .os_drop = in->drop, .if_drop = in->ifdrop};
		return c;
	}
	const struct capstats *cs = input_capstats(in);
	for (uint32_t k = 0; k < cs->n_ifaces && c.n < ROTATE_IFACES_MAX; k++) {
		const struct capstats_iface *x = &cs->iface[k];
		uint32_t key = capstats_iface_key(0, x->if_id);
		c.iface[c.n++] = (struct rotate_iface){.key = key, .desc = capstats_iface_desc(cs, key), .recv = x->recv,
						       .os_drop = x->os_drop, .if_drop = x->if_drop};
	}
	return c;
}

/* -D, -J (each -i's types): list and exit. */
static int list_and_exit(const struct options *o)
{
	char err[INPUT_ERRLEN];
	int rc = o->list_devices ? live_list_devices(stdout, err, sizeof(err)) : 0;
	for (unsigned i = 0; !o->list_devices && rc == 0 && i < o->n_devices; i++)
		rc = live_list_tstamp_types(o->devices[i], stdout, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rocedump: %s\n", err);
		return EXIT_USAGE;
	}
	return 0;
}

/* The input, then what needs root: the metrics socket (a low port), then -Z. */
static int open_input(struct options *o, struct input *in, struct metrics_server **metrics)
{
	char err[INPUT_ERRLEN];
	int rc = o->n_devices > 1     ? input_open_lives(in, &o->live, o->devices, o->n_devices, o->filter, err, sizeof(err))
		 : o->live.device     ? input_open_live(in, &o->live, o->filter, err, sizeof(err))
		 : o->n_read_files > 1 ? input_open_files(in, o->read_files, o->n_read_files, o->filter, err, sizeof(err))
				       : input_open_file(in, o->read_file, o->filter, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rocedump: %s\n", err);
		return EXIT_USAGE;
	}
	if (o->metrics_addr) {
		*metrics = metrics_server_start(o->metrics_addr, err, sizeof(err));
		if (!*metrics) {
			fprintf(stderr, "rocedump: %s\n", err);
			input_close(in);
			return EXIT_USAGE;
		}
		if (metrics_addr_check(o->metrics_addr, err, sizeof(err)) == 0)  /* the system chose the port */
			fprintf(stderr, "rocedump: metrics served on port %u\n", metrics_server_port(*metrics));
	}
	if (o->user && privs_drop(o->user, err, sizeof(err)) < 0) {
		fprintf(stderr, "rocedump: %s\n", err);
		metrics_server_stop(*metrics);
		*metrics = NULL;
		input_close(in);
		return EXIT_USAGE;
	}
	return 0;
}

/* --export: the exporter started and told of the streams the analysis evicts. EXIT_USAGE after
 * the message on a bad URL or spool; the server refusing or a table that differs is
 * finish_export's error (the export thread checks the tables while the capture is read). */
static int start_export(const struct options *o, struct input *in, struct roce_analyzer *an, struct sink_ctx *sc)
{
	char err[INPUT_ERRLEN];
	if (!o->export_url)
		return 0;
	struct export_config cfg = {.url = o->export_url, .password_file = o->export_password_file,
				    .box = o->export_host, .spool_dir = o->export_spool, .spool_max = o->export_spool_max,
				    .all_frames = o->export_all_frames, .live = in->live,
				    .source = in->live ? sc->devices : o->read_file,
				    .point = in->live ? o->live.device : ""};
	if (!(sc->exp = export_start(&cfg, err, sizeof(err)))) {
		fprintf(stderr, "rocedump: %s\n", err);
		return EXIT_USAGE;
	}
	roce_analyzer_on_evict(an, export_evicted, sc->exp);
	return 0;
}

static void export_row(const struct roce_stream_stats *s, void *x)
{
	export_stream(s, false, x);
}

/* --export's end begun: the streams' rows and the run's, sent by the export thread while the
 * summary is printed (finish_export waits for them). */
static void end_export(struct sink_ctx *sc)
{
	if (!sc->exp)
		return;
	sc->exp_end_at = mono_now();
	roce_analyzer_on_evict(sc->an, NULL, NULL);
	roce_analyzer_foreach(sc->an, export_row, sc->exp);
	struct capstats_totals t = capstats_totals(input_capstats(sc->in));
	struct export_capture cap = {.frames = sc->n, .bytes = sc->sum->bytes, .first_ns = sc->first_ns,
				     .last_ns = frame_ts_ns(&sc->last_ts), .drops = t.os_drop + t.if_drop};
	export_end(sc->exp, &cap);
}

/* --export's end: everything sent or spooled, the counts said. EXIT_USAGE when rows were
 * dropped. ROCEDUMP_EXPORT_TIMES (any value): the time from end_export on, for export-bench.sh. */
static int finish_export(struct sink_ctx *sc)
{
	char err[INPUT_ERRLEN];
	if (!sc->exp)
		return 0;
	struct export_counts c;
	int rc = export_finish(sc->exp, &c, err, sizeof(err));
	sc->exp_final = c;
	sc->exp = NULL;
	if (getenv("ROCEDUMP_EXPORT_TIMES"))
		fprintf(stderr, "rocedump: export: the run's end took %.1f ms\n", (mono_now() - sc->exp_end_at) * 1e3);
	fprintf(stderr, "rocedump: export: %" PRIu64 " rows sent, %" PRIu64 " spooled, %" PRIu64 " dropped, in %" PRIu64
			" batches\n", c.sent, c.spooled, c.dropped, c.batches);
	if (err[0])
		fprintf(stderr, "rocedump: %s%s\n", rc < 0 ? "" : "warning: ", err);
	return rc < 0 ? EXIT_USAGE : 0;
}

/* A run that cannot start after its input, analyzer and -w output are open: all of them closed. */
static int give_up(struct sink_ctx *sc, struct options *o)
{
	char err[INPUT_ERRLEN];
	report_free(sc->rep);
	if (sc->out)
		rotor_close(sc->out, err, sizeof(err));
	metrics_server_stop(sc->metrics);
	roce_analyzer_free(sc->an);
	input_close(sc->in);
	free_options(o);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct ts_clock clock = {0};
	struct options o = {.print.clock = &clock};
	struct input in;
	char err[INPUT_ERRLEN];
	int rc = parse_options(argc, argv, &o);

	if (rc) {
		free_options(&o);
		return rc < 0 ? 0 : rc;
	}
	if (o.list_devices || o.list_tstamp_types) {
		free_options(&o);
		return list_and_exit(&o);
	}
	signals_install();
	struct metrics_server *metrics = NULL;
	rc = open_input(&o, &in, &metrics);
	if (rc) {
		free_options(&o);
		return rc;
	}
	struct roce_analyzer_config acfg = {.max_streams = o.max_streams, .pmtu = o.pmtu, .congestion = &o.congestion,
					    .copy_window_us = o.copy_window_us};
	char aerr[ROCE_ERRBUF_SIZE];
	struct roce_analyzer *an = roce_analyzer_new(&acfg, aerr);
	if (!an) {
		fprintf(stderr, "rocedump: %s\n", aerr);
		metrics_server_stop(metrics);
		input_close(&in);
		free_options(&o);
		return EXIT_USAGE;
	}
	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, o.line_buffered ? _IOLBF : _IOFBF, sizeof(outbuf));

	static struct summary sum;
	static struct sb line;
	static struct rotor out;
	static struct sink_ctx sc;
	sc = (struct sink_ctx){.o = &o, .in = &in, .an = an, .sum = &sum, .line = &line, .metrics = metrics,
			       .record_overhead = input_capstats(&in)->format == CAPSTATS_PCAPNG ? 32 : 16,
			       .offset = 24};
	if (o.write_file) {
		o.rotate.source = in.live ? NULL : input_capstats(&in);
		if (rotor_open(&out, &o.rotate, in.linktype, live_counts, &in, err, sizeof(err)) < 0) {
			fprintf(stderr, "rocedump: %s\n", err);
			roce_analyzer_free(an);
			metrics_server_stop(metrics);
			input_close(&in);
			free_options(&o);
			return EXIT_USAGE;
		}
		sc.out = &out;
	}
	if (o.report_file) {
		struct report_config rcfg = {.path = o.report_file,
					     .captures = in.live ? o.devices : o.read_files,
					     .n_captures = in.live ? o.n_devices : o.n_read_files,
					     .live = in.live,
					     .plots = o.report_plots};
		if (!(sc.rep = report_new(&rcfg, err, sizeof(err)))) {
			fprintf(stderr, "rocedump: %s\n", err);
			return give_up(&sc, &o);
		}
		roce_analyzer_on_congestion(an, report_congestion, sc.rep);
		roce_analyzer_on_path_sample(an, report_path_sample, sc.rep);
	}
	for (unsigned i = 0; i < o.n_devices; i++)  /* names of at most IFNAMSIZ - 1 = 15 bytes */
		snprintf(sc.devices + strlen(sc.devices), sizeof(sc.devices) - strlen(sc.devices), "%s%s", i ? "," : "",
			 o.devices[i]);
	if (start_export(&o, &in, an, &sc))
		return give_up(&sc, &o);
	progress_init(&sc.progress, !in.live && (o.quiet || o.write_file), in.size);
	/* the decoding threads work out the keys the analysis looks streams and copies up by */
	o.decoder.flags |= ROCE_DECODE_STREAM_HASH;
	if (o.copy_window_us > 0)
		o.decoder.flags |= ROCE_DECODE_COPY_KEY;
	struct pipeline_config pcfg = {
		.threads = o.threads ? o.threads : pipeline_default_threads(),
		.batch_frames = o.batch,
		.decoder = &o.decoder,
		.idle = sink_idle,
		/* ROCEDUMP_NO_LOOK_AHEAD (any value): the analysis looks no frame up ahead, for tests
		 * that check that looking ahead changes no output, and for measuring what it is worth */
		.peek = getenv("ROCEDUMP_NO_LOOK_AHEAD") ? NULL : sink_peek,
	};
	int status = 0;
	/* clocks further apart than the copy window: estimated in a first pass, taken off before
	 * matching; --point-offset's taken off likewise (path_out.h) */
	static struct path_probe wide;
	static struct path_offsets offsets;
	path_probe_run(&wide, &o, &in, &pcfg);
	offsets = (struct path_offsets){.cs = input_capstats(&in), .o = &o, .wide = &wide};
	path_out_offsets(an, &offsets);

	for (unsigned i = 0; in.live && input_part(&in, i); i++) {
		const struct input *x = input_part(&in, i);
		fprintf(stderr, "rocedump: listening on %s, link-type %s, snapshot length %d bytes\n", x->name,
			pcap_datalink_val_to_name(pcap_datalink(x->pcap)), pcap_snapshot(x->pcap));
	}
	sb_reset(&line);
	line.spill = stdout;  /* a record longer than the builder (many findings) goes out in parts */
	periodic(&sc);
	/* with more than one thread, another keeps the analyzer's memory populated ahead of the
	 * sink thread (prefaulter.h); ROCEDUMP_NO_PREFAULT (any value) leaves it out, for measuring
	 * what it is worth */
	struct prefaulter prefaulter = {0};
	if (pcfg.threads > 1 && !getenv("ROCEDUMP_NO_PREFAULT"))
		(void)prefaulter_start(&prefaulter, an);
	rc = pipeline_run(&in, &pcfg, sink_frame, &sc, err, sizeof(err));
	prefaulter_stop(&prefaulter);
	if (rc == 1)
		input_stopped_early(&in);  /* -c: whatever the decoding threads read ahead */
	progress_end(&sc.progress);
	sb_flush(&line, stdout);
	if (rc < 0) {
		fflush(stdout);
		fprintf(stderr, "rocedump: %s\n", err);
		status = EXIT_USAGE;
	}
	if (sc.error)
		status = sc.error;
	if (o.write_file && !in.live)
		rotor_input_isbs(&out);  /* the reading threads are done */
	if (o.write_file && rotor_close(&out, err, sizeof(err)) < 0) {
		fprintf(stderr, "rocedump: %s\n", err);
		status = EXIT_USAGE;
	}
	input_update_stats(&in);
	if (o.quiet || o.report_file || o.n_point_offsets) {
		/* the paths across capture points, for the summary (path_out.h); and --point-offset's
		 * names checked, whatever the output: a point may first show at the capture's end */
		int prc = path_out_finish(an, input_capstats(&in), &o);
		if (prc < 0)
			fprintf(stderr, "rocedump: warning: path analysis: out of memory\n");
		else if (prc)
			status = prc;
		else if (o.quiet || o.report_file)
			path_warn_unmatched(an, &o, stderr);
	}
	end_export(&sc);
	if (o.quiet) {
		if (o.format == OUT_JSON)
			summary_print_json(&sum, input_capstats(&in), an, stdout);
		else
			summary_print_text(&sum, input_capstats(&in), an, o.print.link_bps, stdout);
	}
	uint64_t refused = roce_analyzer_refused(an);
	if (refused)  /* the analysis is incomplete: say so, whatever the output */
		fprintf(stderr,
			"rocedump: warning: %" PRIu64 " frames not analysed: no memory (or no room among 2^20 addresses) "
			"for their streams\n",
			refused);
	uint64_t unchecked = roce_analyzer_copies_unchecked(an);
	if (unchecked)  /* a copy of these may have been taken for a resend */
		fprintf(stderr,
			"rocedump: warning: %" PRIu64 " packets not checked for copies to the end of the copy window: "
			"too many sightings at once\n",
			unchecked);
	uint64_t n_streams = roce_analyzer_streams(an);
	if (o.streams || (o.quiet && n_streams >= 1 && n_streams <= QUIET_TABLE_MAX)) {
		if (o.format == OUT_JSON)
			streams_print_json(an, input_capstats(&in), stdout);
		else
			streams_print_text(an, input_capstats(&in), o.print.verbose > 0, stdout);
	} else if (o.quiet && o.format == OUT_TEXT && n_streams > QUIET_TABLE_MAX) {
		printf("streams: %" PRIu64 " (evicted %" PRIu64 "); --summary lists them\n", n_streams,
		       roce_analyzer_evictions(an));
	}
	if (sc.rep && report_finish(sc.rep, &sum, an, input_capstats(&in), err, sizeof(err)) < 0) {
		fprintf(stderr, "rocedump: %s\n", err);
		status = EXIT_USAGE;
	}
	report_free(sc.rep);
	int xrc = finish_export(&sc);
	if (xrc && !status)
		status = xrc;
	if (metrics || o.metrics_file) {
		sc.mono = mono_now();
		publish_metrics(&sc, true);
		if (sc.error && !status)
			status = sc.error;
	}
	bool ok_out = fflush(stdout) == 0 && !ferror(stdout);
	int out_errno = errno;
	if (in.live)
		print_counts(&sc);
	metrics_server_stop(metrics);
	roce_analyzer_free(an);
	input_close(&in);
	free_options(&o);
	if (!ok_out) {
		fprintf(stderr, "rocedump: writing output: %s\n", strerror(out_errno));
		return EXIT_USAGE;
	}
	if (status == 0 && o.strict && sum.worst[ROCE_SEV_ERROR])
		status = EXIT_EVENTS;
	return status;
}
