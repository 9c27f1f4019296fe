/* setup_rcpp.c: --setup rc-pingpong[:PORT], uc-pingpong[:PORT] and ud-pingpong[:PORT], the stock
 * ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong servers' exchange (rdma-core
 * libibverbs/examples/rc_pingpong.c, uc_pingpong.c, ud_pingpong.c: the same format): the client writes "LID:QPN:PSN:GID" as
 * "%04x:%06x:%06x:" + 32 hex digits + NUL (52 bytes), the server moves its QP to RTR/RTS and
 * answers with its own 52 bytes, the client writes "done\0" in one write right after reading
 * them. The server's QP then grants no remote access (qp_access_flags 0), has receives of -s bytes
 * posted, and answers the tester's first SEND with one SEND of its own (AckReq on its last
 * packet), which the tester must ACK for the server to finish. ibv_uc_pingpong's QP is UC: its
 * SEND (UC opcodes) completes when sent, nothing is acknowledged either way. ibv_ud_pingpong's QP
 * is UD with Q_Key 0x11111111 (its receives have 40 bytes of GRH space before the -s bytes): it
 * answers a SEND_ONLY that carries that Q_Key in its DETH with one UD SEND_ONLY to the QPN we sent. */
#include "setup.h"
#include "textnum.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RCPP_MSG_LEN 52   /* sizeof "0000:000000:000000:" + 32 hex digits + NUL */
/* The server's QP at RTS: timeout 14 (4.096 us * 2^14), retry_cnt 7, rnr_retry 7. */
#define RCPP_ACK_TIMEOUT_MS 67.108864

/* What the server's QP of method m is, besides the numbers it sent: receives of -s bytes posted,
 * its own SEND after one of ours is received; on RC the ACK timeout and retries above (a UC QP has
 * none: nothing is acknowledged). */
static void pingpong_qp(struct session *s, const struct setup_method *m, uint32_t qpn, uint32_t psn)
{
	s->qp.dut_qpn = qpn;
	s->qp.dut_psn = psn;
	s->qp.caps = m->caps;
	s->qp.dut_sends = true;
	s->qp.dut_send_len = m == &setup_ud_pingpong ? udpp_size(s->o) : s->o->recv_size;
	if (m != &setup_rc_pingpong)
		return;
	s->qp.dut_ack_timeout_ms = RCPP_ACK_TIMEOUT_MS;
	s->qp.dut_retry_cnt = 7;
	s->qp.dut_rnr_retry = 7;
}

/* The pingpong exchange of method m on port: the tester's LID:QPN:PSN:GID out, the server's in,
 * its QP noted. 0, or -1 with the reason in err. */
