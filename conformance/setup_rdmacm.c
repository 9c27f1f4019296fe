/* setup_rdmacm.c: --setup rdma-cm[:PORT], the tester as an RDMA-CM client of an unmodified
 * `rping -s` server (rdma-core librdmacm/examples/rping.c).
 *
 * Connection (IBTA Vol 1 chapter 12, Annex A11): CM MADs (class 0x07, version 2, method Send) as
 * UD SEND_ONLY packets to QP1 (P_Key 0xFFFF, Q_Key 0x80010000, source QP 1). The tester sends a REQ
 * for the RDMA IP CM Service (ServiceID 0x0000000001060000 + port: the TCP port space) with the
 * IP CM header of Annex A11 in its private data, responder resources and initiator depth 1 (as
 * rping's client asks), retry and RNR retry counts 7, local ACK timeout 14, the Starting PSN the
 * DUT is to send from; the DUT answers REP (its QPN, the PSN it expects from the tester), perhaps
 * after an MRA; the tester answers RTU. Every attempt has a fresh
 * Local Communication ID and transaction ID (the DUT's CM keeps old ones in timewait); a REJ (no
 * server listening yet: it restarts after every run) is retried until the setup timeout. A DREQ is
 * answered with a DREP. The finish step ends the connection with a DREQ, which ends the server.
 *
 * rping's exchange (one loop): the client SENDs its source buffer as struct rping_rdma_info
 * {be64 buf; be32 rkey; be32 size} (16 bytes: the server takes nothing else), the server READs
 * size bytes of it, SENDs a "go ahead", the client SENDs its sink buffer, the server WRITEs the
 * data back and SENDs a "go ahead" again. The tester's buffers are its own (rdmacm_serve answers
 * the READs from the source buffer and ACKs the server's SENDs and WRITEs). The server's READ is
 * at most its -S (64 by default; --dut-size gives it), so the tester advertises that size. */
#include "setup.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "roce/mad.h"

#define CM_QKEY 0x80010000u
#define CM_PS_TCP 0x0106u            /* RDMA_PS_TCP: the ServiceID's port space */
#define CM_RESP_TIMEOUT 20           /* 4.096 us * 2^20: 4.3 s, as Linux's RDMA-CM */
#define CM_ACK_TIMEOUT 14            /* the DUT QP's local ACK timeout: 4.096 us * 2^14 */
#define CM_RESEND_MS 2000            /* a REQ with no answer is sent again */
#define RPING_INFO_LEN 16
#define RPING_DEFAULT_SIZE 64
#define RPING_MAX_SIZE 65535
#define TESTER_VA 0x00007e5700000000ULL   /* the tester's source buffer; the sink follows it */
#define TESTER_RKEY 0x00c0ffeeu

/* The connection and the exchange of the current test (one test at a time). */
static struct {
	uint32_t comm_id, dut_comm_id;
	uint64_t tid;
	uint32_t size;               /* the buffer size advertised */
	size_t served;               /* s->resps handled by rdmacm_serve */
	unsigned dut_sends;          /* the DUT's SENDs acknowledged */
	uint32_t acked_psn;          /* the last DUT message ACKed */
	bool advertised, sink_sent, acked_any;
	uint16_t ud_psn;
	uint8_t buf[RPING_MAX_SIZE];  /* the source buffer, as rping's client fills it */
} cm;

/* Communication and transaction IDs: random per run and attempt (a generator of their own,
 * seeded from the clock and the process: the DUT's CM remembers the IDs of earlier runs). */
static uint32_t fresh_id(void)
{
	static unsigned short xsubi[3];
	static bool seeded;
	if (!seeded) {
		uint64_t t = (uint64_t)now_ns() ^ (uint64_t)getpid() << 32;
		xsubi[0] = (unsigned short)t;
		xsubi[1] = (unsigned short)(t >> 16);
		xsubi[2] = (unsigned short)(t >> 32 ^ t >> 48);
		seeded = true;
	}
	return (uint32_t)jrand48(xsubi);
}

