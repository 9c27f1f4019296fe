/* rotate.h: rocedump -w with tcpdump's file rotation (-C size, -G seconds with strftime names,
 * -W file count, -U packet-buffered): every file a complete pcapng of its own (pcapng_out.h),
 * its frames' events as packet comments, ended by an interface statistics block with the
 * capture's counts over that file's time, so that one file alone still says what it missed
 * (rotate.c). */
#ifndef ROCEDUMP_ROTATE_H
#define ROCEDUMP_ROTATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "output/pcapng_out.h"

struct rotate_config {
	const char *name;          /* -w: a file name ("-" only without rotation); a strftime
				    * pattern with -G */
	uint64_t max_bytes;        /* -C, in bytes; 0: no size limit */
	unsigned seconds;          /* -G; 0: no time limit */
	unsigned max_files;        /* -W; 0: no limit */
	bool packet_buffered;      /* -U: each frame written out as it comes */
	const struct capstats *source;  /* a capture file's scanner (pcapng_out_open); NULL live */
	const char *const *inputs; /* the capture files read (-r; "-": standard input; none live): */
	unsigned n_inputs;         /* no file written may be one of them (out_overwrites_input) */
};

/* Whether writing the file at path (NULL: the one open as standard output) would write over one
 * of the capture files inputs (n of them; "-": standard input): the same regular file, whatever
 * names lead to it (symbolic or hard links). -w, --report and --metrics-file refuse such a file. */
bool out_overwrites_input(const char *path, const char *const *inputs, unsigned n);

/* Whether a file -w may write (cfg: its name, rotation and inputs) is one of the inputs, as far as
 * its names can be known before the capture: the name; with -C the numbered names of the files in
 * its directory now (name, name1, name2, ...; with -W name0 to the last number); with -G the
 * names of the current period (the later periods' are checked as their files open). The name
 * found into which (len bytes). */
bool rotate_overwrites_input(const struct rotate_config *cfg, char *which, size_t len);

#define ROTATE_IFACES_MAX 16  /* interfaces a live capture's counts are kept for */

/* The capture's cumulative counts at a moment (valid: a live capture), per interface: its key
 * (struct frame's iface) and description (NULL: none, the interface of a single -i). Each file
 * describes these interfaces at its start, and ends with a statistics block for each. */
struct rotate_counts {
	bool valid;
	uint32_t n;
	struct rotate_iface {
		uint32_t key;
		const struct capstats_ifdesc *desc;
		uint64_t recv, os_drop, if_drop;
	} iface[ROTATE_IFACES_MAX];
};
typedef struct rotate_counts (*rotate_counts_fn)(void *ctx);

struct rotor {
	struct rotate_config cfg;
	unsigned linktype;
	rotate_counts_fn counts;
	void *counts_ctx;
	struct pcapng_out out;
	unsigned c_index;          /* -C: this file's number (within the -G period) */
	unsigned g_files;          /* -G: files opened */
	unsigned name_digits;      /* -W: digits of the file numbers; 0 without -W */
	time_t period_start;       /* -G: when this file's period began */
	uint64_t opened_ns;        /* when this file was opened (since 1970) */
	struct rotate_counts at_open;
	char path[PATH_MAX];
};

/* Open the first file. counts (NULL: none, no statistics block) gives the capture's counts.
 * 0, or -1 with a message. */
int rotor_open(struct rotor *r, const struct rotate_config *cfg, unsigned linktype, rotate_counts_fn counts,
	       void *counts_ctx, char *errbuf, size_t errlen);

/* Before each frame: start the next file when this one is full (-C) or its time is up (-G, now
 * being the wall clock). 0; 1 when -G and -W have made their last file (the capture ends, as
 * tcpdump's does); -1 with a message. */
int rotor_before_frame(struct rotor *r, time_t now, char *errbuf, size_t errlen);

void rotor_frame(struct rotor *r, const struct frame *f, const char *comment, size_t comment_len);

/* The input's statistics blocks, once it has been read (pcapng_out_input_isbs), into the file
 * being written. */
void rotor_input_isbs(struct rotor *r);

/* Written out so far (idle moments, -U). */
void rotor_flush(struct rotor *r);

/* The statistics block, then close. 0, or -1 when a write failed. */
int rotor_close(struct rotor *r, char *errbuf, size_t errlen);

#endif
