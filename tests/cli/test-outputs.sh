#!/bin/bash
# test-outputs.sh ROCEDUMP CAPTURES PYTHON: what rocedump writes leaves its input whole and reads
# back. A file -w, --report or --metrics-file would write that is one of the capture files read (by
# its name, a symbolic or hard link, standard input redirected from it, standard output appended to
# it; with -C the numbered files beside it, with -G the current period's) is refused before
# anything is written: exit 2, a message, the capture unchanged. The JSON of a file name holding a
# quote, a backslash, control bytes and bytes that are not UTF-8 parses, as every frame's and the
# report's, and gives the name back. --point-offset takes at most a day either way: more is
# refused with exit 2, and a day at two points runs clean (no sanitizer report). TAP output.
set -u
rd=$(realpath "$1") caps=$(realpath "$2") py=$3  # absolute: the checks of -w run in a directory of their own
. "$(dirname "$0")/../tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
src=$caps/rxe/rc_pingpong.pcap
three=$caps/derived/path_three_points.pcapng

# refused NAME PROTECTED IN OUT ARGS...: rocedump ARGS, its standard input from IN and its standard
# output appended to OUT, exits 2 with the message, and the file PROTECTED is as it was
refused() {
	local name=$1 cap=$2 in=$3 out=$4; shift 4
	local sum rc
	sum=$(cksum <"$cap")
	"$rd" "$@" <"$in" >>"$out" 2>"$T/err"; rc=$?
	if [ "$rc" = 2 ] && grep -q 'would overwrite the capture' "$T/err" && [ "$(cksum <"$cap")" = "$sum" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want 2), capture $([ "$(cksum <"$cap")" = "$sum" ] && echo kept || echo CHANGED)" \
			"$(head -c 300 "$T/err")"
	fi
}

# ---- -w, --report, --metrics-file over the capture ----
mkdir "$T/w" && cd "$T/w" || exit 2
cp "$src" cap.pcap
ln -s cap.pcap sym.pcap
ln cap.pcap hard.pcap
refused "-r X -w X" cap.pcap /dev/null /dev/null -r cap.pcap -w cap.pcap
refused "-r X -w SYMLINK-TO-X" cap.pcap /dev/null /dev/null -r cap.pcap -w sym.pcap
refused "-r SYMLINK -w HARD-LINK (the same file)" cap.pcap /dev/null /dev/null -r sym.pcap -w hard.pcap
refused "-r OTHER -r X -w X (the second file)" cap.pcap /dev/null /dev/null -r "$caps/gen/cnp_ecn.pcap" -r cap.pcap -w cap.pcap
refused "-r - -w X, standard input from X" cap.pcap cap.pcap /dev/null -r - -w cap.pcap
refused "-r X -w - >>X (standard output appended to X)" cap.pcap /dev/null cap.pcap -r cap.pcap -w -
ln cap.pcap base7
refused "-C 1 -w base: base7 is X" cap.pcap /dev/null /dev/null -r cap.pcap -C 1 -w base
rm base7
ln cap.pcap base2
refused "-C 1 -W 3 -w base: base2 is X" cap.pcap /dev/null /dev/null -r cap.pcap -C 1 -W 3 -w base
rm base2
ln cap.pcap "x-$(date +%Y)"
refused "-G 60 -w x-%Y: this year's file is X" cap.pcap /dev/null /dev/null -r cap.pcap -G 60 -w 'x-%Y'
rm "x-$(date +%Y)"
refused "--report SYMLINK-TO-X" cap.pcap /dev/null /dev/null -r cap.pcap --report sym.pcap -w out.pcapng
[ ! -e out.pcapng ]
[ $? = 0 ] && ok "--report refused before -w's file is opened" || not_ok "--report refused after -w made out.pcapng"
refused "--metrics-file HARD-LINK-TO-X" cap.pcap /dev/null /dev/null -r cap.pcap -q --metrics-file hard.pcap
refused "--metrics-file X" cap.pcap /dev/null /dev/null -r cap.pcap -q --metrics-file cap.pcap
cp "$src" cap.pcap  # whole again whatever came before

# what is not the capture is written as before
ln cap.pcap base3
"$rd" -r cap.pcap -C 1 -W 3 -w base 2>"$T/err"; rc=$?
frames() { "$rd" -r "$1" -q 2>/dev/null | sed -n 's/^\([0-9]*\) frames.*/\1/p'; }
got=$(frames base0) want=$(frames cap.pcap)
[ "$rc" = 0 ] && [ -n "$got" ] && [ "$got" = "$want" ] &&
	ok "-C 1 -W 3 -w base beside base3 (not a name it writes): base0 written, $got frames" ||
	not_ok "-C 1 -W 3 -w base beside base3" "exit $rc, $got of $want frames" "$(cat "$T/err")"
