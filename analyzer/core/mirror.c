/* mirror.c: mirror sessions as capture points, and the frames their sequence numbers show lost
 * (mirror.h, roce/mirror.h). */
#include "mirror.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/fields.h"
#include "stream_table.h"

bool roce_mirror_point_of(const struct roce_pkt *p, const uint8_t *frame, struct roce_mirror_point *pt)
{
	const struct roce_wrap *w = &p->wrap;
	if (w->kind == ROCE_WRAP_NONE || w->kind == ROCE_WRAP_VXLAN || !w->ip_off)
		return false;
	unsigned alen = w->ip_version == 6 ? 16 : 4, aoff = w->ip_version == 6 ? 8 : 12;
	if (w->ip_off + aoff + 2 * alen > roce_readable_len(p->caplen))
		return false;
	memset(pt, 0, sizeof(*pt));
	pt->kind = w->kind;
	pt->addr_len = (uint8_t)alen;
	memcpy(pt->src, frame + w->ip_off + aoff, alen);
	memcpy(pt->dst, frame + w->ip_off + aoff + alen, alen);
	if (w->kind == ROCE_WRAP_ERSPAN2 || w->kind == ROCE_WRAP_ERSPAN3) {
		pt->has_id = true;
		pt->id = w->session_id;
	} else if (w->has_key) {
		pt->has_id = true;
		pt->id = w->gre_key;
	}
	return true;
}

size_t roce_mirror_point_name(char *buf, size_t cap, const struct roce_mirror_point *pt)
{
	char src[ROCE_ADDRSTR_MAX], dst[ROCE_ADDRSTR_MAX], id[24] = "";
	roce_fmt_ip(src, pt->src, pt->addr_len);
	roce_fmt_ip(dst, pt->dst, pt->addr_len);
	bool session = pt->kind == ROCE_WRAP_ERSPAN2 || pt->kind == ROCE_WRAP_ERSPAN3;
	if (pt->has_id)
		snprintf(id, sizeof(id), " %s %u", session ? "session" : "key", (unsigned)pt->id);
	int n = snprintf(buf, cap, "%s %s>%s%s", roce_wrap_name((enum roce_wrap_kind)pt->kind), src, dst, id);
	return n > 0 ? (size_t)n : 0;
}

static bool same_point(const struct roce_mirror_point *a, const struct roce_mirror_point *b)
{
	return a->kind == b->kind && a->addr_len == b->addr_len && a->has_id == b->has_id && a->id == b->id &&
	       !memcmp(a->src, b->src, a->addr_len) && !memcmp(a->dst, b->dst, a->addr_len);
}

/* The session of point pt, added if new; -1 when the table is full or out of memory. */
static int32_t session_of(struct mirror_table *t, const struct roce_mirror_point *pt)
{
	if (t->last < t->n && same_point(&t->s[t->last].row.point, pt))
		return (int32_t)t->last;
	for (uint32_t i = 0; i < t->n; i++)
		if (same_point(&t->s[i].row.point, pt))
			return (int32_t)(t->last = i);
	if (t->n == ROCE_MIRROR_SESSIONS)
		return -1;
	if (t->n == t->alloc) {
		uint32_t alloc = t->alloc ? 2 * t->alloc : 4;
		struct mirror_sess *s = realloc(t->s, alloc * sizeof(*s));
		if (!s)
			return -1;
		t->s = s;
		t->alloc = alloc;
	}
	struct mirror_sess *s = &t->s[t->n];
	memset(s, 0, sizeof(*s));
	s->row.point = *pt;
	return (int32_t)(t->last = t->n++);
}

/* A frame below the expected number, back numbers before it: a skipped one comes late (taken back
 * from the loss: true), a duplicate or one too late to tell, or the tunnel started again. */
static bool seq_back(struct mirror_sess *s, uint32_t seq, uint32_t back)
{
	uint64_t bit = back <= 64 ? UINT64_C(1) << (back - 1) : 0;
	if (s->holes & bit) {
		s->holes &= ~bit;
		s->row.reordered++;
		s->row.lost--;
		if (s->credit)
			s->credit--;
		return true;
	}
	if (back < MIRROR_RESTART_BACK) {
		s->row.late++;
	} else {
		s->row.restarts++;
		s->next = seq + 1;
		s->holes = 0;
		s->credit = 0;
	}
	return false;
}

