#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Lint and diff check a repeated pattern of runs once where that gives the
same result as going page by page (engine/lint_pattern.c, diff_chunk.c);
MEMMAPCHECK_PER_PAGE=1 makes them go page by page.  Here both paths run on
every committed real image and every lint and diff pair of
test-vectors/verdicts.tsv, and on synthetic images (tests/unit/mksynth,
mutants included): the outputs (verdict, counts, pfns, fields, messages;
JSON, so every number is there) and the exit codes must be identical.

The expected result comes from a second implementation (the per-page path,
which checks every page and is what verdicts.tsv's oracle rows prove), not
from this one's own output recorded earlier.  A test of the pattern path
being taken at all: the 1 GiB devdax images have 512 compound pages a range,
so their snapshots hold repeating patterns (checked with `show --json`'s
run count against the file size would be indirect; tests/unit/test_snapshot.c
checks the folding itself).
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import BUILD, CLI, TOP, Tap, dump_path, layout_of, skip_all  # noqa: E402

MKSYNTH = os.path.join(BUILD, "tests", "mksynth")
tap = Tap()


def run(args, per_page):
    env = dict(os.environ)
    env.pop("MEMMAPCHECK_PER_PAGE", None)
    if per_page:
        env["MEMMAPCHECK_PER_PAGE"] = "1"
    r = subprocess.run([CLI] + args, capture_output=True, text=True, env=env)
    return r.returncode, r.stdout, r.stderr


def same_both_ways(what, args):
    a = run(args, False)
    b = run(args, True)
    ok = a[0] == b[0] and a[1] == b[1]
    diag = ""
    if not ok:
        import difflib
        diag = "exit %d (patterns) vs %d (per page)\n" % (a[0], b[0])
        diag += "".join(difflib.unified_diff(b[1].splitlines(True), a[1].splitlines(True),
                                             "per-page", "patterns", n=1))
    tap(ok and a[0] in (0, 1, 4), "%s: same output and exit %d both ways" % (what, a[0]), diag)


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    tmp = tempfile.mkdtemp(prefix="mmc-patterns-")
    snaps = {}

    def snapshot(image):
        if image in snaps:
            return snaps[image]
        dump = dump_path(image)
        layout = layout_of(image)
        out = os.path.join(tmp, image + ".snap")
        snaps[image] = None
        if dump is None or not os.path.exists(layout):
            print("# %s: no dump or layout here" % image)
            return None
        r = subprocess.run([CLI, "snapshot", "-q", "-o", out, layout, dump],
                           capture_output=True, text=True)
        if r.returncode in (0, 4) and os.path.exists(out):
            snaps[image] = out
        else:
            tap(False, "snapshot %s" % image, r.stderr)
        return snaps[image]

    # synthetic images, mutants included
    if os.access(MKSYNTH, os.X_OK):
        kinds = ["", "reboot", "tail-refcount", "bad-tail", "hole", "head-cycle wild-tail"]
        files = []
        for i, k in enumerate(kinds):
            core = os.path.join(tmp, "s%d.core" % i)
            lay = os.path.join(tmp, "synth.layout")
            r = subprocess.run([MKSYNTH, core, lay] + k.split(), capture_output=True, text=True)
            out = os.path.join(tmp, "s%d.snap" % i)
            r2 = subprocess.run([CLI, "snapshot", "-q", "--live", "-o", out, lay, core],
                                capture_output=True, text=True)
            if r.returncode == 0 and r2.returncode in (0, 4):
                files.append((k or "base", out))
            else:
                tap(False, "synthetic image %s" % (k or "base"), r.stderr + r2.stderr)
        for k, f in files:
            same_both_ways("lint synthetic %s" % k, ["lint", "--json", f])
        for k, f in files[1:]:
            same_both_ways("diff synthetic base %s" % k, ["diff", "--json", "-n", "50", files[0][1], f])
    else:
        tap.skip("%s not built" % MKSYNTH, "synthetic images")

    rows = []
    with open(os.path.join(TOP, "test-vectors", "verdicts.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) < 3 or c[0] not in ("diff", "lint"):
                continue
            rows.append(c)
    done = set()
    for c in rows:
        kind, base, other = c[0], c[1], c[2]
        key = (kind, base, other)
        if key in done:
            continue
        done.add(key)
        if kind == "lint":
            s = snapshot(base)
            if s is None:
                tap.skip("no dump", "lint %s" % base)
                continue
            same_both_ways("lint %s" % base, ["lint", "--json", s])
        else:
            a, b = snapshot(base), snapshot(other)
            if a is None or b is None:
                tap.skip("no dump", "diff %s %s" % (base, other))
                continue
            same_both_ways("diff %s %s" % (base, other), ["diff", "--json", "-n", "50", a, b])
    status = tap.plan()
    subprocess.run(["rm", "-rf", tmp])
    return status


sys.exit(main())
