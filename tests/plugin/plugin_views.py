#!/usr/bin/python3
"""The plugin in Wireshark's own views, through tshark (as user 65534, pcommon.py):

  expert  the expert-info severities: on a capture cut by its snap length
          (rxe/snap_rc_pingpong-s96.pcap) `truncated` is a Note in group Protocol and no RoCE
          item is Malformed; a packet whose own length fields disagree
          (gen/anomalies.pcap: packet.too_short) still is an Error in group Malformed;
  groups  `-z expert` on every lossy capture (rxe/*loss*): one RoCE row per event the capture has
          (rocedump's JSON), its summary the event's constant title (the expert field's name in
          `tshark -G fields`), no frame's details in it;
  tree    `-V` on rxe/rc_pingpong_loss.pcap (-T pdml): the analysis subtree roce.analysis after
          the frame's fields, the flags item roce.analysis.flags last in it, one subtree per
          finding under it headed by its event (roce.analysis.event) holding that finding's PSNs,
          its time labelled "Time since ..."; the BTH flags (SE, MigReq, FECN, BECN, AckReq) shown
          Set or Not set as the JSON's 1 or 0;
  conv    `-z conv,roce` (one pass and -2): one row per queue pair of `rocedump -T json
          --summary`, its frames and bytes each way those of the pair's two streams (A -> B the
          stream whose id is the pair id), bytes as tshark prints them;
  flow    `-z flow,roce,standard` on a lossy capture (rxe/rc_pingpong_loss.pcap): an arrow per
          RoCE frame, the requests, ACKs and NAKs by their labels as many as rocedump counts;
  path    `-Y roce.path.*` on derived/path_three_points.pcapng (one packet stream seen at three
          pcapng interfaces, two packets lost between two of them): the frames with each path
          field and value, as many as the capture holds (PATH_FILTERS).

Usage: plugin_views.py --plugin roce.so --rocedump ROCEDUMP [--tshark PATH] CHECK CAPTURES-DIR
Exit status: 0 pass, 1 a failure (printed), 2 a tool failed, 77 skipped.
"""
import glob
import json
import os
import re
import xml.etree.ElementTree as ET
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcommon import Tshark, parse_args  # noqa: E402

CONV_CAPTURES = ["rxe/rc_pingpong_loss.pcap", "rxe/cm_send_bw.pcap", "rxe/read_bw_lossy.pcap",
                 "rxe/ud_pingpong.pcap", "rxe/write_bw_loss.pcap", "rxe/v6_rc_pingpong.pcap"]


# -Y filter -> frames of derived/path_three_points.pcapng: 5,991 frames, a sighting's fields on
# every RoCE frame from frame 2 on (when the second point appears), 2,001 packets seen once,
# 1,998 twice, 1,991 three times; path.lost on two resends, one on each direction's hop
PATH_CAPTURE = "derived/path_three_points.pcapng"
PATH_FILTERS = {
    "roce.path.point": 5990,
    "roce.path.point == 2": 1997,
    "roce.path.sightings == 1": 2001,
    "roce.path.sightings == 3": 1991,
    "roce.path.first_frame": 3989,
    "roce.path.first_point == 0": 1992,
    "roce.path.delay": 3989,
    "roce.path.first_frame == 1": 2,
    "roce.path.lost": 2,
    "roce.analysis.path_from == 0 && roce.analysis.path_to == 1": 1,
    "roce.analysis.path_from == 1 && roce.analysis.path_to == 0": 1,
}


