#!/usr/bin/python3
"""check-conform.py OUTDIR: judge the roceconform runs of conform-ci.sh against what Linux Soft-RoCE is
known to do. Exit 0 when every assertion holds; each failed one is printed."""
import json
import sys
import xml.etree.ElementTree as ET

out = sys.argv[1]
status = {}
for line in open(f"{out}/status"):
    name, rc, secs = line.split()
    status[name] = (int(rc), float(secs))
bad = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        bad.append(what)


def results(name):
    try:
        return {(r["id"] if r["run"] == 1 else f'{r["id"]}#{r["run"]}'): r for r in json.load(open(f"{out}/{name}.json"))["results"]}
    except (OSError, ValueError) as e:
        check(False, f"{name}: JSON report readable ({e})")
        return {}


def verdict(res, tid):
    return res.get(tid, {}).get("verdict", "missing")


# 1. the catalogue against rxe: every deviation is a known one, so the exit status is 0
for name in ("rcpp", "write", "read", "atomic"):
    check(status.get(name, (None,))[0] == 0, f"{name}: exit 0 with rxe-expect.txt (got {status.get(name)})")
rc = results("rcpp")
for tid in ("A1", "A3", "A4", "A5", "A6", "C1a", "C1b", "C1c", "C2a", "C2b"):
    check(verdict(rc, tid) == "PASS", f"rcpp: {tid} PASS (got {verdict(rc, tid)})")
for tid in ("F1", "F3", "F4", "G1"):
    check(verdict(rc, tid) == "N/A" and rc.get(tid, {}).get("reason"), f"rcpp: {tid} N/A with a reason (got {verdict(rc, tid)})")
e1 = rc.get("E1", {})
check(e1.get("verdict") == "FAIL" and "retries with retry count 7" in e1.get("reason", "") and e1.get("known_deviation"),
      f"rcpp: E1 FAIL, the retry count reported as a known deviation (got {e1.get('verdict')}: {e1.get('reason')})")
check(e1.get("measured_ms", 0) >= 67.1 * 0.75, f"rcpp: E1's first retransmission after >= 0.75 x 67.1 ms (got {e1.get('measured_ms')})")
e3 = rc.get("E3", {})
check(e3.get("verdict") == "PASS" and e3.get("measured_ms", 0) >= 15.36 * 0.75, f"rcpp: E3 RNR back-off PASS (got {e3.get('verdict')} {e3.get('measured_ms')})")
wr, rd, at = results("write"), results("read"), results("atomic")
for res, tid in ((wr, "B7"), (wr, "B8a"), (wr, "B8b"), (wr, "B8c"), (wr, "B9"), (rd, "D1"), (rd, "D2"), (rd, "D3"),
                 (rd, "D4"), (at, "B11"), (at, "D5")):
    check(verdict(res, tid) == "PASS", f"perftest: {tid} PASS (got {verdict(res, tid)})")
# the DUT's own headers (group H; H6 the source ports of the run's QPs), CMP_SWAP (D6-D8, B12) and the PMTU
# variants (M; M3 a packet longer than the PMTU) rxe runs; V1 and F2 N/A
for tid in ("H1", "H2", "H3", "H4", "H5", "H6"):
    check(verdict(rc, tid) == "PASS", f"rcpp: {tid} PASS (got {verdict(rc, tid)}: {rc.get(tid, {}).get('reason')})")
for tid in ("V1", "F2"):
    check(verdict(rc, tid) == "N/A" and rc.get(tid, {}).get("reason"), f"rcpp: {tid} N/A with a reason (got {verdict(rc, tid)})")
for res, tid in ((at, "D6"), (at, "D7"), (at, "D8"), (at, "B12"), (wr, "M1a"), (wr, "M1b"), (wr, "M1c"),
                 (rd, "M2a"), (rd, "M2b"), (rd, "M2c")):
    check(verdict(res, tid) == "PASS", f"perftest: {tid} PASS (got {verdict(res, tid)}: {res.get(tid, {}).get('reason')})")
