/* pcapng_out.h: rocedump -w: the frames read, written to a pcapng file, each frame that has
 * events carrying them as its comment (pcapng_out.c). */
#ifndef ROCEDUMP_PCAPNG_OUT_H
#define ROCEDUMP_PCAPNG_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct frame;
struct capstats;
struct capstats_ifdesc;

struct pcapng_out {
	FILE *f;
	bool close;               /* not standard output */
	unsigned linktype;
	uint32_t *keys;           /* the input interface (struct frame's iface) of each interface written */
	uint32_t n_ifaces, ifaces_alloc;
	uint32_t last_key, last_id;  /* the previous frame's, looked up again first */
	const struct capstats *source;  /* a pcapng input's section, interfaces and statistics */
	bool shb_written;
};

/* Create path ("-": standard output). Each interface of the input (struct frame's iface)
 * becomes an interface of the output, written before its first frame: a copy seen on two
 * interfaces stays on two. One the input described (a pcapng's: struct frame's ifdesc) is
 * described alike; any other is of linktype (a LINKTYPE_* number) with its if_name and
 * nanosecond time stamps. source: a capture file's scanner (NULL live), whose section header
 * options the output's section header carries, written before the first interface; live, it is
 * written at once. 0, or -1 with a message. */
int pcapng_out_open(struct pcapng_out *w, const char *path, unsigned linktype, const struct capstats *source,
		    char *errbuf, size_t errlen);

/* One enhanced packet block: the frame's bytes, its length on the wire and time, its options
 * in the input, and comment (comment_len bytes, none when 0) as one more opt_comment. */
void pcapng_out_frame(struct pcapng_out *w, const struct frame *f, const char *comment, size_t comment_len);

/* The interface of input interface key (struct frame's iface), described by d (NULL: none, then
 * nameless), written now unless it was already: so that the output describes every interface
 * captured on before any frame, as dumpcap does. */
void pcapng_out_iface(struct pcapng_out *w, uint32_t key, const struct capstats_ifdesc *d);

/* An interface statistics block (pcapng §4.6) for input interface key (described by desc, as for
 * pcapng_out_iface) at time now_ns: the counts of the
 * capture between start_ns and now_ns (isb_starttime, isb_endtime): packets received by the
 * filter (isb_ifrecv), dropped by the interface (isb_ifdrop) and by the OS (isb_osdrop). */
struct pcapng_isb {
	uint32_t key;
	const struct capstats_ifdesc *desc;
	uint64_t start_ns, now_ns;
	uint64_t recv, if_drop, os_drop;
};
void pcapng_out_isb(struct pcapng_out *w, const struct pcapng_isb *isb);

/* The last statistics block of each interface of the source (pcapng_out_open), as the input had
 * it: call once its whole file has been read, and no reader feeds the source any more. */
void pcapng_out_input_isbs(struct pcapng_out *w);

/* Flush and close: 0, or -1 when a write failed (message in errbuf). */
int pcapng_out_close(struct pcapng_out *w, char *errbuf, size_t errlen);

#endif
