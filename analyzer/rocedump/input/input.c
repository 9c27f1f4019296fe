/* input.c: capture-file and live input over libpcap (see input.h).
 *
 * libpcap reads files through stdio, whose default buffer makes a read call every few KiB, so
 * the stream gets a 1 MiB buffer before libpcap sees it. A regular file is opened by libpcap over a plain stdio stream, and
 * its records are read by pcapread.c (classic pcap) or pcapngread.c (pcapng), from a window the
 * file is read into, for as long as those readers are sure of them; libpcap reads on from the first one
 * they leave (tests/unit/test_input.c holds the two ways to the same frames and the same end).
 * A classic pcap file's stream is positioned there. A pcapng file gets a new libpcap handle,
 * over a stdio cookie stream (fopencookie) that gives the section's header and interface blocks
 * first, then the file from that block on, so that libpcap reads on in the state it would have
 * had; every byte of the file it reads is also fed to the capstats scanner in the same pass (the
 * direct reader fed it the blocks before). Standard input, whatever it holds, and a pcapng file
 * the direct reader does not take at all, are read through that cookie stream from their start.
 * Timestamps are asked for in nanoseconds whatever the file holds.
 *
 * A pcapng file whose interfaces mix link types, which libpcap refuses, is read by pcapngread.c
 * alone, to its end; the filter is compiled once for each link type its frames come with. */
#define _GNU_SOURCE  /* fopencookie */
#include "input/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "input/merge.h"
#include "input/pcapngread.h"
#include "input/reorder.h"
#include "live/signals.h"
#include "roce/common.h"

#define IO_BUFFER (1u << 20)
/* A pipe's first bytes are waited for this long at a time between looks for a stop signal. */
#define FIRST_BYTES_POLL_MS 200
/* A pipe's read-ahead (record_ready()): its first size, and the longest record read ahead,
 * libpcap's longest (a pcapng block of a 128 MiB D-Bus frame and 128 KiB of options). */
#define AHEAD_MIN ((size_t)64 << 10)
#define AHEAD_MAX (((size_t)128 << 20) + ((size_t)256 << 10))

struct input_source {
	int fd;
	bool close_fd;            /* not for standard input */
	bool plain;               /* a stdio stream straight over fd (a regular file), not a cookie one */
	bool ng;                  /* plain, and a pcapng file */
	uint64_t bytes_read;      /* through the cookie stream: the file's offset after them */
	uint8_t *prefix;          /* bytes the cookie stream gives before the file's (reopen_at()) */
	size_t prefix_len, prefix_at;
	/* a pipe's bytes read ahead of stdio (record_ready()), given to it before the pipe's next */
	uint8_t *ahead;
	size_t ahead_len, ahead_at, ahead_cap;
	struct capstats stats;
};

static ssize_t source_read(void *cookie, char *buf, size_t size)
{
	struct input_source *src = cookie;
	if (src->prefix_at < src->prefix_len) {  /* not the file's: not shown to capstats */
		size_t n = src->prefix_len - src->prefix_at < size ? src->prefix_len - src->prefix_at : size;
		memcpy(buf, src->prefix + src->prefix_at, n);
		src->prefix_at += n;
		src->bytes_read += n;
		return (ssize_t)n;
	}
	if (src->ahead_at < src->ahead_len) {  /* the file's, read ahead: shown to capstats now */
		size_t n = src->ahead_len - src->ahead_at < size ? src->ahead_len - src->ahead_at : size;
		memcpy(buf, src->ahead + src->ahead_at, n);
		capstats_feed(&src->stats, src->ahead + src->ahead_at, n);
		src->ahead_at += n;
		src->bytes_read += n;
		return (ssize_t)n;
	}
	ssize_t n;
	do
		n = read(src->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		capstats_feed(&src->stats, (const uint8_t *)buf, (size_t)n);
		src->bytes_read += (uint64_t)n;
	}
	return n;
}

static int source_close(void *cookie)
{
	struct input_source *src = cookie;
	return src->close_fd ? close(src->fd) : 0;
}

/* A stdio stream over src that shows capstats what it reads, and has it queue the packet blocks'
 * interfaces (out of memory: the frames' interfaces are not known). */
