/* verdict_h.c: the verdict rules of the catalogue's later groups (declared in verdict.h): the IP
 * and UDP header fields of the DUT's own packets (H) and its source ports across QPs (H6), PFC (G1),
 * CMP_SWAP's two outcomes and its duplicate
 * (D6-D8), READ responses segmented at the PMTU the QP was brought up with (M2), and how many CNPs
 * answer a burst of CE-marked packets (F2). Pure functions of the DUT's recorded packets, like
 * verdict.c's. */
#include "verdict.h"

#include <stdio.h>
#include <string.h>

#define IP4_DF 0x4000

bool dut_hdr_of(const uint8_t *frame, uint32_t caplen, const struct conf_addr *dut, uint32_t qpn, struct dut_hdr *h)
{
	struct roce_pkt p;
	struct roce_decoder_config cfg = {.n_extra_ports = 1, .flags = ROCE_DECODE_NO_ICRC | ROCE_DECODE_NO_CSUM};
	if (roce_decode(&cfg, frame, caplen, caplen, 1, &p) != 1 && p.udp.off) {
		cfg.extra_ports[0] = p.udp.dport;   /* RoCEv2 to another port: decode it as such */
		roce_decode(&cfg, frame, caplen, caplen, 1, &p);
	}
	if (p.version != 2 || !p.op || p.net.addr_len != (dut->family == 6 ? 16 : 4) ||
	    memcmp(frame + p.net.addr_off, dut->ip, p.net.addr_len) != 0 || p.h.bth.dqpn != qpn)
		return false;
	memset(h, 0, sizeof(*h));
	h->ip_version = p.net.kind == ROCE_NET_IPV4 ? 4 : 6;
	h->ecn = (uint8_t)roce_ecn(&p.net);
	h->df = p.net.kind == ROCE_NET_IPV4 && (p.net.frag & IP4_DF);
	h->sport = p.udp.sport;
	h->dport = p.udp.dport;
	h->udp_csum = p.udp.csum;
	return true;
}

size_t dut_hdrs_since(const struct session *s, size_t m, struct dut_hdr *hs, size_t max)
{
	size_t k = 0;
	for (size_t i = m; i < s->n_frames && k < max; i++)
		if (!s->frames[i].sent &&
		    dut_hdr_of(s->frames[i].bytes, s->frames[i].len, &s->o->dut, s->qp.my_qpn, &hs[k]))
			k++;
	return k;
}

/* The field f of h, as it is judged. */
static unsigned field(const struct dut_hdr *h, enum hdr_field f)
{
	switch (f) {
	case HDR_ECN: return h->ecn;
	case HDR_DF: return h->df;
	case HDR_UDP_CSUM: return h->udp_csum;
	case HDR_DPORT: return h->dport;
	default: return h->sport;
	}
}

static const char *const field_name[] = {"IP ECN", "IPv4 DF", "UDP checksum", "UDP destination port",
					 "UDP source port"};

/* Whether field f of h breaks the rule (sport: another port than the first packet's, first). */
static bool bad_field(const struct dut_hdr *h, enum hdr_field f, bool ecn_declared, unsigned first)
{
	switch (f) {
	case HDR_ECN: return ecn_declared ? h->ecn == 3 : h->ecn != 0;
	case HDR_DF: return !h->df;
	case HDR_UDP_CSUM: return h->udp_csum != 0;
	case HDR_DPORT: return h->dport != ROCE_UDP_PORT;
	default: return h->sport != first;
	}
}

static void expected_field(struct conf_result *r, enum hdr_field f, bool ecn_declared)
{
	static const char *const want[] = {
		"ECN 00 (Not-ECT) on every DUT packet: it is not declared to do RoCE congestion management",
		"the IPv4 Don't Fragment bit set on every DUT packet",
		"UDP checksum 0 on every DUT packet (the ICRC covers the packet)",
		"UDP destination port 4791 on every DUT packet",
		"one UDP source port on all of the QP's packets (its flow identifier)",
	};
	if (f == HDR_ECN && ecn_declared)
		v_expected(r, "ECN 00, 01 or 10 on every DUT packet, never CE (11): a sender does not mark congestion");
	else
		v_expected(r, "%s", want[f]);
}

enum conf_verdict rule_dut_headers(const struct dut_hdr *hs, size_t n, enum hdr_field f, bool ecn_declared,
				   struct conf_result *r)
{
	expected_field(r, f, ecn_declared);
	v_observed(r, "%zu DUT packet%s to the tester's QP, %s:", n, n == 1 ? "" : "s", field_name[f]);
	for (size_t i = 0; i < n && i < 16; i++)
		v_observed_add(r, " %u", field(&hs[i], f));
	if (!n)
		return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing to the tester's QP");
	if (f == HDR_DF && hs[0].ip_version == 6)
		return v_set(r, V_NA, "IPv6 has no Don't Fragment bit (an IPv6 router never fragments)");
	if (f == HDR_SPORT && n < 2)
		return v_set(r, V_INCONCLUSIVE, "one DUT packet: a source port cannot be compared");
	for (size_t i = 0; i < n; i++)
		if (bad_field(&hs[i], f, ecn_declared, hs[0].sport))
			return v_set(r, V_FAIL, "packet %zu of %zu: %s %s%u", i + 1, n, field_name[f],
				     f == HDR_SPORT ? "changed to " : "", field(&hs[i], f));
	if (f == HDR_SPORT)
		return v_set(r, V_PASS, "note: port %u; whether other QPs get other ports is H6's", hs[0].sport);
	return v_set(r, V_PASS, NULL);
}

