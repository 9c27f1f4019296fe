/* merge.c: rocedump -r A -r B ...: several capture files read as one input, their frames handed
 * out merged in time order as mergecap (Wireshark's wiretap/merge.c) merges them.
 *
 * Each file is an input of its own (input.c: its window reader or libpcap, streaming, never
 * loaded whole). The merge holds each file's next record (its head) and hands out the earliest;
 * of equal time stamps the later file's, as mergecap does (its comparison keeps the last of
 * equal ones); a file whose own records go back in time is not sorted: its head takes its turn
 * as it comes, as in mergecap. A head stays valid while the other files are read (the window
 * reader keeps it until input_release(), libpcap until its own handle reads again); the frame
 * handed out is valid until the next call, as a frame libpcap reads (input_frame_kept() is
 * false: the pipeline copies it). The filter runs after the merge, so that a frame's number is
 * its place among all the files' records, as in the file mergecap writes.
 *
 * Interfaces: each file's get global numbers, in file order, as mergecap -I none numbers the
 * interface description blocks it writes: a classic pcap file is one interface, a pcapng file has
 * those its IDBs describe (numbered once every file's first record has been read; an IDB that
 * comes later gets the next number when its first frame comes). A frame's iface is its global
 * number's key (capstats_iface_key(0, number)): the core tells the files' capture points apart
 * (the same packet in two files is a copy) and -w writes each global interface once.
 *
 * rocedump -i A -i B ...: the inputs are live captures, one per interface, each a capture point
 * named after its interface (its global interface's if_name). An interface with no frame ready
 * cannot be waited on for ever: the earliest head goes out once every interface without one has
 * either shown a time stamp at or past it, or been found with nothing ready at a moment the
 * head lies LIVE_HOLD_MS behind. The kernel hands a frame over at most LIVE_TIMEOUT_MS after
 * it captured it (the ring block's timeout), so past that hold nothing earlier can still come.
 * Those moments are the system clock's, taken back to the capture's clock by the least
 * difference seen between a frame's time stamp and the system clock when it was read (which is
 * never less than the clocks' real offset: a hardware clock not set to the system's waits no
 * less). The heads wait in the kernel's rings, not copied: a busy interface beside a quiet one
 * needs ring room (-B) for about LIVE_HOLD_MS of its traffic. */
#include "input/merge.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input/input.h"
#include "input/pcapng.h"

#define MERGE_IFACES CAPSTATS_MAX_NAMES  /* global interfaces told apart; past them, the last one */
/* Live: how long after an interface's last frame could have been captured a head waits for it
 * (see above): the ring block's timeout, and as much again for the reader to come round. */
#define LIVE_HOLD_MS (2 * LIVE_TIMEOUT_MS)
#define LIVE_HOLD_NS ((int64_t)LIVE_HOLD_MS * 1000000)
/* Live: the longest input_wait() sleeps while a head waits for its turn by the clock. */
#define LIVE_HELD_WAIT_MS 10

struct merge_file {
	struct input in;
	struct frame head;              /* its next record, when have */
	bool have, done;
	uint32_t last_key, last_global; /* the last interface mapped (a frame's iface), 0: none */
	/* a classic pcap file's interface, described for -w: its link type, snapshot length,
	 * if_tsresol 9 (its frames' time stamps written in nanoseconds) and, as its if_name, the
	 * file's base name (the name its capture point goes by) */
	struct capstats_ifdesc desc;
	uint8_t desc_opts[8 + 4 + CAPSTATS_NAME_LEN];
	/* live: its newest time stamp read (INT64_MIN: none), and the system clock (ns) when it was
	 * last found with no frame ready (INT64_MIN: never) */
	int64_t newest_ns, quiet_at;
};

struct merge_iface {
	uint32_t file, key;             /* a file's interface (a frame's iface; 0: a pcap file's) */
};

struct input_merge {
	unsigned n;
	struct merge_file *files;
	uint64_t records;               /* records handed out or filtered out: the merged numbers */
	unsigned waiting;               /* the file whose head is not ready (INPUT_AGAIN) */
	bool numbered;                  /* the interfaces known once every head was read are numbered */
	uint32_t n_ifaces;
	struct merge_iface ifaces[MERGE_IFACES];  /* by global number */
	struct capstats stats;          /* merge_stats() */
	uint8_t *shb_opts;              /* the section header's options of -w (merge_shb_opts) */
	bool live;                      /* interfaces captured live (input_open_lives) */
	/* live: the least difference seen between the system clock when a frame was read and its
	 * time stamp (INT64_MAX: none read yet) */
	int64_t clock_off;
	/* live: what the sink thread's merge_wait_live polls, published by the reading thread (the
	 * heads are its own): bit i, interface i has no head and is not at its end; HEAD_HELD, a
	 * head waits for its turn */
	_Atomic uint32_t to_poll;
};

