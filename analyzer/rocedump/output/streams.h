/* streams.h: the --summary report: one row per stream (source > destination QP) from the
 * transport analyzer, as a text table or one JSON object, headed by the capture's own drop
 * counts (a PSN gap may be the capture's loss). */
#ifndef ROCEDUMP_STREAMS_H
#define ROCEDUMP_STREAMS_H

#include <stdbool.h>
#include <stdio.h>

#include "input/capstats.h"
#include "roce/analyze.h"

/* verbose: the full table (-v); else one that fits 120 columns, and the times on lines of their own */
void streams_print_text(const struct roce_analyzer *a, const struct capstats *cs, bool verbose, FILE *out);
void streams_print_json(const struct roce_analyzer *a, const struct capstats *cs, FILE *out);
/* The same object with only the rows keep() returns true for (--report lists the most troubled
 * queue pairs), in the same order. */
void streams_print_json_some(const struct roce_analyzer *a, const struct capstats *cs, FILE *out,
			     bool (*keep)(const struct roce_stream_stats *s, void *user), void *user);

#endif
