/* test_decode.c: the frame decoder (analyzer/core/decode.c). For each kind of frame — RoCEv2 over
 * IPv4 for every opcode, IPv6 with extension headers, RoCEv1 GRH, 802.1Q/QinQ, Linux SLL/SLL2, raw
 * IP, ERSPAN I/II/III, GRE TEB, VXLAN, CNP — the frame is built with the builder, decoded, every
 * field checked, and then decoded again at every truncation point. Then bad lengths, invalid
 * fields, checksums, bad ICRCs, Ethernet padding and port classification, each with its exact
 * event from include/roce/events.def and its severity. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "copies.h"
#include "stream_hash.h"
#include "unit_util.h"

/* ---- what the builder was asked for, checked field by field against the decode ---- */

static uint32_t link_len_of(const struct roce_build *b)
{
	switch (b->linktype) {
	case 0:
	case ROCE_LINK_ETHERNET: return 14 + 4 * b->n_vlan;
	case ROCE_LINK_SLL: return 16;
	case ROCE_LINK_SLL2: return 20;
	default: return 0;
	}
}

/* The decode p of frame f (len n) holds exactly the packet b describes, its link layer starting
 * at base (0, or the inner frame's offset inside a wrapper). */
static void check_roce(const struct roce_build *b, const uint8_t *f, uint32_t n, uint32_t base,
		       const struct roce_pkt *p)
{
	unsigned lt = b->linktype ? b->linktype : ROCE_LINK_ETHERNET;
	unsigned version = b->version ? b->version : 2;
	unsigned ipv = version == 1 ? 6 : (b->ip_version ? b->ip_version : 4);
	uint32_t net_off = base + link_len_of(b);
	uint32_t net_hlen = version == 1 ? 40 : ipv == 4 ? 20 + b->ip_options_len : 40 + b->ip_options_len;
	uint32_t udp_off = net_off + net_hlen;
	uint32_t bth_off = version == 2 ? udp_off + 8 : net_off + 40;
	struct roce_hdrs h = b->h;
	const struct roce_opcode_info *op = roce_opcode_info(h.bth.opcode);
	char ctx[96];

	snprintf(ctx, sizeof(ctx), "v%u/ip%u opcode 0x%02x payload %u", version, ipv, h.bth.opcode, b->payload_len);
	if (!(b->flags & ROCE_BUILD_HDRS_AS_GIVEN))
		h.hdrs = op->hdrs;
	if (!(b->flags & ROCE_BUILD_PADCNT_AS_GIVEN))
		h.bth.padcnt = (uint8_t)((4 - b->payload_len % 4) % 4);
	uint32_t pad = (b->flags & ROCE_BUILD_NO_PAD_BYTES) ? 0 : h.bth.padcnt;
	uint32_t payload_off = bth_off + 12 + roce_hdrs_len(h.hdrs);
	uint32_t icrc_off = payload_off + b->payload_len + pad;

	cr_assert_eq(p->caplen, n, "%s", ctx);
	cr_assert_eq(p->version, version, "%s", ctx);
	cr_assert_eq(p->trunc_layer, 0, "%s: truncated at %s", ctx, roce_layer_name((enum roce_layer)p->trunc_layer));
	cr_assert_eq(p->invalid_layer, 0, "%s: invalid at %s {%s}", ctx,
		     roce_layer_name((enum roce_layer)p->invalid_layer), u_events_str(p));

	/* link */
	if (base == 0)
		cr_assert_eq(p->linktype, lt, "%s", ctx);
	if (lt == ROCE_LINK_ETHERNET) {
		cr_assert_eq(p->eth_off, (int16_t)base, "%s", ctx);
		cr_assert_eq(p->n_vlan, b->n_vlan, "%s", ctx);
		for (unsigned i = 0; i < b->n_vlan; i++) {
			cr_assert_eq(p->vlan[i].tpid, b->vlan[i].tpid ? b->vlan[i].tpid : 0x8100, "%s tag %u", ctx, i);
			cr_assert_eq(p->vlan[i].pcp, b->vlan[i].pcp, "%s tag %u", ctx, i);
			cr_assert_eq(p->vlan[i].dei, b->vlan[i].dei, "%s tag %u", ctx, i);
			cr_assert_eq(p->vlan[i].vid, b->vlan[i].vid, "%s tag %u", ctx, i);
		}
		cr_assert_arr_eq(f + base, b->eth_dst, 6);
		cr_assert_arr_eq(f + base + 6, b->eth_src, 6);
	} else {
		cr_assert_eq(p->eth_off, -1, "%s", ctx);
		cr_assert_eq(p->n_vlan, 0, "%s", ctx);
	}
	if (lt == ROCE_LINK_SLL || lt == ROCE_LINK_SLL2)
		cr_assert_eq(p->sll_pkttype, b->sll_pkttype, "%s", ctx);
	if (lt != ROCE_LINK_RAW)
		cr_assert_eq(p->ethertype, version == 1 ? 0x8915 : ipv == 4 ? 0x0800 : 0x86dd, "%s", ctx);

	/* network */
	const struct roce_net *net = &p->net;
	cr_assert_eq(net->kind, version == 1 ? ROCE_NET_GRH : ipv == 4 ? ROCE_NET_IPV4 : ROCE_NET_IPV6, "%s", ctx);
	cr_assert_eq(net->off, net_off, "%s", ctx);
	cr_assert_eq(net->hdr_len, net_hlen, "%s", ctx);
	cr_assert_eq(net->addr_len, ipv == 4 ? 4 : 16, "%s", ctx);
	cr_assert_eq(net->addr_off, net_off + (ipv == 4 ? 12 : 8), "%s", ctx);
	cr_assert_arr_eq(f + net->addr_off, b->src, net->addr_len, "%s: source address", ctx);
	cr_assert_arr_eq(f + net->addr_off + net->addr_len, b->dst, net->addr_len, "%s: destination", ctx);
	cr_assert_eq(net->tclass, b->tclass, "%s", ctx);
	cr_assert_eq(net->ttl, b->ttl ? b->ttl : 64, "%s", ctx);
	cr_assert_eq(net->proto, version == 1 ? 0x1b : 17, "%s", ctx);
	cr_assert_eq(net->total_len, (version == 1 ? 40 : net_hlen + 8) + (icrc_off + 4 - bth_off), "%s", ctx);
	if (ipv == 4 && version == 2) {
		cr_assert_eq(net->ip_id, b->ip_id, "%s", ctx);
		cr_assert_eq(net->frag, b->dont_fragment ? 0x4000 : 0, "%s", ctx);
		cr_assert_eq(net->ip_csum, ROCE_CSUM_GOOD, "%s", ctx);
	} else {
		cr_assert_eq(net->flow_label, b->flow_label, "%s", ctx);
		cr_assert_eq(net->ip_csum, ROCE_CSUM_ABSENT, "%s", ctx);
	}

	/* UDP */
	if (version == 2) {
		cr_assert_eq(p->udp.off, udp_off, "%s", ctx);
		cr_assert_eq(p->udp.sport, b->udp_sport, "%s", ctx);
		cr_assert_eq(p->udp.dport, b->udp_dport ? b->udp_dport : 4791, "%s", ctx);
		cr_assert_eq(p->udp.len, 8 + icrc_off + 4 - bth_off, "%s", ctx);
		cr_assert_eq(p->udp.csum_status, b->udp_checksum ? ROCE_CSUM_GOOD : ROCE_CSUM_ABSENT, "%s", ctx);
		if (!b->udp_checksum)
			cr_assert_eq(p->udp.csum, 0, "%s", ctx);
		cr_assert_eq(p->l4_sport, b->udp_sport, "%s", ctx);
	}

	/* transport */
	cr_assert_eq(p->bth_off, bth_off, "%s", ctx);
	cr_assert_eq(p->op, op, "%s", ctx);
	u_assert_hdrs_eq(&h, &p->h, ctx);
	cr_assert_eq(p->roce_len, icrc_off + 4 - bth_off, "%s", ctx);
	cr_assert_eq(p->payload_off, payload_off, "%s", ctx);
	cr_assert_eq(p->payload_len, b->payload_len, "%s", ctx);
	if (b->payload_len)
		cr_assert_arr_eq(f + p->payload_off, b->payload, b->payload_len, "%s: payload bytes", ctx);
	cr_assert_eq(p->icrc_off, icrc_off, "%s", ctx);
	cr_assert_eq(p->icrc_status, ROCE_ICRC_GOOD, "%s", ctx);
	cr_assert_eq(p->icrc_computed, p->icrc_wire, "%s", ctx);
	uint32_t wire = (uint32_t)f[icrc_off] | (uint32_t)f[icrc_off + 1] << 8 | (uint32_t)f[icrc_off + 2] << 16 |
			(uint32_t)f[icrc_off + 3] << 24;
	cr_assert_eq(p->icrc_wire, wire, "%s", ctx);
}

/* Build, decode, check every field and the events; then the truncation sweep (both kinds). */
static void roundtrip(const struct roce_build *b, bool sweep)
{
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	unsigned lt = b->linktype ? b->linktype : ROCE_LINK_ETHERNET;
	uint32_t n = u_build(b, f);

	cr_assert_eq(u_decode(f, n, lt, &p), 1);
	check_roce(b, f, n, 0, &p);
	const struct roce_opcode_info *op = roce_opcode_info(b->h.bth.opcode);
	bool atomic_len = op->op == ROCE_OP_ATOMIC_WRITE && b->payload_len != 8;
	bool ce = (b->tclass & 3) == 3;
	if (b->h.bth.opcode == 0x80)
		EXPECT_EVENTS(&p, "cnp.opcode_ib");
	else if (atomic_len)
		EXPECT_EVENTS(&p, "atomic.length_invalid");
	else if (ce)
		EXPECT_EVENTS(&p, "ecn.ce");
	else
		EXPECT_NO_EVENTS(&p);
	if (sweep) {
		struct u_layout lay;
		u_layout_from_pkt(&lay, &p, true);
		cr_assert_eq(lay.end, n);
		u_sweep_truncation(f, n, lt, &lay, false);
		u_sweep_truncation(f, n, lt, &lay, true);
	}
}

