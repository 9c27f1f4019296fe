/* test_conform_agent.c: roceconform's DUT agent (conformance/agent.c) without a DUT: the
 * --dut-ssh target, the probe's facts, the counter snapshots and their deltas, the per-driver
 * counter table, the rule that flags a verdict the counters contradict, and the reports' "dut"
 * object, "counters" and JUnit properties and counter lines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "options.h"
#include "report.h"
#include "session.h"
#include "setup.h"

static const struct conf_test *test_of(const char *id)
{
	for (size_t i = 0; i < conf_n_tests; i++)
		if (!strcmp(conf_tests[i].id, id))
			return &conf_tests[i];
	cr_assert_fail("no test %s", id);
	return NULL;
}

Test(agent, target)
{
	struct agent a;
	char err[CONF_ERRLEN];
	memset(&a, 0, sizeof(a));
	cr_assert_eq(agent_parse_target(&a, "root@10.0.0.2:2222", err), 0, "%s", err);
	cr_expect_str_eq(a.user, "root");
	cr_expect_str_eq(a.host, "10.0.0.2");
	cr_expect_eq(a.port, 2222);
	cr_assert_eq(agent_parse_target(&a, "dut-1", err), 0, "%s", err);
	cr_expect_str_eq(a.user, "");
	cr_expect_str_eq(a.host, "dut-1");
	cr_expect_eq(a.port, 0);
	cr_assert_eq(agent_parse_target(&a, "lab@[fe80::1%eth0]:22", err), 0, "%s", err);
	cr_expect_str_eq(a.host, "fe80::1%eth0");
	cr_expect_eq(a.port, 22);
	cr_assert_eq(agent_parse_target(&a, "lab@2001:db8::7", err), 0, "%s", err);
	cr_expect_str_eq(a.host, "2001:db8::7");
	cr_expect_eq(a.port, 0);
	static const char *const bad[] = {"root@h:", "root@h:65536", "root@h:2x", "@h", "root@", "-oProxyCommand=x",
					  "root@-oProxyCommand=x", "root@[::1", "root@[::1]x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(agent_parse_target(&a, bad[i], err), -1, "%s accepted", bad[i]);
		cr_expect(strstr(err, "USER@HOST[:PORT]"), "%s: %s", bad[i], err);
	}
}

/* What the probe prints on the Soft-RoCE guest (trimmed). */
static const char probe_rxe[] =
	"rdma_device=rxe0\nport=1\ngid_index=1\ngid=0000:0000:0000:0000:0000:ffff:0a4d:0001\nnetdev=eth0\n"
	"kernel=6.1.0-57-amd64\nrdma_driver=rdma_rxe\n"
	"ethtool.driver=virtio_net\nethtool.version=1.0.0\nethtool.firmware-version=\nethtool.bus-info=0000:00:03.0\n"
	"ethtool.supports-statistics=yes\n"
	"ibv.hca_id=rxe0\nibv.transport=InfiniBand (0)\nibv.fw_ver=0.0.0\nibv.node_guid=5054:00ff:fe77:0001\n"
	"ibv.vendor_id=0xffffff\nibv.state=PORT_ACTIVE (4)\nibv.active_mtu=1024 (3)\nibv.link_layer=Ethernet\n";

