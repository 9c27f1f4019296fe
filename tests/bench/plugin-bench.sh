#!/usr/bin/env bash
# plugin-bench.sh: what the Wireshark plugin roce.so costs: `tshark -r F -q` on a 1,000,000-packet
# RoCE capture (gencaps --bench-small: SEND_ONLY/ACK over 1000 QPs) with the plugin and without
# it, side by side in one run: best wall-clock time of N interleaved runs each (default 3), and
# the peak RSS of each (GNU time). tshark runs as user 65534 with WIRESHARK_PLUGIN_DIR (as root
# it ignores plugin directories); "without" is an empty plugin directory.
#   tests/bench/plugin-bench.sh --plugin roce.so --gencaps GENCAPS [--packets N] [--runs N]
# Prints one line per variant and the plugin's cost in % of Wireshark alone (target <= 10 %).
# Exit status: 0 ran, 1 a program failed or is missing, 2 usage error.
set -u
export LC_ALL=C
plugin='' gencaps='' packets=1000000 runs=3
while [ $# -gt 0 ]; do
	case $1 in
	--plugin) plugin=$2; shift ;;
	--gencaps) gencaps=$2; shift ;;
	--packets) packets=$2; shift ;;
	--runs) runs=$2; shift ;;
	*) echo "plugin-bench: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ -f "$plugin" ] && [ -x "$gencaps" ] || { echo "plugin-bench: give --plugin and --gencaps" >&2; exit 2; }
command -v tshark >/dev/null || { echo "plugin-bench: no tshark" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "plugin-bench: no GNU time (/usr/bin/time)" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/with/4.0/epan" "$d/without"
cp "$plugin" "$d/with/4.0/epan/roce.so"
"$gencaps" --bench-small "$d/small.pcap" "$packets" 1000 >/dev/null || { echo "plugin-bench: gencaps failed" >&2; exit 1; }
chmod -R a+rX "$d"
run() {  # VARIANT: prints "seconds peak-KiB"
	local pre=()
	[ "$(id -u)" = 0 ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	/usr/bin/time -f '%e %M' -o "$d/$1.time" "${pre[@]}" env -i PATH=/usr/bin:/bin HOME="$d/$1" \
		WIRESHARK_PLUGIN_DIR="$d/$1" tshark -r "$d/small.pcap" -q >/dev/null 2>"$d/$1.err" ||
		{ echo "plugin-bench: tshark ($1) failed: $(tail -2 "$d/$1.err")" >&2; return 1; }
	cat "$d/$1.time"
}
best_with='' best_without='' rss_with=0 rss_without=0
for i in $(seq "$runs"); do
	for v in $( [ $((i % 2)) = 1 ] && echo with without || echo without with ); do
		out=$(run "$v") || exit 1
		read -r t m <<<"$out"
		if [ "$v" = with ]; then
			[ -z "$best_with" ] || awk "BEGIN{exit !($t < $best_with)}" && best_with=$t
			[ "$m" -gt "$rss_with" ] && rss_with=$m
		else
			[ -z "$best_without" ] || awk "BEGIN{exit !($t < $best_without)}" && best_without=$t
			[ "$m" -gt "$rss_without" ] && rss_without=$m
		fi
	done
done
echo "capture: $packets packets, $(stat -c %s "$d/small.pcap") bytes; best of $runs interleaved runs of tshark -r F -q"
printf 'tshark alone:       %8.2f s  peak RSS %7d KiB\n' "$best_without" "$rss_without"
printf 'tshark + roce.so:   %8.2f s  peak RSS %7d KiB\n' "$best_with" "$rss_with"
awk -v a="$best_without" -v b="$best_with" -v ra="$rss_without" -v rb="$rss_with" 'BEGIN {
	printf "plugin cost: %+.1f %% time (target <= 10 %%), %+d KiB (%+.1f %%) peak RSS\n", (b - a) * 100 / a, rb - ra, (rb - ra) * 100 / ra }'
