/* tests_h.c: catalogue group H, the IP and UDP headers of the DUT's own packets (IBTA Annex A17.4,
 * the RoCEv2 encapsulation: UDP destination port 4791, the source port the QP's flow identifier,
 * UDP checksum 0 as the ICRC covers the packet, IPv4 DF; Annex A17.9: ECN other than Not-ECT only
 * from a DUT that does RoCE congestion management), judged on the packets the DUT sends in an
 * ordinary exchange (its ACKs, and on rc-pingpong its own SEND); and V1, a request in RoCEv1 framing
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
