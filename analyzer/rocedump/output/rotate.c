/* rotate.c: -w with rotation (see rotate.h). File names as tcpdump makes them: with -G the name
 * is a strftime(3) pattern over the local time the file's period began; with -C the files after
 * the first get a number appended (name, name1, name2, ...), and with -W the numbers have as
 * many digits as W needs, the first file included (name0, name1, ...), and wrap after W files.
 * With -G and -W the capture ends once W files are done. A file that is one of the capture files
 * read is never opened: the run stops instead (out_overwrites_input). */
#include "output/rotate.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned digits(unsigned v)
{
	unsigned d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* The digits of -C's file numbers with -W (0: without -W, no fixed width). */
static unsigned number_digits(const struct rotate_config *cfg)
{
	return cfg->max_files && cfg->max_bytes ? digits(cfg->max_files - 1) : 0;
}

/* The name of the files of the period that began at start: -w's, or with -G its strftime pattern
 * over that local time. 0, or -1 with a message. */
static int period_name(const struct rotate_config *cfg, time_t start, char base[PATH_MAX], char *errbuf,
		       size_t errlen)
{
	if (!cfg->seconds) {
		snprintf(base, PATH_MAX, "%s", cfg->name);
		return 0;
	}
	struct tm tm;
	localtime_r(&start, &tm);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"  /* the user's pattern, as tcpdump's -G takes it */
	size_t n = strftime(base, PATH_MAX, cfg->name, &tm);
#pragma GCC diagnostic pop
	if (n == 0) {
		snprintf(errbuf, errlen, "-w %s: the file name is empty or too long after strftime", cfg->name);
		return -1;
	}
	return 0;
}

/* The path of the file to open now: its period's name, and -C's number. 0, or -1 with a message. */
static int make_name(struct rotor *r, char *errbuf, size_t errlen)
{
	char base[PATH_MAX];
	if (period_name(&r->cfg, r->period_start, base, errbuf, errlen) < 0)
		return -1;
	int n;
	if (r->name_digits)
		n = snprintf(r->path, sizeof(r->path), "%s%0*u", base, (int)r->name_digits, r->c_index);
	else if (r->c_index)
		n = snprintf(r->path, sizeof(r->path), "%s%u", base, r->c_index);
	else
		n = snprintf(r->path, sizeof(r->path), "%s", base);
	if (n < 0 || (size_t)n >= sizeof(r->path)) {
		snprintf(errbuf, errlen, "-w %s: file name too long", r->cfg.name);
		return -1;
	}
	return 0;
}

static int open_file(struct rotor *r, char *errbuf, size_t errlen)
{
	if (make_name(r, errbuf, errlen) < 0)
		return -1;
	if (out_overwrites_input(strcmp(r->path, "-") ? r->path : NULL, r->cfg.inputs, r->cfg.n_inputs)) {
		snprintf(errbuf, errlen, "%s: -w would overwrite the capture", r->path);
		return -1;
	}
	if (pcapng_out_open(&r->out, r->path, r->linktype, r->cfg.source, errbuf, errlen) < 0)
		return -1;
	r->opened_ns = wall_ns();
	r->at_open = r->counts ? r->counts(r->counts_ctx) : (struct rotate_counts){0};
	for (uint32_t i = 0; r->at_open.valid && i < r->at_open.n; i++)  /* every interface, as dumpcap's */
		pcapng_out_iface(&r->out, r->at_open.iface[i].key, r->at_open.iface[i].desc);
	return 0;
}

int rotor_open(struct rotor *r, const struct rotate_config *cfg, unsigned linktype, rotate_counts_fn counts,
	       void *counts_ctx, char *errbuf, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	r->linktype = linktype;
	r->counts = counts;
	r->counts_ctx = counts_ctx;
	r->name_digits = number_digits(cfg);
	r->period_start = time(NULL);
	r->g_files = 1;
	return open_file(r, errbuf, errlen);
}

/* The counts of this file's time, one block per interface: now minus when it was opened. */
static void write_isb(struct rotor *r)
{
	if (!r->counts)
		return;
	struct rotate_counts now = r->counts(r->counts_ctx);
	if (!now.valid)
		return;
	uint64_t end = wall_ns();
	for (uint32_t i = 0; i < now.n; i++) {
		const struct rotate_iface *x = &now.iface[i];
		const struct rotate_iface *a = i < r->at_open.n && r->at_open.iface[i].key == x->key ? &r->at_open.iface[i]
												   : &(struct rotate_iface){0};
		struct pcapng_isb isb = {
			.key = x->key,
			.desc = x->desc,
			.start_ns = r->opened_ns,
			.now_ns = end,
			.recv = x->recv - a->recv,
			.if_drop = x->if_drop - a->if_drop,
			.os_drop = x->os_drop - a->os_drop,
		};
		pcapng_out_isb(&r->out, &isb);
	}
}

void rotor_input_isbs(struct rotor *r)
{
	if (r->out.f)
		pcapng_out_input_isbs(&r->out);
}

int rotor_close(struct rotor *r, char *errbuf, size_t errlen)
{
	if (!r->out.f)
		return 0;
	write_isb(r);
	char why[256];
	if (pcapng_out_close(&r->out, why, sizeof(why)) < 0) {
		snprintf(errbuf, errlen, "%s: %s", r->path, why);
		return -1;
	}
	return 0;
}

int rotor_before_frame(struct rotor *r, time_t now, char *errbuf, size_t errlen)
{
	bool next = false;
	if (r->cfg.seconds && now - r->period_start >= (time_t)r->cfg.seconds) {
		if (r->cfg.max_files && r->g_files >= r->cfg.max_files)
			return 1;
		r->g_files++;
		r->period_start = now;
		r->c_index = 0;
		next = true;
	} else if (r->cfg.max_bytes) {
		off_t size = ftello(r->out.f);
		if (size > 0 && (uint64_t)size > r->cfg.max_bytes) {
			r->c_index++;
			if (r->cfg.max_files && r->c_index >= r->cfg.max_files)
				r->c_index = 0;
			next = true;
		}
	}
	if (!next)
		return 0;
	if (rotor_close(r, errbuf, errlen) < 0)
		return -1;
	return open_file(r, errbuf, errlen);
}

void rotor_frame(struct rotor *r, const struct frame *f, const char *comment, size_t comment_len)
{
	pcapng_out_frame(&r->out, f, comment, comment_len);
	if (r->cfg.packet_buffered)
		fflush(r->out.f);
}

void rotor_flush(struct rotor *r)
{
	if (r->out.f)
		fflush(r->out.f);
}

bool out_overwrites_input(const char *path, const char *const *inputs, unsigned n)
{
	struct stat out, in;
	if (!n || (path ? stat(path, &out) : fstat(STDOUT_FILENO, &out)) != 0 || !S_ISREG(out.st_mode))
		return false;  /* not there yet, or not a file a capture is read from */
	for (unsigned i = 0; i < n; i++)
		if ((strcmp(inputs[i], "-") ? stat(inputs[i], &in) : fstat(STDIN_FILENO, &in)) == 0 &&
		    in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return true;
	return false;
}

/* Whether s, what follows a period's name in a file's name, is a number -C gives: with -W one of
 * number_digits() digits below W; without, none (the first file) or a number from 1. */
static bool rotation_number(const struct rotate_config *cfg, const char *s)
{
	unsigned want = number_digits(cfg);
	if (!want)
		return !*s || (*s >= '1' && *s <= '9' && strspn(s, "0123456789") == strlen(s));
	unsigned long long v = 0;
	size_t k = 0;
	for (; k <= want && s[k] >= '0' && s[k] <= '9'; k++)
		v = v * 10 + (unsigned)(s[k] - '0');
	return k == want && !s[k] && v < cfg->max_files;
}

/* Whether one of the files -C numbers after base, those in its directory now, is an input. */
static bool numbered_overwrites_input(const struct rotate_config *cfg, const char *base, char *which, size_t len)
{
	const char *slash = strrchr(base, '/'), *stem = slash ? slash + 1 : base;
	char dir[PATH_MAX], path[PATH_MAX];
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - base + 1) : 0, base);
	DIR *d = opendir(slash ? dir : ".");
	if (!d)
		return false;
	bool found = false;
	for (const struct dirent *e; !found && (e = readdir(d)) != NULL;) {
		if (strncmp(e->d_name, stem, strlen(stem)) != 0 || !rotation_number(cfg, e->d_name + strlen(stem)) ||
		    snprintf(path, sizeof(path), "%s%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		found = out_overwrites_input(path, cfg->inputs, cfg->n_inputs);
		if (found)
			snprintf(which, len, "%s", path);
	}
	closedir(d);
	return found;
}

bool rotate_overwrites_input(const struct rotate_config *cfg, char *which, size_t len)
{
	char base[PATH_MAX], err[8];
	if (!cfg->n_inputs || period_name(cfg, time(NULL), base, err, sizeof(err)) < 0)
		return false;  /* a pattern strftime cannot make a name of: rotor_open says so */
	if (cfg->max_bytes)
		return numbered_overwrites_input(cfg, base, which, len);
	bool out = strcmp(base, "-") == 0;  /* standard output (never with -C or -G) */
	if (!out_overwrites_input(out ? NULL : base, cfg->inputs, cfg->n_inputs))
		return false;
	snprintf(which, len, "%s", out ? "standard output" : base);
	return true;
}
