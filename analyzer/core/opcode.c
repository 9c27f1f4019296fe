/* opcode.c: the BTH opcode table (IBTA Vol 1 §9.2 Table 38, §9.3 header order; Annex A17 CNP;
 * IBA 1.5 FLUSH 0x1C and ATOMIC WRITE 0x1D as Linux rxe lays them out).
 *
 * Header order after the BTH: RDETH, DETH, XRCETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH,
 * ImmDt, IETH. RD requests carry RDETH+DETH, RD responses RDETH; XRC requests carry XRCETH. */
#include "roce/opcode.h"

#define P ROCE_OPF_PAYLOAD
#define R ROCE_OPF_RESPONSE
#define V ROCE_OPF_VALID

/* The RC-shaped opcode list (low 5 bits) shared by RC, UC, RD and XRC. */
#define RC_SHAPED(base, req, resp)                                                                   \
	[(base) + 0x00] = {"SEND_FIRST", (req), HLEN((req)), TR(base), ROCE_OP_SEND, ROCE_SEG_FIRST, V | P},                  \
	[(base) + 0x01] = {"SEND_MIDDLE", (req), HLEN((req)), TR(base), ROCE_OP_SEND, ROCE_SEG_MIDDLE, V | P},                \
	[(base) + 0x02] = {"SEND_LAST", (req), HLEN((req)), TR(base), ROCE_OP_SEND, ROCE_SEG_LAST, V | P},                    \
	[(base) + 0x03] = {"SEND_LAST_IMM", (req) | ROCE_HDR_IMMDT, HLEN((req) | ROCE_HDR_IMMDT), TR(base), ROCE_OP_SEND, ROCE_SEG_LAST, V | P}, \
	[(base) + 0x04] = {"SEND_ONLY", (req), HLEN((req)), TR(base), ROCE_OP_SEND, ROCE_SEG_ONLY, V | P},                    \
	[(base) + 0x05] = {"SEND_ONLY_IMM", (req) | ROCE_HDR_IMMDT, HLEN((req) | ROCE_HDR_IMMDT), TR(base), ROCE_OP_SEND, ROCE_SEG_ONLY, V | P}, \
	[(base) + 0x06] = {"WRITE_FIRST", (req) | ROCE_HDR_RETH, HLEN((req) | ROCE_HDR_RETH), TR(base), ROCE_OP_WRITE, ROCE_SEG_FIRST, V | P}, \
	[(base) + 0x07] = {"WRITE_MIDDLE", (req), HLEN((req)), TR(base), ROCE_OP_WRITE, ROCE_SEG_MIDDLE, V | P},              \
	[(base) + 0x08] = {"WRITE_LAST", (req), HLEN((req)), TR(base), ROCE_OP_WRITE, ROCE_SEG_LAST, V | P},                  \
	[(base) + 0x09] = {"WRITE_LAST_IMM", (req) | ROCE_HDR_IMMDT, HLEN((req) | ROCE_HDR_IMMDT), TR(base), ROCE_OP_WRITE, ROCE_SEG_LAST, V | P}, \
	[(base) + 0x0a] = {"WRITE_ONLY", (req) | ROCE_HDR_RETH, HLEN((req) | ROCE_HDR_RETH), TR(base), ROCE_OP_WRITE, ROCE_SEG_ONLY, V | P},  \
	[(base) + 0x0b] = {"WRITE_ONLY_IMM", (req) | ROCE_HDR_RETH | ROCE_HDR_IMMDT, HLEN((req) | ROCE_HDR_RETH | ROCE_HDR_IMMDT), TR(base), ROCE_OP_WRITE,    \
			   ROCE_SEG_ONLY, V | P}

#define READ_ATOMIC(base, req, resp)                                                                 \
	[(base) + 0x0c] = {"READ_REQUEST", (req) | ROCE_HDR_RETH, HLEN((req) | ROCE_HDR_RETH), TR(base), ROCE_OP_READ_REQ, ROCE_SEG_ONLY, V}, \
	[(base) + 0x0d] = {"READ_RESPONSE_FIRST", (resp) | ROCE_HDR_AETH, HLEN((resp) | ROCE_HDR_AETH), TR(base), ROCE_OP_READ_RESP,            \
			   ROCE_SEG_FIRST, V | P | R},                                                   \
	[(base) + 0x0e] = {"READ_RESPONSE_MIDDLE", (resp), HLEN((resp)), TR(base), ROCE_OP_READ_RESP, ROCE_SEG_MIDDLE, V | P | R}, \
	[(base) + 0x0f] = {"READ_RESPONSE_LAST", (resp) | ROCE_HDR_AETH, HLEN((resp) | ROCE_HDR_AETH), TR(base), ROCE_OP_READ_RESP,             \
			   ROCE_SEG_LAST, V | P | R},                                                    \
	[(base) + 0x10] = {"READ_RESPONSE_ONLY", (resp) | ROCE_HDR_AETH, HLEN((resp) | ROCE_HDR_AETH), TR(base), ROCE_OP_READ_RESP,             \
			   ROCE_SEG_ONLY, V | P | R},                                                    \
	[(base) + 0x11] = {"ACKNOWLEDGE", (resp) | ROCE_HDR_AETH, HLEN((resp) | ROCE_HDR_AETH), TR(base), ROCE_OP_ACK, ROCE_SEG_NONE, V | R},  \
	[(base) + 0x12] = {"ATOMIC_ACKNOWLEDGE", (resp) | ROCE_HDR_AETH | ROCE_HDR_ATOMICACKETH, HLEN((resp) | ROCE_HDR_AETH | ROCE_HDR_ATOMICACKETH), TR(base),       \
			   ROCE_OP_ATOMIC_ACK, ROCE_SEG_NONE, V | R},                                    \
	[(base) + 0x13] = {"COMPARE_SWAP", (req) | ROCE_HDR_ATOMICETH, HLEN((req) | ROCE_HDR_ATOMICETH), TR(base), ROCE_OP_CMP_SWAP, ROCE_SEG_ONLY, V}, \
	[(base) + 0x14] = {"FETCH_ADD", (req) | ROCE_HDR_ATOMICETH, HLEN((req) | ROCE_HDR_ATOMICETH), TR(base), ROCE_OP_FETCH_ADD, ROCE_SEG_ONLY, V}

