#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Markdown table: per variant of test-vectors/verdicts.tsv (diff rows
<kver>-base-b1 vs <kver>-<variant>-b1) and per range, the differing page
count scripts/oracle/oracle.py predicts and the one memmapcheck reports on the
committed dumps.  Used by scripts/docs/transcripts.sh for doc/ORACLE.md.

usage: oracle-table.py MEMMAPCHECK   (dumps unpacked by scripts/vectors/unpack-dumps.sh)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def committed(image):
    """Rows of images not committed yet (not in images.tsv) are left out."""
    with open(os.path.join(TOP, "test-vectors", "images.tsv")) as f:
        return any(line.split("\t", 1)[0] == image for line in f)


def main():
    cli = sys.argv[1]
    rows, wanted = [], {}
    with open(os.path.join(TOP, "test-vectors", "verdicts.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) != 7 or c[0] != "diff":
                continue
            m = re.match(r"^(6\.12|7\.2)-((?:template|mut-|hist-|fix-)[a-z0-9-]*)-b1$", c[2])
            if m and c[1] == m.group(1) + "-base-b1" and committed(c[2]):
                rows.append((m.group(1), m.group(2)))
                wanted.setdefault(m.group(1), []).append(m.group(2))
    tmp = tempfile.mkdtemp(prefix="mmc-oracle-table-")
    snaps = {}

    def dump(image):
        d = subprocess.run([os.path.join(TOP, "scripts", "vectors", "unpack-dumps.sh"), image.split("-", 1)[0]],
                           capture_output=True, text=True, check=True).stdout.strip()
        return os.path.join(d, image + ".kdump")

    preds = {}
    for kver, vs in wanted.items():
        # the base boot's kernel log names the ranges of drivers that are
        # not pmem (lib/test_hmm.c's chunks), as tests/vectors.t passes it
        log = os.path.join(tmp, kver + ".dmesg")
        r = subprocess.run(["makedumpfile", "--dump-dmesg", dump(kver + "-base-b1"), log],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.getsize(log):
            sys.exit("oracle-table: makedumpfile --dump-dmesg of %s-base-b1 failed: %s" %
                     (kver, (r.stderr.strip().splitlines() or ["no log written"])[-1]))
        out = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "oracle", "oracle.py"), kver] + vs +
                             ["--console", log], capture_output=True, text=True, check=True).stdout
        os.unlink(log)
        d = json.loads(out)
        preds[kver] = d if len(vs) > 1 else {vs[0]: d}

    def snap(image):
        if image not in snaps:
            kernel = re.sub(r"-b\d+$", "", image)
            out = os.path.join(tmp, image + ".snap")
            subprocess.run([cli, "snapshot", "-q", "-o", out,
                            os.path.join(TOP, "test-vectors", "layouts", kernel + ".layout"),
                            dump(image)], check=True)
            snaps[image] = out
        return snaps[image]

    print("| kernel | variant | range | kind | oracle | memmapcheck |")
    print("| --- | --- | --- | --- | ---: | ---: |")
    for kver, v in rows:
        t = json.loads(subprocess.run([cli, "diff", "--json", snap(kver + "-base-b1"),
                                       snap("%s-%s-b1" % (kver, v))],
                                      capture_output=True, text=True).stdout)
        shown = False
        # ranges matched by their pfns: the oracle knows the ranges its
        # geometry and the console name, memmapcheck those the dump has
        tool = {(r["start_pfn"], r["end_pfn"]): r for r in t["ranges"]}
        for o in preds[kver][v]["ranges"]:
            r = tool.pop((o["start_pfn"], o["end_pfn"]), None)
            unc = sum(b - a + 1 for a, b in o["uncertain"])
            # a range where neither side differs is left out, also when
            # the oracle cannot predict some of its pages (stale content)
            if not (o["differing"] or (r and r["differing"])):
                continue
            shown = True
            print("| %s | %s | 0x%x-0x%x | %s | %s | %s |" % (
                kver, v, o["start_pfn"], o["end_pfn"], o["kind"],
                "%d + %d stale" % (o["differing"], unc) if unc else str(o["differing"]),
                r["differing"] if r else "no range"))
        for (a, b), r in sorted(tool.items()):
            if r["differing"]:
                shown = True
                print("| %s | %s | 0x%x-0x%x | - | no range | %d |" % (kver, v, a, b, r["differing"]))
        if not shown:
            print("| %s | %s | all | - | 0 | 0 |" % (kver, v))
    for p in snaps.values():
        os.unlink(p)
    os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
