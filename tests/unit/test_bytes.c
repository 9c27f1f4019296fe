/* test_bytes.c: the bounds-checked accessors of analyzer/core/bytes.h never read outside their span:
 * span_has() is pure size arithmetic (no overflow near UINT32_MAX), the rd_* readers yield 0 for
 * any read that does not fit, and the writers put bytes in network order. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

/* A heap copy of exactly n bytes, so that AddressSanitizer flags any read past the span. */
static uint8_t *exact(const uint8_t *src, uint32_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	cr_assert_not_null(p);
	if (n)
		memcpy(p, src, n);
	return p;
}

Test(bytes, span_has_basic)
{
	uint8_t buf[8] = {0};
	struct span s = {buf, 8};

	cr_assert(span_has(&s, 0, 8));
	cr_assert(span_has(&s, 0, 0));
	cr_assert(span_has(&s, 8, 0));       /* an empty read at the end fits */
	cr_assert(span_has(&s, 7, 1));
	cr_assert_not(span_has(&s, 7, 2));
	cr_assert_not(span_has(&s, 8, 1));
	cr_assert_not(span_has(&s, 9, 0));   /* even an empty read past the end does not */
	cr_assert_not(span_has(&s, 0, 9));
}

Test(bytes, span_has_len_zero)
{
	struct span s = {NULL, 0};

	cr_assert(span_has(&s, 0, 0));
	cr_assert_not(span_has(&s, 0, 1));
	cr_assert_not(span_has(&s, 1, 0));
	cr_assert_not(span_has(&s, UINT32_MAX, 1));
	cr_assert_not(span_has(&s, 0, UINT32_MAX));
}

Test(bytes, span_has_no_overflow_near_uint32_max)
{
	uint8_t buf[4] = {0};
	struct span small = {buf, 4};
	/* p is never dereferenced by span_has: this only checks the arithmetic */
	struct span huge = {buf, UINT32_MAX};

	/* off + n would wrap to a small number */
	cr_assert_not(span_has(&small, UINT32_MAX, 1));
	cr_assert_not(span_has(&small, UINT32_MAX, 5));
	cr_assert_not(span_has(&small, UINT32_MAX - 1, 4));
	cr_assert_not(span_has(&small, 2, UINT32_MAX));
	cr_assert_not(span_has(&small, 1, UINT32_MAX - 0));
	cr_assert_not(span_has(&small, 4, UINT32_MAX));
	cr_assert(span_has(&huge, UINT32_MAX, 0));
	cr_assert(span_has(&huge, UINT32_MAX - 1, 1));
	cr_assert_not(span_has(&huge, UINT32_MAX - 1, 2));
	cr_assert_not(span_has(&huge, UINT32_MAX, 1));
	cr_assert(span_has(&huge, 0, UINT32_MAX));
	cr_assert_not(span_has(&huge, 1, UINT32_MAX));
}

