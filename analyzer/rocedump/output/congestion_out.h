/* congestion_out.h: rocedump's congestion reports: the PFC/PAUSE tables of the -q summary (text,
 * and the top-level "pfc" and "pause" arrays of its JSON), and the per-stream congestion table
 * and JSON object of the stream summary. */
#ifndef ROCEDUMP_CONGESTION_OUT_H
#define ROCEDUMP_CONGESTION_OUT_H

#include <stdio.h>

#include "roce/analyze.h"

/* -q text: the PFC/PAUSE table per source MAC and priority, and CNPs that answered no one
 * stream; nothing when the capture had neither. */
void congestion_print_text(const struct roce_analyzer *a, uint64_t link_bps, FILE *out);
/* -q JSON: ,"pfc":[...],"pause":[...],"cnp_unattributed":[...] (keys of the enclosing object). */
void congestion_print_json(const struct roce_analyzer *a, FILE *out);
/* --summary text: the congestion table (streams.c lists it after the stream table; its rows carry
 * the same pair and stream ids): its heading, and one row for a stream that carried ECT/CE marks, CNPs, FECN or BECN
 * (congestion_stream_has). */
bool congestion_stream_has(const struct roce_stream_stats *s);
void congestion_stream_text_header(FILE *out);
void congestion_stream_text_row(FILE *out, const struct roce_stream_stats *s);
/* --summary JSON: ,"congestion":{...} of one stream row. */
void congestion_stream_json(const struct roce_stream_stats *s, FILE *out);

#endif
