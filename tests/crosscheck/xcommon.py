"""xcommon.py: what the cross-check scripts share: running tshark (as an unprivileged user when
root: it ignores plugin directories then), reading its -T fields output, running rocedump -T
json, listing captures."""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

DEFAULT_ROCE_PORT = 4791
# RoCE payload dissectors that would take frames away from infiniband's own fields
DISABLE_PROTOCOLS = ["smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser",
                     "infiniband.eoib", "infiniband_sdp", "fcoib", "drbd"]
DISABLE_HEURISTICS = ["eth_over_ib", "mellanox_eoib"]


# tshark 4.0.17 decodes these opcodes correctly: RC without 0x15 and without FLUSH/ATOMIC WRITE,
# UC, UD (docs/architecture.md lists what it gets wrong).
TSHARK_GOOD_OPCODES = set(range(0x00, 0x15)) | {0x16, 0x17} | set(range(0x20, 0x2C)) | {0x64, 0x65}


def tshark_wrong_opcode(op):
    """None if tshark 4.0 decodes the opcode correctly, else the reason it does not."""
    if op in TSHARK_GOOD_OPCODES:
        return None
    if op in (0x80, 0x81):
        return "CNP 0x%02X: tshark knows only 0x80 as CNP and dumps the rest as vendor data" % op
    if 0x40 <= op <= 0x5F:
        return "RD opcode 0x%02X: tshark misparses RD as DCT (20-byte BTH)" % op
    if 0xA0 <= op <= 0xBF:
        return "XRC opcode 0x%02X: tshark does not decode XRCETH" % op
    if op in (0x1C, 0x1D):
        return "opcode 0x%02X (FLUSH/ATOMIC WRITE): unknown to tshark 4.0" % op
    if op >= 0xC0:
        return "vendor opcode 0x%02X: not decoded by tshark" % op
    return "reserved opcode 0x%02X: not decoded by tshark" % op


def tshark_prefix(tshark):
    """tshark as an unprivileged user when we are root (as root it ignores plugin directories),
    else as is."""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "env", "-i", "PATH=/usr/bin:/bin", "HOME=/tmp", tshark]
    return [tshark]


def tshark_fields(tshark, path, fields, ports=(), disable_extra=(), display_filter=None,
                  disable_payload=True):
    """Rows of `tshark -T fields` (one dict per frame: field -> list of values), the capture read
    on stdin (the unprivileged user may not reach the file). RoCEv2 on extra UDP ports is decoded
    with -d; RoCE payload dissectors are disabled unless disable_payload is False."""
    opts = []
    for p in ports:
        if p != DEFAULT_ROCE_PORT:
            opts += ["-d", "udp.port==%d,infiniband" % p]
    if display_filter:
        opts += ["-Y", display_filter]
    protos = (list(DISABLE_PROTOCOLS) if disable_payload else []) + list(disable_extra)
    heurs = list(DISABLE_HEURISTICS) if disable_payload else []
    err = ""
    for _ in range(len(protos) + len(heurs) + 1):
        cmd = tshark_prefix(tshark) + ["-r", "-", "-n"] + opts
        for p in protos:
            cmd += ["--disable-protocol", p]
        for h in heurs:
            cmd += ["--disable-heuristic", h]
        cmd += ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"]
        for f in fields:
            cmd += ["-e", f]
        with open(path, "rb") as fp:
            res = subprocess.run(cmd, stdin=fp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = res.stderr.decode(errors="replace")
        if res.returncode == 0:
            break
        # another tshark version may lack one of the protocols/heuristics: drop it
        bad = [x for x in protos + heurs if "No such protocol %s," % x in err]
        if not bad:
            raise RuntimeError("tshark failed (%d): %s" % (res.returncode, err))
        protos = [x for x in protos if x not in bad]
        heurs = [x for x in heurs if x not in bad]
    else:
        raise RuntimeError("tshark failed: %s" % err)
    rows = []
    for line in res.stdout.decode(errors="replace").split("\n"):
        if not line:
            continue
        cols = line.split("\t")
        cols += [""] * (len(fields) - len(cols))
        rows.append({name: (val.split(",") if val != "" else []) for name, val in zip(fields, cols)})
    return rows


def rocedump_json(rocedump, path, args=()):
    """frame number -> the JSON object rocedump -T json prints for it."""
    cmd = [rocedump, "-r", path, "-T", "json"] + list(args)
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), res.returncode,
                                                   res.stderr.decode(errors="replace")))
    frames = {}
    for line in res.stdout.decode().splitlines():
        if line.strip():
            obj = json.loads(line)
            frames[obj["frame"]] = obj
    return frames


def port_args(ports):
    """rocedump options for the extra RoCEv2 ports."""
    out = []
    for p in ports:
        if p != DEFAULT_ROCE_PORT:
            out += ["--roce-port", str(p)]
    return out


def roce_ports(extra):
    """4791 and the extra RoCEv2 UDP ports given on the command line."""
    return [DEFAULT_ROCE_PORT] + [p for p in extra if p != DEFAULT_ROCE_PORT]


def captures_or_status(paths):
    """(capture files, None), or (None, exit status) after saying why: 2 for a missing capture,
    77 (skip) when there are none."""
    try:
        files = collect(paths)
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        return None, 2
    if not files:
        print("SKIP: no captures in %s" % " ".join(paths))
        return None, 77
    return files, None


