/* input.h: open a capture file (pcap or pcapng, or "-" for stdin) or a network interface (live,
 * live.h) with libpcap, apply a BPF filter to each record (counting the ones it rejects, so frames
 * keep their numbers in the file; live, the kernel filters), and hand out frames with the link
 * type mapped to the core's ROCE_LINK_* numbers. A live capture or a pipe may have no complete
 * frame ready: then input_next() says so (INPUT_AGAIN) rather than waiting, and input_wait()
 * waits. The
 * records of a regular pcap or pcapng file are read by pcapread.c and pcapngread.c as long as
 * they are sure of them.
 * The bytes libpcap reads pass by a capstats scanner on the way, which collects the capture's
 * drop counts from pcapng statistics blocks (capstats.h). */
#ifndef ROCEDUMP_INPUT_H
#define ROCEDUMP_INPUT_H

#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

#include "input/capstats.h"
#include "input/live.h"
#include "input/pcapread.h"

#define INPUT_LINKTYPES 8  /* link types besides the first one a filter is compiled for */
#define INPUT_FILES_MAX 64 /* capture files one run reads (-r given several times: merge.c) */

struct input_merge;
struct input_reorder;

struct input {
	pcap_t *pcap;
	FILE *fp;                 /* what libpcap reads: a stdio stream over `source` */
	struct input_source *source;
	char *iobuf;
	unsigned linktype;  /* ROCE_LINK_* (LINKTYPE_* number): the first interface's */
	const char *name;
	struct bpf_program filter;  /* the compiled filter; bf_insns NULL when there is none */
	const char *filter_text;  /* the filter, compiled again for another link type (more[]) */
	unsigned n_more;          /* a pcapng of several link types: the filter compiled for each */
	struct { unsigned linktype; struct bpf_program prog; } more[INPUT_LINKTYPES];
	uint64_t records_read;    /* records of the file read so far, the filter's rejects too */
	bool direct;              /* records come from `records` until it hands over to libpcap */
	bool at_end;              /* a pcapng of several link types read to its end by `records` */
	struct pcapread records;
	bool live;                /* a network interface (input_open_live) */
	bool poll;                /* frames may not be ready yet: live, or a file that is not regular */
	bool nano;                /* libpcap gives nanoseconds (else microseconds) */
	uint64_t size;            /* a regular file's size in bytes, else 0 */
	/* live: the kernel's 32-bit counts, last seen and widened to 64 bits */
	uint32_t last_recv, last_drop, last_ifdrop;
	uint64_t recv, drop, ifdrop;
	struct input_merge *merge;  /* several files merged in time order (merge.c); NULL: one input */
	/* a pcapng file of several interfaces: its records in time order (reorder.c), NULL until
	 * its first record, or one of an interface other than that record's, says so */
	struct input_reorder *reorder;
	uint32_t first_iface;     /* the first record's interface (a frame's iface) */
	bool file_order;          /* set before the first input_next(): records in the file's order
				   * whatever their interfaces (the readers' own tests) */
};

/* The most bytes of options a frame read by libpcap carries (struct frame). */
#define FRAME_OPTS_MAX CAPSTATS_OPTS_MAX

/* input_next(): no complete frame is ready now (only when in->poll). */
#define INPUT_AGAIN 2

/* Room for any message input_open_file() or input_next() writes (longer paths are cut). */
#define INPUT_ERRLEN (PCAP_ERRBUF_SIZE + 512)

struct frame {
	const uint8_t *data;
	uint32_t caplen, wirelen;
	int64_t ts_sec;           /* may be negative (a pcapng if_tsoffset, a pcap past 2038) */
	uint32_t ts_nsec;         /* 0 .. 999,999,999 */
	uint32_t iface;           /* pcapng: capstats_iface_key() of its interface; 0: not known (pcap);
				   * several files merged: the global interface's key, section 0 and
				   * if_id the interface's number over all files (merge.c) */
	const char *iface_name;   /* its if_name, "" if none (valid while the input is open) */
	uint64_t number;          /* the record's place in the file, from 1 (tshark's frame.number);
				   * several files merged: its place in the merged order */
	/* several files merged (else not set): its place in its own file, and that file's place
	 * among the files, from 0 */
	uint64_t file_number;
	uint32_t file;
	unsigned linktype;        /* ROCE_LINK_*: its interface's (a pcapng may mix them) */
	/* pcapng, for -w to write the frame again as it was: its interface's description (NULL
	 * when not known: then none of these is set), its block's time stamp in that interface's
	 * units, and its options (comments, flags, hashes, ...: capstats_opts; valid as long as
	 * the frame's bytes) */
	uint32_t opts_len;
	const uint8_t *opts;
	const struct capstats_ifdesc *ifdesc;
	uint64_t ts_raw;
};

