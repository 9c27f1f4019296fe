/* gencaps.c: the scenario generator for the project's synthetic test captures (captures/gen/)
 * and for the benchmark's large captures. Every frame is made by the core's builder
 * (include/roce/build.h); output is deterministic (fixed timestamps, addresses and payloads).
 *
 *   gencaps DIR                      write every scenario capture into DIR
 *   gencaps --bench-small FILE N Q   N small packets (SEND_ONLY/ACK pairs) over Q queue pairs
 *   gencaps --bench-mtu FILE BYTES Q 4096-byte WRITE FIRST/MIDDLE/LAST packets, ~BYTES in all
 *   gencaps --bench-cong FILE N Q C  N small packets as --bench-small, 1 us apart; with C = 1, one
 *                                    packet in ten (pseudo-random) CE-marked and answered by a CNP,
 *                                    and one PFC frame in 1,000; with C = 0 the same without; with
 *                                    C = 2 also Not-ECT (no ECN at all)
 *   gencaps --bench-hosts FILE N Q   N small packets over Q queue pairs between many hosts, in
 *                                    near-random order, as a mirror port sees them
 *   gencaps --bench-hosts-ng FILE N Q  the same written as pcapng (as dumpcap writes: one
 *                                    interface, Enhanced Packet Blocks, a closing statistics block) */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/roce.h"

#define TS_BASE 1767225600LL  /* 2026-01-01 00:00:00 UTC */

struct writer {
	pcap_t *dead;
	pcap_dumper_t *d;
	FILE *ng;              /* pcapng instead (w_open_pcapng): libpcap 1.10 writes only pcap */
	uint64_t n;
	uint32_t snaplen;      /* cut frames to this many captured bytes (0: none) */
	uint64_t if_recv, if_drop, os_drop;  /* pcapng: the closing Interface Statistics Block */
	int64_t at_ns;         /* pcap: the next frame's time after TS_BASE, when > 0 (else frame n is
				  n ms after it) */
};

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "gencaps: %s: %s\n", what, detail);
	exit(2);
}

static void w_open_path(struct writer *w, const char *path, int linktype)
{
	memset(w, 0, sizeof(*w));
	w->dead = pcap_open_dead_with_tstamp_precision(linktype, 262144, PCAP_TSTAMP_PRECISION_NANO);
	if (!w->dead)
		die("pcap_open_dead", path);
	w->d = pcap_dump_open(w->dead, path);
	if (!w->d)
		die(path, pcap_geterr(w->dead));
}

static void w_open(struct writer *w, const char *dir, const char *name, int linktype)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w_open_path(w, path, linktype);
}

/* ---- pcapng (little-endian, one Ethernet interface, nanosecond timestamps) ---- */

static void ng_bytes(struct writer *w, const void *p, size_t n)
{
	if (fwrite(p, 1, n, w->ng) != n)
		die("writing pcapng", strerror(errno));
}

static void ng_u16(struct writer *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	ng_bytes(w, b, 2);
}

static void ng_u32(struct writer *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	ng_bytes(w, b, 4);
}

static void ng_u64(struct writer *w, uint64_t v)
{
	ng_u32(w, (uint32_t)v);
	ng_u32(w, (uint32_t)(v >> 32));
}

static void ng_option_u64(struct writer *w, uint16_t code, uint64_t v)
{
	ng_u16(w, code);
	ng_u16(w, 8);
	ng_u64(w, v);
}

static void w_open_pcapng_path(struct writer *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->ng = fopen(path, "wb");
	if (!w->ng)
		die(path, strerror(errno));
	ng_u32(w, 0x0A0D0D0A);  /* Section Header Block */
	ng_u32(w, 28);
	ng_u32(w, 0x1A2B3C4D);
	ng_u16(w, 1);
	ng_u16(w, 0);
	ng_u64(w, UINT64_MAX);  /* section length not given */
	ng_u32(w, 28);
	ng_u32(w, 1);           /* Interface Description Block */
	ng_u32(w, 32);
	ng_u16(w, DLT_EN10MB);
	ng_u16(w, 0);
	ng_u32(w, 262144);
	ng_u16(w, 9);           /* if_tsresol: 10^-9 */
	ng_u16(w, 1);
	ng_u32(w, 9);           /* the value and 3 bytes of padding */
	ng_u32(w, 0);           /* opt_endofopt */
	ng_u32(w, 32);
}

static void w_open_pcapng(struct writer *w, const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w_open_pcapng_path(w, path);
}

static uint64_t frame_ts_ns(uint64_t n)
{
	return (uint64_t)(TS_BASE + (int64_t)(n / 1000)) * 1000000000u + (n % 1000) * 1000000 + 500;
}

static void w_put(struct writer *w, const uint8_t *frame, int len)
{
	struct pcap_pkthdr h;
	if (len < 0)
		die("builder", roce_strerror(len));
	w->n++;
	uint32_t caplen = w->snaplen && (uint32_t)len > w->snaplen ? w->snaplen : (uint32_t)len;
	if (w->ng) {  /* Enhanced Packet Block */
		uint64_t ts = frame_ts_ns(w->n);
		uint32_t padded = (caplen + 3) & ~3u, blen = 32 + padded;
		static const uint8_t zero[3];
		ng_u32(w, 6);
		ng_u32(w, blen);
		ng_u32(w, 0);
		ng_u32(w, (uint32_t)(ts >> 32));
		ng_u32(w, (uint32_t)ts);
		ng_u32(w, caplen);
		ng_u32(w, (uint32_t)len);
		ng_bytes(w, frame, caplen);
		ng_bytes(w, zero, padded - caplen);
		ng_u32(w, blen);
		return;
	}
	h.ts.tv_sec = (time_t)(TS_BASE + (int64_t)(w->n / 1000));
	h.ts.tv_usec = (suseconds_t)((w->n % 1000) * 1000000 + 500);  /* nanoseconds */
	if (w->at_ns > 0) {
		h.ts.tv_sec = (time_t)(TS_BASE + w->at_ns / 1000000000);
		h.ts.tv_usec = (suseconds_t)(w->at_ns % 1000000000);
	}
	h.len = (uint32_t)len;
	h.caplen = caplen;
	pcap_dump((u_char *)w->d, &h, frame);
}

static void w_close(struct writer *w)
{
	if (w->ng) {  /* Interface Statistics Block, as dumpcap writes one when it stops */
		uint64_t ts = frame_ts_ns(w->n + 1);
		ng_u32(w, 5);
		ng_u32(w, 64);
		ng_u32(w, 0);
		ng_u32(w, (uint32_t)(ts >> 32));
		ng_u32(w, (uint32_t)ts);
		ng_option_u64(w, 4, w->if_recv);  /* isb_ifrecv */
		ng_option_u64(w, 5, w->if_drop);  /* isb_ifdrop */
		ng_option_u64(w, 7, w->os_drop);  /* isb_osdrop */
		ng_u32(w, 0);
		ng_u32(w, 64);
		if (fclose(w->ng) != 0)
			die("writing pcapng", strerror(errno));
		return;
	}
	pcap_dump_close(w->d);
	pcap_close(w->dead);
}

/* ---- a default flow: 10.0.0.1 -> 10.0.0.2, RC, QP 0x000123 ---- */

