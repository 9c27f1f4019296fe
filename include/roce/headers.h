/* headers.h: decoded values of the BTH and every extended transport header (IBTA Vol 1 §9.2-9.3,
 * §9.7.5.1 AETH syndromes, Annex A17 CNP, IBA 1.5 FETH). The same structs describe what the
 * decoder read and what the builder writes. */
#ifndef ROCE_HEADERS_H
#define ROCE_HEADERS_H

#include "roce/common.h"
#include "roce/opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

struct roce_bth {
	uint8_t opcode;
	uint8_t se, m, padcnt, tver;  /* SE(1) M(1) PadCnt(2) TVer(4) */
	uint16_t pkey;
	uint8_t fecn, becn, resv6;    /* byte 4: F(1) B(1) Resv6 */
	uint32_t dqpn;                /* 24 bits */
	uint8_t ackreq, resv7;        /* byte 8: A(1) Resv7 */
	uint32_t psn;                 /* 24 bits */
};

struct roce_reth { uint64_t va; uint32_t rkey, dmalen; };
struct roce_aeth { uint8_t syndrome; uint32_t msn; };
struct roce_deth { uint32_t qkey; uint32_t srcqp; uint8_t resv; };
struct roce_rdeth { uint32_t eecnxt; uint8_t resv; };
struct roce_xrceth { uint32_t xrcsrq; uint8_t resv; };
struct roce_feth { uint8_t sel, plt; uint32_t resv; };   /* FLUSH: selectivity, placement type */
struct roce_atomiceth { uint64_t va; uint32_t rkey; uint64_t swap, cmp; };
struct roce_atomicacketh { uint64_t orig; };

/* The transport headers of one packet: hdrs says which extended headers are present. The
 * headers most packets carry come first, right after hdrs (AETH: acknowledgements and READ
 * responses; ImmDt; RETH: WRITE and READ requests; IETH), the rarer ones after them, so that
 * a decode of a common packet ends early in its roce_pkt (roce_pkt_extent(), decode.h). */
struct roce_hdrs {
	struct roce_bth bth;
	uint16_t hdrs;                 /* ROCE_HDR_* */
	struct roce_aeth aeth;
	uint32_t immdt;
	struct roce_reth reth;
	uint32_t ieth;                 /* the R_Key to invalidate */
	/* the rarer ones */
	struct roce_deth deth;
	struct roce_rdeth rdeth;
	struct roce_atomiceth atomiceth;
	struct roce_atomicacketh atomicacketh;
	struct roce_xrceth xrceth;
	struct roce_feth feth;
};

/* AETH syndrome (§9.7.5.1): bits 7:5 select the kind. */
enum roce_aeth_kind {
	ROCE_AETH_ACK = 0,       /* 000: ACK, bits 4:0 credit count */
	ROCE_AETH_RNR_NAK = 1,   /* 001: RNR NAK, bits 4:0 timer */
	ROCE_AETH_RESERVED = 2,  /* 010 */
	ROCE_AETH_NAK = 3,       /* 011: NAK, bits 4:0 code */
	/* 1xx reserved */
};
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0, ROCE_NAK_INVALID_REQUEST = 1, ROCE_NAK_REMOTE_ACCESS = 2,
	ROCE_NAK_REMOTE_OP = 3, ROCE_NAK_INVALID_RD_REQUEST = 4,
};
static inline unsigned roce_aeth_kind(uint8_t syndrome) { return syndrome >> 5; }
static inline unsigned roce_aeth_value(uint8_t syndrome) { return syndrome & 0x1f; }
/* "ACK", "RNR_NAK", "NAK", "RESERVED" */
ROCE_API const char *roce_aeth_kind_name(uint8_t syndrome);
/* "PSN_SEQ_ERR", "INVALID_REQUEST", "REMOTE_ACCESS", "REMOTE_OP", "INVALID_RD_REQUEST", or NULL */
ROCE_API const char *roce_nak_code_name(unsigned code);
/* RNR NAK timer code (0-31) to microseconds (Table 45; code 0 is 655.36 ms). */
ROCE_API uint32_t roce_rnr_timer_usec(unsigned code);

#ifdef __cplusplus
}
#endif
#endif
