/* test_prefetch.c: the analyzer's look-ahead, roce_analyze_prefetch() (analyzer/core/prefetch.c).
 *
 * analyze.h promises that it "changes nothing the analysis computes, whether it is called on
 * every frame, on some or on none". Two analyzers take the same pseudo-random traffic: ~12,000
 * queue pairs among 400 hosts (a tenth over IPv6), more streams than the 8,192 above which the
 * look-ahead runs; WRITEs, SENDs and READs, ACKs and READ responses, and among them PSN gaps,
 * resends, NAKs, copies of frames and frames of streams not seen for long. One analyzer is never
 * looked ahead for. The other is, in phases of patterns a caller may use: not at all; 16 frames
 * ahead, as rocedump; a distance that changes from phase to phase (1 to 40 frames); half the
 * frames skipped; every frame looked ahead for twice; with the decoder's stream hash and content
 * key in the roce_pkt or without. Every frame's events and findings, and in the end every
 * stream's row, must be the same; with room for every stream, and with a cap that evicts all
 * along. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "roce/build.h"
#include "roce/roce.h"
#include "unit_util.h"

#define N_FRAMES 80000u
#define N_QPS 12000u
#define N_HOSTS 400u
#define PHASE 4000u     /* frames a look-ahead pattern lasts */
#define RING 64u        /* decoded frames of the looked-ahead analyzer (> the largest distance) */

enum { WRITE_ONLY = 0x0a, SEND_ONLY = 0x04, READ_REQ = 0x0c, READ_RESP_ONLY = 0x10, ACK = 0x11 };

static uint64_t rnd_state;
static uint32_t rnd(void)  /* xorshift64*: the same traffic on every machine */
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * UINT64_C(0x2545f4914f6cdd1d)) >> 32);
}

/* The traffic: every frame's bytes one after the other. */
static uint8_t *bytes;
static uint32_t off[N_FRAMES + 1];
static int64_t ts[N_FRAMES];

struct qp {
	unsigned a, b;        /* requester and responder hosts */
	uint32_t qpn_a, qpn_b;
	uint32_t psn;         /* the next request PSN */
	uint32_t msn;
	bool v6;
};

static void host_addr(unsigned h, bool v6, uint8_t *addr)
{
	memset(addr, 0, 16);
	if (v6) {
		addr[0] = 0xfd;
		addr[14] = (uint8_t)(h >> 8);
		addr[15] = (uint8_t)h;
	} else {
		addr[0] = 10;
		addr[2] = (uint8_t)(h >> 8);
		addr[3] = (uint8_t)h;
	}
}

/* One frame of q: a request (response false) of opcode op at psn, or a response. */
static void emit(uint32_t *n, size_t *used, const struct qp *q, bool response, uint8_t op, uint32_t psn,
		 uint8_t syndrome, uint32_t msn, int64_t t)
{
	static const uint8_t payload[64];
	struct roce_build b = {.ip_version = q->v6 ? 6 : 4, .udp_sport = (uint16_t)(49152 + q->qpn_a % 1000)};
	host_addr(response ? q->b : q->a, q->v6, b.src);
	host_addr(response ? q->a : q->b, q->v6, b.dst);
	b.h.bth.opcode = op;
	b.h.bth.pkey = 0xffff;
	b.h.bth.dqpn = response ? q->qpn_a : q->qpn_b;
	b.h.bth.psn = psn & 0xffffff;
	b.h.bth.ackreq = !response;
	b.h.reth.dmalen = op == READ_REQ ? 64 : 32;
	b.h.reth.rkey = 0x1234;
	b.h.aeth.syndrome = syndrome;
	b.h.aeth.msn = msn & 0xffffff;
	b.ip_id = (uint16_t)(*n * 7);
	if (op == WRITE_ONLY || op == SEND_ONLY || op == READ_RESP_ONLY) {
		b.payload = payload;
		b.payload_len = op == READ_RESP_ONLY ? 64 : 32;
	}
	int len = roce_build_frame(&b, bytes + *used, 256);
	cr_assert_gt(len, 0, "roce_build_frame: %d", len);
	ts[*n] = t;
	off[*n] = (uint32_t)*used;
	*used += (size_t)len;
	off[++*n] = (uint32_t)*used;
}

