/* bytes.h: bounds-checked big-endian reads and writes of packet bytes (internal).
 *
 * Every read of frame bytes in the core goes through these accessors. Two forms:
 * - span_at(s, off, n) is the one check before a header is read: it returns a pointer valid for
 *   n bytes, or NULL when they were not all captured (size arithmetic only, no pointer formed past
 *   the end). The ld_* loads then read fields at constant offsets below n from that pointer.
 * - rd_*(s, off) check each read themselves and yield 0 rather than read outside the span, for
 *   the cold paths.
 * No casts onto packet bytes, no bitfields, no packed structs: fields are named byte offsets. */
#ifndef ROCE_BYTES_H
#define ROCE_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct span {
	const uint8_t *p;
	uint32_t len;
};

static inline bool span_has(const struct span *s, uint32_t off, uint32_t n)
{
	return off <= s->len && s->len - off >= n;
}

static inline const uint8_t *span_at(const struct span *s, uint32_t off, uint32_t n)
{
	return span_has(s, off, n) ? s->p + off : NULL;
}

/* Loads from a pointer returned by span_at(), at offsets inside the n bytes it vouched for. */
static inline uint16_t ld_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t ld_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}
static inline uint32_t ld_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint32_t ld_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static inline uint64_t ld_be64(const uint8_t *p)
{
	return (uint64_t)ld_be32(p) << 32 | ld_be32(p + 4);
}
/* In the machine's byte order: for hashing and keys, where the order does not matter. */
static inline uint32_t ld_ne32(const uint8_t *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return w;
}
static inline uint64_t ld_ne64(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

static inline uint8_t rd_u8(const struct span *s, uint32_t off)
{
	return span_has(s, off, 1) ? s->p[off] : 0;
}
static inline uint16_t rd_be16(const struct span *s, uint32_t off)
{
	if (!span_has(s, off, 2))
		return 0;
	return (uint16_t)(s->p[off] << 8 | s->p[off + 1]);
}
static inline uint32_t rd_be24(const struct span *s, uint32_t off)
{
	if (!span_has(s, off, 3))
		return 0;
	return (uint32_t)s->p[off] << 16 | (uint32_t)s->p[off + 1] << 8 | s->p[off + 2];
}
static inline uint32_t rd_be32(const struct span *s, uint32_t off)
{
	if (!span_has(s, off, 4))
		return 0;
	return (uint32_t)s->p[off] << 24 | (uint32_t)s->p[off + 1] << 16 |
	       (uint32_t)s->p[off + 2] << 8 | s->p[off + 3];
}
static inline uint32_t rd_le32(const struct span *s, uint32_t off)
{
	if (!span_has(s, off, 4))
		return 0;
	return (uint32_t)s->p[off + 3] << 24 | (uint32_t)s->p[off + 2] << 16 |
	       (uint32_t)s->p[off + 1] << 8 | s->p[off];
}
static inline uint64_t rd_be64(const struct span *s, uint32_t off)
{
	if (!span_has(s, off, 8))
		return 0;
	return (uint64_t)rd_be32(s, off) << 32 | rd_be32(s, off + 4);
}

/* Writers for the builder: the caller has checked the room. */
static inline void wr_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void wr_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}
static inline void wr_be32(uint8_t *p, uint32_t v)
{
	wr_be16(p, (uint16_t)(v >> 16));
	wr_be16(p + 2, (uint16_t)v);
}
static inline void wr_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static inline void wr_be64(uint8_t *p, uint64_t v)
{
	wr_be32(p, (uint32_t)(v >> 32));
	wr_be32(p + 4, (uint32_t)v);
}

#endif
