/* tests_fg.c: catalogue groups F (ECN -> CNP: IBTA Annex A17.9 RoCEv2 congestion management,
 * the CNP of A17.9.3: opcode 0x81, DestQP = the QP that sent the CE-marked packet, PSN 0, SE 0,
 * M 0, its P_Key; BECN 1 in the format's example, ignored by receivers, CA17-29) and G
 * (IEEE 802.1Qbb priority flow control: a PAUSE for priority p stops the DUT's frames of that
 * priority for quanta x 512 bit times; it needs a direct link to the DUT: a switch consumes PFC frames
 * and a Linux bridge does not forward 01:80:c2:00:00:01). Run only when the DUT is declared to do
 * them (--ecn, --pfc PRIO); otherwise N/A. F4, the reaction point (--dut-cc): CNPs sent to the DUT's
 * QP amid a long SEND of its own must lower its rate (the windows' packet rates compared). */
#include "tests.h"
#include "textnum.h"

#include <stdlib.h>

static bool pred_cnp(const struct resp *r, const void *arg)
{
	(void)arg;
	return r->h.bth.opcode == ROCE_OPC_CNP;
}

/* Send the setup's probe marked ecn; its P_Key is returned (the CNP must carry it). */
static uint16_t ecn_probe(struct session *s, uint8_t ecn, const char *what)
{
	struct stim st;
	stim_probe(s, &st, s->epsn);
	st.ecn = ecn;
	sess_send(s, &st, "%s psn 0x%06x, IP ECN %u", what, st.psn, ecn);
	return st.pkey;
}

/* F1: a CE-marked request -> a CNP to the tester's QP. */
void test_f1(struct session *s, struct conf_result *r)
{
	size_t m = s->n_resps, mo = s->n_others;
	int64_t t0 = now_ns();
	uint16_t pkey = ecn_probe(s, 3, "F1: request marked CE");
	long i = sess_wait(s, WAIT_MS, pred_cnp, NULL);
	sess_collect(s, 50);
	v_observed_resps(r, since(s, m), n_since(s, m), t0);
	bool alive = i >= 0 || s->n_others > mo || dut_alive(s, m, 200);
	const struct resp *others = s->others ? s->others + mo : NULL;   /* (CNPs to another QP) */
	rule_cnp(since(s, m), n_since(s, m), others, s->n_others - mo, s->qp.my_qpn, pkey, alive, t0, r);
	if (i < 0)
		return;
	s->epsn = psn_add(s->epsn, 1);
	s->accepted++;
}

/* F2: a burst of CE-marked requests -> at least one CNP, no more CNPs than marks; how many, and
 * how far apart, is a note: CA17-44 lets one CNP answer several marks and the DUT declares no
 * interval. */
void test_f2(struct session *s, struct conf_result *r)
{
	enum { MARKS = 8 };
	size_t m = s->n_resps, mo = s->n_others;
	int64_t t0 = now_ns();
	uint16_t pkey = 0;
	uint32_t last = s->epsn;
	for (unsigned i = 0; i < MARKS; i++) {
		last = s->epsn;
		pkey = ecn_probe(s, 3, "F2: request marked CE");
		s->epsn = psn_add(s->epsn, 1);
	}
	sess_wait(s, WAIT_MS, pred_psn, &last);
	sess_collect(s, 200);
	v_observed_resps(r, since(s, m), n_since(s, m), t0);
	bool alive = s->n_others > mo || dut_alive(s, m, 200);
	const struct resp *others = s->others ? s->others + mo : NULL;
	rule_cnp_marks(since(s, m), n_since(s, m), others, s->n_others - mo, MARKS, s->qp.my_qpn, pkey, alive, t0, r);
	sess_sync(s);
}

/* F3: an ECT(0) request (not CE) -> no CNP. */
void test_f3(struct session *s, struct conf_result *r)
{
	size_t m = s->n_resps;
	ecn_probe(s, 2, "F3: request marked ECT(0)");
	long i = sess_wait(s, 500, pred_cnp, NULL);
	v_expected(r, "no CNP for a packet that is not CE-marked");
	v_observed_resps(r, since(s, m), n_since(s, m), 0);
	v_set(r, i >= 0 ? V_FAIL : dut_alive(s, m, 500) ? V_PASS : V_INCONCLUSIVE,
	      i >= 0 ? "a CNP for an ECT(0) packet" : NULL);
	s->epsn = psn_add(s->epsn, 1);
	s->accepted++;
}

/* An 802.1Qbb PFC frame for priority prio (quanta; 0 = XON). */
static int pfc_frame(const uint8_t src[6], unsigned prio, uint16_t quanta, uint8_t f[64])
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
	memset(f, 0, 64);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = 0x01;
	f[15] = 0x01;
	f[17] = (uint8_t)(1u << prio);
	f[18 + 2 * prio] = (uint8_t)(quanta >> 8);
	f[19 + 2 * prio] = (uint8_t)quanta;
	return 60;
}

/* The interface's speed in Mb/s from sysfs, 0 when unknown. */
static unsigned link_speed(const char *iface)
{
	char path[128];
	unsigned long v;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", iface ? iface : "");
	return read_number_file(path, &v) && v <= UINT32_MAX ? (unsigned)v : 0;
}

double pfc_refresh_us(unsigned speed_mbps)
{
	return speed_mbps ? 65535.0 * 512 / speed_mbps / 2 : 0;   /* half a full PAUSE: quanta x 512 bit times */
}

