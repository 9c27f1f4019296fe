/* seq_analysis_4_0.h: the part of Wireshark 4.0's epan/sequence_analysis.h the flow graph uses.
 * libwireshark 4.0 exports register_seq_analysis() and the helpers below, but Debian's
 * libwireshark-dev 4.0 does not install the header. These declarations are 4.0's (the build
 * insists on wireshark >= 4.0, < 4.1); the layout of the two structures is held to the installed
 * library by tests/plugin/test_seq_abi.c (the sizes the library allocates, the fields its
 * functions read and write). 4.2 changes them (bool fields, occurrence[]): a port includes the
 * header 4.2 installs instead. */
#ifndef ROCE_SEQ_ANALYSIS_4_0_H
#define ROCE_SEQ_ANALYSIS_4_0_H

#include <epan/address.h>
#include <epan/packet_info.h>
#include <epan/tap.h>

#define ROCE_SEQ_MAX_NUM_NODES 40  /* 4.0's MAX_NUM_NODES: the nodes a flow graph draws */

typedef enum {
	GA_INFO_TYPE_NONE = 0,
	GA_INFO_TYPE_RTP
} ga_info_type;

/* one arrow of the graph */
typedef struct roce_seq_analysis_item {
	guint32 frame_number;
	address src_addr;
	guint16 port_src;
	address dst_addr;
	guint16 port_dst;
	gchar *frame_label;     /* on the arrow */
	gchar *time_str;
	gchar *comment;         /* right of the graph */
	guint16 conv_num;       /* colours the conversations */
	unsigned fg_color;
	unsigned bg_color;
	gboolean has_color_filter;
	gboolean display;
	guint src_node;
	guint dst_node;
	guint16 line_style;
	ga_info_type info_type;
	void *info_ptr;
} seq_analysis_item_t;

typedef struct roce_seq_analysis_info {
	const char *name;
	gboolean any_addr;
	int nconv;
	GQueue *items;          /* of seq_analysis_item_t, the taps push theirs */
	GHashTable *ht;
	address nodes[ROCE_SEQ_MAX_NUM_NODES];
	guint32 num_nodes;
} seq_analysis_info_t;

WS_DLL_PUBLIC void register_seq_analysis(const char *name, const char *ui_name, const int proto_id,
					 const char *tap_listener, guint tap_flags, tap_packet_cb tap_func);
WS_DLL_PUBLIC seq_analysis_item_t *sequence_analysis_create_sai_with_addresses(packet_info *pinfo,
									       seq_analysis_info_t *sainfo);
WS_DLL_PUBLIC seq_analysis_info_t *sequence_analysis_info_new(void);
WS_DLL_PUBLIC void sequence_analysis_info_free(seq_analysis_info_t *sainfo);
WS_DLL_PUBLIC int sequence_analysis_get_nodes(seq_analysis_info_t *sainfo);

#endif
