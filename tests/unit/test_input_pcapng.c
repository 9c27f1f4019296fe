/* test_input_pcapng.c: rocedump's capture input (analyzer/rocedump/input/input.c) on pcapng files,
 * against libpcap alone and against input.c reading them from standard input
 * (input_harness.h).
 *
 * input.c lets pcapngread.c hand out the packet blocks of a pcapng file's first section, and at
 * the first block that reader does not take opens libpcap on the section's header and interface
 * blocks followed by the file from that block on. Files here: two interfaces with names, time
 * stamp resolutions and offsets, statistics and other blocks between the packets, Simple Packet
 * Blocks; every cut of a file; each block the reader leaves to libpcap (an obsolete Packet
 * Block, later sections, interfaces libpcap refuses or whose time stamps it converts in ways
 * this reader does not follow, malformed blocks and options, packets too long or on no
 * interface, more interfaces than the reader follows, blocks longer than its ring's margin)
 * between good ones, with and without a
 * filter; another byte order; and 1,000 pseudo-random files of such blocks. The frames'
 * interfaces and names and the capture's drop counts must be those that input.c finds reading
 * the file through libpcap and its scanner alone (from standard input). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_harness.h"
#include "input/pcapng.h"
#include "input/reorder.h"

TestSuite(input_pcapng, .fini = cleanup);

/* ---- making pcapng files (in the byte order `swap` says) ---- */

static bool swap;

static size_t block_begin(struct file *f, uint32_t type)
{
	size_t at = f->len;
	put32(f, type, swap);
	put32(f, 0, swap);  /* its length, once known */
	return at;
}

static void pad4(struct file *f)
{
	static const uint8_t zero[4];
	put(f, zero, (4 - f->len % 4) % 4);
}

/* The block's length written at both its ends. */
static void block_end(struct file *f, size_t at)
{
	pad4(f);
	uint32_t n = (uint32_t)(f->len - at + 4), v = swap ? __builtin_bswap32(n) : n;
	memcpy(f->b + at + 4, &v, 4);
	put32(f, n, swap);
}

static void option(struct file *f, uint16_t code, const void *value, uint16_t len)
{
	put16(f, code, swap);
	put16(f, len, swap);
	put(f, value, len);
	pad4(f);
}

static void end_of_options(struct file *f)
{
	put32(f, 0, swap);
}

static void shb(struct file *f)
{
	size_t at = block_begin(f, PCAPNG_BT_SHB);
	put32(f, PCAPNG_BYTE_ORDER_MAGIC, swap);
	put16(f, 1, swap);
	put16(f, 0, swap);
	put32(f, 0xffffffffu, swap);  /* section length: not given */
	put32(f, 0xffffffffu, swap);
	option(f, PCAPNG_OPT_SHB_USERAPPL, "test_input_pcapng", 17);
	end_of_options(f);
	block_end(f, at);
}

/* An interface; tsresol < 0: no if_tsresol option; tsoffset written when has_offset. */
static void idb(struct file *f, uint16_t linktype, uint32_t snaplen, const char *name, int tsresol, bool has_offset,
		int64_t tsoffset)
{
	size_t at = block_begin(f, PCAPNG_BT_IDB);
	put16(f, linktype, swap);
	put16(f, 0, swap);
	put32(f, snaplen, swap);
	if (name)
		option(f, PCAPNG_OPT_IF_NAME, name, (uint16_t)strlen(name));
	if (tsresol >= 0) {
		uint8_t r = (uint8_t)tsresol;
		option(f, PCAPNG_OPT_IF_TSRESOL, &r, 1);
	}
	if (has_offset) {
		uint64_t v = swap ? __builtin_bswap64((uint64_t)tsoffset) : (uint64_t)tsoffset;
		option(f, PCAPNG_OPT_IF_TSOFFSET, &v, 8);
	}
	end_of_options(f);
	block_end(f, at);
}

