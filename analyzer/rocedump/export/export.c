/* export.c: --export (see export.h). The sink thread turns frames, findings, streams and the
 * run's row into TabSeparated rows in each table's column order (the tables' check holds the
 * tables to the schema's: `SELECT *` gives a spooled batch's rows), one open batch per table; a
 * batch full or a second old is sealed and queued. TabSeparated rather than JSONEachRow: half
 * the bytes without the keys, and ClickHouse 18.16 reads them in about 80 % of the time.
 * The export thread sends the spool's batches first, oldest first, then the queued ones (into
 * the spool while it is not empty, so that the order holds), backing off after a failure. At the
 * run's end the queued batches go up to EXPORT_PARALLEL at once, each over a connection of its
 * own: the last batches (frames, findings, the streams rows, the captures row) are queued
 * together, and the server takes them in parallel rather than one after the other. Before the
 * end, one at a time (several 10,000-row INSERTs at once slow a busy server down). */
#define _GNU_SOURCE
#include "export/export.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export/ch.h"
#include "export/spool.h"
#include "export_schema.h"
#include "output/fmt.h"
#include "output/sb.h"

enum { T_FRAMES, T_FINDINGS, T_STREAMS, T_CAPTURES };

#define SPARE_BUFS 4
#define BACKOFF_MIN_S 0.1
#define BACKOFF_MAX_S 5.0

struct batch {
	unsigned table;
	uint32_t seq;
	uint64_t rows;
	double opened;  /* monotonic seconds */
	struct chbuf data;
};

