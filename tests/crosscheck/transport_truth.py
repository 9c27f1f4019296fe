#!/usr/bin/python3
"""Independent truth for rocedump's transport events, computed from tshark 4.0 fields.

Usage: transport_truth.py [--rocedump PATH] [--tshark PATH] [--roce-port N ...]
                          [--truth-only | --selftest] [-v] CAPTURE|DIR ...

From `tshark -T fields` alone (no rocedump involved) this computes, per capture, the frames
that must carry these rocedump transport events, and compares them with the frames where
`rocedump -T json` puts them in "events":

  psn.retransmit       a request (any opcode that is not a response: ACKNOWLEDGE 0x11,
                       ATOMIC_ACKNOWLEDGE 0x12, READ_RESPONSE_* 0x0D-0x10, and the RD/XRC
                       equivalents) or a READ_RESPONSE_* whose PSN was already seen earlier in
                       the capture (file order) on the same stream. A stream is
                       (ip.src, ip.dst, bth.destqp); its requests and its READ responses are
                       two separate PSN spaces. ACKs and ATOMIC ACKs are never retransmits and
                       do not enter either PSN space. A READ request of N bytes marks all
                       ceil(N / PMTU) PSNs it consumes as seen (--pmtu, default 1024, is given
                       to rocedump too). UD has no PSN rules (counters only) and is skipped.
  nak.psn_seq_err      AETH syndrome 0x60      nak.invalid_request  0x61
  nak.remote_access    0x62                    nak.remote_op        0x63
  nak.invalid_rd       0x64                    nak.rnr              0x20-0x3F

  frame.copy           the same packet seen again within 1 ms (either way: a pcapng of several
                       interfaces is not in time order) of its first frame (file order): the
                       same IP addresses, IPv4 id, UDP source port, BTH opcode, QP and PSN, IP
                       length and ICRC (infiniband.invariant.crc), and either another place
                       (frame.interface_id, sll.ifindex, sll.pkttype, eth.src, eth.dst, vlan.id)
                       or the same place with a non-zero IPv4 id. A copy takes no part in the
                       rest: no event above, and its PSN does not enter the state.
Only the events above are compared; other nak.* events (nak.duplicate, nak.restart_wrong) and
psn.gap etc. are not. Where rocedump reports a retransmit.timeout, its age (the finding's
delta_ns) must equal the time from the capture's first frame carrying that request PSN on the
stream (frame.time_epoch, to the nanosecond) to the resend; without an age, the capture must not
hold such a frame (a mismatch "timeout.age"). Only RoCEv2 (UDP destination port 4791 or --roce-port) over IPv4/IPv6
is considered, with the innermost IP/UDP of tunnelled frames (GRE, ERSPAN, VLAN, SLL).

Frames excluded from both sides (counted, never compared):
  * opcodes tshark 4.0 has no correct layout for: CNP 0x80/0x81, RD 0x40-0x5F, XRC 0xA0-0xBF,
    FLUSH 0x1C / ATOMIC WRITE 0x1D, reserved and vendor opcodes; they also do not enter the
    PSN state (their PSN is not trusted);
  * frames whose BTH tshark does not decode (no PSN): no state either;
  * truncated frames (frame.cap_len < frame.len, or rocedump says truncated/packet.too_short):
    their BTH PSN still enters the PSN state when tshark decoded it, but they are not compared;
  * RoCE that tshark takes on the UDP *source* port (rocedump decodes the destination port).

Output per capture: the number of streams, retransmitted frames (requests / READ responses),
NAKs by code, RNR NAKs, and notes (duplicate ACKs, retransmits that are capture duplicates
of one IPv4 packet (same IP ID), the deepest resend, READ responses reusing an ACK's PSN).
Mismatches are listed per event as "missing" (truth has it, rocedump not: recall) and
"extra" (rocedump has it, truth not: precision), with stream, opcode and PSN.

tshark runs as nobody via setpriv when we are root, reads the capture on stdin, with the
InfiniBand payload sub-dissectors disabled; if tshark gives RoCE frames to another UDP
protocol (its other port is lower), it is re-run with that protocol disabled.

Exit status: 0 truth and rocedump agree, 1 any difference, 2 usage or tool error,
77 (meson: skipped) tshark not found, no captures, or this rocedump does not know the
transport events (no psn.retransmit in --list-events).
--truth-only: print the truth per capture, no rocedump; 0 (or 77 without tshark).
--selftest: checks the truth engine on hand-made packets, then per capture replaces
rocedump's transport events by the truth (must agree), and alters that event list in
several ways (drop, add, change a NAK code, ...); every alteration must be reported.
Exits 1 if anything goes unnoticed. Does not need the analyzer to exist.
"""

import argparse
import copy
import decimal
import ipaddress
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xcommon import (DEFAULT_ROCE_PORT, captures_or_status, port_args, roce_ports, time_ordered,  # noqa: E402
                     rocedump_json, tshark_fields, tshark_wrong_opcode)



