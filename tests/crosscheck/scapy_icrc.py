#!/usr/bin/python3
"""Cross-check rocedump's ICRC against scapy's (scapy.contrib.roce, 2.5.0).

Usage: scapy_icrc.py [--rocedump PATH] [--roce-port N ...] [--selftest] [-v] CAPTURE|DIR ...

For every RoCEv2/IPv4 frame whose icrc.status rocedump reports as "good" or "bad", the
inner IPv4 packet is cut out of the raw frame (so VLAN, SLL, ERSPAN, GRE and VXLAN
wrappers do not matter: the last IPv4 header in the frame carrying rocedump's
addresses, protocol UDP and ports is taken, up to its total length), dissected with
scapy as IP/UDP/BTH, and rebuilt with BTH.icrc = None, which makes scapy compute the
ICRC (BTH.compute_icrc: pseudo-LRH 8 x 0xFF, TOS/TTL/checksums/UDP checksum/BTH byte 4
masked). Checked per frame:

  * scapy's ICRC, i.e. the 4 bytes it writes on the wire, read least-significant byte
    first, equals rocedump's icrc.computed (the CRC-32 value);
  * scapy's verdict (its ICRC == the ICRC bytes in the frame) equals rocedump's
    status good/bad;
  * sanity: scapy re-builds the other bytes unchanged, and its BTH opcode/DestQP/PSN
    equal rocedump's (so both looked at the same packet).

Frames scapy 2.5 cannot handle are skipped and counted: RoCEv2 over IPv6 (scapy 2.5
"TODO support IPv6"), RoCEv1 (scapy needs a UDP underlayer). Frames whose ICRC rocedump
could not check (truncated, too short) are counted as not eligible.

Exit status: 0 agreement, 1 any disagreement (or a selftest corruption not detected),
2 usage/tool error, 77 nothing eligible (meson: skipped).
--selftest: after the normal run, corrupts in memory, for every compared frame, our
icrc.computed (one bit) and separately our status (good<->bad), and requires each
corruption to be reported.
"""

import argparse
import copy
import logging
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xcommon import captures_or_status, port_args, rocedump_json  # noqa: E402

logging.getLogger("scapy").setLevel(logging.ERROR)
try:
    from scapy.compat import raw
    from scapy.layers.inet import IP, UDP
    from scapy.utils import RawPcapReader
    from scapy.contrib.roce import BTH
except ImportError as e:  # pragma: no cover
    print("SKIP: scapy not importable with %s: %s" % (sys.executable, e))
    sys.exit(77)


def run_rocedump(rocedump, path, ports):
    return rocedump_json(rocedump, path, port_args(ports))


def read_frames(path):
    """frame number (1-based) -> raw bytes, for pcap and pcapng, any link type."""
    out = {}
    reader = RawPcapReader(path)
    try:
        for i, (data, _meta) in enumerate(reader, 1):
            out[i] = bytes(data)
    finally:
        reader.close()
    return out


def find_inner_ipv4(buf, fr):
    """Offset and total length of the innermost IPv4/UDP header that matches rocedump's
    ip.src/dst and udp ports, or None."""
    src = bytes(int(x) for x in fr["ip"]["src"].split("."))
    dst = bytes(int(x) for x in fr["ip"]["dst"].split("."))
    sport, dport = fr["udp"]["sport"], fr["udp"]["dport"]
    key = src + dst
    best = None
    pos = buf.find(key)
    while pos >= 0:
        off = pos - 12
        if off >= 0 and buf[off] >> 4 == 4 and buf[off + 9] == 17:
            ihl = (buf[off] & 0xF) * 4
            tot = struct.unpack_from("!H", buf, off + 2)[0]
            if ihl >= 20 and off + ihl + 8 <= len(buf):
                sp, dp = struct.unpack_from("!HH", buf, off + ihl)
                if (sp, dp) == (sport, dport):
                    best = (off, tot)
        pos = buf.find(key, pos + 1)
    return best


