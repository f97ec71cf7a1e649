#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The EXAMPLE of the crash extension's help (crash-ext/crash_help.c,
help_tail[]) from real output: every "crash> memmapcheck ..." line
of it is run in crash 8.0.2 on the committed 6.1-stock-b2 dump (with the
CLI's snapshot of 6.1-stock-b1 as /tmp/b1.snap), and the lines after it are
what that command printed.  The prose between the transcripts stays.

usage: crash-example.py [--check | --write] [--ext SO]
  --check   exit 1 (and show the difference) when the help's transcripts
            are not what the commands print today (the walk's time and
            rate are not compared)
  --write   rewrite them in crash-ext/crash_help.c
Exit 77 when crash, the extension, the vmlinux or the dumps are missing.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(TOP, "crash-ext", "crash_help.c")
CACHE = os.environ.get("MEMMAPCHECK_CACHE", os.path.expanduser("~/.cache/memmapcheck"))
BUILD = os.environ.get("MMC_BUILD", os.path.join(TOP, "build"))
CRASH = "/usr/bin/crash"
TIME = re.compile(r"\d+\.\d\d s \(\d+\.\d M pages/s\)")


def c_lines(src):
    """(start, end) indexes of the EXAMPLE's string lines in src lines."""
    start = next(i for i, l in enumerate(src) if l.startswith('"\\nEXAMPLE"'))
    end = next(i for i in range(start, len(src)) if src[i].strip() == "NULL")
    return start + 1, end


def unquote(line):
    s = line.strip()
    assert s.startswith('"') and s.endswith('",'), line
    return s[1:-2].encode().decode("unicode_escape")


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '",'


def run_crash(cmds, work, ext, vmlinux, dumpdir):
    with open(os.path.join(work, "cmds"), "w") as f:
        f.write("extend %s\n" % ext)
        for c in cmds:
            f.write("!echo @@mmc@@ %s\n%s\n" % (c.replace(" /tmp/", " %s/" % work), c.replace(" /tmp/", " %s/" % work)))
        f.write("quit\n")
    p = subprocess.run([CRASH, "-s", "--no_kmem_cache", vmlinux, "6.1-stock-b2.kdump",
                        "-i", os.path.join(work, "cmds")], cwd=dumpdir,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    out, cur = {}, None
    for line in p.stdout.decode(errors="replace").replace(work, "/tmp").splitlines():
        if line.startswith("@@mmc@@ "):
            cur = line[len("@@mmc@@ "):]
            out[cur] = []
        elif cur is not None and line.strip():
            out[cur].append(line)
        elif cur is not None and out[cur]:
            out[cur].append("")
    for c in out:
        while out[c] and not out[c][-1]:
            out[c].pop()
    return out


def main(argv):
    mode = "--check"
    ext = None
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a in ("--check", "--write"):
            mode = a
        elif a == "--ext" and args:
            ext = args.pop(0)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    ext = ext or os.path.join(BUILD, "crash-ext", "8.0.2", "memmapcheck.so")
    vmlinux = os.path.join(CACHE, "kernels", "6.1-stock", "vmlinux")
    r = subprocess.run([os.path.join(TOP, "scripts", "vectors", "unpack-dumps.sh"), "6.1-stock"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    dumpdir = r.stdout.decode().strip()
    missing = [w for w, ok in (("crash 8.0.2", os.access(CRASH, os.X_OK)),
                               ("the extension " + ext, os.path.exists(ext)),
                               ("the 6.1-stock vmlinux", os.path.exists(vmlinux)),
                               ("dumps/6.1-stock.tar.xz", r.returncode == 0))
               if not ok]
    if missing:
        print("crash-example: missing: " + ", ".join(missing), file=sys.stderr)
        return 77
    src = open(SRC).read().splitlines()
    a, b = c_lines(src)
    old = [unquote(l) for l in src[a:b]]
    cmds = [l.strip()[len("crash> "):] for l in old if l.strip().startswith("crash> ")]
    work = tempfile.mkdtemp(prefix="mmc-crash-example-")
    try:
        cli = os.path.join(BUILD, "memmapcheck")
        subprocess.run([cli, "snapshot", "-q", "-o", os.path.join(work, "b1.snap"), vmlinux,
                        os.path.join(dumpdir, "6.1-stock-b1.kdump")], check=True)
        got = run_crash(cmds, work, ext, vmlinux, dumpdir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    new, i = [], 0
    while i < len(old):
        line = old[i]
        new.append(line)
        i += 1
        if not line.strip().startswith("crash> "):
            continue
        cmd = line.strip()[len("crash> "):]
        indent = line[:len(line) - len(line.lstrip())]
        # the old transcript: up to the next prose line (starting "\n") or the end
        while i < len(old) and not old[i].startswith("\n") and not old[i].strip().startswith("crash> "):
            i += 1
        new.extend(indent + l if l else "" for l in got.get(cmd, ["(no output)"]))
    if mode == "--write":
        src[a:b] = [quote(l) for l in new]
        open(SRC, "w").write("\n".join(src) + "\n")
        return 0
    mask = lambda ls: [TIME.sub("T s (R M pages/s)", l) for l in ls]
    if mask(old) == mask(new):
        print("crash-example: the help's EXAMPLE is what the commands print (%d commands)" % len(cmds))
        return 0
    sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(mask(old), mask(new), "help", "crash", lineterm=""))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
