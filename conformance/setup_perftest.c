/* setup_perftest.c: --setup perftest-write / perftest-read / perftest-atomic [:PORT], the TCP
 * exchange of a perftest 4.5 server (ib_write_bw, ib_read_bw, ib_atomic_bw without -R), written
 * from perftest's src/perftest_communication.c and write_bw.c (4.5-0.17). The client (here, the
 * tester) writes first at every step, then reads the server's part:
 *   1. the version string, 16 bytes ("6.06": at least 5.70, which the server demands, and below
 *      the versions that start a newer parameter negotiation);
 *   2. the cycle buffer and cache line sizes, 4-byte big-endian ints each (versions >= 5.32);
 *   3. the path MTU code in ASCII, 2 bytes ("3" for 1024; the server takes the smaller);
 *   4. three rounds of the 108-byte key message "LID:OUT_READS:QPN:PSN:RKEY:VADDR:" + 16 GID bytes
 *      "%02x:" each + "SRQN:" (the server moves its QP to RTR/RTS after the first);
 * after which the server waits for the client's end: one more key round, the bandwidth report
 * (five 8-byte values each way), a last key round and "done\0" (finish step).
 * The server's buffer: perftest registers 2 x B bytes, B = the larger of its message size and the
 * cycle buffer, rounded up to the cache line, and advertises its start + B; its QP grants only the
 * one access its test needs (REMOTE_WRITE, REMOTE_READ or REMOTE_ATOMIC). */
#include "setup.h"
#include "textnum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PT_VERSION "6.06"
#define PT_VERSION_LEN 16
#define PT_KEY_LEN 108
#define PT_CYCLE_BUFFER 4096
#define PT_CACHE_LINE 64
#define PT_ACK_TIMEOUT_MS 67.108864   /* DEF_QP_TIME 14 */

static unsigned mtu_code(unsigned pmtu)
{
	switch (pmtu) {
	case 256: return 1;
	case 512: return 2;
	case 2048: return 4;
	case 4096: return 5;
	default: return 3;
	}
}

/* The path MTU this test asks for: its own (the PMTU tests), else --pmtu. */
static unsigned asked_pmtu(const struct session *s)
{
	return s->test && s->test->pmtu ? s->test->pmtu : s->o->pmtu;
}

/* The server takes the smaller of the two MTU codes (perftest_communication.c): the PMTU the QP
 * comes up with, from the server's code in ASCII ("3" for 1024). */
static unsigned agreed_pmtu(unsigned want, const char rmtu[2])
{
	unsigned code = (unsigned)(rmtu[0] - '0');
	if (code < 1 || code > 5 || rmtu[1] || 128u << code >= want)
		return want;
	return 128u << code;
}

static void key_msg(const struct session *s, char out[PT_KEY_LEN])
{
	uint8_t gid[16];
	char *p = out;
	addr_gid(&s->o->local, gid);
	uint32_t psn = s->qp.my_psn;
	if (s->o->fault == FAULT_PSN)
		psn = (psn + 0x1000) & 0xffffff;
	p += sprintf(p, "%04x:%04x:%06x:%06x:%08x:%016llx:", 0, 1, s->qp.my_qpn, psn, 0, 0ULL);
	for (int i = 0; i < 16; i++)
		p += sprintf(p, "%02x:", gid[i]);
	sprintf(p, "%08x:", 0);
}

/* Parse the server's key message. */
static int parse_key(struct session *s, const char *msg, unsigned *out_reads, char err[CONF_ERRLEN])
{
	/* LID:OUT_READS:QPN:PSN:RKEY:VA:GID (16 bytes, each followed by ':'):SRQN */
	static const unsigned width[6] = {4, 4, 6, 6, 8, 16};
	uint64_t f[6 + 16 + 1];
	const char *p = msg;
	for (unsigned i = 0; i < 6 + 16 && p; i++)
		p = hex_field(p, i < 6 ? width[i] : 2, ':', &f[i]);
	if (!p || !hex_field(p, 8, 0, &f[6 + 16])) {
		snprintf(err, CONF_ERRLEN, "the perftest server's key message \"%.107s\" does not parse", msg);
		return -1;
	}
	*out_reads = (unsigned)f[1];
	s->qp.dut_qpn = (uint32_t)f[2];
	s->qp.dut_psn = (uint32_t)f[3];
	s->qp.rkey = (uint32_t)f[4];
	s->qp.va = f[5];
	for (unsigned i = 0; i < 16; i++)
		s->qp.dut_gid[i] = (uint8_t)f[6 + i];
	return 0;
}

/* One exchange: write ours, read theirs (the client's order). */
static int xchg(struct session *s, int fd, const void *mine, void *theirs, size_t n, char err[CONF_ERRLEN])
{
	if (setup_tcp_write(fd, mine, n, err) < 0)
		return -1;
	return setup_tcp_read(s, fd, theirs, n, err);
}

static int key_round(struct session *s, int fd, char theirs[PT_KEY_LEN], char err[CONF_ERRLEN])
{
	char mine[PT_KEY_LEN];
	key_msg(s, mine);
	return xchg(s, fd, mine, theirs, PT_KEY_LEN, err);
}

/* B: the larger of the message size and the cycle buffer, rounded up to the cache line. */
static uint64_t half_buffer(uint32_t size)
{
	uint64_t b = size < PT_CYCLE_BUFFER ? PT_CYCLE_BUFFER : size;
	return (b + PT_CACHE_LINE - 1) / PT_CACHE_LINE * PT_CACHE_LINE;
}

