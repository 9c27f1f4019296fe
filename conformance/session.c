/* session.c: one test's session with the DUT (see session.h). Frames are made by the core's
 * builder (roce_build_frame) and the DUT's answers read by the core's decoder (roce_decode): the
 * BTH/AETH rules they are judged by are IBTA Vol 1 §9.7 (reliable service). */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define MAX_FRAME 10240

static const uint8_t placeholder_mac_local[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t placeholder_mac_dut[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

static struct resp *take(struct session *s, const struct link_frame *lf);

void stim_init(struct session *s, struct stim *st, uint8_t opcode)
{
	memset(st, 0, sizeof(*st));
	st->opcode = opcode;
	st->psn = s->epsn;
	st->dqpn = s->qp.dut_qpn;
	st->ackreq = true;
	st->pkey = 0xffff;
	st->fill = 0xa5;
	st->icrc = ROCE_BUILD_ICRC_GOOD;
	st->ip_id = (uint16_t)(s->n_frames + 1);
}

void addr_gid(const struct conf_addr *a, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (a->family == 4) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, a->ip, 4);
	} else {
		memcpy(gid, a->ip, 16);
	}
}

int stim_build(struct session *s, const struct stim *st, uint8_t *out, size_t cap)
{
	static uint8_t payload[MAX_FRAME];
	struct roce_build b;
	char ebuf[ROCE_ERRBUF_SIZE] = "";
	const struct conf_opts *o = s->o;

	if (st->payload_len > sizeof(payload) - 200) {
		snprintf(s->err, sizeof(s->err), "payload of %u bytes is too large", st->payload_len);
		return -1;
	}
	memset(&b, 0, sizeof(b));
	if (st->data)
		memcpy(payload, st->data, st->payload_len);
	else
		memset(payload, st->fill, st->payload_len);
	b.linktype = 1;
	memcpy(b.eth_dst, s->link && s->link->have_dut_mac ? s->link->dut_mac
			  : o->have_dut_mac ? o->dut_mac : placeholder_mac_dut, 6);
	memcpy(b.eth_src, s->link ? s->link->mac : o->have_local_mac ? o->local_mac : placeholder_mac_local, 6);
	if (o->vlan >= 0) {
		b.n_vlan = 1;
		b.vlan[0].vid = (uint16_t)o->vlan;
		b.vlan[0].pcp = (uint8_t)o->pcp;
	}
	b.version = st->rocev1 ? 1 : 2;
	b.ip_version = (unsigned)o->dut.family;
	memcpy(b.src, o->local.ip, 16);
	if (st->alt_src)
		b.src[o->local.family == 6 ? 15 : 3] ^= 1;
	memcpy(b.dst, o->dut.ip, 16);
	if (st->rocev1) {   /* the GRH carries GIDs: the tester's, and the one the DUT's QP advertised */
		addr_gid(&o->local, b.src);
		memcpy(b.dst, s->qp.dut_gid, 16);
	}
	b.tclass = (uint8_t)(o->dscp << 2 | (st->ecn & 3));
	b.ttl = 64;
	b.ip_id = st->ip_id;
	b.dont_fragment = true;
	b.udp_sport = (uint16_t)(0xc000 | (s->qp.my_qpn & 0x3fff));
	b.h = st->extra;
	b.h.bth.opcode = st->opcode;
	b.h.bth.pkey = st->pkey;
	b.h.bth.tver = st->tver;
	b.h.bth.padcnt = st->padcnt;
	b.h.bth.becn = st->becn;
	b.h.bth.dqpn = st->dqpn & 0xffffff;
	b.h.bth.ackreq = st->ackreq;
	b.h.bth.psn = st->psn & 0xffffff;
	b.payload = payload;
	b.payload_len = st->payload_len;
	b.icrc = st->icrc;
	b.icrc_value = st->icrc_value;
	b.flags = ROCE_BUILD_ETH_MIN_FRAME | (st->padcnt_as_given ? ROCE_BUILD_PADCNT_AS_GIVEN : 0) |
		  (st->hdrs_given ? ROCE_BUILD_HDRS_AS_GIVEN : 0);
	if (st->hdrs_given)
		b.h.hdrs = st->hdrs;
	b.errbuf = ebuf;
	int n = roce_build_frame(&b, out, cap);
	if (n < 0) {
		snprintf(s->err, sizeof(s->err), "cannot build the frame: %s", ebuf);
		return -1;
	}
	if (st->truncate_to && st->truncate_to < (uint32_t)n)
		n = (int)st->truncate_to;
	return n;
}

