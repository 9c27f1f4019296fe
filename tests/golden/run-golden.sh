#!/bin/sh
# run-golden.sh: one golden test (tcpdump's TESTLIST style): run rocedump on a capture with the
# given flags and compare its standard output, standard error and exit status with the expected
# file. GOLDEN_UPDATE=1 rewrites the expected file instead.
#
# Each test runs twice: on one thread, and on three threads taking batches of two frames, so that
# every capture crosses many batch boundaries with the workers taking turns (pipeline.c). Both runs
# must give the expected file, byte for byte.
#   run-golden.sh ROCEDUMP CAPTURE EXPECTED [FLAGS...]
set -u
rocedump=$1 capture=$2 expected=$3
shift 3
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
status=0
for threads in '--threads 1' '--threads 3 --batch 2'; do
	# shellcheck disable=SC2086 # two words each
	"$rocedump" $threads -r "$capture" "$@" >"$actual" 2>&1
	echo "exit $?" >>"$actual"
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$actual" "$expected"
		exit 0
	fi
	if ! diff -u "$expected" "$actual"; then
		echo "golden mismatch: rocedump $threads -r $capture $*" >&2
		status=1
	fi
done
exit $status
