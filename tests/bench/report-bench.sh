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

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "report-bench: $*" >&2; exit 1; }
need_arg() { [ $# -ge 2 ] || { echo "report-bench: $1 needs a value" >&2; exit 2; }; }
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

while [ $# -gt 0 ]; do
	case $1 in
	--build) need_arg "$@"; build=$2; shift ;;
	--rocedump) need_arg "$@"; rocedump=$2; shift ;;
	--gencaps) need_arg "$@"; gencaps=$2; shift ;;
	--packets) need_arg "$@"; packets=$2; shift ;;
	--qps) need_arg "$@"; qps=$2; shift ;;
	--runs) need_arg "$@"; runs=$2; shift ;;
	--dir) need_arg "$@"; dir=$2; shift ;;
	--page) need_arg "$@"; page=$2; shift ;;
	--keep) keep=1 ;;
	--no-browser) browser=0 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "report-bench: unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done
for v in packets qps runs; do
	is_uint "${!v}" || { echo "report-bench: bad number for $v: ${!v}" >&2; exit 2; }
done
rocedump=${rocedump:-$build/analyzer/rocedump/rocedump}
gencaps=${gencaps:-$build/tests/gencaps}
for p in "$rocedump" "$gencaps"; do
	[ -x "$p" ] || die "not found or not executable: $p (build first, or pass --rocedump/--gencaps)"
done
if [ -n "$dir" ]; then
	mkdir -p "$dir" || die "cannot create $dir"
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/rocedump-report-bench.XXXXXX") || die "mktemp failed"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/rocedump-report-bench-out.XXXXXX") || die "mktemp failed"
cap=$dir/bench-small-$packets-$qps.pcap
html=$work/report.html
cleanup() {
	[ -n "$page" ] && [ -f "$html" ] && cp "$html" "$page"
	rm -rf "$work"
	rm -f "$cap.tmp"
	if [ "$keep" = 1 ]; then
		echo "capture kept in $dir"
	else
		rm -f "$cap"
		rmdir "$dir" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if [ ! -s "$cap" ]; then
	"$gencaps" --bench-small "$cap.tmp" "$packets" "$qps" && mv "$cap.tmp" "$cap" || die "gencaps --bench-small failed"
fi
cat "$cap" >/dev/null  # warm the page cache

declare -A best
timed() {  # timed KEY CMD...: keep the smallest wall time (bash's EPOCHREALTIME, no fork)
	local key=$1 t0 t1 rc
	shift
	t0=$EPOCHREALTIME
	"$@" >/dev/null 2>>"$work/stderr"
	rc=$?
	t1=$EPOCHREALTIME
	[ $rc -eq 0 ] || die "failed (exit $rc): $* (stderr: $(tail -3 "$work/stderr"))"
	best[$key]=$(awk -v a="$t0" -v b="$t1" -v o="${best[$key]:-}" \
		'BEGIN { t = b - a; if (o != "" && o + 0 < t) t = o; printf "%.6f", t }')
}
q=("$rocedump" -q -r "$cap")
rep=("$rocedump" -q -r "$cap" --report "$html")
for ((i = 0; i < runs; i++)); do
	if ((i % 2)); then
		timed report "${rep[@]}"; timed q "${q[@]}"
	else
		timed q "${q[@]}"; timed report "${rep[@]}"
	fi
done
declare -A rss cpu
for key in q report; do
	if [ -x /usr/bin/time ]; then
		if [ $key = q ]; then cmd=("${q[@]}"); else cmd=("${rep[@]}"); fi
		/usr/bin/time -f '%M %U %S' -o "$work/rss" "${cmd[@]}" >/dev/null 2>>"$work/stderr" || die "failed: ${cmd[*]}"
		read -r r u s < <(tail -1 "$work/rss")
		rss[$key]=$(awk -v r="$r" 'BEGIN { printf "%.1f MiB", r / 1024 }')
		cpu[$key]=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f s", u + s }')
	else
		rss[$key]=n/a cpu[$key]=n/a
	fi
done
size=$(stat -c %s "$html")

echo "capture: $packets small packets over $qps queue pairs ($(stat -c %s "$cap") bytes); best of $runs, interleaved"
printf '%-34s %9s  %11s  %9s\n' "" "wall" "peak RSS" "CPU"
printf '%-34s %8.3fs  %11s  %9s\n' "rocedump -q" "${best[q]}" "${rss[q]}" "${cpu[q]}"
printf '%-34s %8.3fs  %11s  %9s\n' "rocedump -q --report OUT.html" "${best[report]}" "${rss[report]}" "${cpu[report]}"
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
