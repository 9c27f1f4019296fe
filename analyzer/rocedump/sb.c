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

void sb_puts(struct sb *s, const char *str)
{
	size_t n = strlen(str), room = sizeof(s->buf) - 1 - s->len;
	if (n > room) {
		n = room;
		s->full = true;
	}
	memcpy(s->buf + s->len, str, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

void sb_flush(struct sb *s, FILE *f)
{
	fwrite(s->buf, 1, s->len, f);
	sb_reset(s);
}
