#!/bin/bash
# test-cli.sh: rocedump's command line: options, exit statuses, error messages, input forms
# (file, stdin, pcapng), corrupt and truncated files, JSON validity. TAP output.
#   test-cli.sh ROCEDUMP CAPTURES_DIR PYTHON3 GENCAPS [SANITIZE]
# SANITIZE: meson's b_sanitize (none, address,undefined, thread): the memory check below needs none.
set -u
R=$1 CAPS=$2 PY=${3:-python3} GENCAPS=$4 SANITIZE=${5:-none}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"

# expect NAME STATUS STDERR-REGEX -- ARGS...: run rocedump, check exit status and stderr
# (an empty regex: stderr must be empty).
expect() {
	local name=$1 want=$2 pat=$3; shift 4
	"$R" "$@" >"$T/out" 2>"$T/err" </dev/null
	local got=$?
	local err_ok
	if [ -z "$pat" ]; then [ ! -s "$T/err" ] && err_ok=1 || err_ok=0
	else grep -Eq -- "$pat" "$T/err" && err_ok=1 || err_ok=0; fi
	if [ "$got" = "$want" ] && [ "$err_ok" = 1 ]; then ok "$name"
	else not_ok "$name" "exit $got (want $want)" "stderr: $(head -c 300 "$T/err")"; fi
}

G=$CAPS/gen
expect "no arguments is a usage error" 2 '^rocedump: no input' --
expect "unknown option" 2 '^rocedump: unknown option' -- --no-such-option -r "$G/rc_opcodes.pcap"
expect "-r needs an argument" 2 '^rocedump: option requires an argument' -- -r
expect "--threads needs an argument" 2 '^rocedump: option requires an argument: --threads' -- -r "$G/rc_opcodes.pcap" --threads
expect "-c 0 rejected" 2 'invalid packet count' -- -c 0 -r "$G/rc_opcodes.pcap"
expect "-c abc rejected" 2 'invalid packet count' -- -c abc -r "$G/rc_opcodes.pcap"
expect "-T xml rejected" 2 'unknown output format' -- -T xml -r "$G/rc_opcodes.pcap"
expect "--roce-port 0 rejected" 2 'invalid UDP port' -- --roce-port 0 -r "$G/rc_opcodes.pcap"
expect "--roce-port 70000 rejected" 2 'invalid UDP port' -- --roce-port 70000 -r "$G/rc_opcodes.pcap"
expect "--roce-port ' 5' rejected" 2 'invalid UDP port' -- --roce-port ' 5' -r "$G/rc_opcodes.pcap"
expect "--roce-port +5 rejected" 2 'invalid UDP port' -- --roce-port +5 -r "$G/rc_opcodes.pcap"
expect "nine --roce-port rejected" 2 'too many' -- --roce-port 1 --roce-port 2 --roce-port 3 --roce-port 4 \
	--roce-port 5 --roce-port 6 --roce-port 7 --roce-port 8 --roce-port 9 -r "$G/rc_opcodes.pcap"
expect "--pmtu 1000 rejected" 2 'invalid path MTU' -- --pmtu 1000 -r "$G/rc_opcodes.pcap"
expect "--max-streams 0 rejected" 2 'invalid stream count' -- --max-streams 0 -r "$G/rc_opcodes.pcap"
expect "--copy-window-us -1 rejected" 2 'invalid copy window' -- --copy-window-us -1 -r "$G/rc_opcodes.pcap"
expect "--copy-window-us 1e3 rejected" 2 'invalid copy window' -- --copy-window-us 1e3 -r "$G/rc_opcodes.pcap"
# --strict on real Soft-RoCE traffic (clean, lossy, reordered, duplicated, seen twice): no error
# event, since none of the endpoints broke a rule; but where the peer died, the requester's
# endless resends exceed the retry count (exit 1). Every capture in the normal and
# AddressSanitizer builds; one of each kind in the ThreadSanitizer build (~1 s a run there): the
# verdicts do not depend on threads (the same output on 1 to 16 threads, below).
if [ "$SANITIZE" = thread ]; then
	strict_caps=("$CAPS"/rxe/{rc_pingpong,write_bw_loss,send_bw_reorder,write_bw_dup,rc_pingpong_peer_dies}.pcap
		"$CAPS"/rxe/host-taps.pcapng)
else
	strict_caps=("$CAPS"/rxe/*.pcap "$CAPS"/rxe/*.pcapng)
fi
strict_bad=
for f in "${strict_caps[@]}"; do
	[ -e "$f" ] || continue
	want=0
	[ "${f##*/}" = rc_pingpong_peer_dies.pcap ] && want=1
	"$R" -q --strict -r "$f" >/dev/null 2>&1
	[ $? = $want ] || strict_bad="$strict_bad ${f##*/}"
done
[ -z "$strict_bad" ] && ok "--strict exits 0 on every Soft-RoCE capture, 1 where the peer died" ||
	not_ok "--strict on Soft-RoCE captures" "$strict_bad"
# copies: a capture of two interfaces (each frame twice) has copies, not resends; 0 turns that off
HT=$CAPS/rxe/host-taps.pcapng
if [ -e "$HT" ]; then
	"$R" -q -r "$HT" >"$T/ht.out"
	"$R" -q --copy-window-us 0 -r "$HT" >"$T/ht0.out"
	if grep -q '^  frame.copy ' "$T/ht.out" && ! grep -q 'psn.retransmit' "$T/ht.out" &&
		! grep -q 'frame.copy' "$T/ht0.out" && grep -q '^  psn.retransmit ' "$T/ht0.out"; then
		ok "--copy-window-us: copies by default, resends with 0"
	else not_ok "--copy-window-us: copies by default, resends with 0" "$(grep -A5 '^events' "$T/ht.out")"; fi
fi
expect "-w to a directory that is not there" 2 "^rocedump: $T/no/such/dir/w.pcapng: No such file" -- \
	-w "$T/no/such/dir/w.pcapng" -r "$G/rc_opcodes.pcap"
