#!/usr/bin/env python3
"""test-export-end.py ROCEDUMP GENCAPS: the end of a run's --export against a stand-in for
ClickHouse's HTTP interface (TAP; no server needed). Malformed URLs are refused at the start (a
port out of 1-65535, an IPv6 host not in brackets, a password, not shown). The stand-in answers
the tables' check from rocedump --export-schema, keeps the rows it is sent by batch id, and
holds every INSERT's answer until four are in flight at once (or a second has passed): the run's
last batches (frames, findings, streams, captures) must reach it together, over connections of
their own, rather than one after the other; with the longest box (255 bytes), every row whole. A
file's frames rows go in batches of 50,000, every one once, while the server is slow to answer
(the reading waiting for room). Then, at a run's end, one INSERT refused and one whose answer is
lost (the rows taken, the connection cut in the answer): both spooled, the others taken; the
spool's retry at the run's end finds the lost answer's batch by its id (not sent again), and the
next run sends the refused one: every row once. The spool's disk full (root): the batches that
do not fit dropped, counted exactly, the disk's error named; a spool on a read-only mount
refused at the start. The tables' check answered 503 (a proxy whose servers are away): the run's
batches spooled, not dropped. An INSERT taken whose reused connection closes with no answer at
all is not sent again by libcurl on a new one: its rows arrive once. Spooled batches the server
refuses while it takes others are passed over, then set aside; a server that refuses every
batch, or answers "too many parts" (which passes), has none set aside."""
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pcapfeed
import rowbinary
from tap import ok, plan, skip

RD, GENCAPS = sys.argv[1:3]
HOLD_S = 1.0  # an INSERT's answer held at most this long, waiting for the others


def schema_columns():
    """'table\\tname\\ttype' lines of every table, as system.columns gives them."""
    out, table = [], None
    for line in subprocess.run([RD, '--export-schema'], capture_output=True, text=True, check=True).stdout.splitlines():
        m = re.match(r'CREATE TABLE IF NOT EXISTS (\w+) \(', line)
        if m:
            table = m.group(1)
        elif table and re.match(r'\s+\w+ \S+,?$', line):
            name, typ = line.split()
            out.append(f'{table}\t{name}\t{typ.rstrip(",")}\n')
        elif line.startswith(')'):
            table = None
    return ''.join(out)


SCHEMA = schema_columns()


class Fake:
    """What the stand-in was sent, and how it is to answer."""

    def __init__(self):
        self.mu = threading.Condition()
        self.rows = {}          # (table, batch_id) -> [box, rows]
        self.in_flight = self.max_in_flight = 0
        self.refuse = self.lose = None  # a table whose INSERT is refused, or its answer lost
        self.silent = None      # a table whose INSERT is taken and its connection closed, no answer
        self.delay = 0          # seconds every INSERT's answer waits (a slow server)
        self.check_status = None  # the tables' check answered with this status (a proxy's 503)
        self.check_answer = None  # the tables' check answered with this (status, body)
        self.refuse_box = None    # INSERTs holding a row of this box refused (a batch refused for ever)
        self.refuse_code = 27     # ... with this code (27: cannot parse; 252: too many parts, which passes)
        self.refuse_all = False   # every INSERT refused (a table changed by hand)


