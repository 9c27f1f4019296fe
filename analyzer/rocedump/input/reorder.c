/* reorder.c: the records of a pcapng file with several interfaces handed out in time order.
 *
 * dumpcap capturing several interfaces writes each one's frames in batches, so the file's order
 * is not the order in which the frames were seen, and an analysis that follows it sees a packet
 * at its second capture point before its first. This stage sits between the file's reader and
 * everything after it (the filter, the merge of several files, the analysis), as a merge of the
 * file's interfaces by the rule merge.c merges files with: each interface is a source whose
 * records are queued as the file gives them, and the earliest record queued goes out once every
 * interface has shown a time stamp at or past it, so no record still to come in the file can
 * belong before it. Unlike merge.c's files, the interfaces share one reader, so a record waiting
 * for its turn is copied out of the reader (bounded: REORDER_MAX_FRAMES, REORDER_MAX_BYTES; past
 * them the earliest goes out and is counted in the capture's reorder_overflow), and of equal time
 * stamps the one earlier in the file goes first, so that a file already in time order comes out
 * as it is. Each interface's own records keep their order, even where they go back in time.
 *
 * An interface is waited on only while the record is less than REORDER_LAG_NS behind the newest
 * time stamp read: one that stays silent (or is described and never captures) holds nothing back
 * longer. The interfaces described before the first record are waited on from the start, so that
 * the first batch of one interface does not go out before the other's first batch is read.
 *
 * Records keep their numbers in the file (tshark's frame.number). */
#include "input/reorder.h"

#include <stdlib.h>
#include <string.h>

#include "input/input.h"

#define REORDER_IFACES CAPSTATS_MAX_IFACES  /* interfaces told apart; past them, the last one */

/* A record held back: its frame, whose bytes and options are copied into bytes[]. */
struct held {
	struct held *next;
	struct frame f;
	size_t size;
	uint8_t bytes[];
};

struct iface_queue {
	uint32_t key;                   /* capstats_iface_key() */
	bool seen;                      /* a record of it was read */
	int64_t newest;                 /* then its newest time stamp, in ns */
	struct held *head, *tail;
};

struct input_reorder {
	struct input *in;
	uint32_t n;
	struct iface_queue q[REORDER_IFACES];
	uint64_t frames;                /* records held */
	size_t bytes;                   /* and their bytes */
	int64_t newest;                 /* the newest time stamp read, in ns */
	bool eof;                       /* the file read to its end, or to a read error: */
	int end_rc;                     /* input_read_record()'s last result then, 0 or -1 */
	char end_msg[INPUT_ERRLEN];     /* its message */
	struct held *out;               /* the record handed out last, freed at the next call */
};

/* The queue of interface key, added when new. */
static struct iface_queue *queue_of(struct input_reorder *r, uint32_t key)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->q[i].key == key)
			return &r->q[i];
	if (r->n == REORDER_IFACES)
		return &r->q[r->n - 1];
	r->q[r->n] = (struct iface_queue){.key = key, .newest = INT64_MIN};
	return &r->q[r->n++];
}

/* Record f queued (copied) behind its interface's; -1 when out of memory. */
static int hold(struct input_reorder *r, const struct frame *f)
{
	size_t size = (size_t)f->caplen + f->opts_len;
	struct held *h = malloc(sizeof(*h) + size);
	if (!h)
		return -1;
	h->next = NULL;
	h->f = *f;
	h->size = size;
	memcpy(h->bytes, f->data, f->caplen);
	h->f.data = h->bytes;
	if (f->opts_len) {
		memcpy(h->bytes + f->caplen, f->opts, f->opts_len);
		h->f.opts = h->bytes + f->caplen;
	}
	struct iface_queue *q = queue_of(r, f->iface);
	if (q->tail)
		q->tail->next = h;
	else
		q->head = h;
	q->tail = h;
	int64_t t = frame_ts_ns(f);
	if (!q->seen || t > q->newest)
		q->newest = t;
	q->seen = true;
	if (t > r->newest)
		r->newest = t;
	r->frames++;
	r->bytes += size;
	return 0;
}

/* The queue whose first record comes first: the earliest time stamp, of equal ones the earlier in
 * the file; NULL when none holds a record. */
