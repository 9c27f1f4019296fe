/* privs.h: -Z USER, as tcpdump's: once the capture device is open, become USER (its uid, its
 * primary gid and its supplementary groups), so that nothing after reads packets with root's
 * rights (privs.c). Unlike tcpdump, an unprivileged rocedump (CAP_NET_RAW alone, from setcap)
 * says it cannot switch users instead of going on as itself. */
#ifndef ROCEDUMP_PRIVS_H
#define ROCEDUMP_PRIVS_H

#include <stddef.h>

/* 0, or -1 with a message. */
int privs_drop(const char *user, char *errbuf, size_t errlen);

#endif
