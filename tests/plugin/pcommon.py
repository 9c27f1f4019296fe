"""pcommon.py: what the plugin tests share: a plugin directory tshark loads roce.so from
(DIR/4.0/epan/roce.so), and tshark run as an unprivileged user with WIRESHARK_PLUGIN_DIR=DIR
(tshark run as root ignores plugin directories), with the compiler's libasan preloaded when the
plugin is an AddressSanitizer build; the capture is read on standard input."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crosscheck"))
from xcommon import captures_or_status  # noqa: E402,F401


def is_asan(plugin):
    """Whether the .so was built with AddressSanitizer (it calls __asan_init)."""
    out = subprocess.run(["nm", "-D", plugin], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return b"__asan_init" in out or b"__asan_report" in out


class Tshark:
    """tshark with the plugin (or, with plugin=None, without it) as user 65534."""

    def __init__(self, tshark, plugin):
        self.tshark = tshark
        self.dir = tempfile.mkdtemp(prefix="roce-plugin-")
        os.chmod(self.dir, 0o755)
        self.env = ["PATH=/usr/bin:/bin", "HOME=" + self.dir]
        self.asan = False
        if plugin:
            epan = os.path.join(self.dir, "4.0", "epan")
            os.makedirs(epan)
            shutil.copy(plugin, os.path.join(epan, "roce.so"))
            for d in (os.path.join(self.dir, "4.0"), epan):
                os.chmod(d, 0o755)
            os.chmod(os.path.join(epan, "roce.so"), 0o755)
            self.env.append("WIRESHARK_PLUGIN_DIR=" + self.dir)
            self.asan = is_asan(plugin)
            if self.asan:
                cc = shutil.which("cc") or shutil.which("gcc")
                lib = subprocess.run([cc, "-print-file-name=libasan.so"], stdout=subprocess.PIPE,
                                     text=True).stdout.strip()
                self.env += ["LD_PRELOAD=" + lib, "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1",
                             "UBSAN_OPTIONS=print_stacktrace=1"]
        else:
            # an empty plugin directory: the system's plugins only, no roce.so
            self.env.append("WIRESHARK_PLUGIN_DIR=" + self.dir)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def cmd(self, args):
        pre = []
        if os.geteuid() == 0:
            pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        return pre + ["env", "-i"] + self.env + [self.tshark] + list(args)

    def run(self, args, path=None, data=None):
        """(status, stdout, stderr) of tshark ARGS, the capture (a file's bytes) on stdin."""
        if path is not None:
            with open(path, "rb") as f:
                data = f.read()
        res = subprocess.run(self.cmd(args), input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return res.returncode, res.stdout.decode(errors="replace"), res.stderr.decode(errors="replace")

    def readable_copy(self, path):
        """A copy of the capture the unprivileged user can open (tshark -2 cannot read stdin)."""
        dst = os.path.join(self.dir, os.path.basename(path))
        shutil.copy(path, dst)
        os.chmod(dst, 0o644)
        return dst


def sanitizer_report(stderr):
    """The first line of a sanitizer's report in stderr, or None."""
    for line in stderr.splitlines():
        if "AddressSanitizer" in line or "runtime error:" in line or "LeakSanitizer" in line:
            return line
    return None


def parse_args(doc, extra):
    """The arguments of a plugin test: --plugin, --tshark, the captures directory, and what
    extra(parser) adds; (args, None), or (None, 77) to skip without tshark or the plugin."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--tshark", default=shutil.which("tshark") or "")
    extra(ap)
    ap.add_argument("captures")
    args = ap.parse_args()
    if not args.tshark or not os.path.exists(args.plugin):
        print("SKIP: no tshark or plugin")
        return None, 77
    return args, None
