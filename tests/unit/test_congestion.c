/* test_congestion.c: MAC control frames (analyzer/core/macc.c: IEEE 802.3 Annex 31B PAUSE, IEEE
 * 802.1Qbb PFC), their builder (roce_build_macc), and the congestion analysis
 * (analyzer/core/congestion.c): PFC/PAUSE accounting per source MAC and priority, ECN codepoints,
 * CE marks matched to CNPs.
 *
 * Frames are made by the builder, decoded, and fed to roce_analyze() in time order. Every expected
 * total is worked out here by hand from the scenario (quanta × 512 bit times at the link speed,
 * interval unions, deadlines), not taken from the code under test. */
#include <criterion/criterion.h>
#include <string.h>

#include "unit_util.h"

static const uint8_t MAC_A[6] = {0x02, 0, 0, 0, 0, 0x01};   /* the RoCE sender */
static const uint8_t MAC_B[6] = {0x02, 0, 0, 0, 0, 0x02};   /* its peer, which pauses it */
static const uint8_t MAC_C[6] = {0x02, 0, 0, 0, 0, 0x03};

static struct roce_analyzer *A;
static struct roce_pkt P;
static struct roce_findings F;
static uint8_t fb[FRAME_CAP];
static uint64_t n_frames;

static void teardown(void)
{
	roce_analyzer_free(A);
	A = NULL;
}

/* The default settings, for a test to change one of. */
static struct roce_congestion_config defaults(void)
{
	struct roce_congestion_config cc;
	roce_congestion_config_init(&cc);
	return cc;
}

static void mk(const struct roce_congestion_config *cc)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cfg.congestion = cc;
	roce_analyzer_free(A);
	A = roce_analyzer_new(&cfg, err);
	cr_assert_not_null(A, "%s", err);
	n_frames = 0;
}

static void analyze(uint32_t len, unsigned linktype, int64_t ts)
{
	roce_decode(NULL, fb, len, len, linktype, &P);
	memset(&F, 0xee, sizeof(F));
	roce_analyze(A, &P, ++n_frames, fb, ts, &F);
}

/* ---- MAC control frames ---- */

static uint32_t build_macc(const struct roce_build_macc *m)
{
	int n = roce_build_macc(m, fb, sizeof(fb));
	cr_assert_gt(n, 0, "roce_build_macc: %d", n);
	return (uint32_t)n;
}

static void macc_base(struct roce_build_macc *m, uint16_t opcode, const uint8_t *src)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->eth_dst, roce_macc_dst, 6);
	memcpy(m->eth_src, src, 6);
	m->opcode = opcode;
}

TestSuite(macc);

Test(macc, pfc_round_trip_every_vector_and_tags)
{
	struct roce_build_macc m;
	for (unsigned enbv = 0; enbv < 256; enbv++) {
		for (unsigned tags = 0; tags <= 2; tags++) {
			macc_base(&m, ROCE_MACC_PFC, MAC_B);
			m.enbv = (uint16_t)enbv;
			for (unsigned i = 0; i < 8; i++)
				m.quanta[i] = (enbv >> i & 1) ? (uint16_t)(enbv * 257 + i * 4099 + tags) : 0;
			m.n_vlan = tags;
			m.vlan[0] = (struct roce_vlan){0x88a8, 5, 1, 10};
			m.vlan[1] = (struct roce_vlan){0x8100, 3, 0, 200};
			uint32_t n = build_macc(&m);
			cr_assert_eq(n, 60u, "padded to the minimum frame");
			cr_assert_eq(roce_decode(NULL, fb, n, n, ROCE_LINK_ETHERNET, &P), 0);
			cr_assert_eq(P.net.kind, ROCE_NET_MACC);
			cr_assert_eq(P.n_vlan, tags);
			cr_assert_eq(P.macc.opcode, ROCE_MACC_PFC);
			cr_assert_eq(P.macc.enbv, enbv);
			cr_assert_eq(P.macc.fields, 8);
			cr_assert_eq(P.macc.off, 14 + 4 * tags);
			for (unsigned i = 0; i < 8; i++)
				cr_assert_eq(P.macc.quanta[i], m.quanta[i], "enbv 0x%02x class %u", enbv, i);
			cr_assert_eq(P.macc.malformed, 0);
			EXPECT_NO_EVENTS(&P);
		}
	}
}

Test(macc, pause_round_trip)
{
	struct roce_build_macc m;
	static const uint16_t q[] = {0, 1, 500, 0x8000, 0xffff};
	for (unsigned i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		macc_base(&m, ROCE_MACC_PAUSE, MAC_A);
		m.quanta[0] = q[i];
		m.n_vlan = i & 1;
		uint32_t n = build_macc(&m);
		cr_assert_eq(roce_decode(NULL, fb, n, n, ROCE_LINK_ETHERNET, &P), 0);
		cr_assert_eq(P.net.kind, ROCE_NET_MACC);
		cr_assert_eq(P.macc.opcode, ROCE_MACC_PAUSE);
		cr_assert_eq(P.macc.quanta[0], q[i]);
		cr_assert_eq(P.macc.fields, 1);
		EXPECT_NO_EVENTS(&P);
	}
}

static unsigned malformed_of(struct roce_build_macc *m)
{
	uint32_t n = build_macc(m);
	roce_decode(NULL, fb, n, n, ROCE_LINK_ETHERNET, &P);
	cr_assert_eq(P.net.kind, ROCE_NET_MACC);
	cr_assert_eq(u_has(&P, "pfc.malformed"), P.macc.malformed != 0);
	return P.macc.malformed;
}

