/* packet_roce.c: "RoCE Analysis", a Wireshark post-dissector (filter prefix roce) over the
 * rocedump core: every frame's bytes go to roce_decode(); a RoCE frame gets a tree of the field
 * table's fields (include/roce/fields.def, the names rocedump's JSON and -Y use) at the offsets
 * the core reports; as TCP's tree ends with its SEQ/ACK analysis, an analysis subtree with the
 * cross-frame facts and, last, the umbrella roce.analysis.flags holding a subtree per finding
 * (its details as fields) with an expert info per event of the event table (events.def), its
 * summary the event's constant title; and tags in the Info column. Wireshark's own infiniband
 * tree and everything hanging off it stay as they are.
 *
 * The transport analysis runs once, on the first pass, in file order; what it adds to a frame
 * (its events and their details) is kept with the frame (p_add_proto_data, file scope), so that
 * clicking frames in any order, refiltering and tshark -2 show the same. A new file, or
 * preferences applied, start a new analyzer. */
#include <wireshark.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>
#include <epan/tfs.h>
#include <epan/to_str.h>
#include <wiretap/wtap.h>

#include "roce_plugin.h"

/* What runs only on some frames (a shown tree, findings, a tap listener, a frame's second visit,
 * an array to grow) is kept out of line and placed apart from the per-frame path, so that the
 * few instruction cache lines every frame runs through stay dense: Wireshark's own dissection
 * evicts them between two frames. */
#define COLD __attribute__((cold, noinline))

static int hf_field[ROCE_F_COUNT];
static int hf_analysis = -1, hf_analysis_flags = -1, hf_event = -1;
static int hf_finding_expected = -1, hf_finding_seen = -1, hf_finding_delta = -1;
static int hf_stream = -1, hf_pair = -1, hf_response_time = -1, hf_original_frame = -1, hf_ref_frame = -1;
static int hf_ce_frame = -1, hf_ce_to_cnp = -1;
static int hf_qpn = -1, hf_acked_before = -1, hf_resends_seen = -1, hf_resends_inferred = -1;
static int hf_priority = -1, hf_quanta = -1, hf_expired = -1, hf_paused_by = -1;
static int hf_path_from = -1, hf_path_to = -1;
static gint ett_group = -1, ett_analysis = -1, ett_flags = -1, ett_finding = -1;
static expert_field ei_event[ROCE_EV_COUNT];

/* preferences */
static range_t *pref_ports;
static gboolean pref_analysis = TRUE;
static gboolean pref_icrc = TRUE;
static gint pref_pmtu = 0;
static guint pref_max_streams = ROCE_MAX_STREAMS_DEFAULT;
/* the congestion analysis' (rocedump's --link-speed, --pfc-storm-ms, --dscp-prio, --cnp-interval-us,
 * --cnp-timeout-us), read into congestion_cfg when applied; the defaults are the core's, in
 * rocedump's units */
static const char *pref_link_speed = ROCE_LINK_SPEED_DEFAULT;
static guint pref_pfc_storm_ms = ROCE_PFC_STORM_NS_DEFAULT / 1000000;
static const char *pref_dscp_prio = "";
static guint pref_cnp_interval_us = ROCE_CNP_INTERVAL_NS_DEFAULT / 1000;
static guint pref_cnp_timeout_us = ROCE_CNP_TIMEOUT_NS_DEFAULT / 1000;
static struct roce_congestion_config congestion_cfg;
static struct roce_analyzer_config analyzer_cfg;  /* with congestion_cfg, when applied */

static unsigned generation;

/* What the analysis found on a frame, kept from the first pass. Every frame it took: the stream
 * and pair ids and the response time, 16 bytes by frame number in one array of the file's, grown
 * by doubling (a million frames take 16 MB, where p_add_proto_data would take about 100 bytes a
 * frame; a plain array, because wmem_array_append costs five times the store). The few with
 * findings: the events added and the details (n of them), with the frame (p_add_proto_data). */
struct frame_ids {
	uint32_t stream, pair;
	int64_t response_ns;
};

/* What every frame reads, side by side (a cache line or two) rather than spread over the data and
 * bss sections: Wireshark's own dissection evicts them between two frames. */
static struct {
	struct roce_analyzer *analyzer;
	struct frame_ids *frame_ids;        /* by frame number - 1 */
	size_t n_frame_ids, cap_frame_ids;
	guint32 last_analyzed;
	int proto_roce, roce_tap;
	gint ett_roce;
	struct roce_decoder_config decoder_cfg;
} hot __attribute__((aligned(64))) = {.proto_roce = -1, .roce_tap = -1, .ett_roce = -1};

const struct roce_analyzer *roce_plugin_analyzer(void) { return hot.analyzer; }
unsigned roce_plugin_generation(void) { return generation; }
guint32 roce_plugin_last_analyzed(void) { return hot.last_analyzed; }

static void frame_ids_free(void)
{
	g_free(hot.frame_ids);
	hot.frame_ids = NULL;
	hot.n_frame_ids = hot.cap_frame_ids = 0;
}

/* Room in frame_ids for index i. */
static COLD void frame_ids_grow(size_t i)
{
	size_t cap = MAX(hot.cap_frame_ids, 1024);
	while (cap <= i)
		cap *= 2;
	hot.frame_ids = g_realloc_n(hot.frame_ids, cap, sizeof(*hot.frame_ids));
	hot.cap_frame_ids = cap;
}

/* Frame num's ids, the frames before it that the analysis did not take filled in with none. The
 * first pass goes in file order: a frame already stored is left as it is. */
static void frame_ids_put(guint32 num, const struct frame_ids *ids)
{
	static const struct frame_ids none = {0, 0, -1};
	size_t i = (size_t)num - 1;
	if (num == 0 || i < hot.n_frame_ids)
		return;
	if (i >= hot.cap_frame_ids)
		frame_ids_grow(i);
	while (hot.n_frame_ids < i)
		hot.frame_ids[hot.n_frame_ids++] = none;
	hot.frame_ids[hot.n_frame_ids++] = *ids;
}

/* A frame's findings: where the core's struct roce_findings holds them (findings_of), or the copy
 * kept with the frame. */
struct finding_list {
	const struct roce_finding *f;
	unsigned n;
};

/* The findings fi holds: the one place that reads how the core stores them. */
static struct finding_list findings_of(const struct roce_findings *fi)
{
	struct finding_list fl = {fi->f, fi->n};
	return fl;
}

