#!/bin/bash
# run-all.sh: every test of the project in a normal build (build/); in an AddressSanitizer +
# UndefinedBehaviorSanitizer build (build-asan/) the suites that exercise memory (unit, golden, cli,
# fuzz replays, the hardening inputs, the plugin inside tshark on mangled and real captures, but not
# its output compared with rocedump's over every capture: suite 'oracle'; nor Wireshark's window:
# 'gui'); in a ThreadSanitizer build (build-tsan/) those that run rocedump on several threads
# (golden, cli, hardening: the metrics server's threads). The slow suites that compare with other
# tools or drive real systems (crosscheck, transport, live, report, bench, static, dut, the
# plugin's gui) run once, in the normal build. All with -Dwerror=true. Ends with the line
# "N passed, N failed" and exits non-zero if any test failed.
set -u
cd "$(dirname "$0")/.."
status=0

run_suite() {  # DIR MESON-OPTIONS... (and $suites: meson test's --suite arguments, if any)
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" -Dwerror=true "$@" || return 1
	fi
	ninja -C "$dir" || return 1
	# shellcheck disable=SC2086 # several words
	meson test -C "$dir" --print-errorlogs --num-processes 2 ${suites:-} || return 1
}

run_suite build -Dplugin=enabled || status=1  # enabled: a missing libwireshark-dev fails, not skips
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	suites='--suite unit --suite golden --suite cli --suite fuzz --suite gen --suite hardening --suite plugin --no-suite oracle --no-suite gui' \
	run_suite build-asan -Dplugin=enabled -Db_sanitize=address,undefined -Db_lundef=false || status=1
TSAN_OPTIONS=halt_on_error=1 suites='--suite golden --suite cli --suite hardening' \
	run_suite build-tsan -Db_sanitize=thread -Db_lundef=false -Db_lto=false || status=1

/usr/bin/python3 - build build-asan build-tsan <<'PY' || status=1
import json, os, sys
passed = failed = skipped = 0
for d in sys.argv[1:]:
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        print(f"{d}: no test log (the build failed)")
        failed += 1
        continue
    for line in open(log):
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
exit $status
