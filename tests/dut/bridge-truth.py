#!/usr/bin/python3
"""rocedump DUT harness: the truth file of a capture of several points with loss at a known hop: two
bridges (run-pair.sh TOPO=two-bridges) or, with --mirrors, the two guests' ERSPAN sessions collected
on the host (run-pair.sh MIRROR_CAPTURE=1, scenario mirrors_*).

usage: bridge-truth.py [--mirrors] RUNDIR CAPTURE SCENARIO COMMAND...   (JSON on standard output)
RUNDIR is run-pair.sh's output directory: nft.json (the hop-loss counters after the run), tc.txt,
host-dumpcap.log (dumpcap's received/dropped line per interface), links-start.json and links.json
(ip -s -j link before the guests started and at the end). CAPTURE is the pcapng as committed (the
points are its interface names, or with --mirrors its ERSPAN sessions, counted with tshark). COMMAND:
the command lines that made it (run-pair.sh's environment and the guest tools), kept as they are.
The nft counters are the truth of the loss: where each hook sits in the topology is given by HOOKS.
"""
import json, re, subprocess, sys

TOPOLOGY = "srv 10.77.0.1 rxetap0 -> brA -> vethA ~ vethB -> brB -> rxetap1 cli 10.77.0.2"
# ingress hook device -> (from point, to point, direction): the frames it drops were seen at "from"
# (None: no capture point before it) and never reach "to"
HOOKS = {
    "vethB": ("brA", "brB", "10.77.0.1>10.77.0.2"),
    "vethA": ("brB", "brA", "10.77.0.2>10.77.0.1"),
    "rxetap0": (None, "brA", "10.77.0.1>10.77.0.2"),
    "rxetap1": (None, "brB", "10.77.0.2>10.77.0.1"),
}

# --mirrors: srv mirrors its eth0 (both directions) into ERSPAN II session 201, cli into ERSPAN III
# session 202 (direction bit: ingress); the points are named as rocedump names them
MIRROR_POINTS = {"10.77.0.1": "erspan2 10.77.0.1>10.77.0.200 session 201",
                 "10.77.0.2": "erspan3 10.77.0.2>10.77.0.200 session 202 ingress"}
MIRROR_TOPOLOGY = ("srv 10.77.0.1 eth0 (mirrored: %s) -> rxetap0 -> rxebr0 -> rxetap1 -> eth0 (mirrored: %s) "
                   "cli 10.77.0.2; both sessions' frames go to 10.77.0.200 = rxebr0 (the collector)"
                   % (MIRROR_POINTS["10.77.0.1"], MIRROR_POINTS["10.77.0.2"]))
MIRROR_HOOKS = {
    "rxetap0": (MIRROR_POINTS["10.77.0.1"], MIRROR_POINTS["10.77.0.2"], "10.77.0.1>10.77.0.2"),
    "rxetap1": (MIRROR_POINTS["10.77.0.2"], MIRROR_POINTS["10.77.0.1"], "10.77.0.2>10.77.0.1"),
}


def hops(nft):
    """One entry per ingress chain of table netdev rxeloss: its drop and pass counters."""
    chains, rules = {}, {}
    for o in nft["nftables"]:
        if "chain" in o and o["chain"]["table"] == "rxeloss":
            chains[o["chain"]["name"]] = o["chain"]["dev"] if "dev" in o["chain"] else o["chain"]["name"][3:]
        if "rule" in o and o["rule"]["table"] == "rxeloss":
            rules.setdefault(o["rule"]["chain"], []).append(o["rule"]["expr"])
    out = []
    for name, dev in sorted(chains.items()):
        h = {"hook": "netdev ingress " + dev, "from": None, "to": None, "direction": None}
        if dev in HOOKS:
            h["from"], h["to"], h["direction"] = HOOKS[dev]
        for expr in rules.get(name, []):
            counter = next(e["counter"]["packets"] for e in expr if "counter" in e)
            mod = [e["match"]["left"]["numgen"]["mod"] for e in expr
                   if "match" in e and isinstance(e["match"]["left"], dict) and "numgen" in e["match"]["left"]]
            if any("drop" in e for e in expr):
                h["dropped"], h["one_in"] = counter, mod[0] if mod else None
            else:
                h["passed"] = counter
        out.append(h)
    return out


