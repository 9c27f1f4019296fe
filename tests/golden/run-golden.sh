#!/bin/sh
# run-golden.sh: one golden test (tcpdump's TESTLIST style): run rocedump on a capture with the
# given flags and compare its standard output, standard error and exit status with the expected
# file. GOLDEN_UPDATE=1 rewrites the expected file instead.
#   run-golden.sh ROCEDUMP CAPTURE EXPECTED [FLAGS...]
set -u
rocedump=$1 capture=$2 expected=$3
shift 3
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$rocedump" -r "$capture" "$@" >"$actual" 2>&1
echo "exit $?" >>"$actual"
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	cp "$actual" "$expected"
	exit 0
fi
if ! diff -u "$expected" "$actual"; then
	echo "golden mismatch: rocedump -r $capture $*" >&2
	exit 1
fi