for res, tid in ((wr, "M1d"), (wr, "M1e"), (rd, "M2d"), (rd, "M2e"), (wr, "M3d"), (wr, "M3e")):
    check(verdict(res, tid) == "N/A" and "PMTU 1024" in res.get(tid, {}).get("reason", ""),
          f"perftest: {tid} N/A, the QP at PMTU 1024 (got {verdict(res, tid)}: {res.get(tid, {}).get('reason')})")
total = sum(1 for res in (rc, wr, rd, at) for r in res.values() if r["verdict"] != "N/A")
check(total >= 45, f"at least 45 tests judged against the DUT (got {total})")
# 2. the JUnit report loads and names each testcase by its test ID
try:
    cases = ET.parse(f"{out}/rcpp.xml").getroot().iter("testcase")
    names = [c.get("name").split()[0] for c in cases]
    check(names and set(names) == set(rc), f"rcpp.xml: one <testcase> per test, named by ID ({len(names)})")
except (OSError, ET.ParseError) as e:
    check(False, f"rcpp.xml parses ({e})")
# 2b. a per-test pcapng reads in Wireshark with each frame's note as its comment (tshark as nobody: run
# as root it would ignore plugin directories, and it must read the file like any user)
import os, shutil, subprocess, tempfile
if shutil.which("tshark") and shutil.which("setpriv"):
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    shutil.copy(f"{out}/pcap-rcpp/A5.pcapng", f"{tmp}/A5.pcapng")
    os.chmod(f"{tmp}/A5.pcapng", 0o644)
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=/tmp",
                        "tshark", "-r", f"{tmp}/A5.pcapng", "-T", "fields", "-e", "frame.comment",
                        "-e", "infiniband.bth.opcode"], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    check(any("from DUT: NAK PSN_SEQ_ERR" in l and l.endswith("\t17") for l in lines),
          f"A5.pcapng in tshark: the DUT's NAK with its note as the comment ({len(lines)} frames)")
    shutil.rmtree(tmp)
# 3. the faults turn the verdicts
fp = results("fault-psn")
check(status.get("fault-psn", (None,))[0] == 1 and verdict(fp, "A1") == "FAIL",
      f"fault psn (wrong PSN in the exchange): A1 FAIL, exit 1 (got {verdict(fp, 'A1')}, {status.get('fault-psn')})")
ff = results("fault-filter")
check(status.get("fault-filter", (None,))[0] == 3 and verdict(ff, "A1") == "INCONCLUSIVE" and verdict(ff, "C1a") == "INCONCLUSIVE",
      f"fault filter (answers hidden): INCONCLUSIVE, exit 3 (got {verdict(ff, 'A1')}/{verdict(ff, 'C1a')}, {status.get('fault-filter')})")
fs = results("fault-stopped")
check(status.get("fault-stopped", (None,))[0] == 3 and verdict(fs, "A1") == "PASS" and verdict(fs, "A3") == "INCONCLUSIVE",
      f"fault stopped server: A1 PASS, A3 INCONCLUSIVE, exit 3 (got {verdict(fs, 'A1')}/{verdict(fs, 'A3')}, {status.get('fault-stopped')})")
# 4. the DUT agent (--dut-ssh): the servers started by roceconform (no loop serves these ports), the DUT's
# facts in every report, every judged test's counter deltas, consistent with the verdicts, and nothing left
# running. The catalogue runs go through the agent; uc, ud and cm are the setups only the agent serves.
catalogue = {"rcpp": rc, "write": wr, "read": rd, "atomic": at}
agent = dict(catalogue, **{name: results(name) for name in ("agent-uc", "agent-ud", "agent-cm")})


def facts(name):
    try:
        return json.load(open(f"{out}/{name}.json"))["dut"]
    except (OSError, ValueError, KeyError):
        return {}


