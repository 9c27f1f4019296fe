/* print_json.c: one JSON object per frame (JSON Lines). The schema is documented in docs/reading-output.md
 * ("JSON output"); its names are stable. The frame's fields are those of the one field table
 * (include/roce/fields.def), printed in its order and nested by their dotted paths; the events and
 * the analyzer's findings follow. The field table's strings are escaped (json_escape: a file
 * name may hold any byte); the other strings written here are our own names or addresses, which
 * need none. 64-bit values are JSON numbers (exact in Python, jq 1.7+). */
#include <inttypes.h>

#include "jsonstr.h"
#include "output/fmt.h"
#include "output/print.h"
#include "roce/mirror.h"

/* The length of each field's parent path ("roce.reth" of "roce.reth.va"; 0 at the top). */
static uint8_t parent_len[ROCE_F_COUNT];

static void init_parents(void)
{
	static bool done;
	if (done)
		return;
	for (unsigned i = 0; i < ROCE_F_COUNT; i++) {
		const char *path = roce_field_info((enum roce_field)i)->path, *dot = strrchr(path, '.');
		parent_len[i] = dot ? (uint8_t)(dot - path) : 0;
	}
	done = true;
}

/* The objects open around the next member: their path, and whether one was just opened. */
struct nest {
	char path[64];
	size_t len;
	bool first;
};

/* Close the open objects down to the one at the start of path[0, plen), then open the rest. */
static void nest_to(struct sb *s, struct nest *n, const char *path, size_t plen)
{
	while (n->len && !(n->len <= plen && memcmp(n->path, path, n->len) == 0 &&
			   (n->len == plen || path[n->len] == '.'))) {
		sb_puts(s, "}");
		while (n->len && n->path[n->len - 1] != '.')
			n->len--;
		if (n->len)
			n->len--;
		n->first = false;
	}
	while (n->len < plen) {
		size_t start = n->len ? n->len + 1 : 0, end = start;
		while (end < plen && path[end] != '.')
			end++;
		sb_puts(s, n->first ? "\"" : ",\"");
		sb_putn(s, path + start, end - start);
		sb_puts(s, "\":{");
		memcpy(n->path, path, end);
		n->len = end;
		n->first = true;
	}
}

/* json_put_fn over a string builder. */
static void put_sb(void *ctx, const char *bytes, size_t n)
{
	sb_putn(ctx, bytes, n);
}

/* str as a JSON string, quotes and escapes included. */
static void put_str(struct sb *s, const char *str)
{
	sb_putn(s, "\"", 1);
	json_escape(str, false, put_sb, s);
	sb_putn(s, "\"", 1);
}

/* A field's value: a string, a time stamp (seconds, 9 decimals) or a number. */
static void put_value(struct sb *s, enum roce_field_kind kind, const struct roce_field_val *v)
{
	switch (kind) {
	case ROCE_FK_S:
		put_str(s, v->s);
		break;
	case ROCE_FK_T:
		if (v->sec >= 0) {
			sb_putu(s, (uint64_t)v->sec);
			sb_puts(s, ".");
			sb_putu0(s, v->u, 9);
		} else {  /* before 1970: the seconds as -tt prints them */
			char ts[FMT_TIME_MAX];
			fmt_time(ts, TS_EPOCH, true, v->sec, (uint32_t)v->u, NULL);
			sb_puts(s, ts);
		}
		break;
	default:
		sb_putu(s, v->u);
		break;
	}
}

static void put_member(struct sb *s, struct nest *n, const char *leaf, enum roce_field_kind kind,
		       const struct roce_field_val *v)
{
	sb_puts(s, n->first ? "\"" : ",\"");
	sb_puts(s, leaf);
	sb_puts(s, "\":");
	put_value(s, kind, v);
	n->first = false;
}

/* An array of objects (the VLAN tags): the rows from f on that share its parent, element by
 * element while the first row has one, as a member of the object around the parent. Returns the
 * row after them. */
