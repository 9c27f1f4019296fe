/* pipeline.c: the read -> decode -> sink loop, on one thread or several (see pipeline.h).
 *
 * Only the calling thread runs the sink, so the analyzer's tables, the summary and the output
 * buffer stay in one core's cache and batch data crosses cores in one direction. Batches live in
 * a ring of 2 slots per thread (batch k in slot k mod slots): a worker takes the next batch number
 * under the read lock when its slot is free, claims the file's next range and reads it in with
 * the lock let go (input_claim_ahead), fills the batch with the records that begin there (frames
 * in the file's window stay where they lie, input_frame_kept; others are copied out of libpcap),
 * decodes them and marks the batch ready. A thread decodes the bytes it has just read, so they are
 * still in its cache. The sink thread sinks batches in order and decodes one itself while the next
 * is not ready. Workers build each decode in memory of their own and write it to the batch with
 * streaming stores (handoff.h), only as far as it extends (roce_pkt_extent), so that no store
 * fetches the sink's cache lines. Large copied frames cost as much to copy (serially) as to
 * decode: when a batch's copied frames averaged more than DIRECT_ABOVE bytes, the sink thread
 * reads, decodes and sinks frames one by one (direct mode) while the workers wait. Frames read
 * one at a time are held back a few frames for the analysis's look-ahead (struct look_ahead).
 * A live capture or pipe with no frame ready (INPUT_AGAIN) ends the batch being filled; the sink
 * thread calls the idle hook, waits on the input only when no batch is in flight, and is woken
 * through an eventfd when a worker hands it a batch. tests/bench measures these choices. */
#define _GNU_SOURCE
#include "pipeline.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cpu_relax.h"
#include "handoff.h"

#define BATCH_BYTES (1u << 20)   /* a batch ends when its frames hold this many bytes */
#define DIRECT_ABOVE 2048        /* mean captured bytes a frame above which batches run directly */
#define SLOTS_PER_THREAD 2
#define SPIN_LIMIT 2000          /* pauses (~30 µs) before a waiting thread sleeps */
#define READ_LIMIT 3             /* read_decode_sink(): the frame limit was reached */

enum slot_state { SLOT_FREE, SLOT_READY };

struct batch {
	_Atomic int state;        /* enum slot_state; ready: decoded, waiting for the sink */
	unsigned n;               /* frames */
	int rc;                   /* input_next() after the last frame: 1 more to come, 0 end, -1 error */
	struct frame *frames;
	struct roce_pkt *pkts;
	uint8_t *bytes;           /* the frames' bytes, each at a 16-byte boundary */
	size_t end;               /* the file's offset before which its frames begin (SIZE_MAX: any) */
	char err[INPUT_ERRLEN];
};

struct shared {
	const struct pipeline_config *cfg;
	struct input *in;
	pipeline_sink sink;
	void *ctx;
	struct batch *slots;
	unsigned n_slots;

	pthread_mutex_t read_lock;    /* the input and the five fields below */
	uint64_t next_seq;            /* the next batch to take */
	uint64_t next_fill;           /* the next batch to fill (batches are filled in order) */
	size_t range_bytes;           /* the file's bytes a batch claims as its own (read_and_decode) */
	bool input_done;              /* end of input or a read error seen */
	bool direct;                  /* the next batch runs frame by frame on the sink thread */

	_Atomic uint64_t sunk;        /* batches sunk (or skipped after a stop) */
	atomic_bool stop;             /* no further frame goes to the sink; decoders quit */
	_Atomic uint64_t changes;     /* bumped on every change a waiting thread may wait for */
	pthread_mutex_t wait_lock;
	pthread_cond_t changed;
	int wake;                     /* eventfd: a batch is ready for a sink thread waiting on the input */
	atomic_bool sink_polling;     /* the sink thread waits on the input (and wake) */

	struct look_ahead *look_ahead;  /* direct mode's */
	int result;                   /* pipeline_run()'s; written by the sink thread */
	char *errbuf;
	size_t errlen;
};

unsigned pipeline_default_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus >= 2 ? 2 : 1;
}

