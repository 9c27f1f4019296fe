/* verdict.c: the verdict rules (see verdict.h). AETH syndromes: IBTA Vol 1 §9.7.5.1 (Tables
 * 46/47: bits 7:5 000 ACK, 001 RNR NAK, 011 NAK); responder behaviour §9.7.5.2; requester
 * timeouts and retries §9.7.6.1. Only bits 7:5 of an ACK's syndrome are judged (the credit count
 * differs between devices). */
#include "verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *verdict_name(enum conf_verdict v)
{
	switch (v) {
	case V_PASS: return "PASS";
	case V_FAIL: return "FAIL";
	case V_INCONCLUSIVE: return "INCONCLUSIVE";
	default: return "N/A";
	}
}

static void vput(char *dst, const char *fmt, va_list ap)
{
	vsnprintf(dst, EVIDENCE_LEN, fmt, ap);
}

void v_expected(struct conf_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(r->expected, fmt, ap);
	va_end(ap);
}

void v_observed(struct conf_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(r->observed, fmt, ap);
	va_end(ap);
}

void v_observed_add(struct conf_result *r, const char *fmt, ...)
{
	size_t l = strlen(r->observed);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->observed + l, EVIDENCE_LEN - l, fmt, ap);
	va_end(ap);
}

void v_reason(struct conf_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(r->reason, fmt, ap);
	va_end(ap);
}

enum conf_verdict v_set(struct conf_result *r, enum conf_verdict v, const char *fmt, ...)
{
	r->v = v;
	r->missing = false;
	r->reason[0] = 0;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vput(r->reason, fmt, ap);
		va_end(ap);
	}
	return v;
}

enum conf_verdict v_missing(struct conf_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(r->reason, fmt, ap);
	va_end(ap);
	r->v = V_FAIL;
	r->missing = true;
	return V_FAIL;
}

/* The separator before the next item: none at the start or after a label ending in ": ". */
static const char *sep(const char *o, size_t len)
{
	return len == 0 || (len >= 2 && o[len - 2] == ':' && o[len - 1] == ' ') ? "" : "; ";
}

void v_observed_resps(struct conf_result *r, const struct resp *rs, size_t n, int64_t t0)
{
	size_t len = strlen(r->observed);
	if (n == 0 && len + 40 < EVIDENCE_LEN) {
		snprintf(r->observed + len, EVIDENCE_LEN - len, "%sno packet from the DUT", sep(r->observed, len));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char b[128];
		len = strlen(r->observed);
		if (len + 160 >= EVIDENCE_LEN) {
			snprintf(r->observed + len, EVIDENCE_LEN - len, "; ... %zu more", n - i);
			return;
		}
		char at[32] = "";
		if (!t0)
			t0 = r->t_ref;
		if (t0)
			snprintf(at, sizeof(at), " at +%.1f ms", (double)(rs[i].ts_ns - t0) / 1e6);
		snprintf(r->observed + len, EVIDENCE_LEN - len, "%s%s%s", sep(r->observed, len),
			 resp_str(&rs[i], b, sizeof(b)), at);
	}
}

bool resp_is_ack(const struct resp *r)
{
	return r->response && (r->h.hdrs & ROCE_HDR_AETH) && roce_aeth_kind(r->h.aeth.syndrome) == ROCE_AETH_ACK;
}

bool resp_is_nak(const struct resp *r, int code)
{
	return r->response && (r->h.hdrs & ROCE_HDR_AETH) && roce_aeth_kind(r->h.aeth.syndrome) == ROCE_AETH_NAK &&
	       (code < 0 || (int)roce_aeth_value(r->h.aeth.syndrome) == code);
}

bool resp_is_rnr(const struct resp *r)
{
	return r->response && (r->h.hdrs & ROCE_HDR_AETH) && roce_aeth_kind(r->h.aeth.syndrome) == ROCE_AETH_RNR_NAK;
}

size_t count_responses(const struct resp *rs, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += rs[i].response;
	return c;
}

void observed_responses(struct conf_result *r, const struct resp *rs, size_t n)
{
	struct resp only[64];
	size_t k = 0;
	for (size_t i = 0; i < n && k < 64; i++)
		if (rs[i].response)
			only[k++] = rs[i];
	v_observed_resps(r, only, k, 0);
}

