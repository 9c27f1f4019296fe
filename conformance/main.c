/* main.c: roceconform, the active conformance tester: options, the run over the selected tests
 * (each test on a fresh QP from the setup, with its time limit, its verdict and evidence), the
 * dry run, the reports and the exit status (0 PASS/N/A, 1 FAIL, 3 INCONCLUSIVE, 2 usage/setup). */
#include <errno.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "hoststack.h"
#include "listing.h"
#include "options.h"
#include "outfile.h"
#include "pcapng.h"
#include "report.h"
#include "setup.h"
#include "tests.h"
#include "verdict.h"

/* What a run holds, released by run_free() on every way out, die() included: the report
 * temporaries are removed (no half report is left), the capture closed, memory freed. */
static struct {
	struct expect_list ex;
	struct outfile json, junit;
	struct link link;
	int hold;                   /* the host stack guard's socket, or -1 */
	struct run_result *rs;
	struct session s;           /* the test running */
	char *pcap_dir;             /* --pcap-dir, absolute (realpath) */
	size_t n_rs;                /* results filled in rs */
	struct agent agent;         /* --dut-ssh */
} held = {.hold = -1};

/* The session of the test that ran let go: its exchange's TCP connection closed, its frames and
 * responses freed. */
static void session_end(void)
{
	if (held.s.tcp_fd > 0)
		close(held.s.tcp_fd);
	held.s.tcp_fd = -1;
	sess_reset(&held.s);
}

static void run_free(void)
{
	outfile_discard(&held.json);
	outfile_discard(&held.junit);
	link_close(&held.link);
	if (held.hold >= 0)
		close(held.hold);
	held.hold = -1;
	session_end();
	expect_free(&held.ex);
	agent_close(&held.agent);
	for (size_t i = 0; held.rs && i < held.n_rs; i++) {
		free(held.rs[i].counters);
		free(held.rs[i].first_counters);
	}
	free(held.rs);
	held.rs = NULL;
	free(held.pcap_dir);
	held.pcap_dir = NULL;
}

/* SIGINT, SIGTERM, SIGHUP: kill what the DUT agent started, remove the report temporaries, then
 * die of the signal. */