Test(macc, malformed_reasons)
{
	struct roce_build_macc m;
	macc_base(&m, 0x0002, MAC_B);  /* unknown opcode to the PFC address */
	cr_assert_eq(malformed_of(&m), ROCE_MACC_BAD_OPCODE);
	memcpy(m.eth_dst, MAC_A, 6);   /* ... to another address: not ours, not malformed */
	cr_assert_eq(malformed_of(&m), 0);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);
	m.enbv = 0x08, m.quanta[3] = 5;
	memcpy(m.eth_dst, MAC_A, 6);
	cr_assert_eq(malformed_of(&m), ROCE_MACC_BAD_DST);
	macc_base(&m, ROCE_MACC_PAUSE, MAC_B);
	memcpy(m.eth_dst, MAC_A, 6);
	cr_assert_eq(malformed_of(&m), ROCE_MACC_BAD_DST);
	for (unsigned bit = 8; bit < 16; bit++) {
		macc_base(&m, ROCE_MACC_PFC, MAC_B);
		m.enbv = (uint16_t)(1u << bit | 1);
		cr_assert_eq(malformed_of(&m), ROCE_MACC_BAD_ENBV, "bit %u", bit);
	}
	for (unsigned c = 0; c < 8; c++) {
		macc_base(&m, ROCE_MACC_PFC, MAC_B);
		m.enbv = (uint16_t)(0xff & ~(1u << c));
		m.quanta[c] = 1;
		cr_assert_eq(malformed_of(&m), ROCE_MACC_BAD_TIME, "class %u", c);
	}
	macc_base(&m, ROCE_MACC_PFC, MAC_B);
	m.enbv = 1;
	for (unsigned len = 0; len < 20; len++) {  /* every cut of the PFC fields */
		m.length = len ? len : 1;
		cr_assert_eq(malformed_of(&m), ROCE_MACC_SHORT, "length %u", len);
		cr_assert_eq(P.macc.fields, len >= 4 ? (len - 4) / 2 : 0);
	}
	macc_base(&m, ROCE_MACC_PAUSE, MAC_A);
	m.length = 3;
	cr_assert_eq(malformed_of(&m), ROCE_MACC_SHORT);
	m.length = 4;
	cr_assert_eq(malformed_of(&m), 0, "no padding is fine");
}

Test(macc, truncated_capture_is_not_malformed)
{
	struct roce_build_macc m;
	macc_base(&m, ROCE_MACC_PFC, MAC_B);
	m.enbv = 0x81, m.quanta[0] = 3, m.quanta[7] = 4;
	uint32_t n = build_macc(&m);
	for (uint32_t cap = 14; cap < 34; cap++) {
		roce_decode(NULL, fb, cap, n, ROCE_LINK_ETHERNET, &P);
		cr_assert_eq(P.macc.malformed, 0, "caplen %u", cap);
		EXPECT_EVENTS(&P, "truncated");
	}
	roce_decode(NULL, fb, 34, n, ROCE_LINK_ETHERNET, &P);
	EXPECT_NO_EVENTS(&P);
}

Test(macc, cooked_capture_has_no_destination)
{
	/* SLL: the link header holds the sender's address only; no destination check */
	static uint8_t f[64];
	memset(f, 0, sizeof(f));
	f[1] = 4;                  /* outgoing */
	f[3] = 1, f[5] = 6;        /* ARPHRD_ETHER, 6-byte address */
	memcpy(f + 6, MAC_B, 6);
	f[14] = 0x88, f[15] = 0x08;
	f[16] = 0x01, f[17] = 0x01, f[19] = 0x04, f[24] = 0x12, f[25] = 0x34;  /* PFC p2 0x1234 */
	roce_decode(NULL, f, 36, 36, ROCE_LINK_SLL, &P);
	cr_assert_eq(P.net.kind, ROCE_NET_MACC);
	cr_assert_eq(P.macc.has_dst, false);
	cr_assert_eq(P.macc.quanta[2], 0x1234);
	EXPECT_NO_EVENTS(&P);
}

/* ---- PFC accounting ---- */

static void pfc_at(int64_t ts, const uint8_t *src, uint16_t enbv, const uint16_t q[8])
{
	struct roce_build_macc m;
	macc_base(&m, ROCE_MACC_PFC, src);
	m.enbv = enbv;
	memcpy(m.quanta, q, sizeof(m.quanta));
	analyze(build_macc(&m), ROCE_LINK_ETHERNET, ts);
}

static void pause_at(int64_t ts, const uint8_t *src, uint16_t q)
{
	struct roce_build_macc m;
	macc_base(&m, ROCE_MACC_PAUSE, src);
	m.quanta[0] = q;
	analyze(build_macc(&m), ROCE_LINK_ETHERNET, ts);
}

/* One class's pause time, as PFC carries it. */
static void xoff_at(int64_t ts, const uint8_t *src, unsigned prio, uint16_t q)
{
	uint16_t quanta[8] = {0};
	quanta[prio] = q;
	pfc_at(ts, src, (uint16_t)(1u << prio), quanta);
}

/* A RoCE SEND from A (MAC_A) to dst_mac: VLAN PCP pcp (pcp < 0: untagged, DSCP dscp). */
static void data_at(int64_t ts, const uint8_t *dst_mac, int pcp, unsigned dscp, unsigned linktype)
{
	struct roce_build b;
	u_base(&b);
	b.linktype = linktype;
	memcpy(b.eth_src, MAC_A, 6);
	memcpy(b.eth_dst, dst_mac, 6);
	if (pcp >= 0) {
		b.n_vlan = 1;
		b.vlan[0] = (struct roce_vlan){0x8100, (uint8_t)pcp, 0, 7};
	}
	b.tclass = (uint8_t)(dscp << 2);
	b.h.bth.opcode = 0x04;
	b.h.bth.psn = (uint32_t)n_frames;
	b.payload = u_payload();
	b.payload_len = 16;
	analyze(u_build(&b, fb), linktype, ts);
}

