/* tests_m.c: catalogue group M, multi-packet messages at each path MTU (IBTA Vol 1 §9.7.5.2.3:
 * FIRST and MIDDLE packets carry exactly the PMTU, no packet more; §9.7.5.1.4: READ responses
 * segmented at it), and a packet longer than the PMTU, on
 * a QP the perftest setup brings up at the test's PMTU (256, 512, 1024, 2048, 4096; the server
 * takes the smaller of its own and the tester's: a PMTU larger than the DUT's is N/A); and the
 * CMP_SWAP tests of group D (§9.4.5 atomic operations: compare equal swaps, unequal leaves memory
 * alone, both return the original; C9-148 a duplicate returns the saved value) and B12, CMP_SWAP at
 * a VA not 8-byte aligned (§9.7.5.2.2, as B11). Needs a perftest-write, -read or -atomic setup. */
#include "tests.h"

#define INV (1u << ROCE_NAK_INVALID_REQUEST)
#define RACC (1u << ROCE_NAK_REMOTE_ACCESS)

/* The QP came up at the test's PMTU and the buffer holds 3 x PMTU; else N/A with the reason. */
static bool at_pmtu(struct session *s, struct conf_result *r)
{
	unsigned want = s->test->pmtu, got = qp_pmtu(s);
	if (got != want) {
		v_set(r, V_NA, "the QP came up at PMTU %u: the DUT's server allows at most that (it takes the smaller of "
		      "its PMTU and the tester's %u)", got, want);
		return false;
	}
	if (s->qp.mr_len < 3ull * want) {
		v_set(r, V_NA, "the DUT's buffer (%llu bytes) is smaller than 3 x PMTU", (unsigned long long)s->qp.mr_len);
		return false;
	}
	return true;
}

/* M1: a WRITE of 3 x PMTU as FIRST/MIDDLE/LAST (PMTU bytes each, AckReq on LAST) -> ACKed. */
void test_m1(struct session *s, struct conf_result *r)
{
	static const uint8_t opc[3] = {ROCE_OPC_WRITE_FIRST, ROCE_OPC_WRITE_MIDDLE, ROCE_OPC_WRITE_LAST};
	if (!at_pmtu(s, r))
		return;
	unsigned pmtu = qp_pmtu(s);
	uint32_t psn = s->epsn, last = psn_add(psn, 2);
	size_t m = s->n_resps;
	for (int i = 0; i < 3; i++) {
		struct stim st;
		stim_init(s, &st, opc[i]);
		st.psn = psn_add(psn, i);
		st.ackreq = i == 2;
		st.payload_len = pmtu;
		st.fill = (uint8_t)(0x30 + i);
		st.extra.reth.va = s->qp.va;
		st.extra.reth.rkey = s->qp.rkey;
		st.extra.reth.dmalen = 3 * pmtu;
		sess_send(s, &st, "M1: %s psn 0x%06x, %u bytes at PMTU %u", roce_opcode_info(opc[i])->name, st.psn, pmtu, pmtu);
	}
	judge_acks_ordered(s, m, last, -1, r);
	accepted_if_pass(s, r, last, 1);
}

/* M2: a READ of 3 x PMTU -> FIRST/MIDDLE/LAST responses of exactly PMTU bytes each. */
void test_m2(struct session *s, struct conf_result *r)
{
	if (!at_pmtu(s, r))
		return;
	unsigned pmtu = qp_pmtu(s);
	uint32_t psn = s->epsn;
	size_t m = read_req(s, psn, s->qp.va, s->qp.rkey, 3 * pmtu, "M2");
	rule_read_segments(since(s, m), n_since(s, m), psn, 3, pmtu, dut_alive(s, m, 500), r);
	if (r->v == V_PASS)
		accepted(s, psn_add(psn, 2), 1);
}

/* M3: a WRITE_ONLY of PMTU + 4 bytes, its DMALen too (a packet longer than the PMTU the QP came up
 * with) -> NAK invalid request; the QP is then in error. */
void test_m3(struct session *s, struct conf_result *r)
{
	if (!at_pmtu(s, r))
		return;
	unsigned pmtu = qp_pmtu(s);
	struct stim st;
	stim_init(s, &st, ROCE_OPC_WRITE_ONLY);
	st.psn = s->epsn;
	st.ackreq = true;
	st.payload_len = pmtu + 4;
	st.fill = 0x3c;
	st.extra.reth.va = s->qp.va;
	st.extra.reth.rkey = s->qp.rkey;
	st.extra.reth.dmalen = pmtu + 4;
	char what[64];
	snprintf(what, sizeof(what), "M3: longer than PMTU %u", pmtu);
	expect_nak(s, &st, 1, INV, what, r);
	if (r->v == V_PASS)
		qp_killed(s);
}

