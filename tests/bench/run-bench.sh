#!/usr/bin/env bash
# run-bench.sh: time rocedump against the floors (tests/bench/barefloor.c, floor.c) and against
# tshark/tcpdump.
#
#   tests/bench/run-bench.sh [--build DIR] [--rocedump P] [--gencaps P] [--floor P] [--barefloor P]
#                            [--small-packets N] [--mtu-bytes N] [--qps Q] [--runs N] [--tool-runs N]
#                            [--scale-runs N] [--scale 'QPS:PACKETS ...'] [--no-scale] [--no-tools]
#                            [--dir DIR] [--keep]
#
# Generates three captures with gencaps (small: N SEND_ONLY/ACK packets, default 1,000,000, over Q
# QPs, default 1000, between two hosts; hosts: as many packets and QPs between many hosts, ~1,500
# address pairs in any 100,000 frames, in near-random order, as on a mirror port; mtu: 4 KiB WRITE
# packets, ~1 GB), reads each once to warm the page cache, then times, in --runs rounds (default
# 11) with the programs interleaved (the order flipping each round), wall clock:
#   barefloor FILE          the bare floor, the PASS/FAIL reference: one thread, read() into a
#                           1 MiB buffer, each record's headers walked as far as the ICRC's span
#                           needs, every ICRC checked with ISA-L (barefloor.c)
#   barefloor -m FILE       the same mapping the file instead of read(): no kernel copy,
#                           as rocedump reads a plain pcap file                         INFO
#   floor -D FILE           a bare loop reading with libpcap's defaults (floor.c)       INFO
#   floor FILE              the same with libpcap at its best (1 MiB stdio buffer, no lock) INFO
#   floor -R FILE           the same reading the records as rocedump does (pcapread.c)  INFO
#   rocedump -q -r FILE     must reach >= 90% of the bare floor's speed by the median of the
#                           rounds (PASS/FAIL); on two threads when the machine has two CPUs
#   rocedump --threads 1 -q -r FILE   the same on one thread, for comparison
#   rocedump -q -r FILE.pcapng  the many-host capture written as pcapng (as dumpcap writes it), its
#                           own rounds: its speed against the same capture as pcap   INFO
#   rocedump -q -r - <FILE  the many-host capture from standard input, which libpcap reads (its
#                           frames copied into the batches), its own rounds: its speed against
#                           the file's                                               INFO
# The two-core ceiling (with two CPUs and taskset), on the many-host file cut into two halves of
# records (barefloor -h), --runs rounds, interleaved with the bare floor, rocedump -q and rocedump
# --threads 1 on the whole file:
#   barefloor on both halves at once, one pinned to each CPU    what a second core gives the floor's
#                                                               own work here                 INFO
#   rocedump --threads 1 -q on both halves at once, likewise     rocedump sharded at its best (no
#                                                               byte crosses between the cores), and
#                                                               the one-thread time 0.9 of the bare
#                                                               floor would need even so       INFO
# Scale (unless --no-scale): the many-host capture at each QPS:PACKETS of --scale (default
# '100000:2000000 1000000:4000000'), --scale-runs rounds (default 3) of the bare floor and
# rocedump -q: seconds, ns a frame, the ratio to the bare floor (target: within 2.5x, PASS/FAIL),
# peak RSS, streams, and bytes a stream (the RSS above the 1 k-QP many-host run's, over the
# streams above its; target <= 160, PASS/FAIL).
# And on the small file only, best of --tool-runs (default 3), interleaved:
#   rocedump -r F >/dev/null, rocedump -T json -r F >/dev/null,
#   tcpdump -nr F >/dev/null (rocedump text should be faster: PASS/FAIL),
#   tshark -r F -T fields -e infiniband.bth.psn >/dev/null (skipped when not installed).
# Peak RSS comes from one extra run of each under /usr/bin/time (GNU time), "n/a" without it.
# The floors' ICRC good counts must equal rocedump's (PASS/FAIL), and rocedump's peak RSS on the
# ~1 GB file must stay within 1.5x (+1 MiB) of its RSS on the small file (PASS/FAIL).
#
# Captures go into --dir (created if missing; captures already there with the same parameters are
# reused) or a fresh mktemp directory under $TMPDIR (default /tmp); the captures are deleted at the
# end unless --keep. Needs ~1.8 GB of free space there (~1.2 GB with --no-scale). Exit status: 0
# when everything ran (whatever PASS/FAIL says), 1 when a program failed or was missing, 2 on a
# usage error.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
rocedump='' gencaps='' floor='' barefloor=''
small_n=1000000 mtu_bytes=1000000000 qps=1000 runs=11 tool_runs=3 tools=1 dir='' keep=0
scale='100000:2000000 1000000:4000000' scale_runs=3

