/* report.c: the table, JSON and JUnit XML reports (see report.h). JUnit follows the schema the
 * common CI viewers read (Jenkins, GitLab, GitHub test reporters): <testsuites><testsuite> with
 * tests/failures/errors/skipped counts, <testcase classname name time> and one child for a
 * verdict other than PASS. */
#include "report.h"

#include <string.h>

#include "outfile.h"

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
			x->r.expected_deviation ? "  [known deviation]" : "");
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
		if (x->r.expected_deviation)
			fprintf(f, "%19s expected by --expect: %s\n", "", x->r.expect_reason);
	}
	fprintf(f, "%zu PASS, %zu FAIL, %zu INCONCLUSIVE, %zu N/A\n", count[V_PASS], count[V_FAIL],
		count[V_INCONCLUSIVE], count[V_NA]);
}

/* Write s as a JSON or XML string body. */
static void esc(FILE *f, const char *s, bool xml)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (xml) {
			if (c == '<') fputs("&lt;", f);
			else if (c == '>') fputs("&gt;", f);
			else if (c == '&') fputs("&amp;", f);
			else if (c == '"') fputs("&quot;", f);
			else if (c < 0x20 && c != '\n' && c != '\t') fprintf(f, "&#%u;", c == 0 ? 0x20u : 0xfffdu);
			else fputc(c, f);
		} else {
			if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
			else if (c < 0x20) fprintf(f, "\\u%04x", c);
			else fputc(c, f);
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

void report_json_to(FILE *f, const struct run_info *info, const struct run_result *rs, size_t n)
{
	fprintf(f, "{");
	jstr(f, "tool", "roceconform", true);
	jstr(f, "mode", info->mode, true);
	jstr(f, "iface", info->iface, true);
	jstr(f, "dut", info->dut, true);
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
		jstr(f, "expected", x->r.expected, true);
		jstr(f, "observed", x->r.observed, true);
		jstr(f, "reason", x->r.reason, true);
		if (x->r.measured_ms >= 0)
			fprintf(f, "\"measured_ms\": %.3f, \"tolerance_pct\": %.1f, ", x->r.measured_ms, x->r.tolerance_pct);
		fprintf(f, "\"known_deviation\": %s, ", x->r.expected_deviation ? "true" : "false");
		if (x->r.expected_deviation)
			jstr(f, "known_deviation_reason", x->r.expect_reason, true);
		fprintf(f, "\"seconds\": %.3f}%s\n", x->seconds, i + 1 < n ? "," : "");
	}
	fprintf(f, "]}\n");
}

int report_json(const char *path, const struct run_info *info, const struct run_result *rs, size_t n,
		char err[CONF_ERRLEN])
{
	return write_whole(path, info, rs, n, report_json_to, err);
}

void report_junit_to(FILE *f, const struct run_info *info, const struct run_result *rs, size_t n)
{
	size_t c[4] = {0};
	for (size_t i = 0; i < n; i++)
		c[rs[i].r.v]++;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"roceconform\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
		n, c[V_FAIL], c[V_INCONCLUSIVE], c[V_NA], info->seconds);
	fprintf(f, "  <testsuite name=\"roceconform ");
	esc(f, info->dut ? info->dut : "", true);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", n, c[V_FAIL],
		c[V_INCONCLUSIVE], c[V_NA], info->seconds);
	for (size_t i = 0; i < n; i++) {
		const struct run_result *x = &rs[i];
		fprintf(f, "    <testcase classname=\"roceconform.%c\" name=\"%s", x->t->id[0], x->t->id);
		if (x->run > 1 || (i + 1 < n && rs[i + 1].t == x->t))
			fprintf(f, "#%u", x->run);
		fprintf(f, " ");
		esc(f, x->t->title, true);
		fprintf(f, "\" time=\"%.3f\">\n", x->seconds);
		const char *tag = x->r.v == V_FAIL ? "failure" : x->r.v == V_INCONCLUSIVE ? "error" : x->r.v == V_NA ? "skipped" : NULL;
		if (tag) {
			fprintf(f, "      <%s message=\"", tag);
			esc(f, x->r.reason[0] ? x->r.reason : x->r.v == V_FAIL ? "the DUT's answer breaks the rule" : "", true);
			fprintf(f, "\"");
			if (x->r.v == V_NA) {
				fprintf(f, "/>\n");
			} else {
				fprintf(f, ">rule: ");
				esc(f, x->t->rule, true);
				fprintf(f, "\nexpected: ");
				esc(f, x->r.expected, true);
				fprintf(f, "\nobserved: ");
				esc(f, x->r.observed, true);
				if (x->r.expected_deviation) {
					fprintf(f, "\nknown deviation (--expect): ");
					esc(f, x->r.expect_reason, true);
				}
				fprintf(f, "</%s>\n", tag);
			}
		}
		if (x->r.v == V_PASS && x->r.expected[0]) {
			fprintf(f, "      <system-out>expected: ");
			esc(f, x->r.expected, true);
			fprintf(f, "\nobserved: ");
			esc(f, x->r.observed, true);
			fprintf(f, "</system-out>\n");
		}
		fprintf(f, "    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

int report_junit(const char *path, const struct run_info *info, const struct run_result *rs, size_t n,
		 char err[CONF_ERRLEN])
{
	return write_whole(path, info, rs, n, report_junit_to, err);
}
