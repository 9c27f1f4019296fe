/* spool.c: the batches waiting on disk (see spool.h). */
#define _GNU_SOURCE
#include "export/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A name's suffix: its rows' format (an earlier rocedump spooled TabSeparated rows). */
static const struct {
	const char *suffix;
	bool rowbinary;
} formats[] = {{SPOOL_SUFFIX, true}, {".rows", false}};

bool spool_parse(const char *name, char *table, size_t tlen, char *batch, size_t blen, bool *rowbinary)
{
	size_t n = strlen(name), sl = 0;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]) && !sl; i++) {
		size_t l = strlen(formats[i].suffix);
		if (n > l && strcmp(name + n - l, formats[i].suffix) == 0) {
			sl = l;
			*rowbinary = formats[i].rowbinary;
		}
	}
	if (!sl || n >= SPOOL_NAME_MAX || name[0] == '.')
		return false;
	for (const char *p = name; *p; p++)  /* a name is printed in messages: no terminal's escape */
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	const char *d1 = strchr(name, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (!d2 || d2 - d1 != 11 || (size_t)(name + n - sl - d2 - 1) >= tlen || (size_t)(d2 - name) >= blen)
		return false;
	snprintf(table, tlen, "%.*s", (int)(name + n - sl - d2 - 1), d2 + 1);
	snprintf(batch, blen, "%.*s:%.*s", (int)(d1 - name), name, 10, d1 + 1);
	return true;
}

static bool is_batch(const char *name)
{
	char t[64], b[SPOOL_NAME_MAX];
	bool rowbinary;
	return spool_parse(name, t, sizeof(t), b, sizeof(b), &rowbinary);
}

/* name is pre, a batch's name, then suf. */
static bool batch_inside(const char *name, const char *pre, const char *suf)
{
	char b[SPOOL_NAME_MAX];
	size_t n = strlen(name), p = strlen(pre), l = strlen(suf);
	if (n <= p + l || n - p - l >= sizeof(b) || strncmp(name, pre, p) != 0 || strcmp(name + n - l, suf) != 0)
		return false;
	memcpy(b, name + p, n - p - l);
	b[n - p - l] = '\0';
	return is_batch(b);
}

/* A batch set aside: a batch's name and SPOOL_REFUSED. */
static bool is_set_aside(const char *name)
{
	return batch_inside(name, "", SPOOL_REFUSED);
}

/* A batch's temporary file (".NAME.tmp", spool_put) that a run stopped before its rename (a crash,
 * a power cut) left, untouched for SPOOL_TMP_STALE_S: no writer holds one that long (a batch is
 * written in well under a second), so it is no other running rocedump's. */
static bool is_stale_tmp(int dirfd, const char *name, time_t now)
{
	struct stat st;
	return batch_inside(name, ".", ".tmp") && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && now - st.st_mtime > SPOOL_TMP_STALE_S;
}

/* A new file name in dirfd, for writing, mode 600: never one that is there already, nor through a
 * link planted under its name. The fd, or -1 (errno). */
static int create_new(int dirfd, const char *name)
{
	return openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* 0 when a file can be made in the spool, else the errno: a directory where none can (a read-only
 * mount, one of /proc) is refused at the start, rather than found out by dropping the batches of
 * the first outage. The file is made exclusively under a random name and removed; a name taken
 * already (planted) is tried again under another, and after four the spool is taken. */
static int create_error(int dirfd)
{
	for (int tries = 0; tries < 4; tries++) {
		uint64_t r = 0;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uint64_t)tries;
		char name[48];
		snprintf(name, sizeof(name), ".probe-%016llx.tmp", (unsigned long long)r);
		int fd = create_new(dirfd, name);
		if (fd >= 0) {
			close(fd);
			unlinkat(dirfd, name, 0);
			return 0;
		}
		if (errno != EEXIST)
			return errno;
	}
	return 0;
}

