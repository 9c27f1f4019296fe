#!/usr/bin/python3
"""transport_verdicts.py: rocedump's transport verdicts on real Soft-RoCE captures (captures/rxe)
and on captures derived from them (captures/derived, made by derive_captures.py), where the
right verdict is known from how the capture was made.

  transport_verdicts.py --rocedump PATH CAPTURES_DIR

  derived       derive_captures.py, run again, makes captures/derived byte for byte
  early-first   write_bw with a later frame moved to the front of its stream: the frames sent
                before it are the stream's start (no psn.out_of_order), and the streams' rows
                are write_bw's own
  retry         one retransmit.retry_exceeded per stuck PSN, on its 8th restart, counting the
                restarts seen at it and those inferred (a restart at a later PSN of its run:
                its own resend missing): rc_pingpong_loss_stuck (derived; restarts found here
                from the PSNs alone) and rc_pingpong_peer_dies (frame 387, 8 seen)
  spurious      a timeout resend whose original arrived: rc_pingpong_peer_dies frames 97-100
                (a resend 6 us after its original, an ACK, a second ACK of the same PSN) give
                retransmit.spurious on frame 100, ref_frame 98; on every rxe capture each
                retransmit.spurious is on an ACK whose PSN an earlier ACK of its stream, after the
                resend, already had, and its ref_frame is a retransmit.timeout it covers; a
                timeout resend an ACK had covered says so (acked_before, rc_pingpong_ecn_part
                frames 43 and 107); "lost after" per capture as listed in LOST_AFTER
  mirror        erspan2_mirror_gap (derived: one mirrored frame left out, two swapped): the
                mirror.gap and its psn.gap, counted lost at the mirror, not before the capture
                point; the swapped frame taken back as reordered; with a capture filter the
                session's counts are an upper bound
Exit 0 when every check holds, 1 otherwise (each failure printed), 2 on a usage error.
"""
import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(rocedump, path, args=()):
    """(frames by number, summary objects) of rocedump -T json on path."""
    cmd = [rocedump, '-r', path, '-T', 'json'] + list(args)
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if res.returncode not in (0, 1):
        raise RuntimeError('%s: exit %d: %s' % (' '.join(cmd), res.returncode, res.stderr.decode()))
    frames, rest = {}, []
    for line in res.stdout.decode().splitlines():
        obj = json.loads(line)
        if 'frame' in obj:
            frames[obj['frame']] = obj
        else:
            rest.append(obj)
    return frames, rest


def stream_rows(rocedump, path):
    """The --summary rows, by (src, dst, dqpn)."""
    _, rest = run_json(rocedump, path, ['-q', '--summary'])
    rows = {}
    for obj in rest:
        for row in obj.get('streams', {}).get('rows', []):
            rows[(row['src'], row['dst'], row['dqpn'])] = row
    return rows


def events_of(frames, name):
    """[(frame number, finding)] of event name."""
    return [(n, x) for n, fr in sorted(frames.items()) for x in fr.get('findings', []) if x['event'] == name]


class Checks:
    def __init__(self):
        self.failed = 0

    def check(self, name, good, detail=''):
        print('%s %s%s' % ('ok  ' if good else 'FAIL', name, '' if good else ': ' + detail))
        self.failed += 0 if good else 1


def check_derived(c, caps):
    with tempfile.TemporaryDirectory() as out:
        res = subprocess.run([sys.executable, os.path.join(HERE, 'derive_captures.py'),
                              os.path.join(caps, 'rxe'), out], check=False)
        made = sorted(os.listdir(out))
        kept = sorted(f for f in os.listdir(os.path.join(caps, 'derived')) if f.endswith('.pcap'))
        same = res.returncode == 0 and made == kept and all(
            filecmp.cmp(os.path.join(out, f), os.path.join(caps, 'derived', f), shallow=False) for f in made)
        c.check('derived: derive_captures.py makes captures/derived', same,
                'exit %d, made %s, kept %s' % (res.returncode, made, kept))


