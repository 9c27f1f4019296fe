/*
 * crc_candidates.c - pick the CRC-32 library used for the RoCE ICRC.
 *
 * Standalone benchmark/cross-check (not part of the meson build) comparing
 * the reflected IEEE CRC-32 (zlib-compatible, poly 0xEDB88320) of:
 *   - ISA-L      crc32_gzip_refl()   (libisal,    -lisal)
 *   - libdeflate libdeflate_crc32()  (libdeflate, -ldeflate)
 *   - zlib       crc32()             (zlib,       -lz)
 *
 * 1. Correctness: check value of "123456789" must be 0xCBF43926 for all;
 *    for every length 0..9000 on random data at random alignment, all three
 *    must agree, and incremental use crc(crc(0,a),b) == crc(0,a||b) must hold
 *    (random split plus splits at 0, 80 and len).  Exit 1 on any mismatch.
 * 2. Timing: clock_gettime(CLOCK_MONOTONIC), repetitions calibrated so that
 *    each measurement takes >= 0.3 s, best of 3, for whole-buffer sizes
 *    16..9000 and for the RoCE ICRC pattern (one call on an 80-byte masked
 *    header copy + one continuation call on the payload).
 *
 * Build (from the repo root):
 *   gcc -std=c11 -O2 -Wall -Wextra -o /tmp/crc_candidates \
 *       tests/bench/crc_candidates.c -lisal -ldeflate -lz
 * Run:
 *   /tmp/crc_candidates            (full run, ~70 s)
 *   /tmp/crc_candidates --check    (correctness only)
 */
#define _POSIX_C_SOURCE 199309L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/crc.h>
#include <libdeflate.h>
#include <zlib.h>

typedef uint32_t (*crc_fn)(uint32_t crc, const unsigned char *buf, size_t len);

static uint32_t crc_isal(uint32_t crc, const unsigned char *buf, size_t len)
{
	return crc32_gzip_refl(crc, buf, (uint64_t)len);
}

static uint32_t crc_deflate(uint32_t crc, const unsigned char *buf, size_t len)
{
	return libdeflate_crc32(crc, buf, len);
}

static uint32_t crc_zlib(uint32_t crc, const unsigned char *buf, size_t len)
{
	return (uint32_t)crc32((uLong)crc, buf, (uInt)len);
}

static const struct {
	const char *name;
	crc_fn fn;
} libs[] = {
	{ "isa-l", crc_isal },
	{ "libdeflate", crc_deflate },
	{ "zlib", crc_zlib },
};
#define NLIBS (sizeof(libs) / sizeof(libs[0]))

#define MAXLEN 9000
#define ALIGN_SLACK 64

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static void fill_random(unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(rng() >> 56);
}

/* ------------------------------------------------------------------ */
/* Correctness                                                         */
/* ------------------------------------------------------------------ */

static int check_split(size_t li, const unsigned char *p, size_t len,
		       size_t split, uint32_t whole)
{
	uint32_t a = libs[li].fn(0, p, split);
	uint32_t ab = libs[li].fn(a, p + split, len - split);
	if (ab != whole) {
		fprintf(stderr,
			"FAIL incremental %s len=%zu split=%zu: %08x != %08x\n",
			libs[li].name, len, split, ab, whole);
		return 1;
	}
	return 0;
}

static int run_checks(void)
{
	static const unsigned char check[] = "123456789";
	int fails = 0;

	for (size_t li = 0; li < NLIBS; li++) {
		uint32_t c = libs[li].fn(0, check, 9);
		if (c != 0xCBF43926u) {
			fprintf(stderr, "FAIL check value %s: %08x != cbf43926\n",
				libs[li].name, c);
			fails++;
		}
	}

	unsigned char *buf = malloc(MAXLEN + ALIGN_SLACK);
	if (!buf) {
		perror("malloc");
		exit(2);
	}
	fill_random(buf, MAXLEN + ALIGN_SLACK);

	unsigned long ncmp = 0;
	for (size_t len = 0; len <= MAXLEN; len++) {
		const unsigned char *p = buf + (rng() % ALIGN_SLACK);
		uint32_t ref = libs[0].fn(0, p, len);

		for (size_t li = 0; li < NLIBS; li++) {
			uint32_t c = libs[li].fn(0, p, len);
			ncmp++;
			if (c != ref) {
				fprintf(stderr,
					"FAIL %s vs %s len=%zu: %08x != %08x\n",
					libs[li].name, libs[0].name, len, c,
					ref);
				fails++;
			}
			size_t rsplit = len ? (size_t)(rng() % (len + 1)) : 0;
			fails += check_split(li, p, len, rsplit, ref);
			fails += check_split(li, p, len, 0, ref);
			fails += check_split(li, p, len, len, ref);
			if (len >= 80)
				fails += check_split(li, p, len, 80, ref);
			ncmp += len >= 80 ? 4 : 3;
		}
		if (fails > 20)
			break;
	}
	free(buf);

	printf("correctness: %lu comparisons, lengths 0..%d, %s\n", ncmp,
	       MAXLEN, fails ? "FAILED" : "all OK (check value 0xCBF43926)");
	return fails;
}

