/* input.h: open a capture file (pcap or pcapng, or "-" for stdin) with libpcap, apply a BPF
 * filter, and hand out frames with the link type mapped to the core's ROCE_LINK_* numbers. The
 * records of a plain pcap file are read by pcapread.c as long as it is sure of them.
 * The bytes libpcap reads pass by a capstats scanner on the way, which collects the capture's
 * drop counts from pcapng statistics blocks (capstats.h). */
#ifndef ROCEDUMP_INPUT_H
#define ROCEDUMP_INPUT_H

#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

#include "capstats.h"
#include "pcapread.h"

struct input {
	pcap_t *pcap;
	FILE *fp;                 /* what libpcap reads: a stdio stream over `source` */
	struct input_source *source;
	char *iobuf;
	unsigned linktype;  /* ROCE_LINK_* (LINKTYPE_* number) */
	const char *name;
	struct bpf_program filter;  /* the compiled filter; bf_insns NULL when there is none */
	bool direct;              /* records come from `records` until it hands over to libpcap */
	struct pcapread records;
};

/* Room for any message input_open_file() or input_next() writes (longer paths are cut). */
#define INPUT_ERRLEN (PCAP_ERRBUF_SIZE + 512)

struct frame {
	const uint8_t *data;
	uint32_t caplen, wirelen;
	int64_t ts_sec;           /* may be negative (a pcapng if_tsoffset, a pcap past 2038) */
	uint32_t ts_nsec;         /* 0 .. 999,999,999 */
	uint32_t iface;           /* pcapng: capstats_iface_key() of its interface; 0: not known (pcap) */
	const char *iface_name;   /* its if_name, "" if none (valid while the input is open) */
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

/* Open path ("-" is stdin) and compile filter (NULL or "" for none). Returns 0, or -1 with
 * a message in errbuf. */
int input_open_file(struct input *in, const char *path, const char *filter, char *errbuf, size_t errlen);
/* 1: a frame; 0: end of file; -1: read error (message in errbuf). */
int input_next(struct input *in, struct frame *f, char *errbuf, size_t errlen);
void input_close(struct input *in);
/* The drop counts found in the bytes read so far (complete once input_next returned 0). */
const struct capstats *input_capstats(const struct input *in);
/* The run stopped before the end of the file (-c): the counts found are not complete, however
 * far ahead of the last frame used the file was read. */
void input_stopped_early(struct input *in);

#endif
