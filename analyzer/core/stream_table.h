/* stream_table.h: the transport analyzer's state (internal), in one include for analyze.c,
 * stream_table.c and the rest of the core: a stream's core record (stream.h), its side blocks
 * (stream_blocks.h) and their pools (stream_side.h), the analyzer struct (analyzer_state.h), and
 * the per-frame lookups of addresses and streams (stream_lookup.h). The rules that update a
 * stream live in analyze.c; the table and its reports in stream_table.c. */
#ifndef ROCE_STREAM_TABLE_H
#define ROCE_STREAM_TABLE_H

#include "analyzer_state.h"
#include "stream.h"
#include "stream_blocks.h"
#include "stream_lookup.h"
#include "stream_side.h"

#endif