TSHARK_FIELDS = [
    "frame.number", "frame.time_epoch", "frame.protocols", "frame.len", "frame.cap_len",
    "ip.src", "ip.dst", "ip.id", "ipv6.src", "ipv6.dst", "udp.srcport", "udp.dstport",
    "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
    "infiniband.aeth.syndrome", "infiniband.reth.dmalen",
    # copies: the packet's identity and where it was seen
    "ip.len", "ipv6.plen", "infiniband.invariant.crc", "frame.interface_id", "sll.ifindex", "sll.pkttype",
    "eth.src", "eth.dst", "vlan.id",
]
COPY_WINDOW_NS = 1000000

# A READ request of N bytes consumes ceil(N / PMTU) PSNs (IBTA Vol 1 §9.7.2): all of them count as
# sent, so a READ re-requested from inside that range resends sent PSNs. The Soft-RoCE DUT's path
# MTU is 1024 (captures/rxe/README.md); --pmtu changes it.
PMTU = 1024
READ_REQUEST_OPCODES = {0x0C, 0x4C, 0xAC}


def set_pmtu(pmtu):
    global PMTU
    PMTU = pmtu


NAK_EVENTS = {0x60: "nak.psn_seq_err", 0x61: "nak.invalid_request", 0x62: "nak.remote_access",
              0x63: "nak.remote_op", 0x64: "nak.invalid_rd"}
RETRANSMIT = "psn.retransmit"
RNR = "nak.rnr"
COPY = "frame.copy"
EVENTS = [RETRANSMIT] + [NAK_EVENTS[c] for c in sorted(NAK_EVENTS)] + [RNR, COPY]

OPNAMES = {0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST", 0x03: "SEND_LAST_IMM",
           0x04: "SEND_ONLY", 0x05: "SEND_ONLY_IMM", 0x06: "WRITE_FIRST", 0x07: "WRITE_MIDDLE",
           0x08: "WRITE_LAST", 0x09: "WRITE_LAST_IMM", 0x0A: "WRITE_ONLY",
           0x0B: "WRITE_ONLY_IMM", 0x0C: "READ_REQUEST", 0x0D: "READ_RESPONSE_FIRST",
           0x0E: "READ_RESPONSE_MIDDLE", 0x0F: "READ_RESPONSE_LAST", 0x10: "READ_RESPONSE_ONLY",
           0x11: "ACKNOWLEDGE", 0x12: "ATOMIC_ACKNOWLEDGE", 0x13: "CMP_SWAP", 0x14: "FETCH_ADD",
           0x16: "SEND_LAST_INV", 0x17: "SEND_ONLY_INV"}
TRANSPORTS = {0x00: "RC", 0x20: "UC", 0x40: "RD", 0x60: "UD", 0xA0: "XRC"}


def opname(op):
    t = TRANSPORTS.get(op & 0xE0)
    if t in ("RC", "UC", "RD", "XRC") and (op & 0x1F) in OPNAMES:
        n = OPNAMES[op & 0x1F]
        return n if t == "RC" else "%s_%s" % (t, n)
    if op == 0x64:
        return "UD_SEND_ONLY"
    if op == 0x65:
        return "UD_SEND_ONLY_IMM"
    return "0x%02X" % op


def has_responses(op):
    """RC, RD and XRC have responses; UC and UD do not."""
    return (op & 0xE0) in (0x00, 0x40, 0xA0)


def is_read_response(op):
    return has_responses(op) and 0x0D <= (op & 0x1F) <= 0x10


def is_ack(op):
    """ACKNOWLEDGE or ATOMIC_ACKNOWLEDGE (RC/RD/XRC)."""
    return has_responses(op) and (op & 0x1F) in (0x11, 0x12)


def is_request(op):
    return not (is_read_response(op) or is_ack(op))


# ---------------------------------------------------------------------------------
# tshark

def run_tshark_once(tshark, path, ports, disable_extra=()):
    return tshark_fields(tshark, path, TSHARK_FIELDS, ports, disable_extra)


def protocols(row):
    return (row.get("frame.protocols") or [""])[0].split(":")


def nth(row, name, k):
    """k-th (0-based) occurrence of a field; the last one if there are fewer."""
    v = row.get(name) or []
    if not v:
        return None
    return v[k] if k < len(v) else v[-1]


def occurrence(prot, i, name):
    """How many layers called `name` precede index i (the occurrence index of layer i)."""
    return sum(1 for x in prot[:i] if x == name)


def udp_layer(prot):
    """Index of the innermost udp layer, or None."""
    for i in range(len(prot) - 1, -1, -1):
        if prot[i] == "udp":
            return i
    return None


def run_tshark(tshark, path, ports):
    rows = run_tshark_once(tshark, path, ports)
    # RoCEv2 frames (dst port ours) that tshark gave to another UDP protocol because the
    # other port is lower: re-run with that protocol disabled (decided from tshark alone).
    steal = set()
    for row in rows:
        prot = protocols(row)
        u = udp_layer(prot)
        if u is None or u + 1 >= len(prot) or prot[u + 1] in ("infiniband", "data"):
            continue
        dport = nth(row, "udp.dstport", occurrence(prot, u, "udp"))
        if dport is not None and int(dport, 0) in ports:
            steal.add(prot[u + 1])
    if steal:
        print("%s: tshark gave RoCE frames to %s (lower UDP port); re-run with them disabled"
              % (path, ",".join(sorted(steal))))
        rows = run_tshark_once(tshark, path, ports, sorted(steal))
    return rows


