/* test_build.c: the packet builder (analyzer/core/build.c): every valid opcode × {RoCEv1, RoCEv2
 * over IPv4, over IPv6} × {0, 1, 2 VLAN tags} × payload 0..8 bytes (every PadCnt) builds a frame
 * that decodes back to the same fields; error returns; every wrapper kind decodes back with its
 * fields. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_util.h"

static unsigned n_frames;

static void check_round_trip(const struct roce_build *b, const char *ctx)
{
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	uint32_t n = u_build(b, f);
	const struct roce_opcode_info *op = roce_opcode_info(b->h.bth.opcode);
	unsigned version = b->version ? b->version : 2;
	unsigned pad = (4 - b->payload_len % 4) % 4;

	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1, "%s", ctx);
	cr_assert_eq(p.version, version, "%s", ctx);
	cr_assert_eq(p.n_vlan, b->n_vlan, "%s", ctx);
	for (unsigned i = 0; i < b->n_vlan; i++) {
		cr_assert_eq(p.vlan[i].vid, b->vlan[i].vid, "%s", ctx);
		cr_assert_eq(p.vlan[i].pcp, b->vlan[i].pcp, "%s", ctx);
		cr_assert_eq(p.vlan[i].tpid, b->vlan[i].tpid ? b->vlan[i].tpid : 0x8100, "%s", ctx);
	}
	cr_assert_eq(p.net.kind, version == 1 ? ROCE_NET_GRH : b->ip_version == 6 ? ROCE_NET_IPV6 : ROCE_NET_IPV4,
		     "%s", ctx);
	cr_assert_eq(p.net.tclass, b->tclass, "%s", ctx);
	cr_assert_arr_eq(f + p.net.addr_off, b->src, p.net.addr_len, "%s", ctx);
	cr_assert_arr_eq(f + p.net.addr_off + p.net.addr_len, b->dst, p.net.addr_len, "%s", ctx);
	if (version == 2) {
		cr_assert_eq(p.udp.sport, b->udp_sport, "%s", ctx);
		cr_assert_eq(p.udp.dport, 4791, "%s", ctx);
	}
	struct roce_hdrs want = b->h;
	want.hdrs = op->hdrs;
	want.bth.padcnt = (uint8_t)pad;
	u_assert_hdrs_eq(&want, &p.h, ctx);
	cr_assert_eq(p.payload_len, b->payload_len, "%s", ctx);
	if (b->payload_len)
		cr_assert_arr_eq(f + p.payload_off, b->payload, b->payload_len, "%s", ctx);
	for (unsigned i = 0; i < pad; i++)
		cr_assert_eq(f[p.payload_off + b->payload_len + i], 0, "%s: pad byte %u", ctx, i);
	cr_assert_eq(p.icrc_off + 4, n, "%s: the ICRC ends the frame", ctx);
	cr_assert_eq(n, 14 + 4 * b->n_vlan + (version == 1 ? 40 : b->ip_version == 6 ? 48 : 28) + 12 +
			     roce_hdrs_len(op->hdrs) + b->payload_len + pad + 4, "%s: frame length", ctx);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "%s", ctx);
	if (op->op == ROCE_OP_ATOMIC_WRITE && b->payload_len != 8)
		EXPECT_EVENTS(&p, "atomic.length_invalid");
	else if (b->h.bth.opcode == 0x80)
		EXPECT_EVENTS(&p, "cnp.opcode_ib");
	else
		EXPECT_NO_EVENTS(&p);
	n_frames++;
}

Test(build, round_trip_every_opcode_version_vlan_payload)
{
	n_frames = 0;
	for (unsigned o = 0; o < 0xc0; o++) {
		const struct roce_opcode_info *op = roce_opcode_info((uint8_t)o);
		if (!(op->flags & ROCE_OPF_VALID))
			continue;
		for (unsigned shape = 0; shape < 3; shape++) {
			for (unsigned nv = 0; nv <= 2; nv++) {
				uint32_t max_len = (op->flags & ROCE_OPF_PAYLOAD) ? 8 : 0;
				for (uint32_t len = 0; len <= max_len; len++) {
					struct roce_build b;
					char ctx[80];
					u_base(&b);
					u_fill_hdrs(&b.h, (uint8_t)o, o * 31 + len);
					if (shape) {
						u_set_v6(&b);
						if (shape == 1)
							b.ip_version = 6;
						else
							b.version = 1;
					}
					b.n_vlan = nv;
					for (unsigned i = 0; i < nv; i++) {
						b.vlan[i].tpid = i == 0 && nv == 2 ? 0x88a8 : 0;
						b.vlan[i].vid = (uint16_t)(1 + i * 1000 + len);
						b.vlan[i].pcp = (uint8_t)(len & 7);
					}
					b.payload = u_payload() + o;
					b.payload_len = len;
					snprintf(ctx, sizeof(ctx), "opcode 0x%02x %s vlan %u payload %u", o,
						 shape == 0 ? "v2/IPv4" : shape == 1 ? "v2/IPv6" : "v1", nv, len);
					check_round_trip(&b, ctx);
				}
			}
		}
	}
	/* 67 opcodes with a payload × 9 lengths + 19 without, × 3 network shapes × 3 tag counts */
	cr_assert_eq(n_frames, (67 * 9 + 19) * 9, "frames built: %u", n_frames);
}

