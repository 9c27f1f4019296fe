#!/bin/bash
# rocedump DUT harness: /init of the Soft-RoCE test guest (busybox + Debian rdma userspace), packed into
# cache/initrd.cpio.gz by build-guest.sh (rebuild after editing this file).  Brings up eth0, creates rxe0
# on it, runs /mnt/tools/guest-scenarios.sh ROLE (this directory, shared read-only over 9p), powers off.
# Kernel cmdline parameters used:  rxe.role=NAME rxe.ip=A.B.C.D/NN rxe.peer=A.B.C.D
# A second NIC (eth1: qemu user networking, run-guest.sh's MGMT_PORT) is the management link: with
# /mnt/out/authorized_keys present, dropbear serves SSH on it (roceconform --dut-ssh), so that test traffic
# stays alone on eth0.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm; mount -t devpts pts /dev/pts; mount -t tmpfs tmp /tmp; mount -t tmpfs run /run
for kv in $(cat /proc/cmdline); do
  case $kv in rxe.role=*) ROLE=${kv#*=};; rxe.ip=*) MYIP=${kv#*=};; rxe.peer=*) PEER=${kv#*=};; esac
done
export ROLE MYIP PEER
echo "[init] uptime $(cut -d' ' -f1 /proc/uptime)s role=$ROLE ip=$MYIP peer=$PEER"
for m in virtio_pci virtio_net 9pnet_virtio 9p af_packet; do modprobe $m 2>/dev/null; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro tools /mnt/tools 2>/dev/null && echo "[init] /mnt/tools mounted"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /mnt/out 2>/dev/null && echo "[init] /mnt/out mounted"
ip link set lo up
if [ -n "$MYIP" ]; then ip link set eth0 up; ip addr add "$MYIP" dev eth0; fi
modprobe rdma_rxe && modprobe ib_uverbs && echo "[init] rdma_rxe loaded"
[ -n "$MYIP" ] && rdma link add rxe0 type rxe netdev eth0 && echo "[init] rxe0 created on eth0"
if [ -e /sys/class/net/eth1 ] && [ -s /mnt/out/authorized_keys ]; then
  ip link set eth1 up; ip addr add 10.0.2.15/24 dev eth1    # qemu user networking's guest address
  mkdir -p /root/.ssh /etc/dropbear; chmod 700 /root /root/.ssh
  cp /mnt/out/authorized_keys /root/.ssh/authorized_keys; chmod 600 /root/.ssh/authorized_keys
  # -R: host keys made on first use; -s: no password logins; -E: log to stderr
  dropbear -R -s -E -p 22 2>/tmp/dropbear.log && echo "[init] dropbear (SSH) on eth1"
fi
echo "[init] ready at uptime $(cut -d' ' -f1 /proc/uptime)s"
if [ -x /mnt/tools/guest-scenarios.sh ]; then
  /mnt/tools/guest-scenarios.sh "$ROLE" 2>&1
else
  setsid cttyhack bash
fi
sync; echo "[init] done at uptime $(cut -d' ' -f1 /proc/uptime)s, powering off"
poweroff -f