static void flow(struct roce_build *b, uint8_t opcode, uint32_t payload_len)
{
	u_base(b);
	u_fill_hdrs(&b->h, opcode, opcode);
	b->payload = u_payload();
	b->payload_len = (roce_opcode_info(opcode)->flags & ROCE_OPF_PAYLOAD) ? payload_len : 0;
}

/* ---- every kind of frame ---- */

Test(decode, v2_ipv4_every_opcode_class)
{
	for (unsigned o = 0; o < 0xc0; o++) {
		if (!(roce_opcode_info((uint8_t)o)->flags & ROCE_OPF_VALID))
			continue;
		struct roce_build b;
		flow(&b, (uint8_t)o, o == 0x1d ? 8 : 5 + o % 7);
		roundtrip(&b, true);
	}
}

Test(decode, v2_ipv4_known_field_bytes)
{
	/* the decoder's numbers against bytes read straight from the frame */
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	flow(&b, 0x0b, 10);   /* RC WRITE_ONLY_IMM: RETH + ImmDt, PadCnt 2 */
	uint32_t n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(u_be16(f + 12), 0x0800, "EtherType");
	cr_assert_eq(f[14], 0x45, "IPv4, IHL 5");
	cr_assert_eq(u_be16(f + 16), p.net.total_len, "IPv4 total length");
	cr_assert_eq(f[14 + 9], 17, "protocol UDP");
	cr_assert_eq(u_be16(f + 34 + 2), 4791, "UDP destination port");
	cr_assert_eq(f[42], 0x0b, "BTH opcode");
	cr_assert_eq(f[43] & 0x30, 0x20, "PadCnt 2");
	cr_assert_eq((uint32_t)f[42 + 9] << 16 | (uint32_t)f[42 + 10] << 8 | f[42 + 11], p.h.bth.psn, "PSN");
	cr_assert_eq(p.payload_off, 42 + 12 + 16 + 4);
	cr_assert_eq(p.icrc_off, n - 4);
	cr_assert_eq(p.payload_len, 10);
}

Test(decode, v2_ipv6_plain_and_extension_headers)
{
	static const uint8_t ext[] = {
		60, 0, 1, 4, 0, 0, 0, 0,                                /* Hop-by-Hop (8): PadN, next DstOpts */
		43, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,       /* Destination Options (16), next Routing */
		44, 0, 0, 0, 0, 0, 0, 0,                                /* Routing (8): type 0, segments left 0 */
		17, 0, 0, 0, 0x12, 0x34, 0x56, 0x78,                    /* Fragment (8): offset 0, M 0 (atomic) */
	};
	struct roce_build b;

	flow(&b, 0x04, 13);
	u_set_v6(&b);
	b.ip_version = 6;
	b.tclass = 0xb9;   /* DSCP 46, ECT(1) */
	roundtrip(&b, true);

	flow(&b, 0x64, 9);  /* UD SEND_ONLY */
	u_set_v6(&b);
	b.ip_version = 6;
	b.ip_options = ext;
	b.ip_options_len = sizeof(ext);
	b.ip6_first_ext = 0;
	roundtrip(&b, true);
}

Test(decode, v1_grh)
{
	struct roce_build b;

	for (unsigned o = 0; o < 0xc0; o += 1) {
		if (!(roce_opcode_info((uint8_t)o)->flags & ROCE_OPF_VALID) || o % 3)
			continue;
		flow(&b, (uint8_t)o, 11);
		u_set_v6(&b);
		b.version = 1;
		b.tclass = 0x60;
		b.flow_label = 0xfffff;
		b.ttl = 1;
		roundtrip(&b, true);
	}
}

Test(decode, vlan_8021q_qinq_88a8_9100)
{
	static const uint16_t tpids[][3] = {
		{0x8100, 0, 0},            /* one 802.1Q tag */
		{0x88a8, 0x8100, 0},       /* QinQ: S-tag 0x88a8, C-tag */
		{0x9100, 0x8100, 0},       /* old QinQ 0x9100 */
		{0x88a8, 0x9100, 0x8100},  /* three tags */
	};
	static const unsigned counts[] = {1, 2, 2, 3};
	for (unsigned k = 0; k < 4; k++) {
		for (unsigned v = 1; v <= 2; v++) {
			struct roce_build b;
			flow(&b, 0x0a, 6);
			if (v == 1) {
				u_set_v6(&b);
				b.version = 1;
			}
			b.n_vlan = counts[k];
			for (unsigned i = 0; i < counts[k]; i++) {
				b.vlan[i].tpid = tpids[k][i];
				b.vlan[i].pcp = (uint8_t)(7 - i * 2);   /* PCP: 3 bits */
				b.vlan[i].dei = (uint8_t)(i & 1);       /* DEI */
				b.vlan[i].vid = (uint16_t)(i == 0 ? 4095 : 100 + i);  /* VID: 12 bits, 4095 max */
			}
			roundtrip(&b, true);
		}
	}
}

Test(decode, sll_sll2_raw)
{
	static const unsigned lts[] = {ROCE_LINK_SLL, ROCE_LINK_SLL2, ROCE_LINK_RAW};
	for (unsigned k = 0; k < 3; k++) {
		for (unsigned ipv = 4; ipv <= 6; ipv += 2) {
			struct roce_build b;
			flow(&b, 0x06, 20);
			b.linktype = lts[k];
			b.sll_pkttype = 4;   /* outgoing */
			if (ipv == 6) {
				u_set_v6(&b);
				b.ip_version = 6;
			}
			roundtrip(&b, true);
		}
	}
	/* SLL with RoCEv1 (EtherType 0x8915 in the protocol field) */
	struct roce_build b;
	flow(&b, 0x11, 0);
	u_set_v6(&b);
	b.version = 1;
	b.linktype = ROCE_LINK_SLL;
	roundtrip(&b, true);
}

Test(decode, linktype_ipv4_ipv6)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	flow(&b, 0x04, 4);
	b.linktype = ROCE_LINK_RAW;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_IPV4, &p), 1);   /* LINKTYPE_IPV4 228 */
	cr_assert_eq(p.net.kind, ROCE_NET_IPV4);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	u_set_v6(&b);
	b.ip_version = 6;
	n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_IPV6, &p), 1);   /* LINKTYPE_IPV6 229 */
	cr_assert_eq(p.net.kind, ROCE_NET_IPV6);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
}

Test(decode, cnp)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	flow(&b, 0x81, 0);
	b.tclass = 0xc2;
	roundtrip(&b, true);
	uint32_t n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.h.hdrs, ROCE_HDR_CNP_PAD);
	cr_assert_eq(p.payload_off, p.icrc_off, "nothing after the 16 reserved bytes");
	cr_assert_eq(p.payload_len, 0);
	cr_assert_eq(n, 14 + 20 + 8 + 12 + 16 + 4);

	/* BECN clear */
	b.h.bth.becn = 0;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "cnp.becn_clear");
	u_expect_event_sev(&p, "cnp.becn_clear", ROCE_SEV_WARN);

	/* the InfiniBand CNP opcode on Ethernet */
	flow(&b, 0x80, 0);
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "cnp.opcode_ib");
	u_expect_event_sev(&p, "cnp.opcode_ib", ROCE_SEV_WARN);

	/* reserved bytes not zero: 16 payload bytes in place of the reserved ones (ICRC still good) */
	static const uint8_t resv[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	flow(&b, 0x81, 0);
	b.flags = ROCE_BUILD_HDRS_AS_GIVEN;
	b.h.hdrs = 0;
	b.payload = resv;
	b.payload_len = 16;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	EXPECT_EVENTS(&p, "cnp.reserved_nonzero");
	u_expect_event_sev(&p, "cnp.reserved_nonzero", ROCE_SEV_WARN);

	/* bytes after the reserved ones */
	b.flags = ROCE_BUILD_HDRS_AS_GIVEN;
	b.h.hdrs = ROCE_HDR_CNP_PAD;
	b.payload = u_payload();
	b.payload_len = 4;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "payload.unexpected");
}

/* ---- wrappers ---- */

struct wrapped {
	uint8_t f[FRAME_CAP];
	uint32_t n, inner_off, inner_len;
	struct roce_build inner;
	struct roce_build_wrap w;
};