Test(agent, facts)
{
	struct agent a;
	char err[CONF_ERRLEN];
	memset(&a, 0, sizeof(a));
	cr_assert_eq(agent_parse_facts(&a, probe_rxe, err), 0, "%s", err);
	cr_expect_str_eq(a.dev, "rxe0");
	cr_expect_str_eq(a.netdev, "eth0");
	cr_expect_str_eq(a.driver, "rdma_rxe");
	cr_expect_eq(a.ib_port, 1);
	cr_expect_eq(a.gid_index, 1);
	cr_expect_str_eq(agent_fact(&a, "kernel"), "6.1.0-57-amd64");
	cr_expect_str_eq(agent_fact(&a, "ethtool.driver"), "virtio_net");
	cr_expect_str_eq(agent_fact(&a, "ethtool.firmware-version"), "");
	cr_expect_str_eq(agent_fact(&a, "ibv.fw_ver"), "0.0.0");
	cr_expect_str_eq(agent_fact(&a, "ibv.active_mtu"), "1024 (3)");
	cr_expect_null(agent_fact(&a, "ethtool.supports-statistics"), "only the facts listed are kept");
	cr_expect_null(agent_fact(&a, "ibv.hca_id"));
	/* the probe's own error, and a probe that said nothing */
	cr_expect_eq(agent_parse_facts(&a, "error=the DUT has no RoCE v2 GID 0000:0000\n", err), -1);
	cr_expect_str_eq(err, "the DUT has no RoCE v2 GID 0000:0000");
	cr_expect_eq(agent_parse_facts(&a, "rdma_device=rxe0;reboot\nport=1\ngid_index=1\nnetdev=eth0\n", err), -1);
	cr_expect(strstr(err, "not plain names"), "%s", err);
	cr_expect_eq(agent_parse_facts(&a, "rdma_device=rxe0\nport=1\ngid_index=1\nnetdev=$(x)\n", err), -1);
	cr_expect_eq(agent_parse_facts(&a, "kernel=6.1\n", err), -1);
	cr_expect(strstr(err, "RDMA device"), "%s", err);
}

Test(agent, counters_and_deltas)
{
	struct agent_counters b = {0}, c = {0};
	struct agent_delta *d;
	cr_assert_eq(agent_parse_counters("rdma:rcvd_pkts 10\nrdma:sent_pkts 7\nrdma:lifespan 10\n"
					  "ethtool:rx_queue_0_packets 100\nethtool:tx queue 0 bytes 5\n"
					  "pid=1234\nnot a counter\nrdma:junk 12x\n\n", &b), 5);
	cr_assert_not_null(b.c);
	cr_expect_str_eq(b.c[4].name, "ethtool:tx queue 0 bytes", "a name with spaces: up to the last one");
	cr_expect_eq(b.c[4].value, 5);
	/* after: rcvd +3, sent unchanged, a new counter, a counter that went down, CRLF lines */
	cr_assert_eq(agent_parse_counters("rdma:rcvd_pkts 13\r\nrdma:sent_pkts 7\nrdma:lifespan 10\n"
					  "ethtool:rx_queue_0_packets 98\nethtool:tx queue 0 bytes 5\n"
					  "rdma:out_of_seq_request 1\n", &c), 6);
	size_t n = agent_deltas(&b, &c, &d);
	cr_assert_eq(n, 3);
	cr_assert_not_null(d);
	cr_expect_str_eq(d[0].name, "rdma:rcvd_pkts");
	cr_expect_eq(d[0].delta, 3);
	cr_expect_str_eq(d[1].name, "ethtool:rx_queue_0_packets");
	cr_expect_eq(d[1].delta, -2);
	cr_expect_str_eq(d[2].name, "rdma:out_of_seq_request");
	cr_expect_eq(d[2].delta, 1);
	free(d);
	/* nothing after: no deltas */
	struct agent_counters none = {0};
	cr_expect_eq(agent_deltas(&b, &none, &d), 0);
	agent_counters_free(&b);
	agent_counters_free(&c);
}

