#!/bin/bash
# roceconform's command line: the catalogue listing, usage and safety refusals (exit 2 with a clear
# message; the link-layer ones on a veth pair in a private network namespace, with
# fake-neighbour.py answering ARP/ND with MACs that must be refused), and the dry run (no root:
# every stimulus in a pcap that rocedump reads back, correct ICRCs except the three tests that spoil
# one on purpose). usage: test-cli.sh ROCECONFORM ROCEDUMP
set -u
R=$1; D=$2
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/conform-cli.XXXXXX); chmod 1777 "$T"   # the dry run writes as nobody
NS=conform-cli-$$
trap 'ip netns del $NS 2>/dev/null; rm -rf "$T"' EXIT
fails=0
PRE=()   # a prefix of the command: ip netns exec NS
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# expect_exit CODE PATTERN ARGS...: the exit status and a pattern in stdout+stderr
expect_exit() {
  local code=$1 pat=$2; shift 2
  ${PRE[@]+"${PRE[@]}"} "$R" "$@" > "$T/out" 2>&1; local rc=$?
  if [ $rc = "$code" ] && grep -qiE -- "$pat" "$T/out"; then ok "roceconform $* -> $rc"
  else bad "roceconform $* -> $rc (want $code and /$pat/): $(head -3 "$T/out")"; fi
}
# the catalogue
"$R" --list > "$T/list"; n=$(grep -cE '^[A-Z][0-9]+[a-z]? +[^ ]' "$T/list")
[ "$n" -ge 30 ] && [ "$n" = "$(wc -l < "$T/list")" ] && ok "--list: $n tests, one a line" || bad "--list: $n lines"
grep -q '^E1 ' "$T/list" && grep -q '^C1a ' "$T/list" || bad "--list lacks E1 or C1a"
# usage and safety
expect_exit 2 'no --dut'
expect_exit 2 'no --iface' --dut 10.0.0.2
expect_exit 2 'broadcast' --iface lo --dut 255.255.255.255
expect_exit 2 'multicast' --iface lo --dut 239.1.2.3
expect_exit 2 'unspecified' --iface lo --dut 0.0.0.0
expect_exit 2 'multicast' --iface lo --dut ff02::1
expect_exit 2 'no interface' --iface conform-nosuch0 --dut 10.0.0.2 --local-ip 10.0.0.9
expect_exit 2 'selects no test' --dry-run "$T/x.pcap" --dut 10.0.0.2 --tests A1,Z9
expect_exit 2 'not a number' --dut 10.0.0.2 --pps 20000
expect_exit 2 'bad port' --dut 10.0.0.2 --setup rdma-cm:0
expect_exit 2 'unknown setup' --dut 10.0.0.2 --setup nosuch
expect_exit 2 'same IP version' --dry-run "$T/x.pcap" --dut 10.0.0.2 --local-ip fd00::1
expect_exit 2 'unknown or incomplete option' --dut 10.0.0.2 --bogus
expect_exit 2 'loopback' --iface lo --dut 127.0.0.1
expect_exit 2 'loopback' --dry-run "$T/x.pcap" --dut ::1
expect_exit 2 'broadcast MAC' --dry-run "$T/x.pcap" --dut 10.0.0.2 --dut-mac ff:ff:ff:ff:ff:ff
expect_exit 2 'multicast \(group\) MAC' --dry-run "$T/x.pcap" --dut 10.0.0.2 --dut-mac 01:00:5e:00:00:01
expect_exit 2 'multicast \(group\) MAC' --dry-run "$T/x.pcap" --dut fd00::2 --dut-mac 33:33:00:00:00:01
expect_exit 2 'all-zero MAC' --dry-run "$T/x.pcap" --dut 10.0.0.2 --dut-mac 00:00:00:00:00:00
expect_exit 2 "tester's own address" --dry-run "$T/x.pcap" --dut 10.0.0.2 --local-ip 10.0.0.2
printf 'A1 MAYBE\n' > "$T/bad.expect"; printf 'A1 FAIL a known deviation\n' > "$T/good.expect"
expect_exit 2 'verdict' --dry-run "$T/x.pcap" --dut 10.0.0.2 --expect "$T/bad.expect"
expect_exit 0 'usage' --help
# the DUT agent (--dut-ssh): refused before the first packet with the reason, exit 2 (no root needed)
L=(--iface lo --dut 192.0.2.7 --local-ip 192.0.2.8)
expect_exit 2 'not USER@HOST\[:PORT\]' "${L[@]}" --dut-ssh root@dut:99999
expect_exit 2 'need --dut-ssh' "${L[@]}" --dut-ssh-key "$T/nokey"
expect_exit 2 'one NAME=VALUE ssh option' "${L[@]}" --dut-ssh root@dut --dut-ssh-opt -oProxyCommand=x
expect_exit 2 "--dut-ssh-key $T/nokey: No such file" "${L[@]}" --dut-ssh root@127.0.0.1 --dut-ssh-key "$T/nokey"
# unreachable: nothing listens on the port; a server that never answers (ssh's connect timeout)
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > "$T/free"
expect_exit 2 "the DUT agent root@127.0.0.1:$(cat "$T/free") is unreachable: .*refused" "${L[@]}" \
  --dut-ssh "root@127.0.0.1:$(cat "$T/free")"
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); c = s.accept(); time.sleep(30)' > "$T/silent" & SILENT=$!
for i in $(seq 1 100); do [ -s "$T/silent" ] && break; sleep 0.1; done
expect_exit 2 "the DUT agent root@127.0.0.1:$(cat "$T/silent") is unreachable: .*timed out" "${L[@]}" \
  --dut-ssh "root@127.0.0.1:$(cat "$T/silent")" --dut-ssh-opt ConnectTimeout=1