Test(build, defaults)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];

	memset(&b, 0, sizeof(b));
	b.h.bth.opcode = 0x04;
	b.h.bth.pkey = 0xffff;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(n, 14 + 20 + 8 + 12 + 4);
	cr_assert_eq(u_be16(f + 12), 0x0800, "version 0 means RoCEv2, ip_version 0 means IPv4");
	cr_assert_eq(f[14], 0x45);
	cr_assert_eq(f[14 + 8], 64, "TTL 0 means 64");
	cr_assert_eq(u_be16(f + 14 + 6), 0, "no DF unless asked");
	cr_assert_eq(f[14 + 9], 17);
	cr_assert_eq(u_be16(f + 34 + 2), 4791, "UDP destination 0 means 4791");
	cr_assert_eq(u_be16(f + 34 + 6), 0, "UDP checksum 0 unless asked");
	cr_assert_eq(u_be16(f + 34 + 4), 8 + 12 + 4);

	/* RoCEv1: EtherType 0x8915, GRH NxtHdr 0x1B, PayLen = BTH .. ICRC */
	b.version = 1;
	n = u_build(&b, f);
	cr_assert_eq(n, 14 + 40 + 12 + 4);
	cr_assert_eq(u_be16(f + 12), 0x8915);
	cr_assert_eq(f[14] >> 4, 6, "GRH IPVer 6");
	cr_assert_eq(u_be16(f + 14 + 4), 16);
	cr_assert_eq(f[14 + 6], 0x1b);
	cr_assert_eq(f[14 + 7], 64);

	/* IPv6 */
	b.version = 2;
	b.ip_version = 6;
	n = u_build(&b, f);
	cr_assert_eq(n, 14 + 40 + 8 + 12 + 4);
	cr_assert_eq(u_be16(f + 12), 0x86dd);
	cr_assert_eq(u_be16(f + 14 + 4), 8 + 12 + 4, "IPv6 payload length");
	cr_assert_eq(f[14 + 6], 17);
}

Test(build, vlan_tag_bytes)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];

	u_base(&b);
	b.n_vlan = 2;
	b.vlan[0] = (struct roce_vlan){0x88a8, 5, 1, 0x123};
	b.vlan[1] = (struct roce_vlan){0, 3, 0, 0xfff};
	u_build(&b, f);
	cr_assert_eq(u_be16(f + 12), 0x88a8, "outer TPID");
	cr_assert_eq(u_be16(f + 14), 5 << 13 | 1 << 12 | 0x123, "outer TCI: PCP, DEI, VID");
	cr_assert_eq(u_be16(f + 16), 0x8100, "tpid 0 means 0x8100");
	cr_assert_eq(u_be16(f + 18), 3 << 13 | 0xfff);
	cr_assert_eq(u_be16(f + 20), 0x0800);
}

