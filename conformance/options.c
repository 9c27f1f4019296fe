/* options.c: roceconform's command line (see options.h and README.md "roceconform"). */
#include "options.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"
#include "textnum.h"

void options_usage(FILE *f)
{
	fprintf(f,
		"usage: roceconform --iface IF --dut IP [options]      run the catalogue against a DUT (root)\n"
		"       roceconform --dry-run FILE.pcap --dut IP [...]  write every stimulus to a pcap, send nothing\n"
		"       roceconform --list [--format markdown [--expect FILE]]\n"
		"                                                     the catalogue, one test a line; or as a\n"
		"                                                     document (what a DUT listed in FILE earns)\n"
		"\n"
		"target:\n"
		"  --iface IF            send and capture on this interface only\n"
		"  --dut IP              the device under test (IPv4 or IPv6; a unicast address of another host)\n"
		"  --dut-mac MAC         its unicast MAC (default: resolved by ARP / neighbour discovery)\n"
		"  --local-ip IP         the tester's address, advertised as its GID (default: the interface's);\n"
		"                        roceconform answers ARP/ND for it when the host does not own it\n"
		"  --local-mac MAC       the tester's source MAC (default: the interface's)\n"
		"  --setup METHOD[:PORT] how the QP is brought up (default rc-pingpong):\n");
	setup_list();
	fprintf(f,
		"  --pmtu N              the DUT's path MTU in bytes (256..4096, default 1024)\n"
		"  --recv-size N         the DUT's receive buffer, rc/uc-pingpong's -s (default 4096)\n"
		"  --dut-size N          the perftest server's -s (default 65536, atomic 8), rping's -S (64)\n"
		"  --vlan ID --pcp N     send 802.1Q-tagged (default untagged)\n"
		"  --dscp N              IP DSCP of the stimuli (default 0)\n"
		"  --ecn                 the DUT does ECN -> CNP (enables F tests)\n"
		"  --dut-cc              the DUT reacts to CNPs (RoCE congestion management: enables F4)\n"
		"  --pfc PRIO            the DUT does PFC on priority PRIO (enables G tests; a direct link)\n"
		"DUT agent (the DUT's servers started for each test, its facts and counters in the reports):\n"
		"  --dut-ssh USER@HOST[:PORT]  log in to the DUT with OpenSSH's ssh (key-based, BatchMode)\n"
		"  --dut-ssh-key FILE    the private key for it (default: ssh's own)\n"
		"  --dut-ssh-opt OPTION  an ssh option (ssh -o), e.g. UserKnownHostsFile=FILE (up to %d times)\n"
		"selection and timing:\n"
		"  --tests LIST          IDs and prefixes, comma-separated (A1,A5,C or B1)\n"
		"  --repeat N            run each test N times (default 1)\n"
		"  --no-rerun            a FAIL resting only on answers not seen stands (default: the test is run\n"
		"                        once more, and a pass then makes it INCONCLUSIVE: lost on the path)\n"
		"  --pps N               send at most N packets a second (default %d, at most %d)\n"
		"  --test-timeout S      per test (default 30)   --timeout S  whole run (default 1800)\n"
		"  --setup-timeout S     for the DUT's server to answer, per test (default 40)\n"
		"  --tolerance PCT       timing tolerance of timer verdicts (default 25)\n"
		"output:\n"
		"  --json FILE  --junit FILE  --pcap-dir DIR (one pcapng per test)  -v (every packet);\n"
		"                        a dry run writes them too (every test N/A: nothing is judged)\n"
		"  --expect FILE         known deviations: lines \"ID VERDICT reason\"\n"
		"self-test and special setups:\n"
		"  --capture-filter EXPR replace the capture's BPF filter\n"
		"  --fault psn           advertise a PSN other than the one sent (the tests must then fail)\n"
		"  --allow-host-stack    run although UDP 4791 is taken on the host (a kernel RoCE stack)\n"
		"  --help, -h            this text   --version  roceconform's version\n"
		"exit status: 0 all PASS or N/A, 1 a FAIL or an unexpected pass (a verdict --expect lists as FAIL or\n"
		"             INCONCLUSIVE is PASS), 3 no FAIL but INCONCLUSIVE, 2 usage or setup error\n",
		CONF_MAX_SSH_OPTS, CONF_DEFAULT_PPS, CONF_MAX_PPS);
}