/* Wait until s->changes is no longer seen: spin a while, then sleep. */
static void wait_change(struct shared *s, uint64_t seen)
{
	for (unsigned i = 0; i < SPIN_LIMIT; i++) {
		if (atomic_load_explicit(&s->changes, memory_order_acquire) != seen)
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&s->wait_lock);
	while (atomic_load_explicit(&s->changes, memory_order_acquire) == seen)
		pthread_cond_wait(&s->changed, &s->wait_lock);
	pthread_mutex_unlock(&s->wait_lock);
}

/* Until the sink thread has sunk batch `sunk` or the run stops, asleep at once. A decoder waits
 * here when every slot holds a batch not yet sunk: the sink thread has a batch's work ahead of
 * it, and a spin would only take a CPU from it (and from --export's thread). */
static void wait_sunk(struct shared *s, uint64_t sunk)
{
	pthread_mutex_lock(&s->wait_lock);
	while (atomic_load_explicit(&s->sunk, memory_order_acquire) == sunk &&
	       !atomic_load_explicit(&s->stop, memory_order_relaxed))
		pthread_cond_wait(&s->changed, &s->wait_lock);
	pthread_mutex_unlock(&s->wait_lock);
}

static void announce_change(struct shared *s)
{
	pthread_mutex_lock(&s->wait_lock);
	atomic_fetch_add_explicit(&s->changes, 1, memory_order_release);
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->wait_lock);
	if (s->wake >= 0 && atomic_load(&s->sink_polling)) {
		uint64_t one = 1;
		if (write(s->wake, &one, sizeof(one)) < 0) {
			/* the counter is full: the sink thread wakes anyway */
		}
	}
}

/* The idle hook: false when it says stop. */
static bool call_idle(const struct pipeline_config *cfg, void *ctx)
{
	return !cfg->idle || cfg->idle(ctx);
}

/* On the sink thread: a read error ends the run after the frames before it. */
static void take_read_result(struct shared *s, int rc, const char *err)
{
	if (rc < 0) {
		s->result = -1;
		snprintf(s->errbuf, s->errlen, "%s", err);
		atomic_store_explicit(&s->stop, true, memory_order_relaxed);
	}
}

/* On the sink thread: the sink said stop. */
static void stopped_by_sink(struct shared *s)
{
	s->result = 1;
	atomic_store_explicit(&s->stop, true, memory_order_relaxed);
}

/* On the sink thread: one frame to the sink. */
static bool sink_frame(struct shared *s, const struct frame *f, struct roce_pkt *p)
{
	if (s->sink(s->ctx, f, p))
		return true;
	stopped_by_sink(s);
	return false;
}

/* Whether frames this large on average are better read, decoded and sunk one by one. */
static bool direct_size(uint64_t bytes, uint64_t n)
{
	return n && bytes / n > DIRECT_ABOVE;
}

/* Frame f, which does not stay where it lies (input_frame_kept), copied to to: only its first
 * ROCE_DECODE_MAX_CAPLEN bytes, which is all anything reads (decode.h); caplen stays what the
 * capture says. Its pcapng options (-w writes them again; at most FRAME_OPTS_MAX bytes from
 * libpcap's reading) follow. The bytes used. */
static size_t copy_frame(struct frame *f, uint8_t *to)
{
	size_t n = roce_readable_len(f->caplen);
	memcpy(to, f->data, n);
	f->data = to;
	if (f->opts_len) {
		memcpy(to + n, f->opts, f->opts_len);
		f->opts = to + n;
	}
	return n + f->opts_len;
}
#define COPY_MAX (ROCE_DECODE_MAX_CAPLEN + FRAME_OPTS_MAX)  /* what copy_frame() may use */

/* The look-ahead of the frames read one at a time (run_one_thread, run_direct). While the peek
 * hook wants it (the analyzer holds more streams than the caches do), a frame is read and
 * decoded LOOK_AHEAD frames before the sink sees it and given to the peek hook then, as
 * sink_batch() does with a batch's frames, so that its state loads while the frames before it
 * are analysed. A frame that does not stay where it lies in the window (input_frame_kept)
 * is copied into the ring, its first ROCE_DECODE_MAX_CAPLEN bytes, as fill_batch() copies it.
 * While the hook says no and the ring is empty, each frame goes to the sink as soon as it is
 * decoded: nothing copied, nothing held. */