/* ------------------------------------------------------------------ */
/* Timing                                                              */
/* ------------------------------------------------------------------ */

static volatile uint32_t sink;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* hdr_len == 0: one call on buf[0..len); else ICRC pattern: hdr call + payload call */
static double time_loop(crc_fn fn, const unsigned char *hdr, size_t hdr_len,
			const unsigned char *buf, size_t len, unsigned long reps)
{
	uint32_t acc = 0;
	double t0 = now_s();
	if (hdr_len) {
		for (unsigned long i = 0; i < reps; i++) {
			uint32_t c = fn(0, hdr, hdr_len);
			acc ^= fn(c, buf, len);
		}
	} else {
		for (unsigned long i = 0; i < reps; i++)
			acc ^= fn(0, buf, len);
	}
	double t = now_s() - t0;
	sink ^= acc;
	return t;
}

/* returns best ns per operation, best of 3 runs each >= 0.3 s */
static double bench(crc_fn fn, const unsigned char *hdr, size_t hdr_len,
		    const unsigned char *buf, size_t len)
{
	unsigned long reps = 1000;
	double t;
	/* calibrate */
	for (;;) {
		t = time_loop(fn, hdr, hdr_len, buf, len, reps);
		if (t >= 0.3)
			break;
		double scale = t > 1e-4 ? 0.33 / t : 10.0;
		if (scale > 10.0)
			scale = 10.0;
		if (scale < 1.2)
			scale = 1.2;
		reps = (unsigned long)((double)reps * scale);
	}
	double best = t / (double)reps;
	for (int r = 0; r < 3; r++) {
		t = time_loop(fn, hdr, hdr_len, buf, len, reps);
		if (t / (double)reps < best)
			best = t / (double)reps;
	}
	return best * 1e9;
}

static void print_header(const char *first)
{
	printf("%-14s", first);
	for (size_t li = 0; li < NLIBS; li++)
		printf(" | %10s ns  GB/s", libs[li].name);
	printf("\n");
}

static void print_row(const char *label, size_t bytes, const double *ns)
{
	printf("%-14s", label);
	for (size_t li = 0; li < NLIBS; li++)
		printf(" | %13.1f %5.2f", ns[li],
		       ns[li] > 0 ? (double)bytes / ns[li] : 0.0);
	printf("\n");
	fflush(stdout);
}

static void run_bench(void)
{
	static const size_t sizes[] = { 16, 48, 64, 80, 128, 256, 512, 1024, 4096, 9000 };
	static const size_t payloads[] = { 0, 16, 64, 1024, 4096 };
	enum { HDR = 80 };

	/* 64-byte aligned buffers, as packet buffers typically are */
	unsigned char *buf = aligned_alloc(64, MAXLEN + ALIGN_SLACK);
	unsigned char *hdr = aligned_alloc(64, 128);
	if (!buf || !hdr) {
		perror("aligned_alloc");
		exit(2);
	}
	fill_random(buf, MAXLEN + ALIGN_SLACK);
	fill_random(hdr, 128);

	/* warm up CPU frequency / lazy binding / dispatch */
	for (size_t li = 0; li < NLIBS; li++)
		time_loop(libs[li].fn, NULL, 0, buf, 4096, 20000);

	double ns[NLIBS];
	char label[32];

	printf("\nsingle call, ns/call (best of 3, >=0.3 s each) and GB/s\n");
	print_header("bytes");
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t li = 0; li < NLIBS; li++)
			ns[li] = bench(libs[li].fn, NULL, 0, buf, sizes[si]);
		snprintf(label, sizeof(label), "%zu", sizes[si]);
		print_row(label, sizes[si], ns);
	}

	printf("\nICRC pattern: crc(crc(0, hdr80), payload), ns/packet and GB/s over 80+payload bytes\n");
	print_header("80+payload");
	for (size_t pi = 0; pi < sizeof(payloads) / sizeof(payloads[0]); pi++) {
		for (size_t li = 0; li < NLIBS; li++)
			ns[li] = bench(libs[li].fn, hdr, HDR, buf, payloads[pi]);
		snprintf(label, sizeof(label), "80+%zu", payloads[pi]);
		print_row(label, HDR + payloads[pi], ns);
	}

	free(buf);
	free(hdr);
}

int main(int argc, char **argv)
{
	int only_check = argc > 1 && strcmp(argv[1], "--check") == 0;

	if (run_checks() != 0)
		return 1;
	if (only_check)
		return 0;
	run_bench();
	return 0;
}
