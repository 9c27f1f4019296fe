#!/bin/bash
# rocedump DUT harness, meson test "dut-live" (TAP): rocedump -i on real Soft-RoCE traffic, compared with
# rocedump -r on an offline capture of the same run. usage: test-live-dut.sh ROCEDUMP [OUTDIR]
# run-pair.sh boots the two rdma_rxe guests (building their image first when cache/ has none: ~2 min)
# in a namespace of this run's own (rocedump-livedut-PID) and runs ibv_rc_pingpong, ib_write_bw,
# ib_read_bw with 4 % loss (retransmissions, NAKs, time-outs) and ibv_rc_pingpong with every packet CE
# marked (ECN counters, cnp.missing: rxe sends no CNPs) between them, then ibv_rc_pingpong mirrored by the
# server's kernel into ERSPAN III sessions (erspan devices + tc mirred, which the host's kernel may lack);
# live-capture.sh captures the client's tap on the host with two rocedump -i and a tcpdump -w at once,
# and the server's tap, where the ERSPAN traffic leaves, with one of each (see there). Then:
#   - the frames: tcpdump's file and rocedump's -w file hold the same frames with the same time stamps;
#   - the per-frame JSON with its findings and the stream summary (-T json -vv --summary), the -q JSON
#     summary, the --metrics-file text and the last /metrics scrape of the live runs equal rocedump -r's
#     on tcpdump's file (and on rocedump's own), times included: every packet socket gets the kernel's
#     one time stamp of a frame, so only the "capture" members and the capture's own metrics differ;
#   - those say "live", every frame received, no drops; the count lines on standard error agree;
#   - the live ERSPAN capture: every frame decoded inside ERSPAN III, the same JSON as rocedump -r;
#   - the comparison can fail: tcpdump's file with one RoCE frame deleted must differ in all of them.
# Needs root, /dev/net/tun, qemu, tcpdump, curl, promtool (CI has them all); ~3-8 min under TCG.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
R=$(readlink -f "$1")
OUT=${2:-} KEEP=1
[ -n "$OUT" ] || { OUT=$(mktemp -d /tmp/rocedump-live-dut.XXXXXX); KEEP=0; }  # removed if all pass
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"

if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ]; then echo "1..0 # SKIP needs root and /dev/net/tun"; exit 0; fi
for tool in qemu-system-x86_64 tcpdump curl promtool editcap; do
	command -v $tool >/dev/null || { echo "1..0 # SKIP $tool is not installed (tests/install-deps.sh)"; exit 0; }
done
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
echo "# output in $OUT"
if [ ! -s "$HERE/cache/vmlinuz" ] || [ ! -s "$HERE/cache/initrd.cpio.gz" ]; then
	echo "# no guest image in cache/: building it (build-guest.sh, ~2 min)"
	"$HERE/build-guest.sh" >"$OUT/build-guest.log" 2>&1 || { echo "Bail out! build-guest.sh failed: see $OUT/build-guest.log"; exit 1; }
fi

# 1. The run: the guests' traffic, captured live on the host side of the client's tap.
SCEN="rc_pingpong write_bw read_bw_lossy rc_pingpong_ecn_ce erspan3_rc_pingpong"
RXE_NS=rocedump-livedut-$$ HOST_CAPTURE=$HERE/live-capture.sh ROCEDUMP=$R GUEST_CPUS=0 \
	"$HERE/run-pair.sh" "$OUT" $SCEN >"$OUT/run-pair.log" 2>&1
rc=$?
[ $rc = 0 ] || { echo "Bail out! run-pair.sh failed (exit $rc): $(tail -3 "$OUT/run-pair.log" | tr '\n' ' ')"; exit 1; }
echo "# scenarios: $(grep -h '^cli ' "$OUT/cli/status.txt" 2>/dev/null | tr '\n' ' ')"
cd "$OUT" || exit 1

# the offline analyses of tcpdump's file and of rocedump's own -w file
off() {  # NAME FILE: NAME.json (frames), NAME-q.json (summary), NAME.prom (metrics)
	"$R" -r "$2" -T json -vv --summary >"$1.json" 2>"$1.err" &&
		"$R" -r "$2" -q -T json --metrics-file "$1.prom" >"$1-q.json" 2>>"$1.err"
}
off off tcpdump.pcap || not_ok "rocedump -r tcpdump.pcap" "$(cat off.err)"
off offw live.pcapng || not_ok "rocedump -r live.pcapng" "$(cat offw.err)"
frames=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["summary"]["frames"])' off-q.json 2>/dev/null)
frames=${frames:-0}
roce=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["summary"]["roce"]["v2"])' off-q.json 2>/dev/null)
findings=$(grep -c '"findings":' off.json)
events=$(python3 -c 'import json,sys; e = json.loads(open(sys.argv[1]).readline())["summary"]["events"]; print(", ".join(f"{k} {v}" for k, v in sorted(e.items())))' off-q.json 2>/dev/null)
echo "# $frames frames ($roce RoCEv2), $findings of them with findings: $events"
[ "${roce:-0}" -ge 500 ] && [ "$findings" -ge 10 ] && echo "$events" | grep -q 'psn.retransmit' && echo "$events" | grep -q 'cnp.missing' &&
	ok "the run: $roce RoCEv2 frames, $findings with findings (retransmissions, cnp.missing among them)" ||
	not_ok "the run: RoCE traffic with findings to compare" "$frames frames, $roce RoCEv2, $findings with findings" \
		"$(tail -5 host-capture.log)"

