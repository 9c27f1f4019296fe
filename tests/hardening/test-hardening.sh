#!/bin/bash
# test-hardening.sh ROCEDUMP CAPTURES PYTHON: rocedump against hostile input and clients (TAP):
#   - a -Y expression nested 60,000 deep is refused (exit 2), a 9,001-term '||' chain works;
#   - --metrics takes ports 0-65535 only, and says which port it took for 0;
#   - the /metrics endpoint under 64 slow clients still answers scrapes (slow_clients.py);
#   - --metrics-file never follows a link planted, by an unprivileged user, at its temporary
#     name (PATH.tmp.PID, the name it used to write) or at its final name;
#   - a second -r is read too (merged) and the same -i given twice is refused (several are
#     captured on at once), instead of the second silently replacing the first; -r past 64 files
#     is refused;
#   - 200,000 copies of one CNP with one time stamp, and a storm of 199,990 resends of the same
#     bytes, are read in full (the sightings table's chain walk bounded).
# Every input here is a regression input of a defect once found; the suite runs in the sanitizer
# builds too.
set -u
rd=$1 caps=$2 py=$3
cap=$caps/rxe/v6_rc_pingpong.pcap
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/hardening.XXXXXX)
trap 'exec 3>&- 2>/dev/null; rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | head -5 | sed 's/^/# /'; }
check() { if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2" "${3:-}"; fi; }
run_as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# -Y: nesting bounded, chains unbounded
deep=$("$py" -c 'print("(" * 60000 + "roce.psn == 1" + ")" * 60000)')
"$rd" -r "$cap" -q -Y "$deep" >"$T/out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "nests deeper than 256 levels" "$T/out"
check $? "-Y nested 60,000 deep: exit 2 with a message (exit $rc)" "$(cat "$T/out")"
deep=$("$py" -c 'print("!" * 60000 + "roce.psn == 1")')  # an argument holds at most 128 KiB
"$rd" -r "$cap" -q -Y "$deep" >"$T/out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "nests deeper" "$T/out"
check $? "-Y with 60,000 '!': exit 2 (exit $rc)" "$(cat "$T/out")"
chain=$("$py" -c 'print("||".join(["roce.psn==9"] * 9000 + ["roce.opcode == 1"]))')
"$rd" -r "$cap" -Y "$chain" >"$T/chain" 2>"$T/err"; rc=$?
"$rd" -r "$cap" -Y "roce.opcode == 1" >"$T/plain" 2>>"$T/err"
[ "$rc" = 0 ] && [ -s "$T/plain" ] && cmp -s "$T/chain" "$T/plain"
check $? "-Y with a 9,001-term '||' chain selects what its last term does (exit $rc)" "$(cat "$T/err")"

# --metrics: the port's range
for bad in :99999 :65536 127.0.0.1:-1 :9x :1234567 ":"; do
	"$rd" -r "$cap" -q --metrics "$bad" >"$T/out" 2>&1; rc=$?
	[ "$rc" = 2 ] && grep -q "port must be a number from 0 to 65535\|give ADDR:PORT" "$T/out"
	check $? "--metrics $bad refused with exit 2 (exit $rc)" "$(cat "$T/out")"
done

# --metrics 127.0.0.1:0: the port chosen is printed; then the slow clients
mkfifo "$T/in"
"$rd" --metrics 127.0.0.1:0 -q -r - <"$T/in" >"$T/q" 2>"$T/err" &
pid=$!
exec 3>"$T/in"
cat "$cap" >&3
port=
for _ in $(seq 100); do  # the message comes once the socket listens
	port=$(sed -n 's/^rocedump: metrics served on port \([0-9]*\)$/\1/p' "$T/err")
	[ -n "$port" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if [ -n "$port" ] && [ "$port" -gt 0 ]; then
	ok "--metrics 127.0.0.1:0 says the port it took ($port)"
	"$py" "$here/slow_clients.py" "$port" >"$T/slow" 2>&1
	while read -r line; do
		case "$line" in
		"ok "*) ok "${line#ok [0-9]* - }" ;;
		"not ok "*) not_ok "${line#not ok [0-9]* - }" ;;
		*) not_ok "slow_clients.py: $line" ;;
		esac
	done <"$T/slow"
else
	not_ok "--metrics 127.0.0.1:0 says the port it took" "$(cat "$T/err")"
fi
exec 3>&-
wait "$pid"; rc=$?
check "$rc" "rocedump ends cleanly after the attack (exit $rc)" "$(cat "$T/err")"

