/* test_fields.c: the field table (include/roce/fields.def, analyzer/core/fields.c): names unique
 * and found by name; every field's bytes (roce_field_span, roce_hdr_offset) hold its value, for
 * every opcode's extended headers, behind VLAN tags and inside GRE/ERSPAN/VXLAN wrappers; fields
 * absent where the frame lacks them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "unit_util.h"

Test(fields, names_unique_and_found)
{
	for (unsigned i = 0; i < ROCE_F_COUNT; i++) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)i);
		cr_assert_eq(roce_field_by_name(fi->path), (int)i, "%s", fi->path);
		cr_assert(fi->label && fi->label[0], "%s", fi->path);
		cr_assert(fi->ft == ROCE_FT_NONE || fi->kind != ROCE_FK_T, "%s", fi->path);
		bool str = fi->kind == ROCE_FK_S || fi->kind == ROCE_FK_AS;
		cr_assert(fi->kind != ROCE_FK_O || fi->ft == ROCE_FT_NONE, "%s: an object has no value", fi->path);
		cr_assert(fi->ft == ROCE_FT_NONE || str == (fi->ft == ROCE_FT_STRING || fi->ft == ROCE_FT_CSUM_STATUS),
			  "%s: a string field registers as a string", fi->path);
	}
	cr_assert_eq(roce_field_by_name("roce.nope"), -1);
	cr_assert_null(roce_field_info(ROCE_F_COUNT));
}

static uint64_t be(const uint8_t *b, uint32_t n)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* Fields whose bytes are the value itself (whole bytes, big-endian). */
static const enum roce_field whole[] = {
	ROCE_F_OPCODE, ROCE_F_PKEY, ROCE_F_DQPN, ROCE_F_PSN, ROCE_F_RDETH_EECNXT, ROCE_F_DETH_QKEY,
	ROCE_F_DETH_SRCQP, ROCE_F_XRCETH_XRCSRQ, ROCE_F_RETH_VA, ROCE_F_RETH_RKEY, ROCE_F_RETH_DMALEN,
	ROCE_F_ATOMICETH_VA, ROCE_F_ATOMICETH_RKEY, ROCE_F_ATOMICETH_SWAP, ROCE_F_ATOMICETH_CMP,
	ROCE_F_AETH_SYNDROME, ROCE_F_AETH_MSN, ROCE_F_ATOMICACKETH_ORIG, ROCE_F_IMMDT, ROCE_F_IETH,
	ROCE_F_VLAN_TPID, ROCE_F_WRAP_VNI, ROCE_F_WRAP_UDP_SPORT, ROCE_F_WRAP_GRE_PROTO, ROCE_F_WRAP_GRE_KEY,
	ROCE_F_WRAP_GRE_SEQ, ROCE_F_ERSPAN_INDEX, ROCE_F_ERSPAN_TIMESTAMP, ROCE_F_ERSPAN_SGT,
};

static unsigned check_spans(const uint8_t *f, uint32_t len, const struct roce_pkt *p, const char *ctx)
{
	struct roce_field_src src = {.data = f, .p = p};
	struct roce_field_val v;
	unsigned n = 0;
	for (size_t k = 0; k < sizeof(whole) / sizeof(whole[0]); k++) {
		for (unsigned idx = 0; roce_field_get(whole[k], &src, idx, &v); idx++) {
			uint32_t off, l;
			cr_assert(roce_field_span(whole[k], p, idx, &off, &l), "%s: %s has no bytes", ctx,
				  roce_field_info(whole[k])->path);
			cr_assert_leq(off + l, len);
			cr_assert_eq(be(f + off, l), v.u, "%s: %s at %u: 0x%llx, value 0x%llx", ctx,
				     roce_field_info(whole[k])->path, off, (unsigned long long)be(f + off, l),
				     (unsigned long long)v.u);
			n++;
			if (roce_field_info(whole[k])->kind != ROCE_FK_RU)
				break;
		}
	}
	/* the ICRC: its 4 bytes read least significant first */
	if (roce_field_get(ROCE_F_ICRC_VALUE, &src, 0, &v)) {
		uint32_t off, l;
		cr_assert(roce_field_span(ROCE_F_ICRC_VALUE, p, 0, &off, &l));
		cr_assert_eq((uint32_t)(f[off] | f[off + 1] << 8 | f[off + 2] << 16 | (uint32_t)f[off + 3] << 24), v.u, "%s", ctx);
		n++;
	}
	return n;
}

