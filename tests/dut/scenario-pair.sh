# rocedump DUT harness, guest side: the RoCEv2 scenarios run by run-pair.sh.
# Sourced by guest-scenarios.sh in both guests: role "srv" (10.77.0.1) or "cli" (10.77.0.2); both walk
# the same list (TCP port 18516 + position) so the servers and clients pair up.  Client-side tcpdump
# writes one pcap per scenario into /mnt/out (mirror captures: srv side); every scenario appends
# "ROLE SCENARIO rc=N" to /mnt/out/status.txt (N = the tool's exit status; 124/143 = timeout).
# Scenario list: /mnt/out/scenarios.txt (written by run-pair.sh), else the default nine below.
O=/mnt/out; GID=1   # gid index 1 = IPv4-mapped GID (RoCEv2 over IPv4)
SCEN=${SCEN:-$(cat /mnt/out/scenarios.txt 2>/dev/null || echo "rc_pingpong ud_pingpong write_bw read_bw atomic_bw send_bw rc_pingpong_ecn_ce write_bw_loss rc_pingpong_loss")}
T() { timeout 90 "$@"; }   # rxe treats retry_cnt=7 as infinite: a lost final ACK can hang the client
netem_on()  { /sbin/tc qdisc add dev eth0 root netem loss ${1:-5}%; }
netem_off() { /sbin/tc qdisc del dev eth0 root 2>/dev/null; }
ce_on()  { /usr/sbin/iptables -t mangle -A POSTROUTING -p udp --dport 4791 -j ECN --ecn-ip-ect 3; }
# CE on about one packet in ten (xt_statistic), for CE->CNP matching on partly marked traffic
ce_part_on() { /usr/sbin/iptables -t mangle -A POSTROUTING -p udp --dport 4791 -m statistic --mode random --probability 0.1 -j ECN --ecn-ip-ect 3; }
ce_off() { /usr/sbin/iptables -t mangle -F POSTROUTING 2>/dev/null; }
# client retries until the server side is listening
# (retry only while the TCP out-of-band exchange cannot connect yet)
retry() { local i rc; for i in $(seq 1 40); do "$@" > /tmp/try.log 2>&1; rc=$?; cat /tmp/try.log
          grep -q "Couldn't connect\|Unable to init the socket" /tmp/try.log || return $rc; sleep 1.5; done; return 1; }
cap_start() { tcpdump -i eth0 -U -s 0 -c 4000 -w $O/$1.pcap udp port 4791 >$O/$1.tcpdump.log 2>&1 & CAP=$!; sleep 1; }
cap_stop()  { sleep 1; kill -INT $CAP; wait $CAP; }
# ---- extra scenarios (IPv6, VLAN, snaplen, SLL/SLL2, ERSPAN/gretap mirrors, lossy READ, reorder, RDMA-CM) ----
NID=${MYIP%%/*}; NID=${NID##*.}          # 1 = srv, 2 = cli
PNID=${PEER##*.}
XCAPS=
# extra capture in the background: capx NAME TCPDUMP-ARGS...   (file $O/NAME.pcap, <= 4000 pkts)
capx() { local n=$1; shift; tcpdump -U -c 4000 -w $O/$n.pcap "$@" >$O/$n.tcpdump.log 2>&1 & XCAPS="$XCAPS $!"; }
capx_stop() { local c; sleep 1; for c in $XCAPS; do kill -INT $c 2>/dev/null; done; for c in $XCAPS; do wait $c; done; XCAPS=; }
# gid_idx RDMADEV NETDEV REGEX -> index of the first GID of NETDEV matching REGEX (waits up to 5 s)
gid_idx() { local f i t; for t in $(seq 1 50); do for f in /sys/class/infiniband/$1/ports/1/gids/*; do i=${f##*/}
              [ "$(cat /sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/$i 2>/dev/null)" = "$2" ] || continue
              grep -q "$3" $f && { echo $i; return 0; }; done; sleep 0.1; done; echo 1; return 1; }
