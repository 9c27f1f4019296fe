/* fuzz_analyze.c: the transport analyzer's fuzz target (analyzer/core/analyze.c). Input: a byte
 * of settings, then 6-byte records, each one frame built with roce_build_frame(): opcode and
 * connection, PSN move (small and sometimes backwards, or large), payload and DMA lengths,
 * flags (AckReq, P_Key, a wrong QPN, a full PMTU), AETH syndrome and MSN, time step (up to 1.1
 * ms, or a 0.3 s pause). Three connections start just below the 24-bit PSN wrap. Two analyzers
 * take the same frames: one with room for every stream, one capped at 3 streams (eviction). The
 * checks: no sanitizer report; every finding is in its frame's events; each stream's counters
 * (gaps, retransmits, out of order, timeouts, NAKs, RNR NAKs) equal the events counted on that
 * stream's frames; requests and responses are within packets; round-trip min <= p50 <= p99 <=
 * max. Under libFuzzer with -Dfuzzing_engine=libfuzzer; otherwise fuzz_analyze_replay runs it
 * on deterministic pseudo-random inputs (replay_random.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/build.h"
#include "roce/roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t opcodes[32] = {
	0x04, 0x04, 0x04, 0x00, 0x01, 0x02, 0x06, 0x07, 0x08, 0x0a, 0x0c, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
	0x11, 0x11, 0x11, 0x11, 0x12, 0x13, 0x14, 0x24, 0x20, 0x22, 0x64, 0xa4, 0xb1, 0x11, 0x11, 0x0c,
};
static const uint32_t lengths[8] = {0, 8, 256, 1024, 1025, 3000, 4096, 100};
static const uint8_t syndromes[8] = {0x1f, 0x1f, 0x1f, 0x60, 0x2e, 0x21, 0x62, 0x61};  /* ACK, NAKs, RNR */

/* The events each stream counts, in the order of counted_by_stream() */
enum { N_COUNTED = 8 };
static const char *const counted_names[N_COUNTED] = {
	"psn.gap", "psn.retransmit", "psn.out_of_order", "retransmit.timeout",
	"nak.rnr", "nak.psn_seq_err", "nak.remote_access", "nak.invalid_request",
};
static int counted_ids[N_COUNTED];

/* Events seen on each stream's frames, by (last address byte of source, of destination, QPN). */
static struct tally {
	uint32_t src, dst, qpn;
	uint64_t n[N_COUNTED];
} tallies[64];
static unsigned n_tallies;

static uint64_t *tally_of(uint32_t src, uint32_t dst, uint32_t qpn)
{
	for (unsigned i = 0; i < n_tallies; i++)
		if (tallies[i].src == src && tallies[i].dst == dst && tallies[i].qpn == qpn)
			return tallies[i].n;
	if (n_tallies == sizeof(tallies) / sizeof(tallies[0]))
		abort();
	tallies[n_tallies] = (struct tally){src, dst, qpn, {0}};
	return tallies[n_tallies++].n;
}

/* NAKs count on the row of the stream whose PSNs they report, which the frames do not say: their
 * totals over all rows are checked instead (the first N_PER_STREAM counts are checked per row). */
enum { N_PER_STREAM = 4 };
static uint64_t nak_rows[N_COUNTED];

/* The findings a counted add up to the ones its frames carried (*on_frames, n of them this one's):
 * every finding reached the caller. */
static bool all_findings(const struct roce_analyzer *a, uint64_t *on_frames, unsigned n)
{
	uint64_t counted = 0;
	*on_frames += n;
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
		counted += roce_analyzer_findings(a, (enum roce_event)e);
	return counted == *on_frames;
}

static void check_stream(const struct roce_stream_stats *st, void *user)
{
	(void)user;
	const uint64_t *seen = tally_of(st->src[3], st->dst[3], st->dqpn);
	const uint64_t row[N_COUNTED] = {st->gaps, st->retransmits, st->out_of_order, st->timeouts,
					 st->rnr_naks, st->naks[0], st->naks[2], st->naks[1]};
	for (unsigned i = N_PER_STREAM; i < N_COUNTED; i++)
		nak_rows[i] += row[i];
	for (unsigned i = 0; i < N_PER_STREAM; i++)
		if (row[i] != seen[i]) {
			fprintf(stderr, "stream %u > %u qp 0x%x: %s %llu in its row, %llu on its frames\n", st->src[3],
				st->dst[3], st->dqpn, counted_names[i], (unsigned long long)row[i],
				(unsigned long long)seen[i]);
			abort();
		}
	if (st->requests > st->packets || st->responses > st->packets)
		abort();
	if (st->response_count && !(st->response_min_us <= st->response_p50_us && st->response_p50_us <= st->response_p99_us &&
			       st->response_p99_us <= st->response_max_us))
		abort();
}

static void visit(const struct roce_stream_stats *st, void *user)
{
	(void)st;
	(void)user;
}

/* Record r as a frame (into out; its length, or < 0) of one of three connections, next[] their
 * next request PSNs; hosts[] receives the last bytes of its source and destination addresses. */
