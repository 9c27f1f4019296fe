/* report.c: the table, JSON and JUnit XML reports (see report.h). JUnit follows the schema the
 * common CI viewers read (Jenkins, GitLab, GitHub test reporters): <testsuites><testsuite> with
 * tests/failures/errors/skipped counts, <testcase classname="roceconform.SETUP.GROUP" name time>
 * and one child for a verdict other than PASS; --expect results as pytest reports xfail
 * (<skipped>) and strict XPASS (<failure>); the test's pcapng as an [[ATTACHMENT|path]] line. */
#include "report.h"

#include <string.h>

#include "jsonstr.h"
#include "outfile.h"

int report_status(const struct run_result *rs, size_t n)
{
	bool fail = false, inc = false;
	for (size_t i = 0; i < n; i++) {
		if (rs[i].r.expected_deviation)
			continue;
		fail |= rs[i].r.v == V_FAIL || rs[i].r.unexpected_pass;
		inc |= rs[i].r.v == V_INCONCLUSIVE;
	}
	return fail ? EXIT_CONF_FAIL : inc ? EXIT_CONF_INCONCLUSIVE : EXIT_CONF_PASS;
}

void report_table(FILE *f, const struct run_result *rs, size_t n, bool verbose)
{
	size_t count[4] = {0};
	fprintf(f, "%-5s %-13s %s\n", "TEST", "VERDICT", "DESCRIPTION / EVIDENCE");
	for (size_t i = 0; i < n; i++) {
		const struct run_result *x = &rs[i];
		char id[16];
		count[x->r.v]++;
		if (x->run > 1 || (i + 1 < n && rs[i + 1].t == x->t))
			snprintf(id, sizeof(id), "%s#%u", x->t->id, x->run);
		else
			snprintf(id, sizeof(id), "%s", x->t->id);
		fprintf(f, "%-5s %-13s %s%s\n", id, verdict_name(x->r.v), x->t->title,
			x->r.unexpected_pass ? "  [XPASS(strict): --expect lists another verdict]" :
			x->r.expected_deviation ? "  [known deviation]" : "");
		if (x->r.unexpected_pass)
			fprintf(f, "%19s expected by --expect: %s (%s); counts as a failure\n", "", verdict_name(x->r.expect_v),
				x->r.expect_reason);
		if (x->counters_contradict && x->r.v == V_PASS && !verbose)
			fprintf(f, "%19s reason:   %s\n", "", x->r.reason);
		if (x->r.v == V_PASS && !verbose) {
			if (x->r.measured_ms >= 0)
				fprintf(f, "%19s measured %.1f ms (tolerance %.0f %%)\n", "", x->r.measured_ms, x->r.tolerance_pct);
			continue;
		}
		if (x->r.reason[0])
			fprintf(f, "%19s reason:   %s\n", "", x->r.reason);
		if (x->r.v != V_NA) {
			if (x->r.expected[0])
				fprintf(f, "%19s expected: %s\n", "", x->r.expected);
			if (x->r.observed[0])
				fprintf(f, "%19s observed: %s\n", "", x->r.observed);
			if (x->r.measured_ms >= 0)
				fprintf(f, "%19s measured %.1f ms (tolerance %.0f %%)\n", "", x->r.measured_ms, x->r.tolerance_pct);
		}
		if (x->rerun) {
			fprintf(f, "%19s first run: %s -- %s\n", "", verdict_name(x->first.v), x->first.reason);
			if (x->first.observed[0])
				fprintf(f, "%19s   observed: %s\n", "", x->first.observed);
		}
		if (x->r.expected_deviation)
			fprintf(f, "%19s expected by --expect: %s\n", "", x->r.expect_reason);
	}
	fprintf(f, "%zu PASS, %zu FAIL, %zu INCONCLUSIVE, %zu N/A\n", count[V_PASS], count[V_FAIL],
		count[V_INCONCLUSIVE], count[V_NA]);
}

