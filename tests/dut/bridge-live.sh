#!/bin/bash
# rocedump DUT harness: run-pair.sh's HOST_CAPTURE for TOPO=two-bridges (make-bridge-captures.sh with
# ROCEDUMP set): rocedump -i brA -i brB -q -T json 'udp port 4791', live on both bridges at once
# beside dumpcap's file, each bridge a capture point, into OUTDIR/live-bridges.json (standard error:
# live-bridges.err). usage: bridge-live.sh OUTDIR (env ROCEDUMP = the rocedump to run). Creates
# OUTDIR/host-capture.ready once it listens on both; on SIGTERM (run-pair.sh's, after the guests and
# dumpcap are done) stops it with SIGINT, which writes the summary, and exits.
set -u
O=$1 R=${ROCEDUMP:?}
cd "$O" || exit 1
"$R" -i brA -i brB -q -T json 'udp port 4791' >live-bridges.json 2>live-bridges.err &
P=$!
stop() { kill -INT $P; wait $P; echo "bridge-live: rocedump exit $?"; exit 0; }
trap stop INT TERM
for _ in $(seq 200); do
	[ "$(grep -c 'listening on' live-bridges.err)" = 2 ] && break
	kill -0 $P 2>/dev/null || { echo "bridge-live: rocedump did not start: $(cat live-bridges.err)"; exit 1; }
	sleep 0.05
done
touch host-capture.ready
wait $P