/* items (*cap of size bytes each) doubled; out of memory ends the run. */
static void *grow_or_exit(void *items, uint32_t *cap, size_t size)
{
	void *p = grow_array(items, cap, size, 64, UINT32_MAX);
	if (!p) {
		fprintf(stderr, "roceconform: out of memory\n");
		exit(EXIT_CONF_USAGE);
	}
	return p;
}

static unsigned record(struct session *s, bool sent, int64_t ts, const uint8_t *d, uint32_t len, const char *note)
{
	if (s->n_frames == s->cap_frames)
		s->frames = grow_or_exit(s->frames, &s->cap_frames, sizeof(*s->frames));
	struct rec_frame *f = &s->frames[s->n_frames];
	f->ts_ns = ts;
	f->sent = sent;
	f->len = len;
	f->bytes = malloc(len ? len : 1);
	if (!f->bytes) {
		fprintf(stderr, "roceconform: out of memory\n");
		exit(EXIT_CONF_USAGE);
	}
	memcpy(f->bytes, d, len);
	snprintf(f->note, sizeof(f->note), "%s", note ? note : "");
	f->has_stim = false;
	return (unsigned)s->n_frames++;
}

void sess_note(struct session *s, unsigned frame, const char *fmt, ...)
{
	if (frame >= s->n_frames)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->frames[frame].note, sizeof(s->frames[frame].note), fmt, ap);
	va_end(ap);
}

/* Send frame (paced, or at once) and record it with note. 0 or -1. */
static int send_frame(struct session *s, const uint8_t *frame, uint32_t len, const char *note, bool paced)
{
	if (s->link) {
		if (s->link_failed ||
		    (paced ? link_send(s->link, frame, len, s->err) : link_inject(s->link, frame, len, s->err)) < 0) {
			s->link_failed = true;
			return -1;
		}
	}
	unsigned i = record(s, true, now_ns(), frame, len, note);
	if (s->result && !s->result->t_ref)
		s->result->t_ref = s->frames[i].ts_ns;
	if (s->o->verbose)
		fprintf(stderr, "  > %s\n", note);
	return 0;
}

int sess_send_raw(struct session *s, const uint8_t *frame, uint32_t len, const char *note)
{
	return send_frame(s, frame, len, note, true);
}

int sess_send_ctl(struct session *s, const uint8_t *frame, uint32_t len, const char *note)
{
	return send_frame(s, frame, len, note, false);
}