static FILE *cookie_stream(struct input_source *src)
{
	static const cookie_io_functions_t io = {.read = source_read, .close = source_close};
	if (!src->stats.track)
		capstats_track_packets(&src->stats);
	return fopencookie(src, "r", io);
}

/* A descriptor of path, open for reading. A FIFO is opened without waiting for a writer (open()
 * would wait, and a signal would only restart it), then its reads block as any file's. -1 with
 * errno on failure. */
static int open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A file that is not regular (a pipe, a FIFO, a terminal): wait until it has bytes to read or its
 * writer is gone, so that libpcap's read of its header does not wait where no signal reaches it.
 * 0; -1 when a stop signal (signals.h) came first. */
static int wait_first_bytes(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	while (!signals_stop()) {
		int rc = poll(&pfd, 1, FIRST_BYTES_POLL_MS);  /* a signal cuts it short, a timeout closes the race */
		if (rc > 0 || (rc < 0 && errno != EINTR))
			return 0;  /* readable, the writer gone, or cannot tell: libpcap reads */
	}
	return -1;
}

/* A read-only stdio stream over path ("-": standard input); *out receives the drop counts'
 * scanner, which the caller frees after closing the stream. */
static FILE *open_source(const char *path, struct input_source **out, char *errbuf, size_t errlen)
{
	struct input_source *src = calloc(1, sizeof(*src));
	if (!src) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	capstats_init(&src->stats);
	FILE *fp = NULL;
	bool is_stdin = strcmp(path, "-") == 0;
	if (is_stdin) {
		src->fd = STDIN_FILENO;
	} else {
		src->fd = open_path(path);
		if (src->fd < 0) {
			snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
			free(src);
			return NULL;
		}
		src->close_fd = true;
	}
	if (wait_first_bytes(src->fd) < 0) {
		snprintf(errbuf, errlen, "%s: stopped before any data came", path);
		source_close(src);
		capstats_free(&src->stats);
		free(src);
		return NULL;
	}
	if (!is_stdin) {
		uint8_t head[8];  /* the magic number, or a pcapng block's type and length */
		if (pread(src->fd, head, sizeof(head), 0) == (ssize_t)sizeof(head)) {
			/* pcapng: fed by pcapngread.c, or through a cookie stream (reopen_at()) */
			src->ng = memcmp(head, "\x0a\x0d\x0d\x0a", 4) == 0;
			if (!src->ng)
				capstats_feed(&src->stats, head, sizeof(head));  /* pcap (or garbage): done */
			fp = fdopen(src->fd, "rb");
			src->plain = fp != NULL;
		}
	}
	if (!fp)
		fp = cookie_stream(src);
	if (!fp) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		source_close(src);
		capstats_free(&src->stats);
		free(src);
		return NULL;
	}
	*out = src;
	return fp;
}

/* The DLT_* value libpcap speaks for a LINKTYPE_* number (dlt_to_linktype() undone). */
static int linktype_to_dlt(unsigned linktype)
{
	return linktype == ROCE_LINK_RAW ? DLT_RAW : (int)linktype;
}

/* libpcap hands out DLT_* values; the core speaks LINKTYPE_* (they differ for raw IP). */
static unsigned dlt_to_linktype(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB: return ROCE_LINK_ETHERNET;
	case DLT_RAW: return ROCE_LINK_RAW;
	default: return (unsigned)dlt;  /* the same number: LINUX_SLL 113, IPV4 228, IPV6 229, LINUX_SLL2 276 */
	}
}

/* libpcap reads on from byte `at` of the file, after prefix[0 .. prefix_len) (taken over: freed
 * with the input), through a cookie stream that shows capstats the file's bytes: a new handle
 * in place of the one that opened the file over a plain stream. The link type stays. */
