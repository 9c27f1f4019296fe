/* sb.c: the record string builder (see sb.h). */
#include "sb.h"

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
	if ((size_t)n >= room) {
		s->len = sizeof(s->buf) - 1;
		s->full = true;
	} else {
		s->len += (size_t)n;
	}
}

void sb_flush(struct sb *s, FILE *f)
{
	fwrite(s->buf, 1, s->len, f);
	sb_reset(s);
}

/* Append the n characters of tmp in reverse order (digits are produced least significant first). */
static void put_reversed(struct sb *s, const char *tmp, unsigned n)
{
	if (s->len + n >= sizeof(s->buf)) {
		s->full = true;
		return;
	}
	while (n)
		s->buf[s->len++] = tmp[--n];
	s->buf[s->len] = '\0';
}

void sb_putu0(struct sb *s, uint64_t v, unsigned width)
{
	char tmp[20];
	unsigned n = 0;
	if (width > sizeof(tmp))
		width = sizeof(tmp);  /* a uint64_t has at most 20 decimal digits */
	uint32_t w;
	while (v > UINT32_MAX) {  /* 64-bit division only for the high digits of large values */
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	}
	w = (uint32_t)v;
	do {
		tmp[n++] = (char)('0' + w % 10);
		w /= 10;
	} while (w || n < width);
	put_reversed(s, tmp, n);
}

void sb_putu(struct sb *s, uint64_t v)
{
	sb_putu0(s, v, 1);
}

void sb_puthex(struct sb *s, uint64_t v, unsigned width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	unsigned n = 0;
	if (width > sizeof(tmp))
		width = sizeof(tmp);  /* a uint64_t has at most 16 hex digits */
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v || n < width);
	put_reversed(s, tmp, n);
}
