/* test_analyze.c: the transport analyzer (analyzer/core/analyze.c; IBTA Vol 1 §9.4 PSN rules,
 * §9.7.5 ACK/NAK and go-back-N, §9.7.2 READ PSN accounting, §9.5 message segmentation).
 *
 * Every case is a sequence of builder-made RoCEv2/IPv4 frames, decoded by roce_decode() and fed
 * to roce_analyze() in order; the events are checked on every frame (exactly, with
 * EXPECT_EVENTS / EXPECT_NO_EVENTS) and the findings' details where they matter.
 *
 * The default flow: requests 10.0.0.1 → 10.0.0.2 to the responder's QP_B; responses (ACK/NAK,
 * READ responses) 10.0.0.2 → 10.0.0.1 to the requester's QP_A. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_table.h"  /* the side-block pools, to check that evictions return blocks */
#include "unit_util.h"

#define QP_B 0x000123u /* responder's QP: the destination of the requests */
#define QP_A 0x000456u /* requester's QP: the destination of the responses */

/* RC opcodes (IBTA Vol 1 Table 38), UC and UD SEND_ONLY */
enum {
	SEND_FIRST = 0x00, SEND_MIDDLE = 0x01, SEND_LAST = 0x02, SEND_ONLY = 0x04,
	WRITE_FIRST = 0x06, WRITE_MIDDLE = 0x07, WRITE_LAST = 0x08, WRITE_ONLY = 0x0a,
	READ_REQ = 0x0c, READ_FIRST = 0x0d, READ_MIDDLE = 0x0e, READ_LAST = 0x0f, READ_ONLY = 0x10,
	ACK = 0x11, CNP = 0x81, UC_SEND_ONLY = 0x24, UD_SEND_ONLY = 0x64,
};
/* AETH syndromes (§9.3.5): ACK with 31 credits, RNR NAK with a timer, NAK with a code */
#define SYN_ACK 0x1f
#define SYN_RNR 0x2e
#define SYN_NAK(code) (0x60 | (code))

/* One frame of a sequence. Zero fields take the defaults noted. */
struct fr {
	uint8_t op;
	uint32_t psn;
	uint32_t len;     /* payload bytes */
	uint32_t dmalen;  /* RETH DMA length */
	uint8_t syn;      /* AETH syndrome */
	bool rsp;         /* a response: the defaults below are reversed */
	uint32_t qpn;     /* 0: QP_B (a response: QP_A) */
	unsigned src, dst; /* last byte of 10.0.0.x (fd00::x with v6); 0: 1 and 2 (a response: 2 and 1) */
	uint16_t pkey;    /* 0: 0xffff */
	int64_t ts;       /* 0: 1 µs after the previous frame */
	bool v6;
	bool msn_set;     /* an ACK's MSN is .msn; otherwise the right one (msn_model below) */
	uint32_t msn;
	bool null_out;    /* analyze with out == NULL; P keeps the decoder's events, P_analyzed gets all */
	bool no_ext;      /* no extended headers: the packet is too short for its opcode's */
	uint16_t ipid;    /* 0: the builder's constant 0x4242 (ids that do not count) */
	uint32_t iface;   /* the capture interface (roce_pkt.capture_if) */
};

static struct roce_analyzer *A;
static struct roce_pkt P;        /* the last frame fed */
static struct roce_findings F;   /* its findings */
static struct roce_pkt P_analyzed; /* with null_out: the frame after analysis */
static int64_t now;
static uint64_t frame_no;        /* the last frame fed: its number */
static uint8_t frame_buf[8192];
static uint8_t payload_buf[4096];
/* the frames' stream_hint: 0 none, 1 the decoder's (ROCE_DECODE_STREAM_HASH), 2 a wrong one, 3
 * the right hash naming look-ahead ids that are not the frame's */
static int hint_mode;

static void teardown(void)
{
	roce_analyzer_free(A);
	A = NULL;
	hint_mode = 0;
}

TestSuite(analyze, .fini = teardown);

/* A fresh analyzer (the suite's fini frees it). */
/* An independent model of the responder's MSN, so that ACKs carry the right one unless a test
 * says otherwise: every request PSN's first sending is remembered; an ACK from host h to host g
 * carries the number of request messages from g to h whose last PSN is at or below its PSN. */
static struct sent_req {
	unsigned src, dst;
	uint32_t qpn, psn, end;
	bool ends;
} sent[4096];
static unsigned n_sent;
static uint32_t model_pmtu;

static void msn_model_request(unsigned src, unsigned dst, uint32_t qpn, const struct roce_opcode_info *op,
			      uint32_t psn, uint32_t dmalen)
{
	for (unsigned i = 0; i < n_sent; i++)
		if (sent[i].src == src && sent[i].dst == dst && sent[i].qpn == qpn && sent[i].psn == psn)
			return;  /* a resend */
	cr_assert_lt(n_sent, sizeof(sent) / sizeof(sent[0]));
	uint32_t span = op->op == ROCE_OP_READ_REQ && model_pmtu && dmalen ? (dmalen + model_pmtu - 1) / model_pmtu : 1;
	bool ends = op->transport == ROCE_TR_RC &&
		    ((op->op != ROCE_OP_SEND && op->op != ROCE_OP_WRITE) || op->seg == ROCE_SEG_LAST ||
		     op->seg == ROCE_SEG_ONLY);
	sent[n_sent++] = (struct sent_req){src, dst, qpn, psn, (psn + span - 1) & 0xffffff, ends};
}

static uint32_t msn_model_ack(unsigned src, unsigned dst, uint32_t psn)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < n_sent; i++)
		if (sent[i].ends && sent[i].src == dst && sent[i].dst == src &&
		    ((psn - sent[i].end) & 0xffffff) < 0x800000)
			n++;
	return n & 0xffffff;
}

/* A new analyzer A with the settings cfg (NULL: the defaults). */
static void mk_cfg(const struct roce_analyzer_config *cfg)
{
	char err[ROCE_ERRBUF_SIZE] = "";
	n_sent = 0;
	model_pmtu = cfg ? cfg->pmtu : 0;
	roce_analyzer_free(A);
	A = roce_analyzer_new(cfg, err);
	cr_assert_not_null(A, "roce_analyzer_new: %s", err);
	now = 1000000;
	frame_no = 0;
}

static void mk(uint32_t max_streams, uint32_t pmtu)
{
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cfg.max_streams = max_streams;
	cfg.pmtu = pmtu;
	mk_cfg(&cfg);
}

static const struct roce_pkt *feed(struct fr x)
{
	struct roce_build b;
	u_base(&b);
	if (x.v6)
		u_set_v6(&b);
	unsigned at = x.v6 ? 15 : 3;
	b.src[at] = (uint8_t)(x.src ? x.src : x.rsp ? 2 : 1);
	b.dst[at] = (uint8_t)(x.dst ? x.dst : x.rsp ? 1 : 2);
	if (x.v6)
		b.ip_version = 6;
	const struct roce_opcode_info *op = roce_opcode_info(x.op);
	cr_assert(op->flags & ROCE_OPF_VALID, "opcode 0x%02x", x.op);
	memset(&b.h, 0, sizeof(b.h));
	b.h.hdrs = x.no_ext ? 0 : op->hdrs;
	if (x.no_ext)
		b.flags |= ROCE_BUILD_HDRS_AS_GIVEN;
	b.h.bth.opcode = x.op;
	b.h.bth.pkey = x.pkey ? x.pkey : 0xffff;
	b.h.bth.dqpn = x.qpn ? x.qpn : x.rsp ? QP_A : QP_B;
	b.h.bth.psn = x.psn & 0xffffff;
	b.h.bth.ackreq = 1;
	b.h.bth.becn = x.op == CNP;
	b.h.reth.va = 0x10000;
	b.h.reth.rkey = 0x1234;
	b.h.reth.dmalen = x.dmalen;
	b.h.aeth.syndrome = x.syn;
	unsigned src = x.src ? x.src : x.rsp ? 2 : 1, dst = x.dst ? x.dst : x.rsp ? 1 : 2;
	if (!x.rsp && !(op->flags & ROCE_OPF_RESPONSE))
		msn_model_request(src, dst, b.h.bth.dqpn, op, b.h.bth.psn, x.dmalen);
	b.h.aeth.msn = x.msn_set ? x.msn : msn_model_ack(src, dst, b.h.bth.psn);
	b.h.deth.qkey = 0x11111111;
	b.h.deth.srcqp = 0x42;
	if (!payload_buf[0])
		for (unsigned i = 0; i < sizeof(payload_buf); i++)
			payload_buf[i] = (uint8_t)(0x5a ^ (i * 29 + 3));
	cr_assert_leq(x.len, sizeof(payload_buf));
	b.payload = payload_buf;
	b.payload_len = x.len;
	if (x.ipid)
		b.ip_id = x.ipid;

	int n = roce_build_frame(&b, frame_buf, sizeof(frame_buf));
	cr_assert_gt(n, 0, "roce_build_frame: %d (%s)", n, roce_strerror(n));
	struct roce_decoder_config dcfg = {.flags = hint_mode ? ROCE_DECODE_STREAM_HASH : 0};
	cr_assert_eq(roce_decode(&dcfg, frame_buf, (uint32_t)n, (uint32_t)n, ROCE_LINK_ETHERNET, &P), 1);
	if (hint_mode == 2)  /* not this frame's: another stream's hash, or none there is */
		P.stream_hint = HINT_HASH | HINT_AHEAD | (frame_no % AHEAD_IDS) << HINT_AHEAD_SHIFT |
				(uint32_t)(frame_no * 0x9e3779b1u);
	if (hint_mode == 3 && A->n_addrs >= 2) {  /* its addresses' ids swapped, or others' */
		A->ahead.ids[7] = (struct ahead_ids){(uint32_t)P.stream_hint, (uint32_t)frame_no % A->n_addrs,
						     (uint32_t)(frame_no + 1) % A->n_addrs};
		P.stream_hint |= HINT_AHEAD | UINT64_C(7) << HINT_AHEAD_SHIFT;
	}
	P.capture_if = x.iface;
	cr_assert_eq(P.payload_len, x.len);
	if (x.no_ext) {  /* the caller checks the events */
		EXPECT_EVENTS(&P, "packet.too_short");
		roce_analyze(A, &P, ++frame_no, frame_buf, now, &F);
		return &P;
	}
	cr_assert(roce_evset_empty(&P.events), "the decoder found {%s}", u_events_str(&P));
	now = x.ts ? x.ts : now + 1000;
	memset(&F, 0xee, sizeof(F));
	if (x.null_out) {
		P_analyzed = P;
		roce_analyze(A, &P_analyzed, ++frame_no, frame_buf, now, NULL);
		F.n = 0;
		return &P;
	}
	roce_analyze(A, &P, ++frame_no, frame_buf, now, &F);
	for (unsigned i = 0; i < F.n; i++) {
		cr_assert(roce_evset_has(&P.events, (enum roce_event)F.f[i].event), "finding %u not in events", i);
		cr_assert_eq(F.f[i].qpn, P.h.bth.dqpn, "a finding's qpn is the frame's destination QP");
	}
	unsigned n_ev = 0;  /* the decoder added none: every event is the analyzer's, with a finding */
	for (unsigned w = 0; w < ROCE_EVSET_WORDS; w++)
		n_ev += (unsigned)__builtin_popcountll(P.events.w[w]);
	cr_assert_eq(n_ev, F.n, "events {%s}, %u findings", u_events_str(&P), F.n);
	return &P;
}

/* A request 10.0.0.1 → 10.0.0.2 (QP_B), a response 10.0.0.2 → 10.0.0.1 (QP_A), unless given. */
#define REQ(...) feed((struct fr){__VA_ARGS__})
#define RSP(...) feed((struct fr){.rsp = true, __VA_ARGS__})
static const struct roce_pkt *send_only(uint32_t psn) { return REQ(.op = SEND_ONLY, .psn = psn, .len = 64); }
static const struct roce_pkt *ack(uint32_t psn) { return RSP(.op = ACK, .psn = psn, .syn = SYN_ACK); }
static const struct roce_pkt *nak(uint32_t psn, unsigned code)
{
	return RSP(.op = ACK, .psn = psn, .syn = (uint8_t)SYN_NAK(code));
}

/* SEND_ONLY requests from..to (inclusive, modulo 2^24), each with no event. */
static void sends_ok(uint32_t from, uint32_t to)
{
	for (uint32_t psn = from;; psn = (psn + 1) & 0xffffff) {
		EXPECT_NO_EVENTS(send_only(psn));
		if (psn == to)
			break;
	}
}

/* The one finding of this event on the last frame. */
static const struct roce_finding *finding(const char *name)
{
	const struct roce_finding *r = NULL;
	int e = u_ev(name);
	for (unsigned i = 0; i < F.n; i++)
		if (F.f[i].event == e) {
			cr_assert_null(r, "two %s findings", name);
			r = &F.f[i];
		}
	cr_assert_not_null(r, "no %s finding; events {%s}", name, u_events_str(&P));
	return r;
}

static void expect_psns(const char *name, uint32_t expected, uint32_t seen)
{
	const struct roce_finding *f = finding(name);
	cr_assert(f->has_psn, "%s has PSNs", name);
	cr_assert_eq(f->expected_psn, expected, "%s expected_psn 0x%x, want 0x%x", name, f->expected_psn, expected);
	cr_assert_eq(f->seen_psn, seen, "%s seen_psn 0x%x, want 0x%x", name, f->seen_psn, seen);
}

/* ---- stream statistics ---- */

struct want_stream {
	unsigned src, dst;
	uint32_t qpn;
	bool found;
	struct roce_stream_stats st;
	unsigned count;
};

static void collect(const struct roce_stream_stats *s, void *user)
{
	struct want_stream *w = user;
	w->count++;
	cr_assert(s->addr_len == 4 || s->addr_len == 16);
	if (s->addr_len == 4 && s->src[3] == w->src && s->dst[3] == w->dst && s->dqpn == w->qpn) {
		cr_assert_not(w->found, "a stream listed twice");
		w->found = true;
		w->st = *s;
	}
}

