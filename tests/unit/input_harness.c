/* input_harness.c: the capture-input tests' two ways to read a file and their comparison, and
 * the making of test files (see input_harness.h). */
#define _GNU_SOURCE
#include "input_harness.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct outcome {
	unsigned n;
	struct rec {
		uint32_t caplen, wirelen, ts_nsec;
		int64_t ts_sec;
		uint64_t sum;  /* of the bytes, position-weighted */
		uint64_t number;  /* the record's place in the file, from 1 */
		uint32_t iface;   /* input.c's: capstats_iface_key(), 0 when not known */
		uint64_t name;    /* weigh() of its interface's name */
	} f[MAX_FRAMES];
	int end;          /* 0: end of file, -1: error */
	char err[INPUT_ERRLEN];
	char drops[512];  /* input.c's: capstats_describe() at the end */
};

uint64_t weigh(const uint8_t *p, uint32_t n)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s = s * 1099511628211u + p[i] + 1;
	return s;
}

static struct rec *keep(struct outcome *o, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int64_t sec,
			uint32_t ns, uint64_t number)
{
	cr_assert_lt(o->n, MAX_FRAMES);
	o->f[o->n] = (struct rec){caplen, wirelen, ns, sec, weigh(data, caplen), number, 0, 0};
	return &o->f[o->n++];
}

/* A claim of the file's bytes read ahead (input_claim_ahead) by a thread of its own, a little
 * later, as the pipeline's other thread would (pipeline.c). */
struct claim_job {
	const struct input *in;
	struct pcapread_claim *c;
	unsigned delay_us;
	pthread_t thread;
};

static void *read_claim_later(void *arg)
{
	struct claim_job *j = arg;
	usleep(j->delay_us);
	input_read_claim(j->in, j->c);
	return NULL;
}

#define MAX_CLAIM_JOBS 64

/* Through input.c, from path, or from standard input open on it (from_stdin); *direct: whether a
 * direct reader took the file at the start. With ahead, the file's next bytes are claimed after
 * every frame, as far as the reader lets them be, and read in by threads of their own, while the
 * records are taken from the bytes before (and wait for those a record needs). */
static void read_input(const char *path, const char *filter, struct outcome *o, bool *direct, bool from_stdin,
		       bool ahead)
{
	struct input in;
	struct frame f;
	char err[INPUT_ERRLEN];
	static struct claim_job jobs[MAX_CLAIM_JOBS];
	unsigned n_jobs = 0;
	memset(o, 0, sizeof(*o));
	if (from_stdin) {
		int fd = open(path, O_RDONLY);
		cr_assert_geq(fd, 0, "%s", path);
		cr_assert_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
		close(fd);
	}
	cr_assert_eq(input_open_file(&in, from_stdin ? "-" : path, filter, err, sizeof(err)), 0, "%s", err);
	in.file_order = true;  /* the reader's order, not time order (reorder.c) */
	*direct = in.direct;
	int rc;
	while ((rc = input_next(&in, &f, err, sizeof(err))) == 1) {
		struct rec *r = keep(o, f.data, f.caplen, f.wirelen, f.ts_sec, f.ts_nsec, f.number);
		r->iface = f.iface;
		r->name = weigh((const uint8_t *)f.iface_name, (uint32_t)strlen(f.iface_name));
		struct pcapread_claim *c;
		/* claims of one to four pieces, as the pipeline's batches size theirs (range_for) */
		while (ahead && n_jobs < MAX_CLAIM_JOBS &&
		       (c = input_claim_ahead(&in, PCAPREAD_PIECE * (1 + n_jobs % (PCAPREAD_CLAIM_BYTES / PCAPREAD_PIECE))))) {
			struct claim_job *j = &jobs[n_jobs];
			*j = (struct claim_job){&in, c, (n_jobs * 37u) % 300u};
			cr_assert_eq(pthread_create(&j->thread, NULL, read_claim_later, j), 0);
			n_jobs++;
		}
	}
	for (unsigned i = 0; i < n_jobs; i++)
		pthread_join(jobs[i].thread, NULL);
	o->end = rc;
	if (rc < 0) {
		const char *msg = strstr(err, ": ");  /* "path: libpcap's message" */
		snprintf(o->err, sizeof(o->err), "%s", msg ? msg + 2 : err);
	}
	capstats_describe(input_capstats(&in), o->drops, sizeof(o->drops));
	input_close(&in);
}

/* Through libpcap alone, time stamps as input.c turns them into seconds and nanoseconds; every
 * record counted, the filter run on each (as libpcap's own reader runs a filter it is given). */
static void read_libpcap(const char *path, const char *filter, struct outcome *o)
{
	char perr[PCAP_ERRBUF_SIZE];
	memset(o, 0, sizeof(*o));
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	cr_assert_not_null(p, "%s", perr);
	struct bpf_program prog = {0};
	if (filter)
		cr_assert_eq(pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN), 0);
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t number = 0;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		number++;
		if (filter && !pcap_offline_filter(&prog, h, data))
			continue;
		uint32_t ns = (uint32_t)h->ts.tv_usec;
		int64_t sec = h->ts.tv_sec;
		if (ns >= 1000000000u) {
			sec = (int64_t)((uint64_t)sec + ns / 1000000000u);
			ns %= 1000000000u;
		}
		keep(o, data, h->caplen, h->len, sec, ns, number);
	}
	pcap_freecode(&prog);
	o->end = rc == PCAP_ERROR_BREAK ? 0 : -1;
	if (o->end)
		snprintf(o->err, sizeof(o->err), "%s", pcap_geterr(p));
	pcap_close(p);
}

