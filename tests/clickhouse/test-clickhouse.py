#!/usr/bin/env python3
"""test-clickhouse.py ROCEDUMP CAPTURES DOCS: rocedump --export against a real ClickHouse server
(TAP). The server runs as the clickhouse user (when run as root) on a private data directory and
private ports, configured in a temporary directory; skipped when clickhouse-server is absent.
What the tables hold is compared with rocedump's own JSON (-T json frames, --summary), exactly; then
a server killed in the middle of an export and restarted (every row once, the spool drained; a
file streamed on standard input, and a live capture on a veth pair fed by tcpreplay, as root), a
batch resent after a lost reply (not doubled), frames over 120 days (batches of 50 days at most:
a newer server refuses more than 100 partitions an INSERT), a server away when rocedump starts (its batches
spooled, the check tried again), a full spool (drops counted exactly), a table that
differs from the schema (refused), libcurl absent (refused before a frame is read), the run's last
batches sent at once (1,000 streams; one of them refused), the shipped queries' answers, and the
cluster schema over two servers as two shards."""
import calendar
import json
import os
import pwd
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pcapfeed
import rowbinary
from tap import ok, plan, skip

RD, CAPS, DOCS, GENCAPS = sys.argv[1:5]
# CLICKHOUSE_SERVER: another server binary (a path that does not exist: the skip)
SERVER = os.environ.get('CLICKHOUSE_SERVER') or shutil.which('clickhouse-server') or '/usr/sbin/clickhouse-server'
RUNS = [('a', 'gen/anomalies.pcap'), ('a', 'gen/cnp_ecn.pcap'), ('a', 'gen/pfc_pause.pcap'),
        ('b', 'derived/rc_pingpong_loss_stuck.pcap'), ('b', 'derived/rc_pingpong_ecn_ce_burst.pcap'),
        ('b', 'gen/capture_drops.pcapng'), ('b', 'gen/pfc_timeline.pcap')]


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


USERS = '''<?xml version="1.0"?>
<yandex>
  <profiles><default></default><ro><readonly>1</readonly></ro></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
    <ro><password>secret</password><networks><ip>127.0.0.1</ip></networks><profile>ro</profile><quota>default</quota></ro>
  </users>
  <quotas><default></default></quotas>
</yandex>
'''


class Server:
    """A clickhouse-server of our own: its config, data and logs under dir."""

    def __init__(self, dir):
        self.dir, self.http, self.tcp, self.remote = dir, free_port(), free_port(), ''
        self.proc = None

    def configure(self):
        dir, remote = self.dir, self.remote
        os.makedirs(dir, exist_ok=True)
        with open(f'{dir}/users.xml', 'w') as f:
            f.write(USERS)
        with open(f'{dir}/config.xml', 'w') as f:
            f.write(f'''<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{dir}/server.log</log><errorlog>{dir}/error.log</errorlog><console>0</console></logger>
  <http_port>{self.http}</http_port><tcp_port>{self.tcp}</tcp_port><listen_host>127.0.0.1</listen_host>
  <path>{dir}/data/</path><tmp_path>{dir}/tmp/</tmp_path><user_files_path>{dir}/files/</user_files_path>
  <format_schema_path>{dir}/schemas/</format_schema_path>
  <users_config>{dir}/users.xml</users_config><default_profile>default</default_profile>
  <default_database>default</default_database><timezone>UTC</timezone>
  <mark_cache_size>5368709</mark_cache_size><uncompressed_cache_size>8589934</uncompressed_cache_size>
  <remote_servers>{remote}</remote_servers>
</yandex>
''')

    def start(self):
        self.configure()
        cmd = [SERVER, f'--config-file={self.dir}/config.xml']
        if os.geteuid() == 0:  # as the clickhouse user, as the package runs it
            try:
                pw = pwd.getpwnam('clickhouse')
                subprocess.run(['chown', '-R', f'{pw.pw_uid}:{pw.pw_gid}', self.dir], check=True)
                cmd = ['setpriv', f'--reuid={pw.pw_uid}', f'--regid={pw.pw_gid}', '--clear-groups'] + cmd
            except KeyError:
                pass
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # its /ping answers once it listens
            try:
                if urllib.request.urlopen(f'http://127.0.0.1:{self.http}/ping', timeout=1).read() == b'Ok.\n':
                    return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        raise RuntimeError('clickhouse-server did not answer /ping')

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.kill()  # its data goes with the temporary directory: no clean shutdown needed

    def q(self, sql, db='rd'):
        req = urllib.request.Request(f'http://127.0.0.1:{self.http}/?database={db}', data=sql.encode())
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.read().decode()

    def rows(self, sql, db='rd'):
        return [json.loads(line) for line in self.q(sql + ' FORMAT JSONEachRow', db).splitlines()]

    def url(self, db='rd'):
        return f'http://127.0.0.1:{self.http}/{db}'


def rocedump(*args, stdin=None, env=None):
    return subprocess.run([RD, *args], capture_output=True, text=True, input=stdin, env=env, timeout=60)


def expected(cap):
    """What rocedump's JSON says of cap: the frames --export sends, their findings, the streams
    and the summary."""
    frames = [json.loads(line) for line in rocedump('-T', 'json', '-r', cap).stdout.splitlines()]
    sel = [f for f in frames if f['events'] or f.get('findings') or f.get('analysis')]
    out = rocedump('-q', '-T', 'json', '--summary', '-r', cap).stdout.splitlines()
    summary, streams = json.loads(out[0])['summary'], json.loads(out[-1])['streams']
    return {'frames': sel, 'all': frames, 'summary': summary, 'streams': streams}


def export_runs(srv, tmp):
    exp = {}
    for box, cap in RUNS:
        path = f'{CAPS}/{cap}'
        r = rocedump('-q', '-r', path, '--export', srv.url(), '--export-host', box)
        ok(r.returncode == 0 and ' 0 dropped' in r.stderr, f'export of {cap} from box {box}', r.stderr)
        exp[(box, path)] = expected(path)
    return exp


