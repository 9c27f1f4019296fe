/* link.c: roceconform's link layer (see link.h). ARP is RFC 826, IPv6 neighbour discovery is
 * RFC 4861 §4.3-4.4 (solicitation / advertisement with the link-layer address option). Sending is
 * paced: never more than one frame per 1/pps seconds (CONF_MAX_PPS is the hard cap), except the
 * link-level control frames link_inject sends (PFC refreshes, whose rate the link speed sets). */
#define _GNU_SOURCE   /* ppoll: waits shorter than a millisecond */
#include "link.h"
#include "options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_IP6 0x86dd
#define ICMP6_NS 135
#define ICMP6_NA 136

int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

const char *addr_str(const struct conf_addr *a, char *buf, size_t n)
{
	if (!inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->ip, buf, (socklen_t)n))
		snprintf(buf, n, "?");
	return buf;
}

bool host_owns(const struct conf_addr *addr)
{
	struct ifaddrs *ifs, *i;
	bool own = false;
	if (getifaddrs(&ifs) != 0)
		return false;
	for (i = ifs; i && !own; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (addr->family == 4 && i->ifa_addr->sa_family == AF_INET)
			own = !memcmp(&((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, addr->ip, 4);
		else if (addr->family == 6 && i->ifa_addr->sa_family == AF_INET6)
			own = !memcmp(&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, addr->ip, 16);
	}
	freeifaddrs(ifs);
	return own;
}

const char *mac_str(const uint8_t mac[6], char *buf, size_t n)
{
	snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

bool ip4_is_broadcast_of(const uint8_t ip[4], const uint8_t addr[4], const uint8_t mask[4])
{
	uint32_t a = (uint32_t)addr[0] << 24 | (uint32_t)addr[1] << 16 | (uint32_t)addr[2] << 8 | addr[3];
	uint32_t m = (uint32_t)mask[0] << 24 | (uint32_t)mask[1] << 16 | (uint32_t)mask[2] << 8 | mask[3];
	uint32_t x = (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3];
	if (~m <= 1)        /* /31 and /32 have no broadcast address (RFC 3021) */
		return false;
	return (x & m) == (a & m) && (x | m) == 0xffffffff;
}

const char *iface_broadcast(const char *iface, const struct conf_addr *a, char *buf, size_t n)
{
	struct ifaddrs *ifs, *i;
	const char *hit = NULL;
	if (a->family != 4 || getifaddrs(&ifs) != 0)
		return NULL;
	for (i = ifs; i && !hit; i = i->ifa_next) {
		if (!i->ifa_addr || !i->ifa_netmask || i->ifa_addr->sa_family != AF_INET || strcmp(i->ifa_name, iface) != 0)
			continue;
		const uint8_t *ip = (const uint8_t *)&((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
		const uint8_t *mask = (const uint8_t *)&((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr;
		const uint8_t *brd = (i->ifa_flags & IFF_BROADCAST) && i->ifa_broadaddr ?
			(const uint8_t *)&((struct sockaddr_in *)(void *)i->ifa_broadaddr)->sin_addr : NULL;
		if (ip4_is_broadcast_of(a->ip, ip, mask) || (brd && !memcmp(brd, a->ip, 4))) {
			int len = 0;
			for (int k = 0; k < 4; k++)
				len += __builtin_popcount(mask[k]);
			snprintf(buf, n, "the broadcast address of %s's subnet %u.%u.%u.%u/%d", iface,
				 (unsigned)(ip[0] & mask[0]), (unsigned)(ip[1] & mask[1]), (unsigned)(ip[2] & mask[2]),
				 (unsigned)(ip[3] & mask[3]), len);
			hit = buf;
		}
	}
	freeifaddrs(ifs);
	return hit;
}

static int iface_mac(const char *iface, uint8_t mac[6], char err[CONF_ERRLEN])
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0) {
		snprintf(err, CONF_ERRLEN, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	int rc = ioctl(s, SIOCGIFHWADDR, &ifr);
	close(s);
	if (rc < 0) {
		snprintf(err, CONF_ERRLEN, "interface %s: %s", iface, strerror(errno));
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

int link_open(struct link *l, const struct conf_opts *o, char err[CONF_ERRLEN])
{
	char perr[PCAP_ERRBUF_SIZE] = "", dut[64];
	struct bpf_program prog;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->local = o->local;
	l->dut = o->dut;
	l->min_gap_ns = 1000000000 / (o->pps ? o->pps : CONF_DEFAULT_PPS);
	if (o->have_dut_mac) {
		memcpy(l->dut_mac, o->dut_mac, 6);
		l->have_dut_mac = true;
	}
	if (if_nametoindex(o->iface) == 0) {
		snprintf(err, CONF_ERRLEN, "no interface %s", o->iface);
		return -1;
	}
	if (o->have_local_mac)
		memcpy(l->mac, o->local_mac, 6);
	else if (iface_mac(o->iface, l->mac, err) < 0)
		return -1;
	if (l->have_dut_mac && mac_unusable(l->dut_mac, l->mac)) {
		char m[20];
		snprintf(err, CONF_ERRLEN, "--dut-mac %s is %s: refused", mac_str(l->dut_mac, m, sizeof(m)),
			 mac_unusable(l->dut_mac, l->mac));
		return -1;
	}
	l->answer_nd = !host_owns(&o->local);

	l->p = pcap_create(o->iface, perr);
	if (!l->p) {
		snprintf(err, CONF_ERRLEN, "pcap: %s", perr);
		return -1;
	}
	/* The kernel's ring holds buffer / snaplen frames: 3,200 of them while a test sends a burst
	 * (B10: 132 READs) before it reads the answers. 10,240 bytes hold a 9,000-byte jumbo frame. */
	pcap_set_snaplen(l->p, 10240);
	pcap_set_promisc(l->p, 1);
	pcap_set_immediate_mode(l->p, 1);
	pcap_set_buffer_size(l->p, 32 << 20);
	pcap_set_tstamp_precision(l->p, PCAP_TSTAMP_PRECISION_NANO);
	int rc = pcap_activate(l->p);
	if (rc < 0) {
		snprintf(err, CONF_ERRLEN, "cannot capture on %s: %s%s", o->iface, pcap_geterr(l->p),
			 rc == PCAP_ERROR_PERM_DENIED ? " (roceconform needs root or CAP_NET_RAW)" : "");
		goto fail;
	}
	if (pcap_datalink(l->p) != DLT_EN10MB) {
		snprintf(err, CONF_ERRLEN, "%s is not an Ethernet interface", o->iface);
		goto fail;
	}
	addr_str(&o->dut, dut, sizeof(dut));
	if (o->capture_filter)
		snprintf(l->filter, sizeof(l->filter), "%s", o->capture_filter);
	else if (o->vlan < 0)
		snprintf(l->filter, sizeof(l->filter), "arp or icmp6 or (src host %s and udp dst port 4791)", dut);
	else  /* tagged RoCE on a trunk port (ARP/ND stays untagged: see README) */
		snprintf(l->filter, sizeof(l->filter), "arp or icmp6 or (vlan %d and src host %s and udp dst port 4791)",
			 o->vlan, dut);
	if (pcap_compile(l->p, &prog, l->filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"  /* a long message is cut, on purpose */
		/* cut at CONF_ERRLEN bytes: the filter is at most 512 */
		(void)(snprintf(err, CONF_ERRLEN, "capture filter \"%s\": %s", l->filter, pcap_geterr(l->p)) >= CONF_ERRLEN);
#pragma GCC diagnostic pop
		goto fail;
	}
	rc = pcap_setfilter(l->p, &prog);
	pcap_freecode(&prog);
	if (rc < 0 || pcap_setnonblock(l->p, 1, perr) < 0) {
		snprintf(err, CONF_ERRLEN, "capture filter: %s", pcap_geterr(l->p));
		goto fail;
	}
	l->fd = pcap_get_selectable_fd(l->p);
	return 0;
fail:
	pcap_close(l->p);
	l->p = NULL;
	return -1;
}

void link_close(struct link *l)
{
	if (l->p)
		pcap_close(l->p);
	l->p = NULL;
}

int link_inject(struct link *l, const uint8_t *frame, uint32_t len, char err[CONF_ERRLEN])
{
	if (pcap_inject(l->p, frame, len) != (int)len) {
		snprintf(err, CONF_ERRLEN, "send: %s", pcap_geterr(l->p));
		return -1;
	}
	l->sent++;
	return 0;
}

int link_send(struct link *l, const uint8_t *frame, uint32_t len, char err[CONF_ERRLEN])
{
	int64_t t = now_ns(), next = l->last_send_ns + l->min_gap_ns;
	if (t < next) {
		struct timespec d = {(time_t)((next - t) / 1000000000), (long)((next - t) % 1000000000)};
		nanosleep(&d, NULL);
	}
	if (link_inject(l, frame, len, err) < 0)
		return -1;
	l->last_send_ns = now_ns();
	return 0;
}

/* ---- ARP (RFC 826) ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int send_arp(struct link *l, uint16_t op, const uint8_t *tha, const uint8_t *tpa, const uint8_t *dst)
{
	uint8_t f[60] = {0};
	char err[CONF_ERRLEN];
	memcpy(f, dst, 6);
	memcpy(f + 6, l->mac, 6);
	put16(f + 12, ETHERTYPE_ARP);
	put16(f + 14, 1);          /* Ethernet */
	put16(f + 16, 0x0800);     /* IPv4 */
	f[18] = 6;
	f[19] = 4;
	put16(f + 20, op);
	memcpy(f + 22, l->mac, 6);
	memcpy(f + 28, l->local.ip, 4);
	memcpy(f + 32, tha, 6);
	memcpy(f + 38, tpa, 4);
	return link_send(l, f, sizeof(f), err);
}

/* Learn the DUT's MAC from its ARP or ND packet (how: "ARP", "neighbour discovery"), unless it is
 * one roceconform must never send to: then the reason is kept in l->refused and the resolution
 * fails with it. */
static void learn_dut_mac(struct link *l, const uint8_t mac[6], const char *how)
{
	if (l->have_dut_mac || l->refused[0])
		return;
	const char *why = mac_unusable(mac, l->mac);
	if (why) {
		char ip[64], m[20];
		snprintf(l->refused, sizeof(l->refused), "the DUT %s answered %s with MAC %s, %s: refused",
			 addr_str(&l->dut, ip, sizeof(ip)), how, mac_str(mac, m, sizeof(m)), why);
		return;
	}
	memcpy(l->dut_mac, mac, 6);
	l->have_dut_mac = true;
}

/* An ARP frame: answer a request for our address; learn the DUT's MAC from anything it sends. */
static void on_arp(struct link *l, const uint8_t *f, uint32_t n)
{
	if (n < 42 || f[20] != 0 || (f[21] != 1 && f[21] != 2))
		return;
	if (l->dut.family == 4 && !memcmp(f + 28, l->dut.ip, 4))
		learn_dut_mac(l, f + 22, "ARP");
	if (f[21] == 1 && l->answer_nd && l->local.family == 4 && !memcmp(f + 38, l->local.ip, 4)) {
		send_arp(l, 2, f + 22, f + 28, f + 22);
		l->arp_answers++;
	}
}

/* ---- IPv6 neighbour discovery (RFC 4861) ---- */

static uint16_t icmp6_csum(const uint8_t *ip6, const uint8_t *icmp, uint32_t n)
{
	uint32_t sum = 58 + n;
	for (int i = 8; i < 40; i += 2)
		sum += (uint32_t)(ip6[i] << 8 | ip6[i + 1]);
	for (uint32_t i = 0; i < n; i += 2)
		sum += (uint32_t)(icmp[i] << 8 | (i + 1 < n ? icmp[i + 1] : 0));
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Send a solicitation (type 135) for target, or an advertisement (136) of our address to dst. */
static int send_nd(struct link *l, uint8_t type, const uint8_t target[16], const uint8_t dst_ip[16],
		   const uint8_t dst_mac[6])
{
	uint8_t f[14 + 40 + 32] = {0};
	uint8_t *ip = f + 14, *icmp = ip + 40;
	char err[CONF_ERRLEN];
	memcpy(f, dst_mac, 6);
	memcpy(f + 6, l->mac, 6);
	put16(f + 12, ETHERTYPE_IP6);
	ip[0] = 0x60;
	put16(ip + 4, 32);
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, l->local.ip, 16);
	memcpy(ip + 24, dst_ip, 16);
	icmp[0] = type;
	if (type == ICMP6_NA)
		icmp[4] = 0x60;        /* solicited, override */
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == ICMP6_NS ? 1 : 2;  /* source / target link-layer address option */
	icmp[25] = 1;
	memcpy(icmp + 26, l->mac, 6);
	put16(icmp + 2, icmp6_csum(ip, icmp, 32));
	return link_send(l, f, sizeof(f), err);
}

/* An IPv6 frame: 1 when it was neighbour discovery (handled here), 0 otherwise. */
static int on_ip6(struct link *l, const uint8_t *f, uint32_t n)
{
	const uint8_t *ip = f + 14, *icmp = ip + 40;
	if (n < 14 + 40 + 24 || ip[6] != 58 || (icmp[0] != ICMP6_NS && icmp[0] != ICMP6_NA))
		return ip[6] == 58;
	if (l->dut.family != 6)
		return 1;
	if (!memcmp(ip + 8, l->dut.ip, 16))
		learn_dut_mac(l, f + 6, "neighbour discovery");
	if (icmp[0] == ICMP6_NS && l->answer_nd && !memcmp(icmp + 8, l->local.ip, 16)) {
		send_nd(l, ICMP6_NA, l->local.ip, ip + 8, f + 6);
		l->arp_answers++;
	}
	return 1;
}

int link_next(struct link *l, int timeout_ms, struct link_frame *f, char err[CONF_ERRLEN])
{
	return link_next_until(l, now_ns() + (int64_t)timeout_ms * 1000000, f, err);
}

int link_next_until(struct link *l, int64_t deadline, struct link_frame *f, char err[CONF_ERRLEN])
{
	for (;;) {
		struct pcap_pkthdr *h;
		const uint8_t *d;
		int rc = pcap_next_ex(l->p, &h, &d);
		if (rc < 0) {
			snprintf(err, CONF_ERRLEN, "capture: %s", pcap_geterr(l->p));
			return -1;
		}
		if (rc == 1) {
			uint16_t type = h->caplen >= 14 ? (uint16_t)(d[12] << 8 | d[13]) : 0;
			if (type == ETHERTYPE_ARP) {
				on_arp(l, d, h->caplen);
				continue;
			}
			if (type == ETHERTYPE_IP6 && on_ip6(l, d, h->caplen))
				continue;
			f->data = d;
			f->caplen = h->caplen;
			f->len = h->len;
			f->ts_ns = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec; /* nanosecond precision */
			return 1;
		}
		int64_t left = deadline - now_ns();
		if (left <= 0)
			return 0;
		struct pollfd pfd = {.fd = l->fd, .events = POLLIN};
		if (left > 50000000)
			left = 50000000;
		struct timespec wait = {0, (long)left};   /* (to the nanosecond: PFC refreshes come sub-millisecond) */
		ppoll(&pfd, 1, &wait, NULL);
	}
}

int link_resolve(struct link *l, int timeout_ms, char err[CONF_ERRLEN])
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, zero[6] = {0};
	char buf[64];
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
	while (!l->have_dut_mac && !l->refused[0] && now_ns() < deadline) {
		if (l->dut.family == 4) {
			send_arp(l, 1, zero, l->dut.ip, bcast);
		} else {
			uint8_t sn[16] = {0xff, 0x02, [11] = 1, [12] = 0xff}, mac[6] = {0x33, 0x33, 0xff};
			memcpy(sn + 13, l->dut.ip + 13, 3);
			memcpy(mac + 3, l->dut.ip + 13, 3);
			send_nd(l, ICMP6_NS, l->dut.ip, sn, mac);
		}
		struct link_frame f;
		int64_t until = now_ns() + 500000000;
		while (!l->have_dut_mac && !l->refused[0] && now_ns() < until) {
			if (link_next(l, 100, &f, err) < 0)
				return -1;
		}
	}
	if (l->refused[0]) {
		snprintf(err, CONF_ERRLEN, "%s", l->refused);
		return -1;
	}
	if (!l->have_dut_mac) {
		snprintf(err, CONF_ERRLEN, "the DUT %s does not answer %s (give --dut-mac, or check the link)",
			 addr_str(&l->dut, buf, sizeof(buf)), l->dut.family == 4 ? "ARP" : "neighbour solicitations");
		return -1;
	}
	return 0;
}

uint64_t link_drops(struct link *l)
{
	struct pcap_stat st;
	if (!l->p || pcap_stats(l->p, &st) != 0)
		return 0;
	return st.ps_drop;   /* the capture buffer's drops (ps_ifdrop counts the interface's, not ours) */
}
