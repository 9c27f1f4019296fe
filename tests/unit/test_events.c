/* test_events.c: the closed event table (include/roce/events.def, analyzer/core/events.c): unique,
 * dotted, lowercase names; a description and a valid severity for each; name lookups round-trip;
 * the table fits the event set. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <string.h>

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
	static const struct { enum roce_event e; const char *name; enum roce_severity sev; } fixed[] = {
		{ROCE_EV_TRUNCATED, "truncated", ROCE_SEV_WARN},
		{ROCE_EV_LINK_UNSUPPORTED, "link.unsupported", ROCE_SEV_INFO},
		{ROCE_EV_ERSPAN_VERSION, "erspan.version_unknown", ROCE_SEV_WARN},
		{ROCE_EV_IP_CHECKSUM_BAD, "ip.checksum_bad", ROCE_SEV_ERROR},
		{ROCE_EV_IP_FRAGMENT, "ip.fragment", ROCE_SEV_WARN},
		{ROCE_EV_UDP_PORT_CUSTOM, "udp.port_custom", ROCE_SEV_INFO},
		{ROCE_EV_ECN_CE, "ecn.ce", ROCE_SEV_INFO},
		{ROCE_EV_GRH_PAYLEN_INVALID, "grh.paylen_invalid", ROCE_SEV_ERROR},
		{ROCE_EV_BTH_OPCODE_RESERVED, "bth.opcode_reserved", ROCE_SEV_ERROR},
		{ROCE_EV_BTH_OPCODE_VENDOR, "bth.opcode_vendor", ROCE_SEV_INFO},
		{ROCE_EV_PACKET_TOO_SHORT, "packet.too_short", ROCE_SEV_ERROR},
		{ROCE_EV_ATOMIC_LENGTH, "atomic.length_invalid", ROCE_SEV_ERROR},
		{ROCE_EV_CNP_BECN_CLEAR, "cnp.becn_clear", ROCE_SEV_WARN},
		{ROCE_EV_ICRC_BAD, "icrc.bad", ROCE_SEV_ERROR},
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
	cr_assert_eq(roce_event_group(ROCE_EV_TRUNCATED), ROCE_GROUP_MALFORMED);
	cr_assert_eq(roce_event_group(ROCE_EV_ECN_CE), ROCE_GROUP_PROTOCOL);
	cr_assert_str_eq(roce_event_group_name(ROCE_GROUP_SEQUENCE), "sequence");
	cr_assert_str_eq(roce_event_group_name((enum roce_event_group)4), "?");
	cr_assert_eq(roce_event_group((enum roce_event)-1), ROCE_GROUP_PROTOCOL);
}
