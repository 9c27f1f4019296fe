#!/bin/bash
# test-habits.sh: the habits tcpdump and tshark users bring, checked against the real tools.
#   - Option order as tcpdump on Linux (glibc's getopt permutes: options after the filter
#     expression are options; "--" ends the options; POSIXLY_CORRECT stops at the first word that
#     is not an option): every command line below is given to tcpdump and to rocedump, which must
#     both succeed or both fail, and when they succeed print as many lines.
#   - Frame numbers as the file has them: with a BPF filter, and with -c, JSON "frame" is tshark's
#     frame.number of the same frames (the filter's rejects counted), on one thread and on three
#     taking two frames at a time; -# counts after the filter, as tcpdump's -# does.
# TAP output; a reference tool that is not installed skips its tests.
#   test-habits.sh ROCEDUMP CAPTURES_DIR
set -u
R=$1 CAPS=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"

TCPDUMP=$(command -v tcpdump || true)
TSHARK=$(command -v tshark || true)
F=$CAPS/gen/rc_opcodes.pcap

# like_tcpdump ENV-ASSIGNMENT|- ARGS...: the same verdict and line count as tcpdump -n ARGS.
# Every command line here has -r: tcpdump without one would capture live.
like_tcpdump() {
	local envset=$1; shift
	local name="as tcpdump: ${envset#-} rocedump $*"
	name=${name//$CAPS\//}
	if [ -z "$TCPDUMP" ]; then skip "$name" "tcpdump not installed"; return; fi
	local e=()
	[ "$envset" != - ] && e=("$envset")
	env "${e[@]}" "$TCPDUMP" -n "$@" >"$T/td.out" 2>"$T/td.err" </dev/null
	local td=$?
	env "${e[@]}" "$R" "$@" >"$T/rd.out" 2>"$T/rd.err" </dev/null
	local rd=$?
	local tdl rdl
	tdl=$(wc -l <"$T/td.out") rdl=$(wc -l <"$T/rd.out")
	if { [ "$td" = 0 ] && [ "$rd" = 0 ] && [ "$tdl" = "$rdl" ] && [ "$tdl" -gt 0 ]; } ||
	   { [ "$td" != 0 ] && [ "$rd" = 2 ] && [ "$rdl" = 0 ]; }; then
		ok "$name (exit $rd, $rdl lines)"
	else
		not_ok "$name" "tcpdump: exit $td, $tdl lines: $(head -c 200 "$T/td.err")" \
			"rocedump: exit $rd, $rdl lines: $(head -c 200 "$T/rd.err")"
	fi
}

like_tcpdump - -r "$F" 'udp port 4791' -c 1
like_tcpdump - 'udp port 4791' -r "$F" -c 1
like_tcpdump - -r "$F" -c 2 udp port 4791
like_tcpdump - -r "$F" udp -c 2 port 4791
like_tcpdump - udp -r "$F" port 4791 -c2
like_tcpdump - -r "$F" -c 1 -- udp port 4791
like_tcpdump - -r "$F" udp -- port 4791
like_tcpdump - -r "$F" -- -c 1
like_tcpdump - -r "$F" -- udp port 4791 -c 1
like_tcpdump - -r "$F" -c 3 --
like_tcpdump POSIXLY_CORRECT=1 -r "$F" 'udp port 4791' -c 1
like_tcpdump POSIXLY_CORRECT=1 -r "$F" -c 1 udp port 4791
like_tcpdump POSIXLY_CORRECT=1 -r "$F" -c 1 -- udp port 4791
like_tcpdump POSIXLY_CORRECT=1 -r "$F" udp -- port 4791

# The filter after the options is the same filter: the same output as with it last.
"$R" -r "$F" -c 3 -T json 'udp dst port 4791 and len > 200' >"$T/last" 2>&1
"$R" 'udp dst port 4791 and len > 200' -T json -r "$F" -c 3 >"$T/first" 2>&1
cmp -s "$T/last" "$T/first" && [ "$(wc -l <"$T/last")" = 3 ] &&
	ok "the filter first or last: the same three frames" ||
	not_ok "the filter first or last: the same three frames" "$(diff "$T/last" "$T/first" | head -4)"

# json_frames ARGS...: the "frame" numbers of rocedump -T json ARGS, one line
json_frames() {
	"$R" -T json "$@" 2>/dev/null | sed -n 's/^{"frame":\([0-9]*\),.*/\1/p' | tr '\n' ' '
}

# frames_like_tshark CAPTURE BPF DISPLAY-FILTER [COUNT]: JSON frame numbers equal tshark's, taken
# in time order; -c counts in that order.
frames_like_tshark() {
	local cap=$1 bpf=$2 df=$3 count=${4:-}
	local name="frame numbers as tshark's: ${cap#"$CAPS"/} '$bpf'${count:+ -c $count}"
	if [ -z "$TSHARK" ]; then skip "$name" "tshark not installed"; return; fi
	local want got3 got1 copt=()
	# in time order (stable: of equal times the file's order), as rocedump analyses a pcapng of
	# several interfaces (docs/reading-files.md); a file in time order keeps its order
	want=$("$TSHARK" -r "$cap" -Y "$df" -T fields -e frame.number -e frame.time_epoch 2>/dev/null |
		LC_ALL=C sort -s -t"$(printf '\t')" -k2,2n | cut -f1 | tr '\n' ' ')
	if [ -n "$count" ]; then
		copt=(-c "$count")
		want=$(echo "$want" | tr ' ' '\n' | head -n "$count" | tr '\n' ' ')
	fi
	got1=$(json_frames --threads 1 -r "$cap" "${copt[@]}" "$bpf")
	got3=$(json_frames --threads 3 --batch 2 -r "$cap" "${copt[@]}" "$bpf")
	if [ -n "$want" ] && [ "$want" = "$got1" ] && [ "$want" = "$got3" ]; then
		ok "$name ($(echo "$want" | wc -w) frames)"
	else
		not_ok "$name" "tshark:    ${want:0:200}" "1 thread:  ${got1:0:200}" "3 threads: ${got3:0:200}"
	fi
}

for cap in "$CAPS/rxe/rc_pingpong_loss.pcap" "$CAPS/rxe/host-taps.pcapng" "$F"; do
	frames_like_tshark "$cap" 'udp dst port 4791 and len > 200' 'udp.dstport == 4791 && frame.len > 200'
	frames_like_tshark "$cap" 'ip[2:2] < 100' 'ip.len < 100' 7
done
frames_like_tshark "$CAPS/rxe/read_bw.pcap" 'greater 1000' 'frame.len >= 1000'
frames_like_tshark "$CAPS/rxe/read_bw.pcap" 'greater 1000' 'frame.len >= 1000' 4
frames_like_tshark "$CAPS/rxe/v6_rc_pingpong.pcap" 'ip6 and less 100' 'ipv6 && frame.len <= 100'

# -# counts the frames printed, as tcpdump's: its numbers next to tcpdump's, the same lines.
name="-# with a filter counts as tcpdump's -#"
if [ -z "$TCPDUMP" ]; then skip "$name" "tcpdump not installed"
else
	cap=$CAPS/rxe/rc_pingpong_loss.pcap
	want=$("$TCPDUMP" -n -# -r "$cap" 'ip[2:2] < 100' 2>/dev/null | awk '{print $1, $2}')
	got=$("$R" -# -r "$cap" 'ip[2:2] < 100' 2>/dev/null | awk '{print $1, $2}')
	[ -n "$want" ] && [ "$want" = "$got" ] && ok "$name ($(echo "$want" | wc -l) lines)" ||
		not_ok "$name" "$(diff <(echo "$want") <(echo "$got") | head -4)"
fi

echo "1..$n"
[ "$failed" = 0 ]
