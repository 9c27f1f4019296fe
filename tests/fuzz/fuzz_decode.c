/* fuzz_decode.c: the decoder's fuzz target. Input: one byte choosing the link type, then the
 * frame. Built for libFuzzer with -Dfuzzing_engine=libfuzzer (clang); otherwise replay.c drives
 * it over the project's captures as an ordinary test. Decoding must never crash, read out of
 * bounds, or produce a view that points outside the frame; the fast path must decode every
 * input exactly as the general walk does; and the transport analyzer must take any sequence of
 * them (it keeps at most 64 streams here, so eviction runs too). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roce/roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const unsigned linktypes[] = {ROCE_LINK_ETHERNET, ROCE_LINK_RAW, ROCE_LINK_SLL,
				     ROCE_LINK_SLL2, ROCE_LINK_IPV4, ROCE_LINK_IPV6};

/* The fast path and the general walk agree on everything the view defines (decode.h). Both
 * views start zeroed so that struct padding compares equal. */
static void check_fast_equals_general(const uint8_t *frame, uint32_t len, uint32_t wirelen, unsigned link)
{
	static const struct roce_decoder_config slow = {.flags = ROCE_DECODE_NO_FAST_PATH};
	static struct roce_pkt a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	roce_decode(NULL, frame, len, wirelen, link, &a);
	roce_decode(&slow, frame, len, wirelen, link, &b);
	if (memcmp(&a, &b, offsetof(struct roce_pkt, vlan)) != 0 ||
	    memcmp(a.vlan, b.vlan, a.n_vlan * sizeof(a.vlan[0])) != 0 || a.wrap.kind != b.wrap.kind)
		abort();
	if (a.op && memcmp(&a.h, &b.h, sizeof(a.h)) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct roce_decoder_config cfg = {.extra_ports = {4792}, .n_extra_ports = 1};
	struct roce_pkt p;

	if (size < 1 || size > 70000)
		return 0;
	unsigned link = linktypes[data[0] % (sizeof(linktypes) / sizeof(linktypes[0]))];
	uint32_t len = (uint32_t)(size - 1);
	roce_decode(&cfg, data + 1, len, len + (data[0] >> 4), link, &p);
	/* one analyzer for the whole run, small enough that evictions happen */
	static struct roce_analyzer *an;
	static int64_t ts;
	if (!an) {
		char err[ROCE_ERRBUF_SIZE];
		struct roce_analyzer_config acfg = {.max_streams = 64};
		an = roce_analyzer_new(&acfg, err);
		if (!an)
			abort();
	}
	struct roce_findings fi;
	roce_analyze(an, &p, data + 1, ts += 1000, &fi);
	if (fi.n > ROCE_MAX_FINDINGS)
		abort();
	check_fast_equals_general(data + 1, len, len + (data[0] >> 4), link);
	/* the view must stay inside the frame where it claims captured bytes */
	if (p.version && p.op && p.icrc_status != ROCE_ICRC_UNVERIFIABLE && p.icrc_off &&
	    p.icrc_status != ROCE_ICRC_UNCHECKED && p.icrc_off + 4 > len)
		abort();
	if (p.net.addr_len && p.net.addr_off + 2u * p.net.addr_len > len)
		abort();
	if (p.icrc_status == ROCE_ICRC_GOOD && p.icrc_wire != p.icrc_computed)
		abort();
	return 0;
}
