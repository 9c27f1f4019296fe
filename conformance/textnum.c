/* textnum.c: numbers read from the servers' messages and the kernel's files (see textnum.h). */
#include "textnum.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

const char *hex_field(const char *s, unsigned max_digits, char sep, uint64_t *v)
{
	uint64_t x = 0;
	unsigned n = 0;
	for (int d; n < max_digits && n < 16 && (d = hex_digit(s[n])) >= 0; n++)
		x = x << 4 | (uint64_t)d;
	if (n == 0 || (sep && s[n] != sep))
		return NULL;
	*v = x;
	return s + n + (sep != 0);
}

bool hex_bytes(const char *s, uint8_t *out, unsigned n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);
		if (lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

bool read_number_file(const char *path, unsigned long *v)
{
	char buf[32];
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok || buf[0] < '0' || buf[0] > '9')
		return false;
	char *end;
	errno = 0;
	*v = strtoul(buf, &end, 10);
	return errno == 0 && (*end == '\0' || (*end == '\n' && end[1] == '\0'));
}
