/* analyze.c: per-stream transport analysis (see analyze.h; IBTA Vol 1 §9.4 PSN rules, §9.7.5
 * ACK/NAK and go-back-N, §9.7.2 READ PSN accounting, §9.5 message segmentation).
 *
 * PSNs are 24-bit and compared modulo 2^24 with a window of 2^23 (psn_diff). Each stream keeps
 * the next new request PSN and a bitmap of the PSNs missing among the 128 below it. A request
 * ahead of next opens a gap (psn.gap); one behind it either fills a hole (a late packet:
 * psn.out_of_order, or the resend of a packet lost before the capture point; or, sent before the
 * stream's first frame seen, the stream's start) or repeats a PSN already seen (psn.retransmit).
 * A backward jump from the previous request is a restart: after a NAK or RNR NAK on the reverse
 * stream it must be at the NAK's PSN (else nak.restart_wrong); without one it is a timeout resend
 * (retransmit.timeout, aged from the PSN's original send, which a log of recent sends keeps;
 * retransmit.spurious when a second ACK of its PSN shows the original had arrived). A second
 * bitmap over the same window marks the PSNs that ended a request message, so that each RC ACK's
 * MSN can be checked against the previous ACK's (ack.msn_mismatch). Streams are paired from
 * RDMA-CM REQ/REP when the capture has them, else by PSN: a response is matched to the newest
 * request stream between the same two addresses (up to 16 back) whose sent PSNs cover it. */
#include "roce/analyze.h"


#include "roce/mad.h"
#include "stream_table.h"

/* ---- findings ---- */

struct frame_ctx {
	struct roce_analyzer *a;
	struct roce_pkt *p;
	struct roce_findings *out;
	uint32_t qpn;
	int64_t ts;
	uint64_t frame;           /* its number in the file */
	bool late;                /* its IPv4 id says it was sent before a frame already seen on its
				   * stream: reordered on the way */
	struct mirror_seen mirror; /* its mirror session and sequence number (mirror.h) */
};

/* The frame gets event e; out, when there is one and room in it, the details: a pointer to
 * them is returned (NULL otherwise) for a caller with more to say. */
static struct roce_finding *find(struct frame_ctx *f, enum roce_event e, bool has_psn, uint32_t expected,
				 uint32_t seen, int64_t delta)
{
	struct roce_finding *x = finding_add(f->a, f->p, f->out, e, f->qpn);
	if (x) {
		x->has_psn = has_psn;
		x->expected_psn = expected;
		x->seen_psn = seen;
		x->delta_ns = delta;
	}
	return x;
}

/* find(), referring to an earlier frame (0: none). */
static void find_ref(struct frame_ctx *f, enum roce_event e, uint32_t expected, uint32_t seen, int64_t delta,
		     uint64_t ref)
{
	struct roce_finding *x = find(f, e, true, expected, seen, delta);
	if (x)
		x->ref_frame = ref;
}

/* The frame of the latest sending of stream s's PSN psn before this frame: its latest resend the
 * path log holds, else first (its first sending). */
static uint64_t latest_sending(const struct roce_analyzer *a, const struct stream *s, uint32_t psn, uint64_t first,
			       uint64_t now)
{
	uint32_t low;
	return path_latest_resend(a->path, a->ids[s - a->s].id, psn, &low) ? frame_back(now, low) : first;
}

/* path.lost on a resend (resend) or a NAK of PSN psn whose original (frame first) a hop between two
 * capture points lost (path.h). */
static void path_lost_finding(struct frame_ctx *f, uint64_t first, uint32_t psn, bool resend)
{
	uint32_t from, to;
	if (!path_lost_hop(f->a->copies, f->a->path, (uint32_t)first, resend, &from, &to))
		return;
	struct roce_finding *x = find(f, ROCE_EV_PATH_LOST, true, psn, psn, -1);
	if (x) {
		x->ref_frame = first;
		x->path_from = (uint16_t)from;
		x->path_to = (uint16_t)to;
	}
}

/* ---- requests ---- */

static void check_pmtu(struct roce_analyzer *a, struct stream *s, struct frame_ctx *f)
{
	const struct roce_pkt *p = f->p;
	unsigned seg = p->op->seg;
	uint32_t pmtu = pmtu_of(a, s);

	if (seg == ROCE_SEG_FIRST || seg == ROCE_SEG_MIDDLE) {
		if (!pmtu) {
			uint32_t n = p->payload_len;
			if (n >= 256 && n <= 4096 && (n & (n - 1)) == 0 && !p->h.bth.padcnt)
				s->pmtu_log = (uint8_t)__builtin_ctz(n);
			return;
		}
		if (p->payload_len != pmtu || p->h.bth.padcnt)
			find(f, ROCE_EV_MSG_PMTU_VIOLATION, true, p->h.bth.psn, p->h.bth.psn, -1);
	} else if ((seg == ROCE_SEG_LAST || seg == ROCE_SEG_ONLY) && pmtu && p->payload_len > pmtu) {
		find(f, ROCE_EV_MSG_PMTU_VIOLATION, true, p->h.bth.psn, p->h.bth.psn, -1);
	}
}

/* A request's RETH DMA length; false when it has no RETH (a packet too short for its opcode's
 * extended headers has none: the decoder leaves h.reth as it was). */
static bool dma_length(const struct roce_pkt *p, uint32_t *len)
{
	*len = (p->h.hdrs & ROCE_HDR_RETH) ? p->h.reth.dmalen : 0;
	return (p->h.hdrs & ROCE_HDR_RETH) != 0;
}

/* A request message completed: counted, in all and by kind. */
static void count_message(struct req_block *rq, const struct roce_opcode_info *op)
{
	count40_add(&rq->messages, &rq->messages_hi);
	struct ack_block *k = req_ack(rq);
	switch (op->op) {
	case ROCE_OP_SEND: k->by_kind[MSG_SEND]++; break;
	case ROCE_OP_WRITE: k->by_kind[MSG_WRITE]++; break;
	case ROCE_OP_READ_REQ: k->by_kind[MSG_READ]++; break;
	case ROCE_OP_CMP_SWAP:
	case ROCE_OP_FETCH_ADD:
	case ROCE_OP_ATOMIC_WRITE: k->by_kind[MSG_ATOMIC]++; break;
	default: k->by_kind[MSG_OTHER]++; break;
	}
}

/* FIRST/MIDDLE/LAST/ONLY order and WRITE lengths, for a request that is not a resend. */
static void check_message(struct stream *s, struct req_block *rq, struct frame_ctx *f)
{
	const struct roce_pkt *p = f->p;
	const struct roce_opcode_info *op = p->op;
	uint32_t psn = p->h.bth.psn;
	bool known = !(s->flags & F_MSG_UNKNOWN);
	bool open = (s->flags & F_IN_MSG) && known;

	if (op->op != ROCE_OP_SEND && op->op != ROCE_OP_WRITE) {
		if (open)
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		s->flags &= (uint16_t)~(F_IN_MSG | F_MSG_UNKNOWN);
		count_message(rq, op);
		return;
	}
	switch (op->seg) {
	case ROCE_SEG_FIRST:
		if (open)
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		s->flags = (uint16_t)((s->flags | F_IN_MSG) & ~(F_MSG_UNKNOWN | F_LEN_UNKNOWN));
		rq->msg_op = op->op;
		rq->msg_bytes = p->payload_len;
		if (op->op == ROCE_OP_WRITE && !dma_length(p, &rq->msg_dmalen))
			s->flags |= F_LEN_UNKNOWN;
		break;
	case ROCE_SEG_MIDDLE:
	case ROCE_SEG_LAST:
		if (known && (!(s->flags & F_IN_MSG) || rq->msg_op != op->op))
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		else if (known)
			rq->msg_bytes += p->payload_len;
		if (op->seg == ROCE_SEG_LAST) {
			if (open && rq->msg_op == ROCE_OP_WRITE && !(s->flags & F_LEN_UNKNOWN) &&
			    rq->msg_bytes != rq->msg_dmalen)
				find(f, ROCE_EV_MSG_LENGTH_MISMATCH, true, psn, psn, -1);
			s->flags &= (uint16_t)~(F_IN_MSG | F_MSG_UNKNOWN);
			count_message(rq, op);
		}
		break;
	default: /* ONLY */
		if (open)
			find(f, ROCE_EV_MSG_OPCODE_SEQUENCE, true, psn, psn, -1);
		uint32_t dmalen;
		if (op->op == ROCE_OP_WRITE && dma_length(p, &dmalen) && p->payload_len != dmalen)
			find(f, ROCE_EV_MSG_LENGTH_MISMATCH, true, psn, psn, -1);
		s->flags &= (uint16_t)~(F_IN_MSG | F_MSG_UNKNOWN);
		count_message(rq, op);
		break;
	}
}

