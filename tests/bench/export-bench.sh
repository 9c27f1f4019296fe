#!/usr/bin/env bash
# export-bench.sh: what rocedump --export costs, next to rocedump -q on the same capture.
#
#   tests/bench/export-bench.sh --url http://HOST:8123/DATABASE [--build DIR] [--rocedump P]
#                               [--gencaps P] [--packets N] [--qps Q] [--runs N] [--dir DIR] [--keep]
#                               [--callgrind]
#
# Needs a ClickHouse server and a database of its own (its four tables are emptied: TRUNCATE).
# Makes the synthetic capture with gencaps --bench-small (N small packets, default 1,000,000, over
# Q queue pairs, default 1,000), reads it once to warm the page cache, then runs N pairs (default
# 7), the order flipping each pair:
#   rocedump -q -r FILE                                 no export
#   rocedump -q -r FILE --export URL                    the frames with events, findings, streams
# and prints the median of each and the median of the pairs' ratios, of the wall time and of
# rocedump's own CPU time (target within 10 %: PASS/FAIL), and of the run's end
# (ROCEDUMP_EXPORT_TIMES: from the streams rows' making to the server's last answer). Then the
# same pairs on a lossy, CE-marked capture (gencaps --bench-cong: one packet in ten CE-marked and
# answered by a CNP, a PFC frame in 1,000: about a fifth of the frames carry an event, so rows go
# out all through the run), each run timed: the paired ratios of the wall time and of rocedump's
# own CPU time (user + system), the latter being what a capture box pays when ClickHouse runs
# elsewhere (here the server takes the same two CPUs to read the rows; the target, within 10 %, is
# held to it). A server on this machine (the URL's host 127.0.0.1 or localhost, its process found
# by its port with ss) takes CPU time from rocedump while it reads the rows, which a server on a
# machine of its own does not: its CPU time while each run lasts is read from /proc, with the wall
# time no run can beat when the two share the CPUs ((rocedump's + the server's) / CPUs). The lossy
# pairs are run once more with the server's scheduling group at nice 19 (/proc/PID/autogroup, put
# back after), the server yielding the CPUs to rocedump, and once with a receiver that reads the
# rows and drops them (http-discard.py) in the server's stead, for what the capture box alone
# pays. --callgrind: the instructions of one run of each on the lossy capture, with one decoding
# thread (valgrind; the same count whatever the machine is doing), and their ratio. Then one run
# with --export-all-frames: its time, the rows it sent a second, and the bytes a frames row takes
# on disk (system.parts: compressed, all columns). On the clean capture the export's cost is a
# run's, in wall time more than CPU time: the server taking the last batches at the end (at once,
# a connection each), libcurl's loading before the reading, and the tables' check, which overlaps
# the reading on the export thread. On the lossy one it is the rows': their making, their memory
# and their sending, in CPU time. Exit status: 0 when everything ran (whatever PASS/FAIL says), 1
# when a program failed, 2 on a usage error.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
rocedump='' gencaps='' packets=1000000 qps=1000 runs=7 dir='' keep=0 url='' callgrind=0

me=export-bench
# shellcheck source-path=SCRIPTDIR source=benchlib.sh
. "$here/benchlib.sh"

while [ $# -gt 0 ]; do
	common_arg "$@"
	if [ "$took" -gt 0 ]; then shift "$took"; continue; fi
	case $1 in
	--packets) need_arg "$@"; packets=$2; shift ;;
	--qps) need_arg "$@"; qps=$2; shift ;;
	--runs) need_arg "$@"; runs=$2; shift ;;
	--url) need_arg "$@"; url=$2; shift ;;
	--callgrind) callgrind=1 ;;
	*) unknown_arg "$1" ;;
	esac
	shift
done
check_uints packets qps runs
[ -n "$url" ] || { echo "$me: --url http://HOST:8123/DATABASE is needed" >&2; exit 2; }
rocedump=${rocedump:-$build/analyzer/rocedump/rocedump}
gencaps=${gencaps:-$build/tests/gencaps}
need_programs --rocedump/--gencaps "$rocedump" "$gencaps"
bench_dirs rocedump-export-bench
cap=$dir/bench-small-$packets-$qps.pcap
cong=$dir/bench-cong-$packets-$qps.pcap
trap 'bench_cleanup "$cap" "$cong"' EXIT
trap 'exit 1' INT TERM

base=${url%/*}/ db=${url##*/}
ch() { curl -sSf "$base?database=$db" --data-binary "$1" || die "ClickHouse: $1"; }
empty() { for t in frames findings streams captures; do ch "TRUNCATE TABLE IF EXISTS $t" >/dev/null; done; }

