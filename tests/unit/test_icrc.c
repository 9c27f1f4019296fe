/* test_icrc.c: the RoCE invariant CRC (IBTA Vol 1 §7.8.1, Annex A16/A17; analyzer/core/icrc.c).
 * Known answers (a ConnectX-4 Lx CNP captured from hardware; scapy's UC SEND_ONLY vector), an
 * independent bitwise reference implementation over IPv4 (with options), IPv6 (with extension
 * headers) and RoCEv1 GRH frames, and the masking rules: fields routers rewrite do not change the
 * ICRC, every other covered field does. */
#include <criterion/criterion.h>
#include <string.h>

#include "icrc.h"
#include "unit_util.h"

/* ---- ConnectX-4 Lx CNP (real hardware), 74 bytes ---- */
static const uint8_t cnp_frame[74] = {
	0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2,       /* Ethernet dst */
	0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32,       /* Ethernet src */
	0x08, 0x00,                               /* EtherType IPv4 */
	0x45, 0xc2, 0x00, 0x3c,                   /* IPv4: IHL 5, TOS 0xc2 (DSCP 48, ECT(0)), total 60 */
	0x71, 0x8c, 0x40, 0x00,                   /* ID 0x718c, DF */
	0x40, 0x11, 0x91, 0x61,                   /* TTL 64, UDP, checksum 0x9161 */
	0x0a, 0x00, 0x11, 0x01,                   /* src 10.0.17.1 */
	0x0a, 0x00, 0x12, 0x01,                   /* dst 10.0.18.1 */
	0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, /* UDP 0 -> 4791, length 40, checksum 0 */
	0x81, 0x00, 0xff, 0xff,                   /* BTH: CNP 0x81, flags 0, P_Key 0xffff */
	0x40, 0x00, 0x01, 0x18,                   /* BECN, DestQP 0x000118 */
	0x00, 0x00, 0x00, 0x00,                   /* AckReq 0, PSN 0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* CNP reserved */
	0x82, 0xfd, 0x00, 0x2a,                   /* ICRC, least significant byte first */
};

/* ---- an independent reference: bitwise CRC-32 over a masked copy ---- */

static uint32_t ref_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	uint32_t c = ~crc;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* kind ROCE_NET_*; udp_off 0 for RoCEv1. */
static uint32_t ref_icrc(const uint8_t *f, unsigned kind, uint32_t net_off, uint32_t udp_off, uint32_t bth_off,
			 uint32_t icrc_off)
{
	uint8_t m[FRAME_CAP + 8];
	uint32_t n = icrc_off - net_off;

	memset(m, 0xff, 8);                     /* the LRH of IB, all ones */
	memcpy(m + 8, f + net_off, n);
	uint8_t *ip = m + 8;
	if (kind == ROCE_NET_IPV4) {
		ip[1] = 0xff;                   /* TOS */
		ip[8] = 0xff;                   /* TTL */
		ip[10] = ip[11] = 0xff;         /* header checksum */
	} else {
		ip[0] |= 0x0f;                  /* traffic class (high nibble) */
		ip[1] = ip[2] = ip[3] = 0xff;   /* traffic class (low nibble), flow label */
		ip[7] = 0xff;                   /* hop limit */
	}
	if (udp_off)
		m[8 + udp_off - net_off + 6] = m[8 + udp_off - net_off + 7] = 0xff;  /* UDP checksum */
	m[8 + bth_off - net_off + 4] = 0xff;    /* BTH FECN, BECN, Resv6 */
	return ref_crc32(0, m, 8 + n);
}

static uint32_t wire_icrc(const uint8_t *f, uint32_t icrc_off)
{
	return (uint32_t)f[icrc_off] | (uint32_t)f[icrc_off + 1] << 8 | (uint32_t)f[icrc_off + 2] << 16 |
	       (uint32_t)f[icrc_off + 3] << 24;
}

