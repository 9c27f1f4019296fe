/* prefaulter.h: a thread that keeps the analyzer's growing arrays populated ahead of their use
 * (roce_analyzer_prefault), so that the sink thread does not wait while the kernel zeroes new
 * pages. rocedump runs it beside the pipeline's threads when there are more than one. */
#ifndef ROCEDUMP_PREFAULTER_H
#define ROCEDUMP_PREFAULTER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "roce/analyze.h"

#define PREFAULTER_PERIOD_US 1000  /* between two looks at the arrays while they grow */

struct prefaulter {
	struct roce_analyzer *an;
	pthread_t thread;
	atomic_bool stop;
	bool running;
};

/* Start the thread on an (which must outlive prefaulter_stop); false, and nothing started, when
 * no thread can be had: the analysis runs as well without it. */
bool prefaulter_start(struct prefaulter *p, struct roce_analyzer *an);
/* Stop the thread and wait for it (nothing when none was started). */
void prefaulter_stop(struct prefaulter *p);

#endif
