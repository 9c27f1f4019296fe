/* metrics_out.h: where the metrics text goes (metrics_out.c): an HTTP endpoint /metrics served
 * by libmicrohttpd on its own thread (--metrics ADDR:PORT), and a file rewritten atomically for
 * node_exporter's textfile collector (--metrics-file PATH). The endpoint limits its clients
 * (connections per address and in all, request size, a deadline per exchange) so that slow or
 * greedy clients cannot lock a scraper out. The analysis thread renders a
 * snapshot (metrics.h) and publishes it; the HTTP thread only ever copies the latest snapshot,
 * so a scrape never touches the analyzer's tables. */
#ifndef ROCEDUMP_METRICS_OUT_H
#define ROCEDUMP_METRICS_OUT_H

#include <stddef.h>

struct metrics_server;

/* Check the form of addr_port ("ADDR:PORT", "[IPv6]:PORT" or ":PORT" for every address; PORT
 * 0 to 65535, 0 for any free port) without resolving it: the port, or -1 with a message. */
int metrics_addr_check(const char *addr_port, char *errbuf, size_t errlen);

/* Listen on addr_port (as metrics_addr_check takes it). NULL with a message. */
struct metrics_server *metrics_server_start(const char *addr_port, char *errbuf, size_t errlen);

/* The port listened on: the one the system chose for port 0. */
unsigned metrics_server_port(const struct metrics_server *m);

/* Hand over a snapshot (malloc'ed text of len bytes, owned by the server from now on). */
void metrics_server_publish(struct metrics_server *m, char *text, size_t len);

void metrics_server_stop(struct metrics_server *m);

/* Write text to path through a temporary file in the same directory and rename(2), so that a
 * reader sees the old file or the new one, never a part. 0, or -1 with a message. */
int metrics_file_write(const char *path, const char *text, size_t len, char *errbuf, size_t errlen);

#endif