/* json_put_fn over a file. */
static void put_file(void *ctx, const char *bytes, size_t n)
{
	fwrite(bytes, 1, n, ctx);
}

/* Write s as a JSON or XML string body. The text may come from the DUT (its facts, through the
 * agent) and hold any byte: both stay UTF-8, a byte that is not part of well-formed UTF-8 given
 * as the character of its value (JSON \u00XX, XML &#xXX;), as jsonstr.h does. */
static void esc(FILE *f, const char *s, bool xml)
{
	if (!xml) {
		json_escape(s, false, put_file, f);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t n = *p >= 0x80 ? utf8_seq_len(p) : 1;
		if (*p == '<') fputs("&lt;", f);
		else if (*p == '>') fputs("&gt;", f);
		else if (*p == '&') fputs("&amp;", f);
		else if (*p == '"') fputs("&quot;", f);
		else if (*p < 0x20 && *p != '\n' && *p != '\t') fprintf(f, "&#%u;", 0xfffdu);
		else if (!n) fprintf(f, "&#x%X;", (unsigned)*p);
		else {
			fwrite(p, 1, n, f);
			p += n - 1;
		}
	}
}

static void jstr(FILE *f, const char *key, const char *v, bool comma)
{
	fprintf(f, "\"%s\": \"", key);
	esc(f, v ? v : "", false);
	fprintf(f, "\"%s", comma ? ", " : "");
}

/* Write a report through an outfile: whole or not at all. */
static int write_whole(const char *path, const struct run_info *info, const struct run_result *rs, size_t n,
		       void (*write)(FILE *, const struct run_info *, const struct run_result *, size_t),
		       char err[CONF_ERRLEN])
{
	struct outfile o;
	if (outfile_open(&o, path, err) < 0)
		return -1;
	write(o.f, info, rs, n);
	return outfile_commit(&o, err);
}

/* "dut": its address, and with the DUT agent, the agent and the facts it read. */
static void json_dut(FILE *f, const struct run_info *info)
{
	fprintf(f, "\"dut\": {");
	jstr(f, "ip", info->dut, info->agent != NULL);
	if (info->agent) {
		jstr(f, "agent", info->agent_target, info->agent->n_facts > 0);
		for (size_t i = 0; i < info->agent->n_facts; i++)
			jstr(f, info->agent->facts[i].key, info->agent->facts[i].value, i + 1 < info->agent->n_facts);
	}
	fprintf(f, "}, ");
}

/* Counter deltas as a JSON object's members "counters": {...}, . */
static void json_deltas(FILE *f, const struct agent_delta *d, size_t n)
{
	fprintf(f, "\"counters\": {");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\"");
		esc(f, d[i].name, false);
		fprintf(f, "\": %lld%s", (long long)d[i].delta, i + 1 < n ? ", " : "");
	}
	fprintf(f, "}, ");
}

/* A test's counter evidence: the non-zero deltas, whether they contradict its verdict. */
static void json_counters(FILE *f, const struct run_result *x)
{
	if (!x->counters_read)
		return;
	json_deltas(f, x->counters, x->n_counters);
	fprintf(f, "\"counters_contradict\": %s, ", x->counters_contradict ? "true" : "false");
}

/* "first_run": the first run of a test run again (its verdict, evidence, counters, pcapng). */
static void json_first_run(FILE *f, const struct run_info *info, const struct run_result *x)
{
	fprintf(f, "\"first_run\": {");
	jstr(f, "verdict", verdict_name(x->first.v), true);
	jstr(f, "expected", x->first.expected, true);
	jstr(f, "observed", x->first.observed, true);
	jstr(f, "reason", x->first.reason, true);
	if (info->agent && x->first_counters_read)
		json_deltas(f, x->first_counters, x->n_first_counters);
	if (x->first_pcap_written && info->pcap_dir) {
		char path[4096];
		report_pcap_path(path, sizeof(path), info->pcap_dir, x->t->id, x->run, info->repeat, true);
		jstr(f, "pcap", path, true);
	}
	fprintf(f, "\"seconds\": %.3f}, ", x->first_seconds);
}

