/* tests_a.c: catalogue group A, the responder's sequencing and acknowledgements (IBTA Vol 1
 * §9.7.5.1 ACK generation and coalescing, §9.7.5.2.1-2 PSN checks and duplicates, C9-105
 * duplicate SEND/WRITE acknowledged without re-execution, §9.7.1 24-bit PSN arithmetic). */
#include "tests.h"

/* The probe at PSN psn, out of sequence (why), must get one NAK-Seq carrying ePSN
 * (judge_nak_seq); after a NAK-Seq, the in-order probe (after) must be acknowledged. false when
 * the NAK came but the in-order probe was not acknowledged (the caller fails the test). */
static bool nak_then_in_order(struct session *s, uint32_t psn, const char *why, const char *after,
			      struct conf_result *r)
{
	size_t m = s->n_resps;
	sess_probe(s, psn, why);
	judge_nak_seq(s, m, s->epsn, QUIET_MS, r);
	return r->v != V_PASS || probe_ok(s, after);
}

/* A1: SEND_ONLY at ePSN with AckReq -> ACK with that PSN and MSN + 1. */
void test_a1(struct session *s, struct conf_result *r)
{
	uint32_t psn = s->epsn;
	size_t m = s->n_resps;
	sess_probe(s, psn, "A1: in-order request with AckReq");
	judge_ack(s, m, psn, psn, s->accepted + 1, r);
	accepted_if_pass(s, r, psn, 1);
}

/* A2: a 4-packet SEND with AckReq only on the LAST -> ACKs never go backwards, the last one
 * carries the LAST's PSN and MSN + 1 (coalescing allowed). */
void test_a2(struct session *s, struct conf_result *r)
{
	unsigned pmtu = s->o->pmtu, n = s->o->recv_size / pmtu;
	if (n > 4)
		n = 4;
	if (n < 2) {
		v_set(r, V_NA, "the DUT's receive buffer (%u bytes) holds no multi-packet SEND at PMTU %u", s->o->recv_size, pmtu);
		return;
	}
	size_t m = s->n_resps;
	uint32_t first = s->epsn, last = psn_add(first, (int32_t)n - 1);
	for (unsigned i = 0; i < n; i++) {
		struct stim st;
		stim_init(s, &st, i == 0 ? ROCE_OPC_SEND_FIRST : i == n - 1 ? ROCE_OPC_SEND_LAST : ROCE_OPC_SEND_MIDDLE);
		st.psn = psn_add(first, (int32_t)i);
		st.ackreq = i == n - 1;
		st.payload_len = pmtu;
		sess_send(s, &st, "A2: packet %u of %u, psn 0x%06x%s", i + 1, n, st.psn, st.ackreq ? " AckReq" : "");
	}
	judge_acks_ordered(s, m, last, s->accepted + 1, r);
	accepted_if_pass(s, r, last, 1);
}

/* A3: SEND_ONLY without AckReq, then one with AckReq -> an ACK for the second with MSN + 2. */
void test_a3(struct session *s, struct conf_result *r)
{
	struct stim st;
	size_t m = s->n_resps;
	uint32_t p1 = s->epsn, p2 = psn_add(p1, 1);
	stim_init(s, &st, ROCE_OPC_SEND_ONLY);
	st.payload_len = 64;
	st.ackreq = false;
	sess_send(s, &st, "A3: SEND_ONLY psn 0x%06x without AckReq", p1);
	st.psn = p2;
	st.ackreq = true;
	sess_send(s, &st, "A3: SEND_ONLY psn 0x%06x with AckReq", p2);
	judge_ack(s, m, p2, p2, s->accepted + 2, r);
	accepted_if_pass(s, r, p2, 2);
}

/* A4: a duplicate of an acknowledged SEND -> acknowledged again, not executed again (MSN
 * unchanged). The DUT's own SEND is left unacknowledged meanwhile, which keeps its QP alive. */
void test_a4(struct session *s, struct conf_result *r)
{
	if (!probe_ok(s, "A4: the original SEND")) {
		precondition(s, r, "the original SEND was not acknowledged");
		return;
	}
	uint32_t dup = psn_add(s->epsn, -1);
	size_t m = s->n_resps;
	sess_probe(s, dup, "A4: duplicate of the acknowledged SEND");
	judge_ack(s, m, dup, dup, s->accepted, r);
}

