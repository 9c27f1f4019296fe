/* export.c: --export (see export.h). The sink thread turns frames, findings, streams and the
 * run's row into RowBinary rows in each table's column order (the tables' check holds the tables
 * to the schema's, names and types: `SELECT * ... FORMAT RowBinary` gives a spooled batch's
 * rows), written straight into one open batch per table; a batch full or a second old is sealed
 * and queued. RowBinary rather than text: a number is one store rather than its digits, nothing
 * is escaped, and a row is written in place rather than copied; the server reads it in about the
 * time TabSeparated takes.
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
#include "export/rowbinary.h"
#include "export/spool.h"
#include "export_schema.h"
#include "pages.h"
#include "output/fmt.h"

enum { T_FRAMES, T_FINDINGS, T_STREAMS, T_CAPTURES };
_Static_assert(EXPORT_QUEUE >= EXPORT_QUEUE_FILE + EXPORT_TABLES, "a file's last batches wait for no room");

#define SPARE_BUFS 4
#define BUF_STEP ((size_t)64 * 1024)  /* batch buffers' sizes: multiples of this */
#define BUF_HUGE ((size_t)2 << 20)    /* ... and of a huge page's from half of one on (batch_mem_size) */
#define FIRST_ROW_GUESS 160           /* a frames or findings row's bytes, for a run's first batch */
#define ROW_MAX ((size_t)16 * 1024)  /* a row's room: a longer one (a run's source naming many files) is dropped */
#define ADDR_MEMO 64         /* pairs of addresses kept as text, by a hash of their bytes */
#define ADDR_RB 48           /* an address's text as a String: its length's byte, FMT_ADDR_MAX - 1 bytes at most */
#define HEAD_MAX 1024        /* a row's head made once (row_of_frame); a longer one is made for each row */
#define HEAD_COPY 128        /* a head this long or shorter is copied in one fixed-size move */
#define NAME_RB 32           /* an event's or ICRC status's name as a String (events.def: 26 bytes at most) */
#define ICRC_OTHER (ROCE_ICRC_UNVERIFIABLE + 1)  /* icrc_rb: a status beyond the names ("?") */
#define ICRC_NONE (ROCE_ICRC_UNVERIFIABLE + 2)   /* icrc_rb: "", a frame with no BTH or no ICRC */
_Static_assert((uint64_t)EXPORT_BATCH_ROWS_FILE * ROW_MAX <= SPOOL_FILE_MAX, "a spooled batch is read back");
/* the most a frames and a findings row take after row_of_frame's part, each value's room
 * (put_name's and put_addr_pair's moves: NAME_RB and 2 * ADDR_RB); row_of_frame's part with a
 * head made once (HEAD_MAX at most) and either fits in a row's room (ROW_MAX) */
#define FRAME_TAIL (2 * ADDR_RB + 4 + 2 + 4 + NAME_RB + 1 + 1 + ROCE_EV_COUNT * NAME_RB + 4 + 8 + 8)
#define FINDING_TAIL (8 + NAME_RB + 4 + 4 + 2 * ADDR_RB + 4 + 4 + 4 + 8 + 2 + 4 + 4)
_Static_assert(4 + 8 + HEAD_MAX + 8 + FRAME_TAIL <= ROW_MAX && 4 + 8 + HEAD_MAX + 8 + FINDING_TAIL <= ROW_MAX,
	       "a frames or findings row fits in a row's room");
#define BATCH_DAYS 50        /* a frames or findings batch's days at most (batch_day) */
#define BACKOFF_MIN_S 0.1
#define BACKOFF_MAX_S 5.0
#define REFUSED_MAX 8        /* refusals that end a pass of the spool (the newest batch then tried) */
#define REFUSED_TRIES 3      /* a batch refused this many times while others were taken: set aside */

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
	/* the box, and each open batch's run and batch ids, as RowBinary Strings made once (the box
	 * at the start, the ids by batch_open) for every row */
	unsigned char box_rb[2 + 256], ids_rb[EXPORT_TABLES][2 * (1 + 96)];
	size_t box_rb_len, ids_rb_len[EXPORT_TABLES];
	/* frames and findings rows: the box, the point, the run and batch ids one after the other,
	 * made once for the rows of a batch and a point (row_head_len 0: made anew for the next row) */
	unsigned char row_head[EXPORT_TABLES][HEAD_MAX];
	size_t row_head_len[EXPORT_TABLES];
	char row_head_point[EXPORT_TABLES][HEAD_MAX];
	/* frames' source and destination as text, made once for the many frames between the same
	 * two hosts */
	struct addr_memo {
		uint8_t addrs[32], len, rb_len;  /* the two addresses, len bytes each */
		unsigned char rb[2 * ADDR_RB];   /* their texts as two RowBinary Strings, rb_len bytes */
	} addr_memo[ADDR_MEMO];
	/* the events' and ICRC statuses' names as RowBinary Strings, made once (make_names) */
	unsigned char event_rb[ROCE_EV_COUNT + 1][NAME_RB], icrc_rb[ICRC_NONE + 1][NAME_RB];  /* [ROCE_EV_COUNT]: "?" */
	size_t last_len[EXPORT_TABLES];  /* the last batch's bytes: the next one's room at once */
	/* the days (UTC) of the open batch's rows, the last row's first (batch_day) */
	uint32_t days[EXPORT_TABLES][BATCH_DAYS];
	unsigned n_days[EXPORT_TABLES];
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
	bool checked;  /* the tables made or checked: batches may be sent */
	bool away;     /* batches spooled since the server last took one (said: spool_batch) */
	bool failed;   /* the server refused the tables' check: nothing sent, the batches let go */
	/* spooled batches the server refused while it took others: how many times (drain_spool) */
	struct refusal {
		char name[SPOOL_NAME_MAX];
		unsigned tries;
		char why[240];  /* the server's answer */
	} refusals[REFUSED_MAX];
	unsigned n_refusals, set_aside;  /* set_aside: batches this run set aside */
	pthread_t thread;
	double backoff, retry_at;
	_Atomic uint64_t sent, spooled, dropped, batches;
	atomic_bool warned;  /* the first drop's warning given (by either thread) */
	pthread_mutex_t drop_mu;  /* drop_why (either thread; taken with x->mu held or not, none after) */
	char drop_why[256];       /* the last drop's cause, for the run's end */
	char err[512];  /* the thread's last error */
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* String values made once into buf (cap bytes); their length. */
static size_t make_strings(unsigned char *buf, size_t cap, const char *const *v, unsigned n)
{
	struct rb w = {.p = buf, .end = buf + cap};
	for (unsigned i = 0; i < n; i++)
		rb_str(&w, v[i]);
	return w.full ? 0 : (size_t)(w.p - buf);
}

