/* reorder.h: the records of a pcapng file with several interfaces handed out in time order
 * (reorder.c): what input.c calls, and what reorder.c calls of input.c. */
#ifndef ROCEDUMP_REORDER_H
#define ROCEDUMP_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct input;
struct input_reorder;
struct frame;

/* The most records and bytes (their captured bytes and options) held back; past either, the
 * earliest record goes out unsure of its place, counted (capstats reorder_overflow). */
#define REORDER_MAX_FRAMES (1u << 16)
#define REORDER_MAX_BYTES (64u << 20)
/* How far behind the newest time stamp read a record may be waited on: past it, the record goes
 * out whatever interfaces are still silent (an idle interface holds nothing back longer).
 * dumpcap hands each interface's frames to its writer in batches at least every quarter of a
 * second; four times that covers it. */
#define REORDER_LAG_NS 1000000000ll

/* Whether the record just read, f, numbered, starts the reorder stage: the file's first record
 * when the file describes several interfaces, or the first record of an interface other than the
 * file's first record's. */
bool reorder_wanted(struct input *in, const struct frame *f);
/* The stage started with f held: input_next_record()'s results from then on come from
 * reorder_next(). -1 with a message when out of memory. */
int reorder_start(struct input *in, struct frame *f, char *errbuf, size_t errlen);
/* input_next_record() of a file in reorder: its next record in time order, numbered as it is in
 * the file. The frame is valid until the next call (input_frame_kept() is false). */
int reorder_next(struct input_reorder *r, struct frame *f, char *errbuf, size_t errlen);
void reorder_free(struct input_reorder *r);

/* input.c: the file's next record, numbered, as the file holds it; one more frame counted in
 * the file's reorder_overflow (capstats). */
int input_read_record(struct input *in, struct frame *f, char *errbuf, size_t errlen);
void input_count_reorder_overflow(struct input *in);

#endif
