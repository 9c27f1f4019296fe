/* path.h: path analysis across capture points (internal; the public side is roce/path.h). The
 * sightings table (copies.h) hands every entry it forgets to path_fold, which folds its sightings
 * into its stream's statistics: which points saw the packet, in which order, how far apart.
 * path_finish works out each stream's path and the hops' figures from them. */
#ifndef ROCE_PATH_INTERNAL_H
#define ROCE_PATH_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "copies.h"
#include "roce/decode.h"
#include "roce/path.h"
#include "u64map.h"

/* Two points of a stream (its slots i < j) and the packets both saw. */
struct path_pair {
	uint8_t i, j;
	uint64_t both;            /* packets seen at both */
	uint64_t i_first;         /* of them, seen at i first (or at the same time) */
	uint64_t inversions;      /* packets in the other order at j than at i, against the one before */
	int64_t dmin, dmax;       /* t_j - t_i */
	int64_t prev_i, prev_j;   /* the packet before's times */
	uint64_t total;           /* delays sampled from */
	uint32_t n, alloc;        /* delays kept in d */
	int64_t *d;
};

/* Which of a stream's points saw a packet (a bit per slot), and how many packets. */
struct path_pattern {
	uint8_t mask;
	uint64_t count;
};

struct path_stream {
	uint32_t stream;          /* stream id */
	uint8_t n_slots, n_pairs, pairs_alloc, n_pat, pat_alloc;
	uint16_t point[ROCE_PATH_POINTS];   /* slot -> the sightings table's point */
	struct path_pair *pairs;
	struct path_pattern *pat;
	/* with a sample function: the times (their point's clock) of the packets folded while the
	 * stream had one point, handed over as lost once its path has a hop from that point (up to
	 * PATH_PENDING; further ones counted, at the last time) */
	int64_t *pend;
	uint32_t n_pend, pend_more;
};

/* A packet some point of its stream's missed, as the table forgot it: for the resend or NAK that
 * may answer it after that (path_lost_hop). */
#define PATH_MISSED_LOG 4096u
struct path_missed {
	uint32_t frame;           /* its first sighting's frame (low 32 bits) */
	uint32_t stream;          /* its stream's id */
	uint8_t mask;             /* the stream's slots that saw it */
};

/* The latest resends (the frame of each): a NAK or a resend answers the latest sending of its PSN. */
#define PATH_SENT_LOG 1024u
struct path_sent {
	uint32_t stream, psn, frame;
};

#define PATH_PENDING 16u

struct path_state {
	struct u64map index;      /* stream id -> its entry in s */
	struct path_stream *s;
	uint32_t n, alloc;
	uint32_t n_points;
	struct roce_path_point points[COPY_POINTS_MAX];
	roce_path_offset_fn offset_fn;  /* the points' offsets taken off before matching; NULL: none */
	void *offset_user;
	roce_path_sample_fn sample_fn;  /* each packet's share of its hops as folded; NULL: none */
	void *sample_user;
	uint64_t rng;             /* the samples' choice, past ROCE_PATH_SAMPLES */
	uint32_t n_missed, n_sent;          /* rings: entries made so far */
	struct path_missed missed[PATH_MISSED_LOG];
	struct path_sent sent[PATH_SENT_LOG];
	bool oom;
	bool finished;
	bool snapshot;            /* result holds path_snapshot's figures (finished: path_finish's) */
	struct roce_path result;
	struct roce_path_point *r_points;
	struct roce_path_stream *r_streams;
	struct roce_path_hop *r_hops, *r_totals;
};

int path_init(struct path_state *st);
void path_free(struct path_state *st);
/* The sightings table's fold (copies.h): user is the path_state. Entries forgotten while the
 * capture had one point are not counted: the table forgets those the first point is done with
 * when a second shows up, so the packets counted are those still within the copy window of the
 * first point's newest frame then, and on. */
void path_fold(void *user, const struct sightings *t, const struct sight_entry *e);
/* Point i of the sightings table is new: described from the frame it was first seen in. Returns its
 * clock offset to take off its time stamps before matching (offset_fn's; 0: none). */
int64_t path_point_new(struct path_state *st, uint32_t i, const struct roce_pkt *p, const uint8_t *frame);
/* Each of the first n points' offset relative to point 0 from the streams' raw delays (roce/path.h's
 * roce_analyzer_path_wide_offsets); the number of points. */
uint32_t path_wide_offsets(const struct path_state *st, uint32_t n, int64_t *offset_ns, int64_t *uncertainty_ns);
/* The hop that lost the packet first sighted in frame `frame` (its low 32 bits), from the table
 * while it still holds it: the last point on its stream's path that saw it (*from) and the next
 * (*to), the path as the neighbouring packets of its stream that were seen at the most points saw
 * it. Asked on a resend (resend) or on the NAK that reports the packet missing. false: seen at all
 * of them, lost only by a mirror (seen past the gap), not known, or, on a resend, the frame the
 * table saw last (the resend) is from a point that did not see the original (then it may be the
 * original itself, come later than the copy window), or the next point may still see it (the
 * capture there is not yet a copy window past the original's sighting at *from, and no later
 * packet of the stream got there: a resend that outran a slow hop's original). */
bool path_lost_hop(const struct sightings *t, const struct path_state *st, uint32_t frame, bool resend,
		   uint32_t *from, uint32_t *to);
/* Stream `stream` resent PSN psn in frame `frame` (its first sighting). */
void path_note_resend(struct path_state *st, uint32_t stream, uint32_t psn, uint64_t frame);
/* The frame of the latest resend of PSN psn on stream `stream` still logged (low 32 bits), or
 * false: then its latest sending is its first. */
bool path_latest_resend(const struct path_state *st, uint32_t stream, uint32_t psn, uint32_t *frame);
/* The results (roce/path.h's roce_analyzer_path); NULL before path_finish. */
const struct roce_path *path_result(const struct path_state *st);
int path_finish(struct path_state *st, struct sightings *t, const int64_t *offset_ns, const bool *has_offset);
/* The results from the packets folded so far (those still in the copy window left out), in place
 * of the previous snapshot's; after path_finish, its results. NULL when fewer than two points or
 * out of memory. */
const struct roce_path *path_snapshot(struct path_state *st, const struct sightings *t, const int64_t *offset_ns,
				      const bool *has_offset);

#endif
