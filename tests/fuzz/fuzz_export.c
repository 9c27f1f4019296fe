/* fuzz_export.c: what --export reads that it did not make itself (analyzer/rocedump/export/), as
 * a fuzz target. A spooled batch is read back from a directory another run (or anyone who can
 * write there) filled; a ClickHouse server, or whatever answers in its place, answers the tables'
 * check. The first input byte picks the part:
 *   0: rows made from the input by the exporter's own RowBinary writers (rowbinary.h), for one of
 *      the four tables' layouts: rowbinary_scan() counts them exactly, with the first column's
 *      least and most values and the first row's box; cut at each row's end it counts the rows
 *      before, cut inside a row it refuses the batch; a row written into too little room is
 *      marked full and nothing lands past its room;
 *   1: the input as a spooled batch's bytes: the scan stays inside them, and a batch it takes is
 *      taken twice over (twice the rows) and refused one byte short;
 *   2: the input as a spooled file's name (spool_parse) and as the box of a batch looked for
 *      (ch_sql_string): a name taken is made back from its parts exactly and has no control byte
 *      (it is printed); the literal's text has no quote or control byte unescaped and reads back
 *      as the input;
 *   3: an answer to the tables' check made of lines from the input (ch_table_columns): the
 *      schema's column lines, changed ones and others, for its tables, for tables named like them
 *      and for none: each table is the same, absent or differs as its lines say, and a
 *      difference's message has no control byte (a server's bytes for the operator's terminal);
 *   4: the input's bytes as that answer: the same, absent or differs, the message terminated.
 * Under libFuzzer with -Dfuzzing_engine=libfuzzer; otherwise fuzz_export_replay runs it on
 * deterministic pseudo-random inputs (replay_random.c). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/ch.h"
#include "export/rowbinary.h"
#include "export/spool.h"
#include "export_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROWS_MAX 64
#define BATCH_MAX 65536
#define INPUT_MAX 32768  /* made_rows: ROWS_MAX rows of it fit in BATCH_MAX (a String's byte is an input byte) */

/* The input read a byte at a time; zeroes past its end. */
struct src {
	const uint8_t *p, *end;
};

static uint8_t take(struct src *s)
{
	return s->p < s->end ? *s->p++ : 0;
}

/* A String's length: mostly short, sometimes across a varint's seven-bit boundary. */
static size_t take_len(struct src *s)
{
	uint8_t b = take(s);
	return b < 0xf0 ? b % 40u : 120u + (size_t)(b - 0xf0) * 4u + take(s) % 8u;
}

/* One row of layout into w from the input; its first String (if none yet) and first number. */
static void write_row(struct rb *w, const char *layout, struct src *s, const unsigned char **str, size_t *str_len,
		      uint64_t *first)
{
	static unsigned char text[400];
	for (const char *c = layout; *c; c++) {
		if (*c == 's' || *c == 'a') {
			unsigned k = *c == 'a' ? take(s) % 4u : 1;
			if (*c == 'a')
				rb_varint(w, k);
			for (; k; k--) {
				size_t n = take_len(s);
				for (size_t i = 0; i < n; i++)
					text[i] = take(s);
				rb_strn(w, (const char *)text, n);
				if (!*str && *c == 's' && !w->full) {
					*str = w->p - n;
					*str_len = n;
				}
			}
		} else {
			unsigned width = (unsigned)(*c - '0');
			uint64_t v = 0;
			for (unsigned i = 0; i < width; i++)
				v |= (uint64_t)take(s) << (8 * i);
			if (c == layout)
				*first = v;
			rb_le(w, v, width);
		}
	}
}

/* Bytes read back as a spooled batch of layout's table: the scan stays inside them, and a batch
 * it takes is taken twice over (twice the rows, the same times and box) and refused one byte short. */
static void spooled(const char *layout, const unsigned char *b, size_t len)
{
	static unsigned char twice[2 * BATCH_MAX];
	struct rowbinary_scan sc, sc2;
	bool ok = rowbinary_scan(layout, b, len, &sc);
	if (sc.str && (sc.str < b || sc.str_len > len || sc.str + sc.str_len > b + len))
		abort();
	if (!ok || len > BATCH_MAX)
		return;
	if ((sc.rows == 0) != (len == 0) || (sc.rows && sc.first_min > sc.first_max))
		abort();
	memcpy(twice, b, len);
	memcpy(twice + len, b, len);
	if (!rowbinary_scan(layout, twice, 2 * len, &sc2) || sc2.rows != 2 * sc.rows || sc2.first_min != sc.first_min ||
	    sc2.first_max != sc.first_max || sc2.str_len != sc.str_len || (sc.str && sc2.str != twice + (sc.str - b)))
		abort();
	if (len && rowbinary_scan(layout, b, len - 1, &sc2))
		abort();
}