static void same_frames(const struct outcome *a, const struct outcome *b, const char *what, const char *way)
{
	cr_assert_eq(a->n, b->n, "%s: %u frames against %s's %u", what, a->n, way, b->n);
	for (unsigned i = 0; i < a->n; i++) {
		const struct rec *x = &a->f[i], *y = &b->f[i];
		cr_assert(x->caplen == y->caplen && x->wirelen == y->wirelen && x->ts_nsec == y->ts_nsec &&
			  x->ts_sec == y->ts_sec && x->sum == y->sum && x->number == y->number,
			  "%s: frame %u differs from %s's (number %llu/%llu, caplen %u/%u, len %u/%u, ts "
			  "%lld.%09u/%lld.%09u)",
			  what, i + 1, way, (unsigned long long)x->number, (unsigned long long)y->number, x->caplen,
			  y->caplen, x->wirelen, y->wirelen, (long long)x->ts_sec, x->ts_nsec, (long long)y->ts_sec,
			  y->ts_nsec);
	}
	cr_assert_eq(a->end, b->end, "%s: ends %d against %s's %d (%s / %s)", what, a->end, way, b->end, a->err,
		     b->err);
	cr_assert_str_eq(a->err, b->err, "%s (against %s)", what, way);
}

void same(const char *path, const char *filter, const char *what, bool want_direct)
{
	static struct outcome a, b, c;
	bool direct, direct_stdin;
	read_input(path, filter, &a, &direct, false, false);
	read_libpcap(path, filter, &b);
	cr_assert_eq(direct, want_direct, "%s: the direct reader %s", what, direct ? "took the file" : "did not");
	same_frames(&a, &b, what, "libpcap");
	read_input(path, filter, &c, &direct, false, true);
	same_frames(&c, &b, what, "libpcap (the file read ahead by other threads)");
	read_input(path, filter, &c, &direct_stdin, true, false);
	cr_assert_not(direct_stdin, "%s: standard input read directly", what);
	same_frames(&a, &c, what, "standard input");
	for (unsigned i = 0; i < a.n; i++)
		cr_assert(a.f[i].iface == c.f[i].iface && a.f[i].name == c.f[i].name,
			  "%s: frame %u: interface %u against %u from standard input (or its name)", what, i + 1,
			  a.f[i].iface, c.f[i].iface);
	cr_assert_str_eq(a.drops, c.drops, "%s: the capture's drop counts", what);
}

void put(struct file *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2;
		f->b = realloc(f->b, f->cap);
		cr_assert_not_null(f->b);
	}
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

void put32(struct file *f, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	put(f, &v, 4);
}

void put16(struct file *f, uint16_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap16(v);
	put(f, &v, 2);
}

static char dir[] = "/tmp/rocedump-test-input-XXXXXX";
static bool dir_made;

const char *save(const struct file *f, const char *name)
{
	static char path[512];
	if (!dir_made) {
		cr_assert_not_null(mkdtemp(dir));
		dir_made = true;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	cr_assert_eq(fwrite(f->b, 1, f->len, fp), f->len);
	cr_assert_eq(fclose(fp), 0);
	return path;
}

void cleanup(void)
{
	if (!dir_made)
		return;
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	for (struct dirent *e; (e = readdir(d));) {
		char path[600];
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		cr_assert_eq(unlink(path), 0, "%s", path);
	}
	closedir(d);
	cr_assert_eq(rmdir(dir), 0, "%s", dir);
}

uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

void put_frame(struct file *f, uint32_t caplen, unsigned seed)
{
	uint8_t *b = malloc(caplen ? caplen : 1);
	cr_assert_not_null(b);
	for (uint32_t i = 0; i < caplen; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7);
	static const uint8_t eth_ip_udp[] = {
		0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00,                          /* Ethernet */
		0x45, 0, 0, 60, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,     /* IPv4, UDP */
		0x12, 0x34, 0x12, 0xb7,                                                  /* ports: 4791 */
	};
	if (caplen >= sizeof(eth_ip_udp)) {
		memcpy(b, eth_ip_udp, sizeof(eth_ip_udp));
		if (seed % 3 == 0)
			b[sizeof(eth_ip_udp) - 1] = 53, b[sizeof(eth_ip_udp) - 2] = 0;  /* port 53 */
	}
	put(f, b, caplen);
	free(b);
}

void put_junk(struct file *f, unsigned max, uint64_t *seed)
{
	uint8_t junk[16];
	cr_assert(max >= 1 && max <= sizeof(junk));
	for (unsigned k = 0; k < max; k++)
		junk[k] = (uint8_t)rnd(seed);
	put(f, junk, 1 + rnd(seed) % max);
}

void cut_sometimes(struct file *f, size_t keep, uint64_t *seed)
{
	if (f->len > keep && rnd(seed) % 3 == 0)
		f->len = keep + (size_t)(rnd(seed) % (f->len - keep));
}