class Checks:
    def __init__(self, ts, rocedump, captures):
        self.ts, self.rocedump, self.captures = ts, rocedump, captures
        self.failures = 0

    def fail(self, what):
        print("FAIL: " + what)
        self.failures += 1

    def tshark(self, args, capture):
        status, out, err = self.ts.run(args, path=os.path.join(self.captures, capture))
        if status != 0:
            raise RuntimeError("tshark %s < %s: exit %d: %s" % (" ".join(args), capture, status, err.strip()))
        return out

    def expert_rows(self, capture):
        """(severity section, group, summary) of `-z expert`'s RoCE rows."""
        rows, section = [], None
        for line in self.tshark(["-r", "-", "-q", "-z", "expert"], capture).splitlines():
            m = re.match(r"^(Errors|Warns|Notes|Chats|Comments) \(\d+\)", line)
            if m:
                section = m.group(1)
                continue
            m = re.match(r"^\s+\d+\s+(\S+)\s+RoCE\s+(.*)$", line)
            if m:
                rows.append((section, m.group(1), m.group(2)))
        return rows

    def titles(self):
        """Event name -> its expert summary, from tshark -G fields (the expert field's name)."""
        st, out, err = self.ts.run(["-G", "fields"], data=b"")
        if st != 0:
            raise RuntimeError("tshark -G fields: %s" % err)
        names = subprocess.run([self.rocedump, "--list-events"], stdout=subprocess.PIPE, text=True).stdout
        events = set(line.split()[0] for line in names.splitlines() if line.strip())
        got = {}
        for line in out.splitlines():
            cols = line.split("\t")
            if len(cols) >= 5 and cols[0] == "F" and cols[2].startswith("roce.") and cols[2][5:] in events:
                got[cols[2][5:]] = cols[1]
        if set(got) != events:
            raise RuntimeError("no expert field for %s" % sorted(events - set(got))[:5])
        return got

    def events_of(self, capture):
        """The JSON objects of rocedump -T json on a capture, by frame number."""
        res = subprocess.run([self.rocedump, "-T", "json", "-r", os.path.join(self.captures, capture)],
                             stdout=subprocess.PIPE, check=True)
        return {o["frame"]: o for o in map(json.loads, res.stdout.decode().splitlines())}

    def groups(self):
        titles = self.titles()
        caps = sorted(os.path.relpath(c, self.captures) for c in glob.glob(os.path.join(self.captures, "rxe", "*loss*")))
        if not caps:
            raise RuntimeError("no rxe/*loss* capture")
        for cap in caps:
            events = sorted(set(e for o in self.events_of(cap).values() for e in o["events"]))
            rows = self.expert_rows(cap)
            want = sorted(titles[e] for e in events)
            got = sorted(r[2] for r in rows)
            if got != want:
                self.fail("%s: -z expert RoCE rows %s, want one per event %s" % (cap, got[:6], want[:6]))
            print("groups: %s: %d RoCE rows for %d events" % (cap, len(rows), len(events)))

    def tree(self):
        cap = "rxe/rc_pingpong_loss.pcap"
        js = self.events_of(cap)
        pdml = ET.fromstring(self.tshark(["-r", "-", "-T", "pdml", "-O", "roce"], cap))
        flags = {"se": "Solicited event", "m": "MigReq", "fecn": "FECN", "becn": "BECN", "ackreq": "Acknowledge request"}
        seen_set, two = set(), 0
        for pkt in pdml.iter("packet"):
            num = int(pkt.find("proto[@name='geninfo']/field[@name='num']").get("show"))
            roce = pkt.find("proto[@name='roce']")
            obj = js.get(num, {})
            if roce is None or "roce" not in obj:
                continue
            for f, label in flags.items():
                el = roce.find(".//field[@name='roce.%s']" % f)
                if el is None:
                    continue
                want = "Set" if obj["roce"][f] else "Not set"
                if not el.get("showname", "").endswith("= %s: %s" % (label, want)):
                    self.fail("frame %d roce.%s: '%s', want %s" % (num, f, el.get("showname"), want))
                if want == "Set":
                    seen_set.add(f)
            kids = list(roce)
            an = roce.find("field[@name='roce.analysis']")
            if not obj["events"]:
                continue
            if an is None or kids[-1] is not an:
                self.fail("frame %d: roce.analysis is not the tree's last item" % num)
                continue
            if list(an)[-1].get("name") != "roce.analysis.flags":
                self.fail("frame %d: roce.analysis.flags is not last in roce.analysis" % num)
                continue
            heads = list(list(an)[-1])
            # per event, in the table's order: a subtree per finding of it, or one without details
            want = []
            for e in obj["events"]:
                want += [x for x in obj.get("findings", []) if x["event"] == e] or [{"event": e}]
            if [h.get("show") for h in heads] != [x["event"] for x in want] or \
                    any(h.get("name") != "roce.analysis.event" for h in heads):
                self.fail("frame %d: finding subtrees %s, want %s" % (num, [h.get("show") for h in heads],
                                                                    [x["event"] for x in want]))
                continue
            for h, x in zip(heads, want):
                psn = [int(c.get("show")) for c in h if c.get("name") == "roce.analysis.seen_psn"]
                if psn != ([x["seen_psn"]] if "seen_psn" in x else []):
                    self.fail("frame %d %s: seen PSNs %s in its subtree, JSON %s" % (num, x["event"], psn, x))
                for c in h:
                    if c.get("name") == "roce.analysis.delta" and not c.get("showname", "").startswith("Time since the "):
                        self.fail("frame %d: time '%s' says not since what" % (num, c.get("showname")))
            two += len(obj.get("findings", [])) >= 2
        if not two or "ackreq" not in seen_set:
            self.fail("tree: %d frames with two findings, flags seen Set %s: the capture checks nothing" %
                      (two, sorted(seen_set)))
        print("tree: %d frames with two findings in subtrees of their own; flags Set: %s" % (two, sorted(seen_set)))

    def expert(self):
        titles = self.titles()
        rows = self.expert_rows("rxe/snap_rc_pingpong-s96.pcap")
        cut = [r for r in rows if r[2] == titles["truncated"]]
        if not cut or any(r[:2] != ("Notes", "Protocol") for r in cut):
            self.fail("snap_rc_pingpong-s96: truncated should be Notes/Protocol: %s" % cut[:3])
        bad = [r for r in rows if r[1] == "Malformed"]
        if bad:
            self.fail("snap_rc_pingpong-s96: %d Malformed RoCE rows, e.g. %s" % (len(bad), bad[0]))
        rows = self.expert_rows("gen/anomalies.pcap")
        short = [r for r in rows if r[2] == titles["packet.too_short"]]
        if not short or any(r[:2] != ("Errors", "Malformed") for r in short):
            self.fail("anomalies: packet.too_short should be Errors/Malformed: %s" % short)
        print("expert: %d truncated rows Notes/Protocol, no Malformed on the cut capture; "
              "packet.too_short Errors/Malformed" % len(cut))

    def streams(self, capture):
        res = subprocess.run([self.rocedump, "-T", "json", "-q", "--summary", "-r",
                              os.path.join(self.captures, capture)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if res.returncode not in (0, 1):
            raise RuntimeError("rocedump on %s: exit %d %s" % (capture, res.returncode, res.stderr))
        for line in res.stdout.splitlines():
            if line.startswith('{"streams"'):
                return json.loads(line)["streams"]["rows"]
        raise RuntimeError("rocedump on %s: no streams object" % capture)

    @staticmethod
    def size(n):
        """Bytes as tshark 4.0's conversation table prints them (format_size, SI, whole units)."""
        for div, unit in ((10**12, "TB"), (10**9, "GB"), (10**6, "MB"), (10**3, "kB")):
            if n // div >= 10:
                return "%d %s" % (n // div, unit)
        return "%d bytes" % n

    def expected_rows(self, capture):
        pairs = {}
        for s in self.streams(capture):
            p = pairs.setdefault(s["pair"], {"a": None, "b": None})
            p["a" if s["stream"] == s["pair"] else "b"] = s
        rows = []
        for p in pairs.values():
            a, b = p["a"], p["b"]
            if a is None:
                continue
            back = (b["packets"], self.size(b["bytes"])) if b else (0, self.size(0))
            rows.append((a["src"], a["dst"], back, (a["packets"], self.size(a["bytes"]))))
        return sorted(rows)

    def conv_rows(self, capture, two_pass):
        args = ["-r", "-", "-q", "-z", "conv,roce"]
        if two_pass:
            args = ["-2", "-r", self.ts.readable_copy(os.path.join(self.captures, capture)), "-q", "-z", "conv,roce"]
            status, out, err = self.ts.run(args)
            if status != 0:
                raise RuntimeError("tshark -2 on %s: %s" % (capture, err))
        else:
            out = self.tshark(args, capture)
        rows = []
        num = r"(\d+)\s+(\d+ (?:bytes|kB|MB|GB|TB))"
        for line in out.splitlines():
            m = re.match(r"^(\S+)\s+<->\s+(\S+)\s+" + num + r"\s+" + num + r"\s+", line)
            if m:
                rows.append((m.group(1), m.group(2), (int(m.group(3)), m.group(4)), (int(m.group(5)), m.group(6))))
        return sorted(rows)

    def conv(self):
        n = 0
        for capture in CONV_CAPTURES:
            want = self.expected_rows(capture)
            for two_pass in (False, True):
                got = self.conv_rows(capture, two_pass)
                if got != want:
                    self.fail("%s%s: -z conv,roce rows\n  got  %s\n  want %s" %
                              (capture, " (-2)" if two_pass else "", got, want))
            n += len(want)
        print("conv: %d queue pairs on %d captures, one pass and -2" % (n, len(CONV_CAPTURES)))

    def flow(self):
        capture = "rxe/rc_pingpong_loss.pcap"
        out = self.tshark(["-r", "-", "-q", "-z", "flow,roce,standard"], capture)
        labels = [m.group(1).strip() for m in re.finditer(r"^\|[\d.]+ +\|\s+(\S.*?)\s*\|pair", out, re.M)]
        arrows = len(re.findall(r"(?:-{6,}>|<-{6,})", out))
        res = subprocess.run([self.rocedump, "-T", "json", "-q", "--summary", "-r",
                              os.path.join(self.captures, capture)],
                             stdout=subprocess.PIPE, text=True)
        summary = json.loads(res.stdout.splitlines()[0])["summary"]
        want_frames = summary["roce"]["v2"]
        want_naks = summary["events"].get("nak.psn_seq_err", 0)
        acks = sum(1 for x in labels if x.startswith("ACK QP"))
        naks = sum(1 for x in labels if x.startswith("NAK PSN_SEQ_ERR"))
        reqs = sum(1 for x in labels if x.startswith("SEND_"))
        want_acks = int(summary["opcodes"]["17"]["count"]) - want_naks
        want_reqs = sum(int(v["count"]) for k, v in summary["opcodes"].items() if k != "17")
        if len(labels) != want_frames or arrows != want_frames:
            self.fail("flow: %d items, %d arrows, want %d" % (len(labels), arrows, want_frames))
        if (reqs, acks, naks) != (want_reqs, want_acks, want_naks) or not naks:
            self.fail("flow: requests/ACKs/NAKs %d/%d/%d, want %d/%d/%d" %
                      (reqs, acks, naks, want_reqs, want_acks, want_naks))
        if "10.77.0.2" not in out or "10.77.0.1" not in out:
            self.fail("flow: the nodes are not the capture's addresses")
        print("flow: %d items: %d requests, %d ACKs, %d NAKs" % (len(labels), reqs, acks, naks))

    def path(self):
        for flt, want in PATH_FILTERS.items():
            got = len(self.tshark(["-r", "-", "-Y", flt, "-T", "fields", "-e", "frame.number"],
                                  PATH_CAPTURE).split())
            if got != want:
                self.fail("path: -Y '%s': %d frames, want %d" % (flt, got, want))
        print("path: %d filters on %s" % (len(PATH_FILTERS), PATH_CAPTURE))


def main():
    def extra(ap):
        ap.add_argument("--rocedump", required=True)
        ap.add_argument("check", choices=["expert", "groups", "tree", "conv", "flow", "path"])
    args, status = parse_args(__doc__, extra)
    if status is not None:
        return status
    ts = Tshark(args.tshark, args.plugin)
    checks = Checks(ts, args.rocedump, args.captures)
    try:
        getattr(checks, args.check)()
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    finally:
        ts.close()
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
