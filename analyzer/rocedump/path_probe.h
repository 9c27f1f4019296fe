/* path_probe.h: the capture points' clock offsets from a first pass over the start of the capture
 * files with a wide copy window (docs/path.md, "Clocks"), so that the main pass can take them off
 * each point's time stamps before it matches a packet's sightings with the tight window. */
#ifndef ROCEDUMP_PATH_PROBE_H
#define ROCEDUMP_PATH_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "input/input.h"
#include "options.h"
#include "pipeline.h"

#define PATH_PROBE_POINTS 256u                    /* points estimated; later ones get none */
#define PATH_PROBE_WINDOW_US INT64_C(1000000)     /* the wide window: offsets up to it are found */
#define PATH_PROBE_FRAMES 200000u                 /* the first pass reads at most these frames */
#define PATH_PROBE_NS INT64_C(2000000000)         /* and at most this much capture time */
#define PATH_PROBE_SAMPLE 16u                     /* it analyses one PSN in this many */
#define PATH_PROBE_ALONE 16384u                   /* frames after which one file of one interface
						   * that showed one capture point only is left */

struct path_probe {
	uint32_t n;                               /* points the first pass saw */
	int64_t offset_ns[PATH_PROBE_POINTS];     /* point i's clock minus point 0's */
	int64_t uncertainty_ns[PATH_PROBE_POINTS];  /* +-, -1: not estimated */
	bool applied;                             /* some offset is large enough to take off */
};

/* The first pass on o's -r files, when each can be read twice (a regular file, not standard input,
 * not a pipe or FIFO: in, the main pass's input, already open, tells) and copies are looked for
 * (left after PATH_PROBE_ALONE frames of a single file of one interface in which one capture
 * point only showed: every frame of such a file has the one clock, and its points are mirror
 * sessions that appear together, as a rule): p filled, its offsets applied when one of them is
 * more than a quarter of the copy window (below that the end's estimate, from the tight window's
 * matches, serves as before). Returns
 * false when no pass was made (p->applied false), or on a read error (ignored: the main pass
 * reports it). */
bool path_probe_run(struct path_probe *p, const struct options *o, const struct input *in,
		    const struct pipeline_config *pcfg);

#endif
