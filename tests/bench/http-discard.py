#!/usr/bin/env python3
"""http-discard.py: an HTTP/1.1 server that reads every request's body and throws it away,
answering 200 with an empty body, for export-bench.sh: rocedump --export sends it its rows as it
would send them to ClickHouse (the tables' check finds no table and "creates" them, every INSERT
is taken), and the receiving costs as little as it can, as a server on a machine of its own costs
the capture box nothing. It listens on 127.0.0.1, on an ephemeral port it prints on its first
line, until it is killed. Bodies are read by their Content-Length (rocedump sends no chunked
ones); a request it cannot read closes its connection."""
import socket
import sys
import threading

HEAD_MAX = 64 * 1024


def serve(conn):
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    pending = b''
    with conn:
        while True:
            while b'\r\n\r\n' not in pending:
                if len(pending) > HEAD_MAX:
                    return
                data = conn.recv(65536)
                if not data:
                    return
                pending += data
            head, _, pending = pending.partition(b'\r\n\r\n')
            length = 0
            for line in head.split(b'\r\n')[1:]:
                name, _, value = line.partition(b':')
                if name.strip().lower() == b'content-length':
                    length = int(value)
            taken = min(length, len(pending))
            pending, left = pending[taken:], length - taken
            while left > 0:
                n = conn.recv_into(view, min(left, len(buf)))
                if not n:
                    return
                left -= n
            conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(('127.0.0.1', 0))
    srv.listen(16)
    print(srv.getsockname()[1], flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == '__main__':
    sys.exit(main())
