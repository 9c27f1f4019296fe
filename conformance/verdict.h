/* verdict.h: the verdict rules (verdict.c), pure functions of the DUT's recorded packets, so that
 * every rule is unit-tested on recorded responses (tests/unit/test_conform_verdict.c). Each fills
 * the result's expected/observed evidence and returns the verdict. "alive" says whether the DUT
 * showed life otherwise during the test (it sent something else, or a later in-order probe was
 * answered): silence from a DUT that is not alive, or a capture that sees nothing, is
 * INCONCLUSIVE, never a FAIL. */
#ifndef CONFORM_VERDICT_H
#define CONFORM_VERDICT_H

#include "conform.h"
#include "session.h"

void v_expected(struct conf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void v_observed(struct conf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void v_reason(struct conf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append to observed. */
void v_observed_add(struct conf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Set the verdict (and the reason, for INCONCLUSIVE and N/A). */
enum conf_verdict v_set(struct conf_result *r, enum conf_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append the list of the responses rs[0..n) to observed (times from t0). */
void v_observed_resps(struct conf_result *r, const struct resp *rs, size_t n, int64_t t0);

/* The AETH kind bits of a response: ACK, NAK code, RNR NAK. */
bool resp_is_ack(const struct resp *r);
bool resp_is_nak(const struct resp *r, int code);   /* code -1: any NAK code */
bool resp_is_rnr(const struct resp *r);

/* A positive acknowledgement (ACK, or the READ response / atomic ACK of a probe) with PSN psn
 * (or psn_alt), MSN msn (msn < 0: any), and no NAK among rs. */
enum conf_verdict rule_ack(const struct resp *rs, size_t n, uint32_t psn, uint32_t psn_alt, long msn, bool alive,
			   struct conf_result *r);
/* Exactly one NAK, its code one of codes (bit mask of 1 << ROCE_NAK_*), PSN psn (or, when
 * psn_hi != psn, any PSN in [psn, psn_hi]), no ACK beyond what ack_ok allows (the last PSN an
 * ACK may carry, -1 none). */
enum conf_verdict rule_nak(const struct resp *rs, size_t n, unsigned codes, uint32_t psn, uint32_t psn_hi,
			   long ack_ok, bool alive, struct conf_result *r);
/* Silent drop (IBTA 9.6, Annex A17 CA17-24): no response in rs[0..n) to the stimulus sent at ePSN
 * epsn, and the control packet sent after it at epsn + 1 answered in ctl[0..nctl) by a NAK PSN
 * sequence error naming epsn: the DUT still expects the stimulus's PSN, so it dropped it (PASS). An
 * ACK at or past epsn shows the stimulus accepted (the control was in sequence: FAIL); a NAK-Seq
 * naming another PSN, an ePSN moved (FAIL); no answer at all, INCONCLUSIVE. The reason says which.
 * (A control at epsn itself proves nothing: a DUT that took the stimulus without acknowledging it
 * re-ACKs the control as a duplicate.) */
enum conf_verdict rule_silent(const struct resp *rs, size_t n, const struct resp *ctl, size_t nctl,
			      uint32_t epsn, struct conf_result *r);
/* Acknowledgement PSNs never decrease and the last one is last_psn. */
enum conf_verdict rule_acks_ordered(const struct resp *rs, size_t n, uint32_t last_psn, long msn, bool alive,
				    struct conf_result *r);

/* The requester's retransmissions on a missing ACK (IBTA §9.7.6.1.1 local ACK timeout, C9-141
 * retry count): tx[0..n) are the times the first unacknowledged PSN was sent (tx[0] the first),
 * watched for watch_ns after the last. More than retry_cnt retries is a FAIL (the QP must go to
 * the error state); the mean gap must be at least T·(1-tol) and each gap at most 4T·(1+tol), T the
 * timeout (one late capture time makes the next gap short: the mean absorbs it); the silence
 * after the last retry must have been watched for need_ms to call it stopped. */
enum conf_verdict rule_retries(const int64_t *tx, size_t n, int64_t watch_ns, double timeout_ms,
			       unsigned retry_cnt, double tol_pct, double need_ms, struct conf_result *r);
/* RNR NAK back-off (§9.7.5.2.8): the retransmission at retx_ns (-1: none) no earlier than the
 * timer after the NAK sent at nak_ns. */
enum conf_verdict rule_rnr_wait(int64_t nak_ns, int64_t retx_ns, double timer_ms, double tol_pct,
				struct conf_result *r);
/* Go-back-N after a NAK-Seq at p (§9.7.5.2.5): the first request in rs[0..n) (after the NAK)
 * carries PSN p. */
enum conf_verdict rule_resend_from(const struct resp *rs, size_t n, uint32_t p, struct conf_result *r);
/* No request in rs[0..n) (watched for watch_ms): the requester stopped (QP in error, or the
 * message completed). */
enum conf_verdict rule_no_requests(const struct resp *rs, size_t n, double watch_ms, const char *why,
				   struct conf_result *r);

/* Ghost ACK (§9.7.6.1.3): the ACK with PSN ghost, beyond the outstanding message first..last, sent
 * at t_ack, is ignored: PSN first is sent again after it. Only a request in rs[0..n) captured
 * after t_ack counts: one captured before the ACK left was sent before the DUT saw it, in whatever
 * order the capture delivered it. */
enum conf_verdict rule_ghost_ack(const struct resp *rs, size_t n, int64_t t_ack, uint32_t ghost, uint32_t first,
				 uint32_t last, struct conf_result *r);
/* A fatal NAK (class B: invalid request, remote access, remote operational) puts the requester's
 * QP in the error state: no request in rs[0..n) (the DUT's packets after the NAK, watched for
 * watch_ms), and no response to the in-order request at probe_psn sent at t_probe. A QP in error
 * drops that request; one that answers it (ACK, NAK) is still alive: it took the NAK for something
 * else, such as completing the message, which "no further request" alone cannot tell apart. */
enum conf_verdict rule_fatal_nak(const struct resp *rs, size_t n, int64_t t_probe, uint32_t probe_psn,
				 double watch_ms, const char *why, struct conf_result *r);

/* ECN -> CNP (Annex A17.9.3, CA17-44): a CNP among rs[0..n), the DUT's packets to the tester's QP
 * my_qpn, in the format of Figure 6: DestQP my_qpn (the marked packet's source QP), PSN 0, SE 0,
 * M 0, P_Key pkey (the marked packet's), a good ICRC; any of these wrong is a FAIL naming it. A
 * BECN of 0 is a note in the reason, not a FAIL: the format's example sets it, but receivers
 * ignore B and F (CA17-29). Its time from t0 is measured. A CNP among others[0..nothers), the
 * DUT's packets to other QPs, is named in the failure: the CNP went to QP x, not "no CNP". */
enum conf_verdict rule_cnp(const struct resp *rs, size_t n, const struct resp *others, size_t nothers,
			   uint32_t my_qpn, uint16_t pkey, bool alive, int64_t t0, struct conf_result *r);

/* A READ's responses (§9.7.5.1.4 / C9-148): the packets skip..total-1 of a total-packet READ
 * response (READ_RESPONSE_FIRST, MIDDLE..., LAST; ONLY for one packet), PSNs from psn, len bytes
 * in all. skip > 0 for a duplicate READ that resumes mid-message: an exact subset of the
 * original, with the original's opcodes. */
enum conf_verdict rule_read_response(const struct resp *rs, size_t n, uint32_t psn, unsigned skip, unsigned total,
				     uint32_t len, bool alive, struct conf_result *r);

#endif
