#!/bin/sh
# check-captures.sh: the committed synthetic captures are exactly what the generator makes today
# (deterministic output, and nobody edited a capture or the generator without the other).
#   check-captures.sh GENCAPS CAPTURES_GEN_DIR
set -eu
gencaps=$1 committed=$2
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
"$gencaps" "$fresh"
status=0
for f in "$fresh"/*.pcap "$fresh"/*.pcapng; do
	name=$(basename "$f")
	if ! cmp -s "$f" "$committed/$name"; then
		echo "differs from the generator: captures/gen/$name (run: gencaps captures/gen)" >&2
		status=1
	fi
done
for f in "$committed"/*.pcap "$committed"/*.pcapng; do
	[ -e "$fresh/$(basename "$f")" ] || { echo "not made by the generator: $f" >&2; status=1; }
done
exit $status
