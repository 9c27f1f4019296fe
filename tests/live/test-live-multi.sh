#!/bin/bash
# test-live-multi.sh: rocedump -i A -i B, live capture on two interfaces at once, each a capture
# point (TAP). First the usage errors (no root needed): the same interface twice, "any" with
# another, more -i than rocedump takes. Then, as root, in a network namespace of its own
# (rocedump-lm-PID-a, removed on every way out): a bridge lmbr, ageing 0 so that it floods every
# frame, with ports lmin (the veth lmsrc sends into) and lmout (whose peer lmsink receives them),
# and a bridge-family nftables rule that drops one forwarded RoCE frame in ten with a counter, and
# counts those it forwards: the truth of the loss between the two points. tcpreplay sends
# send_bw.pcap into lmsrc while five captures on lmin and lmsink watch (two receiving ends: the
# sending end lmout once showed a RoCE frame more than the bridge had forwarded); each runs until
# it has counted every frame the interfaces carried but those the kernel dropped (SIGUSR1's
# counts), then SIGINT. Checked:
#   - -q -T json: the path section's points (lmin, lmsink, their frames) and hop lost = the nft
#     counter; the capture section's per-interface counts; tcpdump's count lines per interface;
#     --metrics-file's per-interface series (this run without --immediate-mode: the frames
#     of a ring block come 100 ms late, and wait for each other);
#   - -w of that run: a pcapng with an interface description block per interface, named, each
#     interface's frames, and a statistics block per interface;
#   - -T json: every frame's link.interface names its point, in time order;
#   - -e: every line says its interface; -J lists each interface's time stamp types;
#   - --export (to a stand-in server, fake-clickhouse.py): the captures row's source names both
#     interfaces, each frame's point is its interface;
#   - a ring overrun: a capture stopped (SIGSTOP) through the replay, its rings 64 slots each
#     (--immediate-mode -B 4096): per interface, frames read + the kernel's drops = received.
#   test-live-multi.sh ROCEDUMP CAPTURES_DIR
set -u
R=$1 CAPS=$2
HERE=$(dirname "$0")
# shellcheck source=../tap.sh
. "$HERE/../tap.sh"

# usage ARGS...: rocedump exits 2 with its message (the first line of standard error in $msg).
usage() { msg=$("$R" "$@" 2>&1 >/dev/null | head -1); "$R" "$@" >/dev/null 2>&1; [ $? = 2 ]; }
usage -i lo -i lo -q && [[ $msg == *"same interface"* ]] &&
	ok "-i lo -i lo: usage error (exit 2): $msg" || not_ok "-i lo -i lo: usage error" "$msg"
usage -i any -i lo -q && [[ $msg == *'"any" captures on every interface already'* ]] &&
	ok "-i any -i lo: usage error (exit 2): $msg" || not_ok "-i any -i lo: usage error" "$msg"
usage -i lo -i any -q && [[ $msg == *'"any"'* ]] && ok "-i lo -i any: usage error (exit 2)" ||
	not_ok "-i lo -i any: usage error" "$msg"
args=()
for i in $(seq 17); do args+=(-i "if$i"); done
usage "${args[@]}" -q && [[ $msg == *"at most 16 interfaces"* ]] && ok "17 times -i: usage error (exit 2)" ||
	not_ok "17 times -i: usage error" "$msg"

if [ "$(id -u)" != 0 ]; then echo "1..$n # the live part needs root (network namespaces): skipped"; [ "$failed" = 0 ]; exit; fi
for tool in tcpreplay ip nft python3; do
	command -v $tool >/dev/null || { echo "1..$n # $tool is not installed (tests/install-deps.sh): live part skipped"; exit 0; }
done

# shellcheck source=netns.sh
. "$HERE/netns.sh"
netns_pair lm
setup() {
	netns_up || return 1
	ina ip link add lmsrc type veth peer name lmin || return 1
	ina ip link add lmout type veth peer name lmsink || return 1
	ina ip link add lmbr type bridge ageing_time 0 stp_state 0 || return 1
	ina ip link set lmin master lmbr && ina ip link set lmout master lmbr || return 1
	for i in lmsrc lmin lmout lmsink lmbr; do ina ip link set $i mtu 9000 up || return 1; done
	ina nft -f - <<'NFT'
table bridge lmloss {
	chain hop {
		type filter hook forward priority 0; policy accept;
		udp dport 4791 numgen inc mod 10 == 3 counter drop
		udp dport 4791 counter
	}
}
NFT
}
if ! setup; then echo "1..$n # cannot create network namespaces, bridges or nftables rules here: live part skipped"; exit 0; fi

