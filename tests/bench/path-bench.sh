#!/bin/bash
# path-bench.sh: what path analysis costs. rocedump -q on a capture of three points (pcapng
# interfaces; tests/crosscheck/path_capture.py's, larger) with copy detection and path analysis on
# (the default), against rocedump -q --copy-window-us 0 (neither) on the same file: paired runs,
# alternating, the median of each; the target is at most 1.5 times.
#
#   path-bench.sh [--build DIR] [--rocedump PATH] [--packets N] [--runs N] [--dir DIR] [--keep]
#
#   --packets N  packets per stream (two streams, each seen at up to three points; default 200000)
#   --runs N     runs of each (default 7)
# Prints "INFO path analysis: X.XX times" and exits 1 past 1.5 times (0 otherwise).
set -u
me=path-bench
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../BUILD rocedump='' dir='' keep=0 packets=200000 runs=7
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--rocedump) rocedump=$2; shift 2 ;;
	--packets) packets=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "$me: unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
done
case $packets$runs in *[!0-9]*) echo "$me: --packets and --runs take numbers" >&2; exit 2 ;; esac
rocedump=${rocedump:-$build/analyzer/rocedump/rocedump}
[ -x "$rocedump" ] || { echo "$me: not found: $rocedump (build first, or pass --rocedump)" >&2; exit 1; }
[ -n "$dir" ] || { dir=$(mktemp -d); [ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT; }
cap=$dir/path-bench-$packets.pcapng
[ -s "$cap" ] || python3 "$here/../crosscheck/path_capture.py" --write "$cap" "$packets" || exit 1

secs() {  # secs ARGS...: the wall time of one rocedump run, in seconds
	local t0 t1
	t0=$(date +%s.%N)
	"$rocedump" "$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

on=() off=()
for ((i = 0; i < runs; i++)); do
	on+=("$(secs -q -r "$cap")")
	off+=("$(secs -q --copy-window-us 0 -r "$cap")")
done
m_on=$(printf '%s\n' "${on[@]}" | median)
m_off=$(printf '%s\n' "${off[@]}" | median)
ratio=$(echo "$m_on / $m_off" | bc -l)
printf 'INFO path analysis: %.2f times (median %.3f s on, %.3f s with --copy-window-us 0; %s frames)\n' \
	"$ratio" "$m_on" "$m_off" "$(( 6 * packets ))"
awk -v r="$ratio" 'BEGIN { exit !(r <= 1.5) }' || { echo "$me: over 1.5 times" >&2; exit 1; }
