#!/bin/bash
# test-catalogue-doc.sh: docs/conformance-catalogue.md is exactly what roceconform generates
# (`roceconform --list --format markdown --expect tests/dut/rxe-expect.txt`), every test in it
# names its IBTA rule, the JSON report carries the same rule, and --format is refused where it
# does not apply. TAP output.
#   test-catalogue-doc.sh ROCECONFORM SOURCE_ROOT
set -u
R=$(readlink -f "$1") SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"

DOC=$SRC/docs/conformance-catalogue.md
(cd "$SRC" && "$R" --list --format markdown --expect tests/dut/rxe-expect.txt) >"$T/doc.md" 2>"$T/err" ||
	not_ok "--list --format markdown runs" "$(cat "$T/err")"
if diff -u "$DOC" "$T/doc.md" >"$T/diff"; then
	ok "docs/conformance-catalogue.md is the generated catalogue"
else
	not_ok "docs/conformance-catalogue.md is the generated catalogue (regenerate: in the source tree," \
		"roceconform --list --format markdown --expect tests/dut/rxe-expect.txt > docs/conformance-catalogue.md)" \
		"$(head -20 "$T/diff")"
fi

# every test of --list has its section, with an IBTA rule and a Soft-RoCE verdict
ids=$("$R" --list | awk '{print $1}')
missing=""
for id in $ids; do
	sed -n "/^### $id\$/,/^### /p" "$T/doc.md" >"$T/one"
	grep -q '^- \*\*IBTA rule\*\*: ' "$T/one" && grep -q '^- \*\*Linux Soft-RoCE\*\*: ' "$T/one" || missing="$missing $id"
done
[ -z "$missing" ] && ok "every test has its IBTA rule and Soft-RoCE verdict" || not_ok "tests without a rule or verdict" "$missing"
grep -q '^- \*\*IBTA rule\*\*: CA17-33; A17.6$' <(sed -n '/^### C2b$/,/^### /p' "$T/doc.md") &&
	ok "C2b cites CA17-33" || not_ok "C2b cites CA17-33"
grep -q '^- \*\*Linux Soft-RoCE\*\*: FAIL (known deviation: rxe takes an ACK beyond' <(sed -n '/^### E5$/,/^### /p' "$T/doc.md") &&
	ok "E5: rxe's known deviation from rxe-expect.txt" || not_ok "E5: rxe's known deviation"
grep -q '^C1a .* \[CA17-22, CA17-24; A17.3.3' <("$R" --list) && ok "--list names the IBTA rule" || not_ok "--list names the IBTA rule"
# every test names its compliance statement ID, or its section with "no ID confirmed" (G1: not an IBTA rule)
unnamed=$("$R" --list | grep -vE '\[(C9-[0-9]+|CA17-[0-9]+)[^]]*; [^]]+\]$|\[[^];]+ \(no ID confirmed\)\]$|\[not an IBTA rule\]$')
[ -z "$unnamed" ] && ok "every test: a compliance statement ID, or its section with \"no ID confirmed\"" ||
	not_ok "tests with neither an ID nor \"no ID confirmed\"" "$unnamed"
grep -q '^A4 .* \[C9-105; 9.7.5\]$' <("$R" --list) && grep -q '^E1 .* \[C9-141; 9.7.6.1.1\]$' <("$R" --list) &&
	grep -q '^D5 .* \[C9-148; 9.7.5\]$' <("$R" --list) && ok "A4, E1, D5 cite C9-105, C9-141, C9-148" ||
	not_ok "A4, E1, D5 cite C9-105, C9-141, C9-148"
grep -q '^- \*\*IBTA rule\*\*: 10.2.5, 9.6.1.1 (no ID confirmed)$' <(sed -n '/^### Q1$/,/^### /p' "$T/doc.md") &&
	ok "Q1: its sections, no ID confirmed" || not_ok "Q1: its sections, no ID confirmed"

# the JSON report names the same rule
"$R" --dry-run "$T/x.pcap" --dut 10.0.0.2 --tests C2b,A1 --json "$T/r.json" >/dev/null 2>&1
if grep -q '"id": "C2b".*"ibta_id": "CA17-33", "ibta_section": "A17.6"' "$T/r.json" &&
	grep -q '"id": "A1".*"ibta_id": null, "ibta_section": "9.7.5.1"' "$T/r.json"; then
	ok "the JSON report has ibta_id and ibta_section"
else
	not_ok "the JSON report has ibta_id and ibta_section" "$(head -c 600 "$T/r.json")"
fi

# --format: text or markdown, with --list only
"$R" --list --format xml >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q 'neither text nor markdown' "$T/err" && ok "--format xml refused (exit 2)" || not_ok "--format xml: exit $rc" "$(cat "$T/err")"
"$R" --format markdown --dry-run "$T/x.pcap" --dut 10.0.0.2 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q 'give --list too' "$T/err" && ok "--format without --list refused (exit 2)" || not_ok "--format without --list: exit $rc" "$(cat "$T/err")"
"$R" --list --format markdown --expect "$T/none.txt" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && ok "--list --format markdown with an unreadable --expect: exit 2" || not_ok "unreadable --expect: exit $rc"
cmp -s <("$R" --list) <("$R" --list --format text) && ok "--format text is --list's default" || not_ok "--format text"

echo "1..$n"
[ "$failed" = 0 ]
