/* hoststack.c: see hoststack.h. Why it matters: the DUT sends its ACKs, NAKs and requests to the
 * tester's GID. A host that owns that address hands them to its UDP layer: with nothing bound
 * to port 4791 the kernel answers each with ICMP port unreachable (noise the DUT may act on), and
 * with a kernel RoCE stack bound there (rdma_rxe, a RoCE NIC's own) that stack answers them. The
 * clean setups are an address the host does not own (roceconform answers ARP/ND for it) or an
 * nft rule dropping inbound UDP 4791 to it (README "Keeping the host's stack out"). */
#include "hoststack.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "link.h"

static bool forwarding(int family)
{
	const char *path = family == 4 ? "/proc/sys/net/ipv4/ip_forward" : "/proc/sys/net/ipv6/conf/all/forwarding";
	FILE *f = fopen(path, "r");
	int v = 0;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v != 0;
}

int host_stack_guard(const struct conf_opts *o, char msg[CONF_ERRLEN], char err[CONF_ERRLEN])
{
	char ip[64];
	addr_str(&o->local, ip, sizeof(ip));
	if (!host_owns(&o->local)) {
		snprintf(msg, CONF_ERRLEN, "%s is not this host's address: roceconform answers ARP/ND for it%s", ip,
			 forwarding(o->local.family) ? "; WARNING: this host forwards IP and may route the DUT's packets "
						       "(add an nft rule dropping UDP 4791 to it)" : "");
		return -1;
	}
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if (o->local.family == 4) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		in->sin_port = htons(4791);
		memcpy(&in->sin_addr, o->local.ip, 4);
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(4791);
		memcpy(&in6->sin6_addr, o->local.ip, 16);
		len = sizeof(*in6);
	}
	int fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		snprintf(err, CONF_ERRLEN, "socket: %s", strerror(errno));
		return -2;
	}
	int small = 2048;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (bind(fd, (struct sockaddr *)&ss, len) == 0) {
		snprintf(msg, CONF_ERRLEN, "%s is this host's address: UDP %s:4791 held open by roceconform, so the "
			 "kernel sends no ICMP port unreachable to the DUT", ip, ip);
		return fd;
	}
	int e = errno;
	close(fd);
	if (o->allow_host_stack) {
		snprintf(msg, CONF_ERRLEN, "%s is this host's address and UDP 4791 is taken (%s): allowed by "
			 "--allow-host-stack (an nft rule must keep the host's RoCE stack out)", ip, strerror(e));
		return -1;
	}
	snprintf(err, CONF_ERRLEN, "%s is this host's address and UDP port 4791 on it is taken (%s): a RoCE stack on "
		 "this host (rdma_rxe, a RoCE NIC) would answer the DUT too. Use a --local-ip the host does not own, "
		 "or drop inbound UDP 4791 with nft and give --allow-host-stack", ip, strerror(e));
	return -2;
}
