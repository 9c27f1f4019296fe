#!/usr/bin/env bash
# run-bench-congestion.sh: what the congestion analysis costs rocedump -q.
#
#   tests/bench/run-bench-congestion.sh --rocedump P --gencaps P [--packets N] [--qps Q] [--rounds R]
#                                       [--dir DIR] [--keep] [--smoke]
#
# Makes two captures of N frames (default 1,000,000) with gencaps --bench-cong: the same small
# SEND_ONLY/ACK traffic over Q queue pairs (default 1,000), 1 us apart, ECT(0) everywhere; in the
# second, one packet in ten (pseudo-random) is CE-marked and answered by a CNP, and one frame in
# 1,000 is a PFC frame (5.12 us of priority 3). Reads each once to warm the page cache, then times
# rocedump -q -r on both, R rounds (default 11) side by side (the order flipping each round), and
# prints each one's median time, its ns a frame and the ratio of the two medians: PASS when the
# congested capture is less than 5 % slower, FAIL otherwise (a benchmark verdict, never a test's).
# --smoke: tiny captures, one round, no verdict judged (the bench suite's test that it runs, and
# that the congested capture has CE marks, all answered, and PFC pauses; else exit 1).
# Exit status: 0 when everything ran, 1 when a program failed, 2 on a usage error.
set -u
export LC_ALL=C
rocedump='' gencaps='' n=1000000 qps=1000 rounds=11 dir='' keep=0 smoke=0
die() { echo "run-bench-congestion: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--rocedump) rocedump=$2; shift ;;
	--gencaps) gencaps=$2; shift ;;
	--packets) n=$2; shift ;;
	--qps) qps=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--dir) dir=$2; shift ;;
	--keep) keep=1 ;;
	--smoke) smoke=1 n=4000 qps=10 rounds=1 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-bench-congestion: unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
for v in "$n" "$qps" "$rounds"; do
	case $v in '' | *[!0-9]* | 0) echo "run-bench-congestion: bad number: $v" >&2; exit 2 ;; esac
done
[ -x "$rocedump" ] && [ -x "$gencaps" ] || die "give --rocedump and --gencaps (executables)"
if [ -z "$dir" ]; then dir=$(mktemp -d "${TMPDIR:-/tmp}/rocedump-bench-cong.XXXXXX") || die "mktemp failed"; fi
mkdir -p "$dir" || die "cannot create $dir"
[ "$keep" = 1 ] || trap 'rm -f "$dir"/cong-[01].pcap; rmdir "$dir" 2>/dev/null' EXIT

for c in 0 1; do
	"$gencaps" --bench-cong "$dir/cong-$c.pcap" "$n" "$qps" "$c" || die "gencaps --bench-cong failed"
	cat "$dir/cong-$c.pcap" >/dev/null
	"$rocedump" -q -r "$dir/cong-$c.pcap" >"$dir/out-$c.txt" || die "rocedump -q failed on cong-$c.pcap"
done
ce=$(awk '$1 == "ecn.ce" {print $3}' "$dir/out-1.txt")
pfc=$(awk '$1 == "pfc.pause" {print $3}' "$dir/out-1.txt")
missing=$(awk '$1 == "cnp.missing" {print $3}' "$dir/out-1.txt")
echo "captures: $n frames each over $qps QPs; congested: ${ce:-0} CE-marked, each answered by a CNP" \
	"(cnp.missing: ${missing:-0}), ${pfc:-0} PFC pauses"
rm -f "$dir/out-0.txt" "$dir/out-1.txt"
# the congested capture is what it says: CE marks, every one answered, PFC pauses
[ "${ce:-0}" -gt 0 ] && [ "${missing:-0}" = 0 ] && [ "${pfc:-0}" -gt 0 ] || die "the congested capture is not as made"

now() { date +%s%N; }
declare -a t0 t1
for ((r = 0; r < rounds; r++)); do
	for c in $([ $((r % 2)) = 0 ] && echo "0 1" || echo "1 0"); do
		s=$(now)
		"$rocedump" -q -r "$dir/cong-$c.pcap" >/dev/null || die "rocedump -q failed"
		e=$(now)
		if [ "$c" = 0 ]; then t0+=($((e - s))); else t1+=($((e - s))); fi
	done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
m0=$(median "${t0[@]}") m1=$(median "${t1[@]}")
printf '%-28s %12s %10s\n' "rocedump -q" "median ms" "ns/frame"
printf '%-28s %12.1f %10.1f\n' "without congestion" "$(echo "$m0 / 1000000" | bc -l)" "$(echo "$m0 / $n" | bc -l)"
printf '%-28s %12.1f %10.1f\n' "10 % CE + CNPs, PFC" "$(echo "$m1 / 1000000" | bc -l)" "$(echo "$m1 / $n" | bc -l)"
ratio=$(echo "$m1 / $m0" | bc -l)
verdict=$(echo "$ratio < 1.05" | bc -l)
if [ "$smoke" = 1 ]; then
	printf 'INFO  congested / plain: %.3f (smoke run: not judged)\n' "$ratio"
else
	printf '%s  congested capture under 5 %% slower: %.3f of the plain one (medians of %d rounds)\n' \
		"$([ "$verdict" = 1 ] && echo PASS || echo FAIL)" "$ratio" "$rounds"
fi
exit 0