/* The stats of IPv4 stream (10.0.0.src → 10.0.0.dst, qpn); false when it is not in the table. */
static bool stats(unsigned src, unsigned dst, uint32_t qpn, struct roce_stream_stats *out)
{
	struct want_stream w = {.src = src, .dst = dst, .qpn = qpn};
	roce_analyzer_foreach(A, collect, &w);
	cr_assert_eq(w.count, roce_analyzer_streams(A), "foreach visits every stream");
	if (w.found && out)
		*out = w.st;
	return w.found;
}

static struct roce_stream_stats req_stats(void)
{
	struct roce_stream_stats st;
	cr_assert(stats(1, 2, QP_B, &st), "the request stream is in the table");
	return st;
}

/* The counters expect_stats() checks, by name. */
#define STAT(f) {#f, offsetof(struct roce_stream_stats, f), sizeof(((struct roce_stream_stats *)NULL)->f)}
static const struct stat_field {
	const char *name;
	size_t off, size;
} stat_fields[] = {
	STAT(addr_len), STAT(pmtu), STAT(packets), STAT(requests), STAT(responses), STAT(first_psn),
	STAT(last_psn), STAT(gaps), STAT(missing_psns), STAT(retransmits), STAT(out_of_order), STAT(timeouts),
	STAT(lost_before), STAT(lost_after), STAT(messages), STAT(messages_send), STAT(messages_write),
	STAT(messages_read), STAT(messages_atomic), STAT(messages_other), STAT(response_count),
	STAT(response_min_us), STAT(response_mean_us), STAT(response_max_us), STAT(response_p50_us),
	STAT(turn_count), STAT(turn_mean_us), STAT(turn_max_us), STAT(timeout_aged), STAT(timeout_age_max_us),
	STAT(stream), STAT(pair),
};

/* A counter of st by name, as a number. */
static uint64_t stat_value(const struct roce_stream_stats *st, const char *name)
{
	for (size_t i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++) {
		const struct stat_field *f = &stat_fields[i];
		if (strcmp(f->name, name) != 0)
			continue;
		const char *at = (const char *)st + f->off;
		uint64_t v64;
		uint32_t v32;
		uint8_t v8;
		switch (f->size) {
		case 8: memcpy(&v64, at, 8); return v64;
		case 4: memcpy(&v32, at, 4); return v32;
		default: memcpy(&v8, at, 1); return v8;
		}
	}
	cr_assert_fail("no stream counter '%s' in stat_fields", name);
	return 0;
}

/* The stream's counters are as spec says: "NAME VALUE" pairs, "gaps 2 missing_psns 6". */
static void expect_stats(const struct roce_stream_stats *st, const char *spec)
{
	char name[32];
	int used;
	while (sscanf(spec, " %31[a-z0-9_]%n", name, &used) == 1) {
		char *end;
		unsigned long long want = strtoull(spec + used, &end, 10);
		cr_assert_neq(end, spec + used, "expect_stats: no value for %s", name);
		uint64_t got = stat_value(st, name);
		cr_assert_eq(got, want, "%s: %llu, want %llu", name, (unsigned long long)got, want);
		spec = end;
	}
	cr_assert_eq(strspn(spec, " "), strlen(spec), "expect_stats: cannot read '%s'", spec);
}

/* ==== in-order requests and PSN gaps ==== */

Test(analyze, in_order_requests_no_events)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(100));
	EXPECT_NO_EVENTS(REQ(.op = WRITE_FIRST, .psn = 101, .len = 1024, .dmalen = 2500));
	EXPECT_NO_EVENTS(REQ(.op = WRITE_MIDDLE, .psn = 102, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = WRITE_LAST, .psn = 103, .len = 452));
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 104, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 105, .len = 8));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 106, .dmalen = 2048)); /* reserves 106, 107 */
	EXPECT_NO_EVENTS(send_only(108));
	cr_assert_eq(F.n, 0);
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "requests 8 packets 8 responses 0");
	cr_assert_eq(st.messages, 5);  /* SEND_ONLY, WRITE, SEND, READ, SEND_ONLY */
	cr_assert(st.has_psn);
	expect_stats(&st, "first_psn 100 last_psn 108");
	cr_assert_eq(st.gaps + st.missing_psns + st.retransmits + st.out_of_order + st.timeouts, 0);
	cr_assert_eq(st.transport, ROCE_TR_RC);
	expect_stats(&st, "pmtu 1024 addr_len 4");
	cr_assert_eq(st.src[0], 10);
	cr_assert_eq(st.dst[0], 10);
	cr_assert_eq(roce_analyzer_streams(A), 1);
	cr_assert_eq(roce_analyzer_evictions(A), 0);
}

Test(analyze, gap_reports_expected_and_seen_and_counts)
{
	mk(0, 0);
	sends_ok(100, 101);
	EXPECT_EVENTS(send_only(105), "psn.gap");  /* 102..104 missing */
	expect_psns("psn.gap", 102, 105);
	cr_assert_eq(finding("psn.gap")->delta_ns, -1);
	EXPECT_NO_EVENTS(send_only(106));
	EXPECT_EVENTS(send_only(110), "psn.gap");  /* 107..109 missing */
	expect_psns("psn.gap", 107, 110);
	EXPECT_NO_EVENTS(send_only(111));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "gaps 2 missing_psns 6 retransmits 0 first_psn 100 last_psn 111");
}

Test(analyze, gap_of_one)
{
	mk(0, 0);
	sends_ok(7, 8);
	EXPECT_EVENTS(send_only(10), "psn.gap");
	expect_psns("psn.gap", 9, 10);
	cr_assert_eq(req_stats().missing_psns, 1);
}

/* stream_hint (the decoder's ROCE_DECODE_STREAM_HASH, or the look-ahead's) only saves work: with
 * the right hint, a wrong one (not the frame's: as a caller's stale roce_pkt would carry), one
 * naming address ids that are not the frame's, or none, the same streams are made and every
 * frame gets the same events. The sequence mixes hosts, QPs,
 * IPv4 and IPv6, a gap, a NAK and its resend. */
Test(analyze, stream_hint_right_wrong_or_none_same_analysis)
{
	static char events[4][64][256];
	uint32_t streams[4], addrs[4];
	unsigned n = 0;
	for (int mode = 0; mode < 4; mode++) {
		mk(0, 0);
		hint_mode = mode;
		n = 0;
#define NOTE(call) (call, snprintf(events[mode][n++], sizeof(events[0][0]), "%s", u_events_str(&P)))
		for (unsigned host = 1; host <= 4; host++) {
			for (unsigned v6 = 0; v6 < 2; v6++) {
				NOTE(REQ(.op = SEND_ONLY, .psn = 10, .len = 8, .src = host, .dst = 9, .v6 = v6));
				NOTE(REQ(.op = SEND_ONLY, .psn = 12, .len = 8, .src = host, .dst = 9, .v6 = v6));  /* gap */
				NOTE(RSP(.op = ACK, .psn = 10, .syn = SYN_NAK(0), .src = 9, .dst = host, .v6 = v6));
				NOTE(REQ(.op = SEND_ONLY, .psn = 11, .len = 8, .src = host, .dst = 9, .v6 = v6));
				NOTE(REQ(.op = SEND_ONLY, .psn = 12, .len = 8, .src = host, .dst = 9, .v6 = v6));
				NOTE(REQ(.op = SEND_ONLY, .psn = 5, .len = 8, .src = host, .dst = 9, .qpn = 0x77, .v6 = v6));
			}
		}
#undef NOTE
		streams[mode] = A->n_used;
		addrs[mode] = A->n_addrs;
	}
	cr_assert_eq(streams[0], 24, "4 hosts, 2 families, 3 streams each");
	for (int mode = 1; mode < 4; mode++) {
		cr_assert_eq(streams[mode], streams[0], "hint mode %d: streams", mode);
		cr_assert_eq(addrs[mode], addrs[0], "hint mode %d: addresses", mode);
		for (unsigned i = 0; i < n; i++)
			cr_assert_str_eq(events[mode][i], events[0][i], "hint mode %d, frame %u", mode, i + 1);
	}
	cr_assert_str_neq(events[0][1], "", "the gap is seen");
}

Test(analyze, counts_past_32_bits)
{
	/* a stream's packet, request and message counts are 40 bits: start them just below 2^32 */
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(100));
	cr_assert_eq(roce_analyzer_streams(A), 1);
	struct stream *s = &A->s[0];
	struct req_block *q = req_of(A, s);
	s->packets = q->requests = q->messages = UINT32_MAX - 1;
	EXPECT_NO_EVENTS(send_only(101));
	EXPECT_NO_EVENTS(send_only(102));
	EXPECT_NO_EVENTS(send_only(103));
	struct roce_stream_stats st = req_stats();
	uint64_t want = (UINT64_C(1) << 32) + 1;  /* 2^32 - 2, then three more */
	cr_assert_eq(st.packets, want, "packets %llu", (unsigned long long)st.packets);
	cr_assert_eq(st.requests, want);
	cr_assert_eq(st.messages, want);
	cr_assert_eq(st.responses, 0);
	cr_assert_eq(count40(UINT32_MAX, 255) + 1, UINT64_C(1) << 40, "40 bits in all");
}

/* ==== retransmission, late packets ==== */

/* Go-back-N after a NAK: exactly the resent PSNs are retransmits; the first new one is clean. */
Test(analyze, retransmit_exactly_the_resent_psns)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(nak(103, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	for (uint32_t psn = 103; psn <= 105; psn++) {
		EXPECT_EVENTS(send_only(psn), "psn.retransmit");
		expect_psns("psn.retransmit", 106, psn);
	}
	EXPECT_NO_EVENTS(send_only(106));
	EXPECT_NO_EVENTS(send_only(107));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "retransmits 3 timeouts 0 gaps 0");
}

/* A packet skipped earlier arriving late is out of order, not a retransmit. */
Test(analyze, late_packet_fills_hole_is_out_of_order)
{
	mk(0, 0);
	sends_ok(100, 101);
	EXPECT_EVENTS(send_only(103), "psn.gap");
	EXPECT_EVENTS(send_only(102), "psn.out_of_order");
	expect_psns("psn.out_of_order", 104, 102);
	EXPECT_NO_EVENTS(send_only(104));
	/* the hole is filled: the same PSN again is now a retransmit */
	EXPECT_EVENTS(send_only(102), "retransmit.timeout", "psn.retransmit");
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "out_of_order 1 retransmits 1 gaps 1 missing_psns 1");
}

Test(analyze, two_late_packets_both_out_of_order)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(50));
	EXPECT_EVENTS(send_only(53), "psn.gap");
	expect_psns("psn.gap", 51, 53);
	EXPECT_EVENTS(send_only(52), "psn.out_of_order");
	EXPECT_EVENTS(send_only(51), "psn.out_of_order");
	EXPECT_NO_EVENTS(send_only(54));
	cr_assert_eq(req_stats().out_of_order, 2);
}

/* 102 was lost before the capture point; the responder NAKs it; its resend is its first
 * sighting (no retransmit), the resent 103 is a retransmit. */
Test(analyze, resend_of_psn_lost_before_capture_after_nak)
{
	mk(0, 0);
	sends_ok(100, 101);
	EXPECT_EVENTS(send_only(103), "psn.gap");
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_NO_EVENTS(send_only(102));
	EXPECT_EVENTS(send_only(103), "psn.retransmit");
	expect_psns("psn.retransmit", 104, 103);
	EXPECT_NO_EVENTS(send_only(104));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "retransmits 1 out_of_order 0 timeouts 0");
}

/* The capture starts at PSN 100; 98 and 99 (sent before) arrive later: not retransmits. */
Test(analyze, capture_starts_mid_stream_lower_psns_later)
{
	mk(0, 0);
	sends_ok(100, 101);
	const struct roce_pkt *p = send_only(98);
	cr_assert_not(u_has(p, "psn.retransmit"), "{%s}", u_events_str(p));
	cr_assert_not(u_has(p, "retransmit.timeout"), "{%s}", u_events_str(p));
	cr_assert_not(u_has(p, "psn.gap"), "{%s}", u_events_str(p));
	p = send_only(99);
	cr_assert_not(u_has(p, "psn.retransmit"), "{%s}", u_events_str(p));
	cr_assert_not(u_has(p, "retransmit.timeout"), "{%s}", u_events_str(p));
	EXPECT_NO_EVENTS(send_only(102));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "retransmits 0 first_psn 98 last_psn 102");
}

/* After a resend has caught up, a PSN skipped before it arriving late is out of order again. */
Test(analyze, late_packet_after_resend_caught_up)
{
	mk(0, 0);
	sends_ok(100, 101);
	EXPECT_EVENTS(send_only(103), "psn.gap");  /* 102 a hole */
	EXPECT_NO_EVENTS(send_only(104));
	EXPECT_EVENTS(send_only(103), "retransmit.timeout", "psn.retransmit");
	EXPECT_EVENTS(send_only(104), "psn.retransmit");  /* caught up */
	EXPECT_EVENTS(send_only(102), "psn.out_of_order");
	expect_psns("psn.out_of_order", 105, 102);
}

