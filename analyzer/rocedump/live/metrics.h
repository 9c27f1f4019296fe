/* metrics.h: the run's counters as Prometheus text exposition (format 0.0.4), for --metrics and
 * --metrics-file (metrics.c). Names follow Prometheus conventions: rocedump_ prefix, counters
 * ending in _total, one label per dimension. Frames by opcode, ICRC outcomes, every event of the
 * event table (events.def, zeros included, so series never appear late), the capture's own
 * drops, congestion (RoCE frames by ECN codepoint; PFC and PAUSE frames, pauses, paused time and
 * storms per priority, summed over the sources: a label set of nine priorities), the streams with the most retransmissions (at most METRICS_TOP_STREAMS, so the
 * label set stays bounded whatever the traffic), and the path analysis's hops between capture
 * points (at most METRICS_PATH_HOPS, labelled from and to by the points' names). */
#ifndef ROCEDUMP_METRICS_H
#define ROCEDUMP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/export.h"
#include "input/capstats.h"
#include "roce/analyze.h"
#include "roce/path.h"
#include "output/summary.h"

#define METRICS_TOP_STREAMS 10
/* Hops of the path analysis with series of their own: those that saw the most packets at their
 * from point (hops number up to the points squared; rocedump_path_hops counts them all). */
#define METRICS_PATH_HOPS 32u

struct metrics_top {
	unsigned n;
	struct roce_stream_stats s[METRICS_TOP_STREAMS];
};

struct metrics_view {
	const struct summary *sum;
	const struct roce_analyzer *an;
	const struct capstats *cs;
	const struct metrics_top *top;   /* from metrics_top_streams(), may be a while old */
	double now;                      /* seconds since 1970, for the snapshot's time */
	const struct export_counts *exp; /* --export's rows so far; NULL: no --export */
	const struct roce_path *path;    /* the path analysis so far (roce/path.h), may be a while old; NULL: none */
};

/* The streams with the most retransmissions (then missing PSNs) now: one walk of the table. */
void metrics_top_streams(const struct roce_analyzer *an, struct metrics_top *top);

/* The exposition text, malloc'ed (*len bytes, NUL-terminated); NULL when out of memory. */
char *metrics_render(const struct metrics_view *v, size_t *len);

#endif
