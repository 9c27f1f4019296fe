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
 * reports the damage) and leave what was found so far.
 *
 * The same walk tells which interface each frame of a pcapng file was captured on, which libpcap
 * does not say: with capstats_track_packets(), every packet block (Enhanced, Simple, obsolete
 * Packet Block: pcapng §4.3-4.5) queues its interface, lengths and a copy of its first
 * bytes, and capstats_packet_iface() takes the entry of the frame libpcap hands out (records
 * libpcap's filter rejected are passed over). Interface Description Blocks (§4.2) give the
 * interfaces' names (if_name), tracked or not: pcapngread.c feeds the blocks that are not packets
 * and names the frames it hands out itself. */
#ifndef ROCEDUMP_CAPSTATS_H
#define ROCEDUMP_CAPSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAPSTATS_MAX_IFACES 64
#define CAPSTATS_MAX_NAMES 256
#define CAPSTATS_NAME_LEN 32
#define CAPSTATS_OPTS_MAX 16384  /* bytes of a packet block's options kept (libpcap's frames) */

/* A block's options, for -w to write again (pcapng_out.c): a copy in this machine's byte order
 * (the known numeric options of a section in the other order swapped), up to the end-of-options
 * or the first option not whole in the bytes kept, without the end-of-options itself. */
struct capstats_opts {
	uint8_t *bytes;                 /* malloc()ed; NULL with len 0: none */
	uint32_t len;
};
#define CAPSTATS_ISB_MAX 1024  /* bytes of an ISB kept for its options; longer ones are cut */

enum capstats_format { CAPSTATS_UNKNOWN = 0, CAPSTATS_PCAP, CAPSTATS_PCAPNG, CAPSTATS_LIVE };

struct capstats_iface {
	uint32_t section, if_id;
	uint64_t recv, if_drop, os_drop;
	bool has_recv, has_if_drop, has_os_drop;
	/* the last statistics block, for -w to write again: its time stamp (in its interface's
	 * units) and options (capstats_opts) */
	bool has_isb;
	uint64_t isb_ts;
	struct capstats_opts isb_opts;
};

#define CAPSTATS_HEAD_BYTES 32u  /* bytes of a frame kept to tell it when libpcap hands it out */

/* A packet block seen, waiting for libpcap to hand out its frame. */
struct capstats_pkt {
	uint32_t iface;                 /* capstats_iface_key() */
	uint32_t caplen, wirelen;       /* caplen: what the block holds (libpcap may hand out fewer:
					 * a Simple Packet Block is cut to the snapshot length) */
	uint32_t n;                     /* bytes in head[] */
	uint64_t ts;                    /* its time stamp as written (Enhanced and Packet Blocks) */
	struct capstats_opts opts;      /* its options (Enhanced Packet Blocks) */
	uint8_t head[CAPSTATS_HEAD_BYTES];  /* its first bytes */
};

/* An interface as its Interface Description Block describes it: enough for -w to describe it
 * again (link type, snapshot length and options: if_name, if_tsresol, ...). */
struct capstats_ifdesc {
	uint32_t key;                   /* capstats_iface_key() */
	uint16_t linktype;              /* a LINKTYPE_* number */
	uint32_t snaplen;
	struct capstats_opts opts;
	char name[CAPSTATS_NAME_LEN];   /* its if_name, made printable */
};

struct capstats {
	/* results */
	uint64_t reorder_overflow;      /* frames a file of several interfaces handed out before their
					 * place in time was sure: the reorder stage was full (reorder.h) */
	enum capstats_format format;
	bool complete;                  /* every frame of the file was read and used (set by the reader
					 * at its end, cleared when the run stopped before it: -c) */
	uint32_t n_isb;                 /* Interface Statistics Blocks seen */
	uint32_t n_ifaces;              /* entries in iface[] (interfaces with statistics) */
	bool too_many_ifaces;           /* statistics of more interfaces than iface[] holds: the
					 * totals are not known */
	struct capstats_iface iface[CAPSTATS_MAX_IFACES];
	bool filtered;                  /* a capture filter was applied: frames it left out were not
					 * seen (a mirror's sequence gaps may be them) */

	/* interfaces (capstats_track_packets) */
	bool track;
	struct capstats_pkt *pkts;      /* a ring of queued packet blocks */
	uint32_t pkt_alloc, pkt_head, pkt_n;
	uint32_t n_names;               /* IDBs seen, in order: names[] holds the first CAPSTATS_MAX_NAMES */
	uint32_t section_ifs;           /* IDBs in the current section */
	struct capstats_ifdesc names[CAPSTATS_MAX_NAMES];
	struct capstats_opts shb_opts;  /* the first section header's options (its comments, ...) */
	/* the packet block libpcap handed out last (capstats_packet_iface): its time stamp as
	 * written and options, valid until the next call */
	uint64_t taken_ts;
	struct capstats_opts taken_opts;
	/* the options of the Enhanced Packet Block being fed, up to CAPSTATS_OPTS_MAX bytes */
	uint8_t *tail;
	uint32_t tail_len;

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
 * the filter, dropped by the kernel (ring full), dropped by the interface. The first call
 * replaces what s held (describe and print_json then give the live form); later ones change the
 * counts alone, as the reading thread may be reading s meanwhile. */
void capstats_set_live(struct capstats *s, uint64_t received, uint64_t os_drop, uint64_t if_drop);
void capstats_feed(struct capstats *s, const uint8_t *buf, size_t n);

/* An interface name made plain, as text and JSON print it as is: a byte outside printable ASCII,
 * a quote or a backslash becomes '?'. */
void capstats_plain_name(char *name);

/* Queue the packet blocks' interfaces from now on (before the first byte is fed); false when out
 * of memory. capstats_free() gives the queue back, and the options kept. */
bool capstats_track_packets(struct capstats *s);
void capstats_free(struct capstats *s);
/* The interface of a pcapng section's interface id: (section << 16 | if_id) + 1; 0 is none. */
static inline uint32_t capstats_iface_key(uint32_t section, uint32_t if_id)
{
	return (section << 16 | (if_id & 0xffff)) + 1;
}
/* The interface of the frame libpcap just handed out (its first caplen bytes, wirelen on the wire),
 * or 0 when not known (not pcapng, not tracked, or no queued block matches it); its block's time
 * stamp and options then in taken_ts and taken_opts. */
uint32_t capstats_packet_iface(struct capstats *s, const uint8_t *data, uint32_t caplen, uint32_t wirelen);
/* Its interface id within its section, and its name ("" if the IDB has none or is not known). */
static inline uint32_t capstats_iface_id(uint32_t key)
{
	return (key - 1) & 0xffff;
}
const char *capstats_iface_name(const struct capstats *s, uint32_t key);
/* Its description, NULL if not known (it stays where it is while s is not freed). */
const struct capstats_ifdesc *capstats_iface_desc(const struct capstats *s, uint32_t key);
struct capstats_totals capstats_totals(const struct capstats *s);

/* One line for a report, no newline: "capture drops: 3 by the interface, 1 by the OS (pcapng
 * statistics of 2 interfaces)", or "capture drops: not recorded (...)" saying why; a pcapng
 * file not read to its end (-c, a read error) has "not known": the statistics blocks seen
 * by then (read ahead of the last frame used) are not the capture's totals; so has one with
 * statistics of more than CAPSTATS_MAX_IFACES interfaces. */
void capstats_describe(const struct capstats *s, char *buf, size_t len);
/* A live capture on several interfaces: a line for each, indented, after capstats_describe's
 * ("  eth0: 1 dropped by the kernel, 0 by the interface; 100 packets received by the filter");
 * nothing otherwise. */
void capstats_describe_ifaces(const struct capstats *s, FILE *out);
/* The JSON member "capture":{"format":"pcapng","if_drops":3,"os_drops":1} (null: not recorded,
 * or not known), with "reorder_overflow":N when not 0; live: "capture":{"format":"live","received":N,"os_drops":N,"if_drops":N},
 * on several interfaces followed by "interfaces":[{"name":"eth0","received":N,"if_drops":N,"os_drops":N},...]. */
void capstats_print_json(const struct capstats *s, FILE *out);

#endif
