#!/usr/bin/python3
"""Cross-check rocedump's decode against tshark 4.0.x, field by field.

Usage: tshark_compare.py [--rocedump PATH] [--tshark PATH] [--roce-port N ...]
                         [--selftest] [-v] CAPTURE|DIR ...

For every frame both tools decode as RoCE, the BTH, the extended transport headers,
the ICRC, the payload length and the neighbouring IP/UDP/VLAN/GRH fields printed by
`rocedump -T json` are compared with `tshark -T fields -E occurrence=a`. Cases where
tshark 4.0.17 is known to decode wrongly (docs/architecture.md, "Tests, and what each
holds the code to") are not compared; each is counted and its reason printed:

  * opcodes tshark has no correct layout for: CNP 0x80/0x81, RD 0x40-0x5F (misparsed
    as DCT), XRC 0xA0-0xBF (XRCETH unknown), FLUSH 0x1C / ATOMIC WRITE 0x1D,
    reserved and vendor opcodes: only BTH + IP/UDP/VLAN are compared there;
  * FECN/BECN/Resv6: tshark shows BTH byte 4 as one `infiniband.reserved` byte; its
    bits are compared with ours (the raw byte is decoded correctly, only not split);
  * AtomicETH VA/R_Key: tshark emits them as infiniband.reth.va / reth.r_key;
  * ImmDt / IETH: tshark prints each twice; both copies must agree;
  * payload: tshark's data.len includes the pad bytes, compared with payload_len+padcnt;
  * truncated frames: only fields both tools print are compared, never ICRC/payload;
  * packet.too_short (tshark reads the ETH from the ICRC bytes), payload.unexpected
    (tshark reads the ICRC right after the headers), pad.invalid: ETH/ICRC/payload
    fields as listed in SKIP_* below.

The ICRC: rocedump's icrc.value is the CRC-32 value (wire bytes read LSB first);
tshark's infiniband.invariant.crc reads the same 4 bytes big-endian, so ours is
byte-swapped before the comparison.

ULP heuristics on the InfiniBand payload (RPCoRDMA, SMB Direct, ...) are disabled so
that tshark shows the payload as `data` and does not abort on an exception before
the ICRC. When tshark gives a RoCE frame to another UDP protocol because its other
port is lower (e.g. source port 69 = TFTP), tshark is re-run with that protocol
disabled.

Exit status: 0 all compared fields agree, 1 at least one mismatch, 2 usage or tool
error, 77 (meson: skipped) tshark not found or nothing to compare.
--selftest: after the normal comparison, corrupts each compared field kind of ours
once (in memory) and requires exactly that (frame, field) to be reported as a
mismatch; exits 1 if any corruption goes unnoticed.
"""

import argparse
import copy
import ipaddress
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xcommon import (captures_or_status, port_args, roce_ports, rocedump_json,  # noqa: E402
                     tshark_wrong_opcode)
from xcommon import tshark_fields as tshark_rows  # noqa: E402


# Payload heuristics registered on "infiniband.payload" in 4.0.17
# (`tshark -G heuristic-decodes`): disabled so the payload stays `data`.

TSHARK_FIELDS = [
    "frame.number", "frame.protocols",
    "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m",
    "infiniband.bth.padcnt", "infiniband.bth.tver", "infiniband.bth.p_key",
    "infiniband.reserved", "infiniband.bth.destqp", "infiniband.bth.a",
    "infiniband.bth.reserved7", "infiniband.bth.psn",
    "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome", "infiniband.aeth.syndrome.opcode",
    "infiniband.aeth.syndrome.credit_count", "infiniband.aeth.syndrome.timer",
    "infiniband.aeth.syndrome.error_code", "infiniband.aeth.msn",
    "infiniband.deth.q_key", "infiniband.deth.srcqp", "infiniband.rdeth.eecnxt",
    "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
    "infiniband.atomicacketh.origremdt", "infiniband.immdt", "infiniband.ieth",
    "infiniband.invariant.crc", "data.len", "infiniband.mad.mgmtclass",
    "ip.dsfield.ecn", "ip.dsfield.dscp", "ip.src", "ip.dst", "ip.ttl", "ip.len",
    "ipv6.tclass.ecn", "ipv6.tclass.dscp", "ipv6.src", "ipv6.dst", "ipv6.hlim", "ipv6.plen",
    "udp.srcport", "udp.dstport",
    "vlan.id", "vlan.priority", "ieee8021ad.id", "ieee8021ad.priority",
    "infiniband.grh.tclass", "infiniband.grh.flowlabel", "infiniband.grh.paylen",
    "infiniband.grh.nxthdr", "infiniband.grh.hoplmt", "infiniband.grh.sgid",
    "infiniband.grh.dgid",
]


