/* capstats.h: the capture's own drop counts, read from the file as libpcap reads it.
 *
 * A PSN gap seen at a mirror port may be the capture's loss rather than the network's, so
 * rocedump reports the drops the capturing tool recorded next to its loss figures. Only pcapng
 * records them: Interface Statistics Blocks (pcapng §4.6: isb_ifrecv, isb_ifdrop, isb_osdrop),
 * cumulative per interface, the last one for an interface superseding the ones before it.
 * Classic pcap files carry no drop counts.
 *
 * The scanner is fed the file's bytes in order, in pieces of any size (capstats_feed), and walks
 * the pcapng block headers; it never fails: bytes it cannot make sense of end the scan (libpcap
 * reports the damage) and leave what was found so far. */
#ifndef ROCEDUMP_CAPSTATS_H
#define ROCEDUMP_CAPSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAPSTATS_MAX_IFACES 64
#define CAPSTATS_ISB_MAX 1024  /* bytes of an ISB kept for its options; longer ones are cut */

enum capstats_format { CAPSTATS_UNKNOWN = 0, CAPSTATS_PCAP, CAPSTATS_PCAPNG, CAPSTATS_LIVE };

struct capstats_iface {
	uint32_t section, if_id;
	uint64_t recv, if_drop, os_drop;
	bool has_recv, has_if_drop, has_os_drop;
};

struct capstats {
	/* results */
	enum capstats_format format;
	bool complete;                  /* every frame of the file was read and used (set by the reader
					 * at its end, cleared when the run stopped before it: -c) */
	uint32_t n_isb;                 /* Interface Statistics Blocks seen */
	uint32_t n_ifaces;              /* entries in iface[] (interfaces with statistics) */
	bool too_many_ifaces;           /* statistics of more interfaces than iface[] holds: the
					 * totals are not known */
	struct capstats_iface iface[CAPSTATS_MAX_IFACES];

	/* scanner state */
	bool stopped;                   /* done (classic pcap) or lost (bad block length) */
	bool swapped;                   /* the current section is in the other byte order */
	uint32_t section;               /* sections seen (SHBs), the current one is section - 1 */
	uint64_t offset;                /* bytes fed */
	uint32_t remaining;             /* bytes of the current block not yet fed */
	uint32_t block_type, block_len;
	uint32_t have;                  /* bytes of the current block kept in head[] */
	uint8_t head[CAPSTATS_ISB_MAX]; /* the block's first bytes (header; ISB body) */
};

/* Totals over the interfaces: false when the file recorded no such count at all. */
struct capstats_totals {
	bool has_if_drop, has_os_drop;
	uint64_t if_drop, os_drop;
};

void capstats_init(struct capstats *s);
/* A live capture's counts so far, as the kernel gives them (pcap_stats()): packets that passed
 * the filter, dropped by the kernel (ring full), dropped by the interface. Replaces what s held;
 * describe and print_json then give the live form. */
void capstats_set_live(struct capstats *s, uint64_t received, uint64_t os_drop, uint64_t if_drop);
void capstats_feed(struct capstats *s, const uint8_t *buf, size_t n);
struct capstats_totals capstats_totals(const struct capstats *s);

/* One line for a report, no newline: "capture drops: 3 by the interface, 1 by the OS (pcapng
 * statistics of 2 interfaces)", or "capture drops: not recorded (...)" saying why; a pcapng
 * file not read to its end (-c, a read error) has "not known": the statistics blocks seen
 * by then (read ahead of the last frame used) are not the capture's totals; so has one with
 * statistics of more than CAPSTATS_MAX_IFACES interfaces. */
void capstats_describe(const struct capstats *s, char *buf, size_t len);
/* The JSON member "capture":{"format":"pcapng","if_drops":3,"os_drops":1} (null: not recorded,
 * or not known); live: "capture":{"format":"live","received":N,"os_drops":N,"if_drops":N}. */
void capstats_print_json(const struct capstats *s, FILE *out);

#endif
