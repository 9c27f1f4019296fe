/* report.c: rocedump --report's collection (see report.h): as frames arrive, the capture's event
 * timeline and, per stream, its frames as plot points, then bins; at the end, the queue pairs
 * sorted by trouble from the analyzer's own rows, and the page (report_page.c).
 *
 * A frame belongs to the stream the transport analyzer put it on (IBTA Vol 1 §9.4-9.7: one
 * direction of a queue pair, source address > destination address + destination QP): the
 * stream id of its findings, which the summary's rows carry too. Memory: a stream's points stop at
 * REPORT_EXACT_POINTS and turn into TBINS_N bins; all points and bins together stay within
 * REPORT_MEM_BUDGET (a stream past it gets no series, and the page says how many). */
#define _GNU_SOURCE
#include "report/report_data.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "output/rotate.h"
#include "output/streams.h"

/* Whether the report's file is one of the capture files (rocedump refuses it before opening any
 * output too: options.c). */
static bool overwrites_capture(const struct report_config *cfg)
{
	return !cfg->live && out_overwrites_input(cfg->path, cfg->captures, cfg->n_captures);
}

struct report *report_new(const struct report_config *cfg, char *err, size_t errlen)
{
	struct report *r = calloc(1, sizeof(*r));
	if (!r || u64map_init(&r->index, 1024) < 0) {
		snprintf(err, errlen, "out of memory");
		free(r);
		return NULL;
	}
	r->cfg = *cfg;
	if (overwrites_capture(cfg)) {
		snprintf(err, errlen, "%s: the report would overwrite the capture", cfg->path);
		u64map_free(&r->index);
		free(r);
		return NULL;
	}
	r->out = fopen(cfg->path, "w");
	if (!r->out) {
		snprintf(err, errlen, "%s: %s", cfg->path, strerror(errno));
		u64map_free(&r->index);
		free(r);
		return NULL;
	}
	return r;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	if (r->out)
		fclose(r->out);
	for (uint32_t i = 0; i < r->n_streams; i++) {
		free(r->streams[i].enc);
		free(r->streams[i].d);
		report_cong_free(r, &r->streams[i]);
	}
	report_cong_free(r, NULL);
	report_path_free(r);
	free(r->streams);
	u64map_free(&r->index);
	free(r);
}

/* ---- streams ---- */

/* The report's state of the analyzer's stream id; created when create is set (NULL when it is
 * not found, or out of memory). */
