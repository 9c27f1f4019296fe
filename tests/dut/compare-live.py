#!/usr/bin/env python3
"""compare-live.py: is a live capture's analysis (rocedump -i) the offline one (rocedump -r) of the same
frames? Used by test-live-dut.sh.

  compare-live.py json LIVE OFFLINE    JSON Lines (per-frame objects, summaries): equal line by line once
                                       the "capture" members are set aside (live: {"format": "live", ...};
                                       a file: its format), and the frames' "link" "interface" (a pcapng
                                       file's interface block, {"id": 0} here; a pcap file and a live
                                       capture have none); everything else, times and findings
                                       included, must be equal
  compare-live.py prom LIVE OFFLINE    Prometheus text: the same series with the same values, but for
                                       rocedump_snapshot_timestamp_seconds and the capture's own
                                       rocedump_capture_* series
  compare-live.py capture LIVE FRAMES  LIVE's "capture" members are the live form with FRAMES received and
                                       no drops (JSON Lines), or its rocedump_capture_* series say so (text)

Prints "same" (exit 0) or the first differences (exit 1); exit 2 on unreadable input."""
import json
import sys


class Unreadable(Exception):
    pass


def strip_capture(v, found, key=None):
    if isinstance(v, dict):
        if "capture" in v:
            found.append(v["capture"])
        return {k: strip_capture(x, found, k) for k, x in v.items()
                if k != "capture" and not (key == "link" and k == "interface")}
    if isinstance(v, list):
        return [strip_capture(x, found) for x in v]
    return v


def json_lines(path):
    out, caps = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                out.append(strip_capture(json.loads(line, parse_float=str), caps))  # times exact
            except ValueError as e:
                raise Unreadable(f"{path}:{n}: not JSON: {e}")
    return out, caps


def first_difference(a, b, where=""):
    if type(a) is not type(b):
        return f"{where or '.'}: {json.dumps(a)[:120]} != {json.dumps(b)[:120]}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'live' if k in a else 'offline'}"
            d = first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None if len(a) == len(b) else f"{where}: {len(a)} items != {len(b)}"
    return None if a == b else f"{where}: {json.dumps(a)[:120]} != {json.dumps(b)[:120]}"


def cmp_json(live, off):
    a, _ = json_lines(live)
    b, _ = json_lines(off)
    diffs = []
    for i, (x, y) in enumerate(zip(a, b), 1):
        d = first_difference(x, y)
        if d:
            diffs.append(f"line {i} {d}")
    if len(a) != len(b):
        diffs.append(f"{len(a)} lines live, {len(b)} offline")
    return diffs


IGNORED = ("rocedump_snapshot_timestamp_seconds", "rocedump_capture_")


def series(path):
    s = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, _, value = line.rstrip("\n").rpartition(" ")
            if name in s:
                raise Unreadable(f"{path}: series {name} given twice")
            s[name] = value
    return s


def cmp_prom(live, off):
    a = {k: v for k, v in series(live).items() if not k.startswith(IGNORED)}
    b = {k: v for k, v in series(off).items() if not k.startswith(IGNORED)}
    diffs = [f"{k}: {a.get(k, 'absent')} live, {b.get(k, 'absent')} offline"
             for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    if not a:
        diffs.append("no series live")
    return diffs


def check_capture(live, frames):
    frames = int(frames)
    with open(live) as f:
        first = f.read(1)
    if first == "{":
        _, caps = json_lines(live)
        want = {"format": "live", "received": frames, "if_drops": 0, "os_drops": 0}
        if not caps:
            return ["no capture member"]
        return [f"capture member {json.dumps(c)}, not {json.dumps(want)}" for c in caps if c != want]
    s = series(live)
    want = {"rocedump_capture_received_total": str(frames), 'rocedump_capture_dropped_total{by="kernel"}': "0"}
    return [f"{k} {s.get(k, 'absent')}, not {v}" for k, v in want.items() if s.get(k) != v]


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("json", "prom", "capture"):
        sys.exit(__doc__)
    try:
        diffs = {"json": cmp_json, "prom": cmp_prom, "capture": check_capture}[sys.argv[1]](*sys.argv[2:])
    except (OSError, Unreadable) as e:
        print(f"compare-live: {e}", file=sys.stderr)
        return 2
    if not diffs:
        print("same")
        return 0
    for d in diffs[:8]:
        print(d)
    if len(diffs) > 8:
        print(f"... {len(diffs) - 8} more")
    return 1


if __name__ == "__main__":
    sys.exit(main())
