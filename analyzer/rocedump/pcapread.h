/* pcapread.h: the records of a classic pcap file read straight from a read-only mapping of it,
 * for the common case, with libpcap taking over at the first record this reader is not sure of
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
	bool nsec;                /* nanosecond time stamps (else microseconds) */
	uint32_t max_caplen;      /* the longest record taken: the snapshot length, at most 262,144 */
	uint8_t *map;             /* the file, mapped read-only (PROT_READ); NULL: not taken */
	size_t len;               /* the bytes mapped: the file's size when it was opened */
	size_t pos;               /* the next record's offset */
	size_t released;          /* the mapping's pages below this offset have been let go */
};

/* Set r up to read the records of the pcap file that libpcap has just opened on fd (p: its
 * handle, for the snapshot length and byte order). False when the file is not one this reader
 * takes (not a regular file, pcapng, another byte order or version, not mappable): libpcap then
 * reads it all. */
bool pcapread_open(struct pcapread *r, int fd, pcap_t *p);

/* The next record into *f: 1. Its bytes lie in the mapping, and stay valid until
 * pcapread_release() passes them or pcapread_close(). 0 when this reader has handed over: at
 * the end of the data mapped, at a record it does not take, fp (libpcap's stream) has been
 * positioned at that record and libpcap reads from there on, with its own checks and messages;
 * the mapping stays until pcapread_close() (frames handed out may still be in use). -1 when fp
 * could not be positioned (message in errbuf). */
int pcapread_next(struct pcapread *r, struct frame *f, FILE *fp, char *errbuf, size_t errlen);

/* Let the mapping's pages go below the record of oldest (a frame's data from this reader), or
 * below the next record when oldest is NULL or not in the mapping: no frame handed out before
 * it is used again. Pages go in steps of PCAPREAD_RELEASE_STEP bytes, so that the memory the
 * mapping holds stays flat in the file's size; a call between steps is a compare. Letting a
 * page go too early is never wrong: the mapping stays, and the next touch reads the page back
 * from the file (a fault, nothing more). */
#define PCAPREAD_RELEASE_STEP ((size_t)16 << 20)
void pcapread_release_slow(struct pcapread *r, size_t below);
static inline void pcapread_release(struct pcapread *r, const uint8_t *oldest)
{
	size_t below = oldest && oldest >= r->map && oldest < r->map + r->len ? (size_t)(oldest - r->map) : r->pos;
	if (below > r->released && below - r->released >= PCAPREAD_RELEASE_STEP)
		pcapread_release_slow(r, below);
}

void pcapread_close(struct pcapread *r);

#endif
