/* rowbinary.c: a RowBinary batch's rows counted, by its table's layout (see rowbinary.h): the
 * spool's batches, read back by a later run, are checked whole before they are sent, and what
 * finds them in their table (their box and times) read. */
#include "export/rowbinary.h"

/* A varint at *at (advanced past it) into *v; false when it runs past end or past 64 bits. */
static bool get_varint(const unsigned char **at, const unsigned char *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; *at < end && shift < 64; shift += 7) {
		unsigned char c = *(*at)++;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
	}
	return false;
}

/* A String at *at skipped. */
static bool skip_string(const unsigned char **at, const unsigned char *end)
{
	uint64_t n;
	if (!get_varint(at, end, &n) || n > (uint64_t)(end - *at))
		return false;
	*at += n;
	return true;
}

bool rowbinary_scan(const char *layout, const unsigned char *data, size_t len, struct rowbinary_scan *out)
{
	const unsigned char *at = data, *end = data + len;
	*out = (struct rowbinary_scan){.first_min = UINT32_MAX};
	while (at < end) {
		if (layout[0] == '4' && end - at >= 4) {  /* the first column, a UInt32 (a DateTime) */
			uint32_t v = (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
			out->first_min = v < out->first_min ? v : out->first_min;
			out->first_max = v > out->first_max ? v : out->first_max;
		}
		for (const char *c = layout; *c; c++) {
			uint64_t n;
			switch (*c) {
			case 's':
				if (!out->rows && !out->str) {  /* the first row's first String */
					const unsigned char *s = at;
					if (!get_varint(&s, end, &n) || n > (uint64_t)(end - s))
						return false;
					out->str = s;
					out->str_len = (size_t)n;
				}
				if (!skip_string(&at, end))
					return false;
				break;
			case 'a':
				if (!get_varint(&at, end, &n))
					return false;
				for (; n; n--)
					if (!skip_string(&at, end))
						return false;
				break;
			default:  /* a number of '1' .. '8' bytes */
				if ((size_t)(*c - '0') > (size_t)(end - at))
					return false;
				at += *c - '0';
			}
		}
		++out->rows;
	}
	return true;
}
