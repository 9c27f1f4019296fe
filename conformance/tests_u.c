/* tests_u.c: catalogue group U, the unreliable connected service (IBTA 9.8), on the UC QP that
 * --setup uc-pingpong brings up with ibv_uc_pingpong: a UC responder never acknowledges, even a
 * request with AckReq set (U1), and a PSN gap inside a multi-packet SEND drops the rest of that
 * message, with no NAK and no completion, while the next message that starts (FIRST or ONLY) is
 * delivered (U2). The DUT's server sends its own SEND once one of ours completed a receive: that
 * SEND is how delivery is told from the wire. Group Q, the unreliable datagram service's Q_Key
 * check (IBTA 10.2.5, 9.6.1.1), on the UD QP that --setup ud-pingpong brings up with
 * ibv_ud_pingpong (Q_Key 0x11111111): a SEND_ONLY whose DETH carries another Q_Key is dropped
 * silently, one with the QP's Q_Key delivered; its server's own SEND tells which. The server's
 * receive buffer is its send buffer and it sends from byte 40 on: its SEND echoes where our
 * payload landed, after the 40 bytes of GRH room of a UD receive (Q3, IBTA A17.4.5.2); what those
 * 40 bytes hold no stock server sends (Q4: N/A, catalogue.c). */
#include "setup.h"
#include "tests.h"

#define UC_SEND(seg) (ROCE_OPC_UC | ROCE_OPC_SEND_##seg)

/* Send a UC SEND packet of len bytes at psn (AckReq as given). 0, or -1. */
static int uc_send(struct session *s, uint8_t opcode, uint32_t psn, uint32_t len, bool ackreq, const char *what)
{
	struct stim st;
	stim_init(s, &st, opcode);
	st.psn = psn;
	st.payload_len = len;
	st.ackreq = ackreq;
	return sess_send(s, &st, "%s: %s psn 0x%06x, %u bytes%s", what, roce_opcode_info(opcode)->name, psn, len,
			 ackreq ? ", AckReq" : "");
}

/* Wait for the DUT's SEND, then listen QUIET_MS more for anything after it. */
static void await_dut_send(struct session *s)
{
	sess_wait(s, WAIT_MS, pred_send_end, NULL);
	sess_collect(s, QUIET_MS);
}

/* U1: a SEND_ONLY with AckReq -> the DUT's SEND, and no ACK or NAK. */
void test_u1(struct session *s, struct conf_result *r)
{
	uint32_t psn = s->epsn;
	size_t m = s->n_resps;
	if (uc_send(s, UC_SEND(ONLY), psn, 64, true, "U1") < 0)
		return;
	s->epsn = psn_add(psn, 1);
	await_dut_send(s);
	rule_uc_unacked(since(s, m), n_since(s, m), r);
}

/* U2: SEND_FIRST at ePSN (PMTU bytes), its MIDDLE at ePSN + 1 never sent, SEND_LAST at ePSN + 2
 * with AckReq -> nothing (no NAK, no delivery: no SEND of the DUT's); then a SEND_ONLY at ePSN + 3
 * -> delivered (the DUT's SEND); when it was not, a second SEND_ONLY at ePSN + 4 tells a dropped
 * new message (delivered then) from a DUT that delivers nothing. The message would fit the DUT's
 * receive, so that delivering it would be no error but a completion. */
void test_u2(struct session *s, struct conf_result *r)
{
	uint32_t pm = qp_pmtu(s), e = s->epsn;
	if (2 * pm + 64 > s->o->recv_size) {
		v_set(r, V_NA, "FIRST + MIDDLE + LAST (2 x PMTU %u + 64 bytes) do not fit the DUT's receive of %u bytes "
		      "(--recv-size)", pm, s->o->recv_size);
		return;
	}
	size_t m = s->n_resps;
	if (uc_send(s, UC_SEND(FIRST), e, pm, false, "U2 message with a gap") < 0 ||
	    uc_send(s, UC_SEND(LAST), psn_add(e, 2), 64, true, "U2 message with a gap (MIDDLE at the PSN before: skipped)") < 0)
		return;
	await_dut_send(s);
	size_t c = s->n_resps;
	if (uc_send(s, UC_SEND(ONLY), psn_add(e, 3), 64, true, "U2 control: a new message") < 0)
		return;
	s->epsn = psn_add(e, 4);
	await_dut_send(s);
	size_t c2 = s->n_resps;
	bool again = s->link && !has_send_end(since(s, c), c2 - c);
	if (again) {
		if (uc_send(s, UC_SEND(ONLY), psn_add(e, 4), 64, true, "U2 second control: the control not delivered") < 0)
			return;
		s->epsn = psn_add(e, 5);
		await_dut_send(s);
	}
	rule_uc_gap(since(s, m), c - m, since(s, c), c2 - c, again ? since(s, c2) : NULL, again ? n_since(s, c2) : 0, r);
}

