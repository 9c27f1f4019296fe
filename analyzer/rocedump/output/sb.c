/* sb.c: the record string builder (see sb.h). */
#include "output/sb.h"

#include <string.h>

void sb_printf(struct sb *s, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(s->buf) - s->len;

	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room && s->spill && s->len) {  /* out with what it held, and again */
		s->buf[s->len] = '\0';
		sb_flush(s, s->spill);
		room = sizeof(s->buf);
		va_start(ap, fmt);
		n = vsnprintf(s->buf, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
	}
	if ((size_t)n >= room) {
		s->len = sizeof(s->buf) - 1;
		s->full = true;
	} else {
		s->len += (size_t)n;
	}
}

void sb_spill_putn(struct sb *s, const char *str, size_t n)
{
	sb_flush(s, s->spill);
	if (n < sizeof(s->buf)) {
		memcpy(s->buf, str, n);
		s->len = n;
		s->buf[n] = '\0';
	} else {
		fwrite(str, 1, n, s->spill);
	}
}

void sb_flush(struct sb *s, FILE *f)
{
	fwrite(s->buf, 1, s->len, f);
	sb_reset(s);
}

/* "00" to "99": two digits a division */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				     "8081828384858687888990919293949596979899";

/* How many decimal digits v has (0 has one): from its bit length, then one comparison. */
static unsigned decimal_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
					   1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
					   100000000000000u, 1000000000000000u, 10000000000000000u,
					   100000000000000000u, 1000000000000000000u, 10000000000000000000u};
	v |= 1;  /* crosses no power of ten (they are even), and 0 has one digit */
	unsigned t = ((unsigned)(64 - __builtin_clzll(v)) * 1233) >> 12;  /* bits * log10(2): t or t + 1 */
	return t - (v < pow10[t]) + 1;
}

void sb_putu0(struct sb *s, uint64_t v, unsigned width)
{
	char tmp[20];
	unsigned n = decimal_digits(v);
	if (width > sizeof(tmp))
		width = sizeof(tmp);  /* a uint64_t has at most 20 decimal digits */
	if (n < width)
		n = width;
	/* made from the right, in the builder itself when it has the room (and its NUL's) */
	bool direct = s->len + n < sizeof(s->buf);
	char *start = direct ? s->buf + s->len : tmp, *end = start + n, *p = end;
	while (v > UINT32_MAX) {  /* 64-bit division only for the high digits of large values */
		p -= 2;
		memcpy(p, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	uint32_t w = (uint32_t)v;
	while (w >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (size_t)(w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (size_t)w, 2);
	} else {
		*--p = (char)('0' + w);
	}
	while (p > start)
		*--p = '0';
	if (direct) {
		s->len += n;
		*end = '\0';
	} else {
		sb_putn(s, tmp, n);
	}
}

void sb_puthex(struct sb *s, uint64_t v, unsigned width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16], *end = tmp + sizeof(tmp), *p = end;
	if (width > sizeof(tmp))
		width = sizeof(tmp);  /* a uint64_t has at most 16 hex digits */
	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v || (unsigned)(end - p) < width);
	sb_putn(s, p, (size_t)(end - p));
}