static int reopen_at(struct input *in, uint64_t at, uint8_t *prefix, size_t prefix_len, char *errbuf,
		     size_t errlen)
{
	struct input_source *src = in->source;
	char perr[PCAP_ERRBUF_SIZE] = "";
	int fd = dup(src->fd);  /* the plain stream's fd goes with it */
	if (fd < 0) {
		free(prefix);
		snprintf(errbuf, errlen, "%s: %s", in->name, strerror(errno));
		return -1;
	}
	pcap_close(in->pcap);
	in->pcap = NULL;
	src->fd = fd;
	src->close_fd = true;
	src->plain = false;
	src->prefix = prefix;
	src->prefix_len = prefix_len;
	src->prefix_at = 0;
	src->bytes_read = at - prefix_len;  /* the prefix's bytes stand for the file's before `at` */
	in->fp = lseek(fd, (off_t)at, SEEK_SET) < 0 ? NULL : cookie_stream(src);
	if (!in->fp) {
		snprintf(errbuf, errlen, "%s: %s", in->name, strerror(errno));
		close(fd);
		return -1;
	}
	__fsetlocking(in->fp, FSETLOCKING_BYCALLER);
	if (in->iobuf)
		setvbuf(in->fp, in->iobuf, _IOFBF, IO_BUFFER);
	in->pcap = pcap_fopen_offline_with_tstamp_precision(in->fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!in->pcap) {
		snprintf(errbuf, errlen, "%s: %s", in->name, perr);
		return -1;  /* in->fp stays, closed by input_close() */
	}
	if (dlt_to_linktype(pcap_datalink(in->pcap)) != in->linktype) {  /* cannot be: the same first blocks */
		snprintf(errbuf, errlen, "%s: the link type changed on reading it again", in->name);
		return -1;
	}
	return 0;
}

