/* test_stream_table.c: the analyzer's interned addresses (analyzer/core/stream_table.c): ids in
 * first-seen order and stable, IPv4 keys exact and apart from IPv6 ones, an IPv6 key collision
 * resolved by the stored bytes, and addr_pair_ids() (its two-pair cache and its lookups) giving
 * the ids addr_id() gives, over many hosts in random order; streams found by their frames' address
 * bytes and QP (stream_of_addrs), by the same hash their keys give; round-trip histograms kept
 * in a window the same as whole ones. */
#include <criterion/criterion.h>
#include <string.h>

#include "stream_table.h"

static struct roce_analyzer *an;

static void setup(void)
{
	char err[ROCE_ERRBUF_SIZE];
	an = roce_analyzer_new(NULL, err);
	cr_assert_not_null(an, "%s", err);
}

static void teardown(void)
{
	roce_analyzer_free(an);
}

TestSuite(stream_table, .init = setup, .fini = teardown);

static void v4(uint8_t *a, uint32_t n)
{
	a[0] = 10, a[1] = (uint8_t)(n >> 16), a[2] = (uint8_t)(n >> 8), a[3] = (uint8_t)n;
}

static void v6(uint8_t *a, uint32_t n)
{
	memset(a, 0, 16);
	a[0] = 0xfd, a[12] = (uint8_t)(n >> 24), a[13] = (uint8_t)(n >> 16), a[14] = (uint8_t)(n >> 8), a[15] = (uint8_t)n;
}

Test(stream_table, ids_in_first_seen_order_and_stable)
{
	uint8_t a[16];
	for (uint32_t n = 0; n < 20000; n++) {
		if (n % 2)
			v6(a, n);
		else
			v4(a, n);
		cr_assert_eq(addr_id(an, a, n % 2 ? 16 : 4), n);
	}
	for (uint32_t n = 0; n < 20000; n++) {
		if (n % 2)
			v6(a, n);
		else
			v4(a, n);
		unsigned len = n % 2 ? 16 : 4;
		cr_assert_eq(addr_id(an, a, len), n);
		cr_assert_eq(an->addrs[n][16], len);
		cr_assert(memcmp(an->addrs[n], a, len) == 0);
	}
	cr_assert_eq(an->n_addrs, 20000);
}

Test(stream_table, ipv4_apart_from_ipv6_with_the_same_first_bytes)
{
	uint8_t a[16] = {10, 0, 0, 1};
	uint32_t id4 = addr_id(an, a, 4), id6 = addr_id(an, a, 16);
	cr_assert_neq(id4, id6);
	memset(a + 4, 0xff, 12);
	uint32_t id6b = addr_id(an, a, 16);
	cr_assert_neq(id6b, id6);
	cr_assert_neq(id6b, id4);
	cr_assert_eq(addr_id(an, a, 4), id4);
	cr_assert(addr_key(a, 4) < ADDR_KEY_V6 && addr_key(a, 16) >= ADDR_KEY_V6);
}

/* Another address already under X's key (as a 64-bit hash collision would put it): X gets a key
 * of its own, and both keep their ids. */
Test(stream_table, ipv6_key_collision_resolved_by_the_bytes)
{
	uint8_t x[16], y[16];
	v6(x, 1);
	v6(y, 2);
	uint32_t idy = addr_id(an, y, 16);
	cr_assert_eq(u64map_put(&an->addr_index, addr_key(x, 16), idy), 0);
	uint32_t idx = addr_id(an, x, 16);
	cr_assert_neq(idx, idy);
	cr_assert_eq(addr_id(an, x, 16), idx);
	cr_assert_eq(addr_id(an, y, 16), idy);
	cr_assert(memcmp(an->addrs[idx], x, 16) == 0);
}

Test(stream_table, pair_ids_equal_addr_ids_over_many_hosts)
{
	uint64_t r = 0x9e3779b97f4a7c15u;
	uint8_t pair[32];
	for (unsigned i = 0; i < 200000; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		unsigned len = (r >> 60) == 0 ? 16 : 4;    /* one in 16 is IPv6 */
		uint32_t s = (uint32_t)(r % 3000), d = (uint32_t)(r >> 20) % 3000;
		if (i % 4 == 1)
			s = 7, d = 8;                       /* a busy pair: the cache answers */
		if (len == 4)
			v4(pair, s), v4(pair + 4, d);
		else
			v6(pair, s), v6(pair + 16, d);
		uint32_t ps, pd;
		cr_assert(addr_pair_ids(an, pair, len, &ps, &pd));
		cr_assert_eq(ps, addr_id(an, pair, len));
		cr_assert_eq(pd, addr_id(an, pair + len, len));
		cr_assert(memcmp(an->addrs[ps], pair, len) == 0 && an->addrs[ps][16] == len);
		cr_assert(memcmp(an->addrs[pd], pair + len, len) == 0 && an->addrs[pd][16] == len);
	}
}

/* A stream is found by its frames' address bytes and QP (stream_of_addrs): the hash from its key
 * (stream_hash) is the one from the bytes (stream_hash_raw), over many hosts, QPs and both
 * families; the reverse direction and another QP are other streams. */
