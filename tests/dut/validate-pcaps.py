#!/usr/bin/python3
"""rocedump DUT harness: check RoCEv2 captures made by the Soft-RoCE guests.

For every file: link type(s), packet count, truncated frames, RoCEv2 frames, ICRC of every complete
RoCEv2 frame recomputed here (IPv4 and IPv6, cross-checked against scapy.contrib.roce for IPv4),
ECN codepoints, UDP source ports / zero UDP checksums, VLAN, GRE and ERSPAN header facts, repeated PSNs
(retransmissions), and tshark's view (frames matching `infiniband`, BTH opcodes, AETH syndromes,
malformed frames).  The RoCEv2 frame may be nested (802.1Q, SLL/SLL2, GRE/gretap, ERSPAN II/III over
IPv4 or IPv6): the innermost UDP/4791 is used.

usage: validate-pcaps.py [--json] FILE.pcap[ng] ...     (run it with /usr/bin/python3: Debian's scapy)
exit status: 1 if any complete RoCEv2 frame has a bad ICRC, else 0.
"""
import collections, json, struct, subprocess, sys, zlib
from scapy.all import PcapReader, IP, IPv6, UDP, GRE, Dot1Q, conf, raw
from scapy.layers.l2 import CookedLinux, CookedLinuxV2
from scapy.contrib.roce import BTH
import scapy.contrib.erspan as erspan

conf.verb = 0
OPS = {0: "SEND_FIRST", 1: "SEND_MIDDLE", 2: "SEND_LAST", 3: "SEND_LAST_IMM", 4: "SEND_ONLY",
       5: "SEND_ONLY_IMM", 6: "WRITE_FIRST", 7: "WRITE_MIDDLE", 8: "WRITE_LAST", 9: "WRITE_LAST_IMM",
       10: "WRITE_ONLY", 11: "WRITE_ONLY_IMM", 12: "READ_REQ", 13: "READ_RESP_FIRST",
       14: "READ_RESP_MIDDLE", 15: "READ_RESP_LAST", 16: "READ_RESP_ONLY", 17: "ACK", 18: "ATOMIC_ACK",
       19: "CMP_SWAP", 20: "FETCH_ADD", 22: "SEND_LAST_INV", 23: "SEND_ONLY_INV",
       100: "UD_SEND_ONLY", 101: "UD_SEND_ONLY_IMM", 129: "CNP"}
REQUESTS = set(range(0, 13)) | {19, 20, 22, 23}


def opname(o):
    o = int(o)
    return OPS.get(o, "op%d" % o)


def icrc_ok(ipb, version):
    """ipb = bytes of the IP header onwards (exactly the IP datagram). Returns True/False."""
    b = bytearray(ipb)
    if version == 4:
        ihl = (b[0] & 15) * 4
        b[1] = 0xff; b[8] = 0xff; b[10] = b[11] = 0xff            # TOS, TTL, header checksum
        u = ihl
    else:
        b[0] |= 0x0f; b[1] = b[2] = b[3] = 0xff; b[7] = 0xff     # traffic class, flow label, hop limit
        u = 40                                                   # rxe never adds extension headers
    b[u + 6] = b[u + 7] = 0xff                                   # UDP checksum
    b[u + 8 + 4] = 0xff                                          # BTH byte 4 (FECN/BECN/resv)
    crc = zlib.crc32(b"\xff" * 8 + bytes(b[:-4])) & 0xffffffff
    return struct.pack("<I", crc) == bytes(b[-4:])


def linktypes(f):
    out = subprocess.run(["capinfos", "-E", "-T", "-r", f], capture_output=True, text=True).stdout
    return out.strip().split("\t")[-1] if out.strip() else "?"