/* A frame d numbers past the expected one (d > 0): a gap of d frames. */
static void seq_gap(struct mirror_sess *s, uint32_t seq, uint32_t d)
{
	s->row.gaps++;
	s->row.lost += d;
	uint64_t skipped = d >= 63 ? ~UINT64_C(1) : ((UINT64_C(1) << d) - 1) << 1;
	s->holes = (d >= 63 ? 0 : s->holes << (d + 1)) | skipped;
	s->credit = s->credit + d < s->credit ? UINT32_MAX : s->credit + d;
	s->credit_seq = seq;
	s->next = seq + 1;
}

void mirror_frame(struct mirror_table *t, const struct roce_pkt *p, const uint8_t *frame, struct mirror_seen *out)
{
	struct roce_mirror_point pt;
	out->sess = -1;
	out->gap = out->late = false;
	if (!roce_mirror_point_of(p, frame, &pt))
		return;
	int32_t i = session_of(t, &pt);
	if (i < 0) {
		t->untracked++;
		return;
	}
	struct mirror_sess *s = &t->s[i];
	out->sess = i;
	if (!s->row.frames++) {
		s->row.has_seq = p->wrap.has_seq;
		s->next = p->wrap.gre_seq;
	}
	if (!p->wrap.has_seq || !s->row.has_seq)
		return;
	uint32_t seq = p->wrap.gre_seq;
	int32_t d = (int32_t)(seq - s->next);  /* modulo 2^32: the numbers wrap */
	out->seq = seq;
	if (d < 0) {
		out->late = seq_back(s, seq, (uint32_t)-(int64_t)d);
		return;
	}
	if (d > 0) {
		out->gap = true;
		out->expected = s->next;
		seq_gap(s, seq, (uint32_t)d);
		return;
	}
	s->next = seq + 1;
	s->holes <<= 1;
}

bool mirror_claim(struct mirror_table *t, const struct mirror_seen *m, uint32_t stream_id, uint32_t missing)
{
	if (m->sess < 0)
		return false;
	struct mirror_sess *s = &t->s[m->sess];
	if (!s->row.has_seq || s->credit < missing || m->seq - s->credit_seq >= MIRROR_CLAIM_WINDOW)
		return false;
	if (!t->by_stream.slots && u64map_init(&t->by_stream, 16) < 0)
		return false;
	uint32_t had = 0;
	u64map_get(&t->by_stream, stream_id, &had);
	uint32_t now = had + missing < had || had + missing == UINT32_MAX ? UINT32_MAX - 1 : had + missing;
	if (u64map_put(&t->by_stream, stream_id, now) < 0)
		return false;
	s->credit -= missing;
	s->row.lost_psns += missing;
	return true;
}

void mirror_unclaim(struct mirror_table *t, const struct mirror_seen *m, uint32_t stream_id)
{
	uint32_t had = 0;
	if (m->sess < 0 || !t->by_stream.slots || !u64map_get(&t->by_stream, stream_id, &had) || !had)
		return;
	if (u64map_put(&t->by_stream, stream_id, had - 1) == 0 && t->s[m->sess].row.lost_psns)
		t->s[m->sess].row.lost_psns--;
}

uint32_t mirror_stream_lost(const struct mirror_table *t, uint32_t stream_id)
{
	uint32_t v = 0;
	if (t->by_stream.slots)
		u64map_get(&t->by_stream, stream_id, &v);
	return v;
}

void mirror_free(struct mirror_table *t)
{
	free(t->s);
	if (t->by_stream.slots)
		u64map_free(&t->by_stream);
	memset(t, 0, sizeof(*t));
}

void roce_analyzer_mirror_foreach(const struct roce_analyzer *a,
				  void (*fn)(const struct roce_mirror_row *r, void *user), void *user)
{
	for (uint32_t i = 0; i < a->mirror.n; i++)
		fn(&a->mirror.s[i].row, user);
}

uint32_t roce_analyzer_mirror_sessions(const struct roce_analyzer *a)
{
	return a->mirror.n;
}

uint64_t roce_analyzer_mirror_untracked(const struct roce_analyzer *a)
{
	return a->mirror.untracked;
}
