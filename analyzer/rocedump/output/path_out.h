/* path_out.h: path analysis in the -q summary (roce/path.h): the capture points by name, each
 * hop's losses, delays and clock offset, and each stream's path. */
#ifndef ROCEDUMP_PATH_OUT_H
#define ROCEDUMP_PATH_OUT_H

#include <stdio.h>

#include "input/capstats.h"
#include "options.h"
#include "path_probe.h"
#include "roce/analyze.h"
#include "roce/path.h"

#define PATH_POINT_NAME_MAX 192

/* A point's name: its pcapng interface's name (or "if<id>"), SLL2 interface index, mirror
 * session (and ERSPAN III direction), space separated; "capture" when none of these tells it. */
void path_point_name(char *buf, size_t cap, const struct roce_path_point *pt, const struct capstats *cs);

/* What the analysis asks when it meets a new capture point (path_out_offsets). */
struct path_offsets {
	const struct capstats *cs;
	const struct options *o;
	const struct path_probe *wide;  /* the first pass's estimates; NULL: none */
};

/* Before the first frame: each new capture point's clock offset taken off its time stamps before
 * matching: o's --point-offset for the point it names (by name or number), else the first pass's
 * estimate when it found offsets to take off (path_probe.h); none otherwise. ctx lives as long as
 * the analyzer. */
void path_out_offsets(struct roce_analyzer *an, struct path_offsets *ctx);

/* The paths worked out (roce_analyzer_path_finish) with o's --point-offset values, each matched to
 * a point by name or number. 0, or EXIT_USAGE with a message on stderr when a name matches no
 * point; -1 when out of memory. */
int path_out_finish(struct roce_analyzer *an, const struct capstats *cs, const struct options *o);

/* The paths so far (roce_analyzer_path_snapshot) with o's --point-offset values, those naming no
 * point yet left out; last: the capture is over, the paths finished (the packets still in the copy
 * window counted too) unless path_out_finish did. NULL: fewer than two points, or no memory. */
const struct roce_path *path_out_snapshot(struct roce_analyzer *an, const struct capstats *cs, const struct options *o,
					  bool last);

/* A warning on err for each hop whose later point saw many packets that match no sighting at
 * the earlier one within the copy window (nor are its mirror's loss) while the hop counts many
 * lost: a delay or a clock offset longer than the window makes both (docs/path.md). After
 * path_out_finish. */
void path_warn_unmatched(const struct roce_analyzer *an, const struct options *o, FILE *err);

/* -q text: the points and the hop table; nothing when the capture had fewer than two points. */
void path_print_text(const struct roce_analyzer *an, const struct capstats *cs, FILE *out);
/* -q JSON: ,"path":{...} (a key of the enclosing object); nothing when fewer than two points. */
void path_print_json(const struct roce_analyzer *an, const struct capstats *cs, FILE *out);

#endif
