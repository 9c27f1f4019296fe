/* options.c: rocedump's command line: the --help text, getopt_long over argv into struct options
 * (the numeric options from one table, num_opts), and the usage messages, each followed by the
 * hint to try --help and exit status 2. */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "options.h"
#include "export/export.h"
#include "export_schema.h"
#include "live/metrics_out.h"
#include "pipeline.h"
#include "report/report.h"
#include "roce/path.h"

#define STR_(x) #x
#define STR(x) STR_(x)  /* a number's macro as a string */

/* The --help text; the defaults it states are printed from their names (ROCE_*_DEFAULT in the
 * public headers, rocedump's own *_DEFAULT). */
static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rocedump -r FILE [options] [filter expression]\n"
		"       rocedump -i INTERFACE [options] [filter expression]\n"
		"  -r FILE            read a pcap or pcapng file (\"-\" for standard input); given up to\n"
		"                     %d times, the files' frames merged in time order (as mergecap)\n"
		"  -i INTERFACE       capture live on INTERFACE (\"any\": all of them); needs root or\n"
		"                     CAP_NET_RAW (setcap cap_net_raw+ep rocedump); given up to %d times,\n"
		"                     each interface a capture point, their frames merged in time order\n"
		"  -D                 list the interfaces to capture on\n"
		"  -J                 list the time stamp types of each -i INTERFACE\n"
		"  -s N               live: snapshot length, bytes kept of each frame (default %d)\n"
		"  -B KiB             live: kernel capture ring size (default %d KiB = %d MiB)\n"
		"  -p                 live: do not put the interface into promiscuous mode\n"
		"  -Q in|out|inout    live: capture only frames received, sent, or both\n"
		"  -j, --time-stamp-type TYPE\n"
		"                     live: time stamp source (host, adapter, adapter_unsynced, ...; -J lists\n"
		"                     them; hardware types need CAP_NET_ADMIN too)\n"
		"      --immediate-mode  live: hand each frame over as it arrives (default: within 100 ms)\n"
		"  -l                 line-buffered output: each line written as it is made\n"
		"  -U                 with -w: each frame written out as it comes\n"
		"  -C MB              with -w: start a new file once one exceeds MB million bytes\n"
		"  -G SECONDS         with -w: start a new file every SECONDS (FILE: a strftime pattern)\n"
		"  -W N               with -C: wrap after N files; with -G: stop after N files\n"
		"  -Z USER            live: become USER (uid, gid, groups) once the interface is open\n"
		"      --metrics ADDR:PORT   serve Prometheus metrics on http://ADDR:PORT/metrics\n"
		"      --metrics-file PATH   write them to PATH every 5 s (atomically; node_exporter's\n"
		"                     textfile collector)\n"
		"      --export URL   send the frames with events, the findings, the streams and the run's\n"
		"                     row to ClickHouse: http[s]://[USER@]HOST[:PORT]/DATABASE (tables made\n"
		"                     when absent; docs/clickhouse/README.md)\n"
		"      --export-host NAME   the box column of the rows (default: the host name)\n"
		"      --export-password-file FILE\n"
		"                     the password (else CLICKHOUSE_PASSWORD)\n"
		"      --export-all-frames   every frame, not only those with events\n"
		"      --export-spool DIR   keep the batches the server did not take in DIR, sent first\n"
		"                     later; without it they are dropped and counted\n"
		"      --export-spool-max BYTES\n"
		"                     the spool's size at most (default %llu)\n"
		"      --export-schema   print the ClickHouse tables' schema and exit\n"
		"On SIGINT, SIGTERM or SIGHUP rocedump stops cleanly (summary, counts); SIGUSR1 prints the\n"
		"capture counts.\n"
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
		"      --max-streams N  streams the transport analysis tracks at once (default %" PRIu32 ":\n"
		"                     1 M queue pairs, both directions)\n"
		"      --pmtu N       the path MTU (256, 512, 1024, 2048, 4096); default: learned per stream\n"
		"      --copy-window-us N\n"
		"                     a packet seen again within N microseconds on another interface or\n"
		"                     mirror point is a copy (frame.copy), not a resend (default %" PRId64 ";\n"
		"                     0: copies are not looked for)\n"
		"      --point-offset POINT=NS\n"
		"                     capture point POINT's clock runs NS nanoseconds ahead (repeatable;\n"
		"                     a name or number from the -q path table), taken off its time\n"
		"                     stamps before matching; path delays use these offsets instead of\n"
		"                     estimating them (NS at most 86400000000000, a day, either way)\n"
		"      --roce-port N  also decode UDP destination port N as RoCEv2 (repeatable)\n"
		"      --link-speed S the link's speed for PFC/PAUSE quanta (512 bit times each): e.g.\n"
		"                     10G, 25G, 100G (default), 400G; bits per second, K/M/G/T suffix\n"
		"      --pfc-storm-ms N  one continuous pause longer than N ms is pfc.storm (default %" PRId64 ")\n"
		"      --dscp-prio MAP   priority of untagged RoCE by DSCP, e.g. 26=3,48=6 (the DSCPs not\n"
		"                     listed: DSCP >> 3); tagged frames use their VLAN PCP\n"
		"      --cnp-interval-us N  the NIC's least time between CNPs on a QP (default %" PRId64 "; 0: a\n"
		"                     CNP is due for every CE mark)\n"
		"      --cnp-timeout-us N   a CNP later than N us after a CE mark due one is cnp.missing\n"
		"                     (default %" PRId64 ")\n"
		"      --threads N    decode on N threads (1-16; default 2 with two CPUs or more, else 1);\n"
		"                     output is the same whatever N\n"
		"      --batch N      frames a decoding thread takes at a time (1-65536, default %d)\n"
		"      --report FILE\n"
		"                     also write an HTML report of the capture to FILE: overview, event\n"
		"                     timeline, queue pairs by trouble, PSN-time and rate plots (one\n"
		"                     self-contained page; with -q, only the summary and the report)\n"
		"      --report-plots N\n"
		"                     queue pairs with plots in the report (default %d)\n"
		"      --list-events  print the event table and exit\n"
		"  -h, --help         this help\n"
		"      --version      print the version\n"
		"The filter is a libpcap (BPF) expression, as tcpdump takes it.\n",
		INPUT_FILES_MAX, LIVE_DEVICES_MAX, LIVE_SNAPLEN_DEFAULT, LIVE_BUFFER_DEFAULT_KIB, LIVE_BUFFER_DEFAULT_KIB / 1024,
		(unsigned long long)EXPORT_SPOOL_MAX_DEFAULT, ROCE_MAX_STREAMS_DEFAULT,
		ROCE_COPY_WINDOW_US_DEFAULT, ROCE_PFC_STORM_NS_DEFAULT / 1000000, ROCE_CNP_INTERVAL_NS_DEFAULT / 1000,
		ROCE_CNP_TIMEOUT_NS_DEFAULT / 1000, PIPELINE_BATCH_DEFAULT, REPORT_PLOTS_DEFAULT);
}

