#!/usr/bin/env python3
"""response_count.py: rocedump times every request that asks for a response (AckReq, READ, atomic)
and is answered in the capture. The requests are counted here from rocedump's per-frame JSON, on
their own: a request asking for a response, never resent, answered by a later frame of the other
direction (an ACK or atomic ACK of its PSN or a later one, or the READ response packet FIRST or
ONLY at its PSN or later). The summary's response_time_us.count must be that number (TAP).

usage: response_count.py ROCEDUMP CAPTURE...
"""
import json
import subprocess
import sys

READ_REQ, CMP_SWAP, FETCH_ADD = 0x0C, 0x13, 0x14
READ_FIRST, READ_ONLY, ACK, ATOMIC_ACK = 0x0D, 0x10, 0x11, 0x12


def later(a, b):
    """PSN a is b or after it (modulo 2^24)."""
    return ((a - b) & 0xFFFFFF) < 0x800000


def answered(frames):
    """The requests asking for a response that a later response covers, resends left out."""
    waiting, seen, resent, count = [], set(), set(), 0
    for f in frames:
        r = f.get("roce")
        if not r or r.get("transport") != "RC":
            continue
        op, psn = r["opcode"], r["psn"]
        if op < READ_FIRST or op in (CMP_SWAP, FETCH_ADD):  # a request
            if psn in seen:
                resent.add(psn)
            seen.add(psn)
            if r["ackreq"] or op in (READ_REQ, CMP_SWAP, FETCH_ADD):
                waiting.append(psn)
            continue
        is_ack = op in (ACK, ATOMIC_ACK) and r.get("aeth", {}).get("kind") == "ACK"
        if is_ack or op in (READ_FIRST, READ_ONLY):
            done = [p for p in waiting if later(psn, p)]
            count += sum(1 for p in done if p not in resent)
            waiting = [p for p in waiting if not later(psn, p)]
    return count, len(waiting)


def main():
    rocedump, captures = sys.argv[1], sys.argv[2:]
    print("1..%d" % len(captures))
    bad = 0
    for n, cap in enumerate(captures, 1):
        out = subprocess.run([rocedump, "-T", "json", "-r", cap], capture_output=True, text=True, check=True).stdout
        frames = [json.loads(line) for line in out.splitlines() if line.startswith('{"frame"')]
        want, unanswered = answered(frames)
        out = subprocess.run([rocedump, "-q", "-T", "json", "-r", cap], capture_output=True, text=True,
                             check=True).stdout
        rows = json.loads(out.splitlines()[-1])["streams"]["rows"]
        got = sum(r["response_time_us"]["count"] for r in rows if "response_time_us" in r)
        name = cap.rsplit("/", 1)[-1]
        if got == want and want > 0:
            print("ok %d - %s: %d requests answered, %d timed (%d unanswered at the end)" % (n, name, want, got,
                                                                                          unanswered))
        else:
            bad += 1
            print("not ok %d - %s: %d requests answered, %d timed" % (n, name, want, got))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
