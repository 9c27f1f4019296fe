/* test_spool.c: --export-spool's directory (analyzer/rocedump/export/spool.h, .c): batches found
 * oldest first, each once, across the scans that read SPOOL_SCAN names at a time; names that are
 * not a batch's (others' files, temporary ones, a control byte, a batch set aside) never found;
 * a batch spooled during a pass found by it when its name comes later, by the next pass when it
 * comes earlier; a batch gone before its turn passed over; a new pass from the oldest again; a
 * batch spooled synced, then its directory; a batch's temporary file a crash left removed; a batch
 * set aside renamed, counted apart and still in the spool's bytes, also when the spool is opened
 * again. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "export/spool.h"

static char dir[64];

/* fsync() as the spool calls it (the test's own definition comes before libc's in the static
 * link): the descriptors synced, then the real call. */
static int synced[64];
static unsigned n_synced;

int fsync(int fd)
{
	if (n_synced < sizeof(synced) / sizeof(synced[0]))
		synced[n_synced++] = fd;
	return (int)syscall(SYS_fsync, fd);
}

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rocedump-spool-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			cr_assert_eq(unlinkat(dirfd(d), e->d_name, 0), 0, "%s", e->d_name);
	closedir(d);
	cr_assert_eq(rmdir(dir), 0);
}

TestSuite(spool, .init = make_dir, .fini = remove_dir);

static void name_of(char name[SPOOL_NAME_MAX], unsigned run, unsigned seq)
{
	snprintf(name, SPOOL_NAME_MAX, "2026120%uT000000Z-1-0000.%010u.frames" SPOOL_SUFFIX, run, seq);
}

static void put(struct spool *s, unsigned run, unsigned seq)
{
	char name[SPOOL_NAME_MAX], err[256];
	name_of(name, run, seq);
	cr_assert_eq(spool_put(s, name, "rows", 4, err, sizeof(err)), 1, "%s", err);
}

/* A file written straight into the spool (not synced, as spool_put does: thousands of them) */
static void plant(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* The spool's file name last written seconds ago. */
static void age(const char *name, time_t seconds)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct timespec then[2] = {{.tv_sec = time(NULL) - seconds}, {.tv_sec = time(NULL) - seconds}};
	cr_assert_eq(utimensat(AT_FDCWD, path, then, 0), 0);
}

/* batches seq 1 .. n of run, written straight into the spool */
static void plant_batches(unsigned run, unsigned n)
{
	char name[SPOOL_NAME_MAX];
	for (unsigned i = 1; i <= n; i++) {
		name_of(name, run, i);
		plant(name, "rows");
	}
}

/* 3,000 batches spooled in a shuffled order, among files that are not batches: a drain (each
 * batch removed once sent) finds every one once, oldest first, over three scans and more. */
Test(spool, a_drain_finds_every_batch_once_oldest_first)
{
	struct spool s;
	char err[256], name[SPOOL_NAME_MAX] = "", want[SPOOL_NAME_MAX];
	enum { N = 3000 };
	unsigned order[N];
	for (unsigned i = 0; i < N; i++)
		order[i] = i;
	for (unsigned i = N - 1, x = 12345; i > 0; i--) {  /* a fixed shuffle */
		x = x * 1103515245u + 12345u;
		unsigned j = (x >> 8) % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned i = 0; i < N; i++) {  /* three runs' batches, in a shuffled order */
		name_of(name, 1 + order[i] % 3, order[i]);
		plant(name, "rows");
	}
	name[0] = '\0';
	plant("README", "not a batch");
	plant(".20261201T000000Z-1-0000.0000000001.frames.rowbinary.tmp", "not a batch");
	plant("20261201T000000Z-1-\x1b.0000000001.frames.rowbinary", "not a batch");
	plant("20261200T000000Z-1-0000.0000000001.frames.rowbinary.refused", "set aside");
	cr_assert_eq(spool_open(&s, dir, 1 << 30, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.files, N);
	cr_assert_eq(s.refused, 1);
	cr_assert_eq(s.bytes, 4 * N + 9);
	unsigned found = 0;
	char last[SPOOL_NAME_MAX] = "";
	while (spool_next(&s, name, name)) {
		cr_assert_gt(strcmp(name, last), 0, "%s after %s", name, last);
		memcpy(last, name, sizeof(last));
		spool_remove(&s, name);
		found++;
	}
	cr_assert_eq(found, N);
	cr_assert_eq(s.files, 0);
	name_of(want, 3, N - 1);  /* the last of the last run's (seq % 3 == 2) */
	cr_assert_str_eq(last, want);
	spool_close(&s);
}

/* A pass that leaves its batches (the server refuses them) walks them in order; a batch spooled
 * during it with a later name is found by it, one with an earlier name by the next pass; a batch
 * gone before its turn is passed over. */
Test(spool, batches_spooled_or_gone_during_a_pass)
{
	struct spool s;
	char err[256], name[SPOOL_NAME_MAX] = "", gone[SPOOL_NAME_MAX], late[SPOOL_NAME_MAX], early[SPOOL_NAME_MAX];
	plant_batches(5, 1500);
	cr_assert_eq(spool_open(&s, dir, 1 << 30, err, sizeof(err)), 0, "%s", err);
	unsigned found = 0;
	for (; found < 10; found++)
		cr_assert(spool_next(&s, name, name));
	name_of(gone, 5, 700);  /* in the first scan's names: removed behind its back */
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, gone);
	cr_assert_eq(unlink(path), 0);
	put(&s, 5, 2000);  /* later than every name: this pass finds it */
	put(&s, 4, 1);     /* earlier than the pass has come: the next one does */
	name_of(late, 5, 2000);
	name_of(early, 4, 1);
	bool saw_late = false;
	while (spool_next(&s, name, name)) {
		cr_assert_str_neq(name, gone);
		cr_assert_str_neq(name, early);
		saw_late |= strcmp(name, late) == 0;
		found++;
	}
	cr_assert(saw_late);
	cr_assert_eq(found, 1500 - 1 + 1);
	name[0] = '\0';
	cr_assert(spool_next(&s, name, name));  /* a new pass */
	cr_assert_str_eq(name, early);
	spool_close(&s);
}

