/* roce_stats.c: Statistics > RoCE Queue Pairs (tshark -q -z roce,qp): one row per stream (one
 * direction of a queue pair) with its stream id and its pair id (shared with the reverse direction;
 * the frames' roce.stream and roce.pair), and what rocedump --summary lists for it, read from the transport analyzer of the open file.
 *
 * A stat_tap_table_ui: the tap "roce" fires on every RoCE frame. On a frame the analyzer has just
 * taken (tshark's one pass) the rows of the streams that frame touched are brought up to date
 * (roce_analyzer_latest, O(1)); on a file already analyzed (the GUI's dialog, tshark -2) the
 * whole table is filled once (roce_analyzer_foreach, O(streams)). A stream keeps its row. */
#include <wireshark.h>

#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "roce_plugin.h"

enum col {
	C_PAIR, C_STREAM, C_SRC, C_DST, C_QP, C_PEER, C_TRANSPORT, C_PMTU, C_PACKETS, C_BYTES, C_REQUESTS, C_RESPONSES,
	C_MESSAGES, C_PSNS, C_GAPS, C_MISSING, C_RETRANSMITS, C_OOO, C_TIMEOUTS, C_NAK_SEQ, C_NAK_OTHER, C_RNR,
	C_RTT, C_COUNT,
};