def run_ids(srv):
    return {(r['box'], r['source']): r['run_id'] for r in srv.rows('SELECT box, source, run_id FROM captures')}


def check_tables(srv, exp):
    ids = run_ids(srv)
    for (box, path), e in exp.items():
        rid = ids.get((box, path))
        ok(rid is not None, f'{path}: one captures row', ids)
        if rid is None:
            continue
        got = srv.rows(f"SELECT frame, events, dqpn, psn, findings, ce_frame, ce_to_cnp_ns FROM frames "
                       f"WHERE run_id = '{rid}' ORDER BY frame")
        want = [{'frame': str(f['frame']), 'events': f['events'], 'dqpn': f.get('roce', {}).get('dqpn', 0),
                 'psn': f.get('roce', {}).get('psn', 0), 'findings': len(f.get('findings', [])),
                 'ce_frame': str(f.get('analysis', {}).get('ce_frame', 0)),
                 'ce_to_cnp_ns': str(f.get('analysis', {}).get('ce_to_cnp_ns', 0))} for f in e['frames']]
        ok(got == want, f'{path}: frames rows are the JSON frames with events ({len(want)})',
           f'got {got[:3]}\nwant {want[:3]}')
        got = srv.rows(f"SELECT frame, event, stream, pair, qpn, ref_frame FROM findings WHERE run_id = '{rid}' "
                       f"ORDER BY frame, event, stream, qpn, ref_frame")
        want = sorted(({'frame': str(f['frame']), 'event': x['event'], 'stream': x.get('stream', 0),
                        'pair': x.get('pair', 0), 'qpn': x.get('qpn', 0), 'ref_frame': str(x.get('ref_frame', 0))}
                       for f in e['all'] for x in f.get('findings', [])),
                      key=lambda r: (int(r['frame']), r['event'], r['stream'], r['qpn'], int(r['ref_frame'])))
        by_event = {k: v['count'] for k, v in e['summary']['findings'].items()}
        n_by_event = {}
        for w in want:
            n_by_event[w['event']] = n_by_event.get(w['event'], 0) + 1
        ok(got == want and n_by_event == by_event,
           f'{path}: findings rows are the JSON findings ({len(want)}; the summary counts them alike)',
           f'got {got[:3]}\nwant {want[:3]}\n{n_by_event} {by_event}')
        cols = ['stream', 'pair', 'src', 'dst', 'dqpn', 'packets', 'bytes', 'retransmits', 'missing_psns',
                'lost_before_capture', 'lost_after_capture', 'cnps']
        got = srv.rows(f"SELECT {', '.join(cols)} FROM streams WHERE run_id = '{rid}' ORDER BY stream")
        want = sorted(({c: (r['congestion']['cnps'] if c == 'cnps' else r[c]) for c in cols}
                       for r in e['streams']['rows']), key=lambda r: r['stream'])
        for r in want:
            for c in ('packets', 'bytes', 'retransmits', 'missing_psns', 'lost_before_capture',
                      'lost_after_capture', 'cnps'):
                r[c] = str(r[c])  # UInt64: a JSON string in ClickHouse's output
        ok(got == want, f'{path}: streams rows are the --summary rows ({len(want)})', f'got {got[:2]}\nwant {want[:2]}')
        cap = srv.rows(f"SELECT frames, bytes, drops FROM captures WHERE run_id = '{rid}'")
        cs = e['streams']['capture']
        drops = sum(cs.get(k) or 0 for k in ('os_drops', 'if_drops'))
        ok(cap == [{'frames': str(e['summary']['frames']), 'bytes': str(e['summary']['bytes']),
                    'drops': str(drops)}], f'{path}: the captures row has the summary\'s frames and drops', cap)


def quantile(vals, level):  # ClickHouse's quantileExact: the value at floor(level * n) of the sorted ones
    v = sorted(vals)
    return v[min(int(level * len(v)), len(v) - 1)]