# wall and CPU time of each run (and the local server's, once spid names it)
spid='' hz=$(getconf CLK_TCK)
declare -A cpus
declare -A scpus
server_ticks() {  # the local server's CPU time so far (user + system, clock ticks), or nothing
	[ -n "$spid" ] && [ -r "/proc/$spid/stat" ] || return 0
	sed 's/.*) //' "/proc/$spid/stat" | awk '{ print $12 + $13 }'
}
timed() {  # timed KEY CMD...: wall time into times[KEY], its CPU time (user + system) into cpus[KEY], the server's into scpus[KEY]
	local key=$1 c0 c1 s0 s1
	shift
	s0=$(server_ticks)
	children_ms c0  # nothing forked from here to c1 but the command (seconds forks nothing)
	seconds "$key" /dev/null "$@"
	children_ms c1
	s1=$(server_ticks)
	cpus[$key]+=" $(awk -v a="$c0" -v b="$c1" 'BEGIN { print (b - a) / 1000 }')"
	[ -z "$s0" ] || scpus[$key]+=" $(awk -v a="$s0" -v b="$s1" -v hz="$hz" 'BEGIN { print (b - a) / hz }')"
}
make_cap "$cap" --bench-small "$packets" "$qps"
cat "$cap" >/dev/null  # warm the page cache

q=("$rocedump" -q -r "$cap")
x=(env ROCEDUMP_EXPORT_TIMES=1 "$rocedump" -q -r "$cap" --export "$url" --export-host bench)
empty
for ((i = 0; i < runs; i++)); do
	if ((i % 2)); then
		timed x "${x[@]}"; timed q "${q[@]}"
	else
		timed q "${q[@]}"; timed x "${x[@]}"
	fi
