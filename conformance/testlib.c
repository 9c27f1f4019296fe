/* testlib.c: steps the catalogue's tests share (see testlib.h). */
#include "testlib.h"

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
	if (sess_probe(s, psn, why) < 0)
		return false;
	if (!s->link) {   /* dry run: as if acknowledged */
		s->epsn = psn_add(psn, 1);
		s->accepted++;
		return true;
	}
	long i = sess_wait(s, WAIT_MS, pred_psn, &psn);
	if (i < 0 || !(s->resps[i].h.hdrs & ROCE_HDR_AETH) ||
	    roce_aeth_kind(s->resps[i].h.aeth.syndrome) != ROCE_AETH_ACK)
		return false;
	s->epsn = psn_add(psn, 1);
	s->accepted++;
	return true;
}

void judge_silent(struct session *s, size_t m, struct conf_result *r)
{
	sess_collect(s, QUIET_MS);
	size_t c = s->n_resps;
	uint32_t psn = s->epsn;
	sess_probe(s, psn, "control: the in-order packet at ePSN");
	sess_wait(s, WAIT_MS, pred_psn, &psn);
	rule_silent(since(s, m), c - m, since(s, c), n_since(s, c), psn, r);
	if (r->v == V_PASS) {
		s->epsn = psn_add(psn, 1);
		s->accepted++;
	}
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
