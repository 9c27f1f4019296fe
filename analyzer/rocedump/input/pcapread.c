/* pcapread.c: the records of a capture file read into a window of memory and handed out where
 * they lie in it (see pcapread.h): the window, and classic pcap records (pcapng files' blocks:
 * pcapngread.c). Classic pcap is pcap-savefile(5): a 24-byte file header, then records of a
 * 16-byte header (seconds, microseconds or nanoseconds, captured length, length on the wire) and
 * the captured bytes.
 *
 * Why not libpcap for these records: pcap_next_ex() reads each record with two fread() calls
 * into its own buffer, a large share of rocedump -q's work on small packets. Here records are handed out where
 * they lie, and the pipeline keeps them there in its batches instead of copying them (pipeline.c).
 *
 * The window: a ring of memory (pcapread.h), where byte k of the file is read (pread(),
 * PCAPREAD_PIECE bytes at a time) to ring[k mod size] just before a record needs it, and a record
 * running over the ring's end continues past it (pcapread_get); the reading goes no further than a ring's
 * length past the oldest frame still in use (pcapread_release), and moves into a larger ring when
 * the caller keeps more. read(2) into a ring, not mmap: reading the page cache through a mapping
 * costs a page-table entry for every 4 KiB page unless the kernel cached the file in large folios
 * (a file read back from disk), and a file just written (by tcpdump, dumpcap, gencaps) sits in
 * small ones, so walking it mapped costs more per page than copying it (tests/bench measures
 * both). A ring, not a window as long as the file moved ahead with mremap: each move flushes the
 * TLB of every core, and the memory moved has gone cold.
 *
 * Reading ahead. The pipeline's threads take records one batch at a time under a lock; the
 * pread() of the bytes is most of the work on large frames, and would otherwise be done under the
 * lock. So a thread claims the next bytes (pcapread_claim_ahead, up
 * to 1 MiB at a time, up to 4 MiB past the next record) and reads them in after letting the lock
 * go, while another thread takes records from the bytes before (pipeline.c: each batch claims the
 * range its own records will lie in, so that the thread that decodes them has just read them); a
 * record that needs bytes still being read waits for them (claim_wait). A claim that cannot be
 * read (the file cut shorter) fails the record that needs it, as a read of the reader's own does.
 *
 * libpcap stays in charge of everything else. It opens the file and parses its header (the
 * filter runs in input.c, on the records of both readers). This reader takes only what it is
 * sure libpcap would hand out unchanged: a pcap 2.4 file in this machine's byte order (magic
 * a1b2c3d4 or a1b23c4d, so no byte swapping, no swapped lengths, no extended record headers), and
 * records that are whole in the file, no longer than the snapshot length nor 262,144 bytes
 * (libpcap's smallest limit for any link type), with seconds below 2^31 and a fraction of a
 * second below one second (libpcap 1.10 reads both as signed). At the first record it does not
 * take, and at the end of the bytes it set out to read (the file's size when it was opened), it
 * stops and input.c positions libpcap's stream at that record (pcapread_hand_over): libpcap reads
 * on from there, with its own checks, truncation handling and messages, and reads whatever the
 * file has grown by since. A file cut shorter while it is read, or a read that fails, stops it
 * with r->failed: input.c reports that as an input error. */
#define _GNU_SOURCE
#include "input/pcapread.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_relax.h"
#include "input/input.h"
#include "input/pcapng.h"
#include "input/pcapngread.h"

#define FILE_HDR 24
#define RECORD_HDR 16
#define MAX_TAKEN 262144u           /* libpcap's MAXIMUM_SNAPLEN */
#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du

/* A ring of size bytes (a power of two) and its margin, aligned so that it can be backed by huge
 * pages where the system allows; from: the first offset read into it. False: no memory. */
static bool ring_map(struct pcapread_ring *g, size_t size, size_t from)
{
	const size_t huge = (size_t)2 << 20;
	size_t len = size + PCAPREAD_MARGIN, span = len + huge;
	uint8_t *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);  // cppcheck-suppress invalidFunctionArg
	if (raw == MAP_FAILED)
		return false;
	uint8_t *base = raw + (huge - (uintptr_t)raw % huge) % huge;
	if (base > raw)
		munmap(raw, (size_t)(base - raw));
	if (raw + span > base + len)
		munmap(base + len, (size_t)(raw + span - (base + len)));
	(void)madvise(base, len, MADV_HUGEPAGE);  /* advice: small pages otherwise, nothing else changes */
	*g = (struct pcapread_ring){.base = base, .mask = size - 1, .from = from};
	return true;
}