/* The box, made once for every row. */
static void make_box(struct exporter *x)
{
	const char *v[] = {x->box};
	x->box_rb_len = make_strings(x->box_rb, sizeof(x->box_rb), v, 1);
}

_Static_assert(ROCE_EV_COUNT < 128, "a frames row's events: their count in one byte (frame_row)");
#define ROCE_EVENT(id, name, sev, group, desc) \
	_Static_assert(sizeof(name) <= NAME_RB, "event name " name " longer than NAME_RB - 1: grow NAME_RB");
#include "roce/events.def"
#undef ROCE_EVENT

/* A name as a RowBinary String in NAME_RB bytes (the events' names are held to fit above; the
 * ICRC statuses' are 12 bytes at most). */
static void name_rb(unsigned char rb[NAME_RB], const char *name)
{
	size_t n = strnlen(name, NAME_RB - 1);
	rb[0] = (unsigned char)n;  /* < 0x80: a varint of one byte */
	memcpy(rb + 1, name, n);
}

/* The events' and ICRC statuses' names, made once for every row. */
static void make_names(struct exporter *x)
{
	for (unsigned e = 0; e <= ROCE_EV_COUNT; e++)  /* ROCE_EV_COUNT: beyond the names, "?" */
		name_rb(x->event_rb[e], roce_event_name((enum roce_event)e));
	for (unsigned i = 0; i <= ICRC_OTHER; i++)  /* ICRC_OTHER: beyond the names, "?" */
		name_rb(x->icrc_rb[i], roce_icrc_status_name((enum roce_icrc_status)i));
	name_rb(x->icrc_rb[ICRC_NONE], "");
}

/* A name made by name_rb at o (room for NAME_RB): its length's byte and its bytes; the next byte. */
static unsigned char *put_name(unsigned char *o, const unsigned char rb[NAME_RB])
{
	return rb_put_span(o, rb, 1u + rb[0], NAME_RB);
}

/* The open batch's run and batch ids, made once for its rows. */
static void make_ids(struct exporter *x, unsigned table)
{
	char id[96];
	snprintf(id, sizeof(id), "%s:%010" PRIu32, x->run_id, x->open[table].seq);
	const char *v[] = {x->run_id, id};
	x->ids_rb_len[table] = make_strings(x->ids_rb[table], sizeof(x->ids_rb[table]), v, 2);
	x->row_head_len[table] = 0;
}

/* ---- batch buffers ---- */

/* The sink thread writes a batch's rows once, into memory the kernel must fault in first: page by
 * page, that cost about as much CPU time as making the rows (a lossy 1M-frame capture's 29 MB of
 * rows, some 8,000 faults). So a batch's buffer is pages of its own (pages.h), a large one (half
 * a huge page or more) in whole huge pages, which the kernel faults in 2 MiB at a time where
 * transparent huge pages are allowed (madvise); it grows by moving its pages, not copying them;
 * and a sent one is kept for a next batch (recycle). */
static size_t batch_mem_size(size_t want)
{
	size_t step = want >= BUF_HUGE / 2 ? BUF_HUGE : BUF_STEP;
	return (want + step - 1) / step * step;
}

/* A batch buffer of at least want bytes into *d (none before); false when out of memory. */
static bool batch_mem_alloc(struct chbuf *d, size_t want)
{
	size_t cap = batch_mem_size(want);
	*d = (struct chbuf){0};
	if (!(d->p = pages_alloc(cap)))
		return false;
	d->cap = cap;
	return true;
}

/* Room for n more bytes in batch buffer d; false when out of memory (d as it was). */
static bool batch_mem_reserve(struct chbuf *d, size_t n)
{
	if (d->p && d->cap - d->len >= n)
		return true;
	if (!d->p)
		return batch_mem_alloc(d, n);
	size_t cap = batch_mem_size(d->len + n > 2 * d->cap ? d->len + n : 2 * d->cap);
	char *p = pages_grow(d->p, d->cap, cap);
	if (!p)
		return false;
	d->p = p;
	d->cap = cap;
	return true;
}

static void batch_mem_free(struct chbuf *d)
{
	pages_free(d->p, d->cap);
	*d = (struct chbuf){0};
}

static unsigned batch_rows(const struct exporter *x)
{
	return x->cfg.live ? EXPORT_BATCH_ROWS_LIVE : EXPORT_BATCH_ROWS_FILE;
}

/* ---- the export thread ---- */

