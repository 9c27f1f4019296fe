/* tests_b.c: catalogue group B, requests the responder must NAK (IBTA Vol 1 §9.7.5.2.2 opcode
 * sequence, §9.7.5.2.3 length and PMTU checks, §9.7.5.2.4 remote access (R_Key, VA, length,
 * access rights; IBA 1.4 p. 264), Table 38 reserved opcodes; NAK codes §9.7.5.1 Table 47).
 * B1-B6 need only a SEND responder; B7-B11 a buffer the DUT exposes (perftest setups). */
#include "tests.h"

#define INV (1u << ROCE_NAK_INVALID_REQUEST)
#define RACC (1u << ROCE_NAK_REMOTE_ACCESS)

/* n SEND packets of the given opcodes and payload sizes from ePSN, AckReq on the last. */
static unsigned sends(struct session *s, struct stim *sts, const uint8_t *ops, const uint32_t *lens, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		stim_init(s, &sts[i], ops[i]);
		sts[i].psn = psn_add(s->epsn, (int32_t)i);
		sts[i].payload_len = lens[i];
		sts[i].ackreq = i == n - 1;
	}
	return n;
}

static void nak_then_dead(struct session *s, const uint8_t *ops, const uint32_t *lens, unsigned n,
			  unsigned codes, const char *what, struct conf_result *r)
{
	struct stim sts[8];
	sends(s, sts, ops, lens, n);
	expect_nak(s, sts, n, codes, what, r);
	if (r->v == V_PASS)
		qp_killed(s);   /* a class C error: the responder's QP goes to the error state */
}

void test_b1a(struct session *s, struct conf_result *r)
{
	const uint8_t ops[] = {ROCE_OPC_SEND_MIDDLE};
	const uint32_t lens[] = {s->o->pmtu};
	nak_then_dead(s, ops, lens, 1, INV, "B1a: SEND_MIDDLE with no FIRST", r);
}

void test_b1b(struct session *s, struct conf_result *r)
{
	const uint8_t ops[] = {ROCE_OPC_SEND_LAST};
	const uint32_t lens[] = {64};
	nak_then_dead(s, ops, lens, 1, INV, "B1b: SEND_LAST with no FIRST", r);
}

void test_b2(struct session *s, struct conf_result *r)
{
	const uint8_t ops[] = {ROCE_OPC_SEND_FIRST, ROCE_OPC_SEND_ONLY};
	const uint32_t lens[] = {s->o->pmtu, 64};
	nak_then_dead(s, ops, lens, 2, INV, "B2: SEND_FIRST then SEND_ONLY (no LAST)", r);
}

/* RDMA requests to a QP that grants no remote access: NAK invalid request or remote access. */
static void no_access(struct session *s, uint8_t opcode, const char *what, struct conf_result *r)
{
	struct stim st;
	stim_init(s, &st, opcode);
	if (opcode == ROCE_OPC_FETCH_ADD) {
		st.extra.atomiceth.va = 0x10000;
		st.extra.atomiceth.rkey = 0x1234;
		st.extra.atomiceth.swap = 1;
	} else {
		st.extra.reth.va = 0x10000;
		st.extra.reth.rkey = 0x1234;
		st.extra.reth.dmalen = 64;
		st.payload_len = opcode == ROCE_OPC_WRITE_ONLY ? 64 : 0;
	}
	expect_nak(s, &st, 1, INV | RACC, what, r);
	if (r->v == V_PASS)
		qp_killed(s);
}

void test_b3a(struct session *s, struct conf_result *r) { no_access(s, ROCE_OPC_WRITE_ONLY, "B3a: RDMA WRITE without remote access", r); }
void test_b3b(struct session *s, struct conf_result *r) { no_access(s, ROCE_OPC_READ_REQUEST, "B3b: RDMA READ without remote access", r); }
void test_b3c(struct session *s, struct conf_result *r) { no_access(s, ROCE_OPC_FETCH_ADD, "B3c: FETCH_ADD without remote access", r); }

