/* testlib.h: steps the catalogue's tests share (testlib.c): send a probe and wait for its
 * acknowledgement, take the DUT's own SEND, judge liveness, and the waiting times. */
#ifndef CONFORM_TESTLIB_H
#define CONFORM_TESTLIB_H

#include "session.h"
#include "verdict.h"

#define WAIT_MS 1500   /* for an answer that should come (TCG DUTs answer in ~10 ms) */
#define QUIET_MS 300   /* silence that shows a packet was dropped */

/* Responses recorded since mark m. */
static inline const struct resp *since(const struct session *s, size_t m) { return s->resps + m; }
static inline size_t n_since(const struct session *s, size_t m) { return s->n_resps - m; }

/* Whether the DUT sent anything since mark m; when not, listen ms more for anything at all. */
bool dut_alive(struct session *s, size_t m, int ms);

/* Send the setup's probe at ePSN and wait for its acknowledgement: true (ePSN and the message
 * count move on) or false. */
bool probe_ok(struct session *s, const char *why);

/* The in-order control packet after a stimulus that must be dropped: the probe at ePSN, then
 * rule_silent over the responses since mark m (stimulus) and since the control. */
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

#endif
