# benchlib.sh: what the benchmark scripts run-bench.sh and report-bench.sh share (sourced, after
# they set $me, the name their messages start with): the usage text from the script's header
# comment, errors and number checks, the capture and work directories, the captures made with
# gencaps (reused when already there), the clean-up at exit, and the timing helpers.
# shellcheck shell=bash disable=SC2154,SC2034 # me, keep, gencaps: the sourcing script's; rss: its too

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "$me: $*" >&2; exit 1; }
need_arg() { [ $# -ge 2 ] || { echo "$me: $1 needs a value" >&2; exit 2; }; }
# common_arg ARGS...: the options every one of these scripts takes (--build, --rocedump, --gencaps,
# --dir, --keep, --help); $took: how many words it took (0: not one of them).
common_arg() {
	took=2
	case $1 in
	--build) need_arg "$@"; build=$2 ;;
	--rocedump) need_arg "$@"; rocedump=$2 ;;
	--gencaps) need_arg "$@"; gencaps=$2 ;;
	--dir) need_arg "$@"; dir=$2 ;;
	--keep) keep=1 took=1 ;;
	-h | --help) usage; exit 0 ;;
	*) took=0 ;;
	esac
}
unknown_arg() { echo "$me: unknown argument: $1 (try --help)" >&2; exit 2; }
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ]; }
check_uints() {  # check_uints VAR...: each variable a positive integer, else exit 2
	local v
	for v in "$@"; do
		is_uint "${!v}" || { echo "$me: bad number for $v: ${!v}" >&2; exit 2; }
	done
}
need_programs() {  # need_programs OPTIONS PATH...: each executable, else exit 1 naming the options
	local hint=$1 p
	shift
	for p in "$@"; do
		[ -x "$p" ] || die "not found or not executable: $p (build first, or pass $hint)"
	done
}

# bench_dirs NAME: $dir, the captures' directory (--dir, created if missing, or a fresh one under
# $TMPDIR named NAME), and $work, a fresh directory for the outputs.
bench_dirs() {
	if [ -n "$dir" ]; then
		mkdir -p "$dir" || die "cannot create $dir"
	else
		dir=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || die "mktemp failed"
	fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1-out.XXXXXX") || die "mktemp failed"
}

# bench_cleanup CAPTURE...: at exit: the work directory goes, and the captures unless --keep.
bench_cleanup() {
	local f
	rm -rf "$work"
	for f in "$@"; do rm -f "$f.tmp"; done
	if [ "$keep" = 1 ]; then
		if [ $# = 1 ]; then echo "capture kept in $dir"; else echo "captures kept in $dir"; fi
	else
		rm -f "$@"
		rmdir "$dir" 2>/dev/null
	fi
}

make_cap() {  # make_cap FILE GENCAPS-ARGS...: gencaps makes FILE unless it is there
	local f=$1
	shift
	[ -s "$f" ] && return
	{ "$gencaps" "$1" "$f.tmp" "${@:2}" && mv "$f.tmp" "$f"; } || die "gencaps $1 failed"
}

# Wall time from bash's EPOCHREALTIME (microseconds; nothing forked, so that children_ms around
# a call counts the command alone); every run's time is kept (times[KEY]: a list), stat_of gives
# the fastest and the median.
declare -A times rss cpu
seconds() {  # seconds KEY OUT CMD...: run CMD with stdout to OUT, add its wall time to times[KEY]
	local key=$1 out=$2 t0 t1 rc us
	shift 2
	t0=$EPOCHREALTIME
	"$@" >"$out" 2>>"$work/stderr"
	rc=$?
	t1=$EPOCHREALTIME
	[ $rc -eq 0 ] || die "failed (exit $rc): $* (stderr: $(tail -3 "$work/stderr"))"
	us=$((10#${t1/./} - 10#${t0/./}))  # SECONDS.MICROSECONDS (LC_ALL=C), as one number
	printf -v "times[$key]" '%s %d.%06d' "${times[$key]:-}" $((us / 1000000)) $((us % 1000000))
}
stat_of() {  # stat_of KEY best|median
	echo "${times[$1]}" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk -v w="$2" '{ t[NR] = $1 }
		END { if (!NR) exit; if (w == "best") print t[1]; else if (NR % 2) print t[(NR + 1) / 2];
		      else printf "%.6f\n", (t[NR / 2] + t[NR / 2 + 1]) / 2 }'
}
# The CPU time (user + system, in ms) of this shell's children that have ended, from the times
# builtin (getrusage: microseconds, printed to the ms; GNU time prints hundredths): nothing forked,
# so that the difference across one command is that command's.
children_ms() {  # children_ms VAR
	local u s mu ms
	times >"$work/times"
	{ read -r _ _; read -r u s; } <"$work/times"
	ms_of mu "$u"
	ms_of ms "$s"
	printf -v "$1" '%s' $((mu + ms))
}
ms_of() {  # ms_of VAR 1m2.345s: VAR=62345
	[[ $2 =~ ^([0-9]+)m([0-9]+)\.([0-9]{3})s$ ]] || die "times printed $2"
	printf -v "$1" '%s' $((BASH_REMATCH[1] * 60000 + 10#${BASH_REMATCH[2]} * 1000 + 10#${BASH_REMATCH[3]}))
}
peak_rss() {  # peak_rss KEY CMD...: one run under GNU time: peak RSS in KiB, CPU seconds (user + system)
	local key=$1 u s
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M %U %S' -o "$work/rss" "$@" >"$work/rss.out" 2>>"$work/stderr" ||
			die "failed: $* (stderr: $(tail -3 "$work/stderr"))"
		read -r "rss[$key]" u s < <(tail -1 "$work/rss")
		cpu[$key]=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	else
		rss[$key]='' cpu[$key]=''
		"$@" >"$work/rss.out" 2>>"$work/stderr" || die "failed: $*"
	fi
}