/* The MAD common header for CM attribute attr. */
static void mad_header(uint8_t *m, uint16_t attr, uint64_t tid)
{
	memset(m, 0, ROCE_MAD_LEN);
	m[0] = ROCE_MAD_BASE_VERSION;
	m[1] = ROCE_MGMT_CLASS_CM;
	m[2] = ROCE_CM_CLASS_VERSION;
	m[3] = ROCE_MAD_METHOD_SEND;
	for (int i = 0; i < 8; i++)
		m[8 + i] = (uint8_t)(tid >> (56 - 8 * i));
	m[16] = (uint8_t)(attr >> 8);
	m[17] = (uint8_t)attr;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Send one CM MAD to the DUT's QP1. */
static int send_mad(struct session *s, const uint8_t *mad, const char *what)
{
	struct stim st;
	stim_init(s, &st, ROCE_OPC_UD_SEND_ONLY);
	st.dqpn = ROCE_MAD_QP1;
	st.psn = cm.ud_psn++;
	st.ackreq = false;
	st.extra.deth.qkey = CM_QKEY;
	st.extra.deth.srcqp = ROCE_MAD_QP1;
	st.data = mad;
	st.payload_len = ROCE_MAD_LEN;
	return sess_send(s, &st, "CM %s (comm ID 0x%08x)", what, cm.comm_id);
}

/* The REQ for the RDMA IP CM Service on port (Table 106 and Annex A11's private data). */
static void build_req(const struct session *s, uint16_t port, uint8_t *m)
{
	const struct conf_opts *o = s->o;
	mad_header(m, ROCE_CM_ATTR_REQ, cm.tid);
	put32(m + 24, cm.comm_id);
	put32(m + 32, 0);
	put32(m + 36, CM_PS_TCP << 16 | port);
	m[40] = 0x02;                                   /* Local CA GUID: the tester's, made up */
	m[47] = 0x01;
	put32(m + 56, s->qp.my_qpn << 8 | 1);           /* Local QPN, Responder Resources 1 */
	put32(m + 60, 1);                               /* Local EECN 0, Initiator Depth 1 */
	m[67] = CM_RESP_TIMEOUT << 3;                   /* Remote CM Response Timeout, RC, no E2E */
	put32(m + 68, s->qp.dut_psn << 8 | CM_RESP_TIMEOUT << 3 | 7);  /* PSN, Local CM Resp Timeout, Retry 7 */
	m[72] = m[73] = 0xff;                           /* P_Key */
	unsigned pmtu = s->test && s->test->pmtu ? s->test->pmtu : o->pmtu, code = 1;
	while (code < 5 && 128u << code < pmtu)
		code++;
	m[74] = (uint8_t)(code << 4 | 7);               /* Path MTU, RNR Retry Count 7 */
	m[75] = 0xf0;                                   /* Max CM Retries 15 */
	m[76] = m[77] = m[78] = m[79] = 0xff;           /* LIDs: permissive (RoCE has none) */
	addr_gid(&o->local, m + 80);
	addr_gid(&o->dut, m + 96);
	m[117] = 64;                                    /* Hop Limit */
	m[119] = CM_ACK_TIMEOUT << 3;                   /* Local ACK Timeout */
	uint8_t *pd = m + 164;                          /* the IP CM header */
	pd[1] = (uint8_t)((o->local.family == 6 ? 6 : 4) << 4);
	put16(pd + 2, (uint16_t)(0xc000 | (s->qp.my_qpn & 0x3fff)));   /* a source port of our own */
	if (o->local.family == 6) {
		memcpy(pd + 4, o->local.ip, 16);
		memcpy(pd + 20, o->dut.ip, 16);
	} else {
		memcpy(pd + 16, o->local.ip, 4);        /* IPv4: the last 4 bytes of each 16 */
		memcpy(pd + 32, o->dut.ip, 4);
	}
}

/* A CM message with the two IDs only (RTU, DREP), or DREQ (with the DUT's QPN). */
static int send_ids(struct session *s, uint16_t attr, uint64_t tid, uint32_t dut_id, const char *what)
{
	uint8_t m[ROCE_MAD_LEN];
	mad_header(m, attr, tid);
	put32(m + 24, cm.comm_id);
	put32(m + 28, dut_id);
	if (attr == ROCE_CM_ATTR_DREQ)
		put32(m + 32, s->qp.dut_qpn << 8);
	return send_mad(s, m, what);
}

/* The next CM MAD from the DUT until deadline: 1 (in *out), 0 (time out), -1 (capture error).
 * Every frame is kept in the session (RoCE packets to the test's QP as responses). */
static int next_mad(struct session *s, int64_t deadline, struct roce_mad *out)
{
	struct link_frame f;
	struct roce_pkt p;
	char err[CONF_ERRLEN];
	while (s->link && now_ns() < deadline) {
		int rc = link_next_until(s->link, deadline, &f, err);
		if (rc < 0) {
			snprintf(s->err, sizeof(s->err), "%s", err);
			s->link_failed = true;
			return -1;
		}
		if (rc == 0)
			continue;
		sess_take(s, f.data, f.caplen, f.len, f.ts_ns);
		if (roce_decode(NULL, f.data, f.caplen, f.len, 1, &p) != 1 || !roce_mad_decode_pkt(&p, f.data, out))
			continue;
		sess_note(s, (unsigned)s->n_frames - 1, "from DUT: CM %s (comm IDs 0x%08x -> 0x%08x)",
			  roce_cm_kind_name(out->cm_kind), out->local_comm_id, out->remote_comm_id);
		if (out->cm_kind == ROCE_CM_DREQ) {   /* any connection's, an older one's too */
			send_ids(s, ROCE_CM_ATTR_DREP, out->hdr.tid, out->local_comm_id, "DREP (answering the DUT's DREQ)");
			continue;
		}
		if (out->cm_kind == ROCE_CM_REQ || out->remote_comm_id != cm.comm_id)
			continue;
		return 1;
	}
	return 0;
}

/* What the connection made of the QP: the DUT's QPN and the PSN it expects first from its REP
 * (a REQ's or REP's Starting PSN is the one its sender expects to receive: the DUT sends from the
 * REQ's), the rest from the REQ. */
static void cm_qp(struct session *s, uint32_t qpn, uint32_t rep_psn, unsigned init_depth)
{
	s->qp.dut_qpn = qpn;
	s->qp.my_psn = rep_psn;
	addr_gid(&s->o->dut, s->qp.dut_gid);
	s->qp.caps = setup_rdma_cm.caps;
	s->qp.dut_sends = false;
	s->qp.dut_ack_timeout_ms = 4.096e-3 * (1u << CM_ACK_TIMEOUT);
	s->qp.dut_retry_cnt = 7;
	s->qp.dut_rnr_retry = 7;
	s->qp.dut_max_rd = init_depth;
	s->qp.pmtu = s->test && s->test->pmtu ? s->test->pmtu : 0;
}

/* rping's client fills its source buffer with "rdma-ping-0: " and letters, NUL-terminated. */
static void fill_buffer(uint32_t size)
{
	int cc = snprintf((char *)cm.buf, size, "rdma-ping-%d: ", 0);
	uint8_t c = 65;
	for (uint32_t i = cc > 0 ? (uint32_t)cc : 0; i < size; i++) {
		cm.buf[i] = c;
		c = c >= 122 ? 65 : (uint8_t)(c + 1);
	}
	cm.buf[size - 1] = 0;
}

static void cm_reset(const struct session *s)
{
	uint32_t size = s->o->dut_size ? s->o->dut_size : RPING_DEFAULT_SIZE;
	memset(&cm, 0, sizeof(cm) - sizeof(cm.buf));
	cm.size = size > RPING_MAX_SIZE ? RPING_MAX_SIZE : size;
	fill_buffer(cm.size);
}

/* One attempt: REQ out, wait for REP (an MRA extends the wait), RTU. 1 connected, 0 rejected or
 * no answer (try again), -1 capture error. */
static int cm_attempt(struct session *s, uint16_t port, int64_t deadline, char err[CONF_ERRLEN])
{
	uint8_t m[ROCE_MAD_LEN];
	struct roce_mad mad;
	cm.comm_id = fresh_id() | 1;
	cm.tid = (uint64_t)fresh_id() << 32 | fresh_id();
	build_req(s, port, m);
	if (send_mad(s, m, "REQ") < 0)
		return -1;
	int64_t until = now_ns() + (int64_t)CM_RESEND_MS * 1000000;
	for (;;) {
		int rc = next_mad(s, until < deadline ? until : deadline, &mad);
		if (rc <= 0)
			return rc;
		if (mad.cm_kind == ROCE_CM_MRA) {
			until = deadline;   /* the DUT asked for more time */
		} else if (mad.cm_kind == ROCE_CM_REJ) {
			const char *why = roce_cm_rej_reason_name(mad.cm.rej.reason);
			snprintf(err, CONF_ERRLEN, "the DUT rejected the REQ: reason %u (%s)", mad.cm.rej.reason, why ? why : "reserved");
			return 0;
		} else if (mad.cm_kind == ROCE_CM_REP) {
			cm.dut_comm_id = mad.local_comm_id;
			cm_qp(s, mad.cm.rep.local_qpn, mad.cm.rep.starting_psn, mad.cm.rep.initiator_depth);
			return send_ids(s, ROCE_CM_ATTR_RTU, cm.tid, cm.dut_comm_id, "RTU") < 0 ? -1 : 1;
		}
	}
}

static int rdmacm_connect(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	int64_t deadline = now_ns() + (int64_t)s->o->setup_timeout_s * 1000000000;
	char ip[64];
	setup_choose_qp(s);
	s->qp.dut_psn = fresh_id() & 0xffffff;   /* the PSN the tester expects from the DUT */
	cm_reset(s);
	snprintf(err, CONF_ERRLEN, "no answer");
	while (now_ns() < deadline) {
		int rc = cm_attempt(s, port, deadline, err);
		if (rc < 0) {
			snprintf(err, CONF_ERRLEN, "capture: %.200s", s->err);
			return -1;
		}
		if (rc > 0) {
			if (s->result)
				s->result->t_ref = 0;   /* response times count from the test's first stimulus */
			s->tcp_fd = -1;
			return 0;
		}
		struct roce_mad mad;   /* a rejected attempt: the server may be restarting */
		if (next_mad(s, now_ns() + 200000000, &mad) < 0)
			return -1;
	}
	char last[CONF_ERRLEN];
	snprintf(last, sizeof(last), "%s", err);
	snprintf(err, CONF_ERRLEN, "no RDMA-CM connection to rping -s at %s port %u in %u s: %.120s",
		 addr_str(&s->o->dut, ip, sizeof(ip)), port, s->o->setup_timeout_s, last);
	return -1;
}

/* A SEND_ONLY of a struct rping_rdma_info for the tester's buffer at va. */
static int send_info(struct session *s, uint64_t va, const char *why)
{
	uint8_t info[RPING_INFO_LEN];
	put32(info, (uint32_t)(va >> 32));
	put32(info + 4, (uint32_t)va);
	put32(info + 8, TESTER_RKEY);
	put32(info + 12, cm.size);
	struct stim st;
	stim_init(s, &st, ROCE_OPC_SEND_ONLY);
	st.data = info;
	st.payload_len = RPING_INFO_LEN;
	if (sess_send(s, &st, "SEND psn 0x%06x: rping_rdma_info buf 0x%llx rkey 0x%08x size %u (%s)", st.psn,
		      (unsigned long long)va, TESTER_RKEY, cm.size, why) < 0)
		return -1;
	s->epsn = psn_add(s->epsn, 1);
	return 0;
}

int rdmacm_advertise(struct session *s, const char *why)
{
	if (send_info(s, TESTER_VA, why) < 0)
		return -1;
	cm.advertised = true;
	return 0;
}

void rdmacm_read_respond(struct session *s, uint32_t psn, uint64_t va, uint32_t len, long skip, const char *why)
{
	unsigned pm = qp_pmtu(s);
	uint32_t n = len ? (len + pm - 1) / pm : 1;
	static const uint8_t zero[16384];
	for (uint32_t i = 0; i < n; i++) {
		if ((long)i == skip)
			continue;
		struct stim st;
		uint8_t opc = n == 1 ? ROCE_OPC_READ_RESP_ONLY : i == 0 ? ROCE_OPC_READ_RESP_FIRST
						: i == n - 1 ? ROCE_OPC_READ_RESP_LAST : ROCE_OPC_READ_RESP_MIDDLE;
		stim_init(s, &st, opc);
		st.psn = psn_add(psn, (int32_t)i);
		st.ackreq = false;
		st.extra.aeth.syndrome = 0x1f;
		st.extra.aeth.msn = (cm.dut_sends + 1) & 0xffffff;
		uint64_t off = va + (uint64_t)i * pm - TESTER_VA;
		uint32_t l = i == n - 1 ? len - i * pm : pm;
		st.payload_len = l;
		st.data = off + l <= cm.size ? cm.buf + off : zero;   /* outside the buffer: zeros */
		sess_send(s, &st, "%s psn 0x%06x, %u bytes (%s)", roce_opcode_info(opc)->name, st.psn, l, why);
	}
}

void rdmacm_served(struct session *s, unsigned msgs)
{
	cm.served = s->n_resps;
	cm.dut_sends += msgs;
}

bool pred_read_request(const struct resp *r, const void *arg)
{
	(void)arg;
	return !r->response && r->h.bth.opcode == ROCE_OPC_READ_REQUEST;
}

/* Answer what the DUT sent since the last call: its READs from the source buffer, an ACK for the
 * last packet of each SEND and WRITE; the sink buffer advertised after the first "go ahead". */
static void serve_new(struct session *s)
{
	for (; cm.served < s->n_resps; cm.served++) {
		const struct resp *r = &s->resps[cm.served];
		const struct roce_opcode_info *op = roce_opcode_info(r->h.bth.opcode);
		if (r->response)
			continue;
		if (op->op == ROCE_OP_READ_REQ) {
			rdmacm_read_respond(s, r->h.bth.psn, r->h.reth.va, r->h.reth.dmalen, -1, "finish: the DUT's READ");
			cm.dut_sends++;
			continue;
		}
		if (op->seg != ROCE_SEG_LAST && op->seg != ROCE_SEG_ONLY)
			continue;
		bool dup = cm.acked_any && psn_diff(r->h.bth.psn, cm.acked_psn) <= 0;   /* a resent one: ACKed again */
		cm.acked_any = true;
		if (!dup) {
			cm.acked_psn = r->h.bth.psn;
			cm.dut_sends++;
		}
		sess_ack_dut(s, r->h.bth.psn, cm.dut_sends, "finish: the DUT's message");
		if (op->op == ROCE_OP_SEND && !cm.sink_sent) {
			cm.sink_sent = true;
			send_info(s, TESTER_VA + RPING_MAX_SIZE + 1, "finish: the sink buffer for the DUT's WRITE");
		}
	}
}

/* The DUT's SENDs seen (their last packets; a resent one counted once). */
static unsigned dut_send_ends(const struct session *s)
{
	unsigned n = 0;
	long last = -1;
	for (size_t i = 0; i < s->n_resps; i++)
		if (pred_send_end(&s->resps[i], NULL) && s->resps[i].h.bth.psn != last) {
			last = s->resps[i].h.bth.psn;
			n++;
		}
	return n;
}

/* One rping loop to its end (when the test started it), then DREQ; the DREP (or the DUT's own
 * DREQ, answered) is waited for. */
static void rdmacm_finish(struct session *s)
{
	if (!s->qp_up)
		return;
	if (cm.advertised && !s->qp_dead && s->link) {
		int64_t end = now_ns() + 3000000000LL;
		while (now_ns() < end && dut_send_ends(s) < 2) {
			serve_new(s);
			sess_collect(s, 20);
		}
		serve_new(s);
	}
	cm.tid++;
	send_ids(s, ROCE_CM_ATTR_DREQ, cm.tid, cm.dut_comm_id, "DREQ");
	struct roce_mad mad;
	int64_t end = now_ns() + 2000000000LL;
	while (next_mad(s, end, &mad) > 0)
		if (mad.cm_kind == ROCE_CM_DREP)
			break;
}

static void rdmacm_placeholder(struct session *s)
{
	setup_choose_qp(s);
	cm_reset(s);
	cm_qp(s, 0x000011, s->qp.my_psn, 1);
	s->qp.dut_psn = 0;
}

const struct setup_method setup_rdma_cm = {
	.name = "rdma-cm",
	.default_port = 7174,
	.caps = NEED_DUT_READ,
	.server = "rping -s -a DUT_IP [-S SIZE] (RDMA-CM; restarted after every run; E7 only)",
	.connect = rdmacm_connect,
	.finish = rdmacm_finish,
	.placeholder = rdmacm_placeholder,
};
