/* fuzz_conform.c: roceconform's response parser as a fuzz target. Whatever a DUT sends back is
 * untrusted: the input becomes frames from the DUT (each a well-formed answer made by the core's
 * builder from a few input bytes and then spoiled by the rest: bytes flipped, cut short, or the
 * raw bytes alone), taken by the session (sess_take) and judged by every verdict rule. Checked:
 * no crash or sanitizer report, every verdict one of the four, the evidence strings terminated
 * within their buffers, every response one the session recorded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "session.h"
#include "testlib.h"
#include "verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct conf_result *r)
{
	if (r->v > V_NA || !memchr(r->expected, 0, EVIDENCE_LEN) || !memchr(r->observed, 0, EVIDENCE_LEN) ||
	    !memchr(r->reason, 0, EVIDENCE_LEN))
		abort();
}

static struct conf_result fresh(void)
{
	struct conf_result r;
	memset(&r, 0, sizeof(r));
	r.measured_ms = -1;
	return r;
}

/* One frame from the DUT made from the next input bytes; returns the bytes used. */
static size_t one_frame(struct session *s, const uint8_t *d, size_t n, int64_t ts)
{
	static const uint8_t mac_dut[6] = {0x52, 0x54, 0, 0x77, 0, 1}, mac_tst[6] = {2, 0, 0, 0, 0, 1};
	uint8_t frame[2048], payload[512];
	if (n < 12)
		return n;
	struct roce_build b;
	memset(&b, 0, sizeof(b));
	memcpy(b.eth_dst, mac_tst, 6);
	memcpy(b.eth_src, mac_dut, 6);
	memcpy(b.src, s->o->dut.ip, 4);
	memcpy(b.dst, s->o->local.ip, 4);
	b.h.bth.opcode = d[0];
	b.h.bth.dqpn = (d[1] & 0xc0) != 0xc0 ? s->qp.my_qpn : (uint32_t)d[1] << 16 | d[2];
	b.h.bth.psn = (uint32_t)d[2] << 16 | (uint32_t)d[3] << 8 | d[4];
	b.h.bth.ackreq = d[1] & 1;
	b.h.bth.pkey = 0xffff;
	b.h.aeth.syndrome = d[5];
	b.h.aeth.msn = d[6];
	b.h.atomicacketh.orig = d[7];
	memset(payload, d[8], sizeof(payload));
	b.payload = payload;
	b.payload_len = (uint32_t)(d[9] % 4 == 0 ? d[10] * 2 : d[9] % 4 == 1 ? 0 : d[10]);
	b.icrc = (d[9] & 0x30) == 0x30 ? ROCE_BUILD_ICRC_BAD : ROCE_BUILD_ICRC_GOOD;
	int len = roce_build_frame(&b, frame, sizeof(frame));
	size_t used = 12;
	if (len < 0)
		return used;
	/* spoil it with the following bytes (each way in a quarter of the frames or fewer): up to three
	 * (offset, xor) pairs, a cut, or the raw input bytes instead */
	unsigned flips = (d[11] & 7) > 4 ? (d[11] & 7) - 4 : 0;
	for (unsigned i = 0; i < flips && used + 2 <= n; i++, used += 2)
		frame[d[used] % (unsigned)len] ^= d[used + 1];
	uint32_t cap = (uint32_t)len;
	if ((d[11] & 0x18) == 0x18 && used < n)
		cap = d[used++] % (uint32_t)len;
	if ((d[11] & 0xe0) == 0xe0) {  /* the raw input bytes as the frame */
		size_t raw = n - used < sizeof(frame) ? n - used : sizeof(frame);
		memcpy(frame, d + used, raw);
		cap = (uint32_t)raw;
		used = n;
	}
	sess_take(s, frame, cap, (uint32_t)len, ts);
	return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct conf_opts o;
	struct session s;
	memset(&o, 0, sizeof(o));
	parse_addr("10.77.0.1", &o.dut);
	parse_addr("10.77.0.50", &o.local);
	o.pmtu = 1024;
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.qp.my_qpn = 0x0c1234;
	int64_t ts = 1000000000;
	for (size_t at = 0; at < size;) {
		ts += (int64_t)data[at] * 1000003;
		at += one_frame(&s, data + at, size - at, ts);
	}
	for (size_t i = 0; i < s.n_resps; i++)
		if (s.resps[i].frame >= s.n_frames)
			abort();
	const struct resp *rs = s.resps;
	size_t n = s.n_resps;
	uint32_t psn = n ? rs[0].h.bth.psn : 0;
	struct conf_result r;
	r = fresh(), rule_ack(rs, n, psn, psn_add(psn, 1), n ? (long)rs[0].h.aeth.msn : -1, n > 1, &r), check(&r);
	r = fresh(), rule_nak(rs, n, 0x1f, psn, psn_add(psn, 3), (long)psn_add(psn, -1), true, &r), check(&r);
	r = fresh(), rule_silent(rs, n / 2, n ? rs + n / 2 : NULL, n - n / 2, psn, &r), check(&r);  /* no rs + 0 on NULL */
	r = fresh(), rule_ghost_ack(rs, n, ts - 500000000, psn_add(psn, 1000), psn, psn_add(psn, 3), &r), check(&r);
	r = fresh(), rule_fatal_nak(rs, n, ts - 500000000, psn, 300, "fuzz", &r), check(&r);
	r = fresh(), rule_acks_ordered(rs, n, psn, -1, false, &r), check(&r);
	r = fresh(), rule_read_response(rs, n, psn, n % 3, 3 + n % 3, 1024, true, &r), check(&r);
	r = fresh(), rule_resend_from(rs, n, psn, &r), check(&r);
	r = fresh(), rule_no_requests(rs, n, 300, "fuzz", &r), check(&r);
	int64_t tx[64];
	size_t k = request_times(&s, 0, psn, tx, 64);
	r = fresh(), rule_retries(tx, k, (int64_t)size * 1000000, 67.1, 7, 25, 1000, &r), check(&r);
	r = fresh(), rule_rnr_wait(ts - 1000000000, n ? rs[n - 1].ts_ns : -1, 15.36, 25, &r), check(&r);
	for (size_t i = 0; i < n; i++) {
		char buf[128];
		resp_str(&rs[i], buf, sizeof(buf));
		if (!memchr(buf, 0, sizeof(buf)))
			abort();
	}
	if (getenv("FUZZ_CONFORM_STATS"))
		fprintf(stderr, "%zu frames, %zu responses\n", s.n_frames, s.n_resps);
	sess_reset(&s);
	return 0;
}
