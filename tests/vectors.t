#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Enforce the expected verdicts of test-vectors/verdicts.tsv on the committed
real images (dumps/) with their saved layouts (test-vectors/layouts/), through
the CLI, as CI would run it.  TAP output.

Two kinds of check, said per test line:
  [guard]   verdicts.tsv was recorded from memmapcheck's own output: its
            verdict, field set and range kinds are a regression guard, not a
            proof.
  [oracle]  scripts/oracle/oracle.py, which knows nothing of memmapcheck, predicts
            from the guest geometry, the kernel's rules and the variant's
            stated semantics the exact per-range differing page count, per
            field counts, differing vmemmap frames and pfn groups of every
            diff of <kver>-base-b1 against <kver>-<variant>-b1; the tool must
            agree exactly.  Where the variant leaves struct pages on a
            recycled vmemmap frame (stale memory), the oracle lists them as
            uncertain and the tool's count must lie between the certain and
            the certain-plus-uncertain count, its fields among the certain
            ones or on uncertain pages.

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
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, Tap, dump_path, layout_of, skip_all  # noqa: E402

EXIT = {"identical": 0, "different": 1, "incomplete": 4,
        "clean": 0, "violations": 1}

tap = Tap(diag_lines=40)
snaps = {}


def committed_images():
    """Images of test-vectors/images.tsv: the committed dumps."""
    out = set()
    with open(os.path.join(TOP, "test-vectors", "images.tsv")) as f:
        for line in f:
            c = line.split("\t")
            if c and c[0] and c[0] != "image" and not c[0].startswith("#"):
                out.add(c[0])
    return out


def pending(row):
    """Rows naming an image that is not committed yet (a new variant whose
    dump the coordinator regenerates): skipped loudly unless a dump is
    found (MMC_VECTOR_DIR)."""
    imgs = [x for x in row[1:3] if x != "-"]
    missing = [x for x in imgs if x not in COMMITTED and dump_path(x) is None]
    return missing


# Snapshots are taken ahead on two threads (start_snapshots()); snapshot()
# reports each where it is first used, as if it were taken there.
POOL = concurrent.futures.ThreadPoolExecutor(2)
snap_runs = {}


def snapshot_cmd(image):
    """The command that snapshots image, or None when its dump or saved
    layout is missing."""
    dump = dump_path(image)
    layout = layout_of(image)
    if dump is None or not os.path.exists(layout):
        return None
    return [CLI, "snapshot", "-q", "-o", os.path.join(TMP, image + ".snap"), layout, dump]


def start_snapshots(images):
    for image in images:
        cmd = snapshot_cmd(image)
        if cmd and image not in snap_runs:
            snap_runs[image] = POOL.submit(subprocess.run, cmd, capture_output=True, text=True)


def snapshot(image):
    if image in snaps:
        return snaps[image]
    dump = dump_path(image)
    layout = layout_of(image)
    out = os.path.join(TMP, image + ".snap")
    if dump is None or not os.path.exists(layout):
        tap(False, "snapshot %s" % image,
            "missing: %s" % (layout if dump else "dumps/%s.kdump[.xz]" % image))
        snaps[image] = None
        return None
    run = snap_runs.pop(image, None)
    r = run.result() if run else subprocess.run(snapshot_cmd(image), capture_output=True, text=True)
    # exit 4: written, but some pages could not be read (a kdump without map=dev)
    written = r.returncode == 0 or (r.returncode == 4 and os.path.exists(out))
    tap(written, "snapshot %s" % image, r.stderr)
    snaps[image] = out if written else None
    return snaps[image]


def range_kinds(snap):
    r = subprocess.run([CLI, "ranges", "--json", snap], capture_output=True, text=True)
    d = json.loads(r.stdout)
    kinds = {}
    for rg in d["ranges"]:
        pg = d["pgmaps"][rg["pgmap"]]
        t = {"MEMORY_DEVICE_GENERIC": "devdax", "MEMORY_DEVICE_FS_DAX": "fsdax",
             "MEMORY_DEVICE_PRIVATE": "private", "MEMORY_DEVICE_COHERENT": "coherent",
             "MEMORY_DEVICE_PCI_P2PDMA": "p2pdma"}.get(pg["type_name"], pg["type_name"])
        align = {0: "4K", 9: "2M", 18: "1G"}.get(pg["vmemmap_shift"],
                                                   "shift%d" % pg["vmemmap_shift"])
        if t in ("fsdax", "private", "coherent", "p2pdma"):
            align = ""
        kinds[rg["start_pfn"]] = "-".join(x for x in (t, align, "dev" if pg["has_altmap"] else "mem") if x)
    return kinds