# ---------------------------------------------------------------------------------
# packets as tshark sees them

class Pkt:
    __slots__ = ("frame", "ts", "stream", "op", "psn", "syndrome", "ipid", "truncated", "state",
                 "compare", "excluded", "dmalen", "ident", "where")

    def __init__(self, frame, ts=None):
        self.frame = frame
        self.ts = ts            # capture time, integer nanoseconds
        self.stream = None      # (src, dst, dqpn)
        self.op = None
        self.psn = None
        self.syndrome = None
        self.dmalen = None
        self.ipid = None
        self.truncated = False
        self.state = False      # enters the PSN state
        self.compare = False    # compared with rocedump
        self.excluded = None    # why not compared (None if compared or not RoCE at all)
        self.ident = None       # the packet's identity, for copies (None: not known)
        self.where = None       # where it was seen


def to_int(s):
    return int(s.strip(), 0)


def parse_rows(rows, ports):
    """tshark rows -> {frame: Pkt} for every frame (non-RoCE ones with state=False)."""
    pkts = {}
    for row in rows:
        n = int(row["frame.number"][0])
        t = row.get("frame.time_epoch") or []
        p = Pkt(n, int(decimal.Decimal(t[0]) * 1000000000) if t else None)
        pkts[n] = p
        prot = protocols(row)
        if "infiniband" not in prot:
            continue
        ib = len(prot) - 1 - prot[::-1].index("infiniband")
        if ib == 0 or prot[ib - 1] != "udp":
            p.excluded = "not RoCEv2 (RoCEv1 or InfiniBand without UDP)"
            continue
        u = ib - 1
        dport = nth(row, "udp.dstport", occurrence(prot, u, "udp"))
        if dport is None or to_int(dport) not in ports:
            p.excluded = "tshark takes RoCEv2 on the UDP source port; rocedump the destination"
            continue
        ipl = None
        for i in range(u - 1, -1, -1):
            if prot[i] in ("ip", "ipv6"):
                ipl = i
                break
        if ipl is None:
            p.excluded = "no IP layer before UDP"
            continue
        k = occurrence(prot, ipl, prot[ipl])
        pre = "ip" if prot[ipl] == "ip" else "ipv6"
        src, dst = nth(row, pre + ".src", k), nth(row, pre + ".dst", k)
        op = nth(row, "infiniband.bth.opcode", 0)
        qp = nth(row, "infiniband.bth.destqp", 0)
        psn = nth(row, "infiniband.bth.psn", 0)
        flen = to_int(row["frame.len"][0])
        clen = to_int(row["frame.cap_len"][0])
        p.truncated = clen < flen
        if op is None or qp is None or psn is None or src is None or dst is None:
            p.excluded = "tshark decodes no complete BTH (truncated)"
            continue
        p.op = to_int(op)
        p.psn = to_int(psn)
        p.stream = (str(ipaddress.ip_address(src)), str(ipaddress.ip_address(dst)), to_int(qp))
        if pre == "ip":
            ipid = nth(row, "ip.id", k)
            p.ipid = to_int(ipid) if ipid is not None else None
        syn = row.get("infiniband.aeth.syndrome") or []
        if syn:
            p.syndrome = to_int(syn[0])
        dma = row.get("infiniband.reth.dmalen") or []
        if dma:
            p.dmalen = to_int(dma[0])
        icrc = row.get("infiniband.invariant.crc") or []
        iplen = nth(row, "ip.len" if pre == "ip" else "ipv6.plen", k)
        sport = nth(row, "udp.srcport", occurrence(prot, u, "udp"))
        if icrc and iplen is not None and not p.truncated:
            p.ident = (p.stream, p.ipid, sport, p.op, p.psn, to_int(iplen), icrc[-1])
        p.where = tuple(tuple(row.get(f) or []) for f in ("frame.interface_id", "sll.ifindex", "sll.pkttype",
                                                           "eth.src", "eth.dst", "vlan.id"))
        why = tshark_wrong_opcode(p.op)
        if why:
            p.excluded = why
            continue
        p.state = True
        if p.truncated:
            p.excluded = "truncated (PSN used for the state, not compared)"
            continue
        p.compare = True
    return pkts


# ---------------------------------------------------------------------------------
# the truth

class Truth:
    def __init__(self):
        self.events = {e: set() for e in EVENTS}   # event -> frames (all state frames)
        self.streams = set()
        self.read_resp_retx = set()
        self.dup_acks = set()
        self.capture_dups = set()     # retransmits whose IPv4 packet (src, IP ID) was seen before
        self.max_depth = 0            # deepest resend: (highest PSN so far - PSN) mod 2^24
        self.ack_psn_reuse = set()    # READ responses whose PSN an ACK on the stream carried
        self.late_new = set()         # first-time requests behind the highest PSN (late/re-READ)
        self.reserved_naks = {}       # syndrome -> frames (0x65..0x7F: no event)
        self.first_sent = {}          # (stream, request PSN) -> capture time of its first frame
        self.excluded = {}            # reason -> frames
        self.roce = 0


