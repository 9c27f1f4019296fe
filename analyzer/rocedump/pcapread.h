/* pcapread.h: the records of a capture file read straight from a read-only mapping of it, for
 * the common case, with libpcap taking over at the first record this reader is not sure of:
 * classic pcap records (pcapread.c) and the packet blocks of a pcapng file's first section
 * (pcapngread.c). */
#ifndef ROCEDUMP_PCAPREAD_H
#define ROCEDUMP_PCAPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

/* The file's fields in this machine's byte order: the only order the direct readers take. */
static inline uint32_t pcapread_ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t pcapread_ld16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

struct frame;
struct capstats;
struct pcapng_section;

struct pcapread {
	bool ng;                  /* a pcapng file: its blocks are walked by pcapngread.c */
	bool nsec;                /* pcap: nanosecond time stamps (else microseconds) */
	uint32_t max_caplen;      /* the longest record taken: the snapshot length, at most 262,144 */
	uint8_t *map;             /* the file, mapped read-only (PROT_READ); NULL: not taken */
	size_t len;               /* the bytes mapped: the file's size when it was opened */
	size_t pos;               /* the next record's offset */
	size_t released;          /* the mapping's pages below this offset have been let go */
	struct pcapng_section *section;  /* pcapng: the first section's interfaces */
};

/* Set r up to read the records of the capture file that libpcap has just opened on fd (p: its
 * handle, for the link type, snapshot length and byte order), from a plain stdio stream. A
 * pcapng file is read from its start, and the blocks that are not packets are fed to stats (its
 * drop counts and interface names); with stats NULL a pcapng file is not taken. False when the
 * file is not one this reader takes (not a regular file, another byte order, a pcap version
 * other than 2.4, not mappable): libpcap then reads it all. */
bool pcapread_open(struct pcapread *r, int fd, pcap_t *p, struct capstats *stats);

/* The next record into *f (data, lengths, time, interface): 1. Its bytes lie in the mapping, and
 * stay valid until pcapread_release() passes them or pcapread_close(). 0 when this reader stops:
 * at the end of the data mapped, or at a record or block it does not take. r->pos is then where
 * libpcap must read on from, with its own checks and messages, and whatever the file has grown
 * by since: pcapread_hand_over() positions a pcap file's stream there; a pcapng file needs
 * pcapng_prefix() read first. The mapping stays until pcapread_close(): frames handed out may
 * still be in use. */
int pcapread_next(struct pcapread *r, struct frame *f);

/* After pcapread_next() stopped on a pcap file: fp (libpcap's stream over the file) positioned
 * at r->pos. 0, or -1 with a message in errbuf. */
int pcapread_hand_over(struct pcapread *r, FILE *fp, char *errbuf, size_t errlen);

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
