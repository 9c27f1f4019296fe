/* replay_files.c: runs a whole-file fuzz target (fuzz_input.c, fuzz_capstats.c) over pcapng files
 * without a fuzzing engine, under the sanitizers when the build has them. Each file is replayed
 * whole; cut at every 4-byte boundary of its head (the blocks up to HEAD_BYTES: section and
 * interface descriptions, the first packets) and of its tail (the last TAIL_BYTES: statistics
 * blocks, the last packets); cut at, and just inside, every STRIDE-th block boundary between them;
 * and its head, ending at a block boundary, with each of its first 512 bytes flipped in several
 * ways (deterministic mutations). Readers cost time in proportion to the bytes they read, so
 * cutting a large file at every offset costs the square of its size and finds nothing the head,
 * the tail and the block boundaries do not: the files here are sequences of similar packets. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILE (4u << 20)
#define HEAD_BYTES 4096u
#define TAIL_BYTES 1024u
#define STRIDE 8u

static unsigned long long runs;

static void run(const uint8_t *data, size_t size)
{
	LLVMFuzzerTestOneInput(data, size);
	runs++;
}

static uint32_t load32(const uint8_t *p, int swapped)
{
	return swapped ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		       : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The end of the last whole pcapng block that ends at or before limit (0 if the file is not a
 * pcapng file with a readable first block); calls cut() at every STRIDE-th boundary past head. */
static size_t walk_blocks(const uint8_t *buf, size_t n, size_t limit, size_t head, void (*cut)(size_t))
{
	if (n < 12 || load32(buf, 0) != 0x0A0D0D0Au)
		return 0;
	int swapped = load32(buf + 8, 0) != 0x1A2B3C4Du;
	size_t off = 0, last = 0;
	for (unsigned b = 0; off + 12 <= n; b++) {
		uint32_t len = load32(buf + off + 4, swapped);
		if (len < 12 || len % 4 || len > n - off)
			break;
		off += len;
		if (off <= limit)
			last = off;
		if (cut && off > head && b % STRIDE == 0)
			cut(off);
	}
	return last;
}

static const uint8_t *file;
static size_t file_size;

static void cut_near(size_t at)
{
	for (size_t k = 0; k <= 8 && at + k <= file_size; k += 4)
		run(file, at + k);
}

static void replay(uint8_t *buf, size_t n)
{
	size_t head = walk_blocks(buf, n, HEAD_BYTES, 0, NULL);
	if (head == 0)
		head = n < HEAD_BYTES ? n : HEAD_BYTES;
	size_t tail = n > TAIL_BYTES ? n - TAIL_BYTES : 0;
	if (tail < head)
		tail = head;

	run(buf, n);
	for (size_t cut = 0; cut < head; cut += 4)
		run(buf, cut);
	file = buf;
	file_size = n;
	walk_blocks(buf, tail, tail, head, cut_near);
	for (size_t cut = tail & ~(size_t)3; cut < n; cut += 4)
		run(buf, cut);

	static const uint8_t masks[] = {0x01, 0x80, 0xff, 0x0f};
	for (size_t j = 0; j < head && j < 512; j++)
		for (unsigned m = 0; m < sizeof(masks); m++) {
			buf[j] ^= masks[m];
			run(buf, head);
			buf[j] ^= masks[m];
		}
}

int main(int argc, char **argv)
{
	static uint8_t buf[MAX_FILE];

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		replay(buf, n);
	}
	printf("replay_files: %llu runs over %d files\n", runs, argc - 1);
	return 0;
}
