#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The engine's libkdumpfile reader survives libkdumpfile 0.5.x's cache bug.

libkdumpfile up to 0.5.4 (Debian 12: 0.5.1) puts the cache entry of a page
read that failed into an unused partition; a later hit on a ghost entry
then reuses an entry with no data buffer and kdump_read() memmoves to NULL
(fixed upstream by e63dab4, in no release).  Reading a page makedumpfile
filtered out is such a failure, and the engine reads those among good pages
all the time.  engine/mem_kdump.c remakes the cache after each failed read.

Here build/tests/kdump_replay reads a seeded random sequence of pages, good
and filtered out, of committed kdump-compressed dumps, through the engine's
reader with its small cache.  Without the workaround each of these sequences
crashed it (SIGSEGV, measured when the workaround was written).  Expected
values come from a second reader of the format, scripts/oracle/physmem.py:
which pfns the dump holds (its bitmap), and each page's bytes (its own
descriptor lookup and zlib): a proof, not a recorded verdict.  TAP output.
"""
import os
import random
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import BUILD, TOP, Tap, group_of, skip_all, unpacked  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import physmem  # noqa: E402

REPLAY = os.path.join(BUILD, "tests", "kdump_replay")
IMAGES = ["6.12-base-b1", "7.2-base-b1"]
SEEDS = [1, 2, 3]
GOOD, FILTERED, READS = 40, 12, 3000

tap = Tap(diag_lines=12)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def sequence(dump, seed):
    """READS pfns drawn from GOOD pfns the dump holds and FILTERED ones below
    its highest pfn that it does not hold."""
    held = dump.index()
    rnd = random.Random(seed)
    top = min(dump.max_mapnr, max(held) + 1)
    good = rnd.sample(sorted(held), GOOD)
    filtered = []
    while len(filtered) < FILTERED:
        pfn = rnd.randrange(top)
        if pfn not in held and pfn not in filtered:
            filtered.append(pfn)
    pool = good + filtered
    return [rnd.choice(pool) for _ in range(READS)]


def main():
    if not os.access(REPLAY, os.X_OK):
        skip_all("%s not built (make unit)" % REPLAY, stderr=True)
    for image in IMAGES:
        d = unpacked(group_of(image))
        path = d and os.path.join(d, image + ".kdump")
        if not path or not os.path.exists(path):
            tap.skip("dumps/%s.tar.xz not unpacked" % group_of(image), image)
            continue
        dump = physmem.Dump(path)
        expect = {}
        for seed in SEEDS:
            seq = sequence(dump, seed)
            lines = []
            for pfn in seq:
                if pfn not in expect:
                    expect[pfn] = ("%016x" % fnv1a64(dump.page(pfn))
                                   if pfn in dump.index() else "absent nodata")
                lines.append("0x%x %s" % (pfn, expect[pfn]))
            r = subprocess.run([REPLAY, path], input="".join("0x%x\n" % p for p in seq).encode(),
                               capture_output=True)
            what = "%s seed %d: %d reads, %d of them of filtered-out pages" % (
                image, seed, READS, sum(1 for l in lines if l.endswith("absent nodata")))
            tap(r.returncode == 0, what + ": the reader does not crash",
                "exit %d\n%s" % (r.returncode, r.stderr.decode(errors="replace")))
            got = r.stdout.decode(errors="replace").splitlines()
            bad = [(i, e, g) for i, (e, g) in enumerate(zip(lines, got)) if e != g]
            tap(len(got) == len(lines) and not bad,
                what + ": each page as physmem.py reads it",
                "%d lines, %d expected; first mismatches (read, expected, got):\n%s" % (
                    len(got), len(lines), "\n".join("%d %s | %s" % b for b in bad[:8])))
    return tap.plan()


if __name__ == "__main__":
    sys.exit(main())
