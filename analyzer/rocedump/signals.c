/* signals.c: the stop and info signals (see signals.h). SA_RESTART keeps reads and writes from
 * failing with EINTR; poll(), where the analysis waits for input, returns early all the same. */
#include "signals.h"

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

static char bus_message[4200];
static size_t bus_len;
static int bus_exit_status;

/* SIGBUS: a page of the mapped file that cannot be read: past its end (it was cut shorter since
 * it was mapped), or on a failing disk. Only async-signal-safe calls: the message was written out
 * beforehand. */
static void on_bus(int sig)
{
	(void)sig;
	if (write(STDERR_FILENO, bus_message, bus_len) < 0) {
		/* nothing more can be done */
	}
	_exit(bus_exit_status);
}

void signals_watch_mapped_file(const char *path, int exit_status)
{
	bus_exit_status = exit_status;
	int n = snprintf(bus_message, sizeof(bus_message),
			 "rocedump: %s: part of the file could not be read "
			 "(cut shorter while being read, or an I/O error)\n",
			 path);
	bus_len = n < 0 ? 0 : (size_t)n < sizeof(bus_message) ? (size_t)n : sizeof(bus_message) - 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_bus;
	sigaction(SIGBUS, &sa, NULL);
}
