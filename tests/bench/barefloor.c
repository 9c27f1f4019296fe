/* barefloor.c: the bare floor for rocedump -q (tests/bench/README.md, run-bench.sh): the least a
 * program that checks every RoCEv2 ICRC of a capture file can do, with no library between it and
 * the file.
 *
 *   barefloor [-n | -m | -h] FILE
 *
 * One thread. It read()s the file into a 1 MiB buffer (a record cut by the buffer's end is moved
 * to its start before the next read), takes the pcap file header (either byte order,
 * microsecond or nanosecond time stamps) and each record's 16-byte header, and walks each frame's
 * headers only as far as the ICRC's span needs: Ethernet II (VLAN and QinQ tags skipped), IPv4
 * (IHL, total length) or IPv6 (payload length; no extension headers), UDP destination port 4791.
 * It copies and masks the headers the ICRC covers and runs the CRC library rocedump's core uses
 * (floor_icrc.h, shared with floor.c). Nothing else: no time stamps, no checksums, no decode, no
 * state. Frames it does not handle (other link types, RoCEv1, fragments, IPv6 extension headers,
 * tunnels) are counted as "other"; on the
 * benchmark's captures every frame is RoCEv2 and run-bench.sh checks that its good count equals
 * rocedump's. It prints, in floor.c's format:
 *
 *   floor: frames N bytes N roce N good N bad N other N
 *
 * -n  read only: walk the records and count bytes, no parse, no CRC
 * -m  map the file instead (mmap, read-only; the pages behind let go in 16 MiB steps, as
 *     rocedump's reader does): no kernel copy out of the page cache. An INFO floor: the one that
 *     rocedump's reading (analyzer/rocedump/input/pcapread.c) can be held to, where read() is the one
 *     the PASS/FAIL verdict keeps
 * -h  halves: print `half OFFSET K`, where the file's records split in two (the first K = N / 2
 *     of its N records end at byte OFFSET, where the second half begins), and nothing else: no
 *     parse, no CRC. run-bench.sh cuts the many-host file there to measure what two cores give
 *     (the file's header, then the records up to OFFSET; the header, then the rest)
 *
 * Exit status: 0 ok, 2 usage or input error (not a pcap file, a truncated or oversized record, a
 * read error). Build: tests/bench/meson.build, or cc -O2 -o barefloor barefloor.c -lisal */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floor_icrc.h"

#define BUF_SIZE (1u << 20)
#define PCAP_HDR 24
#define REC_HDR 16
#define DLT_ETHERNET 1

static inline uint32_t rd32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* Fill buf[have..BUF_SIZE) from fd; the new number of bytes held, or -1 on a read error. */
static long fill(int fd, uint8_t *buf, size_t have)
{
	while (have < BUF_SIZE) {
		ssize_t r = read(fd, buf + have, BUF_SIZE - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	return (long)have;
}

static void print_counts(const struct counts *c)
{
	printf("floor: frames %" PRIu64 " bytes %" PRIu64 " roce %" PRIu64 " good %" PRIu64 " bad %" PRIu64
	       " other %" PRIu64 "\n", c->frames, c->bytes, c->roce, c->good, c->bad, c->other);
}

static int fail(const char *path, const char *what)
{
	fprintf(stderr, "barefloor: %s: %s\n", path, what);
	return 2;
}

/* The byte order of the pcap file header at b (have bytes): 0 native, 1 swapped, -1 not pcap. */
static int pcap_order(const uint8_t *b, size_t have)
{
	uint32_t magic;
	if (have < PCAP_HDR)
		return -1;
	memcpy(&magic, b, 4);
	if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du)
		return 0;
	if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u)
		return 1;
	return -1;
}

/* One record, its 16-byte header at rec and its frame whole behind it, counted; its ICRC checked
 * when check is set and the link is Ethernet. Returns the record's size. */
static inline size_t count_record(struct counts *c, const uint8_t *rec, int swap, int ether, int check)
{
	uint32_t caplen = rd32(rec + 8, swap);
	c->frames++;
	c->bytes += rd32(rec + 12, swap);
	if (check) {
		if (ether)
			check_frame(c, rec + REC_HDR, caplen);
		else
			c->other++;
	}
	return REC_HDR + (size_t)caplen;
}

#define RELEASE_STEP ((size_t)16 << 20)

/* The pcap file fd mapped read-only: *m, *len, *swap (its byte order); 0, or 2 with a message. */
static int map_pcap(int fd, const char *path, uint8_t **m, size_t *len, int *swap)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return fail(path, strerror(errno));
	*len = (size_t)st.st_size;
	if (*len < PCAP_HDR)
		return fail(path, "not a pcap file (too short)");
	*m = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
	if (*m == MAP_FAILED)
		return fail(path, strerror(errno));
	if ((*swap = pcap_order(*m, *len)) < 0) {
		munmap(*m, *len);
		return fail(path, "not a pcap file (pcapng and other formats are not read here)");
	}
	return 0;
}

