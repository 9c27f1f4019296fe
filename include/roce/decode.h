/* decode.h: the stateless, zero-copy frame decoder.
 *
 * roce_decode() walks one captured frame: link layer (Ethernet, 802.1Q/QinQ, Linux SLL/SLL2,
 * raw IP) → mirror/overlay wrappers (GRE, ERSPAN I/II/III, VXLAN) → RoCEv1 GRH or IPv4/IPv6 + UDP
 * → BTH → extended headers → payload and pad → ICRC, and fills a struct roce_pkt: offsets into the
 * caller's bytes and the decoded field values. It never allocates, never reads past caplen, and
 * never depends on other frames. */
#ifndef ROCE_DECODE_H
#define ROCE_DECODE_H

#include <stddef.h>

#include "roce/common.h"
#include "roce/events.h"
#include "roce/headers.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_UDP_PORT 4791
#define ROCE_MAX_EXTRA_PORTS 8
#define ROCE_MAX_VLAN 3
#define ROCE_MAX_WRAP 4

/* Decoder settings; zero-initialised means defaults (UDP 4791 only, all checks on). */
struct roce_decoder_config {
	uint16_t extra_ports[ROCE_MAX_EXTRA_PORTS]; /* more RoCEv2 UDP destination ports */
	unsigned n_extra_ports;
	unsigned flags;                             /* ROCE_DECODE_* */
};
#define ROCE_DECODE_NO_ICRC 0x1u   /* skip the ICRC computation (status stays "unchecked") */
#define ROCE_DECODE_NO_CSUM 0x2u   /* skip IPv4 and UDP checksum verification */
#define ROCE_DECODE_NO_FAST_PATH 0x4u /* always take the general walk (tests compare the two) */
#define ROCE_DECODE_COPY_KEY 0x8u  /* fill copy_hint, the content key copy detection looks up
				    * (analyze.h): on a decoding thread, off the analysing one's path */
#define ROCE_DECODE_STREAM_HASH 0x10u /* fill stream_hint, the hash the analyzer finds the frame's
				       * stream by (analyze.h), likewise */

/* Where a decode stopped for lack of bytes or on an invalid field. */
enum roce_layer {
	ROCE_LAYER_NONE = 0, ROCE_LAYER_LINK, ROCE_LAYER_VLAN, ROCE_LAYER_GRE, ROCE_LAYER_ERSPAN,
	ROCE_LAYER_VXLAN, ROCE_LAYER_IPV4, ROCE_LAYER_IPV6, ROCE_LAYER_GRH, ROCE_LAYER_UDP,
	ROCE_LAYER_BTH, ROCE_LAYER_EXT, ROCE_LAYER_PAYLOAD, ROCE_LAYER_ICRC,
};
/* "link", "vlan", "gre", "erspan", "vxlan", "ip", "ip6", "grh", "udp", "bth", "eth", "payload", "icrc" */
ROCE_API const char *roce_layer_name(enum roce_layer l);

struct roce_vlan { uint16_t tpid; uint8_t pcp, dei; uint16_t vid; };

/* Whether an EtherType is a VLAN tag's TPID: 802.1Q 0x8100, 802.1ad 0x88a8, the older QinQ
 * 0x9100. */
static inline bool roce_is_vlan_tpid(uint16_t t)
{
	return t == 0x8100 || t == 0x88a8 || t == 0x9100;
}

enum roce_wrap_kind {
	ROCE_WRAP_NONE = 0, ROCE_WRAP_GRE, /* plain GRE: Ethernet (0x6558) or IP inside */
	ROCE_WRAP_ERSPAN1, ROCE_WRAP_ERSPAN2, ROCE_WRAP_ERSPAN3, ROCE_WRAP_VXLAN,
};
ROCE_API const char *roce_wrap_name(enum roce_wrap_kind k); /* "gre", "erspan1", ... "vxlan" */

