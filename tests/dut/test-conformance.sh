#!/bin/bash
# rocedump DUT harness, meson test "dut-conformance": roceconform against the real Soft-RoCE guest.
# usage: test-conformance.sh ROCECONFORM [OUTDIR]
# Boots the guest (building its image first when tests/dut/cache has none: ~2 min, Debian downloads) in a
# private namespace (RXE_NS, default rocedump-conf-ci) with restarting ibv_rc_pingpong and perftest servers,
# runs conform-ci.sh there and judges the reports with check-conform.py. Needs root, /dev/net/tun and qemu.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
R=$(readlink -f "$1"); OUT=${2:-$(mktemp -d /tmp/rocedump-conform.XXXXXX)}
if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ]; then
  echo "SKIP: needs root and /dev/net/tun (CI has both)"; exit 77
fi
mkdir -p "$OUT"
echo "test-conformance: output in $OUT"
RXE_NS=${RXE_NS:-rocedump-conf-ci} "$HERE/run-dut.sh" "$OUT" -- "$HERE/conform-ci.sh" "$R" "$OUT"
rc=$?
[ $rc = 0 ] || { echo "test-conformance: the harness failed (rc $rc)"; tail -30 "$OUT/dut/console.log" 2>/dev/null; exit 1; }
/usr/bin/python3 "$HERE/check-conform.py" "$OUT"
