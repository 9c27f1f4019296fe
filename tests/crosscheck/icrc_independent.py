#!/usr/bin/python3
"""icrc_independent.py: rocedump's ICRC against an implementation written apart from it.

The project's other ICRC oracles are scapy (RoCEv2/IPv4 only) and Linux rxe's own traffic
(RoCEv2/IPv4 and IPv6, no wrappers). This one covers what they do not: RoCEv1 (GRH), RoCEv2 over
IPv6 with extension headers and over IPv4 with options, each bare and behind 802.1Q, QinQ, GRE,
VXLAN and ERSPAN II. The ICRC here was written from the rules alone (IBTA Vol 1 Annex A16/A17,
docs/architecture.md "The ICRC, in short": 8 bytes of 1s, then the network header with its variant fields set to 1s
(IPv4 TOS, TTL, checksum; IPv6/GRH traffic class, flow label, hop limit), the UDP checksum as 1s,
BTH byte 4 as 1s, the rest as is; CRC-32, stored least significant byte first), by a tester who
had not read analyzer/core/icrc.c. Each frame is also sent with a masked field changed (the ICRC
must stay good) and with a covered byte changed (it must go bad).

  icrc_independent.py --rocedump PATH
Exit 0 when every frame agrees, 1 otherwise (each disagreement printed).
"""
import argparse, json, os, struct, subprocess, sys, tempfile, zlib

def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b)//2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff

def bth(opcode=0x04, se=0, m=0, pad=0, tver=0, pkey=0xffff, fecn=0, becn=0, resv6=0, dqpn=0x123456, ackreq=1, resv7=0, psn=0x00abcd):
    return struct.pack('!BBHBBHBBH', opcode, (se<<7)|(m<<6)|(pad<<4)|tver, pkey,
                       (fecn<<7)|(becn<<6)|resv6, (dqpn>>16)&0xff, dqpn&0xffff,
                       (ackreq<<7)|resv7, (psn>>16)&0xff, psn&0xffff)

# ---- my ICRC (from rules: 8x0xFF || masked net hdr || [UDP csum->FFFF] || BTH byte4->FF || rest) ----
def my_icrc_v2(ipver, iphdr, ext, udp, ibrest):
    ip = bytearray(iphdr)
    if ipver == 4:
        ip[1] = 0xff; ip[8] = 0xff; ip[10:12] = b'\xff\xff'
    else:
        ip[0] |= 0x0f; ip[1:4] = b'\xff\xff\xff'; ip[7] = 0xff
    u = bytearray(udp); u[6:8] = b'\xff\xff'
    b = bytearray(ibrest[:12]); b[4] = 0xff
    return zlib.crc32(b'\xff'*8 + bytes(ip) + ext + bytes(u) + bytes(b) + ibrest[12:])

def my_icrc_v1(grh, ibrest):
    g = bytearray(grh); g[0] |= 0x0f; g[1:4] = b'\xff\xff\xff'; g[7] = 0xff
    b = bytearray(ibrest[:12]); b[4] = 0xff
    return zlib.crc32(b'\xff'*8 + bytes(g) + bytes(b) + ibrest[12:])

SRC6 = bytes.fromhex('fd770000000000000000000000000001'); DST6 = bytes.fromhex('fd770000000000000000000000000002')
SRC4 = bytes([10,0,0,1]); DST4 = bytes([10,0,0,2])

def ib_payload(p):
    b = bth(**p.get('bth', {}))
    pl = p.get('payload', b'hello RoCE world!')  # 17 bytes
    pad = (-len(pl)) % 4
    b = bth(**dict(p.get('bth', {}), pad=pad))
    return b + pl + b'\0'*pad

def ipv6_hdr(tc, fl, plen, nh, hlim):
    return struct.pack('!IHBB', (6<<28)|(tc<<20)|fl, plen, nh, hlim) + SRC6 + DST6