/* The outermost mirror/overlay wrapper around the RoCE packet. */
struct roce_wrap {
	uint8_t kind;             /* enum roce_wrap_kind */
	uint8_t depth;            /* wrappers walked in all */
	uint8_t ip_version;       /* outer IP: 4 or 6 */
	uint16_t ip_off;          /* outer IP header offset (addresses read from the frame) */
	uint16_t hdr_off;         /* the outer wrapper's own header: GRE, or VXLAN (its UDP 8 before) */
	uint16_t gre_flags, gre_proto;
	bool has_key, has_seq;
	uint32_t gre_key, gre_seq;
	/* ERSPAN (II and III share the first word's layout) */
	uint8_t erspan_ver;       /* 0 type I, 1 type II, 2 type III */
	uint16_t session_id, vlan;
	uint8_t cos, en_bso, truncated;  /* En (II) or BSO (III), T bit */
	uint32_t index;           /* II: port index */
	uint32_t timestamp;       /* III */
	uint16_t sgt;             /* III */
	uint8_t pdu_frame, ft, hwid, direction, gra, has_platform; /* III: P, FT, HwID, D, Gra, O */
	uint32_t vni;             /* VXLAN */
	uint16_t udp_sport;       /* VXLAN */
};

enum roce_net_kind { ROCE_NET_NONE = 0, ROCE_NET_IPV4, ROCE_NET_IPV6, ROCE_NET_GRH, ROCE_NET_ARP, ROCE_NET_OTHER,
		     ROCE_NET_MACC /* a MAC control frame (EtherType 0x8808): roce_pkt.macc */ };

/* The network header carrying the RoCE packet (or the innermost IP of a non-RoCE frame). */
struct roce_net {
	uint8_t kind;             /* enum roce_net_kind */
	uint16_t off;             /* offset of the IP/GRH header in the frame */
	uint16_t hdr_len;         /* IPv4 IHL*4; IPv6 40 + extension headers; GRH 40 */
	uint16_t addr_off;        /* offset of the source address; destination follows it */
	uint8_t addr_len;         /* 4 or 16 */
	uint8_t tclass;           /* IPv4 TOS / IPv6 traffic class / GRH TClass (DSCP<<2 | ECN) */
	uint8_t ttl;              /* TTL / hop limit */
	uint8_t proto;            /* IPv4 protocol / last IPv6 next header / GRH NxtHdr */
	uint32_t flow_label;
	uint16_t ip_id, frag;     /* IPv4: identification, flags+fragment offset */
	uint32_t total_len;       /* whole IP packet per its header (IPv6/GRH: 40 + payload length) */
	uint8_t ip_csum;          /* enum roce_csum (IPv4) */
	uint16_t ethertype;       /* of the frame carrying it (ROCE_NET_OTHER) */
};
static inline unsigned roce_ecn(const struct roce_net *n) { return n->tclass & 3; }
static inline unsigned roce_dscp(const struct roce_net *n) { return n->tclass >> 2; }

/* ---- MAC control frames: IEEE 802.3 Annex 31B PAUSE, IEEE 802.1Qbb PFC (EtherType 0x8808) ---- */
#define ROCE_ETHERTYPE_MACC 0x8808
#define ROCE_MACC_PAUSE 0x0001      /* 802.3x PAUSE: one pause time, all traffic */
#define ROCE_MACC_PFC 0x0101        /* 802.1Qbb PFC: class-enable vector + eight pause times */
/* The destination MAC control frames must carry: 01-80-C2-00-00-01. */
ROCE_API extern const uint8_t roce_macc_dst[6];

/* Why a MAC control frame is malformed (pfc.malformed); several may hold. */
#define ROCE_MACC_BAD_OPCODE 0x01   /* to 01-80-C2-00-00-01 with an opcode other than PAUSE or PFC */
#define ROCE_MACC_BAD_DST 0x02      /* PAUSE or PFC to another destination */
#define ROCE_MACC_BAD_ENBV 0x04     /* PFC: one of the 8 high bits of the class-enable vector set */
#define ROCE_MACC_BAD_TIME 0x08     /* PFC: a pause time set for a class that is not enabled */
#define ROCE_MACC_SHORT 0x10        /* the frame ends before the opcode's fields */
/* The reason's name ("opcode", "dst", "enbv", "time_disabled_class", "short"), for one bit. */
ROCE_API const char *roce_macc_bad_name(unsigned bit);

