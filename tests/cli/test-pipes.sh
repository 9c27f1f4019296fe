#!/bin/bash
# test-pipes.sh ROCEDUMP CAPTURES PYTHON: rocedump -r on inputs that can be read once only (TAP).
# A named FIFO, /dev/stdin and a process substitution (<(...)) give the output of the file: the
# first pass that estimates clock offsets (path_probe.c) reads regular files only, and never takes
# the main pass's bytes nor waits for a writer that has gone. A FIFO with no writer yet, and a pipe
# on standard input that has written nothing, stop on SIGINT and SIGTERM (status 2 and a message:
# nothing was read). Records longer than a pipe holds (200,000 and 262,144 bytes, pcap and pcapng)
# come through a pipe whole; one whose writer pauses halfway leaves rocedump waiting where SIGINT
# stops it.
set -u
rd=$1 caps=$2 py=$3
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GUARD=10  # seconds: a hang guard, not a speed limit

# guarded ARGS...: rocedump under the hang guard, stdout and stderr to $T/out and $T/err; its
# status in rc (124 or 137: the guard ended it). Its standard input a pipe: guarded ... < <(cat F)
# (a pipeline would run it in a subshell, and rc would not come back)
guarded() {
	timeout -k 2 $GUARD "$rd" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# same_as_file NAME FILE ARGS...: the last run (guarded) gave FILE's output and status 0
same_as_file() {
	local name=$1 file=$2; shift 2
	local got=$rc
	"$rd" -r "$file" "$@" >"$T/want" 2>&1
	if [ "$got" = 0 ] && cat "$T/out" "$T/err" | cmp -s - "$T/want"; then
		ok "$name: the file's output ($(wc -l <"$T/want") lines)"
	else
		not_ok "$name: the file's output" "exit $got" "stderr: $(head -c 300 "$T/err")" \
			"$(cat "$T/out" "$T/err" | diff - "$T/want" | head -4)"
	fi
}

# stops_on SIGNAL NAME: rocedump (pid in $pid, output in $T/out, $T/err) stops within 3 s of
# SIGNAL, with status 2 and the message that nothing came
stops_on() {
	local sig=$1 name=$2
	sleep 0.3
	kill -"$sig" "$pid"
	for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"; wait "$pid" 2>/dev/null
		not_ok "$name: stops on SIG$sig" "still running 3 s after it"
		return
	fi
	wait "$pid"
	local got=$?
	if [ "$got" = 2 ] && grep -q 'stopped before any data came' "$T/err"; then
		ok "$name: SIG$sig stops it (status 2: $(head -1 "$T/err"))"
	else
		not_ok "$name: stops on SIG$sig" "exit $got (want 2)" "stderr: $(head -c 300 "$T/err")"
	fi
}

# 1-6: each capture read through a named FIFO, /dev/stdin and <(...)
for f in "$caps/rxe/rc_pingpong.pcap" "$caps/derived/path_three_points.pcapng"; do
	b=$(basename "$f")
	rm -f "$T/fifo"
	mkfifo "$T/fifo"
	cat "$f" >"$T/fifo" &
	writer=$!
	guarded -r "$T/fifo" -q
	kill $writer 2>/dev/null  # still waiting for a reader: rocedump never opened the FIFO
	wait $writer
	same_as_file "$b through a named FIFO" "$f" -q
	guarded -r /dev/stdin -q < <(cat "$f")
	same_as_file "$b through a pipe named /dev/stdin" "$f" -q
	guarded -r <(cat "$f") -e
	same_as_file "$b through <(cat FILE)" "$f" -e
done

# 7-8: a FIFO no writer has opened stops on SIGINT and SIGTERM
for sig in INT TERM; do
	rm -f "$T/fifo"
	mkfifo "$T/fifo"
	"$rd" -r "$T/fifo" -q >"$T/out" 2>"$T/err" &
	pid=$!
	stops_on $sig "a FIFO with no writer"
done

# 9: standard input, a pipe whose writer (this shell, holding the FIFO open both ways) writes nothing
rm -f "$T/fifo"
mkfifo "$T/fifo"
exec 4<>"$T/fifo"
"$rd" -r - -q <"$T/fifo" >"$T/out" 2>"$T/err" 4>&- &
pid=$!
stops_on TERM "standard input, a pipe that has written nothing"
exec 4>&-

# records longer than a pipe holds: a pcap file and a pcapng file of an Ethernet frame of N bytes
# followed by rc_opcodes.pcap's frames
big() {
	"$py" - "$caps/gen/rc_opcodes.pcap" "$1" "$2" "$3" <<'EOF'
import struct, sys
src, size, pcap_out, ng_out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = open(src, 'rb').read()
frames, at = [(0, 1, b'\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00\x45' + bytes(size - 15))], 24
while at < len(d):
    sec, usec, cap, wire = struct.unpack_from('<IIII', d, at)
    frames.append((sec, usec, d[at + 16:at + 16 + cap]))
    at += 16 + cap
with open(pcap_out, 'wb') as o:
    o.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
    for sec, usec, b in frames:
        o.write(struct.pack('<IIII', sec, usec, len(b), len(b)) + b)
with open(ng_out, 'wb') as o:
    o.write(struct.pack('<IIIHHqI', 0x0a0d0d0a, 28, 0x1a2b3c4d, 1, 0, -1, 28))
    o.write(struct.pack('<IIHHII', 1, 20, 1, 0, 262144, 20))
    for sec, usec, b in frames:
        ts, pad = sec * 1000000 + usec, -len(b) % 4
        n = 32 + len(b) + pad
        o.write(struct.pack('<IIIIIII', 6, n, 0, ts >> 32, ts & 0xffffffff, len(b), len(b)) + b +
                bytes(pad) + struct.pack('<I', n))
EOF
}

# 10-13: such records through a pipe, whole
for size in 200000 262144; do
	big $size "$T/big.pcap" "$T/big.pcapng"
	for f in "$T/big.pcap" "$T/big.pcapng"; do
		guarded -r - -q < <(cat "$f")
		same_as_file "a record of $size bytes from a pipe ($(basename "$f"))" "$f" -q
	done
done

# 14: a record longer than a pipe holds, whose writer stops halfway and keeps the pipe open:
# rocedump waits where SIGINT reaches it, and stops with the frames before it printed
big 250000 "$T/big.pcap" "$T/big.pcapng"
rm -f "$T/fifo"
mkfifo "$T/fifo"
exec 4<>"$T/fifo"
"$rd" -r - -e <"$T/fifo" >"$T/out" 2>"$T/err" 4>&- &
pid=$!
# the header, rc_opcodes.pcap's records, then 150,000 bytes of the long record (in the background:
# a pipe holds less, and a reader that waits for the record whole would never take it; written
# through a write-only descriptor, so that the writer fails once no reader is left)
{ head -c 24 "$T/big.pcap"; tail -c +25 "$caps/gen/rc_opcodes.pcap"; head -c 150000 "$T/big.pcap" | tail -c +25; } \
	>"$T/fifo" 4>&- &
writer=$!
sleep 1
kill -INT $pid
for _ in $(seq 30); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	kill -KILL $pid; wait $pid 2>/dev/null
	not_ok "a record cut off by a pausing writer: SIGINT stops rocedump" "still running 3 s after it"
else
	wait $pid
	got=$?
	want=$("$rd" -r "$caps/gen/rc_opcodes.pcap" -e | wc -l)
	if [ "$got" = 0 ] && [ "$(wc -l <"$T/out")" = "$want" ]; then
		ok "a record cut off by a pausing writer: SIGINT stops rocedump ($want frames before it printed)"
	else
		not_ok "a record cut off by a pausing writer: SIGINT stops rocedump" "exit $got (want 0)" \
			"$(wc -l <"$T/out") lines, want $want" "stderr: $(head -c 300 "$T/err")"
	fi
fi
exec 4>&-
wait $writer 2>/dev/null

echo "1..$n"
[ "$failed" = 0 ]
