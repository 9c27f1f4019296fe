/* test_stream_table.c: the analyzer's interned addresses (analyzer/core/stream_table.c): ids in
 * first-seen order and stable, IPv4 keys exact and apart from IPv6 ones, an IPv6 key collision
 * resolved by the stored bytes, and addr_pair_ids() (its two-pair cache and its lookups) giving
 * the ids addr_id() gives, over many hosts in random order; streams found by their frames' address
 * bytes and QP (stream_of_addrs), by the same hash their keys give; round-trip histograms kept
 * in a window the same as whole ones. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "stream_table.h"
#include "unit_util.h"

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

/* Frame k of the clock test's traffic: one of 300 queue pairs (a pseudo-random one) sends a
 * SEND_ONLY asking for an ACK, or its responder ACKs the newest; *pending keeps, per QP, whether
 * a SEND waits. */
static uint32_t touch_frame(uint64_t *x, uint8_t *pending, uint32_t *psn, uint8_t *out)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	uint32_t qp = (uint32_t)(*x % 300);
	bool ack = pending[qp];
	struct roce_build b;
	u_base(&b);
	uint8_t requester[4] = {10, 1, 0, (uint8_t)(qp % 40)}, responder[4] = {10, 2, 0, 1};
	memcpy(ack ? b.dst : b.src, requester, 4);
	memcpy(ack ? b.src : b.dst, responder, 4);
	b.h.bth.opcode = ack ? 0x11 : 0x04;  /* RC ACKNOWLEDGE, RC SEND_ONLY */
	b.h.bth.dqpn = ack ? 0x100 + qp : 0x800000 + qp;
	b.h.bth.psn = ack ? psn[qp] - 1 : psn[qp]++;
	b.h.bth.ackreq = !ack;
	b.h.aeth.syndrome = 0x1f;
	if (!ack) {
		b.payload = u_payload();
		b.payload_len = 32;
	}
	pending[qp] = !ack;
	return u_build(&b, out);
}

/* Two analyzers list the same n rows in the same order. */
static void same_rows(const struct roce_analyzer *x, const struct roce_analyzer *y, size_t n)
{
	struct u_rows rx = {0}, ry = {0};
	roce_analyzer_foreach(x, u_rows_keep, &rx);
	roce_analyzer_foreach(y, u_rows_keep, &ry);
	cr_assert_eq(rx.n, n);
	cr_assert_eq(ry.n, n);
	for (size_t k = 0; k < n; k++)
		u_assert_same_row(k, &rx.s[k], &ry.s[k]);
	free(rx.s);
	free(ry.s);
}

/* Stamps of last use are TOUCH_BITS wide (stream.touched): when the clock reaches TOUCH_MAX, every
 * stream's stamp is renumbered in its order of use. Two analyzers capped at 64 streams (evicting
 * all along) take the same 30,000 frames over 300 queue pairs; the second's clock is moved to just
 * below TOUCH_MAX twice on the way. Every frame's events and stream ids, the evictions and every
 * row, in the order the rows are listed (least recently used first), must be the same. */
Test(stream_table, clock_renumbered_past_its_width)
{
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cfg.max_streams = 64;
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer *x = roce_analyzer_new(&cfg, err), *y = roce_analyzer_new(&cfg, err);
	cr_assert(x && y, "%s", err);
	uint64_t rng = 0x2545f4914f6cdd1du;
	uint8_t pending[300] = {0}, frame[256];
	uint32_t psn[300];
	for (unsigned q = 0; q < 300; q++)
		psn[q] = 1000 * q;
	unsigned renumbered = 0;
	for (uint32_t k = 1; k <= 30000; k++) {
		if (k == 5000 || k == 20000) {  /* streams stamped below; the clock near its end */
			cr_assert_lt(y->clock, TOUCH_MAX - 1000);
			y->clock = TOUCH_MAX - 1000;
		}
		uint64_t before = y->clock;
		uint32_t len = touch_frame(&rng, pending, psn, frame);
		struct roce_pkt p, p2;
		cr_assert_eq(u_decode(frame, len, ROCE_LINK_ETHERNET, &p), 1);
		p2 = p;
		struct roce_findings fx, fy;
		int64_t ts = INT64_C(1700000000000000000) + (int64_t)k * 1000;
		roce_analyze(x, &p, k, frame, ts, &fx);
		roce_analyze(y, &p2, k, frame, ts, &fy);
		bool now_renumbered = y->clock < before;
		renumbered += now_renumbered;
		cr_assert_eq(fx.stream, fy.stream, "frame %u: stream %u / %u", k, fx.stream, fy.stream);
		cr_assert_eq(fx.pair, fy.pair, "frame %u", k);
		cr_assert_eq(memcmp(&p.events, &p2.events, sizeof(p.events)), 0, "frame %u: events differ", k);
		for (uint32_t i = 0; i < y->n_used; i++)
			cr_assert_leq(y->s[i].touched, y->clock, "frame %u: a stamp past the clock", k);
		if (now_renumbered || k % 1000 == 0)
			same_rows(x, y, 64);
	}
	cr_assert_eq(renumbered, 2, "the clock renumbered %u times", renumbered);
	cr_assert_lt(y->clock, 20000, "renumbered from 1 up: %llu", (unsigned long long)y->clock);
	cr_assert_gt(roce_analyzer_evictions(x), 10000);
	cr_assert_eq(roce_analyzer_evictions(x), roce_analyzer_evictions(y));
	same_rows(x, y, 64);
	roce_analyzer_free(x);
	roce_analyzer_free(y);
}
