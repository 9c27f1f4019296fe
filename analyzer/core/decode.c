/* decode.c: the frame walker, from link layer to ICRC (see decode.h).
 *
 * Layers: Ethernet II + 802.1Q/QinQ tags (IEEE 802.1Q), Linux SLL/SLL2, raw IP; GRE (RFC 2784/2890)
 * with ERSPAN I/II/III (Linux include/net/erspan.h) or transparent Ethernet bridging, VXLAN
 * (RFC 7348); IPv4 (RFC 791, options), IPv6 (RFC 8200, extension-header chain); RoCEv1 GRH
 * (IBTA Vol 1 §8.3, Annex A16); RoCEv2 UDP destination port 4791 (Annex A17); then BTH and the
 * extended headers (transport.c) and the ICRC (icrc.c).
 *
 * Lengths: a packet's extent comes from its IP/UDP/GRH length fields, never from the frame length
 * (Ethernet pads short frames; mirrors truncate long ones and keep caplen == len). `lim` is the
 * last captured byte the current layer may use: min(caplen, the enclosing packet's end). A layer
 * that claims bytes past `lim` was truncated; one whose fields contradict each other is invalid. */
#include <stddef.h>
#include <string.h>

#include "bytes.h"
#include "copies.h"
#include "csum.h"
#include "icrc.h"
#include "macc.h"
#include "roce/decode.h"
#include "stream_hash.h"
#include "transport.h"
#include "wire.h"

#define MAX_VLAN_WALK 8
#define MAX_IPV6_EXT 8

struct ctx {
	const struct roce_decoder_config *cfg;
	const uint8_t *frame;
	struct roce_pkt *p;
};

static void ev(struct ctx *c, enum roce_event e)
{
	roce_evset_add(&c->p->events, e);
}

static void truncated(struct ctx *c, enum roce_layer l)
{
	if (!c->p->trunc_layer)
		c->p->trunc_layer = (uint8_t)l;
	ev(c, ROCE_EV_TRUNCATED);
}

static void invalid(struct ctx *c, enum roce_layer l, enum roce_event e)
{
	if (!c->p->invalid_layer)
		c->p->invalid_layer = (uint8_t)l;
	ev(c, e);
}

static struct span span_to(const struct ctx *c, uint32_t lim)
{
	struct span s = {c->frame, lim};
	return s;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}


/* The IPv4 header checksum verifies when the ones'-complement sum of the header is 0xffff. The
 * sum is taken over 32-bit words in host order: a ones'-complement sum is the same in either byte
 * order up to a swap, and 0xffff is its own swap. hlen is a multiple of 4. */
static bool ipv4_csum_ok(const uint8_t *h, uint32_t hlen)
{
	uint64_t sum = 0;
	if (hlen == IP4_HLEN) {  /* the usual header: five words, unrolled */
		uint32_t w[IP4_HLEN / 4];
		memcpy(w, h, IP4_HLEN);
		sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	} else {
		for (uint32_t i = 0; i < hlen; i += 4) {
			uint32_t w;
			memcpy(&w, h + i, 4);
			sum += w;
		}
	}
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	return csum_fold((uint32_t)(sum & 0xffff) + (uint32_t)(sum >> 16)) == 0xffff;
}

static void decode_ethertype(struct ctx *c, uint32_t off, uint32_t lim, uint16_t type);
static void decode_ether(struct ctx *c, uint32_t off, uint32_t lim);
static void decode_ip(struct ctx *c, uint32_t off, uint32_t lim);

/* ---- RoCE: BTH, extended headers, payload, pad, ICRC ---- */

static void check_bth(struct ctx *c, const struct roce_opcode_info *op)
{
	const struct roce_bth *b = &c->p->h.bth;

	if (b->tver)
		invalid(c, ROCE_LAYER_BTH, ROCE_EV_BTH_TVER_NONZERO);
	if (b->resv6 || b->resv7)
		ev(c, ROCE_EV_BTH_RESERVED_NONZERO);
	if ((b->pkey & 0x7fff) == 0)
		invalid(c, ROCE_LAYER_BTH, ROCE_EV_BTH_PKEY_INVALID);
	if (op->flags & ROCE_OPF_VENDOR)
		ev(c, ROCE_EV_BTH_OPCODE_VENDOR);
	else if (!(op->flags & ROCE_OPF_VALID))
		invalid(c, ROCE_LAYER_BTH, ROCE_EV_BTH_OPCODE_RESERVED);
	if (op->op == ROCE_OP_CNP) {
		if (b->opcode == 0x80)
			ev(c, ROCE_EV_CNP_OPCODE_IB);
		if (!b->becn)
			ev(c, ROCE_EV_CNP_BECN_CLEAR);
	}
}

