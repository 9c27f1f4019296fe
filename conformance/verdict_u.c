/* verdict_u.c: the verdict rules of group U, the unreliable connected service (declared in
 * verdict.h): a UC responder never acknowledges (no ACK, no NAK), and drops the rest of a message
 * whose PSNs have a gap instead of delivering it; and of group Q, the unreliable datagram service:
 * a UD SEND whose Q_Key is not the QP's is dropped silently, one with it delivered, its payload
 * placed 40 bytes into the receive buffer (the GRH's room, told from the server's echo). Delivery is
 * told from the DUT's server (ibv_uc_pingpong, ibv_ud_pingpong), which sends its own SEND once a
 * receive completes. Pure functions of the
 * DUT's recorded packets, like verdict.c's. */
#include "verdict.h"

#include <string.h>

/* The first acknowledgement-type packet (ACK, NAK, READ response, atomic ACK) among rs[0..n). */
static const struct resp *first_response(const struct resp *rs, size_t n)
{
	if (!rs)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (rs[i].response)
			return &rs[i];
	return NULL;
}

bool has_send_end(const struct resp *rs, size_t n)
{
	if (!rs)
		return false;
	for (size_t i = 0; i < n; i++)
		if (pred_send_end(&rs[i], NULL))
			return true;
	return false;
}

/* A response among rs[0..n): FAIL naming it (UC and UD have no acknowledgements), or -1. */
static int no_response_of(const char *svc, const struct resp *rs, size_t n, struct conf_result *r)
{
	const struct resp *a = first_response(rs, n);
	char buf[128];
	if (!a)
		return -1;
	return v_set(r, V_FAIL, "the DUT answered a %s request with %s: a %s responder never acknowledges", svc,
		     resp_str(a, buf, sizeof(buf)), svc);
}

static int no_response(const struct resp *rs, size_t n, struct conf_result *r)
{
	return no_response_of("UC", rs, n, r);
}

enum conf_verdict rule_uc_unacked(const struct resp *rs, size_t n, struct conf_result *r)
{
	v_expected(r, "no ACK or NAK (UC is unacknowledged, AckReq notwithstanding); the DUT's own SEND (its server "
		   "sends once our message completed a receive)");
	v_observed(r, "after the SEND_ONLY:");
	v_observed_resps(r, rs, n, 0);
	int v = no_response(rs, n, r);
	if (v >= 0)
		return (enum conf_verdict)v;
	if (!has_send_end(rs, n))
		return v_set(r, V_INCONCLUSIVE, "the DUT's SEND did not come: the message's delivery is not shown, so "
			     "silence is no proof of an unacknowledged delivery");
	return v_set(r, V_PASS, NULL);
}

enum conf_verdict rule_uc_gap(const struct resp *rs, size_t n, const struct resp *ctl, size_t nctl,
			      const struct resp *ctl2, size_t nctl2, struct conf_result *r)
{
	v_expected(r, "no ACK or NAK; the message with the PSN gap not delivered (no SEND of the DUT's after it); "
		   "the SEND_ONLY after it, a new message, delivered (the DUT's SEND then comes)");
	v_observed(r, "message with the gap");
	v_observed_resps(r, rs, n, 0);
	v_observed_add(r, "; control SEND_ONLY");
	v_observed_resps(r, ctl, nctl, 0);
	if (ctl2) {
		v_observed_add(r, "; second SEND_ONLY");
		v_observed_resps(r, ctl2, nctl2, 0);
	}
	int v = no_response(rs, n, r);
	if (v < 0)
		v = no_response(ctl, nctl, r);
	if (v < 0)
		v = no_response(ctl2, nctl2, r);
	if (v >= 0)
		return (enum conf_verdict)v;
	if (has_send_end(rs, n))
		return v_set(r, V_FAIL, "the DUT's server sent its SEND after the message with the PSN gap: it completed "
			     "a receive with a message missing a packet");
	if (has_send_end(ctl, nctl))
		return v_set(r, V_PASS, NULL);
	if (has_send_end(ctl2, nctl2))
		return v_set(r, V_FAIL, "the SEND_ONLY right after the message with the gap was dropped too, the next one "
			     "delivered: the gap cost a whole valid message besides the rest of the broken one");
	return v_set(r, V_INCONCLUSIVE, "no SEND_ONLY after the message with the gap brought the DUT's SEND: whether "
		     "that message was dropped cannot be told from a DUT that delivers nothing");
}

