/* test_opcode.c: the BTH opcode table against IBTA Vol 1 §9.2 Table 38 (and §9.3 for the
 * extended headers each opcode carries), Annex A17 (CNP) and IBA 1.5 (FLUSH, ATOMIC WRITE),
 * written out here independently of analyzer/core/opcode.c; and roce_hdrs_len(). */
#include <criterion/criterion.h>
#include <string.h>

#include "roce/opcode.h"

#define P ROCE_OPF_PAYLOAD
#define R ROCE_OPF_RESPONSE

/* The operations of Table 38 by their low 5 bits. hdrs: the headers of the operation itself;
 * req: 1 for a request (RD requests add RDETH+DETH, RD responses RDETH, XRC requests XRCETH). */
struct shape {
	const char *name;
	uint16_t hdrs;
	uint8_t low;
	uint8_t op, seg, flags, req;
};

static const struct shape shapes[] = {
	{"SEND_FIRST", 0, 0x00, ROCE_OP_SEND, ROCE_SEG_FIRST, P, 1},
	{"SEND_MIDDLE", 0, 0x01, ROCE_OP_SEND, ROCE_SEG_MIDDLE, P, 1},
	{"SEND_LAST", 0, 0x02, ROCE_OP_SEND, ROCE_SEG_LAST, P, 1},
	{"SEND_LAST_IMM", ROCE_HDR_IMMDT, 0x03, ROCE_OP_SEND, ROCE_SEG_LAST, P, 1},
	{"SEND_ONLY", 0, 0x04, ROCE_OP_SEND, ROCE_SEG_ONLY, P, 1},
	{"SEND_ONLY_IMM", ROCE_HDR_IMMDT, 0x05, ROCE_OP_SEND, ROCE_SEG_ONLY, P, 1},
	{"WRITE_FIRST", ROCE_HDR_RETH, 0x06, ROCE_OP_WRITE, ROCE_SEG_FIRST, P, 1},
	{"WRITE_MIDDLE", 0, 0x07, ROCE_OP_WRITE, ROCE_SEG_MIDDLE, P, 1},
	{"WRITE_LAST", 0, 0x08, ROCE_OP_WRITE, ROCE_SEG_LAST, P, 1},
	{"WRITE_LAST_IMM", ROCE_HDR_IMMDT, 0x09, ROCE_OP_WRITE, ROCE_SEG_LAST, P, 1},
	{"WRITE_ONLY", ROCE_HDR_RETH, 0x0a, ROCE_OP_WRITE, ROCE_SEG_ONLY, P, 1},
	{"WRITE_ONLY_IMM", ROCE_HDR_RETH | ROCE_HDR_IMMDT, 0x0b, ROCE_OP_WRITE, ROCE_SEG_ONLY, P, 1},
	{"READ_REQUEST", ROCE_HDR_RETH, 0x0c, ROCE_OP_READ_REQ, ROCE_SEG_ONLY, 0, 1},
	{"READ_RESPONSE_FIRST", ROCE_HDR_AETH, 0x0d, ROCE_OP_READ_RESP, ROCE_SEG_FIRST, P | R, 0},
	{"READ_RESPONSE_MIDDLE", 0, 0x0e, ROCE_OP_READ_RESP, ROCE_SEG_MIDDLE, P | R, 0},
	{"READ_RESPONSE_LAST", ROCE_HDR_AETH, 0x0f, ROCE_OP_READ_RESP, ROCE_SEG_LAST, P | R, 0},
	{"READ_RESPONSE_ONLY", ROCE_HDR_AETH, 0x10, ROCE_OP_READ_RESP, ROCE_SEG_ONLY, P | R, 0},
	{"ACKNOWLEDGE", ROCE_HDR_AETH, 0x11, ROCE_OP_ACK, ROCE_SEG_NONE, R, 0},
	{"ATOMIC_ACKNOWLEDGE", ROCE_HDR_AETH | ROCE_HDR_ATOMICACKETH, 0x12, ROCE_OP_ATOMIC_ACK, ROCE_SEG_NONE, R, 0},
	{"COMPARE_SWAP", ROCE_HDR_ATOMICETH, 0x13, ROCE_OP_CMP_SWAP, ROCE_SEG_ONLY, 0, 1},
	{"FETCH_ADD", ROCE_HDR_ATOMICETH, 0x14, ROCE_OP_FETCH_ADD, ROCE_SEG_ONLY, 0, 1},
	{"RESYNC", 0, 0x15, ROCE_OP_RESYNC, ROCE_SEG_ONLY, 0, 1},                 /* RD only */
	{"SEND_LAST_INV", ROCE_HDR_IETH, 0x16, ROCE_OP_SEND, ROCE_SEG_LAST, P, 1},
	{"SEND_ONLY_INV", ROCE_HDR_IETH, 0x17, ROCE_OP_SEND, ROCE_SEG_ONLY, P, 1},
	{"FLUSH", ROCE_HDR_FETH | ROCE_HDR_RETH, 0x1c, ROCE_OP_FLUSH, ROCE_SEG_ONLY, 0, 1},        /* RC only */
	{"ATOMIC_WRITE", ROCE_HDR_RETH, 0x1d, ROCE_OP_ATOMIC_WRITE, ROCE_SEG_ONLY, P, 1},          /* RC only */
};

