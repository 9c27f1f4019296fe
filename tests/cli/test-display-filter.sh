#!/bin/bash
# test-display-filter.sh: rocedump -Y over real captures: it selects what is printed and what -w
# writes; -c counts frames before it; the summary and --strict still see every frame; it sees
# inside VLAN/GRE/ERSPAN/VXLAN where a BPF port filter does not; each selection equals the frames
# the JSON says match (checked in Python); syntax errors name the column and exit 2. TAP output.
#   test-display-filter.sh ROCEDUMP CAPTURES_DIR PYTHON3
set -u
R=$1 CAPS=$2 PY=${3:-python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
G=$CAPS/gen X=$CAPS/rxe

# -Y EXPR selects the same frames as a Python predicate over the full JSON
sel_eq() {  # NAME CAPTURE EXPR PYTHON-PREDICATE-OVER-o
	local name=$1 cap=$2 expr=$3 pred=$4
	"$R" -r "$cap" -T json -Y "$expr" >"$T/y.json" 2>"$T/err" || { not_ok "$name" "exit $?: $(cat "$T/err")"; return; }
	"$R" -r "$cap" -T json >"$T/all.json"
	if "$PY" - "$T/all.json" "$T/y.json" "$pred" <<'PY'
import json, sys
allf = [json.loads(l) for l in open(sys.argv[1])]
got = [json.loads(l)["frame"] for l in open(sys.argv[2])]
def g(o, path):
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return None
        o = o[k]
    return o
want = [o["frame"] for o in allf if eval(sys.argv[3], {"g": g, "o": o})]
if got != want or not want:
    print("# selected %s, want %s" % (got[:10], want[:10]))
    sys.exit(1)
PY
	then ok "$name"; else not_ok "$name"; fi
}
sel_eq "roce.dqpn == 0x11" "$G/rc_opcodes.pcap" 'roce.dqpn == 0x123' 'g(o,"roce.dqpn") == 0x123'
sel_eq "opcode name" "$X/rc_pingpong_loss.pcap" 'roce.opcode_name == "SEND_MIDDLE"' 'g(o,"roce.opcode_name") == "SEND_MIDDLE"'
sel_eq "event psn.*" "$X/rc_pingpong_loss.pcap" 'event psn.*' 'any(e.startswith("psn.") for e in o["events"])'
sel_eq "event == nak.psn_seq_err" "$X/write_bw_loss.pcap" 'event == nak.psn_seq_err' '"nak.psn_seq_err" in o["events"]'
sel_eq "roce.psn.retransmit as the plugin names it" "$X/write_bw_loss.pcap" 'roce.psn.retransmit' '"psn.retransmit" in o["events"]'
sel_eq "icrc status not good" "$G/anomalies.pcap" 'roce.icrc.status != "good"' 'g(o,"roce.icrc.status") not in (None, "good")'
sel_eq "ip.src inside ERSPAN III" "$X/erspan3_rc_pingpong.pcap" 'wrapper.kind == "erspan3" and ip.src == 10.77.0.1' 'g(o,"wrapper.kind") == "erspan3" and g(o,"ip.src") == "10.77.0.1"'
sel_eq "inside GRE" "$X/gretap_rc_pingpong.pcap" 'wrapper.kind == "gre" && roce.opcode_name == "SEND_FIRST"' 'g(o,"wrapper.kind") == "gre" and g(o,"roce.opcode_name") == "SEND_FIRST"'
sel_eq "inside VXLAN" "$G/mirror_wrappers.pcap" 'wrapper.kind == "vxlan"' 'g(o,"wrapper.kind") == "vxlan"'
sel_eq "VLAN id" "$X/vlan_rc_pingpong.pcap" 'vlan.vid == 77 and vlan.pcp == 3 and roce' 'o.get("roce") and any(v["vid"] == 77 for v in o.get("vlan", []))'
# MAC control frames (PFC, PAUSE, other opcodes): their fields from the table, arrays by any element
P=$G/pfc_pause.pcap
sel_eq "pfc.quanta: any pause time" "$P" 'pfc.quanta == 65535' '65535 in (g(o,"pfc.quanta") or [])'
sel_eq "pfc.enabled: any enabled priority" "$P" 'pfc.enabled == 7 and vlan' '7 in (g(o,"pfc.enabled") or []) and "vlan" in o'
sel_eq "pfc.enabled present when empty" "$P" 'pfc.enabled and not pfc.enabled == 0 and not pfc.enabled == 3' 'g(o,"pfc.enabled") is not None and not ({0, 3} & set(g(o,"pfc.enabled")))'
sel_eq "pfc.enbv, pfc.opcode" "$P" 'pfc.enbv > 0xff or pfc.opcode != 0x101' '(g(o,"pfc.enbv") or 0) > 0xff'
sel_eq "pause.quanta" "$P" 'pause.quanta >= 100' '(g(o,"pause.quanta") or -1) >= 100'
sel_eq "mac_control alone" "$P" 'mac_control' '"mac_control" in o'
sel_eq "mac_control.opcode" "$P" 'mac_control.opcode == 3' 'g(o,"mac_control.opcode") == 3'
sel_eq "pfc.malformed == reason" "$P" 'pfc.malformed == "short" or pause.malformed == dst' '"short" in (g(o,"pfc.malformed") or []) or "dst" in (g(o,"pause.malformed") or [])'
sel_eq "pfc.malformed alone is the event" "$P" 'pfc.malformed' '"pfc.malformed" in o["events"]'
sel_eq "pfc group" "$G/pfc_timeline.pcap" 'pfc and not event pfc.pause' '"pfc" in o and "pfc.pause" not in o["events"]'
sel_eq "and/or/not and parentheses" "$X/rc_pingpong_loss.pcap" \
	'not (roce.psn.gap or roce.psn.retransmit) and (roce.aeth.kind == "NAK" || roce.ackreq == 1)' \
	'not ("psn.gap" in o["events"] or "psn.retransmit" in o["events"]) and (g(o,"roce.aeth.kind") == "NAK" or g(o,"roce.ackreq") == 1)'

# a BPF port filter sees nothing inside the tunnel; -Y does
bpf=$("$R" -r "$X/erspan3_rc_pingpong.pcap" 'udp port 4791' | wc -l)
ydf=$("$R" -r "$X/erspan3_rc_pingpong.pcap" -Y 'udp.dport == 4791' | wc -l)
check "inside ERSPAN: BPF 'udp port 4791' matches $bpf frames, -Y 'udp.dport == 4791' $ydf" test "$bpf" = 0 -a "$ydf" -gt 0

# -c counts frames before -Y (as tshark's -c)
"$R" -r "$X/rc_pingpong_loss.pcap" -T json -c 40 >"$T/c40.json"
"$R" -r "$X/rc_pingpong_loss.pcap" -T json -c 40 -Y 'roce.aeth' >"$T/c40y.json"
check "-c 40 -Y: the selected frames among the first 40" "$PY" -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l)["frame"] for l in open(sys.argv[2])]
want = [o["frame"] for o in a if "aeth" in o.get("roce", {})]
sys.exit(0 if a[-1]["frame"] == 40 and b == want and 0 < len(b) < 40 else 1)' "$T/c40.json" "$T/c40y.json"