BTH_LABELS = ["bth.opcode", "bth.se", "bth.m", "bth.padcnt", "bth.tver", "bth.pkey",
              "bth.fecn", "bth.becn", "bth.resv6", "bth.dqpn", "bth.ackreq",
              "bth.resv7", "bth.psn"]
ETH_PREFIXES = ("reth.", "aeth.", "deth.", "rdeth.", "atomiceth.", "atomicacketh.",
                "immdt", "ieth")
AETH_KIND = {"ACK": 0, "RNR_NAK": 1, "RESERVED": 2, "NAK": 3}


# ---------------------------------------------------------------------------------
# running the tools

def run_rocedump(rocedump, path, ports):
    return rocedump_json(rocedump, path, port_args(ports))


def run_tshark(tshark, path, ports, disable_extra=()):
    """frame number -> tshark row (field -> list of values)."""
    return {int(r["frame.number"][0]): r
            for r in tshark_rows(tshark, path, TSHARK_FIELDS, ports, disable_extra)}


# ---------------------------------------------------------------------------------
# value normalisation

def tint(s):
    s = s.strip()
    if s in ("True", "False"):
        return int(s == "True")
    return int(s, 0)


def taddr(s):
    return str(ipaddress.ip_address(s.strip()))


def tfirst(row, name, conv=tint):
    v = row.get(name) or []
    return conv(v[0]) if v else None


def tlast(row, name, conv=tint):
    v = row.get(name) or []
    return conv(v[-1]) if v else None


def tsame(row, name, conv=tint):
    """All occurrences must be equal (ImmDt/IETH are printed twice); else a tuple."""
    v = row.get(name) or []
    if not v:
        return None
    vals = [conv(x) for x in v]
    return vals[0] if all(x == vals[0] for x in vals) else tuple(vals)


def hexbytes(s):
    return int(s.replace(":", ""), 16)


def bswap32(v):
    return int.from_bytes(int(v).to_bytes(4, "little"), "big")


# ---------------------------------------------------------------------------------
# field extraction: ours (label -> (value, json path)) and tshark (label -> value)

def get_path(obj, path):
    for k in path:
        if isinstance(obj, dict):
            if k not in obj:
                return None
            obj = obj[k]
        elif isinstance(obj, list):
            if not isinstance(k, int) or k >= len(obj):
                return None
            obj = obj[k]
        else:
            return None
    return obj