def build(kind, p):
    """returns (l3 bytes with ICRC, ethertype, my_icrc)"""
    ib = ib_payload(p)
    if kind == 'v1':
        grh = ipv6_hdr(p.get('tc', 0x2a), p.get('fl', 0x12345), len(ib)+4, 0x1b, p.get('hlim', 64))
        c = my_icrc_v1(grh, ib)
        return grh + ib + struct.pack('<I', c), 0x8915, c
    udp_len = 8 + len(ib) + 4
    if kind.startswith('v2-4'):
        opts = p.get('ipopts', b'')
        ihl = 5 + len(opts)//4
        tot = ihl*4 + udp_len
        ip = struct.pack('!BBHHHBBH4s4s', (4<<4)|ihl, p.get('tos', 0x02), tot, p.get('ipid', 0x1234), 0x4000,
                         p.get('ttl', 64), 17, 0, SRC4, DST4) + opts
        ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
        udp = struct.pack('!HHHH', 49152, 4791, udp_len, p.get('udpcsum', 0))
        c = my_icrc_v2(4, ip, b'', udp, ib)
        l3 = ip + udp + ib + struct.pack('<I', c)
        if p.get('ttl_after') is not None:   # router rewrite: TTL change + recompute IP csum
            l3 = bytearray(l3); l3[8] = p['ttl_after']; l3[10:12] = b'\0\0'
            l3[10:12] = struct.pack('!H', csum(bytes(l3[:ihl*4]))); l3 = bytes(l3)
        return l3, 0x0800, c
    # IPv6
    ext = p.get('ext', b'')
    first_nh = p.get('first_nh', 17)
    ip = ipv6_hdr(p.get('tc', 0x2a), p.get('fl', 0x12345), len(ext)+udp_len, first_nh, p.get('hlim', 64))
    udp0 = struct.pack('!HHHH', 49152, 4791, udp_len, 0)
    ph = SRC6 + DST6 + struct.pack('!IxxxB', udp_len, 17)
    uc = csum(ph + udp0 + ib + b'\0\0\0\0')  # ICRC unknown yet; UDP csum masked anyway -> fix afterwards
    udp = udp0
    c = my_icrc_v2(6, ip, ext, udp, ib)
    tail = ib + struct.pack('<I', c)
    uc = csum(ph + udp0 + tail) or 0xffff
    udp = struct.pack('!HHHH', 49152, 4791, udp_len, uc if p.get('real_udpcsum', True) else 0)
    return ip + ext + udp + tail, 0x86dd, c

HBH = bytes([17, 0, 1, 4, 0, 0, 0, 0])   # next=UDP, len 0 (8 bytes), PadN(4)
DST = bytes([17, 0, 1, 4, 0, 0, 0, 0])
HBH_DST = bytes([60, 0, 1, 4, 0, 0, 0, 0]) + DST

MAC = bytes.fromhex('020000000002') + bytes.fromhex('020000000001')
def eth(et, payload): return MAC + struct.pack('!H', et) + payload

def outer_ipv4(proto, payload):
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20+len(payload), 7, 0x4000, 64, proto, 0, bytes([192,168,0,1]), bytes([192,168,0,2]))
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    return ip + payload

def wrap(w, et, l3):
    inner = eth(et, l3)
    if w == 'none': return inner
    if w == 'vlan': return MAC + struct.pack('!HHH', 0x8100, (3<<13)|100, et) + l3
    if w == 'qinq': return MAC + struct.pack('!HHHHH', 0x88a8, 200, 0x8100, (5<<13)|100, et) + l3
    if w == 'gre':  return eth(0x0800, outer_ipv4(47, struct.pack('!HH', 0, 0x6558) + inner))
    if w == 'vxlan':
        v = struct.pack('!II', 0x08000000, 5000 << 8) + inner
        udp = struct.pack('!HHHH', 54321, 4789, 8+len(v), 0) + v
        return eth(0x0800, outer_ipv4(17, udp))
    if w == 'erspan2':
        g = struct.pack('!HHI', 0x1000, 0x88be, 1)  # S bit
        e = struct.pack('!II', (1<<28)|(0<<16)|(0<<11)|1, 0)
        return eth(0x0800, outer_ipv4(47, g + e + inner))
    raise ValueError(w)

def pcap(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack('<IIII', 1700000000+i, 0, len(fr), len(fr))); f.write(fr)

