#!/usr/bin/env python3
"""bridges_truth.py: rocedump's verdicts on the Soft-RoCE path captures (captures/paths/bridges_*: two
bridges; erspan_two_sessions*: the two guests' ERSPAN sessions, one collector; made by
tests/dut/make-bridge-captures.sh) against what is known of them: their truth files (the nftables
counters of the hops where loss was injected, the capture's drops) and the frames themselves (TAP).
A point is a bridge (brA, brB) or a mirror session (its name as rocedump prints it, e.g.
"erspan2 10.77.0.1>10.77.0.200 session 201": each guest mirrors its own NIC, so the session's outer
source is the guest whose frames leave that point first).

Per capture, with DROPS below holding the truth file's nft drop counts (a remade capture must be
recorded here again):
  - the truth file is this capture's (frames per point) and has the recorded drops; no capture drops;
  - the capture agrees with the counters: of the frames one bridge saw going towards the other, those
    the hop between them let through are exactly the ones the other bridge saw (same IPv4 source, id,
    PSN, opcode, ICRC), the rest exactly the ones the hop dropped (tshark's fields, not rocedump's);
  - rocedump: every frame seen at the second point within the copy window (1 ms) of its sighting at
    the first is one frame.copy, and no other frame is; with a window beyond the longest hop delay
    (the tbf capture), every frame seen at both; a warning of a hop's packets that match no sighting
    within the copy window exactly when a hop delays some longer than the window, none with the
    window wide enough; no nak.restart_wrong; no PSN lost before the capture
    point on a direction with no loss upstream of both bridges (at most the upstream drops
    otherwise), the bridges' frames taken in time order though dumpcap wrote them in batches;
    --strict exits 0;
  - path analysis: each hop's "lost" between the two points equals the nft drops of that hop and
    direction (0 where none was injected); of mirror sessions: no mirror.gap, each session one
    point. Skipped while the summary has no "path" object. Read as
    {"points": [...], "hops": [{"from": F, "to": T, "lost": N, ...}, ...]} (the hops totalled over
    the streams), F and T a point's index in points or its name; a point is named by its "name",
    "interface", "if_name" or "point" member (or is the name itself), which must hold the truth's name.

usage: bridges_truth.py ROCEDUMP TSHARK CAPTURES_PATHS_DIR     (TSHARK may be empty: those checks skip)
"""
import decimal
import glob
import json
import os
import subprocess
import sys

WINDOW_NS = 1000 * 1000  # rocedump's default --copy-window-us
# capture -> nft drops per hook device, as its truth file recorded them
DROPS = {
    "bridges_rc_pingpong_loss": {"vethB": 34, "vethA": 24},
    "bridges_rc_pingpong_srcloss": {"rxetap0": 23},
    "bridges_rc_pingpong_tbf": {},
    "bridges_write_bw_loss": {"vethB": 15, "vethA": 55},
    "erspan_two_sessions_rc_pingpong_loss": {"rxetap0": 53},
}
n = failed = 0


def tap(good, name, detail=""):
    global n, failed
    n += 1
    if not good:
        failed += 1
    print("%s %d - %s" % ("ok" if good else "not ok", n, name))
    if not good and detail:
        print("\n".join("# " + l for l in str(detail).splitlines()))


def skip(name, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, name, why))