struct frame_result {
	struct roce_evset added;
	struct roce_pkt_path path;  /* the frame's sighting, for the path fields (path.*) */
	uint64_t cnp_ce_frame;  /* a CNP: the CE frame it answers, and the time since (roce_findings) */
	int64_t cnp_ce_ns;
	unsigned n;
	struct roce_finding f[];
};

/* ---- the file's analyzer ---- */

static void roce_init(void)
{
	char err[ROCE_ERRBUF_SIZE];

	generation++;
	hot.last_analyzed = 0;
	frame_ids_free();
	hot.analyzer = pref_analysis ? roce_analyzer_new(&analyzer_cfg, err) : NULL;
	if (pref_analysis && !hot.analyzer)
		ws_warning("RoCE analysis off: %s", err);
}

static void roce_cleanup(void)
{
	roce_analyzer_free(hot.analyzer);
	hot.analyzer = NULL;
	frame_ids_free();
}

/* A preference rocedump's option takes from 1 up: 0 leaves the default, with a warning. */
static guint pref_not_zero(guint v, const char *name, guint dflt)
{
	if (v)
		return v;
	ws_warning("RoCE: %s 0 is not one (1 or more): %u", name, dflt);
	return dflt;
}

static void roce_prefs_apply(void)
{
	memset(&hot.decoder_cfg, 0, sizeof(hot.decoder_cfg));
	hot.decoder_cfg.flags = pref_icrc ? 0 : ROCE_DECODE_NO_ICRC;
	for (guint i = 0; pref_ports && i < pref_ports->nranges; i++)
		for (guint32 port = pref_ports->ranges[i].low;
		     port <= pref_ports->ranges[i].high && hot.decoder_cfg.n_extra_ports < ROCE_MAX_EXTRA_PORTS; port++)
			if (port && port != ROCE_UDP_PORT)
				hot.decoder_cfg.extra_ports[hot.decoder_cfg.n_extra_ports++] = (uint16_t)port;

	/* the congestion settings, as rocedump's options take them; a value rocedump would refuse
	 * leaves the default, with a warning (a preference cannot be refused) */
	roce_congestion_config_init(&congestion_cfg);
	if (pref_link_speed && pref_link_speed[0] && !roce_parse_link_speed(pref_link_speed, &congestion_cfg.link_bps))
		ws_warning("RoCE: link speed '%s' is not one (e.g. 25G, 100G, 400G): %s", pref_link_speed,
			   ROCE_LINK_SPEED_DEFAULT);
	if (pref_dscp_prio && pref_dscp_prio[0] && !roce_parse_dscp_map(pref_dscp_prio, &congestion_cfg))
		ws_warning("RoCE: DSCP to priority map '%s' is not one (DSCP=PRIORITY,...: 0-63=0-7): DSCP >> 3",
			   pref_dscp_prio);
	congestion_cfg.pfc_storm_ns = (int64_t)pref_not_zero(pref_pfc_storm_ms, "PFC storm (ms)",
							     ROCE_PFC_STORM_NS_DEFAULT / 1000000) * 1000000;
	congestion_cfg.cnp_interval_ns = (int64_t)pref_cnp_interval_us * 1000;  /* 0: no rate limit */
	congestion_cfg.cnp_timeout_ns = (int64_t)pref_not_zero(pref_cnp_timeout_us, "CNP timeout (us)",
							       ROCE_CNP_TIMEOUT_NS_DEFAULT / 1000) * 1000;

	roce_analyzer_config_init(&analyzer_cfg);
	analyzer_cfg.max_streams = pref_not_zero(pref_max_streams, "Streams tracked at once", ROCE_MAX_STREAMS_DEFAULT);
	analyzer_cfg.pmtu = (uint32_t)pref_pmtu;
	analyzer_cfg.congestion = &congestion_cfg;
}

/* Wireshark's encapsulation as the core's link type (4.0 does not export
 * wtap_wtap_encap_to_pcap_encap), or -1 for one the core does not decode. */
static int link_of(int encap)
{
	switch (encap) {
	case WTAP_ENCAP_ETHERNET: return ROCE_LINK_ETHERNET;
	case WTAP_ENCAP_RAW_IP: return ROCE_LINK_RAW;
	case WTAP_ENCAP_RAW_IP4: return ROCE_LINK_IPV4;
	case WTAP_ENCAP_RAW_IP6: return ROCE_LINK_IPV6;
	case WTAP_ENCAP_SLL: return ROCE_LINK_SLL;
	case WTAP_ENCAP_SLL2: return ROCE_LINK_SLL2;
	default: return -1;
	}
}

static int64_t ts_ns_of(const packet_info *pinfo)
{
	const int64_t lim = INT64_MAX / 1000000000 - 1;
	int64_t s = (int64_t)pinfo->abs_ts.secs;
	if (s > lim)
		return INT64_MAX;
	if (s < -lim)
		return INT64_MIN;
	return s * 1000000000 + pinfo->abs_ts.nsecs;
}

/* What the first pass found on a frame, read back (analyze()). */
static COLD void analyzed_before(packet_info *pinfo, struct roce_pkt *p, struct roce_findings *fi,
				 struct finding_list *fl)
{
	if (pinfo->num && (size_t)pinfo->num - 1 < hot.n_frame_ids) {
		const struct frame_ids *ids = &hot.frame_ids[pinfo->num - 1];
		fi->stream = ids->stream;
		fi->pair = ids->pair;
		fi->response_ns = ids->response_ns;
	}
	const struct frame_result *r = p_get_proto_data(wmem_file_scope(), pinfo, hot.proto_roce, 0);
	if (!r)
		return;
	for (unsigned w = 0; w < ROCE_EVSET_WORDS; w++)
		p->events.w[w] |= r->added.w[w];
	fl->f = r->f;
	fl->n = r->n;
	fi->cnp_ce_frame = r->cnp_ce_frame;
	fi->cnp_ce_ns = r->cnp_ce_ns;
	p->path = r->path;
}

/* What the analysis added to a frame (its events added, findings, CNP link, sighting), kept with
 * it for the next visits. */
static COLD void keep_result(packet_info *pinfo, const struct roce_pkt *p, const struct roce_evset *added,
			     const struct roce_findings *fi, const struct finding_list *fl)
{
	struct frame_result *r = wmem_alloc(wmem_file_scope(), sizeof(*r) + fl->n * sizeof(r->f[0]));
	r->added = *added;
	r->path = p->path;
	r->n = fl->n;
	if (fl->n)
		memcpy(r->f, fl->f, fl->n * sizeof(r->f[0]));
	r->cnp_ce_frame = fi->cnp_ce_frame;
	r->cnp_ce_ns = fi->cnp_ce_ns;
	p_add_proto_data(wmem_file_scope(), pinfo, hot.proto_roce, 0, r);
}

