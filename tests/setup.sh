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
echo
echo "rocedump is build/analyzer/rocedump/rocedump (man page: analyzer/rocedump/rocedump.1);"
echo "meson install -C build installs both under /usr/local (bin/rocedump, share/man/man1/rocedump.1)."
