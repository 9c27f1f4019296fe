#!/usr/bin/python3
"""The plugin's congestion preferences against rocedump's matching options, on the congestion
captures.

Usage: plugin_prefs.py --plugin roce.so --rocedump PATH [--tshark PATH] CAPTURES_DIR

For each setting (roce.link_speed, roce.pfc_storm_ms, roce.dscp_prio, roce.cnp_interval_us,
roce.cnp_timeout_us; alone and together) and each capture it concerns (captures/gen/pfc_*.pcap,
cnp_*.pcap, captures/rxe/*ecn*.pcap; pfc_dscp.pcap has untagged traffic into pauses): `tshark -o roce.X:Y` gives, frame by frame and in order, the
expert infos that are the events of `rocedump --X Y -w`'s comments, the findings' fields (pause
times, waits, CE frames) those of rocedump's JSON (plugin_compare.finding_diffs), and each event's
expert field is on exactly the frames rocedump's JSON gives it.
So that no setting passes by being ignored, each must change rocedump's events on at least one of
its captures (against the defaults, or the base setting named). A value rocedump refuses leaves
the plugin at the default, with a warning on standard error. Exit status: 0 all agree, 1 a
difference, 2 a tool failed, 77 skipped (no tshark, no plugin, no captures).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcommon import Tshark, sanitizer_report  # noqa: E402
import plugin_compare as pc  # noqa: E402

PFC = ["gen/pfc_pause.pcap", "gen/pfc_timeline.pcap", "gen/pfc_dscp.pcap"]
CNP = ["gen/cnp_ecn.pcap", "gen/cnp_matching.pcap", "rxe/rc_pingpong_ecn_ce.pcap",
       "rxe/rc_pingpong_ecn_part.pcap", "rxe/write_bw_ecn_part.pcap"]
# (rocedump options, tshark preferences, captures, the options it must differ from)
SETTINGS = [
    (["--link-speed", "25G"], ["roce.link_speed:25G"], PFC, []),
    (["--link-speed", "400G"], ["roce.link_speed:400G"], PFC, []),
    (["--pfc-storm-ms", "1"], ["roce.pfc_storm_ms:1"], PFC, []),
    (["--dscp-prio", "26=5,48=1,0=3"], ["roce.dscp_prio:26=5,48=1,0=3"], PFC, []),
    (["--link-speed", "400G", "--dscp-prio", "0=6,26=3", "--pfc-storm-ms", "1"],
     ["roce.link_speed:400G", "roce.dscp_prio:0=6,26=3", "roce.pfc_storm_ms:1"], PFC, ["--link-speed", "400G"]),
    (["--cnp-interval-us", "0"], ["roce.cnp_interval_us:0"], CNP, []),
    (["--cnp-interval-us", "200"], ["roce.cnp_interval_us:200"], CNP, []),
    (["--cnp-timeout-us", "20"], ["roce.cnp_timeout_us:20"], CNP, []),
    (["--cnp-interval-us", "200", "--cnp-timeout-us", "5"], ["roce.cnp_interval_us:200", "roce.cnp_timeout_us:5"],
     CNP, []),
]
# values rocedump refuses: the plugin keeps the default and warns
BAD = [(["roce.link_speed:fast"], "link speed 'fast'"), (["roce.dscp_prio:26=9"], "DSCP to priority map '26=9'")]


def rocedump_json(rocedump, path, opts):
    res = subprocess.run([rocedump, "-r", path, "-T", "json"] + opts, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise RuntimeError("rocedump %s %s: %s" % (" ".join(opts), path, res.stderr.decode()))
    return {o["frame"]: o for o in map(json.loads, res.stdout.decode().splitlines())}


def compare(ts, rocedump, path, opts, prefs, tmp, fields):
    """Differences between tshark -o PREFS and rocedump OPTS on one capture; and the events."""
    js = rocedump_json(rocedump, path, opts)
    wfile = os.path.join(tmp, "w.pcapng")
    res = subprocess.run([rocedump, "-r", path, "-w", wfile] + opts, stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise RuntimeError("rocedump -w %s: %s" % (path, res.stderr.decode()))
    evf = ["roce." + e for e in sorted(pc.EVENT_NAMES)]
    extra = []
    for p in prefs:
        extra += ["-o", p]
    rows = pc.fields_run(ts, ["frame.number", "frame.comment", "_ws.expert.message"] + evf +
                         ["roce.analysis.event"] + list(pc.FINDING_FIELDS), path=wfile, extra=extra)
    diffs = []
    n_events = 0
    for num, obj in js.items():
        row = rows.get(num)
        if row is None:
            diffs.append("frame %d: not in tshark's output" % num)
            continue
        want = pc.names_of(pc.split_events(row["frame.comment"][0] if row["frame.comment"] else ""))
        n_events += len(want)
        if pc.ours_of(row) != want:
            diffs.append("frame %d: plugin %s, rocedump %s" % (num, pc.ours_of(row), want))
        for ev in pc.EVENT_NAMES:
            if bool(row["roce." + ev]) != (ev in obj["events"]):
                diffs.append("frame %d roce.%s: plugin %s, rocedump %s" % (num, ev, bool(row["roce." + ev]),
                                                                         ev in obj["events"]))
        diffs += pc.finding_diffs(num, row, obj, fields)
    events = {n: (o["events"], o.get("findings")) for n, o in js.items()}
    return diffs, n_events, events


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--tshark", default=shutil.which("tshark") or "")
    ap.add_argument("captures")
    args = ap.parse_args()
    if not args.tshark or not os.path.exists(args.plugin):
        print("SKIP: no tshark or no plugin")
        return 77
    missing = [c for c in PFC + CNP if not os.path.exists(os.path.join(args.captures, c))]
    if missing:
        print("error: captures missing: %s" % missing, file=sys.stderr)
        return 2
    out = subprocess.run([args.rocedump, "--list-events"], stdout=subprocess.PIPE, text=True).stdout
    pc.EVENT_NAMES.update(line.split()[0] for line in out.splitlines() if line.strip())
    ts = Tshark(args.tshark, args.plugin)
    tmp = tempfile.mkdtemp()
    bad = runs = n_events = 0
    try:
        fields = pc.plugin_fields(ts)
        if "roce.psn" not in fields:
            print("error: tshark did not load the plugin (no roce.psn field)", file=sys.stderr)
            return 2
        for opts, prefs, caps, base in SETTINGS:
            changed = False
            for c in caps:
                path = os.path.join(args.captures, c)
                diffs, n, events = compare(ts, args.rocedump, path, opts, prefs, tmp, fields)
                runs += 1
                n_events += n
                before = {k: (o["events"], o.get("findings")) for k, o in
                          rocedump_json(args.rocedump, path, base).items()}
                changed |= events != before
                for d in diffs[:5]:
                    print("DIFF %s -o %s: %s" % (c, " -o ".join(prefs), d))
                bad += bool(diffs)
            if not changed:
                print("DIFF %s: changes no event on %s (the setting went untested)" % (" ".join(opts), caps))
                bad += 1
        # refused values: the defaults, and a warning
        path = os.path.join(args.captures, PFC[0])
        default = rocedump_json(args.rocedump, path, [])
        for prefs, warning in BAD:
            st, _out, err = ts.run(["-r", "-", "-o", prefs[0], "-q"], path=path)
            if st != 0 or sanitizer_report(err) or warning not in err:
                print("DIFF -o %s: exit %d, no warning naming %s: %s" % (prefs[0], st, warning, err[-300:]))
                bad += 1
            diffs, _n, events = compare(ts, args.rocedump, path, [], prefs, tmp, fields)
            if diffs or events != {k: (o["events"], o.get("findings")) for k, o in default.items()}:
                print("DIFF -o %s: not the defaults: %s" % (prefs[0], diffs[:3]))
                bad += 1
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    finally:
        ts.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d settings on %d capture runs: %d events compared; %d differences" % (len(SETTINGS), runs, n_events, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