expect "-w - with -q rejected" 2 'no room for -q or --summary' -- -w - -q -r "$G/rc_opcodes.pcap"
expect "-w FILE prints nothing" 0 '' -- -w "$T/w.pcapng" -r "$G/anomalies.pcap"
[ ! -s "$T/out" ] && ok "-w FILE: no per-frame output" || not_ok "-w FILE: no per-frame output" "$(head -c 100 "$T/out")"
"$R" -w - -r "$G/anomalies.pcap" | "$R" -r - >"$T/piped" 2>&1
"$R" -r "$G/anomalies.pcap" >"$T/direct" 2>&1
cmp -s "$T/piped" "$T/direct" && ok "-w - piped into -r - reads back the same" ||
	not_ok "-w - piped into -r - reads back the same" "$(diff "$T/direct" "$T/piped" | head -5)"
if [ -w /dev/full ]; then
	expect "-w /dev/full reports the write error" 2 'writing the capture' -- -w /dev/full -r "$G/anomalies.pcap"
fi
expect "-xxx rejected" 2 'only -x, -xx, -X and -XX' -- -xxx -r "$G/rc_opcodes.pcap"
expect "-tttttt rejected" 2 'only -t, -tt, -ttt, -tttt and -ttttt' -- -tttttt -r "$G/rc_opcodes.pcap"
expect "--time-stamp-precision pico rejected" 2 'unknown time stamp precision' -- \
	--time-stamp-precision pico -r "$G/rc_opcodes.pcap"
expect "--time-stamp-precision=nano" 0 '' -- --time-stamp-precision=nano -c 1 -r "$G/cnp_ecn.pcap"
grep -Eq '^00:00:00\.001000500 IP ' "$T/out" && ok "--time-stamp-precision=nano prints nanoseconds" ||
	not_ok "--time-stamp-precision=nano prints nanoseconds" "$(head -c 80 "$T/out")"
expect "--summary with --pmtu and --max-streams" 0 '' -- -q --summary --pmtu 1024 --max-streams 1 -r "$CAPS/rxe/rc_pingpong.pcap"
grep -Eq '^streams: 1 \(evicted [1-9][0-9]*\)' "$T/out" && ok "--max-streams 1 keeps one stream and counts evictions" ||
	not_ok "--max-streams 1 keeps one stream and counts evictions" "$(grep streams: "$T/out")"
expect "--threads 0 rejected" 2 'invalid thread count' -- --threads 0 -r "$G/rc_opcodes.pcap"
expect "--threads 17 rejected" 2 'invalid thread count' -- --threads 17 -r "$G/rc_opcodes.pcap"
expect "--batch 0 rejected" 2 'invalid batch size' -- --batch 0 -r "$G/rc_opcodes.pcap"
expect "--batch x rejected" 2 'invalid batch size' -- --batch x -r "$G/rc_opcodes.pcap"
expect "--batch 65537 rejected" 2 'invalid batch size' -- --batch 65537 -r "$G/rc_opcodes.pcap"
# congestion options
for a in 0 25X G 100Q 2000000G ' 25G' -5G 999K; do
	expect "--link-speed '$a' rejected" 2 'invalid link speed' -- --link-speed "$a" -r "$G/pfc_pause.pcap"
done
expect "--pfc-storm-ms 0 rejected" 2 'invalid PFC storm time' -- --pfc-storm-ms 0 -r "$G/pfc_pause.pcap"
for a in 64=1 1=8 '1=3,' =3 1=3,x 'a=b' ''; do
	expect "--dscp-prio '$a' rejected" 2 'invalid DSCP to priority map' -- --dscp-prio "$a" -r "$G/pfc_pause.pcap"
done
expect "--cnp-timeout-us 0 rejected" 2 'invalid CNP timeout' -- --cnp-timeout-us 0 -r "$G/cnp_matching.pcap"
expect "--cnp-interval-us x rejected" 2 'invalid CNP interval' -- --cnp-interval-us x -r "$G/cnp_matching.pcap"
expect "--link-speed 25G accepted" 0 '' -- -q --link-speed 25G --pfc-storm-ms 5 --dscp-prio 26=3,48=6 --cnp-interval-us 0 \
	--cnp-timeout-us 10 -r "$G/pfc_pause.pcap"
# the congestion tables (PFC/PAUSE, per-stream congestion) fit in 120 columns, a 1 ms CE->CNP
# latency included (cnp_ecn.pcap: a CNP 1 ms after the mark)
for c in "$G/cnp_ecn.pcap" "$G/cnp_matching.pcap" "$G/pfc_timeline.pcap" "$CAPS/rxe/rc_pingpong_ecn_part.pcap"; do
	"$R" -q --summary -r "$c" >"$T/cong.out" 2>&1
	wide=$(sed -n '/^PFC\/PAUSE by/,/^streams:/p; /^congestion:/,$p' "$T/cong.out" | awk 'length($0) > 120' | head -1)
	if grep -q '^congestion:' "$T/cong.out" && [ -z "$wide" ]; then ok "congestion tables of $(basename "$c") in 120 columns"
	else not_ok "congestion tables of $(basename "$c") in 120 columns" "${wide:-no congestion table}"; fi
done
expect "missing file" 2 "^rocedump: $T/nope.pcap: No such file" -- -r "$T/nope.pcap"
expect "bad filter" 2 '^rocedump: filter "udp porrt 1"' -- -r "$G/rc_opcodes.pcap" udp porrt 1
expect "--help exits 0" 0 '' -- --help
expect "--version exits 0" 0 '' -- --version

head -c 4000 /dev/urandom >"$T/random.pcap"
printf '\xd4\xc3\xb2\xa1' | cat - /dev/zero | head -c 3 >"$T/short.pcap"
expect "random bytes are not a capture" 2 "^rocedump: $T/random.pcap: " -- -r "$T/random.pcap"
expect "3-byte file is not a capture" 2 "^rocedump: $T/short.pcap: " -- -r "$T/short.pcap"
: >"$T/empty.pcap"
expect "empty file is not a capture" 2 "^rocedump: $T/empty.pcap: " -- -r "$T/empty.pcap"