kill $SILENT 2>/dev/null
# every output path is checked before anything is sent; no half file is left behind
expect_exit 2 '--junit: /nonexistent-dir/r.xml: cannot write in its directory' --dry-run "$T/early.pcap" --dut 10.0.0.2 \
  --json "$T/early.json" --junit /nonexistent-dir/r.xml
[ ! -e "$T/early.pcap" ] && [ ! -e "$T/early.json" ] && ! ls -A "$T" | grep -q '^\.early' && ok "nothing written before the refusal" ||
  bad "files left after the refused run: $(ls -A "$T")"
mkdir "$T/adir"
expect_exit 2 '--json: .*adir is a directory' --dry-run "$T/early.pcap" --dut 10.0.0.2 --json "$T/adir"
expect_exit 2 '--pcap-dir: cannot create' --dry-run "$T/early.pcap" --dut 10.0.0.2 --pcap-dir /nonexistent-dir/pcap
# a symlink planted where a file is written is replaced, not followed
mkdir "$T/pl"; echo precious > "$T/victim"; ln -s "$T/victim" "$T/pl/A1.pcapng"; ln -s "$T/victim" "$T/sym.pcap"
"$R" --dry-run "$T/sym.pcap" --dut 10.0.0.2 --tests A1 --pcap-dir "$T/pl" > "$T/out" 2>&1
[ "$(cat "$T/victim")" = precious ] && [ -f "$T/pl/A1.pcapng" ] && [ ! -L "$T/pl/A1.pcapng" ] && [ ! -L "$T/sym.pcap" ] &&
  ok "planted symlinks replaced, their target untouched" || bad "planted symlink followed: the target is now $(wc -c < "$T/victim") bytes"
