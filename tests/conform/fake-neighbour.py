#!/usr/bin/env python3
# fake-neighbour.py IFACE IP MAC: a stand-in DUT for roceconform's link-layer refusals. It answers
# the first ARP request (IPv4) or neighbour solicitation (IPv6) for IP seen on IFACE with MAC as the
# answering host's address (ARP sender address; Ethernet source of the advertisement), so that a
# test can hand roceconform a MAC it must refuse (broadcast, multicast, its own). Prints "ready"
# once it listens; gives up after 10 s.
import socket
import struct
import sys

iface, ip, mac = sys.argv[1:4]
mac_b = bytes.fromhex(mac.replace(':', ''))
v6 = ':' in ip
ip_b = socket.inet_pton(socket.AF_INET6 if v6 else socket.AF_INET, ip)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.bind((iface, 0))
s.settimeout(10)
print('ready', flush=True)
while True:
    f = s.recv(2048)
    if not v6 and f[12:14] == b'\x08\x06' and f[20:22] == b'\x00\x01' and f[38:42] == ip_b:
        arp = f[14:20] + b'\x00\x02' + mac_b + ip_b + f[22:32]
        s.send((f[6:12] + mac_b + b'\x08\x06' + arp).ljust(60, b'\0'))
        break
    if v6 and f[12:14] == b'\x86\xdd' and len(f) >= 78 and f[20] == 58 and f[54] == 135 and f[62:78] == ip_b:
        icmp = bytes([136, 0, 0, 0, 0x60, 0, 0, 0]) + ip_b + bytes([2, 1]) + mac_b
        ip6 = bytes([0x60, 0, 0, 0]) + struct.pack('!H', len(icmp)) + bytes([58, 255]) + ip_b + f[22:38]
        s.send(f[6:12] + mac_b + b'\x86\xdd' + ip6 + icmp)
        break