def summary_of(rocedump, cap, extra=()):
    out = subprocess.run([rocedump, "-q", "--summary", "-T", "json", "-r", cap] + list(extra),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    objs = [json.loads(l) for l in out if l.startswith("{")]
    summary = next(o["summary"] for o in objs if "summary" in o)
    streams = next(o["streams"]["rows"] for o in objs if "streams" in o)
    path = summary.get("path", next((o["path"] for o in objs if "path" in o), None))
    return summary, streams, path


def path_warnings(rocedump, cap, extra=()):
    """rocedump -q's warnings of a hop whose packets match no sighting within the copy window."""
    err = subprocess.run([rocedump, "-q", "-r", cap] + list(extra), capture_output=True, text=True).stderr
    return [l for l in err.splitlines() if l.startswith("rocedump: warning: path: hop ")]


def is_mirrored(truth):
    return any(p.startswith("erspan") for p in truth["points"])


def own_source(point):
    """The outer IPv4 source of a mirror session's point name ("erspan2 10.77.0.1>10.77.0.200 ...")."""
    return point.split()[1].split(">")[0]


def frames(tshark, cap, truth):
    """(point, ip.src, key, time in ns) of every RoCE frame; key = what makes a frame the same frame
    at another point: IPv4 source and id (rxe gives each frame sent, resends too, its own), PSN,
    opcode, ICRC. The point: the interface, or of a mirrored frame its session (by the outer source;
    the other fields are the inner packet's, the last of each)."""
    f = ["frame.interface_name", "ip.src", "ip.src", "ip.id", "infiniband.bth.psn", "infiniband.bth.opcode",
         "infiniband.invariant.crc", "frame.time_epoch"]
    out = subprocess.run([tshark, "-r", cap, "-Y", "infiniband", "-T", "fields", "-E", "occurrence=l"] +
                         sum((["-e", x] for x in f), []), capture_output=True, text=True, check=True).stdout
    sessions = {own_source(p): p for p in truth["points"] if is_mirrored(truth)}
    outer = subprocess.run([tshark, "-r", cap, "-Y", "infiniband", "-T", "fields", "-E", "occurrence=f", "-e", "ip.src"],
                           capture_output=True, text=True, check=True).stdout.split() if sessions else None
    res = []
    for i, line in enumerate(out.splitlines()):
        v = line.split("\t")
        point = sessions.get(outer[i], outer[i]) if sessions else v[0]
        res.append((point, v[2], tuple(v[2:7]), int(decimal.Decimal(v[7]) * 10**9)))
    return res


def matched(fr, a, b, src, window_ns=None):
    """Frames from src seen at a, and how many of them b saw too (within window_ns of a's sighting,
    when given)."""
    at_b = {k: t for p, s, k, t in fr if p == b and s == src}
    at_a = [(k, t) for p, s, k, t in fr if p == a and s == src]
    return len(at_a), sum(k in at_b and (window_ns is None or abs(at_b[k] - t) <= window_ns) for k, t in at_a)


def max_delay_ns(fr, truth):
    """The longest time between a frame's sightings at the two bridges."""
    return max((abs(t - u) for a, b, s in between(truth) for k, t, u in sightings(fr, a, b, s)), default=0)


def sightings(fr, a, b, src):
    at_b = {k: t for p, s, k, t in fr if p == b and s == src}
    return [(k, t, at_b[k]) for p, s, k, t in fr if p == a and s == src and k in at_b]


def between(truth):
    """(from, to, source IPv4) -> nft drops of the hooks between the two points (0: none there)."""
    src = {p: own_source(p) for p in truth["points"]} if is_mirrored(truth) else {"brA": "10.77.0.1", "brB": "10.77.0.2"}
    res = {(a, b, src[a]): 0 for a in src for b in src if a != b}
    for h in truth["hops"]:
        if h["from"]:
            res[(h["from"], h["to"], src[h["from"]])] += h["dropped"]
    return res


def check_truth(name, truth, fr):
    tap(truth["capture_drops"] and not any(truth["capture_drops"].values()),
        name + ": the kernel dropped no frame at either point", truth["capture_drops"])
    recorded = {h["hook"].split()[-1]: h["dropped"] for h in truth["hops"]}
    tap(recorded == DROPS.get(name), name + ": nft drops as recorded here %s" % DROPS.get(name), recorded)
    if fr is None:
        return skip(name + ": the counters agree with the frames", "no tshark")
    per_point = {}
    for p, _, _, _ in fr:
        per_point[p] = per_point.get(p, 0) + 1
    tap(per_point == truth["frames"], name + ": the truth file's frames per point are the capture's",
        "%s vs %s" % (per_point, truth["frames"]))
    for h in truth["hops"]:
        src = h["direction"].split(">")[0]
        if h["from"]:
            seen, passed = matched(fr, h["from"], h["to"], src)
            tap(passed == h["passed"] and seen - passed == h["dropped"],
                "%s: %s: of %d frames %s>%s, %d reach %s (nft passed %d), %d do not (nft dropped %d)"
                % (name, h["hook"], seen, h["from"], h["to"], passed, h["to"], h["passed"], seen - passed, h["dropped"]))
        else:
            seen = sum(1 for p, s, _, _ in fr if p == h["to"] and s == src)
            tap(seen == h["passed"], "%s: %s (before %s): %d frames of %s at %s, nft passed %d"
                % (name, h["hook"], h["to"], seen, src, h["to"], h["passed"]))


def check_rocedump(rocedump, name, cap, truth, fr):
    summary, streams, path = summary_of(rocedump, cap)
    ev = summary["events"]
    judged = []  # the options the path is judged with
    if fr is not None:
        copies = sum(matched(fr, a, b, s, WINDOW_NS)[1] for a, b, s in between(truth))
        tap(ev.get("frame.copy", 0) == copies,
            "%s: frame.copy %d = the frames seen at the second point within the copy window (1 ms) "
            "of the first's sighting, %d" % (name, ev.get("frame.copy", 0), copies))
        # a hop that delays (tbf) more than the window: its frames are copies once the window is wider
        longest = max_delay_ns(fr, truth)
        warned = path_warnings(rocedump, cap)
        tap(bool(warned) == (longest > WINDOW_NS),
            "%s: a warning that a hop's packets match no sighting within the copy window exactly when a hop "
            "delays some longer than it (the longest %.3f ms)" % (name, longest / 1e6), warned)
        if longest > WINDOW_NS:
            wide = ["--copy-window-us", str(longest // 1000 + 1000)]
            summary_w, _, path = summary_of(rocedump, cap, wide)  # judged with the window wide enough
            judged = wide
            ev_w = summary_w["events"]
            copies = sum(matched(fr, a, b, s)[1] for a, b, s in between(truth))
            warned = path_warnings(rocedump, cap, wide)
            tap(not warned, "%s: %s: no warning of unmatched packets" % (name, " ".join(wide)), warned)
            tap(ev_w.get("frame.copy", 0) == copies and not ev_w.get("ack.reordered"),
                "%s: %s (the longest hop delay %.1f ms): frame.copy %d = every frame seen at both, %d; "
                "no ack.reordered" % (name, " ".join(wide), longest / 1e6, ev_w.get("frame.copy", 0), copies),
                json.dumps(ev_w))
    tap(ev.get("nak.restart_wrong", 0) == 0, name + ": no nak.restart_wrong", ev.get("nak.restart_wrong"))
    if is_mirrored(truth):
        check_sessions(name, summary, path, truth)
    upstream = {h["direction"].split(">")[0]: h["dropped"] for h in truth["hops"] if not h["from"]}
    for r in streams:
        lb = r["lost_before_capture"]
        tap(lb <= upstream.get(r["src"], 0), "%s: stream %s>%s: %d PSNs lost before the capture point, "
            "upstream drops %d" % (name, r["src"], r["dst"], lb, upstream.get(r["src"], 0)))
    rc = subprocess.run([rocedump, "-q", "--strict", "-r", cap], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    tap(rc == 0, name + ": --strict exits 0 (no error on this correct stack)", "exit %d" % rc)
    check_path(name, path, truth)
    if path is not None:
        check_path_lost(rocedump, name, cap, judged, path, truth)
    if fr is not None and path is not None:
        check_path_delays(name, path, truth, fr)


def check_sessions(name, summary, path, truth):
    """A capture of mirror sessions: no sequence gap in either session, and each session is one
    point of the path."""
    ev = summary["events"]
    tap(ev.get("mirror.gap", 0) == 0, name + ": no mirror.gap (the collector missed no frame)", json.dumps(ev))
    points = [point_name(path.get("points", []), i) for i in range(len(path.get("points", [])))] if path else []
    tap(len(points) == len(truth["points"]) and all(sum(t in p for p in points) == 1 for t in truth["points"]),
        "%s: the path's points are the %d sessions %s" % (name, len(truth["points"]), truth["points"]), points)


# captures whose hop dropped requests only, each answered in the capture by a NAK or a resend:
# every drop there is one path.lost original (hop "from>to" by the truth's point names)
EVERY_DROP_NAMED = {"bridges_write_bw_loss": ("brB", "brA")}


def check_path_lost(rocedump, name, cap, opts, path, truth):
    """path.lost (on a resend or on the NAK that reports the packet missing) names the hop that lost
    the latest sending it answers (ref_frame): rocedump's own sightings of it (the frames whose path
    first_frame is it) include the hop's first point and not its second; the distinct sendings named
    per hop are at most nft's drops there (a resend that outran its slow original, or a loss before
    every point, is no loss on a hop), all of them where EVERY_DROP_NAMED says so."""
    out = subprocess.run([rocedump, "-r", cap, "-T", "json"] + list(opts), capture_output=True, text=True,
                         check=True).stdout
    frames = [json.loads(l) for l in out.splitlines() if l.startswith('{"frame"')]
    seen = {}
    for f in frames:
        p = f.get("path")
        if p:
            seen.setdefault(p.get("first_frame", f["frame"]), set()).add(p["point"])
    points = path.get("points", [])
    named, wrong = {}, []
    for f in frames:
        for x in f.get("findings", []):
            if x["event"] != "path.lost":
                continue
            a, b, r = x["path_from"], x["path_to"], x.get("ref_frame")
            if a not in seen.get(r, ()) or b in seen.get(r, ()):
                wrong.append((f["frame"], r, a, b, sorted(seen.get(r, ()))))
            named.setdefault((a, b), set()).add(r)
    tap(not wrong, "%s%s: each path.lost's sending (ref_frame) was seen at the hop's first point, not its second"
        % (name, " (" + " ".join(opts) + ")" if opts else ""), wrong[:5])
    for (a, b), refs in sorted(named.items()):
        pa, pb = point_name(points, a), point_name(points, b)
        drops = sum(v for (f, t, _), v in between(truth).items() if f in pa and t in pb)
        tap(len(refs) <= drops, "%s%s: path.lost names %d sendings lost on hop %s>%s, nft dropped %d there"
            % (name, " (" + " ".join(opts) + ")" if opts else "", len(refs), pa, pb, drops))
    if name in EVERY_DROP_NAMED:
        fa, fb = EVERY_DROP_NAMED[name]
        got = sum(len(refs) for (a, b), refs in named.items()
                  if fa in point_name(points, a) and fb in point_name(points, b))
        drops = sum(v for (f, t, _), v in between(truth).items() if f == fa and t == fb)
        tap(got == drops, "%s: every request dropped on %s>%s is named by path.lost: %d of %d"
            % (name, fa, fb, got, drops))
    if not named:
        tap(True, name + ": no path.lost")


def check_path_delays(name, path, truth, fr):
    """Each hop's largest delay is the largest time between a frame's sightings at its two
    bridges (tshark's time stamps), within the offset's stated uncertainty."""
    points = path.get("points", [])
    for h in path.get("hops", []):
        a, b = point_name(points, h.get("from")), point_name(points, h.get("to"))
        key = next(((f, t, s) for f, t, s in between(truth) if f in a and t in b), None)
        if not key:
            continue
        want = max((u - t for k, t, u in sightings(fr, *key)), default=0)
        got, slack = h["delay_ns"]["max"], h["offset_uncertainty_ns"] + abs(h["offset_ns"])
        tap(abs(got - want) <= slack, "%s: hop %s>%s: largest delay %.3f ms, tshark's %.3f ms (+-%d ns)"
            % (name, key[0], key[1], got / 1e6, want / 1e6, slack), json.dumps(h))


def point_name(points, p):
    if isinstance(p, int) and 0 <= p < len(points):
        p = points[p]
    if isinstance(p, dict):
        p = next((p[k] for k in ("name", "interface", "if_name", "point") if k in p), json.dumps(p))
    return str(p)


def check_path(name, path, truth):
    want = between(truth)
    what = name + ": path analysis: lost per hop = the nft drops between the points"
    if path is None:
        return skip(what + " " + str(list(want.values())), "rocedump's summary has no path object yet")
    hops = path.get("hops", []) if isinstance(path, dict) else []
    points = path.get("points", []) if isinstance(path, dict) else []
    got = {}
    for h in hops:
        a, b = point_name(points, h.get("from")), point_name(points, h.get("to"))
        key = next(((f, t, s) for f, t, s in want if f in a and t in b), None)
        if key:
            got[key] = got.get(key, 0) + h.get("lost", 0)
    for key, drops in want.items():
        tap(got.get(key) == drops, "%s: hop %s>%s: lost %s, nft dropped %d" % (what, key[0], key[1], got.get(key), drops),
            json.dumps(path)[:2000])


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: bridges_truth.py ROCEDUMP TSHARK CAPTURES_PATHS_DIR")
    rocedump, tshark, capdir = sys.argv[1:]
    truths = sorted(glob.glob(os.path.join(capdir, "bridges_*.truth.json")) +
                    glob.glob(os.path.join(capdir, "erspan_two_sessions*.truth.json")))
    tap(sorted(os.path.basename(t)[:-len(".truth.json")] for t in truths) == sorted(DROPS),
        "every path capture has its truth file and its drops recorded here", truths)
    for t in truths:
        truth = json.load(open(t))
        name = truth["capture"].rsplit(".", 1)[0]
        cap = os.path.join(capdir, truth["capture"])
        fr = frames(tshark, cap, truth) if tshark else None
        check_truth(name, truth, fr)
        check_rocedump(rocedump, name, cap, truth, fr)
    print("1..%d" % n)
    sys.exit(1 if failed else 0)


main()
