#!/bin/bash
# test-multifile.sh ROCEDUMP CAPTURES PYTHON: rocedump -r A -r B reads several capture files in
# one run, merged in time order as mergecap merges them (input/merge.c): the same per-frame JSON
# and text as rocedump over the file mergecap writes (-I none: each file's interfaces kept apart; a
# pcapng file of several interfaces put in time order by reordercap first, as rocedump reads it),
# but for the frame's file; a capture split by interface into two files gives the copies the
# two-interface pcapng gives; frame numbers, -c and -# count in the merged order; -w keeps every
# file's interfaces and statistics; a bad second file fails as a bad single file does (TAP).
set -u
rd=$1 caps=$2 py=$3
. "$(dirname "$0")/../tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
rxe=$caps/rxe
a=$rxe/rc_pingpong.pcap b=$rxe/write_bw.pcap taps=$rxe/host-taps.pcapng

# the frames of a JSON Lines file, without the "file" member, nor the interface name a pcap
# file's interface takes from its file (mergecap's file leaves it unnamed)
frames() {
	"$py" -c 'import json, os, sys
for l in open(sys.argv[1]):
    o = json.loads(l); f = o.pop("file", None); i = o.get("link", {}).get("interface", {})
    if f and i.get("name") == os.path.basename(f["name"]): del i["name"]
    print(json.dumps(o, sort_keys=True))' "$1"
}

# 1: both files read, the frame count their sum
na=$("$rd" -r "$a" -q | sed -n 's/^\([0-9]*\) frames.*/\1/p')
nb=$("$rd" -r "$b" -q | sed -n 's/^\([0-9]*\) frames.*/\1/p')
nab=$("$rd" -r "$a" -r "$b" -q | sed -n 's/^\([0-9]*\) frames.*/\1/p')
[ -n "$na" ] && [ -n "$nb" ] && [ "$nab" = $((na + nb)) ] && ok "-r A -r B: $nab frames = $na + $nb" ||
	not_ok "-r A -r B reads both" "$na + $nb, got '$nab'"

# 2-4: the same output as over mergecap's file, for several sets of captures and formats
for set in "$a $b" "$b $a $rxe/read_bw.pcap" "$taps $a" "$rxe/send_bw.pcap $rxe/host-taps-loss.pcapng $rxe/vlan_rc_pingpong-any-sll2.pcap"; do
	# a pcapng file of several interfaces is read in time order (input/reorder.c), mergecap keeps
	# each file's order: it merges them put in time order (reordercap) first
	sorted=()
	for f in $set; do
		case $f in
		*.pcapng) reordercap "$f" "$T/$(basename "$f")" >/dev/null && sorted+=("$T/$(basename "$f")") ;;
		*) sorted+=("$f") ;;
		esac
	done
	mergecap -I none -w "$T/merged.pcapng" "${sorted[@]}"
	args=()
	for f in $set; do args+=(-r "$f"); done
	"$rd" "${args[@]}" -T json -vv >"$T/m.json" 2>&1
	"$rd" -r "$T/merged.pcapng" -T json -vv >"$T/g.json" 2>&1
	"$rd" "${args[@]}" -vv >"$T/m.txt" 2>&1
	"$rd" -r "$T/merged.pcapng" -vv >"$T/g.txt" 2>&1
	names=$(for f in $set; do basename "$f"; done | tr '\n' ' ')
	if [ -s "$T/g.json" ] && diff <(frames "$T/m.json") <(frames "$T/g.json") >"$T/d" && cmp -s "$T/m.txt" "$T/g.txt"; then
		ok "$names: the JSON and text of mergecap's file ($(wc -l <"$T/g.json") frames)"
	else
		not_ok "$names: as mergecap's file" "$(head -6 "$T/d")" "$(diff "$T/m.txt" "$T/g.txt" | head -4)"
	fi
done

# 5: each frame's file and its number there; the numbers count in the merged order
"$rd" -r "$a" -r "$b" -T json >"$T/m.json"
"$py" - "$T/m.json" "$a" "$b" >"$T/check" 2>&1 <<'EOF'
import json, sys
seen = {0: 0, 1: 0}
for k, l in enumerate(open(sys.argv[1]), 1):
    o = json.loads(l)
    f = o["file"]
    seen[f["index"]] += 1
    assert o["frame"] == k, (k, o["frame"])
    assert f["name"] == sys.argv[2 + f["index"]], f
    assert f["frame"] == seen[f["index"]], (f, seen)
    assert o["link"]["interface"]["id"] == f["index"], o["link"]
assert seen[0] and seen[1], seen
print("ok", seen)
EOF
grep -q '^ok' "$T/check" && ok "JSON: file.index, file.name, file.frame ($(cat "$T/check"))" ||
	not_ok "JSON file members" "$(cat "$T/check")"

# 6: -Y on the file fields; -e names the file
n1=$("$rd" -r "$a" -r "$b" -Y 'file.index == 1' -T json | wc -l)
line=$("$rd" -r "$a" -r "$b" -e -Y 'file.frame == 3 && file.index == 1')
[ "$n1" = "$nb" ] && [[ $line == *"file 1 ($b) frame 3 if 1 "* ]] && ok "-Y file.index, file.frame; -e: $line" ||
	not_ok "-Y and -e with the file" "$n1 (want $nb)" "$line"

# 7: -c and -# count in the merged order
"$rd" -r "$a" -r "$b" -# >"$T/all.txt"
"$rd" -r "$a" -r "$b" -# -c 7 >"$T/c7.txt"
head -7 "$T/all.txt" >"$T/want.txt"
[ "$(wc -l <"$T/c7.txt")" = 7 ] && cmp -s "$T/c7.txt" "$T/want.txt" && [[ $(tail -1 "$T/all.txt") == "  $((na + nb))  "* ]] &&
	ok "-c 7 -#: the merged order's first 7; -# numbers up to $((na + nb))" ||
	not_ok "-c and -# across files" "$(diff "$T/c7.txt" "$T/want.txt" | head -4)" "$(tail -1 "$T/all.txt")"