def scapy_check(buf, fr):
    """Recompute the ICRC with scapy. Returns dict(kind=..., ...)."""
    loc = find_inner_ipv4(buf, fr)
    if loc is None:
        return {"kind": "error", "why": "no IPv4/UDP header with rocedump's addresses/ports in the frame"}
    off, tot = loc
    if off + tot > len(buf):
        return {"kind": "error", "why": "IPv4 total length %d runs past the captured frame" % tot}
    ipb = buf[off:off + tot]
    pkt = IP(ipb)
    if UDP not in pkt:
        return {"kind": "error", "why": "scapy found no UDP header"}
    if BTH not in pkt:
        pkt[UDP].decode_payload_as(BTH)   # non-4791 port (--roce-port) or another binding
    bth = pkt[BTH]
    wire_icrc = ipb[-4:]
    sane = {"opcode": bth.opcode, "dqpn": bth.dqpn, "psn": bth.psn}
    bth.icrc = None
    rebuilt = raw(pkt)
    if len(rebuilt) != len(ipb) or rebuilt[:-4] != ipb[:-4]:
        return {"kind": "skip", "why": "scapy re-builds the packet differently (%d vs %d bytes)"
                % (len(rebuilt), len(ipb))}
    mine = rebuilt[-4:]
    return {"kind": "ok", "computed": struct.unpack("<I", mine)[0],
            "good": mine == wire_icrc, "wire": wire_icrc.hex(), "sane": sane}


def eligible(fr):
    """None if the frame is to be compared, else (table, reason)."""
    r = fr.get("roce")
    if r is None:
        return ("ignored", "not RoCE")
    st = (r.get("icrc") or {}).get("status")
    if st not in ("good", "bad"):
        return ("ignored", "ICRC %s by rocedump" % (st or "absent"))
    if r.get("version") != 2 or fr.get("grh") is not None:
        return ("skipped", "RoCEv1: scapy 2.5 computes no ICRC without a UDP underlayer")
    if (fr.get("ip") or {}).get("version") != 4:
        return ("skipped", "RoCEv2/IPv6: scapy 2.5 computes no ICRC for IPv6")
    return None