/* Whether the QPN of qs[i] is already among qs[0..i). */
static bool qpn_seen_before(const struct qp_port *qs, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (qs[k].dut_qpn == qs[i].dut_qpn)
			return true;
	return false;
}

/* Whether the port of qs[i] is already among qs[0..i). */
static bool port_seen_before(const struct qp_port *qs, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (qs[k].sport == qs[i].sport)
			return true;
	return false;
}

enum conf_verdict rule_sport_spread(const struct qp_port *qs, size_t n, struct conf_result *r)
{
	v_expected(r, "the DUT's QPs of this run (each test brings up its own) on more than one UDP source port: the "
		   "flow identifier spread per QP for ECMP");
	v_observed(r, "%zu DUT QP%s (QPN:port):", n, n == 1 ? "" : "s");
	size_t qpns = 0, ports = 0;
	for (size_t i = 0; i < n; i++) {
		if (i < 24)
			v_observed_add(r, " %s 0x%06x:%u", qs[i].test ? qs[i].test : "?", qs[i].dut_qpn, qs[i].sport);
		qpns += !qpn_seen_before(qs, i);
		ports += !port_seen_before(qs, i);
	}
	if (qpns < 2)
		return v_set(r, V_INCONCLUSIVE, "%s: the spread needs the packets of two QPs or more (every test brings up "
			     "one QP: run H6 after other tests, e.g. --tests H)", n ? "one DUT QP seen in this run" :
			     "no DUT packet seen in this run");
	if (ports == 1)
		return v_set(r, V_FAIL, "all %zu QPs used UDP source port %u: no entropy for ECMP (A17.9.4)", qpns,
			     qs[0].sport);
	return v_set(r, V_PASS, "note: %zu source ports for %zu QPs", ports, qpns);
}

enum conf_verdict rule_pfc(const struct resp *during, size_t nd, const struct resp *after, size_t na, unsigned prio,
			   double w_ms, struct conf_result *r)
{
	v_expected(r, "no DUT frame on priority %u for %.0f ms of refreshed PAUSE; resent after XON", prio, w_ms);
	v_observed(r, "%zu DUT frame%s during the PAUSE", nd, nd == 1 ? "" : "s");
	for (size_t i = 0; i < nd && i < 8; i++)
		v_observed_add(r, "%s %s PSN 0x%06x", i ? "," : ":", roce_opcode_info(during[i].h.bth.opcode)->name,
			       during[i].h.bth.psn);
	size_t k = 0;
	while (k < na && after[k].response)
		k++;
	v_observed_add(r, "; %s after XON", k < na ? "a request" : "nothing");
	if (nd)
		return v_set(r, V_FAIL, "the DUT sent during the PAUSE: it does not honour PFC on priority %u, or the PAUSE "
			     "never reached it (G1 needs a direct link: a switch consumes PFC frames, a Linux bridge does "
			     "not forward 01:80:c2:00:00:01)", prio);
	if (k == na)
		return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing after XON either: the pause's effect is not proven");
	return v_set(r, V_PASS, NULL);
}

/* The ATOMIC_ACK with PSN psn in rs[0..n), or NULL. */
static const struct resp *atomic_ack(const struct resp *rs, size_t n, uint32_t psn)
{
	for (size_t i = 0; i < n; i++)
		if (rs[i].response && rs[i].h.bth.opcode == ROCE_OPC_ATOMIC_ACK && rs[i].h.bth.psn == psn)
			return &rs[i];
	return NULL;
}

/* A NAK or a missing ATOMIC_ACK among rs[0..n) for the k requests at psn[]: the verdict, or -1. */
static int atomic_acks(const struct resp *rs, size_t n, const uint32_t *psn, unsigned k, bool alive,
		       const struct resp **acks, struct conf_result *r)
{
	for (size_t i = 0; i < n; i++)
		if (resp_is_nak(&rs[i], -1))
			return v_set(r, V_FAIL, "NAKed");
	for (unsigned i = 0; i < k; i++)
		if (!(acks[i] = atomic_ack(rs, n, psn[i]))) {
			if (!n && !alive)
				return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing at all");
			return v_missing(r, "no ATOMIC_ACK for PSN 0x%06x seen", psn[i]);
		}
	return -1;
}