/* The analysis of the frame into fi (its ids, response time, CNP link) and fl (its findings): run
 * on the first pass (and what it found kept with the frame), read back after. Adds its events to
 * p->events. False when the analysis is off. */
static bool analyze(packet_info *pinfo, struct roce_pkt *p, const guint8 *bytes, struct roce_findings *fi,
		    struct finding_list *fl)
{
	memset(fi, 0, sizeof(*fi));
	fl->f = NULL;
	fl->n = 0;
	fi->response_ns = -1;
	fi->cnp_ce_ns = -1;
	if (!hot.analyzer)
		return false;
	if (PINFO_FD_VISITED(pinfo)) {
		analyzed_before(pinfo, p, fi, fl);
		return true;
	}
	struct roce_evset before = p->events;
	roce_analyze(hot.analyzer, p, pinfo->num, bytes, ts_ns_of(pinfo), fi);
	hot.last_analyzed = pinfo->num;
	if (fi->stream || fi->response_ns >= 0) {
		struct frame_ids ids = {fi->stream, fi->pair, fi->response_ns};
		frame_ids_put(pinfo->num, &ids);
	}
	struct roce_evset added;
	*fl = findings_of(fi);
	bool any = fl->n != 0 || fi->cnp_ce_frame != 0 || p->path.sightings != 0;
	for (unsigned w = 0; w < ROCE_EVSET_WORDS; w++) {
		added.w[w] = p->events.w[w] & ~before.w[w];
		any |= added.w[w] != 0;
	}
	if (any)
		keep_result(pinfo, p, &added, fi, fl);
	return true;
}

static nstime_t ns_time(int64_t ns)
{
	nstime_t t = {.secs = (time_t)(ns / 1000000000), .nsecs = (int)(ns % 1000000000)};
	return t;
}

/* ---- the tree ---- */

/* Where add_fields() is: the group (parent path and array element) of the last field, and its
 * subtree. */
struct group {
	const char *path;
	size_t plen;
	unsigned idx;
	proto_tree *tree;
};

/* The subtree a field goes in: the fields under "roce." directly in the protocol's tree, the
 * others grouped by their parent path ("roce.reth" -> "RETH", "vlan" element 0 -> "VLAN tag 1"). */
static proto_tree *group_tree(proto_tree *root, tvbuff_t *tvb, const char *path, unsigned idx, struct group *g)
{
	const char *dot = strrchr(path, '.');
	size_t plen = dot ? (size_t)(dot - path) : 0;
	if (g->path && plen == g->plen && idx == g->idx && strncmp(path, g->path, plen) == 0)
		return g->tree;
	g->path = path;
	g->plen = plen;
	g->idx = idx;
	if (plen == 4 && strncmp(path, "roce", 4) == 0)
		return g->tree = root;
	const char *name = path;
	for (const char *c = path; c < path + plen; c++)
		if (*c == '.')
			name = c + 1;
	char label[40];
	size_t n = MIN((size_t)(path + plen - name), sizeof(label) - 1);
	for (size_t i = 0; i < n; i++)
		label[i] = g_ascii_toupper(name[i]);
	label[n] = '\0';
	if (strcmp(label, "WRAPPER") == 0)
		g_strlcpy(label, "Mirror/overlay wrapper", sizeof(label));
	if (strcmp(label, "MAC_CONTROL") == 0)
		g_strlcpy(label, "MAC control", sizeof(label));
	if (strcmp(label, "VLAN") == 0)
		g->tree = proto_tree_add_subtree_format(root, tvb, 0, 0, ett_group, NULL, "VLAN tag %u", idx + 1);
	else
		g->tree = proto_tree_add_subtree(root, tvb, 0, 0, ett_group, NULL, label);
	return g->tree;
}

/* The BTH's one-bit flags, shown as booleans (Set/Not set) over their bit of the byte; the JSON
 * and rocedump -Y keep them 0/1. */
static guint64 flag_bit(enum roce_field f)
{
	switch (f) {
	case ROCE_F_SE: return 0x80;
	case ROCE_F_M: return 0x40;
	case ROCE_F_FECN: return 0x80;
	case ROCE_F_BECN: return 0x40;
	case ROCE_F_ACKREQ: return 0x80;
	default: return 0;
	}
}

static void add_field(proto_tree *t, tvbuff_t *tvb, const struct roce_pkt *p, enum roce_field f, unsigned idx,
		      const struct roce_field_val *v)
{
	uint32_t off = 0, len = 0;
	bool bytes_known = roce_field_span(f, p, idx, &off, &len);
	/* Wireshark's offsets and lengths are gint: a span past them is shown without its bytes */
	gint start = 0, length = 0;
	if (off <= G_MAXINT && len <= (uint32_t)G_MAXINT - off) {
		start = (gint)off;
		length = (gint)len;
	} else {
		bytes_known = false;
	}
	proto_item *it;

	switch (flag_bit(f) ? ROCE_FT_NONE : roce_field_info(f)->ft) {
	case ROCE_FT_NONE:  /* a BTH flag (flag_bit): no field of the table's type NONE gets here */
		it = proto_tree_add_boolean(t, hf_field[f], tvb, start, length, v->u ? (guint32)flag_bit(f) : 0);
		break;
	case ROCE_FT_STRING:
		it = proto_tree_add_string(t, hf_field[f], tvb, start, length, v->s);
		break;
	case ROCE_FT_UINT64:
		it = proto_tree_add_uint64(t, hf_field[f], tvb, start, length, v->u);
		break;
	case ROCE_FT_CSUM_STATUS:  /* Wireshark's convention, as tcp.checksum.status */
		it = proto_tree_add_uint(t, hf_field[f], tvb, start, length,
					 p->icrc_status == ROCE_ICRC_GOOD ? PROTO_CHECKSUM_E_GOOD :
					 p->icrc_status == ROCE_ICRC_BAD ? PROTO_CHECKSUM_E_BAD :
					 PROTO_CHECKSUM_E_UNVERIFIED);
		break;
	default:
		it = proto_tree_add_uint(t, hf_field[f], tvb, start, length, (guint32)v->u);
		break;
	}
	if (!bytes_known)
		proto_item_set_generated(it);
}

