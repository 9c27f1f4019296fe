#!/bin/bash
# run-all.sh: every test of the project in a normal build (build/); in an AddressSanitizer +
# UndefinedBehaviorSanitizer build (build-asan/) the suites that exercise memory (unit, golden, cli,
# fuzz replays, the hardening inputs, --export and its spool: clickhouse, the plugin inside tshark
# on mangled and real captures, but not its output compared with rocedump's over every capture:
# suite 'oracle'; nor Wireshark's window: 'gui'); in a ThreadSanitizer build (build-tsan/) those
# that run rocedump on several threads (golden, cli, hardening: the metrics server's threads;
# clickhouse: the export thread's; threads: two live captures, of one interface and of two). The
# slow suites that compare with other tools or drive real systems (crosscheck, transport, the rest
# of live, report, bench, static, dut, the plugin's gui) run once, in the normal build. All with
# -Dwerror=true. Ends with the line "N passed, N failed" and exits non-zero if any test failed.
set -u
cd "$(dirname "$0")/.." || exit 1
status=0

build_dir() {  # DIR MESON-OPTIONS...: configure (once) and build
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" -Dwerror=true "$@" || return 1
	fi
	ninja -C "$dir"
}
test_dir() {  # DIR [MESON-TEST-OPTIONS...] (and $suites: meson test's --suite arguments, if any)
	local dir=$1; shift
	# shellcheck disable=SC2086 # several words
	meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 ${suites:-} "$@"
}
run_suite() {  # DIR MESON-OPTIONS...: build, then test
	build_dir "$@" && test_dir "$1"
}

# The normal build's DUT suite (qemu guests under TCG: the image built, booted, waited for, most
# of it waiting on the guest) runs in the background beside the other suites and the sanitizer
# builds, not alone: its own meson test run (is_parallel: false holds within it), its own log
# (build/meson-logs/dut.json), its output printed at the end.
dut_pid=
if build_dir build -Dplugin=enabled; then  # enabled: a missing libwireshark-dev fails, not skips
	test_dir build --suite dut --logbase dut >build/meson-logs/dut-console.txt 2>&1 &
	dut_pid=$!
	trap '[ -z "$dut_pid" ] || kill "$dut_pid" 2>/dev/null' EXIT
	test_dir build --no-suite dut || status=1
else
	status=1
fi
# b_lto=false in the sanitizer builds: link-time optimisation only makes their links slow (each
# test program re-optimises the library); the optimised build is the normal one.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	suites='--suite unit --suite golden --suite cli --suite fuzz --suite gen --suite hardening --suite plugin --suite clickhouse --no-suite oracle --no-suite gui' \
	run_suite build-asan -Dplugin=enabled -Db_sanitize=address,undefined -Db_lundef=false -Db_lto=false || status=1
# plugin=disabled, tests=disabled: the ThreadSanitizer build runs neither the plugin's tests (tshark
# cannot load a TSan plugin) nor the Criterion unit tests (Criterion cannot run under TSan), so it
# does not build them (half of its compiling)
TSAN_OPTIONS=halt_on_error=1 suites='--suite golden --suite cli --suite hardening --suite clickhouse --suite threads' \
	run_suite build-tsan -Db_sanitize=thread -Db_lundef=false -Db_lto=false -Dplugin=disabled -Dtests=disabled ||
	status=1
if [ -n "$dut_pid" ]; then
	wait "$dut_pid" || status=1
	dut_pid=
	echo "=== build: suite dut (run in the background) ==="
	cat build/meson-logs/dut-console.txt
fi

/usr/bin/python3 - build/meson-logs/testlog.json build/meson-logs/dut.json \
	build-asan/meson-logs/testlog.json build-tsan/meson-logs/testlog.json <<'PY' || status=1
import json, os, sys
passed = failed = skipped = 0
for log in sys.argv[1:]:
    if not os.path.exists(log):
        print(f"{log}: no test log (the build failed)")
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
