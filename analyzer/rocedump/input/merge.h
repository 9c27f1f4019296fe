/* merge.h: several capture files read as one input, their frames merged in time order
 * (merge.c): what input.c calls, and what merge.c calls of input.c. */
#ifndef ROCEDUMP_MERGE_H
#define ROCEDUMP_MERGE_H

#include <stddef.h>
#include <stdint.h>

struct input;
struct input_merge;
struct frame;
struct capstats;

/* input_next() of a merged input. */
int merge_next(struct input_merge *m, struct frame *f, char *errbuf, size_t errlen);
/* The file whose next frame the merge waits for (INPUT_AGAIN), for input_wait(). */
struct input *merge_waiting(struct input_merge *m);
/* Live interfaces: input_wait(): until one without a frame ready may have one, or wake_fd. */
void merge_wait_live(struct input_merge *m, int timeout_ms, int wake_fd);
/* Live interfaces: every one's kernel counts read, their sums into in (the merged input). */
void merge_update_live(struct input_merge *m, struct input *in);
/* The i-th input (from 0), NULL past the last. */
const struct input *merge_part(const struct input_merge *m, unsigned i);
uint64_t merge_offset(const struct input_merge *m);
/* The counts of every file, under the global interface numbers (rebuilt at each call). */
const struct capstats *merge_capstats(struct input_merge *m);
void merge_stopped_early(struct input_merge *m);
/* Close every file and free m (NULL: nothing). */
void merge_close(struct input_merge *m);

/* input.c: the next record of one file, numbered, whatever the filter says (input_next()'s
 * results); then whether the filter takes it (1 yes, 0 no, -1 an error with its message). */
int input_next_record(struct input *in, struct frame *f, char *errbuf, size_t errlen);
int input_filter(struct input *in, const struct frame *f, char *errbuf, size_t errlen);

#endif
