#!/usr/bin/python3
"""Cross-check the CM MAD decoder (analyzer/core/mad.c) against tshark 4.0.x, field by field.

Usage: cm_compare.py --mad-dump PATH [--tshark PATH] [--selftest] [-v] CAPTURE|DIR ...

tests/unit/mad_dump prints, for every MAD on QP1 (UD SEND_ONLY with DETH to QP 1), the MAD
common header and the fields of the CM message, each under the name of the tshark field that
carries the same value. This script runs `tshark -T fields` with those names and requires:

  * the same frames: every frame tshark shows with infiniband.mad.mgmtclass == 7 is a CM MAD
    for us and the other way round;
  * the MAD common header (9 fields) on every such frame;
  * for REQ, REP, RTU, DREQ, DREP, REJ: every field listed in CM_FIELDS below, present on both
    sides and equal; the optional ones (REQ GIDs as IPv4, RDMA IP CM private data) present on
    both sides or on neither.

Known tshark 4.0.17 deviations, counted and printed, never silently dropped:
  * infiniband.cm.req.prim_flowlabel: tshark reads 3 bytes (REQ bytes 88-90) under the 32-bit
    mask 0xfffff000 and so prints the 20-bit flow label shifted right by 8; compared as ours >> 8.
  * infiniband.cm.req.prim_pktrate: tshark reads it from byte 88 (the flow label's first byte)
    instead of byte 91 bits 5:0 (ibta_vol1_c12.h CM_REQ_PRIMARY_PACKET_RATE); what tshark shows
    is compared with (our flow label >> 12) & 0x3f, so our packet rate itself is checked only by
    tests/unit/test_mad.c.
  * MRA (AttributeID 0x0011): tshark 4.0 has no MRA fields; only the MAD header is compared.

Exit status: 0 all compared fields agree, 1 a mismatch, 2 usage or tool error, 77 (meson: skip)
tshark not found or no CM MAD in the captures.
--selftest: after the comparison, corrupts each compared field of ours once (and drops one
frame) in memory, and requires each corruption to be reported; exits 1 if one goes unnoticed.
"""

import argparse
import copy
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xcommon import captures_or_status, tshark_fields  # noqa: E402

MAD_FIELDS = [
    "infiniband.mad.baseversion", "infiniband.mad.mgmtclass", "infiniband.mad.classversion",
    "infiniband.mad.method", "infiniband.mad.status", "infiniband.mad.classspecific",
    "infiniband.mad.transactionid", "infiniband.mad.attributeid",
    "infiniband.mad.attributemodifier",
]

