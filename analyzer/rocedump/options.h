/* options.h: rocedump's command line: what a run asks for (struct options), read from argv by
 * parse_options() (options.c, with the --help text and every usage message). */
#ifndef ROCEDUMP_OPTIONS_H
#define ROCEDUMP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "input/live.h"
#include "output/dfilter.h"
#include "output/print.h"
#include "output/rotate.h"
#include "roce/roce.h"

/* The exit status of a usage or input error (message on stderr, prefixed "rocedump: "). */
#define EXIT_USAGE 2

enum out_format { OUT_TEXT, OUT_JSON };

#define OPT_POINT_OFFSETS_MAX 64

struct options {
	const char *read_file;     /* -r: the first file */
	const char *read_files[INPUT_FILES_MAX];  /* every -r, in order: several are merged */
	unsigned n_read_files;
	bool stdin_read;           /* one of them is "-" */
	const char *write_file;    /* -w */
	long long count;           /* -c; 0 = all */
	struct print_opts print;
	bool quiet;
	bool strict;
	bool streams;              /* --summary */
	uint32_t max_streams;      /* --max-streams */
	uint32_t pmtu;             /* --pmtu */
	int64_t copy_window_us;    /* --copy-window-us; 0: copies are not looked for */
	struct point_offset {
		const char *name;  /* a capture point's name or number (path_out.h) */
		int64_t ns;        /* its clock's offset */
	} point_offsets[OPT_POINT_OFFSETS_MAX];  /* --point-offset, in the order given */
	unsigned n_point_offsets;
	enum out_format format;
	unsigned threads;          /* --threads; 0 = pipeline_default_threads() */
	unsigned batch;            /* --batch */
	struct roce_decoder_config decoder;
	struct roce_congestion_config congestion;  /* --link-speed, --pfc-storm-ms, --cnp-*, --dscp-prio */
	char *filter;
	struct dfilter *display;   /* -Y */
	const char *report_file;   /* --report */
	unsigned report_plots;     /* --report-plots */
	/* live capture and long runs */
	struct live_config live;   /* live.device: the first -i */
	const char *devices[LIVE_DEVICES_MAX];  /* every -i, in order: several are merged */
	unsigned n_devices;
	bool list_devices;         /* -D */
	bool list_tstamp_types;    /* -J */
	bool line_buffered;        /* -l */
	bool nano_asked;           /* --nano or --time-stamp-precision given */
	struct rotate_config rotate; /* -w FILE with -C, -G, -W, -U */
	const char *user;          /* -Z */
	const char *metrics_addr;  /* --metrics */
	const char *metrics_file;  /* --metrics-file */
	/* --export URL: ClickHouse (export/export.h) */
	const char *export_url;
	const char *export_host;           /* --export-host */
	const char *export_password_file;  /* --export-password-file */
	const char *export_spool;          /* --export-spool */
	uint64_t export_spool_max;         /* --export-spool-max, bytes */
	bool export_all_frames;            /* --export-all-frames */
};

/* Read the command line into o (zeroed but for print.clock), over the defaults. 0: run;
 * -1: done, exit 0 (--help, --version or --list-events printed); EXIT_USAGE: the message and the
 * hint to try --help printed on stderr. What it allocated is freed by free_options(), whatever it
 * returned. */
int parse_options(int argc, char **argv, struct options *o);

/* What parse_options() allocated. */
void free_options(struct options *o);

#endif
