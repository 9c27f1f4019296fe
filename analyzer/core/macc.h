/* macc.h: MAC control frames, decoded and built (internal): IEEE 802.3 Annex 31B PAUSE and IEEE
 * 802.1Qbb priority-based flow control, EtherType 0x8808. Offsets are from the opcode. */
#ifndef ROCE_MACC_H
#define ROCE_MACC_H

#include "roce/decode.h"

#define MACC_OPCODE 0
#define MACC_PAUSE_TIME 2          /* PAUSE: one 16-bit pause time */
#define MACC_PAUSE_LEN 4
#define MACC_PFC_ENBV 2            /* PFC: 16-bit class-enable vector (low 8 bits used) */
#define MACC_PFC_TIME 4            /* PFC: eight 16-bit pause times, priority 0 first */
#define MACC_PFC_LEN 20
#define MACC_MIN_FRAME 60          /* Ethernet's minimum frame without its FCS: the rest is zero */

/* Decode the MAC control frame whose opcode is at off (lim: captured bytes usable; wire_end:
 * where the frame ends on the wire). Sets p->net.kind = ROCE_NET_MACC and p->macc, and adds
 * pfc.malformed or truncated. */
void macc_decode(struct roce_pkt *p, const uint8_t *frame, uint32_t off, uint32_t lim, uint32_t wire_end);

#endif