#define LOOK_AHEAD PIPELINE_PEEK_AHEAD
#define ASK_EVERY 256  /* frames between two questions to the peek hook while it says no */

struct look_ahead {
	struct frame frames[LOOK_AHEAD];
	struct roce_pkt pkts[LOOK_AHEAD];
	pipeline_peek peek;       /* NULL: no look-ahead (no hook, or no memory for the copies) */
	uint8_t *bytes;           /* LOOK_AHEAD copies of COPY_MAX bytes */
	unsigned first, n;        /* the oldest frame's slot; the frames held */
	unsigned until_ask;       /* frames until the peek hook is asked again (1: at the next) */
	bool wanted;              /* its last answer */
};

/* Whether frame f (decoded into p) is held back: always while frames are held (the peek hook has
 * seen it then), else when the hook wants to look ahead. It is asked on every frame while it
 * said yes last (the ring empties whenever a live capture has no frame ready), and every
 * ASK_EVERY frames while it said no (a question costs ~20 instructions; the analyzer's streams
 * grow slowly). */
static bool hold_back(struct look_ahead *la, void *ctx, const struct frame *f, struct roce_pkt *p)
{
	if (!la->peek)
		return false;
	if (la->n) {
		(void)la->peek(ctx, f, p);
		return true;
	}
	if (!la->wanted && --la->until_ask)
		return false;
	la->until_ask = ASK_EVERY;
	la->wanted = la->peek(ctx, f, p);
	return la->wanted;
}

/* The oldest frame held, to the sink; false when the sink said stop. */
static bool sink_oldest(struct look_ahead *la, pipeline_sink sink, void *ctx)
{
	unsigned at = la->first;
	la->first = (at + 1) % LOOK_AHEAD;
	la->n--;
	return sink(ctx, &la->frames[at], &la->pkts[at]);
}

/* Read a frame, decode it, sink it (LOOK_AHEAD frames later while looking ahead); up to limit
 * frames. Returns 1 when the sink said stop, 0 at the end of the input, -1 on a read error
 * (message in err), INPUT_AGAIN when no frame is ready, READ_LIMIT after limit frames: in each
 * case but the first, every frame read has reached the sink. *n and *bytes count the frames read
 * and their captured bytes. */
static int read_decode_sink(struct input *in, const struct pipeline_config *cfg, pipeline_sink sink, void *ctx,
			    struct look_ahead *la, uint64_t limit, uint64_t *n, uint64_t *bytes, char *err,
			    size_t errlen)
{
	int rc = READ_LIMIT;
	while (*n < limit) {
		unsigned at = (la->first + la->n) % LOOK_AHEAD;
		struct frame *f = &la->frames[at];
		struct roce_pkt *p = &la->pkts[at];
		input_release(in, la->n ? &la->frames[la->first] : NULL);  /* every frame before those held has been sunk */
		int got = input_next(in, f, err, errlen);
		if (got != 1) {
			rc = got;
			break;
		}
		++*n;
		*bytes += f->caplen;
		roce_decode(cfg->decoder, f->data, f->caplen, f->wirelen, f->linktype, p);
		if (!hold_back(la, ctx, f, p)) {
			if (!sink(ctx, f, p))
				return 1;
			continue;
		}
		if (!input_frame_kept(in))  /* its bytes go with the next input_next() */
			copy_frame(f, la->bytes + (size_t)at * COPY_MAX);
		if (++la->n == LOOK_AHEAD && !sink_oldest(la, sink, ctx))
			return 1;
	}
	while (la->n)
		if (!sink_oldest(la, sink, ctx))
			return 1;
	return rc;
}

/* On the sink thread, with the read lock held and every batch before sunk: up to batch_frames
 * frames, one at a time (looking ahead). True when no frame was ready at all. */