BASES = {
  'v1':          ('v1', {}),
  'v1-pad0':     ('v1', {'payload': b'12345678'}),
  'v2-6':        ('v2-6', {}),
  'v2-6-hbh':    ('v2-6', {'ext': HBH, 'first_nh': 0}),
  'v2-6-dst':    ('v2-6', {'ext': DST, 'first_nh': 60}),
  'v2-6-hbhdst': ('v2-6', {'ext': HBH_DST, 'first_nh': 0}),
  'v2-4-opts':   ('v2-4', {'ipopts': bytes([0x94, 4, 0, 0])}),        # router alert
  'v2-4-opts8':  ('v2-4', {'ipopts': bytes([1, 1, 1, 0, 0x94, 4, 0, 0])}),
  'v2-4':        ('v2-4', {}),
}
# mutations: (name, param override, expect)
def muts(kind):
    m = [('orig', {}, 'good')]
    if kind == 'v2-4':
        m += [('ttl', {'ttl_after': 7}, 'good'), ('ecn', {'post': ('tos', 0x03)}, 'good'),
              ('becn', {'post': ('bth4', 0x40)}, 'good'), ('udpcsum', {'post': ('udpcsum', 0xbeef)}, 'good'),
              ('ipid', {'post': ('ipid', 0x4321)}, 'bad')]
    else:
        m += [('hlim', {'post': ('hlim', 3)}, 'good'), ('fl', {'post': ('fl', 0xfffff)}, 'good'),
              ('ecn', {'post': ('tc', 0x2b)}, 'good'), ('becn', {'post': ('bth4', 0x40)}, 'good')]
        if kind == 'v2-6': m += [('udpcsum', {'post': ('udpcsum', 0xbeef)}, 'good')]
    m += [('payload', {'post': ('payload', 0)}, 'bad'), ('psn', {'post': ('psn', 0)}, 'bad')]
    return m

def apply_post(kind, l3, ext_len, ihl, post):
    l3 = bytearray(l3); what, v = post
    if kind == 'v1': ipl, udpl = 40, 0
    elif kind == 'v2-6': ipl, udpl = 40 + ext_len, 8
    else: ipl, udpl = ihl, 8
    bth0 = ipl + udpl
    if what == 'tos': l3[1] = (l3[1] & 0xfc) | v
    elif what == 'ipid': l3[4:6] = struct.pack('!H', v)
    elif what == 'hlim': l3[7] = v
    elif what == 'fl': l3[1] = (l3[1] & 0xf0) | (v >> 16); l3[2:4] = struct.pack('!H', v & 0xffff)
    elif what == 'tc':  # set ECN bits in traffic class
        w = struct.unpack('!I', l3[:4])[0]; tc = ((w >> 20) & 0xff) | 0x03; w = (w & ~(0xff << 20)) | (tc << 20); l3[:4] = struct.pack('!I', w)
    elif what == 'udpcsum': l3[ipl+6:ipl+8] = struct.pack('!H', v)
    elif what == 'bth4': l3[bth0+4] ^= v
    elif what == 'payload': l3[bth0+12] ^= 0x01
    elif what == 'psn': l3[bth0+11] ^= 0x01
    if kind == 'v2-4':
        l3[10:12] = b'\0\0'; l3[10:12] = struct.pack('!H', csum(bytes(l3[:ihl])))
    return bytes(l3)


def frames_and_expectations():
    wrappers = ['none', 'vlan', 'qinq', 'gre', 'vxlan', 'erspan2']
    frames, meta = [], []
    for bname, (kind, p) in BASES.items():
        for mname, mo, exp in muts(kind):
            pp = dict(p)
            post = mo.get('post')
            if 'ttl_after' in mo:
                pp['ttl_after'] = mo['ttl_after']
            l3, et, c = build(kind, pp)
            ihl = (l3[0] & 0xf) * 4 if kind == 'v2-4' else 0
            if post:
                l3 = apply_post(kind, l3, len(pp.get('ext', b'')), ihl, post)
            for w in wrappers:
                frames.append(wrap(w, et, l3))
                meta.append(dict(idx=len(frames), base=bname, mut=mname, wrap=w, expect=exp, icrc=c))
    return frames, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rocedump', required=True)
    a = ap.parse_args()
    frames, meta = frames_and_expectations()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'icrc.pcap')
        pcap(path, frames)
        out = subprocess.run([a.rocedump, '-r', path, '-T', 'json'], capture_output=True, text=True, check=True).stdout
    rows = {r['frame']: r for r in (json.loads(l) for l in out.splitlines() if l.strip())}
    bad = 0
    for m in meta:
        r = rows.get(m['idx'], {})
        ic = r.get('roce', {}).get('icrc')
        if not ic:
            problems = ['no ICRC decoded']
        else:
            problems = []
            if ic['status'] != m['expect']:
                problems.append('status %s, expected %s' % (ic['status'], m['expect']))
            if m['expect'] == 'good' and ic['computed'] != m['icrc']:
                problems.append('computed 0x%08x, independent 0x%08x' % (ic['computed'], m['icrc']))
            if m['expect'] == 'bad' and ic['value'] != m['icrc']:
                problems.append('wire value 0x%08x, independent 0x%08x' % (ic['value'], m['icrc']))
        if problems:
            bad += 1
            print('frame %d %s %s %s: %s %s' % (m['idx'], m['base'], m['mut'], m['wrap'], '; '.join(problems),
                                                r.get('events')))
    print('%d frames, %d disagreements' % (len(meta), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
