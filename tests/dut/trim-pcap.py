#!/usr/bin/python3
"""rocedump DUT harness: cut a capture down to at most MAXBYTES, ending at an exchange boundary.

usage: trim-pcap.py [--events | --tail] MAXBYTES IN OUT     (or IN OUT MAXBYTES)
A file already small enough is copied unchanged.  Otherwise the packets are taken in timestamp order
(dumpcap's multi-interface pcapng is not in time order in the file) and the longest prefix that fits is
kept that ends just after an answer (positive RC ACK, ATOMIC ACKNOWLEDGE, READ response LAST/ONLY, UD
SEND) while no NAK is unresolved: the last request in the file is then answered.  Failing that, it ends
after any message end (SEND/WRITE LAST or ONLY), failing that anywhere; a boundary class is skipped when
its last fitting frame would leave more than 40 % of MAXBYTES unused (write_bw has few ACKs).
A NAK counts as resolved once its sender positively acknowledges (AETH syndrome < 0x20) a PSN at or
beyond the NAK's expected PSN.
--events (lossy scenarios): the kept part must contain the first complete recovery episode (the first
NAK, or else the first retransmitted request, up to the acknowledgement that resolves it).  If the
prefix up to there does not fit, the window starts later, just after an answer, as early as possible.
--tail (a peer that dies: what matters is at the end): the longest suffix that fits, starting just
after an answer.
The selection is written with `editcap -F <input format> -r IN OUT RANGES...`, so the kept packets are
byte-identical and a pcap stays a pcap.
Prints one line: kept/total packets, the window, the resulting size.
"""
import os, shutil, subprocess, sys

ANSWERS = {17, 18, 15, 16, 100, 101}           # ACK, ATOMIC_ACK, READ_RESP_LAST/ONLY, UD SEND(_IMM)
MSG_ENDS = {2, 3, 4, 5, 8, 9, 10, 11, 22, 23, 12, 19, 20}
REQUESTS = set(range(0, 13)) | {19, 20, 22, 23}
AETH_OPS = {13, 15, 16, 17, 18}
FIELDS = ["frame.number", "frame.time_epoch", "frame.cap_len", "infiniband.bth.opcode", "infiniband.bth.psn",
          "infiniband.aeth.syndrome", "ip.src", "ipv6.src", "infiniband.bth.destqp"]


def num(s):
    return int(s, 0) if s else None


