/* test_rotate.c: -w's refusal of a file that is one of the capture files (output/rotate.c): by
 * any name (a symbolic or hard link); -C's numbered names found before the capture, as the rotor
 * makes them (name, name1, ...; with -W a fixed width below W) and no others; and a later -G
 * period's file, which cannot be known at the start, refused as it is due, the capture left whole. */
#define _GNU_SOURCE  /* nftw, mkdtemp */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/rotate.h"

static char dir[] = "/tmp/test_rotate.XXXXXX";

static void make_dir(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

/* nftw's callback: remove the file or (emptied) directory. */
static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void remove_dir(void)
{
	cr_assert_eq(nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS), 0);
}

TestSuite(rotate, .init = make_dir, .fini = remove_dir);

/* dir/name into out. */
static const char *at(char out[256], const char *name)
{
	snprintf(out, 256, "%s/%s", dir, name);
	return out;
}

/* A file of the text s at path. */
static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(s, f);
	cr_assert_eq(fclose(f), 0);
}

/* The first line of the file at path. */
static const char *read_file(const char *path)
{
	static char line[64];
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return line;
}

Test(rotate, any_name_of_the_capture)
{
	char cap[256], sym[256], hard[256], other[256];
	write_file(at(cap, "cap.pcap"), "capture");
	cr_assert_eq(symlink(cap, at(sym, "sym")), 0);
	cr_assert_eq(link(cap, at(hard, "hard")), 0);
	write_file(at(other, "other"), "other");
	const char *in[] = {other, cap};
	cr_assert(out_overwrites_input(cap, in, 2));
	cr_assert(out_overwrites_input(sym, in, 2));
	cr_assert(out_overwrites_input(hard, in, 2));
	const char *by_link[] = {sym};
	cr_assert(out_overwrites_input(hard, by_link, 1));
	cr_assert_not(out_overwrites_input(other, in + 1, 1));
	cr_assert_not(out_overwrites_input(at(other, "not-there"), in, 2));
	cr_assert_not(out_overwrites_input(dir, (const char *[]){dir}, 1), "a directory is no capture file");
	cr_assert_not(out_overwrites_input(cap, in, 0));
}

Test(rotate, numbered_names_as_the_rotor_makes_them)
{
	char cap[256], name[256], found[256];
	write_file(at(cap, "cap.pcap"), "capture");
	const char *in[] = {cap};
	struct rotate_config cfg = {.name = at(name, "out"), .max_bytes = 1000000, .inputs = in, .n_inputs = 1};
	/* -C: out, out1, out2, ...: not out01 nor out0 */
	static const char *const not_made[] = {"out01", "out0", "out1x", "ou", "out-1"};
	for (size_t i = 0; i < sizeof(not_made) / sizeof(not_made[0]); i++) {
		char p[256];
		cr_assert_eq(link(cap, at(p, not_made[i])), 0);
		cr_assert_not(rotate_overwrites_input(&cfg, found, sizeof(found)), "%s", not_made[i]);
		unlink(p);
	}
	char p[256];
	cr_assert_eq(link(cap, at(p, "out17")), 0);
	cr_assert(rotate_overwrites_input(&cfg, found, sizeof(found)));
	cr_assert_str_eq(found, p);
	unlink(p);
	cr_assert_eq(link(cap, at(p, "out")), 0);
	cr_assert(rotate_overwrites_input(&cfg, found, sizeof(found)));
	unlink(p);
	/* -C with -W 12: out00 to out11 */
	cfg.max_files = 12;
	static const char *const made_w[] = {"out00", "out11"}, *const not_made_w[] = {"out", "out5", "out12", "out007"};
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(link(cap, at(p, made_w[i])), 0);
		cr_assert(rotate_overwrites_input(&cfg, found, sizeof(found)), "%s", made_w[i]);
		unlink(p);
	}
	for (size_t i = 0; i < sizeof(not_made_w) / sizeof(not_made_w[0]); i++) {
		cr_assert_eq(link(cap, at(p, not_made_w[i])), 0);
		cr_assert_not(rotate_overwrites_input(&cfg, found, sizeof(found)), "%s", not_made_w[i]);
		unlink(p);
	}
	/* no rotation: the name alone */
	cfg.max_bytes = 0;
	cfg.max_files = 0;
	cr_assert_not(rotate_overwrites_input(&cfg, found, sizeof(found)));
	cfg.name = cap;
	cr_assert(rotate_overwrites_input(&cfg, found, sizeof(found)));
}

Test(rotate, later_period_file_refused_when_due)
{
	char cap[256], pattern[256], err[256];
	const char *in[] = {cap};
	struct rotate_config cfg = {.name = at(pattern, "out-%s"), .seconds = 60, .inputs = in, .n_inputs = 1};
	struct rotor r;
	char first[sizeof(r.path)];
	at(cap, "nothing-yet");
	cr_assert_eq(rotor_open(&r, &cfg, 1, NULL, NULL, err, sizeof(err)), 0, "%s", err);
	snprintf(first, sizeof(first), "%s", r.path);
	time_t start = r.period_start;
	/* the capture is the file of the period an hour on; the next period's is not */
	snprintf(cap, sizeof(cap), "%s/out-%lld", dir, (long long)start + 3600);
	write_file(cap, "capture");
	cr_assert_eq(rotor_before_frame(&r, start + 60, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rotor_before_frame(&r, start + 3600, err, sizeof(err)), -1);
	cr_assert(strstr(err, "would overwrite the capture"), "%s", err);
	cr_assert_str_eq(read_file(cap), "capture");
	cr_assert_eq(rotor_close(&r, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(read_file(cap), "capture");
	cr_assert_eq(access(first, F_OK), 0);
}