for name, res in agent.items():
    if name not in catalogue:
        check(status.get(name, (None,))[0] == 0, f"{name}: exit 0 with no hand-run server (got {status.get(name)})")
    judged = [r for r in res.values() if r["verdict"] != "N/A"]
    check(judged and all(r["verdict"] != "INCONCLUSIVE" for r in judged), f"{name}: every test judged ({len(judged)})")
    nocount = [r["id"] for r in judged if not isinstance(r.get("counters"), dict)]
    check(not nocount, f"{name}: every test has its counter deltas (none: {','.join(nocount)})")
    check(facts(name).get("rdma_driver") == "rdma_rxe", f"{name}.json: the DUT's facts ({facts(name)})")
    try:
        root = ET.parse(f"{out}/{name}.xml").getroot()
        props = {p.get("name"): p.get("value") for p in root.iter("property")}
        outs = "".join(o.text or "" for o in root.iter("system-out"))
        check(props.get("dut.kernel", "").startswith("6.1") and props.get("dut.ethtool.driver") == "virtio_net",
              f"{name}.xml: the DUT's facts as <property>s")
        check("counter rdma:" in outs, f"{name}.xml: the counter deltas in <system-out>")
    except (OSError, ET.ParseError) as e:
        check(False, f"{name}.xml parses ({e})")
dut = facts("rcpp")
check(dut.get("ip") == "10.77.0.1" and dut.get("kernel", "").startswith("6.1") and dut.get("rdma_driver") == "rdma_rxe"
      and dut.get("ethtool.driver") == "virtio_net" and dut.get("rdma_device") == "rxe0" and dut.get("netdev") == "eth0"
      and dut.get("gid") == "0000:0000:0000:0000:0000:ffff:0a4d:0001" and "ibv.fw_ver" in dut
      and dut.get("ibv.link_layer") == "Ethernet",
      f"rcpp.json: the DUT's facts (kernel, driver, firmware, ibv_devinfo, GID) ({dut})")
ar = rc


def moved(res, tid, counter):
    return res.get(tid, {}).get("counters", {}).get(counter, 0)


for tid, counter in (("A1", "rdma:rcvd_pkts"), ("A4", "rdma:duplicate_request"), ("A8", "rdma:duplicate_request"),
                     ("A5", "rdma:out_of_seq_request"), ("A9", "rdma:out_of_seq_request"), ("C6", "rdma:out_of_seq_request"),
                     ("E3", "rdma:rcvd_rnr_err")):
    check(moved(ar, tid, counter) >= 1, f"rcpp: {tid} {verdict(ar, tid)}, {counter} +{moved(ar, tid, counter)}")
check(moved(rd, "D1", "rdma:sent_pkts") >= 3, f"read: D1's 3 READ responses in rdma:sent_pkts "
      f"(+{moved(rd, 'D1', 'rdma:sent_pkts')})")
i1 = rc.get("I1", {})
check(i1.get("verdict") == "PASS", f"rcpp: I1 PASS, QP a's errors kept from QP b (got {i1.get('verdict')}: {i1.get('reason')})")
for t in ("Q1", "Q2", "Q3"):
    check(verdict(agent["agent-ud"], t) == "PASS", f"agent-ud: {t} PASS on ibv_ud_pingpong (got {verdict(agent['agent-ud'], t)})")
q4 = agent["agent-ud"].get("Q4", {})
check(q4.get("verdict") == "N/A" and "not observable" in q4.get("reason", ""),
      f"agent-ud: Q4 N/A, the GRH's contents not observable (got {q4.get('verdict')}: {q4.get('reason')})")
check(verdict(agent["agent-cm"], "E7") == "PASS", f"agent-cm: E7 PASS on rping -s over RDMA-CM (got {verdict(agent['agent-cm'], 'E7')})")
drops = [t for t in ar if t[0] == "C" and t != "C6"]
check(drops and all(verdict(ar, t) == "PASS" and not ar[t]["counters_contradict"] for t in drops),
      f"rcpp: the silent drops {','.join(drops)} PASS and rxe's counters agree (the spoiled packet not in rcvd_pkts)")
