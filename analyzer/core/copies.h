/* copies.h: recognise copies of a frame (internal): the same packet seen twice by the capture, on
 * two interfaces (tcpdump -i any, a pcapng of several interfaces), at two mirror points (two
 * ports, ERSPAN ingress and egress sessions, before and after a routed hop), or duplicated on the
 * way with its IPv4 id unchanged. analyze.c keeps copies out of the transport analysis. */
#ifndef ROCE_COPIES_H
#define ROCE_COPIES_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/decode.h"

/* The sightings table: every packet seen within the copy window, with every place it was seen.
 * An entry is kept until every capture point's newest frame is past its newest sighting plus the
 * window (no later frame of any point can then be a copy of it), or until room is needed past
 * COPY_SIGHTINGS_MAX entries: then the oldest is forgotten and counted (copies_unchecked). The
 * entries sit in a ring in the order they were made, which grows from COPY_SIGHTINGS_MIN; each
 * hash bucket heads a chain of entries, newest first, so that the ring's head moving on forgets
 * them without touching the chains. Entries are forgotten when the ring needs their room.
 *
 * A capture read in its own order (the Wireshark plugin on a pcapng file: dumpcap writes each
 * interface's frames in batches) may show a second point long after the first point's frames of
 * the same time: the ring's 8,192 entries are what it keeps for it. A capture whose frames
 * come in time order across its points (sightings_time_ordered: a classic pcap file, one live
 * interface) needs none of that: the ring starts at 1,024 entries (80 KB, where the cache still
 * holds the entry a frame writes, rather than 640 KB), and what the first point is done with is
 * forgotten when the second shows up, so that which entries the fold (path.h) sees with two
 * points or more does not depend on the ring's size. */
#define COPY_SIGHTINGS_MIN 8192u
#define COPY_SIGHTINGS_ORDERED 1024u
#define COPY_SIGHTINGS_MAX (1u << 20)
#define COPY_INLINE 2u            /* sightings an entry holds inline; more go to an array */
#define COPY_POINTS_MAX 256u      /* capture points told apart; beyond, points share a slot */
#define COPY_MORE_FIRST 2u        /* sightings an entry's first `more` array holds */
#define COPY_SPARE_MAX 65536u

struct sighting {
	int64_t ts;
	uint32_t frame;           /* its frame number's low 32 bits */
	uint32_t where;           /* where it was seen (copy_where) */
	uint32_t point;           /* the capture point: its index in struct sightings' points */
};

/* A packet: its key, its ICRC when some point captured it whole, where it was seen. */
struct sight_entry {
	uint64_t key;             /* copy_content_key */
	uint32_t next;            /* the previous entry of its bucket (a sequence number) */
	uint32_t icrc;            /* has_icrc: the ICRC on the wire */
	uint8_t n;                /* sightings (at most UINT8_MAX are kept) */
	bool has_icrc;
	uint16_t more_alloc;      /* room in more */
	uint32_t stream;          /* its stream's id, set after the transport analysis took it (path.h);
				   * 0: none (a CNP, a copy, no stream) */
	struct sighting *more;    /* sightings COPY_INLINE and on */
	struct sighting s[COPY_INLINE];
};

struct sightings {
	struct sight_entry *ring; /* entry of sequence number q: ring[q & mask] */
	uint32_t *bucket;         /* newest entry's sequence number per bucket */
	uint32_t mask;            /* ring and buckets: mask + 1 each */
	uint32_t head, tail;      /* sequence numbers: the oldest entry, the next one */
	uint32_t n_points, last_point;
	bool time_ordered;        /* sightings_time_ordered */
	/* the frames' own time stamps: the newest, and the farthest one came back behind it (a
	 * capture in time order: 0; every point's frames up to newest - back are then all in) */
	int64_t raw_newest, raw_back;
	int64_t off_min, off_max; /* the least and greatest offset a point was given (sightings_offset) */
	int64_t window_ns;
	int64_t slack_ns;         /* kept past the window besides (roce_analyzer_path_offsets' spread) */
	uint64_t unchecked;       /* entries forgotten for room while a copy could still come */
	/* arrays of COPY_MORE_FIRST sightings (an entry's first `more`) given back by forgotten
	 * entries, kept for the next (a capture of three points or more needs one per packet): a
	 * list through their first bytes, at most COPY_SPARE_MAX */
	void *spare;
	uint32_t n_spare;
	uint32_t last_frame;      /* the frame of the entry added last */
	bool unsorted;            /* an entry's frame came before the one added before it (a file's
				   * interfaces analysed in time order): sightings_of_frame() searches
				   * them all */
	/* called with every entry as it is forgotten (path.h folds its sightings into the path
	 * statistics); NULL: none */
	void (*fold)(void *user, const struct sightings *t, const struct sight_entry *e);
	void *fold_user;
	struct capture_point {
		uint64_t id;
		int64_t newest;   /* the newest time a frame of it had, less its offset */
		int64_t offset;   /* its clock minus the reference clock (sightings_offset), 0: none */
	} points[COPY_POINTS_MAX];
};

/* Whether roce_analyze() runs the transport analysis on a frame (copy detection included): a
 * RoCE packet with a valid opcode, its headers captured up to the extended ones, and addresses
 * to key a stream on. */
static inline bool transport_analysable(const struct roce_pkt *p)
{
	return p->version && p->op && (p->op->flags & ROCE_OPF_VALID) && p->trunc_layer != ROCE_LAYER_EXT &&
	       p->net.addr_len;
}