v6_on()  { ip -6 addr add fd77::$NID/64 dev eth0 nodad; }
v6_off() { ip -6 addr del fd77::$NID/64 dev eth0 2>/dev/null; }
# VLAN 77 on eth0, PCP 3 for every skb priority; 10.77.0.1N/32 on eth0.77.  rxe refuses a VLAN netdev
# ("rxe creation allowed on top of a real device only"), but ib_core adds the upper VLAN device's
# addresses to rxe0's GID table (gid_attrs/ndevs = eth0.77) and rxe sends those through eth0.77
vlan_on() { modprobe 8021q; ip link add link eth0 name eth0.77 type vlan id 77 egress-qos-map 0:3 1:3 2:3 3:3 4:3 5:3 6:3 7:3
            ip link set eth0.77 up; ip addr add 10.77.0.1$NID/32 dev eth0.77; ip route add 10.77.0.1$PNID/32 dev eth0.77; }
vlan_off() { ip link del eth0.77 2>/dev/null; }
# srv only: mirror eth0 (ingress: everything, egress: UDP/TCP/ARP -- never GRE, no loop) into tunnel device(s)
MIRMAC=02:77:00:00:00:c8     # fake collector 10.77.0.200 / fd77::200 (static neighbour; host bridge drops it)
mirror_on() { local t=$1 d; modprobe sch_ingress; modprobe act_mirred; modprobe cls_u32; modprobe cls_matchall
  ip neigh replace 10.77.0.200 lladdr $MIRMAC dev eth0 nud permanent
  case $t in
    erspan2)  ip link add ersp1 type erspan local 10.77.0.1 remote 10.77.0.200 seq key 101 erspan_ver 1 erspan 4242; MI=ersp1; ME=ersp1 ;;
    erspan3)  ip link add ersp2i type erspan local 10.77.0.1 remote 10.77.0.200 seq key 102 erspan_ver 2 erspan_dir ingress erspan_hwid 5
              ip link add ersp2e type erspan local 10.77.0.1 remote 10.77.0.200 seq key 103 erspan_ver 2 erspan_dir egress erspan_hwid 5
              MI=ersp2i; ME=ersp2e ;;
    ip6erspan) ip -6 addr add fd77::1/64 dev eth0 nodad; ip -6 neigh replace fd77::200 lladdr $MIRMAC dev eth0 nud permanent
              ip link add ersp6 type ip6erspan local fd77::1 remote fd77::200 seq key 105 erspan_ver 1 erspan 4343; MI=ersp6; ME=ersp6 ;;
    gretap)   ip link add gtap1 type gretap local 10.77.0.1 remote 10.77.0.200 seq key 104; MI=gtap1; ME=gtap1 ;;
    # mirrors_*: each guest its own session, both directions of its eth0 (the session id is the key):
    # srv ERSPAN II session 201, cli ERSPAN III session 202 (a Linux ERSPAN III device stamps one
    # direction, ingress here, on every frame it sends: one point per session)
    mirrors)  if [ $NID = 1 ]; then ip link add mirs type erspan local 10.77.0.1 remote 10.77.0.200 seq key 201 erspan_ver 1 erspan 201
              else ip link add mirs type erspan local 10.77.0.2 remote 10.77.0.200 seq key 202 erspan_ver 2 erspan_dir ingress erspan_hwid 7; fi
              MI=mirs; ME=mirs ;;
  esac
  for d in $MI $ME; do ip link set $d up; done
  tc qdisc add dev eth0 clsact
  tc filter add dev eth0 ingress matchall action mirred egress mirror dev $MI
  tc filter add dev eth0 egress protocol ip pref 1 u32 match ip protocol 17 0xff action mirred egress mirror dev $ME
  tc filter add dev eth0 egress protocol ip pref 2 u32 match ip protocol 6 0xff action mirred egress mirror dev $ME
  tc filter add dev eth0 egress protocol arp pref 3 matchall action mirred egress mirror dev $ME
  ip -d link show $MI; [ $ME != $MI ] && ip -d link show $ME; tc -s filter show dev eth0 ingress; }