enum conf_verdict rule_ack(const struct resp *rs, size_t n, uint32_t psn, uint32_t psn_alt, long msn, bool alive,
			   struct conf_result *r)
{
	char alt[32] = "";
	if (psn_alt != psn)
		snprintf(alt, sizeof(alt), " or 0x%06x", psn_alt);
	if (msn >= 0)
		v_expected(r, "an ACK (syndrome 000xxxxx) with PSN 0x%06x%s and MSN %ld, no NAK", psn, alt, msn);
	else
		v_expected(r, "an ACK (syndrome 000xxxxx) with PSN 0x%06x%s, no NAK", psn, alt);
	observed_responses(r, rs, n);
	for (size_t i = 0; i < n; i++)
		if (resp_is_nak(&rs[i], -1) || resp_is_rnr(&rs[i]))
			return v_set(r, V_FAIL, NULL);
	for (size_t i = 0; i < n; i++) {
		if (!rs[i].response || (rs[i].h.bth.psn != psn && rs[i].h.bth.psn != psn_alt) ||
		    !(rs[i].h.hdrs & ROCE_HDR_AETH) ||
		    roce_aeth_kind(rs[i].h.aeth.syndrome) != ROCE_AETH_ACK)
			continue;
		if (rs[i].icrc_status == ROCE_ICRC_BAD)
			return v_set(r, V_FAIL, "the acknowledgement's ICRC is wrong");
		if (msn >= 0 && rs[i].h.aeth.msn != (uint32_t)msn)
			return v_set(r, V_FAIL, NULL);
		return v_set(r, V_PASS, NULL);
	}
	if (!count_responses(rs, n) && !alive)
		return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing at all: it stopped answering, or the capture does not see it");
	/* every answer an ACK of an earlier PSN (or none): the one due was not seen */
	for (size_t i = 0; i < n; i++)
		if (rs[i].response && (!resp_is_ack(&rs[i]) || psn_diff(rs[i].h.bth.psn, psn) >= 0))
			return v_set(r, V_FAIL, NULL);
	return v_missing(r, "no acknowledgement of PSN 0x%06x seen", psn);
}

enum conf_verdict rule_nak(const struct resp *rs, size_t n, unsigned codes, uint32_t psn, uint32_t psn_hi,
			   long ack_ok, bool alive, struct conf_result *r)
{
	char cs[128] = "";
	for (unsigned c = 0; c < 5; c++)
		if (codes & (1u << c)) {
			size_t l = strlen(cs);
			snprintf(cs + l, sizeof(cs) - l, "%s%s (0x%02x)", l ? " or " : "", roce_nak_code_name(c), 0x60 | c);
		}
	if (psn_hi != psn)
		v_expected(r, "exactly one NAK %s with a PSN in 0x%06x..0x%06x", cs, psn, psn_hi);
	else
		v_expected(r, "exactly one NAK %s with PSN 0x%06x", cs, psn);
	observed_responses(r, rs, n);
	size_t naks = 0, good = 0, acks_beyond = 0;
	for (size_t i = 0; i < n; i++) {
		const struct resp *x = &rs[i];
		if (resp_is_nak(x, -1) || resp_is_rnr(x)) {
			naks++;
			unsigned code = roce_aeth_value(x->h.aeth.syndrome);
			bool in = psn_diff(x->h.bth.psn, psn) >= 0 && psn_diff(psn_hi, x->h.bth.psn) >= 0;
			if (resp_is_nak(x, -1) && (codes & (1u << code)) && in)
				good++;
		} else if (resp_is_ack(x) && (ack_ok < 0 || psn_diff(x->h.bth.psn, (uint32_t)ack_ok) > 0)) {
			acks_beyond++;
		}
	}
	if (good == 1 && naks == 1 && !acks_beyond)
		return v_set(r, V_PASS, NULL);
	if (!count_responses(rs, n) && !alive)
		return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing at all: it stopped answering, or the capture does not see it");
	if (naks > 1 && good >= 1)
		return v_set(r, V_FAIL, "%zu NAKs where one was expected", naks);
	if (!naks && !acks_beyond)
		return v_missing(r, "no NAK seen");
	return v_set(r, V_FAIL, NULL);
}