Test(fields, every_opcode_header_at_its_offset)
{
	uint8_t f[FRAME_CAP];
	unsigned checked = 0;
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *oi = roce_opcode_info((uint8_t)op);
		if (!oi->name)
			continue;
		struct roce_build b;
		u_base(&b);
		u_fill_hdrs(&b.h, (uint8_t)op, op);
		b.payload = u_payload();
		b.payload_len = (oi->flags & ROCE_OPF_PAYLOAD) ? 13 : 0;
		if (op == 0x1D)  /* ATOMIC WRITE: 8 bytes */
			b.payload_len = 8;
		b.n_vlan = 2;
		b.vlan[0].vid = 100;
		b.vlan[1].vid = 200;
		uint32_t len = u_build(&b, f);
		struct roce_pkt p;
		cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
		checked += check_spans(f, len, &p, oi->name);
		for (unsigned h = 1; h <= ROCE_HDR_IETH; h <<= 1)
			cr_assert_eq(roce_hdr_offset(&p, h) != 0, (p.h.hdrs & h) != 0, "%s hdr %#x", oi->name, h);
	}
	cr_assert_gt(checked, 500);
}

Test(fields, wrappers_at_their_offsets)
{
	static const unsigned kinds[] = {ROCE_WRAP_GRE, ROCE_WRAP_ERSPAN2, ROCE_WRAP_ERSPAN3, ROCE_WRAP_VXLAN};
	uint8_t in[FRAME_CAP], f[FRAME_CAP];
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (unsigned ipv = 4; ipv <= 6; ipv += 2) {
			struct roce_build b;
			u_base(&b);
			u_fill_hdrs(&b.h, 0x0a /* RDMA WRITE ONLY */, 3);
			b.payload = u_payload();
			b.payload_len = 8;
			uint32_t ilen = u_build(&b, in);
			struct roce_build_wrap wr = {.kind = kinds[k], .ip_version = ipv};
			wr.src[0] = 192, wr.src[3] = 1, wr.dst[0] = 192, wr.dst[3] = 2;
			wr.w.has_key = kinds[k] == ROCE_WRAP_GRE;
			wr.w.gre_key = 0x01020304;
			wr.w.has_seq = kinds[k] != ROCE_WRAP_VXLAN;
			wr.w.gre_seq = 77;
			wr.w.session_id = 5;
			wr.w.index = 0x1234;
			wr.w.timestamp = 0xabcdef01;
			wr.w.sgt = 0x5678;
			wr.w.vni = 0x00beef;
			wr.w.udp_sport = 5555;
			int len = roce_build_wrap(&wr, in, ilen, f, sizeof(f));
			cr_assert_gt(len, 0);
			struct roce_pkt p;
			cr_assert_eq(u_decode(f, (uint32_t)len, ROCE_LINK_ETHERNET, &p), 1);
			cr_assert_eq(p.wrap.kind, kinds[k]);
			char ctx[32];
			snprintf(ctx, sizeof(ctx), "%s/ipv%u", roce_wrap_name((enum roce_wrap_kind)kinds[k]), ipv);
			cr_assert_geq(check_spans(f, (uint32_t)len, &p, ctx), 5);
			struct roce_field_src src = {.data = f, .p = &p};
			struct roce_field_val v;
			cr_assert(roce_field_get(ROCE_F_WRAP_SRC, &src, 0, &v));
			uint32_t off, l;
			cr_assert(roce_field_span(ROCE_F_WRAP_SRC, &p, 0, &off, &l));
			cr_assert_eq(l, ipv == 4 ? 4u : 16u);
			cr_assert_eq(f[off], 192);
			cr_assert_str_eq(v.s, ipv == 4 ? "192.0.0.1" : "c000:1::");
		}
	}
}

