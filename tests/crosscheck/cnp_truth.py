#!/usr/bin/env python3
"""cnp_truth.py: the frames that must carry cnp.missing, and the CE marks still pending at the
end, worked out from tshark's fields alone by the rule rocedump documents, vs rocedump's.

The rule (docs/congestion.md): per stream (source, destination, destination QP), a CE-marked
packet is due a CNP when it lies more than --cnp-interval-us (50) after the last CNP seen or due
on the stream; a CNP from the destination back to the source answers the oldest due mark still
waiting (here: the one source -> destination stream with a CE mark in the timeout before it).
A due mark with no CNP within --cnp-timeout-us (1000) is missing: noted on the first frame (of
any kind) whose time is past mark + timeout, naming the CE frame. Marks whose deadline the
capture ends before are pending. Linux Soft-RoCE sends no CNPs, so on its captures every due
mark is missing or pending: one per interval of uncovered marks.

    cnp_truth.py --rocedump PATH --tshark PATH [--selftest] DIR|FILE...

--selftest drops one expected cnp.missing per capture and requires every capture with any to
fail. Exit status: 0 all agree, 1 a difference, 2 a tool failing, 77 (skip) without tshark, or
without CE marks in the captures."""
import json
import subprocess
import sys

from xcommon import rocedump_json, tshark_fields, tshark_main

INTERVAL_NS = 50000
TIMEOUT_NS = 1000000
FIELDS = ["frame.number", "frame.time_epoch", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
          "ip.dsfield.ecn", "ipv6.tclass", "infiniband.bth.opcode", "infiniband.bth.destqp"]


def ts_ns(text):
    sec, _, frac = text.partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def model(rows):
    """(frame -> [CE frames missing there], CE marks pending at the end, CE marks in all)."""
    cover = {}      # stream -> time of the last CNP seen or due
    last_ce = {}    # stream -> time of its newest CE mark
    waiting = []    # [ce time, ce frame, stream], due marks in time order
    missing = {}
    marks = 0
    for r in rows:
        no, t = int(r["frame.number"][0]), ts_ns(r["frame.time_epoch"][0])
        for d in [d for d in waiting if t - d[0] > TIMEOUT_NS]:
            missing.setdefault(no, []).append(d[1])
            waiting.remove(d)
        if not r["infiniband.bth.opcode"] or not r["infiniband.bth.destqp"]:
            continue
        src = (r["ip.src"] or r["ipv6.src"] or [""])[-1]
        dst = (r["ip.dst"] or r["ipv6.dst"] or [""])[-1]
        if not src:
            continue
        op, qp = int(r["infiniband.bth.opcode"][-1], 0), int(r["infiniband.bth.destqp"][-1], 0)
        if op in (0x80, 0x81):  # a CNP dst -> src answers the one src -> dst stream marked lately
            cands = [s for s in last_ce if s[0] == dst and s[1] == src and t - last_ce[s] <= TIMEOUT_NS]
            if len(cands) == 1:
                s = cands[0]
                mine = [d for d in waiting if d[2] == s and d[0] <= t]
                if mine:
                    waiting.remove(mine[0])
                cover[s] = t
            continue
        if r["ip.dsfield.ecn"]:
            ecn = int(r["ip.dsfield.ecn"][-1], 0)
        elif r["ipv6.tclass"]:
            ecn = int(r["ipv6.tclass"][-1], 0) & 3
        else:
            continue
        if ecn != 3:
            continue
        s = (src, dst, qp)
        marks += 1
        last_ce[s] = t
        if s not in cover or t - cover[s] > INTERVAL_NS:
            cover[s] = t
            waiting.append([t, no, s])
    return missing, len(waiting), marks


def pending_of(rocedump, path):
    res = subprocess.run([rocedump, "-q", "--summary", "-T", "json", "-r", path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    if res.returncode not in (0, 1):
        raise RuntimeError("rocedump --summary failed on %s" % path)
    for line in res.stdout.decode().splitlines():
        obj = json.loads(line)
        if "streams" in obj:
            return sum(row["congestion"]["cnp_pending"] for row in obj["streams"]["rows"])
    return 0


def check(rocedump, tshark, path, selftest, counts):
    rows = tshark_fields(tshark, path, FIELDS, display_filter=None)
    want, pending, marks = model(rows)
    if not marks:
        return 0, None, 0
    if selftest and want:
        first = min(want)
        want[first] = want[first][1:]
        if not want[first]:
            del want[first]
    got = {}
    for no, obj in rocedump_json(rocedump, path).items():
        ce = [f["ref_frame"] for f in obj.get("findings", []) if f["event"] == "cnp.missing"]
        if ce:
            got[no] = ce
        elif "cnp.missing" in obj["events"]:
            return marks, "frame %d: cnp.missing without its finding" % no, 0
    counts[0] += sum(len(v) for v in want.values())
    counts[1] += pending
    for no in sorted(set(want) | set(got)):
        if sorted(want.get(no, [])) != sorted(got.get(no, [])):
            return marks, "frame %d: cnp.missing for CE frames %s expected, rocedump %s" % (
                no, sorted(want.get(no, [])), sorted(got.get(no, []))), 0
    p = pending_of(rocedump, path)
    if p != pending:
        return marks, "%d CE marks pending at the end expected, rocedump %d" % (pending, p), 0
    return marks, None, 0


def main():
    counts = [0, 0]

    def one(args, path):
        before = counts[0]
        n, diff, _x = check(args.rocedump, args.tshark, path, args.selftest, counts)
        return n, diff, counts[0] > before or (args.selftest and diff)

    def summary(marks, _captures, bad):
        return "%d CE marks: %d cnp.missing, %d pending, %s" % (
            marks, counts[0], counts[1], "agree" if not bad else "%d captures differ" % bad)

    return tshark_main(__doc__, one, "CE marks", "cnp.missing", summary)


if __name__ == "__main__":
    sys.exit(main())
