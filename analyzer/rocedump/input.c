/* input.c: capture-file input over libpcap (see input.h).
 *
 * libpcap reads files through stdio; with glibc's default buffer the read and ICRC loop was
 * 10-15 % slower on a 1 GB file (tests/bench/README.md), so the stream gets a 1 MiB buffer
 * before libpcap sees it. A pcapng file (or standard
 * input, whatever it holds) is read through a stdio cookie stream (fopencookie) over the file
 * descriptor, so that every byte libpcap reads is also fed to the capstats scanner in the same
 * pass. A classic pcap file, which records no drops, gets a plain stdio stream: glibc's cookie
 * streams copy small reads through a generic loop, 3 % more instructions on small packets.
 * Its records are read by pcapread.c, straight from the file, for as long as that reader is sure
 * of them; libpcap reads on from the first one it leaves (tests/unit/test_input.c holds the two
 * ways to the same frames and the same end). Timestamps are asked for in nanoseconds whatever the
 * file holds. */
#define _GNU_SOURCE  /* fopencookie */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "roce/common.h"

#define IO_BUFFER (1u << 20)

struct input_source {
	int fd;
	bool close_fd;            /* not for standard input */
	bool plain;               /* a stdio stream straight over fd (a pcap file), not a cookie one */
	struct capstats stats;
};

static ssize_t source_read(void *cookie, char *buf, size_t size)
{
	struct input_source *src = cookie;
	ssize_t n;
	do
		n = read(src->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		capstats_feed(&src->stats, (const uint8_t *)buf, (size_t)n);
	return n;
}

static int source_close(void *cookie)
{
	struct input_source *src = cookie;
	return src->close_fd ? close(src->fd) : 0;
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
	if (strcmp(path, "-") == 0) {
		src->fd = STDIN_FILENO;
	} else {
		src->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (src->fd < 0) {
			snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
			free(src);
			return NULL;
		}
		src->close_fd = true;
		uint8_t head[8];  /* the magic number, or a pcapng block's type and length */
		if (pread(src->fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
		    memcmp(head, "\x0a\x0d\x0d\x0a", 4) != 0) {
			capstats_feed(&src->stats, head, sizeof(head));  /* pcap (or garbage): done */
			fp = fdopen(src->fd, "rb");
			src->plain = fp != NULL;
		}
	}
	if (!fp) {
		static const cookie_io_functions_t io = {.read = source_read, .close = source_close};
		capstats_track_packets(&src->stats);  /* out of memory: frames' interfaces unknown */
		fp = fopencookie(src, "r", io);
	}
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

/* libpcap hands out DLT_* values; the core speaks LINKTYPE_* (they differ for raw IP). */
static unsigned dlt_to_linktype(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB: return ROCE_LINK_ETHERNET;
	case DLT_RAW: return ROCE_LINK_RAW;
	default: return (unsigned)dlt;  /* the same number: LINUX_SLL 113, IPV4 228, IPV6 229, LINUX_SLL2 276 */
	}
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
	if (filter && *filter) {
		if (pcap_compile(in->pcap, &in->filter, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
			snprintf(errbuf, errlen, "filter \"%s\": %s", filter, pcap_geterr(in->pcap));
			input_close(in);
			return -1;
		}
		if (pcap_setfilter(in->pcap, &in->filter) < 0) {
			snprintf(errbuf, errlen, "filter: %s", pcap_geterr(in->pcap));
			input_close(in);
			return -1;
		}
	}
	if (in->source->plain)
		in->direct = pcapread_open(&in->records, in->source->fd, in->pcap, in->filter.bf_insns ? &in->filter : NULL);
	return 0;
}

int input_next(struct input *in, struct frame *f, char *errbuf, size_t errlen)
{
	if (in->direct) {
		char err[256];
		int rc = pcapread_next(&in->records, f, in->fp, err, sizeof(err));
		if (rc == 1) {
			f->iface = 0;
			f->iface_name = "";
			return 1;
		}
		in->direct = false;  /* libpcap reads on */
		if (rc < 0) {
			snprintf(errbuf, errlen, "%s: %s", in->name, err);
			return -1;
		}
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(in->pcap, &h, &data);

	if (rc == 1) {
		f->data = data;
		f->caplen = h->caplen;
		f->wirelen = h->len;
		/* nanoseconds (pcap_fopen_offline_with_tstamp_precision), which a record may give as a
		 * second or more: carried into the seconds */
		uint32_t ns = (uint32_t)h->ts.tv_usec;
		f->ts_sec = h->ts.tv_sec;
		f->ts_nsec = ns;
		if (ns >= 1000000000u) {
			f->ts_sec = (int64_t)((uint64_t)f->ts_sec + ns / 1000000000u);
			f->ts_nsec = ns % 1000000000u;
		}
		f->iface = capstats_packet_iface(&in->source->stats, data, h->caplen, h->len);
		f->iface_name = capstats_iface_name(&in->source->stats, f->iface);
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK) {
		in->source->stats.complete = true;
		return 0;
	}
	snprintf(errbuf, errlen, "%s: %s", in->name, pcap_geterr(in->pcap));
	return -1;
}

void input_close(struct input *in)
{
	pcapread_close(&in->records);
	pcap_freecode(&in->filter);  /* none compiled: nothing to free */
	if (in->pcap)
		pcap_close(in->pcap);  /* closes fp too */
	else if (in->fp)
		fclose(in->fp);
	if (in->source)
		capstats_free(&in->source->stats);
	free(in->source);
	free(in->iobuf);
	memset(in, 0, sizeof(*in));
}

void input_stopped_early(struct input *in)
{
	in->source->stats.complete = false;
}

const struct capstats *input_capstats(const struct input *in)
{
	return &in->source->stats;
}