/* G1: while the DUT resends its unacknowledged SEND (on priority p), a PFC XOFF for p refreshed
 * for four timeouts stops it; XON lets it go on. The refreshes leave every half PAUSE, a rate the
 * link speed sets (335 us at 100 Gb/s), outside the --pps pacing: they are link-level frames the
 * DUT's port consumes, never RoCE packets for its stack. */
void test_g1(struct session *s, struct conf_result *r)
{
	unsigned speed = link_speed(s->o->iface), p = s->o->pfc_prio;
	double refresh_us = pfc_refresh_us(speed);
	if (!speed) {
		v_set(r, V_NA, "the interface's speed is unknown: the pause time cannot be computed");
		return;
	}
	uint32_t first, last;
	if (!dut_message(s, &first, &last, r))
		return;
	uint8_t f[64], mac[6];
	memcpy(mac, s->link ? s->link->mac : s->o->local_mac, 6);
	int n = pfc_frame(mac, p, 0xffff, f);
	double w = 4 * s->qp.dut_ack_timeout_ms * (1 + s->o->tolerance_pct / 100.0);
	int64_t end = now_ns() + (int64_t)(w * 1e6);
	if (end > s->deadline_ns)
		end = s->deadline_ns;   /* (never refreshing past the test's time limit) */
	size_t m = s->n_resps;
	char note[96];
	snprintf(note, sizeof(note), "G1: PFC XOFF priority %u, 0xffff quanta (refreshed every %.0f us)", p, refresh_us);
	while (now_ns() < end) {
		if (sess_send_ctl(s, f, (uint32_t)n, note) < 0 || !s->link)
			break;
		sess_collect_until(s, now_ns() + (int64_t)(refresh_us * 1000));
	}
	size_t during = n_since(s, m);
	n = pfc_frame(mac, p, 0, f);
	sess_send_ctl(s, f, (uint32_t)n, "G1: PFC XON");
	size_t m2 = s->n_resps;
	sess_wait(s, (int)w, pred_request, NULL);
	rule_pfc(since(s, m), during, since(s, m2), n_since(s, m2), p, w, r);
}

#define RP_WINDOW 32      /* the DUT's packets per rate window */
#define RP_CNPS 8         /* CNPs sent between the two windows */
#define RP_DROP_PCT 20.0  /* how far the rate must fall */
#define RP_ACK_EVERY 16   /* the DUT's packets acknowledged in batches: its window never closes */

/* The times of the next n new request packets of the DUT captured after time from (a PSN past the
 * last one: resends left out) into t, acknowledging them in batches. The count taken. */
static size_t rp_window(struct session *s, int64_t from, int64_t *t, size_t n, uint32_t *last, bool *have)
{
	size_t k = 0;
	while (k < n) {
		long i = sess_wait(s, WAIT_MS, pred_request, NULL);
		if (i < 0)
			break;
		const struct resp *x = &s->resps[i];
		if (*have && psn_diff(x->h.bth.psn, *last) <= 0)
			continue;
		*last = x->h.bth.psn;
		*have = true;
		if (x->ts_ns > from)   /* (sent before the CNPs left: not the after window's) */
			t[k++] = x->ts_ns;
		if (k % RP_ACK_EVERY == 0)
			sess_ack_dut(s, *last, 0, "F4: the DUT's packets so far acknowledged");
	}
	return k;
}

/* F4: the DUT's SEND of 64 packets or more; 8 CNPs to its QP after the first 32 -> the next 32
 * come more than 20 % slower (a reaction point, --dut-cc). */
void test_f4(struct session *s, struct conf_result *r)
{
	uint32_t pm = qp_pmtu(s), pkts = (s->qp.dut_send_len + pm - 1) / pm;
	if (pkts < 2 * RP_WINDOW) {
		v_set(r, V_INCONCLUSIVE, "the DUT's SEND of %u packets is too short for two windows of %u (--recv-size "
		      "%u bytes or more at PMTU %u)", pkts, RP_WINDOW, 2 * RP_WINDOW * pm, pm);
		return;
	}
	if (s->accepted == 0 && !probe_ok(s, "F4: a SEND the DUT answers with its own SEND")) {
		precondition(s, r, "the DUT did not acknowledge an in-order SEND");
		return;
	}
	int64_t before[RP_WINDOW], after[RP_WINDOW];
	uint32_t last = 0;
	bool have = false;
	size_t nb = rp_window(s, 0, before, RP_WINDOW, &last, &have);
	for (unsigned i = 0; i < RP_CNPS && nb == RP_WINDOW; i++) {
		struct stim st;
		stim_init(s, &st, ROCE_OPC_CNP);
		st.psn = 0;
		st.ackreq = false;
		st.becn = true;
		sess_send(s, &st, "F4: CNP %u of %u to the DUT's QP", i + 1, RP_CNPS);
	}
	int64_t t_cnps = s->n_frames ? s->frames[s->n_frames - 1].ts_ns : 0;
	size_t na = nb == RP_WINDOW ? rp_window(s, t_cnps, after, RP_WINDOW, &last, &have) : 0;
	if (have)
		sess_ack_dut(s, last, 0, "F4: the DUT's packets acknowledged");
	rule_rate_drop(before, nb, after, na, RP_DROP_PCT, r);
}
