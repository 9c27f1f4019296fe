#!/usr/bin/env bash
# prefetch-kept.sh: the look-ahead's prefetches are in the rocedump binary the build made.
#
# A function that only prefetches has no effect a compiler must keep: GCC 12 split the side-block
# loads of analyzer/core/prefetch.c into a function of its own, found it free of side effects and
# deleted every call, and did the same to the pipeline's load_frame(); the binary ran, every
# output was right, and the analysis waited on the misses the look-ahead was there to hide
# (~30 % of the time at 100 k QPs). Both are always inlined now. This counts the places in each
# file that prefetch: a place is a prefetch instruction's chain of inlined calls (addr2line -i;
# the build has debug information), named by the file of its innermost frame, so that a call the
# compiler copies counts once and a call it deletes is missed. It fails below the places the
# fixed build has: 13 in prefetch.c (map slot, copy set, pair slot, core, a new response's
# request core, a known response's request core, the loss block, and the first and last line of
# the request's block, the response's block and the request stream's block) and 8 in pipeline.c
# (a frame's decode as far as most decodes extend, six, and its first two lines). TAP.
#
#   tests/static/prefetch-kept.sh ROCEDUMP
set -u
bin=${1:?usage: prefetch-kept.sh ROCEDUMP}
. "$(dirname "$0")/../tap.sh"

if ! command -v objdump >/dev/null || ! command -v addr2line >/dev/null; then
	skip "prefetch.c" "objdump and addr2line (binutils) not installed"
	skip "pipeline.c" "objdump and addr2line (binutils) not installed"
	echo "1..$n"
	exit 0
fi
# every prefetch's address; addr2line -a prints it, then its frames, innermost first, "path:line"
counts=$(objdump -d --no-show-raw-insn "$bin" | awk '/\tprefetch/ { sub(":", "", $1); print "0x" $1 }' |
	addr2line -i -a -e "$bin" | awk '
	function place() { if (chain != "") file_of[chain] = first }
	/^0x/ { place(); chain = ""; first = ""; next }
	{ loc = $1; sub(/.*\//, "", loc)
	  if (first == "") { first = loc; sub(/:.*/, "", first) }
	  chain = chain " " loc }
	END { place(); for (c in file_of) n[file_of[c]]++; for (f in n) print f, n[f] }')
check() {  # check FILE MIN
	local got
	got=$(awk -v f="$1" '$1 == f { print $2 }' <<<"$counts")
	if [ "${got:-0}" -ge "$2" ]; then
		ok "$1: ${got} places that prefetch (at least $2)"
	else
		not_ok "$1: ${got:-0} places that prefetch, want at least $2" "every file's count: ${counts:-none}"
	fi
}
check prefetch.c 13
check pipeline.c 8
echo "1..$n"
[ "$failed" -eq 0 ]