static void make_wrapped(struct wrapped *x, unsigned kind, unsigned outer_ipv, unsigned inner_version)
{
	uint8_t inner[FRAME_CAP];

	flow(&x->inner, 0x0a, 33);
	if (inner_version == 1) {
		u_set_v6(&x->inner);
		x->inner.version = 1;
	}
	x->inner.n_vlan = 1;
	x->inner.vlan[0].vid = 42;
	x->inner_len = u_build(&x->inner, inner);

	memset(&x->w, 0, sizeof(x->w));
	x->w.kind = kind;
	x->w.ip_version = outer_ipv;
	memset(x->w.eth_dst, 0x0e, 6);
	memset(x->w.eth_src, 0x0a, 6);
	if (outer_ipv == 6) {
		x->w.src[0] = x->w.dst[0] = 0x20;
		x->w.src[15] = 0x11;
		x->w.dst[15] = 0x22;
	} else {
		x->w.src[0] = 192, x->w.src[3] = 1;
		x->w.dst[0] = 192, x->w.dst[3] = 2;
	}
	struct roce_wrap *w = &x->w.w;
	w->has_key = true;
	w->gre_key = 0xfeedf00d;
	w->has_seq = true;
	w->gre_seq = 0x01020304;
	w->session_id = 0x3ff;         /* 10 bits, max */
	w->vlan = 0xabc;               /* 12 bits */
	w->cos = 5;
	w->en_bso = 3;
	w->index = 0xfffff;            /* 20 bits, max */
	w->timestamp = 0xdeadbeef;
	w->sgt = 0x1234;
	w->pdu_frame = 1;
	w->ft = 0x1f;
	w->hwid = 0x2a;
	w->direction = 1;
	w->gra = 2;
	w->has_platform = 0;
	w->vni = 0xabcdef;
	w->udp_sport = 54321;
	int r = roce_build_wrap(&x->w, inner, x->inner_len, x->f, sizeof(x->f));
	cr_assert_gt(r, 0, "roce_build_wrap: %d", r);
	x->n = (uint32_t)r;
	x->inner_off = x->n - x->inner_len;
}

static uint32_t gre_hlen_of(unsigned kind, const struct roce_wrap *w)
{
	switch (kind) {
	case ROCE_WRAP_GRE: return 4 + (w->has_key ? 4 : 0) + (w->has_seq ? 4 : 0);
	case ROCE_WRAP_ERSPAN1: return 4;
	default: return 4 + (w->has_key ? 4 : 0) + 4;
	}
}

static void check_wrapped(struct wrapped *x, bool sweep)
{
	struct roce_pkt p;
	const struct roce_wrap *want = &x->w.w;
	unsigned kind = x->w.kind, ipv = x->w.ip_version ? x->w.ip_version : 4;
	uint32_t iph = ipv == 4 ? 20 : 40;
	uint32_t l4 = 14 + iph;

	cr_assert_eq(u_decode(x->f, x->n, ROCE_LINK_ETHERNET, &p), 1);
	check_roce(&x->inner, x->f, x->n, x->inner_off, &p);
	EXPECT_NO_EVENTS(&p);
	const struct roce_wrap *w = &p.wrap;
	cr_assert_eq(w->kind, kind, "wrap kind %s", roce_wrap_name((enum roce_wrap_kind)w->kind));
	cr_assert_eq(w->depth, 1);
	cr_assert_eq(w->ip_version, ipv);
	cr_assert_eq(w->ip_off, 14);
	if (kind == ROCE_WRAP_VXLAN) {
		cr_assert_eq(w->vni, want->vni);
		cr_assert_eq(w->udp_sport, want->udp_sport);
		cr_assert_eq(x->inner_off, l4 + 16);
	} else {
		uint32_t gh = gre_hlen_of(kind, want);
		cr_assert_eq(w->gre_proto, kind == ROCE_WRAP_GRE ? 0x6558 : kind == ROCE_WRAP_ERSPAN3 ? 0x22eb : 0x88be);
		cr_assert_eq(w->has_key, kind != ROCE_WRAP_ERSPAN1 && want->has_key);
		cr_assert_eq(w->has_seq, kind != ROCE_WRAP_ERSPAN1 && (kind != ROCE_WRAP_GRE || want->has_seq));
		if (w->has_key)
			cr_assert_eq(w->gre_key, want->gre_key);
		if (w->has_seq)
			cr_assert_eq(w->gre_seq, want->gre_seq);
		uint32_t eh = kind == ROCE_WRAP_ERSPAN2 ? 8 : kind == ROCE_WRAP_ERSPAN3 ? 12 + (want->has_platform ? 8 : 0) : 0;
		cr_assert_eq(x->inner_off, l4 + gh + eh);
		if (kind == ROCE_WRAP_ERSPAN1)
			cr_assert_eq(w->erspan_ver, 0);
		if (kind == ROCE_WRAP_ERSPAN2 || kind == ROCE_WRAP_ERSPAN3) {
			cr_assert_eq(w->erspan_ver, kind == ROCE_WRAP_ERSPAN2 ? 1 : 2);
			cr_assert_eq(w->session_id, want->session_id);
			cr_assert_eq(w->vlan, want->vlan);
			cr_assert_eq(w->cos, want->cos);
			cr_assert_eq(w->en_bso, want->en_bso);
			cr_assert_eq(w->truncated, 0);
		}
		if (kind == ROCE_WRAP_ERSPAN2)
			cr_assert_eq(w->index, want->index);
		if (kind == ROCE_WRAP_ERSPAN3) {
			cr_assert_eq(w->timestamp, want->timestamp);
			cr_assert_eq(w->sgt, want->sgt);
			cr_assert_eq(w->pdu_frame, want->pdu_frame);
			cr_assert_eq(w->ft, want->ft);
			cr_assert_eq(w->hwid, want->hwid);
			cr_assert_eq(w->direction, want->direction);
			cr_assert_eq(w->gra, want->gra);
			cr_assert_eq(w->has_platform, want->has_platform);
		}
	}
	if (!sweep)
		return;
	struct u_layout lay;
	memset(&lay, 0, sizeof(lay));
	u_layout_add(&lay, 0, ROCE_LAYER_LINK);
	u_layout_add(&lay, 14, ipv == 4 ? ROCE_LAYER_IPV4 : ROCE_LAYER_IPV6);
	if (kind == ROCE_WRAP_VXLAN) {
		u_layout_add(&lay, l4, ROCE_LAYER_UDP);
		u_layout_add(&lay, l4 + 8, ROCE_LAYER_VXLAN);
	} else {
		u_layout_add(&lay, l4, ROCE_LAYER_GRE);
		uint32_t gh = gre_hlen_of(kind, want);
		if (kind == ROCE_WRAP_ERSPAN2 || kind == ROCE_WRAP_ERSPAN3) {
			u_layout_add(&lay, l4 + gh, ROCE_LAYER_ERSPAN);
			/* the platform subheader is skipped: a capture ending in it lacks the inner Ethernet */
			if (kind == ROCE_WRAP_ERSPAN3 && want->has_platform)
				u_layout_add(&lay, l4 + gh + 12, ROCE_LAYER_LINK);
		}
	}
	u_layout_from_pkt(&lay, &p, false);
	cr_assert_eq(lay.end, x->n);
	u_sweep_truncation(x->f, x->n, ROCE_LINK_ETHERNET, &lay, false);
	u_sweep_truncation(x->f, x->n, ROCE_LINK_ETHERNET, &lay, true);
}

Test(decode, erspan_1_2_3)
{
	static const unsigned kinds[] = {ROCE_WRAP_ERSPAN1, ROCE_WRAP_ERSPAN2, ROCE_WRAP_ERSPAN3};
	for (unsigned k = 0; k < 3; k++)
		for (unsigned ipv = 4; ipv <= 6; ipv += 2)
			for (unsigned v = 1; v <= 2; v++) {
				struct wrapped x;
				make_wrapped(&x, kinds[k], ipv, v);
				check_wrapped(&x, true);
			}
}

Test(decode, erspan3_platform_subheader)
{
	struct wrapped x;

	make_wrapped(&x, ROCE_WRAP_ERSPAN3, 4, 2);
	x.w.w.has_platform = 1;   /* O bit: 8 more bytes before the frame */
	/* rebuild with the platform subheader */
	uint8_t inner[FRAME_CAP];
	uint32_t il = u_build(&x.inner, inner);
	int r = roce_build_wrap(&x.w, inner, il, x.f, sizeof(x.f));
	cr_assert_gt(r, 0);
	x.n = (uint32_t)r;
	x.inner_off = x.n - il;
	cr_assert_eq(x.inner_off, 14 + 20 + 12 + 12 + 8);
	check_wrapped(&x, true);
}

Test(decode, erspan_key_variants)
{
	/* ERSPAN II and III without a GRE key (sequence only, as Linux sends them) */
	for (unsigned kind = ROCE_WRAP_ERSPAN2; kind <= ROCE_WRAP_ERSPAN3; kind++) {
		struct wrapped x;
		make_wrapped(&x, kind, 4, 2);
		x.w.w.has_key = false;
		uint8_t inner[FRAME_CAP];
		uint32_t il = u_build(&x.inner, inner);
		int r = roce_build_wrap(&x.w, inner, il, x.f, sizeof(x.f));
		cr_assert_gt(r, 0);
		x.n = (uint32_t)r;
		x.inner_off = x.n - il;
		check_wrapped(&x, false);
	}
}

