#!/bin/bash
# run-static.sh: the static analysers over the project's C code, clean or fail.
#   clang-tidy  with the checked-in .clang-tidy (every warning an error), on every C file of the
#               build (compile_commands.json) under the source tree
#   cppcheck    --enable=warning,performance,portability on the same files, with
#               tests/static/cppcheck-suppressions.txt and Criterion's macros
#               (tests/static/criterion.cfg); its style checks are off: their "condition is
#               always true/false" claims are wrong on this code (value flow through ?:)
# Exit 0 clean, 1 findings (printed), 77 (meson: skip) a tool is not installed. Given files, only
# those (paths under SOURCE_ROOT; each must be one the build compiles).
#   run-static.sh SOURCE_ROOT BUILD_ROOT [FILE.c...]
set -u
SRC=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd)
shift 2
ONLY=()
for f in "$@"; do ONLY+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done
TIDY=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$TIDY" ] || ! command -v cppcheck >/dev/null; then
	echo "SKIP: clang-tidy or cppcheck not installed (tests/install-deps.sh installs both)"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
status=0

# The C files the build compiles, from the source tree (not the build's generated ones), each
# with one compile command: a file several targets compile (input_harness.c, in three unit
# tests) is checked once, and clang-tidy 14 analysing one file twice in a process loses track of
# va_start in the second run (a false clang-analyzer-valist.Uninitialized).
/usr/bin/python3 - "$BUILD/compile_commands.json" "$SRC" "$BUILD" "$T/db/compile_commands.json" \
	"${ONLY[@]}" >"$T/files" <<'PY'
import json, os, sys
db, src, build, out = sys.argv[1:5]
only = set(sys.argv[5:])
seen, keep = set(), []
for e in json.load(open(db)):
    f = os.path.normpath(os.path.join(e["directory"], e["file"]))
    if (f.endswith(".c") and f.startswith(src + os.sep) and not f.startswith(build + os.sep)
            and f not in seen and (not only or f in only)):
        seen.add(f)
        keep.append(e)
        print(f)
os.makedirs(os.path.dirname(out))
json.dump(keep, open(out, "w"))
missing = only - seen
if missing:
    sys.exit("not compiled by this build: " + " ".join(sorted(missing)))
PY
[ $? = 0 ] || exit 2
echo "$(wc -l <"$T/files") C files"

# clang-tidy, two files at a time
start=$SECONDS
xargs -a "$T/files" -P 2 -n 1 "$TIDY" -p "$T/db" --quiet >"$T/tidy" 2>"$T/tidy.err"
tidy_status=$?
if [ "$tidy_status" != 0 ] || grep -q 'warning:\|error:' "$T/tidy"; then
	echo "clang-tidy: findings ($((SECONDS - start)) s)"
	grep -E 'warning:|error:' "$T/tidy" | sort -u
	grep -E 'error' "$T/tidy.err" | grep -v 'warnings treated as errors' | head -20
	status=1
else
	echo "clang-tidy: clean ($((SECONDS - start)) s)"
fi

# cppcheck over the same compile commands
start=$SECONDS
cppcheck --project="$T/db/compile_commands.json" --enable=warning,performance,portability --std=c11 \
	--library=posix --library="$SRC/tests/static/criterion.cfg" \
	--suppressions-list="$SRC/tests/static/cppcheck-suppressions.txt" --inline-suppr \
	--error-exitcode=1 -q -j 2 >"$T/cppcheck" 2>&1
if [ $? != 0 ] || [ -s "$T/cppcheck" ]; then
	echo "cppcheck: findings ($((SECONDS - start)) s)"
	cat "$T/cppcheck"
	status=1
else
	echo "cppcheck: clean ($((SECONDS - start)) s)"
fi
exit $status
