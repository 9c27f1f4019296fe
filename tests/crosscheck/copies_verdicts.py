"""copies_verdicts.py: a capture that sees every frame twice (tcpdump -i any, a pcapng of two
interfaces) must give the same per-stream verdicts as the same traffic seen once.

For each capture with copies, the view of one interface is cut out of it with tshark (an SLL2
interface index, a pcapng interface id) and rocedump's --summary JSON of the whole capture is
compared with the view's, stream by stream: packets, requests, responses, messages, gaps, missing
PSNs, resends, late PSNs, timeouts, NAKs, RNR NAKs, PSNs lost before and after the capture point,
and the events (frame.copy aside). The whole capture must have copies, the view none.

--selftest: the same comparison with copies not looked for (--copy-window-us 0) must fail on
every capture: the copies would be resends.

usage: copies_verdicts.py [--selftest] --rocedump R --tshark T CAPTURES_DIR
Exit 0 all agree, 1 a difference, 77 no tshark."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import xcommon

# capture (under rxe/) -> the display filter of one view that sees every packet the capture has
VIEWS = {
    "vlan_rc_pingpong-any-sll2.pcap": "sll.ifindex == 3",      # eth0.77: before eth0 and its tags
    "vlan_write_bw_loss-any-sll2.pcap": "sll.ifindex == 3",
    "host-taps.pcapng": "frame.interface_id == 1",             # the client's tap (both directions)
    "host-taps-loss.pcapng": "frame.interface_id == 1",
}
FIELDS = ["packets", "requests", "responses", "messages", "gaps", "missing_psns", "retransmits", "out_of_order",
          "timeouts", "naks", "rnr_naks", "lost_before_capture", "lost_after_capture"]


def run_json(rocedump, path, extra):
    out = subprocess.run([rocedump, "-q", "--summary", "-T", "json", "-r", path] + extra,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    summary, streams = json.loads(out[0])["summary"], json.loads(out[1])["streams"]
    rows = {(r["src"], r["dst"], r["dqpn"]): r for r in streams["rows"]}
    return summary["events"], rows


def cut_view(tshark, path, display_filter, out):
    with open(path, "rb") as src, open(out, "wb") as dst:
        subprocess.run(xcommon.tshark_prefix(tshark) + ["-r", "-", "-Y", display_filter, "-w", "-", "-F",
                       "pcapng" if path.endswith(".pcapng") else "pcap"], stdin=src, stdout=dst, check=True,
                       stderr=subprocess.DEVNULL)


def compare(rocedump, whole, view, extra):
    """Differences between the whole capture's verdicts and its one-interface view's."""
    ev_w, rows_w = run_json(rocedump, whole, extra)
    ev_v, rows_v = run_json(rocedump, view, extra)
    diffs = []
    copies = ev_w.pop("frame.copy", 0)
    if not copies:
        diffs.append("no frame.copy in the whole capture")
    if ev_v.pop("frame.copy", 0):
        diffs.append("frame.copy in the one-interface view")
    if ev_w != ev_v:
        diffs.append("events %s != %s" % (ev_w, ev_v))
    if set(rows_w) != set(rows_v):
        diffs.append("streams %s != %s" % (sorted(rows_w), sorted(rows_v)))
    for key in sorted(set(rows_w) & set(rows_v)):
        for f in FIELDS:
            if rows_w[key][f] != rows_v[key][f]:
                diffs.append("%s > %s qp %d: %s %s != %s" % (key + (f, rows_w[key][f], rows_v[key][f])))
    return copies, diffs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--tshark", default="")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("captures")
    a = ap.parse_args()
    if not a.tshark or not os.path.exists(a.tshark):
        print("1..0 # SKIP no tshark")
        return 77
    n = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o777)  # tshark may run as another user; it writes to our pipe, not here
        for name, flt in sorted(VIEWS.items()):
            whole = os.path.join(a.captures, "rxe", name)
            if not os.path.exists(whole):
                continue
            view = os.path.join(tmp, "view-" + name)
            cut_view(a.tshark, whole, flt, view)
            n += 1
            copies, diffs = compare(a.rocedump, whole, view, ["--copy-window-us", "0"] if a.selftest else [])
            if a.selftest:
                good = bool(diffs)  # without copy detection the verdicts must differ
                what = "without copy detection the verdicts differ"
            else:
                good = not diffs
                what = "%d copies; the same verdicts as %s" % (copies, flt)
            print("%s %d - %s: %s" % ("ok" if good else "not ok", n, name, what))
            if not good:
                failed += 1
                for d in diffs[:20]:
                    print("# " + d)
    if not n:
        print("1..0 # SKIP no capture with copies")
        return 77
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
