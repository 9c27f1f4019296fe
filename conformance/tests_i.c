/* tests_i.c: catalogue group I, the isolation of one QP from another's errors (IBTA 9.7.5.2: the
 * responder's checks and their NAKs are per QP). I1 brings up two RC QPs with two ibv_rc_pingpong
 * servers at once (the DUT agent starts the second on the setup's port + 1), spoils QP a with a
 * PSN gap, a packet with a bad ICRC and a SEND_MIDDLE with no FIRST (NAK invalid request: a fatal
 * error that puts QP a in the error state), then sends QP b's SEND in order: b must acknowledge
 * it with no NAK and resend nothing. */
#include "setup.h"
#include "tests.h"

/* The state of one of the test's QPs while the other is the session's. */
struct qp_state {
	struct conf_qp qp;
	uint32_t epsn;
};

static void qp_save(const struct session *s, struct qp_state *q)
{
	q->qp = s->qp;
	q->epsn = s->epsn;
}

static void qp_load(struct session *s, const struct qp_state *q)
{
	s->qp = q->qp;
	s->epsn = q->epsn;
}

/* Bring up QP b on the setup's port + 1 (placeholders in a dry run) and leave the session on QP
 * a. 0, or -1 (INCONCLUSIVE with the reason). */
static int second_qp(struct session *s, struct qp_state *a, struct qp_state *b, struct conf_result *r)
{
	char err[CONF_ERRLEN] = "";
	qp_save(s, a);
	if (!s->link)
		setup_rc_pingpong.placeholder(s);
	else if (setup_rc_pingpong.connect(s, (uint16_t)(s->port + 1), err) < 0) {
		v_set(r, V_INCONCLUSIVE, "QP b: the second server (port %u) did not come up: %s", s->port + 1, err);
		qp_load(s, a);
		return -1;
	}
	s->epsn = s->qp.my_psn;
	qp_save(s, b);
	qp_load(s, a);
	return 0;
}

/* The first NAK among rs[0..n), or NULL. */
static const struct resp *first_nak(const struct resp *rs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (resp_is_nak(&rs[i], -1))
			return &rs[i];
	return NULL;
}

/* The last packet of the DUT's SEND since mark m (waited for when not yet seen), or NULL. */
static const struct resp *dut_send_since(struct session *s, size_t m)
{
	for (size_t i = m; i < s->n_resps; i++)
		if (pred_send_end(&s->resps[i], NULL))
			return &s->resps[i];
	long k = sess_wait(s, WAIT_MS, pred_send_end, NULL);
	return k >= 0 ? &s->resps[k] : NULL;
}

/* QP a's errors: a PSN gap (NAK-Seq), a bad ICRC (dropped) and a SEND_MIDDLE with no FIRST (NAK
 * invalid request: QP a in error). */
static void spoil_qp_a(struct session *s)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_SEND_ONLY);
	st.psn = psn_add(s->epsn, 5);
	st.payload_len = 64;
	sess_send(s, &st, "I1 QP a: SEND_ONLY at ePSN + 5 (a PSN gap)");
	sess_wait(s, WAIT_MS, pred_response, NULL);
	stim_init(s, &st, ROCE_OPC_SEND_ONLY);
	st.psn = s->epsn;
	st.payload_len = 64;
	st.icrc = ROCE_BUILD_ICRC_BAD;
	sess_send(s, &st, "I1 QP a: SEND_ONLY at ePSN, every ICRC bit flipped");
	stim_init(s, &st, ROCE_OPC_SEND_MIDDLE);
	st.psn = s->epsn;
	st.payload_len = qp_pmtu(s);
	size_t m = s->n_resps;
	sess_send(s, &st, "I1 QP a: SEND_MIDDLE at ePSN with no FIRST (NAK invalid request: QP a in error)");
	sess_wait(s, WAIT_MS, pred_response, NULL);
	sess_collect(s, QUIET_MS);
	if (first_nak(since(s, m), n_since(s, m)))
		qp_killed(s);
}

/* I1: QP a spoiled, then QP b's SEND in order -> ACKed, no NAK, nothing resent on b. */
void test_i1(struct session *s, struct conf_result *r)
{
	struct qp_state a, b;
	if (second_qp(s, &a, &b, r) < 0)
		return;
	size_t ma = s->n_resps;
	spoil_qp_a(s);
	size_t na = n_since(s, ma);
	qp_save(s, &a);
	qp_load(s, &b);   /* the DUT's packets to QP b are the session's from here */
	size_t mb = s->n_resps;
	uint32_t psn = s->epsn;
	struct stim st;
	stim_probe(s, &st, psn);
	if (sess_send(s, &st, "I1 QP b: SEND at its ePSN with AckReq") < 0) {
		qp_load(s, &a);
		return;
	}
	sess_wait(s, WAIT_MS, pred_psn, &psn);
	const struct resp *e = dut_send_since(s, mb);   /* b's server sends once our SEND completed */
	if (e)
		sess_ack_dut(s, e->h.bth.psn, 1, "I1 QP b: the DUT's SEND acknowledged (its server ends)");
	sess_collect(s, QUIET_MS);
	/* QP a's packets (evidence) were s->resps[ma..ma+na); QP b's since mb */
	rule_qp_isolation(since(s, ma), na, since(s, mb), n_since(s, mb), psn, r);
	qp_load(s, &a);
}
