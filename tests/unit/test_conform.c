/* test_conform.c: roceconform's units (conformance/): every verdict rule on recorded responses
 * (pcapng files roceconform wrote against the Linux Soft-RoCE DUT, tests/unit/data/conform/) and
 * on made-up ones for the cases a DUT rarely shows; every test's stimulus through the core's
 * decoder (a dry run of the whole catalogue with every setup); test selection, --expect files,
 * addresses, the JSON/JUnit/pcapng writers. */
#include <criterion/criterion.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"
#include "options.h"
#include "pcapng.h"
#include "report.h"
#include "session.h"
#include "setup.h"
#include "testlib.h"
#include "tests.h"
#include "verdict.h"

#ifndef CONFORM_DATA
#define CONFORM_DATA "tests/unit/data/conform"
#endif

static struct conf_opts opts;

static void base_opts(void)
{
	memset(&opts, 0, sizeof(opts));
	parse_addr("10.77.0.1", &opts.dut);
	parse_addr("10.77.0.50", &opts.local);
	opts.have_dut = opts.have_local = true;
	opts.pmtu = 1024;
	opts.recv_size = 4096;
	opts.vlan = -1;
	opts.pps = 1000;
	opts.tolerance_pct = 25;
	opts.setup_timeout_s = 1;
	opts.test_timeout_ms = 1000;
}

/* A session fed with the DUT's frames of a recorded test, the tester's QP being qpn (0: the first
 * one the DUT sends to). */
static void load_qp(struct session *s, const char *test, uint32_t qpn)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	base_opts();
	memset(s, 0, sizeof(*s));
	s->o = &opts;
	s->deadline_ns = INT64_MAX;
	s->qp.my_qpn = qpn;
	snprintf(path, sizeof(path), "%s/%s.pcapng", CONFORM_DATA, test);
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	cr_assert(p, "%s: %s", path, err);
	while (pcap_next_ex(p, &h, &d) == 1) {
		struct roce_pkt k;
		int64_t ts = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;
		if (!s->qp.my_qpn && roce_decode(NULL, d, h->caplen, h->len, 1, &k) == 1 && k.version == 2 &&
		    !memcmp(d + k.net.addr_off, opts.dut.ip, 4))
			s->qp.my_qpn = k.h.bth.dqpn;
		sess_take(s, d, h->caplen, h->len, ts);
	}
	pcap_close(p);
	cr_assert(s->n_frames > 0, "%s has frames", path);
}

static void load(struct session *s, const char *test)
{
	load_qp(s, test, 0);
}

static const struct resp *first_response(const struct session *s)
{
	for (size_t i = 0; i < s->n_resps; i++)
		if (s->resps[i].response)
			return &s->resps[i];
	return NULL;
}

static const struct resp *first_request(const struct session *s)
{
	for (size_t i = 0; i < s->n_resps; i++)
		if (!s->resps[i].response)
			return &s->resps[i];
	return NULL;
}

static struct conf_result res(void)
{
	struct conf_result r;
	memset(&r, 0, sizeof(r));
	r.measured_ms = r.tolerance_pct = -1;
	return r;
}

/* ---- rules on the DUT's recorded answers ---- */

Test(rules, ack_recorded)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "A1");
	const struct resp *a = first_response(&s);
	cr_assert(a && resp_is_ack(a));
	cr_expect_eq(rule_ack(s.resps, s.n_resps, a->h.bth.psn, a->h.bth.psn, 1, true, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.observed, "ACK psn"), "%s", r.observed);
	r = res();
	cr_expect_eq(rule_ack(s.resps, s.n_resps, a->h.bth.psn, a->h.bth.psn, 2, true, &r), V_FAIL, "wrong MSN");
	r = res();
	cr_expect_eq(rule_ack(s.resps, s.n_resps, psn_add(a->h.bth.psn, 1), psn_add(a->h.bth.psn, 1), -1, true, &r),
		     V_FAIL, "wrong PSN");
	r = res();
	cr_expect_eq(rule_nak(s.resps, s.n_resps, 1, a->h.bth.psn, a->h.bth.psn, -1, true, &r), V_FAIL, "an ACK is no NAK");
	sess_reset(&s);
}

Test(rules, nak_recorded)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "A5");
	const struct resp *n = first_response(&s);
	cr_assert(n && resp_is_nak(n, ROCE_NAK_PSN_SEQ_ERR), "the DUT's NAK-Seq");
	/* the responses up to the NAK's: the in-order probe after it is acknowledged */
	size_t upto = (size_t)(n - s.resps) + 1;
	cr_expect_eq(rule_nak(s.resps, upto, 1u << ROCE_NAK_PSN_SEQ_ERR, n->h.bth.psn, n->h.bth.psn,
			      (long)psn_add(n->h.bth.psn, -1), true, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_nak(s.resps, upto, 1u << ROCE_NAK_INVALID_REQUEST, n->h.bth.psn, n->h.bth.psn, -1, true, &r),
		     V_FAIL, "wrong code");
	r = res();
	cr_expect_eq(rule_nak(s.resps, upto, 1u, psn_add(n->h.bth.psn, 1), psn_add(n->h.bth.psn, 1), -1, true, &r),
		     V_FAIL, "wrong PSN");
	/* the same NAK twice: one NAK per episode */
	struct resp two[2] = {*n, *n};
	r = res();
	cr_expect_eq(rule_nak(two, 2, 1, n->h.bth.psn, n->h.bth.psn, -1, true, &r), V_FAIL);
	cr_expect(strstr(r.reason, "2 NAKs"), "%s", r.reason);
	sess_reset(&s);
}

/* C1a-C5 on rxe's answers: the control packet goes to ePSN + 1. A NAK-Seq naming ePSN (rxe's, from
 * A5) proves the drop; an ACK covering ePSN + 1 (rxe's ACK from C1a moved one PSN on: what a DUT
 * that took the spoiled packet without acknowledging it yet answers) proves it accepted. With the
 * control at ePSN that DUT re-ACKed a duplicate and passed. */
Test(rules, silent_recorded)
{
	struct session s, sn;
	struct conf_result r = res();
	load(&s, "C1a");
	load(&sn, "A5");
	const struct resp *a = first_response(&s), *nak = first_response(&sn);
	cr_assert(a && resp_is_ack(a));
	cr_assert(nak && resp_is_nak(nak, ROCE_NAK_PSN_SEQ_ERR));
	size_t k = (size_t)(a - s.resps);
	uint32_t e = nak->h.bth.psn;
	cr_expect_eq(rule_silent(s.resps, k, nak, 1, e, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.reason, "dropped: the control at ePSN + 1"), "%s", r.reason);
	cr_expect(strstr(r.expected, "ePSN + 1"), "%s", r.expected);
	/* the spoiled packet accepted: the control at ePSN + 1 in sequence, ACKed */
	struct resp took = *a;
	took.h.bth.psn = psn_add(e, 1);
	took.h.aeth.msn = 2;
	r = res();
	cr_expect_eq(rule_silent(s.resps, k, &took, 1, e, &r), V_FAIL);
	cr_expect(strstr(r.reason, "accepted the packet it must drop"), "%s", r.reason);
	/* an ACK of the spoiled packet itself, late */
	took.h.bth.psn = e;
	r = res();
	cr_expect_eq(rule_silent(s.resps, k, &took, 1, e, &r), V_FAIL, "the stimulus's PSN ACKed");
	/* the NAK-Seq names another PSN: the spoiled packet moved ePSN */
	r = res();
	cr_expect_eq(rule_silent(s.resps, k, nak, 1, psn_add(e, -1), &r), V_FAIL);
	cr_expect(strstr(r.reason, "moved the DUT's expected PSN"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_silent(a, 1, nak, 1, e, &r), V_FAIL, "answered the dropped packet");
	r = res();
	cr_expect_eq(rule_silent(s.resps, k, NULL, 0, e, &r), V_INCONCLUSIVE, "no proof without the control's answer");
	sess_reset(&s);
	sess_reset(&sn);
}

Test(rules, retries_recorded)
{
	struct session s;
	struct conf_result r = res();
	int64_t tx[64];
	load(&s, "E1");
	const struct resp *q = first_request(&s);
	cr_assert(q, "the DUT's SEND");
	size_t n = request_times(&s, 0, q->h.bth.psn, tx, 64);
	cr_assert_geq(n, 9, "rxe resent more than 7 times (%zu sendings)", n);
	cr_expect_eq(rule_retries(tx, n, 0, 67.108864, 7, 25, 1000, &r), V_FAIL);
	cr_expect(strstr(r.reason, "retries with retry count 7"), "%s", r.reason);
	cr_expect_geq(r.measured_ms, 50.0);
	/* the same first eight sendings, then silence: a requester that stopped */
	r = res();
	cr_expect_eq(rule_retries(tx, 8, 2000000000, 67.108864, 7, 25, 1000, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_retries(tx, 8, 100000000, 67.108864, 7, 25, 1000, &r), V_INCONCLUSIVE, "watched too briefly");
	/* too early: the timeout is longer than the gaps */
	r = res();
	cr_expect_eq(rule_retries(tx, 8, 2000000000, 500, 7, 25, 1000, &r), V_FAIL);
	cr_expect(strstr(r.reason, "before the timeout"), "%s", r.reason);
	sess_reset(&s);
}

Test(rules, read_response_recorded)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "D1");
	const struct resp *f = first_response(&s);
	cr_assert(f);
	cr_expect_eq(rule_read_response(f, 3, f->h.bth.psn, 0, 3, 3072, true, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_read_response(f, 3, f->h.bth.psn, 0, 3, 2048, true, &r), V_FAIL, "byte count");
	r = res();
	cr_expect_eq(rule_read_response(f + 1, 2, psn_add(f->h.bth.psn, 1), 1, 3, 2048, true, &r), V_PASS,
		     "a subset from the second packet: MIDDLE, LAST (%s)", r.reason);
	r = res();
	cr_expect_eq(rule_read_response(f + 1, 2, psn_add(f->h.bth.psn, 1), 0, 2, 2048, true, &r), V_FAIL,
		     "MIDDLE where a FIRST is due");
	sess_reset(&s);
}

Test(rules, acks_ordered_recorded)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "A7");
	struct resp acks[8];
	size_t n = 0;
	for (size_t i = 0; i < s.n_resps && n < 8; i++)
		if (resp_is_ack(&s.resps[i]))
			acks[n++] = s.resps[i];
	cr_assert_eq(n, 3, "rxe ACKs each of the three");
	cr_expect_eq(rule_acks_ordered(s.resps, s.n_resps, 0x000000, 3, true, &r), V_PASS, "across the wrap: %s", r.reason);
	struct resp back[2] = {acks[1], acks[0]};
	r = res();
	cr_expect_eq(rule_acks_ordered(back, 2, 0xfffffe, -1, true, &r), V_FAIL);
	cr_expect(strstr(r.reason, "backwards"), "%s", r.reason);
	sess_reset(&s);
}

Test(rules, retries_jitter)
{
	/* rxe under a busy TCG host (timeout 67.1 ms): one late capture makes the next gap 48 ms */
	const int64_t ms = 1000000, tx[8] = {0, 106 * ms, 198 * ms, 246 * ms, 350 * ms, 464 * ms, 534 * ms, 581 * ms};
	struct conf_result r = res();
	cr_expect_eq(rule_retries(tx, 8, 2000 * ms, 67.108864, 7, 25, 1000, &r), V_PASS, "%s", r.reason);
	const int64_t fast[4] = {0, 30 * ms, 60 * ms, 90 * ms};
	r = res();
	cr_expect_eq(rule_retries(fast, 4, 2000 * ms, 67.108864, 3, 25, 1000, &r), V_FAIL, "30 ms a retry");
	const int64_t slow[3] = {0, 70 * ms, 500 * ms};
	r = res();
	cr_expect_eq(rule_retries(slow, 3, 2000 * ms, 67.108864, 2, 25, 1000, &r), V_FAIL, "430 ms > 4 x 67.1 x 1.25");
	cr_expect(strstr(r.reason, "later than 4x"), "%s", r.reason);
}

Test(rules, rnr_wait)
{
	struct conf_result r = res();
	cr_expect_eq(rule_rnr_wait(0, 20000000, 15.36, 25, &r), V_PASS);
	cr_expect_eq(r.measured_ms, 20.0);
	r = res();
	cr_expect_eq(rule_rnr_wait(0, 5000000, 15.36, 25, &r), V_FAIL, "5 ms < 11.52 ms");
	r = res();
	cr_expect_eq(rule_rnr_wait(0, -1, 15.36, 25, &r), V_FAIL, "never resent");
}

Test(rules, resend_from_and_quiet)
{
	struct resp q[2];
	struct conf_result r = res();
	memset(q, 0, sizeof(q));
	q[0].h.bth.opcode = ROCE_OPC_SEND_MIDDLE;
	q[0].h.bth.psn = 0x100;
	q[1] = q[0];
	q[1].h.bth.psn = 0x101;
	cr_expect_eq(rule_resend_from(q, 2, 0x100, &r), V_PASS);
	r = res();
	cr_expect_eq(rule_resend_from(q, 2, 0x101, &r), V_FAIL, "resent a PSN the NAK acknowledged");
	r = res();
	cr_expect_eq(rule_resend_from(q, 2, 0x0ff, &r), V_FAIL, "skipped");
	r = res();
	cr_expect_eq(rule_resend_from(q, 0, 0x100, &r), V_FAIL, "nothing resent");
	r = res();
	cr_expect_eq(rule_no_requests(q, 0, 300, "x", &r), V_PASS);
	r = res();
	cr_expect_eq(rule_no_requests(q, 2, 300, "x", &r), V_FAIL);
}

