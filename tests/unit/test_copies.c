/* test_copies.c: the sightings table copy detection keeps (analyzer/core/copies.c): a packet is
 * found again from another capture point however far apart the two sightings are in the file,
 * as long as they are within the window of each other; it is forgotten only when every point is
 * past its window, or, past COPY_SIGHTINGS_MAX entries, for room, counted as unchecked; what the
 * path analysis folds with two points does not depend on the ring's size; a bucket's chain is walked
 * past entries out of the window as long as an older one may be within it (steps back in time,
 * clock offsets), and over the COPY_CHAIN_MAX newest entries only. */
#include <criterion/criterion.h>

#include "copies.h"

#define WINDOW 1000  /* ns */

static struct sightings T;

static void teardown(void)
{
	sightings_free(&T);
}

TestSuite(copies, .fini = teardown);

static uint64_t key_of(uint32_t i)
{
	return (uint64_t)i * 0x9e3779b97f4a7c15u | 1;
}

/* A sighting of packet i at point pt (its where: pt) at ts: how it was seen before; new, noted. */
static enum copy_seen sight(uint32_t i, uint32_t pt, int64_t ts, uint32_t frame, uint32_t *first_frame)
{
	enum copy_seen seen;
	struct sighting x = {ts, frame, pt, sightings_point(&T, pt, ts)};
	struct sight_entry *e = sightings_find(&T, key_of(i), i, true, ts, pt, &seen);
	if (seen == COPY_NEW) {
		sightings_add(&T, key_of(i), i, true, &x);
		return seen;
	}
	if (first_frame)
		*first_frame = e->s[0].frame;
	sightings_also(&T, e, &x);
	return seen;
}

/* Point 1's frames come in blocks of 3 x COPY_SIGHTINGS_MIN after point 0's, the packets 1 ns
 * apart and the two sightings of one 3 ns apart: every one is found, its first sighting named.
 * (A point is known from its first frame on: here one at the start.) */
Test(copies, far_apart_in_the_file)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	sightings_point(&T, 1, 0);
	uint32_t n = 3 * COPY_SIGHTINGS_MIN, frame = 0;
	for (uint32_t block = 0; block < 3; block++) {
		uint32_t first = block * n;
		for (uint32_t i = first; i < first + n; i++)
			cr_assert_eq(sight(i, 0, i, ++frame, NULL), COPY_NEW);
		for (uint32_t i = first; i < first + n; i++) {
			uint32_t ref = 0;
			cr_assert_eq(sight(i, 1, i + 3, ++frame, &ref), COPY_ELSEWHERE, "packet %u", i);
			cr_assert_eq(ref, 2 * first + (i - first) + 1);
		}
	}
	cr_assert_eq(T.unchecked, 0);
	cr_assert_leq(T.tail - T.head, 2 * n + 2 * COPY_SIGHTINGS_MIN, "the older blocks forgotten");
}

/* Outside the window of the first sighting: another packet; at the same place: another sending. */
Test(copies, window_and_place)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	cr_assert_eq(sight(7, 0, 10000, 1, NULL), COPY_NEW);
	cr_assert_eq(sight(7, 1, 10000 - WINDOW, 2, NULL), COPY_ELSEWHERE, "before it, within the window");
	cr_assert_eq(sight(7, 2, 10000 + WINDOW + 1, 3, NULL), COPY_NEW, "past the window of the first");
	cr_assert_eq(sight(8, 0, 20000, 4, NULL), COPY_NEW);
	cr_assert_eq(sight(8, 1, 20010, 5, NULL), COPY_ELSEWHERE);
	cr_assert_eq(sight(8, 1, 20020, 6, NULL), COPY_SAME_PLACE, "seen at point 1 already");
	cr_assert_eq(sight(8, 0, 20030, 7, NULL), COPY_SAME_PLACE);
}