/* PSNs a request consumes: a READ of N bytes reserves ceil(N / PMTU) response PSNs (one for a
 * READ of no bytes, or with no RETH to say). */
static uint32_t psn_span(const struct roce_analyzer *a, struct stream *s, struct req_block *rq,
			 const struct roce_pkt *p)
{
	uint32_t len;
	if (p->op->op != ROCE_OP_READ_REQ || !dma_length(p, &len) || !len)
		return 1;
	uint32_t pmtu = pmtu_of(a, s);
	if (!pmtu) {
		s->flags |= F_READ_UNKNOWN;
		rq->msg_dmalen = len;
		return 1;
	}
	return (uint32_t)(((uint64_t)len + pmtu - 1) / pmtu);
}

/* Move the window of the last HOLE_BITS PSNs up by n: the PSN bitmaps that follow next_psn. */
static void shift_window(struct req_block *rq, uint32_t n)
{
	rq->holes = holes_shift(rq->holes, n);
	if (rq->ack_taken)
		rq->ack.msg_ends = holes_shift(rq->ack.msg_ends, n);
}

/* Whether a request ends its message: the responder's MSN counts it (IBTA Vol 1 §9.7.5.1.4). */
static bool ends_message(const struct roce_opcode_info *op)
{
	return (op->op != ROCE_OP_SEND && op->op != ROCE_OP_WRITE) || op->seg == ROCE_SEG_LAST ||
	       op->seg == ROCE_SEG_ONLY;
}

/* A request's first sending: on an RC stream, mark its last PSN if it ends a message (bit k of
 * the window, k = next_psn - 1 - that PSN) for the MSN check. */
static void mark_message_end(struct req_block *rq, const struct roce_pkt *p, uint32_t k)
{
	if (rq->transport != ROCE_TR_RC || !ends_message(p->op) || k >= HOLE_BITS)
		return;
	req_ack(rq)->msg_ends |= (holes_t)1 << k;
}

/* next_psn moves forward to next: psn.wrap when it crosses 0xFFFFFF -> 0 on the way. */
static void check_wrap(const struct req_block *rq, struct frame_ctx *f, uint32_t next)
{
	if (next < rq->next_psn)
		find(f, ROCE_EV_PSN_WRAP, true, rq->next_psn, f->p->h.bth.psn, -1);
}

static void advance(struct stream *s, struct req_block *rq, struct frame_ctx *f, uint32_t psn, uint32_t span,
		    uint32_t missing)
{
	check_wrap(rq, f, (psn + span) & PSN_MASK);  /* gaps included */
	shift_window(rq, missing + span);
	rq->holes |= holes_shift(low_bits(missing), span);
	rq->next_psn = (psn + span) & PSN_MASK;
	s->flags &= (uint16_t)~F_RESEND;
	mark_message_end(rq, f->p, 0);
}