mirror_off() { tc -s filter show dev eth0 egress; tc qdisc del dev eth0 clsact 2>/dev/null
  for d in ersp1 ersp2i ersp2e ersp6 gtap1 mirs; do ip link del $d 2>/dev/null; done; ip -6 addr del fd77::1/64 dev eth0 2>/dev/null; }
# retry patterns of the RDMA-CM tools while the server is not listening yet
retrycm() { local i rc; for i in $(seq 1 20); do "$@" > /tmp/try.log 2>&1; rc=$?; cat /tmp/try.log
          grep -qi "REJECTED\|UNREACHABLE\|Unable to perform rdma_client\|connect error\|Couldn't connect\|Failed to" /tmp/try.log || return $rc; sleep 1.5; done; return 1; }
is_new() { case $1 in br_*|mirrors_*|v6_*|vlan_*|snap_*|sll_*|erspan*|ip6erspan*|gretap*|read_bw_lossy|send_bw_reorder|cm_send_bw|rping) return 0;;
             *_reorder|*_dup|rc_pingpong_peer_dies) return 0;; esac; return 1; }
# the verdict scenarios: netem on both guests' eth0 egress (tcpdump taps after it: a duplicate is seen
# twice, a frame the peer's netem drops is never seen)
verdict_netem() { case $1 in
    rc_pingpong_reorder|write_bw_reorder) tc qdisc add dev eth0 root netem delay 1ms reorder 25% 50% ;;  # no loss
    *_dup) tc qdisc add dev eth0 root netem duplicate 5% ;;
    vlan_*_loss) tc qdisc add dev eth0 root netem loss 3% ;;
  esac; }
# rc_pingpong_peer_dies: the server stops hearing its peer (iptables drops RoCE on its INPUT) once
# rxe0 has received 300 packets of the exchange: the client's next SEND is never acknowledged and
# its rxe resends it for ever (retry count 7 = unlimited in rxe) until the client's timeout 20 s.
# Exit status 0 when that is what happened (the client ran until the timeout; the server is killed at the end).
peer_dies() { local pid rc c=/sys/class/infiniband/$dev/ports/1/hw_counters/rcvd_pkts n0
  if [ "$ROLE" = srv ]; then
    n0=$(cat $c); ibv_rc_pingpong -d $dev -g $g -p $p -n 1000000 -s 64 > /tmp/peer.log 2>&1 & pid=$!
    for i in $(seq 1 900); do [ $(($(cat $c) - n0)) -gt 300 ] && break; sleep 0.1; done
    /usr/sbin/iptables -I INPUT -p udp --dport 4791 -j DROP
    echo "gone deaf after $(($(cat $c) - n0)) packets received"
    sleep 22; kill -9 $pid; wait $pid; /usr/sbin/iptables -D INPUT -p udp --dport 4791 -j DROP; cat /tmp/peer.log
  else
    local t0=$SECONDS
    retry timeout 20 ibv_rc_pingpong -d $dev -g $g -p $p -n 1000000 -s 64 $peer; rc=$?
    echo "client ended after $((SECONDS - t0)) s, exit status $rc"
    [ $((SECONDS - t0)) -ge 19 ]  # it never finished: the timeout stopped it (its status varies: 124, 1)
  fi; }