# a capture cut in the middle of a record: the frames before it print, then an error, exit 2
size=$(stat -c %s "$G/rc_opcodes.pcap")
head -c $((size - 100)) "$G/rc_opcodes.pcap" >"$T/cut.pcap"
expect "capture cut mid-record" 2 "^rocedump: $T/cut.pcap: truncated" -- -r "$T/cut.pcap"
lines=$(wc -l <"$T/out")
[ "$lines" -gt 10 ] && ok "frames before the cut are printed ($lines)" || not_ok "frames before the cut are printed" "$lines lines"

# ... and the same, to the byte, when three threads take the frames two at a time
"$R" --threads 1 -r "$T/cut.pcap" >"$T/cut1.out" 2>"$T/cut1.err"
"$R" --threads 3 --batch 2 -r "$T/cut.pcap" >"$T/cut3.out" 2>"$T/cut3.err"
s3=$?
cmp -s "$T/cut1.out" "$T/cut3.out" && cmp -s "$T/cut1.err" "$T/cut3.err" && [ "$s3" = 2 ] &&
	ok "capture cut mid-record: the same on three threads" || not_ok "capture cut mid-record on three threads" "exit $s3"

# a record header claiming a huge caplen
"$PY" - "$G/rc_opcodes.pcap" "$T/huge.pcap" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<II', d, 24 + 8, 0x7fffffff, 0x7fffffff)
open(sys.argv[2], 'wb').write(d)
PYEOF
expect "record with absurd caplen" 2 "^rocedump: $T/huge.pcap: " -- -r "$T/huge.pcap"

# an empty capture (header only) is fine
head -c 24 "$G/rc_opcodes.pcap" >"$T/hdr.pcap"
expect "header-only capture" 0 '' -- -q -r "$T/hdr.pcap"
grep -q '^0 frames' "$T/out" && ok "header-only summary says 0 frames" || not_ok "header-only summary" "$(cat "$T/out")"

# stdin and pcapng give the same output as the pcap file
"$R" -r "$G/rc_opcodes.pcap" -T json >"$T/file.json"
"$R" -r - -T json <"$G/rc_opcodes.pcap" >"$T/stdin.json"
cmp -s "$T/file.json" "$T/stdin.json" && ok "-r - reads standard input" || not_ok "-r - reads standard input"
if command -v editcap >/dev/null; then
	editcap -F pcapng "$G/rc_opcodes.pcap" "$T/x.pcapng"
	"$R" -r "$T/x.pcapng" -T json | sed 's/,"interface":{"id":0}//' >"$T/ng.json"  # pcapng: its interface
	cmp -s "$T/file.json" "$T/ng.json" && ok "pcapng decodes like pcap" || not_ok "pcapng decodes like pcap"
else
	echo "ok $((n += 1)) - pcapng decodes like pcap # SKIP editcap not installed"
fi

# the capture's own drops: from a pcapng file and from standard input alike; none in pcap
drops='capture drops: 3 by the interface, 1 by the OS (pcapng statistics of 1 interface)'
"$R" -q -r "$G/capture_drops.pcapng" >"$T/d1"
"$R" -q -r - <"$G/capture_drops.pcapng" >"$T/d2"
if grep -qxF "$drops" "$T/d1" && cmp -s "$T/d1" "$T/d2"; then ok "pcapng drop counts, from a file and from stdin"
else not_ok "pcapng drop counts, from a file and from stdin" "$(sed -n 2p "$T/d1") | $(sed -n 2p "$T/d2")"; fi
"$R" -q -r - <"$G/rc_opcodes.pcap" >"$T/d3"
grep -qxF 'capture drops: not recorded (pcap files carry no drop counts)' "$T/d3" &&
	ok "pcap from stdin: drops not recorded" || not_ok "pcap from stdin: drops not recorded" "$(sed -n 2p "$T/d3")"

# a pcapng file with statistics blocks along the way (3 of them, 20 frames apart, the last
# with the totals): -c stops before its end, so its drops are not known, however far ahead of
# the last frame used the file was read (1 MiB at a time, more with decoding threads)
"$PY" - "$G/rc_opcodes.pcap" "$T/isb.pcapng" <<'PYEOF'
import struct, sys
src = open(sys.argv[1], 'rb').read()
cap = struct.unpack_from('<I', src, 24 + 8)[0]
frame = src[24 + 16:24 + 16 + cap]
def block(kind, body):
    body += b'\0' * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack('<II', kind, n) + body + struct.pack('<I', n)
out = block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1))
out += block(1, struct.pack('<HHI', 1, 0, 65535))
for k in range(1, 4):
    for i in range(20):
        out += block(6, struct.pack("<IIIII", 0, 0, k * 20 + i, len(frame), len(frame)) + frame)
    out += block(5, struct.pack("<III", 0, 0, k * 20) + struct.pack('<HHQ', 5, 8, k) + b'\0' * 4)
open(sys.argv[2], 'wb').write(out)
PYEOF
nk='capture drops: not known (the file was not read to its end)'
good=1
for threads in 1 2; do
	"$R" --threads $threads -q -c 5 -r "$T/isb.pcapng" >"$T/c5" 2>&1
	grep -qxF "$nk" "$T/c5" || { good=0; echo "# --threads $threads -c 5: $(grep 'capture drops' "$T/c5")"; }
	"$R" --threads $threads -q -c 5 -T json -r "$T/isb.pcapng" | grep -qF '"if_drops":null,"os_drops":null' ||
		{ good=0; echo "# --threads $threads -c 5 -T json: drops given"; }
	"$R" --threads $threads -q -r "$T/isb.pcapng" >"$T/call" 2>&1
	grep -qxF 'capture drops: 3 by the interface (pcapng statistics of 1 interface)' "$T/call" ||
		{ good=0; echo "# --threads $threads: $(grep 'capture drops' "$T/call")"; }
done
[ "$good" = 1 ] && ok "pcapng drops: not known with -c, on one thread or two; the last block's at the end" ||
	not_ok "pcapng drops: not known with -c, on one thread or two; the last block's at the end"

