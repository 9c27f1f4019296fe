/* test_mirror.c: the analyzer's mirror sessions (analyzer/core/mirror.c): the sequence numbers of
 * an ERSPAN II session followed across the 32-bit wrap from 0xFFFFFFFF to 0. Consecutive numbers
 * across the wrap are no gap; a gap across it counts exactly the numbers skipped; a skipped frame
 * that comes late (reordered on the way) is taken back from the loss once, and a second copy of it
 * is a late frame, not a second take-back. */
#include <criterion/criterion.h>
#include <string.h>

#include "mirror.h"

/* One mirrored frame: an Ethernet header, then the outer IPv4 header whose addresses
 * (10.0.0.1 > 10.0.0.2) name the session. */
struct mframe {
	uint8_t bytes[64];
	struct roce_pkt p;
};

static void mframe_init(struct mframe *f)
{
	memset(f, 0, sizeof(*f));
	static const uint8_t addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
	memcpy(f->bytes + 14 + 12, addrs, sizeof(addrs));
	f->p.caplen = f->p.wirelen = sizeof(f->bytes);
	f->p.wrap.kind = ROCE_WRAP_ERSPAN2;
	f->p.wrap.ip_version = 4;
	f->p.wrap.ip_off = 14;
	f->p.wrap.session_id = 7;
	f->p.wrap.has_seq = true;
}

/* Feed the session frames numbered seqs[0..n): what the last one found in *last. */
static void feed(struct mirror_table *t, const uint32_t *seqs, size_t n, struct mirror_seen *last)
{
	struct mframe f;
	mframe_init(&f);
	for (size_t i = 0; i < n; i++) {
		f.p.wrap.gre_seq = seqs[i];
		mirror_frame(t, &f.p, f.bytes, last);
		cr_assert_eq(last->sess, 0, "frame %zu (seq 0x%x) not in session 0", i, seqs[i]);
	}
}

/* The session's counts after some frames. */
struct counts {
	uint64_t frames, gaps, lost, reordered, late;
};

static void expect_row(const struct mirror_table *t, struct counts w)
{
	const struct roce_mirror_row *r = &t->s[0].row;
	cr_assert_eq(t->n, 1u, "sessions: %u", t->n);
	cr_assert(r->has_seq);
	struct counts got = {r->frames, r->gaps, r->lost, r->reordered, r->late};
	cr_assert(!memcmp(&got, &w, sizeof(w)),
		  "frames/gaps/lost/reordered/late %llu/%llu/%llu/%llu/%llu, want %llu/%llu/%llu/%llu/%llu",
		  (unsigned long long)got.frames, (unsigned long long)got.gaps, (unsigned long long)got.lost,
		  (unsigned long long)got.reordered, (unsigned long long)got.late, (unsigned long long)w.frames,
		  (unsigned long long)w.gaps, (unsigned long long)w.lost, (unsigned long long)w.reordered,
		  (unsigned long long)w.late);
	cr_assert_eq(r->restarts, 0u, "restarts %llu", (unsigned long long)r->restarts);
}

/* Frames seqs[0..n) fed to t, then its counts; what the last frame found in *m. */
#define FEED(t, m, w, ...)                                                         \
	do {                                                                       \
		const uint32_t seqs_[] = {__VA_ARGS__};                            \
		feed((t), seqs_, sizeof(seqs_) / sizeof(seqs_[0]), (m));           \
		expect_row((t), (w));                                              \
	} while (0)

Test(mirror_seq, wrap_in_order_is_no_gap)
{
	struct mirror_table t = {0};
	struct mirror_seen m;
	FEED(&t, &m, ((struct counts){6, 0, 0, 0, 0}), 0xFFFFFFFDu, 0xFFFFFFFEu, 0xFFFFFFFFu, 0, 1, 2);
	cr_assert(!m.gap && !m.late);
	mirror_free(&t);
}

Test(mirror_seq, first_frame_at_the_top)
{
	struct mirror_table t = {0};
	struct mirror_seen m;
	FEED(&t, &m, ((struct counts){3, 0, 0, 0, 0}), 0xFFFFFFFFu, 0, 1);
	mirror_free(&t);
}

Test(mirror_seq, gap_across_the_wrap_counted_exactly)
{
	struct mirror_table t = {0};
	struct mirror_seen m;
	/* 0xFFFFFFFE, 0xFFFFFFFF, 0, 1 skipped: 4 lost in one gap */
	FEED(&t, &m, ((struct counts){3, 1, 4, 0, 0}), 0xFFFFFFFCu, 0xFFFFFFFDu, 2);
	cr_assert(m.gap);
	cr_assert_eq(m.expected, 0xFFFFFFFEu, "expected 0x%x", m.expected);
	/* and the count goes on from 3 */
	FEED(&t, &m, ((struct counts){5, 1, 4, 0, 0}), 3, 4);
	cr_assert(!m.gap && !m.late);
	mirror_free(&t);
}

Test(mirror_seq, gap_ending_on_the_wrap)
{
	struct mirror_table t = {0};
	struct mirror_seen m;
	/* 0xFFFFFFFE and 0xFFFFFFFF skipped, 0 is the next frame seen */
	FEED(&t, &m, ((struct counts){4, 1, 2, 0, 0}), 0xFFFFFFFCu, 0xFFFFFFFDu, 0, 1);
	mirror_free(&t);
}

Test(mirror_seq, reordered_across_the_wrap_not_counted_twice)
{
	struct mirror_table t = {0};
	struct mirror_seen m;
	/* 0xFFFFFFFF overtaken by 0 and 1: a gap of one, then it comes late and is taken back */
	FEED(&t, &m, ((struct counts){5, 1, 0, 1, 0}), 0xFFFFFFFDu, 0xFFFFFFFEu, 0, 1, 0xFFFFFFFFu);
	cr_assert(m.late, "the late frame is not marked late");
	/* a second copy of it: a late frame (duplicate), the loss not taken back again */
	FEED(&t, &m, ((struct counts){8, 1, 0, 1, 1}), 0xFFFFFFFFu, 2, 3);
	cr_assert(!m.gap && !m.late);
	mirror_free(&t);
}

Test(mirror_seq, partly_reordered_gap_across_the_wrap)
{
	struct mirror_table t = {0};
	struct mirror_seen m;
	/* 0xFFFFFFFE .. 1 skipped (4), then 0xFFFFFFFF and 0 come late: 2 lost, 2 reordered */
	FEED(&t, &m, ((struct counts){6, 1, 2, 2, 0}), 0xFFFFFFFDu, 2, 3, 0, 0xFFFFFFFFu, 4);
	/* each late one again: duplicates, the loss stays 2 */
	FEED(&t, &m, ((struct counts){8, 1, 2, 2, 2}), 0, 0xFFFFFFFFu);
	mirror_free(&t);
}

Test(mirror_seq, two_gaps_around_the_wrap)
{
	struct mirror_table t = {0};
	struct mirror_seen m;
	/* 0xFFFFFFFF skipped, then 1 and 2 skipped; 0xFFFFFFFF comes late after the second gap */
	FEED(&t, &m, ((struct counts){5, 2, 2, 1, 0}), 0xFFFFFFFEu, 0, 3, 0xFFFFFFFFu, 4);
	mirror_free(&t);
}
