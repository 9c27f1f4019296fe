/* conform.h: roceconform's shared types: the options, the queue pair a setup brings up, the
 * verdicts with their evidence, and the test descriptor of the catalogue (catalogue.c). Each
 * module's own functions are declared in its header (link.h, session.h, setup.h, verdict.h,
 * report.h). */
#ifndef CONFORM_H
#define CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONF_ERRLEN 256
#define CONF_MAX_PPS 10000        /* the hard cap on --pps */
#define CONF_DEFAULT_PPS 1000
#define CONF_MAX_SSH_OPTS 8       /* --dut-ssh-opt given at most this often */

/* Exit statuses (README "Exit status"). */
enum { EXIT_CONF_PASS = 0, EXIT_CONF_FAIL = 1, EXIT_CONF_USAGE = 2, EXIT_CONF_INCONCLUSIVE = 3 };

/* An IPv4 (family 4, address in ip[0..3]) or IPv6 (family 6) address. */
struct conf_addr {
	int family;
	uint8_t ip[16];
};

/* Deliberate faults for the tester's own self-tests (--fault): each breaks the run on purpose so
 * that the suite shows its verdicts can fail. */
enum conf_fault { FAULT_NONE = 0, FAULT_PSN, FAULT_QPN };

struct conf_opts {
	const char *iface;
	struct conf_addr dut, local;
	bool have_dut, have_local;
	uint8_t dut_mac[6], local_mac[6];
	bool have_dut_mac, have_local_mac;
	const char *setup;          /* METHOD[:PORT] */
	unsigned pmtu;              /* the DUT's path MTU (bytes) */
	unsigned recv_size;         /* the DUT's receive buffer (rc-pingpong -s) */
	unsigned dut_size;          /* the perftest server's -s (0: its default) */
	int vlan;                   /* -1: untagged */
	unsigned pcp, dscp;
	unsigned pps;
	unsigned test_timeout_ms;   /* per test */
	unsigned total_timeout_s;   /* the whole run */
	unsigned setup_timeout_s;   /* connecting to the DUT's server, per test */
	unsigned tolerance_pct;     /* timing verdicts: how far late a timer may fire */
	const char *tests;          /* --tests list of IDs and prefixes */
	unsigned repeat;
	bool no_rerun;              /* --no-rerun: a FAIL on answers not seen stands (main.c rerun()) */
	bool list;
	bool list_markdown;         /* --format markdown: --list as a document */
	const char *dry_run;        /* FILE.pcap */
	const char *json, *junit, *pcap_dir, *expect;
	const char *capture_filter; /* replaces the default BPF filter */
	bool ecn, pfc;              /* the DUT is declared to do ECN->CNP / PFC */
	bool dut_cc;                /* the DUT is declared to react to CNPs (--dut-cc) */
	unsigned pfc_prio;
	enum conf_fault fault;
	bool verbose;
	bool allow_host_stack;      /* the local address is the host's own and nothing keeps 4791 */
	const char *dut_ssh;        /* --dut-ssh USER@HOST[:PORT]: the DUT agent (agent.h) */
	const char *dut_ssh_key;    /* --dut-ssh-key FILE */
	const char *dut_ssh_opts[CONF_MAX_SSH_OPTS];   /* --dut-ssh-opt OPTION, each passed as ssh -o */
	size_t n_dut_ssh_opts;
};

/* The queue pair a setup brought up (or the dry run's placeholders). */
struct conf_qp {
	uint32_t my_qpn;            /* the tester's QPN, as advertised */
	uint32_t my_psn;            /* the tester's first PSN: the DUT's first ePSN */
	uint32_t dut_qpn, dut_psn;  /* the DUT's QPN and the first PSN it sends */
	uint8_t dut_gid[16];
	bool has_mr;                /* the setup gave a remote buffer */
	uint32_t rkey;
	uint64_t va, mr_len;        /* the buffer's start and length */
	unsigned caps;              /* the NEED_* bits this setup satisfies */
	bool dut_sends;             /* the DUT answers our first message with its own SEND */
	uint32_t dut_send_len;      /* its length */
	double dut_ack_timeout_ms;  /* the DUT QP's local ACK timeout, when the setup fixes it */
	unsigned dut_retry_cnt, dut_rnr_retry;
	unsigned dut_max_rd;        /* the DUT's max_dest_rd_atomic, when the setup says */
	unsigned pmtu;              /* the path MTU the QP came up with (0: --pmtu) */
};