int spool_open(struct spool *s, const char *dir, uint64_t max, char *err, size_t errlen)
{
	*s = (struct spool){.dirfd = -1, .max = max};
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "--export-spool %s: %s", dir, strerror(errno));
		return -1;
	}
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = s->dirfd >= 0 ? fdopendir(dup(s->dirfd)) : NULL;
	if (!d) {
		snprintf(err, errlen, "--export-spool %s: %s", dir, strerror(errno));
		spool_close(s);
		return -1;
	}
	int e_create = create_error(s->dirfd);
	if (e_create) {
		snprintf(err, errlen, "--export-spool %s: no file can be made there: %s", dir, strerror(e_create));
		closedir(d);
		spool_close(s);
		return -1;
	}
	struct dirent *e;
	struct stat st;
	time_t now = time(NULL);
	while ((e = readdir(d))) {
		if (is_stale_tmp(s->dirfd, e->d_name, now)) {
			unlinkat(s->dirfd, e->d_name, 0);
			continue;
		}
		bool batch = is_batch(e->d_name), refused = !batch && is_set_aside(e->d_name);
		if ((batch || refused) && fstatat(s->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode)) {
			s->bytes += (uint64_t)st.st_size;
			if (batch)
				s->files++;
			else
				s->refused++;
		}
	}
	closedir(d);
	return 0;
}

