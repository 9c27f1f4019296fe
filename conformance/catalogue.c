/* catalogue.c: the test catalogue, one descriptor per test: ID, one-line description, the rule
 * it checks, what it needs from the setup and the DUT, and its run function (tests_*.c). The
 * groups: A responder sequencing and ACKs, B requests that must be NAKed, C silent drops, D READ
 * and ATOMIC duplicates, E the DUT as requester, F ECN/CNP, G PFC. */
#include "conform.h"
#include "tests.h"

#define SEND NEED_SEND
#define PROBE NEED_PROBE
#define REQ (NEED_DUT_REQ)

const struct conf_test conf_tests[] = {
	{"A1", "SEND at ePSN with AckReq -> ACK with its PSN, MSN + 1", "IBTA 9.7.5.1 ACK generation", PROBE, 0, false, test_a1},
	{"A2", "4-packet SEND, AckReq on LAST -> ACK PSNs never decrease, last = LAST", "IBTA 9.7.5.1 ACK coalescing", SEND, 0, false, test_a2},
	{"A3", "SEND without AckReq then with AckReq -> one ACK covering both (MSN + 2)", "IBTA 9.7.5.1 AckReq, coalescing", SEND, 0, false, test_a3},
	{"A4", "duplicate of an ACKed SEND -> re-ACKed, not executed again (MSN unchanged)", "C9-105 duplicate SEND/WRITE", SEND, 0, false, test_a4},
	{"A5", "PSN gap (ePSN + 5) -> exactly one NAK-Seq carrying ePSN; ePSN then accepted", "IBTA 9.7.5.2.1 PSN sequence error", PROBE, 0, false, test_a5},
	{"A6", "more out-of-sequence packets after a NAK -> no second NAK; new gap -> new NAK", "IBTA 9.7.5.2.1 one NAK per episode", PROBE, 0, false, test_a6},
	{"A7", "PSNs 0xfffffe, 0xffffff, 0x000000 -> all accepted across the 24-bit wrap", "IBTA 9.7.1 modulo-2^24 PSNs", PROBE, 0xfffffe, true, test_a7},
	{"A8", "PSN ePSN - 2^23 + 1 (oldest duplicate) -> re-ACKed, never NAKed", "IBTA 9.7.5.2.1 duplicate region", SEND, 0, false, test_a8},
	{"A9", "PSN ePSN + 2^23 - 1 (farthest ahead) -> NAK-Seq with ePSN", "IBTA 9.7.5.2.1 invalid region", PROBE, 0, false, test_a9},
	{"B1a", "SEND_MIDDLE with no FIRST -> NAK invalid request", "IBTA 9.7.5.2.2 opcode sequence", SEND, 0, false, test_b1a},
	{"B1b", "SEND_LAST with no FIRST -> NAK invalid request", "IBTA 9.7.5.2.2 opcode sequence", SEND, 0, false, test_b1b},
	{"B2", "SEND_FIRST then SEND_ONLY (no LAST) -> NAK invalid request", "IBTA 9.7.5.2.2 opcode sequence", SEND, 0, false, test_b2},
	{"B3a", "RDMA WRITE to a QP without remote access -> NAK", "IBTA 9.7.5.2.4 QP access rights", NEED_NO_ACCESS, 0, false, test_b3a},
	{"B3b", "RDMA READ to a QP without remote access -> NAK", "IBTA 9.7.5.2.4 QP access rights", NEED_NO_ACCESS, 0, false, test_b3b},
	{"B3c", "FETCH_ADD to a QP without remote access -> NAK", "IBTA 9.7.5.2.4 QP access rights", NEED_NO_ACCESS, 0, false, test_b3c},
	{"B4", "reserved RC opcode 0x1f -> NAK invalid request", "IBTA Table 38 reserved opcodes, 9.7.5.2.2", SEND, 0, false, test_b4},
	{"B5", "SEND one byte larger than the posted receive -> NAK invalid request", "IBTA 9.7.5.2.3 receive length", SEND, 0, false, test_b5},
	{"B6a", "SEND_ONLY payload PMTU + 4 -> NAK invalid request", "IBTA 9.7.5.2.3 PMTU", SEND, 0, false, test_b6a},
	{"B6b", "SEND_FIRST payload PMTU / 2 -> NAK invalid request", "IBTA 9.7.5.2.3 FIRST/MIDDLE = PMTU", SEND, 0, false, test_b6b},
	{"B6c", "SEND_LAST with no payload -> NAK invalid request", "IBTA 9.7.5.2.3 LAST payload 1..PMTU", SEND, 0, false, test_b6c},
	{"B6d", "SEND_FIRST with PadCnt 2 -> NAK invalid request", "IBTA 9.7.5.2.3 PadCnt 0 on FIRST/MIDDLE", SEND, 0, false, test_b6d},
	{"B7", "WRITE_ONLY payload != RETH DMALen -> NAK invalid request", "IBTA 9.7.5.2.3 WRITE length", NEED_MR_WRITE, 0, false, test_b7},
	{"B8a", "access with a wrong R_Key -> NAK remote access error", "IBTA 9.7.5.2.4 R_Key check", NEED_MR_ANY, 0, false, test_b8a},
	{"B8b", "access at a VA before the buffer -> NAK remote access error", "IBTA 9.7.5.2.4 bounds check", NEED_MR_ANY, 0, false, test_b8b},
	{"B8c", "access past the buffer's end -> NAK remote access error", "IBTA 9.7.5.2.4 bounds check", NEED_MR_ANY, 0, false, test_b8c},
	{"B9", "0-length access with a garbage R_Key -> accepted (no R_Key check)", "IBTA 9.7.5.2.4 zero-length", NEED_MR_ANY, 0, false, test_b9},
	{"B10", "max_dest_rd_atomic + 4 READs outstanding -> NAK invalid request", "IBTA 9.7.5.2.2 responder resources", NEED_MR_READ, 0, false, test_b10},
	{"B11", "FETCH_ADD at a VA not 8-byte aligned -> NAK invalid request", "IBTA 9.7.5.2.2 atomic alignment", NEED_MR_ATOMIC, 0, false, test_b11},
	{"C1a", "bad ICRC (every bit flipped) -> silent drop", "IBTA 9.6 ICRC check (Annex A17)", PROBE, 0, false, test_c1a},
	{"C1b", "IPv4 ID changed after the ICRC (IP checksum right) -> silent drop", "IBTA 9.6 ICRC covers the IP ID", PROBE, 0, false, test_c1b},
	{"C1c", "one payload byte flipped -> silent drop", "IBTA 9.6 ICRC check", PROBE, 0, false, test_c1c},
	{"C2a", "unknown destination QP -> silent drop", "IBTA 9.6 DestQP check", PROBE, 0, false, test_c2a},
	{"C2b", "destination QP 0 -> silent drop", "IBTA 9.6 DestQP check", PROBE, 0, false, test_c2b},
	{"C3a", "BTH TVer 1 -> silent drop", "IBTA 9.6 Table 40 TVer", PROBE, 0, false, test_c3a},
	{"C3b", "P_Key mismatch -> silent drop", "IBTA 9.6 Table 40 P_Key", PROBE, 0, false, test_c3b},
	{"C3c", "UD opcode on an RC QP -> silent drop", "IBTA 9.6 Table 40 opcode vs QP type", PROBE, 0, false, test_c3c},
	{"C3d", "UC opcode on an RC QP -> silent drop", "IBTA 9.6 Table 40 opcode vs QP type", PROBE, 0, false, test_c3d},
	{"C4", "source IP is not the QP's remote GID -> silent drop", "Annex A17 RoCEv2 address check", PROBE, 0, false, test_c4},
	{"C5", "packet shorter than its opcode's headers -> silent drop", "IBTA 9.6 header length", PROBE, 0, false, test_c5},
	{"C6", "lost packet (ePSN + 1 first) -> NAK-Seq(ePSN); the resent pair accepted", "IBTA 9.7.5.2.1 go-back-N", PROBE, 0, false, test_c6},
	{"D1", "READ of 3 x PMTU -> READ_RESPONSE FIRST/MIDDLE/LAST, PSN + 0..2", "IBTA 9.7.5.1.4 READ responses", NEED_MR_READ, 0, false, test_d1},
	{"D2", "duplicate READ -> executed again with the same PSNs", "IBTA 9.7.5.2.2 duplicate READ (IBA 1.4 p. 282)", NEED_MR_READ, 0, false, test_d2},
	{"D3", "duplicate READ from mid-range (PSN + 1, VA + PMTU) -> responses from PSN + 1", "IBTA 9.7.5.2.2 duplicate READ subset", NEED_MR_READ, 0, false, test_d3},
	{"D4", "duplicate READ with another R_Key -> silent drop", "IBTA 9.7.5.2.2 duplicate READ not a subset", NEED_MR_READ, 0, false, test_d4},
	{"D5", "duplicate FETCH_ADD -> the saved original value, memory added to once", "C9-148 duplicate atomic", NEED_MR_ATOMIC, 0, false, test_d5},
	{"E1", "DUT's SEND never ACKed -> resent after the ACK timeout, at most retry_cnt times", "IBTA 9.7.6.1.1 local ACK timeout, C9-141 retry count", REQ, 0, false, test_e1},
	{"E2", "NAK-Seq at p inside the DUT's message -> go-back-N from exactly p", "IBTA 9.7.5.2.5 NAK-Seq, implicit ACK", REQ, 0, false, test_e2},
	{"E3", "RNR NAK (timer 15.36 ms) -> resend no earlier than the timer", "IBTA 9.7.5.2.8 RNR back-off", REQ, 0, false, test_e3},
	{"E4", "only the LAST PSN ACKed -> the whole message completes, nothing resent", "IBTA 9.7.5.1 cumulative ACK", REQ, 0, false, test_e4},
	{"E5", "ghost ACK beyond the outstanding PSNs -> ignored (the message sent again after it)", "IBTA 9.7.6.1.3 ghost ACKs", REQ, 0, false, test_e5},
	{"E6a", "NAK invalid request -> the DUT's QP in error: nothing more sent, a request after it unanswered", "IBTA 9.7.6.1.4 class B NAK", REQ, 0, false, test_e6a},
	{"E6b", "NAK remote access error -> the DUT's QP in error: nothing more sent, a request after it unanswered", "IBTA 9.7.6.1.4 class B NAK", REQ, 0, false, test_e6b},
	{"E6c", "NAK remote operational error -> the DUT's QP in error: nothing more sent, a request after it unanswered", "IBTA 9.7.6.1.4 class B NAK", REQ, 0, false, test_e6c},
	{"E7", "a READ response lost -> the DUT re-issues the READ from the missing PSN", "IBTA 9.7.6.1.2 READ retry", NEED_DUT_READ, 0, false, test_e7},
	{"F1", "CE-marked request -> CNP to the tester's QP: opcode 0x81, PSN 0, SE 0, M 0, its P_Key", "Annex A17.9.3 CNP", NEED_ECN | PROBE, 0, false, test_f1},
	{"F3", "ECT(0) request -> no CNP", "Annex A17.9 CE only", NEED_ECN | PROBE, 0, false, test_f3},
	{"G1", "PFC XOFF on the DUT's priority -> it stops sending until XON", "IEEE 802.1Qbb", NEED_PFC | REQ, 0, false, test_g1},
};

const size_t conf_n_tests = sizeof(conf_tests) / sizeof(conf_tests[0]);