def ours_fields(fr):
    out = {}

    def put(label, path, conv=None):
        v = get_path(fr, path)
        if v is None:
            return
        out[label] = (conv(v) if conv else v, path)

    r = fr.get("roce")
    if r is not None:
        for label, key in [("bth.opcode", "opcode"), ("bth.se", "se"), ("bth.m", "m"),
                           ("bth.padcnt", "padcnt"), ("bth.tver", "tver"),
                           ("bth.pkey", "pkey"), ("bth.fecn", "fecn"), ("bth.becn", "becn"),
                           ("bth.resv6", "resv6"), ("bth.dqpn", "dqpn"),
                           ("bth.ackreq", "ackreq"), ("bth.resv7", "resv7"),
                           ("bth.psn", "psn")]:
            put(label, ("roce", key))
        for k in ("va", "rkey", "dmalen"):
            put("reth." + k, ("roce", "reth", k))
        put("aeth.syndrome", ("roce", "aeth", "syndrome"))
        put("aeth.msn", ("roce", "aeth", "msn"))
        put("aeth.type", ("roce", "aeth", "kind"), lambda k: AETH_KIND.get(k, k))
        put("aeth.credit", ("roce", "aeth", "credit"))
        put("aeth.rnr_timer", ("roce", "aeth", "rnr_timer"))
        put("aeth.nak_code", ("roce", "aeth", "nak_code"))
        put("deth.qkey", ("roce", "deth", "qkey"))
        put("deth.srcqp", ("roce", "deth", "srcqp"))
        put("rdeth.eecnxt", ("roce", "rdeth", "eecnxt"))
        for k in ("va", "rkey", "swap", "cmp"):
            put("atomiceth." + k, ("roce", "atomiceth", k))
        put("atomicacketh.orig", ("roce", "atomicacketh", "orig"))
        put("immdt", ("roce", "immdt"))
        put("ieth", ("roce", "ieth"))
        # tshark shows the wire bytes big-endian: byte-swap our CRC value
        put("icrc", ("roce", "icrc", "value"), bswap32)
        if r.get("payload_len") is not None:
            # tshark's data.len includes the pad bytes (§1.2)
            out["payload.len_with_pad"] = (r["payload_len"] + r.get("padcnt", 0),
                                           ("roce", "payload_len"))
    ip = fr.get("ip")
    if ip is not None:
        for k in ("ecn", "dscp", "ttl", "length"):
            put("ip." + k, ("ip", k))
        put("ip.src", ("ip", "src"), taddr)
        put("ip.dst", ("ip", "dst"), taddr)
    put("udp.sport", ("udp", "sport"))
    put("udp.dport", ("udp", "dport"))
    # 802.1Q-style tags (0x8100, 0x9100, ...) are tshark's vlan.*, 0x88A8 its ieee8021ad.*
    n_q = n_ad = 0
    for i, tag in enumerate(fr.get("vlan") or []):
        if tag.get("tpid") == 0x88A8:
            pre, n_ad = "ieee8021ad[%d]" % n_ad, n_ad + 1
        else:
            pre, n_q = "vlan[%d]" % n_q, n_q + 1
        put(pre + ".vid", ("vlan", i, "vid"))
        put(pre + ".pcp", ("vlan", i, "pcp"))
    if fr.get("grh") is not None:
        for label, key in [("grh.tclass", "tclass"), ("grh.flow_label", "flow_label"),
                           ("grh.length", "length"), ("grh.nxthdr", "proto"),
                           ("grh.hoplmt", "ttl")]:
            put(label, ("grh", key))
        put("grh.sgid", ("grh", "src"), taddr)
        put("grh.dgid", ("grh", "dst"), taddr)
    return out


