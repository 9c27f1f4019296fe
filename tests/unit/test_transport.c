/* test_transport.c: BTH and extended transport headers (IBTA Vol 1 §9.2, §9.3) read and written by
 * analyzer/core/transport.c: known byte vectors, bit positions, field extremes, and a write/read
 * round trip for every opcode. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"
#include "unit_util.h"

static void read_all(const uint8_t *b, uint32_t len, uint16_t hdrs, struct roce_hdrs *h)
{
	struct span s = {b, len};
	const uint8_t *bth = span_at(&s, 0, ROCE_BTH_LEN);
	const uint8_t *ext = span_at(&s, ROCE_BTH_LEN, roce_hdrs_len(hdrs));
	cr_assert_not_null(bth);
	cr_assert_not_null(ext);
	memset(h, 0, sizeof(*h));
	bth_read(bth, &h->bth);
	h->hdrs = hdrs;
	ext_read(ext, h);
}

Test(transport, bth_known_vector)
{
	static const uint8_t bth[12] = {
		0x24,                   /* OpCode: UC SEND_ONLY */
		0x60,                   /* SE 0, M 1, PadCnt 2, TVer 0 */
		0xff, 0xff,             /* P_Key 0xffff */
		0x00,                   /* FECN 0, BECN 0, Resv6 0 */
		0x00, 0x00, 0xd3,       /* DestQP 211 */
		0x00,                   /* AckReq 0, Resv7 0 */
		0xcf, 0x17, 0x10,       /* PSN 13571856 */
	};
	struct roce_bth b;

	bth_read(bth, &b);
	cr_assert_eq(b.opcode, 0x24);
	cr_assert_eq(b.se, 0);
	cr_assert_eq(b.m, 1);
	cr_assert_eq(b.padcnt, 2);
	cr_assert_eq(b.tver, 0);
	cr_assert_eq(b.pkey, 0xffff);
	cr_assert_eq(b.fecn, 0);
	cr_assert_eq(b.becn, 0);
	cr_assert_eq(b.dqpn, 211);
	cr_assert_eq(b.ackreq, 0);
	cr_assert_eq(b.psn, 13571856);
}

/* One BTH bit at a time: each lands in exactly one field. */
Test(transport, bth_bit_positions)
{
	struct { uint8_t byte, val; const char *field; } cases[] = {
		{1, 0x80, "se"},        /* byte 1 bit 7: SE */
		{1, 0x40, "m"},         /* byte 1 bit 6: MigReq */
		{1, 0x30, "padcnt"},    /* byte 1 bits 5:4: PadCnt = 3 */
		{1, 0x10, "padcnt1"},   /* PadCnt = 1 */
		{1, 0x0f, "tver"},      /* byte 1 bits 3:0: TVer = 15 */
		{1, 0x01, "tver1"},     /* TVer = 1 */
		{4, 0x80, "fecn"},      /* byte 4 bit 7: FECN */
		{4, 0x40, "becn"},      /* byte 4 bit 6: BECN */
		{4, 0x3f, "resv6"},     /* byte 4 bits 5:0: Resv6 */
		{8, 0x80, "ackreq"},    /* byte 8 bit 7: AckReq */
		{8, 0x7f, "resv7"},     /* byte 8 bits 6:0: Resv7 */
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint8_t b[12] = {0};
		struct roce_bth r;
		b[cases[k].byte] = cases[k].val;
		bth_read(b, &r);
		const char *f = cases[k].field;
		cr_assert_eq(r.se, strcmp(f, "se") == 0, "%s", f);
		cr_assert_eq(r.m, strcmp(f, "m") == 0, "%s", f);
		cr_assert_eq(r.padcnt, strcmp(f, "padcnt") == 0 ? 3 : strcmp(f, "padcnt1") == 0 ? 1 : 0, "%s", f);
		cr_assert_eq(r.tver, strcmp(f, "tver") == 0 ? 15 : strcmp(f, "tver1") == 0 ? 1 : 0, "%s", f);
		cr_assert_eq(r.fecn, strcmp(f, "fecn") == 0, "%s", f);
		cr_assert_eq(r.becn, strcmp(f, "becn") == 0, "%s", f);
		cr_assert_eq(r.resv6, strcmp(f, "resv6") == 0 ? 0x3f : 0, "%s", f);
		cr_assert_eq(r.ackreq, strcmp(f, "ackreq") == 0, "%s", f);
		cr_assert_eq(r.resv7, strcmp(f, "resv7") == 0 ? 0x7f : 0, "%s", f);
		cr_assert_eq(r.opcode, 0);
		cr_assert_eq(r.pkey, 0);
		cr_assert_eq(r.dqpn, 0);
		cr_assert_eq(r.psn, 0);

		/* and the writer puts it back in the same place */
		struct roce_hdrs h = {0};
		uint8_t o[12];
		h.bth = r;
		cr_assert_eq(transport_write(o, &h), 12);
		cr_assert_arr_eq(o, b, 12, "%s written back", f);
	}
}

