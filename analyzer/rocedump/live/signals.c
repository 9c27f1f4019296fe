/* signals.c: the stop and info signals (see signals.h). SA_RESTART keeps reads and writes from
 * failing with EINTR; poll(), where the analysis waits for input, returns early all the same. */
#include "live/signals.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t signals_stop_flag;
static volatile sig_atomic_t info_flag;

static void on_stop(int sig)
{
	(void)sig;
	signals_stop_flag = 1;
}

static void on_info(int sig)
{
	(void)sig;
	info_flag = 1;
}

void signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART | SA_RESETHAND;  /* a second signal: the default action */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_info;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

bool signals_take_info(void)
{
	if (!info_flag)
		return false;
	info_flag = 0;
	return true;
}

