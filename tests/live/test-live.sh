#!/bin/bash
# test-live.sh: rocedump -i on real interfaces (TAP). Two network namespaces joined by a veth pair
# (rocedump-live-PID-a/live0a and rocedump-live-PID-b/live0b, PID this script's, so that runs side by
# side do not meet; IPv6 off so that no router solicitation mixes in; created here and removed on
# every way out: the end, a failure, SIGINT, SIGTERM or SIGHUP, as meson's time limit sends), where
# tcpreplay sends the Ethernet captures of captures/ that no snapshot length cut into live0a and
# rocedump captures on live0b:
#   - every frame seen, the same per-frame output as rocedump -r on the capture (time stamps off,
#     and the ages derived from them masked), on 1, 2 and 3 threads, with a BPF filter, -T json;
#     tcpdump's count lines; the JSON summary's live capture member;
#   - a SPAN port made with tc mirred (a second veth pair mirrored onto a third), and, where the
#     kernel has erspan devices, an ERSPAN mirror of it (said when skipped, and why);
#   - SIGINT, SIGTERM: a clean exit with the summary; SIGUSR1: the counts, capture going on;
#   - -Z nobody (uid, gid and groups of the process), capture with CAP_NET_RAW alone, -Z refused
#     without root, no capture without the capability;
#   - -C/-W and -G/-W rotation: every file a pcapng of its own with an interface statistics block,
#     the files together holding every frame sent, in order;
#   - --metrics scraped with curl during a replay and promtool check metrics, --metrics-file too;
#   - output flushed while waiting for traffic (no frame held back by buffering);
#   - -w -U: the frames in the file while the capture goes on, the events as packet comments as
#     offline; SIGHUP; -Q in and out; promiscuous mode unless -p; -s; PFC/PAUSE counted live as offline.
#   test-live.sh ROCEDUMP CAPTURES_DIR
set -u
R=$1 CAPS=$2
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi; }

if [ "$(id -u)" != 0 ]; then echo "1..0 # SKIP needs root (network namespaces)"; exit 0; fi
for tool in tcpreplay ip tc curl promtool setpriv tcpdump tshark capinfos editcap; do
	command -v $tool >/dev/null || { echo "1..0 # SKIP $tool is not installed (tests/install-deps.sh)"; exit 0; }
done

# shellcheck source=netns.sh
. "$(dirname "$0")/netns.sh"
netns_pair live
chmod 755 "$T"

# The namespaces: live0a (A) <-> live0b (B), the link the captures are replayed over; live2a <->
# live2b (both in A), a monitored link; live3a (A) <-> live3b (B), its mirror port.
setup() {
	netns_up || return 1
	ina ip link add live0a type veth peer name live0b netns $NB || return 1
	ina ip link add live2a type veth peer name live2b || return 1
	ina ip link add live3a type veth peer name live3b netns $NB || return 1
	for i in live0a live2a live2b live3a; do ina ip link set $i mtu 9000 up || return 1; done
	for i in live0b live3b; do inb ip link set $i mtu 9000 up || return 1; done
}
if ! setup; then echo "1..0 # SKIP cannot create network namespaces and veth pairs here"; exit 0; fi