def tshark_view(f):
    res = subprocess.run(["tshark", "-r", f, "-Y", "infiniband", "-T", "fields", "-E", "occurrence=l",
                          "-e", "infiniband.bth.opcode", "-e", "infiniband.aeth.syndrome"],
                         capture_output=True, text=True).stdout.splitlines()
    ops = collections.Counter(); syn = collections.Counter()
    for l in res:
        c = l.split("\t")
        if c[0]: ops[opname(c[0])] += 1
        if len(c) > 1 and c[1]: syn["0x%02x" % int(c[1], 0)] += 1
    mal = subprocess.run(["tshark", "-r", f, "-Y", "_ws.malformed"], capture_output=True, text=True).stdout
    return len(res), ops, syn, len(mal.splitlines())


def check(f):
    r = dict(file=f, linktype=linktypes(f), pkts=0, truncated=0, roce=0, icrc_ok=0, icrc_bad=0,
             icrc_unverifiable=0, scapy_icrc_mismatch=0)
    ecn = collections.Counter(); sports = collections.Counter(); csum0 = 0; csum_nz = 0
    vlan = collections.Counter(); gre = collections.Counter(); ers = collections.Counter(); path = collections.Counter()
    ipver = collections.Counter(); sll = collections.Counter(); flows = collections.Counter(); iph = collections.Counter(); dscp = collections.Counter(); seen = set(); dups = collections.Counter()
    ops = collections.Counter()
    for p in PcapReader(f):
        r["pkts"] += 1
        trunc = getattr(p, "wirelen", None) is not None and p.wirelen > len(raw(p))
        r["truncated"] += trunc
        if Dot1Q in p:
            vlan["vid %d pcp %d" % (p[Dot1Q].vlan, p[Dot1Q].prio)] += 1
        if GRE in p:
            g = p[GRE]
            fl = "".join(n for n, b in (("C", g.chksum_present), ("K", g.key_present), ("S", g.seqnum_present)) if b)
            gre["proto 0x%04x flags %s%s" % (g.proto, fl or "-", (" key %d" % g.key) if g.key_present else "")] += 1
            for cls in (erspan.ERSPAN_III, erspan.ERSPAN_II, erspan.ERSPAN_I):
                if cls in p:
                    e = p[cls]
                    if cls is erspan.ERSPAN_III:
                        ers["ERSPAN III ver %d session %d vlan %d cos %d bso %d t %d ft %d hwid %d dir %d gra %d o %d" % (
                            e.ver, e.session_id, e.vlan, e.cos, e.bso, e.t, e.ft, e.hw, e.d, e.gra, e.o)] += 1
                    elif cls is erspan.ERSPAN_II:
                        ers["ERSPAN II ver %d session %d vlan %d cos %d en %d t %d index %d" % (
                            e.ver, e.session_id, e.vlan, e.cos, e.en, e.t, e.index)] += 1
                    else:
                        ers["ERSPAN I"] += 1
                    break
        if CookedLinuxV2 in p:
            sll["SLL2 ifindex %d pkttype %d" % (p[CookedLinuxV2].ifindex, p[CookedLinuxV2].pkttype)] += 1
        elif CookedLinux in p:
            sll["SLL pkttype %d" % p[CookedLinux].pkttype] += 1
        # innermost UDP 4791
        udp = None; i = 1
        while True:
            u = p.getlayer(UDP, nb=i)
            if u is None: break
            if u.dport == 4791: udp = u
            i += 1
        if udp is None: continue
        r["roce"] += 1
        ip = udp.underlayer
        names = []; l = p
        while l is not None and l.name != "Raw" and l is not udp.payload:
            names.append(type(l).__name__); l = l.payload if l.payload else None
        path["/".join(names + ["BTH"])] += 1
        sports[udp.sport] += 1
        if BTH in udp: flows["%s > %s sport %d dqpn 0x%x" % (ip.src, ip.dst, udp.sport, udp[BTH].dqpn)] += 1
        if udp.chksum == 0: csum0 += 1
        else: csum_nz += 1
        if isinstance(ip, IP):
            ipver[4] += 1; ecn[ip.tos & 3] += 1; dscp[ip.tos >> 2] += 1
            iph["ttl %d %s" % (ip.ttl, "DF" if ip.flags.DF else "no-DF")] += 1
            ipb = raw(ip)[:ip.len]; full = len(ipb) == ip.len
        elif isinstance(ip, IPv6):
            ipver[6] += 1; ecn[ip.tc & 3] += 1; dscp[ip.tc >> 2] += 1
            iph["hlim %d flow label 0x%05x" % (ip.hlim, ip.fl)] += 1
            ipb = raw(ip)[:40 + ip.plen]; full = len(ipb) == 40 + ip.plen
        else:
            r["icrc_unverifiable"] += 1; continue
        if BTH in udp:
            b = udp[BTH]; ops[opname(b.opcode)] += 1
            key = (ip.src, ip.dst, b.dqpn, b.opcode in REQUESTS, b.psn, b.opcode)
            if key in seen: dups[opname(b.opcode)] += 1
            seen.add(key)
        if trunc or not full:
            r["icrc_unverifiable"] += 1; continue
        ok = icrc_ok(ipb, 4 if isinstance(ip, IP) else 6)
        r["icrc_ok" if ok else "icrc_bad"] += 1
        if isinstance(ip, IP) and BTH in ip:       # cross-check with scapy's own ICRC (IPv4 only)
            q = IP(ipb); want = q[BTH].icrc; q[BTH].icrc = None
            if (IP(raw(q))[BTH].icrc == want) != ok: r["scapy_icrc_mismatch"] += 1
    n, tops, syn, mal = tshark_view(f)
    sp = sorted(sports)
    r.update(tshark_infiniband=n, tshark_malformed=mal, opcodes=dict(tops), aeth_syndromes=dict(syn),
             scapy_opcodes=dict(ops), ecn={str(k): v for k, v in sorted(ecn.items())},
             dscp={str(k): v for k, v in sorted(dscp.items())}, ip_versions={str(k): v for k, v in ipver.items()},
             udp_sports=(["%d" % s for s in sp] if len(sp) <= 6 else ["%d..%d (%d distinct)" % (sp[0], sp[-1], len(sp))]),
             udp_csum_zero=csum0, udp_csum_nonzero=csum_nz, vlan=dict(vlan), gre=dict(gre), erspan=dict(ers),
             sll=dict(sll), flows=dict(flows), ip_hdr=dict(iph),
             encap=dict(path), repeated_psn=dict(dups))
    return r


