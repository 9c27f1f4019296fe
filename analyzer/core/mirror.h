/* mirror.h: the analyzer's table of mirror sessions (internal; the public side is roce/mirror.h):
 * each GRE tunnel or ERSPAN session's sequence numbers followed, gaps counted, late frames taken
 * back, and the frames a gap lost held for a psn.gap of the same session to claim. */
#ifndef ROCE_CORE_MIRROR_H
#define ROCE_CORE_MIRROR_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/mirror.h"
#include "u64map.h"

/* A psn.gap may claim a mirror gap's lost frames up to this many sequence numbers after it: the
 * stream's next packet after a loss comes that soon unless thousands of other frames pass the
 * mirror first. */
#define MIRROR_CLAIM_WINDOW 4096u
/* A frame this far below the expected number or more is not late: the tunnel started again. */
#define MIRROR_RESTART_BACK 65536u

struct mirror_sess {
	struct roce_mirror_row row;
	uint32_t next;             /* the sequence number expected next (row.has_seq) */
	uint32_t credit;           /* frames gaps lost that no psn.gap has claimed yet */
	uint32_t credit_seq;       /* the sequence number that ended the newest gap */
	uint64_t holes;            /* bit i: next - 1 - i was skipped and has not come since */
};

struct mirror_table {
	struct mirror_sess *s;
	uint32_t n, alloc;
	uint32_t last;             /* the session of the previous frame (most frames are the same one's) */
	uint64_t untracked;        /* frames of sessions past ROCE_MIRROR_SESSIONS */
	struct u64map by_stream;   /* stream id -> PSNs of its psn.gap events lost at a mirror */
};

/* What mirror_frame() found. */
struct mirror_seen {
	int32_t sess;              /* the frame's session, -1: none (not mirrored, no room) */
	uint32_t seq;              /* its sequence number (when the session has them) */
	bool gap;                  /* it follows a gap: expected .. seq - 1 never came */
	bool late;                 /* it is one a gap skipped, come late (reordered) */
	uint32_t expected;
};

/* Follow frame p's session. */
void mirror_frame(struct mirror_table *t, const struct roce_pkt *p, const uint8_t *frame, struct mirror_seen *out);
/* Whether a gap of the session before sequence number seq accounts for missing packets of a
 * stream (it takes them from the gap's lost frames, and counts them on the stream's id). */
bool mirror_claim(struct mirror_table *t, const struct mirror_seen *m, uint32_t stream_id, uint32_t missing);
/* A packet of stream_id a gap's claim counted lost at the mirror came late (m->late): one less. */
void mirror_unclaim(struct mirror_table *t, const struct mirror_seen *m, uint32_t stream_id);
/* PSNs of stream_id's psn.gap events counted lost at a mirror. */
uint32_t mirror_stream_lost(const struct mirror_table *t, uint32_t stream_id);
void mirror_free(struct mirror_table *t);

#endif