/* Every field of the table the frame has and the plugin registers, in the table's order; the
 * elements of an array of objects (the VLAN tags) one after the other, each in its subtree; an
 * array of numbers (pfc.quanta) as one item per element. */
static void add_fields(proto_tree *root, tvbuff_t *tvb, const struct roce_pkt *p, const guint8 *bytes, guint32 num)
{
	struct roce_field_src src = {.data = bytes, .p = p, .frame_no = num};
	struct roce_field_val v;
	struct group g = {0};

	for (unsigned f = 0; f < ROCE_F_COUNT; f++) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)f);
		if (fi->kind == ROCE_FK_RU) {
			unsigned end = f;
			while (end < ROCE_F_COUNT && roce_field_info((enum roce_field)end)->kind == ROCE_FK_RU)
				end++;
			for (unsigned idx = 0; roce_field_get((enum roce_field)f, &src, idx, &v); idx++)
				for (unsigned k = f; k < end; k++)
					if (roce_field_info((enum roce_field)k)->ft != ROCE_FT_NONE &&
					    roce_field_get((enum roce_field)k, &src, idx, &v))
						add_field(group_tree(root, tvb, roce_field_info((enum roce_field)k)->path,
								     idx, &g),
							  tvb, p, (enum roce_field)k, idx, &v);
			f = end - 1;
			continue;
		}
		if (fi->ft != ROCE_FT_NONE && (fi->kind == ROCE_FK_AU || fi->kind == ROCE_FK_AS)) {
			for (unsigned idx = 0; roce_field_get((enum roce_field)f, &src, idx, &v); idx++)
				add_field(group_tree(root, tvb, fi->path, 0, &g), tvb, p, (enum roce_field)f, idx, &v);
			continue;
		}
		if (fi->ft != ROCE_FT_NONE && roce_field_get((enum roce_field)f, &src, 0, &v))
			add_field(group_tree(root, tvb, fi->path, 0, &g), tvb, p,
				  (enum roce_field)f, 0, &v);
	}
}

/* A short tag in the Info column for the events a user looks for first. */
static const char *info_tag(enum roce_event e)
{
	switch (e) {
	case ROCE_EV_ICRC_BAD: return " [ICRC BAD]";
	case ROCE_EV_PSN_RETRANSMIT: return " [RoCE Retransmission]";
	case ROCE_EV_RETRANSMIT_TIMEOUT: return " [RoCE Timeout]";
	case ROCE_EV_PSN_GAP: return " [RoCE PSN Gap]";
	case ROCE_EV_PSN_OUT_OF_ORDER: return " [RoCE Out-Of-Order]";
	case ROCE_EV_NAK_PSN_SEQ_ERR: return " [RoCE NAK PSN Sequence Error]";
	case ROCE_EV_NAK_RNR: return " [RoCE RNR NAK]";
	case ROCE_EV_ECN_CE: return " [ECN CE]";
	default: return NULL;
	}
}

/* The stream and pair ids: in the protocol's tree, as tcp.stream. */
static void add_ids(proto_tree *root, tvbuff_t *tvb, const struct roce_findings *fi)
{
	if (fi->stream) {
		proto_item_set_generated(proto_tree_add_uint(root, hf_stream, tvb, 0, 0, fi->stream));
		proto_item_set_generated(proto_tree_add_uint(root, hf_pair, tvb, 0, 0, fi->pair));
	}
}

/* A relative time with its label saying since what: "Time since the NAK: 0.000012000 seconds". */
static void add_time(proto_tree *t, int hf, tvbuff_t *tvb, packet_info *pinfo, const char *label, int64_t ns)
{
	nstime_t d = ns_time(ns);
	proto_item_set_generated(proto_tree_add_time_format(t, hf, tvb, 0, 0, &d, "%s: %s seconds", label,
							    rel_time_to_secs_str(pinfo->pool, &d)));
}

/* The response time and a CNP's CE frame: cross-frame facts on the later frame. */
static void add_facts(proto_tree *at, tvbuff_t *tvb, packet_info *pinfo, const struct roce_findings *fi)
{
	if (fi->response_ns >= 0)
		add_time(at, hf_response_time, tvb, pinfo, "Time since the request", fi->response_ns);
	if (fi->cnp_ce_frame && fi->cnp_ce_frame <= G_MAXUINT32) {
		proto_item_set_generated(proto_tree_add_uint(at, hf_ce_frame, tvb, 0, 0, (guint32)fi->cnp_ce_frame));
		add_time(at, hf_ce_to_cnp, tvb, pinfo, "Time since the CE-marked frame", fi->cnp_ce_ns);
	}
}

/* What a finding's frame reference and time are of, by event: the labels of roce.analysis.ref_frame
 * and roce.analysis.delta. */
struct finding_refs {
	const char *frame;  /* "Frame of the NAK" */
	const char *since;  /* "Time since the NAK" */
};

static struct finding_refs refs_of(enum roce_event e)
{
	switch (e) {
	case ROCE_EV_RETRANSMIT_TIMEOUT:
	case ROCE_EV_PSN_RETRANSMIT: return (struct finding_refs){"Original frame", "Time since the first sending"};
	case ROCE_EV_NAK_RESTART_WRONG: return (struct finding_refs){"Frame of the NAK", "Time since the NAK"};
	case ROCE_EV_RNR_RETRY_EARLY: return (struct finding_refs){"Frame of the RNR NAK", "Time since the RNR NAK"};
	case ROCE_EV_FRAME_COPY:
		return (struct finding_refs){"First seen in frame", "Time since the first sighting"};
	case ROCE_EV_RETRANSMIT_SPURIOUS: return (struct finding_refs){"Frame of the resend", "Time since the resend"};
	case ROCE_EV_CNP_MISSING:
	case ROCE_EV_CNP_UNEXPECTED:
		return (struct finding_refs){"CE-marked frame", "Time since the CE-marked frame"};
	case ROCE_EV_PFC_RESUME:
	case ROCE_EV_PFC_STORM:
	case ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED:
		return (struct finding_refs){"Refers to frame", "Time since the pause began"};
	default: return (struct finding_refs){"Refers to frame", "Time since the frame referred to"};
	}
}