static void spool_name(const struct exporter *x, const struct batch *b, char name[SPOOL_NAME_MAX])
{
	snprintf(name, SPOOL_NAME_MAX, "%s.%010" PRIu32 ".%s" SPOOL_SUFFIX, x->run_id, b->seq, export_tables[b->table].name);
}

/* The INSERT of a batch's rows: RowBinary, or the TabSeparated an earlier rocedump spooled. */
static void insert_query(char *q, size_t len, unsigned table, bool rowbinary)
{
	snprintf(q, len, "INSERT INTO %s FORMAT %s", export_tables[table].name, rowbinary ? "RowBinary" : "TabSeparated");
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
	pthread_mutex_lock(&x->drop_mu);
	snprintf(x->drop_why, sizeof(x->drop_why), "%s", why);
	pthread_mutex_unlock(&x->drop_mu);
	if (!atomic_exchange(&x->warned, true))
		fprintf(stderr, "rocedump: warning: export: rows dropped (%s); the run's end counts them\n", why);
}

/* A spooled batch's rows walked: false when its RowBinary is not whole rows of the table (a
 * TabSeparated batch's rows are its lines, and give no box or times). */
static bool rows_of(unsigned table, bool rowbinary, const struct chbuf *rows, struct rowbinary_scan *scan)
{
	if (table < EXPORT_TABLES && rowbinary)
		return rowbinary_scan(export_tables[table].layout, (const unsigned char *)rows->p, rows->len, scan);
	*scan = (struct rowbinary_scan){.first_min = UINT32_MAX};
	for (size_t i = 0; i < rows->len; i++)
		scan->rows += rows->p[i] == '\n';
	return true;
}

/* The query that counts a batch's rows in its table: by its batch id and, where its rows give
 * them, its box and time range, with which the server reads the few granules of that box and
 * those days (the tables are ordered by box first, then, but for findings, by time; their
 * partitions are days) rather than the whole table's batch ids, which on a fleet's tables takes
 * seconds a batch, and there may be thousands after an outage. */
static void found_query(char *q, size_t len, unsigned t, const char *batch, const struct rowbinary_scan *s)
{
	const char *cols = export_tables[t].columns;  /* "name\ttype\n" lines: the first is the time */
	int time_len = (int)strcspn(cols, "\t");
	int n = snprintf(q, len, "SELECT count() FROM %s WHERE batch_id = '%s'", export_tables[t].name, batch);
	char box[1024];
	if (n < 0 || (size_t)n >= len || !s->str || s->first_min > s->first_max ||
	    !ch_sql_string(box, sizeof(box), s->str, s->str_len))
		return;
	int k = snprintf(q + n, len - (size_t)n, " AND box = '%s' AND %.*s >= toDateTime(%" PRIu32 ") AND %.*s <= toDateTime(%" PRIu32 ")",
			 box, time_len, cols, s->first_min, time_len, cols, s->first_max);
	if (k < 0 || (size_t)k >= len - (size_t)n)  /* cut: the batch id alone */
		q[n] = '\0';
}

/* A spooled batch: sent unless the table has rows of its batch id already. 0: taken (or there
 * already), 1: let go (not a batch of rocedump's, cut short, unreadable: its rows counted
 * dropped), else ch_post's CH_REFUSED or CH_NO_ANSWER. */
static int send_spooled(struct exporter *x, const char *name, struct chbuf *rows)
{
	char table[64], batch[SPOOL_NAME_MAX], q[SPOOL_NAME_MAX + 1536];
	struct chbuf ans = {0};
	struct rowbinary_scan scan;
	bool rowbinary;
	if (!spool_parse(name, table, sizeof(table), batch, sizeof(batch), &rowbinary))
		return -1;
	unsigned t = table_of(table);
	if (t == EXPORT_TABLES || batch[strspn(batch, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz:-")]) {
		/* no table of ours, or not a run id of ours: no query made of the name, its rows dropped
		 * (counted as lines: no table, no layout) */
		if (spool_read(&x->spool, name, rows, x->err, sizeof(x->err)) == 0)
			rows_of(EXPORT_TABLES, false, rows, &scan);
		else
			scan.rows = 0;
		snprintf(x->err, sizeof(x->err), "spooled batch %s is not rocedump's", name);
		drop(x, scan.rows, x->err);
		return 1;
	}
	if (spool_read(&x->spool, name, rows, x->err, sizeof(x->err)) < 0)
		return 1;  /* unreadable: dropped below */
	if (!rows_of(t, rowbinary, rows, &scan)) {  /* cut short: the server would refuse it for ever */
		snprintf(x->err, sizeof(x->err), "spooled batch %s is not whole rows of %s", name, table);
		drop(x, scan.rows, x->err);
		return 1;
	}
	found_query(q, sizeof(q), t, batch, &scan);
	int rc = ch_post(&x->conn[0], q, NULL, 0, &ans, x->err, sizeof(x->err));
	if (rc < 0)
		return rc;
	bool there = ans.p && strtoull(ans.p, NULL, 10) > 0;
	chbuf_free(&ans);
	if (there)
		return 0;
	insert_query(q, sizeof(q), t, rowbinary);
	rc = ch_post(&x->conn[0], q, rows->p ? rows->p : "", rows->len, NULL, x->err, sizeof(x->err));
	if (rc < 0)
		return rc;
	x->sent += scan.rows;
	return 0;
}

/* The server took a batch: if batches had gone to the spool and it is empty again, said. */
static void server_back(struct exporter *x)
{
	if (x->away && !x->spool.files) {
		x->away = false;
		fprintf(stderr, "rocedump: export: the server takes batches again; the spool is sent\n");
	}
}

/* The batches refused in a pass of the spool (pass[], their names and the server's answers),
 * kept for the next pass: each counted once more when the server took another batch in that
 * pass (it refuses the batch, not every batch), and set aside at REFUSED_TRIES; a batch the pass
 * did not refuse is forgotten. */
static void count_refusals(struct exporter *x, struct refusal *pass, unsigned n, bool other_taken)
{
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < x->n_refusals; j++)
			if (strcmp(x->refusals[j].name, pass[i].name) == 0)
				pass[i].tries = x->refusals[j].tries;
		pass[i].tries += other_taken;
		if (pass[i].tries < REFUSED_TRIES) {
			pass[k++] = pass[i];
			continue;
		}
		char err[256];
		if (spool_set_aside(&x->spool, pass[i].name, err, sizeof(err)) < 0) {
			fprintf(stderr, "rocedump: warning: export: %s\n", err);
			continue;
		}
		x->set_aside++;
		fprintf(stderr, "rocedump: warning: export: the server refused spooled batch %s %u times while it took "
			"others (%s): set aside as %s%s, not sent again\n", pass[i].name, pass[i].tries, pass[i].why,
			pass[i].name, SPOOL_REFUSED);
	}
	memcpy(x->refusals, pass, sizeof(pass[0]) * k);
	x->n_refusals = k;
}