/* B4: a reserved RC opcode (0x1f) must be NAKed invalid request, not dropped. */
void test_b4(struct session *s, struct conf_result *r)
{
	struct stim st;
	stim_init(s, &st, 0x1f);
	st.hdrs_given = true;
	st.hdrs = 0;
	st.payload_len = 64;
	size_t m = s->n_resps;
	expect_nak(s, &st, 1, INV, "B4: reserved opcode 0x1f", r);
	if (r->v == V_PASS) {
		qp_killed(s);
		return;
	}
	bool answered = false;
	for (size_t i = m; i < s->n_resps; i++)
		answered |= s->resps[i].response;
	if (!answered) {
		/* silence: was it dropped with ePSN unchanged, or is the DUT gone? */
		struct conf_result c = {.measured_ms = -1};
		judge_silent(s, s->n_resps, &c);
		if (c.v == V_PASS)
			v_set(r, V_FAIL, "silently dropped (the control at ePSN + 1 after it was NAKed naming its PSN): the "
			      "spec asks for a NAK invalid request");
		else if (c.v == V_FAIL)
			v_set(r, V_FAIL, "no NAK invalid request; the control at ePSN + 1 after it: %s", c.reason);
		else
			v_set(r, V_INCONCLUSIVE, "no answer to it, nor to the control packet after it");
	}
}

/* B5: a SEND larger than the posted receive (recv_size + 1 bytes) -> NAK invalid request. */
void test_b5(struct session *s, struct conf_result *r)
{
	unsigned pmtu = s->o->pmtu, total = s->o->recv_size + 1, n = (total + pmtu - 1) / pmtu;
	uint8_t ops[8];
	uint32_t lens[8];
	if (n > 8) {
		v_set(r, V_NA, "--recv-size %u needs more than 8 packets at PMTU %u", s->o->recv_size, pmtu);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		ops[i] = n == 1 ? ROCE_OPC_SEND_ONLY : i == 0 ? ROCE_OPC_SEND_FIRST : i == n - 1 ? ROCE_OPC_SEND_LAST
												 : ROCE_OPC_SEND_MIDDLE;
		lens[i] = i == n - 1 ? total - pmtu * (n - 1) : pmtu;
	}
	nak_then_dead(s, ops, lens, n, INV, "B5: SEND one byte larger than the receive buffer", r);
}

void test_b6a(struct session *s, struct conf_result *r)
{
	const uint8_t ops[] = {ROCE_OPC_SEND_ONLY};
	const uint32_t lens[] = {s->o->pmtu + 4};
	nak_then_dead(s, ops, lens, 1, INV, "B6a: SEND_ONLY payload PMTU + 4", r);
}

void test_b6b(struct session *s, struct conf_result *r)
{
	const uint8_t ops[] = {ROCE_OPC_SEND_FIRST, ROCE_OPC_SEND_LAST};
	const uint32_t lens[] = {s->o->pmtu / 2, 16};
	nak_then_dead(s, ops, lens, 2, INV, "B6b: SEND_FIRST payload PMTU / 2", r);
}

void test_b6c(struct session *s, struct conf_result *r)
{
	const uint8_t ops[] = {ROCE_OPC_SEND_FIRST, ROCE_OPC_SEND_LAST};
	const uint32_t lens[] = {s->o->pmtu, 0};
	nak_then_dead(s, ops, lens, 2, INV, "B6c: SEND_LAST with no payload", r);
}

void test_b6d(struct session *s, struct conf_result *r)
{
	struct stim sts[2];
	const uint8_t ops[] = {ROCE_OPC_SEND_FIRST, ROCE_OPC_SEND_LAST};
	const uint32_t lens[] = {s->o->pmtu - 2, 16};
	sends(s, sts, ops, lens, 2);
	sts[0].padcnt = 2;             /* PMTU - 2 bytes + 2 pad bytes: PadCnt != 0 on a FIRST */
	sts[0].padcnt_as_given = true;
	expect_nak(s, sts, 2, INV, "B6d: SEND_FIRST with PadCnt 2", r);
	if (r->v == V_PASS)
		qp_killed(s);
}

/* ---- B7-B11: the DUT's buffer (perftest setups) ---- */

static void rdma(struct session *s, struct stim *st, uint8_t opcode, uint64_t va, uint32_t rkey, uint32_t len,
		 uint32_t payload)
{
	stim_init(s, st, opcode);
	st->extra.reth.va = va;
	st->extra.reth.rkey = rkey;
	st->extra.reth.dmalen = len;
	st->payload_len = payload;
}

