/* copies.c: copies of a frame and the sightings table (see copies.h). The ICRC (IBTA Vol 1
 * §7.8.1; RoCEv2 Annex A17.3.3) already covers every byte of the packet that no hop may change,
 * so the headers and it tell packets apart in a few loads, not a pass over the payload. */
#include "copies.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * UINT64_C(0x9e3779b97f4a7c15);
	return h ^ (h >> 31);
}

/* n bytes (n < 8 after whole words) */
static uint64_t mix_bytes(uint64_t h, const uint8_t *b, uint32_t n)
{
	for (; n >= 8; b += 8, n -= 8)
		h = mix(h, ld_ne64(b));
	uint64_t w = n;
	for (; n; n--)
		w = w << 8 | b[n - 1];
	return mix(h, w);
}

/* Runs for every frame: a few loads and multiplies. */
uint64_t copy_content_key(const struct roce_pkt *p, const uint8_t *frame)
{
	uint32_t have = roce_readable_len(p->caplen);
	const uint8_t *addr = frame + p->net.addr_off;
	uint64_t h = ((uint64_t)p->net.ip_id << 48 | (uint64_t)p->udp.sport << 32 | p->roce_len) *
		     UINT64_C(0xc2b2ae3d27d4eb4f);
	h ^= ld_ne64(addr) * UINT64_C(0x165667b19e3779f9);
	if (p->net.addr_len == 16)
		h = mix(h, ld_ne64(addr + 8) ^ ld_ne64(addr + 16) * 3 ^ ld_ne64(addr + 24) * 5);
	if ((uint32_t)p->bth_off + ROCE_BTH_LEN <= have)
		h = mix(h, ld_ne64(frame + p->bth_off) ^ (uint64_t)ld_ne32(frame + p->bth_off + 8) << 17);
	else
		h = mix(h, (uint64_t)p->h.bth.dqpn << 32 | p->h.bth.psn);
	return h ? h : 1;
}

/* The mirror wrapper into h: kind, ERSPAN session and direction, GRE key, VXLAN VNI, hardware id,
 * and the mirror's own address (the outer IP source). */
static uint64_t mix_wrap(uint64_t h, const struct roce_pkt *p, const uint8_t *frame)
{
	const struct roce_wrap *w = &p->wrap;
	if (w->kind == ROCE_WRAP_NONE)
		return h;
	h = mix(h, (uint64_t)w->kind << 56 | (uint64_t)w->session_id << 40 | (uint64_t)w->direction << 32 |
			   (w->has_key ? w->gre_key : 0));
	h = mix(h, (uint64_t)w->vni << 16 | w->hwid);
	return mix_bytes(h, frame + w->ip_off + (w->ip_version == 6 ? 8 : 12), w->ip_version == 6 ? 16 : 4);
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
		h ^= (ld_ne64(frame + p->eth_off) ^ (uint64_t)ld_ne32(frame + p->eth_off + 8) << 16) * 0x9e3779b97f4a7c15u;
	h = mix_wrap(h, p, frame);
	return (uint32_t)(h ^ (h >> 32));
}

uint64_t copy_point(const struct roce_pkt *p, const uint8_t *frame)
{
	return mix_wrap(mix((uint64_t)p->capture_if << 32 | p->sll_ifindex, p->linktype), p, frame);
}

/* ---- the sightings table ---- */

/* The ring and its buckets n entries large (a power of two), the entries from head to tail
 * moved over and their buckets' chains made anew; every other bucket empty (head - 1: a
 * sequence number no entry has). -1 when out of memory, t as it was. */
