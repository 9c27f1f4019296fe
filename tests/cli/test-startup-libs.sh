#!/bin/sh
# test-startup-libs.sh ROCEDUMP CAPTURE: rocedump starts without libmicrohttpd and the TLS
# libraries it pulls in (metrics_out.c loads it with dlopen for --metrics only: linked, they cost
# every run ~3.5 ms of start-up), and --metrics still serves the metrics (TAP).
set -u
rd=$1 cap=$2
echo "1..2"
needed=$(readelf -d "$rd" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case "$needed" in
*microhttpd* | *gnutls* | *nettle*) echo "not ok 1 - rocedump links $needed" ;;
*) echo "ok 1 - shared libraries: $needed" ;;
esac
# a port of our own; the capture from standard input, held open a while after its first frames
port=$((20000 + $$ % 20000))
out=$( { cat "$cap"; sleep 2; } | "$rd" --metrics "127.0.0.1:$port" -q -r - >/dev/null 2>&1 &
	pid=$!
	sleep 1
	/usr/bin/python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=5).read().decode()[:200])" 2>&1
	wait "$pid")
case "$out" in
*rocedump_*) echo "ok 2 - --metrics serves after loading libmicrohttpd" ;;
*) echo "not ok 2 - --metrics: $out" | head -5 ;;
esac
