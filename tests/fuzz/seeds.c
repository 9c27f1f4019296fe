/* seeds.c: seed corpora for the libFuzzer targets, each in its target's own input format, made
 * from the project's captures (tests/fuzz/README.md):
 *
 *   fuzz_seeds decode DIR CAPTURE...    one file per frame: fuzz_decode.c's link-type byte, then
 *                                       the frame as captured
 *   fuzz_seeds analyze DIR CAPTURE...   one file per capture: fuzz_analyze.c's settings byte, then
 *                                       one 6-byte record per RoCE frame of the capture (its
 *                                       opcode, connection, PSN step, lengths, flags, AETH and
 *                                       time step mapped onto the record's fields), cut into
 *                                       seeds of at most 100 records
 *
 * (The pcapng scanner's seeds are the pcapng files themselves.) Built with the fuzz targets
 * (-Dfuzzing_engine=libfuzzer). Exit status: 0 ok, 2 usage or input error. */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/roce.h"

/* fuzz_analyze.c's tables: an opcode is the index of its first occurrence */
static const uint8_t opcodes[32] = {
	0x04, 0x04, 0x04, 0x00, 0x01, 0x02, 0x06, 0x07, 0x08, 0x0a, 0x0c, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
	0x11, 0x11, 0x11, 0x11, 0x12, 0x13, 0x14, 0x24, 0x20, 0x22, 0x64, 0xa4, 0xb1, 0x11, 0x11, 0x0c,
};
#define RECORDS_PER_SEED 100

static const uint32_t lengths[8] = {0, 8, 256, 1024, 1025, 3000, 4096, 100};
static const uint8_t syndromes[8] = {0x1f, 0x1f, 0x1f, 0x60, 0x2e, 0x21, 0x62, 0x61};

static int index_of_opcode(uint8_t op)
{
	for (int i = 0; i < 32; i++)
		if (opcodes[i] == op)
			return i;
	return -1;
}

static unsigned nearest(const uint32_t *t, uint32_t v)
{
	unsigned best = 0;
	for (unsigned i = 1; i < 8; i++)
		if ((t[i] > v ? t[i] - v : v - t[i]) < (t[best] > v ? t[best] - v : v - t[best]))
			best = i;
	return best;
}

static unsigned syndrome_index(uint8_t s)
{
	for (unsigned i = 0; i < 8; i++)
		if (syndromes[i] == s)
			return i;
	return (s >> 5) == 3 ? 3 : (s >> 5) == 1 ? 7 : 0;  /* other NAK codes, RNR timers, ACKs */
}

static uint8_t link_byte_for(int dlt)
{
	switch (dlt) {  /* index into fuzz_decode.c's linktypes[] */
	case DLT_RAW: return 1;
	case DLT_LINUX_SLL: return 2;
	case DLT_LINUX_SLL2: return 3;
	default: return 0;
	}
}

static void write_file(const char *dir, const char *tag, unsigned long long n, const uint8_t *b, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s-%06llu", dir, tag, n);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static uint8_t buf[1u << 22];
	char err[PCAP_ERRBUF_SIZE];
	unsigned long long made = 0;

	if (argc < 4 || (strcmp(argv[1], "decode") != 0 && strcmp(argv[1], "analyze") != 0)) {
		fprintf(stderr, "usage: fuzz_seeds decode|analyze DIR CAPTURE...\n");
		return 2;
	}
	bool decode = strcmp(argv[1], "decode") == 0;
	for (int i = 3; i < argc; i++) {
		pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[i], PCAP_TSTAMP_PRECISION_NANO, err);
		if (!p) {
			fprintf(stderr, "fuzz_seeds: %s\n", err);
			return 2;
		}
		unsigned link = (unsigned)pcap_datalink(p);
		struct pcap_pkthdr *h;
		const u_char *d;
		size_t n = 1;
		uint32_t next[3] = {0};
		int64_t last_ts = 0;
		buf[0] = 0;
		while (pcap_next_ex(p, &h, &d) == 1) {
			if (decode) {
				if (h->caplen + 1 > sizeof(buf))
					continue;
				buf[0] = link_byte_for((int)link);
				memcpy(buf + 1, d, h->caplen);
				write_file(argv[2], "frame", made++, buf, h->caplen + 1u);
				continue;
			}
			struct roce_pkt pk;
			roce_decode(NULL, d, h->caplen, h->len, link, &pk);
			if (!pk.op || n + 6 > sizeof(buf))
				continue;
			int oi = index_of_opcode(pk.h.bth.opcode);
			if (oi < 0)
				continue;
			unsigned who = pk.h.bth.dqpn % 3;
			bool response = (pk.op->flags & ROCE_OPF_RESPONSE) != 0;
			int32_t move = (int32_t)((pk.h.bth.psn - next[who]) << 8) >> 8;
			if (!response && move >= 0)
				next[who] = (pk.h.bth.psn + 1) & 0xffffff;
			bool large = move < -39 || move > 39;
			int64_t ts = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;
			int64_t step = last_ts && ts > last_ts ? (ts - last_ts) / 37000 : 0;
			last_ts = ts;
			uint8_t *r = buf + n;
			r[0] = (uint8_t)(oi | who << 5);
			r[1] = (uint8_t)move;
			r[2] = (uint8_t)(move >> 8);
			r[3] = (uint8_t)(nearest(lengths, pk.payload_len) | nearest(lengths, pk.h.reth.dmalen) << 3);
			r[4] = (uint8_t)((pk.h.bth.ackreq ? 1 : 0) | (pk.payload_len >= 1024 ? 2 : 0) |
					 syndrome_index(pk.h.aeth.syndrome) << 2 | (pk.h.bth.pkey != 0xffff ? 0x40 : 0) |
					 (large ? 0x80 : 0));
			r[5] = (uint8_t)((pk.h.aeth.msn & 7) | (step > 31 ? 31 : step) << 3);
			n += 6;
			if (n == 1 + 6 * RECORDS_PER_SEED) {  /* short inputs: many executions a second */
				write_file(argv[2], "records", made++, buf, n);
				n = 1;
			}
		}
		pcap_close(p);
		if (!decode && n > 1)
			write_file(argv[2], "records", made++, buf, n);
	}
	printf("fuzz_seeds: %llu seeds in %s\n", made, argv[2]);
	return 0;
}