/* What the answers to the control packet at ePSN + 1 say about the stimulus at ePSN. */
static enum conf_verdict silent_control(const struct resp *ctl, size_t nctl, uint32_t epsn, struct conf_result *r)
{
	uint32_t next = psn_add(epsn, 1);
	for (size_t i = 0; i < nctl; i++)
		if (resp_is_ack(&ctl[i]) && psn_diff(ctl[i].h.bth.psn, epsn) >= 0)
			return v_set(r, V_FAIL, "the DUT accepted the packet it must drop: its ACK with PSN 0x%06x covers the "
				     "stimulus's PSN 0x%06x (the control at 0x%06x was in sequence)", ctl[i].h.bth.psn, epsn, next);
	for (size_t i = 0; i < nctl; i++) {
		if (!resp_is_nak(&ctl[i], ROCE_NAK_PSN_SEQ_ERR))
			continue;
		if (ctl[i].h.bth.psn == epsn)
			return v_set(r, V_PASS, "dropped: the control at ePSN + 1 (0x%06x) was NAKed with PSN sequence error "
				     "naming 0x%06x, the stimulus's PSN, which the DUT still expects", next, epsn);
		return v_set(r, V_FAIL, "the dropped packet moved the DUT's expected PSN: the NAK PSN sequence error names "
			     "0x%06x, not 0x%06x", ctl[i].h.bth.psn, epsn);
	}
	for (size_t i = 0; i < nctl; i++)
		if (resp_is_ack(&ctl[i]) && ctl[i].h.bth.psn == psn_add(epsn, -1))
			return v_set(r, V_PASS, "dropped: the DUT answered the control at ePSN + 1 with an ACK naming 0x%06x, "
				     "the PSN before the stimulus's, as the last it took (an ACK where a NAK PSN sequence error "
				     "is due: test A5's matter)", ctl[i].h.bth.psn);
	if (!count_responses(ctl, nctl))
		return v_set(r, V_INCONCLUSIVE, "the control packet at ePSN + 1 was not answered either: the drop is not "
			     "proven (the DUT stopped answering, or the capture does not see it)");
	return v_set(r, V_FAIL, "the control packet at ePSN + 1 got neither a NAK PSN sequence error naming 0x%06x nor "
		     "an ACK", epsn);
}

enum conf_verdict rule_silent(const struct resp *rs, size_t n, const struct resp *ctl, size_t nctl,
			      uint32_t epsn, struct conf_result *r)
{
	v_expected(r, "no answer to the stimulus at PSN 0x%06x (silently dropped); then the control packet at ePSN + 1 "
		   "(0x%06x) NAKed with PSN sequence error naming 0x%06x (an ACK covering 0x%06x would show the "
		   "stimulus accepted)", epsn, psn_add(epsn, 1), epsn, psn_add(epsn, 1));
	observed_responses(r, rs, n);
	v_observed_add(r, " | after the control at ePSN + 1: ");
	observed_responses(r, ctl, nctl);
	if (count_responses(rs, n))
		return v_set(r, V_FAIL, "the DUT answered a packet it must drop silently");
	return silent_control(ctl, nctl, epsn, r);
}

enum conf_verdict rule_acks_ordered(const struct resp *rs, size_t n, uint32_t last_psn, long msn, bool alive,
				    struct conf_result *r)
{
	v_expected(r, "ACKs whose PSNs never decrease, the last with PSN 0x%06x%s", last_psn,
		   msn >= 0 ? " and the message's MSN" : "");
	observed_responses(r, rs, n);
	bool have = false, last_ok = false;
	uint32_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rs[i].response)
			continue;
		if (!resp_is_ack(&rs[i]))
			return v_set(r, V_FAIL, "a NAK where only ACKs were expected");
		if (have && psn_diff(rs[i].h.bth.psn, prev) < 0)
			return v_set(r, V_FAIL, "an ACK PSN went backwards (0x%06x after 0x%06x)", rs[i].h.bth.psn, prev);
		prev = rs[i].h.bth.psn;
		have = true;
		last_ok = prev == last_psn && (msn < 0 || rs[i].h.aeth.msn == (uint32_t)msn);
	}
	if (!have)
		return alive ? v_missing(r, "no acknowledgement seen")
			     : v_set(r, V_INCONCLUSIVE, "the DUT sent nothing at all: it stopped answering, or the capture does not see it");
	if (!last_ok && psn_diff(prev, last_psn) < 0)  /* the ACKs seen in order, the last ones not seen */
		return v_missing(r, "no acknowledgement of PSN 0x%06x seen (the last seen: 0x%06x)", last_psn, prev);
	return v_set(r, last_ok ? V_PASS : V_FAIL, NULL);
}

