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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--rocedump', required=True)
    ap.add_argument('captures')
    args = ap.parse_args()
    c = Checks()
    check_derived(c, args.captures)
    check_early_first(c, args.rocedump, args.captures)
    check_retry(c, args.rocedump, args.captures)
    print('%d failed' % c.failed if c.failed else 'all checks hold')
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main())