# Per AttributeID: (kind, required fields, optional fields). tshark's own names, including its
# oddities: the REQ/REP Local Communication IDs are "infiniband.cm.req"/"infiniband.cm.rep", the
# DREQ Remote QPN is "infiniband.cm.req.remoteqpneecn", DREP is "drsp".
CM_FIELDS = {
    0x0010: ("REQ", [
        "infiniband.cm.req", "infiniband.cm.req.serviceid", "infiniband.cm.req.localcaguid",
        "infiniband.cm.req.localqkey", "infiniband.cm.req.localqpn",
        "infiniband.cm.req.responderres", "infiniband.cm.req.localeecn",
        "infiniband.cm.req.initdepth", "infiniband.cm.req.remoteeecn",
        "infiniband.cm.req.remoteresptout", "infiniband.cm.req.transpsvctype",
        "infiniband.cm.req.e2eflowctrl", "infiniband.cm.req.startpsn",
        "infiniband.cm.req.localresptout", "infiniband.cm.req.retrcount",
        "infiniband.cm.req.pkey", "infiniband.cm.req.pppmtu", "infiniband.cm.req.rdcexist",
        "infiniband.cm.req.rnrretrcount", "infiniband.cm.req.maxcmretr", "infiniband.cm.req.srq",
        "infiniband.cm.req.ext_transport", "infiniband.cm.req.prim_locallid",
        "infiniband.cm.req.prim_remotelid", "infiniband.cm.req.prim_flowlabel",
        "infiniband.cm.req.prim_pktrate", "infiniband.cm.req.prim_tfcclass",
        "infiniband.cm.req.prim_hoplim", "infiniband.cm.req.prim_sl",
        "infiniband.cm.req.prim_subnetlocal", "infiniband.cm.req.prim_localacktout",
    ], [
        "infiniband.cm.req.prim_localgid_ipv4", "infiniband.cm.req.prim_remotegid_ipv4",
        "infiniband.cm.req.ip_cm.majv", "infiniband.cm.req.ip_cm.minv",
        "infiniband.cm.req.ip_cm.ipv", "infiniband.cm.req.ip_cm.sport",
        "infiniband.cm.req.ip_cm.sip4", "infiniband.cm.req.ip_cm.dip4",
    ]),
    0x0011: ("MRA", [], []),
    0x0012: ("REJ", [
        "infiniband.cm.rej.localcommid", "infiniband.cm.rej.remotecommid",
        "infiniband.cm.rej.msgrej", "infiniband.cm.rej.rejinfolen", "infiniband.cm.rej.reason",
    ], []),
    0x0013: ("REP", [
        "infiniband.cm.rep", "infiniband.cm.rep.remotecommid", "infiniband.cm.rep.localqkey",
        "infiniband.cm.rep.localqpn", "infiniband.cm.rep.localeecn", "infiniband.cm.rep.startpsn",
        "infiniband.cm.rep.respres", "infiniband.cm.rep.initdepth",
        "infiniband.cm.rep.tgtackdelay", "infiniband.cm.rep.failoveracc",
        "infiniband.cm.rep.e2eflowctrl", "infiniband.cm.rep.rnrretrcount",
        "infiniband.cm.rep.srq", "infiniband.cm.rep.localcaguid",
    ], []),
    0x0014: ("RTU", ["infiniband.cm.rtu.localcommid", "infiniband.cm.rtu.remotecommid"], []),
    0x0015: ("DREQ", ["infiniband.cm.dreq.localcommid", "infiniband.cm.dreq.remotecommid",
                      "infiniband.cm.req.remoteqpneecn"], []),
    0x0016: ("DREP", ["infiniband.cm.drsp.localcommid", "infiniband.cm.drsp.remotecommid"], []),
}

# Where tshark 4.0.17 is known to deviate: field -> (what tshark shows given our value of the
# field and all our fields of the frame, why)
QUIRKS = {
    "infiniband.cm.req.prim_flowlabel":
        (lambda ours, fields: ours >> 8,
         "tshark reads 3 bytes under mask 0xfffff000: shows our flow label >> 8"),
    "infiniband.cm.req.prim_pktrate":
        (lambda ours, fields: (int(fields["infiniband.cm.req.prim_flowlabel"]) >> 12) & 0x3f,
         "tshark reads byte 88 (flow label) instead of 91: shows (our flow label >> 12) & 0x3f"),
}
NOT_IN_TSHARK = {0x0011: "MRA: tshark 4.0 has no MRA fields (MAD header compared only)"}

ALL_TSHARK = ["frame.number"] + MAD_FIELDS + sorted(
    {f for _, req, opt in CM_FIELDS.values() for f in req + opt})


def run_tshark(tshark, path):
    """frame number -> {field: value} for the frames with a MAD (RoCE payload dissectors stay:
    tshark decodes CM itself)."""
    rows = {}
    for r in tshark_fields(tshark, path, ALL_TSHARK, display_filter="infiniband.mad",
                           disable_payload=False):
        row = {n: ",".join(v) for n, v in r.items() if v}
        rows[int(row.pop("frame.number"))] = row
    return rows