/* Same start, with a NAK at 98 and a go-back-N from 98: only 100 and 101 are retransmits. */
Test(analyze, capture_starts_mid_stream_nak_before_first_psn)
{
	mk(0, 0);
	sends_ok(100, 101);
	/* the NAK's PSN is below anything seen: the response is matched by its QP once paired */
	EXPECT_NO_EVENTS(ack(100));
	EXPECT_EVENTS(nak(98, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_NO_EVENTS(send_only(98));
	EXPECT_NO_EVENTS(send_only(99));
	EXPECT_EVENTS(send_only(100), "psn.retransmit");
	EXPECT_EVENTS(send_only(101), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(102));
}

/* ==== 24-bit wrap ==== */

Test(analyze, wrap_in_order_once_no_gap)
{
	mk(0, 0);
	static const uint32_t psns[] = {0xfffffe, 0xffffff, 0, 1, 2};
	unsigned wraps = 0;
	for (unsigned i = 0; i < 5; i++) {
		const struct roce_pkt *p = send_only(psns[i]);
		if (u_has(p, "psn.wrap")) {
			EXPECT_EVENTS(p, "psn.wrap");
			wraps++;
		} else {
			EXPECT_NO_EVENTS(p);
		}
	}
	cr_assert_eq(wraps, 1, "psn.wrap once");
	struct roce_stream_stats st = req_stats();
	cr_assert_eq(st.gaps, 0);
	cr_assert_eq(st.first_psn, 0xfffffe);
	cr_assert_eq(st.last_psn, 2);
}

Test(analyze, gap_across_wrap)
{
	mk(0, 0);
	sends_ok(0xfffffd, 0xfffffe);
	EXPECT_EVENTS(send_only(0xffffff), "psn.wrap");
	EXPECT_EVENTS(send_only(3), "psn.gap");  /* 0, 1, 2 missing */
	expect_psns("psn.gap", 0, 3);
	EXPECT_NO_EVENTS(send_only(4));
	cr_assert_eq(req_stats().missing_psns, 3);
}

Test(analyze, gap_jumping_over_the_wrap_counts_right)
{
	mk(0, 0);
	sends_ok(0xfffffc, 0xfffffd);
	const struct roce_pkt *p = send_only(1);  /* 0xfffffe, 0xffffff, 0 missing */
	cr_assert(u_has(p, "psn.gap"), "{%s}", u_events_str(p));
	expect_psns("psn.gap", 0xfffffe, 1);
	EXPECT_NO_EVENTS(send_only(2));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "gaps 1 missing_psns 3");
}

Test(analyze, retransmit_across_wrap_after_nak)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(0xfffffe));
	EXPECT_EVENTS(send_only(0xffffff), "psn.wrap");
	sends_ok(0, 1);
	EXPECT_EVENTS(nak(0xffffff, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(send_only(0xffffff), "psn.retransmit");  /* right restart, no second wrap */
	expect_psns("psn.retransmit", 2, 0xffffff);
	EXPECT_EVENTS(send_only(0), "psn.retransmit");
	EXPECT_EVENTS(send_only(1), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(2));
	cr_assert_eq(req_stats().retransmits, 3);
}

Test(analyze, timeout_resend_across_wrap)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(0xfffffe));
	EXPECT_EVENTS(send_only(0xffffff), "psn.wrap");
	EXPECT_NO_EVENTS(send_only(0));
	EXPECT_EVENTS(send_only(0xfffffe), "retransmit.timeout", "psn.retransmit");
	expect_psns("retransmit.timeout", 1, 0xfffffe);
	EXPECT_EVENTS(send_only(0xffffff), "psn.retransmit");
	EXPECT_EVENTS(send_only(0), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(1));
}

Test(analyze, read_spanning_the_wrap)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(0xfffffd));
	/* reserves 0xfffffe, 0xffffff, 0, 1 */
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 0xfffffe, .dmalen = 4096), "psn.wrap");
	EXPECT_NO_EVENTS(send_only(2));
}

/* ==== READ PSN accounting ==== */

Test(analyze, read_reserves_psns_next_in_order)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(99));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 100, .dmalen = 4096));  /* 100..103 */
	EXPECT_NO_EVENTS(send_only(104));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "gaps 0 last_psn 104");
}

Test(analyze, read_reserves_psns_one_more_is_gap)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 100, .dmalen = 4096));
	EXPECT_EVENTS(send_only(105), "psn.gap");
	expect_psns("psn.gap", 104, 105);
	cr_assert_eq(req_stats().missing_psns, 1);
}

Test(analyze, read_partial_last_segment_rounds_up)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 10, .dmalen = 1025));  /* 2 PSNs */
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 12, .dmalen = 0));     /* 1 PSN */
	EXPECT_NO_EVENTS(send_only(13));
}

Test(analyze, read_responses_in_order_then_replayed)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 100, .dmalen = 4096));
	EXPECT_NO_EVENTS(RSP(.op = READ_FIRST, .psn = 100, .len = 1024, .syn = SYN_ACK));
	EXPECT_NO_EVENTS(RSP(.op = READ_MIDDLE, .psn = 101, .len = 1024));
	EXPECT_NO_EVENTS(RSP(.op = READ_MIDDLE, .psn = 102, .len = 1024));
	EXPECT_NO_EVENTS(RSP(.op = READ_LAST, .psn = 103, .len = 1024, .syn = SYN_ACK));
	EXPECT_NO_EVENTS(send_only(104));
	/* the responder replays the last two */
	EXPECT_EVENTS(RSP(.op = READ_MIDDLE, .psn = 102, .len = 1024), "psn.retransmit");
	expect_psns("psn.retransmit", 104, 102);
	EXPECT_EVENTS(RSP(.op = READ_LAST, .psn = 103, .len = 1024, .syn = SYN_ACK), "psn.retransmit");
	expect_psns("psn.retransmit", 104, 103);
	struct roce_stream_stats st;
	cr_assert(stats(2, 1, QP_A, &st));
	expect_stats(&st, "retransmits 2 responses 6 requests 0");
	cr_assert_eq(req_stats().retransmits, 0);
}

Test(analyze, read_response_only_replayed)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 7, .dmalen = 512));
	EXPECT_NO_EVENTS(RSP(.op = READ_ONLY, .psn = 7, .len = 512, .syn = SYN_ACK));
	EXPECT_EVENTS(RSP(.op = READ_ONLY, .psn = 7, .len = 512, .syn = SYN_ACK), "psn.retransmit");
	expect_psns("psn.retransmit", 8, 7);
}

/* A READ response skipped and then arriving late is its first sighting, not a replay. */
Test(analyze, read_response_late_is_not_replay)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 100, .dmalen = 3072));
	EXPECT_NO_EVENTS(RSP(.op = READ_FIRST, .psn = 100, .len = 1024, .syn = SYN_ACK));
	EXPECT_NO_EVENTS(RSP(.op = READ_LAST, .psn = 102, .len = 1024, .syn = SYN_ACK));
	EXPECT_NO_EVENTS(RSP(.op = READ_MIDDLE, .psn = 101, .len = 1024));
	EXPECT_EVENTS(RSP(.op = READ_MIDDLE, .psn = 101, .len = 1024), "psn.retransmit");
}

/* No configured PMTU: it is learned from the READ responses and then used for READ spans. */
Test(analyze, pmtu_learned_from_read_responses)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 100, .dmalen = 4096));
	EXPECT_NO_EVENTS(RSP(.op = READ_FIRST, .psn = 100, .len = 1024, .syn = SYN_ACK));
	EXPECT_NO_EVENTS(RSP(.op = READ_MIDDLE, .psn = 101, .len = 1024));
	EXPECT_NO_EVENTS(RSP(.op = READ_MIDDLE, .psn = 102, .len = 1024));
	EXPECT_NO_EVENTS(RSP(.op = READ_LAST, .psn = 103, .len = 1024, .syn = SYN_ACK));
	/* the first READ's span was unknown when it was sent: 104 is no gap */
	EXPECT_NO_EVENTS(send_only(104));
	/* now known: a 2048-byte READ at 105 reserves 105, 106 and 108 skips 107 */
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 105, .dmalen = 2048));
	EXPECT_EVENTS(send_only(108), "psn.gap");
	expect_psns("psn.gap", 107, 108);
	cr_assert_eq(req_stats().pmtu, 1024);
	struct roce_stream_stats st;
	cr_assert(stats(2, 1, QP_A, &st));
	cr_assert_eq(st.pmtu, 1024);
}

/* Without a learned PMTU the READ's span is bounded by the smallest PMTU (256): a jump within it
 * is no gap, one beyond it is. */
Test(analyze, read_span_unknown_pmtu_bounds)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 100, .dmalen = 1024));  /* up to 4 PSNs */
	EXPECT_NO_EVENTS(send_only(104));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 105, .dmalen = 1024));  /* 105..108 at most */
	EXPECT_EVENTS(send_only(113), "psn.gap");
	expect_psns("psn.gap", 106, 113);
	cr_assert_eq(req_stats().gaps, 1);
}

/* A READ arriving late (after a gap) fills its whole span: a request re-issued inside that span
 * later is a resend of a PSN already used, not a late first sending. */
Test(analyze, late_read_fills_its_span)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(1));
	EXPECT_EVENTS(send_only(5), "psn.gap");
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 2, .dmalen = 3000), "psn.out_of_order");  /* 2, 3, 4 */
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 3, .dmalen = 1976, .ts = now + 5000000), "psn.retransmit",
		      "retransmit.timeout");
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "out_of_order 1 retransmits 1 timeouts 1");
}

/* A resent READ takes its whole span too, over PSNs the capture never saw: a request inside it
 * later repeats a PSN already used. */
Test(analyze, resent_read_takes_its_span)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(1));
	EXPECT_NO_EVENTS(send_only(2));
	EXPECT_EVENTS(send_only(6), "psn.gap");  /* 3, 4, 5 missing */
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 2, .dmalen = 4096, .ts = now + 5000000), "psn.retransmit",
		      "retransmit.timeout");  /* 2 .. 5 */
	const struct roce_pkt *p = send_only(4);
	cr_assert(u_has(p, "psn.retransmit"), "{%s}", u_events_str(p));
	cr_assert_not(u_has(p, "psn.out_of_order"), "{%s}", u_events_str(p));
}

/* Requests seen first late complete their messages too (the MSN check counts them already). */
Test(analyze, late_requests_count_as_messages)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(1));
	EXPECT_EVENTS(send_only(3), "psn.gap");
	EXPECT_EVENTS(send_only(2), "psn.out_of_order");
	EXPECT_NO_EVENTS(ack(3));
	EXPECT_EVENTS(REQ(.op = WRITE_ONLY, .psn = 5, .len = 64, .dmalen = 64), "psn.gap");
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 4, .dmalen = 8), "psn.out_of_order");
	EXPECT_EVENTS(REQ(.op = WRITE_FIRST, .psn = 8, .len = 1024, .dmalen = 2048), "psn.gap");
	EXPECT_EVENTS(REQ(.op = WRITE_MIDDLE, .psn = 6, .len = 1024), "psn.out_of_order");  /* no end */
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "messages 5 messages_send 3 messages_write 1 messages_read 1");
}

/* The wrap is reported however next_psn crosses it: a READ's unknown span taken up by the next
 * request, or a resent READ reserving more PSNs once the PMTU is known. */
Test(analyze, wrap_with_read_spans_learned_late)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(0xfffffd));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 0xfffffe, .dmalen = 4096));  /* 1 to 16 PSNs */
	EXPECT_EVENTS(send_only(2), "psn.wrap");
	expect_psns("psn.wrap", 0xffffff, 2);

	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(0xfffffd));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 0xfffffe, .dmalen = 2048));  /* 1 PSN for now */
	EXPECT_NO_EVENTS(RSP(.op = READ_FIRST, .psn = 0xfffffe, .len = 1024, .syn = SYN_ACK));  /* PMTU 1024 */
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 0xfffffe, .dmalen = 4096, .ts = now + 5000000), "psn.retransmit",
		      "retransmit.timeout", "psn.wrap");  /* now 4: 0xfffffe .. 1 */
	EXPECT_NO_EVENTS(send_only(2));
}

/* A READ response for a PSN no READ reserved is unsolicited, like such an ACK. */
Test(analyze, read_response_never_requested)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 10, .dmalen = 64));
	EXPECT_NO_EVENTS(RSP(.op = READ_ONLY, .psn = 10, .len = 64, .syn = SYN_ACK));
	EXPECT_EVENTS(RSP(.op = READ_ONLY, .psn = 20, .len = 64, .syn = SYN_ACK), "ack.unsolicited");
	expect_psns("ack.unsolicited", 10, 20);
	/* PMTU unknown: the READ may have reserved up to one PSN per 256 bytes */
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 10, .dmalen = 1024));  /* 10 .. 13 at most */
	EXPECT_NO_EVENTS(RSP(.op = READ_FIRST, .psn = 10, .len = 256, .syn = SYN_ACK));
	EXPECT_NO_EVENTS(RSP(.op = READ_LAST, .psn = 13, .len = 256, .syn = SYN_ACK));
	EXPECT_EVENTS(RSP(.op = READ_ONLY, .psn = 14, .len = 64, .syn = SYN_ACK), "ack.unsolicited");
}

/* UC has no acknowledgements and so no ACK timer: a repeated PSN is a retransmit, never a
 * timeout resend. */
Test(analyze, uc_repeat_is_no_timeout)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = UC_SEND_ONLY, .psn = 1, .len = 8));
	EXPECT_NO_EVENTS(REQ(.op = UC_SEND_ONLY, .psn = 2, .len = 8));
	EXPECT_EVENTS(REQ(.op = UC_SEND_ONLY, .psn = 1, .len = 8, .ts = now + 5000000), "psn.retransmit");
	cr_assert_eq(req_stats().timeouts, 0);
}

/* More NAKs and RNR NAKs on one stream than 16 bits count. */
Test(analyze, nak_counts_past_65535)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(1));
	for (unsigned i = 0; i < 70000; i++) {
		RSP(.op = ACK, .psn = 1, .syn = SYN_RNR);
		REQ(.op = SEND_ONLY, .psn = 1, .len = 64, .ts = now + 1000000);
	}
	struct roce_stream_stats st;
	cr_assert(stats(1, 2, QP_B, &st));  /* on the row of the PSNs they report */
	cr_assert_eq(st.rnr_naks, 70000);
}

Test(analyze, pmtu_learned_from_send_first)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 1, .len = 2048));
	EXPECT_NO_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 2, .len = 2048));
	EXPECT_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 3, .len = 1024), "msg.pmtu_violation");
	EXPECT_EVENTS(REQ(.op = SEND_LAST, .psn = 4, .len = 2052), "msg.pmtu_violation");
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 5, .len = 2048));
	cr_assert_eq(req_stats().pmtu, 2048);
}

/* ==== ACK / NAK ==== */