def parse_set(s):
    return set() if s == "-" else set(x.strip() for x in s.split(",") if x.strip())


def check_diff(row):
    kind, base, other, verdict, fields, ranges, note = row
    a, b = snapshot(base), snapshot(other)
    what = "[guard] diff %s %s: %s (%s)" % (base, other, verdict, note)
    if not a or not b:
        tap(False, what, "no snapshot")
        return
    r = subprocess.run([CLI, "diff", "--json", "--max-groups", "16777216", a, b],
                       capture_output=True, text=True)
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


ORACLE = os.path.join(TOP, "scripts", "oracle", "oracle.py")
oracle_cache = {}


def oracle_variant(image, base):
    """(kver, variant) when image is <kver>-<variant>-b1 of a kernel whose
    base image is base (<kver>-base-b1); else None."""
    m = re.match(r"^(6\.12|7\.2)-(template|mut-[a-z0-9-]+|hist-[a-z0-9-]+|fix-[a-z0-9-]+)-b1$", image)
    if not m or base != m.group(1) + "-base-b1":
        return None
    return m.group(1), m.group(2)


def kernel_log(image):
    """The kernel log kept in a dump (makedumpfile --dump-dmesg): where
    non-pmem ZONE_DEVICE drivers (lib/test_hmm.c) print their ranges."""
    dump = dump_path(image)
    out = os.path.join(TMP, image + ".dmesg")
    if dump and not os.path.exists(out):
        r = subprocess.run(["makedumpfile", "--dump-dmesg", dump, out],
                           capture_output=True, text=True)
        if r.returncode != 0 and os.path.exists(out):
            os.unlink(out)      # a partial log would hide ranges from the oracle
    return out if os.path.exists(out) and os.path.getsize(out) else None


oracle_runs = {}


def start_oracle(kver, variants):
    """Run the oracle for kver's variants in the background (it takes most
    of this script's time): oracle_predictions() waits for it."""
    key = (kver, tuple(sorted(variants)))
    if key in oracle_runs or key in oracle_cache:
        return
    log = kernel_log(kver + "-base-b1")
    out = os.path.join(TMP, "oracle-%s.json" % kver)
    with open(out, "w") as o, open(out + ".err", "w") as e:
        p = subprocess.Popen([sys.executable, ORACLE, kver] + sorted(variants) +
                             (["--console", log] if log else []), stdout=o, stderr=e)
    oracle_runs[key] = (p, out)


def oracle_predictions(kver, variants):
    key = (kver, tuple(sorted(variants)))
    if key not in oracle_cache:
        start_oracle(kver, variants)
        p, out = oracle_runs.pop(key)
        rc = p.wait()
        with open(out) as o, open(out + ".err") as e:
            stdout, stderr = o.read(), e.read()
        if rc != 0:
            oracle_cache[key] = ("error", stderr)
        else:
            d = json.loads(stdout)
            oracle_cache[key] = d if len(variants) > 1 else {variants[0]: d}
    return oracle_cache[key]


# Disagreements between the oracle and the tool that are not settled yet:
# reported as TAP TODO (visible in every run, not a pass), each with what is
# known.  Remove an entry when its cause is found.
ORACLE_OPEN = {}
checked_groups = [0]


