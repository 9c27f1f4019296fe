/* copies.c: copies of a frame (see copies.h). The content key reuses the ICRC (IBTA Vol 1
 * §7.8.1; RoCEv2 Annex A17.3.3), which already covers every byte of the packet that no hop may
 * change, so a key costs a few loads, not a pass over the payload. */
#include "copies.h"

#include <string.h>

#include "bytes.h"

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * UINT64_C(0x9e3779b97f4a7c15);
	return h ^ (h >> 31);
}

static uint64_t mix_bytes(uint64_t h, const uint8_t *b, uint32_t n)
{
	uint64_t w;
	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = mix(h, w);
	}
	for (w = n; n; n--)
		w = w << 8 | b[n - 1];
	return mix(h, w);
}

uint64_t copy_content_key(const struct roce_pkt *p, const uint8_t *frame)
{
	uint32_t have = roce_readable_len(p->caplen);
	uint64_t h = mix(UINT64_C(0x243f6a8885a308d3), (uint64_t)p->net.ip_id << 32 | p->udp.sport);
	h = mix(h, p->roce_len);
	h = mix_bytes(h, frame + p->net.addr_off, 2u * p->net.addr_len);
	uint32_t bth_end = (uint32_t)p->bth_off + ROCE_BTH_LEN;
	if (bth_end <= have)
		h = mix_bytes(h, frame + p->bth_off, ROCE_BTH_LEN);
	if (p->icrc_off && p->icrc_off + 4 <= have) {
		h = mix(h, (uint64_t)p->icrc_wire << 1 | 1);
	} else if (bth_end < have) {
		uint32_t n = have - bth_end;
		h = mix_bytes(h, frame + bth_end, n < 64 ? n : 64);
	}
	return h ? h : 1;
}

uint32_t copy_where(const struct roce_pkt *p, const uint8_t *frame)
{
	uint64_t h = mix(UINT64_C(0x13198a2e03707344), (uint64_t)p->capture_if << 32 | p->sll_ifindex);
	h = mix(h, (uint64_t)p->sll_pkttype << 48 | (uint64_t)p->n_vlan << 40 | p->linktype);
	for (unsigned i = 0; i < p->n_vlan && i < ROCE_MAX_VLAN; i++)
		h = mix(h, p->vlan[i].vid);
	if (p->eth_off >= 0)  /* destination and source MAC, captured whenever the IP header is */
		h = mix_bytes(h, frame + p->eth_off, 12);
	const struct roce_wrap *w = &p->wrap;
	if (w->kind != ROCE_WRAP_NONE) {
		h = mix(h, (uint64_t)w->kind << 56 | (uint64_t)w->session_id << 40 | (uint64_t)w->direction << 32 |
				   (w->has_key ? w->gre_key : 0));
		h = mix(h, (uint64_t)w->vni << 16 | w->hwid);
		/* the mirror's own address: the outer IP source */
		h = mix_bytes(h, frame + w->ip_off + (w->ip_version == 6 ? 8 : 12), w->ip_version == 6 ? 16 : 4);
	}
	return (uint32_t)(h ^ (h >> 32));
}

struct copy_slot *copy_find(struct copy_slot *table, int64_t window_ns, uint64_t key, uint32_t where, int64_t ts,
			    uint64_t frame, enum copy_seen *seen)
{
	struct copy_slot *set = &table[((key ^ (key >> 29)) & (COPY_SLOTS / COPY_WAYS - 1)) * COPY_WAYS];
	struct copy_slot *victim = set;  /* the set's oldest sighting, in file order */
	*seen = COPY_NEW;
	for (unsigned w = 0; w < COPY_WAYS; w++) {
		struct copy_slot *s = &set[w];
		if (s->key == key) {
			int64_t d = ts - s->ts;
			if ((d < 0 ? -d : d) <= window_ns)
				*seen = s->where != where ? COPY_ELSEWHERE : COPY_SAME_PLACE;
			return s;
		}
		if ((uint32_t)((uint32_t)frame - s->frame) > (uint32_t)((uint32_t)frame - victim->frame))
			victim = s;
	}
	return victim;
}