static const uint8_t MAC_A[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t MAC_B[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static uint8_t payload_bytes[9000];

static void base_flow(struct roce_build *b)
{
	memset(b, 0, sizeof(*b));
	memcpy(b->eth_src, MAC_A, 6);
	memcpy(b->eth_dst, MAC_B, 6);
	b->src[0] = 10, b->src[3] = 1;
	b->dst[0] = 10, b->dst[3] = 2;
	b->tclass = 0x02;  /* ECT(0), as DCQCN-enabled NICs send */
	b->dont_fragment = true;
	b->udp_sport = 49152 + 0x123;
	b->h.bth.pkey = 0xffff;
	b->h.bth.dqpn = 0x000123;
}

static void set_v6(struct roce_build *b, uint8_t host_a, uint8_t host_b)
{
	static const uint8_t pfx[8] = {0xfd, 0x00, 0, 0, 0, 0, 0, 0};
	memset(b->src, 0, 16);
	memset(b->dst, 0, 16);
	memcpy(b->src, pfx, 8);
	memcpy(b->dst, pfx, 8);
	b->src[15] = host_a;
	b->dst[15] = host_b;
}

/* RoCEv1 GIDs: IPv4-mapped, as rdma_cm assigns them */
static void set_gids(struct roce_build *b)
{
	memset(b->src, 0, 16);
	memset(b->dst, 0, 16);
	b->src[10] = b->src[11] = b->dst[10] = b->dst[11] = 0xff;
	b->src[12] = 10, b->src[15] = 1;
	b->dst[12] = 10, b->dst[15] = 2;
}

static void put(struct writer *w, const struct roce_build *b)
{
	static uint8_t frame[16384];
	w_put(w, frame, roce_build_frame(b, frame, sizeof(frame)));
}

/* One packet of each opcode of a transport base, with plausible extended-header values. */
static void fill_ext(struct roce_build *b, uint8_t opcode, uint32_t psn)
{
	const struct roce_opcode_info *op = roce_opcode_info(opcode);
	struct roce_hdrs *h = &b->h;

	h->bth.opcode = opcode;
	h->bth.psn = psn;
	h->bth.ackreq = (op->seg == ROCE_SEG_LAST || op->seg == ROCE_SEG_ONLY) && !(op->flags & ROCE_OPF_RESPONSE);
	h->bth.se = op->op == ROCE_OP_SEND && (op->seg == ROCE_SEG_LAST || op->seg == ROCE_SEG_ONLY);
	h->rdeth.eecnxt = 0x000042;
	h->deth.qkey = 0x11111111;
	h->deth.srcqp = 0x000777;
	h->xrceth.xrcsrq = 0x000055;
	h->feth.sel = 1;
	h->feth.plt = 1;
	h->reth.va = 0x00007f0000001000ull;
	h->reth.rkey = 0x00001234;
	h->reth.dmalen = op->op == ROCE_OP_ATOMIC_WRITE ? 8 : op->seg == ROCE_SEG_ONLY ? 100 : 3000;
	h->atomiceth.va = 0x00007f0000002000ull;
	h->atomiceth.rkey = 0x00005678;
	h->atomiceth.swap = 5;
	h->atomiceth.cmp = 7;
	h->aeth.syndrome = 0x1f;
	h->aeth.msn = psn & 0xffffff;
	h->atomicacketh.orig = 0x0102030405060708ull;
	h->immdt = 0xdeadbeef;
	h->ieth = 0x00abcdef;
	b->payload = payload_bytes;
	if (!(op->flags & ROCE_OPF_PAYLOAD))
		b->payload_len = 0;
	else if (op->op == ROCE_OP_ATOMIC_WRITE)
		b->payload_len = 8;
	else if (op->seg == ROCE_SEG_FIRST || op->seg == ROCE_SEG_MIDDLE)
		b->payload_len = 1024;
	else
		b->payload_len = 30 + (opcode % 4);  /* exercise every pad count */
}

static void all_opcodes(struct writer *w, struct roce_build *b, unsigned base)
{
	for (unsigned lo = 0; lo < 0x20; lo++) {
		const struct roce_opcode_info *op = roce_opcode_info((uint8_t)(base + lo));
		if (!(op->flags & ROCE_OPF_VALID))
			continue;
		fill_ext(b, (uint8_t)(base + lo), 100 + lo);
		put(w, b);
	}
}

static void aeth_variants(struct writer *w, struct roce_build *b)
{
	static const uint8_t syndromes[] = {0x00, 0x1f, 0x05, 0x20, 0x2e, 0x3f, 0x60, 0x61, 0x62, 0x63, 0x64};
	for (unsigned i = 0; i < sizeof(syndromes); i++) {
		fill_ext(b, 0x11, 200 + i);
		b->h.aeth.syndrome = syndromes[i];
		b->h.aeth.msn = 10 + i;
		put(w, b);
	}
}

static void scenario_opcodes(const char *dir)
{
	struct writer w;
	struct roce_build b;

	w_open(&w, dir, "rc_opcodes.pcap", DLT_EN10MB);
	base_flow(&b);
	all_opcodes(&w, &b, 0x00);
	aeth_variants(&w, &b);
	w_close(&w);

	w_open(&w, dir, "uc_rd_ud_xrc_opcodes.pcap", DLT_EN10MB);
	base_flow(&b);
	all_opcodes(&w, &b, 0x20);
	all_opcodes(&w, &b, 0x40);
	all_opcodes(&w, &b, 0x60);
	all_opcodes(&w, &b, 0xa0);
	w_close(&w);
}

static void scenario_congestion(const char *dir)
{
	struct writer w;
	struct roce_build b;

	w_open(&w, dir, "cnp_ecn.pcap", DLT_EN10MB);
	base_flow(&b);
	fill_ext(&b, 0x04, 300);
	b.tclass = 0x03;  /* CE */
	put(&w, &b);
	fill_ext(&b, 0x04, 301);
	b.tclass = 0x03;
	b.h.bth.fecn = 1;
	put(&w, &b);
	/* the CNP back to the sender's QP, as a ConnectX sends it: BECN, PSN 0, UDP source port 0 */
	base_flow(&b);
	memcpy(b.eth_src, MAC_B, 6);
	memcpy(b.eth_dst, MAC_A, 6);
	b.src[3] = 2, b.dst[3] = 1;
	b.tclass = 0xc2;
	b.udp_sport = 0;
	b.h.bth.opcode = 0x81;
	b.h.bth.becn = 1;
	b.h.bth.dqpn = 0x000456;
	put(&w, &b);
	b.h.bth.opcode = 0x80;  /* native IB CNP opcode on Ethernet */
	put(&w, &b);
	b.h.bth.opcode = 0x81;
	b.h.bth.becn = 0;
	put(&w, &b);
	w_close(&w);
}

/* ---- MAC control frames: PFC and PAUSE ---- */

static void put_macc(struct writer *w, const struct roce_build_macc *m)
{
	static uint8_t frame[256];
	w_put(w, frame, roce_build_macc(m, frame, sizeof(frame)));
}

static void macc_base(struct roce_build_macc *m, uint16_t opcode, const uint8_t src[6])
{
	memset(m, 0, sizeof(*m));
	memcpy(m->eth_dst, roce_macc_dst, 6);
	memcpy(m->eth_src, src, 6);
	m->opcode = opcode;
}

/* Every shape of PFC and PAUSE frame, well formed and not, for the tshark cross-check. */
static void scenario_pfc(const char *dir)
{
	struct writer w;
	struct roce_build_macc m;

	w_open(&w, dir, "pfc_pause.pcap", DLT_EN10MB);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);
	m.enbv = 0x08, m.quanta[3] = 65535;                   /* XOFF p3 */
	put_macc(&w, &m);
	m.enbv = 0x28, m.quanta[5] = 0;                       /* XOFF p3, XON p5 */
	put_macc(&w, &m);
	m.enbv = 0xff;                                        /* all classes, many quanta */
	for (unsigned i = 0; i < 8; i++)
		m.quanta[i] = (uint16_t)(i * 4681 + i);
	put_macc(&w, &m);
	memset(m.quanta, 0, sizeof(m.quanta));                /* all XON */
	put_macc(&w, &m);
	m.enbv = 0;                                           /* no class enabled */
	put_macc(&w, &m);
	m.enbv = 0x81, m.quanta[0] = 1, m.quanta[7] = 0xfffe; /* the edges */
	put_macc(&w, &m);
	m.n_vlan = 1;                                         /* behind a VLAN tag */
	m.vlan[0] = (struct roce_vlan){0x8100, 7, 0, 100};
	put_macc(&w, &m);
	m.n_vlan = 2;                                         /* QinQ */
	m.vlan[0] = (struct roce_vlan){0x88a8, 5, 1, 10};
	m.vlan[1] = (struct roce_vlan){0x8100, 3, 0, 200};
	put_macc(&w, &m);
	macc_base(&m, ROCE_MACC_PAUSE, MAC_A);                /* legacy PAUSE */
	static const uint16_t pause_q[] = {500, 0, 65535, 1};
	for (unsigned i = 0; i < 4; i++) {
		m.quanta[0] = pause_q[i];
		put_macc(&w, &m);
	}
	m.n_vlan = 1;
	m.vlan[0] = (struct roce_vlan){0x8100, 0, 0, 5};
	put_macc(&w, &m);
	/* malformed */
	macc_base(&m, 0x0002, MAC_B);                         /* an unknown opcode to the PFC address */
	put_macc(&w, &m);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);                  /* PFC to a unicast address */
	memcpy(m.eth_dst, MAC_A, 6);
	m.enbv = 0x08, m.quanta[3] = 100;
	put_macc(&w, &m);
	macc_base(&m, ROCE_MACC_PAUSE, MAC_A);                /* PAUSE to a unicast address */
	memcpy(m.eth_dst, MAC_B, 6);
	m.quanta[0] = 100;
	put_macc(&w, &m);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);                  /* high class-enable bits */
	m.enbv = 0x0108, m.quanta[3] = 100;
	put_macc(&w, &m);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);                  /* a pause time on a disabled class */
	m.enbv = 0x01, m.quanta[0] = 10, m.quanta[2] = 100;
	put_macc(&w, &m);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);                  /* short: four pause times only */
	m.enbv = 0x03, m.quanta[0] = 7, m.quanta[1] = 9;
	m.length = 12;
	put_macc(&w, &m);
	macc_base(&m, ROCE_MACC_PAUSE, MAC_A);                /* short: half a pause time */
	m.quanta[0] = 0x1234;
	m.length = 3;
	put_macc(&w, &m);
	macc_base(&m, 0x0003, MAC_B);                         /* another opcode elsewhere: not ours */
	memcpy(m.eth_dst, MAC_A, 6);
	put_macc(&w, &m);
	w_close(&w);
}

