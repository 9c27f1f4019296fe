/* link.h: roceconform's link layer (link.c): one libpcap handle on the given interface that
 * sends (pcap_inject, paced) and captures the DUT's answers (a BPF filter for the DUT's address),
 * resolves the DUT's MAC (ARP, IPv6 neighbour discovery) and answers ARP/ND for the tester's
 * --local-ip, since the DUT sends to the GID it was given. */
#ifndef CONFORM_LINK_H
#define CONFORM_LINK_H

#include <pcap/pcap.h>

#include "conform.h"

struct link {
	pcap_t *p;
	int fd;                     /* selectable */
	uint8_t mac[6];             /* the tester's source MAC */
	uint8_t dut_mac[6];
	bool have_dut_mac;
	char refused[200];          /* the DUT's ARP/ND answer gave a MAC never sent to: why */
	struct conf_addr local, dut;
	bool answer_nd;             /* answer ARP/ND for local (the host does not own it) */
	int64_t min_gap_ns;         /* pacing: 1 s / pps */
	int64_t last_send_ns;
	uint64_t sent, arp_answers;
	char filter[512];
};

/* A received frame handed to the caller (the link layer keeps ARP/ND to itself). */
struct link_frame {
	const uint8_t *data;
	uint32_t caplen, len;
	int64_t ts_ns;
};

int64_t now_ns(void);

/* Open o->iface (needs CAP_NET_RAW), set the capture filter, learn the interface MAC. 0, or -1
 * with the reason in err. */
int link_open(struct link *l, const struct conf_opts *o, char err[CONF_ERRLEN]);
void link_close(struct link *l);

/* Send one frame, waiting first as the pacing requires. 0, or -1 with the reason in err. */
int link_send(struct link *l, const uint8_t *frame, uint32_t len, char err[CONF_ERRLEN]);

/* Send one frame now, outside the pacing (link-level control frames: PFC). 0, or -1 with the reason
 * in err. */
int link_inject(struct link *l, const uint8_t *frame, uint32_t len, char err[CONF_ERRLEN]);

/* Wait up to timeout_ms for a frame that is not ARP/ND (those are answered here). 1 with *f set
 * (valid until the next call), 0 on timeout, -1 on a capture error (reason in err). */
int link_next(struct link *l, int timeout_ms, struct link_frame *f, char err[CONF_ERRLEN]);
/* The same until the time deadline (now_ns()'s clock), to the nanosecond. */
int link_next_until(struct link *l, int64_t deadline, struct link_frame *f, char err[CONF_ERRLEN]);

/* Resolve the DUT's MAC by ARP or ND (unless given). 0, or -1 with the reason in err. */
int link_resolve(struct link *l, int timeout_ms, char err[CONF_ERRLEN]);

/* Frames the capture dropped so far (pcap_stats), or 0 when unknown. */
uint64_t link_drops(struct link *l);

/* Whether this host owns addr (on any interface). */
bool host_owns(const struct conf_addr *addr);

/* Whether ip is the broadcast address of the IPv4 subnet of addr with netmask mask. */
bool ip4_is_broadcast_of(const uint8_t ip[4], const uint8_t addr[4], const uint8_t mask[4]);
/* Whether a is the broadcast address of a subnet of iface: a sentence saying so in buf, or NULL. */
const char *iface_broadcast(const char *iface, const struct conf_addr *a, char *buf, size_t n);

/* Text of a MAC address (aa:bb:cc:dd:ee:ff). */
const char *mac_str(const uint8_t mac[6], char *buf, size_t n);

/* Text of an address. */
const char *addr_str(const struct conf_addr *a, char *buf, size_t n);

#endif