static int fail_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "rocedump: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "Try 'rocedump --help' for more information.\n");
	return EXIT_USAGE;
}

/* An output that is one of the capture files, which writing it would destroy: its name and
 * which option's it is said, exit status 2. */
static int fail_overwrite(const char *path, const char *what)
{
	fprintf(stderr, "rocedump: %s: %s would overwrite the capture\n", path, what);
	return EXIT_USAGE;
}

/* The files the run would write that are capture files it reads: -w's (those its rotation can be
 * known to write now; rotate.c checks each later one as it opens), --report's and
 * --metrics-file's. 0, or EXIT_USAGE after the message: before anything is opened for writing. */
static int check_overwrites(struct options *o)
{
	char name[PATH_MAX];
	const char *const *in = o->read_files;
	if (o->live.device)  /* interfaces: no file read */
		return 0;
	o->rotate.inputs = in;
	o->rotate.n_inputs = o->n_read_files;
	if (o->write_file && rotate_overwrites_input(&o->rotate, name, sizeof(name)))
		return fail_overwrite(name, "-w");
	if (o->report_file && out_overwrites_input(o->report_file, in, o->n_read_files))
		return fail_overwrite(o->report_file, "the report");
	if (o->metrics_file && out_overwrites_input(o->metrics_file, in, o->n_read_files))
		return fail_overwrite(o->metrics_file, "--metrics-file");
	return 0;
}

/* -i DEVICE: one more interface; a usage error when given twice, past LIVE_DEVICES_MAX, or when
 * "any" (which sees every interface already) comes with another. */
