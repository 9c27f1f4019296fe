/* pcapngread.h: the packet blocks of a pcapng file's first section read from the window of
 * pcapread.h, for the common case, with libpcap taking over at the first block this reader is
 * not sure of (pcapngread.c). */
#ifndef ROCEDUMP_PCAPNGREAD_H
#define ROCEDUMP_PCAPNGREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcap/pcap.h>

#include "input/pcapread.h"

struct capstats;
struct frame;

/* r maps a pcapng file that libpcap has opened (p): set up to walk its blocks from the start,
 * feeding the ones that are not packets to stats. False when out of memory. */
bool pcapng_begin(struct pcapread *r, pcap_t *p, struct capstats *stats);

/* The next packet block's frame into *f: 1, or 0 when this reader stops at r->pos (see
 * pcapread_next()). */
int pcapng_next(struct pcapread *r, struct frame *f);

/* Whether interfaces of several link types were taken: libpcap cannot read on after
 * pcapng_next() stopped (it refuses such files). */
bool pcapng_mixed(const struct pcapread *r);

/* After pcapng_next() stopped: the bytes libpcap must read before the file's from r->pos on, so
 * that it reads on as it would have, had it read the whole file itself: the section's header
 * and its interfaces' description blocks so far, in the file's order. *out is malloc()ed, its
 * length returned; 0 with *out NULL when out of memory, or when those blocks cannot be read again
 * from the file (r->failed). */
size_t pcapng_prefix(struct pcapread *r, uint8_t **out);

/* Give back what pcapng_begin() took (nothing if it took nothing). */
void pcapng_end(struct pcapread *r);

#endif