def judge(fr, res):
    """Disagreements between rocedump's frame and scapy's result."""
    out = []
    r = fr["roce"]
    ic = r["icrc"]
    if res["kind"] == "error":
        return ["cannot locate the packet: " + res["why"]]
    for k, ours in (("opcode", r.get("opcode")), ("dqpn", r.get("dqpn")), ("psn", r.get("psn"))):
        if res["sane"][k] != ours:
            out.append("BTH %s: ours=%r scapy=%r (not the same packet?)" % (k, ours, res["sane"][k]))
    if ic.get("computed") != res["computed"]:
        out.append("icrc.computed: ours=0x%08x scapy=0x%08x (scapy wire bytes %s)" %
                   (ic.get("computed", 0), res["computed"],
                    struct.pack("<I", res["computed"]).hex()))
    ours_good = ic.get("status") == "good"
    if ours_good != res["good"]:
        out.append("icrc.status: ours=%s scapy=%s (wire %s, scapy computes %s)" %
                   (ic.get("status"), "good" if res["good"] else "bad", res["wire"],
                    struct.pack("<I", res["computed"]).hex()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="+")
    ap.add_argument("--rocedump", default="rocedump")
    ap.add_argument("--roce-port", type=int, action="append", default=[])
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    files, status = captures_or_status(a.captures)
    if files is None:
        return status

    tot = {"compared": 0, "good": 0, "bad": 0, "skipped": 0, "ignored": 0, "fail": 0}
    st_n = st_missed = 0
    for path in files:
        try:
            ours = run_rocedump(a.rocedump, path, a.roce_port)
            raw_frames = read_frames(path)
        except Exception as e:  # noqa: BLE001 - any reader/tool failure is fatal here
            print("error: %s: %s" % (path, e), file=sys.stderr)
            return 2
        reasons = {}
        results = {}
        fails = []
        for n in sorted(ours):
            fr = ours[n]
            e = eligible(fr)
            if e:
                reasons.setdefault(e, []).append(n)
                continue
            if n not in raw_frames:
                fails.append((n, "frame missing from scapy's reading of the file"))
                continue
            res = scapy_check(raw_frames[n], fr)
            if res["kind"] == "skip":
                reasons.setdefault(("skipped", res["why"]), []).append(n)
                continue
            results[n] = res
            for d in judge(fr, res):
                fails.append((n, d))
        ngood = sum(1 for n in results if ours[n]["roce"]["icrc"]["status"] == "good")
        nskip = sum(len(v) for (t, _r), v in reasons.items() if t == "skipped")
        nign = sum(len(v) for (t, _r), v in reasons.items() if t == "ignored")
        print("%s: %d frames, %d compared (%d good, %d bad), %d skipped, %d not eligible, "
              "%d disagreements" % (path, len(ours), len(results), ngood, len(results) - ngood,
                                    nskip, nign, len(fails)))
        for (t, why), fl in sorted(reasons.items()):
            if t == "skipped" or a.verbose:
                shown = ",".join(map(str, fl[:12])) + (",..." if len(fl) > 12 else "")
                print("    %s %d frame(s) [%s]: %s" % (t, len(fl), shown, why))
        for n, d in fails:
            print("DISAGREE %s frame %d: %s" % (path, n, d))
        tot["compared"] += len(results)
        tot["good"] += ngood
        tot["bad"] += len(results) - ngood
        tot["skipped"] += nskip
        tot["ignored"] += nign
        tot["fail"] += len(fails)

        if a.selftest:
            for n, res in sorted(results.items()):
                if judge(ours[n], res):
                    continue  # already disagreeing: no proof from corrupting it
                for what in ("computed", "status"):
                    bad = copy.deepcopy(ours[n])
                    ic = bad["roce"]["icrc"]
                    if what == "computed":
                        ic["computed"] ^= 1
                    else:
                        ic["status"] = "bad" if ic["status"] == "good" else "good"
                    st_n += 1
                    if not any(d.startswith("icrc." + what) for d in judge(bad, res)):
                        st_missed += 1
                        print("SELFTEST FAIL: %s frame %d: corrupted icrc.%s not detected"
                              % (path, n, what))
            # and on scapy's side: a flipped payload/header bit in the frame must make
            # scapy disagree with our (unchanged) result
            for n in sorted(results)[:5]:
                if judge(ours[n], results[n]):
                    continue
                buf = bytearray(raw_frames[n])
                off, iplen = find_inner_ipv4(bytes(buf), ours[n])
                buf[off + iplen - 5] ^= 0x01    # last byte before the ICRC
                st_n += 1
                d = judge(ours[n], scapy_check(bytes(buf), ours[n]))
                # a good frame must now be bad for scapy; a bad one stays bad
                was_good = ours[n]["roce"]["icrc"]["status"] == "good"
                if not (any(x.startswith("icrc.computed") for x in d)
                        and (not was_good or any(x.startswith("icrc.status") for x in d))):
                    st_missed += 1
                    print("SELFTEST FAIL: %s frame %d: flipped frame bit not detected" % (path, n))

    print("scapy ICRC crosscheck: %d captures, %d frames compared (%d good, %d bad), "
          "%d skipped, %d not eligible, %d disagreements" %
          (len(files), tot["compared"], tot["good"], tot["bad"], tot["skipped"],
           tot["ignored"], tot["fail"]))
    rc = 1 if tot["fail"] else 0
    if a.selftest:
        # only the detection of the corruptions decides (real disagreements fail the
        # ordinary run)
        print("selftest: %d corruptions, %d detected" % (st_n, st_n - st_missed))
        rc = 1 if (st_missed or st_n == 0) else 0
    elif tot["compared"] == 0 and rc == 0:
        print("SKIP: nothing eligible")
        return 77
    return rc


if __name__ == "__main__":
    sys.exit(main())
