#!/bin/bash
# test-docs.sh: roceconform's manual page agrees with the tool: every option `roceconform --help`
# lists is in the man page (conformance/roceconform.1) and every option the man page names is in
# --help and accepted by the parser (conformance/options.c), the man page names the version
# --version prints and formats without a warning (groff -man -ww), and `meson install` puts the
# binary and the man page in place. TAP output.
#   test-docs.sh ROCECONFORM SOURCE_ROOT BUILD_ROOT
set -u
R=$1 SRC=$2 BUILD=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
# shellcheck source=../man-checks.sh
. "$(dirname "$0")/../man-checks.sh"

MAN=$SRC/conformance/roceconform.1

# long_and_short FILE: the options of a text, one a line: every --long word, and the short options
# that stand as options (after two spaces or ", ": not "ibv_rc_pingpong -g" in a description)
long_and_short() {
	{ grep -oE -- '(^|[^A-Za-z0-9-])--[a-z][a-z-]*[a-z]' "$1" | sed 's/^[^-]*//'
	  grep -oE -- '(  |, )-[a-zA-Z]([^A-Za-z0-9-]|$)' "$1" | grep -oE -- '-[a-zA-Z]'; } | sort -u
}
"$R" --help >"$T/help" 2>&1 || not_ok "--help exits 0"
long_and_short "$T/help" >"$T/help-options"
count=$(wc -l <"$T/help-options")
[ "$count" -ge 30 ] && ok "--help lists $count options" || not_ok "--help lists $count options" "$(cat "$T/help-options")"

# the man page's text (roff's \- is a plain -); its short options are those of its .TP items
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN" >"$T/man"
{ grep -oE -- '(^|[^A-Za-z0-9-])--[a-z][a-z-]*[a-z]' "$T/man" | sed 's/^[^-]*//'
  awk '/^\.TP/{getline l; print l}' "$T/man" | grep -oE -- '(^|[ "])-[a-zA-Z]([^A-Za-z0-9-]|$)' | grep -oE -- '-[a-zA-Z]'
} | sort -u >"$T/man-options"
# the parser's: its long option table and its getopt string
{ grep -oE '\{"[a-z-]+", [01]' "$SRC/conformance/options.c" | sed 's/{"\([a-z-]*\)".*/--\1/'
  grep -oE 'getopt_long\(argc, argv, "[a-zA-Z]+"' "$SRC/conformance/options.c" | sed 's/.*"\(.*\)"/\1/' | grep -o . | sed 's/^/-/'
} | sort -u >"$T/parser-options"

missing=$(comm -23 "$T/help-options" "$T/man-options")
[ -z "$missing" ] && ok "the man page has every option of --help" || not_ok "the man page has every option of --help" "missing: $missing"
extra=$(comm -13 "$T/help-options" "$T/man-options")
[ -z "$extra" ] && ok "every option of the man page is in --help" || not_ok "every option of the man page is in --help" "not in --help: $extra"
diff=$(diff "$T/parser-options" "$T/help-options")
[ -z "$diff" ] && ok "--help lists the options the parser accepts" || not_ok "--help lists the options the parser accepts" "$diff"

version=$("$R" --version | sed -n '1s/^roceconform //p')
man_version roceconform "$MAN" "$version"
man_groff "$MAN"
# meson install: the binary and the man page (into a scratch DESTDIR; nothing is rebuilt)
man_installed roceconform "$MAN" "$BUILD" "$T"

echo "1..$n"
[ "$failed" = 0 ]
