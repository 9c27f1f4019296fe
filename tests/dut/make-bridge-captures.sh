#!/bin/bash
# rocedump DUT harness: remake the path captures in captures/paths/ (bridges_*.pcapng and
# erspan_two_sessions*.pcapng, each with its NAME.truth.json written by bridge-truth.py).
# usage (as root):  tests/dut/make-bridge-captures.sh [WORKDIR]
# Each capture is one boot of the two guests with run-pair.sh TOPO=two-bridges (srv tap -> brA ->
# veth pair -> brB -> cli tap; dumpcap on both bridges into one pcapng) and one scenario, with loss
# dropped by nftables ingress hooks (NFT_LOSS) or delay from a tbf qdisc (TBF) at a known hop: the
# nft counters after the run are the truth of the loss. A run whose tool failed on either guest, whose
# capture dropped frames or is over BUDGET bytes is made again once; a second failure is reported
# and makes the exit status 1. The captures are committed whole (not trimmed: the counters are
# those of the whole run). About 1.5 min per capture.
# erspan_two_sessions*: one bridge, both guests mirror their eth0 into an ERSPAN session each (srv
# ERSPAN II session 201, cli ERSPAN III session 202, scenario mirrors_*) and the host collects both on
# its bridge (run-pair.sh MIRROR_CAPTURE=1): two mirror sessions, one file, loss between them.
# Env: DEST (default captures/paths), RXE_NS (see run-pair.sh), ONLY="NAME ..." (just these captures),
# BUDGET (bytes, default 2000000). ROCEDUMP=PATH: the two-bridges runs also capture live with
# rocedump -i brA -i brB -q -T json beside dumpcap (bridge-live.sh), whose hops' lost must equal the
# nft counters of the truth file (a mismatch is reported and makes the exit status 1); a run's
# live check adds no time to it.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
DEST=${DEST:-$TOP/captures/paths}
WORK=${1:-$HERE/cache/make-bridge-captures}
BUDGET=${BUDGET:-2000000}
PY=/usr/bin/python3
[ "$(id -u)" = 0 ] || { echo "make-bridge-captures: needs root" >&2; exit 125; }
for t in qemu-system-x86_64 tshark dumpcap nft tc; do
  command -v $t >/dev/null || { echo "make-bridge-captures: missing $t" >&2; exit 125; }; done
[ -s "$HERE/cache/vmlinuz" ] && [ -s "$HERE/cache/initrd.cpio.gz" ] || { echo "make-bridge-captures: no guest image: run build-guest.sh" >&2; exit 125; }
mkdir -p "$WORK" "$DEST"; WORK=$(cd "$WORK" && pwd)

# NAME|SCENARIO|NFT_LOSS|TBF[|TOPO]   (NFT_LOSS: DEV:N = drop one RoCEv2 frame in N on DEV's ingress;
# TOPO: two-bridges (default) or mirrors)
CAPTURES=(
  "bridges_rc_pingpong_loss|br_rc_pingpong|vethB:33 vethA:33|"   # between the bridges, both ways
  "bridges_rc_pingpong_srcloss|br_rc_pingpong|rxetap0:33|"        # before brA: srv's frames only
  "bridges_rc_pingpong_tbf|br_rc_pingpong||vethA:rate 150kbit burst 1600 latency 2s"  # brA->brB delayed
  "bridges_write_bw_loss|br_write_bw|vethB:25 vethA:25|"
  "erspan_two_sessions_rc_pingpong_loss|mirrors_rc_pingpong|rxetap0:25||mirrors"  # srv's frames, between the sessions
)
# the tool's command line on the client guest (the server runs it without the address)
command_of() {
  case $1 in
    br_rc_pingpong) echo "ibv_rc_pingpong -d rxe0 -g 1 -p 18516 -n 400 -s 256 10.77.0.1" ;;
    br_write_bw) echo "ib_write_bw -F -d rxe0 -x 1 -p 18516 -n 500 -s 256 10.77.0.1" ;;
    mirrors_rc_pingpong) echo "ibv_rc_pingpong -d rxe0 -g 1 -p 18516 -n 400 -s 64 10.77.0.1" ;;
  esac
}
# per topology: run-pair.sh's environment, its capture file, how dumpcap was run
topo_env() { case $1 in mirrors) echo "MIRROR_CAPTURE=1";; *) echo "TOPO=two-bridges";; esac; }
# the live capture beside dumpcap's, when ROCEDUMP is set (two-bridges only)
live_env() { [ -n "${ROCEDUMP:-}" ] && [ $1 = two-bridges ] && echo "HOST_CAPTURE=$HERE/bridge-live.sh ROCEDUMP=$ROCEDUMP"; }
# live_check RUNDIR TRUTH: the live run's hops (from>to lost) against the truth's nft drops; prints both
live_check() {
  $PY - "$1/live-bridges.json" "$2" <<'PY'
import json, sys
live = json.loads(open(sys.argv[1]).readline())["summary"]["path"]
names = {p["point"]: p["name"] for p in live["points"]}
got = {(names[h["from"]], names[h["to"]]): h["lost"] for h in live["hops"]}
want = {(h["from"], h["to"]): h["dropped"] for h in json.load(open(sys.argv[2]))["hops"] if h["from"]}
print("   live rocedump -i brA -i brB: lost %s; nft dropped %s" % (sorted(got.items()), sorted(want.items())))
sys.exit(0 if all(got.get(k, 0) == v for k, v in want.items()) else 1)
PY
}
topo_pcap() { case $1 in mirrors) echo host-mirrors.pcapng;; *) echo host-bridges.pcapng;; esac; }
topo_dumpcap() { case $1 in
  mirrors) echo "dumpcap -i rxebr0 -f 'ip proto 47' -w host-mirrors.pcapng" ;;
  *) echo "dumpcap -i brA -f 'udp port 4791' -i brB -f 'udp port 4791' -w host-bridges.pcapng" ;; esac; }
