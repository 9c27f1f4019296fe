/* test_fmt.c: rocedump's text appenders (analyzer/rocedump/output/fmt.c, sb.c; the JSON string escaper
 * of analyzer/util/jsonstr.c) against libc's own
 * formatting: IPv4 addresses against inet_ntop for every octet value in every position, MAC
 * addresses and decimal (plain and zero-padded) and hex against snprintf at the digit-count
 * boundaries, and truncation; time stamps in each of tcpdump's styles; JSON strings (json_escape)
 * against hand-made escapes, and every string of up to three bytes of a set of edge bytes read
 * back well-formed. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonstr.h"
#include "output/fmt.h"
#include "output/sb.h"

Test(fmt, ipv4_matches_inet_ntop)
{
	char ours[FMT_ADDR_MAX], libc[INET_ADDRSTRLEN];
	for (unsigned pos = 0; pos < 4; pos++) {
		for (unsigned v = 0; v < 256; v++) {
			uint8_t a[4] = {10, 200, 7, 99};
			a[pos] = (uint8_t)v;
			fmt_ip(ours, a, 4);
			cr_assert_not_null(inet_ntop(AF_INET, a, libc, sizeof(libc)));
			cr_assert_str_eq(ours, libc);
		}
	}
}

Test(fmt, mac_matches_snprintf)
{
	char ours[18], want[18];
	for (unsigned v = 0; v < 256; v++) {
		uint8_t m[6] = {(uint8_t)v, (uint8_t)(255 - v), 0x0f, 0xf0, (uint8_t)(v * 7), (uint8_t)v};
		fmt_mac(ours, m);
		snprintf(want, sizeof(want), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
		cr_assert_str_eq(ours, want);
	}
}

Test(fmt, ipv6_uses_inet_ntop)
{
	uint8_t a[16] = {0xfe, 0x80, [15] = 1};
	char ours[FMT_ADDR_MAX];
	fmt_ip(ours, a, 16);
	cr_assert_str_eq(ours, "fe80::1");
}

static struct sb line;

Test(sb, decimal_and_hex_match_snprintf)
{
	static const uint64_t values[] = {0, 1, 9, 10, 99, 100, 0xfff, 0xffffff, 0x1000000, UINT32_MAX,
					  (uint64_t)UINT32_MAX + 1, UINT64_MAX / 10, UINT64_MAX};
	char want[64];
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint64_t v = values[i];
		sb_reset(&line);
		sb_putu(&line, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		cr_assert_str_eq(line.buf, want);
		for (unsigned width = 1; width <= 20; width++) {
			sb_reset(&line);
			sb_putu0(&line, v, width);
			snprintf(want, sizeof(want), "%0*" PRIu64, (int)width, v);
			cr_assert_str_eq(line.buf, want, "%" PRIu64 " width %u", v, width);
		}
		for (unsigned width = 1; width <= 16; width++) {
			sb_reset(&line);
			sb_puthex(&line, v, width);
			snprintf(want, sizeof(want), "%0*" PRIx64, (int)width, v);
			cr_assert_str_eq(line.buf, want, "0x%" PRIx64 " width %u", v, width);
		}
	}
}

/* Either side of every power of ten, where the number of digits changes (sb_putu0 counts them
 * before it writes them in place). */
Test(sb, decimal_at_every_power_of_ten)
{
	char want[64];
	uint64_t p = 1;
	for (unsigned k = 0; k < 20; k++, p *= 10)
		for (uint64_t v = p - 1; v <= p + 1; v++) {
			sb_reset(&line);
			sb_puts(&line, "x");
			sb_putu(&line, v);
			snprintf(want, sizeof(want), "x%" PRIu64, v);
			cr_assert_str_eq(line.buf, want);
			cr_assert_eq(line.len, strlen(want));
		}
}

Test(sb, appends_stop_at_the_end_and_say_so)
{
	sb_reset(&line);
	while (!line.full)
		sb_putu(&line, 1234567890);
	cr_assert_lt(line.len, sizeof(line.buf));
	cr_assert_eq(strlen(line.buf), line.len);
	sb_puts(&line, "more");
	sb_puthex(&line, 0xabc, 8);
	cr_assert_lt(line.len, sizeof(line.buf));
	cr_assert_eq(strlen(line.buf), line.len);
}

/* A builder with a spill file takes a record longer than itself (a frame's JSON with a thousand
 * findings): what it held goes to the file, nothing is cut. */