Test(icrc, reference_crc32_check_value)
{
	/* the CRC-32 check value: "123456789" -> 0xcbf43926 */
	cr_assert_eq(ref_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
}

Test(icrc, cnp_connectx4lx_known_answer)
{
	struct roce_pkt p;

	cr_assert_eq(u_decode(cnp_frame, sizeof(cnp_frame), ROCE_LINK_ETHERNET, &p), 1);
	cr_assert_eq(p.version, 2);
	cr_assert_eq(p.net.ip_csum, ROCE_CSUM_GOOD);
	cr_assert_eq(p.h.bth.opcode, 0x81);
	cr_assert_eq(p.h.bth.becn, 1);
	cr_assert_eq(p.h.bth.dqpn, 0x118);
	cr_assert_eq(p.icrc_off, 70);
	cr_assert_eq(p.icrc_wire, 0x2a00fd82u);
	cr_assert_eq(p.icrc_computed, 0x2a00fd82u);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	EXPECT_NO_EVENTS(&p);
	/* the internal function and the reference agree */
	cr_assert_eq(icrc_compute(cnp_frame, ROCE_NET_IPV4, 14, 20, 42, 70), 0x2a00fd82u);
	cr_assert_eq(ref_icrc(cnp_frame, ROCE_NET_IPV4, 14, 34, 42, 70), 0x2a00fd82u);
}

Test(icrc, cnp_any_flipped_covered_bit_is_bad)
{
	/* every bit of the BTH (except byte 4), the reserved bytes and the ICRC itself */
	for (uint32_t byte = 42; byte < 74; byte++) {
		if (byte == 46)
			continue;
		for (unsigned bit = 0; bit < 8; bit++) {
			uint8_t f[74];
			struct roce_pkt p;
			memcpy(f, cnp_frame, sizeof(f));
			f[byte] ^= (uint8_t)(1u << bit);
			u_decode(f, sizeof(f), ROCE_LINK_ETHERNET, &p);
			if (byte == 42)  /* a different opcode may need more headers than the packet holds */
				cr_assert(p.icrc_status == ROCE_ICRC_BAD || u_has(&p, "packet.too_short"));
			else
				cr_assert_eq(p.icrc_status, ROCE_ICRC_BAD, "byte %u bit %u", byte, bit);
		}
	}
}

Test(icrc, cnp_masked_fields_do_not_matter)
{
	uint8_t f[74];
	struct roce_pkt p;

	memcpy(f, cnp_frame, sizeof(f));
	f[15] = 0x03;              /* TOS: ECN CE */
	f[22] = 1;                 /* TTL */
	f[24] = f[25] = 0x12;      /* IPv4 checksum (now wrong) */
	f[40] = 0xab;              /* UDP checksum (now wrong, non-zero) */
	f[46] = 0xbf;              /* BTH byte 4: FECN, BECN, Resv6 */
	u_decode(f, sizeof(f), ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	cr_assert(u_has(&p, "ip.checksum_bad"));
	cr_assert(u_has(&p, "udp.checksum_bad"));
	cr_assert(u_has(&p, "ecn.ce"));
	cr_assert(u_has(&p, "bth.reserved_nonzero"));
}

Test(icrc, scapy_uc_send_only_vector)
{
	static const uint8_t payload[18] = {'F', '0', 0x81, 0x8b, 0xe2, 0x89, '5', 0xd9, 0x0e,
					    0x9a, 0x95, 'P', 'T', 0x01, 0xbe, 0x88, '^', 'P'};
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	u_base(&b);
	b.tclass = 1;
	b.ip_id = 1144;
	b.dont_fragment = true;
	b.ttl = 64;
	memset(b.src, 0, 16);
	memset(b.dst, 0, 16);
	memcpy(b.src, (const uint8_t[]){192, 168, 0, 7}, 4);
	memcpy(b.dst, (const uint8_t[]){192, 168, 0, 7}, 4);
	b.udp_sport = 49152;
	b.udp_dport = 4791;
	memset(&b.h, 0, sizeof(b.h));
	b.h.bth.opcode = 0x24;   /* UC SEND_ONLY */
	b.h.bth.m = 1;
	b.h.bth.pkey = 0xffff;
	b.h.bth.dqpn = 211;
	b.h.bth.psn = 13571856;
	b.payload = payload;
	b.payload_len = sizeof(payload);
	uint32_t n = u_build(&b, f);

	cr_assert_eq(n, 14 + 20 + 8 + 12 + 18 + 2 + 4);
	cr_assert_eq(f[14 + 10], 0xb4, "IPv4 checksum 0xb4d5");
	cr_assert_eq(f[14 + 11], 0xd5);
	cr_assert_eq(f[42 + 1], 0x60, "M 1, PadCnt 2");
	cr_assert_eq(f[n - 6], 0, "pad bytes are zero");
	cr_assert_eq(f[n - 5], 0);
	static const uint8_t icrc[4] = {0x78, 0xf3, 0x53, 0xf3};
	cr_assert_arr_eq(f + n - 4, icrc, 4, "ICRC wire bytes 78 f3 53 f3");
	cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
	cr_assert_eq(p.icrc_wire, 0xf353f378u);
	cr_assert_eq(p.payload_len, 18);
	cr_assert_eq(p.h.bth.padcnt, 2);
	EXPECT_NO_EVENTS(&p);
}

/* ---- the three network headers, against the reference ---- */

static const uint8_t ip4_opts[8] = {0x94, 0x04, 0x00, 0x00, /* Router Alert */
				    0x01, 0x01, 0x01, 0x00};   /* NOP NOP NOP EOL */
static const uint8_t ip6_ext[24] = {
	60, 0, 1, 4, 0, 0, 0, 0,                   /* Hop-by-Hop: next Destination Options, PadN */
	17, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* Destination Options (16 bytes): next UDP */
};

enum variant { V4_OPTS, V6_EXT, V6_PLAIN, V1_GRH, V4_PLAIN };

static void base_variant(struct roce_build *b, enum variant v)
{
	u_base(b);
	u_fill_hdrs(&b->h, 0x0a, 3);   /* RC WRITE_ONLY: RETH and a payload */
	b->payload = u_payload();
	b->payload_len = 37;           /* PadCnt 3 */
	switch (v) {
	case V4_OPTS:
		b->ip_options = ip4_opts;
		b->ip_options_len = sizeof(ip4_opts);
		break;
	case V6_EXT:
		u_set_v6(b);
		b->ip_version = 6;
		b->ip_options = ip6_ext;
		b->ip_options_len = sizeof(ip6_ext);
		b->ip6_first_ext = 0;
		break;
	case V6_PLAIN:
		u_set_v6(b);
		b->ip_version = 6;
		break;
	case V1_GRH:
		u_set_v6(b);
		b->version = 1;
		break;
	case V4_PLAIN:
		break;
	}
}

static uint32_t build_icrc(const struct roce_build *b, uint8_t *f, uint32_t *len)
{
	uint32_t n = u_build(b, f);
	if (len)
		*len = n;
	return wire_icrc(f, n - 4);
}

static const enum variant variants[] = {V4_PLAIN, V4_OPTS, V6_PLAIN, V6_EXT, V1_GRH};
static const char *const variant_names[] = {"IPv4+options", "IPv6+ext", "IPv6", "RoCEv1", "IPv4"};

/* Payload lengths: short ones, every length across 256 (icrc_compute CRCs a rest of up to 256
 * bytes in one call, behind the masked headers, and a longer one in two), and MTU sizes. */
static uint32_t next_plen(uint32_t plen)
{
	return plen < 70 ? plen + 7 : plen < 200 ? 200 : plen < 300 ? plen + 1 : plen < 1024 ? 1024 : plen * 2;
}

Test(icrc, reference_agrees_ipv4_ipv6_grh)
{
	for (unsigned vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
		for (uint32_t plen = 0; plen <= 2048; plen = next_plen(plen)) {
			struct roce_build b;
			uint8_t f[FRAME_CAP];
			struct roce_pkt p;
			uint32_t n;
			base_variant(&b, variants[vi]);
			b.payload_len = plen;
			uint32_t icrc = build_icrc(&b, f, &n);
			cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
			cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "%s", variant_names[variants[vi]]);
			uint32_t ref = ref_icrc(f, p.net.kind, p.net.off, p.version == 2 ? p.udp.off : 0, p.bth_off,
						p.icrc_off);
			cr_assert_eq(icrc, ref, "%s payload %u: builder 0x%08x, reference 0x%08x",
				     variant_names[variants[vi]], plen, icrc, ref);
			cr_assert_eq(p.icrc_computed, ref);
			cr_assert_eq(icrc_compute(f, p.net.kind, p.net.off, p.net.hdr_len, p.bth_off, p.icrc_off), ref);
		}
	}
}

/* A change made through the builder: same ICRC (masked) or a different one (covered). */
typedef void (*tweak_fn)(struct roce_build *b);

static void t_tos(struct roce_build *b) { b->tclass = 0xff; }
static void t_ecn(struct roce_build *b) { b->tclass ^= 3; }
static void t_ttl(struct roce_build *b) { b->ttl = 1; }
static void t_flow(struct roce_build *b) { b->flow_label = 0xfffff; }
static void t_udp_csum(struct roce_build *b) { b->udp_checksum = true; }
static void t_bad_udp_csum(struct roce_build *b) { b->flags |= ROCE_BUILD_BAD_UDP_CSUM; }
static void t_bad_ip_csum(struct roce_build *b) { b->flags |= ROCE_BUILD_BAD_IP_CSUM; }
static void t_fecn(struct roce_build *b) { b->h.bth.fecn ^= 1; }
static void t_becn(struct roce_build *b) { b->h.bth.becn ^= 1; }
static void t_resv6(struct roce_build *b) { b->h.bth.resv6 = 0x2a; }
static void t_sport(struct roce_build *b) { b->udp_sport ^= 1; }
static void t_id(struct roce_build *b) { b->ip_id ^= 0x100; }
static void t_src(struct roce_build *b) { b->src[3] ^= 1; }
static void t_dst(struct roce_build *b) { b->dst[15] ^= 0x80; b->dst[3] ^= 0x80; }
static void t_psn(struct roce_build *b) { b->h.bth.psn ^= 1; }
static void t_qpn(struct roce_build *b) { b->h.bth.dqpn ^= 0x800000; }
static void t_pkey(struct roce_build *b) { b->h.bth.pkey ^= 0x0100; }
static void t_se(struct roce_build *b) { b->h.bth.se ^= 1; }
static void t_ackreq(struct roce_build *b) { b->h.bth.ackreq ^= 1; }
static void t_reth(struct roce_build *b) { b->h.reth.rkey ^= 0x10000; }
static void t_payload(struct roce_build *b)
{
	static uint8_t alt[64];
	memcpy(alt, b->payload, b->payload_len);
	alt[b->payload_len / 2] ^= 0x01;
	b->payload = alt;
}
static void t_pad(struct roce_build *b)
{
	b->flags |= ROCE_BUILD_PADCNT_AS_GIVEN;
	b->h.bth.padcnt = 2;   /* PadCnt 2 instead of 3 (and one pad byte fewer) */
}

struct tweak { const char *name; tweak_fn fn; bool changes; unsigned only; };
#define ALL 0x1f
#define BIT(v) (1u << (v))
static const struct tweak tweaks[] = {
	{"TOS/traffic class", t_tos, false, ALL},
	{"ECN", t_ecn, false, ALL},
	{"TTL/hop limit", t_ttl, false, ALL},
	{"flow label", t_flow, false, BIT(V6_EXT) | BIT(V6_PLAIN) | BIT(V1_GRH)},
	{"UDP checksum", t_udp_csum, false, BIT(V4_OPTS) | BIT(V4_PLAIN) | BIT(V6_EXT) | BIT(V6_PLAIN)},
	{"bad UDP checksum", t_bad_udp_csum, false, BIT(V4_OPTS) | BIT(V4_PLAIN) | BIT(V6_EXT) | BIT(V6_PLAIN)},
	{"IPv4 checksum", t_bad_ip_csum, false, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"FECN", t_fecn, false, ALL},
	{"BECN", t_becn, false, ALL},
	{"Resv6", t_resv6, false, ALL},
	{"UDP source port", t_sport, true, BIT(V4_OPTS) | BIT(V4_PLAIN) | BIT(V6_EXT) | BIT(V6_PLAIN)},
	{"IPv4 ID", t_id, true, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"source address", t_src, true, ALL},
	{"destination address", t_dst, true, ALL},
	{"PSN", t_psn, true, ALL},
	{"DestQP", t_qpn, true, ALL},
	{"P_Key", t_pkey, true, ALL},
	{"SE", t_se, true, ALL},
	{"AckReq", t_ackreq, true, ALL},
	{"RETH R_Key", t_reth, true, ALL},
	{"payload", t_payload, true, ALL},
	{"PadCnt", t_pad, true, ALL},
};

Test(icrc, masking_through_the_builder)
{
	for (unsigned vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
		enum variant v = variants[vi];
		struct roce_build b;
		uint8_t f[FRAME_CAP];
		base_variant(&b, v);
		uint32_t base = build_icrc(&b, f, NULL);
		for (unsigned t = 0; t < sizeof(tweaks) / sizeof(tweaks[0]); t++) {
			if (!(tweaks[t].only & BIT(v)))
				continue;
			base_variant(&b, v);
			tweaks[t].fn(&b);
			uint32_t n, icrc = build_icrc(&b, f, &n);
			struct roce_pkt p;
			u_decode(f, n, ROCE_LINK_ETHERNET, &p);
			cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD, "%s, %s: the builder's ICRC decodes good",
				     variant_names[v], tweaks[t].name);
			if (tweaks[t].changes)
				cr_assert_neq(icrc, base, "%s: changing %s must change the ICRC", variant_names[v],
					      tweaks[t].name);
			else
				cr_assert_eq(icrc, base, "%s: changing %s must not change the ICRC", variant_names[v],
					     tweaks[t].name);
		}
	}
}