Test(bytes, readers_values)
{
	/* big-endian fields: 16 = 0x0102, 24 = 0x010203, 32 = 0x01020304, 64 = 0x0102030405060708;
	 * little-endian 32 (the ICRC's byte order) of the same bytes = 0x04030201 */
	static const uint8_t v[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
	uint8_t *p = exact(v, 8);
	struct span s = {p, 8};

	cr_assert_eq(rd_u8(&s, 0), 0x01);
	cr_assert_eq(rd_u8(&s, 7), 0x08);
	cr_assert_eq(rd_be16(&s, 0), 0x0102);
	cr_assert_eq(rd_be16(&s, 6), 0x0708);
	cr_assert_eq(rd_be24(&s, 0), 0x010203);
	cr_assert_eq(rd_be24(&s, 5), 0x060708);
	cr_assert_eq(rd_be32(&s, 0), 0x01020304u);
	cr_assert_eq(rd_be32(&s, 4), 0x05060708u);
	cr_assert_eq(rd_le32(&s, 0), 0x04030201u);
	cr_assert_eq(rd_le32(&s, 4), 0x08070605u);
	cr_assert_eq(rd_be64(&s, 0), UINT64_C(0x0102030405060708));
	free(p);
}

Test(bytes, readers_high_bit)
{
	/* all-ones bytes: no sign extension in any reader */
	static const uint8_t v[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t *p = exact(v, 8);
	struct span s = {p, 8};

	cr_assert_eq(rd_u8(&s, 0), 0xff);
	cr_assert_eq(rd_be16(&s, 0), 0xffff);
	cr_assert_eq(rd_be24(&s, 0), 0xffffffu);
	cr_assert_eq(rd_be32(&s, 0), 0xffffffffu);
	cr_assert_eq(rd_le32(&s, 0), 0xffffffffu);
	cr_assert_eq(rd_be64(&s, 0), UINT64_MAX);
	free(p);
}

/* Every reader at every offset of spans of every length 0..9, and at offsets near UINT32_MAX:
 * inside, the bytes; any read that does not fit entirely, 0 (and no access, checked by ASan). */
Test(bytes, readers_out_of_bounds_yield_zero)
{
	static const uint8_t v[9] = {0x81, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7, 0xf8, 0x09};
	static const uint32_t far[] = {UINT32_MAX, UINT32_MAX - 1, UINT32_MAX - 2, UINT32_MAX - 3,
				       UINT32_MAX - 7, UINT32_MAX - 8, 0x80000000u};

	for (uint32_t len = 0; len <= 9; len++) {
		uint8_t *p = exact(v, len);
		struct span s = {p, len};
		for (uint32_t off = 0; off <= len + 9; off++) {
			cr_assert_eq(rd_u8(&s, off), off + 1 <= len ? v[off] : 0, "len %u off %u", len, off);
			cr_assert_eq(rd_be16(&s, off), off + 2 <= len ? (uint16_t)(v[off] << 8 | v[off + 1]) : 0);
			cr_assert_eq(rd_be24(&s, off),
				     off + 3 <= len ? (uint32_t)v[off] << 16 | (uint32_t)v[off + 1] << 8 | v[off + 2] : 0);
			uint32_t be32 = off + 4 <= len ? (uint32_t)v[off] << 24 | (uint32_t)v[off + 1] << 16 |
								 (uint32_t)v[off + 2] << 8 | v[off + 3]
						   : 0;
			cr_assert_eq(rd_be32(&s, off), be32, "len %u off %u", len, off);
			uint32_t le32 = off + 4 <= len ? (uint32_t)v[off + 3] << 24 | (uint32_t)v[off + 2] << 16 |
								 (uint32_t)v[off + 1] << 8 | v[off]
						   : 0;
			cr_assert_eq(rd_le32(&s, off), le32, "len %u off %u", len, off);
			uint64_t be64 = 0;
			if (off + 8 <= len)
				for (unsigned i = 0; i < 8; i++)
					be64 = be64 << 8 | v[off + i];
			cr_assert_eq(rd_be64(&s, off), be64, "len %u off %u", len, off);
		}
		for (unsigned i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
			cr_assert_eq(rd_u8(&s, far[i]), 0);
			cr_assert_eq(rd_be16(&s, far[i]), 0);
			cr_assert_eq(rd_be24(&s, far[i]), 0);
			cr_assert_eq(rd_be32(&s, far[i]), 0);
			cr_assert_eq(rd_le32(&s, far[i]), 0);
			cr_assert_eq(rd_be64(&s, far[i]), 0);
		}
		free(p);
	}
}

Test(bytes, readers_on_empty_null_span)
{
	struct span s = {NULL, 0};

	cr_assert_eq(rd_u8(&s, 0), 0);
	cr_assert_eq(rd_be16(&s, 0), 0);
	cr_assert_eq(rd_be24(&s, 0), 0);
	cr_assert_eq(rd_be32(&s, 0), 0);
	cr_assert_eq(rd_le32(&s, 0), 0);
	cr_assert_eq(rd_be64(&s, 0), 0);
	cr_assert_eq(rd_be64(&s, UINT32_MAX), 0);
}

Test(bytes, writers_network_order)
{
	uint8_t b[8];

	memset(b, 0xee, sizeof(b));
	wr_be16(b, 0x1234);
	cr_assert(b[0] == 0x12 && b[1] == 0x34 && b[2] == 0xee);
	memset(b, 0xee, sizeof(b));
	wr_be24(b, 0xabcdef);     /* e.g. PSN, QPN */
	cr_assert(b[0] == 0xab && b[1] == 0xcd && b[2] == 0xef && b[3] == 0xee);
	memset(b, 0xee, sizeof(b));
	wr_be24(b, 0xff123456);   /* only the low 24 bits are written */
	cr_assert(b[0] == 0x12 && b[1] == 0x34 && b[2] == 0x56 && b[3] == 0xee);
	wr_be32(b, 0x01020304);
	cr_assert(b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 4);
	wr_le32(b, 0x2a00fd82);   /* the ICRC of the CNP in test_icrc.c, as on the wire */
	cr_assert(b[0] == 0x82 && b[1] == 0xfd && b[2] == 0x00 && b[3] == 0x2a);
	wr_be64(b, UINT64_C(0x0102030405060708));
	for (unsigned i = 0; i < 8; i++)
		cr_assert_eq(b[i], i + 1);
}

Test(bytes, write_read_round_trip)
{
	uint8_t b[8];
	struct span s = {b, 8};
	static const uint32_t vals[] = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0xffffff,
					0x1000000, 0x7fffffff, 0x80000000u, 0xffffffffu};

	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint32_t v = vals[i];
		wr_be16(b, (uint16_t)v);
		cr_assert_eq(rd_be16(&s, 0), (uint16_t)v);
		wr_be24(b, v);
		cr_assert_eq(rd_be24(&s, 0), v & 0xffffff);
		wr_be32(b, v);
		cr_assert_eq(rd_be32(&s, 0), v);
		wr_le32(b, v);
		cr_assert_eq(rd_le32(&s, 0), v);
		uint64_t v64 = (uint64_t)v << 32 | (v ^ 0x5a5a5a5au);
		wr_be64(b, v64);
		cr_assert_eq(rd_be64(&s, 0), v64);
	}
}
