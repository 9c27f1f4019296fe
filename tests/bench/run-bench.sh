#!/usr/bin/env bash
# run-bench.sh: time rocedump against the floor (tests/bench/floor.c) and against tshark/tcpdump.
#
#   tests/bench/run-bench.sh [--build DIR] [--rocedump P] [--gencaps P] [--floor P]
#                            [--small-packets N] [--mtu-bytes N] [--qps Q] [--runs N] [--tool-runs N]
#                            [--no-tools] [--dir DIR] [--keep]
#
# Generates two captures with gencaps (small: N SEND_ONLY/ACK packets, default 1,000,000, over Q
# QPs, default 1000; mtu: 4 KiB WRITE packets, ~1 GB), reads each once to warm the page cache,
# then times, best of N wall-clock runs (default 7) with the runs interleaved (floor, rocedump,
# floor, ... the order flipping each round):
#   floor -D FILE           the floor as issue 2 words it: a bare loop that reads the file with
#                           libpcap's defaults and checks every ICRC with ISA-L (floor.c)
#   floor FILE              the tuned floor: the same loop with libpcap reading through a 1 MiB
#                           stdio buffer and no stream lock per fread (the best libpcap loop here)
#   floor -R FILE           the same-I/O floor: the same loop reading the records as rocedump
#                           does (its own reader for plain pcap files, analyzer/rocedump/pcapread.c)
#   rocedump -q -r FILE     must reach >= 90% of the floor's speed (PASS/FAIL); on two threads
#                           when the machine has two CPUs (rocedump's default); its ratios to the
#                           tuned and same-I/O floors are printed too (INFO: stricter references,
#                           not the target)
#   rocedump --threads 1 -q -r FILE   the same on one thread, for comparison
# and on the small file only, best of --tool-runs (default 3), interleaved:
#   rocedump -r F >/dev/null, rocedump -T json -r F >/dev/null,
#   tcpdump -nr F >/dev/null (rocedump text should be faster: PASS/FAIL),
#   tshark -r F -T fields -e infiniband.bth.psn >/dev/null (skipped when not installed).
# Peak RSS comes from one extra run of each under /usr/bin/time (GNU time), "n/a" without it.
# The floor's ICRC good count must equal rocedump's (PASS/FAIL), and rocedump's peak RSS on the
# ~1 GB file must stay within 1.5x (+1 MiB) of its RSS on the small file (PASS/FAIL).
#
# Captures go into --dir (created if missing; captures already there with the same parameters are
# reused) or a fresh mktemp directory under $TMPDIR (default /tmp); the captures are deleted at the
# end unless --keep. Needs ~1.2 GB of free space there. Exit status: 0 when everything ran (whatever
# PASS/FAIL says), 1 when a program failed or was missing, 2 on a usage error.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
rocedump='' gencaps='' floor=''
small_n=1000000 mtu_bytes=1000000000 qps=1000 runs=7 tool_runs=3 tools=1 dir='' keep=0

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "run-bench: $*" >&2; exit 1; }
need_arg() { [ $# -ge 2 ] || { echo "run-bench: $1 needs a value" >&2; exit 2; }; }
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }

while [ $# -gt 0 ]; do
	case $1 in
	--build) need_arg "$@"; build=$2; shift ;;
	--rocedump) need_arg "$@"; rocedump=$2; shift ;;
	--gencaps) need_arg "$@"; gencaps=$2; shift ;;
	--floor) need_arg "$@"; floor=$2; shift ;;
	--small-packets) need_arg "$@"; small_n=$2; shift ;;
	--mtu-bytes) need_arg "$@"; mtu_bytes=$2; shift ;;
	--qps) need_arg "$@"; qps=$2; shift ;;
	--runs) need_arg "$@"; runs=$2; shift ;;
	--tool-runs) need_arg "$@"; tool_runs=$2; shift ;;
	--no-tools) tools=0 ;;
	--dir) need_arg "$@"; dir=$2; shift ;;
	--keep) keep=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "run-bench: unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done
for v in small_n mtu_bytes qps runs tool_runs; do
	is_uint "${!v}" || { echo "run-bench: bad number for $v: ${!v}" >&2; exit 2; }
done
rocedump=${rocedump:-$build/analyzer/rocedump/rocedump}
gencaps=${gencaps:-$build/tests/gencaps}
floor=${floor:-$build/tests/bench/floor}
for p in "$rocedump" "$gencaps" "$floor"; do
	[ -x "$p" ] || die "not found or not executable: $p (build first, or pass --rocedump/--gencaps/--floor)"
done

