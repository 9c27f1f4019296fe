/* report.h: roceconform's reports (report.c): the table on standard output, --json FILE and
 * --junit FILE (one <testcase> per test run, its name starting with the test ID; FAIL as
 * <failure>, INCONCLUSIVE as <error>, N/A as <skipped>). */
#ifndef CONFORM_REPORT_H
#define CONFORM_REPORT_H

#include <stdio.h>

#include "agent.h"
#include "conform.h"

struct run_result {
	const struct conf_test *t;
	struct conf_result r;
	double seconds;
	struct agent_delta *counters;   /* the DUT agent's non-zero counter deltas (malloc'ed) */
	size_t n_counters;
	unsigned run;               /* 1.. with --repeat */
	bool pcap_written;          /* its pcapng is in info->pcap_dir */
	bool counters_read;         /* the DUT agent read its counters before and after the test */
	bool counters_contradict;   /* they contradict the verdict (the note is in r.reason) */
	/* the test's first run, when it FAILed only on answers not seen and was run again (main.c
	 * rerun()): its result, seconds, counter deltas and pcapng (ID[-RUN].first.pcapng); r, seconds
	 * and counters above are then the second run's */
	bool rerun;
	struct conf_result first;
	double first_seconds;
	struct agent_delta *first_counters;
	size_t n_first_counters;
	bool first_counters_read, first_pcap_written;
};

struct run_info {
	const char *iface, *dut, *local, *setup, *mode;   /* mode: "live" or "dry-run" */
	int64_t started_ns;
	double seconds;
	unsigned pps;
	const char *pcap_dir;       /* --pcap-dir as an absolute path (JUnit attachments), or NULL */
	unsigned repeat;            /* --repeat: how the pcapng files are named */
	const struct agent *agent;  /* the DUT agent (--dut-ssh) and its facts, or NULL */
	const char *agent_target;   /* --dut-ssh as given */
};

/* The pcapng file of a test run in dir: DIR/ID.pcapng, or DIR/ID-RUN.pcapng with --repeat; the
 * first run of a test run again: DIR/ID.first.pcapng, DIR/ID-RUN.first.pcapng. */
void report_pcap_path(char *buf, size_t n, const char *dir, const char *id, unsigned run, unsigned repeat, bool first);

/* The exit status of the results (README "Exit status"): EXIT_CONF_FAIL when a test failed or
 * passed unexpectedly (strict XPASS), else EXIT_CONF_INCONCLUSIVE when one was inconclusive, else
 * EXIT_CONF_PASS; expected deviations do not count. */
int report_status(const struct run_result *rs, size_t n);
void report_table(FILE *f, const struct run_result *rs, size_t n, bool verbose);
/* The JSON and JUnit reports to an open stream, or to path ("-": standard output) through a
 * temporary renamed once complete (outfile.h): 0, or -1 with the reason in err. */
void report_json_to(FILE *f, const struct run_info *info, const struct run_result *rs, size_t n);
void report_junit_to(FILE *f, const struct run_info *info, const struct run_result *rs, size_t n);
int report_json(const char *path, const struct run_info *info, const struct run_result *rs, size_t n,
		char err[CONF_ERRLEN]);
int report_junit(const char *path, const struct run_info *info, const struct run_result *rs, size_t n,
		 char err[CONF_ERRLEN]);

#endif