static void made_rows(const uint8_t *data, size_t size)
{
	static unsigned char buf[BATCH_MAX + 64];
	if (size < 2 || size > INPUT_MAX)
		return;
	const char *layout = export_tables[data[1] % EXPORT_TABLES].layout;
	struct src s = {data + 2, data + size};
	size_t ends[ROWS_MAX + 1] = {0};
	unsigned rows = 0;
	uint32_t lo = UINT32_MAX, hi = 0;
	const unsigned char *str = NULL;
	size_t str_len = 0;
	struct rb w = {.p = buf, .end = buf + BATCH_MAX};
	while (rows < ROWS_MAX && (rows == 0 || s.p < s.end)) {
		uint64_t first = 0;
		write_row(&w, layout, &s, &str, &str_len, &first);
		if (w.full)
			abort();  /* BATCH_MAX holds ROWS_MAX rows of the longest Strings above */
		lo = (uint32_t)first < lo ? (uint32_t)first : lo;
		hi = (uint32_t)first > hi ? (uint32_t)first : hi;
		ends[++rows] = (size_t)(w.p - buf);
	}
	size_t len = ends[rows];
	struct rowbinary_scan sc;
	if (!rowbinary_scan(layout, buf, len, &sc) || sc.rows != rows || sc.first_min != lo || sc.first_max != hi ||
	    sc.str != str || sc.str_len != str_len)
		abort();
	/* cut: at a row's end, the rows before it; inside a row (every row is 5 bytes or more), refused */
	for (unsigned r = 0; r <= rows; r++) {
		if (!rowbinary_scan(layout, buf, ends[r], &sc) || sc.rows != r)
			abort();
		if (r < rows && rowbinary_scan(layout, buf, ends[r] + 1, &sc))
			abort();
		if (r > 0 && rowbinary_scan(layout, buf, ends[r] - 1, &sc))
			abort();
	}
	/* a row into the room the input's last byte gives: marked full, nothing written past it */
	size_t room = size > 2 ? data[size - 1] % 64u : 0;
	memset(buf, 0xa5, room + 64);
	struct src again = {data + 2, data + size};
	uint64_t first;
	const unsigned char *s2 = NULL;
	size_t s2_len;
	w = (struct rb){.p = buf, .end = buf + room};
	write_row(&w, layout, &again, &s2, &s2_len, &first);
	if (w.p > buf + room || (!w.full && (size_t)(w.p - buf) != ends[1]))
		abort();
	for (size_t i = room; i < room + 64; i++)
		if (buf[i] != 0xa5)
			abort();
	/* the rows again, a byte of them changed (where and how, the input's last bytes): as a spooled
	 * batch spoiled on disk */
	w = (struct rb){.p = buf, .end = buf + BATCH_MAX};
	again = (struct src){data + 2, data + size};
	s2 = NULL;
	for (unsigned r = 0; r < rows; r++)
		write_row(&w, layout, &again, &s2, &s2_len, &first);
	size_t at = (size_t)(data[size - 1] | data[size - 2 > 1 ? size - 2 : 1] << 8) % len;
	buf[at] ^= (uint8_t)(1u << (data[size - 1] % 8u));
	spooled(layout, buf, len);
}

static void spooled_bytes(const uint8_t *data, size_t size)
{
	if (size >= 2)
		spooled(export_tables[data[1] % EXPORT_TABLES].layout, data + 2, size - 2);
}

/* ch_sql_string's text read back as ClickHouse reads a quoted literal's escapes; -1: it is not
 * one (a bare quote, a control byte, an escape it would not read). */
