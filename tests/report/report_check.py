#!/usr/bin/env python3
"""report_check.py: tests of rocedump --report (suite 'report').

    report_check.py json    --rocedump P --gencaps P --captures DIR --out DIR
    report_check.py browser --rocedump P --gencaps P --captures DIR --out DIR [--chromium P]
    report_check.py hops    --rocedump P --gencaps P --captures DIR --out DIR [--chromium P]

json: for each capture below (lossy, reordered, clean, ECN/CNP, PFC/PAUSE, copies, RoCEv1, IPv6,
mirrored, made here: one stream over the exactness threshold, 300 queue pairs, CNPs over the
congestion outcomes' threshold), `rocedump -q --report` is run and the page's JSON blocks are
checked against rocedump itself:
  - rd-summary equals `rocedump -q -T json`'s summary object, rd-streams equals
    `rocedump -q --summary -T json`'s streams object (pairs, counts, quantiles);
  - every stream plotted point by point has one point per frame rocedump's per-frame JSON puts on
    it (source, destination, QP), with its frame number, PSN, bytes and retransmission flag, and
    as many points as the analyzer counted packets; a binned stream's bins add up to its row's
    requests and bytes;
  - pairs are in trouble order, each listed pair's rows are its rows;
  - copies are flagged on their points and in no count but the row's copies;
  - per stream, the CNPs answering its CE marks (and the unexpected ones), its CE marks left
    without a CNP (at a CE-marked frame of the stream) and the CE->CNP latencies are the row's
    congestion figures; per source MAC and priority, the pause intervals add up to the summary's
    paused time, their longest is its longest, their storms its storms.
Hostile inputs (made here: truncated mid-record, bytes mangled, one frame, no RoCE at all, no
frames; pcapng files with time stamps at INT64_MAX ns and 0, out of order, before 1970) give a
page too, with the exit status rocedump gives without --report. On every page, each frame lies in
the timeline bin of its own time stamp (at most options.bins bins), and rd-report's time stamp
checks (frames out of order, before 1970, beyond the years plotted, a span over 10 years) are
what the frames' time stamps in rocedump's per-frame JSON give.

browser: each page (the same captures, the hostile ones included) is opened in headless
Chromium with every plotted pair open (#all); the test fails on any console message, reads the
DOM after the scripts ran (--dump-dom) and checks that the page finished (data-ready), that
every plot the JSON calls for was drawn with the number of points the JSON holds (data-points
per plot: PSN-time requests, retransmissions and copies), that the congestion plots drew the
summary's figures (per priority the paused time and storms; per pair the CNPs, missed CNPs and
CE->CNP latencies), that the mirror sessions' table shows the summary's sessions (outer
addresses, session id, frames, gaps, frames lost; a page without mirror sessions has none, and
derived/erspan2_mirror_gap.pcap's gaps must be among those checked), that the paths table shows
the summary's path hops (points' names, packets seen at either end, lost, mirror lost, reordered,
delays, clock offset and uncertainty; paths/bridges_rc_pingpong_loss.pcapng's among those
checked), that the queue pair table's
first page is whole, the timeline drawn and the note on time stamps there exactly when
rd-report's checks found something, and takes a
screenshot of each page into --out. The script must also draw, without a message, a page whose
timeline and points were moved near 2^63 ns, 1 ns apart. Pages drawn again from wrong
data (their rd-report block changed) must fail these checks. Exit 77 (skip) when Chromium is not
installed.

hops: the per-hop series of the Paths section (rd-report's hops) on the two bridges' captures,
paths/bridges_rc_pingpong_tbf.pcapng (brA -> brB delayed by a tbf queue; read with a copy window
past its longest delay) and paths/bridges_rc_pingpong_loss.pcapng (loss both ways): per hop of
the summary's path block, the bins' packets add up to its delays, their lost to its lost, their
min and max are its min and max (also on the loss capture as an SLL2 pcap whose frames step
back before its first: the bins shifted); the delayed hop's per-bin p50 lie above the other's; a
capture of one point has no hops and no message. With Chromium, the pages draw the two plots
(the loss plot the summary's lost) and the one-point page neither. json checks the same sums on
every page with hops.
"""
import argparse
import base64
import fcntl
import html.parser
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from decimal import Decimal

CAPTURES = [
    "rxe/write_bw_loss.pcap",      # lossy: gaps, go-back-N after NAKs
    "rxe/read_bw_lossy.pcap",      # lossy READs: responses resent
    "rxe/rc_pingpong_loss.pcap",   # lossy: timeouts
    "rxe/send_bw_reorder.pcap",    # reordered
    "rxe/rc_pingpong.pcap",        # clean
    "rxe/write_bw.pcap",           # clean, one way
    "rxe/atomic_bw.pcap",
    "rxe/rc_pingpong_ecn_ce.pcap",  # ECN CE marks
    "gen/cnp_ecn.pcap",            # CNPs
    "gen/anomalies.pcap",          # every kind of event
    "gen/rocev1.pcap",
    "rxe/v6_rc_pingpong.pcap",
    "rxe/erspan3_rc_pingpong.pcap",
    "rxe/cm_send_bw.pcap",         # pairs from RDMA-CM, UD
    "gen/capture_drops.pcapng",
    "gen/pfc_pause.pcap",          # PFC and PAUSE, malformed ones among them
    "gen/pfc_timeline.pcap",       # pauses refreshed, ended by XON and by their timer, still on at the end; RoCE sent into them
    "gen/cnp_matching.pcap",       # CNPs matched to CE marks, missing CNPs, unexpected ones, IPv6
    "rxe/rc_pingpong_ecn_part.pcap",  # CE marks on a lossy pair, no CNPs
    "rxe/write_bw_ecn_part.pcap",
    "rxe/write_bw_dup.pcap",       # copies: the same packets twice
    "rxe/host-taps-loss.pcapng",   # copies seen on two taps
    "rxe/rc_pingpong_peer_dies.pcap",  # timeouts until the retry count runs out
    "paths/bridges_rc_pingpong_loss.pcapng",  # two capture points: the paths table
    "derived/erspan2_mirror_gap.pcap",  # an ERSPAN II session's sequence numbers: a frame lost, two swapped
]

RK_REQ = 0
RK_NAK, RK_RNR = 2, 3
RF_RETX = 1
RF_TMO = 8
RF_RECOVER = 128
RF_CE = 256
RF_COPY = 512
RF_UNEXPECTED = 1024
RK_CNP, RK_CE_MISSED = 6, 7
RP_STORM = 1
PFC_LANES = 32  # source MACs a pause timeline draws (report.js), the longest paused

failures = []
timed = {"recoveries": 0, "timeout ages": 0, "response times": 0}  # checked against the summary
congested = [0, 0]  # streams whose congestion outcomes were checked: exact, binned
copies = [0]  # copies checked against their rows
mirrored = [0, 0]  # pages whose mirror sessions were checked: all, those with a gap
paths_checked = [0]  # pages whose paths table was checked


expecting = [False]  # a failure the test provoked on purpose (tamper): not printed as one


def fail(msg):
    failures.append(msg)
    if not expecting[0]:
        print("FAIL: " + msg)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def blocks(page, parse_float=float):
    """The page's JSON blocks by id (numbers with a fraction as parse_float makes them)."""
    out = {}
    for m in re.finditer(r'<script type="application/json" id="([a-z-]+)">(.*?)</script>', page, re.S):
        out[m.group(1)] = json.loads(m.group(2), parse_float=parse_float)
    return out


# ---- inputs made here ----

def pcap_records(data):
    """(header, [records]) of a little-endian classic pcap file."""
    hdr, recs, off = data[:24], [], 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        recs.append(data[off:off + 16 + incl])
        off += 16 + incl
    return hdr, recs