/* A change made to the frame bytes after building (as a router would): the decoder's verdict. */
struct poke { const char *name; int net_rel; int udp_rel; int bth_rel; int end_rel; uint8_t xor_; bool masked; unsigned only; };
#define NONE_ (-1000)
static const struct poke pokes[] = {
	/* IPv4 (net_rel: offset in the IP header) */
	{"IPv4 TOS/ECN", 1, NONE_, NONE_, NONE_, 0x03, true, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"IPv4 TTL", 8, NONE_, NONE_, NONE_, 0x20, true, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"IPv4 checksum", 10, NONE_, NONE_, NONE_, 0x40, true, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"IPv4 ID", 5, NONE_, NONE_, NONE_, 0x01, false, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"IPv4 source", 15, NONE_, NONE_, NONE_, 0x01, false, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"IPv4 destination", 16, NONE_, NONE_, NONE_, 0x80, false, BIT(V4_OPTS) | BIT(V4_PLAIN)},
	{"IPv4 option", 21, NONE_, NONE_, NONE_, 0x01, false, BIT(V4_OPTS)},
	/* IPv6 / GRH */
	{"traffic class", 0, NONE_, NONE_, NONE_, 0x0f, true, BIT(V6_EXT) | BIT(V6_PLAIN) | BIT(V1_GRH)},
	{"traffic class (ECN)", 1, NONE_, NONE_, NONE_, 0x30, true, BIT(V6_EXT) | BIT(V6_PLAIN) | BIT(V1_GRH)},
	{"flow label", 3, NONE_, NONE_, NONE_, 0x5a, true, BIT(V6_EXT) | BIT(V6_PLAIN) | BIT(V1_GRH)},
	{"hop limit", 7, NONE_, NONE_, NONE_, 0xff, true, BIT(V6_EXT) | BIT(V6_PLAIN) | BIT(V1_GRH)},
	{"IPv6 source", 8, NONE_, NONE_, NONE_, 0x01, false, BIT(V6_EXT) | BIT(V6_PLAIN) | BIT(V1_GRH)},
	{"IPv6 destination", 39, NONE_, NONE_, NONE_, 0x01, false, BIT(V6_EXT) | BIT(V6_PLAIN) | BIT(V1_GRH)},
	{"IPv6 ext header data", 44, NONE_, NONE_, NONE_, 0x01, false, BIT(V6_EXT)},
	/* UDP */
	{"UDP checksum", NONE_, 6, NONE_, NONE_, 0x11, true, BIT(V4_OPTS) | BIT(V4_PLAIN) | BIT(V6_EXT) | BIT(V6_PLAIN)},
	{"UDP source port", NONE_, 1, NONE_, NONE_, 0x01, false, BIT(V4_OPTS) | BIT(V4_PLAIN) | BIT(V6_EXT) | BIT(V6_PLAIN)},
	/* BTH and after */
	{"BTH FECN", NONE_, NONE_, 4, NONE_, 0x80, true, ALL},
	{"BTH BECN", NONE_, NONE_, 4, NONE_, 0x40, true, ALL},
	{"BTH Resv6", NONE_, NONE_, 4, NONE_, 0x3f, true, ALL},
	{"BTH PSN", NONE_, NONE_, 11, NONE_, 0x01, false, ALL},
	{"BTH DestQP", NONE_, NONE_, 5, NONE_, 0x80, false, ALL},
	{"BTH Resv7", NONE_, NONE_, 8, NONE_, 0x01, false, ALL},
	{"RETH", NONE_, NONE_, 12, NONE_, 0x01, false, ALL},
	{"payload", NONE_, NONE_, 30, NONE_, 0x01, false, ALL},
	{"pad byte", NONE_, NONE_, NONE_, -5, 0x01, false, ALL},
	{"ICRC", NONE_, NONE_, NONE_, -1, 0x01, false, ALL},
};

