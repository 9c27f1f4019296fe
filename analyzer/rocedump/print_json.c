/* print_json.c: one JSON object per frame (JSON Lines). The schema is documented in README.md
 * ("JSON output"); its names are stable. Every string written here is one of our own names or an
 * address, so no escaping is needed. 64-bit values are JSON numbers (exact in Python, jq 1.7+). */
#include <inttypes.h>

#include "fmt.h"
#include "print.h"

static void put_link(struct sb *s, const struct frame *f, const struct roce_pkt *p)
{
	sb_key_u(s, ",\"link\":{\"type\":", p->linktype);
	if (p->eth_off >= 0 && (uint32_t)p->eth_off + 14 <= roce_readable_len(f->caplen)) {
		char src[18], dst[18];
		fmt_mac(dst, f->data + p->eth_off);
		fmt_mac(src, f->data + p->eth_off + 6);
		sb_printf(s, ",\"src\":\"%s\",\"dst\":\"%s\"", src, dst);
	}
	if (p->linktype == ROCE_LINK_SLL || p->linktype == ROCE_LINK_SLL2)
		sb_printf(s, ",\"sll_pkttype\":%u", p->sll_pkttype);
	if (p->linktype == ROCE_LINK_SLL2)
		sb_printf(s, ",\"sll_ifindex\":%" PRIu32, p->sll_ifindex);
	if (f->iface) {  /* names are kept plain (capstats.c): no escaping needed */
		sb_printf(s, ",\"interface\":{\"id\":%" PRIu32, capstats_iface_id(f->iface));
		if (f->iface_name[0])
			sb_key_str(s, ",\"name\":", f->iface_name);
		sb_puts(s, "}");
	}
	if (p->ethertype)
		sb_key_u(s, ",\"ethertype\":", p->ethertype);
	sb_puts(s, "}");
	if (p->n_vlan) {
		sb_puts(s, ",\"vlan\":[");
		for (unsigned i = 0; i < p->n_vlan; i++)
			sb_printf(s, "%s{\"tpid\":%u,\"pcp\":%u,\"dei\":%u,\"vid\":%u}", i ? "," : "",
				  p->vlan[i].tpid, p->vlan[i].pcp, p->vlan[i].dei, p->vlan[i].vid);
		sb_puts(s, "]");
	}
}

static void put_wrap(struct sb *s, const struct frame *f, const struct roce_pkt *p)
{
	const struct roce_wrap *w = &p->wrap;
	unsigned alen = w->ip_version == 6 ? 16 : 4, aoff = w->ip_version == 6 ? 8 : 12;

	sb_printf(s, ",\"wrapper\":{\"kind\":\"%s\",\"depth\":%u", roce_wrap_name(w->kind), w->depth);
	if (w->ip_off + aoff + 2 * alen <= roce_readable_len(f->caplen)) {
		char a[FMT_ADDR_MAX], b[FMT_ADDR_MAX];
		fmt_ip(a, f->data + w->ip_off + aoff, alen);
		fmt_ip(b, f->data + w->ip_off + aoff + alen, alen);
		sb_printf(s, ",\"ip_version\":%u,\"src\":\"%s\",\"dst\":\"%s\"", w->ip_version, a, b);
	}
	if (w->kind == ROCE_WRAP_VXLAN) {
		sb_printf(s, ",\"vni\":%" PRIu32 ",\"udp_sport\":%u}", w->vni, w->udp_sport);
		return;
	}
	sb_printf(s, ",\"gre_proto\":%u", w->gre_proto);
	if (w->has_key)
		sb_printf(s, ",\"gre_key\":%" PRIu32, w->gre_key);
	if (w->has_seq)
		sb_printf(s, ",\"gre_seq\":%" PRIu32, w->gre_seq);
	if (w->kind == ROCE_WRAP_ERSPAN2 || w->kind == ROCE_WRAP_ERSPAN3) {
		sb_printf(s, ",\"erspan\":{\"version\":%u,\"session_id\":%u,\"vlan\":%u,\"cos\":%u,\"truncated\":%u",
			  w->erspan_ver, w->session_id, w->vlan, w->cos, w->truncated);
		if (w->kind == ROCE_WRAP_ERSPAN2)
			sb_printf(s, ",\"en\":%u,\"index\":%" PRIu32 "}", w->en_bso, w->index);
		else
			sb_printf(s, ",\"bso\":%u,\"timestamp\":%" PRIu32 ",\"sgt\":%u,\"p\":%u,\"ft\":%u,\"hwid\":%u,"
				  "\"direction\":\"%s\",\"gra\":%u,\"o\":%u}",
				  w->en_bso, w->timestamp, w->sgt, w->pdu_frame, w->ft, w->hwid,
				  w->direction ? "egress" : "ingress", w->gra, w->has_platform);
	}
	sb_puts(s, "}");
}

