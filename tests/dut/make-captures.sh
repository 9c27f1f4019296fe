#!/bin/bash
# rocedump DUT harness: regenerate the real Soft-RoCE captures in captures/rxe/.
# usage (as root, from anywhere):  tests/dut/make-captures.sh [WORKDIR]
# Builds the guest image if cache/ lacks it (or guest-init.sh / build-guest.sh are newer), runs the
# scenario batches with run-pair.sh (~85 s each, ~6 min in all), retries every failed scenario once in
# a further batch, then copies each capture to captures/rxe/NAME.pcap[ng] cut to its size budget by
# trim-pcap.py (prefix ending at an exchange boundary), and writes captures/rxe/validation.txt
# (validate-pcaps.py).  WORKDIR (default tests/dut/cache/make-captures) keeps the full captures and logs;
# WORKDIR/failures.txt lists scenarios that failed twice.  Exit status 0 = all captures made.
# Env: DEST (default captures/rxe), RXE_NS (network namespace name, see run-pair.sh), ONLY="scenario ..."
# (regenerate just these; "host-taps" = the PCAPNG_SCEN pcapng run; other files in DEST are kept),
# COPY_ONLY=1 (no guests: redo only the trim/copy/validate steps from an existing WORKDIR).
# Not part of the normal test suite: it needs root, /dev/net/tun, qemu and ~2 min of Debian downloads.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
DEST=${DEST:-$TOP/captures/rxe}
WORK=${1:-$HERE/cache/make-captures}
PY=/usr/bin/python3            # Debian's python3 with python3-scapy
[ "$(id -u)" = 0 ] || { echo "make-captures: needs root" >&2; exit 125; }
for t in qemu-system-x86_64 tshark editcap capinfos tcpdump dumpcap; do
  command -v $t >/dev/null || { echo "make-captures: missing $t (apt-get install qemu-system-x86 tshark tcpdump)" >&2; exit 125; }; done
$PY -c 'import scapy.contrib.roce' 2>/dev/null || { echo "make-captures: $PY lacks scapy (apt-get install python3-scapy)" >&2; exit 125; }
if [ -d "$WORK" ] && [ -n "$(ls -A "$WORK")" ] && [ ! -e "$WORK/.make-captures" ]; then
  echo "make-captures: $WORK exists and is not a make-captures work directory" >&2; exit 125; fi
if [ "${COPY_ONLY:-0}" = 1 ]; then
  [ -s "$WORK/sources.txt" ] || { echo "make-captures: COPY_ONLY=1 needs a finished run in $WORK" >&2; exit 125; }
else
  rm -rf "$WORK"; mkdir -p "$WORK"; touch "$WORK/.make-captures"
fi
mkdir -p "$DEST"; WORK=$(cd "$WORK" && pwd)

# ---- guest image ----
IMG=$HERE/cache/initrd.cpio.gz
if [ "${COPY_ONLY:-0}" != 1 ] && { [ ! -s "$HERE/cache/vmlinuz" ] || [ ! -s "$IMG" ] || [ "$HERE/guest-init.sh" -nt "$IMG" ] || [ "$HERE/build-guest.sh" -nt "$IMG" ]; }; then
  echo "== building guest image (build-guest.sh, ~2 min cold)"
  "$HERE/build-guest.sh" > "$WORK/build-guest.log" 2>&1 || { echo "build-guest.sh failed, see $WORK/build-guest.log" >&2; exit 125; }
fi

