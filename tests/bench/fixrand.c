/* fixrand.c: GLib's g_random_int, g_random_int_range and g_random_double replaced (LD_PRELOAD)
 * by a fixed xorshift sequence, so that callgrind's instruction counts of tshark repeat from run
 * to run: Wireshark seeds its hash maps (wmem_map) with random numbers, which moved a frame's
 * count by several hundred instructions between runs of the same build (plugin-bench.sh). */
#include <stdint.h>

uint32_t g_random_int(void);
int32_t g_random_int_range(int32_t begin, int32_t end);
double g_random_double(void);

static uint32_t state = 2463534242u;

static uint32_t next(void)
{
	state ^= state << 13;
	state ^= state >> 17;
	state ^= state << 5;
	return state;
}

uint32_t g_random_int(void)
{
	return next();
}

int32_t g_random_int_range(int32_t begin, int32_t end)
{
	return end > begin ? begin + (int32_t)(next() % (uint32_t)(end - begin)) : begin;
}

double g_random_double(void)
{
	return next() / 4294967296.0;
}