static void check_ext(struct ctx *c, const uint8_t *ext)
{
	struct roce_pkt *p = c->p;

	if (p->h.hdrs & ROCE_HDR_AETH) {
		unsigned kind = roce_aeth_kind(p->h.aeth.syndrome);
		if (kind == ROCE_AETH_RESERVED || kind > ROCE_AETH_NAK ||
		    (kind == ROCE_AETH_NAK && roce_aeth_value(p->h.aeth.syndrome) > ROCE_NAK_INVALID_RD_REQUEST))
			invalid(c, ROCE_LAYER_EXT, ROCE_EV_AETH_SYNDROME_RESERVED);
	}
	if ((p->h.hdrs & ROCE_HDR_RDETH) && p->h.rdeth.resv)
		ev(c, ROCE_EV_BTH_RESERVED_NONZERO);
	if (p->h.hdrs & ROCE_HDR_CNP_PAD) {
		for (uint32_t i = 0; i < ROCE_CNP_PAD_LEN; i++)
			if (ext[i]) {
				ev(c, ROCE_EV_CNP_RESERVED_NONZERO);
				break;
			}
	}
}

/* bth_off: first byte of the BTH; end: one past the ICRC per the enclosing length field. */
static void decode_roce(struct ctx *c, uint32_t bth_off, uint32_t end, uint32_t lim, int version)
{
	struct roce_pkt *p = c->p;
	struct span s = span_to(c, lim);

	p->version = (uint8_t)version;
	p->bth_off = (uint16_t)bth_off;
	p->roce_len = end > bth_off ? end - bth_off : 0;
	const uint8_t *bth = span_at(&s, bth_off, ROCE_BTH_LEN);
	if (p->roce_len < ROCE_BTH_LEN + ROCE_ICRC_LEN) {
		invalid(c, ROCE_LAYER_BTH, ROCE_EV_PACKET_TOO_SHORT);
		if (!bth)
			return;
	} else if (!bth) {
		truncated(c, ROCE_LAYER_BTH);
		p->icrc_status = ROCE_ICRC_UNVERIFIABLE;
		return;
	}
	bth_read(bth, &p->h.bth);
	const struct roce_opcode_info *op = roce_opcode_info(p->h.bth.opcode);
	p->op = op;
	check_bth(c, op);
	if (p->roce_len < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return;
	p->icrc_off = end - ROCE_ICRC_LEN;

	uint32_t ext_off = bth_off + ROCE_BTH_LEN;
	uint32_t ext_len = op->hdrs_len;
	if (ROCE_BTH_LEN + ext_len + ROCE_ICRC_LEN > p->roce_len) {
		invalid(c, ROCE_LAYER_EXT, ROCE_EV_PACKET_TOO_SHORT);
		return;
	}
	p->h.hdrs = op->hdrs;
	const uint8_t *ext = span_at(&s, ext_off, ext_len);
	if (ext) {
		ext_read(ext, &p->h);
		check_ext(c, ext);
	} else {
		truncated(c, ROCE_LAYER_EXT);
	}

	p->payload_off = ext_off + ext_len;
	uint32_t raw = p->icrc_off - p->payload_off;
	unsigned pad = p->h.bth.padcnt;
	if (op->flags & ROCE_OPF_PAYLOAD) {
		if (pad > raw) {
			invalid(c, ROCE_LAYER_PAYLOAD, ROCE_EV_PAD_INVALID);
			p->payload_len = raw;
		} else {
			p->payload_len = raw - pad;
		}
		if (op->op == ROCE_OP_ATOMIC_WRITE && p->payload_len != 8)
			invalid(c, ROCE_LAYER_PAYLOAD, ROCE_EV_ATOMIC_LENGTH);
	} else {
		p->payload_len = raw;
		if ((op->flags & ROCE_OPF_VALID) && raw)
			invalid(c, ROCE_LAYER_PAYLOAD, ROCE_EV_PAYLOAD_UNEXPECTED);
		if ((op->flags & ROCE_OPF_VALID) && pad)
			invalid(c, ROCE_LAYER_PAYLOAD, ROCE_EV_PAD_INVALID);
	}

	const uint8_t *icrc = span_at(&s, p->icrc_off, ROCE_ICRC_LEN);
	if (!icrc) {
		truncated(c, span_has(&s, p->payload_off, raw) ? ROCE_LAYER_ICRC : ROCE_LAYER_PAYLOAD);
		p->icrc_status = ROCE_ICRC_UNVERIFIABLE;
		return;
	}
	p->icrc_wire = ld_le32(icrc);
	if (c->cfg && (c->cfg->flags & ROCE_DECODE_NO_ICRC))
		return;
	p->icrc_computed = icrc_compute(c->frame, p->net.kind, p->net.off, p->net.hdr_len, bth_off, p->icrc_off);
	if (p->icrc_computed == p->icrc_wire) {
		p->icrc_status = ROCE_ICRC_GOOD;
	} else {
		p->icrc_status = ROCE_ICRC_BAD;
		ev(c, ROCE_EV_ICRC_BAD);
	}
}

/* ---- RoCEv1: GRH (IBTA Vol 1 §8.3) ---- */

/* h: IP6_HLEN bytes vouched for by span_at(), at frame offset off */
static void read_ipv6_like(struct ctx *c, const uint8_t *h, uint32_t off)
{
	struct roce_net *n = &c->p->net;
	uint32_t vtf = ld_be32(h + IP6_VTF);

	n->off = (uint16_t)off;
	n->tclass = (uint8_t)(vtf >> 20);
	n->flow_label = vtf & 0xfffff;
	n->ttl = h[IP6_HLIM];
	n->proto = h[IP6_NXT];
	n->addr_off = (uint16_t)(off + IP6_SRC);
	n->addr_len = 16;
	n->total_len = IP6_HLEN + (uint32_t)ld_be16(h + IP6_PLEN);
}

static void decode_grh(struct ctx *c, uint32_t off, uint32_t lim)
{
	struct span s = span_to(c, lim);
	struct roce_net *n = &c->p->net;

	memset(n, 0, sizeof(*n));  /* no values left from an outer (wrapper) IP header */
	n->kind = ROCE_NET_GRH;
	const uint8_t *grh = span_at(&s, off, ROCE_GRH_LEN);
	if (!grh) {
		c->p->version = 1;
		c->p->icrc_status = ROCE_ICRC_UNVERIFIABLE;
		truncated(c, ROCE_LAYER_GRH);
		return;
	}
	read_ipv6_like(c, grh, off);
	n->hdr_len = ROCE_GRH_LEN;
	if (grh[0] >> 4 != 6)
		invalid(c, ROCE_LAYER_GRH, ROCE_EV_GRH_IPVER_INVALID);
	if (n->proto != GRH_NXTHDR_IBA)
		invalid(c, ROCE_LAYER_GRH, ROCE_EV_GRH_NXTHDR_INVALID);
	uint32_t paylen = n->total_len - IP6_HLEN;  /* BTH .. ICRC inclusive */
	if (paylen < ROCE_BTH_LEN + ROCE_ICRC_LEN) {
		c->p->version = 1;
		invalid(c, ROCE_LAYER_GRH, ROCE_EV_GRH_PAYLEN_INVALID);
		return;
	}
	decode_roce(c, off + ROCE_GRH_LEN, off + n->total_len, lim, 1);
}

/* ---- UDP: RoCEv2 and VXLAN ---- */

static bool is_roce_port(const struct ctx *c, uint16_t port, bool *custom)
{
	*custom = false;
	if (port == ROCE_UDP_PORT)
		return true;
	if (!c->cfg)
		return false;
	for (unsigned i = 0; i < c->cfg->n_extra_ports && i < ROCE_MAX_EXTRA_PORTS; i++)
		if (c->cfg->extra_ports[i] == port)
			return *custom = true;
	return false;
}

static void verify_udp_csum(struct ctx *c, const struct span *s, uint32_t off, uint32_t end)
{
	struct roce_pkt *p = c->p;
	struct roce_udp *u = &p->udp;

	if (u->csum == 0 || (c->cfg && (c->cfg->flags & ROCE_DECODE_NO_CSUM))) {
		u->csum_status = u->csum ? ROCE_CSUM_UNVERIFIABLE : ROCE_CSUM_ABSENT;
		return;
	}
	if (!span_has(s, off, end - off)) {
		u->csum_status = ROCE_CSUM_UNVERIFIABLE;
		return;
	}
	uint32_t len = end - off, sum = 0;
	sum = csum_add(sum, c->frame + p->net.addr_off, 2u * p->net.addr_len);
	sum += IPPROTO_UDP_ + (len >> 16) + (len & 0xffff);
	sum = csum_add(sum, c->frame + off, len);
	if (csum_fold(sum) == 0xffff) {
		u->csum_status = ROCE_CSUM_GOOD;
	} else {
		u->csum_status = ROCE_CSUM_BAD;
		invalid(c, ROCE_LAYER_UDP, ROCE_EV_UDP_CHECKSUM_BAD);
	}
}

static bool enter_wrap(struct ctx *c, enum roce_wrap_kind kind);

static void decode_vxlan(struct ctx *c, uint32_t off, uint32_t end, uint32_t lim)
{
	struct span s = span_to(c, lim);
	struct roce_wrap *w = &c->p->wrap;
	uint16_t sport = c->p->udp.sport;

	if (!enter_wrap(c, ROCE_WRAP_VXLAN))
		return;
	if (w->depth == 1)
		w->hdr_off = (uint16_t)off;
	const uint8_t *vx = span_at(&s, off, VXLAN_HLEN);
	if (!vx) {
		truncated(c, ROCE_LAYER_VXLAN);
		return;
	}
	if (w->depth == 1) {
		w->vni = ld_be24(vx + VXLAN_VNI);
		w->udp_sport = sport;
	}
	memset(&c->p->udp, 0, sizeof(c->p->udp));
	decode_ether(c, off + VXLAN_HLEN, min_u32(lim, end));
}

static void decode_udp(struct ctx *c, uint32_t off, uint32_t ip_end, uint32_t lim)
{
	struct span s = span_to(c, lim);
	struct roce_pkt *p = c->p;
	struct roce_udp *u = &p->udp;

	const uint8_t *uh = span_at(&s, off, UDP_HLEN);
	if (!uh) {
		truncated(c, ROCE_LAYER_UDP);
		return;
	}
	u->off = (uint16_t)off;
	u->sport = ld_be16(uh + UDP_SPORT);
	u->dport = ld_be16(uh + UDP_DPORT);
	u->len = ld_be16(uh + UDP_LEN);
	u->csum = ld_be16(uh + UDP_CSUM);
	p->l4_sport = u->sport;
	p->l4_dport = u->dport;
	if (ip_end - off < UDP_HLEN) {  /* the IP length leaves no room for the UDP header */
		invalid(c, ROCE_LAYER_UDP, ROCE_EV_UDP_LENGTH_MISMATCH);
		return;
	}

	bool custom;
	bool roce = is_roce_port(c, u->dport, &custom);
	uint32_t end = off + u->len;
	if (u->len < UDP_HLEN || end != ip_end) {
		if (roce)
			invalid(c, ROCE_LAYER_UDP, ROCE_EV_UDP_LENGTH_MISMATCH);
		if (u->len < UDP_HLEN || end > ip_end)
			end = ip_end;
	}
	if (roce) {
		if (custom)
			ev(c, ROCE_EV_UDP_PORT_CUSTOM);
		verify_udp_csum(c, &s, off, end);
		decode_roce(c, off + UDP_HLEN, end, lim, 2);
	} else if (u->dport == UDP_PORT_VXLAN) {
		decode_vxlan(c, off + UDP_HLEN, end, lim);
	}
}

/* ---- GRE, ERSPAN ---- */

/* One more wrapper (the first is the one reported); false past ROCE_MAX_WRAP of any kinds,
 * where the walk stops. */
static bool enter_wrap(struct ctx *c, enum roce_wrap_kind kind)
{
	struct roce_wrap *w = &c->p->wrap;

	if (w->depth == 0) {
		memset(w, 0, sizeof(*w));
		w->depth = 1;
		w->kind = (uint8_t)kind;
		w->ip_version = c->p->net.kind == ROCE_NET_IPV6 ? 6 : 4;
		w->ip_off = c->p->net.off;
	} else {
		w->depth++;
	}
	if (w->depth > ROCE_MAX_WRAP) {
		ev(c, ROCE_EV_WRAP_TOO_DEEP);
		return false;
	}
	return true;
}

/* e: the ERSPAN header, vouched for by span_at() */
static void read_erspan(struct ctx *c, const uint8_t *e, unsigned ver)
{
	struct roce_wrap *w = &c->p->wrap;
	uint32_t w0 = ld_be32(e + ERSPAN_W0);

	w->erspan_ver = (uint8_t)ver;
	w->vlan = (w0 >> 16) & 0xfff;
	w->cos = (w0 >> 13) & 7;
	w->en_bso = (w0 >> 11) & 3;
	w->truncated = (w0 >> 10) & 1;
	w->session_id = w0 & 0x3ff;
	if (ver == 1) {
		w->index = ld_be32(e + ERSPAN_W1) & 0xfffff;
	} else {
		uint32_t w2 = ld_be32(e + ERSPAN3_W2);
		w->timestamp = ld_be32(e + ERSPAN_W1);
		w->sgt = (uint16_t)(w2 >> 16);
		w->pdu_frame = (w2 >> 15) & 1;
		w->ft = (w2 >> 10) & 0x1f;
		w->hwid = (w2 >> 4) & 0x3f;
		w->direction = (w2 >> 3) & 1;
		w->gra = (w2 >> 1) & 3;
		w->has_platform = w2 & 1;
	}
}

static void decode_gre(struct ctx *c, uint32_t off, uint32_t ip_end, uint32_t lim)
{
	struct span s = span_to(c, lim);
	struct roce_wrap *w = &c->p->wrap;

	const uint8_t *g = span_at(&s, off, GRE_HLEN);
	if (!g) {
		if (enter_wrap(c, ROCE_WRAP_GRE)) {
			if (w->depth == 1)
				w->hdr_off = (uint16_t)off;
			truncated(c, ROCE_LAYER_GRE);
		}
		return;
	}
	uint16_t flags = ld_be16(g + GRE_FLAGS);
	uint16_t proto = ld_be16(g + GRE_PROTO);
	enum roce_wrap_kind kind = ROCE_WRAP_GRE;
	if (proto == ETHERTYPE_ERSPAN_II)
		kind = (flags & GRE_F_SEQ) ? ROCE_WRAP_ERSPAN2 : ROCE_WRAP_ERSPAN1;
	else if (proto == ETHERTYPE_ERSPAN_III)
		kind = ROCE_WRAP_ERSPAN3;
	if (!enter_wrap(c, kind))
		return;
	bool outer = w->depth == 1;
	if (outer) {
		w->hdr_off = (uint16_t)off;
		w->gre_flags = flags;
		w->gre_proto = proto;
	}
	if ((flags & (GRE_VERSION | GRE_F_ROUTING)) != 0) {
		ev(c, ROCE_EV_GRE_UNSUPPORTED);
		return;
	}
	uint32_t hlen = GRE_HLEN + ((flags & GRE_F_CSUM) ? 4u : 0u);
	uint32_t key_at = hlen;
	hlen += (flags & GRE_F_KEY) ? 4u : 0u;
	uint32_t seq_at = hlen;
	hlen += (flags & GRE_F_SEQ) ? 4u : 0u;
	g = span_at(&s, off, hlen);
	if (!g) {
		truncated(c, ROCE_LAYER_GRE);
		return;
	}
	if (outer) {
		w->has_key = (flags & GRE_F_KEY) != 0;
		w->has_seq = (flags & GRE_F_SEQ) != 0;
		w->gre_key = w->has_key ? ld_be32(g + key_at) : 0;
		w->gre_seq = w->has_seq ? ld_be32(g + seq_at) : 0;
	}
	uint32_t in = off + hlen, inner_lim = min_u32(lim, ip_end);

	switch (kind) {
	case ROCE_WRAP_ERSPAN2:
	case ROCE_WRAP_ERSPAN3: {
		unsigned ver = kind == ROCE_WRAP_ERSPAN2 ? 1 : 2;
		uint32_t elen = ver == 1 ? ERSPAN2_HLEN : ERSPAN3_HLEN;
		const uint8_t *e = span_at(&s, in, elen);
		if (!e) {
			truncated(c, ROCE_LAYER_ERSPAN);
			return;
		}
		if (e[0] >> 4 != ver) {
			ev(c, ROCE_EV_ERSPAN_VERSION);
			return;
		}
		if (outer)
			read_erspan(c, e, ver);
		if ((ld_be32(e + ERSPAN_W0) >> 10) & 1)
			ev(c, ROCE_EV_ERSPAN_TRUNCATED);
		if (ver == 2 && (ld_be32(e + ERSPAN3_W2) & 1))
			elen += ERSPAN3_PLATFORM_LEN;
		decode_ether(c, in + elen, inner_lim);
		break;
	}
	case ROCE_WRAP_ERSPAN1:
		if (outer)
			w->erspan_ver = 0;
		decode_ether(c, in, inner_lim);
		break;
	default:
		if (proto == ETHERTYPE_TEB)
			decode_ether(c, in, inner_lim);
		else if (proto == ETHERTYPE_IPV4 || proto == ETHERTYPE_IPV6)
			decode_ip(c, in, inner_lim);
		else
			ev(c, ROCE_EV_GRE_UNSUPPORTED);
		break;
	}
}

/* ---- IPv4, IPv6 ---- */

/* After the IP header: pick the transport. */
static void decode_l4(struct ctx *c, unsigned proto, uint32_t off, uint32_t ip_end, uint32_t lim)
{
	struct span s = span_to(c, lim);

	switch (proto) {
	case IPPROTO_UDP_:
		decode_udp(c, off, ip_end, lim);
		break;
	case IPPROTO_GRE_:
		decode_gre(c, off, ip_end, lim);
		break;
	case IPPROTO_TCP_: {
		const uint8_t *t = span_at(&s, off, 4);
		if (t) {
			c->p->l4_sport = ld_be16(t);
			c->p->l4_dport = ld_be16(t + 2);
		}
		break;
	}
	default:
		break;
	}
}

static void decode_ipv4(struct ctx *c, uint32_t off, uint32_t lim)
{
	struct span s = span_to(c, lim);
	struct roce_net *n = &c->p->net;

	memset(n, 0, sizeof(*n));
	n->kind = ROCE_NET_IPV4;
	n->off = (uint16_t)off;
	const uint8_t *h = span_at(&s, off, IP4_HLEN);
	if (!h) {
		truncated(c, ROCE_LAYER_IPV4);
		return;
	}
	uint8_t vihl = h[IP4_VER_IHL];
	uint32_t hlen = (vihl & 0x0fu) * 4u;
	if (vihl >> 4 != 4 || hlen < IP4_HLEN) {
		invalid(c, ROCE_LAYER_IPV4, ROCE_EV_IP_HEADER_INVALID);
		return;
	}
	if (!span_has(&s, off, hlen)) {
		truncated(c, ROCE_LAYER_IPV4);
		return;
	}
	n->hdr_len = (uint16_t)hlen;
	n->tclass = h[IP4_TOS];
	n->total_len = ld_be16(h + IP4_TOTLEN);
	n->ip_id = ld_be16(h + IP4_ID);
	n->frag = ld_be16(h + IP4_FRAG);
	n->ttl = h[IP4_TTL];
	n->proto = h[IP4_PROTO];
	n->addr_off = (uint16_t)(off + IP4_SRC);
	n->addr_len = 4;
	if (c->cfg && (c->cfg->flags & ROCE_DECODE_NO_CSUM)) {
		n->ip_csum = ROCE_CSUM_UNVERIFIABLE;
	} else if (ipv4_csum_ok(h, hlen)) {
		n->ip_csum = ROCE_CSUM_GOOD;
	} else {
		n->ip_csum = ROCE_CSUM_BAD;
		invalid(c, ROCE_LAYER_IPV4, ROCE_EV_IP_CHECKSUM_BAD);
	}
	if (n->total_len < hlen) {
		invalid(c, ROCE_LAYER_IPV4, ROCE_EV_IP_LENGTH_INVALID);
		return;
	}
	if (n->frag & (IP4_MF | IP4_OFFMASK)) {
		ev(c, ROCE_EV_IP_FRAGMENT);
		return;
	}
	decode_l4(c, n->proto, off + hlen, off + n->total_len, lim);
}

static bool is_ipv6_ext(unsigned nh)
{
	return nh == IPPROTO_HOPOPTS_ || nh == IPPROTO_ROUTING_ || nh == IPPROTO_DSTOPTS_ ||
	       nh == IPPROTO_FRAGMENT_;
}

static void decode_ipv6(struct ctx *c, uint32_t off, uint32_t lim)
{
	struct span s = span_to(c, lim);
	struct roce_net *n = &c->p->net;

	memset(n, 0, sizeof(*n));
	n->kind = ROCE_NET_IPV6;
	n->off = (uint16_t)off;
	const uint8_t *h = span_at(&s, off, IP6_HLEN);
	if (!h) {
		truncated(c, ROCE_LAYER_IPV6);
		return;
	}
	if (h[0] >> 4 != 6) {
		invalid(c, ROCE_LAYER_IPV6, ROCE_EV_IP_HEADER_INVALID);
		return;
	}
	read_ipv6_like(c, h, off);
	uint32_t end = off + n->total_len, hoff = off + IP6_HLEN;
	unsigned nh = n->proto;
	for (unsigned i = 0; is_ipv6_ext(nh); i++) {
		if (i == MAX_IPV6_EXT) {
			invalid(c, ROCE_LAYER_IPV6, ROCE_EV_IPV6_EXT_INVALID);
			return;
		}
		if (!span_has(&s, hoff, 8)) {
			truncated(c, ROCE_LAYER_IPV6);
			return;
		}
		uint32_t elen = nh == IPPROTO_FRAGMENT_ ? 8u : (rd_u8(&s, hoff + 1) + 1u) * 8u;
		if (hoff + elen > end) {
			invalid(c, ROCE_LAYER_IPV6, ROCE_EV_IPV6_EXT_INVALID);
			return;
		}
		if (!span_has(&s, hoff, elen)) {
			truncated(c, ROCE_LAYER_IPV6);
			return;
		}
		if (nh == IPPROTO_FRAGMENT_ && (rd_be16(&s, hoff + 2) & 0xfff9) != 0) {
			ev(c, ROCE_EV_IP_FRAGMENT);  /* offset != 0 or M set */
			return;
		}
		nh = rd_u8(&s, hoff);
		hoff += elen;
	}
	n->proto = (uint8_t)nh;
	n->hdr_len = (uint16_t)(hoff - off);
	decode_l4(c, nh, hoff, end, lim);
}

static void decode_ip(struct ctx *c, uint32_t off, uint32_t lim)
{
	struct span s = span_to(c, lim);

	if (!span_has(&s, off, 1)) {
		truncated(c, ROCE_LAYER_IPV4);
		return;
	}
	switch (rd_u8(&s, off) >> 4) {
	case 4:
		decode_ipv4(c, off, lim);
		break;
	case 6:
		decode_ipv6(c, off, lim);
		break;
	default:
		c->p->net.kind = ROCE_NET_OTHER;
		invalid(c, ROCE_LAYER_IPV4, ROCE_EV_IP_HEADER_INVALID);
		break;
	}
}

/* ---- link layers ---- */

/* type is the EtherType at off-2; walk any 802.1Q/QinQ tags starting at off. */
static void decode_ethertype(struct ctx *c, uint32_t off, uint32_t lim, uint16_t type)
{
	struct span s = span_to(c, lim);
	struct roce_pkt *p = c->p;

	p->n_vlan = 0;
	for (unsigned i = 0; roce_is_vlan_tpid(type); i++) {
		if (i == MAX_VLAN_WALK) {
			ev(c, ROCE_EV_VLAN_TOO_MANY);
			return;
		}
		const uint8_t *tag = span_at(&s, off, VLAN_HLEN);
		if (!tag) {
			truncated(c, ROCE_LAYER_VLAN);
			return;
		}
		uint16_t tci = ld_be16(tag + VLAN_TCI);
		if (p->n_vlan < ROCE_MAX_VLAN) {
			struct roce_vlan *v = &p->vlan[p->n_vlan++];
			v->tpid = type;
			v->pcp = (uint8_t)(tci >> 13);
			v->dei = (tci >> 12) & 1;
			v->vid = tci & 0xfff;
		} else if (i == ROCE_MAX_VLAN) {
			ev(c, ROCE_EV_VLAN_TOO_MANY);
		}
		type = ld_be16(tag + VLAN_TYPE);
		off += VLAN_HLEN;
	}
	p->ethertype = type;
	switch (type) {
	case ETHERTYPE_IPV4:
		decode_ipv4(c, off, lim);
		break;
	case ETHERTYPE_IPV6:
		decode_ipv6(c, off, lim);
		break;
	case ETHERTYPE_ROCEV1:
		decode_grh(c, off, lim);
		break;
	case ETHERTYPE_ARP:
		p->net.kind = ROCE_NET_ARP;
		p->net.off = (uint16_t)off;
		break;
	case ETHERTYPE_MACCTRL:
		/* the frame's end: an enclosing packet's (a mirror's inner frame), else the wire's */
		macc_decode(p, c->frame, off, lim, lim < p->caplen ? lim : p->wirelen);
		break;
	default:
		p->net.kind = ROCE_NET_OTHER;
		p->net.ethertype = type;
		break;
	}
}

static void decode_ether(struct ctx *c, uint32_t off, uint32_t lim)
{
	struct span s = span_to(c, lim);

	c->p->eth_off = (int16_t)off;
	const uint8_t *eth = span_at(&s, off, ETH_HLEN);
	if (!eth) {
		truncated(c, ROCE_LAYER_LINK);
		return;
	}
	decode_ethertype(c, off + ETH_HLEN, lim, ld_be16(eth + ETH_TYPE));
}

static void decode_sll(struct ctx *c, uint32_t lim, bool v2)
{
	struct span s = span_to(c, lim);
	uint32_t hlen = v2 ? SLL2_HLEN : SLL_HLEN;

	const uint8_t *h = span_at(&s, 0, hlen);
	if (!h) {
		truncated(c, ROCE_LAYER_LINK);
		return;
	}
	c->p->sll_pkttype = v2 ? h[SLL2_PKTTYPE] : ld_be16(h + SLL_PKTTYPE);
	c->p->sll_ifindex = v2 ? ld_be32(h + SLL2_IFINDEX) : 0;
	decode_ethertype(c, hlen, lim, ld_be16(h + (v2 ? SLL2_PROTOCOL : SLL_PROTOCOL)));
}

/* Set the always-set fields (decode.h) one by one: a memset of the block compiles to `rep stos`,
 * whose start-up cost was 6 % of rocedump -q on small packets. */
_Static_assert(offsetof(struct roce_pkt, vlan) == 144, "a field was added: reset it in pkt_reset()");
/* roce_pkt_extent() (decode.h): what every decode sets lies before the extended headers, the
 * common ones in the order it looks them up, the rarer ones and the MAC control fields after */
_Static_assert(offsetof(struct roce_pkt, wrap) + sizeof(struct roce_wrap) <= offsetof(struct roce_pkt, h) &&
		       offsetof(struct roce_pkt, h) < offsetof(struct roce_pkt, macc),
	       "vlan and wrap before h, macc after it");
_Static_assert(offsetof(struct roce_hdrs, hdrs) < offsetof(struct roce_hdrs, aeth) &&
		       offsetof(struct roce_hdrs, aeth) < offsetof(struct roce_hdrs, immdt) &&
		       offsetof(struct roce_hdrs, immdt) < offsetof(struct roce_hdrs, reth) &&
		       offsetof(struct roce_hdrs, reth) < offsetof(struct roce_hdrs, ieth) &&
		       offsetof(struct roce_hdrs, ieth) < offsetof(struct roce_hdrs, deth) &&
		       offsetof(struct roce_hdrs, ieth) < offsetof(struct roce_hdrs, rdeth) &&
		       offsetof(struct roce_hdrs, ieth) < offsetof(struct roce_hdrs, atomiceth) &&
		       offsetof(struct roce_hdrs, ieth) < offsetof(struct roce_hdrs, atomicacketh) &&
		       offsetof(struct roce_hdrs, ieth) < offsetof(struct roce_hdrs, xrceth) &&
		       offsetof(struct roce_hdrs, ieth) < offsetof(struct roce_hdrs, feth),
	       "the common extended headers first, in roce_pkt_extent()'s order");
static void pkt_reset(struct roce_pkt *out, uint32_t caplen, uint32_t wirelen, unsigned linktype)
{
	static const struct roce_net no_net;
	static const struct roce_udp no_udp;

	out->caplen = caplen;
	out->wirelen = wirelen;
	out->linktype = (uint16_t)linktype;
	out->version = out->trunc_layer = out->invalid_layer = out->n_vlan = 0;
	out->eth_off = -1;
	out->ethertype = out->sll_pkttype = 0;
	out->events.w[0] = out->events.w[1] = 0;
	out->net = no_net;
	out->udp = no_udp;
	out->l4_sport = out->l4_dport = out->bth_off = 0;
	out->icrc_status = ROCE_ICRC_UNCHECKED;
	out->op = NULL;
	out->roce_len = out->payload_off = out->payload_len = out->icrc_off = 0;
	out->icrc_wire = out->icrc_computed = 0;
	out->sll_ifindex = out->capture_if = 0;
	out->stream_hint = out->copy_hint = 0;
	out->wrap.kind = ROCE_WRAP_NONE;
	out->wrap.depth = 0;
	out->h.hdrs = 0;
	out->path.sightings = 0;
}

/* The common shape of RoCE traffic, decoded straight through to decode_roce(): Ethernet with at
 * most two VLAN tags, IPv4 without options or fragments and with a good checksum, UDP to port
 * 4791 with no checksum and a length that matches, every byte captured. It fills exactly the
 * fields the general walk fills for such a frame (the fuzz replay compares the two on every
 * input); anything else returns false before writing a field, and the general walk, which
 * reports every anomaly, takes over. The general walk costs more a frame. */
static bool decode_fast(struct ctx *c, uint32_t caplen)
{
	const uint8_t *f = c->frame;
	struct roce_pkt *p = c->p;
	struct roce_vlan tags[2];
	unsigned n_tags = 0;
	uint32_t off = ETH_HLEN;

	if (caplen < ETH_HLEN + IP4_HLEN + UDP_HLEN)
		return false;
	uint16_t type = ld_be16(f + ETH_TYPE);
	while (roce_is_vlan_tpid(type)) {
		if (n_tags == 2 || caplen < off + VLAN_HLEN + IP4_HLEN + UDP_HLEN)
			return false;
		uint16_t tci = ld_be16(f + off + VLAN_TCI);
		tags[n_tags++] = (struct roce_vlan){type, (uint8_t)(tci >> 13), (tci >> 12) & 1, tci & 0xfff};
		type = ld_be16(f + off + VLAN_TYPE);
		off += VLAN_HLEN;
	}
	const uint8_t *ip = f + off;
	if (type != ETHERTYPE_IPV4 || ip[IP4_VER_IHL] != 0x45 || ip[IP4_PROTO] != IPPROTO_UDP_ ||
	    (ld_be16(ip + IP4_FRAG) & (IP4_MF | IP4_OFFMASK)))
		return false;
	uint32_t total = ld_be16(ip + IP4_TOTLEN);
	const uint8_t *u = ip + IP4_HLEN;
	if (total < IP4_HLEN + UDP_HLEN || off + total > caplen || ld_be16(u + UDP_DPORT) != ROCE_UDP_PORT ||
	    ld_be16(u + UDP_LEN) != total - IP4_HLEN || ld_be16(u + UDP_CSUM) != 0 ||
	    (c->cfg && (c->cfg->flags & (ROCE_DECODE_NO_CSUM | ROCE_DECODE_NO_FAST_PATH))) ||
	    !ipv4_csum_ok(ip, IP4_HLEN))
		return false;

	p->eth_off = 0;
	p->ethertype = ETHERTYPE_IPV4;
	p->n_vlan = (uint8_t)n_tags;
	for (unsigned i = 0; i < n_tags; i++)
		p->vlan[i] = tags[i];
	struct roce_net *n = &p->net;
	n->kind = ROCE_NET_IPV4;
	n->off = (uint16_t)off;
	n->hdr_len = IP4_HLEN;
	n->addr_off = (uint16_t)(off + IP4_SRC);
	n->addr_len = 4;
	n->tclass = ip[IP4_TOS];
	n->ttl = ip[IP4_TTL];
	n->proto = IPPROTO_UDP_;
	n->ip_id = ld_be16(ip + IP4_ID);
	n->frag = ld_be16(ip + IP4_FRAG);
	n->total_len = total;
	n->ip_csum = ROCE_CSUM_GOOD;
	struct roce_udp *ud = &p->udp;
	ud->off = (uint16_t)(off + IP4_HLEN);
	ud->sport = p->l4_sport = ld_be16(u + UDP_SPORT);
	ud->dport = p->l4_dport = ROCE_UDP_PORT;
	ud->len = (uint16_t)(total - IP4_HLEN);
	ud->csum_status = ROCE_CSUM_ABSENT;
	decode_roce(c, off + IP4_HLEN + UDP_HLEN, off + total, caplen, 2);
	return true;
}

/* ROCE_DECODE_COPY_KEY, ROCE_DECODE_STREAM_HASH: for a frame the transport analysis will see,
 * the content key it looks for copies by (copies.h) and the hash it finds the stream by
 * (stream_hash.h) */
static void note_analysis_keys(const struct roce_decoder_config *cfg, const uint8_t *frame, struct roce_pkt *out)
{
	if (!cfg || !(cfg->flags & (ROCE_DECODE_COPY_KEY | ROCE_DECODE_STREAM_HASH)) || !transport_analysable(out))
		return;
	if (cfg->flags & ROCE_DECODE_COPY_KEY)
		out->copy_hint = copy_content_key(out, frame);
	if (cfg->flags & ROCE_DECODE_STREAM_HASH) {
		const uint8_t *addrs = frame + out->net.addr_off;
		unsigned len = out->net.addr_len;
		out->stream_hint = HINT_HASH | stream_hash_raw(addrs, addrs + len, len, out->h.bth.dqpn);
	}
}

int roce_decode(const struct roce_decoder_config *cfg, const uint8_t *frame, uint32_t caplen,
		uint32_t wirelen, unsigned linktype, struct roce_pkt *out)
{
	struct ctx c = {cfg, frame, out};

	pkt_reset(out, caplen, wirelen, linktype);
	if (caplen > ROCE_DECODE_MAX_CAPLEN)
		caplen = ROCE_DECODE_MAX_CAPLEN;

	if (linktype == ROCE_LINK_ETHERNET && decode_fast(&c, caplen)) {
		if (roce_ecn(&out->net) == 3)
			ev(&c, ROCE_EV_ECN_CE);
		note_analysis_keys(cfg, frame, out);
		return 1;
	}
	switch (linktype) {
	case ROCE_LINK_ETHERNET:
		decode_ether(&c, 0, caplen);
		break;
	case ROCE_LINK_SLL:
		decode_sll(&c, caplen, false);
		break;
	case ROCE_LINK_SLL2:
		decode_sll(&c, caplen, true);
		break;
	case ROCE_LINK_RAW:
		decode_ip(&c, 0, caplen);
		break;
	case ROCE_LINK_IPV4:
		decode_ipv4(&c, 0, caplen);
		break;
	case ROCE_LINK_IPV6:
		decode_ipv6(&c, 0, caplen);
		break;
	default:
		ev(&c, ROCE_EV_LINK_UNSUPPORTED);
		return 0;
	}
	if (out->version && out->net.kind != ROCE_NET_NONE && roce_ecn(&out->net) == 3)
		ev(&c, ROCE_EV_ECN_CE);
	note_analysis_keys(cfg, frame, out);
	return out->version != 0;
}

int roce_pkt_worst_severity(const struct roce_pkt *p)
{
	int worst = -1;
	for (unsigned e = roce_evset_next(&p->events, 0); e < ROCE_EV_COUNT; e = roce_evset_next(&p->events, e + 1)) {
		int sev = (int)roce_event_severity((enum roce_event)e);
		worst = sev > worst ? sev : worst;
	}
	return worst;
}
