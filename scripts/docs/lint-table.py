#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Markdown table: what `memmapcheck lint` finds in each committed patched
image alone, with no base image to diff against.  Per variant of
patches/<kver>/series.tsv whose -b1 image is committed: the lint verdict and
the rules it reports beyond those of the same kernel's unpatched image
(<kver>-base-b1: FINDINGS 2's rules, present in every image of the standard
layout), with their page counts; and whether the variant's own fields (the
series.tsv prediction) include one a kernel rule covers, i.e. whether lint
should have found it.  Used by scripts/docs/transcripts.sh for doc/ORACLE.md.

usage: lint-table.py MEMMAPCHECK   (dumps unpacked by scripts/vectors/unpack-dumps.sh)
"""
import json
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "tests"))
from taplib import group_of, own_groups  # noqa: E402


def images():
    with open(os.path.join(TOP, "test-vectors", "images.tsv")) as f:
        return {line.split("\t", 1)[0] for line in f}


def dumps(kver):
    r = subprocess.run([os.path.join(TOP, "scripts", "vectors", "unpack-dumps.sh"), kver],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def group_dir(img, kver_dir):
    """Where img's dump is unpacked: its own group's directory when it is
    in a group of its own (tests/taplib.py group_of()), else its kernel
    version's."""
    g = group_of(img)
    return dumps(g) if g in own_groups() else kver_dir


def lint(cli, layout, dump):
    r = subprocess.run([cli, "lint", "--json", layout, dump], capture_output=True, text=True)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        return "exit %d" % r.returncode, {}
    return d["verdict"], d["rules"]


def variants(kver):
    out = []
    with open(os.path.join(TOP, "patches", kver, "series.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            out.append((c[0], c[1], c[-1]))
    return out


def main():
    cli = sys.argv[1]
    have = images()
    print("| kernel | variant | kind | lint | rules beyond the base image (pages) |")
    print("| --- | --- | --- | --- | --- |")
    for kver in ("6.12", "7.2"):
        d = dumps(kver)
        if not d:
            continue
        lay = os.path.join(TOP, "test-vectors", "layouts", "%s-%%s.layout" % kver)
        _, base = lint(cli, lay % "base", os.path.join(d, "%s-base-b1.kdump" % kver))
        for name, kind, _fields in variants(kver):
            if kind == "seed":  # patches/SEED-REVISIONS.md has their lint
                continue
            img = "%s-%s-b1" % (kver, name)
            if img not in have or not os.path.exists(lay % name):
                continue
            gd = group_dir(img, d)
            if not gd:
                continue
            verdict, rules = lint(cli, lay % name, os.path.join(gd, img + ".kdump"))
            extra = sorted((r, n) for r, n in rules.items() if r not in base)
            gone = sorted(r for r in base if r not in rules)
            text = ", ".join("%s %d" % rn for rn in extra) or "none"
            if gone:
                text += "; not any more: " + ", ".join(gone)
            print("| %s | %s | %s | %s | %s |" % (kver, name, kind, verdict, text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
