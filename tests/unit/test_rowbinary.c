/* test_rowbinary.c: --export's RowBinary rows (analyzer/rocedump/export/rowbinary.h, .c): numbers
 * little-endian in their width, lengths as LEB128 on either side of every seven-bit boundary, a
 * row that does not fit marked full with nothing written past its room, and a batch counted by
 * its table's layout: whole rows counted, a batch cut anywhere inside a row refused. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "export/rowbinary.h"
#include "export_schema.h"

Test(rowbinary, numbers_little_endian_in_their_width)
{
	unsigned char buf[64];
	struct rb w = {.p = buf, .end = buf + sizeof(buf)};
	rb_u8(&w, 0xab);
	rb_u16(&w, 0x1234);
	rb_i16(&w, -1);
	rb_u32(&w, 0x89abcdefu);
	rb_u64(&w, 0x0102030405060708ull);
	rb_i64(&w, -2);
	const unsigned char want[] = {0xab, 0x34, 0x12, 0xff, 0xff, 0xef, 0xcd, 0xab, 0x89, 8, 7, 6, 5, 4, 3, 2, 1,
				      0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	cr_assert_not(w.full);
	cr_assert_eq((size_t)(w.p - buf), sizeof(want));
	cr_assert_arr_eq(buf, want, sizeof(want));
}

/* The LEB128 of v decoded back, and its byte count. */
static uint64_t leb128(const unsigned char *p, size_t *n)
{
	uint64_t v = 0;
	*n = 0;
	do
		v |= (uint64_t)(p[*n] & 0x7f) << (7 * *n);
	while (p[(*n)++] & 0x80);
	return v;
}

Test(rowbinary, lengths_at_every_seven_bit_boundary)
{
	for (unsigned bits = 0; bits <= 64; bits += 7) {
		uint64_t at = bits == 0 ? 0 : bits >= 64 ? UINT64_MAX : (uint64_t)1 << bits;
		uint64_t vals[] = {at, at - 1, at + 1};
		for (unsigned i = 0; i < 3; i++) {
			unsigned char buf[16];
			struct rb w = {.p = buf, .end = buf + sizeof(buf)};
			rb_varint(&w, vals[i]);
			size_t n;
			cr_assert_eq(leb128(buf, &n), vals[i], "%llu", (unsigned long long)vals[i]);
			cr_assert_eq(n, (size_t)(w.p - buf));
			unsigned need = 1;
			for (uint64_t v = vals[i]; v >= 0x80; v >>= 7)
				need++;
			cr_assert_eq(n, need, "%llu: %zu bytes", (unsigned long long)vals[i], n);
		}
	}
}

Test(rowbinary, a_row_too_long_is_full_and_writes_nothing_past_its_room)
{
	unsigned char buf[32];
	memset(buf, 0xee, sizeof(buf));
	struct rb w = {.p = buf, .end = buf + 8};
	rb_str(&w, "abc");
	rb_str(&w, "too long");  /* 9 bytes with its length: refused */
	rb_u8(&w, 1);             /* and everything after it */
	cr_assert(w.full);
	cr_assert_eq(memcmp(buf, "\x03" "abc", 4), 0);
	for (size_t i = 8; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 0xee);
}

/* A captures row (layout "4488ssss888s") with a source of n bytes. */
static size_t captures_row(unsigned char *buf, size_t cap, size_t n)
{
	static char source[300];
	memset(source, 'f', sizeof(source));
	struct rb w = {.p = buf, .end = buf + cap};
	rb_u32(&w, 1);
	rb_u32(&w, 2);
	rb_u64(&w, 3);
	rb_u64(&w, 4);
	rb_str(&w, "box");
	rb_str(&w, "run");
	rb_str(&w, "run:0000000001");
	rb_strn(&w, source, n);
	rb_u64(&w, 5);
	rb_u64(&w, 6);
	rb_u64(&w, 7);
	rb_str(&w, "0.1.0");
	cr_assert_not(w.full);
	return (size_t)(w.p - buf);
}

static const char *layout_of(const char *table)
{
	for (unsigned t = 0; t < EXPORT_TABLES; t++)
		if (strcmp(export_tables[t].name, table) == 0)
			return export_tables[t].layout;
	cr_assert_fail("no table %s", table);
	return NULL;
}

Test(rowbinary, a_batch_counted_by_its_layout_and_refused_when_cut)
{
	const char *layout = layout_of("captures");
	cr_assert_str_eq(layout, "4488ssss888s");
	unsigned char batch[2048];
	size_t len = captures_row(batch, sizeof(batch), 10);
	len += captures_row(batch + len, sizeof(batch) - len, 200);  /* a two-byte length */
	struct rowbinary_scan scan;
	cr_assert(rowbinary_scan(layout, batch, len, &scan));
	cr_assert_eq(scan.rows, 2);
	cr_assert(rowbinary_scan(layout, batch, 0, &scan));
	cr_assert_eq(scan.rows, 0);
	size_t first = captures_row(batch, sizeof(batch), 10);
	for (size_t cut = 1; cut < len; cut++) {
		if (cut == first)
			continue;
		cr_assert_not(rowbinary_scan(layout, batch, cut, &scan), "cut at %zu", cut);
		cr_assert_eq(scan.rows, cut > first, "cut at %zu: %llu whole rows", cut, (unsigned long long)scan.rows);
	}
}

Test(rowbinary, a_batch_scanned_for_its_box_and_time_range)
{
	const char *layout = layout_of("captures");
	unsigned char batch[2048];
	size_t len = captures_row(batch, sizeof(batch), 10);
	size_t first = len;
	len += captures_row(batch + len, sizeof(batch) - len, 200);
	static const unsigned char late[4] = {0, 0, 0, 0x80};  /* the second row's time: 0x80000000 */
	memcpy(batch + first, late, sizeof(late));
	struct rowbinary_scan scan;
	cr_assert(rowbinary_scan(layout, batch, len, &scan));
	cr_assert_eq(scan.rows, 2);
	cr_assert_eq(scan.first_min, 1);
	cr_assert_eq(scan.first_max, 0x80000000u);
	cr_assert_eq(scan.str_len, 3);
	cr_assert_eq(memcmp(scan.str, "box", 3), 0);
	cr_assert(rowbinary_scan(layout, batch, 0, &scan));
	cr_assert(scan.first_min > scan.first_max && !scan.str, "an empty batch: no range, no box");
	cr_assert(rowbinary_scan("s1", (const unsigned char *)"\x00\x07", 2, &scan));  /* no time column */
	cr_assert(scan.first_min > scan.first_max && scan.str && scan.str_len == 0);
}

Test(rowbinary, an_array_of_strings)
{
	const char *layout = "a1";
	unsigned char buf[64];
	struct rb w = {.p = buf, .end = buf + sizeof(buf)};
	rb_varint(&w, 2);
	rb_str(&w, "ecn.ce");
	rb_str(&w, "");
	rb_u8(&w, 9);
	rb_varint(&w, 0);
	rb_u8(&w, 9);
	struct rowbinary_scan scan;
	cr_assert(rowbinary_scan(layout, buf, (size_t)(w.p - buf), &scan));
	cr_assert_eq(scan.rows, 2);
	buf[0] = 3;  /* one String more than the row has */
	cr_assert_not(rowbinary_scan(layout, buf, (size_t)(w.p - buf), &scan));
}
