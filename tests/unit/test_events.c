/* test_events.c: the closed event table (include/roce/events.def, analyzer/core/events.c): unique,
 * dotted, lowercase names; a description and a valid severity for each; name lookups round-trip;
 * the table fits the event set. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <string.h>

#include "roce/analyze.h"
#include "roce/events.h"

Test(events, count_fits_the_set)
{
	cr_assert_gt(ROCE_EV_COUNT, 0);
	cr_assert_leq(ROCE_EV_COUNT, 128);
	cr_assert_leq(ROCE_EV_COUNT, 64 * ROCE_EVSET_WORDS);
}

Test(events, names_unique_dotted_lowercase)
{
	for (unsigned i = 0; i < ROCE_EV_COUNT; i++) {
		const char *n = roce_event_name((enum roce_event)i);
		cr_assert_not_null(n);
		size_t len = strlen(n);
		cr_assert_gt(len, 0, "event %u has an empty name", i);
		cr_assert(islower((unsigned char)n[0]), "%s: starts with a lowercase letter", n);
		cr_assert(n[len - 1] != '.' && n[len - 1] != '_', "%s", n);
		for (size_t k = 0; k < len; k++) {
			char c = n[k];
			cr_assert((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_',
				  "%s: character '%c'", n, c);
			if (c == '.')
				cr_assert(n[k + 1] != '.', "%s: empty component", n);
		}
		/* every name but "truncated" is layer.what */
		if (strcmp(n, "truncated") != 0)
			cr_assert_not_null(strchr(n, '.'), "%s: not dotted", n);
		for (unsigned j = 0; j < i; j++)
			cr_assert_str_neq(n, roce_event_name((enum roce_event)j), "duplicate name %s", n);
	}
}

Test(events, descriptions_and_severities)
{
	for (unsigned i = 0; i < ROCE_EV_COUNT; i++) {
		const char *d = roce_event_description((enum roce_event)i);
		cr_assert_not_null(d);
		cr_assert_gt(strlen(d), 10, "%s: description too short", roce_event_name((enum roce_event)i));
		cr_assert_null(strchr(d, '\n'), "one line");
		enum roce_severity s = roce_event_severity((enum roce_event)i);
		cr_assert(s == ROCE_SEV_INFO || s == ROCE_SEV_WARN || s == ROCE_SEV_ERROR);
	}
}

Test(events, by_name_round_trip)
{
	for (unsigned i = 0; i < ROCE_EV_COUNT; i++)
		cr_assert_eq(roce_event_by_name(roce_event_name((enum roce_event)i)), (int)i);
	cr_assert_eq(roce_event_by_name("no.such_event"), -1);
	cr_assert_eq(roce_event_by_name(""), -1);
	cr_assert_eq(roce_event_by_name("ICRC.BAD"), -1, "names are case-sensitive");
	cr_assert_eq(roce_event_by_name("icrc.bad "), -1);
}

Test(events, stable_names_and_severities)
{
	/* names are a public interface: these must never change */
	static const struct { const char *name; enum roce_event e; enum roce_severity sev; } fixed[] = {
		{"truncated", ROCE_EV_TRUNCATED, ROCE_SEV_INFO},  /* a capture cut: a note */
		{"erspan.truncated", ROCE_EV_ERSPAN_TRUNCATED, ROCE_SEV_INFO},
		{"link.unsupported", ROCE_EV_LINK_UNSUPPORTED, ROCE_SEV_INFO},
		{"erspan.version_unknown", ROCE_EV_ERSPAN_VERSION, ROCE_SEV_WARN},
		{"ip.checksum_bad", ROCE_EV_IP_CHECKSUM_BAD, ROCE_SEV_ERROR},
		{"ip.fragment", ROCE_EV_IP_FRAGMENT, ROCE_SEV_WARN},
		{"udp.port_custom", ROCE_EV_UDP_PORT_CUSTOM, ROCE_SEV_INFO},
		{"ecn.ce", ROCE_EV_ECN_CE, ROCE_SEV_INFO},
		{"grh.paylen_invalid", ROCE_EV_GRH_PAYLEN_INVALID, ROCE_SEV_ERROR},
		{"bth.opcode_reserved", ROCE_EV_BTH_OPCODE_RESERVED, ROCE_SEV_ERROR},
		{"bth.opcode_vendor", ROCE_EV_BTH_OPCODE_VENDOR, ROCE_SEV_INFO},
		{"packet.too_short", ROCE_EV_PACKET_TOO_SHORT, ROCE_SEV_ERROR},
		{"atomic.length_invalid", ROCE_EV_ATOMIC_LENGTH, ROCE_SEV_ERROR},
		{"cnp.becn_clear", ROCE_EV_CNP_BECN_CLEAR, ROCE_SEV_WARN},
		{"icrc.bad", ROCE_EV_ICRC_BAD, ROCE_SEV_ERROR},
	};
	for (unsigned k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++) {
		cr_assert_str_eq(roce_event_name(fixed[k].e), fixed[k].name);
		cr_assert_eq(roce_event_severity(fixed[k].e), fixed[k].sev, "%s", fixed[k].name);
	}
}