Test(agent, counter_table)
{
	const char *meaning;
	cr_expect_eq(agent_role("rdma_rxe", "rdma:rcvd_pkts", &meaning), AR_RCVD_OK);
	cr_expect(meaning && strstr(meaning, "ICRC"));
	cr_expect_eq(agent_role("rdma_rxe", "rdma:out_of_seq_request", NULL), AR_OUT_OF_SEQ);
	cr_expect_eq(agent_role("rdma_rxe", "rdma:rcvd_rnr_err", NULL), AR_RNR_NAK_RCVD);
	cr_expect_eq(agent_role("rdma_rxe", "rdma:np_cnp_sent", NULL), AR_NONE, "rxe has no CNP counters");
	cr_expect_eq(agent_role("mlx5_core", "rdma:out_of_sequence", NULL), AR_OUT_OF_SEQ);
	cr_expect_eq(agent_role("mlx5_core", "rdma:np_cnp_sent", NULL), AR_CNP_SENT);
	cr_expect_eq(agent_role("mlx5_core", "ethtool:rx_prio3_pause", NULL), AR_PFC_RX);
	cr_expect_eq(agent_role("mlx5_core", "ethtool:rx_prio3_pause_duration", NULL), AR_NONE);
	cr_expect_eq(agent_role("mlx5_core", "rdma:rcvd_pkts", &meaning), AR_NONE);
	cr_expect_null(meaning);
	cr_expect_eq(agent_role("", "rdma:rcvd_pkts", NULL), AR_NONE, "an unknown driver maps nothing");
}

Test(agent, contradiction)
{
	struct conf_result r = {.v = V_PASS};
	char why[512];
	struct agent_delta accepted[] = {{"rdma:rcvd_pkts", 3}, {"ethtool:rx_queue_0_packets", 3}};
	struct agent_delta dropped[] = {{"rdma:rcvd_pkts", 2}, {"rdma:sent_pkts", 2}};
	/* a silent drop passed, yet rxe counted all 3 packets sent as received: the spoiled one too */
	cr_expect(agent_contradiction("rdma_rxe", test_of("C1a"), &r, accepted, 2, 3, why, sizeof(why)));
	cr_expect(strstr(why, "silent drop") && strstr(why, "rdma:rcvd_pkts +3") && strstr(why, "3 packets"), "%s", why);
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("C1a"), &r, dropped, 2, 3, why, sizeof(why)));
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("C3b"), &r, dropped, 2, 3, why, sizeof(why)));
	cr_expect(agent_contradiction("rdma_rxe", test_of("C5"), &r, accepted, 2, 3, why, sizeof(why)));
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("C6"), &r, accepted, 1, 3, why, sizeof(why)) &&
		      strstr(why, "silent"), "C6 is no silent drop");
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("C1a"), &r, accepted, 2, 0, why, sizeof(why)),
		      "nothing sent: nothing to judge");
	/* only a PASS is judged; a driver without the counter is not */
	r.v = V_FAIL;
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("C1a"), &r, accepted, 2, 3, why, sizeof(why)));
	r.v = V_PASS;
	cr_expect_not(agent_contradiction("mlx5_core", test_of("C1a"), &r, accepted, 2, 3, why, sizeof(why)));
	cr_expect_not(agent_contradiction("", test_of("C1a"), &r, accepted, 2, 3, why, sizeof(why)));
	/* a NAK-Seq test passed without the out-of-sequence counter moving */
	cr_expect(agent_contradiction("rdma_rxe", test_of("A5"), &r, dropped, 2, 3, why, sizeof(why)));
	cr_expect(strstr(why, "rdma:out_of_seq_request did not move"), "%s", why);
	struct agent_delta oos[] = {{"rdma:out_of_seq_request", 1}}, mlx[] = {{"rdma:out_of_sequence", 1}};
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("A5"), &r, oos, 1, 3, why, sizeof(why)));
	cr_expect_not(agent_contradiction("mlx5_core", test_of("A9"), &r, mlx, 1, 3, why, sizeof(why)));
	cr_expect(agent_contradiction("mlx5_core", test_of("A9"), &r, oos, 1, 3, why, sizeof(why)));
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("A1"), &r, dropped, 0, 3, why, sizeof(why)),
		      "A1 has no counter rule");
	/* F1 on rxe: no CNP counter, no judgement; on mlx5 a CNP must have been counted */
	cr_expect_not(agent_contradiction("rdma_rxe", test_of("F1"), &r, NULL, 0, 3, why, sizeof(why)));
	cr_expect(agent_contradiction("mlx5_core", test_of("F1"), &r, NULL, 0, 3, why, sizeof(why)));
}

