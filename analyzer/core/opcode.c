/* opcode.c: the BTH opcode table (IBTA Vol 1 §9.2 Table 38, §9.3 header order; Annex A17 CNP;
 * IBA 1.5 FLUSH 0x1C and ATOMIC WRITE 0x1D as Linux rxe lays them out).
 *
 * Header order after the BTH: RDETH, DETH, XRCETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH,
 * ImmDt, IETH. RD requests carry RDETH+DETH, RD responses RDETH; XRC requests carry XRCETH. */
#include "roce/opcode.h"

#define P ROCE_OPF_PAYLOAD
#define R ROCE_OPF_RESPONSE
#define V ROCE_OPF_VALID

/* Bytes of the extended headers in mask m, as a constant expression. */
#define HLEN(m)                                                                                   \
	((((m) & ROCE_HDR_RDETH) ? ROCE_RDETH_LEN : 0) + (((m) & ROCE_HDR_DETH) ? ROCE_DETH_LEN : 0) + \
	 (((m) & ROCE_HDR_XRCETH) ? ROCE_XRCETH_LEN : 0) + (((m) & ROCE_HDR_FETH) ? ROCE_FETH_LEN : 0) + \
	 (((m) & ROCE_HDR_RETH) ? ROCE_RETH_LEN : 0) +                                              \
	 (((m) & ROCE_HDR_ATOMICETH) ? ROCE_ATOMICETH_LEN : 0) +                                    \
	 (((m) & ROCE_HDR_AETH) ? ROCE_AETH_LEN : 0) +                                              \
	 (((m) & ROCE_HDR_ATOMICACKETH) ? ROCE_ATOMICACKETH_LEN : 0) +                              \
	 (((m) & ROCE_HDR_IMMDT) ? ROCE_IMMDT_LEN : 0) + (((m) & ROCE_HDR_IETH) ? ROCE_IETH_LEN : 0) + \
	 (((m) & ROCE_HDR_CNP_PAD) ? ROCE_CNP_PAD_LEN : 0))

