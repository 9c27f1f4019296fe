/* setup.c: the table of setup methods and the TCP helpers they share (see setup.h). */
#include "setup.h"
#include "textnum.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const struct setup_method *const methods[] = {
	&setup_rc_pingpong, &setup_perftest_write, &setup_perftest_read, &setup_perftest_atomic, &setup_uc_pingpong,
	&setup_ud_pingpong, &setup_rdma_cm,
};

const struct setup_method *setup_find(const char *spec, uint16_t *port, char err[CONF_ERRLEN])
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		const struct setup_method *m = methods[i];
		if (strlen(m->name) != len || strncmp(m->name, spec, len) != 0)
			continue;
		if (!m->connect) {
			snprintf(err, CONF_ERRLEN, "setup %s: %s", m->name, m->server);
			return NULL;
		}
		*port = m->default_port;
		if (colon) {
			char *end;
			long p = strtol(colon + 1, &end, 10);
			if (*end || p < 1 || p > 65535) {
				snprintf(err, CONF_ERRLEN, "setup %s: bad port \"%s\"", m->name, colon + 1);
				return NULL;
			}
			*port = (uint16_t)p;
		}
		return m;
	}
	snprintf(err, CONF_ERRLEN, "unknown setup method \"%.*s\" (see --help)", (int)len, spec);
	return NULL;
}

void setup_list(void)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		printf("  %-16s port %-5u DUT runs: %s\n", methods[i]->name, methods[i]->default_port,
		       methods[i]->server);
}

void setup_choose_qp(struct session *s)
{
	static uint32_t serial;
	serial++;
	s->qp.my_qpn = 0x0c0000 | ((serial * 0x111) & 0xffff);
	s->qp.my_psn = s->test && s->test->has_start_psn ? s->test->start_psn
						       : (uint32_t)(lrand48() & 0x7fffff) + 0x1000;
}

static int sockaddr_of(const struct conf_addr *a, uint16_t port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == 4) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		memcpy(&in->sin_addr, a->ip, 4);
		*len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		memcpy(&in6->sin6_addr, a->ip, 16);
		*len = sizeof(*in6);
	}
	return 0;
}

/* Answer ARP/ND and drop any other frame for up to ms (while the setup waits). */
static void service_link(struct session *s, int ms)
{
	struct link_frame f;
	char err[CONF_ERRLEN];
	int64_t until = now_ns() + (int64_t)ms * 1000000;
	if (!s->link) {
		struct timespec d = {0, ms * 1000000L};
		nanosleep(&d, NULL);
		return;
	}
	do {
		if (link_next(s->link, ms ? 10 : 0, &f, err) < 0)
			break;
	} while (now_ns() < until);
}

int setup_tcp_connect(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[64];
	int64_t deadline = now_ns() + (int64_t)s->o->setup_timeout_s * 1000000000;
	int last = 0;
	sockaddr_of(&s->o->dut, port, &ss, &len);
	/* The DUT's server may be restarting after the previous test: retry until the timeout. */
	while (now_ns() < deadline) {
		int fd = socket(ss.ss_family, SOCK_STREAM, 0);
		if (fd < 0) {
			snprintf(err, CONF_ERRLEN, "socket: %s", strerror(errno));
			return -1;
		}
		struct timeval tv = {2, 0};
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, (struct sockaddr *)&ss, len) == 0)
			return fd;
		last = errno;
		close(fd);
		service_link(s, 200);
	}
	snprintf(err, CONF_ERRLEN, "the DUT's server at %s port %u does not accept connections (%s) after %u s",
		 addr_str(&s->o->dut, buf, sizeof(buf)), port, strerror(last), s->o->setup_timeout_s);
	return -1;
}

int setup_tcp_read(struct session *s, int fd, void *buf, size_t n, char err[CONF_ERRLEN])
{
	size_t got = 0;
	int64_t deadline = now_ns() + (int64_t)s->o->setup_timeout_s * 1000000000;
	while (got < n) {
		if (now_ns() > deadline) {
			snprintf(err, CONF_ERRLEN, "the DUT's server sent %zu of %zu bytes in %u s", got, n,
				 s->o->setup_timeout_s);
			return -1;
		}
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = s->link ? s->link->fd : -1, .events = POLLIN}};
		poll(p, 2, 100);
		if (p[1].revents)
			service_link(s, 0);
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t r = recv(fd, (char *)buf + got, n - got, MSG_DONTWAIT);
		if (r == 0) {
			snprintf(err, CONF_ERRLEN, "the DUT's server closed the connection after %zu of %zu bytes "
				 "(it could not bring its QP up?)", got, n);
			return -1;
		}
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			snprintf(err, CONF_ERRLEN, "reading from the DUT's server: %s", strerror(errno));
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

int setup_tcp_write(int fd, const void *buf, size_t n, char err[CONF_ERRLEN])
{
	ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
	if (w != (ssize_t)n) {
		snprintf(err, CONF_ERRLEN, "writing to the DUT's server: %s", w < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

void setup_wire_gid(const struct conf_addr *a, char out[33])
{
	uint8_t gid[16];
	addr_gid(a, gid);
	for (size_t i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", gid[i]);
}

int setup_parse_gid(const char *hex, uint8_t gid[16])
{
	return hex_bytes(hex, gid, 16) ? 0 : -1;
}