static void make_traffic(void)
{
	static struct qp qps[N_QPS];
	bytes = malloc((size_t)N_FRAMES * 256);
	cr_assert_not_null(bytes);
	rnd_state = UINT64_C(0x9e3779b97f4a7c15);
	for (uint32_t i = 0; i < N_QPS; i++) {
		struct qp *q = &qps[i];
		q->a = rnd() % N_HOSTS;
		q->b = (q->a + 1 + rnd() % (N_HOSTS - 1)) % N_HOSTS;
		q->qpn_a = 0x100 + 2 * i;
		q->qpn_b = 0x101 + 2 * i;
		q->psn = rnd() & 0xffffff;
		q->v6 = rnd() % 10 == 0;
	}
	uint32_t n = 0;
	size_t used = 0;
	int64_t t = INT64_C(1700000000) * 1000000000;
	while (n < N_FRAMES - 2) {
		t += 200 + rnd() % 2000;
		/* most frames on a few thousand busy QPs, the rest anywhere: streams met again after
		 * long, and new ones until the end */
		struct qp *q = &qps[rnd() % 4 ? rnd() % 3000 : rnd() % N_QPS];
		uint32_t r = rnd() % 100;
		uint32_t first = n;
		if (r < 3) {  /* a gap: one PSN never sent */
			q->psn++;
			emit(&n, &used, q, false, WRITE_ONLY, q->psn++, 0, 0, t);
		} else if (r < 5) {  /* a resend of an older PSN */
			emit(&n, &used, q, false, WRITE_ONLY, q->psn - 1 - rnd() % 3, 0, 0, t);
		} else if (r < 7) {  /* a NAK (PSN sequence error) and the restart */
			emit(&n, &used, q, true, ACK, q->psn - 1, 0x60, q->msn, t);
			emit(&n, &used, q, false, WRITE_ONLY, q->psn - 1, 0, 0, t + 100);
		} else if (r < 12 && n > 0) {  /* a copy of the frame before (a mirror's duplicate) */
			uint32_t len = off[n] - off[n - 1];
			memcpy(bytes + used, bytes + off[n - 1], len);
			ts[n] = t;
			off[n] = (uint32_t)used;
			used += len;
			off[++n] = (uint32_t)used;
		} else if (r < 22) {  /* a READ and its response */
			emit(&n, &used, q, false, READ_REQ, q->psn, 0, 0, t);
			emit(&n, &used, q, true, READ_RESP_ONLY, q->psn++, 0x1f, ++q->msn, t + 300);
		} else {  /* a WRITE or SEND, acknowledged (not always: coalesced) */
			uint8_t op = r < 60 ? WRITE_ONLY : SEND_ONLY;
			emit(&n, &used, q, false, op, q->psn++, 0, 0, t);
			++q->msn;
			if (rnd() % 4)
				emit(&n, &used, q, true, ACK, q->psn - 1, 0x1f, q->msn, t + 500);
		}
		cr_assert_gt(n, first);
	}
	while (n < N_FRAMES)  /* the last frames: copies of one another */
		emit(&n, &used, &qps[0], true, ACK, qps[0].psn - 1, 0x1f, qps[0].msn, t);
}

static void assert_same_findings(uint32_t i, const struct roce_pkt *pa, const struct roce_findings *a,
				 const struct roce_pkt *pb, const struct roce_findings *b)
{
	cr_assert(memcmp(&pa->events, &pb->events, sizeof(pa->events)) == 0, "frame %u: events differ", i + 1);
	cr_assert_eq(a->n, b->n, "frame %u: %u findings against %u", i + 1, a->n, b->n);
	cr_assert(a->stream == b->stream && a->pair == b->pair, "frame %u: stream %u/%u against %u/%u", i + 1,
		  a->stream, a->pair, b->stream, b->pair);
	cr_assert(a->response_ns == b->response_ns && a->recovery_ns == b->recovery_ns &&
			  a->recovery_ref == b->recovery_ref && a->cnp_ce_frame == b->cnp_ce_frame &&
			  a->cnp_ce_ns == b->cnp_ce_ns,
		  "frame %u: times differ", i + 1);
	for (unsigned k = 0; k < a->n; k++) {
		const struct roce_finding *x = &a->f[k], *y = &b->f[k];
		cr_assert(x->event == y->event && x->has_psn == y->has_psn && x->msn == y->msn && x->qpn == y->qpn &&
				  x->expected_psn == y->expected_psn && x->seen_psn == y->seen_psn &&
				  x->delta_ns == y->delta_ns && x->ref_frame == y->ref_frame,
			  "frame %u: finding %u differs (%s against %s)", i + 1, k, roce_event_name(x->event),
			  roce_event_name(y->event));
	}
}

/* The looked-ahead analyzer's frames up to frame last decoded into the ring, in order (*decoded:
 * the frames decoded so far), with the decoder's stream hash and content key or without. */
