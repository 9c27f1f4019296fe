#!/usr/bin/env python3
"""readme_examples.py: every example in the project's documentation runs, and prints what the
page shows.

An example is a line starting with "$ rocedump ", "$ roceconform " or "$ tshark " inside a fenced
code block (```) of README.md, docs/*.md or any other Markdown file given; the lines after it, up to the next "$ " line or the
end of the block, are its output as shown. A line ending in a backslash goes on on the next line.
The command runs in sh -c from the top of the source tree, with the rocedump and roceconform under
test first on PATH, TZ=UTC and LC_ALL=C; tshark runs as an unprivileged user with the plugin under
test (--plugin; tshark run as root ignores plugin directories). An example of a program not given
(no --roceconform, no --plugin: a build without it) is skipped; its standard output must equal the shown lines exactly (an example
shown with no output must print nothing), and its standard error must be empty (an example that
shows an error message redirects it: 2>&1). A command written without the "$ " prompt is an
illustration, not an example, and is not run (a live capture, a file the reader has to bring).

  readme_examples.py --rocedump BUILD/rocedump [--roceconform BUILD/roceconform]
                     [--plugin BUILD/roce.so] [--update] SOURCE_ROOT [FILE.md ...]

--update rewrites each example's shown output with what the command prints now (after an
intended change of output; review the diff).

TAP output, one test per example, plus two on README.md: it has examples, and every command of its
"First five minutes" section is an example (each line of a fenced block there is a command with
the prompt, or the output shown under one). Exit 0 when all pass, 1 otherwise.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugin"))
from pcommon import Tshark  # noqa: E402

PROMPT = "$ "
TOOLS = ("rocedump", "roceconform", "tshark")
FIRST = "## First five minutes"
TIMEOUT = 120


def examples(path):
    """(line number, command, [shown output lines]) for each example in the Markdown file; the
    line number is the command's first line (1-based), its output follows its last line."""
    out = []
    in_block = False
    cur = None
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            if cur:
                out.append(cur)
                cur = None
            in_block = not in_block
        elif in_block and line.startswith(PROMPT):
            if cur:
                out.append(cur)
            start = i + 1
            cmd = line[len(PROMPT):]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + "\n" + lines[i]
            cur = (start, cmd, []) if cmd.split(" ")[0] in TOOLS else None
        elif in_block and cur:
            cur[2].append(line)
        i += 1
    if cur:
        out.append(cur)
    return out


def unrun_commands(path):
    """The lines of the fenced blocks of FIRST that are neither an example's command nor the output
    shown under one: commands that no test runs."""
    out = []
    section = in_block = False
    cur = False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("## "):
            section = line.startswith(FIRST)
        if not section:
            continue
        if line.lstrip().startswith("```"):
            in_block, cur = not in_block, False
        elif in_block and line.startswith(PROMPT):
            cur = line[len(PROMPT):].split(" ")[0] in TOOLS
            if not cur:
                out.append(line)
        elif in_block and not cur:
            out.append(line)
    return out


def rewrite(path, updates):
    """Replace, after each (command's last line number, lines shown, new lines), the lines shown."""
    lines = open(path, encoding="utf-8").read().split("\n")
    for after, count, new in sorted(updates, reverse=True):
        lines[after:after + count] = new
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rocedump", required=True)
    ap.add_argument("--roceconform", help="the roceconform under test (its examples are skipped without)")
    ap.add_argument("--plugin", help="the roce.so under test (tshark examples are skipped without)")
    ap.add_argument("--update", action="store_true", help="rewrite the shown outputs")
    ap.add_argument("root", help="the top of the source tree")
    ap.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/*.md)")
    a = ap.parse_args()

    root = os.path.abspath(a.root)
    files = a.files or [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    with tempfile.TemporaryDirectory() as bindir:
        # the binary under test, and only it, as "rocedump" on PATH
        os.symlink(os.path.abspath(a.rocedump), os.path.join(bindir, "rocedump"))
        if a.roceconform:
            os.symlink(os.path.abspath(a.roceconform), os.path.join(bindir, "roceconform"))
        tshark = Tshark(shutil.which("tshark"), a.plugin) if a.plugin and shutil.which("tshark") else None
        if tshark:
            # "tshark" on PATH: the system's tshark, as pcommon runs it, with the plugin under test
            wrapper = os.path.join(bindir, "tshark")
            with open(wrapper, "w") as w:
                w.write("#!/bin/sh\nexec %s \"$@\"\n" % " ".join("'%s'" % x for x in tshark.cmd([])))
            os.chmod(wrapper, 0o755)
        os.chmod(bindir, 0o755)
        have = {"rocedump": True, "roceconform": bool(a.roceconform), "tshark": bool(tshark)}
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
                   TZ="UTC", LC_ALL="C")
        env.pop("POSIXLY_CORRECT", None)
        n = failed = 0
        for path in files:
            rel = os.path.relpath(path, root)
            exs = examples(path)
            updates = []
            if rel == "README.md":
                n += 1
                if exs:
                    print("ok %d - %s has %d examples" % (n, rel, len(exs)))
                else:
                    failed += 1
                    print("not ok %d - %s has no example" % (n, rel))
                n += 1
                unrun = unrun_commands(path)
                if unrun:
                    failed += 1
                    print("not ok %d - %s: every command of \"%s\" is run" % (n, rel, FIRST[3:]))
                    print("#   not run: %s" % unrun[0][:200])
                else:
                    print("ok %d - %s: every command of \"%s\" is run" % (n, rel, FIRST[3:]))
            for line_no, cmd, shown in exs:
                n += 1
                name = "%s:%d: %s" % (rel, line_no, cmd.replace("\n", " ")[:100])
                if not have[cmd.split(" ")[0]]:
                    print("ok %d - %s # SKIP %s not built" % (n, name, cmd.split(" ")[0]))
                    continue
                try:
                    res = subprocess.run(["sh", "-c", cmd], cwd=root, env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
                    got = res.stdout.decode(errors="replace").split("\n")
                    err = res.stderr.decode(errors="replace")
                except subprocess.TimeoutExpired:
                    got, err = ["(timed out after %d s)" % TIMEOUT], ""
                if got and got[-1] == "":
                    got.pop()
                if a.update and got != shown:
                    updates.append((line_no + cmd.count("\n"), len(shown), got))
                if got == shown and not err:
                    print("ok %d - %s" % (n, name))
                    continue
                failed += 1
                print("not ok %d - %s" % (n, name))
                for k in range(max(len(got), len(shown))):
                    g = got[k] if k < len(got) else "(nothing)"
                    s = shown[k] if k < len(shown) else "(nothing)"
                    if g != s:
                        print("#   first difference, output line %d:" % (k + 1))
                        print("#     shown:  %s" % s[:300])
                        print("#     prints: %s" % g[:300])
                        break
                print("#   (%d lines shown, %d printed)%s" % (len(shown), len(got),
                                                         ("; stderr: " + err[:300]) if err else ""))
            if updates:
                rewrite(path, updates)
                print("# %s: %d examples' output rewritten" % (rel, len(updates)))
        if tshark:
            tshark.close()
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    if not shutil.which("sh"):
        print("1..0 # SKIP no sh")
        sys.exit(0)
    sys.exit(main())
