/* jsonstr.c: strings as JSON string text (RFC 8259) and the UTF-8 check it rests on (see
 * jsonstr.h). */
#include "jsonstr.h"

/* 1 when byte c (below 0x80) goes into a JSON string as it is, else 0. */
static size_t json_plain(unsigned char c, bool html)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&'));
}

size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (!n)
		return 0;
	unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;  /* the second byte's range */
	unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return n;
}

void json_escape(const char *s, bool html, json_put_fn put, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		const unsigned char *run = p;  /* the bytes written as they are */
		for (size_t n; *p; p += n)
			if (!(n = *p < 0x80 ? json_plain(*p, html) : utf8_seq_len(p)))
				break;
		if (p > run)
			put(ctx, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		char esc[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};
		if (*p == '"' || *p == '\\') {
			esc[1] = (char)*p;
			put(ctx, esc, 2);
		} else {
			put(ctx, esc, 6);
		}
		p++;
	}
}