/* Send an atomic (FETCH_ADD add = swap, or CMP_SWAP) at ePSN and wait for its answer; ePSN moves on. */
static uint32_t atomic_at(struct session *s, uint8_t opc, uint64_t va, uint64_t swap, uint64_t cmp, const char *what)
{
	struct stim st;
	uint32_t psn = s->epsn;
	stim_init(s, &st, opc);
	st.extra.atomiceth.va = va;
	st.extra.atomiceth.rkey = s->qp.rkey;
	st.extra.atomiceth.swap = swap;
	st.extra.atomiceth.cmp = cmp;
	sess_send(s, &st, "%s: %s psn 0x%06x swap/add 0x%llx compare 0x%llx", what, roce_opcode_info(opc)->name, psn,
		  (unsigned long long)swap, (unsigned long long)cmp);
	sess_wait(s, WAIT_MS, pred_psn, &psn);
	s->epsn = psn_add(psn, 1);
	s->accepted++;
	return psn;
}

/* The value the DUT's buffer holds at its start: a FETCH_ADD of 0 reads it (0 in a dry run). */
static uint64_t read_value(struct session *s, uint32_t *psn, const char *what)
{
	*psn = atomic_at(s, ROCE_OPC_FETCH_ADD, s->qp.va, 0, 0, what);
	const struct resp *a = s->n_resps ? &s->resps[s->n_resps - 1] : NULL;
	return a && a->h.bth.opcode == ROCE_OPC_ATOMIC_ACK && a->h.bth.psn == *psn ? a->h.atomicacketh.orig : 0;
}

/* D6/D7: read v, CMP_SWAP with compare v (equal) or v + 1 (unequal), read back. */
static void cmp_swap(struct session *s, struct conf_result *r, bool equal, const char *id)
{
	char what[64];
	uint32_t psn[3];
	size_t m = s->n_resps;
	snprintf(what, sizeof(what), "%s: read the value (FETCH_ADD 0)", id);
	uint64_t v = read_value(s, &psn[0], what);
	uint64_t cmp = equal ? v : v + 1, swap = v ^ 0x5a5a5a5a00c0ffeeULL;
	snprintf(what, sizeof(what), "%s: CMP_SWAP, compare %s", id, equal ? "equal" : "unequal");
	psn[1] = atomic_at(s, ROCE_OPC_CMP_SWAP, s->qp.va, swap, cmp, what);
	snprintf(what, sizeof(what), "%s: read it back (FETCH_ADD 0)", id);
	psn[2] = atomic_at(s, ROCE_OPC_FETCH_ADD, s->qp.va, 0, 0, what);
	sess_collect(s, 50);
	rule_cmp_swap(since(s, m), n_since(s, m), psn, cmp, swap, dut_alive(s, m, 300), r);
	sess_sync(s);
}

void test_d6(struct session *s, struct conf_result *r)
{
	cmp_swap(s, r, true, "D6");
}

void test_d7(struct session *s, struct conf_result *r)
{
	cmp_swap(s, r, false, "D7");
}

/* D8: a duplicate CMP_SWAP (compare equal: executed again it would find the swapped value and
 * return that) -> the saved original value. */
void test_d8(struct session *s, struct conf_result *r)
{
	struct stim st;
	uint32_t p0;
	uint64_t v = read_value(s, &p0, "D8: read the value (FETCH_ADD 0)");
	size_t m = s->n_resps;
	uint32_t psn = s->epsn;
	stim_init(s, &st, ROCE_OPC_CMP_SWAP);
	st.extra.atomiceth.va = s->qp.va;
	st.extra.atomiceth.rkey = s->qp.rkey;
	st.extra.atomiceth.cmp = v;
	st.extra.atomiceth.swap = ~v;
	sess_send(s, &st, "D8: CMP_SWAP psn 0x%06x compare 0x%llx (equal)", psn, (unsigned long long)v);
	sess_wait(s, WAIT_MS, pred_psn, &psn);
	sess_send(s, &st, "D8: the same CMP_SWAP again (duplicate)");
	sess_wait(s, WAIT_MS, pred_psn, &psn);
	sess_collect(s, 50);
	rule_dup_atomic(since(s, m), n_since(s, m), psn, dut_alive(s, m, 300), r);
	s->epsn = psn_add(psn, 1);
	s->accepted++;
}

/* B12: CMP_SWAP at a VA not 8-byte aligned -> NAK invalid request (or remote access error). */
void test_b12(struct session *s, struct conf_result *r)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_CMP_SWAP);
	st.extra.atomiceth.va = s->qp.va + 4;
	st.extra.atomiceth.rkey = s->qp.rkey;
	expect_nak(s, &st, 1, INV | RACC, "B12: CMP_SWAP at VA + 4", r);
	if (r->v == V_PASS)
		qp_killed(s);
}
