#!/usr/bin/env bash
# report-bench.sh: what rocedump --report costs, next to rocedump -q on the same capture.
#
#   tests/bench/report-bench.sh [--build DIR] [--rocedump P] [--gencaps P] [--packets N] [--qps Q]
#                               [--runs N] [--dir DIR] [--keep] [--no-browser] [--page FILE]
#
# Makes the synthetic capture with gencaps --bench-small (N small SEND_ONLY/ACK packets, default
# 1,000,000, over Q queue pairs, default 1,000), reads it once to warm the page cache, then times,
# best of N wall-clock runs (default 7), interleaved (the order flipping each round):
#   rocedump -q -r FILE                       the summary alone
#   rocedump -q -r FILE --report OUT.html     the summary and the report
# and prints both, their ratio against the target (under 2x: PASS/FAIL), the page's size (target
# under 10 MB: PASS/FAIL), peak RSS and CPU time of each (one more run under GNU time), and, unless
# --no-browser, how long headless Chromium takes to open the page with its default view (the first
# pair's plots) and with every plotted pair open (#all): the page's own time from navigation to
# built (performance.now() when it sets data-ready) and the wall time of the load. --page keeps
# the report. Exit status: 0 when everything ran (whatever PASS/FAIL says), 1 when a program
# failed, 2 on a usage error.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
rocedump='' gencaps='' packets=1000000 qps=1000 runs=7 dir='' keep=0 browser=1 page=''

me=report-bench
# shellcheck source-path=SCRIPTDIR source=benchlib.sh
. "$here/benchlib.sh"

while [ $# -gt 0 ]; do
	common_arg "$@"
	if [ "$took" -gt 0 ]; then shift "$took"; continue; fi
	case $1 in
	--packets) need_arg "$@"; packets=$2; shift ;;
	--qps) need_arg "$@"; qps=$2; shift ;;
	--runs) need_arg "$@"; runs=$2; shift ;;
	--page) need_arg "$@"; page=$2; shift ;;
	--no-browser) browser=0 ;;
	*) unknown_arg "$1" ;;
	esac
	shift
done
check_uints packets qps runs
rocedump=${rocedump:-$build/analyzer/rocedump/rocedump}
gencaps=${gencaps:-$build/tests/gencaps}
need_programs --rocedump/--gencaps "$rocedump" "$gencaps"
bench_dirs rocedump-report-bench
cap=$dir/bench-small-$packets-$qps.pcap
html=$work/report.html
cleanup() {
	[ -n "$page" ] && [ -f "$html" ] && cp "$html" "$page"
	bench_cleanup "$cap"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

make_cap "$cap" --bench-small "$packets" "$qps"
cat "$cap" >/dev/null  # warm the page cache

q=("$rocedump" -q -r "$cap")
rep=("$rocedump" -q -r "$cap" --report "$html")
for ((i = 0; i < runs; i++)); do
	if ((i % 2)); then
		seconds report /dev/null "${rep[@]}"; seconds q /dev/null "${q[@]}"
	else
		seconds q /dev/null "${q[@]}"; seconds report /dev/null "${rep[@]}"
	fi
done
declare -A best rss_s cpu_s
for key in q report; do
	best[$key]=$(stat_of $key best)
	if [ $key = q ]; then peak_rss q "${q[@]}"; else peak_rss report "${rep[@]}"; fi
	if [ -n "${rss[$key]}" ]; then
		rss_s[$key]=$(awk -v r="${rss[$key]}" 'BEGIN { printf "%.1f MiB", r / 1024 }')
		cpu_s[$key]="${cpu[$key]} s"
	else
		rss_s[$key]=n/a cpu_s[$key]=n/a
	fi
done
size=$(stat -c %s "$html")

echo "capture: $packets small packets over $qps queue pairs ($(stat -c %s "$cap") bytes); best of $runs, interleaved"
printf '%-34s %9s  %11s  %9s\n' "" "wall" "peak RSS" "CPU"
printf '%-34s %8.3fs  %11s  %9s\n' "rocedump -q" "${best[q]}" "${rss_s[q]}" "${cpu_s[q]}"
printf '%-34s %8.3fs  %11s  %9s\n' "rocedump -q --report OUT.html" "${best[report]}" "${rss_s[report]}" "${cpu_s[report]}"
ratio=$(awk -v a="${best[report]}" -v b="${best[q]}" 'BEGIN { printf "%.2f", a / b }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r < 2 ? "PASS" : "FAIL") }')
echo "$verdict  --report takes ${ratio}x the time of -q (target: under 2x)"
verdict=$(awk -v s="$size" 'BEGIN { print (s < 10 * 1000 * 1000 ? "PASS" : "FAIL") }')
echo "$verdict  the report is $(awk -v s="$size" 'BEGIN { printf "%.2f MB", s / 1e6 }') (target: under 10 MB)"

if [ "$browser" = 1 ]; then
	/usr/bin/python3 - "$here/../report" "$html" <<'PY' || die "the browser run failed"
import os, re, shutil, sys, time
sys.path.insert(0, sys.argv[1])
import report_check as rc
path = shutil.which("chromium") or shutil.which("chromium-browser")
if not path:
    print("INFO  no chromium: the page's opening time is not measured")
    sys.exit(0)
b = rc.Browser(path)
try:
    b.open("about:blank", screenshot=False)  # the browser started
    for frag, what in (("", "default view (first pair open)"), ("#all", "every plotted pair open")):
        t0 = time.monotonic()
        noise, dom, _ = b.open("file://" + os.path.abspath(sys.argv[2]) + frag, screenshot=False)
        wall = time.monotonic() - t0
        m = re.search(r'data-built-ms="(\d+)"', dom)
        plots = re.search(r'data-plots="(\d+)"', dom)
        print(f"INFO  Chromium opens the page, {what}: built {m.group(1) if m else '?'} ms after navigation, "
              f"{plots.group(1) if plots else 0} plots, {wall:.2f} s wall including the tab; {len(noise)} console messages")
finally:
    b.close()
PY
fi