Test(decode, erspan_t_bit_mirror_truncation)
{
	for (unsigned kind = ROCE_WRAP_ERSPAN2; kind <= ROCE_WRAP_ERSPAN3; kind++) {
		struct wrapped x;
		struct roce_pkt p;
		make_wrapped(&x, kind, 4, 2);
		uint8_t inner[FRAME_CAP];
		uint32_t il = u_build(&x.inner, inner);
		x.w.truncate_to = il - 20;   /* the mirror cut the ICRC and 16 payload bytes */
		int r = roce_build_wrap(&x.w, inner, il, x.f, sizeof(x.f));
		cr_assert_gt(r, 0);
		x.n = (uint32_t)r;
		/* caplen == wirelen: the frame is whole, the inner packet is not */
		cr_assert_eq(roce_decode(NULL, x.f, x.n, x.n, ROCE_LINK_ETHERNET, &p), 1);
		cr_assert_eq(p.wrap.truncated, 1, "T bit");
		EXPECT_EVENTS(&p, "erspan.truncated", "truncated");
		u_expect_event_sev(&p, "erspan.truncated", ROCE_SEV_INFO);
		cr_assert_eq(p.trunc_layer, ROCE_LAYER_PAYLOAD);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_UNVERIFIABLE);
		cr_assert_eq(p.version, 2);
		cr_assert_eq(p.h.bth.opcode, 0x0a);
		cr_assert_eq(p.payload_len, 33, "payload length from the inner IP/UDP lengths");
		cr_assert_eq(p.h.reth.rkey, x.inner.h.reth.rkey);
	}
	/* the T bit on a whole frame: only the info event */
	struct wrapped x;
	struct roce_pkt p;
	make_wrapped(&x, ROCE_WRAP_ERSPAN3, 4, 2);
	x.w.w.truncated = 1;
	uint8_t inner[FRAME_CAP];
	uint32_t il = u_build(&x.inner, inner);
	x.n = (uint32_t)roce_build_wrap(&x.w, inner, il, x.f, sizeof(x.f));
	u_decode(x.f, x.n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "erspan.truncated");
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
}

Test(decode, gre_teb_key_seq)
{
	for (unsigned ipv = 4; ipv <= 6; ipv += 2) {
		for (unsigned ks = 0; ks < 4; ks++) {
			struct wrapped x;
			make_wrapped(&x, ROCE_WRAP_GRE, ipv, 2);
			x.w.w.has_key = ks & 1;
			x.w.w.has_seq = (ks >> 1) & 1;
			uint8_t inner[FRAME_CAP];
			uint32_t il = u_build(&x.inner, inner);
			int r = roce_build_wrap(&x.w, inner, il, x.f, sizeof(x.f));
			cr_assert_gt(r, 0);
			x.n = (uint32_t)r;
			x.inner_off = x.n - il;
			check_wrapped(&x, ks == 3);
		}
	}
}

Test(decode, vxlan)
{
	for (unsigned ipv = 4; ipv <= 6; ipv += 2)
		for (unsigned v = 1; v <= 2; v++) {
			struct wrapped x;
			make_wrapped(&x, ROCE_WRAP_VXLAN, ipv, v);
			check_wrapped(&x, true);
		}
}

Test(decode, wrap_unsupported_and_too_deep)
{
	struct wrapped x;
	struct roce_pkt p;

	/* GRE version 1 (PPTP): not decoded */
	make_wrapped(&x, ROCE_WRAP_GRE, 4, 2);
	x.f[34 + 1] |= 0x01;
	cr_assert_eq(u_decode(x.f, x.n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_EVENTS(&p, "gre.unsupported");
	u_expect_event_sev(&p, "gre.unsupported", ROCE_SEV_INFO);
	cr_assert_eq(p.wrap.kind, ROCE_WRAP_GRE);

	/* GRE protocol type not Ethernet, IP or ERSPAN */
	make_wrapped(&x, ROCE_WRAP_GRE, 4, 2);
	u_put_be16(x.f + 34 + 2, 0x880b);
	cr_assert_eq(u_decode(x.f, x.n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_EVENTS(&p, "gre.unsupported");

	/* ERSPAN II header claiming version 2 (III) */
	make_wrapped(&x, ROCE_WRAP_ERSPAN2, 4, 2);
	x.f[34 + 12] = (uint8_t)((x.f[34 + 12] & 0x0f) | 0x20);
	cr_assert_eq(u_decode(x.f, x.n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_EVENTS(&p, "erspan.version_unknown");
	u_expect_event_sev(&p, "erspan.version_unknown", ROCE_SEV_WARN);

	/* GRE in GRE in ... six deep, VXLAN likewise, and the two alternating */
	static const enum roce_wrap_kind nests[3][2] = {
		{ROCE_WRAP_GRE, ROCE_WRAP_GRE}, {ROCE_WRAP_VXLAN, ROCE_WRAP_VXLAN}, {ROCE_WRAP_GRE, ROCE_WRAP_VXLAN},
	};
	for (unsigned k = 0; k < 3; k++) {
		uint8_t a[FRAME_CAP], bb[FRAME_CAP];
		struct roce_build b;
		flow(&b, 0x04, 8);
		uint32_t n = u_build(&b, a);
		for (unsigned d = 1; d <= 6; d++) {
			struct roce_build_wrap w;
			memset(&w, 0, sizeof(w));
			w.kind = nests[k][d % 2];
			w.w.gre_key = w.w.vni = d;  /* the outermost is the d-th wrapped */
			w.w.has_key = true;
			int r = roce_build_wrap(&w, a, n, bb, sizeof(bb));
			cr_assert_gt(r, 0);
			n = (uint32_t)r;
			memcpy(a, bb, n);
			int ret = u_decode(a, n, ROCE_LINK_ETHERNET, &p);
			cr_assert_eq(p.wrap.depth, d <= 4 ? d : 5, "nest %u depth %u: %u", k, d, p.wrap.depth);
			cr_assert_eq(p.wrap.kind, nests[k][d % 2], "nest %u depth %u: the outermost wrapper", k, d);
			if (w.kind == ROCE_WRAP_GRE)
				cr_assert_eq(p.wrap.gre_key, d, "nest %u depth %u: the outermost wrapper's key", k, d);
			else
				cr_assert_eq(p.wrap.vni, d, "nest %u depth %u: the outermost wrapper's VNI", k, d);
			if (d <= 4) {
				cr_assert_eq(ret, 1, "nest %u depth %u decodes", k, d);
				EXPECT_NO_EVENTS(&p);
				cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
			} else {
				cr_assert_eq(ret, 0, "nest %u depth %u", k, d);
				EXPECT_EVENTS(&p, "wrap.too_deep");
				u_expect_event_sev(&p, "wrap.too_deep", ROCE_SEV_WARN);
			}
		}
	}
}

Test(decode, gre_ip_inside)
{
	/* plain GRE carrying IPv4 (protocol 0x0800) rather than Ethernet */
	struct wrapped x;
	struct roce_pkt p;
	uint8_t f[FRAME_CAP];

	make_wrapped(&x, ROCE_WRAP_GRE, 4, 2);
	x.w.w.has_key = x.w.w.has_seq = false;
	struct roce_build b;
	flow(&b, 0x04, 12);
	b.linktype = ROCE_LINK_RAW;
	uint8_t inner[FRAME_CAP];
	uint32_t il = u_build(&b, inner);
	/* wrap a dummy Ethernet header, then drop it and patch the protocol type */
	uint8_t eth_inner[FRAME_CAP];
	memset(eth_inner, 0, 14);
	memcpy(eth_inner + 14, inner, il);
	uint32_t n = (uint32_t)roce_build_wrap(&x.w, eth_inner, il + 14, f, sizeof(f));
	memmove(f + 38, f + 38 + 14, il);
	n -= 14;
	u_put_be16(f + 36, 0x0800);
	u_put_be16(f + 16, (uint16_t)(n - 14));
	u_ip4_fix_csum(f + 14, 20);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_NO_EVENTS(&p);
	cr_assert_eq(p.net.off, 38);
	cr_assert_eq(p.eth_off, 0, "no inner Ethernet header");
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	cr_assert_eq(p.wrap.kind, ROCE_WRAP_GRE);
}

/* ---- mirror truncation without a wrapper: caplen == wirelen, IP length past the frame ---- */

Test(decode, mirror_truncation_ip_length_past_frame)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	flow(&b, 0x0a, 64);
	uint32_t n = u_build(&b, f);
	uint32_t cut = n - 30;
	cr_assert_eq(roce_decode(NULL, f, cut, cut, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "truncated");
	cr_assert_eq(p.trunc_layer, ROCE_LAYER_PAYLOAD);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_UNVERIFIABLE);
	cr_assert_eq(p.net.total_len, n - 14, "the IP length says more than the frame holds");
	cr_assert_eq(p.payload_len, 64);
	cr_assert_eq(p.icrc_off, n - 4, "the ICRC's place lies past the frame");

	/* a UDP checksum over missing bytes is unverifiable, not bad */
	b.udp_checksum = true;
	n = u_build(&b, f);
	roce_decode(NULL, f, n - 1, n - 1, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.udp.csum_status, ROCE_CSUM_UNVERIFIABLE);
	EXPECT_EVENTS(&p, "truncated");
	cr_assert_eq(p.trunc_layer, ROCE_LAYER_ICRC);
}

/* ---- bad lengths ---- */

static uint32_t build_v4(struct roce_build *b, uint8_t *f, uint8_t opcode, uint32_t payload_len)
{
	flow(b, opcode, payload_len);
	return u_build(b, f);
}

Test(decode, ip_total_length_below_header)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	static const uint16_t lens[] = {0, 1, 19};
	for (unsigned k = 0; k < 3; k++) {
		uint32_t n = build_v4(&b, f, 0x04, 16);
		u_put_be16(f + 14 + 2, lens[k]);   /* IPv4 total length < IHL*4 */
		u_ip4_fix_csum(f + 14, 20);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0);
		EXPECT_EVENTS(&p, "ip.length_invalid");
		u_expect_event_sev(&p, "ip.length_invalid", ROCE_SEV_ERROR);
		cr_assert_eq(p.invalid_layer, ROCE_LAYER_IPV4);
	}
}

Test(decode, ip_total_length_below_udp_header)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	/* IPv4 total length holds the IP header but not the 8-byte UDP header: the UDP header's
	 * bytes are there but lie outside the IP packet */
	for (uint16_t tl = 20; tl < 28; tl++) {
		uint32_t n = build_v4(&b, f, 0x04, 16);
		u_put_be16(f + 14 + 2, tl);
		u_ip4_fix_csum(f + 14, 20);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0, "total length %u", tl);
		EXPECT_EVENTS(&p, "udp.length_mismatch");
		u_expect_event_sev(&p, "udp.length_mismatch", ROCE_SEV_ERROR);
		cr_assert_eq(p.invalid_layer, ROCE_LAYER_UDP);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_UNCHECKED);
		cr_assert_null(p.op);
	}
	/* the same for the IPv6 payload length */
	for (uint16_t pl = 0; pl < 8; pl++) {
		flow(&b, 0x04, 16);
		u_set_v6(&b);
		b.ip_version = 6;
		uint32_t n = u_build(&b, f);
		u_put_be16(f + 14 + 4, pl);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0, "payload length %u", pl);
		EXPECT_EVENTS(&p, "udp.length_mismatch");
		cr_assert_eq(p.icrc_status, ROCE_ICRC_UNCHECKED);
	}
	/* one byte more than the UDP header: a RoCE packet too short for its BTH */
	uint32_t n = build_v4(&b, f, 0x04, 16);
	u_put_be16(f + 14 + 2, 20 + 8 + 1);
	u_ip4_fix_csum(f + 14, 20);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "udp.length_mismatch", "packet.too_short");
	cr_assert_eq(p.roce_len, 1);
	cr_assert_neq(p.icrc_status, ROCE_ICRC_GOOD);
	cr_assert_neq(p.icrc_status, ROCE_ICRC_BAD);
}

