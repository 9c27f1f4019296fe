/* build.c: the packet builder (see build.h), written over the decoder's offsets (wire.h) and
 * header writers (transport.c), with the ICRC from icrc.c (IBTA Annex A16/A17). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "csum.h"
#include "icrc.h"
#include "roce/build.h"
#include "transport.h"
#include "wire.h"

/* The checksum to write over n bytes whose checksum field is zero, given a partial sum. */
static uint16_t csum16(uint32_t sum, const uint8_t *b, uint32_t n)
{
	return (uint16_t)~csum_fold(csum_add(sum, b, n));
}

/* Return err, with the reason in errbuf when the caller gave one. */
static int fail(char *errbuf, int err, const char *fmt, ...)
{
	if (errbuf) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(errbuf, ROCE_ERRBUF_SIZE, fmt, ap);
		va_end(ap);
	}
	return err;
}

static uint32_t link_len(const struct roce_build *b)
{
	switch (b->linktype) {
	case 0:
	case ROCE_LINK_ETHERNET: return ETH_HLEN + VLAN_HLEN * b->n_vlan;
	case ROCE_LINK_SLL: return SLL_HLEN;
	case ROCE_LINK_SLL2: return SLL2_HLEN;
	default: return 0;
	}
}

static uint32_t write_ether(uint8_t *o, const uint8_t dst[6], const uint8_t src[6], unsigned n_vlan,
			    const struct roce_vlan *vlan, uint16_t type)
{
	uint32_t n = ETH_TYPE;
	memcpy(o + ETH_DST, dst, 6);
	memcpy(o + ETH_SRC, src, 6);
	for (unsigned i = 0; i < n_vlan; i++) {
		wr_be16(o + n, vlan[i].tpid ? vlan[i].tpid : ETHERTYPE_VLAN);
		wr_be16(o + n + 2 + VLAN_TCI, (uint16_t)((vlan[i].pcp & 7) << 13 | (vlan[i].dei & 1) << 12 | (vlan[i].vid & 0xfff)));
		n += VLAN_HLEN;
	}
	wr_be16(o + n, type);
	return n + 2;
}

static uint32_t write_link(uint8_t *o, const struct roce_build *b, uint16_t type)
{
	switch (b->linktype) {
	case 0:
	case ROCE_LINK_ETHERNET:
		return write_ether(o, b->eth_dst, b->eth_src, b->n_vlan, b->vlan, type);
	case ROCE_LINK_SLL:
		memset(o, 0, SLL_HLEN);
		wr_be16(o + SLL_PKTTYPE, b->sll_pkttype);
		wr_be16(o + SLL_HATYPE, 1);
		wr_be16(o + SLL_HALEN, 6);
		memcpy(o + SLL_ADDR, b->eth_src, 6);
		wr_be16(o + SLL_PROTOCOL, type);
		return SLL_HLEN;
	case ROCE_LINK_SLL2:
		memset(o, 0, SLL2_HLEN);
		wr_be16(o + SLL2_PROTOCOL, type);
		wr_be32(o + SLL2_IFINDEX, 2);
		wr_be16(o + SLL2_HATYPE, 1);
		o[SLL2_PKTTYPE] = (uint8_t)b->sll_pkttype;
		o[SLL2_HALEN] = 6;
		memcpy(o + SLL2_ADDR, b->eth_src, 6);
		return SLL2_HLEN;
	default:
		return 0;
	}
}

static void write_ipv4(uint8_t *o, uint32_t hlen, uint32_t total, uint8_t tos, uint16_t id, bool df,
		       uint8_t ttl, uint8_t proto, const uint8_t *src, const uint8_t *dst,
		       const uint8_t *opts, bool bad_csum)
{
	o[IP4_VER_IHL] = (uint8_t)(0x40 | hlen / 4);
	o[IP4_TOS] = tos;
	wr_be16(o + IP4_TOTLEN, (uint16_t)total);
	wr_be16(o + IP4_ID, id);
	wr_be16(o + IP4_FRAG, df ? 0x4000 : 0);
	o[IP4_TTL] = ttl;
	o[IP4_PROTO] = proto;
	wr_be16(o + IP4_CSUM, 0);
	memcpy(o + IP4_SRC, src, 4);
	memcpy(o + IP4_DST, dst, 4);
	if (hlen > IP4_HLEN)
		memcpy(o + IP4_HLEN, opts, hlen - IP4_HLEN);
	uint16_t c = csum16(0, o, hlen);
	wr_be16(o + IP4_CSUM, bad_csum ? (uint16_t)(c ^ 0x5a5a) : c);
}