struct rstream *report_stream(struct report *r, uint32_t id, bool create)
{
	uint32_t i;
	if (u64map_get(&r->index, id, &i))
		return &r->streams[i];
	const struct u64map_rows rows = {&r->streams, &r->streams_alloc, r->n_streams, sizeof(*r->streams),
					 256, UINT32_MAX - 1};
	if (!create || u64map_append(&r->index, id, &rows) == UINT32_MAX)
		return NULL;
	struct rstream *s = &r->streams[r->n_streams++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	return s;
}

/* ---- points and bins ---- */

bool report_budget_take(struct report *r, size_t bytes)
{
	if (r->mem + bytes > REPORT_MEM_BUDGET)
		return false;
	r->mem += bytes;
	return true;
}

static void sbin_merge(void *dst, const void *src)
{
	struct sbin *a = dst;
	const struct sbin *b = src;
	if (b->req) {
		a->psn_lo = a->req && a->psn_lo < b->psn_lo ? a->psn_lo : b->psn_lo;
		a->psn_hi = a->req && a->psn_hi > b->psn_hi ? a->psn_hi : b->psn_hi;
	}
	if (b->acks)
		a->ack_hi = a->acks && a->ack_hi > b->ack_hi ? a->ack_hi : b->ack_hi;
	if (b->rresp) {
		a->rr_lo = a->rresp && a->rr_lo < b->rr_lo ? a->rr_lo : b->rr_lo;
		a->rr_hi = a->rresp && a->rr_hi > b->rr_hi ? a->rr_hi : b->rr_hi;
	}
	a->req += b->req;
	a->retx += b->retx;
	a->ooo += b->ooo;
	a->gap += b->gap;
	a->tmo += b->tmo;
	a->msgs += b->msgs;
	a->acks += b->acks;
	a->naks += b->naks;
	a->rresp += b->rresp;
	a->other += b->other;
	if (b->rt_n) {
		a->rt_min = a->rt_n && a->rt_min < b->rt_min ? a->rt_min : b->rt_min;
		a->rt_max = a->rt_n && a->rt_max > b->rt_max ? a->rt_max : b->rt_max;
		a->rt_sum += b->rt_sum;
		a->rt_n += b->rt_n;
	}
	a->ce += b->ce;
	a->copies += b->copies;
	a->bytes += b->bytes;
}

unsigned report_rt_bucket(int64_t ns)
{
	uint64_t us = (uint64_t)ns / 1000;
	if (!us)
		return 0;
	unsigned k = 63u - (unsigned)__builtin_clzll(us);
	/* [2^k·√2, 2^(k+1)): us² ≥ 2^(2k+1), compared without overflow past 2^32 µs */
	bool upper = k < 31 ? us * us >= UINT64_C(1) << (2 * k + 1) : (double)us >= 1.4142135623730951 * (double)(UINT64_C(1) << k);
	unsigned b = 1 + 2 * k + upper;
	return b < RT_BUCKETS ? b : RT_BUCKETS - 1;
}

static void bin_add(struct rdetail *d, const struct rpoint *pt)
{
	struct sbin one = {.bytes = pt->len, .ce = !!(pt->flags & RF_CE)};
	if (pt->flags & RF_COPY)  /* in no count of the stream's but its copies */
		one = (struct sbin){.copies = 1};
	else switch (pt->kind) {
	case RK_REQ:
		one.req = 1;
		one.psn_lo = one.psn_hi = pt->psn;
		one.retx = !!(pt->flags & RF_RETX);
		one.ooo = !!(pt->flags & RF_OOO);
		one.gap = !!(pt->flags & RF_GAP);
		one.tmo = !!(pt->flags & RF_TMO);
		one.msgs = !!(pt->flags & RF_END);
		break;
	case RK_ACK:
	case RK_AACK:
		one.acks = 1;
		one.ack_hi = pt->psn;
		break;
	case RK_NAK:
	case RK_RNR:
		one.naks = 1;
		break;
	case RK_RRESP:
		one.rresp = 1;
		one.rr_lo = one.rr_hi = pt->psn;
		one.retx = !!(pt->flags & RF_RETX);
		break;
	default:
		one.other = 1;
	}
	if (pt->kind != RK_REQ && pt->val >= 0) {  /* a response's response time */
		one.rt_n = 1;
		one.rt_min = one.rt_max = pt->val;
		one.rt_sum = (uint64_t)pt->val;
		d->rt_hist[report_rt_bucket(pt->val)]++;
	}
	unsigned i = tbins_index(&d->tb, d->bins, sizeof(*d->bins), sbin_merge, pt->t);
	sbin_merge(&d->bins[i], &one);
	if ((pt->flags & RF_RARE) || pt->kind == RK_NAK || pt->kind == RK_RNR) {
		if (d->n_marks < REPORT_MARKS_MAX)
			d->marks[d->n_marks++] = *pt;
		else
			d->marks_dropped++;
	}
}

/* ---- exact points, encoded ----
 * A point: a byte of kind (bits 0-2), has-code (bit 3), has-value (bit 4); then LEB128
 * varints: flags, time - the previous point's (zigzag), frame - the previous frame,
 * PSN - the previous PSN of the same kind, request or response (zigzag), wire bytes; the code
 * byte and the value (ns, varint) when present. */
#define POINT_ENC_MAX (1 + 3 + 4 * 10 + 1 + 10)

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static const uint8_t *get_varint(const uint8_t *p, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b = *p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	*v = x;
	return p;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);  /* all ones for a negative v */
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static bool is_response(const struct rpoint *pt)
{
	return pt->kind != RK_REQ;
}

/* Append pt to s's encoded points; false when the budget or memory has no room. */
static bool point_encode(struct report *r, struct rstream *s, const struct rpoint *pt)
{
	if (s->enc_cap - s->enc_len < POINT_ENC_MAX) {
		uint32_t cap = grow_capacity(s->enc_cap, 64, UINT32_MAX);
		if (cap - s->enc_len < POINT_ENC_MAX || !report_budget_take(r, cap - s->enc_cap))
			return false;
		void *p = realloc(s->enc, cap);
		if (!p) {
			r->mem -= cap - s->enc_cap;
			return false;
		}
		s->enc = p;
		s->enc_cap = cap;
	}
	uint8_t *p = s->enc + s->enc_len;
	bool code = pt->code != 0, val = pt->val >= 0;
	*p++ = (uint8_t)(pt->kind | code << 3 | val << 4);
	p = put_varint(p, pt->flags);
	p = put_varint(p, zigzag((int64_t)((uint64_t)pt->t - (uint64_t)s->last_t)));
	p = put_varint(p, pt->frame - s->last_frame);
	p = put_varint(p, zigzag(pt->psn - s->last_psn[is_response(pt)]));
	p = put_varint(p, pt->len);
	if (code)
		*p++ = (uint8_t)pt->code;
	if (val)
		p = put_varint(p, (uint64_t)pt->val);
	s->enc_len = (uint32_t)(p - s->enc);
	s->n++;
	return true;
}

void rstream_decode(const struct rstream *s, struct rpoint *out)
{
	const uint8_t *p = s->enc;
	int64_t t = 0, psn[2] = {0, 0};
	uint64_t frame = 0, v;
	for (uint32_t i = 0; i < s->n; i++) {
		struct rpoint *pt = &out[i];
		uint8_t head = *p++;
		pt->kind = head & 7;
		p = get_varint(p, &v);
		pt->flags = (uint16_t)v;
		p = get_varint(p, &v);
		t = (int64_t)((uint64_t)t + (uint64_t)unzigzag(v));
		pt->t = t;
		p = get_varint(p, &v);
		frame += v;
		pt->frame = frame;
		p = get_varint(p, &v);
		psn[is_response(pt)] += unzigzag(v);
		pt->psn = psn[is_response(pt)];
		p = get_varint(p, &v);
		pt->len = (uint32_t)v;
		pt->code = (head & 8) ? *p++ : 0;
		pt->val = -1;
		if (head & 16) {
			p = get_varint(p, &v);
			pt->val = (int64_t)v;
		}
	}
}

static void free_exact(struct report *r, struct rstream *s)
{
	r->mem -= s->enc_cap;
	free(s->enc);
	s->enc = NULL;
	s->n = s->enc_len = s->enc_cap = 0;
}

/* Exact → binned: the points so far go into the bins. False when the budget has no room. */
static bool to_bins(struct report *r, struct rstream *s)
{
	/* zeroed: every field bin_add reads is defined, whatever rstream_decode wrote */
	struct rpoint *pts = calloc((size_t)s->n + 1, sizeof(*pts));
	if (!pts || !report_budget_take(r, sizeof(*s->d))) {
		free(pts);
		return false;
	}
	if (!(s->d = calloc(1, sizeof(*s->d)))) {
		r->mem -= sizeof(*s->d);
		free(pts);
		return false;
	}
	rstream_decode(s, pts);
	for (uint32_t i = 0; i < s->n; i++)
		bin_add(s->d, &pts[i]);
	free(pts);
	free_exact(r, s);
	return true;
}

static void drop_series(struct report *r, struct rstream *s)
{
	free_exact(r, s);
	if (s->d) {
		r->mem -= sizeof(*s->d);
		free(s->d);
		s->d = NULL;
	}
	s->dropped = true;
	r->dropped_streams++;
}

static void add_point(struct report *r, struct rstream *s, const struct rpoint *pt)
{
	if (!s->dropped) {
		if (!s->d && !(s->n < REPORT_EXACT_POINTS && point_encode(r, s, pt)) && !to_bins(r, s))
			drop_series(r, s);
		else if (s->d)
			bin_add(s->d, pt);
	}
	s->last_t = pt->t;
	s->last_frame = pt->frame;
	s->last_psn[is_response(pt)] = pt->psn;
	s->has_psn[is_response(pt)] = true;
}

/* A 24-bit PSN unwrapped next to the last one of its kind (modulo 2^24, window 2^23). */
static int64_t unwrap(const struct rstream *s, bool response, uint32_t psn)
{
	if (!s->has_psn[response])
		return psn;
	int64_t last = s->last_psn[response];
	return last + ((int32_t)((psn - (uint32_t)last) << 8) >> 8);
}

static void gbin_merge(void *dst, const void *src)
{
	struct gbin *a = dst;
	const struct gbin *b = src;
	for (uint64_t i = 0; i < b->ev_frames && i < GBIN_FRAMES && a->ev_frames + i < GBIN_FRAMES; i++)
		a->f[a->ev_frames + i] = b->f[i];
	a->frames += b->frames;
	a->bytes += b->bytes;
	a->roce += b->roce;
	for (unsigned s = 0; s < 3; s++)
		a->sev[s] += b->sev[s];
	a->ev_frames += b->ev_frames;
}

unsigned report_tl_index(struct report *r, int64_t t)
{
	return tbins_index(&r->tl, r->bins, sizeof(*r->bins), gbin_merge, t);
}

/* The point a frame of a stream makes. */
static void make_point(struct rstream *s, uint64_t frame_no, int64_t t, const struct roce_pkt *p,
		       const struct roce_findings *fi, const uint64_t sev[3], struct rpoint *pt)
{
	const struct roce_opcode_info *op = p->op;
	int64_t psn;
	*pt = (struct rpoint){.t = t, .frame = frame_no, .val = -1, .len = p->wirelen};
	if (sev[ROCE_SEV_ERROR])
		pt->flags |= RF_ERROR;
	if (roce_ecn(&p->net) == 3)
		pt->flags |= RF_CE;
	if (roce_evset_has(&p->events, ROCE_EV_PSN_RETRANSMIT))
		pt->flags |= RF_RETX;
	if (roce_evset_has(&p->events, ROCE_EV_FRAME_COPY))
		pt->flags |= RF_COPY;
	if (op->flags & ROCE_OPF_RESPONSE) {
		psn = unwrap(s, true, p->h.bth.psn);
		unsigned kind = (p->h.hdrs & ROCE_HDR_AETH) ? p->h.aeth.syndrome >> 5 : ROCE_AETH_ACK;
		if (op->op == ROCE_OP_READ_RESP && kind == ROCE_AETH_ACK)
			pt->kind = RK_RRESP;
		else if (kind == ROCE_AETH_NAK)
			pt->kind = RK_NAK;
		else if (kind == ROCE_AETH_RNR_NAK)
			pt->kind = RK_RNR;
		else
			pt->kind = op->op == ROCE_OP_ATOMIC_ACK ? RK_AACK : RK_ACK;
		if (pt->kind == RK_NAK || pt->kind == RK_RNR)
			pt->code = p->h.aeth.syndrome & 0x1f;
		pt->val = fi->response_ns;
	} else {
		pt->kind = RK_REQ;
		psn = unwrap(s, false, p->h.bth.psn);
		if (op->seg == ROCE_SEG_LAST || op->seg == ROCE_SEG_ONLY || op->op == ROCE_OP_READ_REQ ||
		    op->op == ROCE_OP_CMP_SWAP || op->op == ROCE_OP_FETCH_ADD)
			pt->flags |= RF_END;
		if (op->op == ROCE_OP_READ_REQ)
			pt->flags |= RF_READ;
		if (roce_evset_has(&p->events, ROCE_EV_PSN_OUT_OF_ORDER))
			pt->flags |= RF_OOO;
		if (roce_evset_has(&p->events, ROCE_EV_PSN_GAP))
			pt->flags |= RF_GAP;
		/* a restart after a NAK and a timeout resend exclude each other (analyze.c) */
		if (fi->recovery_ns >= 0) {
			pt->flags |= RF_RECOVER;
			pt->val = fi->recovery_ns;
		}
		if (roce_evset_has(&p->events, ROCE_EV_RETRANSMIT_TIMEOUT)) {
			pt->flags |= RF_TMO;
			for (unsigned i = 0; i < fi->n; i++)
				if (fi->f[i].event == ROCE_EV_RETRANSMIT_TIMEOUT)
					pt->val = fi->f[i].delta_ns;
		}
	}
	pt->psn = psn;
}

/* The frame's time stamp as read (raw) and as plotted (t): counted for the page's note when it
 * steps back from the frame before, lies before 1970, or beyond the range plotted. */
static void check_ts(struct report *r, int64_t raw, int64_t t)
{
	r->ts_before_1970 += raw < 0;
	r->ts_clamped += raw != t;
	if (r->have_ts && raw < r->prev_ts) {
		int64_t back = report_ts(r->prev_ts) - t;
		r->ts_backwards++;
		r->ts_max_back = back > r->ts_max_back ? back : r->ts_max_back;
	}
	r->prev_ts = raw;
}

void report_frame(struct report *r, uint64_t frame_no, const struct frame *f, const struct roce_pkt *p,
		  const struct roce_findings *fi)
{
	int64_t raw = frame_ts_ns(f), t = report_ts(raw);
	check_ts(r, raw, t);
	if (!r->have_ts) {
		r->first_ts = r->last_ts = t;
		r->have_ts = true;
	}
	r->first_ts = t < r->first_ts ? t : r->first_ts;
	r->last_ts = t > r->last_ts ? t : r->last_ts;

	uint64_t sev[3] = {0};
	bool has_ev = summary_count_events(p, NULL, sev) >= 0;
	struct gbin *g = &r->bins[report_tl_index(r, t)];
	g->frames++;
	g->bytes += p->wirelen;
	g->roce += p->version != 0;
	if (has_ev) {
		if (g->ev_frames < GBIN_FRAMES)
			g->f[g->ev_frames] = frame_no;
		g->ev_frames++;
		for (unsigned s = 0; s < 3; s++)
			g->sev[s] += sev[s];
	}

	report_cong_frame(r, frame_no, t, f, p, fi);
	if (!fi->stream)  /* a frame no stream took */
		return;
	struct rstream *s = report_stream(r, fi->stream, true);
	if (!s)
		return;
	for (unsigned i = 0; i < 3; i++)
		s->ev[i] += sev[i];
	struct rpoint pt;
	make_point(s, frame_no, t, p, fi, sev, &pt);
	add_point(r, s, &pt);
}

/* ---- the end: pairs by trouble ---- */

struct pass_ctx {
	struct report *r;
	struct report_sel *sel;
	bool oom;
	uint32_t *rank;           /* pass 2: per pair (its listing number), its rank, or UINT32_MAX */
	uint32_t number, last_pair;  /* the listing's number of the current pair, and its pair id */
	bool any;
};

/* The listing's number of the row's pair: 0, 1, ... a row or two (a pair) at a time, as
 * --summary numbers them. */
static uint32_t pair_number(struct pass_ctx *c, const struct roce_stream_stats *st)
{
	if (c->any && st->pair == c->last_pair)
		return c->number;
	c->number = c->any ? c->number + 1 : 0;
	c->any = true;
	c->last_pair = st->pair;
	return c->number;
}

static void pass1_row(const struct roce_stream_stats *st, void *user)
{
	struct pass_ctx *c = user;
	struct report_sel *sel = c->sel;
	if (c->oom)
		return;
	uint32_t number = pair_number(c, st);
	if (number == sel->n_pairs) {
		if ((sel->n_pairs & (sel->n_pairs - 1)) == 0 && sel->n_pairs >= 64) {
			void *p = realloc(sel->pairs, (size_t)sel->n_pairs * 2 * sizeof(*sel->pairs));
			if (!p) {
				c->oom = true;
				return;
			}
			sel->pairs = p;
		}
		sel->pairs[sel->n_pairs++] = (struct rpair){.pair = number, .pair_id = st->pair};
	}
	struct rpair *pr = &sel->pairs[sel->n_pairs - 1];
	struct rstream *s = report_stream(c->r, st->stream, false);
	pr->rows++;
	if (s) {
		pr->errors += s->ev[ROCE_SEV_ERROR];
		pr->warnings += s->ev[ROCE_SEV_WARN];
	}
	pr->retransmits += st->retransmits;
	pr->bytes += st->bytes;
}

static int trouble_cmp(const void *pa, const void *pb)
{
	const struct rpair *a = pa, *b = pb;
	if (a->errors != b->errors)
		return a->errors > b->errors ? -1 : 1;
	if (a->warnings != b->warnings)
		return a->warnings > b->warnings ? -1 : 1;
	if (a->retransmits != b->retransmits)
		return a->retransmits > b->retransmits ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->pair < b->pair ? -1 : a->pair > b->pair;
}

/* Pass 2, as the streams block prints: whether the row is listed (its pair is), noting it. */
static bool pass2_keep(const struct roce_stream_stats *st, void *user)
{
	struct pass_ctx *c = user;
	struct report_sel *sel = c->sel;
	uint32_t number = pair_number(c, st);
	if (number >= sel->n_pairs || c->rank[number] == UINT32_MAX)
		return false;
	struct rpair *pr = &sel->pairs[c->rank[number]];
	if (pr->first_row == UINT32_MAX)
		pr->first_row = sel->n_rows;
	sel->rows[sel->n_rows++] = (struct rrow){report_stream(c->r, st->stream, false), c->rank[number]};
	return true;
}

/* The streams block: --summary -T json's object with the rows of the listed pairs. */
static int select_rows(struct report *r, const struct roce_analyzer *an, const struct capstats *cs,
		       struct report_sel *sel)
{
	struct pass_ctx c = {.r = r, .sel = sel};
	sel->pairs = malloc(64 * sizeof(*sel->pairs));
	if (!sel->pairs)
		return -1;
	roce_analyzer_foreach(an, pass1_row, &c);
	if (c.oom)
		return -1;
	uint32_t *rank = malloc(((size_t)sel->n_pairs + 1) * sizeof(*rank));
	if (!rank)
		return -1;
	uint32_t rows = 0;
	qsort(sel->pairs, sel->n_pairs, sizeof(*sel->pairs), trouble_cmp);
	sel->listed = sel->n_pairs < REPORT_TABLE_MAX ? sel->n_pairs : REPORT_TABLE_MAX;
	for (uint32_t i = 0; i < sel->n_pairs; i++)
		rank[i] = UINT32_MAX;
	for (uint32_t i = 0; i < sel->listed; i++) {
		if (sel->pairs[i].pair < sel->n_pairs)
			rank[sel->pairs[i].pair] = i;
		sel->pairs[i].first_row = UINT32_MAX;
		rows += sel->pairs[i].rows;
	}
	sel->rows = malloc(((size_t)rows + 1) * sizeof(*sel->rows));
	FILE *m = open_memstream(&sel->streams_json, &sel->streams_len);
	if (!sel->rows || !m) {
		if (m)
			fclose(m);
		free(rank);
		return -1;
	}
	c.rank = rank;
	c.any = false;
	streams_print_json_some(an, cs, m, pass2_keep, &c);
	free(rank);
	return fclose(m) == 0 ? 0 : -1;
}

int report_finish(struct report *r, const struct summary *sum, const struct roce_analyzer *an,
		  const struct capstats *cs, char *err, size_t errlen)
{
	struct report_sel sel = {0};
	report_cong_finish(r, an);
	r->paths = roce_analyzer_path(an);
	int rc = -1;
	FILE *m = open_memstream(&sel.summary_json, &sel.summary_len);
	if (m) {
		summary_print_json(sum, cs, an, m);
		if (fclose(m) == 0 && select_rows(r, an, cs, &sel) == 0)
			rc = 0;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s: out of memory", r->cfg.path);
	else
		rc = report_page_write(r, &sel, err, errlen);
	free(sel.pairs);
	free(sel.rows);
	free(sel.streams_json);
	free(sel.summary_json);
	FILE *out = r->out;
	r->out = NULL;
	if (fclose(out) != 0 && rc == 0) {
		snprintf(err, errlen, "%s: %s", r->cfg.path, strerror(errno));
		rc = -1;
	}
	return rc;
}