def tshark_fields(row, ipver):
    out = {}

    def put(label, v):
        if v is not None:
            out[label] = v

    op = tfirst(row, "infiniband.bth.opcode")
    put("bth.opcode", op)
    put("bth.se", tfirst(row, "infiniband.bth.se"))
    put("bth.m", tfirst(row, "infiniband.bth.m"))
    put("bth.padcnt", tfirst(row, "infiniband.bth.padcnt"))
    put("bth.tver", tfirst(row, "infiniband.bth.tver"))
    put("bth.pkey", tfirst(row, "infiniband.bth.p_key"))
    # BTH byte 4 (F, B, Resv6) is the first `infiniband.reserved` of the tree
    b4 = tfirst(row, "infiniband.reserved", hexbytes) if op is not None else None
    if b4 is not None:
        put("bth.fecn", b4 >> 7)
        put("bth.becn", (b4 >> 6) & 1)
        put("bth.resv6", b4 & 0x3F)
    put("bth.dqpn", tfirst(row, "infiniband.bth.destqp"))
    put("bth.ackreq", tfirst(row, "infiniband.bth.a"))
    put("bth.resv7", tfirst(row, "infiniband.bth.reserved7"))
    put("bth.psn", tfirst(row, "infiniband.bth.psn"))
    # tshark reuses the RETH hf for the AtomicETH VA / R_Key (§1.2)
    pre = "atomiceth." if op in (0x13, 0x14, 0x53, 0x54) else "reth."
    put(pre + "va", tsame(row, "infiniband.reth.va"))
    put(pre + "rkey", tsame(row, "infiniband.reth.r_key"))
    put("reth.dmalen", tsame(row, "infiniband.reth.dmalen"))
    put("aeth.syndrome", tsame(row, "infiniband.aeth.syndrome"))
    put("aeth.msn", tsame(row, "infiniband.aeth.msn"))
    put("aeth.type", tsame(row, "infiniband.aeth.syndrome.opcode"))
    put("aeth.credit", tsame(row, "infiniband.aeth.syndrome.credit_count"))
    put("aeth.rnr_timer", tsame(row, "infiniband.aeth.syndrome.timer"))
    put("aeth.nak_code", tsame(row, "infiniband.aeth.syndrome.error_code"))
    put("deth.qkey", tsame(row, "infiniband.deth.q_key"))
    put("deth.srcqp", tsame(row, "infiniband.deth.srcqp"))
    put("rdeth.eecnxt", tsame(row, "infiniband.rdeth.eecnxt"))
    put("atomiceth.swap", tsame(row, "infiniband.atomiceth.swapdt"))
    put("atomiceth.cmp", tsame(row, "infiniband.atomiceth.cmpdt"))
    put("atomicacketh.orig", tsame(row, "infiniband.atomicacketh.origremdt"))
    put("immdt", tsame(row, "infiniband.immdt", hexbytes))
    put("ieth", tsame(row, "infiniband.ieth", hexbytes))
    put("icrc", tsame(row, "infiniband.invariant.crc"))
    if op is not None:
        prot = (row.get("frame.protocols") or [""])[0].split(":")
        after = prot[prot.index("infiniband") + 1:] if "infiniband" in prot else []
        if after in ([], ["data"]) and not row.get("infiniband.mad.mgmtclass"):
            put("payload.len_with_pad", tlast(row, "data.len") or 0)
    # neighbours: the innermost IP/UDP (last occurrence) is the RoCE one
    if ipver == 6:
        put("ip.ecn", tlast(row, "ipv6.tclass.ecn"))
        put("ip.dscp", tlast(row, "ipv6.tclass.dscp"))
        put("ip.ttl", tlast(row, "ipv6.hlim"))
        plen = tlast(row, "ipv6.plen")
        put("ip.length", None if plen is None else plen + 40)
        put("ip.src", tlast(row, "ipv6.src", taddr))
        put("ip.dst", tlast(row, "ipv6.dst", taddr))
    elif ipver == 4:
        put("ip.ecn", tlast(row, "ip.dsfield.ecn"))
        put("ip.dscp", tlast(row, "ip.dsfield.dscp"))
        put("ip.ttl", tlast(row, "ip.ttl"))
        put("ip.length", tlast(row, "ip.len"))
        put("ip.src", tlast(row, "ip.src", taddr))
        put("ip.dst", tlast(row, "ip.dst", taddr))
    put("udp.sport", tlast(row, "udp.srcport"))
    put("udp.dport", tlast(row, "udp.dstport"))
    for name, pre in (("vlan", "vlan"), ("ieee8021ad", "ieee8021ad")):
        ids = [tint(x) for x in row.get(name + ".id") or []]
        pcps = [tint(x) for x in row.get(name + ".priority") or []]
        for i, v in enumerate(ids):
            put("%s[%d].vid" % (pre, i), v)
        for i, v in enumerate(pcps):
            put("%s[%d].pcp" % (pre, i), v)
    put("grh.tclass", tfirst(row, "infiniband.grh.tclass"))
    put("grh.flow_label", tfirst(row, "infiniband.grh.flowlabel"))
    # rocedump's grh.length / IPv6 ip.length is the whole packet: 40 + PayLen
    paylen = tfirst(row, "infiniband.grh.paylen")
    put("grh.length", None if paylen is None else paylen + 40)
    put("grh.nxthdr", tfirst(row, "infiniband.grh.nxthdr"))
    put("grh.hoplmt", tfirst(row, "infiniband.grh.hoplmt"))
    put("grh.sgid", tfirst(row, "infiniband.grh.sgid", taddr))
    put("grh.dgid", tfirst(row, "infiniband.grh.dgid", taddr))
    return out


def is_eth(label):
    return label.startswith(ETH_PREFIXES)


# ---------------------------------------------------------------------------------
# comparison

class Result:
    def __init__(self):
        self.frames = 0          # frames in the capture
        self.roce = 0            # frames either tool decodes as RoCE
        self.compared = 0        # frames with at least one field compared
        self.fields = 0          # field comparisons
        self.partial = {}        # reason -> [frames] (compared, some fields skipped)
        self.skipped = {}        # reason -> [frames] (not compared at all)
        self.mismatches = []     # (frame, label, ours, tshark)
        self.compared_at = {}    # label -> first frame where it was compared

    def note(self, table, reason, frame):
        table.setdefault(reason, []).append(frame)


