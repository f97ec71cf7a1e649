#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The protection memmapcheck records for every vmemmap page (snapshot
format 5: writable, leaf level; engine/pgtable.c), on every committed
image, against two things that are not memmapcheck:

  [proof]   the kernels' own code: every kernel these images ran maps the
            vmemmap writable.  6.1, 6.12 and 7.2 alike populate it with
            vmemmap_pte_populate() (mm/sparse-vmemmap.c: pfn_pte(...,
            PAGE_KERNEL), also for the tail pages compound devdax reuses)
            or vmemmap_set_pmd() (arch/x86/mm/init_64.c: PAGE_KERNEL_LARGE),
            both with _PAGE_RW (arch/x86/include/asm/pgtable_types.h
            __PAGE_KERNEL, __PAGE_KERNEL_LARGE), under tables made by
            pmd_populate_kernel()/pud_populate()/p4d_populate()
            (arch/x86/include/asm/pgalloc.h: _PAGE_TABLE, with _PAGE_RW).
            None of them runs HugeTLB vmemmap optimisation; the
            section-based compound vmemmap port (7.2-section-vmemmap and
            mut-section-tail-uninit) write-protects exactly its shared
            tail vmemmap pages (READ_ONLY below).  Every other vmemmap
            page with a frame is writable;
  [reader]  an own page-table walk in this file over scripts/oracle/damage.py's
            kdump reader (not memmapcheck's): per vmemmap page, mapped or
            not, the AND of bit 1 (_PAGE_RW) over every level, and the
            level of the leaf (a PTE, or a PMD/PUD entry with bit 7): the
            same answer for every vmemmap page memmapcheck records.

TAP output.  Every image is walked by `memmapcheck show --json`
(MMC_IMAGES=a,b: only those).
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, HvoOracle, Tap, dump_path, layout_of, skip_all  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import damage  # noqa: E402

tap = Tap(diag_lines=20)
PAGE = 4096
LEAF = {1: "PTE", 2: "PMD", 3: "PUD"}


def images():
    with open(os.path.join(TOP, "test-vectors", "images.tsv")) as f:
        return [line.split("\t")[0] for line in f.read().splitlines()[1:] if line]


class Walker:
    """x86_64 paging as the SDM describes it, over damage.py's reads:
    (frame, writable, leaf level), or None unmapped, or 'unreadable'."""

    def __init__(self, rd):
        self.rd = rd
        self.tables = {}

    def table(self, pa):
        if pa not in self.tables:
            page = self.rd.d.page(pa // PAGE)
            self.tables[pa] = None if page is None else page
        return self.tables[pa]

    def walk(self, va):
        table = self.rd.top
        rw = True
        for lvl in range(5 if self.rd.l5 else 4, 0, -1):
            shift = 12 + 9 * (lvl - 1)
            t = self.table(table)
            if t is None:
                return "unreadable"
            e = damage.u64(t, ((va >> shift) & 511) * 8)
            if not e & 1:
                return None
            rw = rw and bool(e & 2)
            if lvl == 1 or (e & 0x80 and lvl in (2, 3)):
                size = 1 << shift
                frame = (e & 0x000ffffffffff000 & ~(size - 1)) | (va & (size - 1) & ~(PAGE - 1))
                return frame, rw, lvl
            table = e & 0x000ffffffffff000
        return None


def check(image):
    layout, dump = layout_of(image), dump_path(image)
    if not dump:
        tap(False, "%s: committed dump" % image, "no dump for %s" % image)
        return
    r = subprocess.run([CLI, "show", "--json", layout, dump], capture_output=True, text=True)
    if r.returncode not in (0, 4):
        tap(False, "%s: memmapcheck show" % image, r.stderr)
        return
    show = json.loads(r.stdout)
    rd = damage.Oracle(damage.KDump(dump), layout)
    w = Walker(rd)
    n = writable = unrecorded = 0
    wrong = []
    for rg in show["ranges"]:
        first_vpage = (rd.vmemmap + rg["start_pfn"] * rd.sps) // PAGE
        for v in rg["vframes"]:
            for i in range(v["first"], v["first"] + v["count"]):
                got = w.walk((first_vpage + i) * PAGE)
                n += 1
                if v["kind"] in ("ram", "device"):
                    if v["writable"] is None:
                        unrecorded += 1
                    writable += v["writable"] is True
                    paddr = (v["paddr"] + (i - v["first"]) * v["d_paddr"]) % (1 << 64)
                    ok = isinstance(got, tuple) and got == (paddr, v["writable"],
                                                            {"PTE": 1, "PMD": 2, "PUD": 3}[v["leaf"]])
                elif v["kind"] == "unmapped":
                    ok = got is None
                else:
                    # a page table the dump lacks, or the frame itself (a
                    # real kdump holds System RAM only: map=dev frames)
                    ok = got == "unreadable" or (isinstance(got, tuple) and
                                                 rd.d.page(got[0] // PAGE) is None)
                if not ok and len(wrong) < 5:
                    wrong.append("range %#x vmemmap page %d: memmapcheck %s %s %s, reader %s"
                                 % (rg["start_pfn"], i, v["kind"], v["writable"],
                                    v.get("leaf"), got))
    tap(n and not wrong, "[reader] %s: %d vmemmap pages: frame, writable bit and leaf level as an own walk reads them" % (image, n),
        "\n".join(wrong))
    mapped = sum(v["count"] for rg in show["ranges"] for v in rg["vframes"]
                 if v["kind"] in ("ram", "device"))
    if image in HVO_IMAGES:
        hvo_proof(image, show, rd)
        return
    ro = READ_ONLY.get(image, 0)
    if ro:
        tap(mapped and writable == mapped - ro and not unrecorded,
            "[proof] %s: %d of %d vmemmap pages read-only, the rest writable (the port's "
            "vmemmap_wrprotect_shared_tails(): vp1..vp7 of range 2's 64 compound pages, "
            "vp1.. of the 1 GiB page)" % (image, ro, mapped),
            "%d writable, %d not recorded of %d" % (writable, unrecorded, mapped))
        return
    tap(mapped and writable == mapped and not unrecorded,
        "[proof] %s: all %d vmemmap pages with a frame writable (kernel code maps the vmemmap PAGE_KERNEL)" % (image, mapped),
        "%d writable, %d not recorded of %d" % (writable, unrecorded, mapped))


# The section-based vmemmap port (patches/7.2/section-vmemmap.patch,
# doc/SECTION-VMEMMAP.md) write-protects every tail vmemmap page of a
# device-dax map=mem compound page outside early sections: in the standard
# guest range 2's 64 2 MiB pages (8 vmemmap pages each, vp0 stays writable)
# and the 1 GiB page (4096 vmemmap pages); mut-section-tail-uninit keeps
# that, mut-section-writable does not.
PORT_READ_ONLY = 64 * (8 - 1) + (0x40000 // 64 - 1)
READ_ONLY = {"7.2-section-vmemmap-b1": PORT_READ_ONLY, "7.2-mut-section-tail-uninit-b1": PORT_READ_ONLY}


def hvo_images():
    with open(os.path.join(TOP, "test-vectors", "hvo-images.txt")) as f:
        return {w for w in (line.split("#", 1)[0].strip() for line in f) if w}


# The hvo-flavour kernels (test-vectors/hvo-images.txt) run HugeTLB vmemmap
# optimisation: vmemmap_remap_pte() (mm/hugetlb_vmemmap.c) maps the tail
# vmemmap pages of an optimised folio PAGE_KERNEL_RO onto one shared frame
# (mut-hvo-tail-rw: PAGE_KERNEL).  Which folios there are and how their
# tails are mapped is the oracle's (scripts/oracle/oracle.py hvo list, recorded
# from the full captures: tests/taplib.py HvoOracle).
HVO_IMAGES = hvo_images()
hvo_oracle = HvoOracle(tap)


def hvo_proof(image, show, rd):
    lst = hvo_oracle("list-" + image, [image], ["list", None, None, "-f", "json"])
    if lst is None:
        return
    per = PAGE // rd.sps
    tail_vpages = {}        # vmemmap page -> its folio's tails read-only (oracle)
    for f in lst["folios"]:
        first = (rd.vmemmap + f["head"] * rd.sps) // PAGE
        for k in range(1, f["vmemmap_pages"]):
            tail_vpages[first + k] = f["tail_rw"] == [False]
    want_ro = sum(tail_vpages.values())
    outside_ro = in_ro = in_rw = 0
    for rg in show["ranges"]:
        first_vpage = (rd.vmemmap + rg["start_pfn"] * rd.sps) // PAGE
        for v in rg["vframes"]:
            if v["kind"] not in ("ram", "device"):
                continue
            for i in range(v["first"], v["first"] + v["count"]):
                ro_oracle = tail_vpages.get(first_vpage + i)
                if ro_oracle is None:
                    outside_ro += v["writable"] is not True
                elif v["writable"] is False and ro_oracle:
                    in_ro += 1
                elif v["writable"] is True and not ro_oracle:
                    in_rw += 1
    tap(not outside_ro,
        "[proof] %s: every vmemmap page outside the HugeTLB folios' tails writable (PAGE_KERNEL)" % image,
        "%d not writable" % outside_ro)
    tap(in_ro == want_ro and in_ro + in_rw == len(tail_vpages) and per,
        "[oracle] %s: %d tail vmemmap pages of HugeTLB folios read-only, %d writable, as the oracle's walk of the full dump finds"
        % (image, in_ro, in_rw),
        "oracle: %d read-only of %d" % (want_ro, len(tail_vpages)))


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    only = os.environ.get("MMC_IMAGES")
    for image in images():
        if not only or image in only.split(","):
            check(image)
    return tap.plan()


sys.exit(main())
