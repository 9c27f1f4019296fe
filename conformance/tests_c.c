/* tests_c.c: catalogue group C, packets the responder must drop silently (IBTA Vol 1 §9.6
 * packet header validation, Table 40 p. 296: ICRC, DestQP, TVer, P_Key, opcode class vs QP type;
 * Annex A17 RoCEv2 address checks, CA17-24 silent drops). Each sends the bad packet at ePSN,
 * listens, then sends a control packet at ePSN + 1: a NAK PSN sequence error naming ePSN proves the
 * bad packet was dropped (the DUT still expects its PSN), an ACK covering ePSN + 1 proves it was
 * taken. (A control at ePSN would not tell: a DUT that took the bad packet without acknowledging
 * it yet re-ACKs the control as a duplicate.) Then the packet at ePSN resumes the sequence. */
#include "tests.h"

static void drop(struct session *s, const struct stim *st, const char *what, struct conf_result *r)
{
	size_t m = s->n_resps;
	if (sess_send(s, st, "%s psn 0x%06x", what, st->psn) < 0)
		return;
	judge_silent(s, m, r);
}

/* The setup's probe at ePSN, for the tests to spoil. */
static void probe_stim(struct session *s, struct stim *st)
{
	if (s->qp.caps & NEED_SEND) {
		stim_init(s, st, ROCE_OPC_SEND_ONLY);
		st->payload_len = 64;
	} else {
		stim_init(s, st, s->qp.caps & NEED_MR_WRITE ? ROCE_OPC_WRITE_ONLY : ROCE_OPC_READ_REQUEST);
		st->extra.reth.va = s->qp.va;
		st->extra.reth.rkey = s->qp.rkey;
		st->extra.reth.dmalen = 64;
		st->payload_len = s->qp.caps & NEED_MR_WRITE ? 64 : 0;
	}
}

/* The setup's probe with one thing spoiled, which the responder must drop. */
enum spoil { SPOIL_ICRC, SPOIL_DQPN, SPOIL_DQPN_0, SPOIL_TVER, SPOIL_PKEY, SPOIL_SRC };

static void drop_spoiled(struct session *s, enum spoil what, const char *note, struct conf_result *r)
{
	struct stim st;
	probe_stim(s, &st);
	switch (what) {
	case SPOIL_ICRC: st.icrc = ROCE_BUILD_ICRC_BAD; break;        /* every ICRC bit flipped */
	case SPOIL_DQPN: st.dqpn = s->qp.dut_qpn ^ 0x5a5a00; break;  /* an unknown QP */
	case SPOIL_DQPN_0: st.dqpn = 0; break;
	case SPOIL_TVER: st.tver = 1; break;
	case SPOIL_PKEY: st.pkey = 0x1234; break;                     /* the QP's is 0xffff */
	case SPOIL_SRC: st.alt_src = true; break;                     /* not the QP's remote GID */
	}
	drop(s, &st, note, r);
}

void test_c1a(struct session *s, struct conf_result *r)
{
	drop_spoiled(s, SPOIL_ICRC, "C1a: every ICRC bit flipped", r);
}

/* C1b: the IPv4 ID (covered by the ICRC) changed after the ICRC was computed; the IP checksum
 * is right. */
void test_c1b(struct session *s, struct conf_result *r)
{
	struct stim st;
	uint8_t f[10240];
	probe_stim(s, &st);
	int n = stim_build(s, &st, f, sizeof(f));
	if (n < 8) {
		v_set(r, V_INCONCLUSIVE, "%s", s->err);
		return;
	}
	st.icrc = ROCE_BUILD_ICRC_VALUE;
	st.icrc_value = (uint32_t)f[n - 4] | (uint32_t)f[n - 3] << 8 | (uint32_t)f[n - 2] << 16 | (uint32_t)f[n - 1] << 24;
	if (s->o->dut.family == 6) {  /* IPv6 has no ID (its flow label is masked): spoil the payload */
		st.fill ^= 0x01;
		drop(s, &st, "C1b: a payload byte changed after the ICRC was computed", r);
		return;
	}
	st.ip_id ^= 0x0100;
	drop(s, &st, "C1b: the IPv4 ID changed after the ICRC was computed", r);
}

