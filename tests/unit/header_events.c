/* header_events.c: include/roce/events.h compiles on its own (and twice: include guard). */
#include "roce/events.h"
#include "roce/events.h"

int header_events_check(void);
int header_events_check(void)
{
	struct roce_evset s = {{0}};
	roce_evset_add(&s, ROCE_EV_ICRC_BAD);
	return roce_evset_has(&s, ROCE_EV_ICRC_BAD) && ROCE_EV_COUNT > ROCE_EV_ICRC_BAD;
}