/* A pass that ends early (the server stopped answering) leaves its batches; the next pass starts
 * again at the oldest, not where the last one stopped. The newest batch after a name. */
Test(spool, a_new_pass_starts_at_the_oldest)
{
	struct spool s;
	char err[256], name[SPOOL_NAME_MAX] = "", oldest[SPOOL_NAME_MAX];
	plant_batches(2, 20);
	cr_assert_eq(spool_open(&s, dir, 1 << 30, err, sizeof(err)), 0, "%s", err);
	for (unsigned i = 0; i < 5; i++)
		cr_assert(spool_next(&s, name, name));
	name[0] = '\0';
	cr_assert(spool_next(&s, name, name));
	name_of(oldest, 2, 1);
	cr_assert_str_eq(name, oldest);
	/* the newest, tried when a pass's oldest batches are all refused */
	char newest[SPOOL_NAME_MAX];
	name_of(newest, 2, 20);
	cr_assert(spool_last(&s, name, name));
	cr_assert_str_eq(name, newest);
	cr_assert_not(spool_last(&s, newest, name));
	spool_close(&s);
}

/* A batch spooled: its file synced, then the directory, so that the rename survives a power cut. */
Test(spool, a_batch_spooled_is_synced_and_so_is_its_name)
{
	struct spool s;
	char err[256];
	cr_assert_eq(spool_open(&s, dir, 1 << 30, err, sizeof(err)), 0, "%s", err);
	n_synced = 0;
	put(&s, 1, 1);
	cr_assert_eq(n_synced, 2);
	cr_assert_neq(synced[0], s.dirfd);
	cr_assert_eq(synced[1], s.dirfd);
	spool_close(&s);
}

/* A batch's temporary file a crash left (untouched for longer than SPOOL_TMP_STALE_S) removed when
 * the spool is opened; a fresh one (a run writing it now) and others' files kept. */
Test(spool, temporary_files_a_crash_left_removed)
{
	struct spool s;
	char err[256], path[512];
	const char *old = ".20261201T000000Z-1-0000.0000000001.frames.rowbinary.tmp",
		   *fresh = ".20261201T000000Z-1-0000.0000000002.frames.rowbinary.tmp", *theirs = ".notes.tmp";
	plant(old, "rows");
	plant(fresh, "rows");
	plant(theirs, "notes");
	age(old, SPOOL_TMP_STALE_S + 60);
	age(theirs, SPOOL_TMP_STALE_S + 60);
	cr_assert_eq(spool_open(&s, dir, 1 << 30, err, sizeof(err)), 0, "%s", err);
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, old);
	cr_assert_neq(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, fresh);
	cr_assert_eq(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, theirs);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(s.files, 0);
	cr_assert_eq(s.bytes, 0);
	spool_close(&s);
}

/* A batch set aside: renamed NAME.refused, no longer found, counted apart, its bytes still the
 * spool's (the cap holds them); counted so again when the spool is opened again. */
Test(spool, a_batch_set_aside)
{
	struct spool s;
	char err[256], name[SPOOL_NAME_MAX] = "", first[SPOOL_NAME_MAX];
	cr_assert_eq(spool_open(&s, dir, 1 << 30, err, sizeof(err)), 0, "%s", err);
	put(&s, 1, 1);
	put(&s, 1, 2);
	name_of(first, 1, 1);
	cr_assert_eq(spool_set_aside(&s, first, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.files, 1);
	cr_assert_eq(s.refused, 1);
	cr_assert_eq(s.bytes, 8);
	cr_assert(spool_next(&s, name, name));
	cr_assert_str_neq(name, first);
	cr_assert_not(spool_next(&s, name, name));
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s%s", dir, first, SPOOL_REFUSED);
	cr_assert_eq(stat(path, &st), 0);
	spool_close(&s);
	cr_assert_eq(spool_open(&s, dir, 1 << 30, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.files, 1);
	cr_assert_eq(s.refused, 1);
	cr_assert_eq(s.bytes, 8);
	spool_close(&s);
}