# timestamps: a fraction of a second or more carries into the seconds; before 1970 (a pcap
# record past 2038, which libpcap reads as negative) is a negative JSON ts
"$PY" - "$G/rc_opcodes.pcap" "$T/ts.pcap" <<'PYEOF'
import struct, sys
src = open(sys.argv[1], 'rb').read()
cap = struct.unpack_from('<I', src, 24 + 8)[0]
frame = src[24 + 16:24 + 16 + cap]
recs = b''.join(struct.pack('<IIII', s, us, cap, cap) + frame
                for s, us in ((1, 2000000), (0xffffffff, 5), (0xffffff9b, 999999), (0xffffff9c, 0)))
usec = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)  # microsecond pcap, Ethernet
open(sys.argv[2], 'wb').write(usec + recs)
PYEOF
"$R" -T json -r "$T/ts.pcap" | grep -o '"ts":[^,]*' | tr '\n' ' ' >"$T/ts.json"
"$R" -r "$T/ts.pcap" | cut -d' ' -f1 | tr '\n' ' ' >"$T/ts.txt"
want_json='"ts":3.000000000 "ts":-0.999995000 "ts":-100.000001000 "ts":-100.000000000 '
want_txt='00:00:03.000000 23:59:59.000005 23:58:19.999999 23:58:20.000000 '
[ "$(cat "$T/ts.json")" = "$want_json" ] && [ "$(cat "$T/ts.txt")" = "$want_txt" ] &&
	ok "timestamps: fractions of a second or more, and before 1970" ||
	not_ok "timestamps: fractions of a second or more, and before 1970" "$(cat "$T/ts.json")" "$(cat "$T/ts.txt")"

# non-RoCE IPv4 with no UDP or TCP header decoded: named, and cut ([|layer]) only when cut
"$PY" - "$T/noudp.pcap" <<'PYEOF'
import struct, sys
def ip4(proto, frag, payload):
    h = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), 1, frag, 64, proto, 0,
                              bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    s = sum(struct.unpack('!10H', bytes(h)))
    s = (s & 0xffff) + (s >> 16)
    struct.pack_into('!H', h, 10, ~((s & 0xffff) + (s >> 16)) & 0xffff)
    return b'\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00' + bytes(h) + payload
frames = [ip4(17, 0x2000, bytes(32)),   # first fragment of a UDP datagram: MF set
          ip4(17, 0x0004, bytes(32)),   # a later fragment
          ip4(6, 0, b'')]               # TCP with no TCP header at all
recs = b''.join(struct.pack('<IIII', i + 1, 0, len(f), len(f)) + f for i, f in enumerate(frames))
open(sys.argv[1], 'wb').write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1) + recs)
PYEOF
"$R" -r "$T/noudp.pcap" | cut -d' ' -f2- >"$T/noudp.txt"
printf '%s\n' 'IP 10.0.0.1 > 10.0.0.2: UDP [ip.fragment]' 'IP 10.0.0.1 > 10.0.0.2: UDP [ip.fragment]' \
	'IP 10.0.0.1 > 10.0.0.2: TCP' >"$T/noudp.want"
cmp -s "$T/noudp.txt" "$T/noudp.want" && ok "IPv4 fragments and a TCP packet with no header: named, not cut" ||
	not_ok "IPv4 fragments and a TCP packet with no header: named, not cut" "$(cat "$T/noudp.txt")"

# --strict: 1 on an error-severity event, 0 on a clean capture
expect "--strict on anomalies exits 1" 1 '' -- -q --strict -r "$G/anomalies.pcap"
expect "--strict on a clean capture exits 0" 0 '' -- -q --strict -r "$CAPS/rxe/rc_pingpong.pcap"
expect "without --strict anomalies exit 0" 0 '' -- -q -r "$G/anomalies.pcap"

# -c N stops after N frames
c=$("$R" -c 5 -r "$G/rc_opcodes.pcap" | wc -l)
[ "$c" = 5 ] && ok "-c 5 prints 5 lines" || not_ok "-c 5 prints 5 lines" "got $c"

c=$("$R" --threads 3 --batch 2 -c 5 -r "$G/rc_opcodes.pcap" | wc -l)
[ "$c" = 5 ] && ok "-c 5 on three threads prints 5 lines" || not_ok "-c 5 on three threads prints 5 lines" "got $c"

# Threads change nothing in the output: 20,000 small frames over 100 QPs (many batches), then
# 4 KiB frames (in batches, kept in place in the mapped file; from stdin, copied out, they run
# frame by frame on the analysis thread), then a Soft-RoCE RDMA-CM
# capture (its MADs must still pair the QPs, whichever mode their batch runs in), and small
# frames again.
"$GENCAPS" --bench-small "$T/many.pcap" 20000 100 && "$GENCAPS" --bench-mtu "$T/big.pcap" 2000000 10 ||
	not_ok "gencaps for the thread tests"
{ cat "$T/many.pcap"; tail -c +25 "$T/big.pcap"; tail -c +25 "$CAPS/rxe/cm_send_bw.pcap"
  tail -c +25 "$T/many.pcap"; } >"$T/mixed.pcap"
