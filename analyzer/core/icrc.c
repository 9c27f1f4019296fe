/* icrc.c: the RoCE invariant CRC (IBTA Vol 1 §7.8.1; Annex A16 RoCEv1, Annex A17 RoCEv2;
 * docs/architecture.md "The ICRC, in short").
 *
 * CRC-32 over: 8 bytes 0xFF (the masked LRH) || network header || UDP header (v2) || BTH ||
 * extended headers, payload and pad. Masked to ones (the fields routers rewrite): IPv4 TOS, TTL and
 * header checksum; IPv6/GRH traffic class, flow label and hop limit; UDP checksum; BTH byte 4
 * (FECN, BECN, Resv6). The value is sent least-significant byte first. The masked headers are
 * copied into a small buffer; everything after the BTH is read in place. */
#include "icrc.h"

#include <string.h>

#include "crc32.h"
#include "roce/opcode.h"
#include "wire.h"

/* 8 (LRH) + 60 (IPv4 with options) + 8 (UDP) + 12 (BTH) */
#define SMALL_TAIL 256  /* packets whose payload part is this short are CRC-ed in one call */
#define MASKED_MAX (8 + 60 + UDP_HLEN + ROCE_BTH_LEN)

static uint32_t mask_ipv6_like(uint8_t *b, const uint8_t *hdr)
{
	memcpy(b, hdr, IP6_HLEN);
	b[0] |= 0x0f;                   /* traffic class, high nibble */
	b[1] = b[2] = b[3] = 0xff;      /* traffic class low nibble, flow label */
	b[IP6_HLIM] = 0xff;
	return IP6_HLEN;
}

static uint32_t mask_udp_bth(uint8_t *b, const uint8_t *udp)
{
	memcpy(b, udp, UDP_HLEN + ROCE_BTH_LEN);
	b[UDP_CSUM] = b[UDP_CSUM + 1] = 0xff;
	b[UDP_HLEN + BTH_FB] = 0xff;
	return UDP_HLEN + ROCE_BTH_LEN;
}

uint32_t icrc_compute(const uint8_t *frame, unsigned kind, uint32_t net_off, uint32_t net_hdr_len,
		      uint32_t bth_off, uint32_t icrc_off)
{
	uint8_t b[MASKED_MAX + SMALL_TAIL];
	uint32_t n = 8, crc = 0;
	const uint8_t *net = frame + net_off;

	memset(b, 0xff, 8);
	switch (kind) {
	case ROCE_NET_IPV4:
		if (net_hdr_len == IP4_HLEN)  /* no options: a fixed-size copy, inlined */
			memcpy(b + n, net, IP4_HLEN);
		else
			memcpy(b + n, net, net_hdr_len);
		b[n + IP4_TOS] = 0xff;
		b[n + IP4_TTL] = 0xff;
		b[n + IP4_CSUM] = b[n + IP4_CSUM + 1] = 0xff;
		n += net_hdr_len;
		n += mask_udp_bth(b + n, net + net_hdr_len);
		break;
	case ROCE_NET_IPV6:
		n += mask_ipv6_like(b + n, net);
		if (net_hdr_len > IP6_HLEN) { /* extension headers are covered as they are */
			crc = roce_crc32(0, b, n);
			crc = roce_crc32(crc, net + IP6_HLEN, net_hdr_len - IP6_HLEN);
			n = mask_udp_bth(b, net + net_hdr_len);
		} else {
			n += mask_udp_bth(b + n, net + net_hdr_len);
		}
		break;
	default: /* ROCE_NET_GRH */
		n += mask_ipv6_like(b + n, net);
		memcpy(b + n, frame + bth_off, ROCE_BTH_LEN);
		b[n + BTH_FB] = 0xff;
		n += ROCE_BTH_LEN;
		break;
	}
	/* b[0..n) holds the masked headers; the rest of the packet follows them in the frame. A
	 * short rest is copied behind them, for one CRC call instead of two (each call has a fixed
	 * cost about that of CRC-ing 100 bytes). */
	uint32_t rest = bth_off + ROCE_BTH_LEN, tail = icrc_off - rest;
	if (tail <= SMALL_TAIL) {
		memcpy(b + n, frame + rest, tail);
		return roce_crc32(crc, b, n + tail);
	}
	crc = roce_crc32(crc, b, n);
	return roce_crc32(crc, frame + rest, tail);
}