Test(decode, ip_header_invalid)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	uint32_t n = build_v4(&b, f, 0x04, 4);
	f[14] = 0x44;   /* IHL 4 (16 bytes) */
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_EVENTS(&p, "ip.header_invalid");
	u_expect_event_sev(&p, "ip.header_invalid", ROCE_SEV_ERROR);

	n = build_v4(&b, f, 0x04, 4);
	f[14] = 0x55;   /* version 5 behind EtherType IPv4 */
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_EVENTS(&p, "ip.header_invalid");

	n = build_v4(&b, f, 0x04, 4);   /* raw IP with version 7 */
	cr_assert_eq(u_decode(f + 14, n - 14, ROCE_LINK_RAW, &p), 1);
	f[14] = 0x75;
	cr_assert_eq(u_decode(f + 14, n - 14, ROCE_LINK_RAW, &p), 0);
	EXPECT_EVENTS(&p, "ip.header_invalid");
}

Test(decode, ipv4_options_decode)
{
	static const uint8_t opts[12] = {0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00};
	struct roce_build b;

	flow(&b, 0x05, 7);
	b.ip_options = opts;
	b.ip_options_len = sizeof(opts);
	roundtrip(&b, true);
}

Test(decode, udp_length_mismatch)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	/* UDP length larger than the IP payload: the IP length wins, the ICRC is still found */
	uint32_t n = build_v4(&b, f, 0x04, 16);
	u_put_be16(f + 34 + 4, (uint16_t)(u_be16(f + 34 + 4) + 4));
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "udp.length_mismatch", "icrc.bad");  /* UDP length is covered by the ICRC */
	u_expect_event_sev(&p, "udp.length_mismatch", ROCE_SEV_ERROR);
	cr_assert_eq(p.invalid_layer, ROCE_LAYER_UDP);
	cr_assert_eq(p.icrc_off, n - 4);

	/* UDP length smaller than the IP payload: the RoCE packet ends where UDP says */
	n = build_v4(&b, f, 0x04, 16);
	u_put_be16(f + 34 + 4, (uint16_t)(u_be16(f + 34 + 4) - 4));
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert(u_has(&p, "udp.length_mismatch"));
	cr_assert_eq(p.roce_len, n - 42 - 4);

	/* UDP length below its own header */
	for (uint16_t ul = 0; ul < 8; ul++) {
		n = build_v4(&b, f, 0x04, 16);
		u_put_be16(f + 34 + 4, ul);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		cr_assert(u_has(&p, "udp.length_mismatch"), "UDP length %u", ul);
		cr_assert_eq(p.icrc_off, n - 4);
	}

	/* not RoCE: no length complaint for other ports */
	n = build_v4(&b, f, 0x04, 16);
	u_put_be16(f + 34 + 2, 5000);
	u_put_be16(f + 34 + 4, 3);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_NO_EVENTS(&p);
}

Test(decode, grh_paylen)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	/* PayLen below BTH + ICRC */
	for (uint16_t pl = 0; pl < 16; pl++) {
		flow(&b, 0x04, 8);
		u_set_v6(&b);
		b.version = 1;
		uint32_t n = u_build(&b, f);
		u_put_be16(f + 14 + 4, pl);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
		cr_assert_eq(p.version, 1);
		EXPECT_EVENTS(&p, "grh.paylen_invalid");
		u_expect_event_sev(&p, "grh.paylen_invalid", ROCE_SEV_ERROR);
		cr_assert_eq(p.invalid_layer, ROCE_LAYER_GRH);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_UNCHECKED);
	}
	/* PayLen holds a BTH and ICRC but not the RETH of WRITE_ONLY */
	flow(&b, 0x0a, 8);
	u_set_v6(&b);
	b.version = 1;
	uint32_t n = u_build(&b, f);
	u_put_be16(f + 14 + 4, 16);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "packet.too_short");
	cr_assert_eq(p.invalid_layer, ROCE_LAYER_EXT);
	cr_assert_neq(p.icrc_status, ROCE_ICRC_GOOD);

	/* IPVer not 6, NxtHdr not 0x1B (both covered by the ICRC) */
	flow(&b, 0x04, 8);
	u_set_v6(&b);
	b.version = 1;
	n = u_build(&b, f);
	f[14] = (uint8_t)((f[14] & 0x0f) | 0x40);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "grh.ipver_invalid", "icrc.bad");
	cr_assert_eq(p.invalid_layer, ROCE_LAYER_GRH);
	n = u_build(&b, f);
	f[14 + 6] = 17;
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "grh.nxthdr_invalid", "icrc.bad");
	u_expect_event_sev(&p, "grh.nxthdr_invalid", ROCE_SEV_ERROR);
}

Test(decode, packet_shorter_than_opcode_headers)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	/* WRITE_ONLY needs BTH + RETH + ICRC = 32 bytes; this one has 16 */
	flow(&b, 0x0a, 0);
	b.flags = ROCE_BUILD_HDRS_AS_GIVEN;
	b.h.hdrs = 0;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "packet.too_short");
	u_expect_event_sev(&p, "packet.too_short", ROCE_SEV_ERROR);
	cr_assert_eq(p.invalid_layer, ROCE_LAYER_EXT);
	cr_assert_eq(p.roce_len, 16);
	cr_assert_eq(p.h.bth.opcode, 0x0a);

	/* every opcode with extended headers, one byte short of them */
	for (unsigned o = 0; o < 0xc0; o++) {
		const struct roce_opcode_info *op = roce_opcode_info((uint8_t)o);
		if (!(op->flags & ROCE_OPF_VALID) || op->hdrs == 0)
			continue;
		flow(&b, (uint8_t)o, 0);
		b.flags = ROCE_BUILD_HDRS_AS_GIVEN;
		b.h.hdrs = 0;
		b.payload = u_payload();
		b.payload_len = roce_hdrs_len(op->hdrs) - 1;
		b.flags |= ROCE_BUILD_PADCNT_AS_GIVEN;
		b.h.bth.padcnt = 0;
		n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		cr_assert(u_has(&p, "packet.too_short"), "0x%02x: {%s}", o, u_events_str(&p));
		cr_assert_eq(p.invalid_layer, ROCE_LAYER_EXT, "0x%02x", o);
	}

	/* a RoCE packet shorter than BTH + ICRC (UDP and IP lengths agree) */
	n = build_v4(&b, f, 0x04, 0);
	u_put_be16(f + 34 + 4, 8 + 12);
	u_put_be16(f + 14 + 2, 20 + 8 + 12);
	u_ip4_fix_csum(f + 14, 20);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "packet.too_short");
	cr_assert_eq(p.invalid_layer, ROCE_LAYER_BTH);
	cr_assert_eq(p.h.bth.opcode, 0x04, "the BTH that is there is read");
	cr_assert_eq(p.icrc_status, ROCE_ICRC_UNCHECKED);
}

Test(decode, padcnt_larger_than_payload)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (uint32_t len = 0; len < 3; len++) {
		flow(&b, 0x04, len);
		b.flags = ROCE_BUILD_PADCNT_AS_GIVEN | ROCE_BUILD_NO_PAD_BYTES;
		b.h.bth.padcnt = 3;   /* 3 pad bytes claimed, only len bytes there */
		uint32_t n = u_build(&b, f);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
		EXPECT_EVENTS(&p, "pad.invalid");
		u_expect_event_sev(&p, "pad.invalid", ROCE_SEV_ERROR);
		cr_assert_eq(p.invalid_layer, ROCE_LAYER_PAYLOAD);
		cr_assert_eq(p.payload_len, len);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	}
	/* PadCnt equal to the bytes there: fine, payload 0 */
	flow(&b, 0x04, 3);
	b.flags = ROCE_BUILD_PADCNT_AS_GIVEN | ROCE_BUILD_NO_PAD_BYTES;
	b.h.bth.padcnt = 3;
	uint32_t n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_NO_EVENTS(&p);
	cr_assert_eq(p.payload_len, 0);
}