/* Which low codes each transport defines (Table 38). */
static bool defined_in(unsigned tr, uint8_t low)
{
	switch (tr) {
	case ROCE_TR_RC: return low <= 0x14 || low == 0x16 || low == 0x17 || low == 0x1c || low == 0x1d;
	case ROCE_TR_UC: return low <= 0x0b;
	case ROCE_TR_RD: return low <= 0x15;
	case ROCE_TR_UD: return low == 0x04 || low == 0x05;
	case ROCE_TR_XRC: return low <= 0x14 || low == 0x16 || low == 0x17;
	default: return false;
	}
}

static uint16_t transport_hdrs(unsigned tr, const struct shape *s)
{
	switch (tr) {
	case ROCE_TR_RD: return s->req ? ROCE_HDR_RDETH | ROCE_HDR_DETH : ROCE_HDR_RDETH;
	case ROCE_TR_UD: return ROCE_HDR_DETH;
	case ROCE_TR_XRC: return s->req ? ROCE_HDR_XRCETH : 0;
	default: return 0;
	}
}

static const unsigned transports[] = {ROCE_TR_RC, ROCE_TR_UC, ROCE_TR_RD, ROCE_TR_UD, ROCE_TR_XRC};

static unsigned count_checked;

static void check_defined(uint8_t opcode, const char *name, uint16_t hdrs, unsigned tr, unsigned op,
			  unsigned seg, unsigned flags)
{
	const struct roce_opcode_info *i = roce_opcode_info(opcode);
	cr_assert_not_null(i);
	cr_assert_not_null(i->name, "0x%02x: no name, want %s", opcode, name);
	cr_assert_str_eq(i->name, name, "0x%02x", opcode);
	cr_assert_eq(i->hdrs, hdrs, "0x%02x %s: hdrs 0x%03x, want 0x%03x", opcode, name, i->hdrs, hdrs);
	cr_assert_eq(i->transport, tr, "0x%02x %s: transport", opcode, name);
	cr_assert_eq(i->op, op, "0x%02x %s: op", opcode, name);
	cr_assert_eq(i->seg, seg, "0x%02x %s: seg", opcode, name);
	cr_assert_eq(i->flags, ROCE_OPF_VALID | flags, "0x%02x %s: flags 0x%x", opcode, name, i->flags);
	count_checked++;
}

Test(opcode, every_defined_opcode_per_ibta)
{
	bool seen[256] = {false};

	count_checked = 0;
	for (unsigned t = 0; t < sizeof(transports) / sizeof(transports[0]); t++) {
		unsigned tr = transports[t];
		for (unsigned k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
			const struct shape *s = &shapes[k];
			if (!defined_in(tr, s->low))
				continue;
			uint8_t opcode = (uint8_t)(tr << 5 | s->low);
			check_defined(opcode, s->name, s->hdrs | transport_hdrs(tr, s), tr, s->op, s->seg, s->flags);
			seen[opcode] = true;
		}
	}
	check_defined(0x80, "CNP", ROCE_HDR_CNP_PAD, ROCE_TR_CNP, ROCE_OP_CNP, ROCE_SEG_NONE, 0);
	check_defined(0x81, "CNP", ROCE_HDR_CNP_PAD, ROCE_TR_CNP, ROCE_OP_CNP, ROCE_SEG_NONE, 0);
	seen[0x80] = seen[0x81] = true;
	/* RC 25 + UC 12 + RD 22 + UD 2 + XRC 23 + CNP 2 */
	cr_assert_eq(count_checked, 25 + 12 + 22 + 2 + 23 + 2);

	/* every other opcode below 0xC0 is reserved: no name, no flags, no headers */
	for (unsigned o = 0; o < 0xc0; o++) {
		if (seen[o])
			continue;
		const struct roce_opcode_info *i = roce_opcode_info((uint8_t)o);
		cr_assert_null(i->name, "0x%02x should be reserved, is %s", o, i->name);
		cr_assert_eq(i->flags, 0, "0x%02x", o);
		cr_assert_eq(i->hdrs, 0, "0x%02x", o);
		cr_assert_eq(i->op, ROCE_OP_NONE, "0x%02x", o);
	}
}

