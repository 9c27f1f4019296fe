/* input.c: capture-file input over libpcap (see input.h).
 *
 * libpcap reads files through stdio; its default buffer costs about half the read rate on large
 * files, so the FILE gets a 1 MiB buffer before libpcap sees it. Timestamps are asked for in
 * nanoseconds whatever the file holds. */
#include "input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "roce/common.h"

#define IO_BUFFER (1u << 20)

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
	if (strcmp(path, "-") == 0) {
		in->fp = stdin;
	} else {
		in->fp = fopen(path, "rb");
		if (!in->fp) {
			snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	in->iobuf = malloc(IO_BUFFER);
	if (in->iobuf)
		setvbuf(in->fp, in->iobuf, _IOFBF, IO_BUFFER);
	in->pcap = pcap_fopen_offline_with_tstamp_precision(in->fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!in->pcap) {
		snprintf(errbuf, errlen, "%s: %s", path, perr);
		if (in->fp != stdin)
			fclose(in->fp);
		in->fp = NULL;
		free(in->iobuf);
		in->iobuf = NULL;
		return -1;
	}
	in->linktype = dlt_to_linktype(pcap_datalink(in->pcap));
	if (filter && *filter) {
		struct bpf_program prog;
		if (pcap_compile(in->pcap, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
			snprintf(errbuf, errlen, "filter \"%s\": %s", filter, pcap_geterr(in->pcap));
			input_close(in);
			return -1;
		}
		int rc = pcap_setfilter(in->pcap, &prog);
		pcap_freecode(&prog);
		if (rc < 0) {
			snprintf(errbuf, errlen, "filter: %s", pcap_geterr(in->pcap));
			input_close(in);
			return -1;
		}
	}
	return 0;
}

int input_next(struct input *in, struct frame *f, char *errbuf, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(in->pcap, &h, &data);

	if (rc == 1) {
		f->data = data;
		f->caplen = h->caplen;
		f->wirelen = h->len;
		f->ts_sec = h->ts.tv_sec;
		f->ts_nsec = (uint32_t)h->ts.tv_usec;  /* nanoseconds: see pcap_fopen_offline_with_tstamp_precision */
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	snprintf(errbuf, errlen, "%s: %s", in->name, pcap_geterr(in->pcap));
	return -1;
}

void input_close(struct input *in)
{
	if (in->pcap)
		pcap_close(in->pcap);  /* closes fp too */
	else if (in->fp && in->fp != stdin)
		fclose(in->fp);
	free(in->iobuf);
	memset(in, 0, sizeof(*in));
}
