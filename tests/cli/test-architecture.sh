#!/bin/bash
# test-architecture.sh: docs/architecture.md's "Every file, in one line" names every file of the
# core (analyzer/core/, analyzer/util/, include/roce/) and of the faces (analyzer/rocedump/ and its
# rooms, plugin/, conformance/), each under the heading of its folder ("### analyzer/core/"), and names no file
# that is not there. A line is "- `a.c`, `a.h`: what they do". TAP output.
#   test-architecture.sh SOURCE_ROOT
set -u
SRC=$1
DOC=docs/architecture.md
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
cd "$SRC" || exit 2

# The folders the page lists, and which of their files count (build files and vendored code not).
FOLDERS="analyzer/core/ analyzer/util/ include/roce/ analyzer/rocedump/ analyzer/rocedump/input/
analyzer/rocedump/output/ analyzer/rocedump/report/ analyzer/rocedump/live/ plugin/ conformance/"
tree_files() {  # FOLDER: its files, one name a line
	case $1 in
	plugin/) find "$1" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) ;;
	*) find "$1" -maxdepth 1 -type f ! -name meson.build ! -name '*.md' ;;
	esac | sed 's|.*/||' | sort
}
doc_files() {  # FOLDER: the files named in its section, one name a line
	awk -v want="### $1" '
		/^### / { in_sec = ($0 == want); next }
		/^## / { in_sec = 0 }
		in_sec && /^- `/ {
			head = $0; sub(/`: .*/, "`", head)
			while (match(head, /`[^`]+`/)) { print substr(head, RSTART + 1, RLENGTH - 2); head = substr(head, RSTART + RLENGTH) }
		}' "$DOC" | sort
}

for f in $FOLDERS; do
	tree_files "$f" >"$T/tree"
	doc_files "$f" >"$T/doc"
	missing=$(comm -23 "$T/tree" "$T/doc")
	gone=$(comm -13 "$T/tree" "$T/doc")
	count=$(wc -l <"$T/tree")
	[ -z "$missing" ] && ok "$DOC names the $count files of $f" ||
		not_ok "$DOC names every file of $f" "not named: $(echo $missing)"
	[ -z "$gone" ] && ok "$DOC names no file $f does not hold" ||
		not_ok "$DOC names no file $f does not hold" "not in the tree: $(echo $gone)"
done

echo "1..$n"
[ "$failed" = 0 ]
