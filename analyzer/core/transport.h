/* transport.h: read and write the BTH and the extended transport headers (internal).
 * Each header has a reader and a writer side by side over the same offsets (wire.h). */
#ifndef ROCE_TRANSPORT_H
#define ROCE_TRANSPORT_H

#include "bytes.h"
#include "roce/headers.h"

/* Read the BTH from p, which span_at() vouched for ROCE_BTH_LEN bytes. */
void bth_read(const uint8_t *p, struct roce_bth *b);
/* Read the extended headers named by h->hdrs from p, which span_at() vouched for their length. */
void ext_read(const uint8_t *p, struct roce_hdrs *h);
/* Write the BTH and then the extended headers named by h->hdrs; returns the bytes written. */
uint32_t transport_write(uint8_t *out, const struct roce_hdrs *h);

#endif