# same_as_one_thread FILE ARGS THREADS...: rocedump ARGS on FILE gives, with each THREADS
# option set, the output (stdout and stderr) it gives with --threads 1 and no frame looked up
# ahead (left in $T/t1.out).
same_as_one_thread() {
	local file=$1 args=$2 threads rc=0
	shift 2
	# shellcheck disable=SC2086 # several words
	ROCEDUMP_NO_LOOK_AHEAD=1 "$R" --threads 1 $args -r "$file" >"$T/t1.out" 2>&1
	for threads in "$@"; do
		# shellcheck disable=SC2086
		"$R" $threads $args -r "$file" >"$T/tn.out" 2>&1
		cmp -s "$T/t1.out" "$T/tn.out" || { rc=1; echo "# $threads $args differs from --threads 1"; }
	done
	return $rc
}
# Only the calling thread runs the sink (pipeline.c): the options below change what it prints,
# not what the threads share. The ThreadSanitizer build (~10 times slower) runs -T json alone,
# whose sink reads every field the workers decoded; the other builds compare all three.
mixed_args=("-q --summary" "-T json" "-vv -e")
[ "$SANITIZE" = thread ] && mixed_args=("-T json")
same=1
for args in "${mixed_args[@]}"; do
	same_as_one_thread "$T/mixed.pcap" "$args" "--threads 2" "--threads 4 --batch 7" "--threads 2 --batch 16" \
		"--threads 3 --batch 300" "--threads 16 --batch 1" || same=0
	# shellcheck disable=SC2086 # several words
	"$R" --threads 2 --batch 5 $args -r - <"$T/mixed.pcap" >"$T/tn.out" 2>&1
	cmp -s "$T/t1.out" "$T/tn.out" || { same=0; echo "# stdin --threads 2 --batch 5 $args differs"; }
done
"$R" --threads 2 --batch 16 -q -v --summary -r "$T/mixed.pcap" | grep -q '/cm ' ||
	{ same=0; echo "# the CM capture's QPs are not paired from CM"; }
[ "$same" = 1 ] && ok "the output is the same on 1, 2, 3, 4 and 16 threads, any batch size, file or stdin" ||
	not_ok "the output is the same on 1, 2, 3, 4 and 16 threads"

# A capture file is read through a mapping (pcapread.c), its frames kept in place in the
# pipeline's batches: the pages behind the frames in use are let go as the reading moves on, so
# the memory held stays flat in the file's size (160 MB of 4 KiB frames against 2 MB, one and two
# threads; without the letting go, the 160 MB would be resident). Sanitizer builds keep shadow
# memory of what was read: checked in the plain build.
if [ "$SANITIZE" = none ]; then
	"$GENCAPS" --bench-mtu "$T/huge.pcap" 160000000 10 || not_ok "gencaps --bench-mtu 160 MB"
	peak_kib() {  # peak_kib ARGS...: rocedump's peak RSS in KiB
		"$PY" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$R" "$@"
	}
	flat=1
	for th in 1 2; do
		small=$(peak_kib --threads $th -q -r "$T/big.pcap") && large=$(peak_kib --threads $th -q -r "$T/huge.pcap") ||
			{ flat=0; echo "# --threads $th: rocedump failed"; continue; }
		echo "# --threads $th: peak RSS $small KiB on 2 MB, $large KiB on 160 MB"
		[ "$large" -lt $((small + 64 * 1024)) ] || flat=0
	done
	rm -f "$T/huge.pcap"
	[ "$flat" = 1 ] && ok "a 160 MB file read in place: memory within 64 MiB of a 2 MB file's, 1 and 2 threads" ||
		not_ok "a 160 MB file read in place: memory not flat"
else
	skip "memory of a file read in place" "a sanitizer build ($SANITIZE)"
fi

# A capture file cut shorter while rocedump reads it (the reads past the new end come up short):
# a message and exit status 2, not a crash. rocedump is held on a full pipe after its first
# frames, the file is cut, and the pipe is drained.
"$GENCAPS" --bench-small "$T/cut.pcap" 200000 100 || not_ok "gencaps for the cut file"
mkfifo "$T/fifo"
"$R" -r "$T/cut.pcap" >"$T/fifo" 2>"$T/cut.err" &
cut_pid=$!
exec 3<"$T/fifo"
head -c 1000 <&3 >/dev/null
sleep 0.3
truncate -s 100000 "$T/cut.pcap"
cat <&3 >/dev/null
exec 3<&-
wait $cut_pid
cut_rc=$?
if [ $cut_rc = 2 ] && grep -q 'cut.pcap: part of the file could not be read (cut shorter while being read' "$T/cut.err"; then
	ok "a file cut shorter while it is read: a message and exit status 2"
else
	not_ok "a file cut shorter while it is read" "exit $cut_rc" "stderr: $(head -c 300 "$T/cut.err")"
fi

# More streams than the caches hold: above 8,192 the analysis thread loads each frame's state a
# few frames ahead (roce_analyze_prefetch), guesses that a stream made, moved or evicted meanwhile
# makes wrong. 60,000 frames over 20,000 QPs among many hosts (~35,000 streams), and the same with
# --max-streams 9000 (evictions all along): the same output as one thread that does not look ahead
# (ROCEDUMP_NO_LOOK_AHEAD), on two threads (batches) and on one (its frames held back 16 frames:
# from the mapped file in place, from standard input copied)
"$GENCAPS" --bench-hosts "$T/wide.pcap" 60000 20000 || not_ok "gencaps --bench-hosts"
# and every frame twice, as tcpdump -i any gives a frame seen on two interfaces (SLL2, ifindex 1
# and 2): 60,000 copies, recognised through the look-ahead's content keys
"$PY" - "$T/wide.pcap" "$T/wide-any.pcap" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
out = [d[:20] + struct.pack('<I', 276)]  # LINKTYPE_LINUX_SLL2
at = 24
while at < len(d):
    sec, usec, cap, wire = struct.unpack_from('<IIII', d, at)
    eth = d[at + 16:at + 16 + cap]
    for ifindex in (1, 2):
        sll2 = struct.pack('>HHIHBB8s', struct.unpack_from('>H', eth, 12)[0], 0, ifindex, 1, 0, 6, eth[6:12] + b'\0\0')
        out.append(struct.pack('<IIII', sec, usec, cap - 14 + 20, wire - 14 + 20) + sll2 + eth[14:])
    at += 16 + cap
open(sys.argv[2], 'wb').write(b''.join(out))
PYEOF
same=1
for args in "-q --summary" "-e" "-q --summary --max-streams 9000" "-e --max-streams 9000"; do
	same_as_one_thread "$T/wide.pcap" "$args" "--threads 1" "--threads 2" "--threads 2 --batch 7" || same=0
	# shellcheck disable=SC2086 # several words
	"$R" --threads 1 $args -r - <"$T/wide.pcap" >"$T/tn.out" 2>&1
	cmp -s "$T/t1.out" "$T/tn.out" || { same=0; echo "# stdin --threads 1 $args differs"; }