static void on_signal(int sig)
{
	agent_on_signal(&held.agent);  // NOLINT(bugprone-signal-handler,cert-sig30-c): fork, dup2, execv, waitpid, unlink and rmdir only, all async-signal-safe
	const char *tmp[2] = {outfile_tmp(&held.json), outfile_tmp(&held.junit)};
	for (int i = 0; i < 2; i++)
		if (tmp[i])
			unlink(tmp[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "roceconform: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	run_free();
	exit(code);
}

/* Refuse a --dut that is the tester itself or a broadcast address of the --iface's subnet (the
 * address kinds never usable, addr_unusable(), are refused before). */
static void refuse_dut(const struct conf_opts *o)
{
	char ip[64], buf[160];
	const char *why = NULL;
	if (!memcmp(o->dut.ip, o->local.ip, sizeof(o->dut.ip)))
		why = "the tester's own address (--local-ip)";
	else if (host_owns(&o->dut))
		why = "an address of this host (the tester's own)";
	else if (o->iface)
		why = iface_broadcast(o->iface, &o->dut, buf, sizeof(buf));
	if (why)
		die(EXIT_CONF_USAGE, "--dut %s is %s: refused (roceconform sends only to one other host)",
		    addr_str(&o->dut, ip, sizeof(ip)), why);
}

/* Why the setup or the declared DUT cannot run test t, or NULL. */
static const char *missing(const struct conf_test *t, unsigned caps, const struct setup_method *m, char *buf, size_t n)
{
	unsigned need = t->needs & ~caps;
	if (!need)
		return NULL;
	if (need & NEED_UD_BUF)
		snprintf(buf, n, "%s", UD_BUF_NA);
	else if (need & NEED_TWO_QPS && m == &setup_rc_pingpong)
		snprintf(buf, n, "needs two QPs at once: the DUT agent (--dut-ssh) starts a second server on the setup's "
			 "port + 1");
	else if (need & (NEED_UC | NEED_UD))
		snprintf(buf, n, "needs a %s QP (--setup %s)", need & NEED_UC ? "UC" : "UD",
			 need & NEED_UC ? "uc-pingpong" : "ud-pingpong");
	else if (caps & (NEED_UC | NEED_UD))
		snprintf(buf, n, "needs an RC QP: %s brings up a %s QP (group %s only)", m->name,
			 caps & NEED_UC ? "UC" : "UD", caps & NEED_UC ? "U" : "Q");
	else if (need & NEED_CC)
		snprintf(buf, n, "the DUT is not declared to react to CNPs (--dut-cc: RoCE congestion management); Linux "
			 "rxe has no DCQCN");
	else if (need & NEED_ECN)
		snprintf(buf, n, "the DUT is not declared to do ECN -> CNP (--ecn); Linux rxe has no CNP support");
	else if (need & NEED_PFC)
		snprintf(buf, n, "the DUT is not declared to do PFC (--pfc PRIO, on a direct link: a switch consumes PFC frames, "
			 "a Linux bridge does not forward them); rxe has no PFC");
	else if (need & NEED_DUT_READ)
		snprintf(buf, n, "needs a DUT that issues RDMA READs (an rdma-cm setup against rping -s)");
	else if (need & (NEED_MR_WRITE | NEED_MR_READ | NEED_MR_ATOMIC | NEED_MR_ANY))
		snprintf(buf, n, "needs a buffer the DUT exposes for %s (--setup perftest-%s); %s gives none",
			 need & NEED_MR_ATOMIC ? "atomics" : need & NEED_MR_READ ? "READ" : "WRITE",
			 need & NEED_MR_ATOMIC ? "atomic" : need & NEED_MR_READ ? "read" : "write", m->name);
	else if (need & NEED_NO_ACCESS)
		snprintf(buf, n, "needs a QP that grants no remote access (--setup rc-pingpong)");
	else if (need & (NEED_SEND | NEED_DUT_REQ))
		snprintf(buf, n, "needs %s (--setup rc-pingpong)", need & NEED_SEND ? "receives posted for SENDs" : "a DUT that sends requests of its own");
	else
		snprintf(buf, n, "the setup cannot support it");
	return buf;
}

static unsigned caps_of(const struct conf_opts *o, const struct setup_method *m)
{
	bool two = o->dut_ssh && m == &setup_rc_pingpong;   /* the agent starts the second server */
	return m->caps | (o->ecn ? NEED_ECN : 0) | (o->pfc ? NEED_PFC : 0) | (two ? NEED_TWO_QPS : 0) |
	       (o->dut_cc ? NEED_CC : 0);
}

/* One test on a fresh QP. */
static void run_one(const struct conf_opts *o, struct link *l, const struct setup_method *m, uint16_t port,
		    const struct conf_test *t, struct session *s, struct conf_result *r, bool *setup_ok)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->link = l;
	s->test = t;
	s->result = r;
	s->tcp_fd = -1;
	s->port = port;
	s->t_start = now_ns();
	s->deadline_ns = s->t_start + (int64_t)o->test_timeout_ms * 1000000;
	char err[CONF_ERRLEN] = "";
	if (!l) {
		m->placeholder(s);
	} else {
		s->drops_at_start = link_drops(l);
		if (m->connect(s, port, err) < 0) {
			v_set(r, V_INCONCLUSIVE, "setup failed: %s", err);
			*setup_ok = false;
			return;
		}
	}
	*setup_ok = true;
	s->qp_up = true;
	s->deadline_ns = now_ns() + (int64_t)o->test_timeout_ms * 1000000;  /* from the QP's start */
	s->epsn = s->qp.my_psn;
	if (o->verbose)
		fprintf(stderr, "%s: my QPN 0x%06x PSN 0x%06x, DUT QPN 0x%06x PSN 0x%06x\n", t->id, s->qp.my_qpn,
			s->qp.my_psn, s->qp.dut_qpn, s->qp.dut_psn);
	r->v = V_INCONCLUSIVE;
	v_reason(r, "the test did not reach a verdict");
	t->run(s, r);
	bool late = now_ns() > s->deadline_ns;
	if (!s->link_failed && m->finish) {
		s->deadline_ns = now_ns() + 10000000000LL;  /* the finish step has its own 10 s */
		m->finish(s);
	}
	if (l && s->link_failed)
		v_set(r, V_INCONCLUSIVE, "the link failed: %s", s->err);
	else if (l && late && r->v != V_NA)
		v_set(r, V_INCONCLUSIVE, "the per-test time limit (--test-timeout %u s) was reached", o->test_timeout_ms / 1000);
	uint64_t drops = l ? link_drops(l) - s->drops_at_start : 0;
	if (drops && r->v != V_NA)
		v_set(r, V_INCONCLUSIVE, "the capture dropped %llu packets during the test", (unsigned long long)drops);
}

/* The test's pcapng in --pcap-dir (first: its first run's, of a test run again): 0, or -1 (said on
 * standard error). */
static int write_test_pcapng(const struct conf_opts *o, const struct session *s, const struct conf_test *t,
			     unsigned run, const struct conf_result *r, bool first)
{
	char path[4096], comment[EVIDENCE_LEN * 3 + 512], err[CONF_ERRLEN];
	report_pcap_path(path, sizeof(path), o->pcap_dir, t->id, run, o->repeat, first);
	snprintf(comment, sizeof(comment), "roceconform %s%s: %s - %s\nrule: %s\nexpected: %s\nobserved: %s%s%s", t->id,
		 first ? " (first run; run again)" : "", verdict_name(r->v), t->title, t->rule, r->expected, r->observed,
		 r->reason[0] ? "\nreason: " : "", r->reason);
	if (pcapng_write_session(path, s, comment, err) < 0) {
		fprintf(stderr, "roceconform: --pcap-dir: %s\n", err);
		return -1;
	}
	return 0;
}

static int write_reports(const struct run_info *info, size_t n);

/* A dry run's result for a test whose stimulus was written: N/A (nothing was judged), with what
 * the test would expect. */
static void dry_verdict(struct conf_result *r, size_t frames, const char *file)
{
	r->observed[0] = 0;
	r->measured_ms = r->tolerance_pct = -1;
	v_set(r, V_NA, "dry run: %zu stimulus frames written to %s, nothing sent", frames, file);
}

/* --dry-run: every selected test's stimulus, in order, into one pcap (through a temporary,
 * renamed once complete); the reports asked for, with dry-run verdicts. */
static int dry_run(const struct conf_opts *o, const struct setup_method *m)
{
	struct outfile out;
	char err[CONF_ERRLEN], buf[256];
	if (outfile_open(&out, o->dry_run, err) < 0)
		die(EXIT_CONF_USAGE, "--dry-run: %s", err);
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d = dead ? pcap_dump_fopen(dead, out.f) : NULL;
	if (!d) {
		snprintf(buf, sizeof(buf), "%s", dead ? pcap_geterr(dead) : "out of memory");
		if (dead)
			pcap_close(dead);
		outfile_discard(&out);
		die(EXIT_CONF_USAGE, "--dry-run: cannot write %s: %s", o->dry_run, buf);
	}
	size_t frames = 0, tests = 0, n = 0;
	bool ok;
	unsigned caps = caps_of(o, m);
	int64_t t0 = now_ns();
	if (!(held.rs = calloc(conf_n_tests, sizeof(*held.rs))))
		die(EXIT_CONF_USAGE, "%s", "out of memory");
	for (size_t i = 0; i < conf_n_tests; i++) {
		const struct conf_test *t = &conf_tests[i];
		if (!test_selected(t->id, o->tests))
			continue;
		struct run_result *x = &held.rs[n++];
		x->t = t;
		x->run = 1;
		x->r = (struct conf_result){.measured_ms = -1, .tolerance_pct = -1, .rule = t->rule};
		const char *why = missing(t, caps, m, buf, sizeof(buf));
		if (why) {
			v_set(&x->r, V_NA, "%s", why);
			expect_apply(expect_find(&held.ex, t->id), &x->r);
			continue;
		}
		int64_t t1 = now_ns();
		run_one(o, NULL, m, 0, t, &held.s, &x->r, &ok);
		dry_verdict(&x->r, held.s.n_frames, o->dry_run);
		expect_apply(expect_find(&held.ex, t->id), &x->r);
		x->seconds = (double)(now_ns() - t1) / 1e9;
		for (size_t k = 0; k < held.s.n_frames; k++) {
			struct pcap_pkthdr h;
			int64_t ts = held.s.frames[k].ts_ns;
			h.ts.tv_sec = (time_t)(ts / 1000000000);
			h.ts.tv_usec = (suseconds_t)(ts % 1000000000);  /* nanoseconds: the dumper's precision */
			h.caplen = h.len = held.s.frames[k].len;
			pcap_dump((u_char *)d, &h, held.s.frames[k].bytes);
			frames++;
		}
		if (o->pcap_dir)
			x->pcap_written = write_test_pcapng(o, &held.s, t, 1, &x->r, false) == 0;
		tests++;
		sess_reset(&held.s);
	}
	int bad = pcap_dump_flush(d) < 0;
	pcap_dump_close(d);     /* closes out.f */
	out.f = NULL;
	pcap_close(dead);
	if (bad) {
		outfile_discard(&out);
		die(EXIT_CONF_USAGE, "--dry-run: %s: write failed", o->dry_run);
	}
	if (outfile_commit(&out, err) < 0)
		die(EXIT_CONF_USAGE, "--dry-run: %s", err);
	printf("dry run: %zu frames of %zu tests written to %s (nothing sent)\n", frames, tests, o->dry_run);
	printf("placeholders: DUT QPN 0x000011, DUT PSN 0x000000, tester QPN 0x0cXXXX per test, tester PSN per test "
	       "(A7 0xfffffe)%s, DUT MAC %s\n",
	       m->caps & (NEED_MR_WRITE | NEED_MR_READ | NEED_MR_ATOMIC) ? ", rkey 0x00001234, buffer at 0x7f0000000000" : "",
	       o->have_dut_mac ? "as given" : "02:00:00:00:00:02");
	char dut_s[64], local_s[64];
	struct run_info info = {o->iface, addr_str(&o->dut, dut_s, sizeof(dut_s)), addr_str(&o->local, local_s, sizeof(local_s)),
				o->setup, "dry-run", t0, (double)(now_ns() - t0) / 1e9, o->pps, held.pcap_dir, o->repeat};
	int status = write_reports(&info, n);
	run_free();
	return status;
}

/* Every output path, checked before the first packet: --pcap-dir created and writable, --json and
 * --junit opened as temporaries in their directories (renamed over the targets at the end). */
static void open_outputs(const struct conf_opts *o)
{
	char err[CONF_ERRLEN];
	if (o->pcap_dir && mkdir(o->pcap_dir, 0755) < 0 && errno != EEXIST)
		die(EXIT_CONF_USAGE, "--pcap-dir: cannot create %s: %s", o->pcap_dir, strerror(errno));
	if (o->pcap_dir && (access(o->pcap_dir, W_OK | X_OK) < 0 || !(held.pcap_dir = realpath(o->pcap_dir, NULL))))
		die(EXIT_CONF_USAGE, "--pcap-dir: cannot write in %s: %s", o->pcap_dir, strerror(errno));
	if (o->json && outfile_open(&held.json, o->json, err) < 0)
		die(EXIT_CONF_USAGE, "--json: %s", err);
	if (o->junit && outfile_open(&held.junit, o->junit, err) < 0)
		die(EXIT_CONF_USAGE, "--junit: %s", err);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
}

/* --dut-ssh: the shared connection and the DUT's facts, before the first packet (an unreachable
 * agent or a refused key is a setup error: exit 2). */
static void open_agent(const struct conf_opts *o)
{
	char err[CONF_ERRLEN];
	if (!o->dut_ssh)
		return;
	held.agent.key = o->dut_ssh_key;
	held.agent.opts = o->dut_ssh_opts;
	held.agent.n_opts = o->n_dut_ssh_opts;
	if (agent_open(&held.agent, o, err) < 0)
		die(EXIT_CONF_USAGE, "%s", err);
	const char *k = agent_fact(&held.agent, "kernel"), *d = agent_fact(&held.agent, "ethtool.driver");
	printf("DUT agent %s: %s port %u (%s, on %s, driver %s), GID index %u, kernel %s\n", o->dut_ssh, held.agent.dev,
	       held.agent.ib_port, held.agent.driver[0] ? held.agent.driver : "driver unknown", held.agent.netdev,
	       d ? d : "unknown", held.agent.gid_index, k ? k : "unknown");
}

/* Before a test (--dut-ssh): the DUT's counters read, its server started. A failure is said on
 * standard error; the setup then fails on its own. */
static void agent_before(const struct conf_opts *o, const struct setup_method *m, uint16_t port, struct run_result *x)
{
	char err[CONF_ERRLEN];
	held.agent.n_servers = x->t->needs & NEED_TWO_QPS ? 2 : 1;   /* I1: a second server on port + 1 */
	if (held.agent.on && agent_test_begin(&held.agent, o, m, port, err) < 0)
		fprintf(stderr, "roceconform: %s: the DUT agent: %s\n", x->t->id, err);
}

/* After a test (--dut-ssh): its server killed, the counter deltas kept as evidence, a verdict
 * they contradict flagged (a note in the reason, never another verdict). */
static void agent_after(struct run_result *x)
{
	char err[CONF_ERRLEN], why[512];
	if (!held.agent.on)
		return;
	if (agent_test_end(&held.agent, &x->counters, &x->n_counters, err) < 0) {
		fprintf(stderr, "roceconform: %s: the DUT agent: %s\n", x->t->id, err);
		return;
	}
	x->counters_read = true;
	if (agent_contradiction(held.agent.driver, x->t, &x->r, x->counters, x->n_counters, agent_roce_sent(&held.s),
				why, sizeof(why))) {
		size_t len = strlen(x->r.reason);
		snprintf(x->r.reason + len, sizeof(x->r.reason) - len, "%s%s", len ? "; " : "", why);
		x->counters_contradict = true;
	}
}

/* The --iface's own IPv4 address (the tester's address when --local-ip is not given). */
static void local_from_iface(struct conf_opts *o)
{
	struct conf_addr a = {0};
	pcap_if_t *all = NULL, *d;
	char buf[PCAP_ERRBUF_SIZE];
	if (pcap_findalldevs(&all, buf) == 0) {
		for (d = all; d && !a.family; d = d->next) {
			if (strcmp(d->name, o->iface) != 0)
				continue;
			for (pcap_addr_t *pa = d->addresses; pa && !a.family; pa = pa->next) {
				if (!pa->addr)
					continue;
				if (o->dut.family == 4 && pa->addr->sa_family == AF_INET) {
					a.family = 4;
					memcpy(a.ip, &((struct sockaddr_in *)(void *)pa->addr)->sin_addr, 4);
				}
			}
		}
		pcap_freealldevs(all);
	}
	if (!a.family)
		die(EXIT_CONF_USAGE, "%s has no address of the DUT's family: give --local-ip", o->iface);
	o->local = a;
}

/* The reports at the end: 0, or EXIT_CONF_USAGE when one could not be written. */
static int write_reports(const struct run_info *info, size_t n)
{
	char err[CONF_ERRLEN];
	int status = 0;
	struct outfile *out[2] = {&held.json, &held.junit};
	void (*write[2])(FILE *, const struct run_info *, const struct run_result *, size_t) = {report_json_to,
												 report_junit_to};
	for (int i = 0; i < 2; i++) {
		if (!out[i]->f)
			continue;
		write[i](out[i]->f, info, held.rs, n);
		if (outfile_commit(out[i], err) < 0) {
			fprintf(stderr, "roceconform: %s\n", err);
			status = EXIT_CONF_USAGE;
		}
	}
	return status;
}

/* The exit status of the results (report_status()); notes the --expect lines not met. */
static int results_status(size_t n)
{
	for (size_t i = 0; i < held.ex.n; i++) {
		bool seen = false, met = false;
		for (size_t k = 0; k < n; k++)
			if (!strcasecmp(held.rs[k].t->id, held.ex.e[i].id)) {
				seen = true;
				met |= held.rs[k].r.expected_deviation;
			}
		if (seen && !met)   /* (an unexpected pass also counts as a failure) */
			printf("note: %s was expected to be %s (%s) and is not\n", held.ex.e[i].id,
			       verdict_name(held.ex.e[i].v), held.ex.e[i].reason);
	}
	return report_status(held.rs, n);
}

/* One run of x's test on a fresh QP into x->r, the DUT agent around it (its server started, its
 * counters read); whether the setup came up. */
static bool run_attempt(const struct conf_opts *o, const struct setup_method *m, uint16_t port, struct run_result *x)
{
	bool setup_ok = false;
	agent_before(o, m, port, x);
	run_one(o, &held.link, m, port, x->t, &held.s, &x->r, &setup_ok);
	agent_after(x);
	if (setup_ok)
		note_qp_port(&held.s);   /* (H6 judges the run's QPs) */
	return setup_ok;
}

/* A test that FAILed only on answers not seen (r.missing: every answer seen was right, one due was
 * not seen), run once more on a fresh QP: the answer may have been lost on the path (a lossy link,
 * a switch dropping, a mirror), which no capture at the tester tells from a DUT that did not send
 * it. The first run's result, counters and pcapng are kept (x->first...); the verdict is the
 * second run's, but a PASS then is INCONCLUSIVE (the rule held the second time: the first time
 * is unexplained), and the reason names the first run's. */
static void rerun(const struct conf_opts *o, const struct setup_method *m, uint16_t port, unsigned rn,
		  struct run_result *x, int64_t ts)
{
	const struct conf_test *t = x->t;
	x->rerun = true;
	x->first = x->r;
	x->first_seconds = (double)(now_ns() - ts) / 1e9;
	x->first_counters = x->counters;
	x->n_first_counters = x->n_counters;
	x->first_counters_read = x->counters_read;
	x->counters = NULL;
	x->n_counters = 0;
	x->counters_read = x->counters_contradict = false;
	if (o->pcap_dir && held.s.n_frames)
		x->first_pcap_written = write_test_pcapng(o, &held.s, t, rn, &x->first, true) == 0;
	printf("%-4s %-12s %s -- %s; run again\n", t->id, "(first run)", verdict_name(x->first.v), x->first.reason);
	fflush(stdout);
	session_end();
	x->r = (struct conf_result){.measured_ms = -1, .tolerance_pct = -1, .rule = t->rule};
	run_attempt(o, m, port, x);
	char was[400];
	snprintf(was, sizeof(was), "%.*s", (int)sizeof(was) - 1, x->first.reason);
	size_t len = strlen(x->r.reason);
	if (x->r.v == V_PASS)
		v_set(&x->r, V_INCONCLUSIVE, "the first run FAILed on an answer not seen (%s); run again on a fresh QP, the "
		      "test passed: the answer was lost on the path (a lossy link, a switch), or the DUT does not always "
		      "send it", was);
	else
		snprintf(x->r.reason + len, EVIDENCE_LEN - len, "%sthe first run: %s (%s)", len ? "; " : "",
			 verdict_name(x->first.v), was);
}

int main(int argc, char **argv)
{
	struct conf_opts o;
	char err[CONF_ERRLEN] = "", buf[256];
	int rc = options_parse(argc, argv, &o, err);
	if (rc > 0)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "roceconform: %s\n", err);
		options_usage(stderr);
		return EXIT_CONF_USAGE;
	}
	if (o.list) {
		if (o.list_markdown && o.expect && expect_load(o.expect, &held.ex, err) < 0)
			die(EXIT_CONF_USAGE, "%s", err);
		if (o.list_markdown)
			list_markdown(stdout, o.expect ? &held.ex : NULL, o.expect);
		else
			list_text(stdout);
		run_free();
		return 0;
	}
	if (o.tests && unknown_selector(o.tests, buf, sizeof(buf)))
		die(EXIT_CONF_USAGE, "--tests: \"%s\" selects no test (see --list)", buf);
	uint16_t port;
	const struct setup_method *m = setup_find(o.setup, &port, err);
	if (!m)
		die(EXIT_CONF_USAGE, "%s", err);
	if (!o.have_dut)
		die(EXIT_CONF_USAGE, "%s", "no --dut: roceconform sends only to the DUT it is given");
	const char *bad = addr_unusable(&o.dut);
	if (bad)
		die(EXIT_CONF_USAGE, "--dut is a %s address: refused", bad);
	if (o.recv_size < 1)
		o.recv_size = 4096;
	if (o.expect && expect_load(o.expect, &held.ex, err) < 0)
		die(EXIT_CONF_USAGE, "%s", err);
	if (!o.have_local) {
		if (o.iface && !o.dry_run)
			local_from_iface(&o);
		else
			parse_addr(o.dut.family == 4 ? "192.0.2.1" : "2001:db8::1", &o.local);
		o.have_local = true;
	}
	if (o.local.family != o.dut.family)
		die(EXIT_CONF_USAGE, "%s", "--local-ip and --dut must be of the same IP version");
	refuse_dut(&o);
	if (!o.dry_run && !o.iface)
		die(EXIT_CONF_USAGE, "%s", "no --iface: roceconform sends only on the interface it is given (or use --dry-run)");
	if (!o.dut_ssh && (o.dut_ssh_key || o.n_dut_ssh_opts))
		die(EXIT_CONF_USAGE, "%s", "--dut-ssh-key and --dut-ssh-opt need --dut-ssh");
	if (o.dut_ssh && agent_parse_target(&held.agent, o.dut_ssh, err) < 0)
		die(EXIT_CONF_USAGE, "%s", err);
	open_outputs(&o);
	if (o.dry_run)
		return dry_run(&o, m);

	open_agent(&o);
	if (link_open(&held.link, &o, err) < 0)
		die(EXIT_CONF_USAGE, "%s", err);
	char guard[CONF_ERRLEN] = "";
	held.hold = host_stack_guard(&o, guard, err);
	if (held.hold == -2)
		die(EXIT_CONF_USAGE, "%s", err);
	char dut_s[64], local_s[64], mac_s[20];
	addr_str(&o.dut, dut_s, sizeof(dut_s));
	addr_str(&o.local, local_s, sizeof(local_s));
	if (link_resolve(&held.link, 3000, err) < 0)
		die(EXIT_CONF_USAGE, "%s", err);
	printf("roceconform: DUT %s (%s) on %s, tester %s, setup %s port %u, at most %u packets/s\n", dut_s,
	       mac_str(held.link.dut_mac, mac_s, sizeof(mac_s)), o.iface, local_s, m->name, port, o.pps);
	printf("host stack: %s\ncapture filter: %s\n", guard, held.link.filter);
	fflush(stdout);

	size_t cap = conf_n_tests * o.repeat, n = 0;
	if (!(held.rs = calloc(cap, sizeof(*held.rs))))
		die(EXIT_CONF_USAGE, "%s", "out of memory");
	int64_t t0 = now_ns(), total_deadline = t0 + (int64_t)o.total_timeout_s * 1000000000;
	unsigned caps = caps_of(&o, m);
	bool any_setup = false;
	for (size_t i = 0; i < conf_n_tests; i++) {
		const struct conf_test *t = &conf_tests[i];
		if (!test_selected(t->id, o.tests))
			continue;
		for (unsigned rn = 1; rn <= o.repeat; rn++) {
			struct run_result *x = &held.rs[n++];
			held.n_rs = n;
			x->t = t;
			x->run = rn;
			x->r.measured_ms = -1;
			x->r.tolerance_pct = -1;
			x->r.rule = t->rule;
			int64_t ts = now_ns();
			const char *why = missing(t, caps, m, buf, sizeof(buf));
			memset(&held.s, 0, sizeof(held.s));
			if (why) {
				v_set(&x->r, V_NA, "%s", why);
			} else if (now_ns() > total_deadline) {
				v_set(&x->r, V_INCONCLUSIVE, "the whole run's time limit (--timeout %u s) was reached", o.total_timeout_s);
			} else {
				bool setup_ok = run_attempt(&o, m, port, x);
				if (!setup_ok && !any_setup)   /* the DUT never answered the setup */
					die(EXIT_CONF_USAGE, "%s: %s", t->id, x->r.reason);
				any_setup |= setup_ok;
				if (setup_ok && !o.no_rerun && x->r.v == V_FAIL && x->r.missing && now_ns() < total_deadline)
					rerun(&o, m, port, rn, x, ts);
			}
			x->seconds = (double)(now_ns() - ts) / 1e9;
			expect_apply(expect_find(&held.ex, t->id), &x->r);
			if (o.pcap_dir && held.s.n_frames)
				x->pcap_written = write_test_pcapng(&o, &held.s, t, rn, &x->r, false) == 0;
			session_end();
			printf("%-4s %-12s %s%s%s\n", t->id, verdict_name(x->r.v), t->title, x->r.reason[0] ? " -- " : "",
			       x->r.reason);
			fflush(stdout);
		}
	}
	link_close(&held.link);
	printf("\n");
	report_table(stdout, held.rs, n, o.verbose);
	struct run_info info = {o.iface, dut_s, local_s, o.setup, "live", t0, (double)(now_ns() - t0) / 1e9, o.pps,
				held.pcap_dir, o.repeat, held.agent.on ? &held.agent : NULL, o.dut_ssh};
	int status = write_reports(&info, n);
	int verdicts = results_status(n);
	run_free();
	return status ? status : verdicts;
}
