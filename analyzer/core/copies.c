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

static inline uint64_t ld64(const uint8_t *b)
{
	uint64_t w;
	memcpy(&w, b, 8);
	return w;
}

static inline uint32_t ld32(const uint8_t *b)
{
	uint32_t w;
	memcpy(&w, b, 4);
	return w;
}

/* n bytes (n < 8 after whole words), for the rare paths */
static uint64_t mix_bytes(uint64_t h, const uint8_t *b, uint32_t n)
{
	for (; n >= 8; b += 8, n -= 8)
		h = mix(h, ld64(b));
	uint64_t w = n;
	for (; n; n--)
		w = w << 8 | b[n - 1];
	return mix(h, w);
}

/* Runs for every frame: a few loads and multiplies on the common path (IPv4 or IPv6, the ICRC
 * captured), a byte loop only for a frame cut before its ICRC. */
uint64_t copy_content_key(const struct roce_pkt *p, const uint8_t *frame)
{
	uint32_t have = roce_readable_len(p->caplen);
	const uint8_t *addr = frame + p->net.addr_off;
	uint64_t h = ((uint64_t)p->net.ip_id << 48 | (uint64_t)p->udp.sport << 32 | p->roce_len) *
		     UINT64_C(0xc2b2ae3d27d4eb4f);
	h ^= ld64(addr) * UINT64_C(0x165667b19e3779f9);
	if (p->net.addr_len == 16)
		h = mix(h, ld64(addr + 8) ^ ld64(addr + 16) * 3 ^ ld64(addr + 24) * 5);
	uint32_t bth_end = (uint32_t)p->bth_off + ROCE_BTH_LEN;
	if (bth_end <= have)
		h = mix(h, ld64(frame + p->bth_off) ^ (uint64_t)ld32(frame + p->bth_off + 8) << 17);
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
	/* a fold, not a hash: two places that differ in one of these differ here (but for a rare
	 * coincidence, after which the IPv4 id rule decides) */
	uint64_t h = ((uint64_t)p->capture_if << 32 | p->sll_ifindex) ^ (uint64_t)p->sll_pkttype << 24 ^
		     (uint64_t)p->linktype << 48;
	if (p->n_vlan)  /* the innermost tag and how many: a frame seen on two VLANs differs here */
		h ^= (uint64_t)p->vlan[p->n_vlan - 1].vid << 36 ^ (uint64_t)p->n_vlan << 60;
	if (p->eth_off >= 0)  /* destination and source MAC, captured whenever the IP header is */
		h ^= (ld64(frame + p->eth_off) ^ (uint64_t)ld32(frame + p->eth_off + 8) << 16) * 0x9e3779b97f4a7c15u;
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
	struct copy_slot *set = copy_set(table, key);
	_Static_assert(COPY_WAYS == 4, "the ways are compared unrolled");
	struct copy_slot *s = set[0].key == key ? &set[0] : set[1].key == key ? &set[1] :
			      set[2].key == key ? &set[2] : set[3].key == key ? &set[3] : NULL;
	*seen = COPY_NEW;
	if (s) {
		int64_t d = ts - s->ts;
		if ((d < 0 ? -d : d) <= window_ns)
			*seen = s->where != where ? COPY_ELSEWHERE : COPY_SAME_PLACE;
		return s;
	}
	/* a new packet replaces one of the set's four, by its frame number: copies come within a
	 * few frames, or a few hundred (a pcapng's per-interface batches), long before a set has
	 * taken four more */
	return &set[frame & (COPY_WAYS - 1)];
}