def check_queries(srv, exp):
    ids = run_ids(srv)
    rid = {k: ids[k] for k in exp}

    def q(name):
        with open(f'{DOCS}/queries/{name}.sql') as f:
            return srv.rows(f.read().strip())
    # top retransmitting QPs: per box and hour, the ten (dst, qpn) that resent most
    counts = {}
    for (box, _), e in exp.items():
        for f in e['all']:
            for x in f.get('findings', []):
                if x['event'] in ('psn.retransmit', 'retransmit.timeout'):
                    key = (box, int(f['ts']) // 3600 * 3600, x.get('dst', ''), x['qpn'])
                    counts[key] = counts.get(key, 0) + 1
    want = []
    for bh in sorted({k[:2] for k in counts}):
        rows = sorted((k for k in counts if k[:2] == bh), key=lambda k: (-counts[k], k[2], k[3]))[:10]
        want += [(k[0], k[1], k[2], k[3], counts[k]) for k in rows]
    got = [(r['box'], calendar.timegm(time.strptime(r['hour'], '%Y-%m-%d %H:%M:%S')), r['dst'], r['qpn'],
            int(r['retransmits'])) for r in q('top_retransmitting_qps')]
    ok(got == want and want, 'top_retransmitting_qps.sql: the JSON findings, counted and ranked', f'{got}\n{want}')
    got = {(r['box'], r['run_id']): (int(r['lost_before']), int(r['lost_after'])) for r in q('loss_by_capture_point')}
    want = {(k[0], rid[k]): (sum(s['lost_before_capture'] for s in e['streams']['rows']),
                             sum(s['lost_after_capture'] for s in e['streams']['rows']))
            for k, e in exp.items() if e['streams']['rows']}
    ok(got == want, 'loss_by_capture_point.sql: the --summary streams\' lost before and after', f'{got}\n{want}')
    got = {r['box']: (int(r['cnps']), int(r['p50_ns']), int(r['p99_ns'])) for r in q('ce_to_cnp_quantiles')}
    want = {}
    for box in sorted({k[0] for k in exp}):
        v = [f['analysis']['ce_to_cnp_ns'] for (b, _), e in exp.items() if b == box for f in e['all'] if 'analysis' in f]
        if v:
            want[box] = (len(v), quantile(v, 0.5), quantile(v, 0.99))
    ok(got == want and want, 'ce_to_cnp_quantiles.sql: the JSON frames\' ce_to_cnp_ns p50 and p99', f'{got}\n{want}')
    got = {(r['box'], r['priority']): int(r['pause_quanta']) for r in q('pfc_paused_time')}
    want = {}
    for (box, _), e in exp.items():
        for f in e['all']:
            for x in f.get('findings', []):
                if x['event'] == 'pfc.pause':
                    key = (box, -1 if x['priority'] is None else x['priority'])
                    want[key] = want.get(key, 0) + x['quanta']
    ok(got == want and want, 'pfc_paused_time.sql: the JSON pfc.pause findings\' quanta', f'{got}\n{want}')


def pcap_thirds(path):
    """A pcap's file header with its first third of records, the second third, the rest."""
    data = open(path, 'rb').read()
    recs = pcapfeed.records(data)
    a, b = len(recs) // 3, 2 * len(recs) // 3
    return data[:24] + b''.join(recs[:a]), b''.join(recs[a:b]), b''.join(recs[b:])


def wait_for(cond, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


def count(srv, table, where):
    return int(srv.q(f'SELECT count() FROM {table} WHERE {where}'))


def check_restart(srv, tmp):
    """The server killed while a capture streams in, then restarted: the next run sends the spool
    first; every row once."""
    cap = f'{CAPS}/derived/rc_pingpong_loss_stuck.pcap'
    e = expected(cap)
    spool = f'{tmp}/spool'
    parts = pcap_thirds(cap)
    p = subprocess.Popen([RD, '-q', '-r', '-', '--export', srv.url(), '--export-host', 'k', '--export-spool', spool],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stdin.write(parts[0])
    p.stdin.flush()
    sent = wait_for(lambda: count(srv, 'frames', "box = 'k'") > 0)  # the first batch, a second old
    srv.kill()
    p.stdin.write(parts[1])
    p.stdin.flush()
    spooled = wait_for(lambda: os.listdir(spool))  # the next batches fail: into the spool
    srv.start()
    retried = wait_for(lambda: not os.listdir(spool))  # sent again within the run, after a pause
    ok(sent and spooled and retried, 'server killed and restarted during a run: the spool sent again within it',
       f'{sent} {spooled} {retried}')
    srv.kill()
    p.stdin.write(parts[2])
    p.stdin.close()
    err = p.stderr.read().decode()
    p.wait(timeout=60)
    files = os.listdir(spool)
    ok(p.returncode == 0 and files and 'left in the spool' in err,
       'server killed again: the run ends with the rest spooled, exit 0', f'{p.returncode} {files} {err}')
    srv.start()
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-host', 'k2',
                 '--export-spool', spool)
    got, want = box_counts(srv, 'k'), want_counts(e)
    ok(r.returncode == 0 and got == want and not os.listdir(spool),
       'server restarted: the next run drains the spool first, every row once', f'{got} {want} {r.stderr}')
    return spool


def box_counts(srv, box):
    """A box's rows in each table, and its distinct frames."""
    return [count(srv, 'frames', f"box = '{box}'"), int(srv.q(f"SELECT uniqExact(frame) FROM frames WHERE box = '{box}'")),
            count(srv, 'findings', f"box = '{box}'"), count(srv, 'streams', f"box = '{box}'"),
            count(srv, 'captures', f"box = '{box}'")]


def want_counts(e):
    """What box_counts finds of a run, by rocedump's JSON."""
    return [len(e['frames']), len(e['frames']), sum(len(f.get('findings', [])) for f in e['all']),
            len(e['streams']['rows']), 1]


def check_away_at_start(srv, tmp):
    """The server away when rocedump starts (a box that boots first): the tables' check is tried
    again, the batches meanwhile spooled; a run that ends before the server is back leaves them
    to the next; one that sees it come back sends them within the run. Every row once."""
    first, second = f'{CAPS}/gen/cnp_ecn.pcap', f'{CAPS}/derived/rc_pingpong_loss_stuck.pcap'
    spool = f'{tmp}/spool-away'
    srv.kill()
    r = rocedump('-q', '-r', first, '--export', srv.url(), '--export-host', 'w1', '--export-spool', spool)
    left = sorted(os.listdir(spool))
    away = 'batches go to the spool until the server takes them'
    ok(r.returncode == 0 and len(left) == 4 and 'left in the spool' in r.stderr and "Couldn't connect" in r.stderr and
       r.stderr.count(away) == 1,
       'server away at the start: the run\'s batches spooled (one a table), exit 0, the reason said once',
       f'{r.returncode} {left} {r.stderr}')
    parts = pcap_thirds(second)
    p = subprocess.Popen([RD, '-q', '-r', '-', '--export', srv.url(), '--export-host', 'w2', '--export-spool', spool],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stdin.write(parts[0])
    p.stdin.flush()
    spooled = wait_for(lambda: len(os.listdir(spool)) > len(left))  # its first batch, a second old
    srv.start()
    drained = wait_for(lambda: not os.listdir(spool))  # the check tried again, then the spool sent
    p.stdin.write(parts[1] + parts[2])
    p.stdin.close()
    err = p.stderr.read().decode()
    p.wait(timeout=60)
    got = [box_counts(srv, 'w1'), box_counts(srv, 'w2')]
    want = [want_counts(expected(first)), want_counts(expected(second))]
    back = 'the server takes batches again; the spool is sent'
    ok(spooled and drained and p.returncode == 0 and ' 0 dropped' in err and got == want and not os.listdir(spool) and
       err.count(away) == 1 and err.count(back) == 1 and err.index(away) < err.index(back),
       'the server back during the next run: the check tried again, the spool sent within the run, every row once '
       '(the spooling and the server\'s return each said once)',
       f'{spooled} {drained} {p.returncode} {err} {got} {want}')


def check_many_days(srv, tmp):
    """A file whose frames span 120 days: no batch holds rows of more than 50 (the partitions are
    days; ClickHouse from 19.x refuses an INSERT of more than 100 for ever, and a server in another
    timezone than UTC may see a UTC day as two). 18.16 takes any number: what is checked is the
    batches' days, and every row once."""
    data = open(f'{CAPS}/gen/cnp_ecn.pcap', 'rb').read()
    frames = [r[16:] for r in pcapfeed.records(data)]
    out = [data[:24]]
    for day in range(120):
        for i, r in enumerate(frames):
            out.append(struct.pack('<IIII', 1700000000 + day * 86400, i, len(r), len(r)) + r)
    cap = f'{tmp}/days.pcap'
    with open(cap, 'wb') as f:
        f.write(b''.join(out))
    r = rocedump('-q', '-r', cap, '--export', srv.url(), '--export-host', 'days')
    got = {t: srv.rows(f"SELECT count() AS batches, max(d) AS days, sum(n) AS rows FROM (SELECT batch_id, "
                       f"uniqExact(toYYYYMMDD(time)) AS d, count() AS n FROM {t} WHERE box = 'days' GROUP BY batch_id)")[0]
           for t in ('frames', 'findings')}
    e = expected(cap)
    want = {'frames': len(e['frames']), 'findings': sum(len(f.get('findings', [])) for f in e['all'])}
    ok(r.returncode == 0 and all(int(got[t]['days']) == 50 and int(got[t]['rows']) == want[t] and
                                 int(got[t]['batches']) == 3 for t in got),
       'frames over 120 days: batches of 50 days at most (3 a table), every row once', f'{got} {want} {r.stderr}')


def check_live_restart(srv, tmp):
    """A live capture (rocedump -i on the root namespace's end of a veth pair, tcpreplay sending
    from a network namespace of its own at 1,000 frames a second for 14 s), the server killed 3 s
    in and started again 4 s later: the capture goes on, its batches spooled meanwhile and sent
    within the run once the server is back; every row once (the frames it wrote with -w, read
    back with -T json, make the rows it must have sent)."""
    if os.geteuid() != 0 or not shutil.which('tcpreplay') or not shutil.which('ip'):
        skip('a live capture while the server restarts: needs root, ip and tcpreplay')
        return
    ns, a, b = f'rocedump-chl-{os.getpid()}', f'rdch{os.getpid() % 100000}a', f'rdch{os.getpid() % 100000}b'
    spool, written = f'{tmp}/spool-live', f'{tmp}/live.pcapng'

    def sh(*cmd):
        return subprocess.run(cmd, capture_output=True, timeout=30).returncode == 0
    try:
        if not (sh('ip', 'netns', 'add', ns) and sh('ip', 'link', 'add', a, 'type', 'veth', 'peer', 'name', b) and
                sh('ip', 'link', 'set', a, 'netns', ns) and sh('sysctl', '-qw', f'net.ipv6.conf.{b}.disable_ipv6=1') and
                sh('ip', 'link', 'set', b, 'mtu', '9000', 'up') and
                sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', a, 'mtu', '9000', 'up')):
            skip('a live capture while the server restarts: cannot make a network namespace and a veth pair here')
            return
        p = subprocess.Popen([RD, '-i', b, '-q', '-w', written, '--export', srv.url(), '--export-host', 'live',
                              '--export-spool', spool], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err = ''
        while 'listening on' not in err and p.poll() is None:
            err += p.stderr.readline()
        time.sleep(0.3)  # a fresh ring's start-up (tests/live/test-live.sh)
        replay = subprocess.Popen(['ip', 'netns', 'exec', ns, 'tcpreplay', '-q', '--pps=1000', '--duration=14',
                                   '--loop=0', '-i', a, f'{CAPS}/rxe/write_bw_loss.pcap'],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(3)
        srv.kill()
        time.sleep(4)
        spooled = bool(os.listdir(spool))  # the batches of those 4 s
        srv.start()
        replay.wait(timeout=60)
        drained = wait_for(lambda: not os.listdir(spool), timeout=15)
        time.sleep(1.5)  # the last frames' batches sealed
        p.send_signal(signal.SIGINT)
        err += p.stderr.read()
        p.wait(timeout=60)
    finally:
        subprocess.run(['ip', 'netns', 'del', ns], capture_output=True)
        subprocess.run(['ip', 'link', 'del', b], capture_output=True)
    e = expected(written)
    got, want = box_counts(srv, 'live'), want_counts(e)
    ok(p.returncode == 0 and spooled and drained and got == want and len(e['all']) > 10000 and
       ' 0 dropped' in err and 'the server takes batches again' in err and not os.listdir(spool),
       f'a live capture, the server killed and restarted during it: the spool sent within the run, every row once '
       f'({len(e["all"])} frames; frames, distinct frames, findings, streams, captures {got})',
       f'exit {p.returncode} spooled {spooled} drained {drained} got {got} want {want} {err}')


def columns(srv, table):
    """The table's (name, type) pairs, in its order."""
    return [(c['name'], c['type']) for c in
            srv.rows(f"SELECT name, type FROM system.columns WHERE database = 'rd' AND table = '{table}'")]


def check_lost_reply(srv, spool):
    """A batch the server took but whose answer was lost is in the spool too: sent again, it is
    found by its batch id and not doubled."""
    bid = srv.q("SELECT any(batch_id) FROM frames WHERE box = 'k'").strip()
    n = count(srv, 'frames', "box = 'k'")
    # the batch's rows as rocedump spools them: RowBinary, the table's columns in order
    rows = urllib.request.urlopen(urllib.request.Request(
        f'http://127.0.0.1:{srv.http}/?database=rd',
        data=f"SELECT * FROM frames WHERE batch_id = '{bid}' FORMAT RowBinary".encode()), timeout=30).read()
    run, seq = bid.split(':')
    with open(f'{spool}/{run}.{seq}.frames.rowbinary', 'wb') as f:
        f.write(rows)
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-host', 'k3',
                 '--export-spool', spool)
    ok(r.returncode == 0 and count(srv, 'frames', "box = 'k'") == n and not os.listdir(spool),
       'a batch resent after a lost reply is found by its batch id, not doubled', r.stderr)


def check_spool_full(srv, tmp):
    """Inserts refused (a read-only user: HTTP 500 and 'Code: 164'), the spool holding only so
    much: the rows that did not fit are dropped, and counted exactly (exit status, metric)."""
    cap = f'{CAPS}/rxe/read_bw_lossy.pcap'
    e = expected(cap)
    spool, metrics = f'{tmp}/spool-full', f'{tmp}/metrics.prom'
    env = dict(os.environ, CLICKHOUSE_PASSWORD='secret')
    url = srv.url().replace('://', '://ro@')
    r = rocedump('-q', '-r', cap, '--export', url, '--export-host', 'f', '--export-all-frames', '--export-spool', spool,
                 '--export-spool-max', '8192', '--metrics-file', metrics, env=env)
    spooled = sum(len(rowbinary.rows(open(f'{spool}/{n}', 'rb').read(), columns(srv, n.split('.')[2])))
                  for n in os.listdir(spool))
    total = len(e['all']) + sum(len(f.get('findings', [])) for f in e['all']) + len(e['streams']['rows']) + 1
    m = [line for line in open(metrics) if line.startswith('rocedump_export_rows_total{outcome="dropped"}')]
    dropped = total - spooled
    ok(r.returncode == 2 and f' {dropped} dropped' in r.stderr and 'Code: 164' in r.stderr and spooled > 0 and
       m == [f'rocedump_export_rows_total{{outcome="dropped"}} {dropped}\n'],
       f'spool full: {dropped} of {total} rows dropped and counted exactly (stderr, metric, exit 2)',
       f'{r.returncode} {r.stderr} {m} spooled {spooled}')
    files = os.listdir(spool)
    gauges = [line for line in open(metrics) if line.startswith('rocedump_export_spool_')]
    want = [f'rocedump_export_spool_batches {len(files)}\n',
            f'rocedump_export_spool_bytes {sum(os.path.getsize(f"{spool}/{n}") for n in files)}\n',
            'rocedump_export_spool_refused_batches 0\n']  # a read-only user refuses every batch: none set aside
    ok(gauges == want, f'the spool\'s gauges: its {len(files)} batches and their bytes', f'{gauges} {want}')
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-host', 'f2',
                 '--export-spool', spool)
    ok(r.returncode == 0 and count(srv, 'frames', "box = 'f'") + count(srv, 'findings', "box = 'f'") +
       count(srv, 'streams', "box = 'f'") + count(srv, 'captures', "box = 'f'") == spooled,
       'the spooled rows sent by the next run', r.stderr)


def check_refusals(srv):
    srv.q('CREATE DATABASE other', db='default')
    srv.q('CREATE TABLE other.findings (time DateTime, frame UInt32) ENGINE = MergeTree ORDER BY time', db='default')
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url('other'))
    ok(r.returncode == 2 and 'table other.findings differs' in r.stderr, 'a table that differs is refused (exit 2)',
       r.stderr)
    rows = srv.q("SELECT count() FROM system.parts WHERE database = 'other' AND active", db='default').strip()
    ok(rows == '0', 'a table that differs: no row sent to any table (the check ends before the first insert)', rows)
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url('absent'))
    ok(r.returncode == 2 and 'Code: 81' in r.stderr, 'an absent database: the server\'s error, exit 2', r.stderr)
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', 'https://127.0.0.1/rd')
    ok(r.returncode == 2 and 'https://127.0.0.1:8443/' in r.stderr, 'https: port 8443 by default', r.stderr)
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url().replace('://', '://ro:secret@'))
    ok(r.returncode == 2 and 'invalid --export URL' in r.stderr and 'secret' not in r.stderr,
       'a password in the URL is refused, and not shown', r.stderr)
    pw = f'{os.path.dirname(srv.dir)}/pw'
    with open(pw, 'w') as f:
        f.write('wrong\n')
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url().replace('://', '://ro@'),
                 '--export-password-file', pw)
    ok(r.returncode == 2 and 'Code: 193' in r.stderr, '--export-password-file: the file\'s password is sent', r.stderr)
    check_no_libcurl(srv)


