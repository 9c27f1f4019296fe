/* main.c: rocedump, a tcpdump-style RoCE analyzer over the core library.
 *
 *   rocedump -r FILE [-c N] [-n] [-v[v]] [-e] [-q] [-T text|json] [--strict] [--roce-port N]
 *            [--summary] [--threads N] [--batch N] [EXPR]
 *
 * Exit status: 0 ok; 1 an error-severity event occurred and --strict was given; 2 usage or
 * input error (message on stderr, prefixed "rocedump: "). */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "pcapng_out.h"
#include "pipeline.h"
#include "print.h"
#include "roce/roce.h"
#include "streams.h"
#include "summary.h"

#define EXIT_EVENTS 1
#define EXIT_USAGE 2
/* -q ends with the per-stream table (as --summary) when it has at most this many rows; a
 * capture of many queue pairs gets one line instead (1 M QPs would be ~400 MB of table). */
#define QUIET_TABLE_MAX 64

enum out_format { OUT_TEXT, OUT_JSON };

struct options {
	const char *read_file;
	const char *write_file;    /* -w */
	long long count;           /* -c; 0 = all */
	struct print_opts print;
	bool quiet;
	bool strict;
	bool streams;              /* --summary */
	uint32_t max_streams;      /* --max-streams */
	uint32_t pmtu;             /* --pmtu */
	int64_t copy_window_us;    /* --copy-window-us: 0 default (1000), -1 off */
	enum out_format format;
	unsigned threads;          /* --threads; 0 = pipeline_default_threads() */
	unsigned batch;            /* --batch */
	struct roce_decoder_config decoder;
	char *filter;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rocedump -r FILE [options] [filter expression]\n"
		"  -r FILE            read a pcap or pcapng file (\"-\" for standard input)\n"
		"  -c N               stop after N frames (counted after the filter)\n"
		"  -w FILE            write the frames to FILE (pcapng; \"-\" for standard output) instead\n"
		"                     of printing them, each frame's events as its packet comment\n"
		"  -n                 no name resolution (always the case)\n"
		"  -v, -vv            more fields per frame\n"
		"  -e                 print the link layer (MAC addresses, VLAN tags)\n"
		"  -t, -tt, -ttt, -tttt, -ttttt\n"
		"                     no time stamp; seconds since 1970; time since the previous frame;\n"
		"                     date and time; time since the first frame (default: time of day;\n"
		"                     dates and times in UTC)\n"
		"      --nano, --time-stamp-precision micro|nano\n"
		"                     print time stamps with 9 digits of fraction (default micro: 6)\n"
		"  -x, -xx, -X, -XX   after each line, the frame's bytes in hex (-X: and ASCII), past\n"
		"                     the link-layer header (-xx, -XX: all of them), as tcpdump does\n"
		"  -#, --number       each line starts with the frame's number\n"
		"  -q                 no per-frame output; print a summary at the end, and the\n"
		"                     --summary table when it has at most 64 rows\n"
		"  -T text|json       output format (json: one object per frame, JSON Lines)\n"
		"      --strict       exit 1 if any error-severity event occurred\n"
		"      --summary      print one row per stream (source > destination QP) at the end\n"
		"      --max-streams N  streams the transport analysis tracks at once (default 2097152:\n"
		"                     1 M queue pairs, both directions)\n"
		"      --pmtu N       the path MTU (256, 512, 1024, 2048, 4096); default: learned per stream\n"
		"      --copy-window-us N\n"
		"                     a packet seen again within N microseconds on another interface or\n"
		"                     mirror point is a copy (frame.copy), not a resend (default 1000;\n"
		"                     0: copies are not looked for)\n"
		"      --roce-port N  also decode UDP destination port N as RoCEv2 (repeatable)\n"
		"      --threads N    decode on N threads (1-16; default 2 with two CPUs or more, else 1);\n"
		"                     output is the same whatever N\n"
		"      --batch N      frames a decoding thread takes at a time (1-65536, default 4096)\n"
		"      --list-events  print the event table and exit\n"
		"  -h, --help         this help\n"
		"      --version      print the version\n"
		"The filter is a libpcap (BPF) expression, as tcpdump takes it.\n");
}

static int fail_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "rocedump: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "Try 'rocedump --help' for more information.\n");
	return EXIT_USAGE;
}

static bool parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	if (!s || *s < '0' || *s > '9')  /* strtoull would take a sign or spaces first */
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

static void list_events(void)
{
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
		printf("%-26s %-5s %s\n", roce_event_name((enum roce_event)e),
		       roce_severity_name(roce_event_severity((enum roce_event)e)),
		       roce_event_description((enum roce_event)e));
}

