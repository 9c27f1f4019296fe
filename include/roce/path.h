/* path.h: path analysis across capture points: where between the points of a capture (two mirrored
 * ports, ERSPAN sessions of two switches, two taps, the interfaces of a pcapng) packets were lost
 * or delayed.
 *
 * It reads the copy detection's table of sightings (analyze.h: every packet seen within the copy
 * window, with every capture point that saw it and when), and is on whenever the capture holds
 * more than one point and copies are looked for. As each packet leaves the table its sightings are
 * folded into per-stream statistics. At the end:
 *   path      each stream's points in the order they see its packets (the majority order of
 *             first sightings, point by point);
 *   hop       two consecutive points of a stream's path, from and to;
 *   lost      packets seen at from, never at to nor at any point after it on the path: lost
 *             between the two (the network's loss);
 *   mirror_lost  seen at from, not at to, but at a point after it: to's mirror lost it;
 *   delay     to's time minus from's, less the clock offset of the two (below), per packet seen
 *             at both: min, p50, p99, max (exact quantiles of up to ROCE_PATH_SAMPLES delays per
 *             stream hop, a uniform sample of them beyond). The minimum is the hop's base delay
 *             (wire, switch); the rest is queueing, and whatever the offset got wrong;
 *   offset    to's clock minus from's: given (roce_analyzer_path_finish's point offsets, or a
 *             point's taken off before matching: roce_analyzer_path_offsets), or
 *             estimated as NTP does from the delay minima of the hop's two directions (streams
 *             crossing from then to, and to then from): (min(from->to) - min(to->from)) / 2,
 *             within +-(min(from->to) + min(to->from)) / 2 (exact when the two base delays are
 *             equal); none when only one direction crosses them (offset 0, uncertainty unknown);
 *   reordered packets whose order at to differs from their order at from (each packet compared
 *             with the one before it of its stream).
 * A delay that comes out negative (the offset is off by more than the base delay) is counted
 * clamped and taken as 0. */
#ifndef ROCE_PATH_H
#define ROCE_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/common.h"
#include "roce/mirror.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_PATH_POINTS 8u        /* points of one stream's path; a stream's further ones are left out */
#define ROCE_PATH_SAMPLES 65536u   /* delays kept per stream hop for the quantiles */

/* A capture point as the copy detection tells them apart (analyze.h), described for naming. */
struct roce_path_point {
	uint32_t capture_if;       /* roce_pkt's capture_if (the pcapng interface), 0: none */
	uint32_t sll_ifindex;      /* SLL2's interface index, 0: none */
	bool mirrored;             /* came through a mirror session: mirror is set */
	uint8_t direction;         /* ERSPAN III's direction bit (0 ingress, 1 egress) */
	struct roce_mirror_point mirror;
	uint64_t packets;          /* packets of path streams it saw (first sightings there) */
	/* its clock offset (its clock minus the reference one) taken off its time stamps before its
	 * sightings were matched (roce_analyzer_path_offsets): given, estimated in a wide first pass
	 * (ROCE_OFFSET_WIDE), or none (0) */
	int64_t offset_ns;
	int64_t offset_uncertainty_ns;  /* +-; 0 given, -1 none */
	uint8_t offset_source;          /* enum roce_offset_source */
};

/* ROCE_OFFSET_WIDE: the points' offsets estimated in a first pass over the start of the capture
 * with a wide copy window (roce_analyzer_path_wide_offsets) and taken off their time stamps
 * before matching; a hop's is that difference plus what the end's estimate finds left. */
enum roce_offset_source { ROCE_OFFSET_NONE = 0, ROCE_OFFSET_ESTIMATED, ROCE_OFFSET_GIVEN, ROCE_OFFSET_WIDE };

/* One hop's figures (a stream's, or the total of every stream crossing from then to). */
struct roce_path_hop {
	uint32_t from, to;         /* indexes into roce_path's points */
	uint64_t seen_from, seen_to, lost, mirror_lost, reordered;
	uint64_t delays;           /* packets seen at both: the delays measured */
	uint64_t clamped;          /* of them, negative after the offset: taken as 0 */
	int64_t delay_min_ns, delay_p50_ns, delay_p99_ns, delay_max_ns;  /* -1: no delay measured */
	int64_t offset_ns;              /* to's clock minus from's, taken off the delays */
	int64_t offset_uncertainty_ns;  /* +-; 0 given, -1 unknown (no offset) */
	uint8_t offset_source;          /* enum roce_offset_source */
};

/* A stream's path: its points in order and the hops between them (n_points - 1). */
struct roce_path_stream {
	uint32_t stream;           /* its stream id (analyze.h) */
	uint32_t n_points;
	uint32_t points[ROCE_PATH_POINTS];
	const struct roce_path_hop *hops;
};

struct roce_path {
	uint32_t n_points;
	const struct roce_path_point *points;
	uint32_t n_streams;        /* streams seen at two points or more */
	const struct roce_path_stream *streams;
	uint32_t n_hops;           /* hops of all streams, totalled by (from, to) */
	const struct roce_path_hop *hops;
};