def compare(ours, ts, ports):
    res = Result()
    res.frames = max(len(ours), len(ts))
    for n in sorted(set(ours) | set(ts)):
        fr = ours.get(n)
        row = ts.get(n)
        if fr is None or row is None:
            res.mismatches.append((n, "frame", "present" if fr else "absent",
                                   "present" if row else "absent"))
            continue
        has_ours = fr.get("roce") is not None
        prot = (row.get("frame.protocols") or [""])[0].split(":")
        has_ts = "infiniband" in prot
        if not has_ours and not has_ts:
            continue
        res.roce += 1
        events = set(fr.get("events") or [])
        truncated = (fr.get("caplen", 0) < fr.get("len", 0) or "truncated" in events
                     or (fr.get("roce") or {}).get("truncated") is not None)
        if not has_ours:
            dport = (fr.get("udp") or {}).get("dport")
            if truncated:
                res.note(res.skipped, "truncated before the end of the BTH", n)
            elif fr.get("udp") is not None and dport not in ports:
                res.note(res.skipped, "tshark takes RoCEv2 on the UDP source port; "
                         "rocedump on the destination port only", n)
            else:
                res.mismatches.append((n, "decoded_as_roce", "no", "yes (%s)" % ":".join(prot)))
            continue
        if not has_ts or tfirst(row, "infiniband.bth.opcode") is None:
            if truncated:
                res.note(res.skipped, "truncated: tshark decodes no BTH", n)
            else:
                res.mismatches.append((n, "decoded_as_roce", "yes", "no (%s)" % ":".join(prot)))
            continue

        o = ours_fields(fr)
        ipver = (fr.get("ip") or {}).get("version")
        t = tshark_fields(row, ipver)
        skip = {}   # label predicate -> reason

        def skip_if(pred, reason):
            skip[reason] = pred

        cls = tshark_wrong_opcode(fr["roce"]["opcode"])
        if cls:
            skip_if(lambda l: is_eth(l) or l in ("icrc", "payload.len_with_pad"),
                    cls + " (BTH, IP/UDP/VLAN/GRH compared)")
        if truncated:
            skip_if(lambda l: l in ("icrc", "payload.len_with_pad"),
                    "truncated: ICRC/payload not compared, other fields where both decode")
        if "packet.too_short" in events:
            skip_if(lambda l: is_eth(l) or l in ("icrc", "payload.len_with_pad"),
                    "packet.too_short: tshark reads the ETH from the ICRC bytes")
        if "payload.unexpected" in events:
            skip_if(lambda l: l in ("icrc", "payload.len_with_pad"),
                    "payload.unexpected: tshark reads the ICRC right after the headers")
        if row.get("infiniband.mad.mgmtclass"):
            skip_if(lambda l: l == "payload.len_with_pad",
                    "QP0/QP1 MAD: tshark decodes the payload as a MAD, no data.len")
        if "pad.invalid" in events:
            skip_if(lambda l: l == "payload.len_with_pad",
                    "pad.invalid: payload length undefined")

        used_reasons = set()
        ncmp = 0
        for label in sorted(set(o) | set(t)):
            reasons = [r for r, p in skip.items() if p(label)]
            if reasons:
                used_reasons.update(reasons)
                continue
            ov = o.get(label, (None, None))[0]
            tv = t.get(label)
            if truncated and (ov is None or tv is None):
                continue  # only what both tools decoded from the captured bytes
            ncmp += 1
            if ov != tv:
                res.mismatches.append((n, label, ov, tv))
            else:
                res.compared_at.setdefault(label, n)
        for r in sorted(used_reasons):
            res.note(res.partial, r, n)
        res.fields += ncmp
        if ncmp:
            res.compared += 1
    return res


# ---------------------------------------------------------------------------------
# selftest: corrupt each compared field kind of ours once; the comparison must see it