def check_oracle(row, wanted):
    kind, base, other, verdict, fields, ranges, note = row
    kver, variant = oracle_variant(other, base)
    what = "[oracle] diff %s %s: per-range pages, fields, vmemmap frames, groups" % (base, other)
    preds = oracle_predictions(kver, wanted[kver])
    if isinstance(preds, tuple):
        tap(False, what, "oracle failed: " + preds[1])
        return
    pred = preds[variant]
    a, b = snapshot(base), snapshot(other)
    if not a or not b:
        tap(False, what, "no snapshot")
        return
    r = subprocess.run([CLI, "diff", "--json", "--max-groups", "16777216", a, b],
                       capture_output=True, text=True)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        tap(False, what, "exit %d, no JSON: %s" % (r.returncode, r.stderr))
        return
    problems = []
    if len(d["ranges"]) != len(pred["ranges"]):
        problems.append("%d ranges, oracle %d" % (len(d["ranges"]), len(pred["ranges"])))
    uncertain_ranges = set()
    want_groups = []
    for i, (t, o) in enumerate(zip(d["ranges"], pred["ranges"])):
        name = "range %d 0x%x-0x%x %s" % (i, o["start_pfn"], o["end_pfn"], o["kind"])
        if (t["start_pfn"], t["end_pfn"]) != (o["start_pfn"], o["end_pfn"]):
            problems.append("%s: tool has 0x%x-0x%x" % (name, t["start_pfn"], t["end_pfn"]))
            continue
        unc = sum(hi - lo + 1 for lo, hi in o["uncertain"])
        if t["vframes_differing"] != o["vframes_differing"]:
            problems.append("%s: %d vmemmap frames differ, oracle %d" % (
                name, t["vframes_differing"], o["vframes_differing"]))
        if t["not_init"] != o["not_init"]:
            problems.append("%s: %d never-initialised pages, oracle %d" % (name, t["not_init"], o["not_init"]))
        if not unc:
            if t["differing"] != o["differing"] or t["fields"] != o["fields"]:
                problems.append("%s: %d pages %s, oracle %d pages %s" % (
                    name, t["differing"], json.dumps(t["fields"], sort_keys=True),
                    o["differing"], json.dumps(o["fields"], sort_keys=True)))
            want_groups += [(i, g["first_pfn"], g["last_pfn"], g["pages"], frozenset(g["fields"]))
                            for g in o["groups"]]
            continue
        uncertain_ranges.add(i)
        if not o["differing"] <= t["differing"] <= o["differing"] + unc:
            problems.append("%s: %d pages differ, oracle %d certain + %d uncertain" % (
                name, t["differing"], o["differing"], unc))
        for f, n in t["fields"].items():
            if n > o["fields"].get(f, 0) + unc:
                problems.append("%s: field %s on %d pages, oracle %d (+%d uncertain)" % (
                    name, f, n, o["fields"].get(f, 0), unc))
    # pfn groups, exactly, in every range the oracle is certain of: the
    # tool lists its first groups in pfn order (at most 200), so the
    # comparison covers the ranges that list holds completely
    got_groups = [(g["range"], g["first_pfn"], g["last_pfn"], g["pages"],
                   frozenset(g["fields"].split(","))) for g in d["groups"]]
    complete = len(d["ranges"])
    if d["groups_total"] > len(got_groups) and got_groups:
        complete = got_groups[-1][0]
    got_c = [g for g in got_groups if g[0] < complete and g[0] not in uncertain_ranges]
    want_c = [g for g in want_groups if g[0] < complete]
    if len(got_c) != len(want_c):
        problems.append("%d groups in the certain ranges below range %d, oracle %d" % (
            len(got_c), complete, len(want_c)))
    for k, (g, w) in enumerate(zip(got_c, want_c)):
        if g != w:
            problems.append("group %d: tool %s, oracle %s" % (k, g, w))
            break
    checked_groups[0] += len(want_c)
    tap(not problems, what, "\n".join(problems),
        todo=ORACLE_OPEN.get((base, other)) if problems else None)


def check_lint(row):
    kind, base, other, verdict, rules, ranges, note = row
    s = snapshot(base)
    what = "[guard] lint %s: %s (%s)" % (base, verdict, note)
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
        skip_all("%s not built" % CLI)
    TMP = tempfile.mkdtemp(prefix="mmc-vectors-")
    global COMMITTED
    COMMITTED = committed_images()
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
    wanted = {}
    for row in rows:
        ov = oracle_variant(row[2], row[1]) if row[0] == "diff" else None
        if ov and not pending(row):
            wanted.setdefault(ov[0], []).append(ov[1])
    for kver, variants in wanted.items():
        start_oracle(kver, variants)
    start_snapshots(x for row in rows if not pending(row)
                    for x in row[1:3] if x != "-")
    for row in rows:
        missing = pending(row)
        if missing:
            tap.skip("not committed yet: " + ",".join(missing), "%s %s" % (row[0], " ".join(row[1:3])))
            continue
        (check_diff if row[0] == "diff" else check_lint)(row)
        if row[0] == "diff" and oracle_variant(row[2], row[1]):
            check_oracle(row, wanted)
    if wanted:
        tap(checked_groups[0] > 0, "[oracle] %d pfn groups compared with the oracle's, "
            "exactly, over all rows" % checked_groups[0])
    for p, _ in oracle_runs.values():
        p.kill()
        p.wait()
    POOL.shutdown(cancel_futures=True)
    shutil.rmtree(TMP, ignore_errors=True)
    return tap.plan()


sys.exit(main())
