/* prefaulter.c: the thread that calls roce_analyzer_prefault() about once a millisecond (see
 * prefaulter.h and analyzer/core/prefault.c). */
#include "prefaulter.h"

#include <time.h>

static void *prefault_loop(void *arg)
{
	struct prefaulter *p = arg;
	const struct timespec period = {0, PREFAULTER_PERIOD_US * 1000L};
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		(void)roce_analyzer_prefault(p->an);
		nanosleep(&period, NULL);  /* a signal cuts it short: the loop looks again */
	}
	return NULL;
}

bool prefaulter_start(struct prefaulter *p, struct roce_analyzer *an)
{
	p->an = an;
	atomic_init(&p->stop, false);
	p->running = pthread_create(&p->thread, NULL, prefault_loop, p) == 0;
	return p->running;
}

void prefaulter_stop(struct prefaulter *p)
{
	if (!p->running)
		return;
	atomic_store_explicit(&p->stop, true, memory_order_relaxed);
	pthread_join(p->thread, NULL);
	p->running = false;
}
