#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The device-dax data ranges memmapcheck reads (engine/discover_dax.c), on
every committed image, against two things that are not memmapcheck:

  [geometry] where the kernel puts the data of each pmem devdax namespace
             of the guest (scripts/oracle/oracle.py pgmap_ranges(), from
             scripts/prove/guest/layout.sh and nd_pfn_init()'s offset rule:
             ALIGN(start + 8K [+ 64 * npfns for map=dev], max(align, 2M)),
             up to the pgmap range's end; drivers/dax/pmem.c requests
             [start + offset, end]): one range per MEMORY_DEVICE_GENERIC
             pgmap, none for the others;
  [reader]   scripts/oracle/damage.py's own reading of the same kernel chain
             (dax_superblock, s_inodes, dax_device, dev_dax, ranges) through
             its own kdump reader and page-table walk.

Images whose trimmed dump predates the chain (dumps/README.md) must say
which page was missing, never read as "no ranges".  Then lint's dax-range
rule on FINDINGS.md 4's geometry (test-vectors/dax-chain-images.txt): the
mapped folio the kernel's grid heads at the range start, 0x48000, begins
before the data (0x80000) and is flagged; the fixed kernel's folio starts at
the data and is clean.  Each check is a proof against the sources above, not
a recorded verdict.  TAP output.
"""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, Tap, dax_chain_images, dump_path, layout_of  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import damage  # noqa: E402
import oracle  # noqa: E402

tap = Tap(diag_lines=20)


def images():
    with open(os.path.join(TOP, "test-vectors", "images.tsv")) as f:
        rows = [line.split("\t")[0] for line in f.read().splitlines()[1:] if line]
    return rows


def geometry(image):
    """(start_pfn, end_pfn) of every device-dax data range the guest's
    layout gives, in order."""
    if "-dax1g-section" in image:
        memmap, ns, _ram = oracle.run_layout(0, True, "dax1g-section")
    elif re.search(r"-hvo-b\d+$", image):
        memmap, ns, _ram = oracle.run_layout(0, True, "standard-hvo")
    else:
        memmap, ns, _ram = oracle.run_layout(320, True)
    return sorted((r["data_pfn"], r["end_pfn"]) for r in oracle.pgmap_ranges(memmap, ns)
                  if r["type"] == oracle.GENERIC)


def tool_ranges(layout, dump):
    r = subprocess.run([CLI, "ranges", "--json", layout, dump], capture_output=True, text=True)
    if r.returncode not in (0, 4):
        return None, r.stderr
    d = json.loads(r.stdout)
    addr = [int(p["address"], 16) for p in d["pgmaps"]]
    spans = [(addr[s["pgmap"]], s["start_pfn"], s["end_pfn"]) for s in d["dax_ranges"]["ranges"]]
    return (d["dax_ranges"]["state"], d["dax_ranges"]["why"], spans), None


def check(image, expect_read):
    layout, dump = layout_of(image), dump_path(image)
    if not dump:
        tap(False, "%s: committed dump" % image, "no dump for %s" % image)
        return None
    got, err = tool_ranges(layout, dump)
    if not got:
        tap(False, "%s: memmapcheck ranges" % image, err)
        return None
    state, why, spans = got
    rd = damage.Oracle(damage.KDump(dump), layout)
    if rd.dax_problem is None:
        tap(state == "read" and spans == rd.dax,
            "[reader] %s: %d device-dax ranges, as damage.py reads them" % (image, len(spans)),
            "memmapcheck %s %s %s; damage.py %s" % (state, why, spans, rd.dax))
        want = geometry(image)
        tap([(s, e) for _a, s, e in spans] == want,
            "[geometry] %s: the data of each devdax namespace, %s" % (
                image, ", ".join("%#x-%#x" % se for se in want)),
            "memmapcheck %s" % [(hex(s), hex(e)) for _a, s, e in spans])
    else:
        tap(state == "partial" and why and "0x" in why and not expect_read,
            "%s: the trimmed dump lacks the chain (damage.py: %s); memmapcheck names where: %s"
            % (image, rd.dax_problem, why),
            "memmapcheck %s %s %s" % (state, why, spans))
    return state


def lint_dax(image, want_heads):
    r = subprocess.run([CLI, "lint", "--json", layout_of(image), dump_path(image)],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        tap(False, "%s: lint" % image, r.stderr)
        return
    d = json.loads(r.stdout)
    heads = sorted(g["first_pfn"] for g in d["groups"] if g["rule"] == "dax-range")
    tap(heads == want_heads and d["dax_range_unchecked"] is None,
        "%s: dax-range flags %s" % (image, ", ".join(map(hex, want_heads)) or "nothing"),
        "got %s; unchecked %s" % ([hex(h) for h in heads], d["dax_range_unchecked"]))


def main():
    chain = dax_chain_images()
    states = {}
    for image in images():
        states[image] = check(image, image in chain)
    # the trimmed copies in dax-chain.tar.xz hold the chain
    for image in sorted(chain):
        tap(states.get(image) == "read", "%s: read from its dax-chain copy" % image,
            "state %s" % states.get(image))
    # FINDINGS 4: range 0x48000-0xc0000, order 18, data 0x80000-0xc0000;
    # memmap_init_zone_device() heads at 0x48000 + k * 0x40000: the folio
    # holding the data's first pfn is 0x48000-0x88000 (daxtouch maps it)
    for kver in ("6.12", "7.2"):
        lint_dax("%s-base-dax1g-section-b1" % kver, [0x48000])
        lint_dax("%s-fix-compound-natural-align-dax1g-section-b1" % kver, [])
    return tap.plan()


sys.exit(main())