struct rows {
	struct roce_pfc_row r[32];
	unsigned n;
};

static void collect(const struct roce_pfc_row *r, void *user)
{
	struct rows *x = user;
	cr_assert_lt(x->n, 32u);
	x->r[x->n++] = *r;
}

static struct roce_pfc_row row_of(const uint8_t *src, int prio)
{
	struct rows x = {.n = 0};
	roce_analyzer_pfc_foreach(A, collect, &x);
	for (unsigned i = 0; i < x.n; i++)
		if (memcmp(x.r[i].src, src, 6) == 0 && x.r[i].priority == prio)
			return x.r[i];
	cr_assert_fail("no row for priority %d", prio);
	return x.r[0];
}

static unsigned n_rows(void)
{
	struct rows x = {.n = 0};
	roce_analyzer_pfc_foreach(A, collect, &x);
	return x.n;
}

static const struct roce_finding *finding(enum roce_event e, unsigned k)
{
	for (unsigned i = 0; i < F.n; i++)
		if (F.f[i].event == e && k-- == 0)
			return &F.f[i];
	cr_assert_fail("no finding %u of %s", k, roce_event_name(e));
	return NULL;
}

#define US 1000LL
TestSuite(pfc, .fini = teardown);

Test(pfc, refresh_xon_expiry_at_25g)
{
	/* 25 Gb/s: one quantum is 512 / 25e9 s = 20.48 ns */
	struct roce_congestion_config cc = defaults();
	cc.link_bps = 25000000000ull;
	mk(&cc);
	xoff_at(0, MAC_B, 3, 1000);           /* [0, 20.48 us) */
	EXPECT_EVENTS(&P, "pfc.pause");
	cr_assert_eq(finding(ROCE_EV_PFC_PAUSE, 0)->priority, 3);
	cr_assert_eq(finding(ROCE_EV_PFC_PAUSE, 0)->quanta, 1000);
	xoff_at(10 * US, MAC_B, 3, 1000);     /* a refresh: to 30.48 us */
	EXPECT_NO_EVENTS(&P);
	xoff_at(25 * US, MAC_B, 3, 0);        /* XON: 25 us paused */
	EXPECT_EVENTS(&P, "pfc.resume");
	cr_assert_eq(finding(ROCE_EV_PFC_RESUME, 0)->delta_ns, 25 * US);
	cr_assert_not(finding(ROCE_EV_PFC_RESUME, 0)->expired);
	xoff_at(100 * US, MAC_B, 3, 500);     /* [100, 110.24 us), runs out */
	EXPECT_EVENTS(&P, "pfc.pause");
	uint16_t none[8] = {0};
	pfc_at(200 * US, MAC_B, 0, none);     /* the source's next frame notes the expiry */
	EXPECT_EVENTS(&P, "pfc.resume");
	cr_assert(finding(ROCE_EV_PFC_RESUME, 0)->expired);
	cr_assert_eq(finding(ROCE_EV_PFC_RESUME, 0)->delta_ns, 10240);
	struct roce_pfc_row r = row_of(MAC_B, 3);
	cr_assert_eq(r.frames, 4);
	cr_assert_eq(r.xoff, 3);
	cr_assert_eq(r.xon, 1);
	cr_assert_eq(r.paused_ns, 25 * US + 10240);
	cr_assert_eq(r.longest_ns, 25 * US);
	cr_assert_eq(r.storms, 0);
	cr_assert_eq(roce_analyzer_span_ns(A), 200 * US);
	cr_assert_eq(n_rows(), 1, "only the classes the source named");
}

Test(pfc, several_priorities_in_one_frame_and_speeds)
{
	static const struct { uint64_t bps; int64_t q_ps; } speeds[] = {
		{10000000000ull, 51200}, {100000000000ull, 5120}, {400000000000ull, 1280},
	};  /* a quantum: 512 bits, in picoseconds */
	for (unsigned s = 0; s < 3; s++) {
		struct roce_congestion_config cc = defaults();
		cc.link_bps = speeds[s].bps;
		mk(&cc);
		uint16_t q[8] = {0, 100, 0, 65535, 0, 7, 0, 0};
		pfc_at(1000 * US, MAC_B, 0x2a | 0x01, q);  /* p0 XON, p1, p3, p5 XOFF */
		EXPECT_EVENTS(&P, "pfc.pause");
		cr_assert_eq(F.n, 3, "one finding per class paused");
		cr_assert_eq(finding(ROCE_EV_PFC_PAUSE, 0)->priority, 1);
		cr_assert_eq(finding(ROCE_EV_PFC_PAUSE, 1)->priority, 3);
		cr_assert_eq(finding(ROCE_EV_PFC_PAUSE, 2)->priority, 5);
		data_at(1000 * US + 10000 * US, MAC_C, -1, 0, ROCE_LINK_ETHERNET);  /* the end: 10 ms on */
		static const unsigned prios[] = {1, 3, 5};
		for (unsigned i = 0; i < 3; i++) {
			unsigned p = prios[i];
			int64_t want = ((int64_t)q[p] * speeds[s].q_ps + 500) / 1000;  /* rounded to ns */
			struct roce_pfc_row r = row_of(MAC_B, (int)p);
			cr_assert_eq(r.paused_ns, want, "%llu b/s p%u: %lld", (unsigned long long)speeds[s].bps, p,
				     (long long)r.paused_ns);
			cr_assert_eq(r.xoff, 1);
		}
		struct roce_pfc_row r0 = row_of(MAC_B, 0);
		cr_assert_eq(r0.xon, 1);
		cr_assert_eq(r0.paused_ns, 0);
	}
}

