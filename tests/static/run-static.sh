#!/bin/bash
# run-static.sh: the static analysers over the project's C code, clean or fail.
#   clang-tidy  with the checked-in .clang-tidy (every warning an error), on every C file of the
#               build (compile_commands.json) under the source tree
#   cppcheck    --enable=warning,performance,portability on the same files, with
#               tests/static/cppcheck-suppressions.txt and Criterion's macros
#               (tests/static/criterion.cfg); its style checks are off: their "condition is
#               always true/false" claims are wrong on this code (value flow through ?:)
# Exit 0 clean, 1 findings (printed), 77 (meson: skip) a tool is not installed.
#   run-static.sh SOURCE_ROOT BUILD_ROOT
set -u
SRC=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd)
TIDY=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$TIDY" ] || ! command -v cppcheck >/dev/null; then
	echo "SKIP: clang-tidy or cppcheck not installed (tests/install-deps.sh installs both)"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
status=0

# the C files the build compiles, from the source tree, each once
/usr/bin/python3 - "$BUILD/compile_commands.json" "$SRC" >"$T/files" <<'PY'
import json, os, sys
seen = set()
for e in json.load(open(sys.argv[1])):
    f = os.path.normpath(os.path.join(e["directory"], e["file"]))
    if f.endswith(".c") and f.startswith(sys.argv[2] + os.sep) and f not in seen:
        seen.add(f)
        print(f)
PY
echo "$(wc -l <"$T/files") C files"

# clang-tidy, two files at a time
xargs -a "$T/files" -P 2 -n 1 "$TIDY" -p "$BUILD" --quiet >"$T/tidy" 2>"$T/tidy.err"
tidy_status=$?
if [ "$tidy_status" != 0 ] || grep -q 'warning:\|error:' "$T/tidy"; then
	echo "clang-tidy: findings"
	grep -E 'warning:|error:' "$T/tidy" | sort -u
	grep -E 'error' "$T/tidy.err" | grep -v 'warnings treated as errors' | head -20
	status=1
else
	echo "clang-tidy: clean"
fi

# cppcheck over the same compile commands
cppcheck --project="$BUILD/compile_commands.json" --enable=warning,performance,portability --std=c11 \
	--library=posix --library="$SRC/tests/static/criterion.cfg" \
	--suppressions-list="$SRC/tests/static/cppcheck-suppressions.txt" --inline-suppr \
	--error-exitcode=1 -q -j 2 >"$T/cppcheck" 2>&1
if [ $? != 0 ] || [ -s "$T/cppcheck" ]; then
	echo "cppcheck: findings"
	cat "$T/cppcheck"
	status=1
else
	echo "cppcheck: clean"
fi
exit $status