int parse_addr(const char *s, struct conf_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->ip) == 1) {
		a->family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->ip) == 1) {
		a->family = 6;
		return 0;
	}
	return -1;
}

const char *addr_unusable(const struct conf_addr *a)
{
	static const uint8_t zero[16];
	if (a->family == 4) {
		if (!memcmp(a->ip, zero, 4))
			return "unspecified";
		if (a->ip[0] >= 224 && a->ip[0] <= 239)
			return "multicast";
		if (a->ip[0] == 255 && a->ip[1] == 255 && a->ip[2] == 255 && a->ip[3] == 255)
			return "broadcast";
		if (a->ip[0] == 127)
			return "loopback";
		return NULL;
	}
	if (!memcmp(a->ip, zero, 16))
		return "unspecified";
	if (a->ip[0] == 0xff)
		return "multicast";
	if (!memcmp(a->ip, zero, 15) && a->ip[15] == 1)
		return "loopback";
	return NULL;
}

const char *mac_unusable(const uint8_t mac[6], const uint8_t *own)
{
	static const uint8_t zero[6], bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	if (!memcmp(mac, bcast, 6))
		return "the broadcast MAC";
	if (mac[0] & 1)     /* the I/G bit: a group address */
		return "a multicast (group) MAC";
	if (!memcmp(mac, zero, 6))
		return "the all-zero MAC";
	if (own && !memcmp(mac, own, 6))
		return "the tester's own MAC";
	return NULL;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		uint64_t v;
		if (!(s = hex_field(s, 2, i < 5 ? ':' : 0, &v)))
			return -1;
		mac[i] = (uint8_t)v;
	}
	return *s ? -1 : 0;
}

