/* summary.h: whole-capture counters for -q (frames, RoCE per version and opcode, ICRC outcomes,
 * events by name) and their text and JSON reports. */
#ifndef ROCEDUMP_SUMMARY_H
#define ROCEDUMP_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "input/capstats.h"
#include "roce/analyze.h"
#include "roce/decode.h"

struct summary {
	uint64_t frames, bytes, roce[3];    /* roce[0]: not RoCE */
	uint64_t opcode[256];
	uint64_t icrc[4];                   /* by enum roce_icrc_status */
	uint64_t ecn[4];                    /* RoCE frames by ECN codepoint (roce_ecn: 0 Not-ECT ... 3 CE) */
	uint64_t events[ROCE_EV_COUNT];
	uint64_t worst[3];                  /* frames whose worst event is info/warn/error */
};

/* Count the packet's events: per event in by_event (when not NULL) and per severity in
 * by_sev. Returns the worst severity, or -1 when it has none. */
static inline int summary_count_events(const struct roce_pkt *p, uint64_t *by_event, uint64_t by_sev[3])
{
	int worst = -1;
	for (unsigned w = 0; w < ROCE_EVSET_WORDS; w++) {
		uint64_t bits = p->events.w[w];
		while (bits) {
			unsigned e = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			if (e >= ROCE_EV_COUNT)
				break;
			if (by_event)
				by_event[e]++;
			int sev = (int)roce_event_severity((enum roce_event)e);
			by_sev[sev]++;
			worst = sev > worst ? sev : worst;
		}
	}
	return worst;
}

static inline void summary_add(struct summary *s, const struct roce_pkt *p)
{
	s->frames++;
	s->bytes += p->wirelen;
	s->roce[p->version]++;
	if (p->op)
		s->opcode[p->h.bth.opcode]++;
	if (p->version) {
		s->icrc[p->icrc_status]++;
		s->ecn[roce_ecn(&p->net)]++;
	}
	if (!roce_evset_empty(&p->events)) {
		uint64_t by_sev[3] = {0};
		int worst = summary_count_events(p, s->events, by_sev);
		if (worst >= 0)  /* always, unless a bit past the table were set */
			s->worst[worst]++;
	}
}

/* an: the analyzer, for the congestion (PFC/PAUSE) part; link_bps: --link-speed */
void summary_print_text(const struct summary *s, const struct capstats *cs, const struct roce_analyzer *an,
			uint64_t link_bps, FILE *out);
void summary_print_json(const struct summary *s, const struct capstats *cs, const struct roce_analyzer *an, FILE *out);

#endif
