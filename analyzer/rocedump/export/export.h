/* export.h: --export: the run's frames with events (or all), findings, streams and capture row
 * into ClickHouse (docs/clickhouse/schema.sql), in batches of up to EXPORT_BATCH_ROWS_LIVE rows
 * (EXPORT_BATCH_ROWS_FILE reading a file) or EXPORT_BATCH_S seconds, sent by a thread of their
 * own so that the capture never waits on the network. Batches that fail go to a spool on disk
 * (spool.h), retried in order; a live capture drops the batches the queue has no room for, a
 * file's reading waits for room. Every row carries its batch's id (run id ":" sequence): a
 * spooled batch is sent again only if the table has no row of it (a reply lost after the server
 * took the rows). */
#ifndef ROCEDUMP_EXPORT_EXPORT_H
#define ROCEDUMP_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "input/capstats.h"
#include "input/input.h"
#include "roce/roce.h"

/* A file's rows come many times faster than a live capture's: larger batches keep its INSERTs
 * few (the server makes a part of each and merges them later: fewer, larger ones cost it less,
 * docs/clickhouse/README.md), and fewer of them queue, to bound the memory (a frames row: ~150
 * bytes). */
#define EXPORT_BATCH_ROWS_LIVE 10000
#define EXPORT_BATCH_ROWS_FILE 50000
#define EXPORT_BATCH_S 1.0
#define EXPORT_QUEUE 16                     /* sealed batches waiting for the thread (live) */
#define EXPORT_QUEUE_FILE 2                 /* reading a file: it waits beyond this many */
#define EXPORT_PARALLEL 4                   /* queued batches sent at once at the end (the four tables') */
#define EXPORT_SPOOL_MAX_DEFAULT (1ULL << 30) /* --export-spool-max */

struct export_config {
	const char *url;
	const char *password_file;  /* NULL: CLICKHOUSE_PASSWORD, or none */
	const char *box;            /* --export-host; NULL: the host name */
	const char *spool_dir;      /* NULL: none (failed batches are dropped) */
	uint64_t spool_max;         /* bytes */
	bool all_frames;
	bool live;                  /* drop rather than wait for room */
	const char *source;         /* the file or interface */
	const char *point;          /* the capture point of frames with no interface name */
};

/* What became of the rows so far (read from any thread). */
struct export_counts {
	uint64_t sent, spooled, dropped, batches;
	uint64_t spool_batches, spool_bytes;  /* waiting in --export-spool now (the bytes: with those set aside) */
	uint64_t spool_refused;               /* set aside there: refused by the server while it took others */
};

struct exporter;

/* The URL and password read, the spool opened, the thread started: it connects and makes or
 * checks the tables while the capture is read (refused: export_finish's error, nothing sent; no
 * answer: tried again, the batches spooled meanwhile), then sends the spool's batches first.
 * NULL with the message in err. */
struct exporter *export_start(const struct export_config *cfg, char *err, size_t errlen);
void export_frame(struct exporter *x, const struct frame *f, const struct roce_pkt *p,
		  const struct roce_findings *fi);
/* A row of the streams table; evicted: the analysis let the stream go (roce_analyzer_on_evict). */
void export_stream(const struct roce_stream_stats *s, bool evicted, struct exporter *x);
void export_evicted(const struct roce_stream_stats *s, void *x);
/* Batches older than EXPORT_BATCH_S sealed and queued; mono: the monotonic clock, seconds. */
void export_tick(struct exporter *x, double mono);
/* The captures row, the open batches sealed and the thread told to stop: it sends them (at once,
 * EXPORT_PARALLEL) while the caller goes on; no row may be added after. */
struct export_capture {
	uint64_t frames, bytes, drops;
	int64_t first_ns, last_ns;
};
void export_end(struct exporter *x, const struct export_capture *cap);
/* After export_end: everything sent (or spooled), the thread stopped and x freed. The counts
 * into *out. 0, or -1 with the message in err when rows were dropped or batches set aside. */
int export_finish(struct exporter *x, struct export_counts *out, char *err, size_t errlen);
void export_counts(const struct exporter *x, struct export_counts *out);

#endif