/* A congestion finding's priority (a legacy PAUSE: all of them), pause time, timer and pauser. */
static void add_congestion(proto_tree *t, tvbuff_t *tvb, const struct roce_finding *x)
{
	enum roce_event e = (enum roce_event)x->event;
	if (e == ROCE_EV_CNP_MISSING || e == ROCE_EV_CNP_UNEXPECTED) {
		proto_item_set_generated(proto_tree_add_uint(t, hf_qpn, tvb, 0, 0, x->qpn));
		return;
	}
	if (x->priority < 0)
		proto_item_set_generated(proto_tree_add_int_format_value(t, hf_priority, tvb, 0, 0, -1,
									 "all (legacy PAUSE)"));
	else
		proto_item_set_generated(proto_tree_add_int(t, hf_priority, tvb, 0, 0, x->priority));
	if (e == ROCE_EV_PFC_PAUSE)
		proto_item_set_generated(proto_tree_add_uint(t, hf_quanta, tvb, 0, 0, x->quanta));
	if (e == ROCE_EV_PFC_RESUME)
		proto_item_set_generated(proto_tree_add_boolean(t, hf_expired, tvb, 0, 0, x->expired));
	if (e == ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED)
		proto_item_set_generated(proto_tree_add_string(t, hf_paused_by, tvb, 0, 0, x->pause ? "pause" : "pfc"));
}

/* One finding's details, as fields (rocedump's JSON "findings" keys). */
static void add_finding(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const struct roce_finding *x)
{
	enum roce_event e = (enum roce_event)x->event;
	struct finding_refs refs = refs_of(e);
	if (roce_event_is_congestion(e))
		add_congestion(t, tvb, x);
	if (e == ROCE_EV_MIRROR_GAP) {  /* the mirror's sequence numbers, not PSNs (JSON: expected_seq) */
		proto_item_append_text(proto_tree_get_parent(t), ": sequence %u expected, %u seen", x->expected_psn,
				       x->seen_psn);
	} else if (x->has_psn) {
		const char *what = x->msn ? "MSN" : "PSN";
		proto_item_set_generated(proto_tree_add_uint_format(t, hf_finding_expected, tvb, 0, 0, x->expected_psn,
								    "Expected %s: %u", what, x->expected_psn));
		proto_item_set_generated(proto_tree_add_uint_format(t, hf_finding_seen, tvb, 0, 0, x->seen_psn,
								    "Seen %s: %u", what, x->seen_psn));
	}
	if (x->ref_frame && x->ref_frame <= G_MAXUINT32) {
		bool resend = e == ROCE_EV_PSN_RETRANSMIT || e == ROCE_EV_RETRANSMIT_TIMEOUT;
		proto_item_set_generated(proto_tree_add_uint_format(t, resend ? hf_original_frame : hf_ref_frame, tvb,
								    0, 0, (guint32)x->ref_frame, "%s: %u", refs.frame,
								    (guint32)x->ref_frame));
	}
	if (x->delta_ns >= 0)
		add_time(t, hf_finding_delta, tvb, pinfo, refs.since, x->delta_ns);
	if (e == ROCE_EV_RETRANSMIT_RETRY_EXCEEDED) {
		proto_item_set_generated(proto_tree_add_uint(t, hf_resends_seen, tvb, 0, 0, x->resends_seen));
		proto_item_set_generated(proto_tree_add_uint(t, hf_resends_inferred, tvb, 0, 0, x->resends_inferred));
	}
	if (x->acked_before)
		proto_item_set_generated(proto_tree_add_boolean(t, hf_acked_before, tvb, 0, 0, TRUE));
	if (e == ROCE_EV_PATH_LOST) {
		proto_item_set_generated(proto_tree_add_uint(t, hf_path_from, tvb, 0, 0, x->path_from));
		proto_item_set_generated(proto_tree_add_uint(t, hf_path_to, tvb, 0, 0, x->path_to));
	}
}

/* A subtree headed by event e's title (roce.analysis.event, the event's name): the expert info's
 * item. */
static proto_tree *event_subtree(proto_tree *ft, tvbuff_t *tvb, enum roce_event e, proto_item **head)
{
	*head = proto_tree_add_string_format(ft, hf_event, tvb, 0, 0, roce_event_name(e), "%s",
					     roce_event_title(e));
	proto_item_set_generated(*head);
	return proto_item_add_subtree(*head, ett_finding);
}

/* Event e: one subtree per finding of it (one without details if it has none); the expert info,
 * once, on the first. */
static void add_event(proto_tree *ft, tvbuff_t *tvb, packet_info *pinfo, enum roce_event e,
		      const struct finding_list *fl)
{
	proto_item *first = NULL, *head;
	for (unsigned i = 0; i < fl->n; i++) {
		if (fl->f[i].event != e)
			continue;
		add_finding(event_subtree(ft, tvb, e, &head), tvb, pinfo, &fl->f[i]);
		if (!first)
			first = head;
	}
	if (!first)
		event_subtree(ft, tvb, e, &first);
	expert_add_info(pinfo, first, &ei_event[e]);
	const char *tag = info_tag(e);
	if (tag)
		col_append_str(pinfo->cinfo, COL_INFO, tag);
}

/* The analysis subtree, as TCP's "SEQ/ACK analysis": the cross-frame facts (only when full, the
 * tree asked for), then last the flags item roce.analysis.flags with an event's subtrees under it
 * (always: the expert infos hang on them). */
static COLD void add_analysis(proto_tree *root, tvbuff_t *tvb, packet_info *pinfo, const struct roce_pkt *p,
			      const struct roce_findings *fi, const struct finding_list *fl, bool full)
{
	bool facts = full && (fi->response_ns >= 0 || (fi->cnp_ce_frame && fi->cnp_ce_frame <= G_MAXUINT32));
	if (!facts && roce_evset_empty(&p->events))
		return;
	proto_item *ai = proto_tree_add_item(root, hf_analysis, tvb, 0, 0, ENC_NA);
	proto_item_set_generated(ai);
	proto_tree *at = proto_item_add_subtree(ai, ett_analysis);
	if (facts)
		add_facts(at, tvb, pinfo, fi);
	if (roce_evset_empty(&p->events))
		return;
	proto_item *flags = proto_tree_add_item(at, hf_analysis_flags, tvb, 0, 0, ENC_NA);
	proto_item_set_generated(flags);
	proto_tree *ft = proto_item_add_subtree(flags, ett_flags);
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
		if (roce_evset_has(&p->events, (enum roce_event)e))
			add_event(ft, tvb, pinfo, (enum roce_event)e, fl);
}

/* The frame as the conversation table and the flow graph take it (roce_views.c); NULL for a
 * RoCE frame without a BTH or addresses. */
