/* test_prefault.c: roce_analyzer_prefault() (analyzer/core/prefault.c), the one analyzer call that
 * may run on another thread while roce_analyze() runs.
 *
 * analyze.h promises that it changes nothing the analysis computes. Two analyzers take the same
 * traffic: 300,000 queue pairs, each a SEND asking for an ACK and the ACK (600,000 streams, their
 * cores 38 MB, their requester blocks 58 MB: past the 16 MB below which it does nothing).
 * One analyzes alone; beside the other a thread calls roce_analyzer_prefault() without pause.
 * Every frame's events and ids and, in the end, every stream's row must be the same; and the
 * thread must have populated pages, which must be there, past the cores in use, when it is done.
 * (Criterion cannot run under ThreadSanitizer here: tests/cli/test-cli.sh runs rocedump's own
 * prefaulting thread there, on a capture of 120,000 queue pairs.) */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stream_table.h"
#include "unit_util.h"

#define N_QPS 300000u

struct helper {
	struct roce_analyzer *an;
	atomic_bool stop;
	unsigned long calls, populated;
};

static void *prefault_loop(void *arg)
{
	struct helper *h = arg;
	while (!atomic_load(&h->stop)) {
		h->calls++;
		h->populated += roce_analyzer_prefault(h->an);
	}
	return NULL;
}

/* Frame k of the traffic: QP k / 2's SEND from 10.a.b.c (its requester: one of 65,536 hosts) to
 * 10.200.0.1, or its ACK back. */
static uint32_t frame(uint32_t k, uint8_t *out)
{
	struct roce_build b;
	uint32_t qp = k / 2, host = qp % 65536;
	bool ack = k % 2;
	u_base(&b);
	uint8_t requester[4] = {10, (uint8_t)(host >> 8), (uint8_t)host, 7}, responder[4] = {10, 200, 0, 1};
	memcpy(ack ? b.dst : b.src, requester, 4);
	memcpy(ack ? b.src : b.dst, responder, 4);
	b.h.bth.opcode = ack ? 0x11 : 0x04;  /* RC ACKNOWLEDGE, RC SEND_ONLY */
	b.h.bth.dqpn = ack ? 0x100 + qp : 0x800000 + qp;
	b.h.bth.psn = qp & 0xffff;
	b.h.bth.ackreq = !ack;
	b.h.aeth.syndrome = 0x1f;
	b.h.aeth.msn = 1;
	if (!ack) {
		b.payload = u_payload();
		b.payload_len = 32;
	}
	b.ip_id = (uint16_t)k;
	return u_build(&b, out);
}

#define MIB ((size_t)1 << 20)

/* Pages resident in [from, to) of the mapping at base (mincore). */
static size_t resident_pages(const uint8_t *base, size_t from, size_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 0;
	from &= ~(page - 1);
	size_t count = (to - from + page - 1) / page;
	unsigned char *vec = malloc(count);
	cr_assert_not_null(vec);
	cr_assert_eq(mincore((void *)(base + from), to - from, vec), 0);
	for (size_t i = 0; i < count; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

Test(prefault, populating_beside_the_analysis_changes_nothing, .timeout = 240)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer *plain = roce_analyzer_new(NULL, err), *helped = roce_analyzer_new(NULL, err);
	cr_assert(plain && helped, "roce_analyzer_new: %s", err);
	struct helper h = {.an = helped};
	atomic_init(&h.stop, false);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, prefault_loop, &h), 0);

	uint8_t buf[FRAME_CAP];
	struct roce_pkt pa, pb;
	struct roce_findings fa, fb;
	for (uint32_t k = 0; k < 2 * N_QPS; k++) {
		uint32_t len = frame(k, buf);
		cr_assert_eq(u_decode(buf, len, ROCE_LINK_ETHERNET, &pa), 1);
		pb = pa;
		int64_t ts = INT64_C(1700000000000000000) + (int64_t)k * 1000;
		roce_analyze(plain, &pa, k + 1, buf, ts, &fa);
		roce_analyze(helped, &pb, k + 1, buf, ts, &fb);
		cr_assert(memcmp(&pa.events, &pb.events, sizeof(pa.events)) == 0, "frame %u: events differ", k + 1);
		cr_assert(fa.n == fb.n && fa.stream == fb.stream && fa.pair == fb.pair && fa.response_ns == fb.response_ns,
			  "frame %u: findings differ", k + 1);
	}
	atomic_store(&h.stop, true);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_gt(h.populated, 0, "%lu calls, none populated a page", h.calls);

	/* the thread is done: one more call populates past the cores in use, up to its lead */
	(void)roce_analyzer_prefault(helped);
	const struct prefault_area *cores = &helped->pf[PF_CORES];
	const uint8_t *base = atomic_load(&cores->base);
	size_t used = atomic_load(&cores->used), size = atomic_load(&cores->size);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), upto = (used + page - 1) & ~(page - 1);
	cr_assert_gt(size, upto + MIB, "the cores' mapping ends at their use: nothing to populate past it");
	cr_assert_eq(resident_pages(base, upto, upto + MIB), MIB / page, "the MiB past the cores in use is not all resident");

	struct u_rows ra = {0}, rb = {0};
	roce_analyzer_foreach(plain, u_rows_keep, &ra);
	roce_analyzer_foreach(helped, u_rows_keep, &rb);
	cr_assert_eq(ra.n, (size_t)2 * N_QPS, "%zu streams", ra.n);
	cr_assert_eq(ra.n, rb.n);
	for (size_t k = 0; k < ra.n; k++)
		u_assert_same_row(k, &ra.s[k], &rb.s[k]);
	cr_assert_gt(ra.s[0].response_count + ra.s[1].response_count, 0, "no ACK was paired with its SEND");
	free(ra.s);
	free(rb.s);
	roce_analyzer_free(plain);
	roce_analyzer_free(helped);
}

Test(prefault, nothing_below_a_few_mib)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer *an = roce_analyzer_new(NULL, err);
	cr_assert_not_null(an, "roce_analyzer_new: %s", err);
	cr_assert(!roce_analyzer_prefault(an), "an empty analyzer has nothing to populate");
	uint8_t buf[FRAME_CAP];
	struct roce_pkt p;
	for (uint32_t k = 0; k < 20000; k++) {  /* 20,000 streams: 2.5 MB of cores */
		uint32_t len = frame(k, buf);
		cr_assert_eq(u_decode(buf, len, ROCE_LINK_ETHERNET, &p), 1);
		roce_analyze(an, &p, k + 1, buf, (int64_t)k * 1000, NULL);
	}
	cr_assert(!roce_analyzer_prefault(an), "populated pages for a small analyzer");
	roce_analyzer_free(an);
}
