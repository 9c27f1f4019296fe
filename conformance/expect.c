/* expect.c: --expect FILE, a DUT's known deviations: one "ID VERDICT reason" a line (VERDICT is
 * PASS, FAIL, INCONCLUSIVE or N/A; '#' starts a comment). A test whose verdict is the one listed
 * is reported with the reason and does not change the exit status; any other verdict counts as
 * usual, so a new failure is never hidden; a listed FAIL or INCONCLUSIVE that now passes is an
 * unexpected pass and counts as a failure (so the list is kept up to date). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"

static int verdict_of(const char *s, enum conf_verdict *v)
{
	static const char *const names[] = {"PASS", "FAIL", "INCONCLUSIVE", "N/A"};
	for (int i = 0; i < 4; i++)
		if (!strcasecmp(s, names[i])) {
			*v = (enum conf_verdict)i;
			return 0;
		}
	return -1;
}

int expect_load(const char *path, struct expect_list *l, char err[CONF_ERRLEN])
{
	char line[512];
	unsigned no = 0;
	FILE *f = fopen(path, "r");
	memset(l, 0, sizeof(*l));
	if (!f) {
		snprintf(err, CONF_ERRLEN, "--expect %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char id[16], verdict[16];
		int used = 0;
		no++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		if (sscanf(line, " %15s %15s %n", id, verdict, &used) < 2) {
			if (sscanf(line, " %15s", id) == 1) {
				snprintf(err, CONF_ERRLEN, "--expect %s line %u: \"ID VERDICT reason\" expected", path, no);
				goto fail;
			}
			continue;
		}
		struct expect_entry e = {0};
		snprintf(e.id, sizeof(e.id), "%s", id);
		if (verdict_of(verdict, &e.v) < 0) {
			snprintf(err, CONF_ERRLEN, "--expect %s line %u: verdict \"%s\" (PASS, FAIL, INCONCLUSIVE, N/A)", path, no, verdict);
			goto fail;
		}
		bool known = false;
		for (size_t i = 0; i < conf_n_tests; i++)
			known |= !strcasecmp(conf_tests[i].id, id);
		if (!known) {
			snprintf(err, CONF_ERRLEN, "--expect %s line %u: no test %s", path, no, id);
			goto fail;
		}
		char *reason = line + used;
		size_t n = strlen(reason);
		while (n && isspace((unsigned char)reason[n - 1]))
			reason[--n] = 0;
		snprintf(e.reason, sizeof(e.reason), "%s", *reason ? reason : "(no reason given)");
		struct expect_entry *grown = realloc(l->e, (l->n + 1) * sizeof(*l->e));
		if (!grown) {
			snprintf(err, CONF_ERRLEN, "out of memory");
			goto fail;
		}
		l->e = grown;
		l->e[l->n++] = e;
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	expect_free(l);
	return -1;
}

const struct expect_entry *expect_find(const struct expect_list *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->e[i].id, id))
			return &l->e[i];
	return NULL;
}

void expect_apply(const struct expect_entry *e, struct conf_result *r)
{
	if (!e)
		return;
	r->expected_deviation = e->v == r->v;
	r->unexpected_pass = r->v == V_PASS && (e->v == V_FAIL || e->v == V_INCONCLUSIVE);
	if (r->expected_deviation || r->unexpected_pass) {
		r->expect_v = e->v;
		snprintf(r->expect_reason, sizeof(r->expect_reason), "%s", e->reason);
	}
}

void expect_free(struct expect_list *l)
{
	free(l->e);
	l->e = NULL;
	l->n = 0;
}