static bool run_direct(struct shared *s, struct batch *b)
{
	uint64_t bytes = 0, n = 0;
	int rc = read_decode_sink(s->in, s->cfg, s->sink, s->ctx, s->look_ahead, s->cfg->batch_frames, &n, &bytes,
				  b->err, sizeof(b->err));

	if (rc == 1) {
		stopped_by_sink(s);
	} else if (rc <= 0) {
		s->input_done = true;
		take_read_result(s, rc, b->err);
	}
	s->direct = direct_size(bytes, n);  /* frames copied: direct mode starts only after some were */
	return rc == INPUT_AGAIN && n == 0;
}

/* With the read lock held, before batch seq is read: the window may be read over before the
 * oldest frame of the batches filled and not yet sunk (input_release; batches are filled in
 * order, and one taken but not yet filled holds no frame). A batch sunk meanwhile only makes this
 * keep more than it needs to; none can be filled again but under the lock. */
static void release_sunk(struct shared *s, uint64_t seq)
{
	const struct frame *oldest = NULL;
	for (uint64_t k = atomic_load_explicit(&s->sunk, memory_order_acquire); k < seq && !oldest; k++) {
		const struct batch *b = &s->slots[k % s->n_slots];
		if (b->n)
			oldest = &b->frames[0];
	}
	input_release(s->in, oldest);
}

/* The bytes of the file a batch claims as its own (read_and_decode): as many as batch_frames
 * records of per_record bytes take, at most PCAPREAD_CLAIM_BYTES (a batch holds at most
 * BATCH_BYTES), in whole pieces, rounded up (the batch is then full at batch_frames). 0 when
 * that is less than half a piece: such small batches (--batch) claim nothing, or most of a
 * range would be the next batches' records. */
static size_t range_for(unsigned batch_frames, size_t per_record)
{
	size_t want = per_record && batch_frames > PCAPREAD_CLAIM_BYTES / per_record ? PCAPREAD_CLAIM_BYTES
										   : (size_t)batch_frames * per_record;
	return want < PCAPREAD_PIECE / 2 ? 0 : (want + PCAPREAD_PIECE - 1) / PCAPREAD_PIECE * PCAPREAD_PIECE;
}

/* Whether the batch being filled takes the next record: one that begins before until (a batch's
 * frames in the window span at most BATCH_BYTES of the file, and those of a batch with a range of
 * its own begin in it), or any record libpcap reads. */
static inline bool batch_goes_on(const struct input *in, size_t until)
{
	size_t at = input_next_offset(in);
	return at == SIZE_MAX || at < until;
}

/* With the read lock held: up to batch_frames frames (BATCH_BYTES of them) from the input into
 * batch seq, their records into mine when given (a worker's: read_and_decode streams them out)
 * but for the first. A frame in the window stays where it is (input_frame_kept); any other is
 * copied out, only its first ROCE_DECODE_MAX_CAPLEN bytes: nothing reads further (decode.h);
 * caplen stays what the capture says. */
static void fill_batch(struct shared *s, uint64_t seq, struct batch *b, struct frame *mine)
{
	uint64_t copied = 0;
	size_t used = 0;

	release_sunk(s, seq);
	b->n = 0;
	b->rc = 1;
	size_t from = input_next_offset(s->in);
	size_t until = from == SIZE_MAX || b->end - from < BATCH_BYTES ? b->end : from + BATCH_BYTES;
	while (b->n < s->cfg->batch_frames && used < BATCH_BYTES && (!b->n || batch_goes_on(s->in, until))) {
		struct frame f;
		b->rc = input_next(s->in, &f, b->err, sizeof(b->err));
		if (b->rc == INPUT_AGAIN) {  /* the batch ends here; more to come */
			b->rc = 1;
			break;
		}
		if (b->rc != 1) {
			s->input_done = true;
			break;
		}
		size_t n = roce_readable_len(f.caplen);  /* kept frames count too */
		if (!input_frame_kept(s->in)) {
			n = copy_frame(&f, b->bytes + used);
			copied += f.caplen;
		}
		used += (n + 15) & ~(size_t)15;
		if (mine)
			mine[b->n] = f;
		if (!mine || !b->n)  /* a batch's first frame: release_sunk() reads it while it is decoded */
			b->frames[b->n] = f;
		b->n++;
	}
	/* the frames copied cost what the direct mode saves; the frames kept in place cost nothing */
	s->direct = direct_size(copied, b->n);
	size_t to = input_next_offset(s->in);
	if (b->n && to != SIZE_MAX && from != SIZE_MAX)  /* the next batches' ranges: what this one took */
		s->range_bytes = range_for(s->cfg->batch_frames, (to - from + b->n - 1) / b->n);
}

