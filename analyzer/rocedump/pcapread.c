/* pcapread.c: the records of a capture file read straight from a read-only mapping of it (see
 * pcapread.h): the mapping, letting its pages go, and classic pcap records (pcapng files' blocks:
 * pcapngread.c). Classic pcap is pcap-savefile(5): a 24-byte file header, then records of a
 * 16-byte header (seconds, microseconds or nanoseconds, captured length, length on the wire) and
 * the captured bytes.
 *
 * Why not libpcap for these records: pcap_next_ex() reads each record with two fread() calls
 * into its own buffer, ~400 instructions a small packet with glibc's stdio, a quarter of
 * rocedump -q's work on small packets (tests/bench/README.md). Here the file is mapped and
 * records are handed out where they lie in it: no copy at all, neither the kernel's into a
 * buffer (a read() of 4 KiB frames spends as long copying as the ICRC takes to check them) nor
 * the pipeline's into its batches (pipeline.c). The pages behind the oldest frame still in use
 * are let go as the reading moves on (pcapread_release), so the memory held stays flat.
 *
 * libpcap stays in charge of everything else. It opens the file and parses its header (the
 * filter runs in input.c, on the records of both readers). This reader takes only what it is
 * sure libpcap would hand out unchanged: a pcap 2.4 file in this machine's byte order (magic
 * a1b2c3d4 or a1b23c4d, so no byte swapping, no swapped lengths, no extended record headers), and
 * records that are whole in the file, no longer than the snapshot length nor 262,144 bytes
 * (libpcap's smallest limit for any link type), with seconds below 2^31 and a fraction of a
 * second below one second (libpcap 1.10 reads both as signed). At the first record it does not
 * take, and at the end of the bytes mapped (the file's size when it was opened), it stops and
 * input.c positions libpcap's stream at that record (pcapread_hand_over): libpcap reads on from
 * there, with its own checks, truncation handling and messages, and reads whatever the file has
 * grown by since.
 *
 * A file cut shorter while it is mapped makes the pages past its new end fault (SIGBUS), as does a
 * page the disk fails to read: main.c turns that into a message and exit status 2. */
#define _GNU_SOURCE
#include "pcapread.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "pcapng.h"
#include "pcapngread.h"

#define FILE_HDR 24
#define RECORD_HDR 16
#define MAX_TAKEN 262144u           /* libpcap's MAXIMUM_SNAPLEN */
#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du

bool pcapread_open(struct pcapread *r, int fd, pcap_t *p, struct capstats *stats)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	/* libpcap rewrites the lengths of USB frames of this link type after reading them
	 * (fixup_pcap_pkthdr): left to it */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < FILE_HDR ||
	    (uint64_t)st.st_size > SIZE_MAX / 2 || pcap_is_swapped(p) || pcap_snapshot(p) <= 0 ||
	    pcap_datalink(p) == DLT_USB_LINUX_MMAPPED)
		return false;
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return false;
	r->map = map;
	r->len = (size_t)st.st_size;
	uint32_t magic = pcapread_ld32(map);
	if (magic == PCAPNG_BT_SHB) {
		r->ng = stats && pcapng_begin(r, p, stats);
		if (r->ng)
			return true;
	} else if ((magic == MAGIC_USEC || magic == MAGIC_NSEC) && pcap_major_version(p) == 2 &&
		   pcap_minor_version(p) == 4) {
		r->nsec = magic == MAGIC_NSEC;
		uint32_t snap = (uint32_t)pcap_snapshot(p);
		r->max_caplen = snap < MAX_TAKEN ? snap : MAX_TAKEN;
		r->pos = FILE_HDR;
		return true;
	}
	pcapread_close(r);
	return false;
}

int pcapread_hand_over(struct pcapread *r, FILE *fp, char *errbuf, size_t errlen)
{
	uint64_t off = r->pos;
	if (fseeko(fp, (off_t)off, SEEK_SET) != 0) {
		snprintf(errbuf, errlen, "seeking to byte %llu: %s", (unsigned long long)off, strerror(errno));
		return -1;
	}
	return 0;
}

int pcapread_next(struct pcapread *r, struct frame *f)
{
	if (r->ng)
		return pcapng_next(r, f);
	const uint32_t frac_limit = r->nsec ? 1000000000u : 1000000u;
	size_t left = r->len - r->pos;

	if (left < RECORD_HDR)
		return 0;
	const uint8_t *h = r->map + r->pos;
	uint32_t sec = pcapread_ld32(h), frac = pcapread_ld32(h + 4);
	uint32_t caplen = pcapread_ld32(h + 8), len = pcapread_ld32(h + 12);
	if (sec > INT32_MAX || frac >= frac_limit || caplen > r->max_caplen || caplen > left - RECORD_HDR)
		return 0;
	f->data = h + RECORD_HDR;
	f->caplen = caplen;
	f->wirelen = len;
	f->ts_sec = sec;
	f->ts_nsec = r->nsec ? frac : frac * 1000u;
	f->iface = 0;
	f->iface_name = "";
	r->pos += RECORD_HDR + caplen;
	return 1;
}

void pcapread_release_slow(struct pcapread *r, size_t below)
{
	static size_t page;
	if (!page) {
		long ps = sysconf(_SC_PAGESIZE);
		page = ps > 0 ? (size_t)ps : 4096;
	}
	/* below is a record's start, or its frame's data (16 bytes further in pcap, 12 or 28 in
	 * pcapng): the page of the frame's data stays */
	size_t to = (below >= RECORD_HDR ? below - RECORD_HDR : 0) & ~(page - 1);
	if (to <= r->released)
		return;
	/* the file's pages stay in the page cache; only this mapping of them goes */
	if (madvise(r->map + r->released, to - r->released, MADV_DONTNEED) == 0)
		r->released = to;
}

void pcapread_close(struct pcapread *r)
{
	pcapng_end(r);
	if (r->map)
		munmap(r->map, r->len);
	memset(r, 0, sizeof(*r));
}
