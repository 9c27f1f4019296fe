#!/bin/bash
# rocedump DUT harness: the roceconform runs of the CI test (run inside run-dut.sh's namespace, see
# test-conformance.sh): the catalogue against the Soft-RoCE guest with every setup through the DUT agent
# (--dut-ssh: roceconform starts the DUT's servers itself, on ports no loop serves, and reads its facts and
# counters), then three runs with a fault that must change the outcome (on the guest's hand-run server
# loop: fault-stopped holds it), then the agent-only setups (UC, UD, RDMA-CM) and a run ended by SIGINT.
# usage: conform-ci.sh ROCECONFORM OUTDIR
R=$1; O=$2
HERE=$(cd "$(dirname "$0")" && pwd)
# --setup-timeout: a TCG guest on a busy host takes tens of seconds to restart a perftest server
C=(--iface "$IFACE" --dut "$DUT_IP" --dut-mac "$DUT_MAC" --local-ip "$TESTER_IP" --pmtu "$DUT_PMTU"
   --recv-size "$DUT_SIZE" --expect "$HERE/rxe-expect.txt" --setup-timeout 150)
: > "$O/status"
run() {  # run NAME ARGS...
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  "$R" "${C[@]}" --json "$O/$name.json" --junit "$O/$name.xml" --pcap-dir "$O/pcap-$name" "$@" > "$O/$name.txt" 2>&1
  local rc=$?
  echo "$name $rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" >> "$O/status"
  echo "conform-ci: $name: exit $rc ($(tail -1 "$O/$name.txt"))"
}
# the DUT agent's options (without a key pair, no ssh-keygen: none, the catalogue runs on the loop's ports
# and check-conform.py reports the missing facts and counters)
A=(); P=$DUT_PORT
if [ -n "${DUT_SSH:-}" ]; then
  A=(--dut-ssh "$DUT_SSH" --dut-ssh-key "$DUT_SSH_KEY" --dut-ssh-opt "UserKnownHostsFile=$DUT_SSH_KNOWN_HOSTS"
     --dut-ssh-opt StrictHostKeyChecking=accept-new)
  P=$((DUT_PORT + 10))
