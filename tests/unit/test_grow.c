/* test_grow.c: arrays that grow by doubling (analyzer/util/grow.h): the capacities they take,
 * the cap that stops them, no overflow near UINT32_MAX, and the contents kept across growth. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

Test(grow, capacity_doubles_from_first)
{
	cr_assert_eq(grow_capacity(0, 64, UINT32_MAX), 64);
	cr_assert_eq(grow_capacity(64, 64, UINT32_MAX), 128);
	cr_assert_eq(grow_capacity(0, 0, UINT32_MAX), 1, "a first of 0 still makes room");
	cr_assert_eq(grow_capacity(1, 0, UINT32_MAX), 2);
}

Test(grow, capacity_stops_at_max)
{
	/* the report's pauses: 64, 128, ..., 65536, then the cap itself (100000), then full */
	uint32_t cap = 0, steps = 0;
	for (uint32_t n; (n = grow_capacity(cap, 64, 100000)) != cap; cap = n)
		steps++;
	cr_assert_eq(cap, 100000);
	cr_assert_eq(steps, 12, "64 .. 65536 is 11 doublings, then 100000");
	cr_assert_eq(grow_capacity(256, 256, 256), 256, "full at the cap");
	cr_assert_eq(grow_capacity(300, 16, 256), 300, "above the cap (never made): stays");
}

Test(grow, capacity_never_wraps)
{
	cr_assert_eq(grow_capacity(UINT32_C(1) << 31, 1, UINT32_MAX), UINT32_MAX);
	cr_assert_eq(grow_capacity(UINT32_MAX - 1, 1, UINT32_MAX), UINT32_MAX);
	cr_assert_eq(grow_capacity(UINT32_MAX, 1, UINT32_MAX), UINT32_MAX, "full");
	cr_assert_eq(grow_capacity((UINT32_C(1) << 31) + 5, 1, UINT32_C(3) << 30), UINT32_C(3) << 30);
}

Test(grow, array_keeps_contents_and_refuses_when_full)
{
	uint32_t cap = 0, n = 0, *a = NULL;
	for (uint32_t v = 0; v < 1000; v++) {
		if (n == cap) {
			uint32_t *p = grow_array(a, &cap, sizeof(*a), 8, 1000);
			if (!p) {
				free(a);
				cr_assert_fail("no room for item %u", v);
				return;
			}
			a = p;
		}
		a[n++] = v * 7;
	}
	cr_assert_eq(cap, 1000, "8, 16, ..., 512, then the cap");
	for (uint32_t v = 0; v < n; v++)
		cr_assert_eq(a[v], v * 7);
	cr_assert_null(grow_array(a, &cap, sizeof(*a), 8, 1000), "full: NULL");
	cr_assert_eq(cap, 1000, "and the capacity as it was");
	free(a);
}

Test(grow, array_refuses_a_size_past_memory)
{
	/* 2^31 items of 2^40 bytes: more than size_t holds; the array stays as it was */
	uint32_t cap = UINT32_C(1) << 30;
	void *a = malloc(16);
	cr_assert_null(grow_array(a, &cap, (size_t)1 << 40, 1, UINT32_MAX));
	cr_assert_eq(cap, UINT32_C(1) << 30);
	free(a);
}