done
for args in "-q --summary" "-e"; do
	same_as_one_thread "$T/wide-any.pcap" "$args" "--threads 1" "--threads 2" "--threads 2 --batch 7" || same=0
done
[ "$(grep -c 'frame.copy' "$T/t1.out")" = 60000 ] || { same=0; echo "# not every second sighting is a copy"; }
# -c stops the sink with frames held back; -w writes every frame, those copied out of libpcap too
ROCEDUMP_NO_LOOK_AHEAD=1 "$R" --threads 1 -c 30001 -q --summary -w "$T/la0.pcap" -r "$T/wide.pcap" >"$T/la0.out" 2>&1
for from in file stdin; do
	if [ $from = file ]; then
		"$R" --threads 1 -c 30001 -q --summary -w "$T/la1.pcap" -r "$T/wide.pcap" >"$T/la1.out" 2>&1
	else
		"$R" --threads 1 -c 30001 -q --summary -w "$T/la1.pcap" -r - <"$T/wide.pcap" >"$T/la1.out" 2>&1
	fi
	cmp -s "$T/la0.out" "$T/la1.out" && cmp -s "$T/la0.pcap" "$T/la1.pcap" ||
		{ same=0; echo "# --threads 1 -c 30001 -w from $from differs when looking ahead"; }
done
[ "$(grep -c '^' "$T/la0.out")" -gt 9000 ] || { same=0; echo "# -c 30001: fewer streams than expected"; }
# frames that trickle in through a pipe: the ring empties whenever none is ready, then fills again
ROCEDUMP_NO_LOOK_AHEAD=1 "$R" --threads 1 -e -r "$T/wide.pcap" >"$T/la0.out" 2>&1
for cut in 3000000 3000001 5000007; do
	{ head -c $cut "$T/wide.pcap"; sleep 0.3; tail -c +$((cut + 1)) "$T/wide.pcap"; } |
		"$R" --threads 1 -e -r - >"$T/la1.out" 2>&1
	cmp -s "$T/la0.out" "$T/la1.out" || { same=0; echo "# --threads 1 from a pipe that pauses at byte $cut differs"; }
done
"$R" -q --summary -T json -r "$T/wide.pcap" | "$PY" -c '
import json, sys
n = [json.loads(l) for l in sys.stdin][-1]["streams"]["count"]
sys.exit(0 if n > 9000 else 1)' || { same=0; echo "# fewer streams than the look-ahead needs"; }
[ "$same" = 1 ] && ok "many streams, looked up ahead: the same output on one thread and on two" ||
	not_ok "many streams, looked up ahead: the same output on one thread and on two"

# The thread that populates the analyzer's memory ahead of the sink thread (prefaulter.h): 300,000
# frames over 120,000 QPs among many hosts (171,557 streams, 22 MB of stream cores: past the 16 MB
# below which it does nothing): the same summary with it as without (ROCEDUMP_NO_PREFAULT), on two
# threads; in the ThreadSanitizer build too
"$GENCAPS" --bench-hosts "$T/big.pcap" 300000 120000 || not_ok "gencaps --bench-hosts 300000 120000"
ROCEDUMP_NO_PREFAULT=1 "$R" --threads 2 -q --summary -r "$T/big.pcap" >"$T/pf0.out" 2>&1
"$R" --threads 2 -q --summary -r "$T/big.pcap" >"$T/pf1.out" 2>&1
if cmp -s "$T/pf0.out" "$T/pf1.out" && [ "$(grep -c '^' "$T/pf1.out")" -gt 170000 ]; then
	ok "many streams, memory populated ahead: the same summary as without"
else
	not_ok "many streams, memory populated ahead: the same summary as without" "$(tail -c 300 "$T/pf1.out")"
fi
rm -f "$T/big.pcap" "$T/pf0.out" "$T/pf1.out"

# Memory running out (ulimit -v, 2-MiB steps from the least in which rocedump starts at all, one
# and two threads, the many-stream file): exit status 0 or 2, never a crash; 2 only with "out of
# memory"; 0 either with the whole output (as without a limit) or, when frames went unanalysed for
# want of memory for their streams, with a warning saying so. Sanitizer builds reserve address
# space of their own: checked in the plain build.
if [ "$SANITIZE" = none ]; then
	"$R" -q -r "$T/wide.pcap" >"$T/full.out" 2>"$T/full.err" || not_ok "the many-stream file without a limit"
	start=4
	while [ $start -lt 256 ] && ! (ulimit -v $((start * 1024)) && exec "$R" --version) >/dev/null 2>&1; do
		start=$((start + 2))
	done
	counts=$( (
	bad=0 warned=0 whole=0 refused=0
	for th in 1 2; do
		for mib in $(seq $start 2 $((start + 60))); do
			(ulimit -v $((mib * 1024)) && exec "$R" --threads $th -q -r "$T/wide.pcap") >"$T/lim.out" 2>"$T/lim.err"
			rc=$?
			if [ $rc = 2 ] && grep -q 'out of memory' "$T/lim.err"; then
				refused=$((refused + 1))
			elif [ $rc = 0 ] && grep -q '^rocedump: warning: [0-9]* frames not analysed: no memory' "$T/lim.err"; then
				warned=$((warned + 1))
			elif [ $rc = 0 ] && [ ! -s "$T/lim.err" ] && cmp -s "$T/full.out" "$T/lim.out"; then
				whole=$((whole + 1))
			else
				bad=$((bad + 1))
				echo "# --threads $th, $mib MiB: exit $rc: $(head -c 200 "$T/lim.err")" >&2
			fi
		done
	done
	echo "$bad $warned $whole $refused") )
	read -r bad warned whole refused <<<"$counts"
	echo "# from $start MiB: $refused runs out of memory at start, $warned warned, $whole whole, $bad otherwise"
	[ "$bad" = 0 ] && [ "$warned" -gt 0 ] && [ "$whole" -gt 0 ] &&
		ok "memory running out: a message and status 2, or the analysis with a warning, or all of it" ||
		not_ok "memory running out: a message and status 2, or the analysis with a warning, or all of it"