static COLD const struct roce_tap_info *tap_info(packet_info *pinfo, const struct roce_pkt *p,
						 const guint8 *bytes, const struct roce_findings *fi)
{
	const struct roce_net *n = &p->net;
	if (!p->op || (n->addr_len != 4 && n->addr_len != 16))
		return NULL;
	struct roce_tap_info *ti = wmem_new0(pinfo->pool, struct roce_tap_info);
	int at = n->addr_len == 4 ? AT_IPv4 : AT_IPv6;
	set_address(&ti->src, at, n->addr_len, wmem_memdup(pinfo->pool, bytes + n->addr_off, n->addr_len));
	set_address(&ti->dst, at, n->addr_len, wmem_memdup(pinfo->pool, bytes + n->addr_off + n->addr_len, n->addr_len));
	ti->stream = fi->stream;
	ti->pair = fi->pair;
	ti->dqpn = p->h.bth.dqpn;
	ti->srcqp = p->h.hdrs & ROCE_HDR_DETH ? p->h.deth.srcqp : 0;
	ti->psn = p->h.bth.psn;
	ti->opcode = p->h.bth.opcode;
	ti->has_aeth = (p->h.hdrs & ROCE_HDR_AETH) != 0;
	ti->syndrome = p->h.aeth.syndrome;
	ti->msn = p->h.aeth.msn;
	ti->frame_len = pinfo->fd->pkt_len;
	ti->events = p->events;
	return ti;
}

/* The protocol item's text, the field table's fields and the ids: for a tree shown or a field of
 * ours referenced. */
static COLD void add_tree(proto_item *ti, proto_tree *root, tvbuff_t *tvb, packet_info *pinfo,
			  const struct roce_pkt *p, const guint8 *bytes, const struct roce_findings *fi)
{
	if (p->op)
		proto_item_append_text(ti, ", %s %s, QP 0x%06x, PSN %u, ICRC %s",
				       roce_transport_name((enum roce_transport)p->op->transport),
				       p->op->name ? p->op->name : "RESERVED", p->h.bth.dqpn, p->h.bth.psn,
				       roce_icrc_status_name((enum roce_icrc_status)p->icrc_status));
	if (p->version || p->net.kind == ROCE_NET_MACC)
		add_fields(root, tvb, p, bytes, pinfo->num);
	add_ids(root, tvb, fi);
}

static int dissect_roce(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return 0;
	int lt = link_of(pinfo->rec->rec_header.packet_header.pkt_encap);
	guint caplen = tvb_captured_length(tvb);
	if (lt < 0 || caplen == 0)
		return 0;
	const guint8 *bytes = tvb_get_ptr(tvb, 0, -1);  /* all caplen bytes */
	struct roce_pkt p;
	/* a frame that is not RoCE gets the events the decoder found on it (a capture cut before
	 * the BTH, a bad IP checksum) and the analyzer's (the congestion analysis reads PFC/PAUSE
	 * frames, and notes a missing CNP on whichever frame comes past its deadline), as rocedump
	 * shows them, and nothing else; a MAC control frame its fields too */
	int roce = roce_decode(&hot.decoder_cfg, bytes, caplen, tvb_reported_length(tvb), (unsigned)lt, &p);
	/* the capture interface, as rocedump numbers it (copies seen on two interfaces: analyze.h) */
	if (pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID)
		p.capture_if = ((guint32)pinfo->rec->section_number << 16 |
				(pinfo->rec->rec_header.packet_header.interface_id & 0xffff)) + 1;
	else if (!hot.last_analyzed && hot.analyzer)  /* a classic pcap file: one interface, in order */
		roce_analyzer_time_ordered(hot.analyzer);
	struct roce_findings fi;
	struct finding_list fl;
	analyze(pinfo, &p, bytes, &fi, &fl);
	bool macc = p.net.kind == ROCE_NET_MACC;  /* PFC, PAUSE: the fields pfc.*, pause.* */
	if (roce != 1 && !macc && roce_evset_empty(&p.events))
		return 0;

	/* The protocol item always (in the root tree, where Wireshark fakes no item, as every
	 * dissector's: the protocol hierarchy statistics and the expert infos hang on it); what
	 * goes below it only when the tree is shown or a filter, column, tap or colouring rule asks
	 * for a field of ours (any roce.* name references the protocol): unreferenced, each item
	 * would cost its lookup for nothing, and the field table's hundred lookups are most of it.
	 * (caplen, a gint's worth, bounds bth_off; the item runs to the end of the captured bytes, its
	 * length given rather than -1, which Wireshark would work out again.) */
	proto_item *ti = proto_tree_add_item(tree, hot.proto_roce, tvb, p.bth_off < caplen ? (gint)p.bth_off : 0,
					     p.bth_off < caplen ? (gint)(caplen - p.bth_off) : 0, ENC_NA);
	proto_tree *root = proto_item_add_subtree(ti, hot.ett_roce);
	/* referenced: also when the tree is shown (proto_field_is_referenced says so for a visible
	 * tree), the only time the item's text is built */
	bool full = tree && proto_field_is_referenced(tree, hot.proto_roce);
	if (full)
		add_tree(ti, root, tvb, pinfo, &p, bytes, &fi);
	if (full || !roce_evset_empty(&p.events))
		add_analysis(root, tvb, pinfo, &p, &fi, &fl, full);
	/* queued only for a listener: nothing else reads the tap's queue */
	if (have_tap_listener(hot.roce_tap))
		tap_queue_packet(hot.roce_tap, pinfo, roce == 1 ? tap_info(pinfo, &p, bytes, &fi) : NULL);
	return (int)caplen;
}

/* ---- registration ---- */

static const value_string *opcode_vals(void)
{
	static value_string vals[257];
	unsigned n = 0;
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *oi = roce_opcode_info((uint8_t)op);
		if (oi->name)
			vals[n++] = (value_string){op, oi->name};
	}
	vals[n] = (value_string){0, NULL};
	return vals;
}

