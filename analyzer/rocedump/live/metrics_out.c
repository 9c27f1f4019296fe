/* metrics_out.c: the metrics endpoint and file (see metrics_out.h). The listening socket is made
 * here (so that a port in use or a wrong address gets its system error in the message) and
 * handed to libmicrohttpd, which runs its own polling thread.
 *
 * The endpoint is bounded against slow and greedy clients: HTTP_PER_ADDRESS connections from one
 * address, HTTP_CONNECTIONS in all, HTTP_MEMORY bytes a connection (so a request's header is at
 * most that), and a deadline that bytes do not extend: libmicrohttpd's own timeout restarts with
 * every byte received, so a client sending a header line a second would hold its connection for
 * ever; a watchdog thread shuts down a connection that has not finished an exchange (its request
 * read and answered) HTTP_EXCHANGE_S seconds after it opened or after its previous exchange.
 *
 * The metrics file is written to a temporary made by mkstemp(3) beside it (O_EXCL: a name
 * planted in the directory, a symbolic link to another file say, is never opened) and renamed
 * over the final name, which replaces a link planted there instead of following it.
 *
 * libmicrohttpd is loaded when the first server starts (dlopen), not linked: linked in, it and
 * the TLS libraries it needs (GnuTLS, Nettle, GMP, p11-kit and 7 more: 11 of rocedump's 22
 * shared libraries) would cost every run their loading and relocation at start-up, a run
 * without --metrics included. */
#define _GNU_SOURCE
#include "live/metrics_out.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MHD_LIBRARY "libmicrohttpd.so.12"  /* the ABI of <microhttpd.h> 0.9.x */

#define HTTP_CONNECTIONS 256u        /* connections in all */
#define HTTP_PER_ADDRESS 8u          /* connections from one client address */
#define HTTP_IDLE_S 10u              /* libmicrohttpd's timeout: silence on a connection */
#define HTTP_EXCHANGE_S 10.0         /* a request read and answered within this, however its bytes come */
#define HTTP_MEMORY ((size_t)32768)  /* a connection's memory: the largest request header is less */

/* The libmicrohttpd calls made here, once loaded (mhd_load). */
static struct {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_get_connection_info) get_connection_info;
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
		MHD_SYM(get_connection_info, "MHD_get_connection_info");
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

/* An open connection, as the watchdog sees it; owned by the list in struct metrics_server. */
struct http_conn {
	int fd;
	double since;             /* opened, or its previous exchange finished (monotonic seconds) */
	bool shut;                /* the watchdog has shut it down; libmicrohttpd closes it */
	struct http_conn *prev, *next;
};

struct metrics_server {
	struct MHD_Daemon *daemon;
	int fd;
	pthread_mutex_t lock;
	char *text;               /* the latest snapshot */
	size_t len;
	/* the watchdog: every open connection, under conn_lock */
	pthread_mutex_t conn_lock;
	pthread_cond_t stop_cond;
	bool stopping;
	bool watchdog_running;
	pthread_t watchdog;
	struct http_conn *conns;
	unsigned port;            /* the port listened on */
};

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION: a connection opens or closes. It calls this
 * for a closing connection before it closes the socket, so a descriptor on the list is never
 * one the system has handed to another connection. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
	struct metrics_server *m = cls;
	struct http_conn *hc = *socket_context;
	pthread_mutex_lock(&m->conn_lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		hc = info ? calloc(1, sizeof(*hc)) : NULL;
		if (hc) {  /* without memory the connection goes unwatched; libmicrohttpd's timeout still holds */
			hc->fd = info->connect_fd;
			hc->since = mono_s();
			hc->next = m->conns;
			if (m->conns)
				m->conns->prev = hc;
			m->conns = hc;
		}
		*socket_context = hc;
	} else if (hc) {
		if (hc->prev)
			hc->prev->next = hc->next;
		else
			m->conns = hc->next;
		if (hc->next)
			hc->next->prev = hc->prev;
		free(hc);
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&m->conn_lock);
}

/* libmicrohttpd's MHD_OPTION_NOTIFY_COMPLETED: an exchange ended; the connection's next
 * request has HTTP_EXCHANGE_S from now. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode toe)
{
	struct metrics_server *m = cls;
	(void)state;
	(void)toe;
	const union MHD_ConnectionInfo *info = mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	pthread_mutex_lock(&m->conn_lock);
	if (info && info->socket_context)
		((struct http_conn *)info->socket_context)->since = mono_s();
	pthread_mutex_unlock(&m->conn_lock);
}

/* Once a second: shut down every connection past its deadline. shutdown(2), not close(2): the
 * descriptor stays libmicrohttpd's, which sees the end of the stream and closes it. */
