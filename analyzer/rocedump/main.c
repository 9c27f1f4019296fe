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

#include "dfilter.h"
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
	enum out_format format;
	unsigned threads;          /* --threads; 0 = pipeline_default_threads() */
	unsigned batch;            /* --batch */
	struct roce_decoder_config decoder;
	struct roce_congestion_config congestion;  /* --link-speed, --pfc-storm-ms, --cnp-*, --dscp-prio */
	char *filter;
	struct dfilter *display;   /* -Y */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rocedump -r FILE [options] [filter expression]\n"
		"  -r FILE            read a pcap or pcapng file (\"-\" for standard input)\n"
		"  -c N               stop after N frames (counted after the filter, before -Y)\n"
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
		"  -Y EXPR            print (or -w write) only the frames EXPR selects, a display filter\n"
		"                     as tshark's -Y over the JSON's dotted field names and the events,\n"
		"                     after the analysis (which, the summary and --strict still see every\n"
		"                     frame): roce.dqpn == 0x11, ip.src == 10.0.0.1, event psn.*,\n"
		"                     roce.icrc.status != \"good\" and not wrapper.kind == \"vxlan\"\n"
		"  -q                 no per-frame output; print a summary at the end, and the\n"
		"                     --summary table when it has at most 64 rows\n"
		"  -T text|json       output format (json: one object per frame, JSON Lines)\n"
		"      --strict       exit 1 if any error-severity event occurred\n"
		"      --summary      print one row per stream (source > destination QP) at the end\n"
		"      --max-streams N  streams the transport analysis tracks at once (default 2097152:\n"
		"                     1 M queue pairs, both directions)\n"
		"      --pmtu N       the path MTU (256, 512, 1024, 2048, 4096); default: learned per stream\n"
		"      --roce-port N  also decode UDP destination port N as RoCEv2 (repeatable)\n"
		"      --link-speed S the link's speed for PFC/PAUSE quanta (512 bit times each): e.g.\n"
		"                     10G, 25G, 100G (default), 400G; bits per second, K/M/G/T suffix\n"
		"      --pfc-storm-ms N  one continuous pause longer than N ms is pfc.storm (default 100)\n"
		"      --dscp-prio MAP   priority of untagged RoCE by DSCP, e.g. 26=3,48=6 (the DSCPs not\n"
		"                     listed: DSCP >> 3); tagged frames use their VLAN PCP\n"
		"      --cnp-interval-us N  the NIC's least time between CNPs on a QP (default 50; 0: a\n"
		"                     CNP is due for every CE mark)\n"
		"      --cnp-timeout-us N   a CNP later than N us after a CE mark due one is cnp.missing\n"
		"                     (default 1000)\n"
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
	OPT_THREADS, OPT_BATCH, OPT_NANO, OPT_TS_PRECISION,
	OPT_LINK_SPEED, OPT_PFC_STORM, OPT_DSCP_PRIO, OPT_CNP_INTERVAL, OPT_CNP_TIMEOUT,
};

/* --link-speed: N with an optional K, M, G or T (decimal) suffix, in bits per second. */
static bool parse_speed(const char *arg, uint64_t *bps)
{
	char num[24];
	size_t n = strlen(arg);
	unsigned long long v, mult = 1;
	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, arg, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': mult = 1000ULL; break;
	case 'm': case 'M': mult = 1000000ULL; break;
	case 'g': case 'G': mult = 1000000000ULL; break;
	case 't': case 'T': mult = 1000000000000ULL; break;
	default: break;
	}
	if (mult > 1)
		num[n - 1] = '\0';
	if (!parse_uint(num, 1000000, &v) || v == 0 || v * mult < 1000000ULL)  /* 1 Mb/s .. 1 Pb/s */
		return false;
	*bps = v * mult;
	return true;
}

