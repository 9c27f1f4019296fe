#!/bin/bash
# campaign.sh: a libFuzzer campaign over the fuzz targets, each seeded in its own input format
# from the project's captures (tests/fuzz/README.md):
#   fuzz_decode    one seed per frame of every capture, with its link type (fuzz_seeds decode)
#   fuzz_capstats  the pcapng captures themselves
#   fuzz_analyze   6-byte records made from every capture's RoCE frames (fuzz_seeds analyze)
#   fuzz_input     the pcapng files of the project and its pcap captures under 20 KB, whole
#                  files (inputs up to 16 KiB)
# Each target runs at nice 19, one job, under the build's sanitizers, for the given number of
# executions; crashing inputs land in WORK/art-TARGET/. The last status line of each run (its
# executions, cov and ft) is printed at the end.
#
#   tests/fuzz/campaign.sh BUILD WORK DECODE_RUNS CAPSTATS_RUNS ANALYZE_RUNS [INPUT_RUNS]
#
# BUILD: a build configured with CC=clang -Dfuzzing_engine=libfuzzer
# -Db_sanitize=address,undefined -Db_lundef=false. Exit status: 0 when no target crashed, 1 when
# one did, 2 on a usage error.
set -u
if [ $# -ne 5 ] && [ $# -ne 6 ]; then
	echo "usage: $0 BUILD WORK DECODE_RUNS CAPSTATS_RUNS ANALYZE_RUNS [INPUT_RUNS]" >&2
	exit 2
fi
build=$(cd "$1" && pwd) work=$(mkdir -p "$2" && cd "$2" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/tests/fuzz
mapfile -t caps < <(find "$src/captures" -type f \( -name '*.pcap' -o -name '*.pcapng' \) | sort)
mkdir -p "$work"/{seed,corpus,art}-{decode,capstats,analyze,input}
"$bin/fuzz_seeds" decode "$work/seed-decode" "${caps[@]}" || exit 2
"$bin/fuzz_seeds" analyze "$work/seed-analyze" "${caps[@]}" || exit 2
cp "$src"/captures/*/*.pcapng "$work/seed-capstats/"
cp "$src"/captures/*/*.pcapng "$src"/tests/unit/data/conform/*.pcapng "$work/seed-input/"
find "$src/captures" -name '*.pcap' -size -20k -exec cp {} "$work/seed-input/" \;

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
run() {  # TARGET RUNS EXTRA-OPTIONS...
	local t=$1 n=$2; shift 2
	# -entropic=0: the analyzer's inputs reach ~15,000 features, and entropic scheduling's
	# per-feature bookkeeping took two thirds of its time (about 150 against 1,000 runs a second)
	# with -jobs=1 the run is a child process whose output goes to ./fuzz-0.log
	mkdir -p "$work/run-$t"
	(cd "$work/run-$t" && rm -f fuzz-0.log && nice -n 19 "$bin/fuzz_$t" -jobs=1 -runs="$n" -entropic=0 \
		-print_final_stats=1 -artifact_prefix="$work/art-$t/" "$@" "$work/corpus-$t" "$work/seed-$t" \
		>/dev/null 2>&1) || status=1
	grep -qE 'ERROR|SUMMARY: |deadly signal' "$work/run-$t/fuzz-0.log" && status=1
	echo "$t: $(grep -E '^#[0-9]+' "$work/run-$t/fuzz-0.log" | tail -1)"
	grep -E '^stat::' "$work/run-$t/fuzz-0.log" | tr '\n' ' '
	echo
}
run decode "$3"
run capstats "$4"
run analyze "$5" -max_len=4096
[ "${6:-0}" -gt 0 ] && run input "$6" -max_len=16384
ls "$work"/art-*/ 2>/dev/null
exit $status
