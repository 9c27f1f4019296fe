/* floor_icrc.h: the floors' per-frame work (barefloor.c, floor.c; tests/bench/README.md): walk
 * an Ethernet frame's headers only as far as the RoCEv2 ICRC's span needs (Ethernet II with VLAN
 * and QinQ tags skipped, IPv4 with IHL and total length or IPv6 without extension headers, UDP
 * destination port 4791), copy and mask the headers the ICRC covers (IBTA Annex A17: 8 bytes 0xFF
 * for the LRH; IPv4 TOS, TTL and header checksum, or IPv6 traffic class, flow label and hop
 * limit; the UDP checksum; BTH byte 4), copy a rest of up to 256 bytes behind them, and run the
 * CRC library rocedump's core uses (ISA-L crc32_gzip_refl: one call for the masked headers and a
 * short rest, two otherwise), as analyzer/core/icrc.c does. Frames it does not handle (RoCEv1,
 * fragments, IPv6 extension headers, tunnels) are counted as "other".
 *
 * On x86-64 CPUs with AVX it executes vzeroupper after the CRC (unless turned off): ISA-L 2.30's
 * AVX-512 path (crc32_gzip_refl_by16_10, taken for long buffers) returns with the upper halves of
 * zmm0-15 dirty, and every legacy-SSE instruction that follows (memcpy/memset inlined by the
 * compiler, libc, libpcap) then runs slowly; the core does the same (analyzer/core/crc32.h). */
#ifndef FLOOR_ICRC_H
#define FLOOR_ICRC_H

#include <isa-l/crc.h>
#include <stdint.h>
#include <string.h>

#define ETH_HLEN 14
#define UDP_HLEN 8
#define BTH_LEN 12
#define ICRC_LEN 4
#define ROCE_PORT 4791
#define IP6_HLEN 40
#define MASKED_MAX (8 + 60 + UDP_HLEN + BTH_LEN)
#define SMALL_TAIL 256

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static int clear_upper;  /* the CPU has AVX (vzeroupper exists) and it was not turned off */
static inline void zero_upper(void)
{
	if (clear_upper)
		__asm__ volatile("vzeroupper" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
				 "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
static void zero_upper_init(int enable)
{
	__builtin_cpu_init();
	clear_upper = enable && __builtin_cpu_supports("avx");
}
#else
static inline void zero_upper(void) {}
static void zero_upper_init(int enable) { (void)enable; }
#endif

struct counts {
	uint64_t frames, bytes, roce, good, bad, other;
};

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* One Ethernet frame: its RoCEv2 ICRC checked, or counted as other. */
static void check_frame(struct counts *c, const uint8_t *f, uint32_t caplen)
{
	uint32_t off = 12;
	uint16_t type;
	while (off + 2 <= caplen && ((type = be16(f + off)) == 0x8100 || type == 0x88a8))
		off += 4;  /* VLAN / QinQ tags */
	off += 2;
	if (off > caplen) {
		c->other++;
		return;
	}
	const uint8_t *ip = f + off;
	uint8_t b[MASKED_MAX + SMALL_TAIL];
	uint32_t n = 8, ip_end, hl;
	if (type == 0x0800 && off + 20 <= caplen) {
		hl = (ip[0] & 0x0fu) * 4u;
		ip_end = off + be16(ip + 2);
		if (ip[0] >> 4 != 4 || hl < 20 || ip[9] != 17 || (be16(ip + 6) & 0x3fff) != 0 ||
		    ip_end < off + hl + UDP_HLEN + BTH_LEN + ICRC_LEN || ip_end > caplen) {
			c->other++;
			return;
		}
		memcpy(b + n, ip, hl);
		b[n + 1] = 0xff;                   /* TOS */
		b[n + 8] = 0xff;                   /* TTL */
		b[n + 10] = b[n + 11] = 0xff;      /* header checksum */
	} else if (type == 0x86dd && off + IP6_HLEN <= caplen) {
		hl = IP6_HLEN;
		ip_end = off + IP6_HLEN + be16(ip + 4);
		if (ip[0] >> 4 != 6 || ip[6] != 17 || ip_end < off + hl + UDP_HLEN + BTH_LEN + ICRC_LEN ||
		    ip_end > caplen) {
			c->other++;
			return;
		}
		memcpy(b + n, ip, IP6_HLEN);
		b[n] |= 0x0f;                      /* traffic class, flow label */
		b[n + 1] = b[n + 2] = b[n + 3] = 0xff;
		b[n + 7] = 0xff;                   /* hop limit */
	} else {
		c->other++;
		return;
	}
	const uint8_t *udp = ip + hl;
	if (be16(udp + 2) != ROCE_PORT) {
		c->other++;
		return;
	}
	c->roce++;
	memset(b, 0xff, 8);                        /* the LRH */
	n += hl;
	memcpy(b + n, udp, UDP_HLEN + BTH_LEN);
	b[n + 6] = b[n + 7] = 0xff;                /* UDP checksum */
	b[n + UDP_HLEN + 4] = 0xff;                /* BTH FECN, BECN, Resv6 */
	n += UDP_HLEN + BTH_LEN;
	const uint8_t *rest = udp + UDP_HLEN + BTH_LEN, *icrc = f + ip_end - ICRC_LEN;
	uint32_t tail = (uint32_t)(icrc - rest), crc;
	if (tail <= SMALL_TAIL) {
		memcpy(b + n, rest, tail);
		crc = crc32_gzip_refl(0, b, n + tail);
	} else {
		crc = crc32_gzip_refl(0, b, n);
		crc = crc32_gzip_refl(crc, rest, tail);
	}
	zero_upper();
	uint32_t wire = (uint32_t)icrc[0] | (uint32_t)icrc[1] << 8 | (uint32_t)icrc[2] << 16 | (uint32_t)icrc[3] << 24;
	if (crc == wire)
		c->good++;
	else
		c->bad++;
}

#endif