static void epb(struct file *f, uint32_t if_id, uint64_t t, uint32_t caplen, uint32_t wirelen, unsigned seed)
{
	size_t at = block_begin(f, PCAPNG_BT_EPB);
	put32(f, if_id, swap);
	put32(f, (uint32_t)(t >> 32), swap);
	put32(f, (uint32_t)t, swap);
	put32(f, caplen, swap);
	put32(f, wirelen, swap);
	put_frame(f, caplen, seed);
	if (seed % 5 == 0) {  /* a comment, as rocedump -w writes them */
		pad4(f);
		option(f, PCAPNG_OPT_COMMENT, "a comment", 9);
		end_of_options(f);
	}
	block_end(f, at);
}

/* A Simple Packet Block: datalen bytes held, wirelen on the wire. */
static void spb(struct file *f, uint32_t wirelen, uint32_t datalen, unsigned seed)
{
	size_t at = block_begin(f, PCAPNG_BT_SPB);
	put32(f, wirelen, swap);
	put_frame(f, datalen, seed);
	block_end(f, at);
}

static void obsolete_pb(struct file *f, uint16_t if_id, uint64_t t, uint32_t caplen, unsigned seed)
{
	size_t at = block_begin(f, PCAPNG_BT_PB);
	put16(f, if_id, swap);
	put16(f, 0, swap);  /* drops */
	put32(f, (uint32_t)(t >> 32), swap);
	put32(f, (uint32_t)t, swap);
	put32(f, caplen, swap);
	put32(f, caplen, swap);
	put_frame(f, caplen, seed);
	block_end(f, at);
}

static void isb(struct file *f, uint32_t if_id, uint64_t ifdrop, uint64_t osdrop)
{
	size_t at = block_begin(f, PCAPNG_BT_ISB);
	put32(f, if_id, swap);
	put32(f, 0, swap);
	put32(f, 0, swap);
	uint64_t v = swap ? __builtin_bswap64(ifdrop) : ifdrop;
	option(f, PCAPNG_OPT_ISB_IFDROP, &v, 8);
	v = swap ? __builtin_bswap64(osdrop) : osdrop;
	option(f, PCAPNG_OPT_ISB_OSDROP, &v, 8);
	end_of_options(f);
	block_end(f, at);
}

/* A block of another type (a name resolution block, a custom block, ...) of n body bytes. */
static void other(struct file *f, uint32_t type, uint32_t n)
{
	size_t at = block_begin(f, type);
	uint8_t *b = calloc(1, n ? n : 1);
	cr_assert_not_null(b);
	put(f, b, n);
	free(b);
	block_end(f, at);
}

/* A section's start: its header, and interfaces 0 (mirror0: microseconds) and 1 (mirror1:
 * nanoseconds, 100 s before the time stamps say). */
static void section_start(struct file *f)
{
	shb(f);
	idb(f, 1, 65535, "mirror0", -1, false, 0);
	idb(f, 1, 65535, "mirror1", 9, true, -100);
}

/* n packets on interfaces 0 and 1 in turn, from seed on. */
static void packets(struct file *f, unsigned n, unsigned seed)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k = seed + i;
		uint32_t caplen = 60 + (k * 37) % 1400;
		uint64_t t = (k & 1) ? 1700000000000000000ull + k * 1234567ull : 1700000000000000ull + k * 1234ull;
		epb(f, k & 1, t, caplen, caplen + (k % 3) * 4, k);
	}
}

/* ---- the tests ---- */

Test(input_pcapng, ordinary_file)
{
	struct file f = {0};
	section_start(&f);
	other(&f, 4, 16);  /* a name resolution block */
	packets(&f, 150, 0);
	isb(&f, 0, 3, 1);
	other(&f, 0x40000bad, 24);  /* a custom block */
	spb(&f, 80, 80, 7);
	spb(&f, 90, 92, 8);
	packets(&f, 150, 150);
	isb(&f, 1, 5, 2);
	isb(&f, 0, 4, 1);  /* supersedes the first */
	const char *path = save(&f, "ordinary.pcapng");
	same(path, NULL, "ordinary", true);
	same(path, "udp port 4791", "filtered", true);
	same(path, "len > 1000", "filtered by length", true);
	free(f.b);

	/* the frames come from the window, with their interfaces' names */
	struct input in;
	struct frame fr;
	char err[INPUT_ERRLEN];
	cr_assert_eq(input_open_file(&in, path, NULL, err, sizeof(err)), 0, "%s", err);
	in.file_order = true;  /* the reader's order, not time order (reorder.c) */
	unsigned n = 0;
	while (input_next(&in, &fr, err, sizeof(err)) == 1) {
		cr_assert(input_frame_kept(&in), "frame %u", n + 1);
		bool simple = n == 150 || n == 151;  /* interface 0 */
		cr_assert_str_eq(fr.iface_name, !simple && n % 2 ? "mirror1" : "mirror0", "frame %u", n + 1);
		n++;
	}
	cr_assert_eq(n, 302);
	char drops[512];
	capstats_describe(input_capstats(&in), drops, sizeof(drops));
	cr_assert(strstr(drops, "9 by the interface, 3 by the OS"), "%s", drops);
	input_close(&in);
}

