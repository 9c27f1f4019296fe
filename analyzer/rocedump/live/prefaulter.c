/* prefaulter.c: the thread that calls roce_analyzer_prefault() (see prefaulter.h and
 * analyzer/core/prefault.c): every PREFAULTER_PERIOD_US while it finds pages to populate, up to
 * 16 times as seldom while it finds none (a small capture, a quiet live one), so that an idle
 * rocedump does not wake a thousand times a second. */
#define _GNU_SOURCE  /* pthread_setname_np */
#include "live/prefaulter.h"

#include <pthread.h>
#include <time.h>

#define IDLE_PERIODS_MAX 16u

static void *prefault_loop(void *arg)
{
	struct prefaulter *p = arg;
	unsigned periods = 1;
	pthread_setname_np(pthread_self(), "rocedump-fault");
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		if (roce_analyzer_prefault(p->an))
			periods = 1;
		else if (periods < IDLE_PERIODS_MAX)
			periods *= 2;
		long ns = (long)periods * PREFAULTER_PERIOD_US * 1000L;
		const struct timespec wait = {ns / 1000000000L, ns % 1000000000L};
		nanosleep(&wait, NULL);  /* a signal cuts it short: the loop looks again */
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
