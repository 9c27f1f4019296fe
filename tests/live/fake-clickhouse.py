#!/usr/bin/env python3
"""fake-clickhouse.py MODE PORTFILE [BODIES]: a stand-in for a ClickHouse server's HTTP interface on
127.0.0.1 (an ephemeral port, written to PORTFILE once listening, with the process id after it).
  hold: accepts connections and holds them, reading and answering nothing (a server that hangs).
  ok:   answers every request 200 with an empty body (no table yet: rocedump creates them; every
        INSERT taken), keeping connections alive; with BODIES, each request's query and body
        appended to that file.
Runs until killed."""
import http.server
import os
import socket
import sys
import threading

mode, portfile = sys.argv[1], sys.argv[2]
bodies = sys.argv[3] if len(sys.argv) > 3 else None
lock = threading.Lock()


class Ok(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        if bodies:
            with lock, open(bodies, 'ab') as f:
                f.write(self.path.encode() + b'\n' + body + b'\n')
        self.send_response(200)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_message(self, *args):
        pass


def hold(srv):
    held = []
    while True:
        conn, _ = srv.accept()
        held.append(conn)  # kept open, never read


if mode == 'hold':
    srv = socket.socket()
    srv.bind(('127.0.0.1', 0))
    srv.listen(16)
    port = srv.getsockname()[1]
    threading.Thread(target=hold, args=(srv,), daemon=True).start()
else:
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Ok)
    port = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
with open(portfile + '.tmp', 'w') as f:
    f.write(f'{port} {os.getpid()}\n')
os.rename(portfile + '.tmp', portfile)
threading.Event().wait()