# 8: one capture split by interface into two files: the copies of the two-interface pcapng the
# two files merge into (the original's frames are not in time order: its count of copies)
tshark -r "$taps" -Y 'frame.interface_id == 0' -F pcap -w "$T/if0.pcap" >/dev/null 2>&1
tshark -r "$taps" -Y 'frame.interface_id == 1' -F pcap -w "$T/if1.pcap" >/dev/null 2>&1
copies() {
	"$py" -c 'import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l); print(o["frame"], o["ts"], "frame.copy" in o["events"])' "$1"
}
mergecap -I none -w "$T/two-ifaces.pcapng" "$T/if0.pcap" "$T/if1.pcap"
"$rd" -r "$T/two-ifaces.pcapng" -T json >"$T/one.json"
"$rd" -r "$T/if0.pcap" -r "$T/if1.pcap" -T json >"$T/two.json"
ncopy=$(grep -c '"frame.copy"' "$T/two.json")
norig=$("$rd" -r "$taps" -T json | grep -c '"frame.copy"')
if [ -s "$T/if1.pcap" ] && [ "$ncopy" = "$norig" ] && diff <(copies "$T/one.json") <(copies "$T/two.json") >"$T/d"; then
	ok "split by interface: the same $ncopy frame.copy frames as the two-interface pcapng"
else
	not_ok "copies across files" "$ncopy copies, $norig in the original" "$(head -4 "$T/d")"
fi

# 9: a single-interface capture and its copy a microsecond later in a second file: every frame
# of the second is a copy
editcap -t 0.000001 "$a" "$T/later.pcap" >/dev/null 2>&1
q=$("$rd" -r "$a" -r "$T/later.pcap" -q)
[[ $q == *"frame.copy: $na on $na frames"* ]] && ok "a capture and its copy 1 us later: $na copies" ||
	not_ok "a skewed copy in a second file" "$(grep copy <<<"$q")"

# 10: -w keeps every file's interfaces and statistics blocks; its frames read back the same
"$rd" -r "$taps" -r "$a" -w "$T/out.pcapng"
nif=$(capinfos -I "$T/out.pcapng" 2>/dev/null | grep -c 'Interface #')
"$rd" -r "$taps" -r "$a" -q >"$T/q1"
"$rd" -r "$T/out.pcapng" -q >"$T/q2"
if [ "$nif" = 3 ] && diff "$T/q1" "$T/q2" >"$T/d" && grep -q 'statistics of 2 interfaces' "$T/q1"; then
	ok "-w: 3 interfaces, the summary and capture drops read back the same"
else
	not_ok "-w of several files" "interfaces: $nif" "$(head -6 "$T/d")"
fi

# 11-13: a bad second file: the message and exit status of the same file alone
head -c 20000 "$b" >"$T/cut.pcap"
printf 'not a capture file at all' >"$T/junk.pcap"
for bad in "$T/cut.pcap" "$T/junk.pcap" "$T/missing.pcap"; do
	"$rd" -r "$bad" -q >/dev/null 2>"$T/e1"; s1=$?
	"$rd" -r "$a" -r "$bad" -q >/dev/null 2>"$T/e2"; s2=$?
	if [ "$s1" = "$s2" ] && [ "$s1" != 0 ] && cmp -s "$T/e1" "$T/e2" && grep -q "$bad" "$T/e2"; then
		ok "bad second file $(basename "$bad"): exit $s2, $(cat "$T/e2")"
	else
		not_ok "bad second file $(basename "$bad")" "alone: $s1 $(cat "$T/e1")" "second: $s2 $(cat "$T/e2")"
	fi
done

# 14: too many files, standard input twice: usage errors
files=()
for _ in $(seq 65); do files+=(-r "$a"); done
"$rd" "${files[@]}" -q >/dev/null 2>"$T/e"; s=$?
"$rd" -r - -r - -q </dev/null >/dev/null 2>"$T/e2"; s2=$?
[ "$s" = 2 ] && grep -q 'at most 64' "$T/e" && [ "$s2" = 2 ] && ok "65 files, -r - twice: exit 2" ||
	not_ok "too many -r" "$s $(cat "$T/e")" "$s2 $(cat "$T/e2")"

# 15: one and two decoding threads, a filter: the same frames
"$rd" -r "$b" -r "$a" --threads 1 -T json udp >"$T/t1"
"$rd" -r "$b" -r "$a" --threads 2 --batch 16 -T json udp >"$T/t2"
[ -s "$T/t1" ] && cmp -s "$T/t1" "$T/t2" && ok "--threads 1 and 2, a filter: the same $(wc -l <"$T/t1") frames" ||
	not_ok "threads" "$(cmp "$T/t1" "$T/t2")"

# 17: standard input as one of the files (read as it comes): the same frames
"$rd" -r "$b" -r "$taps" -T json | sed 's/"name":"[^"]*"//' >"$T/f1"
"$rd" -r "$b" -r - -T json <"$taps" | sed 's/"name":"[^"]*"//' >"$T/f2"
[ -s "$T/f1" ] && cmp -s "$T/f1" "$T/f2" && ok "-r FILE -r - (a pcapng on standard input): the same $(wc -l <"$T/f1") frames" ||
	not_ok "standard input merged" "$(cmp "$T/f1" "$T/f2")"

echo "1..$n"
[ "$failed" = 0 ]