static void write_ipv6_like(uint8_t *o, uint8_t version, uint8_t tclass, uint32_t flow, uint32_t plen,
			    uint8_t next, uint8_t hlim, const uint8_t *src, const uint8_t *dst)
{
	wr_be32(o + IP6_VTF, (uint32_t)version << 28 | (uint32_t)tclass << 20 | (flow & 0xfffff));
	wr_be16(o + IP6_PLEN, (uint16_t)plen);
	o[IP6_NXT] = next;
	o[IP6_HLIM] = hlim;
	memcpy(o + IP6_SRC, src, 16);
	memcpy(o + IP6_DST, dst, 16);
}

/* UDP checksum with the pseudo header of the IP header at ip (RFC 768, RFC 8200 §8.1). */
static uint16_t udp_csum(const uint8_t *ip, bool v6, const uint8_t *udp, uint32_t len)
{
	uint32_t sum = IPPROTO_UDP_ + (len >> 16) + (len & 0xffff);
	const uint8_t *addrs = v6 ? ip + IP6_SRC : ip + IP4_SRC;
	uint32_t alen = v6 ? 32 : 8;
	for (uint32_t i = 0; i < alen; i += 2)
		sum += (uint32_t)(addrs[i] << 8 | addrs[i + 1]);
	uint16_t c = csum16(sum, udp, len);
	return c ? c : 0xffff;
}

int roce_build_frame(const struct roce_build *b, uint8_t *out, size_t cap)
{
	unsigned version = b->version ? b->version : 2;
	unsigned ipv = version == 1 ? 6 : (b->ip_version ? b->ip_version : 4);
	struct roce_hdrs h = b->h;
	const struct roce_opcode_info *op = roce_opcode_info(h.bth.opcode);
	uint8_t ttl = b->ttl ? b->ttl : 64;

	if (version != 1 && version != 2)
		return fail(b->errbuf, ROCE_ERR_ARG, "RoCE version %u (1 or 2)", version);
	if (ipv != 4 && ipv != 6)
		return fail(b->errbuf, ROCE_ERR_ARG, "IP version %u (4 or 6)", ipv);
	if (b->n_vlan > ROCE_MAX_VLAN)
		return fail(b->errbuf, ROCE_ERR_ARG, "%u VLAN tags (at most %d)", b->n_vlan, ROCE_MAX_VLAN);
	if (ipv == 4 && version == 2 && (b->ip_options_len % 4 || b->ip_options_len > 40))
		return fail(b->errbuf, ROCE_ERR_ARG, "IPv4 options of %u bytes (a multiple of 4, at most 40)",
			    b->ip_options_len);
	if (version == 1 && b->ip_options_len)
		return fail(b->errbuf, ROCE_ERR_UNSUPPORTED, "RoCEv1 has no IP options");
	if (!(b->flags & ROCE_BUILD_HDRS_AS_GIVEN))
		h.hdrs = op->hdrs;
	if (!(b->flags & ROCE_BUILD_PADCNT_AS_GIVEN))
		h.bth.padcnt = (uint8_t)((4 - b->payload_len % 4) % 4);

	uint32_t pad_bytes = (b->flags & ROCE_BUILD_NO_PAD_BYTES) ? 0 : h.bth.padcnt;
	uint32_t tlen = ROCE_BTH_LEN + roce_hdrs_len(h.hdrs);
	uint32_t roce_len = tlen + b->payload_len + pad_bytes + ROCE_ICRC_LEN;
	uint32_t net_hlen = version == 1 ? ROCE_GRH_LEN
			    : ipv == 4 ? IP4_HLEN + b->ip_options_len : IP6_HLEN + b->ip_options_len;
	uint32_t udp_len = version == 2 ? UDP_HLEN + roce_len : 0;
	uint32_t llen = link_len(b);
	uint32_t total = llen + net_hlen + udp_len + (version == 1 ? roce_len : 0);
	bool eth = b->linktype == 0 || b->linktype == ROCE_LINK_ETHERNET;
	uint32_t frame_len = (eth && (b->flags & ROCE_BUILD_ETH_MIN_FRAME) && total < 60) ? 60 : total;

	if (udp_len > 0xffff || net_hlen + udp_len + roce_len > 0xffff)
		return fail(b->errbuf, ROCE_ERR_ARG, "a %u-byte payload does not fit an IP packet", b->payload_len);
	if (frame_len > cap)
		return fail(b->errbuf, ROCE_ERR_NOSPACE, "the %u-byte frame does not fit the %zu-byte buffer",
			    frame_len, cap);
	memset(out, 0, frame_len);

	uint16_t type = version == 1 ? ETHERTYPE_ROCEV1 : ipv == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6;
	uint32_t n = write_link(out, b, type);
	uint32_t net_off = n;
	uint8_t *ip = out + net_off;
	unsigned kind;
	if (version == 1) {
		kind = ROCE_NET_GRH;
		write_ipv6_like(ip, 6, b->tclass, b->flow_label, roce_len, GRH_NXTHDR_IBA, ttl, b->src, b->dst);
	} else if (ipv == 4) {
		kind = ROCE_NET_IPV4;
		write_ipv4(ip, net_hlen, net_hlen + udp_len, b->tclass, b->ip_id, b->dont_fragment, ttl,
			   IPPROTO_UDP_, b->src, b->dst, b->ip_options, b->flags & ROCE_BUILD_BAD_IP_CSUM);
	} else {
		kind = ROCE_NET_IPV6;
		write_ipv6_like(ip, 6, b->tclass, b->flow_label, b->ip_options_len + udp_len,
				b->ip_options_len ? b->ip6_first_ext : IPPROTO_UDP_, ttl, b->src, b->dst);
		if (b->ip_options_len)
			memcpy(ip + IP6_HLEN, b->ip_options, b->ip_options_len);
	}
	n += net_hlen;
	uint8_t *udp = out + n;
	if (version == 2) {
		wr_be16(udp + UDP_SPORT, b->udp_sport);
		wr_be16(udp + UDP_DPORT, b->udp_dport ? b->udp_dport : ROCE_UDP_PORT);
		wr_be16(udp + UDP_LEN, (uint16_t)udp_len);
		n += UDP_HLEN;
	}
	uint32_t bth_off = n;
	n += transport_write(out + n, &h);
	if (b->payload_len)
		memcpy(out + n, b->payload, b->payload_len);
	n += b->payload_len + pad_bytes;

	uint32_t icrc = icrc_compute(out, kind, net_off, net_hlen, bth_off, n);
	if (b->icrc == ROCE_BUILD_ICRC_BAD)
		icrc = ~icrc;
	else if (b->icrc == ROCE_BUILD_ICRC_VALUE)
		icrc = b->icrc_value;
	wr_le32(out + n, icrc);

	if (version == 2 && (b->udp_checksum || (b->flags & ROCE_BUILD_BAD_UDP_CSUM))) {
		uint16_t c = udp_csum(ip, ipv == 6, udp, udp_len);
		if (b->flags & ROCE_BUILD_BAD_UDP_CSUM)
			c = (uint16_t)(c == 0x1234 ? 0x4321 : 0x1234);
		wr_be16(udp + UDP_CSUM, c);
	}
	return (int)frame_len;
}

