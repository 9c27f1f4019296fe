/* test_u64map.c: the analyzer's open-addressing u64 → u32 map (analyzer/util/u64map.c): linear
 * probing with backward-shift deletion and growth by doubling at 70 % load.
 *
 * Probe chains are built on purpose: home() mirrors the map's slot function (murmur3 finaliser
 * masked to the capacity), so keys can be picked by the slot they hash to, including runs that
 * wrap from the last slot to the first. After every deletion every remaining key must be found. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "unit_util.h"

#include "u64map.h"

static uint32_t home(uint64_t key, uint32_t mask)
{
	key ^= key >> 33;
	key *= UINT64_C(0xff51afd7ed558ccd);
	key ^= key >> 33;
	key *= UINT64_C(0xc4ceb9fe1a85ec53);
	key ^= key >> 33;
	return (uint32_t)key & mask;
}

/* The n-th key (from *next on) whose home slot in a 16-slot table is want. */
static uint64_t key_at(uint32_t want, uint64_t *next)
{
	for (;; (*next)++)
		if (home(*next, 15) == want)
			return (*next)++;
}

static void expect_get(const struct u64map *m, uint64_t key, uint32_t val, const char *ctx)
{
	uint32_t v = 0xdeadbeef;
	cr_assert(u64map_get(m, key, &v), "%s: key 0x%llx not found", ctx, (unsigned long long)key);
	cr_assert_eq(v, val, "%s: key 0x%llx value %u, want %u", ctx, (unsigned long long)key, v, val);
}

static void expect_absent(const struct u64map *m, uint64_t key, const char *ctx)
{
	uint32_t v = 0xdeadbeef;
	cr_assert_not(u64map_get(m, key, &v), "%s: key 0x%llx still found", ctx, (unsigned long long)key);
	cr_assert_eq(v, 0xdeadbeef, "%s: a miss leaves *val alone", ctx);
}

/* Every key sits at or after its home within an unbroken run: the invariant lookup relies on. */
static void check_invariant(const struct u64map *m)
{
	uint32_t used = 0;
	for (uint32_t i = 0; i <= m->mask; i++) {
		if (!m->slots[i].val)
			continue;
		used++;
		for (uint32_t j = home(m->slots[i].key, m->mask); j != i; j = (j + 1) & m->mask)
			cr_assert(m->slots[j].val, "slot %u: empty slot %u between key and its home", i, j);
	}
	cr_assert_eq(used, m->count, "count %u, occupied slots %u", m->count, used);
}

Test(u64map, empty_map)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 0), 0);
	cr_assert_eq(m.mask, 15, "smallest capacity 16");
	cr_assert_eq(m.count, 0);
	expect_absent(&m, 0, "empty");
	expect_absent(&m, UINT64_MAX, "empty");
	u64map_del(&m, 42);  /* deleting a missing key is harmless */
	cr_assert_eq(m.count, 0);
	u64map_free(&m);
	cr_assert_null(m.slots);
	u64map_free(&m);  /* twice is harmless */
}

Test(u64map, capacity_hint_rounds_up)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 1000), 0);
	cr_assert_eq(m.mask, 1023);
	u64map_free(&m);
	cr_assert_eq(u64map_init(&m, 1024), 0);
	cr_assert_eq(m.mask, 1023);
	u64map_free(&m);
}

/* Key 0 and UINT64_MAX are ordinary keys; value 0 is an ordinary value. */
Test(u64map, extreme_keys_and_value_zero)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 16), 0);
	cr_assert_eq(u64map_put(&m, 0, 0), 0);
	cr_assert_eq(u64map_put(&m, UINT64_MAX, 7), 0);
	cr_assert_eq(u64map_put(&m, 1, UINT32_MAX - 1), 0);  /* the largest storable value */
	expect_get(&m, 0, 0, "key 0");
	expect_get(&m, UINT64_MAX, 7, "key max");
	expect_get(&m, 1, UINT32_MAX - 1, "value max - 1");
	cr_assert_eq(m.count, 3);
	u64map_del(&m, 0);
	expect_absent(&m, 0, "deleted 0");
	expect_get(&m, UINT64_MAX, 7, "key max after deleting 0");
	u64map_del(&m, UINT64_MAX);
	expect_absent(&m, UINT64_MAX, "deleted max");
	expect_get(&m, 1, UINT32_MAX - 1, "key 1");
	cr_assert_eq(m.count, 1);
	check_invariant(&m);
	u64map_free(&m);
}

