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
/* A FAIL that rests only on answers not seen, every answer seen being right (r->missing; the
 * reason says which were not seen): the run asks again before it is taken (main.c). */
enum conf_verdict v_missing(struct conf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append the list of the responses rs[0..n) to observed (times from t0). */
void v_observed_resps(struct conf_result *r, const struct resp *rs, size_t n, int64_t t0);

/* How many of rs[0..n) are responses (not the DUT's requests). */
size_t count_responses(const struct resp *rs, size_t n);
/* Append the responses (not the requests) among rs[0..n) to observed. */
void observed_responses(struct conf_result *r, const struct resp *rs, size_t n);

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
/* E7, a READ response withheld (§9.7.6.1.2: the requester re-issues the READ for the
 * responses it lacks): after the responses to the DUT's READ at PSN first (len bytes at va, at
 * path MTU pmtu) went out without the one at PSN missing, the first READ request in rs[0..n)
 * starts at a PSN from first to missing, its RETH moved on by the bytes before that PSN. None
 * (watched watch_ms) is FAIL. */
enum conf_verdict rule_read_reissue(const struct resp *rs, size_t n, uint32_t first, uint64_t va, uint32_t len,
				    uint32_t missing, unsigned pmtu, double watch_ms, struct conf_result *r);
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

/* ---- the rules of verdict_h.c: the DUT's own headers, CMP_SWAP, PMTU segmentation, CNP counts ---- */

/* One DUT packet's IP and UDP header fields. */
struct dut_hdr {
	uint16_t sport, dport, udp_csum;
	uint8_t ip_version;         /* 4 or 6 */
	uint8_t ecn;
	bool df;                    /* IPv4 Don't Fragment */
};
/* The fields of frame (caplen bytes) when it is a RoCEv2 packet from dut to the tester's QP qpn, to
 * any UDP destination port (one other than 4791 is decoded as RoCEv2 too, so it can be judged):
 * true and h filled. */
bool dut_hdr_of(const uint8_t *frame, uint32_t caplen, const struct conf_addr *dut, uint32_t qpn, struct dut_hdr *h);
/* The fields of the DUT's packets to the tester's QP among the session's frames from frame m on:
 * how many (at most max). */
size_t dut_hdrs_since(const struct session *s, size_t m, struct dut_hdr *hs, size_t max);

enum hdr_field { HDR_ECN, HDR_DF, HDR_UDP_CSUM, HDR_DPORT, HDR_SPORT };
/* One header field of every DUT packet hs[0..n) (Annex A17.3 RoCEv2 packet format): HDR_ECN Not-ECT
 * (00, CA17-5 / CA17-14) unless the DUT is declared to do RoCE congestion management (ecn_declared: then anything but
 * CE, which only a congested switch sets); HDR_DF the IPv4 Don't Fragment bit set (CA17-7; IPv6 has
 * none: N/A); HDR_UDP_CSUM 0 (A17.3.2.4); HDR_DPORT 4791 (CA17-20); HDR_SPORT one source port for all
 * of the QP's packets (A17.3.2.1; at least two needed; other QPs' ports: rule_sport_spread). No
 * packet at all is INCONCLUSIVE. */
enum conf_verdict rule_dut_headers(const struct dut_hdr *hs, size_t n, enum hdr_field f, bool ecn_declared,
				   struct conf_result *r);

/* A DUT QP seen in a run: its QPN, the UDP source port of its first packet to the tester, the test. */
struct qp_port {
	uint32_t dut_qpn;
	uint16_t sport;
	const char *test;
};
/* The source port spread per QP (A17.9.4 ECMP, A17.3.2.1: the port is the flow identifier, constant
 * within a QP; packets without ordering constraints, those of different QPs, can carry different
 * ones): over qs[0..n), the QPs of a run, at least two different DUT QPNs needed (else
 * INCONCLUSIVE); every QP on one port is FAIL (no entropy for ECMP); how many ports for how many
 * QPs is a note (two QPs may share a port by hashing). */
enum conf_verdict rule_sport_spread(const struct qp_port *qs, size_t n, struct conf_result *r);

/* PFC (IEEE 802.1Qbb) on priority prio: during[0..nd) the DUT's packets while the PAUSE was
 * refreshed for w_ms, after[0..na) those after XON. A packet during the PAUSE is FAIL (the reason
 * says that a switch or bridge on the path would keep the PAUSE from the DUT); nothing after XON
 * either is INCONCLUSIVE (the pause's effect is not proven). */
enum conf_verdict rule_pfc(const struct resp *during, size_t nd, const struct resp *after, size_t na, unsigned prio,
			   double w_ms, struct conf_result *r);

/* CMP_SWAP (IBTA 9.4.5, C9-148's atomic semantics): psn[0] a FETCH_ADD of 0 that reads the value v,
 * psn[1] the CMP_SWAP (compare cmp, swap swap), psn[2] a FETCH_ADD of 0 that reads it back. Each
 * answered by an ATOMIC_ACK in rs[0..n); the CMP_SWAP's original value v; the value read back
 * swap when v == cmp, v otherwise. */
enum conf_verdict rule_cmp_swap(const struct resp *rs, size_t n, const uint32_t psn[3], uint64_t cmp, uint64_t swap,
				bool alive, struct conf_result *r);
/* A duplicate atomic (C9-148): the ATOMIC_ACKs to the request at psn and to its duplicate carry the
 * same original value (a second execution returns what the first left). */
enum conf_verdict rule_dup_atomic(const struct resp *rs, size_t n, uint32_t psn, bool alive, struct conf_result *r);
/* A READ of total x pmtu bytes at a QP brought up with PMTU pmtu: rule_read_response, and every
 * packet carries exactly pmtu bytes (the DUT segments at the PMTU the QP was brought up with). */
enum conf_verdict rule_read_segments(const struct resp *rs, size_t n, uint32_t psn, unsigned total, unsigned pmtu,
				     bool alive, struct conf_result *r);
/* CNP coalescing (A17.9.3, CA17-44 allows one CNP for several marked packets and sets no pace):
 * rule_cnp on the first CNP, then at least one and at most marks CNPs to the tester's QP; how many
 * and how far apart is a note (no interval is declared). */
enum conf_verdict rule_cnp_marks(const struct resp *rs, size_t n, const struct resp *others, size_t nothers,
				 unsigned marks, uint32_t my_qpn, uint16_t pkey, bool alive, int64_t t0,
				 struct conf_result *r);

/* ---- the rules of verdict_u.c: the unreliable connected service (group U) ---- */

/* Whether rs[0..n) holds the end (LAST or ONLY packet) of a SEND of the DUT's own. */
bool has_send_end(const struct resp *rs, size_t n);
/* A UC SEND with AckReq (IBTA 9.8: UC is unacknowledged): no response (ACK, NAK) among rs[0..n),
 * the DUT's packets after it, and the DUT's own SEND among them (its server sends once a receive
 * completed: the message was delivered; without it, INCONCLUSIVE). */
enum conf_verdict rule_uc_unacked(const struct resp *rs, size_t n, struct conf_result *r);
/* A UC SEND with a PSN gap inside (FIRST, no MIDDLE, LAST), then a control SEND_ONLY, and when
 * that brought nothing a second one: no response in rs[0..n) (after the broken message),
 * ctl[0..nctl) (after the control) or ctl2[0..nctl2) (after the second; NULL when not sent); no
 * DUT SEND in rs (one there shows the broken message delivered: FAIL); the DUT's SEND in ctl (the
 * new message delivered: PASS); only in ctl2, the new message was dropped too (FAIL); in neither,
 * the drop cannot be told (INCONCLUSIVE). */
enum conf_verdict rule_uc_gap(const struct resp *rs, size_t n, const struct resp *ctl, size_t nctl,
			      const struct resp *ctl2, size_t nctl2, struct conf_result *r);

/* ---- group Q, the unreliable datagram service's Q_Key check (verdict_u.c) ---- */

/* A UD SEND_ONLY with a Q_Key other than the QP's (IBTA 10.2.5, 9.6.1.1), the DUT's packets after it
 * in rs, after the control with the QP's Q_Key in ctl (none sent when rs shows a delivery): any
 * response FAILs; the DUT's SEND in rs (the datagram delivered) FAILs; in ctl PASSes; in neither,
 * INCONCLUSIVE. */
enum conf_verdict rule_ud_qkey_drop(const struct resp *rs, size_t n, const struct resp *ctl, size_t nctl,
				    struct conf_result *r);
/* A UD SEND_ONLY with the QP's Q_Key: no response among rs[0..n) and the DUT's own SEND (the
 * datagram delivered) PASSes; no SEND FAILs. */
enum conf_verdict rule_ud_qkey_ok(const struct resp *rs, size_t n, struct conf_result *r);
/* A UD SEND_ONLY of len bytes sent[0..len) to ibv_ud_pingpong, whose receive buffer is also its send
 * buffer and whose SEND carries that buffer from byte 40 on (IBTA A17.4.5.2: the first 40 bytes of a
 * UD receive hold the GRH's room); echo[0..echo_len) the payload of the DUT's SEND after it (NULL:
 * none came). Our payload at the echo's start (it landed at byte 40) PASSes; a response, or our
 * payload shifted (the DUT left another room than 40 bytes) or missing FAILs; no or a short echo
 * is INCONCLUSIVE. */
enum conf_verdict rule_ud_grh_room(const struct resp *rs, size_t n, const uint8_t *sent, uint32_t len,
				   const uint8_t *echo, uint32_t echo_len, struct conf_result *r);

/* F4, the reaction point: the DUT's packet times before[0..nb) and after[0..na) the CNPs (each
 * window's rate: its packets less one over its first-to-last span); the rate after more than
 * drop_pct % below the rate before PASSes, else FAILs; a window of fewer than two packets or no
 * span is INCONCLUSIVE. */
enum conf_verdict rule_rate_drop(const int64_t *before, size_t nb, const int64_t *after, size_t na, double drop_pct,
				 struct conf_result *r);

/* ---- group I, one QP's errors kept from another (verdict_i.c) ---- */

/* QP a's packets after its errors in a[0..na) (evidence only), QP b's after its in-order SEND at
 * psn in b[0..nb): an ACK of psn (or past it) with no NAK and no request of the DUT's sent twice on
 * b PASSes; a NAK on b, a resent request or no ACK from a DUT that answered QP a FAILs; nothing on
 * either QP is INCONCLUSIVE. */
enum conf_verdict rule_qp_isolation(const struct resp *a, size_t na, const struct resp *b, size_t nb, uint32_t psn,
				    struct conf_result *r);

#endif