# Link-layer refusals on a veth pair (conf0a: the tester, 10.99.0.1/24; conf0b: a fake DUT) in a
# network namespace of their own: nothing reaches a real network.
ns_setup() {
  [ "$(id -u)" = 0 ] && ip netns add $NS 2>/dev/null || return 1
  ip netns exec $NS ip link add conf0a type veth peer name conf0b && ip netns exec $NS ip link set lo up &&
  ip netns exec $NS ip link set conf0a up && ip netns exec $NS ip link set conf0b up &&
  ip netns exec $NS ip addr add 10.99.0.1/24 dev conf0a
}
# fake_dut IP MAC ARGS...: roceconform against a fake DUT answering ARP/ND for IP with MAC
fake_dut() {
  local ip=$1 mac=$2; shift 2
  rm -f "$T/rdy"; mkfifo "$T/rdy"
  ip netns exec $NS python3 "$HERE/fake-neighbour.py" conf0b "$ip" "$mac" > "$T/rdy" & local fake=$!
  read -r _ < "$T/rdy"
  expect_exit "$@"
  kill $fake 2>/dev/null; wait $fake 2>/dev/null
}
if ns_setup; then
  MY_MAC=$(ip netns exec $NS cat /sys/class/net/conf0a/address)
  PRE=(ip netns exec $NS)
  LIVE=(--iface conf0a --setup-timeout 1 --tests A1)
  expect_exit 2 '^roceconform: --junit: /nonexistent-dir/r.xml: cannot write' "${LIVE[@]}" --dut 10.99.0.2 \
    --local-ip 10.99.0.250 --junit /nonexistent-dir/r.xml
  # no DUT server: the setup fails (exit 2; an AddressSanitizer build must not find leaks on this
  # way out) and the report temporaries are removed
  expect_exit 2 'A1: setup failed' "${LIVE[@]}" --dut 10.99.0.2 --local-ip 10.99.0.250 --dut-mac 02:00:00:00:00:02 \
    --json "$T/nosetup.json" --expect "$T/good.expect"
  [ ! -e "$T/nosetup.json" ] && ! ls -A "$T" | grep -q '^\.nosetup' && ok "no report left after the setup failed" ||
    bad "report files left: $(ls -A "$T")"
  expect_exit 2 "10.99.0.255 is the broadcast address of conf0a's subnet 10.99.0.0/24" "${LIVE[@]}" --dut 10.99.0.255
  expect_exit 2 "10.99.0.1 is the tester's own address" "${LIVE[@]}" --dut 10.99.0.1
  expect_exit 2 "10.99.0.1 is an address of this host" "${LIVE[@]}" --dut 10.99.0.1 --local-ip 10.99.0.250
  expect_exit 2 "--dut-mac $MY_MAC is the tester's own MAC" "${LIVE[@]}" --dut 10.99.0.2 --local-ip 10.99.0.250 --dut-mac "$MY_MAC"
  fake_dut 10.99.0.2 01:00:5e:00:00:01 2 'answered ARP with MAC 01:00:5e:00:00:01, a multicast \(group\) MAC: refused' \
    "${LIVE[@]}" --dut 10.99.0.2 --local-ip 10.99.0.250
  fake_dut 10.99.0.2 ff:ff:ff:ff:ff:ff 2 'answered ARP with MAC ff:ff:ff:ff:ff:ff, the broadcast MAC: refused' \
    "${LIVE[@]}" --dut 10.99.0.2 --local-ip 10.99.0.250
  fake_dut 10.99.0.2 "$MY_MAC" 2 "answered ARP with MAC $MY_MAC, the tester's own MAC: refused" \
    "${LIVE[@]}" --dut 10.99.0.2 --local-ip 10.99.0.250
  fake_dut fd99::2 33:33:00:00:00:01 2 'answered neighbour discovery with MAC 33:33:00:00:00:01, a multicast' \
    "${LIVE[@]}" --dut fd99::2 --local-ip fd99::250
  # without privileges a live run is refused with a clear message
  if command -v setpriv >/dev/null; then
    ip netns exec $NS setpriv --reuid=65534 --regid=65534 --clear-groups "$R" --iface conf0a --dut 10.99.0.2 \
      --local-ip 10.99.0.250 > "$T/out" 2>&1
    rc=$?; [ $rc = 2 ] && grep -q 'root or CAP_NET_RAW' "$T/out" && ok "unprivileged live run refused (exit 2)" || bad "unprivileged: rc $rc $(head -2 "$T/out")"
  fi
  PRE=()
else
  echo "skip link-layer refusals: cannot create a network namespace here"
