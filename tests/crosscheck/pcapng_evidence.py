#!/usr/bin/env python3
"""pcapng_evidence.py: what a pcapng input carries, kept by rocedump -w; interfaces of several
link types read as tshark reads them.

    pcapng_evidence.py --rocedump PATH --tshark PATH [--selftest] CAPTURES_GEN_DIR

-w (captures/gen/pcapng_options.pcapng): read from the file (the direct reader), from standard
input (libpcap reads it), and on three threads, the pcapng written must hold the input's section
header options (but shb_userappl, rocedump's), its interface description blocks as they were,
every packet block's options as they were followed by rocedump's one comment where it has
events, the same time stamps and bytes, and the input's statistics blocks: checked block by
block, and through tshark (frame.comment, interface, flags, time) and rocedump -q (the drop
counts). Several link types (captures/gen/mixed_linktypes.pcapng: Ethernet, SLL, SLL2):
rocedump -e reads every frame on the interface, link layer, SLL2 interface index and PSN tshark
reads, a BPF filter selects the frames tshark's matching display filter does, and -w keeps each
interface's link type. --selftest drops one input comment from what is expected and requires
the check to fail. Exit status: 0 all agree, 1 a difference, 77 (skip) without tshark."""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from xcommon import tshark_prefix

EPB, IDB, ISB, SHB = 6, 1, 5, 0x0A0D0D0A


def options(body):
    """[(code, value)] of an option list (little-endian), up to opt_endofopt."""
    out, at = [], 0
    while at + 4 <= len(body):
        code, n = struct.unpack_from("<HH", body, at)
        if code == 0:
            break
        out.append((code, bytes(body[at + 4:at + 4 + n])))
        at += 4 + ((n + 3) & ~3)
    return out


def blocks(path):
    """The file's blocks: ("shb", options), ("idb", linktype, snaplen, options), ("epb", if_id,
    ts, caplen, wirelen, data, options), ("isb", if_id, ts, options)."""
    data = open(path, "rb").read()
    out, at = [], 0
    while at + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, at)
        body = data[at + 8:at + blen - 4]
        if btype == SHB:
            out.append(("shb", options(body[16:])))
        elif btype == IDB:
            lt, _r, snap = struct.unpack_from("<HHI", body)
            out.append(("idb", lt, snap, options(body[8:])))
        elif btype == EPB:
            if_id, hi, lo, cap, wire = struct.unpack_from("<IIIII", body)
            pad = (cap + 3) & ~3
            out.append(("epb", if_id, hi << 32 | lo, cap, wire, body[20:20 + cap], options(body[20 + pad:])))
        elif btype == ISB:
            if_id, hi, lo = struct.unpack_from("<III", body)
            out.append(("isb", if_id, hi << 32 | lo, options(body[12:])))
        at += blen
    return out


def run(cmd, stdin=None):
    p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def tshark(args, path, fields, display_filter=None):
    cmd = tshark_prefix(args.tshark) + ["-r", "-", "-n", "-T", "fields", "-E", "occurrence=a"]
    if display_filter:
        cmd += ["-Y", display_filter]
    for f in fields:
        cmd += ["-e", f]
    with open(path, "rb") as fp:
        rc, out, err = run(cmd, stdin=fp)
    if rc != 0:
        raise RuntimeError("tshark failed (%d): %s" % (rc, err.strip()[:200]))
    return [line.split("\t") for line in out.splitlines()]


def expect_written(src, selftest):
    """What -w must write of src's blocks (the written file's own comments aside)."""
    want = {"shb": [o for o in src[0][1] if o[0] != 4], "idb": [], "epb": [], "isb": []}
    dropped = False
    for b in src[1:]:
        if b[0] == "epb" and selftest and not dropped and any(c == 1 for c, _v in b[6]):
            opts = list(b[6])
            del opts[next(i for i, (c, _v) in enumerate(opts) if c == 1)]  # its first comment
            b = b[:6] + (opts,)
            dropped = True
        want[b[0]].append(b[1:])
    return want


def check_written(args, src_path, out, variant, selftest):
    """None, or the first difference between src_path's blocks and those -w wrote to out."""
    src, got = blocks(src_path), blocks(out)
    want = expect_written(src, selftest)
    shb = got[0][1]
    appl = [v for c, v in shb if c == 4]
    if got[0][0] != "shb" or [o for o in shb if o[0] != 4] != want["shb"] or \
            len(appl) != 1 or not appl[0].startswith(b"rocedump "):
        return "%s: section header options %r, want %r and rocedump's shb_userappl" % (variant, shb, want["shb"])
    have = {"idb": [], "epb": [], "isb": []}
    for b in got[1:]:
        have[b[0]].append(b[1:])
    if have["idb"] != want["idb"]:
        return "%s: interfaces %r, want %r" % (variant, have["idb"], want["idb"])
    if have["isb"] != want["isb"]:
        return "%s: statistics blocks %r, want %r" % (variant, have["isb"], want["isb"])
    if len(have["epb"]) != len(want["epb"]):
        return "%s: %d packet blocks, want %d" % (variant, len(have["epb"]), len(want["epb"]))
    for n, (g, w) in enumerate(zip(have["epb"], want["epb"]), 1):
        extra = g[5][len(w[5]):]
        if g[:5] != w[:5] or g[5][:len(w[5])] != w[5] or \
                any(c != 1 or not v.startswith(b"rocedump: ") for c, v in extra) or len(extra) > 1:
            return "%s: frame %d: options %r, want %r and at most rocedump's comment" % (variant, n, g[5], w[5])
    return None


