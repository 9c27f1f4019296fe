/* test_input.c: rocedump's capture input (analyzer/rocedump/input/input.c) on classic pcap files,
 * against libpcap alone (input_harness.h: every file read both ways, and from standard input).
 *
 * input.c lets pcapread.c hand out the records of a plain pcap file and gives libpcap the rest
 * from the first record that reader does not take. Files here: valid files in both time stamp
 * precisions, every cut of a file, records longer than the snapshot length or than libpcap
 * accepts, odd time stamps, another byte order, an older version, a filter, long records, frames
 * kept in the window while the reading moves on (and past its ring), and 1,500 pseudo-random files with lengths and time
 * fields near the limits that matter. Each frame's number is its record's place in the file, the
 * filter's rejects counted (tshark's frame.number). pcapng: test_input_pcapng.c. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_harness.h"
#include "unit_util.h"

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

/* A record of caplen bytes (frame_bytes()), wirelen on the wire. */
static void record(struct file *f, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t wirelen, unsigned seed,
		   bool swap)
{
	put32(f, sec, swap);
	put32(f, frac, swap);
	put32(f, caplen, swap);
	put32(f, wirelen, swap);
	put_frame(f, caplen, seed);
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

Test(input, kept_frames_valid_until_released)
{
	/* 160 MiB of 4,000-byte records, each with its own bytes. The pipeline keeps frames in the
	 * window the file is read into (input_frame_kept) and lets the chunks behind its oldest frame
	 * in use go (input_release): the last KEPT frames read must hold their bytes while the
	 * reading moves on, the chunks behind them must go (the window's memory, anonymous, stays far
	 * below the file's size; with nothing let go, 160 MiB), and a frame libpcap reads
	 * (after the reader hands over) is not kept. The window is anonymous memory, so the test
	 * reads RssAnon, not RssFile (the page cache's pages, which the window does not map). */
	enum { KEPT = 600, CAP = 4000 };
	struct file f = {0};
	header(&f, 0xa1b2c3d4, 2, 4, 65535, false);
	unsigned n = 0;
	while (f.len < (160u << 20)) {
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
	long rss_before = u_status_kib("RssAnon"), rss_max = 0;  /* the window is anonymous memory */
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
			long rss = u_status_kib("RssAnon") - rss_before;
			rss_max = rss > rss_max ? rss : rss_max;
		}
	}
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_eq(got, n);
	cr_assert_not(input_frame_kept(&in), "the record past the reader's limits comes from libpcap");
	cr_assert_eq(fr.ts_sec, 1800000001);
	for (unsigned k = 0; k < KEPT; k++)
		cr_assert_eq(weigh(ring[k].data, ring[k].caplen), sums[k], "a kept frame moved");
	/* at most the ring and its margin resident, of 160 MiB (and under AddressSanitizer the
	 * shadow of every byte read, an eighth, which it keeps); and more than the frames in use, or
	 * this does not measure the window */
	long bound = (long)(PCAPREAD_RING + PCAPREAD_MARGIN) + (2L << 20);  /* and a huge page's alignment */
#if defined(__SANITIZE_ADDRESS__)
	bound += (160L << 20) / 8;
#endif
	cr_assert_lt(rss_max, bound / 1024, "%ld KiB of the file resident", rss_max);
	cr_assert_gt(rss_max, (long)(KEPT * CAP) / 1024, "the window's memory is measured (%ld KiB)", rss_max);
	cr_assert_eq(input_next(&in, &fr, err, sizeof(err)), 0);
	input_close(&in);
}

/* Frames kept, up to hold bytes of the file behind the next record (all of them: SIZE_MAX), while
 * a file of records of 0 to 9,000 bytes is read: each one's bytes stay what they were until it is
 * let go, and at the end for those still kept. Returns how many rings the reader outgrew. */
static unsigned keep_frames(const char *name, size_t file_bytes, size_t hold)
{
	struct file f = {0};
	header(&f, 0xa1b2c3d4, 2, 4, 65535, false);
	unsigned n = 0;
	uint64_t seed = 0x243f6a8885a308d3ull;
	while (f.len < file_bytes) {
		uint32_t caplen = (uint32_t)(rnd(&seed) % 9001);
		record(&f, 1700000000u + n, n % 1000000u, caplen, caplen, n, false);
		n++;
	}
	const char *path = save(&f, name);

	struct input in;
	char err[INPUT_ERRLEN];
	cr_assert_eq(input_open_file(&in, path, NULL, err, sizeof(err)), 0, "%s", err);
	struct frame *fr = calloc(n + 1, sizeof(*fr));
	uint64_t *sums = calloc(n + 1, sizeof(*sums));
	size_t *at = calloc(n + 1, sizeof(*at));
	cr_assert(fr && sums && at);
	unsigned got = 0, oldest = 0;
	while (got < n && (at[got] = input_next_offset(&in), input_next(&in, &fr[got], err, sizeof(err))) == 1) {
		cr_assert(input_frame_kept(&in), "frame %u", got + 1);
		sums[got] = weigh(f.b + at[got] + 16, fr[got].caplen);  /* the file's own bytes */
		cr_assert_eq(weigh(fr[got].data, fr[got].caplen), sums[got], "frame %u", got + 1);
		got++;
		while (hold != SIZE_MAX && input_next_offset(&in) - at[oldest] > hold) {
			cr_assert_eq(weigh(fr[oldest].data, fr[oldest].caplen), sums[oldest], "frame %u moved", oldest + 1);
			oldest++;
			input_release(&in, &fr[oldest]);
		}
	}
	cr_assert_eq(got, n, "%s", err);
	for (unsigned k = oldest; k < n; k++)
		cr_assert_eq(weigh(fr[k].data, fr[k].caplen), sums[k], "frame %u moved", k + 1);
	cr_assert_eq(input_next(&in, &fr[0], err, sizeof(err)), 0);
	unsigned outgrown = in.records.n_retired;
	input_close(&in);
	free(f.b);
	free(fr);
	free(sums);
	free(at);
	return outgrown;
}