static int pingpong_exchange(struct session *s, const struct setup_method *m, uint16_t port, char err[CONF_ERRLEN])
{
	char msg[RCPP_MSG_LEN + 1], gid[33], reply[RCPP_MSG_LEN + 1];
	uint64_t lid, qpn, psn;
	const char *p;

	setup_choose_qp(s);
	uint32_t advertised = s->qp.my_psn;
	if (s->o->fault == FAULT_PSN)   /* the self-test fault: advertise one PSN, send from another */
		advertised = (s->qp.my_psn + 0x1000) & 0xffffff;
	setup_wire_gid(&s->o->local, gid);
	snprintf(msg, sizeof(msg), "%04x:%06x:%06x:%s", 0, s->qp.my_qpn, advertised, gid);
	int fd = setup_tcp_connect(s, port, err);
	if (fd < 0)
		return -1;
	if (setup_tcp_write(fd, msg, RCPP_MSG_LEN, err) < 0 || setup_tcp_read(s, fd, reply, RCPP_MSG_LEN, err) < 0 ||
	    setup_tcp_write(fd, "done", 5, err) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	reply[RCPP_MSG_LEN] = 0;
	if (!(p = hex_field(reply, 4, ':', &lid)) || !(p = hex_field(p, 6, ':', &qpn)) ||
	    !hex_field(p, 6, ':', &psn) || reply[19 + 32] != 0 ||
	    setup_parse_gid(reply + 19, s->qp.dut_gid) < 0) {
		snprintf(err, CONF_ERRLEN, "the DUT's server answered \"%.52s\", not LID:QPN:PSN:GID", reply);
		return -1;
	}
	pingpong_qp(s, m, (uint32_t)qpn, (uint32_t)psn);
	s->tcp_fd = -1;
	return 0;
}

/* The placeholders of method m for a dry run. */
static void pingpong_placeholder(struct session *s, const struct setup_method *m)
{
	addr_gid(&s->o->dut, s->qp.dut_gid);
	setup_choose_qp(s);
	pingpong_qp(s, m, 0x000011, 0x000000);
}

static int rcpp_connect(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	return pingpong_exchange(s, &setup_rc_pingpong, port, err);
}

/* The last PSN of the DUT's SEND, once its LAST or ONLY packet was seen; -1 before. */
static long dut_send_last(const struct session *s)
{
	for (size_t i = 0; i < s->n_resps; i++)
		if (pred_send_end(&s->resps[i], NULL))
			return s->resps[i].h.bth.psn;
	return -1;
}

/* The server ends when its receive and its SEND completed: make sure one of our SENDs was
 * accepted, then ACK its SEND. */
static void rcpp_finish(struct session *s)
{
	if (!s->qp_up || s->qp_dead || s->dut_msgs_acked)
		return;
	sess_sync(s);
	if (s->accepted == 0) {
		uint32_t psn = s->epsn;
		sess_probe(s, psn, "finish: a SEND so the DUT's server completes a receive");
		if (sess_wait(s, 2000, pred_psn, &psn) >= 0) {
			s->accepted++;
			s->epsn = psn_add(s->epsn, 1);
		}
	}
	if (s->accepted == 0)
		return;   /* the server never got a SEND: it ends at its own time limit */
	long last = dut_send_last(s);
	if (last < 0 && sess_wait(s, 3000, pred_send_end, NULL) >= 0)
		last = dut_send_last(s);
	if (last < 0) {
		/* not seen (a capture that misses it): its PSNs follow from the exchange and -s */
		uint32_t pm = s->o->pmtu, n = (s->qp.dut_send_len + pm - 1) / pm;
		last = psn_add(s->qp.dut_psn, (int32_t)(n ? n : 1) - 1);
	}
	sess_ack_dut(s, (uint32_t)last, 1, "finish: the DUT's SEND acknowledged");
	s->dut_msgs_acked = 1;
	sess_collect(s, 50);
}

static void rcpp_placeholder(struct session *s)
{
	pingpong_placeholder(s, &setup_rc_pingpong);
}

const struct setup_method setup_rc_pingpong = {
	.name = "rc-pingpong",
	.default_port = 18515,
	.caps = NEED_SEND | NEED_DUT_REQ | NEED_NO_ACCESS | NEED_PROBE,
	.server = "ibv_rc_pingpong -g GIDX -s SIZE -m PMTU -n 1 (restarted after every run)",
	.connect = rcpp_connect,
	.finish = rcpp_finish,
	.placeholder = rcpp_placeholder,
};

static int ucpp_connect(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	return pingpong_exchange(s, &setup_uc_pingpong, port, err);
}

void udpp_stim(struct session *s, struct stim *st, uint32_t qkey)
{
	stim_init(s, st, ROCE_OPC_UD_SEND_ONLY);
	st->ackreq = false;
	st->extra.deth.qkey = qkey;
	st->extra.deth.srcqp = s->qp.my_qpn;
}

uint32_t udpp_size(const struct conf_opts *o)
{
	return o->recv_size < o->pmtu ? o->recv_size : o->pmtu;
}

/* The server ends once it received a message and sent its own: when its SEND was not seen, one
 * more SEND_ONLY (a UC message starts anew at any PSN; UD with the server's Q_Key), then wait for
 * its SEND. */
static void unreliable_finish(struct session *s, bool ud)
{
	if (!s->qp_up || s->qp_dead || dut_send_last(s) >= 0)
		return;
	struct stim st;
	if (ud)
		udpp_stim(s, &st, UDPP_QKEY);
	else
		stim_init(s, &st, ROCE_OPC_UC | ROCE_OPC_SEND_ONLY);
	st.payload_len = 64;
	sess_send(s, &st, "finish: a SEND so the DUT's server completes a receive");
	s->epsn = psn_add(s->epsn, 1);
	sess_wait(s, 3000, pred_send_end, NULL);
	sess_collect(s, 50);
}

static void ucpp_finish(struct session *s)
{
	unreliable_finish(s, false);
}

static void ucpp_placeholder(struct session *s)
{
	pingpong_placeholder(s, &setup_uc_pingpong);
}

const struct setup_method setup_uc_pingpong = {
	.name = "uc-pingpong",
	.default_port = 18515,
	.caps = NEED_UC,
	.server = "ibv_uc_pingpong -g GIDX -s SIZE -m PMTU -n 1 (restarted after every run)",
	.connect = ucpp_connect,
	.finish = ucpp_finish,
	.placeholder = ucpp_placeholder,
};

static int udpp_connect(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	return pingpong_exchange(s, &setup_ud_pingpong, port, err);
}

static void udpp_finish(struct session *s)
{
	unreliable_finish(s, true);
}

static void udpp_placeholder(struct session *s)
{
	pingpong_placeholder(s, &setup_ud_pingpong);
}

const struct setup_method setup_ud_pingpong = {
	.name = "ud-pingpong",
	.default_port = 18515,
	.caps = NEED_UD,
	.server = "ibv_ud_pingpong -g GIDX -s min(SIZE,PMTU) -n 1 (restarted after every run)",
	.connect = udpp_connect,
	.finish = udpp_finish,
	.placeholder = udpp_placeholder,
};
