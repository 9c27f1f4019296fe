/* wire.h: byte offsets and sizes of every header the core decodes and builds (internal).
 * The decoder and the builder both use these names, so the two cannot drift apart.
 * Sources: IEEE 802.3/802.1Q; libpcap's LINKTYPE_LINUX_SLL/SLL2 pages; RFC 791, 8200, 768, 2784,
 * 2890, 7348; Linux include/net/erspan.h (ERSPAN I/II/III); IBTA Vol 1 §8.3 (GRH), §9.2-9.3. */
#ifndef ROCE_WIRE_H
#define ROCE_WIRE_H

/* Ethernet II and 802.1Q tags */
#define ETH_DST 0
#define ETH_SRC 6
#define ETH_TYPE 12
#define ETH_HLEN 14
#define VLAN_TCI 0
#define VLAN_TYPE 2
#define VLAN_HLEN 4

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_VLAN 0x8100   /* the TPID the builder writes; every TPID read: roce_is_vlan_tpid() */
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_ROCEV1 0x8915
#define ETHERTYPE_MACCTRL 0x8808
#define ETHERTYPE_TEB 0x6558       /* transparent Ethernet bridging (GRE) */
#define ETHERTYPE_ERSPAN_II 0x88be /* ERSPAN type I and II */
#define ETHERTYPE_ERSPAN_III 0x22eb

/* Linux cooked capture v1 (16 bytes) and v2 (20 bytes) */
#define SLL_PKTTYPE 0
#define SLL_HATYPE 2
#define SLL_HALEN 4
#define SLL_ADDR 6
#define SLL_PROTOCOL 14
#define SLL_HLEN 16
#define SLL2_PROTOCOL 0
#define SLL2_IFINDEX 4
#define SLL2_HATYPE 8
#define SLL2_PKTTYPE 10
#define SLL2_HALEN 11
#define SLL2_ADDR 12
#define SLL2_HLEN 20

/* IPv4 */
#define IP4_VER_IHL 0
#define IP4_TOS 1
#define IP4_TOTLEN 2
#define IP4_ID 4
#define IP4_FRAG 6
#define IP4_TTL 8
#define IP4_PROTO 9
#define IP4_CSUM 10
#define IP4_SRC 12
#define IP4_DST 16
#define IP4_HLEN 20
#define IP4_MF 0x2000
#define IP4_OFFMASK 0x1fff

/* IPv6, and the IBA GRH that shares its layout (IPVer, TClass, FlowLabel, PayLen, NxtHdr, HopLmt,
 * SGID, DGID) */
#define IP6_VTF 0
#define IP6_PLEN 4
#define IP6_NXT 6
#define IP6_HLIM 7
#define IP6_SRC 8
#define IP6_DST 24
#define IP6_HLEN 40
#define GRH_NXTHDR_IBA 0x1b

#define IPPROTO_HOPOPTS_ 0
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IPPROTO_ROUTING_ 43
#define IPPROTO_FRAGMENT_ 44
#define IPPROTO_GRE_ 47
#define IPPROTO_DSTOPTS_ 60

/* UDP */
#define UDP_SPORT 0
#define UDP_DPORT 2
#define UDP_LEN 4
#define UDP_CSUM 6
#define UDP_HLEN 8
#define UDP_PORT_VXLAN 4789

/* GRE (RFC 2784/2890) */
#define GRE_FLAGS 0
#define GRE_PROTO 2
#define GRE_HLEN 4
#define GRE_F_CSUM 0x8000
#define GRE_F_ROUTING 0x4000
#define GRE_F_KEY 0x2000
#define GRE_F_SEQ 0x1000
#define GRE_VERSION 0x0007

/* ERSPAN type II (8 bytes) and III (12 bytes, + 8 if O): word 0 is common */
#define ERSPAN_W0 0
#define ERSPAN_W1 4
#define ERSPAN3_W2 8
#define ERSPAN2_HLEN 8
#define ERSPAN3_HLEN 12
#define ERSPAN3_PLATFORM_LEN 8

/* VXLAN (RFC 7348) */
#define VXLAN_FLAGS 0
#define VXLAN_VNI 4
#define VXLAN_HLEN 8
#define VXLAN_F_VNI 0x08

/* BTH (IBTA Vol 1 §9.2) */
#define BTH_OPCODE 0
#define BTH_FLAGS 1   /* SE(7) M(6) PadCnt(5:4) TVer(3:0) */
#define BTH_PKEY 2
#define BTH_FB 4      /* FECN(7) BECN(6) Resv6(5:0) */
#define BTH_DQPN 5    /* 24 bits */
#define BTH_ACK 8     /* AckReq(7) Resv7(6:0) */
#define BTH_PSN 9     /* 24 bits */

/* Extended transport headers (§9.3) */
#define RDETH_EECNXT 1
#define DETH_QKEY 0
#define DETH_RESV 4
#define DETH_SRCQP 5
#define XRCETH_XRCSRQ 1
#define FETH_WORD 0
#define RETH_VA 0
#define RETH_RKEY 8
#define RETH_DMALEN 12
#define ATOMICETH_VA 0
#define ATOMICETH_RKEY 8
#define ATOMICETH_SWAP 12
#define ATOMICETH_CMP 20
#define AETH_SYNDROME 0
#define AETH_MSN 1
#define ATOMICACKETH_ORIG 0

#endif