struct roce_analyzer;

/* The capture points so far (their number; *points: them), for naming them before
 * roce_analyzer_path_finish. */
ROCE_API uint32_t roce_analyzer_path_points(const struct roce_analyzer *a, const struct roce_path_point **points);

/* A new capture point (index point, described by pt: capture_if, sll_ifindex, mirror) is seen: its
 * clock offset into *offset_ns, *uncertainty_ns, *source (enum roce_offset_source) when it has one
 * (return true); its time stamps are then taken as offset_ns ahead of the reference clock from its
 * first frame on, before its sightings are matched with other points'. Called on the analysis
 * thread. */
typedef bool (*roce_path_offset_fn)(void *user, uint32_t point, const struct roce_path_point *pt, int64_t *offset_ns,
				    int64_t *uncertainty_ns, uint8_t *source);

/* The largest clock offset, either way, a point should be given: a day. Capture times are held
 * to +-(2^62 - 1) ns (roce_analyze); offsets this small keep a time with its offset taken off, the
 * offsets' differences, and the differences of such times the analysis takes for times a clock
 * gives (years 1824 to 2116), inside int64_t. rocedump's --point-offset refuses more. */
#define ROCE_PATH_OFFSET_MAX_NS (INT64_C(86400) * 1000000000)

/* Before the first frame: fn tells each new capture point's clock offset (NULL: none). spread_ns:
 * the largest offset fn gives less the smallest (0 counting as one): the copy table keeps the
 * packets the points it knows are done with that much longer, for a point whose clock runs ahead
 * and whose first frame comes later. */
ROCE_API void roce_analyzer_path_offsets(struct roce_analyzer *a, roce_path_offset_fn fn, void *user,
					 int64_t spread_ns);

/* After roce_analyzer_path_finish on an analyzer that read the start of a capture with a wide copy
 * window (a second or so: the packet's key tells it apart over that long, whatever the clocks):
 * each of the first n points' clock offset relative to point 0, estimated as NTP does from the
 * streams that cross two points in opposite directions (offset_ns[i]; uncertainty_ns[i] its +-,
 * -1 when no chain of such pairs links it to point 0). Returns the number of points. */
ROCE_API uint32_t roce_analyzer_path_wide_offsets(const struct roce_analyzer *a, uint32_t n, int64_t *offset_ns,
						  int64_t *uncertainty_ns);

/* At the end of the capture: every packet still in the copy window folded in, and the paths worked
 * out. offset_ns[i] (has_offset[i] set) is point i's clock offset (its clock minus the reference
 * one); when any point has one (or a given one was taken off before matching), every hop uses
 * them (a point without one: 0) instead of the estimate. Both may be NULL. Returns -1 when out of memory. Further frames must not be analyzed. */
ROCE_API int roce_analyzer_path_finish(struct roce_analyzer *a, const int64_t *offset_ns, const bool *has_offset);

/* The paths so far, for a live run's figures: worked out as roce_analyzer_path_finish does from the
 * packets that have left the copy window (those still in it not yet counted), the capture going on.
 * Valid until the next call or roce_analyzer_path_finish; after that, its paths. The cost grows
 * with the delays kept (up to ROCE_PATH_SAMPLES per stream hop): call it now and then, not per
 * frame. NULL when the capture has fewer than two points so far, or out of memory. */
ROCE_API const struct roce_path *roce_analyzer_path_snapshot(struct roce_analyzer *a, const int64_t *offset_ns,
							    const bool *has_offset);

/* A packet's share of one hop, as the path analysis folds it (the sightings table forgets it): the
 * hop from -> to of its stream's path as known then (the majority order of the packets folded so
 * far, the packet included; the end's path is the same but while a stream's path is still being
 * learned). lost: seen at from, never at to nor at any point after it on the path; else it was
 * seen at both and raw_delay_ns is to's time less from's, with the points' offsets taken off
 * before matching (roce_analyzer_path_offsets) but not the rest of the hop's offset (the end's
 * estimate: roce_path_hop's offset_ns less the two points' offset_ns difference). A packet missed
 * only by to's mirror makes no call. */
struct roce_path_sample {
	uint32_t stream;           /* its stream id */
	uint32_t from, to;         /* indexes into roce_path's points */
	int64_t t_ns;              /* its time stamp at from, in from's own clock (the frame's) */
	bool lost;
	int64_t raw_delay_ns;      /* not lost */
};
typedef void (*roce_path_sample_fn)(void *user, const struct roce_path_sample *s);

/* Before the first frame: fn is called with each packet's share of each hop as it is folded (on
 * the analysis thread); NULL: none. */
ROCE_API void roce_analyzer_on_path_sample(struct roce_analyzer *a, roce_path_sample_fn fn, void *user);

/* The paths roce_analyzer_path_finish worked out; NULL before it, or when the capture had fewer
 * than two points (or copies were not looked for). */
ROCE_API const struct roce_path *roce_analyzer_path(const struct roce_analyzer *a);

#ifdef __cplusplus
}
#endif
#endif
