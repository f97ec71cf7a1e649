#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Enforce the expected verdicts of test-vectors/verdicts.tsv on the committed
real images (dumps/) with their saved layouts (test-vectors/layouts/), through
the CLI, as CI would run it.  TAP output.

MMC_VECTOR_DIR=DIR looks for DIR/<image>.kdump first (images not packed yet).

verdicts.tsv columns (tab separated, '#' comments):
  kind     diff | lint
  base     image name (dumps/<image>.kdump[.xz]; layout from the kernel name)
  other    image name for diff, '-' for lint
  verdict  diff: identical | different | incomplete
           lint: clean | violations | incomplete
  fields   diff: the exact set of differing fields, comma separated, or '-'
           lint: the exact set of rules that fire, or '-'
  ranges   diff: the exact set of range kinds that differ (devdax-2M-mem, ...)
           or '-' (not checked) ; lint: '-'
  note     free text
"""
import json
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("MMC_BUILD", os.path.join(TOP, "build"))
CLI = os.path.join(BUILD, "memmapcheck")
CACHE = os.environ.get("MEMMAPCHECK_CACHE",
                       os.path.join(os.path.expanduser("~"), ".cache", "memmapcheck"))
WORK = os.path.join(CACHE, "vectors")
EXIT = {"identical": 0, "different": 1, "incomplete": 4,
        "clean": 0, "violations": 1}

n = 0
failed = 0


def tap(ok, what, diag=None):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))
    if not ok:
        failed += 1
        for line in (diag or "").splitlines()[:40]:
            print("# " + line)
    sys.stdout.flush()


def kernel_of(image):
    return re.sub(r"-(b\d+|kdump)$", "", image)


def group_of(image):
    return "6.1-stock" if image.startswith("6.1-") else image.split("-", 1)[0]


unpacked = {}


def dump_path(image):
    """The committed dump: dumps/<group>.tar.xz holds <image>.kdump files
    (uncompressed kdump format; xz over the whole tar lets images share the
    dictionary), unpacked once per tar content into the cache by
    scripts/unpack-dumps.sh."""
    for d in filter(None, [os.environ.get("MMC_VECTOR_DIR"), os.path.join(TOP, "dumps")]):
        for ext in (".kdump", ".elf"):
            p = os.path.join(d, image + ext)
            if os.path.exists(p):
                return p
    g = group_of(image)
    if not os.path.exists(os.path.join(TOP, "dumps", g + ".tar.xz")):
        return None
    if g not in unpacked:
        r = subprocess.run([os.path.join(TOP, "scripts", "unpack-dumps.sh"), g],
                           capture_output=True, text=True)
        unpacked[g] = r.stdout.strip() if r.returncode == 0 else None
    if not unpacked[g]:
        return None
    p = os.path.join(unpacked[g], image + ".kdump")
    return p if os.path.exists(p) else None


snaps = {}


def snapshot(image):
    if image in snaps:
        return snaps[image]
    dump = dump_path(image)
    layout = os.path.join(TOP, "test-vectors", "layouts", kernel_of(image) + ".layout")
    out = os.path.join(TMP, image + ".snap")
    if dump is None or not os.path.exists(layout):
        tap(False, "snapshot %s" % image,
            "missing: %s" % (layout if dump else "dumps/%s.kdump[.xz]" % image))
        snaps[image] = None
        return None
    r = subprocess.run([CLI, "snapshot", "-q", "-o", out, layout, dump],
                       capture_output=True, text=True)
    tap(r.returncode == 0, "snapshot %s" % image, r.stderr)
    snaps[image] = out if r.returncode == 0 else None
    return snaps[image]


def range_kinds(snap):
    r = subprocess.run([CLI, "ranges", "--json", snap], capture_output=True, text=True)
    d = json.loads(r.stdout)
    kinds = {}
    for rg in d["ranges"]:
        pg = d["pgmaps"][rg["pgmap"]]
        t = {"MEMORY_DEVICE_GENERIC": "devdax", "MEMORY_DEVICE_FS_DAX": "fsdax"}.get(
            pg["type_name"], pg["type_name"])
        align = {0: "4K", 9: "2M", 18: "1G"}.get(pg["vmemmap_shift"],
                                                   "shift%d" % pg["vmemmap_shift"])
        if t == "fsdax":
            align = ""
        kinds[rg["start_pfn"]] = "-".join(x for x in (t, align, "dev" if pg["has_altmap"] else "mem") if x)
    return kinds


def parse_set(s):
    return set() if s == "-" else set(x.strip() for x in s.split(",") if x.strip())


def check_diff(row):
    kind, base, other, verdict, fields, ranges, note = row
    a, b = snapshot(base), snapshot(other)
    what = "diff %s %s: %s (%s)" % (base, other, verdict, note)
    if not a or not b:
        tap(False, what, "no snapshot")
        return
    r = subprocess.run([CLI, "diff", "--json", a, b], capture_output=True, text=True)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        tap(False, what, "exit %d, no JSON: %s" % (r.returncode, r.stderr))
        return
    got_fields = set(d["fields"].keys())
    kinds = range_kinds(a)
    got_ranges = set(kinds.get(rg["start_pfn"], "?") for rg in d["ranges"]
                     if rg["verdict"] == "different")
    problems = []
    if r.returncode != EXIT[verdict] or d["verdict"] != verdict:
        problems.append("verdict %s (exit %d), expected %s" % (d["verdict"], r.returncode, verdict))
    if fields != "*" and got_fields != parse_set(fields):
        problems.append("fields %s, expected %s" % (",".join(sorted(got_fields)) or "-", fields))
    if ranges != "-" and got_ranges != parse_set(ranges):
        problems.append("ranges %s, expected %s" % (",".join(sorted(got_ranges)) or "-", ranges))
    if problems:
        txt = subprocess.run([CLI, "diff", "-n", "3", a, b], capture_output=True, text=True).stdout
        problems.append(txt)
    tap(not problems, what, "\n".join(problems))


def check_lint(row):
    kind, base, other, verdict, rules, ranges, note = row
    s = snapshot(base)
    what = "lint %s: %s (%s)" % (base, verdict, note)
    if not s:
        tap(False, what, "no snapshot")
        return
    r = subprocess.run([CLI, "lint", "--json", s], capture_output=True, text=True)
    try:
        d = json.loads(r.stdout)
        got = set(d["rules"].keys())
    except (ValueError, KeyError, TypeError):
        tap(False, what, "exit %d: %s %s" % (r.returncode, r.stdout[:500], r.stderr))
        return
    problems = []
    if r.returncode != EXIT[verdict]:
        problems.append("exit %d, expected %d" % (r.returncode, EXIT[verdict]))
    if rules != "*" and got != parse_set(rules):
        problems.append("rules %s, expected %s" % (",".join(sorted(got)) or "-", rules))
    if problems:
        problems.append(subprocess.run([CLI, "lint", s], capture_output=True, text=True).stdout)
    tap(not problems, what, "\n".join(problems))


def main():
    global TMP
    import tempfile
    if not os.access(CLI, os.X_OK):
        print("1..0 # SKIP %s not built" % CLI)
        return 0
    TMP = tempfile.mkdtemp(prefix="mmc-vectors-")
    rows = []
    with open(os.path.join(TOP, "test-vectors", "verdicts.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 7:
                tap(False, "verdicts.tsv: 7 columns", line)
                continue
            rows.append(cols)
    for row in rows:
        (check_diff if row[0] == "diff" else check_lint)(row)
    shutil.rmtree(TMP, ignore_errors=True)
    print("1..%d" % n)
    return 1 if failed else 0


sys.exit(main())