Test(opcode, well_known_opcodes)
{
	/* spot checks with the numbers people quote */
	cr_assert_str_eq(roce_opcode_info(0x04)->name, "SEND_ONLY");          /* RC SEND ONLY */
	cr_assert_str_eq(roce_opcode_info(0x0a)->name, "WRITE_ONLY");
	cr_assert_str_eq(roce_opcode_info(0x11)->name, "ACKNOWLEDGE");
	cr_assert_eq(roce_opcode_info(0x24)->transport, ROCE_TR_UC);           /* UC SEND ONLY */
	cr_assert_str_eq(roce_opcode_info(0x64)->name, "SEND_ONLY");          /* UD SEND ONLY */
	cr_assert_eq(roce_opcode_info(0x64)->hdrs, ROCE_HDR_DETH);
	cr_assert_eq(roce_opcode_info(0x65)->hdrs, ROCE_HDR_DETH | ROCE_HDR_IMMDT);
	cr_assert_eq(roce_opcode_info(0x12)->hdrs, ROCE_HDR_AETH | ROCE_HDR_ATOMICACKETH);
	cr_assert_eq(roce_opcode_info(0x53)->hdrs, ROCE_HDR_RDETH | ROCE_HDR_DETH | ROCE_HDR_ATOMICETH);
	cr_assert_eq(roce_opcode_info(0xac)->hdrs, ROCE_HDR_XRCETH | ROCE_HDR_RETH);   /* XRC READ REQUEST */
	cr_assert_eq(roce_opcode_info(0xad)->hdrs, ROCE_HDR_AETH);                     /* XRC responses: no XRCETH */
}

Test(opcode, cnp_0x81)
{
	const struct roce_opcode_info *i = roce_opcode_info(0x81);
	cr_assert_str_eq(i->name, "CNP");
	cr_assert_eq(i->transport, ROCE_TR_CNP);
	cr_assert_eq(i->op, ROCE_OP_CNP);
	cr_assert_eq(i->hdrs, ROCE_HDR_CNP_PAD);             /* 16 reserved bytes, no payload */
	cr_assert_eq(i->flags & ROCE_OPF_PAYLOAD, 0);
	cr_assert_eq(roce_hdrs_len(i->hdrs), 16);
}

Test(opcode, flush_0x1c_is_feth_plus_reth)
{
	const struct roce_opcode_info *i = roce_opcode_info(0x1c);
	cr_assert_str_eq(i->name, "FLUSH");
	cr_assert_eq(i->hdrs, ROCE_HDR_FETH | ROCE_HDR_RETH);
	cr_assert_eq(i->transport, ROCE_TR_RC);
	cr_assert_eq(i->flags, ROCE_OPF_VALID);              /* no payload */
	cr_assert_eq(roce_hdrs_len(i->hdrs), 4 + 16);
}

Test(opcode, atomic_write_0x1d_is_reth_plus_payload)
{
	const struct roce_opcode_info *i = roce_opcode_info(0x1d);
	cr_assert_str_eq(i->name, "ATOMIC_WRITE");
	cr_assert_eq(i->hdrs, ROCE_HDR_RETH);
	cr_assert_eq(i->op, ROCE_OP_ATOMIC_WRITE);
	cr_assert_eq(i->flags, ROCE_OPF_VALID | ROCE_OPF_PAYLOAD);
}

Test(opcode, reserved_opcodes_have_no_name)
{
	/* RC 0x15 (RESYNC is RD only), RC 0x18-0x1b, 0x1e, 0x1f, UC 0x2c-0x3f, RD 0x56-0x5f,
	 * UD 0x60-0x63 and 0x66-0x7f, 0x82-0x9f, XRC 0xb5, 0xb8-0xbf */
	static const uint8_t reserved[] = {0x15, 0x18, 0x19, 0x1a, 0x1b, 0x1e, 0x1f, 0x2c, 0x30, 0x3f, 0x56,
					   0x5f, 0x60, 0x63, 0x66, 0x7f, 0x82, 0x9f, 0xb5, 0xb8, 0xbf};
	for (unsigned k = 0; k < sizeof(reserved); k++) {
		const struct roce_opcode_info *i = roce_opcode_info(reserved[k]);
		cr_assert_not_null(i);
		cr_assert_null(i->name, "0x%02x", reserved[k]);
		cr_assert_eq(i->flags & (ROCE_OPF_VALID | ROCE_OPF_VENDOR), 0, "0x%02x", reserved[k]);
		cr_assert_eq(i->hdrs, 0, "0x%02x", reserved[k]);
	}
}

