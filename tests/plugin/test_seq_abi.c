/* test_seq_abi.c: the flow graph's declarations of Wireshark 4.0's sequence-analysis structures
 * (plugin/seq_analysis_4_0.h, written by hand: Debian's libwireshark-dev 4.0 installs no
 * epan/sequence_analysis.h) held to the installed libwireshark. TAP output.
 *   1. the layout: 4.0's on LP64 (from its header: gboolean flags, info_type/info_ptr at the end
 *      of an item, no occurrence[] in the info), as offsets and sizes;
 *   2. the library agrees: sequence_analysis_info_new() puts its GQueue and GHashTable where
 *      the declarations say, sequence_analysis_get_nodes() reads an item's display flag and
 *      addresses and writes its node numbers and the info's nodes where they say, and
 *      sequence_analysis_info_free() frees an item's strings (a wrong offset frees garbage). */
#include <stddef.h>
#include <stdio.h>

#include <wireshark.h>

#include "seq_analysis_4_0.h"

static int n_test, failed;

static void ok(int cond, const char *what)
{
	n_test++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n_test, what);
	failed |= !cond;
}

#define AT(type, field, off) ok(offsetof(type, field) == (off), #type "." #field " at " #off)

static void layout(void)
{
	/* the sizes libwireshark 4.0 allocates (g_malloc0 in sequence_analysis_info_new and
	 * sequence_analysis_create_sai_with_addresses) */
	ok(sizeof(seq_analysis_item_t) == 144, "sizeof(seq_analysis_item_t) == 144");
	ok(sizeof(seq_analysis_info_t) == 1000, "sizeof(seq_analysis_info_t) == 1000");
	AT(seq_analysis_item_t, frame_number, 0);
	AT(seq_analysis_item_t, src_addr, 8);
	AT(seq_analysis_item_t, port_src, 32);
	AT(seq_analysis_item_t, dst_addr, 40);
	AT(seq_analysis_item_t, port_dst, 64);
	AT(seq_analysis_item_t, frame_label, 72);
	AT(seq_analysis_item_t, time_str, 80);
	AT(seq_analysis_item_t, comment, 88);
	AT(seq_analysis_item_t, conv_num, 96);
	AT(seq_analysis_item_t, display, 112);
	AT(seq_analysis_item_t, src_node, 116);
	AT(seq_analysis_item_t, dst_node, 120);
	AT(seq_analysis_item_t, line_style, 124);
	AT(seq_analysis_item_t, info_ptr, 136);
	AT(seq_analysis_info_t, items, 16);
	AT(seq_analysis_info_t, ht, 24);
	AT(seq_analysis_info_t, nodes, 32);
	AT(seq_analysis_info_t, num_nodes, 992);
}

static void library(void)
{
	static const guint8 a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
	seq_analysis_info_t *sa = sequence_analysis_info_new();

	ok(sa->items && g_queue_get_length(sa->items) == 0 && sa->ht && g_hash_table_size(sa->ht) == 0,
	   "sequence_analysis_info_new: items and ht where declared");
	seq_analysis_item_t *hidden = g_new0(seq_analysis_item_t, 1);
	seq_analysis_item_t *it = g_new0(seq_analysis_item_t, 1);
	copy_address(&hidden->src_addr, &(address){AT_IPv4, 4, b, NULL});  /* not displayed: no node */
	copy_address(&hidden->dst_addr, &(address){AT_IPv4, 4, b, NULL});
	copy_address(&it->src_addr, &(address){AT_IPv4, 4, a, NULL});
	copy_address(&it->dst_addr, &(address){AT_IPv4, 4, b, NULL});
	it->display = TRUE;
	it->frame_label = g_strdup("label");
	it->time_str = g_strdup("0.0");
	it->comment = g_strdup("comment");
	g_queue_push_tail(sa->items, hidden);
	g_queue_push_tail(sa->items, it);
	int n = sequence_analysis_get_nodes(sa);
	ok(n == 1, "sequence_analysis_get_nodes: one displayed item (display where declared)");
	ok(sa->num_nodes == 2, "num_nodes where declared");
	ok(sa->nodes[0].len == 4 && memcmp(sa->nodes[0].data, a, 4) == 0 && sa->nodes[1].len == 4 &&
	   memcmp(sa->nodes[1].data, b, 4) == 0, "nodes[] where declared, from the item's src_addr and dst_addr");
	ok(it->src_node == 0 && it->dst_node == 1, "the item's src_node and dst_node where declared");
	sequence_analysis_info_free(sa);  /* frees the items, their strings and addresses */
	ok(1, "sequence_analysis_info_free frees the items");
}

int main(void)
{
	printf("1..26\n");
	layout();
	library();
	return failed;
}