/* A minimal Ethernet frame: IPv4 or IPv6 (optionally VLAN-tagged) UDP to dport, or ARP. */
static uint32_t frame(uint8_t *b, int ipv, bool vlan, uint16_t dport)
{
	uint32_t o = 12;
	memset(b, 0, 128);
	if (vlan) {
		b[o++] = 0x81;
		b[o++] = 0x00;
		o += 2;
	}
	if (!ipv) {
		b[o] = 0x08;
		b[o + 1] = 0x06;
		return o + 30;
	}
	b[o] = ipv == 4 ? 0x08 : 0x86;
	b[o + 1] = ipv == 4 ? 0x00 : 0xdd;
	o += 2;
	uint32_t udp = o + (ipv == 4 ? 20 : 40);
	if (ipv == 4) {
		b[o] = 0x45;
		b[o + 9] = 17;
	} else {
		b[o + 6] = 17;
	}
	b[udp + 2] = (uint8_t)(dport >> 8);
	b[udp + 3] = (uint8_t)dport;
	return udp + 8 + 12 + 4;
}

Test(agent, roce_sent)
{
	uint8_t b[6][128];
	struct rec_frame f[6];
	struct session s;
	memset(&s, 0, sizeof(s));
	memset(f, 0, sizeof(f));
	int ipv[6] = {4, 6, 4, 0, 4, 4};
	bool vlan[6] = {false, false, true, false, false, false}, sent[6] = {true, true, true, true, true, false};
	uint16_t port[6] = {4791, 4791, 4791, 0, 53, 4791};
	for (int i = 0; i < 6; i++) {
		f[i].len = frame(b[i], ipv[i], vlan[i], port[i]);
		f[i].bytes = b[i];
		f[i].sent = sent[i];
	}
	s.frames = f;
	s.n_frames = 6;
	cr_expect_eq(agent_roce_sent(&s), 3, "RoCE v4, v6 and tagged sent; not ARP, DNS, nor a received one");
}

/* A report writer's output, whole, in a malloc'ed string. */
static char *written(void (*w)(FILE *, const struct run_info *, const struct run_result *, size_t),
		     const struct run_info *info, const struct run_result *rs, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert(f);
	w(f, info, rs, n);
	fclose(f);
	return buf;
}

/* Whether python3 reads text with script (which reads standard input) and exits 0. */
static bool python_reads(const char *script, const char *text)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "python3 -c '%s'", script);
	FILE *p = popen(cmd, "w");  // NOLINT(cert-env33-c): the test's own python3 reading the report, a fixed command
	cr_assert(p);
	fputs(text, p);
	return pclose(p) == 0;
}