void report_json_to(FILE *f, const struct run_info *info, const struct run_result *rs, size_t n)
{
	fprintf(f, "{");
	jstr(f, "tool", "roceconform", true);
	jstr(f, "mode", info->mode, true);
	jstr(f, "iface", info->iface, true);
	json_dut(f, info);
	jstr(f, "local_ip", info->local, true);
	jstr(f, "setup", info->setup, true);
	fprintf(f, "\"pps\": %u, \"seconds\": %.3f, \"results\": [\n", info->pps, info->seconds);
	for (size_t i = 0; i < n; i++) {
		const struct run_result *x = &rs[i];
		fprintf(f, "  {");
		jstr(f, "id", x->t->id, true);
		fprintf(f, "\"run\": %u, ", x->run);
		jstr(f, "verdict", verdict_name(x->r.v), true);
		jstr(f, "title", x->t->title, true);
		jstr(f, "rule", x->t->rule, true);
		if (x->t->ibta_id)
			jstr(f, "ibta_id", x->t->ibta_id, true);
		else
			fprintf(f, "\"ibta_id\": null, ");
		if (x->t->ibta_section)
			jstr(f, "ibta_section", x->t->ibta_section, true);
		else
			fprintf(f, "\"ibta_section\": null, ");
		jstr(f, "expected", x->r.expected, true);
		jstr(f, "observed", x->r.observed, true);
		jstr(f, "reason", x->r.reason, true);
		if (x->r.measured_ms >= 0)
			fprintf(f, "\"measured_ms\": %.3f, \"tolerance_pct\": %.1f, ", x->r.measured_ms, x->r.tolerance_pct);
		fprintf(f, "\"known_deviation\": %s, ", x->r.expected_deviation ? "true" : "false");
		if (x->r.expected_deviation)
			jstr(f, "known_deviation_reason", x->r.expect_reason, true);
		if (x->r.unexpected_pass) {
			fprintf(f, "\"unexpected_pass\": true, ");
			jstr(f, "expected_verdict", verdict_name(x->r.expect_v), true);
			jstr(f, "expected_reason", x->r.expect_reason, true);
		}
		if (x->r.v == V_FAIL)
			fprintf(f, "\"answer_not_seen\": %s, ", x->r.missing ? "true" : "false");
		if (x->rerun)
			json_first_run(f, info, x);
		if (info->agent)
			json_counters(f, x);
		fprintf(f, "\"seconds\": %.3f}%s\n", x->seconds, i + 1 < n ? "," : "");
	}
	fprintf(f, "]}\n");
}

int report_json(const char *path, const struct run_info *info, const struct run_result *rs, size_t n,
		char err[CONF_ERRLEN])
{
	return write_whole(path, info, rs, n, report_json_to, err);
}

/* How a test run shows in JUnit: as pytest shows a test, an expected deviation (--expect) is an
 * xfail (<skipped>) and an unexpected pass a strict XPASS (<failure>). */
enum junit_kind { J_PASS, J_FAILURE, J_ERROR, J_SKIPPED, J_XFAIL, J_XPASS };

static enum junit_kind junit_kind(const struct conf_result *r)
{
	if (r->unexpected_pass)
		return J_XPASS;
	if (r->expected_deviation && r->v != V_PASS)
		return J_XFAIL;
	return r->v == V_FAIL ? J_FAILURE : r->v == V_INCONCLUSIVE ? J_ERROR : r->v == V_NA ? J_SKIPPED : J_PASS;
}

static void junit_evidence(FILE *f, const struct run_result *x)
{
	fprintf(f, "rule: ");
	esc(f, x->t->rule, true);
	fprintf(f, "\nverdict: %s\nexpected: ", verdict_name(x->r.v));
	esc(f, x->r.expected, true);
	fprintf(f, "\nobserved: ");
	esc(f, x->r.observed, true);
	if (x->r.reason[0]) {
		fprintf(f, "\nreason: ");
		esc(f, x->r.reason, true);
	}
}