# ---- what to run, and which files each scenario yields ----
# batch = one boot of the two guests; PCAPNG_SCEN runs alone with PCAPNG=1 (host dumpcap on both taps)
BATCHES=(
  "rc_pingpong ud_pingpong write_bw read_bw atomic_bw send_bw rc_pingpong_ecn_ce write_bw_loss rc_pingpong_loss"
  "v6_rc_pingpong vlan_rc_pingpong sll_rc_pingpong snap_rc_pingpong erspan2_rc_pingpong erspan3_rc_pingpong ip6erspan_rc_pingpong gretap_rc_pingpong"
  "read_bw_lossy send_bw_reorder cm_send_bw rping rc_pingpong_ecn_part write_bw_ecn_part"
  "rc_pingpong_reorder write_bw_reorder rc_pingpong_dup write_bw_dup vlan_write_bw_loss rc_pingpong_peer_dies"
)
PCAPNG_SCEN=rping
if [ -n "${ONLY:-}" ]; then
  BATCHES=(); b=; for s in $ONLY; do if [ "$s" = host-taps ]; then b0=$PCAPNG_SCEN; else b="$b $s"; fi; done
  [ -n "$b" ] && BATCHES=("$b"); PCAPNG_SCEN=${b0:-}
fi
# outputs SCENARIO -> "SRC:DESTNAME ..." (SRC relative to the batch directory)
outputs() {
  case $1 in
    vlan_rc_pingpong|vlan_write_bw_loss) echo "cli/$1.pcap:$1.pcap cli/$1-any-sll2.pcap:$1-any-sll2.pcap" ;;
    sll_rc_pingpong)  echo "cli/$1-sll.pcap:$1-sll.pcap cli/$1-sll2.pcap:$1-sll2.pcap" ;;
    snap_rc_pingpong) echo "cli/$1-s96.pcap:$1-s96.pcap cli/$1-s200.pcap:$1-s200.pcap" ;;
    erspan*|ip6erspan*|gretap*) echo "srv/$1.pcap:$1.pcap" ;;
    pcapng:*)         echo "host-taps.pcapng:host-taps.pcapng" ;;
    *)                echo "cli/$1.pcap:$1.pcap" ;;
  esac
}
# trim-pcap.py options + size budget per output file (bytes): the total must stay < 4 MB.  Lossy
# scenarios keep their first complete NAK/retransmission episode (--events; may start mid-stream)
budget() {
  case $1 in
    write_bw_loss.pcap|rc_pingpong_loss.pcap|read_bw_lossy.pcap|send_bw_reorder.pcap) echo --events 280000 ;;
    # the verdict captures (captures/rxe/README.md): the committed ones are hand-picked windows
    *_reorder.pcap|vlan_write_bw_loss*.pcap) echo --events 90000 ;;
    *_dup.pcap) echo 70000 ;;
    rc_pingpong_peer_dies.pcap) echo --tail 70000 ;;   # the 8th resend of one PSN is near the end
    snap_rc_pingpong-s200.pcap) echo 200000 ;;    # whole run (~193 KB)
    *) echo 120000 ;;
  esac
}

