/* outfile.h: output files written whole or not at all (outfile.c). The file is opened as a
 * temporary next to its target before the run, so that an unwritable path fails at once, and is
 * renamed over the target once complete. */
#ifndef CONFORM_OUTFILE_H
#define CONFORM_OUTFILE_H

#include <stdio.h>

#include "conform.h"

struct outfile {
	const char *path;   /* the target; "-" is standard output */
	char *tmp;          /* the temporary's path (NULL: nothing to rename or remove) */
	FILE *f;            /* open for writing, or NULL */
};

/* Open a temporary for path in path's directory (mkstemp: created afresh, never through a planted
 * symlink; mode 0666 less the umask). "-" writes to standard output. 0, or -1 with the reason in
 * err. */
int outfile_open(struct outfile *o, const char *path, char err[CONF_ERRLEN]);
/* Close the temporary (unless the caller closed o->f and set it NULL) and rename it to the target.
 * 0, or -1 with the reason in err (the temporary is then removed). */
int outfile_commit(struct outfile *o, char err[CONF_ERRLEN]);
/* Close and remove the temporary, if any (for every way out that does not commit). */
void outfile_discard(struct outfile *o);
/* The temporary's path, or NULL: for a signal handler that must remove it. */
static inline const char *outfile_tmp(const struct outfile *o) { return o->tmp; }

#endif