Test(u64map, put_replaces)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 16), 0);
	cr_assert_eq(u64map_put(&m, 99, 1), 0);
	cr_assert_eq(u64map_put(&m, 99, 2), 0);
	cr_assert_eq(m.count, 1);
	expect_get(&m, 99, 2, "replaced");
	u64map_del(&m, 99);
	expect_absent(&m, 99, "deleted");
	cr_assert_eq(m.count, 0);
	cr_assert_eq(u64map_put(&m, 99, 3), 0);
	expect_get(&m, 99, 3, "reinserted");
	u64map_free(&m);
}

/* Growth: the table doubles before passing 70 % load, and every key survives the rehash. */
Test(u64map, growth_keeps_every_key)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 16), 0);
	for (uint32_t i = 0; i < 11; i++)
		cr_assert_eq(u64map_put(&m, i * UINT64_C(0x9e3779b97f4a7c15), i), 0);
	cr_assert_eq(m.mask, 15, "11 of 16 is under 70 %%");
	cr_assert_eq(u64map_put(&m, 11 * UINT64_C(0x9e3779b97f4a7c15), 11), 0);
	cr_assert_eq(m.mask, 31, "the 12th key doubles the table");
	const uint32_t n = 100000;
	for (uint32_t i = 12; i < n; i++)
		cr_assert_eq(u64map_put(&m, i * UINT64_C(0x9e3779b97f4a7c15), i), 0);
	cr_assert_eq(m.count, n);
	cr_assert_leq((uint64_t)m.count * 10, (uint64_t)(m.mask + 1) * 7, "load at most 70 %%");
	cr_assert_eq(m.mask, 262143);
	for (uint32_t i = 0; i < n; i++)
		expect_get(&m, i * UINT64_C(0x9e3779b97f4a7c15), i, "after growth");
	expect_absent(&m, n * UINT64_C(0x9e3779b97f4a7c15), "never put");
	check_invariant(&m);
	u64map_free(&m);
}

/* Sequential keys (like the analyzer's packed stream keys): put, delete half, all checks. */
Test(u64map, many_keys_delete_half)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 16), 0);
	const uint32_t n = 50000;
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(u64map_put(&m, (uint64_t)i << 24 | 0x123, i + 1000), 0);
	for (uint32_t i = 0; i < n; i += 2)
		u64map_del(&m, (uint64_t)i << 24 | 0x123);
	cr_assert_eq(m.count, n / 2);
	for (uint32_t i = 0; i < n; i++) {
		if (i & 1)
			expect_get(&m, (uint64_t)i << 24 | 0x123, i + 1000, "odd key kept");
		else
			expect_absent(&m, (uint64_t)i << 24 | 0x123, "even key deleted");
	}
	check_invariant(&m);
	u64map_free(&m);
}

/* One cluster of keys all homed at the same slot: delete each in turn from a fresh map. */
Test(u64map, delete_in_same_home_chain)
{
	uint64_t next = 1;
	uint64_t keys[10];
	for (unsigned i = 0; i < 10; i++)
		keys[i] = key_at(5, &next);
	for (unsigned d = 0; d < 10; d++) {
		struct u64map m;
		cr_assert_eq(u64map_init(&m, 16), 0);
		for (unsigned i = 0; i < 10; i++)
			cr_assert_eq(u64map_put(&m, keys[i], i), 0);
		cr_assert_eq(m.mask, 15, "no growth: the chain is real");
		u64map_del(&m, keys[d]);
		expect_absent(&m, keys[d], "deleted");
		for (unsigned i = 0; i < 10; i++)
			if (i != d)
				expect_get(&m, keys[i], i, "same-home chain");
		check_invariant(&m);
		u64map_free(&m);
	}
}

/* A run wrapping from slot 15 to slot 0, mixing keys homed at 13, 14, 15, 0 and 1: the
 * backward shift must move a key across the wrap only when its home allows it. Every deletion
 * order of every prefix length is tried over a fixed pseudo-random set of permutations. */