int64_t roce_icrc_recompute(uint8_t *frame, uint32_t len, unsigned linktype, bool fix_ip_csum, char *errbuf)
{
	struct roce_decoder_config cfg = {.flags = ROCE_DECODE_NO_ICRC | ROCE_DECODE_NO_CSUM};
	struct roce_pkt p;

	if (!roce_decode(&cfg, frame, len, len, linktype, &p))
		return fail(errbuf, ROCE_ERR_ARG, "not a RoCE packet");
	if (p.trunc_layer || !p.icrc_off || p.icrc_off + ROCE_ICRC_LEN > len)
		return fail(errbuf, ROCE_ERR_ARG, "the RoCE packet is not whole (stops at the %s)",
			    roce_layer_name((enum roce_layer)(p.trunc_layer ? p.trunc_layer : ROCE_LAYER_ICRC)));
	if (fix_ip_csum && p.net.kind == ROCE_NET_IPV4) {
		uint8_t *ip = frame + p.net.off;
		wr_be16(ip + IP4_CSUM, 0);
		wr_be16(ip + IP4_CSUM, csum16(0, ip, p.net.hdr_len));
	}
	uint32_t icrc = icrc_compute(frame, p.net.kind, p.net.off, p.net.hdr_len, p.bth_off, p.icrc_off);
	wr_le32(frame + p.icrc_off, icrc);
	return icrc;
}

/* ---- wrappers ---- */

static uint32_t write_erspan(uint8_t *o, const struct roce_wrap *w, unsigned ver, bool trunc)
{
	uint32_t w0 = (uint32_t)ver << 28 | (uint32_t)(w->vlan & 0xfff) << 16 | (uint32_t)(w->cos & 7) << 13 |
		      (uint32_t)(w->en_bso & 3) << 11 | (uint32_t)((w->truncated | trunc) & 1) << 10 |
		      (w->session_id & 0x3ffu);
	wr_be32(o + ERSPAN_W0, w0);
	if (ver == 1) {
		wr_be32(o + ERSPAN_W1, w->index & 0xfffff);
		return ERSPAN2_HLEN;
	}
	wr_be32(o + ERSPAN_W1, w->timestamp);
	wr_be32(o + ERSPAN3_W2, (uint32_t)w->sgt << 16 | (uint32_t)(w->pdu_frame & 1) << 15 |
				(uint32_t)(w->ft & 0x1f) << 10 | (uint32_t)(w->hwid & 0x3f) << 4 |
				(uint32_t)(w->direction & 1) << 3 | (uint32_t)(w->gra & 3) << 1 |
				(w->has_platform & 1u));
	if (w->has_platform) {
		memset(o + ERSPAN3_HLEN, 0, ERSPAN3_PLATFORM_LEN);
		return ERSPAN3_HLEN + ERSPAN3_PLATFORM_LEN;
	}
	return ERSPAN3_HLEN;
}

