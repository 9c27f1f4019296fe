/* replay_random.c: runs a fuzz target without a fuzzing engine on deterministic pseudo-random
 * inputs (xorshift64, a fixed seed): N inputs (argv[1], default 3000) of 1 to 601 bytes, the
 * same every run, under the sanitizers when the build has them; then each file named after N
 * (tests/fuzz/regressions/<target>/: crashing inputs found once), whole.
 *
 *   fuzz_analyze_replay [N [FILE...]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	static uint8_t buf[601];
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000;
	uint64_t x = 0x9e3779b97f4a7c15u;

	for (unsigned long i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t size = 1 + (size_t)(x % sizeof(buf));
		for (size_t k = 0; k < size; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[k] = (uint8_t)(x >> 24);
		}
		LLVMFuzzerTestOneInput(buf, size);
	}
	static uint8_t file[1u << 20];
	for (int i = 2; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		size_t size = fread(file, 1, sizeof(file), f);
		fclose(f);
		LLVMFuzzerTestOneInput(file, size);
	}
	printf("%lu inputs, %d files\n", n, argc > 2 ? argc - 2 : 0);
	return 0;
}
