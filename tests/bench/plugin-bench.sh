#!/usr/bin/env bash
# plugin-bench.sh: what the Wireshark plugin roce.so costs: tshark on a 1,000,000-packet RoCE
# capture (gencaps --bench-small: SEND_ONLY/ACK over 1,000 QPs) with the plugin and without it,
# side by side in one run.
#
# Two measures:
#  - wall clock and CPU time (user + system) of `tshark -r F -q -z io,stat,0`, N pairs (default 5),
#    the two variants of a pair run back to back, which one goes first alternating from pair to
#    pair; the medians of each variant, the cost as the ratio of the medians and as the median of
#    the pairs' ratios, the load average around the runs, the peak RSS (GNU time). A tap makes
#    tshark dissect every frame, as Wireshark does when it opens a file: plain `tshark -r F -q`
#    does not dissect at all (with nothing to print, filter or tap, tshark only reads the
#    records), so it is timed once each to show that and is not the cost;
#  - instructions (callgrind), which the machine's load does not disturb (and, with --fixrand
#    FIXRAND.so, GLib's random numbers fixed by LD_PRELOAD: Wireshark seeds its hash maps with
#    them, which moves a frame's count by hundreds of instructions between runs): the same command on the
#    first C frames of the same traffic (default 20,000) and on its first C/2, with and without
#    the plugin. The difference of the two is C/2 frames in the steady state (every queue pair
#    already seen, as in nearly all of the 1,000,000), so a frame's instructions are that over
#    C/2, and what is left of the whole run is the fixed cost (start-up, registration).
# tshark runs as user 65534 with WIRESHARK_PLUGIN_DIR (as root it ignores plugin directories);
# "without" is an empty plugin directory.
#   tests/bench/plugin-bench.sh --plugin roce.so --gencaps GENCAPS [--packets N] [--runs N]
#       [--callgrind C] [--capture FILE] [--fixrand FIXRAND.so]
# --callgrind 0 skips the instruction count (as it does without valgrind); --capture uses FILE
# (made by gencaps --bench-small) instead of making one. The plugin's target: <= 10 % over
# Wireshark alone. Exit status: 0 ran, 1 a program failed or is missing, 2 usage error.
set -u
export LC_ALL=C
plugin='' gencaps='' packets=1000000 runs=5 cg_frames=20000 capture='' fixrand=''
while [ $# -gt 0 ]; do
	case $1 in
	--plugin) plugin=$2; shift ;;
	--gencaps) gencaps=$2; shift ;;
	--packets) packets=$2; shift ;;
	--runs) runs=$2; shift ;;
	--callgrind) cg_frames=$2; shift ;;
	--capture) capture=$2; shift ;;
	--fixrand) fixrand=$2; shift ;;
	*) echo "plugin-bench: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ -f "$plugin" ] && [ -x "$gencaps" ] || { echo "plugin-bench: give --plugin and --gencaps" >&2; exit 2; }