struct roce_macc {
	uint16_t off;             /* offset of the opcode in the frame */
	uint16_t opcode;
	uint16_t enbv;            /* PFC: the class-enable vector, all 16 bits (bit n: priority n) */
	uint16_t quanta[8];       /* PFC: pause time per priority; PAUSE: quanta[0] (units of 512 bit times) */
	uint8_t fields;           /* PFC: pause times captured (0-8); PAUSE: 1 if its pause time was */
	uint8_t malformed;        /* ROCE_MACC_* reasons, 0 if well formed */
	bool has_dst;             /* the frame has a destination MAC (not a cooked capture) */
};
/* Nanoseconds that q quanta (512 bit times each) last at link_bps bits per second. */
static inline double roce_quanta_ns(unsigned q, uint64_t link_bps)
{
	return link_bps ? (double)q * 512.0 * 1e9 / (double)link_bps : 0.0;
}

struct roce_udp {
	uint16_t off, sport, dport, len, csum;
	uint8_t csum_status;      /* enum roce_csum */
};

enum roce_icrc_status { ROCE_ICRC_UNCHECKED = 0, ROCE_ICRC_GOOD, ROCE_ICRC_BAD, ROCE_ICRC_UNVERIFIABLE };
ROCE_API const char *roce_icrc_status_name(enum roce_icrc_status s); /* "unchecked", "good", "bad", "unverifiable" */

/* One decoded frame. Offsets index the caller's frame bytes. The fields up to `vlan` are always
 * set; vlan[] holds n_vlan tags, wrap is valid when wrap.kind is not NONE, and h.bth when op is
 * not NULL (and each extended header when its ROCE_HDR_* bit is in h.hdrs). It starts a cache
 * line, and an array's records do too: rocedump's decoding threads stream records into such
 * arrays, and a line shared by two records was written in two halves, a record apart. */
struct roce_pkt {
	_Alignas(64) uint32_t caplen;
	uint32_t wirelen;
	uint16_t linktype;
	uint8_t version;          /* 0: not RoCE; 1: RoCEv1; 2: RoCEv2 */
	uint8_t trunc_layer;      /* enum roce_layer where the captured bytes ran out, or 0 */
	uint8_t invalid_layer;    /* enum roce_layer of the first invalid field, or 0 */
	uint8_t n_vlan;
	int16_t eth_off;          /* innermost Ethernet header, -1 if none */
	uint16_t ethertype;       /* innermost, after VLAN tags */
	uint16_t sll_pkttype;     /* SLL/SLL2 packet type */
	struct roce_evset events;
	struct roce_net net;
	struct roce_udp udp;      /* RoCEv2, or any UDP */
	uint16_t l4_sport, l4_dport; /* TCP/UDP ports of a non-RoCE frame */
	/* RoCE */
	uint16_t bth_off;
	uint8_t icrc_status;      /* enum roce_icrc_status */
	const struct roce_opcode_info *op;
	uint32_t roce_len;        /* BTH .. ICRC inclusive, per the IP/UDP/GRH lengths */
	uint32_t payload_off;     /* offset of the payload in the frame */
	uint32_t payload_len;     /* payload bytes net of pad */
	uint32_t icrc_off;        /* offset of the ICRC in the frame (may lie past caplen); 0 if none */
	uint32_t icrc_wire;       /* the ICRC as the CRC-32 value (wire bytes read least significant first) */
	uint32_t icrc_computed;
	uint32_t sll_ifindex;     /* SLL2: the interface index the frame was seen on; 0 otherwise */
	uint32_t capture_if;      /* set by the caller after roce_decode (which makes it 0): the
				   * capture interface, e.g. the pcapng interface id + 1; 0 if unknown.
				   * The analyzer tells copies of a frame by it (analyze.h) */
	/* the analyzer's own, set by roce_analyze_prefetch() (analyze.h) so that roce_analyze() need
	 * not compute them again; roce_decode() makes them 0 (none), but for copy_hint under
	 * ROCE_DECODE_COPY_KEY and stream_hint under ROCE_DECODE_STREAM_HASH. A hint that is not
	 * the frame's costs a lookup, never a wrong answer */
	uint64_t stream_hint;     /* its stream's hash (from its addresses and destination QP), bit 32 set */
	uint64_t copy_hint;       /* its content key among recent sightings (copies) */
	/* set only when present (see above) */
	struct roce_vlan vlan[ROCE_MAX_VLAN];  /* tags of the innermost Ethernet header, outer first */
	struct roce_wrap wrap;
	struct roce_hdrs h;
	struct roce_macc macc;    /* when net.kind is ROCE_NET_MACC */
	/* path analysis (path.h): set by roce_analyze() on a frame the copy detection took once the
	 * capture has shown a second capture point; sightings 0 (roce_decode() makes it 0): none */
	struct roce_pkt_path {
		uint8_t sightings;     /* of the packet so far, this frame's included (1: its first) */
		uint16_t point;        /* the capture point this frame was seen at (path.h's index) */
		uint16_t first_point;  /* sightings > 1: the point of the packet's first sighting, */
		uint64_t first_frame;  /* its frame, */
		int64_t delay_ns;      /* and this frame's time less that sighting's */
	} path;
};

