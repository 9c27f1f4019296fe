#!/bin/bash
# test-metrics-file.sh: --metrics-file on every capture of captures/ (TAP): the file passes
# promtool check metrics, names no series twice, and its counters agree with the -q -T json
# summary (frames by opcode summing to every frame, ICRC outcomes, events, recorded drops, the PFC
# and PAUSE rows summed per priority) and with the per-frame JSON (RoCE frames by ECN codepoint).
#   test-metrics-file.sh ROCEDUMP CAPTURES_DIR
set -u
R=$1 CAPS=$2
command -v promtool >/dev/null || { echo "1..0 # SKIP promtool is not installed (Debian package prometheus)"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 failed=0
for f in "$CAPS"/gen/*.pcap* "$CAPS"/rxe/*.pcap*; do
	n=$((n + 1))
	b=$(basename "$f")
	"$R" -r "$f" -q -T json --metrics-file "$T/m.prom" >"$T/sum.json" 2>"$T/err"
	rc=$?
	"$R" -r "$f" -T json >"$T/frames.json" 2>>"$T/err" || rc=$?
	why=$(promtool check metrics <"$T/m.prom" 2>&1) || why="promtool: $why"
	[ "$rc" = 0 ] || why="exit $rc: $(head -c 200 "$T/err")"
	[ -e "$T/m.prom.tmp.$$" ] && why="temporary file left"
	if [ -z "$why" ]; then
		why=$(python3 - "$T/m.prom" "$T/sum.json" "$T/frames.json" <<'PY'
import json, re, sys
series, seen = {}, set()
for line in open(sys.argv[1]):
    if line.startswith('#'):
        continue
    key, value = line.rsplit(' ', 1)
    if key in seen:
        print('series twice: ' + key)
    seen.add(key)
    series[key] = float(value)
top = json.loads(open(sys.argv[2]).readline())
s = top['summary']
def total(prefix):
    return sum(v for k, v in series.items() if k.startswith(prefix))
checks = [
    ('frames', total('rocedump_frames_total{'), s['frames']),
    ('bytes', series['rocedump_bytes_total'], s['bytes']),
    ('v2', series['rocedump_roce_frames_total{version="v2"}'], s['roce']['v2']),
    ('icrc bad', series['rocedump_icrc_total{status="bad"}'], s['icrc']['bad']),
    ('events', total('rocedump_events_total{'), sum(s['events'].values())),
]
for code, o in s['opcodes'].items():
    k = [k for k in series if k.startswith('rocedump_frames_total{code="0x%02x"' % int(code))]
    checks.append(('opcode ' + code, series[k[0]] if k else -1, o['count']))
for name, count in s['events'].items():
    k = [k for k in series if k.startswith('rocedump_events_total{event="%s"' % name)]
    checks.append(('event ' + name, series[k[0]] if k else -1, count))
# congestion: PFC and PAUSE rows of the -q JSON summed per priority; ECN of the frames printed one by one
for prio, rows in [(str(p), [r for r in top['pfc'] if r['priority'] == p]) for p in range(8)] + [('pause', top['pause'])]:
    for m, field in (('frames', 'frames'), ('xoff', 'xoff'), ('xon', 'xon'), ('storms', 'storms')):
        checks.append(('pfc %s %s' % (m, prio), series['rocedump_pfc_%s_total{priority="%s"}' % (m, prio)],
                       sum(r[field] for r in rows)))
    checks.append(('pfc paused %s' % prio, round(series['rocedump_pfc_paused_seconds_total{priority="%s"}' % prio] * 1e9),
                   sum(r['paused_ns'] for r in rows)))
checks.append(('pfc untracked', series['rocedump_pfc_untracked_frames_total'], top['pfc_untracked']))
ecn = {'not_ect': 0, 'ect1': 0, 'ect0': 0, 'ce': 0}
names = ['not_ect', 'ect1', 'ect0', 'ce']
for line in open(sys.argv[3]):
    fr = json.loads(line)
    if 'roce' in fr:
        net = fr.get('ip') or fr.get('grh') or {}
        ecn[names[net.get('ecn', 0)]] += 1
for cp, count in ecn.items():
    checks.append(('ecn ' + cp, series['rocedump_ecn_frames_total{codepoint="%s"}' % cp], count))
c = s['capture']
if c.get('os_drops') is not None:
    checks.append(('os drops', series.get('rocedump_capture_dropped_total{by="kernel"}', -1), c['os_drops']))
for name, got, want in checks:
    if got != want:
        print('%s: %s in the metrics, %s in the summary' % (name, got, want))
PY
)
	fi
	if [ -z "$why" ]; then echo "ok $n - $b"; else failed=$((failed + 1)); echo "not ok $n - $b"; echo "# $why" | head -5; fi
done
echo "1..$n"
[ "$failed" = 0 ]