/* A PFC and PAUSE timeline on one link (100 Gb/s: a quantum is 5.12 ns; 65535 q = 335.539 us):
 * pauses, refreshes, XON, expiry, a storm (at --pfc-storm-ms 1), traffic into a pause. */
static void scenario_pfc_timeline(const char *dir)
{
	struct writer w;
	struct roce_build_macc m;
	struct roce_build d;  /* data A -> B on priority 3 (VLAN PCP 3) */
	uint32_t psn = 1000;

	w_open(&w, dir, "pfc_timeline.pcap", DLT_EN10MB);
	base_flow(&d);
	d.n_vlan = 1;
	d.vlan[0] = (struct roce_vlan){0x8100, 3, 0, 10};
#define AT(us) (w.at_ns = (int64_t)(us) * 1000 + 1)
#define DATA(prio) (d.vlan[0].pcp = (uint8_t)(prio), fill_ext(&d, 0x04, psn++), put(&w, &d))
	AT(0), DATA(3);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);
	m.enbv = 0x08, m.quanta[3] = 65535;
	AT(100), put_macc(&w, &m);           /* p3 paused until 435.539 */
	AT(200), DATA(3);                     /* into the pause */
	AT(250), DATA(5);                     /* another priority: fine */
	AT(300), put_macc(&w, &m);           /* refresh: until 635.539 */
	m.quanta[3] = 0;
	AT(400), put_macc(&w, &m);           /* XON: 300 us paused */
	AT(500), DATA(3);
	m.enbv = 0x18, m.quanta[3] = 1000, m.quanta[4] = 2000;
	AT(600), put_macc(&w, &m);           /* p3 5.12 us, p4 10.24 us */
	memset(m.quanta, 0, sizeof(m.quanta));
	m.enbv = 0x40, m.quanta[6] = 65535;
	for (unsigned i = 0; i < 8; i++)      /* p6 refreshed every 200 us: 1.4 ms continuous */
		AT(700 + 200 * i), put_macc(&w, &m);
	AT(2300), DATA(6);                    /* 0.2 ms after the last refresh: still paused */
	macc_base(&m, ROCE_MACC_PAUSE, MAC_A);
	m.quanta[0] = 10000;                  /* 51.2 us of all traffic toward A */
	AT(2500), put_macc(&w, &m);
	fill_ext(&d, 0x11, psn - 1);          /* the ACK B -> A inside it */
	memcpy(d.eth_src, MAC_B, 6);
	memcpy(d.eth_dst, MAC_A, 6);
	d.src[3] = 2, d.dst[3] = 1;
	d.h.bth.dqpn = 0x000456;
	AT(2510), put(&w, &d);
	AT(3000), DATA(0);
#undef AT
#undef DATA
	w_close(&w);
}

/* Untagged traffic into PFC pauses: its priority is its DSCP's, DSCP >> 3 by default or through
 * --dscp-prio. B pauses p3 and p6 from 100 us (65535 q at 100 Gb/s: until 435.539 us); A sends
 * B, untagged: DSCP 26 (p3: paused; 26=5 moves it out), DSCP 48 (p6: paused; 48=1 out), DSCP 0 (p0:
 * not paused; 0=3 moves it in); B sends A DSCP 26 (toward a MAC that paused nothing: never); A
 * sends B tagged PCP 3 with DSCP 0 (the tag's priority, whatever the map: paused); after the
 * pause ends (500 us) DSCP 26 again (never). */
static void scenario_pfc_dscp(const char *dir)
{
	struct writer w;
	struct roce_build_macc m;
	struct roce_build d;
	uint32_t psn = 2000;

	w_open(&w, dir, "pfc_dscp.pcap", DLT_EN10MB);
	base_flow(&d);
#define AT(us) (w.at_ns = (int64_t)(us) * 1000 + 1)
#define DATA(dscp) (d.tclass = (uint8_t)((dscp) << 2 | 2), fill_ext(&d, 0x04, psn++), put(&w, &d))
	AT(0), DATA(26);
	macc_base(&m, ROCE_MACC_PFC, MAC_B);
	m.enbv = 0x48, m.quanta[3] = 65535, m.quanta[6] = 65535;
	AT(100), put_macc(&w, &m);
	AT(150), DATA(26);
	AT(160), DATA(48);
	AT(170), DATA(0);
	d.n_vlan = 1;
	d.vlan[0] = (struct roce_vlan){0x8100, 3, 0, 10};
	AT(180), DATA(0);
	d.n_vlan = 0;
	memcpy(d.eth_src, MAC_B, 6);
	memcpy(d.eth_dst, MAC_A, 6);
	d.src[3] = 2, d.dst[3] = 1;
	d.h.bth.dqpn = 0x000456;
	d.tclass = 26 << 2 | 2;
	fill_ext(&d, 0x04, 7000);             /* B's own PSNs */
	AT(190), put(&w, &d);
	memcpy(d.eth_src, MAC_A, 6);
	memcpy(d.eth_dst, MAC_B, 6);
	d.src[3] = 1, d.dst[3] = 2;
	d.h.bth.dqpn = 0x000123;
	AT(500), DATA(26);
#undef AT
#undef DATA
	w_close(&w);
}

/* CE marks and CNPs with known answers (--cnp-interval-us 50, --cnp-timeout-us 1000): IPv4
 * A -> B QP 0x123 answered by CNPs to A's QP 0x456 (paired by the ACKs B -> A); IPv6 and VLAN. */
static void scenario_cnp(const char *dir)
{
	struct writer w;
	struct roce_build req, ack, cnp;
	uint32_t psn = 500;

	w_open(&w, dir, "cnp_matching.pcap", DLT_EN10MB);
	for (unsigned v = 0; v < 3; v++) {  /* IPv4, IPv6, IPv4 behind VLAN 20 PCP 3 */
		int64_t t0 = (int64_t)v * 10000;  /* us */
		base_flow(&req);
		base_flow(&ack);
		memcpy(ack.eth_src, MAC_B, 6);
		memcpy(ack.eth_dst, MAC_A, 6);
		ack.src[3] = 2, ack.dst[3] = 1;
		if (v == 1) {
			set_v6(&req, 1, 2);
			set_v6(&ack, 2, 1);
			req.ip_version = ack.ip_version = 6;
		}
		if (v == 2) {  /* hosts 10.0.1.1 and 10.0.1.2 */
			req.n_vlan = ack.n_vlan = 1;
			req.vlan[0] = ack.vlan[0] = (struct roce_vlan){0x8100, 3, 0, 20};
			req.src[2] = req.dst[2] = ack.src[2] = ack.dst[2] = 1;
		}
		if (v == 2) {  /* a CNP for an address pair with no traffic at all: answers no stream */
			struct roce_build stray = ack;
			stray.n_vlan = 0;
			stray.src[2] = stray.dst[2] = 0;
			stray.src[3] = 9;
			stray.udp_sport = 0;
			stray.h.bth.opcode = 0x81;
			stray.h.bth.becn = 1;
			stray.h.bth.dqpn = 0x000999;
			w.at_ns = 19500000;
			put(&w, &stray);
		}
		cnp = ack;
		cnp.udp_sport = 0;
		cnp.tclass = 0xc2;
		cnp.h.bth.opcode = 0x81;
		cnp.h.bth.becn = 1;
		cnp.h.bth.dqpn = 0x000456;
		ack.h.bth.dqpn = 0x000456;
		/* request/ACK pairs at 0..40 us, CE on the request at 10 us (due) and 20, 30 us
		 * (covered); CNP 3.5 us after the first; a CE at 120 us (due, no CNP: missing at
		 * the first frame past 1120 us); CE at 2000 us answered 7.25 us later; a CNP at
		 * 4000 us with no CE before it (unexpected); a CE at 9000 us (missing at the next
		 * variant's first frame; the last one's pending at the end) */
		static const struct { int64_t ns; int kind; } ev[] = {
			{0, 0}, {10000, 1}, {13500, 2}, {20000, 1}, {30000, 1}, {40000, 0}, {120000, 1},
			{500000, 0}, {1200000, 0}, {2000000, 1}, {2007250, 2}, {4000000, 2}, {9000000, 1},
		};
		for (unsigned i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
			w.at_ns = t0 * 1000 + ev[i].ns + 1;
			if (ev[i].kind == 2) {
				put(&w, &cnp);
				continue;
			}
			fill_ext(&req, 0x04, psn);
			req.tclass = ev[i].kind ? 0x03 : 0x02;
			put(&w, &req);
			w.at_ns += 1000;
			fill_ext(&ack, 0x11, psn++);
			put(&w, &ack);
		}
	}
	w_close(&w);
}

