/* metrics_out.c: the metrics endpoint and file (see metrics_out.h). The listening socket is made
 * here (so that a port in use or a wrong address gets its system error in the message) and
 * handed to libmicrohttpd, which runs its own polling thread.
 *
 * libmicrohttpd is loaded when the first server starts (dlopen), not linked: linked in, it and
 * the TLS libraries it needs (GnuTLS, Nettle, GMP, p11-kit and 7 more: 11 of rocedump's 22
 * shared libraries) cost every run ~3.5 ms of start-up, a run without --metrics included (a
 * test program linked as rocedump was: 8.2 ms to start against 4.7 ms without libmicrohttpd). */
#define _GNU_SOURCE
#include "metrics_out.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MHD_LIBRARY "libmicrohttpd.so.12"  /* the ABI of <microhttpd.h> 0.9.x */

/* The libmicrohttpd calls made here, once loaded (mhd_load). */
static struct {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
} mhd;

/* On the calling thread, before any server thread runs: false (and a message) if the library
 * or one of its calls is missing. */
static bool mhd_load(const char *addr_port, char *errbuf, size_t errlen)
{
	if (mhd.start_daemon)
		return true;
	void *lib = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;
	if (lib) {
#define MHD_SYM(field, name)                                             \
	do {                                                             \
		if (!missing && !(*(void **)&mhd.field = dlsym(lib, name))) \
			missing = name;                                  \
	} while (0)
		MHD_SYM(stop_daemon, "MHD_stop_daemon");
		MHD_SYM(create_response_from_buffer, "MHD_create_response_from_buffer");
		MHD_SYM(add_response_header, "MHD_add_response_header");
		MHD_SYM(queue_response, "MHD_queue_response");
		MHD_SYM(destroy_response, "MHD_destroy_response");
		MHD_SYM(start_daemon, "MHD_start_daemon");  /* last: set only when all are */
#undef MHD_SYM
	}
	if (lib && !missing)
		return true;
	snprintf(errbuf, errlen, "--metrics %s: the HTTP server needs libmicrohttpd (%s): %s", addr_port, MHD_LIBRARY,
		 lib ? missing : dlerror());
	memset(&mhd, 0, sizeof(mhd));  /* no pointer into the library let go below */
	if (lib)
		dlclose(lib);
	return false;
}

struct metrics_server {
	struct MHD_Daemon *daemon;
	int fd;
	pthread_mutex_t lock;
	char *text;               /* the latest snapshot */
	size_t len;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode, const char *type)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(len, (void *)body, mode);
	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **state)
{
	struct metrics_server *m = cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	static const char not_found[] = "not found: the metrics are at /metrics\n";
	static const char bad_method[] = "only GET and HEAD\n";
	static const char none_yet[] = "# no snapshot yet\n";
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, bad_method, sizeof(bad_method) - 1, MHD_RESPMEM_PERSISTENT,
			     "text/plain");
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1, MHD_RESPMEM_PERSISTENT,
			     "text/plain");
	pthread_mutex_lock(&m->lock);
	enum MHD_Result ret = m->text ? reply(c, MHD_HTTP_OK, m->text, m->len, MHD_RESPMEM_MUST_COPY, CONTENT_TYPE)
				      : reply(c, MHD_HTTP_OK, none_yet, sizeof(none_yet) - 1, MHD_RESPMEM_PERSISTENT,
					      CONTENT_TYPE);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

/* A listening socket on addr_port, or -1 with a message. */
static int listen_on(const char *addr_port, bool *v6, char *errbuf, size_t errlen)
{
	char host[256];
	const char *colon = strrchr(addr_port, ':');
	if (!colon || !colon[1]) {
		snprintf(errbuf, errlen, "--metrics %s: give ADDR:PORT (e.g. 127.0.0.1:9310, [::1]:9310, :9310)", addr_port);
		return -1;
	}
	size_t hlen = (size_t)(colon - addr_port);
	const char *h = addr_port;
	if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host)) {
		snprintf(errbuf, errlen, "--metrics %s: address too long", addr_port);
		return -1;
	}
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV | AI_NUMERICHOST}, *ai;
	int rc = getaddrinfo(hlen ? host : NULL, colon + 1, &hints, &ai);
	if (rc != 0) {
		snprintf(errbuf, errlen, "--metrics %s: %s", addr_port, gai_strerror(rc));
		return -1;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		snprintf(errbuf, errlen, "--metrics %s: %s", addr_port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	*v6 = ai->ai_family == AF_INET6;
	freeaddrinfo(ai);
	return fd;
}

struct metrics_server *metrics_server_start(const char *addr_port, char *errbuf, size_t errlen)
{
	bool v6 = false;
	if (!mhd_load(addr_port, errbuf, errlen))
		return NULL;
	int fd = listen_on(addr_port, &v6, errbuf, errlen);
	if (fd < 0)
		return NULL;
	struct metrics_server *m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	m->fd = fd;
	pthread_mutex_init(&m->lock, NULL);
	m->daemon = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
				     on_request, m, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, 64u,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!m->daemon) {
		snprintf(errbuf, errlen, "--metrics %s: the HTTP server (libmicrohttpd) did not start", addr_port);
		close(fd);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return NULL;
	}
	return m;
}

void metrics_server_publish(struct metrics_server *m, char *text, size_t len)
{
	pthread_mutex_lock(&m->lock);
	char *old = m->text;
	m->text = text;
	m->len = len;
	pthread_mutex_unlock(&m->lock);
	free(old);
}

void metrics_server_stop(struct metrics_server *m)
{
	if (!m)
		return;
	mhd.stop_daemon(m->daemon);  /* closes the listening socket too */
	pthread_mutex_destroy(&m->lock);
	free(m->text);
	free(m);
}

int metrics_file_write(const char *path, const char *text, size_t len, char *errbuf, size_t errlen)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		snprintf(errbuf, errlen, "--metrics-file %s: name too long", path);
		return -1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(errbuf, errlen, "--metrics-file %s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(errbuf, errlen, "--metrics-file %s: %s", tmp, strerror(n < 0 ? errno : EIO));
			close(fd);
			unlink(tmp);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		snprintf(errbuf, errlen, "--metrics-file %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