case $runs$cg_frames in *[!0-9]*) echo "plugin-bench: --runs and --callgrind take a number" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] || { echo "plugin-bench: --runs must be at least 1" >&2; exit 2; }
[ "$cg_frames" = 0 ] || [ "$cg_frames" -ge 4000 ] || { echo "plugin-bench: --callgrind takes 0 or at least 4000 frames" >&2; exit 2; }
command -v tshark >/dev/null || { echo "plugin-bench: no tshark" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "plugin-bench: no GNU time (/usr/bin/time)" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/with/4.0/epan" "$d/without"
cp "$plugin" "$d/with/4.0/epan/roce.so"
if [ -n "$capture" ]; then
	[ -r "$capture" ] || { echo "plugin-bench: cannot read $capture" >&2; exit 1; }
	cp "$capture" "$d/big.pcap"
else
	"$gencaps" --bench-small "$d/big.pcap" "$packets" 1000 >/dev/null || { echo "plugin-bench: gencaps failed" >&2; exit 1; }
fi
chmod -R a+rX "$d"
chmod a+w "$d"
frames=$(capinfos -Mc "$d/big.pcap" 2>/dev/null | awk '/Number of packets/ {print $NF}')
cat "$d/big.pcap" >/dev/null  # the page cache warm
pre=()
[ "$(id -u)" = 0 ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
envof() {  # VARIANT: the environment tshark runs in, as the plugin tests run it
	echo env -i PATH=/usr/bin:/bin HOME="$d/$1" WIRESHARK_PLUGIN_DIR="$d/$1"
}
timed() {  # VARIANT ARGS...: prints "wall cpu peak-KiB"
	local v=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$d/$v.time" "${pre[@]}" $(envof "$v") tshark -r "$d/big.pcap" "$@" \
		>/dev/null 2>"$d/$v.err" || { echo "plugin-bench: tshark ($v) failed: $(tail -2 "$d/$v.err")" >&2; return 1; }
	awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$d/$v.time"
}
median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
load() { cut -d' ' -f1 /proc/loadavg; }

# tshark -r F -q alone: no dissection
for v in without with; do
	read -r w c m <<<"$(timed "$v" -q)" || exit 1
	eval "plain_$v='$w s wall, $c s CPU'"
done

: >"$d/pairs"
load_before=$(load)
for i in $(seq "$runs"); do
	l0=$(load)
	for v in $( [ $((i % 2)) = 1 ] && echo with without || echo without with ); do
		out=$(timed "$v" -q -z io,stat,0) || exit 1
		eval "r_$v='$out'"
	done
	read -r ww cw mw <<<"$r_with"
	read -r wo co mo <<<"$r_without"
	l1=$(load)
	echo "$wo $ww $co $cw $mo $mw $l0 $l1" >>"$d/pairs"
	printf 'pair %d: without %6.2f s wall %6.2f s CPU, with %6.2f s wall %6.2f s CPU, load %s -> %s\n' \
		"$i" "$wo" "$co" "$ww" "$cw" "$l0" "$l1"
done
load_after=$(load)
col() { awk -v c="$1" '{print $c}' "$d/pairs" | median; }
wall_o=$(col 1) wall_w=$(col 2) cpu_o=$(col 3) cpu_w=$(col 4)
rss_o=$(awk '$5 > m {m = $5} END {print m}' "$d/pairs") rss_w=$(awk '$6 > m {m = $6} END {print m}' "$d/pairs")
pair_wall=$(awk '{print ($2 - $1) * 100 / $1}' "$d/pairs" | median)
pair_cpu=$(awk '{print ($4 - $3) * 100 / $3}' "$d/pairs" | median)
loads=$(awk '{print $7; print $8}' "$d/pairs" | sort -g | awk '{v[NR] = $1} END {printf "%s to %s", v[1], v[NR]}')

echo
echo "capture: $frames frames, $(stat -c %s "$d/big.pcap") bytes; $runs pairs of tshark -r F -q -z io,stat,0; load average $loads (1 min; $load_before before, $load_after after)"
echo "tshark -r F -q (no dissection): without $plain_without; with $plain_with"
printf '%-20s %9s %9s %12s\n' '' 'wall' 'CPU' 'peak RSS'
printf '%-20s %8.2fs %8.2fs %9d KiB\n' 'tshark alone' "$wall_o" "$cpu_o" "$rss_o"
printf '%-20s %8.2fs %8.2fs %9d KiB\n' 'tshark + roce.so' "$wall_w" "$cpu_w" "$rss_w"
awk -v a="$wall_o" -v b="$wall_w" -v ca="$cpu_o" -v cb="$cpu_w" -v pw="$pair_wall" -v pc="$pair_cpu" \
	-v ra="$rss_o" -v rb="$rss_w" 'BEGIN {
	printf "plugin cost (medians): %+.1f %% wall, %+.1f %% CPU; median of the pairs: %+.1f %% wall, %+.1f %% CPU (target <= 10 %%)\n",
		(b - a) * 100 / a, (cb - ca) * 100 / ca, pw, pc
	printf "memory: %+d KiB (%+.1f %%) peak RSS\n", rb - ra, (rb - ra) * 100 / ra }'

# instructions
if [ "$cg_frames" = 0 ]; then
	exit 0
fi
if ! command -v valgrind >/dev/null; then
	echo "callgrind: no valgrind, skipped"
	exit 0
fi
"$gencaps" --bench-small "$d/cg.pcap" "$cg_frames" 1000 >/dev/null &&
	"$gencaps" --bench-small "$d/cg0.pcap" $((cg_frames / 2)) 1000 >/dev/null || { echo "plugin-bench: gencaps failed" >&2; exit 1; }
chmod a+r "$d"/cg*.pcap
if [ -n "$fixrand" ]; then
	[ -r "$fixrand" ] || { echo "plugin-bench: cannot read $fixrand" >&2; exit 1; }
	cp "$fixrand" "$d/fixrand.so" && chmod a+r "$d/fixrand.so"
fi
ir() {  # VARIANT CAPTURE: the instructions callgrind counted
	"${pre[@]}" $(envof "$1") ${fixrand:+LD_PRELOAD=$d/fixrand.so} valgrind --tool=callgrind --callgrind-out-file="$d/cg.out" tshark -r "$2" -q -z io,stat,0 \
		>/dev/null 2>"$d/cg.err" &&
		grep -o 'Collected : [0-9]*' "$d/cg.err" | awk '{print $3}' | grep . ||
		{ echo "plugin-bench: callgrind ($1) failed: $(tail -2 "$d/cg.err")" >&2; return 1; }
}
for v in without with; do
	n=$(ir "$v" "$d/cg.pcap") && n0=$(ir "$v" "$d/cg0.pcap") || exit 1
	eval "ir_$v=$n ir0_$v=$n0"
done
echo
echo "callgrind, tshark -r F -q -z io,stat,0 on $cg_frames frames of the same traffic (instructions):"
awk -v n="$cg_frames" -v h=$((cg_frames / 2)) -v o="$ir_without" -v w="$ir_with" -v o0="$ir0_without" -v w0="$ir0_with" 'BEGIN {
	fo = (o - o0) / (n - h); fw = (w - w0) / (n - h); so = o - n * fo; sw = w - n * fw
	printf "%-20s %14s %14s %12s\n", "", "whole run", "fixed", "a frame"
	printf "%-20s %14d %14.0f %12.0f\n", "tshark alone", o, so, fo
	printf "%-20s %14d %14.0f %12.0f\n", "tshark + roce.so", w, sw, fw
	printf "plugin cost: %+.1f %% of a frame'"'"'s instructions (%+.0f a frame), %+.1f %% of the whole run, %+.0f fixed\n",
		(fw - fo) * 100 / fo, fw - fo, (w - o) * 100 / o, sw - so }'
