#!/usr/bin/env python3
"""metrics_path.py: the path analysis's per-hop Prometheus series (--metrics-file) against the
-q -T json summary's path object (TAP), on the two-bridge captures: each hop's packets seen at
either end, lost, mirror lost, reordered, delays measured, delay quantiles, min and max, clock
offset and its uncertainty, labelled by the points' names; with -q, without it (the paths then
finished for the last metrics), and with --point-offset. promtool checks the file when installed.

    metrics_path.py ROCEDUMP CAPTURES_PATHS_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

R, CAPS = sys.argv[1], sys.argv[2]
RUNS = [
    ("bridges_rc_pingpong_loss.pcapng", ["-q"]),
    ("bridges_rc_pingpong_loss.pcapng", []),
    ("bridges_rc_pingpong_loss.pcapng", ["-q", "--point-offset", "brB=700"]),
    ("bridges_write_bw_loss.pcapng", ["-q"]),
    ("bridges_rc_pingpong_srcloss.pcapng", ["-q"]),
]


def series(path):
    out = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        key, value = line.rsplit(" ", 1)
        if key in out:
            raise ValueError("series twice: " + key)
        out[key] = float(value)
    return out


def expected(summary):
    """The series the summary's path object calls for, by key."""
    p = summary["path"]
    name = {pt["point"]: pt["name"] for pt in p["points"]}
    want = {"rocedump_path_hops": len(p["hops"])}
    for h in p["hops"]:
        lab = 'from="%s",to="%s"' % (name[h["from"]], name[h["to"]])
        want['rocedump_path_seen_total{%s,at="from"}' % lab] = h["seen_from"]
        want['rocedump_path_seen_total{%s,at="to"}' % lab] = h["seen_to"]
        for k in ("lost", "mirror_lost", "reordered"):
            want["rocedump_path_%s_total{%s}" % (k, lab)] = h[k]
        want["rocedump_path_delay_seconds_count{%s}" % lab] = h["delays"]
        d = h["delay_ns"]
        if d:
            want['rocedump_path_delay_seconds{%s,quantile="0.5"}' % lab] = d["p50"] / 1e9
            want['rocedump_path_delay_seconds{%s,quantile="0.99"}' % lab] = d["p99"] / 1e9
            want["rocedump_path_delay_min_seconds{%s}" % lab] = d["min"] / 1e9
            want["rocedump_path_delay_max_seconds{%s}" % lab] = d["max"] / 1e9
        if h["offset_source"] != "none":
            want["rocedump_path_clock_offset_seconds{%s}" % lab] = h["offset_ns"] / 1e9
        if h["offset_uncertainty_ns"] is not None:
            want["rocedump_path_clock_offset_uncertainty_seconds{%s}" % lab] = h["offset_uncertainty_ns"] / 1e9
    return want


def check(cap, opts, tmp):
    prom = os.path.join(tmp, "m.prom")
    f = os.path.join(CAPS, cap)
    m = subprocess.run([R, "-r", f, "--metrics-file", prom, "-T", "json"] + opts, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if m.returncode:
        return "exit %d: %s" % (m.returncode, m.stderr[:200])
    s = subprocess.run([R, "-r", f, "-q", "-T", "json"] + [o for o in opts if o != "-q"], capture_output=True,
                       text=True)
    summary = json.loads(s.stdout.splitlines()[0])["summary"]
    if "path" not in summary or not summary["path"]["hops"]:
        return "the summary has no path hops"
    if shutil.which("promtool"):
        pc = subprocess.run(["promtool", "check", "metrics"], stdin=open(prom), capture_output=True, text=True)
        if pc.returncode:
            return "promtool: " + (pc.stdout + pc.stderr)[:300]
    got = series(prom)
    bad = []
    for k, v in expected(summary).items():
        if k not in got:
            bad.append("missing " + k)
        elif abs(got[k] - v) > 1e-12 * max(1.0, abs(v)):
            bad.append("%s: %s in the metrics, %s in the summary" % (k, got[k], v))
    extra = [k for k in got if k.startswith("rocedump_path_") and k not in expected(summary)]
    bad += ["not in the summary: " + k for k in extra]
    return "; ".join(bad[:5])


def main():
    tmp = tempfile.mkdtemp()
    failed = 0
    try:
        for n, (cap, opts) in enumerate(RUNS, 1):
            why = check(cap, opts, tmp)
            label = "%s %s" % (cap, " ".join(opts))
            print(("ok %d - %s" if not why else "not ok %d - %s") % (n, label))
            if why:
                failed += 1
                print("# " + why)
    finally:
        shutil.rmtree(tmp)
    print("1..%d" % len(RUNS))
    return 1 if failed else 0


sys.exit(main())