Test(fields, absent_where_the_frame_lacks_them)
{
	uint8_t f[FRAME_CAP];
	struct roce_build b;
	u_base(&b);
	u_fill_hdrs(&b.h, 0x04 /* SEND ONLY */, 0);
	uint32_t len = u_build(&b, f);
	struct roce_pkt p;
	cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
	struct roce_field_src src = {.data = f, .p = &p, .frame_no = 7, .ts_sec = 1, .ts_nsec = 5};
	struct roce_field_val v;
	cr_assert_not(roce_field_get(ROCE_F_RETH_VA, &src, 0, &v));
	cr_assert_not(roce_field_get(ROCE_F_VLAN_VID, &src, 0, &v));
	cr_assert_not(roce_field_get(ROCE_F_WRAP_KIND, &src, 0, &v));
	cr_assert_not(roce_field_get(ROCE_F_GRH_SRC, &src, 0, &v));
	cr_assert_not(roce_field_get(ROCE_F_PSN, &src, 1, &v), "only arrays have elements past 0");
	cr_assert(roce_field_get(ROCE_F_FRAME, &src, 0, &v));
	cr_assert_eq(v.u, 7);
	cr_assert(roce_field_get(ROCE_F_TS, &src, 0, &v));
	cr_assert_eq(v.sec, 1);
	cr_assert_eq(v.u, 5);
	cr_assert(roce_field_get(ROCE_F_IP_SRC, &src, 0, &v));
	cr_assert_str_eq(v.s, "10.0.0.1");
	cr_assert(roce_field_get(ROCE_F_ICRC_STATUS, &src, 0, &v));
	cr_assert_str_eq(v.s, "good");
	cr_assert(roce_field_get(ROCE_F_OPCODE_NAME, &src, 0, &v));
	cr_assert_str_eq(v.s, "SEND_ONLY");
	uint32_t off, l;
	cr_assert_not(roce_field_span(ROCE_F_FRAME, &p, 0, &off, &l), "a count has no bytes");
	cr_assert_eq(roce_hdr_offset(&p, ROCE_HDR_RETH), 0);
	/* cut inside the BTH: no opcode; its bytes not claimed past the capture */
	struct roce_pkt q;
	cr_assert_eq(roce_decode(NULL, f, p.bth_off + 4, len, ROCE_LINK_ETHERNET, &q), 1);
	src.p = &q;
	cr_assert_not(roce_field_get(ROCE_F_PSN, &src, 0, &v));
	cr_assert_not(roce_field_span(ROCE_F_PSN, &q, 0, &off, &l));
}

/* The plugin registers each field with an FT as "roce." + path and each event's expert info as
 * "roce." + name: Wireshark refuses one name with two types (tshark aborts on it). */
Test(fields, plugin_names_apart_from_the_events)
{
	for (unsigned i = 0; i < ROCE_F_COUNT; i++) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)i);
		if (fi->ft == ROCE_FT_NONE)
			continue;
		const char *name = strncmp(fi->path, "roce.", 5) == 0 ? fi->path + 5 : fi->path;
		cr_assert_eq(roce_event_by_name(name), -1, "field %s and event %s share the plugin's name roce.%s",
			     fi->path, name, name);
	}
}

/* MAC control frames: pfc.*, pause.*, mac_control.* from the table; arrays element by element,
 * pfc.enabled present when empty, mac_control present with nothing captured after the EtherType;
 * each element's bytes where the frame has them. */
