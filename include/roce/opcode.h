/* opcode.h: the BTH opcode table (IBTA Vol 1 §9.2, Table 38; Annex A17 for the RoCEv2 CNP;
 * IBA 1.5 for FLUSH and ATOMIC WRITE): for each of the 256 opcodes, its name, transport,
 * the extended headers that follow the BTH, and whether it carries a payload. */
#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

#include "roce/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum roce_transport {
	ROCE_TR_RC = 0,   /* opcode bits 7:5 = 000 */
	ROCE_TR_UC = 1,   /* 001 */
	ROCE_TR_RD = 2,   /* 010 */
	ROCE_TR_UD = 3,   /* 011 */
	ROCE_TR_CNP = 4,  /* 100 (congestion notification) */
	ROCE_TR_XRC = 5,  /* 101 */
	ROCE_TR_VENDOR = 6, /* 110, 111: manufacturer specific */
};

/* Extended headers, in the order they follow the BTH on the wire. */
enum roce_hdr {
	ROCE_HDR_RDETH = 1u << 0,
	ROCE_HDR_DETH = 1u << 1,
	ROCE_HDR_XRCETH = 1u << 2,
	ROCE_HDR_FETH = 1u << 3,       /* FLUSH extended transport header */
	ROCE_HDR_RETH = 1u << 4,
	ROCE_HDR_ATOMICETH = 1u << 5,
	ROCE_HDR_AETH = 1u << 6,
	ROCE_HDR_ATOMICACKETH = 1u << 7,
	ROCE_HDR_IMMDT = 1u << 8,
	ROCE_HDR_IETH = 1u << 9,
	ROCE_HDR_CNP_PAD = 1u << 10,   /* the 16 reserved bytes of a CNP */
};

/* Where a packet sits in its message. */
enum roce_seg { ROCE_SEG_NONE = 0, ROCE_SEG_FIRST, ROCE_SEG_MIDDLE, ROCE_SEG_LAST, ROCE_SEG_ONLY };

/* What kind of operation an opcode belongs to. */
enum roce_op {
	ROCE_OP_NONE = 0, ROCE_OP_SEND, ROCE_OP_WRITE, ROCE_OP_READ_REQ, ROCE_OP_READ_RESP,
	ROCE_OP_ACK, ROCE_OP_ATOMIC_ACK, ROCE_OP_CMP_SWAP, ROCE_OP_FETCH_ADD, ROCE_OP_RESYNC,
	ROCE_OP_FLUSH, ROCE_OP_ATOMIC_WRITE, ROCE_OP_CNP,
};

/* RC opcode numbers (Table 38); OR a transport prefix for UC/UD/XRC (ROCE_OPC_UC etc.). */
enum roce_opcode_code {
	ROCE_OPC_SEND_FIRST = 0x00, ROCE_OPC_SEND_MIDDLE = 0x01, ROCE_OPC_SEND_LAST = 0x02,
	ROCE_OPC_SEND_LAST_IMM = 0x03, ROCE_OPC_SEND_ONLY = 0x04, ROCE_OPC_SEND_ONLY_IMM = 0x05,
	ROCE_OPC_WRITE_FIRST = 0x06, ROCE_OPC_WRITE_MIDDLE = 0x07, ROCE_OPC_WRITE_LAST = 0x08,
	ROCE_OPC_WRITE_LAST_IMM = 0x09, ROCE_OPC_WRITE_ONLY = 0x0a, ROCE_OPC_WRITE_ONLY_IMM = 0x0b,
	ROCE_OPC_READ_REQUEST = 0x0c, ROCE_OPC_READ_RESP_FIRST = 0x0d, ROCE_OPC_READ_RESP_MIDDLE = 0x0e,
	ROCE_OPC_READ_RESP_LAST = 0x0f, ROCE_OPC_READ_RESP_ONLY = 0x10, ROCE_OPC_ACK = 0x11,
	ROCE_OPC_ATOMIC_ACK = 0x12, ROCE_OPC_CMP_SWAP = 0x13, ROCE_OPC_FETCH_ADD = 0x14,
	ROCE_OPC_SEND_LAST_INV = 0x16, ROCE_OPC_SEND_ONLY_INV = 0x17,
	/* transport prefixes (bits 7:5) */
	ROCE_OPC_RC = 0x00, ROCE_OPC_UC = 0x20, ROCE_OPC_RD = 0x40, ROCE_OPC_UD = 0x60,
	ROCE_OPC_XRC = 0xa0,
	ROCE_OPC_UD_SEND_ONLY = 0x64,
	ROCE_OPC_CNP = 0x81,          /* RoCEv2 CNP (Annex A17.9.3) */
};

#define ROCE_OPF_VALID    0x01u  /* defined (not reserved) */
#define ROCE_OPF_PAYLOAD  0x02u  /* carries a payload (may be 0 bytes) */
#define ROCE_OPF_RESPONSE 0x04u  /* a response (ACK, READ response, atomic ACK) */
#define ROCE_OPF_VENDOR   0x08u  /* manufacturer specific */

struct roce_opcode_info {
	const char *name;      /* "SEND_ONLY"; NULL for reserved opcodes */
	uint16_t hdrs;         /* ROCE_HDR_* mask */
	uint8_t hdrs_len;      /* bytes of those headers */
	uint8_t transport;     /* enum roce_transport */
	uint8_t op;            /* enum roce_op */
	uint8_t seg;           /* enum roce_seg */
	uint8_t flags;         /* ROCE_OPF_* */
};

ROCE_API const struct roce_opcode_info *roce_opcode_info(uint8_t opcode);
/* "RC", "UC", "RD", "UD", "CNP", "XRC", "VENDOR" */
ROCE_API const char *roce_transport_name(enum roce_transport t);
/* Bytes of the extended headers in mask hdrs. */
ROCE_API unsigned roce_hdrs_len(uint16_t hdrs);

/* Wire sizes of the headers (IBTA Vol 1 §9.3). */
#define ROCE_BTH_LEN 12
#define ROCE_RDETH_LEN 4
#define ROCE_DETH_LEN 8
#define ROCE_XRCETH_LEN 4
#define ROCE_FETH_LEN 4
#define ROCE_RETH_LEN 16
#define ROCE_ATOMICETH_LEN 28
#define ROCE_AETH_LEN 4
#define ROCE_ATOMICACKETH_LEN 8
#define ROCE_IMMDT_LEN 4
#define ROCE_IETH_LEN 4
#define ROCE_CNP_PAD_LEN 16
#define ROCE_ICRC_LEN 4
#define ROCE_GRH_LEN 40

#ifdef __cplusplus
}
#endif
#endif