Test(stream_table, stream_found_by_its_addresses)
{
	uint64_t r = 0x2545f4914f6cdd1du;
	uint8_t pair[32], rev[32];
	for (unsigned i = 0; i < 50000; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		unsigned len = (r >> 61) == 0 ? 16 : 4;
		uint32_t s = (uint32_t)(r % 500), d = 500 + (uint32_t)(r >> 20) % 500, qpn = (uint32_t)(r >> 40) & 0xffffff;
		if (len == 4)
			v4(pair, s), v4(pair + 4, d), v4(rev, d), v4(rev + 4, s);
		else
			v6(pair, s), v6(pair + 16, d), v6(rev, d), v6(rev + 16, s);
		uint32_t h = stream_hash_raw(pair, pair + len, len, qpn), src, dst, idx, found;
		cr_assert(addr_pair_ids(an, pair, len, &src, &dst));
		uint64_t key = stream_key(src, dst, qpn);
		cr_assert_eq(stream_hash(an, key), h, "the same hash from the key and from the bytes");
		bool had = stream_of_addrs(an, h, pair, len, qpn, &found);
		cr_assert_not_null(stream_get(an, key, &idx));
		if (had)
			cr_assert_eq(found, idx, "frame %u: the stream its key names", i);
		cr_assert(stream_of_addrs(an, h, pair, len, qpn, &found) && found == idx);
		if (stream_of_addrs(an, stream_hash_raw(rev, rev + len, len, qpn), rev, len, qpn, &found))
			cr_assert_eq(key_src(an->s[found].key), dst, "the reverse direction is its own stream");
		if (stream_of_addrs(an, stream_hash_raw(pair, pair + len, len, qpn ^ 1), pair, len, qpn ^ 1, &found))
			cr_assert_eq(key_qpn(an->s[found].key), qpn ^ 1, "another QP is its own stream");
	}
}

/* Streams filed under one hash (a collision, made here on purpose) are told apart by their QPs
 * and their address bytes, an IPv4 address from an IPv6 one with the same first bytes too. */
Test(stream_table, streams_sharing_a_hash_told_apart)
{
	uint8_t a4[8] = {10, 0, 0, 1, 10, 0, 0, 2}, a6[32] = {10, 0, 0, 1}, b4[8] = {10, 0, 0, 1, 10, 0, 0, 3};
	memcpy(a6 + 16, a4 + 4, 4);
	const uint8_t *addrs[4] = {a4, a4, a6, b4};
	const unsigned len[4] = {4, 4, 16, 4};
	const uint32_t qpn[4] = {7, 8, 7, 7};
	uint32_t h = stream_hash_raw(a4, a4 + 4, 4, 7), idx[4], src, dst, found;
	for (unsigned k = 0; k < 4; k++) {
		cr_assert(addr_pair_ids(an, addrs[k], len[k], &src, &dst));
		cr_assert_not_null(stream_add(an, stream_key(src, dst, qpn[k]), h, &idx[k]));
	}
	for (unsigned k = 0; k < 4; k++) {
		cr_assert(stream_of_addrs(an, h, addrs[k], len[k], qpn[k], &found), "stream %u found", k);
		cr_assert_eq(found, idx[k], "stream %u: itself, not another of its hash", k);
	}
	cr_assert_not(stream_of_addrs(an, h, a4, 4, 9, &found), "no stream on QP 9");
}

/* A stream's round-trip histogram kept as a window (struct rtt_hist) is, after every sample, the
 * whole histogram that hist_add() makes of the same samples, bucket for bucket: for round trips
 * that stay in the first window, that drift out of it (the window moves), and that spread wider
 * than a window (the histogram moves to a block of its own), counts halving on the way. */
Test(stream_table, rtt_histogram_window_is_the_whole_histogram)
{
	static const struct {
		unsigned lo, width, wide_every;  /* buckets lo .. lo + width - 1; every n-th anywhere */
		int drift;                        /* lo moves by this much every 500 samples */
		bool spills;
	} runs[] = {
		{4, 6, 0, 0, false},     /* a few microseconds to a few tens */
		{20, 5, 0, 0, false},    /* around a millisecond: the window's far end, then moved */
		{30, 10, 0, 0, false},   /* 30 ms to 3 s: out of the first window */
		{2, 8, 0, 1, false},     /* drifting up a bucket at a time, 12 buckets in all */
		{40, 8, 0, -1, false},   /* drifting down */
		{0, 5, 0, 2, false},     /* drifting up to buckets 0 .. 26: a window's width exactly */
		{0, 6, 0, 2, true},      /* ... and to 27: one more than fits */
		{6, 4, 97, 0, true},     /* microseconds, and now and then anything up to the last */
		{0, 48, 0, 0, true},     /* anything */
	};
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		roce_analyzer_free(an);
		setup();
		struct rtt_hist h = {.base = RTT_EMPTY};
		uint8_t want[RTT_BUCKETS] = {0}, got[RTT_BUCKETS];
		rtt_hist_get(an, &h, got);
		cr_assert_arr_eq(got, want, RTT_BUCKETS, "run %u: empty", r);
		int lo = (int)runs[r].lo;
		for (unsigned i = 0; i < 6000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (runs[r].drift && i && i % 500 == 0)
				lo += runs[r].drift;
			unsigned k = (unsigned)lo + (unsigned)(x % runs[r].width);
			if (runs[r].wide_every && i % runs[r].wide_every == 0)
				k = (unsigned)(x >> 32) % RTT_BUCKETS;
			cr_assert_lt(k, RTT_BUCKETS);
			hist_add(want, RTT_BUCKETS, k);
			rtt_hist_add(an, &h, k);
			rtt_hist_get(an, &h, got);
			cr_assert_arr_eq(got, want, RTT_BUCKETS, "run %u, sample %u (bucket %u)", r, i, k);
		}
		cr_assert_eq(h.base == RTT_SPILLED, runs[r].spills, "run %u: spilled %d", r, h.base == RTT_SPILLED);
		cr_assert_eq(an->hist_pool.n_used, runs[r].spills ? 2u : 0u, "run %u: one block when spilled", r);
	}
}
