#!/bin/bash
# rocedump DUT harness: boot one Soft-RoCE (rdma_rxe) guest under qemu TCG (cache/vmlinuz + initrd).
# usage: run-guest.sh ROLE OUTDIR [IP/NN] [PEER] [NETOPT]
#   NETOPT e.g. "tap,ifname=rxetap0"  (qemu -netdev type+options, id is added)
#          or  "socket,listen=127.0.0.1:20791" / "socket,connect=127.0.0.1:20791"
#   MAC env var overrides the guest MAC (default 52:54:00:00:00:NN from role hash)
#   MGMT_PORT env var adds a second NIC for management (qemu user networking): host 127.0.0.1:MGMT_PORT
#   (in the caller's network namespace) is forwarded to the guest's SSH port 22 (guest-init.sh)
# serial console goes to stdout; /mnt/tools = this directory (ro), /mnt/out = OUTDIR (rw)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROLE=$1; OUT=$2; IP=${3:-}; PEER=${4:-}; NET=${5:-}
mkdir -p "$OUT"
NETARGS=()
if [ -n "$NET" ]; then
  NETARGS=(-netdev "$NET,id=n0" -device "virtio-net-pci,netdev=n0,mac=${MAC:-52:54:00:12:34:$(printf %02x $((RANDOM%250+1)))}")
else
  NETARGS=(-nic none)
fi
if [ -n "${MGMT_PORT:-}" ]; then
  NETARGS+=(-netdev "user,id=m0,hostfwd=tcp:127.0.0.1:$MGMT_PORT-:22" -device "virtio-net-pci,netdev=m0,mac=52:54:00:77:01:01")
fi
exec qemu-system-x86_64 -accel tcg -cpu max -m ${MEM:-1024} -smp ${SMP:-1} -nographic -no-reboot \
  -kernel "$HERE/cache/vmlinuz" -initrd "$HERE/cache/initrd.cpio.gz" \
  -append "console=ttyS0 quiet loglevel=4 panic=-1 rxe.role=$ROLE rxe.ip=$IP rxe.peer=$PEER" \
  -virtfs local,path="$HERE",mount_tag=tools,security_model=none,readonly=on \
  -virtfs local,path="$OUT",mount_tag=out,security_model=none \
  "${NETARGS[@]}"