# --metrics-file: links planted by an unprivileged user who can write the directory
D=$T/textfile; V=$T/victim
chmod 755 "$T"; mkdir "$D" "$V"; chown 65534:65534 "$D"; chmod 755 "$D"
echo "secret" >"$V/shadow"; echo "secret" >"$V/passwd"
rm -f "$T/in"; mkfifo "$T/in"
"$rd" --metrics-file "$D/m.prom" -q -r - <"$T/in" >/dev/null 2>"$T/err" &
pid=$!
run_as_nobody ln -s "$V/shadow" "$D/m.prom.tmp.$pid"
run_as_nobody ln -s "$V/passwd" "$D/m.prom"
[ -L "$D/m.prom.tmp.$pid" ] && [ -L "$D/m.prom" ]
check $? "an unprivileged user plants links at m.prom.tmp.$pid and m.prom" "$(ls -l "$D")"
exec 3>"$T/in"
cat "$cap" >&3
exec 3>&-
wait "$pid"; rc=$?
[ "$(cat "$V/shadow")" = secret ]
check $? "--metrics-file does not write through a link planted at PATH.tmp.PID" "$(head -c 200 "$V/shadow")"
[ "$(cat "$V/passwd")" = secret ] && [ -f "$D/m.prom" ] && [ ! -L "$D/m.prom" ] && grep -q '^rocedump_' "$D/m.prom"
check $? "--metrics-file replaces a link planted at its name with the metrics (exit $rc)" "$(ls -l "$D"; cat "$T/err")"
[ "$(stat -c %a "$D/m.prom")" = 644 ]
check $? "the metrics file is readable by the collector (mode $(stat -c %a "$D/m.prom"))"
left=$(find "$D" -name 'm.prom.tmp.*' ! -name "m.prom.tmp.$pid" | wc -l)
[ "$left" = 0 ]
check $? "no temporary left behind ($left)"

# a second -r never replaces the first: both are read (merged), 65 are refused
frames() { sed -n 's/^\([0-9]*\) frames.*/\1/p' "$@"; }
n1=$("$rd" -r "$cap" -q | frames) n2=$("$rd" -r "$caps/rxe/write_bw.pcap" -q | frames)
"$rd" -r "$cap" -r "$caps/rxe/write_bw.pcap" -q >"$T/out" 2>&1; rc=$?
[ "$rc" = 0 ] && [ -n "$n1" ] && [ "$(frames "$T/out")" = $((n1 + n2)) ]
check $? "-r twice: both files read, not the second alone (exit $rc, $n1 + $n2 frames)" "$(cat "$T/out")"
many=()
for _ in $(seq 65); do many+=(-r "$cap"); done
"$rd" "${many[@]}" -q >"$T/out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q -- "-r given too many times" "$T/out"
check $? "-r 65 times: exit 2 (exit $rc)" "$(cat "$T/out")"
"$rd" -i lo -i lo -q >"$T/out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q -- "-i given twice" "$T/out"
check $? "-i twice: exit 2 (exit $rc)" "$(cat "$T/out")"

# copies: packets with the same bytes share a chain of the sightings table, which each lookup
# walked whole: quadratic time. The walk now stops where no entry can be in the copy window and
# after COPY_CHAIN_MAX entries. Two storms made from the first CNP and the first other RoCEv2
# frame of gen/cnp_ecn.pcap: 200,000 copies of the CNP (a queue pair's CNPs are PSN 0, and IPv4 id
# 0 from many NICs), all with one time stamp; and the request sent again and again for PSNs
# 100-109, the same bytes every round, 2 us apart (its ICRC made again: derive_captures.py's).
# The time limits are hang guards, far above what a run takes, not a measure of speed.
"$py" - "$caps/gen/cnp_ecn.pcap" "$T/storm.pcap" "$T/resend.pcap" "$here/../crosscheck" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[4])
from derive_captures import icrc
data = open(sys.argv[1], 'rb').read()
off, found = 24, {}
while len(found) < 2 and off + 16 <= len(data):
    caplen = struct.unpack('<I', data[off + 8:off + 12])[0]
    f = data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    if len(f) > 54 and f[12:14] == b'\x08\x00' and f[23] == 17 and f[36:38] == b'\x12\xb7':
        found.setdefault(f[42] == 0x81, f)
cnp, req = found[True], found[False]
def with_psn(psn):
    f = bytearray(req)
    f[51:54] = psn.to_bytes(3, 'big')
    f[-4:] = icrc(f)
    return bytes(f)
with open(sys.argv[2], 'wb') as out:
    out.write(data[:24] + (struct.pack('<IIII', 1, 0, len(cnp), len(cnp)) + cnp) * 200000)
frames = [with_psn(100 + k) for k in range(10)]
with open(sys.argv[3], 'wb') as out:
    out.write(data[:24])
    for i in range(200000):
        t = 1000000 + 2 * i
        out.write(struct.pack('<IIII', t // 1000000, t % 1000000, len(req), len(req)) + frames[i % 10])
PY
timeout 60 "$rd" -r "$T/storm.pcap" -q >"$T/out" 2>&1; rc=$?
[ "$rc" = 0 ] && [ "$(frames "$T/out")" = 200000 ]
check $? "200,000 copies of one CNP, one time stamp: read in full, no hang (exit $rc; 124: 60 s passed)" "$(head -3 "$T/out")"
timeout 60 "$rd" -r "$T/resend.pcap" -q >"$T/out" 2>&1; rc=$?
[ "$rc" = 0 ] && [ "$(frames "$T/out")" = 200000 ] && grep -q 'ICRC: good 200000' "$T/out" &&
	grep -qE '^ *psn.retransmit +warn +199990$' "$T/out"
check $? "a storm of 199,990 resends with the same bytes: read in full, no hang (exit $rc; 124: 60 s passed)" \
	"$(head -12 "$T/out")"
echo "1..$n"