Test(build, sll_sll2_bytes)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	u_base(&b);
	b.linktype = ROCE_LINK_SLL;
	b.sll_pkttype = 4;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(u_be16(f + 0), 4, "SLL packet type");
	cr_assert_eq(u_be16(f + 14), 0x0800, "SLL protocol");
	cr_assert_eq(f[16], 0x45);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_SLL, &p), 1);
	cr_assert_eq(p.sll_pkttype, 4);

	b.linktype = ROCE_LINK_SLL2;
	n = u_build(&b, f);
	cr_assert_eq(u_be16(f + 0), 0x0800, "SLL2 protocol");
	cr_assert_eq(f[10], 4, "SLL2 packet type");
	cr_assert_eq(f[20], 0x45);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_SLL2, &p), 1);
	cr_assert_eq(p.sll_pkttype, 4);

	b.linktype = ROCE_LINK_RAW;
	n = u_build(&b, f);
	cr_assert_eq(f[0], 0x45);
	cr_assert_eq(u_decode(f, n, ROCE_LINK_RAW, &p), 1);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);

	/* ETH_MIN_FRAME pads Ethernet only */
	b.linktype = ROCE_LINK_SLL;
	b.flags = ROCE_BUILD_ETH_MIN_FRAME;
	cr_assert_eq(u_build(&b, f), 16 + 20 + 8 + 12 + 4);
	b.linktype = ROCE_LINK_ETHERNET;
	cr_assert_eq(u_build(&b, f), 60);
}

Test(build, nospace)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];

	u_base(&b);
	u_fill_hdrs(&b.h, 0x0b, 1);
	b.payload = u_payload();
	b.payload_len = 21;
	int n = roce_build_frame(&b, f, sizeof(f));
	cr_assert_gt(n, 0);
	for (size_t cap = 0; cap < (size_t)n; cap++) {
		uint8_t *o = malloc(cap ? cap : 1);   /* ASan: no write past cap */
		cr_assert_eq(roce_build_frame(&b, o, cap), ROCE_ERR_NOSPACE, "cap %zu", cap);
		free(o);
	}
	uint8_t *o = malloc((size_t)n);
	cr_assert_eq(roce_build_frame(&b, o, (size_t)n), n);
	cr_assert_arr_eq(o, f, (size_t)n);
	free(o);

	/* the 60-byte minimum counts too */
	u_base(&b);
	b.flags = ROCE_BUILD_ETH_MIN_FRAME;
	cr_assert_eq(roce_build_frame(&b, f, 59), ROCE_ERR_NOSPACE);
	cr_assert_eq(roce_build_frame(&b, f, 60), 60);
}

Test(build, bad_arguments)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	static const uint8_t opts[44] = {0};
	static uint8_t big[70000];

	u_base(&b);
	b.version = 3;
	cr_assert_eq(roce_build_frame(&b, f, sizeof(f)), ROCE_ERR_ARG, "version 3");
	u_base(&b);
	b.ip_version = 5;
	cr_assert_eq(roce_build_frame(&b, f, sizeof(f)), ROCE_ERR_ARG, "IP version 5");
	u_base(&b);
	b.n_vlan = 4;
	cr_assert_eq(roce_build_frame(&b, f, sizeof(f)), ROCE_ERR_ARG, "4 VLAN tags");
	u_base(&b);
	b.ip_options = opts;
	b.ip_options_len = 3;
	cr_assert_eq(roce_build_frame(&b, f, sizeof(f)), ROCE_ERR_ARG, "IPv4 options not a multiple of 4");
	b.ip_options_len = 44;
	cr_assert_eq(roce_build_frame(&b, f, sizeof(f)), ROCE_ERR_ARG, "IPv4 options over 40 bytes");
	b.ip_options_len = 40;
	cr_assert_gt(roce_build_frame(&b, f, sizeof(f)), 0, "40 bytes of options are fine");
	u_base(&b);
	b.version = 1;
	b.ip_options = opts;
	b.ip_options_len = 8;
	cr_assert_eq(roce_build_frame(&b, f, sizeof(f)), ROCE_ERR_UNSUPPORTED, "options on a GRH");
	u_base(&b);
	b.payload = big;
	b.payload_len = sizeof(big);
	cr_assert_eq(roce_build_frame(&b, big, sizeof(big)), ROCE_ERR_ARG, "longer than an IP packet");
	cr_assert_str_eq(roce_strerror(ROCE_ERR_ARG), "invalid argument");
	cr_assert_str_eq(roce_strerror(ROCE_ERR_NOSPACE), "output buffer too small");
	cr_assert_not_null(roce_strerror(-99));
}