Test(sb, spill_keeps_a_long_record_whole)
{
	static struct sb big;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	sb_reset(&big);
	big.spill = f;
	char want[64];
	size_t n = 0;
	for (unsigned i = 0; i < 5000; i++) {  /* some 70 KB */
		sb_printf(&big, "{\"i\":%u},", i);
		sb_puts(&big, "abc");
		n += (size_t)snprintf(want, sizeof(want), "{\"i\":%u},abc", i);
	}
	cr_assert(!big.full);
	sb_flush(&big, f);
	fclose(f);
	cr_assert_eq(len, n);
	cr_assert(strncmp(text + len - 14, "{\"i\":4999},abc", 14) == 0, "%s", text + len - 14);
	free(text);
}

/* ---- time stamps (fmt_time) ---- */

static const char *stamp(enum ts_style style, bool nano, int64_t sec, uint32_t nsec, struct ts_clock *clock)
{
	static char out[FMT_TIME_MAX];
	fmt_time(out, style, nano, sec, nsec, clock);
	return out;
}

Test(fmt, time_styles)
{
	struct ts_clock c = {0};
	int64_t t = 1767225600;  /* 2026-01-01 00:00:00 UTC */
	cr_assert_str_eq(stamp(TS_TIME, false, t + 3723, 1000500, &c), "01:02:03.001000");
	cr_assert_str_eq(stamp(TS_TIME, true, t + 3723, 1000500, &c), "01:02:03.001000500");
	cr_assert_str_eq(stamp(TS_NONE, false, t, 5, &c), "");
	cr_assert_str_eq(stamp(TS_EPOCH, false, t, 999999999, &c), "1767225600.999999");
	cr_assert_str_eq(stamp(TS_EPOCH, true, t, 7, &c), "1767225600.000000007");
	cr_assert_str_eq(stamp(TS_DATE, false, t + 86399, 0, &c), "2026-01-01 23:59:59.000000");
	cr_assert_str_eq(stamp(TS_DATE, true, 0, 1, &c), "1970-01-01 00:00:00.000000001");
}

Test(fmt, time_before_1970)
{
	/* -0.25 s: seconds -1 and 750,000,000 ns */
	cr_assert_str_eq(stamp(TS_EPOCH, false, -1, 750000000, NULL), "-0.250000");
	cr_assert_str_eq(stamp(TS_EPOCH, true, -2, 0, NULL), "-2.000000000");
	cr_assert_str_eq(stamp(TS_TIME, false, -1, 750000000, NULL), "23:59:59.750000");
	cr_assert_str_eq(stamp(TS_DATE, false, -86400, 0, NULL), "1969-12-31 00:00:00.000000");
}

Test(fmt, time_deltas)
{
	struct ts_clock prev = {0}, first = {0};
	int64_t t = 1767225600;
	/* the first frame is its own reference */
	cr_assert_str_eq(stamp(TS_DELTA_PREV, false, t, 1000500, &prev), " 00:00:00.000000");
	cr_assert_str_eq(stamp(TS_DELTA_FIRST, false, t, 1000500, &first), " 00:00:00.000000");
	/* in microseconds both times lose their nanoseconds first, as tcpdump's do: 2.000400 ms -
	 * 1.000500 ms prints 0.001000, not 0.000999 */
	cr_assert_str_eq(stamp(TS_DELTA_PREV, false, t, 2000400, &prev), " 00:00:00.001000");
	cr_assert_str_eq(stamp(TS_DELTA_FIRST, true, t, 2000400, &first), " 00:00:00.000999900");
	/* backwards in time */
	cr_assert_str_eq(stamp(TS_DELTA_PREV, false, t - 1, 2000400, &prev), "-00:00:01.000000");
	cr_assert_str_eq(stamp(TS_DELTA_FIRST, false, t - 1, 0, &first), "-00:00:01.001000");
	/* past a day: hours not wrapped */
	cr_assert_str_eq(stamp(TS_DELTA_PREV, false, t - 1 + 27LL * 3600 + 61, 2000400, &prev), " 27:01:01.000000");
	cr_assert_str_eq(stamp(TS_DELTA_FIRST, true, t + 100LL * 3600, 1000500, &first), " 100:00:00.000000000");
	/* the extremes of the int64 range do not overflow */
	struct ts_clock far = {INT64_MIN, 0, true};
	cr_assert_str_eq(stamp(TS_DELTA_FIRST, false, INT64_MAX, 999999999, &far), " 5124095576030431:00:15.999999");
}

