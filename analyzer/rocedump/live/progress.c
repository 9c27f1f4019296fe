/* progress.c: the progress line (see progress.h), redrawn in place with a carriage return and
 * erased with "\r\033[K" at the end. */
#include "live/progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#define REDRAW_S 0.25

void progress_init(struct progress *p, bool wanted, uint64_t total)
{
	*p = (struct progress){.on = wanted && isatty(STDERR_FILENO), .total = total, .start = -1};
}

static void human_bytes(char *buf, size_t len, uint64_t b)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
	double v = (double)b;
	unsigned u = 0;
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void progress_update(struct progress *p, uint64_t frames, uint64_t offset, double now)
{
	if (!p->on)
		return;
	if (p->start < 0) {
		p->start = p->last = now;
		return;
	}
	if (now - p->last < REDRAW_S)
		return;
	p->last = now;
	double secs = now - p->start;
	double rate = secs > 0 ? (double)frames / secs : 0;
	char done[32];
	human_bytes(done, sizeof(done), offset);
	if (p->total && offset <= p->total) {
		char all[32];
		human_bytes(all, sizeof(all), p->total);
		double frac = (double)offset / (double)p->total;
		double left = frac > 0 ? secs / frac - secs : 0;
		fprintf(stderr, "\r\033[K%s / %s (%.1f%%), %" PRIu64 " frames, %.0f frames/s, %.0f s left", done, all,
			100 * frac, frames, rate, left);
	} else {
		fprintf(stderr, "\r\033[K%s, %" PRIu64 " frames, %.0f frames/s", done, frames, rate);
	}
	fflush(stderr);
	p->drawn = true;
}

void progress_end(struct progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = false;
}