# ok RUNDIR SCENARIO PCAP -> 0 if both guests' tool exited 0, the capture has RoCE frames, no capture drops
ok() {
  local d=$1 s=$2 f=$1/$3
  grep -qx "srv $s rc=0" "$d/srv/status.txt" 2>/dev/null && grep -qx "cli $s rc=0" "$d/cli/status.txt" 2>/dev/null || return 1
  [ -s "$f" ] && [ "$(stat -c %s "$f")" -le "$BUDGET" ] || return 1
  [ "$(tshark -r "$f" -Y infiniband 2>/dev/null | wc -l)" -gt 0 ] || return 1
  ! grep "Packets received/dropped" "$d/host-dumpcap.log" | grep -qv "/0 (pcap:0/"
}
T0=$(date +%s); FAILED=()
for c in "${CAPTURES[@]}"; do
  IFS='|' read -r name scen loss tbf topo <<< "$c"
  [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]] && continue
  topo=${topo:-two-bridges}; pcap=$(topo_pcap $topo); done_ok=0
  for try in 1 2; do
    d=$WORK/$name.$try; rm -rf "$d"
    echo "== $name (try $try): $scen $(topo_env $topo) NFT_LOSS='$loss' TBF='$tbf'"
    env $(topo_env $topo) $(live_env $topo) NFT_LOSS="$loss" TBF="$tbf" "$HERE/run-pair.sh" "$d" $scen > "$d.log" 2>&1 ||
      echo "   run-pair.sh exit $? (see $d.log)"
    if ok "$d" $scen $pcap; then done_ok=1; break; fi
    echo "   FAILED (see $d.log)"
  done
  [ $done_ok = 1 ] || { FAILED+=("$name"); continue; }
  cp "$d/$pcap" "$DEST/$name.pcapng"
  $PY "$HERE/bridge-truth.py" $([ $topo = mirrors ] && echo --mirrors) "$d" "$DEST/$name.pcapng" "$scen" \
    "RXE_NS=... $(topo_env $topo) NFT_LOSS='$loss' TBF='$tbf' tests/dut/run-pair.sh OUT $scen" \
    "$(topo_dumpcap $topo)" "$(command_of $scen)" > "$DEST/$name.truth.json"
  echo "   $DEST/$name.pcapng: $(stat -c %s "$DEST/$name.pcapng") bytes; drops per hop:" \
    "$($PY -c 'import json,sys; print(", ".join("%s %s" % (h["hook"], h["dropped"]) for h in json.load(open(sys.argv[1]))["hops"]) or "none")' "$DEST/$name.truth.json")"
  if [ -n "$(live_env $topo)" ] && ! live_check "$d" "$DEST/$name.truth.json"; then
    echo "   LIVE MISMATCH (see $d/live-bridges.json, live-bridges.err)"; FAILED+=("$name(live)")
  fi
done
echo "== done after $(( $(date +%s)-T0 ))s"
[ ${#FAILED[@]} = 0 ] || { echo "FAILED twice: ${FAILED[*]}"; exit 1; }