Test(build, flags)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	/* PADCNT_AS_GIVEN */
	u_base(&b);
	b.payload = u_payload();
	b.payload_len = 5;
	b.flags = ROCE_BUILD_PADCNT_AS_GIVEN;
	b.h.bth.padcnt = 1;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(n, 14 + 28 + 12 + 5 + 1 + 4);
	cr_assert_eq((f[43] >> 4) & 3, 1);
	/* NO_PAD_BYTES */
	b.flags = ROCE_BUILD_NO_PAD_BYTES;
	n = u_build(&b, f);
	cr_assert_eq(n, 14 + 28 + 12 + 5 + 4, "no pad bytes written");
	cr_assert_eq((f[43] >> 4) & 3, 3, "PadCnt still 3");
	/* HDRS_AS_GIVEN */
	u_base(&b);
	b.h.bth.opcode = 0x04;
	b.h.hdrs = ROCE_HDR_IMMDT;
	b.h.immdt = 0x01020304;
	b.flags = ROCE_BUILD_HDRS_AS_GIVEN;
	n = u_build(&b, f);
	cr_assert_eq(n, 14 + 28 + 12 + 4 + 4);
	cr_assert(f[54] == 1 && f[57] == 4);
	/* BAD_IP_CSUM */
	u_base(&b);
	b.flags = ROCE_BUILD_BAD_IP_CSUM;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.net.ip_csum, ROCE_CSUM_BAD);
	/* BAD_UDP_CSUM: non-zero and wrong */
	b.flags = ROCE_BUILD_BAD_UDP_CSUM;
	n = u_build(&b, f);
	cr_assert_neq(u_be16(f + 40), 0);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.udp.csum_status, ROCE_CSUM_BAD);
	/* udp_checksum */
	b.flags = 0;
	b.udp_checksum = true;
	n = u_build(&b, f);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.udp.csum_status, ROCE_CSUM_GOOD);
}

/* ---- wrappers ---- */

