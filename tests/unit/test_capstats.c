/* test_capstats.c: the pcapng drop-count scanner (analyzer/rocedump/input/capstats.c).
 *
 * Files are built here block by block in either byte order; each is fed whole, one byte at a
 * time and split at every offset, and must give the same counts every way. */
#include <criterion/criterion.h>
#include <string.h>

#include "input/capstats.h"

struct file {
	uint8_t b[8192];
	size_t n;
	bool big;  /* section byte order */
};

static void put32(struct file *f, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		f->b[f->n++] = (uint8_t)(f->big ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void put16(struct file *f, uint16_t v)
{
	f->b[f->n++] = (uint8_t)(f->big ? v >> 8 : v);
	f->b[f->n++] = (uint8_t)(f->big ? v : v >> 8);
}

static void put64(struct file *f, uint64_t v)
{
	if (f->big) {
		put32(f, (uint32_t)(v >> 32));
		put32(f, (uint32_t)v);
	} else {
		put32(f, (uint32_t)v);
		put32(f, (uint32_t)(v >> 32));
	}
}

/* A block with body bytes written by the caller between begin and end. */
static size_t begin(struct file *f, uint32_t type)
{
	size_t at = f->n;
	put32(f, type);
	put32(f, 0);  /* length, patched by end() */
	return at;
}

static void end(struct file *f, size_t at)
{
	uint32_t len = (uint32_t)(f->n - at + 4);
	size_t save = f->n;
	f->n = at + 4;
	put32(f, len);
	f->n = save;
	put32(f, len);
}

static void shb(struct file *f, bool big)
{
	f->big = big;
	size_t at = begin(f, 0x0A0D0D0A);
	put32(f, 0x1A2B3C4D);
	put16(f, 1);
	put16(f, 0);
	put64(f, UINT64_MAX);  /* section length unknown */
	end(f, at);
}

static void idb(struct file *f)
{
	size_t at = begin(f, 1);
	put16(f, 1);  /* Ethernet */
	put16(f, 0);
	put32(f, 262144);
	end(f, at);
}

static void epb(struct file *f, uint32_t if_id, uint32_t caplen)
{
	size_t at = begin(f, 6);
	put32(f, if_id);
	put32(f, 0);
	put32(f, 0);
	put32(f, caplen);
	put32(f, caplen);
	for (uint32_t i = 0; i < ((caplen + 3) & ~3u); i++)
		f->b[f->n++] = (uint8_t)i;
	end(f, at);
}

enum { NO = UINT64_MAX };
static void isb(struct file *f, uint32_t if_id, uint64_t recv, uint64_t if_drop, uint64_t os_drop, bool comment)
{
	size_t at = begin(f, 5);
	put32(f, if_id);
	put32(f, 1);
	put32(f, 2);
	if (comment) {  /* opt_comment, 5 bytes + 3 of padding, before the counts */
		put16(f, 1);
		put16(f, 5);
		memcpy(f->b + f->n, "hello\0\0", 8);
		f->n += 8;
	}
	const struct { uint16_t code; uint64_t v; } opts[] = {{4, recv}, {5, if_drop}, {7, os_drop}};
	for (unsigned i = 0; i < 3; i++) {
		if (opts[i].v == NO)
			continue;
		put16(f, opts[i].code);
		put16(f, 8);
		put64(f, opts[i].v);
	}
	put16(f, 0);
	put16(f, 0);
	end(f, at);
}

static bool same(struct capstats_totals a, struct capstats_totals b)
{
	return a.has_if_drop == b.has_if_drop && a.has_os_drop == b.has_os_drop && a.if_drop == b.if_drop &&
	       a.os_drop == b.os_drop;
}

/* s emptied for a new scan, what an earlier one kept (options, the packet queue) given back. */
static void reset(struct capstats *s)
{
	capstats_free(s);
	capstats_init(s);
}

/* Feed f whole, byte by byte, and split in two at every offset: all must agree with `whole`. */
static void feed_every_way(const struct file *f, struct capstats *whole)
{
	reset(whole);
	capstats_feed(whole, f->b, f->n);
	struct capstats_totals w = capstats_totals(whole);

	static struct capstats s;
	reset(&s);
	for (size_t i = 0; i < f->n; i++)
		capstats_feed(&s, f->b + i, 1);
	struct capstats_totals t = capstats_totals(&s);
	cr_assert(same(t, w), "byte by byte");
	cr_assert_eq(s.n_isb, whole->n_isb);
	for (size_t cut = 0; cut <= f->n; cut++) {
		reset(&s);
		capstats_feed(&s, f->b, cut);
		capstats_feed(&s, f->b + cut, f->n - cut);
		t = capstats_totals(&s);
		cr_assert(same(t, w), "split at %zu", cut);
		cr_assert_eq(s.n_isb, whole->n_isb, "split at %zu", cut);
		cr_assert_eq(s.format, whole->format);
	}
}

Test(capstats, classic_pcap_has_no_counts)
{
	static const uint8_t hdr[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0};
	static struct capstats s;
	reset(&s);
	capstats_feed(&s, hdr, sizeof(hdr));
	cr_assert_eq(s.format, CAPSTATS_PCAP);
	cr_assert(s.stopped);
	struct capstats_totals t = capstats_totals(&s);
	cr_assert(!t.has_if_drop && !t.has_os_drop);
	char line[160];
	capstats_describe(&s, line, sizeof(line));
	cr_assert_str_eq(line, "capture drops: not recorded (pcap files carry no drop counts)");
}

Test(capstats, little_endian_two_interfaces)
{
	static struct file f;
	static struct capstats s;
	f.n = 0;
	shb(&f, false);
	idb(&f);
	idb(&f);
	epb(&f, 0, 60);
	epb(&f, 1, 61);
	isb(&f, 0, 100, 3, 1, false);
	isb(&f, 1, 50, 4, NO, true);
	feed_every_way(&f, &s);
	cr_assert_eq(s.format, CAPSTATS_PCAPNG);
	cr_assert_eq(s.n_isb, 2);
	cr_assert_eq(s.n_ifaces, 2);
	struct capstats_totals t = capstats_totals(&s);
	cr_assert(t.has_if_drop && t.has_os_drop);
	cr_assert_eq(t.if_drop, 7);
	cr_assert_eq(t.os_drop, 1);
	cr_assert_eq(s.iface[1].recv, 50);
	s.complete = true;
	char line[160];
	capstats_describe(&s, line, sizeof(line));
	cr_assert_str_eq(line, "capture drops: 7 by the interface, 1 by the OS (pcapng statistics of 2 interfaces)");
}

Test(capstats, big_endian_later_statistics_supersede)
{
	static struct file f;
	static struct capstats s;
	f.n = 0;
	shb(&f, true);
	idb(&f);
	isb(&f, 0, 10, 1, NO, false);
	epb(&f, 0, 100);
	isb(&f, 0, 20, 0x100000002ull, NO, false);  /* cumulative: this one replaces the first */
	feed_every_way(&f, &s);
	struct capstats_totals t = capstats_totals(&s);
	cr_assert_eq(s.n_isb, 2);
	cr_assert_eq(t.if_drop, 0x100000002ull);
	cr_assert(!t.has_os_drop);
}

Test(capstats, sections_count_separately)
{
	static struct file f;
	static struct capstats s;
	f.n = 0;
	shb(&f, false);
	idb(&f);
	isb(&f, 0, 10, 2, NO, false);
	shb(&f, true);  /* a second section, other byte order: interface 0 is a new interface */
	idb(&f);
	isb(&f, 0, 10, 5, NO, false);
	feed_every_way(&f, &s);
	cr_assert_eq(s.section, 2);
	cr_assert_eq(s.n_ifaces, 2);
	cr_assert_eq(capstats_totals(&s).if_drop, 7);
}

Test(capstats, no_statistics_and_unfinished_files)
{
	static struct file f;
	static struct capstats s;
	f.n = 0;
	shb(&f, false);
	idb(&f);
	epb(&f, 0, 64);
	feed_every_way(&f, &s);
	char line[160];
	capstats_describe(&s, line, sizeof(line));
	cr_assert_str_eq(line, "capture drops: not known (the file was not read to its end)");
	s.complete = true;
	capstats_describe(&s, line, sizeof(line));
	cr_assert_str_eq(line, "capture drops: not recorded (no pcapng interface statistics with drop counts)");
}

Test(capstats, bad_lengths_stop_the_scan)
{
	static struct file f;
	static struct capstats s;
	f.n = 0;
	shb(&f, false);
	isb(&f, 0, 1, 1, NO, false);
	size_t good = f.n;
	isb(&f, 0, 9, 9, NO, false);
	f.b[good + 4] = 10;  /* a length that is not a multiple of 4 */
	isb(&f, 0, 9, 9, NO, false);
	feed_every_way(&f, &s);
	cr_assert(s.stopped);
	cr_assert_eq(s.n_isb, 1);
	cr_assert_eq(capstats_totals(&s).if_drop, 1);

	/* not pcap, not pcapng; and an SHB with a bad byte-order magic */
	reset(&s);
	capstats_feed(&s, (const uint8_t *)"GIF89a, not a capture", 21);
	cr_assert(s.stopped);
	cr_assert_eq(s.format, CAPSTATS_UNKNOWN);
	f.n = 0;
	shb(&f, false);
	f.b[8] = 0x55;
	reset(&s);
	capstats_feed(&s, f.b, f.n);
	cr_assert(s.stopped);
	cr_assert_eq(s.format, CAPSTATS_UNKNOWN);
}

Test(capstats, truncated_isb_and_options_running_past_the_block)
{
	static struct file f;
	static struct capstats s;
	f.n = 0;
	shb(&f, false);
	size_t at = begin(&f, 5);
	put32(&f, 0);
	put32(&f, 0);
	put32(&f, 0);
	put16(&f, 5);
	put16(&f, 8);
	put64(&f, 42);
	put16(&f, 7);
	put16(&f, 200);  /* claims more than the block holds: ignored, scan continues */
	end(&f, at);
	isb(&f, 1, 1, 1, 1, false);
	feed_every_way(&f, &s);
	cr_assert_eq(s.n_isb, 2);
	cr_assert_eq(capstats_totals(&s).if_drop, 43);
	cr_assert_eq(capstats_totals(&s).os_drop, 1);
	/* the file ends inside a block: what came before counts */
	reset(&s);
	capstats_feed(&s, f.b, f.n - 10);
	cr_assert_eq(s.n_isb, 1);
	cr_assert_eq(capstats_totals(&s).if_drop, 42);
}

Test(capstats, json_member)
{
	static struct capstats s;
	reset(&s);
	char buf[256] = "";
	FILE *mem = fmemopen(buf, sizeof(buf), "w");
	capstats_print_json(&s, mem);
	fclose(mem);
	cr_assert_str_eq(buf, "\"capture\":{\"format\":\"unknown\",\"if_drops\":null,\"os_drops\":null}");
}

/* Statistics of more interfaces than the scanner keeps: the drops are not known (rather than
 * the sum over the first CAPSTATS_MAX_IFACES). */
Test(capstats, too_many_interfaces)
{
	static struct file f;
	static struct capstats s;
	f.n = 0;
	shb(&f, false);
	for (uint32_t i = 0; i <= CAPSTATS_MAX_IFACES; i++)
		idb(&f);
	for (uint32_t i = 0; i <= CAPSTATS_MAX_IFACES; i++) {
		isb(&f, i, 10, 1, NO, false);
		cr_assert_lt(f.n, sizeof(f.b) - 128);
	}
	reset(&s);
	capstats_feed(&s, f.b, f.n);
	s.complete = true;
	cr_assert_eq(s.n_isb, CAPSTATS_MAX_IFACES + 1);
	cr_assert(s.too_many_ifaces);
	char line[160];
	capstats_describe(&s, line, sizeof(line));
	cr_assert_str_eq(line, "capture drops: not known (statistics of more than 64 interfaces)");
}