/* A READ request of the DUT: PSN psn, len bytes at va. */
static struct resp read_req_of(uint32_t psn, uint64_t va, uint32_t len)
{
	struct resp q;
	memset(&q, 0, sizeof(q));
	q.h.bth.opcode = ROCE_OPC_READ_REQUEST;
	q.h.bth.psn = psn;
	q.h.hdrs = ROCE_HDR_RETH;
	q.h.reth.va = va;
	q.h.reth.dmalen = len;
	return q;
}

/* E7 on made-up answers: a READ of 3000 bytes at PSN 0x100 (3 responses at PMTU 1024), the one at
 * 0x101 withheld. Re-issued from 0x101 (VA + 1024, 1976 bytes) or whole again: PASS; skipping it,
 * a RETH that does not match, or no re-issue at all (a DUT that completes without the data or
 * waits forever): FAIL. */
Test(rules, read_reissue)
{
	const uint64_t va = 0x7e5700000000ULL;
	struct resp from_missing = read_req_of(0x101, va + 1024, 1976), whole = read_req_of(0x100, va, 3000);
	struct resp skips = read_req_of(0x102, va + 2048, 952), bad_reth = read_req_of(0x101, va, 3000);
	struct resp ack = {.response = true};
	struct resp seq[2] = {ack, from_missing};
	struct conf_result r = res();
	cr_expect_eq(rule_read_reissue(seq, 2, 0x100, va, 3000, 0x101, 1024, 2000, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.observed, "READ_REQUEST psn 0x000101"), "%s", r.observed);
	r = res();
	cr_expect_eq(rule_read_reissue(&whole, 1, 0x100, va, 3000, 0x101, 1024, 2000, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_read_reissue(&skips, 1, 0x100, va, 3000, 0x101, 1024, 2000, &r), V_FAIL);
	cr_expect(strstr(r.reason, "skips"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_read_reissue(&bad_reth, 1, 0x100, va, 3000, 0x101, 1024, 2000, &r), V_FAIL);
	r = res();
	cr_expect_eq(rule_read_reissue(&ack, 1, 0x100, va, 3000, 0x101, 1024, 2000, &r), V_FAIL, "no re-issue");
	cr_expect_str_eq(r.reason, "the DUT did not re-issue the READ");
}

/* E7 on rxe's recorded READ (--setup rdma-cm against rping -s -S 3000, tester QPN 0x0c0111): the
 * second of its three responses withheld, rxe re-issued the READ from that PSN: PASS; the same
 * answers without the re-issued READ (a DUT that never re-issues it) FAIL. */
Test(rules, read_reissue_recorded)
{
	struct session s;
	load_qp(&s, "E7", 0x0c0111);
	size_t at = 0;
	while (at < s.n_resps && (s.resps[at].response || s.resps[at].h.bth.opcode != ROCE_OPC_READ_REQUEST))
		at++;
	cr_assert(at < s.n_resps, "the DUT's READ is recorded");
	const struct resp req = s.resps[at++];
	cr_assert_eq(req.h.reth.dmalen, 3000);
	uint32_t missing = psn_add(req.h.bth.psn, 1);
	struct conf_result r = res();
	cr_expect_eq(rule_read_reissue(s.resps + at, s.n_resps - at, req.h.bth.psn, req.h.reth.va, 3000, missing, 1024,
				       2000, &r), V_PASS, "%s", r.reason);
	struct resp kept[64];
	size_t n = 0;
	for (size_t i = at; i < s.n_resps && n < 64; i++)
		if (s.resps[i].h.bth.opcode != ROCE_OPC_READ_REQUEST)
			kept[n++] = s.resps[i];
	cr_assert(n > 0, "the DUT's other packets are recorded");
	r = res();
	cr_expect_eq(rule_read_reissue(kept, n, req.h.bth.psn, req.h.reth.va, 3000, missing, 1024, 2000, &r), V_FAIL);
	cr_expect_str_eq(r.reason, "the DUT did not re-issue the READ");
	sess_reset(&s);
}

/* F1 on made-up answers (no recorded DUT does CNP): a CNP to another QP is named, not "no CNP". */
Test(rules, cnp_to_another_qp)
{
	struct resp cnp = {.ts_ns = 2000000, .icrc_status = ROCE_ICRC_GOOD}, ack = {.ts_ns = 1000000, .response = true};
	cnp.h.bth.opcode = ROCE_OPC_CNP;
	cnp.h.bth.becn = 1;
	cnp.h.bth.pkey = 0xffff;
	cnp.h.bth.dqpn = 0x0c0042;
	ack.h.bth.dqpn = 0x0c0042;
	struct conf_result r = res();
	cr_expect_eq(rule_cnp(&ack, 1, &cnp, 1, 0x0c0001, 0xffff, true, 0, &r), V_FAIL);
	cr_expect(strstr(r.reason, "no CNP to this test's QP 0x0c0001: the DUT sent its CNP to QP 0x0c0042"), "%s", r.reason);
	cr_expect(strstr(r.observed, "CNP DestQP 0x0c0042 at +2.000 ms"), "%s", r.observed);
	r = res();
	cr_expect_eq(rule_cnp(&cnp, 1, NULL, 0, 0x0c0042, 0xffff, true, 0, &r), V_PASS, "%s", r.reason);
	cr_expect_float_eq(r.measured_ms, 2.0, 1e-9);
	r = res();
	cr_expect_eq(rule_cnp(&ack, 1, NULL, 0, 0x0c0042, 0xffff, true, 0, &r), V_FAIL);
	cr_expect_str_eq(r.reason, "no CNP");
	cr_expect(r.missing, "no CNP from a live DUT: not seen (lost, or not sent)");
	r = res();
	cr_expect_eq(rule_cnp(NULL, 0, NULL, 0, 0x0c0042, 0xffff, false, 0, &r), V_INCONCLUSIVE);
	cr_expect_str_eq(r.reason, "no packet from the DUT");
}

/* A DUT packet of opcode op at psn (a response when it is an ACK). */
static struct resp uc_resp(uint8_t op, uint32_t psn, int64_t ts)
{
	struct resp x = {.ts_ns = ts, .icrc_status = ROCE_ICRC_GOOD, .response = op == ROCE_OPC_ACK};
	x.h.bth.opcode = op;
	x.h.bth.psn = psn;
	return x;
}

/* U1 (IBTA 9.8): the DUT's SEND and nothing else passes; an ACK (an RC-minded responder) fails;
 * silence is INCONCLUSIVE (the delivery is not shown). */
Test(rules_u, uc_unacked)
{
	struct resp ok[1] = {uc_resp(ROCE_OPC_UC | ROCE_OPC_SEND_ONLY, 0x10, 1000000)};
	struct resp acked[2] = {uc_resp(ROCE_OPC_ACK, 0x500, 500000), ok[0]};
	struct conf_result r = res();
	cr_expect_eq(rule_uc_unacked(ok, 1, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_uc_unacked(acked, 2, &r), V_FAIL);
	cr_expect(strstr(r.reason, "ACKNOWLEDGE psn 0x000500"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_uc_unacked(NULL, 0, &r), V_INCONCLUSIVE);
	cr_expect(strstr(r.reason, "delivery is not shown"), "%s", r.reason);
}

/* U1 and U2 on rxe's recorded answers: U1's SEND unacknowledged passes, with an ACK added it fails;
 * U2's only DUT SEND came after the second control (rxe dropped the first new message too). */
Test(rules_u, uc_recorded)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "U1");
	cr_assert(first_request(&s) && !first_response(&s), "rxe's U1: its SEND, no ACK");
	cr_expect_eq(rule_uc_unacked(s.resps, s.n_resps, &r), V_PASS, "%s", r.reason);
	struct resp two[2] = {uc_resp(ROCE_OPC_ACK, 0x10, 1), s.resps[0]};
	r = res();
	cr_expect_eq(rule_uc_unacked(two, 2, &r), V_FAIL, "an ACK added");
	sess_reset(&s);
	load(&s, "U2");
	cr_assert(has_send_end(s.resps, s.n_resps));
	r = res();
	cr_expect_eq(rule_uc_gap(NULL, 0, NULL, 0, s.resps, s.n_resps, &r), V_FAIL, "rxe: the control dropped too");
	r = res();
	cr_expect_eq(rule_uc_gap(s.resps, s.n_resps, NULL, 0, NULL, 0, &r), V_FAIL, "delivered after the broken message");
	r = res();
	cr_expect_eq(rule_uc_gap(NULL, 0, s.resps, s.n_resps, NULL, 0, &r), V_PASS, "%s", r.reason);
	sess_reset(&s);
}

/* U2: a broken message delivered (the DUT's SEND right after it) or NAKed fails; the control's
 * delivery alone passes; delivery only of a second control (the new message dropped too) fails;
 * nothing after either control is INCONCLUSIVE. */
Test(rules_u, uc_gap)
{
	struct resp send = uc_resp(ROCE_OPC_UC | ROCE_OPC_SEND_ONLY, 0x10, 1000000);
	struct resp nak = uc_resp(ROCE_OPC_ACK, 0x501, 500000);
	nak.h.aeth.syndrome = 0x60;   /* NAK PSN sequence error */
	struct conf_result r = res();
	cr_expect_eq(rule_uc_gap(NULL, 0, &send, 1, NULL, 0, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_uc_gap(&send, 1, NULL, 0, NULL, 0, &r), V_FAIL);
	cr_expect(strstr(r.reason, "after the message with the PSN gap"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_uc_gap(&nak, 1, &send, 1, NULL, 0, &r), V_FAIL);
	cr_expect(strstr(r.reason, "never acknowledges"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_uc_gap(NULL, 0, &nak, 1, NULL, 0, &r), V_FAIL, "a NAK to the control");
	r = res();
	cr_expect_eq(rule_uc_gap(NULL, 0, NULL, 0, NULL, 0, &r), V_INCONCLUSIVE);
	r = res();
	/* what rxe does: the SEND_ONLY after the broken message dropped too, the next one delivered */
	cr_expect_eq(rule_uc_gap(NULL, 0, NULL, 0, &send, 1, &r), V_FAIL);
	cr_expect(strstr(r.reason, "dropped too"), "%s", r.reason);
}

/* Q1 (IBTA 10.2.5): the DUT's SEND only after the control (the wrong Q_Key dropped) passes; a
 * broken DUT that delivers the wrong-Q_Key datagram (its SEND right after it) fails, so does any
 * response; no SEND after the control either is INCONCLUSIVE. */
Test(rules_q, qkey_drop)
{
	struct resp send = uc_resp(ROCE_OPC_UD_SEND_ONLY, 0x10, 1000000);
	struct resp ack = uc_resp(ROCE_OPC_ACK, 0x500, 500000);
	struct conf_result r = res();
	cr_expect_eq(rule_ud_qkey_drop(NULL, 0, &send, 1, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_ud_qkey_drop(&send, 1, NULL, 0, &r), V_FAIL, "the wrong Q_Key delivered");
	cr_expect(strstr(r.reason, "wrong Q_Key"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_ud_qkey_drop(&ack, 1, &send, 1, &r), V_FAIL, "a response");
	cr_expect(strstr(r.reason, "UD responder never acknowledges"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_ud_qkey_drop(NULL, 0, NULL, 0, &r), V_INCONCLUSIVE);
}

/* Q2: the DUT's SEND after ours passes; none (not delivered) or a response fails. */
Test(rules_q, qkey_ok)
{
	struct resp send = uc_resp(ROCE_OPC_UD_SEND_ONLY, 0x10, 1000000);
	struct resp two[2] = {uc_resp(ROCE_OPC_ACK, 0x500, 500000), send};
	struct conf_result r = res();
	cr_expect_eq(rule_ud_qkey_ok(&send, 1, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_ud_qkey_ok(NULL, 0, &r), V_FAIL);
	cr_expect(strstr(r.reason, "not delivered"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_ud_qkey_ok(two, 2, &r), V_FAIL, "a response");
}

/* Q1 and Q2 on rxe's recorded answers: its only packet is its SEND after the control (Q1) or
 * after our SEND (Q2), both PASS; the same SEND taken as the answer to the wrong Q_Key (a DUT
 * that delivered it) FAILs. */
Test(rules_q, qkey_recorded)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "Q1");
	cr_assert(has_send_end(s.resps, s.n_resps) && !first_response(&s), "rxe's Q1: its SEND, no response");
	cr_expect_eq(rule_ud_qkey_drop(NULL, 0, s.resps, s.n_resps, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_ud_qkey_drop(s.resps, s.n_resps, NULL, 0, &r), V_FAIL, "the wrong Q_Key delivered");
	sess_reset(&s);
	load(&s, "Q2");
	r = res();
	cr_expect_eq(rule_ud_qkey_ok(s.resps, s.n_resps, &r), V_PASS, "%s", r.reason);
	sess_reset(&s);
}

/* Q3 (A17.4.5.2): ibv_ud_pingpong's SEND, sent from byte 40 of the buffer our datagram landed in,
 * starting with our bytes passes; a DUT that left no room for the GRH (our payload from its byte 40
 * at the echo's start), 20 bytes of room, or more than 40 fails naming the room; a response fails;
 * no echo, or a short one, is INCONCLUSIVE. */
Test(rules_q, grh_room)
{
	uint8_t sent[128], echo[256];
	struct resp send = uc_resp(ROCE_OPC_UD_SEND_ONLY, 0x10, 1000000);
	struct resp ack = uc_resp(ROCE_OPC_ACK, 0x500, 500000);
	for (unsigned i = 0; i < sizeof(sent); i++)
		sent[i] = (uint8_t)(i * 37 + 11);
	memset(echo, 0x7b, sizeof(echo));
	memcpy(echo, sent, sizeof(sent));
	struct conf_result r = res();
	cr_expect_eq(rule_ud_grh_room(&send, 1, sent, 128, echo, 256, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_ud_grh_room(&ack, 1, sent, 128, echo, 256, &r), V_FAIL, "a response");
	/* no GRH room: the payload at byte 0, so the echo (from byte 40) starts with its byte 40 */
	memset(echo, 0x7b, sizeof(echo));
	memcpy(echo, sent + 40, 88);
	r = res();
	cr_expect_eq(rule_ud_grh_room(&send, 1, sent, 128, echo, 256, &r), V_FAIL, "no room");
	cr_expect(strstr(r.reason, "landed 0 bytes into"), "%s", r.reason);
	memset(echo, 0x7b, sizeof(echo));
	memcpy(echo, sent + 20, 108);
	r = res();
	cr_expect_eq(rule_ud_grh_room(&send, 1, sent, 128, echo, 256, &r), V_FAIL, "20 bytes of room (the IPv4 header alone)");
	cr_expect(strstr(r.reason, "GRH room of 20 bytes"), "%s", r.reason);
	memset(echo, 0x7b, sizeof(echo));
	memcpy(echo + 8, sent, 128);
	r = res();
	cr_expect_eq(rule_ud_grh_room(&send, 1, sent, 128, echo, 256, &r), V_FAIL, "48 bytes of room");
	cr_expect(strstr(r.reason, "landed 48 bytes into"), "%s", r.reason);
	memset(echo, 0x7b, sizeof(echo));
	r = res();
	cr_expect_eq(rule_ud_grh_room(&send, 1, sent, 128, echo, 256, &r), V_FAIL, "not ours at all");
	r = res();
	cr_expect_eq(rule_ud_grh_room(NULL, 0, sent, 128, NULL, 0, &r), V_INCONCLUSIVE, "no echo");
	r = res();
	cr_expect_eq(rule_ud_grh_room(&send, 1, sent, 128, sent, 64, &r), V_INCONCLUSIVE, "a short echo");
}

/* The payload of the DUT's first SEND (LAST or ONLY) in a loaded recording (asserted). */
static const uint8_t *recorded_send_payload(const struct session *s, uint32_t *len)
{
	const struct resp *e = NULL;
	for (size_t i = 0; i < s->n_resps && !e; i++)
		e = pred_send_end(&s->resps[i], NULL) ? &s->resps[i] : NULL;
	cr_assert(e, "the DUT's SEND in the recording");
	const struct rec_frame *f = &s->frames[e->frame];
	struct roce_pkt p;
	cr_assert_eq(roce_decode(NULL, f->bytes, f->len, f->len, 1, &p), 1);
	*len = p.payload_len;
	return f->bytes + p.payload_off;
}

/* Q3's rule on rxe's recorded Q2 answer (our 64 bytes of 0xa5, then the server's 0x7b filling):
 * rxe's SEND starts with them (PASS); the same SEND read as the answer of a broken DUT that left no
 * GRH room (its echo starts with our byte 40), fails; on Q3's own recorded run, PASS. */
Test(rules_q, grh_room_recorded)
{
	struct session s;
	uint8_t sent[64];
	uint32_t elen;
	load(&s, "Q2");
	const uint8_t *echo = recorded_send_payload(&s, &elen);
	memset(sent, 0xa5, sizeof(sent));
	struct conf_result r = res();
	cr_expect_eq(rule_ud_grh_room(s.resps, s.n_resps, sent, 64, echo, elen, &r), V_PASS, "%s", r.reason);
	/* a broken DUT with no GRH room: our 64 bytes of which the last 24 are 0xa5 land at byte 0, and
	 * the echo from byte 40 starts with those 24, as rxe's recorded echo does */
	for (unsigned i = 0; i < 40; i++)
		sent[i] = (uint8_t)(0x10 + i);
	memset(sent + 40, 0xa5, 24);
	r = res();
	cr_expect_eq(rule_ud_grh_room(s.resps, s.n_resps, sent, 64, echo, elen, &r), V_FAIL, "%s", r.reason);
	cr_expect(strstr(r.reason, "landed 0 bytes into"), "%s", r.reason);
	sess_reset(&s);
	/* Q3's own run: rxe's SEND starts with Q3's 128 distinct bytes */
	uint8_t pattern[128];
	for (unsigned i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 37 + 11);
	load(&s, "Q3");
	echo = recorded_send_payload(&s, &elen);
	r = res();
	cr_expect_eq(rule_ud_grh_room(s.resps, s.n_resps, pattern, 128, echo, elen, &r), V_PASS, "%s", r.reason);
	sess_reset(&s);
}

/* I1 (9.7.5.2, per-QP checks) on rxe's recorded answers: QP a's NAK-Seq (A5's), QP b's ACK of its
 * SEND (A1's) passes; a broken DUT whose QP b got QP a's NAK (A5's NAK sent to b, at b's PSN) fails,
 * so does one that resent its request on b, or left b's SEND unacknowledged; nothing at all is
 * INCONCLUSIVE. */
Test(rules_i, qp_isolation_recorded)
{
	struct session sa, sb;
	load(&sa, "A5");
	load(&sb, "A1");
	const struct resp *nak = first_response(&sa), *ack = first_response(&sb);
	cr_assert(nak && resp_is_nak(nak, ROCE_NAK_PSN_SEQ_ERR) && ack && resp_is_ack(ack));
	uint32_t psn = ack->h.bth.psn;
	struct conf_result r = res();
	cr_expect_eq(rule_qp_isolation(nak, 1, sb.resps, sb.n_resps, psn, &r), V_PASS, "%s", r.reason);
	struct resp leaked[2] = {*nak, *ack};
	leaked[0].h.bth.psn = psn;
	r = res();
	cr_expect_eq(rule_qp_isolation(nak, 1, leaked, 2, psn, &r), V_FAIL, "QP a's NAK on QP b");
	cr_expect(strstr(r.reason, "leaked into QP b"), "%s", r.reason);
	struct resp req = uc_resp(ROCE_OPC_SEND_ONLY, 0x20, 2000000);
	struct resp resent[3] = {*ack, req, req};
	r = res();
	cr_expect_eq(rule_qp_isolation(nak, 1, resent, 3, psn, &r), V_FAIL, "a request resent on QP b");
	cr_expect(strstr(r.reason, "resent its request on QP b"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_qp_isolation(nak, 1, NULL, 0, psn, &r), V_FAIL, "QP b silent while QP a answered");
	r = res();
	cr_expect_eq(rule_qp_isolation(nak, 1, sb.resps, sb.n_resps, psn_add(psn, 1), &r), V_FAIL, "an ACK short of b's PSN");
	r = res();
	cr_expect_eq(rule_qp_isolation(NULL, 0, NULL, 0, psn, &r), V_INCONCLUSIVE);
	sess_reset(&sa);
	sess_reset(&sb);
}

/* I1 on rxe's recorded run (QP a 0x0c0222, QP b 0x0c0333): QP a's NAK-Seq and NAK invalid request,
 * QP b's ACK and the DUT's SEND on b pass; the same run with QP a's NAK sent to QP b (a DUT whose
 * error leaked) fails. */
Test(rules_i, qp_isolation_rxe_run)
{
	struct session s;
	load_qp(&s, "I1", 0x0c0333);
	cr_assert(s.n_others >= 2 && resp_is_nak(&s.others[0], ROCE_NAK_PSN_SEQ_ERR), "QP a's NAKs");
	const struct resp *ack = first_response(&s);
	cr_assert(ack && resp_is_ack(ack), "QP b's ACK");
	uint32_t psn = ack->h.bth.psn;
	struct conf_result r = res();
	cr_expect_eq(rule_qp_isolation(s.others, s.n_others, s.resps, s.n_resps, psn, &r), V_PASS, "%s", r.reason);
	struct resp leaked[16];
	size_t n = s.n_resps < 15 ? s.n_resps : 15;
	leaked[0] = s.others[1];   /* NAK invalid request, on QP b at its PSN */
	leaked[0].h.bth.psn = psn;
	memcpy(leaked + 1, s.resps, n * sizeof(*leaked));
	r = res();
	cr_expect_eq(rule_qp_isolation(s.others, s.n_others, leaked, n + 1, psn, &r), V_FAIL, "a NAK on QP b");
	cr_expect(strstr(r.reason, "INVALID_REQUEST"), "%s", r.reason);
	sess_reset(&s);
}

/* F4 (A17.9 reaction point): 32 packets 10 us apart before the CNPs; after them 32 packets 20 us
 * apart (the rate halved) pass; 11 us apart (9 % slower, under the 20 % threshold) and unchanged
 * fail; a window of one packet or no span is INCONCLUSIVE. */
Test(rules, rate_drop)
{
	int64_t before[32], half[32], slight[32], same[32];
	for (int i = 0; i < 32; i++) {
		before[i] = 1000000 + i * 10000;
		half[i] = 2000000 + i * 20000;
		slight[i] = 2000000 + i * 11000;
		same[i] = 2000000 + i * 10000;
	}
	struct conf_result r = res();
	cr_expect_eq(rule_rate_drop(before, 32, half, 32, 20.0, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.observed, "-50.0 %"), "%s", r.observed);
	r = res();
	cr_expect_eq(rule_rate_drop(before, 32, slight, 32, 20.0, &r), V_FAIL, "a 9 %% drop");
	cr_expect(strstr(r.reason, "did not slow down"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_rate_drop(before, 32, same, 32, 20.0, &r), V_FAIL, "no drop");
	r = res();
	cr_expect_eq(rule_rate_drop(before, 32, half, 1, 20.0, &r), V_INCONCLUSIVE, "one packet after");
	int64_t flat[2] = {5, 5};
	r = res();
	cr_expect_eq(rule_rate_drop(flat, 2, half, 32, 20.0, &r), V_INCONCLUSIVE, "no span before");
}

/* F1's format check (Annex A17.9.3, Figure 6): each field wrong on its own is a FAIL naming it;
 * BECN 0 is a note (receivers ignore B and F, CA17-29). Before, only BECN and the ICRC were
 * checked: every one of these CNPs passed, and one with BECN 0 failed. */
Test(rules, cnp_format)
{
	struct resp good = {.ts_ns = 2000000, .icrc_status = ROCE_ICRC_GOOD};
	good.h.bth.opcode = ROCE_OPC_CNP;
	good.h.bth.becn = 1;
	good.h.bth.pkey = 0x8001;
	good.h.bth.dqpn = 0x0c0042;
	static const struct {
		const char *what, *says;
	} cases[] = {
		{"DestQP", "DestQP 0x0c0043 (the marked packet came from QP 0x0c0042)"},
		{"PSN", "PSN 0x000007 (0 required)"},
		{"SE", "SE 1 (0 required)"},
		{"M", "M 1 (0 required)"},
		{"P_Key", "P_Key 0xffff (the marked packet's is 0x8001)"},
		{"ICRC", "a wrong ICRC"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resp c = good;
		switch (i) {
		case 0: c.h.bth.dqpn = 0x0c0043; break;
		case 1: c.h.bth.psn = 7; break;
		case 2: c.h.bth.se = 1; break;
		case 3: c.h.bth.m = 1; break;
		case 4: c.h.bth.pkey = 0xffff; break;
		default: c.icrc_status = ROCE_ICRC_BAD; break;
		}
		struct conf_result r = res();
		cr_expect_eq(rule_cnp(&c, 1, NULL, 0, 0x0c0042, 0x8001, true, 0, &r), V_FAIL, "%s wrong", cases[i].what);
		cr_expect(strstr(r.reason, cases[i].says), "%s: %s", cases[i].what, r.reason);
	}
	struct resp c = good;
	c.h.bth.becn = 0;
	struct conf_result r = res();
	cr_expect_eq(rule_cnp(&c, 1, NULL, 0, 0x0c0042, 0x8001, true, 0, &r), V_PASS, "BECN 0 is no FAIL: %s", r.reason);
	cr_expect(strstr(r.reason, "BECN is 0") && strstr(r.reason, "CA17-29"), "%s", r.reason);
	cr_expect(strstr(r.expected, "PSN 0, SE 0, M 0, P_Key 0x8001"), "%s", r.expected);
	c.h.bth.psn = 1;
	c.h.bth.se = 1;
	r = res();
	cr_expect_eq(rule_cnp(&c, 1, NULL, 0, 0x0c0042, 0x8001, true, 0, &r), V_FAIL);
	cr_expect(strstr(r.reason, "PSN 0x000001 (0 required), SE 1 (0 required)"), "every wrong field: %s", r.reason);
}

/* E5 on rxe's recorded SEND and its resends (E1): only a request captured after the ghost ACK
 * left is the resend. A DUT that stopped on the ghost ACK, its last sending captured before the
 * ACK but read after it, passed when any request read after the ACK counted. */
Test(rules, ghost_ack_resend_after_the_ack)
{
	struct session s;
	load(&s, "E1");
	const struct resp *q = first_request(&s);
	cr_assert(q, "the DUT's SEND");
	int64_t tx[64];
	size_t n = request_times(&s, 0, q->h.bth.psn, tx, 64);
	cr_assert_geq(n, 3);
	uint32_t first = q->h.bth.psn, ghost = psn_add(first, 1000);
	/* the ACK between the first sending and the first resend: rxe's resend comes after it */
	struct conf_result r = res();
	cr_expect_eq(rule_ghost_ack(s.resps, s.n_resps, tx[0] + 1000000, ghost, first, first, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.observed, "resent"), "%s", r.observed);
	/* the broken DUT: the ACK left after its last sending (read later), nothing sent after it */
	int64_t t_ack = tx[n - 1] + 1000000;
	r = res();
	cr_expect_eq(rule_ghost_ack(s.resps, s.n_resps, t_ack, ghost, first, first, &r), V_FAIL);
	cr_expect(strstr(r.reason, "took the ghost ACK"), "%s", r.reason);
	cr_expect(strstr(r.observed, "1.0 ms before it left"), "%s", r.observed);
	/* a request captured at the very time the ACK left is no resend either */
	r = res();
	cr_expect_eq(rule_ghost_ack(q, 1, q->ts_ns, ghost, first, first, &r), V_FAIL);
	sess_reset(&s);
}

/* E6a-c: after a fatal NAK, the in-order request is answered only by a QP still alive (rxe's
 * recorded ACK from A1 as that answer). "No further request" alone passed that DUT. */
Test(rules, fatal_nak_probe_answered)
{
	struct session s;
	load(&s, "A1");
	const struct resp *a = first_response(&s);
	cr_assert(a && resp_is_ack(a));
	int64_t t_probe = a->ts_ns - 1000000;
	struct conf_result r = res();
	cr_expect_eq(rule_no_requests(a, 1, 300, "x", &r), V_PASS, "no further request alone cannot tell");
	r = res();
	cr_expect_eq(rule_fatal_nak(a, 1, t_probe, a->h.bth.psn, 300, "x", &r), V_FAIL);
	cr_expect(strstr(r.reason, "the QP answered after a fatal NAK (ACK psn"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_fatal_nak(NULL, 0, t_probe, a->h.bth.psn, 300, "x", &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.expected, "no answer to the in-order request"), "%s", r.expected);
	/* a request after the NAK still fails, as before */
	struct resp q = *a;
	q.response = false;
	q.h.hdrs = 0;
	q.h.bth.opcode = ROCE_OPC_SEND_ONLY;
	r = res();
	cr_expect_eq(rule_fatal_nak(&q, 1, t_probe, a->h.bth.psn, 300, "x", &r), V_FAIL);
	cr_expect(strstr(r.reason, "1 more requests"), "%s", r.reason);
	/* an answer captured before the request went out is not its answer */
	r = res();
	cr_expect_eq(rule_fatal_nak(a, 1, a->ts_ns + 1, a->h.bth.psn, 300, "x", &r), V_PASS, "%s", r.reason);
	sess_reset(&s);
}

/* The DUT's packets to another QP than the test's are kept (and noted) as evidence. */
Test(session, other_qp_packets_kept)
{
	struct session s;
	load(&s, "A1");
	size_t mine = s.n_resps;
	cr_assert_gt(mine, 0);
	uint32_t qpn = s.qp.my_qpn;
	sess_reset(&s);
	load_qp(&s, "A1", qpn ^ 1);   /* as a test whose QP is not the one the DUT answers */
	cr_expect_eq(s.n_resps, 0);
	cr_expect_eq(s.n_others, mine, "every DUT packet kept as another QP's");
	cr_expect_eq(s.others[0].h.bth.dqpn, qpn);
	cr_expect(strstr(s.frames[s.others[0].frame].note, "not this test's QP: "), "%s", s.frames[s.others[0].frame].note);
	sess_reset(&s);
}

Test(rules, silence_of_a_dead_dut_is_inconclusive)
{
	struct conf_result r = res();
	cr_expect_eq(rule_ack(NULL, 0, 1, 1, 1, false, &r), V_INCONCLUSIVE);
	r = res();
	cr_expect_eq(rule_ack(NULL, 0, 1, 1, 1, true, &r), V_FAIL, "a live DUT that does not ACK fails");
	r = res();
	cr_expect_eq(rule_nak(NULL, 0, 1, 1, 1, -1, false, &r), V_INCONCLUSIVE);
	r = res();
	cr_expect_eq(rule_acks_ordered(NULL, 0, 1, -1, false, &r), V_INCONCLUSIVE);
	r = res();
	cr_expect_eq(rule_read_response(NULL, 0, 1, 0, 1, 64, false, &r), V_INCONCLUSIVE);
}

/* ---- every stimulus through the decoder ---- */

static void dry_run_setup(const char *setup, unsigned *frames, unsigned *tests)
{
	char err[CONF_ERRLEN];
	uint16_t port;
	base_opts();
	opts.ecn = opts.pfc = true;
	const struct setup_method *m = setup_find(setup, &port, err);
	cr_assert(m, "%s", err);
	for (size_t i = 0; i < conf_n_tests; i++) {
		const struct conf_test *t = &conf_tests[i];
		if (t->needs & ~(m->caps | NEED_ECN | NEED_PFC | NEED_CC | (m == &setup_rc_pingpong ? NEED_TWO_QPS : 0)))
			continue;
		struct session s;
		struct conf_result r = res();
		memset(&s, 0, sizeof(s));
		s.o = &opts;
		s.test = t;
		s.tcp_fd = -1;
		s.deadline_ns = INT64_MAX;
		m->placeholder(&s);
		s.epsn = s.qp.my_psn;
		t->run(&s, &r);
		(*tests)++;
		for (size_t k = 0; k < s.n_frames; k++) {
			const struct rec_frame *f = &s.frames[k];
			struct roce_pkt p;
			cr_assert(f->sent);
			if (!f->has_stim)
				continue;   /* made apart from a stimulus: C1c's flipped byte, G1's PFC frames */
			const struct stim *st = &f->stim;
			(*frames)++;
			int is_roce = roce_decode(NULL, f->bytes, f->len, f->len, 1, &p);
			cr_assert_eq(is_roce, 1, "%s frame %zu (%s) decodes as RoCE", t->id, k, f->note);
			cr_expect_eq(p.version, st->rocev1 ? 1 : 2, "%s frame %zu RoCE version", t->id, k);
			cr_expect_eq(p.h.bth.opcode, st->opcode, "%s frame %zu opcode", t->id, k);
			cr_expect_eq(p.h.bth.psn, st->psn & 0xffffff, "%s frame %zu PSN", t->id, k);
			cr_expect_eq(p.h.bth.dqpn, st->dqpn & 0xffffff, "%s frame %zu DestQP", t->id, k);
			cr_expect_eq(p.h.bth.ackreq, st->ackreq, "%s frame %zu AckReq", t->id, k);
			cr_expect_eq(p.h.bth.pkey, st->pkey);
			cr_expect_eq(p.h.bth.tver, st->tver);
			cr_expect_eq(roce_ecn(&p.net), st->ecn);
			if (st->hdrs_given)
				continue;   /* deliberately short (C5) or reserved (B4): no header to compare */
			cr_expect_eq(p.payload_len, st->payload_len, "%s frame %zu payload", t->id, k);
			if (p.h.hdrs & ROCE_HDR_RETH) {
				cr_expect_eq(p.h.reth.va, st->extra.reth.va);
				cr_expect_eq(p.h.reth.rkey, st->extra.reth.rkey);
				cr_expect_eq(p.h.reth.dmalen, st->extra.reth.dmalen);
			}
			if (p.h.hdrs & ROCE_HDR_AETH) {
				cr_expect_eq(p.h.aeth.syndrome, st->extra.aeth.syndrome);
				cr_expect_eq(p.h.aeth.msn, st->extra.aeth.msn);
			}
			if (p.h.hdrs & ROCE_HDR_ATOMICETH) {
				cr_expect_eq(p.h.atomiceth.va, st->extra.atomiceth.va);
				cr_expect_eq(p.h.atomiceth.swap, st->extra.atomiceth.swap);
			}
			bool spoiled = st->icrc != ROCE_BUILD_ICRC_GOOD;
			cr_expect_eq(p.icrc_status, spoiled ? ROCE_ICRC_BAD : ROCE_ICRC_GOOD, "%s frame %zu (%s) ICRC",
				     t->id, k, f->note);
		}
		sess_reset(&s);
	}
}

Test(stimuli, every_test_round_trips)
{
	unsigned frames = 0, tests = 0;
	dry_run_setup("rc-pingpong", &frames, &tests);
	dry_run_setup("perftest-write", &frames, &tests);
	dry_run_setup("perftest-read", &frames, &tests);
	dry_run_setup("perftest-atomic", &frames, &tests);
	unsigned uc_frames = frames, uc_tests = tests;
	dry_run_setup("uc-pingpong", &frames, &tests);
	cr_expect_eq(tests - uc_tests, 2, "uc-pingpong runs U1 and U2 only: %u", tests - uc_tests);
	cr_expect_geq(frames - uc_frames, 4, "U1's SEND_ONLY, U2's FIRST, LAST and control: %u", frames - uc_frames);
	unsigned ud_frames = frames, ud_tests = tests;
	dry_run_setup("ud-pingpong", &frames, &tests);
	cr_expect_eq(tests - ud_tests, 3, "ud-pingpong runs Q1, Q2 and Q3 (Q4 is never run): %u", tests - ud_tests);
	cr_expect_geq(frames - ud_frames, 4, "Q1's wrong Q_Key and control, Q2's and Q3's SEND_ONLY: %u", frames - ud_frames);
	unsigned cm_tests = tests;
	dry_run_setup("rdma-cm", &frames, &tests);
	cr_expect_eq(tests - cm_tests, 1, "rdma-cm runs E7 only: %u", tests - cm_tests);
	cr_expect_geq(tests, 60, "%u test runs", tests);
	cr_expect_geq(frames, 150, "%u stimuli", frames);
}

/* Test id's run in a dry run with setup (its frames in s, to be reset by the caller). */
static void dry_run_one(const char *setup, const char *id, struct session *s)
{
	char err[CONF_ERRLEN];
	uint16_t port;
	base_opts();
	const struct setup_method *m = setup_find(setup, &port, err);
	cr_assert(m, "%s", err);
	const struct conf_test *t = NULL;
	for (size_t i = 0; i < conf_n_tests && !t; i++)
		if (!strcmp(conf_tests[i].id, id))
			t = &conf_tests[i];
	cr_assert(t, "%s", id);
	struct conf_result r = res();
	memset(s, 0, sizeof(*s));
	s->o = &opts;
	s->test = t;
	s->tcp_fd = -1;
	s->deadline_ns = INT64_MAX;
	m->placeholder(s);
	s->epsn = s->qp.my_psn;
	t->run(s, &r);
}

/* The PSNs of the session's stimuli, in order. */
static size_t stim_psns(const struct session *s, uint32_t *psn, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n_frames && k < max; i++)
		if (s->frames[i].has_stim)
			psn[k++] = s->frames[i].stim.psn & 0xffffff;
	return k;
}

/* C1a-C5: the spoiled packet at ePSN, the control at ePSN + 1 (not ePSN again), then ePSN. */
Test(stimuli, silent_drop_control_at_epsn_plus_1)
{
	static const char *const ids[] = {"C1a", "C1b", "C2a", "C2b", "C3a", "C3b", "C3c", "C3d", "C4", "C5"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct session s;
		uint32_t psn[8];
		dry_run_one("rc-pingpong", ids[i], &s);
		size_t n = stim_psns(&s, psn, 8);
		cr_assert_eq(n, 3, "%s: %zu stimuli", ids[i], n);
		cr_expect_eq(psn[1], psn_add(psn[0], 1), "%s: the control at ePSN + 1 (0x%06x after 0x%06x)", ids[i], psn[1],
			     psn[0]);
		cr_expect_eq(psn[2], psn[0], "%s: then ePSN", ids[i]);
		sess_reset(&s);
	}
}

/* E6a: the fatal NAK, then an in-order request to the DUT's QP (a QP in error drops it). */
Test(stimuli, fatal_nak_then_request)
{
	struct session s;
	dry_run_one("rc-pingpong", "E6a", &s);
	const struct rec_frame *nak = NULL, *after = NULL;
	for (size_t i = 0; i < s.n_frames; i++) {
		const struct rec_frame *f = &s.frames[i];
		if (f->has_stim && f->stim.opcode == ROCE_OPC_ACK && f->stim.extra.aeth.syndrome == 0x61)
			nak = f;
		else if (nak && f->has_stim && !after)
			after = f;
	}
	cr_assert(nak, "the NAK invalid request");
	cr_assert(after, "a request after the NAK");
	cr_expect_eq(after->stim.opcode, ROCE_OPC_SEND_ONLY);
	cr_expect_eq(after->stim.psn, s.qp.my_psn + 1, "at the DUT's ePSN (after the first SEND)");
	sess_reset(&s);
}

/* ---- options ---- */

Test(options, selection)
{
	cr_expect(test_selected("A1", NULL));
	cr_expect(test_selected("A1", "A"));
	cr_expect(test_selected("B1a", "B1"));
	cr_expect(!test_selected("B10", "B1"));
	cr_expect(test_selected("B10", "B10"));
	cr_expect(test_selected("C3b", "A1,c3"));
	cr_expect(!test_selected("A1", "A2,B"));
	char buf[32];
	cr_expect_null(unknown_selector("A,B1,E1", buf, sizeof(buf)));
	cr_expect_str_eq(unknown_selector("A,Z9", buf, sizeof(buf)), "Z9");
}

Test(options, addresses)
{
	struct conf_addr a;
	cr_assert_eq(parse_addr("255.255.255.255", &a), 0);
	cr_expect_str_eq(addr_unusable(&a), "broadcast");
	parse_addr("224.0.0.1", &a);
	cr_expect_str_eq(addr_unusable(&a), "multicast");
	parse_addr("0.0.0.0", &a);
	cr_expect_str_eq(addr_unusable(&a), "unspecified");
	parse_addr("::", &a);
	cr_expect_str_eq(addr_unusable(&a), "unspecified");
	parse_addr("ff02::1", &a);
	cr_expect_str_eq(addr_unusable(&a), "multicast");
	parse_addr("fd00::2", &a);
	cr_expect_null(addr_unusable(&a));
	parse_addr("127.0.0.2", &a);
	cr_expect_str_eq(addr_unusable(&a), "loopback");
	parse_addr("::1", &a);
	cr_expect_str_eq(addr_unusable(&a), "loopback");
	cr_expect_eq(parse_addr("10.0.0.256", &a), -1);
}

Test(options, dut_mac_and_subnet_broadcast)
{
	const uint8_t own[6] = {0x02, 0, 0, 0, 0, 9}, dut[6] = {0x02, 0, 0, 0, 0, 2}, zero[6] = {0};
	const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, mc4[6] = {0x01, 0, 0x5e, 0, 0, 1};
	const uint8_t mc6[6] = {0x33, 0x33, 0, 0, 0, 1};
	cr_expect_null(mac_unusable(dut, own));
	cr_expect(strstr(mac_unusable(bcast, own), "broadcast"));
	cr_expect(strstr(mac_unusable(mc4, own), "multicast"));
	cr_expect(strstr(mac_unusable(mc6, NULL), "multicast"));
	cr_expect(strstr(mac_unusable(zero, NULL), "all-zero"));
	cr_expect(strstr(mac_unusable(own, own), "own"));
	const uint8_t net[4] = {10, 99, 0, 1}, m24[4] = {255, 255, 255, 0}, m31[4] = {255, 255, 255, 254};
	const uint8_t b24[4] = {10, 99, 0, 255}, other[4] = {10, 98, 0, 255}, host[4] = {10, 99, 0, 2};
	cr_expect(ip4_is_broadcast_of(b24, net, m24));
	cr_expect(!ip4_is_broadcast_of(other, net, m24));
	cr_expect(!ip4_is_broadcast_of(host, net, m24));
	cr_expect(!ip4_is_broadcast_of(b24, net, m31), "a /31 has no broadcast address");
}

Test(options, parse)
{
	struct conf_opts o;
	char err[CONF_ERRLEN];
	char *ok[] = {"roceconform", "--iface", "eth0", "--dut", "10.0.0.2", "--pps", "500", "--tests", "A", NULL};
	cr_expect_eq(options_parse(9, ok, &o, err), 0, "%s", err);
	cr_expect_eq(o.pps, 500);
	char *cap[] = {"roceconform", "--pps", "20000", NULL};
	cr_expect_eq(options_parse(3, cap, &o, err), -1, "the hard cap");
	char *mtu[] = {"roceconform", "--pmtu", "1500", NULL};
	cr_expect_eq(options_parse(3, mtu, &o, err), -1, "not a PMTU");
}

Test(expect, load)
{
	struct expect_list l;
	char err[CONF_ERRLEN], path[] = "/tmp/test_conform_expectXXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("# comment\nE1 FAIL rxe retries forever\n\nB6a fail  lengths unchecked  \n", f);
	fclose(f);
	cr_assert_eq(expect_load(path, &l, err), 0, "%s", err);
	cr_expect_eq(l.n, 2);
	cr_expect_eq(expect_find(&l, "e1")->v, V_FAIL);
	cr_expect_str_eq(expect_find(&l, "B6a")->reason, "lengths unchecked");
	expect_free(&l);
	f = fopen(path, "w");
	fputs("Q7 PASS no such test\n", f);
	fclose(f);
	cr_expect_eq(expect_load(path, &l, err), -1);
	f = fopen(path, "w");
	fputs("A1 MAYBE\n", f);
	fclose(f);
	cr_expect_eq(expect_load(path, &l, err), -1);
	remove(path);
}

/* ---- writers ---- */

/* The file at path, whole (at most cap - 1 bytes), into buf. */
static void slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s", path);
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* n results of the first n tests of the catalogue, each a first run with no verdict set yet. */
static void results_init(struct run_result *rs, int n)
{
	memset(rs, 0, sizeof(*rs) * (size_t)n);
	for (int i = 0; i < n; i++) {
		rs[i].t = &conf_tests[i];
		rs[i].run = 1;
		rs[i].r = res();
	}
}

Test(writers, json_junit_pcapng)
{
	struct run_result rs[3];
	struct run_info info = {"eth0", "10.0.0.2", "10.0.0.9", "rc-pingpong", "live", 0, 1.5, 1000};
	char err[CONF_ERRLEN], dir[] = "/tmp/test_conformXXXXXX", path[256], buf[8192];
	cr_assert(mkdtemp(dir));
	results_init(rs, 3);
	rs[1].r.v = V_FAIL;
	snprintf(rs[1].r.observed, EVIDENCE_LEN, "a \"quoted\" <tag> & more");
	rs[2].r.v = V_NA;
	snprintf(rs[2].r.reason, EVIDENCE_LEN, "no ECN");
	snprintf(path, sizeof(path), "%s/r.xml", dir);
	cr_assert_eq(report_junit(path, &info, rs, 3, err), 0, "%s", err);
	slurp(path, buf, sizeof(buf));
	cr_expect(strstr(buf, "failures=\"1\""));
	cr_expect(strstr(buf, "skipped=\"1\""));
	cr_expect(strstr(buf, "&quot;quoted&quot; &lt;tag&gt; &amp; more"));
	cr_expect(strstr(buf, "<testcase classname=\"roceconform.rc-pingpong.A\" name=\"A1 "));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	cr_assert_eq(report_json(path, &info, rs, 3, err), 0, "%s", err);
	slurp(path, buf, sizeof(buf));
	cr_expect(strstr(buf, "\"verdict\": \"FAIL\""));
	cr_expect(strstr(buf, "a \\\"quoted\\\" <tag>"));

	/* a session's frames as pcapng, read back by libpcap with the same bytes */
	struct session s;
	load(&s, "A1");
	snprintf(path, sizeof(path), "%s/A1.pcapng", dir);
	cr_assert_eq(pcapng_write_session(path, &s, "roceconform A1: PASS", err), 0, "%s", err);
	pcap_t *p = pcap_open_offline(path, (char *)buf);
	cr_assert(p, "%s", buf);
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t k = 0;
	while (pcap_next_ex(p, &h, &d) == 1) {
		cr_assert_lt(k, s.n_frames);
		cr_expect_eq(h->caplen, s.frames[k].len);
		cr_expect_eq(memcmp(d, s.frames[k].bytes, h->caplen), 0, "frame %zu", k);
		k++;
	}
	cr_expect_eq(k, s.n_frames);
	pcap_close(p);
	sess_reset(&s);
}

/* The JUnit file at path as python3's xml.etree reads it (so the XML must be well formed): the
 * suite's counts, then a line a testcase: classname|ID|child tag|type|message|expected property|
 * system-out's attachment line. */
static void junit_parsed(const char *path, char *out, size_t cap)
{
	static const char script[] =
		"import sys, xml.etree.ElementTree as E\n"
		"r = E.parse(sys.argv[1]).getroot(); s = r.find('testsuite')\n"
		"print('suite', *(s.get(k) for k in ('tests', 'failures', 'errors', 'skipped')))\n"
		"for c in s.iter('testcase'):\n"
		"    k = [e for e in c if e.tag in ('failure', 'error', 'skipped')]\n"
		"    p = c.find('properties/property[@name=\"expected\"]')\n"
		"    o = c.find('system-out')\n"
		"    a = [l for l in (o.text or '').splitlines() if l.startswith('[[ATTACHMENT|')] if o is not None else []\n"
		"    print('|'.join([c.get('classname'), c.get('name').split()[0], k[0].tag if k else 'pass',\n"
		"                    (k[0].get('type') or '') if k else '', (k[0].get('message') or '') if k else '',\n"
		"                    p.get('value') if p is not None else '', a[0] if a else '']))\n";
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "python3 -c \"$JUNIT_SCRIPT\" '%s'", path);
	setenv("JUNIT_SCRIPT", script, 1);
	FILE *p = popen(cmd, "r");  // NOLINT(cert-env33-c): the test runs python3 on the report it wrote, a fixed command
	cr_assert(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0, "python3 could not read %s: %s", path, out);
}

Test(writers, junit_expect_and_attachments)
{
	struct run_result rs[4];
	struct run_info info = {"eth0", "10.0.0.2", "10.0.0.9", "rc-pingpong:18515", "live", 0, 1.5, 1000,
				"/var/tmp/pcap & co", 1};
	struct expect_entry fail = {"A1", V_FAIL, "rxe resends <forever>"}, inc = {"A2", V_INCONCLUSIVE, "flaky"};
	char err[CONF_ERRLEN], dir[] = "/tmp/test_conformXXXXXX", path[256], got[4096];
	cr_assert(mkdtemp(dir));
	results_init(rs, 4);
	rs[0].r.v = V_FAIL;                 /* an expected deviation: xfail */
	expect_apply(&fail, &rs[0].r);
	rs[1].r.v = V_PASS;                 /* expected INCONCLUSIVE, passed: strict XPASS */
	expect_apply(&inc, &rs[1].r);
	rs[2].r.v = V_PASS;                 /* a pass with its pcapng */
	rs[2].pcap_written = true;
	rs[3].r.v = V_INCONCLUSIVE;
	snprintf(rs[3].r.reason, EVIDENCE_LEN, "the DUT sent nothing");
	cr_expect(rs[0].r.expected_deviation && !rs[0].r.unexpected_pass);
	cr_expect(rs[1].r.unexpected_pass && !rs[1].r.expected_deviation);
	cr_expect_eq(report_status(rs, 1), EXIT_CONF_PASS, "an expected deviation does not count");
	cr_expect_eq(report_status(rs, 3), EXIT_CONF_FAIL, "a strict XPASS counts as a failure");
	cr_expect_eq(report_status(rs + 2, 2), EXIT_CONF_INCONCLUSIVE);
	snprintf(path, sizeof(path), "%s/r.xml", dir);
	cr_assert_eq(report_junit(path, &info, rs, 4, err), 0, "%s", err);
	junit_parsed(path, got, sizeof(got));
	char want[2048];
	snprintf(want, sizeof(want),
		 "suite 4 1 1 1\n"
		 "roceconform.rc-pingpong.A|A1|skipped|xfail|expected: rxe resends <forever>|FAIL: rxe resends <forever>|\n"
		 "roceconform.rc-pingpong.A|A2|failure|XPASS(strict)|XPASS(strict): expected INCONCLUSIVE (flaky) but the test "
		 "passed: update the --expect file|INCONCLUSIVE: flaky|\n"
		 "roceconform.rc-pingpong.A|%s|pass||||[[ATTACHMENT|/var/tmp/pcap & co/%s.pcapng]]\n"
		 "roceconform.rc-pingpong.A|%s|error||the DUT sent nothing||\n",
		 conf_tests[2].id, conf_tests[2].id, conf_tests[3].id);
	cr_expect_str_eq(got, want);
	/* the JSON says the same */
	snprintf(path, sizeof(path), "%s/r.json", dir);
	cr_assert_eq(report_json(path, &info, rs, 4, err), 0, "%s", err);
	slurp(path, got, sizeof(got));
	cr_expect(strstr(got, "\"unexpected_pass\": true, \"expected_verdict\": \"INCONCLUSIVE\""), "%s", got);
	remove(path);
	snprintf(path, sizeof(path), "%s/r.xml", dir);
	remove(path);
	rmdir(dir);
}

/* ---- the core's builder additions roceconform uses ---- */

Test(core, icrc_recompute_and_errbuf)
{
	uint8_t f[2048], payload[64];
	char ebuf[ROCE_ERRBUF_SIZE] = "";
	struct roce_build b;
	struct roce_pkt p;
	memset(&b, 0, sizeof(b));
	memset(payload, 0x5a, sizeof(payload));
	b.src[0] = 10, b.src[3] = 1, b.dst[0] = 10, b.dst[3] = 2;
	b.h.bth.opcode = ROCE_OPC_SEND_ONLY;
	b.h.bth.pkey = 0xffff;
	b.payload = payload;
	b.payload_len = sizeof(payload);
	b.ip_id = 7;
	b.errbuf = ebuf;
	int n = roce_build_frame(&b, f, sizeof(f));
	cr_assert_gt(n, 0, "%s", ebuf);
	/* a covered byte changed: the ICRC no longer matches, until recomputed */
	f[n - 10] ^= 1;
	roce_decode(NULL, f, (uint32_t)n, (uint32_t)n, 1, &p);
	cr_expect_eq(p.icrc_status, ROCE_ICRC_BAD);
	cr_expect_geq(roce_icrc_recompute(f, (uint32_t)n, 1, false, ebuf), 0, "%s", ebuf);
	roce_decode(NULL, f, (uint32_t)n, (uint32_t)n, 1, &p);
	cr_expect_eq(p.icrc_status, ROCE_ICRC_GOOD);
	/* the IPv4 ID changed: the header checksum is fixed along */
	f[14 + 5] ^= 0x10;
	cr_expect_geq(roce_icrc_recompute(f, (uint32_t)n, 1, true, ebuf), 0, "%s", ebuf);
	roce_decode(NULL, f, (uint32_t)n, (uint32_t)n, 1, &p);
	cr_expect_eq(p.icrc_status, ROCE_ICRC_GOOD);
	cr_expect_eq(p.net.ip_csum, ROCE_CSUM_GOOD);
	/* not RoCE, or cut: refused with the reason */
	cr_expect_eq(roce_icrc_recompute(f, 30, 1, false, ebuf), ROCE_ERR_ARG);
	cr_expect(ebuf[0]);
	/* the builder says why it failed */
	ebuf[0] = 0;
	cr_expect_eq(roce_build_frame(&b, f, 40), ROCE_ERR_NOSPACE);
	cr_expect(strstr(ebuf, "does not fit"), "%s", ebuf);
	b.n_vlan = 9;
	cr_expect_eq(roce_build_frame(&b, f, sizeof(f)), ROCE_ERR_ARG);
	cr_expect(strstr(ebuf, "VLAN"), "%s", ebuf);
	cr_expect_eq(ROCE_OPC_CNP, 0x81);
	cr_expect_str_eq(roce_opcode_info(ROCE_OPC_UC | ROCE_OPC_SEND_ONLY)->name, "SEND_ONLY");
}

/* ---- the later groups: the DUT's own headers (H), CMP_SWAP (D6-D8), PMTU segments (M2), CNP counts
 * (F2), RoCEv1 framing (V1) ---- */

/* The header fields of the DUT's packets to the tester's QP in a recorded test. */
static size_t recorded_hdrs(const char *test, struct session *s, struct dut_hdr *hs, size_t max)
{
	load(s, test);
	return dut_hdrs_since(s, 0, hs, max);
}

/* rxe's ACKs and its own SEND in A1 (rc-pingpong) and E1: every header rule holds. */
Test(rules_h, headers_recorded)
{
	static const char *const tests[] = {"A1", "E1", "D1"};
	for (size_t t = 0; t < 3; t++) {
		struct session s;
		struct dut_hdr hs[64];
		size_t n = recorded_hdrs(tests[t], &s, hs, 64);
		cr_assert_geq(n, 1, "%s: DUT packets", tests[t]);
		for (int f = HDR_ECN; f <= HDR_SPORT; f++) {
			struct conf_result r = res();
			enum conf_verdict v = rule_dut_headers(hs, n, (enum hdr_field)f, false, &r);
			cr_expect_eq(v, n < 2 && f == HDR_SPORT ? V_INCONCLUSIVE : V_PASS, "%s field %d: %s (%s)", tests[t], f,
				     r.reason, r.observed);
		}
		sess_reset(&s);
	}
}

/* A DUT packet to QP qpn built with the given ECN, DF, UDP checksum and ports, taken into s. */
static void take_dut_frame(struct session *s, uint32_t psn, uint8_t ecn, bool df, bool csum, uint16_t sport,
			   uint16_t dport)
{
	struct roce_build b;
	uint8_t f[256];
	memset(&b, 0, sizeof(b));
	b.version = 2;
	b.ip_version = 4;
	memcpy(b.src, opts.dut.ip, 4);
	memcpy(b.dst, opts.local.ip, 4);
	b.tclass = ecn;
	b.dont_fragment = df;
	b.udp_checksum = csum;
	b.udp_sport = sport;
	b.udp_dport = dport;
	b.h.bth.opcode = ROCE_OPC_ACK;
	b.h.bth.dqpn = s->qp.my_qpn;
	b.h.bth.psn = psn;
	b.h.bth.pkey = 0xffff;
	b.h.aeth.msn = 1;
	int n = roce_build_frame(&b, f, sizeof(f));
	cr_assert_gt(n, 0);
	sess_take(s, f, (uint32_t)n, (uint32_t)n, psn);
}

static void hdr_session(struct session *s)
{
	base_opts();
	memset(s, 0, sizeof(*s));
	s->o = &opts;
	s->qp.my_qpn = 0x0c0011;
}

/* Broken DUTs, one field wrong on the second of two packets: each header test FAILs naming it. */
Test(rules_h, headers_broken)
{
	static const struct {
		enum hdr_field f;
		uint8_t ecn;
		bool df, csum;
		uint16_t sport, dport;
		const char *says;
	} cases[] = {
		{HDR_ECN, 2, true, false, 0xc001, 4791, "IP ECN 2"},
		{HDR_DF, 0, false, false, 0xc001, 4791, "IPv4 DF 0"},
		{HDR_UDP_CSUM, 0, true, true, 0xc001, 4791, "UDP checksum"},
		{HDR_DPORT, 0, true, false, 0xc001, 4792, "UDP destination port 4792"},
		{HDR_SPORT, 0, true, false, 0xc002, 4791, "UDP source port changed to 49154"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct session s;
		struct dut_hdr hs[4];
		hdr_session(&s);
		take_dut_frame(&s, 1, 0, true, false, 0xc001, 4791);
		take_dut_frame(&s, 2, cases[i].ecn, cases[i].df, cases[i].csum, cases[i].sport, cases[i].dport);
		size_t n = dut_hdrs_since(&s, 0, hs, 4);
		cr_assert_eq(n, 2, "case %zu: both packets seen (port 4792 too)", i);
		struct conf_result r = res();
		cr_expect_eq(rule_dut_headers(hs, n, cases[i].f, false, &r), V_FAIL, "case %zu: %s", i, r.reason);
		cr_expect(strstr(r.reason, "packet 2 of 2") && strstr(r.reason, cases[i].says), "case %zu: %s", i, r.reason);
		r = res();
		cr_expect_eq(rule_dut_headers(hs, 1, cases[i].f, false, &r), cases[i].f == HDR_SPORT ? V_INCONCLUSIVE : V_PASS,
			     "case %zu: the first packet alone is right: %s", i, r.reason);
		sess_reset(&s);
	}
	/* ECN: ECT(0) from a DUT declared to do congestion management is fine; CE never is */
	struct session s;
	struct dut_hdr hs[4];
	hdr_session(&s);
	take_dut_frame(&s, 1, 2, true, false, 0xc001, 4791);
	take_dut_frame(&s, 2, 3, true, false, 0xc001, 4791);
	struct conf_result r = res();
	cr_expect_eq(rule_dut_headers(hs, dut_hdrs_since(&s, 0, hs, 4), HDR_ECN, true, &r), V_FAIL, "CE: %s", r.reason);
	r = res();
	cr_expect_eq(rule_dut_headers(hs, 1, HDR_ECN, true, &r), V_PASS, "ECT(0), declared: %s", r.reason);
	r = res();
	cr_expect_eq(rule_dut_headers(hs, 0, HDR_DF, false, &r), V_INCONCLUSIVE, "nothing from the DUT");
	hs[0].ip_version = 6;
	r = res();
	cr_expect_eq(rule_dut_headers(hs, 1, HDR_DF, false, &r), V_NA, "IPv6 has no DF");
	sess_reset(&s);
}

/* An ATOMIC_ACK with PSN psn and original value orig. */
static struct resp atomic_ack_of(uint32_t psn, uint64_t orig)
{
	struct resp a = {.response = true, .icrc_status = ROCE_ICRC_GOOD};
	a.h.bth.opcode = ROCE_OPC_ATOMIC_ACK;
	a.h.bth.psn = psn;
	a.h.hdrs = ROCE_HDR_AETH | ROCE_HDR_ATOMICACKETH;
	a.h.atomicacketh.orig = orig;
	return a;
}

/* D6/D7 on made-up answers: the right DUT passes both outcomes; one that does not swap, swaps on
 * unequal, or returns the new value fails. */
Test(rules_h, cmp_swap)
{
	const uint32_t psn[3] = {10, 11, 12};
	const uint64_t v = 0x1234, swap = 0xbeef;
	static const struct {
		uint64_t cmp, got, back;
		enum conf_verdict want;
		const char *what;
	} cases[] = {
		{0x1234, 0x1234, 0xbeef, V_PASS, "equal, swapped"},
		{0x1235, 0x1234, 0x1234, V_PASS, "unequal, unchanged"},
		{0x1234, 0x1234, 0x1234, V_FAIL, "equal, not swapped"},
		{0x1235, 0x1234, 0xbeef, V_FAIL, "unequal, swapped"},
		{0x1234, 0xbeef, 0xbeef, V_FAIL, "returned the new value"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resp rs[3] = {atomic_ack_of(10, v), atomic_ack_of(11, cases[i].got), atomic_ack_of(12, cases[i].back)};
		struct conf_result r = res();
		cr_expect_eq(rule_cmp_swap(rs, 3, psn, cases[i].cmp, swap, true, &r), cases[i].want, "%s: %s", cases[i].what,
			     r.reason);
		r = res();
		cr_expect_eq(rule_cmp_swap(rs, 2, psn, cases[i].cmp, swap, true, &r), V_FAIL, "%s: read-back missing",
			     cases[i].what);
	}
	struct resp nak = atomic_ack_of(11, 0);
	nak.h.bth.opcode = ROCE_OPC_ACK;
	nak.h.aeth.syndrome = 0x61;
	struct conf_result r = res();
	cr_expect_eq(rule_cmp_swap(&nak, 1, psn, 1, 2, true, &r), V_FAIL, "NAKed");
	r = res();
	cr_expect_eq(rule_cmp_swap(NULL, 0, psn, 1, 2, false, &r), V_INCONCLUSIVE);
	/* D8: a duplicate CMP_SWAP executed twice returns the swapped value */
	struct resp dup[2] = {atomic_ack_of(11, v), atomic_ack_of(11, v)};
	r = res();
	cr_expect_eq(rule_dup_atomic(dup, 2, 11, true, &r), V_PASS, "%s", r.reason);
	dup[1].h.atomicacketh.orig = swap;
	r = res();
	cr_expect_eq(rule_dup_atomic(dup, 2, 11, true, &r), V_FAIL);
	cr_expect(strstr(r.reason, "executed twice"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_dup_atomic(dup, 1, 11, true, &r), V_FAIL, "the duplicate not answered");
}

/* M2 on rxe's recorded 3 x 1024 READ (D1): PASS at PMTU 1024; a DUT that segments at 1024 on a QP at
 * 256 (one ONLY... or 1024-byte packets) FAILs, and so does one with uneven packets of the right sum. */
Test(rules_h, read_segments)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "D1");
	const struct resp *f = first_response(&s);
	cr_assert(f);
	uint32_t psn = f->h.bth.psn;
	cr_expect_eq(rule_read_segments(f, 3, psn, 3, 1024, true, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_read_segments(f, 3, psn, 3, 256, true, &r), V_FAIL, "1024-byte packets at PMTU 256");
	struct resp uneven[3] = {f[0], f[1], f[2]};
	uneven[0].payload_len = 1000;
	uneven[1].payload_len = 1048;
	r = res();
	cr_expect_eq(rule_read_segments(uneven, 3, psn, 3, 1024, true, &r), V_FAIL, "uneven packets");
	cr_expect(strstr(r.reason, "response 1 carries 1000 bytes at PMTU 1024"), "%s", r.reason);
	sess_reset(&s);
}

/* F2 on made-up answers: 1..marks CNPs pass with a note of how many; none, or more than marks, fail. */
Test(rules_h, cnp_marks)
{
	struct resp cnps[9];
	for (int i = 0; i < 9; i++) {
		memset(&cnps[i], 0, sizeof(cnps[i]));
		cnps[i].ts_ns = (int64_t)1000000 * (i + 1);
		cnps[i].icrc_status = ROCE_ICRC_GOOD;
		cnps[i].h.bth.opcode = ROCE_OPC_CNP;
		cnps[i].h.bth.becn = 1;
		cnps[i].h.bth.pkey = 0xffff;
		cnps[i].h.bth.dqpn = 0x0c0042;
	}
	struct conf_result r = res();
	cr_expect_eq(rule_cnp_marks(cnps, 1, NULL, 0, 8, 0x0c0042, 0xffff, true, 0, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.reason, "1 CNP for 8 marked packets"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_cnp_marks(cnps, 8, NULL, 0, 8, 0x0c0042, 0xffff, true, 0, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.reason, "8 CNPs for 8 marked packets over 7.000 ms"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_cnp_marks(cnps, 9, NULL, 0, 8, 0x0c0042, 0xffff, true, 0, &r), V_FAIL);
	cr_expect(strstr(r.reason, "9 CNPs for 8 marked packets"), "%s", r.reason);
	cnps[0].h.bth.psn = 5;
	r = res();
	cr_expect_eq(rule_cnp_marks(cnps, 1, NULL, 0, 8, 0x0c0042, 0xffff, true, 0, &r), V_FAIL, "the format checked");
	r = res();
	cr_expect_eq(rule_cnp_marks(NULL, 0, NULL, 0, 8, 0x0c0042, 0xffff, true, 0, &r), V_FAIL, "no CNP");
}

/* V1's stimulus in a dry run: EtherType 0x8915, a GRH (version 6, next header 0x1b) with the tester's
 * GID and the DUT QP's, and the same BTH a RoCEv2 probe would carry. */
Test(stimuli, rocev1_frame)
{
	struct session s;
	dry_run_one("rc-pingpong", "V1", &s);
	cr_assert_geq(s.n_frames, 1);
	const struct rec_frame *f = &s.frames[0];
	cr_assert(f->has_stim && f->stim.rocev1);
	cr_expect_eq(f->bytes[12] << 8 | f->bytes[13], 0x8915, "EtherType");
	cr_expect_eq(f->bytes[14] >> 4, 6, "GRH IPVer");
	cr_expect_eq(f->bytes[14 + 6], 0x1b, "GRH NxtHdr");
	static const uint8_t sgid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 50};
	cr_expect(!memcmp(f->bytes + 14 + 8, sgid, 16), "SGID: the tester's address, IPv4-mapped");
	cr_expect(!memcmp(f->bytes + 14 + 24, s.qp.dut_gid, 16), "DGID: the DUT QP's GID");
	struct roce_pkt p;
	cr_assert_eq(roce_decode(NULL, f->bytes, f->len, f->len, 1, &p), 1);
	cr_expect_eq(p.version, 1);
	cr_expect_eq(p.h.bth.opcode, ROCE_OPC_SEND_ONLY);
	cr_expect_eq(p.h.bth.dqpn, s.qp.dut_qpn);
	cr_expect_eq(p.icrc_status, ROCE_ICRC_GOOD);
	sess_reset(&s);
}

/* The ATOMIC_ACKs of a recorded test, in order (at most 3). */
static size_t recorded_atomic_acks(const struct session *s, const struct resp **a, uint32_t psn[3])
{
	size_t k = 0;
	for (size_t i = 0; i < s->n_resps && k < 3; i++)
		if (s->resps[i].h.bth.opcode == ROCE_OPC_ATOMIC_ACK) {
			a[k] = &s->resps[i];
			psn[k++] = s->resps[i].h.bth.psn;
		}
	return k;
}

/* D6/D7 on rxe's recorded answers (perftest-atomic): each passes with the compare value it was sent
 * with; judged as if the other compare had been sent, the same answers fail (rxe's memory did what
 * the sent compare asked, not the other). */
Test(rules_h, cmp_swap_recorded)
{
	static const char *const tests[] = {"D6", "D7"};
	for (int t = 0; t < 2; t++) {
		struct session s;
		const struct resp *a[3];
		uint32_t psn[3];
		load(&s, tests[t]);
		cr_assert_eq(recorded_atomic_acks(&s, a, psn), 3, "%s: three ATOMIC_ACKs", tests[t]);
		uint64_t v = a[0]->h.atomicacketh.orig, swap = v ^ 0x5a5a5a5a00c0ffeeULL;
		uint64_t cmp = t == 0 ? v : v + 1, other = t == 0 ? v + 1 : v;
		struct conf_result r = res();
		cr_expect_eq(rule_cmp_swap(s.resps, s.n_resps, psn, cmp, swap, true, &r), V_PASS, "%s: %s", tests[t], r.reason);
		cr_expect(strstr(r.observed, "orig 0x"), "the values read are in the evidence: %s", r.observed);
		r = res();
		cr_expect_eq(rule_cmp_swap(s.resps, s.n_resps, psn, other, swap, true, &r), V_FAIL, "%s judged with the other "
			     "compare", tests[t]);
		sess_reset(&s);
	}
}

/* M2a on rxe's recorded READ at PMTU 256: three 256-byte packets; at another PMTU, a FAIL. */
Test(rules_h, read_segments_recorded)
{
	struct session s;
	load(&s, "M2a");
	const struct resp *f = first_response(&s);
	cr_assert(f);
	struct conf_result r = res();
	cr_expect_eq(rule_read_segments(f, 3, f->h.bth.psn, 3, 256, true, &r), V_PASS, "%s", r.reason);
	r = res();
	cr_expect_eq(rule_read_segments(f, 3, f->h.bth.psn, 3, 1024, true, &r), V_FAIL, "not at PMTU 1024");
	sess_reset(&s);
}

/* The DUT's QPN in a recorded test: the destination QP of the tester's packets to the DUT. */
static uint32_t recorded_dut_qpn(const struct session *s)
{
	for (size_t i = 0; i < s->n_frames; i++) {
		struct roce_pkt p;
		if (roce_decode(NULL, s->frames[i].bytes, s->frames[i].len, s->frames[i].len, 1, &p) == 1 && p.version == 2 &&
		    !memcmp(s->frames[i].bytes + p.net.addr_off + 4, opts.dut.ip, 4))
			return p.h.bth.dqpn;
	}
	return 0;
}

/* H6 on rxe's recorded QPs (A1, E1, D1: three QPs, three source ports): PASS; note_qp_port keeps
 * each QP once. */
Test(rules_h, sport_spread_recorded)
{
	static const char *const tests[] = {"A1", "E1", "D1", "A1"};
	struct qp_port qs[4];
	for (size_t t = 0; t < 4; t++) {
		struct session s;
		struct dut_hdr h;
		load(&s, tests[t]);
		s.qp.dut_qpn = recorded_dut_qpn(&s);
		cr_assert(s.qp.dut_qpn, "%s: the DUT's QPN", tests[t]);
		cr_assert_eq(dut_hdrs_since(&s, 0, &h, 1), 1, "%s", tests[t]);
		qs[t] = (struct qp_port){s.qp.dut_qpn, h.sport, tests[t]};
		sess_reset(&s);
	}
	struct conf_result r = res();
	cr_expect_eq(rule_sport_spread(qs, 3, &r), V_PASS, "%s (%s)", r.reason, r.observed);
	cr_expect(strstr(r.reason, "3 source ports for 3 QPs"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_sport_spread(qs, 1, &r), V_INCONCLUSIVE, "one QP");
	cr_expect(strstr(r.reason, "one DUT QP seen"), "%s", r.reason);
	struct qp_port same[2] = {qs[0], qs[3]};   /* the same QP twice proves nothing */
	r = res();
	cr_expect_eq(rule_sport_spread(same, 2, &r), V_INCONCLUSIVE, "one QPN twice: %s", r.reason);
	r = res();
	cr_expect_eq(rule_sport_spread(NULL, 0, &r), V_INCONCLUSIVE);
}

/* A broken DUT: every QP on one source port -> H6 FAILs naming the port; two of three sharing a
 * port (a hash collision) still PASS. */
Test(rules_h, sport_spread_broken)
{
	struct qp_port qs[3] = {{0x11, 0xc000, "A1"}, {0x12, 0xc000, "A2"}, {0x13, 0xc000, "A3"}};
	struct conf_result r = res();
	cr_expect_eq(rule_sport_spread(qs, 3, &r), V_FAIL);
	cr_expect(strstr(r.reason, "all 3 QPs used UDP source port 49152"), "%s", r.reason);
	cr_expect(strstr(r.observed, "A2 0x000012:49152"), "%s", r.observed);
	qs[2].sport = 0xc001;
	r = res();
	cr_expect_eq(rule_sport_spread(qs, 3, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.reason, "2 source ports for 3 QPs"), "%s", r.reason);
}

/* G1's verdict on rxe's recorded resends (E1: the SEND resent on every ACK timeout): seen during
 * the PAUSE, a DUT that ignores PFC (or a PAUSE a bridge never delivered): FAIL, the reason naming
 * the direct link; seen after XON only: PASS; nothing after XON: INCONCLUSIVE. */
Test(rules_h, pfc_recorded)
{
	struct session s;
	load(&s, "E1");
	const struct resp *req = first_request(&s);
	cr_assert(req);
	size_t n = s.n_resps - (size_t)(req - s.resps);
	struct conf_result r = res();
	cr_expect_eq(rule_pfc(req, n, req, n, 3, 335, &r), V_FAIL);
	cr_expect(strstr(r.reason, "direct link") && strstr(r.reason, "priority 3"), "%s", r.reason);
	cr_expect(strstr(r.observed, "SEND"), "the packets named: %s", r.observed);
	r = res();
	cr_expect_eq(rule_pfc(NULL, 0, req, n, 3, 335, &r), V_PASS, "%s", r.reason);
	cr_expect(strstr(r.observed, "a request after XON"), "%s", r.observed);
	r = res();
	cr_expect_eq(rule_pfc(NULL, 0, NULL, 0, 3, 335, &r), V_INCONCLUSIVE);
	sess_reset(&s);
}

/* G1's refreshes follow the link speed, outside --pps: every half PAUSE (65535 quanta of 512 bit
 * times), 167.8 us at 100 Gb/s, faster than the 1,000/s default pacing would allow. */
Test(rules_h, pfc_refresh_from_link_speed)
{
	cr_expect_float_eq(pfc_refresh_us(100000), 167.77, 0.01);
	cr_expect_float_eq(pfc_refresh_us(10000), 1677.7, 0.1);
	cr_expect_float_eq(pfc_refresh_us(400000), 41.94, 0.01);
	cr_expect_eq(pfc_refresh_us(0), 0);
	cr_expect_lt(pfc_refresh_us(25000), 1e6 / CONF_DEFAULT_PPS, "above ~17 Gb/s the refresh outpaces --pps");
}

/* M3: its stimulus is one WRITE_ONLY of PMTU + 4 bytes with DMALen PMTU + 4 at each PMTU. */
Test(stimuli, m3_longer_than_pmtu)
{
	static const char *const ids[] = {"M3a", "M3b", "M3c", "M3d", "M3e"};
	static const unsigned pmtus[] = {256, 512, 1024, 2048, 4096};
	for (size_t i = 0; i < 5; i++) {
		struct session s;
		dry_run_one("perftest-write", ids[i], &s);
		size_t k = 0;
		for (size_t j = 0; j < s.n_frames; j++)
			if (s.frames[j].has_stim) {
				const struct stim *st = &s.frames[j].stim;
				k++;
				cr_expect_eq(st->opcode, ROCE_OPC_WRITE_ONLY, "%s", ids[i]);
				cr_expect_eq(st->payload_len, pmtus[i] + 4, "%s", ids[i]);
				cr_expect_eq(st->extra.reth.dmalen, pmtus[i] + 4, "%s", ids[i]);
			}
		cr_expect_eq(k, 1, "%s: one packet", ids[i]);
		sess_reset(&s);
	}
}

/* M3a on rxe's recorded answer (a WRITE_ONLY of 260 bytes at PMTU 256): NAK invalid request, PASS;
 * a broken DUT that takes the packet (an ACK of its PSN, as rxe 6.1 does for B6a's SEND_ONLY): FAIL. */
Test(rules_h, longer_than_pmtu_recorded)
{
	struct session s;
	load(&s, "M3a");
	const struct resp *n = first_response(&s);
	cr_assert(n && resp_is_nak(n, ROCE_NAK_INVALID_REQUEST), "rxe's NAK invalid request");
	uint32_t psn = n->h.bth.psn;
	struct conf_result r = res();
	cr_expect_eq(rule_nak(s.resps, s.n_resps, 1u << ROCE_NAK_INVALID_REQUEST, psn, psn, (long)psn_add(psn, -1), true,
			      &r), V_PASS, "%s", r.reason);
	struct resp ack = *n;
	ack.h.aeth.syndrome = 0x1f;   /* an ACK (credit count 31) of the packet longer than the PMTU */
	r = res();
	cr_expect_eq(rule_nak(&ack, 1, 1u << ROCE_NAK_INVALID_REQUEST, psn, psn, (long)psn_add(psn, -1), true, &r), V_FAIL,
		     "accepted: %s", r.reason);
	r = res();
	cr_expect_eq(rule_nak(NULL, 0, 1u << ROCE_NAK_INVALID_REQUEST, psn, psn, (long)psn_add(psn, -1), true, &r), V_FAIL,
		     "silence from a live DUT: %s", r.reason);
	sess_reset(&s);
}

/* B12 on rxe's recorded answer (CMP_SWAP at VA + 4): a NAK invalid request or remote access error,
 * PASS; a broken DUT that executes it (an ATOMIC_ACK of its PSN): FAIL. */
Test(rules_h, cmp_swap_misaligned_recorded)
{
	struct session s;
	load(&s, "B12");
	const struct resp *n = first_response(&s);
	unsigned codes = 1u << ROCE_NAK_INVALID_REQUEST | 1u << ROCE_NAK_REMOTE_ACCESS;
	cr_assert(n && (resp_is_nak(n, ROCE_NAK_INVALID_REQUEST) || resp_is_nak(n, ROCE_NAK_REMOTE_ACCESS)), "rxe's NAK");
	uint32_t psn = n->h.bth.psn;
	struct conf_result r = res();
	cr_expect_eq(rule_nak(s.resps, s.n_resps, codes, psn, psn, (long)psn_add(psn, -1), true, &r), V_PASS, "%s",
		     r.reason);
	struct resp done = atomic_ack_of(psn, 0x1122334455667788ULL);
	r = res();
	cr_expect_eq(rule_nak(&done, 1, codes, psn, psn, (long)psn_add(psn, -1), true, &r), V_FAIL, "executed: %s",
		     r.reason);
	sess_reset(&s);
}

/* ---- answers not seen (r.missing): what roceconform runs again (main.c rerun()) ---- */

/* An ACK, NAK or RNR NAK (syndrome) with PSN psn and MSN msn. */
static struct resp aeth_of(uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct resp a = uc_resp(ROCE_OPC_ACK, psn, 0);
	a.h.hdrs = ROCE_HDR_AETH;
	a.h.aeth.syndrome = syndrome;
	a.h.aeth.msn = msn;
	return a;
}

/* The FAIL of an answer due and not seen, every answer seen right, is marked missing; a FAIL on a
 * wrong answer is not; a verdict set after clears the mark. */
Test(missing, made_up_answers)
{
	struct resp older = aeth_of(9, 0x1f, 1), ahead = aeth_of(11, 0x1f, 2), wrong_msn = aeth_of(10, 0x1f, 7);
	struct resp nak = aeth_of(10, 0x60, 1), ack = aeth_of(10, 0x1f, 2);
	struct conf_result r = res();
	cr_expect_eq(rule_ack(NULL, 0, 10, 10, 2, true, &r), V_FAIL);
	cr_expect(r.missing, "no answer from a live DUT: %s", r.reason);
	r = res();
	cr_expect_eq(rule_ack(&older, 1, 10, 10, 2, true, &r), V_FAIL);
	cr_expect(r.missing, "an ACK of an earlier PSN only: the one due not seen");
	r = res();
	cr_expect_eq(rule_ack(&ahead, 1, 10, 10, 2, true, &r), V_FAIL);
	cr_expect(!r.missing, "an ACK of another PSN is wrong, not missing");
	r = res();
	cr_expect_eq(rule_ack(&wrong_msn, 1, 10, 10, 2, true, &r), V_FAIL);
	cr_expect(!r.missing, "a wrong MSN");
	r = res();
	cr_expect_eq(rule_ack(&nak, 1, 10, 10, 2, true, &r), V_FAIL);
	cr_expect(!r.missing, "a NAK");
	r = res();
	cr_expect_eq(rule_nak(NULL, 0, 1u << ROCE_NAK_PSN_SEQ_ERR, 10, 10, 9, true, &r), V_FAIL);
	cr_expect(r.missing, "no NAK from a live DUT");
	r = res();
	cr_expect_eq(rule_nak(&ack, 1, 1u << ROCE_NAK_PSN_SEQ_ERR, 10, 10, 9, true, &r), V_FAIL);
	cr_expect(!r.missing, "an ACK past what may be acknowledged where a NAK is due");
	r = res();
	cr_expect_eq(rule_acks_ordered(&older, 1, 10, -1, true, &r), V_FAIL);
	cr_expect(r.missing && strstr(r.reason, "0x00000a"), "the last ACK not seen: %s", r.reason);
	struct resp back[2] = {ack, older};
	r = res();
	cr_expect_eq(rule_acks_ordered(back, 2, 10, -1, true, &r), V_FAIL);
	cr_expect(!r.missing, "backwards");
	r = res();
	cr_expect_eq(rule_acks_ordered(&wrong_msn, 1, 10, 2, true, &r), V_FAIL);
	cr_expect(!r.missing, "the last ACK with a wrong MSN");
	/* atomics: one ACK of two at the same PSN; a read-back not seen; a wrong value */
	const uint32_t psn[3] = {10, 11, 12};
	struct resp at[3] = {atomic_ack_of(10, 5), atomic_ack_of(11, 5), atomic_ack_of(12, 6)};
	r = res();
	cr_expect_eq(rule_dup_atomic(at + 1, 1, 11, true, &r), V_FAIL);
	cr_expect(r.missing && strstr(r.reason, "one ATOMIC_ACK with PSN 0x00000b"), "%s", r.reason);
	r = res();
	cr_expect_eq(rule_cmp_swap(at, 2, psn, 5, 6, true, &r), V_FAIL);
	cr_expect(r.missing, "the read-back's ATOMIC_ACK not seen: %s", r.reason);
	at[2].h.atomicacketh.orig = 5;
	r = res();
	cr_expect_eq(rule_cmp_swap(at, 3, psn, 5, 6, true, &r), V_FAIL);
	cr_expect(!r.missing, "not swapped: wrong");
	v_missing(&r, "x");
	cr_expect(r.missing && r.v == V_FAIL);
	v_set(&r, V_INCONCLUSIVE, "later");
	cr_expect(!r.missing, "v_set clears the mark");
}

/* READ responses: a packet not seen, at the end or in the middle (each one seen right at its
 * PSN), is missing; a packet out of its place, a wrong opcode, one too many are wrong. */
Test(missing, read_responses)
{
	struct session s;
	load(&s, "D1");
	const struct resp *f = first_response(&s);
	cr_assert(f);
	uint32_t p = f->h.bth.psn;
	struct resp gap[2] = {f[0], f[2]}, swapped[3] = {f[0], f[2], f[1]}, extra[4] = {f[0], f[1], f[2], f[2]};
	struct conf_result r = res();
	cr_expect_eq(rule_read_response(f, 2, p, 0, 3, 3072, true, &r), V_FAIL);
	cr_expect(r.missing && strstr(r.reason, "2 of 3"), "LAST not seen: %s", r.reason);
	r = res();
	cr_expect_eq(rule_read_response(gap, 2, p, 0, 3, 3072, true, &r), V_FAIL);
	cr_expect(r.missing, "MIDDLE not seen: %s", r.reason);
	r = res();
	cr_expect_eq(rule_read_response(swapped, 3, p, 0, 3, 3072, true, &r), V_FAIL);
	cr_expect(!r.missing, "out of order: %s", r.reason);
	r = res();
	cr_expect_eq(rule_read_response(extra, 4, p, 0, 3, 3072, true, &r), V_FAIL);
	cr_expect(!r.missing, "one too many: %s", r.reason);
	r = res();
	cr_expect_eq(rule_read_response(f + 1, 2, psn_add(p, 1), 0, 3, 3072, true, &r), V_FAIL);
	cr_expect(!r.missing, "FIRST not seen but MIDDLE at the first place: wrong (%s)", r.reason);
	sess_reset(&s);
}

/* The answers of Soft-RoCE with 2 % of its packets dropped on its way out (netem in the guest;
 * data/conform/lossy/, roceconform's own pcapng files of those runs): each FAIL is one that rests
 * on an answer not seen, the DUT's counters showing it sent them. */
Test(missing, lossy_recorded)
{
	struct session s;
	struct conf_result r = res();
	load(&s, "lossy/A7");  /* the wrap: the ACKs of 0xfffffe and 0xffffff, not 0x000000's */
	cr_expect_eq(rule_acks_ordered(s.resps, s.n_resps, 0x000000, 3, true, &r), V_FAIL);
	cr_expect(r.missing && strstr(r.reason, "0xffffff"), "%s", r.reason);
	sess_reset(&s);
	load(&s, "lossy/D1");  /* FIRST and MIDDLE, no LAST */
	const struct resp *f = first_response(&s);
	cr_assert(f);
	r = res();
	cr_expect_eq(rule_read_response(s.resps, s.n_resps, f->h.bth.psn, 0, 3, 3072, true, &r), V_FAIL);
	cr_expect(r.missing, "%s", r.reason);
	sess_reset(&s);
	load(&s, "lossy/M2a");  /* 3 x 256: FIRST and LAST, no MIDDLE */
	f = first_response(&s);
	cr_assert(f);
	r = res();
	cr_expect_eq(rule_read_segments(s.resps, s.n_resps, f->h.bth.psn, 3, 256, true, &r), V_FAIL);
	cr_expect(r.missing && strstr(r.reason, "2 of 3"), "%s", r.reason);
	sess_reset(&s);
	load(&s, "lossy/D7");  /* FETCH_ADD, CMP_SWAP answered; the read-back's ATOMIC_ACK not seen */
	const struct resp *a[3];
	uint32_t psn[3];
	size_t n = recorded_atomic_acks(&s, a, psn);
	cr_assert_eq(n, 2, "two ATOMIC_ACKs of three");
	psn[2] = psn_add(psn[1], 1);
	r = res();
	cr_expect_eq(rule_cmp_swap(s.resps, s.n_resps, psn, 0, 1, true, &r), V_FAIL);
	cr_expect(r.missing, "%s", r.reason);
	sess_reset(&s);
	load(&s, "lossy/D8");  /* a CMP_SWAP and its duplicate 1.5 s later: one ATOMIC_ACK */
	n = recorded_atomic_acks(&s, a, psn);
	cr_assert_eq(n, 2, "the FETCH_ADD's and one CMP_SWAP's");
	r = res();
	cr_expect_eq(rule_dup_atomic(s.resps, s.n_resps, psn[1], true, &r), V_FAIL);
	cr_expect(r.missing && strstr(r.reason, "one ATOMIC_ACK"), "%s", r.reason);
	sess_reset(&s);
}

/* A test run again after a FAIL on an answer not seen: the JSON (read back by python3's json) has
 * its first run's verdict, evidence, counters and pcapng beside the final verdict; the JUnit file
 * (read back by xml.etree) attaches both pcapng files; the table shows the first run. */
Test(missing, reports_of_a_rerun)
{
	struct run_result rs[1];
	struct agent ag = {.on = true};
	struct agent_delta first_c[1] = {{"rdma:sent_pkts", 3}}, c[1] = {{"rdma:sent_pkts", 3}};
	struct run_info info = {"eth0", "10.0.0.2", "10.0.0.9", "perftest-read", "live", 0, 1.5, 1000, "/var/tmp/p", 1,
				&ag, "root@dut"};
	char err[CONF_ERRLEN], dir[] = "/tmp/test_conformXXXXXX", path[256], got[8192], cmd[512];
	cr_assert(mkdtemp(dir));
	results_init(rs, 1);
	rs[0].rerun = true;
	rs[0].first = res();
	rs[0].first.v = V_FAIL;
	rs[0].first.missing = true;
	snprintf(rs[0].first.reason, EVIDENCE_LEN, "2 of 3 response packets");
	snprintf(rs[0].first.observed, EVIDENCE_LEN, "READ_RESPONSE_FIRST; READ_RESPONSE_MIDDLE");
	rs[0].first_counters = first_c;
	rs[0].n_first_counters = 1;
	rs[0].first_counters_read = rs[0].first_pcap_written = rs[0].pcap_written = true;
	rs[0].first_seconds = 0.25;
	rs[0].counters = c;
	rs[0].n_counters = 1;
	rs[0].counters_read = true;
	v_set(&rs[0].r, V_INCONCLUSIVE, "the first run FAILed on an answer not seen (2 of 3 response packets)");
	char first_pcap[256];
	report_pcap_path(first_pcap, sizeof(first_pcap), "/var/tmp/p", "D1", 2, 3, true);
	cr_expect_str_eq(first_pcap, "/var/tmp/p/D1-2.first.pcapng");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	cr_assert_eq(report_json(path, &info, rs, 1, err), 0, "%s", err);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[\"results\"][0]; f=r[\"first_run\"]; "
		 "print(r[\"verdict\"], f[\"verdict\"], f[\"reason\"], f[\"counters\"], f[\"pcap\"], f[\"seconds\"], "
		 "\"answer_not_seen\" in r)' '%s'", path);
	FILE *py = popen(cmd, "r");  // NOLINT(cert-env33-c): the test runs python3 on the report it wrote
	cr_assert(py);
	size_t n = fread(got, 1, sizeof(got) - 1, py);
	got[n] = 0;
	cr_assert_eq(pclose(py), 0, "%s", got);
	snprintf(cmd, sizeof(cmd), "INCONCLUSIVE FAIL 2 of 3 response packets {'rdma:sent_pkts': 3} /var/tmp/p/%s.first.pcapng "
		 "0.25 False\n", conf_tests[0].id);
	cr_expect_str_eq(got, cmd);
	snprintf(path, sizeof(path), "%s/r.xml", dir);
	cr_assert_eq(report_junit(path, &info, rs, 1, err), 0, "%s", err);
	junit_parsed(path, got, sizeof(got));
	cr_expect(strstr(got, "|error|"), "%s", got);
	slurp(path, got, sizeof(got));
	cr_expect(strstr(got, "first run (answers not seen, run again): FAIL\n  reason: 2 of 3 response packets"), "%s", got);
	snprintf(cmd, sizeof(cmd), "[[ATTACHMENT|/var/tmp/p/%s.first.pcapng]]", conf_tests[0].id);
	cr_expect(strstr(got, cmd), "%s", got);
	snprintf(cmd, sizeof(cmd), "[[ATTACHMENT|/var/tmp/p/%s.pcapng]]", conf_tests[0].id);
	cr_expect(strstr(got, cmd), "%s", got);
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	FILE *t = fopen(path, "w");
	cr_assert(t);
	report_table(t, rs, 1, false);
	fclose(t);
	slurp(path, got, sizeof(got));
	cr_expect(strstr(got, "first run: FAIL -- 2 of 3 response packets"), "%s", got);
	remove(path);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	remove(path);
	snprintf(path, sizeof(path), "%s/r.xml", dir);
	remove(path);
	rmdir(dir);
}

/* A DUT's facts hold what its tools print (a firmware version, a driver name): any byte. The JSON
 * and JUnit reports stay well formed and UTF-8, a byte that is not UTF-8 read back as the
 * character of its value, a control byte as itself in JSON and as U+FFFD in XML. */
Test(writers, dut_facts_of_any_bytes)
{
	struct run_result rs[1];
	struct agent ag = {.on = true, .n_facts = 1};
	snprintf(ag.facts[0].key, sizeof(ag.facts[0].key), "ibv.fw_ver");
	snprintf(ag.facts[0].value, sizeof(ag.facts[0].value), "16.\xff\x01\"<x>\xc3\xa9");
	struct run_info info = {"eth0", "10.0.0.2", "10.0.0.9", "rc-pingpong", "live", 0, 1.5, 1000, NULL, 1, &ag, "root@dut"};
	char err[CONF_ERRLEN], dir[] = "/tmp/test_conformXXXXXX", json[256], xml[256], cmd[1024], got[512];
	cr_assert(mkdtemp(dir));
	results_init(rs, 1);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	snprintf(xml, sizeof(xml), "%s/r.xml", dir);
	cr_assert_eq(report_json(json, &info, rs, 1, err), 0, "%s", err);
	cr_assert_eq(report_junit(xml, &info, rs, 1, err), 0, "%s", err);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json, sys, xml.etree.ElementTree as E\n"
		 "j = json.load(open(sys.argv[1], encoding=\"utf-8\"))[\"dut\"][\"ibv.fw_ver\"]\n"
		 "x = [p.get(\"value\") for p in E.parse(sys.argv[2]).iter(\"property\") if p.get(\"name\") == \"dut.ibv.fw_ver\"][0]\n"
		 "print(ascii(j), ascii(x))' '%s' '%s'", json, xml);
	FILE *py = popen(cmd, "r");  // NOLINT(cert-env33-c): the test runs python3 on the reports it wrote
	cr_assert(py);
	size_t n = fread(got, 1, sizeof(got) - 1, py);
	got[n] = 0;
	cr_assert_eq(pclose(py), 0, "the reports do not parse: %s", got);
	cr_expect_str_eq(got, "'16.\\xff\\x01\"<x>\\xe9' '16.\\xff\\ufffd\"<x>\\xe9'\n");
	remove(json);
	remove(xml);
	rmdir(dir);
}
