"""copies_blocks.py: copies far apart in the file. A capture is rewritten as a pcapng of two
interfaces that both saw every frame, written the way some capture tools write several
interfaces: each interface's frames in blocks (of 150 here), the blocks alternating, either
interface first, the second sighting 1 to 5 us after or before the first. Every second sighting
is a copy: rocedump must find them all (frame.copy on each, and every other event as in the
capture alone: no psn.retransmit it does not have), with the default window and with a wide one.

A second capture has the second interface's frames cut 28 bytes after their BTH and short of
their ICRC (a snap length): a cut sighting must still match the whole one.

--selftest: the same with copies not looked for (--copy-window-us 0) must find none.

usage: copies_blocks.py [--selftest] --rocedump R CAPTURE
Exit 0 all found, 1 not."""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

BLOCK = 150


def read_pcap(path):
    """(linktype, [(ts_ns, data, wirelen)]) of a classic pcap (micro- or nanosecond)."""
    with open(path, "rb") as f:
        raw = f.read()
    magic = struct.unpack("<I", raw[:4])[0]
    endian, nano = {0xa1b2c3d4: ("<", False), 0xa1b23c4d: ("<", True),
                    0xd4c3b2a1: (">", False), 0x4d3cb2a1: (">", True)}[magic]
    linktype = struct.unpack(endian + "I", raw[20:24])[0]
    frames, off = [], 24
    while off + 16 <= len(raw):
        sec, frac, caplen, wirelen = struct.unpack(endian + "IIII", raw[off:off + 16])
        frames.append((sec * 10**9 + frac * (1 if nano else 1000), raw[off + 16:off + 16 + caplen], wirelen))
        off += 16 + caplen
    return linktype, frames


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def write_pcapng(path, linktype, records):
    """records: (iface, ts_ns, data, wirelen); two interfaces, nanosecond time stamps."""
    out = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))]
    tsresol = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)  # if_tsresol 9, end
    for _ in range(2):
        out.append(block(1, struct.pack("<HHI", linktype, 0, 0) + tsresol))
    for iface, ts, data, wirelen in records:
        out.append(block(6, struct.pack("<IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(data), wirelen) + data))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def bth_end(data):
    """Where the BTH ends in an Ethernet/IPv4/UDP frame (None: not RoCEv2 over IPv4)."""
    if len(data) < 42 or data[12:14] != b"\x08\x00" or data[23] != 17:
        return None
    return 14 + (data[14] & 15) * 4 + 8 + 12


def two_interfaces(frames, cut_second):
    """Each frame on interface 0 and, 1-5 us after or before it, on interface 1; each interface's
    frames in blocks of BLOCK, the blocks alternating, which interface first alternating too."""
    records = []
    for b in range(0, len(frames), BLOCK):
        views = ([], [])
        for i, (ts, data, wirelen) in enumerate(frames[b:b + BLOCK], b):
            skew = (1 + i % 5) * 1000 * (1 if (i // 7) % 2 else -1)
            second = data
            end = bth_end(data)
            if cut_second and end:  # 28 bytes after the BTH (its extended headers), short of the ICRC
                second = data[:min(len(data) - 2, end + 28)]
            views[0].append((0, ts, data, wirelen))
            views[1].append((1, ts + skew, second, wirelen))
        first = (b // BLOCK) % 2
        records += views[first] + views[1 - first]
    return records


def summary(rocedump, path, extra):
    out = subprocess.run([rocedump, "-q", "--summary", "-T", "json", "-r", path] + extra,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return json.loads(out[0])["summary"]["events"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("capture")
    a = ap.parse_args()
    linktype, frames = read_pcap(a.capture)
    once = summary(a.rocedump, a.capture, [])
    roce = sum(1 for _, data, _ in frames if bth_end(data))
    failed = n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for cut in (False, True):
            path = os.path.join(tmp, "blocks-cut.pcapng" if cut else "blocks.pcapng")
            write_pcapng(path, linktype, two_interfaces(frames, cut))
            windows = [["--copy-window-us", "0"]] if a.selftest else [[], ["--copy-window-us", "1000000"]]
            for extra in windows:
                ev = summary(a.rocedump, path, extra)
                copies, resends = ev.pop("frame.copy", 0), ev.get("psn.retransmit", 0)
                if cut:  # the cut frames' own
                    ev.pop("truncated", None)
                if a.selftest:
                    good = copies == 0
                else:  # and every other verdict the one-interface capture's
                    good = copies == roce and ev == once
                n += 1
                print("%s %d - %s %s: %d of %d copies, psn.retransmit %d (alone %d)" % (
                    "ok" if good else "not ok", n, os.path.basename(path), " ".join(extra) or "default window",
                    copies, roce, resends, once.get("psn.retransmit", 0)))
                failed += not good
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
