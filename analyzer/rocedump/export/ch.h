/* ch.h: a ClickHouse server over its HTTP interface, for --export: the URL, the password, a
 * statement or an INSERT's rows posted and the answer read (libcurl, loaded when first needed),
 * and the tables of docs/clickhouse/schema.sql made or checked. */
#ifndef ROCEDUMP_EXPORT_CH_H
#define ROCEDUMP_EXPORT_CH_H

#include <stdbool.h>
#include <stddef.h>

/* A growable byte buffer (an INSERT's rows, an answer). */
struct chbuf {
	char *p;
	size_t len, cap;
};

/* Room for n more bytes and a NUL after them; false when out of memory. */
bool chbuf_reserve(struct chbuf *b, size_t n);
/* n bytes added, a NUL kept after them. */
bool chbuf_add(struct chbuf *b, const char *s, size_t n);
void chbuf_free(struct chbuf *b);

struct ch_conn {
	char base[512];       /* scheme://host:port/ */
	char db[128];
	char user[128];       /* empty: the server's default user */
	char *password;       /* NULL: none */
	void *curl;           /* the easy handle, kept (and its connection) for every request: one thread at a time */
	void *headers;        /* the request headers (a curl_slist) */
	long timeout_ms;      /* an INSERT's whole time (a query's: CH_QUERY_TIMEOUT_MS) */
};

/* http[s]://[USER@]HOST[:PORT]/DATABASE into c (port 8123 for http, 8443 for https). The password
 * from file (its first line) when given, else from CLICKHOUSE_PASSWORD when set. 0, or -1 with
 * the message in err. */
int ch_open(struct ch_conn *c, const char *url, const char *password_file, char *err, size_t errlen);
/* libcurl loaded, once: by export_start, before the capture's threads start (its 30 libraries'
 * mappings would otherwise interrupt them, and a missing libcurl is said before a frame is
 * read). 0, or -1 with the message in err. */
int ch_load(char *err, size_t errlen);
/* libcurl loaded (ch_load) and the handle made. 0, or -1 with the message in err. */
int ch_connect(struct ch_conn *c, char *err, size_t errlen);
/* dst: src's server, user and password over a handle (and so a connection) of its own, for
 * requests sent at the same time as src's. 0, or -1 with the message in err. */
int ch_clone(struct ch_conn *dst, const struct ch_conn *src, char *err, size_t errlen);
void ch_close(struct ch_conn *c);

/* A query's whole time (the tables' check, a spooled batch looked for): they read little, and
 * one that takes longer finds the server hung. The export thread then spools the batches rather
 * than wait, while a live capture's queue fills behind it. */
#define CH_QUERY_TIMEOUT_MS 3000L

/* ch_post's and ch_check_tables's failures: the server (or a proxy before it) answered no, or
 * nothing answered, or not now: no connection, no answer in time, a connection cut, a proxy's
 * 502, 503 or 504 (chproxy's when its servers are away), an error of the server's that passes
 * (too many parts, memory, a quota, ZooKeeper away: ch.c's busy()), which a later attempt may
 * get past. */
enum { CH_REFUSED = -1, CH_NO_ANSWER = -2 };

/* Run query; with rows (len bytes), the query is the INSERT ... FORMAT they follow.
 * The answer's body into out (may be NULL). 0 on HTTP 200; else CH_NO_ANSWER or CH_REFUSED with
 * the message in err: libcurl's error, or the server's ("Code: N, ..." first line) and its HTTP
 * status. */
int ch_post(struct ch_conn *c, const char *query, const char *rows, size_t len, struct chbuf *out, char *err,
	    size_t errlen);

/* s (n bytes, any bytes: a name read back from a spooled batch) as a ClickHouse string literal's
 * text, to go between its quotes, into q: a quote and a backslash escaped, any other byte below
 * 0x20 as \xHH, the rest as they are. False when it does not fit in len (q is then cut). */
bool ch_sql_string(char *q, size_t len, const unsigned char *s, size_t n);

/* Table t's columns in the server's answer all ("table\tname\ttype" lines, TabSeparated, as
 * ch_check_tables asks system.columns for them) against the schema's: TABLE_SAME, TABLE_ABSENT
 * (no line of t), TABLE_DIFFERS (the first line that differs, both sides, into diff), or -1 when
 * out of memory. */
enum { TABLE_SAME, TABLE_ABSENT, TABLE_DIFFERS };
struct export_table;
int ch_table_columns(const char *all, const struct export_table *t, char *diff, size_t difflen);

/* Every table of the schema: created when absent, else its columns compared with the schema's.
 * 0, or CH_NO_ANSWER or CH_REFUSED with the message in err (a table that differs is named, with
 * its first difference). */
int ch_check_tables(struct ch_conn *c, char *err, size_t errlen);

#endif
