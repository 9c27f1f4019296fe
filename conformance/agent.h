/* agent.h: the DUT agent over SSH (--dut-ssh USER@HOST[:PORT], agent.c). OpenSSH's ssh, key-based
 * and with one shared connection (ControlMaster in a private temporary directory), runs on the DUT
 * the server each test's setup needs (started before the test, killed after it), reads the DUT's
 * facts once (kernel, driver and firmware, ibv_devinfo, the GID of the DUT's address) and the NIC's
 * counters before and after every test: the non-zero deltas are the test's counter evidence, and a
 * verdict the counters contradict is flagged (agent_contradiction()), never changed. */
#ifndef CONFORM_AGENT_H
#define CONFORM_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "conform.h"

struct session;
struct setup_method;

#define AGENT_MAX_FACTS 40
#define AGENT_NAME_LEN 64

/* One fact about the DUT ("kernel", "ethtool.driver", "ibv.fw_ver", ...). */
struct agent_fact {
	char key[32];
	char value[160];
};

/* A counter read on the DUT: "rdma:NAME" (the RDMA port's hw_counters) or "ethtool:NAME"
 * (ethtool -S of its network device). */
struct agent_counter {
	char name[AGENT_NAME_LEN];
	uint64_t value;
};
struct agent_counters {
	struct agent_counter *c;
	size_t n, cap;
};

/* A counter's change over a test (non-zero only). */
struct agent_delta {
	char name[AGENT_NAME_LEN];
	int64_t delta;
};

/* What a counter means to a verdict (agent_role(): per driver, one table). */
enum agent_role {
	AR_NONE = 0,
	AR_RCVD_OK,          /* packets past the header and ICRC checks */
	AR_SENT,             /* packets sent */
	AR_OUT_OF_SEQ,       /* responder: out-of-sequence requests (NAK-Seq sent) */
	AR_DUPLICATE,        /* responder: duplicate requests */
	AR_SEQ_NAK_RCVD,     /* requester: NAK-Seq received */
	AR_IMPLIED_NAK,      /* requester: implied NAK sequence errors */
	AR_RNR_NAK_RCVD,     /* requester: RNR NAKs received */
	AR_RNR_NAK_SENT,     /* responder: RNR NAKs sent */
	AR_ACK_TIMEOUT,      /* requester: local ACK timeouts */
	AR_RETRY_EXCEEDED,   /* requester: retry count exceeded */
	AR_RNR_RETRY_EXCEEDED,
	AR_COMPLETER_RETRY,  /* requester: retransmissions */
	AR_ACK_DEFERRED,
	AR_SEND_ERR,
	AR_LINK_DOWNED,
	AR_RDMA_SENDS,
	AR_RDMA_RECVS,
	AR_CNP_SENT,         /* ECN: CNPs sent (notification point) */
	AR_CNP_HANDLED,      /* ECN: CNPs handled (reaction point) */
	AR_PFC_RX,           /* PFC pause frames received, per priority */
	AR_PFC_TX,
};

struct agent {
	bool on;
	char user[64], host[256];
	unsigned port;                  /* 0: ssh's default */
	const char *key;                /* --dut-ssh-key, or NULL (ssh's own keys) */
	const char *const *opts;        /* --dut-ssh-opt, passed as -o before roceconform's own */
	size_t n_opts;
	char dir[64];                   /* private directory of the control socket */
	char ctl[96], ctl_opt[112];     /* its path; "ControlPath=PATH" */
	char port_s[8];
	char ssh[256];                  /* ssh's path, found in PATH when the agent opens */
	struct agent_fact facts[AGENT_MAX_FACTS];
	size_t n_facts;
	char dev[64], netdev[64], driver[64];
	unsigned ib_port, gid_index;
	struct agent_counters before;
	bool have_before;
	long server_pid;                /* the DUT server started for the running test, or 0 */
	unsigned n_servers;             /* servers of the setup to start, on port, port + 1...: 0 or 1 one, 2 two */
	unsigned server_limit_s;        /* its time limit on the DUT (a safety net: it is killed after the test) */
	char kill_cmd[512];             /* the command that kills the server, for the signal handler */
	char *sig_argv[48];             /* ssh's argv for the signal handler ("kill PID"), built ahead of time */
	char *exit_argv[48];            /* ... and the one that ends the shared connection */
};

/* Parse "USER@HOST[:PORT]" ("[V6]:PORT" too; USER@ may be left out). 0, or -1 with the reason. */
int agent_parse_target(struct agent *a, const char *spec, char err[CONF_ERRLEN]);
/* Connect (the shared connection), then read the DUT's facts: the RDMA device, port and GID index
 * of dut's RoCE v2 GID, its network device and driver. 0, or -1 with the reason (unreachable,
 * the key refused or missing, no such GID). */
int agent_open(struct agent *a, const struct conf_opts *o, char err[CONF_ERRLEN]);
/* Before a test: read the counters, start the server of setup m on port (0 when the setup needs
 * none); a->n_servers 2: a second one on port + 1, both under one shell that ends them when it is
 * killed. 0, or -1 with the reason. */
int agent_test_begin(struct agent *a, const struct conf_opts *o, const struct setup_method *m, uint16_t port,
		     char err[CONF_ERRLEN]);
/* After a test: kill its server, read the counters; the non-zero deltas in *out (malloc'ed, *n). */
int agent_test_end(struct agent *a, struct agent_delta **out, size_t *n, char err[CONF_ERRLEN]);
/* Kill what the agent started, end the shared connection, remove the private directory. */
void agent_close(struct agent *a);
/* The same from a signal handler (async-signal-safe: fork, execv, waitpid, rmdir). */
void agent_on_signal(struct agent *a);

/* The facts as "key=value" lines into a->facts; 0, or -1 with the reason (an "error=" line). */
int agent_parse_facts(struct agent *a, const char *text, char err[CONF_ERRLEN]);
const char *agent_fact(const struct agent *a, const char *key);
/* Parse "NAME VALUE" lines (the counter snapshot) into c (replacing its contents). The count read. */
size_t agent_parse_counters(const char *text, struct agent_counters *c);
void agent_counters_free(struct agent_counters *c);
/* The non-zero changes from before to after (a counter new in after counts from 0), into out
 * (malloc'ed): their number. */
size_t agent_deltas(const struct agent_counters *before, const struct agent_counters *after, struct agent_delta **out);
/* What counter name means on driver ("rdma_rxe", "mlx5_core", ...), and its one-line meaning. */
enum agent_role agent_role(const char *driver, const char *name, const char **meaning);
/* Whether the counter deltas contradict test t's verdict r on driver (e.g. a silent drop that
 * passed while the DUT counted every packet sent, the spoiled one included, as received):
 * the reason in why, or false. sent: the tester's RoCE packets to the DUT during the test. */
bool agent_contradiction(const char *driver, const struct conf_test *t, const struct conf_result *r,
			 const struct agent_delta *d, size_t n, unsigned sent, char *why, size_t wn);
/* The tester's RoCE packets (UDP port 4791) of a session. */
unsigned agent_roce_sent(const struct session *s);

#endif
