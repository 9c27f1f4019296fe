/* signals.h: how a long capture is stopped and asked about, as tcpdump's: SIGINT, SIGTERM and
 * SIGHUP ask for a clean stop (the frames so far flushed, the summary and counts printed; a
 * second one kills as usual), SIGUSR1 for the capture counts now (signals.c). The handlers only
 * set flags; the analysis thread reads them between frames and while it waits for input. */
#ifndef ROCEDUMP_SIGNALS_H
#define ROCEDUMP_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

extern volatile sig_atomic_t signals_stop_flag;

void signals_install(void);

static inline bool signals_stop(void)
{
	return signals_stop_flag != 0;
}

/* True once per SIGUSR1 received since the last call. */
bool signals_take_info(void);

#endif