Test(pfc, legacy_pause_at_400g_and_clipping)
{
	struct roce_congestion_config cc = defaults();
	cc.link_bps = 400000000000ull;
	mk(&cc);
	pause_at(0, MAC_A, 65535);          /* 65535 × 1.28 ns = 83884.8 ns: 83885 */
	EXPECT_EVENTS(&P, "pfc.pause");
	cr_assert_eq(finding(ROCE_EV_PFC_PAUSE, 0)->priority, -1);
	pause_at(50 * US, MAC_A, 65535);    /* refresh: to 133884.8 */
	data_at(100 * US, MAC_C, 3, 0, ROCE_LINK_ETHERNET);  /* the capture ends here: clipped */
	struct roce_pfc_row r = row_of(MAC_A, -1);
	cr_assert_eq(r.frames, 2);
	cr_assert_eq(r.xoff, 2);
	cr_assert_eq(r.paused_ns, 100 * US);
	cr_assert_eq(r.longest_ns, 100 * US);
}

Test(pfc, storm_once_per_continuous_pause)
{
	/* 100 Gb/s: 65535 q = 335.5392 us; refreshed every 100 us from 0 to 1500 us; storm at 1 ms */
	struct roce_congestion_config cc = defaults();
	cc.pfc_storm_ns = 1000 * US;
	mk(&cc);
	for (int64_t t = 0; t <= 1500 * US; t += 100 * US) {
		xoff_at(t, MAC_B, 6, 65535);
		bool storm = t == 1100 * US;  /* the first frame more than 1 ms into the pause */
		cr_assert_eq(u_has(&P, "pfc.storm"), storm, "t %lld us", (long long)(t / US));
		if (storm) {
			cr_assert_eq(finding(ROCE_EV_PFC_STORM, 0)->priority, 6);
			cr_assert_eq(finding(ROCE_EV_PFC_STORM, 0)->delta_ns, 1100 * US);
		}
	}
	xoff_at(1600 * US, MAC_B, 6, 0);     /* XON ends it: 1.6 ms */
	xoff_at(2000 * US, MAC_B, 6, 65535); /* a new pause: its own storm count */
	xoff_at(3100 * US, MAC_B, 6, 65535); /* expired at 2335.5392: a new one again, no storm */
	EXPECT_EVENTS(&P, "pfc.pause", "pfc.resume");
	struct roce_pfc_row r = row_of(MAC_B, 6);
	cr_assert_eq(r.storms, 1);
	cr_assert_eq(r.longest_ns, 1600 * US);
	/* 1600 + 335.539 + (capture end 3100: the last pause clipped to 0) */
	cr_assert_eq(r.paused_ns, 1600 * US + 335539);
}

Test(pfc, traffic_while_paused_by_direction_and_priority)
{
	mk(NULL);
	xoff_at(0, MAC_B, 3, 65535);                      /* B pauses p3 toward B: [0, 335.539 us) */
	data_at(10 * US, MAC_B, 3, 0, ROCE_LINK_ETHERNET);
	EXPECT_EVENTS(&P, "pfc.traffic_while_paused");
	cr_assert_eq(finding(ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED, 0)->priority, 3);
	cr_assert_eq(finding(ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED, 0)->delta_ns, 10 * US);
	data_at(11 * US, MAC_B, 4, 0, ROCE_LINK_ETHERNET);  /* another priority */
	EXPECT_NO_EVENTS(&P);
	data_at(12 * US, MAC_C, 3, 0, ROCE_LINK_ETHERNET);  /* toward another MAC */
	EXPECT_NO_EVENTS(&P);
	data_at(13 * US, MAC_B, -1, 26, ROCE_LINK_ETHERNET); /* untagged DSCP 26: priority 3 */
	EXPECT_EVENTS(&P, "pfc.traffic_while_paused");
	data_at(14 * US, MAC_B, -1, 26, ROCE_LINK_SLL2);    /* no destination MAC: not known */
	EXPECT_NO_EVENTS(&P);
	data_at(400 * US, MAC_B, 3, 0, ROCE_LINK_ETHERNET); /* after the pause ran out */
	EXPECT_NO_EVENTS(&P);

	struct roce_congestion_config cc = defaults();
	cc.dscp_map = true;
	for (unsigned d = 0; d < 64; d++)
		cc.dscp_prio[d] = (uint8_t)(d >> 3);
	cc.dscp_prio[26] = 5;
	mk(&cc);
	xoff_at(0, MAC_B, 3, 65535);
	data_at(13 * US, MAC_B, -1, 26, ROCE_LINK_ETHERNET); /* mapped to 5: not paused */
	EXPECT_NO_EVENTS(&P);
	data_at(14 * US, MAC_B, -1, 24, ROCE_LINK_ETHERNET); /* 24 >> 3 = 3 */
	EXPECT_EVENTS(&P, "pfc.traffic_while_paused");

	mk(NULL);
	pause_at(0, MAC_B, 1000);                          /* legacy PAUSE: every priority, 5.12 us */
	data_at(5 * US, MAC_B, 6, 0, ROCE_LINK_ETHERNET);
	EXPECT_EVENTS(&P, "pfc.traffic_while_paused");
	cr_assert(finding(ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED, 0)->pause);
	data_at(6 * US, MAC_B, 6, 0, ROCE_LINK_ETHERNET);
	EXPECT_NO_EVENTS(&P);
}