/* ---- JSON strings (json_escape) ---- */

/* json_put_fn into a buffer of 256 bytes. */
static void put_buf(void *ctx, const char *bytes, size_t n)
{
	char *b = ctx;
	size_t len = strlen(b);
	cr_assert_lt(len + n, 256);
	memcpy(b + len, bytes, n);
	b[len + n] = '\0';
}

static const char *json_of(const char *s, bool html)
{
	static char out[256];
	out[0] = '\0';
	json_escape(s, html, put_buf, out);
	return out;
}

Test(json, escapes)
{
	cr_assert_str_eq(json_of("", false), "");
	cr_assert_str_eq(json_of("10.0.0.1", false), "10.0.0.1");
	cr_assert_str_eq(json_of("we\"ird\\.pcapng", false), "we\\\"ird\\\\.pcapng");
	cr_assert_str_eq(json_of("a\001b\tc\nd\037e\177f", false), "a\\u0001b\\u0009c\\u000ad\\u001fe\\u007ff");
	cr_assert_str_eq(json_of("</script>&", false), "</script>&");
	cr_assert_str_eq(json_of("</script>&", true), "\\u003c/script\\u003e\\u0026");
}

Test(json, utf8_kept_other_bytes_escaped)
{
	/* well-formed: 2, 3 and 4 bytes, the highest code point, the last before the surrogates */
	cr_assert_str_eq(json_of("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf", false),
			 "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf");
	/* a lone byte, overlong forms, a surrogate, past U+10FFFF, sequences cut by the end or by
	 * another byte: each byte not part of a well-formed sequence as \u00XX, the rest kept */
	cr_assert_str_eq(json_of("\xff", false), "\\u00ff");
	cr_assert_str_eq(json_of("\xc0\x80", false), "\\u00c0\\u0080");
	cr_assert_str_eq(json_of("\xe0\x80\xaf", false), "\\u00e0\\u0080\\u00af");
	cr_assert_str_eq(json_of("\xed\xa0\x80", false), "\\u00ed\\u00a0\\u0080");
	cr_assert_str_eq(json_of("\xf4\x90\x80\x80", false), "\\u00f4\\u0090\\u0080\\u0080");
	cr_assert_str_eq(json_of("x\xe2\x82", false), "x\\u00e2\\u0082");
	cr_assert_str_eq(json_of("\xc3" "A\xc3\xa9", false), "\\u00c3A\xc3\xa9");
}

/* Whether s is well-formed UTF-8 with no byte below 0x20 (as Unicode's table 3-7, written apart
 * from jsonstr.c's: by code point). */
static bool utf8_clean(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		unsigned len = c < 0x80 ? 1 : c >= 0xc0 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf8 ? 4 : 0;
		if (!len || i + len > n || c < 0x20)
			return false;
		uint32_t cp = len == 1 ? c : c & (0xffu >> (len + 1));
		for (unsigned k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3fu);
		}
		static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
			return false;
		i += len;
	}
	return true;
}

Test(json, any_short_string_is_utf8_and_reads_back)
{
	/* every string of one to three bytes over edge values: the output is well-formed UTF-8 with
	 * no control byte and no bare quote or backslash; and a string that is clean UTF-8 without a
	 * quote, a backslash or DEL comes out as it is */
	static const unsigned char edge[] = {0x01, 0x1f, ' ', '"', '\\', 'a', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
					     0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
	const size_t m = sizeof(edge);
	for (size_t a = 0; a < m; a++)
		for (size_t b = 0; b <= m; b++)
			for (size_t c = 0; c <= m && (b < m || c == m); c++) {
				char s[4] = {(char)edge[a], (char)(b < m ? edge[b] : 0), (char)(c < m ? edge[c] : 0), '\0'};
				const char *out = json_of(s, false);
				cr_assert(utf8_clean((const unsigned char *)out, strlen(out)), "0x%02x 0x%02x 0x%02x: %s", edge[a],
					  b < m ? edge[b] : 0, c < m ? edge[c] : 0, out);
				for (const char *q = out; *q; q++)
					if (*q == '\\')
						q++;  /* an escape's second byte */
					else
						cr_assert(*q != '"', "a bare quote: %s", out);
				if (utf8_clean((const unsigned char *)s, strlen(s)) && !strpbrk(s, "\"\\\177"))
					cr_assert_str_eq(out, s);
			}
}