int input_open_file(struct input *in, const char *path, const char *filter, char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";

	memset(in, 0, sizeof(*in));
	in->name = path;
	in->fp = open_source(path, &in->source, errbuf, errlen);
	if (!in->fp)
		return -1;
	/* One thread at a time reads the stream (the pipeline's read lock orders them): no lock per
	 * fread. glibc otherwise takes one with a locked instruction on every call (__fread_chk:
	 * ~25 % of rocedump -q on small frames). */
	__fsetlocking(in->fp, FSETLOCKING_BYCALLER);
	in->iobuf = malloc(IO_BUFFER);
	if (in->iobuf)
		setvbuf(in->fp, in->iobuf, _IOFBF, IO_BUFFER);
	in->pcap = pcap_fopen_offline_with_tstamp_precision(in->fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!in->pcap) {
		snprintf(errbuf, errlen, "%s: %s", path, perr);
		input_close(in);
		return -1;
	}
	in->linktype = dlt_to_linktype(pcap_datalink(in->pcap));
	in->filter_text = filter;
	if (filter && *filter) {
		if (pcap_compile(in->pcap, &in->filter, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
			snprintf(errbuf, errlen, "filter \"%s\": %s", filter, pcap_geterr(in->pcap));
			input_close(in);
			return -1;
		}
		in->source->stats.filtered = true;
	}
	if (in->source->plain) {
		in->direct = pcapread_open(&in->records, in->source->fd, in->pcap, &in->source->stats);
		/* a pcapng file pcapread.c does not take: libpcap reads it all, and shows it to capstats */
		if (!in->direct && in->source->ng && reopen_at(in, 0, NULL, 0, errbuf, errlen) < 0) {
			input_close(in);
			return -1;
		}
	}
	struct stat st;
	if (fstat(in->source->fd, &st) == 0 && S_ISREG(st.st_mode))
		in->size = (uint64_t)st.st_size;
	else
		in->poll = true;
	in->nano = true;
	return 0;
}

/* Live: compile filter and hand it to the kernel (net: the interface's netmask, for "ip
 * broadcast"); frames come already filtered. */
static int set_live_filter(struct input *in, const char *filter, bpf_u_int32 net, char *errbuf, size_t errlen)
{
	if (!filter || !*filter)
		return 0;
	if (pcap_compile(in->pcap, &in->filter, filter, 1, net) < 0) {
		snprintf(errbuf, errlen, "filter \"%s\": %s", filter, pcap_geterr(in->pcap));
		return -1;
	}
	if (pcap_setfilter(in->pcap, &in->filter) < 0) {
		snprintf(errbuf, errlen, "filter: %s", pcap_geterr(in->pcap));
		return -1;
	}
	in->source->stats.filtered = true;
	return 0;
}

int input_open_live(struct input *in, const struct live_config *cfg, const char *filter, char *errbuf,
		    size_t errlen)
{
	memset(in, 0, sizeof(*in));
	errbuf[0] = '\0';
	in->name = cfg->device;
	in->live = in->poll = true;
	in->source = calloc(1, sizeof(*in->source));
	if (!in->source) {
		snprintf(errbuf, errlen, "out of memory");
		return -1;
	}
	capstats_set_live(&in->source->stats, 0, 0, 0);
	in->pcap = live_open(cfg, &in->nano, errbuf, errlen);
	if (!in->pcap) {
		input_close(in);
		return -1;
	}
	in->source->fd = pcap_get_selectable_fd(in->pcap);
	in->linktype = dlt_to_linktype(pcap_datalink(in->pcap));
	char perr[PCAP_ERRBUF_SIZE];
	bpf_u_int32 net = 0, mask = PCAP_NETMASK_UNKNOWN;
	if (strcmp(cfg->device, "any") == 0 || pcap_lookupnet(cfg->device, &net, &mask, perr) < 0)
		mask = PCAP_NETMASK_UNKNOWN;
	if (set_live_filter(in, filter, mask, errbuf, errlen) < 0 || pcap_setnonblock(in->pcap, 1, perr) < 0) {
		if (!*errbuf)
			snprintf(errbuf, errlen, "%s: %s", cfg->device, perr);
		input_close(in);
		return -1;
	}
	return 0;
}

/* The bytes stdio holds of fp, not yet read by libpcap. */
static size_t stdio_buffered(FILE *fp)
{
	return (size_t)(fp->_IO_read_end - fp->_IO_read_ptr);
}

/* The bytes libpcap can read without waiting: stdio's, then those read ahead. */
static size_t bytes_held(const struct input *in)
{
	return stdio_buffered(in->fp) + (in->source->ahead_len - in->source->ahead_at);
}

/* The first n of the bytes held (bytes_held() at least n) copied to out. */
static void peek_held(const struct input *in, uint8_t *out, size_t n)
{
	const struct input_source *src = in->source;
	size_t b = stdio_buffered(in->fp) < n ? stdio_buffered(in->fp) : n;
	if (b)
		memcpy(out, in->fp->_IO_read_ptr, b);
	if (n > b)
		memcpy(out + b, src->ahead + src->ahead_at, n - b);
}

/* Up to want more bytes of the pipe read ahead, of those it holds now (no waiting): the pipe
 * emptied, its writer can write on. -1 when the pipe cannot say what it holds, the read fails or
 * memory is short. */
static int read_ahead(struct input_source *src, size_t want)
{
	int avail = 0;
	if (ioctl(src->fd, FIONREAD, &avail) < 0)
		return -1;
	size_t n = (size_t)avail < want ? (size_t)avail : want;
	if (n == 0)
		return 0;
	if (src->ahead_at) {  /* what stdio took is dropped */
		memmove(src->ahead, src->ahead + src->ahead_at, src->ahead_len - src->ahead_at);
		src->ahead_len -= src->ahead_at;
		src->ahead_at = 0;
	}
	if (src->ahead_len + n > src->ahead_cap) {
		size_t cap = src->ahead_cap ? src->ahead_cap : AHEAD_MIN;
		while (cap < src->ahead_len + n)
			cap *= 2;
		uint8_t *p = realloc(src->ahead, cap);
		if (!p)
			return -1;
		src->ahead = p;
		src->ahead_cap = cap;
	}
	ssize_t r;
	do
		r = read(src->fd, src->ahead + src->ahead_len, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	src->ahead_len += (size_t)r;
	return 0;
}

/* Whether the held bytes and the pipe's reach need (the pipe's read ahead as far as need): -1
 * when the pipe cannot be read ahead. */
static int held_reach(struct input *in, size_t need)
{
	if (bytes_held(in) < need && read_ahead(in->source, need - bytes_held(in)) < 0)
		return -1;
	return bytes_held(in) >= need;
}

/* A file that is not regular (a pipe): whether a complete record (or the end of the data) can
 * be read without waiting. The record's length comes from its header (pcap: 16 bytes, the
 * captured length at 8; pcapng: the block's length at 4). What the pipe holds is read ahead up to
 * the record's end (read_ahead): a record longer than the pipe holds comes whole, where its
 * writer, held on the full pipe, would otherwise wait for it to be read, for ever. */
static bool record_ready(struct input *in)
{
	bool pcapng = in->source->stats.format == CAPSTATS_PCAPNG;
	size_t hdr = pcapng ? 8 : 16;
	int rc = held_reach(in, hdr);
	if (rc > 0) {
		uint8_t h[16];
		uint32_t v;
		peek_held(in, h, hdr);
		memcpy(&v, h + (pcapng ? 4 : 8), 4);
		if (pcap_is_swapped(in->pcap))
			v = __builtin_bswap32(v);
		size_t need = pcapng ? v : hdr + (size_t)v;
		if (need <= hdr || need > AHEAD_MAX)
			return true;  /* libpcap reads it as it comes, or refuses it */
		rc = held_reach(in, need);
	}
	if (rc != 0)
		return true;  /* the whole record, or cannot tell: read */
	struct pollfd pfd = {.fd = in->source->fd, .events = POLLIN};
	int avail = 0;
	if (poll(&pfd, 1, 0) < 0 || ioctl(in->source->fd, FIONREAD, &avail) < 0)
		return false;
	/* the writer is gone (the end, or a record cut short: libpcap says which), or readable
	 * with nothing to read: the end */
	return (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) || ((pfd.revents & POLLIN) && avail == 0);
}

void input_wait(struct input *in, int timeout_ms, int wake_fd)
{
	if (in->merge && in->live) {
		merge_wait_live(in->merge, timeout_ms, wake_fd);
		return;
	}
	if (in->merge)
		in = merge_waiting(in->merge);  /* the file whose next frame the merge waits for */
	if (!in->source)
		return;
	int avail = 0;
	if (!in->live && ioctl(in->source->fd, FIONREAD, &avail) == 0 && avail > 0) {
		/* part of a record is there: poll() would not wait for the rest */
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
		return;
	}
	struct pollfd pfd[2] = {{.fd = in->source->fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
	poll(pfd, wake_fd >= 0 ? 2 : 1, timeout_ms);
}

/* pcapread.c stopped at in->records.pos: libpcap reads on from there. A pcapng file of several
 * link types, which libpcap does not read, ends there: 1 at its end, -1 before it. */
static int hand_over(struct input *in, char *errbuf, size_t errlen)
{
	if (!in->records.failed && in->records.ng && pcapng_mixed(&in->records)) {
		in->at_end = true;
		if (in->records.pos == in->records.len) {
			in->source->stats.complete = true;
			return 1;
		}
		snprintf(errbuf, errlen,
			 "%s: the block at byte %zu cannot be read (the file's interfaces have several link types, which libpcap does not read)",
			 in->name, in->records.pos);
		return -1;
	}
	uint8_t *prefix = NULL;
	size_t n = in->records.ng && !in->records.failed ? pcapng_prefix(&in->records, &prefix) : 0;
	if (in->records.failed) {
		snprintf(errbuf, errlen, "%s: part of the file could not be read (cut shorter while being read, or an I/O error)",
			 in->name);
		return -1;
	}
	if (in->records.ng) {
		if (!prefix) {
			snprintf(errbuf, errlen, "%s: out of memory", in->name);
			return -1;
		}
		return reopen_at(in, in->records.pos, prefix, n, errbuf, errlen);
	}
	char err[256];
	if (pcapread_hand_over(&in->records, in->fp, err, sizeof(err)) < 0) {
		snprintf(errbuf, errlen, "%s: %s", in->name, err);
		return -1;
	}
	return 0;
}

/* A frame of the file's first link type, with nothing for -w but its bytes and time. */
static inline void plain_frame(const struct input *in, struct frame *f)
{
	f->linktype = in->linktype;
	f->ifdesc = NULL;
	f->opts = NULL;
	f->opts_len = 0;
}

/* The next record of the file, whatever the filter says (inlined: a call more per frame cost
 * 30 instructions, 2.5 % of rocedump -q on small frames). */
static inline __attribute__((always_inline)) int next_record(struct input *in, struct frame *f, char *errbuf,
							   size_t errlen)
{
	if (in->direct) {
		if (pcapread_next(&in->records, f) == 1) {
			if (!in->records.ng)
				plain_frame(in, f);
			return 1;
		}
		in->direct = false;
		int rc = hand_over(in, errbuf, errlen);
		if (rc)
			return rc < 0 ? -1 : 0;
	}
	if (in->at_end)
		return 0;
	if (!in->pcap) {  /* the hand-over failed, and the caller read on */
		snprintf(errbuf, errlen, "%s: cannot be read further", in->name);
		return -1;
	}
	if (in->poll && !in->live && !record_ready(in))
		return INPUT_AGAIN;
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(in->pcap, &h, &data);

	if (rc == 1) {
		f->data = data;
		f->caplen = h->caplen;
		f->wirelen = h->len;
		/* nanoseconds (pcap_fopen_offline_with_tstamp_precision), which a record may give as a
		 * second or more: carried into the seconds */
		uint32_t ns = in->nano ? (uint32_t)h->ts.tv_usec : (uint32_t)h->ts.tv_usec * 1000u;
		f->ts_sec = h->ts.tv_sec;
		f->ts_nsec = ns;
		if (ns >= 1000000000u) {
			f->ts_sec = (int64_t)((uint64_t)f->ts_sec + ns / 1000000000u);
			f->ts_nsec = ns % 1000000000u;
		}
		plain_frame(in, f);
		const struct capstats *cs = &in->source->stats;
		f->iface = capstats_packet_iface(&in->source->stats, data, h->caplen, h->len);
		f->ifdesc = f->iface ? capstats_iface_desc(cs, f->iface) : NULL;
		f->iface_name = f->ifdesc ? f->ifdesc->name : "";
		if (f->ifdesc) {
			f->ts_raw = cs->taken_ts;
			f->opts = cs->taken_opts.bytes;
			f->opts_len = cs->taken_opts.len;
		}
		return 1;
	}
	if (rc == 0)  /* live, non-blocking: nothing yet */
		return INPUT_AGAIN;
	if (rc == PCAP_ERROR_BREAK) {
		if (!in->live)
			in->source->stats.complete = true;
		return 0;
	}
	snprintf(errbuf, errlen, "%s: %s", in->name, pcap_geterr(in->pcap));
	return -1;
}

/* The filter compiled for frames of linktype (not the first interface's), compiled at its first
 * frame; NULL with a message when it cannot be. */
static const struct bpf_program *filter_for(struct input *in, unsigned linktype, char *errbuf, size_t errlen)
{
	for (unsigned i = 0; i < in->n_more; i++)
		if (in->more[i].linktype == linktype)
			return &in->more[i].prog;
	if (in->n_more == INPUT_LINKTYPES) {
		snprintf(errbuf, errlen, "%s: filter \"%s\": interfaces of more than %d link types", in->name,
			 in->filter_text, INPUT_LINKTYPES + 1);
		return NULL;
	}
	pcap_t *dead = pcap_open_dead(linktype_to_dlt(linktype), pcap_snapshot(in->pcap));
	struct bpf_program *prog = &in->more[in->n_more].prog;
	if (!dead || pcap_compile(dead, prog, in->filter_text, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(errbuf, errlen, "filter \"%s\" for link type %s: %s", in->filter_text,
			 pcap_datalink_val_to_name(linktype_to_dlt(linktype)) ? pcap_datalink_val_to_name(linktype_to_dlt(linktype)) : "?",
			 dead ? pcap_geterr(dead) : "out of memory");
		if (dead)
			pcap_close(dead);
		return NULL;
	}
	pcap_close(dead);
	in->more[in->n_more++].linktype = linktype;
	return prog;
}

/* Whether frame f of the file passes the filter: 1 yes, 0 no, -1 an error (message in errbuf). */
static inline int passes(struct input *in, const struct frame *f, char *errbuf, size_t errlen)
{
	if (!in->filter.bf_insns || in->live)
		return 1;
	const struct bpf_program *prog = f->linktype == in->linktype ? &in->filter : filter_for(in, f->linktype, errbuf, errlen);
	if (!prog)
		return -1;
	struct pcap_pkthdr ph = {.caplen = f->caplen, .len = f->wirelen};
	return pcap_offline_filter(prog, &ph, f->data) ? 1 : 0;
}

int input_read_record(struct input *in, struct frame *f, char *errbuf, size_t errlen)
{
	if (in->records.ring.base)
		pcapread_release(&in->records, NULL);  /* the records held are copies */
	int rc = next_record(in, f, errbuf, errlen);
	if (rc == 1)
		f->number = ++in->records_read;
	return rc;
}

void input_count_reorder_overflow(struct input *in)
{
	in->source->stats.reorder_overflow++;
}

/* The next record with its number (input_next()'s results), whatever the filter says; in time
 * order once the file shows several interfaces (reorder.c). A file of one interface pays one
 * comparison per record for it. */
static inline __attribute__((always_inline)) int numbered_record(struct input *in, struct frame *f, char *errbuf,
								 size_t errlen)
{
	if (__builtin_expect(in->reorder != NULL, 0))
		return reorder_next(in->reorder, f, errbuf, errlen);
	int rc = next_record(in, f, errbuf, errlen);
	if (rc == 1) {
		f->number = ++in->records_read;
		if (__builtin_expect(f->iface != in->first_iface, 0) && reorder_wanted(in, f))
			return reorder_start(in, f, errbuf, errlen);
	}
	return rc;
}

int input_next_record(struct input *in, struct frame *f, char *errbuf, size_t errlen)
{
	return numbered_record(in, f, errbuf, errlen);
}

int input_filter(struct input *in, const struct frame *f, char *errbuf, size_t errlen)
{
	return passes(in, f, errbuf, errlen);
}

/* The filter runs here, on every record, rather than in libpcap's reader, so that the records it
 * rejects are counted too: f->number is the record's place in the file, as tshark's
 * frame.number. Live, the kernel has run it: the number counts the frames captured. */
int input_next(struct input *in, struct frame *f, char *errbuf, size_t errlen)
{
	if (__builtin_expect(in->merge != NULL, 0))
		return merge_next(in->merge, f, errbuf, errlen);
	for (;;) {
		int rc = numbered_record(in, f, errbuf, errlen);
		if (rc != 1)
			return rc;
		rc = passes(in, f, errbuf, errlen);
		if (rc)
			return rc;
	}
}

/* The growth of a 32-bit kernel count since it was last seen, added to its 64-bit total. */
static void widen(uint64_t *total, uint32_t *last, u_int now)
{
	*total += (uint32_t)((uint32_t)now - *last);
	*last = (uint32_t)now;
}

void input_update_stats(struct input *in)
{
	struct pcap_stat ps;
	if (in->merge && in->live) {
		merge_update_live(in->merge, in);
		return;
	}
	if (!in->live || pcap_stats(in->pcap, &ps) < 0)
		return;
	widen(&in->recv, &in->last_recv, ps.ps_recv);
	widen(&in->drop, &in->last_drop, ps.ps_drop);
	widen(&in->ifdrop, &in->last_ifdrop, ps.ps_ifdrop);
	capstats_set_live(&in->source->stats, in->recv, in->drop, in->ifdrop);
}

uint64_t input_offset(const struct input *in)
{
	if (in->merge)
		return merge_offset(in->merge);
	if (!in->source || in->live)
		return 0;
	if (in->direct)
		return in->records.pos;
	if (in->source->plain) {
		off_t off = ftello(in->fp);
		return off < 0 ? 0 : (uint64_t)off;
	}
	return in->source->bytes_read - stdio_buffered(in->fp);
}

const struct input *input_part(const struct input *in, unsigned i)
{
	if (in->merge)
		return merge_part(in->merge, i);
	return i == 0 ? in : NULL;
}

void input_close(struct input *in)
{
	merge_close(in->merge);
	reorder_free(in->reorder);
	pcapread_close(&in->records);
	pcap_freecode(&in->filter);  /* none compiled: nothing to free */
	for (unsigned i = 0; i < in->n_more; i++)
		pcap_freecode(&in->more[i].prog);
	if (in->pcap)
		pcap_close(in->pcap);  /* closes fp too */
	else if (in->fp)
		fclose(in->fp);
	if (in->source) {
		capstats_free(&in->source->stats);
		free(in->source->prefix);
		free(in->source->ahead);
	}
	free(in->source);
	free(in->iobuf);
	memset(in, 0, sizeof(*in));
}

void input_stopped_early(struct input *in)
{
	if (in->merge)
		merge_stopped_early(in->merge);
	else if (!in->live)
		in->source->stats.complete = false;
}

const struct capstats *input_capstats(const struct input *in)
{
	if (in->merge)
		return merge_capstats(in->merge);
	return &in->source->stats;
}