Test(pfc, malformed_frames_not_accounted)
{
	mk(NULL);
	uint16_t q[8] = {0, 0, 100, 0, 0, 0, 0, 0};
	pfc_at(0, MAC_B, 0x01, q);  /* a time on a disabled class */
	EXPECT_EVENTS(&P, "pfc.malformed");
	cr_assert_eq(n_rows(), 0);
	data_at(1 * US, MAC_B, 2, 0, ROCE_LINK_ETHERNET);
	EXPECT_NO_EVENTS(&P);
}

/* ---- ECN and CNP ---- */

#define QP_B 0x000123u  /* B's QP: A -> B requests go to it */
#define QP_A 0x000456u  /* A's QP: B -> A ACKs and CNPs go to it */

struct flow {
	bool v6;
	unsigned n_vlan;
	unsigned a, b;  /* last address byte of A and B */
	uint32_t psn;
	uint32_t msn;   /* messages sent: the ACK's MSN */
};

static void flow_build(struct roce_build *x, const struct flow *f, bool from_b)
{
	u_base(x);
	if (f->v6) {
		u_set_v6(x);
		x->ip_version = 6;
	}
	unsigned at = f->v6 ? 15 : 3;
	x->src[at] = (uint8_t)(from_b ? f->b : f->a);
	x->dst[at] = (uint8_t)(from_b ? f->a : f->b);
	memcpy(x->eth_src, from_b ? MAC_B : MAC_A, 6);
	memcpy(x->eth_dst, from_b ? MAC_A : MAC_B, 6);
	x->n_vlan = f->n_vlan;
	x->vlan[0] = (struct roce_vlan){0x8100, 3, 0, 20};
}

/* A SEND A -> B with ECN codepoint ecn (and FECN) at ts, then B's ACK 1 us later. */
static uint64_t send_at(struct flow *f, int64_t ts, unsigned ecn, bool fecn, bool ack)
{
	struct roce_build x;
	flow_build(&x, f, false);
	x.tclass = (uint8_t)(0x68 | ecn);
	x.h.bth.opcode = 0x04;
	x.h.bth.dqpn = QP_B;
	x.h.bth.psn = f->psn;
	x.h.bth.ackreq = 1;
	x.h.bth.fecn = fecn;
	x.payload = u_payload();
	x.payload_len = 32;
	analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, ts);
	uint64_t frame = n_frames;
	if (ack) {
		struct roce_findings keep = F;
		struct roce_pkt keep_p = P;
		flow_build(&x, f, true);
		x.h.bth.opcode = 0x11;
		x.h.bth.dqpn = QP_A;
		x.h.bth.psn = f->psn;
		x.h.aeth.syndrome = 0x1f;
		x.h.aeth.msn = f->msn + 1;
		x.payload_len = 0;
		analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, ts + 1000);
		cr_assert_eq(F.n, 0, "an ACK with findings: %s", u_events_str(&P));
		F = keep;
		P = keep_p;
	}
	f->psn++;
	f->msn++;
	return frame;
}

static void cnp_at(const struct flow *f, int64_t ts, uint32_t qpn)
{
	struct roce_build x;
	flow_build(&x, f, true);
	x.tclass = 0xc2;
	x.udp_sport = 0;
	x.h.bth.opcode = 0x81;
	x.h.bth.becn = 1;
	x.h.bth.dqpn = qpn;
	analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, ts);
}

/* The stats of stream src -> dst (last address byte) to qpn. */
struct find_stream { unsigned src; uint32_t qpn; struct roce_stream_stats st; bool found; };
static void find_stream_cb(const struct roce_stream_stats *s, void *user)
{
	struct find_stream *x = user;
	if (s->src[s->addr_len - 1] == x->src && s->dqpn == x->qpn) {
		x->st = *s;
		x->found = true;
	}
}
static struct roce_stream_stats stream_of(unsigned src, uint32_t qpn)
{
	struct find_stream x = {src, qpn, {0}, false};
	roce_analyzer_foreach(A, find_stream_cb, &x);
	cr_assert(x.found, "no stream from .%u to QP 0x%x", src, qpn);
	return x.st;
}

TestSuite(cnp, .fini = teardown);