declare -A DIR=()       # scenario -> batch directory holding its good (or last) result
FAILED=()
# ok BATCHDIR SCENARIO -> 0 if both guests reported rc=0 and every output has RoCE frames
ok() {
  local d=$1 s=${2#pcapng:} o src
  grep -qx "srv $s rc=0" "$d/srv/status.txt" 2>/dev/null && grep -qx "cli $s rc=0" "$d/cli/status.txt" 2>/dev/null || return 1
  for o in $(outputs "$2"); do src=$d/${o%%:*}
    [ -s "$src" ] && [ "$(tshark -r "$src" -Y infiniband 2>/dev/null | wc -l)" -gt 0 ] || return 1; done
}
run_batch() {  # NAME PCAPNG(0|1) SCENARIO...
  local name=$1 png=$2; shift 2
  echo "== batch $name: $*"
  PCAPNG=$png "$HERE/run-pair.sh" "$WORK/$name" "$@" > "$WORK/$name.log" 2>&1
  local rc=$?; [ $rc = 0 ] || echo "   run-pair.sh exit $rc (see $WORK/$name.log)"
}
check_batch() {  # NAME KEYPREFIX SCENARIO...   -> fills DIR, prints status, returns failed list in RETRY
  local name=$1 pre=$2 s; shift 2; RETRY=()
  for s in "$@"; do
    DIR[$pre$s]=$WORK/$name
    if ok "$WORK/$name" "$pre$s"; then echo "   ok     $pre$s"; else echo "   FAILED $pre$s"; RETRY+=("$s"); fi
  done
}

if [ "${COPY_ONLY:-0}" != 1 ]; then
T0=$(date +%s); ALLRETRY=(); PNGRETRY=()
i=0
for b in "${BATCHES[@]}"; do
  i=$((i+1)); run_batch batch$i 0 $b; check_batch batch$i "" $b; ALLRETRY+=("${RETRY[@]}")
done
if [ -n "$PCAPNG_SCEN" ]; then
  run_batch pcapng 1 $PCAPNG_SCEN; check_batch pcapng "pcapng:" $PCAPNG_SCEN; PNGRETRY=("${RETRY[@]}"); fi
if [ ${#ALLRETRY[@]} -gt 0 ]; then
  run_batch retry 0 "${ALLRETRY[@]}"; check_batch retry "" "${ALLRETRY[@]}"; for s in "${RETRY[@]}"; do FAILED+=("$s"); done
fi
if [ ${#PNGRETRY[@]} -gt 0 ]; then
  run_batch retry-pcapng 1 "${PNGRETRY[@]}"; check_batch retry-pcapng "pcapng:" "${PNGRETRY[@]}"
  for s in "${RETRY[@]}"; do FAILED+=("pcapng:$s"); done
fi
echo "== scenarios done after $(( $(date +%s)-T0 ))s"
for k in "${!DIR[@]}"; do echo "$k ${DIR[$k]}"; done | sort > "$WORK/sources.txt"
printf '%s\n' "${ALLRETRY[@]}" "${PNGRETRY[@]/#/pcapng:}" | grep . > "$WORK/retried.txt" || : > "$WORK/retried.txt"
printf '%s\n' "${FAILED[@]}" | grep . > "$WORK/failures.txt" || : > "$WORK/failures.txt"
fi
DIR=(); while read -r k d; do DIR[$k]=$d; done < "$WORK/sources.txt"

# ---- copy + trim into DEST ----
echo "== copying into $DEST"
rm -f "$DEST/validation.txt"
for k in $(printf '%s\n' "${!DIR[@]}" | sort); do
  for o in $(outputs "$k"); do
    src=${DIR[$k]}/${o%%:*}; dst=$DEST/${o#*:}
    if [ -s "$src" ] && [ "$(tshark -r "$src" -Y infiniband 2>/dev/null | wc -l)" -gt 0 ]; then
      $PY "$HERE/trim-pcap.py" $(budget "${o#*:}") "$src" "$dst" || echo "   trim failed: $src"
    else echo "   no usable $src: $( [ -e "$dst" ] && echo "kept the previous $dst" || echo "no $dst")"; fi
  done
done

# ---- validate ----
( cd "$DEST" && $PY "$HERE/validate-pcaps.py" $(ls *.pcap *.pcapng 2>/dev/null) ) > "$DEST/validation.txt" 2>"$WORK/validate.err"; vrc=$?
( cd "$DEST" && $PY "$HERE/validate-pcaps.py" --json $(ls *.pcap *.pcapng 2>/dev/null) ) > "$WORK/validation.json" 2>/dev/null
[ $vrc = 0 ] || echo "validate-pcaps.py: ICRC errors (exit $vrc), see $DEST/validation.txt"
ls -l "$DEST"; echo "total: $(cat "$DEST"/*.pcap "$DEST"/*.pcapng 2>/dev/null | wc -c) bytes"
[ -s "$WORK/retried.txt" ] && echo "failed once, retried: $(tr '\n' ' ' < "$WORK/retried.txt")"
if [ -s "$WORK/failures.txt" ]; then echo "FAILED twice: $(tr '\n' ' ' < "$WORK/failures.txt")"; exit 1; fi
exit $vrc