Test(analyze, coalesced_ack_no_event)
{
	mk(0, 0);
	sends_ok(100, 104);
	EXPECT_NO_EVENTS(ack(104));
	sends_ok(105, 107);
	EXPECT_NO_EVENTS(ack(105));
	EXPECT_NO_EVENTS(ack(107));
	EXPECT_NO_EVENTS(ack(107));  /* a repeated ACK is not backwards */
	struct roce_stream_stats st;
	cr_assert(stats(2, 1, QP_A, &st));
	cr_assert_eq(st.responses, 4);
}

/* The MSN of an ACK: the previous ACK's plus the request messages completed in between
 * (coalesced ACKs count them all; an ACK inside a message counts nothing yet). */
static const struct roce_pkt *ack_msn(uint32_t psn, uint32_t msn)
{
	return RSP(.op = ACK, .psn = psn, .syn = SYN_ACK, .msn_set = true, .msn = msn);
}

Test(analyze, messages_by_kind)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 1, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 2, .len = 10));
	EXPECT_NO_EVENTS(send_only(3));
	EXPECT_NO_EVENTS(REQ(.op = WRITE_ONLY, .psn = 4, .len = 10, .dmalen = 10));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 5, .dmalen = 100));
	EXPECT_NO_EVENTS(REQ(.op = 0x13, .psn = 6));  /* COMPARE_SWAP */
	EXPECT_NO_EVENTS(REQ(.op = 0x14, .psn = 7));  /* FETCH_ADD */
	EXPECT_EVENTS(send_only(6), "retransmit.timeout", "psn.retransmit");  /* nothing new completes */
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "messages 6 messages_send 2 messages_write 1 messages_read 1 messages_atomic 2 messages_other 0");
}

Test(analyze, msn_counts_completed_messages)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 100, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 101, .len = 10));
	EXPECT_NO_EVENTS(ack_msn(101, 41));  /* the first ACK sets the reference */
	EXPECT_NO_EVENTS(REQ(.op = WRITE_ONLY, .psn = 102, .len = 10, .dmalen = 10));
	EXPECT_NO_EVENTS(send_only(103));
	EXPECT_NO_EVENTS(send_only(104));
	EXPECT_NO_EVENTS(ack_msn(104, 44));  /* coalesced: three messages */
	EXPECT_NO_EVENTS(ack_msn(104, 44));  /* the same ACK again: nothing in between */
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 105, .len = 1024));
	EXPECT_NO_EVENTS(ack_msn(105, 44));  /* inside a message: not completed yet */
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 106, .len = 10));
	EXPECT_EVENTS(ack_msn(106, 44), "ack.msn_mismatch");
	const struct roce_finding *x = finding("ack.msn_mismatch");
	cr_assert(x->has_psn && x->msn, "the finding holds MSNs");
	cr_assert_eq(x->expected_psn, 45);
	cr_assert_eq(x->seen_psn, 44);
	EXPECT_NO_EVENTS(send_only(107));
	EXPECT_NO_EVENTS(ack_msn(107, 45));  /* measured from the ACK before, as it was */
	/* READs and atomics are messages too; a READ ends at its last response PSN */
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 108, .dmalen = 2048));  /* 108, 109 */
	EXPECT_NO_EVENTS(send_only(110));
	EXPECT_EVENTS(ack_msn(110, 46), "ack.msn_mismatch");
	cr_assert_eq(finding("ack.msn_mismatch")->expected_psn, 47);
	/* the 24-bit MSN wraps */
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(500));
	EXPECT_NO_EVENTS(ack_msn(500, 0xffffff));
	EXPECT_NO_EVENTS(send_only(501));
	EXPECT_NO_EVENTS(send_only(502));
	EXPECT_NO_EVENTS(ack_msn(502, 1));
	EXPECT_EVENTS(ack_msn(502, 2), "ack.msn_mismatch");
}

/* A PSN missing from the capture may have ended a message: no MSN check across it, and the next
 * ACK is the new reference. */
Test(analyze, msn_not_checked_across_missing_psns)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(300));
	EXPECT_NO_EVENTS(ack_msn(300, 10));
	EXPECT_EVENTS(send_only(302), "psn.gap");
	EXPECT_NO_EVENTS(ack_msn(302, 900));
	EXPECT_NO_EVENTS(send_only(303));
	EXPECT_NO_EVENTS(ack_msn(303, 901));
	EXPECT_EVENTS(send_only(301), "psn.out_of_order");  /* arrives late: a message after all */
	EXPECT_NO_EVENTS(send_only(304));
	EXPECT_NO_EVENTS(ack_msn(304, 902));
	/* an ACK more than 128 PSNs after the reference: not checked either */
	sends_ok(305, 500);
	EXPECT_NO_EVENTS(ack_msn(500, 5));
	EXPECT_NO_EVENTS(send_only(501));
	EXPECT_EVENTS(ack_msn(501, 5), "ack.msn_mismatch");
}

Test(analyze, ack_psn_backwards)
{
	mk(0, 0);
	sends_ok(100, 104);
	EXPECT_NO_EVENTS(ack(103));
	/* its MSN is newer than the newest ACK's: the responder went back (an older one: ack.reordered) */
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 101, .syn = SYN_ACK, .msn_set = true, .msn = 5), "ack.psn_backwards");
	expect_psns("ack.psn_backwards", 103, 101);
	EXPECT_NO_EVENTS(ack(104));
}

Test(analyze, ack_unsolicited)
{
	mk(0, 0);
	sends_ok(100, 102);
	EXPECT_NO_EVENTS(ack(100));
	EXPECT_EVENTS(ack(105), "ack.unsolicited");  /* 103..105 never sent */
	expect_psns("ack.unsolicited", 102, 105);
	EXPECT_NO_EVENTS(send_only(103));
	/* the next PSN itself is not sent yet either */
	mk(0, 0);
	sends_ok(100, 102);
	EXPECT_EVENTS(ack(103), "ack.unsolicited");
	expect_psns("ack.unsolicited", 102, 103);
}

/* Each NAK code on exactly its NAK frame, with its PSN; counted by code on the NAK's stream. */
Test(analyze, nak_codes)
{
	static const char *const names[5] = {"nak.psn_seq_err", "nak.invalid_request", "nak.remote_access",
					     "nak.remote_op", "nak.invalid_rd"};
	for (unsigned code = 0; code < 5; code++) {
		mk(0, 0);
		sends_ok(100, 104);
		EXPECT_NO_EVENTS(ack(101));
		EXPECT_EVENTS(nak(102, code), names[code]);
		expect_psns(names[code], 102, 102);
		cr_assert_eq(finding(names[code])->qpn, QP_A);
		struct roce_stream_stats st;
		cr_assert(stats(1, 2, QP_B, &st));  /* on the row of the PSNs they report */
		for (unsigned c = 0; c < 5; c++)
			cr_assert_eq(st.naks[c], c == code, "code %u: naks[%u] = %llu", code, c,
				     (unsigned long long)st.naks[c]);
		cr_assert_eq(st.rnr_naks, 0);
		/* only a PSN sequence error NAK asks for a go-back-N restart: after any other the
		 * backward resend is the requester's timer */
		const struct roce_pkt *p = send_only(102);
		if (code == ROCE_NAK_PSN_SEQ_ERR)
			EXPECT_EVENTS(p, "psn.retransmit");
		else
			EXPECT_EVENTS(p, "retransmit.timeout", "psn.retransmit");
	}
}

Test(analyze, rnr_nak_and_right_restart)
{
	mk(0, 0);
	sends_ok(100, 103);
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 102, .syn = SYN_RNR, .ts = 3000000), "nak.rnr");
	expect_psns("nak.rnr", 102, 102);
	/* the restart after the RNR timer (code 14: 1280 us), at the NAK's PSN */
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 102, .len = 64, .ts = 3000000 + 1300000), "psn.retransmit");
	EXPECT_EVENTS(send_only(103), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(104));
	struct roce_stream_stats st;
	cr_assert(stats(1, 2, QP_B, &st));  /* on the row of the PSNs they report */
	cr_assert_eq(st.rnr_naks, 1);
	cr_assert_eq(st.naks[0], 0);
	cr_assert_eq(req_stats().timeouts, 0);
}

Test(analyze, rnr_nak_wrong_restart)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 101, .syn = SYN_RNR, .ts = 5000000), "nak.rnr");
	/* resent from past 101, then on to a new PSN: 101 never resent in the episode */
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 103, .len = 64, .ts = 7000700), "psn.retransmit");
	EXPECT_EVENTS(send_only(104), "psn.retransmit");
	EXPECT_EVENTS(send_only(105), "psn.retransmit");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 106, .len = 64, .ts = 7100000), "nak.restart_wrong");
	expect_psns("nak.restart_wrong", 101, 103);
	cr_assert_eq(finding("nak.restart_wrong")->delta_ns, 2100000, "NAK to the episode's end");
	cr_assert_eq(finding("nak.restart_wrong")->ref_frame, 7, "the RNR NAK");
}

/* An RNR NAK with timer code 14 asks for 1280 us: a retry 700 us later is early; the recovery
 * time (NAK to restart) goes into the stream's statistics. */
Test(analyze, rnr_retry_before_timer)
{
	mk(0, 0);
	sends_ok(100, 103);
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 102, .syn = SYN_RNR, .ts = 4000000), "nak.rnr");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 102, .len = 64, .ts = 4700000), "psn.retransmit", "rnr.retry_early");
	expect_psns("rnr.retry_early", 102, 102);
	cr_assert_eq(finding("rnr.retry_early")->delta_ns, 700000);
	cr_assert_eq(req_stats().recover_count, 1);
	cr_assert_eq(req_stats().recover_max_us, 700);
}

Test(analyze, nak_duplicate_before_restart_only)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err", "nak.duplicate");
	expect_psns("nak.duplicate", 102, 102);
	/* another code or PSN is not a duplicate */
	EXPECT_EVENTS(nak(103, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(nak(103, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err", "nak.duplicate");
	EXPECT_EVENTS(send_only(103), "psn.retransmit");  /* restart at the last NAK's PSN */
	/* after the restart the same NAK is a new error, not a duplicate */
	EXPECT_EVENTS(nak(103, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	struct roce_stream_stats st;
	cr_assert(stats(1, 2, QP_B, &st));  /* on the row of the PSNs they report */
	cr_assert_eq(st.naks[ROCE_NAK_PSN_SEQ_ERR], 5);
}

Test(analyze, nak_restart_right_at_nak_psn)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(send_only(102), "psn.retransmit");
	EXPECT_EVENTS(send_only(103), "psn.retransmit");
	EXPECT_EVENTS(send_only(104), "psn.retransmit");
	EXPECT_EVENTS(send_only(105), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(106));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "timeouts 0 retransmits 4");
}

/* Two capture points written in batches (dumpcap): the downstream point's frames come first in
 * the file, then the upstream one's. 102 was lost between the points: the downstream point shows
 * a gap and the responder's NAK, then 102 comes from the upstream point, read after the NAK but
 * seen before it (its time): a late packet, not the resend the NAK asked for, which follows. */
Test(analyze, request_seen_before_nak_read_after_it_is_late)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .ipid = 1, .ts = 1000));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .ipid = 2, .ts = 2000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 103, .len = 64, .ipid = 4, .ts = 4000), "psn.gap");
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 102, .syn = SYN_NAK(ROCE_NAK_PSN_SEQ_ERR), .ts = 5000), "nak.psn_seq_err");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 102, .len = 64, .ipid = 3, .ts = 3000), "psn.out_of_order");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 102, .len = 64, .ipid = 5, .ts = 6000), "psn.retransmit");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 103, .len = 64, .ipid = 6, .ts = 7000), "psn.retransmit");
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 104, .len = 64, .ipid = 7, .ts = 8000));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "out_of_order 1 missing_psns 1 lost_before 0 retransmits 2 timeouts 0");
}

Test(analyze, nak_restart_wrong_ahead_of_nak_psn)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 102, .syn = SYN_NAK(ROCE_NAK_PSN_SEQ_ERR), .ts = 7000000),
		      "nak.psn_seq_err");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 104, .len = 64, .ts = 7012345), "psn.retransmit");
	cr_assert_eq(finding("psn.retransmit")->delta_ns, -1);
	EXPECT_EVENTS(send_only(105), "psn.retransmit");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 106, .len = 64, .ts = 7020000), "nak.restart_wrong");
	expect_psns("nak.restart_wrong", 102, 104);
	cr_assert_eq(finding("nak.restart_wrong")->delta_ns, 20000, "delta = NAK to the episode's end");
	EXPECT_NO_EVENTS(send_only(107));  /* one restart_wrong per episode */
	cr_assert_eq(req_stats().timeouts, 0);
}

/* Restarting before the NAK's PSN resends what the NAK acknowledged: wrong at once (a READ may
 * be asked again from further back: its responses may not all have arrived). */
Test(analyze, nak_restart_wrong_before_nak_psn)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(nak(103, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(send_only(101), "psn.retransmit", "nak.restart_wrong");
	expect_psns("nak.restart_wrong", 103, 101);
	EXPECT_EVENTS(send_only(102), "psn.retransmit");
}

/* The mirror-port case: a NAK at p, then p+1 and p+2 resent, then p itself (its resend
 * reordered before the capture point): a right restart, no alarm. */
Test(analyze, nak_restart_right_when_p_comes_late_in_the_episode)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(send_only(103), "psn.retransmit");
	EXPECT_EVENTS(send_only(104), "psn.retransmit");
	EXPECT_EVENTS(send_only(102), "psn.retransmit");
	EXPECT_EVENTS(send_only(105), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(106));
	cr_assert_eq(req_stats().recover_count, 1);
}

/* p's resend lost before the capture point: an ACK covering p ends the episode, no alarm. */
Test(analyze, nak_restart_p_resend_lost_before_capture)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(send_only(103), "psn.retransmit");
	EXPECT_NO_EVENTS(ack(103));
	EXPECT_EVENTS(send_only(104), "psn.retransmit");
	EXPECT_EVENTS(send_only(105), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(106));
}

/* New PSNs right after the NAK, before any resend (sent before the requester took the NAK in), do
 * not end the episode. */