def show(r):
    print("%s: %s, %d pkts (%d truncated), %d RoCEv2 (tshark infiniband: %d, malformed %d), "
          "ICRC ok=%d bad=%d unverifiable=%d%s" % (
              r["file"], r["linktype"], r["pkts"], r["truncated"], r["roce"], r["tshark_infiniband"],
              r["tshark_malformed"], r["icrc_ok"], r["icrc_bad"], r["icrc_unverifiable"],
              (" SCAPY-MISMATCH=%d" % r["scapy_icrc_mismatch"]) if r["scapy_icrc_mismatch"] else ""))
    print("   opcodes: " + ", ".join("%s=%d" % kv for kv in sorted(r["opcodes"].items())))
    if r["aeth_syndromes"]: print("   AETH syndromes: " + ", ".join("%s=%d" % kv for kv in sorted(r["aeth_syndromes"].items())))
    if r["repeated_psn"]: print("   repeated PSNs (retransmits): " + ", ".join("%s=%d" % kv for kv in sorted(r["repeated_psn"].items())))
    print("   ECN %s DSCP %s IPv%s UDP sport %s csum0=%d csum!=0=%d" % (
        r["ecn"], r["dscp"], "/".join(r["ip_versions"]), ",".join(r["udp_sports"]), r["udp_csum_zero"], r["udp_csum_nonzero"]))
    for k in ("flows", "ip_hdr", "encap", "vlan", "sll", "gre", "erspan"):
        if r[k]: print("   %s: %s" % (k, "; ".join("%s (%d)" % kv for kv in r[k].items())))


if __name__ == "__main__":
    args = sys.argv[1:]; js = "--json" in args; args = [a for a in args if a != "--json"]
    res = [check(f) for f in args]
    if js: json.dump(res, sys.stdout, indent=1); print()
    else:
        for r in res: show(r)
    sys.exit(1 if any(r["icrc_bad"] for r in res) else 0)