static void wrap_round_trip(unsigned kind, unsigned ipv, bool key, bool seq, bool platform, uint32_t trunc)
{
	struct roce_build b;
	uint8_t inner[FRAME_CAP], f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_build_wrap w;

	u_base(&b);
	u_fill_hdrs(&b.h, 0x06, 2);   /* WRITE_FIRST */
	b.payload = u_payload();
	b.payload_len = 40;
	uint32_t il = u_build(&b, inner);

	memset(&w, 0, sizeof(w));
	w.kind = kind;
	w.ip_version = ipv;
	w.src[0] = 1, w.dst[0] = 2;
	w.eth_src[5] = 0x11, w.eth_dst[5] = 0x22;
	w.w.has_key = key;
	w.w.gre_key = 0x0badcafe;
	w.w.has_seq = seq;
	w.w.gre_seq = 77;
	w.w.session_id = 0x155;
	w.w.vlan = 0x7;
	w.w.cos = 6;
	w.w.en_bso = 2;
	w.w.index = 0x54321;
	w.w.timestamp = 0x01020304;
	w.w.sgt = 0xbeef;
	w.w.pdu_frame = 0;
	w.w.ft = 0x11;
	w.w.hwid = 0x3f;
	w.w.direction = 0;
	w.w.gra = 3;
	w.w.has_platform = platform;
	w.w.vni = 0x000001;
	w.w.udp_sport = 0xffff;
	w.truncate_to = trunc;
	int r = roce_build_wrap(&w, inner, il, f, sizeof(f));
	cr_assert_gt(r, 0, "roce_build_wrap %d", r);
	uint32_t n = (uint32_t)r;
	uint32_t keep = trunc && trunc < il ? trunc : il;
	cr_assert_arr_eq(f + n - keep, inner, keep, "the inner frame follows the wrapper");

	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	cr_assert_eq(p.wrap.kind, kind, "kind %s", roce_wrap_name((enum roce_wrap_kind)p.wrap.kind));
	cr_assert_eq(p.wrap.depth, 1);
	cr_assert_eq(p.wrap.ip_version, ipv ? ipv : 4);
	cr_assert_eq(p.wrap.ip_off, 14);
	cr_assert_eq(p.eth_off, (int16_t)(n - keep));
	cr_assert_eq(p.h.bth.psn, b.h.bth.psn);
	cr_assert_eq(p.h.reth.va, b.h.reth.va);
	switch (kind) {
	case ROCE_WRAP_VXLAN:
		cr_assert_eq(p.wrap.vni, 1);
		cr_assert_eq(p.wrap.udp_sport, 0xffff);
		break;
	case ROCE_WRAP_GRE:
		cr_assert_eq(p.wrap.gre_proto, 0x6558);
		cr_assert_eq(p.wrap.has_key, key);
		cr_assert_eq(p.wrap.has_seq, seq);
		cr_assert_eq(p.wrap.gre_key, key ? 0x0badcafeu : 0);
		cr_assert_eq(p.wrap.gre_seq, seq ? 77u : 0);
		break;
	case ROCE_WRAP_ERSPAN1:
		cr_assert_eq(p.wrap.gre_proto, 0x88be);
		cr_assert_eq(p.wrap.erspan_ver, 0);
		cr_assert_not(p.wrap.has_seq, "type I: no sequence number");
		break;
	default:
		cr_assert_eq(p.wrap.gre_proto, kind == ROCE_WRAP_ERSPAN2 ? 0x88be : 0x22eb);
		cr_assert_eq(p.wrap.has_seq, true);
		cr_assert_eq(p.wrap.has_key, key);
		cr_assert_eq(p.wrap.gre_seq, 77);
		cr_assert_eq(p.wrap.erspan_ver, kind == ROCE_WRAP_ERSPAN2 ? 1 : 2);
		cr_assert_eq(p.wrap.session_id, 0x155);
		cr_assert_eq(p.wrap.vlan, 7);
		cr_assert_eq(p.wrap.cos, 6);
		cr_assert_eq(p.wrap.en_bso, 2);
		cr_assert_eq(p.wrap.truncated, keep < il);
		if (kind == ROCE_WRAP_ERSPAN2) {
			cr_assert_eq(p.wrap.index, 0x54321);
		} else {
			cr_assert_eq(p.wrap.timestamp, 0x01020304);
			cr_assert_eq(p.wrap.sgt, 0xbeef);
			cr_assert_eq(p.wrap.pdu_frame, 0);
			cr_assert_eq(p.wrap.ft, 0x11);
			cr_assert_eq(p.wrap.hwid, 0x3f);
			cr_assert_eq(p.wrap.direction, 0);
			cr_assert_eq(p.wrap.gra, 3);
			cr_assert_eq(p.wrap.has_platform, platform);
		}
		break;
	}
	if (keep < il) {
		cr_assert(u_has(&p, "truncated"));
		cr_assert_eq(p.icrc_status, ROCE_ICRC_UNVERIFIABLE);
		if (kind == ROCE_WRAP_ERSPAN2 || kind == ROCE_WRAP_ERSPAN3)
			EXPECT_EVENTS(&p, "truncated", "erspan.truncated");
		else
			EXPECT_EVENTS(&p, "truncated");
	} else {
		cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
		EXPECT_NO_EVENTS(&p);
	}
}