rm -f base*
"$rd" -r cap.pcap -w out.pcapng 2>"$T/err"; rc=$?
got=$(frames out.pcapng)
[ "$rc" = 0 ] && [ "$got" = "$want" ] && ok "-r X -w OTHER: written, $got frames" ||
	not_ok "-r X -w OTHER" "exit $rc, $got of $want frames" "$(cat "$T/err")"
cd "$T" || exit 2

# ---- JSON strings: a file name of any bytes ----
weird=$(printf 'we"ird\\\001\t<\377\303\251.pcap')
cp "$src" "$T/$weird"
"$rd" -r "$T/$weird" -r "$caps/gen/cnp_ecn.pcap" -T json >"$T/names.json" 2>"$T/err"; rc=$?
# every line UTF-8 and JSON; file 0's frames carry the name: its UTF-8 as it is, each other
# byte as the character of its number
check_names='import json, sys
want = sys.argv[2].encode("utf-8", "surrogateescape")
want = want.replace(b"\xff", b"\xc3\xbf").decode("utf-8")
n = 0
for k, line in enumerate(open(sys.argv[1], "rb"), 1):
    o = json.loads(line.decode("utf-8"))
    f = o.get("file", {})
    if f.get("index") == 0:
        assert f["name"] == want, "line %d: %r, not %r" % (k, f["name"], want)
        n += 1
assert n > 0, "no frame of the file"
print(n)'
if [ "$rc" = 0 ] && out=$("$py" -c "$check_names" "$T/names.json" "$T/$weird" 2>&1); then
	ok "-T json: every line parses, file.name of a name with a quote, a backslash, control bytes and a byte not UTF-8 read back ($out frames)"
else
	not_ok "-T json escapes file.name" "exit $rc" "$(printf '%s' "${out:-}" | tail -2)" "$(head -c 300 "$T/err")"
fi
"$rd" -r "$T/$weird" -r "$caps/gen/cnp_ecn.pcap" -q --report "$T/names.html" >/dev/null 2>"$T/err"; rc=$?
check_report='import json, re, sys
page = open(sys.argv[1], "rb").read()
block = re.search(rb"<script type=\"application/json\" id=\"rd-report\">(.*?)</script>", page, re.S).group(1)
report = json.loads(block.decode("utf-8"))
want = sys.argv[2].encode("utf-8", "surrogateescape").replace(b"\xff", b"\xc3\xbf").decode("utf-8")
assert report["captures"][0] == want, "%r, not %r" % (report["captures"][0], want)'
if [ "$rc" = 0 ] && out=$("$py" -c "$check_report" "$T/names.html" "$T/$weird" 2>&1); then
	ok "--report: the page's JSON is UTF-8 and gives the file name back"
else
	not_ok "--report escapes the file name" "exit $rc" "$(printf '%s' "${out:-}" | tail -2)" "$(head -c 300 "$T/err")"
fi

# ---- --point-offset: a day either way at most ----
for v in 86400000000001 -86400000000001 9223372036854775807 -9223372036854775808 99999999999999999999; do
	"$rd" -r "$three" -q --point-offset "tapB=$v" >/dev/null 2>"$T/err"; rc=$?
	[ "$rc" = 2 ] && grep -q 'invalid point offset.*a day' "$T/err" && ok "--point-offset tapB=$v refused (exit 2)" ||
		not_ok "--point-offset tapB=$v refused" "exit $rc" "$(head -c 300 "$T/err")"
done
"$rd" -r "$three" -q -T json --point-offset tapA=-86400000000000 --point-offset tapB=86400000000000 \
	--report "$T/po.html" >"$T/po.json" 2>"$T/err"; rc=$?
given='import json, sys
pts = {p["name"]: p for p in json.loads(open(sys.argv[1]).readline())["summary"]["path"]["points"]}
assert pts["tapA"]["offset_ns"] == -86400000000000 and pts["tapB"]["offset_ns"] == 86400000000000, pts'
if [ "$rc" = 0 ] && ! grep -q 'runtime error' "$T/err" && "$py" -c "$given" "$T/po.json" 2>"$T/perr"; then
	ok "--point-offset a day behind and a day ahead: taken, exit 0, no sanitizer report"
else
	not_ok "--point-offset at the bounds" "exit $rc" "$(grep -m3 'runtime error' "$T/err")" "$(tail -2 "$T/perr")"
fi

echo "1..$n"
[ "$failed" = 0 ]