/* The child element of a test run's <testcase> that says how it went (none for a pass). */
static void junit_outcome(FILE *f, const struct run_result *x, enum junit_kind k)
{
	static const char *const tag[] = {NULL, "failure", "error", "skipped", "skipped", "failure"};
	if (k == J_PASS)
		return;
	if (k == J_XFAIL || k == J_XPASS) {
		fprintf(f, "      <properties><property name=\"expected\" value=\"%s: ", verdict_name(x->r.expect_v));
		esc(f, x->r.expect_reason, true);
		fprintf(f, "\"/></properties>\n");
	}
	fprintf(f, "      <%s", tag[k]);
	if (k == J_XFAIL || k == J_XPASS)
		fprintf(f, " type=\"%s\"", k == J_XFAIL ? "xfail" : "XPASS(strict)");
	fprintf(f, " message=\"");
	if (k == J_XFAIL) {
		fprintf(f, "expected: ");
		esc(f, x->r.expect_reason, true);
	} else if (k == J_XPASS) {
		fprintf(f, "XPASS(strict): expected %s (", verdict_name(x->r.expect_v));
		esc(f, x->r.expect_reason, true);
		fprintf(f, ") but the test passed: update the --expect file");
	} else {
		esc(f, x->r.reason[0] ? x->r.reason : x->r.v == V_FAIL ? "the DUT's answer breaks the rule" : "", true);
	}
	fprintf(f, "\"");
	if (k == J_SKIPPED) {
		fprintf(f, "/>\n");
		return;
	}
	fprintf(f, ">");
	junit_evidence(f, x);
	fprintf(f, "</%s>\n", tag[k]);
}

void report_pcap_path(char *buf, size_t n, const char *dir, const char *id, unsigned run, unsigned repeat, bool first)
{
	const char *ext = first ? ".first.pcapng" : ".pcapng";
	if (repeat > 1)
		snprintf(buf, n, "%s/%s-%u%s", dir, id, run, ext);
	else
		snprintf(buf, n, "%s/%s%s", dir, id, ext);
}

/* The counter deltas, one "counter NAME +N (meaning)" line each, for <system-out>. */
static void junit_counters(FILE *f, const struct run_info *info, const struct run_result *x)
{
	if (!x->n_counters)
		fprintf(f, "counters: none changed on the DUT\n");
	for (size_t i = 0; i < x->n_counters; i++) {
		const char *meaning;
		agent_role(info->agent->driver, x->counters[i].name, &meaning);
		fprintf(f, "counter ");
		esc(f, x->counters[i].name, true);
		fprintf(f, " %+lld", (long long)x->counters[i].delta);
		if (meaning)
			fprintf(f, " (%s)", meaning);
		fprintf(f, "\n");
	}
	if (x->counters_contradict)
		fprintf(f, "counters contradict the verdict\n");
}

/* The DUT's facts as the suite's <properties> (dut.KEY). */
static void junit_properties(FILE *f, const struct run_info *info)
{
	if (!info->agent)
		return;
	fprintf(f, "    <properties>\n      <property name=\"dut.agent\" value=\"");
	esc(f, info->agent_target ? info->agent_target : "", true);
	fprintf(f, "\"/>\n");
	for (size_t i = 0; i < info->agent->n_facts; i++) {
		fprintf(f, "      <property name=\"dut.");
		esc(f, info->agent->facts[i].key, true);
		fprintf(f, "\" value=\"");
		esc(f, info->agent->facts[i].value, true);
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "    </properties>\n");
}

/* The test run's pcapng (first: its first run's) as an [[ATTACHMENT|path]] line. */
static void junit_attachment(FILE *f, const struct run_info *info, const struct run_result *x, bool first)
{
	char path[4096];
	report_pcap_path(path, sizeof(path), info->pcap_dir, x->t->id, x->run, info->repeat, first);
	fprintf(f, "[[ATTACHMENT|");
	esc(f, path, true);
	fprintf(f, "]]\n");
}

