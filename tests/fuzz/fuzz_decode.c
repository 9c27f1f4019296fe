/* fuzz_decode.c: the decoder's fuzz target. Input: one byte choosing the link type, then the
 * frame. Built for libFuzzer with -Dfuzzing_engine=libfuzzer (clang); otherwise replay.c drives
 * it over the project's captures as an ordinary test. Decoding must never crash, read out of
 * bounds, or produce a view that points outside the frame; the fast path must decode every
 * input exactly as the general walk does; the transport analyzer must take any sequence of
 * them (it keeps at most 64 streams here, so eviction runs too); rocedump's printers must
 * turn any of them into one well-formed text line (-vv -e) and one well-formed JSON object; and
 * a copy of a decode's roce_pkt_extent() bytes alone must analyse and print as the whole. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/print.h"
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

/* The text line (-vv -e) and the JSON object of a decode, each checked for its form. */
static void render(struct sb *text, struct sb *json, const uint8_t *frame, uint32_t len, uint32_t wirelen,
		   int64_t ts, const struct roce_pkt *p, const struct roce_findings *fi)
{
	static const struct print_opts all = {.verbose = 2, .link = true};
	struct frame f = {frame, len, wirelen, ts / 1000000000, (uint32_t)(ts % 1000000000)};

	sb_reset(text);
	print_text(text, &all, 1, &f, p, fi);
	check_record(text);
	sb_reset(json);
	print_json(json, &all, 1, &f, p, fi);
	check_json(json);
}

static bool same_record(const struct sb *a, const struct sb *b)
{
	return a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
}

/* A decode as rocedump's pipeline hands it to the analysing thread: its first roce_pkt_extent()
 * bytes, over bytes that hold anything else (decode.h). */
static void copy_extent(struct roce_pkt *to, const struct roce_pkt *from)
{
	memset(to, 0xa5, sizeof(*to));
	memcpy(to, from, roce_pkt_extent(from));
}

static struct roce_analyzer *new_analyzer(void)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer_config acfg;
	roce_analyzer_config_init(&acfg);
	acfg.max_streams = 64;  /* small enough that evictions happen */
	struct roce_analyzer *an = roce_analyzer_new(&acfg, err);
	if (!an)
		abort();
	return an;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct roce_decoder_config cfg = {.extra_ports = {4792}, .n_extra_ports = 1};
	struct roce_pkt whole, p;

	if (size < 1 || size > 70000)
		return 0;
	unsigned link = linktypes[data[0] % (sizeof(linktypes) / sizeof(linktypes[0]))];
	uint32_t len = (uint32_t)(size - 1), wirelen = len + (data[0] >> 4);
	roce_decode(&cfg, data + 1, len, wirelen, link, &whole);
	copy_extent(&p, &whole);
	/* two analyzers for the whole run, one given each decode whole, the other its extent only:
	 * the two must analyse, and print, every frame alike */
	static struct roce_analyzer *an, *an_whole;
	static int64_t ts;
	if (!an) {
		an = new_analyzer();
		an_whole = new_analyzer();
	}
	struct roce_findings fi, fi_whole;
	ts += 1000;
	roce_analyze(an, &p, (uint64_t)(ts / 1000), data + 1, ts, &fi);
	roce_analyze(an_whole, &whole, (uint64_t)(ts / 1000), data + 1, ts, &fi_whole);
	if (fi.n && !fi.f)
		abort();
	static struct sb text, json, text_whole, json_whole;
	render(&text, &json, data + 1, len, wirelen, ts, &p, &fi);
	render(&text_whole, &json_whole, data + 1, len, wirelen, ts, &whole, &fi_whole);
	if (!same_record(&text, &text_whole) || !same_record(&json, &json_whole))
		abort();
	check_fast_equals_general(data + 1, len, wirelen, link);
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
