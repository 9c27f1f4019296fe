/* test_idxmap.c: the analyzer's index of records by their keys' hashes (analyzer/core/idxmap.c):
 * 8-byte slots of hash and index, linear probing, growth by doubling at 70 % load, backward-shift
 * deletion.
 *
 * The map stores hashes, not keys: a lookup checks the record a matching slot names, as the
 * stream table does with a stream's key. Here the records are an array of keys, and the tests
 * choose the hashes themselves, so runs of one home slot, runs wrapping the table's end and two
 * keys with one hash are built on purpose. After every change every remaining key must be
 * found, through the same lookup the stream table uses. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "unit_util.h"

#include "idxmap.h"

enum { N_REC = 200000 };
static uint64_t rec_key[N_REC];  /* record i holds key rec_key[i] */

/* The slot naming the record that holds key (hash h), or the empty slot ending its run: the
 * stream table's stream_slot(), over rec_key[]. */
static uint32_t find(const struct idxmap *m, uint64_t key, uint32_t h)
{
	uint32_t i = idxmap_next(m, h, h & m->mask);
	while (m->slots[i].val && rec_key[m->slots[i].val - 1] != key)
		i = idxmap_next(m, h, (i + 1) & m->mask);
	return i;
}

static void expect_rec(const struct idxmap *m, uint32_t rec, uint32_t h, const char *ctx)
{
	uint32_t v = m->slots[find(m, rec_key[rec], h)].val;
	cr_assert_eq(v, rec + 1, "%s: record %u (hash 0x%x) found as %d", ctx, rec, h, (int)v - 1);
}

static void expect_absent(const struct idxmap *m, uint64_t key, uint32_t h, const char *ctx)
{
	cr_assert_eq(m->slots[find(m, key, h)].val, 0, "%s: key 0x%llx still found", ctx, (unsigned long long)key);
}

/* Every slot sits at or after its home within an unbroken run, and count is the slots in use. */
static void check_invariant(const struct idxmap *m)
{
	uint32_t used = 0;
	for (uint32_t i = 0; i <= m->mask; i++) {
		if (!m->slots[i].val)
			continue;
		used++;
		for (uint32_t j = m->slots[i].hash & m->mask; j != i; j = (j + 1) & m->mask)
			cr_assert(m->slots[j].val, "slot %u: empty slot %u between it and its home", i, j);
	}
	cr_assert_eq(used, m->count, "count %u, occupied slots %u", m->count, used);
}

Test(idxmap, empty_map)
{
	struct idxmap m;
	cr_assert_eq(idxmap_init(&m, 0), 0);
	cr_assert_eq(m.mask, 15, "smallest capacity 16");
	cr_assert_eq(sizeof(m.slots[0]), 8, "8-byte slots");
	rec_key[0] = 42;
	expect_absent(&m, 42, idxmap_hash(42), "empty");
	idxmap_free(&m);
	cr_assert_null(m.slots);
	idxmap_free(&m);  /* twice is harmless */
	cr_assert_eq(idxmap_init(&m, 1000), 0);
	cr_assert_eq(m.mask, 1023, "a hint rounds up to a power of two");
	idxmap_free(&m);
}

/* Two keys with one hash: both found, each through its own record; deleting either keeps the
 * other. Record 0 and the largest storable index are ordinary. */
Test(idxmap, keys_sharing_a_hash)
{
	for (unsigned gone = 0; gone < 3; gone++) {
		struct idxmap m;
		cr_assert_eq(idxmap_init(&m, 16), 0);
		rec_key[0] = 7, rec_key[1] = 8, rec_key[2] = 9;
		cr_assert_eq(idxmap_add(&m, 0x55, 0), 0);
		cr_assert_eq(idxmap_add(&m, 0x55, 1), 0);
		cr_assert_eq(idxmap_add(&m, 0x65, 2), 0);  /* same home (0x5), another hash */
		expect_rec(&m, 0, 0x55, "first of the hash");
		expect_rec(&m, 1, 0x55, "second of the hash");
		expect_rec(&m, 2, 0x65, "same home");
		expect_absent(&m, 10, 0x55, "a third key of that hash");
		idxmap_del_at(&m, find(&m, rec_key[gone], gone == 2 ? 0x65 : 0x55));
		check_invariant(&m);
		for (unsigned r = 0; r < 3; r++)
			if (r != gone)
				expect_rec(&m, r, r == 2 ? 0x65 : 0x55, "after a deletion");
		expect_absent(&m, rec_key[gone], gone == 2 ? 0x65 : 0x55, "deleted");
		idxmap_free(&m);
	}
	struct idxmap m;
	cr_assert_eq(idxmap_init(&m, 16), 0);
	cr_assert_eq(idxmap_add(&m, 3, UINT32_MAX - 1), 0);
	cr_assert_eq(m.slots[idxmap_next(&m, 3, 3)].val, UINT32_MAX, "the largest index, + 1");
	idxmap_free(&m);
}

/* reserve() then fill() at the slot next() found, as the pair chains' heads are set. */
Test(idxmap, reserve_then_fill)
{
	struct idxmap m;
	cr_assert_eq(idxmap_init(&m, 16), 0);
	for (uint32_t r = 0; r < 1000; r++) {
		rec_key[r] = r * UINT64_C(0x9e3779b97f4a7c15);
		uint32_t h = idxmap_hash(rec_key[r]);
		cr_assert_eq(idxmap_reserve(&m), 0);
		uint32_t i = find(&m, rec_key[r], h);
		cr_assert_eq(m.slots[i].val, 0, "absent before");
		idxmap_fill(&m, i, h, r);
		cr_assert_leq((uint64_t)m.count * 10, (uint64_t)(m.mask + 1) * 7, "load at most 70 %%");
	}
	for (uint32_t r = 0; r < 1000; r++)
		expect_rec(&m, r, idxmap_hash(rec_key[r]), "filled");
	check_invariant(&m);
	idxmap_free(&m);
}