Test(events, out_of_range)
{
	cr_assert_str_eq(roce_event_name(ROCE_EV_COUNT), "?");
	cr_assert_str_eq(roce_event_description((enum roce_event)1000), "?");
	cr_assert_eq(roce_event_severity((enum roce_event)-1), ROCE_SEV_INFO);
}

Test(events, severity_names)
{
	cr_assert_str_eq(roce_severity_name(ROCE_SEV_INFO), "info");
	cr_assert_str_eq(roce_severity_name(ROCE_SEV_WARN), "warn");
	cr_assert_str_eq(roce_severity_name(ROCE_SEV_ERROR), "error");
	cr_assert_str_eq(roce_severity_name((enum roce_severity)3), "?");
}

Test(events, evset_operations)
{
	struct roce_evset s = {{0}};

	cr_assert(roce_evset_empty(&s));
	for (unsigned i = 0; i < ROCE_EV_COUNT; i++) {
		cr_assert_not(roce_evset_has(&s, (enum roce_event)i));
		roce_evset_add(&s, (enum roce_event)i);
		cr_assert(roce_evset_has(&s, (enum roce_event)i));
		cr_assert_not(roce_evset_empty(&s));
		for (unsigned j = i + 1; j < ROCE_EV_COUNT; j++)
			cr_assert_not(roce_evset_has(&s, (enum roce_event)j), "adding %u set %u", i, j);
	}
	/* bit 64 lands in the second word */
	struct roce_evset t = {{0}};
	roce_evset_add(&t, (enum roce_event)64);
	cr_assert_eq(t.w[0], 0);
	cr_assert_eq(t.w[1], 1);
	cr_assert_not(roce_evset_empty(&t));
}

/* events.def's GROUP column: a valid group per event, the expert-info groups fixed for a few. */
Test(events, groups)
{
	for (unsigned i = 0; i < ROCE_EV_COUNT; i++)
		cr_assert_neq(strcmp(roce_event_group_name(roce_event_group((enum roce_event)i)), "?"), 0,
			      "%s", roce_event_name((enum roce_event)i));
	cr_assert_eq(roce_event_group(ROCE_EV_ICRC_BAD), ROCE_GROUP_CHECKSUM);
	cr_assert_eq(roce_event_group(ROCE_EV_PSN_RETRANSMIT), ROCE_GROUP_SEQUENCE);
	/* a packet the capture (or the mirror) cut is not malformed, as Wireshark treats a snap
	 * length; one whose own length fields disagree is */
	cr_assert_eq(roce_event_group(ROCE_EV_TRUNCATED), ROCE_GROUP_PROTOCOL);
	cr_assert_eq(roce_event_group(ROCE_EV_ERSPAN_TRUNCATED), ROCE_GROUP_PROTOCOL);
	cr_assert_eq(roce_event_group(ROCE_EV_PACKET_TOO_SHORT), ROCE_GROUP_MALFORMED);
	cr_assert_eq(roce_event_group(ROCE_EV_IP_LENGTH_INVALID), ROCE_GROUP_MALFORMED);
	cr_assert_eq(roce_event_group(ROCE_EV_UDP_LENGTH_MISMATCH), ROCE_GROUP_MALFORMED);
	cr_assert_eq(roce_event_group(ROCE_EV_ECN_CE), ROCE_GROUP_PROTOCOL);
	cr_assert_str_eq(roce_event_group_name(ROCE_GROUP_SEQUENCE), "sequence");
	cr_assert_str_eq(roce_event_group_name((enum roce_event_group)4), "?");
	cr_assert_eq(roce_event_group((enum roce_event)-1), ROCE_GROUP_PROTOCOL);
}