/* Decode batch b's frames: the sink thread's in place (it reads them next); a worker's, whose
 * records are in mine, into a scratch copy in its own cache, each then streamed out to the batch
 * with its record (the handoff above; the first record is there already, fill_batch), only as far
 * as the decode extends (roce_pkt_extent: ~4-5 of a roce_pkt's 7 lines for most frames). */
static void decode_batch(const struct shared *s, struct batch *b, const struct frame *mine)
{
	const struct frame *frames = mine ? mine : b->frames;
	struct roce_pkt scratch = {0};
	for (unsigned i = 0; i < b->n; i++) {
		const struct frame *f = &frames[i];
		struct roce_pkt *p = mine ? &scratch : &b->pkts[i];
		roce_decode(s->cfg->decoder, f->data, f->caplen, f->wirelen, f->linktype, p);
		if (mine) {
			handoff_copy(&b->pkts[i], p, roce_pkt_extent(p));  /* what the decode set */
			if (i)
				handoff_copy(&b->frames[i], f, sizeof(*f));
		}
	}
	if (mine)
		handoff_fence();
}

enum take { TOOK, NO_SLOT, FULL, STARVED };

/* With the read lock held, until batch seq's turn to be filled (every batch before it filled);
 * false (the lock let go) when the run stops meanwhile. */
static bool wait_fill_turn(struct shared *s, uint64_t seq)
{
	while (s->next_fill != seq) {
		uint64_t seen = atomic_load_explicit(&s->changes, memory_order_acquire);
		pthread_mutex_unlock(&s->read_lock);
		if (atomic_load_explicit(&s->stop, memory_order_relaxed))
			return false;
		wait_change(s, seen);
		pthread_mutex_lock(&s->read_lock);
	}
	return true;
}

/* With the read lock held: take the next batch if its slot is free, read it, and (the lock
 * released) decode it and mark it ready; mine: a worker's own room for batch_frames frames (the
 * handoff above), NULL on the sink thread. FULL when no slot is free (*sunk: the batches sunk
 * then), NO_SLOT when there was nothing else to take (direct mode, the end, a stop; or no range of
 * its own to read while a batch before it waits to be filled), STARVED when no frame was ready
 * (the batch number is given back; *in_flight says whether batches taken before it are still
 * being read or decoded).
 *
 * A batch of a file read into the window claims the file's next range_bytes as its own and
 * reads them in with the lock let go, while the batches before it are filled; then, in its turn,
 * it takes the records that begin in its range (one at least). Its thread decodes bytes it has
 * just read itself, still in its cache: bytes one core writes and another reads would cross
 * between caches. */
static enum take read_and_decode(struct shared *s, bool *in_flight, uint64_t *sunk, struct frame *mine)
{
	uint64_t seq = s->next_seq;
	if (s->input_done || s->direct) {
		pthread_mutex_unlock(&s->read_lock);
		return NO_SLOT;
	}
	if (seq >= (*sunk = atomic_load_explicit(&s->sunk, memory_order_acquire)) + s->n_slots) {
		pthread_mutex_unlock(&s->read_lock);
		return FULL;
	}
	struct batch *b = &s->slots[seq % s->n_slots];
	release_sunk(s, seq);  /* first: the claim may read over what the batches sunk held */
	struct pcapread_claim *own = s->range_bytes ? input_claim_ahead(s->in, s->range_bytes) : NULL;
	if (!own && s->next_fill != seq) {  /* nothing to do before its turn: leave it to a later look */
		pthread_mutex_unlock(&s->read_lock);
		return NO_SLOT;
	}
	s->next_seq++;
	b->n = 0;  /* no frames until it is filled: release_sunk() reads no stale ones */
	b->end = SIZE_MAX;
	if (own) {
		b->end = own->at + own->n;
		pthread_mutex_unlock(&s->read_lock);
		input_read_claim(s->in, own);
		pthread_mutex_lock(&s->read_lock);
	}
	if (!wait_fill_turn(s, seq))
		return NO_SLOT;
	if (s->input_done) {  /* a batch before it met the end or an error: nothing left to read */
		b->n = 0;
		b->rc = 0;
		s->next_fill++;
		pthread_mutex_unlock(&s->read_lock);
		goto ready;
	}
	fill_batch(s, seq, b, mine);
	if (b->n == 0 && b->rc == 1 && !own && s->next_seq == seq + 1) {  /* nothing ready (never in the window) */
		s->next_seq--;
		*in_flight = seq != atomic_load_explicit(&s->sunk, memory_order_acquire);
		pthread_mutex_unlock(&s->read_lock);
		return STARVED;
	}
	s->next_fill++;
	pthread_mutex_unlock(&s->read_lock);
	announce_change(s);  /* the next batch's turn to be filled */
	decode_batch(s, b, mine);
ready:
	atomic_store_explicit(&b->state, SLOT_READY, memory_order_seq_cst);
	announce_change(s);
	return TOOK;
}

