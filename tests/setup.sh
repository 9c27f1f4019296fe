#!/bin/sh
# setup.sh: install the dependencies, build, and run rocedump on a bundled Soft-RoCE capture.
set -eu
cd "$(dirname "$0")/.."
sh tests/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
cap=captures/rxe/rc_pingpong.pcap
[ -f "$cap" ] || cap=captures/gen/rc_opcodes.pcap
build/analyzer/rocedump/rocedump -r "$cap" -c 12