static void scenario_rocev1(const char *dir)
{
	struct writer w;
	struct roce_build b;

	w_open(&w, dir, "rocev1.pcap", DLT_EN10MB);
	base_flow(&b);
	b.version = 1;
	set_gids(&b);
	b.ttl = 1;
	static const uint8_t ops[] = {0x04, 0x0a, 0x06, 0x07, 0x08, 0x0c, 0x10, 0x11, 0x13, 0x12, 0x64};
	for (unsigned i = 0; i < sizeof(ops); i++) {
		fill_ext(&b, ops[i], 400 + i);
		put(&w, &b);
	}
	b.n_vlan = 1;
	b.vlan[0].vid = 100;
	b.vlan[0].pcp = 3;
	fill_ext(&b, 0x04, 420);
	put(&w, &b);
	w_close(&w);
}

static void scenario_ipv6(const char *dir)
{
	struct writer w;
	struct roce_build b;
	/* hop-by-hop (PadN) then destination options (PadN), ending in UDP */
	static const uint8_t ext[] = {60, 0, 1, 4, 0, 0, 0, 0, 17, 0, 1, 4, 0, 0, 0, 0};

	w_open(&w, dir, "rocev2_ipv6.pcap", DLT_EN10MB);
	base_flow(&b);
	b.ip_version = 6;
	set_v6(&b, 1, 2);
	b.flow_label = 0x1face;
	b.tclass = 0xe2;
	static const uint8_t ops[] = {0x04, 0x0a, 0x0c, 0x10, 0x11, 0x64};
	for (unsigned i = 0; i < sizeof(ops); i++) {
		fill_ext(&b, ops[i], 500 + i);
		put(&w, &b);
	}
	fill_ext(&b, 0x04, 510);
	b.ip_options = ext;
	b.ip_options_len = sizeof(ext);
	b.ip6_first_ext = 0;
	put(&w, &b);
	b.ip_options = NULL;
	b.ip_options_len = 0;
	b.udp_checksum = true;  /* a non-zero UDP checksum, verified */
	put(&w, &b);
	w_close(&w);
}

static void scenario_vlan(const char *dir)
{
	struct writer w;
	struct roce_build b;

	w_open(&w, dir, "vlan_qinq.pcap", DLT_EN10MB);
	base_flow(&b);
	fill_ext(&b, 0x04, 600);
	b.n_vlan = 1;
	b.vlan[0] = (struct roce_vlan){0x8100, 3, 0, 77};
	put(&w, &b);
	b.n_vlan = 2;
	b.vlan[0] = (struct roce_vlan){0x88a8, 5, 1, 1000};
	b.vlan[1] = (struct roce_vlan){0x8100, 3, 0, 77};
	put(&w, &b);
	b.vlan[0].tpid = 0x9100;
	put(&w, &b);
	b.n_vlan = 3;
	b.vlan[0] = (struct roce_vlan){0x8100, 0, 0, 4092};  /* RSPAN VLAN around QinQ */
	b.vlan[1] = (struct roce_vlan){0x88a8, 5, 0, 1000};
	b.vlan[2] = (struct roce_vlan){0x8100, 3, 0, 77};
	put(&w, &b);
	b.n_vlan = 1;
	b.vlan[0] = (struct roce_vlan){0x8100, 3, 0, 77};
	b.flags = ROCE_BUILD_ETH_MIN_FRAME;  /* a 58-byte SEND padded to 60 bytes on the wire */
	fill_ext(&b, 0x04, 601);
	b.payload_len = 0;
	b.n_vlan = 0;
	put(&w, &b);
	w_close(&w);
}

static void put_wrapped(struct writer *w, const struct roce_build *b, struct roce_build_wrap *wr)
{
	static uint8_t inner[16384], outer[16500];
	int n = roce_build_frame(b, inner, sizeof(inner));
	if (n < 0)
		die("builder", roce_strerror(n));
	w_put(w, outer, roce_build_wrap(wr, inner, (uint32_t)n, outer, sizeof(outer)));
}

static void scenario_wrappers(const char *dir)
{
	struct writer w;
	struct roce_build b;
	struct roce_build_wrap wr;

	w_open(&w, dir, "mirror_wrappers.pcap", DLT_EN10MB);
	base_flow(&b);
	fill_ext(&b, 0x0a, 700);
	memset(&wr, 0, sizeof(wr));
	memcpy(wr.eth_src, MAC_A, 6);
	memcpy(wr.eth_dst, (uint8_t[6]){0x02, 0x77, 0, 0, 0, 0xc8}, 6);
	wr.src[0] = 192, wr.src[1] = 0, wr.src[2] = 2, wr.src[3] = 1;
	wr.dst[0] = 192, wr.dst[1] = 0, wr.dst[2] = 2, wr.dst[3] = 200;

	wr.kind = ROCE_WRAP_ERSPAN1;
	put_wrapped(&w, &b, &wr);
	wr.kind = ROCE_WRAP_ERSPAN2;
	wr.w.gre_seq = 17;
	wr.w.session_id = 101;
	wr.w.en_bso = 3;
	wr.w.index = 5;
	put_wrapped(&w, &b, &wr);
	wr.kind = ROCE_WRAP_ERSPAN3;
	wr.w.en_bso = 0;
	wr.w.gre_seq = 18;
	wr.w.session_id = 102;
	wr.w.timestamp = 123456789;
	wr.w.hwid = 5;
	wr.w.direction = 1;
	wr.w.gra = 1;
	put_wrapped(&w, &b, &wr);
	wr.w.has_platform = 1;  /* optional 8-byte platform subheader */
	wr.w.gre_seq = 19;
	put_wrapped(&w, &b, &wr);
	wr.w.has_platform = 0;
	wr.kind = ROCE_WRAP_GRE;  /* gretap: Ethernet over GRE with key and sequence */
	wr.w.has_key = true;
	wr.w.gre_key = 104;
	wr.w.has_seq = true;
	wr.w.gre_seq = 20;
	put_wrapped(&w, &b, &wr);
	wr.kind = ROCE_WRAP_VXLAN;
	wr.w.vni = 5000;
	wr.w.udp_sport = 55555;
	put_wrapped(&w, &b, &wr);
	/* ERSPAN II over IPv6 */
	memset(&wr.w, 0, sizeof(wr.w));
	wr.kind = ROCE_WRAP_ERSPAN2;
	wr.ip_version = 6;
	memset(wr.src, 0, 16);
	memset(wr.dst, 0, 16);
	wr.src[0] = wr.dst[0] = 0xfd;
	wr.src[1] = wr.dst[1] = 0x77;
	wr.src[15] = 1;
	wr.dst[15] = 0xc8;
	wr.w.session_id = 103;
	wr.w.gre_seq = 21;
	put_wrapped(&w, &b, &wr);
	/* a mirror that truncates to 128 bytes: T bit set, ICRC unverifiable */
	wr.ip_version = 4;
	memset(wr.src, 0, 16);
	memset(wr.dst, 0, 16);
	wr.src[0] = 192, wr.src[2] = 2, wr.src[3] = 1;
	wr.dst[0] = 192, wr.dst[2] = 2, wr.dst[3] = 200;
	wr.w.gre_seq = 22;
	wr.truncate_to = 128;
	fill_ext(&b, 0x06, 701);
	put_wrapped(&w, &b, &wr);
	w_close(&w);
}

static void scenario_linktypes(const char *dir)
{
	static const struct { const char *name; int dlt; unsigned link; } types[] = {
		{"linux_sll.pcap", DLT_LINUX_SLL, ROCE_LINK_SLL},
		{"linux_sll2.pcap", DLT_LINUX_SLL2, ROCE_LINK_SLL2},
		{"raw_ip.pcap", DLT_RAW, ROCE_LINK_RAW},
	};
	for (unsigned t = 0; t < 3; t++) {
		struct writer w;
		struct roce_build b;
		w_open(&w, dir, types[t].name, types[t].dlt);
		base_flow(&b);
		b.linktype = types[t].link;
		fill_ext(&b, 0x04, 800);
		b.sll_pkttype = 4;
		put(&w, &b);
		fill_ext(&b, 0x11, 800);
		b.sll_pkttype = 0;
		put(&w, &b);
		b.ip_version = 6;
		set_v6(&b, 1, 2);
		fill_ext(&b, 0x0c, 801);
		put(&w, &b);
		w_close(&w);
	}
}