static void *decode_worker(void *arg)
{
	struct shared *s = arg;
	struct frame *mine = malloc(sizeof(*mine) * s->cfg->batch_frames);
	pthread_setname_np(pthread_self(), "rocedump-decode");  /* top -H, perf, gdb */

	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		uint64_t seen = atomic_load_explicit(&s->changes, memory_order_acquire);
		pthread_mutex_lock(&s->read_lock);
		if (s->input_done) {
			pthread_mutex_unlock(&s->read_lock);
			break;
		}
		bool in_flight;
		uint64_t sunk;
		enum take t = read_and_decode(s, &in_flight, &sunk, mine);
		if (t == FULL)
			wait_sunk(s, sunk);
		else if (t == NO_SLOT)
			wait_change(s, seen);  /* direct mode, or a batch before waits: the sink thread moves on */
		else if (t == STARVED)
			input_wait(s->in, PIPELINE_IDLE_MS, -1);
	}
	free(mine);
	return NULL;
}

/* On the sink thread, when no frame was ready: the idle hook, then wait for a batch in flight,
 * or (none) for the input or a worker's batch. */
static void sink_thread_starved(struct shared *s, uint64_t seq, uint64_t seen, bool in_flight)
{
	if (!call_idle(s->cfg, s->ctx)) {
		stopped_by_sink(s);
		return;
	}
	if (in_flight) {
		wait_change(s, seen);
		return;
	}
	atomic_store(&s->sink_polling, true);
	if (atomic_load(&s->slots[seq % s->n_slots].state) != SLOT_READY)
		input_wait(s->in, PIPELINE_IDLE_MS, s->wake);
	atomic_store(&s->sink_polling, false);
	uint64_t drain;
	if (read(s->wake, &drain, sizeof(drain)) < 0) {
		/* nothing written: EAGAIN */
	}
}

/* The extent (roce_pkt_extent) of a decode with the common extended headers, IETH the last of
 * them: a frame's decode is loaded ahead this far. */
#define COMMON_EXTENT ROCE_PKT_HDR_END(ieth)

/* A frame the sink sees LOAD_AHEAD frames later (and the peek hook, if it looks ahead, half as
 * many): its decode (as far as most extend) and its first bytes start loading. The decoding
 * thread wrote them, from the other core, with streaming stores: a cache miss each, which the
 * sink and the peek hook otherwise wait for, whether the analysis looks ahead or not (at 1 k QPs
 * a frame's copy check waited on its Ethernet header, its analysis on its decode). Always
 * inlined: a function that only prefetches has no effect GCC must keep, and it deleted the calls
 * (analyzer/core/prefetch.c). */
#define LOAD_AHEAD (2 * PIPELINE_PEEK_AHEAD)
static inline __attribute__((always_inline)) void load_frame(const struct frame *f, const struct roce_pkt *p)
{
	_Static_assert(COMMON_EXTENT <= 320, "a common decode in five lines (at most six)");
	const char *c = (const char *)p;
	__builtin_prefetch(c);
	__builtin_prefetch(c + 64);
	__builtin_prefetch(c + 128);
	__builtin_prefetch(c + 192);
	__builtin_prefetch(c + 256);
	__builtin_prefetch(c + COMMON_EXTENT - 1);
	__builtin_prefetch(f->data);  /* the headers, up to the BTH: a frame starts anywhere in a line */
	__builtin_prefetch(f->data + 63);
}

