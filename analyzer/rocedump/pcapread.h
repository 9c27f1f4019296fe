/* pcapread.h: the records of a capture file read into a window of memory and handed out where they
 * lie in it, for the common case, with libpcap taking over at the first record this reader is not
 * sure of:
 * classic pcap records (pcapread.c) and the packet blocks of a pcapng file's first section
 * (pcapngread.c). */
#ifndef ROCEDUMP_PCAPREAD_H
#define ROCEDUMP_PCAPREAD_H

#include <stdatomic.h>
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

/* The window's memory comes in chunks of PCAPREAD_CHUNK bytes; the memory of chunks let go
 * behind the reading (at most PCAPREAD_SPARES of them) is moved ahead to hold the next ones.
 * Each move (mremap) flushes the TLB of every core the process runs on: in 4 MiB chunks the
 * moves cost the reading 0.05 s a gigabyte with two threads, in 16 MiB chunks 0.022 s, and the
 * MTU file took 7-10 % less time (tests/bench/README.md). The file is read into them
 * PCAPREAD_PIECE bytes at a time, as the records need them: a piece is still in the core's cache
 * (1 MiB of L2 here) when its records are decoded; a whole 4 MiB chunk read at once was not, and
 * the 1 GB MTU file took 12-22 % longer. */
#define PCAPREAD_CHUNK ((size_t)16 << 20)
#define PCAPREAD_PIECE ((size_t)256 << 10)
#define PCAPREAD_SPARES 4u     /* at most 64 MiB kept for later */

/* Reading ahead on another thread (pipeline.c): with the reader's lock held, a thread claims the
 * next bytes of the file not yet read or claimed, whole pieces, at most PCAPREAD_CLAIM_BYTES
 * (pcapread_claim_ahead), and reads them in after letting the lock go (pcapread_read_claim),
 * while the next thread to hold the lock takes records from the bytes before. A record that needs
 * claimed bytes waits for their read. At most PCAPREAD_CLAIMS claims are out, none beyond
 * PCAPREAD_AHEAD bytes past the next record. */
#define PCAPREAD_CLAIM_BYTES ((size_t)1 << 20)
#define PCAPREAD_CLAIMS 4u
#define PCAPREAD_AHEAD ((size_t)4 << 20)

enum pcapread_claim_state { CLAIM_READING, CLAIM_READ, CLAIM_FAILED };

struct pcapread_claim {
	size_t at, n;             /* the file's bytes [at, at + n) */
	_Atomic int state;        /* enum pcapread_claim_state */
};

struct frame;
struct capstats;
struct pcapng_section;

struct pcapread {
	bool ng;                  /* a pcapng file: its blocks are walked by pcapngread.c */
	bool nsec;                /* pcap: nanosecond time stamps (else microseconds) */
	bool failed;              /* the file could not be read on (cut shorter, an I/O error): an
				   * input error, not the end of the data */
	uint32_t max_caplen;      /* the longest record taken: the snapshot length, at most 262,144 */
	uint8_t *map;             /* the window: a range of address space as long as the file, byte k
				   * of the file at map[k] once read in; NULL: not taken */
	size_t len;               /* the bytes to read: the file's size when it was opened */
	size_t vlen;              /* the window's length: len rounded up to whole chunks */
	size_t pos;               /* the next record's offset */
	size_t filled;            /* the file's bytes are read in from released up to here */
	size_t claimed;           /* and read in or claimed up to here (pcapread_claim_ahead) */
	struct pcapread_claim claims[PCAPREAD_CLAIMS];  /* the claims out, in the file's order, */
	unsigned claim_first, claim_n;                  /* from claims[claim_first] on, claim_n of them */
	size_t released;          /* the window's chunks below this offset have been let go */
	int fd;                   /* the file, read with pread() (libpcap's stream position untouched) */
	unsigned n_spare;         /* chunks let go, their memory kept for the next ones read in */
	size_t spare[PCAPREAD_SPARES];
	struct pcapng_section *section;  /* pcapng: the first section's interfaces */
};

/* Set r up to read the records of the capture file that libpcap has just opened on fd (p: its
 * handle, for the link type, snapshot length and byte order), from a plain stdio stream. A
 * pcapng file is read from its start, and the blocks that are not packets are fed to stats (its
 * drop counts and interface names); with stats NULL a pcapng file is not taken. False when the
 * file is not one this reader takes (not a regular file, another byte order, a pcap version
 * other than 2.4, no address space for its window): libpcap then reads it all. */
bool pcapread_open(struct pcapread *r, int fd, pcap_t *p, struct capstats *stats);

/* n bytes of the file at offset at into to, pread() until all are there; false when the file ends
 * before them (cut shorter) or a read fails. */
bool pcapread_read_at(int fd, uint8_t *to, size_t n, size_t at);

/* Bytes [.., end) of the file are in the window (read in if need be); false past the data, or when
 * the file cannot be read on (r->failed). */
bool pcapread_fill(struct pcapread *r, size_t end);
static inline bool pcapread_have(struct pcapread *r, size_t end)
{
	return end <= r->filled || pcapread_fill(r, end);
}

/* The next bytes to read ahead, claimed by the caller, who holds the reader's lock: bytes of them
 * (rounded down to whole pieces), fewer at the end of the file. The claim is then read in with
 * pcapread_read_claim() (the lock let go). NULL when there is nothing to claim (the end of the
 * file, enough claimed already, less than a piece asked for). */
struct pcapread_claim *pcapread_claim_ahead(struct pcapread *r, size_t bytes);
/* Claim c read into the window, by the thread that claimed it, without the reader's lock; r's
 * file and window are all it reads of r. */
void pcapread_read_claim(const struct pcapread *r, struct pcapread_claim *c);

/* The next record into *f (data, lengths, time, interface): 1. Its bytes lie in the window, and
 * stay valid until pcapread_release() passes them or pcapread_close(). 0 when this reader stops:
 * at the end of the data (the file's size when it was opened), at a record or block it does not
 * take, or when the file could not be read on (r->failed: an input error to report). r->pos is
 * then where libpcap must read on from, with its own checks and messages, and whatever the file
 * has grown by since: pcapread_hand_over() positions a pcap file's stream there; a pcapng file
 * needs pcapng_prefix() read first. The window stays until pcapread_close(): frames handed out
 * may still be in use. */
int pcapread_next(struct pcapread *r, struct frame *f);

/* After pcapread_next() stopped on a pcap file: fp (libpcap's stream over the file) positioned
 * at r->pos. 0, or -1 with a message in errbuf. */
int pcapread_hand_over(struct pcapread *r, FILE *fp, char *errbuf, size_t errlen);

/* Let the window's chunks go below the record of oldest (a frame's data from this reader), or
 * below the next record when oldest is NULL or not in the window: no frame handed out before it
 * is used again. Chunks go in steps of PCAPREAD_RELEASE_STEP bytes, so that the memory the window
 * holds stays flat in the file's size; a call between steps is a compare. */
#define PCAPREAD_RELEASE_STEP PCAPREAD_CHUNK  /* less would let nothing go: chunks go whole */
void pcapread_release_slow(struct pcapread *r, size_t below);
static inline void pcapread_release(struct pcapread *r, const uint8_t *oldest)
{
	size_t below = oldest && oldest >= r->map && oldest < r->map + r->len ? (size_t)(oldest - r->map) : r->pos;
	if (below > r->released && below - r->released >= PCAPREAD_RELEASE_STEP)
		pcapread_release_slow(r, below);
}

void pcapread_close(struct pcapread *r);

#endif