static int add_device(struct options *o, const char *dev)
{
	if (o->n_devices == LIVE_DEVICES_MAX)
		return fail_usage("-i given too many times: rocedump captures on at most " STR(LIVE_DEVICES_MAX)
				  " interfaces", dev);
	for (unsigned i = 0; i < o->n_devices; i++)
		if (strcmp(o->devices[i], dev) == 0)
			return fail_usage("-i given twice for the same interface", dev);
	if (o->n_devices && (strcmp(dev, "any") == 0 || strcmp(o->devices[0], "any") == 0))
		return fail_usage("-i any with another -i: \"any\" captures on every interface already (each frame "
				  "seen once per interface it crosses); give the interfaces one by one instead", dev);
	o->devices[o->n_devices++] = dev;
	o->live.device = o->devices[0];
	return 0;
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
	char *s = malloc(len), *end = s;
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (i)
			*end++ = ' ';
		memcpy(end, argv[i], n);
		end += n;
	}
	*end = '\0';
	return s;
}

enum {
	OPT_STRICT = 256, OPT_ROCE_PORT, OPT_VERSION, OPT_LIST_EVENTS, OPT_SUMMARY, OPT_MAX_STREAMS, OPT_PMTU,
	OPT_THREADS, OPT_BATCH, OPT_NANO, OPT_TS_PRECISION, OPT_REPORT, OPT_REPORT_PLOTS,
	OPT_IMMEDIATE, OPT_METRICS, OPT_METRICS_FILE, OPT_COPY_WINDOW,
	OPT_EXPORT, OPT_EXPORT_HOST, OPT_EXPORT_PASSWORD_FILE, OPT_EXPORT_ALL_FRAMES, OPT_EXPORT_SPOOL,
	OPT_EXPORT_SPOOL_MAX, OPT_EXPORT_SCHEMA,
	OPT_LINK_SPEED, OPT_POINT_OFFSET, OPT_PFC_STORM, OPT_DSCP_PRIO, OPT_CNP_INTERVAL, OPT_CNP_TIMEOUT,
};

/* The numeric options, one row each: a whole number from min to max (pow2: and a power of two),
 * stored times scale in the field of struct options at offset (size bytes; size 0: no field),
 * then given to then() when there is more to do (a message from it: exit 2 with it); a number
 * out of range: msg with the argument, exit 2. A new numeric option is a row here (and its letter
 * in the option string or its row in longopts). */
struct num_opt {
	int code;                  /* what getopt_long returns for it: the letter or OPT_* */
	bool pow2;
	unsigned long long min, max, scale;
	const char *msg;
	size_t offset, size;
	const char *(*then)(struct options *o, unsigned long long v);
};

/* --point-offset POINT=NS: a name (anything up to the last '=') and a signed whole number of at
 * most ROCE_PATH_OFFSET_MAX_NS either way (a day: larger ones would take times out of the range
 * the analysis can subtract them in). */
static int add_point_offset(struct options *o, char *arg)
{
	char *eq = strrchr(arg, '='), *end;
	if (!eq || eq == arg || !eq[1] || o->n_point_offsets == OPT_POINT_OFFSETS_MAX)
		return -1;
	errno = 0;
	long long v = strtoll(eq + 1, &end, 10);
	if (errno || *end || v > ROCE_PATH_OFFSET_MAX_NS || v < -ROCE_PATH_OFFSET_MAX_NS)
		return -1;
	*eq = '\0';
	o->point_offsets[o->n_point_offsets++] = (struct point_offset){arg, v};
	return 0;
}

/* --roce-port: one more UDP destination port decoded as RoCEv2. */
static const char *add_roce_port(struct options *o, unsigned long long v)
{
	if (o->decoder.n_extra_ports == ROCE_MAX_EXTRA_PORTS)
		return "too many --roce-port options";
	o->decoder.extra_ports[o->decoder.n_extra_ports++] = (uint16_t)v;
	return NULL;
}

#define FIELD(f) offsetof(struct options, f), sizeof(((struct options *)NULL)->f)
#define NO_FIELD 0, 0

