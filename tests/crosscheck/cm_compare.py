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
  * A MAD cut by the capture (our result truncated_cm): tshark shows the frame as malformed,
    with no MAD fields; counted as not compared.

With --rocedump instead of --mad-dump, the same comparison is made on what rocedump prints:
its JSON "mad" and "cm" members (every field above, by our names, mapped to tshark's), and
its text line, whose ": CM <message>" must name the message as tshark's Info column does
("CM: ConnectRequest", ...) on every frame tshark shows as CM.

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
from xcommon import captures_or_status, rocedump_json, several_link_types, time_ordered, tshark_fields  # noqa: E402

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
CUT = ("truncated_cm", "truncated_header")
CUT_WHY = "a MAD cut by the capture: tshark shows a malformed packet, no CM fields"
NOT_IN_TSHARK = {0x0011: "MRA: tshark 4.0 has no MRA fields (MAD header compared only)"}

ALL_TSHARK = ["frame.number", "_ws.col.Info"] + MAD_FIELDS + sorted(
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


# rocedump -T json: "mad" member -> tshark name
JSON_MAD = {
    "base_version": "infiniband.mad.baseversion", "mgmt_class": "infiniband.mad.mgmtclass",
    "class_version": "infiniband.mad.classversion", "method": "infiniband.mad.method",
    "status": "infiniband.mad.status", "class_specific": "infiniband.mad.classspecific",
    "tid": "infiniband.mad.transactionid", "attr_id": "infiniband.mad.attributeid",
    "attr_mod": "infiniband.mad.attributemodifier",
}
# "cm" member (dotted for nested objects) -> tshark name, per message
_REQ = "infiniband.cm.req."
_REP = "infiniband.cm.rep."
JSON_CM = {
    "ConnectRequest": ("REQ", {
        "local_comm_id": "infiniband.cm.req", "service_id": _REQ + "serviceid",
        "local_ca_guid": _REQ + "localcaguid", "local_qkey": _REQ + "localqkey",
        "local_qpn": _REQ + "localqpn", "responder_resources": _REQ + "responderres",
        "local_eecn": _REQ + "localeecn", "initiator_depth": _REQ + "initdepth",
        "remote_eecn": _REQ + "remoteeecn", "remote_cm_resp_timeout": _REQ + "remoteresptout",
        "transport_service_type": _REQ + "transpsvctype", "e2e_flow_ctrl": _REQ + "e2eflowctrl",
        "starting_psn": _REQ + "startpsn", "local_cm_resp_timeout": _REQ + "localresptout",
        "retry_count": _REQ + "retrcount", "pkey": _REQ + "pkey", "path_mtu_code": _REQ + "pppmtu",
        "rdc_exists": _REQ + "rdcexist", "rnr_retry_count": _REQ + "rnrretrcount",
        "max_cm_retries": _REQ + "maxcmretr", "srq": _REQ + "srq",
        "extended_transport": _REQ + "ext_transport",
        "primary.local_lid": _REQ + "prim_locallid", "primary.remote_lid": _REQ + "prim_remotelid",
        "primary.flow_label": _REQ + "prim_flowlabel",
        "primary.packet_rate": _REQ + "prim_pktrate",
        "primary.traffic_class": _REQ + "prim_tfcclass", "primary.hop_limit": _REQ + "prim_hoplim",
        "primary.sl": _REQ + "prim_sl", "primary.subnet_local": _REQ + "prim_subnetlocal",
        "primary.local_ack_timeout": _REQ + "prim_localacktout",
        "ip_cm.major": _REQ + "ip_cm.majv", "ip_cm.minor": _REQ + "ip_cm.minv",
        "ip_cm.ip_version": _REQ + "ip_cm.ipv", "ip_cm.src_port": _REQ + "ip_cm.sport",
    }),
    "ConnectReply": ("REP", {
        "local_comm_id": "infiniband.cm.rep", "remote_comm_id": _REP + "remotecommid",
        "local_qkey": _REP + "localqkey", "local_qpn": _REP + "localqpn",
        "local_eecn": _REP + "localeecn", "starting_psn": _REP + "startpsn",
        "responder_resources": _REP + "respres", "initiator_depth": _REP + "initdepth",
        "target_ack_delay": _REP + "tgtackdelay", "failover_accepted": _REP + "failoveracc",
        "e2e_flow_ctrl": _REP + "e2eflowctrl", "rnr_retry_count": _REP + "rnrretrcount",
        "srq": _REP + "srq", "local_ca_guid": _REP + "localcaguid",
    }),
    "ReadyToUse": ("RTU", {"local_comm_id": "infiniband.cm.rtu.localcommid",
                           "remote_comm_id": "infiniband.cm.rtu.remotecommid"}),
    "DisconnectRequest": ("DREQ", {"local_comm_id": "infiniband.cm.dreq.localcommid",
                                   "remote_comm_id": "infiniband.cm.dreq.remotecommid",
                                   "remote_qpn": "infiniband.cm.req.remoteqpneecn"}),
    "DisconnectReply": ("DREP", {"local_comm_id": "infiniband.cm.drsp.localcommid",
                                 "remote_comm_id": "infiniband.cm.drsp.remotecommid"}),
    "ConnectReject": ("REJ", {"local_comm_id": "infiniband.cm.rej.localcommid",
                              "remote_comm_id": "infiniband.cm.rej.remotecommid",
                              "msg_rejected": "infiniband.cm.rej.msgrej",
                              "reject_info_len": "infiniband.cm.rej.rejinfolen",
                              "reason": "infiniband.cm.rej.reason"}),
    "MsgRcptAck": ("MRA", {"local_comm_id": "mra.localcommid",
                           "remote_comm_id": "mra.remotecommid",
                           "msg_mraed": "mra.msgmraed", "service_timeout": "mra.servicetimeout"}),
}
V4MAPPED = "::ffff:"


def flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def from_rocedump(obj):
    """One rocedump JSON object with a "mad" member, as run_mad_dump gives a frame: result,
    kind and tshark-named fields. Our own consistency (path MTU bytes and code) is checked here."""
    mad = obj["mad"]
    row = {"result": mad["result"], "kind": "none"}
    for k, name in JSON_MAD.items():
        if k in mad:
            row[name] = str(mad[k])
    cm = obj.get("cm")
    if cm is None:
        return row
    kind, names = JSON_CM[cm["message"]]
    row["kind"] = kind
    flat = flatten(cm)
    for k, name in names.items():
        if k in flat:
            row[name] = str(flat[k])
    if kind == "REQ":
        code = flat["path_mtu_code"]
        if flat["path_mtu"] != (128 << code if 1 <= code <= 5 else 0):
            raise ValueError("frame %d: path_mtu %s with code %s" % (obj["frame"], flat["path_mtu"], code))
        for ours, name in (("primary.local_gid", _REQ + "prim_localgid_ipv4"),
                           ("primary.remote_gid", _REQ + "prim_remotegid_ipv4")):
            gid = flat[ours]
            if gid.startswith(V4MAPPED) and "." in gid:
                row[name] = gid[len(V4MAPPED):]
        if flat.get("ip_cm.ip_version") == 4:
            row[_REQ + "ip_cm.sip4"] = flat["ip_cm.src"]
            row[_REQ + "ip_cm.dip4"] = flat["ip_cm.dst"]
    return row


def run_rocedump(rocedump, path):
    """frame number -> fields, from rocedump -T json (frames with a MAD on QP1 only)."""
    return {n: from_rocedump(o) for n, o in rocedump_json(rocedump, path).items() if "mad" in o}


def text_names(rocedump, path, ts):
    """(frames compared, mismatches): the message named on rocedump's text line vs tshark's Info
    column (in ts, run_tshark's rows), on every frame tshark shows as "CM: <message>"."""
    res = subprocess.run([rocedump, "-r", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise RuntimeError("rocedump -r %s failed (%d)" % (path, res.returncode))
    lines = res.stdout.decode().splitlines()
    info = {n: row["_ws.col.Info"][4:].split()[0] for n, row in ts.items()
            if row.get("_ws.col.Info", "").startswith("CM: ")}
    bad = []
    for n, name in sorted(info.items()):
        line = lines[n - 1] if n <= len(lines) else ""
        want = ": CM %s" % name
        at = line.find(want)
        if at < 0 or line[at + len(want):at + len(want) + 1] not in ("", " "):
            bad.append((n, "text", "CM: " + name, line[line.find(": CM"):][:60] or "(no CM)"))
    return len(info), bad


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
        if ours[n]["result"] in CUT:   # cut by the capture: tshark calls it malformed
            res.not_compared.setdefault(CUT_WHY, []).append(n)
            continue
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
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--mad-dump", help="tests/unit/mad_dump")
    src.add_argument("--rocedump", help="rocedump: its JSON mad/cm members and text lines")
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
    if not a.rocedump:  # mad_dump reads through libpcap, which refuses several link types in a file
        files = [f for f in files if not several_link_types(f)]
    files = time_ordered(files)  # rocedump's lines come in time order, tshark's in the file's

    total = Result()
    st_checked, st_fail = 0, []
    for path in files:
        try:
            ours = run_rocedump(a.rocedump, path) if a.rocedump else run_mad_dump(a.mad_dump, path)
            ts = run_tshark(tshark, path)
            texts, text_bad = text_names(a.rocedump, path, ts) if a.rocedump else (0, [])
        except (RuntimeError, OSError, ValueError) as e:
            print("error: %s: %s" % (path, e), file=sys.stderr)
            return 2
        r = Result()
        compare(ours, ts, r)
        r.mismatches += text_bad
        r.fields += texts
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
