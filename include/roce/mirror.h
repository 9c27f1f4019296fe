/* mirror.h: mirror sessions (GRE tunnels and ERSPAN sessions) as capture points, and the frames
 * their own sequence numbers show the mirror lost.
 *
 * A frame that came through GRE (plain GRE with a sequence number, ERSPAN II, ERSPAN III: GRE's S
 * bit set) carries the tunnel's sequence number; each tunnel counts on its own. A jump in it is
 * frames the mirror, or the path from it to the collector, lost: not the network's loss. The
 * analyzer (analyze.h) follows each session, keyed by struct roce_mirror_point, notes
 * mirror.gap on the frame after a jump, and counts a psn.gap whose missing packets a mirror gap
 * of the frame's session accounts for as lost at the mirror (lost_mirror) rather than before the
 * capture point. A frame whose sequence number is below the expected one is late (reordered on the
 * way to the collector): a frame a gap counted lost, within the last ROCE_MIRROR_WINDOW numbers,
 * is taken back from the loss; any other is counted late (a duplicate, or too late to tell).
 * Sequence numbers wrap at 2^32; a jump back by 65536 or more restarts the count (the tunnel was
 * set up again). Frames a capture filter left out make gaps
 * too: with a filter the counts are an upper bound. */
#ifndef ROCE_MIRROR_H
#define ROCE_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/common.h"
#include "roce/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_MIRROR_WINDOW 64u     /* late frames taken back from a loss this far below the next */
#define ROCE_MIRROR_SESSIONS 256u  /* sessions followed; frames of any more are counted untracked */

/* Where a mirrored frame was seen: the tunnel's outer addresses, its encapsulation, and its
 * session id (ERSPAN) or GRE key (plain GRE with a key). */
struct roce_mirror_point {
	uint8_t kind;              /* enum roce_wrap_kind: ROCE_WRAP_GRE, _ERSPAN1, _ERSPAN2, _ERSPAN3 */
	uint8_t addr_len;          /* 4 or 16 */
	bool has_id;               /* id is set: ERSPAN II/III, or a GRE key */
	uint32_t id;               /* ERSPAN session id, or GRE key */
	uint8_t src[16], dst[16];  /* outer IP addresses */
};

/* The frame's mirror point: false when it did not come through GRE or ERSPAN, or its outer
 * addresses were not captured. */
ROCE_API bool roce_mirror_point_of(const struct roce_pkt *p, const uint8_t *frame, struct roce_mirror_point *pt);

/* A stable printable name, "erspan2 10.0.0.1>10.0.0.2 session 7", "gre 10.0.0.1>10.0.0.2 key 104",
 * "gre 10.0.0.1>10.0.0.2": written into buf (truncated, NUL-terminated when cap > 0); returns
 * the length the whole name takes. ROCE_MIRROR_NAME_MAX holds any. */
#define ROCE_MIRROR_NAME_MAX 128
ROCE_API size_t roce_mirror_point_name(char *buf, size_t cap, const struct roce_mirror_point *pt);

/* One session's counts, for summaries. */
struct roce_mirror_row {
	struct roce_mirror_point point;
	bool has_seq;              /* its frames carry sequence numbers (ERSPAN I and GRE without S do not) */
	uint64_t frames;           /* frames seen */
	uint64_t gaps;             /* mirror.gap events */
	uint64_t lost;             /* sequence numbers skipped, less the late frames taken back */
	uint64_t reordered;        /* late frames taken back from a gap */
	uint64_t late;             /* other frames below the expected number: duplicates, or too late */
	uint64_t restarts;         /* jumps back by 65536 or more: the count started again */
	uint64_t lost_psns;        /* PSNs of psn.gap events counted lost at this mirror */
};

struct roce_analyzer;
/* Call fn for every mirror session the analyzer has seen, in the order it first saw them. */
ROCE_API void roce_analyzer_mirror_foreach(const struct roce_analyzer *a,
					   void (*fn)(const struct roce_mirror_row *r, void *user), void *user);
/* Sessions seen (at most ROCE_MIRROR_SESSIONS). */
ROCE_API uint32_t roce_analyzer_mirror_sessions(const struct roce_analyzer *a);
/* Frames of sessions past the first ROCE_MIRROR_SESSIONS: not followed. */
ROCE_API uint64_t roce_analyzer_mirror_untracked(const struct roce_analyzer *a);

#ifdef __cplusplus
}
#endif
#endif