me=run-bench
# shellcheck source-path=SCRIPTDIR source=benchlib.sh
. "$here/benchlib.sh"

while [ $# -gt 0 ]; do
	common_arg "$@"
	if [ "$took" -gt 0 ]; then shift "$took"; continue; fi
	case $1 in
	--floor) need_arg "$@"; floor=$2; shift ;;
	--barefloor) need_arg "$@"; barefloor=$2; shift ;;
	--small-packets) need_arg "$@"; small_n=$2; shift ;;
	--mtu-bytes) need_arg "$@"; mtu_bytes=$2; shift ;;
	--qps) need_arg "$@"; qps=$2; shift ;;
	--runs) need_arg "$@"; runs=$2; shift ;;
	--tool-runs) need_arg "$@"; tool_runs=$2; shift ;;
	--scale-runs) need_arg "$@"; scale_runs=$2; shift ;;
	--scale) need_arg "$@"; scale=$2; shift ;;
	--no-scale) scale='' ;;
	--no-tools) tools=0 ;;
	*) unknown_arg "$1" ;;
	esac
	shift
done
check_uints small_n mtu_bytes qps runs tool_runs scale_runs
for sc in $scale; do
	is_uint "${sc%%:*}" && is_uint "${sc#*:}" && [ "${sc%%:*}" != "$sc" ] ||
		{ echo "run-bench: bad --scale entry: $sc (QPS:PACKETS)" >&2; exit 2; }