enum conf_verdict rule_retries(const int64_t *tx, size_t n, int64_t watch_ns, double timeout_ms,
			       unsigned retry_cnt, double tol_pct, double need_ms, struct conf_result *r)
{
	double lo = timeout_ms * (1 - tol_pct / 100), hi = 4 * timeout_ms * (1 + tol_pct / 100);
	r->tolerance_pct = tol_pct;
	v_expected(r, "retransmission of the unacknowledged PSN every %.1f..%.1f ms (timeout %.1f ms, up to 4x, "
		   "tolerance %.0f %%; early judged on the mean gap), at most %u retries, then no more packets (QP in error)",
		   lo, hi, timeout_ms, tol_pct, retry_cnt);
	if (n == 0)
		return v_set(r, V_INCONCLUSIVE, "the DUT never sent its request");
	size_t l = 0;
	r->observed[0] = 0;
	for (size_t i = 0; i < n && l + 40 < EVIDENCE_LEN; i++) {
		l = strlen(r->observed);
		if (i == 0)
			snprintf(r->observed, EVIDENCE_LEN, "sent at 0");
		else
			snprintf(r->observed + l, EVIDENCE_LEN - l, ", +%.1f", (double)(tx[i] - tx[0]) / 1e6);
	}
	l = strlen(r->observed);
	snprintf(r->observed + l, EVIDENCE_LEN - l, " ms: %zu retries; watched %.0f ms more", n - 1,
		 (double)watch_ns / 1e6);
	r->measured_ms = n > 1 ? (double)(tx[1] - tx[0]) / 1e6 : -1;
	if (n - 1 > retry_cnt)
		return v_set(r, V_FAIL, "%zu retries with retry count %u: the requester must stop and put the QP in error "
			     "(Linux rxe treats retry count 7 as unlimited)", n - 1, retry_cnt);
	for (size_t i = 1; i < n; i++) {
		/* early: judged on the mean gap so far, so that one late capture time (the next gap then
		 * looks short) is no failure; late: on each gap */
		double gap = (double)(tx[i] - tx[i - 1]) / 1e6, mean = (double)(tx[i] - tx[0]) / 1e6 / (double)i;
		if (mean < lo)
			return v_set(r, V_FAIL, "retry %zu came %.1f ms after the first sending, %.1f ms a retry: before "
				     "the timeout", i, (double)(tx[i] - tx[0]) / 1e6, mean);
		if (gap > hi)
			return v_set(r, V_FAIL, "retry %zu came %.1f ms after the previous, later than 4x the timeout", i, gap);
	}
	if (n - 1 < retry_cnt)
		return v_set(r, V_FAIL, "only %zu retries with retry count %u", n - 1, retry_cnt);
	if ((double)watch_ns / 1e6 < need_ms)
		return v_set(r, V_INCONCLUSIVE, "not watched long enough after the last retry to see the requester stop");
	return v_set(r, V_PASS, NULL);
}

enum conf_verdict rule_rnr_wait(int64_t nak_ns, int64_t retx_ns, double timer_ms, double tol_pct,
				struct conf_result *r)
{
	double lo = timer_ms * (1 - tol_pct / 100);
	r->tolerance_pct = tol_pct;
	v_expected(r, "the retransmission no earlier than the RNR timer %.2f ms after the RNR NAK (tolerance %.0f %%: "
		   ">= %.2f ms)", timer_ms, tol_pct, lo);
	if (retx_ns < 0) {
		v_observed(r, "no retransmission");
		return v_set(r, V_FAIL, "the requester never retried after the RNR NAK (rnr_retry 7 means unlimited)");
	}
	r->measured_ms = (double)(retx_ns - nak_ns) / 1e6;
	v_observed(r, "retransmission %.2f ms after the RNR NAK", r->measured_ms);
	return v_set(r, r->measured_ms >= lo ? V_PASS : V_FAIL, NULL);
}