# the summary, the stream table and --strict see every frame
"$R" -r "$X/write_bw_loss.pcap" -q --summary >"$T/s1"
"$R" -r "$X/write_bw_loss.pcap" -q --summary -Y 'roce.psn == 0' >"$T/s2"
check "-q --summary unchanged by -Y" cmp -s "$T/s1" "$T/s2"
"$R" -r "$G/anomalies.pcap" --strict -Y 'not event' >/dev/null
check "--strict still exits 1 when -Y hides the error frames" test $? = 1
"$R" -r "$G/anomalies.pcap" -Y 'not event' >"$T/noev"
check "-Y 'not event' prints no frame with events" test -s "$T/noev" -a "$(grep -c ' \[' "$T/noev")" = 0

# -w writes only what -Y selects; it reads back to the same lines
"$R" -r "$X/rc_pingpong_loss.pcap" -Y 'event' -w "$T/ev.pcapng"
"$R" -r "$X/rc_pingpong_loss.pcap" -Y 'event' -t >"$T/ev.txt"
"$R" -r "$T/ev.pcapng" -t | sed 's/ \[.*//' >"$T/back.txt"
sed 's/ \[.*//' "$T/ev.txt" >"$T/ev0.txt"
check "-w writes only the frames -Y selects ($(wc -l <"$T/ev.txt"))" cmp -s "$T/ev0.txt" "$T/back.txt"

# errors: exit 2, the column named
err() {  # NAME EXPR REGEX
	"$R" -r "$G/rc_opcodes.pcap" -Y "$2" >/dev/null 2>"$T/err"
	local st=$?
	if [ $st = 2 ] && grep -Eq -- "$3" "$T/err"; then ok "$1"; else not_ok "$1" "exit $st" "$(cat "$T/err")"; fi
}
err "syntax error names the column" 'roce.dqpn == 0x11 and' 'invalid display filter \(-Y\): column 22: the expression ends early'
err "unknown field" 'roce.qpn == 1' 'column 1: unknown field or event .roce\.qpn.'
err "string compared as a number" 'roce.psn == "x"' 'column 13: roce.psn is a number'
err "an object is not compared" 'mac_control == 3' 'column 13: mac_control is an object'
err "-Y needs an argument" '' 'column 1: the filter is empty'

echo "1..$n"
[ "$failed" = 0 ]