def table_rows(table, fmt, body):
    """An INSERT's rows (bytes) as dicts: RowBinary by the schema's columns, or JSONEachRow."""
    if fmt == 'JSONEachRow':
        return [json.loads(line) for line in body.decode().splitlines()]
    return rowbinary.rows(body, [tuple(c.split('\t')[1:]) for c in SCHEMA.splitlines() if c.startswith(table + '\t')])


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        fake = self.server.fake
        args = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        query = args['query'][0] if 'query' in args else body.decode()
        m = re.match(r'INSERT INTO (\w+) FORMAT (JSONEachRow|RowBinary)', query)
        if not m:
            m = re.match(r"SELECT count\(\) FROM (\w+) WHERE batch_id = '([^']*)'", query)
            if m:
                return self.answer(200, f"{fake.rows.get((m.group(1), m.group(2)), ['', 0])[1]}\n")
            if 'system.columns' in query:
                if fake.check_answer:
                    return self.answer(*fake.check_answer)
                if fake.check_status:
                    return self.answer(fake.check_status, 'no server is available\n')
                return self.answer(200, self.server.columns)
            return self.answer(200, '1\n')
        table = m.group(1)
        with fake.mu:  # held until four are in flight, or HOLD_S
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            fake.mu.notify_all()
            fake.mu.wait_for(lambda: fake.max_in_flight >= 4, timeout=HOLD_S)
            fake.in_flight -= 1
        time.sleep(fake.delay)
        if table == fake.refuse:
            return self.answer(500, 'Code: 1000, e.displayText() = refused by the test\n')
        if fake.refuse_all or (fake.refuse_box and
                               any(row['box'] == fake.refuse_box for row in table_rows(table, m.group(2), body))):
            return self.answer(500, f'Code: {fake.refuse_code}, e.displayText() = DB::Exception: '
                               f'{"Too many parts (300)" if fake.refuse_code == 252 else "Cannot parse input"}\n')
        with fake.mu:
            for row in table_rows(table, m.group(2), body):
                fake.rows.setdefault((table, row['batch_id']), [row['box'], 0])[1] += 1
        if table == fake.silent:  # taken, the connection closed with no answer at all
            self.close_connection = True
            self.connection.shutdown(2)
            return None
        if table == fake.lose:  # taken, and the answer cut short
            self.send_response(200)
            self.send_header('Content-Length', '100')
            self.end_headers()
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return None
        return self.answer(200, '')


def on_tmpfs(opts, where, script, *args):
    """The shell script run in a mount namespace of its own with a tmpfs (mount options opts)
    over the directory where ($1; args are $2 on), root only: its completed process, in bytes."""
    return subprocess.run(['unshare', '-m', 'sh', '-c', f'mount -t tmpfs -o {opts} tmpfs "$1" || exit 9; {script}',
                           'sh', where, *args], capture_output=True, timeout=60)


def count(fake, box):
    n = {}
    for (table, _), (b, rows) in fake.rows.items():
        n[table] = n.get(table, 0) + (rows if b == box else 0)
    return [n.get(t, 0) for t in ('frames', 'findings', 'streams', 'captures')]


