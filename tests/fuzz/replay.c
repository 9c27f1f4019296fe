/* replay.c: runs the fuzz target without a fuzzing engine: every frame of every capture given
 * on the command line, cut at every length, and with each of its first 128 bytes flipped in
 * several ways (deterministic mutations), under the sanitizers when the build has them. A frame
 * of a link type and length already replayed SAME_SHAPE times (the captures hold thousands of
 * frames of one shape: their headers differ only in PSNs, addresses and payload bytes) is cut
 * only at every 4th length of its first 128 bytes, where the headers end, and flipped with one
 * mask: the same headers at a fifth of the cost. Files that are not captures are raw fuzz inputs
 * (tests/fuzz/regressions/fuzz_decode/: crashes found once). */
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "roce/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long long runs;

#define SAME_SHAPE 4
#define MAX_FRAME 70000u

/* How many frames of this link type and length were replayed in full before. */
static unsigned shape_seen(uint8_t link_byte, uint32_t len)
{
	static uint8_t seen[4][MAX_FRAME];
	uint8_t *n = &seen[link_byte & 3][len];
	return *n < SAME_SHAPE ? (*n)++ : *n;
}

static void feed(uint8_t link_byte, const uint8_t *frame, uint32_t len)
{
	static uint8_t buf[MAX_FRAME + 1];
	if (len + 1 > sizeof(buf))
		return;
	buf[0] = link_byte;
	memcpy(buf + 1, frame, len);
	int full = shape_seen(link_byte, len) < SAME_SHAPE;
	uint32_t step = full ? 1 : 4, last = full || len < 128 ? len : 128;
	for (uint32_t cut = 0; cut <= last; cut += step, runs++)
		LLVMFuzzerTestOneInput(buf, cut + 1);
	if (last < len) {
		LLVMFuzzerTestOneInput(buf, len + 1);
		runs++;
	}
	static const uint8_t masks[] = {0x01, 0x80, 0xff, 0x0f};
	unsigned n_masks = full ? sizeof(masks) : 1;
	for (uint32_t i = 1; i <= len && i <= 128; i++) {
		for (unsigned m = 0; m < n_masks; m++, runs++) {
			buf[i] ^= masks[m];
			LLVMFuzzerTestOneInput(buf, len + 1);
			buf[i] ^= masks[m];
		}
	}
}

static uint8_t link_byte_for(int dlt)
{
	switch (dlt) {  /* index into fuzz_decode.c's linktypes[] */
	case DLT_EN10MB: return 0;
	case DLT_RAW: return 1;
	case DLT_LINUX_SLL: return 2;
	case DLT_LINUX_SLL2: return 3;
	default: return 0;
	}
}

static int replay_raw(const char *path)
{
	static uint8_t buf[70001];
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	runs++;
	return 0;
}

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	unsigned long long frames = 0;

	for (int i = 1; i < argc; i++) {
		const char *dot = strrchr(argv[i], '.');
		if (!dot || (strcmp(dot, ".pcap") != 0 && strcmp(dot, ".pcapng") != 0)) {
			if (replay_raw(argv[i]) < 0)
				return 1;
			continue;
		}
		pcap_t *p = pcap_open_offline(argv[i], err);
		if (!p) {
			fprintf(stderr, "replay: %s\n", err);
			return 1;
		}
		uint8_t lb = link_byte_for(pcap_datalink(p));
		struct pcap_pkthdr *h;
		const u_char *d;
		while (pcap_next_ex(p, &h, &d) == 1) {
			feed(lb, d, h->caplen);
			frames++;
		}
		pcap_close(p);
	}
	printf("replayed %llu frames, %llu decoder runs\n", frames, runs);
	return frames ? 0 : 1;
}