Test(opcode, vendor_range_0xc0_0xff)
{
	for (unsigned o = 0xc0; o <= 0xff; o++) {
		const struct roce_opcode_info *i = roce_opcode_info((uint8_t)o);
		cr_assert_not_null(i);
		cr_assert_eq(i->transport, ROCE_TR_VENDOR, "0x%02x", o);
		cr_assert_eq(i->flags, ROCE_OPF_VENDOR, "0x%02x: vendor, not valid", o);
		cr_assert_eq(i->hdrs, 0, "0x%02x: nothing decoded after the BTH", o);
		cr_assert_not_null(i->name, "0x%02x", o);
	}
	/* 0xbf is the last reserved one, not vendor */
	cr_assert_eq(roce_opcode_info(0xbf)->flags & ROCE_OPF_VENDOR, 0);
}

Test(opcode, transport_from_opcode_bits)
{
	for (unsigned o = 0; o < 0xc0; o++) {
		const struct roce_opcode_info *i = roce_opcode_info((uint8_t)o);
		if (i->name)
			cr_assert_eq(i->transport, o >> 5, "0x%02x: transport is opcode bits 7:5", o);
	}
}

Test(opcode, transport_names)
{
	cr_assert_str_eq(roce_transport_name(ROCE_TR_RC), "RC");
	cr_assert_str_eq(roce_transport_name(ROCE_TR_UC), "UC");
	cr_assert_str_eq(roce_transport_name(ROCE_TR_RD), "RD");
	cr_assert_str_eq(roce_transport_name(ROCE_TR_UD), "UD");
	cr_assert_str_eq(roce_transport_name(ROCE_TR_CNP), "CNP");
	cr_assert_str_eq(roce_transport_name(ROCE_TR_XRC), "XRC");
	cr_assert_str_eq(roce_transport_name(ROCE_TR_VENDOR), "VENDOR");
	cr_assert_not_null(roce_transport_name((enum roce_transport)99));
}

Test(opcode, hdrs_len_each_header)
{
	/* IBTA Vol 1 §9.3 sizes */
	cr_assert_eq(roce_hdrs_len(0), 0);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_RDETH), 4);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_DETH), 8);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_XRCETH), 4);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_FETH), 4);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_RETH), 16);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_ATOMICETH), 28);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_AETH), 4);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_ATOMICACKETH), 8);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_IMMDT), 4);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_IETH), 4);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_CNP_PAD), 16);
}

Test(opcode, hdrs_len_sums)
{
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_RETH | ROCE_HDR_IMMDT), 20);                        /* WRITE_ONLY_IMM */
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_RDETH | ROCE_HDR_DETH | ROCE_HDR_ATOMICETH), 40);   /* RD COMPARE_SWAP */
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_AETH | ROCE_HDR_ATOMICACKETH), 12);
	cr_assert_eq(roce_hdrs_len(ROCE_HDR_FETH | ROCE_HDR_RETH), 20);
	cr_assert_eq(roce_hdrs_len(0x7ff), 4 + 8 + 4 + 4 + 16 + 28 + 4 + 8 + 4 + 4 + 16);
	cr_assert_eq(roce_hdrs_len(0xf800), 0, "bits above CNP_PAD are not headers");
	cr_assert_eq(roce_hdrs_len(0xffff), 100);
	/* every opcode's length is the sum of its headers' */
	for (unsigned o = 0; o < 256; o++) {
		uint16_t m = roce_opcode_info((uint8_t)o)->hdrs;
		unsigned sum = 0;
		for (unsigned b = 0; b < 11; b++)
			if (m & (1u << b))
				sum += roce_hdrs_len((uint16_t)(1u << b));
		cr_assert_eq(roce_hdrs_len(m), sum, "0x%02x", o);
	}
}

Test(opcode, header_length_constants)
{
	cr_assert_eq(ROCE_BTH_LEN, 12);
	cr_assert_eq(ROCE_ICRC_LEN, 4);
	cr_assert_eq(ROCE_GRH_LEN, 40);
	cr_assert_eq(ROCE_ATOMICETH_LEN, 28);
	cr_assert_eq(ROCE_CNP_PAD_LEN, 16);
}
