/* names.c: text for the core's enums and codes (error codes, checksum and ICRC outcomes, layers,
 * wrappers, AETH kinds and NAK codes, the RNR timer table of IBTA Vol 1 §9.7.5.2.8 Table 45). */
#include "roce/decode.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *roce_strerror(int err)
{
	switch (err) {
	case ROCE_OK: return "success";
	case ROCE_ERR_ARG: return "invalid argument";
	case ROCE_ERR_NOSPACE: return "output buffer too small";
	case ROCE_ERR_NOMEM: return "out of memory";
	case ROCE_ERR_UNSUPPORTED: return "unsupported combination";
	default: return "unknown error";
	}
}

const char *roce_csum_name(enum roce_csum c)
{
	static const char *const n[] = {"absent", "good", "bad", "unverifiable"};
	return (unsigned)c < COUNT(n) ? n[c] : "?";
}

const char *roce_icrc_status_name(enum roce_icrc_status s)
{
	static const char *const n[] = {"unchecked", "good", "bad", "unverifiable"};
	return (unsigned)s < COUNT(n) ? n[s] : "?";
}

const char *roce_layer_name(enum roce_layer l)
{
	static const char *const n[] = {"", "link", "vlan", "gre", "erspan", "vxlan", "ip", "ip6",
					"grh", "udp", "bth", "eth", "payload", "icrc"};
	return (unsigned)l < COUNT(n) ? n[l] : "?";
}

const char *roce_wrap_name(enum roce_wrap_kind k)
{
	static const char *const n[] = {"none", "gre", "erspan1", "erspan2", "erspan3", "vxlan"};
	return (unsigned)k < COUNT(n) ? n[k] : "?";
}

const char *roce_aeth_kind_name(uint8_t syndrome)
{
	switch (roce_aeth_kind(syndrome)) {
	case ROCE_AETH_ACK: return "ACK";
	case ROCE_AETH_RNR_NAK: return "RNR_NAK";
	case ROCE_AETH_NAK: return "NAK";
	default: return "RESERVED";
	}
}

const char *roce_nak_code_name(unsigned code)
{
	static const char *const n[] = {"PSN_SEQ_ERR", "INVALID_REQUEST", "REMOTE_ACCESS", "REMOTE_OP",
					"INVALID_RD_REQUEST"};
	return code < COUNT(n) ? n[code] : NULL;
}

uint32_t roce_rnr_timer_usec(unsigned code)
{
	static const uint32_t usec[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
		163840, 245760, 327680, 491520,
	};
	return usec[code & 31];
}
