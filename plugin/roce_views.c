/* roce_views.c: the RoCE queue pairs in Wireshark's own views, from the tap "roce"
 * (struct roce_tap_info):
 *   - a conversation table (Statistics > Conversations, tab "RoCE"; tshark -z conv,roce): one row
 *     per queue pair (the analysis' pair id), both directions, the QPs in the port columns:
 *     A is the source of the pair's older stream, A's QP the destination QP of the frames
 *     B sends, B's QP that of the frames A sends;
 *   - a flow graph (Statistics > Flow Graph, flow type "RoCE"; tshark -z flow,roce,standard):
 *     an arrow per request, ACK, NAK, RNR NAK and CNP, labelled with the opcode, QP and PSN, the
 *     frame's events as the comment.
 *
 * The conversation table's rows are made by add_conversation_table_data_with_conv_id() (the pair
 * id as conv_id, so that no two pairs share a key) and then counted here: the QP of A is known
 * only once B has sent a frame, so the row's ports are filled in as the QPs are seen, which the
 * table's key (made once, with the ports unknown) must not follow. */
#include <wireshark.h>

#include <epan/conversation_table.h>
#include <epan/tap.h>

#include "roce_plugin.h"
#include "seq_analysis_4_0.h"

/* ---- the conversation table ---- */

/* The filter fields of a row or an endpoint: its IP (or IPv6, for GIDs) addresses, the QPs. */
static const char *filter_name(gboolean v6, conv_filter_type_e ft)
{
	switch (ft) {
	case CONV_FT_SRC_ADDRESS: return v6 ? "ipv6.src" : "ip.src";
	case CONV_FT_DST_ADDRESS: return v6 ? "ipv6.dst" : "ip.dst";
	case CONV_FT_ANY_ADDRESS: return v6 ? "ipv6.addr" : "ip.addr";
	case CONV_FT_SRC_PORT:
	case CONV_FT_DST_PORT:
	case CONV_FT_ANY_PORT: return "roce.dqpn";
	default: return CONV_FILTER_INVALID;
	}
}

static const char *conv_filter_name(conv_item_t *conv, conv_filter_type_e ft)
{
	return filter_name(conv->src_address.type == AT_IPv6, ft);
}

static ct_dissector_info_t conv_info = {&conv_filter_name};

/* The rows of one conversation table (a conv_hash_t of the GUI's or tshark's): pair id -> index
 * in its conv_array, for the analyzer of roce_plugin_generation(). */
struct conv_rows {
	GHashTable *row_of;
	unsigned generation;
};

static GHashTable *rows_by_table;

static struct conv_rows *rows_of(conv_hash_t *ch)
{
	if (!rows_by_table)
		rows_by_table = g_hash_table_new(g_direct_hash, g_direct_equal);
	struct conv_rows *r = g_hash_table_lookup(rows_by_table, ch);
	if (!r) {
		r = g_new0(struct conv_rows, 1);
		r->row_of = g_hash_table_new(g_direct_hash, g_direct_equal);
		g_hash_table_insert(rows_by_table, ch, r);
	}
	/* a table emptied (a new tap run, reset_conversation_table_data) or a new analysis */
	if (!ch->conv_array || ch->conv_array->len == 0 || r->generation != roce_plugin_generation()) {
		g_hash_table_remove_all(r->row_of);
		r->generation = roce_plugin_generation();
	}
	return r;
}

/* The row of the frame's pair, made if it has none: A -> B is the direction of the pair's older
 * stream (its stream id is the pair id). */
static conv_item_t *conv_row(conv_hash_t *ch, packet_info *pinfo, const struct roce_tap_info *ti, bool a_to_b)
{
	struct conv_rows *r = rows_of(ch);
	gpointer at;
	if (g_hash_table_lookup_extended(r->row_of, GUINT_TO_POINTER(ti->pair), NULL, &at) &&
	    GPOINTER_TO_UINT(at) < ch->conv_array->len)
		return &g_array_index(ch->conv_array, conv_item_t, GPOINTER_TO_UINT(at));
	add_conversation_table_data_with_conv_id(ch, a_to_b ? &ti->src : &ti->dst, a_to_b ? &ti->dst : &ti->src,
						 0, 0, (conv_id_t)ti->pair, 0, 0, &pinfo->rel_ts, &pinfo->abs_ts,
						 &conv_info, CONVERSATION_IBQP);
	guint idx = ch->conv_array->len - 1;
	g_hash_table_insert(r->row_of, GUINT_TO_POINTER(ti->pair), GUINT_TO_POINTER(idx));
	return &g_array_index(ch->conv_array, conv_item_t, idx);
}

static void count(guint64 *frames, guint64 *bytes, guint64 *frames_total, guint64 *bytes_total, guint32 len,
		  bool counted)
{
	(*frames_total)++;
	*bytes_total += len;
	if (counted) {
		(*frames)++;
		*bytes += len;
	}
}