int sess_send(struct session *s, const struct stim *st, const char *fmt, ...)
{
	uint8_t frame[MAX_FRAME];
	char note[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	int n = stim_build(s, st, frame, sizeof(frame));
	if (n < 0)
		return -1;
	if (sess_send_raw(s, frame, (uint32_t)n, note) < 0)
		return -1;
	s->frames[s->n_frames - 1].has_stim = true;
	s->frames[s->n_frames - 1].stim = *st;
	return 0;
}

const struct resp *sess_take(struct session *s, const uint8_t *data, uint32_t caplen, uint32_t len, int64_t ts_ns)
{
	struct link_frame lf = {data, caplen, len, ts_ns};
	return take(s, &lf);
}

/* Take one captured frame: keep it, and decode it when it is RoCEv2 from the DUT. */
static struct resp *take(struct session *s, const struct link_frame *lf)
{
	struct roce_pkt p;
	unsigned idx = record(s, false, lf->ts_ns, lf->data, lf->caplen, "");
	if (roce_decode(NULL, lf->data, lf->caplen, lf->len, 1, &p) != 1 || p.version != 2 || !p.op ||
	    p.trunc_layer || p.invalid_layer || p.net.addr_len != (s->o->dut.family == 6 ? 16 : 4) ||
	    memcmp(lf->data + p.net.addr_off, s->o->dut.ip, p.net.addr_len) != 0)
		return NULL;
	bool mine = p.h.bth.dqpn == s->qp.my_qpn;  /* else e.g. a previous run's QP still retrying */
	struct resp **list = mine ? &s->resps : &s->others;
	size_t *n = mine ? &s->n_resps : &s->n_others;
	uint32_t *cap = mine ? &s->cap_resps : &s->cap_others;
	if (*n == *cap)
		*list = grow_or_exit(*list, cap, sizeof(**list));
	struct resp *r = &(*list)[(*n)++];
	memset(r, 0, sizeof(*r));
	r->ts_ns = lf->ts_ns;
	r->h = p.h;
	r->payload_len = p.payload_len;
	r->icrc_status = p.icrc_status;
	r->ecn = (uint8_t)roce_ecn(&p.net);
	r->response = (p.op->flags & ROCE_OPF_RESPONSE) != 0;
	r->frame = idx;
	char buf[128];
	if (!mine) {
		sess_note(s, idx, "from DUT to QP 0x%06x, not this test's QP: %s", p.h.bth.dqpn, resp_str(r, buf, sizeof(buf)));
		return NULL;
	}
	sess_note(s, idx, "from DUT: %s", resp_str(r, buf, sizeof(buf)));
	if (s->o->verbose)
		fprintf(stderr, "  < %s\n", buf);
	return r;
}

/* sess_wait until the time deadline. */
static long wait_until(struct session *s, int64_t deadline, resp_pred pred, const void *arg)
{
	if (!s->link || s->link_failed)
		return -1;
	if (deadline > s->deadline_ns)
		deadline = s->deadline_ns;
	for (;;) {
		if (deadline - now_ns() <= 0)
			return -1;
		struct link_frame f;
		int rc = link_next_until(s->link, deadline, &f, s->err);
		if (rc < 0) {
			s->link_failed = true;
			return -1;
		}
		if (rc == 0)
			continue;
		struct resp *r = take(s, &f);
		if (r && pred && pred(r, arg))
			return (long)(r - s->resps);
	}
}

long sess_wait(struct session *s, int ms, resp_pred pred, const void *arg)
{
	return wait_until(s, now_ns() + (int64_t)ms * 1000000, pred, arg);
}

void sess_collect(struct session *s, int ms)
{
	wait_until(s, now_ns() + (int64_t)ms * 1000000, NULL, NULL);
}

void sess_collect_until(struct session *s, int64_t deadline)
{
	wait_until(s, deadline, NULL, NULL);
}

bool pred_response(const struct resp *r, const void *arg)
{
	(void)arg;
	return r->response;
}

bool pred_request(const struct resp *r, const void *arg)
{
	(void)arg;
	return !r->response;
}

bool pred_send_end(const struct resp *r, const void *arg)
{
	(void)arg;
	const struct roce_opcode_info *op = roce_opcode_info(r->h.bth.opcode);
	return !r->response && op->op == ROCE_OP_SEND && (op->seg == ROCE_SEG_LAST || op->seg == ROCE_SEG_ONLY);
}

bool pred_psn(const struct resp *r, const void *arg)
{
	return r->response && r->h.bth.psn == *(const uint32_t *)arg;
}

bool pred_any(const struct resp *r, const void *arg)
{
	(void)r;
	(void)arg;
	return true;
}

int sess_aeth(struct session *s, uint32_t psn, uint8_t syndrome, uint32_t msn, const char *note)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_ACK);
	st.psn = psn;
	st.ackreq = false;
	st.extra.aeth.syndrome = syndrome;
	st.extra.aeth.msn = msn & 0xffffff;
	return sess_send(s, &st, "%s", note);
}

int sess_ack_dut(struct session *s, uint32_t psn, uint32_t msn, const char *why)
{
	char note[160];
	snprintf(note, sizeof(note), "ACK psn 0x%06x msn %u (%s)", psn, msn, why);
	return sess_aeth(s, psn, 0x1f, msn, note);
}