def frames(f):
    out = subprocess.run(["tshark", "-r", f, "-T", "fields", "-E", "occurrence=l"] + sum((["-e", x] for x in FIELDS), []),
                         capture_output=True, text=True, check=True).stdout
    res = []
    for l in out.splitlines():
        c = (l.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
        res.append(dict(t=float(c[1]), n=int(c[0]), cap=int(c[2]), op=num(c[3]), psn=num(c[4]),
                        syn=num(c[5]), src=c[6] or c[7], qp=num(c[8])))
    res.sort(key=lambda x: (x["t"], x["n"]))
    return res


def ge(a, b):                                    # PSN a >= b, modulo 2^24
    return ((a - b) & 0xffffff) < 0x800000


def annotate(fr):
    """per frame: cls (0 answer / 1 message end / 2 other; while a NAK is unresolved answers count as 1)
    and the first recovery episode [first index, resolving index, first-retransmission index, src, psn]"""
    pending = {}; seen = set(); nak = None; retx = None
    for i, x in enumerate(fr):
        op, syn, key = x["op"], x["syn"], (x["src"], x["qp"])
        if op in AETH_OPS and syn is not None:
            if 0x60 <= syn <= 0x7f:
                pending[key] = x["psn"]
                if nak is None: nak = [i, None, None, x["src"], x["psn"]]
            elif syn < 0x20:
                if key in pending and ge(x["psn"], pending[key]): del pending[key]
                for e in (nak, retx):
                    if e and e[1] is None and e[2] is not None and e[3] != x["src"] and ge(x["psn"], e[4]):
                        e[1] = i
        if op in REQUESTS and x["psn"] is not None:
            k = (x["src"], x["qp"], op, x["psn"])
            if nak and nak[2] is None and x["src"] != nak[3] and x["psn"] == nak[4] and i > nak[0]:
                nak[2] = i; nak[3] = x["src"]          # from here on: resolved by an ACK from the NAK's sender
            if k in seen and retx is None: retx = [i, None, i, x["src"], x["psn"]]
            seen.add(k)
        neg = op in AETH_OPS and syn is not None and syn >= 0x20
        x["cls"] = 2 if neg else (1 if pending else 0) if op in ANSWERS else 1 if op in MSG_ENDS else 2
    if nak and nak[2] is not None:               # episode keys: the ACK must come from the other side
        nak[3] = fr[nak[0]]["src"]; nak[1] = None
        for i in range(nak[2], len(fr)):
            x = fr[i]
            if x["op"] in AETH_OPS and x["syn"] is not None and x["syn"] < 0x20 and x["src"] == nak[3] and ge(x["psn"], nak[4]):
                nak[1] = i; break
        return nak
    return retx if retx else None


def rec_size(x, pcapng):
    return (32 + (x["cap"] + 3) // 4 * 4) if pcapng else (16 + x["cap"])


def pick_end(fr, start, budget, pcapng, min_end=0):
    """largest good cut index >= min_end for the window starting at index start, or None"""
    est = 2048 if pcapng else 24; best = {0: None, 1: None, 2: None}; used = {}
    for i in range(start, len(fr)):
        est += rec_size(fr[i], pcapng)
        if est > budget: break
        if i < min_end: continue
        for c in range(fr[i]["cls"], 3): best[c] = i; used[c] = est
    for c in range(3):
        if best[c] is not None and (used[c] >= 0.6 * budget or c == 2 or best[c + 1 if c < 2 else 2] is None):
            return best[c]
    return None


def ranges(nums):
    nums = sorted(nums); out = []; a = b = nums[0]
    for n in nums[1:]:
        if n == b + 1: b = n
        else: out.append((a, b)); a = b = n
    out.append((a, b))
    return ["%d-%d" % r if r[0] != r[1] else "%d" % r[0] for r in out]


def tail_start(fr, budget, pcapng):
    """the earliest index, just after an answer, from which the rest of the file fits budget"""
    est = 2048 if pcapng else 24
    start = len(fr)
    for i in range(len(fr) - 1, 0, -1):
        est += rec_size(fr[i], pcapng)
        if est > budget: break
        if fr[i - 1]["cls"] == 0: start = i
    return start if start < len(fr) else len(fr) - 1


def main(src, dst, maxbytes, events, tail=False):
    size = os.path.getsize(src)
    fr = frames(src)
    if size <= maxbytes:
        shutil.copyfile(src, dst)
        print("%s: %d packets, %d bytes: copied whole" % (os.path.basename(dst), len(fr), size)); return
    magic = open(src, "rb").read(4)
    pcapng = magic == b"\x0a\x0d\x0d\x0a"
    # keep the input's file format (editcap writes pcapng by default)
    fmt = "pcapng" if pcapng else "nsecpcap" if magic in (b"\xa1\xb2\x3c\x4d", b"\x4d\x3c\xb2\xa1") else "pcap"
    ep = annotate(fr)
    budget = maxbytes
    while True:
        start, end, note = 0, None, ""
        if events and ep:
            # prefer: from the start through the resolving ACK; else from the start through the first
            # retransmission; else a later window (starting just after an answer) through either
            for goal, what in ((ep[1], "resolved"), (ep[2], "retransmitted, resolving ACK not kept")):
                if goal is None: continue
                end = pick_end(fr, 0, budget, pcapng, goal)
                if end is not None: break
            if end is None:
                for goal, what in ((ep[1], "resolved"), (ep[2], "retransmitted, resolving ACK not kept")):
                    if goal is None: continue
                    for s in range(1, ep[0] + 1):
                        if fr[s - 1]["cls"] != 0: continue
                        end = pick_end(fr, s, budget, pcapng, goal)
                        if end is not None: start = s; break
                    if end is not None: break
            note = ", recovery episode from frame %d: %s" % (fr[ep[0]]["n"], what) if end is not None else \
                ", WARNING: recovery episode does not fit"
        elif events:
            note = ", WARNING: no recovery episode in the input"
        if tail:
            start, end, note = tail_start(fr, budget, pcapng), len(fr) - 1, ", the end of the capture"
        if end is None: end = pick_end(fr, 0, budget, pcapng)
        keep = [x["n"] for x in fr[start:end + 1]]
        subprocess.run(["editcap", "-F", fmt, "-r", src, dst] + ranges(keep), check=True)
        got = os.path.getsize(dst)
        if got <= maxbytes: break
        budget -= got - maxbytes + 64          # estimate was short: shrink and redo
    print("%s: kept %d of %d packets (frames %d..%d in time order, last opcode %s%s), %d bytes (from %d)" % (
        os.path.basename(dst), len(keep), len(fr), fr[start]["n"], fr[end]["n"], fr[end]["op"], note, got, size))


if __name__ == "__main__":
    a = sys.argv[1:]; ev = "--events" in a; tl = "--tail" in a; a = [x for x in a if x not in ("--events", "--tail")]
    if len(a) != 3 or (ev and tl): sys.exit(__doc__)
    if a[0].isdigit(): a = a[1:] + a[:1]
    main(a[0], a[1], int(a[2]), ev, tl)
