/* stream_hash.h: a stream's hash in the analyzer's stream index (internal), from what its frames
 * carry: the source and destination addresses' bytes (4 each for IPv4, 16 for IPv6 or a RoCEv1
 * GID) and the destination QP. The analysis finds a known stream by it without looking either
 * address up (two hash-map lookups a frame), and a decoding thread can work it out ahead
 * (ROCE_DECODE_STREAM_HASH). stream_lookup.h computes the same value from a stream's key, from
 * its interned addresses' bytes. Two streams with one hash cost a probe, not a wrong answer: a
 * match is checked against the stream's QP and addresses. */
#ifndef ROCE_STREAM_HASH_H
#define ROCE_STREAM_HASH_H

#include <stdint.h>

#include "bytes.h"
#include "u64map.h"

/* stream_hint (roce_pkt) holds a stream's hash in its low 32 bits, with this bit set */
#define HINT_HASH (UINT64_C(1) << 32)

/* len: 4 or 16; qpn: 24 bits */
static inline uint32_t stream_hash_raw(const uint8_t *src, const uint8_t *dst, unsigned len, uint32_t qpn)
{
	uint64_t k;
	if (len == 4) {  /* the two addresses are the key's 64 bits: no fold needed */
		k = (uint64_t)ld_ne32(src) << 32 | ld_ne32(dst);
	} else {
		k = ld_ne64(src) * UINT64_C(0x9e3779b97f4a7c15) ^
		    ld_ne64(src + 8) * UINT64_C(0xc2b2ae3d27d4eb4f) ^
		    ld_ne64(dst) * UINT64_C(0x165667b19e3779f9) ^ ld_ne64(dst + 8);
	}
	return u64map_hash(k ^ (uint64_t)qpn * UINT64_C(0xff51afd7ed558ccd));
}

#endif
