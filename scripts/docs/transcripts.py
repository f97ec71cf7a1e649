#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Regenerate (or check) the transcripts in the project's markdown files.

A transcript is an indented code block right after a marker line:

  <!-- transcript: CMD [|| FILTER] [;; CMD [|| FILTER]]... -->
  <!-- transcript needs=A,B: ... -->       (skipped when A or B is missing)
  <!-- transcript-recorded: WHAT -->       (recorded once; never rerun)
  <!-- generated: CMD -->                  (the markdown lines up to the
                                           next blank line are CMD's output
                                           as it is: a table, not a block)

Each CMD runs with bash in a work directory that holds the committed
material under plain names: every saved layout (test-vectors/layouts/
<kernel>.layout), every committed dump (dumps/<group>.tar.xz unpacked by
scripts/vectors/unpack-dumps.sh, <image>.kdump), the patches and their claims files
(patches/<kver>/) and, when the cache has it,
Debian's 6.1 debug vmlinux as vmlinux-6.1.0-57-amd64, and images made
since (in $CACHE/images) with their kernels' vmlinux as <kernel>.vmlinux.  memmapcheck ($MMC_BUILD)
and these helpers are on PATH:
  oracle.py, physmem.py, oracle-table.py,
  images-table.py, lint-table.py           the scripts of the same names
  bench-report.py                          scripts/bench/report.py, with
                                           the committed benchmark results
                                           under doc-bench/ (doc/bench/)
  dmesg-of IMAGE                           the kernel log kept in a dump
                                           (makedumpfile --dump-dmesg)
  crash-session IMAGE CMD...               crash in batch mode on a dump,
                                           printing "crash> CMD" and output
                                           (crash 8.0.2 for 6.1, crash 9 of
                                           the cache for 6.12 and 7.x, with
                                           the extension built for it)
The block shows "$ CMD" (a CMD starting with @ is not shown) and the
output through FILTER.  Commands of one file run in order in one directory,
so a later one may use a file an earlier one wrote.

usage: transcripts.py [--check] FILE...
  default: rewrite the blocks in place;  --check: TAP, one test per marker,
  comparing with the text after masking what legitimately varies (run
  times and rates).