/* The spool's batches, oldest first, while the server takes them. A batch it refuses is passed
 * over (in this pass) for the ones after it, so that one batch it will never take (a value it
 * cannot read, a limit of its own) does not hold the others up for ever; REFUSED_MAX refusals
 * end the pass, as does no answer: if none was taken, the newest batch is tried, which the
 * server takes unless it refuses them all (a table changed, a user's rights). False: a batch was
 * refused, or the server did not answer. */
static bool drain_spool(struct exporter *x)
{
	char name[SPOOL_NAME_MAX] = "";
	struct refusal pass[REFUSED_MAX] = {{{0}}};
	struct chbuf rows = {0};
	unsigned n_refused = 0;
	bool answered = true, taken = false;
	while (spool_next(&x->spool, name, name)) {
		int rc = send_spooled(x, name, &rows);
		if (rc == CH_REFUSED) {
			memcpy(pass[n_refused].name, name, SPOOL_NAME_MAX);
			snprintf(pass[n_refused].why, sizeof(pass[n_refused].why), "%.*s", (int)sizeof(pass[n_refused].why) - 1,
				 x->err);  /* the server's answer, cut */
			if (++n_refused == REFUSED_MAX)
				break;
			continue;
		}
		if (rc < 0) {
			answered = false;
			break;
		}
		spool_remove(&x->spool, name);
		taken |= rc == 0;
	}
	/* as many refused as a pass tries and none taken: the server refuses every batch, or the
	 * oldest are all batches it will never take; the newest batch tells which */
	if (n_refused == REFUSED_MAX && !taken && spool_last(&x->spool, name, name)) {
		int rc = send_spooled(x, name, &rows);
		if (rc >= 0)
			spool_remove(&x->spool, name);
		taken = rc == 0;
		answered = rc != CH_NO_ANSWER;
	}
	chbuf_free(&rows);
	count_refusals(x, pass, n_refused, taken);
	if (answered && !n_refused)
		server_back(x);
	else if (answered && taken)  /* the server takes batches: the next pass after the shortest pause */
		x->backoff = 0;
	return answered && !n_refused;
}

static void spool_batch(struct exporter *x, struct batch *b)
{
	char name[SPOOL_NAME_MAX], err[256];
	spool_name(x, b, name);
	int rc = spool_put(&x->spool, name, b->data.p, b->data.len, err, sizeof(err));
	if (rc > 0) {
		if (!x->away)  /* an operator watching a live capture is told at once, and once */
			fprintf(stderr, "rocedump: warning: export: %s; batches go to the spool until the server takes them\n",
				x->err[0] ? x->err : "the server is away");
		x->spooled += b->rows;
		x->away = true;
	} else
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
	insert_query(q, sizeof(q), p->b->table, true);
	p->rc = ch_post(p->conn, q, p->b->data.p, p->b->data.len, NULL, p->err, sizeof(p->err));
	return NULL;
}

/* post_batch on a thread of its own (the first of the run's last batches goes on the export thread) */
static void *post_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "rocedump-post");
	return post_batch(arg);
}

/* n queued batches (n <= x->n_conn): sent at once when the spool is empty and the server
 * answers, else spooled; those that fail spooled, in their order. */
