/* setup.h: how a live RC queue pair is brought up with a DUT that runs only stock software
 * (--setup METHOD[:PORT]). One file per method: setup_rcpp.c (ibv_rc_pingpong's TCP exchange, and
 * ibv_uc_pingpong's and ibv_ud_pingpong's, the same, for a UC or a UD QP),
 * setup_perftest.c (a perftest server's), setup_rdmacm.c (rping -s: the RDMA-CM REQ/REP/RTU exchange
 * over QP1, then rping's messages). setup.c also has the TCP helpers they share, which keep answering
 * ARP/ND while they wait (the DUT resolves the tester's address while it brings its QP up). */
#ifndef CONFORM_SETUP_H
#define CONFORM_SETUP_H

#include "session.h"

struct setup_method {
	const char *name;           /* "rc-pingpong" */
	uint16_t default_port;
	unsigned caps;              /* NEED_* it satisfies */
	const char *server;         /* what runs on the DUT */
	/* Bring the QP up: fill s->qp, leave s->tcp_fd open or -1. 0, or -1 with the reason in err. */
	int (*connect)(struct session *s, uint16_t port, char err[CONF_ERRLEN]);
	/* End the DUT server's run cleanly after a test (ACK its SEND, end its exchange). */
	void (*finish)(struct session *s);
	/* Placeholders for a dry run. */
	void (*placeholder)(struct session *s);
};

/* The method of spec "METHOD[:PORT]" and its port; NULL with the reason in err. */
const struct setup_method *setup_find(const char *spec, uint16_t *port, char err[CONF_ERRLEN]);
/* Print the methods, one a line. */
void setup_list(void);

/* Shared by the methods. */
int setup_tcp_connect(struct session *s, uint16_t port, char err[CONF_ERRLEN]);
/* Read exactly n bytes (or up to a NUL when until_nul) within the setup timeout, answering ARP/ND
 * meanwhile. 0, or -1 with the reason in err. */
int setup_tcp_read(struct session *s, int fd, void *buf, size_t n, char err[CONF_ERRLEN]);
int setup_tcp_write(int fd, const void *buf, size_t n, char err[CONF_ERRLEN]);
/* The tester's GID (IPv4-mapped for IPv4) as 32 hex digits. */
void setup_wire_gid(const struct conf_addr *a, char out[33]);
/* Parse 32 hex digits into a GID. 0, or -1. */
int setup_parse_gid(const char *hex, uint8_t gid[16]);
/* The tester's QPN and first PSN for this test. */
void setup_choose_qp(struct session *s);

/* The methods. */
extern const struct setup_method setup_rc_pingpong, setup_uc_pingpong, setup_ud_pingpong;
extern const struct setup_method setup_perftest_write, setup_perftest_read, setup_perftest_atomic;
extern const struct setup_method setup_rdma_cm;

/* ud-pingpong (setup_rcpp.c): ibv_ud_pingpong's Q_Key, a UD SEND_ONLY to its QP carrying qkey
 * in its DETH (our QPN as the source QP), and the server's -s: recv_size, at most the PMTU (the
 * server refuses a size above its port's MTU). */
#define UDPP_QKEY 0x11111111u
void udpp_stim(struct session *s, struct stim *st, uint32_t qkey);
uint32_t udpp_size(const struct conf_opts *o);

/* rdma-cm (setup_rdmacm.c): rping's exchange from the client's side. */
/* SEND the tester's source buffer (rping_rdma_info): the server READs it. 0 or -1. */
int rdmacm_advertise(struct session *s, const char *why);
/* Answer the DUT's READ of len bytes at va (its request at psn) from the tester's buffer: READ
 * responses at the QP's PMTU, all but packet number skip (-1: none). */
void rdmacm_read_respond(struct session *s, uint32_t psn, uint64_t va, uint32_t len, long skip, const char *why);
/* The test answered what the DUT sent so far (msgs of its messages completed): the finish step
 * serves only what follows. */
void rdmacm_served(struct session *s, unsigned msgs);
/* A READ request of the DUT. */
bool pred_read_request(const struct resp *r, const void *arg);

#endif
