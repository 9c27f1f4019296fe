/* replay_files.c: runs a whole-file fuzz target (fuzz_capstats.c) without a fuzzing engine:
 * every file given, whole, cut at every 4-byte boundary, and with each of its first 512 bytes
 * flipped in several ways (deterministic mutations), under the sanitizers when the build has
 * them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILE (4u << 20)

int main(int argc, char **argv)
{
	static uint8_t buf[MAX_FILE];
	unsigned long long runs = 0;

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		for (size_t cut = 0; cut <= n; cut += 4, runs++)
			LLVMFuzzerTestOneInput(buf, cut);
		static const uint8_t masks[] = {0x01, 0x80, 0xff, 0x0f};
		for (size_t j = 0; j < n && j < 512; j++)
			for (unsigned m = 0; m < sizeof(masks); m++, runs++) {
				buf[j] ^= masks[m];
				LLVMFuzzerTestOneInput(buf, n);
				buf[j] ^= masks[m];
			}
	}
	printf("replay_files: %llu runs over %d files\n", runs, argc - 1);
	return 0;
}