enum conf_verdict rule_resend_from(const struct resp *rs, size_t n, uint32_t p, struct conf_result *r)
{
	v_expected(r, "go-back-N: the first packet after the NAK carries PSN 0x%06x (earlier PSNs implicitly acknowledged)", p);
	for (size_t i = 0; i < n; i++) {
		if (rs[i].response)
			continue;
		char b[128];
		v_observed(r, "first packet after the NAK: %s", resp_str(&rs[i], b, sizeof(b)));
		if (rs[i].h.bth.psn == p)
			return v_set(r, V_PASS, NULL);
		return v_set(r, V_FAIL, psn_diff(rs[i].h.bth.psn, p) < 0 ? "resent a PSN the NAK acknowledged"
									     : "skipped the NAKed PSN");
	}
	v_observed(r, "no packet after the NAK");
	return v_set(r, V_FAIL, "the requester did not resend after the NAK");
}

enum conf_verdict rule_read_reissue(const struct resp *rs, size_t n, uint32_t first, uint64_t va, uint32_t len,
				    uint32_t missing, unsigned pmtu, double watch_ms, struct conf_result *r)
{
	uint64_t skip = (uint64_t)psn_diff(missing, first) * pmtu;
	unsigned long long rest = len - skip, at = va, from = va;
	at += skip;
	v_expected(r, "the READ (PSN 0x%06x, %u bytes at 0x%llx) re-issued from PSN 0x%06x, the withheld response "
		   "(VA 0x%llx, length %llu), or from an earlier PSN of it with the RETH to match", first, len, from,
		   missing, at, rest);
	for (size_t i = 0; i < n; i++) {
		const struct resp *q = &rs[i];
		if (q->response || q->h.bth.opcode != ROCE_OPC_READ_REQUEST)
			continue;
		char b[128];
		v_observed(r, "re-issued: %s, VA 0x%llx length %u", resp_str(q, b, sizeof(b)),
			   (unsigned long long)q->h.reth.va, q->h.reth.dmalen);
		int32_t d = psn_diff(q->h.bth.psn, first);
		if (d < 0 || psn_diff(q->h.bth.psn, missing) > 0)
			return v_set(r, V_FAIL, d < 0 ? "the re-issued READ starts before the READ's first PSN"
						      : "the re-issued READ skips the withheld response");
		uint64_t off = (uint64_t)d * pmtu;
		if (q->h.reth.va != va + off || (uint64_t)q->h.reth.dmalen + off != len)
			return v_set(r, V_FAIL, "the re-issued READ's VA and length do not match its PSN");
		return v_set(r, V_PASS, NULL);
	}
	v_observed(r, "no READ request in %.0f ms after the responses", watch_ms);
	return v_set(r, V_FAIL, "the DUT did not re-issue the READ");
}

enum conf_verdict rule_no_requests(const struct resp *rs, size_t n, double watch_ms, const char *why,
				   struct conf_result *r)
{
	v_expected(r, "no further request for %.0f ms (%s)", watch_ms, why);
	size_t req = 0;
	for (size_t i = 0; i < n; i++)
		req += !rs[i].response;
	if (!req) {
		v_observed(r, "no request in %.0f ms", watch_ms);
		return v_set(r, V_PASS, NULL);
	}
	v_observed_resps(r, rs, n, 0);
	return v_set(r, V_FAIL, "%zu more requests", req);
}

enum conf_verdict rule_ghost_ack(const struct resp *rs, size_t n, int64_t t_ack, uint32_t ghost, uint32_t first,
				 uint32_t last, struct conf_result *r)
{
	v_expected(r, "the ghost ACK (PSN 0x%06x, the message is 0x%06x..0x%06x) ignored: PSN 0x%06x sent again after it, "
		   "on the timeout", ghost, first, last, first);
	size_t before = 0;
	int64_t t_before = 0;
	for (size_t i = 0; i < n; i++) {
		if (rs[i].response || rs[i].h.bth.psn != first)
			continue;
		if (rs[i].ts_ns > t_ack) {
			v_observed(r, "PSN 0x%06x resent %.1f ms after the ghost ACK", first, (double)(rs[i].ts_ns - t_ack) / 1e6);
			return v_set(r, V_PASS, NULL);
		}
		before++;
		t_before = rs[i].ts_ns;   /* the last one before the ACK */
	}
	v_observed_resps(r, rs, n, t_ack);
	if (before)
		v_observed_add(r, " (times from the ghost ACK; PSN 0x%06x sent %.1f ms before it left: sent before the DUT "
			       "saw it, no resend)", first, (double)(t_ack - t_before) / 1e6);
	return v_set(r, V_FAIL, "the requester stopped resending: it took the ghost ACK as acknowledging its message");
}

