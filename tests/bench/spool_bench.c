/* spool_bench.c: how long --export takes to walk a spool of many batches (the drain after a long
 * outage), without a server: N batch files written into a fresh directory (default 50,000, the
 * spool of a live capture away from its server for some hours), then found oldest first and
 * removed one by one as a drain does (spool_next, spool_remove). Prints the files, the seconds and
 * the microseconds a batch. A benchmark, not a test: `meson test -C build --benchmark -v
 * spool-drain`, or tests/bench/spool_bench [N]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export/spool.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 50000;
	char dir[] = "/tmp/rocedump-spool-bench-XXXXXX", path[512], name[SPOOL_NAME_MAX] = "", err[256];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/20261207T000000Z-1-0000.%010u.frames" SPOOL_SUFFIX, dir, i);
		FILE *f = fopen(path, "w");
		if (!f || fputs("rows", f) < 0 || fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	struct spool s;
	if (spool_open(&s, dir, (uint64_t)1 << 40, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	double t0 = now();
	unsigned found = 0;
	while (spool_next(&s, name, name)) {
		spool_remove(&s, name);
		found++;
	}
	double took = now() - t0;
	spool_close(&s);
	rmdir(dir);
	printf("spool drain: %u batches found and removed of %u, %.3f s, %.1f us a batch\n", found, n, took,
	       took * 1e6 / (found ? found : 1));
	return found == n ? 0 : 1;
}
