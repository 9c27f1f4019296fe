/* metrics_out.h: where the metrics text goes (metrics_out.c): an HTTP endpoint /metrics served
 * by libmicrohttpd on its own thread (--metrics ADDR:PORT), and a file rewritten atomically for
 * node_exporter's textfile collector (--metrics-file PATH). The analysis thread renders a
 * snapshot (metrics.h) and publishes it; the HTTP thread only ever copies the latest snapshot,
 * so a scrape never touches the analyzer's tables. */
#ifndef ROCEDUMP_METRICS_OUT_H
#define ROCEDUMP_METRICS_OUT_H

#include <stddef.h>

struct metrics_server;

/* Listen on addr_port ("ADDR:PORT", "[IPv6]:PORT" or ":PORT" for every address). NULL with a
 * message. */
struct metrics_server *metrics_server_start(const char *addr_port, char *errbuf, size_t errlen);

/* Hand over a snapshot (malloc'ed text of len bytes, owned by the server from now on). */
void metrics_server_publish(struct metrics_server *m, char *text, size_t len);

void metrics_server_stop(struct metrics_server *m);

/* Write text to path through a temporary file in the same directory and rename(2), so that a
 * reader sees the old file or the new one, never a part. 0, or -1 with a message. */
int metrics_file_write(const char *path, const char *text, size_t len, char *errbuf, size_t errlen);

#endif
