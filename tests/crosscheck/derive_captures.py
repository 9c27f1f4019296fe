#!/usr/bin/python3
"""derive_captures.py: captures derived from the real Soft-RoCE ones (captures/rxe) by moving,
leaving out and repeating their pcap records, for transport verdicts the real files do not show
(captures/derived/README.md says what each one is for).

  derive_captures.py RXE_DIR OUT_DIR

Deterministic: the same inputs give the same bytes (captures/derived holds the output, and
transport_verdicts.py checks that this script still makes it). A repeated frame gets a new IPv4
id, so its IPv4 header checksum and its ICRC are recomputed (the ICRC covers the id); the
ICRC routine is checked first on every frame of the input it reads.
Exit 0, or 2 on a usage error or an input that is not the expected Soft-RoCE capture.
"""
import os
import struct
import sys
import zlib

ETH_LEN = 14


def read_pcap(path):
    """(global header, [(ts_sec, ts_usec, orig_len, data)]) of a little-endian microsecond pcap."""
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:4] != b'\xd4\xc3\xb2\xa1':
        raise ValueError('%s: not a little-endian microsecond pcap' % path)
    recs, at = [], 24
    while at < len(raw):
        sec, usec, incl, orig = struct.unpack_from('<IIII', raw, at)
        recs.append((sec, usec, orig, raw[at + 16:at + 16 + incl]))
        at += 16 + incl
    return raw[:24], recs


def write_pcap(path, head, recs):
    with open(path, 'wb') as f:
        f.write(head)
        for sec, usec, orig, data in recs:
            f.write(struct.pack('<IIII', sec, usec, len(data), orig) + data)


def usec_of(rec):
    return rec[0] * 1000000 + rec[1]