/* The packet's key: what no hop changes and every capture point captured, from the IP header (or
 * GRH) on: its addresses, IPv4 id, UDP source port, BTH and length (not the TTL / hop limit,
 * TOS / traffic class, flow label or checksums). The ICRC is compared beside it where both
 * sightings captured it (copy_icrc), so that a frame cut before it still matches a whole one.
 * Never 0. */
uint64_t copy_content_key(const struct roce_pkt *p, const uint8_t *frame);

/* Whether the frame holds its ICRC whole (*icrc: its value). */
static inline bool copy_icrc(const struct roce_pkt *p, uint32_t *icrc)
{
	*icrc = p->icrc_wire;
	return p->icrc_off && p->icrc_off + 4 <= roce_readable_len(p->caplen);
}

/* Where the frame was seen: the capture interface, SLL2 interface index and packet type, the
 * mirror wrapper (kind, ERSPAN session and direction, GRE key, VXLAN VNI, outer source address),
 * the VLAN tags and the Ethernet addresses (a routed hop changes them). */
uint32_t copy_where(const struct roce_pkt *p, const uint8_t *frame);

/* The capture point a frame was seen at, for the table's forgetting: the capture interface, SLL2
 * interface index, mirror session (kind, ERSPAN session and direction, GRE key, VXLAN VNI, outer
 * source address). Frames of one point come in time order. */
uint64_t copy_point(const struct roce_pkt *p, const uint8_t *frame);

/* How a frame's packet was seen before (sightings_find). */
enum copy_seen {
	COPY_NEW,                 /* not within the window */
	COPY_ELSEWHERE,           /* within it, somewhere else: a copy */
	COPY_SAME_PLACE,          /* within it, at the same place: a copy only if nothing else can
				   * explain it (the caller's call: a counted IPv4 id that did not change) */
};

int sightings_init(struct sightings *t, int64_t window_ns);
void sightings_free(struct sightings *t);
/* Before the first entry: the frames come in time order across capture points (the ring of
 * COPY_SIGHTINGS_ORDERED entries, the first point's finished entries forgotten when a second
 * shows up). */
void sightings_time_ordered(struct sightings *t);

/* The bucket a key's entries are chained from, of mask + 1 buckets. */
static inline uint32_t sightings_bucket_of(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key ^ (key >> 29)) & mask);
}

static inline uint32_t sightings_bucket_index(const struct sightings *t, uint64_t key)
{
	return sightings_bucket_of(key, t->mask);
}

/* Sighting k of entry e (k < e->n). */
static inline const struct sighting *sighting_at(const struct sight_entry *e, unsigned k)
{
	return k < COPY_INLINE ? &e->s[k] : &e->more[k - COPY_INLINE];
}

/* Every entry forgotten (folded first, when a fold is set): at the end of the capture. */
void sightings_flush(struct sightings *t);

/* The entry whose first sighting was frame number frame (its low 32 bits), NULL if it is no longer
 * (or never was) in the table: a binary search of the ring, whose entries are in frame order (but
 * when unsorted: then a look at each). */
const struct sight_entry *sightings_of_frame(const struct sightings *t, uint32_t frame);

/* The index of the point with this id, its newest time moved on to ts (its own clock's). */
uint32_t sightings_point(struct sightings *t, uint64_t id, int64_t ts);

/* Point i's clock runs offset ns ahead of the reference clock: the table holds its times less
 * offset, so that a packet's sightings at points whose clocks differ by more than the window still
 * match (sighting.ts and the finds' ts are then the reference clock's: sightings_time). */
void sightings_offset(struct sightings *t, uint32_t i, int64_t offset);

/* The time (the reference clock's) up to which point i's frames are all in, judged from what came
 * so far: its newest, or, when the capture came in time order across its points but for steps back
 * of at most raw_back, the capture's newest time stamp less raw_back (a quiet point is judged to
 * have moved on with the others). path.c's judgement of a lost packet uses it; the table's
 * forgetting does not (a file read in its own order, its interfaces in batches, shows its first
 * step back only at the second batch). */
static inline int64_t sightings_reached(const struct sightings *t, uint32_t i)
{
	int64_t r = t->points[i].newest;
	if (t->raw_newest != INT64_MIN && t->raw_newest - t->raw_back - t->points[i].offset > r)
		r = t->raw_newest - t->raw_back - t->points[i].offset;
	return r;
}

/* A frame's time stamp ts at point i in the reference clock. */
static inline int64_t sightings_time(const struct sightings *t, uint32_t i, int64_t ts)
{
	return ts - t->points[i].offset;
}

/* The packet with this key (and ICRC, has_icrc) sighted within the window of ts: *seen says how,
 * and the entry returned holds its sightings (NULL: COPY_NEW). It is valid until the next
 * sightings_add. Its bucket's chain is walked newest first, only as far as an entry could still be
 * within the window (the frames' steps back in time and the points' offsets allowed for), and over
 * at most COPY_CHAIN_MAX entries: packets with the same bytes (a queue pair's CNPs, each PSN 0,
 * IPv4 id 0; a storm of resends) share one chain, which a walk to its end at every frame made
 * quadratic in their number. */
#define COPY_CHAIN_MAX 128u
struct sight_entry *sightings_find(struct sightings *t, uint64_t key, uint32_t icrc, bool has_icrc, int64_t ts,
				   uint32_t where, enum copy_seen *seen);

/* One more sighting of entry e's packet (from sightings_find). */
void sightings_also(struct sightings *t, struct sight_entry *e, const struct sighting *x);

/* A new packet, first sighted as x. */
void sightings_add(struct sightings *t, uint64_t key, uint32_t icrc, bool has_icrc, const struct sighting *x);

#endif
