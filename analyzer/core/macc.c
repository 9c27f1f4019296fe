/* macc.c: MAC control frames (see macc.h): IEEE 802.3 Annex 31B (PAUSE, opcode 0x0001: one pause
 * time in units of 512 bit times), IEEE 802.1Qbb §36 (PFC, opcode 0x0101: a class-enable vector
 * whose bit n enables priority n, then eight pause times, priority 0 first). Both go to the
 * reserved address 01-80-C2-00-00-01. The decoder reports what the frame says, and what makes it
 * malformed (pfc.malformed), without guessing; build.c writes the same fields back. */
#include <string.h>

#include "bytes.h"
#include "macc.h"
#include "wire.h"

const uint8_t roce_macc_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

const char *roce_macc_bad_name(unsigned bit)
{
	switch (bit) {
	case ROCE_MACC_BAD_OPCODE: return "opcode";
	case ROCE_MACC_BAD_DST: return "dst";
	case ROCE_MACC_BAD_ENBV: return "enbv";
	case ROCE_MACC_BAD_TIME: return "time_disabled_class";
	case ROCE_MACC_SHORT: return "short";
	default: return "?";
	}
}

void macc_decode(struct roce_pkt *p, const uint8_t *frame, uint32_t off, uint32_t lim, uint32_t wire_end)
{
	struct span s = {frame, lim};
	struct roce_macc *m = &p->macc;

	memset(m, 0, sizeof(*m));
	p->net.kind = ROCE_NET_MACC;
	p->net.ethertype = ROCE_ETHERTYPE_MACC;
	p->net.off = (uint16_t)off;
	m->off = (uint16_t)off;
	m->has_dst = p->eth_off >= 0;
	bool to_reserved = !m->has_dst || memcmp(frame + p->eth_off + ETH_DST, roce_macc_dst, 6) == 0;
	const uint8_t *o = span_at(&s, off, 2);
	if (!o) {
		m->malformed = wire_end < off + 2 ? ROCE_MACC_SHORT : 0;
		if (!m->malformed) {
			p->trunc_layer = ROCE_LAYER_LINK;
			roce_evset_add(&p->events, ROCE_EV_TRUNCATED);
		}
		goto out;
	}
	m->opcode = ld_be16(o + MACC_OPCODE);
	uint32_t need = m->opcode == ROCE_MACC_PFC ? MACC_PFC_LEN : m->opcode == ROCE_MACC_PAUSE ? MACC_PAUSE_LEN : 2;
	if (m->opcode != ROCE_MACC_PFC && m->opcode != ROCE_MACC_PAUSE) {
		if (to_reserved && m->has_dst)
			m->malformed |= ROCE_MACC_BAD_OPCODE;
		goto out;
	}
	if (!to_reserved)
		m->malformed |= ROCE_MACC_BAD_DST;
	if (wire_end < off + need)
		m->malformed |= ROCE_MACC_SHORT;
	if (m->opcode == ROCE_MACC_PAUSE) {
		if ((o = span_at(&s, off, MACC_PAUSE_LEN))) {
			m->quanta[0] = ld_be16(o + MACC_PAUSE_TIME);
			m->fields = 1;
		}
	} else {
		if ((o = span_at(&s, off, MACC_PFC_ENBV + 2))) {
			m->enbv = ld_be16(o + MACC_PFC_ENBV);
			if (m->enbv & 0xff00)
				m->malformed |= ROCE_MACC_BAD_ENBV;
		}
		for (unsigned i = 0; i < 8 && (o = span_at(&s, off + MACC_PFC_TIME + 2 * i, 2)); i++) {
			m->quanta[i] = ld_be16(o);
			m->fields = (uint8_t)(i + 1);
			if (m->quanta[i] && !(m->enbv >> i & 1))
				m->malformed |= ROCE_MACC_BAD_TIME;
		}
	}
	if (!(m->malformed & ROCE_MACC_SHORT) && !span_has(&s, off, need)) {
		p->trunc_layer = ROCE_LAYER_LINK;
		roce_evset_add(&p->events, ROCE_EV_TRUNCATED);
	}
out:
	if (m->malformed)
		roce_evset_add(&p->events, ROCE_EV_PFC_MALFORMED);
}
