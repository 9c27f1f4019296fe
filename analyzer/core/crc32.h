/* crc32.h: the CRC-32 (IEEE 802.3, reflected; zlib's crc32) the ICRC is built on (internal).
 * roce_crc32(crc, p, n) continues crc over n bytes, with zlib's convention: start from 0, and the
 * result of one call is the starting value of the next. The library is chosen at build time
 * (meson option crc_library; README "CRC-32 library" says why the default won). */
#ifndef ROCE_CRC32_H
#define ROCE_CRC32_H

#include <stddef.h>
#include <stdint.h>

#if defined(ROCE_CRC_ISAL)
#include <isa-l/crc.h>
/* ISA-L's AVX-512 CRC kernels return with the upper vector state dirty (no vzeroupper; the
 * ISA-L maintainers leave that to the caller, intel/isa-l#24). The SSE code that runs next, such
 * as libc's memcpy, then pays a state-transition penalty on every instruction, a large share of
 * rocedump's time on large packets (tests/bench/floor.c -Z shows it). Clear it after each call on CPUs with AVX. */
static inline uint32_t roce_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	uint32_t c = crc32_gzip_refl(crc, p, n);
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx"))
		__asm__ volatile("vzeroupper");
#endif
	return c;
}
#elif defined(ROCE_CRC_LIBDEFLATE)
#include <libdeflate.h>
static inline uint32_t roce_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	return libdeflate_crc32(crc, p, n);
}
#elif defined(ROCE_CRC_ZLIB)
#include <zlib.h>
static inline uint32_t roce_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	uint32_t c = crc;
	while (n > 0) { /* zlib takes uInt lengths */
		uInt chunk = n > 0x40000000u ? 0x40000000u : (uInt)n;
		c = (uint32_t)crc32(c, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return c;
}
#else
#error "define one of ROCE_CRC_ISAL, ROCE_CRC_LIBDEFLATE, ROCE_CRC_ZLIB"
#endif

#endif
