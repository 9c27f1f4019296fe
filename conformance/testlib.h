/* testlib.h: steps the catalogue's tests share (testlib.c): send a probe and wait for its
 * acknowledgement, take the DUT's own SEND, judge liveness, and the waiting times. */
#ifndef CONFORM_TESTLIB_H
#define CONFORM_TESTLIB_H

#include "session.h"
#include "verdict.h"

#define WAIT_MS 1500   /* for an answer that should come (TCG DUTs answer in ~10 ms) */
#define QUIET_MS 300   /* silence that shows a packet was dropped */

/* Responses recorded since mark m (NULL while none was: no offset added to a null pointer). */
static inline const struct resp *since(const struct session *s, size_t m) { return s->resps ? s->resps + m : NULL; }
static inline size_t n_since(const struct session *s, size_t m) { return s->n_resps - m; }

/* Whether the DUT sent anything since mark m; when not, listen ms more for anything at all. */
bool dut_alive(struct session *s, size_t m, int ms);

/* Send the setup's probe at ePSN and wait for its acknowledgement: true (ePSN and the message
 * count move on) or false (s->probe_unanswered: no response at all came). */
bool probe_ok(struct session *s, const char *why);

/* After probe_ok's false: FAIL with the reason, one resting on an answer not seen (v_missing) when
 * no response came at all. */
void probe_failed(struct session *s, struct conf_result *r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The DUT accepted k more messages, the last one ending at PSN last: ePSN moves past it. */
static inline void accepted(struct session *s, uint32_t last, uint32_t k)
{
	s->epsn = psn_add(last, 1);
	s->accepted += k;
}

/* The same when r passed. */
static inline void accepted_if_pass(struct session *s, const struct conf_result *r, uint32_t last, uint32_t k)
{
	if (r->v == V_PASS)
		accepted(s, last, k);
}

/* After a stimulus sent since mark m that must be acknowledged: wait for the acknowledgement of
 * PSN psn (for any response when psn_alt differs), listen 50 ms more, and judge with rule_ack
 * (PSN psn or psn_alt, MSN msn; silence from a DUT that shows no life is INCONCLUSIVE). */
void judge_ack(struct session *s, size_t m, uint32_t psn, uint32_t psn_alt, long msn, struct conf_result *r);

/* The same for several packets: rule_acks_ordered, the last acknowledgement for PSN last. */
void judge_acks_ordered(struct session *s, size_t m, uint32_t last, long msn, struct conf_result *r);

/* After an out-of-sequence stimulus sent since mark m: wait for a response, listen quiet_ms more,
 * and judge with rule_nak: one NAK PSN sequence error carrying ePSN e, no ACK past e - 1. */
void judge_nak_seq(struct session *s, size_t m, uint32_t e, int quiet_ms, struct conf_result *r);

/* The control packet after a stimulus at ePSN that must be dropped: the probe at ePSN + 1, then
 * rule_silent over the responses since mark m (stimulus) and since the control (a NAK PSN sequence
 * error naming ePSN proves the drop); after a drop, the probe at ePSN resumes the sequence. */
void judge_silent(struct session *s, size_t m, struct conf_result *r);

/* Wait for the DUT's own SEND (its LAST or ONLY packet): its first and last PSN. false when it
 * did not come (the result is then INCONCLUSIVE with the reason). */
bool dut_message(struct session *s, uint32_t *first, uint32_t *last, struct conf_result *r);

/* The times the DUT sent PSN psn as a request, from mark m. */
size_t request_times(const struct session *s, size_t m, uint32_t psn, int64_t *t, size_t max);

/* Mark the QP as put in error on purpose (the setup's finish step then leaves it). */
static inline void qp_killed(struct session *s) { s->qp_dead = true; }

/* The precondition failed: INCONCLUSIVE with the reason. */
void precondition(struct session *s, struct conf_result *r, const char *what);

/* A stimulus of n packets (sts[0..n)) that must be NAKed: send them, wait, judge with rule_nak
 * (a NAK with a code in codes and a PSN among the packets'). */
void expect_nak(struct session *s, const struct stim *sts, unsigned n, unsigned codes, const char *what,
		struct conf_result *r);

/* The path MTU the QP came up with. */
static inline unsigned qp_pmtu(const struct session *s) { return s->qp.pmtu ? s->qp.pmtu : s->o->pmtu; }

/* Send a READ_REQUEST of len bytes at psn; wait for its last response packet (at the QP's PMTU)
 * and 50 ms more. Returns the mark of the responses before it. */
size_t read_req(struct session *s, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len, const char *what);

#endif
