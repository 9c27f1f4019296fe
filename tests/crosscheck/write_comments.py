#!/usr/bin/env python3
"""write_comments.py: rocedump -w against rocedump itself and against tshark.

For every capture below the directories given: rocedump -w OUT -r CAPTURE writes OUT (pcapng);
rocedump -r OUT must print what rocedump -r CAPTURE prints (-vv -e: every field of every frame,
events included), and tshark must read OUT with each frame's comment ("rocedump: " and the events
between the brackets of the frame's text line) on exactly the frames that have events, after
the comments the frame had in CAPTURE.

    write_comments.py --rocedump PATH --tshark PATH [--selftest] DIR|FILE...

--selftest drops the comment of one frame per capture from what is expected and requires every
capture with events to fail. Exit status: 0 all agree, 1 a difference, 2 usage or a tool failing,
77 (skip) without tshark or captures."""
import os
import re
import subprocess
import sys
import tempfile

from xcommon import run_checks, time_ordered, tshark_check_args, tshark_prefix


def run(cmd, stdin=None):
    p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def events_of(line):
    """The events between the brackets ending a text line, or ''."""
    if not line.endswith("]") or " [" not in line:
        return ""
    return line[line.rindex(" [") + 2:-1]


def comments(tshark, path):
    """tshark's frame.comment of every frame of path, read on standard input (tshark runs as
    another user when we are root, who may not reach the file)."""
    with open(path, "rb") as f:
        rc, fields, err = run(tshark_prefix(tshark) + ["-r", "-", "-T", "fields", "-e", "frame.comment"], stdin=f)
    if rc != 0:
        raise RuntimeError("tshark failed (%d) on %s: %s" % (rc, path, err.strip()[:200]))
    return fields.splitlines()


def check(rocedump, tshark, path, tmp, selftest):
    """(frames, first difference or None, frames with events)."""
    out = os.path.join(tmp, "w.pcapng")
    rc, _o, err = run([rocedump, "-w", out, "-r", path])
    # -w keeps each frame's capture interface, so copies told apart by it are found again
    rc0, text0, _e = run([rocedump, "-vv", "-e", "-r", path])
    if rc != rc0:
        return 0, "rocedump -w exits %d, -r alone %d (%s)" % (rc, rc0, err.strip()), 0
    _rc, text1, _e = run([rocedump, "-vv", "-e", "-r", out])
    # -e names a pcapng's capture interface ("if 0", "if 1 (eth1)"): -w numbers them in the order
    # they first appear, in one section
    no_iface = re.compile(r"(?m)^(\S+ )if \d+(?: \([^)]*\))? ")
    text0, text1 = no_iface.sub(r"\1", text0), no_iface.sub(r"\1", text1)
    if text1 != text0:
        a, b = text0.splitlines(), text1.splitlines()
        n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return 0, "read back, line %d differs: %r / %r" % (n + 1, a[n] if n < len(a) else None,
                                                            b[n] if n < len(b) else None), 0
    _rc, plain, _e = run([rocedump, "-r", path])
    want = [("rocedump: " + e) if e else "" for e in (events_of(l) for l in plain.splitlines())]
    with_events = sum(1 for w in want if w)
    if selftest and with_events:
        i = next(i for i, w in enumerate(want) if w)
        want[i] = ""
    got = comments(tshark, out)
    own = comments(tshark, path) if path.endswith(".pcapng") else want  # pcap files have no comments
    # the input's own comments are kept, rocedump's comes after them (tshark joins them by commas)
    if own is not want and len(own) == len(want):
        want = [",".join(c for c in (o, w) if c) for o, w in zip(own, want)]
    if len(got) != len(want):
        return 0, "tshark reads %d frames, rocedump printed %d" % (len(got), len(want)), with_events
    for n, (g, w) in enumerate(zip(got, want), 1):
        if g != w:
            return n - 1, "frame %d: comment %r, want %r" % (n, g[:120], w[:120]), with_events
    return len(want), None, with_events


def main():
    args, files, status = tshark_check_args(__doc__)
    if status is not None:
        return status
    # -w writes a file of several interfaces in the order analysed, time order: its frames are
    # numbered anew, so the comparison reads such a file already in time order
    files = time_ordered(files)
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # tshark runs as another user when we are root

        def one(path, _variant):
            n, diff, with_events = check(args.rocedump, args.tshark, path, tmp, args.selftest)
            return n, diff, 1 if with_events else 0  # captures with events

        status, frames, bad, caught_want = run_checks(files, [""], one, args.selftest)
    if status is not None:
        return status
    if args.selftest:
        print("selftest: %d of %d captures with events caught" % (bad, caught_want))
        return 0 if bad >= caught_want and caught_want else 1
    print("%d captures: %d frames written, read back and commented alike, %d differ" % (len(files), frames, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