struct exporter {
	struct export_config cfg;
	char box[256], run_id[64];
	struct ch_conn conn[EXPORT_PARALLEL];  /* [0] for the tables' check and the spool */
	unsigned n_conn;                       /* those connected */
	struct spool spool;
	uint32_t seq;
	struct batch open[EXPORT_TABLES];
	double now;
	struct sb row;
	/* the box, and each open batch's run and batch ids, escaped once (batch_open) for its rows */
	char box_tsv[2 * 256 + 2], ids_tsv[EXPORT_TABLES][2 * 160 + 3];
	size_t box_tsv_len, ids_tsv_len[EXPORT_TABLES];
	size_t last_len[EXPORT_TABLES];  /* the last batch's bytes: the next one's room at once */
	/* sent batches' buffers, for the next batches (x->mu): fresh memory would be faulted in
	 * page by page for every batch, as much CPU time as the rows' making */
	struct chbuf spare[SPARE_BUFS];
	unsigned n_spare;
	/* the queue, between the sink thread and the export thread */
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	struct batch queue[EXPORT_QUEUE];
	unsigned head, n;
	bool stop;
	bool failed;  /* the connection or the tables' check failed: nothing sent, the batches let go */
	pthread_t thread;
	double backoff, retry_at;
	_Atomic uint64_t sent, spooled, dropped, batches;
	atomic_bool warned;  /* the first drop's warning given (by either thread) */
	char err[512];  /* the thread's last error */
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A TabSeparated string value after a tab: backslash, tab and line ends escaped. */
static void put_tsv_str(struct sb *s, const char *v)
{
	const char *run = v;  /* the characters since the last escaped one, copied at once */
	sb_putn(s, "\t", 1);
	for (; *v; v++)
		if (*v == '\\' || *v == '\t' || *v == '\n' || *v == '\r') {
			sb_putn(s, run, (size_t)(v - run));
			sb_putn(s, *v == '\\' ? "\\\\" : *v == '\t' ? "\\t" : *v == '\n' ? "\\n" : "\\r", 2);
			run = v + 1;
		}
	sb_putn(s, run, (size_t)(v - run));
}

/* A TabSeparated string of rocedump's own making (an address, an event or status name), which
 * has nothing to escape, after a tab. */
static void put_tsv_name(struct sb *s, const char *v)
{
	sb_putn(s, "\t", 1);
	sb_puts(s, v);
}

/* A TabSeparated number after a tab. */
static void put_tsv_u(struct sb *s, uint64_t v)
{
	sb_putn(s, "\t", 1);
	sb_putu(s, v);
}

static void put_tsv_i64(struct sb *s, int64_t v)
{
	sb_putn(s, v < 0 ? "\t-" : "\t", v < 0 ? 2 : 1);
	sb_putu(s, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* What x->row holds (escaped values, made between rows) kept in buf (cap bytes, room for twice
 * the values' bytes and their tabs), x->row emptied; its length. */
static size_t keep_row(struct exporter *x, char *buf, size_t cap)
{
	size_t n = x->row.len < cap ? x->row.len : cap - 1;
	memcpy(buf, x->row.buf, n);
	buf[n] = '\0';
	sb_reset(&x->row);
	return n;
}

/* The box, escaped once for every row. */
static void make_box(struct exporter *x)
{
	sb_reset(&x->row);
	put_tsv_str(&x->row, x->box);
	x->box_tsv_len = keep_row(x, x->box_tsv, sizeof(x->box_tsv));
}

/* The open batch's run and batch ids, escaped once for its rows. */
static void make_ids(struct exporter *x, unsigned table)
{
	char id[96];
	snprintf(id, sizeof(id), "%s:%010" PRIu32, x->run_id, x->open[table].seq);
	sb_reset(&x->row);
	put_tsv_str(&x->row, x->run_id);
	put_tsv_str(&x->row, id);
	x->ids_tsv_len[table] = keep_row(x, x->ids_tsv[table], sizeof(x->ids_tsv[table]));
}

static void put_box(struct exporter *x)
{
	sb_putn(&x->row, x->box_tsv, x->box_tsv_len);
}

static void put_ids(struct exporter *x, unsigned table)
{
	sb_putn(&x->row, x->ids_tsv[table], x->ids_tsv_len[table]);
}

/* ---- the export thread ---- */

static void spool_name(const struct exporter *x, const struct batch *b, char name[SPOOL_NAME_MAX])
{
	snprintf(name, SPOOL_NAME_MAX, "%s.%010" PRIu32 ".%s.rows", x->run_id, b->seq, export_tables[b->table].name);
}

static void insert_query(char *q, size_t len, unsigned table)
{
	snprintf(q, len, "INSERT INTO %s FORMAT TabSeparated", export_tables[table].name);
}

static unsigned table_of(const char *name)
{
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		if (strcmp(export_tables[t].name, name) == 0)
			return t;
	return EXPORT_TABLES;
}

static void drop(struct exporter *x, uint64_t rows, const char *why)
{
	x->dropped += rows;
	if (!atomic_exchange(&x->warned, true))
		fprintf(stderr, "rocedump: warning: export: rows dropped (%s); the run's end counts them\n", why);
}

/* A batch's rows: its lines. */
static uint64_t lines_of(const struct chbuf *rows)
{
	uint64_t n = 0;
	for (size_t i = 0; i < rows->len; i++)
		n += rows->p[i] == '\n';
	return n;
}

/* A spooled batch: sent unless the table has rows of its batch id already. */
static int send_spooled(struct exporter *x, const char *name, struct chbuf *rows)
{
	char table[64], batch[SPOOL_NAME_MAX], q[SPOOL_NAME_MAX + 128];
	struct chbuf ans = {0};
	if (!spool_parse(name, table, sizeof(table), batch, sizeof(batch)))
		return -1;
	unsigned t = table_of(table);
	if (t == EXPORT_TABLES || batch[strspn(batch, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz:-")]) {
		/* no table of ours, or not a run id of ours: no query made of the name, its rows dropped */
		uint64_t n = spool_read(&x->spool, name, rows, x->err, sizeof(x->err)) == 0 ? lines_of(rows) : 0;
		snprintf(x->err, sizeof(x->err), "spooled batch %s is not rocedump's", name);
		drop(x, n, x->err);
		return 1;
	}
	snprintf(q, sizeof(q), "SELECT count() FROM %s WHERE batch_id = '%s'", table, batch);
	if (ch_post(&x->conn[0], q, NULL, 0, &ans, x->err, sizeof(x->err)) < 0)
		return -1;
	bool there = ans.p && strtoull(ans.p, NULL, 10) > 0;
	chbuf_free(&ans);
	if (there)
		return 0;
	if (spool_read(&x->spool, name, rows, x->err, sizeof(x->err)) < 0)
		return 1;  /* unreadable: dropped below */
	insert_query(q, sizeof(q), t);
	if (ch_post(&x->conn[0], q, rows->p ? rows->p : "", rows->len, NULL, x->err, sizeof(x->err)) < 0)
		return -1;
	x->sent += lines_of(rows);
	return 0;
}

/* The spool's batches, oldest first, while the server takes them. False: one failed. */
static bool drain_spool(struct exporter *x)
{
	char name[SPOOL_NAME_MAX];
	struct chbuf rows = {0};
	bool ok = true;
	while (ok && spool_oldest(&x->spool, name)) {
		int rc = send_spooled(x, name, &rows);
		if (rc >= 0)
			spool_remove(&x->spool, name);
		ok = rc >= 0;
	}
	chbuf_free(&rows);
	return ok;
}

static void spool_batch(struct exporter *x, struct batch *b)
{
	char name[SPOOL_NAME_MAX], err[256];
	spool_name(x, b, name);
	int rc = spool_put(&x->spool, name, b->data.p, b->data.len, err, sizeof(err));
	if (rc > 0)
		x->spooled += b->rows;
	else
		drop(x, b->rows, rc < 0 ? err : x->spool.dirfd < 0 ? "no --export-spool" : "spool full");
}

static void backoff(struct exporter *x, bool failed)
{
	if (!failed) {
		x->backoff = 0;
		return;
	}
	x->backoff = x->backoff ? x->backoff * 2 : BACKOFF_MIN_S;
	if (x->backoff > BACKOFF_MAX_S)
		x->backoff = BACKOFF_MAX_S;
	x->retry_at = mono() + x->backoff;
}

/* A batch's INSERT over a connection, on a thread of its own but the first. */
struct post {
	struct ch_conn *conn;
	const struct batch *b;
	int rc;
	char err[512];
};

static void *post_batch(void *arg)
{
	struct post *p = arg;
	char q[128];
	insert_query(q, sizeof(q), p->b->table);
	p->rc = ch_post(p->conn, q, p->b->data.p, p->b->data.len, NULL, p->err, sizeof(p->err));
	return NULL;
}

/* n queued batches (n <= x->n_conn): sent at once when the spool is empty and the server
 * answers, else spooled; those that fail spooled, in their order. */
static void ship(struct exporter *x, struct batch *b, unsigned n)
{
	x->batches += n;
	if (x->spool.files || (x->backoff && mono() < x->retry_at)) {
		for (unsigned i = 0; i < n; i++)
			spool_batch(x, &b[i]);
		return;
	}
	struct post p[EXPORT_PARALLEL];
	pthread_t t[EXPORT_PARALLEL];
	bool started[EXPORT_PARALLEL] = {false};
	for (unsigned i = 0; i < n; i++)
		p[i] = (struct post){.conn = &x->conn[i], .b = &b[i]};
	for (unsigned i = 1; i < n; i++)
		started[i] = pthread_create(&t[i], NULL, post_batch, &p[i]) == 0;
	for (unsigned i = 0; i < n; i++)  /* the first here, and any whose thread did not start */
		if (!started[i])
			post_batch(&p[i]);
	bool failed = false;
	for (unsigned i = 0; i < n; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
		if (p[i].rc == 0) {
			x->sent += b[i].rows;
		} else {
			snprintf(x->err, sizeof(x->err), "%s", p[i].err);
			spool_batch(x, &b[i]);
			failed = true;
		}
	}
	backoff(x, failed);
}

/* The connections beyond the first, opened while the capture is read (a request each) so that
 * the run's end does not wait for them; as many as open. */
static void connect_more(struct exporter *x)
{
	char err[512];
	for (x->n_conn = 1; x->n_conn < EXPORT_PARALLEL; x->n_conn++) {
		struct ch_conn *c = &x->conn[x->n_conn];
		if (ch_clone(c, &x->conn[0], err, sizeof(err)) < 0 || ch_post(c, "SELECT 1", NULL, 0, NULL, err, sizeof(err)) < 0) {
			ch_close(c);
			break;
		}
	}
}

/* The connection or the tables' check failed: the queued batches let go unsent, their rows
 * counted as dropped, until the run's end (export_finish gives the error). */
static void discard(struct exporter *x)
{
	pthread_mutex_lock(&x->mu);
	x->failed = true;
	for (;;) {
		while (x->n) {
			drop(x, x->queue[x->head].rows, "the tables' check failed");
			chbuf_free(&x->queue[x->head].data);
			x->head = (x->head + 1) % EXPORT_QUEUE;
			x->n--;
		}
		pthread_cond_signal(&x->room);
		if (x->stop)
			break;
		pthread_cond_wait(&x->more, &x->mu);
	}
	pthread_mutex_unlock(&x->mu);
}

/* A sent batch's buffer kept for a next batch (x->mu held), or freed. */
static void recycle(struct exporter *x, struct chbuf *data)
{
	if (x->n_spare < SPARE_BUFS && data->p) {
		data->len = 0;
		x->spare[x->n_spare++] = *data;
		*data = (struct chbuf){0};
	} else {
		chbuf_free(data);
	}
}

/* Connect and make or check the tables while the capture is read (the rows queue up meanwhile),
 * then send the spool's batches and the queued ones. */
static void *run(void *arg)
{
	struct exporter *x = arg;
	if (ch_connect(&x->conn[0], x->err, sizeof(x->err)) < 0 || ch_check_tables(&x->conn[0], x->err, sizeof(x->err)) < 0) {
		discard(x);
		return NULL;
	}
	connect_more(x);
	if (x->spool.files)
		backoff(x, !drain_spool(x));
	pthread_mutex_lock(&x->mu);
	for (;;) {
		while (!x->n && !x->stop && !(x->spool.files && mono() >= x->retry_at)) {
			if (x->spool.files) {
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				double wait = x->retry_at - mono();
				ts.tv_sec += (time_t)wait;
				ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
				if (ts.tv_nsec >= 1000000000L) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000L;
				}
				pthread_cond_timedwait(&x->more, &x->mu, &ts);
			} else {
				pthread_cond_wait(&x->more, &x->mu);
			}
		}
		if (!x->n && x->stop)
			break;
		if (!x->n) {  /* the spool's turn */
			pthread_mutex_unlock(&x->mu);
			backoff(x, !drain_spool(x));
			pthread_mutex_lock(&x->mu);
			continue;
		}
		struct batch b[EXPORT_PARALLEL];
		unsigned n = 0, most = x->stop ? x->n_conn : 1;
		for (; n < most && x->n; n++) {
			b[n] = x->queue[x->head];
			x->head = (x->head + 1) % EXPORT_QUEUE;
			x->n--;
		}
		pthread_cond_signal(&x->room);
		pthread_mutex_unlock(&x->mu);
		if (x->spool.files && mono() >= x->retry_at)
			backoff(x, !drain_spool(x));
		ship(x, b, n);
		pthread_mutex_lock(&x->mu);
		for (unsigned i = 0; i < n; i++)
			recycle(x, &b[i].data);
	}
	pthread_mutex_unlock(&x->mu);
	if (x->spool.files)  /* what the spool holds, once more; the next run sends what stays */
		drain_spool(x);
	return NULL;
}

/* ---- the sink thread ---- */

static void batch_open(struct exporter *x, unsigned table)
{
	struct batch *b = &x->open[table];
	b->table = table;
	b->seq = ++x->seq;
	b->rows = 0;
	b->opened = x->now;
	b->data = (struct chbuf){0};
	if (x->n_spare)
		b->data = x->spare[--x->n_spare];
	size_t want = x->last_len[table] + x->last_len[table] / 8;  /* no copy as it grows */
	if (want > b->data.cap) {
		chbuf_free(&b->data);
		if ((b->data.p = malloc(want)))
			b->data.cap = want;
	}
	make_ids(x, table);
}

/* The open batch of table, if it has rows, queued (x->mu held), waiting for room unless live
 * (then dropped), and a new one opened. */
static void batch_queue(struct exporter *x, unsigned table)
{
	struct batch *b = &x->open[table];
	if (!b->rows)
		return;
	while (x->n == EXPORT_QUEUE && !x->cfg.live)
		pthread_cond_wait(&x->room, &x->mu);
	x->last_len[table] = b->data.len;
	if (x->n == EXPORT_QUEUE) {
		drop(x, b->rows, "the export queue is full");
		chbuf_free(&b->data);
	} else {
		x->queue[(x->head + x->n) % EXPORT_QUEUE] = *b;
		x->n++;
	}
	batch_open(x, table);
}

/* The open batch of table sealed and queued, the export thread woken. */
static void batch_seal(struct exporter *x, unsigned table)
{
	pthread_mutex_lock(&x->mu);
	batch_queue(x, table);
	pthread_cond_signal(&x->more);
	pthread_mutex_unlock(&x->mu);
}

/* The row built in x->row into its table's batch, the batch sealed when full. A row cut short
 * by the builder's end (16 KiB: a run's source naming many files) is dropped, not sent: the
 * server would refuse the whole batch. */
static void row_add(struct exporter *x, unsigned table)
{
	struct batch *b = &x->open[table];
	sb_putn(&x->row, "\n", 1);
	if (!b->rows)
		b->opened = x->now;
	if (x->row.full)
		drop(x, 1, "a row longer than 16 KiB");
	else if (!chbuf_add(&b->data, x->row.buf, x->row.len))
		drop(x, 1, "out of memory");
	else
		b->rows++;
	if (b->rows >= EXPORT_BATCH_ROWS)
		batch_seal(x, table);
}

void export_tick(struct exporter *x, double now)
{
	x->now = now;
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		if (x->open[t].rows && now - x->open[t].opened >= EXPORT_BATCH_S)
			batch_seal(x, t);
}

/* A time: its second (DateTime) and, after a tab, its ns (UInt64); 0 for none. The ns are the
 * second's digits and the nanoseconds' nine. */
static void put_time(struct sb *s, int64_t ns)
{
	uint64_t sec = ns > 0 ? (uint64_t)ns / 1000000000u : 0, nsec = ns > 0 ? (uint64_t)ns % 1000000000u : 0;
	sb_putu(s, sec);
	put_tsv_u(s, sec);
	if (sec)
		sb_putu0(s, nsec, 9);
	else if (nsec)
		sb_putu(s, nsec);
}

static uint64_t field_u(const struct roce_field_src *src, enum roce_field f)
{
	struct roce_field_val v;
	return roce_field_get(f, src, 0, &v) ? v.u : 0;
}

static const char *point_of(const struct exporter *x, const struct frame *f)
{
	return f->iface_name && f->iface_name[0] ? f->iface_name : x->cfg.point ? x->cfg.point : "";
}

/* A frames or findings row begun: the frame's time, the box, the point, the ids, the frame. */
static void row_of_frame(struct exporter *x, const struct frame *f, unsigned table)
{
	struct sb *s = &x->row;
	sb_reset(s);
	put_time(s, frame_ts_ns(f));
	put_box(x);
	put_tsv_str(s, point_of(x, f));
	put_ids(x, table);
	put_tsv_u(s, f->number);
}

/* A frames row, TabSeparated in the table's column order. */
static void frame_row(struct exporter *x, const struct frame *f, const struct roce_pkt *p,
		      const struct roce_findings *fi, const char *a_src, const char *a_dst)
{
	struct sb *s = &x->row;
	struct roce_field_src src = {.data = f->data, .p = p, .frame_no = f->number, .ts_sec = f->ts_sec,
				     .ts_nsec = f->ts_nsec, .iface_name = f->iface_name};
	struct roce_field_val v;
	row_of_frame(x, f, T_FRAMES);
	put_tsv_name(s, a_src);
	put_tsv_name(s, a_dst);
	put_tsv_u(s, field_u(&src, ROCE_F_DQPN));
	put_tsv_u(s, roce_field_get(ROCE_F_OPCODE, &src, 0, &v) ? v.u : 256);
	put_tsv_u(s, field_u(&src, ROCE_F_PSN));
	put_tsv_name(s, roce_field_get(ROCE_F_ICRC_STATUS, &src, 0, &v) ? v.s : "");
	put_tsv_u(s, field_u(&src, ROCE_F_IP_ECN) | field_u(&src, ROCE_F_GRH_ECN));
	sb_putn(s, "\t[", 2);  /* events: Array(String), of names that need no escaping */
	const char *sep = "'";
	for (unsigned e = roce_evset_next(&p->events, 0); e < ROCE_EV_COUNT; e = roce_evset_next(&p->events, e + 1)) {
		sb_puts(s, sep);
		sb_puts(s, roce_event_name((enum roce_event)e));
		sep = "','";
	}
	sb_puts(s, sep[1] ? "']" : "]");
	put_tsv_u(s, fi ? fi->n : 0);
	put_tsv_u(s, fi ? fi->cnp_ce_frame : 0);
	put_tsv_i64(s, fi && fi->cnp_ce_frame ? fi->cnp_ce_ns : 0);
	row_add(x, T_FRAMES);
}

/* A findings row, TabSeparated in the table's column order. */
static void finding_row(struct exporter *x, const struct frame *f, const struct roce_finding *g, const char *a_src,
			const char *a_dst)
{
	struct sb *s = &x->row;
	bool gap = g->event == ROCE_EV_MIRROR_GAP, cong = roce_event_is_congestion((enum roce_event)g->event);
	bool pfc = g->event == ROCE_EV_PFC_PAUSE || g->event == ROCE_EV_PFC_RESUME || g->event == ROCE_EV_PFC_STORM ||
		   g->event == ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED;
	bool addrs = !gap && !cong;
	row_of_frame(x, f, T_FINDINGS);
	put_tsv_u(s, g->ref_frame);
	put_tsv_name(s, roce_event_name((enum roce_event)g->event));
	put_tsv_u(s, gap ? 0 : g->stream);
	put_tsv_u(s, gap ? 0 : g->pair);
	put_tsv_name(s, addrs ? a_src : "");
	put_tsv_name(s, addrs ? a_dst : "");
	put_tsv_u(s, gap ? 0 : g->qpn);
	put_tsv_u(s, gap || g->has_psn ? g->expected_psn : 0);
	put_tsv_u(s, gap || g->has_psn ? g->seen_psn : 0);
	put_tsv_i64(s, gap ? -1 : g->delta_ns);
	put_tsv_i64(s, pfc && g->priority >= 0 ? g->priority : -1);
	put_tsv_u(s, g->event == ROCE_EV_PFC_PAUSE ? g->quanta : 0);
	put_tsv_u(s, gap ? (uint32_t)(g->seen_psn - g->expected_psn) : 0);
	row_add(x, T_FINDINGS);
}

void export_frame(struct exporter *x, const struct frame *f, const struct roce_pkt *p, const struct roce_findings *fi)
{
	bool any = !roce_evset_empty(&p->events) || (fi && (fi->n || fi->cnp_ce_frame));
	if (!any && !x->cfg.all_frames)
		return;
	char a_src[FMT_ADDR_MAX], a_dst[FMT_ADDR_MAX];
	fmt_net_addrs(p, f->data, a_src, a_dst);
	frame_row(x, f, p, fi, a_src, a_dst);
	for (unsigned i = 0; fi && i < fi->n; i++)
		finding_row(x, f, &fi->f[i], a_src, a_dst);
}

/* A stream's row, TabSeparated in the schema's column order (the tables' check holds the table
 * to it): the run's end writes one for every stream at once (thousands), so with the inline
 * builders rather than printf. */
void export_stream(const struct roce_stream_stats *st, bool evicted, struct exporter *x)
{
	struct sb *s = &x->row;
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];
	fmt_ip(src, st->src, st->addr_len);
	fmt_ip(dst, st->dst, st->addr_len);
	sb_reset(s);
	sb_putu(s, (uint64_t)time(NULL));  /* snapshot */
	put_box(x);
	put_ids(x, T_STREAMS);
	put_tsv_u(s, evicted);
	put_tsv_u(s, st->pair);
	put_tsv_u(s, st->stream);
	put_tsv_name(s, src);
	put_tsv_name(s, dst);
	put_tsv_u(s, st->dqpn);
	put_tsv_name(s, st->paired == ROCE_PAIRED_CM ? "cm" : st->paired == ROCE_PAIRED_PSN ? "psn" : "none");
	put_tsv_u(s, st->paired ? st->peer_qpn : 0);
	put_tsv_name(s, st->requests ? roce_transport_name((enum roce_transport)st->transport) : "");
	const uint64_t u[] = {
		st->pmtu, st->packets, st->bytes, st->requests, st->responses, st->messages, st->gaps,
		st->missing_psns, st->retransmits, st->out_of_order, st->timeouts, st->lost_before,
		st->lost_after, st->copies, st->rnr_naks, st->lost_mirror, st->response_count,
		st->response_count ? st->response_p50_us : 0, st->response_count ? st->response_p99_us : 0,
		st->max_idle_us, st->ecn[3], st->cnps, st->cnp_missing, st->ce_to_cnp_count,
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		put_tsv_u(s, u[i]);
	put_tsv_i64(s, st->ce_to_cnp_count ? st->ce_to_cnp_p50_ns : 0);
	put_tsv_i64(s, st->ce_to_cnp_count ? st->ce_to_cnp_p99_ns : 0);
	row_add(x, T_STREAMS);
}

void export_evicted(const struct roce_stream_stats *s, void *x)
{
	export_stream(s, true, x);
}

static void capture_row(struct exporter *x, const struct export_capture *c)
{
	struct sb *s = &x->row;
	int64_t now = (int64_t)time(NULL) * 1000000000;
	int64_t first_ns = c->frames ? c->first_ns : now, last_ns = c->frames ? c->last_ns : now;
	uint64_t first = first_ns > 0 ? (uint64_t)first_ns : 0, last = last_ns > 0 ? (uint64_t)last_ns : 0;
	sb_reset(s);
	sb_putu(s, first / 1000000000u);  /* start and end: DateTime, then UInt64 ns */
	put_tsv_u(s, last / 1000000000u);
	put_tsv_u(s, first);
	put_tsv_u(s, last);
	put_box(x);
	put_ids(x, T_CAPTURES);
	put_tsv_str(s, x->cfg.source ? x->cfg.source : "");
	put_tsv_u(s, c->frames);
	put_tsv_u(s, c->bytes);
	put_tsv_u(s, c->drops);
	put_tsv_str(s, ROCEDUMP_VERSION);
	row_add(x, T_CAPTURES);
}

/* The run's id: its start (UTC, so that ids sort by time, as the spool's names must), the
 * process and a few random bits. */
static void make_run_id(struct exporter *x)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	char when[32];
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(x->run_id, sizeof(x->run_id), "%s-%d-%04lx", when, (int)getpid(), (unsigned long)(ts.tv_nsec & 0xffff));
}

struct exporter *export_start(const struct export_config *cfg, char *err, size_t errlen)
{
	struct exporter *x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->cfg = *cfg;
	x->spool.dirfd = -1;
	if (cfg->box)
		snprintf(x->box, sizeof(x->box), "%s", cfg->box);
	else if (gethostname(x->box, sizeof(x->box) - 1) < 0)
		snprintf(x->box, sizeof(x->box), "unknown");
	make_run_id(x);
	make_box(x);
	if (ch_open(&x->conn[0], cfg->url, cfg->password_file, err, errlen) < 0 ||
	    (cfg->spool_dir && spool_open(&x->spool, cfg->spool_dir, cfg->spool_max, err, errlen) < 0)) {
		ch_close(&x->conn[0]);
		free(x);
		return NULL;
	}
	x->now = mono();
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		batch_open(x, t);
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->more, NULL);
	pthread_cond_init(&x->room, NULL);
	if (pthread_create(&x->thread, NULL, run, x) != 0) {
		snprintf(err, errlen, "--export: no thread");
		spool_close(&x->spool);
		ch_close(&x->conn[0]);
		free(x);
		return NULL;
	}
	return x;
}

void export_counts(const struct exporter *x, struct export_counts *out)
{
	*out = (struct export_counts){.sent = x->sent, .spooled = x->spooled, .dropped = x->dropped,
				      .batches = x->batches};
}

void export_end(struct exporter *x, const struct export_capture *cap)
{
	capture_row(x, cap);
	/* queued together, then the thread woken, so that it takes them together */
	pthread_mutex_lock(&x->mu);
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		batch_queue(x, t);
	x->stop = true;
	pthread_cond_signal(&x->more);
	pthread_mutex_unlock(&x->mu);
}

int export_finish(struct exporter *x, struct export_counts *out, char *err, size_t errlen)
{
	pthread_join(x->thread, NULL);
	export_counts(x, out);
	int rc = 0;
	if (x->failed) {
		snprintf(err, errlen, "%s", x->err);
		rc = -1;
	} else if (x->dropped) {
		snprintf(err, errlen, "export: %" PRIu64 " rows dropped%s%s", (uint64_t)x->dropped, x->err[0] ? "; last error: " : "",
			 x->err);
		rc = -1;
	} else if (x->spool.files) {
		snprintf(err, errlen, "export: %u batches left in the spool for the next run; last error: %s", x->spool.files,
			 x->err);
	} else {
		err[0] = '\0';
	}
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		chbuf_free(&x->open[t].data);
	for (unsigned i = 0; i < x->n_spare; i++)
		chbuf_free(&x->spare[i]);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->more);
	pthread_cond_destroy(&x->room);
	spool_close(&x->spool);
	for (unsigned i = 0; i < EXPORT_PARALLEL; i++)
		ch_close(&x->conn[i]);
	free(x);
	return rc;
}
