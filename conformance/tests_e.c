/* tests_e.c: catalogue group E, the DUT as requester (IBTA Vol 1 §9.7.6: the requester's
 * ACK/NAK handling; §9.7.6.1.1 local ACK timeout (4.096 us * 2^timeout, the actual timer between
 * one and four times that), C9-141 retry count; §9.7.5.2.5 go-back-N on NAK-Seq (PSNs before
 * the NAK's are implicitly acknowledged); §9.7.5.2.8 RNR NAK back-off; §9.7.6.1.3 ghost ACKs;
 * class B errors from NAK-Inv, NAK-RmtAcc, NAK-RmtOp put the QP in error). The stimulus is the
 * DUT's own SEND (rc-pingpong). */
#include "tests.h"
#include "setup.h"

/* How long a requester that should stop is watched: four timeouts and the tolerance. */
static double watch_ms(const struct session *s)
{
	return 4 * s->qp.dut_ack_timeout_ms * (1 + s->o->tolerance_pct / 100.0) + 50;
}

/* E1: the DUT's SEND is never acknowledged: retransmissions after the local ACK timeout, at most
 * retry_cnt of them, then the QP in error and silence. */
void test_e1(struct session *s, struct conf_result *r)
{
	uint32_t first, last;
	if (!dut_message(s, &first, &last, r))
		return;
	int64_t tx[64];
	/* a requester that stopped is watched for 1 s or three times 4 x the timeout (TCG DUTs pause) */
	double w = 3 * watch_ms(s);
	if (w < 1000)
		w = 1000;
	unsigned limit = s->qp.dut_retry_cnt + 2;   /* one retry more than allowed is enough to judge */
	int64_t end = now_ns() + (int64_t)(w * (limit + 1) * 1e6);
	size_t n = request_times(s, 0, first, tx, 64);
	while (s->link && n < limit && now_ns() < end) {
		if (n && now_ns() - tx[n - 1] > (int64_t)(w * 1e6))
			break;
		sess_collect(s, 20);
		n = request_times(s, 0, first, tx, 64);
	}
	int64_t watched = n ? now_ns() - tx[n - 1] : 0;
	rule_retries(tx, n, watched, s->qp.dut_ack_timeout_ms, s->qp.dut_retry_cnt, s->o->tolerance_pct, w, r);
	if (r->v == V_PASS)
		qp_killed(s);   /* else the finish step ACKs the message so the DUT's server can end */
}

/* E2: NAK-Seq at p inside the outstanding message: resend from exactly p. */
void test_e2(struct session *s, struct conf_result *r)
{
	uint32_t first, last;
	if (!dut_message(s, &first, &last, r))
		return;
	int32_t span = psn_diff(last, first);
	uint32_t p = psn_add(first, span >= 2 ? 2 : span);
	char note[160];
	size_t m = s->n_resps;
	snprintf(note, sizeof(note), "E2: NAK PSN sequence error at 0x%06x (the DUT's message is 0x%06x..0x%06x)", p, first, last);
	sess_aeth(s, p, 0x60, 0, note);
	sess_wait(s, WAIT_MS, pred_request, NULL);
	rule_resend_from(since(s, m), n_since(s, m), p, r);
	sess_collect(s, 50);
}

/* E3: RNR NAK with timer code 21 (15.36 ms): the retransmission no earlier than the timer. */
void test_e3(struct session *s, struct conf_result *r)
{
	const unsigned code = 21;
	uint32_t first, last;
	if (!dut_message(s, &first, &last, r))
		return;
	char note[160];
	snprintf(note, sizeof(note), "E3: RNR NAK timer %u (%.2f ms) at 0x%06x", code, roce_rnr_timer_usec(code) / 1000.0, first);
	sess_aeth(s, first, (uint8_t)(0x20 | code), 0, note);
	int64_t t_nak = s->n_frames ? s->frames[s->n_frames - 1].ts_ns : now_ns();
	long i = sess_wait(s, (int)watch_ms(s) * 2, pred_request, NULL);
	rule_rnr_wait(t_nak, i >= 0 ? s->resps[i].ts_ns : -1, roce_rnr_timer_usec(code) / 1000.0,
		      s->o->tolerance_pct, r);
	sess_collect(s, 50);
}

/* E4: only the LAST PSN acknowledged (cumulative): the message completes, nothing is resent. */
void test_e4(struct session *s, struct conf_result *r)
{
	uint32_t first, last;
	if (!dut_message(s, &first, &last, r))
		return;
	size_t m = s->n_resps;
	sess_ack_dut(s, last, 1, "E4: one ACK for the LAST PSN only");
	s->dut_msgs_acked = 1;
	double w = watch_ms(s);
	sess_collect(s, (int)w);
	rule_no_requests(since(s, m), n_since(s, m), w, "the cumulative ACK completed the whole message", r);
	v_observed_add(r, " (message 0x%06x..0x%06x)", first, last);
}