# 2. The frames.
dump() { tcpdump -r "$1" -nn --nano -tt -xx 2>/dev/null; }
if cmp -s <(dump tcpdump.pcap) <(dump live.pcapng); then
	ok "tcpdump -w and rocedump -i -w: the same $frames frames, the same time stamps to the nanosecond"
else
	not_ok "tcpdump -w and rocedump -i -w: the same frames and time stamps" "$(diff <(dump tcpdump.pcap) <(dump live.pcapng) | head -4)"
fi

# 3. Live = offline.
same() {  # NAME MODE LIVE OFFLINE
	local d
	if d=$(/usr/bin/python3 "$HERE/compare-live.py" "$2" "$3" "$4" 2>&1); then ok "$1"; else not_ok "$1" "$d"; fi
}
same "per-frame JSON and findings, stream summary (-T json -vv --summary) live = rocedump -r tcpdump's file" json live.json off.json
same "the same against rocedump -r on rocedump's own -w file" json live.json offw.json
same "-q -T json summary live = rocedump -r tcpdump's file" json live-q.json off-q.json
same "--metrics-file counters live = rocedump -r tcpdump's file" prom live.prom off.prom
same "/metrics scrape at the end = rocedump -r tcpdump's file" prom live-scrape.prom off.prom
for f in live.json live-q.json live.prom live-scrape.prom; do
	same "$f: the live capture member, $frames frames received, 0 drops" capture "$f" "$frames"
done
for f in live.prom live-scrape.prom; do
	promtool check metrics <"$f" >"$f.promtool" 2>&1 && ok "promtool check metrics: $f" ||
		not_ok "promtool check metrics: $f" "$(head -3 "$f.promtool")"
done
for e in live.err live-q.err; do
	grep -qx "$frames packets captured" $e && grep -qx "$frames packets received by filter" $e &&
		grep -qx "0 packets dropped by kernel" $e && ok "$e: tcpdump's count lines, $frames captured, 0 dropped" ||
		not_ok "$e: the count lines" "$(cat $e)"
done
grep -q '^0 packets dropped by kernel' tcpdump.err && ok "tcpdump dropped nothing either" || not_ok "tcpdump dropped nothing" "$(cat tcpdump.err)"

# 4. A live ERSPAN mirror: the server's kernel mirrors its eth0 into ERSPAN III tunnels.
"$R" -r erspan.pcap -T json -vv 'proto gre' >erspan-off.json 2>erspan-off.err
mirrored=$(grep -c '"wrapper":{"kind":"erspan3"' erspan.json)
inner=$(grep -c '"roce":' erspan.json)
echo "# ERSPAN: $(wc -l <erspan.json) GRE frames live, $mirrored decoded as ERSPAN, $inner with RoCE inside"
[ "$mirrored" -ge 100 ] && [ "$mirrored" = "$(wc -l <erspan.json)" ] && [ "$inner" -ge 100 ] &&
	grep -qx "$mirrored packets captured" erspan.err && grep -qx "0 packets dropped by kernel" erspan.err &&
	ok "live ERSPAN III mirror (the server's erspan devices): all $mirrored GRE frames decoded as ERSPAN, $inner RoCE inside, 0 drops" ||
	not_ok "live ERSPAN III mirror: every GRE frame decoded as ERSPAN" "$mirrored of $(wc -l <erspan.json), $inner RoCE" \
		"$(cat erspan.err)" "$(grep -h 'erspan3' cli/status.txt srv/status.txt)"
same "live ERSPAN: per-frame JSON = rocedump -r on tcpdump's file of the same tap" json erspan.json erspan-off.json

# 5. The comparison can fail: a copy of tcpdump's file without one RoCE frame from the middle.
gone=$(python3 - off.json <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"frame"')]
roce = [r["frame"] for r in rows if "roce" in r]
print(roce[len(roce) // 2] if roce else 1)
PY
)
editcap tcpdump.pcap broken.pcap "$gone" >/dev/null 2>&1 && off broken broken.pcap
for m in "json live.json broken.json per-frame" "json live-q.json broken-q.json summary" "prom live.prom broken.prom metrics"; do
	set -- $m
	if /usr/bin/python3 "$HERE/compare-live.py" "$1" "$2" "$3" >"broken-$4.diff" 2>&1; then
		not_ok "frame $gone deleted: the $4 comparison sees it" "it says the outputs are the same"
	elif [ $? = 1 ]; then
		ok "frame $gone deleted: the $4 comparison sees it ($(head -1 "broken-$4.diff" | cut -c1-90))"
	else
		not_ok "frame $gone deleted: the $4 comparison sees it" "$(cat "broken-$4.diff")"
	fi
done

echo "1..$n"
[ "$failed" = 0 ] || { echo "# output kept in $OUT"; exit 1; }
[ "$KEEP" = 1 ] || rm -rf "$OUT"
