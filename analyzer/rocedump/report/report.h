/* report.h: rocedump --report: one self-contained HTML page of plots over a capture.
 *
 * The report collects, as frames arrive, what the plots need and the summary does not keep:
 * per stream, its frames as points (time, PSN, kind, bytes) up to REPORT_EXACT_POINTS, then as
 * fixed time bins (tbins.h); over the capture, events per time bin by severity with the frames
 * that carry them. Every count it shows comes from the analyzer and the summary rocedump already
 * has: at the end it embeds -q -T json's summary and the --summary -T json rows as they print,
 * and the streams' series are keyed to those rows. The page (report/report.html, .js, .css
 * and the vendored uPlot) is built into the binary (report_assets.c, generated). */
#ifndef ROCEDUMP_REPORT_H
#define ROCEDUMP_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "input/capstats.h"
#include "input/input.h"
#include "roce/analyze.h"
#include "roce/path.h"
#include "output/summary.h"

#define REPORT_PLOTS_DEFAULT 50         /* queue pairs with plots */
#define REPORT_EXACT_POINTS 10000       /* a stream's frames plotted one by one up to this */
#define REPORT_TABLE_MAX 5000           /* queue pairs listed in the table (the most troubled) */
#define REPORT_MEM_BUDGET (256u << 20)  /* bytes of points and bins over all streams */

struct report;

struct report_config {
	const char *path;        /* the HTML file to write */
	const char *const *captures;  /* the capture's names: every -r file in order, or the interface */
	unsigned n_captures;
	bool live;               /* capture is an interface: written when the capture stops */
	unsigned plots;          /* queue pairs with plots (the most troubled first) */
};

/* Opens the output file (so a bad path fails before the capture is read). NULL with the reason
 * in err on failure. */
struct report *report_new(const struct report_config *cfg, char *err, size_t errlen);

/* One frame, in capture order, after roce_analyze() (fi: its findings, not NULL). */
void report_frame(struct report *r, uint64_t frame_no, const struct frame *f, const struct roce_pkt *p,
		  const struct roce_findings *fi);

/* The analyzer's congestion outcomes (roce_analyzer_on_congestion(an, report_congestion, r)):
 * CNPs, missed CE marks and pause intervals, for the congestion plots. */
void report_congestion(const struct roce_cong_outcome *o, void *user);

/* Each packet's share of a path hop (roce_analyzer_on_path_sample(an, report_path_sample, r)): the
 * hops' delay and loss per time bin. */
void report_path_sample(void *user, const struct roce_path_sample *s);

/* Write the page and close the file. Returns 0, or -1 with the reason in err. */
int report_finish(struct report *r, const struct summary *sum, const struct roce_analyzer *an,
		  const struct capstats *cs, char *err, size_t errlen);

void report_free(struct report *r);

#endif
