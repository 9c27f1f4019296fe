/* testlib.c: steps the catalogue's tests share (see testlib.h). */
#include "testlib.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool dut_alive(struct session *s, size_t m, int ms)
{
	if (s->n_resps > m)
		return true;
	return sess_wait(s, ms, pred_any, NULL) >= 0;
}

bool probe_ok(struct session *s, const char *why)
{
	uint32_t psn = s->epsn;
	size_t m = s->n_resps;
	s->probe_unanswered = false;
	if (sess_probe(s, psn, why) < 0)
		return false;
	if (!s->link) {   /* dry run: as if acknowledged */
		accepted(s, psn, 1);
		return true;
	}
	long i = sess_wait(s, WAIT_MS, pred_psn, &psn);
	if (i < 0 || !(s->resps[i].h.hdrs & ROCE_HDR_AETH) ||
	    roce_aeth_kind(s->resps[i].h.aeth.syndrome) != ROCE_AETH_ACK) {
		s->probe_unanswered = i < 0 && !count_responses(since(s, m), n_since(s, m));
		return false;
	}
	accepted(s, psn, 1);
	return true;
}

void probe_failed(struct session *s, struct conf_result *r, const char *fmt, ...)
{
	char why[EVIDENCE_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (s->probe_unanswered)
		v_missing(r, "%s", why);
	else
		v_set(r, V_FAIL, "%s", why);
}

void judge_ack(struct session *s, size_t m, uint32_t psn, uint32_t psn_alt, long msn, struct conf_result *r)
{
	if (psn_alt == psn)
		sess_wait(s, WAIT_MS, pred_psn, &psn);
	else
		sess_wait(s, WAIT_MS, pred_response, NULL);
	sess_collect(s, 50);
	rule_ack(since(s, m), n_since(s, m), psn, psn_alt, msn, dut_alive(s, m, 1000), r);
}

void judge_acks_ordered(struct session *s, size_t m, uint32_t last, long msn, struct conf_result *r)
{
	sess_wait(s, WAIT_MS, pred_psn, &last);
	sess_collect(s, 50);
	rule_acks_ordered(since(s, m), n_since(s, m), last, msn, dut_alive(s, m, 1000), r);
}

void judge_nak_seq(struct session *s, size_t m, uint32_t e, int quiet_ms, struct conf_result *r)
{
	sess_wait(s, WAIT_MS, pred_response, NULL);
	sess_collect(s, quiet_ms);
	rule_nak(since(s, m), n_since(s, m), 1u << ROCE_NAK_PSN_SEQ_ERR, e, e, (long)psn_add(e, -1),
		 dut_alive(s, m, 500), r);
}

void judge_silent(struct session *s, size_t m, struct conf_result *r)
{
	sess_collect(s, QUIET_MS);
	size_t c = s->n_resps;
	uint32_t e = s->epsn, next = psn_add(e, 1);
	sess_probe(s, next, "control: ePSN + 1, NAKed with ePSN if the stimulus was dropped, ACKed if it was taken");
	sess_wait(s, WAIT_MS, pred_response, NULL);
	sess_collect(s, 50);
	rule_silent(since(s, m), c - m, since(s, c), n_since(s, c), e, r);
	if (r->v != V_PASS && s->link) {
		sess_sync(s);   /* where the DUT's ePSN stands now, for the finish step */
		return;
	}
	/* the DUT still expects ePSN: the in-order packet resumes the sequence */
	bool ok = probe_ok(s, "the in-order packet at ePSN after the control's NAK");
	v_observed_add(r, " | ePSN 0x%06x sent again: %s", e, ok ? "acknowledged" : "not acknowledged");
}

static bool pred_last_send(const struct resp *r, const void *arg)
{
	(void)arg;
	const struct roce_opcode_info *op = roce_opcode_info(r->h.bth.opcode);
	return !r->response && (op->seg == ROCE_SEG_LAST || op->seg == ROCE_SEG_ONLY);
}

bool dut_message(struct session *s, uint32_t *first, uint32_t *last, struct conf_result *r)
{
	if (!s->qp.dut_sends) {
		v_set(r, V_NA, "the setup's DUT sends no message of its own");
		return false;
	}
	if (s->accepted == 0 && !probe_ok(s, "a SEND the DUT answers with its own SEND")) {
		precondition(s, r, "the DUT did not acknowledge an in-order SEND");
		return false;
	}
	if (!s->link) {   /* dry run: the placeholder message */
		uint32_t pm = s->o->pmtu ? s->o->pmtu : 1024;
		*first = s->qp.dut_psn;
		*last = psn_add(*first, (int32_t)((s->qp.dut_send_len + pm - 1) / pm) - 1);
		return true;
	}
	bool have_first = false;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->n_resps; i++) {
			const struct resp *x = &s->resps[i];
			const struct roce_opcode_info *op = roce_opcode_info(x->h.bth.opcode);
			if (x->response)
				continue;
			if (!have_first && (op->seg == ROCE_SEG_FIRST || op->seg == ROCE_SEG_ONLY)) {
				*first = x->h.bth.psn;
				have_first = true;
			}
			if (have_first && (op->seg == ROCE_SEG_LAST || op->seg == ROCE_SEG_ONLY)) {
				*last = x->h.bth.psn;
				return true;
			}
		}
		if (sess_wait(s, 3000, pred_last_send, NULL) < 0)
			break;
	}
	precondition(s, r, "the DUT did not send its own message after the tester's SEND");
	return false;
}