static void scenario_bad(const char *dir)
{
	struct writer w;
	struct roce_build b;
	static const uint8_t ip_opts[8] = {0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00}; /* RA + NOPs + EOL */

	w_open(&w, dir, "anomalies.pcap", DLT_EN10MB);
	base_flow(&b);
	fill_ext(&b, 0x04, 900);
	b.icrc = ROCE_BUILD_ICRC_BAD;
	put(&w, &b);                                  /* icrc.bad */
	b.icrc = ROCE_BUILD_ICRC_GOOD;
	b.flags = ROCE_BUILD_BAD_IP_CSUM;
	put(&w, &b);                                  /* ip.checksum_bad */
	b.flags = ROCE_BUILD_BAD_UDP_CSUM;
	put(&w, &b);                                  /* udp.checksum_bad */
	b.flags = 0;
	b.ip_options = ip_opts;
	b.ip_options_len = sizeof(ip_opts);
	put(&w, &b);                                  /* IPv4 options: fine */
	b.ip_options = NULL;
	b.ip_options_len = 0;
	b.h.bth.tver = 1;
	put(&w, &b);                                  /* bth.tver_nonzero */
	b.h.bth.tver = 0;
	b.h.bth.resv6 = 0x3f;
	b.h.bth.resv7 = 0x01;
	put(&w, &b);                                  /* bth.reserved_nonzero (resv6 is not in the ICRC) */
	b.h.bth.resv6 = b.h.bth.resv7 = 0;
	b.h.bth.pkey = 0x8000;
	put(&w, &b);                                  /* bth.pkey_invalid */
	b.h.bth.pkey = 0xffff;
	fill_ext(&b, 0x1e, 901);                      /* reserved RC opcode */
	b.payload_len = 8;
	put(&w, &b);
	fill_ext(&b, 0xc5, 902);                      /* vendor opcode */
	b.payload_len = 12;
	put(&w, &b);
	fill_ext(&b, 0x11, 903);
	b.h.bth.padcnt = 2;
	b.flags = ROCE_BUILD_PADCNT_AS_GIVEN;
	put(&w, &b);                                  /* pad.invalid on an ACK */
	fill_ext(&b, 0x04, 904);
	b.payload_len = 1;                            /* fine: 1 byte and PadCnt 3 */
	b.flags = 0;
	put(&w, &b);
	fill_ext(&b, 0x04, 905);
	b.payload_len = 0;
	b.h.bth.padcnt = 3;
	b.flags = ROCE_BUILD_PADCNT_AS_GIVEN | ROCE_BUILD_NO_PAD_BYTES;
	put(&w, &b);                                  /* pad.invalid: PadCnt 3, no bytes after the BTH */
	b.flags = ROCE_BUILD_HDRS_AS_GIVEN;
	fill_ext(&b, 0x11, 906);
	b.h.hdrs = 0;                                 /* ACK without its AETH: too short */
	put(&w, &b);
	b.flags = 0;
	fill_ext(&b, 0x11, 907);
	b.payload = payload_bytes;
	b.payload_len = 0;
	b.flags = ROCE_BUILD_HDRS_AS_GIVEN;
	b.h.hdrs = ROCE_HDR_AETH | ROCE_HDR_IMMDT;    /* 4 stray bytes after the AETH */
	put(&w, &b);                                  /* payload.unexpected */
	b.flags = 0;
	fill_ext(&b, 0x11, 908);
	b.h.aeth.syndrome = 0x40;
	put(&w, &b);                                  /* aeth.syndrome_reserved */
	fill_ext(&b, 0x11, 909);
	b.h.aeth.syndrome = 0x65;
	put(&w, &b);                                  /* aeth.syndrome_reserved (NAK code 5) */
	fill_ext(&b, 0x1d, 910);
	b.payload_len = 16;
	put(&w, &b);                                  /* atomic.length_invalid */
	base_flow(&b);
	b.version = 1;
	set_gids(&b);
	fill_ext(&b, 0x04, 911);
	put(&w, &b);
	w_close(&w);
}

/* Frames cut by a snap length: each header in turn ends the capture. */
static void scenario_snaplen(const char *dir)
{
	struct writer w;
	struct roce_build b;
	static const uint32_t cuts[] = {10, 20, 40, 45, 50, 60, 80, 96, 200};

	w_open(&w, dir, "snaplen.pcap", DLT_EN10MB);
	base_flow(&b);
	fill_ext(&b, 0x0a, 1000);
	b.payload_len = 1024;
	for (unsigned i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		w.snaplen = cuts[i];
		put(&w, &b);
	}
	w.snaplen = 0;
	put(&w, &b);
	w_close(&w);
}

static void scenario_ports(const char *dir)
{
	struct writer w;
	struct roce_build b;

	w_open(&w, dir, "udp_ports.pcap", DLT_EN10MB);
	base_flow(&b);
	fill_ext(&b, 0x04, 1100);
	b.udp_sport = 69;  /* source port is entropy: anything, even TFTP's */
	put(&w, &b);
	b.udp_dport = 4792;  /* RoCEv2 on another port: only with --roce-port 4792 */
	put(&w, &b);
	b.udp_sport = 4791;  /* source port 4791 to a non-RoCE port: not RoCE */
	b.udp_dport = 53;
	put(&w, &b);
	w_close(&w);
}

/* The default flow's requests (req) and the acknowledgements back (ack, to QP 0x000456). */
static void req_ack_flows(struct roce_build *req, struct roce_build *ack)
{
	base_flow(req);
	base_flow(ack);
	memcpy(ack->eth_src, MAC_B, 6);
	memcpy(ack->eth_dst, MAC_A, 6);
	ack->src[3] = 2, ack->dst[3] = 1;
	ack->h.bth.dqpn = 0x000456;
}

/* A pcapng capture whose interface statistics record drops, with the PSN gap such drops leave:
 * requests 100..109 of one QP with 103 and 104 missing, each acknowledged. */
static void scenario_capture_drops(const char *dir)
{
	struct writer w;
	struct roce_build req, ack;

	w_open_pcapng(&w, dir, "capture_drops.pcapng");
	req_ack_flows(&req, &ack);
	for (uint32_t psn = 100; psn < 110; psn++) {
		if (psn == 103 || psn == 104)
			continue;
		fill_ext(&req, 0x04, psn);
		req.h.bth.ackreq = 1;
		req.payload_len = 32;
		put(&w, &req);
		fill_ext(&ack, 0x11, psn);
		put(&w, &ack);
	}
	w.if_recv = w.n + 4;
	w.if_drop = 3;
	w.os_drop = 1;
	w_close(&w);
}

/* ---- pcapng blocks of any kind: what a pcapng input carries besides its frames ---- */

/* A block's body being built: its bytes, then ng_block() writes it whole. */
struct ng_body {
	uint8_t b[20000];
	uint32_t n;
};

static void nb_bytes(struct ng_body *nb, const void *p, uint32_t n)
{
	if (nb->n + n + 3 > sizeof(nb->b))
		die("pcapng block", "too long");
	memcpy(nb->b + nb->n, p, n);
	nb->n += n;
	while (nb->n % 4)
		nb->b[nb->n++] = 0;
}

static void nb_u16(struct ng_body *nb, uint16_t a, uint16_t b)
{
	uint8_t v[4] = {(uint8_t)a, (uint8_t)(a >> 8), (uint8_t)b, (uint8_t)(b >> 8)};
	nb_bytes(nb, v, 4);
}

static void nb_u32(struct ng_body *nb, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	nb_bytes(nb, b, 4);
}

/* An option: code, length, value (padded). */
static void nb_opt(struct ng_body *nb, uint16_t code, const void *v, uint16_t len)
{
	nb_u16(nb, code, len);
	if (len)
		nb_bytes(nb, v, len);
}

static void nb_opt_str(struct ng_body *nb, uint16_t code, const char *v)
{
	nb_opt(nb, code, v, (uint16_t)strlen(v));
}