Test(fields, mac_control_frames)
{
	uint8_t f[128];
	struct roce_build_macc m = {.eth_src = {2, 0, 0, 0, 0, 2}, .opcode = ROCE_MACC_PFC, .enbv = 0x28};
	memcpy(m.eth_dst, roce_macc_dst, 6);
	m.quanta[3] = 65535;
	m.quanta[5] = 7;
	m.n_vlan = 1;
	m.vlan[0] = (struct roce_vlan){0x8100, 3, 0, 100};
	int len = roce_build_macc(&m, f, sizeof(f));
	cr_assert_eq(len, 60);
	struct roce_pkt p;
	cr_assert_eq(roce_decode(NULL, f, (uint32_t)len, (uint32_t)len, ROCE_LINK_ETHERNET, &p), 0);
	struct roce_field_src src = {.data = f, .p = &p};
	struct roce_field_val v;
	uint32_t off, l;
	cr_assert(roce_field_get(ROCE_F_PFC_OPCODE, &src, 0, &v));
	cr_assert_eq(v.u, 0x0101);
	cr_assert(roce_field_span(ROCE_F_PFC_OPCODE, &p, 0, &off, &l));
	cr_assert_eq(off, 18);
	cr_assert_eq(l, 2);
	cr_assert(roce_field_get(ROCE_F_PFC_ENBV, &src, 0, &v));
	cr_assert_eq(v.u, 0x28);
	unsigned want_en[] = {3, 5}, k = 0;
	for (; roce_field_get(ROCE_F_PFC_ENABLED, &src, k, &v); k++)
		cr_assert_eq(v.u, want_en[k]);
	cr_assert_eq(k, 2);
	for (k = 0; roce_field_get(ROCE_F_PFC_QUANTA, &src, k, &v); k++) {
		cr_assert_eq(v.u, m.quanta[k], "priority %u", k);
		cr_assert(roce_field_span(ROCE_F_PFC_QUANTA, &p, k, &off, &l));
		cr_assert_eq(off, 18 + 4 + 2 * k);
		cr_assert_eq(l, 2);
	}
	cr_assert_eq(k, 8);
	cr_assert_not(roce_field_span(ROCE_F_PFC_QUANTA, &p, 8, &off, &l));
	cr_assert_not(roce_field_has(ROCE_F_PFC_MALFORMED, &src));
	cr_assert_not(roce_field_has(ROCE_F_PAUSE_QUANTA, &src));
	cr_assert_not(roce_field_has(ROCE_F_MACC, &src));
	cr_assert_not(roce_field_has(ROCE_F_IP_SRC, &src));
	cr_assert(roce_field_has(ROCE_F_VLAN_PCP, &src));

	/* no class enabled, a time on one anyway: enabled [] (present), malformed [time_disabled_class] */
	m.enbv = 0;
	m.n_vlan = 0;
	len = roce_build_macc(&m, f, sizeof(f));
	cr_assert_eq(roce_decode(NULL, f, (uint32_t)len, (uint32_t)len, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert(roce_field_has(ROCE_F_PFC_ENABLED, &src));
	cr_assert_not(roce_field_get(ROCE_F_PFC_ENABLED, &src, 0, &v));
	cr_assert(roce_field_has(ROCE_F_PFC_MALFORMED, &src));
	cr_assert(roce_field_get(ROCE_F_PFC_MALFORMED, &src, 0, &v));
	cr_assert_str_eq(v.s, "time_disabled_class");
	cr_assert_not(roce_field_get(ROCE_F_PFC_MALFORMED, &src, 1, &v));

	/* PAUSE to another address: pause.quanta, pause.malformed [dst] */
	struct roce_build_macc pa = {.eth_dst = {2, 0, 0, 0, 0, 1}, .eth_src = {2, 0, 0, 0, 0, 2},
				     .opcode = ROCE_MACC_PAUSE, .quanta = {500}};
	len = roce_build_macc(&pa, f, sizeof(f));
	cr_assert_eq(roce_decode(NULL, f, (uint32_t)len, (uint32_t)len, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert_not(roce_field_has(ROCE_F_PFC_OPCODE, &src));
	cr_assert(roce_field_get(ROCE_F_PAUSE_QUANTA, &src, 0, &v));
	cr_assert_eq(v.u, 500);
	cr_assert(roce_field_span(ROCE_F_PAUSE_QUANTA, &p, 0, &off, &l));
	cr_assert_eq(off, 16);
	cr_assert(roce_field_get(ROCE_F_PAUSE_MALFORMED, &src, 0, &v));
	cr_assert_str_eq(v.s, "dst");

	/* another opcode: mac_control.opcode; cut after the EtherType: mac_control alone */
	pa.opcode = 3;
	len = roce_build_macc(&pa, f, sizeof(f));
	cr_assert_eq(roce_decode(NULL, f, (uint32_t)len, (uint32_t)len, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert(roce_field_has(ROCE_F_MACC, &src));
	cr_assert(roce_field_get(ROCE_F_MACC_OPCODE, &src, 0, &v));
	cr_assert_eq(v.u, 3);
	cr_assert_not(roce_field_has(ROCE_F_MACC_MALFORMED, &src));
	cr_assert_eq(roce_decode(NULL, f, 15, (uint32_t)len, ROCE_LINK_ETHERNET, &p), 0);
	cr_assert(roce_field_has(ROCE_F_MACC, &src));
	cr_assert_not(roce_field_has(ROCE_F_MACC_OPCODE, &src));
	cr_assert_not(roce_field_get(ROCE_F_MACC, &src, 1, &v), "an object has no elements");
}