static void ring_unmap(const struct pcapread_ring *g)
{
	munmap(g->base, g->mask + 1 + PCAPREAD_MARGIN);
}

/* How many of the file's bytes [at, at + n) lie in one run in ring g, before its end. */
static size_t ring_run(const struct pcapread_ring *g, size_t at, size_t n)
{
	size_t left = g->mask + 1 - (at & g->mask);
	return n < left ? n : left;
}

/* The file's bytes [at, at + n) read into ring g; false when the file ends before them (cut
 * shorter) or a read fails. */
static bool ring_read(const struct pcapread_ring *g, int fd, size_t at, size_t n)
{
	for (size_t k; n; at += k, n -= k) {
		k = ring_run(g, at, n);
		if (!pcapread_read_at(fd, g->base + (at & g->mask), k, at))
			return false;
	}
	return true;
}

/* The file's bytes [at, at + n), read into ring from, copied into ring to. */
static void ring_copy(const struct pcapread_ring *to, const struct pcapread_ring *from, size_t at, size_t n)
{
	for (size_t k; n; at += k, n -= k) {
		k = ring_run(from, at, ring_run(to, at, n));
		memcpy(to->base + (at & to->mask), from->base + (at & from->mask), k);
	}
}

/* Whether the file's bytes up to end can be read into the ring without reading over a frame in
 * use: they stay less than a ring's length past the oldest one (or the ring's first offset), so
 * that a frame's offset is known from where it lies (pcapread_release). */
static bool ring_room(const struct pcapread *r, size_t end)
{
	size_t floor = r->released > r->ring.from ? r->released : r->ring.from;
	return end - floor <= r->ring.mask;
}

/* The caller keeps frames the ring's length behind the next bytes to read: read on into a ring
 * twice as large, from the next record on (its bytes read so far copied over); the old ring and
 * the frames in it stay until pcapread_close(). False when there is no memory for it (or rings
 * have been outgrown too often): the reader then stops, and libpcap reads on. */
static bool ring_grow(struct pcapread *r)
{
	struct pcapread_ring g;
	if (r->n_retired == PCAPREAD_RETIRED || !ring_map(&g, (r->ring.mask + 1) * 2, r->pos))
		return false;
	ring_copy(&g, &r->ring, r->pos, r->filled - r->pos);  /* less than a record */
	r->retired[r->n_retired++] = r->ring;
	r->ring = g;
	return true;
}

size_t pcapread_release_elsewhere(const struct pcapread *r, const uint8_t *oldest)
{
	for (unsigned i = 0; oldest && i < r->n_retired; i++) {
		const struct pcapread_ring *g = &r->retired[i];
		if ((size_t)((uintptr_t)oldest - (uintptr_t)g->base) <= g->mask + PCAPREAD_MARGIN)
			return r->ring.from;  /* before any frame of the ring read into now */
	}
	return r->pos;  /* none in use, or not one of this reader's (libpcap's) */
}

bool pcapread_open(struct pcapread *r, int fd, pcap_t *p, struct capstats *stats)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	/* libpcap rewrites the lengths of USB frames of this link type after reading them
	 * (fixup_pcap_pkthdr): left to it */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < FILE_HDR ||
	    (uint64_t)st.st_size > SIZE_MAX / 4 || pcap_is_swapped(p) || pcap_snapshot(p) <= 0 ||
	    pcap_datalink(p) == DLT_USB_LINUX_MMAPPED)
		return false;
	r->fd = fd;
	r->len = (size_t)st.st_size;
	if (!ring_map(&r->ring, PCAPREAD_RING, 0))
		return false;
	if (!pcapread_have(r, FILE_HDR)) {
		pcapread_close(r);
		return false;
	}
	uint32_t magic = pcapread_ld32(r->ring.base);
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