Test(decode, payload_after_ack_and_no_payload_opcodes)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (unsigned o = 0; o < 0xc0; o++) {
		const struct roce_opcode_info *op = roce_opcode_info((uint8_t)o);
		if (!(op->flags & ROCE_OPF_VALID) || (op->flags & ROCE_OPF_PAYLOAD))
			continue;
		flow(&b, (uint8_t)o, 0);
		b.payload = u_payload();
		b.payload_len = 4;   /* 4 bytes where none may be */
		uint32_t n = u_build(&b, f);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
		const char *extra = o == 0x80 ? "cnp.opcode_ib" : NULL;
		if (extra)
			EXPECT_EVENTS(&p, "payload.unexpected", extra);
		else
			EXPECT_EVENTS(&p, "payload.unexpected");
		u_expect_event_sev(&p, "payload.unexpected", ROCE_SEV_ERROR);
		cr_assert_eq(p.payload_len, 4, "0x%02x", o);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);

		/* PadCnt on an opcode without a payload (no pad bytes) */
		flow(&b, (uint8_t)o, 0);
		b.flags = ROCE_BUILD_PADCNT_AS_GIVEN | ROCE_BUILD_NO_PAD_BYTES;
		b.h.bth.padcnt = 1;
		n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		cr_assert(u_has(&p, "pad.invalid"), "0x%02x", o);
		cr_assert_not(u_has(&p, "payload.unexpected"));

		/* PadCnt with its pad byte: both */
		b.flags = ROCE_BUILD_PADCNT_AS_GIVEN;
		n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		cr_assert(u_has(&p, "pad.invalid") && u_has(&p, "payload.unexpected"), "0x%02x", o);
	}
}

Test(decode, aeth_syndromes)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (unsigned syn = 0; syn < 256; syn++) {
		/* 000 ACK, 001 RNR NAK: all values; 011 NAK: codes 0-4; 010 and 1xx reserved */
		unsigned kind = syn >> 5;
		bool reserved = kind == 2 || kind >= 4 || (kind == 3 && (syn & 0x1f) > 4);
		for (unsigned k = 0; k < 2; k++) {
			uint8_t opcode = k ? 0x10 : 0x11;   /* READ_RESPONSE_ONLY, ACKNOWLEDGE */
			flow(&b, opcode, 4);
			b.h.aeth.syndrome = (uint8_t)syn;
			uint32_t n = u_build(&b, f);
			cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
			cr_assert_eq(p.h.aeth.syndrome, syn);
			if (reserved) {
				EXPECT_EVENTS(&p, "aeth.syndrome_reserved");
				u_expect_event_sev(&p, "aeth.syndrome_reserved", ROCE_SEV_ERROR);
				cr_assert_eq(p.invalid_layer, ROCE_LAYER_EXT);
			} else {
				EXPECT_NO_EVENTS(&p);
			}
		}
	}
}

Test(decode, tver_nonzero)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (uint8_t tver = 1; tver < 16; tver++) {
		flow(&b, 0x04, 8);
		b.h.bth.tver = tver;
		uint32_t n = u_build(&b, f);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
		EXPECT_EVENTS(&p, "bth.tver_nonzero");
		u_expect_event_sev(&p, "bth.tver_nonzero", ROCE_SEV_ERROR);
		cr_assert_eq(p.invalid_layer, ROCE_LAYER_BTH);
		cr_assert_eq(p.h.bth.tver, tver);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	}
}

Test(decode, reserved_and_vendor_opcodes)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (unsigned o = 0; o < 256; o++) {
		const struct roce_opcode_info *op = roce_opcode_info((uint8_t)o);
		if (op->flags & ROCE_OPF_VALID)
			continue;
		for (uint32_t len = 0; len <= 20; len += 20) {
			flow(&b, (uint8_t)o, 0);
			b.payload = u_payload();
			b.payload_len = len;   /* bytes after the BTH: not decoded, no complaint about them */
			uint32_t n = u_build(&b, f);
			cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
			cr_assert_eq(p.h.bth.opcode, o);
			cr_assert_eq(p.h.hdrs, 0);
			cr_assert_eq(p.payload_off, p.bth_off + 12u);
			cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "0x%02x", o);
			if (o >= 0xc0) {
				EXPECT_EVENTS(&p, "bth.opcode_vendor");
				u_expect_event_sev(&p, "bth.opcode_vendor", ROCE_SEV_INFO);
				cr_assert_eq(p.invalid_layer, 0);
			} else {
				EXPECT_EVENTS(&p, "bth.opcode_reserved");
				u_expect_event_sev(&p, "bth.opcode_reserved", ROCE_SEV_ERROR);
				cr_assert_eq(p.invalid_layer, ROCE_LAYER_BTH);
				cr_assert_null(p.op->name);
			}
		}
	}
}

Test(decode, pkey)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	static const struct { uint16_t pkey; bool bad; } cases[] = {
		{0x0000, true}, {0x8000, true},  /* the invalid P_Key, limited and full membership */
		{0x0001, false}, {0x7fff, false}, {0x8001, false}, {0xffff, false},
	};

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		flow(&b, 0x04, 4);
		b.h.bth.pkey = cases[k].pkey;
		uint32_t n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		cr_assert_eq(p.h.bth.pkey, cases[k].pkey);
		if (cases[k].bad) {
			EXPECT_EVENTS(&p, "bth.pkey_invalid");
			u_expect_event_sev(&p, "bth.pkey_invalid", ROCE_SEV_ERROR);
			cr_assert_eq(p.invalid_layer, ROCE_LAYER_BTH);
		} else {
			EXPECT_NO_EVENTS(&p);
		}
	}
}

Test(decode, bth_reserved_fields)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	flow(&b, 0x04, 4);
	b.h.bth.resv6 = 1;
	uint32_t n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "bth.reserved_nonzero");
	u_expect_event_sev(&p, "bth.reserved_nonzero", ROCE_SEV_WARN);
	flow(&b, 0x04, 4);
	b.h.bth.resv7 = 0x40;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "bth.reserved_nonzero");
	flow(&b, 0x44, 4);   /* RD SEND_ONLY: RDETH's reserved byte */
	b.h.rdeth.resv = 0x80;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_EVENTS(&p, "bth.reserved_nonzero");
	/* FECN/BECN on an ordinary packet: no event */
	flow(&b, 0x04, 4);
	b.h.bth.fecn = b.h.bth.becn = 1;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_NO_EVENTS(&p);
}

Test(decode, atomic_write_length)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (uint32_t len = 0; len <= 16; len++) {
		flow(&b, 0x1d, len);
		uint32_t n = u_build(&b, f);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
		cr_assert_eq(p.payload_len, len);
		if (len == 8) {
			EXPECT_NO_EVENTS(&p);
		} else {
			EXPECT_EVENTS(&p, "atomic.length_invalid");
			u_expect_event_sev(&p, "atomic.length_invalid", ROCE_SEV_ERROR);
			cr_assert_eq(p.invalid_layer, ROCE_LAYER_PAYLOAD);
		}
	}
}

Test(decode, ipv4_checksum)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_decoder_config cfg = {.flags = ROCE_DECODE_NO_CSUM};

	flow(&b, 0x04, 4);
	b.flags = ROCE_BUILD_BAD_IP_CSUM;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "ip.checksum_bad");
	u_expect_event_sev(&p, "ip.checksum_bad", ROCE_SEV_ERROR);
	cr_assert_eq(p.net.ip_csum, ROCE_CSUM_BAD);
	cr_assert_eq(p.invalid_layer, ROCE_LAYER_IPV4);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "the checksum is masked out of the ICRC");

	roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p);
	EXPECT_NO_EVENTS(&p);
	cr_assert_eq(p.net.ip_csum, ROCE_CSUM_UNVERIFIABLE);

	/* with options, the options are summed too */
	static const uint8_t opts[4] = {0x01, 0x01, 0x01, 0x00};
	flow(&b, 0x04, 4);
	b.ip_options = opts;
	b.ip_options_len = 4;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.net.ip_csum, ROCE_CSUM_GOOD);
	f[14 + 21] ^= 0x01;
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.net.ip_csum, ROCE_CSUM_BAD);
	cr_assert(u_has(&p, "ip.checksum_bad"));
}

Test(decode, udp_checksum)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_decoder_config cfg = {.flags = ROCE_DECODE_NO_CSUM};

	for (unsigned ipv = 4; ipv <= 6; ipv += 2) {
		/* good */
		flow(&b, 0x0a, 13);
		if (ipv == 6) {
			u_set_v6(&b);
			b.ip_version = 6;
		}
		b.udp_checksum = true;
		uint32_t n = u_build(&b, f);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
		EXPECT_NO_EVENTS(&p);
		cr_assert_eq(p.udp.csum_status, ROCE_CSUM_GOOD, "IPv%u", ipv);
		cr_assert_neq(p.udp.csum, 0);
		/* a payload byte changed: checksum and ICRC both bad */
		f[p.payload_off] ^= 0x10;
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		EXPECT_EVENTS(&p, "udp.checksum_bad", "icrc.bad");
		/* bad (non-zero) */
		b.udp_checksum = false;
		b.flags = ROCE_BUILD_BAD_UDP_CSUM;
		n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		EXPECT_EVENTS(&p, "udp.checksum_bad");
		u_expect_event_sev(&p, "udp.checksum_bad", ROCE_SEV_ERROR);
		cr_assert_eq(p.udp.csum_status, ROCE_CSUM_BAD);
		cr_assert_eq(p.invalid_layer, ROCE_LAYER_UDP);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "the UDP checksum is masked out of the ICRC");
		roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p);
		EXPECT_NO_EVENTS(&p);
		cr_assert_eq(p.udp.csum_status, ROCE_CSUM_UNVERIFIABLE);
		/* zero: absent, as RoCE NICs send it */
		b.flags = 0;
		n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		cr_assert_eq(p.udp.csum, 0);
		cr_assert_eq(p.udp.csum_status, ROCE_CSUM_ABSENT);
	}
}

