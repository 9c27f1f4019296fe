/* test_dfilter.c: rocedump -Y's parser and evaluation (analyzer/rocedump/output/dfilter.c): what each
 * kind of test selects on made frames (fields, addresses, VLAN tags, wrappers, events, and/or/not,
 * precedence), and the column each syntax error names. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/dfilter.h"
#include "unit_util.h"

static uint8_t frame[FRAME_CAP];
static struct roce_pkt pkt;
static struct roce_field_src src;

/* A SEND ONLY on QP 0x11, PSN 16, 10.0.0.1 -> 10.0.0.2, behind VLAN 100 and 200, with ECN CE. */
static void make_frame(void)
{
	struct roce_build b;
	u_base(&b);
	u_fill_hdrs(&b.h, 0x04, 0);
	b.h.bth.dqpn = 0x11;
	b.h.bth.psn = 16;
	b.tclass = 3;
	b.n_vlan = 2;
	b.vlan[0].vid = 100;
	b.vlan[1].vid = 200;
	uint32_t len = u_build(&b, frame);
	cr_assert_eq(u_decode(frame, len, ROCE_LINK_ETHERNET, &pkt), 1);
	src = (struct roce_field_src){.data = frame, .p = &pkt, .frame_no = 3, .ts_sec = 10, .ts_nsec = 500000000};
}

static bool sel(const char *expr)
{
	char err[256];
	struct dfilter *df = dfilter_compile(expr, err, sizeof(err));
	cr_assert_not_null(df, "%s: %s", expr, err);
	bool r = dfilter_match(df, &src, &pkt.events);
	dfilter_free(df);
	return r;
}

Test(dfilter, selects)
{
	make_frame();
	cr_assert(sel("roce.dqpn == 0x11"));
	cr_assert(sel("roce.dqpn eq 17"));
	cr_assert_not(sel("roce.dqpn != 17"));
	cr_assert(sel("roce.psn >= 16 && roce.psn < 17"));
	cr_assert_not(sel("roce.psn > 16"));
	cr_assert(sel("roce.opcode_name == \"SEND_ONLY\""));
	cr_assert(sel("roce.opcode_name == SEND_ONLY"));
	cr_assert(sel("roce.icrc.status != \"bad\""));
	cr_assert(sel("ip.src == 10.0.0.1 and ip.dst == 10.0.0.2"));
	cr_assert_not(sel("ip.src == 10.0.0.2"));
	cr_assert(sel("vlan.vid == 200"), "any tag");
	cr_assert(sel("vlan.vid == 100"));
	cr_assert_not(sel("vlan.vid != 100"), "!= holds when no tag equals");
	cr_assert(sel("vlan.vid != 300"));
	cr_assert(sel("ts > 10.4 and ts <= 10.5"));
	cr_assert(sel("frame == 3"));
	cr_assert(sel("roce.icrc"), "a group of fields: present");
	cr_assert_not(sel("roce.reth"), "no RETH on a SEND");
	cr_assert_not(sel("roce.reth.va == 0"), "an absent field never compares");
	cr_assert_not(sel("roce.reth.va != 0"), "... not even with !=");
	cr_assert_not(sel("wrapper.kind == \"erspan3\""));
	cr_assert(sel("not wrapper"));
	cr_assert(sel("event"), "ecn.ce");
	cr_assert(sel("event ecn.*"));
	cr_assert(sel("event == ecn.ce"));
	cr_assert(sel("ecn.ce"));
	cr_assert(sel("roce.ecn.ce"), "as the plugin names it");
	cr_assert_not(sel("event psn.*"));
	cr_assert(sel("event != icrc.bad"));
	cr_assert(sel("!(roce.psn == 1) && (roce.psn == 16 || roce.psn == 2)"));
	cr_assert(sel("roce.psn == 1 or roce.psn == 16 and roce.dqpn == 0x11"), "and binds tighter");
	cr_assert_not(sel("(roce.psn == 1 or roce.psn == 16) and roce.dqpn == 0x12"));
	cr_assert(sel("not not roce.psn == 16"));
}

Test(dfilter, addresses_compare_as_addresses)
{
	struct roce_build b;
	u_base(&b);
	u_set_v6(&b);
	b.ip_version = 6;
	u_fill_hdrs(&b.h, 0x04, 0);
	uint32_t len = u_build(&b, frame);
	cr_assert_eq(u_decode(frame, len, ROCE_LINK_ETHERNET, &pkt), 1);
	src = (struct roce_field_src){.data = frame, .p = &pkt};
	cr_assert(sel("ip.src == fd00::1"));
	cr_assert(sel("ip.src == fd00:0:0::1"));
	cr_assert(sel("ip.src == \"fd00:0000::0001\""));
	cr_assert_not(sel("ip.src == fd00::2"));
	cr_assert(sel("ip.version == 6"));
}

