#!/usr/bin/python3
"""Wireshark's Qt window with the plugin and the profile "RoCE", as a Wireshark user meets them:
Wireshark 4.0 under Xvfb, run as an unprivileged user (run as root it ignores personal plugin
directories), on a real lossy capture. From the Statistics menu, by mouse clicks (xdotool; with
no window manager, key presses may not reach a menu), it opens RoCE Queue Pairs, Conversations
(then its RoCE tab, copied as CSV through the clipboard: the queue pair's row) and Flow Graph (then the flow type RoCE), and checks each window by its title
("Wireshark · Flow · FILE"). Screenshots of the main window and of each view are written to
OUTDIR (the build directory's tests/plugin/gui/); docs/plugin.md shows two of them.

The menu items are found by their place in the Statistics menu's popup, and the items of a
drop-down list (the Copy button's, the flow type's) by their place in the list's window, once
that window is on screen (their geometry is read from the X server: no fixed waits); a click that
opens nothing fails the test with a screenshot of what was on screen.

Usage: plugin_gui.py --plugin roce.so --profile DIR --outdir OUTDIR CAPTURES-DIR
Exit status: 0 pass, 1 a failure (printed), 77 skipped (no Wireshark Qt, Xvfb, xdotool or
xclip, ImageMagick's import).
"""
import argparse
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CAPTURE = "rxe/rc_pingpong_loss.pcap"
GOTO_FRAME = "46"              # a retransmission, so the tree shows the analysis
SCREEN = (1280, 1000)
STATISTICS_MENU = (325, 10)    # "Statistics" in the menu bar of a 1280-wide main window
# Items of the Statistics popup, relative to its top-left corner (Wireshark 4.0, Debian's fonts)
MENU_ITEMS = {"Conversations": (74, 87), "RoCE Queue Pairs": (85, 289), "Flow Graph": (64, 438)}
ANALYSIS_ROW = (280, 646)      # the frame's RoCE Analysis row, last of the tree, in the main window
TREE_PANE = "640x400+0+535"    # the packet tree pane of the main window (WxH+X+Y), for its picture
ROCE_TAB = (494, 25)           # the Conversations window's RoCE tab, relative to the window
COPY_BUTTON = (110, 246)       # its Copy button, relative to the window
COPY_AS_CSV = (50, 12)         # "as CSV" in the list it drops, relative to the list
FLOW_TYPE_COMBO = (676, 745)   # the Flow Graph's "Flow type" box, relative to the window
FLOW_TYPE_ROCE = (24, 112)     # "RoCE" in the list it drops, relative to the list
WAIT = 120.0                   # seconds for any window to appear (Wireshark's start on a busy machine)


class Failure(Exception):
    pass