static stat_tap_table_item fields[C_COUNT] = {
	[C_PAIR] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Pair", "%u"},
	[C_STREAM] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Stream", "%u"},
	[C_SRC] = {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Source", "%s"},
	[C_DST] = {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Destination", "%s"},
	[C_QP] = {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Destination QP", "%s"},
	[C_PEER] = {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Peer QP / paired by", "%s"},
	[C_TRANSPORT] = {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Transport", "%s"},
	[C_PMTU] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "PMTU", "%u"},
	[C_PACKETS] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Packets", "%u"},
	[C_BYTES] = {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Bytes", "%s"},
	[C_REQUESTS] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Requests", "%u"},
	[C_RESPONSES] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Responses", "%u"},
	[C_MESSAGES] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Messages", "%u"},
	[C_PSNS] = {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "PSN range", "%s"},
	[C_GAPS] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Gaps", "%u"},
	[C_MISSING] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Missing PSNs", "%u"},
	[C_RETRANSMITS] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Retransmits", "%u"},
	[C_OOO] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Out of order", "%u"},
	[C_TIMEOUTS] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Timeouts", "%u"},
	[C_NAK_SEQ] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "PSN sequence NAKs", "%u"},
	[C_NAK_OTHER] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Other NAKs", "%u"},
	[C_RNR] = {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "RNR NAKs", "%u"},
	[C_RTT] = {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Response time us min/p50/p99/max (n)", "%s"},
};

static const char table_name[] = "RoCE Queue Pairs";

/* The table filled last, for which analyzer, and the row of each stream id in it. */
static const stat_tap_table *built_table;
static unsigned built_generation;
static bool built_whole;
static GHashTable *row_of;

static void forget_rows(void)
{
	if (row_of)
		g_hash_table_remove_all(row_of);
	else
		row_of = g_hash_table_new(g_direct_hash, g_direct_equal);
}

static void stats_init(stat_tap_table_ui *ui)
{
	stat_tap_table *table = stat_tap_find_table(ui, table_name);
	if (table) {
		if (ui->stat_tap_reset_table_cb)
			ui->stat_tap_reset_table_cb(table);
		return;
	}
	table = stat_tap_init_table(table_name, C_COUNT, 0, NULL);
	stat_tap_add_table(ui, table);
}

static void free_strings(stat_tap_table *table, guint row)
{
	for (guint c = 0; c < table->num_fields; c++) {
		stat_tap_table_item_type *it = stat_tap_get_field_data(table, row, c);
		if (it->type == TABLE_ITEM_STRING) {
			g_free((char *)it->value.string_value);
			it->value.string_value = NULL;
		}
	}
}

static void stats_reset(stat_tap_table *table)
{
	for (guint row = 0; row < table->num_elements; row++)
		free_strings(table, row);
	for (guint row = 0; row < table->num_elements; row++)
		g_free(table->elements[row]);
	g_free(table->elements);
	table->elements = NULL;
	table->num_elements = 0;
	built_table = NULL;
	forget_rows();
}

static void stats_free_item(stat_tap_table *table _U_, guint row _U_, guint column _U_,
			    stat_tap_table_item_type *field_data)
{
	if (field_data->type == TABLE_ITEM_STRING) {
		g_free((char *)field_data->value.string_value);
		field_data->value.string_value = NULL;
	}
}

struct fill {
	stat_tap_table *table;
	guint row;       /* the next row of a whole rebuild, or G_MAXUINT: each stream's own row */
};

static guint clamp32(guint64 v)
{
	return v > G_MAXUINT ? G_MAXUINT : (guint)v;
}

static void fill_row(const struct roce_stream_stats *s, void *user)
{
	struct fill *fl = user;
	stat_tap_table_item_type it[C_COUNT];
	char src[ROCE_ADDRSTR_MAX], dst[ROCE_ADDRSTR_MAX];

	memset(it, 0, sizeof(it));
	for (int c = 0; c < C_COUNT; c++)
		it[c].type = fields[c].type;
	roce_fmt_ip(src, s->src, s->addr_len);
	roce_fmt_ip(dst, s->dst, s->addr_len);
	it[C_PAIR].value.uint_value = s->pair;
	it[C_STREAM].value.uint_value = s->stream;
	it[C_SRC].value.string_value = g_strdup(src);
	it[C_DST].value.string_value = g_strdup(dst);
	it[C_QP].value.string_value = g_strdup_printf("0x%06x", s->dqpn);
	it[C_PEER].value.string_value = s->paired ? g_strdup_printf("0x%06x/%s", s->peer_qpn,
			s->paired == ROCE_PAIRED_CM ? "cm" : "psn") : g_strdup("-");
	it[C_TRANSPORT].value.string_value = g_strdup(s->requests ?
			roce_transport_name((enum roce_transport)s->transport) : "-");
	it[C_PMTU].value.uint_value = s->pmtu;
	it[C_PACKETS].value.uint_value = clamp32(s->packets);
	it[C_BYTES].value.string_value = g_strdup_printf("%" G_GUINT64_FORMAT, s->bytes);
	it[C_REQUESTS].value.uint_value = clamp32(s->requests);
	it[C_RESPONSES].value.uint_value = clamp32(s->responses);
	it[C_MESSAGES].value.uint_value = clamp32(s->messages);
	it[C_PSNS].value.string_value = s->has_psn ? g_strdup_printf("%u-%u", s->first_psn, s->last_psn) : g_strdup("-");
	it[C_GAPS].value.uint_value = clamp32(s->gaps);
	it[C_MISSING].value.uint_value = clamp32(s->missing_psns);
	it[C_RETRANSMITS].value.uint_value = clamp32(s->retransmits);
	it[C_OOO].value.uint_value = clamp32(s->out_of_order);
	it[C_TIMEOUTS].value.uint_value = clamp32(s->timeouts);
	it[C_NAK_SEQ].value.uint_value = clamp32(s->naks[0]);
	it[C_NAK_OTHER].value.uint_value = clamp32(s->naks[1] + s->naks[2] + s->naks[3] + s->naks[4]);
	it[C_RNR].value.uint_value = clamp32(s->rnr_naks);
	it[C_RTT].value.string_value = s->response_count ?
		g_strdup_printf("%u/%u/%u/%u (%" G_GUINT64_FORMAT ")", s->response_min_us, s->response_p50_us, s->response_p99_us,
				s->response_max_us, s->response_count) : g_strdup("-");
	guint row = fl->row;
	gpointer at;
	if (row == G_MAXUINT)  /* a stream keeps the row it got first */
		row = g_hash_table_lookup_extended(row_of, GUINT_TO_POINTER(s->stream), NULL, &at) ?
			GPOINTER_TO_UINT(at) : fl->table->num_elements;
	else
		fl->row++;
	g_hash_table_insert(row_of, GUINT_TO_POINTER(s->stream), GUINT_TO_POINTER(row));
	if (row < fl->table->num_elements)
		free_strings(fl->table, row);
	stat_tap_init_table_row(fl->table, row, C_COUNT, it);
}

static tap_packet_status stats_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
				      const void *data _U_, tap_flags_t flags _U_)
{
	stat_data_t *sd = tapdata;
	stat_tap_table *table = g_array_index(sd->stat_tap_data->tables, stat_tap_table *, 0);
	const struct roce_analyzer *a = roce_plugin_analyzer();
	/* the analyzer went past this frame: the file is analyzed (taps see frames marked visited
	 * even on tshark's one pass, so that flag does not tell) */
	bool analyzed = pinfo->num < roce_plugin_last_analyzed();

	if (!a)
		return TAP_PACKET_DONT_REDRAW;
	if (built_table != table || built_generation != roce_plugin_generation()) {
		forget_rows();
		built_whole = false;
	}
	built_table = table;
	built_generation = roce_plugin_generation();
	if (analyzed) {  /* every stream once, in the analyzer's order */
		if (built_whole)
			return TAP_PACKET_DONT_REDRAW;
		struct fill fl = {table, 0};
		forget_rows();
		roce_analyzer_foreach(a, fill_row, &fl);
		built_whole = true;
	} else {  /* the frame just analyzed: its stream's row and its peer's */
		struct fill fl = {table, G_MAXUINT};
		roce_analyzer_latest(a, fill_row, &fl);
	}
	return TAP_PACKET_REDRAW;
}

void roce_stats_register(void)
{
	static tap_param params[] = {{PARAM_FILTER, "filter", "Filter", NULL, TRUE}};
	static stat_tap_table_ui ui = {
		REGISTER_PACKET_STAT_GROUP_UNSORTED, "RoCE Queue Pairs", "roce", "roce,qp", stats_init, stats_packet,
		stats_reset, stats_free_item, NULL, C_COUNT, fields, G_N_ELEMENTS(params), params, NULL, 0,
	};
	register_stat_tap_table_ui(&ui);
}
