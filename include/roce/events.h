/* events.h: the closed table of anomaly events shared by the decoder, the analyzers, the CLI,
 * the Wireshark plugin and the tests. The table itself is events.def (an X-macro list). */
#ifndef ROCE_EVENTS_H
#define ROCE_EVENTS_H

#include "roce/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum roce_severity { ROCE_SEV_INFO = 0, ROCE_SEV_WARN = 1, ROCE_SEV_ERROR = 2 };
/* The kind of problem an event is (events.def's GROUP column; Wireshark's expert info groups). */
enum roce_event_group { ROCE_GROUP_SEQUENCE = 0, ROCE_GROUP_CHECKSUM, ROCE_GROUP_MALFORMED, ROCE_GROUP_PROTOCOL };

enum roce_event {
#define ROCE_EVENT(id, name, sev, group, desc) ROCE_EV_##id,
#include "roce/events.def"
#undef ROCE_EVENT
	ROCE_EV_COUNT
};

/* A set of events, one bit per event. */
#define ROCE_EVSET_WORDS 2
struct roce_evset { uint64_t w[ROCE_EVSET_WORDS]; };

static inline void roce_evset_add(struct roce_evset *s, enum roce_event e)
{
	s->w[(unsigned)e >> 6] |= UINT64_C(1) << ((unsigned)e & 63);
}
static inline bool roce_evset_has(const struct roce_evset *s, enum roce_event e)
{
	return (s->w[(unsigned)e >> 6] >> ((unsigned)e & 63)) & 1;
}
static inline bool roce_evset_empty(const struct roce_evset *s)
{
	return (s->w[0] | s->w[1]) == 0;
}
/* The first event of s from e on, ROCE_EV_COUNT if none: for (e = roce_evset_next(s, 0);
 * e < ROCE_EV_COUNT; e = roce_evset_next(s, e + 1)) visits s's events in the table's order, a
 * step per event rather than per event the table has. */
static inline unsigned roce_evset_next(const struct roce_evset *s, unsigned e)
{
	for (unsigned w = e >> 6; w < ROCE_EVSET_WORDS; w++, e = w << 6) {
		uint64_t bits = s->w[w] & (~UINT64_C(0) << (e & 63));
		if (bits)
			return (w << 6) + (unsigned)__builtin_ctzll(bits);
	}
	return ROCE_EV_COUNT;
}

ROCE_API const char *roce_event_name(enum roce_event e);        /* "icrc.bad" */
ROCE_API const char *roce_event_description(enum roce_event e); /* one line */
/* A few words naming the event, the same on every frame ("RoCE retransmission (timeout)"): the
 * plugin's expert info summary. Its name for an event the table gives no title. */
ROCE_API const char *roce_event_title(enum roce_event e);
ROCE_API enum roce_severity roce_event_severity(enum roce_event e);
ROCE_API const char *roce_severity_name(enum roce_severity s);  /* "info", "warn", "error" */
ROCE_API enum roce_event_group roce_event_group(enum roce_event e);
/* "sequence", "checksum", "malformed", "protocol" */
ROCE_API const char *roce_event_group_name(enum roce_event_group g);
/* The event with this name, or -1. */
ROCE_API int roce_event_by_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