/* A5: a PSN gap (ePSN + 5) -> exactly one NAK PSN sequence error carrying ePSN; then ePSN is
 * accepted. */
void test_a5(struct session *s, struct conf_result *r)
{
	if (!nak_then_in_order(s, psn_add(s->epsn, 5), "A5: PSN ahead of ePSN by 5",
			       "A5: the in-order packet after the NAK", r))
		probe_failed(s, r, "after the NAK, the in-order PSN 0x%06x was not acknowledged", s->epsn);
}

/* A6: after a NAK-Seq, more out-of-sequence packets get no second NAK; ePSN is then accepted;
 * a new gap gets a new NAK. */
void test_a6(struct session *s, struct conf_result *r)
{
	size_t m = s->n_resps;
	uint32_t e = s->epsn;
	for (int k = 3; k <= 5; k++)
		sess_probe(s, psn_add(e, k), "A6: out of sequence");
	judge_nak_seq(s, m, e, QUIET_MS, r);
	if (r->v != V_PASS)
		return;
	if (!probe_ok(s, "A6: ePSN after the NAK")) {
		probe_failed(s, r, "after the NAK, the in-order PSN 0x%06x was not acknowledged", e);
		return;
	}
	struct conf_result again = {.measured_ms = -1};
	size_t m2 = s->n_resps;
	sess_probe(s, psn_add(s->epsn, 2), "A6: a new gap");
	sess_wait(s, WAIT_MS, pred_response, NULL);
	sess_collect(s, 50);
	rule_nak(since(s, m2), n_since(s, m2), 1u << ROCE_NAK_PSN_SEQ_ERR, s->epsn, s->epsn,
		 (long)psn_add(s->epsn, -1), true, &again);
	v_expected(r, "one NAK-Seq for the episode (PSN 0x%06x), none for the further out-of-sequence packets; "
		   "ePSN then ACKed; a new gap NAKed again (PSN 0x%06x)", e, s->epsn);
	v_observed_add(r, " | new gap: %s", again.observed);
	if (again.v != V_PASS) {
		v_set(r, V_FAIL, "the new gap after recovery was not NAKed once");
		r->missing = again.missing;  /* no NAK seen, nothing wrong seen */
	}
}

/* A7: the 24-bit PSN wraps: 0xfffffe, 0xffffff, 0x000000 all accepted in order. */
void test_a7(struct session *s, struct conf_result *r)
{
	size_t m = s->n_resps;
	uint32_t p = s->epsn;
	for (int i = 0; i < 3; i++)
		sess_probe(s, psn_add(p, i), "A7: across the 24-bit wrap");
	uint32_t last = psn_add(p, 2);
	judge_acks_ordered(s, m, last, s->accepted + 3, r);
	accepted_if_pass(s, r, last, 3);
}

/* A8: the oldest duplicate (ePSN - 2^23 + 1) is a duplicate: acknowledged again (PSN that or
 * the last acknowledged one), never NAKed, MSN unchanged. */
void test_a8(struct session *s, struct conf_result *r)
{
	if (!probe_ok(s, "A8: one accepted SEND first")) {
		precondition(s, r, "an in-order SEND was not acknowledged");
		return;
	}
	uint32_t dup = psn_add(s->epsn, -(1 << 23) + 1);
	size_t m = s->n_resps;
	sess_probe(s, dup, "A8: PSN ePSN - 2^23 + 1 (the oldest duplicate)");
	judge_ack(s, m, dup, psn_add(s->epsn, -1), s->accepted, r);
}

/* A9: the farthest PSN ahead (ePSN + 2^23 - 1) is out of sequence: one NAK-Seq with ePSN. */
void test_a9(struct session *s, struct conf_result *r)
{
	if (!nak_then_in_order(s, psn_add(s->epsn, (1 << 23) - 1), "A9: PSN ePSN + 2^23 - 1 (the farthest ahead)",
			       "A9: the in-order packet after the NAK", r))
		probe_failed(s, r, "after the NAK, the in-order PSN was not acknowledged");
}