Test(u64map, delete_in_chain_wrapping_the_table)
{
	static const uint32_t homes[11] = {14, 15, 15, 0, 13, 0, 14, 1, 15, 0, 1};
	uint64_t next = 1, keys[11];
	for (unsigned i = 0; i < 11; i++)
		keys[i] = key_at(homes[i], &next);

	uint64_t rng = 0x243f6a8885a308d3;
	for (unsigned trial = 0; trial < 2000; trial++) {
		unsigned order[11], ins[11];  /* deletions, insertions */
		u_permutation(order, 11, &rng);
		u_permutation(ins, 11, &rng);
		struct u64map m;
		cr_assert_eq(u64map_init(&m, 16), 0);
		for (unsigned i = 0; i < 11; i++)
			cr_assert_eq(u64map_put(&m, keys[ins[i]], ins[i]), 0);
		cr_assert_eq(m.mask, 15);
		bool gone[11] = {false};
		for (unsigned k = 0; k < 11; k++) {
			u64map_del(&m, keys[order[k]]);
			gone[order[k]] = true;
			cr_assert_eq(m.count, 10 - k);
			check_invariant(&m);
			for (unsigned i = 0; i < 11; i++) {
				if (gone[i])
					expect_absent(&m, keys[i], "wrapping chain");
				else
					expect_get(&m, keys[i], i, "wrapping chain");
			}
		}
		u64map_free(&m);
	}
}

/* Put/delete churn never fills a table that holds few keys (no tombstones), and a reference
 * model agrees after every operation. */
Test(u64map, churn_against_model)
{
	enum { U = 600 };  /* key universe */
	uint64_t keys[U];
	uint32_t model[U];  /* value + 1, 0 when absent */
	memset(model, 0, sizeof(model));
	for (unsigned i = 0; i < U; i++)
		keys[i] = i == 0 ? 0 : i == 1 ? UINT64_MAX : (uint64_t)i * 0x100000001ull;

	struct u64map m;
	cr_assert_eq(u64map_init(&m, 16), 0);
	uint64_t rng = 88172645463325252ull;
	uint32_t n = 0;
	for (unsigned step = 0; step < 200000; step++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		unsigned k = (unsigned)(rng % U);
		if (rng >> 63) {
			uint32_t v = (uint32_t)(rng >> 20);
			if (v == UINT32_MAX)
				v--;
			cr_assert_eq(u64map_put(&m, keys[k], v), 0);
			n += !model[k];
			model[k] = v + 1;
		} else {
			u64map_del(&m, keys[k]);
			n -= !!model[k];
			model[k] = 0;
		}
		cr_assert_eq(m.count, n, "step %u", step);
		uint32_t v;
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		unsigned q = (unsigned)(rng % U);
		bool found = u64map_get(&m, keys[q], &v);
		cr_assert_eq(found, model[q] != 0, "step %u key %u", step, q);
		if (found)
			cr_assert_eq(v, model[q] - 1);
	}
	for (unsigned i = 0; i < U; i++) {
		uint32_t v;
		cr_assert_eq(u64map_get(&m, keys[i], &v), model[i] != 0);
	}
	check_invariant(&m);
	cr_assert_leq(m.mask, 2047u, "the table grows with the live keys only");
	u64map_free(&m);
}

/* Alternating put/delete of ever new keys: the count stays at 0..1 and the table stays small. */
Test(u64map, put_delete_cycle_no_tombstones)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 16), 0);
	for (uint64_t k = 0; k < 100000; k++) {
		cr_assert_eq(u64map_put(&m, k, 1), 0);
		expect_get(&m, k, 1, "cycle");
		u64map_del(&m, k);
		cr_assert_eq(m.count, 0);
	}
	cr_assert_eq(m.mask, 15);
	for (uint32_t i = 0; i <= m.mask; i++)
		cr_assert_eq(m.slots[i].val, 0, "slot %u not empty", i);
	u64map_free(&m);
}

/* A table indexed by the map: a key's row appended once (the array growing from 2 rows to 3),
 * found after; no row past max, and the map then without the key. */
Test(u64map, get_or_append_rows)
{
	struct u64map m;
	cr_assert_eq(u64map_init(&m, 0), 0);
	uint64_t *rows = NULL;
	uint32_t n = 0, cap = 0;
	bool added;
	for (uint64_t k = 100; k < 103; k++) {
		const struct u64map_rows t = {&rows, &cap, n, sizeof(*rows), 2, 3};
		cr_assert_eq(u64map_get_or_append(&m, k, &t, &added), n);
		cr_assert(added);
		rows[n++] = k * 10;
	}
	cr_assert_eq(cap, 3);
	const struct u64map_rows t = {&rows, &cap, n, sizeof(*rows), 2, 3};
	cr_assert_eq(u64map_get_or_append(&m, 101, &t, &added), 1);
	cr_assert(!added);
	cr_assert_eq(rows[1], 1010);
	cr_assert_eq(u64map_get_or_append(&m, 200, &t, &added), UINT32_MAX);
	uint32_t v;
	cr_assert(!u64map_get(&m, 200, &v));
	cr_assert_eq(m.count, 3);
	free(rows);
	u64map_free(&m);
}