done
rocedump=${rocedump:-$build/analyzer/rocedump/rocedump}
gencaps=${gencaps:-$build/tests/gencaps}
floor=${floor:-$build/tests/bench/floor}
barefloor=${barefloor:-$build/tests/bench/barefloor}
need_programs --rocedump/--gencaps/--floor/--barefloor "$rocedump" "$gencaps" "$floor" "$barefloor"
bench_dirs rocedump-bench
small=$dir/bench-small-$small_n-$qps.pcap
hosts=$dir/bench-hosts-$small_n-$qps.pcap
hostsng=$dir/bench-hosts-$small_n-$qps.pcapng
mtu=$dir/bench-mtu-$mtu_bytes-$qps.pcap
declare -A scale_file
for sc in $scale; do scale_file[$sc]=$dir/bench-hosts-${sc#*:}-${sc%%:*}.pcap; done
all_files=("$small" "$hosts" "$hostsng" "$mtu" "${scale_file[@]}")
trap 'bench_cleanup "${all_files[@]}"' EXIT
trap 'exit 1' INT TERM

# ---- captures ----
make_cap "$small" --bench-small "$small_n" "$qps"
make_cap "$hosts" --bench-hosts "$small_n" "$qps"
make_cap "$hostsng" --bench-hosts-ng "$small_n" "$qps"
make_cap "$mtu" --bench-mtu "$mtu_bytes" "$qps"
for sc in $scale; do make_cap "${scale_file[$sc]}" --bench-hosts "${sc#*:}" "${sc%%:*}"; done
cat "${all_files[@]}" >/dev/null  # warm the page cache

# ---- timing ----
declare -A pkts streams

# The programs timed on each file, in the order of a round (reversed every other round).
progs=(bare mapped floor tuned same q q1)
run_prog() {  # run_prog PROG LABEL FILE (MODE: time, or rss)
	local p=$1 f=$2 file=$3 mode=${4:-time} key="$1 $2" cmd
	case $p in
	bare) cmd=("$barefloor" "$file") ;;
	mapped) cmd=("$barefloor" -m "$file") ;;
	floor) cmd=("$floor" -D "$file") ;;
	tuned) cmd=("$floor" "$file") ;;
	same) cmd=("$floor" -R "$file") ;;
	q) cmd=("$rocedump" -q -r "$file") ;;
	q1) cmd=("$rocedump" --threads 1 -q -r "$file") ;;
	qin) cmd=(sh -c 'exec "$1" -q -r - <"$2"' sh "$rocedump" "$file") ;;
	bare2) cmd=(on_two_cores "$barefloor") ;;
	q1x2) cmd=(on_two_cores "$rocedump" --threads 1 -q -r) ;;
	esac
	case $p in bare2 | q1x2) [ "$mode" = rss ] && return ;; esac  # two processes: no one RSS
	if [ "$mode" = rss ]; then
		peak_rss "$key" "${cmd[@]}"
	else
		seconds "$key" "$work/$p.$f" "${cmd[@]}"
	fi
}
rounds() {  # rounds LABEL FILE N PROG...
	local f=$1 file=$2 n=$3 i p
	shift 3
	local order=("$@") rev=()
	for ((i = ${#order[@]} - 1; i >= 0; i--)); do rev+=("${order[i]}"); done
	for p in "${order[@]}"; do run_prog "$p" "$f" "$file" rss; done
	for ((i = 0; i < n; i++)); do
		if ((i % 2 == 0)); then
			for p in "${order[@]}"; do run_prog "$p" "$f" "$file"; done
		else
			for p in "${rev[@]}"; do run_prog "$p" "$f" "$file"; done
		fi
	done
}
# on_two_cores CMD...: CMD on each half of the many-host file at once, one on each of the first two
# CPUs, sharing nothing (the halves: $work/half1.pcap, $work/half2.pcap); both outputs, one after the
# other. What two cores give here when no byte crosses between them.
on_two_cores() {
	local rc1=0 rc2=0
	taskset -c 0 "$@" "$work/half1.pcap" >"$work/half1.out" &
	taskset -c 1 "$@" "$work/half2.pcap" >"$work/half2.out" || rc2=$?
	wait $! || rc1=$?
	cat "$work/half1.out" "$work/half2.out"
	return $((rc1 || rc2))
}
# floor: frames N bytes N roce N good N bad N other N
floor_good() { read -r _ _ _ _ _ _ _ _ g _ <"$1"; echo "$g"; }
floor_frames() { read -r _ _ n _ <"$1"; echo "$n"; }
q_good() { sed -n 's/^ICRC: good \([0-9]*\),.*/\1/p' "$1"; }
q_frames() { sed -n '1s/^\([0-9]*\) frames.*/\1/p' "$1"; }
# the same over several outputs one after the other: the frames and good ICRCs, and the frames
floor_sums() { awk '{ f += $3; g += $9 } END { print f, g }' "$1"; }
q_frames_sum() { sed -n 's/^\([0-9]*\) frames.*/\1/p' "$1" | awk '{ n += $1 } END { print n }'; }
q_streams() { sed -n 's/^streams: \([0-9]*\).*/\1/p' "$1"; }

declare -A size good
for f in small hosts mtu; do
	file=${!f}
	size[$f]=$(stat -c %s "$file")
	rounds "$f" "$file" "$runs" "${progs[@]}"
	cmp -s "$work/q.$f" "$work/q1.$f" || die "rocedump -q on one thread and on several differ on $f"
	for p in mapped floor tuned same; do
		cmp -s "$work/bare.$f" "$work/$p.$f" || die "the bare floor and $p differ on $f"
	done
	fr=$(floor_frames "$work/bare.$f")
	for p in bare mapped floor tuned same; do pkts[$p $f]=$fr; done
	pkts[q $f]=$(q_frames "$work/q.$f")
	pkts[q1 $f]=${pkts[q $f]}
	streams[$f]=$(q_streams "$work/q.$f")
	good[$f]="$(floor_good "$work/bare.$f") $(q_good "$work/q.$f")"
done
# The two-core ceiling: the many-host file cut in two halves of records (barefloor -h), the bare
# floor and rocedump on one thread run on both halves at once, each on a core of its own, beside
# the bare floor, rocedump -q and rocedump on one thread on the whole file, interleaved.
ceiling=0
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	ceiling=1
	read -r _ half_at _ < <("$barefloor" -h "$hosts") || die "barefloor -h failed on $hosts"
	head -c "$half_at" "$hosts" >"$work/half1.pcap"
	{ head -c 24 "$hosts"; tail -c +"$((half_at + 1))" "$hosts"; } >"$work/half2.pcap"
	rounds ceil "$hosts" "$runs" bare bare2 q q1 q1x2
	[ "$(floor_sums "$work/bare2.ceil")" = "$(floor_sums "$work/bare.ceil")" ] ||
		die "the bare floor on the halves of $hosts does not count its frames"
	[ "$(q_frames_sum "$work/q1x2.ceil")" = "$(q_frames "$work/q.ceil")" ] ||
		die "rocedump on the halves of $hosts does not count its frames"
fi
size[hostsng]=$(stat -c %s "$hostsng")
rounds hostsng "$hostsng" "$runs" q
cmp -s <(sed 's/capture drops: .*//' "$work/q.hosts") <(sed 's/capture drops: .*//' "$work/q.hostsng") ||
	die "rocedump -q on the many-host file as pcap and as pcapng differ (beyond the capture drops)"
pkts[q hostsng]=$(q_frames "$work/q.hostsng")
size[stdin]=${size[hosts]}
rounds stdin "$hosts" "$runs" qin
cmp -s "$work/q.hosts" "$work/qin.stdin" || die "rocedump -q on the many-host file and on it from standard input differ"
pkts[qin stdin]=$(q_frames "$work/qin.stdin")
for sc in $scale; do
	f=scale-$sc file=${scale_file[$sc]}
	size[$f]=$(stat -c %s "$file")
	rounds "$f" "$file" "$scale_runs" bare q
	pkts[bare $f]=$(floor_frames "$work/bare.$f")
	pkts[q $f]=$(q_frames "$work/q.$f")
	streams[$f]=$(q_streams "$work/q.$f")
	good[$f]="$(floor_good "$work/bare.$f") $(q_good "$work/q.$f")"
done

have() { command -v "$1" >/dev/null 2>&1; }
tool_keys=("rocedump text small" "rocedump json small")
if [ "$tools" = 1 ]; then
	have tcpdump && tool_keys+=("tcpdump -nr small") || echo "note: tcpdump not installed, skipped"
	have tshark && tool_keys+=("tshark small") || echo "note: tshark not installed, skipped"
fi
run_tool() {  # run_tool KEY MODE: MODE time or rss
	local how=seconds
	[ "$2" = rss ] && how=peak_rss
	local out=()
	[ "$how" = seconds ] && out=(/dev/null)
	case $1 in
	"rocedump text small") $how "$1" "${out[@]}" "$rocedump" -r "$small" ;;
	"rocedump json small") $how "$1" "${out[@]}" "$rocedump" -T json -r "$small" ;;
	"tcpdump -nr small") $how "$1" "${out[@]}" tcpdump -nr "$small" ;;
	"tshark small") $how "$1" "${out[@]}" tshark -r "$small" -T fields -e infiniband.bth.psn ;;
	esac
	pkts[$1]=$small_n
}
for k in "${tool_keys[@]}"; do run_tool "$k" rss; done
for ((i = 0; i < tool_runs; i++)); do
	for k in "${tool_keys[@]}"; do run_tool "$k" time; done