size_t request_times(const struct session *s, size_t m, uint32_t psn, int64_t *t, size_t max)
{
	size_t k = 0;
	for (size_t i = m; i < s->n_resps && k < max; i++)
		if (!s->resps[i].response && s->resps[i].h.bth.psn == psn)
			t[k++] = s->resps[i].ts_ns;
	return k;
}

void precondition(struct session *s, struct conf_result *r, const char *what)
{
	if (!r->observed[0])
		v_observed_resps(r, s->resps, s->n_resps, s->t_start);
	v_set(r, V_INCONCLUSIVE, "precondition failed: %s", what);
}

void expect_nak(struct session *s, const struct stim *sts, unsigned n, unsigned codes, const char *what,
		struct conf_result *r)
{
	size_t m = s->n_resps;
	uint32_t psn = sts[0].psn, hi = sts[n - 1].psn;
	for (unsigned i = 0; i < n; i++)
		if (sess_send(s, &sts[i], "%s: %s psn 0x%06x, %u bytes", what, roce_opcode_info(sts[i].opcode)->name
			      ? roce_opcode_info(sts[i].opcode)->name : "reserved opcode", sts[i].psn, sts[i].payload_len) < 0)
			return;
	sess_wait(s, WAIT_MS, pred_response, NULL);
	sess_collect(s, QUIET_MS);
	rule_nak(since(s, m), n_since(s, m), codes, psn, hi, (long)psn_add(psn, -1), dut_alive(s, m, 500), r);
}

size_t read_req(struct session *s, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len, const char *what)
{
	struct stim st;
	unsigned pmtu = qp_pmtu(s), n = len ? (len + pmtu - 1) / pmtu : 1;
	uint32_t last = psn_add(psn, (int32_t)n - 1);
	size_t m = s->n_resps;
	stim_init(s, &st, ROCE_OPC_READ_REQUEST);
	st.psn = psn;
	st.extra.reth.va = va;
	st.extra.reth.rkey = rkey;
	st.extra.reth.dmalen = len;
	sess_send(s, &st, "%s: READ psn 0x%06x va 0x%llx len %u", what, psn, (unsigned long long)va, len);
	sess_wait(s, WAIT_MS, pred_psn, &last);
	sess_collect(s, 50);
	return m;
}
