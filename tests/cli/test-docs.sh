#!/bin/bash
# test-docs.sh: what a Unix user looks for is there and agrees with the tool: every option
# `rocedump --help` lists is described in the man page (analyzer/rocedump/rocedump.1), in the synopsis
# of docs/options.md and in the tables of options (docs/options.md, and docs/live-capture.md for -i's); every event is in the man page; the man page names the version --version prints and
# formats without a warning (groff -man -ww); `meson install` puts the binary and the man page in
# place; the documentation's command lines name no option the programs lack (doc_options.py);
# no file points at design notes outside the repository; LICENSE is the licence meson.build
# declares. TAP output.
#   test-docs.sh ROCEDUMP SOURCE_ROOT BUILD_ROOT PRINT_DEFAULTS
# PRINT_DEFAULTS prints the options with a default, "OPTION VALUE", from the headers' named
# defaults: --help, the man page, the tables of options and plugin/README.md's table of
# preferences state each of them.
set -u
R=$1 SRC=$2 BUILD=$3 DEFAULTS=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
# shellcheck source=../man-checks.sh
. "$(dirname "$0")/../man-checks.sh"

MAN=$SRC/analyzer/rocedump/rocedump.1
OPTIONS=$SRC/docs/options.md
LIVE=$SRC/docs/live-capture.md

# The options --help lists: the first column of its option lines ("  -r FILE   ...",
# "      --nano, --time-stamp-precision micro|nano"), each name once; -tt, -xx etc. are -t, -x.
"$R" --help >"$T/help" 2>&1 || not_ok "--help exits 0"
sed -n 's/^  *\(-[^ ].*\)/\1/p' "$T/help" | sed 's/   .*//' | tr ',' '\n' | awk '{print $1}' |
	sed -E 's/^-([A-Za-z#])[A-Za-z#]*$/-\1/' | sort -u >"$T/options"
count=$(wc -l <"$T/options")
[ "$count" -ge 20 ] && ok "--help lists $count options" || not_ok "--help lists $count options" "$(cat "$T/options")"

# The man page's text (roff's \- is a plain -), the synopsis (the first fenced block of
# docs/options.md, under its title "# Using rocedump") and the tables of options (rows whose first
# cell is an option, "| `-", of docs/options.md and docs/live-capture.md).
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN" >"$T/man"
awk '/^# Using rocedump/{u=1} u && /^```/{if (b) exit; b=1; next} b' "$OPTIONS" >"$T/synopsis"
cat "$OPTIONS" "$LIVE" | grep '^| `-' >"$T/table"

