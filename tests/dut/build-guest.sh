#!/bin/bash
# rocedump DUT harness: build the Soft-RoCE guest (Debian bookworm kernel + a ~21 MB initramfs with
# rdma_rxe, rdma-core userspace, perftest, rping, tcpdump, iproute2, iptables, ethtool, busybox, and dropbear:
# the SSH server roceconform's DUT agent logs in to; OpenSSH's sshd would need libpam, left out here).  Everything comes
# from Debian's apt repositories (apt-get download + dpkg-deb -x); /init is guest-init.sh.
# Output: cache/vmlinuz, cache/initrd.cpio.gz; downloads in cache/debs (cache/ is git-ignored).
# ~2 min cold, ~45 s warm.  Needs root (chroot for the library check; apt-get if kmod/cpio are missing).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=$HERE/cache
KVER=${KVER:-6.1.0-57-amd64}            # Debian bookworm kernel ABI (apt-cache search linux-image-6.1)
DEBS=$CACHE/debs; ROOT=$CACHE/root
mkdir -p "$DEBS"
# host tools needed: qemu-system-x86 (run-guest.sh), kmod (depmod), cpio
command -v depmod >/dev/null && command -v cpio >/dev/null || \
  DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=300 --no-install-recommends kmod cpio

TOP="linux-image-$KVER busybox-static bash kmod iproute2 ibverbs-utils ibverbs-providers libibverbs1 librdmacm1 rdmacm-utils perftest tcpdump iptables ethtool dropbear-bin"
# recursive runtime deps, minus packaging/perl/udev machinery a busybox guest does not need
SKIP='^(adduser|cdebconf|debconf|dpkg|init-system-helpers|install-info|libdebian-installer4|lib.*-perl|libperl.*|perl.*|libgdbm.*|libnewt.*|libpam.*|libsemanage.*|libslang2|libtextwrap1|lsb-base|passwd|pci.ids|readline-common|sysvinit-utils|tar|udev|usr-is-merged|usrmerge|libelogind0|rdma-core|linux-base|initramfs-tools.*|kmod-.*|libcap2-bin|netbase|debianutils|coreutils|apparmor|firmware-.*)$'
PKGS=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances $TOP 2>/dev/null | grep -E '^[a-z0-9]' | sort -u | grep -Ev "$SKIP")
echo "packages: $(echo $PKGS | wc -w)"
( cd "$DEBS"; for p in $PKGS; do ls ${p}_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null 2>&1 || echo "WARN: download $p failed"; done )

rm -rf "$ROOT"; mkdir -p "$ROOT"
KPKG=$CACHE/kpkg; rm -rf "$KPKG"; mkdir -p "$KPKG"
for d in "$DEBS"/*.deb; do
  case $(basename "$d") in linux-image-*) dpkg-deb -x "$d" "$KPKG";; *) dpkg-deb -x "$d" "$ROOT";; esac
done
cp "$KPKG/boot/vmlinuz-$KVER" "$CACHE/vmlinuz"

# --- kernel modules: only what we need, plus their dependencies ---
MODSRC=$KPKG/lib/modules/$KVER
depmod -b "$KPKG" "$KVER"
WANT="rdma_rxe crc32_generic crc32_pclmul ib_uverbs ib_umad rdma_ucm veth dummy tun virtio_net virtio_pci virtio_blk 9p 9pnet_virtio
      sch_netem sch_red sch_prio sch_ingress cls_u32 cls_matchall act_pedit act_csum
      ip_tables iptable_mangle iptable_filter ipt_ECN xt_DSCP xt_dscp xt_tcpudp xt_u32 xt_statistic ipv6 af_packet
      8021q ip_gre ip6_gre act_mirred act_gact cls_flower rdma_cm"
declare -A SEEN=()
add_mod() {  # $1 = module name; copy file + recurse deps
  local f; f=$(modinfo -b "$KPKG" -k "$KVER" -F filename "$1" 2>/dev/null) || return 0
  [[ $f == "(builtin)" || -z $f ]] && return 0
  [[ -n ${SEEN[$f]:-} ]] && return 0; SEEN[$f]=1
  mkdir -p "$ROOT/$(dirname "${f#$KPKG/}")"; cp "$f" "$ROOT/${f#$KPKG/}"
  local d; for d in $(modinfo -b "$KPKG" -k "$KVER" -F depends "$1" | tr , ' '); do add_mod "$d"; done
}
for m in $WANT; do add_mod "$m"; done
cp "$MODSRC"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$KVER/" 2>/dev/null || true
depmod -b "$ROOT" "$KVER"
echo "modules: ${#SEEN[@]}"

# --- busybox applets for everything not supplied by real packages ---
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,mnt/tools,mnt/out,root,etc,var/run}
for a in $("$ROOT/bin/busybox" --list-full); do
  [ -e "$ROOT/$a" ] || [ -e "$ROOT/usr/$a" ] || [ -e "$ROOT/${a#usr/}" ] || ln -s /bin/busybox "$ROOT/$a"
done
# iptables: use the legacy (x_tables) backend
ln -sf xtables-legacy-multi "$ROOT/usr/sbin/iptables"
printf 'root:x:0:0:root:/root:/bin/sh\ntcpdump:x:0:0::/:/bin/sh\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\ntcpdump:x:0:\n' > "$ROOT/etc/group"
printf 'hosts: files\n' > "$ROOT/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n' > "$ROOT/etc/hosts"
printf '/bin/sh\n/bin/bash\n' > "$ROOT/etc/shells"   # dropbear logs in only users with a listed shell
mkdir -p "$ROOT/etc/dropbear"
install -m 755 "$HERE/guest-init.sh" "$ROOT/init"
rm -rf "$ROOT"/usr/share/{doc,man,locale,info,lintian} "$ROOT"/usr/lib/x86_64-linux-gnu/gconv

# --- check every ELF binary we care about resolves its libraries inside the root ---
miss=0
for b in usr/bin/ibv_rc_pingpong usr/bin/ibv_ud_pingpong usr/bin/ibv_devinfo usr/bin/ib_write_bw usr/bin/ib_read_bw \
         usr/bin/ib_send_bw bin/ip sbin/ip bin/rdma sbin/rdma usr/bin/rdma sbin/tc usr/sbin/tc usr/bin/tcpdump usr/sbin/tcpdump \
         usr/sbin/xtables-legacy-multi bin/kmod usr/bin/rping usr/sbin/dropbear sbin/ethtool; do
  [ -e "$ROOT/$b" ] || continue
  if chroot "$ROOT" /lib64/ld-linux-x86-64.so.2 --list "/$b" | grep -q 'not found'; then
    echo "MISSING libs for $b:"; chroot "$ROOT" /lib64/ld-linux-x86-64.so.2 --list "/$b" | grep 'not found'; miss=1; fi
done
[ $miss = 0 ] && echo "all binaries resolve"

( cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet ) | gzip -1 > "$CACHE/initrd.cpio.gz"
ls -la "$CACHE/vmlinuz" "$CACHE/initrd.cpio.gz"; du -sh "$ROOT"