bool pcapread_read_at(int fd, uint8_t *to, size_t n, size_t at)
{
	for (size_t got = 0; got < n;) {
		ssize_t k = pread(fd, to + got, n - got, (off_t)(at + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

/* The oldest claim out, which starts at r->filled, once its thread has read it in: the bytes read
 * in now reach its end. False when its read failed. */
static bool claim_wait(struct pcapread *r)
{
	struct pcapread_claim *c = &r->claims[r->claim_first];
	int state;
	for (unsigned spins = 0; (state = atomic_load_explicit(&c->state, memory_order_acquire)) == CLAIM_READING;
	     spins++) {
		if (spins < 4096)
			cpu_relax();
		else
			sched_yield();  /* the reading thread is not running: let it */
	}
	r->claim_first = (r->claim_first + 1) % PCAPREAD_CLAIMS;
	r->claim_n--;
	if (state == CLAIM_FAILED)
		return false;
	r->filled = c->at + c->n;
	return true;
}

bool pcapread_fill(struct pcapread *r, size_t end)
{
	while (!r->failed && end > r->filled && r->filled < r->len) {
		if (r->claim_n) {  /* the next bytes are another thread's to read */
			if (!claim_wait(r))
				r->failed = true;
			continue;
		}
		size_t at = r->filled, n = r->len - at < PCAPREAD_PIECE ? r->len - at : PCAPREAD_PIECE;
		if (!ring_room(r, at + n) && !ring_grow(r))
			return false;
		if (!ring_read(&r->ring, r->fd, at, n)) {  /* cut shorter since it was opened, or an I/O error */
			r->failed = true;
			return false;
		}
		r->filled = r->claimed = at + n;
	}
	return end <= r->filled;
}

struct pcapread_claim *pcapread_claim_ahead(struct pcapread *r, size_t bytes)
{
	size_t at = r->claimed > r->filled ? r->claimed : r->filled;
	bytes = bytes / PCAPREAD_PIECE * PCAPREAD_PIECE;
	if (!r->ring.base || r->failed || r->claim_n == PCAPREAD_CLAIMS || at >= r->len || at - r->pos >= PCAPREAD_AHEAD ||
	    !bytes)
		return NULL;
	size_t n = r->len - at < bytes ? r->len - at : bytes;
	if (!ring_room(r, at + n))
		return NULL;
	struct pcapread_claim *c = &r->claims[(r->claim_first + r->claim_n) % PCAPREAD_CLAIMS];
	c->at = at;
	c->n = n;
	c->ring = r->ring;
	atomic_store_explicit(&c->state, CLAIM_READING, memory_order_relaxed);
	r->claim_n++;
	r->claimed = at + n;
	return c;
}

void pcapread_read_claim(const struct pcapread *r, struct pcapread_claim *c)
{
	bool read = ring_read(&c->ring, r->fd, c->at, c->n);
	atomic_store_explicit(&c->state, read ? CLAIM_READ : CLAIM_FAILED, memory_order_release);
}

const uint8_t *pcapread_get(struct pcapread *r, size_t n)
{
	if (!pcapread_have(r, r->pos + n))
		return NULL;
	size_t o = r->pos & r->ring.mask, size = r->ring.mask + 1;  /* the ring may have grown */
	if (o + n > size)
		memcpy(r->ring.base + size, r->ring.base, o + n - size);
	return r->ring.base + o;
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

	const uint8_t *h;
	bool edge;
	if (left < RECORD_HDR || !(h = pcapread_get_head(r, RECORD_HDR, &edge)))
		return 0;
	uint32_t sec = pcapread_ld32(h), frac = pcapread_ld32(h + 4);
	uint32_t caplen = pcapread_ld32(h + 8), len = pcapread_ld32(h + 12);
	if (sec > INT32_MAX || frac >= frac_limit || caplen > r->max_caplen || caplen > left - RECORD_HDR ||
	    !(h = pcapread_get_whole(r, h, RECORD_HDR + caplen, edge)))
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

void pcapread_close(struct pcapread *r)
{
	pcapng_end(r);
	if (r->ring.base) {
		for (unsigned i = 0; i < r->n_retired; i++)
			ring_unmap(&r->retired[i]);
		ring_unmap(&r->ring);
	}
	memset(r, 0, sizeof(*r));
}