Test(transport, bth_write_known_bytes)
{
	struct roce_hdrs h = {0};
	uint8_t o[12];
	/* SE 1, M 0, PadCnt 1, TVer 0; FECN 1, BECN 1; AckReq 1; 24-bit fields at their maximum */
	static const uint8_t want[12] = {0x81, 0x90, 0x80, 0x00, 0xc0, 0xff, 0xff, 0xff, 0x80, 0xff, 0xff, 0xff};

	h.bth.opcode = 0x81;
	h.bth.se = 1;
	h.bth.padcnt = 1;
	h.bth.pkey = 0x8000;
	h.bth.fecn = 1;
	h.bth.becn = 1;
	h.bth.dqpn = 0xffffff;
	h.bth.ackreq = 1;
	h.bth.psn = 0xffffff;
	h.hdrs = 0;
	cr_assert_eq(transport_write(o, &h), 12);
	cr_assert_arr_eq(o, want, 12);
}

Test(transport, bth_field_extremes_round_trip)
{
	static const uint32_t v24[] = {0, 1, 0x7fffff, 0x800000, 0xfffffe, 0xffffff};
	static const uint16_t pkeys[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0xffff};
	for (unsigned i = 0; i < sizeof(v24) / sizeof(v24[0]); i++) {
		for (unsigned j = 0; j < sizeof(pkeys) / sizeof(pkeys[0]); j++) {
			struct roce_hdrs h = {0}, r;
			uint8_t o[12];
			h.bth.opcode = 0xff;
			h.bth.se = 1, h.bth.m = 1, h.bth.padcnt = 3, h.bth.tver = 15;
			h.bth.pkey = pkeys[j];
			h.bth.fecn = 1, h.bth.becn = 1, h.bth.resv6 = 0x3f;
			h.bth.dqpn = v24[i];
			h.bth.ackreq = 1, h.bth.resv7 = 0x7f;
			h.bth.psn = v24[sizeof(v24) / sizeof(v24[0]) - 1 - i];
			transport_write(o, &h);
			read_all(o, 12, 0, &r);
			u_assert_bth_eq(&h.bth, &r.bth, "extremes");
		}
	}
}

Test(transport, bth_writer_masks_oversized_fields)
{
	struct roce_hdrs h = {0};
	uint8_t o[12];
	struct roce_hdrs r;

	h.bth.opcode = 0x04;
	h.bth.padcnt = 0xff;      /* only 2 bits */
	h.bth.tver = 0xff;        /* only 4 bits */
	h.bth.dqpn = 0xff000001;  /* only 24 bits */
	h.bth.psn = 0x01000002;   /* only 24 bits: must not spill into byte 8 */
	h.bth.resv6 = 0xff;
	h.bth.resv7 = 0xff;
	transport_write(o, &h);
	cr_assert_eq(o[1], 0x3f);
	cr_assert_eq(o[4], 0x3f, "FECN/BECN untouched by Resv6");
	cr_assert_eq(o[8], 0x7f, "AckReq untouched by Resv7");
	read_all(o, 12, 0, &r);
	cr_assert_eq(r.bth.dqpn, 1);
	cr_assert_eq(r.bth.psn, 2);
}