static int sightings_resize(struct sightings *t, uint32_t n)
{
	uint32_t mask = n - 1;
	struct sight_entry *ring = malloc((size_t)n * sizeof(*ring));
	uint32_t *bucket = malloc((size_t)n * sizeof(*bucket));
	if (!ring || !bucket) {
		free(ring);
		free(bucket);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		bucket[i] = t->head - 1;
	for (uint32_t q = t->head; q != t->tail; q++) {
		struct sight_entry *e = &ring[q & mask];
		*e = t->ring[q & t->mask];
		uint32_t *b = &bucket[sightings_bucket_of(e->key, mask)];
		e->next = *b;
		*b = q;
	}
	free(t->ring);
	free(t->bucket);
	t->ring = ring;
	t->bucket = bucket;
	t->mask = mask;
	return 0;
}

int sightings_init(struct sightings *t, int64_t window_ns)
{
	*t = (struct sightings){.window_ns = window_ns, .raw_newest = INT64_MIN};
	return sightings_resize(t, COPY_SIGHTINGS_MIN);
}

void sightings_free(struct sightings *t)
{
	if (t->ring)
		for (uint32_t q = t->head; q != t->tail; q++)
			free(t->ring[q & t->mask].more);
	free(t->ring);
	free(t->bucket);
	t->ring = NULL;
	t->bucket = NULL;
	while (t->spare) {
		void *next;
		memcpy(&next, t->spare, sizeof(next));
		free(t->spare);
		t->spare = next;
	}
	t->n_spare = 0;
}

static uint32_t sightings_forget_done(struct sightings *t, int64_t passed);

void sightings_time_ordered(struct sightings *t)
{
	if (t->time_ordered || t->tail != t->head)
		return;
	if (sightings_resize(t, COPY_SIGHTINGS_ORDERED) == 0)  /* else the larger ring serves as well */
		t->time_ordered = true;
}

uint32_t sightings_point(struct sightings *t, uint64_t id, int64_t ts)
{
	uint32_t i = t->last_point;
	if (i >= t->n_points || t->points[i].id != id) {
		for (i = 0; i < t->n_points && t->points[i].id != id; i++)
			;
		if (i == t->n_points) {
			/* the second point of a capture in time order: what the first is done with (by
			 * the older of its newest frame and this one) is forgotten now, not when the
			 * ring needs its room, so that the fold sees the same entries with two points
			 * (path.h) whatever the ring's size */
			if (t->n_points == 1 && t->time_ordered)
				sightings_forget_done(t, ts < t->points[0].newest ? ts : t->points[0].newest);
			if (t->n_points < COPY_POINTS_MAX)
				t->points[t->n_points++] = (struct capture_point){id, ts, 0};
			else  /* shared with another: it holds the older entries a little less long */
				i = (uint32_t)(id % COPY_POINTS_MAX);
		}
		t->last_point = i;
	}
	if (ts - t->points[i].offset > t->points[i].newest)
		t->points[i].newest = ts - t->points[i].offset;
	if (ts > t->raw_newest)
		t->raw_newest = ts;
	else if (t->raw_newest - ts > t->raw_back)
		t->raw_back = t->raw_newest - ts;
	return i;
}

void sightings_offset(struct sightings *t, uint32_t i, int64_t offset)
{
	t->points[i].newest += t->points[i].offset - offset;
	t->points[i].offset = offset;
	if (offset < t->off_min)
		t->off_min = offset;
	if (offset > t->off_max)
		t->off_max = offset;
}

/* How e's packet was seen within the window of ts: not (its first sighting is not within it), at
 * where already (a sighting there within it), or only elsewhere. The window runs from the first
 * sighting, the packet's own: a chain of copies does not stretch it. */
static enum copy_seen sighting_seen(const struct sightings *t, const struct sight_entry *e, int64_t ts, uint32_t where)
{
	int64_t d = ts - e->s[0].ts;
	if ((d < 0 ? -d : d) > t->window_ns)
		return COPY_NEW;
	for (unsigned k = 0; k < e->n; k++) {
		const struct sighting *x = sighting_at(e, k);
		d = ts - x->ts;
		if (x->where == where && (d < 0 ? -d : d) <= t->window_ns)
			return COPY_SAME_PLACE;
	}
	return COPY_ELSEWHERE;
}

struct sight_entry *sightings_find(struct sightings *t, uint64_t key, uint32_t icrc, bool has_icrc, int64_t ts,
				   uint32_t where, enum copy_seen *seen)
{
	struct sight_entry *found = NULL;
	int64_t found_d = 0;
	*seen = COPY_NEW;
	/* An entry first sighted before `oldest` has every entry older than it out of the window
	 * too: an older entry's frame came earlier, at most raw_back behind in its own clock, and
	 * the points' clocks are taken back by offsets at most off_max - off_min apart. */
	int64_t spread, reach, oldest;
	if (__builtin_sub_overflow(t->off_max, t->off_min, &spread) ||
	    __builtin_add_overflow(t->window_ns, t->raw_back, &reach) || __builtin_add_overflow(reach, spread, &reach) ||
	    __builtin_sub_overflow(ts, reach, &oldest))
		oldest = INT64_MIN;
	/* newest first; each step to an older entry, so that a stale sequence number taken for a
	 * live one (after 2^32 entries) cannot make a loop. Of the packets seen only elsewhere, the
	 * one first seen nearest in time; else one seen here already (another sending of it). */
	uint32_t age = t->tail - t->head, walked = 0;
	for (uint32_t q = t->bucket[sightings_bucket_index(t, key)]; q - t->head < age && walked < COPY_CHAIN_MAX;
	     q = t->ring[q & t->mask].next, walked++) {
		age = q - t->head;
		struct sight_entry *e = &t->ring[q & t->mask];
		if (e->s[0].ts < oldest)
			break;
		if (e->key != key || (has_icrc && e->has_icrc && e->icrc != icrc))
			continue;
		enum copy_seen how = sighting_seen(t, e, ts, where);
		int64_t d = ts - e->s[0].ts;
		d = d < 0 ? -d : d;
		if (how == COPY_ELSEWHERE && (*seen != COPY_ELSEWHERE || d < found_d)) {
			*seen = how;
			found = e;
			found_d = d;
		} else if (how == COPY_SAME_PLACE && *seen == COPY_NEW) {
			*seen = how;
			found = e;
		}
	}
	return found;
}

void sightings_also(struct sightings *t, struct sight_entry *e, const struct sighting *x)
{
	if (e->n == UINT8_MAX)
		return;
	if (e->n < COPY_INLINE) {
		e->s[e->n++] = *x;
		return;
	}
	unsigned k = e->n - COPY_INLINE;
	if (k == 0 && t->spare) {
		e->more = t->spare;
		memcpy(&t->spare, e->more, sizeof(t->spare));
		t->n_spare--;
		e->more_alloc = COPY_MORE_FIRST;
	} else if (k == e->more_alloc) {
		unsigned n = k ? 2 * k : COPY_MORE_FIRST;
		struct sighting *m = realloc(e->more, n * sizeof(*m));
		if (!m)
			return;
		e->more = m;
		e->more_alloc = (uint16_t)n;
	}
	e->more[k] = *x;
	e->n++;
}

/* The oldest time every capture point has passed: no frame to come is older. */
static int64_t sightings_passed(const struct sightings *t)
{
	int64_t m = INT64_MAX;
	for (uint32_t i = 0; i < t->n_points; i++)
		if (t->points[i].newest < m)
			m = t->points[i].newest;
	return m;
}

/* Whether no frame to come can be a copy of e's packet: every point is past its first sighting
 * plus the window (and the slack, for a point still to show up whose clock runs ahead). */
static inline bool sighting_done(const struct sightings *t, const struct sight_entry *e, int64_t passed)
{
	return e->s[0].ts < passed && passed - e->s[0].ts > t->window_ns + t->slack_ns;
}

static void sightings_pop(struct sightings *t)
{
	struct sight_entry *e = &t->ring[t->head++ & t->mask];
	if (t->fold)
		t->fold(t->fold_user, t, e);
	if (e->more && e->more_alloc == COPY_MORE_FIRST && t->n_spare < COPY_SPARE_MAX) {
		memcpy(e->more, &t->spare, sizeof(t->spare));
		t->spare = e->more;
		t->n_spare++;
	} else {
		free(e->more);
	}
	e->more = NULL;
}

/* Twice the room: the ring's entries to their new places, the chains made again. */
static int sightings_grow(struct sightings *t)
{
	return sightings_resize(t, 2 * (t->mask + 1));
}

/* The entries no frame can match any more, every point being past passed, forgotten, oldest
 * first, up to the first one a frame still could. Returns how many. */
static uint32_t sightings_forget_done(struct sightings *t, int64_t passed)
{
	uint32_t freed = 0;
	while (t->head != t->tail && sighting_done(t, &t->ring[t->head & t->mask], passed)) {
		sightings_pop(t);
		freed++;
	}
	return freed;
}

/* Room for one more entry in a full ring: the entries no frame can match any more forgotten; if
 * few were, the ring twice as large; at COPY_SIGHTINGS_MAX, the oldest forgotten regardless. */
static void sightings_room(struct sightings *t)
{
	uint32_t size = t->mask + 1, freed = sightings_forget_done(t, sightings_passed(t));
	if (freed >= size / 16 || (size < COPY_SIGHTINGS_MAX && sightings_grow(t) == 0) || freed)
		return;
	t->unchecked++;
	sightings_pop(t);
}

void sightings_add(struct sightings *t, uint64_t key, uint32_t icrc, bool has_icrc, const struct sighting *x)
{
	if (t->tail - t->head > t->mask)
		sightings_room(t);
	uint32_t q = t->tail++, *b = &t->bucket[sightings_bucket_index(t, key)];
	struct sight_entry *e = &t->ring[q & t->mask];
	*e = (struct sight_entry){.key = key, .next = *b, .icrc = icrc, .n = 1, .has_icrc = has_icrc, .s = {*x}};
	*b = q;
	if ((int32_t)(x->frame - t->last_frame) < 0)
		t->unsorted = true;
	t->last_frame = x->frame;
}

void sightings_flush(struct sightings *t)
{
	while (t->head != t->tail)
		sightings_pop(t);
}

const struct sight_entry *sightings_of_frame(const struct sightings *t, uint32_t frame)
{
	if (t->head == t->tail)
		return NULL;
	if (t->unsorted) {  /* the frames' numbers do not grow with the entries: each looked at */
		for (uint32_t q = t->tail; q != t->head; q--)
			if (t->ring[(q - 1) & t->mask].s[0].frame == frame)
				return &t->ring[(q - 1) & t->mask];
		return NULL;
	}
	uint32_t base = t->ring[t->head & t->mask].s[0].frame, want = frame - base;
	uint32_t lo = t->head, hi = t->tail;  /* the first entry whose frame is past want: in [lo, hi] */
	while (lo != hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->ring[mid & t->mask].s[0].frame - base <= want)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->head)
		return NULL;
	const struct sight_entry *e = &t->ring[(lo - 1) & t->mask];
	return e->s[0].frame == frame ? e : NULL;
}
