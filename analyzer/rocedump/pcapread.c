/* pcapread.c: the records of a classic pcap file read straight from its file descriptor (see
 * pcapread.h; the format is pcap-savefile(5): a 24-byte file header, then records of a 16-byte
 * header, seconds, microseconds or nanoseconds, captured length, length on the wire, and the
 * captured bytes).
 *
 * Why not libpcap for these records: pcap_next_ex() reads each record with two fread() calls
 * into its own buffer, ~400 instructions a small packet with glibc's stdio, a quarter of
 * rocedump -q's work on small packets (tests/bench/README.md). Here a window of the file is read
 * 1 MiB at a time with pread() and records are handed out where they lie in it.
 *
 * libpcap stays in charge of everything else. It opens the file and parses its header (the
 * filter runs in input.c, on the records of both readers). This reader takes only what it is sure libpcap would hand out unchanged: a pcap 2.4
 * file in this machine's byte order (magic a1b2c3d4 or a1b23c4d, so no byte swapping, no
 * swapped lengths, no extended record headers), and records that are whole in the file, no
 * longer than the snapshot length nor 262,144 bytes (libpcap's smallest limit for any link
 * type), with seconds below 2^31 and a fraction of a second below one second (libpcap 1.10 reads
 * both as signed). At the first record it does not take, at the end of the data, and on a read
 * error, it positions libpcap's stream at that record and stops: libpcap reads on from there,
 * with its own checks, truncation handling and messages. */
#define _GNU_SOURCE
#include "pcapread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"

#define WINDOW (1u << 20)           /* bytes read at a time; holds any record taken */
#define FILE_HDR 24
#define RECORD_HDR 16
#define MAX_TAKEN 262144u           /* libpcap's MAXIMUM_SNAPLEN */
#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du

_Static_assert(RECORD_HDR + MAX_TAKEN <= WINDOW, "a window holds any record taken");

static inline uint32_t ld_native32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

bool pcapread_open(struct pcapread *r, int fd, pcap_t *p)
{
	struct stat st;
	uint8_t h[FILE_HDR];

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || pcap_is_swapped(p) || pcap_major_version(p) != 2 ||
	    pcap_minor_version(p) != 4 || pcap_snapshot(p) <= 0 || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return false;
	uint32_t magic = ld_native32(h);
	if (magic != MAGIC_USEC && magic != MAGIC_NSEC)
		return false;
	r->buf = malloc(WINDOW);
	if (!r->buf)
		return false;
	r->fd = fd;
	r->nsec = magic == MAGIC_NSEC;
	uint32_t snap = (uint32_t)pcap_snapshot(p);
	r->max_caplen = snap < MAX_TAKEN ? snap : MAX_TAKEN;
	r->buf_off = FILE_HDR;
	return true;
}

/* Whether the n bytes from the next record on are in the window, reading more if need be (the
 * unread rest moves to the front first). False at the end of the file, or on a read error. */
static __attribute__((noinline)) bool have(struct pcapread *r, size_t n)
{
	if (r->len - r->pos >= n)
		return true;
	size_t rest = r->len - r->pos;
	memmove(r->buf, r->buf + r->pos, rest);
	r->buf_off += r->pos;
	r->pos = 0;
	r->len = rest;
	while (r->len < n) {
		ssize_t got = pread(r->fd, r->buf + r->len, WINDOW - r->len, (off_t)(r->buf_off + r->len));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		r->len += (size_t)got;
	}
	return true;
}

/* At the next record: libpcap's stream positioned there, this reader closed. */
static int hand_over(struct pcapread *r, FILE *fp, char *errbuf, size_t errlen)
{
	uint64_t off = r->buf_off + r->pos;
	pcapread_close(r);
	if (fseeko(fp, (off_t)off, SEEK_SET) != 0) {
		snprintf(errbuf, errlen, "seeking to byte %llu: %s", (unsigned long long)off, strerror(errno));
		return -1;
	}
	return 0;
}

int pcapread_next(struct pcapread *r, struct frame *f, FILE *fp, char *errbuf, size_t errlen)
{
	const uint32_t frac_limit = r->nsec ? 1000000000u : 1000000u;

	/* the window usually holds the whole record: have() only when it does not */
	if (r->len - r->pos < RECORD_HDR && !have(r, RECORD_HDR))
		return hand_over(r, fp, errbuf, errlen);
	const uint8_t *h = r->buf + r->pos;
	uint32_t sec = ld_native32(h), frac = ld_native32(h + 4);
	uint32_t caplen = ld_native32(h + 8), len = ld_native32(h + 12);
	if (sec > INT32_MAX || frac >= frac_limit || caplen > r->max_caplen)
		return hand_over(r, fp, errbuf, errlen);
	if (r->len - r->pos < RECORD_HDR + caplen && !have(r, RECORD_HDR + caplen))
		return hand_over(r, fp, errbuf, errlen);
	f->data = r->buf + r->pos + RECORD_HDR;  /* have() may have moved the window */
	f->caplen = caplen;
	f->wirelen = len;
	f->ts_sec = sec;
	f->ts_nsec = r->nsec ? frac : frac * 1000u;
	r->pos += RECORD_HDR + caplen;
	return 1;
}

void pcapread_close(struct pcapread *r)
{
	free(r->buf);
	r->buf = NULL;
	r->len = r->pos = 0;
	r->fd = -1;
}