static uint32_t us_since(int64_t then, int64_t now)
{
	uint64_t us = now > then ? (uint64_t)(now - then) / 1000 : 0;
	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* The requester answered a NAK or RNR NAK: time its recovery; an RNR retry must wait the timer.
 * l: the stream's loss block (F_RESTART has one). */
static void restarted(struct loss_block *l, struct frame_ctx *f)
{
	uint32_t us = us_since(l->nak_ts, f->ts);
	if (f->out) {
		f->out->recovery_ns = f->ts > l->nak_ts ? f->ts - l->nak_ts : 0;
		f->out->recovery_ref = frame_back(f->frame, l->nak_frame);
	}
	if (l->rnr_wait_us && us < l->rnr_wait_us)
		find_ref(f, ROCE_EV_RNR_RETRY_EARLY, l->restart_psn, f->p->h.bth.psn, f->ts - l->nak_ts,
			 frame_back(f->frame, l->nak_frame));
	if (us > l->recover_max_us)
		l->recover_max_us = us;
	l->recover_sum_us += us;
	l->recover_count++;
}

/* Log the first sending of a request (the send log, analyzer_state.h). */
static void log_send(struct roce_analyzer *a, const struct stream *s, struct req_block *rq, uint32_t psn, uint32_t span,
		     const struct frame_ctx *f)
{
	uint32_t seq = ++a->send_seq;
	if (!seq)
		seq = ++a->send_seq;  /* 0 means none */
	a->sends[seq % SEND_LOG_SIZE] =
		(struct send_rec){f->ts, seq, rq->last_send, (uint32_t)(s - a->s), psn, span, (uint32_t)f->frame};
	rq->last_send = seq;
}

/* When the request holding psn was first sent, with its frame number in *frame, or -1 (and 0)
 * when the log no longer holds it (or the capture never had it). */
static int64_t original_send(const struct roce_analyzer *a, const struct stream *s, const struct req_block *rq,
			     uint32_t psn, const struct frame_ctx *f, uint64_t *frame)
{
	*frame = 0;
	uint32_t seq = rq->last_send, self = (uint32_t)(s - a->s);
	/* a PSN is logged once, so each PSN between this one and next_psn (and a late one below it)
	 * is an entry to walk past: this far back the walk would give up anyway, so give up now (a
	 * capture resending one old PSN over and over costs a walk per frame otherwise) */
	int32_t back = psn_diff(rq->next_psn, psn);
	if (back <= 0 || back > (int32_t)SEND_LOG_WALK)
		return -1;
	for (uint32_t steps = 0; seq && steps < SEND_LOG_WALK; steps++) {
		const struct send_rec *r = &a->sends[seq % SEND_LOG_SIZE];
		if (r->seq != seq || r->stream != self)
			return -1;  /* overwritten by newer sends */
		int32_t off = psn_diff(psn, r->psn);
		if (off >= 0 && (uint32_t)off < r->span) {
			*frame = frame_back(f->frame, r->frame);
			return r->ts;
		}
		seq = r->prev;
	}
	return -1;
}

/* r's loss block, for a count (taken if need be; out of memory, a scratch block: uncounted). */
static struct loss_block *loss_count(struct roce_analyzer *a, struct stream *r)
{
	struct loss_block *l = loss_need(a, r);
	return l ? l : &a->loss_scratch;
}

/* The other direction of s's queue pair once the two are paired, if the table has it (peer_idx
 * keeps where it was last found). */
static struct stream *other_direction(struct roce_analyzer *a, struct stream *s)
{
	if (s->peer_qpn == PEER_NONE)
		return NULL;
	uint64_t key = stream_key(key_dst(s->key), key_src(s->key), (uint32_t)s->peer_qpn);
	struct stream *o = s->peer_idx < a->n_used && a->s[s->peer_idx].key == key ? &a->s[s->peer_idx]
										   : stream_find(a, key);
	if (o)
		s->peer_idx = (uint32_t)(o - a->s);
	return o;
}

/* ---- go-back-N episodes, retries, loss after the capture point ---- */

/* A PSN seen on the stream is named lost (by a PSN sequence NAK, or as the first PSN of a timeout
 * resend): lost after the capture point, counted once until an ACK covers it. Whether it was
 * counted now. */
static bool lost_after(struct loss_block *l, uint32_t psn)
{
	if ((l->lflags & L_LOST) && l->lost_psn == psn)
		return false;
	l->lost_after++;
	l->lost_psn = psn;
	l->lflags |= L_LOST;
	return true;
}

/* A timeout resend of psn (frame f; r: the stream of the requester's responses, if known). An ACK
 * covering psn seen before it shows the PSN arrived, but that ACK may have been lost after the
 * capture point (or the requester resent regardless): it is not counted lost, and the finding x
 * says why. Else psn is counted lost after the capture point, and a resend that counted it, the
 * only restart since, waits for a second ACK of the PSN that first covers it (on_response). */
static void timeout_lost(struct loss_block *l, const struct stream *r, struct frame_ctx *f, struct roce_finding *x)
{
	uint32_t psn = f->p->h.bth.psn;
	l->lflags &= (uint8_t)~L_SUSPECT;
	if (r && (r->flags & F_ACK_SEEN) && psn_diff(r->acked_psn, psn) >= 0) {
		if (x)
			x->acked_before = true;
		return;
	}
	if (lost_after(l, psn)) {  /* not counted by an earlier restart, whose copies may make a second ACK */
		l->lflags |= L_SUSPECT;
		l->resend_frame = (uint32_t)f->frame;
	}
}

/* An ACK at psn of the requests of q (l: q's loss block), dup when the newest ACK had its PSN
 * already, prev that newest ACK's PSN (F_ACK_SEEN: covered). A timeout resend waiting for its
 * verdict (L_SUSPECT) is spurious when this is a second ACK of the PSN that first covered it: the
 * responder answers a duplicate with an ACK of its newest PSN, and it had this PSN before the
 * resend came, so the original had arrived. The lost after it counted is taken back. A newer ACK
 * ends the wait: a duplicate of another PSN may have made its second. */
static void resend_verdict(struct loss_block *l, struct frame_ctx *f, uint32_t psn, bool dup, bool covered)
{
	if (!(l->lflags & L_SUSPECT) || psn_diff(psn, l->lost_psn) < 0)
		return;
	if (!dup) {
		if (covered)
			l->lflags &= (uint8_t)~L_SUSPECT;
		return;
	}
	l->lflags &= (uint8_t)~L_SUSPECT;
	if (l->lost_after)
		l->lost_after--;
	find_ref(f, ROCE_EV_RETRANSMIT_SPURIOUS, l->lost_psn, l->lost_psn, -1, frame_back(f->frame, l->resend_frame));
}

/* A restart of the send queue at the frame's PSN (a timeout or NAK resend, not a late packet).
 * The IB retry count is 3 bits, so the 8th restart of one stuck PSN with no ACK covering it in
 * between is one more than any requester may make (an RNR retry count of 7 means unlimited; the
 * retry count does not): one retransmit.retry_exceeded for the stuck PSN, on that restart. The
 * requester restarts at the oldest PSN not acknowledged, so a restart at a later PSN of the stuck
 * PSN's run (no ACK covered the stuck PSN, so none covered it either) means the resend of the
 * stuck PSN went missing before the capture point: a restart inferred. A restart before the stuck
 * PSN makes it the new stuck PSN. */
static void count_retry(struct loss_block *l, struct frame_ctx *f)
{
	uint32_t psn = f->p->h.bth.psn;
	if (!(l->retry_seen || l->retry_inferred) || psn_diff(psn, l->retry_psn) < 0) {
		l->retry_psn = psn;
		l->retry_seen = l->retry_inferred = 0;
		l->lflags &= (uint8_t)~L_RETRY_REPORTED;
	}
	if (psn == l->retry_psn) {
		if (l->retry_seen < UINT8_MAX)
			l->retry_seen++;
	} else if (l->retry_inferred < UINT8_MAX) {
		l->retry_inferred++;
	}
	if ((l->lflags & L_RETRY_REPORTED) || l->retry_seen + l->retry_inferred < 8)
		return;
	l->lflags |= L_RETRY_REPORTED;
	struct roce_finding *x = find(f, ROCE_EV_RETRANSMIT_RETRY_EXCEEDED, true, l->retry_psn, l->retry_psn, -1);
	if (x) {
		x->resends_seen = (uint16_t)l->retry_seen;
		x->resends_inferred = (uint16_t)l->retry_inferred;
	}
}

/* The responder acknowledged the PSNs up to psn (an ACK, or a NAK: those before its PSN): the
 * stuck PSN, if among them, is stuck no more. */
static void retry_answered(struct loss_block *l, uint32_t psn)
{
	if ((l->retry_seen || l->retry_inferred) && psn_diff(psn, l->retry_psn) >= 0)
		l->retry_seen = l->retry_inferred = 0;
}

/* An ACK at psn from the responder of q: restarts at PSNs it covers were answered, and the PSN
 * named lost was delivered in the end. */
static void ack_covers(struct roce_analyzer *a, struct stream *q, uint32_t psn)
{
	struct loss_block *l = loss_of(a, q);
	if (!l)
		return;
	retry_answered(l, psn);
	if ((l->lflags & L_LOST) && psn_diff(psn, l->lost_psn) >= 0)
		l->lflags &= (uint8_t)~L_LOST;
	if ((q->flags & F_RESTART) && psn_diff(psn, l->restart_psn) >= 0) {
		q->flags &= (uint16_t)~F_RESTART;  /* the NAK'd PSN arrived: resent, if not seen here */
		l->lflags &= (uint8_t)~L_EPISODE;
	}
}

/* The go-back-N episode after a PSN sequence NAK (or RNR NAK) at p runs until the requester
 * resends p (right), sends a PSN it never sent before or an ACK covers p. On a mirror port p's
 * resend may be lost again before the capture point, or reordered behind p+1 and p+2: the
 * restart is wrong only when p is never resent in the episode, or begins before p (the NAK
 * acknowledged everything before it; only a READ whose responses did not all arrive is
 * re-asked from further back). */
static void episode_close(struct stream *s, struct loss_block *l)
{
	s->flags &= (uint16_t)~F_RESTART;
	l->lflags &= (uint8_t)~(L_EPISODE | L_UNANSWERED);
}

static void episode_wrong(struct stream *s, struct loss_block *l, struct frame_ctx *f, uint32_t seen)
{
	find_ref(f, ROCE_EV_NAK_RESTART_WRONG, l->restart_psn, seen, f->ts - l->nak_ts,
		 frame_back(f->frame, l->nak_frame));
	episode_close(s, l);
}

/* A request never sent before while the episode is open (l: F_RESTART has one). */
static void episode_new_psn(struct stream *s, struct loss_block *l, struct frame_ctx *f)
{
	uint32_t psn = f->p->h.bth.psn;
	if (psn == l->restart_psn || psn == l->restart_lo) {  /* the NAK named the next PSN: nothing to resend */
		restarted(l, f);
		episode_close(s, l);
	} else if (l->lflags & L_EPISODE) {  /* resent from past p, and on to new PSNs: p skipped */
		if (f->p->net.kind == ROCE_NET_IPV4 && f->p->net.ip_id && (s->flags & F_IPID)) {
			l->wrong_id = f->p->net.ip_id;  /* unless a resend of p sent before it comes late */
			l->lflags |= L_PENDING;
			episode_close(s, l);
		} else {
			episode_wrong(s, l, f, l->episode_psn);
		}
	}
	/* before any resend: sent before the requester took the NAK in, the episode goes on */
}

/* L_PENDING: a resend of the NAK'd PSNs sent before the episode's end (a late packet) shows the
 * restart was right; a frame sent PENDING_IDS ids after it, that it was wrong. */
static void episode_pending(struct stream *s, struct loss_block *l, struct frame_ctx *f, uint32_t span)
{
	uint32_t psn = f->p->h.bth.psn;
	int32_t off = psn_diff(psn, l->restart_psn);
	if (f->late && ((off <= 0 && (uint32_t)-off < span) || (off < 0 && psn_diff(psn, l->restart_lo) >= 0))) {
		l->lflags &= (uint8_t)~L_PENDING;
		return;
	}
	if (f->p->net.kind == ROCE_NET_IPV4 && (int16_t)(uint16_t)(f->p->net.ip_id - l->wrong_id) >= PENDING_IDS) {
		l->lflags &= (uint8_t)~L_PENDING;
		find_ref(f, ROCE_EV_NAK_RESTART_WRONG, l->restart_psn, l->episode_psn, f->ts - l->nak_ts,
			 frame_back(f->frame, l->nak_frame));
	}
	(void)s;
}

/* A resend (not a late packet) while the episode is open. */
static void episode_resend(struct stream *s, struct loss_block *l, struct frame_ctx *f, uint32_t span,
			   bool restart_point)
{
	uint32_t psn = f->p->h.bth.psn;
	int32_t off = psn_diff(psn, l->restart_psn);
	if ((off <= 0 && (uint32_t)-off < span) ||  /* p itself, or a READ whose PSNs hold p */
	    (off < 0 && psn_diff(psn, l->restart_lo) >= 0)) {  /* the PSN of an earlier NAK in a row */
		restarted(l, f);
		episode_close(s, l);
		s->flags |= F_RESEND;
		return;
	}
	if (!restart_point)
		return;
	if (off < 0 && f->p->op->op != ROCE_OP_READ_REQ) {
		restarted(l, f);
		episode_wrong(s, l, f, psn);
		s->flags |= F_RESEND;
		return;
	}
	if (!(l->lflags & L_EPISODE)) {  /* begun past p (p's resend may not have reached the capture point) */
		l->episode_psn = psn;
		l->lflags = (uint8_t)((l->lflags | L_EPISODE) & ~L_UNANSWERED);
	}
	s->flags |= F_RESEND;
}

/* A request first seen after the stream's first one was sent before it, its IPv4 id says (where
 * the stream's ids count; a step back of 1024 or more is no such counter): the capture began with
 * a later packet of the stream, reordered ahead of the ones before it; those are the stream's
 * start, not late packets. */
static bool sent_before_first(const struct stream *s, const struct req_block *rq, const struct frame_ctx *f)
{
	const struct roce_net *n = &f->p->net;
	if (!(s->flags & F_IPID) || n->kind != ROCE_NET_IPV4 || !n->ip_id || !rq->first_id)
		return false;
	int16_t back = (int16_t)(uint16_t)(n->ip_id - rq->first_id);
	return back < 0 && back > -1024;
}

/* The requester's turn: a response came, and this is its next new request. */
static void turn_sample(struct stream *s, struct req_block *rq, struct frame_ctx *f)
{
	struct ack_block *k = &rq->ack;  /* F_TURN_PENDING: in use */
	s->flags &= (uint16_t)~F_TURN_PENDING;
	if (f->ts < k->turn_ts)
		return;
	uint32_t us = us_since(k->turn_ts, f->ts);
	k->turn_sum_us += us;
	k->turn_count++;
	if (us > k->turn_max_us)
		k->turn_max_us = us;
}

static struct rtt_ring *ring_of(const struct roce_analyzer *a, const struct ack_block *r)
{
	return block_at(&a->rtt_pool, (uint32_t)r->ts);
}

/* The requests waiting in the ack block move to a ring of their own (struct rtt_ring): false when
 * out of memory. */
static bool ring_take(struct roce_analyzer *a, struct ack_block *r, bool waiting)
{
	uint32_t i = block_take(&a->rtt_pool);
	if (!i)
		return false;
	struct rtt_ring *g = block_at(&a->rtt_pool, i);
	if (waiting) {
		g->psn[0] = r->psn;
		g->ts[0] = r->ts;
		g->n = 1;
	}
	r->psn = RTT_IN_RING;
	r->ts = i;
	return true;
}

/* A request sent at ts with PSN psn waits for its response: in the ack block if no other does,
 * else in the ring; not timed (counted) when RTT_OUTSTANDING wait already. */
static void rtt_wait(struct roce_analyzer *a, struct stream *s, struct ack_block *r, uint32_t psn, int64_t ts)
{
	if (r->psn != RTT_IN_RING) {
		if (!(s->flags & F_RTT_PENDING)) {
			s->flags |= F_RTT_PENDING;
			r->psn = psn;
			r->ts = ts;
			return;
		}
		if (!ring_take(a, r, true))
			return;  /* out of memory: one at a time */
	}
	struct rtt_ring *g = ring_of(a, r);
	if (g->n == RTT_OUTSTANDING) {
		g->untimed++;
		return;
	}
	uint32_t k = (g->head + g->n++) % RTT_OUTSTANDING;
	g->psn[k] = psn;
	g->ts[k] = ts;
	s->flags |= F_RTT_PENDING;
}

/* Karn's rule: a request resent (PSNs psn .. psn + span - 1) is not timed, its response could
 * answer either sending. */
static void rtt_resent(const struct roce_analyzer *a, struct stream *s, uint32_t psn, uint32_t span)
{
	if (!(s->flags & F_RTT_PENDING))
		return;
	struct ack_block *r = ack_of(a, s);  /* F_RTT_PENDING has one */
	uint32_t end = (psn + (span ? span : 1)) & PSN_MASK;
	if (r->psn != RTT_IN_RING) {
		if (in_range(r->psn, psn, end))
			s->flags &= (uint16_t)~F_RTT_PENDING;
		return;
	}
	struct rtt_ring *g = ring_of(a, r);
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t k = (g->head + i) % RTT_OUTSTANDING;
		if (in_range(g->psn[k], psn, end))
			g->ts[k] = RTT_DROPPED;
	}
}