contra = [f"{t}: {r['reason']}" for res in agent.values() for t, r in res.items() if r.get("counters_contradict")]
check(not contra, f"no verdict the counters contradict ({contra})")

def text(name):
    try:
        return open(f"{out}/{name}").read().strip()
    except OSError as e:
        return f"unreadable: {e}"


# 5. an answer lost on the path (the guest's iptables dropping READ_RESPONSE_LAST): D1 run again after its
# first run FAILed on the answer not seen; a second run that has it is INCONCLUSIVE, one that misses it too
# FAIL; the first run's evidence, counters and pcapng kept
one, every = results("lossy-one").get("D1", {}), results("lossy-all").get("D1", {})
f1, f2 = one.get("first_run", {}), every.get("first_run", {})
check(status.get("lossy-one", (None,))[0] == 3 and one.get("verdict") == "INCONCLUSIVE"
      and "the test passed" in one.get("reason", "") and f1.get("verdict") == "FAIL"
      and "2 of 3 response packets" in f1.get("reason", ""),
      f"lossy-one: D1's LAST lost once: run again, INCONCLUSIVE, exit 3 (got {one.get('verdict')}: {one.get('reason')}; "
      f"first run {f1.get('verdict')}: {f1.get('reason')}; {status.get('lossy-one')})")
check(f1.get("counters", {}).get("rdma:sent_pkts", 0) >= 3 and os.path.exists(f"{out}/pcap-lossy-one/D1.first.pcapng")
      and f1.get("pcap", "").endswith("/pcap-lossy-one/D1.first.pcapng") and os.path.exists(f"{out}/pcap-lossy-one/D1.pcapng"),
      f"lossy-one: the first run's counters (the DUT sent 3 responses, rdma:sent_pkts +"
      f"{f1.get('counters', {}).get('rdma:sent_pkts')}) and its pcapng beside the second run's")
check(status.get("lossy-all", (None,))[0] == 1 and every.get("verdict") == "FAIL" and every.get("answer_not_seen") is True
      and f2.get("verdict") == "FAIL" and "the first run: FAIL (2 of 3 response packets)" in every.get("reason", ""),
      f"lossy-all: every LAST lost: FAIL after two runs, exit 1 (got {every.get('verdict')}: {every.get('reason')}; "
      f"{status.get('lossy-all')})")
check("packets 1 " in text("lossy-one-nft.txt") and "packets 2 " in text("lossy-all-nft.txt"),
      f"nft dropped one LAST in lossy-one, two in lossy-all ({text('lossy-one-nft.txt')!r}, {text('lossy-all-nft.txt')!r})")


check(text("agent-left.txt") == "", f"no DUT server left running after the agent's runs ({text('agent-left.txt')!r})")
check(status.get("agent-sigint", (None,))[0] == 130 and text("agent-sigint-before.txt") != ""
      and text("agent-sigint-left.txt") == "",
      f"SIGINT: roceconform ends (130) and kills the DUT server it started (before {text('agent-sigint-before.txt')!r}, "
      f"after {text('agent-sigint-left.txt')!r}, {status.get('agent-sigint')})")
# what Soft-RoCE's counters showed, per test group (the rdma: ones, summed)
groups = {}
for res in agent.values():
    for t, r in res.items():
        for k, v in r.get("counters", {}).items():
            if k.startswith("rdma:"):
                groups.setdefault(t[0], {}).setdefault(k[5:], 0)
                groups[t[0]][k[5:]] += v
for g in sorted(groups):
    print(f"counters {g}: " + ", ".join(f"{k} +{v}" for k, v in sorted(groups[g].items())))
print("timings: " + ", ".join(f"{k} {v[1]:.0f} s" for k, v in status.items()))
print(f"{len(bad)} assertion(s) failed" if bad else "all assertions hold")
sys.exit(1 if bad else 0)