Test(input, frames_kept_past_the_ring)
{
	/* A caller that keeps more of the file than the ring holds: the reader moves on into larger
	 * rings (twice as large each time), a record running over the point where it does (0-9,000 bytes, so at
	 * a different place each time), and every frame kept stays where it was */
	const size_t ring = PCAPREAD_RING;
	/* all of a file of 3.2 rings: the first ring, one twice as large from ~1 ring on (to ~3),
	 * and one four times as large */
	cr_assert_eq(keep_frames("keep-all.pcap", ring * 16 / 5, SIZE_MAX), 2);
	/* keeping 1.25 rings behind the reading: one larger ring, then no more, over 7.5 rings */
	cr_assert_eq(keep_frames("keep-more.pcap", ring * 15 / 2, ring * 5 / 4), 1);
	/* keeping less than a ring: the ring read over lap after lap, never outgrown */
	cr_assert_eq(keep_frames("keep-less.pcap", ring * 15 / 2, ring - 3 * PCAPREAD_PIECE), 0);
}

Test(input, read_ahead)
{
	/* 5.6 MiB of records of 0 to 2,900 bytes, so that the bytes claimed ahead (1 MiB at a time,
	 * up to 4 MiB past the next record) are many claims, waited for and read out of order by
	 * other threads (same() reads the file that way too); then the file cut in the middle of a
	 * claim, and at a record's end */
	struct file f = {0};
	header(&f, 0xa1b23c4d, 2, 4, 65535, false);
	for (unsigned i = 0; f.len < (5u << 20) + (600u << 10); i++)
		record(&f, 1700000000u + i, i * 7919u % 1000000000u, (i * 1237u) % 2901u, 3000, i, false);
	same(save(&f, "ahead.pcap"), NULL, "read ahead", true);
	struct file c = {.b = f.b, .len = (3u << 20) + 12345, .cap = f.len};
	same(save(&c, "ahead-cut.pcap"), NULL, "read ahead, cut", true);
	free(f.b);
}

Test(input, read_ahead_past_a_cut)
{
	/* The file cut shorter after it was opened: the bytes claimed past the new end cannot be read
	 * (input_read_claim), and the record that needs them ends the reading with the message a
	 * read of the reader's own gives, not with the end of the file or stale bytes */
	struct file f = {0};
	header(&f, 0xa1b2c3d4, 2, 4, 65535, false);
	unsigned n = 0;
	while (f.len < (6u << 20))
		record(&f, 1700000000u + n, 0, 1400, 1400, n, false), n++;
	const char *path = save(&f, "ahead-shrinks.pcap");
	char err[INPUT_ERRLEN];
	struct input in;
	struct frame fr;
	cr_assert_eq(input_open_file(&in, path, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(input_next(&in, &fr, err, sizeof(err)), 1, "%s", err);
	cr_assert_eq(truncate(path, 2u << 20), 0);
	unsigned got = 1, claims = 0;
	int rc;
	struct pcapread_claim *c;
	cr_assert_null(input_claim_ahead(&in, PCAPREAD_PIECE - 1), "less than a piece: nothing claimed");
	c = input_claim_ahead(&in, 3 * PCAPREAD_PIECE + 100);
	cr_assert(c && c->n == 3 * PCAPREAD_PIECE, "a claim is of whole pieces");
	input_read_claim(&in, c);
	claims++;
	while ((c = input_claim_ahead(&in, PCAPREAD_CLAIM_BYTES))) {  /* read in at once: the ones past 2 MiB fail */
		input_read_claim(&in, c);
		claims++;
	}
	while ((rc = input_next(&in, &fr, err, sizeof(err))) == 1) {
		cr_assert_eq(weigh(fr.data, fr.caplen), weigh(f.b + 24 + (size_t)got * 1416 + 16, 1400), "frame %u", got + 1);
		got++;
	}
	cr_assert_geq(claims, 3);
	cr_assert_eq(rc, -1, "the reading ends with an error, not the end (%u frames)", got);
	cr_assert(strstr(err, "part of the file could not be read"), "%s", err);
	cr_assert_lt(got, n);
	input_close(&in);
	free(f.b);
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
			if (rnd(&seed) % 16 == 0)  /* a few bytes of garbage between records */
				put_junk(&f, 7, &seed);
		}
		cut_sometimes(&f, 24, &seed);
		char what[64];
		snprintf(what, sizeof(what), "random file %u", t);
		same(save(&f, "random.pcap"), NULL, what, true);
		free(f.b);
	}
}
