"""time_order_blocks.py: a capture of one interface rewritten as a pcapng of two interfaces, each
interface's frames in blocks (of copies_blocks.BLOCK, the blocks alternating, as dumpcap writes
several interfaces), must give the transport analysis of the capture alone: rocedump analyses a
file's interfaces in time order, not in the file's order. Two such files: both interfaces saw
every frame (copies_blocks.py's, the second sighting 1 to 5 us apart), and the frames split
between the interfaces in runs of 7 (each seen once: in the file's order, runs of one interface
come before earlier runs of the other). Per stream: the PSNs lost before and after the capture
point, resends, timeouts, gaps, PSNs out of order and NAKs; and every event but frame.copy (TAP).

usage: time_order_blocks.py --rocedump R CAPTURE"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from copies_blocks import BLOCK, read_pcap, two_interfaces, write_pcapng

FIELDS = ("lost_before_capture", "lost_after_capture", "retransmits", "timeouts", "gaps", "missing_psns",
          "out_of_order", "naks", "rnr_naks")


def split(frames):
    """Frame i on interface (i // 7) % 2 alone; each interface's frames in blocks of BLOCK, the
    blocks alternating."""
    views = ([], [])
    for i, (ts, data, wirelen) in enumerate(frames):
        views[(i // 7) % 2].append(((i // 7) % 2, ts, data, wirelen))
    records = []
    for b in range(0, max(len(views[0]), len(views[1])), BLOCK):
        records += views[0][b:b + BLOCK] + views[1][b:b + BLOCK]
    return records


def analysis(rocedump, path):
    """(events without frame.copy, {stream key: FIELDS}) of rocedump's summary."""
    out = subprocess.run([rocedump, "-q", "--summary", "-T", "json", "-r", path],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    objs = [json.loads(l) for l in out if l.startswith("{")]
    ev = dict(next(o["summary"] for o in objs if "summary" in o)["events"])
    ev.pop("frame.copy", None)
    rows = next(o["streams"]["rows"] for o in objs if "streams" in o)
    return ev, {"%s>%s qp %s" % (r["src"], r["dst"], r["dqpn"]): {k: r[k] for k in FIELDS} for r in rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("capture")
    a = ap.parse_args()
    linktype, frames = read_pcap(a.capture)
    ev1, streams1 = analysis(a.rocedump, a.capture)
    name = os.path.basename(a.capture)
    n = failed = 0
    for how, records in (("copies on both", two_interfaces(frames, False)), ("split", split(frames))):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "blocks.pcapng")
            write_pcapng(path, linktype, records)
            ev2, streams2 = analysis(a.rocedump, path)
        for key in sorted(set(streams1) | set(streams2)):
            n += 1
            good = streams1.get(key) == streams2.get(key)
            failed += not good
            print("%s %d - %s, %s: stream %s as alone: %s" % ("ok" if good else "not ok", n, name, how, key,
                                                              json.dumps(streams2.get(key))))
            if not good:
                print("# alone: %s" % json.dumps(streams1.get(key)))
        n += 1
        good = ev1 == ev2 and sum(s["lost_before_capture"] + s["retransmits"] for s in streams1.values()) > 0
        failed += not good
        print("%s %d - %s, %s: the events as alone (but frame.copy), and some loss to find: %s" % (
            "ok" if good else "not ok", n, name, how, json.dumps(ev2)))
        if not good:
            print("# alone: %s" % json.dumps(ev1))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
