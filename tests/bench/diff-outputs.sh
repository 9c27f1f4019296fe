#!/usr/bin/env bash
# diff-outputs.sh: a differential run of two rocedump binaries (before and after a change to the
# hot path) over every capture in captures/ and any further files given, in the output modes
# that show the analysis: -vv -e (text with events), -T json -vv, -q (the summary), and
# --summary -T json; each on one thread and on two. Prints one line per difference and a total.
#
#   tests/bench/diff-outputs.sh OLD-ROCEDUMP NEW-ROCEDUMP [CAPTURE...]
#
# Exit status: 0 when every output is byte-for-byte the same (and so is every exit status), 1
# when one differs, 2 on a usage error.
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
	echo "usage: $0 OLD-ROCEDUMP NEW-ROCEDUMP [CAPTURE...]" >&2
	exit 2
fi
old=$1 new=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t caps < <(find "$here/../../captures" -type f \( -name '*.pcap' -o -name '*.pcapng' \) | sort)
caps+=("$@")
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
runs=0 diffs=0
for f in "${caps[@]}"; do
	for mode in "-vv -e" "-T json -vv" "-q" "--summary -T json"; do
		for threads in 1 2; do
			# shellcheck disable=SC2086 # mode is several words
			"$old" --threads $threads $mode -r "$f" >"$tmp/old" 2>&1
			a=$?
			# shellcheck disable=SC2086
			"$new" --threads $threads $mode -r "$f" >"$tmp/new" 2>&1
			b=$?
			runs=$((runs + 1))
			if [ $a != $b ] || ! cmp -s "$tmp/old" "$tmp/new"; then
				echo "DIFFERS: $mode --threads $threads -r $f (exit $a / $b)"
				diffs=$((diffs + 1))
			fi
		done
	done
done
echo "diff-outputs: ${#caps[@]} captures, $runs runs, $diffs differ"
[ $diffs = 0 ]