done

# ---- report ----
name_of() {
	case $1 in
	bare) echo "barefloor" ;; mapped) echo "mapped bare floor" ;; floor) echo "floor -D" ;;
	tuned) echo "tuned floor" ;;
	same) echo "same-I/O floor" ;; q) echo "rocedump -q" ;; q1) echo "rocedump -q --threads 1" ;;
	qin) echo "rocedump -q -r - <file" ;;
	*) echo "${1% small}" ;;
	esac
}
fmt_row() {  # fmt_row KEY FILE-LABEL [BARE-LABEL]: a row of the table (medians; the bare floor's median, on
	# BARE-LABEL's file when given, is 1.000)
	local key=$1 f=$2 p=${1%% *} name bare_f=${3:-$2}
	case " ${progs[*]} qin " in
	*" $p "*) name=$(name_of "$p") ;;
	*) name=${key% small} ;;
	esac
	awk -v prog="$name" -v file="$f" -v n="${pkts[$key]}" -v t="$(stat_of "$key" median)" \
		-v b="$(stat_of "$key" best)" -v sz="${size[$f]}" -v bt="$(stat_of "bare $bare_f" median)" \
		-v rss="${rss[$key]:-}" -v cpu="${cpu[$key]:-n/a}" 'BEGIN {
		r = rss == "" ? "n/a" : sprintf("%.1f", rss / 1024)
		printf "%-25s %-6s %9d %9.3f %9.3f %8.2f %7.2f %8.0f %9.3f %9s %6s\n", prog, file, n, t, b, n / t / 1e6,
			sz / t / 1e9, t / n * 1e9, bt / t, r, cpu
	}'
}
echo
echo "rocedump benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "small: $small_n packets over $qps QPs between two hosts, ${size[small]} bytes; hosts: the same between"
echo "many hosts (near-random order), ${size[hosts]} bytes; mtu: 4 KiB WRITEs, ${size[mtu]} bytes"
echo "$runs rounds, the programs interleaved (order flipping each round); $tool_runs for the tools; page cache warm."
echo "seconds = the median run, best = the fastest; ns/frame = median seconds / packets; vs bare = the bare floor's"
echo "median / this median (1.000 = as fast as barefloor, the PASS/FAIL reference); GB/s = file bytes / seconds;"
echo "CPU s = user + system seconds of the one run that measured the RSS (all threads). The machine is shared:"
echo "wall-clock figures are noisy, compare them within one run of this script."
echo
printf "%-25s %-6s %9s %9s %9s %8s %7s %8s %9s %9s %6s\n" program file packets seconds best Mpkt/s GB/s ns/frame \
	"vs bare" "RSS MiB" "CPU s"
