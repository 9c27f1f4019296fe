#!/usr/bin/python3
"""The Wireshark plugin roce.so loaded into the system tshark, against rocedump, on every capture.

Usage: plugin_compare.py --plugin roce.so --rocedump PATH [--tshark PATH] CAPTURE|DIR ...

For every capture (read on standard input, tshark as an unprivileged user with
WIRESHARK_PLUGIN_DIR, pcommon.py; a pcapng whose interfaces were written in batches, which
rocedump analyses in time order and the plugin in the file's order, put in time order by
reordercap first):
  * fields: on every RoCE frame and every MAC control frame (PFC, PAUSE), every roce.* field the
    plugin registers equals the value of the same dotted path in `rocedump -T json`
    (roce.wrapper.*, roce.vlan.*, roce.pfc.*, roce.pause.* and roce.mac_control.* are the JSON's
    paths without "roce."; an array is one value per element; roce.icrc.status is the JSON's
    status in Wireshark's checksum convention: bad 0, good 1, anything else 2), present on the
    same frames; the BTH flags (FT_BOOLEAN, Set/Not set) print as the JSON's 1 or 0;
  * findings: each frame's analysis subtrees (roce.analysis.event: per event in the table's order,
    one per finding of it, or one if it has none) hold, in that order, the JSON findings' details:
    roce.analysis.expected_psn/seen_psn (PSNs or MSNs), .delta, .original_frame or .ref_frame,
    .acked_before, .resends_seen/.resends_inferred, .priority (-1 for null), .quanta, .expired,
    .paused_by, .qpn of the cnp.* findings, and .path_from/.path_to of path.lost (the hop);
  * path: on the captures with several capture points (captures/paths, derived/path_three_points),
    roce.path.* (the sighting's point, sightings so far, first sighting's point, frame and delay)
    equal the JSON's "path" object;
  * MAC control: on every frame tshark's own MAC control dissector decodes, the plugin's
    roce.pfc.opcode (roce.pause.*: 0x0001, roce.mac_control.opcode), roce.pfc.enbv,
    roce.pfc.quanta and roce.pause.quanta equal tshark's macc.opcode, macc.cbfc.enbv,
    macc.cbfc.pause_time.c0..c7 and macc.pause_time (where tshark shows them);
  * events: each frame's expert infos (_ws.expert.message, the event's constant title: the expert
    field's name in tshark -G fields) are, in order, the events rocedump writes in that frame's -w
    comment (their details are the findings' fields above), read from the -w copy of the capture;
  * -Y roce.EVENT selects exactly the frames whose JSON events hold EVENT, for every event the
    capture has and for one it has not;
  * tshark -2 (two passes) gives the same fields and expert infos as one pass;
  * Wireshark's own infiniband fields are the same with the plugin loaded as without it;
  * `tshark -q -z roce,qp` lists the streams `rocedump -q --summary -T json` lists, with the same
    counts.
Exit status: 0 all agree, 1 a difference (each printed as DIFF), 2 a tool failed, 77 skipped
(no tshark, no plugin, no captures).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcommon import Tshark, captures_or_status, sanitizer_report  # noqa: E402

MACC_FIELDS = (["macc.opcode", "macc.cbfc.enbv", "macc.pause_time"] +
               ["macc.cbfc.pause_time.c%d" % i for i in range(8)])
MACC_KEYS = ("pfc", "pause", "mac_control")
IB_FIELDS = ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
             "infiniband.invariant.crc", "infiniband.aeth.syndrome", "infiniband.reth.va"]
SEP = "\x1f"


def plugin_fields(ts):
    """The plugin's fields (abbrev -> type), from tshark -G fields; the expert fields' names (the
    events' titles) into TITLES (title -> event name)."""
    st, out, err = ts.run(["-G", "fields"], data=b"")
    if st != 0:
        raise RuntimeError("tshark -G fields: %s" % err)
    fields = {}
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) >= 5 and cols[0] == "F" and cols[4] == "roce" and cols[3] != "FT_NONE":
            fields[cols[2]] = cols[3]
        if len(cols) >= 5 and cols[0] == "F" and cols[3] == "FT_NONE" and cols[2][5:] in EVENT_NAMES:
            TITLES[cols[1]] = cols[2][5:]
    return fields


