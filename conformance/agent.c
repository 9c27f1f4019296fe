/* agent.c: the DUT agent over SSH (see agent.h and README.md "The DUT agent"). Every remote step
 * is one ssh command through the shared connection: the probe (facts), per test "counters, then
 * start the server" and "kill the server, then counters". The remote side needs only a POSIX
 * shell, sysfs, and the tools the setups use (ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong, perftest,
 * rping), ethtool and ibv_devinfo. */
#include "agent.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "options.h"
#include "session.h"
#include "setup.h"

#define AGENT_CONNECT_TIMEOUT "ConnectTimeout=10"
#define AGENT_PROBE_MS 90000      /* the probe reads the whole GID table: slow on an emulated DUT */
#define AGENT_STEP_MS 60000
/* The remote shell finds the admin tools (ethtool) of a non-root login too. */
#define AGENT_PATH "PATH=$PATH:/usr/sbin:/sbin; "

int agent_parse_target(struct agent *a, const char *spec, char err[CONF_ERRLEN])
{
	const char *at = strrchr(spec, '@'), *h = at ? at + 1 : spec, *colon;
	size_t hl;
	a->user[0] = 0;
	if (at && ((size_t)(at - spec) >= sizeof(a->user) || at == spec))
		goto bad;
	if (at)
		snprintf(a->user, sizeof(a->user), "%.*s", (int)(at - spec), spec);
	if (*h == '[') {   /* [IPv6]:PORT */
		const char *end = strchr(h, ']');
		if (!end)
			goto bad;
		hl = (size_t)(end - h - 1);
		h++;
		colon = end[1] == ':' ? end + 1 : end[1] ? NULL : end + 1;
		if (!colon)
			goto bad;
	} else {
		colon = strchr(h, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;   /* a bare IPv6 address: no port */
		hl = colon ? (size_t)(colon - h) : strlen(h);
	}
	if (!hl || hl >= sizeof(a->host) || *h == '-' || (a->user[0] == '-'))
		goto bad;
	snprintf(a->host, sizeof(a->host), "%.*s", (int)hl, h);
	a->port = 0;
	if (colon && *colon == ':') {
		char *end;
		long p = strtol(colon + 1, &end, 10);
		if (!colon[1] || *end || p < 1 || p > 65535)
			goto bad;
		a->port = (unsigned)p;
	}
	return 0;
bad:
	snprintf(err, CONF_ERRLEN, "--dut-ssh: \"%s\" is not USER@HOST[:PORT]", spec);
	return -1;
}

/* ssh's options: the user's (-o: ssh takes the first value it is given), then ours. */
static size_t base_argv(struct agent *a, char **v)
{
	size_t n = 0;
	v[n++] = a->ssh;
	for (size_t i = 0; i < a->n_opts; i++) {
		v[n++] = (char *)"-o";
		v[n++] = (char *)a->opts[i];
	}
	static const char *const ours[] = {"BatchMode=yes", AGENT_CONNECT_TIMEOUT, "ControlMaster=auto",
					   "ControlPersist=300", "ServerAliveInterval=10", "ServerAliveCountMax=3"};
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		v[n++] = (char *)"-o";
		v[n++] = (char *)ours[i];
	}
	v[n++] = (char *)"-o";
	v[n++] = a->ctl_opt;
	if (a->key) {
		v[n++] = (char *)"-i";
		v[n++] = (char *)a->key;
		v[n++] = (char *)"-o";
		v[n++] = (char *)"IdentitiesOnly=yes";
	}
	if (a->port) {
		v[n++] = (char *)"-p";
		v[n++] = a->port_s;
	}
	if (a->user[0]) {
		v[n++] = (char *)"-l";
		v[n++] = a->user;
	}
	v[n++] = (char *)"-T";
	return n;
}

/* The full argv: options, extra (NULL-terminated, or NULL), "--", the host, cmd (or none). */
static void make_argv(struct agent *a, char **v, const char *const *extra, const char *cmd)
{
	size_t n = base_argv(a, v);
	for (; extra && *extra; extra++)
		v[n++] = (char *)*extra;
	v[n++] = (char *)"--";
	v[n++] = a->host;
	if (cmd)
		v[n++] = (char *)cmd;
	v[n] = NULL;
}