Test(analyze, nak_new_psns_before_the_restart)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_NO_EVENTS(send_only(106));
	EXPECT_EVENTS(send_only(102), "psn.retransmit");
	for (uint32_t psn = 103; psn <= 106; psn++)
		EXPECT_EVENTS(send_only(psn), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(107));
}

/* NAKs in a row (the responder saw several gaps): a restart at the PSN of any of them answers. */
Test(analyze, naks_in_a_row_restart_at_the_first)
{
	mk(0, 0);
	sends_ok(100, 110);
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(nak(105, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(send_only(102), "psn.retransmit");
	for (uint32_t psn = 103; psn <= 110; psn++)
		EXPECT_EVENTS(send_only(psn), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(111));
}

/* With counting IPv4 ids the verdict waits for late frames: a resend of p sent before the new
 * PSN that ended the episode (an older id) arrives after it: right. Without such a frame, the
 * verdict comes PENDING_IDS ids later. */
Test(analyze, nak_restart_verdict_waits_for_late_frames)
{
	mk(0, 0);
	uint16_t id = 100;
	for (uint32_t psn = 100; psn <= 105; psn++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = psn, .len = 64, .ipid = id++));
	EXPECT_EVENTS(nak(102, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 103, .len = 64, .ipid = 107), "psn.retransmit");
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 106, .len = 64, .ipid = 108));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 102, .len = 64, .ipid = 106), "psn.retransmit");
	for (uint16_t i = 0; i < 70; i++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 107 + i, .len = 64, .ipid = (uint16_t)(109 + i)));
	/* the same without the late resend of p */
	EXPECT_EVENTS(nak(170, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 171, .len = 64, .ipid = 300), "psn.retransmit");
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 177, .len = 64, .ipid = 301));
	for (uint16_t i = 0; i < 62; i++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 178 + i, .len = 64, .ipid = (uint16_t)(302 + i)));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 240, .len = 64, .ipid = 365), "nak.restart_wrong");
	expect_psns("nak.restart_wrong", 170, 171);
}

/* A stream whose first frame seen is a later PSN, reordered ahead of the ones sent before it
 * (older IPv4 ids): those are the stream's start, not late packets, and its first PSN moves back
 * to them. Without ids that count, they are late packets. */
Test(analyze, stream_starts_with_an_early_packet)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 105, .len = 64, .ipid = 15));
	for (uint32_t psn = 100; psn < 105; psn++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = psn, .len = 64, .ipid = (uint16_t)(10 + psn - 100)));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 106, .len = 64, .ipid = 16));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "first_psn 100 out_of_order 0");
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(105));
	EXPECT_EVENTS(send_only(100), "psn.out_of_order");
}

/* The retry count is 3 bits: the 8th restart at one PSN with no ACK covering it is one too many. */
Test(analyze, retry_exceeded_on_the_8th_resend)
{
	mk(0, 0);
	sends_ok(100, 101);
	for (unsigned n = 1; n <= 7; n++) {
		EXPECT_EVENTS(send_only(100), "psn.retransmit", "retransmit.timeout");
		EXPECT_EVENTS(send_only(101), "psn.retransmit");
	}
	EXPECT_EVENTS(send_only(100), "psn.retransmit", "retransmit.timeout", "retransmit.retry_exceeded");
	expect_psns("retransmit.retry_exceeded", 100, 100);
	EXPECT_EVENTS(send_only(101), "psn.retransmit");
	EXPECT_EVENTS(send_only(100), "psn.retransmit", "retransmit.timeout");  /* once, on the 8th */
	/* an ACK covering it starts the count again */
	EXPECT_NO_EVENTS(ack(100));
	EXPECT_EVENTS(send_only(101), "psn.retransmit");  /* goes on after 100: no restart */
	for (unsigned n = 1; n <= 7; n++)
		EXPECT_EVENTS(send_only(101), "psn.retransmit", "retransmit.timeout");
	EXPECT_EVENTS(send_only(101), "psn.retransmit", "retransmit.timeout", "retransmit.retry_exceeded");
}

/* Restarts at a later PSN of the stuck PSN's run, no ACK covering it: the stuck PSN's resend is
 * missing from the capture, and the restart counts for it (inferred): one error per stuck PSN,
 * on the 8th restart, with the counts seen and inferred. A NAK acknowledges the PSNs before its
 * own: a restart at its PSN is no resend of an earlier one. */
Test(analyze, retry_exceeded_counts_restarts_missing_from_the_capture)
{
	mk(0, 0);
	sends_ok(100, 102);
	for (unsigned n = 1; n <= 7; n++) {
		if (n == 2 || n == 5) {  /* 100's resend missing */
			EXPECT_EVENTS(send_only(101), "psn.retransmit", "retransmit.timeout");
		} else {
			EXPECT_EVENTS(send_only(100), "psn.retransmit", "retransmit.timeout");
			EXPECT_EVENTS(send_only(101), "psn.retransmit");
		}
		EXPECT_EVENTS(send_only(102), "psn.retransmit");
	}
	EXPECT_EVENTS(send_only(101), "psn.retransmit", "retransmit.timeout", "retransmit.retry_exceeded");
	expect_psns("retransmit.retry_exceeded", 100, 100);
	cr_assert_eq(finding("retransmit.retry_exceeded")->resends_seen, 5);
	cr_assert_eq(finding("retransmit.retry_exceeded")->resends_inferred, 3);
	EXPECT_EVENTS(send_only(102), "psn.retransmit");
	for (unsigned n = 1; n <= 9; n++) {  /* once for the stuck PSN, whichever PSN it restarts at */
		EXPECT_EVENTS(send_only(n % 2 ? 100 : 101), "psn.retransmit", "retransmit.timeout");
		EXPECT_EVENTS(send_only(102), "psn.retransmit");
	}
	/* a NAK at 101 acknowledges 100: restarts at 101 count for 101 alone */
	EXPECT_EVENTS(nak(101, 0), "nak.psn_seq_err");
	for (unsigned n = 1; n <= 8; n++) {
		if (n == 1)
			EXPECT_EVENTS(send_only(101), "psn.retransmit");  /* the NAK's restart */
		else if (n < 8)
			EXPECT_EVENTS(send_only(101), "psn.retransmit", "retransmit.timeout");
		else
			EXPECT_EVENTS(send_only(101), "psn.retransmit", "retransmit.timeout", "retransmit.retry_exceeded");
		if (n == 8)
			cr_assert_eq(finding("retransmit.retry_exceeded")->resends_seen, 8);
		EXPECT_EVENTS(send_only(102), "psn.retransmit");
	}
}

/* A timeout resend whose original had arrived: the responder answers the duplicate with a second
 * ACK of the PSN that first covered the resend; retransmit.spurious on it, and the PSN is not
 * lost after the capture point. An ACK covering the PSN before the resend: not counted lost, and
 * said so. One ACK after the resend, or a newer ACK before the second: no proof, counted lost. */
Test(analyze, timeout_resend_spurious_on_a_second_ack)
{
	mk(0, 0);
	sends_ok(100, 100);
	EXPECT_EVENTS(send_only(100), "psn.retransmit", "retransmit.timeout");
	cr_assert_not(finding("retransmit.timeout")->acked_before);
	cr_assert_eq(req_stats().lost_after, 1);
	EXPECT_NO_EVENTS(ack(100));
	EXPECT_EVENTS(ack(100), "retransmit.spurious");
	expect_psns("retransmit.spurious", 100, 100);
	cr_assert_eq(finding("retransmit.spurious")->ref_frame, 2);
	cr_assert_eq(req_stats().lost_after, 0);
	EXPECT_NO_EVENTS(ack(100));  /* once */
	/* ACKed before the resend */
	sends_ok(101, 101);
	EXPECT_NO_EVENTS(ack(101));
	EXPECT_EVENTS(send_only(101), "psn.retransmit", "retransmit.timeout");
	cr_assert(finding("retransmit.timeout")->acked_before);
	EXPECT_NO_EVENTS(ack(101));
	cr_assert_eq(req_stats().lost_after, 0);
	/* one ACK of the resent PSN, then a newer one and its second */
	sends_ok(102, 102);
	EXPECT_EVENTS(send_only(102), "psn.retransmit", "retransmit.timeout");
	EXPECT_NO_EVENTS(ack(102));
	sends_ok(103, 103);
	EXPECT_NO_EVENTS(ack(103));
	EXPECT_NO_EVENTS(ack(103));
	/* two restarts at one PSN: the second ACK may answer the second */
	sends_ok(104, 104);
	EXPECT_EVENTS(send_only(104), "psn.retransmit", "retransmit.timeout");
	EXPECT_EVENTS(send_only(104), "psn.retransmit", "retransmit.timeout");
	EXPECT_NO_EVENTS(ack(104));
	EXPECT_NO_EVENTS(ack(104));
	cr_assert_eq(req_stats().lost_after, 2);
}

/* An ACK older than the newest: reordered on the way when sent before it (an older IPv4 id, or,
 * without counting ids, an MSN that is not newer); else the responder went back. */
Test(analyze, ack_reordered_or_backwards)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 101, .syn = SYN_ACK, .ipid = 10));
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 104, .syn = SYN_ACK, .ipid = 12));
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 102, .syn = SYN_ACK, .ipid = 11), "ack.reordered");
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 103, .syn = SYN_ACK, .ipid = 13), "ack.psn_backwards");
	/* ids that do not count: the MSN tells */
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_NO_EVENTS(ack(104));
	EXPECT_EVENTS(ack(102), "ack.reordered");
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 103, .syn = SYN_ACK, .msn_set = true, .msn = 7), "ack.psn_backwards");
}

/* ---- copies ---- */

/* The same frame on another capture interface within the window is a copy: frame.copy, counted,
 * and out of the analysis (no resend). Outside the window, or at the same place with ids that do
 * not count, it is a resend. */
Test(analyze, copies_by_interface_and_window)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 1, .ts = 1000000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 2, .ts = 1000400), "frame.copy");
	cr_assert_eq(finding("frame.copy")->ref_frame, 1);
	cr_assert_eq(finding("frame.copy")->delta_ns, 400);
	cr_assert_eq(F.stream, 1);
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 1, .ts = 1000500), "psn.retransmit",
		      "retransmit.timeout");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 2, .ts = 3000000), "psn.retransmit",
		      "retransmit.timeout");
	struct roce_stream_stats st = req_stats();
	cr_assert_eq(st.copies, 1);
	cr_assert_eq(st.packets, 3, "a copy is not counted as a packet");
	cr_assert_eq(st.retransmits, 2);
}

/* At the same place, the same bytes with a counting IPv4 id unchanged: a network duplicate. */
Test(analyze, copies_same_place_same_counted_id)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .ipid = 7));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .ipid = 8));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .ipid = 8), "frame.copy");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .ipid = 9), "psn.retransmit", "retransmit.timeout");
	cr_assert_eq(req_stats().copies, 1);
}

/* The window: the defaults (NULL, or roce_analyzer_config_init) look for copies within
 * ROCE_COPY_WINDOW_US_DEFAULT; 0 turns copy detection off, as rocedump's --copy-window-us 0. */
Test(analyze, copy_window_default_and_zero_off)
{
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cr_assert_eq(cfg.copy_window_us, ROCE_COPY_WINDOW_US_DEFAULT);
	cr_assert_eq(cfg.max_streams, ROCE_MAX_STREAMS_DEFAULT);
	cr_assert_eq(cfg.pmtu, 0);
	cr_assert_null(cfg.congestion);

	const int64_t window_ns = ROCE_COPY_WINDOW_US_DEFAULT * 1000;
	mk_cfg(NULL);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 1, .ts = 1000000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 2, .ts = 1000000 + window_ns - 1),
		      "frame.copy");
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .iface = 1, .ts = 3000000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .iface = 2, .ts = 3000000 + window_ns + 1),
		      "psn.retransmit", "retransmit.timeout");

	cfg.copy_window_us = 0;
	mk_cfg(&cfg);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 1, .ts = 1000000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .iface = 2, .ts = 1000000),
		      "psn.retransmit", "retransmit.timeout");
	cr_assert_eq(req_stats().copies, 0);
}

/* A backward resend with no NAK before it: the requester's timer expired. */
Test(analyze, retransmit_timeout_without_nak)
{
	mk(0, 0);
	for (uint32_t psn = 100; psn <= 104; psn++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = psn, .len = 64, .ts = 1000000 + (psn - 100) * 1000));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 105, .len = 64, .ts = 2000000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 103, .len = 64, .ts = 2500000), "retransmit.timeout",
		      "psn.retransmit");
	expect_psns("retransmit.timeout", 106, 103);
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, 2500000 - 1003000, "age: since 103 was first sent");
	EXPECT_EVENTS(send_only(104), "psn.retransmit");  /* one timeout per restart */
	EXPECT_EVENTS(send_only(105), "psn.retransmit");
	EXPECT_NO_EVENTS(send_only(106));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "timeouts 1 retransmits 3");
}

/* The age of a timed-out PSN runs from its first sending: resends do not move it. */
Test(analyze, retransmit_timeout_age_from_original_send)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 1000));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 11, .len = 64, .ts = 2000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 9000), "retransmit.timeout", "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, 8000);
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 11, .len = 64, .ts = 9100), "psn.retransmit");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 20000), "retransmit.timeout", "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, 19000, "a second timeout of 10: still from 1000");
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "timeouts 2 timeout_aged 2 timeout_age_max_us 19");
	cr_assert_eq(st.timeout_age_mean_us, 13, "(8 + 19) / 2 us");
}

/* A PSN first seen late (filling a hole) ages from that late sending; a PSN inside a READ's span
 * from the READ; one whose first sending the capture does not hold has no age (-1). */