Test(agent, reports)
{
	struct agent a;
	char err[CONF_ERRLEN];
	memset(&a, 0, sizeof(a));
	cr_assert_eq(agent_parse_facts(&a, probe_rxe, err), 0, "%s", err);
	struct agent_delta d[2] = {{"rdma:rcvd_pkts", 3}, {"ethtool:rx \"q\" <0>", 4}};
	struct run_result rs[2];
	memset(rs, 0, sizeof(rs));
	for (int i = 0; i < 2; i++) {
		rs[i].t = test_of(i ? "A1" : "C1a");
		rs[i].run = 1;
		rs[i].r.v = V_PASS;
		rs[i].r.measured_ms = rs[i].r.tolerance_pct = -1;
	}
	rs[0].counters_read = rs[0].counters_contradict = true;
	rs[0].counters = d;
	rs[0].n_counters = 2;
	rs[1].counters_read = true;
	struct run_info info = {"rxebr0", "10.77.0.1", "10.77.0.50", "rc-pingpong", "live", 0, 1.0, 1000, NULL, 1,
				&a, "root@127.0.0.1:10022"};
	char *buf = written(report_json_to, &info, rs, 2);
	cr_expect(strstr(buf, "\"dut\": {\"ip\": \"10.77.0.1\", \"agent\": \"root@127.0.0.1:10022\", \"rdma_device\": \"rxe0\""), "%s", buf);
	cr_expect(strstr(buf, "\"kernel\": \"6.1.0-57-amd64\""));
	cr_expect(strstr(buf, "\"ethtool.driver\": \"virtio_net\""));
	cr_expect(strstr(buf, "\"counters\": {\"rdma:rcvd_pkts\": 3, \"ethtool:rx \\\"q\\\" <0>\": 4}, \"counters_contradict\": true"), "%s", buf);
	cr_expect(strstr(buf, "\"counters\": {}, \"counters_contradict\": false"));
	cr_expect(python_reads("import json, sys; r = json.load(sys.stdin); "
			       "assert r[\"dut\"][\"gid_index\"] == \"1\" and r[\"results\"][0][\"counters\"][\"rdma:rcvd_pkts\"] == 3", buf),
		  "the JSON does not load: %s", buf);
	free(buf);
	buf = written(report_junit_to, &info, rs, 2);
	cr_expect(strstr(buf, "<property name=\"dut.agent\" value=\"root@127.0.0.1:10022\"/>"), "%s", buf);
	cr_expect(strstr(buf, "<property name=\"dut.ethtool.driver\" value=\"virtio_net\"/>"));
	cr_expect(strstr(buf, "counter rdma:rcvd_pkts +3 (packets past the header and ICRC checks"), "%s", buf);
	cr_expect(strstr(buf, "counter ethtool:rx &quot;q&quot; &lt;0&gt; +4\n"), "%s", buf);
	cr_expect(strstr(buf, "counters contradict the verdict"));
	cr_expect(strstr(buf, "counters: none changed on the DUT"));
	cr_expect(python_reads("import sys, xml.etree.ElementTree as E; E.parse(sys.stdin)", buf), "the JUnit does not parse");
	free(buf);
	/* without the agent: "dut" holds the address alone, no counters */
	info.agent = NULL;
	buf = written(report_json_to, &info, rs, 2);
	cr_expect(strstr(buf, "\"dut\": {\"ip\": \"10.77.0.1\"}, "), "%s", buf);
	cr_expect_null(strstr(buf, "counters"));
	free(buf);
}

/* A stand-in for ssh: it logs its arguments, answers the probe with probe_rxe and every counter
 * snapshot with 300 counters (more than a pipe read holds at once), rdma:rcvd_pkts going up by 2
 * a snapshot, and "pid=4242" for a server started. */
static const char fake_ssh[] =
	"#!/bin/sh\n"
	"for last; do :; done\n"
	"echo \"$*\" >> \"$FAKE_DIR/log\"\n"
	"case \"$last\" in\n"
	"*gids*) cat \"$FAKE_DIR/probe\";;\n"
	"*hw_counters*) n=$(cat \"$FAKE_DIR/n\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$FAKE_DIR/n\"\n"
	"  i=0; while [ $i -lt 299 ]; do echo \"ethtool:rx_queue_${i}_packets_long_name $((i * n))\"; i=$((i + 1)); done\n"
	"  echo \"rdma:rcvd_pkts $((n * 2))\"\n"
	"  case \"$last\" in *timeout*) echo pid=4242;; esac;;\n"
	"esac\n";

static void write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

