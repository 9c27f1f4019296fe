/* copies.h: recognise copies of a frame (internal): the same packet seen twice by the capture, on
 * two interfaces (tcpdump -i any, a pcapng of several interfaces), at two mirror points (two
 * ports, ERSPAN ingress and egress sessions, before and after a routed hop), or duplicated on the
 * way with its IPv4 id unchanged. analyze.c keeps copies out of the transport analysis. */
#ifndef ROCE_COPIES_H
#define ROCE_COPIES_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/decode.h"

/* A small table of recent sightings, set-associative by the packet's content key (COPY_WAYS
 * slots a set, a new packet taking the slot its frame number picks): a sighting is found again
 * for about COPY_SLOTS packets. */
#define COPY_SLOTS 8192u
#define COPY_WAYS 4u
struct copy_slot {
	uint64_t key;             /* content key, 0: empty */
	int64_t ts;
	uint32_t frame;           /* its frame number's low 32 bits */
	uint32_t where;           /* where it was seen */
};

/* Whether roce_analyze() runs the transport analysis on a frame (copy detection included): a
 * RoCE packet with a valid opcode, its headers captured up to the extended ones, and addresses
 * to key a stream on. */
static inline bool transport_analysable(const struct roce_pkt *p)
{
	return p->version && p->op && (p->op->flags & ROCE_OPF_VALID) && p->trunc_layer != ROCE_LAYER_EXT &&
	       p->net.addr_len;
}

/* The packet's content from the IP header (or GRH) on, with the bytes the ICRC leaves out masked
 * (TTL / hop limit, TOS / traffic class, flow label, checksums): its addresses, IPv4 id, UDP source
 * port, BTH and length, and the ICRC on the wire, which covers all the rest. A frame captured
 * short of its ICRC has its captured bytes after the BTH (up to 64) instead. Never 0. */
uint64_t copy_content_key(const struct roce_pkt *p, const uint8_t *frame);

/* Where the frame was seen: the capture interface, SLL2 interface index and packet type, the
 * mirror wrapper (kind, ERSPAN session and direction, GRE key, VXLAN VNI, outer source address),
 * the VLAN tags and the Ethernet addresses (a routed hop changes them). */
uint32_t copy_where(const struct roce_pkt *p, const uint8_t *frame);

/* How a frame's packet was seen before (copy_find). */
enum copy_seen {
	COPY_NEW,                 /* not within the window */
	COPY_ELSEWHERE,           /* within it, somewhere else: a copy */
	COPY_SAME_PLACE,          /* within it, at the same place: a copy only if nothing else can
				   * explain it (the caller's call: a counted IPv4 id that did not change) */
};

/* The set of COPY_WAYS slots where a packet with this content key is looked for. */
static inline struct copy_slot *copy_set(struct copy_slot *table, uint64_t key)
{
	return &table[((key ^ (key >> 29)) & (COPY_SLOTS / COPY_WAYS - 1)) * COPY_WAYS];
}

/* Look the frame's packet up: *seen says how it was seen, and the slot returned holds that
 * sighting, or is the one to record this frame in (copy_note) when it is not a copy. */
struct copy_slot *copy_find(struct copy_slot *table, int64_t window_ns, uint64_t key, uint32_t where, int64_t ts,
			    uint64_t frame, enum copy_seen *seen);

static inline void copy_note(struct copy_slot *s, uint64_t key, uint32_t where, int64_t ts, uint64_t frame)
{
	*s = (struct copy_slot){key, ts, (uint32_t)frame, where};
}

#endif