/* --dscp-prio: DSCP=PRIORITY pairs, comma-separated; the DSCPs not named keep DSCP >> 3. */
static bool parse_dscp_map(const char *arg, struct roce_congestion_config *c)
{
	char buf[512];
	size_t n = strlen(arg);
	if (n >= sizeof(buf) || !n || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,"))
		return false;  /* no empty items */
	strcpy(buf, arg);
	for (unsigned d = 0; d < 64; d++)
		c->dscp_prio[d] = (uint8_t)(d >> 3);
	char *save = NULL;
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		unsigned long long d, prio;
		if (!eq)
			return false;
		*eq = '\0';
		if (!parse_uint(item, 63, &d) || !parse_uint(eq + 1, 7, &prio))
			return false;
		c->dscp_prio[d] = (uint8_t)prio;
	}
	c->dscp_map = true;
	return true;
}

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
		{"threads", required_argument, NULL, OPT_THREADS},
		{"batch", required_argument, NULL, OPT_BATCH},
		{"nano", no_argument, NULL, OPT_NANO},
		{"time-stamp-precision", required_argument, NULL, OPT_TS_PRECISION},
		{"number", no_argument, NULL, '#'},
		{"link-speed", required_argument, NULL, OPT_LINK_SPEED},
		{"pfc-storm-ms", required_argument, NULL, OPT_PFC_STORM},
		{"dscp-prio", required_argument, NULL, OPT_DSCP_PRIO},
		{"cnp-interval-us", required_argument, NULL, OPT_CNP_INTERVAL},
		{"cnp-timeout-us", required_argument, NULL, OPT_CNP_TIMEOUT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long v;
	int c, x_count = 0, X_count = 0;

	/* As tcpdump on Linux: glibc's getopt permutes, so options may follow the filter expression's
	 * words ("-r f 'udp port 4791' -c 1"); "--" ends the options; with POSIXLY_CORRECT set the
	 * options end at the first word that is not one. The leading ':' reports a missing argument
	 * as ':'. A new option: a letter here or a row in longopts, and a case below. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":r:w:c:nveqtxX#T:hY:", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o->read_file = optarg;
			break;
		case 'w':
			o->write_file = optarg;
			break;
		case 'Y': {
			char derr[256];
			dfilter_free(o->display);
			o->display = dfilter_compile(optarg, derr, sizeof(derr));
			if (!o->display)
				return fail_usage("invalid display filter (-Y)", derr);
			break;
		}
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
		case OPT_LINK_SPEED:
			if (!parse_speed(optarg, &o->congestion.link_bps))
				return fail_usage("invalid link speed (e.g. 25G, 100G, 400G)", optarg);
			o->print.link_bps = o->congestion.link_bps;
			break;
		case OPT_PFC_STORM:
			if (!parse_uint(optarg, 86400000, &v) || v == 0)
				return fail_usage("invalid PFC storm time (1-86400000 ms)", optarg);
			o->congestion.pfc_storm_ns = (int64_t)v * 1000000;
			break;
		case OPT_DSCP_PRIO:
			if (!parse_dscp_map(optarg, &o->congestion))
				return fail_usage("invalid DSCP to priority map (DSCP=PRIORITY,...: 0-63=0-7)", optarg);
			break;
		case OPT_CNP_INTERVAL:
			if (!parse_uint(optarg, 1000000000, &v))
				return fail_usage("invalid CNP interval (0-1000000000 us)", optarg);
			o->congestion.cnp_interval_ns = (int64_t)v * 1000;
			o->congestion.cnp_interval_zero = v == 0;
			break;
		case OPT_CNP_TIMEOUT:
			if (!parse_uint(optarg, 1000000000, &v) || v == 0)
				return fail_usage("invalid CNP timeout (1-1000000000 us)", optarg);
			o->congestion.cnp_timeout_ns = (int64_t)v * 1000;
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
	roce_analyze(sc->an, pkt, f->number, f->data, frame_ts_ns(f), o->quiet && !sc->out ? NULL : &findings);
	summary_add(sc->sum, pkt);
	if (o->display && (sc->out || !o->quiet)) {
		struct roce_field_src src = {.data = f->data, .p = pkt, .frame_no = f->number, .ts_sec = f->ts_sec,
					     .ts_nsec = f->ts_nsec};
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
	}
	return !o->count || (long long)sc->n < o->count;
}

int main(int argc, char **argv)
{
	struct ts_clock clock = {0};
	struct options o = {.print.clock = &clock, .print.link_bps = ROCE_LINK_BPS_DEFAULT};
	struct input in;
	char err[INPUT_ERRLEN];
	int rc = parse_options(argc, argv, &o);

	if (rc) {
		free(o.filter);
		dfilter_free(o.display);
		return rc < 0 ? 0 : rc;
	}
	if (input_open_file(&in, o.read_file, o.filter, err, sizeof(err)) < 0) {
		fprintf(stderr, "rocedump: %s\n", err);
		free(o.filter);
		dfilter_free(o.display);
		return EXIT_USAGE;
	}
	struct roce_analyzer_config acfg = {.max_streams = o.max_streams, .pmtu = o.pmtu, .congestion = &o.congestion};
	char aerr[ROCE_ERRBUF_SIZE];
	struct roce_analyzer *an = roce_analyzer_new(&acfg, aerr);
	if (!an) {
		fprintf(stderr, "rocedump: %s\n", aerr);
		input_close(&in);
		free(o.filter);
		dfilter_free(o.display);
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
			dfilter_free(o.display);
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
			summary_print_json(&sum, input_capstats(&in), an, stdout);
		else
			summary_print_text(&sum, input_capstats(&in), an, o.print.link_bps, stdout);
	}
	uint64_t n_streams = roce_analyzer_streams(an);
	if (o.streams || (o.quiet && n_streams >= 1 && n_streams <= QUIET_TABLE_MAX)) {
		if (o.format == OUT_JSON)
			streams_print_json(an, input_capstats(&in), stdout);
		else
			streams_print_text(an, input_capstats(&in), stdout);
	} else if (o.quiet && o.format == OUT_TEXT && n_streams > QUIET_TABLE_MAX) {
		printf("streams: %" PRIu64 " (evicted %" PRIu64 "); --summary lists them\n", n_streams,
		       roce_analyzer_evictions(an));
	}
	roce_analyzer_free(an);
	input_close(&in);
	free(o.filter);
	dfilter_free(o.display);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rocedump: writing output: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	if (status == 0 && o.strict && sum.worst[ROCE_SEV_ERROR])
		status = EXIT_EVENTS;
	return status;
}