static struct iface_queue *earliest(struct input_reorder *r)
{
	struct iface_queue *best = NULL;
	for (uint32_t i = 0; i < r->n; i++) {
		struct iface_queue *q = &r->q[i];
		if (q->head && (!best || frame_ts_before(&q->head->f, &best->head->f) ||
				(!frame_ts_before(&best->head->f, &q->head->f) && q->head->f.number < best->head->f.number)))
			best = q;
	}
	return best;
}

/* Whether no record still to come can belong before the first of queue c: every other interface
 * has shown a time stamp at or past it, or it lies REORDER_LAG_NS behind the newest read. */
static bool sure(const struct input_reorder *r, const struct iface_queue *c)
{
	int64_t t = frame_ts_ns(&c->head->f);
	if (r->newest > t && (uint64_t)r->newest - (uint64_t)t > (uint64_t)REORDER_LAG_NS)
		return true;
	for (uint32_t i = 0; i < r->n; i++)
		if (&r->q[i] != c && (!r->q[i].seen || r->q[i].newest < t))
			return false;
	return true;
}

/* Whether the first record of queue c goes out now: sure of its place, or at the file's end, or
 * with the records held past their bounds (then counted). */
static bool ready(struct input_reorder *r, const struct iface_queue *c)
{
	if (r->eof || sure(r, c))
		return true;
	if (r->frames <= REORDER_MAX_FRAMES && r->bytes <= REORDER_MAX_BYTES)
		return false;
	input_count_reorder_overflow(r->in);
	return true;
}

/* The first record of queue q taken out, handed out as *f. */
static void take(struct input_reorder *r, struct iface_queue *q, struct frame *f)
{
	struct held *h = q->head;
	q->head = h->next;
	if (!q->head)
		q->tail = NULL;
	r->frames--;
	r->bytes -= h->size;
	r->out = h;
	*f = h->f;
}

int reorder_next(struct input_reorder *r, struct frame *f, char *errbuf, size_t errlen)
{
	free(r->out);
	r->out = NULL;
	for (;;) {
		struct iface_queue *c = earliest(r);
		if (c && ready(r, c)) {
			take(r, c, f);
			return 1;
		}
		if (r->eof) {
			if (r->end_rc < 0)
				snprintf(errbuf, errlen, "%s", r->end_msg);
			return r->end_rc;
		}
		struct frame g;
		int rc = input_read_record(r->in, &g, errbuf, errlen);
		if (rc == INPUT_AGAIN)
			return rc;
		if (rc != 1) {  /* the records held go out first, then the end or the error */
			r->eof = true;
			r->end_rc = rc < 0 ? -1 : 0;
			if (rc < 0)
				snprintf(r->end_msg, sizeof(r->end_msg), "%s", errbuf);
			continue;
		}
		if (hold(r, &g) < 0) {
			snprintf(errbuf, errlen, "%s: out of memory holding frames back to put them in time order", r->in->name);
			return -1;
		}
	}
}

bool reorder_wanted(struct input *in, const struct frame *f)
{
	if (in->file_order)
		return false;
	if (in->records_read > 1)
		return true;  /* an interface other than the first record's */
	in->first_iface = f->iface;
	const struct capstats *cs = input_capstats(in);
	return cs->format == CAPSTATS_PCAPNG && cs->n_names > 1;
}

int reorder_start(struct input *in, struct frame *f, char *errbuf, size_t errlen)
{
	struct input_reorder *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(errbuf, errlen, "%s: out of memory", in->name);
		return -1;
	}
	r->in = in;
	r->newest = INT64_MIN;
	const struct capstats *cs = input_capstats(in);
	for (uint32_t k = 0; k < cs->n_names && k < CAPSTATS_MAX_NAMES; k++)
		queue_of(r, cs->names[k].key);
	in->reorder = r;
	if (hold(r, f) < 0) {
		snprintf(errbuf, errlen, "%s: out of memory", in->name);
		return -1;
	}
	return reorder_next(r, f, errbuf, errlen);
}

void reorder_free(struct input_reorder *r)
{
	if (!r)
		return;
	free(r->out);
	for (uint32_t i = 0; i < r->n; i++)
		for (struct held *h = r->q[i].head, *next; h; h = next) {
			next = h->next;
			free(h);
		}
	free(r);
}