def collect(paths):
    """The capture files named, or found below the directories named (sorted)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith((".pcap", ".pcapng", ".cap")):
                        out.append(os.path.join(root, f))
        elif os.path.exists(p):
            out.append(p)
        elif p.endswith("/") or not os.path.splitext(p)[1]:
            print("note: no directory %s, nothing to read there" % p)
        else:
            raise RuntimeError("no such capture: %s" % p)
    return sorted(out)


def tool_check_args(doc, tool):
    """The command line of a check against tool ("tshark" or "tcpdump"): --rocedump, --TOOL (default
    the one on PATH), --selftest, captures. Returns (args, capture files, None), or (args, None, exit
    status) after saying why (77 without the tool or without captures)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--" + tool, default=shutil.which(tool) or "")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    path = getattr(args, tool)
    if not path or not os.access(path, os.X_OK):
        print("SKIP: %s not found" % tool)
        return args, None, 77
    files, status = captures_or_status(args.paths)
    return args, files, status


def tshark_check_args(doc):
    return tool_check_args(doc, "tshark")


def interface_link_types(path):
    """The link types of a pcapng's (little-endian) interfaces, one per interface; [] for other
    files."""
    with open(path, "rb") as fp:
        data = fp.read()
    if data[:4] != b"\x0a\x0d\x0d\x0a" or data[8:12] != b"\x4d\x3c\x2b\x1a":
        return []
    types, at = [], 0
    while at + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, at)
        if blen < 12:
            break
        if btype == 1 and at + 10 <= len(data):
            types.append(struct.unpack_from("<H", data, at + 8)[0])
        at += blen
    return types


def several_link_types(path):
    """Whether path is a pcapng whose interfaces have several link types, which libpcap, and so
    tcpdump, refuses to read."""
    return len(set(interface_link_types(path))) > 1


def time_ordered(files):
    """files with each pcapng of several interfaces replaced by a copy put in time order
    (reordercap, in a temporary directory removed at exit): rocedump analyses such a file in time
    order, a tool reading it in the file's order (tcpdump) prints it in the file's order. Without
    reordercap those files are left out."""
    out, tmp = [], None
    for i, f in enumerate(files):
        if len(interface_link_types(f)) < 2:
            out.append(f)
            continue
        if not shutil.which("reordercap"):
            continue
        if tmp is None:
            tmp = tempfile.TemporaryDirectory(prefix="xcommon-")
            os.chmod(tmp.name, 0o755)  # tshark runs as another user when we are root
            time_ordered.keep.append(tmp)
        sub = os.path.join(tmp.name, str(i))
        os.mkdir(sub)
        copy = os.path.join(sub, os.path.basename(f))
        subprocess.run(["reordercap", f, copy], stdout=subprocess.DEVNULL, check=True)
        out.append(copy)
    return out


time_ordered.keep = []


def tcpdump_check_args(doc):
    """tool_check_args() for tcpdump, without the captures it cannot read (several_link_types),
    and each file of several interfaces in time order (time_ordered)."""
    args, files, status = tool_check_args(doc, "tcpdump")
    if files:
        files = time_ordered([f for f in files if not several_link_types(f)])
    return args, files, status


def tshark_main(doc, check, counted, caught, summary):
    """The main of a check against tshark, one run per capture: check(args, path) -> (count,
    difference or None, whether --selftest must catch the capture). Exit status: what the command
    line or a tool failing says; 77 (skip) when the count is 0 over all captures; under --selftest
    0 when every capture it must catch differs (and there is one), else 1; otherwise the line
    summary(count, captures to catch, captures that differ) and 0 when none differs, else 1.
    counted, caught: what is counted and what the selftest catches, for the skip and selftest
    lines ("CE marks", "cnp.missing")."""
    args, files, status = tshark_check_args(doc)
    if status is not None:
        return status
    to_catch = []

    def one(path, _variant):
        n, diff, catch = check(args, path)
        if catch:
            to_catch.append(path)
        return n, diff, 0

    status, count, bad, _x = run_checks(files, [None], one, args.selftest)
    if status is not None:
        return status
    if not count:
        print("SKIP: no %s in %d captures" % (counted, len(files)))
        return 77
    if args.selftest:
        print("selftest: %d of %d captures with %s caught" % (bad, len(to_catch), caught))
        return 0 if to_catch and bad == len(to_catch) else 1
    print(summary(count, len(to_catch), bad))
    return 1 if bad else 0


def run_checks(files, variants, check, selftest, name=str):
    """check(path, variant) -> (count, difference or None, extra) over every capture and variant,
    each difference printed as "DIFF capture variant: ..." (not under --selftest). Returns (status,
    counts summed, runs that differ, extras summed); status is 2 when a check raised RuntimeError
    (a tool failing, said on stderr), else None."""
    count = bad = extra = 0
    for path in files:
        for variant in variants:
            try:
                n, diff, x = check(path, variant)
            except RuntimeError as e:
                print("error: %s" % e, file=sys.stderr)
                return 2, count, bad, extra
            count += n
            extra += x
            if diff:
                bad += 1
                if not selftest:
                    label = name(variant)
                    print("DIFF %s%s: %s" % (os.path.basename(path), " " + label if label else "", diff))
    return None, count, bad, extra
