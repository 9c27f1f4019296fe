/* pipeline.h: run every frame of an input through the decoder and then through a sink, in
 * capture order, on one thread or several.
 *
 * With one thread this is the plain loop: read a frame, decode it, hand it to the sink (while the
 * peek hook wants to look ahead, PIPELINE_PEEK_AHEAD frames after it was decoded). With more,
 * the calling thread runs the sink and the others read batches of frames from the input (copied
 * out of libpcap's buffer) and decode them ahead of it; the calling thread decodes a batch too
 * when the next one is not ready. The sink sees the frames one at a time, in capture order and
 * on the calling thread, whatever the number of threads, so it needs no locking of its own.
 * Reading and the sink are serial; decoding (ICRC included) runs in parallel. A batch is handed on when it is full,
 * when the input ends, or when no complete frame is ready (a live capture, a pipe): frames that trickle in reach
 * the sink as they come, whatever the number of threads. Whenever the sink thread is about to wait for input it
 * calls the idle hook first (the caller flushes its output there). */
#ifndef ROCEDUMP_PIPELINE_H
#define ROCEDUMP_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "input/input.h"
#include "roce/roce.h"

#define PIPELINE_MAX_THREADS 16
/* 1,024 frames: small enough that the sink thread, decoding a batch itself, does not push its
 * analysis state out of its caches (larger batches made it analyse its own batches slower than
 * the workers'); frames of 4 KiB end their batches at 1 MiB first. */
#define PIPELINE_BATCH_DEFAULT 1024
#define PIPELINE_MAX_BATCH 65536  /* a batch also ends at 1 MiB of frames, 16 bytes or more each */

/* Called once per frame, in capture order, from one thread at a time. Return false to stop
 * (no further frame reaches the sink). */
typedef bool (*pipeline_sink)(void *ctx, const struct frame *f, struct roce_pkt *p);

/* Called on the sink thread, with the sink's ctx, when the input has no frame ready, before
 * waiting for one (at least every PIPELINE_IDLE_MS while it has none). Return false to stop. */
typedef bool (*pipeline_idle)(void *ctx);

#define PIPELINE_IDLE_MS 100

/* Called on the sink thread on each frame PIPELINE_PEEK_AHEAD frames before the sink sees it (at
 * a batch's start, on its first ones at once), so that the sink can start loading what the frame
 * will need (roce_analyze_prefetch). When it returns false on a batch's first frame, it is not
 * called on the rest of that batch. Frames read one at a time (one thread, large frames) are
 * held back PIPELINE_PEEK_AHEAD frames only while it returns true (pipeline.c). */
typedef bool (*pipeline_peek)(void *ctx, const struct frame *f, struct roce_pkt *p);

#define PIPELINE_PEEK_AHEAD 16

/* What became of the frames (with more than one thread): the batches sunk and their frames;
 * the rest went one at a time (the direct mode for large frames). */
struct pipeline_counts {
	uint64_t batches, batch_frames;
};

struct pipeline_config {
	unsigned threads;       /* 1 .. PIPELINE_MAX_THREADS */
	unsigned batch_frames;  /* frames per batch when threads > 1 */
	const struct roce_decoder_config *decoder;
	pipeline_idle idle;     /* NULL: none */
	pipeline_peek peek;     /* NULL: none */
	struct pipeline_counts *counts;  /* NULL, or counted into (zero it first) */
};

/* The number of threads rocedump uses by default: 2 when the machine has two CPUs or more. */
unsigned pipeline_default_threads(void);

/* Run in to its end, or until the sink (or the idle hook) returns false. Returns 1 when stopped, 0 at
 * the end of the input, -1 on a read error (message in errbuf); the frames before the error have
 * reached the sink. */
int pipeline_run(struct input *in, const struct pipeline_config *cfg, pipeline_sink sink, void *ctx,
		 char *errbuf, size_t errlen);

#endif