class Screen:
    """An Xvfb server on a display it picks itself (-displayfd: no race for a free number)."""

    def __init__(self):
        r, w = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-ac", "-nolisten", "tcp", "-screen", "0",
                                      "%dx%dx24" % SCREEN], pass_fds=(w,), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number.isdigit():
            self.proc.kill()
            raise Failure("Xvfb did not start")
        self.display = ":" + number
        self.tmp = tempfile.mkdtemp(prefix="roce-gui-shots-")
        self.env = dict(os.environ, DISPLAY=self.display)

    def run(self, *args):
        """A tool's output; a tool that hangs (an X client waiting on a window) fails the test."""
        try:
            return subprocess.run(args, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, timeout=30).stdout
        except subprocess.TimeoutExpired:
            raise Failure("%s did not return within 30 s" % " ".join(args))

    def windows(self):
        """Visible top-level windows: {id: (name, x, y, width, height)}."""
        out = self.run("xwininfo", "-root", "-children")
        found = {}
        for m in re.finditer(r'^\s+(0x[0-9a-f]+) "(.*)": \(.*\)\s+(\d+)x(\d+)\+(-?\d+)\+(-?\d+)', out, re.M):
            wid, name, w, h, x, y = m.groups()
            state = self.run("xwininfo", "-id", wid)
            if "IsViewable" in state:
                found[wid] = (name, int(x), int(y), int(w), int(h))
        return found

    def wait_window(self, pattern, what):
        """The first visible window whose name matches pattern, waiting up to WAIT seconds."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for wid, info in self.windows().items():
                if re.search(pattern, info[0]):
                    return wid, info
            time.sleep(0.2)
        raise Failure("no window %s after %.0f s (windows: %s)" % (what, WAIT, sorted(
            i[0] for i in self.windows().values())))

    def wait_popup(self, before, what="the Statistics menu", timeout=10):
        """A new unnamed ("Wireshark") window, the menu or list just opened: (x, y), or None after
        timeout seconds (what names it in the failure then, unless None)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for wid, info in self.windows().items():
                if wid not in before and info[0] == "Wireshark" and info[3] > 40 and info[4] > 40:
                    return info[1], info[2]
            time.sleep(0.1)
        if what:
            raise Failure("%s did not open" % what)
        return None

    def click(self, x, y):
        self.run("xdotool", "mousemove", str(x), str(y), "click", "1")

    def shot(self, path, wid=None):
        self.run("import", "-window", wid or "root", path)
        if not os.path.exists(path):
            raise Failure("no screenshot %s" % path)
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    def close(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def start_wireshark(screen, home, capture):
    env = ["PATH=/usr/bin:/bin", "HOME=" + home, "XDG_RUNTIME_DIR=" + home, "WIRESHARK_PLUGIN_DIR=" + home,
           "DISPLAY=" + screen.display]
    pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    return subprocess.Popen(pre + ["env", "-i"] + env + ["wireshark", "-C", "RoCE", "-r", capture, "-g", GOTO_FRAME],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def prepare_home(plugin, profile, captures):
    home = tempfile.mkdtemp(prefix="roce-gui-")
    os.makedirs(os.path.join(home, "4.0", "epan"))
    shutil.copy(plugin, os.path.join(home, "4.0", "epan", "roce.so"))
    shutil.copytree(profile, os.path.join(home, ".config", "wireshark", "profiles", "RoCE"))
    capture = os.path.join(home, os.path.basename(CAPTURE))
    shutil.copy(os.path.join(captures, CAPTURE), capture)
    for root, dirs, files in os.walk(home):
        for name in dirs + files:
            path = os.path.join(root, name)
            os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
            if os.geteuid() == 0:
                os.chown(path, 65534, 65534)
    os.chmod(home, 0o700)
    if os.geteuid() == 0:
        os.chown(home, 65534, 65534)
    return home, capture


def open_from_statistics(screen, item, title, what):
    """The window a Statistics menu item opens, once it is placed and drawn: (id, info, picture's digest)."""
    before = screen.windows()
    screen.click(*STATISTICS_MENU)
    x, y = screen.wait_popup(before)
    dx, dy = MENU_ITEMS[item]
    screen.click(x + dx, y + dy)
    wid, _ = screen.wait_window(title, what)
    return settle(screen, wid)


def settle(screen, wid):
    """Waits until the window keeps its place and its picture for three looks in a row (a window
    is mapped, then placed, then drawn): (id, info, digest)."""
    last, same = None, 0
    deadline = time.monotonic() + 15
    path = os.path.join(screen.tmp, "settle.png")
    while same < 3 and time.monotonic() < deadline:
        now = (screen.windows().get(wid), screen.shot(path, wid))
        same = same + 1 if now == last else 1
        last = now
        time.sleep(0.2)
    if same < 3:
        raise Failure("the window %s did not settle" % (last[0] or (wid,))[0])
    return wid, last[0], last[1]


def check_gui(screen, outdir, name):
    shots = []
    main, info = screen.wait_window("^" + re.escape(name) + "$", "for the capture")
    screen.run("xdotool", "windowmove", main, "0", "0", "windowsize", main, str(SCREEN[0]), str(SCREEN[1]))
    main, info, first = settle(screen, main)
    if info[1:] != (0, 0) + SCREEN:
        raise Failure("the main window is at %s, not at 0,0 in %dx%d" % (info[1:], SCREEN[0], SCREEN[1]))
    shutil.copy(os.path.join(screen.tmp, "settle.png"), os.path.join(outdir, "main.png"))
    shots.append("main.png")
    screen.click(*ANALYSIS_ROW)
    screen.run("xdotool", "key", "shift+Right", "End")  # expand it and its subtrees, show its end
    if not wait_change(screen, main, first, os.path.join(outdir, "main-analysis.png")):
        raise Failure("the RoCE Analysis subtree of frame %s did not open" % GOTO_FRAME)
    screen.run("convert", os.path.join(outdir, "main-analysis.png"), "-crop", TREE_PANE, "+repage",
               os.path.join(outdir, "analysis-tree.png"))
    shots.append("analysis-tree.png")

    wid, _, _ = open_from_statistics(screen, "RoCE Queue Pairs", r"^Wireshark · RoCE Queue Pairs · " + re.escape(name),
                                  "RoCE Queue Pairs")
    screen.shot(os.path.join(outdir, "queue-pairs.png"), wid)
    shots.append("queue-pairs.png")
    screen.run("xdotool", "windowclose", wid)

    wid, (_, x, y, _, _), first = open_from_statistics(screen, "Conversations",
                                                       r"^Wireshark · Conversations · " + re.escape(name),
                                                       "Conversations")
    screen.click(x + ROCE_TAB[0], y + ROCE_TAB[1])
    if not wait_change(screen, wid, first, os.path.join(outdir, "conversations.png")):
        raise Failure("a click on the RoCE tab of Conversations changed nothing (no RoCE tab?)")
    shots.append("conversations.png")
    check_conversation_csv(screen, x, y)
    screen.run("xdotool", "windowclose", wid)

    wid, (_, x, y, _, _), first = open_from_statistics(screen, "Flow Graph",
                                                       r"^Wireshark · Flow · " + re.escape(name), "Flow Graph")
    if not choose_flow_type(screen, wid, x, y, first, os.path.join(outdir, "flow.png")):
        raise Failure("choosing the flow type RoCE changed nothing (no RoCE flow type?)")
    shots.append("flow.png")
    return shots


def check_conversation_csv(screen, x, y):
    """Copy → as CSV on the RoCE tab: the clipboard must hold the capture's one queue pair (QP
    0x19 = 25 in both port columns) with all its 322 frames. The dialog fills its table while it
    taps the capture again (rows first, counts after), so it copies until the row is whole or 30 s
    have passed."""
    want = [("25", "25", "322")]
    got, text = None, ""

    def copied():
        """Whether the clipboard holds the row, waiting up to 2 s for it to be written."""
        nonlocal got, text
        deadline = time.monotonic() + 2
        while True:
            text = screen.run("xclip", "-o", "-selection", "clipboard")
            rows = list(csv.DictReader(io.StringIO(text))) if text.startswith("Address A,Port A") else []
            got = [(r["Port A"], r["Port B"], r["Packets"]) for r in rows]
            if got == want or time.monotonic() > deadline:
                return got == want
            time.sleep(0.1)

    if not pick_from_list(screen, (x + COPY_BUTTON[0], y + COPY_BUTTON[1]), COPY_AS_CSV, copied):
        print("the RoCE tab as CSV: %s" % text.strip())
        raise Failure("the RoCE conversation tab copied as CSV holds %s, not one queue pair 25 <-> 25 of "
                      "322 packets" % (got or "nothing"))


def choose_flow_type(screen, wid, x, y, first, path):
    """Flow type → RoCE in the Flow Graph window at (x, y): whether the graph changed."""
    return pick_from_list(screen, (x + FLOW_TYPE_COMBO[0], y + FLOW_TYPE_COMBO[1]), FLOW_TYPE_ROCE,
                          lambda: wait_change(screen, wid, first, path))


def pick_from_list(screen, opener, item, done):
    """An item of a drop-down list: opener (a box or button, on the screen) clicked, the list's
    window waited for (it appears as a new top-level window), item (relative to the list's corner)
    clicked, then done() asked whether it took effect; tried again (a busy machine may draw the
    list late, or a dialog still filling may copy too early) until done() or 30 s have passed."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        before = screen.windows()
        screen.click(*opener)
        at = screen.wait_popup(before, what=None, timeout=5)
        if at:
            screen.click(at[0] + item[0], at[1] + item[1])
            if done():
                return True
    return False


def wait_change(screen, wid, digest, path):
    """Whether a screenshot of wid differs from digest within 10 s (kept at path)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if screen.shot(path, wid) != digest:
            return True
        time.sleep(0.3)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--outdir", required=True)
    ap.add_argument("captures")
    args = ap.parse_args()
    missing = [t for t in ("wireshark", "Xvfb", "xdotool", "xwininfo", "xclip", "import") if not shutil.which(t)]
    if missing or not os.path.exists(args.plugin):
        print("SKIP: not installed: %s" % " ".join(missing or [args.plugin]))
        return 77
    os.makedirs(args.outdir, exist_ok=True)
    home, capture = prepare_home(args.plugin, args.profile, args.captures)
    screen = ws = None
    try:
        screen = Screen()
        ws = start_wireshark(screen, home, capture)
        shots = check_gui(screen, args.outdir, os.path.basename(capture))
        print("GUI: RoCE Queue Pairs, Conversations (RoCE tab), Flow Graph (RoCE) opened from the "
              "Statistics menu; screenshots in %s: %s" % (args.outdir, ", ".join(shots)))
        return 0
    except Failure as e:
        if screen:
            screen.shot(os.path.join(args.outdir, "failure.png"))
        print("FAIL: %s (screen: %s)" % (e, os.path.join(args.outdir, "failure.png")))
        return 1
    finally:
        if ws:
            ws.kill()
            err = ws.communicate()[1].decode(errors="replace")
            if ws.returncode not in (-9, None) or "Dissector bug" in err:
                print("Wireshark (exit %s) said: %s" % (ws.returncode, err.strip()[-2000:]))
        if screen:
            screen.close()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
