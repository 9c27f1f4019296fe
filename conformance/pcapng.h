/* pcapng.h: --pcap-dir: one pcapng file per test (pcapng.c): the stimulus and the DUT's answers
 * in time order, each frame's note (what it was sent for, what the DUT's packet was) as its
 * comment, and the test's verdict as the section's comment. */
#ifndef CONFORM_PCAPNG_H
#define CONFORM_PCAPNG_H

#include "session.h"

/* Write s's frames to path. 0, or -1 with the reason in err. */
int pcapng_write_session(const char *path, const struct session *s, const char *section_comment,
			 char err[CONF_ERRLEN]);

#endif
