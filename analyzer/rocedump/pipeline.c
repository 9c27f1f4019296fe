/* pipeline.c: the read → decode → sink loop, on one thread or several (see pipeline.h).
 *
 * Several threads. Workers take batches in turn under the read lock; a batch's sequence number is
 * its place in capture order. A worker decodes its batch on its own, then waits until the batches
 * before it have been through the sink (`turn`), runs its batch through the sink and passes the
 * turn on. Every worker that took a number passes the turn, even after a stop, so that none waits
 * for ever. Passing the turn hands the sink's state (analyzer, summary, output) to the next worker
 * with release/acquire ordering: the sink needs no lock. A batch keeps its frames' bytes and
 * their decodes (~3.6 MiB at the default 8192 small frames), so memory does not grow with the
 * input.
 *
 * Large frames. The copy out of libpcap's buffer is serial (under the read lock), and for frames
 * of a few KiB it costs as much as the decode it lets run in parallel: on 4 KiB frames the
 * batches were 25 % slower than one thread. So a batch that follows one whose frames averaged
 * more than DIRECT_ABOVE bytes is read, decoded and sunk frame by frame by the worker that holds
 * the read lock, as in the one-thread loop (tests/bench/README.md has the measurements). */
#define _GNU_SOURCE
#include "pipeline.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH_BYTES (1u << 20)   /* a batch ends when its frames hold this many bytes */
#define DIRECT_ABOVE 2048        /* mean captured bytes a frame above which batches run directly */
#define SPIN_LIMIT 2000          /* pauses (~30 µs) before a worker waiting for its turn sleeps */

struct batch {
	unsigned n;               /* frames */
	int rc;                   /* input_next() after the last frame: 1 more to come, 0 end, -1 error */
	struct frame *frames;
	struct roce_pkt *pkts;
	uint8_t *bytes;           /* the frames' bytes, each at a 16-byte boundary */
	char err[INPUT_ERRLEN];
};

struct shared {
	const struct pipeline_config *cfg;
	struct input *in;
	pipeline_sink sink;
	void *ctx;

	pthread_mutex_t read_lock;    /* the input and the fields below it */
	uint64_t next_seq;
	bool input_done;              /* end of input or a read error seen */
	bool direct;                  /* the next batch runs frame by frame */

	_Atomic uint64_t turn;        /* the batch whose frames go to the sink next */
	pthread_mutex_t turn_lock;    /* for sleeping on turn_moved only */
	pthread_cond_t turn_moved;
	atomic_bool stop;             /* no further frame goes to the sink */
	int result;                   /* pipeline_run()'s; written by the worker holding the turn */
	char *errbuf;
	size_t errlen;
};

struct worker {
	struct shared *s;
	pthread_t thread;
	struct batch b;
};

unsigned pipeline_default_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus >= 2 ? 2 : 1;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static void wait_turn(struct shared *s, uint64_t seq)
{
	for (unsigned i = 0; i < SPIN_LIMIT; i++) {
		if (atomic_load_explicit(&s->turn, memory_order_acquire) == seq)
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&s->turn_lock);
	while (atomic_load_explicit(&s->turn, memory_order_acquire) != seq)
		pthread_cond_wait(&s->turn_moved, &s->turn_lock);
	pthread_mutex_unlock(&s->turn_lock);
}

static void pass_turn(struct shared *s, uint64_t seq)
{
	pthread_mutex_lock(&s->turn_lock);
	atomic_store_explicit(&s->turn, seq + 1, memory_order_release);
	pthread_cond_broadcast(&s->turn_moved);
	pthread_mutex_unlock(&s->turn_lock);
}

/* With the turn held: a read error ends the run after the frames before it. */
static void take_read_result(struct shared *s, int rc, const char *err)
{
	if (rc < 0) {
		s->result = -1;
		snprintf(s->errbuf, s->errlen, "%s", err);
		atomic_store_explicit(&s->stop, true, memory_order_relaxed);
	}
}

/* With the turn held: one frame to the sink. */
static bool sink_frame(struct shared *s, const struct frame *f, struct roce_pkt *p)
{
	if (s->sink(s->ctx, f, p))
		return true;
	s->result = 1;
	atomic_store_explicit(&s->stop, true, memory_order_relaxed);
	return false;
}

/* With the read lock and the turn held: up to batch_frames frames, one at a time, in the
 * batch's first slot. */
static void run_direct(struct shared *s, struct batch *b)
{
	uint64_t bytes = 0;
	unsigned n = 0;
	struct frame f;
	int rc = 1;

	while (n < s->cfg->batch_frames && !atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		rc = input_next(s->in, &f, b->err, sizeof(b->err));
		if (rc != 1)
			break;
		n++;
		bytes += f.caplen;
		roce_decode(s->cfg->decoder, f.data, f.caplen, f.wirelen, s->in->linktype, &b->pkts[0]);
		if (!sink_frame(s, &f, &b->pkts[0]))
			break;
	}
	if (rc != 1)
		s->input_done = true;
	take_read_result(s, rc, b->err);
	s->direct = n && bytes / n > DIRECT_ABOVE;
}

/* With the read lock held: copy up to batch_frames frames (BATCH_BYTES of them) out of the
 * input. Only the first ROCE_DECODE_MAX_CAPLEN bytes of a frame are kept: nothing reads
 * further (decode.h); caplen stays what the capture says. */