static uint32_t build_v6_ext(struct roce_build *b, uint8_t *f, const uint8_t *ext, unsigned len, uint8_t first)
{
	flow(b, 0x04, 8);
	u_set_v6(b);
	b->ip_version = 6;
	b->ip_options = ext;
	b->ip_options_len = len;
	b->ip6_first_ext = first;
	return u_build(b, f);
}

Test(decode, ipv6_extension_chain)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	uint8_t ext[128];
	struct roce_pkt p;

	/* 8 Destination Options headers: the most the decoder walks */
	for (unsigned count = 1; count <= 9; count++) {
		memset(ext, 0, sizeof(ext));
		for (size_t i = 0; i < count; i++) {
			ext[i * 8] = i + 1 < count ? 60 : 17;   /* next header */
			ext[i * 8 + 1] = 0;                     /* length: 8 bytes */
			ext[i * 8 + 2] = 1;                     /* PadN */
			ext[i * 8 + 3] = 4;
		}
		uint32_t n = build_v6_ext(&b, f, ext, count * 8, 60);
		int r = u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		if (count <= 8) {
			cr_assert_eq(r, 1, "%u headers", count);
			EXPECT_NO_EVENTS(&p);
			cr_assert_eq(p.net.hdr_len, 40 + count * 8);
			cr_assert_eq(p.net.proto, 17);
			cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
		} else {
			cr_assert_eq(r, 0);
			EXPECT_EVENTS(&p, "ipv6.ext_invalid");
			u_expect_event_sev(&p, "ipv6.ext_invalid", ROCE_SEV_ERROR);
			cr_assert_eq(p.invalid_layer, ROCE_LAYER_IPV6);
		}
	}

	/* an extension header longer than the IPv6 payload */
	memset(ext, 0, sizeof(ext));
	ext[0] = 17;
	ext[1] = 0xff;   /* (255 + 1) * 8 bytes */
	uint32_t n = build_v6_ext(&b, f, ext, 8, 0);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_EVENTS(&p, "ipv6.ext_invalid");

	/* truncated chain: payload length ends inside the first extension header */
	ext[1] = 0;
	n = build_v6_ext(&b, f, ext, 8, 43);
	u_put_be16(f + 14 + 4, 4);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0);
	EXPECT_EVENTS(&p, "ipv6.ext_invalid");
}

Test(decode, ipv6_extension_truncation)
{
	/* a 24-byte Destination Options header: a capture ending inside it stops in IPv6 */
	static uint8_t ext[24] = {17, 2, 1, 20};
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	uint32_t n = build_v6_ext(&b, f, ext, sizeof(ext), 60);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	struct u_layout lay;
	u_layout_from_pkt(&lay, &p, true);
	u_sweep_truncation(f, n, ROCE_LINK_ETHERNET, &lay, false);
}

Test(decode, fragments)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	static const uint16_t frag[] = {0x2000, 0x0001, 0x2010, 0x1fff};   /* MF; offset 8; both; max offset */

	for (unsigned k = 0; k < 4; k++) {
		uint32_t n = build_v4(&b, f, 0x04, 8);
		u_put_be16(f + 14 + 6, frag[k]);
		u_ip4_fix_csum(f + 14, 20);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0, "frag 0x%04x", frag[k]);
		EXPECT_EVENTS(&p, "ip.fragment");
		u_expect_event_sev(&p, "ip.fragment", ROCE_SEV_WARN);
	}
	/* DF alone is not a fragment */
	uint32_t n = build_v4(&b, f, 0x04, 8);
	cr_assert_eq(u_be16(f + 14 + 6), 0x4000);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);

	/* IPv6 Fragment header with M or an offset */
	static const uint16_t frag6[] = {0x0001, 0x0008, 0x0009, 0xfff8};
	for (unsigned k = 0; k < 4; k++) {
		uint8_t ext[8] = {17, 0, 0, 0, 0, 0, 0, 7};
		u_put_be16(ext + 2, frag6[k]);
		n = build_v6_ext(&b, f, ext, 8, 44);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0, "frag6 0x%04x", frag6[k]);
		EXPECT_EVENTS(&p, "ip.fragment");
	}
	/* an atomic fragment (offset 0, M 0, reserved bits set) is a whole packet */
	uint8_t ext[8] = {17, 0, 0, 0x06, 0, 0, 0, 7};
	n = build_v6_ext(&b, f, ext, 8, 44);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_NO_EVENTS(&p);
}

Test(decode, ecn_ce)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (unsigned v = 0; v < 3; v++) {
		flow(&b, 0x04, 4);
		if (v) {
			u_set_v6(&b);
			if (v == 1)
				b.ip_version = 6;
			else
				b.version = 1;
		}
		b.tclass = 0x1b;   /* DSCP 6, ECN CE */
		uint32_t n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		EXPECT_EVENTS(&p, "ecn.ce");
		u_expect_event_sev(&p, "ecn.ce", ROCE_SEV_INFO);
		cr_assert_eq(roce_ecn(&p.net), 3);
		cr_assert_eq(roce_dscp(&p.net), 6);
	}
}

Test(decode, vlan_too_many)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP], g[FRAME_CAP];
	struct roce_pkt p;

	flow(&b, 0x04, 4);
	b.n_vlan = 3;
	for (unsigned i = 0; i < 3; i++)
		b.vlan[i].vid = (uint16_t)(10 + i);
	uint32_t n = u_build(&b, f);
	/* a fourth tag (0x8100, VID 13) after the third */
	memcpy(g, f, 24);
	g[24] = 0x81, g[25] = 0x00, g[26] = 0x00, g[27] = 13;
	memcpy(g + 28, f + 24, n - 24);
	cr_assert_eq(u_decode(g, n + 4, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "vlan.too_many");
	u_expect_event_sev(&p, "vlan.too_many", ROCE_SEV_WARN);
	cr_assert_eq(p.n_vlan, 3);
	cr_assert_eq(p.vlan[2].vid, 12);
	cr_assert_eq(p.net.off, 14 + 16);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
}

