#!/usr/bin/env python3
"""macc_tshark.py: every MAC control field rocedump decodes (PFC and PAUSE) against tshark's.

For every frame tshark decodes as MAC control (EtherType 0x8808) in every capture below the
directories given: macc.opcode, macc.cbfc.enbv, macc.cbfc.pause_time.c0..c7 and macc.pause_time
must equal the opcode, enbv and quanta of rocedump -T json's "pfc", "pause" or "mac_control"
object, and tshark's own complaints must match rocedump's malformed reasons: "destination address
must be 01-80-C2-00-00-01" (macc.dst_address_invalid) is "dst", "8 MSbs of ENBV must be 0"
(macc.cbfc.enbv.not_zero) is "enbv", a malformed-packet exception is "short". rocedump's other
reasons (an unknown opcode to the PFC address, a pause time on a disabled class) are checked
against the frame's bytes as tshark shows them. Known difference: tshark shows no pause time of a
PFC frame too short for all eight; rocedump shows those captured (checked to be a prefix).

    macc_tshark.py --rocedump PATH --tshark PATH [--selftest] DIR|FILE...

--selftest changes one of rocedump's values on every MAC control frame and requires each capture
that has any to fail. Exit status: 0 all agree, 1 a difference, 2 a tool failing, 77 (skip)
without tshark or captures."""
import sys

from xcommon import rocedump_json, tshark_fields, tshark_main

PFC_ADDR = "01:80:c2:00:00:01"
FIELDS = (["frame.number", "eth.dst", "macc.opcode", "macc.cbfc.enbv"] +
          ["macc.cbfc.pause_time.c%d" % i for i in range(8)] +
          ["macc.pause_time", "macc.dst_address_invalid", "macc.cbfc.enbv.not_zero", "_ws.malformed"])


def num(vals):
    """tshark's one value (decimal or 0x hex), or None."""
    return int(vals[0], 0) if vals else None


def ours(obj):
    """(opcode, enbv, quanta list, malformed reasons) from rocedump's frame object, or None."""
    for key in ("pfc", "pause", "mac_control"):
        if key in obj:
            m = obj[key]
            if key == "pfc":
                return 0x0101, m["enbv"], list(m["quanta"]), set(m.get("malformed", []))
            if key == "pause":
                return 0x0001, None, [m["quanta"]], set(m.get("malformed", []))
            return m.get("opcode"), None, [], set(m.get("malformed", []))
    return None


def check(rocedump, tshark, path, selftest):
    """(frames compared, first difference or None, 0)."""
    rows = tshark_fields(tshark, path, FIELDS, display_filter="macc")
    if not rows:
        return 0, None, 0
    frames = rocedump_json(rocedump, path)
    n = 0
    for r in rows:
        no = num(r["frame.number"])
        obj = frames.get(no)
        if obj is None:
            return n, "frame %d: rocedump printed nothing" % no, 0
        got = ours(obj)
        if got is None:
            return n, "frame %d: tshark decodes MAC control, rocedump does not" % no, 0
        opcode, enbv, quanta, bad = got
        if selftest:  # one of ours changed: an opcode, an enable vector or a pause time
            if quanta:
                quanta[-1] ^= 1
            else:
                opcode ^= 0x100
        n += 1
        t_op = num(r["macc.opcode"])
        if t_op != opcode:
            return n, "frame %d: opcode tshark 0x%04x, rocedump %s" % (no, t_op, opcode), 0
        malformed_t = bool(r["_ws.malformed"])
        if t_op == 0x0101:
            t_enbv = num(r["macc.cbfc.enbv"])
            if t_enbv is not None and t_enbv != enbv:
                return n, "frame %d: enbv tshark 0x%04x, rocedump %s" % (no, t_enbv, enbv), 0
            t_q = [num(r["macc.cbfc.pause_time.c%d" % i]) for i in range(8)]
            if all(q is not None for q in t_q):
                if t_q != quanta:
                    return n, "frame %d: pause times tshark %s, rocedump %s" % (no, t_q, quanta), 0
            elif not malformed_t or any(q is not None for q in t_q):
                return n, "frame %d: tshark shows pause times %s" % (no, t_q), 0
            elif len(quanta) >= 8:
                return n, "frame %d: rocedump shows 8 pause times of a short frame" % no, 0
            if t_enbv is not None and ("enbv" in bad) != bool(r["macc.cbfc.enbv.not_zero"]):
                return n, "frame %d: enbv high bits: tshark %s, rocedump %s" % (
                    no, bool(r["macc.cbfc.enbv.not_zero"]), sorted(bad)), 0
            want_time = any(q and not (enbv >> i & 1) for i, q in enumerate(quanta))
            if ("time_disabled_class" in bad) != want_time:
                return n, "frame %d: time on a disabled class: %s, rocedump %s" % (no, want_time, sorted(bad)), 0
        elif t_op == 0x0001:
            t_p = num(r["macc.pause_time"])
            if t_p is not None and [t_p] != quanta:
                return n, "frame %d: pause time tshark %d, rocedump %s" % (no, t_p, quanta), 0
            if t_p is None and (not malformed_t or quanta):
                return n, "frame %d: pause time tshark none, rocedump %s" % (no, quanta), 0
        if t_op in (0x0001, 0x0101):
            if ("dst" in bad) != bool(r["macc.dst_address_invalid"]):
                return n, "frame %d: destination: tshark invalid %s, rocedump %s" % (
                    no, bool(r["macc.dst_address_invalid"]), sorted(bad)), 0
            if ("short" in bad) != malformed_t:
                return n, "frame %d: short: tshark malformed %s, rocedump %s" % (no, malformed_t, sorted(bad)), 0
        else:
            to_pfc = (r["eth.dst"] or [""])[0].lower() == PFC_ADDR
            if ("opcode" in bad) != to_pfc:
                return n, "frame %d: opcode 0x%04x to %s: rocedump %s" % (no, t_op, r["eth.dst"], sorted(bad)), 0
    return n, None, 0


def main():
    def one(args, path):
        n, diff, _x = check(args.rocedump, args.tshark, path, args.selftest)
        return n, diff, n > 0

    def summary(count, captures, bad):
        return "%d MAC control frames in %d captures: %s" % (
            count, captures, "agree" if not bad else "%d captures differ" % bad)

    return tshark_main(__doc__, one, "MAC control frames", "MAC control frames", summary)


if __name__ == "__main__":
    sys.exit(main())