static void put_net(struct sb *s, const struct frame *f, const struct roce_pkt *p)
{
	const struct roce_net *n = &p->net;
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];

	if (n->kind != ROCE_NET_IPV4 && n->kind != ROCE_NET_IPV6 && n->kind != ROCE_NET_GRH)
		return;
	fmt_net_addrs(p, f->data, src, dst);
	if (n->kind == ROCE_NET_GRH)
		sb_puts(s, ",\"grh\":{");
	else
		sb_puts(s, n->kind == ROCE_NET_IPV4 ? ",\"ip\":{\"version\":4," : ",\"ip\":{\"version\":6,");
	if (src[0]) {
		sb_key_str(s, "\"src\":", src);
		sb_key_str(s, ",\"dst\":", dst);
		sb_puts(s, ",");
	}
	sb_key_u(s, "\"tclass\":", n->tclass);
	sb_key_u(s, ",\"dscp\":", roce_dscp(n));
	sb_key_u(s, ",\"ecn\":", roce_ecn(n));
	sb_key_u(s, ",\"ttl\":", n->ttl);
	sb_key_u(s, ",\"proto\":", n->proto);
	sb_key_u(s, ",\"length\":", n->total_len);
	if (n->kind == ROCE_NET_IPV4) {
		sb_key_u(s, ",\"id\":", n->ip_id);
		sb_key_u(s, ",\"frag\":", n->frag);
		sb_key_str(s, ",\"checksum\":", roce_csum_name(n->ip_csum));
	} else {
		sb_key_u(s, ",\"flow_label\":", n->flow_label);
	}
	sb_puts(s, "}");
	if (p->udp.off) {
		sb_key_u(s, ",\"udp\":{\"sport\":", p->udp.sport);
		sb_key_u(s, ",\"dport\":", p->udp.dport);
		sb_key_u(s, ",\"len\":", p->udp.len);
		sb_key_str(s, ",\"checksum\":", roce_csum_name(p->udp.csum_status));
		sb_puts(s, "}");
	}
	else if (n->proto == 6 && (p->l4_sport || p->l4_dport))
		sb_printf(s, ",\"tcp\":{\"sport\":%u,\"dport\":%u}", p->l4_sport, p->l4_dport);
}

