#!/bin/bash
# test-comments.sh: code comments say what the code does and why, not when or where it was
# measured. Over the C files, headers, meson.build files and scripts of analyzer/, plugin/,
# conformance/, include/ and tests/ (not tests/dut/cache, not data files): no date (YYYY-MM-DD)
# outside the allow-list of test-data lines below, no issue-tracker reference ("issue 11",
# "#11"), no "this VM". Each hit is listed as file:line; this script, which names the patterns,
# is not checked. TAP output.
#   test-comments.sh SOURCE_ROOT
set -u
SRC=$1
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
cd "$SRC" || exit 2

# Dates that are test data, not diary: FILE<TAB>a regex the line matches.
ALLOW=$(printf '%s\t%s\n' \
	tests/gen/gencaps.c '^#define TS_BASE [0-9]+LL +/\* [0-9-]+ 00:00:00 UTC \*/$' \
	tests/unit/test_fmt.c '= [0-9]+; +/\* [0-9-]+ 00:00:00 UTC \*/$' \
	tests/unit/test_fmt.c 'cr_assert_str_eq\(stamp\(')

files() {
	find analyzer plugin conformance include tests -path tests/dut/cache -prune -o \
		-path tests/cli/test-comments.sh -prune -o -type f \
		\( -name '*.c' -o -name '*.h' -o -name meson.build -o -name '*.sh' -o -name '*.py' \) -print |
		sort
}
allowed() {  # FILE LINE: the line is a test-data date of the allow-list
	local file=$1 line=$2 f re
	while IFS=$'\t' read -r f re; do
		[ "$f" = "$file" ] && grep -qE -- "$re" <<<"$line" && return 0
	done <<<"$ALLOW"
	return 1
}
check() {  # NAME REGEX [ALLOW]: no line of the files matches REGEX (ALLOW: unless allow-listed)
	local name=$1 re=$2 use_allow=${3:-} hits=() file num line
	while IFS=: read -r file num line; do
		[ -n "$use_allow" ] && allowed "$file" "$line" && continue
		hits+=("$file:$num: $line")
	done < <(files | xargs grep -nE -- "$re" /dev/null)
	[ ${#hits[@]} = 0 ] && ok "$name" || not_ok "$name" "${hits[@]}"
}

n_files=$(files | wc -l)
[ "$n_files" -ge 100 ] && ok "$n_files files to check" || not_ok "$n_files files to check (expected 100 or more)"
check "no dates in comments (outside test data)" '(^|[^0-9])20[0-9]{2}-[01][0-9]-[0-3][0-9]([^0-9]|$)' allow
check "no issue-tracker references" '\b[Ii]ssues? [0-9]+|(^|[ (])#[0-9]+\b'
check "no \"this VM\"" '\b[Tt]his VM\b'

echo "1..$n"
[ "$failed" = 0 ]