/* Growth places every slot again from its stored hash: 11 of 16 fit, the 12th doubles, and
 * 100,000 records all survive the doublings. */
Test(idxmap, growth_keeps_every_record)
{
	struct idxmap m;
	cr_assert_eq(idxmap_init(&m, 16), 0);
	const uint32_t n = 100000;
	for (uint32_t r = 0; r < n; r++) {
		rec_key[r] = (uint64_t)r << 24 | 0x123;  /* packed like stream keys */
		cr_assert_eq(idxmap_add(&m, idxmap_hash(rec_key[r]), r), 0);
		if (r == 10)
			cr_assert_eq(m.mask, 15, "11 of 16 is under 70 %%");
		if (r == 11)
			cr_assert_eq(m.mask, 31, "the 12th record doubles the table");
	}
	cr_assert_eq(m.count, n);
	cr_assert_eq(m.mask, 262143);
	for (uint32_t r = 0; r < n; r++)
		expect_rec(&m, r, idxmap_hash(rec_key[r]), "after growth");
	expect_absent(&m, (uint64_t)n << 24 | 0x123, idxmap_hash((uint64_t)n << 24 | 0x123), "never added");
	check_invariant(&m);
	for (uint32_t r = 0; r < n; r += 2)
		idxmap_del_at(&m, find(&m, rec_key[r], idxmap_hash(rec_key[r])));
	cr_assert_eq(m.count, n / 2);
	for (uint32_t r = 0; r < n; r++) {
		if (r & 1)
			expect_rec(&m, r, idxmap_hash(rec_key[r]), "odd record kept");
		else
			expect_absent(&m, rec_key[r], idxmap_hash(rec_key[r]), "even record deleted");
	}
	check_invariant(&m);
	idxmap_free(&m);
}

/* A run wrapping from slot 15 to slot 0, mixing homes 13, 14, 15, 0 and 1 (two records of one
 * hash among them): every deletion order over a fixed pseudo-random set of permutations. */
Test(idxmap, delete_in_run_wrapping_the_table)
{
	static const uint32_t hashes[11] = {0x1e, 0x2f, 0x3f, 0x40, 0x5d, 0x60, 0x7e, 0x81, 0x3f, 0x90, 0xa1};
	for (unsigned r = 0; r < 11; r++)
		rec_key[r] = 1000 + r;
	uint64_t rng = 0x243f6a8885a308d3;
	for (unsigned trial = 0; trial < 2000; trial++) {
		unsigned order[11], ins[11];  /* deletions, insertions */
		u_permutation(order, 11, &rng);
		u_permutation(ins, 11, &rng);
		struct idxmap m;
		cr_assert_eq(idxmap_init(&m, 16), 0);
		for (unsigned i = 0; i < 11; i++)
			cr_assert_eq(idxmap_add(&m, hashes[ins[i]], ins[i]), 0);
		cr_assert_eq(m.mask, 15);
		bool gone[11] = {false};
		for (unsigned k = 0; k < 11; k++) {
			unsigned r = order[k];
			idxmap_del_at(&m, find(&m, rec_key[r], hashes[r]));
			gone[r] = true;
			cr_assert_eq(m.count, 10 - k);
			check_invariant(&m);
			for (unsigned i = 0; i < 11; i++) {
				if (gone[i])
					expect_absent(&m, rec_key[i], hashes[i], "wrapping run");
				else
					expect_rec(&m, i, hashes[i], "wrapping run");
			}
		}
		idxmap_free(&m);
	}
}

/* Add/delete churn over a small set never fills the table (no tombstones), and a model agrees
 * after every step; records are reused as the stream table reuses an evicted stream's entry. */
Test(idxmap, churn_against_model)
{
	enum { U = 600 };
	bool in[U] = {false};
	for (unsigned r = 0; r < U; r++)
		rec_key[r] = (uint64_t)r * 0x100000001ull;
	struct idxmap m;
	cr_assert_eq(idxmap_init(&m, 16), 0);
	uint64_t rng = 88172645463325252ull;
	uint32_t n = 0;
	for (unsigned step = 0; step < 200000; step++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		unsigned r = (unsigned)(rng % U);
		uint32_t h = idxmap_hash(rec_key[r]) & 0x3fu;  /* few hashes: long runs, shared hashes */
		uint32_t i = find(&m, rec_key[r], h);
		if (in[r]) {
			cr_assert_eq(m.slots[i].val, r + 1);
			idxmap_del_at(&m, i);
			in[r] = false, n--;
		} else {
			cr_assert_eq(m.slots[i].val, 0);
			cr_assert_eq(idxmap_add(&m, h, r), 0);
			in[r] = true, n++;
		}
		cr_assert_eq(m.count, n);
		if (step % 997 == 0) {
			check_invariant(&m);
			for (unsigned k = 0; k < U; k++)
				cr_assert_eq(m.slots[find(&m, rec_key[k], idxmap_hash(rec_key[k]) & 0x3fu)].val, in[k] ? k + 1 : 0);
		}
	}
	cr_assert_leq(m.mask, 1023, "churn over 600 keys stays small");
	idxmap_free(&m);
}