#define HEAD_HELD (UINT32_C(1) << 31)
_Static_assert(LIVE_DEVICES_MAX < 31, "an interface a bit of to_poll");

/* The global key of file's interface key (0: a classic pcap file's one), numbered when new. */
static uint32_t global_key(struct input_merge *m, uint32_t file, uint32_t key)
{
	struct merge_file *e = &m->files[file];
	if (e->last_global && e->last_key == key)
		return e->last_global;
	uint32_t g = 0;
	while (g < m->n_ifaces && (m->ifaces[g].file != file || m->ifaces[g].key != key))
		g++;
	if (g == m->n_ifaces) {
		if (g == MERGE_IFACES)
			g--;
		else
			m->ifaces[m->n_ifaces++] = (struct merge_iface){file, key};
	}
	e->last_key = key;
	return e->last_global = capstats_iface_key(0, g);
}

static bool is_pcapng(const struct merge_file *e)
{
	return input_capstats(&e->in)->format == CAPSTATS_PCAPNG;
}

/* Every interface known so far numbered, file after file, in the order their IDBs came. */
static void number_ifaces(struct input_merge *m)
{
	for (uint32_t i = 0; i < m->n; i++) {
		const struct capstats *cs = input_capstats(&m->files[i].in);
		if (!is_pcapng(&m->files[i]))
			global_key(m, i, 0);
		for (uint32_t k = 0; is_pcapng(&m->files[i]) && k < cs->n_names && k < CAPSTATS_MAX_NAMES; k++)
			global_key(m, i, cs->names[k].key);
	}
	m->numbered = true;
}

/* The description of global interface g: its IDB's, a classic pcap file's, or NULL. */
static const struct capstats_ifdesc *global_desc(const struct input_merge *m, uint32_t g)
{
	const struct merge_file *e = &m->files[m->ifaces[g].file];
	if (!is_pcapng(e))
		return &e->desc;
	return capstats_iface_desc(input_capstats(&e->in), m->ifaces[g].key);
}

/* The base name of path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* A classic pcap file's interface described (see struct merge_file). */
static void describe_pcap(struct merge_file *e)
{
	uint16_t code = PCAPNG_OPT_IF_TSRESOL, len = 1;
	memcpy(e->desc_opts, &code, 2);
	memcpy(e->desc_opts + 2, &len, 2);
	e->desc_opts[4] = 9;
	e->desc.linktype = (uint16_t)e->in.linktype;
	e->desc.snaplen = e->in.pcap ? (uint32_t)pcap_snapshot(e->in.pcap) : 0;
	snprintf(e->desc.name, sizeof(e->desc.name), "%s", base_name(e->in.name));
	capstats_plain_name(e->desc.name);
	uint16_t name_len = (uint16_t)strlen(e->desc.name);
	code = PCAPNG_OPT_IF_NAME;
	memcpy(e->desc_opts + 8, &code, 2);
	memcpy(e->desc_opts + 10, &name_len, 2);
	memcpy(e->desc_opts + 12, e->desc.name, name_len);
	uint32_t opts_len = 12 + ((name_len + 3u) & ~3u);
	e->desc.opts = (struct capstats_opts){e->desc_opts, opts_len};
}

/* Every file's head read, but for files at their end: 1, -1 on a read error (its message names
 * the file), INPUT_AGAIN when one is not ready. */
static int fill_heads(struct input_merge *m, char *errbuf, size_t errlen)
{
	for (unsigned i = 0; i < m->n; i++) {
		struct merge_file *e = &m->files[i];
		if (e->have || e->done)
			continue;
		input_release(&e->in, NULL);  /* its frame handed out last is no longer in use */
		int rc = input_next_record(&e->in, &e->head, errbuf, errlen);
		if (rc == INPUT_AGAIN) {
			m->waiting = i;
			return rc;
		}
		if (rc < 0)
			return rc;
		e->have = rc == 1;
		e->done = rc == 0;
	}
	if (!m->numbered)
		number_ifaces(m);
	return 1;
}