def check_tshark_and_drops(args, src_path, out):
    """None, or how tshark's reading of out, and rocedump's drop counts, differ from src_path's."""
    fields = ["frame.interface_id", "frame.interface_name", "frame.comment", "frame.time_epoch",
              "frame.packet_flags", "frame.len"]
    a, b = tshark(args, src_path, fields), tshark(args, out, fields)
    if len(a) != len(b):
        return "tshark: %d frames written of %d" % (len(b), len(a))
    for n, (x, y) in enumerate(zip(a, b), 1):
        # tshark joins a frame's comments with commas: the input's, then rocedump's if any
        added = y[2][len(x[2]) + 1:] if x[2] else y[2]
        if x[:2] + x[3:] != y[:2] + y[3:] or not (y[2] == x[2] or (y[2].startswith(x[2]) and added.startswith("rocedump: "))):
            return "tshark: frame %d written %r, read %r" % (n, y, x)
    drops = [re.search(r"capture drops: [^\n]*", run([args.rocedump, "-q", "-r", p])[1]) for p in (src_path, out)]
    if not drops[0] or not drops[1] or drops[0].group(0) != drops[1].group(0):
        return "drop counts: %r written, %r read" % (drops[1] and drops[1].group(0), drops[0] and drops[0].group(0))
    if "not recorded" in drops[0].group(0):
        return "the capture records no drops: %s" % drops[0].group(0)
    return None


def check_write(args, gen, tmp, selftest):
    src = os.path.join(gen, "pcapng_options.pcapng")
    out = os.path.join(tmp, "w.pcapng")
    for variant, pre, stdin in (("file", [], None), ("standard input", [], src),
                                ("three threads", ["--threads", "3", "--batch", "2"], None)):
        cmd = [args.rocedump] + pre + ["-w", out, "-r", "-" if stdin else src]
        if stdin:
            with open(src, "rb") as fp:
                rc, _o, err = run(cmd, stdin=fp)
        else:
            rc, _o, err = run(cmd)
        if rc != 0:
            return "-w from %s: exit %d: %s" % (variant, rc, err.strip())
        diff = check_written(args, src, out, variant, selftest)
        if diff:
            return diff
    return check_tshark_and_drops(args, src, out)


LINE = re.compile(r"^if (\d+)(?: \([^)]*\))? (?:(\S+ > \S+,)|sll (\w+),|sll2 ifindex (\d+) (\w+),) .* psn (\d+)")


def rocedump_frames(args, path, bpf=None):
    rc, out, err = run([args.rocedump, "-e", "-t", "-r", path] + ([bpf] if bpf else []))
    if rc != 0:
        raise RuntimeError("rocedump -r %s: exit %d: %s" % (path, rc, err.strip()))
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            raise RuntimeError("rocedump -e line not understood: %r" % line)
        kind = "eth" if m.group(2) else "sll" if m.group(3) else "sll2"
        rows.append((m.group(1), kind, m.group(4) or "", m.group(6)))
    return rows


def tshark_frames(args, path, display_filter=None):
    rows = []
    for r in tshark(args, path, ["frame.interface_id", "frame.protocols", "sll.ifindex", "infiniband.bth.psn"],
                    display_filter):
        r += [""] * (4 - len(r))
        link = r[1].split(":")[0]
        kind = "sll2" if link == "sll" and r[2] else link  # tshark names both "sll"; SLL2 has the index
        rows.append((r[0], kind, r[2], r[3]))
    return rows


def check_mixed(args, gen, tmp, selftest):
    src = os.path.join(gen, "mixed_linktypes.pcapng")
    a, b = rocedump_frames(args, src), tshark_frames(args, src)
    if selftest:
        a = a[1:]
    if a != b:
        return "mixed link types: rocedump reads %r, tshark %r" % (a, b)
    a, b = rocedump_frames(args, src, "ip[4:2] = 0x228"), tshark_frames(args, src, "ip.id == 0x228")
    if a != b or len(a) != 3:
        return "mixed link types, filtered: rocedump %r, tshark %r" % (a, b)
    out = os.path.join(tmp, "m.pcapng")
    rc, _o, err = run([args.rocedump, "-w", out, "-r", src])
    if rc != 0:
        return "-w from mixed link types: exit %d: %s" % (rc, err.strip())
    lts = [x[1] for x in blocks(out) if x[0] == "idb"]
    if lts != [1, 113, 276] or tshark_frames(args, out) != tshark_frames(args, src):
        return "-w from mixed link types: interfaces of link types %r, or frames read otherwise" % lts
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--tshark", default=shutil.which("tshark") or "")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("gen")
    args = ap.parse_args()
    if not args.tshark or not os.access(args.tshark, os.X_OK):
        print("SKIP: tshark not found")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        status = 0
        for name, check in (("-w keeps the input's blocks and options", check_write),
                            ("interfaces of several link types", check_mixed)):
            try:
                diff = check(args, args.gen, tmp, args.selftest)
            except RuntimeError as e:  # a tool failing on the capture: a difference too
                diff = str(e)
            if args.selftest:
                ok = diff is not None
                print("%s: %s (%s)" % (name, "caught" if ok else "NOT CAUGHT", diff))
            else:
                ok = diff is None
                print("%s: %s" % (name, "agree" if ok else diff))
            status |= 0 if ok else 1
    return status


if __name__ == "__main__":
    sys.exit(main())