done
read -r -a tq <<<"${times[q]}"
read -r -a tx <<<"${times[x]}"
median() { sort -g | awk '{ r[NR] = $1 } END { print (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'; }
paired() {  # paired "A..." "B...": the median of the runs' ratios a/b
	local -a a b
	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	for ((i = 0; i < ${#a[@]}; i++)); do awk -v a="${a[i]}" -v b="${b[i]}" 'BEGIN { print a / b }'; done | median
}
median_of() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | median; }  # median_of "A...": the median of a list
verdict() { awk -v r="$1" 'BEGIN { print (r <= 1.10) ? "PASS" : "FAIL" }'; }  # verdict RATIO: against the target
ratio=$(paired "${tx[*]}" "${tq[*]}")
rows=$(ch "SELECT (SELECT count() FROM frames) + (SELECT count() FROM findings) + (SELECT count() FROM streams)")
printf '%s packets, %s QPs, %s pairs of runs\n' "$packets" "$qps" "$runs"
printf '  rocedump -q                 median %8.3f s\n' "$(stat_of q median)"
printf '  rocedump -q --export        median %8.3f s   (%s rows a run)\n' "$(stat_of x median)" $((rows / runs))
printf '  paired median ratio  %.3f  (wall time; target <= 1.10: %s)\n' "$ratio" "$(verdict "$ratio")"
cpu_ratio=$(paired "${cpus[x]}" "${cpus[q]}")
printf '  rocedump CPU  median %.3f s without, %.3f s with --export: paired median ratio %.3f (target <= 1.10: %s)\n' \
	"$(median_of "${cpus[q]}")" "$(median_of "${cpus[x]}")" "$cpu_ratio" "$(verdict "$cpu_ratio")"
printf "  the run's end (--export)   median %6.1f ms\n" "$(sed -n "s/^rocedump: export: the run's end took \([0-9.]*\) ms$/\1/p" "$work/stderr" |
	sort -g | awk '{ t[NR] = $1 } END { print NR ? ((NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2) : 0 }')"

# The local server's process (its scheduling group's nice value put back on exit), or none.
server_pid() {
	local hostport=${url#*://} host port
	hostport=${hostport%%/*} hostport=${hostport##*@}
	host=${hostport%:*} port=${hostport##*:}
	[ "$port" != "$hostport" ] || port=8123
	case $host in 127.0.0.1 | localhost) ;; *) return ;; esac
	command -v ss >/dev/null || return
	ss -ltnpH "sport = :$port" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1
}
lossy_pairs() {  # lossy_pairs TAG URL: the pairs on the lossy capture, timed, into times/cpus[cq|cx TAG]
	local tag=$1
	local -a cx=("$rocedump" -q -r "$cong" --export "$2" --export-host bench)
	empty
	for ((i = 0; i < runs; i++)); do
		if ((i % 2)); then timed "cx$tag" "${cx[@]}"; timed "cq$tag" "${cq[@]}"; else timed "cq$tag" "${cq[@]}"; timed "cx$tag" "${cx[@]}"; fi
	done
	printf '  wall time     median %.3f s without, %.3f s with --export: paired median ratio %.3f\n' \
		"$(stat_of "cq$tag" median)" "$(stat_of "cx$tag" median)" "$(paired "${times[cx$tag]}" "${times[cq$tag]}")"
	local cq_cpu cx_cpu ratio
	cq_cpu=$(median_of "${cpus[cq$tag]}")
	cx_cpu=$(median_of "${cpus[cx$tag]}")
	ratio=$(paired "${cpus[cx$tag]}" "${cpus[cq$tag]}")
	printf '  rocedump CPU  median %.3f s without, %.3f s with --export: paired median ratio %.3f (target <= 1.10: %s)\n' \
		"$cq_cpu" "$cx_cpu" "$ratio" "$(verdict "$ratio")"
	[ -n "${scpus[cx$tag]:-}" ] || return 0
	# The server's CPU time while each run lasted: the rows' parsing and MergeTree parts. On the
	# same CPUs as rocedump, a run cannot end before both have had their CPU time: the wall
	# time's floor, and its ratio to the run without --export.
	local srv floor
	srv=$(median_of "${scpus[cx$tag]}")
	floor=$(awk -v a="$cx_cpu" -v b="$srv" -v n="$ncpu" 'BEGIN { print (a + b) / n }')
	printf '  %-13s median %.3f s a run with --export: on %s CPUs shared, no run ends before %.3f s (ratio %.3f)\n' \
		"${3:-server} CPU" "$srv" "$ncpu" "$floor" "$(awk -v f="$floor" -v q="$(stat_of "cq$tag" median)" 'BEGIN { print f / q }')"
}
make_cap "$cong" --bench-cong "$packets" "$qps" 1
cat "$cong" >/dev/null
spid=$(server_pid) ncpu=$(nproc)
cq=("$rocedump" -q -r "$cong")
cx=("$rocedump" -q -r "$cong" --export "$url" --export-host bench)
empty
timed warm "${cx[@]}"
rows=$(ch "SELECT (SELECT count() FROM frames) + (SELECT count() FROM findings) + (SELECT count() FROM streams)")
printf 'lossy, CE-marked: %s packets, one in ten CE-marked and answered by a CNP (%s rows a run)\n' "$packets" "$rows"
echo " the server at the same priority as rocedump:"
lossy_pairs '' "$url"
if [ -n "$spid" ] && [ -w "/proc/$spid/autogroup" ]; then
	nice0=$(sed -n 's/.* nice \(-\?[0-9]*\)$/\1/p' "/proc/$spid/autogroup")
	trap 'echo "${nice0:-0}" >"/proc/$spid/autogroup" 2>/dev/null; bench_cleanup "$cap" "$cong"' EXIT
	echo 19 >"/proc/$spid/autogroup"
	echo " the server (pid $spid) yielding the CPUs to rocedump (its scheduling group at nice 19):"
	lossy_pairs y "$url"
	echo "${nice0:-0}" >"/proc/$spid/autogroup"
else
	echo " the server yielding the CPUs: skipped (no local server's process found, or not ours to renice)"
fi
# The rows sent to a receiver that reads and drops them (http-discard.py), its CPU time a
# sixteenth of the server's: rocedump's CPU time with no server's work beside it on the CPUs, as
# a capture box whose server is elsewhere (the receiving on loopback is still charged in part to
# the sender).
if command -v python3 >/dev/null; then
	python3 "$here/http-discard.py" >"$work/discard.port" &
	dpid=$!
	trap 'kill "$dpid" 2>/dev/null; bench_cleanup "$cap" "$cong"' EXIT
	for _ in $(seq 50); do [ -s "$work/discard.port" ] && break; sleep 0.1; done
	[ -s "$work/discard.port" ] || die "http-discard.py did not start"
	echo " a receiver that reads the rows and drops them (http-discard.py), as a server elsewhere costs the box nothing:"
	spid=$dpid
	lossy_pairs d "http://127.0.0.1:$(head -1 "$work/discard.port")/bench" receiver
	kill "$dpid"
	spid=$(server_pid)
fi
if ((callgrind)) && command -v valgrind >/dev/null; then
	declare -A ir
	for k in cq cx; do
		# one decoding thread: two would spin while they wait, as many instructions as the
		# scheduler lets them
		if [ $k = cq ]; then set -- "${cq[@]}" --threads 1; else set -- "${cx[@]}" --threads 1; fi
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$work/cg.$k" ||
			die "valgrind: $* (stderr: $(tail -3 "$work/cg.$k"))"
		ir[$k]=$(sed -n 's/.*Collected : \([0-9]*\)$/\1/p' "$work/cg.$k")
	done
	printf '  instructions  %s without, %s with --export: ratio %.3f, %.0f more a row\n' "${ir[cq]}" "${ir[cx]}" \
		"$(awk -v a="${ir[cx]}" -v b="${ir[cq]}" 'BEGIN { print a / b }')" \
		"$(awk -v a="${ir[cx]}" -v b="${ir[cq]}" -v n="$rows" 'BEGIN { print (a - b) / n }')"
fi

empty
seconds all /dev/null "$rocedump" -q -r "$cap" --export "$url" --export-host bench --export-all-frames
ch "OPTIMIZE TABLE frames FINAL" >/dev/null  # the parts merged, as a table that has been there a while
read -r n bytes < <(ch "SELECT sum(rows), sum(bytes_on_disk) FROM system.parts WHERE database = currentDatabase() AND table = 'frames' AND active FORMAT TSV")
t=$(stat_of all best)
printf '  --export-all-frames  %8.3f s, %s frames rows: %.0f rows/s, %.1f bytes a row on disk\n' "$t" "$n" \
	"$(awk -v n="$n" -v t="$t" 'BEGIN { print n / t }')" "$(awk -v n="$n" -v b="$bytes" 'BEGIN { print b / n }')"
empty