void stim_probe(struct session *s, struct stim *st, uint32_t psn)
{
	unsigned caps = s->qp.caps;
	if (caps & NEED_SEND) {
		stim_init(s, st, ROCE_OPC_SEND_ONLY);
		st->payload_len = 64;
	} else if (caps & (NEED_MR_WRITE | NEED_MR_READ)) {
		stim_init(s, st, caps & NEED_MR_WRITE ? ROCE_OPC_WRITE_ONLY : ROCE_OPC_READ_REQUEST);
		st->extra.reth.va = s->qp.va;
		st->extra.reth.rkey = s->qp.rkey;
		st->extra.reth.dmalen = 64;
		st->payload_len = caps & NEED_MR_WRITE ? 64 : 0;
	} else {
		stim_init(s, st, ROCE_OPC_FETCH_ADD);
		st->extra.atomiceth.va = s->qp.va;
		st->extra.atomiceth.rkey = s->qp.rkey;
	}
	st->psn = psn;
}

int sess_probe(struct session *s, uint32_t psn, const char *why)
{
	struct stim st;
	stim_probe(s, &st, psn);
	return sess_send(s, &st, "%s psn 0x%06x (%s)", roce_opcode_info(st.opcode)->name, psn, why);
}

void sess_sync(struct session *s)
{
	for (size_t i = 0; i < s->n_resps; i++) {
		const struct resp *r = &s->resps[i];
		if (!r->response || !(r->h.hdrs & ROCE_HDR_AETH))
			continue;
		unsigned kind = roce_aeth_kind(r->h.aeth.syndrome);
		uint32_t next = kind == ROCE_AETH_ACK ? psn_add(r->h.bth.psn, 1) : r->h.bth.psn;
		if ((kind == ROCE_AETH_ACK || (kind == ROCE_AETH_NAK && roce_aeth_value(r->h.aeth.syndrome) == 0)) &&
		    psn_diff(next, s->epsn) > 0)
			s->epsn = next;
		if (kind == ROCE_AETH_ACK && r->h.aeth.msn > s->accepted && r->h.aeth.msn < (1u << 23))
			s->accepted = r->h.aeth.msn;
	}
}

void sess_reset(struct session *s)
{
	for (size_t i = 0; i < s->n_frames; i++)
		free(s->frames[i].bytes);
	free(s->frames);
	free(s->resps);
	free(s->others);
	s->frames = NULL;
	s->resps = s->others = NULL;
	s->n_frames = s->cap_frames = s->n_resps = s->cap_resps = s->n_others = s->cap_others = 0;
}

const char *resp_str(const struct resp *r, char *buf, size_t n)
{
	const struct roce_opcode_info *op = roce_opcode_info(r->h.bth.opcode);
	const char *name = op->name ? op->name : "reserved";
	if (r->h.hdrs & ROCE_HDR_AETH) {
		uint8_t syn = r->h.aeth.syndrome;
		unsigned kind = roce_aeth_kind(syn);
		if (kind == ROCE_AETH_NAK) {
			const char *code = roce_nak_code_name(roce_aeth_value(syn));
			snprintf(buf, n, "NAK %s (0x%02x) psn 0x%06x msn %u", code ? code : "reserved", syn,
				 r->h.bth.psn, r->h.aeth.msn);
		} else if (kind == ROCE_AETH_RNR_NAK) {
			snprintf(buf, n, "RNR NAK timer %u (0x%02x) psn 0x%06x msn %u", roce_aeth_value(syn), syn,
				 r->h.bth.psn, r->h.aeth.msn);
		} else {
			int k = snprintf(buf, n, "%s psn 0x%06x syndrome 0x%02x msn %u", op->op == ROCE_OP_ACK ? "ACK" : name,
					 r->h.bth.psn, syn, r->h.aeth.msn);
			if ((r->h.hdrs & ROCE_HDR_ATOMICACKETH) && k > 0 && (size_t)k < n)   /* the value it read */
				snprintf(buf + k, n - (size_t)k, " orig 0x%llx", (unsigned long long)r->h.atomicacketh.orig);
		}
	} else {
		snprintf(buf, n, "%s psn 0x%06x dqpn 0x%06x%s len %u", name, r->h.bth.psn, r->h.bth.dqpn,
			 r->h.bth.ackreq ? " ackreq" : "", r->payload_len);
	}
	if (r->icrc_status == ROCE_ICRC_BAD) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, " BAD-ICRC");
	}
	return buf;
}
