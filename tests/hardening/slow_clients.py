#!/usr/bin/python3
"""slow_clients.py PORT: attack rocedump's /metrics endpoint on loopback with slow clients, and
check that scrapes still succeed (TAP lines on standard output, no plan: the caller prints it).

Bounded: 64 attacking connections, at most ATTACK_S seconds, every socket with a time-out. The
attackers come from 127.0.0.1 and send one header line a second, never finishing their request;
the scraper comes from 127.0.0.2, as a Prometheus server on another host would.
  - the per-address limit: most attackers are refused at once, and 5 of 5 scrapes succeed;
  - the deadline: an attacker still connected is cut off within DEADLINE_S of its start although
    it keeps sending bytes (libmicrohttpd's own time-out, which bytes restart, never fires);
  - the request size: a 64 KiB header is refused, the connection does not stay open."""
import socket
import sys
import time
import urllib.request

port = int(sys.argv[1])
ATTACKERS = 64
DEADLINE_S = 13.0    # the server's exchange deadline (10 s) plus its watchdog's second, plus slack
ATTACK_S = 16.0
n = 0


def tap(ok, what):
    global n
    n += 1
    print(("ok" if ok else "not ok") + f" {n} - {what}", flush=True)


def connect(src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(2)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def scrape():
    s = connect("127.0.0.2")
    try:
        s.sendall(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data.startswith(b"HTTP/1.") and b" 200 " in data.split(b"\r\n", 1)[0] and b"rocedump_" in data
    except OSError:
        return False
    finally:
        s.close()


def alive(s):
    """Still open after one more header line: the server neither closed nor reset it."""
    try:
        s.sendall(b"X-Slow: 1\r\n")
        s.settimeout(0.05)
        try:
            return s.recv(1) != b""
        except socket.timeout:
            return True
    except OSError:
        return False
    finally:
        s.settimeout(2)


start = time.monotonic()
attackers = []
for _ in range(ATTACKERS):
    try:
        s = connect("127.0.0.1")
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        attackers.append(s)
    except OSError:
        pass
time.sleep(1.0)
held = [s for s in attackers if alive(s)]
tap(len(held) <= 8, f"one address holds at most 8 connections ({len(held)} of {ATTACKERS} attackers still open)")
good = 0
for _ in range(5):
    good += scrape()
    for s in list(held):
        if not alive(s):
            held.remove(s)
    time.sleep(0.5)
tap(good == 5, f"{good} of 5 scrapes from another address succeed while the attackers send")
while held and time.monotonic() - start < ATTACK_S:
    time.sleep(1.0)
    for s in list(held):
        if not alive(s):
            held.remove(s)
elapsed = time.monotonic() - start
tap(not held and elapsed <= DEADLINE_S,
    f"attackers that keep sending are cut off by the deadline ({len(held)} left, {elapsed:.1f} s)")
for s in attackers:
    s.close()

big = connect("127.0.0.3")
try:
    big.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n")
    reply = big.recv(4096)
except OSError:
    reply = b""
big.close()
tap(b" 200 " not in reply.split(b"\r\n", 1)[0], f"a 64 KiB request header is refused ({reply[:40]!r})")
tap(scrape(), "a scrape succeeds after the attack")
