/* tests.h: the catalogue's run functions, one file per group (tests_a.c ... tests_fg.c, tests_h.c, tests_m.c, tests_u.c); the
 * table that names them is catalogue.c. */
#ifndef CONFORM_TESTS_H
#define CONFORM_TESTS_H

#include <stdio.h>
#include <string.h>

#include "testlib.h"

#define T(name) void name(struct session *s, struct conf_result *r);
T(test_a1) T(test_a2) T(test_a3) T(test_a4) T(test_a5) T(test_a6) T(test_a7) T(test_a8) T(test_a9)
T(test_b1a) T(test_b1b) T(test_b2) T(test_b3a) T(test_b3b) T(test_b3c) T(test_b4) T(test_b5)
T(test_b6a) T(test_b6b) T(test_b6c) T(test_b6d)
T(test_b7) T(test_b8a) T(test_b8b) T(test_b8c) T(test_b9) T(test_b10) T(test_b11)
T(test_c1a) T(test_c1b) T(test_c1c) T(test_c2a) T(test_c2b) T(test_c3a) T(test_c3b) T(test_c3c)
T(test_c3d) T(test_c4) T(test_c5) T(test_c6)
T(test_d1) T(test_d2) T(test_d3) T(test_d4) T(test_d5)
T(test_e1) T(test_e2) T(test_e3) T(test_e4) T(test_e5) T(test_e6a) T(test_e6b) T(test_e6c) T(test_e7)
T(test_f1) T(test_f2) T(test_f3) T(test_f4) T(test_g1)
T(test_h1) T(test_h2) T(test_h3) T(test_h4) T(test_h5) T(test_v1)
T(test_m1) T(test_m2) T(test_d6) T(test_d7) T(test_d8) T(test_b12) T(test_h6) T(test_m3)
T(test_u1) T(test_u2) T(test_q1) T(test_q2) T(test_q3) T(test_q4) T(test_i1)
#undef T

/* Why Q4 is N/A: no stock server shows the 40 bytes of GRH of a UD receive. */
#define UD_BUF_NA "not observable with stock software: ibv_ud_pingpong sends its receive buffer from byte 40 on, and " \
	"no stock tool shows the 40 bytes of GRH before it (Q3 checks that the payload follows them)"

/* Keep the DUT QP of a test's session and its UDP source port for H6 (called after every test). */
void note_qp_port(const struct session *s);

/* G1's PFC refresh interval at a link speed (Mb/s): half a full PAUSE (0xffff quanta of 512 bit
 * times); 0 when the speed is unknown. */
double pfc_refresh_us(unsigned speed_mbps);

#endif
