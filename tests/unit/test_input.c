/* test_input.c: rocedump's capture input (analyzer/rocedump/input.c) against libpcap alone.
 *
 * input.c lets pcapread.c hand out the records of a plain pcap file and gives libpcap the rest
 * from the first record that reader does not take. Every file here is read both ways, by
 * input_next() and by pcap_next_ex() on a fresh libpcap handle, and the two must hand out the
 * same frames (bytes, lengths, time stamps) and end the same way (the end of the file, or the
 * same error message): valid files in both time stamp precisions, every cut of a file, records
 * longer than the snapshot length or than libpcap accepts, odd time stamps, another byte order,
 * an older version, pcapng, a filter, long records, and 1,500
 * pseudo-random files with lengths and time fields near the limits that matter. Each frame's
 * number is its record's place in the file, the filter's rejects counted (tshark's
 * frame.number): libpcap's side counts every record it reads and runs the filter itself. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"

#define MAX_FRAMES 4096

struct outcome {
	unsigned n;
	struct rec {
		uint32_t caplen, wirelen, ts_nsec;
		int64_t ts_sec;
		uint64_t sum;  /* of the bytes, position-weighted */
		uint64_t number;  /* the record's place in the file, from 1 */
	} f[MAX_FRAMES];
	int end;          /* 0: end of file, -1: error */
	char err[INPUT_ERRLEN];
};

static uint64_t weigh(const uint8_t *p, uint32_t n)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s = s * 1099511628211u + p[i] + 1;
	return s;
}

static void keep(struct outcome *o, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int64_t sec, uint32_t ns,
		 uint64_t number)
{
	cr_assert_lt(o->n, MAX_FRAMES);
	o->f[o->n++] = (struct rec){caplen, wirelen, ns, sec, weigh(data, caplen), number};
}