static void decode_upto(uint32_t last, struct roce_pkt *ring, uint32_t *decoded, bool with_hints)
{
	static const struct roce_decoder_config hints = {.flags = ROCE_DECODE_STREAM_HASH | ROCE_DECODE_COPY_KEY};
	for (; *decoded <= last; ++*decoded) {
		uint32_t k = *decoded, len = off[k + 1] - off[k];
		roce_decode(with_hints ? &hints : NULL, bytes + off[k], len, len, ROCE_LINK_ETHERNET, &ring[k % RING]);
	}
}

/* The traffic through two analyzers (streams at most max_streams, 0: the default), the second
 * looked ahead for as the phases say; returns how many frames it was looked ahead for with effect
 * and how many findings there were. */
static void compare(uint32_t max_streams, uint64_t *looked, uint64_t *findings)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cfg.max_streams = max_streams;
	struct roce_analyzer *plain = roce_analyzer_new(&cfg, err), *ahead = roce_analyzer_new(&cfg, err);
	cr_assert(plain && ahead, "roce_analyzer_new: %s", err);
	struct roce_pkt *ring = calloc(RING, sizeof(*ring));
	cr_assert_not_null(ring);
	struct roce_pkt pa;
	struct roce_findings fa, fb;
	uint32_t decoded = 0, next = 0, distance = 16, pattern = 0;  /* next: the next frame to look ahead for */
	bool with_hints = true;
	*looked = *findings = 0;
	rnd_state = UINT64_C(0x243f6a8885a308d3);
	for (uint32_t i = 0; i < N_FRAMES; i++) {
		if (i % PHASE == 0) {
			pattern = rnd() % 5;  /* 0 none, 1 16 ahead, 2 1-40 ahead, 3 half skipped, 4 twice */
			distance = pattern == 2 ? 1 + rnd() % 40 : 16;
			with_hints = rnd() % 2;
		}
		if (next < i)
			next = i;
		for (; pattern && next < N_FRAMES && next <= i + distance; next++) {
			decode_upto(next, ring, &decoded, with_hints);
			if (pattern == 3 && rnd() % 2)
				continue;
			struct roce_pkt *p = &ring[next % RING];
			*looked += roce_analyze_prefetch(ahead, p, bytes + off[next]);
			if (pattern == 4)
				(void)roce_analyze_prefetch(ahead, p, bytes + off[next]);
		}
		decode_upto(i, ring, &decoded, with_hints);
		uint32_t len = off[i + 1] - off[i];
		roce_decode(NULL, bytes + off[i], len, len, ROCE_LINK_ETHERNET, &pa);
		roce_analyze(plain, &pa, i + 1, bytes + off[i], ts[i], &fa);
		roce_analyze(ahead, &ring[i % RING], i + 1, bytes + off[i], ts[i], &fb);
		assert_same_findings(i, &pa, &fa, &ring[i % RING], &fb);
		*findings += fa.n;
	}
	struct u_rows ra = {0}, rb = {0};
	roce_analyzer_foreach(plain, u_rows_keep, &ra);
	roce_analyzer_foreach(ahead, u_rows_keep, &rb);
	cr_assert_eq(ra.n, rb.n, "%zu rows against %zu", ra.n, rb.n);
	cr_assert_gt(ra.n, 8192, "%zu streams: fewer than the look-ahead needs", ra.n);
	for (size_t k = 0; k < ra.n; k++)
		u_assert_same_row(k, &ra.s[k], &rb.s[k]);
	cr_assert_eq(roce_analyzer_evictions(plain), roce_analyzer_evictions(ahead));
	free(ra.s);
	free(rb.s);
	roce_analyzer_free(plain);
	roce_analyzer_free(ahead);
	free(ring);
}

/* The traffic made, through both analyzers; the look-ahead must have run, and the traffic must
 * have given the analysis something to find. */
static void same_with_and_without(uint32_t max_streams)
{
	make_traffic();
	uint64_t looked, findings;
	compare(max_streams, &looked, &findings);
	cr_assert_gt(looked, N_FRAMES / 4, "the look-ahead ran on %llu frames only", (unsigned long long)looked);
	cr_assert_gt(findings, 1000, "only %llu findings", (unsigned long long)findings);
	free(bytes);
}

Test(prefetch, looking_ahead_changes_nothing)
{
	same_with_and_without(0);
}

Test(prefetch, looking_ahead_changes_nothing_while_evicting)
{
	same_with_and_without(9000);
}
