/* spool.h: --export-spool DIR: batches the server did not take, one file each, named so that
 * their names sort in the order they were made ("RUN_ID.SEQUENCE.TABLE.rowbinary": RowBinary
 * rows; ".rows" for the TabSeparated rows an earlier rocedump spooled), up to a total size.
 * Files are made safely in a directory that may be shared: created new (O_EXCL, O_NOFOLLOW)
 * under a temporary name, written, synced, then renamed over the final name (which replaces a
 * link planted there rather than following it); read only when they are regular files opened
 * without following links. A batch the server will not take is set aside under its name and
 * ".refused" (export.c decides when), kept for the operator and still within the size cap. */
#ifndef ROCEDUMP_EXPORT_SPOOL_H
#define ROCEDUMP_EXPORT_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/ch.h"

#define SPOOL_NAME_MAX 160
/* A spooled file's bytes at most: more than any batch rocedump makes (export.c asserts it), so
 * that a file planted in a shared spool cannot have a run read gigabytes into memory. */
#define SPOOL_FILE_MAX ((size_t)1 << 30)
#define SPOOL_SUFFIX ".rowbinary"  /* the batches this rocedump spools */

#define SPOOL_REFUSED ".refused"  /* appended to a batch's name when it is set aside */

/* Its counts are changed by one thread (the export thread) and read by any (the metrics). */
struct spool {
	int dirfd;                /* -1: no spool */
	_Atomic uint64_t bytes;   /* the files' total size, batches set aside included (the cap holds them too) */
	uint64_t max;
	_Atomic unsigned files;   /* batches waiting to be sent */
	_Atomic unsigned refused; /* batches set aside (spool_set_aside): kept, not sent again */
	/* spool_next's names: the SPOOL_SCAN oldest after the last scan's start, in order, so that a
	 * spool of many batches is not read whole for each one sent (the export thread's alone) */
	char (*scan)[SPOOL_NAME_MAX];
	unsigned n_scan, at_scan;
};
#define SPOOL_SCAN 1024

#define SPOOL_TMP_STALE_S 600  /* a batch's temporary file untouched this long: left by a crash */

/* Open (make, mode 0700) dir and count what it holds; the temporary files of batches a crash left
 * (older than SPOOL_TMP_STALE_S) removed. 0, or -1 with the message in err (also when no file can
 * be made in dir: a read-only mount). */
int spool_open(struct spool *s, const char *dir, uint64_t max, char *err, size_t errlen);
void spool_close(struct spool *s);
/* The batch under its name: 1 written, 0 no room (or no spool), -1 a write error (err). */
int spool_put(struct spool *s, const char *name, const char *data, size_t len, char *err, size_t errlen);
/* The oldest batch's name after `after` (in the names' order: "" for the oldest of all) into
 * name (which may be after); false when there is none. From the names of the last scan of the
 * directory while they last (after "", or past them, it is read again: one scan for SPOOL_SCAN
 * batches, in a heap of that many names); a batch spooled since, its name after them, is found
 * by the next scan. */
bool spool_next(struct spool *s, const char *after, char name[SPOOL_NAME_MAX]);
/* The newest batch's name, if it comes after `after`, into name (which may be after); false when
 * there is none. */
bool spool_last(const struct spool *s, const char *after, char name[SPOOL_NAME_MAX]);
/* The batch renamed NAME.refused: no longer sent, kept (and counted in the cap) for the operator
 * to look at or insert by hand. 0, or -1 (err). */
int spool_set_aside(struct spool *s, const char *name, char *err, size_t errlen);
/* Its rows into out: 0, or -1 (not a regular file, unreadable, larger than SPOOL_FILE_MAX:
 * err). */
int spool_read(const struct spool *s, const char *name, struct chbuf *out, char *err, size_t errlen);
void spool_remove(struct spool *s, const char *name);
/* A name's table, batch id ("RUN_ID:SEQUENCE") and rows' format (RowBinary, else TabSeparated);
 * false when it is not a batch's name (nor is a name with a control byte: names are printed in
 * messages, and a file planted in a shared spool does not write to the operator's terminal). */
bool spool_parse(const char *name, char *table, size_t tlen, char *batch, size_t blen, bool *rowbinary);

#endif