static void ship(struct exporter *x, struct batch *b, unsigned n)
{
	x->batches += n;
	if (x->failed) {
		for (unsigned i = 0; i < n; i++)
			drop(x, b[i].rows, "the tables' check failed");
		return;
	}
	if (!x->checked || x->spool.files || (x->backoff && mono() < x->retry_at)) {
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
		started[i] = pthread_create(&t[i], NULL, post_thread, &p[i]) == 0;
	for (unsigned i = 0; i < n; i++)  /* the first here, and any whose thread did not start */
		if (!started[i])
			post_batch(&p[i]);
	bool failed = false;
	for (unsigned i = 0; i < n; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
		if (p[i].rc == 0) {
			x->sent += b[i].rows;
			server_back(x);
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

/* The tables made or checked, once the server has answered: true when they are. Refused (a
 * table that differs, a database or user it does not know): x->failed, for the run. No answer
 * (the server away, as a box may start before it): tried again after a pause; meanwhile the
 * batches go to the spool, as an INSERT's that fails do, and so are not lost. */
static bool tables_ready(struct exporter *x)
{
	if (x->checked)
		return true;
	int rc = ch_check_tables(&x->conn[0], x->err, sizeof(x->err));
	if (rc == 0) {
		x->checked = true;
		connect_more(x);
	} else if (rc == CH_REFUSED) {
		x->failed = true;
	}
	backoff(x, rc != 0);
	return rc == 0;
}

/* The tables' check not yet answered, or batches in the spool: the server is to be tried again. */
static bool retry_pending(const struct exporter *x)
{
	return !x->checked || x->spool.files;
}

/* ... and the pause after the last try (x->retry_at) is over. */
static bool retry_due(const struct exporter *x)
{
	return retry_pending(x) && mono() >= x->retry_at;
}

/* The server tried again: the tables' check until it answers, then the spool's batches. */
static void retry(struct exporter *x)
{
	if (tables_ready(x) && x->spool.files)
		backoff(x, !drain_spool(x));
}

/* The tables' check refused: the queued batches let go unsent, their rows counted as dropped,
 * until the run's end (export_finish gives the error). */
static void discard(struct exporter *x)
{
	pthread_mutex_lock(&x->mu);
	x->failed = true;
	for (;;) {
		while (x->n) {
			drop(x, x->queue[x->head].rows, "the tables' check failed");
			batch_mem_free(&x->queue[x->head].data);
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
		batch_mem_free(data);
	}
}

/* Connect and make or check the tables while the capture is read (the rows queue up meanwhile),
 * then send the spool's batches and the queued ones. */
static void *run(void *arg)
{
	struct exporter *x = arg;
	pthread_setname_np(pthread_self(), "rocedump-export");
	x->n_conn = 1;
	if (ch_connect(&x->conn[0], x->err, sizeof(x->err)) < 0) {
		discard(x);
		return NULL;
	}
	retry(x);
	pthread_mutex_lock(&x->mu);
	while (!x->failed) {
		while (!x->n && !x->stop && !retry_due(x)) {
			if (retry_pending(x)) {
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
		if (!x->n) {  /* the check's or the spool's turn */
			pthread_mutex_unlock(&x->mu);
			retry(x);
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
		/* once the run ends, the check is not tried again (a server that hangs would hold the
		 * end for its time limit at every try): the last batches go to the spool */
		if (retry_due(x) && (x->checked || !x->stop))
			retry(x);
		ship(x, b, n);
		pthread_mutex_lock(&x->mu);
		for (unsigned i = 0; i < n; i++)
			recycle(x, &b[i].data);
	}
	pthread_mutex_unlock(&x->mu);
	if (x->checked && x->spool.files)  /* what the spool holds, once more; the next run sends what stays */
		drain_spool(x);
	if (x->failed)
		discard(x);
	return NULL;
}

/* ---- the sink thread ---- */

/* A buffer of at least want bytes for a batch (x->mu held, or before the thread): a spare one
 * that is big enough, else a new one (the spares kept: a spare is freed only by recycle). Its
 * pages are written once, not faulted in again for every batch. */
static void batch_buffer(struct exporter *x, struct chbuf *d, size_t want)
{
	for (unsigned i = 0; i < x->n_spare; i++)
		if (x->spare[i].cap >= want) {
			*d = x->spare[i];
			x->spare[i] = x->spare[--x->n_spare];
			return;
		}
	batch_mem_alloc(d, want);
}

static void batch_open(struct exporter *x, unsigned table)
{
	struct batch *b = &x->open[table];
	b->table = table;
	b->seq = ++x->seq;
	b->rows = 0;
	b->opened = x->now;
	/* room for a batch as big as the last one and an eighth, and a row, so that the table's next
	 * batches fit in this one's buffer; a frames or findings table's first, room for a whole
	 * batch of rows as long as most (the pages the rows do not reach are never faulted in) */
	size_t want = x->last_len[table] + x->last_len[table] / 8 + ROW_MAX;
	if (!x->last_len[table] && (table == T_FRAMES || table == T_FINDINGS))
		want = (size_t)batch_rows(x) * FIRST_ROW_GUESS + ROW_MAX;
	batch_buffer(x, &b->data, want);
	make_ids(x, table);
	x->n_days[table] = 0;
}

/* The open batch of table, if it has rows, queued (x->mu held), and a new one opened. A live
 * capture's is dropped when the queue is full; a file's reading waits while the queue holds room
 * batches (EXPORT_QUEUE_FILE, or EXPORT_QUEUE for the run's last ones, sent at once). */
static void batch_queue(struct exporter *x, unsigned table, unsigned room)
{
	struct batch *b = &x->open[table];
	if (!b->rows)
		return;
	bool waited = false;
	while (x->n >= room && !x->cfg.live) {
		pthread_cond_signal(&x->more);  /* what it waits for is queued: the thread told */
		pthread_cond_wait(&x->room, &x->mu);
		waited = true;
	}
	/* the clock the next batch opens by (x->now, else the last tick's): after a wait longer
	 * than EXPORT_BATCH_S, the next tick would seal that batch at once, and the next, each a
	 * tick's few hundred rows waiting as long again (a slow server's INSERTs) */
	if (waited)
		x->now = mono();
	x->last_len[table] = b->data.len;
	if (x->n == EXPORT_QUEUE) {
		drop(x, b->rows, "the export queue is full");
		batch_mem_free(&b->data);
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
	batch_queue(x, table, EXPORT_QUEUE_FILE);
	pthread_cond_signal(&x->more);
	pthread_mutex_unlock(&x->mu);
}

/* A row begun at the end of table's open batch, in room for ROW_MAX bytes made there; false
 * (the row dropped) when there is no memory for it. */
static bool row_begin(struct exporter *x, unsigned table, struct rb *w)
{
	struct chbuf *d = &x->open[table].data;
	if (!batch_mem_reserve(d, ROW_MAX)) {
		drop(x, 1, "out of memory");
		return false;
	}
	*w = (struct rb){.p = (unsigned char *)d->p + d->len};
	w->end = w->p + ROW_MAX;
	return true;
}

/* The row written by w kept in its table's batch, the batch sealed when full. A row that did
 * not fit in ROW_MAX is dropped, not sent: the server would refuse the whole batch. */
static void row_end(struct exporter *x, unsigned table, const struct rb *w)
{
	struct batch *b = &x->open[table];
	if (!b->rows)
		b->opened = x->now;
	if (w->full) {
		drop(x, 1, "a row longer than 16 KiB");
		return;
	}
	b->data.len = (size_t)((char *)w->p - b->data.p);
	if (++b->rows >= batch_rows(x))
		batch_seal(x, table);
}

void export_tick(struct exporter *x, double now)
{
	x->now = now;
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		if (x->open[t].rows && now - x->open[t].opened >= EXPORT_BATCH_S)
			batch_seal(x, t);
}

/* A time in ns as its second (DateTime: UInt32), and as its ns (UInt64); 0 for none. */
static void rb_datetime(struct rb *w, int64_t ns)
{
	uint64_t sec = ns > 0 ? (uint64_t)ns / 1000000000u : 0;
	rb_u32(w, sec > UINT32_MAX ? UINT32_MAX : (uint32_t)sec);
}

static void rb_ns(struct rb *w, int64_t ns)
{
	rb_u64(w, ns > 0 ? (uint64_t)ns : 0);
}

static const char *point_of(const struct exporter *x, const struct frame *f)
{
	return f->iface_name && f->iface_name[0] ? f->iface_name : x->cfg.point ? x->cfg.point : "";
}

/* The frame's source and destination addresses (len bytes each, 4 or 16, one after the other)
 * as two Strings of their text at o (room for 2 * ADDR_RB), the texts made once for each pair
 * met; the next byte. */
static unsigned char *put_addr_pair(struct exporter *x, unsigned char *o, const uint8_t *addrs, unsigned len)
{
	const uint8_t *d = addrs + len;
	struct addr_memo *m = &x->addr_memo[(d[len - 1] ^ d[len - 2] * 7u ^ addrs[len - 1] * 31u ^ addrs[len - 2] * 131u) % ADDR_MEMO];
	if (m->len != len || (len == 4 ? memcmp(m->addrs, addrs, 8) : memcmp(m->addrs, addrs, 32)) != 0) {
		char text[FMT_ADDR_MAX];
		struct rb t = {.p = m->rb, .end = m->rb + sizeof(m->rb)};
		fmt_ip(text, addrs, len);
		rb_str(&t, text);
		fmt_ip(text, d, len);
		rb_str(&t, text);
		memcpy(m->addrs, addrs, (size_t)len * 2);
		m->len = (uint8_t)len;
		m->rb_len = (uint8_t)(t.p - m->rb);
	}
	return rb_put_span(o, m->rb, m->rb_len, sizeof(m->rb));
}

/* The frame's source and destination addresses at o (room for 2 * ADDR_RB); empty Strings when
 * it has none, or p is NULL (a row that gives none); the next byte. */
static unsigned char *put_addrs(struct exporter *x, unsigned char *o, const struct frame *f, const struct roce_pkt *p)
{
	unsigned len = 0;
	const uint8_t *src = p ? fmt_net_src(p, f->data, &len) : NULL;
	if (!src || (len != 4 && len != 16)) {
		o[0] = o[1] = 0;
		return o + 2;
	}
	return put_addr_pair(x, o, src, len);
}

/* The row's head for the point into w: the box, the point, the run and batch ids. */
static void put_head(struct exporter *x, struct rb *w, unsigned table, const char *point)
{
	rb_raw(w, x->box_rb, x->box_rb_len);
	rb_str(w, point);
	rb_raw(w, x->ids_rb[table], x->ids_rb_len[table]);
}

/* The open batch of table sealed before a row of a day it would be the (BATCH_DAYS + 1)th of.
 * The tables' partitions are days (toYYYYMMDD(time)), and ClickHouse from 19.x refuses an INSERT
 * of rows of more than 100 partitions (max_partitions_per_insert_block), for ever: such a batch
 * would hold the spool up at every try. A file whose frames span months makes such batches; the
 * days are UTC's, and a server in another timezone may see a UTC day as two, hence 50. */
static void batch_day(struct exporter *x, unsigned table, int64_t ns)
{
	uint32_t day = ns > 0 ? (uint32_t)((uint64_t)ns / 86400000000000u) : 0, *days = x->days[table];
	unsigned n = x->n_days[table];
	if (n && days[0] == day)
		return;
	for (unsigned i = 1; i < n; i++)
		if (days[i] == day) {  /* known: the last row's day now first */
			days[i] = days[0];
			days[0] = day;
			return;
		}
	if (n == BATCH_DAYS) {
		batch_seal(x, table);
		n = 0;
	}
	days[n] = days[0];
	days[0] = day;
	x->n_days[table] = n + 1;
}

/* A frames or findings row begun in w (row_begin's room): the frame's time, the head, the frame
 * number. Returns where the rest of the row goes, with room for its most (tail: FRAME_TAIL or
 * FINDING_TAIL bytes), which it is written into with no further check; NULL, w marked full, when
 * the head (longer than HEAD_MAX, made for each row) leaves less room than that: the row is
 * dropped. */
static unsigned char *row_of_frame(struct exporter *x, struct rb *w, const struct frame *f, unsigned table, size_t tail)
{
	const char *point = point_of(x, f);
	if (!x->row_head_len[table] || strcmp(point, x->row_head_point[table]) != 0) {
		struct rb h = {.p = x->row_head[table], .end = x->row_head[table] + HEAD_MAX};
		put_head(x, &h, table, point);
		x->row_head_len[table] = h.full ? 0 : (size_t)(h.p - x->row_head[table]);
		snprintf(x->row_head_point[table], HEAD_MAX, "%s", point);
	}
	int64_t ns = frame_ts_ns(f);
	rb_datetime(w, ns);
	rb_ns(w, ns);
	size_t n = x->row_head_len[table];
	if (n && n <= HEAD_COPY)
		rb_raw_span(w, x->row_head[table], n, HEAD_COPY);
	else if (n)
		rb_raw(w, x->row_head[table], n);
	else
		put_head(x, w, table, point);
	rb_u64(w, f->number);
	return rb_room(w, tail) ? w->p : NULL;
}

/* A frames row, in the table's column order. */
static void frame_row(struct exporter *x, const struct frame *f, const struct roce_pkt *p,
		      const struct roce_findings *fi)
{
	/* the fields roce.dqpn, roce.opcode (256: none), roce.psn, roce.icrc.status and ip.ecn or
	 * grh.ecn, read as fields.def reads them (test-clickhouse compares them with -T json's) */
	bool bth = p->version && p->op;
	bool net = p->net.kind == ROCE_NET_IPV4 || p->net.kind == ROCE_NET_IPV6 || p->net.kind == ROCE_NET_GRH;
	struct rb w;
	batch_day(x, T_FRAMES, frame_ts_ns(f));
	if (!row_begin(x, T_FRAMES, &w))
		return;
	unsigned char *o = row_of_frame(x, &w, f, T_FRAMES, FRAME_TAIL);
	if (o) {
		o = put_addrs(x, o, f, p);
		o = rb_put_le(o, bth ? p->h.bth.dqpn : 0, 4);
		o = rb_put_le(o, bth ? p->h.bth.opcode : 256, 2);
		o = rb_put_le(o, bth ? p->h.bth.psn : 0, 4);
		o = put_name(o, x->icrc_rb[!(bth && p->icrc_off) ? ICRC_NONE : p->icrc_status < ICRC_OTHER ? p->icrc_status : ICRC_OTHER]);
		*o++ = (uint8_t)(net ? roce_ecn(&p->net) : 0);
		/* events: Array(String), its length (fewer than 128: a varint of one byte) put before
		 * the names once they are counted */
		unsigned char *count = o++;
		unsigned n = 0;
		for (unsigned e = roce_evset_next(&p->events, 0); e < ROCE_EV_COUNT; e = roce_evset_next(&p->events, e + 1), n++)
			o = put_name(o, x->event_rb[e]);
		*count = (unsigned char)n;
		o = rb_put_le(o, fi ? fi->n : 0, 4);
		o = rb_put_le(o, fi ? fi->cnp_ce_frame : 0, 8);
		w.p = rb_put_le(o, fi && fi->cnp_ce_frame ? (uint64_t)fi->cnp_ce_ns : 0, 8);
	}
	row_end(x, T_FRAMES, &w);
}

/* A findings row, in the table's column order. */
static void finding_row(struct exporter *x, const struct frame *f, const struct roce_pkt *p, const struct roce_finding *g)
{
	bool gap = g->event == ROCE_EV_MIRROR_GAP, cong = roce_event_is_congestion((enum roce_event)g->event);
	bool pfc = g->event == ROCE_EV_PFC_PAUSE || g->event == ROCE_EV_PFC_RESUME || g->event == ROCE_EV_PFC_STORM ||
		   g->event == ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED;
	struct rb w;
	batch_day(x, T_FINDINGS, frame_ts_ns(f));
	if (!row_begin(x, T_FINDINGS, &w))
		return;
	unsigned char *o = row_of_frame(x, &w, f, T_FINDINGS, FINDING_TAIL);
	if (o) {
		o = rb_put_le(o, g->ref_frame, 8);
		o = put_name(o, x->event_rb[g->event < ROCE_EV_COUNT ? g->event : ROCE_EV_COUNT]);
		o = rb_put_le(o, gap ? 0 : g->stream, 4);
		o = rb_put_le(o, gap ? 0 : g->pair, 4);
		o = put_addrs(x, o, f, gap || cong ? NULL : p);
		o = rb_put_le(o, gap ? 0 : g->qpn, 4);
		o = rb_put_le(o, gap || g->has_psn ? g->expected_psn : 0, 4);
		o = rb_put_le(o, gap || g->has_psn ? g->seen_psn : 0, 4);
		o = rb_put_le(o, (uint64_t)(gap ? -1 : g->delta_ns), 8);
		o = rb_put_le(o, (uint16_t)(int16_t)(pfc && g->priority >= 0 ? g->priority : -1), 2);
		o = rb_put_le(o, g->event == ROCE_EV_PFC_PAUSE ? g->quanta : 0, 4);
		w.p = rb_put_le(o, gap ? (uint32_t)(g->seen_psn - g->expected_psn) : 0, 4);
	}
	row_end(x, T_FINDINGS, &w);
}

void export_frame(struct exporter *x, const struct frame *f, const struct roce_pkt *p, const struct roce_findings *fi)
{
	bool any = !roce_evset_empty(&p->events) || (fi && (fi->n || fi->cnp_ce_frame));
	if (!any && !x->cfg.all_frames)
		return;
	frame_row(x, f, p, fi);
	for (unsigned i = 0; fi && i < fi->n; i++)
		finding_row(x, f, p, &fi->f[i]);
}

/* A stream's row, in the schema's column order (the tables' check holds the table to it). */
void export_stream(const struct roce_stream_stats *st, bool evicted, struct exporter *x)
{
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];
	struct rb w;
	if (!row_begin(x, T_STREAMS, &w))
		return;
	fmt_ip(src, st->src, st->addr_len);
	fmt_ip(dst, st->dst, st->addr_len);
	time_t now = time(NULL);
	rb_u32(&w, now > 0 ? (uint32_t)now : 0);  /* snapshot */
	rb_raw(&w, x->box_rb, x->box_rb_len);
	rb_raw(&w, x->ids_rb[T_STREAMS], x->ids_rb_len[T_STREAMS]);
	rb_u8(&w, evicted);
	rb_u32(&w, st->pair);
	rb_u32(&w, st->stream);
	rb_str(&w, src);
	rb_str(&w, dst);
	rb_u32(&w, st->dqpn);
	rb_str(&w, st->paired == ROCE_PAIRED_CM ? "cm" : st->paired == ROCE_PAIRED_PSN ? "psn" : "none");
	rb_u32(&w, st->paired ? st->peer_qpn : 0);
	rb_str(&w, st->requests ? roce_transport_name((enum roce_transport)st->transport) : "");
	rb_u32(&w, st->pmtu);
	const uint64_t counts[] = {  /* UInt64 each */
		st->packets, st->bytes, st->requests, st->responses, st->messages, st->gaps, st->missing_psns,
		st->retransmits, st->out_of_order, st->timeouts, st->lost_before, st->lost_after, st->copies,
		st->rnr_naks, st->lost_mirror, st->response_count,
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		rb_u64(&w, counts[i]);
	rb_u32(&w, st->response_count ? st->response_p50_us : 0);
	rb_u32(&w, st->response_count ? st->response_p99_us : 0);
	rb_u32(&w, st->max_idle_us);
	rb_u64(&w, st->ecn[3]);
	rb_u64(&w, st->cnps);
	rb_u64(&w, st->cnp_missing);
	rb_u64(&w, st->ce_to_cnp_count);
	rb_i64(&w, st->ce_to_cnp_count ? st->ce_to_cnp_p50_ns : 0);
	rb_i64(&w, st->ce_to_cnp_count ? st->ce_to_cnp_p99_ns : 0);
	row_end(x, T_STREAMS, &w);
}

void export_evicted(const struct roce_stream_stats *s, void *x)
{
	export_stream(s, true, x);
}

static void capture_row(struct exporter *x, const struct export_capture *c)
{
	int64_t now = (int64_t)time(NULL) * 1000000000;
	int64_t first_ns = c->frames ? c->first_ns : now, last_ns = c->frames ? c->last_ns : now;
	struct rb w;
	if (!row_begin(x, T_CAPTURES, &w))
		return;
	rb_datetime(&w, first_ns);  /* start and end: DateTime, then UInt64 ns */
	rb_datetime(&w, last_ns);
	rb_ns(&w, first_ns);
	rb_ns(&w, last_ns);
	rb_raw(&w, x->box_rb, x->box_rb_len);
	rb_raw(&w, x->ids_rb[T_CAPTURES], x->ids_rb_len[T_CAPTURES]);
	rb_str(&w, x->cfg.source ? x->cfg.source : "");
	rb_u64(&w, c->frames);
	rb_u64(&w, c->bytes);
	rb_u64(&w, c->drops);
	rb_str(&w, ROCEDUMP_VERSION);
	row_end(x, T_CAPTURES, &w);
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
	make_names(x);
	if (ch_load(err, errlen) < 0 || ch_open(&x->conn[0], cfg->url, cfg->password_file, err, errlen) < 0 ||
	    (cfg->spool_dir && spool_open(&x->spool, cfg->spool_dir, cfg->spool_max, err, errlen) < 0)) {
		ch_close(&x->conn[0]);
		free(x);
		return NULL;
	}
	x->now = mono();
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		batch_open(x, t);
	pthread_mutex_init(&x->mu, NULL);
	pthread_mutex_init(&x->drop_mu, NULL);
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
				      .batches = x->batches, .spool_batches = x->spool.files,
				      .spool_bytes = x->spool.bytes, .spool_refused = x->spool.refused};
}

void export_end(struct exporter *x, const struct export_capture *cap)
{
	capture_row(x, cap);
	/* queued together, then the thread woken, so that it takes them together */
	pthread_mutex_lock(&x->mu);
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		batch_queue(x, t, EXPORT_QUEUE);
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
		snprintf(err, errlen, "export: %" PRIu64 " rows dropped (the last: %s)%s%s", (uint64_t)x->dropped, x->drop_why,
			 x->err[0] ? "; last error: " : "", x->err);
		rc = -1;
	} else if (x->set_aside) {
		snprintf(err, errlen, "export: %u spooled batches the server refuses set aside in the spool (*%s), not sent",
			 x->set_aside, SPOOL_REFUSED);
		rc = -1;
	} else if (x->spool.files) {
		snprintf(err, errlen, "export: %u batches left in the spool for the next run; last error: %s", x->spool.files,
			 x->err);
	} else {
		err[0] = '\0';
	}
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		batch_mem_free(&x->open[t].data);
	for (unsigned i = 0; i < x->n_spare; i++)
		batch_mem_free(&x->spare[i]);
	pthread_mutex_destroy(&x->mu);
	pthread_mutex_destroy(&x->drop_mu);
	pthread_cond_destroy(&x->more);
	pthread_cond_destroy(&x->room);
	spool_close(&x->spool);
	for (unsigned i = 0; i < EXPORT_PARALLEL; i++)
		ch_close(&x->conn[i]);
	free(x);
	return rc;
}
