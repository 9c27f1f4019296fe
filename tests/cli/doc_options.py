#!/usr/bin/env python3
"""doc_options.py: every long option written after "rocedump" or "roceconform" in the project's
documentation (Markdown files and man pages) is one that program's --help lists: a command line
in a README or a diagram cannot name an option the program does not have. A command runs from the
program's name to the end of its line (or the next line, after a trailing backslash), or to a
backtick, a pipe, ";", "&&", ")" or "]". Prints each offending "FILE:LINE: PROGRAM --OPTION",
nothing when all are known; exit 1 when any is not.

  doc_options.py SOURCE_ROOT ROCEDUMP [ROCECONFORM]
"""
import os
import re
import subprocess
import sys

SKIP_NAMES = {'.git', 'vendor'}  # git's, a vendored library's (and build*, the builds)
SKIP_PATHS = {os.path.join('tests', 'dut', 'cache')}  # the DUT image's files, from the root
END = re.compile(r'`|\||;|&&|\)|\]')
COMMAND = re.compile(r'(?<![\w./-])(rocedump|roceconform)(?= )')
LONG = re.compile(r'(?<![\w-])--[a-z][a-z0-9-]+')


def options(exe):
    h = subprocess.run([exe, '--help'], capture_output=True, text=True, timeout=30)
    return set(LONG.findall(h.stdout + h.stderr))


def doc_files(root):
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_NAMES and not x.startswith('build') and
                   os.path.relpath(os.path.join(d, x), root) not in SKIP_PATHS]
        for n in names:
            if n.endswith('.md') or re.search(r'\.[1-8]$', n):
                yield os.path.join(d, n)


def command_text(lines, i, start):
    """The command's text from lines[i][start:], on over backslash-ended lines."""
    text, cut = lines[i][start:], None
    while True:
        cut = END.search(text)
        if cut:
            return text[:cut.start()]
        if not text.rstrip().endswith('\\') or i + 1 >= len(lines):
            return text
        i += 1
        text += ' ' + lines[i]


def main():
    root, tools = sys.argv[1], {'rocedump': sys.argv[2]}
    if len(sys.argv) > 3:
        tools['roceconform'] = sys.argv[3]
    known = {t: options(exe) for t, exe in tools.items()}
    bad = 0
    for path in sorted(doc_files(root)):
        lines = open(path, encoding='utf-8').read().replace('\\-', '-').split('\n')  # roff's \-
        for i, line in enumerate(lines):
            for m in COMMAND.finditer(line):
                if m.group(1) not in known:
                    continue
                for opt in LONG.findall(command_text(lines, i, m.end())):
                    if opt not in known[m.group(1)]:
                        print(f'{os.path.relpath(path, root)}:{i + 1}: {m.group(1)} {opt}')
                        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