/* The ICRC tells packets with the same headers apart only where both sightings have it. */
Test(copies, icrc_only_where_both_have_it)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	enum copy_seen seen;
	struct sighting x = {100, 1, 0, sightings_point(&T, 0, 100)};
	sightings_add(&T, 42, 0xaabbccdd, true, &x);
	cr_assert_null(sightings_find(&T, 42, 0x11223344, true, 101, 1, &seen));
	cr_assert_eq(seen, COPY_NEW, "another ICRC: another packet");
	cr_assert_not_null(sightings_find(&T, 42, 0, false, 101, 1, &seen));
	cr_assert_eq(seen, COPY_ELSEWHERE, "cut short of its ICRC: the same packet");
	cr_assert_not_null(sightings_find(&T, 42, 0xaabbccdd, true, 101, 1, &seen));
	cr_assert_eq(seen, COPY_ELSEWHERE);
}

/* One point moving on: its entries are forgotten as the window passes, the table stays small. */
Test(copies, one_point_forgets)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	for (uint32_t i = 0; i < 20 * COPY_SIGHTINGS_MIN; i++)
		cr_assert_eq(sight(i, 0, (int64_t)i * 10, i + 1, NULL), COPY_NEW);
	cr_assert_eq(T.mask + 1, COPY_SIGHTINGS_MIN);
	cr_assert_eq(T.unchecked, 0);
}

/* A point that stopped holds every entry: past COPY_SIGHTINGS_MAX, the oldest go, counted. */
Test(copies, bound_counts_unchecked)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	sightings_point(&T, 1, 0);
	for (uint32_t i = 0; i < COPY_SIGHTINGS_MAX + 5; i++)
		sight(i, 0, (int64_t)i * 10, i + 1, NULL);
	cr_assert_eq(T.mask + 1, COPY_SIGHTINGS_MAX);
	cr_assert_eq(T.unchecked, 5);
}

/* Many sightings of one packet: kept past the inline ones. */
Test(copies, many_points)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	cr_assert_eq(sight(3, 0, 500, 1, NULL), COPY_NEW);
	for (uint32_t pt = 1; pt < 10; pt++)
		cr_assert_eq(sight(3, pt, 500 + pt, pt + 1, NULL), COPY_ELSEWHERE);
	enum copy_seen seen;
	struct sight_entry *e = sightings_find(&T, key_of(3), 3, true, 520, 99, &seen);
	cr_assert_not_null(e);
	cr_assert_eq(e->n, 10);
	cr_assert_eq(e->more[7].frame, 10);
	cr_assert_eq(e->more[7].point, 9);
}

/* Entries the fold saw with two points or more (path.h counts only those). */
static uint32_t folded_with_two;

static void count_fold(void *user, const struct sightings *t, const struct sight_entry *e)
{
	(void)user;
	(void)e;
	folded_with_two += t->n_points >= 2;
}

/* Point 0's n packets 10 ns apart, then point 1's first frame, a copy of the last; everything
 * folded at the end. Returns how many the fold saw with two points. */
static uint32_t fold_after_late_point(uint32_t n)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	sightings_time_ordered(&T);
	T.fold = count_fold;
	folded_with_two = 0;
	uint32_t frame = 0;
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(sight(i, 0, (int64_t)i * 10, ++frame, NULL), COPY_NEW);
	cr_assert_eq(sight(n - 1, 1, (int64_t)(n - 1) * 10 + 3, ++frame, NULL), COPY_ELSEWHERE);
	sightings_flush(&T);
	sightings_free(&T);
	return folded_with_two;
}

/* Frames in time order, a second point showing up late: the packets folded with two points are
 * those within the window of point 0's newest frame (101 of them), whether the ring had to make
 * room for the older ones (5 x COPY_SIGHTINGS_ORDERED) or not (half of it): not whichever the
 * ring still held. */
Test(copies, late_second_point_folds_the_same_whatever_the_ring)
{
	uint32_t within = WINDOW / 10 + 1;
	cr_assert_eq(fold_after_late_point(COPY_SIGHTINGS_ORDERED / 2), within, "a ring with room to spare");
	cr_assert_eq(fold_after_late_point(5 * COPY_SIGHTINGS_ORDERED), within, "a ring that made room");
}

/* A file read in its own order (not sightings_time_ordered): point 0's batch of 4,000 packets,
 * then point 1's copies of them, older than point 0's newest by up to 40 windows: every one is
 * found, the ring having kept them. */