def compute_truth(pkts):
    t = Truth()
    req_seen = {}     # stream -> set of request PSNs
    resp_seen = {}    # stream -> set of READ response PSNs
    ack_seen = {}     # stream -> set of ACK/ATOMIC ACK PSNs (notes only)
    high = {}         # (stream, space) -> highest PSN (24-bit serial) so far
    ipids = {}        # (src, ipid) -> (stream, op, psn) of the first copy
    sightings = {}    # packet identity -> the frames that were not copies
    for n in sorted(pkts):
        p = pkts[n]
        if p.excluded is not None:
            t.excluded.setdefault(p.excluded, []).append(n)
        if not p.state:
            continue
        if p.ident is not None:
            first = [m for m in sightings.get(p.ident, ()) if abs(pkts[m].ts - p.ts) <= COPY_WINDOW_NS]
            if any(pkts[m].where != p.where or p.ipid for m in first):
                t.events[COPY].add(n)
                continue
            sightings.setdefault(p.ident, []).append(n)
        t.roce += 1
        t.streams.add(p.stream)
        if p.syndrome is not None:
            if p.syndrome in NAK_EVENTS:
                t.events[NAK_EVENTS[p.syndrome]].add(n)
            elif 0x20 <= p.syndrome <= 0x3F:
                t.events[RNR].add(n)
            elif 0x65 <= p.syndrome <= 0x7F:
                t.reserved_naks.setdefault(p.syndrome, []).append(n)
        if is_ack(p.op):
            s = ack_seen.setdefault(p.stream, set())
            if p.op == 0x11 and p.psn in s:
                t.dup_acks.add(n)
            s.add(p.psn)
            continue
        if p.op in (0x64, 0x65):
            continue  # UD: counters only, no PSN rules (the transport issue's definition)
        space = "req" if is_request(p.op) else "resp"
        seen = (req_seen if space == "req" else resp_seen).setdefault(p.stream, set())
        key = (p.stream, space)
        if p.psn in seen:
            t.events[RETRANSMIT].add(n)
            if space == "resp":
                t.read_resp_retx.add(n)
            if key in high:
                t.max_depth = max(t.max_depth, (high[key] - p.psn) & 0xFFFFFF)
            if p.ipid is not None and ipids.get((p.stream[0], p.ipid)) == (p.stream, p.op, p.psn):
                t.capture_dups.add(n)
        else:
            if space == "resp" and p.psn in ack_seen.get(p.stream, ()):
                t.ack_psn_reuse.add(n)
            if space == "req" and key in high and 0 < ((high[key] - p.psn) & 0xFFFFFF) < 0x800000:
                t.late_new.add(n)
        span = 1
        if space == "req" and p.op in READ_REQUEST_OPCODES and p.dmalen:
            span = max(1, -(-p.dmalen // PMTU))
        if space == "req" and p.ts is not None:
            for i in range(span):
                t.first_sent.setdefault((p.stream, (p.psn + i) & 0xFFFFFF), p.ts)
        seen.update((p.psn + i) & 0xFFFFFF for i in range(span))
        if key not in high or 0 < ((p.psn - high[key]) & 0xFFFFFF) < 0x800000:
            high[key] = p.psn
        if p.ipid is not None:
            ipids.setdefault((p.stream[0], p.ipid), (p.stream, p.op, p.psn))
    return t


def fmt_stream(s):
    return "%s>%s qp 0x%x" % s


def describe(pkts, n):
    p = pkts.get(n)
    if p is None or p.op is None:
        return "frame %d" % n
    extra = " syndrome 0x%02x" % p.syndrome if p.syndrome is not None else ""
    return "frame %d %s %s psn %d%s" % (n, fmt_stream(p.stream), opname(p.op), p.psn, extra)


FRAME_LIST_LIMIT = [12]


def fmt_frames(frames):
    frames = sorted(frames)
    limit = FRAME_LIST_LIMIT[0]
    if limit is None or len(frames) <= limit:
        return ",".join(map(str, frames))
    return ",".join(map(str, frames[:limit])) + ",..."


def compared_events(t, pkts):
    """The truth restricted to the compared frames: event -> set of frames."""
    return {e: {n for n in fr if pkts[n].compare} for e, fr in t.events.items()}


def truth_line(path, t, pkts):
    cmp_ev = compared_events(t, pkts)
    retx = cmp_ev[RETRANSMIT]
    nreq = len([n for n in retx if is_request(pkts[n].op)])
    naks = ", ".join("0x%02x=%d" % (c, len(cmp_ev[NAK_EVENTS[c]])) for c in sorted(NAK_EVENTS)
                     if cmp_ev[NAK_EVENTS[c]]) or "none"
    nexcl = sum(len(v) for v in t.excluded.values())
    return ("%s: %d RoCE frames, %d streams, %d retransmits (%d requests, %d READ responses), "
            "NAKs: %s, RNR NAKs: %d, %d frames not compared"
            % (path, t.roce, len(t.streams), len(retx), nreq, len(retx) - nreq, naks,
               len(cmp_ev[RNR]), nexcl))


def print_truth(path, t, pkts, verbose):
    print(truth_line(path, t, pkts))
    notes = []
    if t.dup_acks:
        notes.append("%d duplicate ACKs (same PSN as an earlier ACK on the stream) [%s]"
                     % (len(t.dup_acks), fmt_frames(t.dup_acks)))
    if t.capture_dups:
        notes.append("%d of the retransmits repeat an earlier IPv4 packet (same source and IP ID): "
                     "the capture saw one packet twice, not a resend [%s]"
                     % (len(t.capture_dups), fmt_frames(t.capture_dups)))
    if t.read_resp_retx:
        notes.append("%d READ responses replayed [%s]" % (len(t.read_resp_retx),
                                                        fmt_frames(t.read_resp_retx)))
    if t.events[RETRANSMIT]:
        notes.append("deepest resend %d PSNs behind the highest PSN of its space" % t.max_depth)
    if t.ack_psn_reuse:
        notes.append("%d READ responses carry a PSN an ACK of the stream already carried "
                     "(not retransmits: ACKs are outside the response PSN space) [%s]"
                     % (len(t.ack_psn_reuse), fmt_frames(t.ack_psn_reuse)))
    if t.late_new:
        notes.append("%d requests with a first-time PSN behind the stream's highest (late or "
                     "reordered, or a READ re-requested from inside its PSN range): not "
                     "retransmits [%s]" % (len(t.late_new), fmt_frames(t.late_new)))
    for syn, fr in sorted(t.reserved_naks.items()):
        notes.append("%d NAKs with reserved code 0x%02x (no event) [%s]" % (len(fr), syn,
                                                                         fmt_frames(fr)))
    trunc_ev = {e: fr - compared_events(t, pkts)[e] for e, fr in t.events.items()}
    for e, fr in sorted(trunc_ev.items()):
        if fr:
            notes.append("%d %s on truncated frames, not compared [%s]" % (len(fr), e,
                                                                         fmt_frames(fr)))
    for note in notes:
        print("    note: " + note)
    for reason, fl in sorted(t.excluded.items()):
        print("    not compared, %d frame(s) [%s]: %s" % (len(fl), fmt_frames(fl), reason))
    if verbose:
        per = {}
        for n in sorted(pkts):
            p = pkts[n]
            if p.state:
                per.setdefault(p.stream, []).append(n)
        for s in sorted(per):
            fr = per[s]
            ev = {e: [n for n in fr if n in t.events[e]] for e in EVENTS}
            print("    stream %s: %d frames%s" % (fmt_stream(s), len(fr), "".join(
                ", %s %d [%s]" % (e, len(v), fmt_frames(v)) for e, v in ev.items() if v)))


# ---------------------------------------------------------------------------------
# rocedump and the comparison

def run_rocedump(rocedump, path, ports):
    # the same path MTU for both sides' READ PSN spans
    return rocedump_json(rocedump, path, port_args(ports) + ["--pmtu", str(PMTU)])


def rocedump_knows_events(rocedump):
    res = subprocess.run([rocedump, "--list-events"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    names = {ln.split()[0] for ln in res.stdout.decode(errors="replace").splitlines() if ln.split()}
    return all(e in names for e in EVENTS)


def ours_excluded(fr):
    """rocedump's own reasons not to compare a frame (it could not see all of it)."""
    ev = set(fr.get("events") or [])
    r = fr.get("roce") or {}
    if fr.get("caplen", 0) < fr.get("len", 0) or "truncated" in ev or r.get("truncated"):
        return "truncated (rocedump)"
    if "packet.too_short" in ev:
        return "packet.too_short (rocedump)"
    return None


def compare(pkts, truth, ours):
    """-> (mismatches [(event, frame, 'missing'|'extra', detail)], stats)."""
    mism = []
    stats = {"compared": 0, "ignored_events": 0, "missing_frames": []}
    want = compared_events(truth, pkts)
    got = {e: set() for e in EVENTS}
    for n in sorted(set(pkts) | set(ours)):
        p = pkts.get(n)
        fr = ours.get(n)
        if p is None or fr is None:
            stats["missing_frames"].append(n)
            mism.append(("frame", n, "present in %s only" % ("tshark" if fr is None else
                                                              "rocedump"), ""))
            continue
        ev = set(fr.get("events") or [])
        if not p.compare or ours_excluded(fr):
            stats["ignored_events"] += len(ev & set(EVENTS))
            for e in EVENTS:
                want[e].discard(n)
            continue
        stats["compared"] += 1
        for e in EVENTS:
            if e in ev:
                got[e].add(n)
    stats["ages"] = 0
    for n in sorted(ours):
        p, fr = pkts.get(n), ours[n]
        if p is None or not p.state or p.ts is None:
            continue
        for f in fr.get("findings") or []:
            if f.get("event") != "retransmit.timeout":
                continue
            first = truth.first_sent.get((p.stream, f.get("seen_psn")))
            age = None if first is None or first >= p.ts else p.ts - first
            stats["ages"] += 1
            if f.get("delta_ns") != age:
                mism.append(("timeout.age", n, "differs",
                             "%s: rocedump %s ns, the capture %s ns" % (describe(pkts, n), f.get("delta_ns"), age)))
    for e in EVENTS:
        for n in sorted(want[e] - got[e]):
            note = "" if (ours.get(n) or {}).get("roce") else " (rocedump: not decoded as RoCE)"
            mism.append((e, n, "missing", describe(pkts, n) + note))
        for n in sorted(got[e] - want[e]):
            mism.append((e, n, "extra", describe(pkts, n)))
    stats["want"] = want
    stats["got"] = got
    return mism, stats


def print_comparison(path, mism, stats):
    want, got = stats["want"], stats["got"]
    parts = []
    for e in EVENTS:
        tp = len(want[e] & got[e])
        if want[e] or got[e]:
            parts.append("%s truth %d rocedump %d (missing %d, extra %d)" % (
                e, len(want[e]), len(got[e]), len(want[e] - got[e]), len(got[e] - want[e])))
            if tp != len(want[e]) or tp != len(got[e]):
                parts[-1] += " recall %.3f precision %.3f" % (
                    tp / len(want[e]) if want[e] else 1.0, tp / len(got[e]) if got[e] else 1.0)
    if stats.get("ages"):
        parts.append("retransmit.timeout ages checked %d" % stats["ages"])
    print("    compared %d frames; %s; %d mismatches" % (
        stats["compared"], "; ".join(parts) if parts else "no events on either side", len(mism)))
    if stats["ignored_events"]:
        print("    %d rocedump events on frames not compared (ignored)" % stats["ignored_events"])
    for e, n, kind, detail in mism:
        if e == "frame":
            print("MISMATCH %s frame %d %s" % (path, n, kind))
        elif e == "timeout.age":
            print("MISMATCH %s timeout.age %s" % (path, detail))
        elif kind == "missing":
            print("MISMATCH %s %s missing (truth has it, rocedump not): %s" % (path, e, detail))
        else:
            print("MISMATCH %s %s extra (rocedump has it, truth not): %s" % (path, e, detail))


# ---------------------------------------------------------------------------------
# selftest

def fake_rows(spec):
    """[(src, dst, qp, op, psn, syndrome_or_None[, ipid])] -> tshark-like rows."""
    rows = []
    for i, s in enumerate(spec, 1):
        src, dst, qp, op, psn, syn = s[:6]
        ipid = s[6] if len(s) > 6 else 0x1000 + i
        v6 = ":" in src
        rows.append({
            "frame.number": [str(i)],
            "frame.protocols": ["eth:ethertype:%s:udp:infiniband" % ("ipv6" if v6 else "ip")],
            "frame.len": ["100"], "frame.cap_len": ["100"],
            "ip.src": [] if v6 else [src], "ip.dst": [] if v6 else [dst],
            "ip.id": [] if v6 else ["0x%04x" % ipid],
            "ipv6.src": [src] if v6 else [], "ipv6.dst": [dst] if v6 else [],
            "udp.srcport": ["49152"], "udp.dstport": ["4791"],
            "infiniband.bth.opcode": [str(op)], "infiniband.bth.destqp": ["0x%06x" % qp],
            "infiniband.bth.psn": [str(psn)],
            "infiniband.aeth.syndrome": [] if syn is None else [str(syn)],
        })
    return rows


def selftest_engine():
    """The truth engine on hand-made packets with hand-computed answers."""
    A, B = "10.0.0.1", "10.0.0.2"
    spec = [
        (A, B, 0x11, 0x00, 100, None),   # 1 SEND_FIRST
        (A, B, 0x11, 0x01, 101, None),   # 2 SEND_MIDDLE
        (A, B, 0x11, 0x02, 103, None),   # 3 SEND_LAST (gap: 102 lost)
        (B, A, 0x11, 0x11, 101, 0x60),   # 4 NAK PSN seq err
        (A, B, 0x11, 0x02, 102, None),   # 5 late, first time: not a retransmit
        (A, B, 0x11, 0x02, 103, None),   # 6 resend: retransmit
        (B, A, 0x11, 0x11, 103, 0x1f),   # 7 ACK
        (B, A, 0x11, 0x11, 103, 0x1f),   # 8 duplicate ACK: never a retransmit
        (A, B, 0x11, 0x0C, 200, None),   # 9 READ_REQUEST
        (B, A, 0x11, 0x0D, 200, 0x1f),   # 10 READ_RESPONSE_FIRST
        (B, A, 0x11, 0x0F, 201, 0x1f),   # 11 READ_RESPONSE_LAST
        (A, B, 0x11, 0x0C, 200, None),   # 12 READ_REQUEST again: retransmit
        (B, A, 0x11, 0x0D, 200, 0x1f),   # 13 replayed READ response: retransmit
        (B, A, 0x11, 0x00, 200, None),   # 14 B's own request PSN 200: other space, new
        (B, A, 0x11, 0x11, 500, 0x20),   # 15 RNR NAK (timer 0)
        (B, A, 0x11, 0x11, 501, 0x3f),   # 16 RNR NAK (timer 31)
        (B, A, 0x11, 0x11, 502, 0x61),   # 17 invalid request
        (B, A, 0x11, 0x11, 503, 0x62),   # 18 remote access
        (B, A, 0x11, 0x11, 504, 0x63),   # 19 remote op
        (B, A, 0x11, 0x11, 505, 0x64),   # 20 invalid RD
        (B, A, 0x11, 0x11, 506, 0x65),   # 21 reserved NAK code: nothing
        (A, B, 0x12, 0x00, 100, None),   # 22 other QP: PSN 100 is new there
        (B, A, 0x11, 0x12, 600, 0x1f),   # 23 ATOMIC_ACK
        (B, A, 0x11, 0x12, 600, 0x1f),   # 24 ATOMIC_ACK again: not a retransmit
        (B, A, 0x11, 0x10, 600, 0x1f),   # 25 READ_RESPONSE_ONLY reusing an ACK PSN: new
        (A, B, 0x11, 0x81, 0, None),     # 26 CNP: excluded
        (A, B, 0x11, 0x81, 0, None),     # 27 CNP again: excluded, no state
        (A, B, 0x14, 0x2A, 7, None),     # 28 UC WRITE_ONLY
        (A, B, 0x14, 0x2A, 7, None),     # 29 UC resend: retransmit too
        ("fd00::1", "fd00::2", 0x11, 0x64, 9, None),   # 30 UD over IPv6
        ("fd00::1", "fd00::2", 0x11, 0x64, 9, None),   # 31 repeat, but UD: no PSN rules
        (A, B, 0x13, 0x04, 0xFFFFFF, None),            # 32 SEND_ONLY at the top
        (A, B, 0x13, 0x04, 0, None),                   # 33 wrap: new
        (A, B, 0x13, 0x04, 0xFFFFFF, None),            # 34 resend across the wrap
        (A, B, 0x13, 0x04, 0, None, 0x1000 + 33),      # 35 same IP ID as 33: capture dup
    ]
    pkts = parse_rows(fake_rows(spec), [DEFAULT_ROCE_PORT])
    t = compute_truth(pkts)
    expect = {RETRANSMIT: {6, 12, 13, 29, 34, 35}, "nak.psn_seq_err": {4},
              "nak.invalid_request": {17}, "nak.remote_access": {18}, "nak.remote_op": {19},
              "nak.invalid_rd": {20}, RNR: {15, 16}, COPY: set()}  # fake rows carry no ICRC: no copies
    fails = []
    for e in EVENTS:
        if t.events[e] != expect[e]:
            fails.append("engine: %s frames %s, expected %s" % (e, sorted(t.events[e]),
                                                               sorted(expect[e])))
    checks = [("duplicate ACKs", t.dup_acks, {8}), ("READ response replays", t.read_resp_retx, {13}),
              ("capture duplicates", t.capture_dups, {35}), ("ACK PSN reuse", t.ack_psn_reuse, {25}),
              ("late first-time requests", t.late_new, {5}),
              ("excluded", set(t.excluded.get(tshark_wrong_opcode(0x81), [])), {26, 27})]
    for name, got, exp in checks:
        if got != exp:
            fails.append("engine: %s %s, expected %s" % (name, sorted(got), sorted(exp)))
    if len(t.streams) != 6:
        fails.append("engine: %d streams, expected 6" % len(t.streams))
    if t.max_depth != 1:   # resend of 0xFFFFFF after 0: one behind
        fails.append("engine: deepest resend %d, expected 1" % t.max_depth)
    return fails


def with_events(ours, events_by_frame):
    """Copy of rocedump's frames with the compared transport events replaced."""
    out = {}
    for n, fr in ours.items():
        f = dict(fr)
        ev = [e for e in fr.get("events") or [] if e not in EVENTS]
        f["events"] = ev + sorted(events_by_frame.get(n, ()))
        out[n] = f
    return out


def selftest_capture(pkts, truth, ours):
    """Returns (alterations tried, failures)."""
    want = compared_events(truth, pkts)
    comparable = sorted(n for n, p in pkts.items() if p.compare and n in ours
                        and not ours_excluded(ours[n]))
    perfect = {}
    for e, fr in want.items():
        for n in fr:
            if n in comparable:
                perfect.setdefault(n, set()).add(e)
    fails = []
    base, _ = compare(pkts, truth, with_events(ours, perfect))
    if base:
        fails.append("the truth itself as rocedump's events gives %d mismatches, e.g. %r"
                     % (len(base), base[0]))
        return 0, fails

    alts = []   # (description, altered events, expected (event, frame, kind))
    csq = set(comparable)

    def alt(desc, frame, remove=None, add=None, expect=()):
        ev = copy.deepcopy(perfect)
        s = ev.setdefault(frame, set())
        if remove:
            s.discard(remove)
        if add:
            s.add(add)
        alts.append((desc, ev, set(expect)))

    retx = sorted(want[RETRANSMIT] & csq)
    if retx:
        n = retx[len(retx) // 2]
        alt("drop psn.retransmit on frame %d" % n, n, remove=RETRANSMIT,
            expect=[(RETRANSMIT, n, "missing")])
    plain = [n for n in comparable if not perfect.get(n)]
    reqs = [n for n in plain if is_request(pkts[n].op)]
    if reqs:
        n = reqs[0]
        alt("add psn.retransmit on first-time request frame %d" % n, n, add=RETRANSMIT,
            expect=[(RETRANSMIT, n, "extra")])
    acks = [n for n in plain if is_ack(pkts[n].op)]
    if acks:
        n = acks[-1]
        alt("add nak.rnr on ACK frame %d" % n, n, add=RNR, expect=[(RNR, n, "extra")])
        alt("add psn.retransmit on ACK frame %d" % n, n, add=RETRANSMIT,
            expect=[(RETRANSMIT, n, "extra")])
    for code, e in sorted(NAK_EVENTS.items()):
        fr = sorted(want[e] & csq)
        if fr:
            n = fr[0]
            other = NAK_EVENTS[0x63 if code != 0x63 else 0x60]
            alt("change %s to %s on frame %d" % (e, other, n), n, remove=e, add=other,
                expect=[(e, n, "missing"), (other, n, "extra")])
            alt("drop %s on frame %d" % (e, n), n, remove=e, expect=[(e, n, "missing")])
    if want[RNR] & csq:
        n = sorted(want[RNR] & csq)[0]
        alt("drop nak.rnr on frame %d" % n, n, remove=RNR, expect=[(RNR, n, "missing")])
    if not alts and comparable:
        n = comparable[0]
        alt("add nak.psn_seq_err on frame %d" % n, n, add="nak.psn_seq_err",
            expect=[("nak.psn_seq_err", n, "extra")])

    for desc, ev, expect in alts:
        m, _ = compare(pkts, truth, with_events(ours, ev))
        got = {(e, n, k) for e, n, k, _d in m}
        if got != expect:
            fails.append("%s: reported %s, expected %s" % (desc, sorted(got), sorted(expect)))

    # a timeout's age off by a nanosecond, or lost, is reported
    timed = [n for n in sorted(ours) if n in pkts and pkts[n].state and any(
        f.get("event") == "retransmit.timeout" and f.get("delta_ns") is not None
        for f in ours[n].get("findings") or [])]
    for desc, change in (("one nanosecond more", lambda d: d + 1), ("no age", lambda d: None)):
        if not timed:
            break
        n = timed[len(timed) // 2]
        altered = with_events(ours, perfect)
        fr = copy.deepcopy(altered[n])
        for f in fr["findings"]:
            if f.get("event") == "retransmit.timeout":
                d = change(f["delta_ns"])
                if d is None:
                    del f["delta_ns"]
                else:
                    f["delta_ns"] = d
        altered[n] = fr
        m, _ = compare(pkts, truth, altered)
        got = {(e, k, kind) for e, k, kind, _d in m}
        alts.append(desc)
        if got != {("timeout.age", n, "differs")}:
            fails.append("timeout age on frame %d, %s: reported %s" % (n, desc, sorted(got)))
    return len(alts), fails


# ---------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="*", help="capture files or directories")
    ap.add_argument("--rocedump", default="rocedump")
    ap.add_argument("--tshark", default=None,
                    help="tshark binary (default: from PATH; empty: skip with 77)")
    ap.add_argument("--roce-port", type=int, action="append", default=[])
    ap.add_argument("--pmtu", type=int, default=PMTU,
                    help="path MTU for READ PSN spans, given to rocedump too (default 1024, the DUT's)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--truth-only", action="store_true",
                      help="print the truth per capture; do not run rocedump")
    mode.add_argument("--selftest", action="store_true",
                      help="prove that an altered rocedump event list is reported")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="per-stream breakdown and full frame lists")
    a = ap.parse_args()
    if a.verbose:
        FRAME_LIST_LIMIT[0] = None

    st_fail = []
    if a.selftest:
        st_fail = selftest_engine()
        for f in st_fail:
            print("SELFTEST FAIL: " + f)
        print("selftest: truth engine on %s" % ("hand-made packets: ok" if not st_fail else
                                               "hand-made packets: %d failures" % len(st_fail)))

    tshark = a.tshark if a.tshark is not None else shutil.which("tshark")
    if not tshark or not os.path.exists(tshark):
        print("SKIP: tshark not found")
        return 1 if st_fail else 77
    ports = roce_ports(a.roce_port)
    set_pmtu(a.pmtu)
    files, status = captures_or_status(a.captures)
    if files is None:
        return 1 if st_fail and status == 77 else status
    files = time_ordered(files)  # the truth in the order rocedump analyses: time order
    if not a.truth_only and not a.selftest and not rocedump_knows_events(a.rocedump):
        print("SKIP: %s --list-events lacks some of %s (no transport analyzer)"
              % (a.rocedump, " ".join(EVENTS)))
        return 77

    total_mism = 0
    st_alts = 0
    for path in files:
        try:
            pkts = parse_rows(run_tshark(tshark, path, ports), ports)
            ours = None if a.truth_only else run_rocedump(a.rocedump, path, ports)
        except (RuntimeError, OSError, ValueError) as e:
            print("error: %s: %s" % (path, e), file=sys.stderr)
            return 2
        truth = compute_truth(pkts)
        print_truth(path, truth, pkts, a.verbose)
        if a.truth_only:
            continue
        if a.selftest:
            k, fails = selftest_capture(pkts, truth, ours)
            st_alts += k
            st_fail += ["%s: %s" % (path, f) for f in fails]
            continue
        mism, stats = compare(pkts, truth, ours)
        print_comparison(path, mism, stats)
        total_mism += len(mism)

    if a.truth_only:
        return 0
    if a.selftest:
        for f in st_fail:
            print("SELFTEST FAIL: " + f)
        print("selftest: %d altered event lists over %d captures, %d failures"
              % (st_alts, len(files), len(st_fail)))
        return 1 if (st_fail or st_alts == 0) else 0
    print("transport truth: %d captures, %d mismatches" % (len(files), total_mism))
    return 1 if total_mism else 0


if __name__ == "__main__":
    sys.exit(main())