static void put_ext(struct sb *s, const struct roce_hdrs *h)
{
	if (h->hdrs & ROCE_HDR_RDETH)
		sb_printf(s, ",\"rdeth\":{\"eecnxt\":%" PRIu32 "}", h->rdeth.eecnxt);
	if (h->hdrs & ROCE_HDR_DETH) {
		sb_key_u(s, ",\"deth\":{\"qkey\":", h->deth.qkey);
		sb_key_u(s, ",\"srcqp\":", h->deth.srcqp);
		sb_puts(s, "}");
	}
	if (h->hdrs & ROCE_HDR_XRCETH)
		sb_printf(s, ",\"xrceth\":{\"xrcsrq\":%" PRIu32 "}", h->xrceth.xrcsrq);
	if (h->hdrs & ROCE_HDR_FETH)
		sb_printf(s, ",\"feth\":{\"sel\":%u,\"plt\":%u}", h->feth.sel, h->feth.plt);
	if (h->hdrs & ROCE_HDR_RETH) {
		sb_key_u(s, ",\"reth\":{\"va\":", h->reth.va);
		sb_key_u(s, ",\"rkey\":", h->reth.rkey);
		sb_key_u(s, ",\"dmalen\":", h->reth.dmalen);
		sb_puts(s, "}");
	}
	if (h->hdrs & ROCE_HDR_ATOMICETH)
		sb_printf(s, ",\"atomiceth\":{\"va\":%" PRIu64 ",\"rkey\":%" PRIu32 ",\"swap\":%" PRIu64
			  ",\"cmp\":%" PRIu64 "}", h->atomiceth.va, h->atomiceth.rkey, h->atomiceth.swap,
			  h->atomiceth.cmp);
	if (h->hdrs & ROCE_HDR_AETH) {
		uint8_t syn = h->aeth.syndrome;
		unsigned v = roce_aeth_value(syn);
		sb_key_u(s, ",\"aeth\":{\"syndrome\":", syn);
		sb_key_u(s, ",\"msn\":", h->aeth.msn);
		sb_key_str(s, ",\"kind\":", roce_aeth_kind_name(syn));
		switch (roce_aeth_kind(syn)) {
		case ROCE_AETH_ACK:
			sb_key_u(s, ",\"credit\":", v);
			break;
		case ROCE_AETH_RNR_NAK:
			sb_printf(s, ",\"rnr_timer\":%u,\"rnr_usec\":%" PRIu32, v, roce_rnr_timer_usec(v));
			break;
		case ROCE_AETH_NAK:
			sb_printf(s, ",\"nak_code\":%u", v);
			if (roce_nak_code_name(v))
				sb_printf(s, ",\"nak\":\"%s\"", roce_nak_code_name(v));
			break;
		default:
			break;
		}
		sb_puts(s, "}");
	}
	if (h->hdrs & ROCE_HDR_ATOMICACKETH)
		sb_printf(s, ",\"atomicacketh\":{\"orig\":%" PRIu64 "}", h->atomicacketh.orig);
	if (h->hdrs & ROCE_HDR_IMMDT)
		sb_key_u(s, ",\"immdt\":", h->immdt);
	if (h->hdrs & ROCE_HDR_IETH)
		sb_printf(s, ",\"ieth\":%" PRIu32, h->ieth);
}

static void put_roce(struct sb *s, const struct roce_pkt *p)
{
	const struct roce_bth *b = &p->h.bth;

	sb_key_u(s, ",\"roce\":{\"version\":", p->version);
	if (p->trunc_layer)
		sb_printf(s, ",\"truncated\":\"%s\"", roce_layer_name(p->trunc_layer));
	if (p->invalid_layer)
		sb_printf(s, ",\"invalid\":\"%s\"", roce_layer_name(p->invalid_layer));
	if (!p->op) {
		sb_puts(s, "}");
		return;
	}
	const char *name = p->op->name ? p->op->name : "RESERVED";
	sb_key_u(s, ",\"opcode\":", b->opcode);
	sb_key_str(s, ",\"opcode_name\":", name);
	sb_key_str(s, ",\"transport\":", roce_transport_name((enum roce_transport)p->op->transport));
	const struct { const char *key; uint32_t value; } bth[] = {
		{",\"se\":", b->se}, {",\"m\":", b->m}, {",\"padcnt\":", b->padcnt}, {",\"tver\":", b->tver},
		{",\"pkey\":", b->pkey}, {",\"fecn\":", b->fecn}, {",\"becn\":", b->becn},
		{",\"resv6\":", b->resv6}, {",\"dqpn\":", b->dqpn}, {",\"ackreq\":", b->ackreq},
		{",\"resv7\":", b->resv7}, {",\"psn\":", b->psn},
	};
	for (size_t i = 0; i < sizeof(bth) / sizeof(bth[0]); i++)
		sb_key_u(s, bth[i].key, bth[i].value);
	if (p->trunc_layer != ROCE_LAYER_EXT)
		put_ext(s, &p->h);
	if (p->icrc_off) {
		sb_key_u(s, ",\"payload_len\":", p->payload_len);
		sb_key_str(s, ",\"icrc\":{\"status\":", roce_icrc_status_name(p->icrc_status));
		if (p->icrc_status == ROCE_ICRC_GOOD || p->icrc_status == ROCE_ICRC_BAD) {
			sb_key_u(s, ",\"value\":", p->icrc_wire);
			sb_key_u(s, ",\"computed\":", p->icrc_computed);
		}
		else if (p->icrc_status == ROCE_ICRC_UNCHECKED && p->icrc_wire)
			sb_printf(s, ",\"value\":%" PRIu32, p->icrc_wire);
		sb_puts(s, "}");
	}
	sb_puts(s, "}");
}