def main():
    tmp = tempfile.mkdtemp(prefix='rocedump-export-end-')
    srv = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    srv.daemon_threads = True
    srv.fake, srv.columns = Fake(), SCHEMA
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f'http://127.0.0.1:{srv.server_address[1]}/rd'
    try:
        cap = f'{tmp}/cong.pcap'  # 1,000 streams, frames with events and findings
        subprocess.run([GENCAPS, '--bench-cong', cap, '20000', '500', '1'], check=True)
        frames = [json.loads(line) for line in
                  subprocess.run([RD, '-T', 'json', '-r', cap], capture_output=True, text=True).stdout.splitlines()]
        out = subprocess.run([RD, '-q', '-T', 'json', '--summary', '-r', cap], capture_output=True,
                             text=True).stdout.splitlines()
        want = [sum(1 for f in frames if f['events'] or f.get('findings') or f.get('analysis')),
                sum(len(f.get('findings', [])) for f in frames), len(json.loads(out[-1])['streams']['rows']), 1]

        fake = srv.fake
        t0 = time.monotonic()
        r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'a'], capture_output=True,
                           text=True, timeout=60)
        took = time.monotonic() - t0
        ok(r.returncode == 0 and fake.max_in_flight == 4 and count(fake, 'a') == want and
           f'{sum(want)} rows sent, 0 spooled, 0 dropped, in 4 batches' in r.stderr,
           f'the run\'s last four batches sent at once ({took:.2f} s); every table\'s rows as -T json counts them',
           f'in flight at most {fake.max_in_flight}; {count(fake, "a")} {want}; {r.stderr}')

        # URLs refused before anything is read (exit 2): a port out of 1-65535 or not a number (one
        # passed libcurl's "bad/illegal format" at the first request, the rows dropped), an IPv6
        # address not in brackets, a password in the URL (not repeated in the message, a '/' in it
        # too), another scheme
        bad = ['http://127.0.0.1:0/rd', 'http://127.0.0.1:65536/rd', 'http://127.0.0.1:99999/rd', 'http://h:/rd',
               'http://h:8a/rd', 'http://::1/rd', 'http://[]/rd', 'http://[::1/rd', 'http://[::1]x/rd',
               'http://u:secret@127.0.0.1/rd', 'http://u:sec/ret@127.0.0.1/rd', 'ftp://u:secret@h/rd', 'http:///rd']
        wrong = []
        for u in bad:
            r = subprocess.run([RD, '-q', '-r', cap, '--export', u], capture_output=True, text=True, timeout=60)
            if r.returncode != 2 or 'invalid --export URL' not in r.stderr or 'secret' in r.stderr or \
                    'sec/ret' in r.stderr or 'rows sent' in r.stderr:
                wrong.append(f'{u}: {r.returncode} {r.stderr}')
        ok(not wrong, f'{len(bad)} malformed URLs refused at the start (exit 2), a password in one not shown',
           '\n'.join(wrong))

        # the longest box kept (255 bytes): a frames or findings row's head longer than the part
        # copied in one move (row_of_frame), every row whole (the stand-in reads each column)
        box = 'L' * 255
        r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', box + 'cut'],
                           capture_output=True, text=True, timeout=60)
        ok(r.returncode == 0 and count(fake, box) == want and ', 0 dropped' in r.stderr,
           'a box of 255 bytes (a longer one cut there): every row whole, as -T json counts them',
           f'{count(fake, box)} {want} {r.stderr}')

        # a file's rows go in batches of 50,000; the server slow to answer (1.2 s an INSERT), the
        # reading waits for room in the queue, longer than a batch's EXPORT_BATCH_S (1 s): the
        # batch opened after the wait still takes 50,000 rows (its clock read after the wait, not
        # the last tick's before it, which had the next tick seal a few hundred rows, over and over)
        big = f'{tmp}/small.pcap'  # 230,000 frames, 200 streams
        subprocess.run([GENCAPS, '--bench-small', big, '230000', '100'], check=True)
        fake.delay = 1.2
        r = subprocess.run([RD, '-q', '-r', big, '--export', url, '--export-host', 'w', '--export-all-frames'],
                           capture_output=True, text=True, timeout=60)
        fake.delay = 0
        sizes = sorted(rows for (table, _), (b, rows) in fake.rows.items() if table == 'frames' and b == 'w')
        ok(r.returncode == 0 and sizes == [30000, 50000, 50000, 50000, 50000] and count(fake, 'w') == [230000, 0, 200, 1]
           and '230201 rows sent, 0 spooled, 0 dropped, in 7 batches' in r.stderr,
           'a file\'s frames rows in batches of 50,000, the server slow to answer: every row once',
           f'{sizes} {count(fake, "w")} {r.stderr}')

        spool = f'{tmp}/spool'
        fake.refuse, fake.lose = 'captures', 'streams'
        r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'b', '--export-spool', spool],
                           capture_output=True, text=True, timeout=60)
        files = sorted(n.split('.')[-2] for n in os.listdir(spool))
        sent = want[0] + want[1]
        ok(r.returncode == 0 and files == ['captures'] and count(fake, 'b') == want[:3] + [0] and
           f'{sent} rows sent, {want[2] + 1} spooled, 0 dropped' in r.stderr and 'left in the spool' in r.stderr,
           'at the end, one INSERT refused and one answer lost: both spooled, the others taken; the lost '
           'answer\'s batch found by its id, not sent again',
           f'{files} {count(fake, "b")} {r.stderr}')

        fake.refuse = fake.lose = None
        r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'c', '--export-spool', spool],
                           capture_output=True, text=True, timeout=60)
        ok(r.returncode == 0 and not os.listdir(spool) and count(fake, 'b') == want and count(fake, 'c') == want,
           'the next run sends the refused batch first: every row once',
           f'{os.listdir(spool)} {count(fake, "b")} {count(fake, "c")} {want} {r.stderr}')

        # a batch the server refuses for ever (here: its rows' box) while it takes others: passed over
        # for those after it, then set aside (NAME.refused, kept, not sent again) once refused three
        # times while others were taken; before, it held up every batch behind it for ever
        # (12 of them, more than a pass tries: the newest batch, tried then, is taken)
        fake.refuse_box = 'poison'
        rs = [subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'poison', '--export-spool', spool],
                             capture_output=True, text=True, timeout=60) for _ in range(3)]
        poisoned = sorted(os.listdir(spool))
        metrics = f'{tmp}/export.prom'
        r2 = pcapfeed.streamed([RD, '-q', '-r', '-', '--export', url, '--export-host', 'good', '--export-spool', spool,
                                '--metrics-file', metrics], cap, 10, 20)
        left = sorted(os.listdir(spool))
        prom = open(metrics).read() if os.path.exists(metrics) else ''
        ok(all(r.returncode == 0 for r in rs) and len(poisoned) == 12 and r2.returncode == 2 and
           left == sorted(n + '.refused' for n in poisoned) and r2.stderr.count('set aside as') == 12 and
           'Cannot parse input' in r2.stderr and count(fake, 'good') == want and count(fake, 'poison') == [0] * 4 and
           'rocedump_export_spool_refused_batches 12\n' in prom and 'rocedump_export_spool_batches 0\n' in prom,
           'batches the server refuses while it takes others: passed over, the others sent (every row once), '
           'then set aside as NAME.refused and counted (metric, exit 2)',
           f'{poisoned} {left} {count(fake, "good")} {want} {r2.stderr}')
        # "too many parts" (Code 252) passes once the server has merged them: a batch so refused is
        # tried again later, as if nothing had answered, never set aside, and the spool keeps its order
        for n in left:
            os.unlink(f'{spool}/{n}')
        fake.refuse_box, fake.refuse_code = 'busy', 252
        r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'busy', '--export-spool', spool],
                           capture_output=True, text=True, timeout=60)
        r2 = pcapfeed.streamed([RD, '-q', '-r', '-', '--export', url, '--export-host', 'behind', '--export-spool',
                                spool], cap, 6)
        held = sorted(os.listdir(spool))
        fake.refuse_box, fake.refuse_code = None, 27
        r3 = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'later', '--export-spool', spool],
                            capture_output=True, text=True, timeout=60)
        ok(r.returncode == 0 and r2.returncode == 0 and len(held) >= 8 and
           not [n for n in held if n.endswith('.refused')] and 'set aside' not in r2.stderr and
           'Too many parts' in r2.stderr and r3.returncode == 0 and not os.listdir(spool) and
           count(fake, 'busy') == want and count(fake, 'behind') == want and count(fake, 'later') == want,
           'batches refused with "too many parts" (Code 252, which passes): none set aside, the spool in its '
           'order, all sent once the server takes them', f'{held} {os.listdir(spool)} {r2.stderr} {r3.stderr}')
        # a server that refuses every batch sets none aside: the spool keeps them, in order, for later
        fake.refuse_box, fake.refuse_all = None, True
        r = pcapfeed.streamed([RD, '-q', '-r', '-', '--export', url, '--export-host', 'all', '--export-spool', spool],
                              cap, 4)
        held = sorted(os.listdir(spool))
        fake.refuse_all = False
        r2 = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'after', '--export-spool', spool],
                            capture_output=True, text=True, timeout=60)
        ok(r.returncode == 0 and held and not [n for n in held if n.endswith('.refused')] and
           'set aside' not in r.stderr and 'left in the spool' in r.stderr and r2.returncode == 0 and
           not os.listdir(spool) and count(fake, 'all') == want and count(fake, 'after') == want,
           'a server that refuses every batch: none set aside, all kept in the spool and sent once it takes them',
           f'{held} {os.listdir(spool)} {count(fake, "all")} {count(fake, "after")} {want} {r.stderr} {r2.stderr}')

        # a proxy before the servers (chproxy) answers 503 while they are away: the server is away,
        # not refusing; the run's batches spooled (before, they were counted dropped: exit 2)
        fake.check_status = 503
        r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'p', '--export-spool', spool],
                           capture_output=True, text=True, timeout=60)
        files = sorted(n.split('.')[-2] for n in os.listdir(spool))
        fake.check_status = None
        r2 = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'q', '--export-spool', spool],
                            capture_output=True, text=True, timeout=60)
        ok(r.returncode == 0 and files == ['captures', 'findings', 'frames', 'streams'] and 'HTTP 503' in r.stderr and
           f'0 rows sent, {sum(want)} spooled, 0 dropped' in r.stderr and count(fake, 'p') == want and
           count(fake, 'q') == want and r2.returncode == 0 and not os.listdir(spool),
           'the tables\' check answered 503 (a proxy, its servers away): the batches spooled, exit 0; the next run '
           'sends them', f'{files} {count(fake, "p")} {count(fake, "q")} {want} {r.stderr} {r2.stderr}')

        # the spool's disk full, the server away: a batch that does not fit is dropped and counted
        # exactly, none left half written, and the run's end names the disk's error, not only the
        # server's (a tmpfs of 256 KiB in a mount namespace of its own, root only: the frames and the
        # streams batches do not fit, the findings and captures ones do)
        if os.geteuid() == 0 and shutil.which('unshare'):
            full = f'{tmp}/full'
            os.mkdir(full)
            fake.check_status = 503
            r = on_tmpfs('size=256k', full, '"$2" -q -r "$3" --export "$4" --export-host full --export-spool "$1" '
                         '>/dev/null; rc=$?; tar -C "$1" -cf - . || exit 9; exit $rc', RD, cap, url)
            fake.check_status = None
            err = r.stderr.decode(errors='replace')
            kept = {}
            with tarfile.open(fileobj=io.BytesIO(r.stdout)) as t:
                for m in t.getmembers():
                    if m.isfile():
                        table = m.name.split('.')[-2]
                        kept[m.name] = len(table_rows(table, 'RowBinary', t.extractfile(m).read()))
            m = re.search(r'(\d+) rows sent, (\d+) spooled, (\d+) dropped', err)
            end = [line for line in err.splitlines() if line.startswith('rocedump: export: ') and 'rows dropped (' in line]
            ok(r.returncode == 2 and m and int(m[1]) == 0 and int(m[2]) == sum(kept.values()) and
               int(m[2]) + int(m[3]) == sum(want) and int(m[3]) == want[0] + want[2] and
               sorted(n.split('.')[-2] for n in kept) == ['captures', 'findings'] and
               end and 'No space left on device' in end[0],
               'the spool\'s disk full: the batches that do not fit dropped and counted exactly, none half written; '
               'the end line names the disk\'s error (exit 2)', f'{kept} {want} {err}')
            # a spool where no file can be made (a read-only mount): refused at the start, nothing
            # read or sent, rather than found out by dropping the batches of the first outage
            r = on_tmpfs('ro', full, 'exec "$2" -q -r "$3" --export "$4" --export-host ro --export-spool "$1"', RD,
                         cap, url)
            err = r.stderr.decode(errors='replace')
            ok(r.returncode == 2 and 'no file can be made there: Read-only file system' in err and
               count(fake, 'ro') == [0] * 4 and b'frames' not in r.stdout,
               'a spool on a read-only mount: refused at the start (exit 2), nothing read or sent', err)
        else:
            skip('the spool\'s disk full: needs root and unshare (a tmpfs in a mount namespace)')
            skip('a spool on a read-only mount: needs root and unshare (a tmpfs in a mount namespace)')

        # what the server (or whatever answers in its place) says reaches the operator's terminal in
        # rocedump's message: its control bytes (an escape sequence retitling or clearing the
        # terminal, a bell) are shown as spaces, in an error's first line and in a differing column
        evil = '\x1b]0;owned\x07\x1b[2J\x1b[31m'
        for status, body, what in (
                (500, f'Code: 1001, e.displayText() = {evil}refused\n', 'an error'),
                (200, srv.columns.replace('frames\ttime\tDateTime\n', f'frames\ttime\tDateTime{evil}\n', 1),
                 'a differing column')):
            fake.check_answer = (status, body)
            r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'e'],
                               capture_output=True, text=True, timeout=60)
            fake.check_answer = None
            bad = sorted({f'{ord(c):#04x}' for c in r.stderr if ord(c) < 0x20 and c != '\n' or c == '\x7f'})
            ok(r.returncode == 2 and ('Code: 1001' in r.stderr if status == 500 else 'differs' in r.stderr) and
               not bad,
               f'the server\'s control bytes in {what} are not written to the terminal', f'{bad} {r.stderr!r}')

        # libcurl sends a request again by itself when a reused connection closes with no answer:
        # an INSERT the server took would be taken twice
        fake.silent = 'streams'
        r = subprocess.run([RD, '-q', '-r', cap, '--export', url, '--export-host', 'd', '--export-spool', spool],
                           capture_output=True, text=True, timeout=60)
        ok(r.returncode == 0 and count(fake, 'd') == want,
           'an INSERT taken and its reused connection closed with no answer: its rows once (not sent again '
           'by libcurl; the batch found by its id)', f'{count(fake, "d")} {want} {r.stderr}')
    finally:
        srv.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    return plan()


sys.exit(main())
