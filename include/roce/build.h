/* build.h: the packet builder, the decoder's mirror. It writes complete frames (link layer,
 * RoCEv1 GRH or RoCEv2 IPv4/IPv6 + UDP, BTH, the opcode's extended headers, payload, pad and a
 * correct, or on request a deliberately wrong, ICRC) using the decoder's own offset constants,
 * and can wrap a frame in a mirror/overlay encapsulation (GRE, ERSPAN I/II/III, VXLAN). */
#ifndef ROCE_BUILD_H
#define ROCE_BUILD_H

#include "roce/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

enum roce_build_icrc {
	ROCE_BUILD_ICRC_GOOD = 0,  /* the correct ICRC */
	ROCE_BUILD_ICRC_BAD,       /* the correct ICRC with every bit flipped */
	ROCE_BUILD_ICRC_VALUE,     /* icrc_value as given */
};

#define ROCE_BUILD_PADCNT_AS_GIVEN 0x01u /* use h.bth.padcnt; default: pad the payload to 4 bytes */
#define ROCE_BUILD_HDRS_AS_GIVEN 0x02u   /* use h.hdrs; default: the opcode's extended headers */
#define ROCE_BUILD_ETH_MIN_FRAME 0x04u   /* pad Ethernet frames to 60 bytes, as on the wire */
#define ROCE_BUILD_BAD_IP_CSUM 0x08u     /* write a wrong IPv4 header checksum */
#define ROCE_BUILD_BAD_UDP_CSUM 0x10u    /* write a wrong (non-zero) UDP checksum */
#define ROCE_BUILD_NO_PAD_BYTES 0x20u    /* set PadCnt in the BTH but write no pad bytes */

struct roce_build {
	unsigned linktype;          /* ROCE_LINK_ETHERNET (0 means this), RAW, SLL or SLL2 */
	uint8_t eth_dst[6], eth_src[6];
	unsigned n_vlan;
	struct roce_vlan vlan[ROCE_MAX_VLAN]; /* outer first; tpid 0 means 0x8100 */
	uint16_t sll_pkttype;       /* SLL/SLL2 packet type (0 host, 4 outgoing) */
	unsigned version;           /* 1: RoCEv1 (GRH); 2 (0 means this): RoCEv2 */
	unsigned ip_version;        /* RoCEv2: 4 (0 means this) or 6 */
	uint8_t src[16], dst[16];   /* IPv4 addresses in the first 4 bytes; IPv6 addresses or GIDs */
	uint8_t tclass;             /* TOS / traffic class, ECN in the low 2 bits */
	uint8_t ttl;                /* TTL / hop limit; 0 means 64 */
	uint32_t flow_label;
	uint16_t ip_id;
	bool dont_fragment;
	const uint8_t *ip_options;  /* IPv4 options (multiple of 4, at most 40 bytes), or IPv6
				       extension headers, each with its own next-header byte */
	unsigned ip_options_len;
	uint8_t ip6_first_ext;      /* IPv6 next header of the first extension header */
	uint16_t udp_sport, udp_dport; /* udp_dport 0 means 4791 */
	bool udp_checksum;          /* write a real UDP checksum (default 0, as RoCE NICs do) */
	struct roce_hdrs h;         /* BTH and extended header values */
	const uint8_t *payload;
	uint32_t payload_len;
	unsigned icrc;              /* enum roce_build_icrc */
	uint32_t icrc_value;
	unsigned flags;             /* ROCE_BUILD_* */
	char *errbuf;               /* optional, ROCE_ERRBUF_SIZE bytes: why a build failed */
};

/* Write the frame into out (cap bytes). Returns its length, or a negative ROCE_ERR_* with the
 * reason in b->errbuf when it is set. */
ROCE_API int roce_build_frame(const struct roce_build *b, uint8_t *out, size_t cap);

/* Recompute the ICRC of the RoCE frame in frame (len bytes, link type linktype) after its bytes
 * were changed, and write it in place (the IPv4 header checksum too when fix_ip_csum). Returns
 * the new ICRC (as the CRC-32 value), or a negative ROCE_ERR_* (ROCE_ERR_ARG: not a whole
 * RoCE packet) with the reason in errbuf when it is not NULL. */
ROCE_API int64_t roce_icrc_recompute(uint8_t *frame, uint32_t len, unsigned linktype, bool fix_ip_csum,
				     char *errbuf);

/* A mirror/overlay encapsulation around an Ethernet frame. */
struct roce_build_wrap {
	unsigned kind;              /* ROCE_WRAP_GRE (Ethernet over GRE 0x6558), ERSPAN1/2/3, VXLAN */
	unsigned ip_version;        /* outer IP: 4 (0 means this) or 6 */
	uint8_t eth_dst[6], eth_src[6];
	uint8_t src[16], dst[16];
	struct roce_wrap w;         /* GRE key/sequence, ERSPAN and VXLAN fields as the decoder reports
				       them (kind, depth, ip_* and gre_flags/gre_proto are ignored) */
	uint32_t truncate_to;       /* keep only this many inner bytes (a mirror's truncation); 0: all */
	char *errbuf;               /* optional, ROCE_ERRBUF_SIZE bytes: why a wrap failed */
};

/* Wrap the Ethernet frame inner (len bytes) into out. Returns the length or a negative ROCE_ERR_*
 * (the reason in wr->errbuf when it is set). */
ROCE_API int roce_build_wrap(const struct roce_build_wrap *wr, const uint8_t *inner, uint32_t len,
			     uint8_t *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
