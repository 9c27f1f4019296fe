/* transport.c: BTH and extended transport headers, read and written (IBTA Vol 1 §9.2, §9.3;
 * FETH from IBA 1.5 as laid out by Linux rxe).
 *
 *  BTH  0               1               2               3
 *      | OpCode        |S|M|Pad|TVer   | P_Key                         |
 *      |F|B| Resv6     | DestQP                                        |
 *      |A| Resv7       | PSN                                           |
 *  RETH | VA (64) | R_Key (32) | DMA Length (32) |     AETH | Syndrome | MSN (24) |
 *  DETH | Q_Key (32) | Resv8 | SrcQP (24) |           RDETH | Resv8 | EECnxt (24) |
 *  AtomicETH | VA (64) | R_Key | Swap/Add (64) | Compare (64) |  AtomicAckETH | Orig (64) |
 *  XRCETH | Resv8 | XRCSRQ (24) |   ImmDt | 32 |   IETH | R_Key |   FETH | Resv26 |Sel|PLT| */
#include "transport.h"

#include "wire.h"

void bth_read(const uint8_t *p, struct roce_bth *b)
{
	uint8_t flags = p[BTH_FLAGS];
	uint32_t w1 = ld_be32(p + BTH_FB), w2 = ld_be32(p + BTH_ACK);  /* FB|DestQP, A|PSN */
	uint8_t fb = (uint8_t)(w1 >> 24);
	uint8_t ack = (uint8_t)(w2 >> 24);

	b->opcode = p[BTH_OPCODE];
	b->se = flags >> 7;
	b->m = (flags >> 6) & 1;
	b->padcnt = (flags >> 4) & 3;
	b->tver = flags & 0x0f;
	b->pkey = ld_be16(p + BTH_PKEY);
	b->fecn = fb >> 7;
	b->becn = (fb >> 6) & 1;
	b->resv6 = fb & 0x3f;
	b->dqpn = w1 & 0xffffff;
	b->ackreq = ack >> 7;
	b->resv7 = ack & 0x7f;
	b->psn = w2 & 0xffffff;
}

static uint32_t bth_write(uint8_t *o, const struct roce_bth *b)
{
	o[BTH_OPCODE] = b->opcode;
	o[BTH_FLAGS] = (uint8_t)((b->se & 1) << 7 | (b->m & 1) << 6 | (b->padcnt & 3) << 4 | (b->tver & 0x0f));
	wr_be16(o + BTH_PKEY, b->pkey);
	o[BTH_FB] = (uint8_t)((b->fecn & 1) << 7 | (b->becn & 1) << 6 | (b->resv6 & 0x3f));
	wr_be24(o + BTH_DQPN, b->dqpn);
	o[BTH_ACK] = (uint8_t)((b->ackreq & 1) << 7 | (b->resv7 & 0x7f));
	wr_be24(o + BTH_PSN, b->psn);
	return ROCE_BTH_LEN;
}

void ext_read(const uint8_t *p, struct roce_hdrs *h)
{
	uint16_t m = h->hdrs;
	uint32_t off = 0;

	if (m & ROCE_HDR_RDETH) {
		h->rdeth.resv = p[off];
		h->rdeth.eecnxt = ld_be24(p + off + RDETH_EECNXT);
		off += ROCE_RDETH_LEN;
	}
	if (m & ROCE_HDR_DETH) {
		h->deth.qkey = ld_be32(p + off + DETH_QKEY);
		h->deth.resv = p[off + DETH_RESV];
		h->deth.srcqp = ld_be24(p + off + DETH_SRCQP);
		off += ROCE_DETH_LEN;
	}
	if (m & ROCE_HDR_XRCETH) {
		h->xrceth.resv = p[off];
		h->xrceth.xrcsrq = ld_be24(p + off + XRCETH_XRCSRQ);
		off += ROCE_XRCETH_LEN;
	}
	if (m & ROCE_HDR_FETH) {
		uint32_t w = ld_be32(p + off + FETH_WORD);
		h->feth.plt = w & 0x0f;
		h->feth.sel = (w >> 4) & 3;
		h->feth.resv = w >> 6;
		off += ROCE_FETH_LEN;
	}
	if (m & ROCE_HDR_RETH) {
		h->reth.va = ld_be64(p + off + RETH_VA);
		h->reth.rkey = ld_be32(p + off + RETH_RKEY);
		h->reth.dmalen = ld_be32(p + off + RETH_DMALEN);
		off += ROCE_RETH_LEN;
	}
	if (m & ROCE_HDR_ATOMICETH) {
		h->atomiceth.va = ld_be64(p + off + ATOMICETH_VA);
		h->atomiceth.rkey = ld_be32(p + off + ATOMICETH_RKEY);
		h->atomiceth.swap = ld_be64(p + off + ATOMICETH_SWAP);
		h->atomiceth.cmp = ld_be64(p + off + ATOMICETH_CMP);
		off += ROCE_ATOMICETH_LEN;
	}
	if (m & ROCE_HDR_AETH) {
		h->aeth.syndrome = p[off + AETH_SYNDROME];
		h->aeth.msn = ld_be24(p + off + AETH_MSN);
		off += ROCE_AETH_LEN;
	}
	if (m & ROCE_HDR_ATOMICACKETH) {
		h->atomicacketh.orig = ld_be64(p + off + ATOMICACKETH_ORIG);
		off += ROCE_ATOMICACKETH_LEN;
	}
	if (m & ROCE_HDR_IMMDT) {
		h->immdt = ld_be32(p + off);
		off += ROCE_IMMDT_LEN;
	}
	if (m & ROCE_HDR_IETH)
		h->ieth = ld_be32(p + off);
}