# br_* (the host captures them on its bridges; no capture in the guest): more, smaller messages, so
# that a few per cent of loss on a hop gives tens of drops while the capture stays small (write_bw:
# each loss resends what was in flight after it, go-back-N)
# mirrors_* (both guests mirror into ERSPAN, the host collects): 400 exchanges of 64 B, every frame twice
rc_size()    { case $1 in br_*) printf %s "-n 400 -s 256";; mirrors_*) printf %s "-n 400 -s 64";; *) printf %s "-n 100";; esac; }
write_size() { case $1 in br_*) printf %s "-n 500 -s 256";; *) printf %s "-n 100 -s 8192";; esac; }
run_new() {  # $1 = scenario; uses $p, $ROLE, $PEER
  local s=$1 dev=rxe0 g=$GID peer= tool rc
  [ "$ROLE" = cli ] && peer=$PEER
  case $s in
    *rc_pingpong*|erspan*|ip6erspan*|gretap*) tool=rc;; *write_bw*) tool=write;; *read_bw*) tool=read;;
    *send_bw*) tool=send;; rping) tool=rping;; esac
  case $s in
    v6_*)  v6_on; g=$(gid_idx rxe0 eth0 "^fd77:0000:0000:0000:0000:0000:0000:000$NID") ;;
    vlan_*) vlan_on; g=$(gid_idx rxe0 eth0.77 "ffff:0a4d:$(printf %04x $((10+NID)))") ;;
    read_bw_lossy) tc qdisc add dev eth0 root netem loss 4% ;;
    send_bw_reorder) tc qdisc add dev eth0 root netem loss 2% delay 1ms reorder 25% 50% ;;
  esac
  verdict_netem $s
  echo "$ROLE $s: dev=$dev gid_index=$g"; cat /sys/class/infiniband/$dev/ports/1/gids/$g
  if [ "${s#mirrors_}" != "$s" ]; then
    mirror_on mirrors > $O/$ROLE-$s-mirror.log 2>&1   # the host captures the sessions; no capture here
  elif [ "$ROLE" = srv ]; then
    case $s in erspan*|ip6erspan*|gretap*) mirror_on ${s%%_*} > $O/srv-$s-mirror.log 2>&1
      capx $s -i eth0 -s 0 "ip proto 47 or dst host fd77::200";; esac   # ip6erspan: a dest-options header (encaplimit 4) precedes GRE
  elif [ "${s#br_}" = "$s" ]; then
    sleep 1
    case $s in
      vlan_*) capx $s -i eth0 -s 0; capx $s-any-sll2 -i any -y LINUX_SLL2 -s 0 udp port 4791 ;;
      snap_*) capx $s-s0 -i eth0 -s 0 udp port 4791; capx $s-s96 -i eth0 -s 96 udp port 4791; capx $s-s200 -i eth0 -s 200 udp port 4791 ;;
      sll_*)  capx $s-sll2 -i any -y LINUX_SLL2 -s 0 udp port 4791; capx $s-sll -i any -y LINUX_SLL -s 0 udp port 4791 ;;
      *) capx $s -i eth0 -s 0 udp port 4791 ;;
    esac
    sleep 1
  fi
  case $tool in
    rc)    if [ $s = rc_pingpong_peer_dies ]; then peer_dies; else retry T ibv_rc_pingpong -d $dev -g $g -p $p $(rc_size $s) $peer; fi ;;
    write) retry T ib_write_bw -F -d $dev -x $g -p $p $(write_size $s) $peer ;;
    read)  retry T ib_read_bw  -F -d $dev -x $g -p $p -n 100 -s 8192 $peer ;;
    send)  if [ $s = cm_send_bw ]; then [ $ROLE = cli ] && sleep 2; retrycm T ib_send_bw -R -F -d $dev -p $p -n 20 -s 4096 $peer
           else retry T ib_send_bw -F -d $dev -x $g -p $p -n 100 -s 4096 $peer; fi ;;
    rping) if [ $ROLE = srv ]; then T rping -s -v -a 10.77.0.1 -p $p -C 10 -S 1024
           else sleep 2; retrycm T rping -c -v -a 10.77.0.1 -p $p -C 10 -S 1024; fi ;;
  esac > $O/$ROLE-$s.log 2>&1; rc=$?
  [ "$ROLE" = cli ] && sleep 1
  capx_stop
  echo "$ROLE $s rc=$rc $(echo "$(cut -d" " -f1 /proc/uptime)-$st"|bc)s"
  echo "$ROLE $s rc=$rc" >> $O/status.txt
  for f in $O/$s*.pcap; do [ -f $f ] && echo "   $f: $(tcpdump -r $f 2>/dev/null | wc -l) pkts"; done
  case $s in
    v6_*) v6_off;; vlan_*) vlan_off; tc qdisc del dev eth0 root 2>/dev/null;; read_bw_lossy|send_bw_reorder) tc qdisc del dev eth0 root 2>/dev/null;;
    *_reorder|*_dup) tc qdisc del dev eth0 root 2>/dev/null;;
    erspan*|ip6erspan*|gretap*) [ "$ROLE" = srv ] && mirror_off >> $O/srv-$s-mirror.log 2>&1;;
    mirrors_*) mirror_off >> $O/$ROLE-$s-mirror.log 2>&1;;
  esac
  [ "$ROLE" = cli ] && sleep 2
  return 0
}
echo "== scenarios: $SCEN"
p=18515
for s in $SCEN; do
  p=$((p+1)); st=$(cut -d" " -f1 /proc/uptime)
  if is_new $s; then run_new $s; continue; fi
  case $s in *_loss) netem_on 5;; *_ecn_ce) ce_on;; *_ecn_part) ce_part_on;; esac
  if [ "$ROLE" = srv ]; then
    case $s in
      rc_pingpong*) T ibv_rc_pingpong -d rxe0 -g $GID -p $p -n 100 ;;
      ud_pingpong)  T ibv_ud_pingpong -d rxe0 -g $GID -p $p -n 100 -s 512 ;;
      write_bw*)    T ib_write_bw -F -d rxe0 -x $GID -p $p -n 100 -s 8192 ;;
      read_bw)      T ib_read_bw   -d rxe0 -x $GID -p $p -n 100 -s 8192 ;;
      atomic_bw)    T ib_atomic_bw -F -d rxe0 -x $GID -p $p -n 100 ;;
      send_bw)      T ib_send_bw   -d rxe0 -x $GID -p $p -n 100 -s 4096 ;;
    esac > $O/srv-$s.log 2>&1; rc=$?; echo "srv $s rc=$rc $(echo "$(cut -d" " -f1 /proc/uptime)-$st"|bc)s"
    echo "srv $s rc=$rc" >> $O/status.txt
  else
    cap_start $s
    case $s in
      rc_pingpong*) retry T ibv_rc_pingpong -d rxe0 -g $GID -p $p -n 100 $PEER ;;
      ud_pingpong)  retry T ibv_ud_pingpong -d rxe0 -g $GID -p $p -n 100 -s 512 $PEER ;;
      write_bw*)    retry T ib_write_bw -F -d rxe0 -x $GID -p $p -n 100 -s 8192 $PEER ;;
      read_bw)      retry T ib_read_bw   -d rxe0 -x $GID -p $p -n 100 -s 8192 $PEER ;;
      atomic_bw)    retry T ib_atomic_bw -F -d rxe0 -x $GID -p $p -n 100 $PEER ;;
      send_bw)      retry T ib_send_bw   -d rxe0 -x $GID -p $p -n 100 -s 4096 $PEER ;;
    esac > $O/cli-$s.log 2>&1; rc=$?
    cap_stop; echo "cli $s rc=$rc $(echo "$(cut -d" " -f1 /proc/uptime)-$st"|bc)s pkts=$(tcpdump -r $O/$s.pcap 2>/dev/null | wc -l)"
    echo "cli $s rc=$rc" >> $O/status.txt
    sleep 2
  fi
  netem_off; ce_off
done
cat /sys/class/infiniband/rxe0/ports/1/hw_counters/* >/dev/null 2>&1
for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do echo "$ROLE counter $(basename $f)=$(cat $f)"; done > $O/$ROLE-counters.txt