Test(analyze, retransmit_timeout_age_late_read_and_unknown)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 1000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 12, .len = 64, .ts = 2000), "psn.gap");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 11, .len = 64, .ts = 3000), "psn.out_of_order");
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 13, .dmalen = 3000, .ts = 4000));  /* 13..15 */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 16, .len = 64, .ts = 5000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 11, .len = 64, .ts = 10000), "retransmit.timeout", "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, 7000, "from its late first sending");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 12, .len = 64), "psn.retransmit");
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 13, .dmalen = 3000), "psn.retransmit");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 16, .len = 64), "psn.retransmit");
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 14, .dmalen = 2000, .ts = 30000), "retransmit.timeout",
		      "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, 26000, "inside the READ's span: from the READ");

	/* a stream first seen at PSN 200, then a resend of 150: never seen, far below the hole window */
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 400, .len = 64, .ts = 1000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 150, .len = 64, .ts = 2000), "retransmit.timeout", "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, -1, "no first sending in the capture");
	cr_assert_eq(req_stats().timeouts, 1);
	cr_assert_eq(req_stats().timeout_aged, 0, "an unknown age is not averaged in");

	/* more than SEND_LOG_WALK PSNs back: not walked for, even when the log still has it */
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 1000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 10 + SEND_LOG_WALK + 1, .len = 64, .ts = 2000), "psn.gap");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 3000), "retransmit.timeout", "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, -1);
	mk(0, 0);  /* exactly SEND_LOG_WALK back: found */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 1000));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 10 + SEND_LOG_WALK - 1, .len = 64, .ts = 2000), "psn.gap");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 10, .len = 64, .ts = 3000), "retransmit.timeout", "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->delta_ns, 2000);
}

/* Responses whose PSNs no request stream between the hosts covers belong to another QP pair:
 * they are not matched to this one (no ack.unsolicited, and their NAK arms no restart here). */
Test(analyze, responses_of_another_qp_pair_not_matched)
{
	mk(0, 0);
	sends_ok(100, 105);
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 9000, .syn = SYN_ACK, .qpn = 0x777));
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 9001, .syn = SYN_NAK(ROCE_NAK_PSN_SEQ_ERR), .qpn = 0x777),
		      "nak.psn_seq_err");
	EXPECT_EVENTS(send_only(103), "retransmit.timeout", "psn.retransmit");
}

/* ==== message rules ==== */

Test(analyze, middle_without_first)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 1, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 2, .len = 10));
	EXPECT_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 3, .len = 1024), "msg.opcode_sequence");
	expect_psns("msg.opcode_sequence", 3, 3);
	EXPECT_EVENTS(REQ(.op = WRITE_LAST, .psn = 4, .len = 10), "msg.opcode_sequence");
}

/* The capture may start inside a message: a MIDDLE/LAST first is no error. */
Test(analyze, capture_starts_inside_message)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 1, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 2, .len = 10));
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 3, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 4, .len = 10));
	cr_assert_eq(req_stats().messages, 2);
}

Test(analyze, first_without_last)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(1));
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 2, .len = 1024));
	EXPECT_EVENTS(REQ(.op = SEND_FIRST, .psn = 3, .len = 1024), "msg.opcode_sequence");
	expect_psns("msg.opcode_sequence", 3, 3);
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 4, .len = 4));
	/* an ONLY inside an open message, and a WRITE_LAST closing a SEND */
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 5, .len = 1024));
	EXPECT_EVENTS(send_only(6), "msg.opcode_sequence");
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 7, .len = 1024));
	EXPECT_EVENTS(REQ(.op = WRITE_LAST, .psn = 8, .len = 4), "msg.opcode_sequence");
}

/* A gap loses the message state: no sequence error until the next FIRST/ONLY. */
Test(analyze, gap_suspends_message_checks)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(1));
	EXPECT_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 5, .len = 1024), "psn.gap");
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 6, .len = 4));
	EXPECT_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 7, .len = 1024), "msg.opcode_sequence");
}

Test(analyze, pmtu_violation_first_middle_last)
{
	mk(0, 1024);
	EXPECT_EVENTS(REQ(.op = SEND_FIRST, .psn = 1, .len = 1000), "msg.pmtu_violation");
	expect_psns("msg.pmtu_violation", 1, 1);
	EXPECT_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 2, .len = 2048), "msg.pmtu_violation");
	EXPECT_NO_EVENTS(REQ(.op = SEND_MIDDLE, .psn = 3, .len = 1024));
	EXPECT_EVENTS(REQ(.op = SEND_LAST, .psn = 4, .len = 1028), "msg.pmtu_violation");
	EXPECT_NO_EVENTS(REQ(.op = SEND_FIRST, .psn = 5, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = SEND_LAST, .psn = 6, .len = 1024));  /* LAST may carry the full PMTU */
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 7, .len = 1100), "msg.pmtu_violation");
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 8, .len = 0));
	/* READ responses too */
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 9, .dmalen = 3000));
	EXPECT_EVENTS(RSP(.op = READ_FIRST, .psn = 9, .len = 512, .syn = SYN_ACK), "msg.pmtu_violation");
	EXPECT_NO_EVENTS(RSP(.op = READ_MIDDLE, .psn = 10, .len = 1024));
	EXPECT_EVENTS(RSP(.op = READ_LAST, .psn = 11, .len = 2048, .syn = SYN_ACK), "msg.pmtu_violation");
}

Test(analyze, write_length_mismatch_first_middle_last)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = WRITE_FIRST, .psn = 1, .len = 1024, .dmalen = 3000));
	EXPECT_NO_EVENTS(REQ(.op = WRITE_MIDDLE, .psn = 2, .len = 1024));
	EXPECT_EVENTS(REQ(.op = WRITE_LAST, .psn = 3, .len = 1000), "msg.length_mismatch");  /* 3048 */
	expect_psns("msg.length_mismatch", 3, 3);
	/* the same with the right total */
	EXPECT_NO_EVENTS(REQ(.op = WRITE_FIRST, .psn = 4, .len = 1024, .dmalen = 3000));
	EXPECT_NO_EVENTS(REQ(.op = WRITE_MIDDLE, .psn = 5, .len = 1024));
	EXPECT_NO_EVENTS(REQ(.op = WRITE_LAST, .psn = 6, .len = 952));
	/* short */
	EXPECT_NO_EVENTS(REQ(.op = WRITE_FIRST, .psn = 7, .len = 1024, .dmalen = 3000));
	EXPECT_EVENTS(REQ(.op = WRITE_LAST, .psn = 8, .len = 4), "msg.length_mismatch");
	cr_assert_eq(req_stats().messages, 3);
}

Test(analyze, write_only_length_mismatch)
{
	mk(0, 1024);
	EXPECT_EVENTS(REQ(.op = WRITE_ONLY, .psn = 1, .len = 100, .dmalen = 200), "msg.length_mismatch");
	expect_psns("msg.length_mismatch", 1, 1);
	EXPECT_NO_EVENTS(REQ(.op = WRITE_ONLY, .psn = 2, .len = 200, .dmalen = 200));
	EXPECT_EVENTS(REQ(.op = WRITE_ONLY, .psn = 3, .len = 8, .dmalen = 0), "msg.length_mismatch");
	EXPECT_NO_EVENTS(REQ(.op = WRITE_ONLY, .psn = 4, .len = 0, .dmalen = 0));
}

/* A request too short for its opcode's extended headers (the IP/UDP lengths leave no room for
 * the RETH) still takes its PSN, but no length or PSN span is taken from the RETH it does not
 * have (the decode before it left one behind in P). */
Test(analyze, request_too_short_for_its_headers)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = WRITE_ONLY, .psn = 1, .len = 64, .dmalen = 64));
	/* no length to check, nor for the message a FIRST opens (which is short of the PMTU) */
	EXPECT_EVENTS(REQ(.op = WRITE_ONLY, .psn = 2, .no_ext = true), "packet.too_short");
	EXPECT_EVENTS(REQ(.op = WRITE_FIRST, .psn = 3, .no_ext = true), "packet.too_short", "msg.pmtu_violation");
	EXPECT_NO_EVENTS(REQ(.op = WRITE_LAST, .psn = 4, .len = 100));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 5, .dmalen = 4096));  /* 4 PSNs */
	EXPECT_EVENTS(REQ(.op = READ_REQ, .psn = 9, .no_ext = true), "packet.too_short");  /* one PSN */
	EXPECT_NO_EVENTS(send_only(10));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "packets 7 requests 7 last_psn 10 messages 6");
}

/* A READ of no bytes takes one PSN, path MTU known or not: a gap after it is a gap. */
Test(analyze, zero_length_read_then_gap)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 1, .dmalen = 0));
	EXPECT_EVENTS(send_only(5), "psn.gap");
	expect_psns("psn.gap", 2, 5);
}

/* Capture times at the ends of the int64 range (a damaged file): no interval between them
 * overflows (the sanitizer build stops on one). */
Test(analyze, timestamps_at_the_ends_of_the_range)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 1, .len = 64, .ts = INT64_MAX));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 1, .len = 64, .ts = INT64_MIN), "psn.retransmit",
		      "retransmit.timeout");
	cr_assert_lt(finding("retransmit.timeout")->delta_ns, 0);  /* "sent" 292 years later */
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 1, .syn = SYN_NAK(0), .ts = INT64_MAX), "nak.psn_seq_err");
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 2, .len = 64, .ts = INT64_MIN));
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 2, .syn = SYN_ACK, .ts = INT64_MAX));
	cr_assert_eq(req_stats().response_count, 1);
}

/* One frame breaking five rules at once (more than the four details a frame once kept): every
 * one has its details. */
Test(analyze, five_findings_on_one_frame)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(REQ(.op = WRITE_FIRST, .psn = 0xfffffd, .len = 1024, .dmalen = 8192));
	/* a UC SEND_MIDDLE with another P_Key, 2 KiB, jumping over the wrap */
	EXPECT_EVENTS(REQ(.op = 0x21, .psn = 2, .len = 2048, .pkey = 0x8001), "msg.transport_mixed",
		      "pkey.inconsistent", "psn.gap", "psn.wrap", "msg.pmtu_violation");
	cr_assert_eq(F.n, 5);
}

Test(analyze, uc_opcode_on_rc_stream)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(1));
	EXPECT_EVENTS(REQ(.op = UC_SEND_ONLY, .psn = 2, .len = 64), "msg.transport_mixed");
	cr_assert_not(finding("msg.transport_mixed")->has_psn);
	EXPECT_NO_EVENTS(send_only(3));  /* PSN rules went on */
	cr_assert_eq(req_stats().transport, ROCE_TR_RC);
}

Test(analyze, pkey_change)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 1, .len = 64, .pkey = 0xffff));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 2, .len = 64, .pkey = 0x8001), "pkey.inconsistent");
	cr_assert_not(finding("pkey.inconsistent")->has_psn);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 3, .len = 64, .pkey = 0x8001));  /* the new one sticks */
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 4, .len = 64, .pkey = 0xffff), "pkey.inconsistent");
}

/* ==== UD ==== */

Test(analyze, ud_no_psn_rules_counters_counted)
{
	mk(0, 0);
	static const uint32_t psns[] = {5, 5, 5, 3, 100, 0xffffff, 0, 4};
	uint64_t bytes = 0;
	for (unsigned i = 0; i < 8; i++) {
		EXPECT_NO_EVENTS(REQ(.op = UD_SEND_ONLY, .psn = psns[i], .len = 256));
		bytes += P.wirelen;
	}
	struct roce_stream_stats st = req_stats();
	cr_assert_eq(st.transport, ROCE_TR_UD);
	expect_stats(&st, "packets 8 requests 8");
	cr_assert_eq(st.bytes, bytes);
	cr_assert_not(st.has_psn);
	cr_assert_eq(st.gaps + st.missing_psns + st.retransmits + st.out_of_order + st.timeouts, 0);
}

/* ==== the stream table ==== */

Test(analyze, eviction_count_and_fresh_restart)
{
	mk(4, 0);
	for (uint32_t q = 1; q <= 10; q++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100 * q, .len = 64, .qpn = q));
	cr_assert_eq(roce_analyzer_evictions(A), 6);
	cr_assert_eq(roce_analyzer_streams(A), 4);
	for (uint32_t q = 1; q <= 10; q++)
		cr_assert_eq(stats(1, 2, q, NULL), q > 6, "stream %u in the table", q);
	/* QP 1 was evicted: it starts afresh (no gap from its old PSN 100) */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 5000, .len = 64, .qpn = 1));
	struct roce_stream_stats st;
	cr_assert(stats(1, 2, 1, &st));
	expect_stats(&st, "first_psn 5000 packets 1");
	cr_assert_eq(roce_analyzer_evictions(A), 7);
	cr_assert_eq(roce_analyzer_streams(A), 4);
	/* QP 10 is still there: its state goes on */
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 1005, .len = 64, .qpn = 10), "psn.gap");
}

/* roce_analyzer_on_evict: each stream's row just before it goes, least recently used first, with
 * the figures roce_analyzer_foreach() would have given it. */
struct evicted_log {
	unsigned n;
	uint32_t dqpn[8];
	uint64_t packets[8];
};

static void log_evicted(const struct roce_stream_stats *s, void *user)
{
	struct evicted_log *l = user;
	if (l->n < 8) {
		l->dqpn[l->n] = s->dqpn;
		l->packets[l->n] = s->packets;
	}
	l->n++;
}

Test(analyze, eviction_hook_gets_each_row)
{
	mk(2, 0);
	struct evicted_log log = {0};
	roce_analyzer_on_evict(A, log_evicted, &log);
	for (uint32_t q = 1; q <= 4; q++)
		for (uint32_t k = 0; k < q; k++)
			EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100 * q + k, .len = 64, .qpn = q));
	cr_assert_eq(log.n, 2);
	cr_assert_eq(log.n, roce_analyzer_evictions(A));
	cr_assert_eq(log.dqpn[0], 1);
	cr_assert_eq(log.packets[0], 1);
	cr_assert_eq(log.dqpn[1], 2);
	cr_assert_eq(log.packets[1], 2);
	roce_analyzer_on_evict(A, NULL, NULL);  /* off: the next eviction tells no one */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 7, .len = 64, .qpn = 5));
	cr_assert_eq(log.n, 2);
	cr_assert_eq(roce_analyzer_evictions(A), 3);
}