static void cnp_delays_and_bursts(bool v6, unsigned n_vlan)
{
	/* interval 50 us, timeout 1000 us (the defaults) */
	mk(NULL);
	struct flow f = {v6, n_vlan, 1, 2, 100};
	send_at(&f, 0, 2, false, true);                      /* ECT(0) */
	uint64_t ce1 = send_at(&f, 10 * US, 3, false, true); /* due */
	cnp_at(&f, 10 * US + 3500, QP_A);                    /* 3.5 us later */
	EXPECT_NO_EVENTS(&P);
	send_at(&f, 20 * US, 3, false, true);                /* covered by the CNP at 13.5 */
	send_at(&f, 63 * US, 3, false, true);                /* 49.5 us after it: covered */
	uint64_t ce2 = send_at(&f, 64 * US, 3, false, true); /* 50.5 us after it: due */
	cr_assert_neq(ce1, ce2);
	send_at(&f, 80 * US, 3, false, true);                /* 16 us after the due mark: covered */
	send_at(&f, 1064 * US, 1, true, false);              /* ECT(1), FECN; the deadline is 1064: not past */
	EXPECT_NO_EVENTS(&P);
	send_at(&f, 1064 * US + 1, 0, false, false);         /* Not-ECT, 1 ns past it */
	EXPECT_EVENTS(&P, "cnp.missing");
	const struct roce_finding *x = finding(ROCE_EV_CNP_MISSING, 0);
	cr_assert_eq(x->ref_frame, ce2);
	cr_assert_eq(x->qpn, QP_B);
	cr_assert_eq(x->delta_ns, 1000 * US + 1);
	cnp_at(&f, 2000 * US, QP_A);                          /* no CE within 1 ms before it */
	EXPECT_EVENTS(&P, "cnp.unexpected");
	uint64_t ce3 = send_at(&f, 3000 * US, 3, false, false); /* due; answered 7.25 us later */
	(void)ce3;
	cnp_at(&f, 3000 * US + 7250, QP_A);
	EXPECT_NO_EVENTS(&P);
	send_at(&f, 5000 * US, 3, false, false);             /* due: pending at the end */
	struct roce_stream_stats s = stream_of(1, QP_B);
	cr_assert_eq(s.ecn[0], 1);
	cr_assert_eq(s.ecn[1], 1);
	cr_assert_eq(s.ecn[2], 1);
	cr_assert_eq(s.ecn[3], 7);
	cr_assert_eq(s.fecn, 1);
	cr_assert_eq(s.cnps, 3);
	cr_assert_eq(s.cnp_unexpected, 1);
	cr_assert_eq(s.cnp_missing, 1);
	cr_assert_eq(s.cnp_pending, 1);
	cr_assert_eq(s.ce_to_cnp_count, 2);
	cr_assert_eq(s.ce_to_cnp_min_ns, 3500);
	cr_assert_eq(s.ce_to_cnp_max_ns, 7250);
	cr_assert(s.ce_to_cnp_p50_ns >= 3500 * 91 / 100 && s.ce_to_cnp_p50_ns <= 3500 * 110 / 100,
		  "p50 %lld", (long long)s.ce_to_cnp_p50_ns);
	/* their quarter-octave buckets: 3445..4095 ns from the smallest sample, 6889..8191 to the largest */
	cr_assert(s.ce_to_cnp_p50_range_ns[0] == 3500 && s.ce_to_cnp_p50_range_ns[1] == 4095, "p50 in [%lld, %lld]",
		  (long long)s.ce_to_cnp_p50_range_ns[0], (long long)s.ce_to_cnp_p50_range_ns[1]);
	cr_assert(s.ce_to_cnp_p99_range_ns[0] == 6889 && s.ce_to_cnp_p99_range_ns[1] == 7250, "p99 in [%lld, %lld]",
		  (long long)s.ce_to_cnp_p99_range_ns[0], (long long)s.ce_to_cnp_p99_range_ns[1]);
	struct roce_stream_stats r = stream_of(2, QP_A);
	cr_assert_eq(r.cnps, 0, "CNPs make no stream and count on the stream they answer");
	cr_assert_eq(r.ecn[2], 6, "the ACKs: ECT(0), as u_base() makes them");
	cr_assert_eq(r.ecn[0] + r.ecn[1] + r.ecn[3], 0);
}

/* A stream of plain ECT(0) packets counts them without a congestion block; its first other packet
 * (here Not-ECT, then ECT(1) with FECN) moves that count into one. */
Test(cnp, ect0_count_kept_when_the_codepoint_changes)
{
	mk(NULL);
	struct flow f = {false, 0, 1, 2, 100};
	for (unsigned i = 0; i < 3; i++)
		send_at(&f, i * US, 2, false, true);
	struct roce_stream_stats s = stream_of(1, QP_B);
	cr_assert(s.ecn[2] == 3 && s.ecn[0] + s.ecn[1] + s.ecn[3] == 0);
	send_at(&f, 10 * US, 0, false, true);
	send_at(&f, 11 * US, 2, false, false);
	send_at(&f, 12 * US, 1, true, false);
	s = stream_of(1, QP_B);
	cr_assert_eq(s.ecn[0], 1);
	cr_assert_eq(s.ecn[1], 1);
	cr_assert_eq(s.ecn[2], 4);
	cr_assert_eq(s.ecn[3], 0);
	cr_assert_eq(s.fecn, 1);
	cr_assert_eq(stream_of(2, QP_A).ecn[2], 4, "the ACKs: ECT(0) only");
}

Test(cnp, delays_bursts_ipv4) { cnp_delays_and_bursts(false, 0); }
Test(cnp, delays_bursts_ipv6) { cnp_delays_and_bursts(true, 0); }
Test(cnp, delays_bursts_vlan) { cnp_delays_and_bursts(false, 1); }

Test(cnp, one_missing_per_interval_of_uncovered_marks)
{
	mk(NULL);
	struct flow f = {false, 0, 1, 2, 0};
	/* marks every 20 us from 0 to 380 us, no CNP: due at 0, 60, 120, ... 360 (each the first
	 * more than 50 us after the last due) = 7 */
	uint64_t due[8];
	unsigned n_due = 0;
	for (int64_t t = 0; t < 400 * US; t += 20 * US) {
		uint64_t fr = send_at(&f, t, 3, false, false);
		if (t % (60 * US) == 0)
			due[n_due++] = fr;
	}
	cr_assert_eq(n_due, 7);
	unsigned seen = 0;
	for (int64_t t = 1000 * US + 5 * US; t < 1500 * US; t += 10 * US) {
		send_at(&f, t, 0, false, false);
		for (unsigned i = 0; i < F.n; i++) {
			cr_assert_eq(F.f[i].event, ROCE_EV_CNP_MISSING);
			cr_assert_lt(seen, n_due);
			cr_assert_eq(F.f[i].ref_frame, due[seen], "missing #%u", seen);
			int64_t ce_ts = (int64_t)seen * 60 * US;
			cr_assert_gt(t - ce_ts, 1000 * US);
			cr_assert_leq(t - ce_ts, 1010 * US, "on the first frame past the deadline");
			seen++;
		}
	}
	cr_assert_eq(seen, 7);
	cr_assert_eq(stream_of(1, QP_B).cnp_missing, 7);
	cr_assert_eq(stream_of(1, QP_B).cnp_pending, 0);
}

