#!/usr/bin/env python3
"""stream.py: rocedump -r - prints a frame as soon as it is in the pipe (TAP).

For each input form (pcap, pcapng) and thread count, a writer puts the file header and one
record into rocedump's standard input and then writes nothing more, keeping the pipe open: the
frame's line must come out while the pipe stays open (a 10 s guard, not a speed limit; the time
it took is printed as a comment). Then a second record and the end of the input: both lines, and
the same output as rocedump -r on the whole file.

    stream.py ROCEDUMP CAPTURE
"""
import os
import select
import struct
import subprocess
import sys
import time

GUARD_S = float(os.environ.get("STREAM_GUARD_S", "10"))


def pcap_records(data):
    """The header and the records of a little-endian classic pcap file."""
    head, pos, recs = data[:24], 24, []
    while pos + 16 <= len(data):
        caplen = struct.unpack_from('<I', data, pos + 8)[0]
        recs.append(data[pos:pos + 16 + caplen])
        pos += 16 + caplen
    return head, recs


def pcapng_blocks(data):
    """The blocks before the first packet block, and the packet blocks (little-endian pcapng)."""
    pos, head, recs = 0, b'', []
    while pos + 8 <= len(data):
        btype, blen = struct.unpack_from('<II', data, pos)
        block = data[pos:pos + blen]
        if btype == 6 or recs:
            recs.append(block)
        else:
            head += block
        pos += blen
    return head, recs


def read_line(proc, buf, deadline):
    """Bytes of stdout until a newline or the deadline; (line or None, rest)."""
    fd = proc.stdout.fileno()
    while b'\n' not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            return None, buf
        r, _, _ = select.select([fd], [], [], left)
        if r:
            chunk = os.read(fd, 65536)
            if not chunk:
                return None, buf
            buf += chunk
    line, _, rest = buf.partition(b'\n')
    return line, rest


def run_case(rocedump, name, head, recs, whole_out, threads, extra):
    proc = subprocess.Popen([rocedump, '-r', '-', '--threads', str(threads)] + extra, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(head)
    proc.stdin.flush()
    time.sleep(0.2)
    t0 = time.monotonic()
    proc.stdin.write(recs[0])
    proc.stdin.flush()
    line, rest = read_line(proc, b'', t0 + GUARD_S)
    took = time.monotonic() - t0
    ok = line is not None and proc.poll() is None
    proc.stdin.write(recs[1])
    proc.stdin.close()
    out = (line or b'') + b'\n' + rest + proc.stdout.read()
    proc.wait(timeout=30)
    err = proc.stderr.read()
    want = b''.join(whole_out.splitlines(keepends=True)[:2])
    same = out == want
    return ok and same and proc.returncode == 0, took, out, want, err


def main():
    rocedump, capture = sys.argv[1], sys.argv[2]
    data = open(capture, 'rb').read()
    forms = [('pcap', *pcap_records(data))]
    ng = subprocess.run([rocedump, '-w', '-', '-r', capture], capture_output=True, check=True).stdout
    forms.append(('pcapng', *pcapng_blocks(ng)))
    cases = [(f, t, x) for f in forms for t in (1, 2, 4) for x in ([], ['-T', 'json'])]
    print('1..%d' % len(cases))
    failed = 0
    for i, ((form, head, recs), threads, extra) in enumerate(cases, 1):
        # the same file read whole, in the same form (a pcapng's JSON names its interface)
        whole = subprocess.run([rocedump, '-r', '-', '-c', '2'] + extra, input=data if form == 'pcap' else ng,
                               capture_output=True, check=True).stdout
        ok, took, out, want, err = run_case(rocedump, form, head, recs, whole, threads, extra)
        desc = '%s, --threads %d%s: the first frame printed while the pipe stays open' % (
            form, threads, ' -T json' if extra else '')
        if ok:
            print('ok %d - %s' % (i, desc))
            print('# printed %.3f s after its record was written' % took)
        else:
            failed += 1
            print('not ok %d - %s' % (i, desc))
            print('# after %.3f s; got %r; want %r; stderr %r' % (took, out[:300], want[:300], err[:300]))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