Test(icrc, masking_in_the_decoder)
{
	for (unsigned vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
		enum variant v = variants[vi];
		struct roce_build b;
		uint8_t f0[FRAME_CAP];
		struct roce_pkt p0;
		base_variant(&b, v);
		uint32_t n = u_build(&b, f0);
		u_decode(f0, n, ROCE_LINK_ETHERNET, &p0);
		cr_assert_eq(p0.icrc_status, ROCE_ICRC_GOOD);
		for (unsigned k = 0; k < sizeof(pokes) / sizeof(pokes[0]); k++) {
			const struct poke *q = &pokes[k];
			if (!(q->only & BIT(v)))
				continue;
			uint8_t f[FRAME_CAP];
			struct roce_pkt p;
			memcpy(f, f0, n);
			uint32_t at = q->net_rel != NONE_   ? p0.net.off + (uint32_t)q->net_rel
				      : q->udp_rel != NONE_ ? p0.udp.off + (uint32_t)q->udp_rel
				      : q->bth_rel != NONE_ ? p0.bth_off + (uint32_t)q->bth_rel
							    : n - (uint32_t)-q->end_rel;
			f[at] ^= q->xor_;
			cr_assert_eq(u_decode(f, n, ROCE_LINK_ETHERNET, &p), 1);
			cr_assert_eq(p.icrc_status, q->masked ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD, "%s: %s (byte %u)",
				     variant_names[v], q->name, at);
			cr_assert_eq(u_has(&p, "icrc.bad"), !q->masked);
			if (!q->masked && strcmp(q->name, "ICRC") != 0)
				cr_assert_eq(p.icrc_wire, p0.icrc_wire, "the wire value is read, not recomputed");
		}
	}
}