/* One entry: the transport is the opcode's top three bits. */
#define OP(code, name, hdrs, op, seg, flags) \
	[code] = {name, (hdrs), HLEN(hdrs), (code) >> 5, ROCE_OP_##op, ROCE_SEG_##seg, (flags)}

#define RETH ROCE_HDR_RETH
#define AETH ROCE_HDR_AETH
#define IMM ROCE_HDR_IMMDT

/* The RC-shaped list (low 5 bits) shared by RC, UC, RD and XRC; req/resp: the headers before
 * the operation's own (RD: RDETH+DETH / RDETH; XRC: XRCETH / none). */
#define SEND_WRITE(b, req)                                                          \
	OP((b) + 0x00, "SEND_FIRST", (req), SEND, FIRST, V | P),                    \
	OP((b) + 0x01, "SEND_MIDDLE", (req), SEND, MIDDLE, V | P),                  \
	OP((b) + 0x02, "SEND_LAST", (req), SEND, LAST, V | P),                      \
	OP((b) + 0x03, "SEND_LAST_IMM", (req) | IMM, SEND, LAST, V | P),            \
	OP((b) + 0x04, "SEND_ONLY", (req), SEND, ONLY, V | P),                      \
	OP((b) + 0x05, "SEND_ONLY_IMM", (req) | IMM, SEND, ONLY, V | P),            \
	OP((b) + 0x06, "WRITE_FIRST", (req) | RETH, WRITE, FIRST, V | P),           \
	OP((b) + 0x07, "WRITE_MIDDLE", (req), WRITE, MIDDLE, V | P),                \
	OP((b) + 0x08, "WRITE_LAST", (req), WRITE, LAST, V | P),                    \
	OP((b) + 0x09, "WRITE_LAST_IMM", (req) | IMM, WRITE, LAST, V | P),          \
	OP((b) + 0x0a, "WRITE_ONLY", (req) | RETH, WRITE, ONLY, V | P),             \
	OP((b) + 0x0b, "WRITE_ONLY_IMM", (req) | RETH | IMM, WRITE, ONLY, V | P)

#define READ_ATOMIC(b, req, resp)                                                                \
	OP((b) + 0x0c, "READ_REQUEST", (req) | RETH, READ_REQ, ONLY, V),                         \
	OP((b) + 0x0d, "READ_RESPONSE_FIRST", (resp) | AETH, READ_RESP, FIRST, V | P | R),       \
	OP((b) + 0x0e, "READ_RESPONSE_MIDDLE", (resp), READ_RESP, MIDDLE, V | P | R),            \
	OP((b) + 0x0f, "READ_RESPONSE_LAST", (resp) | AETH, READ_RESP, LAST, V | P | R),         \
	OP((b) + 0x10, "READ_RESPONSE_ONLY", (resp) | AETH, READ_RESP, ONLY, V | P | R),         \
	OP((b) + 0x11, "ACKNOWLEDGE", (resp) | AETH, ACK, NONE, V | R),                          \
	OP((b) + 0x12, "ATOMIC_ACKNOWLEDGE", (resp) | AETH | ROCE_HDR_ATOMICACKETH, ATOMIC_ACK,  \
	   NONE, V | R),                                                                          \
	OP((b) + 0x13, "COMPARE_SWAP", (req) | ROCE_HDR_ATOMICETH, CMP_SWAP, ONLY, V),           \
	OP((b) + 0x14, "FETCH_ADD", (req) | ROCE_HDR_ATOMICETH, FETCH_ADD, ONLY, V)

#define INVALIDATE(b, req)                                                        \
	OP((b) + 0x16, "SEND_LAST_INV", (req) | ROCE_HDR_IETH, SEND, LAST, V | P), \
	OP((b) + 0x17, "SEND_ONLY_INV", (req) | ROCE_HDR_IETH, SEND, ONLY, V | P)

#define RD_REQ (ROCE_HDR_RDETH | ROCE_HDR_DETH)

static const struct roce_opcode_info table[256] = {
	/* RC */
	SEND_WRITE(0x00, 0),
	READ_ATOMIC(0x00, 0, 0),
	INVALIDATE(0x00, 0),
	OP(0x1c, "FLUSH", ROCE_HDR_FETH | RETH, FLUSH, ONLY, V),
	OP(0x1d, "ATOMIC_WRITE", RETH, ATOMIC_WRITE, ONLY, V | P),
	/* UC */
	SEND_WRITE(0x20, 0),
	/* RD */
	SEND_WRITE(0x40, RD_REQ),
	READ_ATOMIC(0x40, RD_REQ, ROCE_HDR_RDETH),
	OP(0x55, "RESYNC", RD_REQ, RESYNC, ONLY, V),
	/* UD */
	OP(0x64, "SEND_ONLY", ROCE_HDR_DETH, SEND, ONLY, V | P),
	OP(0x65, "SEND_ONLY_IMM", ROCE_HDR_DETH | IMM, SEND, ONLY, V | P),
	/* CNP: 0x81 on RoCEv2; 0x80 is native InfiniBand's, decoded alike and flagged */
	OP(0x80, "CNP", ROCE_HDR_CNP_PAD, CNP, NONE, V),
	OP(0x81, "CNP", ROCE_HDR_CNP_PAD, CNP, NONE, V),
	/* XRC */
	SEND_WRITE(0xa0, ROCE_HDR_XRCETH),
	READ_ATOMIC(0xa0, ROCE_HDR_XRCETH, 0),
	INVALIDATE(0xa0, ROCE_HDR_XRCETH),
};

static const struct roce_opcode_info reserved_info = {NULL, 0, 0, 0, ROCE_OP_NONE, ROCE_SEG_NONE, 0};
static const struct roce_opcode_info vendor_info = {"VENDOR", 0, HLEN(0), ROCE_TR_VENDOR, ROCE_OP_NONE,
						     ROCE_SEG_NONE, ROCE_OPF_VENDOR};

const struct roce_opcode_info *roce_opcode_info(uint8_t opcode)
{
	if (table[opcode].name)
		return &table[opcode];
	return opcode >= 0xc0 ? &vendor_info : &reserved_info;
}

const char *roce_transport_name(enum roce_transport t)
{
	static const char *const names[] = {"RC", "UC", "RD", "UD", "CNP", "XRC", "VENDOR"};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

unsigned roce_hdrs_len(uint16_t hdrs)
{
	static const uint8_t len[] = {ROCE_RDETH_LEN, ROCE_DETH_LEN, ROCE_XRCETH_LEN, ROCE_FETH_LEN,
				      ROCE_RETH_LEN, ROCE_ATOMICETH_LEN, ROCE_AETH_LEN,
				      ROCE_ATOMICACKETH_LEN, ROCE_IMMDT_LEN, ROCE_IETH_LEN,
				      ROCE_CNP_PAD_LEN};
	unsigned n = 0;
	for (unsigned i = 0; i < sizeof(len); i++)
		if (hdrs & (1u << i))
			n += len[i];
	return n;
}