Test(input_pcapng, every_cut)
{
	struct file f = {0};
	shb(&f);
	idb(&f, 1, 65535, "mirror0", -1, false, 0);
	size_t opens = f.len;  /* libpcap opens no shorter file */
	idb(&f, 1, 65535, "mirror1", 9, true, 3);
	packets(&f, 3, 0);
	isb(&f, 0, 1, 2);
	spb(&f, 70, 72, 3);
	packets(&f, 2, 3);
	for (size_t cut = opens; cut <= f.len; cut++) {
		struct file c = {.b = f.b, .len = cut, .cap = cut};
		char what[64];
		snprintf(what, sizeof(what), "cut at byte %zu of %zu", cut, f.len);
		same(save(&c, "cut.pcapng"), NULL, what, true);
	}
	free(f.b);
}

/* The odd things of the next test, made between good packets. */
enum odd {
	ODD_PB, ODD_SECTION, ODD_SECTION_OTHER_TYPE, ODD_IDB_OTHER_TYPE, ODD_IDB_RAW_TYPE, ODD_IDB_OTHER_SNAPLEN,
	ODD_RES_MS, ODD_RES_BIN20, ODD_RES_PS, ODD_RES_BIN40, ODD_RES_BIN63, ODD_RES_BIN64, ODD_RES_20,
	ODD_RES_TWICE, ODD_RES_LEN2, ODD_OFFSET_LEN4, ODD_OFFSET_NEG, ODD_END_LEN, ODD_OPT_CUT, ODD_NO_IFACE,
	ODD_OVER_SNAPLEN, ODD_CAPLEN_PAST_BLOCK, ODD_TIME_MAX, ODD_LEN_NOT4, ODD_TRAILER, ODD_LEN_SHORT,
	ODD_SPB_LONG, ODD_SPB_SHORT, ODD_HUGE_BLOCK, ODD_EPB_SHORT, ODD_COUNT
};

static const char *const odd_names[ODD_COUNT] = {
	"an obsolete packet block", "a second section", "a second section of another link type",
	"an interface of another link type", "an interface of link type 101 (LINKTYPE_RAW)",
	"an interface of another snapshot length", "milliseconds", "2^-20 s", "picoseconds", "2^-40 s",
	"2^-63 s", "2^-64 s", "10^-20 s", "if_tsresol twice", "if_tsresol of 2 bytes", "if_tsoffset of 4 bytes",
	"a negative if_tsoffset", "opt_endofopt with a length", "an option past the block", "no such interface",
	"longer than the snapshot length", "a captured length past the block", "the largest time stamp",
	"a length not a multiple of 4", "a trailer that differs", "a length below 12",
	"a simple packet longer than the snapshot length", "a simple packet past its block",
	"a block of 17 MiB", "an enhanced packet block too short for its fields",
};

/* An interface whose options are given as bytes (malformed ones too). */
static void idb_raw_options(struct file *f, const uint8_t *opts, size_t n)
{
	size_t at = block_begin(f, PCAPNG_BT_IDB);
	put16(f, 1, swap);
	put16(f, 0, swap);
	put32(f, 65535, swap);
	put(f, opts, n);
	block_end(f, at);
}