else
	skip "memory running out" "a sanitizer build ($SANITIZE)"
fi

# a 100,000-byte frame (snap length 262144): a batch keeps only the 65,535 bytes the decoder
# looks at, and nothing in the output changes
"$PY" - "$G/rc_opcodes.pcap" "$T/jumbo.pcap" <<'PYEOF'
import struct, sys
src = open(sys.argv[1], 'rb').read()
hdr = bytearray(src[:24])
struct.pack_into('<I', hdr, 16, 262144)
cap = struct.unpack_from('<I', src, 24 + 8)[0]
first = src[24:24 + 16 + cap]
big = src[24 + 16:24 + 16 + 60] + bytes((i * 7) & 0xff for i in range(100000 - 60))
open(sys.argv[2], 'wb').write(bytes(hdr) + first + struct.pack('<IIII', 1, 0, len(big), len(big)) + big + src[24:])
PYEOF
same=1
for args in "-vv -e" "-T json"; do
	same_as_one_thread "$T/jumbo.pcap" "$args" "--threads 2 --batch 2" || same=0
done
grep -q '"caplen":100000' "$T/t1.out" || same=0  # the JSON run: the frame is there, whole
[ "$same" = 1 ] && ok "a 100,000-byte frame: the same output on one thread and on two" ||
	not_ok "a 100,000-byte frame: the same output on one thread and on two"

