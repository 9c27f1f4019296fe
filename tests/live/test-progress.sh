#!/bin/bash
# test-progress.sh: the progress line of -r -q (TAP). A writer feeds a capture into a pipe for
# ~1.5 s; with standard error a terminal (script(1) gives rocedump one) the line is drawn and
# erased, and the summary is the same as without it; with standard error a file, nothing.
#   test-progress.sh ROCEDUMP CAPTURE
set -u
R=$1 CAP=$2
command -v script >/dev/null || { echo "1..0 # SKIP script(1) is not installed (util-linux)"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/feed.py" <<'PY'
import sys, time
data = open(sys.argv[1], 'rb').read()
out = sys.stdout.buffer
out.write(data[:24])
for _ in range(15):
    out.write(data[24:])
    out.flush()
    time.sleep(0.1)
PY
echo "1..3"
script -qec "python3 $T/feed.py $CAP | $R -r - -q > $T/tty.out" "$T/typescript" >/dev/null 2>&1
python3 "$T/feed.py" "$CAP" | "$R" -r - -q >"$T/plain.out" 2>"$T/plain.err"
grep -q 'frames/s' "$T/typescript" && grep -q $'\r\033\[K' "$T/typescript" &&
	echo "ok 1 - standard error a terminal: the progress line, drawn and erased" ||
	{ echo "not ok 1 - standard error a terminal: the progress line"; head -c 300 "$T/typescript" | cat -v | sed 's/^/# /'; }
cmp -s "$T/tty.out" "$T/plain.out" && echo "ok 2 - the same summary with and without it" ||
	echo "not ok 2 - the same summary with and without it"
[ ! -s "$T/plain.err" ] && echo "ok 3 - standard error not a terminal: nothing there" ||
	{ echo "not ok 3 - standard error not a terminal: nothing there"; head -3 "$T/plain.err" | sed 's/^/# /'; }