/* A UD SEND_ONLY of 64 bytes carrying qkey in its DETH. 0, or -1. */
static int ud_send(struct session *s, uint32_t qkey, const char *what)
{
	struct stim st;
	udpp_stim(s, &st, qkey);
	st.payload_len = 64;
	int rc = sess_send(s, &st, "%s: UD SEND_ONLY psn 0x%06x, Q_Key 0x%08x, 64 bytes", what, st.psn, qkey);
	s->epsn = psn_add(s->epsn, 1);
	return rc;
}

/* Q1: a SEND_ONLY with a Q_Key other than the QP's -> nothing (no response, no SEND of the DUT's);
 * then the same SEND with the QP's Q_Key -> delivered (the DUT's SEND), which shows the DUT alive. */
void test_q1(struct session *s, struct conf_result *r)
{
	size_t m = s->n_resps;
	if (ud_send(s, UDPP_QKEY ^ 0x33333333u, "Q1 wrong Q_Key") < 0)
		return;
	await_dut_send(s);
	size_t c = s->n_resps;
	if (!has_send_end(since(s, m), c - m)) {   /* else delivered: the server is done */
		if (ud_send(s, UDPP_QKEY, "Q1 control: the QP's Q_Key") < 0)
			return;
		await_dut_send(s);
	}
	rule_ud_qkey_drop(since(s, m), c - m, since(s, c), n_since(s, c), r);
}

/* Q2: a SEND_ONLY with the QP's Q_Key -> delivered: the DUT's SEND, no response. */
void test_q2(struct session *s, struct conf_result *r)
{
	size_t m = s->n_resps;
	if (ud_send(s, UDPP_QKEY, "Q2") < 0)
		return;
	await_dut_send(s);
	rule_ud_qkey_ok(since(s, m), n_since(s, m), r);
}

#define Q3_LEN 128   /* fits the server's -s at the smallest PMTU (256) */

/* The payload of the DUT's first SEND (its LAST or ONLY packet) since mark m, or NULL. */
static const uint8_t *dut_send_payload(const struct session *s, size_t m, uint32_t *len)
{
	for (size_t i = m; i < s->n_resps; i++) {
		if (!pred_send_end(&s->resps[i], NULL))
			continue;
		const struct rec_frame *f = &s->frames[s->resps[i].frame];
		struct roce_pkt p;
		if (roce_decode(NULL, f->bytes, f->len, f->len, 1, &p) != 1 || p.payload_off + p.payload_len > f->len)
			return NULL;
		*len = p.payload_len;
		return f->bytes + p.payload_off;
	}
	return NULL;
}

/* Q3: a SEND_ONLY of 128 distinct bytes with the QP's Q_Key -> the DUT's SEND starts with them. */
void test_q3(struct session *s, struct conf_result *r)
{
	static uint8_t data[Q3_LEN];   /* (static: the recorded stimulus keeps the pointer) */
	for (unsigned i = 0; i < Q3_LEN; i++)
		data[i] = (uint8_t)(i * 37 + 11);   /* 37 odd: no byte repeats, a shift shows */
	struct stim st;
	udpp_stim(s, &st, UDPP_QKEY);
	st.payload_len = Q3_LEN;
	st.data = data;
	size_t m = s->n_resps;
	if (sess_send(s, &st, "Q3: UD SEND_ONLY psn 0x%06x, Q_Key 0x%08x, %u distinct bytes", st.psn, UDPP_QKEY, Q3_LEN) < 0)
		return;
	s->epsn = psn_add(s->epsn, 1);
	await_dut_send(s);
	uint32_t elen = 0;
	const uint8_t *echo = dut_send_payload(s, m, &elen);
	rule_ud_grh_room(since(s, m), n_since(s, m), data, Q3_LEN, echo, elen, r);
}

/* Q4: what the first 40 bytes hold is not observable (UD_BUF_NA); main.c never runs it. */
void test_q4(struct session *s, struct conf_result *r)
{
	(void)s;
	v_set(r, V_NA, "%s", UD_BUF_NA);
}