def at_usec(rec, us):
    return (us // 1000000, us % 1000000, rec[2], rec[3])


def ip_csum(hdr):
    s = sum(struct.unpack('!%dH' % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def icrc(frame):
    """The ICRC of an Ethernet/IPv4/UDP RoCEv2 frame (IBTA Annex A17): 8 bytes of 1s, the IPv4
    header with TOS, TTL and checksum as 1s, the UDP header with its checksum as 1s, the BTH with
    byte 4 as 1s, the rest up to the ICRC; CRC-32, stored least significant byte first."""
    ihl = (frame[ETH_LEN] & 0x0f) * 4
    ip = bytearray(frame[ETH_LEN:ETH_LEN + ihl])
    ip[1] = 0xff
    ip[8] = 0xff
    ip[10:12] = b'\xff\xff'
    udp = bytearray(frame[ETH_LEN + ihl:ETH_LEN + ihl + 8])
    udp[6:8] = b'\xff\xff'
    ib = bytearray(frame[ETH_LEN + ihl + 8:-4])
    ib[4] = 0xff
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(ip) + bytes(udp) + bytes(ib)))


def with_ip_id(frame, ip_id):
    """The frame with IPv4 id ip_id, its header checksum and ICRC made right again."""
    b = bytearray(frame)
    ihl = (b[ETH_LEN] & 0x0f) * 4
    struct.pack_into('!H', b, ETH_LEN + 4, ip_id)
    b[ETH_LEN + 10:ETH_LEN + 12] = b'\0\0'
    struct.pack_into('!H', b, ETH_LEN + 10, ip_csum(bytes(b[ETH_LEN:ETH_LEN + ihl])))
    b[-4:] = icrc(bytes(b))
    return bytes(b)


def ip_id(frame):
    return struct.unpack_from('!H', frame, ETH_LEN + 4)[0]


def psn(frame):
    ihl = (frame[ETH_LEN] & 0x0f) * 4
    return struct.unpack_from('!I', frame, ETH_LEN + ihl + 8 + 8)[0] & 0xffffff


def check_icrc(path, recs):
    """The ICRC routine agrees with every frame Linux rxe sent (a repeated frame is only as good
    as it)."""
    for n, rec in enumerate(recs, 1):
        if icrc(rec[3]) != rec[3][-4:]:
            raise ValueError('%s: frame %d: the ICRC here does not match the capture\'s' % (path, n))


def expect_psn(path, recs, number, want):
    got = psn(recs[number - 1][3])
    if got != want:
        raise ValueError('%s: frame %d has PSN %d, not %d: not the capture this script knows' %
                         (path, number, got, want))


def early_first(rxe, out):
    """write_bw_early_first.pcap: write_bw.pcap with its frame 18 (WRITE_FIRST, PSN 8881441, the
    17th of its stream) moved to the front, 1 us before frame 1: the stream's first frame seen is
    a later PSN, and the 16 PSNs before it (sent earlier: older IPv4 ids) come after it."""
    src = os.path.join(rxe, 'write_bw.pcap')
    head, recs = read_pcap(src)
    expect_psn(src, recs, 18, 8881441)
    moved = at_usec(recs[17], usec_of(recs[0]) - 1)
    write_pcap(os.path.join(out, 'write_bw_early_first.pcap'), head, [moved] + recs[:17] + recs[18:])


# rc_pingpong_loss.pcap frames 203-206: a 4-packet SEND (PSNs 15754654-15754657) resent after its
# ACK timer ran out, the last frames before its ACKs.
STUCK_RUN = (203, 206)
STUCK_REPEATS = 23            # restarts after the real one: 24 in all
STUCK_GAP_US = 65000          # rxe's retry interval in these captures
STUCK_ID_STEP = 16            # the client's IPv4 ids advance by about this much between restarts
STUCK_FIRST_MISSING = (2, 5, 14)  # restarts (1 = the real one) whose resend of the stuck PSN is left out


def stuck(rxe, out):
    """rc_pingpong_loss_stuck.pcap: rc_pingpong_loss.pcap up to frame 206, where a 4-packet SEND
    is resent after a timeout, and that resend run repeated as if the responder had gone: 24
    restarts at its first PSN, 65 ms apart, no ACK; in restarts 2, 5 and 14 the resend of the
    first PSN is missing from the capture (the restart is seen at the second PSN)."""
    src = os.path.join(rxe, 'rc_pingpong_loss.pcap')
    head, recs = read_pcap(src)
    check_icrc(src, recs)
    lo, hi = STUCK_RUN
    expect_psn(src, recs, lo, 15754654)
    expect_psn(src, recs, hi, 15754657)
    run = recs[lo - 1:hi]
    kept = recs[:hi]
    for k in range(1, STUCK_REPEATS + 1):
        for i, rec in enumerate(run):
            if i == 0 and k + 1 in STUCK_FIRST_MISSING:
                continue
            frame = with_ip_id(rec[3], (ip_id(rec[3]) + k * STUCK_ID_STEP) & 0xffff)
            kept.append(at_usec((0, 0, rec[2], frame), usec_of(rec) + k * STUCK_GAP_US))
    write_pcap(os.path.join(out, 'rc_pingpong_loss_stuck.pcap'), head, kept)


# rc_pingpong_ecn_ce.pcap: every frame CE-marked (the router marks all of them)
CE_BURST_FRAMES = 24          # frames 1-24 made a burst ...
CE_BURST_GAP_US = 35          # ... this far apart (each stream's marks some 70 us apart: each due a CNP)


def ce_burst(rxe, out):
    """rc_pingpong_ecn_ce_burst.pcap: rc_pingpong_ecn_ce.pcap with its first 24 frames (all
    CE-marked, as every frame of it) moved 35 us apart, from frame 1's time on: a burst of CE marks
    within 1 ms, no CNP, then the pause to frame 25 (17 ms on): every mark's CNP is missing, and
    all of them expire on frame 25, more than 8 findings on one frame."""
    src = os.path.join(rxe, 'rc_pingpong_ecn_ce.pcap')
    head, recs = read_pcap(src)
    check_icrc(src, recs)
    t0 = usec_of(recs[0])
    if usec_of(recs[CE_BURST_FRAMES]) - t0 < CE_BURST_FRAMES * CE_BURST_GAP_US + 2000:
        raise ValueError('%s: no pause after frame %d: not the capture this script knows' % (src, CE_BURST_FRAMES))
    burst = [at_usec(r, t0 + i * CE_BURST_GAP_US) for i, r in enumerate(recs[:CE_BURST_FRAMES])]
    write_pcap(os.path.join(out, 'rc_pingpong_ecn_ce_burst.pcap'), head, burst + recs[CE_BURST_FRAMES:])


def erspan_seq(frame):
    """The GRE sequence number of an Ethernet/IPv4/GRE(S)/ERSPAN II frame."""
    ihl = (frame[ETH_LEN] & 0x0f) * 4
    return struct.unpack_from('!I', frame, ETH_LEN + ihl + 4)[0]


def mirror_gap(rxe, out):
    """erspan2_mirror_gap.pcap: erspan2_rc_pingpong.pcap without its frame 16 (GRE sequence 18,
    a SEND_MIDDLE, PSN 769175), and its frames 30 and 31 swapped (the later sent first: reordered
    on the way to the collector): one mirror.gap of 1 frame, whose psn.gap is the mirror's loss,
    and one frame taken back as reordered."""
    src = os.path.join(rxe, 'erspan2_rc_pingpong.pcap')
    head, recs = read_pcap(src)
    if erspan_seq(recs[15][3]) != 18 or erspan_seq(recs[29][3]) != 32:
        raise ValueError('%s: not the capture this script knows' % src)
    kept = recs[:15] + recs[16:29] + [at_usec(recs[30], usec_of(recs[29])), at_usec(recs[29], usec_of(recs[30]))] \
        + recs[31:]
    write_pcap(os.path.join(out, 'erspan2_mirror_gap.pcap'), head, kept)


def main():
    if len(sys.argv) != 3 or not os.path.isdir(sys.argv[1]) or not os.path.isdir(sys.argv[2]):
        sys.stderr.write('usage: derive_captures.py RXE_DIR OUT_DIR (both directories)\n')
        return 2
    try:
        early_first(sys.argv[1], sys.argv[2])
        stuck(sys.argv[1], sys.argv[2])
        ce_burst(sys.argv[1], sys.argv[2])
        mirror_gap(sys.argv[1], sys.argv[2])
    except (OSError, ValueError) as e:
        sys.stderr.write('derive_captures.py: %s\n' % e)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
