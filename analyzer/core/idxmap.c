/* idxmap.c: open-addressing index of records by their keys' hashes (see idxmap.h). */
#include "idxmap.h"

#include "pages.h"

int idxmap_init(struct idxmap *m, uint32_t capacity_hint)
{
	if (!(m->slots = pages_table(capacity_hint, 1u << 31, sizeof(*m->slots), &m->mask)))
		return -1;
	m->count = 0;
	return 0;
}

void idxmap_free(struct idxmap *m)
{
	if (m->slots)
		pages_free(m->slots, (size_t)(m->mask + 1) * sizeof(*m->slots));
	m->slots = NULL;
}

/* The empty slot where hash h goes. */
static uint32_t free_slot(const struct idxmap *m, uint32_t h)
{
	uint32_t i = h & m->mask;
	while (m->slots[i].val)
		i = (i + 1) & m->mask;
	return i;
}

int idxmap_reserve(struct idxmap *m)
{
	if ((uint64_t)(m->count + 1) * 10 <= (uint64_t)(m->mask + 1) * 7)
		return 0;
	struct idxmap n;
	if (m->mask >= (1u << 31) - 1 || idxmap_init(&n, (m->mask + 1) * 2) < 0)
		return -1;
	for (uint32_t i = 0; i <= m->mask; i++)
		if (m->slots[i].val)
			n.slots[free_slot(&n, m->slots[i].hash)] = m->slots[i];
	n.count = m->count;
	idxmap_free(m);
	*m = n;
	return 0;
}

int idxmap_add(struct idxmap *m, uint32_t h, uint32_t val)
{
	if (idxmap_reserve(m) < 0)
		return -1;
	idxmap_fill(m, free_slot(m, h), h, val);
	return 0;
}

void idxmap_del_at(struct idxmap *m, uint32_t i)
{
	if (!m->slots[i].val)
		return;
	/* backward-shift: pull later members of the probe run into the hole */
	for (uint32_t j = (i + 1) & m->mask; m->slots[j].val; j = (j + 1) & m->mask) {
		uint32_t home = m->slots[j].hash & m->mask;
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