for f in small hosts mtu; do
	for p in "${progs[@]}"; do fmt_row "$p $f" "$f"; done
done
fmt_row "q hostsng" hostsng hosts
fmt_row "qin stdin" stdin hosts
for k in "${tool_keys[@]}"; do fmt_row "$k" small; done
if [ -n "$scale" ]; then
	echo
	echo "scale: the many-host capture at more QPs ($scale_runs rounds; bytes/stream = RSS above the 1 k-QP hosts run's,"
	echo "over the streams above its)"
	printf "%-14s %9s %8s %9s %9s %9s %8s %8s %9s %9s %12s\n" file packets streams "bare s" "q s" "q best" ns/frame \
		"x bare" "RSS MiB" "B/stream" "RSS/streams"
	for f in hosts $(for sc in $scale; do echo "scale-$sc"; done); do
		awk -v f="$f" -v n="${pkts[q $f]}" -v st="${streams[$f]}" -v bt="$(stat_of "bare $f" median)" \
			-v qt="$(stat_of "q $f" median)" -v qb="$(stat_of "q $f" best)" -v r="${rss[q $f]:-}" \
			-v r0="${rss[q hosts]:-}" -v s0="${streams[hosts]}" 'BEGIN {
			sub(/^scale-/, "", f); sub(/:.*/, " QPs", f); if (f == "hosts") f = "hosts (1k)"
			bps = (r == "" || st <= s0) ? "n/a" : sprintf("%.0f", (r - r0) * 1024 / (st - s0))
			rps = r == "" ? "n/a" : sprintf("%.0f", r * 1024 / st)
			printf "%-14s %9d %8d %9.3f %9.3f %9.3f %8.0f %8.2f %9s %9s %12s\n", f, n, st, bt, qt, qb, qt / n * 1e9,
				qt / bt, r == "" ? "n/a" : sprintf("%.1f", r / 1024), bps, rps
		}'
	done
fi
echo

verdict() { if [ "$1" = 1 ]; then echo "PASS  $2"; else echo "FAIL  $2"; fi; }
ratio() { awk -v a="$(stat_of "$1" median)" -v b="$(stat_of "$2" median)" 'BEGIN { printf "%.3f", a / b }'; }
for f in small hosts mtu; do
	r=$(ratio "bare $f" "q $f")
	verdict "$(awk -v r="$r" 'BEGIN { print (r >= 0.90) }')" \
		"rocedump -q at >= 90% of the bare floor's speed on $f: $r (medians of $runs rounds)"
	for p in mapped floor tuned same; do
		echo "INFO  rocedump -q at $(awk -v r="$(ratio "$p $f" "q $f")" 'BEGIN { printf "%.0f", 100 * r }')% of the $(name_of "$p") speed on $f"
	done