static void make_odd(struct file *f, enum odd k)
{
	size_t at;
	switch (k) {
	case ODD_PB: obsolete_pb(f, 1, 1700000000123456ull, 70, 1); break;
	case ODD_SECTION: section_start(f); break;
	case ODD_SECTION_OTHER_TYPE:
		shb(f);
		idb(f, 101, 65535, "raw", -1, false, 0);
		break;
	case ODD_IDB_OTHER_TYPE: idb(f, 113, 65535, "sll", -1, false, 0); break;
	case ODD_IDB_RAW_TYPE: idb(f, 101, 65535, "raw", -1, false, 0); break;
	case ODD_IDB_OTHER_SNAPLEN: idb(f, 1, 128, "short", -1, false, 0); break;
	case ODD_RES_MS: idb(f, 1, 65535, "ms", 3, false, 0); break;
	case ODD_RES_BIN20: idb(f, 1, 65535, "bin20", 0x80 | 20, false, 0); break;
	case ODD_RES_PS: idb(f, 1, 65535, "ps", 12, false, 0); break;
	case ODD_RES_BIN40: idb(f, 1, 65535, "bin40", 0x80 | 40, false, 0); break;
	case ODD_RES_BIN63: idb(f, 1, 65535, "bin63", 0x80 | 63, false, 0); break;
	case ODD_RES_BIN64: idb(f, 1, 65535, "bin64", 0x80 | 64, false, 0); break;
	case ODD_RES_20: idb(f, 1, 65535, "res20", 20, false, 0); break;
	case ODD_RES_TWICE: {
		static const uint8_t o[] = {9, 0, 1, 0, 6, 0, 0, 0, 9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0};
		idb_raw_options(f, o, sizeof(o));
		break;
	}
	case ODD_RES_LEN2: {
		static const uint8_t o[] = {9, 0, 2, 0, 6, 0, 0, 0, 0, 0, 0, 0};
		idb_raw_options(f, o, sizeof(o));
		break;
	}
	case ODD_OFFSET_LEN4: {
		static const uint8_t o[] = {14, 0, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0};
		idb_raw_options(f, o, sizeof(o));
		break;
	}
	case ODD_OFFSET_NEG: idb(f, 1, 65535, "neg", 6, true, -1700000000LL - 5); break;
	case ODD_END_LEN: {
		static const uint8_t o[] = {0, 0, 4, 0, 0, 0, 0, 0};
		idb_raw_options(f, o, sizeof(o));
		break;
	}
	case ODD_OPT_CUT: {
		static const uint8_t o[] = {2, 0, 40, 0, 'e', 't', 'h', '0'};
		idb_raw_options(f, o, sizeof(o));
		break;
	}
	case ODD_NO_IFACE: epb(f, 7, 1700000000000000ull, 64, 64, 2); break;
	case ODD_OVER_SNAPLEN: epb(f, 0, 1700000000000000ull, 65536, 65536, 2); break;
	case ODD_CAPLEN_PAST_BLOCK:
		at = block_begin(f, PCAPNG_BT_EPB);
		put32(f, 0, swap);
		put32(f, 0, swap);
		put32(f, 0, swap);
		put32(f, 200, swap);  /* 200 bytes said, 64 there */
		put32(f, 200, swap);
		put_frame(f, 64, 2);
		block_end(f, at);
		break;
	case ODD_TIME_MAX:
		epb(f, 0, UINT64_MAX, 64, 64, 2);
		epb(f, 1, UINT64_MAX, 64, 64, 3);
		break;
	case ODD_LEN_NOT4:
		put32(f, PCAPNG_BT_EPB, swap);
		put32(f, 30, swap);
		break;
	case ODD_TRAILER:
		epb(f, 0, 1700000000000000ull, 64, 64, 2);
		f->b[f->len - 4] ^= 0x10;  /* this machine's order: the length's low byte */
		break;
	case ODD_LEN_SHORT:
		put32(f, PCAPNG_BT_EPB, swap);
		put32(f, 8, swap);
		break;
	case ODD_SPB_LONG: spb(f, 70000, 65535, 4); break;
	case ODD_SPB_SHORT: spb(f, 200, 64, 4); break;
	case ODD_HUGE_BLOCK: other(f, 0x40000bad, 17u << 20); break;
	case ODD_EPB_SHORT:
		at = block_begin(f, PCAPNG_BT_EPB);
		put32(f, 0, swap);
		put32(f, 0, swap);
		block_end(f, at);
		break;
	case ODD_COUNT: break;
	}
}

