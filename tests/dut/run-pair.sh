#!/bin/bash
# rocedump DUT harness: run RoCEv2 scenarios between two Soft-RoCE (rdma_rxe) guests under qemu TCG.
# Two guests (srv 10.77.0.1 MAC 52:54:00:77:00:01, cli 10.77.0.2 MAC 52:54:00:77:00:02) are bridged
# inside a private host network namespace (default "rocedump-dut"; env RXE_NS) with bridge rxebr0
# (10.77.0.100/24) and taps rxetap0 (srv) / rxetap1 (cli); nothing outside the namespace is touched.
# usage: run-pair.sh OUTDIR [scenario ...]      (scenario names and default list: scenario-pair.sh)
# OUTDIR gets cli/*.pcap (client-side tcpdump per scenario; mirror captures in srv/), srv|cli/status.txt
# (one "ROLE SCENARIO rc=N" line per scenario), */console.log, host-bridge.pcap, and with PCAPNG=1
# host-taps.pcapng (dumpcap on rxetap0 + rxetap1, filter PCAPNG_FILTER). GUEST_CPUS=LIST: both guests
# pinned there (taskset). HOST_CAPTURE=PROGRAM: a host-side
# capture of one's own (test-live-dut.sh's live-capture.sh), started in the namespace as `PROGRAM OUTDIR`
# once the taps are up; the guests boot when it has created OUTDIR/host-capture.ready (60 s at most), and
# it gets SIGTERM once both guests have finished (not SIGINT: a background script cannot trap that) and
# is waited for (output: OUTDIR/host-capture.log). TOPO=two-bridges: srv tap -> bridge brA -> veth pair
# vethA ~ vethB -> bridge brB -> cli tap instead of one bridge, captured on both bridges by one dumpcap
# (host-bridges.pcapng instead of host-bridge.pcap); NFT_LOSS and TBF: loss and delay at a hop (below).
# MIRROR_CAPTURE=1: the host as the collector of the guests' ERSPAN sessions (host-mirrors.pcapng).
# After the run: nft.json, nft-ruleset.txt, tc.txt, links-start.json and links.json (the devices' drop
# counters before the guests started and at the end). Needs root and cache/ from build-guest.sh.
# Takes ~25 s of boot plus ~3-5 s per scenario (~90 s more if a transfer wedges).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); OUT=${1:?usage: run-pair.sh OUTDIR [scenario ...]}; shift || true
[ -s "$HERE/cache/vmlinuz" ] && [ -s "$HERE/cache/initrd.cpio.gz" ] || { echo "run-pair: no guest image: run build-guest.sh" >&2; exit 125; }
mkdir -p "$OUT/srv" "$OUT/cli"; OUT=$(cd "$OUT" && pwd)
# the scenario list reaches both guests through their output share (/mnt/out/scenarios.txt)
rm -f "$OUT/scenarios.txt" "$OUT/srv/scenarios.txt" "$OUT/cli/scenarios.txt" "$OUT/srv/status.txt" "$OUT/cli/status.txt"
if [ $# -gt 0 ]; then echo "$*" > "$OUT/scenarios.txt"; cp "$OUT/scenarios.txt" "$OUT/srv/"; cp "$OUT/scenarios.txt" "$OUT/cli/"; fi
NS=${RXE_NS:-rocedump-dut}
if ip netns list 2>/dev/null | grep -qw "^$NS"; then echo "run-pair: namespace $NS already exists (another run?)" >&2; exit 125; fi
ip netns add $NS
SRV=; CLI=; HCAP=; HLIVE=
cleanup() { set +e; for p in $SRV $CLI $HLIVE; do kill $p 2>/dev/null; done; [ -n "$HCAP" ] && kill -INT $HCAP 2>/dev/null; sleep 1; ip netns del $NS 2>/dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
N="ip netns exec $NS"
$N ip link set lo up
# bridge NAME PORT...: a bridge in the namespace with these (already created) ports enslaved, all up
bridge() { local b=$1 t; shift; $N ip link add $b type bridge; $N ip link set $b up
  for t in "$@"; do $N ip link set $t master $b; $N ip link set $t up; done; }
for t in rxetap0 rxetap1; do $N ip tuntap add $t mode tap; done
TOPO=${TOPO:-one-bridge}
case $TOPO in
one-bridge) BR0=rxebr0; bridge rxebr0 rxetap0 rxetap1 ;;
# two bridges in a row: srv tap -> brA -> vethA ~ vethB -> brB -> cli tap
two-bridges) BR0=brA; $N ip link add vethA type veth peer name vethB; bridge brA rxetap0 vethA; bridge brB vethB rxetap1 ;;
*) echo "run-pair: unknown TOPO=$TOPO (one-bridge, two-bridges)" >&2; exit 2 ;;
esac
$N ip addr add 10.77.0.100/24 dev $BR0
# frames to the fake ERSPAN/gretap collector MAC used by scenario-pair.sh are delivered to the bridge itself
# (and dropped there: no forwarding, no such address) instead of being flooded to the other guest
$N bridge fdb add 02:77:00:00:00:c8 dev $BR0 self local 2>/dev/null || echo "note: bridge fdb add failed (mirror frames will be flooded)"
# NFT_LOSS="DEV:N ...": on DEV's ingress (netdev family: before the bridge DEV belongs to sees the frame)
# every RoCEv2 frame is dropped with probability 1/N, counted (the truth of the loss at that hop) by
# its own rule; a second rule counts the frames let through. TBF="DEV:TBF-ARGS" shapes DEV's egress
# (`tc qdisc add dev DEV root tbf TBF-ARGS`: delay on that hop). Both reported in OUTDIR/nft.json,
# nft-ruleset.txt and tc.txt after the run.
nft_loss() { local d; for d in "$@"; do
  printf 'table netdev rxeloss {\n chain in_%s {\n  type filter hook ingress device %s priority 0;\n' "${d%%:*}" "${d%%:*}"
  printf '  udp dport 4791 numgen random mod %s == 0 counter drop\n  udp dport 4791 counter\n }\n}\n' "${d#*:}"; done | $N nft -f -; }