def mutate(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v ^ 1
    if isinstance(v, str):
        if v in AETH_KIND:
            return "NAK" if v != "NAK" else "ACK"
        try:
            a = ipaddress.ip_address(v)
            return str(ipaddress.ip_address(int(a) ^ 1))
        except ValueError:
            return v + "x"
    raise TypeError("cannot mutate %r" % (v,))


def set_path(obj, path, value):
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


def selftest(ours, ts, ports, base):
    failures = []
    for label, n in sorted(base.compared_at.items()):
        path = ours_fields(ours[n])[label][1]
        bad = {n: copy.deepcopy(ours[n])}
        set_path(bad[n], path, mutate(get_path(bad[n], path)))
        r = compare(bad, {n: ts[n]}, ports)
        got = {(m[0], m[1]) for m in r.mismatches} - {(m[0], m[1]) for m in base.mismatches}
        if (n, label) not in got:
            failures.append("corrupting %s of frame %d (%s) was not detected" %
                            (label, n, "/".join(map(str, path))))
    return len(base.compared_at), failures


# ---------------------------------------------------------------------------------

FRAME_LIST_LIMIT = [12]


def fmt_frames(frames):
    limit = FRAME_LIST_LIMIT[0]
    if limit is None:
        return ",".join(map(str, frames))
    s = ",".join(map(str, frames[:limit]))
    return s + (",..." if len(frames) > limit else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="+", help="capture files or directories")
    ap.add_argument("--rocedump", default="rocedump")
    ap.add_argument("--tshark", default=None,
                    help="tshark binary (default: from PATH; empty: skip with 77)")
    ap.add_argument("--roce-port", type=int, action="append", default=[])
    ap.add_argument("--selftest", action="store_true",
                    help="also prove that a corrupted field of ours is reported")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every skipped frame")
    a = ap.parse_args()
    if a.verbose:
        FRAME_LIST_LIMIT[0] = None

    tshark = a.tshark if a.tshark is not None else shutil.which("tshark")
    if not tshark or not os.path.exists(tshark):
        print("SKIP: tshark not found")
        return 77
    ports = roce_ports(a.roce_port)
    files, status = captures_or_status(a.captures)
    if files is None:
        return status

    total = Result()
    nfiles = 0
    st_checked = 0
    st_fail = []
    for path in files:
        try:
            ours = run_rocedump(a.rocedump, path, a.roce_port)
            ts = run_tshark(tshark, path, ports)
            # RoCE frames tshark handed to another UDP protocol by its lower port
            steal = set()
            for n, fr in ours.items():
                prot = (ts.get(n, {}).get("frame.protocols") or [""])[0].split(":")
                if fr.get("roce") is not None and "infiniband" not in prot and "udp" in prot:
                    i = len(prot) - 1 - prot[::-1].index("udp")
                    if i + 1 < len(prot):
                        steal.add(prot[i + 1])
            if steal:
                print("%s: tshark gave RoCE frames to %s (lower UDP port); re-run with them disabled"
                      % (path, ",".join(sorted(steal))))
                ts = run_tshark(tshark, path, ports, sorted(steal))
        except (RuntimeError, OSError, ValueError) as e:
            print("error: %s: %s" % (path, e), file=sys.stderr)
            return 2
        r = compare(ours, ts, ports)
        nfiles += 1
        npartial = len({f for v in r.partial.values() for f in v})
        nskip = len({f for v in r.skipped.values() for f in v})
        print("%s: %d frames, %d RoCE, %d compared (%d fields), %d with fields skipped, "
              "%d not compared, %d mismatches" % (path, r.frames, r.roce, r.compared, r.fields,
                                                  npartial, nskip, len(r.mismatches)))
        for reason, fl in sorted(r.partial.items()):
            print("    fields skipped in %d frame(s) [%s]: %s" % (len(fl), fmt_frames(fl), reason))
        for reason, fl in sorted(r.skipped.items()):
            print("    not compared, %d frame(s) [%s]: %s" % (len(fl), fmt_frames(fl), reason))
        for (n, label, ov, tv) in r.mismatches:
            print("MISMATCH %s frame %d %s: ours=%r tshark=%r" % (path, n, label, ov, tv))
        total.frames += r.frames
        total.roce += r.roce
        total.compared += r.compared
        total.fields += r.fields
        total.mismatches += [(path,) + m for m in r.mismatches]
        if a.selftest:
            k, fails = selftest(ours, ts, ports, r)
            st_checked += k
            st_fail += ["%s: %s" % (path, f) for f in fails]

    print("tshark crosscheck: %d captures, %d frames, %d RoCE, %d compared, %d fields compared, "
          "%d mismatches" % (nfiles, total.frames, total.roce, total.compared, total.fields,
                             len(total.mismatches)))
    rc = 1 if total.mismatches else 0
    if a.selftest:
        # only the detection of the corruptions decides (real mismatches fail the
        # ordinary run)
        for f in st_fail:
            print("SELFTEST FAIL: " + f)
        print("selftest: %d corrupted fields, %d detected" % (st_checked, st_checked - len(st_fail)))
        rc = 1 if (st_fail or st_checked == 0) else 0
    elif total.fields == 0 and rc == 0:
        print("SKIP: nothing compared")
        return 77
    return rc


if __name__ == "__main__":
    sys.exit(main())
