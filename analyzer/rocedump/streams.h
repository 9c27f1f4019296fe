/* streams.h: the --summary report: one row per stream (source > destination QP) from the
 * transport analyzer, as a text table or one JSON object. */
#ifndef ROCEDUMP_STREAMS_H
#define ROCEDUMP_STREAMS_H

#include <stdio.h>

#include "roce/analyze.h"

void streams_print_text(const struct roce_analyzer *a, FILE *out);
void streams_print_json(const struct roce_analyzer *a, FILE *out);

#endif