static unsigned put_array(struct sb *s, struct nest *n, const struct roce_field_src *src, unsigned f)
{
	const char *path = roce_field_info((enum roce_field)f)->path;
	size_t plen = parent_len[f];
	const char *dot = NULL;
	for (size_t k = 0; k < plen; k++)
		if (path[k] == '.')
			dot = path + k;
	size_t outer = dot ? (size_t)(dot - path) : 0;
	unsigned end = f;
	while (end < ROCE_F_COUNT && roce_field_info((enum roce_field)end)->kind == ROCE_FK_RU &&
	       parent_len[end] == plen && memcmp(roce_field_info((enum roce_field)end)->path, path, plen) == 0)
		end++;
	struct roce_field_val v;
	for (unsigned idx = 0; roce_field_get((enum roce_field)f, src, idx, &v); idx++) {
		if (idx == 0) {
			nest_to(s, n, path, outer);
			sb_puts(s, n->first ? "\"" : ",\"");
			sb_putn(s, path + (dot ? outer + 1 : 0), plen - (dot ? outer + 1 : 0));
			sb_puts(s, "\":[");
			n->first = false;
		}
		sb_puts(s, idx ? ",{" : "{");
		struct nest in = {.first = true};
		for (unsigned k = f; k < end; k++)
			if (roce_field_get((enum roce_field)k, src, idx, &v))
				put_member(s, &in, roce_field_info((enum roce_field)k)->path + plen + 1,
					   ROCE_FK_U, &v);
		sb_puts(s, "}");
		if (!roce_field_get((enum roce_field)f, src, idx + 1, &v))
			sb_puts(s, "]");
	}
	return end;
}

/* An array of numbers or strings (pfc.quanta, pause.malformed), possibly empty, as a member; or
 * an object that may stay empty (mac_control), opened for the members after it. */
static void put_list(struct sb *s, struct nest *n, const struct roce_field_src *src, enum roce_field f)
{
	const struct roce_field_info *fi = roce_field_info(f);
	struct roce_field_val v;
	if (fi->kind == ROCE_FK_O) {
		nest_to(s, n, fi->path, strlen(fi->path));
		return;
	}
	nest_to(s, n, fi->path, parent_len[f]);
	sb_puts(s, n->first ? "\"" : ",\"");
	sb_puts(s, fi->path + (parent_len[f] ? parent_len[f] + 1u : 0u));
	sb_puts(s, "\":[");
	for (unsigned i = 0; roce_field_get(f, src, i, &v); i++) {
		if (i)
			sb_puts(s, ",");
		put_value(s, fi->kind == ROCE_FK_AS ? ROCE_FK_S : ROCE_FK_U, &v);
	}
	sb_puts(s, "]");
	n->first = false;
}

/* Every field of the table the frame has, nested by their paths, after the object's "{". */
static void put_fields(struct sb *s, const struct roce_field_src *src)
{
	struct nest n = {.first = true};
	struct roce_field_val v;

	init_parents();
	for (unsigned f = 0; f < ROCE_F_COUNT;) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)f);
		if (fi->kind == ROCE_FK_RU) {
			f = put_array(s, &n, src, f);
			continue;
		}
		if (fi->kind == ROCE_FK_AU || fi->kind == ROCE_FK_AS || fi->kind == ROCE_FK_O) {
			if (roce_field_has((enum roce_field)f, src))
				put_list(s, &n, src, (enum roce_field)f);
			f++;
			continue;
		}
		if (roce_field_get((enum roce_field)f, src, 0, &v)) {
			nest_to(s, &n, fi->path, parent_len[f]);
			put_member(s, &n, fi->path + (parent_len[f] ? parent_len[f] + 1u : 0u),
				   (enum roce_field_kind)fi->kind, &v);
		}
		f++;
	}
	nest_to(s, &n, "", 0);
}

/* A congestion finding's own keys: the priority of a pfc.* event (null: a legacy PAUSE), a
 * missing CNP's CE frame. */
/* mirror.gap: the session (its capture point's name), the sequence numbers, the frames lost. */
static void put_mirror_gap(struct sb *s, const struct frame *f, const struct roce_pkt *p, const struct roce_finding *x)
{
	struct roce_mirror_point pt;
	char name[ROCE_MIRROR_NAME_MAX];
	if (roce_mirror_point_of(p, f->data, &pt)) {
		roce_mirror_point_name(name, sizeof(name), &pt);
		sb_printf(s, ",\"mirror\":\"%s\"", name);
	}
	sb_printf(s, ",\"expected_seq\":%" PRIu32 ",\"seen_seq\":%" PRIu32 ",\"lost\":%" PRIu32, x->expected_psn,
		  x->seen_psn, x->seen_psn - x->expected_psn);
}