/* On the sink thread: batch seq, ready, through the sink; then its slot is free. */
static void sink_batch(struct shared *s, uint64_t seq, struct batch *b)
{
	if (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		pipeline_peek peek = s->cfg->peek;
		unsigned i = 0, ahead = 0;
		if (peek && b->n && peek(s->ctx, &b->frames[0], &b->pkts[0])) {
			ahead = PIPELINE_PEEK_AHEAD;
			for (unsigned k = 1; k < ahead && k < b->n; k++)
				peek(s->ctx, &b->frames[k], &b->pkts[k]);
		}
		for (; i < b->n; i++) {
			if (i + LOAD_AHEAD < b->n)
				load_frame(&b->frames[i + LOAD_AHEAD], &b->pkts[i + LOAD_AHEAD]);
			if (ahead && i + ahead < b->n)
				peek(s->ctx, &b->frames[i + ahead], &b->pkts[i + ahead]);
			if (!sink_frame(s, &b->frames[i], &b->pkts[i]))
				break;
		}
		if (i == b->n)
			take_read_result(s, b->rc, b->err);
		if (s->cfg->counts && b->n) {
			s->cfg->counts->batches++;
			s->cfg->counts->batch_frames += i;
		}
	}
	atomic_store_explicit(&b->state, SLOT_FREE, memory_order_relaxed);
	atomic_store_explicit(&s->sunk, seq + 1, memory_order_release);
	announce_change(s);
}

static void run_sink_thread(struct shared *s)
{
	unsigned busy = 0;

	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		uint64_t seen = atomic_load_explicit(&s->changes, memory_order_acquire);
		uint64_t seq = atomic_load_explicit(&s->sunk, memory_order_relaxed);
		struct batch *b = &s->slots[seq % s->n_slots];
		if (atomic_load_explicit(&b->state, memory_order_acquire) == SLOT_READY) {
			sink_batch(s, seq, b);
			continue;
		}
		/* Batch seq is not ready: help, or stop at the end. A decoder holds the read lock only
		 * to read a batch (or to see that it cannot): keep an eye on batch seq meanwhile. */
		if (pthread_mutex_trylock(&s->read_lock) != 0) {
			if (++busy < SPIN_LIMIT) {
				cpu_relax();
				continue;
			}
			pthread_mutex_lock(&s->read_lock);
		}
		busy = 0;
		if (s->next_seq == seq && (s->input_done || s->direct)) {
			if (s->input_done) {  /* every batch read has been sunk */
				pthread_mutex_unlock(&s->read_lock);
				break;
			}
			s->next_seq++;  /* every batch before has been sunk, and filled */
			s->next_fill++;
			if (run_direct(s, b)) {  /* nothing was ready */
				s->next_seq--;
				s->next_fill--;
				pthread_mutex_unlock(&s->read_lock);
				sink_thread_starved(s, seq, seen, false);
				continue;
			}
			pthread_mutex_unlock(&s->read_lock);
			atomic_store_explicit(&s->sunk, seq + 1, memory_order_release);
			announce_change(s);
			continue;
		}
		bool in_flight;
		uint64_t sunk;
		enum take t = read_and_decode(s, &in_flight, &sunk, NULL);
		if (t == NO_SLOT || t == FULL)  /* batch seq being decoded: it is next */
			wait_change(s, seen);
		else if (t == STARVED)
			sink_thread_starved(s, seq, seen, in_flight);
	}
	announce_change(s);  /* a decoder waiting for a slot sees the stop */
}

/* n bytes from a cache line's start. The decoders stream their records into a batch's arrays
 * (handoff.h) and the sink thread reads them, so where their lines fall is not left to malloc,
 * which keeps to 16-byte boundaries: a large block 16 bytes into a page, or, once a first pass
 * (path_probe.h) had freed its batches and malloc's mmap threshold had risen to their size,
 * anywhere in the heap. Either way, decoders and sink thread alike were markedly slower
 * (tests/bench/README.md). */
