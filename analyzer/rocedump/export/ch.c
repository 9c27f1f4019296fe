/* ch.c: a ClickHouse server over HTTP (see ch.h). libcurl is loaded with dlopen at --export's
 * start, not linked: linked in, it and the TLS, HTTP/2, SSH and LDAP libraries it needs would
 * cost every run their loading at start-up (as libmicrohttpd would, live/metrics_out.c). */
#define _GNU_SOURCE
#include "export/ch.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_schema.h"

#define CURL_LIBRARY "libcurl.so.4"

static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *h);
	void (*easy_reset)(CURL *h);
	const char *(*easy_strerror)(CURLcode c);
	char *(*easy_escape)(CURL *h, const char *s, int len);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
} cu;

bool chbuf_reserve(struct chbuf *b, size_t n)
{
	if (b->p && b->cap - b->len > n)
		return true;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return false;
	b->p = p;
	b->cap = cap;
	return true;
}

bool chbuf_add(struct chbuf *b, const char *s, size_t n)
{
	if (!chbuf_reserve(b, n))
		return false;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return true;
}

void chbuf_free(struct chbuf *b)
{
	free(b->p);
	*b = (struct chbuf){0};
}

int ch_load(char *err, size_t errlen)
{
	if (cu.easy_init)
		return 0;
	void *lib = dlopen(CURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(err, errlen, "--export needs libcurl (%s): %s", CURL_LIBRARY, dlerror());
		return -1;
	}
	const char *missing = NULL;
#define CU_SYM(field, name)                                             \
	do {                                                            \
		if (!missing && !(*(void **)&cu.field = dlsym(lib, name))) \
			missing = name;                                 \
	} while (0)
	CU_SYM(global_init, "curl_global_init");
	CU_SYM(easy_setopt, "curl_easy_setopt");
	CU_SYM(easy_perform, "curl_easy_perform");
	CU_SYM(easy_getinfo, "curl_easy_getinfo");
	CU_SYM(easy_cleanup, "curl_easy_cleanup");
	CU_SYM(easy_reset, "curl_easy_reset");
	CU_SYM(easy_strerror, "curl_easy_strerror");
	CU_SYM(easy_escape, "curl_easy_escape");
	CU_SYM(free, "curl_free");
	CU_SYM(slist_append, "curl_slist_append");
	CU_SYM(slist_free_all, "curl_slist_free_all");
	CU_SYM(easy_init, "curl_easy_init");  /* last: its being set means all are */
#undef CU_SYM
	if (missing) {
		cu.easy_init = NULL;
		snprintf(err, errlen, "--export: %s has no %s", CURL_LIBRARY, missing);
		return -1;
	}
	cu.global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

/* The password: file's first line, else CLICKHOUSE_PASSWORD. */
static int read_password(struct ch_conn *c, const char *file, char *err, size_t errlen)
{
	if (!file) {
		const char *env = getenv("CLICKHOUSE_PASSWORD");
		if (env && !(c->password = strdup(env))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		return 0;
	}
	FILE *f = fopen(file, "r");
	if (!f) {
		snprintf(err, errlen, "--export-password-file %s: %m", file);
		return -1;
	}
	char line[1024];
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	if (!(c->password = strdup(line))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Whether the n characters at p are a TCP port: 1 to 65535, in digits. */
static bool is_port(const char *p, size_t n)
{
	unsigned long v = 0;
	if (!n || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	return v >= 1 && v <= 65535;
}

/* The message for a URL that is not http[s]://[USER@]HOST[:PORT]/DATABASE. The URL is shown with
 * what may be a password in it as "***" (from its first ':' to its last '@', as a password may
 * hold a '/'): a password is refused in the URL, where ps shows it, but an operator's mistyped one
 * is not to be copied into every log that keeps the message. */
static void url_refused(const char *url, char *err, size_t errlen)
{
	const char *auth = strstr(url, "://"), *at = auth ? strrchr(auth + 3, '@') : NULL;
	const char *pw = at ? memchr(auth + 3, ':', (size_t)(at - (auth + 3))) : NULL;
	snprintf(err, errlen, "invalid --export URL '%.*s%s%s' (http[s]://[USER@]HOST[:PORT]/DATABASE; no password in "
			      "it, where ps shows it: it comes from --export-password-file or CLICKHOUSE_PASSWORD)",
		 pw ? (int)(pw - url) : (int)strlen(url), url, pw ? ":***" : "", pw ? at : "");
}

/* The URL's parts into c; -1 with the message when it is not http[s]://[USER@]HOST[:PORT]/DB
 * (HOST a name, an IPv4 address, or an IPv6 one in brackets; PORT 1 to 65535). */
static int parse_url(struct ch_conn *c, const char *url, char *err, size_t errlen)
{
	bool tls = strncmp(url, "https://", 8) == 0;
	if (!tls && strncmp(url, "http://", 7) != 0)
		goto bad;
	const char *host = url + (tls ? 8 : 7), *slash = strchr(host, '/');
	if (!slash || !slash[1] || strlen(slash + 1) >= sizeof(c->db) || strpbrk(slash + 1, "/?#&%"))
		goto bad;
	const char *at = memchr(host, '@', (size_t)(slash - host));
	if (at) {
		if (at == host || (size_t)(at - host) >= sizeof(c->user) || memchr(host, ':', (size_t)(at - host)))
			goto bad;
		memcpy(c->user, host, (size_t)(at - host));
		host = at + 1;
	}
	/* HOST: up to the port's ':', or an IPv6 address in brackets */
	const char *end = slash, *name_end;
	if (host[0] == '[') {
		const char *close = memchr(host, ']', (size_t)(end - host));
		name_end = close && close > host + 1 ? close + 1 : NULL;
	} else {
		const char *colon = memchr(host, ':', (size_t)(end - host));
		name_end = colon ? colon : end;
	}
	if (!name_end || name_end == host)
		goto bad;
	bool has_port = name_end < end;
	if (has_port && (*name_end != ':' || !is_port(name_end + 1, (size_t)(end - name_end - 1))))
		goto bad;
	size_t hlen = (size_t)(end - host);
	int n = snprintf(c->base, sizeof(c->base), "%s://%.*s%s/", tls ? "https" : "http", (int)hlen, host,
			 has_port ? "" : tls ? ":8443" : ":8123");
	if (n < 0 || (size_t)n >= sizeof(c->base))
		goto bad;
	snprintf(c->db, sizeof(c->db), "%s", slash + 1);
	return 0;
bad:
	url_refused(url, err, errlen);
	return -1;
}

int ch_open(struct ch_conn *c, const char *url, const char *password_file, char *err, size_t errlen)
{
	*c = (struct ch_conn){.timeout_ms = 10000};
	return parse_url(c, url, err, errlen) < 0 || read_password(c, password_file, err, errlen) < 0 ? -1 : 0;
}

int ch_connect(struct ch_conn *c, char *err, size_t errlen)
{
	if (ch_load(err, errlen) < 0)
		return -1;
	/* an empty Expect: curl would send "Expect: 100-continue" before a large body and wait for
	 * the server's go-ahead (up to a second) before sending it */
	if (!(c->curl = cu.easy_init()) || !(c->headers = cu.slist_append(NULL, "Expect:"))) {
		snprintf(err, errlen, "--export: libcurl: no handle");
		return -1;
	}
	return 0;
}

int ch_clone(struct ch_conn *dst, const struct ch_conn *src, char *err, size_t errlen)
{
	*dst = *src;
	dst->curl = dst->headers = NULL;
	if (src->password && !(dst->password = strdup(src->password))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return ch_connect(dst, err, errlen);
}

void ch_close(struct ch_conn *c)
{
	if (c->curl)
		cu.easy_cleanup(c->curl);
	if (c->headers)
		cu.slist_free_all(c->headers);
	free(c->password);
	*c = (struct ch_conn){0};
}

/* The server's text in a message (its error's first line, a column's type) with each control
 * byte (a tab, a terminal's escape) shown as a space: a server, or whatever answers in its place,
 * does not write to the operator's terminal. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
	struct chbuf *b = user;
	return chbuf_add(b, data, size * n) ? size * n : 0;
}

/* A request's body, handed to libcurl as it asks (CURLOPT_READFUNCTION). With no seek function
 * libcurl cannot send it a second time: when a reused connection closes with no answer, libcurl
 * would otherwise send the request again on a new one by itself, and an INSERT the server had
 * taken would be taken twice. It fails instead, and the batch goes the way of any failed one (the
 * spool; its id looked up before it is sent again). */
struct body_src {
	const char *p;
	size_t left;
};

static size_t on_read(char *buf, size_t size, size_t n, void *user)
{
	struct body_src *b = user;
	size_t k = size * n < b->left ? size * n : b->left;
	memcpy(buf, b->p, k);
	b->p += k;
	b->left -= k;
	return k;
}

/* The URL of a request: the database, and the query when rows follow it in the body. */
static char *request_url(struct ch_conn *c, const char *query, bool in_url)
{
	char *q = in_url ? cu.easy_escape(c->curl, query, 0) : NULL;
	char *db = cu.easy_escape(c->curl, c->db, 0);
	char *url = NULL;
	/* insert_distributed_sync: an INSERT into a Distributed table (schema-cluster.sql) answers once
	 * the shards hold the rows, so that a batch sent is a batch a later look finds */
	if (db && (q || !in_url) &&
	    asprintf(&url, "%s?database=%s%s%s", c->base, db, q ? "&insert_distributed_sync=1&query=" : "", q ? q : "") < 0)
		url = NULL;
	cu.free(q);
	cu.free(db);
	return url;
}

/* An error of the server's that says not now rather than no (its "Code: N"): a limit that passes
 * (too many parts to merge, memory, a quota, simultaneous queries), a replicated table or a
 * Distributed table's shards without ZooKeeper or replicas for a while, no room on its disk. A
 * batch refused so is tried again later, as if nothing had answered, and never set aside
 * (export.c); the tables' check so answered is asked again. */
static bool busy(const char *msg)
{
	static const int later[] = {
		159, /* TIMEOUT_EXCEEDED */          173, /* CANNOT_ALLOCATE_MEMORY */
		201, /* QUOTA_EXPIRED */             202, /* TOO_MANY_SIMULTANEOUS_QUERIES */
		203, /* NO_FREE_CONNECTION */        209, /* SOCKET_TIMEOUT */
		210, /* NETWORK_ERROR */             225, /* NO_ZOOKEEPER */
		236, /* ABORTED */                   241, /* MEMORY_LIMIT_EXCEEDED */
		242, /* TABLE_IS_READ_ONLY */        243, /* NOT_ENOUGH_SPACE */
		252, /* TOO_MANY_PARTS */            279, /* ALL_CONNECTION_TRIES_FAILED */
		285, /* TOO_FEW_LIVE_REPLICAS */     286, /* UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE */
		319, /* UNKNOWN_STATUS_OF_INSERT */  364, /* RECEIVED_ERROR_TOO_MANY_REQUESTS */
		394, /* QUERY_WAS_CANCELLED */       425, /* SYSTEM_ERROR */
		999, /* KEEPER_EXCEPTION */
	};
	char *end;
	if (strncmp(msg, "Code: ", 6) != 0)
		return false;
	long code = strtol(msg + 6, &end, 10);
	if (end == msg + 6)
		return false;
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		if (code == later[i])
			return true;
	return false;
}

int ch_post(struct ch_conn *c, const char *query, const char *rows, size_t len, struct chbuf *out, char *err,
	    size_t errlen)
{
	struct chbuf body = {0};
	char *url = request_url(c, query, rows != NULL);
	if (!url) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	CURL *h = c->curl;
	cu.easy_reset(h);  /* the options only: the connection stays open for the next request */
	cu.easy_setopt(h, CURLOPT_URL, url);
	cu.easy_setopt(h, CURLOPT_HTTPHEADER, (struct curl_slist *)c->headers);
	cu.easy_setopt(h, CURLOPT_POST, 1L);
	struct body_src src = {rows ? rows : query, rows ? len : strlen(query)};
	cu.easy_setopt(h, CURLOPT_READFUNCTION, on_read);
	cu.easy_setopt(h, CURLOPT_READDATA, &src);
	cu.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)src.left);
	/* an idle connection the server may have closed (ClickHouse's keep_alive_timeout: 3 s) is
	 * not reused: a request on it would fail rather than be sent again (above) */
	cu.easy_setopt(h, CURLOPT_MAXAGE_CONN, 2L);
	cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	cu.easy_setopt(h, CURLOPT_WRITEDATA, &body);
	cu.easy_setopt(h, CURLOPT_TIMEOUT_MS, rows ? c->timeout_ms : CH_QUERY_TIMEOUT_MS);
	cu.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
	cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	if (c->user[0])
		cu.easy_setopt(h, CURLOPT_USERNAME, c->user);
	if (c->password) {
		if (!c->user[0])
			cu.easy_setopt(h, CURLOPT_USERNAME, "default");
		cu.easy_setopt(h, CURLOPT_PASSWORD, c->password);
	}
	CURLcode rc = cu.easy_perform(h);
	long status = 0;
	cu.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	free(url);
	int ret = 0;
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "ClickHouse %s: %s", c->base, cu.easy_strerror(rc));
		ret = rc == CURLE_OUT_OF_MEMORY ? CH_REFUSED : CH_NO_ANSWER;
	} else if (status != 200) {  /* the server's "Code: N, e.displayText() = ...": its first line */
		const char *msg = body.p ? body.p : "";
		snprintf(err, errlen, "ClickHouse %s: HTTP %ld: %.*s", c->base, status, (int)strcspn(msg, "\n"), msg);
		printable(err);
		ret = (status >= 502 && status <= 504) || busy(msg) ? CH_NO_ANSWER : CH_REFUSED;
	}
	if (out && ret == 0) {
		chbuf_free(out);
		*out = body;
	} else {
		chbuf_free(&body);
	}
	return ret;
}

bool ch_sql_string(char *q, size_t len, const unsigned char *s, size_t n)
{
	size_t at = 0;
	if (!len)
		return false;
	q[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int k = s[i] == '\'' || s[i] == '\\' ? snprintf(q + at, len - at, "\\%c", s[i])
			: s[i] < 0x20 ? snprintf(q + at, len - at, "\\x%02x", s[i]) : snprintf(q + at, len - at, "%c", s[i]);
		if (k < 0 || (size_t)k >= len - at)
			return false;
		at += (size_t)k;
	}
	return true;
}

/* The first line where two column lists differ, for the message. */
static void first_difference(const char *want, const char *have, char *buf, size_t len)
{
	size_t i = 0, line = 0;
	while (want[i] && want[i] == have[i]) {
		if (want[i] == '\n')
			line = i + 1;
		i++;
	}
	const char *w = want + line, *h = have + line;
	snprintf(buf, len, "schema has '%.*s', table has '%.*s'", (int)strcspn(w, "\n"), w, (int)strcspn(h, "\n"), h);
	printable(buf);
}

/* t's lines of an answer of "table\tname\ttype" lines, as "name\ttype" lines into cols. */
static bool columns_of(const char *all, const char *table, struct chbuf *cols)
{
	size_t tl = strlen(table);
	for (const char *p = all; p && *p;) {
		const char *eol = strchr(p, '\n'), *end = eol ? eol + 1 : p + strlen(p);
		if (strncmp(p, table, tl) == 0 && p[tl] == '\t' && !chbuf_add(cols, p + tl + 1, (size_t)(end - p - tl - 1)))
			return false;
		p = end;
	}
	return true;
}

int ch_table_columns(const char *all, const struct export_table *t, char *diff, size_t difflen)
{
	struct chbuf cols = {0};
	int ret = columns_of(all, t->name, &cols) ? TABLE_SAME : -1;
	if (ret == TABLE_SAME && !cols.len) {
		ret = TABLE_ABSENT;
	} else if (ret == TABLE_SAME && strcmp(cols.p, t->columns) != 0) {
		first_difference(t->columns, cols.p, diff, difflen);
		ret = TABLE_DIFFERS;
	}
	chbuf_free(&cols);
	return ret;
}

static int check_table(struct ch_conn *c, const struct export_table *t, const char *all, char *err, size_t errlen)
{
	char e[400];
	switch (ch_table_columns(all, t, e, sizeof(e))) {
	case TABLE_SAME:
		return 0;
	case TABLE_ABSENT:
		return ch_post(c, t->create, NULL, 0, NULL, err, errlen);
	case TABLE_DIFFERS:
		snprintf(err, errlen, "table %s.%s differs from rocedump's schema (rocedump --export-schema): %s", c->db,
			 t->name, e);
		return CH_REFUSED;
	default:
		snprintf(err, errlen, "out of memory");
		return CH_REFUSED;
	}
}

/* The columns of all the tables in one query (one round trip), then each table checked. */
int ch_check_tables(struct ch_conn *c, char *err, size_t errlen)
{
	char q[512];
	int n = snprintf(q, sizeof(q), "SELECT table, name, type FROM system.columns WHERE database = currentDatabase() "
				       "AND table IN (");
	for (unsigned i = 0; i < EXPORT_TABLES && n > 0 && (size_t)n < sizeof(q); i++)
		n += snprintf(q + n, sizeof(q) - (size_t)n, "%s'%s'", i ? ", " : "", export_tables[i].name);
	if (n > 0 && (size_t)n < sizeof(q))
		snprintf(q + n, sizeof(q) - (size_t)n, ") FORMAT TabSeparated");
	struct chbuf all = {0};
	int ret = ch_post(c, q, NULL, 0, &all, err, errlen);
	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < EXPORT_TABLES && ret == 0; i++)
		ret = check_table(c, &export_tables[i], all.p ? all.p : "", err, errlen);
	chbuf_free(&all);
	return ret;
}
