/* u64map.c: open-addressing u64 → u32 map (see u64map.h). */
#include "u64map.h"

#include <string.h>

#include "grow.h"
#include "pages.h"

int u64map_init(struct u64map *m, uint32_t capacity_hint)
{
	if (!(m->slots = pages_table(capacity_hint, 1u << 30, sizeof(*m->slots), &m->mask)))
		return -1;
	m->count = 0;
	return 0;
}

void u64map_free(struct u64map *m)
{
	if (m->slots)
		pages_free(m->slots, (size_t)(m->mask + 1) * sizeof(*m->slots));
	m->slots = NULL;
}

static int grow(struct u64map *m)
{
	struct u64map n;
	if (m->mask >= (1u << 30) - 1 || u64map_init(&n, (m->mask + 1) * 2) < 0)
		return -1;
	for (uint32_t i = 0; i <= m->mask; i++)
		if (m->slots[i].val)
			u64map_put(&n, m->slots[i].key, m->slots[i].val - 1);
	u64map_free(m);
	*m = n;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	if ((uint64_t)(m->count + 1) * 10 > (uint64_t)(m->mask + 1) * 7 && grow(m) < 0)
		return -1;
	struct u64map_slot *e = &m->slots[u64map_probe(m, key)];
	if (!e->val)
		m->count++;
	*e = (struct u64map_slot){key, val + 1};
	return 0;
}

void u64map_del(struct u64map *m, uint64_t key)
{
	uint32_t i = u64map_probe(m, key);
	if (!m->slots[i].val)
		return;
	/* backward-shift: pull later members of the probe run into the hole */
	for (uint32_t j = (i + 1) & m->mask; m->slots[j].val; j = (j + 1) & m->mask) {
		uint32_t home = u64map_slot_of(m, m->slots[j].key);
		/* j may move to i if its home is not in (i, j] cyclically */
		bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!stays) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].val = 0;
	m->count--;
}

uint32_t u64map_append(struct u64map *m, uint64_t key, const struct u64map_rows *t)
{
	if (t->n >= t->max)
		return UINT32_MAX;
	if (t->n == *t->cap) {
		void *items;  /* the caller's typed pointer, read and written as bytes (no aliasing) */
		memcpy(&items, t->items_ptr, sizeof(items));
		void *p = grow_array(items, t->cap, t->size, t->first, t->max);
		if (!p)
			return UINT32_MAX;
		memcpy(t->items_ptr, &p, sizeof(p));
	}
	if (u64map_put(m, key, t->n) < 0)
		return UINT32_MAX;
	return t->n;
}