/* C1c: one payload byte flipped on the way (the frame built right, then changed). */
void test_c1c(struct session *s, struct conf_result *r)
{
	struct stim st;
	uint8_t f[10240];
	probe_stim(s, &st);
	if (st.payload_len == 0) {
		v_set(r, V_NA, "the setup's probe has no payload");
		return;
	}
	int n = stim_build(s, &st, f, sizeof(f));
	if (n < 0) {
		v_set(r, V_INCONCLUSIVE, "%s", s->err);
		return;
	}
	if (n < 4 + 10 + 1) {
		v_set(r, V_INCONCLUSIVE, "the probe is too short for a payload byte to flip");
		return;
	}
	size_t m = s->n_resps;
	f[n - 4 - 10] ^= 0x40;  /* a byte near the payload's end, before the ICRC */
	char note[96];
	snprintf(note, sizeof(note), "C1c: a payload byte flipped, psn 0x%06x", st.psn);
	if (sess_send_raw(s, f, (uint32_t)n, note) < 0)
		return;
	judge_silent(s, m, r);
}

void test_c2a(struct session *s, struct conf_result *r)
{
	drop_spoiled(s, SPOIL_DQPN, "C2a: an unknown destination QP", r);
}

void test_c2b(struct session *s, struct conf_result *r)
{
	drop_spoiled(s, SPOIL_DQPN_0, "C2b: destination QP 0", r);
}

void test_c3a(struct session *s, struct conf_result *r)
{
	drop_spoiled(s, SPOIL_TVER, "C3a: BTH TVer 1", r);
}

void test_c3b(struct session *s, struct conf_result *r)
{
	drop_spoiled(s, SPOIL_PKEY, "C3b: P_Key 0x1234 (the QP's is 0xffff)", r);
}

/* C3c: a UD SEND_ONLY (with DETH) to the RC QP. */
void test_c3c(struct session *s, struct conf_result *r)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_UD_SEND_ONLY);
	st.extra.deth.qkey = 0x11111111;
	st.extra.deth.srcqp = s->qp.my_qpn;
	st.payload_len = 64;
	drop(s, &st, "C3c: a UD opcode (0x64) to the RC QP", r);
}

/* C3d: a UC SEND_ONLY to the RC QP. */
void test_c3d(struct session *s, struct conf_result *r)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_UC | ROCE_OPC_SEND_ONLY);
	st.payload_len = 64;
	drop(s, &st, "C3d: a UC opcode (0x24) to the RC QP", r);
}

/* C4: from a source address that is not the QP's remote GID. */
void test_c4(struct session *s, struct conf_result *r)
{
	drop_spoiled(s, SPOIL_SRC, "C4: from another source IP than the advertised GID", r);
}

/* C5: shorter than its opcode's headers: SEND_ONLY_IMM without its ImmDt (BTH + ICRC only). */
void test_c5(struct session *s, struct conf_result *r)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_SEND_ONLY_IMM);
	st.hdrs_given = true;
	st.hdrs = 0;
	st.payload_len = 0;
	drop(s, &st, "C5: SEND_ONLY_IMM cut before its ImmDt", r);
}

/* C6: a lost packet (ePSN + 1 arrives first) -> NAK-Seq(ePSN); the resent pair is accepted. */
void test_c6(struct session *s, struct conf_result *r)
{
	uint32_t e = s->epsn;
	size_t m = s->n_resps;
	sess_probe(s, psn_add(e, 1), "C6: ePSN + 1 (ePSN lost)");
	judge_nak_seq(s, m, e, 100, r);
	if (r->v != V_PASS)
		return;
	struct conf_result again = {.measured_ms = -1};
	size_t m2 = s->n_resps;
	sess_probe(s, e, "C6: go-back-N resend of ePSN");
	sess_probe(s, psn_add(e, 1), "C6: go-back-N resend of ePSN + 1");
	uint32_t last = psn_add(e, 1);
	sess_wait(s, WAIT_MS, pred_psn, &last);
	sess_collect(s, 50);
	rule_acks_ordered(since(s, m2), n_since(s, m2), last, s->accepted + 2, true, &again);
	v_observed_add(r, " | resent: %s", again.observed);
	if (again.v != V_PASS) {
		v_set(r, V_FAIL, "the resent packets were not both acknowledged");
		r->missing = again.missing;  /* the ACKs seen in order, the last not seen */
	}
	accepted_if_pass(s, &again, last, 2);
}