def check_no_libcurl(srv):
    """libcurl, loaded at --export's start, absent (a private mount of /dev/null over it): exit 2
    before a frame is read, the message naming it."""
    lib = os.path.realpath('/usr/lib/x86_64-linux-gnu/libcurl.so.4')
    if os.geteuid() != 0 or not shutil.which('unshare') or not os.path.exists(lib):
        skip('libcurl absent: needs root, unshare and ' + lib)
        return
    r = subprocess.run(['unshare', '-m', 'sh', '-c', 'mount --bind /dev/null "$0" && exec "$@"', lib, RD,
                        '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url()],
                       capture_output=True, text=True, timeout=60)
    ok(r.returncode == 2 and r.stderr.startswith('rocedump: --export needs libcurl (libcurl.so.4)') and r.stdout == '',
       'libcurl absent: exit 2 at the start, nothing read, the message names it', f'exit {r.returncode} {r.stdout[:300]} {r.stderr}')


def check_all_frames(srv):
    """--export-all-frames, and frames_per_minute_vs_drops.sql against the JSON."""
    cap = f'{CAPS}/gen/capture_drops.pcapng'
    e = expected(cap)
    r = rocedump('-q', '-r', cap, '--export', srv.url(), '--export-host', 'm', '--export-all-frames')
    with open(f'{DOCS}/queries/frames_per_minute_vs_drops.sql') as f:
        got = [(int(x['frames']), int(x['drops'])) for x in srv.rows(f.read().strip()) if x['box'] == 'm']
    per_min = {}
    for fr in e['all']:
        per_min[int(fr['ts']) // 60] = per_min.get(int(fr['ts']) // 60, 0) + 1
    cs = e['streams']['capture']
    drops = sum(cs.get(k) or 0 for k in ('os_drops', 'if_drops'))
    want = [(per_min[k], drops) for k in sorted(per_min)]
    ok(r.returncode == 0 and got == want and drops > 0,
       'frames_per_minute_vs_drops.sql: every frame (--export-all-frames) by minute, the capture\'s drops', f'{got} {want}')


def frame_fields(f):
    """A JSON frame's fields as its frames row gives them: the network's addresses and ECN (IP or
    GRH; '' and 0 without), the BTH's opcode (256 without), dqpn and PSN, the ICRC status ('' for
    none), the events."""
    net = f.get('ip') or f.get('grh') or {}
    roce = f.get('roce') or {}
    bth = 'opcode' in roce
    return {'frame': str(f['frame']), 'src': net.get('src', ''), 'dst': net.get('dst', ''),
            'ecn': net.get('ecn', 0), 'opcode': roce['opcode'] if bth else 256,
            'dqpn': roce.get('dqpn', 0) if bth else 0, 'psn': roce.get('psn', 0) if bth else 0,
            'icrc': (roce.get('icrc') or {}).get('status', '') if bth else '', 'events': f['events']}


def many_hosts_pcap(path):
    """A pcap of RoCEv2 SEND_ONLY packets from one host to 256 others and back, over IPv4 and IPv6
    (addresses that differ in their last bytes only: --export keeps a pair's text by a hash of
    those bytes, and pairs that share a slot must not share a text). Their ICRCs are not
    computed: the JSON and the rows both say bad."""
    out = bytearray(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    bth = bytes([0x04, 0, 0xff, 0xff, 0, 0, 0x01, 0x23, 0, 0, 0, 5]) + bytes(4)  # + ICRC
    n = 0
    for k in range(256):
        for v6 in (False, True):
            a = bytes([10, 0, 0, 1]) if not v6 else bytes.fromhex('fd00' + '00' * 13 + '01')
            b = bytes([10, 1, k // 16, k % 16]) if not v6 else bytes.fromhex('fd00' + '00' * 12) + bytes([1, k // 16, k % 16])
            for src, dst in ((a, b), (b, a)):
                udp = struct.pack('>HHHH', 49152, 4791, 8 + len(bth), 0) + bth
                if v6:
                    net = struct.pack('>IHBB', 0x60000000 | 2 << 20, len(udp), 17, 64) + src + dst
                    eth = bytes.fromhex('020000000002020000000001' + '86dd')
                else:
                    net = struct.pack('>BBHHHBBH', 0x45, 1, 20 + len(udp), 0, 0x4000, 64, 17, 0) + src + dst
                    eth = bytes.fromhex('020000000002020000000001' + '0800')
                pkt = eth + net + udp
                n += 1
                out += struct.pack('<IIII', 1767225600, n, len(pkt), len(pkt)) + pkt
    with open(path, 'wb') as f:
        f.write(out)
    return path


def check_frame_fields(srv, tmp):
    """Every frame (--export-all-frames) of captures over IPv4, IPv6, RoCEv1's GRH, VLANs, mirror
    encapsulations and frames that are not RoCE, and of one host talking to 256 others: each
    frames row's addresses, ECN, opcode, dqpn, PSN, ICRC status and events are the JSON frame's."""
    for cap in ('gen/rocev2_ipv6.pcap', 'gen/rocev1.pcap', 'gen/cnp_ecn.pcap', 'gen/anomalies.pcap',
                'gen/vlan_qinq.pcap', 'gen/mirror_wrappers.pcap', many_hosts_pcap(f'{tmp}/many_hosts.pcap')):
        path = cap if cap.startswith('/') else f'{CAPS}/{cap}'
        cap = os.path.basename(cap) if cap.startswith('/') else cap
        if not os.path.exists(path):
            ok(False, f'{cap}: the capture is there')
            continue
        want = [frame_fields(f) for f in expected(path)['all']]
        r = rocedump('-q', '-r', path, '--export', srv.url(), '--export-host', 'fields', '--export-all-frames')
        rid = run_ids(srv).get(('fields', path))
        got = srv.rows(f"SELECT frame, src, dst, ecn, opcode, dqpn, psn, icrc, events FROM frames "
                       f"WHERE run_id = '{rid}' ORDER BY frame") if rid else []
        bad = [(g, w) for g, w in zip(got, want) if g != w]
        ok(r.returncode == 0 and len(got) == len(want) > 0 and not bad,
           f'{cap}: every frames row\'s addresses, ECN, opcode, dqpn, PSN, ICRC status and events are the JSON frame\'s '
           f'({len(want)} frames)', f'{len(got)} rows, {len(want)} frames; first difference {bad[:1]}')


def check_evicted(srv):
    """--max-streams: the streams the analysis evicts are exported as they go (evicted = 1), the
    rest at the end: as many rows as --summary counts and evicts."""
    cap = f'{CAPS}/rxe/read_bw_lossy.pcap'
    out = rocedump('-q', '-T', 'json', '--summary', '--max-streams', '1', '-r', cap).stdout.splitlines()
    st = json.loads(out[-1])['streams']
    r = rocedump('-q', '-r', cap, '--export', srv.url(), '--export-host', 'e', '--max-streams', '1')
    got = (count(srv, 'streams', "box = 'e' AND evicted = 1"), count(srv, 'streams', "box = 'e' AND evicted = 0"))
    ok(r.returncode == 0 and st['evicted'] > 0 and got == (st['evicted'], st['count']),
       f'--max-streams 1: {st["evicted"]} evicted streams exported as they went, {st["count"]} at the end',
       f'{got} {st["evicted"]} {st["count"]} {r.stderr}')


def check_end(srv, tmp):
    """The run's last batches (frames, findings, 1,000 streams rows, the captures row) go at
    once, each over a connection of its own: every table as -T json counts it. Then the
    captures table a view (which takes no INSERT, its columns the table's): the other three
    taken, the captures row alone spooled, and sent once by the next run."""
    cap = f'{tmp}/cong.pcap'
    subprocess.run([GENCAPS, '--bench-cong', cap, '20000', '500', '1'], check=True)
    e = expected(cap)
    want = [len(e['frames']), sum(len(f.get('findings', [])) for f in e['all']), len(e['streams']['rows']), 1]

    def counts(box):
        return [count(srv, t, f"box = '{box}'") for t in ('frames', 'findings', 'streams', 'captures')]
    r = rocedump('-q', '-r', cap, '--export', srv.url(), '--export-host', 'end')
    ok(r.returncode == 0 and counts('end') == want and f'{sum(want)} rows sent, 0 spooled' in r.stderr,
       f'the run\'s last batches at once: every table as -T json counts it ({want})', f'{counts("end")} {r.stderr}')
    srv.q('RENAME TABLE captures TO captures_kept')
    srv.q('CREATE VIEW captures AS SELECT * FROM captures_kept')
    spool = f'{tmp}/spool-end'
    r = rocedump('-q', '-r', cap, '--export', srv.url(), '--export-host', 'end2', '--export-spool', spool)
    files = [n.split('.')[-2] for n in os.listdir(spool)]
    ok(r.returncode == 0 and files == ['captures'] and counts('end2') == want[:3] + [0] and
       'left in the spool' in r.stderr, 'the captures row refused at the end: it alone spooled, the rest taken',
       f'{files} {counts("end2")} {r.stderr}')
    srv.q('DROP TABLE captures')
    srv.q('RENAME TABLE captures_kept TO captures')
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-host', 'end3',
                 '--export-spool', spool)
    ok(r.returncode == 0 and counts('end2') == want and not os.listdir(spool),
       'the next run sends the spooled captures row: every row once', f'{counts("end2")} {r.stderr}')


def statements(path):
    """A .sql file's statements, its comments left out."""
    text = '\n'.join(line.split('--')[0] for line in open(path).read().splitlines())
    return [s.strip() for s in text.split(';') if s.strip()]


def check_cluster(s1, s2):
    """schema-cluster.sql over two servers as the two shards of one cluster: the rows of two
    boxes' exports spread over the shards by batch id, each once, and read back whole through the
    Distributed tables."""
    for s in (s1, s2):
        s.q('CREATE DATABASE rocedump_local', db='default')
        for st in statements(f'{DOCS}/schema.sql'):
            s.q(st, db='rocedump_local')
    s1.q('CREATE DATABASE rocedump', db='default')
    for st in statements(f'{DOCS}/schema-cluster.sql'):
        s1.q(st, db='rocedump')
    want = {}
    for box, cap in RUNS[:4]:
        r = rocedump('-q', '-r', f'{CAPS}/{cap}', '--export', s1.url('rocedump'), '--export-host', box)
        ok(r.returncode == 0, f'cluster: export of {cap} through the Distributed tables', r.stderr)
        e = expected(f'{CAPS}/{cap}')
        want['frames'] = want.get('frames', 0) + len(e['frames'])
        want['findings'] = want.get('findings', 0) + sum(len(f.get('findings', [])) for f in e['all'])
    # a batch's shard is its id's hash modulo 2 (two shards of weight 1, the first taking 0): the
    # four runs' batches fall on one shard alone now and then (1 in 8 for a table), so each
    # shard's rows are compared with the rows whose batch ids hash to it
    for table in ('frames', 'findings'):
        whole = int(s1.q(f'SELECT count() FROM {table}', db='rocedump'))
        parts = [int(s.q(f'SELECT count() FROM {table}', db='rocedump_local')) for s in (s1, s2)]
        by_key = [int(s1.q(f'SELECT count() FROM {table} WHERE cityHash64(batch_id) % 2 = {i}', db='rocedump'))
                  for i in (0, 1)]
        ok(whole == want[table] == sum(parts) and parts == by_key,
           f'cluster: {table}: {whole} rows, on two shards by batch id ({parts[0]} + {parts[1]})',
           f'{whole} {parts} {by_key} {want}')


def check_box_names(srv):
    """A box name with a tab, a backslash, a line end, quotes and UTF-8: every table's rows carry it
    as given (RowBinary Strings: nothing escaped, the bytes as they are)."""
    box = 'odd\tbox\\with\n"quotes\' and \u00e9'
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-host', box)
    got = {t: srv.rows(f"SELECT DISTINCT box FROM {t} WHERE box LIKE 'odd%'") for t in ('frames', 'findings', 'streams', 'captures')}
    ok(r.returncode == 0 and all(v == [{'box': box}] for v in got.values()),
       'a box name with a tab, a backslash, a line end and quotes: every table\'s rows carry it as given',
       f'{got} {r.stderr}')


def check_refused_batch(srv, tmp):
    """A spooled batch the real server refuses for ever (a TabSeparated batch an earlier rocedump
    might have left, its time not a time: Code 27, cannot parse) while it takes the others: passed
    over, the run's own batches sent behind it, then set aside as NAME.refused (exit 2)."""
    spool = f'{tmp}/spool-refused'
    os.makedirs(spool)
    bad = '20000101T000000Z-1-0000.0000000001.captures.rows'
    with open(f'{spool}/{bad}', 'w') as f:
        f.write('not a time\t0\t0\t0\trefused\t20000101T000000Z-1-0000\t20000101T000000Z-1-0000:0000000001\t\t0\t0\t0\tx\n')
    cap = f'{CAPS}/derived/rc_pingpong_loss_stuck.pcap'
    # over 6 s: a batch a second goes out behind the refused one
    r = pcapfeed.streamed([RD, '-q', '-r', '-', '--export', srv.url(), '--export-host', 'r', '--export-spool', spool],
                          cap, 6)
    got, want = box_counts(srv, 'r'), want_counts(expected(cap))
    ok(r.returncode == 2 and os.listdir(spool) == [bad + '.refused'] and 'Code: 27' in r.stderr and
       f'set aside as {bad}.refused' in r.stderr and got == want and count(srv, 'captures', "box = 'refused'") == 0,
       'a spooled batch the server refuses for ever: the run\'s batches sent past it (every row once), '
       'it set aside as NAME.refused (exit 2)', f'{r.returncode} {os.listdir(spool)} {got} {want} {r.stderr}')


def check_spool_links(srv, tmp):
    """The spool in a directory others may write to: a link planted under a batch's name is not
    read through (nor its target sent), a FIFO not opened (the run would wait for ever), a file
    larger than any batch not read (a sparse one costs its planter nothing), and the batches
    around them are sent; a spool that is itself a link is refused."""
    spool, secret = f'{tmp}/spool-links', f'{tmp}/secret'
    os.makedirs(spool)
    planted = '0\t0\t0\t0\tplanted\t20000101T000000Z-1-0000\t20000101T000000Z-1-0000:0000000001\t\t0\t0\t0\tx\n'
    with open(secret, 'w') as f:  # a captures row, TabSeparated as rocedump spools them
        f.write(planted)
    os.symlink(secret, f'{spool}/20000101T000000Z-1-0000.0000000001.captures.rows')
    # a FIFO (its open would wait for a writer for ever) and a sparse file of 2 GiB (read, it would
    # take 2 GiB of memory), both before the batch: neither read, both let go
    os.mkfifo(f'{spool}/19990101T000000Z-1-0000.0000000001.frames.rowbinary')
    with open(f'{spool}/19990101T000000Z-1-0000.0000000002.frames.rowbinary', 'wb') as f:
        f.truncate(2 << 30)
    with open(f'{spool}/20000101T000000Z-1-0000.0000000002.captures.rows', 'w') as f:  # a batch, after it
        f.write('0\t0\t0\t0\tspooled\t20000101T000000Z-1-0000\t20000101T000000Z-1-0000:0000000002\t\t0\t0\t0\tx\n')
    try:
        r = subprocess.run([RD, '-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-host', 'l',
                            '--export-spool', spool], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:  # waiting on the FIFO: killed
        r = subprocess.CompletedProcess([], -1, '', 'still running after 20 s')
        os.unlink(f'{spool}/19990101T000000Z-1-0000.0000000001.frames.rowbinary')
    ok(r.returncode == 0 and count(srv, 'captures', "box = 'planted'") == 0 and
       count(srv, 'captures', "box = 'spooled'") == 1 and not os.listdir(spool) and open(secret).read() == planted,
       'a link, a FIFO and a 2 GiB sparse file planted in the spool: the link not followed, the FIFO not opened, '
       'the big file not read; the batch after them sent', r.stderr)
    for name in ('20000101T000000Z-1-0000.0000000003.nosuch.rows',  # no table of rocedump's
                 "20000101T000000Z-1-0'00.0000000004.captures.rows"):  # a quote in the run id
        with open(f'{spool}/{name}', 'w') as f:
            f.write('{"box":"foreign"}\n')
    # a name with a terminal's escape in its run id: not a batch's name (names are printed), left alone
    evil = '20000101T000000Z-1-\x1b]0;owned\x07.0000000006.captures.rows'
    with open(f'{spool}/{evil}', 'w') as f:
        f.write('{"box":"foreign"}\n')
    # a RowBinary batch cut short: its whole row and half of the next
    row = urllib.request.urlopen(urllib.request.Request(
        f'http://127.0.0.1:{srv.http}/?database=rd',
        data=b"SELECT * FROM captures WHERE box = 'l' FORMAT RowBinary"), timeout=30).read()
    with open(f'{spool}/20000101T000000Z-1-0000.0000000005.captures.rowbinary', 'wb') as f:
        f.write(row + row[:len(row) // 2])
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-host', 'l2',
                 '--export-spool', spool)
    ok(r.returncode == 2 and ' 3 dropped' in r.stderr and 'is not rocedump\'s' in r.stderr and
       'is not whole rows of captures' in r.stderr and os.listdir(spool) == [evil] and '\x1b' not in r.stderr and
       count(srv, 'captures', "box = 'foreign'") == 0 and count(srv, 'captures', "box = 'l2'") == 1 and
       count(srv, 'captures', "box = 'l'") == 1,
       'spooled files not named as rocedump names its batches, or cut inside a row: no query made of the name, '
       'nothing sent, their rows dropped and counted (exit 2); a name with a control byte left alone, '
       'not printed', r.stderr)
    if os.path.exists(f'{spool}/{evil}'):
        os.unlink(f'{spool}/{evil}')
    os.symlink(spool, f'{tmp}/spool-link')
    r = rocedump('-q', '-r', f'{CAPS}/gen/cnp_ecn.pcap', '--export', srv.url(), '--export-spool', f'{tmp}/spool-link')
    ok(r.returncode == 2 and 'spool-link' in r.stderr, 'a spool that is a link is refused (exit 2)', r.stderr)


def main():
    if not os.path.exists(SERVER):
        print('1..0 # SKIP clickhouse-server is not installed')
        return 0
    r = rocedump('--export-schema')
    ok(r.returncode == 0 and r.stdout == open(f'{DOCS}/schema.sql').read(), '--export-schema prints schema.sql')
    tmp = tempfile.mkdtemp(prefix='rocedump-ch-')
    os.chmod(tmp, 0o755)
    servers = []
    t0 = time.monotonic()
    try:
        srv, srv2 = Server(f'{tmp}/s1'), Server(f'{tmp}/s2')
        servers += [srv, srv2]
        # the two of them the two shards of the cluster "rocedump" (schema-cluster.sql)
        srv.remote = srv2.remote = '<rocedump>' + ''.join(
            f'<shard><replica><host>127.0.0.1</host><port>{s.tcp}</port></replica></shard>' for s in servers) + '</rocedump>'
        srv.start()
        srv.q('CREATE DATABASE rd', db='default')
        exp = export_runs(srv, tmp)
        check_tables(srv, exp)
        check_queries(srv, exp)
        check_refusals(srv)
        check_evicted(srv)
        check_spool_links(srv, tmp)
        check_refused_batch(srv, tmp)
        check_box_names(srv)
        check_all_frames(srv)
        check_many_days(srv, tmp)
        check_frame_fields(srv, tmp)
        check_end(srv, tmp)
        check_spool_full(srv, tmp)
        check_away_at_start(srv, tmp)
        spool = check_restart(srv, tmp)
        check_live_restart(srv, tmp)
        check_lost_reply(srv, spool)
        srv2.start()
        check_cluster(srv, srv2)
        print(f'# took {time.monotonic() - t0:.1f} s')
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return plan()


sys.exit(main())