static void set_buffer(struct session *s, unsigned caps, uint32_t dut_size)
{
	uint64_t b = half_buffer(dut_size);
	s->qp.has_mr = true;
	s->qp.mr_len = 2 * b;
	s->qp.va -= b;              /* the advertised address is the buffer's start + B */
	s->qp.caps = caps;
	s->qp.dut_sends = false;
	s->qp.dut_ack_timeout_ms = PT_ACK_TIMEOUT_MS;
	s->qp.dut_retry_cnt = 7;
	s->qp.dut_rnr_retry = 7;
}

static int pt_connect(struct session *s, uint16_t port, unsigned caps, uint32_t def_size, char err[CONF_ERRLEN])
{
	char ver[PT_VERSION_LEN] = PT_VERSION, rver[PT_VERSION_LEN + 1] = "", key[PT_KEY_LEN + 1];
	uint8_t mine[4], theirs[4];
	unsigned reads;

	setup_choose_qp(s);
	int fd = setup_tcp_connect(s, port, err);
	if (fd < 0)
		return -1;
	if (xchg(s, fd, ver, rver, PT_VERSION_LEN, err) < 0)
		goto fail;
	if (strtod(rver, NULL) < 5.70) {  /* not a number: 0 */
		snprintf(err, CONF_ERRLEN, "perftest server version \"%.16s\": versions before 5.70 are not supported", rver);
		goto fail;
	}
	uint32_t v[2] = {PT_CYCLE_BUFFER, PT_CACHE_LINE};
	for (int i = 0; i < 2; i++) {
		mine[0] = (uint8_t)(v[i] >> 24);
		mine[1] = (uint8_t)(v[i] >> 16);
		mine[2] = (uint8_t)(v[i] >> 8);
		mine[3] = (uint8_t)v[i];
		if (xchg(s, fd, mine, theirs, 4, err) < 0)
			goto fail;
	}
	unsigned want = asked_pmtu(s);
	char mtu[2] = {(char)('0' + mtu_code(want)), 0}, rmtu[2];
	if (xchg(s, fd, mtu, rmtu, 2, err) < 0)
		goto fail;
	s->qp.pmtu = agreed_pmtu(want, rmtu);
	for (int round = 0; round < 3; round++) {
		if (key_round(s, fd, key, err) < 0)
			goto fail;
		key[PT_KEY_LEN] = 0;
		if (round == 0 && parse_key(s, key, &reads, err) < 0)
			goto fail;
	}
	set_buffer(s, caps, s->o->dut_size ? s->o->dut_size : def_size);
	s->qp.dut_max_rd = reads;
	s->tcp_fd = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

/* The client's end of a run: a key round, the bandwidth report, a key round and "done". */
static void pt_finish(struct session *s)
{
	char key[PT_KEY_LEN], err[CONF_ERRLEN];
	uint8_t zero[8] = {0}, theirs[8];
	int fd = s->tcp_fd;
	if (fd < 0)
		return;
	s->tcp_fd = -1;
	if (key_round(s, fd, key, err) == 0) {
		int i;
		for (i = 0; i < 5 && xchg(s, fd, zero, theirs, 8, err) == 0; i++)
			;
		if (i == 5 && key_round(s, fd, key, err) == 0)
			setup_tcp_write(fd, "done", 5, err);
	}
	close(fd);
}

static int pt_write(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	return pt_connect(s, port, setup_perftest_write.caps, 65536, err);
}
static int pt_read(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	return pt_connect(s, port, setup_perftest_read.caps, 65536, err);
}
static int pt_atomic(struct session *s, uint16_t port, char err[CONF_ERRLEN])
{
	return pt_connect(s, port, setup_perftest_atomic.caps, 8, err);
}

static void placeholder(struct session *s, unsigned caps, uint32_t def_size)
{
	setup_choose_qp(s);
	s->qp.dut_qpn = 0x000011;
	s->qp.dut_psn = 0;
	s->qp.rkey = 0x00001234;
	s->qp.va = 0x7f0000000000ULL + half_buffer(s->o->dut_size ? s->o->dut_size : def_size);
	s->qp.dut_max_rd = 1;
	addr_gid(&s->o->dut, s->qp.dut_gid);
	set_buffer(s, caps, s->o->dut_size ? s->o->dut_size : def_size);
	s->qp.pmtu = asked_pmtu(s);
}
static void ph_write(struct session *s) { placeholder(s, setup_perftest_write.caps, 65536); }
static void ph_read(struct session *s) { placeholder(s, setup_perftest_read.caps, 65536); }
static void ph_atomic(struct session *s) { placeholder(s, setup_perftest_atomic.caps, 8); }

const struct setup_method setup_perftest_write = {
	.name = "perftest-write", .default_port = 18515,
	.caps = NEED_MR_WRITE | NEED_MR_ANY | NEED_PROBE,
	.server = "ib_write_bw -x GIDX [-s SIZE] (perftest 4.5, without -R)",
	.connect = pt_write, .finish = pt_finish, .placeholder = ph_write,
};
const struct setup_method setup_perftest_read = {
	.name = "perftest-read", .default_port = 18515,
	.caps = NEED_MR_READ | NEED_MR_ANY | NEED_PROBE,
	.server = "ib_read_bw -x GIDX [-s SIZE] (perftest 4.5, without -R)",
	.connect = pt_read, .finish = pt_finish, .placeholder = ph_read,
};
const struct setup_method setup_perftest_atomic = {
	.name = "perftest-atomic", .default_port = 18515,
	.caps = NEED_MR_ATOMIC | NEED_PROBE,
	.server = "ib_atomic_bw -x GIDX (perftest 4.5, without -R)",
	.connect = pt_atomic, .finish = pt_finish, .placeholder = ph_atomic,
};