def check_early_first(c, rocedump, caps):
    frames, _ = run_json(rocedump, os.path.join(caps, 'derived', 'write_bw_early_first.pcap'))
    events = sorted({e for fr in frames.values() for e in fr.get('events', [])})
    c.check('early-first: no events', not events, 'events %s, psn.out_of_order on frames %s' %
            (events, [n for n, _ in events_of(frames, 'psn.out_of_order')]))
    want = stream_rows(rocedump, os.path.join(caps, 'rxe', 'write_bw.pcap'))
    got = stream_rows(rocedump, os.path.join(caps, 'derived', 'write_bw_early_first.pcap'))
    for key, row in want.items():
        diff = {k: (v, got.get(key, {}).get(k)) for k, v in row.items()
                if got.get(key, {}).get(k) != v and k not in ('stream', 'pair', 'max_idle_us')}
        c.check('early-first: stream %s > %s qp %d as in write_bw' % key, not diff,
                ', '.join('%s %s, not %s' % (k, g, w) for k, (w, g) in sorted(diff.items())))


def restarts(frames, src, dst, qpn, first):
    """[(frame, psn)] of the requests from src to dst's qpn, from frame first on, that go back
    from the previous request's PSN: the requester's restarts."""
    out, prev = [], None
    for n, fr in sorted(frames.items()):
        ro = fr.get('roce', {})
        if n < first or fr.get('ip', {}).get('src') != src or fr['ip'].get('dst') != dst or \
                ro.get('dqpn') != qpn or ro.get('opcode', 0x11) >= 0x0d:
            continue
        if prev is not None and ((ro['psn'] - prev) & 0xffffff) >= 0x800000:
            out.append((n, ro['psn']))
        prev = ro['psn']
    return out


def check_retry(c, rocedump, caps):
    stuck = 15754654
    frames, _ = run_json(rocedump, os.path.join(caps, 'derived', 'rc_pingpong_loss_stuck.pcap'))
    found = events_of(frames, 'retransmit.retry_exceeded')
    # the real resend (frame 203, of the SEND first sent in frame 194) and its 23 repetitions:
    # restarts at the stuck PSN or, its resend left out, at the next one
    runs = [(n, p) for n, p in restarts(frames, '10.77.0.2', '10.77.0.1', 0x19, 194) if p in (stuck, stuck + 1)]
    eighth = runs[7] if len(runs) >= 8 else (None, None)
    seen = sum(1 for _, p in runs[:8] if p == stuck)
    want = [(eighth[0], stuck, seen, 8 - seen)]
    got = [(n, x.get('expected_psn'), x.get('resends_seen'), x.get('resends_inferred')) for n, x in found]
    c.check('retry: rc_pingpong_loss_stuck: once, on the 8th restart (%d seen, %d inferred)' % (seen, 8 - seen),
            len(runs) == 24 and got == want, 'restarts %d; (frame, psn, seen, inferred) %s, want %s' %
            (len(runs), got, want))
    frames, _ = run_json(rocedump, os.path.join(caps, 'rxe', 'rc_pingpong_peer_dies.pcap'))
    got = [(n, x.get('expected_psn'), x.get('resends_seen'), x.get('resends_inferred'))
           for n, x in events_of(frames, 'retransmit.retry_exceeded')]
    c.check('retry: rc_pingpong_peer_dies: once, frame 387', got == [(387, 1711075, 8, 0)], str(got))


# lost_after_capture summed over each capture's streams: the loss-free pingpong captures lose
# nothing after the capture point; rc_pingpong_peer_dies the SEND its dead peer never answered.
LOST_AFTER = {
    'rc_pingpong_peer_dies.pcap': 1, 'rc_pingpong_ecn_part.pcap': 0, 'rc_pingpong_dup.pcap': 0,
    'snap_rc_pingpong-s96.pcap': 0, 'snap_rc_pingpong-s200.pcap': 0, 'gretap_rc_pingpong.pcap': 0,
    'rc_pingpong.pcap': 0, 'rc_pingpong_loss.pcap': 2,
}


def check_spurious_on(c, name, frames):
    """Each retransmit.spurious: an ACK, an earlier ACK of its stream after the resend with its
    PSN, and its ref_frame a retransmit.timeout of a PSN the ACK covers."""
    bad = []
    for n, x in events_of(frames, 'retransmit.spurious'):
        fr, ref = frames[n], frames.get(x.get('ref_frame', 0), {})
        ip, ro = fr.get('ip', {}), fr.get('roce', {})
        same = lambda m: (frames.get(m, {}).get('ip', {}).get('src') == ip.get('src') and
                          frames[m]['ip'].get('dst') == ip.get('dst') and
                          frames[m].get('roce', {}).get('opcode') == 0x11 and
                          frames[m]['roce'].get('dqpn') == ro.get('dqpn') and frames[m]['roce'].get('psn') == ro.get('psn'))
        twin = [m for m in range(x.get('ref_frame', n) + 1, n) if same(m)]
        covers = ((ro.get('psn', 0) - ref.get('roce', {}).get('psn', 0)) & 0xffffff) < 0x800000
        if ro.get('opcode') != 0x11 or not twin or 'retransmit.timeout' not in ref.get('events', []) or not covers:
            bad.append(n)
    c.check('spurious: %s: %d, each on a second ACK of a PSN covering a timeout resend' %
            (name, len(events_of(frames, 'retransmit.spurious'))), not bad, 'frames %s' % bad)