enum conf_verdict rule_fatal_nak(const struct resp *rs, size_t n, int64_t t_probe, uint32_t probe_psn,
				 double watch_ms, const char *why, struct conf_result *r)
{
	v_expected(r, "no further request for %.0f ms (%s), and no answer to the in-order request PSN 0x%06x sent after "
		   "the NAK (a QP in the error state drops it)", watch_ms, why, probe_psn);
	size_t req = 0, ans = 0;
	const struct resp *a = NULL;
	for (size_t i = 0; i < n; i++) {
		req += !rs[i].response;
		if (rs[i].response && rs[i].ts_ns >= t_probe && !ans++)
			a = &rs[i];
	}
	if (!req && !ans) {
		v_observed(r, "no request in %.0f ms; the request at 0x%06x not answered", watch_ms, probe_psn);
		return v_set(r, V_PASS, NULL);
	}
	v_observed_resps(r, rs, n, 0);
	if (a) {
		char b[128];
		return v_set(r, V_FAIL, "the QP answered after a fatal NAK (%s to the request at 0x%06x): it is not in the "
			     "error state (the NAK taken as completing the message?)", resp_str(a, b, sizeof(b)), probe_psn);
	}
	return v_set(r, V_FAIL, "%zu more requests", req);
}

static unsigned read_seg(unsigned k, unsigned total)
{
	return total == 1 ? ROCE_SEG_ONLY : k == 0 ? ROCE_SEG_FIRST : k == total - 1 ? ROCE_SEG_LAST : ROCE_SEG_MIDDLE;
}

enum conf_verdict rule_read_response(const struct resp *rs, size_t n, uint32_t psn, unsigned skip, unsigned total,
				     uint32_t len, bool alive, struct conf_result *r)
{
	unsigned n_pkts = total - skip;
	if (skip)
		v_expected(r, "packets %u..%u of the original %u-packet READ response again (PSN 0x%06x..0x%06x, the "
			   "original's opcodes), %u bytes", skip + 1, total, total, psn, psn_add(psn, (int32_t)n_pkts - 1), len);
	else
		v_expected(r, "%u READ response packet%s, PSN 0x%06x..0x%06x, %s, %u bytes", n_pkts, n_pkts == 1 ? "" : "s",
			   psn, psn_add(psn, (int32_t)n_pkts - 1), n_pkts == 1 ? "ONLY" : "FIRST, MIDDLE..., LAST", len);
	observed_responses(r, rs, n);
	/* k: the next packet's place; seen: the packets seen. A PSN ahead of the next one's is a
	 * packet not seen (each one seen right at its place); one behind, or any other, is wrong. */
	unsigned k = 0, seen = 0;
	uint32_t bytes = 0;
	for (size_t i = 0; i < n; i++) {
		const struct resp *x = &rs[i];
		if (!x->response)
			continue;
		const struct roce_opcode_info *op = roce_opcode_info(x->h.bth.opcode);
		if (op->op != ROCE_OP_READ_RESP)
			return v_set(r, V_FAIL, "a %s where READ responses were expected", op->name ? op->name : "reserved opcode");
		int32_t at = psn_diff(x->h.bth.psn, psn);
		if (k >= n_pkts)
			return v_set(r, V_FAIL, "more response packets than the READ asked for");
		if (at < (int32_t)k || at >= (int32_t)n_pkts)
			return v_set(r, V_FAIL, "response %u has PSN 0x%06x", seen + 1, x->h.bth.psn);
		k = (unsigned)at;
		unsigned want = read_seg(skip + k, total);
		if (op->seg != want)
			return v_set(r, V_FAIL, "response %u is a %s", seen + 1, op->name);
		if (x->icrc_status == ROCE_ICRC_BAD)
			return v_set(r, V_FAIL, "response %u has a wrong ICRC", seen + 1);
		bytes += x->payload_len;
		k++;
		seen++;
	}
	if (seen == 0 && !alive)
		return v_set(r, V_INCONCLUSIVE, "the DUT sent nothing at all: it stopped answering, or the capture does not see it");
	if (seen < n_pkts)
		return v_missing(r, "%u of %u response packets", seen, n_pkts);
	if (bytes != len)
		return v_set(r, V_FAIL, "%u bytes returned for a %u-byte READ", bytes, len);
	return v_set(r, V_PASS, NULL);
}