Test(agent, over_a_fake_ssh)
{
	char dir[] = "/tmp/test_conform_agentXXXXXX", path[512], log[16384], err[CONF_ERRLEN];
	cr_assert(mkdtemp(dir));
	write_file(dir, "ssh", fake_ssh, 0755);
	write_file(dir, "probe", probe_rxe, 0644);
	snprintf(path, sizeof(path), "%s:/usr/bin:/bin", dir);
	setenv("PATH", path, 1);
	setenv("FAKE_DIR", dir, 1);
	struct agent a;
	struct conf_opts o;
	memset(&a, 0, sizeof(a));
	memset(&o, 0, sizeof(o));
	parse_addr("10.77.0.1", &o.dut);
	o.pmtu = 1024;
	o.recv_size = 4096;
	o.setup_timeout_s = 40;
	o.test_timeout_ms = 30000;
	cr_assert_eq(agent_parse_target(&a, "root@dut:2222", err), 0, "%s", err);
	cr_assert_eq(agent_open(&a, &o, err), 0, "%s", err);
	cr_expect_str_eq(a.dev, "rxe0");
	cr_assert_eq(agent_test_begin(&a, &o, &setup_rc_pingpong, 18525, err), 0, "%s", err);
	cr_expect_eq(a.server_pid, 4242);
	struct agent_delta *d;
	size_t n;
	cr_assert_eq(agent_test_end(&a, &d, &n, err), 0, "%s", err);
	cr_expect_eq(n, 299, "every counter read, the unchanged one left out (got %zu)", n);
	cr_expect(n && !strcmp(d[n - 1].name, "rdma:rcvd_pkts") && d[n - 1].delta == 2);
	free(d);
	cr_expect_eq(a.server_pid, 0);
	/* uc-pingpong's server: ibv_uc_pingpong with rc-pingpong's options */
	cr_assert_eq(agent_test_begin(&a, &o, &setup_uc_pingpong, 18530, err), 0, "%s", err);
	cr_assert_eq(agent_test_end(&a, &d, &n, err), 0, "%s", err);
	free(d);
	/* ud-pingpong's server: ibv_ud_pingpong, no -m, -s at most the PMTU */
	cr_assert_eq(agent_test_begin(&a, &o, &setup_ud_pingpong, 18531, err), 0, "%s", err);
	cr_assert_eq(agent_test_end(&a, &d, &n, err), 0, "%s", err);
	free(d);
	/* a second test's server, then a signal: it is killed, the connection ended, the directory gone */
	cr_assert_eq(agent_test_begin(&a, &o, &setup_perftest_read, 18527, err), 0, "%s", err);
	char ctl_dir[64];
	snprintf(ctl_dir, sizeof(ctl_dir), "%s", a.dir);
	agent_on_signal(&a);
	agent_close(&a);  /* after the signal's clean-up: frees what is left */
	cr_expect_neq(access(ctl_dir, F_OK), 0, "%s left behind", ctl_dir);
	snprintf(path, sizeof(path), "%s/log", dir);
	FILE *f = fopen(path, "r");
	cr_assert(f);
	log[fread(log, 1, sizeof(log) - 1, f)] = 0;
	fclose(f);
	cr_expect(strstr(log, "-o BatchMode=yes -o ConnectTimeout=10 -o ControlMaster=auto -o ControlPersist="), "%s", log);
	cr_expect(strstr(log, "-o ControlPath=/tmp/roceconform-ssh."));
	cr_expect(strstr(log, "-p 2222 -l root -T -- dut "));
	cr_expect(strstr(log, "ibv_rc_pingpong -d rxe0 -i 1 -g 1 -n 1 -s 4096 -m 1024 -p 18525"), "%s", log);
	cr_expect(strstr(log, "ib_read_bw -F -d rxe0 -i 1 -x 1 -m 1024 -p 18527"));
	cr_expect(strstr(log, "ibv_uc_pingpong -d rxe0 -i 1 -g 1 -n 1 -s 4096 -m 1024 -p 18530"), "%s", log);
	cr_expect(strstr(log, "ibv_ud_pingpong -d rxe0 -i 1 -g 1 -n 1 -s 1024 -p 18531"), "%s", log);
	const char *k = strstr(log, "kill 4242");
	cr_expect(k && strstr(k + 1, "kill 4242"), "killed after the test and on the signal");
	cr_expect(strstr(log, "-O exit"));
	cr_expect_null(strstr(log, "assword"), "never a password");
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_expect_eq(system(path), 0);  // NOLINT(cert-env33-c): removes the test's own temporary directory
}
