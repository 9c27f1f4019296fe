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

void sb_putu0(struct sb *s, uint64_t v, unsigned width)
{
	char tmp[20], *end = tmp + sizeof(tmp), *p = end;  /* digits are made from the right */
	if (width > sizeof(tmp))
		width = sizeof(tmp);  /* a uint64_t has at most 20 decimal digits */
	while (v > UINT32_MAX) {  /* 64-bit division only for the high digits of large values */
		*--p = (char)('0' + v % 10);
		v /= 10;
	}
	uint32_t w = (uint32_t)v;
	do {
		*--p = (char)('0' + w % 10);
		w /= 10;
	} while (w || (unsigned)(end - p) < width);
	sb_putn(s, p, (size_t)(end - p));
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
