/* sb.h: a fixed-size string builder for one output record (a text line or a JSON object).
 * Appends never overflow: past the end they truncate and set `full`, or, for a builder with a
 * `spill` file, write what it holds there and go on (a record of any length: a frame's JSON with
 * a thousand findings). */
#ifndef ROCEDUMP_SB_H
#define ROCEDUMP_SB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SB_RECORD_MAX 8192   /* the room every record has */

struct sb {
	char buf[2 * SB_RECORD_MAX];
	size_t len;
	bool full;
	FILE *spill;   /* NULL: truncate a record past the end */
};

static inline void sb_reset(struct sb *s)
{
	s->len = 0;
	s->full = false;
	s->buf[0] = '\0';
}

__attribute__((format(printf, 2, 3))) void sb_printf(struct sb *s, const char *fmt, ...);
/* Fast paths for the per-frame hot fields (printf costs ~70 % of text output otherwise). */
void sb_putu0(struct sb *s, uint64_t v, unsigned width); /* decimal, zero-padded to width digits */
void sb_puthex(struct sb *s, uint64_t v, unsigned width); /* lower-case hex, at least width digits */
/* sb_putn() past the end of a builder with a spill file. */
void sb_spill_putn(struct sb *s, const char *str, size_t n);

/* Append n bytes. Inline, so that a literal's length and copy are known at compile time. */
static inline void sb_putn(struct sb *s, const char *str, size_t n)
{
	size_t room = sizeof(s->buf) - 1 - s->len;
	if (n > room && s->spill) {
		sb_spill_putn(s, str, n);
		return;
	}
	if (n > room) {
		n = room;
		s->full = true;
	}
	memcpy(s->buf + s->len, str, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

static inline void sb_puts(struct sb *s, const char *str)
{
	sb_putn(s, str, strlen(str));
}

/* Decimal. A single digit (most flags and small fields) is written in place. */
static inline void sb_putu(struct sb *s, uint64_t v)
{
	if (v < 10 && s->len + 1 < sizeof(s->buf)) {
		s->buf[s->len++] = (char)('0' + v);
		s->buf[s->len] = '\0';
		return;
	}
	sb_putu0(s, v, 1);
}

/* JSON members: key is the literal text before the value, e.g. ",\"psn\":". A string value is
 * one of our own names (no escaping needed). */
static inline void sb_key_u(struct sb *s, const char *key, uint64_t v)
{
	sb_puts(s, key);
	sb_putu(s, v);
}

static inline void sb_key_str(struct sb *s, const char *key, const char *str)
{
	sb_puts(s, key);
	sb_putn(s, "\"", 1);
	sb_puts(s, str);
	sb_putn(s, "\"", 1);
}

/* Write what the builder holds to f and empty it. */
void sb_flush(struct sb *s, FILE *f);

/* A record is complete: write the records held so far to f once they leave less than
 * SB_RECORD_MAX bytes of room (fewer, larger writes); sb_flush() writes the rest at the end. */
static inline void sb_end_record(struct sb *s, FILE *f)
{
	if (s->len >= sizeof(s->buf) - SB_RECORD_MAX)
		sb_flush(s, f);
}

#endif