/* A stream's side blocks (RTT, loss, READ responses) go back to their pools when it is evicted:
 * the stream that takes its place starts clean, and churn does not grow the pools. */
Test(analyze, eviction_returns_side_blocks)
{
	mk(2, 1024);
	for (uint32_t round = 0; round < 200; round++) {
		uint32_t q = 1 + round % 3, base = 1000 * round;  /* 3 QPs through 2 slots: always evicting */
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = base, .len = 64, .qpn = q, .ts = 0));
		EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = base + 3, .len = 64, .qpn = q), "psn.gap");
		EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = base + 1, .len = 64, .qpn = q), "psn.out_of_order");
		EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = base + 4, .dmalen = 100, .qpn = q));
		struct roce_stream_stats st;
		cr_assert(stats(1, 2, q, &st));
		cr_assert_eq(st.gaps, 1, "round %u: the new stream's own gap only", round);
		expect_stats(&st, "missing_psns 2 out_of_order 1 response_count 0");
	}
	cr_assert_geq(roce_analyzer_evictions(A), 190);
	/* two streams hold blocks at a time (plus block 0, which is never handed out) */
	cr_assert_leq(A->loss_pool.n_used, 3, "loss blocks taken: %u", A->loss_pool.n_used);
	cr_assert_leq(A->req_pool.n_used, 3, "requester blocks taken: %u", A->req_pool.n_used);
	/* a clean stream with ACKs takes a requester block and no loss block */
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(100));
	EXPECT_NO_EVENTS(ack(100));
	cr_assert_eq(req_stats().response_count, 1);
	cr_assert_eq(A->loss_pool.n_used, 0);
	cr_assert_eq(A->resp_pool.n_used, 0);
	cr_assert_eq(A->req_pool.n_used, 2);
}

/* The listing puts the two directions of a paired QP next to each other, with one pair number. */
struct listing {
	unsigned n;
	struct roce_stream_stats row[8];
};

static void list_rows(const struct roce_stream_stats *st, void *user)
{
	struct listing *l = user;
	cr_assert_lt(l->n, 8);
	l->row[l->n++] = *st;
}

Test(analyze, listing_groups_paired_directions)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(100));                                       /* 1 > 2, QP_B */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 7, .len = 64, .src = 3));   /* 3 > 2, unpaired */
	EXPECT_NO_EVENTS(ack(100));                                             /* 2 > 1, QP_A: pairs */
	struct listing l = {0};
	roce_analyzer_foreach(A, list_rows, &l);
	cr_assert_eq(l.n, 3);
	unsigned at = l.row[0].src[3] == 3 ? 1 : 0;  /* the unpaired one first or last */
	cr_assert_eq(l.row[at].paired, ROCE_PAIRED_PSN);
	cr_assert_eq(l.row[at + 1].paired, ROCE_PAIRED_PSN);
	cr_assert_eq(l.row[at].pair, l.row[at + 1].pair);
	cr_assert_eq(l.row[at].peer_qpn, l.row[at + 1].dqpn);
	unsigned lone = at ? 0 : 2;
	cr_assert_eq(l.row[lone].src[3], 3);
	cr_assert_neq(l.row[lone].pair, l.row[at].pair);
}

Test(analyze, no_eviction_under_cap_keeps_state)
{
	mk(16, 0);
	for (uint32_t q = 1; q <= 10; q++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100 * q, .len = 64, .qpn = q));
	cr_assert_eq(roce_analyzer_evictions(A), 0);
	cr_assert_eq(roce_analyzer_streams(A), 10);
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 5000, .len = 64, .qpn = 1), "psn.gap");
}

Test(analyze, lru_touch_keeps_stream)
{
	mk(4, 0);
	for (uint32_t q = 1; q <= 4; q++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = q));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .qpn = 1));  /* touch 1 */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = 5));  /* evicts 2 */
	cr_assert_eq(roce_analyzer_evictions(A), 1);
	cr_assert(stats(1, 2, 1, NULL));
	cr_assert_not(stats(1, 2, 2, NULL));
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 110, .len = 64, .qpn = 1), "psn.gap");  /* state kept */
	expect_psns("psn.gap", 102, 110);
	cr_assert_eq(finding("psn.gap")->qpn, 1);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 110, .len = 64, .qpn = 2));  /* evicts 3; fresh */
	cr_assert_not(stats(1, 2, 3, NULL));
	/* a response touches its stream too */
	mk(2, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = 1));
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 100, .syn = SYN_ACK));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .qpn = 1));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = 2));  /* evicts the ACK stream */
	cr_assert(stats(1, 2, 1, NULL));
	cr_assert_not(stats(2, 1, QP_A, NULL));
}

static void note_qpn(const struct roce_stream_stats *st, void *user)
{
	uint32_t *q = user;
	q[1 + q[0]++] = st->dqpn;
}

/* Eviction follows the order of use through several evictions: the streams looked up since the
 * candidates were sorted are passed over, and when the sorted ones run out they are sorted again. */
Test(analyze, eviction_order_after_touches)
{
	mk(3, 0);
	for (uint32_t q = 1; q <= 3; q++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = q));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .qpn = 1));  /* order 2 3 1 */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = 4));  /* evicts 2: 3 1 4 */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .qpn = 3));  /* 1 4 3 */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = 5));  /* evicts 1: 4 3 5 */
	cr_assert_eq(roce_analyzer_evictions(A), 2);
	cr_assert_not(stats(1, 2, 1, NULL));
	cr_assert_not(stats(1, 2, 2, NULL));
	cr_assert(stats(1, 2, 3, NULL) && stats(1, 2, 4, NULL) && stats(1, 2, 5, NULL));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .qpn = 4));  /* 3 5 4 */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = 6));  /* evicts 3: 5 4 6 */
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = 7));  /* evicts 5: 4 6 7 */
	cr_assert_eq(roce_analyzer_evictions(A), 4);
	cr_assert_not(stats(1, 2, 3, NULL));
	cr_assert_not(stats(1, 2, 5, NULL));
	cr_assert(stats(1, 2, 4, NULL) && stats(1, 2, 6, NULL) && stats(1, 2, 7, NULL));
	uint32_t order[4] = {0};  /* the rows: least recently used first */
	roce_analyzer_foreach(A, note_qpn, order);
	cr_assert(order[0] == 3 && order[1] == 4 && order[2] == 6 && order[3] == 7);
}

/* Streams are per (source, destination, QP): the same QP between other hosts is another stream,
 * and so is the reverse direction. */
Test(analyze, streams_keyed_by_addresses_and_qp)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(100));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 500, .len = 64, .src = 3));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 900, .len = 64, .dst = 4));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 700, .len = 64, .src = 2, .dst = 1));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 300, .len = 64, .v6 = true));
	EXPECT_NO_EVENTS(send_only(101));
	cr_assert_eq(roce_analyzer_streams(A), 5);
	struct roce_stream_stats st;
	cr_assert(stats(1, 2, QP_B, &st));
	expect_stats(&st, "first_psn 100 last_psn 101");
	cr_assert(stats(3, 2, QP_B, &st));
	cr_assert_eq(st.first_psn, 500);
	cr_assert(stats(1, 4, QP_B, &st));
	cr_assert_eq(st.first_psn, 900);
	cr_assert(stats(2, 1, QP_B, &st));
	cr_assert_eq(st.first_psn, 700);
}

static void count_families(const struct roce_stream_stats *s, void *user)
{
	unsigned *n = user;
	n[s->addr_len == 16]++;
	if (s->addr_len == 16) {
		cr_assert_eq(s->src[0], 0xfd);
		cr_assert_eq(s->src[15], 1);
		cr_assert_eq(s->dst[15], 2);
		cr_assert_eq(s->first_psn, 300);
		cr_assert_eq(s->last_psn, 301);
	} else {
		cr_assert_eq(s->src[0], 10);
		cr_assert_eq(s->first_psn, 100);
		cr_assert_eq(s->last_psn, 101);
	}
}

Test(analyze, ipv6_stream_separate_from_ipv4)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(send_only(100));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 300, .len = 64, .v6 = true));
	EXPECT_NO_EVENTS(send_only(101));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 301, .len = 64, .v6 = true));
	unsigned n[2] = {0, 0};
	roce_analyzer_foreach(A, count_families, n);
	cr_assert_eq(n[0], 1);
	cr_assert_eq(n[1], 1);
}

/* Frames the analyzer does not track: CNPs and non-RoCE frames create no stream. */
Test(analyze, cnp_and_non_roce_ignored)
{
	mk(0, 0);
	/* no transport analysis and no stream of its own; the congestion analysis finds no CE mark
	 * it could answer (test_congestion.c) */
	EXPECT_EVENTS(REQ(.op = CNP, .psn = 0, .len = 0), "cnp.unexpected");
	cr_assert_eq(F.n, 1);
	cr_assert_eq(roce_analyzer_streams(A), 0);
	struct roce_pkt p;
	static const uint8_t arp[60] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06};
	cr_assert_eq(roce_decode(NULL, arp, sizeof(arp), sizeof(arp), ROCE_LINK_ETHERNET, &p), 0);
	struct roce_findings f = {.n = 3};
	roce_analyze(A, &p, 1, arp, 1, &f);
	cr_assert_eq(f.n, 0, "out->n is reset on every frame");
	roce_analyze(A, &p, 2, arp, 2, NULL);
	cr_assert_eq(roce_analyzer_streams(A), 0);
}

/* out == NULL: the events still land in the frame's set. */
Test(analyze, findings_out_null)
{
	mk(0, 0);
	sends_ok(1, 2);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 5, .len = 64, .null_out = true));
	EXPECT_EVENTS(&P_analyzed, "psn.gap");
	EXPECT_NO_EVENTS(send_only(6));
	cr_assert_eq(req_stats().gaps, 1);
}


/* ==== once defects, now regression tests ==== */

/* Two QPs between the same hosts, interleaved, with disjoint PSN ranges: the NAK for QP 0x21
 * must pair with 0x21 although 0x22 is the newer request stream (the analyzer walks the host
 * pair's streams, newest first, to the one whose PSNs cover the response), so 0x21's go-back-N
 * restart is a plain retransmission, not a timeout. */
Test(analyze, pairing_older_qp_between_same_hosts)
{
	mk(0, 0);
	for (uint32_t i = 0; i < 4; i++) {
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100 + i, .len = 64, .qpn = 0x21));
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 5000 + i, .len = 64, .qpn = 0x22));
	}
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 102, .syn = SYN_NAK(ROCE_NAK_PSN_SEQ_ERR), .qpn = 0x31),
		      "nak.psn_seq_err");
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 102, .len = 64, .qpn = 0x21), "psn.retransmit");
}

/* A PSN sequence NAK whose PSN is the stream's next PSN (the capture dropped the requests that
 * provoked it): the next request at that PSN satisfies the restart, so a timeout resend much
 * later is a retransmit.timeout, not a nak.restart_wrong against the stale NAK. */
Test(analyze, restart_after_nak_at_next_psn)
{
	mk(0, 0);
	sends_ok(100, 102);
	EXPECT_EVENTS(nak(103, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");
	sends_ok(103, 110);
	EXPECT_EVENTS(send_only(108), "retransmit.timeout", "psn.retransmit");
}

/* A gap that straddles 0xFFFFFF → 0 is a wrap too: psn.wrap and psn.gap on the same request. */
Test(analyze, wrap_inside_gap)
{
	mk(0, 0);
	sends_ok(0xfffffc, 0xfffffd);
	EXPECT_EVENTS(send_only(1), "psn.gap", "psn.wrap");
}

/* ==== round-trip times ==== */

/* 90 round trips of 100 us and 10 of 1000 us: min/max exact, the mean exact, the median and p99
 * from the half-octave histogram within ±19 %. A resent request is never timed. */
Test(analyze, rtt_quantiles)
{
	mk(0, 0);
	int64_t t = 1000000;
	for (uint32_t i = 0; i < 100; i++) {
		int64_t rtt_us = i % 10 == 9 ? 1000 : 100;
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100 + i, .len = 64, .ts = t));
		EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 100 + i, .syn = SYN_ACK, .ts = t + rtt_us * 1000));
		t += 2000000;
	}
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "response_count 100 response_min_us 100 response_max_us 1000 response_mean_us 190");
	cr_assert(st.response_p50_us >= 81 && st.response_p50_us <= 119, "p50 %u", st.response_p50_us);
	cr_assert(st.response_p99_us >= 810 && st.response_p99_us <= 1000, "p99 %u", st.response_p99_us);
	/* their buckets: 91..127 us (from the smallest sample, 100) and 725..1023 us (to the largest) */
	cr_assert(st.response_p50_range_us[0] == 100 && st.response_p50_range_us[1] == 127, "p50 in [%u, %u]",
		  st.response_p50_range_us[0], st.response_p50_range_us[1]);
	cr_assert(st.response_p99_range_us[0] == 725 && st.response_p99_range_us[1] == 1000, "p99 in [%u, %u]",
		  st.response_p99_range_us[0], st.response_p99_range_us[1]);

	/* a timeout resend: its ACK times nothing */
	EXPECT_EVENTS(REQ(.op = SEND_ONLY, .psn = 150, .len = 64, .ts = t), "retransmit.timeout", "psn.retransmit");
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 199, .syn = SYN_ACK, .ts = t + 50000000));
	cr_assert_eq(req_stats().response_count, 100);
}

/* Requests sent back to back are each timed against the first response covering them: a
 * coalesced ACK answers every one up to its PSN, each from its own sending; the frame carries the
 * newest's time. */
Test(analyze, rtt_every_request_of_a_burst)
{
	mk(0, 0);
	for (uint32_t i = 0; i < 10; i++)
		EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100 + i, .len = 64, .ts = 1000000 + i * 10000));
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 104, .syn = SYN_ACK, .ts = 2000000));  /* 100..104 */
	cr_assert_eq(F.response_ns, 2000000 - 1040000);
	cr_assert_eq(req_stats().response_count, 5);
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 109, .syn = SYN_ACK, .ts = 3000000));  /* 105..109 */
	struct roce_stream_stats st = req_stats();
	cr_assert_eq(st.response_count, 10);
	cr_assert_eq(st.response_untimed, 0);
	cr_assert_eq(st.response_min_us, 960);   /* 104: 2000 - 1040 us */
	cr_assert_eq(st.response_max_us, 1950);  /* 105: 3000 - 1050 us */
	cr_assert_eq(F.response_ns, 3000000 - 1090000);
}