int roce_build_wrap(const struct roce_build_wrap *wr, const uint8_t *inner, uint32_t len, uint8_t *out,
		    size_t cap)
{
	const struct roce_wrap *w = &wr->w;
	unsigned ipv = wr->ip_version ? wr->ip_version : 4;
	uint32_t keep = wr->truncate_to && wr->truncate_to < len ? wr->truncate_to : len;
	bool trunc = keep < len;
	uint8_t hdr[64];
	uint32_t h = 0;
	uint8_t proto;

	if (ipv != 4 && ipv != 6)
		return fail(wr->errbuf, ROCE_ERR_ARG, "outer IP version %u (4 or 6)", ipv);
	switch (wr->kind) {
	case ROCE_WRAP_VXLAN:
		proto = IPPROTO_UDP_;
		h = UDP_HLEN + VXLAN_HLEN;
		memset(hdr, 0, h);
		wr_be16(hdr + UDP_SPORT, w->udp_sport);
		wr_be16(hdr + UDP_DPORT, UDP_PORT_VXLAN);
		wr_be16(hdr + UDP_LEN, (uint16_t)(h + keep));
		hdr[UDP_HLEN + VXLAN_FLAGS] = VXLAN_F_VNI;
		wr_be24(hdr + UDP_HLEN + VXLAN_VNI, w->vni);
		break;
	case ROCE_WRAP_GRE:
	case ROCE_WRAP_ERSPAN1:
	case ROCE_WRAP_ERSPAN2:
	case ROCE_WRAP_ERSPAN3: {
		bool seq = wr->kind == ROCE_WRAP_ERSPAN2 || wr->kind == ROCE_WRAP_ERSPAN3 ||
			   (wr->kind == ROCE_WRAP_GRE && w->has_seq);
		bool key = wr->kind != ROCE_WRAP_ERSPAN1 && w->has_key;
		uint16_t gproto = wr->kind == ROCE_WRAP_GRE ? ETHERTYPE_TEB
				  : wr->kind == ROCE_WRAP_ERSPAN3 ? ETHERTYPE_ERSPAN_III : ETHERTYPE_ERSPAN_II;
		proto = IPPROTO_GRE_;
		wr_be16(hdr + GRE_FLAGS, (uint16_t)((key ? GRE_F_KEY : 0) | (seq ? GRE_F_SEQ : 0)));
		wr_be16(hdr + GRE_PROTO, gproto);
		h = GRE_HLEN;
		if (key) {
			wr_be32(hdr + h, w->gre_key);
			h += 4;
		}
		if (seq) {
			wr_be32(hdr + h, w->gre_seq);
			h += 4;
		}
		if (wr->kind == ROCE_WRAP_ERSPAN2)
			h += write_erspan(hdr + h, w, 1, trunc);
		else if (wr->kind == ROCE_WRAP_ERSPAN3)
			h += write_erspan(hdr + h, w, 2, trunc);
		break;
	}
	default:
		return fail(wr->errbuf, ROCE_ERR_ARG, "wrapper kind %u", wr->kind);
	}

	uint32_t iph = ipv == 4 ? IP4_HLEN : IP6_HLEN;
	uint32_t total = ETH_HLEN + iph + h + keep;
	if (total > cap)
		return fail(wr->errbuf, ROCE_ERR_NOSPACE, "the %u-byte frame does not fit the %zu-byte buffer",
			    total, cap);
	if (iph + h + keep > 0xffff)
		return fail(wr->errbuf, ROCE_ERR_ARG, "a %u-byte inner frame does not fit an IP packet", len);
	uint32_t n = write_ether(out, wr->eth_dst, wr->eth_src, 0, NULL, ipv == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6);
	if (ipv == 4)
		write_ipv4(out + n, IP4_HLEN, iph + h + keep, 0, 0, true, 64, proto, wr->src, wr->dst, NULL, false);
	else
		write_ipv6_like(out + n, 6, 0, 0, h + keep, proto, 64, wr->src, wr->dst);
	n += iph;
	memcpy(out + n, hdr, h);
	n += h;
	memcpy(out + n, inner, keep);
	return (int)(n + keep);
}
