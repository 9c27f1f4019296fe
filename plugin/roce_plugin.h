/* roce_plugin.h: what the parts of the Wireshark plugin roce.so share: the registration entry
 * points plugin.c (the version-specific ABI) calls, and the analyzer of the open file that the
 * statistics table (roce_stats.c) reads. */
#ifndef ROCE_PLUGIN_H
#define ROCE_PLUGIN_H

#include <epan/packet.h>

#include "roce/roce.h"

/* packet_roce.c: the post-dissector "RoCE Analysis" */
void roce_proto_register(void);
void roce_proto_handoff(void);

/* The transport analyzer of the open file (NULL when the analysis is off), and a number that
 * changes whenever it is made anew (a new file, preferences applied). */
const struct roce_analyzer *roce_plugin_analyzer(void);
unsigned roce_plugin_generation(void);
/* The frame number the analyzer has seen last (the first pass is done past it). */
guint32 roce_plugin_last_analyzed(void);

/* roce_stats.c: Statistics > RoCE Queue Pairs, tshark -z roce,qp */
void roce_stats_register(void);

#endif