/* The first run of a test run again: its verdict, evidence, counters and pcapng. */
static void junit_first_run(FILE *f, const struct run_info *info, const struct run_result *x)
{
	fprintf(f, "first run (answers not seen, run again): %s", verdict_name(x->first.v));
	const char *label[3] = {"\n  reason: ", "\n  expected: ", "\n  observed: "};
	const char *text[3] = {x->first.reason, x->first.expected, x->first.observed};
	for (int i = 0; i < 3; i++)
		if (text[i][0]) {
			fprintf(f, "%s", label[i]);
			esc(f, text[i], true);
		}
	fprintf(f, "\n");
	if (info->agent && x->first_counters_read) {
		struct run_result c = {.t = x->t, .counters = x->first_counters, .n_counters = x->n_first_counters};
		fprintf(f, "first run's counters:\n");
		junit_counters(f, info, &c);
	}
	if (x->first_pcap_written && info->pcap_dir)
		junit_attachment(f, info, x, true);
}

/* <system-out>: a pass's evidence, and the test's pcapng as an attachment (the
 * [[ATTACHMENT|path]] line of the Jenkins JUnit attachments plugin and GitLab). */
static void junit_system_out(FILE *f, const struct run_info *info, const struct run_result *x)
{
	bool evidence = x->r.v == V_PASS && x->r.expected[0], attach = x->pcap_written && info->pcap_dir;
	bool counters = info->agent && x->counters_read;
	if (!evidence && !attach && !counters && !x->rerun)
		return;
	fprintf(f, "      <system-out>");
	if (evidence) {
		fprintf(f, "expected: ");
		esc(f, x->r.expected, true);
		fprintf(f, "\nobserved: ");
		esc(f, x->r.observed, true);
		fprintf(f, "\n");
	}
	if (counters)
		junit_counters(f, info, x);
	if (attach)
		junit_attachment(f, info, x, false);
	if (x->rerun)
		junit_first_run(f, info, x);
	fprintf(f, "</system-out>\n");
}

void report_junit_to(FILE *f, const struct run_info *info, const struct run_result *rs, size_t n)
{
	size_t c[6] = {0};
	for (size_t i = 0; i < n; i++)
		c[junit_kind(&rs[i].r)]++;
	size_t failures = c[J_FAILURE] + c[J_XPASS], errors = c[J_ERROR], skipped = c[J_SKIPPED] + c[J_XFAIL];
	const char *setup = info->setup ? info->setup : "";
	int setup_len = (int)strcspn(setup, ":");   /* the method, without its port */
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"roceconform\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
		n, failures, errors, skipped, info->seconds);
	fprintf(f, "  <testsuite name=\"roceconform ");
	esc(f, info->dut ? info->dut : "", true);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", n, failures,
		errors, skipped, info->seconds);
	junit_properties(f, info);
	for (size_t i = 0; i < n; i++) {
		const struct run_result *x = &rs[i];
		char cls[64];
		snprintf(cls, sizeof(cls), "roceconform.%.*s.%c", setup_len, setup, x->t->id[0]);
		fprintf(f, "    <testcase classname=\"");
		esc(f, cls, true);
		fprintf(f, "\" name=\"%s", x->t->id);
		if (x->run > 1 || (i + 1 < n && rs[i + 1].t == x->t))
			fprintf(f, "#%u", x->run);
		fprintf(f, " ");
		esc(f, x->t->title, true);
		fprintf(f, "\" time=\"%.3f\">\n", x->seconds);
		junit_outcome(f, x, junit_kind(&x->r));
		junit_system_out(f, info, x);
		fprintf(f, "    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

int report_junit(const char *path, const struct run_info *info, const struct run_result *rs, size_t n,
		 char err[CONF_ERRLEN])
{
	return write_whole(path, info, rs, n, report_junit_to, err);
}