fi
# the catalogue, rc-pingpong (the tests the perftest setups add run below; I1 brings up two QPs at once:
# the agent starts a second server on the run's port + 1, which the write run's server takes after it)
run rcpp "${A[@]}" --setup rc-pingpong:$P --tests A,B1,B2,B3,B4,B5,B6,C,E,F,G,H,I,V
run write "${A[@]}" --setup perftest-write:$((P + 1)) --tests B7,B8,B9,M1,M3
run read "${A[@]}" --setup perftest-read:$((P + 2)) --tests D1,D2,D3,D4,B10,M2
run atomic "${A[@]}" --setup perftest-atomic:$((P + 3)) --tests B11,B12,D5,D6,D7,D8
# faults, each of which must turn the verdicts. The DUT's server stopped mid-run: the first test is
# served, then the server is gone (first: the loop's servers are all idle and listening now)
runs() { grep -c '^loop=rcpp' "$DUT_OUTDIR/runs.log"; }
listens() {  # until the rc-pingpong loop's current run listens (listening-rcpp holds the number of the
  # last run seen listening; runs.log has a line for every run that ended), 150 s at most
  for i in $(seq 1 1500); do
    [ "$(cat "$DUT_OUTDIR/listening-rcpp" 2>/dev/null)" = "$(( $(runs) + 1 ))" ] && return 0
    sleep 0.1
  done
  return 1
}
listens
# a fresh server run (an idle one ends after the guest's 30 s limit, maybe before the first test
# connects): the current run ended and the loop paused, then one new run let start; once it listens,
# the loop is held: that run serves the first test and no run follows it. (A watcher that paused the
# loop when it saw a run end lost the race to the guest, which restarts the server at once: the
# second test was served too.)
before=$(runs); touch "$DUT_OUTDIR/pause-rcpp"
for i in $(seq 1 600); do [ "$(runs)" -gt "$before" ] && break; sleep 0.1; done
rm -f "$DUT_OUTDIR/pause-rcpp"
listens
touch "$DUT_OUTDIR/hold-rcpp"
run fault-stopped --setup rc-pingpong:$DUT_PORT --tests A1,A3,A4 --setup-timeout 10
rm -f "$DUT_OUTDIR/hold-rcpp"
# a capture filter that hides the DUT's answers; a wrong PSN in the exchange (last: it leaves the DUT's
# server waiting for a SEND until its time limit)
run fault-filter --setup rc-pingpong:$DUT_PORT --tests A1,C1a --capture-filter 'arp'
run fault-psn --setup rc-pingpong:$DUT_PORT --tests A1 --fault psn
# the agent-only setups: no hand-run server serves them (ports DUT_PORT+14.. and rping's)
[ -n "${DUT_SSH:-}" ] || exit 0
dut() {  # a command on the DUT, through the harness's key
  ssh -o BatchMode=yes -o ConnectTimeout=10 -o "UserKnownHostsFile=$DUT_SSH_KNOWN_HOSTS" \
    -o StrictHostKeyChecking=accept-new -i "$DUT_SSH_KEY" -p "${DUT_SSH##*:}" "${DUT_SSH%:*}" "$@"
}
servers() { dut "ps -o pid,args | grep -E '^ *[0-9]+ (ibv_[ru][cd]_pingpong|ib_[a-z]+_bw) .*-p 185(2[5-9]|3[0-9])'"; }
# group U on ibv_uc_pingpong's UC QP (no loop serves it: only with the agent)
run agent-uc "${A[@]}" --setup uc-pingpong:$((DUT_PORT + 15)) --tests U
# group Q on ibv_ud_pingpong's UD QP (the agent starts it; ~9 s; Q4 N/A: never run)
run agent-ud "${A[@]}" --setup ud-pingpong:$((DUT_PORT + 16)) --tests Q
# E7 on rping -s's RDMA-CM QP (the agent starts rping; --dut-size is its -S: a READ of 3 packets)
run agent-cm "${A[@]}" --setup rdma-cm:7175 --dut-size 3000 --tests E7
# an answer lost on the path: nft on the ingress of the guest's tap (before the bridge, and so the capture,
# sees it) drops the READ_RESPONSE_LAST packets (BTH opcode 0x0f, the first byte after the UDP header):
# every other one from the first (lossy-one: D1's first run misses its LAST, FAILs on an answer not seen
# and is run again; the second run has its LAST, so INCONCLUSIVE), then every one (lossy-all: both runs
# miss it, so FAIL). Not iptables in the guest: a packet its OUTPUT chain drops fails rxe's send, which
# rxe answers with an RNR NAK (rxe_resp.c), a DUT that knows, not a path that loses.
tap=$(ls "/sys/class/net/$IFACE/brif/" | head -1)
lossy() {  # lossy RULE: the rule alone in the table rocelossy on the tap's ingress
  nft delete table netdev rocelossy 2>/dev/null
  printf 'table netdev rocelossy {\n chain in {\n  type filter hook ingress device %s priority 0;\n  %s\n }\n}\n' \
    "$tap" "$1" | nft -f -
}
lossy 'udp dport 4791 @th,64,8 0x0f numgen inc mod 2 == 0 counter drop'
run lossy-one "${A[@]}" --setup perftest-read:$((DUT_PORT + 17)) --tests D1
nft list table netdev rocelossy > "$O/lossy-one-nft.txt" 2>&1
lossy 'udp dport 4791 @th,64,8 0x0f counter drop'
run lossy-all "${A[@]}" --setup perftest-read:$((DUT_PORT + 17)) --tests D1
nft list table netdev rocelossy > "$O/lossy-all-nft.txt" 2>&1
nft delete table netdev rocelossy
servers > "$O/agent-left.txt" 2>&1
# SIGINT while a test runs: the DUT's server it started is killed too. E1 (the DUT resends for a
# second or two) twenty times over, a server started for each: one E1 could end before a look over
# SSH into the guest had seen its server (it did once, in 3.7 s: exit 0, no SIGINT taken)
t0=$(date +%s.%N)
"$R" "${C[@]}" "${A[@]}" --setup rc-pingpong:$((DUT_PORT + 14)) --tests E1 --repeat 20 > "$O/agent-sigint.txt" 2>&1 & S=$!
# the server this run started (its port), recorded by the same look that found it: the agent may
# restart it between two looks
for i in $(seq 1 120); do
	servers 2>&1 | grep -e "-p $((DUT_PORT + 14))" > "$O/agent-sigint-before.txt" && break
	kill -0 $S 2>/dev/null || break
	sleep 0.5
done
kill -INT $S; wait $S; rc=$?
echo "agent-sigint $rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" >> "$O/status"
servers > "$O/agent-sigint-left.txt" 2>&1
exit 0