static const struct resp *first_cnp(const struct resp *rs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rs[i].h.bth.opcode == ROCE_OPC_CNP)
			return &rs[i];
	return NULL;
}

/* Append one item to the list in buf, ", " between items. */
static void list_add(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void list_add(char *buf, size_t cap, const char *fmt, ...)
{
	size_t l = strlen(buf);
	if (l && l + 2 < cap)
		memcpy(buf + l, ", ", 3), l += 2;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + l, cap - l, fmt, ap);
	va_end(ap);
}

/* The CNP format of Annex A17.9.3 (Figure 6): what of it c gets wrong, listed into bad ("" when
 * nothing). BECN is not among them: a receiver ignores B and F (CA17-29). */
static void cnp_format(const struct resp *c, uint32_t my_qpn, uint16_t pkey, char *bad, size_t cap)
{
	bad[0] = 0;
	if (c->h.bth.dqpn != my_qpn)
		list_add(bad, cap, "DestQP 0x%06x (the marked packet came from QP 0x%06x)", c->h.bth.dqpn, my_qpn);
	if (c->h.bth.psn != 0)
		list_add(bad, cap, "PSN 0x%06x (0 required)", c->h.bth.psn);
	if (c->h.bth.se)
		list_add(bad, cap, "SE 1 (0 required)");
	if (c->h.bth.m)
		list_add(bad, cap, "M 1 (0 required)");
	if (c->h.bth.pkey != pkey)
		list_add(bad, cap, "P_Key 0x%04x (the marked packet's is 0x%04x)", c->h.bth.pkey, pkey);
	if (c->icrc_status == ROCE_ICRC_BAD)
		list_add(bad, cap, "a wrong ICRC");
}

enum conf_verdict rule_cnp(const struct resp *rs, size_t n, const struct resp *others, size_t nothers,
			   uint32_t my_qpn, uint16_t pkey, bool alive, int64_t t0, struct conf_result *r)
{
	const struct resp *c = first_cnp(rs, n), *o = first_cnp(others, nothers);
	if (!r->expected[0])
		v_expected(r, "a CNP (opcode 0x81) with DestQP 0x%06x, PSN 0, SE 0, M 0, P_Key 0x%04x (the marked packet's) "
			   "and a good ICRC; BECN 1 as the format shows (a receiver ignores it: BECN 0 is noted, not failed)",
			   my_qpn, pkey);
	if (c) {
		char bad[400];
		r->measured_ms = (double)(c->ts_ns - t0) / 1e6;
		cnp_format(c, my_qpn, pkey, bad, sizeof(bad));
		if (bad[0])
			return v_set(r, V_FAIL, "the CNP breaks the format of Annex A17.9.3: %s", bad);
		if (!c->h.bth.becn)
			return v_set(r, V_PASS, "note: the CNP's BECN is 0; the format's example sets it, but a receiver "
				     "ignores B and F (CA17-29)");
		return v_set(r, V_PASS, NULL);
	}
	if (o) {
		v_observed_add(r, "to another QP: CNP DestQP 0x%06x at +%.3f ms", o->h.bth.dqpn,
			       (double)(o->ts_ns - t0) / 1e6);
		return v_set(r, V_FAIL, "no CNP to this test's QP 0x%06x: the DUT sent its CNP to QP 0x%06x", my_qpn,
			     o->h.bth.dqpn);
	}
	if (!alive)
		return v_set(r, V_INCONCLUSIVE, n ? "no CNP" : "no packet from the DUT");
	return v_missing(r, n ? "no CNP" : "no packet from the DUT");
}