Test(transport, ext_known_vectors)
{
	static const uint8_t v[] = {
		/* BTH: RD SEND_ONLY */
		0x44, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x12, 0x34, 0x56,                         /* RDETH: resv, EECnxt 0x123456 */
		0x80, 0x01, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef, /* DETH: Q_Key 0x80010000, resv, SrcQP 0xabcdef */
	};
	struct roce_hdrs h;

	read_all(v, sizeof(v), ROCE_HDR_RDETH | ROCE_HDR_DETH, &h);
	cr_assert_eq(h.rdeth.eecnxt, 0x123456);
	cr_assert_eq(h.deth.qkey, 0x80010000u);
	cr_assert_eq(h.deth.resv, 0);
	cr_assert_eq(h.deth.srcqp, 0xabcdef);

	static const uint8_t w[] = {
		0x06, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* BTH: RC WRITE_FIRST */
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,  /* RETH VA */
		0xde, 0xad, 0xbe, 0xef,                          /* RETH R_Key */
		0x00, 0x01, 0x00, 0x00,                          /* RETH DMA Length 65536 */
	};
	read_all(w, sizeof(w), ROCE_HDR_RETH, &h);
	cr_assert_eq(h.reth.va, UINT64_C(0x0123456789abcdef));
	cr_assert_eq(h.reth.rkey, 0xdeadbeefu);
	cr_assert_eq(h.reth.dmalen, 65536);

	static const uint8_t a[] = {
		0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* RC ATOMIC_ACKNOWLEDGE */
		0x62, 0xff, 0xff, 0xfe,                          /* AETH: syndrome NAK 2, MSN 0xfffffe */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a,  /* AtomicAckETH: original 42 */
	};
	read_all(a, sizeof(a), ROCE_HDR_AETH | ROCE_HDR_ATOMICACKETH, &h);
	cr_assert_eq(h.aeth.syndrome, 0x62);
	cr_assert_eq(roce_aeth_kind(h.aeth.syndrome), ROCE_AETH_NAK);
	cr_assert_eq(roce_aeth_value(h.aeth.syndrome), ROCE_NAK_REMOTE_ACCESS);
	cr_assert_eq(h.aeth.msn, 0xfffffe);
	cr_assert_eq(h.atomicacketh.orig, 42);

	static const uint8_t c[] = {
		0x13, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* RC COMPARE_SWAP */
		0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00,  /* AtomicETH VA 0x7f0000001000 */
		0x00, 0x00, 0x12, 0x34,                          /* R_Key 0x1234 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,  /* Swap 2 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  /* Compare 1 */
	};
	read_all(c, sizeof(c), ROCE_HDR_ATOMICETH, &h);
	cr_assert_eq(h.atomiceth.va, UINT64_C(0x7f0000001000));
	cr_assert_eq(h.atomiceth.rkey, 0x1234);
	cr_assert_eq(h.atomiceth.swap, 2);
	cr_assert_eq(h.atomiceth.cmp, 1);

	static const uint8_t x[] = {
		0xa5, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* XRC SEND_ONLY_IMM */
		0x00, 0x00, 0x00, 0x07,                          /* XRCETH: XRCSRQ 7 */
		0x11, 0x22, 0x33, 0x44,                          /* ImmDt */
	};
	read_all(x, sizeof(x), ROCE_HDR_XRCETH | ROCE_HDR_IMMDT, &h);
	cr_assert_eq(h.xrceth.xrcsrq, 7);
	cr_assert_eq(h.immdt, 0x11223344);

	static const uint8_t f[] = {
		0x1c, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* RC FLUSH */
		0x00, 0x00, 0x00, 0x21,                          /* FETH: Sel 2 (bits 5:4), PLT 1 (bits 3:0) */
		0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 5, 0, 0, 0, 64, /* RETH */
	};
	read_all(f, sizeof(f), ROCE_HDR_FETH | ROCE_HDR_RETH, &h);
	cr_assert_eq(h.feth.sel, 2);
	cr_assert_eq(h.feth.plt, 1);
	cr_assert_eq(h.feth.resv, 0);
	cr_assert_eq(h.reth.va, 0x1000);
	cr_assert_eq(h.reth.rkey, 5);
	cr_assert_eq(h.reth.dmalen, 64);

	static const uint8_t i[] = {
		0x17, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* RC SEND_ONLY_INV */
		0xca, 0xfe, 0xf0, 0x0d,                          /* IETH: R_Key to invalidate */
	};
	read_all(i, sizeof(i), ROCE_HDR_IETH, &h);
	cr_assert_eq(h.ieth, 0xcafef00d);
}

Test(transport, feth_bit_layout)
{
	struct roce_hdrs h = {0};
	uint8_t o[16];

	h.bth.opcode = 0x1c;
	h.hdrs = ROCE_HDR_FETH;
	h.feth.sel = 3;
	h.feth.plt = 0xf;
	cr_assert_eq(transport_write(o, &h), 16);
	cr_assert(o[12] == 0 && o[13] == 0 && o[14] == 0 && o[15] == 0x3f, "Sel bits 5:4, PLT bits 3:0");
	h.feth.sel = 1;
	h.feth.plt = 0;
	h.feth.resv = 0x3ffffff;   /* Resv26: the top 26 bits */
	transport_write(o, &h);
	cr_assert(o[12] == 0xff && o[13] == 0xff && o[14] == 0xff && o[15] == 0xd0);
}