static void *alloc_lines(size_t n)
{
	return aligned_alloc(64, (n + 63) / 64 * 64);
}

static bool batch_alloc(struct batch *b, unsigned frames)
{
	atomic_init(&b->state, SLOT_FREE);
	b->frames = alloc_lines(sizeof(*b->frames) * frames);
	b->pkts = alloc_lines(sizeof(*b->pkts) * frames);
	b->bytes = alloc_lines(BATCH_BYTES + COPY_MAX + 16);
	return b->frames && b->pkts && b->bytes;
}

static void batch_free(struct batch *b)
{
	free(b->frames);
	free(b->pkts);
	free(b->bytes);
}

static int run_one_thread(struct input *in, const struct pipeline_config *cfg, pipeline_sink sink, void *ctx,
			  struct look_ahead *la, char *errbuf, size_t errlen)
{
	uint64_t bytes = 0, n = 0;

	for (;;) {
		int rc = read_decode_sink(in, cfg, sink, ctx, la, UINT64_MAX, &n, &bytes, errbuf, errlen);
		if (rc != INPUT_AGAIN)
			return rc;
		if (!call_idle(cfg, ctx))
			return 1;
		input_wait(in, PIPELINE_IDLE_MS, -1);
	}
}

int pipeline_run(struct input *in, const struct pipeline_config *cfg, pipeline_sink sink, void *ctx,
		 char *errbuf, size_t errlen)
{
	unsigned threads = cfg->threads > PIPELINE_MAX_THREADS ? PIPELINE_MAX_THREADS : cfg->threads;
	struct look_ahead la = {.bytes = cfg->peek ? malloc((size_t)LOOK_AHEAD * COPY_MAX) : NULL,
				.until_ask = 1};
	la.peek = la.bytes ? cfg->peek : NULL;
	int rc;
	if (threads <= 1 || cfg->batch_frames == 0) {
		rc = run_one_thread(in, cfg, sink, ctx, &la, errbuf, errlen);
		free(la.bytes);
		return rc;
	}

	/* Without its batches, or without a second thread, the one-thread loop is faster. */
	struct shared s = {.cfg = cfg, .in = in, .sink = sink, .ctx = ctx, .errbuf = errbuf, .errlen = errlen, .wake = -1,
			   .look_ahead = &la, .range_bytes = range_for(cfg->batch_frames, PCAPREAD_CLAIM_BYTES)};
	s.n_slots = SLOTS_PER_THREAD * threads;
	s.slots = calloc(s.n_slots, sizeof(*s.slots));
	bool ok = s.slots != NULL;
	for (unsigned i = 0; ok && i < s.n_slots; i++)
		ok = batch_alloc(&s.slots[i], cfg->batch_frames);
	pthread_t tid[PIPELINE_MAX_THREADS];
	unsigned started = 0;
	bool inited = ok;
	if (ok) {
		pthread_mutex_init(&s.read_lock, NULL);
		pthread_mutex_init(&s.wait_lock, NULL);
		pthread_cond_init(&s.changed, NULL);
		atomic_init(&s.sunk, 0);
		atomic_init(&s.stop, false);
		atomic_init(&s.changes, 0);
		atomic_init(&s.sink_polling, false);
		s.wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		ok = s.wake >= 0;
	}
	if (ok) {
		while (started < threads - 1 && pthread_create(&tid[started], NULL, decode_worker, &s) == 0)
			started++;
	}
	if (started) {
		run_sink_thread(&s);
		for (unsigned i = 0; i < started; i++)
			pthread_join(tid[i], NULL);
		rc = s.result;
	} else {
		rc = run_one_thread(in, cfg, sink, ctx, &la, errbuf, errlen);
	}
	if (s.wake >= 0)
		close(s.wake);
	if (inited) {
		pthread_cond_destroy(&s.changed);
		pthread_mutex_destroy(&s.wait_lock);
		pthread_mutex_destroy(&s.read_lock);
	}
	for (unsigned i = 0; s.slots && i < s.n_slots; i++)
		batch_free(&s.slots[i]);
	free(s.slots);
	free(la.bytes);
	return rc;
}
