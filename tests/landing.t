#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where did the guest's writes to /dev/dax land?  (FINDINGS 4)

daxtouch writes "memmapcheck /dev/daxN.0 +OFFSET" at offset 0 of each
alignment unit it maps.  For every image available, this test finds each
such string in the dump's physical memory (scripts/oracle/physmem.py: its own
kdump reader, neither memmapcheck nor libkdumpfile) and compares with where
the kernel's rules say the write must land (scripts/oracle/oracle.py: 6.12 maps the
device pfn; 7.2 maps folio_pfn() with the PMD/PUD mask, or SIGBUSes when the
folio's order is not the fault's, which ends that daxtouch process).  A write
predicted to SIGBUS, or never attempted, must be found nowhere.

Images: the committed dumps of 6.12 and 7.2: the standard layout's, and the
one-namespace images of scripts/vectors/repro-1g-devdax.sh (<kver>-<variant>-dax1g-
section-b1, geometry from the named layout); absent ones are skipped
loudly.  Expected values come from the kernel rules and the geometry, not
from memmapcheck.  TAP output.
"""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import TOP, Tap, unpacked  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import physmem  # noqa: E402

tap = Tap()


def found(dump):
    d = physmem.Dump(dump)
    out = {}
    for a in d.search(b"memmapcheck /dev/dax"):
        text = d.read(a, 48).split(b"\0")[0].decode("ascii", "replace")
        m = re.match(r"memmapcheck (/dev/dax\S+) \+(\d+)", text)
        if m:
            out.setdefault((m.group(1), int(m.group(2))), set()).add(a)
    return out


def predictions(kver, variants, geometry):
    cmd = [sys.executable, os.path.join(TOP, "scripts", "oracle", "oracle.py"), kver] + variants + geometry
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr
    d = json.loads(r.stdout)
    return (d if len(variants) > 1 else {variants[0]: d}), None


def check(image, dump, kver, variant, pred):
    writes = pred["base_writes"] if variant == "base" else pred["writes"]
    try:
        got = found(dump)
    except (OSError, ValueError, KeyError) as e:
        tap(False, "%s: read the dump" % image, str(e))
        return
    problems = []
    expected = {}
    for w in writes:
        expected[(w["device"], w["offset"])] = w["phys"]
    for key, phys in expected.items():
        where = got.get(key, set())
        want = set() if phys is None else {phys}
        if where != want:
            problems.append("%s +%d: found at %s, expected %s" % (
                key[0], key[1], ",".join("%#x" % a for a in sorted(where)) or "nowhere",
                "%#x" % phys if phys is not None else "nowhere (SIGBUS)"))
    for key, where in got.items():
        if key not in expected:
            problems.append("%s +%d: found at %s, expected never written" % (
                key[0], key[1], ",".join("%#x" % a for a in sorted(where))))
    summary = ", ".join("%s +%#x -> %s" % (w["device"], w["offset"],
                        "%#x" % w["phys"] if w["phys"] is not None else "SIGBUS")
                        for w in writes if w["offset"] == 0)
    tap(not problems, "%s: writes land where %s %s maps them (%s)" % (image, kver, variant, summary),
        "\n".join(problems))


def main():
    # committed standard-layout images
    for kver, group in (("6.12", "6.12"), ("7.2", "7.2")):
        d = unpacked(group)
        if not d:
            tap.skip("dumps/%s.tar.xz not unpacked" % group, "committed %s dumps" % kver)
            continue
        images = sorted(f[:-6] for f in os.listdir(d) if f.endswith("-b1.kdump"))
        var = {}
        repro = []
        for im in images:
            m = re.match(r"^%s-(base|fix-[a-z0-9-]+|mut-[a-z0-9-]+)-(dax1g-section|dax1g-misaligned)-b1$"
                         % re.escape(kver), im)
            if m:
                repro.append((im, m.group(1), m.group(2)))
                continue
            m = re.match(r"^%s-(base|template|mut-[a-z0-9-]+|hist-[a-z0-9-]+|fix-[a-z0-9-]+)-b1$" % re.escape(kver), im)
            if m:
                var[im] = m.group(1)
        # one-namespace images of scripts/vectors/repro-1g-devdax.sh (layouts dax1g-*)
        for im, v, layout in repro:
            preds, err = predictions(kver, [v if v != "base" else "template"], ["--layout", layout])
            if preds is None:
                tap(False, im, err)
                continue
            check(im, os.path.join(d, im + ".kdump"), kver, v, list(preds.values())[0])
        names = sorted(set(v for v in var.values() if v != "base")) or ["template"]
        preds, err = predictions(kver, names, [])
        if preds is None:
            tap(False, "oracle %s" % kver, err)
            continue
        for im, v in sorted(var.items()):
            # every variant whose writes the kernel rules put elsewhere than
            # base's, and base and the template port
            p = preds[v] if v != "base" else preds[names[0]]
            if v not in ("base", "template") and p["writes"] == p["base_writes"]:
                continue
            check(im, os.path.join(d, im + ".kdump"), kver, v,
                  preds[v] if v != "base" else preds[names[0]])
    return tap.plan()


sys.exit(main())