#define INVALIDATE(base, req)                                                                        \
	[(base) + 0x16] = {"SEND_LAST_INV", (req) | ROCE_HDR_IETH, HLEN((req) | ROCE_HDR_IETH), TR(base), ROCE_OP_SEND, ROCE_SEG_LAST, V | P}, \
	[(base) + 0x17] = {"SEND_ONLY_INV", (req) | ROCE_HDR_IETH, HLEN((req) | ROCE_HDR_IETH), TR(base), ROCE_OP_SEND, ROCE_SEG_ONLY, V | P}

#define TR(base) ((base) >> 5)
#define HLEN(m)                                                                                    \
	((((m) & ROCE_HDR_RDETH) ? ROCE_RDETH_LEN : 0) + (((m) & ROCE_HDR_DETH) ? ROCE_DETH_LEN : 0) +   \
	 (((m) & ROCE_HDR_XRCETH) ? ROCE_XRCETH_LEN : 0) + (((m) & ROCE_HDR_FETH) ? ROCE_FETH_LEN : 0) + \
	 (((m) & ROCE_HDR_RETH) ? ROCE_RETH_LEN : 0) +                                                 \
	 (((m) & ROCE_HDR_ATOMICETH) ? ROCE_ATOMICETH_LEN : 0) + (((m) & ROCE_HDR_AETH) ? ROCE_AETH_LEN : 0) + \
	 (((m) & ROCE_HDR_ATOMICACKETH) ? ROCE_ATOMICACKETH_LEN : 0) +                                 \
	 (((m) & ROCE_HDR_IMMDT) ? ROCE_IMMDT_LEN : 0) + (((m) & ROCE_HDR_IETH) ? ROCE_IETH_LEN : 0) +   \
	 (((m) & ROCE_HDR_CNP_PAD) ? ROCE_CNP_PAD_LEN : 0))
#define RD_REQ (ROCE_HDR_RDETH | ROCE_HDR_DETH)

static const struct roce_opcode_info table[256] = {
	RC_SHAPED(0x00, 0, 0),
	READ_ATOMIC(0x00, 0, 0),
	INVALIDATE(0x00, 0),
	[0x1c] = {"FLUSH", ROCE_HDR_FETH | ROCE_HDR_RETH, HLEN(ROCE_HDR_FETH | ROCE_HDR_RETH), ROCE_TR_RC, ROCE_OP_FLUSH, ROCE_SEG_ONLY, V},
	[0x1d] = {"ATOMIC_WRITE", ROCE_HDR_RETH, HLEN(ROCE_HDR_RETH), ROCE_TR_RC, ROCE_OP_ATOMIC_WRITE, ROCE_SEG_ONLY, V | P},

	RC_SHAPED(0x20, 0, 0),

	RC_SHAPED(0x40, RD_REQ, ROCE_HDR_RDETH),
	READ_ATOMIC(0x40, RD_REQ, ROCE_HDR_RDETH),
	[0x55] = {"RESYNC", RD_REQ, HLEN(RD_REQ), ROCE_TR_RD, ROCE_OP_RESYNC, ROCE_SEG_ONLY, V},

	[0x64] = {"SEND_ONLY", ROCE_HDR_DETH, HLEN(ROCE_HDR_DETH), ROCE_TR_UD, ROCE_OP_SEND, ROCE_SEG_ONLY, V | P},
	[0x65] = {"SEND_ONLY_IMM", ROCE_HDR_DETH | ROCE_HDR_IMMDT, HLEN(ROCE_HDR_DETH | ROCE_HDR_IMMDT), ROCE_TR_UD, ROCE_OP_SEND, ROCE_SEG_ONLY, V | P},

	[0x80] = {"CNP", ROCE_HDR_CNP_PAD, HLEN(ROCE_HDR_CNP_PAD), ROCE_TR_CNP, ROCE_OP_CNP, ROCE_SEG_NONE, V},
	[0x81] = {"CNP", ROCE_HDR_CNP_PAD, HLEN(ROCE_HDR_CNP_PAD), ROCE_TR_CNP, ROCE_OP_CNP, ROCE_SEG_NONE, V},

	RC_SHAPED(0xa0, ROCE_HDR_XRCETH, 0),
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