static void bad(const char *expr, const char *want)
{
	char err[256];
	struct dfilter *df = dfilter_compile(expr, err, sizeof(err));
	cr_assert_null(df, "%s compiled", expr);
	cr_assert(strstr(err, want), "%s: '%s' lacks '%s'", expr, err, want);
}

Test(dfilter, errors_name_the_column)
{
	bad("", "column 1: the filter is empty");
	bad("roce.dqpn == 0x11 and", "column 22: the expression ends early");
	bad("roce.dqp == 1", "column 1: unknown field or event 'roce.dqp'");
	bad("roce.psn == x", "column 13: roce.psn is a number");
	bad("roce.opcode_name > 3", "column 18: roce.opcode_name is a string");
	bad("(roce.psn == 1", "column 15: ')' expected to close the '(' of column 1");
	bad("roce.psn == 1)", "column 14: ')' without its '('");
	bad("roce.psn == 1 roce.psn == 2", "column 15: 'and' or 'or' expected");
	bad("roce.opcode_name == \"SEND", "column 21: string not closed");
	bad("roce.psn == 1 $", "column 15: unexpected character '$'");
	bad("event == nope.*", "column 10: no event is named 'nope.*'");
	bad("event < icrc.bad", "column 7: events compare with == or != only");
	bad("roce.reth == 1", "column 11: roce.reth is a group of fields");
	bad("icrc.bad == 1", "column 10: icrc.bad is an event");
	bad("ip.src == 10.0.0", "column 11: ip.src is an address");
	bad("ts < yesterday", "column 6: ts is a time stamp");
	bad("roce.psn ==", "column 12: a value must follow");
	bad("not", "column 4: the expression ends early");
}

/* "(" * n + "roce.psn == 16" + ")" * n, or "not " * n + the test: malloc'ed. */
static char *nested(unsigned n, bool with_not)
{
	const char *test = "roce.psn == 16";
	char *s = malloc((size_t)n * 5 + strlen(test) + 1), *p = s;
	cr_assert_not_null(s);
	for (unsigned i = 0; i < n; i++)
		p = stpcpy(p, with_not ? "not " : "(");
	p = stpcpy(p, test);
	for (unsigned i = 0; !with_not && i < n; i++)
		*p++ = ')';
	*p = '\0';
	return s;
}

/* A hostile expression must not run the parser or the evaluation out of stack: nesting is
 * limited, and a chain of and/or however long is walked in a loop. */
Test(dfilter, depth_is_bounded)
{
	make_frame();
	char *ok = nested(DFILTER_MAX_DEPTH, false);
	cr_assert(sel(ok), "%u levels of '(' are allowed", DFILTER_MAX_DEPTH);
	free(ok);
	char *nots = nested(DFILTER_MAX_DEPTH, true);  /* an even count: the test itself */
	cr_assert(sel(nots));
	free(nots);
	char *deep = nested(200000, false);
	bad(deep, "column 257: the filter nests deeper than 256 levels");
	free(deep);
	deep = nested(200000, true);
	bad(deep, "nests deeper than 256 levels");
	free(deep);

	const unsigned terms = 200000;  /* "roce.psn == 1 or ... or roce.psn == 16": 200,000 terms */
	const size_t len = (size_t)terms * 18 + 32;
	char *chain = malloc(len), *p = chain;
	cr_assert_not_null(chain);
	for (unsigned i = 1; i < terms; i++)
		p = stpcpy(p, "roce.psn == 1 or ");
	snprintf(p, len - (size_t)(p - chain), "roce.psn == 16");
	cr_assert(sel(chain), "the last of a long 'or' chain");
	chain[strlen(chain) - 1] = '7';  /* ... == 17 */
	cr_assert_not(sel(chain));
	free(chain);
}

/* A frame's time stamp can lie far beyond what nanoseconds since 1970 hold (a pcapng interface's
 * if_tsoffset, a mangled file): it compares as later (or earlier) than every time a filter takes. */
Test(dfilter, extreme_time_stamps_compare)
{
	make_frame();
	src.ts_sec = INT64_MAX / 2;
	cr_assert(sel("ts > 0"));
	cr_assert(sel("ts > 9000000000"));
	cr_assert_not(sel("ts < 0"));
	src.ts_sec = INT64_MIN / 2;
	cr_assert(sel("ts < 0"));
	cr_assert(sel("ts < -9000000000"));
	cr_assert_not(sel("ts > 0"));
}
