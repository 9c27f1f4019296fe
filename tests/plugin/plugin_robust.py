#!/usr/bin/python3
"""The plugin under damaged captures: every capture mangled by `editcap -E 0.02` (several seeds)
and cut at several snapshot lengths, through tshark with roce.so (its AddressSanitizer build in
the sanitizer builds, libasan preloaded), full trees (-V), the expert infos and the
`-z roce,qp` table: tshark must exit 0, print no sanitizer report, no dissector bug and no
malformed-packet exception of the RoCE protocol.

Usage: plugin_robust.py --plugin roce.so [--tshark PATH] [--seeds N] CAPTURE|DIR ...
Exit status: 0 clean, 1 a failure (printed), 2 a tool failed, 77 skipped.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcommon import Tshark, captures_or_status, sanitizer_report  # noqa: E402

SNAPLENS = [14, 18, 30, 42, 50, 58, 62, 66, 70, 78, 90, 120, 200]


def problem(status, out, err):
    rep = sanitizer_report(err)
    if rep:
        return rep
    if status != 0:
        return "tshark exit %d: %s" % (status, err.strip().splitlines()[-1:] if err.strip() else "")
    for text in (out, err):
        for line in text.splitlines():
            if "Dissector bug, protocol RoCE" in line or "Malformed Packet: RoCE" in line or \
                    ("[Malformed Packet" in line and "RoCE" in line):
                return line.strip()
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--tshark", default=shutil.which("tshark") or "")
    ap.add_argument("--editcap", default=shutil.which("editcap") or "")
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    if not args.tshark or not args.editcap or not os.path.exists(args.plugin):
        print("SKIP: no tshark, editcap or plugin")
        return 77
    files, status = captures_or_status(args.paths)
    if status is not None:
        return status
    ts = Tshark(args.tshark, args.plugin)
    tmp = tempfile.mkdtemp()
    runs = failures = 0
    try:
        # all captures in one pcapng (an interface per link type), then each variant of it
        merged = os.path.join(tmp, "all.pcapng")
        mergecap = os.path.join(os.path.dirname(args.editcap), "mergecap")
        res = subprocess.run([mergecap, "-a", "-F", "pcapng", "-w", merged] + files,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if res.returncode != 0:
            raise RuntimeError("mergecap: %s" % res.stderr.decode())
        variants = [["-E", "0.02", "--seed", str(seed)] for seed in range(1, args.seeds + 1)]
        variants += [["-s", str(n)] for n in SNAPLENS]
        for v in variants:
            out = os.path.join(tmp, "m.pcapng")
            res = subprocess.run([args.editcap, "-F", "pcapng"] + v + [merged, out],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if res.returncode != 0:
                raise RuntimeError("editcap %s: %s" % (" ".join(v), res.stderr.decode()))
            # the whole RoCE tree of every frame (-V -O roce), the expert infos, the QP table
            st, o, e = ts.run(["-r", "-", "-n", "-V", "-O", "roce", "-z", "roce,qp", "-z", "expert,note"], path=out)
            runs += 1
            p = problem(st, o, e)
            if p:
                failures += 1
                print("FAIL editcap %s: %s" % (" ".join(v), p))
            elif "RoCE Analysis" not in o or "RoCE Queue Pairs" not in o:
                failures += 1
                print("FAIL editcap %s: no RoCE tree or table in the output" % " ".join(v))
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    finally:
        ts.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d tshark runs over the %d captures merged (%d seeds of editcap -E 0.02, %d snap lengths)%s: %d failed"
          % (runs, len(files), args.seeds, len(SNAPLENS), " with the ASan plugin" if ts.asan else "", failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
