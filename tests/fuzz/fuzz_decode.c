/* fuzz_decode.c: the decoder's fuzz target. Input: one byte choosing the link type, then the
 * frame. Built for libFuzzer with -Dfuzzing_engine=libfuzzer (clang); otherwise replay.c drives
 * it over the project's captures as an ordinary test. Decoding must never crash, read out of
 * bounds, or produce a view that points outside the frame; the fast path must decode every
 * input exactly as the general walk does; the transport analyzer must take any sequence of
 * them (it keeps at most 64 streams here, so eviction runs too); and rocedump's printers must
 * turn any of them into one well-formed text line (-vv -e) and one well-formed JSON object. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
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
	/* byte for byte on purpose: both start zeroed and the decoder stores members, never whole
	 * structs, so their padding stays zero */
	if (a.op && memcmp(&a.h, &b.h, sizeof(a.h)) != 0)  // NOLINT(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
		abort();
}

/* One record: no NUL inside, one newline, at the end. */
static void check_record(const struct sb *s)
{
	if (s->full || s->len == 0 || strlen(s->buf) != s->len || s->buf[s->len - 1] != '\n' ||
	    memchr(s->buf, '\n', s->len) != s->buf + s->len - 1)
		abort();
}

/* A JSON object: brackets balance outside strings, strings close, nothing follows the object. */
static void check_json(const struct sb *s)
{
	char stack[64];
	unsigned depth = 0;
	bool in_string = false;

	check_record(s);
	if (s->buf[0] != '{')
		abort();
	for (size_t i = 0; i + 1 < s->len; i++) {
		char c = s->buf[i];
		if (in_string) {
			if (c == '\\' || (unsigned char)c < 0x20)
				abort();  /* our strings are names and addresses: nothing to escape */
			in_string = c != '"';
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{' || c == '[') {
			if (depth == sizeof(stack))
				abort();
			stack[depth++] = c == '{' ? '}' : ']';
		} else if (c == '}' || c == ']') {
			if (!depth || stack[--depth] != c || (!depth && i + 2 != s->len))
				abort();
		}
	}
	if (depth || in_string)
		abort();
}

static void check_printers(const uint8_t *frame, uint32_t len, uint32_t wirelen, int64_t ts,
			   const struct roce_pkt *p, const struct roce_findings *fi)
{
	static const struct print_opts all = {.verbose = 2, .link = true};
	static struct sb line;
	struct frame f = {frame, len, wirelen, ts / 1000000000, (uint32_t)(ts % 1000000000)};

	sb_reset(&line);
	print_text(&line, &all, 1, &f, p, fi);
	check_record(&line);
	sb_reset(&line);
	print_json(&line, &all, 1, &f, p, fi);
	check_json(&line);
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
	ts += 1000;
	roce_analyze(an, &p, (uint64_t)(ts / 1000), data + 1, ts, &fi);
	if (fi.n > ROCE_MAX_FINDINGS)
		abort();
	check_printers(data + 1, len, len + (data[0] >> 4), ts, &p, &fi);
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
