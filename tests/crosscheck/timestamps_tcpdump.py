#!/usr/bin/env python3
"""timestamps_tcpdump.py: rocedump's time stamps against tcpdump's, line by line.

For every capture below the directories given, and for each of tcpdump's time stamp styles (none,
-t, -tt, -ttt, -tttt, -ttttt) in microseconds and in nanoseconds (--nano), rocedump -r and
TZ=UTC tcpdump -n -r must print the same number of lines, each starting with the same time stamp.
The rest of the line differs (tcpdump does not decode RoCE) and is not compared; tcpdump's -#
tells its packets' first lines from the lines it adds (hex dumps, a tunnel's inner packet). tcpdump prints
"[Error converting time]" for times before 1970 and past 2038 (rocedump prints them): such lines
are counted and skipped.

    timestamps_tcpdump.py --rocedump PATH [--tcpdump PATH] [--selftest] DIR|FILE...

--selftest shifts each of rocedump's time stamps by one unit of the last digit and requires every
capture to fail. Exit status: 0 all agree, 1 a difference, 2 usage or a tool failing, 77 (skip)
without tcpdump or without captures."""
import os
import re
import subprocess
import sys

from xcommon import run_checks, tcpdump_check_args

STYLES = ["", "-t", "-tt", "-ttt", "-tttt", "-ttttt"]
NUMBERED = re.compile(r"^ *(\d+)  (.*)$")
FRAC = r"\.\d{6}(?:\d{3})?"
STAMP = {
    "": re.compile(r"\d\d:\d\d:\d\d" + FRAC + " "),
    "-t": re.compile(r""),
    "-tt": re.compile(r"\d+" + FRAC + " "),
    "-ttt": re.compile(r"[ -]\d\d+:\d\d:\d\d" + FRAC + " "),
    "-tttt": re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d" + FRAC + " "),
    "-ttttt": re.compile(r"[ -]\d\d+:\d\d:\d\d" + FRAC + " "),
}


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
    return p.returncode, p.stdout.decode("utf-8", "replace").splitlines()


def shift_last_digit(stamp):
    """The time stamp with its last digit moved by one (for --selftest)."""
    i = len(stamp.rstrip(" ")) - 1
    d = (int(stamp[i]) + 1) % 10
    return stamp[:i] + str(d) + stamp[i + 1:]


def compare(rocedump, tcpdump, path, style, nano, selftest):
    """(lines compared, first difference or None, lines skipped)."""
    prec = ["--nano"] if nano else []
    opts = [style] if style else []
    rc, ours = run([rocedump] + opts + prec + ["-r", path])
    if rc not in (0, 2):
        raise RuntimeError("rocedump %s failed (%d) on %s" % (" ".join(opts + prec), rc, path))
    env = dict(os.environ, TZ="UTC")
    rc, lines = run([tcpdump, "-n", "-#"] + opts + prec + ["-r", path], env=env)
    # -# numbers each packet's first line ("%5u  "); the others (hex dumps, a tunnel's inner
    # packet) are the same packet's
    theirs = []
    for line in lines:
        m = NUMBERED.match(line)
        if m and int(m.group(1)) == len(theirs) + 1:
            theirs.append(m.group(2))
    if len(ours) != len(theirs):
        return 0, "%d lines against tcpdump's %d" % (len(ours), len(theirs)), 0
    pattern = STAMP[style]
    compared = skipped = 0
    for n, (a, b) in enumerate(zip(ours, theirs), 1):
        if "[Error converting time]" in b:
            skipped += 1
            continue
        m = pattern.match(b)
        if not m:
            return compared, "line %d: tcpdump's has no time stamp: %r" % (n, b[:60]), skipped
        want = m.group(0)
        got = a[:len(want)]
        if selftest and want:
            got = shift_last_digit(got)
        if got != want:
            return compared, "line %d: %r against tcpdump's %r" % (n, got, want), skipped
        if not want and pattern.match(a) is not None and STAMP[""].match(a):
            return compared, "line %d: a time stamp under -t: %r" % (n, a[:30]), skipped
        compared += 1
    return compared, None, skipped


def main():
    args, files, status = tcpdump_check_args(__doc__)
    if status is not None:
        return status
    variants = [(nano, style) for nano in (False, True) for style in STYLES]
    status, compared, bad, skipped = run_checks(
        files, variants, lambda path, v: compare(args.rocedump, args.tcpdump, path, v[1], v[0], args.selftest),
        args.selftest, lambda v: (v[1] or "(default)") + (" --nano" if v[0] else ""))
    if status is not None:
        return status
    runs = len(files) * len(STYLES) * 2
    if args.selftest:
        # -t prints no time stamp, so there is nothing to shift there
        want = len(files) * (len(STYLES) - 1) * 2
        print("selftest: %d of %d shifted runs caught (%d captures)" % (bad, want, len(files)))
        return 0 if bad >= want else 1
    print("%d runs over %d captures: %d lines compared, %d skipped (before 1970 or past 2038), %d runs differ"
          % (runs, len(files), compared, skipped, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