/* A request sent in its order (a new one, or one of the stream's start): it is timed if it asks
 * for a response (rtt_wait), and ends the requester's turn. */
static void time_sending(struct roce_analyzer *a, struct stream *s, struct req_block *rq, struct frame_ctx *f)
{
	const struct roce_pkt *p = f->p;
	if (rq->transport != ROCE_TR_UC &&
	    (p->h.bth.ackreq || p->op->op == ROCE_OP_READ_REQ || p->op->op == ROCE_OP_CMP_SWAP ||
	     p->op->op == ROCE_OP_FETCH_ADD))
		rtt_wait(a, s, req_ack(rq), p->h.bth.psn, f->ts);
	if (s->flags & F_TURN_PENDING)
		turn_sample(s, rq, f);
}

static void on_request(struct roce_analyzer *a, struct stream *s, struct req_block *rq, struct frame_ctx *f)
{
	const struct roce_pkt *p = f->p;
	uint32_t psn = p->h.bth.psn;

	count40_add(&rq->requests, &rq->requests_hi);
	if (!(s->flags & F_REQ_SEEN)) {
		/* the capture may start inside a message: no sequence checks until FIRST/ONLY */
		s->flags |= F_REQ_SEEN | F_MSG_UNKNOWN;
		rq->transport = p->op->transport;
		rq->pkey = p->h.bth.pkey;
		rq->first_psn = rq->next_psn = rq->prev_end = psn;
		rq->holes = ALL_HOLES;  /* nothing below the first PSN was seen */
		rq->first_id = p->net.kind == ROCE_NET_IPV4 ? p->net.ip_id : 0;
	} else {
		if (p->op->transport != rq->transport)
			find(f, ROCE_EV_MSG_TRANSPORT_MIXED, false, 0, 0, -1);
		if (p->h.bth.pkey != rq->pkey) {
			find(f, ROCE_EV_PKEY_INCONSISTENT, false, 0, 0, -1);
			rq->pkey = p->h.bth.pkey;
		}
	}
	if (p->op->transport == ROCE_TR_UD) {
		count_message(rq, p->op);  /* UD: every SEND is a message; counters only, no PSN rules */
		return;
	}

	int32_t d = psn_diff(psn, rq->next_psn);
	/* the previous READ reserved an unknown number of PSNs (no PMTU yet): up to one per 256
	 * bytes, the smallest path MTU, so its successor may come up to ceil(N/256) - 1 PSNs later */
	bool read_span = (s->flags & F_READ_UNKNOWN) && d > 0 &&
			 (uint64_t)d <= ((uint64_t)rq->msg_dmalen + 255) / 256 - 1;
	s->flags &= (uint16_t)~F_READ_UNKNOWN;
	uint32_t span = psn_span(a, s, rq, p);
	/* a jump back from the previous request restarts the send queue (forward jumps are packets
	 * lost before the capture point); a request sent before the previous one (its IPv4 id says
	 * so) and delivered after it is neither */
	bool restart_point = !f->late && psn_diff(psn, rq->prev_end) < 0;
	if (!f->late)
		rq->prev_end = (psn + span) & PSN_MASK;

	struct loss_block *l = loss_of(a, s);  /* moves only when a loss block is taken */
	if (l && (l->lflags & L_PENDING))
		episode_pending(s, l, f, span);
	if (d >= 0) {
		if ((s->flags & F_RESTART) && l)  /* F_RESTART comes with a block (arm_restart) */
			episode_new_psn(s, l, f);
		if (read_span) {
			check_wrap(rq, f, psn);
			shift_window(rq, (uint32_t)d);  /* sent: the READ consumed them */
			rq->next_psn = psn;
			d = 0;
		}
		if (d > 0) {
			struct roce_finding *x = find(f, ROCE_EV_PSN_GAP, true, rq->next_psn, psn, -1);
			bool at_mirror = mirror_claim(&a->mirror, &f->mirror, a->ids[s - a->s].id, (uint32_t)d);
			if (x)
				x->at_mirror = at_mirror;
			if ((l = loss_need(a, s))) {
				l->gaps++;
				l->missing += (uint32_t)d;
			}
			s->flags |= F_MSG_UNKNOWN;
		}
		check_pmtu(a, s, f);
		check_message(s, rq, f);
		advance(s, rq, f, psn, span, (uint32_t)d);
		log_send(a, s, rq, psn, span, f);
		time_sending(a, s, rq, f);
		return;
	}

	/* behind next_psn: a late packet, a resend, or the stream's start */
	uint32_t k = (uint32_t)(-d) - 1;  /* bit of this PSN in holes */
	bool hole = k < HOLE_BITS && ((rq->holes >> k) & 1);
	bool start = hole && sent_before_first(s, rq, f);
	if (start)
		time_sending(a, s, rq, f);
	else if (!hole)
		rtt_resent(a, s, psn, span);
	/* its PSNs (a READ's span) are taken, first sending or not: bits k down to k + 1 - span
	 * (a span reaching past next_psn is taken up below) */
	uint32_t lo = span <= k + 1 ? k + 1 - span : 0;
	rq->holes &= ~holes_shift(low_bits(k + 1 - lo), lo);
	if (hole) {  /* its first sending, late */
		log_send(a, s, rq, psn, span, f);
		if (span <= k + 1)
			mark_message_end(rq, p, k + 1 - span);
		if (ends_message(p->op))
			count_message(rq, p->op);
	}
	if (psn_diff(psn, rq->first_psn) < 0)
		rq->first_psn = psn;
	/* a resend or a late request: loss state from here on (no block: no F_RESTART, and the
	 * checks below still run, uncounted); the stream's start is no anomaly (F_RESTART: a block) */
	l = start ? loss_of(a, s) : loss_count(a, s);
	uint64_t first = 0;  /* a resend's first sending, once looked up */
	/* a request seen before the NAK (a capture of several points whose frames come in batches,
	 * not in time order: one point's later frames first) was sent before it: no resend it asked for */
	bool before_nak = (s->flags & F_RESTART) && f->ts < l->nak_ts;
	if ((s->flags & F_RESTART) && !before_nak) {  /* a late packet may carry p: not a restart, but p is resent */
		if (restart_point)
			l->lflags &= (uint8_t)~L_SUSPECT;  /* a second restart: its copies may have made it */
		episode_resend(s, l, f, span, restart_point);
	} else if (restart_point && !hole && rq->transport != ROCE_TR_UC) {  /* UC: no ACK timer */
		int64_t sent = original_send(a, s, rq, psn, f, &first);
		struct roce_finding *x = find(f, ROCE_EV_RETRANSMIT_TIMEOUT, true, rq->next_psn, psn,
					      sent < 0 ? -1 : f->ts - sent);
		if (x)
			x->ref_frame = first;
		l->timeouts++;
		if (sent >= 0) {
			uint32_t us = us_since(sent, f->ts);
			l->timeout_aged++;
			l->timeout_sum_us += us;
			if (us > l->timeout_max_us)
				l->timeout_max_us = us;
		}
		timeout_lost(l, other_direction(a, s), f, x);  /* it, or the ACK that would have covered it */
		s->flags |= F_RESEND;
	}
	if (restart_point && !hole && rq->transport == ROCE_TR_RC)
		count_retry(l, f);
	if (!hole) {
		if (!first && (f->out || a->path))
			original_send(a, s, rq, psn, f, &first);
		find_ref(f, ROCE_EV_PSN_RETRANSMIT, rq->next_psn, psn, -1, first);
		if (a->path && first)
			path_lost_finding(f, latest_sending(a, s, psn, first, f->frame), psn, true);
		if (a->path)
			path_note_resend(a->path, a->ids[s - a->s].id, psn, f->frame);
		l->retransmits++;
	} else if (!(s->flags & F_RESEND) && !start) {
		find(f, ROCE_EV_PSN_OUT_OF_ORDER, true, rq->next_psn, psn, -1);
		l->ooo++;
		if (f->mirror.late)  /* came late past the mirror too: not lost at it after all */
			mirror_unclaim(&a->mirror, &f->mirror, a->ids[s - a->s].id);
	}
	uint32_t end = (psn + span) & PSN_MASK;
	int32_t over = psn_diff(end, rq->next_psn);
	if (over > 0) {  /* a resent READ reserving more PSNs than first counted (PMTU learned since) */
		check_wrap(rq, f, end);
		shift_window(rq, (uint32_t)over);
		rq->next_psn = end;
	}
	if (over >= 0)
		s->flags &= (uint16_t)~F_RESEND;  /* caught up: the next packet is new */
}

