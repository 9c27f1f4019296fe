/* sb.h: a fixed-size string builder for one output record (a text line or a JSON object).
 * Appends never overflow: past the end they truncate and set `full`. */
#ifndef ROCEDUMP_SB_H
#define ROCEDUMP_SB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sb {
	char buf[8192];
	size_t len;
	bool full;
};

static inline void sb_reset(struct sb *s)
{
	s->len = 0;
	s->full = false;
	s->buf[0] = '\0';
}

__attribute__((format(printf, 2, 3))) void sb_printf(struct sb *s, const char *fmt, ...);
/* Fast paths for the per-frame hot fields (printf costs ~70 % of text output otherwise). */
void sb_putu(struct sb *s, uint64_t v);                  /* decimal */
void sb_puthex(struct sb *s, uint64_t v, unsigned width); /* lower-case hex, at least width digits */
void sb_puts(struct sb *s, const char *str);
/* Write the record to f. */
void sb_flush(struct sb *s, FILE *f);

#endif