enum conf_verdict rule_ud_qkey_drop(const struct resp *rs, size_t n, const struct resp *ctl, size_t nctl,
				    struct conf_result *r)
{
	v_expected(r, "no response, no SEND of the DUT's after the SEND_ONLY with the wrong Q_Key (dropped); the DUT's "
		   "SEND after the control SEND_ONLY with the QP's Q_Key (delivered)");
	v_observed(r, "wrong Q_Key");
	v_observed_resps(r, rs, n, 0);
	v_observed_add(r, "; control with the QP's Q_Key");
	v_observed_resps(r, ctl, nctl, 0);
	int v = no_response_of("UD", rs, n, r);
	if (v < 0)
		v = no_response_of("UD", ctl, nctl, r);
	if (v >= 0)
		return (enum conf_verdict)v;
	if (has_send_end(rs, n))
		return v_set(r, V_FAIL, "the DUT's server sent its SEND after the SEND_ONLY with the wrong Q_Key: it "
			     "delivered a datagram whose Q_Key is not its QP's");
	if (has_send_end(ctl, nctl))
		return v_set(r, V_PASS, NULL);
	return v_set(r, V_INCONCLUSIVE, "the control with the QP's Q_Key brought no SEND of the DUT's either: the "
		     "drop cannot be told from a DUT that delivers nothing");
}

enum conf_verdict rule_ud_qkey_ok(const struct resp *rs, size_t n, struct conf_result *r)
{
	v_expected(r, "no response (UD is unacknowledged); the DUT's own SEND (its server sends once our datagram "
		   "completed a receive)");
	v_observed(r, "after the SEND_ONLY:");
	v_observed_resps(r, rs, n, 0);
	int v = no_response_of("UD", rs, n, r);
	if (v >= 0)
		return (enum conf_verdict)v;
	if (!has_send_end(rs, n))
		return v_missing(r, "no SEND of the DUT's seen: the datagram with the QP's Q_Key was not delivered");
	return v_set(r, V_PASS, NULL);
}

/* The shift k (0 < k < len) at which echo starts with sent[k..len) (k > 0: the payload landed k
 * bytes before byte 40), or the negative shift at which echo holds sent whole further in; 0: none. */
static long payload_shift(const uint8_t *sent, uint32_t len, const uint8_t *echo, uint32_t echo_len)
{
	for (uint32_t k = 1; k + 8 <= len; k++)   /* at least 8 bytes to call it a match */
		if (!memcmp(echo, sent + k, len - k))
			return k;
	for (uint32_t k = 1; k + len <= echo_len; k++)
		if (!memcmp(echo + k, sent, len))
			return -(long)k;
	return 0;
}

enum conf_verdict rule_ud_grh_room(const struct resp *rs, size_t n, const uint8_t *sent, uint32_t len,
				   const uint8_t *echo, uint32_t echo_len, struct conf_result *r)
{
	v_expected(r, "no response; the DUT's SEND (ibv_ud_pingpong sends its receive buffer from byte 40 on) starting "
		   "with our %u payload bytes: the datagram's payload placed right after the 40 bytes of GRH room "
		   "(what the 40 bytes hold is not sent by any stock server: Q4)", len);
	v_observed(r, "after the SEND_ONLY:");
	v_observed_resps(r, rs, n, 0);
	if (echo)
		v_observed_add(r, "; the DUT's SEND carries %u bytes, %s", echo_len,
			       echo_len >= len && !memcmp(echo, sent, len) ? "ours first" : "not ours first");
	int v = no_response_of("UD", rs, n, r);
	if (v >= 0)
		return (enum conf_verdict)v;
	if (!echo)
		return v_set(r, V_INCONCLUSIVE, "the DUT's SEND did not come: where the payload landed is not shown");
	if (echo_len < len)
		return v_set(r, V_INCONCLUSIVE, "the DUT's SEND carries %u bytes, fewer than our %u (its server's -s): "
			     "the placement cannot be compared", echo_len, len);
	if (!memcmp(echo, sent, len))
		return v_set(r, V_PASS, NULL);
	long k = payload_shift(sent, len, echo, echo_len);
	if (k > 0)
		return v_set(r, V_FAIL, "the DUT's SEND starts with our payload from its byte %ld: the payload landed %ld "
			     "bytes into the receive buffer, not 40 (a GRH room of %ld bytes)", k, 40 - k, 40 - k);
	if (k < 0)
		return v_set(r, V_FAIL, "the DUT's SEND holds our payload %ld bytes in: it landed %ld bytes into the "
			     "receive buffer, not 40", -k, 40 - k);
	return v_set(r, V_FAIL, "the DUT's SEND does not carry our payload at any offset: the datagram was not placed "
		     "after the 40 bytes of GRH room");
}