static const struct num_opt num_opts[] = {
	{'s', false, 0, LIVE_SNAPLEN_DEFAULT, 1, "invalid snapshot length (0-262144)", FIELD(live.snaplen), NULL},
	{'B', false, 1, 0x7fffffff / 1024, 1, "invalid buffer size (KiB, 1-2097151)", FIELD(live.buffer_kib), NULL},
	{'C', false, 1, UINT64_MAX / 1000000, 1000000, "invalid file size (millions of bytes, 1 or more)",
	 FIELD(rotate.max_bytes), NULL},
	{'G', false, 1, INT_MAX, 1, "invalid rotation time (seconds, 1 or more)", FIELD(rotate.seconds), NULL},
	{'W', false, 1, INT_MAX, 1, "invalid file count (1 or more)", FIELD(rotate.max_files), NULL},
	{'c', false, 1, LLONG_MAX, 1, "invalid packet count", FIELD(count), NULL},
	{OPT_ROCE_PORT, false, 1, 65535, 1, "invalid UDP port", NO_FIELD, add_roce_port},
	{OPT_MAX_STREAMS, false, 1, UINT32_MAX, 1, "invalid stream count", FIELD(max_streams), NULL},
	{OPT_COPY_WINDOW, false, 0, 60000000, 1, "invalid copy window (0 to 60000000 microseconds)",
	 FIELD(copy_window_us), NULL},
	{OPT_PMTU, true, 256, 4096, 1, "invalid path MTU (256, 512, 1024, 2048 or 4096)", FIELD(pmtu), NULL},
	{OPT_THREADS, false, 1, PIPELINE_MAX_THREADS, 1, "invalid thread count (1-16)", FIELD(threads), NULL},
	{OPT_BATCH, false, 1, PIPELINE_MAX_BATCH, 1, "invalid batch size (1-65536 frames)", FIELD(batch), NULL},
	{OPT_REPORT_PLOTS, false, 0, 100000, 1, "invalid plot count (0-100000)", FIELD(report_plots), NULL},
	{OPT_EXPORT_SPOOL_MAX, false, 1, UINT64_MAX, 1, "invalid spool size (bytes, 1 or more)",
	 FIELD(export_spool_max), NULL},
	{OPT_PFC_STORM, false, 1, 86400000, 1000000, "invalid PFC storm time (1-86400000 ms)",
	 FIELD(congestion.pfc_storm_ns), NULL},
	{OPT_CNP_INTERVAL, false, 0, 1000000000, 1000, "invalid CNP interval (0-1000000000 us)",
	 FIELD(congestion.cnp_interval_ns), NULL},
	{OPT_CNP_TIMEOUT, false, 1, 1000000000, 1000, "invalid CNP timeout (1-1000000000 us)",
	 FIELD(congestion.cnp_timeout_ns), NULL},
};

/* The settings an option leaves as they are: the named defaults (0 where an option's 0 means
 * "off", as the analysis takes it: --copy-window-us 0, --cnp-interval-us 0). */
static void options_defaults(struct options *o)
{
	o->max_streams = ROCE_MAX_STREAMS_DEFAULT;
	o->copy_window_us = ROCE_COPY_WINDOW_US_DEFAULT;
	roce_congestion_config_init(&o->congestion);
	o->print.link_bps = o->congestion.link_bps;
	o->batch = PIPELINE_BATCH_DEFAULT;
	o->report_plots = REPORT_PLOTS_DEFAULT;
	o->export_spool_max = EXPORT_SPOOL_MAX_DEFAULT;
}

static const struct num_opt *num_opt_find(int code)
{
	for (size_t i = 0; i < sizeof(num_opts) / sizeof(num_opts[0]); i++)
		if (num_opts[i].code == code)
			return &num_opts[i];
	return NULL;
}

/* The numeric option n with the argument s into o: 0, or EXIT_USAGE after the message. Every
 * value in range fits its field, signed or not, so it is stored as the unsigned integer of the
 * field's size. */
static int num_opt_apply(const struct num_opt *n, const char *s, struct options *o)
{
	unsigned long long v;
	if (!parse_uint(s, n->max, &v) || v < n->min || (n->pow2 && (v & (v - 1))))
		return fail_usage(n->msg, s);
	unsigned long long x = v * n->scale;
	char *field = (char *)o + n->offset;
	if (n->size == sizeof(uint32_t)) {
		uint32_t x32 = (uint32_t)x;
		memcpy(field, &x32, sizeof(x32));
	} else if (n->size == sizeof(uint64_t)) {
		uint64_t x64 = x;
		memcpy(field, &x64, sizeof(x64));
	}
	const char *err = n->then ? n->then(o, v) : NULL;
	return err ? fail_usage(err, NULL) : 0;
}