def rows_of(out, names):
    rows = {}
    for line in out.splitlines():
        if not line.strip():
            continue
        cols = line.split("\t")
        cols += [""] * (len(names) - len(cols))
        row = {n: (v.split(SEP) if v != "" else []) for n, v in zip(names, cols)}
        rows[int(row["frame.number"][0])] = row
    return rows


def fields_run(ts, names, path=None, extra=(), data=None, table=None):
    """Rows of tshark -T fields (frame number -> field -> values); with table a list, the
    -z roce,qp table's lines printed after them are appended to it."""
    args = ["-r", path if path and "-2" in extra else "-", "-n"] + list(extra) + [
        "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=" + SEP]
    for n in names:
        args += ["-e", n]
    st, out, err = ts.run(args, path=None if "-2" in extra else path, data=data)
    rep = sanitizer_report(err)
    if st != 0 or rep:
        raise RuntimeError("tshark %s: exit %d %s" % (" ".join(extra), st, rep or err[-500:]))
    if table is not None and "=" * 20 in out:
        at = out.index("=" * 20)
        table.extend(out[at:].splitlines())
        out = out[:at]
    return rows_of(out, names)


def json_path(name):
    outside = tuple("roce.%s." % k for k in ("wrapper", "vlan", "path") + MACC_KEYS)
    return name[5:] if name.startswith(outside) else name


def json_values(obj, path):
    """The JSON's values at a dotted path: a list (several for the VLAN tags and the elements
    of an array)."""
    if path.startswith("vlan."):
        return [v[path[5:]] for v in obj.get("vlan", [])]
    o = obj
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return []
        o = o[k]
    return list(o) if isinstance(o, list) else [o]


def macc_diffs(num, row, obj):
    """The plugin's MAC control fields against tshark's own macc.* on one frame."""
    t = {n: [int(v, 0) for v in row[n]] for n in MACC_FIELDS}
    if not t["macc.opcode"]:
        return []
    diffs = []

    def same(ours, theirs, what):
        if ours != theirs:
            diffs.append("frame %d %s: plugin %s, tshark %s" % (num, what, ours, theirs))
    n = lambda name: [int(v, 0) for v in row[name]]  # noqa: E731
    opcode = n("roce.pfc.opcode") or ([0x0001] if n("roce.pause.quanta") else n("roce.mac_control.opcode"))
    same(opcode, t["macc.opcode"], "opcode")
    if t["macc.cbfc.enbv"]:
        same(n("roce.pfc.enbv"), t["macc.cbfc.enbv"], "roce.pfc.enbv")
    times = [t["macc.cbfc.pause_time.c%d" % i] for i in range(8)]
    if all(times):
        same(n("roce.pfc.quanta"), [v[0] for v in times], "roce.pfc.quanta")
    if t["macc.pause_time"]:
        same(n("roce.pause.quanta"), t["macc.pause_time"], "roce.pause.quanta")
    return diffs


def norm(name, ftype, vals):
    out = []
    for v in vals:
        if ftype == "FT_BOOLEAN":
            out.append({"True": 1, "False": 0}.get(v, None) if v in ("True", "False") else int(v, 0))
        elif ftype.startswith(("FT_UINT", "FT_INT", "FT_FRAMENUM")):
            out.append(int(v, 0))
        else:
            out.append(v)
    return out


def want_of(name, obj):
    vals = json_values(obj, json_path(name))
    if name == "roce.icrc.status":
        return [{"bad": 0, "good": 1}.get(v, 2) for v in vals]
    return vals


def split_events(comment):
    """rocedump's -w comment "rocedump: a,b(x, y),c" as its event texts."""
    if not comment.startswith("rocedump: "):
        return []
    out, depth, cur = [], 0, ""
    for ch in comment[len("rocedump: "):]:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    return out + ([cur] if cur else [])