/* Through input.c; *direct: whether pcapread took the file at the start. */
static void read_input(const char *path, const char *filter, struct outcome *o, bool *direct)
{
	struct input in;
	struct frame f;
	char err[INPUT_ERRLEN];
	memset(o, 0, sizeof(*o));
	cr_assert_eq(input_open_file(&in, path, filter, err, sizeof(err)), 0, "%s", err);
	*direct = in.direct;
	int rc;
	while ((rc = input_next(&in, &f, err, sizeof(err))) == 1)
		keep(o, f.data, f.caplen, f.wirelen, f.ts_sec, f.ts_nsec, f.number);
	o->end = rc;
	if (rc < 0) {
		const char *msg = strstr(err, ": ");  /* "path: libpcap's message" */
		snprintf(o->err, sizeof(o->err), "%s", msg ? msg + 2 : err);
	}
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

static void same(const char *path, const char *filter, const char *what, bool want_direct)
{
	static struct outcome a, b;
	bool direct;
	read_input(path, filter, &a, &direct);
	read_libpcap(path, filter, &b);
	cr_assert_eq(direct, want_direct, "%s: the direct reader %s", what, direct ? "took the file" : "did not");
	cr_assert_eq(a.n, b.n, "%s: %u frames against libpcap's %u", what, a.n, b.n);
	for (unsigned i = 0; i < a.n; i++)
		cr_assert(a.f[i].caplen == b.f[i].caplen && a.f[i].wirelen == b.f[i].wirelen &&
			  a.f[i].ts_nsec == b.f[i].ts_nsec && a.f[i].ts_sec == b.f[i].ts_sec && a.f[i].sum == b.f[i].sum &&
			  a.f[i].number == b.f[i].number,
			  "%s: frame %u differs (number %llu/%llu, caplen %u/%u, len %u/%u, ts %lld.%09u/%lld.%09u)",
			  what, i + 1, (unsigned long long)a.f[i].number, (unsigned long long)b.f[i].number,
			  a.f[i].caplen, b.f[i].caplen, a.f[i].wirelen, b.f[i].wirelen, (long long)a.f[i].ts_sec,
			  a.f[i].ts_nsec, (long long)b.f[i].ts_sec, b.f[i].ts_nsec);
	cr_assert_eq(a.end, b.end, "%s: ends %d against libpcap's %d (%s / %s)", what, a.end, b.end, a.err, b.err);
	cr_assert_str_eq(a.err, b.err, "%s", what);
}

/* ---- making files ---- */

struct file {
	uint8_t *b;
	size_t len, cap;
};

static void put(struct file *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2;
		f->b = realloc(f->b, f->cap);
		cr_assert_not_null(f->b);
	}
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void put32(struct file *f, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	put(f, &v, 4);
}

static void put16(struct file *f, uint16_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap16(v);
	put(f, &v, 2);
}

static void header(struct file *f, uint32_t magic, uint16_t major, uint16_t minor, uint32_t snaplen, bool swap)
{
	put32(f, magic, swap);
	put16(f, major, swap);
	put16(f, minor, swap);
	put32(f, 0, swap);
	put32(f, 0, swap);
	put32(f, snaplen, swap);
	put32(f, 1, swap);  /* Ethernet */
}

/* A record of caplen bytes (an Ethernet/IPv4/UDP frame to port 4791 or 53 when long enough, so
 * that filters have something to match), wirelen on the wire. */
static void record(struct file *f, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t wirelen, unsigned seed,
		   bool swap)
{
	put32(f, sec, swap);
	put32(f, frac, swap);
	put32(f, caplen, swap);
	put32(f, wirelen, swap);
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

static char dir[] = "/tmp/rocedump-test-input-XXXXXX";
static bool dir_made;

static const char *save(const struct file *f, const char *name)
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

/* A file of n records of assorted lengths (0 to 1,600 bytes) and sane time stamps. */
static struct file ordinary(uint32_t magic, unsigned n, uint32_t snaplen)
{
	struct file f = {0};
	header(&f, magic, 2, 4, snaplen, false);
	for (unsigned i = 0; i < n; i++) {
		uint32_t caplen = (i * 97) % 1601;
		uint32_t frac = magic == 0xa1b23c4d ? (i * 123456789u) % 1000000000u : (i * 12345u) % 1000000u;
		record(&f, 1700000000u + i, frac, caplen, caplen + (i % 4) * 10, i, false);
	}
	return f;
}

/* The files the tests wrote (all in dir, no subdirectories), then dir. */
static void cleanup(void)
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

TestSuite(input, .fini = cleanup);

Test(input, ordinary_files_both_precisions)
{
	uint32_t magics[] = {0xa1b2c3d4, 0xa1b23c4d};
	for (unsigned m = 0; m < 2; m++) {
		struct file f = ordinary(magics[m], 200, 65535);
		same(save(&f, "ordinary.pcap"), NULL, m ? "nanoseconds" : "microseconds", true);
		free(f.b);
	}
}

Test(input, every_cut)
{
	struct file f = ordinary(0xa1b2c3d4, 8, 65535);
	for (size_t cut = 24; cut <= f.len; cut++) {
		struct file c = {.b = f.b, .len = cut, .cap = cut};
		char what[64];
		snprintf(what, sizeof(what), "cut at byte %zu of %zu", cut, f.len);
		same(save(&c, "cut.pcap"), NULL, what, true);
	}
	free(f.b);
}

Test(input, records_libpcap_treats_itself)
{
	/* each case: good records, the odd one, good records again */
	struct odd {
		const char *what;
		uint32_t snaplen, sec, frac, caplen;
		bool nsec;
	} cases[] = {
		{"longer than the snapshot length (libpcap cuts it)", 100, 1700000000u, 5, 300, false},
		{"longer than libpcap accepts", 0, 1700000000u, 5, 262145, false},
		{"exactly libpcap's limit", 262144, 1700000000u, 5, 262144, false},
		{"seconds past 2^31", 65535, 0x80000001u, 5, 60, false},
		{"a million microseconds", 65535, 1700000000u, 1000000, 60, false},
		{"4.3 s of microseconds", 65535, 1700000000u, 4300000, 60, false},
		{"a billion nanoseconds", 65535, 1700000000u, 1000000000u, 60, true},
		{"a fraction past 2^31", 65535, 1700000000u, 0x80000000u, 60, true},
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct odd *c = &cases[k];
		struct file f = {0};
		header(&f, c->nsec ? 0xa1b23c4d : 0xa1b2c3d4, 2, 4, c->snaplen, false);
		for (unsigned i = 0; i < 5; i++)
			record(&f, 1700000000u + i, i, 60 + i, 60 + i, i, false);
		record(&f, c->sec, c->frac, c->caplen, c->caplen, 99, false);
		for (unsigned i = 0; i < 5; i++)
			record(&f, 1700000100u + i, i, 70 + i, 70 + i, i + 7, false);
		const char *path = save(&f, "odd.pcap");
		same(path, NULL, c->what, true);
		/* a filter across the hand-over: the numbers go on from the direct reader's count */
		same(path, "len > 62 and len < 73", c->what, true);
		free(f.b);
	}
}

Test(input, files_left_to_libpcap)
{
	struct file f = {0};
	header(&f, 0xa1b2c3d4, 2, 4, 65535, true);  /* the other byte order */
	for (unsigned i = 0; i < 20; i++)
		record(&f, 1700000000u + i, i, 50 + i, 60 + i, i, true);
	same(save(&f, "swapped.pcap"), NULL, "another byte order", false);
	free(f.b);

	struct file g = {0};
	header(&g, 0xa1b2c3d4, 2, 3, 65535, false);  /* version 2.3: lengths may be swapped */
	for (unsigned i = 0; i < 20; i++)
		record(&g, 1700000000u + i, i, 80 - i, 60 + i, i, false);
	same(save(&g, "v23.pcap"), NULL, "version 2.3", false);
	free(g.b);
}

Test(input, pcapng_left_to_libpcap)
{
	struct file f = {0};
	put32(&f, 0x0a0d0d0a, false);  /* section header block */
	put32(&f, 28, false);
	put32(&f, 0x1a2b3c4d, false);
	put16(&f, 1, false);
	put16(&f, 0, false);
	put32(&f, 0xffffffff, false);
	put32(&f, 0xffffffff, false);
	put32(&f, 28, false);
	put32(&f, 1, false);  /* interface description block: Ethernet */
	put32(&f, 20, false);
	put16(&f, 1, false);
	put16(&f, 0, false);
	put32(&f, 65535, false);
	put32(&f, 20, false);
	for (unsigned i = 0; i < 10; i++) {  /* enhanced packet blocks */
		uint32_t caplen = 60 + i, padded = (caplen + 3) & ~3u;
		put32(&f, 6, false);
		put32(&f, 32 + padded, false);
		put32(&f, 0, false);
		put32(&f, 0, false);
		put32(&f, 1000000u * i + 17, false);
		put32(&f, caplen, false);
		put32(&f, caplen + 4, false);
		uint8_t b[80] = {0};
		for (uint32_t k = 0; k < caplen; k++)
			b[k] = (uint8_t)(i + k);
		put(&f, b, padded);
		put32(&f, 32 + padded, false);
	}
	const char *ng = save(&f, "ng.pcapng");
	same(ng, NULL, "pcapng", false);
	same(ng, "len > 40", "pcapng, filtered", false);
	free(f.b);
}

Test(input, filters)
{
	struct file f = ordinary(0xa1b2c3d4, 300, 65535);
	const char *path = save(&f, "filtered.pcap");
	same(path, "udp port 4791", "udp port 4791", true);
	same(path, "len > 1000", "len > 1000", true);
	same(path, "udp port 53 or greater 1500", "port 53 or long", true);
	free(f.b);
}

Test(input, long_records)
{
	/* ~5 MiB of records of up to 70,000 bytes (once read in 1 MiB windows, which they straddled) */
	struct file f = {0};
	header(&f, 0xa1b23c4d, 2, 4, 262144, false);
	unsigned i = 0;
	while (f.len < (5u << 20)) {
		uint32_t caplen = (i * 7919u) % 70001u;
		record(&f, 1700000000u + i, i * 1000u, caplen, caplen, i, false);
		i++;
	}
	cr_assert_lt(i, MAX_FRAMES);
	same(save(&f, "long.pcap"), NULL, "long records", true);
	/* and cut inside the last record */
	f.len -= 3;
	same(save(&f, "long-cut.pcap"), NULL, "long records, cut", true);
	free(f.b);
}

/* The process's resident pages of mapped files, in KiB (/proc/self/status RssFile). */
static long rss_file_kib(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	cr_assert_not_null(fp);
	char line[256];
	long kib = -1;
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, "RssFile:", 8) == 0) {
			kib = strtol(line + 8, NULL, 10);
			break;
		}
	fclose(fp);
	cr_assert_geq(kib, 0);
	return kib;
}

