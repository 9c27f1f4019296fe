/* floor.c: the speed floor for rocedump -q (tests/bench/README.md, run-bench.sh).
 *
 *   floor [-b BYTES] [-D | -R] [-n] [-Z] FILE
 *
 * The least work a tool that checks every RoCEv2 ICRC in a capture file can do, with three ways
 * of reading the file: libpcap with its defaults (-D: the floor the speed target is
 * stated against), libpcap at its best (the default: a stdio stream with a setvbuf buffer, 1 MiB unless -b, no stream
 * lock, pcap_fopen_offline_with_tstamp_precision(NANO), pcap_next_ex), or the records read as
 * rocedump reads a plain pcap file (-R). Then it does what the bare floor (barefloor.c) does with
 * each frame (floor_icrc.h: the headers walked as far as the ICRC's span needs, the covered
 * headers masked, ISA-L crc32_gzip_refl, vzeroupper after it unless -Z). Nothing else: no
 * checksums, no decode, no events. These libpcap floors are the benchmark's INFO lines; the bare
 * floor, which reads with read() and no library, is its PASS/FAIL reference. -Z leaves the
 * vzeroupper out, to show what the SSE-AVX transition penalty after the CRC costs.
 *
 * It prints its counts on one line so the compiler cannot drop the work and so run-bench.sh can
 * check its good count against rocedump's:
 *
 *   floor: frames N bytes N roce N good N bad N other N
 *
 * -b BYTES  stdio buffer size given to setvbuf (0: leave libpcap/stdio's default)
 * -D        the bare loop with libpcap's defaults, as the speed target words the floor: libpcap
 *           opens the file itself (pcap_open_offline_with_tstamp_precision: its own fopen,
 *           stdio's 4 KiB buffer, a stream lock taken on every fread); -b is then ignored
 * -R        the records read as rocedump reads a plain pcap file: by its own reader
 *           (analyzer/rocedump/input/pcapread.c: the file read into a ring of memory, records used where
 *           they lie), libpcap reading on from the first record that reader leaves to it;
 *           a pcapng file (which rocedump reads with pcapngread.c) is read by libpcap
 * -n        read only: walk the frames and count bytes, no parse, no CRC
 * -Z        no vzeroupper after the CRC (to see what the dirty AVX-512 state costs)
 *
 * Build: by tests/bench/meson.build (needs libpcap and libisal), or by hand:
 *   cc -std=c11 -O2 -Iinclude -Ianalyzer/rocedump -o floor tests/bench/floor.c analyzer/rocedump/input/pcapread.c \
 *      -lpcap -lisal
 * Exit status: 0 ok, 2 usage or input error. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floor_icrc.h"
#include "input/input.h"     /* struct frame */
#include "input/pcapread.h"

enum { CHECK, READ_ONLY, OTHER };  /* what count_frame does beside counting: -n, not Ethernet */

/* One frame, however it was read: counted, and its ICRC checked unless read_only. */
static inline void count_frame(struct counts *c, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
			       int mode)
{
	c->frames++;
	c->bytes += wirelen;
	if (mode == CHECK)
		check_frame(c, data, caplen);
	else if (mode == OTHER)
		c->other++;
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
	int mode = read_only ? READ_ONLY : pcap_datalink(p) == DLT_EN10MB ? CHECK : OTHER;
	struct pcapread rd;
	if (records && pcapread_open(&rd, fileno(pcap_file(p)), p, NULL)) {  /* NULL: pcap files only */
		struct frame f;
		char err[256];
		while (pcapread_next(&rd, &f) == 1) {
			count_frame(&c, f.data, f.caplen, f.wirelen, mode);
			pcapread_release(&rd, NULL);  /* as rocedump: the pages behind go */
		}
		int n = pcapread_hand_over(&rd, pcap_file(p), err, sizeof(err));
		pcapread_close(&rd);
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
		count_frame(&c, data, h->caplen, h->len, mode);
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