Test(input_pcapng, blocks_libpcap_treats_itself)
{
	for (unsigned k = 0; k < ODD_COUNT; k++) {
		if (k == ODD_IDB_OTHER_TYPE || k == ODD_IDB_RAW_TYPE)  /* libpcap refuses: mixed_link_types */
			continue;
		struct file f = {0};
		section_start(&f);
		packets(&f, 5, 0);
		make_odd(&f, (enum odd)k);
		if (k >= ODD_IDB_OTHER_TYPE && k <= ODD_OPT_CUT)  /* a packet on the interface it adds */
			epb(&f, 2, 1700000000000000000ull, 66, 66, 11);
		packets(&f, 5, 20);
		isb(&f, 0, 2, 1);
		const char *path = save(&f, "odd.pcapng");
		same(path, NULL, odd_names[k], true);
		same(path, "len > 62 and len < 73", odd_names[k], true);
		free(f.b);
	}
}

/* Every frame of path through input.c: its link types into lt[] (at most n), their count
 * returned; the end (input_next()'s last result) and its message into *end and err. */
static unsigned link_types_read(const char *path, const char *filter, unsigned *lt, unsigned n, int *end, char *err)
{
	struct input in;
	struct frame f;
	unsigned k = 0;
	err[0] = 0;
	cr_assert_eq(input_open_file(&in, path, filter, err, INPUT_ERRLEN), 0, "%s", err);
	in.file_order = true;  /* the reader's order, not time order (reorder.c) */
	while ((*end = input_next(&in, &f, err, INPUT_ERRLEN)) == 1)
		if (k < n)
			lt[k++] = f.linktype;
	input_close(&in);
	return k;
}

Test(input_pcapng, mixed_link_types)
{
	/* interfaces of several link types (dumpcap -i eth0 -i any), which libpcap refuses: the
	 * direct reader reads them to the end, each frame with its interface's link type, the filter
	 * compiled for each; a block it does not take after them is an error */
	static const uint16_t types[] = {113, 276, 101};
	for (unsigned k = 0; k < 3; k++) {
		struct file f = {0};
		section_start(&f);
		packets(&f, 5, 0);
		idb(&f, types[k], 65535, "any", 9, false, 0);
		epb(&f, 2, 1700000000000000000ull, 66, 66, 11);
		packets(&f, 5, 20);
		isb(&f, 0, 2, 1);
		const char *path = save(&f, "mixed.pcapng");
		unsigned lt[16], end;
		int rc;
		char err[INPUT_ERRLEN];
		cr_assert_eq(link_types_read(path, NULL, lt, 16, &rc, err), 11, "link type %u", types[k]);
		cr_assert_eq(rc, 0, "%s", err);
		for (unsigned i = 0; i < 11; i++)
			cr_assert_eq(lt[i], i == 5 ? types[k] : 1u, "link type %u, frame %u", types[k], i + 1);
		cr_assert_eq(link_types_read(path, "len > 59", lt, 16, &rc, err), 11, "%s", err);
		cr_assert_eq(rc, 0, "%s", err);
		obsolete_pb(&f, 0, 1, 70, 1);  /* libpcap's to read, after interfaces libpcap refuses */
		packets(&f, 2, 40);
		path = save(&f, "mixed.pcapng");
		end = link_types_read(path, NULL, lt, 16, &rc, err);
		cr_assert(end == 11 && rc == -1 && strstr(err, "several link types"), "%u frames, %d: %s", end, rc, err);
		free(f.b);
	}
}