/* The file whose head comes first (see above), NULL when every file is at its end. */
static struct merge_file *earliest(struct input_merge *m)
{
	struct merge_file *best = NULL;
	for (unsigned i = 0; i < m->n; i++) {
		struct merge_file *e = &m->files[i];
		if (e->have && (!best || !frame_ts_before(&best->head, &e->head)))
			best = e;
	}
	return best;
}

/* Frame f of file e as the merged input has it: its global interface, described for -w. */
static void globalise(struct input_merge *m, struct merge_file *e, struct frame *f)
{
	f->file = (uint32_t)(e - m->files);
	f->iface = global_key(m, f->file, f->iface);
	if (!is_pcapng(e)) {
		int64_t ns = frame_ts_ns(f);
		f->ifdesc = &e->desc;
		f->ts_raw = ns < 0 ? 0 : (uint64_t)ns;
		f->opts = NULL;
		f->opts_len = 0;
	}
	f->iface_name = f->ifdesc ? f->ifdesc->name : "";
}

static void merge_stats(struct input_merge *m);

static int64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Live: every interface's head read that is ready; one with none is noted quiet (see above). 1,
 * or -1 on a read error. */
static int fill_live(struct input_merge *m, char *errbuf, size_t errlen)
{
	for (unsigned i = 0; i < m->n; i++) {
		struct merge_file *e = &m->files[i];
		if (e->have || e->done)
			continue;
		int rc = input_next_record(&e->in, &e->head, errbuf, errlen);
		int64_t now = realtime_ns();
		if (rc == INPUT_AGAIN) {
			e->quiet_at = now;
			continue;
		}
		if (rc < 0)
			return rc;
		e->have = rc == 1;
		e->done = rc == 0;
		int64_t t = frame_ts_ns(&e->head), off;
		if (!e->have)
			continue;
		if (t > e->newest_ns)
			e->newest_ns = t;
		if (!__builtin_sub_overflow(now, t, &off) && off < m->clock_off)
			m->clock_off = off;
	}
	return 1;
}

/* Live: whether no interface still to be read can have a frame before e's head (see above). */
static bool live_sure(const struct input_merge *m, const struct merge_file *e)
{
	int64_t t = frame_ts_ns(&e->head);
	for (unsigned i = 0; i < m->n; i++) {
		const struct merge_file *q = &m->files[i];
		if (q->have || q->done || q->newest_ns >= t)
			continue;
		int64_t seen;  /* the capture clock's time when it was found quiet, less the hold */
		if (m->clock_off == INT64_MAX || q->quiet_at == INT64_MIN ||
		    __builtin_sub_overflow(q->quiet_at, m->clock_off + LIVE_HOLD_NS, &seen) || seen < t)
			return false;
	}
	return true;
}

/* Whether a live interface is still being read (none at its end). */
static bool live_open_any(const struct input_merge *m)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!m->files[i].done)
			return true;
	return false;
}

/* The heads' state as merge_wait_live is to see it (on the reading thread). */
static void publish_heads(struct input_merge *m)
{
	uint32_t bits = 0;
	for (unsigned i = 0; i < m->n; i++) {
		const struct merge_file *e = &m->files[i];
		bits |= e->have ? HEAD_HELD : !e->done ? UINT32_C(1) << i : 0;
	}
	atomic_store_explicit(&m->to_poll, bits, memory_order_relaxed);
}

static int merge_next_frame(struct input_merge *m, struct frame *f, char *errbuf, size_t errlen)
{
	for (;;) {
		int rc = m->live ? fill_live(m, errbuf, errlen) : fill_heads(m, errbuf, errlen);
		if (rc != 1)
			return rc;
		struct merge_file *e = earliest(m);
		if (m->live && (e ? !live_sure(m, e) : live_open_any(m)))
			return INPUT_AGAIN;
		if (!e) {
			merge_stats(m);  /* every file read: the counts are complete */
			return 0;
		}
		e->have = false;
		*f = e->head;
		f->file_number = f->number;
		f->number = ++m->records;
		globalise(m, e, f);
		rc = input_filter(&e->in, f, errbuf, errlen);
		if (rc)
			return rc;
	}
}

