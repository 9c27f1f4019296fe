# rocedump DUT harness, guest side of role "dut" (sourced by guest-scenarios.sh; started by run-dut.sh):
# the guest is a device under test for roceconform. It serves, each in a loop that RESTARTS it after every
# run (whatever its exit status, each run under `timeout` so that a wedged QP cannot block the next test):
#   ibv_rc_pingpong -d rxe0 -g GIDX -n 1 -s SIZE -m MTU   on PORT (18515)
#   ib_write_bw / ib_read_bw / ib_atomic_bw -d rxe0 -x GIDX -m MTU  on PORT+1, PORT+2, PORT+3 (when PERFTEST=1;
#   each run limited to PT_TIMEOUT s)
#   rping -s -a IP -S RPING_SIZE -v  on RPING_PORT (7174; when RPING=1: RDMA-CM, its listener seen in
#   `rdma res show cm_id`)
# Settings: /mnt/out/dut.conf (written by run-dut.sh). Control files in /mnt/out: "stop" ends every loop and
# the guest; "pause-NAME" keeps loop NAME (rcpp, write, read, atomic) from starting new runs and ends its
# current one (a server stopped mid-run, for the harness's own tests); "hold-NAME" keeps it from starting
# new runs and lets the current one end by itself (a server that serves once more, then is gone).
# Written to /mnt/out: listening-NAME (run number last seen listening), runs.log (one line per run: loop,
# status ok/timeout/error/stopped, exit code, guest uptimes, non-zero rxe hw_counter deltas), NAME-NNN.log.
O=/mnt/out
SIZE=4096 MTU=1024 GIDX=1 PORT=18515 RUN_TIMEOUT=30 PERFTEST=1 PT_TIMEOUT=600 RPING=0 RPING_PORT=7174 RPING_SIZE=64 IP=
[ -f $O/dut.conf ] && . $O/dut.conf
CNT=/sys/class/infiniband/rxe0/ports/1/hw_counters
up() { cut -d' ' -f1 /proc/uptime; }
listening() {  # listening PORT (TCP, or an RDMA-CM listener: rping)
  local h; h=$(printf '%04X' "$1")
  rdma res show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr [^ ]*:$1\( \|$\)" && return 0
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$h" '$4=="0A" && substr($2, length($2)-4)==p {f=1} END {exit !f}'
}
counters() { for f in $CNT/*; do echo "${f##*/}=$(cat $f 2>/dev/null || echo 0)"; done; }
delta() {  # delta BEFORE AFTER: the non-zero differences
  awk -F= 'NR==FNR {a[$1]=$2; next} ($2 - a[$1]) != 0 {printf "%s%s+%d", s, $1, $2 - a[$1]; s=" "}' "$1" "$2"
}
serve() {  # serve NAME PORT LIMIT COMMAND...
  local name=$1 port=$2 limit=$3 n=0 id t0 tl P rc st; shift 3
  while [ ! -e $O/stop ]; do
    if [ -e $O/pause-$name ] || [ -e $O/hold-$name ]; then sleep 0.3; continue; fi
    n=$((n + 1)); id=$(printf %03d $n); t0=$(up); tl=-
    counters > /tmp/before-$name
    timeout "$limit" "$@" -p "$port" > $O/$name-$id.log 2>&1 & P=$!
    echo $P > /tmp/srv-$name.pid
    for i in $(seq 1 300); do
      if listening "$port"; then tl=$(up); echo "$n" > $O/listening-$name; break; fi
      kill -0 $P 2>/dev/null || break
      sleep 0.05
    done
    wait $P; rc=$?
    counters > /tmp/after-$name
    # busybox timeout kills with SIGTERM (rc 143); coreutils' exits 124
    case $rc in 0) st=ok;; 124|143) [ -e $O/stop ] && st=stopped || st=timeout;; *) st=error;; esac
    echo "loop=$name run=$n status=$st rc=$rc start=$t0 listen=$tl end=$(up) | $(delta /tmp/before-$name /tmp/after-$name)" >> $O/runs.log
    [ "$tl" = - ] && [ $st = error ] && sleep 1   # failed before listening: do not spin
  done
}
echo "# loop run status rc start listen end (guest uptime s) | rxe hw_counters deltas" > $O/runs.log
echo "== DUT: rxe0, GID index $GIDX, restarting servers, ${RUN_TIMEOUT}s per run"
serve rcpp "$PORT" "$RUN_TIMEOUT" ibv_rc_pingpong -d rxe0 -g "$GIDX" -n 1 -s "$SIZE" -m "$MTU" &
if [ "$PERFTEST" = 1 ]; then
  # a perftest server waits in accept() and, after a test, in its end exchange: a long limit keeps idle
  # servers from being restarted (slow under TCG) while the tests run
  serve write $((PORT + 1)) "$PT_TIMEOUT" ib_write_bw -F -d rxe0 -x "$GIDX" -m "$MTU" &
  serve read $((PORT + 2)) "$PT_TIMEOUT" ib_read_bw -F -d rxe0 -x "$GIDX" -m "$MTU" &
  serve atomic $((PORT + 3)) "$PT_TIMEOUT" ib_atomic_bw -F -d rxe0 -x "$GIDX" -m "$MTU" &
fi
if [ "$RPING" = 1 ]; then
  serve rping "$RPING_PORT" "$RUN_TIMEOUT" rping -s -a "$IP" -S "$RPING_SIZE" -v &
fi
# stop watcher: once "stop" (or a pause) appears, end the current run of the loops concerned
while [ ! -e $O/stop ]; do
  for p in /tmp/srv-*.pid; do
    name=${p#/tmp/srv-}; name=${name%.pid}
    [ -e $O/pause-$name ] && kill "$(cat "$p")" 2>/dev/null
  done
  sleep 0.3
done
for p in /tmp/srv-*.pid; do kill "$(cat "$p")" 2>/dev/null; done
wait
echo "== DUT: stopped at uptime $(up)s"
