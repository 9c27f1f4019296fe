/* jsonstr.h: a string as the characters of a JSON string (RFC 8259), for every JSON writer of
 * the project (rocedump's frames and report, roceconform's reports): text from outside (a file
 * name, a DUT's facts) may hold any byte, and JSON text must be UTF-8. */
#ifndef ROCE_UTIL_JSONSTR_H
#define ROCE_UTIL_JSONSTR_H

#include <stdbool.h>
#include <stddef.h>

/* The writer json_escape() hands the escaped text to, n bytes at a time. */
typedef void (*json_put_fn)(void *ctx, const char *bytes, size_t n);

/* s as the characters of a JSON string (RFC 8259), without the quotes, handed to put in pieces.
 * Well-formed UTF-8 is written as it is; the quote and the backslash as \" and \\; a control
 * byte (below 0x20) and DEL as \u00XX; a byte that is not part of well-formed UTF-8 (a file name
 * in another encoding) as \u00XX of its value, so that the text stays UTF-8 and the byte reads
 * back as the character U+0080 to U+00FF of that number (as Latin-1 would read it). With html,
 * '<', '>' and '&' as \u003c, \u003e and \u0026 too: the string can sit in a page's <script>. */
void json_escape(const char *s, bool html, json_put_fn put, void *ctx);

/* The length of the well-formed UTF-8 sequence of two to four bytes at s (Unicode's table 3-7: no
 * overlong form, no surrogate, nothing past U+10FFFF), or 0. It stops at the first byte that does
 * not fit, so it never reads past the string's end. */
size_t utf8_seq_len(const unsigned char *s);

#endif