uint32_t transport_write(uint8_t *o, const struct roce_hdrs *h)
{
	uint16_t m = h->hdrs;
	uint32_t n = bth_write(o, &h->bth);

	if (m & ROCE_HDR_RDETH) {
		o[n] = h->rdeth.resv;
		wr_be24(o + n + RDETH_EECNXT, h->rdeth.eecnxt);
		n += ROCE_RDETH_LEN;
	}
	if (m & ROCE_HDR_DETH) {
		wr_be32(o + n + DETH_QKEY, h->deth.qkey);
		o[n + DETH_RESV] = h->deth.resv;
		wr_be24(o + n + DETH_SRCQP, h->deth.srcqp);
		n += ROCE_DETH_LEN;
	}
	if (m & ROCE_HDR_XRCETH) {
		o[n] = h->xrceth.resv;
		wr_be24(o + n + XRCETH_XRCSRQ, h->xrceth.xrcsrq);
		n += ROCE_XRCETH_LEN;
	}
	if (m & ROCE_HDR_FETH) {
		wr_be32(o + n + FETH_WORD, h->feth.resv << 6 | (uint32_t)(h->feth.sel & 3) << 4 | (h->feth.plt & 0x0f));
		n += ROCE_FETH_LEN;
	}
	if (m & ROCE_HDR_RETH) {
		wr_be64(o + n + RETH_VA, h->reth.va);
		wr_be32(o + n + RETH_RKEY, h->reth.rkey);
		wr_be32(o + n + RETH_DMALEN, h->reth.dmalen);
		n += ROCE_RETH_LEN;
	}
	if (m & ROCE_HDR_ATOMICETH) {
		wr_be64(o + n + ATOMICETH_VA, h->atomiceth.va);
		wr_be32(o + n + ATOMICETH_RKEY, h->atomiceth.rkey);
		wr_be64(o + n + ATOMICETH_SWAP, h->atomiceth.swap);
		wr_be64(o + n + ATOMICETH_CMP, h->atomiceth.cmp);
		n += ROCE_ATOMICETH_LEN;
	}
	if (m & ROCE_HDR_AETH) {
		o[n + AETH_SYNDROME] = h->aeth.syndrome;
		wr_be24(o + n + AETH_MSN, h->aeth.msn);
		n += ROCE_AETH_LEN;
	}
	if (m & ROCE_HDR_ATOMICACKETH) {
		wr_be64(o + n + ATOMICACKETH_ORIG, h->atomicacketh.orig);
		n += ROCE_ATOMICACKETH_LEN;
	}
	if (m & ROCE_HDR_IMMDT) {
		wr_be32(o + n, h->immdt);
		n += ROCE_IMMDT_LEN;
	}
	if (m & ROCE_HDR_IETH) {
		wr_be32(o + n, h->ieth);
		n += ROCE_IETH_LEN;
	}
	if (m & ROCE_HDR_CNP_PAD) {
		for (unsigned i = 0; i < ROCE_CNP_PAD_LEN; i++)
			o[n + i] = 0;
		n += ROCE_CNP_PAD_LEN;
	}
	return n;
}