done
echo "INFO  rocedump -q on hosts from standard input (libpcap reads it, frames copied) at $(awk -v r="$(ratio "q hosts" "qin stdin")" 'BEGIN { printf "%.0f", 100 * r }')% of its speed from the file"
echo "INFO  rocedump -q on hosts as pcapng at $(awk -v r="$(ratio "q hosts" "q hostsng")" 'BEGIN { printf "%.0f", 100 * r }')% of its speed as pcap ($(ratio "bare hosts" "q hostsng") of the bare floor on the pcap file)"
if [ "$ceiling" = 1 ]; then
	# medians of the ceiling's rounds: b whole bare floor, b2 its halves at once, q and q1 rocedump -q
	# on two threads and on one, q2 rocedump on one thread on the halves at once
	awk -v b="$(stat_of "bare ceil" median)" -v b2="$(stat_of "bare2 ceil" median)" -v q="$(stat_of "q ceil" median)" \
		-v q1="$(stat_of "q1 ceil" median)" -v q2="$(stat_of "q1x2 ceil" median)" 'BEGIN {
		printf "INFO  two cores here: the bare floor on both halves of hosts at once, one a core, in %.3f s against %.3f s for the whole file on one: %.2fx\n", b2, b, b / b2
		printf "INFO  rocedump sharded at best (--threads 1 on both halves at once, nothing shared) in %.3f s: %.3f of the bare floor on hosts; rocedump -q %.3f s (%.3f), --threads 1 %.3f s (%.3f)\n", q2, b / q2, q, b / q, q1, b / q1
		printf "INFO  so 0.9 of the bare floor on hosts, even sharded, needs rocedump --threads 1 in %.3f s or less: %.0f%% less work a frame than its %.3f s\n", q1 * b / 0.9 / q2, 100 * (1 - b / 0.9 / q2), q1
	}'
else
	echo "INFO  two-core ceiling not measured (needs two CPUs and taskset)"
fi
for f in small hosts mtu $(for sc in $scale; do echo "scale-$sc"; done); do
	read -r fg qg <<<"${good[$f]}"
	[ -n "$fg" ] && [ "$fg" = "${qg:-}" ] && ok=1 || ok=0
	verdict "$ok" "ICRC good count on $f: bare floor ${fg:-?}, rocedump ${qg:-?}"
done
for sc in $scale; do
	f=scale-$sc
	r=$(ratio "q $f" "bare $f")
	verdict "$(awk -v r="$r" 'BEGIN { print (r <= 2.5) }')" \
		"rocedump -q within 2.5x of the bare floor at ${sc%%:*} QPs: ${r}x"
	if [ -n "${rss[q $f]:-}" ] && [ "${streams[$f]}" -gt "${streams[hosts]}" ]; then
		b=$(awk -v r="${rss[q $f]}" -v r0="${rss[q hosts]}" -v s="${streams[$f]}" -v s0="${streams[hosts]}" \
			'BEGIN { printf "%.0f", (r - r0) * 1024 / (s - s0) }')
		# Below 10,000 more streams than the hosts run, the RSS difference is mostly the allocator's
		# and the page cache's noise (it can even be negative): the figure is shown, not judged
		if [ $(("${streams[$f]}" - "${streams[hosts]}")) -lt 10000 ]; then
			echo "INFO  rocedump state at ${sc%%:*} QPs: $b bytes a stream (too few streams to judge)"
		else
			verdict "$((b <= 160))" "rocedump state at ${sc%%:*} QPs: $b bytes a stream (<= 160)"
		fi
	fi
done
if [ -n "${rss[q small]:-}" ]; then
	ok=$(awk -v s="${rss[q small]}" -v m="${rss[q mtu]}" 'BEGIN { print (m <= 1.5 * s + 1024) }')
	verdict "$ok" "rocedump -q peak RSS flat with file size: ${rss[q small]} KiB (${size[small]} B) vs ${rss[q mtu]} KiB (${size[mtu]} B)"
fi
if [ -n "${times[tcpdump -nr small]:-}" ]; then
	ok=$(awk -v a="$(stat_of "tcpdump -nr small" best)" -v b="$(stat_of "rocedump text small" best)" 'BEGIN { print (b < a) }')
	verdict "$ok" "rocedump -r (text) faster than tcpdump -nr on small"
fi
exit 0