static int number(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static bool sel_matches(const char *id, const char *sel, size_t len)
{
	if (strlen(id) < len || strncasecmp(id, sel, len) != 0)
		return false;
	if (id[len] == 0)
		return true;
	bool letters = true;
	for (size_t i = 0; i < len; i++)
		letters &= isalpha((unsigned char)sel[i]) != 0;
	return letters || !isdigit((unsigned char)id[len]);
}

bool test_selected(const char *id, const char *sel)
{
	if (!sel)
		return true;
	for (const char *p = sel; *p;) {
		size_t len = strcspn(p, ",");
		if (len && sel_matches(id, p, len))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

const char *unknown_selector(const char *sel, char *buf, size_t n)
{
	for (const char *p = sel; *p;) {
		size_t len = strcspn(p, ",");
		bool any = false;
		for (size_t i = 0; i < conf_n_tests && !any; i++)
			any = len && sel_matches(conf_tests[i].id, p, len);
		if (!any) {
			snprintf(buf, n, "%.*s", (int)len, p);
			return buf;
		}
		p += len + (p[len] == ',');
	}
	return NULL;
}

enum {
	O_IFACE = 256, O_DUT, O_DUT_MAC, O_LOCAL_IP, O_LOCAL_MAC, O_SETUP, O_PMTU, O_RECV, O_DUT_SIZE, O_VLAN,
	O_PCP, O_DSCP, O_PPS, O_TTIME, O_TIME, O_STIME, O_TOL, O_TESTS, O_REPEAT, O_LIST, O_FORMAT, O_DRY, O_JSON, O_JUNIT,
	O_PCAPDIR, O_EXPECT, O_FILTER, O_ECN, O_PFC, O_FAULT, O_HOST, O_HELP, O_VERSION, O_SSH, O_SSH_KEY, O_SSH_OPT, O_DUT_CC,
	O_NO_RERUN,
};

int options_parse(int argc, char **argv, struct conf_opts *o, char err[CONF_ERRLEN])
{
	static const struct option lo[] = {
		{"iface", 1, 0, O_IFACE}, {"dut", 1, 0, O_DUT}, {"dut-mac", 1, 0, O_DUT_MAC},
		{"local-ip", 1, 0, O_LOCAL_IP}, {"local-mac", 1, 0, O_LOCAL_MAC}, {"setup", 1, 0, O_SETUP},
		{"pmtu", 1, 0, O_PMTU}, {"recv-size", 1, 0, O_RECV}, {"dut-size", 1, 0, O_DUT_SIZE},
		{"vlan", 1, 0, O_VLAN}, {"pcp", 1, 0, O_PCP}, {"dscp", 1, 0, O_DSCP}, {"pps", 1, 0, O_PPS},
		{"test-timeout", 1, 0, O_TTIME}, {"timeout", 1, 0, O_TIME}, {"setup-timeout", 1, 0, O_STIME},
		{"tolerance", 1, 0, O_TOL}, {"tests", 1, 0, O_TESTS}, {"repeat", 1, 0, O_REPEAT},
		{"no-rerun", 0, 0, O_NO_RERUN},
		{"list", 0, 0, O_LIST}, {"format", 1, 0, O_FORMAT}, {"dry-run", 1, 0, O_DRY}, {"json", 1, 0, O_JSON}, {"junit", 1, 0, O_JUNIT},
		{"pcap-dir", 1, 0, O_PCAPDIR}, {"expect", 1, 0, O_EXPECT}, {"capture-filter", 1, 0, O_FILTER},
		{"ecn", 0, 0, O_ECN}, {"dut-cc", 0, 0, O_DUT_CC}, {"pfc", 1, 0, O_PFC}, {"fault", 1, 0, O_FAULT},
		{"allow-host-stack", 0, 0, O_HOST}, {"help", 0, 0, O_HELP}, {"version", 0, 0, O_VERSION},
		{"dut-ssh", 1, 0, O_SSH}, {"dut-ssh-key", 1, 0, O_SSH_KEY}, {"dut-ssh-opt", 1, 0, O_SSH_OPT},
		{0, 0, 0, 0},
	};
	long v;
	memset(o, 0, sizeof(*o));
	o->setup = "rc-pingpong";
	o->pmtu = 1024;
	o->recv_size = 4096;
	o->vlan = -1;
	o->pps = CONF_DEFAULT_PPS;
	o->test_timeout_ms = 30000;
	o->total_timeout_s = 1800;
	o->setup_timeout_s = 40;
	o->tolerance_pct = 25;
	o->repeat = 1;
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "hv", lo, NULL)) != -1) {
		const char *a = optarg;
#define NUM(lo_, hi_, what) \
	if (number(a, lo_, hi_, &v) < 0) { \
		snprintf(err, CONF_ERRLEN, "%s: \"%s\" is not a number in %ld..%ld", what, a, (long)(lo_), (long)(hi_)); \
		return -1; \
	}
		switch (c) {
		case O_IFACE: o->iface = a; break;
		case O_DUT:
			if (parse_addr(a, &o->dut) < 0) {
				snprintf(err, CONF_ERRLEN, "--dut: \"%s\" is not an IPv4 or IPv6 address", a);
				return -1;
			}
			o->have_dut = true;
			break;
		case O_LOCAL_IP:
			if (parse_addr(a, &o->local) < 0) {
				snprintf(err, CONF_ERRLEN, "--local-ip: \"%s\" is not an IPv4 or IPv6 address", a);
				return -1;
			}
			o->have_local = true;
			break;
		case O_DUT_MAC:
		case O_LOCAL_MAC:
			if (parse_mac(a, c == O_DUT_MAC ? o->dut_mac : o->local_mac) < 0) {
				snprintf(err, CONF_ERRLEN, "%s: \"%s\" is not a MAC address", c == O_DUT_MAC ? "--dut-mac" : "--local-mac", a);
				return -1;
			}
			if (mac_unusable(c == O_DUT_MAC ? o->dut_mac : o->local_mac, NULL)) {
				snprintf(err, CONF_ERRLEN, "%s %s is %s: refused (a unicast MAC is needed)",
					 c == O_DUT_MAC ? "--dut-mac" : "--local-mac", a,
					 mac_unusable(c == O_DUT_MAC ? o->dut_mac : o->local_mac, NULL));
				return -1;
			}
			if (c == O_DUT_MAC)
				o->have_dut_mac = true;
			else
				o->have_local_mac = true;
			break;
		case O_SETUP: o->setup = a; break;
		case O_PMTU:
			NUM(256, 4096, "--pmtu");
			if (v & (v - 1)) {
				snprintf(err, CONF_ERRLEN, "--pmtu: %ld is not 256, 512, 1024, 2048 or 4096", v);
				return -1;
			}
			o->pmtu = (unsigned)v;
			break;
		case O_RECV: NUM(1, 1 << 20, "--recv-size"); o->recv_size = (unsigned)v; break;
		case O_DUT_SIZE: NUM(1, 1 << 30, "--dut-size"); o->dut_size = (unsigned)v; break;
		case O_VLAN: NUM(0, 4094, "--vlan"); o->vlan = (int)v; break;
		case O_PCP: NUM(0, 7, "--pcp"); o->pcp = (unsigned)v; break;
		case O_DSCP: NUM(0, 63, "--dscp"); o->dscp = (unsigned)v; break;
		case O_PPS: NUM(1, CONF_MAX_PPS, "--pps"); o->pps = (unsigned)v; break;
		case O_TTIME: NUM(1, 3600, "--test-timeout"); o->test_timeout_ms = (unsigned)v * 1000; break;
		case O_TIME: NUM(1, 86400, "--timeout"); o->total_timeout_s = (unsigned)v; break;
		case O_STIME: NUM(1, 3600, "--setup-timeout"); o->setup_timeout_s = (unsigned)v; break;
		case O_TOL: NUM(0, 1000, "--tolerance"); o->tolerance_pct = (unsigned)v; break;
		case O_TESTS: o->tests = a; break;
		case O_REPEAT: NUM(1, 1000, "--repeat"); o->repeat = (unsigned)v; break;
		case O_LIST: o->list = true; break;
		case O_FORMAT:
			if (strcmp(a, "text") != 0 && strcmp(a, "markdown") != 0) {
				snprintf(err, CONF_ERRLEN, "--format: \"%s\" is neither text nor markdown", a);
				return -1;
			}
			o->list_markdown = !strcmp(a, "markdown");
			break;
		case O_DRY: o->dry_run = a; break;
		case O_JSON: o->json = a; break;
		case O_JUNIT: o->junit = a; break;
		case O_PCAPDIR: o->pcap_dir = a; break;
		case O_EXPECT: o->expect = a; break;
		case O_FILTER: o->capture_filter = a; break;
		case O_ECN: o->ecn = true; break;
		case O_DUT_CC: o->dut_cc = true; break;
		case O_PFC: NUM(0, 7, "--pfc"); o->pfc = true; o->pfc_prio = (unsigned)v; break;
		case O_FAULT:
			if (strcmp(a, "psn") != 0) {
				snprintf(err, CONF_ERRLEN, "--fault: \"%s\" (the only fault is psn)", a);
				return -1;
			}
			o->fault = FAULT_PSN;
			break;
		case O_HOST: o->allow_host_stack = true; break;
		case O_NO_RERUN: o->no_rerun = true; break;
		case O_SSH: o->dut_ssh = a; break;
		case O_SSH_KEY: o->dut_ssh_key = a; break;
		case O_SSH_OPT:
			if (o->n_dut_ssh_opts == CONF_MAX_SSH_OPTS || !strchr(a, '=') || *a == '-') {
				snprintf(err, CONF_ERRLEN, "--dut-ssh-opt \"%s\": one NAME=VALUE ssh option a time, at most %d",
					 a, CONF_MAX_SSH_OPTS);
				return -1;
			}
			o->dut_ssh_opts[o->n_dut_ssh_opts++] = a;
			break;
		case 'v': o->verbose = true; break;
		case 'h':
		case O_HELP: options_usage(stdout); return 1;
		case O_VERSION: printf("roceconform %s\n", ROCECONFORM_VERSION); return 1;
		default:
			snprintf(err, CONF_ERRLEN, "unknown or incomplete option \"%s\"", argv[optind - 1]);
			return -1;
		}
#undef NUM
	}
	if (optind < argc) {
		snprintf(err, CONF_ERRLEN, "unexpected argument \"%s\"", argv[optind]);
		return -1;
	}
	if (o->list_markdown && !o->list) {
		snprintf(err, CONF_ERRLEN, "--format is the format of --list: give --list too");
		return -1;
	}
	return 0;
}
