#!/usr/bin/env bash
# prefetch-kept.sh: the look-ahead's prefetches are in the rocedump binary the build made.
#
# A function that only prefetches has no effect a compiler must keep: GCC 12 split the side-block
# loads of analyzer/core/prefetch.c into a function of its own, found it free of side effects and
# deleted every call, and did the same to the pipeline's load_frame(); the binary ran, every
# output was right, and the analysis waited on the misses the look-ahead was there to hide
# (~30 % of the time at 100 k QPs). Both are always inlined now. This counts, by the source line
# objdump attributes them to (the build has debug information), the prefetch instructions of
# each file, and fails below the counts the fixed build has: 19 in prefetch.c (slot, copy set,
# core, pair slot, side blocks, the request stream's core and block) and 8 in pipeline.c (a
# frame's decode as far as most decodes extend, six, and its first two lines). TAP.
#
#   tests/static/prefetch-kept.sh ROCEDUMP
set -u
bin=${1:?usage: prefetch-kept.sh ROCEDUMP}
. "$(dirname "$0")/../tap.sh"

if ! command -v objdump >/dev/null; then
	skip "prefetch.c" "objdump (binutils) not installed"
	skip "pipeline.c" "objdump (binutils) not installed"
	echo "1..$n"
	exit 0
fi
counts=$(objdump -d -l --no-show-raw-insn "$bin" | awk '
	/^\/.*:[0-9]+/ { file = $0; sub(/:[0-9]+.*/, "", file); sub(/.*\//, "", file) }
	/\tprefetch/ { n[file]++ }
	END { for (f in n) print f, n[f] }')
check() {  # check FILE MIN
	local got
	got=$(awk -v f="$1" '$1 == f { print $2 }' <<<"$counts")
	if [ "${got:-0}" -ge "$2" ]; then
		ok "$1: ${got} prefetch instructions (at least $2)"
	else
		not_ok "$1: ${got:-0} prefetch instructions, want at least $2" "every file's count: ${counts:-none}"
	fi
}
check prefetch.c 19
check pipeline.c 8
echo "1..$n"
[ "$failed" -eq 0 ]