Test(input, kept_frames_valid_until_released)
{
	/* 80 MiB of 4,000-byte records, each with its own bytes. The pipeline keeps frames of the
	 * mapped file in place (input_frame_kept) and lets the pages behind its oldest frame in use go
	 * (input_release): the last KEPT frames read must hold their bytes while the reading moves
	 * on, the pages behind them must go (the file's resident pages stay far below its size), and
	 * a frame libpcap reads (after the reader hands over) is not kept. */
	enum { KEPT = 600, CAP = 4000 };
	struct file f = {0};
	header(&f, 0xa1b2c3d4, 2, 4, 65535, false);
	unsigned n = 0;
	while (f.len < (80u << 20)) {
		record(&f, 1700000000u + n, n % 1000000u, CAP, CAP, n, false);
		n++;
	}
	record(&f, 1800000000u, 1000000u, 100, 100, n, false);  /* a fraction of a second too large:
								 * libpcap reads on from here */
	const char *path = save(&f, "kept.pcap");
	free(f.b);

	struct input in;
	char err[INPUT_ERRLEN];
	cr_assert_eq(input_open_file(&in, path, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert(in.direct);
	static struct frame ring[KEPT];
	static uint64_t sums[KEPT];
	long rss_before = rss_file_kib(), rss_max = 0;
	unsigned got = 0;
	struct frame fr;
	int rc;
	while ((rc = input_next(&in, &fr, err, sizeof(err))) == 1 && got < n) {
		cr_assert(input_frame_kept(&in), "frame %u", got + 1);
		ring[got % KEPT] = fr;
		sums[got % KEPT] = weigh(fr.data, fr.caplen);
		got++;
		if (got >= KEPT) {  /* the oldest frame still in use, and its bytes */
			const struct frame *oldest = &ring[got % KEPT];
			input_release(&in, oldest);
			cr_assert_eq(weigh(oldest->data, oldest->caplen), sums[got % KEPT], "frame %u moved",
				     got - KEPT + 1);
		}
		if (got % 1000 == 0) {
			long rss = rss_file_kib() - rss_before;
			rss_max = rss > rss_max ? rss : rss_max;
		}
	}
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_eq(got, n);
	cr_assert_not(input_frame_kept(&in), "the record past the reader's limits comes from libpcap");
	cr_assert_eq(fr.ts_sec, 1800000001);
	for (unsigned k = 0; k < KEPT; k++)
		cr_assert_eq(weigh(ring[k].data, ring[k].caplen), sums[k], "a kept frame moved");
	/* at most the frames in use and two release steps resident, of 80 MiB */
	_Static_assert(PCAPREAD_RELEASE_STEP <= (16u << 20), "the bound below");
	cr_assert_lt(rss_max, (long)(KEPT * CAP + 2 * (16 << 20) + (4 << 20)) / 1024,
		     "%ld KiB of the file resident", rss_max);
	cr_assert_eq(input_next(&in, &fr, err, sizeof(err)), 0);
	input_close(&in);
}

/* xorshift64*: deterministic pseudo-random numbers */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

Test(input, random_files)
{
	/* 1,500 files of random records: lengths near the limits that matter (0, the snapshot
	 * length, 262,144), time fields near 2^31 and a second, random cuts and random garbage */
	static const uint32_t snaplens[] = {0, 64, 65535, 262144, 300000, 0x7fffffff};
	static const uint32_t lens[] = {0, 1, 15, 16, 63, 64, 65, 1514, 65535, 65536, 262143, 262144, 262145};
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (unsigned t = 0; t < 1500; t++) {
		struct file f = {0};
		bool nsec = rnd(&seed) & 1;
		uint32_t snap = snaplens[rnd(&seed) % 6];
		header(&f, nsec ? 0xa1b23c4d : 0xa1b2c3d4, 2, 4, snap, false);
		unsigned n = (unsigned)(rnd(&seed) % 12);
		for (unsigned i = 0; i < n; i++) {
			uint64_t r = rnd(&seed);
			uint32_t caplen = r % 4 ? (uint32_t)(r >> 8) % 200 : lens[(r >> 8) % 13];
			if (caplen > 70000 && rnd(&seed) % 4)
				caplen = 100;  /* keep most files small */
			uint32_t sec = rnd(&seed) % 8 ? 1700000000u + i : 0x7ffffffeu + (uint32_t)(rnd(&seed) % 4);
			uint32_t lim = nsec ? 1000000000u : 1000000u;
			uint32_t frac = rnd(&seed) % 8 ? (uint32_t)(rnd(&seed) % lim) : lim - 1 + (uint32_t)(rnd(&seed) % 3);
			record(&f, sec, frac, caplen, caplen + (uint32_t)(rnd(&seed) % 3), i, false);
			if (rnd(&seed) % 16 == 0) {  /* a few bytes of garbage between records */
				uint8_t junk[7];
				for (unsigned k = 0; k < sizeof(junk); k++)
					junk[k] = (uint8_t)rnd(&seed);
				put(&f, junk, 1 + rnd(&seed) % sizeof(junk));
			}
		}
		if (f.len > 24 && rnd(&seed) % 3 == 0)
			f.len = 24 + (size_t)(rnd(&seed) % (f.len - 24));
		char what[64];
		snprintf(what, sizeof(what), "random file %u", t);
		same(save(&f, "random.pcap"), NULL, what, true);
		free(f.b);
	}
}
