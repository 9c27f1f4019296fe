/* tests_h.c: catalogue group H, the IP and UDP headers of the DUT's own packets (IBTA Annex A17.3,
 * the RoCEv2 packet format: ECN 00 from a DUT without RoCE congestion management, CA17-5 / CA17-14;
 * IPv4 DF, CA17-7; UDP destination port 4791, CA17-20; UDP checksum 0 as the ICRC covers the packet,
 * A17.3.2.4; the source port the QP's flow identifier, A17.3.2.1, spread across QPs for ECMP,
 * A17.9.4), judged on the packets the DUT sends in an ordinary exchange (its ACKs, and on
 * rc-pingpong its own SEND; H6 on the first packet of every QP of the run); and V1, a request in RoCEv1 framing
 * (Annex A16: EtherType 0x8915, a GRH with the QP's GIDs), which needs a DUT QP on a RoCEv1 GID. */
#include "tests.h"

/* Two probes acknowledged, then one field of every DUT packet of the exchange judged. */
static void judge_field(struct session *s, struct conf_result *r, enum hdr_field f, const char *what)
{
	size_t m = s->n_frames;
	bool ok = probe_ok(s, what);
	ok = ok && probe_ok(s, what);  /* a second exchange: more of the DUT's packets to judge */
	sess_collect(s, 100);
	struct dut_hdr hs[64];
	size_t n = dut_hdrs_since(s, m, hs, 64);
	rule_dut_headers(hs, n, f, s->o->ecn, r);
	if (!ok && s->link && r->v == V_PASS)
		precondition(s, r, "the probes were not both acknowledged");
}

void test_h1(struct session *s, struct conf_result *r)
{
	judge_field(s, r, HDR_ECN, "H1: the DUT's ECN");
}

void test_h2(struct session *s, struct conf_result *r)
{
	judge_field(s, r, HDR_DF, "H2: the DUT's DF bit");
}

void test_h3(struct session *s, struct conf_result *r)
{
	judge_field(s, r, HDR_UDP_CSUM, "H3: the DUT's UDP checksum");
}

void test_h4(struct session *s, struct conf_result *r)
{
	judge_field(s, r, HDR_DPORT, "H4: the DUT's UDP destination port");
}

void test_h5(struct session *s, struct conf_result *r)
{
	judge_field(s, r, HDR_SPORT, "H5: the DUT's UDP source port");
}

/* The DUT QPs of this run and each one's source port, for H6 (the run brings up one QP a test). */
static struct qp_port run_qps[256];
static size_t n_run_qps;

void note_qp_port(const struct session *s)
{
	struct dut_hdr h;
	if (n_run_qps >= sizeof(run_qps) / sizeof(run_qps[0]) || !dut_hdrs_since(s, 0, &h, 1))
		return;
	for (size_t i = 0; i < n_run_qps; i++)
		if (run_qps[i].dut_qpn == s->qp.dut_qpn)
			return;
	run_qps[n_run_qps++] = (struct qp_port){s->qp.dut_qpn, h.sport, s->test ? s->test->id : NULL};
}

/* H6: one exchange on this test's QP, then the source ports of every DUT QP of the run (those of
 * the tests before it and this one) judged together. */
void test_h6(struct session *s, struct conf_result *r)
{
	bool ok = probe_ok(s, "H6: the DUT's UDP source port on this QP");
	sess_collect(s, 100);
	note_qp_port(s);
	rule_sport_spread(run_qps, n_run_qps, r);
	if (!ok && s->link && r->v == V_PASS)
		precondition(s, r, "the probe was not acknowledged");
}

/* V1: the setup's probe in RoCEv1 framing -> acknowledged. No setup of this version brings the
 * DUT's QP up on a RoCEv1 GID (Linux rxe has none): live, N/A; a dry run writes the frame. */
void test_v1(struct session *s, struct conf_result *r)
{
	if (s->link && !(s->qp.caps & NEED_ROCEV1)) {
		v_set(r, V_NA, "the setup brought the DUT's QP up on a RoCEv2 GID; a RoCEv1 exchange needs a QP on a "
		      "RoCEv1 GID, which no setup of this version brings up (Linux rxe has none)");
		return;
	}
	struct stim st;
	uint32_t psn = s->epsn;
	stim_probe(s, &st, psn);
	st.rocev1 = true;
	size_t m = s->n_resps;
	sess_send(s, &st, "V1: %s psn 0x%06x in RoCEv1 framing (EtherType 0x8915, GRH)",
		  roce_opcode_info(st.opcode)->name, psn);
	judge_ack(s, m, psn, psn, -1, r);
	accepted_if_pass(s, r, psn, 1);
}