if [ -n "$dir" ]; then
	mkdir -p "$dir" || die "cannot create $dir"
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/rocedump-bench.XXXXXX") || die "mktemp failed"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/rocedump-bench-out.XXXXXX") || die "mktemp failed"
small=$dir/bench-small-$small_n-$qps.pcap
mtu=$dir/bench-mtu-$mtu_bytes-$qps.pcap
cleanup() {
	rm -rf "$work"
	rm -f "$small.tmp" "$mtu.tmp"
	if [ "$keep" = 1 ]; then
		echo "captures kept in $dir"
	else
		rm -f "$small" "$mtu"
		rmdir "$dir" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- captures ----
if [ ! -s "$small" ]; then
	"$gencaps" --bench-small "$small.tmp" "$small_n" "$qps" && mv "$small.tmp" "$small" ||
		die "gencaps --bench-small failed"
fi
if [ ! -s "$mtu" ]; then
	"$gencaps" --bench-mtu "$mtu.tmp" "$mtu_bytes" "$qps" && mv "$mtu.tmp" "$mtu" ||
		die "gencaps --bench-mtu failed"
fi
cat "$small" "$mtu" >/dev/null  # warm the page cache

# ---- timing ----
# Wall time from bash's EPOCHREALTIME (microseconds, no fork); the best of the runs is kept.
declare -A best rss cpu pkts
seconds() {  # seconds KEY OUT CMD...: run CMD with stdout to OUT, keep the smallest wall time
	local key=$1 out=$2 t0 t1 rc
	shift 2
	t0=$EPOCHREALTIME
	"$@" >"$out" 2>>"$work/stderr"
	rc=$?
	t1=$EPOCHREALTIME
	[ $rc -eq 0 ] || die "failed (exit $rc): $* (stderr: $(tail -3 "$work/stderr"))"
	best[$key]=$(awk -v a="$t0" -v b="$t1" -v o="${best[$key]:-}" \
		'BEGIN { t = b - a; if (o != "" && o + 0 < t) t = o; printf "%.6f", t }')
}
peak_rss() {  # peak_rss KEY CMD...: one run under GNU time: peak RSS in KiB, CPU seconds (user + system)
	local key=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M %U %S' -o "$work/rss" "$@" >/dev/null 2>>"$work/stderr" ||
			die "failed: $* (stderr: $(tail -3 "$work/stderr"))"
		read -r "rss[$key]" u s < <(tail -1 "$work/rss")
		cpu[$key]=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	else
		rss[$key]= cpu[$key]=
	fi
}

size_small=$(stat -c %s "$small")
size_mtu=$(stat -c %s "$mtu")
declare -A good
for f in small mtu; do
	file=${!f}
	peak_rss "floor $f" "$floor" -D "$file"
	peak_rss "tuned floor $f" "$floor" "$file"
	peak_rss "same-I/O floor $f" "$floor" -R "$file"
	peak_rss "rocedump -q $f" "$rocedump" -q -r "$file"
	peak_rss "rocedump -q 1t $f" "$rocedump" --threads 1 -q -r "$file"
	for ((i = 0; i < runs; i++)); do
		if ((i % 2 == 0)); then
			seconds "floor $f" "$work/floor.$f" "$floor" -D "$file"
			seconds "tuned floor $f" "$work/tfloor.$f" "$floor" "$file"
			seconds "same-I/O floor $f" "$work/rfloor.$f" "$floor" -R "$file"
			seconds "rocedump -q $f" "$work/q.$f" "$rocedump" -q -r "$file"
			seconds "rocedump -q 1t $f" "$work/q1.$f" "$rocedump" --threads 1 -q -r "$file"
		else
			seconds "rocedump -q 1t $f" "$work/q1.$f" "$rocedump" --threads 1 -q -r "$file"
			seconds "rocedump -q $f" "$work/q.$f" "$rocedump" -q -r "$file"
			seconds "same-I/O floor $f" "$work/rfloor.$f" "$floor" -R "$file"
			seconds "tuned floor $f" "$work/tfloor.$f" "$floor" "$file"
			seconds "floor $f" "$work/floor.$f" "$floor" -D "$file"
		fi
	done
	cmp -s "$work/q.$f" "$work/q1.$f" || die "rocedump -q on one thread and on several differ on $f"
	cmp -s "$work/floor.$f" "$work/tfloor.$f" || die "the floor and the tuned floor differ on $f"
	cmp -s "$work/floor.$f" "$work/rfloor.$f" || die "the floor and the same-I/O floor differ on $f"
	# floor: frames N bytes N roce N good N bad N other N
	read -r _ _ fr _ _ _ _ _ fgood _ _ _ _ <"$work/floor.$f"
	qgood=$(sed -n 's/^ICRC: good \([0-9]*\),.*/\1/p' "$work/q.$f")
	qframes=$(sed -n '1s/^\([0-9]*\) frames.*/\1/p' "$work/q.$f")
	pkts["floor $f"]=$fr
	pkts["tuned floor $f"]=$fr
	pkts["same-I/O floor $f"]=$fr
	pkts["rocedump -q $f"]=$qframes
	pkts["rocedump -q 1t $f"]=$qframes
	good[$f]="$fgood $qgood"
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
fmt_row() {  # fmt_row KEY FILE-LABEL FILE-SIZE (file-label: small or mtu, whose floors it is measured against)
	local key=$1 label=$2 size=$3
	awk -v prog="${key% small}" -v file="$label" -v n="${pkts[$key]}" -v t="${best[$key]}" -v sz="$size" \
		-v ft="${best[floor $label]}" -v tt="${best[tuned floor $label]}" -v rt="${best[same-I/O floor $label]}" \
		-v rss="${rss[$key]:-}" -v cpu="${cpu[$key]:-n/a}" 'BEGIN {
		sub(/ mtu$/, "", prog)
		sub(/ 1t$/, " --threads 1", prog)
		sub(/^floor$/, "floor -D", prog)
		r = rss == "" ? "n/a" : sprintf("%.1f", rss / 1024)
		printf "%-25s %-6s %9d %9.3f %8.2f %7.2f %9.3f %9.3f %9.3f %9s %6s\n", prog, file, n, t, n / t / 1e6,
			sz / t / 1e9, ft / t, tt / t, rt / t, r, cpu
	}'
}
echo
echo "rocedump benchmark: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "small: $small_n packets over $qps QPs, $size_small bytes; mtu: 4 KiB WRITEs, $size_mtu bytes"
echo "best of $runs runs (floor and rocedump -q, interleaved), $tool_runs for the others; page cache warm"
echo "vs floor = floor seconds / seconds (1.000 = as fast as the floor: floor -D, the target's); vs tuned and"
echo "vs same I/O: the same against the tuned floor (libpcap at its best) and the same-I/O floor (the records"
echo "read as rocedump reads them); GB/s = file bytes / seconds;"
echo "CPU s = user + system seconds of the one run that measured the RSS (all threads)"
echo
printf "%-25s %-6s %9s %9s %8s %7s %9s %9s %9s %9s %6s\n" program file packets seconds Mpkt/s GB/s "vs floor" "vs tuned" \
	"same I/O" "RSS MiB" "CPU s"