Test(decode, link_unsupported_and_not_roce)
{
	uint8_t f[64] = {0};
	struct roce_pkt p;

	cr_assert_eq(roce_decode(NULL, f, sizeof(f), sizeof(f), 12345, &p), 0);
	EXPECT_EVENTS(&p, "link.unsupported");
	u_expect_event_sev(&p, "link.unsupported", ROCE_SEV_INFO);

	/* ARP */
	f[12] = 0x08, f[13] = 0x06;
	cr_assert_eq(u_decode(f, 42, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert_eq(p.net.kind, ROCE_NET_ARP);
	EXPECT_NO_EVENTS(&p);

	/* some other EtherType */
	f[12] = 0x88, f[13] = 0xcc;
	cr_assert_eq(u_decode(f, 60, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert_eq(p.net.kind, ROCE_NET_OTHER);
	cr_assert_eq(p.net.ethertype, 0x88cc);

	/* TCP */
	struct roce_build b;
	uint8_t g[FRAME_CAP];
	uint32_t n = build_v4(&b, g, 0x04, 8);
	g[14 + 9] = 6;
	u_ip4_fix_csum(g + 14, 20);
	cr_assert_eq(u_decode(g, n, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert_eq(p.l4_sport, 0xc123);
	cr_assert_eq(p.l4_dport, 4791);
	EXPECT_NO_EVENTS(&p);
}

/* ---- bad CRC ---- */

/* Flip every bit from the network header to the end of the ICRC. Masked bytes keep the ICRC good;
 * fields that steer the parse (version, lengths, protocol, port, fragment bits) must never leave
 * it good; every other bit gives exactly icrc.bad on the ICRC. */
static void flip_all_bits(const struct roce_build *b)
{
	uint8_t f0[FRAME_CAP], f[FRAME_CAP];
	struct roce_pkt p0, p;
	uint32_t n = u_build(b, f0);

	u_decode(f0, n, ROCE_LINK_ETHERNET, &p0);
	cr_assert_eq(p0.icrc_status, ROCE_ICRC_GOOD);
	uint32_t net = p0.net.off, udp = p0.udp.off, bth = p0.bth_off;
	for (uint32_t at = net; at < n; at++) {
		bool masked, steer;
		if (p0.net.kind == ROCE_NET_IPV4) {
			uint32_t r = at - net;
			masked = r == 1 || r == 8 || r == 10 || r == 11;
			steer = r == 0 || r == 2 || r == 3 || r == 6 || r == 7 || r == 9;
		} else {
			uint32_t r = at - net;
			masked = r == 1 || r == 2 || r == 3 || r == 7;   /* TClass/flow label, hop limit */
			steer = r == 0 || r == 4 || r == 5 || (p0.version == 2 && r == 6);
		}
		if (p0.version == 2 && at >= udp && at < udp + 8) {
			uint32_t r = at - udp;
			masked = r == 6 || r == 7;
			steer = r == 2 || r == 3 || r == 4 || r == 5;
		}
		if (at >= bth) {
			masked = at == bth + 4;
			steer = false;
		}
		for (unsigned bit = 0; bit < 8; bit++) {
			uint8_t mask = (uint8_t)(1u << bit);
			memcpy(f, f0, n);
			f[at] ^= mask;
			u_decode(f, n, ROCE_LINK_ETHERNET, &p);
			if (p0.net.kind != ROCE_NET_IPV4 && at == net && !(mask & 0xf0)) {
				cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "byte %u bit %u: traffic class is masked", at, bit);
				continue;
			}
			if (masked) {
				cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "byte %u bit %u is masked", at, bit);
			} else if (steer) {
				cr_assert_neq(p.icrc_status, ROCE_ICRC_GOOD, "byte %u bit %u", at, bit);
			} else {
				cr_assert_eq(p.icrc_status, ROCE_ICRC_BAD, "byte %u (off %u in the BTH) bit %u: %s {%s}", at,
					     at - bth, bit, roce_icrc_status_name((enum roce_icrc_status)p.icrc_status),
					     u_events_str(&p));
				cr_assert(u_has(&p, "icrc.bad"));
			}
		}
	}
}

Test(decode, flipped_bit_anywhere_covered_v2_ipv4)
{
	struct roce_build b;
	flow(&b, 0x0a, 64);   /* a payload long enough for any opcode's headers */
	flip_all_bits(&b);
}

Test(decode, flipped_bit_anywhere_covered_v2_ipv6)
{
	struct roce_build b;
	flow(&b, 0x0a, 64);
	u_set_v6(&b);
	b.ip_version = 6;
	flip_all_bits(&b);
}

Test(decode, flipped_bit_anywhere_covered_v1)
{
	struct roce_build b;
	flow(&b, 0x0a, 64);
	u_set_v6(&b);
	b.version = 1;
	flip_all_bits(&b);
}

Test(decode, icrc_bad_from_builder_every_shape)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	for (unsigned v = 0; v < 3; v++) {
		flow(&b, 0x11, 0);
		if (v) {
			u_set_v6(&b);
			if (v == 1)
				b.ip_version = 6;
			else
				b.version = 1;
		}
		b.icrc = ROCE_BUILD_ICRC_BAD;
		uint32_t n = u_build(&b, f);
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		EXPECT_EVENTS(&p, "icrc.bad");
		u_expect_event_sev(&p, "icrc.bad", ROCE_SEV_ERROR);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_BAD);
		cr_assert_eq(p.icrc_wire, ~p.icrc_computed);
	}
}

Test(decode, ethernet_padding_min_frame)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	/* 58-byte packets: padded to 60 on the wire */
	static const uint8_t ops[] = {0x04, 0x01, 0x24, 0x02};
	for (unsigned k = 0; k < sizeof(ops); k++) {
		flow(&b, ops[k], 0);
		b.flags = ROCE_BUILD_ETH_MIN_FRAME;
		uint32_t n = u_build(&b, f);
		cr_assert_eq(n, 60);
		cr_assert_eq(f[58], 0);
		cr_assert_eq(f[59], 0);
		cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
		check_roce(&b, f, n, 0, &p);
		EXPECT_NO_EVENTS(&p);
		cr_assert_eq(p.icrc_off, 54, "the ICRC is found from the IP length, not the frame end");
		/* padding bytes that are not zero change nothing */
		f[58] = 0xee, f[59] = 0xff;
		u_decode(f, n, ROCE_LINK_ETHERNET, &p);
		EXPECT_NO_EVENTS(&p);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
		/* a capture that ends inside the padding has the whole packet */
		roce_decode(NULL, f, 58, 60, ROCE_LINK_ETHERNET, &p);
		EXPECT_NO_EVENTS(&p);
		cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
		struct u_layout lay;
		u_layout_from_pkt(&lay, &p, true);
		cr_assert_eq(lay.end, 58);
		u_sweep_truncation(f, n, ROCE_LINK_ETHERNET, &lay, false);
	}
	/* a frame already 60 bytes or more is not padded */
	flow(&b, 0x11, 0);
	b.flags = ROCE_BUILD_ETH_MIN_FRAME;
	cr_assert_eq(u_build(&b, f), 62);
	/* one tag: 62 bytes, no padding either */
	flow(&b, 0x04, 0);
	b.flags = ROCE_BUILD_ETH_MIN_FRAME;
	b.n_vlan = 1;
	cr_assert_eq(u_build(&b, f), 62);
}

/* ---- UDP port classification ---- */

Test(decode, classified_by_destination_port_only)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	/* source port 69 (TFTP) to 4791: RoCE */
	flow(&b, 0x04, 8);
	b.udp_sport = 69;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	cr_assert_eq(p.version, 2);
	EXPECT_NO_EVENTS(&p);

	/* source port 4791 to another port: not RoCE */
	flow(&b, 0x04, 8);
	b.udp_sport = 4791;
	b.udp_dport = 33333;
	n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert_eq(p.version, 0);
	cr_assert_null(p.op);
	cr_assert_eq(p.l4_sport, 4791);
	cr_assert_eq(p.l4_dport, 33333);
	EXPECT_NO_EVENTS(&p);

	/* 4791 to 4791 */
	b.udp_dport = 4791;
	n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
}

Test(decode, extra_ports_custom)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_decoder_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.extra_ports[0] = 1000;
	cfg.extra_ports[1] = 4792;
	cfg.n_extra_ports = 2;

	flow(&b, 0x04, 8);
	b.udp_dport = 4792;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 0, "not RoCE without --roce-port");
	cr_assert_eq(roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_EVENTS(&p, "udp.port_custom");
	u_expect_event_sev(&p, "udp.port_custom", ROCE_SEV_INFO);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	cr_assert_eq(p.udp.dport, 4792);

	/* 4791 stays RoCE, without the event */
	b.udp_dport = 0;
	n = u_build(&b, f);
	cr_assert_eq(roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p), 1);
	EXPECT_NO_EVENTS(&p);

	/* a custom port as the source only: not RoCE */
	b.udp_sport = 1000;
	b.udp_dport = 2000;
	n = u_build(&b, f);
	cr_assert_eq(roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p), 0);

	/* n_extra_ports larger than the array is bounded */
	cfg.n_extra_ports = 1000;
	b.udp_dport = 1000;
	n = u_build(&b, f);
	cr_assert_eq(roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p), 1);
}

Test(decode, worst_severity)
{
	struct roce_pkt p;
	memset(&p, 0, sizeof(p));
	cr_assert_eq(roce_pkt_worst_severity(&p), -1);
	roce_evset_add(&p.events, ROCE_EV_ECN_CE);
	cr_assert_eq(roce_pkt_worst_severity(&p), ROCE_SEV_INFO);
	roce_evset_add(&p.events, ROCE_EV_TRUNCATED);  /* a cut by the capture is a note, not a warning */
	cr_assert_eq(roce_pkt_worst_severity(&p), ROCE_SEV_INFO);
	roce_evset_add(&p.events, ROCE_EV_ERSPAN_VERSION);
	cr_assert_eq(roce_pkt_worst_severity(&p), ROCE_SEV_WARN);
	roce_evset_add(&p.events, ROCE_EV_ICRC_BAD);
	cr_assert_eq(roce_pkt_worst_severity(&p), ROCE_SEV_ERROR);
}

Test(decode, huge_caplen_is_clamped)
{
	/* offsets are 16-bit: a caplen above 65535 is not a RoCE frame, but must not confuse */
	static uint8_t big[70000];
	struct roce_build b;
	struct roce_pkt p;
	flow(&b, 0x04, 8);
	uint32_t n = u_build(&b, big);
	cr_assert_eq(roce_decode(NULL, big, sizeof(big), sizeof(big), ROCE_LINK_ETHERNET, &p), 1);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	cr_assert_eq(p.icrc_off, n - 4);
	cr_assert_eq(p.caplen, sizeof(big));
}

/* ROCE_DECODE_COPY_KEY and ROCE_DECODE_STREAM_HASH: the decoder fills copy_hint with the content
 * key copy detection looks up (copies.h) and stream_hint with the hash the analyzer finds the
 * frame's stream by (stream_hash.h, HINT_HASH set), each under its own flag, on the fast path and
 * the general walk alike, for a frame the transport analysis sees; neither without its flag or
 * for a frame the analysis does not see. */
Test(decode, analysis_keys_on_request)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	const unsigned keys[3] = {ROCE_DECODE_COPY_KEY, ROCE_DECODE_STREAM_HASH,
				  ROCE_DECODE_COPY_KEY | ROCE_DECODE_STREAM_HASH};

	flow(&b, 0x04, 32);  /* RC SEND_ONLY */
	uint32_t n = u_build(&b, f);
	for (unsigned k = 0; k < 6; k++) {
		unsigned flags = keys[k % 3] | (k >= 3 ? ROCE_DECODE_NO_FAST_PATH : 0);
		struct roce_decoder_config cfg = {.flags = flags};
		cr_assert_eq(roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p), 1);
		const uint8_t *addrs = f + p.net.addr_off;
		uint64_t copy = copy_content_key(&p, f), stream = HINT_HASH | stream_hash_raw(addrs, addrs + 4, 4, p.h.bth.dqpn);
		cr_assert_neq(copy, 0);
		cr_assert_eq(p.copy_hint, flags & ROCE_DECODE_COPY_KEY ? copy : 0, "flags 0x%x: content key", flags);
		cr_assert_eq(p.stream_hint, flags & ROCE_DECODE_STREAM_HASH ? stream : 0, "flags 0x%x: stream hash", flags);
	}
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert(p.copy_hint == 0 && p.stream_hint == 0, "no flag, no key");

	struct roce_decoder_config cfg = {.flags = ROCE_DECODE_COPY_KEY | ROCE_DECODE_STREAM_HASH};
	f[12] = 0x86, f[13] = 0xdd;  /* not IPv4 any more: not RoCE, nothing to analyse */
	roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p);
	cr_assert(p.copy_hint == 0 && p.stream_hint == 0, "a frame the analysis does not see has no keys");
}