/* A READ is answered by its first response packet; the write before it by the same packet. */
Test(analyze, rtt_read_answered_by_its_first_response)
{
	mk(0, 1024);
	EXPECT_NO_EVENTS(send_only(99));
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 100, .dmalen = 2048));  /* 100, 101 */
	EXPECT_NO_EVENTS(REQ(.op = READ_REQ, .psn = 102, .dmalen = 1024));
	EXPECT_NO_EVENTS(RSP(.op = READ_FIRST, .psn = 100, .len = 1024, .syn = SYN_ACK));
	cr_assert_eq(req_stats().response_count, 2);
	EXPECT_NO_EVENTS(RSP(.op = READ_LAST, .psn = 101, .len = 1024, .syn = SYN_ACK));
	cr_assert_eq(req_stats().response_count, 2);
	EXPECT_NO_EVENTS(RSP(.op = READ_ONLY, .psn = 102, .len = 1024, .syn = SYN_ACK));
	cr_assert_eq(req_stats().response_count, 3);
}

/* Karn's rule: a request resent after a NAK is not timed (its response answers either sending);
 * those before it, not resent, are, and the next new one again. */
Test(analyze, rtt_karn_resent_requests_not_timed)
{
	mk(0, 0);
	for (uint32_t i = 0; i < 5; i++)
		EXPECT_NO_EVENTS(send_only(100 + i));
	EXPECT_EVENTS(nak(102, 0), "nak.psn_seq_err");
	for (uint32_t i = 2; i < 5; i++)
		REQ(.op = SEND_ONLY, .psn = 100 + i, .len = 64);  /* go-back-N from 102 */
	EXPECT_NO_EVENTS(ack(104));
	cr_assert_eq(req_stats().response_count, 2, "100 and 101 timed, the resent 102..104 not");
	EXPECT_NO_EVENTS(send_only(105));
	EXPECT_NO_EVENTS(ack(105));
	cr_assert_eq(req_stats().response_count, 3);
}

/* At most RTT_OUTSTANDING requests wait for a response: one sent while that many wait is not
 * timed and counted; once answered, the ring times again. */
Test(analyze, rtt_ring_full_counts_untimed)
{
	mk(0, 0);
	for (uint32_t i = 0; i < RTT_OUTSTANDING + 6; i++)
		EXPECT_NO_EVENTS(send_only(1000 + i));
	EXPECT_NO_EVENTS(ack(1000 + RTT_OUTSTANDING + 5));
	struct roce_stream_stats st = req_stats();
	cr_assert_eq(st.response_count, RTT_OUTSTANDING);
	cr_assert_eq(st.response_untimed, 6);
	for (uint32_t i = 0; i < 3; i++)
		EXPECT_NO_EVENTS(send_only(1000 + RTT_OUTSTANDING + 6 + i));
	EXPECT_NO_EVENTS(ack(1000 + RTT_OUTSTANDING + 8));
	st = req_stats();
	cr_assert_eq(st.response_count, RTT_OUTSTANDING + 3);
	cr_assert_eq(st.response_untimed, 6);
}

/* Round trips of a tenth and half a second, and of 20 s (in the last bucket, from 11.9 s): the
 * quantiles stay within ±19 %, the last bucket's being the largest sample. */
Test(analyze, rtt_quantiles_long)
{
	static const int64_t rtts_ms[2][2] = {{100, 500}, {500, 20000}};
	for (unsigned k = 0; k < 2; k++) {
		mk(0, 0);
		int64_t t = 1000000;
		for (uint32_t i = 0; i < 100; i++) {
			int64_t rtt_ms = rtts_ms[k][i >= 50];
			REQ(.op = SEND_ONLY, .psn = 100 + i, .len = 64, .ts = t);
			RSP(.op = ACK, .psn = 100 + i, .syn = SYN_ACK, .ts = t + rtt_ms * 1000000);
			t += 40000000000;
		}
		struct roce_stream_stats st = req_stats();
		uint32_t lo = (uint32_t)rtts_ms[k][0] * 1000, hi = (uint32_t)rtts_ms[k][1] * 1000;
		cr_assert(st.response_p50_us >= lo * 0.81 && st.response_p50_us <= lo * 1.19, "%u: p50 %u", k, st.response_p50_us);
		cr_assert(st.response_p99_us >= hi * 0.81 && st.response_p99_us <= hi * 1.19, "%u: p99 %u", k, st.response_p99_us);
	}
}

/* Round trips of 2 us and 100 ms on one stream, wider apart than the histogram's window holds:
 * it moves to a block of its own, its quantiles as before; an evicted stream gives that block back
 * with its acknowledgement block (3 QPs through 2 slots do not grow the pool). */
Test(analyze, rtt_histogram_spilled)
{
	for (unsigned evicting = 0; evicting < 2; evicting++) {
		mk(evicting ? 2 : 0, 0);
		int64_t t = 1000000;
		for (uint32_t i = 0; i < (evicting ? 600 : 100); i++) {
			uint32_t q = evicting ? 1 + i / 2 % 3 : QP_B, psn = 100 + i;
			int64_t rtt_us = i % 2 ? 100000 : 2;
			REQ(.op = SEND_ONLY, .psn = psn, .len = 64, .ts = t, .qpn = q);
			RSP(.op = ACK, .psn = psn, .syn = SYN_ACK, .ts = t + rtt_us * 1000, .qpn = QP_A);
			t += 1000000000;
		}
		if (evicting) {
			cr_assert_geq(roce_analyzer_evictions(A), 190);
			cr_assert_leq(A->hist_pool.n_used, 3, "histogram blocks taken: %u", A->hist_pool.n_used);
			continue;
		}
		struct roce_stream_stats st = req_stats();
		cr_assert_eq(A->hist_pool.n_used, 2, "one histogram block (and block 0)");
		expect_stats(&st, "response_count 100 response_p50_us 2");
		cr_assert(st.response_p99_us >= 81000 && st.response_p99_us <= 100000, "p99 %u", st.response_p99_us);
	}
}

/* More samples than an 8-bit bucket holds: the counts halve and keep their proportions. */
Test(analyze, rtt_histogram_saturation)
{
	mk(0, 0);
	int64_t t = 1000000;
	for (uint32_t i = 0; i < 1000; i++) {
		int64_t rtt_us = i % 4 == 3 ? 4000 : 20;
		REQ(.op = SEND_ONLY, .psn = (1000 + i) & 0xffffff, .len = 64, .ts = t);
		RSP(.op = ACK, .psn = (1000 + i) & 0xffffff, .syn = SYN_ACK, .ts = t + rtt_us * 1000);
		t += 10000000;
	}
	struct roce_stream_stats st = req_stats();
	cr_assert_eq(st.response_count, 1000);
	cr_assert(st.response_p50_us >= 16 && st.response_p50_us <= 24, "p50 %u", st.response_p50_us);
	cr_assert(st.response_p99_us >= 3240 && st.response_p99_us <= 4000, "p99 %u", st.response_p99_us);
}

/* ---- the numbers that tie findings to the file and the summary (analyze.h) ---- */

/* Stream ids count up from 1 as streams are created; a pair takes its older stream's id; the
 * summary's rows carry the same ids as the frames. */
Test(analyze, stream_and_pair_ids)
{
	mk(0, 0);
	send_only(100);
	cr_assert_eq(F.stream, 1);
	cr_assert_eq(F.pair, 1, "not paired yet: its own id");
	REQ(.op = SEND_ONLY, .psn = 7, .len = 64, .src = 3);
	cr_assert_eq(F.stream, 2);
	cr_assert_eq(F.pair, 2);
	ack(100);
	cr_assert_eq(F.stream, 3);
	cr_assert_eq(F.pair, 1, "paired by PSN with stream 1");
	send_only(101);
	cr_assert_eq(F.stream, 1);
	cr_assert_eq(F.pair, 1);
	struct roce_stream_stats st;
	cr_assert(stats(2, 1, QP_A, &st));
	expect_stats(&st, "stream 3 pair 1");
	cr_assert(stats(3, 2, QP_B, &st));
	expect_stats(&st, "stream 2 pair 2");
}

/* An evicted stream seen again is a new stream: a new id, never an old one. */
Test(analyze, stream_ids_not_reused_after_eviction)
{
	mk(2, 0);
	for (uint32_t q = 1; q <= 3; q++) {
		REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .qpn = q);
		cr_assert_eq(F.stream, q);
	}
	REQ(.op = SEND_ONLY, .psn = 5000, .len = 64, .qpn = 1);  /* evicted by 3: back as 4 */
	cr_assert_eq(F.stream, 4);
	cr_assert_eq(F.pair, 4);
}

/* A frame no stream takes has ids 0 and no response time. */
Test(analyze, ids_zero_without_a_stream)
{
	mk(0, 0);
	REQ(.op = CNP, .qpn = QP_A);
	cr_assert_eq(F.stream, 0);
	cr_assert_eq(F.pair, 0);
	cr_assert_eq(F.response_ns, -1);
}

/* The request->response time is on the response that measured it, and on no other frame. */
Test(analyze, response_time_on_the_answering_frame)
{
	mk(0, 0);
	REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .ts = 5000000);
	cr_assert_eq(F.response_ns, -1);
	RSP(.op = ACK, .psn = 100, .syn = SYN_ACK, .ts = 5012345);
	cr_assert_eq(F.response_ns, 12345);
	ack(100);  /* answers nothing pending */
	cr_assert_eq(F.response_ns, -1);
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "response_count 1 response_max_us 12");
}

/* ref_frame: a resend refers to its PSN's first sending, a restart to the NAK it answers. */
Test(analyze, ref_frame_of_resends_and_restarts)
{
	mk(0, 0);
	sends_ok(100, 105);                            /* frames 1-6: PSNs 100-105 */
	nak(104, ROCE_NAK_PSN_SEQ_ERR);                /* frame 7 */
	EXPECT_EVENTS(send_only(102), "nak.restart_wrong", "psn.retransmit");  /* frame 8 */
	cr_assert_eq(finding("nak.restart_wrong")->ref_frame, 7);
	cr_assert_eq(finding("psn.retransmit")->ref_frame, 3, "102 was first sent in frame 3");
	EXPECT_EVENTS(send_only(103), "psn.retransmit");
	cr_assert_eq(finding("psn.retransmit")->ref_frame, 4);
	EXPECT_NO_EVENTS(send_only(106));              /* frame 10 */
	EXPECT_EVENTS(send_only(103), "retransmit.timeout", "psn.retransmit");
	cr_assert_eq(finding("retransmit.timeout")->ref_frame, 4);
	cr_assert_eq(finding("psn.retransmit")->ref_frame, 4);
	EXPECT_EVENTS(RSP(.op = ACK, .psn = 103, .syn = SYN_RNR), "nak.rnr");  /* frame 12 */
	EXPECT_EVENTS(send_only(103), "psn.retransmit", "rnr.retry_early");
	cr_assert_eq(finding("rnr.retry_early")->ref_frame, 12);
}

/* ---- where the loss happened; the requester's turn ---- */

/* Lost before the capture point: PSNs never seen. After it: a PSN seen, then named by a NAK or
 * resent first after a timeout, once until an ACK covers it; the go-back-N resends after it do
 * not count. NAKs count on the row of the PSNs they report. */
Test(analyze, lost_before_and_after_the_capture_point)
{
	mk(0, 0);
	sends_ok(100, 101);
	EXPECT_EVENTS(send_only(103), "psn.gap");       /* 102 never seen: lost before */
	sends_ok(104, 105);
	EXPECT_EVENTS(nak(104, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err");  /* 104 seen: lost after */
	EXPECT_EVENTS(nak(104, ROCE_NAK_PSN_SEQ_ERR), "nak.psn_seq_err", "nak.duplicate");
	EXPECT_EVENTS(send_only(104), "psn.retransmit");
	EXPECT_EVENTS(send_only(105), "psn.retransmit");
	EXPECT_NO_EVENTS(ack(105));
	EXPECT_NO_EVENTS(send_only(106));
	EXPECT_EVENTS(send_only(106), "psn.retransmit", "retransmit.timeout");  /* lost after */
	EXPECT_EVENTS(send_only(106), "psn.retransmit", "retransmit.timeout");  /* the same loss */
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "lost_before 1 lost_after 2");
	cr_assert_eq(st.naks[ROCE_NAK_PSN_SEQ_ERR], 2);
	struct roce_stream_stats rs;
	cr_assert(stats(2, 1, QP_A, &rs));
	cr_assert_eq(rs.naks[ROCE_NAK_PSN_SEQ_ERR], 0, "not on the row of the stream that sent them");
}

/* A PSN that came late (reordered, not lost) is not lost before the capture point. */
Test(analyze, late_psn_is_not_lost)
{
	mk(0, 0);
	sends_ok(100, 101);
	EXPECT_EVENTS(send_only(103), "psn.gap");
	EXPECT_EVENTS(send_only(102), "psn.out_of_order");
	cr_assert_eq(req_stats().lost_before, 0);
}

/* The requester's turn: from a response to its next new request. */
Test(analyze, requester_turn)
{
	mk(0, 0);
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 100, .len = 64, .ts = 1000000));
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 100, .syn = SYN_ACK, .ts = 1010000));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 101, .len = 64, .ts = 1030000));
	EXPECT_NO_EVENTS(RSP(.op = ACK, .psn = 101, .syn = SYN_ACK, .ts = 1040000));
	EXPECT_NO_EVENTS(REQ(.op = SEND_ONLY, .psn = 102, .len = 64, .ts = 1100000));
	struct roce_stream_stats st = req_stats();
	expect_stats(&st, "turn_count 2 turn_max_us 60 turn_mean_us 40 response_count 2");
}