Test(build, wrap_every_kind)
{
	for (unsigned ipv = 0; ipv <= 6; ipv += 2) {
		if (ipv == 2)
			continue;   /* 0 (IPv4 by default), 4, 6 */
		for (unsigned ks = 0; ks < 4; ks++) {
			wrap_round_trip(ROCE_WRAP_GRE, ipv, ks & 1, ks & 2, false, 0);
			wrap_round_trip(ROCE_WRAP_ERSPAN2, ipv, ks & 1, true, false, 0);
			wrap_round_trip(ROCE_WRAP_ERSPAN3, ipv, ks & 1, true, ks & 2, 0);
		}
		wrap_round_trip(ROCE_WRAP_ERSPAN1, ipv, false, false, false, 0);
		wrap_round_trip(ROCE_WRAP_VXLAN, ipv, false, false, false, 0);
	}
}

Test(build, wrap_truncate_to)
{
	static const unsigned kinds[] = {ROCE_WRAP_GRE, ROCE_WRAP_ERSPAN1, ROCE_WRAP_ERSPAN2, ROCE_WRAP_ERSPAN3,
					 ROCE_WRAP_VXLAN};
	for (unsigned k = 0; k < 5; k++) {
		wrap_round_trip(kinds[k], 4, true, true, false, 100);   /* cut inside the payload */
		wrap_round_trip(kinds[k], 6, false, true, true, 1000);  /* larger than the frame: kept whole */
	}
}

Test(build, wrap_errors)
{
	uint8_t inner[FRAME_CAP], f[FRAME_CAP];
	struct roce_build b;
	struct roce_build_wrap w;

	u_base(&b);
	uint32_t il = u_build(&b, inner);
	memset(&w, 0, sizeof(w));
	w.kind = ROCE_WRAP_NONE;
	cr_assert_eq(roce_build_wrap(&w, inner, il, f, sizeof(f)), ROCE_ERR_ARG, "no kind");
	w.kind = 99;
	cr_assert_eq(roce_build_wrap(&w, inner, il, f, sizeof(f)), ROCE_ERR_ARG, "unknown kind");
	w.kind = ROCE_WRAP_GRE;
	w.ip_version = 5;
	cr_assert_eq(roce_build_wrap(&w, inner, il, f, sizeof(f)), ROCE_ERR_ARG, "IP version 5");
	w.ip_version = 4;
	int n = roce_build_wrap(&w, inner, il, f, sizeof(f));
	cr_assert_eq(n, (int)(14 + 20 + 4 + il));
	for (size_t cap = 0; cap < (size_t)n; cap++)
		cr_assert_eq(roce_build_wrap(&w, inner, il, f, cap), ROCE_ERR_NOSPACE, "cap %zu", cap);
	cr_assert_eq(roce_build_wrap(&w, inner, il, f, (size_t)n), n);
}

Test(build, wrap_names)
{
	cr_assert_str_eq(roce_wrap_name(ROCE_WRAP_NONE), "none");
	cr_assert_str_eq(roce_wrap_name(ROCE_WRAP_GRE), "gre");
	cr_assert_str_eq(roce_wrap_name(ROCE_WRAP_ERSPAN1), "erspan1");
	cr_assert_str_eq(roce_wrap_name(ROCE_WRAP_ERSPAN2), "erspan2");
	cr_assert_str_eq(roce_wrap_name(ROCE_WRAP_ERSPAN3), "erspan3");
	cr_assert_str_eq(roce_wrap_name(ROCE_WRAP_VXLAN), "vxlan");
	cr_assert_str_eq(roce_layer_name(ROCE_LAYER_BTH), "bth");
	cr_assert_str_eq(roce_layer_name(ROCE_LAYER_EXT), "eth");
	cr_assert_str_eq(roce_layer_name(ROCE_LAYER_ICRC), "icrc");
	cr_assert_str_eq(roce_csum_name(ROCE_CSUM_UNVERIFIABLE), "unverifiable");
}