/* The frame's time in nanoseconds since 1970, held at the int64 range (years ±292) */
static inline int64_t frame_ts_ns(const struct frame *f)
{
	const int64_t lim = INT64_MAX / 1000000000 - 1;
	if (f->ts_sec > lim)
		return INT64_MAX;
	if (f->ts_sec < -lim)
		return INT64_MIN;
	return f->ts_sec * 1000000000 + f->ts_nsec;
}

/* Whether frame a's time stamp is before b's. */
static inline bool frame_ts_before(const struct frame *a, const struct frame *b)
{
	return a->ts_sec < b->ts_sec || (a->ts_sec == b->ts_sec && a->ts_nsec < b->ts_nsec);
}

/* Open path ("-" is stdin) and compile filter (NULL or "" for none). Returns 0, or -1 with
 * a message in errbuf. */
int input_open_file(struct input *in, const char *path, const char *filter, char *errbuf, size_t errlen);
/* Open the n capture files paths[] (n from 2 to INPUT_FILES_MAX; none "-" more than once), whose
 * frames input_next() hands out merged in time order as mergecap merges them (merge.c), each
 * with the filter. 0, or -1 with a message naming the file at fault. */
int input_open_files(struct input *in, const char *const *paths, unsigned n, const char *filter, char *errbuf,
		     size_t errlen);
/* Open a live capture on cfg->device with filter (NULL or "" for none). 0, or -1 with a message. */
int input_open_live(struct input *in, const struct live_config *cfg, const char *filter, char *errbuf,
		    size_t errlen);
/* Open a live capture on each of devices[0 .. n) (n from 2 to LIVE_DEVICES_MAX), each with cfg's
 * options (its device aside) and filter, whose frames input_next() hands out merged in time order
 * (merge.c), each interface a global interface named after it. 0, or -1 with a message. */
int input_open_lives(struct input *in, const struct live_config *cfg, const char *const *devices, unsigned n,
		     const char *filter, char *errbuf, size_t errlen);
/* The i-th interface or file (from 0) of a merged input, in itself for i 0 when it is not one;
 * NULL past the last. */
const struct input *input_part(const struct input *in, unsigned i);
/* 1: the next frame that passes the filter; 0: end of file; -1: read error (message in errbuf);
 * INPUT_AGAIN: none ready yet. The frame's bytes stay valid until the next call, or, when
 * input_frame_kept() says so right after it, until input_release() passes the frame. */
int input_next(struct input *in, struct frame *f, char *errbuf, size_t errlen);

/* Whether the frame input_next() just gave lies in the window of the file (pcapread.c, pcapngread.c):
 * its bytes stay valid until input_release() passes it, or input_close(), whatever is read
 * meanwhile. */
static inline bool input_frame_kept(const struct input *in)
{
	return in->direct && !in->reorder;
}

/* No frame older than oldest (a frame input_next() gave; NULL: none in use) is used again: the
 * window may be read over up to it. Cheap enough to call for every frame. (Records put in time
 * order are copied out of the window: reorder.c releases it itself.) */
static inline void input_release(struct input *in, const struct frame *oldest)
{
	if (in->records.ring.base && !in->reorder)
		pcapread_release(&in->records, oldest ? oldest->data : NULL);
}
/* With the lock that guards in held (pipeline.c): the next bytes of the file to read ahead (about
 * bytes of them: pcapread_claim_ahead), claimed by the caller, who reads them in with
 * input_read_claim() once the lock is let go; NULL when there are none (the end, enough claimed
 * already, or a reader that reads no window). */
static inline struct pcapread_claim *input_claim_ahead(struct input *in, size_t bytes)
{
	return in->direct && !in->reorder ? pcapread_claim_ahead(&in->records, bytes) : NULL;
}
/* Where in the file the next record input_next() reads begins, while the window's reader reads
 * (input_frame_kept); SIZE_MAX once libpcap reads (or always did), or records are put in time
 * order. */
static inline size_t input_next_offset(const struct input *in)
{
	return in->direct && !in->reorder ? in->records.pos : SIZE_MAX;
}
static inline void input_read_claim(const struct input *in, struct pcapread_claim *c)
{
	pcapread_read_claim(&in->records, c);
}
void input_close(struct input *in);
/* After INPUT_AGAIN: wait until a frame may be ready, at most timeout_ms (a signal cuts it short),
 * or until wake_fd (an eventfd; -1 for none) is readable. */
void input_wait(struct input *in, int timeout_ms, int wake_fd);
/* Live: read the kernel's counts (packets received by the filter, dropped by the kernel and by
 * the interface) into input_capstats(); nothing for a file. Call at least once per 2^32 packets. */
void input_update_stats(struct input *in);
/* The bytes of the file read so far, for a progress report (what the reader took, which may be
 * ahead of the frames used). */
uint64_t input_offset(const struct input *in);
/* The drop counts found in the bytes read so far (complete once input_next returned 0); several
 * files: over all of them, each interface under its global number. */
const struct capstats *input_capstats(const struct input *in);
/* The run stopped before the end of the file (-c): the counts found are not complete, however
 * far ahead of the last frame used the file was read. */
void input_stopped_early(struct input *in);

#endif