/* A request carrying PSN psn captured after time t. */
struct sent_after {
	int64_t t;
	uint32_t psn;
};

static bool pred_sent_after(const struct resp *r, const void *arg)
{
	const struct sent_after *a = arg;
	return !r->response && r->h.bth.psn == a->psn && r->ts_ns > a->t;
}

/* E5: a ghost ACK (PSN beyond anything sent) is ignored: the message is still resent. Only a
 * request captured after the ACK left counts as the resend: one the capture delivers later may
 * have been sent before it. */
void test_e5(struct session *s, struct conf_result *r)
{
	uint32_t first, last;
	if (!dut_message(s, &first, &last, r))
		return;
	uint32_t ghost = psn_add(last, 1000);
	size_t m = s->n_resps;
	sess_ack_dut(s, ghost, 1, "E5: ghost ACK beyond the outstanding PSNs");
	struct sent_after resend = {s->frames[s->n_frames - 1].ts_ns, first};
	sess_wait(s, (int)watch_ms(s), pred_sent_after, &resend);
	rule_ghost_ack(since(s, m), n_since(s, m), resend.t, ghost, first, last, r);
}

/* E6: a NAK of class B (invalid request, remote access, remote operational) puts the requester's
 * QP in error: nothing more is sent, and the in-order request sent right after the NAK is dropped.
 * "Nothing more sent" alone also fits a DUT that took the NAK as completing its message; that one
 * answers the request. It goes right after the NAK (paced), not after a quiet period: with
 * ibv_rc_pingpong -n 1 the DUT's server ends and destroys its QP once its SEND completes, in error
 * or not, so a later request finds no QP either way. */
static void fatal_nak(struct session *s, uint8_t syndrome, const char *name, struct conf_result *r)
{
	uint32_t first, last;
	if (!dut_message(s, &first, &last, r))
		return;
	char note[160];
	snprintf(note, sizeof(note), "E6: %s (0x%02x) at 0x%06x", name, syndrome, first);
	size_t m = s->n_resps;
	sess_aeth(s, first, syndrome, 0, note);
	uint32_t probe = s->epsn;
	int64_t t_probe = now_ns();
	sess_probe(s, probe, "E6: in-order request after the fatal NAK: a QP in error drops it");
	double w = watch_ms(s);
	sess_collect(s, (int)w);
	rule_fatal_nak(since(s, m), n_since(s, m), t_probe, probe, w, "the NAK put the requester's QP in the error state", r);
	if (r->v == V_PASS)
		qp_killed(s);   /* else the finish step ACKs the message so the DUT's server can end */
}

void test_e6a(struct session *s, struct conf_result *r) { fatal_nak(s, 0x61, "NAK invalid request", r); }
void test_e6b(struct session *s, struct conf_result *r) { fatal_nak(s, 0x62, "NAK remote access error", r); }
void test_e6c(struct session *s, struct conf_result *r) { fatal_nak(s, 0x63, "NAK remote operational error", r); }

/* E7: the DUT's READ (rping -s READs the buffer the tester advertises, rdma-cm setup) is answered
 * with one response packet withheld (the second, or the only one): the DUT must re-issue the READ
 * for what it lacks. The re-issued READ is then answered in full so that the server goes on. */
void test_e7(struct session *s, struct conf_result *r)
{
	if (rdmacm_advertise(s, "E7: the tester's buffer, for the DUT's READ") < 0)
		return;
	long i = sess_wait(s, WAIT_MS, pred_read_request, NULL);
	if (i < 0) {
		precondition(s, r, "the DUT's READ request of the advertised buffer did not come");
		return;
	}
	const struct resp req = s->resps[i];
	unsigned pm = qp_pmtu(s);
	uint32_t len = req.h.reth.dmalen, n = len ? (len + pm - 1) / pm : 1;
	long skip = n >= 2 ? 1 : 0;
	uint32_t missing = psn_add(req.h.bth.psn, (int32_t)skip);
	char why[64];
	snprintf(why, sizeof(why), "E7: response 0x%06x withheld", missing);
	rdmacm_read_respond(s, req.h.bth.psn, req.h.reth.va, len, skip, why);
	size_t m = s->n_resps;
	double w = 3 * watch_ms(s);
	if (w < 2000)
		w = 2000;   /* TCG DUTs pause */
	long j = sess_wait(s, (int)w, pred_read_request, NULL);
	rule_read_reissue(since(s, m), n_since(s, m), req.h.bth.psn, req.h.reth.va, len, missing, pm, w, r);
	if (j >= 0) {
		const struct resp re = s->resps[j];
		rdmacm_read_respond(s, re.h.bth.psn, re.h.reth.va, re.h.reth.dmalen, -1, "E7: the re-issued READ answered");
	}
	sess_collect(s, 50);
	rdmacm_served(s, j >= 0);
}