has_option() {  # FILE OPTION: the option appears as a word of its own (-t also as -t[t], -tt)
	local opt=$1 file=$2
	if [ "${opt#--}" != "$opt" ]; then
		grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|$)" "$file"
	else
		grep -qE -- "(^|[^A-Za-z0-9-])\\$opt" "$file"
	fi
}
for where in man synopsis table; do
	missing=()
	while read -r opt; do
		has_option "$opt" "$T/$where" || missing+=("$opt")
	done <"$T/options"
	case $where in man) what="the man page";; synopsis) what="docs/options.md's synopsis";; table) what="the tables of options";; esac
	[ ${#missing[@]} = 0 ] && ok "$what has every option of --help" ||
		not_ok "$what has every option of --help" "missing: ${missing[*]}"
done

# The defaults: each option's entry in --help (its line to the next option's), the man page (its
# .B/.BI line to the next .TP), the tables of options and plugin/README.md's preferences (the row
# naming it) says "default VALUE" (thousands separators aside), a link speed "VALUE (default)".
help_entry() { awk -v o="$1" 'f && /^  +-/ {exit} !f && $1 == o {f=1} f' "$T/help"; }
man_entry() {
	awk -v o="$1" 'f && /^\.(TP|SS|SH)/ {exit} !f && ($1 == ".BI" || $1 == ".B") && $2 == o {f=1} f' "$T/man" |
		sed 's/^\.[A-Z]* //'
}
table_entry() { grep -F -e "| \`$1 " -e "| \`$1\`" "$T/table"; }
plugin_entry() { grep -F "| \`$1\` |" "$SRC/plugin/README.md"; }
states_default() {  # VALUE: standard input says it is the default
	local text
	text=$(tr '\n' ' ' | sed -E ':a; s/([0-9]),([0-9]{3})/\1\2/; ta')
	case $1 in
	*[!0-9]*) grep -qE -- "$1\`? \((the )?default\)" <<<"$text" ;;
	*) grep -qE -- "default:? $1([^0-9]|$)" <<<"$text" ;;
	esac
}
if "$DEFAULTS" >"$T/defaults" && [ -s "$T/defaults" ]; then
	for where in help man table plugin; do
		wrong=()
		while read -r opt value; do
			entry=$("${where}_entry" "$opt")
			if [ -z "$entry" ]; then
				[ "$where" = plugin ] || wrong+=("$opt (no entry)")
			elif ! states_default "$value" <<<"$entry"; then
				wrong+=("$opt (not $value)")
			fi
		done <"$T/defaults"
		case $where in help) what="--help";; man) what="the man page";; table) what="the tables of options";;
		plugin) what="plugin/README.md's preferences";; esac
		[ ${#wrong[@]} = 0 ] && ok "$what states the headers' defaults" ||
			not_ok "$what states the headers' defaults" "${wrong[*]}"
	done
else
	not_ok "print_defaults prints the defaults"
fi

# Every event of --list-events is in the man page's EVENTS section, with its severity and
# description, in the table's order (events.def drives both: a new event needs its man page entry).
"$R" --list-events | sed -E 's/^([^ ]+) +([^ ]+) +(.*)$/\1 (\2)\n\3/' >"$T/events"
sed -n '/^\.SH EVENTS/,/^\.SH /p' "$MAN" | sed 's/\\-/-/g; s/\\\\/\\/g' |
	awk '/^\.TP/{getline n; sub(/^\.BR /, "", n); gsub(/"/, "", n); sub(/  /, " ", n); getline d; print n; print d}' >"$T/man-events"
if [ -s "$T/events" ] && cmp -s "$T/events" "$T/man-events"; then
	ok "the man page lists the $(($(wc -l <"$T/events") / 2)) events of --list-events"
else
	not_ok "the man page lists the events of --list-events" "$(diff "$T/events" "$T/man-events" | head -6)"
fi

version=$("$R" --version | sed -n '1s/^rocedump //p')
man_version rocedump "$MAN" "$version"
man_groff "$MAN"
# meson install: the binary and the man page (into a scratch DESTDIR; nothing is rebuilt)
man_installed rocedump "$MAN" "$BUILD" "$T"

# Every long option a command line of the documentation gives rocedump or roceconform is theirs
# (a diagram's command is not run by readme-examples).
cf=$BUILD/conformance/roceconform
bad=$(python3 "$(dirname "$0")/doc_options.py" "$SRC" "$R" $([ -x "$cf" ] && echo "$cf"))
[ -z "$bad" ] && ok "the documentation's rocedump and roceconform command lines name only their options" ||
	not_ok "the documentation's rocedump and roceconform command lines name only their options" "$bad"

# The repository stands alone: nothing points at design or style notes outside it.
outside=$(grep -rIlE --exclude-dir=.git --exclude-dir='build*' --exclude-dir=captures \
	-e '\.\./shared|/work/''shared' -e '(DESIGN|STYLE)''\.md' "$SRC" 2>/dev/null)
[ -z "$outside" ] && ok "no file points at notes outside the repository" ||
	not_ok "no file points at notes outside the repository" $outside
[ -f "$SRC/LICENSE" ] && grep -q 'BSD 3-Clause' "$SRC/LICENSE" && grep -q "license: 'BSD-3-Clause'" "$SRC/meson.build" &&
	ok "LICENSE is the BSD-3-Clause licence meson.build declares" ||
	not_ok "LICENSE is the BSD-3-Clause licence meson.build declares"

echo "1..$n"
[ "$failed" = 0 ]