Test(copies, batches_in_file_order_still_match)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	cr_assert_eq(T.mask + 1, COPY_SIGHTINGS_MIN);
	uint32_t n = 4000, frame = 0;
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(sight(i, 0, (int64_t)i * 10, ++frame, NULL), COPY_NEW);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(sight(i, 1, (int64_t)i * 10 + 3, ++frame, NULL), COPY_ELSEWHERE, "packet %u", i);
	cr_assert_eq(T.unchecked, 0);
}

/* Packets whose keys share a bucket of the table (its chain): (4m << 40) | 1 for any m. */
static uint64_t chained_key(uint32_t m)
{
	return (uint64_t)(4 * m) << 40 | 1;
}

/* Sighting of chained packet m at point pt (where: pt), at raw in its clock: how it was seen; an
 * entry of its own unless seen elsewhere (as analyze.c's is_copy: the same place again is another
 * sending), else *found the frame of the entry found. */
static enum copy_seen sight_chained(uint32_t m, uint32_t pt, int64_t raw, uint32_t frame, uint32_t *found)
{
	enum copy_seen seen;
	uint32_t i = sightings_point(&T, pt, raw);
	struct sighting x = {sightings_time(&T, i, raw), frame, pt, i};
	struct sight_entry *e = sightings_find(&T, chained_key(m), m, true, x.ts, pt, &seen);
	if (seen == COPY_ELSEWHERE)
		*found = e->s[0].frame;
	else
		sightings_add(&T, chained_key(m), m, true, &x);
	return seen;
}

/* The chain's walk stops at an entry out of the window only when every older one must be too: a
 * file read in its own order steps back in time (raw_back). Point 0 sees A at 5,000 ns; then point
 * 1's batch, from 0: B at 0 (point 1 only), then A at 5,100. B, newer in the chain, is 5,100 ns
 * before; A, older in the chain, is 100 ns before, and found. */
Test(copies, chain_walk_past_a_step_back)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	uint32_t found = 0;
	cr_assert_eq(sight_chained(1, 0, 5000, 1, &found), COPY_NEW);
	cr_assert_eq(sight_chained(2, 1, 0, 2, &found), COPY_NEW);
	cr_assert_eq(sight_chained(1, 1, 5100, 3, &found), COPY_ELSEWHERE);
	cr_assert_eq(found, 1);
}

/* Likewise for the points' clock offsets: point 1's clock runs 50,000 ns ahead, point 2's 49,000.
 * A at point 0 at 1,000; B at point 1 at 0 (raw 50,000, read after A); A at point 2 at 1,200 (raw
 * 50,200): B is 1,200 ns before in the reference clock, A 200, and found. */
Test(copies, chain_walk_past_clock_offsets)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	uint32_t found = 0;
	cr_assert_eq(sight_chained(1, 0, 1000, 1, &found), COPY_NEW);
	sightings_offset(&T, sightings_point(&T, 1, 50000), 50000);  /* as analyze.c: when a point is new */
	cr_assert_eq(sight_chained(2, 1, 50000, 2, &found), COPY_NEW);
	sightings_offset(&T, sightings_point(&T, 2, 50200), 49000);
	cr_assert_eq(sight_chained(1, 2, 50200, 3, &found), COPY_ELSEWHERE);
	cr_assert_eq(found, 1);
}

/* Packets with the same bytes (one chain, as a queue pair's CNPs): a copy is looked for among the
 * COPY_CHAIN_MAX newest. Point 0 sends one packet COPY_CHAIN_MAX + 10 times, 1 ns apart; its copy
 * at point 1, 1 ns after the first sending, matches the nearest of the newest, not the first
 * sending (a walk of the whole chain at every frame made such packets quadratic in time). */
Test(copies, same_bytes_newest_looked_at)
{
	cr_assert_eq(sightings_init(&T, WINDOW), 0);
	uint32_t found = 0, n = COPY_CHAIN_MAX + 10;
	for (uint32_t f = 1; f <= n; f++)
		cr_assert_eq(sight_chained(7, 0, 100 + f, f, &found), f == 1 ? COPY_NEW : COPY_SAME_PLACE);
	cr_assert_eq(sight_chained(7, 1, 102, n + 1, &found), COPY_ELSEWHERE);
	cr_assert_eq(found, n - COPY_CHAIN_MAX + 1, "frame %u", found);
}
