/* tests_d.c: catalogue group D, READ and ATOMIC at the responder and their duplicates (IBTA Vol 1
 * §9.7.5.1.4 READ responses; §9.7.5.2.2 duplicate requests: a duplicate READ is executed again,
 * from the PSN it names, as an exact subset of the original (IBA 1.4 p. 282); a duplicate READ
 * that is not a subset is dropped; a duplicate ATOMIC returns the saved original value and does
 * not touch memory again, C9-148). Needs a perftest-read or perftest-atomic setup. */
#include "tests.h"

static unsigned pkts(const struct session *s, uint32_t len)
{
	return (len + s->o->pmtu - 1) / s->o->pmtu;
}

/* D1: a 3-PMTU READ: FIRST/MIDDLE/LAST, PSNs req..req+2; ePSN moves by 3. */
void test_d1(struct session *s, struct conf_result *r)
{
	uint32_t len = 3 * s->o->pmtu, psn = s->epsn;
	if (s->qp.mr_len < len) {
		v_set(r, V_NA, "the DUT's buffer (%llu bytes) is smaller than 3 x PMTU", (unsigned long long)s->qp.mr_len);
		return;
	}
	size_t m = read_req(s, psn, s->qp.va, s->qp.rkey, len, "D1");
	rule_read_response(since(s, m), n_since(s, m), psn, 0, 3, len, dut_alive(s, m, 500), r);
	if (r->v == V_PASS) {
		s->epsn = psn_add(psn, 3);
		s->accepted++;
		if (!probe_ok(s, "D1: the next request at ePSN + 3"))
			probe_failed(s, r, "the request at ePSN + 3 (0x%06x) was not accepted", s->epsn);
	}
}

/* The original READ for the duplicate tests: 2 x PMTU. */
static bool original(struct session *s, uint32_t *psn, uint32_t *len, struct conf_result *r)
{
	*len = 2 * s->o->pmtu;
	*psn = s->epsn;
	if (s->qp.mr_len < *len) {
		v_set(r, V_NA, "the DUT's buffer is smaller than 2 x PMTU");
		return false;
	}
	struct conf_result pre = {.measured_ms = -1};
	size_t m = read_req(s, *psn, s->qp.va, s->qp.rkey, *len, "original");
	rule_read_response(since(s, m), n_since(s, m), *psn, 0, 2, *len, dut_alive(s, m, 500), &pre);
	if (pre.v != V_PASS && s->link) {
		snprintf(r->observed, EVIDENCE_LEN, "%s", pre.observed);
		precondition(s, r, "the original READ was not answered correctly");
		return false;
	}
	s->epsn = psn_add(*psn, 2);
	s->accepted++;
	return true;
}

/* D2: the same READ again: executed again, the same PSNs and length. */
void test_d2(struct session *s, struct conf_result *r)
{
	uint32_t psn, len;
	if (!original(s, &psn, &len, r))
		return;
	size_t m = read_req(s, psn, s->qp.va, s->qp.rkey, len, "D2: duplicate");
	rule_read_response(since(s, m), n_since(s, m), psn, 0, pkts(s, len), len, dut_alive(s, m, 500), r);
}

/* D3: a duplicate starting mid-range (PSN + 1, VA + PMTU): responses from PSN + 1. */
void test_d3(struct session *s, struct conf_result *r)
{
	uint32_t psn, len;
	if (!original(s, &psn, &len, r))
		return;
	uint32_t pmtu = s->o->pmtu;
	size_t m = read_req(s, psn_add(psn, 1), s->qp.va + pmtu, s->qp.rkey, len - pmtu, "D3: duplicate mid-range");
	rule_read_response(since(s, m), n_since(s, m), psn_add(psn, 1), 1, pkts(s, len), len - pmtu,
			   dut_alive(s, m, 500), r);
}

/* D4: a duplicate with another R_Key is not a subset of the original: dropped silently. */
void test_d4(struct session *s, struct conf_result *r)
{
	uint32_t psn, len;
	if (!original(s, &psn, &len, r))
		return;
	size_t m = read_req(s, psn, s->qp.va, s->qp.rkey ^ 0x00a5a500, len, "D4: duplicate with another R_Key");
	judge_silent(s, m, r);
}

/* D5: a duplicate FETCH_ADD returns the saved original value; memory is added to once. */
void test_d5(struct session *s, struct conf_result *r)
{
	struct stim st;
	uint32_t psn = s->epsn;
	stim_init(s, &st, ROCE_OPC_FETCH_ADD);
	st.extra.atomiceth.va = s->qp.va;
	st.extra.atomiceth.rkey = s->qp.rkey;
	st.extra.atomiceth.swap = 1;
	size_t m = s->n_resps;
	sess_send(s, &st, "D5: FETCH_ADD +1 psn 0x%06x", psn);
	long a = sess_wait(s, WAIT_MS, pred_psn, &psn);
	sess_send(s, &st, "D5: the same FETCH_ADD again (duplicate)");
	long b = sess_wait(s, WAIT_MS, pred_psn, &psn);
	sess_collect(s, 50);
	v_expected(r, "two ATOMIC_ACKs with PSN 0x%06x carrying the same original value", psn);
	v_observed_resps(r, since(s, m), n_since(s, m), 0);
	if (a < 0 || b < 0) {
		if (a < 0 && !dut_alive(s, m, 300))
			v_set(r, V_INCONCLUSIVE, "the DUT sent nothing at all");
		else
			v_missing(r, "%s not answered", a < 0 ? "the FETCH_ADD was" : "the duplicate was");
		return;
	}
	const struct resp *x = &s->resps[a], *y = &s->resps[b];
	if (x->h.bth.opcode != ROCE_OPC_ATOMIC_ACK || y->h.bth.opcode != ROCE_OPC_ATOMIC_ACK)
		v_set(r, V_FAIL, "not ATOMIC_ACKs");
	else if (x->h.atomicacketh.orig != y->h.atomicacketh.orig)
		v_set(r, V_FAIL, "the duplicate returned 0x%llx, the original 0x%llx: executed twice",
		      (unsigned long long)y->h.atomicacketh.orig, (unsigned long long)x->h.atomicacketh.orig);
	else
		v_set(r, V_PASS, NULL);
	s->epsn = psn_add(psn, 1);
	s->accepted++;
}
