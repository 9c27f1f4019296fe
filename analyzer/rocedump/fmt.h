/* fmt.h: text forms shared by the text and JSON printers: addresses and timestamps. */
#ifndef ROCEDUMP_FMT_H
#define ROCEDUMP_FMT_H

#include <stdint.h>

#include "roce/decode.h"

#define FMT_ADDR_MAX 46  /* INET6_ADDRSTRLEN */

void fmt_mac(char out[18], const uint8_t *mac);
/* An IPv4 or IPv6 address (or GID) of len 4 or 16 bytes. */
void fmt_ip(char out[FMT_ADDR_MAX], const uint8_t *addr, unsigned len);
/* The packet's network source and destination (RoCEv1: GIDs). Empty strings when there is none. */
void fmt_net_addrs(const struct roce_pkt *p, const uint8_t *frame, char src[FMT_ADDR_MAX], char dst[FMT_ADDR_MAX]);
/* HH:MM:SS.uuuuuu in UTC. */
void fmt_time(char out[32], int64_t sec, uint32_t nsec);

#endif