/* The access the setup grants: WRITE when it can, else READ. */
static uint8_t access_op(const struct session *s)
{
	return s->qp.caps & NEED_MR_WRITE ? ROCE_OPC_WRITE_ONLY : ROCE_OPC_READ_REQUEST;
}

/* B7: WRITE_ONLY whose payload differs from RETH.DMALen -> NAK invalid request. */
void test_b7(struct session *s, struct conf_result *r)
{
	struct stim st;
	rdma(s, &st, ROCE_OPC_WRITE_ONLY, s->qp.va, s->qp.rkey, 64, 32);
	expect_nak(s, &st, 1, INV, "B7: WRITE_ONLY of 32 bytes with DMALen 64", r);
	if (r->v == V_PASS)
		qp_killed(s);
}

static void bad_access(struct session *s, uint64_t va, uint32_t rkey, uint32_t len, const char *what,
		       struct conf_result *r)
{
	struct stim st;
	uint8_t op = access_op(s);
	rdma(s, &st, op, va, rkey, len, op == ROCE_OPC_WRITE_ONLY ? len : 0);
	expect_nak(s, &st, 1, RACC, what, r);
	if (r->v == V_PASS)
		qp_killed(s);
}

void test_b8a(struct session *s, struct conf_result *r)
{
	bad_access(s, s->qp.va, s->qp.rkey ^ 0x00a5a500, 64, "B8a: a wrong R_Key", r);
}

void test_b8b(struct session *s, struct conf_result *r)
{
	bad_access(s, s->qp.va - 4096, s->qp.rkey, 64, "B8b: a VA before the buffer", r);
}

void test_b8c(struct session *s, struct conf_result *r)
{
	bad_access(s, s->qp.va + s->qp.mr_len - 32, s->qp.rkey, 64, "B8c: VA + length past the buffer's end", r);
}

/* B9: a 0-length access with a garbage R_Key is not checked: acknowledged. */
void test_b9(struct session *s, struct conf_result *r)
{
	struct stim st;
	uint8_t op = access_op(s);
	size_t m = s->n_resps;
	rdma(s, &st, op, 0xdead0000, 0xbadbad, 0, 0);
	sess_send(s, &st, "B9: 0-length %s with a garbage R_Key", roce_opcode_info(op)->name);
	sess_wait(s, WAIT_MS, pred_response, NULL);
	sess_collect(s, 50);
	rule_ack(since(s, m), n_since(s, m), st.psn, st.psn, -1, dut_alive(s, m, 500), r);
	if (r->v == V_PASS) {
		s->epsn = psn_add(s->epsn, 1);
		s->accepted++;
	}
}

/* B10: more READs outstanding than the responder's max_dest_rd_atomic (perftest advertises it as
 * out_reads): the spec's answer is NAK invalid request; Linux rxe recycles its resources. */
void test_b10(struct session *s, struct conf_result *r)
{
	static struct stim sts[260];
	unsigned n = (s->qp.dut_max_rd ? s->qp.dut_max_rd : 1) + 4;
	if (n > 260) {
		v_set(r, V_NA, "the DUT allows %u outstanding READs; the test sends at most 260", s->qp.dut_max_rd);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		rdma(s, &sts[i], ROCE_OPC_READ_REQUEST, s->qp.va, s->qp.rkey, 64, 0);
		sts[i].psn = psn_add(s->epsn, (int32_t)i);
	}
	expect_nak(s, sts, n, INV, "B10: max_dest_rd_atomic + 4 READs back to back", r);
	if (r->v == V_PASS)
		qp_killed(s);
}

/* B11: an atomic at a VA that is not 8-byte aligned -> NAK invalid request. */
void test_b11(struct session *s, struct conf_result *r)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_FETCH_ADD);
	st.extra.atomiceth.va = s->qp.va + 4;
	st.extra.atomiceth.rkey = s->qp.rkey;
	st.extra.atomiceth.swap = 1;
	expect_nak(s, &st, 1, INV, "B11: FETCH_ADD at VA + 4", r);
	if (r->v == V_PASS)
		qp_killed(s);
}
