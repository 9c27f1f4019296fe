/* fuzz_capstats.c: rocedump's pcapng drop-count scanner (analyzer/rocedump/input/capstats.c) as a fuzz
 * target. Input: a capture file's bytes. The scanner is fed them whole, then in pieces whose
 * sizes come from the input itself; it must never read out of bounds, must keep its interface
 * table within bounds, and must reach the same counts however the bytes are split. Under
 * libFuzzer with -Dfuzzing_engine=libfuzzer; otherwise fuzz_capstats_replay runs it over the
 * project's captures with deterministic mutations (replay_files.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/capstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct capstats whole, split;

	capstats_free(&whole);  /* what the previous input's scan kept (statistics blocks' options) */
	capstats_init(&whole);
	capstats_feed(&whole, data, size);
	capstats_free(&split);
	capstats_init(&split);
	for (size_t at = 0, step = 1; at < size; step = step * 7 % 61 + 1) {
		size_t n = step < size - at ? step : size - at;
		capstats_feed(&split, data + at, n);
		at += n;
	}
	struct capstats_totals a = capstats_totals(&whole), b = capstats_totals(&split);
	if (whole.n_ifaces > CAPSTATS_MAX_IFACES || whole.n_isb != split.n_isb || whole.format != split.format ||
	    a.has_if_drop != b.has_if_drop || a.if_drop != b.if_drop || a.has_os_drop != b.has_os_drop ||
	    a.os_drop != b.os_drop)
		abort();
	char line[160];
	whole.complete = true;
	capstats_describe(&whole, line, sizeof(line));
	if (strncmp(line, "capture drops: ", 15) != 0)
		abort();
	return 0;
}