static void *watchdog_main(void *arg)
{
	struct metrics_server *m = arg;
	pthread_setname_np(pthread_self(), "rocedump-watch");
	pthread_mutex_lock(&m->conn_lock);
	while (!m->stopping) {
		struct timespec wake;
		clock_gettime(CLOCK_MONOTONIC, &wake);
		wake.tv_sec += 1;
		pthread_cond_timedwait(&m->stop_cond, &m->conn_lock, &wake);
		double now = mono_s();
		for (struct http_conn *hc = m->conns; hc && !m->stopping; hc = hc->next)
			if (!hc->shut && now - hc->since > HTTP_EXCHANGE_S) {
				shutdown(hc->fd, SHUT_RDWR);
				hc->shut = true;
			}
	}
	pthread_mutex_unlock(&m->conn_lock);
	return NULL;
}

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

int metrics_addr_check(const char *addr_port, char *errbuf, size_t errlen)
{
	const char *colon = strrchr(addr_port, ':');
	if (!colon || !colon[1]) {
		snprintf(errbuf, errlen, "--metrics %s: give ADDR:PORT (e.g. 127.0.0.1:9310, [::1]:9310, :9310)", addr_port);
		return -1;
	}
	unsigned long port = 0;
	const char *p = colon + 1;
	for (; *p >= '0' && *p <= '9' && port <= 65535; p++)
		port = port * 10 + (unsigned long)(*p - '0');
	if (*p || port > 65535 || p - (colon + 1) > 5) {
		snprintf(errbuf, errlen, "--metrics %s: the port must be a number from 0 to 65535 (0: any free port)",
			 addr_port);
		return -1;
	}
	return (int)port;
}

/* A listening socket on addr_port, or -1 with a message. */
static int listen_on(const char *addr_port, bool *v6, unsigned *port, char *errbuf, size_t errlen)
{
	char host[256];
	if (metrics_addr_check(addr_port, errbuf, errlen) < 0)
		return -1;
	const char *colon = strrchr(addr_port, ':');
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
	union {
		struct sockaddr any;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
		struct sockaddr_storage storage;
	} sa;
	memset(&sa, 0, sizeof(sa));
	socklen_t salen = sizeof(sa);
	*port = 0;
	if (getsockname(fd, &sa.any, &salen) == 0)
		*port = ntohs(sa.any.sa_family == AF_INET6 ? sa.in6.sin6_port : sa.in.sin_port);
	return fd;
}

struct metrics_server *metrics_server_start(const char *addr_port, char *errbuf, size_t errlen)
{
	bool v6 = false;
	unsigned port;
	if (!mhd_load(addr_port, errbuf, errlen))
		return NULL;
	int fd = listen_on(addr_port, &v6, &port, errbuf, errlen);
	if (fd < 0)
		return NULL;
	struct metrics_server *m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	m->fd = fd;
	m->port = port;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->conn_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->stop_cond, &ca);
	pthread_condattr_destroy(&ca);
	m->watchdog_running = pthread_create(&m->watchdog, NULL, watchdog_main, m) == 0;
	m->daemon = m->watchdog_running
		? mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, on_request, m,
				   MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, HTTP_CONNECTIONS,
				   MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_PER_ADDRESS, MHD_OPTION_CONNECTION_TIMEOUT,
				   HTTP_IDLE_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_MEMORY,
				   MHD_OPTION_NOTIFY_CONNECTION, on_connection, m, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
				   m, MHD_OPTION_END)
		: NULL;
	if (!m->daemon) {
		snprintf(errbuf, errlen, "--metrics %s: the HTTP server (libmicrohttpd) did not start", addr_port);
		close(fd);
		m->daemon = NULL;
		metrics_server_stop(m);
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

unsigned metrics_server_port(const struct metrics_server *m)
{
	return m->port;
}

void metrics_server_stop(struct metrics_server *m)
{
	if (!m)
		return;
	if (m->watchdog_running) {
		pthread_mutex_lock(&m->conn_lock);
		m->stopping = true;
		pthread_cond_signal(&m->stop_cond);
		pthread_mutex_unlock(&m->conn_lock);
		pthread_join(m->watchdog, NULL);
	}
	if (m->daemon)
		mhd.stop_daemon(m->daemon);  /* closes the listening socket too, and every connection */
	pthread_cond_destroy(&m->stop_cond);
	pthread_mutex_destroy(&m->conn_lock);
	pthread_mutex_destroy(&m->lock);
	free(m->text);
	free(m);
}

int metrics_file_write(const char *path, const char *text, size_t len, char *errbuf, size_t errlen)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(errbuf, errlen, "--metrics-file %s: name too long", path);
		return -1;
	}
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(errbuf, errlen, "--metrics-file %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (fchmod(fd, 0644) < 0) {  /* mkstemp makes it 0600: the collector may run as another user */
		snprintf(errbuf, errlen, "--metrics-file %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
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