def run_mad_dump(mad_dump, path):
    res = subprocess.run([mad_dump, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise RuntimeError("%s %s failed (%d): %s" % (mad_dump, path, res.returncode,
                                                     res.stderr.decode(errors="replace")))
    frames = {}
    for line in res.stdout.decode().splitlines():
        kv = dict(item.split("=", 1) for item in line.split())
        frames[int(kv.pop("frame"))] = kv
    return frames


def norm(name, v):
    """A tshark or mad_dump value as an int, or an address string as is."""
    v = v.strip()
    if name.endswith(("ipv4", "sip4", "dip4")):
        return v
    if "," in v:
        raise ValueError("%s occurs more than once: %s" % (name, v))
    return int(v, 0)


class Result:
    def __init__(self):
        self.frames = 0
        self.fields = 0
        self.kinds = {}
        self.quirks = {}
        self.not_compared = {}
        self.mismatches = []   # (frame, field, tshark, ours)


def is_cm(row):
    v = row.get("infiniband.mad.mgmtclass")
    return v is not None and norm("", v) == 7


def compare(ours, ts, res):
    ts_cm = {n for n, row in ts.items() if is_cm(row)}
    our_cm = {n for n, o in ours.items() if o.get("infiniband.mad.mgmtclass") == "7"}
    for n in sorted(ts_cm - our_cm):
        res.mismatches.append((n, "frame", "CM MAD", "not a CM MAD (%s)" %
                               (ours[n]["result"] if n in ours else "no line")))
    for n in sorted(our_cm - ts_cm):
        res.mismatches.append((n, "frame", "not a CM MAD", "CM MAD (%s)" % ours[n]["result"]))
    for n in sorted(ts_cm & our_cm):
        t, o = ts[n], ours[n]
        res.frames += 1
        attr = norm("", t["infiniband.mad.attributeid"])
        kind, req, opt = CM_FIELDS.get(attr, ("attr 0x%04x" % attr, None, []))
        res.kinds[kind] = res.kinds.get(kind, 0) + 1
        if req is None:   # an attribute we do not decode: the header only, and no claim
            if o["result"] != "unknown_attribute":
                res.mismatches.append((n, "result", "unknown_attribute", o["result"]))
        elif o["result"] != "ok" or o["kind"] != kind:
            res.mismatches.append((n, "kind", kind, "%s (%s)" % (o["kind"], o["result"])))
            continue
        if attr in NOT_IN_TSHARK:
            res.not_compared.setdefault(NOT_IN_TSHARK[attr], []).append(n)
        names = [(f, True) for f in MAD_FIELDS + (req or [])] + [(f, False) for f in opt]
        for f, required in names:
            tv, ov = t.get(f), o.get(f)
            if tv is None and ov is None and not required:
                continue
            if tv is None or ov is None:
                res.mismatches.append((n, f, tv if tv is not None else "(absent)",
                                       ov if ov is not None else "(absent)"))
                continue
            try:
                tn, on = norm(f, tv), norm(f, ov)
            except ValueError as e:
                res.mismatches.append((n, f, tv, "%s (%s)" % (ov, e)))
                continue
            if f in QUIRKS:
                fn, why = QUIRKS[f]
                res.quirks.setdefault("%s: %s" % (f, why), []).append(n)
                try:
                    on = fn(on, o)
                except (KeyError, ValueError) as e:
                    res.mismatches.append((n, f, tv, "%s (quirk needs %s)" % (ov, e)))
                    continue
            res.fields += 1
            if tn != on:
                res.mismatches.append((n, f, tv, ov))


def corruptions(ours, ts):
    """(description, frame, field or None, corrupted copy of ours) for the self-test: every
    compared field name once, on the first frame that has it, and one dropped CM frame."""
    seen = set()
    for n in sorted(ours):
        o = ours[n]
        if n not in ts or not is_cm(ts[n]):
            continue
        for f, v in o.items():
            if f in ("result", "kind") or f in seen or f not in ts[n]:
                continue
            seen.add(f)
            c = copy.deepcopy(ours)
            if f.endswith(("ipv4", "sip4", "dip4")):
                c[n][f] = "192.0.2.%d" % ((int(v.split(".")[-1]) + 1) % 256)
            elif f == "infiniband.cm.req.prim_flowlabel":
                c[n][f] = str(int(v) ^ 0x1100)   # visible through both quirks
            elif f in QUIRKS:
                continue                         # tshark shows another field of ours
            else:
                c[n][f] = str(int(v) ^ 1)
            # another class makes the frame not a CM MAD for us: reported as the frame
            yield ("%s in frame %d" % (f, n), n,
                   "frame" if f == "infiniband.mad.mgmtclass" else f, c)
        if "drop" not in seen:
            seen.add("drop")
            c = copy.deepcopy(ours)
            del c[n]
            yield ("frame %d dropped" % n, n, "frame", c)


def fmt_frames(fl, limit=12):
    s = ",".join(str(x) for x in fl[:limit])
    return s + (",..." if len(fl) > limit else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="+", help="capture files or directories")
    ap.add_argument("--mad-dump", required=True, help="tests/unit/mad_dump")
    ap.add_argument("--tshark", default=None,
                    help="tshark binary (default: from PATH; empty: skip with 77)")
    ap.add_argument("--selftest", action="store_true",
                    help="also prove that a corrupted field of ours is reported")
    ap.add_argument("-v", "--verbose", action="store_true", help="print both sides per frame")
    a = ap.parse_args()

    tshark = a.tshark if a.tshark is not None else shutil.which("tshark")
    if not tshark or not os.path.exists(tshark):
        print("SKIP: tshark not found")
        return 77
    files, status = captures_or_status(a.captures)
    if files is None:
        return status

    total = Result()
    st_checked, st_fail = 0, []
    for path in files:
        try:
            ours = run_mad_dump(a.mad_dump, path)
            ts = run_tshark(tshark, path)
        except (RuntimeError, OSError, ValueError) as e:
            print("error: %s: %s" % (path, e), file=sys.stderr)
            return 2
        r = Result()
        compare(ours, ts, r)
        if not r.frames and not r.mismatches:
            continue
        kinds = ", ".join("%s %d" % (k, c) for k, c in sorted(r.kinds.items()))
        print("%s: %d CM MADs (%s), %d fields compared, %d mismatches"
              % (path, r.frames, kinds, r.fields, len(r.mismatches)))
        for why, fl in sorted(r.quirks.items()):
            print("    known tshark quirk in %d frame(s) [%s]: %s" % (len(fl), fmt_frames(fl), why))
        for why, fl in sorted(r.not_compared.items()):
            print("    not compared in %d frame(s) [%s]: %s" % (len(fl), fmt_frames(fl), why))
        for n, f, tv, ov in r.mismatches:
            print("    MISMATCH frame %d %s: tshark %s, ours %s" % (n, f, tv, ov))
        if a.verbose:
            for n in sorted(ours):
                print("    ours %d: %s" % (n, " ".join("%s=%s" % kv for kv in ours[n].items())))
        total.frames += r.frames
        total.fields += r.fields
        total.mismatches += [(path,) + m for m in r.mismatches]

        if a.selftest and not r.mismatches:
            for desc, n, f, c in corruptions(ours, ts):
                st_checked += 1
                rr = Result()
                compare(c, ts, rr)
                if not any(m[0] == n and m[1] == f for m in rr.mismatches):
                    st_fail.append("%s: %s not reported" % (path, desc))

    if not total.frames and not total.mismatches:
        print("SKIP: no CM MAD in %s" % " ".join(a.captures))
        return 77
    print("total: %d CM MADs, %d fields compared, %d mismatches"
          % (total.frames, total.fields, len(total.mismatches)))
    if a.selftest:
        print("selftest: %d corruptions, %d not reported" % (st_checked, len(st_fail)))
        for s in st_fail:
            print("    SELFTEST FAIL %s" % s)
        if total.mismatches or st_fail or not st_checked:
            return 1
        return 0
    return 1 if total.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