int merge_next(struct input_merge *m, struct frame *f, char *errbuf, size_t errlen)
{
	int rc = merge_next_frame(m, f, errbuf, errlen);
	if (m->live)
		publish_heads(m);
	return rc;
}

struct input *merge_waiting(struct input_merge *m)
{
	return &m->files[m->waiting].in;
}

void merge_wait_live(struct input_merge *m, int timeout_ms, int wake_fd)
{
	struct pollfd pfd[LIVE_DEVICES_MAX + 1];
	nfds_t n = 0;
	uint32_t to_poll = atomic_load_explicit(&m->to_poll, memory_order_relaxed);
	bool held = to_poll & HEAD_HELD;
	for (unsigned i = 0; i < m->n; i++)
		if (to_poll & (UINT32_C(1) << i))
			pfd[n++] = (struct pollfd){.fd = pcap_get_selectable_fd(m->files[i].in.pcap), .events = POLLIN};
	if (wake_fd >= 0)
		pfd[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
	/* a head waits for its turn by the clock: look again soon */
	poll(pfd, n, held && timeout_ms > LIVE_HELD_WAIT_MS ? LIVE_HELD_WAIT_MS : timeout_ms);
}

void merge_update_live(struct input_merge *m, struct input *in)
{
	in->recv = in->drop = in->ifdrop = 0;
	for (unsigned i = 0; i < m->n; i++) {
		struct input *x = &m->files[i].in;
		input_update_stats(x);
		in->recv += x->recv;
		in->drop += x->drop;
		in->ifdrop += x->ifdrop;
	}
	merge_stats(m);
}

const struct input *merge_part(const struct input_merge *m, unsigned i)
{
	return i < m->n ? &m->files[i].in : NULL;
}

uint64_t merge_offset(const struct input_merge *m)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < m->n; i++)
		sum += input_offset(&m->files[i].in);
	return sum;
}

/* The files' counts under the global interface numbers: the statistics of each interface, the
 * description of each (its key the global one), complete when every file's are. */
static void merge_stats(struct input_merge *m)
{
	struct capstats *a = &m->stats;
	a->format = m->live ? CAPSTATS_LIVE : CAPSTATS_PCAP;
	a->complete = true;
	a->filtered = a->too_many_ifaces = false;
	a->n_isb = a->n_ifaces = 0;
	a->reorder_overflow = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct capstats *cs = input_capstats(&m->files[i].in);
		if (cs->format == CAPSTATS_PCAPNG)
			a->format = CAPSTATS_PCAPNG;
		a->complete &= cs->complete;
		a->filtered |= cs->filtered;
		a->too_many_ifaces |= cs->too_many_ifaces;
		a->n_isb += cs->n_isb;
		a->reorder_overflow += cs->reorder_overflow;
		for (uint32_t k = 0; k < cs->n_ifaces; k++) {
			if (a->n_ifaces == CAPSTATS_MAX_IFACES) {
				a->too_many_ifaces = true;
				break;
			}
			struct capstats_iface x = cs->iface[k];
			uint32_t key = is_pcapng(&m->files[i]) ? capstats_iface_key(x.section, x.if_id) : 0;
			x.if_id = capstats_iface_id(global_key(m, i, key));
			x.section = 0;
			a->iface[a->n_ifaces++] = x;
		}
	}
	a->n_names = 0;
	for (uint32_t g = 0; g < m->n_ifaces; g++) {
		const struct capstats_ifdesc *d = global_desc(m, g);
		struct capstats_ifdesc *x = &a->names[a->n_names++];
		*x = d ? *d : (struct capstats_ifdesc){0};
		x->key = capstats_iface_key(0, g);
	}
}

const struct capstats *merge_capstats(struct input_merge *m)
{
	return &m->stats;
}

/* Option list opts (machine order, no end-of-options) walked: the length of the option at p, 0
 * when it is not whole. */
static uint32_t option_len(const uint8_t *p, const uint8_t *end)
{
	if (end - p < 4)
		return 0;
	uint16_t len;
	memcpy(&len, p + 2, 2);
	uint32_t n = 4 + ((len + 3u) & ~3u);
	return n <= (size_t)(end - p) ? n : 0;
}

/* The section header options -w writes: the first file's, and the comments of the others' (as
 * mergecap keeps them). Out of memory: the first file's alone. */