static int64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Append what fd has to buf (NUL-terminated, at most n - 1 bytes kept); false at end of file. */
static bool drain(int fd, char *buf, size_t n, size_t *len)
{
	char tmp[4096];
	ssize_t r = read(fd, tmp, sizeof(tmp));
	if (r < 0)
		return errno == EINTR || errno == EAGAIN;
	if (r == 0)
		return false;
	size_t k = (size_t)r < n - 1 - *len ? (size_t)r : n - 1 - *len;
	memcpy(buf + *len, tmp, k);
	*len += k;
	buf[*len] = 0;
	return true;
}

/* The last non-empty line of text, into out. */
static void last_line(const char *text, char *out, size_t n)
{
	const char *end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	const char *start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(out, n, "%.*s", (int)(end - start), start);
}

/* Run argv (ssh), its standard output into out (n bytes, NUL-terminated), within ms. Its exit
 * status (255: ssh's own failure), or -1; err says why when it is not 0. */
static int run(struct agent *a, char **argv, char *out, size_t n, int ms, char err[CONF_ERRLEN])
{
	int po[2], pe[2];
	char ebuf[2048] = "", line[512];
	size_t olen = 0, elen = 0;
	out[0] = 0;
	if (pipe(po) < 0) {
		snprintf(err, CONF_ERRLEN, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe(pe) < 0) {
		snprintf(err, CONF_ERRLEN, "pipe: %s", strerror(errno));
		close(po[0]);
		close(po[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(a->ssh, argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		snprintf(err, CONF_ERRLEN, "fork: %s", strerror(errno));
		return -1;
	}
	int64_t deadline = mono_ms() + ms;
	bool open_o = true, open_e = true, timed_out = false;
	int status = 0;
	while (open_o || open_e) {
		struct pollfd p[2] = {{.fd = open_o ? po[0] : -1, .events = POLLIN}, {.fd = open_e ? pe[0] : -1, .events = POLLIN}};
		int64_t left = deadline - mono_ms();
		if (left <= 0) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		int ready = poll(p, 2, left > 200 ? 200 : (int)left);
		if (ready < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			open_o = drain(po[0], out, n, &olen);
		if (p[1].revents)
			open_e = drain(pe[0], ebuf, sizeof(ebuf), &elen);
		/* idle, ssh gone, and something it started still holds the pipes: what is there is all */
		if (ready == 0 && waitpid(pid, &status, WNOHANG) == pid) {
			pid = -1;
			break;
		}
	}
	close(po[0]);
	close(pe[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (timed_out) {
		snprintf(err, CONF_ERRLEN, "no answer from the DUT agent %.100s within %d s", a->host, ms / 1000);
		return -1;
	}
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
	if (rc) {
		last_line(ebuf, line, sizeof(line));
		snprintf(err, CONF_ERRLEN, "%.200s%s", line[0] ? line : "exit status ", line[0] ? "" : rc == 127 ? "127 (ssh not run)" : "non-zero");
	}
	return rc;
}

/* Run a command on the DUT through the shared connection. */
static int remote(struct agent *a, const char *cmd, char *out, size_t n, int ms, char err[CONF_ERRLEN])
{
	char *v[64];
	make_argv(a, v, NULL, cmd);
	return run(a, v, out, n, ms, err);
}

static int find_ssh(struct agent *a, char err[CONF_ERRLEN])
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, ":");
		snprintf(a->ssh, sizeof(a->ssh), "%.*s/ssh", (int)len, p);
		if (len && access(a->ssh, X_OK) == 0)
			return 0;
		p += len + (p[len] == ':');
	}
	snprintf(err, CONF_ERRLEN, "--dut-ssh: no ssh (OpenSSH's client) in PATH");
	return -1;
}

/* The DUT's GID of its address as sysfs writes it: 8 groups of 4 hex digits. */
static void sysfs_gid(const struct conf_addr *dut, char out[40])
{
	char hex[33];
	setup_wire_gid(dut, hex);
	for (size_t i = 0; i < 8; i++)
		snprintf(out + 5 * i, 6, "%.4s%s", hex + 4 * i, i < 7 ? ":" : "");
}

/* The probe: the RDMA device, port and index of the DUT address's RoCE v2 GID, its network
 * device and driver, the kernel, ethtool -i, ibv_devinfo (one "key=value" a line). */
static void probe_cmd(const struct conf_opts *o, char *cmd, size_t n)
{
	char gid[40];
	sysfs_gid(&o->dut, gid);
	snprintf(cmd, n, AGENT_PATH "g=%s; d=; "
		 "for f in /sys/class/infiniband/*/ports/*/gids/*; do read -r v < \"$f\" 2>/dev/null || continue; "
		 "[ \"$v\" = \"$g\" ] || continue; p=${f%%/gids/*}; i=${f##*/}; "
		 "read -r t < \"$p/gid_attrs/types/$i\" 2>/dev/null; case \"$t\" in *v2*|*V2*) ;; *) continue;; esac; "
		 "d=${p%%/ports/*}; d=${d##*/}; read -r nd < \"$p/gid_attrs/ndevs/$i\" 2>/dev/null; "
		 "echo \"rdma_device=$d\"; echo \"port=${p##*/}\"; echo \"gid_index=$i\"; echo \"gid=$g\"; echo \"netdev=$nd\"; break; done; "
		 "[ -n \"$d\" ] || { echo \"error=the DUT has no RoCE v2 GID $g (/sys/class/infiniband/*/ports/*/gids)\"; exit 0; }; "
		 "echo \"kernel=$(uname -r)\"; dr=$(readlink -f /sys/class/infiniband/$d/device/driver 2>/dev/null); "
		 "[ -n \"$dr\" ] || { [ -e /sys/class/infiniband/$d/parent ] && [ -d /sys/module/rdma_rxe ] && dr=rdma_rxe; }; "
		 "echo \"rdma_driver=${dr##*/}\"; "
		 "ethtool -i \"$nd\" 2>/dev/null | sed -n 's/^\\([a-z-]*\\): *\\(.*\\)$/ethtool.\\1=\\2/p'; "
		 "ibv_devinfo -d \"$d\" -i \"${p##*/}\" 2>/dev/null | sed -n 's/^[[:space:]]*\\([a-z_]*\\):[[:space:]]*\\(.*\\)$/ibv.\\1=\\2/p'",
		 gid);
}

/* The counter snapshot: the port's hw_counters, then ethtool -S of its network device. */
static void counters_cmd(const struct agent *a, char *cmd, size_t n)
{
	snprintf(cmd, n, "for f in /sys/class/infiniband/%s/ports/%u/hw_counters/*; do "
		 "read -r v < \"$f\" 2>/dev/null && echo \"rdma:${f##*/} $v\"; done; "
		 "ethtool -S %s 2>/dev/null | sed -n 's/^[[:space:]]*\\([^:]*[^: ]\\):[[:space:]]*\\([0-9][0-9]*\\)$/ethtool:\\1 \\2/p'; ",
		 a->dev, a->ib_port, a->netdev);
}

static const char *const fact_keys[] = {
	"kernel", "rdma_device", "rdma_driver", "port", "gid_index", "gid", "netdev",
	"ethtool.driver", "ethtool.version", "ethtool.firmware-version", "ethtool.bus-info",
	"ibv.transport", "ibv.fw_ver", "ibv.node_guid", "ibv.vendor_id", "ibv.vendor_part_id", "ibv.hw_ver",
	"ibv.board_id", "ibv.phys_port_cnt", "ibv.state", "ibv.max_mtu", "ibv.active_mtu", "ibv.link_layer",
};

/* A device name safe in a shell command line (letters, digits, "_.:-"). */
static bool name_ok(const char *s)
{
	if (!*s || strlen(s) >= 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.:-", *s))
			return false;
	return true;
}

int agent_parse_facts(struct agent *a, const char *text, char err[CONF_ERRLEN])
{
	a->n_facts = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n"), klen = strcspn(p, "=\n");
		if (klen < len && klen == 5 && !strncmp(p, "error", 5)) {
			snprintf(err, CONF_ERRLEN, "%.*s", (int)(len - 6), p + 6);
			return -1;
		}
		for (size_t i = 0; klen < len && i < sizeof(fact_keys) / sizeof(fact_keys[0]); i++) {
			if (strlen(fact_keys[i]) != klen || strncmp(fact_keys[i], p, klen) != 0 || a->n_facts >= AGENT_MAX_FACTS)
				continue;
			struct agent_fact *f = &a->facts[a->n_facts++];
			snprintf(f->key, sizeof(f->key), "%s", fact_keys[i]);
			snprintf(f->value, sizeof(f->value), "%.*s", (int)(len - klen - 1), p + klen + 1);
		}
		p += len + (p[len] == '\n');
	}
	const char *dev = agent_fact(a, "rdma_device"), *port = agent_fact(a, "port"), *gidx = agent_fact(a, "gid_index");
	if (!dev || !port || !gidx) {
		snprintf(err, CONF_ERRLEN, "the DUT's probe said nothing about its RDMA device (no POSIX shell or sysfs?)");
		return -1;
	}
	const char *netdev = agent_fact(a, "netdev") ? agent_fact(a, "netdev") : "";
	if (!name_ok(dev) || !name_ok(netdev)) {   /* they go into the DUT's command lines */
		snprintf(err, CONF_ERRLEN, "the DUT's device names \"%s\", \"%s\" are not plain names", dev, netdev);
		return -1;
	}
	snprintf(a->dev, sizeof(a->dev), "%s", dev);
	snprintf(a->netdev, sizeof(a->netdev), "%s", netdev);
	snprintf(a->driver, sizeof(a->driver), "%s", agent_fact(a, "rdma_driver") ? agent_fact(a, "rdma_driver") : "");
	a->ib_port = (unsigned)strtoul(port, NULL, 10);
	a->gid_index = (unsigned)strtoul(gidx, NULL, 10);
	return 0;
}

const char *agent_fact(const struct agent *a, const char *key)
{
	for (size_t i = 0; i < a->n_facts; i++)
		if (!strcmp(a->facts[i].key, key))
			return a->facts[i].value;
	return NULL;
}

size_t agent_parse_counters(const char *text, struct agent_counters *c)
{
	c->n = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		const char *sp = NULL;
		for (const char *q = p; q < p + len; q++)
			if (*q == ' ')
				sp = q;   /* the last space: names may hold spaces */
		char *end;
		if (sp && sp > p && (size_t)(sp - p) < AGENT_NAME_LEN && sp[1] >= '0' && sp[1] <= '9') {
			unsigned long long v = strtoull(sp + 1, &end, 10);
			if (end == p + len || *end == '\r') {
				if (c->n == c->cap) {
					size_t cap = c->cap ? 2 * c->cap : 64;
					struct agent_counter *m = realloc(c->c, cap * sizeof(*m));
					if (!m)
						return c->n;
					c->c = m;
					c->cap = cap;
				}
				struct agent_counter *k = &c->c[c->n++];
				snprintf(k->name, sizeof(k->name), "%.*s", (int)(sp - p), p);
				k->value = v;
			}
		}
		p += len + (p[len] == '\n');
	}
	return c->n;
}

void agent_counters_free(struct agent_counters *c)
{
	free(c->c);
	memset(c, 0, sizeof(*c));
}

size_t agent_deltas(const struct agent_counters *before, const struct agent_counters *after, struct agent_delta **out)
{
	size_t n = 0;
	*out = after->n ? calloc(after->n, sizeof(**out)) : NULL;
	if (!*out)
		return 0;
	for (size_t i = 0; i < after->n; i++) {
		uint64_t was = 0;
		for (size_t k = 0; k < before->n; k++) {
			size_t j = (i + k) % before->n;   /* the same order on both sides: found at once */
			if (!strcmp(before->c[j].name, after->c[i].name)) {
				was = before->c[j].value;
				break;
			}
		}
		if (after->c[i].value == was)
			continue;
		snprintf((*out)[n].name, AGENT_NAME_LEN, "%s", after->c[i].name);
		(*out)[n++].delta = (int64_t)(after->c[i].value - was);
	}
	return n;
}

/* The counters a verdict can use, per driver: rdma_rxe (Linux Soft-RoCE: hw_counters per port,
 * no CNP or PFC counters) and mlx5_core (ConnectX: hw_counters, CNPs, PFC in ethtool -S). */
static const struct {
	const char *driver, *pattern;   /* fnmatch pattern of the counter's name */
	enum agent_role role;
	const char *meaning;
} counter_table[] = {
	{"rdma_rxe", "rdma:rcvd_pkts", AR_RCVD_OK, "packets past the header and ICRC checks; a dropped one is not counted"},
	{"rdma_rxe", "rdma:sent_pkts", AR_SENT, "packets sent"},
	{"rdma_rxe", "rdma:duplicate_request", AR_DUPLICATE, "duplicate requests (responder)"},
	{"rdma_rxe", "rdma:out_of_seq_request", AR_OUT_OF_SEQ, "out-of-sequence requests, NAK-Seq sent (responder)"},
	{"rdma_rxe", "rdma:rcvd_rnr_err", AR_RNR_NAK_RCVD, "RNR NAKs received (requester)"},
	{"rdma_rxe", "rdma:send_rnr_err", AR_RNR_NAK_SENT, "RNR NAKs sent (responder)"},
	{"rdma_rxe", "rdma:rcvd_seq_err", AR_SEQ_NAK_RCVD, "NAK-Seq received (requester)"},
	{"rdma_rxe", "rdma:ack_deferred", AR_ACK_DEFERRED, "ACKs deferred (responder)"},
	{"rdma_rxe", "rdma:retry_exceeded_err", AR_RETRY_EXCEEDED, "retry count exceeded (requester)"},
	{"rdma_rxe", "rdma:retry_rnr_exceeded_err", AR_RNR_RETRY_EXCEEDED, "RNR retry count exceeded (requester)"},
	{"rdma_rxe", "rdma:completer_retry_err", AR_COMPLETER_RETRY, "retransmissions (requester)"},
	{"rdma_rxe", "rdma:send_err", AR_SEND_ERR, "packets that could not be sent"},
	{"rdma_rxe", "rdma:link_downed", AR_LINK_DOWNED, "link down events"},
	{"rdma_rxe", "rdma:rdma_sends", AR_RDMA_SENDS, "RDMA requests sent"},
	{"rdma_rxe", "rdma:rdma_recvs", AR_RDMA_RECVS, "RDMA requests received"},
	{"mlx5_core", "rdma:out_of_sequence", AR_OUT_OF_SEQ, "out-of-sequence requests, NAK-Seq sent (responder)"},
	{"mlx5_core", "rdma:duplicate_request", AR_DUPLICATE, "duplicate requests (responder)"},
	{"mlx5_core", "rdma:packet_seq_err", AR_SEQ_NAK_RCVD, "NAK-Seq received (requester)"},
	{"mlx5_core", "rdma:implied_nak_seq_err", AR_IMPLIED_NAK, "implied NAK sequence errors (requester)"},
	{"mlx5_core", "rdma:local_ack_timeout_err", AR_ACK_TIMEOUT, "local ACK timeouts (requester)"},
	{"mlx5_core", "rdma:rnr_nak_retry_err", AR_RNR_NAK_RCVD, "RNR NAKs received (requester)"},
	{"mlx5_core", "rdma:np_cnp_sent", AR_CNP_SENT, "CNPs sent (notification point)"},
	{"mlx5_core", "rdma:rp_cnp_handled", AR_CNP_HANDLED, "CNPs handled (reaction point)"},
	{"mlx5_core", "ethtool:rx_prio[0-7]_pause", AR_PFC_RX, "PFC pause frames received on the priority"},
	{"mlx5_core", "ethtool:tx_prio[0-7]_pause", AR_PFC_TX, "PFC pause frames sent on the priority"},
};

enum agent_role agent_role(const char *driver, const char *name, const char **meaning)
{
	for (size_t i = 0; driver && i < sizeof(counter_table) / sizeof(counter_table[0]); i++) {
		if (strcmp(counter_table[i].driver, driver) != 0 || fnmatch(counter_table[i].pattern, name, 0) != 0)
			continue;
		if (meaning)
			*meaning = counter_table[i].meaning;
		return counter_table[i].role;
	}
	if (meaning)
		*meaning = NULL;
	return AR_NONE;
}

/* Verdicts a counter can contradict: a PASS of these tests claims the DUT did what the counter
 * counts (MUST_MOVE: it must have moved), or claims a silent drop (NOT_ALL: the DUT must not have
 * counted every packet sent as received: the spoiled one was not accepted). */
enum rule_kind { MUST_MOVE, NOT_ALL };
static const struct {
	const char *tests;              /* --tests selectors */
	enum agent_role role;
	enum rule_kind kind;
	const char *claim;
} counter_rules[] = {
	{"C1,C2,C3,C4,C5", AR_RCVD_OK, NOT_ALL, "a silent drop"},
	{"A5,A6,A9,C6", AR_OUT_OF_SEQ, MUST_MOVE, "an out-of-sequence request answered"},
	{"A4,A8", AR_DUPLICATE, MUST_MOVE, "a duplicate request answered"},
	{"E2", AR_SEQ_NAK_RCVD, MUST_MOVE, "a NAK-Seq taken"},
	{"E3", AR_RNR_NAK_RCVD, MUST_MOVE, "an RNR NAK taken"},
	{"F1", AR_CNP_SENT, MUST_MOVE, "a CNP sent"},
};

/* The role's counter on driver: whether the driver has one; its delta and name. */
static bool role_delta(const char *driver, enum agent_role role, const struct agent_delta *d, size_t n,
		       int64_t *delta, const char **name)
{
	bool mapped = false;
	for (size_t i = 0; i < sizeof(counter_table) / sizeof(counter_table[0]); i++)
		if (!strcmp(counter_table[i].driver, driver) && counter_table[i].role == role) {
			mapped = true;
			*name = counter_table[i].pattern;
		}
	*delta = 0;
	for (size_t i = 0; mapped && i < n; i++)
		if (agent_role(driver, d[i].name, NULL) == role) {
			*delta += d[i].delta;
			*name = d[i].name;
		}
	return mapped;
}

bool agent_contradiction(const char *driver, const struct conf_test *t, const struct conf_result *r,
			 const struct agent_delta *d, size_t n, unsigned sent, char *why, size_t wn)
{
	if (r->v != V_PASS || !driver)
		return false;
	for (size_t i = 0; i < sizeof(counter_rules) / sizeof(counter_rules[0]); i++) {
		int64_t delta;
		const char *name;
		if (!test_selected(t->id, counter_rules[i].tests) ||
		    !role_delta(driver, counter_rules[i].role, d, n, &delta, &name))
			continue;
		if (counter_rules[i].kind == MUST_MOVE && delta <= 0) {
			snprintf(why, wn, "the DUT's counters contradict %s: %s did not move", counter_rules[i].claim, name);
			return true;
		}
		if (counter_rules[i].kind == NOT_ALL && sent && delta >= (int64_t)sent) {
			snprintf(why, wn, "the DUT's counters contradict %s: %s +%" PRId64 " for the %u packets sent, "
				 "the spoiled one included (it was accepted)", counter_rules[i].claim, name, delta, sent);
			return true;
		}
	}
	return false;
}

/* Whether an Ethernet frame is UDP to port 4791 (RoCEv2), VLAN tag or not. */
static bool is_roce(const uint8_t *b, uint32_t len)
{
	uint32_t off = 12;
	if (len >= 18 && b[12] == 0x81 && b[13] == 0x00)
		off = 16;
	if (len < off + 2)
		return false;
	uint16_t type = (uint16_t)(b[off] << 8 | b[off + 1]);
	uint32_t ip = off + 2, udp;
	if (type == 0x0800 && len >= ip + 20 && b[ip + 9] == 17)
		udp = ip + (uint32_t)(b[ip] & 0x0f) * 4;
	else if (type == 0x86dd && len >= ip + 40 && b[ip + 6] == 17)
		udp = ip + 40;
	else
		return false;
	return len >= udp + 4 && b[udp + 2] == 0x12 && b[udp + 3] == 0xb7;
}

unsigned agent_roce_sent(const struct session *s)
{
	unsigned n = 0;
	for (size_t i = 0; i < s->n_frames; i++)
		n += s->frames[i].sent && is_roce(s->frames[i].bytes, s->frames[i].len);
	return n;
}

/* The DUT's server for setup m: the command line, or "" (the setup needs none). */
static void server_cmd(const struct agent *a, const struct conf_opts *o, const struct setup_method *m, uint16_t port,
		       char *out, size_t n)
{
	static const struct {
		const char *setup, *prog;
	} progs[] = {
		{"perftest-write", "ib_write_bw"}, {"perftest-read", "ib_read_bw"}, {"perftest-atomic", "ib_atomic_bw"},
	};
	out[0] = 0;
	if (!strcmp(m->name, "rdma-cm")) {
		char ip[64];
		snprintf(out, n, "rping -s -a %s -S %u -v -p %u", addr_str(&o->dut, ip, sizeof(ip)),
			 o->dut_size ? o->dut_size : 64, port);
		return;
	}
	if (!strcmp(m->name, "rc-pingpong") || !strcmp(m->name, "uc-pingpong")) {
		snprintf(out, n, "ibv_%.2s_pingpong -d %s -i %u -g %u -n 1 -s %u -m %u -p %u", m->name, a->dev, a->ib_port,
			 a->gid_index, o->recv_size, o->pmtu, port);
		return;
	}
	if (!strcmp(m->name, "ud-pingpong")) {   /* no -m: a UD message is one packet, -s at most the MTU */
		snprintf(out, n, "ibv_ud_pingpong -d %s -i %u -g %u -n 1 -s %u -p %u", a->dev, a->ib_port, a->gid_index,
			 udpp_size(o), port);
		return;
	}
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		if (strcmp(m->name, progs[i].setup) != 0)
			continue;
		int k = snprintf(out, n, "%s -F -d %s -i %u -x %u -m %u -p %u", progs[i].prog, a->dev, a->ib_port,
				 a->gid_index, o->pmtu, port);
		if (o->dut_size && k > 0 && (size_t)k < n)
			snprintf(out + k, n - (size_t)k, " -s %u", o->dut_size);
	}
}

int agent_open(struct agent *a, const struct conf_opts *o, char err[CONF_ERRLEN])
{
	char cmd[2048], out[8192], why[CONF_ERRLEN], target[400];
	const char *const exit_args[] = {"-O", "exit", NULL};
	snprintf(target, sizeof(target), "%s%s%s", a->user, a->user[0] ? "@" : "", a->host);
	if (a->key && access(a->key, R_OK) < 0) {
		snprintf(err, CONF_ERRLEN, "--dut-ssh-key %s: %s", a->key, strerror(errno));
		return -1;
	}
	if (find_ssh(a, err) < 0)
		return -1;
	snprintf(a->dir, sizeof(a->dir), "/tmp/roceconform-ssh.XXXXXX");
	if (!mkdtemp(a->dir)) {
		snprintf(err, CONF_ERRLEN, "--dut-ssh: cannot make a private directory: %s", strerror(errno));
		a->dir[0] = 0;
		return -1;
	}
	snprintf(a->ctl, sizeof(a->ctl), "%s/cm", a->dir);
	snprintf(a->ctl_opt, sizeof(a->ctl_opt), "ControlPath=%s", a->ctl);
	snprintf(a->port_s, sizeof(a->port_s), "%u", a->port);
	snprintf(a->kill_cmd, sizeof(a->kill_cmd), "true");
	make_argv(a, a->sig_argv, NULL, a->kill_cmd);
	make_argv(a, a->exit_argv, exit_args, NULL);
	a->on = true;   /* the signal handler's argvs are ready */
	probe_cmd(o, cmd, sizeof(cmd));
	int rc = remote(a, cmd, out, sizeof(out), AGENT_PROBE_MS, why);
	if (rc != 0) {
		snprintf(err, CONF_ERRLEN, "the DUT agent %.40s%s%.6s is unreachable: %.80s%s", target, a->port ? ":" : "",
			 a->port ? a->port_s : "", why,
			 strstr(why, "ermission denied") ? " (a key-based login is needed: --dut-ssh-key FILE, its public "
							   "half in the DUT's authorized_keys)" : "");
		return -1;
	}
	if (agent_parse_facts(a, out, why) < 0) {
		snprintf(err, CONF_ERRLEN, "the DUT agent %.80s: %.150s", target, why);
		return -1;
	}
	return 0;
}

/* The command that kills the server (waiting up to 5 s for it to end) and may append more. */
static int kill_cmd(const struct agent *a, char *cmd, size_t n)
{
	if (!a->server_pid)
		return snprintf(cmd, n, AGENT_PATH);
	return snprintf(cmd, n, AGENT_PATH "kill %ld 2>/dev/null; i=0; while kill -0 %ld 2>/dev/null && [ $i -lt 50 ]; "
			"do sleep 0.1; i=$((i+1)); done; kill -0 %ld 2>/dev/null && kill -9 %ld; ",
			a->server_pid, a->server_pid, a->server_pid, a->server_pid);
}

int agent_test_begin(struct agent *a, const struct conf_opts *o, const struct setup_method *m, uint16_t port,
		     char err[CONF_ERRLEN])
{
	char cmd[2048], srv[640], out[65536];
	int k = snprintf(cmd, sizeof(cmd), AGENT_PATH);
	counters_cmd(a, cmd + k, sizeof(cmd) - (size_t)k);
	server_cmd(a, o, m, port, srv, sizeof(srv));
	if (srv[0] && a->n_servers == 2) {
		char second[256], one[256];
		size_t len = strlen(srv);
		if (len >= sizeof(one)) {
			snprintf(err, CONF_ERRLEN, "DUT agent: the server's command is too long for two servers");
			return -1;
		}
		memcpy(one, srv, len + 1);
		server_cmd(a, o, m, (uint16_t)(port + 1), second, sizeof(second));
		/* one shell for both: killed, it kills them (the kill below knows one pid) */
		snprintf(srv, sizeof(srv), "sh -c '%s & p=$!; %s & q=$!; trap \"kill $p $q\" TERM; wait'", one, second);
	}
	a->server_limit_s = o->setup_timeout_s + o->test_timeout_ms / 1000 + 60;
	if (srv[0]) {
		k = (int)strlen(cmd);
		/* detached from the login (setsid where there is one), its output in a log on the DUT, and
		 * ended by timeout should roceconform die before it can kill it */
		snprintf(cmd + k, sizeof(cmd) - (size_t)k,
			 "S=; command -v setsid >/dev/null && S=setsid; "
			 "$S timeout %u %s </dev/null >/tmp/roceconform-server-%u.log 2>&1 & echo \"pid=$!\"",
			 a->server_limit_s, srv, port);
	}
	a->have_before = false;
	a->server_pid = 0;
	if (remote(a, cmd, out, sizeof(out), AGENT_STEP_MS, err) != 0)
		return -1;
	agent_parse_counters(out, &a->before);
	a->have_before = true;
	const char *pid = out;
	while (pid && strncmp(pid, "pid=", 4) != 0)   /* the line "pid=N" */
		pid = (pid = strchr(pid, '\n')) ? pid + 1 : NULL;
	if (srv[0] && (!pid || (a->server_pid = strtol(pid + 4, NULL, 10)) <= 0)) {
		snprintf(err, CONF_ERRLEN, "the DUT agent did not start %.200s", srv);
		return -1;
	}
	kill_cmd(a, a->kill_cmd, sizeof(a->kill_cmd));
	return 0;
}

int agent_test_end(struct agent *a, struct agent_delta **d, size_t *n, char err[CONF_ERRLEN])
{
	char cmd[2048], out[65536];
	struct agent_counters after = {0};
	*d = NULL;
	*n = 0;
	int k = kill_cmd(a, cmd, sizeof(cmd));
	counters_cmd(a, cmd + k, sizeof(cmd) - (size_t)k);
	int rc = remote(a, cmd, out, sizeof(out), AGENT_STEP_MS, err);
	a->server_pid = 0;
	snprintf(a->kill_cmd, sizeof(a->kill_cmd), "true");
	if (rc != 0)
		return -1;
	if (!a->have_before) {
		snprintf(err, CONF_ERRLEN, "no counters read before the test");
		return -1;
	}
	agent_parse_counters(out, &after);
	*n = agent_deltas(&a->before, &after, d);
	agent_counters_free(&after);
	return 0;
}

void agent_close(struct agent *a)
{
	char cmd[512], out[256], err[CONF_ERRLEN];
	if (!a->on) {  /* never opened, or agent_on_signal did the rest */
		agent_counters_free(&a->before);
		return;
	}
	if (a->server_pid) {
		kill_cmd(a, cmd, sizeof(cmd));
		remote(a, cmd, out, sizeof(out), 15000, err);
		a->server_pid = 0;
	}
	run(a, a->exit_argv, out, sizeof(out), 10000, err);
	unlink(a->ctl);
	rmdir(a->dir);
	agent_counters_free(&a->before);
	a->on = false;
}

/* Run argv and wait for it, from a signal handler. */
static void run_quietly(const char *path, char **argv)
{
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(path, argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

void agent_on_signal(struct agent *a)
{
	if (!a->on)
		return;
	if (a->server_pid)
		run_quietly(a->ssh, a->sig_argv);
	run_quietly(a->ssh, a->exit_argv);
	unlink(a->ctl);
	rmdir(a->dir);
	a->on = false;
}
