/* test_pipeline.c: the read → decode → sink loop (analyzer/rocedump/pipeline.c) on capture files,
 * with one thread and with several: every frame reaches the sink once, in the file's order, with
 * the file's own bytes and its own decode, whatever the threads and the batch size; and batches
 * hold many frames whichever reader reads them.
 *
 * The threads share the ring the file is read into (pcapread.c): batches are filled in turn and
 * decoded apart, and the ring is read over behind the oldest batch not yet sunk. A frame read over
 * too early shows here as bytes that are not the file's. Files: a classic pcap file the direct
 * reader takes (40 MiB of records of 0 to 200 bytes, and of 0 to 3,000), and one in the other byte order, which
 * libpcap reads, its frames copied into the batches. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input_harness.h"
#include "pipeline.h"

TestSuite(pipeline, .fini = cleanup);

struct made {
	struct file f;
	size_t n;                 /* records */
	uint64_t *sums;           /* each record's bytes, weighed */
	uint32_t *lens;
};

/* n records (or as many as fill bytes) of 0 to max_len bytes; swap: the other byte order. */
static struct made make(size_t n, size_t bytes, uint32_t max_len, bool swap)
{
	struct made m = {0};
	put32(&m.f, 0xa1b2c3d4, swap);
	put16(&m.f, 2, swap);
	put16(&m.f, 4, swap);
	put32(&m.f, 0, swap);
	put32(&m.f, 0, swap);
	put32(&m.f, 65535, swap);
	put32(&m.f, 1, swap);  /* Ethernet */
	size_t cap = 1024;
	m.sums = malloc(cap * sizeof(*m.sums));
	m.lens = malloc(cap * sizeof(*m.lens));
	cr_assert(m.sums && m.lens);
	uint64_t seed = 0xa4093822299f31d0ull;
	while (m.n < n && m.f.len < bytes) {
		if (m.n == cap) {
			cap *= 2;
			uint64_t *sums = realloc(m.sums, cap * sizeof(*m.sums));
			uint32_t *lens = realloc(m.lens, cap * sizeof(*m.lens));
			cr_assert(sums && lens);
			m.sums = sums;
			m.lens = lens;
		}
		uint32_t len = (uint32_t)(rnd(&seed) % (max_len + 1));
		put32(&m.f, 1700000000u + (uint32_t)m.n, swap);
		put32(&m.f, (uint32_t)(m.n % 1000000), swap);
		put32(&m.f, len, swap);
		put32(&m.f, len, swap);
		size_t at = m.f.len;
		put_frame(&m.f, len, (unsigned)m.n);
		m.lens[m.n] = len;
		m.sums[m.n++] = weigh(m.f.b + at, len);
	}
	return m;
}

static void unmake(struct made *m)
{
	free(m->f.b);
	free(m->sums);
	free(m->lens);
}

struct seen {
	const struct made *m;
	size_t n;
	bool bad;
	char what[160];
};

static bool check_frame(void *ctx, const struct frame *f, struct roce_pkt *p)
{
	struct seen *s = ctx;
	size_t k = s->n++;
	if (s->bad)
		return true;
	if (f->number != k + 1 || k >= s->m->n || f->caplen != s->m->lens[k] ||
	    weigh(f->data, f->caplen) != s->m->sums[k]) {
		s->bad = true;
		snprintf(s->what, sizeof(s->what), "frame %zu (number %llu, %u bytes): not the file's", k + 1,
			 (unsigned long long)f->number, f->caplen);
	} else if (p->caplen != f->caplen || p->wirelen != f->wirelen || p->linktype != 1) {
		s->bad = true;  /* a worker's decodes are streamed into the batch (handoff.h) */
		snprintf(s->what, sizeof(s->what), "frame %zu (%u bytes): its decode says %u of %u bytes, link type %u",
			 k + 1, f->caplen, p->caplen, p->wirelen, p->linktype);
	}
	return true;
}

/* path through the pipeline on threads threads, batch frames a batch: every frame the file's. */
static struct pipeline_counts run(const char *path, const struct made *m, unsigned threads, unsigned batch,
				  bool want_direct)
{
	struct input in;
	char err[INPUT_ERRLEN];
	cr_assert_eq(input_open_file(&in, path, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(input_frame_kept(&in), want_direct);
	struct roce_decoder_config dec = {0};
	struct pipeline_counts counts = {0};
	struct pipeline_config cfg = {.threads = threads, .batch_frames = batch, .decoder = &dec, .counts = &counts};
	struct seen s = {.m = m};
	int rc = pipeline_run(&in, &cfg, check_frame, &s, err, sizeof(err));
	input_close(&in);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_not(s.bad, "%u threads, batches of %u: %s", threads, batch, s.what);
	cr_assert_eq(s.n, m->n, "%u threads, batches of %u: %zu frames of %zu", threads, batch, s.n, m->n);
	return counts;
}

Test(pipeline, frames_intact_on_many_threads)
{
	/* more threads than the ring holds batches for (16 threads: 32 batches of up to 1 MiB, against
	 * a ring of 8 MiB: it grows), batches of one frame and of the most frames */
	static const unsigned runs[][2] = {{1, 4096}, {2, 4096}, {2, 1}, {3, 300}, {4, 65536}, {8, 1000}, {16, 5000}, {16, 65536}};
	static const uint32_t max_len[] = {200, 3000};  /* 40 MiB: 400,000 frames, 28,000 frames */
	for (size_t f = 0; f < 2; f++) {
		struct made m = make(SIZE_MAX, (size_t)40 << 20, max_len[f], false);
		const char *path = save(&m.f, "many.pcap");
		for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
			for (unsigned rep = 0; rep < 2; rep++)
				run(path, &m, runs[i][0], runs[i][1], true);
		unmake(&m);
	}
}

Test(pipeline, batches_hold_many_frames)
{
	/* Frames libpcap reads (a file in the other byte order) and frames the direct reader hands
	 * out: either way a batch holds many frames. Batches of one frame each (as when a batch's file
	 * range is compared with the offset libpcap's frames do not have) make two threads many times
	 * slower than one. */
	for (unsigned swapped = 0; swapped < 2; swapped++) {
		struct made m = make(200000, SIZE_MAX, 120, swapped);
		const char *path = save(&m.f, swapped ? "small-swapped.pcap" : "small.pcap");
		struct pipeline_counts c = run(path, &m, 2, 4096, !swapped);
		cr_assert_eq(c.batch_frames, m.n, "every frame went in a batch");
		cr_assert_geq(c.batch_frames, c.batches * 1000, "%s: %llu batches for %llu frames",
			      swapped ? "libpcap" : "direct", (unsigned long long)c.batches,
			      (unsigned long long)c.batch_frames);
		unmake(&m);
	}
}