static void register_fields(void)
{
	static hf_register_info hf[ROCE_F_COUNT + 23];
	static const enum ftenum ft_of[] = {
		[ROCE_FT_UINT8] = FT_UINT8, [ROCE_FT_UINT16] = FT_UINT16, [ROCE_FT_UINT24] = FT_UINT24,
		[ROCE_FT_UINT32] = FT_UINT32, [ROCE_FT_UINT64] = FT_UINT64, [ROCE_FT_STRING] = FT_STRING,
		[ROCE_FT_CSUM_STATUS] = FT_UINT8,
	};
	size_t n = 0;

	for (unsigned f = 0; f < ROCE_F_COUNT; f++) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)f);
		hf_field[f] = -1;
		if (fi->ft == ROCE_FT_NONE)
			continue;
		const char *abbrev = strncmp(fi->path, "roce.", 5) == 0 ? fi->path : g_strconcat("roce.", fi->path, NULL);
		int display = fi->base == ROCE_BASE_HEX ? BASE_HEX : fi->base == ROCE_BASE_DEC ? BASE_DEC : BASE_NONE;
		const void *strings = NULL;
		if (f == ROCE_F_OPCODE)
			strings = VALS(opcode_vals());
		if (fi->ft == ROCE_FT_CSUM_STATUS)
			strings = VALS(proto_checksum_vals);
		const char *blurb = f == ROCE_F_ICRC_VALUE ?
			"The ICRC as the CRC-32 value: its 4 wire bytes read least significant first, "
			"infiniband.invariant.crc byte-swapped (as rocedump's JSON roce.icrc.value)" :
			f == ROCE_F_ICRC_COMPUTED ? "The CRC-32 computed over the invariant fields, to compare "
			"with roce.icrc.value" : f == ROCE_F_ICRC_STATUS ?
			"0 bad, 1 good, 2 unverified (the frame was cut before its end, or checking is off)" :
			g_strconcat("rocedump JSON: ", fi->path, NULL);
		if (flag_bit((enum roce_field)f))
			hf[n++] = (hf_register_info){&hf_field[f], {fi->label, abbrev, FT_BOOLEAN, 8, TFS(&tfs_set_notset),
								     flag_bit((enum roce_field)f), blurb, HFILL}};
		else
			hf[n++] = (hf_register_info){&hf_field[f], {fi->label, abbrev, ft_of[fi->ft], display, strings,
								     0, blurb, HFILL}};
	}
	hf[n++] = (hf_register_info){&hf_analysis, {"RoCE analysis", "roce.analysis", FT_NONE, BASE_NONE, NULL, 0,
		"The analysis across frames: response time, CE-marked frame, and the flags item with the events",
		HFILL}};
	hf[n++] = (hf_register_info){&hf_analysis_flags, {"RoCE analysis flags", "roce.analysis.flags", FT_NONE,
		BASE_NONE, NULL, 0, "The frame has events (expert info roce.*): for colouring rules", HFILL}};
	hf[n++] = (hf_register_info){&hf_event, {"Event", "roce.analysis.event", FT_STRING, BASE_NONE, NULL, 0,
		"An event of the frame, by name (rocedump --list-events), heading its finding's details", HFILL}};
	hf[n++] = (hf_register_info){&hf_qpn, {"QP", "roce.analysis.qpn", FT_UINT24, BASE_HEX, NULL, 0,
		"The QP a CNP finding is about", HFILL}};
	hf[n++] = (hf_register_info){&hf_acked_before, {"ACKed before the resend", "roce.analysis.acked_before",
		FT_BOOLEAN, BASE_NONE, TFS(&tfs_yes_no), 0,
		"An ACK covering the resent PSN came before it: the PSN arrived, not counted lost", HFILL}};
	hf[n++] = (hf_register_info){&hf_resends_seen, {"Restarts seen", "roce.analysis.resends_seen", FT_UINT16,
		BASE_DEC, NULL, 0, "Restarts of the stuck PSN in the capture", HFILL}};
	hf[n++] = (hf_register_info){&hf_resends_inferred, {"Restarts inferred", "roce.analysis.resends_inferred",
		FT_UINT16, BASE_DEC, NULL, 0,
		"Restarts at a later PSN of the stuck PSN's run: its own resend is missing from the capture", HFILL}};
	hf[n++] = (hf_register_info){&hf_priority, {"Priority", "roce.analysis.priority", FT_INT8, BASE_DEC, NULL, 0,
		"The priority paused (-1: all, a legacy PAUSE)", HFILL}};
	hf[n++] = (hf_register_info){&hf_quanta, {"Pause time (quanta)", "roce.analysis.quanta", FT_UINT16, BASE_DEC,
		NULL, 0, "The pause time of the priority, in quanta of 512 bit times", HFILL}};
	hf[n++] = (hf_register_info){&hf_expired, {"Pause timer expired", "roce.analysis.expired", FT_BOOLEAN,
		BASE_NONE, TFS(&tfs_yes_no), 0, "The pause ended by its timer, not by an XON", HFILL}};
	hf[n++] = (hf_register_info){&hf_paused_by, {"Paused by", "roce.analysis.paused_by", FT_STRING, BASE_NONE,
		NULL, 0, "What paused the priority: pfc, or pause (a legacy PAUSE)", HFILL}};
	hf[n++] = (hf_register_info){&hf_path_from, {"Lost after point", "roce.analysis.path_from", FT_UINT16,
		BASE_DEC, NULL, 0, "path.lost: the capture point of the hop that last saw the lost sending "
		"(rocedump's path table numbers)", HFILL}};
	hf[n++] = (hf_register_info){&hf_path_to, {"Lost before point", "roce.analysis.path_to", FT_UINT16,
		BASE_DEC, NULL, 0, "path.lost: the next point on the stream's path, which never saw it", HFILL}};
	hf[n++] = (hf_register_info){&hf_finding_expected, {"Expected PSN", "roce.analysis.expected_psn",
		FT_UINT24, BASE_DEC, NULL, 0, "The PSN (or MSN) the stream expected", HFILL}};
	hf[n++] = (hf_register_info){&hf_finding_seen, {"Seen PSN", "roce.analysis.seen_psn", FT_UINT24,
		BASE_DEC, NULL, 0, "The PSN (or MSN) the frame carries", HFILL}};
	hf[n++] = (hf_register_info){&hf_finding_delta, {"Time since", "roce.analysis.delta",
		FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
		"Time since what the finding refers to (its label names it: a timed-out PSN's first sending, "
		"the NAK, the pause's start)", HFILL}};
	hf[n++] = (hf_register_info){&hf_stream, {"Stream", "roce.stream", FT_UINT32, BASE_DEC, NULL, 0,
		"The stream (one direction of a queue pair) of the frame: its id in the analysis, as the "
		"RoCE Queue Pairs table lists it", HFILL}};
	hf[n++] = (hf_register_info){&hf_pair, {"Pair", "roce.pair", FT_UINT32, BASE_DEC, NULL, 0,
		"The queue pair: both directions share it once paired (by RDMA-CM or by PSN)", HFILL}};
	hf[n++] = (hf_register_info){&hf_response_time, {"Response time", "roce.analysis.response_time",
		FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
		"Request to response time at the capture point, measured on the response", HFILL}};
	hf[n++] = (hf_register_info){&hf_original_frame, {"Original frame", "roce.analysis.original_frame",
		FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_PREV), 0,
		"The first sending of the PSN this frame resends", HFILL}};
	hf[n++] = (hf_register_info){&hf_ref_frame, {"Refers to frame", "roce.analysis.ref_frame",
		FT_FRAMENUM, BASE_NONE, NULL, 0,
		"The frame the finding refers to (e.g. the NAK or RNR NAK a restart answers)", HFILL}};
	hf[n++] = (hf_register_info){&hf_ce_frame, {"CE frame", "roce.analysis.ce_frame", FT_FRAMENUM, BASE_NONE,
		FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
		"The CE-marked frame this CNP answers (its stream's oldest mark due a CNP)", HFILL}};
	hf[n++] = (hf_register_info){&hf_ce_to_cnp, {"CE to CNP", "roce.analysis.ce_to_cnp", FT_RELATIVE_TIME,
		BASE_NONE, NULL, 0, "Time from the CE-marked frame to this CNP", HFILL}};
	proto_register_field_array(hot.proto_roce, hf, (int)n);
}