# The output's form on every capture (the two checks below): threads do not change it (the
# checks above compare 1 to 16 threads), so the ThreadSanitizer build, whose runs are ~10 times
# slower, reads the generated captures only (every link type, pcap and pcapng, the wrappers):
# the same threaded reading and decoding; the normal and AddressSanitizer builds read them all.
if [ "$SANITIZE" = thread ]; then
	every_capture=("$CAPS"/gen/*.pcap "$CAPS"/gen/*.pcapng)
else
	every_capture=("$CAPS"/*/*.pcap "$CAPS"/*/*.pcapng)
fi
# every JSON line of every capture parses, with the documented keys
bad=0
for f in "${every_capture[@]}"; do
	[ -e "$f" ] || continue
	"$R" -r "$f" -T json >"$T/all.json" 2>/dev/null
	"$PY" - "$T/all.json" <<'PYEOF' || bad=$((bad + 1))
import json, sys
numbers = []
for i, line in enumerate(open(sys.argv[1]), 1):
    o = json.loads(line)
    numbers.append(o["frame"])
    assert {"ts", "caplen", "len", "events"} <= o.keys(), line
    r = o.get("roce")
    if r and "opcode" in r:
        for k in ("version", "opcode", "opcode_name", "se", "m", "padcnt", "tver", "pkey", "fecn",
                  "becn", "dqpn", "ackreq", "psn"):
            assert k in r, (k, line)
# each frame once, by its number in the file (a pcapng of several interfaces comes in time order)
assert sorted(numbers) == list(range(1, len(numbers) + 1)), numbers[:20]
PYEOF
done
[ "$bad" = 0 ] && ok "JSON Lines parse with the documented keys" || not_ok "JSON Lines parse" "$bad files failed"

# the -q and --summary JSON objects: the keys docs/reading-output.md documents, on every capture
bad=0
for f in "${every_capture[@]}"; do
	[ -e "$f" ] || continue
	"$R" -q --summary -T json -r "$f" >"$T/sum.json" 2>/dev/null
	"$PY" - "$T/sum.json" <<'PYEOF' || bad=$((bad + 1))
import json, sys
summary, streams = [json.loads(l) for l in open(sys.argv[1])]
assert set(summary) == {"summary", "pfc", "pause", "cnp_unattributed", "pfc_untracked"}, summary.keys()
for r in summary["pfc"] + summary["pause"]:  # congestion: PFC/PAUSE rows per source MAC (and priority)
    assert {"src", "frames", "xoff", "xon", "paused_ns", "longest_ns", "storms", "paused_fraction"} <= r.keys(), r
    assert ("priority" in r) == (r in summary["pfc"]), r
s = summary["summary"]
assert {"frames", "bytes", "roce", "not_roce", "icrc", "opcodes", "events", "capture"} <= s.keys(), s.keys()
assert set(s["capture"]) == {"format", "if_drops", "os_drops"}
t = streams["streams"]
assert set(t) == {"count", "evicted", "capture", "rows"} and len(t["rows"]) == t["count"]
always = ["pair", "stream", "src", "dst", "dqpn", "paired", "peer_qpn", "transport", "pmtu", "packets", "bytes",
          "requests", "responses", "messages", "messages_by_op", "gaps", "missing_psns", "retransmits", "out_of_order",
          "timeouts", "lost_before_capture", "lost_after_capture", "copies", "naks", "rnr_naks", "max_idle_us", "congestion"]
sometimes = {"first_psn": None, "last_psn": None, "lost_at_mirror": None, "response_time_us": {"count", "untimed", "min", "mean", "p50", "p50_range_us", "p99", "p99_range_us", "max"},
             "requester_turn_us": {"count", "mean", "max"},
             "nak_recovery_us": {"count", "mean", "max"}, "timeout_age_us": {"count", "mean", "max"}}
for row in t["rows"]:
    assert set(always) <= row.keys() <= set(always) | set(sometimes), row.keys()
    assert row["paired"] in ("cm", "psn", "none")
    assert (row["peer_qpn"] is None) == (row["paired"] == "none"), row
    assert row["transport"] in ("RC", "UC", "RD", "UD", "XRC") if row["requests"] else row["transport"] is None, row
rows = t["rows"]
assert len({r["stream"] for r in rows}) == len(rows) and all(r["stream"] > 0 for r in rows)
for i, row in enumerate(rows):  # a QP's two directions, paired with each other: adjacent, one pair id
    peer = [k for k, r in enumerate(rows) if row["paired"] != "none" and r["src"] == row["dst"] and
            r["dst"] == row["src"] and r["dqpn"] == row["peer_qpn"] and r["peer_qpn"] == row["dqpn"]]
    if peer:
        assert abs(peer[0] - i) == 1 and rows[peer[0]]["pair"] == row["pair"], (row, rows[peer[0]])
        assert row["pair"] == min(row["stream"], rows[peer[0]]["stream"]), row  # the older one's id
    else:
        assert [r["pair"] for r in rows].count(row["pair"]) == 1, row
    assert set(row["messages_by_op"]) == {"send", "write", "read", "atomic", "other"}
    assert sum(row["messages_by_op"].values()) == row["messages"], row
    assert set(row["naks"]) == {"psn_seq_err", "invalid_request", "remote_access", "remote_op", "invalid_rd"}
    for k, sub in sometimes.items():
        if sub and k in row:
            assert set(row[k]) == sub, (k, row[k])
    c = row["congestion"]
    assert set(c) == {"ecn", "cnps", "cnp_unexpected", "ce_to_cnp_ns", "cnp_missing", "cnp_pending", "fecn", "becn"}, c
    assert set(c["ecn"]) == {"not_ect", "ect0", "ect1", "ce"} and sum(c["ecn"].values()) == row["packets"], row
    assert c["ce_to_cnp_ns"] is None or set(c["ce_to_cnp_ns"]) == {"count", "min", "p50", "p50_range_ns", "p99", "p99_range_ns", "max"}, c
    for q, unit, o in (("p50", "us", row.get("response_time_us")), ("p99", "us", row.get("response_time_us")),
                       ("p50", "ns", c["ce_to_cnp_ns"]), ("p99", "ns", c["ce_to_cnp_ns"])):
        if o:  # a quantile lies in its bucket's range, within the samples' min and max
            lo, hi = o[q + "_range_" + unit]
            assert o["min"] <= lo <= o[q] <= hi <= o["max"], (q, o)
PYEOF
done
[ "$bad" = 0 ] && ok "summary and --summary JSON carry the documented keys" || not_ok "summary JSON keys" "$bad files failed"

# the MSN check runs on real traffic: one ACK of a Soft-RoCE capture given MSN + 1
"$PY" - "$CAPS/rxe/rc_pingpong.pcap" "$T/msn.pcap" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, acks = 24, 0
while off < len(d):
    cap = struct.unpack_from('<I', d, off + 8)[0]
    fr = off + 16
    if d[fr + 12:fr + 14] == b'\x08\x00' and d[fr + 23] == 17 and d[fr + 42] == 0x11:  # IPv4, UDP, ACK
        acks += 1
        if acks == 6:
            msn = int.from_bytes(d[fr + 55:fr + 58], 'big')  # AETH MSN after 14+20+8+12+1 bytes
            d[fr + 55:fr + 58] = ((msn + 1) & 0xffffff).to_bytes(3, 'big')
    off = fr + cap
open(sys.argv[2], 'wb').write(d)
PYEOF
got=$("$R" -r "$T/msn.pcap" | grep -c 'ack.msn_mismatch(expected msn 3 seen 4)')
clean=$("$R" -r "$CAPS/rxe/rc_pingpong.pcap" | grep -c 'ack.msn_mismatch')
[ "$got" = 1 ] && [ "$clean" = 0 ] && ok "an ACK's wrong MSN is found (and none on the clean capture)" ||
	not_ok "ACK MSN check" "altered: $got, clean: $clean"

# the event list names every event of the table, one per line
ev=$("$R" --list-events | wc -l)
[ "$ev" -gt 30 ] && ok "--list-events lists $ev events" || not_ok "--list-events" "$ev lines"

# a reader that goes away does not hang rocedump
# -q ends with the per-stream table up to 64 rows, and with one line beyond
"$GENCAPS" --bench-small "$T/q32.pcap" 128 32 && "$GENCAPS" --bench-small "$T/q33.pcap" 132 33 ||
	not_ok "gencaps --bench-small"
"$R" -q -r "$T/q32.pcap" >"$T/q32.out"
"$R" -q --summary -r "$T/q32.pcap" >"$T/q32s.out"
if grep -qx 'streams: 64 (evicted 0); capture drops: not recorded (pcap files carry no drop counts)' "$T/q32.out" &&
	[ "$(sed '/^congestion:/,$d' "$T/q32.out" | grep -cE '^ *[0-9]+ +[0-9]+ 10\.')" = 64 ] && cmp -s "$T/q32.out" "$T/q32s.out"; then
	ok "-q with 64 streams ends with the --summary table"
else not_ok "-q with 64 streams ends with the --summary table" "$(tail -3 "$T/q32.out")"; fi
"$R" -q -r "$T/q33.pcap" >"$T/q33.out"
if [ "$(tail -1 "$T/q33.out")" = 'streams: 66 (evicted 0); --summary lists them' ] &&
	! grep -q '^pair stream source ' "$T/q33.out" &&
	[ "$("$R" -q --summary -r "$T/q33.pcap" | sed '/^congestion:/,$d' | grep -cE '^ *[0-9]+ +[0-9]+ 10\.')" = 66 ]; then
	ok "-q with 66 streams prints one line; --summary the 66 rows"
else not_ok "-q with 66 streams prints one line; --summary the 66 rows" "$(tail -3 "$T/q33.out")"; fi
if [ "$("$R" -q -T json -r "$T/q32.pcap" | wc -l)" = 2 ] && [ "$("$R" -q -T json -r "$T/q33.pcap" | wc -l)" = 1 ]; then
	ok "-q -T json adds the streams object up to 64 streams"
else not_ok "-q -T json adds the streams object up to 64 streams"; fi

timeout 10 "$R" -r "$G/uc_rd_ud_xrc_opcodes.pcap" | head -1 >/dev/null
[ $? = 0 ] && ok "closed pipe does not hang" || not_ok "closed pipe does not hang"

echo "1..$n"
[ "$failed" = 0 ]
