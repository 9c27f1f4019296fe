/* hoststack.h: keep the tester host's own IP stack from answering the DUT's RoCE packets
 * (hoststack.c), checked at start-up. */
#ifndef CONFORM_HOSTSTACK_H
#define CONFORM_HOSTSTACK_H

#include "conform.h"

/* Check, and guard where it can: when the host owns --local-ip, hold a UDP socket on its port
 * 4791 so that the kernel never answers the DUT with ICMP port unreachable (refused, unless
 * allowed, when the port is taken: a kernel RoCE stack such as rdma_rxe would answer the DUT);
 * when it does not, warn if the host forwards IP. Returns the socket (or -1 when none is needed)
 * with what was done in msg, or -2 with the reason in err. */
int host_stack_guard(const struct conf_opts *o, char msg[CONF_ERRLEN], char err[CONF_ERRLEN]);

#endif
