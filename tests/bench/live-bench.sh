#!/usr/bin/env bash
# live-bench.sh: live capture on a veth pair, rocedump next to tcpdump (root; not a test).
#
#   tests/bench/live-bench.sh [--rocedump P] [--gencaps P] [--packets N] [--rates "R ..."]
#                             [--repeat K] [--buffers "KiB ..."] [--tools "T ..."] [--no-buffers]
#
# Two network namespaces of its own (rocedump-livb-PID-a and -b, removed on every way out) joined by
# a veth pair (livb0a, livb0b, IPv6 off); gencaps makes N small RoCE packets (SEND_ONLY/ACK over
# 1,000 QPs; default 1,000,000), tcpreplay --preload-pcap sends them into livb0a at each rate of
# --rates (packets per second, or "top" for --topspeed; default "100000 200000 400000 top"), and
# each capturing program runs on livb0b with a 256 MiB ring (-B 262144), --repeat times (default
# 3), the programs interleaved:
#   rocedump -q            rocedump -i livb0b -q (its default: 2 threads on 2 CPUs)
#   rocedump-json          rocedump -i livb0b -T json >/dev/null
#   (rocedump-q1, rocedump-json1: the same on one thread, --threads 1)
#   tcpdump-w              tcpdump -i livb0b -w /dev/null
#   tcpdump-n              tcpdump -n -i livb0b >/dev/null
# For each: the rate tcpreplay reached, the packets the program captured, the kernel's drops (its
# own "dropped by kernel" line) and its CPU seconds (user + system, GNU time) per million packets
# captured. Then, at top speed, the smallest -B (of --buffers, KiB; default 1024 ... 262144) at
# which each program has zero drops (one run per size, going up until a run has none).
# The machine's other load shows in the figures: run it when the machine is quiet, and repeat.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
rocedump=$build/analyzer/rocedump/rocedump gencaps=$build/tests/gencaps
packets=1000000 rates="100000 200000 400000 top" repeat=3 buffers="1024 2048 4096 8192 16384 32768 65536 131072 262144"
tools="rocedump-q rocedump-json tcpdump-w tcpdump-n" do_buffers=1
while [ $# -gt 0 ]; do
	case $1 in
	--rocedump) rocedump=$2; shift ;;
	--gencaps) gencaps=$2; shift ;;
	--packets) packets=$2; shift ;;
	--rates) rates=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--buffers) buffers=$2; shift ;;
	--tools) tools=$2; shift ;;
	--no-buffers) do_buffers=0 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "live-bench: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "live-bench: needs root" >&2; exit 1; }
NA=rocedump-livb-$$-a NB=rocedump-livb-$$-b
D=$(mktemp -d)
cleanup() {
	for j in $(jobs -p); do kill -KILL "$j" 2>/dev/null; done  # a capture or replay still running
	wait 2>/dev/null
	ip netns del $NA 2>/dev/null; ip netns del $NB 2>/dev/null; rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ip netns add $NA && ip netns add $NB || exit 1
for ns in $NA $NB; do ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; done
ip netns exec $NA ip link add livb0a type veth peer name livb0b netns $NB
ip netns exec $NA ip link set livb0a up
ip netns exec $NB ip link set livb0b up
cap=$D/small.pcap
"$gencaps" --bench-small "$cap" "$packets" 1000 >/dev/null || exit 1

# run TOOL RATE BUFFER_KIB: one capture of the replay; prints "pps captured drops cpu_s".
run() {
	local tool=$1 rate=$2 kib=$3 cmd out=/dev/null
	case $tool in
	rocedump-q) cmd=("$rocedump" -i livb0b -B "$kib" -q); out=$D/q.out ;;
	rocedump-q1) cmd=("$rocedump" -i livb0b -B "$kib" -q --threads 1); out=$D/q.out ;;
	rocedump-json) cmd=("$rocedump" -i livb0b -B "$kib" -T json) ;;
	rocedump-json1) cmd=("$rocedump" -i livb0b -B "$kib" -T json --threads 1) ;;
	tcpdump-w) cmd=(tcpdump -i livb0b -B "$kib" -w /dev/null) ;;
	tcpdump-n) cmd=(tcpdump -n -i livb0b -B "$kib") ;;
	esac
	: >"$D/err"
	ip netns exec $NB /usr/bin/time -f '%U %S' -o "$D/time" "${cmd[@]}" >"$out" 2>"$D/err" &
	local tpid=$! pid=
	for _ in $(seq 200); do grep -q 'listening on' "$D/err" && break; sleep 0.05; done
	sleep 0.5  # a fresh ring settles (see tests/live/test-live.sh)
	pid=$(pgrep -P "$tpid" | head -1)
	local speed=(--pps="$rate")
	[ "$rate" = top ] && speed=(--topspeed)
	ip netns exec $NA tcpreplay --preload-pcap -q -i livb0a "${speed[@]}" "$cap" >"$D/replay" 2>&1
	# let the program catch up with its ring: until its CPU time stops growing
	local last=-1 now
	for _ in $(seq 120); do
		sleep 0.5
		now=$(awk '{print $14 + $15}' /proc/"$pid"/stat 2>/dev/null || echo gone)
		[ "$now" = "$last" ] && break
		last=$now
	done
	kill -INT "$pid" 2>/dev/null
	wait "$tpid"
	local pps captured drops cpu
	pps=$(grep -o 'Rated: [0-9.]* Bps, [0-9.]* Mbps, [0-9.]* pps' "$D/replay" | awk '{print $(NF-1)}')
	captured=$(awk '/packets captured/ {print $1}' "$D/err")
	drops=$(awk '/dropped by kernel/ {print $1}' "$D/err")
	cpu=$(awk '{print $1 + $2}' "$D/time")
	echo "${pps:-?} ${captured:-?} ${drops:-?} $cpu"
}

echo "live-bench: $packets packets of $(($(stat -c %s "$cap") / packets)) bytes on average; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "live-bench: rocedump $("$rocedump" --version | head -1), $(tcpdump --version 2>&1 | head -1), $(tcpreplay --version 2>&1 | head -1)"
printf '%-14s %-8s %4s %10s %10s %9s %8s %12s\n' tool rate run pps captured drops cpu_s cpu_s/Mpkt
for rate in $rates; do
	for r in $(seq "$repeat"); do
		for tool in $tools; do
			read -r pps captured drops cpu < <(run "$tool" "$rate" 262144)
			per=$(awk -v c="$cpu" -v n="$captured" 'BEGIN {if (n > 0) printf "%.2f", c / n * 1e6; else print "-"}')
			printf '%-14s %-8s %4s %10s %10s %9s %8s %12s\n' "$tool" "$rate" "$r" "$pps" "$captured" "$drops" "$cpu" "$per"
		done
	done
done
[ "$do_buffers" = 1 ] || exit 0
echo "live-bench: the smallest -B (KiB) with zero drops at top speed, one run per size"
for tool in $tools; do
	found=none
	for kib in $buffers; do
		read -r pps captured drops cpu < <(run "$tool" top "$kib")
		echo "  $tool -B $kib: $pps pps, captured $captured, dropped $drops, cpu $cpu s"
		if [ "$drops" = 0 ]; then found=$kib; break; fi
	done
	echo "$tool: smallest -B with zero drops: $found"
done