/* Every header in wire order, with every field at distinctive (and extreme) values. */
Test(transport, all_headers_order_and_extremes)
{
	struct roce_hdrs h, r;
	uint8_t o[12 + 100];

	u_fill_hdrs(&h, 0x04, 5);
	h.hdrs = 0x3ff;   /* every extended header except the CNP pad */
	h.rdeth.eecnxt = 0xffffff;
	h.rdeth.resv = 0xff;
	h.deth.srcqp = 0xffffff;
	h.deth.resv = 0xff;
	h.xrceth.xrcsrq = 0xffffff;
	h.xrceth.resv = 0xff;
	h.feth.resv = 0x3ffffff;
	h.feth.sel = 3;
	h.feth.plt = 15;
	h.reth.va = UINT64_MAX;
	h.atomiceth.cmp = UINT64_MAX;
	h.aeth.msn = 0xffffff;
	h.aeth.syndrome = 0xff;
	uint32_t n = transport_write(o, &h);
	cr_assert_eq(n, 12 + roce_hdrs_len(h.hdrs));
	read_all(o, n, h.hdrs, &r);
	u_assert_hdrs_eq(&h, &r, "all headers");
	/* order: RDETH right after the BTH, IETH last */
	cr_assert(o[12] == 0xff && o[13] == 0xff && o[14] == 0xff && o[15] == 0xff);
	cr_assert(o[n - 4] == 0x01 && o[n - 1] == 0x04, "IETH last");
	cr_assert(o[n - 8] == 0xca && o[n - 5] == 0xbe, "ImmDt before IETH");
}

/* Every opcode (defined, reserved and vendor): write its headers, read them back. */
Test(transport, round_trip_every_opcode)
{
	for (unsigned op = 0; op < 256; op++) {
		for (unsigned seed = 0; seed < 4; seed++) {
			struct roce_hdrs h, r;
			uint8_t o[12 + 100];
			u_fill_hdrs(&h, (uint8_t)op, seed * 0x101);
			uint32_t n = transport_write(o, &h);
			cr_assert_eq(n, 12 + roce_hdrs_len(h.hdrs), "0x%02x", op);
			cr_assert_eq(o[0], op);
			if (h.hdrs & ROCE_HDR_CNP_PAD)
				for (unsigned i = n - 16; i < n; i++)
					cr_assert_eq(o[i], 0, "CNP reserved bytes are zero");
			read_all(o, n, h.hdrs, &r);
			char ctx[32];
			snprintf(ctx, sizeof(ctx), "opcode 0x%02x", op);
			u_assert_hdrs_eq(&h, &r, ctx);
		}
	}
}

/* The readers are only handed bytes span_at() vouched for: for a span shorter than the headers,
 * span_at() refuses exactly when the header does not fit, and a header that fits reads back
 * exactly (ASan: the buffer is exactly that long, so any read past it would be caught). */
Test(transport, short_span_reads_only_vouched_bytes)
{
	struct roce_hdrs h, r;
	uint8_t o[12 + 100];

	u_fill_hdrs(&h, 0x04, 1);
	h.hdrs = 0x3ff;
	uint32_t n = transport_write(o, &h);
	uint32_t ext_len = roce_hdrs_len(h.hdrs);
	cr_assert_eq(n, ROCE_BTH_LEN + ext_len);
	for (uint32_t len = 0; len <= n; len++) {
		uint8_t *b = malloc(len ? len : 1);
		memcpy(b, o, len);
		struct span s = {b, len};
		const uint8_t *bth = span_at(&s, 0, ROCE_BTH_LEN);
		const uint8_t *ext = span_at(&s, ROCE_BTH_LEN, ext_len);
		cr_assert_eq(bth != NULL, len >= ROCE_BTH_LEN, "len %u", len);
		cr_assert_eq(ext != NULL, len == n, "len %u", len);
		memset(&r, 0, sizeof(r));
		if (bth) {
			bth_read(bth, &r.bth);
			u_assert_bth_eq(&h.bth, &r.bth, "short span");
		}
		if (ext) {
			r.hdrs = h.hdrs;
			ext_read(ext, &r);
			cr_assert_eq(r.ieth, h.ieth);
			cr_assert_eq(r.rdeth.eecnxt, h.rdeth.eecnxt);
		}
		free(b);
	}
}