def frames_per_session(cap):
    """point -> RoCE frames of its ERSPAN session (the session's outer IPv4 source names it)."""
    out = subprocess.run(["tshark", "-r", cap, "-Y", "erspan && infiniband", "-T", "fields", "-E", "occurrence=f",
                          "-e", "ip.src"], capture_output=True, text=True, check=True).stdout.split()
    return {MIRROR_POINTS.get(a, a): out.count(a) for a in sorted(set(out))}


def dumpcap_stats(log):
    """interface -> (received, dropped) from dumpcap's closing lines."""
    st = {}
    for m in re.finditer(r"Packets received/dropped on interface '([^']+)': (\d+)/(\d+)", log):
        st[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return st


def frames_per_point(cap):
    out = subprocess.run(["tshark", "-r", cap, "-T", "fields", "-e", "frame.interface_name"],
                         capture_output=True, text=True, check=True).stdout.split()
    names = []
    for n in out:
        if n not in names:
            names.append(n)
    return {n: out.count(n) for n in names}


def tbf(tc):
    """The tbf qdiscs in tc -s qdisc show: device, parameters, sent and dropped packets."""
    res = []
    for m in re.finditer(r"qdisc tbf \S+ dev (\S+) root (.*?)\n Sent \d+ bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)", tc):
        res.append({"dev": m.group(1), "params": m.group(2).strip(), "sent": int(m.group(3)),
                    "dropped": int(m.group(4)), "overlimits": int(m.group(5))})
    return res


def device_drops(start, end):
    """Every device's receive and transmit drops while the guests ran (ip -s -j link at the start and
    the end): losses nft did not make, of any protocol (the devices do not tell which)."""
    def drops(links):
        return {l["ifname"]: (l["stats64"]["rx"]["dropped"], l["stats64"]["tx"]["dropped"]) for l in links}
    a, b = drops(start), drops(end)
    return {d: {"rx_dropped": b[d][0] - a.get(d, (0, 0))[0], "tx_dropped": b[d][1] - a.get(d, (0, 0))[1]}
            for d in b if d != "lo"}


def main():
    args = sys.argv[1:]
    mirrors = args[:1] == ["--mirrors"]
    if mirrors:
        args = args[1:]
        HOOKS.clear()
        HOOKS.update(MIRROR_HOOKS)
    if len(args) < 3:
        sys.exit("usage: bridge-truth.py [--mirrors] RUNDIR CAPTURE SCENARIO COMMAND...")
    run, cap, scen, cmds = args[0], args[1], args[2], args[3:]
    nft = json.load(open(run + "/nft.json"))
    st = dumpcap_stats(open(run + "/host-dumpcap.log").read())
    frames = frames_per_session(cap) if mirrors else frames_per_point(cap)
    truth = {
        "capture": cap.rsplit("/", 1)[-1],
        "scenario": scen,
        "topology": MIRROR_TOPOLOGY if mirrors else TOPOLOGY,
        "points": list(frames) if mirrors else list(st) or list(frames),
        "frames": frames,
        "capture_drops": {k: v[1] for k, v in st.items()},
        "captured_by_kernel": {k: v[0] for k, v in st.items()},
        "hops": hops(nft),
        "tbf": tbf(open(run + "/tc.txt").read()),
        "device_drops": device_drops(json.load(open(run + "/links-start.json")), json.load(open(run + "/links.json"))),
        "commands": cmds,
        "nft_ruleset": open(run + "/nft-ruleset.txt").read(),
    }
    json.dump(truth, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