/* ---- responses ---- */

/* An ACK older than one already seen (the responder's ACKs go up): sent before that one, and
 * reordered on the way, when its IPv4 id is older; without ids, when its MSN is not newer than the
 * newest ACK's (a responder going back would not count its completed messages back with it). */
static bool ack_reordered(const struct roce_analyzer *a, const struct stream *r, const struct stream *q,
			  const struct frame_ctx *f)
{
	if ((r->flags & F_IPID) && f->p->net.kind == ROCE_NET_IPV4 && f->p->net.ip_id)
		return f->late;
	const struct ack_block *k = q ? ack_of(a, q) : NULL;
	return k && (q->flags & F_MSN_KNOWN) && psn_diff(f->p->h.aeth.msn, k->msn) <= 0;
}

/* Streams i and j are the two directions of one queue pair: they share the older one's id as
 * their pair id. */
static void share_pair_id(struct roce_analyzer *a, uint32_t i, uint32_t j)
{
	uint32_t id = a->ids[i].id < a->ids[j].id ? a->ids[i].id : a->ids[j].id;
	a->ids[i].pair = a->ids[j].pair = id;
}

/* The request stream these responses answer: (dst → src, some QPN). */
static struct stream *peer_of(struct roce_analyzer *a, struct stream *r, uint32_t src, uint32_t dst, uint32_t psn)
{
	struct stream *q = other_direction(a, r);
	if (q && (q->flags & F_REQ_SEEN))
		return q;
	/* the request streams from dst to src, newest first, until one has sent this PSN */
	uint32_t i;
	q = NULL;
	if (!pair_head(a, pair_key(dst, src), &i))
		return NULL;
	for (unsigned hops = 0; hops < 16 && i < a->n_used; hops++) {
		struct stream *c = &a->s[i];
		const struct req_block *cq = req_of(a, c);
		if (key_src(c->key) != dst || key_dst(c->key) != src || !(c->flags & F_REQ_SEEN))
			return NULL;  /* evicted and reused: the chain ends here (F_REQ_SEEN: cq) */
		if (in_range(psn, cq->first_psn, (cq->next_psn + 1) & PSN_MASK)) {
			q = c;
			break;
		}
		i = cq->pair_next;
	}
	if (!q)
		return NULL;
	r->peer_qpn = key_qpn(q->key);
	q->peer_qpn = key_qpn(r->key);
	r->peer_idx = (uint32_t)(q - a->s);  /* found where they are: no lookup by key next time */
	q->peer_idx = (uint32_t)(r - a->s);
	r->flags |= F_PAIRED_PSN;
	q->flags |= F_PAIRED_PSN;
	share_pair_id(a, (uint32_t)(r - a->s), (uint32_t)(q - a->s));
	return q;
}

/* One response time: the request sent at sent, answered by frame f. It goes to the frame's
 * findings (the last request the frame answers: the newest) and to r's statistics. */
static void rtt_sample(struct roce_analyzer *a, struct ack_block *r, int64_t sent, struct frame_ctx *f)
{
	if (f->out)
		f->out->response_ns = f->ts - sent;
	uint64_t us = (uint64_t)(f->ts - sent) / 1000;
	uint32_t v = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	if (!r->count || v < r->min_us)
		r->min_us = v;
	if (v > r->max_us)
		r->max_us = v;
	r->sum_us += v;
	r->count++;
	unsigned b = 0;
	if (v >= 1) {
		unsigned k = 31u - (unsigned)__builtin_clz(v);
		b = 2 * k + ((uint64_t)v * v >= UINT64_C(2) << (2 * k));  /* above 2^k·√2? */
		if (b >= RTT_BUCKETS)
			b = RTT_BUCKETS - 1;
	}
	rtt_hist_add(a, &r->hist, b);
}

/* A response at psn (an ACK, coalesced or not, an atomic ACK, a READ's first response packet)
 * answers every request of q's waiting for one whose PSN is psn or before: each is timed, but
 * those resent meanwhile and those sent after the response (clocks of two capture points). */