# capture NAME ARGS...: start rocedump in B (stdout $T/NAME.out, stderr $T/NAME.err) and wait
# until it is listening; PID in $pid.
capture() {
	local name=$1; shift
	ip netns exec $NB "$R" "$@" >"$T/$name.out" 2>"$T/$name.err" &  # not inb: $! must be rocedump
	pid=$!
	for _ in $(seq 200); do
		if grep -q 'listening on' "$T/$name.err" 2>/dev/null; then
			# A fresh ring of hundreds of MiB sometimes misses the first frames of the next few
			# hundred ms on this kernel (tcpdump -B 262144 does too): let it settle.
			sleep 0.3
			return 0
		fi
		kill -0 $pid 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# finish [SECONDS]: wait for $pid to exit (killed after SECONDS, 30 by default); its status in $rc.
finish() {
	local t=${1:-30} i
	for i in $(seq $((t * 20))); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
	if kill -0 $pid 2>/dev/null; then  # too long: the counts (SIGINT), then no more waiting
		kill -INT $pid
		sleep 2
		kill -KILL $pid 2>/dev/null
	fi
	wait $pid
	rc=$?
}
replay() { ina tcpreplay -q -i "$@" >"$T/replay.log" 2>&1; }
frames() { capinfos -c -M "$1" | awk '/Number of packets/ {print $NF}'; }
# The per-frame output without what depends on when frames arrived (a resend's age).
# (and, from a pcapng, -e's capture interface, which a replay onto one interface does not keep)
mask() { sed -E "s/, first sent [0-9]+\.[0-9]+ ms before//g; s/^if [0-9]+( \([^)]*\))? //" "$@"; }
mask_json() { sed -E 's/"(ts|time|delta_ns|age_ns)":("[^"]*"|[0-9.-]+)/"\1":-/g' "$@"; }
# Under a filter a file's frames keep their place in the file as their number (tshark's), while
# live the kernel filters and the numbers count the frames captured (tcpdump's -#).
mask_numbers() { sed -E 's/"(frame|ref_frame)":[0-9]+/"\1":-/g' "$@"; }

# Ethernet captures that no snapshot length cut.
CAPTURES=()
for f in "$CAPS"/gen/*.pcap* "$CAPS"/rxe/*.pcap*; do
	[ "$(tcpdump -r "$f" -c 1 2>&1 >/dev/null | grep -o 'link-type [A-Z0-9_]*')" = "link-type EN10MB" ] || continue
	tcpdump -r "$f" -w /dev/null 2>/dev/null || continue  # later interfaces of other link types: not Ethernet
	snap=$(tshark -r "$f" -T fields -e frame.len -e frame.cap_len 2>/dev/null | awk '$1 != $2 {n++} END {print n + 0}')
	# the congestion analysis' events (cnp.*, pfc.*) depend on the frames' times to the
	# microsecond, which a replay does not keep: those captures are checked offline
	"$R" -q -r "$f" 2>/dev/null | grep -qE '^  (cnp|pfc)\.' && continue
	[ "$snap" = 0 ] || continue
	# a pcapng of several interfaces written in batches: rocedump -r analyses it in time order,
	# tcpreplay sends it in the file's order; both are given it put in time order (reordercap)
	if [ "$(capinfos -I "$f" 2>/dev/null | grep -c '^Interface #')" -gt 1 ]; then
		reordercap "$f" "$T/sorted-$(basename "$f")" >/dev/null || { not_ok "reordercap $f"; continue; }
		f=$T/sorted-$(basename "$f")
	fi
	CAPTURES+=("$f")
done

echo "# ${#CAPTURES[@]} captures replayed"

# 1. Every capture: live output = offline output.
# rx_b: frames live0b has received, from the kernel's interface counters. A replay whose frames did
# not all reach live0b (tcpreplay on a loaded machine) says nothing about the capture: it is told
# apart from a capture that missed frames the interface received, and replayed again (three tries in all).
rx_b() { inb cat /sys/class/net/live0b/statistics/rx_packets; }
# started_late: the live output is the offline output's last lines, fewer of them; or the filter
# saw fewer frames than the interface received, none dropped (a capture whose analysis depends on
# what came before, send_bw_reorder.pcap's events, then differs in more than its start). A fresh
# ring now and then misses the first frames that reach the interface under load (CI runs: the
# last 76 of 311 frames, every one right; 164 of 231): the capture's start, not its analysis,
# which is what this checks.
started_late() {
	local n n_seen
	n=$(mask "$T/one.out" | wc -l)
	if grep -q '^0 packets dropped by kernel$' "$T/one.err" &&
		n_seen=$(sed -n 's/^\([0-9]*\) packets received by filter$/\1/p' "$T/one.err") &&
		[ -n "$n_seen" ] && [ "$n_seen" -lt "$arrived" ]; then
		return 0
	fi
	[ "$n" -lt "$(mask "$T/off.out" | wc -l)" ] && cmp -s <(mask "$T/off.out" | tail -n "$n") <(mask "$T/one.out")
}
t=1
for f in "${CAPTURES[@]}"; do
	b=$(basename "$f")
	cnt=$(frames "$f")
	t=$((t % 3 + 1))
	"$R" -r "$f" -t -vv -e --copy-window-us 0 >"$T/off.out" 2>&1
	for attempt in 1 2 3; do
		# copies are told by where and when a frame was seen, which a replay onto one interface, at
		# its own pace, does not keep: the comparison leaves them out (--copy-window-us 0)
		if ! capture one -i live0b -c "$cnt" -t -vv -e --threads $t --copy-window-us 0; then
			finish 1; rc=start; break
		fi
		rx0=$(rx_b)
		replay live0a "$f"
		arrived=$(($(rx_b) - rx0))
		finish 30
		[ "$rc" = 0 ] && cmp -s <(mask "$T/off.out") <(mask "$T/one.out") && break
		if [ "$arrived" -lt "$cnt" ]; then
			echo "# $b: live0b received $arrived of the $cnt frames replayed (lost before the capture): replayed again"
		elif started_late; then
			echo "# $b: the capture missed the replay's first frames, and nothing else (the ring's start-up): replayed again"
		else
			break
		fi
	done
	if [ "$rc" = start ]; then
		not_ok "$b: capture started" "$(cat "$T/one.err")"
	elif [ "$rc" = 0 ] && cmp -s <(mask "$T/off.out") <(mask "$T/one.out"); then
		ok "$b ($cnt frames, --threads $t): live output equals rocedump -r"
	else
		not_ok "$b ($cnt frames, --threads $t): live output equals rocedump -r" "exit $rc, live0b received $arrived" \
			"$(diff <(mask "$T/off.out") <(mask "$T/one.out") | head -6)" "$(tail -3 "$T/one.err")"
	fi
done
grep -q "^$cnt packets captured$" "$T/one.err" && grep -q "^$cnt packets received by filter$" "$T/one.err" &&
	grep -q '^0 packets dropped by kernel$' "$T/one.err" && ok "tcpdump's count lines on standard error" ||
	not_ok "tcpdump's count lines on standard error" "$(cat "$T/one.err")"

# 2. A BPF filter, JSON output.
f=$CAPS/rxe/read_bw_lossy.pcap
filter='udp dst port 4791 and ip src 10.77.0.1'
cnt=$("$R" -r "$f" -q -T json "$filter" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["summary"]["frames"])')
capture json -i live0b -c "$cnt" -T json "$filter" && replay live0a "$f"
finish 30
"$R" -r "$f" -T json "$filter" >"$T/off.json"
cmp -s <(mask_json "$T/off.json" | mask_numbers) <(mask_json "$T/json.out" | mask_numbers) && [ "$rc" = 0 ] &&
	ok "filter '$filter', -T json: the same $cnt objects as rocedump -r" ||
	not_ok "filter '$filter', -T json: the same $cnt objects as rocedump -r" "exit $rc" \
		"$(diff <(mask_json "$T/off.json" | mask_numbers) <(mask_json "$T/json.out" | mask_numbers) | head -4)"

# 3. SIGINT: clean exit, summary with the live capture's counts (text and JSON); SIGTERM too.
f=$CAPS/rxe/rc_pingpong.pcap
cnt=$(frames "$f")
capture sigint -i live0b -q && replay live0a "$f"
sleep 0.3
kill -INT $pid
finish 10
grep -q "^$cnt frames, " "$T/sigint.out" && grep -q '^capture drops: 0 by the kernel, 0 by the interface (live' "$T/sigint.out" &&
	grep -q "^$cnt packets captured" "$T/sigint.err" && [ "$rc" = 0 ] &&
	ok "SIGINT: exit 0, the summary ($cnt frames, the live drop counts) and the count lines" ||
	not_ok "SIGINT: exit 0, the summary and the count lines" "exit $rc" "$(head -3 "$T/sigint.out")" "$(cat "$T/sigint.err")"
capture sigterm -i live0b -q -T json && replay live0a "$f"
sleep 0.3
kill -TERM $pid
finish 10
python3 - "$T/sigterm.out" "$cnt" <<'PY' && [ "$rc" = 0 ] && ok "SIGTERM, -q -T json: capture member in its live form" ||
import json, sys
s = json.loads(open(sys.argv[1]).readline())["summary"]
c = s["capture"]
assert s["frames"] == int(sys.argv[2]), s
assert c["format"] == "live" and c["received"] == int(sys.argv[2]) and c["os_drops"] == 0 and c["if_drops"] == 0, c
PY
	not_ok "SIGTERM, -q -T json: capture member in its live form" "exit $rc" "$(head -c 400 "$T/sigterm.out")"

# 4. SIGUSR1: the counts, and the capture goes on.
capture usr1 -i live0b -q && replay live0a "$f"
sleep 0.3
kill -USR1 $pid
sleep 0.5
if kill -0 $pid 2>/dev/null && grep -q "^$cnt packets captured" "$T/usr1.err"; then
	ok "SIGUSR1 prints the counts and capture goes on"
else
	not_ok "SIGUSR1 prints the counts and capture goes on" "$(cat "$T/usr1.err")"
fi
kill -INT $pid
finish 10

# 5. Output is not held back while waiting for traffic (stdout a file: fully buffered otherwise).
capture flush -i live0b -t && replay live0a "$f"
sleep 0.5
lines=$(wc -l <"$T/flush.out")
kill -0 $pid 2>/dev/null && [ "$lines" = "$cnt" ] && ok "every line written out while rocedump waits for more" ||
	not_ok "every line written out while rocedump waits for more" "$lines of $cnt lines"
kill -INT $pid
finish 10

# 6. Privileges.
capture priv -i live0b -Z nobody
st=$(grep -E '^(Uid|Gid|Groups):' /proc/$pid/status 2>/dev/null | tr -s '\t ' ' ')
kill -INT $pid
finish 10
nobody_gid=$(id -g nobody)
echo "$st" | grep -q "^Uid: 65534 65534 65534 65534" && echo "$st" | grep -q "^Gid: $nobody_gid $nobody_gid $nobody_gid $nobody_gid" &&
	! echo "$st" | grep -Eq '^Groups:.* 0( |$)' && ok "-Z nobody: uid, gid and groups of nobody" ||
	not_ok "-Z nobody: uid, gid and groups of nobody" "$st"
RAW=(setpriv --reuid=65534 --regid="$nobody_gid" --clear-groups --inh-caps=+net_raw --ambient-caps=+net_raw --)
ip netns exec $NB "${RAW[@]}" "$R" -i live0b -c "$cnt" -t >"$T/raw.out" 2>"$T/raw.err" &
pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$T/raw.err" && break; sleep 0.05; done
sleep 0.3
replay live0a "$f"
finish 30
"$R" -r "$f" -t >"$T/off.out"
[ "$rc" = 0 ] && cmp -s <(mask "$T/off.out") <(mask "$T/raw.out") && ok "capture as nobody with CAP_NET_RAW alone" ||
	not_ok "capture as nobody with CAP_NET_RAW alone" "exit $rc" "$(cat "$T/raw.err")"
inb "${RAW[@]}" "$R" -i live0b -Z nobody >/dev/null 2>"$T/rawz.err"
rc=$?
[ "$rc" = 2 ] && grep -q 'cannot switch users: rocedump is not running as root' "$T/rawz.err" &&
	ok "-Z without root: a clear error, exit 2" || not_ok "-Z without root: a clear error, exit 2" "exit $rc" "$(cat "$T/rawz.err")"
inb setpriv --reuid=65534 --regid="$nobody_gid" --clear-groups -- "$R" -i live0b >/dev/null 2>"$T/noraw.err"
rc=$?
[ "$rc" = 2 ] && grep -q 'capturing needs root or CAP_NET_RAW' "$T/noraw.err" &&
	ok "no capture without CAP_NET_RAW: the error says what is needed" ||
	not_ok "no capture without CAP_NET_RAW: the error says what is needed" "exit $rc" "$(cat "$T/noraw.err")"

# 7. Rotation. -C 1: a new file past 1,000,000 bytes; the files together hold the frames sent.
f=$CAPS/rxe/read_bw_lossy.pcap
loops=10
cnt=$(($(frames "$f") * loops))
mkdir "$T/rot"
capture rotc -i live0b -c "$cnt" -w "$T/rot/c.pcapng" -C 1 && replay live0a --loop=$loops --topspeed "$f"
finish 60
files=$(ls "$T/rot" | sort -V | tr "\n" " ")
ok_files=1 reread=$T/rot.frames
: >"$reread"
for x in $files; do
	"$R" -r "$T/rot/$x" -q >"$T/rot.q" 2>&1 && grep -q '^capture drops: 0 by the interface, 0 by the OS (pcapng statistics of 1 interface)' "$T/rot.q" || ok_files=0
	tcpdump -r "$T/rot/$x" -nn -t -xx 2>/dev/null >>"$reread"
done
for _ in $(seq $loops); do tcpdump -r "$f" -nn -t -xx 2>/dev/null; done >"$T/sent.frames"
nfiles=$(echo "$files" | wc -w)
[ "$rc" = 0 ] && [ "$nfiles" -ge 3 ] && [ "$ok_files" = 1 ] && cmp -s "$T/sent.frames" "$reread" &&
	ok "-C 1: $nfiles files ($files), each a pcapng with its statistics block, together the $cnt frames sent" ||
	not_ok "-C 1: files that read back to the frames sent" "exit $rc, files: $files, statistics ok: $ok_files" \
		"$(cmp "$T/sent.frames" "$reread")"
rm -rf "$T/rot"/*
capture rotw -i live0b -c "$cnt" -w "$T/rot/w" -C 1 -W 2 && replay live0a --loop=$loops --topspeed "$f"
finish 60
files=$(ls "$T/rot" | tr '\n' ' ')
good=1
for x in $files; do "$R" -r "$T/rot/$x" -q >/dev/null 2>&1 || good=0; done
[ "$rc" = 0 ] && [ "$files" = "w0 w1 " ] && [ "$good" = 1 ] && ok "-C 1 -W 2: two files, w0 and w1, reused in turn, both readable" ||
	not_ok "-C 1 -W 2: two files, w0 and w1" "exit $rc, files: $files, readable: $good"
rm -rf "$T/rot"/*
f=$CAPS/rxe/rc_pingpong.pcap
cnt=$(frames "$f")
capture rotg -i live0b -c "$cnt" -w "$T/rot/g-%s.pcapng" -G 1 && replay live0a --pps=60 "$f"
finish 30
files=$(ls "$T/rot" | sort | tr "\n" " ")
: >"$reread"
good=1
for x in $files; do
	"$R" -r "$T/rot/$x" -q >"$T/rot.q" 2>&1 && grep -q 'pcapng statistics of 1 interface' "$T/rot.q" || good=0
	tcpdump -r "$T/rot/$x" -nn -t -xx 2>/dev/null >>"$reread"
done
nfiles=$(echo "$files" | wc -w)
[ "$rc" = 0 ] && [ "$nfiles" -ge 2 ] && [ "$good" = 1 ] && cmp -s <(tcpdump -r "$f" -nn -t -xx 2>/dev/null) "$reread" &&
	ok "-G 1: $nfiles files named by strftime, each with its statistics block, together the $cnt frames sent" ||
	not_ok "-G 1: files that read back to the frames sent" "exit $rc, files: $files, statistics ok: $good"
rm -rf "$T/rot"/*
capture rotgw -i live0b -w "$T/rot/gw-%s" -G 1 -W 2 && replay live0a --pps=40 "$f"
finish 10
files=$(ls "$T/rot" | wc -l)
[ "$rc" = 0 ] && [ "$files" = 2 ] && ok "-G 1 -W 2: stops by itself after two files" ||
	not_ok "-G 1 -W 2: stops by itself after two files" "exit $rc, $files files"

# 8. Metrics: scraped during a replay, checked by promtool; the textfile too.
f=$CAPS/rxe/read_bw_lossy.pcap
cnt=$(frames "$f")
capture metrics -i live0b -q --metrics 127.0.0.1:9315 --metrics-file "$T/rocedump.prom"
replay live0a --pps=100 "$f" &
rp=$!
sleep 1.6
inb curl -sf http://127.0.0.1:9315/metrics >"$T/during.prom"
wait $rp
sleep 1.3
inb curl -sf http://127.0.0.1:9315/metrics >"$T/after.prom"
code=$(inb curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9315/nothing)
kill -INT $pid
finish 10
during=$(awk '/^rocedump_frames_total/ {s += $2} END {print s + 0}' "$T/during.prom")
after=$(awk '/^rocedump_frames_total/ {s += $2} END {print s + 0}' "$T/after.prom")
repeated() { grep -v '^#' "$1" | sed 's/ [^ ]*$//' | sort | uniq -d | wc -l; }  # series given twice
dups=$(($(repeated "$T/during.prom") + $(repeated "$T/after.prom")))
promtool check metrics <"$T/during.prom" >"$T/promtool.log" 2>&1 && [ "$during" -gt 0 ] && [ "$during" -lt "$cnt" ] &&
	ok "/metrics during a replay ($during of $cnt frames): promtool check metrics passes" ||
	not_ok "/metrics during a replay: promtool check metrics passes" "$during of $cnt frames" "$(head -5 "$T/promtool.log")"
grep -q '^rocedump_capture_dropped_total{by="kernel"} 0$' "$T/after.prom" &&
	grep -q "^rocedump_capture_received_total $cnt$" "$T/after.prom" && [ "$after" = "$cnt" ] &&
	grep -q '^rocedump_events_total{event="psn.retransmit",severity="warn"} 149$' "$T/after.prom" &&
	grep -q '^rocedump_stream_retransmits_total{src="10.77.0.1",dst="10.77.0.2",dqpn="0x[0-9a-f]*"} [1-9]' "$T/after.prom" &&
	grep -q '^rocedump_icrc_total{status="good"} ' "$T/after.prom" && [ "$code" = 404 ] && [ "$dups" = 0 ] &&
	ok "/metrics after it: every frame, drops, received, events, top streams by retransmissions; 404 elsewhere" ||
	not_ok "/metrics after it" "frames $after of $cnt, other path: $code, series repeated in a scrape: $dups" "$(grep -v '^#' "$T/after.prom" | grep -E 'capture|psn.gap|stream_retr' | head -5)"
promtool check metrics <"$T/rocedump.prom" >"$T/promtool.log" 2>&1 && [ "$(awk '/^rocedump_frames_total/ {s += $2} END {print s + 0}' "$T/rocedump.prom")" = "$cnt" ] &&
	ok "--metrics-file: written at the end, every frame counted, promtool check metrics passes" ||
	not_ok "--metrics-file: promtool check metrics passes" "$(head -5 "$T/promtool.log")"
capture busy -i live0b --metrics 127.0.0.1:9316
busy=$pid
inb "$R" -i live0b --metrics 127.0.0.1:9316 >/dev/null 2>"$T/busy.err"
rc=$?
pid=$busy
kill -INT $pid
[ "$rc" = 2 ] && grep -q 'metrics 127.0.0.1:9316: Address already in use' "$T/busy.err" && ok "--metrics on a port in use: exit 2 and why" ||
	not_ok "--metrics on a port in use: exit 2 and why" "exit $rc" "$(cat "$T/busy.err")"
finish 10

# 9. A SPAN port: live2b's traffic mirrored onto live3a by tc mirred, captured on live3b.
f=$CAPS/rxe/rc_pingpong.pcap
cnt=$(frames "$f")
if ina tc qdisc add dev live2b ingress 2>"$T/tc.err" &&
	ina tc filter add dev live2b parent ffff: protocol all u32 match u32 0 0 action mirred egress mirror dev live3a 2>>"$T/tc.err"; then
	capture span -i live3b -c "$cnt" -t -vv -e && replay live2a "$f"
	finish 30
	"$R" -r "$f" -t -vv -e >"$T/off.out"
	[ "$rc" = 0 ] && cmp -s <(mask "$T/off.out") <(mask "$T/span.out") && ok "SPAN mirror by tc mirred: the same output as rocedump -r" ||
		not_ok "SPAN mirror by tc mirred: the same output as rocedump -r" "exit $rc" "$(diff <(mask "$T/off.out") <(mask "$T/span.out") | head -4)"
	# ERSPAN: the same traffic mirrored into an erspan tunnel to B, where live0b sees it.
	if ina ip link add liveer0 type erspan seq key 100 local 192.0.2.1 remote 192.0.2.2 erspan_ver 1 erspan 7 2>"$T/erspan.err"; then
		ina ip addr add 192.0.2.1/24 dev live0a && inb ip addr add 192.0.2.2/24 dev live0b &&
			ina ip neigh replace 192.0.2.2 lladdr "$(inb cat /sys/class/net/live0b/address)" dev live0a &&
			ina ip link set liveer0 up &&
			ina tc filter add dev live2b parent ffff: protocol all u32 match u32 0 0 action mirred egress mirror dev liveer0
		capture erspan -i live0b -c "$cnt" -t 'proto gre' && replay live2a "$f"
		finish 30
		"$R" -r "$f" -t >"$T/off.out"
		good=$(paste -d '\n' "$T/off.out" "$T/erspan.out" | awk 'NR % 2 == 1 {o = $0; next} index($0, "erspan") && substr($0, length($0) - length(o) + 1) == o {n++} END {print n + 0}')
		[ "$rc" = 0 ] && [ "$good" = "$cnt" ] && ok "ERSPAN mirror (erspan device + tc mirred): every frame decoded inside ERSPAN as rocedump -r decodes it" ||
			not_ok "ERSPAN mirror (erspan device + tc mirred)" "exit $rc, $good of $cnt frames" "$(head -2 "$T/erspan.out")"
	else
		skip "ERSPAN mirror (erspan device + tc mirred)" "this kernel has no erspan devices: $(head -1 "$T/erspan.err"); the ERSPAN II/III captures replayed above cover the decoding"
	fi
else
	skip "SPAN mirror by tc mirred" "tc mirred unavailable: $(head -1 "$T/tc.err")"
	skip "ERSPAN mirror (erspan device + tc mirred)" "tc mirred unavailable"
fi

# 10. -i any, -D, -J, and the usage errors of live capture.
f=$CAPS/gen/rc_opcodes.pcap
capture any -i any -c 3 -t -e && replay live0a "$f"
finish 20
# SLL2 (as tcpdump 4.99 asks for), whose interface index tells copies on two interfaces apart
ifx=$(inb cat /sys/class/net/live0b/ifindex)
[ "$rc" = 0 ] && [ "$(grep -c "sll2 ifindex $ifx " "$T/any.out")" = 3 ] && grep -q 'link-type LINUX_SLL2,' "$T/any.err" &&
	ok "-i any (SLL2 cooked headers with the interface index)" || not_ok "-i any" "exit $rc" "$(cat "$T/any.err" "$T/any.out")"
inb "$R" -D >"$T/D.out" 2>&1 && grep -Eq '^[0-9]+\.live0b( |$)' "$T/D.out" && ok "-D lists live0b" || not_ok "-D lists live0b" "$(cat "$T/D.out")"
inb "$R" -J -i live0b >"$T/J.out" 2>&1 && grep -q 'host' "$T/J.out" && ok "-J lists the time stamp types" || not_ok "-J" "$(cat "$T/J.out")"
expect() {  # NAME STATUS STDERR-REGEX ARGS...
	local name=$1 want=$2 pat=$3; shift 3
	inb "$R" "$@" >/dev/null 2>"$T/e.err" </dev/null
	local got=$?
	[ "$got" = "$want" ] && grep -Eq -- "$pat" "$T/e.err" && ok "$name" || not_ok "$name" "exit $got" "$(head -c 300 "$T/e.err")"
}
expect "-i nosuch: no such interface" 2 'nosuch: no such interface' -i nosuch
expect "-r and -i together" 2 'not both' -i live0b -r "$f"
expect "-C without -w" 2 'give -w FILE' -i live0b -C 1
expect "-W without -C or -G" 2 '-W counts the files' -i live0b -w "$T/x" -W 2
expect "-Z without -i" 2 'it goes with -i' -r "$f" -Z nobody
expect "-Z unknown user" 2 'no such user' -i live0b -Z no-such-user-here
expect "-Q sideways" 2 'unknown direction' -i live0b -Q sideways
expect "-j unknown type" 2 'unknown time stamp type' -i live0b -j sundial
expect "-j adapter_unsynced on a veth: not available, -J says which are" 2 'time stamp type adapter_unsynced is not available' \
	-i live0b -j adapter_unsynced
expect "-B 0" 2 'invalid buffer size' -i live0b -B 0
expect "-s 300000" 2 'invalid snapshot length' -i live0b -s 300000
expect "--metrics without a port" 2 'give ADDR:PORT' -i live0b --metrics 127.0.0.1

# 11. -w live with -U: every frame in the file while rocedump waits for more, each frame's events as
# its packet comment as rocedump -r -w writes them; SIGHUP ends the capture cleanly.
f=$CAPS/rxe/read_bw_lossy.pcap
cnt=$(frames "$f")
capture wlive -i live0b -w "$T/live.pcapng" -U && replay live0a "$f"
sleep 0.5
inflight=$(tcpdump -r "$T/live.pcapng" 2>/dev/null | wc -l)
kill -HUP $pid
finish 10
"$R" -r "$f" -w "$T/off.pcapng"
comments() { tshark -r "$1" -T fields -e frame.comment 2>/dev/null | mask; }
ncomm=$(comments "$T/off.pcapng" | grep -c .)
[ "$inflight" = "$cnt" ] && ok "-w -U: all $cnt frames in the file while the capture goes on" ||
	not_ok "-w -U: all $cnt frames in the file while the capture goes on" "$inflight frames"
[ "$rc" = 0 ] && grep -q "^$cnt packets captured" "$T/wlive.err" && [ "$ncomm" -gt 0 ] &&
	cmp -s <(comments "$T/off.pcapng") <(comments "$T/live.pcapng") &&
	ok "-w live: the events of $ncomm frames as packet comments, as rocedump -r -w writes them; SIGHUP: exit 0 and the counts" ||
	not_ok "-w live: packet comments as offline; SIGHUP: exit 0 and the counts" "exit $rc, $ncomm comments offline" \
		"$(diff <(comments "$T/off.pcapng") <(comments "$T/live.pcapng") | head -4)" "$(cat "$T/wlive.err")"

# 12. -Q: the replayed frames arrive on live0b (in), none leaves it (out). -p: no promiscuous mode.
f=$CAPS/rxe/rc_pingpong.pcap
cnt=$(frames "$f")
for dir in in out; do
	capture q$dir -i live0b -Q $dir -t && replay live0a "$f"
	sleep 0.3
	kill -INT $pid
	finish 10
	want=$cnt
	[ $dir = out ] && want=0
	[ "$rc" = 0 ] && grep -q "^$want packets captured" "$T/q$dir.err" && [ "$(wc -l <"$T/q$dir.out")" = "$want" ] &&
		ok "-Q $dir: $want of the $cnt frames received" || not_ok "-Q $dir: $want frames" "exit $rc" "$(cat "$T/q$dir.err")"
done
promisc() { inb ip -d link show live0b | grep -o 'promiscuity [0-9]*'; }
capture promisc -i live0b
with=$(promisc)
kill -INT $pid
finish 10
capture nopromisc -i live0b -p
without=$(promisc)
kill -INT $pid
finish 10
[ "$with" = "promiscuity 1" ] && [ "$without" = "promiscuity 0" ] && ok "promiscuous mode by default, not with -p" ||
	not_ok "promiscuous mode by default, not with -p" "without -p: $with; with -p: $without"

# -s 96: every frame cut to 96 bytes as editcap -s 96 cuts the file (ICRCs then unverifiable).
capture snap -i live0b -s 96 -c "$cnt" -t -vv && replay live0a "$f"
finish 30
editcap -s 96 "$f" "$T/cut.pcap" >/dev/null 2>&1
"$R" -r "$T/cut.pcap" -t -vv >"$T/off.out"
unv=$(grep -c 'unverifiable' "$T/snap.out")
[ "$rc" = 0 ] && [ "$unv" -gt 0 ] && cmp -s <(mask "$T/off.out") <(mask "$T/snap.out") &&
	ok "-s 96: the output of rocedump -r on the file cut by editcap -s 96 ($unv ICRCs unverifiable)" ||
	not_ok "-s 96: the output of rocedump -r on the cut file" "exit $rc, $unv unverifiable" \
		"$(diff <(mask "$T/off.out") <(mask "$T/snap.out") | head -4)"

# 13. Congestion live: PFC and PAUSE frames (MAC control, 01-80-c2-00-00-01) counted per source and
# priority as offline (frames, XOFF, XON; the pause times depend on the replay's timing, not checked).
f=$CAPS/gen/pfc_pause.pcap
cnt=$(frames "$f")
pfc_rows() { awk 'length($1) == 17 && $1 ~ /^[0-9a-f:]+$/ && $2 ~ /^(p[0-7]|PAUSE)$/ {print $1, $2, $3, $4, $5}' "$1"; }
capture pfc -i live0b -q -c "$cnt" && replay live0a "$f"
finish 20
"$R" -r "$f" -q >"$T/off.q"
rows=$(pfc_rows "$T/off.q" | wc -l)
[ "$rc" = 0 ] && [ "$rows" -gt 0 ] && cmp -s <(pfc_rows "$T/off.q") <(pfc_rows "$T/pfc.out") &&
	grep -q "$(grep 'pfc.malformed' "$T/off.q")" "$T/pfc.out" &&
	ok "PFC/PAUSE live: the same $rows source/priority rows (frames, XOFF, XON) and pfc.malformed count as rocedump -r" ||
	not_ok "PFC/PAUSE live: the same rows as rocedump -r" "exit $rc" "$(diff <(pfc_rows "$T/off.q") <(pfc_rows "$T/pfc.out") | head -4)"

echo "1..$n"
[ "$failed" = 0 ]