static void merge_shb_opts(struct input_merge *m)
{
	const struct capstats_opts *first = &input_capstats(&m->files[0].in)->shb_opts;
	size_t total = first->len;
	for (unsigned i = 1; i < m->n; i++)
		total += input_capstats(&m->files[i].in)->shb_opts.len;
	m->stats.shb_opts = *first;
	m->shb_opts = total > first->len ? malloc(total) : NULL;
	if (!m->shb_opts)
		return;
	if (first->len)
		memcpy(m->shb_opts, first->bytes, first->len);
	uint32_t len = first->len;
	for (unsigned i = 1; i < m->n; i++) {
		const struct capstats_opts *o = &input_capstats(&m->files[i].in)->shb_opts;
		const uint8_t *end = o->bytes + o->len;
		uint32_t n;
		for (const uint8_t *p = o->bytes; o->len && (n = option_len(p, end)) != 0; p += n) {
			uint16_t code;
			memcpy(&code, p, 2);
			if (code == PCAPNG_OPT_COMMENT) {
				memcpy(m->shb_opts + len, p, n);
				len += n;
			}
		}
	}
	m->stats.shb_opts = (struct capstats_opts){m->shb_opts, len};
}

void merge_stopped_early(struct input_merge *m)
{
	for (unsigned i = 0; i < m->n; i++)
		input_stopped_early(&m->files[i].in);
	merge_stats(m);
}

void merge_close(struct input_merge *m)
{
	if (!m)
		return;
	for (unsigned i = 0; i < m->n; i++)
		input_close(&m->files[i].in);
	free(m->files);
	free(m->shb_opts);
	free(m);
}

/* in made a merge of n inputs (none open yet): its merge, or NULL with a message. */
static struct input_merge *new_merge(struct input *in, unsigned n, char *errbuf, size_t errlen)
{
	memset(in, 0, sizeof(*in));
	struct input_merge *m = calloc(1, sizeof(*m));
	if (!m || !(m->files = calloc(n, sizeof(*m->files)))) {
		free(m);
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	in->merge = m;
	capstats_init(&m->stats);
	in->nano = true;
	return m;
}

int input_open_lives(struct input *in, const struct live_config *cfg, const char *const *devices, unsigned n,
		     const char *filter, char *errbuf, size_t errlen)
{
	if (n < 2 || n > LIVE_DEVICES_MAX) {
		snprintf(errbuf, errlen, "%u interfaces: from 2 to %d are captured on at once", n, LIVE_DEVICES_MAX);
		return -1;
	}
	struct input_merge *m = new_merge(in, n, errbuf, errlen);
	if (!m)
		return -1;
	m->live = in->live = in->poll = true;
	m->clock_off = INT64_MAX;
	atomic_init(&m->to_poll, (UINT32_C(1) << n) - 1);  /* none read yet */
	for (unsigned i = 0; i < n; i++) {
		struct merge_file *e = &m->files[i];
		struct live_config c = *cfg;
		c.device = devices[i];
		if (input_open_live(&e->in, &c, filter, errbuf, errlen) < 0) {
			input_close(in);
			return -1;
		}
		m->n = i + 1;
		e->newest_ns = e->quiet_at = INT64_MIN;
		describe_pcap(e);
	}
	in->name = devices[0];
	in->linktype = m->files[0].in.linktype;
	number_ifaces(m);
	merge_stats(m);
	return 0;
}

int input_open_files(struct input *in, const char *const *paths, unsigned n, const char *filter, char *errbuf,
		     size_t errlen)
{
	if (n < 2 || n > INPUT_FILES_MAX) {
		memset(in, 0, sizeof(*in));
		snprintf(errbuf, errlen, "%u capture files: from 2 to %d are merged", n, INPUT_FILES_MAX);
		return -1;
	}
	struct input_merge *m = new_merge(in, n, errbuf, errlen);
	if (!m)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		struct merge_file *e = &m->files[i];
		if (input_open_file(&e->in, paths[i], filter, errbuf, errlen) < 0) {
			input_close(in);
			return -1;
		}
		m->n = i + 1;
		describe_pcap(e);
		in->poll |= e->in.poll;
		in->size += e->in.size;
	}
	in->name = paths[0];
	in->linktype = m->files[0].in.linktype;
	int rc = fill_heads(m, errbuf, errlen);  /* a file whose first record is bad fails here */
	if (rc < 0) {
		input_close(in);
		return -1;
	}
	merge_shb_opts(m);
	merge_stats(m);
	return 0;
}