"""
import concurrent.futures
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "tests"))
from taplib import own_groups  # noqa: E402

CACHE = os.environ.get("MEMMAPCHECK_CACHE",
                       os.path.join(os.path.expanduser("~"), ".cache", "memmapcheck"))
BUILD = os.environ.get("MMC_BUILD", os.path.join(TOP, "build"))
MARK = re.compile(r"^<!-- transcript( needs=([^:]*))?: (.*) -->$")
RECORDED = re.compile(r"^<!-- transcript-recorded: (.*) -->$")
GENERATED = re.compile(r"^<!-- generated: (.*) -->$")
# helper on PATH -> its script under scripts/
HELPER_SCRIPTS = {os.path.basename(s): s for s in ("oracle/oracle.py", "oracle/physmem.py", "docs/oracle-table.py",
                                                    "docs/images-table.py", "docs/lint-table.py")}
HELPER_SCRIPTS["bench-report.py"] = os.path.join("bench", "report.py")

VOLATILE = [
    (re.compile(r"\d+\.\d+ s \(\d+(\.\d+)? [kM]? ?pages/s\)"), "T s (R pages/s)"),
    (re.compile(r"; \d+\.\d+ s"), "; T s"),
]

HELPERS = r'''
dmesg-of() { local d; d=$(mktemp -d); makedumpfile --dump-dmesg "$1.kdump" "$d/log" >/dev/null 2>&1 || { echo "dmesg-of: makedumpfile failed on $1" >&2; rm -rf "$d"; return 2; }; cat "$d/log"; rm -rf "$d"; }
crash-session() {
	local img=$1 vml crash=crash cfg flags= ver; shift
	case $img in
	6.1-*) vml=vmlinux-6.1.0-57-amd64 ;;
	*)	# 6.12 and 7.x: crash 9 (scripts/vectors/build-crash9.sh) and the vmlinux
		# of the image's kernel from the cache
		crash=$MEMMAPCHECK_CACHE/crash-9/root/usr/bin/crash
		vml=$(echo "$img" | sed -E 's/-(b[0-9]+|kdump)$//').vmlinux
		[ -x "$crash" ] && [ -e "$vml" ] ||
			{ echo "crash-session: $img needs crash 9 and $vml" >&2; return 2; }
		cfg=$MEMMAPCHECK_CACHE/kernels/${vml%.vmlinux}/config
		grep -q '^CONFIG_MODULES=y' "$cfg" 2>/dev/null || flags=--no_modules ;;
	esac
	# `extend memmapcheck.so` finds the extension built for this crash
	ver=$("$crash" --version 2>/dev/null | awk '/^crash /{print $2; exit}')
	# the extension is built for crash, never sanitized: the sanitized
	# run names the normal build's (MMC_CRASH_EXT, Makefile check-san)
	local ext=${MMC_CRASH_EXT:-$MMC_BUILD/crash-ext}/$ver c
	[ -e "$ext/memmapcheck.so" ] ||
		{ echo "crash-session: no memmapcheck.so built for crash $ver" >&2; return 2; }
	for c in "$@"; do printf 'echo @@mmc@@ %s\n%s\n' "$c" "$c"; done |
		CRASH_EXTENSIONS=$ext "$crash" -s $flags "$vml" "$img.kdump" 2>&1 |
		sed -n '/^@@mmc@@ /,$p' | sed 's/^@@mmc@@ /crash> /; /^$/d'
}
export -f dmesg-of crash-session
'''


def have(need, work):
    if os.path.exists(os.path.join(work, need)):
        return True
    return shutil.which(need) is not None


def setup(work):
    for f in os.listdir(os.path.join(TOP, "test-vectors", "layouts")):
        if f.endswith(".layout"):
            os.symlink(os.path.join(TOP, "test-vectors", "layouts", f), os.path.join(work, f))
    # the kernel versions' groups and the groups of their own
    for g in ["6.1-stock", "6.12", "7.2"] + own_groups():
        r = subprocess.run([os.path.join(TOP, "scripts", "vectors", "unpack-dumps.sh"), g],
                           capture_output=True, text=True)
        if r.returncode != 0:
            continue
        d = r.stdout.strip()
        for f in os.listdir(d):
            if f.endswith(".kdump"):
                os.symlink(os.path.join(d, f), os.path.join(work, f))
    v = os.path.join(CACHE, "kernels", "6.1-stock", "vmlinux")
    if os.path.exists(v):
        os.symlink(v, os.path.join(work, "vmlinux-6.1.0-57-amd64"))
    # images made since the last commit of dumps/ (scripts/vectors/repro-1g-devdax.sh,
    # capture.sh) and the vmlinux of their kernels: transcripts that need them
    # say so (needs=) and are skipped where they are absent
    idir = os.path.join(CACHE, "images")
    for f in sorted(os.listdir(idir)) if os.path.isdir(idir) else []:
        if f.endswith(".kdump") and not os.path.exists(os.path.join(work, f)):
            os.symlink(os.path.join(idir, f), os.path.join(work, f))
    kdir = os.path.join(CACHE, "kernels")
    for k in sorted(os.listdir(kdir)) if os.path.isdir(kdir) else []:
        v = os.path.join(kdir, k, "vmlinux")
        if os.path.exists(v) and not k.startswith("6.1-"):
            os.symlink(v, os.path.join(work, k + ".vmlinux"))
    # crash 9 (scripts/vectors/build-crash9.sh), which crash-session needs for
    # 6.12 and 7.x dumps: a transcript says needs=crash9 to be skipped without it
    c9 = os.path.join(CACHE, "crash-9", "root", "usr", "bin", "crash")
    if os.access(c9, os.X_OK):
        os.symlink(c9, os.path.join(work, "crash9"))
    os.symlink(os.path.join(TOP, "doc", "bench"), os.path.join(work, "doc-bench"))
    # the claims files of the patches: patches/<kver>/<name>.claims
    os.symlink(os.path.join(TOP, "patches"), os.path.join(work, "patches"))
    bindir = os.path.join(work, ".bin")
    os.mkdir(bindir)
    for name, script in HELPER_SCRIPTS.items():
        with open(os.path.join(bindir, name), "w") as f:
            f.write('#!/bin/sh\nexec /usr/bin/python3 "%s" "$@"\n' % os.path.join(TOP, "scripts", script))
        os.chmod(os.path.join(bindir, name), 0o755)
    with open(os.path.join(bindir, "helpers.sh"), "w") as f:
        f.write(HELPERS)
    return bindir


def run(cmdline, work, bindir, generated=False):
    """The block for cmdline: "$ CMD" and its output indented, or, for a
    generated block, the output alone as it is."""
    out = []
    for part in cmdline.split(" ;; "):
        cmd, _, filt = part.partition(" || ")
        show = not cmd.startswith("@")
        cmd = cmd.lstrip("@").strip()
        script = ". %s/helpers.sh\n{ %s\n} 2>&1%s" % (bindir, cmd, (" | " + filt) if filt else "")
        env = dict(os.environ, PATH=os.pathsep.join([BUILD, bindir, os.environ["PATH"]]),
                   MEMMAPCHECK_CACHE=CACHE, MMC_BUILD=BUILD,
                   LC_ALL="C", COLUMNS="200")
        r = subprocess.run(["bash", "-c", script], cwd=work, env=env,
                           capture_output=True, text=True)
        if show and not generated:
            out.append("$ " + cmd)
        text = r.stdout
        out += text.rstrip("\n").split("\n") if text.strip() else []
    if generated:
        return out
    return ["    " + l if l.strip() else "" for l in out]


def mask(lines):
    out = []
    for l in lines:
        for rx, rep in VOLATILE:
            l = rx.sub(rep, l)
        out.append(l.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


def blocks(lines):
    """(marker index, needs, cmd or None, recorded what, block start, block end,
    generated: the block is CMD's output as it is)."""
    i = 0
    while i < len(lines):
        m, rec, gen = MARK.match(lines[i]), RECORDED.match(lines[i]), GENERATED.match(lines[i])
        if gen:
            j = k = i + 1
            while k < len(lines) and lines[k].strip():
                k += 1
            yield i, [], gen.group(1), None, j, k, True
            i = k
        elif m or rec:
            j = i + 1
            k = j
            while k < len(lines) and (lines[k].startswith("    ") or
                                      (not lines[k].strip() and k + 1 < len(lines) and
                                       lines[k + 1].startswith("    "))):
                k += 1
            if m:
                yield i, (m.group(2) or "").split(",") if m.group(2) else [], m.group(3), None, j, k, False
            else:
                yield i, [], None, rec.group(1), j, k, False
            i = k
        else:
            i += 1


def process(path, check):
    """Run the blocks of one file in a work directory of its own.  check:
    (results, notes), a result being (ok, text after "ok N", diag lines);
    else the file is rewritten and ([], notes).  notes: lines for stderr."""
    results, notes = [], []
    work = tempfile.mkdtemp(prefix="mmc-transcripts-")
    try:
        bindir = setup(work)
        lines = open(path).read().split("\n")
        new = list(lines)
        offset = 0
        for i, needs, cmd, rec, j, k, generated in list(blocks(lines)):
            name = "%s:%d" % (os.path.relpath(path, TOP), i + 1)
            if rec is not None:
                # recorded once, never rerun: nothing to check, so no result
                # (a SKIP would say a check was left out)
                notes.append("transcripts: %s recorded, not rerun: %s" % (name, rec))
                continue
            missing = [x for x in needs if x and not have(x, work)]
            if missing:
                if check:
                    results.append((True, " - %s # SKIP needs %s" % (name, ",".join(missing)), []))
                else:
                    notes.append("transcripts: %s kept: needs %s" % (name, ",".join(missing)))
                continue
            got = run(cmd, work, bindir, generated)
            if check:
                want = mask(lines[j:k])
                have_ = mask(got)
                diag = [] if want == have_ else list(difflib.unified_diff(
                    want, have_, "markdown", "now", lineterm=""))[:40]
                results.append((want == have_, " - %s: %s" % (name, cmd[:70]), diag))
            else:
                new[j + offset:k + offset] = got
                offset += len(got) - (k - j)
        if not check and new != lines:
            with open(path + ".tmp", "w") as f:
                f.write("\n".join(new))
            os.replace(path + ".tmp", path)
            notes.append("transcripts: rewrote %s" % path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results, notes


def main(argv):
    check = "--check" in argv
    files = [a for a in argv[1:] if a != "--check"]
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    if not os.access(os.path.join(BUILD, "memmapcheck"), os.X_OK):
        if check:
            print("1..0 # SKIP %s/memmapcheck not built" % BUILD)
            return 0
        print("transcripts: build memmapcheck first (MMC_BUILD=%s)" % BUILD, file=sys.stderr)
        return 2
    # The files are independent (each has its own work directory): all run
    # at once, their results printed in file order.  Their commands mostly
    # wait for memmapcheck, crash and the scripts, which use the CPUs.
    with concurrent.futures.ThreadPoolExecutor(len(files)) as ex:
        runs = [ex.submit(process, path, check) for path in files]
        n = failed = 0
        for run_ in runs:
            results, notes = run_.result()
            for note in notes:
                print(note, file=sys.stderr)
            for ok, text, diag in results:
                n += 1
                failed += not ok
                print("%s %d%s" % ("ok" if ok else "not ok", n, text))
                for d in diag:
                    print("# " + d)
                sys.stdout.flush()
    if check:
        print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
