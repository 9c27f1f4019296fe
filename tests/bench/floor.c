/* floor.c: the speed floor for rocedump -q (tests/bench/README.md, run-bench.sh).
 *
 *   floor [-b BYTES] [-D | -R] [-n] [-Z] FILE
 *
 * The least work a tool that checks every RoCEv2 ICRC in a capture file can do, with three ways
 * of reading the file: libpcap with its defaults (-D: the floor of issue 2's target), libpcap at
 * its best here (the default: a stdio stream with a setvbuf buffer, 1 MiB unless -b, no stream
 * lock, pcap_fopen_offline_with_tstamp_precision(NANO), pcap_next_ex), or the records read as
 * rocedump reads a plain pcap file (-R). Then it finds the ICRC region with the minimum parse (Ethernet II, IPv4 with IHL, UDP destination port 4791; lengths from the IPv4
 * total length), copy and mask the headers the ICRC covers (8 bytes 0xFF for the LRH; IPv4 TOS,
 * TTL, header checksum; UDP checksum; BTH byte 4) and run the same CRC library as the core
 * (ISA-L crc32_gzip_refl: once over the masked copy, then continued in place over the rest of the
 * packet up to the ICRC). Nothing else: no VLAN tags, IPv6, RoCEv1, tunnels, checksums, events.
 * Frames it does not handle are counted as "other".
 *
 * On x86-64 CPUs with AVX it executes vzeroupper after the CRC calls (unless -Z): ISA-L 2.30's
 * AVX-512 path (crc32_gzip_refl_by16_10, taken for long buffers) returns with the upper halves of
 * zmm0-15 dirty, and every legacy-SSE instruction that follows (memcpy/memset inlined by the
 * compiler, libc, libpcap) then runs slowly. Measured here: the ~1 GB MTU file goes from 0.26 to
 * 0.24 s in the floor and from 0.37 to 0.25 s in rocedump -q (README.md).
 *
 * It prints its counts on one line so the compiler cannot drop the work and so run-bench.sh can
 * check its good count against rocedump's:
 *
 *   floor: frames N bytes N roce N good N bad N other N
 *
 * -b BYTES  stdio buffer size given to setvbuf (0: leave libpcap/stdio's default)
 * -D        the bare loop with libpcap's defaults, as issue 2 words the floor: libpcap opens the
 *           file itself (pcap_open_offline_with_tstamp_precision: its own fopen, stdio's 4 KiB
 *           buffer, a stream lock taken on every fread); -b is then ignored
 * -R        the records read as rocedump reads a plain pcap file: by its own reader
 *           (analyzer/rocedump/pcapread.c: pread() of 1 MiB windows, records used where they
 *           lie), libpcap reading on from the first record that reader leaves to it
 * -n        read only: walk the frames and count bytes, no parse, no CRC
 * -Z        no vzeroupper after the CRC (to see what the dirty AVX-512 state costs)
 *
 * Build: by tests/bench/meson.build (needs libpcap and libisal), or by hand:
 *   cc -std=c11 -O2 -Iinclude -Ianalyzer/rocedump -o floor tests/bench/floor.c analyzer/rocedump/pcapread.c \
 *      -lpcap -lisal
 * Exit status: 0 ok, 2 usage or input error. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <isa-l/crc.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"     /* struct frame */
#include "pcapread.h"

#define ETH_HLEN 14
#define ETHERTYPE_IPV4 0x0800
#define UDP_HLEN 8
#define BTH_LEN 12
#define ICRC_LEN 4
#define ROCE_PORT 4791
#define MASKED_MAX (8 + 60 + UDP_HLEN + BTH_LEN)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static int clear_upper;  /* the CPU has AVX (vzeroupper exists) and -Z was not given */