static void put_congestion_finding(struct sb *s, const struct roce_finding *x)
{
	switch (x->event) {
	case ROCE_EV_PFC_PAUSE:
	case ROCE_EV_PFC_RESUME:
	case ROCE_EV_PFC_STORM:
	case ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED:
		if (x->priority < 0)
			sb_puts(s, ",\"priority\":null");
		else
			sb_printf(s, ",\"priority\":%d", x->priority);
		if (x->event == ROCE_EV_PFC_PAUSE)
			sb_printf(s, ",\"quanta\":%u", x->quanta);
		if (x->event == ROCE_EV_PFC_RESUME)
			sb_printf(s, ",\"expired\":%s", x->expired ? "true" : "false");
		if (x->event == ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED)
			sb_printf(s, ",\"by\":\"%s\"", x->pause ? "pause" : "pfc");
		break;
	default:
		break;
	}
}

void print_json(struct sb *s, const struct print_opts *o, uint64_t frame_no, const struct frame *f,
		const struct roce_pkt *p, const struct roce_findings *fi)
{
	struct roce_field_src src = print_field_src(o, frame_no, f, p);
	sb_puts(s, "{");
	put_fields(s, &src);
	sb_puts(s, ",\"events\":[");
	const char *sep = "";
	for (unsigned e = roce_evset_next(&p->events, 0); e < ROCE_EV_COUNT; e = roce_evset_next(&p->events, e + 1)) {
		sb_key_str(s, sep, roce_event_name((enum roce_event)e));
		sep = ",";
	}
	sb_puts(s, "]");
	if (fi && fi->n) {
		char a_src[FMT_ADDR_MAX], a_dst[FMT_ADDR_MAX];  /* the stream's addresses: the frame's */
		fmt_net_addrs(p, f->data, a_src, a_dst);
		sb_puts(s, ",\"findings\":[");
		for (unsigned i = 0; i < fi->n; i++) {
			const struct roce_finding *x = &fi->f[i];
			sb_printf(s, "%s{\"event\":\"%s\"", i ? "," : "", roce_event_name((enum roce_event)x->event));
			if (x->event == ROCE_EV_MIRROR_GAP) {  /* the mirror's sequence numbers, not a stream's */
				put_mirror_gap(s, f, p, x);
				sb_puts(s, "}");
				continue;
			}
			bool cong = roce_event_is_congestion((enum roce_event)x->event);
			if (!cong || x->stream)  /* the stream it is about: pfc.* have none, cnp.* the CE marks' */
				sb_printf(s, ",\"stream\":%" PRIu32 ",\"pair\":%" PRIu32, x->stream, x->pair);
			if (!cong && a_src[0])  /* congestion findings name their own QP, priority or MAC */
				sb_printf(s, ",\"src\":\"%s\",\"dst\":\"%s\"", a_src, a_dst);
			sb_key_u(s, ",\"qpn\":", x->qpn);
			if (x->has_psn)
				sb_printf(s, x->msn ? ",\"expected_msn\":%" PRIu32 ",\"seen_msn\":%" PRIu32
						    : ",\"expected_psn\":%" PRIu32 ",\"seen_psn\":%" PRIu32,
					  x->expected_psn, x->seen_psn);
			if (x->delta_ns >= 0)
				sb_printf(s, ",\"delta_ns\":%lld", (long long)x->delta_ns);
			if (x->ref_frame)
				sb_key_u(s, ",\"ref_frame\":", x->ref_frame);
			if (x->acked_before)
				sb_puts(s, ",\"acked_before\":true");
			if (x->at_mirror)
				sb_puts(s, ",\"lost_at_mirror\":true");
			if (x->event == ROCE_EV_PATH_LOST)  /* the hop that lost it: path.h's point indexes */
				sb_printf(s, ",\"path_from\":%u,\"path_to\":%u", (unsigned)x->path_from,
					  (unsigned)x->path_to);
			if (x->event == ROCE_EV_RETRANSMIT_RETRY_EXCEEDED)
				sb_printf(s, ",\"resends_seen\":%u,\"resends_inferred\":%u", x->resends_seen,
					  x->resends_inferred);
			put_congestion_finding(s, x);
			sb_puts(s, "}");
		}
		sb_puts(s, "]");
	}
	if (fi && fi->cnp_ce_frame) {  /* a CNP: the CE mark it answers (the plugin's roce.analysis.ce_frame) */
		sb_key_u(s, ",\"analysis\":{\"ce_frame\":", fi->cnp_ce_frame);
		sb_printf(s, ",\"ce_to_cnp_ns\":%lld}", (long long)fi->cnp_ce_ns);
	}
	sb_puts(s, "}\n");
}