static long unescape(const char *q, unsigned char *out)
{
	long n = 0;
	for (const unsigned char *p = (const unsigned char *)q; *p; p++) {
		if (*p == '\'' || *p < 0x20)
			return -1;
		if (*p != '\\') {
			out[n++] = *p;
			continue;
		}
		p++;
		if (*p == '\'' || *p == '\\') {
			out[n++] = *p;
		} else if (*p == 'x' && strchr("0123456789abcdef", p[1]) && p[1] && strchr("0123456789abcdef", p[2]) && p[2]) {
			out[n++] = (unsigned char)strtoul((const char[]){(char)p[1], (char)p[2], 0}, NULL, 16);
			p += 2;
		} else {
			return -1;
		}
	}
	return n;
}

static void names(const uint8_t *data, size_t size)
{
	char name[SPOOL_NAME_MAX + 8], table[64], batch[SPOOL_NAME_MAX], back[2 * SPOOL_NAME_MAX];
	size_t n = size - 1 < sizeof(name) - 1 ? size - 1 : sizeof(name) - 1;
	memcpy(name, data + 1, n);
	name[n] = '\0';
	bool rowbinary;
	if (spool_parse(name, table, sizeof(table), batch, sizeof(batch), &rowbinary)) {
		size_t bl = strlen(batch);
		if (bl < 11 || batch[bl - 11] != ':')
			abort();
		snprintf(back, sizeof(back), "%.*s.%s.%s%s", (int)(bl - 11), batch, batch + bl - 10, table,
			 rowbinary ? SPOOL_SUFFIX : ".rows");
		if (strcmp(back, name) != 0)
			abort();
		for (const char *p = name; *p; p++)  /* names are printed in messages */
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
	}
	/* a name made of a run id, a sequence, a table and a suffix, none with a dot: taken, its parts
	 * given back */
	static const char chars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_";
	struct src s = {data + 1, data + size};
	char run[40], seq[11], tab[40];
	size_t rl = 1 + take(&s) % 39u, tl = take(&s) % 39u;
	for (size_t i = 0; i < rl; i++)
		run[i] = chars[take(&s) % (sizeof(chars) - 1)];
	for (size_t i = 0; i < 10; i++)
		seq[i] = chars[take(&s) % (sizeof(chars) - 1)];
	for (size_t i = 0; i < tl; i++)
		tab[i] = chars[take(&s) % (sizeof(chars) - 1)];
	run[rl] = seq[10] = tab[tl] = '\0';
	bool rb_name = take(&s) & 1;
	snprintf(name, sizeof(name), "%s.%s.%s%s", run, seq, tab, rb_name ? SPOOL_SUFFIX : ".rows");
	snprintf(back, sizeof(back), "%s:%s", run, seq);
	if (!spool_parse(name, table, sizeof(table), batch, sizeof(batch), &rowbinary) || rowbinary != rb_name ||
	    strcmp(table, tab) != 0 || strcmp(batch, back) != 0)
		abort();
	/* the same with a control byte in it (the run id's, the sequence's or the table's): not taken */
	static const char ctl[] = "\x01\x07\x09\x0a\x0d\x1b\x1f\x7f";
	size_t where = take(&s) % (strlen(name) - strlen(rb_name ? SPOOL_SUFFIX : ".rows"));
	if (name[where] != '.') {
		name[where] = ctl[take(&s) % (sizeof(ctl) - 1)];
		if (spool_parse(name, table, sizeof(table), batch, sizeof(batch), &rowbinary))
			abort();
	}

	static char q[4 * 1024 + 1];
	static unsigned char raw[4 * 1024];
	size_t len = size - 1 < 1024 ? size - 1 : 1024;
	size_t room = 1 + size % 5u * 1024u;  /* 1 B, then 1 KiB + 1 to 4 KiB + 1 (enough for any) */
	if (ch_sql_string(q, room, data + 1, len)) {
		long back_len = unescape(q, raw);
		if (back_len != (long)len || memcmp(raw, data + 1, len) != 0)
			abort();
	} else if (!memchr(q, 0, room)) {
		abort();
	}
}

/* The k-th line (from 0) of a "name\ttype\n" column list, its length into *n; NULL past the end. */
static const char *column_line(const char *cols, unsigned k, size_t *n)
{
	for (; *cols; k--) {
		*n = strcspn(cols, "\n") + 1;
		if (!k)
			return cols;
		cols += *n;
	}
	return NULL;
}