int parse_options(int argc, char **argv, struct options *o)
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
		{"point-offset", required_argument, NULL, OPT_POINT_OFFSET},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"batch", required_argument, NULL, OPT_BATCH},
		{"nano", no_argument, NULL, OPT_NANO},
		{"time-stamp-precision", required_argument, NULL, OPT_TS_PRECISION},
		{"number", no_argument, NULL, '#'},
		{"report", required_argument, NULL, OPT_REPORT},
		{"report-plots", required_argument, NULL, OPT_REPORT_PLOTS},
		{"link-speed", required_argument, NULL, OPT_LINK_SPEED},
		{"pfc-storm-ms", required_argument, NULL, OPT_PFC_STORM},
		{"dscp-prio", required_argument, NULL, OPT_DSCP_PRIO},
		{"cnp-interval-us", required_argument, NULL, OPT_CNP_INTERVAL},
		{"cnp-timeout-us", required_argument, NULL, OPT_CNP_TIMEOUT},
		{"help", no_argument, NULL, 'h'},
		{"interface", required_argument, NULL, 'i'},
		{"list-interfaces", no_argument, NULL, 'D'},
		{"list-time-stamp-types", no_argument, NULL, 'J'},
		{"snapshot-length", required_argument, NULL, 's'},
		{"buffer-size", required_argument, NULL, 'B'},
		{"no-promiscuous-mode", no_argument, NULL, 'p'},
		{"direction", required_argument, NULL, 'Q'},
		{"time-stamp-type", required_argument, NULL, 'j'},
		{"immediate-mode", no_argument, NULL, OPT_IMMEDIATE},
		{"relinquish-privileges", required_argument, NULL, 'Z'},
		{"metrics", required_argument, NULL, OPT_METRICS},
		{"metrics-file", required_argument, NULL, OPT_METRICS_FILE},
		{"export", required_argument, NULL, OPT_EXPORT},
		{"export-host", required_argument, NULL, OPT_EXPORT_HOST},
		{"export-password-file", required_argument, NULL, OPT_EXPORT_PASSWORD_FILE},
		{"export-all-frames", no_argument, NULL, OPT_EXPORT_ALL_FRAMES},
		{"export-spool", required_argument, NULL, OPT_EXPORT_SPOOL},
		{"export-spool-max", required_argument, NULL, OPT_EXPORT_SPOOL_MAX},
		{"export-schema", no_argument, NULL, OPT_EXPORT_SCHEMA},
		{NULL, 0, NULL, 0},
	};
	int c, x_count = 0, X_count = 0;

	options_defaults(o);

	/* As tcpdump on Linux: glibc's getopt permutes, so options may follow the filter expression's
	 * words ("-r f 'udp port 4791' -c 1"); "--" ends the options; with POSIXLY_CORRECT set the
	 * options end at the first word that is not one. The leading ':' reports a missing argument
	 * as ':'. A new option: a letter here or a row in longopts, and a case below (a number: a row
	 * in num_opts instead of the case). */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":r:w:c:nveqtxX#T:hY:i:DJs:B:pQ:j:lUC:G:W:Z:", longopts, NULL)) != -1) {
		const struct num_opt *n = num_opt_find(c);
		if (n) {
			int rc = num_opt_apply(n, optarg, o);
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'i': {  /* several: each a capture point, merged in time order (input/merge.c) */
			int rc = add_device(o, optarg);
			if (rc)
				return rc;
			break;
		}
		case 'D':
			o->list_devices = true;
			break;
		case 'J':
			o->list_tstamp_types = true;
			break;
		case 'p':
			o->live.no_promisc = true;
			break;
		case 'Q':
			if (strcmp(optarg, "in") != 0 && strcmp(optarg, "out") != 0 && strcmp(optarg, "inout") != 0)
				return fail_usage("unknown direction (in, out or inout)", optarg);
			o->live.direction = optarg;
			break;
		case 'j':
			if (!live_tstamp_type_known(optarg))
				return fail_usage("unknown time stamp type (host, host_lowprec, host_hiprec, adapter, "
						  "adapter_unsynced, host_hiprec_unsynced)", optarg);
			o->live.tstamp_type = optarg;
			break;
		case OPT_IMMEDIATE:
			o->live.immediate = true;
			break;
		case 'l':
			o->line_buffered = true;
			break;
		case 'U':
			o->rotate.packet_buffered = true;
			break;
		case 'Z':
			o->user = optarg;
			break;
		case OPT_METRICS: {
			char err[256];
			if (metrics_addr_check(optarg, err, sizeof(err)) < 0)
				return fail_usage(err, NULL);
			o->metrics_addr = optarg;
			break;
		}
		case OPT_METRICS_FILE:
			o->metrics_file = optarg;
			break;
		case OPT_EXPORT:
			o->export_url = optarg;
			break;
		case OPT_EXPORT_HOST:
			o->export_host = optarg;
			break;
		case OPT_EXPORT_PASSWORD_FILE:
			o->export_password_file = optarg;
			break;
		case OPT_EXPORT_ALL_FRAMES:
			o->export_all_frames = true;
			break;
		case OPT_EXPORT_SPOOL:
			o->export_spool = optarg;
			break;
		case OPT_EXPORT_SCHEMA:
			fputs(export_schema_sql, stdout);
			return -1;
		case 'r':  /* several: merged in time order (input/merge.c) */
			if (o->n_read_files == INPUT_FILES_MAX)
				return fail_usage("-r given too many times: rocedump merges at most " STR(INPUT_FILES_MAX)
						  " files (merge some with mergecap first)", optarg);
			if (strcmp(optarg, "-") == 0 && o->stdin_read)
				return fail_usage("-r - given twice: standard input can be read once", NULL);
			o->stdin_read |= strcmp(optarg, "-") == 0;
			o->read_files[o->n_read_files++] = optarg;
			o->read_file = o->read_files[0];
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
			o->nano_asked = true;
			break;
		case OPT_TS_PRECISION:
			if (strcmp(optarg, "micro") == 0)
				o->print.nano = false;
			else if (strcmp(optarg, "nano") == 0)
				o->print.nano = true;
			else
				return fail_usage("unknown time stamp precision (micro or nano)", optarg);
			o->nano_asked = o->print.nano;
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
		case OPT_SUMMARY:
			o->streams = true;
			break;
		case OPT_REPORT:
			o->report_file = optarg;
			break;
		case OPT_LINK_SPEED:
			if (!roce_parse_link_speed(optarg, &o->congestion.link_bps))
				return fail_usage("invalid link speed (e.g. 25G, 100G, 400G)", optarg);
			o->print.link_bps = o->congestion.link_bps;
			break;
		case OPT_POINT_OFFSET:
			if (add_point_offset(o, optarg) < 0)
				return fail_usage("invalid point offset (POINT=NANOSECONDS, -86400000000000 to "
						  "86400000000000: a day either way; at most 64 of them)", optarg);
			break;
		case OPT_DSCP_PRIO:
			if (!roce_parse_dscp_map(optarg, &o->congestion))
				return fail_usage("invalid DSCP to priority map (DSCP=PRIORITY,...: 0-63=0-7)", optarg);
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
	if (o->list_devices || (o->list_tstamp_types && o->live.device))
		return 0;
	if (o->list_tstamp_types)
		return fail_usage("-J lists the time stamp types of an interface: give -i INTERFACE", NULL);
	if (o->n_read_files > 1)  /* -e and JSON name each frame's file */
		o->print.files = o->read_files;
	if (o->read_file && o->live.device)
		return fail_usage("-r and -i: read a file or capture live, not both", NULL);
	if (!o->read_file && !o->live.device)
		return fail_usage("no input: give -r FILE or -i INTERFACE", NULL);
	if ((o->rotate.max_bytes || o->rotate.seconds) && (!o->write_file || strcmp(o->write_file, "-") == 0))
		return fail_usage("-C and -G rotate the files -w writes: give -w FILE", NULL);
	if (o->rotate.max_files && !o->rotate.max_bytes && !o->rotate.seconds)
		return fail_usage("-W counts the files of -C or -G", NULL);
	if (!o->export_url && (o->export_host || o->export_password_file || o->export_all_frames || o->export_spool))
		return fail_usage("the --export-* options go with --export URL", NULL);
	if (o->user && !o->live.device)
		return fail_usage("-Z USER drops privileges after opening an interface: it goes with -i", NULL);
	o->live.nano = o->nano_asked && o->print.nano;
	o->rotate.name = o->write_file;
	if (o->write_file && strcmp(o->write_file, "-") == 0 && (o->quiet || o->streams))
		return fail_usage("-w - writes the capture to standard output: no room for -q or --summary", NULL);
	int rc = check_overwrites(o);
	if (rc)
		return rc;
	if (optind < argc) {
		o->filter = join_words(argc - optind, argv + optind);
		if (!o->filter) {
			fprintf(stderr, "rocedump: out of memory\n");
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* What parse_options() allocated. */
void free_options(struct options *o)
{
	free(o->filter);
	o->filter = NULL;
	dfilter_free(o->display);
	o->display = NULL;
}