Test(input_pcapng, blocks_longer_than_the_margin)
{
	/* the reader takes blocks of at most PCAPREAD_MARGIN bytes (a record lies whole in its ring's
	 * margin): at a longer one, a custom block or a packet with long comments, libpcap reads on */
	cr_assert_eq(PCAPREAD_MARGIN, (size_t)512 << 10, "the sizes below");
	for (unsigned k = 0; k < 2; k++) {
		struct file f = {0};
		section_start(&f);
		packets(&f, 5, 0);
		if (k == 0) {
			other(&f, 0x40000bad, 600u << 10);
		} else {
			size_t at = block_begin(&f, PCAPNG_BT_EPB);
			put32(&f, 0, swap);
			put32(&f, 0, swap);
			put32(&f, 1, swap);
			put32(&f, 80, swap);
			put32(&f, 80, swap);
			put_frame(&f, 80, 77);
			static char comment[60000];
			memset(comment, 'c', sizeof(comment));
			for (unsigned i = 0; i < 10; i++)
				option(&f, PCAPNG_OPT_COMMENT, comment, sizeof(comment));
			end_of_options(&f);
			block_end(&f, at);
		}
		packets(&f, 5, 20);
		const char *path = save(&f, "long-block.pcapng");
		same(path, NULL, k ? "a packet block longer than the margin" : "a custom block longer than the margin", true);
		free(f.b);
	}
}

Test(input_pcapng, frames_kept_past_the_ring)
{
	/* 3.2 rings' worth of packet blocks of 0 to 9,000 bytes, every frame kept: the reader moves into
	 * two larger rings, blocks running over the point where it does, and each frame's
	 * bytes are the file's to the end */
	struct file f = {0};
	section_start(&f);
	uint64_t seed = 0x13198a2e03707344ull;
	size_t cap = 1 << 14, n = 0;
	size_t *data_at = malloc(cap * sizeof(*data_at));
	uint32_t *lens = malloc(cap * sizeof(*lens));
	cr_assert(data_at && lens);
	while (f.len < PCAPREAD_RING * 16 / 5) {
		if (n == cap) {
			cap *= 2;
			size_t *more_at = realloc(data_at, cap * sizeof(*data_at));
			uint32_t *more_lens = realloc(lens, cap * sizeof(*lens));
			cr_assert(more_at && more_lens);
			data_at = more_at;
			lens = more_lens;
		}
		lens[n] = (uint32_t)(rnd(&seed) % 9001);
		data_at[n] = f.len + PCAPNG_BLOCK_HDR + PCAPNG_EPB_FIXED;
		epb(&f, 0, 1700000000000000ull + n, lens[n], lens[n], (unsigned)n * 5 + 1);  /* no comments */
		n++;
	}
	const char *path = save(&f, "keep-all.pcapng");
	struct input in;
	char err[INPUT_ERRLEN];
	cr_assert_eq(input_open_file(&in, path, NULL, err, sizeof(err)), 0, "%s", err);
	in.file_order = true;  /* the reader's order, not time order (reorder.c) */
	struct frame *fr = calloc(n + 1, sizeof(*fr));
	cr_assert_not_null(fr);
	size_t got = 0;
	while (got < n && input_next(&in, &fr[got], err, sizeof(err)) == 1) {
		cr_assert(input_frame_kept(&in), "frame %zu", got + 1);
		got++;
	}
	cr_assert_eq(got, n, "%s", err);
	cr_assert_eq(in.records.n_retired, 2, "two rings outgrown");
	for (size_t k = 0; k < n; k++) {
		cr_assert_eq(fr[k].caplen, lens[k]);
		cr_assert_eq(weigh(fr[k].data, lens[k]), weigh(f.b + data_at[k], lens[k]), "frame %zu", k + 1);
	}
	input_close(&in);
	free(fr);
	free(data_at);
	free(lens);
	free(f.b);
}

Test(input_pcapng, snapshot_shorter_than_simple_packets)
{
	/* libpcap cuts a simple packet to the snapshot length; its interface must still be told
	 * when libpcap reads it (the scanner queues the block's first bytes, more than libpcap
	 * hands out: a fuzzing find) */
	struct file f = {0};
	shb(&f);
	idb(&f, 1, 20, "short", -1, false, 0);
	for (unsigned i = 0; i < 6; i++) {
		spb(&f, 60 + i, 60 + i, i);
		epb(&f, 0, 1700000000000000ull + i, 20, 70 + i, i);
	}
	const char *path = save(&f, "snap20.pcapng");
	same(path, NULL, "a snapshot length of 20", true);
	swap = true;  /* libpcap reads all of it */
	struct file g = {0};
	shb(&g);
	idb(&g, 1, 20, "short", -1, false, 0);
	for (unsigned i = 0; i < 6; i++)
		spb(&g, 60 + i, 60 + i, i);
	same(save(&g, "snap20-swapped.pcapng"), NULL, "a snapshot length of 20, another byte order", false);
	swap = false;
	free(f.b);
	free(g.b);
}

