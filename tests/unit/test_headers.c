/* test_headers.c: every public header compiles on its own. Each header_<name>.c includes only
 * include/roce/<name>.h (twice) and uses a little of it; this runs what they compiled. */
#include <criterion/criterion.h>

int header_common_check(void);
int header_events_check(void);
int header_opcode_check(void);
int header_headers_check(void);
int header_decode_check(void);
int header_build_check(void);
int header_analyze_check(void);
int header_mad_check(void);
int header_roce_check(void);
int header_fields_check(void);
int header_congestion_check(void);

Test(headers, common) { cr_assert_eq(header_common_check(), -2 + 276 + 3); }
Test(headers, events) { cr_assert_eq(header_events_check(), 1); }
Test(headers, opcode) { cr_assert_eq(header_opcode_check(), 28); }
Test(headers, headers) { cr_assert_eq(header_headers_check(), 32); }
Test(headers, decode) { cr_assert_eq(header_decode_check(), 463 + 4791); }
Test(headers, build) { cr_assert_eq(header_build_check(), 6); }
Test(headers, analyze) { cr_assert_eq(header_analyze_check(), 0); }
Test(headers, mad) { cr_assert_eq(header_mad_check(), 8); }
Test(headers, roce) { cr_assert_eq(header_roce_check(), 1); }
Test(headers, fields) { cr_assert_eq(header_fields_check(), 1); }
Test(headers, congestion) { cr_assert_eq(header_congestion_check(), 0); }