static int build(const uint8_t *r, uint32_t next[3], uint8_t *out, size_t cap, uint8_t hosts[2])
{
	static uint8_t payload[4096];
	uint8_t opcode = opcodes[r[0] & 31];
	unsigned who = ((r[0] >> 5) & 3) % 3;
	const struct roce_opcode_info *op = roce_opcode_info(opcode);
	bool response = (op->flags & ROCE_OPF_RESPONSE) != 0;
	int16_t raw = (int16_t)(r[1] | r[2] << 8);
	int32_t move = (r[4] & 0x80) ? raw : raw % 40;
	uint32_t psn = (next[who] + (uint32_t)move) & 0xffffff;
	if (!response && move >= 0)
		next[who] = (psn + 1) & 0xffffff;

	struct roce_build b;
	memset(&b, 0, sizeof(b));
	b.src[0] = b.dst[0] = 10;
	b.src[3] = (uint8_t)(response ? 2 + who : 1 + who);
	b.dst[3] = (uint8_t)(response ? 1 + who : 2 + who);
	b.h.hdrs = op->hdrs;
	b.h.bth.opcode = opcode;
	b.h.bth.pkey = (r[4] & 0x40) ? 0x7fff : 0xffff;
	b.h.bth.dqpn = (response ? 0x456u : 0x123u) + who;
	if (r[4] & 0x20)
		b.h.bth.dqpn ^= 0x100;
	b.h.bth.psn = psn;
	b.h.bth.ackreq = r[4] & 1;
	uint32_t len = lengths[r[3] & 7];
	b.h.reth.dmalen = lengths[(r[3] >> 3) & 7] * ((r[3] >> 6) + 1u);
	if ((op->seg == ROCE_SEG_FIRST || op->seg == ROCE_SEG_MIDDLE) && (r[4] & 2))
		len = 1024;
	if (!(op->flags & ROCE_OPF_PAYLOAD))
		len = 0;
	b.payload = payload;
	b.payload_len = len;
	hosts[0] = b.src[3];
	hosts[1] = b.dst[3];
	b.h.aeth.syndrome = syndromes[(r[4] >> 2) & 7];
	b.h.aeth.msn = r[5] & 7;
	b.h.deth.srcqp = 0x42;
	return roce_build_frame(&b, out, cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[10000];
	char err[ROCE_ERRBUF_SIZE];

	if (!counted_ids[0])
		for (unsigned i = 0; i < N_COUNTED; i++)
			counted_ids[i] = roce_event_by_name(counted_names[i]);
	/* at most 12 streams are made (3 connections, 2 directions, a wrong QPN): 64 is room for all */
	struct roce_analyzer_config all;
	roce_analyzer_config_init(&all);
	all.max_streams = 64;
	struct roce_analyzer_config capped;
	roce_analyzer_config_init(&capped);
	capped.max_streams = 3;
	if (size && (data[0] & 1))
		all.pmtu = capped.pmtu = 1024;
	struct roce_analyzer *a = roce_analyzer_new(&all, err), *b = roce_analyzer_new(&capped, err);
	uint64_t on_frames = 0;
	if (!a || !b)
		abort();
	n_tallies = 0;
	uint32_t next[3] = {0xfffff0, 0xfffff0, 0xfffff0};
	int64_t ts = 1000000;
	for (size_t at = 1; at + 6 <= size; at += 6) {
		uint8_t hosts[2];
		int n = build(data + at, next, frame, sizeof(frame), hosts);
		/* 0 to 1.1 ms in 37 us steps, and the top step a pause of 0.3 s: one stream's round trips
		 * spread over microseconds to seconds (the histogram's window moves, or spills) */
		unsigned step = data[at + 5] >> 3;
		ts += step == 31 ? 300000000 : (int64_t)step * 37000;
		if (n < 0)
			continue;
		struct roce_pkt p, q;
		struct roce_findings fi;
		roce_decode(NULL, frame, (uint32_t)n, (uint32_t)n, ROCE_LINK_ETHERNET, &p);
		q = p;
		roce_analyze(a, &p, at / 6 + 1, frame, ts, &fi);
		roce_analyze(b, &q, at / 6 + 1, frame, ts, NULL);
		if (!all_findings(a, &on_frames, fi.n))
			abort();
		for (unsigned i = 0; i < fi.n; i++)
			if (!roce_evset_has(&p.events, (enum roce_event)fi.f[i].event) ||
			    fi.f[i].ref_frame >= at / 6 + 1)  /* refers back, never to itself or ahead */
				abort();
		if (fi.n && !fi.stream && !(fi.n == 1 && fi.f[0].event == ROCE_EV_FRAME_COPY))
			abort();  /* a finding belongs to a stream (a copy: if the table still has it) */
		if (p.op) {
			uint64_t *t = tally_of(hosts[0], hosts[1], p.h.bth.dqpn);
			for (unsigned i = 0; i < N_COUNTED; i++)
				if (roce_evset_has(&p.events, (enum roce_event)counted_ids[i]))
					t[i]++;
		}
	}
	memset(nak_rows, 0, sizeof(nak_rows));
	roce_analyzer_foreach(a, check_stream, NULL);
	for (unsigned i = N_PER_STREAM; i < N_COUNTED; i++) {
		uint64_t frames = 0;
		for (unsigned t = 0; t < n_tallies; t++)
			frames += tallies[t].n[i];
		if (frames != nak_rows[i]) {
			fprintf(stderr, "%s: %llu in the rows, %llu on the frames\n", counted_names[i],
				(unsigned long long)nak_rows[i], (unsigned long long)frames);
			abort();
		}
	}
	roce_analyzer_foreach(b, visit, NULL);
	roce_analyzer_free(a);
	roce_analyzer_free(b);
	return 0;
}