Test(input_pcapng, more_interfaces_than_followed)
{
	/* 64 interfaces are followed; libpcap reads on from the 65th, whose packets it names
	 * through the scanner */
	struct file f = {0};
	shb(&f);
	for (unsigned i = 0; i < 70; i++) {
		char name[16];
		snprintf(name, sizeof(name), "if%u", i);
		idb(&f, 1, 65535, name, i % 2 ? 9 : -1, false, 0);
	}
	for (unsigned i = 0; i < 140; i++)
		epb(&f, i % 70, 1700000000000000ull + i, 60 + i, 60 + i, i);
	isb(&f, 69, 1, 1);
	same(save(&f, "ifaces.pcapng"), NULL, "70 interfaces", true);
	free(f.b);
}

Test(input_pcapng, other_byte_order_left_to_libpcap)
{
	swap = true;
	struct file f = {0};
	section_start(&f);
	packets(&f, 40, 0);
	isb(&f, 1, 7, 0);
	spb(&f, 70, 72, 3);
	packets(&f, 40, 40);
	const char *path = save(&f, "swapped.pcapng");
	same(path, NULL, "another byte order", false);
	same(path, "udp port 53", "another byte order, filtered", false);
	free(f.b);
	swap = false;
}

Test(input_pcapng, random_files)
{
	/* 1,000 files of random blocks: packets on interfaces that exist or not, of lengths near
	 * the snapshot length, simple packets, statistics and other blocks, interfaces with
	 * resolutions libpcap takes or refuses, later sections, obsolete packet blocks, garbage,
	 * random cuts */
	static const int resolutions[] = {-1, 0, 3, 6, 9, 12, 19, 20, 0x80 | 0, 0x80 | 10, 0x80 | 30, 0x80 | 31, 0x80 | 64};
	static const uint32_t snaplens[] = {0, 64, 1500, 65535, 262144, 300000};
	uint64_t seed = 0x2545f4914f6cdd1dull;
	for (unsigned t = 0; t < 1000; t++) {
		struct file f = {0};
		uint32_t snap = snaplens[rnd(&seed) % 6];
		shb(&f);
		idb(&f, 1, snap, "first", resolutions[rnd(&seed) % 7], rnd(&seed) % 4 == 0,
		    (int64_t)(rnd(&seed) % 4000) - 2000);
		unsigned n = (unsigned)(rnd(&seed) % 30), ifaces = 1;
		for (unsigned i = 0; i < n; i++) {
			uint64_t r = rnd(&seed);
			uint32_t caplen = (uint32_t)(r >> 16) % 200;
			if (r % 64 == 0)
				caplen = snap ? snap - 1 + (uint32_t)(r >> 40) % 3 : 65536;
			switch (r % 23) {
			case 0: isb(&f, (uint32_t)(r >> 8) % 3, r >> 40, r >> 50); break;
			case 1: other(&f, r & 0x100 ? 4 : 0x40000bad, (uint32_t)(r >> 20) % 64); break;
			case 2:
				idb(&f, 1, r & 0x400 ? snap : 100, "more", resolutions[(r >> 12) % 13],
				    r & 0x800, (int64_t)(r >> 30) % 1000);
				ifaces++;
				break;
			case 3: spb(&f, caplen + (uint32_t)(r >> 48) % 3, caplen, i); break;
			case 4:
				if (r & 0x100)
					obsolete_pb(&f, 0, r >> 8, caplen, i);
				else if (r & 0x200)
					section_start(&f);
				else
					put_junk(&f, 9, &seed);
				break;
			default:
				epb(&f, (uint32_t)(r >> 8) % (ifaces + (r % 16 == 0)), rnd(&seed) >> (r % 3 ? 8 : 0), caplen,
				    caplen + (uint32_t)(r >> 48) % 3, i);
				break;
			}
		}
		cut_sometimes(&f, 200, &seed);
		char what[64];
		snprintf(what, sizeof(what), "random file %u", t);
		same(save(&f, "random.pcapng"), NULL, what, true);
		free(f.b);
	}
}