/* A burst of CE marks, then a pause longer than the CNP timeout: every due mark expires on the
 * one frame after it, and that frame carries all of their findings (more than 8), each with
 * the CE-marked frame's stream, as many as the stream's row and the analyzer's count have. */
Test(cnp, all_missing_on_one_frame)
{
	mk(NULL);
	struct flow f = {false, 0, 1, 2, 0};
	uint64_t due[15];
	for (unsigned i = 0; i < 15; i++)  /* 60 us apart, within the timeout: each due a CNP */
		due[i] = send_at(&f, (int64_t)i * 60 * US, 3, false, false);
	send_at(&f, 5000 * US, 0, false, false);
	cr_assert_eq(F.n, 15, "%u findings", F.n);
	struct roce_stream_stats st = stream_of(1, QP_B);
	for (unsigned i = 0; i < F.n; i++) {
		cr_assert_eq(F.f[i].event, ROCE_EV_CNP_MISSING);
		cr_assert_eq(F.f[i].ref_frame, due[i], "missing #%u", i);
		cr_assert_eq(F.f[i].stream, st.stream, "the CE-marked frame's stream");
		cr_assert_eq(F.f[i].pair, st.pair);
	}
	cr_assert_eq(st.cnp_missing, 15);
	cr_assert_eq(roce_analyzer_findings(A, ROCE_EV_CNP_MISSING), 15);
	send_at(&f, 5010 * US, 0, false, false);
	cr_assert_eq(F.n, 0, "the list is emptied on the next frame");
}

Test(cnp, interval_zero_every_mark_due)
{
	struct roce_congestion_config cc = defaults();
	cc.cnp_interval_ns = 0;  /* no rate limit */
	mk(&cc);
	struct flow f = {false, 0, 1, 2, 0};
	for (int64_t t = 0; t < 5 * US; t += 1 * US)
		send_at(&f, t, 3, false, false);
	cnp_at(&f, 6 * US, QP_A);  /* unpaired: one stream with marks, so it answers it */
	send_at(&f, 2000 * US, 0, false, false);
	EXPECT_EVENTS(&P, "cnp.missing");
	cr_assert_eq(F.n, 4, "5 marks due, one answered");
	cr_assert_eq(stream_of(1, QP_B).cnps, 1);
	cr_assert_eq(stream_of(1, QP_B).ce_to_cnp_min_ns, 6 * US);
}

static unsigned pair_cnps, pair_ambiguous;
static void pair_cb(const struct roce_cnp_pair_row *r, void *user)
{
	(void)user;
	pair_cnps += (unsigned)r->cnps;
	pair_ambiguous += (unsigned)r->ambiguous;
}

Test(cnp, unpaired_streams_answered_only_when_one)
{
	mk(NULL);
	struct flow f1 = {false, 0, 1, 2, 0}, f2 = f1;
	struct roce_build x;
	/* two A -> B streams (QPs 0x123, 0x124) with CE, no ACKs: unpaired */
	send_at(&f1, 0, 3, false, false);
	flow_build(&x, &f2, false);
	x.tclass = 0x03;
	x.h.bth.opcode = 0x04;
	x.h.bth.dqpn = 0x124;
	x.payload = u_payload();
	x.payload_len = 8;
	analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, 1 * US);
	cnp_at(&f1, 5 * US, 0x777);
	EXPECT_NO_EVENTS(&P);  /* ambiguous: counted for the address pair, no event */
	pair_cnps = pair_ambiguous = 0;
	roce_analyzer_cnp_pairs_foreach(A, pair_cb, NULL);
	cr_assert_eq(pair_cnps, 1);
	cr_assert_eq(pair_ambiguous, 1);
	cr_assert_eq(stream_of(1, QP_B).cnps + stream_of(1, 0x124).cnps, 0);

	mk(NULL);
	send_at(&f1, 0, 3, false, false);
	analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, 1 * US);
	cr_assert_eq(P.net.tclass & 3, 3);
	x.tclass = 0x02;  /* the second stream carries no CE */
	mk(NULL);
	send_at(&f1, 0, 3, false, false);
	analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, 1 * US);
	cnp_at(&f1, 5 * US, 0x777);
	EXPECT_NO_EVENTS(&P);
	cr_assert_eq(stream_of(1, QP_B).cnps, 1, "the one stream with an unanswered mark");
	cr_assert_eq(stream_of(1, QP_B).ce_to_cnp_max_ns, 5 * US);

	mk(NULL);
	cnp_at(&f1, 5 * US, 0x777);  /* no stream at all */
	EXPECT_EVENTS(&P, "cnp.unexpected");
	pair_cnps = pair_ambiguous = 0;
	roce_analyzer_cnp_pairs_foreach(A, pair_cb, NULL);
	cr_assert_eq(pair_cnps, 1);
	cr_assert_eq(pair_ambiguous, 0);
}

Test(cnp, ib_cnp_opcode_counts_too)
{
	mk(NULL);
	struct flow f = {false, 0, 1, 2, 0};
	send_at(&f, 0, 3, false, true);
	struct roce_build x;
	flow_build(&x, &f, true);
	x.h.bth.opcode = 0x80;
	x.h.bth.becn = 1;
	x.h.bth.dqpn = QP_A;
	analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, 4 * US);
	EXPECT_EVENTS(&P, "cnp.opcode_ib");
	cr_assert_eq(stream_of(1, QP_B).cnps, 1);
	cr_assert_eq(stream_of(1, QP_B).becn, 0, "BECN is counted on packets other than CNPs");
}

