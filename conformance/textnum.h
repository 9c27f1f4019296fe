/* textnum.h: numbers read from text the DUT's servers and the kernel write (textnum.c): the
 * perftest and rc_pingpong key messages (fixed-width hex fields between colons, perftest 4.5
 * src/perftest_communication.c and libibverbs/examples/rc_pingpong.c), GIDs in hex, MAC
 * addresses, and sysfs/procfs files holding one number. Each says when the text is not one. */
#ifndef CONFORM_TEXTNUM_H
#define CONFORM_TEXTNUM_H

#include <stdbool.h>
#include <stdint.h>

/* 1 to max_digits hex digits at s, then the character sep (none checked when sep is 0): the
 * value in *v and where the text goes on after sep, or NULL. */
const char *hex_field(const char *s, unsigned max_digits, char sep, uint64_t *v);

/* 2n hex digits at s as n bytes (a GID in the servers' messages). false when not all are. */
bool hex_bytes(const char *s, uint8_t *out, unsigned n);

/* A file (sysfs, procfs) holding one decimal number without a sign, then at most a newline.
 * false when it cannot be read or holds anything else ("-1": a speed the driver does not know). */
bool read_number_file(const char *path, unsigned long *v);

#endif