static inline void zero_upper(void)
{
	if (clear_upper)
		__asm__ volatile("vzeroupper" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
				 "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

static void zero_upper_init(int enable)
{
	__builtin_cpu_init();
	clear_upper = enable && __builtin_cpu_supports("avx");
}
#else
static inline void zero_upper(void) {}
static void zero_upper_init(int enable) { (void)enable; }
#endif

struct counts {
	uint64_t frames, bytes, roce, good, bad, other;
};

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_frame(struct counts *c, const uint8_t *f, uint32_t caplen)
{
	if (caplen < ETH_HLEN + 20 || be16(f + 12) != ETHERTYPE_IPV4) {
		c->other++;
		return;
	}
	const uint8_t *ip = f + ETH_HLEN;
	uint32_t ihl = (ip[0] & 0x0fu) * 4u, tot = be16(ip + 2);
	if (ip[0] >> 4 != 4 || ihl < 20 || ip[9] != 17 || (be16(ip + 6) & 0x3fff) != 0 ||
	    tot < ihl + UDP_HLEN + BTH_LEN + ICRC_LEN || ETH_HLEN + tot > caplen) {
		c->other++;
		return;
	}
	const uint8_t *udp = ip + ihl;
	if (be16(udp + 2) != ROCE_PORT) {
		c->other++;
		return;
	}
	c->roce++;

	uint8_t b[MASKED_MAX];
	uint32_t n = 8;
	memset(b, 0xff, 8);
	memcpy(b + n, ip, ihl);
	b[n + 1] = 0xff;                      /* TOS */
	b[n + 8] = 0xff;                      /* TTL */
	b[n + 10] = b[n + 11] = 0xff;         /* header checksum */
	n += ihl;
	memcpy(b + n, udp, UDP_HLEN + BTH_LEN);
	b[n + 6] = b[n + 7] = 0xff;           /* UDP checksum */
	b[n + UDP_HLEN + 4] = 0xff;           /* BTH FECN, BECN, Resv6 */
	n += UDP_HLEN + BTH_LEN;

	const uint8_t *rest = udp + UDP_HLEN + BTH_LEN, *icrc = ip + tot - ICRC_LEN;
	uint32_t crc = crc32_gzip_refl(0, b, n);
	crc = crc32_gzip_refl(crc, rest, (uint64_t)(icrc - rest));
	zero_upper();
	if (crc == le32(icrc))
		c->good++;
	else
		c->bad++;
}

/* One frame, however it was read: counted, and its ICRC checked unless read_only. */
static inline void count_frame(struct counts *c, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
			       int read_only)
{
	c->frames++;
	c->bytes += wirelen;
	if (!read_only)
		check_frame(c, data, caplen);
}

int main(int argc, char **argv)
{
	long long bufsize = 1 << 20;
	int read_only = 0, vzu = 1, defaults = 0, records = 0, opt;

	while ((opt = getopt(argc, argv, "b:DRnZ")) != -1) {
		switch (opt) {
		case 'b': {
			char *end;
			errno = 0;
			bufsize = strtoll(optarg, &end, 10);
			if (errno || *end || bufsize < 0) {
				fprintf(stderr, "floor: bad -b value: %s\n", optarg);
				return 2;
			}
			break;
		}
		case 'D':
			defaults = 1;
			break;
		case 'R':
			records = 1;
			break;
		case 'n':
			read_only = 1;
			break;
		case 'Z':
			vzu = 0;
			break;
		default:
			fprintf(stderr, "usage: floor [-b BYTES] [-D | -R] [-n] [-Z] FILE\n");
			return 2;
		}
	}
	if (optind + 1 != argc || (defaults && records)) {
		fprintf(stderr, "usage: floor [-b BYTES] [-D | -R] [-n] [-Z] FILE\n");
		return 2;
	}
	zero_upper_init(vzu);
	const char *path = argv[optind];
	char perr[PCAP_ERRBUF_SIZE] = "";
	char *iobuf = NULL;
	pcap_t *p;
	if (defaults) {
		p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
		if (!p) {
			fprintf(stderr, "floor: %s: %s\n", path, perr);
			return 2;
		}
	} else {
		FILE *fp = fopen(path, "rb");
		if (!fp) {
			fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
			return 2;
		}
		__fsetlocking(fp, FSETLOCKING_BYCALLER);  /* as input.c: no lock per fread */
		if (bufsize > 0) {
			iobuf = malloc((size_t)bufsize);
			if (iobuf)
				setvbuf(fp, iobuf, _IOFBF, (size_t)bufsize);
		}
		p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, perr);
		if (!p) {
			fprintf(stderr, "floor: %s: %s\n", path, perr);
			fclose(fp);
			free(iobuf);
			return 2;
		}
	}

	struct counts c = {0};
	struct pcapread rd;
	if (records && pcapread_open(&rd, fileno(pcap_file(p)), p)) {
		struct frame f;
		char err[256];
		int n;
		while ((n = pcapread_next(&rd, &f, pcap_file(p), err, sizeof(err))) == 1)
			count_frame(&c, f.data, f.caplen, f.wirelen, read_only);
		if (n < 0) {
			fprintf(stderr, "floor: %s: %s\n", path, err);
			pcap_close(p);
			free(iobuf);
			return 2;
		}
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1)
		count_frame(&c, data, h->caplen, h->len, read_only);
	if (rc != PCAP_ERROR_BREAK) {
		fprintf(stderr, "floor: %s: %s\n", path, pcap_geterr(p));
		pcap_close(p);
		free(iobuf);
		return 2;
	}
	pcap_close(p);  /* closes fp */
	free(iobuf);
	printf("floor: frames %" PRIu64 " bytes %" PRIu64 " roce %" PRIu64 " good %" PRIu64 " bad %" PRIu64
	       " other %" PRIu64 "\n", c.frames, c.bytes, c.roce, c.good, c.bad, c.other);
	return 0;
}
