#!/usr/bin/env python3
"""findings_counts.py: every finding reaches the per-frame JSON, none is dropped, and the counts
agree with the summary's. For each capture below the directory given (and with
--cnp-interval-us 0 too), rocedump -T json's findings, counted per event, must equal:
  - the summary's findings object (count, and frames: how many frames carry the event's findings);
  - the tables' counts where they keep one: cnp.missing the congestion table's missing,
    cnp.unexpected its unexpected CNPs plus the unattributed CNPs not ambiguous, psn.gap,
    psn.retransmit, psn.out_of_order and retransmit.timeout the stream table's gaps,
    retransmits, out_of_order and timeouts, frame.copy its copies, pfc.storm the PFC table's
    storms;
and each cnp.* finding names a stream of the table (stream and pair as its row), each pfc.* none.
Usage: findings_counts.py --rocedump PATH CAPTURES_DIR [--min-per-frame N]: exit 1 on a
mismatch, 77 when there is no capture; --min-per-frame N also requires some frame of some
capture to carry N findings or more (a capture that overflows the old limit of 8)."""
import argparse
import collections
import json
import os
import subprocess
import sys

TABLE = {  # event: the stream table row's key
    'psn.gap': 'gaps', 'psn.retransmit': 'retransmits', 'psn.out_of_order': 'out_of_order',
    'retransmit.timeout': 'timeouts', 'frame.copy': 'copies',
}


def run(rocedump, path, extra, quiet):
    args = [rocedump, '-r', path, '-T', 'json'] + extra + (['-q', '--summary'] if quiet else [])
    res = subprocess.run(args, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError('%s: exit %d: %s' % (' '.join(args), res.returncode, res.stderr.strip()))
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]


def frame_findings(records):
    count, frames, most, cnp_ids = collections.Counter(), collections.Counter(), 0, []
    for o in records:
        f = o.get('findings', [])
        most = max(most, len(f))
        for e in {x['event'] for x in f}:
            frames[e] += 1
        for x in f:
            count[x['event']] += 1
            if x['event'].startswith('cnp.') or x['event'].startswith('pfc.'):
                cnp_ids.append(x)
    return count, frames, most, cnp_ids


def table_counts(summary, rows):
    t = collections.Counter()
    for r in rows:
        for e, k in TABLE.items():
            t[e] += r[k]
        c = r.get('congestion') or {}
        t['cnp.missing'] += c.get('cnp_missing', 0)
        t['cnp.unexpected'] += c.get('cnp_unexpected', 0)
    for p in summary.get('cnp_unattributed', []):
        t['cnp.unexpected'] += p['cnps'] - p['ambiguous']
    for p in summary.get('pfc', []) + summary.get('pause', []):
        t['pfc.storm'] += p.get('storms', 0)
    return t


def check(rocedump, path, extra):
    errors = []
    count, frames, most, cong = frame_findings(run(rocedump, path, extra, False))
    out = run(rocedump, path, extra, True)
    summary = next(o for o in out if 'summary' in o)
    rows = next((o['streams']['rows'] for o in out if 'streams' in o), [])
    found = summary['summary']['findings']
    for e in sorted(set(count) | set(found)):
        s = found.get(e, {'count': 0, 'frames': 0})
        if (s['count'], s['frames']) != (count[e], frames[e]):
            errors.append('%s: frames carry %d on %d frames, the summary says %d on %d' %
                          (e, count[e], frames[e], s['count'], s['frames']))
    table = table_counts(summary, rows)
    for e in sorted(table):
        if table[e] != count[e]:
            errors.append('%s: frames carry %d, the tables count %d' % (e, count[e], table[e]))
    ids = {r['stream']: r['pair'] for r in rows}
    for x in cong:
        if x['event'].startswith('pfc.') and 'stream' in x:
            errors.append('%s names stream %d' % (x['event'], x['stream']))
        if x['event'].startswith('cnp.') and 'stream' in x and ids.get(x['stream']) != x['pair']:
            errors.append('%s: stream %d pair %d is no row of the table' % (x['event'], x['stream'], x['pair']))
    return errors, most, sum(count.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rocedump', required=True)
    ap.add_argument('--min-per-frame', type=int, default=0)
    ap.add_argument('captures')
    a = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.captures) for f in fs
                   if f.endswith(('.pcap', '.pcapng')))
    if not files:
        print('no captures below %s' % a.captures)
        return 77
    bad, most = 0, 0
    for path in files:
        for extra in ([], ['--cnp-interval-us', '0']):
            errors, m, n = check(a.rocedump, path, extra)
            most = max(most, m)
            name = os.path.relpath(path, a.captures) + (' ' + ' '.join(extra) if extra else '')
            print('%s %s: %d findings, at most %d on a frame' % ('FAIL' if errors else 'ok  ', name, n, m))
            for e in errors:
                print('    ' + e)
            bad += bool(errors)
    if most < a.min_per_frame:
        print('FAIL no frame carries %d findings or more (at most %d)' % (a.min_per_frame, most))
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
