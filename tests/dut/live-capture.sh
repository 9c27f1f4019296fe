#!/bin/bash
# rocedump DUT harness: the host-side captures of test-live-dut.sh, run by run-pair.sh (HOST_CAPTURE) in
# the DUT's namespace while the guests' RoCE traffic goes on. usage: live-capture.sh OUTDIR
# (env ROCEDUMP = the rocedump to test, LIVE_IFACE = the tap, default rxetap1, the client guest's).
# Three captures of the client's tap at once, each from the kernel's own time stamps in nanoseconds:
#   live.json      rocedump -i -T json -vv --summary --metrics-file live.prom   (frames, findings, streams)
#   live-q.json    rocedump -i -q -T json -w live.pcapng --metrics 127.0.0.1:9319 (summary, written frames,
#                  metrics served over HTTP; live-scrape.prom is the last scrape, taken before the end)
#   tcpdump.pcap   tcpdump -w --time-stamp-precision nano                    (the offline reference)
# and two of the server's tap (LIVE_MIRROR_IFACE, default rxetap0), where the server's ERSPAN mirror
# sessions (scenario erspan*) send GRE to a collector the host bridge swallows:
#   erspan.json    rocedump -i -T json -vv 'proto gre'
#   erspan.pcap    tcpdump -w --time-stamp-precision nano 'proto gre'
# Creates OUTDIR/host-capture.ready once all five listen; on SIGTERM (run-pair.sh's: a script started in
# the background ignores SIGINT) scrapes the metrics, stops the five with SIGINT (their standard error:
# *.err) and exits.
set -u
O=$1 R=${ROCEDUMP:?} IF=${LIVE_IFACE:-rxetap1} MIF=${LIVE_MIRROR_IFACE:-rxetap0} PORT=9319
cd "$O" || exit 1
P=()
# One time stamp per frame for every packet socket: the kernel stamps a frame once, in its shared
# buffer, only while some socket asks for receive time stamps (net_enable_timestamp); otherwise
# each capture socket reads the clock itself as the frame passes it, and frames the host forwards
# out of a tap get a few hundred ns apart in each capture. This holder asks (SO_TIMESTAMPNS), so
# that the live and offline outputs can be compared time stamps included.
/usr/bin/python3 -c 'import socket, signal
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 35, 1)  # SO_TIMESTAMPNS
signal.pause()' &
STAMPER=$!
sleep 0.5  # the kernel turns stamping on from a work item
stop() {
	sleep 1.5   # the metrics snapshot is at most ~1 s old: let it take the last frames in
	curl -sf "http://127.0.0.1:$PORT/metrics" >live-scrape.prom || echo "live-capture: scrape failed"
	kill -INT "${P[@]}" 2>/dev/null
	wait "${P[@]}"
	kill "$STAMPER" 2>/dev/null
	echo "live-capture: stopped"
	exit 0
}
trap stop INT TERM
"$R" -i "$IF" -T json -vv --summary --metrics-file live.prom >live.json 2>live.err &
P+=($!)
"$R" -i "$IF" -q -T json -w live.pcapng --metrics 127.0.0.1:$PORT >live-q.json 2>live-q.err &
P+=($!)
tcpdump -i "$IF" -s 0 -U --time-stamp-precision nano -w tcpdump.pcap 2>tcpdump.err &
P+=($!)
"$R" -i "$MIF" -T json -vv 'proto gre' >erspan.json 2>erspan.err &
P+=($!)
tcpdump -i "$MIF" -s 0 -U --time-stamp-precision nano -w erspan.pcap 'proto gre' 2>erspan-tcpdump.err &
P+=($!)
ERRS=(live.err live-q.err tcpdump.err erspan.err erspan-tcpdump.err)
for _ in $(seq 300); do
	[ "$(grep -l 'listening on' "${ERRS[@]}" 2>/dev/null | wc -l)" = ${#ERRS[@]} ] && break
	sleep 0.1
done
echo "live-capture: listening on $IF (rocedump ${P[0]} and ${P[1]}, tcpdump ${P[2]}) and $MIF (rocedump ${P[3]}, tcpdump ${P[4]})"
sleep 0.3  # a fresh ring settles (tests/live/test-live.sh)
touch host-capture.ready
while :; do sleep 1 & wait $!; done  # until SIGTERM