enum conf_verdict rule_cmp_swap(const struct resp *rs, size_t n, const uint32_t psn[3], uint64_t cmp, uint64_t swap,
				bool alive, struct conf_result *r)
{
	const struct resp *a[3];
	v_expected(r, "ATOMIC_ACKs for PSN 0x%06x (reads v), 0x%06x (CMP_SWAP compare 0x%llx swap 0x%llx: returns v) "
		   "and 0x%06x (reads back 0x%llx when v = 0x%llx, else v)", psn[0], psn[1], (unsigned long long)cmp,
		   (unsigned long long)swap, psn[2], (unsigned long long)swap, (unsigned long long)cmp);
	observed_responses(r, rs, n);
	int v = atomic_acks(rs, n, psn, 3, alive, a, r);
	if (v >= 0)
		return (enum conf_verdict)v;
	uint64_t was = a[0]->h.atomicacketh.orig, got = a[1]->h.atomicacketh.orig, back = a[2]->h.atomicacketh.orig;
	uint64_t want = was == cmp ? swap : was;
	if (got != was)
		return v_set(r, V_FAIL, "the CMP_SWAP returned 0x%llx, not the original 0x%llx", (unsigned long long)got,
			     (unsigned long long)was);
	if (back != want)
		return v_set(r, V_FAIL, "memory holds 0x%llx after the CMP_SWAP, not 0x%llx (%s)", (unsigned long long)back,
			     (unsigned long long)want, was == cmp ? "equal: must be swapped" : "unequal: must be unchanged");
	return v_set(r, V_PASS, NULL);
}

enum conf_verdict rule_dup_atomic(const struct resp *rs, size_t n, uint32_t psn, bool alive, struct conf_result *r)
{
	v_expected(r, "two ATOMIC_ACKs with PSN 0x%06x carrying the same original value", psn);
	observed_responses(r, rs, n);
	const struct resp *a = NULL, *b = NULL;
	for (size_t i = 0; i < n; i++)
		if (rs[i].response && rs[i].h.bth.opcode == ROCE_OPC_ATOMIC_ACK && rs[i].h.bth.psn == psn) {
			if (a)
				b = &rs[i];
			else
				a = &rs[i];
		}
	if (!a && !n && !alive)
		return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing at all");
	if (!a || !b)  /* which of the two was not answered, the same PSN cannot tell */
		return v_missing(r, "%s ATOMIC_ACK with PSN 0x%06x seen, for the atomic and its duplicate", a ? "one" : "no", psn);
	if (a->h.atomicacketh.orig != b->h.atomicacketh.orig)
		return v_set(r, V_FAIL, "the duplicate returned 0x%llx, the original 0x%llx: executed twice",
			     (unsigned long long)b->h.atomicacketh.orig, (unsigned long long)a->h.atomicacketh.orig);
	return v_set(r, V_PASS, NULL);
}

enum conf_verdict rule_read_segments(const struct resp *rs, size_t n, uint32_t psn, unsigned total, unsigned pmtu,
				     bool alive, struct conf_result *r)
{
	if (rule_read_response(rs, n, psn, 0, total, total * pmtu, alive, r) != V_PASS)
		return r->v;
	v_expected(r, "%u READ response packets of exactly %u bytes (the QP's PMTU), PSN 0x%06x..0x%06x", total, pmtu,
		   psn, psn_add(psn, (int32_t)total - 1));
	unsigned k = 0;
	for (size_t i = 0; i < n; i++)
		if (rs[i].response && k++ < total && rs[i].payload_len != pmtu)
			return v_set(r, V_FAIL, "response %u carries %u bytes at PMTU %u", k, rs[i].payload_len, pmtu);
	return v_set(r, V_PASS, NULL);
}

enum conf_verdict rule_cnp_marks(const struct resp *rs, size_t n, const struct resp *others, size_t nothers,
				 unsigned marks, uint32_t my_qpn, uint16_t pkey, bool alive, int64_t t0,
				 struct conf_result *r)
{
	v_expected(r, "1 to %u CNPs to QP 0x%06x for %u CE-marked packets, each in the Annex A17.9.3 format", marks,
		   my_qpn, marks);
	if (rule_cnp(rs, n, others, nothers, my_qpn, pkey, alive, t0, r) != V_PASS)
		return r->v;
	unsigned k = 0;
	int64_t first = 0, last = 0;
	for (size_t i = 0; i < n; i++)
		if (rs[i].h.bth.opcode == ROCE_OPC_CNP) {
			last = rs[i].ts_ns;
			first = k++ ? first : last;
		}
	if (k > marks)
		return v_set(r, V_FAIL, "%u CNPs for %u marked packets", k, marks);
	return v_set(r, V_PASS, "note: %u CNP%s for %u marked packets over %.3f ms (the DUT declares no CNP interval: "
		     "informational)", k, k == 1 ? "" : "s", marks, (double)(last - first) / 1e6);
}