def pcapng(frames, tsoffsets=(0,)):
    """A little-endian pcapng file: one Ethernet interface of nanosecond time stamps per
    if_tsoffset (seconds) in tsoffsets; frames: (interface, time stamp in ns units, bytes)."""
    def block(kind, body):
        body += bytes(-len(body) % 4)
        return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)

    def opt(code, val):
        return struct.pack("<HH", code, len(val)) + val + bytes(-len(val) % 4)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    for off in tsoffsets:
        opts = opt(9, b"\x09") + (opt(14, struct.pack("<q", off)) if off else b"") + opt(0, b"")
        out += block(1, struct.pack("<HHI", 1, 0, 262144) + opts)
    for iface, ts, fr in frames:
        out += block(6, struct.pack("<IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(fr), len(fr)) + fr)
    return out


def ts_inputs(args, tmp):
    """rc_pingpong's frames (one queue pair) with hostile time stamps, as pcapng: (a) the first
    frame at INT64_MAX ns (the reader holds it there), the next ones 1 µs apart a second before
    it, the last at 0 (a span past 2^53 µs: 1 µs bins far from 0 broke the page's script); (b)
    a frame an hour before the one before it and two frames swapped; (c) the first frame before
    1970 (if_tsoffset -2^62 s: held at INT64_MIN), the others as they were (a span past the
    int64 range)."""
    with open(os.path.join(args.captures, "rxe/rc_pingpong.pcap"), "rb") as f:
        _, recs = pcap_records(f.read())
    frames = [r[16:] for r in recs]
    orig = [struct.unpack_from("<I", r)[0] * 10**9 + struct.unpack_from("<I", r, 4)[0] * 1000 for r in recs]
    top = (1 << 63) - 1
    near = [top - 10**9 + i * 1000 for i in range(len(frames))]
    back = list(orig)
    back[10] -= 3600 * 10**9
    back[40], back[41] = back[41], back[40]
    made = {
        "hostile_ts_extreme": pcapng([(0, top if i == 0 else 0 if i == len(frames) - 1 else near[i], fr) for i, fr in enumerate(frames)]),
        "hostile_ts_backwards": pcapng([(0, back[i], fr) for i, fr in enumerate(frames)]),
        "hostile_ts_before_1970": pcapng([(1 if i == 0 else 0, 0 if i == 0 else orig[i], fr) for i, fr in enumerate(frames)],
                                         (0, -(1 << 62))),
    }
    out = []
    for name, content in made.items():
        path = os.path.join(tmp, name + ".pcapng")
        with open(path, "wb") as f:
            f.write(content)
        out.append((name, path, True))
    return out


def make_inputs(args, tmp):
    """Captures made for the test: (name, path, hostile)."""
    made = []
    big = os.path.join(tmp, "one_qp_30k.pcap")   # one pair, 15,000 frames a stream: binned
    r = run([args.gencaps, "--bench-small", big, "30000", "1"])
    if r.returncode:
        fail("gencaps --bench-small: " + r.stderr)
    made.append(("one_qp_30k", big, False))
    many = os.path.join(tmp, "qps_300.pcap")     # 300 pairs, more than the 50 with plots
    r = run([args.gencaps, "--bench-small", many, "6000", "300"])
    if r.returncode:
        fail("gencaps --bench-small: " + r.stderr)
    made.append(("qps_300", many, False))
    # CNPs past the exactness threshold of a stream's congestion outcomes (2,048): cnp_matching's
    # records 600 times over, a second apart (1,800 CNPs and 1,200 missed on each CE-marked stream)
    with open(os.path.join(args.captures, "gen/cnp_matching.pcap"), "rb") as f:
        hdr, recs = pcap_records(f.read())
    out = bytearray(hdr)
    for k in range(600):
        for r in recs:
            out += struct.pack("<I", struct.unpack_from("<I", r)[0] + k) + r[4:]
    # PFC from 40 source MACs (more than a pause timeline's 32 lanes): each pauses priority 3
    # three times, for (k + 1) * 10 us, ended by XON
    pfc = bytearray(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    frames = []
    for k in range(40):
        for n in range(3):
            t = 1000 * n + k * 0.5                             # us
            for q, at in ((0xffff, t), (0, t + (k + 1) * 10)):
                fr = bytes.fromhex("0180c2000001") + bytes([2, 0, 0, 0, 1, k]) + bytes.fromhex("88080101") + \
                    struct.pack(">H", 1 << 3) + b"".join(struct.pack(">H", q if i == 3 else 0) for i in range(8))
                frames.append((at, fr + bytes(60 - len(fr))))
    for at, fr in sorted(frames, key=lambda x: x[0]):
        pfc += struct.pack("<IIII", 1700000000, int(at), len(fr), len(fr)) + fr
    sources = os.path.join(tmp, "pfc_40_sources.pcap")
    with open(sources, "wb") as f:
        f.write(pfc)
    made.append(("pfc_40_sources", sources, False))
    cnps = os.path.join(tmp, "cnp_many.pcap")
    with open(cnps, "wb") as f:
        f.write(out)
    made.append(("cnp_many", cnps, False))

    with open(os.path.join(args.captures, "rxe/write_bw_loss.pcap"), "rb") as f:
        data = f.read()
    hdr, recs = pcap_records(data)
    cuts = {
        "hostile_truncated": data[:len(data) // 2 + 7],       # ends inside a record
        "hostile_one_frame": hdr + recs[0],
        "hostile_no_frames": hdr,
    }
    rnd = random.Random(17)
    mangled = bytearray(data)
    for _ in range(400):                                     # records' bytes, headers included
        i = rnd.randrange(24, len(mangled))
        mangled[i] = rnd.randrange(256)
    cuts["hostile_mangled"] = bytes(mangled)
    # no RoCE: ARP and TCP frames, built here
    arp = bytes.fromhex("ffffffffffff525400770001" "0806" "0001080006040001525400770001" "0a4d0001000000000000" "0a4d0002")
    tcp = bytes.fromhex("525400770002525400770001" "0800" "4500002800010000400600000a4d00010a4d0002" "04d2005000000001000000005002ffff00000000")
    nr = hdr
    for i, fr in enumerate([arp, tcp, tcp, arp]):
        nr += struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)) + fr
    cuts["hostile_no_roce"] = nr
    for name, content in cuts.items():
        p = os.path.join(tmp, name + ".pcap")
        with open(p, "wb") as f:
            f.write(content)
        made.append((name, p, True))
    return made + ts_inputs(args, tmp)


# inputs read with options of their own (the same for every run of rocedump on them)
OPTIONS = {"pfc_storms": ["--pfc-storm-ms", "1"]}  # pfc_timeline's 1.7 ms pause refreshed past 1 ms: a storm


def all_inputs(args, tmp):
    ins = [(os.path.splitext(c.replace("/", "_"))[0], os.path.join(args.captures, c), False) for c in CAPTURES
           if os.path.exists(os.path.join(args.captures, c))]
    ins.append(("pfc_storms", os.path.join(args.captures, "gen/pfc_timeline.pcap"), False))
    if len(ins) < 10:
        fail("captures missing under " + args.captures)
    return ins + make_inputs(args, tmp)


def make_report(args, name, path, outdir):
    page = os.path.join(outdir, name + ".html")
    r = run([args.rocedump, "-q", "-r", path, "--report", page] + OPTIONS.get(name, []))
    plain = run([args.rocedump, "-q", "-r", path] + OPTIONS.get(name, []))
    if r.returncode != plain.returncode or r.stdout != plain.stdout:
        fail(f"{name}: --report changed rocedump's output or exit status ({r.returncode} vs {plain.returncode})")
    if not os.path.exists(page):
        fail(f"{name}: no page written (exit {r.returncode}: {r.stderr.strip()})")
        return None, r
    return page, r


# ---- json ----

def frame_stream(fr):
    """(src, dst, dqpn) of a frame the transport analyzer counts on a stream, or None."""
    ro = fr.get("roce")
    net = fr.get("ip") or fr.get("grh")
    if not ro or not net or "dqpn" not in ro or ro.get("transport") == "CNP" or "src" not in net:
        return None
    if ro.get("opcode_name") in (None, "RESERVED", "VENDOR") or ro.get("truncated") in ("bth", "eth"):
        return None  # no valid opcode, or cut before its extended headers end
    return (net["src"], net["dst"], ro["dqpn"])


def check_exact(name, row, series, frames):
    key = (row["src"], row["dst"], row["dqpn"])
    mine = [f for f in frames if frame_stream(f) == key]
    p = series["points"]
    counted = [i for i in range(p["n"]) if not p["flags"][i] & RF_COPY]  # copies are in no count but their own
    copies[0] += p["n"] - len(counted)
    if len(counted) != row["packets"] or p["n"] - len(counted) != row["copies"]:
        fail(f"{name}: stream {key}: {len(counted)} points and {p['n'] - len(counted)} copies, "
             f"the analyzer counted {row['packets']} packets and {row['copies']} copies")
    if sum(p["len"][i] for i in counted) != row["bytes"]:
        fail(f"{name}: stream {key}: points hold {sum(p['len'][i] for i in counted)} bytes, the row {row['bytes']}")
    if [f["frame"] for f in mine] != p["frame"]:
        fail(f"{name}: stream {key}: point frames {p['frame'][:10]}... differ from rocedump's {[f['frame'] for f in mine][:10]}...")
        return 0
    for i, f in enumerate(mine):
        if p["psn"][i] % (1 << 24) != f["roce"]["psn"]:
            fail(f"{name}: frame {f['frame']}: PSN {p['psn'][i]} in the page, {f['roce']['psn']} in rocedump's output")
        if p["len"][i] != f["len"]:
            fail(f"{name}: frame {f['frame']}: {p['len'][i]} bytes in the page, {f['len']}")
        net = f.get("ip") or f.get("grh") or {}
        ecn = net.get("ecn", net.get("tclass", 0) & 3)
        if bool(p["flags"][i] & RF_CE) != (ecn == 3):
            fail(f"{name}: frame {f['frame']}: CE flag {p['flags'][i] & RF_CE} in the page, ECN {ecn}")
        retx = "psn.retransmit" in f.get("events", [])
        if bool(p["flags"][i] & RF_RETX) != retx:
            fail(f"{name}: frame {f['frame']}: retransmission flag {p['flags'][i] & RF_RETX} in the page, event {retx}")
        copy = "frame.copy" in f.get("events", [])
        if bool(p["flags"][i] & RF_COPY) != copy:
            fail(f"{name}: frame {f['frame']}: copy flag {p['flags'][i] & RF_COPY} in the page, event {copy}")
    return len(mine)


def check_timings(name, rows, series):
    """The per-frame times in the points against the summary's figures of the same pair: response
    times (on the responses, counted on the requester's row), NAK->recovery and timeout ages."""
    if len(rows) == 2 and all(s is not None and s["mode"] == "bins" for s in series):
        for k, row in enumerate(rows):  # the responses to row k's requests are binned on the other row
            b = series[1 - k]
            want = row.get("response_time_us", {}).get("count", 0)
            timed["response times"] += sum(b["rt_n"])
            if sum(b["rt_n"]) != want or sum(h[2] for h in b["rt_hist"]) != want:
                fail(f"{name}: binned response times {sum(b['rt_n'])} (histogram {sum(h[2] for h in b['rt_hist'])}), summary {want}")
            mx = max((v for v in b["rt_max"] if v is not None), default=0)
            if int(mx) != row.get("response_time_us", {}).get("max", 0):
                fail(f"{name}: binned response time max {mx}, summary {row.get('response_time_us', {}).get('max')}")
    if any(s is None or s["mode"] != "exact" for s in series):
        return
    pts = [s["points"] for s in series]
    for k, row in enumerate(rows):
        p = pts[k]
        req = [i for i in range(p["n"]) if p["kind"][i] == RK_REQ]
        rec = [p["val"][i] for i in req if p["flags"][i] & RF_RECOVER]
        tmo = [p["val"][i] for i in req if p["flags"][i] & RF_TMO and p["val"][i] is not None]
        timed["recoveries"] += len(rec)
        timed["timeout ages"] += len(tmo)
        got = (len(rec), int(max(rec)) if rec else 0)
        want = (row.get("nak_recovery_us", {}).get("count", 0), row.get("nak_recovery_us", {}).get("max", 0))
        if got != want:
            fail(f"{name}: {row['src']}>{row['dst']}/{row['dqpn']}: NAK->recovery points (count, max µs) {got}, summary {want}")
        got = (len(tmo), int(max(tmo)) if tmo else 0)
        want = (row.get("timeout_age_us", {}).get("count", 0), row.get("timeout_age_us", {}).get("max", 0))
        if got != want:
            fail(f"{name}: {row['src']}>{row['dst']}/{row['dqpn']}: timeout age points {got}, summary {want}")
        # this row's requests are answered on the other row of the pair
        if len(rows) == 2:
            q = pts[1 - k]
            rt = [q["val"][i] for i in range(q["n"]) if q["kind"][i] != RK_REQ and q["val"][i] is not None]
            r = row.get("response_time_us")
            timed["response times"] += len(rt)
            got = (len(rt), int(min(rt)) if rt else 0, int(max(rt)) if rt else 0)
            want = (r["count"], r["min"], r["max"]) if r else (0, 0, 0)
            # a response answering several requests is one point, the newest's time (its smallest):
            # as many points or fewer, the same min, the same max or less
            if not (got[0] <= want[0] and got[1] == want[1] and got[2] <= want[2] and (got[0] > 0) == (want[0] > 0)):
                fail(f"{name}: {row['src']}>{row['dst']}/{row['dqpn']}: response time points (count, min, max) {got}, summary {want}")


def check_bins(name, row, s):
    if sum(s["req"]) != row["requests"]:
        fail(f"{name}: binned stream: {sum(s['req'])} requests in the bins, {row['requests']} in its row")
    if sum(s["bytes"]) != row["bytes"]:
        fail(f"{name}: binned stream: {sum(s['bytes'])} bytes in the bins, {row['bytes']} in its row")
    if s["n"] > 256 or len(s["req"]) != s["n"]:
        fail(f"{name}: binned stream: {s['n']} bins")
    if sum(s["copies"]) != row["copies"]:
        fail(f"{name}: binned stream: {sum(s['copies'])} copies in the bins, {row['copies']} in its row")


def check_cong(name, row, s, frames):
    """A stream's congestion outcomes against its row's congestion figures and the frames: one CNP
    point per CNP counted (cnp_unexpected of them flagged), one missed point per cnp.missing, at a
    CE-marked frame of the stream; the latencies' count, least and largest as ce_to_cnp_ns."""
    cg = row["congestion"]
    c = s.get("cong")
    if c is None:
        if cg["cnps"] or cg["cnp_missing"]:
            fail(f"{name}: stream {row['stream']}: {cg['cnps']} CNPs, {cg['cnp_missing']} missing, and no congestion series")
        return
    lat_hist_n = sum(h[2] for h in c["lat_hist"])
    lat = cg["ce_to_cnp_ns"] or {"count": 0}
    if lat_hist_n != lat["count"]:
        fail(f"{name}: stream {row['stream']}: {lat_hist_n} CE->CNP latencies in the histogram, the row has {lat['count']}")
    if c["mode"] == "bins":
        got = (sum(c["cnp"]), sum(c["missed"]), sum(c["lat_n"]))
        want = (cg["cnps"], cg["cnp_missing"], lat["count"])
        if got != want:
            fail(f"{name}: stream {row['stream']}: binned (CNPs, missed, latencies) {got}, row {want}")
        congested[1] += 1
        return
    p = c["points"]
    by_no = {f["frame"]: f for f in frames}
    cnp = [i for i in range(p["n"]) if p["kind"][i] == RK_CNP]
    missed = [i for i in range(p["n"]) if p["kind"][i] == RK_CE_MISSED]
    lats = [p["val"][i] for i in cnp if p["val"][i] is not None]
    got = (len(cnp), sum(1 for i in cnp if p["flags"][i] & RF_UNEXPECTED), len(missed), len(lats))
    want = (cg["cnps"], cg["cnp_unexpected"], cg["cnp_missing"], lat["count"])
    if got != want:
        fail(f"{name}: stream {row['stream']}: (CNPs, unexpected, missed, latencies) {got} in the page, row {want}")
    if lats and (round(min(lats) * 1000) != lat["min"] or round(max(lats) * 1000) != lat["max"]):
        fail(f"{name}: stream {row['stream']}: latencies {min(lats)}..{max(lats)} µs, row {lat['min']}..{lat['max']} ns")
    for i in cnp:
        f = by_no.get(p["frame"][i], {})
        if f.get("roce", {}).get("transport") != "CNP":
            fail(f"{name}: stream {row['stream']}: CNP point at frame {p['frame'][i]}, not a CNP")
    for i in missed:
        f = by_no.get(p["frame"][i], {})
        net = f.get("ip") or f.get("grh") or {}
        if frame_stream(f) != (row["src"], row["dst"], row["dqpn"]) or net.get("ecn", net.get("tclass", 0) & 3) != 3:
            fail(f"{name}: stream {row['stream']}: missed CNP at frame {p['frame'][i]}, not a CE mark of the stream")
    congested[0] += 1


def check_pauses(name, doc, rep):
    """The pause intervals against the PFC/PAUSE rows of -q's JSON: per source MAC and priority, the
    intervals' lengths add up to paused_ns, the longest is longest_ns, the storms are storms; the
    frames sent into a pause are the summary's pfc.traffic_while_paused."""
    P = rep["pauses"]
    if P["dropped"]:
        return
    rows = doc["pfc"] + [dict(r, priority=-1) for r in doc["pause"]]
    keys = {(r["src"], r["priority"]) for r in rows}
    for i in range(P["n"]):
        if (P["src"][i], P["priority"][i]) not in keys:
            fail(f"{name}: pause interval of {P['src'][i]} p{P['priority'][i]}, not in the summary")
    for r in rows:
        iv = [i for i in range(P["n"]) if (P["src"][i], P["priority"][i]) == (r["src"], r["priority"])]
        got = (round(sum(P["len"][i] for i in iv) * 1000), round(max((P["len"][i] for i in iv), default=0) * 1000),
               sum(1 for i in iv if P["flags"][i] & RP_STORM))
        want = (r["paused_ns"], r["longest_ns"], r["storms"])
        if got != want:
            fail(f"{name}: {r['src']} p{r['priority']}: intervals (paused ns, longest ns, storms) {got}, summary {want}")
    ip = rep["into_pause"]
    want = doc["summary"]["events"].get("pfc.traffic_while_paused", 0)
    if not ip["dropped"] and ip["points"]["n"] != want:
        fail(f"{name}: {ip['points']['n']} frames sent into a pause in the page, the summary counts {want}")


INT64_MAX = (1 << 63) - 1
REPORT_TS_MAX = (1 << 62) - 1         # report_data.h: the times the report plots
SPAN_ABSURD_NS = 315576000 * 10**9    # 10 years


def frame_ns(ts):
    """A per-frame JSON time stamp (seconds, as printed) as rocedump's ns: held at the int64
    range (input.h: frame_ts_ns)."""
    d = Decimal(ts)
    sec = int(d.to_integral_value(rounding="ROUND_FLOOR"))
    lim = INT64_MAX // 10**9 - 1
    if sec > lim:
        return INT64_MAX
    if sec < -lim:
        return -INT64_MAX - 1
    return sec * 10**9 + int((d - sec) * 10**9)


def check_times(name, rep, stamps):
    """The report's time stamp checks (its note) and the timeline's bins against the frames' own
    time stamps (stamps: per frame, as -T json prints them; rep: rd-report, numbers as Decimal):
    frames out of order, before 1970, beyond the range plotted; every frame in the bin of its
    time (held within ±REPORT_TS_MAX ns), at most options.bins bins."""
    raw = [frame_ns(x) for x in stamps]
    t = [max(-REPORT_TS_MAX, min(REPORT_TS_MAX, x)) for x in raw]
    steps = [(t[i - 1] - t[i]) for i in range(1, len(raw)) if raw[i] < raw[i - 1]]
    want = {"backwards": len(steps), "max_step_back_us": Decimal(max(steps, default=0)) / 1000,
            "before_1970": sum(x < 0 for x in raw), "clamped": sum(a != b for a, b in zip(raw, t)),
            "absurd_span": bool(t) and max(t) - min(t) > SPAN_ABSURD_NS}
    ts = rep.get("timestamps")
    if ts is None:
        fail(f"{name}: no timestamps block in rd-report")
    elif {k: ts.get(k) for k in want} != want:
        fail(f"{name}: time stamp checks {ts}, the frames' time stamps give {want}")
    tl = rep["timeline"]
    if not t:
        return
    if not 0 < tl["n"] <= rep["options"]["bins"] or tl["width"] < 1:
        fail(f"{name}: timeline of {tl['n']} bins {tl['width']} µs wide")
        return
    t0, w = min(t) + int(tl["t0"] * 1000), int(tl["width"] * 1000)
    count = [0] * tl["n"]
    for x in t:
        i = (x - t0) // w
        if not 0 <= i < tl["n"]:
            fail(f"{name}: a frame at {x} ns falls outside the timeline's {tl['n']} bins from {t0} ns, {w} ns wide")
            return
        count[i] += 1
    if count != tl["frames"]:
        fail(f"{name}: the timeline's bins hold {tl['frames'][:8]}... frames, their time stamps put {count[:8]}... in them")


def check_json(args, name, path, page, hostile):
    with open(page, encoding="utf-8") as f:
        b = blocks(f.read())
    if set(b) != {"rd-summary", "rd-streams", "rd-report"}:
        fail(f"{name}: JSON blocks {sorted(b)}")
        return
    q = run([args.rocedump, "-q", "-T", "json", "-r", path] + OPTIONS.get(name, []))
    qsum = json.loads(q.stdout.splitlines()[0]) if q.stdout else None
    if b["rd-summary"] != qsum:
        fail(f"{name}: rd-summary differs from rocedump -q -T json's summary")
    s = run([args.rocedump, "-q", "--summary", "-T", "json", "-r", path] + OPTIONS.get(name, []))
    lines = [json.loads(x) for x in s.stdout.splitlines()]
    st = [x for x in lines if "streams" in x]
    rep = b["rd-report"]
    if rep["pairs_listed"] == rep["pairs_total"]:
        if not st or b["rd-streams"] != st[0]:
            fail(f"{name}: rd-streams differs from rocedump --summary -T json's streams")
    rows = b["rd-streams"]["streams"]["rows"]
    if len(rep["series"]) != len(rows):
        fail(f"{name}: {len(rep['series'])} series for {len(rows)} rows")
    # trouble order and the pairs' rows
    keys = [(-p["errors"], -p["warnings"], -p["retransmits"], -p["bytes"], p["pair"]) for p in rep["pairs"]]
    if keys != sorted(keys):
        fail(f"{name}: pairs not sorted by trouble")
    for p in rep["pairs"]:
        if sum(rows[i]["bytes"] for i in p["rows"]) != p["bytes"] or any(rows[i]["pair"] != p["pair_id"] for i in p["rows"]):
            fail(f"{name}: pair {p['pair']}: rows {p['rows']} are not its own")
        if p["retransmits"] != sum(rows[i]["retransmits"] for i in p["rows"]):
            fail(f"{name}: pair {p['pair']}: retransmits differ from its rows'")
        if p["plotted"] != (p["rank"] < rep["options"]["plots"]):
            fail(f"{name}: pair {p['pair']}: plotted {p['plotted']} at rank {p['rank']}")
        if p["plotted"]:
            check_timings(name, [rows[i] for i in p["rows"]], [rep["series"][i] for i in p["rows"]])
    tl = rep["timeline"]
    summ = b["rd-summary"]["summary"]
    if sum(tl["frames"]) != summ["frames"] or sum(tl["bytes"]) != summ["bytes"]:
        fail(f"{name}: the timeline's frames/bytes differ from the summary's")
    if sum(tl["info"]) + sum(tl["warn"]) + sum(tl["error"]) != sum(summ["events"].values()):
        fail(f"{name}: the timeline's events differ from the summary's")
    j = run([args.rocedump, "-T", "json", "-r", path] + OPTIONS.get(name, []))
    frames = [json.loads(x) for x in j.stdout.splitlines()]
    with open(page, encoding="utf-8") as f:
        check_times(name, blocks(f.read(), Decimal)["rd-report"], re.findall(r'^\{"frame":\d+,"ts":(-?[0-9.]+)', j.stdout, re.M))
    exact = binned = 0
    check_pauses(name, b["rd-summary"], rep)
    check_hops(name, rep, b["rd-summary"])
    for i, ser in enumerate(rep["series"]):
        if ser is None:
            continue
        if ser["mode"] != "none":
            check_cong(name, rows[i], ser, frames)
        if ser["mode"] == "exact":
            check_exact(name, rows[i], ser, frames)
            exact += 1
        elif ser["mode"] == "bins":
            check_bins(name, rows[i], ser)
            binned += 1
        else:
            fail(f"{name}: row {i} without series: {ser.get('reason')}")
    print(f"ok {name}: {len(rows)} rows, {len(rep['pairs'])} pairs, {exact} streams exact, {binned} binned")
    return exact, binned


def check_hops(name, rep, doc):
    """rd-report's per-hop series against the summary's path hops (doc: rd-summary): there when
    the summary has hops, in the timeline's bins (no bin holding more packets than the timeline's
    frames there), each hop's bins adding up to its figures."""
    hops = (doc["summary"].get("path") or {}).get("hops") or []
    h = rep.get("hops")
    if not hops:
        if h is not None:
            fail(f"{name}: hop series on a page without hops")
        return 0
    if h is None or not h["list"]:
        fail(f"{name}: no hop series for {len(hops)} hops")
        return 0
    if h["n"] != rep["timeline"]["n"]:
        fail(f"{name}: hop series of {h['n']} bins, the timeline has {rep['timeline']['n']}")
    # each packet's share of a hop is binned at its frame at from: a frame of that bin
    tl = rep["timeline"]["frames"]
    over = [i for i in range(min(h["n"], len(tl))) if sum(x["n"][i] + x["lost"][i] for x in h["list"]) > tl[i]]
    if over:
        fail(f"{name}: hop bins {over[:8]} hold more packets than the timeline's frames there")
    for x in h["list"]:
        t = [y for y in hops if (y["from"], y["to"]) == (x["from"], x["to"])]
        if len(t) != 1:
            fail(f"{name}: hop {x['from']}>{x['to']} not in the summary")
            continue
        t = t[0]
        if any(len(x[k]) != h["n"] for k in ("n", "lost", "min", "p50", "p99", "max")):
            fail(f"{name}: hop {x['from']}>{x['to']}: columns not of {h['n']} bins")
        d = [v for v in x["max"] if v is not None]
        got = (sum(x["n"]), sum(x["lost"]), min((v for v in x["min"] if v is not None), default=-1), max(d, default=-1))
        want = (t["delays"], t["lost"], (t["delay_ns"] or {}).get("min", -1), (t["delay_ns"] or {}).get("max", -1))
        if got != want:
            fail(f"{name}: hop {x['from']}>{x['to']}: bins give (delays, lost, min, max) {got}, the summary {want}")
        for i in range(h["n"]):
            q = [x[k][i] for k in ("min", "p50", "p99", "max")]
            if (x["n"][i] == 0) != (q[0] is None) or (q[0] is not None and not q[0] <= q[1] <= q[2] <= q[3]):
                fail(f"{name}: hop {x['from']}>{x['to']} bin {i}: {x['n'][i]} delays, min/p50/p99/max {q}")
                break
    return 1


def cmd_json(args):
    tmp = tempfile.mkdtemp(prefix="report-json-")
    os.makedirs(args.out, exist_ok=True)
    n_exact = n_binned = 0
    try:
        for name, path, hostile in all_inputs(args, tmp):
            page, r = make_report(args, name, path, args.out)
            if not page:
                continue
            res = check_json(args, name, path, page, hostile)
            if res:
                n_exact += res[0]
                n_binned += res[1]
        if not n_exact or not n_binned:
            fail(f"expected streams of both kinds: {n_exact} exact, {n_binned} binned")
        print("per-frame times checked against the summary: " + ", ".join(f"{k} {v}" for k, v in timed.items()))
        if not all(timed.values()):
            fail("some kind of per-frame time was never checked")
        print(f"streams with congestion outcomes checked: {congested[0]} exact, {congested[1]} binned; copies {copies[0]}")
        if congested[0] < 4 or not congested[1] or not copies[0]:
            fail("congestion outcomes (exact and binned) or copies hardly checked")
        # --report-plots 0: a table, no series
        page = os.path.join(tmp, "noplots.html")
        run([args.rocedump, "-q", "-r", os.path.join(args.captures, CAPTURES[0]), "--report", page, "--report-plots", "0"])
        with open(page, encoding="utf-8") as f:
            rep = blocks(f.read())["rd-report"]
        if any(s is not None for s in rep["series"]) or any(p["plotted"] for p in rep["pairs"]):
            fail("--report-plots 0 still has series")
        # without -q: the same paths as with it
        loss = os.path.join(args.captures, "paths/bridges_rc_pingpong_loss.pcapng")
        paths = []
        for q in (["-q"], []):
            page = os.path.join(tmp, "paths.html")
            run([args.rocedump] + q + ["-r", loss, "--report", page])
            with open(page, encoding="utf-8") as f:
                paths.append(blocks(f.read())["rd-summary"]["summary"].get("path"))
        if not paths[0] or paths[1] != paths[0]:
            fail(f"--report without -q: paths {paths[1]!r}, with -q {paths[0]!r}")
        # several -r files: the report names every one, in order
        two = [os.path.join(args.captures, "rxe", c) for c in ("rc_pingpong.pcap", "write_bw.pcap")]
        page = os.path.join(tmp, "two.html")
        run([args.rocedump, "-q", "-r", two[0], "-r", two[1], "--report", page])
        with open(page, encoding="utf-8") as f:
            text = f.read()
        rep = blocks(text)["rd-report"]
        title = re.search(r"<title>rocedump report: (.*?)</title>", text, re.S)
        if rep.get("captures") != two or rep.get("capture") != ", ".join(two) or not title or title.group(1) != ", ".join(two):
            fail(f"--report with two -r files names {rep.get('captures')!r}, {rep.get('capture')!r}, title {title and title.group(1)!r}")
        # the second file as the report: refused like the first
        victim2 = os.path.join(tmp, "victim2.pcap")
        shutil.copy(two[1], victim2)
        r = run([args.rocedump, "-q", "-r", two[0], "-r", victim2, "--report", victim2])
        if r.returncode != 2 or open(victim2, "rb").read() != open(two[1], "rb").read():
            fail(f"--report onto the second capture: exit {r.returncode}")
        for bad in ("abc", "-1", "100001"):
            r = run([args.rocedump, "-q", "-r", os.path.join(args.captures, CAPTURES[0]), "--report", page, "--report-plots", bad])
            if r.returncode != 2 or "plot count" not in r.stderr:
                fail(f"--report-plots {bad}: exit {r.returncode}, {r.stderr.strip()}")
        # the capture itself as the report: refused, the capture untouched
        victim = os.path.join(tmp, "victim.pcap")
        shutil.copy(os.path.join(args.captures, CAPTURES[0]), victim)
        before = open(victim, "rb").read()
        r = run([args.rocedump, "-q", "-r", victim, "--report", victim])
        if r.returncode != 2 or open(victim, "rb").read() != before:
            fail(f"--report onto the capture: exit {r.returncode}, capture {'intact' if open(victim, 'rb').read() == before else 'overwritten'}")
        # an unwritable path: exit 2 before reading
        r = run([args.rocedump, "-q", "-r", os.path.join(args.captures, CAPTURES[0]), "--report", "/nonexistent/dir/x.html"])
        if r.returncode != 2 or "nonexistent" not in r.stderr:
            fail(f"--report to an unwritable path: exit {r.returncode}, {r.stderr.strip()}")
    finally:
        shutil.rmtree(tmp)
    return 1 if failures else 0


# ---- browser ----

class DomReader(html.parser.HTMLParser):
    """Attributes of <body>, of every element with data-plot (with "canvas" set when a canvas
    follows it before the next one: uPlot drew it), and of the time stamp note; the cells of each
    row of the queue pair table."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.plots = []
        self.note = None
        self.pair_cells = []  # per row of the queue pair table, its cells
        self.in_pair = False
        self.mirror = None    # the mirror sessions' table: per row, its cells' text; None: no table
        self.in_mirror = False
        self.path = None      # the paths' hop table, the same way
        self.in_path = False
        self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if "data-plot" in a:
            self.plots.append(a)
        if tag == "canvas" and self.plots:
            self.plots[-1]["canvas"] = True
        if a.get("id") == "rd-ts-note":
            self.note = dict(a, text="")
        if tag == "tr":
            self.in_pair = "pair" in a.get("class", "").split()
            if self.in_pair:
                self.pair_cells.append(0)
        if tag == "td" and self.in_pair:
            self.pair_cells[-1] += 1
        if tag == "table":
            self.in_mirror = "mirror" in a.get("class", "").split()
            if self.in_mirror:
                self.mirror = []
            self.in_path = "path" in a.get("class", "").split()
            if self.in_path:
                self.path = []
        if self.in_mirror and tag == "tr":
            self.mirror.append([])
        if self.in_path and tag == "tr":
            self.path.append([])
        if (self.in_mirror or self.in_path) and tag == "td":
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            (self.mirror if self.in_mirror else self.path)[-1].append(self.cell)
            self.cell = None
        if tag == "table":
            self.in_mirror = self.in_path = False

    def handle_data(self, data):
        if self.note is not None and not self.note["text"]:
            self.note["text"] = data
        if self.cell is not None:
            self.cell += data


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                  "--remote-debugging-pipe", "--enable-logging=stderr", "--v=0"]


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
    JSON messages ended by NUL, commands on the browser's fd 3, replies and events on its fd 4),
    one browser for every page; no library needed."""

    def __init__(self, path):
        self.prof = tempfile.mkdtemp(prefix="report-chromium-")
        cmd_r, self.cmd_w = os.pipe()
        self.ev_r, ev_w = os.pipe()

        def child_fds():  # fds 3 and 4, whatever numbers the pipes got (kept by pass_fds)
            a, b = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(ev_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen([path] + CHROMIUM_FLAGS + ["--user-data-dir=" + self.prof, "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(self.prof, "stderr.log"), "w"),
                                     pass_fds=(3, 4), preexec_fn=child_fds)
        os.close(cmd_r)
        os.close(ev_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        import select
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.ev_r], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.ev_r, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[i]
                return m
        while True:
            m = self._read(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def open(self, url, width=1000, height=1800, screenshot=True):
        """A fresh tab at url, loaded; returns (console messages and exceptions, DOM, PNG or None)."""
        if self.session:
            self.send("Target.closeTarget", {"targetId": self.target}, session=False)
        self.events = []
        self.target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": self.target, "flatten": True}, session=False)["sessionId"]
        for m in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.send(m)
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        dom = self.send("Runtime.evaluate", {"expression": "document.documentElement.outerHTML", "returnByValue": True})["result"]["value"]
        png = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"]) if screenshot else None
        self.send("Runtime.evaluate", {"expression": "1"})  # flush events queued before it
        noise = []
        for m in self.events:
            meth, p = m.get("method"), m.get("params", {})
            if meth == "Runtime.consoleAPICalled":
                noise.append(f"console.{p.get('type')}: " + " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
            elif meth == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                noise.append("exception: " + str(d.get("exception", {}).get("description", d.get("text"))))
            elif meth == "Log.entryAdded":
                e = p.get("entry", {})
                noise.append(f"log {e.get('level')} {e.get('source')}: {e.get('text')} {e.get('url', '')}")
        return noise, dom, png

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.ev_r)
        shutil.rmtree(self.prof, ignore_errors=True)


def ce_marks(s):
    """CE-marked frames in a series (copies left out)."""
    if s is None or s["mode"] == "none":
        return 0
    if s["mode"] == "bins":
        return sum(s["ce"])
    return sum(1 for f in s["points"]["flags"] if f & RF_CE and not f & RF_COPY)


def cong_outcomes(s):
    """A series' congestion outcomes (CNPs and missed CE marks)."""
    c = s and s.get("cong")
    if not c:
        return 0
    return c["points"]["n"] if c["mode"] == "exact" else sum(c["cnp"]) + sum(c["missed"])


def pfc_rows(doc):
    return doc["pfc"] + [dict(r, priority=-1) for r in doc["pause"]]


def expected_plots(rep, rows, doc):
    """Plots the page must draw with #all: 2 in the overview (none without frames), 2 for the
    hops' series when there are any, one pause
    timeline per PFC priority (and PAUSE) named, and 5 per direction, 6 when the pair has CE marks
    or congestion outcomes, 7 when it has CE->CNP latencies."""
    n = 2 if rep["timeline"]["n"] else 0
    n += 2 if (rep.get("hops") or {}).get("list") else 0  # the hops' delay and loss
    n += len({r["priority"] for r in pfc_rows(doc)})
    psn = {}
    for p in rep["pairs"]:
        if not p["plotted"]:
            continue
        dirs = [i for i in p["rows"] if rows[i]["requests"] > 0] or p["rows"][:1]
        for i in dirs:
            s = rep["series"][i]
            if s and s["mode"] != "none":
                ser = [rep["series"][j] for j in p["rows"]]
                n += 5 + (sum(ce_marks(x) + cong_outcomes(x) for x in ser) > 0)
                n += sum((rows[j]["congestion"]["ce_to_cnp_ns"] or {}).get("count", 0) for j in p["rows"]) > 0
                psn[i] = s
    return n, psn


TABLE_PAGE = 200  # report.js: pairs the table shows at first (or the plotted ones, if more)


def check_mirror(name, d, doc):
    """The mirror sessions' table against the summary's mirror block: there exactly when the
    capture has mirror sessions, one row per session in its order with its encapsulation, outer
    addresses, session id (or GRE key), frames, gaps and frames lost."""
    sessions = (doc["summary"].get("mirror") or {}).get("sessions", [])
    if not sessions:
        if d.mirror is not None:
            fail(f"{name}: a mirror sessions table on a page without mirror sessions")
        return
    rows = [r for r in (d.mirror or []) if r]
    if len(rows) != len(sessions):
        fail(f"{name}: mirror sessions table of {len(rows)} rows, the summary has {len(sessions)} sessions")
        return
    mirrored[0] += 1
    for r, s in zip(rows, sessions):
        count = (lambda v: f"{v:,}") if s["sequenced"] else (lambda v: "-")
        ident = f"session {s['session_id']}" if "session_id" in s else f"key {s['gre_key']}" if "gre_key" in s else "-"
        want = [s["kind"], s["src"] + " > " + s["dst"], ident, f"{s['frames']:,}", count(s.get("gaps")), count(s.get("lost"))]
        if r[:6] != want:
            fail(f"{name}: mirror session {s['point']}: the table shows {r[:6]}, the summary {want}")
        if s.get("gaps"):
            mirrored[1] += 1


def check_path(name, d, doc):
    """The paths' hop table against the summary's path block: there exactly when the path has
    hops, one row per hop in its order with the points' names and every figure."""
    p = doc["summary"].get("path")
    hops = p["hops"] if p else []
    if not hops:
        if d.path is not None:
            fail(f"{name}: a paths table on a page without hops")
        return
    names = {pt["point"]: pt["name"] for pt in p["points"]}
    rows = [r for r in (d.path or []) if r]
    if len(rows) != len(hops):
        fail(f"{name}: paths table of {len(rows)} rows, the summary has {len(hops)} hops")
        return
    paths_checked[0] += 1
    n = lambda v: "-" if v is None else f"{v:,}"
    for r, h in zip(rows, hops):
        dl = h["delay_ns"] or {}
        want = [names[h["from"]], names[h["to"]], n(h["seen_from"]), n(h["seen_to"]), n(h["lost"]), n(h["mirror_lost"]),
                n(h["reordered"]), n(dl.get("min")), n(dl.get("p50")), n(dl.get("p99")), n(dl.get("max")),
                n(None if h["offset_source"] == "none" else h["offset_ns"]), n(h["offset_uncertainty_ns"]), h["offset_source"]]
        if r != want:
            fail(f"{name}: hop {h['from']}>{h['to']}: the table shows {r}, the summary {want}")


def check_page_whole(name, d, rep):
    """What any page must draw whatever its time stamps: every queue pair row of the table's first
    page with its 15 cells; the timeline drawn (a canvas) in at most options.bins bins; the note
    on the time stamps when rd-report's checks found any, saying what they found, else none."""
    want = min(len(rep["pairs"]), max(TABLE_PAGE, rep["options"]["plots"]))
    if len(d.pair_cells) != want or any(n != 15 for n in d.pair_cells):
        fail(f"{name}: queue pair table of {len(d.pair_cells)} rows (cells {sorted(set(d.pair_cells))}), expected {want} of 15")
    for p in d.plots:
        if p["data-plot"] == "timeline" and (not p.get("canvas") or not 0 < int(p["data-bins"]) <= rep["options"]["bins"]):
            fail(f"{name}: timeline of {p['data-bins']} bins, drawn: {p.get('canvas', False)}")
    ts = rep.get("timestamps")
    if ts is None:
        fail(f"{name}: no timestamps block in rd-report")
        return
    says = {"out of order": ts["backwards"], "before 1970": ts["before_1970"], "drawn at that limit": ts["clamped"],
            "absurd time stamps": ts["absurd_span"]}
    if not any(says.values()):
        if d.note:
            fail(f"{name}: a time stamp note on a page without: {d.note['text']}")
        return
    text = d.note["text"] if d.note else ""
    missing = [k for k, v in says.items() if bool(v) != (k in text)]
    if not d.note or missing:
        fail(f"{name}: the time stamp note says {text!r}: wrong on {missing}")


def check_dom(name, dom, rep, rows, doc):
    """What the page drew (its data-* attributes) against the JSON, and where the summary has the
    same figure, against the summary (doc: rd-summary, rows: rd-streams' rows, both equal to
    rocedump's own -q and --summary output, report-json checks): a page that draws other data than
    the summary's fails here even when its own rd-report block agrees with the drawing."""
    d = DomReader()
    d.feed(dom)
    if d.body.get("data-ready") != "1" or "data-error" in d.body:
        fail(f"{name}: the page did not finish: {d.body}")
        return
    check_page_whole(name, d, rep)
    check_mirror(name, d, doc)
    check_path(name, d, doc)
    want, psn = expected_plots(rep, rows, doc)
    if len(d.plots) != want or d.body.get("data-plots", "0") != str(want):
        fail(f"{name}: {len(d.plots)} plots drawn (body says {d.body.get('data-plots')}), expected {want}")
    seen = {}
    ce = {}
    cong = {}
    lat = {}
    pfc = {}
    for p in d.plots:
        if p["data-plot"] == "congestion":
            ce[int(p["data-row"])] = int(p["data-points"])
            cong[int(p["data-row"])] = (int(p["data-cnps"]), int(p["data-missed"]))
        if p["data-plot"] == "cnp-latency":
            lat[int(p["data-row"])] = int(p["data-points"])
        if p["data-plot"] == "pfc":
            pfc[int(p["data-priority"])] = p
        if p["data-plot"] == "psn":
            seen[int(p["data-row"])] = p
        if p["data-plot"] == "timeline":
            tl = rep["timeline"]
            if int(p["data-points"]) != sum(tl["info"]) + sum(tl["warn"]) + sum(tl["error"]) or int(p["data-bins"]) != tl["n"]:
                fail(f"{name}: the timeline drew {p['data-points']} events in {p['data-bins']} bins")
    # pause timelines: per priority, the paused time and storms of the summary's rows
    for prio in {r["priority"] for r in pfc_rows(doc)}:
        p = pfc.get(prio)
        rs = sorted((r for r in pfc_rows(doc) if r["priority"] == prio), key=lambda r: -r["paused_ns"])[:PFC_LANES]
        srcs = {r["src"] for r in rs}
        P = rep["pauses"]
        if not p:
            fail(f"{name}: no pause timeline for priority {prio}")
            continue
        got = (round(float(p["data-paused-us"]) * 1000), int(p["data-storms"]), int(p["data-points"]), int(p["data-into"]))
        ip = rep["into_pause"]["points"]
        into = sum(1 for k in range(ip["n"]) if ip["code"][k] == (8 if prio < 0 else prio)
                   and ":".join(f"{ip['psn'][k]:012x}"[j:j + 2] for j in range(0, 12, 2)) in srcs)
        want = (sum(r["paused_ns"] for r in rs), sum(r["storms"] for r in rs),
                sum(1 for x, m in zip(P["priority"], P["src"]) if x == prio and m in srcs), into)
        if not P["dropped"] and got != want:
            fail(f"{name}: priority {prio}: timeline drew (paused ns, storms, intervals, frames into a pause) {got}, summary and JSON {want}")
    for i, s in psn.items():
        pair = next(p for p in rep["pairs"] if i in p["rows"])
        want = sum(ce_marks(rep["series"][j]) for j in pair["rows"])
        if want and ce.get(i) != want:
            fail(f"{name}: row {i}: congestion plot drew {ce.get(i)} CE marks, the JSON has {want}")
        cg = [rows[j]["congestion"] for j in pair["rows"]]
        want = (sum(c["cnps"] for c in cg), sum(c["cnp_missing"] for c in cg))
        if i in cong and cong[i] != want:
            fail(f"{name}: row {i}: congestion plot drew (CNPs, missed) {cong[i]}, the summary's rows have {want}")
        if any(want) and i not in cong:
            fail(f"{name}: row {i}: no congestion plot for (CNPs, missed) {want}")
        want = sum((c["ce_to_cnp_ns"] or {}).get("count", 0) for c in cg)
        if lat.get(i, 0) != want:
            fail(f"{name}: row {i}: latency plot drew {lat.get(i)} CE->CNP latencies, the summary's rows have {want}")
        p = seen.get(i)
        if not p:
            fail(f"{name}: no PSN-time plot for row {i}")
            continue
        pts = s["points"] if s["mode"] == "exact" else s["marks"]
        # the plot draws this row's requests and the responses to them (on the other row): a
        # response point of this row (an ACK of the other side's requests) is the other plot's
        cps = [k for k in range(pts["n"]) if pts["flags"][k] & RF_COPY and pts["kind"][k] == RK_REQ]
        theirs = [rep["series"][j] for j in pair["rows"] if j != i]
        if theirs and theirs[0] and theirs[0]["mode"] != "none":
            q = theirs[0]["points"] if theirs[0]["mode"] == "exact" else theirs[0]["marks"]
            cps += [k for k in range(q["n"]) if q["flags"][k] & RF_COPY and q["kind"][k] != RK_REQ]
        if int(p["data-copies"]) != len(cps):
            fail(f"{name}: row {i}: PSN plot drew {p['data-copies']} copies, the JSON has {len(cps)}")
        reqs = [k for k in range(pts["n"]) if pts["kind"][k] == RK_REQ and not pts["flags"][k] & RF_COPY]
        retx = [k for k in reqs if pts["flags"][k] & RF_RETX]
        if int(p["data-requests"]) != len(reqs) or int(p["data-retransmissions"]) != len(retx):
            fail(f"{name}: row {i}: PSN plot drew {p['data-requests']} requests / {p['data-retransmissions']} resends, "
                 f"the JSON has {len(reqs)} / {len(retx)}")
        if s["mode"] == "exact" and rows[i]["packets"] and int(p["data-points"]) < len(reqs):
            fail(f"{name}: row {i}: PSN plot drew {p['data-points']} points for {len(reqs)} requests")
        if p.get("data-mode") != s["mode"] and s["mode"] == "bins":
            fail(f"{name}: row {i}: binned stream drawn as {p.get('data-mode')}")


def tamper_pauses(rep):
    rep["pauses"]["len"][0] += 1.0  # one pause 1 µs longer


def tamper_storm(rep):
    f = rep["pauses"]["flags"]
    f[next(i for i in range(len(f)) if f[i] & RP_STORM)] &= ~RP_STORM  # a storm drawn as a pause


def tamper_cnps(rep):
    for s in rep["series"]:
        c = s and s.get("cong")
        if c and c["mode"] == "exact" and RK_CNP in c["points"]["kind"]:
            c["points"]["kind"][c["points"]["kind"].index(RK_CNP)] = RK_CE_MISSED  # a CNP drawn as missed
            return


def tamper_latency(rep):
    for s in rep["series"]:
        c = s and s.get("cong")
        if c and c["lat_hist"]:
            c["lat_hist"][0][2] += 1
            return


# pages drawn again from wrong data (their rd-report changed, the summary's blocks not): the
# checks must see it
TAMPER = {"gen_pfc_timeline": [tamper_pauses], "pfc_storms": [tamper_storm], "gen_cnp_matching": [tamper_cnps, tamper_latency]}


def tamper(browser, name, page, text, b, tmp):
    for f in TAMPER[name]:
        rep = json.loads(json.dumps(b["rd-report"]))
        f(rep)
        bad = os.path.join(tmp, name + "-" + f.__name__ + ".html")
        with open(bad, "w", encoding="utf-8") as out:
            out.write(rewrite_report(text, rep))
        noise, dom, _ = browser.open("file://" + bad + "#all", screenshot=False)
        before = len(failures)
        expecting[0] = True
        check_dom(name + " (" + f.__name__ + ")", dom, rep, b["rd-streams"]["streams"]["rows"], b["rd-summary"])
        expecting[0] = False
        caught = failures[before:]
        del failures[before:]
        if noise or not caught:
            fail(f"{name}: {f.__name__}: a page drawn from wrong data passed (console {noise})")
        else:
            print(f"ok {name}: {f.__name__} caught: {caught[0]}")


def rewrite_report(text, rep):
    """The page's text with rd-report replaced by rep."""
    body = json.dumps(rep, separators=(",", ":")).replace("<", "\\u003c")
    return re.sub(r'(<script type="application/json" id="rd-report">).*?(</script>)',
                  lambda m: m.group(1) + body + m.group(2), text, count=1, flags=re.S)


def huge_times(browser, name, text, b, tmp):
    """The script alone against times it must not choke on, whatever rocedump writes: the
    timeline's bins and the streams' points near 2^63 ns (as µs), 1 ns apart. The page must draw
    everything without a console message."""
    rep = json.loads(json.dumps(b["rd-report"]))
    far = 9223372036854775.807
    rep["timeline"].update(t0=far, width=0.001)
    for s in rep["series"]:
        if s and s["mode"] == "exact":
            s["points"]["t"] = [far + i * 0.001 for i in range(s["points"]["n"])]
    bad = os.path.join(tmp, name + "-huge-times.html")
    with open(bad, "w", encoding="utf-8") as out:
        out.write(rewrite_report(text, rep))
    noise, dom, _ = browser.open("file://" + bad + "#all", screenshot=False)
    for n in noise:
        fail(f"{name} (times near 2^63 ns, 1 ns apart): {n}")
    before = len(failures)
    check_dom(name + " (times near 2^63 ns, 1 ns apart)", dom, rep, b["rd-streams"]["streams"]["rows"], b["rd-summary"])
    if len(failures) == before and not noise:
        print(f"ok {name}: times near 2^63 ns, 1 ns apart, drawn")


def cmd_browser(args):
    args.chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not args.chromium:
        print("SKIP: chromium not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="report-browser-")
    os.makedirs(args.out, exist_ok=True)
    browser = Browser(args.chromium)
    try:
        # the harness itself: a page's console message and exception must be seen
        bad = os.path.join(tmp, "selftest.html")
        with open(bad, "w") as f:
            f.write("<html><body><script>console.error('selftest'); undefinedFn();</script></body></html>")
        noise, _, _ = browser.open("file://" + bad)
        if len(noise) < 2:
            fail(f"selftest: the harness missed a console message or an exception: {noise}")
        for name, path, hostile in all_inputs(args, tmp):
            page, r = make_report(args, name, path, args.out)
            if not page:
                continue
            with open(page, encoding="utf-8") as f:
                text = f.read()
            if re.search(r'\b(src|href)\s*=\s*"(https?:)?//', text):
                fail(f"{name}: the page refers to another resource")
            b = blocks(text)
            noise, dom, png = browser.open("file://" + os.path.abspath(page) + "#all")
            for n in noise:
                fail(f"{name}: {n}")
            check_dom(name, dom, b["rd-report"], b["rd-streams"]["streams"]["rows"], b["rd-summary"])
            if name in TAMPER:
                tamper(browser, name, page, text, b, tmp)
            if name == "hostile_ts_extreme":
                huge_times(browser, name, text, b, tmp)
            shot = os.path.join(args.out, name + ".png")
            with open(shot, "wb") as f:
                f.write(png)
            if len(png) < 5000:
                fail(f"{name}: screenshot of {len(png)} bytes")
            print(f"ok {name}: drawn, no console messages, screenshot {shot}")
        print(f"pages with mirror sessions checked: {mirrored[0]}, sessions with gaps {mirrored[1]}")
        if not mirrored[1]:
            fail("no mirror session with a gap checked (derived/erspan2_mirror_gap.pcap)")
        print(f"pages with a paths table checked: {paths_checked[0]}")
        if not paths_checked[0]:
            fail("no paths table checked (paths/bridges_rc_pingpong_loss.pcapng)")
    finally:
        browser.close()
        shutil.rmtree(tmp)
    return 1 if failures else 0


HOP_PAGES = [  # name, capture (in --captures, or made by the test), options
    ("tbf", "paths/bridges_rc_pingpong_tbf.pcapng", ["--copy-window-us", "50000"]),
    ("loss", "paths/bridges_rc_pingpong_loss.pcapng", []),
    ("back", None, []),
    ("one_point", "rxe/rc_pingpong.pcap", []),
]


def sll2_back(src, dst):
    """src's frames (a pcapng of Ethernet interfaces, ns) in time order as one SLL2 pcap, each
    interface an interface index, 7 times over: 10, 20, ... 60 s later, then as they were, a step
    back before the first frame once the path analysis has folded packets (the sightings table
    forgets them for room past 1,024): the timeline's bins shift up under the hops' (tbins.h)."""
    d, off, frames = open(src, "rb").read(), 0, []
    while off < len(d):
        kind, size = struct.unpack_from("<II", d, off)
        if kind == 6:
            iface, hi, lo, cap = struct.unpack_from("<IIII", d, off + 8)
            frames.append(((hi << 32) | lo, iface, d[off + 28:off + 28 + cap]))
        off += size
    frames.sort(key=lambda f: f[0])
    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 276)]
    for k, (ts, iface, fr) in [(k, f) for k in (1, 2, 3, 4, 5, 6, 0) for f in frames]:
        ts += k * 10 * 10**9
        body = fr[12:14] + b"\0\0" + struct.pack(">I", iface + 1) + b"\0\x01\x04\x06" + fr[6:12] + b"\0\0" + fr[14:]
        out.append(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(body), len(body)) + body)
    with open(dst, "wb") as f:
        f.write(b"".join(out))


def cmd_hops(args):
    args.chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    os.makedirs(args.out, exist_ok=True)
    browser = Browser(args.chromium) if args.chromium else None
    try:
        for name, cap, opts in HOP_PAGES:
            page = os.path.join(args.out, name + ".html")
            path = os.path.join(args.captures, cap) if cap else os.path.join(args.out, name + ".pcap")
            if not cap:
                sll2_back(os.path.join(args.captures, "paths/bridges_rc_pingpong_loss.pcapng"), path)
            r = run([args.rocedump, "-q", "-r", path, "--report", page] + opts)
            if r.returncode != 0 or r.stderr:
                fail(f"{name}: exit {r.returncode}, {r.stderr.strip()}")
                continue
            with open(page, encoding="utf-8") as f:
                b = blocks(f.read())
            rep, doc = b["rd-report"], b["rd-summary"]
            checked = check_hops(name, rep, doc)
            if name == "back" and not rep["timestamps"]["backwards"]:
                fail(f"{name}: no time stamp steps back")
            if (name == "one_point") == bool(checked):
                fail(f"{name}: hop series {'present' if checked else 'missing'}")
            if name == "tbf" and checked:
                names = {p["point"]: p["name"] for p in doc["summary"]["path"]["points"]}
                by = {names[x["from"]] + ">" + names[x["to"]]: x for x in rep["hops"]["list"]}
                slow, fast = by.get("brA>brB"), by.get("brB>brA")
                both = [(a, c) for a, c in zip(slow["p50"], fast["p50"]) if a is not None and c is not None] if slow and fast else []
                above = sum(a > c for a, c in both)
                if len(both) < 50 or 4 * above < 3 * len(both) or max(a for a, _ in both) < 100 * max(c for _, c in both):
                    fail(f"{name}: brA>brB's p50 above brB>brA's in {above} of {len(both)} bins, "
                         f"highest {max((a for a, _ in both), default=None)} vs {max((c for _, c in both), default=None)} ns")
            if browser:
                noise, dom, _ = browser.open("file://" + os.path.abspath(page), screenshot=False)
                for n in noise:
                    fail(f"{name}: {n}")
                d = DomReader()
                d.feed(dom)
                drawn = {p["data-plot"]: p for p in d.plots if p["data-plot"].startswith("hop-")}
                if d.body.get("data-ready") != "1" or set(drawn) != (set() if name == "one_point" else {"hop-delay", "hop-loss"}):
                    fail(f"{name}: page {d.body}, hop plots {sorted(drawn)}")
                elif drawn:
                    lost = sum(y["lost"] for y in doc["summary"]["path"]["hops"])
                    if int(drawn["hop-loss"]["data-lost"]) != lost or not drawn["hop-loss"].get("canvas") or not drawn["hop-delay"].get("canvas"):
                        fail(f"{name}: the loss plot drew {drawn['hop-loss'].get('data-lost')} lost, the summary has {lost}")
            print(f"ok {name}: {'hop series checked' if checked else 'no hop series'}{', drawn' if browser else ''}")
    finally:
        if browser:
            browser.close()
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["json", "browser", "hops"])
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--gencaps", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium")
    args = ap.parse_args()
    rc = {"json": cmd_json, "browser": cmd_browser, "hops": cmd_hops}[args.mode](args)
    print(f"{len(failures)} failures")
    sys.exit(rc)


if __name__ == "__main__":
    main()