/* events.def's titles: one per event, short, unique (the plugin's expert infos group by them), none
 * the event's name (the fallback of an event without a title). */
Test(events, titles)
{
	for (unsigned i = 0; i < ROCE_EV_COUNT; i++) {
		const char *t = roce_event_title((enum roce_event)i);
		cr_assert_str_neq(t, roce_event_name((enum roce_event)i), "%s has no ROCE_EVENT_TITLE",
				  roce_event_name((enum roce_event)i));
		cr_assert(strlen(t) > 0 && strlen(t) <= 48, "%s: title '%s' not 1-48 characters",
			  roce_event_name((enum roce_event)i), t);
		for (unsigned j = 0; j < i; j++)
			cr_assert_str_neq(t, roce_event_title((enum roce_event)j), "two events titled '%s'", t);
	}
	cr_assert_str_eq(roce_event_title(ROCE_EV_RETRANSMIT_TIMEOUT), "RoCE retransmission (timeout)");
	cr_assert_str_eq(roce_event_title((enum roce_event)-1), "?");
}

/* roce_event_text(): the event as the text line, the -w comment and the plugin's expert info
 * show it, with its finding's details or the reserved fields it names; cut to the buffer. */
Test(events, event_text)
{
	char b[128];
	struct roce_finding f[2];
	struct roce_findings fi = {.n = 2, .f = f};
	f[0] = (struct roce_finding){.event = ROCE_EV_PSN_GAP, .has_psn = true, .expected_psn = 100, .seen_psn = 103,
				     .delta_ns = -1};
	f[1] = (struct roce_finding){.event = ROCE_EV_RETRANSMIT_TIMEOUT, .has_psn = true, .expected_psn = 9,
				     .seen_psn = 3, .delta_ns = 4210000};
	cr_assert_eq(roce_event_text(b, sizeof(b), ROCE_EV_PSN_GAP, NULL, &fi), strlen("psn.gap(expected 100 seen 103)"));
	cr_assert_str_eq(b, "psn.gap(expected 100 seen 103)");
	roce_event_text(b, sizeof(b), ROCE_EV_RETRANSMIT_TIMEOUT, NULL, &fi);
	cr_assert_str_eq(b, "retransmit.timeout(expected 9 seen 3, first sent 4.210 ms before)");
	roce_event_text(b, sizeof(b), ROCE_EV_ICRC_BAD, NULL, &fi);
	cr_assert_str_eq(b, "icrc.bad");
	f[0].seen_psn = 100;
	roce_event_text(b, sizeof(b), ROCE_EV_PSN_GAP, NULL, &fi);
	cr_assert_str_eq(b, "psn.gap(psn 100)");
	struct roce_pkt p;
	memset(&p, 0, sizeof(p));
	p.h.bth.resv7 = 1;
	p.h.hdrs = ROCE_HDR_RDETH;
	p.h.rdeth.resv = 2;
	roce_event_text(b, sizeof(b), ROCE_EV_BTH_RESERVED_NONZERO, &p, NULL);
	cr_assert_str_eq(b, "bth.reserved_nonzero(resv7 0x01, rdeth.resv 0x02)");
	size_t n = roce_event_text(b, 8, ROCE_EV_BTH_RESERVED_NONZERO, &p, NULL);
	cr_assert_eq(n, strlen("bth.reserved_nonzero(resv7 0x01, rdeth.resv 0x02)"), "the whole length");
	cr_assert_str_eq(b, "bth.res", "cut, NUL-terminated");
}
