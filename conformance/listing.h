/* listing.h: the catalogue as roceconform --list prints it (listing.c): one test a line, or the
 * reference document in markdown (docs/conformance-catalogue.md is its output). */
#ifndef CONFORM_LISTING_H
#define CONFORM_LISTING_H

#include <stdio.h>

#include "conform.h"
#include "options.h"

/* The IBTA rule test t checks, as text: "CA17-22, CA17-24; A17.3.3 ..., A17.3.4", "9.7.5.1". */
const char *ibta_ref(const struct conf_test *t, char *buf, size_t n);

/* The catalogue, one test a line: ID, description, [the IBTA rule]. */
void list_text(FILE *f);

/* The catalogue as a markdown document: per test its IBTA rule, what it sends, what counts as
 * PASS, FAIL, INCONCLUSIVE and N/A, and, with an --expect list ex (NULL: none) read from
 * expect_path, the verdict the DUT it describes earns. */
void list_markdown(FILE *f, const struct expect_list *ex, const char *expect_path);

#endif