fi
# the dry run, as an unprivileged user when we are root
run_as() { if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
run_as "$R" --dry-run "$T/dry.pcap" --dut 10.77.0.1 > "$T/dry.txt" 2>&1; rc=$?
frames=$(sed -n 's/^dry run: \([0-9]*\) frames.*/\1/p' "$T/dry.txt")
[ $rc = 0 ] && [ "${frames:-0}" -ge 100 ] && grep -q 'placeholders: DUT QPN 0x000011' "$T/dry.txt" && ok "dry run: $frames frames, placeholders stated" || bad "dry run: rc $rc: $(cat "$T/dry.txt")"
"$D" -r "$T/dry.pcap" > "$T/dry.rd" 2>&1
good=$(grep -c 'icrc good' "$T/dry.rd"); badicrc=$(grep -c 'icrc BAD' "$T/dry.rd"); short=$(grep -c 'icrc unchecked.*packet.too_short' "$T/dry.rd")
[ "$good" -ge 90 ] && [ "$badicrc" = 3 ] && [ "$short" = 1 ] && ok "dry run read back by rocedump: $good good ICRCs, 3 spoiled on purpose (C1a-c), C5 too short" || bad "dry run ICRCs: $good good, $badicrc bad, $short short"
[ "$((good + badicrc + short))" = "$frames" ] && ok "every stimulus is RoCE" || bad "$((good + badicrc + short)) RoCE of $frames frames"
run_as "$R" --dry-run "$T/dry6.pcap" --dut fd77::1 --setup perftest-read --tests D,B8 > "$T/dry6.txt" 2>&1 && \
  grep -q 'rkey 0x00001234' "$T/dry6.txt" && ok "IPv6 perftest-read dry run ($(head -1 "$T/dry6.txt"))" || bad "IPv6 dry run: $(cat "$T/dry6.txt")"
"$D" -r "$T/dry6.pcap" 2>&1 | grep -q 'READ_REQUEST' && ok "IPv6 READ stimuli decode" || bad "IPv6 READ stimuli"
# the dry run writes the JUnit and JSON reports asked for (dry-run verdicts: N/A, nothing judged), so a
# CI pipeline can be wired without a DUT; read back with xml.etree and json
printf 'A5 N/A nothing is judged in a dry run\n' > "$T/dry.expect"
"$R" --dry-run "$T/ci.pcap" --dut 10.77.0.1 --tests A1,A5,B7 --junit "$T/ci.xml" --json "$T/ci.json" \
  --pcap-dir "$T/ci-pcap" --expect "$T/dry.expect" > "$T/out" 2>&1; rc=$?
python3 - "$T/ci.xml" "$T/ci.json" "$T/ci-pcap" > "$T/ci.check" 2>&1 <<'PY'
import json, os, sys, xml.etree.ElementTree as E
xml_path, json_path, pcap_dir = sys.argv[1:]
suite = E.parse(xml_path).getroot().find('testsuite')
cases = {c.get('name').split()[0]: c for c in suite.iter('testcase')}
assert sorted(cases) == ['A1', 'A5', 'B7'], sorted(cases)
assert (suite.get('tests'), suite.get('failures'), suite.get('errors'), suite.get('skipped')) == ('3', '0', '0', '3')
assert cases['A1'].get('classname') == 'roceconform.rc-pingpong.A' and cases['B7'].get('classname') == 'roceconform.rc-pingpong.B'
assert 'dry run' in cases['A1'].find('skipped').get('message')
assert cases['A5'].find('skipped').get('type') == 'xfail'
assert cases['A5'].find('properties/property[@name="expected"]').get('value') == 'N/A: nothing is judged in a dry run'
assert 'perftest-write' in cases['B7'].find('skipped').get('message')
att = cases['A1'].find('system-out').text.strip()
assert att == '[[ATTACHMENT|%s/A1.pcapng]]' % os.path.realpath(pcap_dir) and os.path.isfile(att[13:-2]), att
j = json.load(open(json_path))
assert j['mode'] == 'dry-run' and [r['verdict'] for r in j['results']] == ['N/A'] * 3, j
PY
[ $rc = 0 ] && [ ! -s "$T/ci.check" ] && ok "dry run with --junit/--json: reports written and read back" || bad "dry-run reports: rc $rc $(cat "$T/out" "$T/ci.check")"
echo "$fails failure(s)"
exit $((fails > 0))
