/* summary.c: the end-of-capture report (see summary.h). */
#include "output/summary.h"

#include <inttypes.h>

#include "output/congestion_out.h"
#include "output/mirror_out.h"
#include "output/path_out.h"

/* The analyzer's findings by event, beside the frames that carry them (the events above count
 * frames; a frame may carry several findings of one event: cnp.missing). */
static void findings_print_text(const struct summary *s, const struct roce_analyzer *an, FILE *out)
{
	bool any = false;
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		uint64_t n = roce_analyzer_findings(an, (enum roce_event)e);
		if (!n)
			continue;
		if (!any)
			fprintf(out, "findings:\n");
		any = true;
		fprintf(out, "  %s: %" PRIu64 " on %" PRIu64 " frame%s\n", roce_event_name((enum roce_event)e), n,
			s->events[e], s->events[e] == 1 ? "" : "s");
	}
}

static void findings_print_json(const struct summary *s, const struct roce_analyzer *an, FILE *out)
{
	const char *sep = "";
	fprintf(out, "\"findings\":{");
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		uint64_t n = roce_analyzer_findings(an, (enum roce_event)e);
		if (!n)
			continue;
		fprintf(out, "%s\"%s\":{\"count\":%" PRIu64 ",\"frames\":%" PRIu64 "}", sep,
			roce_event_name((enum roce_event)e), n, s->events[e]);
		sep = ",";
	}
	fprintf(out, "},");
}

void summary_print_text(const struct summary *s, const struct capstats *cs, const struct roce_analyzer *an,
			uint64_t link_bps, FILE *out)
{
	char drops[160];
	fprintf(out, "%" PRIu64 " frames, %" PRIu64 " bytes; RoCE %" PRIu64 " (v1 %" PRIu64 ", v2 %" PRIu64
		     "), not RoCE %" PRIu64 "\n",
		s->frames, s->bytes, s->roce[1] + s->roce[2], s->roce[1], s->roce[2], s->roce[0]);
	capstats_describe(cs, drops, sizeof(drops));
	fprintf(out, "%s\n", drops);
	capstats_describe_ifaces(cs, out);
	if (cs->reorder_overflow)
		fprintf(out, "time order: %" PRIu64 " frames handed out before their place in time was sure (more held back than the reorder stage keeps)\n",
			cs->reorder_overflow);
	fprintf(out, "ICRC: good %" PRIu64 ", bad %" PRIu64 ", unverifiable %" PRIu64 "\n",
		s->icrc[ROCE_ICRC_GOOD], s->icrc[ROCE_ICRC_BAD], s->icrc[ROCE_ICRC_UNVERIFIABLE]);
	if (s->roce[1] + s->roce[2])
		fprintf(out, "opcodes:\n");
	for (unsigned op = 0; op < 256; op++) {
		if (!s->opcode[op])
			continue;
		const struct roce_opcode_info *i = roce_opcode_info((uint8_t)op);
		fprintf(out, "  0x%02x %-4s %-22s %12" PRIu64 "\n", op,
			roce_transport_name((enum roce_transport)i->transport), i->name ? i->name : "RESERVED",
			s->opcode[op]);
	}
	bool any = false;
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		if (!s->events[e])
			continue;
		if (!any)
			fprintf(out, "events:\n");
		any = true;
		fprintf(out, "  %-24s %-5s %12" PRIu64 "\n", roce_event_name((enum roce_event)e),
			roce_severity_name(roce_event_severity((enum roce_event)e)), s->events[e]);
	}
	if (!any)
		fprintf(out, "events: none\n");
	findings_print_text(s, an, out);
	uint64_t unchecked = roce_analyzer_copies_unchecked(an);
	if (unchecked)  /* only then: an ordinary capture has none */
		fprintf(out, "copies unchecked: %" PRIu64 " packets forgotten for room before their window ended\n",
			unchecked);
	mirror_print_text(an, cs, out);
	path_print_text(an, cs, out);
	congestion_print_text(an, link_bps, out);
}

void summary_print_json(const struct summary *s, const struct capstats *cs, const struct roce_analyzer *an, FILE *out)
{
	fprintf(out, "{\"summary\":{\"frames\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"roce\":{\"v1\":%" PRIu64
		     ",\"v2\":%" PRIu64 "},\"not_roce\":%" PRIu64 ",\"icrc\":{\"good\":%" PRIu64 ",\"bad\":%" PRIu64
		     ",\"unverifiable\":%" PRIu64 "},\"opcodes\":{",
		s->frames, s->bytes, s->roce[1], s->roce[2], s->roce[0], s->icrc[ROCE_ICRC_GOOD],
		s->icrc[ROCE_ICRC_BAD], s->icrc[ROCE_ICRC_UNVERIFIABLE]);
	const char *sep = "";
	for (unsigned op = 0; op < 256; op++) {
		if (!s->opcode[op])
			continue;
		const struct roce_opcode_info *i = roce_opcode_info((uint8_t)op);
		fprintf(out, "%s\"%u\":{\"transport\":\"%s\",\"name\":\"%s\",\"count\":%" PRIu64 "}", sep, op,
			roce_transport_name((enum roce_transport)i->transport), i->name ? i->name : "RESERVED",
			s->opcode[op]);
		sep = ",";
	}
	fprintf(out, "},\"events\":{");
	sep = "";
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		if (!s->events[e])
			continue;
		fprintf(out, "%s\"%s\":%" PRIu64, sep, roce_event_name((enum roce_event)e), s->events[e]);
		sep = ",";
	}
	fprintf(out, "},");
	findings_print_json(s, an, out);
	uint64_t unchecked = roce_analyzer_copies_unchecked(an);
	if (unchecked)
		fprintf(out, "\"copies_unchecked\":%" PRIu64 ",", unchecked);
	capstats_print_json(cs, out);
	mirror_print_json(an, cs, out);
	path_print_json(an, cs, out);
	fprintf(out, "}");
	congestion_print_json(an, out);
	fprintf(out, "}\n");
}