def check_spurious(c, rocedump, caps):
    frames, _ = run_json(rocedump, os.path.join(caps, 'rxe', 'rc_pingpong_peer_dies.pcap'))
    got = [(n, x.get('seen_psn'), x.get('ref_frame'))
           for n, x in events_of(frames, 'retransmit.spurious') if 97 <= n <= 100]
    c.check('spurious: rc_pingpong_peer_dies frame 100, resend in frame 98', got == [(100, 10163316, 98)], str(got))
    frames, _ = run_json(rocedump, os.path.join(caps, 'rxe', 'rc_pingpong_ecn_part.pcap'))
    got = [n for n, x in events_of(frames, 'retransmit.timeout') if x.get('acked_before')]
    c.check('spurious: rc_pingpong_ecn_part: timeouts acked before, frames 43 and 107', got == [43, 107], str(got))
    rxe = os.path.join(caps, 'rxe')
    for name in sorted(os.listdir(rxe)):
        if not name.endswith(('.pcap', '.pcapng')):
            continue
        frames, _ = run_json(rocedump, os.path.join(rxe, name))
        check_spurious_on(c, name, frames)
        if name in LOST_AFTER:
            lost = sum(r['lost_after_capture'] for r in stream_rows(rocedump, os.path.join(rxe, name)).values())
            c.check('spurious: %s: lost after %d' % (name, LOST_AFTER[name]), lost == LOST_AFTER[name], str(lost))


def check_mirror(c, rocedump, caps):
    path = os.path.join(caps, 'derived', 'erspan2_mirror_gap.pcap')
    frames, rest = run_json(rocedump, path, ['-q', '--summary'])
    frames, _ = run_json(rocedump, path)
    gaps = [(n, x.get('expected_seq'), x.get('seen_seq'), x.get('lost')) for n, x in events_of(frames, 'mirror.gap')]
    psn = [(n, x.get('lost_at_mirror', False)) for n, x in events_of(frames, 'psn.gap')]
    c.check('mirror: erspan2_mirror_gap: mirror.gap on frames 16 and 29', gaps == [(16, 18, 19, 1), (29, 32, 33, 1)],
            str(gaps))
    c.check('mirror: erspan2_mirror_gap: their psn.gap lost at the mirror', psn == [(16, True), (29, True)], str(psn))
    _, rest = run_json(rocedump, path, ['-q'])
    sess = [s for obj in rest for s in obj.get('summary', {}).get('mirror', {}).get('sessions', [])]
    got = [(s['point'], s['gaps'], s['lost'], s['reordered'], s['lost_psns']) for s in sess]
    c.check('mirror: erspan2_mirror_gap: session 101 lost 1, reordered 1',
            got == [('erspan2 10.77.0.1>10.77.0.200 session 101', 2, 1, 1, 1)], str(got))
    rows = stream_rows(rocedump, path)
    lost = sorted((r['lost_before_capture'], r.get('lost_at_mirror', 0)) for r in rows.values())
    c.check('mirror: erspan2_mirror_gap: streams lost before 0, at the mirror 1 and 0', lost == [(0, 0), (0, 1)],
            str(lost))
    _, rest = run_json(rocedump, path, ['-q', 'not tcp'])
    bound = [obj['summary']['mirror']['upper_bound'] for obj in rest if 'mirror' in obj.get('summary', {})]
    c.check('mirror: with a filter, an upper bound', bound == [True], str(bound))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--rocedump', required=True)
    ap.add_argument('captures')
    args = ap.parse_args()
    c = Checks()
    check_derived(c, args.captures)
    check_early_first(c, args.rocedump, args.captures)
    check_retry(c, args.rocedump, args.captures)
    check_spurious(c, args.rocedump, args.captures)
    check_mirror(c, args.rocedump, args.captures)
    print('%d failed' % c.failed if c.failed else 'all checks hold')
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main())