for f in small mtu; do
	sz=size_$f
	for k in "floor $f" "tuned floor $f" "same-I/O floor $f" "rocedump -q $f" "rocedump -q 1t $f"; do
		fmt_row "$k" "$f" "${!sz}"
	done
done
for k in "${tool_keys[@]}"; do fmt_row "$k" small "$size_small"; done
echo

verdict() { if [ "$1" = 1 ]; then echo "PASS  $2"; else echo "FAIL  $2"; fi; }
for f in small mtu; do
	ok=$(awk -v a="${best[floor $f]}" -v b="${best[rocedump -q $f]}" 'BEGIN { print (a / b >= 0.90) }')
	verdict "$ok" "rocedump -q at >= 90% of the floor's speed on $f (floor -D, libpcap's defaults)"
	awk -v a="${best[tuned floor $f]}" -v r="${best[same-I/O floor $f]}" -v b="${best[rocedump -q $f]}" -v f="$f" 'BEGIN {
		printf "INFO  rocedump -q at %.0f%% of the tuned floor speed on %s (libpcap at its best)\n", 100 * a / b, f
		printf "INFO  rocedump -q at %.0f%% of the same-I/O floor speed on %s (records read as rocedump reads them)\n", 100 * r / b, f
	}'
	read -r fg qg <<<"${good[$f]}"
	[ -n "$fg" ] && [ "$fg" = "${qg:-}" ] && ok=1 || ok=0
	verdict "$ok" "ICRC good count on $f: floor ${fg:-?}, rocedump ${qg:-?}"
done
if [ -n "${rss[rocedump -q small]:-}" ]; then
	ok=$(awk -v s="${rss[rocedump -q small]}" -v m="${rss[rocedump -q mtu]}" 'BEGIN { print (m <= 1.5 * s + 1024) }')
	verdict "$ok" "rocedump -q peak RSS flat with file size: ${rss[rocedump -q small]} KiB ($size_small B) vs ${rss[rocedump -q mtu]} KiB ($size_mtu B)"
fi
if [ -n "${best[tcpdump -nr small]:-}" ]; then
	ok=$(awk -v a="${best[tcpdump -nr small]}" -v b="${best[rocedump text small]}" 'BEGIN { print (b < a) }')
	verdict "$ok" "rocedump -r (text) faster than tcpdump -nr on small"
fi
exit 0