static tap_packet_status conv_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
				     tap_flags_t flags)
{
	conv_hash_t *ch = tapdata;
	const struct roce_tap_info *ti = data;
	if (!ti || !ti->stream)
		return TAP_PACKET_DONT_REDRAW;
	bool a_to_b = ti->stream == ti->pair;
	conv_item_t *c = conv_row(ch, pinfo, ti, a_to_b);
	/* counted in the table's figures unless the display filter left the frame out (then in
	 * the totals only, as add_conversation_table_data does). The flags are this call's, kept in
	 * the table as Wireshark's own handlers keep them: the Qt dialog leaves ch->flags
	 * uninitialised until a handler sets it, and a stray bit there zeroed every count. */
	ch->flags = flags;
	bool counted = !(flags & TL_DISPLAY_FILTER_IGNORED);
	if (a_to_b) {
		count(&c->tx_frames, &c->tx_bytes, &c->tx_frames_total, &c->tx_bytes_total, ti->frame_len, counted);
		c->dst_port = ti->dqpn;
		if (ti->srcqp && !c->src_port)
			c->src_port = ti->srcqp;
	} else {
		count(&c->rx_frames, &c->rx_bytes, &c->rx_frames_total, &c->rx_bytes_total, ti->frame_len, counted);
		c->src_port = ti->dqpn;
	}
	if (counted)
		c->filtered = FALSE;
	if (nstime_cmp(&pinfo->rel_ts, &c->start_time) < 0) {
		c->start_time = pinfo->rel_ts;
		c->start_abs_time = pinfo->abs_ts;
	}
	if (nstime_cmp(&pinfo->rel_ts, &c->stop_time) > 0)
		c->stop_time = pinfo->rel_ts;
	return TAP_PACKET_REDRAW;
}

/* The endpoints: an address and the QP there. */
static const char *endpoint_filter_name(endpoint_item_t *e, conv_filter_type_e ft)
{
	return filter_name(e->myaddress.type == AT_IPv6, ft);
}

static et_dissector_info_t endpoint_info = {&endpoint_filter_name};

static tap_packet_status endpoint_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
					 const void *data, tap_flags_t flags _U_)
{
	conv_hash_t *ch = tapdata;
	const struct roce_tap_info *ti = data;
	if (!ti || !ti->stream)
		return TAP_PACKET_DONT_REDRAW;
	/* the receiving QP is in the frame; the sending one only on UD (DETH) */
	add_endpoint_table_data(ch, &ti->dst, ti->dqpn, FALSE, 1, (int)ti->frame_len, &endpoint_info,
				ENDPOINT_IBQP);
	if (ti->srcqp)
		add_endpoint_table_data(ch, &ti->src, ti->srcqp, TRUE, 1, (int)ti->frame_len, &endpoint_info,
					ENDPOINT_IBQP);
	return TAP_PACKET_REDRAW;
}

/* ---- the flow graph ---- */

/* "SEND_FIRST QP 0x19 PSN 15754590", "ACK QP 0x19 PSN 15754593 MSN 1",
 * "NAK PSN_SEQ_ERR QP 0x19 PSN 15754620", "RNR NAK QP ...", "CNP QP 0x19" */
static gchar *flow_label(const struct roce_tap_info *ti)
{
	const struct roce_opcode_info *oi = roce_opcode_info(ti->opcode);
	const char *name = oi->name ? oi->name : "RESERVED";
	if (oi->transport == ROCE_TR_CNP)
		return g_strdup_printf("CNP QP 0x%x", ti->dqpn);
	if (ti->has_aeth && strcmp(name, "ACKNOWLEDGE") == 0) {
		switch (roce_aeth_kind(ti->syndrome)) {
		case ROCE_AETH_ACK:
			return g_strdup_printf("ACK QP 0x%x PSN %u MSN %u", ti->dqpn, ti->psn, ti->msn);
		case ROCE_AETH_RNR_NAK:
			return g_strdup_printf("RNR NAK QP 0x%x PSN %u", ti->dqpn, ti->psn);
		case ROCE_AETH_NAK: {
			const char *code = roce_nak_code_name(roce_aeth_value(ti->syndrome));
			return g_strdup_printf("NAK %s QP 0x%x PSN %u", code ? code : "RESERVED", ti->dqpn, ti->psn);
		}
		default:
			break;
		}
	}
	return g_strdup_printf("%s QP 0x%x PSN %u", name, ti->dqpn, ti->psn);
}

/* The frame's events, space-separated, after its pair: "pair 1: psn.retransmit retransmit.timeout". */
static gchar *flow_comment(const struct roce_tap_info *ti)
{
	GString *s = g_string_new(NULL);
	g_string_printf(s, "pair %u", ti->pair);
	const char *sep = ": ";
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
		if (roce_evset_has(&ti->events, (enum roce_event)e)) {
			g_string_append_printf(s, "%s%s", sep, roce_event_name((enum roce_event)e));
			sep = " ";
		}
	return g_string_free(s, FALSE);
}

static tap_packet_status flow_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
				     tap_flags_t flags _U_)
{
	seq_analysis_info_t *sainfo = tapdata;
	const struct roce_tap_info *ti = data;
	if (!ti)
		return TAP_PACKET_DONT_REDRAW;
	/* the library's allocation (its size, the time string); the addresses the RoCE packet's */
	seq_analysis_item_t *sai = sequence_analysis_create_sai_with_addresses(pinfo, sainfo);
	if (!sai)
		return TAP_PACKET_DONT_REDRAW;
	free_address(&sai->src_addr);
	free_address(&sai->dst_addr);
	copy_address(&sai->src_addr, &ti->src);
	copy_address(&sai->dst_addr, &ti->dst);
	sai->frame_number = pinfo->num;
	sai->frame_label = flow_label(ti);
	sai->comment = flow_comment(ti);
	sai->conv_num = (guint16)ti->pair;
	sai->line_style = 1;
	sai->display = TRUE;
	g_queue_push_tail(sainfo->items, sai);
	return TAP_PACKET_REDRAW;
}

void roce_views_register(int proto)
{
	register_conversation_table(proto, FALSE, conv_packet, endpoint_packet);
	register_seq_analysis("roce", "RoCE", proto, "roce", TL_REQUIRES_NOTHING, flow_packet);
}
