/* icrc.h: compute the RoCE invariant CRC (internal; see icrc.c). */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <stdint.h>

#include "roce/decode.h"

/* The ICRC of the RoCE packet in frame: network header at net_off (kind ROCE_NET_IPV4, IPV6 or
 * GRH, net_hdr_len bytes incl. IPv4 options or IPv6 extension headers), UDP header right after it
 * for RoCEv2, BTH at bth_off, ICRC at icrc_off. Every byte of [net_off, icrc_off) must be present. */
uint32_t icrc_compute(const uint8_t *frame, unsigned kind, uint32_t net_off, uint32_t net_hdr_len,
		      uint32_t bth_off, uint32_t icrc_off);

#endif
