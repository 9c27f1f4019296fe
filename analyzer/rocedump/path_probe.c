/* path_probe.c: the first pass that estimates the capture points' clock offsets (path_probe.h). It
 * reads the start of the input with its own analyzer, whose copy window is wide enough that a
 * packet's sightings match whatever the points' clocks, and asks it for the offsets its streams'
 * two directions give (roce_analyzer_path_wide_offsets). Only a sample of the packets is analysed
 * (by PSN): a second of sightings of every packet would make the first pass cost more than the
 * main one. */
#include "path_probe.h"

#include <string.h>

#include "input/input.h"
#include "roce/analyze.h"
#include "roce/path.h"

struct probe_ctx {
	struct roce_analyzer *an;
	const struct input *in;
	uint64_t n;
	int64_t first;
	bool one_file;
};

/* Whether the pass has nothing to find: one file, of one interface, in which one capture point only
 * has shown (a dense capture of one point would pay for the whole pass). */
static bool probe_alone(const struct probe_ctx *c)
{
	const struct roce_path_point *pts;
	const struct capstats *cs = input_capstats(c->in);
	return c->one_file && roce_analyzer_path_points(c->an, &pts) <= 1 &&
	       (cs->format != CAPSTATS_PCAPNG || cs->n_names <= 1);
}

/* Whether the first pass matches the packet: a stream's packet (one with a BTH, not a CNP: the
 * offsets come from streams alone), one PSN in PATH_PROBE_SAMPLE, by a hash of it (every sighting of
 * a packet has its PSN, so its sightings are all taken or all left; the wide window then holds a
 * fraction of the packets, and the delay minima come from a sample of each stream's). A CNP's PSN is
 * 0, which the hash takes: every CNP of a queue pair, the same bytes, would go to one chain of the
 * sightings table, kept for the window's second. */
static bool probe_sampled(const struct roce_pkt *pkt)
{
	return pkt->version && pkt->op && pkt->op->op != ROCE_OP_CNP &&
	       ((pkt->h.bth.psn * UINT32_C(0x9e3779b1)) >> 16) % PATH_PROBE_SAMPLE == 0;
}

static bool probe_frame(void *ctx, const struct frame *f, struct roce_pkt *pkt)
{
	struct probe_ctx *c = ctx;
	int64_t ts = frame_ts_ns(f);
	if (!c->n++)
		c->first = ts;
	pkt->capture_if = f->iface;
	if (probe_sampled(pkt))
		roce_analyze(c->an, pkt, f->number, f->data, ts, NULL);
	if (c->n == PATH_PROBE_ALONE && probe_alone(c))
		return false;
	int64_t since;  /* hostile time stamps (years apart, either way): past the pass's time */
	return c->n < PATH_PROBE_FRAMES && !__builtin_sub_overflow(ts, c->first, &since) && since < PATH_PROBE_NS;
}

static int open_files(struct input *in, const struct options *o, char *err, size_t len)
{
	if (o->n_read_files > 1)
		return input_open_files(in, o->read_files, o->n_read_files, o->filter, err, len);
	return input_open_file(in, o->read_file, o->filter, err, len);
}

/* Whether every file of the main pass's input can be read again: a regular file, not standard
 * input (whose offset the main pass shares), not a pipe or FIFO (whose bytes a second reader would
 * take from the main pass, or wait for for ever). */
static bool readable_twice(const struct options *o, const struct input *in)
{
	for (unsigned k = 0; k < o->n_read_files; k++)
		if (!strcmp(o->read_files[k], "-"))
			return false;
	if (!strcmp(o->read_file, "-"))
		return false;
	for (unsigned i = 0; input_part(in, i); i++)
		if (input_part(in, i)->poll)
			return false;
	return true;
}

bool path_probe_run(struct path_probe *p, const struct options *o, const struct input *main_in,
		    const struct pipeline_config *pcfg)
{
	memset(p, 0, sizeof(*p));
	if (o->live.device || !o->read_file || o->copy_window_us <= 0 || o->n_point_offsets ||
	    !readable_twice(o, main_in))
		return false;
	struct roce_analyzer_config acfg = {.max_streams = o->max_streams, .pmtu = o->pmtu,
					    .copy_window_us = PATH_PROBE_WINDOW_US};
	char err[ROCE_ERRBUF_SIZE > INPUT_ERRLEN ? ROCE_ERRBUF_SIZE : INPUT_ERRLEN];
	struct input in;
	if (open_files(&in, o, err, sizeof(err)) < 0)
		return false;
	struct probe_ctx c = {.an = roce_analyzer_new(&acfg, err), .in = &in, .one_file = o->n_read_files <= 1};
	/* its decoder checks no ICRC and no checksum: it looks for copies (by the ICRC on the wire)
	 * and their times, not for damage, which the main pass reports */
	struct roce_decoder_config dcfg = pcfg->decoder ? *pcfg->decoder : (struct roce_decoder_config){0};
	dcfg.flags |= ROCE_DECODE_NO_ICRC | ROCE_DECODE_NO_CSUM;
	struct pipeline_config cfg = {.threads = pcfg->threads, .batch_frames = pcfg->batch_frames,
				      .decoder = &dcfg};
	bool ok = c.an && pipeline_run(&in, &cfg, probe_frame, &c, err, sizeof(err)) >= 0 &&
		  roce_analyzer_path_finish(c.an, NULL, NULL) == 0;
	if (ok) {
		p->n = roce_analyzer_path_wide_offsets(c.an, PATH_PROBE_POINTS, p->offset_ns, p->uncertainty_ns);
		for (uint32_t i = 0; i < p->n; i++) {
			int64_t a = p->offset_ns[i] < 0 ? -p->offset_ns[i] : p->offset_ns[i];
			p->applied |= p->uncertainty_ns[i] >= 0 && a > o->copy_window_us * 1000 / 4;
		}
	}
	roce_analyzer_free(c.an);
	input_close(&in);
	return ok;
}
