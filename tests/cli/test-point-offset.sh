#!/bin/bash
# test-point-offset.sh ROCEDUMP CAPTURES: --point-offset NAME=NS whose name matches no capture
# point is an error (exit status 2 and a message naming it) whatever the output: text, JSON, -w
# and -q alike; a name that matches one is taken. A capture of fewer than two points has no path
# to take offsets off: no name is checked there. Two points whose clocks sit at the two ends of the
# analysis's time range: the first pass runs clean (no sanitizer report) (TAP).
set -u
rd=$1 caps=$2
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
three=$caps/derived/path_three_points.pcapng  # points tapA, tapB, tapC
one=$caps/rxe/rc_pingpong.pcap                # one point

# expect NAME STATUS STDERR-REGEX ARGS...: rocedump's exit status and standard error (an empty
# regex: nothing on it)
expect() {
	local name=$1 want=$2 pat=$3; shift 3
	"$rd" "$@" >"$T/out" 2>"$T/err" </dev/null
	local got=$? err_ok=0
	if [ -z "$pat" ]; then [ ! -s "$T/err" ] && err_ok=1
	else grep -Eq -- "$pat" "$T/err" && err_ok=1; fi
	if [ "$got" = "$want" ] && [ "$err_ok" = 1 ]; then ok "$name"
	else not_ok "$name" "exit $got (want $want)" "stderr: $(head -c 300 "$T/err")"; fi
}

unknown="^rocedump: --point-offset: no capture point named 'nosuch'"
expect "no point named so: text output, exit 2" 2 "$unknown" -r "$three" --point-offset nosuch=1000
expect "no point named so: -T json, exit 2" 2 "$unknown" -r "$three" --point-offset nosuch=1000 -T json
expect "no point named so: -w, exit 2" 2 "$unknown" -r "$three" --point-offset nosuch=1000 -w "$T/w.pcapng"
expect "no point named so: -q, exit 2" 2 "$unknown" -r "$three" --point-offset nosuch=1000 -q
expect "no point named so, after one that is: exit 2" 2 "$unknown" -r "$three" --point-offset tapB=1000 \
	--point-offset nosuch=1000
expect "a point's name: text output, exit 0" 0 '' -r "$three" --point-offset tapB=1000
expect "a point's number: -T json, exit 0" 0 '' -r "$three" --point-offset 2=-1000 -T json
expect "one point, no path: the name not checked (text)" 0 '' -r "$one" --point-offset nosuch=1000
expect "one point, no path: the name not checked (-q)" 0 '' -r "$one" --point-offset nosuch=1000 -q

# two points whose clocks sit just past the two ends of the analysis's time range (if_tsoffset +-2^62 ns
# as seconds): the first pass, which estimates the points' offsets from the start's frames, takes
# their times' difference (it overflowed int64: UBSan in the sanitizer builds); no offset given
python3 - "$one" "$T/ends.pcapng" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
scale = {0xa1b2c3d4: 1000, 0xa1b23c4d: 1}[struct.unpack('<I', d[:4])[0]]
frames, o = [], 24
while o + 16 <= len(d):
    s, f, cl, ol = struct.unpack('<IIII', d[o:o + 16])
    frames.append((s * 10**9 + f * scale, d[o + 16:o + 16 + cl]))
    o += 16 + cl
def blk(t, body):
    body += b'\0' * (-len(body) % 4)
    return struct.pack('<II', t, len(body) + 12) + body + struct.pack('<I', len(body) + 12)
def opt(c, v):
    return struct.pack('<HH', c, len(v)) + v + b'\0' * (-len(v) % 4)
w = blk(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1))
for off in (4611686019, -4611686019):  # seconds: just past +-(2^62 - 1) ns, the analysis's range
    w += blk(1, struct.pack('<HHI', 1, 0, 262144) + opt(9, b'\x09') + opt(14, struct.pack('<q', off)) + opt(0, b''))
for ns, data in frames[:200]:
    for i in (0, 1):
        t = ns - frames[0][0] + i
        w += blk(6, struct.pack('<IIIII', i, t >> 32, t & 0xffffffff, len(data), len(data)) + data)
open(sys.argv[2], 'wb').write(w)
PY
"$rd" -r "$T/ends.pcapng" -q >/dev/null 2>"$T/err" </dev/null
rc=$?
if [ "$rc" = 0 ] && ! grep -q 'runtime error' "$T/err"; then
	ok "two points' clocks at the time range's two ends: the first pass runs clean (exit 0)"
else
	not_ok "clocks at the time range's two ends" "exit $rc" "$(grep -m2 'runtime error' "$T/err")"
fi

echo "1..$n"
[ "$failed" = 0 ]