enum conf_verdict { V_PASS = 0, V_FAIL, V_INCONCLUSIVE, V_NA };
const char *verdict_name(enum conf_verdict v);   /* "PASS", "FAIL", "INCONCLUSIVE", "N/A" */

#define EVIDENCE_LEN 1024
struct conf_result {
	enum conf_verdict v;
	const char *rule;           /* the rule checked (spec section or behaviour) */
	char expected[EVIDENCE_LEN];
	char observed[EVIDENCE_LEN];
	char reason[EVIDENCE_LEN];  /* N/A and INCONCLUSIVE: why */
	double measured_ms;         /* a timing the test measured, or -1 */
	double tolerance_pct;       /* its tolerance, or -1 */
	int64_t t_ref;              /* the test's first stimulus: response times are given from it */
	bool missing;               /* a FAIL resting only on answers not seen (every one seen was right):
				     * lost on the path, or never sent; the run asks again (main.c) */
	bool expected_deviation;    /* --expect listed this verdict for this test */
	bool unexpected_pass;       /* --expect listed FAIL or INCONCLUSIVE and the test passed */
	enum conf_verdict expect_v; /* the verdict --expect listed (with either flag) */
	char expect_reason[256];
};

struct session;

/* What a test needs from the setup and the DUT. */
enum {
	NEED_SEND = 1u << 0,        /* a responder QP with receives posted (SEND) */
	NEED_DUT_REQ = 1u << 1,     /* the DUT sends requests of its own (it is a requester) */
	NEED_MR_WRITE = 1u << 2,    /* a remote buffer the DUT lets us WRITE */
	NEED_MR_READ = 1u << 3,     /* ... READ */
	NEED_MR_ATOMIC = 1u << 4,   /* ... atomics on */
	NEED_NO_ACCESS = 1u << 5,   /* a QP that grants no remote access at all */
	NEED_ECN = 1u << 6,         /* the DUT does ECN -> CNP (--ecn) */
	NEED_PFC = 1u << 7,         /* the DUT does PFC (--pfc PRIO) */
	NEED_PROBE = 1u << 8,       /* any request the DUT answers (SEND, WRITE or READ) */
	NEED_DUT_READ = 1u << 9,    /* the DUT issues RDMA READs of its own */
	NEED_MR_ANY = 1u << 10,     /* a remote buffer we may WRITE or READ */
	NEED_ROCEV1 = 1u << 11,     /* a DUT QP on a RoCEv1 GID (no setup of this version brings one up) */
	NEED_UC = 1u << 12,         /* a UC QP (uc-pingpong): every other test needs an RC QP */
	NEED_UD = 1u << 13,         /* a UD QP (ud-pingpong) */
	NEED_CC = 1u << 16,         /* the DUT reacts to CNPs: RoCE congestion management (--dut-cc) */
	NEED_TWO_QPS = 1u << 15,    /* two RC QPs at once: the DUT agent starts a second rc-pingpong server */
	NEED_UD_BUF = 1u << 14,     /* a DUT server that shows a UD receive's first 40 bytes (none: no stock tool sends them) */
};

/* The kinds of verdict a test gives: what counts as PASS, FAIL and INCONCLUSIVE (listing.c). */
enum conf_kind {
	K_ACK, K_ACKS, K_NAK, K_DROP, K_GOBACK, K_READ, K_ATOMIC, K_RETRY, K_RESEND, K_RNR, K_QUIET, K_GHOST,
	K_FATAL, K_CNP, K_NOCNP, K_PFC, K_HDR, K_CMPSWAP, K_SEGS, K_CNPS, K_V1, K_SPREAD, K_UCACK, K_UCGAP, K_REREAD, K_QKEYDROP, K_QKEYOK, K_UDGRH, K_ISOL, K_RATE, K_NONE
};

struct conf_test {
	const char *id;             /* "A1" */
	const char *title;          /* one line */
	const char *rule;           /* spec rule or behaviour */
	unsigned needs;             /* NEED_* */
	uint32_t start_psn;         /* the tester's first PSN, 0 = any */
	bool has_start_psn;
	void (*run)(struct session *s, struct conf_result *r);
	const char *ibta_id;        /* IBTA compliance statements ("CA17-22, CA17-24"), NULL: none cited */
	const char *ibta_section;   /* the IBTA section, NULL: not an IBTA rule (G1: IEEE 802.1Qbb) */
	enum conf_kind kind;
	unsigned pmtu;              /* the path MTU the setup asks for (0: --pmtu) */
};

extern const struct conf_test conf_tests[];
extern const size_t conf_n_tests;

#endif
