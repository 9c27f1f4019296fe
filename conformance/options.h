/* options.h: roceconform's command line (options.c) and --expect files (expect.c). */
#ifndef CONFORM_OPTIONS_H
#define CONFORM_OPTIONS_H

#include <stdio.h>

#include "conform.h"

/* Parse argv into o (defaults first). 0, 1 when --help or --version was handled, -1 on a usage
 * error (message in err). */
int options_parse(int argc, char **argv, struct conf_opts *o, char err[CONF_ERRLEN]);
void options_usage(FILE *f);

/* Parse an IPv4 or IPv6 address. 0 or -1. */
int parse_addr(const char *s, struct conf_addr *a);
/* Whether a is broadcast, multicast, loopback or unspecified (never a DUT): the kind, or NULL. */
const char *addr_unusable(const struct conf_addr *a);
/* Why mac cannot be the DUT's (a group MAC: broadcast or multicast; all zeros; the tester's own
 * MAC own, when own is not NULL), or NULL. */
const char *mac_unusable(const uint8_t mac[6], const uint8_t *own);

/* Whether test id is selected by the comma-separated list sel (IDs and prefixes: "A" selects
 * group A, "B1" selects B1a and B1b but not B10). NULL selects all. */
bool test_selected(const char *id, const char *sel);
/* The selectors of sel that match no test: the first one, or NULL. */
const char *unknown_selector(const char *sel, char *buf, size_t n);

/* --expect FILE: lines "ID VERDICT reason" ('#' comments). */
struct expect_entry {
	char id[16];
	enum conf_verdict v;
	char reason[256];
};
struct expect_list {
	struct expect_entry *e;
	size_t n;
};
int expect_load(const char *path, struct expect_list *l, char err[CONF_ERRLEN]);
const struct expect_entry *expect_find(const struct expect_list *l, const char *id);
/* Mark r by e (the --expect line of its test, or NULL): an expected deviation when its verdict is
 * e's; an unexpected pass (strict, as pytest's xfail: it counts as a failure) when e lists FAIL
 * or INCONCLUSIVE and the test passed. */
void expect_apply(const struct expect_entry *e, struct conf_result *r);
void expect_free(struct expect_list *l);

#endif
