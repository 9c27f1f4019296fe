#!/usr/bin/python3
"""The configuration profile "RoCE" (plugin/profile/) in tshark with the plugin: copied as a
personal profile under the test's HOME (~/.config/wireshark/profiles/RoCE), `tshark -C RoCE
--color` on a lossy capture must read its colouring rules and preferences without a warning on
standard error (a rule that does not compile, a preference unknown, is only a warning with exit
status 0), colour the frames by its rules (Bad RoCE, RoCE), and with its heuristic_protos
(RPC-over-RDMA's heuristic off) `tshark -2` must report no RPCoRDMA dissector bug.

Usage: plugin_profile.py --plugin roce.so --profile DIR [--tshark PATH] CAPTURES-DIR
Exit status: 0 pass, 1 a failure (printed), 2 a tool failed, 77 skipped.
"""
import collections
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcommon import Tshark, parse_args  # noqa: E402

CAPTURE = "rxe/rc_pingpong_loss.pcap"


def install_profile(ts, profile):
    """The profile as a personal one of the unprivileged user (HOME is the Tshark's directory)."""
    dst = os.path.join(ts.dir, ".config", "wireshark", "profiles", "RoCE")
    shutil.copytree(profile, dst)
    for root, dirs, files in os.walk(os.path.join(ts.dir, ".config")):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)


def main():
    args, status = parse_args(__doc__, lambda ap: ap.add_argument("--profile", required=True))
    if status is not None:
        return status
    ts = Tshark(args.tshark, args.plugin)
    failures = []
    try:
        install_profile(ts, args.profile)
        path = os.path.join(args.captures, CAPTURE)
        status, out, err = ts.run(["-C", "RoCE", "--color", "-r", "-", "-T", "fields",
                                   "-e", "frame.coloring_rule.name"], path=path)
        if status != 0 or err.strip():
            failures.append("tshark -C RoCE --color: exit %d, stderr: %s" % (status, err.strip()[:2000]))
        rules = collections.Counter(line.strip() for line in out.splitlines())
        if not rules["Bad RoCE"] or not rules["RoCE"]:
            failures.append("colouring rules applied: %s (want Bad RoCE and RoCE)" % dict(rules))
        status, out, err = ts.run(["-C", "RoCE", "-2", "-r", ts.readable_copy(path)])
        bugs = (out + err).count("Dissector bug, protocol RPCoRDMA")
        if status != 0 or bugs:
            failures.append("tshark -C RoCE -2: exit %d, %d RPCoRDMA dissector bugs" % (status, bugs))
        print("profile: rules %s; no warning; RPCoRDMA dissector bugs with -2: %d" % (dict(rules), bugs))
    finally:
        ts.close()
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
