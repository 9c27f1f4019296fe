/* verdict_i.c: the verdict rule of group I (declared in verdict.h): a QP's errors (a PSN gap, a
 * bad ICRC, a fatal invalid request) stay on that QP: another QP of the same DUT acknowledges its
 * in-order SEND with no NAK and resends nothing; and F4's rate comparison (a reaction point lowers
 * its rate after CNPs). Pure functions of the DUT's recorded packets and their times, like
 * verdict.c's. */
#include "verdict.h"

/* The first request among rs[0..n) whose PSN an earlier request had: a resend, or NULL. */
static const struct resp *resent_request(const struct resp *rs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i && !rs[i].response; j++)
			if (!rs[j].response && rs[j].h.bth.psn == rs[i].h.bth.psn)
				return &rs[i];
	return NULL;
}

enum conf_verdict rule_qp_isolation(const struct resp *a, size_t na, const struct resp *b, size_t nb, uint32_t psn,
				    struct conf_result *r)
{
	char buf[128];
	v_expected(r, "QP b: an ACK of its SEND at PSN 0x%06x, no NAK, no request of the DUT's resent (QP a's errors "
		   "are QP a's: its NAKs are evidence, not judged)", psn);
	v_observed(r, "QP a");
	v_observed_resps(r, a, na, 0);
	v_observed_add(r, "; QP b");
	v_observed_resps(r, b, nb, 0);
	bool acked = false;
	for (size_t i = 0; i < nb; i++) {
		if (resp_is_nak(&b[i], -1) || resp_is_rnr(&b[i]))
			return v_set(r, V_FAIL, "QP b answered its in-order SEND with %s: QP a's errors leaked into QP b",
				     resp_str(&b[i], buf, sizeof(buf)));
		acked |= resp_is_ack(&b[i]) && psn_diff(b[i].h.bth.psn, psn) >= 0;
	}
	const struct resp *re = resent_request(b, nb);
	if (re)
		return v_set(r, V_FAIL, "the DUT resent its request on QP b (%s): QP b retransmitted",
			     resp_str(re, buf, sizeof(buf)));
	if (acked)
		return v_set(r, V_PASS, NULL);
	if (!na && !nb)
		return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing on either QP");
	return v_missing(r, "QP b's in-order SEND was not acknowledged while QP a was answered: QP a's errors "
			 "stopped QP b, or its ACK was lost");
}

/* A window's rate in packets per second (its packets less one over its span), or -1. */
static double window_rate(const int64_t *t, size_t n)
{
	if (n < 2 || t[n - 1] <= t[0])
		return -1;
	return (double)(n - 1) * 1e9 / (double)(t[n - 1] - t[0]);
}

enum conf_verdict rule_rate_drop(const int64_t *before, size_t nb, const int64_t *after, size_t na, double drop_pct,
				 struct conf_result *r)
{
	v_expected(r, "the DUT's rate after the CNPs more than %.0f %% below its rate before them", drop_pct);
	double rb = window_rate(before, nb), ra = window_rate(after, na);
	v_observed(r, "before: %zu packets, %.0f packets/s; after: %zu packets, %.0f packets/s", nb, rb, na, ra);
	if (rb <= 0 || ra <= 0)
		return v_set(r, V_INCONCLUSIVE, "a window of fewer than two packets, or packets all at one time: no rate");
	double drop = 100.0 * (1.0 - ra / rb);
	v_observed_add(r, " (%+.1f %%)", -drop);
	if (drop > drop_pct)
		return v_set(r, V_PASS, NULL);
	return v_set(r, V_FAIL, "the rate after the CNPs is %.1f %% below the rate before (more than %.0f %% needed): the "
		     "DUT's requester did not slow down on CNPs", drop, drop_pct);
}