def rocedump_json(rocedump, path):
    """rocedump -T json's frames by number, in the order printed."""
    res = subprocess.run([rocedump, "-r", path, "-T", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise RuntimeError("rocedump -T json %s: %s" % (path, res.stderr.decode()))
    return {o["frame"]: o for o in map(json.loads, res.stdout.decode().splitlines())}


def check_capture(ts, bare, rocedump, path, fields, tmp):
    """Differences found on one capture, and counts."""
    diffs = []
    counts = {"frames": 0, "values": 0, "events": 0, "filters": 0, "macc": 0, "cnp_links": 0, "path": 0}
    js = rocedump_json(rocedump, path)
    if list(js) != sorted(js):
        # a pcapng whose interfaces were written in batches: rocedump analyses it in time order,
        # the plugin in the file's order (plugin/README.md); both are compared on it put in time
        # order by reordercap
        sorted_path = os.path.join(tmp, "sorted.pcapng")
        subprocess.run(["reordercap", path, sorted_path], stdout=subprocess.DEVNULL, check=True)
        path = sorted_path
        js = rocedump_json(rocedump, path)
    wfile = os.path.join(tmp, "w.pcapng")
    res = subprocess.run([rocedump, "-r", path, "-w", wfile], stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise RuntimeError("rocedump -w %s: %s" % (path, res.stderr.decode()))

    evfields = ["roce." + e for e in sorted(EVENT_NAMES)]
    names = (["frame.number", "frame.comment", "_ws.expert.message"] + sorted(fields) + IB_FIELDS + MACC_FIELDS +
             evfields)
    table = []
    one = fields_run(ts, names, path=wfile, extra=["-z", "roce,qp"], table=table)
    # fields and findings
    for num, obj in js.items():
        row = one.get(num)
        if row is None:
            diffs.append("frame %d: not in tshark's output" % num)
            continue
        # the expert field of each event present on exactly the frames rocedump gives it
        for ev in EVENT_NAMES:
            if bool(row["roce." + ev]) != (ev in obj["events"]):
                diffs.append("frame %d roce.%s: plugin %s, rocedump %s" % (num, ev, bool(row["roce." + ev]),
                                                                         ev in obj["events"]))
        ours = ours_of(row)
        want = names_of(split_events(row["frame.comment"][0] if row["frame.comment"] else ""))
        counts["events"] += len(want)
        if ours != want:
            diffs.append("frame %d events: plugin %s, rocedump %s" % (num, ours, want))
        macc = any(k in obj for k in MACC_KEYS)
        if "roce" not in obj and not macc:  # the analyzer's findings only (a missing CNP)
            extra = [n for n in fields if row[n] and not n.startswith("roce.analysis.")]
            if extra:
                diffs.append("frame %d (not RoCE): plugin fields %s" % (num, extra[:3]))
            continue
        if macc:
            counts["macc"] += 1
            diffs += macc_diffs(num, row, obj)
        elif row["macc.opcode"]:
            diffs.append("frame %d: tshark decodes MAC control, rocedump does not" % num)
        counts["frames"] += 1
        for n, ft in fields.items():
            if n.startswith("roce.analysis.") or n in ("roce.stream", "roce.pair"):
                continue  # not in the field table: the analysis' (findings, stream and pair ids)
            got, want = norm(n, ft, row[n]), want_of(n, obj)
            counts["values"] += len(want)
            counts["path"] += len(want) if n.startswith("roce.path.") else 0
            if got != want:
                diffs.append("frame %d %s: plugin %s, rocedump %s" % (num, n, got, want))
        diffs += finding_diffs(num, row, obj, fields)
        counts["path"] += sum(1 for x in obj.get("findings", []) if "path_from" in x)
        # a CNP's link to the CE frame it answers, and the time since: the JSON's "analysis"
        link = obj.get("analysis", {})
        if "roce.analysis.ce_frame" in fields:
            want = [link["ce_frame"]] if "ce_frame" in link else []
            counts["cnp_links"] += len(want)
            if [int(v) for v in row["roce.analysis.ce_frame"]] != want:
                diffs.append("frame %d roce.analysis.ce_frame: plugin %s, rocedump %s" % (num, row["roce.analysis.ce_frame"], want))
            got = [round(float(v) * 1e9) for v in row["roce.analysis.ce_to_cnp"]]
            want = [link["ce_to_cnp_ns"]] if "ce_to_cnp_ns" in link else []
            if got != want:
                diffs.append("frame %d roce.analysis.ce_to_cnp: plugin %s ns, rocedump %s" % (num, got, want))

    # -Y roce.EVENT: the rarest event of the capture and one it lacks (the field of every event
    # was checked above on every frame)
    tally = {}
    for o in js.values():
        for e in o["events"]:
            tally[e] = tally.get(e, 0) + 1
    present = sorted(tally, key=lambda e: (tally[e], e))[:1]
    absent = [e for e in sorted(EVENT_NAMES) if e not in tally][:1]
    for ev in (present or absent):
        want = sorted(n for n, o in js.items() if ev in o["events"])
        got = sorted(fields_run(ts, ["frame.number"], path=path, extra=["-Y", "roce." + ev]))
        counts["filters"] += 1
        if got != want:
            diffs.append("-Y roce.%s: %d frames (%s...), rocedump %d (%s...)" % (ev, len(got), got[:5], len(want), want[:5]))

    # -2 against one pass, on the same file (only our expert infos: Wireshark's own dissectors
    # have bugs of their own on the second pass)
    names2 = ["frame.number", "_ws.expert.message"] + sorted(fields) + evfields
    onep = {n: {k: (ours_of(r) if k == "_ws.expert.message" else r[k]) for k in names2} for n, r in one.items()}
    twop = fields_run(ts, names2, path=ts.readable_copy(wfile), extra=["-2"])
    for r in twop.values():
        r["_ws.expert.message"] = ours_of(r)
    if onep != twop:
        bad = [n for n in onep if onep[n] != twop.get(n)]
        diffs.append("-2 differs from one pass on %d frames, first %s" % (len(bad), bad[:3]))

    # the RoCE Queue Pairs table against rocedump's summary
    diffs += compare_table("\n".join(table), rocedump, path)

    # Wireshark's own fields, without the plugin
    ibn = ["frame.number"] + IB_FIELDS
    without = fields_run(bare, ibn, path=path)
    with_p = {n: {k: r[k] for k in ibn} for n, r in one.items()}
    if without != with_p:
        bad = [n for n in without if without[n] != with_p.get(n)]
        diffs.append("infiniband fields differ with the plugin on %d frames, first %s" % (len(bad), bad[:3]))
    return diffs, counts


EVENT_NAMES = set()
TITLES = {}  # an event's title (its expert infos' summary) -> its name

# a finding's field in the analysis subtree -> its value in a JSON finding (None: not shown)
FINDING_FIELDS = {
    "roce.analysis.expected_psn": lambda x: x.get("expected_psn", x.get("expected_msn")),
    "roce.analysis.seen_psn": lambda x: x.get("seen_psn", x.get("seen_msn")),
    "roce.analysis.delta": lambda x: x.get("delta_ns"),
    "roce.analysis.original_frame": lambda x: x.get("ref_frame") if x["event"] in
    ("psn.retransmit", "retransmit.timeout") else None,
    "roce.analysis.ref_frame": lambda x: None if x["event"] in ("psn.retransmit", "retransmit.timeout")
    else x.get("ref_frame"),
    "roce.analysis.acked_before": lambda x: 1 if x.get("acked_before") else None,
    "roce.analysis.resends_seen": lambda x: x.get("resends_seen"),
    "roce.analysis.resends_inferred": lambda x: x.get("resends_inferred"),
    "roce.analysis.priority": lambda x: (-1 if x["priority"] is None else x["priority"]) if "priority" in x
    else None,
    "roce.analysis.quanta": lambda x: x.get("quanta"),
    "roce.analysis.expired": lambda x: None if "expired" not in x else int(x["expired"]),
    "roce.analysis.paused_by": lambda x: x.get("by"),
    "roce.analysis.qpn": lambda x: x.get("qpn") if x["event"] in ("cnp.missing", "cnp.unexpected") else None,
    "roce.analysis.path_from": lambda x: x.get("path_from"),
    "roce.analysis.path_to": lambda x: x.get("path_to"),
}


def finding_diffs(num, row, obj, fields):
    """The analysis subtrees of a frame against its JSON events and findings."""
    order = []  # per event (the JSON's order: the table's), its findings, or one without details
    for e in obj["events"]:
        order += [x for x in obj.get("findings", []) if x["event"] == e] or [{"event": e}]
    diffs = []
    if row["roce.analysis.event"] != [x["event"] for x in order]:
        diffs.append("frame %d roce.analysis.event: plugin %s, rocedump %s" % (num, row["roce.analysis.event"],
                                                                            [x["event"] for x in order]))
    for n, get in FINDING_FIELDS.items():
        want = [v for v in map(get, order) if v is not None]
        got = norm(n, fields[n], row[n])
        if n == "roce.analysis.delta":
            got = [round(float(v) * 1e9) for v in row[n]]
        if got != want:
            diffs.append("frame %d %s: plugin %s, rocedump %s" % (num, n, got, want))
    return diffs


TABLE_COUNTS = {"Packets": "packets", "Requests": "requests", "Responses": "responses",
                "Messages": "messages", "Gaps": "gaps", "Missing PSNs": "missing_psns",
                "Retransmits": "retransmits", "Out of order": "out_of_order", "Timeouts": "timeouts",
                "RNR NAKs": "rnr_naks"}


def compare_table(out, rocedump, path):
    """tshark -z roce,qp rows vs rocedump's --summary rows, by (source, destination, QP)."""
    lines = [l for l in out.splitlines() if l.endswith("|")]
    if not lines:
        return ["-z roce,qp printed no table"]
    head = [h.strip() for h in lines[0].split("|")]
    got = {}
    for l in lines[1:]:
        row = dict(zip(head, (c.strip() for c in l.split("|"))))
        got[(row["Source"], row["Destination"], int(row["Destination QP"], 16))] = row
    res = subprocess.run([rocedump, "-r", path, "-q", "--summary", "-T", "json"], stdout=subprocess.PIPE)
    rows = json.loads(res.stdout.decode().splitlines()[-1])["streams"]["rows"]
    want = {(r["src"], r["dst"], r["dqpn"]): r for r in rows}
    diffs = []
    if set(got) != set(want):
        diffs.append("-z roce,qp streams %s, rocedump %s" % (sorted(set(got) - set(want))[:3], sorted(set(want) - set(got))[:3]))
    for k in set(got) & set(want):
        for col, key in TABLE_COUNTS.items():
            if int(got[k][col]) != want[k][key]:
                diffs.append("-z roce,qp %s %s: %s, rocedump %s" % (k, col, got[k][col], want[k][key]))
        if int(got[k]["Bytes"]) != want[k]["bytes"] or int(got[k]["PSN sequence NAKs"]) != want[k]["naks"]["psn_seq_err"]:
            diffs.append("-z roce,qp %s bytes or NAKs differ" % (k,))
    return diffs


def ours_of(row):
    """The plugin's expert infos of a row (their summaries, the events' titles) as event names."""
    return [TITLES[m] for m in row["_ws.expert.message"] if m in TITLES]


def names_of(texts):
    """rocedump's event texts ("psn.gap(expected 1 seen 3)") as their event names."""
    return [t.split("(", 1)[0] for t in texts]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--tshark", default=shutil.which("tshark") or "")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    if not args.tshark or not os.path.exists(args.plugin):
        print("SKIP: no tshark or no plugin")
        return 77
    files, status = captures_or_status(args.paths)
    if status is not None:
        return status
    out = subprocess.run([args.rocedump, "--list-events"], stdout=subprocess.PIPE, text=True).stdout
    EVENT_NAMES.update(line.split()[0] for line in out.splitlines() if line.strip())
    ts, bare = Tshark(args.tshark, args.plugin), Tshark(args.tshark, None)
    tmp = tempfile.mkdtemp()
    total = {"frames": 0, "values": 0, "events": 0, "filters": 0, "macc": 0, "cnp_links": 0, "path": 0}
    bad = 0
    try:
        fields = plugin_fields(ts)
        if "roce.psn" not in fields:
            print("error: tshark did not load the plugin (no roce.psn field)", file=sys.stderr)
            return 2
        for path in files:
            diffs, counts = check_capture(ts, bare, args.rocedump, path, fields, tmp)
            for k in total:
                total[k] += counts[k]
            for d in diffs[:10]:
                print("DIFF %s: %s" % (os.path.basename(path), d))
            bad += bool(diffs)
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    finally:
        ts.close()
        bare.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d captures%s: %d RoCE and MAC control frames (%d MAC control, also against tshark's macc.*), "
          "%d field values (%d of path analysis), %d events, %d CNP-to-CE links, %d -Y filters compared; "
          "%d captures differ"
          % (len(files), " (ASan plugin)" if ts.asan else "", total["frames"], total["macc"], total["values"],
             total["path"], total["events"], total["cnp_links"], total["filters"], bad))
    if not total["macc"]:
        print("error: no MAC control frame among the captures: the roce.pfc.* fields went unchecked")
        return 1
    if not total["cnp_links"]:
        print("error: no CNP answering a CE mark among the captures: roce.analysis.ce_frame went unchecked")
        return 1
    if not total["path"]:
        print("error: no capture with several capture points: the roce.path.* fields went unchecked")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