static void rtt_answered(struct roce_analyzer *a, struct stream *q, uint32_t psn, struct frame_ctx *f)
{
	if (!q || !(q->flags & F_RTT_PENDING))
		return;
	struct ack_block *r = ack_of(a, q);  /* F_RTT_PENDING has one */
	if (r->psn != RTT_IN_RING) {
		if (psn_diff(psn, r->psn) < 0 || f->ts < r->ts)
			return;
		q->flags &= (uint16_t)~F_RTT_PENDING;
		rtt_sample(a, r, r->ts, f);
		return;
	}
	struct rtt_ring *g = ring_of(a, r);
	while (g->n && psn_diff(psn, g->psn[g->head]) >= 0) {
		int64_t sent = g->ts[g->head];
		g->head = (g->head + 1) % RTT_OUTSTANDING;
		g->n--;
		if (sent != RTT_DROPPED && f->ts >= sent)
			rtt_sample(a, r, sent, f);
	}
	if (!g->n)
		q->flags &= (uint16_t)~F_RTT_PENDING;
}

/* An ACK's MSN (IBTA Vol 1 §9.7.5.1.4: the responder counts the request messages it completed) is
 * the previous ACK's plus the messages whose last PSN lies between the two ACKs' PSNs: checked
 * when that range lies in q's window and none of its PSNs is missing from the capture (a lost
 * request may have ended a message). */
static void check_msn(struct stream *q, struct req_block *qb, struct frame_ctx *f, uint32_t psn, uint32_t msn)
{
	if (!qb->ack_taken)
		return;
	struct ack_block *k = &qb->ack;
	if (q->flags & F_MSN_KNOWN) {
		int32_t adv = psn_diff(psn, k->msn_psn), back = psn_diff(qb->next_psn, k->msn_psn);
		if (adv >= 0 && back >= 1 && back <= (int32_t)HOLE_BITS + 1) {
			uint32_t hi = (uint32_t)(back - 1 - adv), lo = (uint32_t)(back - 1);  /* bits of psn, msn_psn */
			holes_t range = low_bits(lo) & ~low_bits(hi);  /* PSNs msn_psn+1 .. psn */
			if (!(qb->holes & range)) {
				unsigned n = 0;  /* usually a bit or two: cheaper than libgcc's popcount */
				for (holes_t x = k->msg_ends & range; x; x &= x - 1)
					n++;
				uint32_t want = (k->msn + n) & PSN_MASK;
				struct roce_finding *x;
				if (msn != want && (x = find(f, ROCE_EV_ACK_MSN_MISMATCH, true, want, msn, -1)))
					x->msn = true;
			}
		}
	}
	k->msn_psn = psn;
	k->msn = msn;
	q->flags |= F_MSN_KNOWN;
}

/* Whether q's requests held psn already: below next_psn and not missing. */
static bool seen_before(const struct req_block *qb, uint32_t psn)
{
	int32_t back = psn_diff(qb->next_psn, psn);
	if (back <= 0)
		return false;
	uint32_t k = (uint32_t)back - 1;
	return k >= HOLE_BITS ? psn_diff(psn, qb->first_psn) >= 0 : !((qb->holes >> k) & 1);
}

static void arm_restart(struct roce_analyzer *a, struct stream *q, uint32_t psn, const struct frame_ctx *f,
			uint32_t rnr_wait_us)
{
	struct loss_block *l = q ? loss_need(a, q) : NULL;
	if (!l)
		return;
	l->rnr_wait_us = rnr_wait_us;
	retry_answered(l, (psn - 1) & PSN_MASK);  /* a NAK acknowledges the PSNs before its own */
	/* a new NAK: the old episode's verdict goes with it, and a timeout resend's waits no more
	 * (the responder saw a gap: the duplicate ACKs that follow may answer the restart) */
	l->lflags &= (uint8_t)~(L_PENDING | L_SUSPECT);
	if (!(l->lflags & L_UNANSWERED) || psn_diff(psn, l->restart_lo) < 0)
		l->restart_lo = psn;  /* the first NAK not answered, or one further back */
	l->lflags = (uint8_t)((l->lflags & ~L_EPISODE) | L_UNANSWERED);
	q->flags = (uint16_t)((q->flags | F_RESTART) & ~F_RESEND);
	l->restart_psn = psn;
	l->nak_ts = f->ts;
	l->nak_frame = (uint32_t)f->frame;
}

/* The PSN after the last one q's READs reserved for their responses: next_psn, or, while the
 * last READ's span is unknown (no PMTU yet), up to one PSN per 256 bytes of it. */
static uint32_t read_resp_limit(const struct stream *q, const struct req_block *qb)
{
	if (!(q->flags & F_READ_UNKNOWN))
		return qb->next_psn;
	return (qb->next_psn + (qb->msg_dmalen + 255) / 256 - 1) & PSN_MASK;
}

static void on_response(struct roce_analyzer *a, struct stream *r, struct frame_ctx *f, uint32_t src, uint32_t dst)
{
	const struct roce_pkt *p = f->p;
	uint32_t psn = p->h.bth.psn;
	struct stream *q = peer_of(a, r, src, dst, psn);
	struct req_block *qb = q ? req_of(a, q) : NULL;  /* peer_of: a stream that sent requests */

	struct resp_block *w;
	if (p->op->op == ROCE_OP_READ_RESP && q) {
		uint32_t limit = read_resp_limit(q, qb);
		if (psn_diff(psn, limit) >= 0)
			find(f, ROCE_EV_ACK_UNSOLICITED, true, (limit - 1) & PSN_MASK, psn, -1);
	}
	if (p->op->op == ROCE_OP_READ_RESP && (w = resp_need(a, r))) {
		if (!(r->flags & F_RESP_SEEN)) {
			r->flags |= F_RESP_SEEN;
			w->next = psn;
			w->holes = ALL_HOLES;
		}
		int32_t d = psn_diff(psn, w->next);
		if (d >= 0) {  /* new: PSNs skipped on the way are holes */
			w->holes = holes_shift(w->holes, (uint32_t)d + 1) | holes_shift(low_bits((uint32_t)d), 1);
			w->next = (psn + 1) & PSN_MASK;
		} else {
			uint32_t k = (uint32_t)(-d) - 1;
			if (k < HOLE_BITS && ((w->holes >> k) & 1)) {
				w->holes &= ~((holes_t)1 << k);  /* first sighting of a late PSN */
			} else {
				find(f, ROCE_EV_PSN_RETRANSMIT, true, w->next, psn, -1);
				loss_count(a, r)->retransmits++;
			}
		}
		check_pmtu(a, r, f);
		if (q && !q->pmtu_log)
			q->pmtu_log = r->pmtu_log;  /* the READs' PSN spans need the path MTU */
		if (p->op->seg == ROCE_SEG_FIRST || p->op->seg == ROCE_SEG_ONLY)
			rtt_answered(a, q, psn, f);
		if (q && !f->late)
			ack_covers(a, q, psn);
	}
	if (q && !f->late) {
		req_ack(qb)->turn_ts = f->ts;  /* the requester's turn: until its next new request */
		q->flags |= F_TURN_PENDING;
	}
	if (!(p->h.hdrs & ROCE_HDR_AETH))
		return;
	uint8_t syn = p->h.aeth.syndrome;
	unsigned code = roce_aeth_value(syn);
	switch (roce_aeth_kind(syn)) {
	case ROCE_AETH_ACK:
		if (p->op->op == ROCE_OP_READ_RESP)
			break;  /* READ responses' PSNs are checked above; their AETH MSN is not an ACK's */
		if (q && psn_diff(psn, qb->next_psn) >= 0) {  /* acknowledges what was never sent */
			find(f, ROCE_EV_ACK_UNSOLICITED, true, (qb->next_psn - 1) & PSN_MASK, psn, -1);
			break;
		}
		if ((r->flags & F_ACK_SEEN) && psn_diff(psn, r->acked_psn) < 0) {
			find(f, ack_reordered(a, r, q, f) ? ROCE_EV_ACK_REORDERED : ROCE_EV_ACK_PSN_BACKWARDS, true,
			     r->acked_psn, psn, -1);
		} else {
			uint32_t prev = r->acked_psn;
			bool seen = r->flags & F_ACK_SEEN;
			r->acked_psn = psn;
			if (q && qb->transport == ROCE_TR_RC)
				check_msn(q, qb, f, psn, p->h.aeth.msn);
			struct loss_block *l = q ? loss_of(a, q) : NULL;
			if (l)
				resend_verdict(l, f, psn, seen && prev == psn, seen && psn_diff(prev, l->lost_psn) >= 0);
			if (q)
				ack_covers(a, q, psn);
		}
		r->flags |= F_ACK_SEEN;
		rtt_answered(a, q, psn, f);
		break;
	case ROCE_AETH_RNR_NAK:
		find(f, ROCE_EV_NAK_RNR, true, psn, psn, -1);
		loss_count(a, q ? q : r)->rnr++;  /* on the row of the PSNs it reports */
		arm_restart(a, q, psn, f, roce_rnr_timer_usec(code));
		break;
	case ROCE_AETH_NAK: {
		static const enum roce_event by_code[5] = {
			ROCE_EV_NAK_PSN_SEQ_ERR, ROCE_EV_NAK_INVALID_REQUEST, ROCE_EV_NAK_REMOTE_ACCESS,
			ROCE_EV_NAK_REMOTE_OP, ROCE_EV_NAK_INVALID_RD,
		};
		if (code > 4)
			break;  /* reserved: the decoder reported it */
		find(f, by_code[code], true, psn, psn, -1);
		loss_count(a, q ? q : r)->naks[code]++;  /* on the row of the PSNs it reports */
		struct loss_block *l = loss_need(a, r);
		if (l) {
			bool pending = !q || (q->flags & F_RESTART);
			if ((r->flags & F_NAK_SEEN) && l->nak_psn == psn && l->nak_code == code && pending)
				find(f, ROCE_EV_NAK_DUPLICATE, true, psn, psn, -1);
			r->flags |= F_NAK_SEEN;
			l->nak_psn = psn;
			l->nak_code = (uint8_t)code;
		}
		if (code == ROCE_NAK_PSN_SEQ_ERR) {
			arm_restart(a, q, psn, f, 0);
			bool seen = q && seen_before(qb, psn);
			if (seen && (l = loss_need(a, q)))
				lost_after(l, psn);  /* seen here, not at the responder */
			uint64_t first;  /* the hop that lost what it reports */
			if (a->path && seen && original_send(a, q, qb, psn, f, &first) >= 0)
				path_lost_finding(f, latest_sending(a, q, psn, first, f->frame), psn, false);
		}
		break;
	}
	default:
		break;
	}
}