[ -z "${NFT_LOSS:-}" ] || nft_loss $NFT_LOSS
[ -z "${TBF:-}" ] || $N tc qdisc add dev "${TBF%%:*}" root tbf ${TBF#*:}
if [ $TOPO = two-bridges ]; then
  # both bridges in one pcapng (IDB 0 = brA, IDB 1 = brB): promiscuous, so that each bridge device
  # sees the frames it forwards between its ports; its interface statistics carry the kernel's drops
  F=${PCAPNG_FILTER:-udp port 4791}
  $N dumpcap -i brA -f "$F" -i brB -f "$F" -w "$OUT/host-bridges.pcapng" >"$OUT/host-dumpcap.log" 2>&1 & HCAP=$!
else
  $N tcpdump -i rxebr0 -U -s 0 -w "$OUT/host-bridge.pcap" >"$OUT/host-tcpdump.log" 2>&1 & HCAP=$!
fi
# MIRROR_CAPTURE=1 (one bridge): the collector of the guests' mirror sessions, whose frames the bridge
# delivers to itself (fdb above): dumpcap on rxebr0, GRE only, into host-mirrors.pcapng (its interface
# statistics carry the kernel's drops)
if [ "${MIRROR_CAPTURE:-0}" = 1 ]; then
  $N dumpcap -i rxebr0 -f 'ip proto 47' -w "$OUT/host-mirrors.pcapng" >"$OUT/host-dumpcap.log" 2>&1 & HCAP="$HCAP $!"
fi
# PCAPNG=1: also a two-interface pcapng (IDB 0 = rxetap0 / srv, IDB 1 = rxetap1 / cli) written by dumpcap
# (dumpcap's -f applies to the -i before it: give it to each interface)
if [ "${PCAPNG:-0}" = 1 ]; then
  F=${PCAPNG_FILTER:-udp port 4791 or vlan}
  $N dumpcap -q -i rxetap0 -f "$F" -i rxetap1 -f "$F" -w "$OUT/host-taps.pcapng" >"$OUT/host-dumpcap.log" 2>&1 & HCAP="$HCAP $!"
fi
if [ -n "${HOST_CAPTURE:-}" ]; then
  rm -f "$OUT/host-capture.ready"
  $N "$HOST_CAPTURE" "$OUT" >"$OUT/host-capture.log" 2>&1 & HLIVE=$!
  for i in $(seq 1 600); do [ -e "$OUT/host-capture.ready" ] && break; sleep 0.1; done
  [ -e "$OUT/host-capture.ready" ] || { echo "run-pair: the host capture never became ready" >&2; exit 125; }
fi
$N ip -s -j link show > "$OUT/links-start.json"
T0=$(date +%s)
# GUEST_CPUS (a taskset CPU list): where both guests run. The host hands their frames to every
# capture socket on the CPU of the qemu that sent them, so with one CPU every socket receives the
# frames of both directions in one order (test-live-dut.sh compares captures frame by frame)
PIN=${GUEST_CPUS:+taskset -c $GUEST_CPUS}
MAC=52:54:00:77:00:01 $N $PIN "$HERE/run-guest.sh" srv "$OUT/srv" 10.77.0.1/24 10.77.0.2 tap,ifname=rxetap0,script=no,downscript=no >"$OUT/srv/console.log" 2>&1 </dev/null & SRV=$!
MAC=52:54:00:77:00:02 $N $PIN "$HERE/run-guest.sh" cli "$OUT/cli" 10.77.0.2/24 10.77.0.1 tap,ifname=rxetap1,script=no,downscript=no >"$OUT/cli/console.log" 2>&1 </dev/null & CLI=$!
echo "srv qemu pid $SRV, cli qemu pid $CLI"
wait $CLI; echo "cli guest finished after $(( $(date +%s)-T0 ))s"
for i in $(seq 1 60); do kill -0 $SRV 2>/dev/null || break; sleep 1; done
kill $SRV 2>/dev/null || true; wait $SRV 2>/dev/null || true
echo "both guests finished after $(( $(date +%s)-T0 ))s"
kill -INT $HCAP; for c in $HCAP; do wait $c || true; done; HCAP=
$N nft -j list ruleset > "$OUT/nft.json"; $N nft list ruleset > "$OUT/nft-ruleset.txt"; $N tc -s qdisc show > "$OUT/tc.txt"
$N ip -s -j link show > "$OUT/links.json"
[ -n "$HLIVE" ] && { kill -TERM $HLIVE; wait $HLIVE || true; HLIVE=; }
cat "$OUT/srv/status.txt" "$OUT/cli/status.txt" 2>/dev/null || true