/* A section of two interfaces named a and b (nanosecond time stamps) begun in f. */
static void two_ifaces(struct file *f, const char *a, const char *b)
{
	shb(f);
	idb(f, 1, 0, a, 9, false, 0);
	idb(f, 1, 0, b, 9, false, 0);
}

/* f saved as name (and freed), opened in in; its path. */
static const char *open_saved(struct file *f, const char *name, struct input *in)
{
	char err[INPUT_ERRLEN];
	const char *path = save(f, name);
	free(f->b);
	cr_assert_eq(input_open_file(in, path, NULL, err, sizeof(err)), 0, "%s", err);
	return path;
}

/* Two interfaces whose frames the file holds in alternating blocks, as dumpcap writes several
 * interfaces: input_next() hands them out in time order (reorder.c), each with its number in the
 * file, copied out of the window; the same file read in its own order gives them as written. */
Test(input_pcapng, interfaces_in_time_order)
{
	struct file f = {0};
	two_ifaces(&f, "brA", "brB");
	for (unsigned b = 0; b < 4; b++)  /* blocks of 50: interface 0's, then 1's; 1 us apart */
		for (unsigned i = 0; i < 100; i++) {
			unsigned k = b * 50 + i % 50, iface = i / 50;
			epb(&f, iface, 1700000000000000000ull + (uint64_t)k * 2000u + (uint64_t)iface * 1000u, 60, 60, k);
		}
	struct input in;
	struct frame fr;
	char err[INPUT_ERRLEN];
	const char *path = open_saved(&f, "blocks.pcapng", &in);
	unsigned n = 0;
	int64_t last = INT64_MIN;
	while (input_next(&in, &fr, err, sizeof(err)) == 1) {
		cr_assert_not(input_frame_kept(&in), "frame %u: a copy", n + 1);
		cr_assert_geq(frame_ts_ns(&fr), last, "frame %u in time order", n + 1);
		last = frame_ts_ns(&fr);
		unsigned k = n / 2, iface = n % 2;  /* k-th frame of that interface */
		cr_assert_eq(fr.number, (k / 50) * 100 + iface * 50 + k % 50 + 1, "frame %u: its number in the file", n + 1);
		cr_assert_str_eq(fr.iface_name, iface ? "brB" : "brA");
		n++;
	}
	cr_assert_eq(n, 400, "%s", err);
	cr_assert_eq(input_capstats(&in)->reorder_overflow, 0);
	input_close(&in);
	cr_assert_eq(input_open_file(&in, path, NULL, err, sizeof(err)), 0, "%s", err);
	in.file_order = true;
	for (n = 0; input_next(&in, &fr, err, sizeof(err)) == 1; n++)
		cr_assert_eq(fr.number, n + 1);
	cr_assert_eq(n, 400);
	input_close(&in);
}

/* An interface described and silent holds frames back for REORDER_LAG_NS at most; more frames
 * than the stage keeps go out in their order all the same, counted as reorder_overflow. */
Test(input_pcapng, reorder_bounded)
{
	struct file f = {0};
	two_ifaces(&f, "busy", "silent");
	const unsigned n_frames = REORDER_MAX_FRAMES + 1000;  /* 1 us apart: all within the lag */
	for (unsigned k = 0; k < n_frames; k++)
		epb(&f, 0, 1700000000000000000ull + (uint64_t)k * 1000u, 60, 60, k + 1);
	struct input in;
	struct frame fr;
	char err[INPUT_ERRLEN];
	open_saved(&f, "silent.pcapng", &in);
	unsigned n = 0;
	while (input_next(&in, &fr, err, sizeof(err)) == 1) {
		cr_assert_eq(fr.number, n + 1);
		n++;
	}
	cr_assert_eq(n, n_frames, "%s", err);
	uint64_t over = input_capstats(&in)->reorder_overflow;
	cr_assert(over > 0 && over <= 1000, "%" PRIu64 " frames past the bounds", over);
	input_close(&in);
}
