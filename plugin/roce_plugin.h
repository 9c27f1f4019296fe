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

/* What the tap "roce" carries for a RoCE frame the analysis took (data of tap_queue_packet,
 * in the frame's pinfo->pool), for the conversation table and the flow graph. */
struct roce_tap_info {
	guint32 stream, pair;       /* the frame's ids (roce.stream, roce.pair) */
	address src, dst;           /* the RoCE packet's IP addresses (or GIDs): the inner ones */
	guint32 dqpn;
	guint32 srcqp;              /* UD: the DETH's source QP; else 0 */
	guint32 psn, msn;
	guint8 opcode, syndrome;    /* syndrome: the AETH's, when has_aeth */
	gboolean has_aeth;
	guint32 frame_len;          /* frame.len */
	struct roce_evset events;
};

/* roce_views.c: Statistics > Conversations (tshark -z conv,roce) and Flow Graph
 * (tshark -z flow,roce,standard) */
void roce_views_register(int proto);

#endif
