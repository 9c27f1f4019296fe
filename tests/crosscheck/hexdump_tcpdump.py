#!/usr/bin/env python3
"""hexdump_tcpdump.py: rocedump's -x, -xx, -X, -XX and -# against tcpdump's, byte for byte.

For every capture below the directories given and each of -x, -xx, -X, -XX (with -#), every
frame's hex dump lines from rocedump must equal tcpdump's, and every line must start with the
frame's number as tcpdump's -# prints it. tcpdump prints its own hex dump of frames it cannot
decode (RoCEv1's EtherType, say) before the one asked for: of its dump lines for a frame, the
last run from offset 0x0000 is the one compared.

    hexdump_tcpdump.py --rocedump PATH [--tcpdump PATH] [--selftest] DIR|FILE...

--selftest changes one hex digit of each of rocedump's dumps and requires every run with a dump
to fail. Exit status: 0 all agree, 1 a difference, 2 usage or a tool failing, 77 (skip) without
tcpdump or without captures."""
import os
import re
import sys

from timestamps_tcpdump import NUMBERED, run
from xcommon import run_checks, tcpdump_check_args

MODES = ["-x", "-xx", "-X", "-XX"]
DUMP = re.compile(r"^\t0x([0-9a-f]{4,}): ")


def frames_of(lines, numbered):
    """[(first line, [dump lines])] per frame. numbered: the first lines carry -#'s number, and a
    frame's other lines (tcpdump's continuations) are not its dump."""
    out = []
    for line in lines:
        m = NUMBERED.match(line) if numbered else None
        if m and int(m.group(1)) == len(out) + 1:
            out.append((line, []))
        elif DUMP.match(line) and out:
            out[-1][1].append(line)
    return out


def last_run(dump):
    """The last run of dump lines that starts at offset 0x0000."""
    starts = [i for i, line in enumerate(dump) if DUMP.match(line).group(1) == "0000"]
    return dump[starts[-1]:] if starts else dump


def corrupt(dump):
    """The dump with its first hex digit after the offset changed (for --selftest)."""
    if not dump:
        return dump
    line = dump[0]
    i = line.index(":  ") + 3
    d = "0" if line[i] != "0" else "1"
    return [line[:i] + d + line[i + 1:]] + dump[1:]


def compare(rocedump, tcpdump, path, mode, selftest):
    """(frames compared, first difference or None, whether any dump was compared)."""
    rc, ours = run([rocedump, "-#", mode, "-r", path])
    if rc not in (0, 2):
        raise RuntimeError("rocedump -# %s failed (%d) on %s" % (mode, rc, path))
    env = dict(os.environ, TZ="UTC")
    _rc, theirs = run([tcpdump, "-n", "-#", mode, "-r", path], env=env)
    a, b = frames_of(ours, True), frames_of(theirs, True)
    if len(a) != len(b):
        return 0, "%d frames against tcpdump's %d" % (len(a), len(b)), False
    dumped = False
    for n, ((line_a, dump_a), (_line_b, dump_b)) in enumerate(zip(a, b), 1):
        if not NUMBERED.match(line_a) or int(NUMBERED.match(line_a).group(1)) != n:
            return n - 1, "frame %d: no -# number: %r" % (n, line_a[:40]), dumped
        want = last_run(dump_b)
        got = corrupt(dump_a) if selftest else dump_a
        dumped = dumped or bool(want)
        if got != want:
            return n - 1, "frame %d: %d dump lines against tcpdump's %d; first %r / %r" % (
                n, len(got), len(want), got[0] if got else None, want[0] if want else None), dumped
    return len(a), None, dumped


def main():
    args, files, status = tcpdump_check_args(__doc__)
    if status is not None:
        return status
    status, frames, bad, with_dump = run_checks(
        files, MODES, lambda path, mode: compare(args.rocedump, args.tcpdump, path, mode, args.selftest),
        args.selftest)
    if status is not None:
        return status
    if args.selftest:
        print("selftest: %d of %d runs with a dump caught" % (bad, with_dump))
        return 0 if bad >= with_dump and with_dump else 1
    print("%d runs over %d captures: %d frames compared, %d runs differ" % (len(files) * len(MODES), len(files),
                                                                           frames, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
