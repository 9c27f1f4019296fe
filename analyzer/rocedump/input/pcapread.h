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

/* The window is a ring of PCAPREAD_RING bytes of memory, reused lap after lap: byte k of the file
 * at ring[k mod PCAPREAD_RING]; a record that runs over the ring's end has the part past it copied
 * there too (into a margin of PCAPREAD_MARGIN bytes), so that it lies whole. The ring stays in the
 * caches, unlike a window as long as the file whose memory moves ahead with mremap (each move
 * flushes every core's TLB, and the memory moved comes back cold); 8 MiB is the size the
 * benchmarks (tests/bench) favoured over 16 and 32. Two threads keep up to ~8 MiB in use (4 batches of at
 * most 1 MiB, 4 MiB claimed ahead, pipeline.c); the reading goes at most a ring's length past the
 * oldest frame in use, and when a read would overwrite one (a caller that keeps more frames:
 * --threads 3 and up), the reader moves on into a new ring twice as large, and the old one stays,
 * with the frames in it, until pcapread_close(). The file is read into the ring
 * PCAPREAD_PIECE bytes at a time, as the records need them: a piece is still in the core's cache
 * (1 MiB of L2 here) when its records are decoded; a whole 4 MiB read at once was not, and the 1 GB
 * MTU file took 12-22 % longer. */
#define PCAPREAD_RING ((size_t)8 << 20)
#define PCAPREAD_PIECE ((size_t)256 << 10)
#define PCAPREAD_MARGIN ((size_t)512 << 10)  /* the longest record or block the reader takes */
#define PCAPREAD_RETIRED 12u                  /* rings outgrown (8 MiB to 32 GiB) */

/* Reading ahead on another thread (pipeline.c): with the reader's lock held, a thread claims the
 * next bytes of the file not yet read or claimed, whole pieces, at most PCAPREAD_CLAIM_BYTES
 * (pcapread_claim_ahead), and reads them in after letting the lock go (pcapread_read_claim),
 * while the next thread to hold the lock takes records from the bytes before. A record that needs
 * claimed bytes waits for their read. At most PCAPREAD_CLAIMS claims are out, none beyond
 * PCAPREAD_AHEAD bytes past the next record. */
#define PCAPREAD_CLAIM_BYTES ((size_t)1 << 20)
#define PCAPREAD_CLAIMS 4u
#define PCAPREAD_AHEAD ((size_t)4 << 20)

struct pcapread_ring {
	uint8_t *base;            /* byte k of the file (that this ring holds) at base[k & mask] */
	size_t mask;              /* its size less one (a power of two) */
	size_t from;              /* the first offset read into it (its frames begin there or later) */
};

enum pcapread_claim_state { CLAIM_READING, CLAIM_READ, CLAIM_FAILED };

struct pcapread_claim {
	size_t at, n;             /* the file's bytes [at, at + n) */
	struct pcapread_ring ring;  /* read into this ring */
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
	struct pcapread_ring ring;  /* the ring read into; base NULL: the file not taken */
	size_t len;               /* the bytes to read: the file's size when it was opened */
	size_t pos;               /* the next record's offset */
	size_t filled;            /* the file's bytes are read in up to here */
	size_t claimed;           /* and read in or claimed up to here (pcapread_claim_ahead) */
	struct pcapread_claim claims[PCAPREAD_CLAIMS];  /* the claims out, in the file's order, */
	unsigned claim_first, claim_n;                  /* from claims[claim_first] on, claim_n of them */
	size_t released;          /* no frame in use begins before this offset (pcapread_release) */
	int fd;                   /* the file, read with pread() (libpcap's stream position untouched) */
	unsigned n_retired;       /* rings outgrown, kept until pcapread_close() */
	struct pcapread_ring retired[PCAPREAD_RETIRED];
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

/* Where the file's next n bytes, [r->pos, r->pos + n), lie whole in the window (n at most
 * PCAPREAD_MARGIN), read in if need be; NULL past the data, or when the file cannot be read on (r->failed). Bytes that
 * run over the ring's end have the part past it copied into the margin (which no frame in use
 * holds: it was last written for a record a lap before). A pointer got before a later call may
 * lie in a ring outgrown since (above): still valid, but not where that call reads. */
const uint8_t *pcapread_get(struct pcapread *r, size_t n);

/* The same for the record or block at r->pos, in two steps (its header, then all of it), each a
 * compare or two: *edge, set by the first, says whether the second must take the slow way. */
static inline const uint8_t *pcapread_get_head(struct pcapread *r, size_t n, bool *edge)
{
	size_t o = r->pos & r->ring.mask;
	*edge = o > r->ring.mask + 1 - PCAPREAD_MARGIN;  /* a record from here may run over the end */
	if (__builtin_expect(!*edge && r->pos + n <= r->filled, 1))
		return r->ring.base + o;
	*edge = true;  /* and the ring may have grown */
	return pcapread_get(r, n);
}
static inline const uint8_t *pcapread_get_whole(struct pcapread *r, const uint8_t *head, size_t n, bool edge)
{
	return __builtin_expect(!edge && r->pos + n <= r->filled, 1) ? head : pcapread_get(r, n);
}

/* The next bytes to read ahead, claimed by the caller, who holds the reader's lock: bytes of them
 * (rounded down to whole pieces), fewer at the end of the file. The claim is then read in with
 * pcapread_read_claim() (the lock let go). NULL when there is nothing to claim (the end of the
 * file, enough claimed already, less than a piece asked for). */
struct pcapread_claim *pcapread_claim_ahead(struct pcapread *r, size_t bytes);
/* Claim c read into the window (the ring it names), by the thread that claimed it, without the
 * reader's lock; r's file is all it reads of r. */
void pcapread_read_claim(const struct pcapread *r, struct pcapread_claim *c);

/* The next record into *f (data, lengths, time, interface): 1. Its bytes lie in the window, and
 * stay valid until pcapread_release() passes them or pcapread_close(). 0 when this reader stops:
 * at the end of the data (the file's size when it was opened), at a record or block it does not
 * take, or when the file could not be read on (r->failed: an input error to report). r->pos is
 * then where libpcap must read on from, with its own checks and messages, and whatever the file
 * has grown by since: pcapread_hand_over() positions a pcap file's stream there; a pcapng file
 * needs pcapng_prefix() read first. The window stays until pcapread_close(): frames handed out
 * may still be in use. A caller that keeps more of the file than a ring holds gets frames in
 * larger rings, never frames read over (pcapread.h). */
int pcapread_next(struct pcapread *r, struct frame *f);

/* After pcapread_next() stopped on a pcap file: fp (libpcap's stream over the file) positioned
 * at r->pos. 0, or -1 with a message in errbuf. */
int pcapread_hand_over(struct pcapread *r, FILE *fp, char *errbuf, size_t errlen);

/* No frame before oldest (a frame's data from this reader; NULL: none in use) is used again: the
 * ring may be read over up to it. Cheap enough to call for every frame. */
size_t pcapread_release_elsewhere(const struct pcapread *r, const uint8_t *oldest);
static inline void pcapread_release(struct pcapread *r, const uint8_t *oldest)
{
	size_t below, o = (size_t)((uintptr_t)oldest - (uintptr_t)r->ring.base);
	if (oldest && o <= r->ring.mask + PCAPREAD_MARGIN)  /* in the ring: the latest offset < pos it can be */
		below = r->pos - ((r->pos - o) & r->ring.mask);
	else
		below = pcapread_release_elsewhere(r, oldest);
	if (below > r->released)
		r->released = below;
}

void pcapread_close(struct pcapread *r);

#endif