# capture NAME ARGS...: rocedump -i lmin -i lmsink in A (stdout $T/NAME.out, stderr $T/NAME.err),
# once listening on both; PID in pids[NAME]. The filter leaves out the bridge's own frames (IGMP).
declare -A pids
capture() {
	local name=$1; shift
	ip netns exec "$NA" "$R" -i lmin -i lmsink "$@" 'udp port 4791' >"$T/$name.out" 2>"$T/$name.err" &
	pids[$name]=$!
	for _ in $(seq 200); do
		[ "$(grep -c 'listening on' "$T/$name.err" 2>/dev/null)" = 2 ] && return 0
		kill -0 "${pids[$name]}" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# counted NAME: the frames the capture has counted (SIGUSR1's count line); kernel_drops NAME: the
# frames the kernel dropped for want of ring room (its count line).
counted() { sed -n 's/^\([0-9]*\) packets captured$/\1/p' "$T/$1.err" | tail -1; }
kernel_drops() { sed -n 's/^\([0-9]*\) packets dropped by kernel$/\1/p' "$T/$1.err" | tail -1; }
frames() { "$R" -r "$CAPS/rxe/send_bw.pcap" -q | sed -n 's/^\([0-9]*\) frames.*/\1/p'; }

# the stand-in ClickHouse server of --export, keeping what it is sent ($T/ck.bodies)
ina python3 "$HERE/fake-clickhouse.py" ok "$T/ck.port" "$T/ck.bodies" &
for _ in $(seq 100); do [ -s "$T/ck.port" ] && break; sleep 0.05; done
read -r ckport ckpid <"$T/ck.port" && spids+=("$ckpid") || { echo "Bail out! the stand-in server did not start"; exit 1; }
# Every ring but p's (-B) has room for every frame of the replay, however late the capture reads
# it: 4 MiB of TPACKET_V3 blocks; with --immediate-mode libpcap's TPACKET_V2 ring of 64 KiB slots
# (the veths' segmentation offload), where -B 4096 is only 64 frames, fewer than lmin's 114 (under
# ThreadSanitizer and load the kernel dropped up to 60 of the 216), and -B 16384 is 255.
capture x -B 4096 -q --export "http://127.0.0.1:$ckport/db" --export-all-frames || { echo "Bail out! $(cat "$T/x.err")"; exit 1; }
capture q -B 4096 -q -T json -w "$T/two.pcapng" --metrics-file "$T/m.prom" &&
	capture j -B 16384 -T json --immediate-mode && capture e -B 16384 -e --immediate-mode &&
	capture p -B 4096 -q -T json --immediate-mode ||
	{ echo "Bail out! the captures did not start: $(cat "$T"/*.err)"; exit 1; }
# p, stopped while the replay runs, finds its rings of 64 slots overrun: the kernel drops frames
kill -STOP "${pids[p]}"
ina tcpreplay -q -i lmsrc "$CAPS/rxe/send_bw.pcap" >"$T/replay.log" 2>&1
kill -CONT "${pids[p]}"
# the nft counters: the RoCE frames dropped between the ports, and those forwarded (the bridge's
# own frames, IGMP, pass neither)
read -r dropped n_out <<<"$(ina nft -j list table bridge lmloss | python3 -c '
import json, sys
print(*[e["counter"]["packets"] for o in json.load(sys.stdin)["nftables"] if "rule" in o
        for e in o["rule"]["expr"] if "counter" in e])')"
n_in=$((dropped + n_out))
echo "# lmin received $n_in RoCE frames, lmsink $n_out, nft dropped $dropped between them"
[ "$n_in" = "$(frames)" ] ||
	{ echo "Bail out! the bridge did not forward as set up: $n_in in (of $(frames) sent), $n_out out, $dropped dropped"; exit 1; }
total=$((n_in + n_out))
for name in q j e x p; do
	pid=${pids[$name]} t0=$(date +%s.%N)
	for _ in $(seq 100); do
		kill -USR1 "$pid"
		sleep 0.05
		[ "$(($(counted $name) + $(kernel_drops $name)))" = "$total" ] 2>/dev/null && break
	done
	echo "# $name: $(counted $name) of $total frames counted $(echo "$(date +%s.%N) - $t0" | bc) s after the replay, $(kernel_drops $name) dropped by the kernel"
	kill -INT "$pid"
	wait "$pid"
	echo $? >"$T/$name.rc"
done

# 1. -q -T json: the path section against the truth; the capture section per interface.
python3 - "$T/q.out" "$n_in" "$n_out" "$dropped" <<'PY' && [ "$(cat "$T/q.rc")" = 0 ] &&
import json, sys
n_in, n_out, dropped = map(int, sys.argv[2:])
s = json.loads(open(sys.argv[1]).readline())["summary"]
p = s["path"]
pts = {x["point"]: (x["name"], x["packets"]) for x in p["points"]}
assert sorted(pts.values()) == [("lmin", n_in), ("lmsink", n_out)], pts
src = next(k for k, v in pts.items() if v[0] == "lmin")
hops = p["hops"]
assert len(hops) == 1 and hops[0]["from"] == src, hops
assert (hops[0]["seen_from"], hops[0]["seen_to"], hops[0]["lost"]) == (n_in, n_out, dropped), hops
assert sum(h["lost"] for x in p["streams"] for h in x["hops"]) == dropped, p["streams"]
c = s["capture"]
assert c["format"] == "live" and c["received"] == n_in + n_out and c["os_drops"] == 0, c
assert [(x["name"], x["received"], x["os_drops"], x["if_drops"]) for x in c["interfaces"]] == \
	[("lmin", n_in, 0, 0), ("lmsink", n_out, 0, 0)], c
PY
	ok "-q -T json: points lmin ($n_in frames) and lmsink ($n_out), hop lost $dropped = the nft counter; the capture's counts per interface" ||
	not_ok "-q -T json: the path section and the capture's counts per interface" "exit $(cat "$T/q.rc")" \
		"$(head -c 3000 "$T/q.out")" "$(tail -7 "$T/q.err")"
grep -q "^$n_in packets received by filter on lmin$" "$T/q.err" && grep -q "^0 packets dropped by kernel on lmsink$" "$T/q.err" &&
	grep -q "^$total packets received by filter$" "$T/q.err" &&
	ok "tcpdump's count lines: the totals, then each interface's" ||
	not_ok "tcpdump's count lines: the totals, then each interface's" "$(tail -7 "$T/q.err")"
grep -qx "rocedump_capture_received_total{interface=\"lmin\"} $n_in" "$T/m.prom" &&
	grep -qx "rocedump_capture_dropped_total{by=\"kernel\",interface=\"lmsink\"} 0" "$T/m.prom" &&
	ok "--metrics-file: the capture's counts per interface" ||
	not_ok "--metrics-file: the capture's counts per interface" "$(grep rocedump_capture "$T/m.prom")"

# 2. -w: one interface description block per interface, each one's frames and statistics block.
python3 - "$T/two.pcapng" "$n_in" "$n_out" <<'PY' &&
import struct, sys
n_in, n_out = int(sys.argv[2]), int(sys.argv[3])
data = open(sys.argv[1], "rb").read()
names, frames, recv, at = [], {}, {}, 0
def options(b):
	o, i = {}, 0
	while i + 4 <= len(b):
		code, ln = struct.unpack_from("<HH", b, i)
		if code == 0:
			break
		o.setdefault(code, b[i + 4:i + 4 + ln])
		i += 4 + ln + (-ln % 4)
	return o
while at < len(data):
	t, ln = struct.unpack_from("<II", data, at)
	body = data[at + 8:at + ln - 4]
	if t == 1:
		names.append(options(body[8:])[2].decode())
	elif t == 6:
		i = struct.unpack_from("<I", body)[0]
		assert i < len(names), "a frame before its interface's description"
		frames[names[i]] = frames.get(names[i], 0) + 1
	elif t == 5:
		i = struct.unpack_from("<I", body)[0]
		recv[names[i]] = struct.unpack("<Q", options(body[12:])[4])[0]
	at += ln
assert names == ["lmin", "lmsink"], names
assert frames == {"lmin": n_in, "lmsink": n_out}, frames
assert recv == {"lmin": n_in, "lmsink": n_out}, recv
PY
	ok "-w: interfaces lmin and lmsink described, $n_in and $n_out frames, a statistics block for each" ||
	not_ok "-w: the interfaces, their frames and statistics blocks"

# 3. -T json: each frame's point, in time order.
python3 - "$T/j.out" "$n_in" "$n_out" <<'PY' && [ "$(cat "$T/j.rc")" = 0 ] &&
import json, sys
n_in, n_out = int(sys.argv[2]), int(sys.argv[3])
frames = [json.loads(l) for l in open(sys.argv[1])]
names = [f["link"]["interface"]["name"] for f in frames]
assert (names.count("lmin"), names.count("lmsink")) == (n_in, n_out), names
ts = [f["ts"] for f in frames]
late = [i for i in range(1, len(ts)) if ts[i] < ts[i - 1]]
assert not late, "frames out of time order at %s" % late[:5]
PY
	ok "-T json: every frame's link.interface is lmin or lmsink, as many as each carried, in time order" ||
	not_ok "-T json: every frame's point, in time order" "exit $(cat "$T/j.rc")" "$(head -c 2000 "$T/j.out")"

# 4. -e: every line says its interface.
[ "$(grep -c ' if 0 (lmin) ' "$T/e.out")" = "$n_in" ] && [ "$(grep -c ' if 1 (lmsink) ' "$T/e.out")" = "$n_out" ] &&
	ok "-e: $n_in lines 'if 0 (lmin)', $n_out 'if 1 (lmsink)'" ||
	not_ok "-e: every line says its interface" "$(head -3 "$T/e.out")"

# 5. --export: the captures row's source names both interfaces, the frames' point their own
# (RowBinary rows: a String is its length, one byte here, then its bytes).
grep -qa $'\x0blmin,lmsink' "$T/ck.bodies" && grep -qa $'\x04lmin' "$T/ck.bodies" &&
	grep -qa $'\x06lmsink' "$T/ck.bodies" && [ "$(cat "$T/x.rc")" = 0 ] &&
	ok "--export: the captures row's source \"lmin,lmsink\", each frame's point its interface" ||
	not_ok "--export: the captures row's source names both interfaces, each frame's point its own" \
		"exit $(cat "$T/x.rc")" "$(grep -a -m3 'lmin' "$T/ck.bodies" | cut -c1-300)" "$(tail -3 "$T/x.err")"

# 6. A ring overrun (p, stopped through the replay, its rings 64 slots each): each interface's
# frames read and the kernel's drops on it add up to what it received, exactly.
python3 - "$T/p.out" "$n_in" "$n_out" <<'PY' && [ "$(cat "$T/p.rc")" = 0 ] &&
import json, sys
n_in, n_out = map(int, sys.argv[2:])
s = json.loads(open(sys.argv[1]).readline())["summary"]
read = {x["name"]: x["packets"] for x in s["path"]["points"]}
c = s["capture"]
ifs = {x["name"]: x for x in c["interfaces"]}
for name, got in (("lmin", n_in), ("lmsink", n_out)):
	x = ifs[name]
	assert x["received"] == got and x["os_drops"] > 0 and read[name] + x["os_drops"] == got, (name, got, read, x)
assert c["os_drops"] == sum(x["os_drops"] for x in ifs.values()), c
print("# frames read: lmin %d, lmsink %d; dropped by the kernel: lmin %d, lmsink %d"
      % (read["lmin"], read["lmsink"], ifs["lmin"]["os_drops"], ifs["lmsink"]["os_drops"]))
PY
	ok "a ring overrun (--immediate-mode -B 4096, stopped through the replay): frames read + kernel drops = received, per interface" ||
	not_ok "a ring overrun: frames read + kernel drops = received, per interface" "exit $(cat "$T/p.rc")" \
		"$(head -c 3000 "$T/p.out")" "$(tail -7 "$T/p.err")"

# 7. -J: each interface's time stamp types.
out=$(ina "$R" -J -i lmin -i lmsink 2>&1)
grep -q '^Time stamp types\? for lmin' <<<"$out" && grep -q '^Time stamp types\? for lmsink' <<<"$out" &&
	ok "-J -i lmin -i lmsink: each one's time stamp types" || not_ok "-J: each one's time stamp types" "$out"

echo "1..$n"
[ "$failed" = 0 ]
