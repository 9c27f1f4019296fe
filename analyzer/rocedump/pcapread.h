/* pcapread.h: the records of a classic pcap file read straight from its file descriptor, for
 * the common case, with libpcap taking over at the first record this reader is not sure of
 * (pcapread.c). */
#ifndef ROCEDUMP_PCAPREAD_H
#define ROCEDUMP_PCAPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

struct frame;

struct pcapread {
	int fd;
	bool nsec;                /* nanosecond time stamps (else microseconds) */
	uint32_t max_caplen;      /* the longest record taken: the snapshot length, at most 262,144 */
	uint8_t *buf;             /* a window of the file */
	size_t len, pos;          /* bytes in buf; the next record's offset in buf */
	uint64_t buf_off;         /* the file offset of buf[0] */
};

/* Set r up to read the records of the pcap file that libpcap has just opened on fd (p: its
 * handle, for the snapshot length and byte order). False when the file is not one this reader takes (not a regular file, pcapng, another
 * byte order or version, out of memory): libpcap then reads it all. */
bool pcapread_open(struct pcapread *r, int fd, pcap_t *p);

/* The next record into *f (its bytes stay valid until the next call):
 * 1. 0 when this reader has handed over: at the end of the data, at a record it does not take,
 * or on a read error, fp (libpcap's stream) has been positioned at that record and libpcap reads
 * from there on, with its own checks and messages. -1 when fp could not be positioned (message
 * in errbuf). r is closed on 0 and -1. */
int pcapread_next(struct pcapread *r, struct frame *f, FILE *fp, char *errbuf, size_t errlen);

void pcapread_close(struct pcapread *r);

#endif