/* -m: the records walked where they lie in a read-only mapping of the file. */
static int run_mapped(int fd, const char *path, struct counts *c)
{
	uint8_t *m;
	size_t len;
	int swap, rc = map_pcap(fd, path, &m, &len, &swap);
	if (rc)
		return rc;
	int ether = (rd32(m + 20, swap) & 0x0fffffffu) == DLT_ETHERNET;
	size_t at = PCAP_HDR, released = 0;
	while (at < len) {
		if (len - at < REC_HDR || len - at - REC_HDR < rd32(m + at + 8, swap)) {
			rc = fail(path, "truncated record at the end of the file");
			break;
		}
		at += count_record(c, m + at, swap, ether, 1);
		if (at - released >= RELEASE_STEP + 4096) {
			size_t to = (at - REC_HDR) & ~(size_t)4095;
			madvise(m + released, to - released, MADV_DONTNEED);
			released = to;
		}
	}
	munmap(m, len);
	return rc;
}

/* -h: where the records split in two halves of N / 2 and N - N / 2 records. */
static int run_halves(int fd, const char *path)
{
	uint8_t *m;
	size_t len;
	int swap, rc = map_pcap(fd, path, &m, &len, &swap);
	if (rc)
		return rc;
	struct counts c = {0};
	for (size_t at = PCAP_HDR; at < len; at += count_record(&c, m + at, swap, 0, 0)) {
		if (len - at < REC_HDR || len - at - REC_HDR < rd32(m + at + 8, swap)) {
			rc = fail(path, "truncated record at the end of the file");
			break;
		}
	}
	uint64_t half = c.frames / 2;
	size_t at = PCAP_HDR;
	for (uint64_t k = 0; !rc && k < half; k++)
		at += REC_HDR + (size_t)rd32(m + at + 8, swap);
	if (!rc)
		printf("half %zu %" PRIu64 "\n", at, half);
	munmap(m, len);
	return rc;
}

int main(int argc, char **argv)
{
	int read_only = 0, mapped = 0, halves = 0;
	if (argc == 3 && strcmp(argv[1], "-n") == 0)
		read_only = 1;
	else if (argc == 3 && strcmp(argv[1], "-m") == 0)
		mapped = 1;
	else if (argc == 3 && strcmp(argv[1], "-h") == 0)
		halves = 1;
	else if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: barefloor [-n | -m | -h] FILE\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return fail(path, strerror(errno));
	if (halves) {
		int rc = run_halves(fd, path);
		close(fd);
		return rc;
	}
	static uint8_t buf[BUF_SIZE];  /* static: an early exit (exit 2) leaks nothing under LeakSanitizer */
	zero_upper_init(1);
	struct counts c = {0};
	if (mapped) {
		int rc = run_mapped(fd, path, &c);
		close(fd);
		if (rc)
			return rc;
		print_counts(&c);
		return 0;
	}

	long have = fill(fd, buf, 0);
	if (have < 0)
		return fail(path, strerror(errno));
	if (have < PCAP_HDR)
		return fail(path, "not a pcap file (too short)");
	int swap = pcap_order(buf, (size_t)have);
	if (swap < 0)
		return fail(path, "not a pcap file (pcapng and other formats are not read here)");
	int ether = (rd32(buf + 20, swap) & 0x0fffffffu) == DLT_ETHERNET;

	size_t at = PCAP_HDR, end = (size_t)have;
	int eof = have < (long)BUF_SIZE;
	for (;;) {
		if (end - at >= REC_HDR && rd32(buf + at + 8, swap) > BUF_SIZE - REC_HDR)
			return fail(path, "a record longer than the 1 MiB buffer");
		if (end - at < REC_HDR || end - at < REC_HDR + rd32(buf + at + 8, swap)) {
			/* the next record is not whole in the buffer: move what is left to the front, read on */
			if (eof) {
				if (at != end)
					return fail(path, "truncated record at the end of the file");
				break;
			}
			memmove(buf, buf + at, end - at);
			end -= at;
			at = 0;
			have = fill(fd, buf, end);
			if (have < 0)
				return fail(path, strerror(errno));
			eof = have < (long)BUF_SIZE;
			end = (size_t)have;
			continue;
		}
		at += count_record(&c, buf + at, swap, ether, !read_only);
	}
	close(fd);
	print_counts(&c);
	return 0;
}