Test(icrc, build_icrc_bad_and_value)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	base_variant(&b, V4_PLAIN);
	uint32_t good = build_icrc(&b, f, NULL);
	b.icrc = ROCE_BUILD_ICRC_BAD;
	uint32_t n, bad = build_icrc(&b, f, &n);
	cr_assert_eq(bad, ~good, "ROCE_BUILD_ICRC_BAD flips every bit");
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_BAD);
	cr_assert_eq(p.icrc_wire, ~good);
	cr_assert_eq(p.icrc_computed, good);
	EXPECT_EVENTS(&p, "icrc.bad");
	u_expect_event_sev(&p, "icrc.bad", ROCE_SEV_ERROR);

	b.icrc = ROCE_BUILD_ICRC_VALUE;
	b.icrc_value = 0x12345678;
	cr_assert_eq(build_icrc(&b, f, &n), 0x12345678u);
	cr_assert(f[n - 4] == 0x78 && f[n - 1] == 0x12, "least significant byte first");
	b.icrc_value = good;
	cr_assert_eq(build_icrc(&b, f, &n), good);
	u_decode(f, n, ROCE_LINK_ETHERNET, &p);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_GOOD);
}

Test(icrc, no_icrc_flag_leaves_unchecked)
{
	struct roce_build b;
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_decoder_config cfg = {.flags = ROCE_DECODE_NO_ICRC};

	base_variant(&b, V4_PLAIN);
	b.icrc = ROCE_BUILD_ICRC_BAD;
	uint32_t n = u_build(&b, f);
	cr_assert_eq(roce_decode(&cfg, f, n, n, ROCE_LINK_ETHERNET, &p), 1);
	cr_assert_eq(p.icrc_status, ROCE_ICRC_UNCHECKED);
	cr_assert_eq(p.icrc_wire, wire_icrc(f, n - 4), "the wire value is still reported");
	EXPECT_NO_EVENTS(&p);
}

Test(icrc, status_names)
{
	cr_assert_str_eq(roce_icrc_status_name(ROCE_ICRC_UNCHECKED), "unchecked");
	cr_assert_str_eq(roce_icrc_status_name(ROCE_ICRC_GOOD), "good");
	cr_assert_str_eq(roce_icrc_status_name(ROCE_ICRC_BAD), "bad");
	cr_assert_str_eq(roce_icrc_status_name(ROCE_ICRC_UNVERIFIABLE), "unverifiable");
}
