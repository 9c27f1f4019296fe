#!/usr/bin/env bash
# bench-smoke.sh: run-bench.sh on tiny captures, as a test (not a benchmark: no speed is judged).
#
#   tests/bench/bench-smoke.sh --rocedump P --gencaps P --floor P
#
# Checks that the benchmark script runs end to end (exit 0), that the four floors (the bare floor,
# floor -D, the tuned floor, the same-I/O floor) and rocedump -q count the same good ICRCs on the
# three captures and the scale ones (run-bench.sh stops when the floors' outputs differ), that
# every row of the table is there, that the speed verdict is against the bare floor and the other
# floors are INFO lines, that the two-core ceiling's INFO lines are there (with two CPUs), and that
# the scale table and its verdicts are there. Exit 0 when all hold, 1 otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

"$here/run-bench.sh" "$@" --small-packets 3000 --mtu-bytes 3000000 --qps 10 --runs 1 --tool-runs 1 \
	--scale '100:6000' --scale-runs 1 --no-tools >"$out" 2>&1
rc=$?
fail=0
check() {  # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi
}
check "run-bench.sh exits 0 (it did: $rc)" test "$rc" -eq 0
for f in small hosts mtu; do
	check "ICRC good counts agree on $f" grep -q "^PASS  ICRC good count on $f: bare floor [1-9][0-9]*, rocedump" "$out"
	for prog in 'barefloor' 'mapped bare floor' 'floor -D' 'tuned floor' 'same-I/O floor' 'rocedump -q' \
		'rocedump -q --threads 1'; do
		check "a row for $prog on $f" grep -Eq "^$prog +$f " "$out"
	done
	check "a speed verdict against the bare floor on $f" \
		grep -Eq "^(PASS|FAIL)  rocedump -q at >= 90% of the bare floor's speed on $f: [0-9.]+ \(medians" "$out"
	for floor in 'mapped bare floor' 'floor -D' 'tuned floor' 'same-I/O floor'; do
		check "the ratio to the $floor on $f (INFO)" grep -Eq "^INFO  rocedump -q at [0-9]+% of the $floor speed on $f$" "$out"
	done
done
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	check "the two-core ceiling: the bare floor on both halves (INFO)" \
		grep -Eq "^INFO  two cores here: the bare floor on both halves of hosts at once, one a core, in [0-9.]+ s against [0-9.]+ s for the whole file on one: [0-9.]+x$" "$out"
	check "the two-core ceiling: rocedump sharded at best (INFO)" \
		grep -Eq "^INFO  rocedump sharded at best \(--threads 1 on both halves at once, nothing shared\) in [0-9.]+ s: [0-9.]+ of the bare floor on hosts" "$out"
	check "the two-core ceiling: the one-thread time 0.9 would need (INFO)" \
		grep -Eq "^INFO  so 0.9 of the bare floor on hosts, even sharded, needs rocedump --threads 1 in [0-9.]+ s or less" "$out"
else
	check "the two-core ceiling said not measured (one CPU)" grep -q "^INFO  two-core ceiling not measured" "$out"
fi
check "a row for the many-host file as pcapng" grep -Eq "^rocedump -q +hostsng +[0-9]+ " "$out"
check "its speed against pcap (INFO)" \
	grep -Eq "^INFO  rocedump -q on hosts as pcapng at [0-9]+% of its speed as pcap \([0-9.]+ of the bare floor" "$out"
check "ICRC good counts agree at scale" grep -q "^PASS  ICRC good count on scale-100:6000: bare floor 6000, rocedump 6000" "$out"
check "a scale row at 100 QPs" grep -Eq "^100 QPs +6000 +200 " "$out"
check "a scale speed verdict" grep -Eq "^(PASS|FAIL)  rocedump -q within 2.5x of the bare floor at 100 QPs: [0-9.]+x" "$out"
check "a bytes-a-stream line" grep -Eq "^INFO  rocedump state at 100 QPs: -?[0-9]+ bytes a stream \(too few streams to judge\)" "$out"
# The bare floor reads as libpcap does: the same counts as floor -D on every capture of the project
# (other link types counted as other by both), on a big-endian copy of one, and on a pcapng file it
# refuses (exit 2)
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[i]} in --floor) floor=${args[i + 1]} ;; --barefloor) barefloor=${args[i + 1]} ;; esac
done
caps=$(cd "$here/../../captures" && pwd)
big=$(mktemp) && trap 'rm -f "$out" "$big"' EXIT
/usr/bin/python3 - "$caps/gen/rc_opcodes.pcap" "$big" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
magic, vmaj, vmin, zone, sig, snap, link = struct.unpack_from("<IHHiIII", d)
out = [struct.pack(">IHHiIII", magic, vmaj, vmin, zone, sig, snap, link)]
at = 24
while at < len(d):
    sec, frac, cap, wire = struct.unpack_from("<IIII", d, at)
    out.append(struct.pack(">IIII", sec, frac, cap, wire) + d[at + 16:at + 16 + cap])
    at += 16 + cap
open(sys.argv[2], "wb").write(b"".join(out))
PY
same=0 differ='' mapped_differ=''
for f in $(find "$caps" -name '*.pcap' | sort) "$big"; do
	bare_out=$("$barefloor" "$f" 2>&1)
	if [ "$bare_out" = "$("$floor" -D "$f")" ]; then same=$((same + 1)); else differ+=" $f"; fi
	[ "$bare_out" = "$("$barefloor" -m "$f" 2>&1)" ] || mapped_differ+=" $f"
done
check "barefloor counts as floor -D does on $same captures${differ:+ (not on:$differ)}" test -z "$differ"
check "barefloor -m counts as barefloor does${mapped_differ:+ (not on:$mapped_differ)}" test -z "$mapped_differ"
check "barefloor reads the big-endian copy: $("$barefloor" "$big")" grep -q "good [1-9]" < <("$barefloor" "$big")
"$barefloor" "$caps/gen/capture_drops.pcapng" >/dev/null 2>&1
check "barefloor refuses a pcapng file (exit 2)" test $? -eq 2
if [ "$fail" != 0 ]; then
	echo "--- run-bench.sh output:"
	cat "$out"
fi
exit "$fail"