static void fill_batch(struct shared *s, struct batch *b)
{
	uint64_t bytes = 0;
	size_t used = 0;

	b->n = 0;
	b->rc = 1;
	while (b->n < s->cfg->batch_frames && used < BATCH_BYTES) {
		struct frame *f = &b->frames[b->n];
		b->rc = input_next(s->in, f, b->err, sizeof(b->err));
		if (b->rc != 1) {
			s->input_done = true;
			break;
		}
		uint32_t keep = f->caplen < ROCE_DECODE_MAX_CAPLEN ? f->caplen : ROCE_DECODE_MAX_CAPLEN;
		memcpy(b->bytes + used, f->data, keep);
		f->data = b->bytes + used;
		used += (keep + 15) & ~(size_t)15;
		bytes += f->caplen;
		b->n++;
	}
	s->direct = b->n && bytes / b->n > DIRECT_ABOVE;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct shared *s = w->s;
	struct batch *b = &w->b;

	for (;;) {
		pthread_mutex_lock(&s->read_lock);
		if (s->input_done || atomic_load_explicit(&s->stop, memory_order_relaxed)) {
			pthread_mutex_unlock(&s->read_lock);
			break;
		}
		uint64_t seq = s->next_seq++;
		if (s->direct) {
			wait_turn(s, seq);
			run_direct(s, b);
			pthread_mutex_unlock(&s->read_lock);
			pass_turn(s, seq);
			continue;
		}
		fill_batch(s, b);
		pthread_mutex_unlock(&s->read_lock);

		for (unsigned i = 0; i < b->n; i++)
			roce_decode(s->cfg->decoder, b->frames[i].data, b->frames[i].caplen,
				    b->frames[i].wirelen, s->in->linktype, &b->pkts[i]);

		wait_turn(s, seq);
		if (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
			unsigned i = 0;
			while (i < b->n && sink_frame(s, &b->frames[i], &b->pkts[i]))
				i++;
			if (i == b->n)
				take_read_result(s, b->rc, b->err);
		}
		pass_turn(s, seq);
	}
	return NULL;
}

static bool batch_alloc(struct batch *b, unsigned frames)
{
	b->frames = malloc(sizeof(*b->frames) * frames);
	b->pkts = malloc(sizeof(*b->pkts) * frames);
	b->bytes = malloc(BATCH_BYTES + ROCE_DECODE_MAX_CAPLEN + 16);
	return b->frames && b->pkts && b->bytes;
}

static void batch_free(struct batch *b)
{
	free(b->frames);
	free(b->pkts);
	free(b->bytes);
}

static int run_one_thread(struct input *in, const struct pipeline_config *cfg, pipeline_sink sink,
			  void *ctx, char *errbuf, size_t errlen)
{
	struct roce_pkt pkt;
	struct frame f;
	int rc;

	while ((rc = input_next(in, &f, errbuf, errlen)) == 1) {
		roce_decode(cfg->decoder, f.data, f.caplen, f.wirelen, in->linktype, &pkt);
		if (!sink(ctx, &f, &pkt))
			return 1;
	}
	return rc;
}

int pipeline_run(struct input *in, const struct pipeline_config *cfg, pipeline_sink sink, void *ctx,
		 char *errbuf, size_t errlen)
{
	unsigned threads = cfg->threads > PIPELINE_MAX_THREADS ? PIPELINE_MAX_THREADS : cfg->threads;
	if (threads <= 1 || cfg->batch_frames == 0)
		return run_one_thread(in, cfg, sink, ctx, errbuf, errlen);

	struct shared s = {.cfg = cfg, .in = in, .sink = sink, .ctx = ctx, .errbuf = errbuf, .errlen = errlen};
	struct worker w[PIPELINE_MAX_THREADS];
	unsigned n = 0;

	/* Workers that cannot get their memory or their thread are simply not there: the others
	 * do the work. Without a second one, the one-thread loop is faster than batches. */
	while (n < threads) {
		w[n] = (struct worker){.s = &s};
		if (!batch_alloc(&w[n].b, cfg->batch_frames)) {
			batch_free(&w[n].b);
			break;
		}
		n++;
	}
	if (n < 2) {
		for (unsigned i = 0; i < n; i++)
			batch_free(&w[i].b);
		return run_one_thread(in, cfg, sink, ctx, errbuf, errlen);
	}
	pthread_mutex_init(&s.read_lock, NULL);
	pthread_mutex_init(&s.turn_lock, NULL);
	pthread_cond_init(&s.turn_moved, NULL);
	atomic_init(&s.turn, 0);
	atomic_init(&s.stop, false);

	bool running[PIPELINE_MAX_THREADS] = {false};
	for (unsigned i = 1; i < n; i++)  /* w[0] is this thread */
		running[i] = pthread_create(&w[i].thread, NULL, work, &w[i]) == 0;
	work(&w[0]);
	for (unsigned i = 0; i < n; i++) {
		if (running[i])
			pthread_join(w[i].thread, NULL);
		batch_free(&w[i].b);
	}
	pthread_cond_destroy(&s.turn_moved);
	pthread_mutex_destroy(&s.turn_lock);
	pthread_mutex_destroy(&s.read_lock);
	return s.result;
}