/* ---- RDMA-CM: pair the two directions of a connection from its REQ and REP ---- */

static void cm_pair(struct roce_analyzer *a, const struct roce_mad *m, uint32_t src, uint32_t dst)
{
	if (m->cm_kind == ROCE_CM_REQ) {  /* src is the active side */
		struct pending_req *r = &a->reqs[a->next_req++ % 16];
		*r = (struct pending_req){m->local_comm_id, src, dst, m->cm.req.local_qpn, m->cm.req.path_mtu, true};
		return;
	}
	if (m->cm_kind != ROCE_CM_REP)
		return;
	for (unsigned i = 0; i < 16; i++) {
		struct pending_req *r = &a->reqs[i];
		if (!r->used || r->comm_id != m->remote_comm_id || r->active != dst || r->passive != src)
			continue;
		/* active -> passive goes to REP.local_qpn; passive -> active to REQ.local_qpn */
		uint32_t i1, i2;
		struct stream *fwd = stream_get(a, stream_key(r->active, r->passive, m->cm.rep.local_qpn), &i1);
		struct stream *rev = fwd ? stream_get(a, stream_key(r->passive, r->active, r->qpn), &i2) : NULL;
		if (!rev)
			return;
		fwd = &a->s[i1];  /* the second lookup may have moved entries */
		fwd->peer_qpn = r->qpn;
		rev->peer_qpn = m->cm.rep.local_qpn;
		fwd->peer_idx = i2;
		rev->peer_idx = i1;
		fwd->flags = (uint16_t)((fwd->flags | F_PAIRED_CM) & ~F_PAIRED_PSN);
		rev->flags = (uint16_t)((rev->flags | F_PAIRED_CM) & ~F_PAIRED_PSN);
		share_pair_id(a, i1, i2);
		unsigned mtu = roce_cm_mtu_bytes(r->path_mtu);
		if (mtu && !fwd->pmtu_log)
			fwd->pmtu_log = (uint8_t)__builtin_ctz(mtu);
		if (mtu && !rev->pmtu_log)
			rev->pmtu_log = (uint8_t)__builtin_ctz(mtu);
		r->used = false;
		return;
	}
}

/* ---- copies (copies.h) ---- */

/* The frame's sighting x of its packet (entry e, NULL for a first sighting) on p->path, once the
 * capture has shown a second capture point (roce_pkt's path). */
static void note_sighting(const struct sightings *t, struct roce_pkt *p, uint64_t frame, const struct sighting *x,
			  const struct sight_entry *e)
{
	if (t->n_points < 2)
		return;
	p->path.sightings = e ? e->n : 1;
	p->path.point = (uint16_t)x->point;
	if (e) {
		p->path.first_point = (uint16_t)e->s[0].point;
		p->path.first_frame = frame_back(frame, e->s[0].frame);
		p->path.delay_ns = x->ts - e->s[0].ts;
	}
}

/* A copy of a frame seen before: frame.copy, counted on its stream (if the table has it), and
 * nothing more. */
static bool is_copy(struct roce_analyzer *a, struct frame_ctx *f, const uint8_t *frame)
{
	const struct roce_pkt *p = f->p;
	struct sightings *t = a->copies;
	enum copy_seen seen;
	uint32_t icrc;
	bool has_icrc = copy_icrc(p, &icrc);
	uint64_t key = p->copy_hint ? p->copy_hint : copy_content_key(p, frame);  /* never 0 */
	uint32_t where = copy_where(p, frame), src, dst, i, points = t->n_points;
	struct sighting x = {f->ts, (uint32_t)f->frame, where, sightings_point(t, copy_point(p, frame), f->ts)};
	if (t->n_points != points)  /* a new capture point: described for path analysis, its clock offset (path.h) */
		sightings_offset(t, x.point, path_point_new(a->path, x.point, p, frame));
	x.ts = sightings_time(t, x.point, f->ts);  /* matched in the reference clock */
	struct sight_entry *e = sightings_find(t, key, icrc, has_icrc, x.ts, where, &seen);
	if (seen == COPY_NEW) {
		sightings_add(t, key, icrc, has_icrc, &x);
		note_sighting(t, f->p, f->frame, &x, NULL);
		return false;
	}
	bool known = p->op->op != ROCE_OP_CNP && addr_pair_ids(a, frame + p->net.addr_off, p->net.addr_len, &src, &dst) &&
		     stream_index(a, stream_key(src, dst, p->h.bth.dqpn), &i);
	/* the same place, the same bytes: a copy (a network duplicate) only when the stream's IPv4 ids
	 * count, so that a resend would have had a new one */
	if (seen == COPY_SAME_PLACE && !(known && (a->s[i].flags & F_IPID) && p->net.kind == ROCE_NET_IPV4 && p->net.ip_id)) {
		sightings_add(t, key, icrc, has_icrc, &x);
		note_sighting(t, f->p, f->frame, &x, NULL);
		return false;
	}
	/* the packet's first sighting is the one referred to */
	struct roce_finding *r = find(f, ROCE_EV_FRAME_COPY, true, p->h.bth.psn, p->h.bth.psn, x.ts - e->s[0].ts);
	if (r)
		r->ref_frame = frame_back(f->frame, e->s[0].frame);
	sightings_also(t, e, &x);
	note_sighting(t, f->p, f->frame, &x, e);
	if (known) {
		a->ids[i].copies++;
		if (f->out) {
			f->out->stream = a->ids[i].id;
			f->out->pair = a->ids[i].pair;
		}
	}
	return true;
}

/* ---- entry point ---- */

/* The ids of a new stream's addresses as the look-ahead found them (prefetch.c) for the frame
 * whose stream_hint is hint (h: its stream's hash), if they are still there and are these
 * addresses'. */
static inline bool ahead_ids(const struct roce_analyzer *a, uint64_t hint, uint32_t h, const uint8_t *addrs,
			     unsigned len, uint32_t *src, uint32_t *dst)
{
	const struct ahead_ids *e = &a->ahead.ids[(hint >> HINT_AHEAD_SHIFT) % AHEAD_IDS];
	if (e->hash != h || e->src >= a->n_addrs || e->dst >= a->n_addrs || !addr_ids_are(a, e->src, e->dst, addrs, len))
		return false;
	*src = e->src;
	*dst = e->dst;
	return true;
}

