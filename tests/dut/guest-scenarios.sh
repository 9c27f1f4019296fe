#!/bin/bash
# rocedump DUT harness: role dispatch inside the guest (called by /init with $1 = role). Output: /mnt/out
# selftest = print rxe0 / GID table; srv|cli = scenario-pair.sh; other roles: scenario-ROLE.sh if present.
ROLE=$1; O=/mnt/out
case $ROLE in
selftest)
  ip -br addr; rdma link show; ibv_devices; ibv_devinfo -v | head -40
  for i in 0 1 2 3; do echo "gid$i $(cat /sys/class/infiniband/rxe0/ports/1/gids/$i 2>/dev/null) $(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i 2>/dev/null)"; done
  ;;
srv|cli) . /mnt/tools/scenario-pair.sh ;;
*) [ -f /mnt/tools/scenario-$ROLE.sh ] && . /mnt/tools/scenario-$ROLE.sh || { echo "unknown role $ROLE"; setsid cttyhack bash; } ;;
esac
