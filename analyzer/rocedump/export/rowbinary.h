/* rowbinary.h: ClickHouse's RowBinary format, the rows --export sends: each row its columns'
 * values one after the other, with no separators; numbers little-endian in their column's width
 * (DateTime: UInt32 seconds), a String as its length (an unsigned LEB128 varint) then its bytes,
 * an Array as its length then its elements. A row is written straight into a batch's free room
 * (no copy); a value that does not fit marks the row full and is not written. The table's layout
 * (export_schema.h: a character a column) is what rowbinary_scan() checks a batch against. */
#ifndef ROCEDUMP_EXPORT_ROWBINARY_H
#define ROCEDUMP_EXPORT_ROWBINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rb {
	unsigned char *p, *end;  /* the next byte; the row's room's end */
	bool full;               /* a value did not fit: the row is to be dropped */
};

/* Room for n more bytes, else the row marked full (and every later write refused). */
static inline bool rb_room(struct rb *w, size_t n)
{
	if ((size_t)(w->end - w->p) >= n)
		return true;
	w->full = true;
	w->end = w->p;
	return false;
}

/* An unsigned number of width bytes (1, 2, 4 or 8) at p, little-endian, with no check of the room
 * (a row's writer that checked the room for its most once: rb_room); the next byte. On a
 * little-endian machine a single store. */
static inline unsigned char *rb_put_le(unsigned char *p, uint64_t v, unsigned width)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, width);
#else
	for (unsigned i = 0; i < width; i++)
		p[i] = (unsigned char)(v >> (8 * i));
#endif
	return p + width;
}

/* n bytes from src, readable for span bytes (n <= span), at p with room for span: all span bytes
 * moved at once (span a constant: a few fixed-size moves rather than a call), only the n kept;
 * the next byte. For values made once in RowBinary and copied into many rows. */
static inline unsigned char *rb_put_span(unsigned char *p, const void *src, size_t n, size_t span)
{
	memcpy(p, src, span);
	return p + n;
}

/* An unsigned number of width bytes, little-endian (the pointer kept in a local: stores through
 * w->p could alias w itself). */
static inline void rb_le(struct rb *w, uint64_t v, unsigned width)
{
	if (rb_room(w, width))
		w->p = rb_put_le(w->p, v, width);
}

static inline void rb_u8(struct rb *w, uint8_t v) { rb_le(w, v, 1); }
static inline void rb_u16(struct rb *w, uint16_t v) { rb_le(w, v, 2); }
static inline void rb_u32(struct rb *w, uint32_t v) { rb_le(w, v, 4); }
static inline void rb_u64(struct rb *w, uint64_t v) { rb_le(w, v, 8); }
static inline void rb_i16(struct rb *w, int16_t v) { rb_le(w, (uint16_t)v, 2); }
static inline void rb_i64(struct rb *w, int64_t v) { rb_le(w, (uint64_t)v, 8); }

/* A length: LEB128, seven bits a byte, the low ones first. */
static inline void rb_varint(struct rb *w, uint64_t v)
{
	while (rb_room(w, 1)) {
		*w->p++ = (unsigned char)(v | (v >= 0x80 ? 0x80 : 0));
		if ((v >>= 7) == 0)
			break;
	}
}

/* n bytes as they are: a String's, or values made once in RowBinary for many rows. */
static inline void rb_raw(struct rb *w, const void *s, size_t n)
{
	if (rb_room(w, n)) {
		memcpy(w->p, s, n);
		w->p += n;
	}
}

/* n bytes as they are, from src readable for span bytes (n <= span): rb_put_span where the room
 * allows, else only the n bytes. */
static inline void rb_raw_span(struct rb *w, const void *src, size_t n, size_t span)
{
	if ((size_t)(w->end - w->p) >= span)
		w->p = rb_put_span(w->p, src, n, span);
	else
		rb_raw(w, src, n);
}

/* A String of n bytes (any bytes: nothing is escaped). */
static inline void rb_strn(struct rb *w, const char *s, size_t n)
{
	rb_varint(w, n);
	rb_raw(w, s, n);
}

static inline void rb_str(struct rb *w, const char *s)
{
	rb_strn(w, s, strlen(s));
}

/* A batch of len bytes walked by the table's layout: true when it is whole rows, false when it
 * ends inside a row or a length runs past its end. Into *out: its (whole) rows, and what the
 * batch is found by in its table: the least and most values of its first column when that is a
 * UInt32 (every table's first column is its time, a DateTime; first_min > first_max: none), and
 * its first row's first String (every table's box). */
struct rowbinary_scan {
	uint64_t rows;
	uint32_t first_min, first_max;
	const unsigned char *str;  /* NULL: none */
	size_t str_len;
};
bool rowbinary_scan(const char *layout, const unsigned char *data, size_t len, struct rowbinary_scan *out);

#endif