/* The defaults are the named ones, and a NULL congestion config is them: a CE mark within
 * ROCE_CNP_INTERVAL_NS_DEFAULT of a CNP is due none. */
Test(cnp, defaults_named_and_null_config)
{
	struct roce_congestion_config cc = defaults();
	cr_assert_eq(cc.link_bps, ROCE_LINK_BPS_DEFAULT);
	cr_assert_eq(cc.pfc_storm_ns, ROCE_PFC_STORM_NS_DEFAULT);
	cr_assert_eq(cc.cnp_interval_ns, ROCE_CNP_INTERVAL_NS_DEFAULT);
	cr_assert_eq(cc.cnp_timeout_ns, ROCE_CNP_TIMEOUT_NS_DEFAULT);
	cr_assert_not(cc.dscp_map);
	mk(NULL);
	struct flow f = {false, 0, 1, 2, 0};
	for (int64_t t = 0; t < 5 * US; t += 1 * US)
		send_at(&f, t, 3, false, false);
	cnp_at(&f, 6 * US, QP_A);
	send_at(&f, 2000 * US, 0, false, false);
	EXPECT_NO_EVENTS(&P);
	cr_assert_eq(stream_of(1, QP_B).cnp_missing, 0);
}

Test(cnp, eviction_gives_the_block_back)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cfg.max_streams = 2;
	roce_analyzer_free(A);
	A = roce_analyzer_new(&cfg, err);
	n_frames = 0;
	for (unsigned i = 0; i < 50; i++) {  /* 50 hosts, one CE-marked stream each, 2 kept */
		struct flow f = {false, 0, 10 + i, 2, 0};
		send_at(&f, (int64_t)i * 2000 * US, 3, false, false);
	}
	cr_assert_eq(roce_analyzer_streams(A), 2);
	/* every mark's deadline passed at the next host's frame; the evicted streams' too */
	cr_assert_eq(stream_of(59, QP_B).cnp_pending, 1);
	cr_assert_eq(stream_of(58, QP_B).cnp_missing, 1);
}

Test(cnp, blocks_past_the_core_index_live_in_the_map)
{
	/* the first 65,534 congestion blocks are indexed from the stream core, the rest by the map */
	mk(NULL);
	struct flow f = {false, 0, 1, 2, 0};
	struct roce_build x;
	flow_build(&x, &f, false);
	x.h.bth.opcode = 0x04;
	x.payload = u_payload();
	x.payload_len = 8;
	for (uint32_t q = 1; q <= 70000; q++) {
		x.h.bth.dqpn = q;
		x.tclass = q == 69999 ? 0x03 : 0x01;  /* ECT(1), one CE */
		analyze(u_build(&x, fb), ROCE_LINK_ETHERNET, (int64_t)q * 1000);
	}
	for (uint32_t q = 1; q <= 70000; q += 9999) {
		struct roce_stream_stats s = stream_of(1, q);
		cr_assert_eq(s.ecn[1], 1, "qp %u", q);
		cr_assert_eq(s.ecn[0] + s.ecn[2] + s.ecn[3], 0, "qp %u", q);
	}
	struct roce_stream_stats s = stream_of(1, 69999);
	cr_assert_eq(s.ecn[3], 1);
	cr_assert_eq(s.cnp_pending, 1);
	cnp_at(&f, 70000 * 1000 + 500, 0x777);  /* unpaired: the one stream with a mark */
	cr_assert_eq(stream_of(1, 69999).cnps, 1);
	cr_assert_eq(stream_of(1, 69999).cnp_pending, 0);
}

/* The settings' text forms, shared by rocedump's options and the plugin's preferences. */
Test(cfg, link_speed_and_dscp_map)
{
	uint64_t bps = 7;
	cr_assert(roce_parse_link_speed("25G", &bps));
	cr_assert_eq(bps, UINT64_C(25000000000));
	cr_assert(roce_parse_link_speed("400g", &bps));
	cr_assert_eq(bps, UINT64_C(400000000000));
	cr_assert(roce_parse_link_speed("1000000", &bps), "bits per second, no suffix");
	cr_assert_eq(bps, UINT64_C(1000000));
	cr_assert(roce_parse_link_speed("1000T", &bps));
	cr_assert_eq(bps, UINT64_C(1000000000000000));
	static const char *const bad[] = {"", "G", "0G", "999K", "-25G", " 25G", "25X", "2.5G", "25GG",
					  "1000001T", "0x10G", "99999999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bps = 7;
		cr_assert_not(roce_parse_link_speed(bad[i], &bps), "'%s'", bad[i]);
		cr_assert_eq(bps, 7, "'%s' left it alone", bad[i]);
	}

	struct roce_congestion_config c = {0};
	cr_assert(roce_parse_dscp_map("26=3,48=6,0=7", &c));
	cr_assert(c.dscp_map);
	for (unsigned d = 0; d < 64; d++)
		cr_assert_eq(c.dscp_prio[d], d == 26 ? 3 : d == 48 ? 6 : d == 0 ? 7 : d >> 3, "DSCP %u", d);
	static const char *const badmap[] = {"", ",", "26=3,", ",26=3", "26=3,,48=6", "26", "64=1", "26=8",
					     "=3", "26=", "a=1", "26=3;48=6"};
	for (size_t i = 0; i < sizeof(badmap) / sizeof(badmap[0]); i++) {
		struct roce_congestion_config k = {0};
		cr_assert_not(roce_parse_dscp_map(badmap[i], &k), "'%s'", badmap[i]);
		cr_assert_not(k.dscp_map, "'%s' left it alone", badmap[i]);
		cr_assert_eq(k.dscp_prio[26], 0);
	}
}