/* The frame's stream, created (its addresses interned) if new, and stamped the most recently
 * used; NULL when out of memory or addresses. A known stream is found by its addresses' bytes
 * and hash (stream_hash.h), which the decoding thread may have worked out (stream_hint): no
 * address is looked up. */
static struct stream *frame_stream(struct roce_analyzer *a, const struct roce_pkt *p, const uint8_t *addrs,
				   uint32_t *idx)
{
	unsigned len = p->net.addr_len;
	uint32_t qpn = p->h.bth.dqpn, src, dst;
	uint32_t hint = (uint32_t)p->stream_hint, h = p->stream_hint ? hint : stream_hash_raw(addrs, addrs + len, len, qpn);
	if (stream_of_addrs(a, h, addrs, len, qpn, idx))  /* checked by the addresses: never a wrong stream */
		return stream_touch(a, *idx);
	if (p->stream_hint) {  /* a new stream, or a hint not this frame's (a roce_pkt is the caller's) */
		h = stream_hash_raw(addrs, addrs + len, len, qpn);
		if (h != hint && stream_of_addrs(a, h, addrs, len, qpn, idx))
			return stream_touch(a, *idx);
	}
	if (!((p->stream_hint & HINT_AHEAD) && ahead_ids(a, p->stream_hint, h, addrs, len, &src, &dst)) &&
	    !addr_pair_ids(a, addrs, len, &src, &dst))
		return NULL;
	/* a request's stream takes a requester block at once: room for it first, or no stream (one
	 * made and then refused its block would be listed with no packets) */
	if (!(p->op->flags & ROCE_OPF_RESPONSE) && block_reserve(&a->req_pool) < 0)
		return NULL;
	return stream_add(a, stream_key(src, dst, qpn), h, idx);
}

/* The frame's stream and pair ids, on it and on its transport findings (from first on). */
static void set_ids(const struct roce_analyzer *a, struct roce_findings *out, unsigned first, uint32_t idx)
{
	out->stream = a->ids[idx].id;
	out->pair = a->ids[idx].pair;
	for (unsigned i = first; i < out->n; i++) {
		a->found.f[i].stream = out->stream;
		a->found.f[i].pair = out->pair;
	}
}

/* Capture times are held to ±(2^62 - 1) ns, years 1824 to 2116: two of them differ by less
 * than INT64_MAX, and the intervals taken between them cannot overflow. */
#define TS_LIMIT ((INT64_C(1) << 62) - 1)

void roce_analyze(struct roce_analyzer *a, struct roce_pkt *p, uint64_t number, const uint8_t *frame, int64_t ts_ns,
		  struct roce_findings *out)
{
	if (out) {
		out->n = 0;
		out->f = a->found.f;
		out->stream = out->pair = 0;
		out->response_ns = -1;
		out->recovery_ns = -1;
		out->recovery_ref = 0;
		out->cnp_ce_frame = 0;
		out->cnp_ce_ns = -1;
	}
	ts_ns = ts_ns > TS_LIMIT ? TS_LIMIT : ts_ns < -TS_LIMIT ? -TS_LIMIT : ts_ns;
	p->path.sightings = 0;  /* a decoder's copy of p may stop short of it (roce_pkt_extent) */
	/* congestion (congestion.c): the capture's extent, and only a compare or two per frame
	 * unless a CE mark's deadline passed, a pause is on, or this is a MAC control frame */
	struct cong_state *c = &a->cong;
	c->frame = number;
	if (c->first_ts == INT64_MIN)
		c->first_ts = ts_ns;
	if (ts_ns > c->last_ts)
		c->last_ts = ts_ns;
	if (ts_ns > c->next_deadline || ts_ns < c->pause_until || p->net.kind == ROCE_NET_MACC)
		cong_frame_slow(a, p, frame, ts_ns, out);
	struct frame_ctx f = {a, p, out, p->op ? p->h.bth.dqpn : 0, ts_ns, number};
	mirror_frame(&a->mirror, p, frame, &f.mirror);
	if (f.mirror.gap) {
		struct roce_finding *x = finding_add(a, p, out, ROCE_EV_MIRROR_GAP, 0);
		if (x) {
			x->has_psn = true;
			x->expected_psn = f.mirror.expected;
			x->seen_psn = f.mirror.seq;
			x->delta_ns = -1;
		}
	}
	if (!transport_analysable(p))
		return;
	unsigned tr_first = out ? out->n : 0;  /* the transport findings', after the congestion ones */
	if (a->copies && is_copy(a, &f, frame))
		return;
	const struct roce_net *n = &p->net;
	const uint8_t *addrs = frame + n->addr_off;
	uint32_t src, dst, idx;
	if (p->op->op == ROCE_OP_CNP) {  /* CNPs make no stream of their own */
		if (addr_pair_ids(a, addrs, n->addr_len, &src, &dst))
			cong_cnp(a, p, ts_ns, src, dst, out);
		else
			a->refused++;
		return;
	}
	struct stream *s = frame_stream(a, p, addrs, &idx);
	if (!s) {
		a->refused++;
		return;
	}
	if (a->copies)  /* the sighting is_copy made: its stream, for path analysis (path.h) */
		a->copies->ring[(a->copies->tail - 1) & a->copies->mask].stream = a->ids[idx].id;
	uint64_t key = s->key;
	src = key_src(key);
	dst = key_dst(key);
	bool is_response = p->op->flags & ROCE_OPF_RESPONSE;
	struct req_block *rq = NULL;
	if (!is_response && !(rq = req_need(a, s))) {  /* out of memory: only when a stream that answered
							  * so far sends its first request (frame_stream) */
		a->refused++;
		return;
	}
	bool first_pkt = !(s->packets || s->packets_hi);
	if (!first_pkt) {
		uint32_t idle = us_since(s->last_ts, ts_ns);
		if (idle > s->max_idle_us)
			s->max_idle_us = idle;
	}
	s->last_ts = ts_ns;
	if (n->kind == ROCE_NET_IPV4 && n->ip_id) {
		/* senders that count IPv4 ids tell which frame they sent first; a step back of 1024 or
		 * more is no such counter (random ids, or a new one) */
		int16_t back = (int16_t)(uint16_t)(n->ip_id - s->ip_id);
		if ((s->flags & F_IPID) && back < 0 && back > -1024) {
			f.late = true;
		} else if (back) {
			if (!first_pkt)
				s->flags |= F_IPID;  /* seen to change: a counter */
			s->ip_id = n->ip_id;
		}
	}
	/* ECN: the packets of a stream that are all plain ECT(0), as DCQCN senders mark them, are
	 * counted by the stream's own packet count; a congestion block (272 bytes, a cache miss a
	 * frame) only for a stream with anything else (congestion.h) */
	bool ect0 = (n->tclass & 3) == 2 && !p->h.bth.fecn && !p->h.bth.becn;
	if (ect0 && (first_pkt || s->ect0_only)) {
		s->ect0_only = 1;
	} else {
		if (s->ect0_only)
			cong_ect0_settle(a, s, packets_of(s));
		if (n->tclass & 3 || p->h.bth.fecn || p->h.bth.becn)  /* ECT, CE, FECN, BECN */
			cong_mark(a, s, p, ts_ns);
	}
	packets_add(s);
	s->bytes += p->wirelen;
	if (p->h.bth.dqpn == 1 && p->op->transport == ROCE_TR_UD) {
		struct roce_mad m;
		if (roce_mad_decode_pkt(p, frame, &m) == 1) {
			cm_pair(a, &m, src, dst);
			/* the two streams paired may have moved this one, or evicted it (a cap of 2) */
			if (!(s = stream_find(a, key)))
				return;
			idx = (uint32_t)(s - a->s);
			rq = req_of(a, s);  /* its block did not move (no block was taken) */
		}
	}
	if (is_response) {
		on_response(a, s, &f, src, dst);
	} else {
		bool first = !(s->flags & F_REQ_SEEN);
		on_request(a, s, rq, &f);
		if (first) {  /* a new request stream heads its host pair's chain */
			uint32_t head;
			rq->pair_next = pair_head(a, pair_key(src, dst), &head) ? head : NO_IDX;
			pair_set_head(a, pair_key(src, dst), idx);
		}
	}
	if (out)  /* after the analysis: pairing may have given the stream its pair id */
		set_ids(a, out, tr_first, idx);
}