static void register_expert(void)
{
	static ei_register_info ei[ROCE_EV_COUNT];
	static const int group_of[] = {
		[ROCE_GROUP_SEQUENCE] = PI_SEQUENCE, [ROCE_GROUP_CHECKSUM] = PI_CHECKSUM,
		[ROCE_GROUP_MALFORMED] = PI_MALFORMED, [ROCE_GROUP_PROTOCOL] = PI_PROTOCOL,
	};
	static const int severity_of[] = {
		[ROCE_SEV_INFO] = PI_NOTE, [ROCE_SEV_WARN] = PI_WARN, [ROCE_SEV_ERROR] = PI_ERROR,
	};

	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		enum roce_event ev = (enum roce_event)e;
		ei[e] = (ei_register_info){&ei_event[e], {g_strconcat("roce.", roce_event_name(ev), NULL),
			group_of[roce_event_group(ev)], severity_of[roce_event_severity(ev)],
			roce_event_title(ev), EXPFILL}};
	}
	expert_module_t *em = expert_register_protocol(hot.proto_roce);
	expert_register_field_array(em, ei, ROCE_EV_COUNT);
}

static void register_prefs(void)
{
	static const enum_val_t pmtu_vals[] = {
		{"learn", "Learn it per stream from FIRST/MIDDLE payloads", 0},
		{"256", "256", 256}, {"512", "512", 512}, {"1024", "1024", 1024},
		{"2048", "2048", 2048}, {"4096", "4096", 4096}, {NULL, NULL, 0},
	};
	module_t *m = prefs_register_protocol(hot.proto_roce, roce_prefs_apply);

	pref_ports = range_empty(wmem_epan_scope());
	prefs_register_range_preference(m, "udp_ports", "More RoCEv2 UDP destination ports",
		"UDP destination ports decoded as RoCEv2 besides 4791, up to 8 (rocedump --roce-port)",
		&pref_ports, 65535);
	prefs_register_bool_preference(m, "analysis", "Transport analysis",
		"PSN, ACK/NAK and retransmission analysis across frames (events psn.*, ack.*, nak.*, ...)",
		&pref_analysis);
	prefs_register_enum_preference(m, "pmtu", "Path MTU",
		"The path MTU for READ PSN accounting and the PMTU rules (rocedump --pmtu)", &pref_pmtu,
		pmtu_vals, FALSE);
	prefs_register_uint_preference(m, "max_streams", "Streams tracked at once",
		g_strdup_printf("Streams the analysis tracks before evicting the least recently used (default %u, "
				"rocedump --max-streams)", ROCE_MAX_STREAMS_DEFAULT), 10, &pref_max_streams);
	prefs_register_bool_preference(m, "check_icrc", "Verify the ICRC",
		"Compute every RoCE packet's ICRC (off: roce.icrc.status 2, unverified)", &pref_icrc);
	prefs_register_string_preference(m, "link_speed", "Link speed",
		g_strdup_printf("The link's speed, for PFC/PAUSE pause times (a quantum is 512 bit times): 10G, 25G, "
				"100G, 400G, or bits per second with a K/M/G/T suffix (default %s, rocedump --link-speed)",
				ROCE_LINK_SPEED_DEFAULT), &pref_link_speed);
	prefs_register_uint_preference(m, "pfc_storm_ms", "PFC storm (ms)",
		g_strdup_printf("One continuous pause of a priority longer than this is pfc.storm (default %u; "
				"rocedump --pfc-storm-ms)", pref_pfc_storm_ms), 10, &pref_pfc_storm_ms);
	prefs_register_string_preference(m, "dscp_prio", "DSCP to priority",
		"The priority of untagged RoCE by DSCP, DSCP=PRIORITY pairs: 26=3,48=6 (empty, and the DSCPs not "
		"named: DSCP >> 3; rocedump --dscp-prio)", &pref_dscp_prio);
	prefs_register_uint_preference(m, "cnp_interval_us", "CNP interval (us)",
		g_strdup_printf("The least time a NIC leaves between two CNPs to one QP (default %u; 0: a CNP is due "
				"for every CE mark; rocedump --cnp-interval-us)", pref_cnp_interval_us),
		10, &pref_cnp_interval_us);
	prefs_register_uint_preference(m, "cnp_timeout_us", "CNP timeout (us)",
		g_strdup_printf("A CE mark due a CNP with none within this is cnp.missing (default %u; "
				"rocedump --cnp-timeout-us)", pref_cnp_timeout_us), 10, &pref_cnp_timeout_us);
}

void roce_proto_register(void)
{
	static gint *ett[] = {&hot.ett_roce, &ett_group, &ett_analysis, &ett_flags, &ett_finding};

	hot.proto_roce = proto_register_protocol("RoCE Analysis", "RoCE", "roce");
	register_fields();
	proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
	register_expert();
	register_prefs();
	roce_prefs_apply();
	register_init_routine(roce_init);
	register_cleanup_routine(roce_cleanup);
	hot.roce_tap = register_tap("roce");
	roce_stats_register();
	roce_views_register(hot.proto_roce);
}

void roce_proto_handoff(void)
{
	register_postdissector(create_dissector_handle(dissect_roce, hot.proto_roce));
}
