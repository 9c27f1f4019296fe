/* fuzz_input.c: rocedump's capture input (analyzer/rocedump/input/input.c with its direct readers
 * pcapread.c and pcapngread.c) as a differential fuzz target. Input: a capture file's bytes,
 * pcap or pcapng. The file (a memfd, so a regular file that maps) is read three ways: by
 * input.c, which lets the direct readers take what they are sure of; by pcap_next_ex() on a fresh
 * libpcap handle; and by input.c from standard input open on it, which no direct reader takes.
 * The first two must hand out the same frames (bytes, lengths, time stamps, numbers) and end the
 * same way (the end, or the same message); the first and third must also give each frame the
 * same interface and name, and find the same drop counts (a file whose interfaces mix link
 * types, which libpcap refuses, is only read by input.c). A fourth reading by input.c in time
 * order (reorder.c: a file of several interfaces) must hand out the same frames, perhaps in
 * another order, and end the same way. Any difference aborts. Under libFuzzer
 * with -Dfuzzing_engine=libfuzzer; otherwise fuzz_input_replay runs it over the project's pcapng
 * captures with deterministic mutations (replay_files.c). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "input/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct digest {
	uint64_t frames, sum, ifaces;  /* sums over the frames, position-weighted */
	uint64_t set;                  /* a sum over the frames that their order does not change */
	int end;                       /* 0: end of file, -1: error, 2: not opened */
	char err[INPUT_ERRLEN];
	char drops[512];
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211u;
}

static uint64_t frame_sum(uint64_t h, const uint8_t *p, uint32_t caplen, uint32_t wirelen, int64_t sec, uint32_t ns,
			  uint64_t number)
{
	h = mix(mix(mix(mix(mix(h, caplen), wirelen), (uint64_t)sec), ns), number);
	for (uint32_t i = 0; i < caplen; i++)
		h = mix(h, p[i]);
	return h;
}

/* Through input.c, from path or standard input ("-"), in the file's order or in time order. */
static void read_input(const char *path, bool time_order, struct digest *d)
{
	struct input in;
	struct frame f;
	memset(d, 0, sizeof(*d));
	d->end = 2;
	if (input_open_file(&in, path, NULL, d->err, sizeof(d->err)) < 0)
		return;
	in.file_order = !time_order;  /* else the readers' order, as libpcap's */
	int rc;
	while ((rc = input_next(&in, &f, d->err, sizeof(d->err))) == 1) {
		d->frames++;
		d->sum = frame_sum(d->sum, f.data, f.caplen, f.wirelen, f.ts_sec, f.ts_nsec, f.number);
		d->set += frame_sum(f.iface, f.data, f.caplen, f.wirelen, f.ts_sec, f.ts_nsec, f.number);
		d->ifaces = mix(d->ifaces, f.iface);
		for (const char *c = f.iface_name; *c; c++)
			d->ifaces = mix(d->ifaces, (uint8_t)*c);
	}
	d->end = rc < 0 ? -1 : 0;
	if (rc >= 0)
		d->err[0] = 0;
	capstats_describe(input_capstats(&in), d->drops, sizeof(d->drops));
	input_close(&in);
}

/* Through libpcap alone, time stamps as input.c turns them into seconds and nanoseconds. */
static void read_libpcap(const char *path, struct digest *d)
{
	char perr[PCAP_ERRBUF_SIZE];
	memset(d, 0, sizeof(*d));
	d->end = 2;
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!p)
		return;
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint32_t ns = (uint32_t)h->ts.tv_usec;
		int64_t sec = h->ts.tv_sec;
		if (ns >= 1000000000u) {
			sec = (int64_t)((uint64_t)sec + ns / 1000000000u);
			ns %= 1000000000u;
		}
		d->frames++;
		d->sum = frame_sum(d->sum, data, h->caplen, h->len, sec, ns, d->frames);
	}
	d->end = rc == PCAP_ERROR_BREAK ? 0 : -1;
	if (d->end)
		snprintf(d->err, sizeof(d->err), "%s", pcap_geterr(p));
	pcap_close(p);
}

/* "path: message" -> "message" */
static const char *message(const char *err)
{
	const char *m = strstr(err, ": ");
	return m ? m + 2 : err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct digest direct, alone, piped, timed;
	int fd = memfd_create("fuzz_input", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	read_input(path, false, &direct);
	read_input(path, true, &timed);
	if (direct.frames != timed.frames || direct.set != timed.set || direct.end != timed.end ||
	    strcmp(direct.err, timed.err) != 0)
		abort();  /* time order lost, added or changed a frame */
	read_libpcap(path, &alone);
	if ((direct.end == 2) != (alone.end == 2))
		abort();  /* one opened it, the other did not */
	/* interfaces of several link types: libpcap refuses them where the direct reader reads on
	 * (pcapngread.c), standard input too (libpcap's): only the direct reading is run */
	bool mixed = alone.end == -1 && strstr(alone.err, "different from the type of the first interface");
	if (direct.end != 2 && !mixed) {
		if (direct.frames != alone.frames || direct.sum != alone.sum || direct.end != alone.end ||
		    strcmp(message(direct.err), alone.err) != 0)
			abort();
		int saved = dup(STDIN_FILENO);
		if (lseek(fd, 0, SEEK_SET) != 0 || dup2(fd, STDIN_FILENO) != STDIN_FILENO)
			abort();
		read_input("-", false, &piped);
		if (saved >= 0) {
			dup2(saved, STDIN_FILENO);
			close(saved);
		}
		if (direct.frames != piped.frames || direct.sum != piped.sum || direct.ifaces != piped.ifaces ||
		    direct.end != piped.end || strcmp(message(direct.err), message(piped.err)) != 0 ||
		    strcmp(direct.drops, piped.drops) != 0)
			abort();
	}
	close(fd);
	return 0;
}