/* Join the trailing words into one filter string, as tcpdump does. */
static char *join_words(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

enum {
	OPT_STRICT = 256, OPT_ROCE_PORT, OPT_VERSION, OPT_LIST_EVENTS, OPT_SUMMARY, OPT_MAX_STREAMS, OPT_PMTU,
	OPT_THREADS, OPT_BATCH, OPT_NANO, OPT_TS_PRECISION, OPT_COPY_WINDOW,
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"strict", no_argument, NULL, OPT_STRICT},
		{"roce-port", required_argument, NULL, OPT_ROCE_PORT},
		{"version", no_argument, NULL, OPT_VERSION},
		{"list-events", no_argument, NULL, OPT_LIST_EVENTS},
		{"summary", no_argument, NULL, OPT_SUMMARY},
		{"max-streams", required_argument, NULL, OPT_MAX_STREAMS},
		{"pmtu", required_argument, NULL, OPT_PMTU},
		{"copy-window-us", required_argument, NULL, OPT_COPY_WINDOW},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"batch", required_argument, NULL, OPT_BATCH},
		{"nano", no_argument, NULL, OPT_NANO},
		{"time-stamp-precision", required_argument, NULL, OPT_TS_PRECISION},
		{"number", no_argument, NULL, '#'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long v;
	int c, x_count = 0, X_count = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:r:w:c:nveqtxX#T:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o->read_file = optarg;
			break;
		case 'w':
			o->write_file = optarg;
			break;
		case 'c':
			if (!parse_uint(optarg, LLONG_MAX, &v) || v == 0)
				return fail_usage("invalid packet count", optarg);
			o->count = (long long)v;
			break;
		case 'n':
			break;
		case 'v':
			o->print.verbose++;
			break;
		case 'e':
			o->print.link = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 't':
			if (o->print.ts_style == TS_STYLES - 1)
				return fail_usage("only -t, -tt, -ttt, -tttt and -ttttt exist", NULL);
			o->print.ts_style++;
			break;
		case 'x':
		case 'X':
			if (c == 'X')
				o->print.ascii = true;
			if (c == 'x' ? ++x_count > 2 : ++X_count > 2)
				return fail_usage("only -x, -xx, -X and -XX exist", NULL);
			o->print.hex = x_count > X_count ? x_count : X_count;
			break;
		case '#':
			o->print.number = true;
			break;
		case OPT_NANO:
			o->print.nano = true;
			break;
		case OPT_TS_PRECISION:
			if (strcmp(optarg, "micro") == 0)
				o->print.nano = false;
			else if (strcmp(optarg, "nano") == 0)
				o->print.nano = true;
			else
				return fail_usage("unknown time stamp precision (micro or nano)", optarg);
			break;
		case 'T':
			if (strcmp(optarg, "text") == 0)
				o->format = OUT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				o->format = OUT_JSON;
			else
				return fail_usage("unknown output format (text or json)", optarg);
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case OPT_ROCE_PORT:
			if (!parse_uint(optarg, 65535, &v) || v == 0)
				return fail_usage("invalid UDP port", optarg);
			if (o->decoder.n_extra_ports == ROCE_MAX_EXTRA_PORTS)
				return fail_usage("too many --roce-port options", NULL);
			o->decoder.extra_ports[o->decoder.n_extra_ports++] = (uint16_t)v;
			break;
		case OPT_SUMMARY:
			o->streams = true;
			break;
		case OPT_MAX_STREAMS:
			if (!parse_uint(optarg, UINT32_MAX, &v) || v == 0)
				return fail_usage("invalid stream count", optarg);
			o->max_streams = (uint32_t)v;
			break;
		case OPT_COPY_WINDOW:
			if (!parse_uint(optarg, 60000000, &v))
				return fail_usage("invalid copy window (0 to 60000000 microseconds)", optarg);
			o->copy_window_us = v ? (int64_t)v : -1;
			break;
		case OPT_PMTU:
			if (!parse_uint(optarg, 4096, &v) || v < 256 || (v & (v - 1)))
				return fail_usage("invalid path MTU (256, 512, 1024, 2048 or 4096)", optarg);
			o->pmtu = (uint32_t)v;
			break;
		case OPT_THREADS:
			if (!parse_uint(optarg, PIPELINE_MAX_THREADS, &v) || v == 0)
				return fail_usage("invalid thread count (1-16)", optarg);
			o->threads = (unsigned)v;
			break;
		case OPT_BATCH:
			if (!parse_uint(optarg, PIPELINE_MAX_BATCH, &v) || v == 0)
				return fail_usage("invalid batch size (1-65536 frames)", optarg);
			o->batch = (unsigned)v;
			break;
		case OPT_VERSION:
			printf("rocedump %s\n%s\n", ROCEDUMP_VERSION, pcap_lib_version());
			return -1;
		case OPT_LIST_EVENTS:
			list_events();
			return -1;
		case 'h':
			usage(stdout);
			return -1;
		case ':':  /* the leading ':' of the option string: a missing argument, short or long */
			return fail_usage("option requires an argument", argv[optind - 1]);
		case '?':
		default:
			return fail_usage("unknown option", argv[optind - 1]);
		}
	}
	if (!o->read_file)
		return fail_usage("no input: give -r FILE (live capture comes with -i in a later release)", NULL);
	if (o->write_file && strcmp(o->write_file, "-") == 0 && (o->quiet || o->streams))
		return fail_usage("-w - writes the capture to standard output: no room for -q or --summary", NULL);
	if (optind < argc) {
		o->filter = join_words(argc - optind, argv + optind);
		if (!o->filter) {
			fprintf(stderr, "rocedump: out of memory\n");
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* What happens to each decoded frame, in capture order: the transport analysis, the -q summary,
 * the frame's line or JSON object. */
struct sink_ctx {
	const struct options *o;
	struct roce_analyzer *an;
	struct summary *sum;
	struct sb *line;
	struct pcapng_out *out;    /* -w */
	uint64_t n;                /* frames so far */
};

/* -w: the frame, with its events as the comment. */
static void write_frame(struct sink_ctx *sc, const struct frame *f, const struct roce_pkt *pkt,
			const struct roce_findings *fi)
{
	static struct sb comment;
	sb_reset(&comment);
	if (!roce_evset_empty(&pkt->events)) {
		sb_puts(&comment, "rocedump: ");
		print_events(&comment, pkt, fi);
	}
	pcapng_out_frame(sc->out, f, comment.buf, comment.len);
}

static bool sink_frame(void *ctx, const struct frame *f, struct roce_pkt *pkt)
{
	struct sink_ctx *sc = ctx;
	const struct options *o = sc->o;
	struct roce_findings findings;

	sc->n++;
	pkt->capture_if = f->iface;  /* copies: the pcapng interface */
	roce_analyze(sc->an, pkt, sc->n, f->data, frame_ts_ns(f), o->quiet && !sc->out ? NULL : &findings);
	summary_add(sc->sum, pkt);
	if (sc->out) {
		write_frame(sc, f, pkt, &findings);
	} else if (!o->quiet) {
		if (o->format == OUT_JSON)
			print_json(sc->line, &o->print, sc->n, f, pkt, &findings);
		else
			print_text(sc->line, &o->print, sc->n, f, pkt, &findings);
		sb_end_record(sc->line, stdout);
		if (o->print.hex && o->format == OUT_TEXT)
			print_hex(sc->line, stdout, &o->print, f, pkt);
	}
	return !o->count || (long long)sc->n < o->count;
}

int main(int argc, char **argv)
{
	struct ts_clock clock = {0};
	struct options o = {.print.clock = &clock};
	struct input in;
	char err[INPUT_ERRLEN];
	int rc = parse_options(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (input_open_file(&in, o.read_file, o.filter, err, sizeof(err)) < 0) {
		fprintf(stderr, "rocedump: %s\n", err);
		free(o.filter);
		return EXIT_USAGE;
	}
	struct roce_analyzer_config acfg = {.max_streams = o.max_streams, .pmtu = o.pmtu,
					    .copy_window_us = o.copy_window_us};
	char aerr[ROCE_ERRBUF_SIZE];
	struct roce_analyzer *an = roce_analyzer_new(&acfg, aerr);
	if (!an) {
		fprintf(stderr, "rocedump: %s\n", aerr);
		input_close(&in);
		free(o.filter);
		return EXIT_USAGE;
	}
	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));

	static struct summary sum;
	static struct sb line;
	struct pcapng_out out = {0};
	struct sink_ctx sc = {.o = &o, .an = an, .sum = &sum, .line = &line};
	if (o.write_file) {
		if (pcapng_out_open(&out, o.write_file, in.linktype, err, sizeof(err)) < 0) {
			fprintf(stderr, "rocedump: %s\n", err);
			roce_analyzer_free(an);
			input_close(&in);
			free(o.filter);
			return EXIT_USAGE;
		}
		sc.out = &out;
	}
	struct pipeline_config pcfg = {
		.threads = o.threads ? o.threads : pipeline_default_threads(),
		.batch_frames = o.batch ? o.batch : PIPELINE_BATCH_DEFAULT,
		.decoder = &o.decoder,
	};
	int status = 0;

	sb_reset(&line);
	rc = pipeline_run(&in, &pcfg, sink_frame, &sc, err, sizeof(err));
	if (rc == 1)
		input_stopped_early(&in);  /* -c: whatever the decoding threads read ahead */
	sb_flush(&line, stdout);
	if (rc < 0) {
		fflush(stdout);
		fprintf(stderr, "rocedump: %s\n", err);
		status = EXIT_USAGE;
	}
	if (pcapng_out_close(&out, err, sizeof(err)) < 0) {
		fprintf(stderr, "rocedump: %s: %s\n", o.write_file, err);
		status = EXIT_USAGE;
	}
	if (o.quiet) {
		if (o.format == OUT_JSON)
			summary_print_json(&sum, input_capstats(&in), stdout);
		else
			summary_print_text(&sum, input_capstats(&in), stdout);
	}
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
	roce_analyzer_free(an);
	input_close(&in);
	free(o.filter);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rocedump: writing output: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	if (status == 0 && o.strict && sum.worst[ROCE_SEV_ERROR])
		status = EXIT_EVENTS;
	return status;
}
