/* input_harness.h: what the capture-input tests (test_input.c: classic pcap, test_input_pcapng.c:
 * pcapng) share: every file is read both through rocedump's input (analyzer/rocedump/input/input.c,
 * with its direct readers pcapread.c and pcapngread.c) and by pcap_next_ex() on a fresh libpcap
 * handle, and the two must hand out the same frames (bytes, lengths, time stamps, numbers) and
 * end the same way (the end of the file, or the same error message). The file is also read
 * through input.c from standard input, which no direct reader takes (libpcap over the cookie
 * stream that feeds the capstats scanner, from the first byte): the frames' interfaces and
 * names and the capture's drop counts must be the same as the direct way's. And the file is read
 * directly once more while other threads read its next bytes ahead (input_claim_ahead, as
 * rocedump's pipeline does): the same frames again. */
#ifndef TESTS_INPUT_HARNESS_H
#define TESTS_INPUT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/input.h"

#define MAX_FRAMES 4096   /* frames a file read by same() may have */

/* The file at path (filter: NULL or a BPF expression) read every way, compared; want_direct:
 * whether a direct reader must take it at the start. */
void same(const char *path, const char *filter, const char *what, bool want_direct);

/* A file being made in memory. */
struct file {
	uint8_t *b;
	size_t len, cap;
};

void put(struct file *f, const void *p, size_t n);
void put32(struct file *f, uint32_t v, bool swap);
void put16(struct file *f, uint16_t v, bool swap);
/* caplen bytes of a frame (an Ethernet/IPv4/UDP frame to port 4791, or 53 for a seed that is a
 * multiple of 3, when long enough: something for filters to match), the rest made of seed. */
void put_frame(struct file *f, uint32_t caplen, unsigned seed);

/* 1 to max (at most 16) bytes of pseudo-random garbage, from seed. */
void put_junk(struct file *f, unsigned max, uint64_t *seed);
/* One time in three (by seed), the file cut at a pseudo-random length past its first keep bytes. */
void cut_sometimes(struct file *f, size_t keep, uint64_t *seed);

/* Written to name in the tests' directory (made on first use): its path, valid until the next
 * call. */
const char *save(const struct file *f, const char *name);
/* The files the tests wrote, then their directory (a test suite's .fini). */
void cleanup(void);

/* A position-weighted sum of n bytes. */
uint64_t weigh(const uint8_t *p, uint32_t n);
/* xorshift64*: deterministic pseudo-random numbers */
uint64_t rnd(uint64_t *s);

#endif
