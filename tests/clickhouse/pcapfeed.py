"""pcapfeed.py: a classic pcap's records, and a capture fed to a program's standard input a part
at a time (a capture that lasts), for the clickhouse tests."""
import subprocess
import time


def records(data):
    """A pcap's records after its 24-byte file header, each its 16-byte header and its bytes."""
    off, recs = 24, []
    while off + 16 <= len(data):
        end = off + 16 + int.from_bytes(data[off + 8:off + 12], 'little')
        recs.append(data[off:end])
        off = end
    return recs


def streamed(cmd, cap, seconds, parts=12):
    """cmd reading the pcap cap on its standard input, its records written in parts over about
    seconds (a capture that lasts: its batches sealed a second old go out all through the run)."""
    data = open(cap, 'rb').read()
    recs = records(data)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stdin.write(data[:24])
    for i in range(parts):
        p.stdin.write(b''.join(recs[i * len(recs) // parts:(i + 1) * len(recs) // parts]))
        p.stdin.flush()
        time.sleep(seconds / parts)
    p.stdin.close()
    err = p.stderr.read().decode()
    return subprocess.CompletedProcess(cmd, p.wait(timeout=60), '', err)
