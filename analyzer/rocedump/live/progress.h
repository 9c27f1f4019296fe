/* progress.h: a progress line on standard error for long files read without per-frame output
 * (-r FILE with -q or -w), redrawn a few times a second when standard error is a terminal:
 * bytes read, percent, frames per second and time left; frames and rate alone for a pipe
 * (progress.c). Nothing at all when standard error is not a terminal. */
#ifndef ROCEDUMP_PROGRESS_H
#define ROCEDUMP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool on;
	uint64_t total;            /* the file's size; 0: not known (a pipe) */
	double start, last;        /* monotonic seconds */
	bool drawn;
};

/* total: the file's size in bytes, 0 if not known. */
void progress_init(struct progress *p, bool wanted, uint64_t total);
/* Redraw when the last drawing is old enough. */
void progress_update(struct progress *p, uint64_t frames, uint64_t offset, double now);
/* Erase the line. */
void progress_end(struct progress *p);

#endif