/* Offsets are 16-bit: roce_decode() looks at no more than the first ROCE_DECODE_MAX_CAPLEN
 * captured bytes of a frame (no RoCE frame is that large), nor does anything that reads the
 * frame through a roce_pkt's offsets. */
#define ROCE_DECODE_MAX_CAPLEN 0xffffu

/* How many of a frame's caplen captured bytes a reader may look at through its roce_pkt: a
 * caller may keep only these (rocedump's batches do). */
static inline uint32_t roce_readable_len(uint32_t caplen)
{
	return caplen < ROCE_DECODE_MAX_CAPLEN ? caplen : ROCE_DECODE_MAX_CAPLEN;
}

/* Where field f of struct roce_hdrs (an extended header, or hdrs) ends in a struct roce_pkt. */
#define ROCE_PKT_HDR_END(f) \
	(offsetof(struct roce_pkt, h) + offsetof(struct roce_hdrs, f) + sizeof(((const struct roce_hdrs *)0)->f))

/* How many leading bytes of a decode hold everything roce_decode() set in it, by the rules above
 * (a multiple of 8): a copy of that many bytes reads as the whole to anyone who keeps to them
 * (rocedump hands decodes from thread to thread so). The always-set fields, the VLAN tags, the
 * wrapper and the BTH come first, then the common extended headers (headers.h); a decode with a
 * rarer one, or of a MAC control frame, takes the whole struct. */
static inline size_t roce_pkt_extent(const struct roce_pkt *p)
{
	const unsigned common = ROCE_HDR_AETH | ROCE_HDR_IMMDT | ROCE_HDR_RETH | ROCE_HDR_IETH | ROCE_HDR_CNP_PAD;
	unsigned m = p->h.hdrs;
	size_t end = ROCE_PKT_HDR_END(hdrs);

	if ((m & ~common) || p->net.kind == ROCE_NET_MACC)
		return sizeof(*p);
	if (m & ROCE_HDR_IETH)  /* the common ones, last first */
		end = ROCE_PKT_HDR_END(ieth);
	else if (m & ROCE_HDR_RETH)
		end = ROCE_PKT_HDR_END(reth);
	else if (m & ROCE_HDR_IMMDT)
		end = ROCE_PKT_HDR_END(immdt);
	else if (m & ROCE_HDR_AETH)
		end = ROCE_PKT_HDR_END(aeth);
	return (end + 7) & ~(size_t)7;
}

/* Decode one frame. Returns 1 when it is a RoCE packet (version 1 or 2, even if truncated or
 * invalid), 0 otherwise; never fails. cfg may be NULL for defaults. */
ROCE_API int roce_decode(const struct roce_decoder_config *cfg, const uint8_t *frame,
			 uint32_t caplen, uint32_t wirelen, unsigned linktype, struct roce_pkt *out);

/* Worst severity among the packet's events, or -1 when it has none. */
ROCE_API int roce_pkt_worst_severity(const struct roce_pkt *p);

#ifdef __cplusplus
}
#endif
#endif
