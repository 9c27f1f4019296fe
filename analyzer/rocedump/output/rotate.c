/* rotate.c: -w with rotation (see rotate.h). File names as tcpdump makes them: with -G the name
 * is a strftime(3) pattern over the local time the file's period began; with -C the files after
 * the first get a number appended (name, name1, name2, ...), and with -W the numbers have as
 * many digits as W needs, the first file included (name0, name1, ...), and wrap after W files.
 * With -G and -W the capture ends once W files are done. */
#include "output/rotate.h"

#include <stdio.h>
#include <string.h>

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

static int make_name(struct rotor *r, char *errbuf, size_t errlen)
{
	char base[PATH_MAX];
	if (r->cfg.seconds) {
		struct tm tm;
		localtime_r(&r->period_start, &tm);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"  /* the user's pattern, as tcpdump's -G takes it */
		size_t n = strftime(base, sizeof(base), r->cfg.name, &tm);
#pragma GCC diagnostic pop
		if (n == 0) {
			snprintf(errbuf, errlen, "-w %s: the file name is empty or too long after strftime", r->cfg.name);
			return -1;
		}
	} else {
		snprintf(base, sizeof(base), "%s", r->cfg.name);
	}
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
	r->name_digits = cfg->max_files && cfg->max_bytes ? digits(cfg->max_files - 1) : 0;
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