/* An answer of lines made from the input, each for a table of the schema, for one named like one
 * (a prefix, a longer name) or for none: the schema's own column line, that line with a byte
 * changed (perhaps to a tab, a newline or a terminal's escape), or the input's bytes. What each
 * table's lines add up to says what ch_table_columns must find. */
static void made_answer(const uint8_t *data, size_t size)
{
	static char all[16384];
	static const char *const near[] = {"frame", "framesx", "finding", "streams2", "x"};
	static char want[EXPORT_TABLES][sizeof(all)];  /* each table's lines: all of the answer at most */
	size_t want_len[EXPORT_TABLES] = {0}, at = 0;
	struct src s = {data + 1, data + size};
	while (s.p < s.end && at < sizeof(all) - 1024) {
		unsigned who = take(&s) % (EXPORT_TABLES + 5), how = take(&s) % 4;
		const char *name = who < EXPORT_TABLES ? export_tables[who].name : near[who - EXPORT_TABLES];
		const char *cols = export_tables[who % EXPORT_TABLES].columns;
		char line[300];
		size_t n = 0;
		const char *own = column_line(cols, take(&s) % 48u, &n);
		if (how < 2 && own) {
			memcpy(line, own, n);
			if (how == 1)  /* a byte changed */
				line[take(&s) % n] = (char)(take(&s) | 1);  /* not a NUL: that would end the answer */
		} else {
			n = 0;
			for (unsigned k = take(&s) % 40u; k && s.p < s.end; k--) {
				uint8_t c = take(&s);
				line[n++] = (char)(c && c != '\n' ? c : '?');
			}
			line[n++] = '\n';
		}
		at += (size_t)snprintf(all + at, sizeof(all) - at, "%s\t%.*s", name, (int)n, line);
		/* a changed byte may have made a line two (a newline), or joined nothing: the table's
		 * lines are what the answer's text has after "name\t" at a line's start */
	}
	all[at] = '\0';
	for (const char *p = all; *p;) {
		const char *eol = strchr(p, '\n'), *end = eol ? eol + 1 : p + strlen(p);
		for (unsigned t = 0; t < EXPORT_TABLES; t++) {
			size_t tl = strlen(export_tables[t].name);
			if (strncmp(p, export_tables[t].name, tl) == 0 && p[tl] == '\t') {
				memcpy(want[t] + want_len[t], p + tl + 1, (size_t)(end - p - tl - 1));
				want_len[t] += (size_t)(end - p - tl - 1);
			}
		}
		p = end;
	}
	for (unsigned t = 0; t < EXPORT_TABLES; t++) {
		char diff[400];
		memset(diff, 0x5a, sizeof(diff));
		int expect = !want_len[t] ? TABLE_ABSENT
			: want_len[t] == strlen(export_tables[t].columns) &&
					  memcmp(want[t], export_tables[t].columns, want_len[t]) == 0
				? TABLE_SAME
				: TABLE_DIFFERS;
		int r = ch_table_columns(all, &export_tables[t], diff, sizeof(diff));
		if (r != expect)
			abort();
		if (r == TABLE_DIFFERS) {
			if (!memchr(diff, 0, sizeof(diff)) || strncmp(diff, "schema has '", 12) != 0)
				abort();
			for (const char *p = diff; *p; p++)
				if ((unsigned char)*p < 0x20 || *p == 0x7f)
					abort();
		}
	}
}

/* The input's bytes as the answer: whatever it holds, each table the same, absent or differing,
 * a difference's message terminated within its buffer. */
static void raw_answer(const uint8_t *data, size_t size)
{
	static char all[8192];
	size_t n = size - 1 < sizeof(all) - 1 ? size - 1 : sizeof(all) - 1;
	memcpy(all, data + 1, n);
	all[n] = '\0';
	for (unsigned t = 0; t < EXPORT_TABLES; t++) {
		char diff[400];
		memset(diff, 0x5a, sizeof(diff));
		int r = ch_table_columns(all, &export_tables[t], diff, sizeof(diff));
		if (r < TABLE_SAME || r > TABLE_DIFFERS || (r == TABLE_DIFFERS && !memchr(diff, 0, sizeof(diff))))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 5) {
	case 0:
		made_rows(data, size);
		break;
	case 1:
		spooled_bytes(data, size);
		break;
	case 2:
		names(data, size);
		break;
	case 3:
		made_answer(data, size);
		break;
	default:
		raw_answer(data, size);
	}
	return 0;
}
