#!/usr/bin/env bash
# bench-smoke.sh: run-bench.sh on tiny captures, as a test (not a benchmark: no speed is judged).
#
#   tests/bench/bench-smoke.sh --rocedump P --gencaps P --floor P
#
# Checks that the benchmark script runs end to end (exit 0), that the three floors (floor -D, the
# tuned floor, the same-I/O floor) and rocedump -q count the same good ICRCs on both captures
# (run-bench.sh stops when the floors' outputs differ), and that every row of the table is there. Exit 0 when all hold,
# 1 otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

"$here/run-bench.sh" "$@" --small-packets 3000 --mtu-bytes 3000000 --qps 10 --runs 1 --tool-runs 1 \
	--no-tools >"$out" 2>&1
rc=$?
fail=0
check() {  # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi
}
check "run-bench.sh exits 0 (it did: $rc)" test "$rc" -eq 0
for f in small mtu; do
	check "ICRC good counts agree on $f" grep -q "^PASS  ICRC good count on $f: floor [1-9][0-9]*, rocedump" "$out"
	for prog in 'floor -D' 'tuned floor' 'same-I/O floor' 'rocedump -q' 'rocedump -q --threads 1'; do
		check "a row for $prog on $f" grep -Eq "^$prog +$f " "$out"
	done
	check "a speed verdict against floor -D on $f" grep -Eq "^(PASS|FAIL)  rocedump -q at >= 90% of the floor's speed on $f \(floor -D" "$out"
	check "the ratio to the tuned floor on $f" grep -Eq "^INFO  rocedump -q at [0-9]+% of the tuned floor speed on $f" "$out"
	check "the ratio to the same-I/O floor on $f" grep -Eq "^INFO  rocedump -q at [0-9]+% of the same-I/O floor speed on $f" "$out"
done
if [ "$fail" != 0 ]; then
	echo "--- run-bench.sh output:"
	cat "$out"
fi
exit "$fail"