void spool_close(struct spool *s)
{
	free(s->scan);
	s->scan = NULL;
	s->n_scan = s->at_scan = 0;
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->dirfd = -1;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int spool_put(struct spool *s, const char *name, const char *data, size_t len, char *err, size_t errlen)
{
	if (s->dirfd < 0 || s->bytes + len > s->max)
		return 0;
	char tmp[SPOOL_NAME_MAX + 16];
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	int fd = create_new(s->dirfd, tmp);
	if (fd < 0 || write_all(fd, data, len) < 0 || fsync(fd) < 0 || renameat(s->dirfd, tmp, s->dirfd, name) < 0) {
		snprintf(err, errlen, "--export-spool: %s: %s", name, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlinkat(s->dirfd, tmp, 0);
		}
		return -1;
	}
	close(fd);
	/* the rename itself on disk, so that a batch synced is not lost with the directory's entry in a
	 * power cut during an outage (a failure here leaves the batch in place, as it was) */
	(void)fsync(s->dirfd);
	s->bytes += len;
	s->files++;
	return 1;
}

static void swap_names(char *a, char *b)
{
	char t[SPOOL_NAME_MAX];
	memcpy(t, a, SPOOL_NAME_MAX);
	memcpy(a, b, SPOOL_NAME_MAX);
	memcpy(b, t, SPOOL_NAME_MAX);
}

/* The heap of names h[0 .. n), each no later than its parent (the latest at the top), with h[i]
 * moved up or down to its place. */
static void heap_up(char (*h)[SPOOL_NAME_MAX], unsigned i)
{
	for (; i && strcmp(h[(i - 1) / 2], h[i]) < 0; i = (i - 1) / 2)
		swap_names(h[i], h[(i - 1) / 2]);
}

static void heap_down(char (*h)[SPOOL_NAME_MAX], unsigned n, unsigned i)
{
	for (;;) {
		unsigned top = i, l = 2 * i + 1, r = l + 1;
		if (l < n && strcmp(h[l], h[top]) > 0)
			top = l;
		if (r < n && strcmp(h[r], h[top]) > 0)
			top = r;
		if (top == i)
			return;
		swap_names(h[i], h[top]);
		i = top;
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Each batch's name (n bytes) in the spool that comes after `after`, to visit(); false when the
 * directory cannot be read. */
static bool each_batch(const struct spool *s, const char *after, void (*visit)(const char *name, size_t n, void *ctx),
		       void *ctx)
{
	DIR *d = fdopendir(dup(s->dirfd));
	if (!d)
		return false;
	rewinddir(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strnlen(e->d_name, SPOOL_NAME_MAX);  /* is_batch: shorter than that */
		if (n < SPOOL_NAME_MAX && is_batch(e->d_name) && strcmp(e->d_name, after) > 0)
			visit(e->d_name, n, ctx);
	}
	closedir(d);
	return true;
}

/* A name into the heap of the SPOOL_SCAN oldest (scan_spool). */
static void keep_oldest(const char *name, size_t n, void *ctx)
{
	struct spool *s = ctx;
	if (s->n_scan < SPOOL_SCAN) {  /* the heap not full: added */
		memcpy(s->scan[s->n_scan], name, n + 1);
		heap_up(s->scan, s->n_scan++);
	} else if (strcmp(name, s->scan[0]) < 0) {  /* older than the latest kept: in its place */
		memcpy(s->scan[0], name, n + 1);
		heap_down(s->scan, s->n_scan, 0);
	}
}

/* The directory read once: its SPOOL_SCAN oldest batches after `after`, in order, into s->scan. */
static bool scan_spool(struct spool *s, const char *after)
{
	s->n_scan = s->at_scan = 0;
	if (!s->scan && !(s->scan = malloc(SPOOL_SCAN * sizeof(*s->scan))))
		return false;
	if (!each_batch(s, after, keep_oldest, s))
		return false;
	qsort(s->scan, s->n_scan, sizeof(*s->scan), by_name);
	return true;
}

bool spool_next(struct spool *s, const char *after, char name[SPOOL_NAME_MAX])
{
	if (s->dirfd < 0 || !s->files)
		return false;
	for (bool scanned = false;; scanned = true) {
		if (!after[0] && !scanned)
			s->at_scan = s->n_scan;  /* a new pass: the directory read again */
		while (s->at_scan < s->n_scan && strcmp(s->scan[s->at_scan], after) <= 0)
			s->at_scan++;
		for (struct stat st; s->at_scan < s->n_scan; s->at_scan++)  /* still there */
			if (fstatat(s->dirfd, s->scan[s->at_scan], &st, AT_SYMLINK_NOFOLLOW) == 0) {
				memmove(name, s->scan[s->at_scan], strlen(s->scan[s->at_scan]) + 1);
				return true;
			}
		if (scanned || !scan_spool(s, after))
			return false;
	}
}

/* A name kept if it is the latest yet (spool_last). */
static void keep_latest(const char *name, size_t n, void *ctx)
{
	char *last = ctx;
	if (strcmp(name, last) > 0)
		memcpy(last, name, n + 1);
}

bool spool_last(const struct spool *s, const char *after, char name[SPOOL_NAME_MAX])
{
	char last[SPOOL_NAME_MAX] = "";
	if (s->dirfd < 0 || !s->files || !each_batch(s, after, keep_latest, last) || !last[0])
		return false;
	memcpy(name, last, strlen(last) + 1);
	return true;
}

int spool_set_aside(struct spool *s, const char *name, char *err, size_t errlen)
{
	char to[SPOOL_NAME_MAX + sizeof(SPOOL_REFUSED)];
	snprintf(to, sizeof(to), "%s%s", name, SPOOL_REFUSED);
	/* over a link planted at the new name, not through it */
	if (renameat(s->dirfd, name, s->dirfd, to) < 0) {
		snprintf(err, errlen, "--export-spool: %s: %s", name, strerror(errno));
		return -1;
	}
	s->files--;
	s->refused++;
	return 0;
}

/* A regular file before it is opened (a FIFO's open would wait for a writer for ever, a device's
 * may act), opened without following a link or waiting, and the same file after. */
static int open_regular(const struct spool *s, const char *name, struct stat *st, const char **why)
{
	struct stat before;
	*why = "not a regular file";
	if (fstatat(s->dirfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (!S_ISREG(before.st_mode))
		return -1;
	int fd = openat(s->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_dev != before.st_dev || st->st_ino != before.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

int spool_read(const struct spool *s, const char *name, struct chbuf *out, char *err, size_t errlen)
{
	struct stat st;
	const char *why;
	int fd = open_regular(s, name, &st, &why);
	if (fd < 0) {
		snprintf(err, errlen, "--export-spool: %s: %s", name, why);
		return -1;
	}
	if ((uint64_t)st.st_size > SPOOL_FILE_MAX) {
		snprintf(err, errlen, "--export-spool: %s: larger than any batch (%zu bytes)", name, SPOOL_FILE_MAX);
		close(fd);
		return -1;
	}
	out->len = 0;
	char buf[65536];
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (out->len + (size_t)r > SPOOL_FILE_MAX || !chbuf_add(out, buf, (size_t)r))  /* grown since */
			break;
	close(fd);
	if (r != 0) {
		snprintf(err, errlen, "--export-spool: %s: read error, or larger than any batch", name);
		return -1;
	}
	return 0;
}

void spool_remove(struct spool *s, const char *name)
{
	struct stat st;
	/* only a regular file was counted (spool_open, spool_put): a link planted there was not */
	if (fstatat(s->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && unlinkat(s->dirfd, name, 0) == 0 &&
	    S_ISREG(st.st_mode)) {
		s->bytes -= (uint64_t)st.st_size <= s->bytes ? (uint64_t)st.st_size : s->bytes;
		if (s->files)
			s->files--;
	}
}
