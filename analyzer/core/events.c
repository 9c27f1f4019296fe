/* events.c: the event table (generated from include/roce/events.def) and its lookups. */
#include <string.h>

#include "roce/events.h"

struct event_row {
	const char *name;
	const char *description;
	enum roce_severity severity;
	enum roce_event_group group;
};

static const struct event_row rows[ROCE_EV_COUNT] = {
#define ROCE_EVENT(id, name, sev, group, desc) [ROCE_EV_##id] = {name, desc, ROCE_SEV_##sev, ROCE_GROUP_##group},
#include "roce/events.def"
#undef ROCE_EVENT
};

/* the titles, by event (ROCE_EVENT_TITLE; an event without one has NULL, roce_event_title() its
 * name, and the unit test fails) */
static const char *const titles[ROCE_EV_COUNT] = {
#define ROCE_EVENT_TITLE(id, title) [ROCE_EV_##id] = (title),
#include "roce/events.def"
#undef ROCE_EVENT_TITLE
};

_Static_assert(ROCE_EV_COUNT <= 64 * ROCE_EVSET_WORDS, "grow ROCE_EVSET_WORDS");

const char *roce_event_name(enum roce_event e)
{
	return (unsigned)e < ROCE_EV_COUNT ? rows[e].name : "?";
}

const char *roce_event_description(enum roce_event e)
{
	return (unsigned)e < ROCE_EV_COUNT ? rows[e].description : "?";
}

const char *roce_event_title(enum roce_event e)
{
	if ((unsigned)e >= ROCE_EV_COUNT)
		return "?";
	return titles[e] ? titles[e] : rows[e].name;
}

enum roce_severity roce_event_severity(enum roce_event e)
{
	return (unsigned)e < ROCE_EV_COUNT ? rows[e].severity : ROCE_SEV_INFO;
}

const char *roce_severity_name(enum roce_severity s)
{
	static const char *const names[] = {"info", "warn", "error"};
	return (unsigned)s < 3 ? names[s] : "?";
}

enum roce_event_group roce_event_group(enum roce_event e)
{
	return (unsigned)e < ROCE_EV_COUNT ? rows[e].group : ROCE_GROUP_PROTOCOL;
}

const char *roce_event_group_name(enum roce_event_group g)
{
	static const char *const names[] = {"sequence", "checksum", "malformed", "protocol"};
	return (unsigned)g < 4 ? names[g] : "?";
}

int roce_event_by_name(const char *name)
{
	for (unsigned i = 0; i < ROCE_EV_COUNT; i++)
		if (strcmp(rows[i].name, name) == 0)
			return (int)i;
	return -1;
}
