/* csum.h: the Internet checksum (RFC 1071) for the IPv4 header and UDP, shared by the decoder
 * (verify) and the builder (write) (internal). */
#ifndef ROCE_CSUM_H
#define ROCE_CSUM_H

#include <stdint.h>

/* Add n bytes, as big-endian 16-bit words, to a ones'-complement sum (not folded). */
static inline uint32_t csum_add(uint32_t sum, const uint8_t *b, uint32_t n)
{
	uint32_t i = 0;
	for (; i + 1 < n; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (i < n)
		sum += (uint32_t)b[i] << 8;
	return sum;
}

/* Fold a sum to 16 bits: 0xffff when the covered bytes include a correct checksum. */
static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

#endif
