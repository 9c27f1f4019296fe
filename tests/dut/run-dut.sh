#!/bin/bash
# rocedump DUT harness: run a conformance tester against a real Soft-RoCE DUT.
# usage: run-dut.sh OUTDIR -- COMMAND [ARG...]
# Makes a private network namespace ($RXE_NS, default rocedump-conf) with bridge rxebr0 = 10.77.0.100/24
# and tap rxetap0, boots ONE rxe guest (role "dut", scenario-dut.sh: 10.77.0.1, MAC 52:54:00:77:00:01)
# serving ibv_rc_pingpong on DUT_PORT (18515) and, with PERFTEST=1 (default), ib_write_bw / ib_read_bw /
# ib_atomic_bw on DUT_PORT+1..+3, each restarted after every run; waits until they listen; runs COMMAND in
# the namespace with the environment
#   IFACE=rxebr0 HOST_IP=10.77.0.100 TESTER_IP=10.77.0.50 (an address nobody owns: the tester answers ARP
#   for it) DUT_IP=10.77.0.1 DUT_MAC DUT_PORT DUT_PMTU DUT_SIZE DUT_GID_INDEX DUT_RUN_TIMEOUT DUT_OUTDIR
#   RXE_DROP, and for roceconform's DUT agent DUT_SSH=root@127.0.0.1:PORT DUT_SSH_KEY DUT_SSH_KNOWN_HOSTS (the
#   guest's dropbear on a second, management NIC: qemu user networking forwards 127.0.0.1:PORT of the
#   namespace to it; a throwaway ed25519 key pair made for this run in OUTDIR/ssh, its public half handed
#   to the guest as OUTDIR/dut/authorized_keys; empty when ssh-keygen is missing)
# then stops the guest and deletes the namespace. Exit status: COMMAND's, or 125 when the harness itself
# failed (no namespace, no guest image and no way to build it, DUT never ready).
# OUTDIR: host.pcap (bridge capture), dut/console.log, dut/runs.log (per server run: loop, status, rc, rxe
# hw_counter deltas), dut/NAME-NNN.log. Control: touch OUTDIR/dut/pause-NAME to stop loop NAME (rcpp,
# write, read, atomic) from restarting its server.
# Knobs (env): RXE_NS, DUT_SIZE (4096) DUT_MTU (1024) DUT_GID_INDEX (1) DUT_RUN_TIMEOUT (30) PERFTEST (1)
# RPING (0; 1: rping -s on 7174, RDMA-CM, for --setup rdma-cm) RPING_SIZE (its -S, 64)
# BOOT_TIMEOUT (300: a TCG boot on a busy 2-core host took 130 s) HOST_PCAP (1).
# The host's stack: inbound UDP 4791 in the namespace is dropped by nft (else iptables), so the host kernel
# never answers the DUT's RoCE packets (packet sockets still see them). RXE_DROP says which.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
die() { echo "run-dut: $*" >&2; exit 125; }
[ $# -ge 3 ] && [ "$2" = "--" ] || die "usage: run-dut.sh OUTDIR -- COMMAND [ARG...]"
OUT=$1; shift 2
mkdir -p "$OUT/dut" || die "cannot create $OUT"; OUT=$(cd "$OUT" && pwd)
[ "$(id -u)" = 0 ] || die "needs root (network namespace, tap, qemu)"
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
if [ ! -s "$HERE/cache/vmlinuz" ] || [ ! -s "$HERE/cache/initrd.cpio.gz" ] ||
   [ "$HERE/build-guest.sh" -nt "$HERE/cache/initrd.cpio.gz" ] || [ "$HERE/guest-init.sh" -nt "$HERE/cache/initrd.cpio.gz" ]; then
  echo "run-dut: no guest image in cache/, or an older one than its recipe: building it (build-guest.sh, ~2 min)"
  "$HERE/build-guest.sh" >"$OUT/build-guest.log" 2>&1 || die "build-guest.sh failed: see $OUT/build-guest.log"
fi
NS=${RXE_NS:-rocedump-conf}; BR=rxebr0; TAP=rxetap0
HOST_IP=10.77.0.100; TESTER_IP=10.77.0.50; DUT_IP=10.77.0.1; DUT_MAC=52:54:00:77:00:01
DUT_PORT=18515; DUT_SIZE=${DUT_SIZE:-4096}; DUT_MTU=${DUT_MTU:-1024}; DUT_GID_INDEX=${DUT_GID_INDEX:-1}
DUT_RUN_TIMEOUT=${DUT_RUN_TIMEOUT:-30}; BOOT_TIMEOUT=${BOOT_TIMEOUT:-300}; PERFTEST=${PERFTEST:-1}
RPING=${RPING:-0}; RPING_PORT=7174; RPING_SIZE=${RPING_SIZE:-64}
MGMT_PORT=10022; DUT_SSH=; DUT_SSH_KEY=; DUT_SSH_KNOWN_HOSTS=
rm -rf "$OUT/ssh" "$OUT/dut/authorized_keys"
if command -v ssh-keygen >/dev/null && mkdir -m 700 "$OUT/ssh" &&
   ssh-keygen -q -t ed25519 -N '' -C rocedump-dut-agent -f "$OUT/ssh/id_ed25519" </dev/null &&
   cp "$OUT/ssh/id_ed25519.pub" "$OUT/dut/authorized_keys"; then
  DUT_SSH=root@127.0.0.1:$MGMT_PORT DUT_SSH_KEY=$OUT/ssh/id_ed25519 DUT_SSH_KNOWN_HOSTS=$OUT/ssh/known_hosts
fi
ip netns list 2>/dev/null | grep -qw "^$NS" && die "namespace $NS already exists (another run? RXE_NS=...)"
ip netns add "$NS" || die "cannot create namespace $NS"
N="ip netns exec $NS"
VM=; HCAP=; T0=$(date +%s.%N)
el() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
cleanup() {
  set +e
  touch "$OUT/dut/stop"
  if [ -n "$VM" ]; then   # the guest ends its loops and powers off by itself; killed only if it hangs
    for i in $(seq 1 100); do kill -0 "$VM" 2>/dev/null || break; sleep 0.2; done
    kill "$VM" 2>/dev/null && echo "run-dut: guest did not power off, killed qemu $VM"; wait "$VM" 2>/dev/null
  fi
  [ -n "$HCAP" ] && { kill -INT "$HCAP" 2>/dev/null; wait "$HCAP" 2>/dev/null; }
  ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -f "$OUT"/dut/stop "$OUT"/dut/pause-* "$OUT"/dut/listening-* "$OUT"/dut/*-[0-9][0-9][0-9].log "$OUT/dut/runs.log"
$N ip link set lo up
$N ip link add $BR type bridge && $N ip link set $BR up && $N ip addr add $HOST_IP/24 dev $BR || die "bridge setup failed"
$N ip tuntap add $TAP mode tap && $N ip link set $TAP master $BR && $N ip link set $TAP up || die "tap setup failed"
RXE_DROP=none
if command -v nft >/dev/null && $N nft -f - 2>/dev/null <<EOF
table inet rocedut {
  chain input {
    type filter hook input priority 0; policy accept;
    udp dport 4791 counter drop
  }
}
EOF
then RXE_DROP=nft
elif command -v iptables >/dev/null && $N iptables -w 5 -A INPUT -p udp --dport 4791 -j DROP 2>/dev/null; then RXE_DROP=iptables
fi
echo "run-dut: namespace $NS: $BR $HOST_IP/24, tap $TAP; inbound UDP 4791 dropped by: $RXE_DROP"
if [ "${HOST_PCAP:-1}" = 1 ] && command -v tcpdump >/dev/null; then
  $N tcpdump -i $BR -U -s 0 -w "$OUT/host.pcap" 'udp port 4791 or arp or tcp portrange 18515-18518' \
    >"$OUT/host-tcpdump.log" 2>&1 & HCAP=$!
fi
cat > "$OUT/dut/dut.conf" <<EOF
SIZE=$DUT_SIZE MTU=$DUT_MTU GIDX=$DUT_GID_INDEX PORT=$DUT_PORT RUN_TIMEOUT=$DUT_RUN_TIMEOUT PERFTEST=$PERFTEST
RPING=$RPING RPING_PORT=$RPING_PORT RPING_SIZE=$RPING_SIZE IP=$DUT_IP
EOF
MAC=$DUT_MAC MGMT_PORT=${DUT_SSH:+$MGMT_PORT} $N "$HERE/run-guest.sh" dut "$OUT/dut" $DUT_IP/24 $HOST_IP tap,ifname=$TAP,script=no,downscript=no \
  >"$OUT/dut/console.log" 2>&1 </dev/null & VM=$!
echo "run-dut: DUT guest qemu pid $VM, waiting for its servers on $DUT_IP"
want="rcpp"; [ "$PERFTEST" = 1 ] && want="rcpp write read atomic"
[ "$RPING" = 1 ] && want="$want rping"
ready=0
for i in $(seq 1 $((BOOT_TIMEOUT * 5))); do
  ready=1
  for w in $want; do [ -s "$OUT/dut/listening-$w" ] || ready=0; done
  [ $ready = 1 ] && break
  kill -0 $VM 2>/dev/null || break
  sleep 0.2
done
if [ $ready != 1 ]; then tail -20 "$OUT/dut/console.log" >&2; die "DUT not ready after $(el)s"; fi
echo "run-dut: DUT ready after $(el)s; running: $*"
T1=$(date +%s.%N)
$N env IFACE=$BR HOST_IP=$HOST_IP TESTER_IP=$TESTER_IP DUT_IP=$DUT_IP DUT_MAC=$DUT_MAC DUT_PORT=$DUT_PORT \
  DUT_PMTU=$DUT_MTU DUT_SIZE=$DUT_SIZE DUT_GID_INDEX=$DUT_GID_INDEX DUT_RUN_TIMEOUT=$DUT_RUN_TIMEOUT \
  DUT_OUTDIR="$OUT/dut" DUT_RPING_PORT=$RPING_PORT DUT_RPING_SIZE=$RPING_SIZE RXE_DROP=$RXE_DROP DUT_SSH=$DUT_SSH DUT_SSH_KEY=$DUT_SSH_KEY \
  DUT_SSH_KNOWN_HOSTS=$DUT_SSH_KNOWN_HOSTS "$@" </dev/null
RC=$?
CMD_S=$(awk -v a="$T1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
summary=$(grep '^loop=' "$OUT/dut/runs.log" 2>/dev/null | sed 's/^loop=\([a-z]*\).*status=\([a-z]*\).*/\1:\2/' | sort | uniq -c | awk '{printf "%s%s %s", (NR>1?", ":""), $2, $1}')
echo "run-dut: command rc=$RC in ${CMD_S}s; DUT server runs: ${summary:-none}; total $(el)s; logs in $OUT"
exit $RC