static void nb_opt_u64(struct ng_body *nb, uint16_t code, uint64_t v)
{
	uint8_t b[8];
	for (unsigned i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	nb_opt(nb, code, b, 8);
}

static void ng_block(struct writer *w, uint32_t type, const struct ng_body *nb)
{
	ng_u32(w, type);
	ng_u32(w, 12 + nb->n);
	ng_bytes(w, nb->b, nb->n);
	ng_u32(w, 12 + nb->n);
}

static void ng_open_bare(struct writer *w, const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(w, 0, sizeof(*w));
	w->ng = fopen(path, "wb");
	if (!w->ng)
		die(path, strerror(errno));
}

/* An interface: link type, snapshot length 262144, if_name, if_tsresol (10^-tsresol). */
static void ng_idb(struct writer *w, uint16_t linktype, const char *name, uint8_t tsresol)
{
	struct ng_body nb = {.n = 0};
	nb_u16(&nb, linktype, 0);
	nb_u32(&nb, 262144);
	nb_opt_str(&nb, 2, name);
	nb_opt(&nb, 9, &tsresol, 1);
	nb_u32(&nb, 0);
	ng_block(w, 1, &nb);
}

/* A RoCE frame b as an Enhanced Packet Block on interface id at ts (in its units), with the
 * options opts (ending with opt_endofopt, or none). */
static void ng_epb(struct writer *w, uint32_t id, uint64_t ts, const uint8_t *frame, int len, const struct ng_body *opts)
{
	struct ng_body nb = {.n = 0};
	if (len < 0)
		die("builder", roce_strerror(len));
	nb_u32(&nb, id);
	nb_u32(&nb, (uint32_t)(ts >> 32));
	nb_u32(&nb, (uint32_t)ts);
	nb_u32(&nb, (uint32_t)len);
	nb_u32(&nb, (uint32_t)len);
	nb_bytes(&nb, frame, (uint32_t)len);
	if (opts && opts->n)
		nb_bytes(&nb, opts->b, opts->n);
	ng_block(w, 6, &nb);
}

/* What -w must keep (rocedump.1): a section header with comments and the capturing machine's
 * description, two Ethernet interfaces (nanosecond and microsecond time stamps), frames with
 * packet comments (two on one), epb_flags and an epb_hash, a copy of one request on the second
 * interface, and a statistics block of each interface with drop counts and a comment. */
static void scenario_pcapng_options(const char *dir)
{
	struct writer w;
	struct roce_build req, ack;
	static uint8_t frame[2048];
	struct ng_body nb = {.n = 0};

	ng_open_bare(&w, dir, "pcapng_options.pcapng");
	nb_u32(&nb, 0x1A2B3C4D);
	nb_u16(&nb, 1, 0);
	nb_u32(&nb, UINT32_MAX);
	nb_u32(&nb, UINT32_MAX);
	nb_opt_str(&nb, 1, "lab capture, rack 4");
	nb_opt_str(&nb, 1, "second section comment");
	nb_opt_str(&nb, 2, "x86_64 lab host");   /* shb_hardware */
	nb_opt_str(&nb, 3, "Linux 6.8");         /* shb_os */
	nb_opt_str(&nb, 4, "gencaps");           /* shb_userappl */
	nb_u32(&nb, 0);
	ng_block(&w, 0x0A0D0D0A, &nb);
	ng_idb(&w, 1, "eth0", 9);
	ng_idb(&w, 1, "eth1", 6);
	req_ack_flows(&req, &ack);
	uint64_t ns = (uint64_t)TS_BASE * 1000000000u;
	for (uint32_t psn = 10; psn < 14; psn++, ns += 1000000) {
		struct ng_body o = {.n = 0};
		uint32_t flags = 1;  /* inbound */
		char text[64];
		fill_ext(&req, 0x04, psn);
		req.h.bth.ackreq = 1;
		req.payload_len = 32;
		req.ip_id = (uint16_t)(0x100 + psn);
		snprintf(text, sizeof(text), "request %u", psn);
		nb_opt_str(&o, 1, text);
		if (psn == 11)
			nb_opt_str(&o, 1, "second comment");
		nb_opt(&o, 2, &flags, 4);  /* epb_flags */
		if (psn == 12) {
			static const uint8_t hash[5] = {2, 0xde, 0xad, 0xbe, 0xef};  /* CRC32 */
			nb_opt(&o, 3, hash, sizeof(hash));
		}
		nb_u32(&o, 0);
		int len = roce_build_frame(&req, frame, sizeof(frame));
		ng_epb(&w, 0, ns, frame, len, &o);
		if (psn == 12)  /* the same packet on eth1: a copy */
			ng_epb(&w, 1, ns / 1000 + 3, frame, len, NULL);
		fill_ext(&ack, 0x11, psn);
		len = roce_build_frame(&ack, frame, sizeof(frame));
		ng_epb(&w, 0, ns + 500000, frame, len, NULL);
	}
	for (uint32_t id = 0; id < 2; id++) {
		nb.n = 0;
		uint64_t t = id ? ns / 1000 : ns;
		nb_u32(&nb, id);
		nb_u32(&nb, (uint32_t)(t >> 32));
		nb_u32(&nb, (uint32_t)t);
		nb_opt_str(&nb, 1, id ? "eth1 statistics" : "eth0 statistics");
		nb_opt_u64(&nb, 4, id ? 1 : 9);  /* isb_ifrecv */
		nb_opt_u64(&nb, 5, id ? 2 : 1);  /* isb_ifdrop */
		nb_opt_u64(&nb, 7, 1);           /* isb_osdrop */
		nb_u32(&nb, 0);
		ng_block(&w, 5, &nb);
	}
	if (fclose(w.ng) != 0)
		die("writing pcapng", strerror(errno));
}

/* As dumpcap -i eth0 -i any writes: interfaces of link types Ethernet, Linux cooked (SLL) and
 * SLL2 (interface index 7) in one section, which libpcap refuses: requests and their
 * acknowledgements seen on all three (the second and third sightings are copies), and after each
 * pair a request of its own on one of them. */
static void scenario_mixed_linktypes(const char *dir)
{
	static const struct { uint16_t lt; unsigned link; const char *name; } ifs[] = {
		{1, ROCE_LINK_ETHERNET, "eth0"}, {113, ROCE_LINK_SLL, "any"}, {276, ROCE_LINK_SLL2, "any2"},
	};
	struct writer w;
	struct roce_build req, ack;
	static uint8_t frame[2048];

	w_open_pcapng(&w, dir, "mixed_linktypes.pcapng");  /* interface 0: Ethernet */
	ng_idb(&w, 113, "any", 9);
	ng_idb(&w, 276, "any2", 9);
	req_ack_flows(&req, &ack);
	uint64_t ns = (uint64_t)TS_BASE * 1000000000u;
	for (uint32_t psn = 20; psn < 23; psn++) {
		for (unsigned i = 0; i < 3; i++) {
			if (psn == 22 && i)
				break;
			struct roce_build *b[2] = {&req, &ack};
			for (unsigned k = 0; k < 2; k++, ns += 1000) {
				fill_ext(b[k], k ? 0x11 : 0x04, psn);
				b[k]->ip_id = (uint16_t)(0x200 + psn * 2 + k);
				b[k]->linktype = ifs[i].link;
				b[k]->sll_pkttype = k ? 0 : 4;
				int len = roce_build_frame(b[k], frame, sizeof(frame));
				if (len > 8 && ifs[i].lt == 276)
					frame[7] = 7;  /* the SLL2 interface index: 7 */
				ng_epb(&w, i, ns, frame, len, NULL);
			}
		}
		struct roce_build one = req;  /* another queue pair */
		fill_ext(&one, 0x04, psn + 100);
		one.h.bth.dqpn = 0x000789;
		one.linktype = ifs[psn % 3].link;
		one.ip_id = (uint16_t)(0x300 + psn);
		int len = roce_build_frame(&one, frame, sizeof(frame));
		ng_epb(&w, psn % 3, ns, frame, len, NULL);
		ns += 1000;
	}
	if (fclose(w.ng) != 0)
		die("writing pcapng", strerror(errno));
}

/* ---- RDMA-CM on QP1 ---- */

/* Big-endian fields of a MAD, at byte offsets from its start (IBTA Vol 1 §13.4.2, §12.6). */
static void be_at(uint8_t *m, unsigned off, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		m[off + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* The MAD common header: base version 1, the class, its version, method SEND (0x03). */
static void mad_header(uint8_t m[256], uint8_t mgmt_class, uint8_t class_version, uint16_t attr, uint64_t tid)
{
	memset(m, 0, 256);
	m[0] = 1;
	m[1] = mgmt_class;
	m[2] = class_version;
	m[3] = 0x03;
	be_at(m, 8, tid, 8);
	be_at(m, 16, attr, 2);
}

/* A CM message: the header, the local and (but for REQ) remote communication IDs. */
static void cm_header(uint8_t m[256], uint16_t attr, uint32_t local, uint32_t remote)
{
	mad_header(m, 0x07, 2, attr, 0x0000000258a0bc00ull + attr);
	be_at(m, 24, local, 4);
	if (attr != 0x0010)
		be_at(m, 28, remote, 4);
}

/* A MAD on QP1 from one side to the other: RoCEv2 UD SEND_ONLY with DETH, as Linux ib_cm sends
 * it (Q_Key 0x80010000, source QP 1). */
static void put_mad(struct writer *w, struct roce_build *b, bool from_a, const uint8_t mad[256], uint32_t psn)
{
	memcpy(b->eth_src, from_a ? MAC_A : MAC_B, 6);
	memcpy(b->eth_dst, from_a ? MAC_B : MAC_A, 6);
	b->src[3] = from_a ? 1 : 2;
	b->dst[3] = from_a ? 2 : 1;
	b->h.bth.opcode = 0x64;
	b->h.bth.dqpn = 1;
	b->h.bth.psn = psn;
	b->h.bth.ackreq = 1;
	b->h.deth.qkey = 0x80010000u;
	b->h.deth.srcqp = 1;
	b->payload = mad;
	b->payload_len = 256;
	put(w, b);
}

/* Every CM message this project decodes, by both sides of two connections: REQ (RDMA IP CM
 * private data), MRA, REP, RTU, DREQ, DREP; a REQ rejected (consumer reject, then invalid service
 * ID on a REP); an attribute CM has but the decoder does not (SIDR_REQ), another management class
 * (Subnet Administration), and a REQ cut by the capture. */
static void scenario_cm(const char *dir)
{
	struct writer w;
	struct roce_build b;
	uint8_t m[256];
	uint32_t psn_a = 0, psn_b = 0;

	w_open(&w, dir, "cm_messages.pcap", DLT_EN10MB);
	base_flow(&b);
	b.tclass = 0;

	/* REQ: QP 0x000123 from PSN 0x1234 (A -> B), path MTU 1024, RC, RDMA IP CM to port 7174 */
	cm_header(m, 0x0010, 0x11110001, 0);
	be_at(m, 32, 0x0000000001061c06ull, 8);     /* ServiceID: RDMA IP CM, TCP port space, 7174 */
	be_at(m, 40, 0x0200000000000001ull, 8);     /* Local CA GUID */
	be_at(m, 56, 0x000123u << 8 | 4, 4);        /* Local QPN, Responder Resources 4 */
	be_at(m, 60, 0 << 8 | 2, 4);                /* Local EECN, Initiator Depth 2 */
	be_at(m, 64, 0 << 8 | 20 << 3 | 0 << 1 | 0, 4); /* Remote EECN, CM timeout 20, RC, no E2E */
	be_at(m, 68, 0x001234u << 8 | 18 << 3 | 7, 4); /* Starting PSN, CM timeout 18, retry 7 */
	be_at(m, 72, 0xffff, 2);                    /* P_Key */
	m[74] = 3 << 4 | 0 << 3 | 6;                /* MTU 1024, no RDC, RNR retry 6 */
	m[75] = 15 << 4;                            /* Max CM retries 15 */
	be_at(m, 76, 0xffff, 2);
	be_at(m, 78, 0xffff, 2);
	be_at(m, 80 + 10, 0xffff0a000001ull, 6);    /* GIDs ::ffff:10.0.0.1 and ::ffff:10.0.0.2 */
	be_at(m, 96 + 10, 0xffff0a000002ull, 6);
	be_at(m, 112, 0x12345u << 12 | 0x0f, 4);    /* flow label, packet rate */
	m[117] = 64;                                /* hop limit */
	m[119] = 19 << 3;                           /* local ACK timeout */
	m[164] = 0x00;                              /* RDMA IP CM: version 0.0, IPv4, port 40000 */
	m[165] = 4 << 4;
	be_at(m, 166, 40000, 2);
	be_at(m, 168 + 12, 0x0a000001, 4);
	be_at(m, 184 + 12, 0x0a000002, 4);
	put_mad(&w, &b, true, m, psn_a++);

	cm_header(m, 0x0011, 0x22220001, 0x11110001); /* MRA of the REQ, service timeout 17 */
	m[32] = 0 << 6;
	m[33] = 17 << 3;
	put_mad(&w, &b, false, m, psn_b++);

	cm_header(m, 0x0013, 0x22220001, 0x11110001); /* REP: QP 0x000456 from PSN 0x5678 */
	be_at(m, 32, 0, 4);
	be_at(m, 36, 0x000456u << 8, 4);
	be_at(m, 44, 0x005678u << 8, 4);
	m[48] = 4;
	m[49] = 2;
	m[50] = 15 << 3 | 0 << 1 | 1;               /* target ACK delay 15, E2E flow control */
	m[51] = 7 << 5;                             /* RNR retry 7 */
	be_at(m, 52, 0x0200000000000002ull, 8);
	put_mad(&w, &b, false, m, psn_b++);

	cm_header(m, 0x0014, 0x11110001, 0x22220001); /* RTU */
	put_mad(&w, &b, true, m, psn_a++);
	cm_header(m, 0x0015, 0x11110001, 0x22220001); /* DREQ to QP 0x000456 */
	be_at(m, 32, 0x000456u << 8, 4);
	put_mad(&w, &b, true, m, psn_a++);
	cm_header(m, 0x0016, 0x22220001, 0x11110001); /* DREP */
	put_mad(&w, &b, false, m, psn_b++);

	/* a second REQ, rejected by the consumer; then a REJ of a REP with an invalid service ID */
	cm_header(m, 0x0010, 0x11110002, 0);
	be_at(m, 32, 0x0000000001061c07ull, 8);
	be_at(m, 56, 0x000124u << 8 | 4, 4);
	be_at(m, 68, 0x000042u << 8 | 18 << 3 | 7, 4);
	be_at(m, 72, 0xffff, 2);
	m[74] = 5 << 4 | 7;                         /* MTU 4096, RNR retry 7 */
	be_at(m, 80 + 10, 0xffff0a000001ull, 6);
	be_at(m, 96 + 10, 0xffff0a000002ull, 6);
	put_mad(&w, &b, true, m, psn_a++);
	cm_header(m, 0x0012, 0x22220002, 0x11110002);
	m[32] = 0 << 6;                             /* the REQ rejected */
	m[33] = 0 << 1;
	be_at(m, 34, 28, 2);                        /* consumer reject */
	put_mad(&w, &b, false, m, psn_b++);
	cm_header(m, 0x0012, 0x11110003, 0x22220003);
	m[32] = 1 << 6;                             /* a REP rejected */
	be_at(m, 34, 8, 2);                         /* invalid service ID */
	put_mad(&w, &b, true, m, psn_a++);

	cm_header(m, 0x0017, 0x11110004, 0);        /* SIDR_REQ: not decoded */
	put_mad(&w, &b, true, m, psn_a++);
	mad_header(m, 0x03, 2, 0x0035, 0x77);       /* Subnet Administration: PathRecord */
	put_mad(&w, &b, true, m, psn_a++);

	cm_header(m, 0x0010, 0x11110005, 0);        /* a REQ cut 40 bytes into the MAD */
	be_at(m, 56, 0x000125u << 8, 4);
	w.snaplen = 14 + 20 + 8 + 12 + 8 + 40;
	put_mad(&w, &b, true, m, psn_a++);
	w.snaplen = 0;
	w_close(&w);
}

/* ---- benchmark captures ---- */

/* The small-packet flows: SEND_ONLY requests 10.0.0.1 -> 10.0.0.2 to QP 0x100 + q, 64 bytes,
 * and their ACKs back to QP 0x10000 + q. */
static void small_flows(struct roce_build *req, struct roce_build *ack)
{
	base_flow(req);
	base_flow(ack);
	memcpy(ack->eth_src, MAC_B, 6);
	memcpy(ack->eth_dst, MAC_A, 6);
	ack->src[3] = 2, ack->dst[3] = 1;
}

static void small_fill(struct roce_build *req, struct roce_build *ack, unsigned q, uint32_t psn)
{
	fill_ext(req, 0x04, psn);
	req->h.bth.dqpn = 0x100 + q;
	req->udp_sport = (uint16_t)(49152 + q);
	req->payload_len = 64;
	fill_ext(ack, 0x11, psn);
	ack->h.bth.dqpn = 0x10000 + q;
	ack->udp_sport = (uint16_t)(49152 + q);
}

static void bench_small(const char *file, unsigned long long n, unsigned qps)
{
	struct writer w;
	struct roce_build req, ack;
	uint32_t *psn = calloc(qps, sizeof(*psn));
	if (!psn)
		die("calloc", strerror(errno));
	w_open_path(&w, file, DLT_EN10MB);
	small_flows(&req, &ack);
	for (unsigned long long i = 0; i < n; i += 2) {
		unsigned q = (unsigned)(i / 2 % qps);
		small_fill(&req, &ack, q, psn[q]);
		put(&w, &req);
		put(&w, &ack);
		psn[q] = (psn[q] + 1) & 0xffffff;
	}
	w_close(&w);
	free(psn);
}

/* The congestion benchmark's pair of captures (--bench-cong): the same SEND_ONLY/ACK traffic,
 * one with congestion signals and one without, N frames each. */
static void bench_cong(const char *file, unsigned long long n, unsigned qps, int mode)
{
	struct writer w;
	struct roce_build req, ack, cnp_a, cnp_b;
	struct roce_build_macc pfc;
	uint32_t *psn = calloc(qps, sizeof(*psn)), rnd = 12345;
	bool cong = mode == 1;
	if (!psn)
		die("calloc", strerror(errno));
	w_open_path(&w, file, DLT_EN10MB);
	small_flows(&req, &ack);
	cnp_a = ack;  /* B's CNPs to A, for marks on A's requests; cnp_b: A's to B, for marks on ACKs */
	cnp_b = req;
	cnp_a.udp_sport = cnp_b.udp_sport = 0;
	cnp_a.tclass = cnp_b.tclass = 0xc2;
	cnp_a.h.bth.opcode = cnp_b.h.bth.opcode = 0x81;
	cnp_a.h.bth.becn = cnp_b.h.bth.becn = 1;
	macc_base(&pfc, ROCE_MACC_PFC, MAC_B);
	pfc.enbv = 0x08, pfc.quanta[3] = 1000;  /* 5.12 us of priority 3 */
	unsigned long long i = 0;
	for (unsigned k = 0; i < n; k++) {
		unsigned q = k % qps;
		struct roce_build *pkt[2] = {&req, &ack}, *answer[2] = {&cnp_a, &cnp_b};
		small_fill(&req, &ack, q, psn[q]);
		cnp_a.h.bth.dqpn = 0x10000 + q;
		cnp_b.h.bth.dqpn = 0x100 + q;
		for (unsigned d = 0; d < 2 && i < n; d++) {
			rnd = rnd * 1103515245u + 12345u;
			bool ce = cong && (rnd >> 16) % 10 == 0;
			pkt[d]->tclass = ce ? 0x03 : mode == 2 ? 0x00 : 0x02;
			w.at_ns = (int64_t)++i * 1000;
			put(&w, pkt[d]);
			if (ce && i < n) {
				w.at_ns = (int64_t)++i * 1000;
				put(&w, answer[d]);
			}
			if (cong && i % 1000 == 999 && i < n) {
				w.at_ns = (int64_t)++i * 1000;
				put_macc(&w, &pfc);
			}
		}
		psn[q] = (psn[q] + 1) & 0xffffff;
	}
	w_close(&w);
	free(psn);
}

static void bench_mtu(const char *file, unsigned long long bytes, unsigned qps)
{
	struct writer w;
	struct roce_build b;
	uint32_t *psn = calloc(qps, sizeof(*psn));
	if (!psn)
		die("calloc", strerror(errno));
	w_open_path(&w, file, DLT_EN10MB);
	base_flow(&b);
	unsigned long long written = 0;
	for (unsigned long long i = 0; written < bytes; i++) {
		unsigned q = (unsigned)(i / 4 % qps);
		static const uint8_t seq[4] = {0x06, 0x07, 0x07, 0x08};  /* WRITE FIRST, MIDDLE x2, LAST */
		fill_ext(&b, seq[i % 4], psn[q]);
		b.h.reth.dmalen = 4 * 4096;
		b.h.bth.dqpn = 0x100 + q;
		b.payload_len = 4096;
		put(&w, &b);
		written += 4096 + 78;
		psn[q] = (psn[q] + 1) & 0xffffff;
	}
	w_close(&w);
	free(psn);
}

/* Many hosts, as on a mirror port of a cluster: each QP joins two of H hosts (10.0.0.0/8, a MAC
 * each), and every frame belongs to a QP drawn at random: a SEND_ONLY of 64 bytes asking for an
 * ACK, or, when the QP has requests outstanding and a coin says so, the responder's ACK (MSN
 * counting the messages) of the newest of them. H = 56 · sqrt(Q / 1000): 1,000 QPs make about
 * 1,500 address pairs (both directions) in any 100,000 frames. Clean traffic: no anomalies. */
static void bench_hosts(const char *file, unsigned long long n, unsigned qps, bool pcapng)
{
	struct writer w;
	struct roce_build b;
	uint32_t *psn = calloc(qps, sizeof(*psn)), *host = calloc(qps, sizeof(*host));
	uint8_t *outstanding = calloc(qps, 1);
	if (!psn || !host || !outstanding || !qps)
		die("bench-hosts", qps ? strerror(errno) : "no QPs");
	unsigned hosts = 56;
	while ((unsigned long long)hosts * hosts * 1000 < 56ull * 56 * qps)
		hosts++;
	uint64_t x = 0x2545f4914f6cdd1dull;  /* xorshift64: deterministic */
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17)
	for (unsigned q = 0; q < qps; q++) {
		uint32_t a = (uint32_t)(NEXT() % hosts), c = (uint32_t)(NEXT() % (hosts - 1));
		host[q] = a << 16 | (c >= a ? c + 1 : c);  /* requester : responder */
		psn[q] = (uint32_t)(NEXT() & 0xffffff);      /* random first PSNs, as NICs pick them */
	}
	if (pcapng)
		w_open_pcapng_path(&w, file);
	else
		w_open_path(&w, file, DLT_EN10MB);
	base_flow(&b);
	for (unsigned long long i = 0; i < n; i++) {
		unsigned q = (unsigned)(NEXT() % qps);
		bool ack = outstanding[q] && (NEXT() & 1);
		uint32_t from = ack ? host[q] & 0xffff : host[q] >> 16, to = ack ? host[q] >> 16 : host[q] & 0xffff;
		uint32_t hs[2] = {from, to};
		for (unsigned k = 0; k < 2; k++) {
			uint8_t *ip = k ? b.dst : b.src, *mac = k ? b.eth_dst : b.eth_src;
			ip[0] = 10, ip[1] = (uint8_t)(hs[k] >> 16), ip[2] = (uint8_t)(hs[k] >> 8), ip[3] = (uint8_t)(hs[k] + 1);
			mac[0] = 0x02, mac[1] = 0, mac[2] = 0, mac[3] = (uint8_t)(hs[k] >> 16), mac[4] = (uint8_t)(hs[k] >> 8),
			mac[5] = (uint8_t)hs[k];
		}
		b.udp_sport = (uint16_t)(49152 + q % 16384);
		if (ack) {
			fill_ext(&b, 0x11, (psn[q] - 1) & 0xffffff);
			b.h.bth.dqpn = 0x800000 + q;
			outstanding[q] = 0;
		} else {
			fill_ext(&b, 0x04, psn[q]);
			b.h.bth.dqpn = 0x100 + q;
			b.payload_len = 64;
			psn[q] = (psn[q] + 1) & 0xffffff;
			outstanding[q] = 1;
		}
		put(&w, &b);
	}
#undef NEXT
	w_close(&w);
	free(psn);
	free(host);
	free(outstanding);
}

int main(int argc, char **argv)
{
	for (unsigned i = 0; i < sizeof(payload_bytes); i++)
		payload_bytes[i] = (uint8_t)(i * 7 + 3);
	if (argc == 5 && strcmp(argv[1], "--bench-small") == 0) {
		bench_small(argv[2], strtoull(argv[3], NULL, 10), (unsigned)strtoul(argv[4], NULL, 10));
		return 0;
	}
	if (argc == 6 && strcmp(argv[1], "--bench-cong") == 0) {
		bench_cong(argv[2], strtoull(argv[3], NULL, 10), (unsigned)strtoul(argv[4], NULL, 10), (int)strtol(argv[5], NULL, 10));
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "--bench-mtu") == 0) {
		bench_mtu(argv[2], strtoull(argv[3], NULL, 10), (unsigned)strtoul(argv[4], NULL, 10));
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "--bench-hosts") == 0) {
		bench_hosts(argv[2], strtoull(argv[3], NULL, 10), (unsigned)strtoul(argv[4], NULL, 10), false);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "--bench-hosts-ng") == 0) {
		bench_hosts(argv[2], strtoull(argv[3], NULL, 10), (unsigned)strtoul(argv[4], NULL, 10), true);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: gencaps DIR | --bench-small FILE N QPS | --bench-mtu FILE BYTES QPS | "
			"--bench-hosts[-ng] FILE N QPS | --bench-cong FILE N QPS 0|1|2\n");
		return 2;
	}
	scenario_opcodes(argv[1]);
	scenario_congestion(argv[1]);
	scenario_pfc(argv[1]);
	scenario_pfc_timeline(argv[1]);
	scenario_pfc_dscp(argv[1]);
	scenario_cnp(argv[1]);
	scenario_rocev1(argv[1]);
	scenario_ipv6(argv[1]);
	scenario_vlan(argv[1]);
	scenario_wrappers(argv[1]);
	scenario_linktypes(argv[1]);
	scenario_bad(argv[1]);
	scenario_snaplen(argv[1]);
	scenario_ports(argv[1]);
	scenario_capture_drops(argv[1]);
	scenario_pcapng_options(argv[1]);
	scenario_mixed_linktypes(argv[1]);
	scenario_cm(argv[1]);
	return 0;
}