void print_json(struct sb *s, const struct print_opts *o, uint64_t frame_no, const struct frame *f,
		const struct roce_pkt *p, const struct roce_findings *fi)
{
	(void)o;
	sb_key_u(s, "{\"frame\":", frame_no);
	if (f->ts_sec >= 0) {
		sb_key_u(s, ",\"ts\":", (uint64_t)f->ts_sec);
		sb_puts(s, ".");
		sb_putu0(s, f->ts_nsec, 9);
	} else {  /* before 1970: the seconds as -tt prints them */
		char ts[FMT_TIME_MAX];
		fmt_time(ts, TS_EPOCH, true, f->ts_sec, f->ts_nsec, NULL);
		sb_puts(s, ",\"ts\":");
		sb_puts(s, ts);
	}
	sb_key_u(s, ",\"caplen\":", f->caplen);
	sb_key_u(s, ",\"len\":", f->wirelen);
	put_link(s, f, p);
	if (p->wrap.kind)
		put_wrap(s, f, p);
	put_net(s, f, p);
	if (p->version)
		put_roce(s, p);
	sb_puts(s, ",\"events\":[");
	const char *sep = "";
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		if (roce_evset_has(&p->events, (enum roce_event)e)) {
			sb_key_str(s, sep, roce_event_name((enum roce_event)e));
			sep = ",";
		}
	}
	sb_puts(s, "]");
	if (fi && fi->n) {
		char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];  /* the stream's addresses: the frame's */
		fmt_net_addrs(p, f->data, src, dst);
		sb_puts(s, ",\"findings\":[");
		for (unsigned i = 0; i < fi->n; i++) {
			const struct roce_finding *x = &fi->f[i];
			sb_printf(s, "%s{\"event\":\"%s\",\"stream\":%" PRIu32 ",\"pair\":%" PRIu32, i ? "," : "",
				  roce_event_name((enum roce_event)x->event), fi->stream, fi->pair);
			if (src[0])
				sb_printf(s, ",\"src\":\"%s\",\"dst\":\"%s\"", src, dst);
			sb_key_u(s, ",\"qpn\":", x->qpn);
			if (x->has_psn)
				sb_printf(s, x->msn ? ",\"expected_msn\":%" PRIu32 ",\"seen_msn\":%" PRIu32
						    : ",\"expected_psn\":%" PRIu32 ",\"seen_psn\":%" PRIu32,
					  x->expected_psn, x->seen_psn);
			if (x->delta_ns >= 0)
				sb_printf(s, ",\"delta_ns\":%lld", (long long)x->delta_ns);
			if (x->ref_frame)
				sb_key_u(s, ",\"ref_frame\":", x->ref_frame);
			sb_puts(s, "}");
		}
		sb_puts(s, "]");
	}
	sb_puts(s, "}\n");
}
