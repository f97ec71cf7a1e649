#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An oracle for memmapcheck's diff that is not memmapcheck.

For a base kernel and a variant (template port, mutant, history or fix patch)
it predicts, per pgmap range, exactly which pfns' struct pages differ and in
which fields, from

  - the guest geometry: the legacy pmem regions and namespaces of
    scripts/prove/guest/layout.sh (or --memmap/--ns given explicitly), plus non-pmem
    ranges found in a console log (--console: test_hmm's chunk lines), read
    into pgmap ranges by scripts/oracle/oracle_geometry.py;
  - the kernel's rules, written here from the kernel source (6.12.117 and
    7.2.8; each rule names the function it comes from): where nd_pfn puts the
    info block, data and altmap (drivers/nvdimm/pfn_devs.c), which vmemmap
    pages are shared (mm/sparse-vmemmap.c vmemmap_populate_compound_pages()),
    what memmap_init_zone_device()/memmap_init_compound() write and in which
    order (mm/mm_init.c, mm/internal.h), what the guest workload's faults do
    to the folios it maps (drivers/dax/device.c, mm/huge_memory.c, mm/rmap.c);
  - each variant's stated semantics (patches/<kver>/series.tsv and the patch
    descriptions), written as rules in VARIANTS below.

It simulates the writes into struct page slots behind the vmemmap (so that a
struct page written through a shared vmemmap frame shows at every pfn that
maps the frame), reads every pfn back for the base and for the variant, and
compares field by field.  Field names are the kernel's member names for the
page's kind (order-0/head, page[1], page[2], further tail) as mm_types.h
lays them out for the test kernels' configuration.

Nothing here reads memmapcheck's output or its code.

usage: oracle.py hvo list|check|predict|diff ...   (HugeTLB folios and
                  hot-plugged memory blocks of a dump: scripts/oracle/oracle_hvo.py)
       oracle.py KVER VARIANT... [--boot-mb M] [--no-1g] [--layout NAME]
                  [--memmap LIST --ns LIST --ram-mb R] [--console LOG] [-f json|text]
                  [-j JOBS]
  --layout NAME  a named guest layout (scripts/prove/guest/layouts/NAME.sh); boot
                 RAM is then what lies below its first pmem region
  KVER     6.12 | 7.2
  VARIANT  base | template | mut-* | hist-* | fix-*  (compared with base)
  -j JOBS  variants simulated at once (default: the CPUs this process may use)
  MMC_RUN_CACHE=DIR  predictions are kept in DIR/oracle and read back when
           asked again with the same script, kernel, variant and geometry
           (make check sets it: vectors.t, docs.t and landing.t ask alike)
Output: JSON (one variant; several: an object keyed by variant) {"ranges":[{start_pfn,end_pfn,kind,differing,fields,groups,
uncertain,...}]}.  "uncertain" lists pfns whose variant content is stale
memory nobody can predict (a recycled vmemmap frame): they may or may not
differ, in any field.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the guest geometry (pgmap ranges from a layout, a console log) and the
# constants it shares with the simulation below: scripts/oracle/oracle_geometry.py;
# tests take them from here too (oracle.run_layout(), oracle.pgmap_ranges())
from oracle_geometry import (COHERENT, FS_DAX, GENERIC, PAGE, PRIVATE, SPS,  # noqa: E402
                             align_down, align_up, console_ranges, pgmap_ranges,
                             run_layout)

PER_VPAGE = PAGE // SPS       # struct pages per vmemmap page
SECTION = (128 << 20) // PAGE  # PAGES_PER_SECTION (x86_64 SECTION_SIZE_BITS 27)
VMEMMAP_RESERVE_NR = 2        # include/linux/mm.h

# enum pageflags, bits 0..7 and the ones init touches (include/linux/page-flags.h,
# identical in 6.12 and 7.2 up to bit 13)
PG_NAMES = {0: "PG_locked", 1: "PG_writeback", 2: "PG_referenced",
            3: "PG_uptodate", 4: "PG_dirty", 5: "PG_lru", 6: "PG_head",
            7: "PG_waiters", 13: "PG_reserved"}
PG_HEAD, PG_RESERVED = 6, 13
ZONE_DEVICE = "ZONE_DEVICE"
TAIL_MAPPING = ("poison", "TAIL_MAPPING")
M32 = 0xffffffff


def pack(lo, hi):
    return (lo & M32) | ((hi & M32) << 32)


def lo32(w):
    return w & M32


def hi32(w):
    return (w >> 32) & M32


def s32(v):
    v &= M32
    return v - (1 << 32) if v & 0x80000000 else v


class Flags(tuple):
    """page->flags as (zone, node, frozenset of bit numbers)."""
    def __new__(cls, zone, node, bits):
        return tuple.__new__(cls, (zone, node, frozenset(bits)))


def flags_set(f, *bits):
    if not isinstance(f, Flags):
        return ("stale-with-bits", f, bits)
    return Flags(f[0], f[1], f[2] | set(bits))


def flags_clear(f, *bits):
    return Flags(f[0], f[1], f[2] - set(bits))


def flags_order(f, order):
    """folio_set_order(): _flags_1 = (_flags_1 & ~0xff) | order."""
    if not isinstance(f, Flags):
        return ("stale-with-order", f, order)
    bits = {b for b in f[2] if b > 7} | {b for b in range(8) if order >> b & 1}
    return Flags(f[0], f[1], bits)


ZERO_PAGE = [Flags(0, 0, ()), 0, 0, 0, 0, 0, 0, 0]
# the flags of a page __init_single_page() + __SetPageReserved() made (one
# object: millions of pages hold it, and Flags never change)
DEVICE_RESERVED = Flags(ZONE_DEVICE, 0, {PG_RESERVED})


# ---------------------------------------------------------------------------
# Kernel rules per version

class Kernel:
    def __init__(self, kver):
        self.kver = kver
        self.v7 = kver.startswith("7.")

    def refcount(self, mtype):
        """__init_zone_device_page(): 6.12 leaves init_page_count()'s 1 but for
        PRIVATE/COHERENT (0); 7.2 sets 0 for everything but GENERIC."""
        if self.v7:
            return 1 if mtype == GENERIC else 0
        return 0 if mtype in (PRIVATE, COHERENT) else 1

    # names of the 8 words of a struct page per kind: 0 order-0/head,
    # 1 page[1], 2 page[2], 3 further tail (mm_types.h struct page/folio)
    def names(self, kind):
        idx = "__folio_index" if self.v7 else "index"
        ch = "compound_info" if self.v7 else "compound_head"
        if kind == 0:
            n = ["flags", "pgmap", "zone_device_data", "mapping", idx,
                 "private", "_mapcount+_refcount", "+0x38"]
        else:
            n = ["flags", ch, "zone_device_data", "mapping", idx, "private",
                 "_mapcount+_refcount", "+0x38"]
        if kind == 1:
            n[0] = "_flags_1"
            if self.v7:
                n[2] = "_large_mapcount+_nr_pages_mapped"
                n[3] = "_entire_mapcount+_pincount"
                n[4] = "_mm_id_mapcount"
                n[5] = "_mm_ids"
            else:
                n[2] = "_large_mapcount+_entire_mapcount"
                n[3] = "_nr_pages_mapped+_pincount"
                n[4] = "_folio_nr_pages"
        if kind == 2:
            n[2] = "_deferred_list.next"
            n[3] = "_deferred_list.prev"
        return n


# ---------------------------------------------------------------------------
# vmemmap: which physical frame holds the struct page of each pfn

class Vmemmap:
    """Frame ids per vmemmap page (pfn // 64).  Frames are ("f", n) for an
    own frame, n unique; shared vmemmap pages get the id of the frame they
    reuse."""

    def __init__(self):
        self.frame = {}
        self.n = 0
        self.fresh = {}     # frame id -> "ram" | "device" | "boot"

    def new(self, what):
        self.n += 1
        f = ("f", self.n)
        self.fresh[f] = what
        return f

    def plain(self, pfn0, pfn1, what):
        for v in range(pfn0 // PER_VPAGE, (pfn1 + PER_VPAGE - 1) // PER_VPAGE):
            if v not in self.frame:
                self.frame[v] = self.new(what)


def early(pfn, boot):
    """early_section(): the 128 MiB section holds boot memory."""
    s0 = align_down(pfn, SECTION)
    return any(a < s0 + SECTION and b > s0 for a, b in boot)


def can_optimize(r):
    """__vmemmap_can_optimize(): no altmap and more than VMEMMAP_RESERVE_NR
    vmemmap pages per compound page."""
    return (r["altmap"] is None and
            ((1 << r["shift"]) * SPS) // PAGE > VMEMMAP_RESERVE_NR)


def populate(vm, r, boot, fixed):
    """__add_pages() -> sparse_add_section() per section part ->
    section_activate(): an early section keeps its boot memmap; else
    __populate_section_memmap(): vmemmap_populate_compound_pages() when
    vmemmap_can_optimize(), plain vmemmap_populate() otherwise (map=dev: the
    frames come from the altmap, on the device)."""
    nr = 1 << r["shift"]
    pfn = r["start_pfn"]
    while pfn < r["end_pfn"]:
        part_end = min(r["end_pfn"], align_down(pfn, SECTION) + SECTION)
        if early(pfn, boot):
            vm.plain(pfn, part_end, "boot")
        elif not can_optimize(r):
            vm.plain(pfn, part_end, "device" if r["altmap"] else "ram")
        else:
            compound_pages(vm, r, pfn, part_end, fixed)
        pfn = part_end


def compound_pages(vm, r, pfn, end, fixed):
    """vmemmap_populate_compound_pages(): reuse_compound_section() maps the
    whole part onto the tail frame of the vmemmap page before it when the
    part's offset from the range start is not a multiple of the compound
    size; else, per compound-size chunk from the part start: an own frame
    for the head page, an own frame for the first tail page, the rest onto
    that tail frame.  The fix decides by the pfn's natural alignment instead
    and populates the part of the range before the first naturally aligned
    compound page plainly."""
    nr = 1 << r["shift"]
    if fixed:
        first = align_up(r["start_pfn"], nr)
        last = align_down(r["end_pfn"], nr)
        if pfn < first:
            stop = min(end, first)
            vm.plain(pfn, stop, "ram")
            pfn = stop
            if pfn >= end:
                return
        if end > last:
            stop = max(last, pfn)
            vm.plain(stop, end, "ram")
            if stop == pfn:
                return
            end = stop
        reuse = pfn % nr != 0
    else:
        reuse = (pfn - r["start_pfn"]) % nr != 0
    if reuse:
        shared = vm.frame[pfn // PER_VPAGE - 1]
        for v in range(pfn // PER_VPAGE, end // PER_VPAGE):
            vm.frame[v] = shared
        return
    size = min(end - pfn, nr)
    for c in range(pfn, end, size):
        last = c + size
        vm.frame[c // PER_VPAGE] = vm.new("ram")
        tail = vm.new("ram")
        vm.frame[c // PER_VPAGE + 1] = tail
        for v in range(c // PER_VPAGE + 2, last // PER_VPAGE):
            vm.frame[v] = tail


# ---------------------------------------------------------------------------
# The memory: struct page slots

class Memory:
    def __init__(self, vm, stale):
        self.vm = vm
        self.slots = {}
        self.stale = stale      # frame kind -> function(slot) for unwritten slots
        self.checked = set()    # pfns compare() found written, as a base image

    def key(self, pfn):
        return (self.vm.frame[pfn // PER_VPAGE], pfn % PER_VPAGE)

    # get() and put() spell key() out: they run tens of millions of times
    def get(self, pfn):
        k = (self.vm.frame[pfn // PER_VPAGE], pfn % PER_VPAGE)
        w = self.slots.get(k)
        if w is None:
            w = self.slots[k] = self.stale(self.vm.fresh[k[0]], k, pfn)
        return w

    def put(self, pfn, words):
        self.slots[(self.vm.frame[pfn // PER_VPAGE], pfn % PER_VPAGE)] = list(words)


# ---------------------------------------------------------------------------
# memmap_init_zone_device() with the variants' rules

class Rules:
    """What a variant changes.  Every attribute names one stated mistake or
    change; base has none."""
    template = False            # head/tail templates (the port)
    tail_refcount_kept = False  # mut-tail-refcount
    zone_nid_swap = False       # mut-zone-nid-swap
    stale_compound_head = False  # mut-stale-compound-head
    pgmap_null = False          # mut-pgmap-null
    no_reserved = False         # mut-no-reserved
    page1_order = False         # mut-page1-order
    last_tail = False           # mut-last-tail
    zdd_self = False            # mut-zdd-self
    fsdax_refcount = None       # mut-fsdax-refcount: refcount for fsdax copies
    private_refcount = None     # mut-private-refcount: refcount for PRIVATE copies
    tail_template_after_head = False  # mut-tail-template-after-head (6.12)
    prep_head_after_loop = None  # hist-reorder-prep-head (6.12 -> 7.2 order)
    early_nrpages_reverted = False  # hist-revert-early-nrpages
    natural_align = False       # fix-compound-natural-align


def variant_rules(kernel, name):
    r = Rules()
    if name == "base":
        return r
    if name.startswith("mut-") or name == "template":
        r.template = True
    sem = {
        "template": {},
        "mut-section-before-copy": {},  # no section bits in page->flags on x86_64 VMEMMAP
        "mut-tail-refcount": {"tail_refcount_kept": True},
        "mut-zone-nid-swap": {"zone_nid_swap": True},
        "mut-stale-compound-head": {"stale_compound_head": True},
        "mut-pgmap-null": {"pgmap_null": True},
        "mut-no-reserved": {"no_reserved": True},
        "mut-page1-order": {"page1_order": True},
        "mut-last-tail": {"last_tail": True},
        "mut-zdd-self": {"zdd_self": True},
        "mut-fsdax-refcount": {"fsdax_refcount": 1 if kernel.v7 else 0},
        "mut-private-refcount": {"private_refcount": 1},
        "mut-tail-template-after-head": {"tail_template_after_head": True},
        "hist-reorder-prep-head": {"prep_head_after_loop": True},
        "hist-revert-early-nrpages": {"early_nrpages_reverted": True},
        "fix-compound-natural-align": {"natural_align": True},
    }
    if name not in sem:
        raise SystemExit("oracle: no rules for variant %s" % name)
    for k, v in sem[name].items():
        setattr(r, k, v)
    return r


class Init:
    def __init__(self, kernel, rules, mem, boot):
        self.k = kernel
        self.rules = rules
        self.mem = mem
        self.boot = boot
        self.warnings = []

    # __init_single_page() + __init_zone_device_page()
    def slow(self, pfn, r, pg):
        rc = self.k.refcount(r["type"])
        w = [DEVICE_RESERVED,
             ("pgmap", pg),      # pgmap overwrites lru.next
             0,                  # zone_device_data = NULL overwrites lru.prev
             0, 0, 0,
             pack(-1, rc),       # page_mapcount_reset(), refcount policy
             0]
        return w

    def tail_slow(self, pfn, head, r, pg):
        """__init_zone_device_page() + prep_compound_tail() + set_page_count(0)."""
        w = self.slow(pfn, r, pg)
        w[3] = TAIL_MAPPING
        w[1] = ("page", head, 1)
        w[5] = 0
        if not self.rules.tail_refcount_kept:
            w[6] = pack(lo32(w[6]), 0)
        return w

    def copy_fixups(self, w, pfn, r, is_tail):
        """A page made from a template: the variants' mistakes on copies."""
        ru = self.rules
        w = list(w)
        if ru.zone_nid_swap:
            # set_page_links(template, nid, zone, pfn): zone field gets the nid
            w[0] = Flags(0, w[0][1], w[0][2])
        if ru.zdd_self:
            w[2] = ("page", pfn, 8)     # template->lru.prev = &page->lru
        if not is_tail:
            if ru.pgmap_null:
                w[1] = 0
            if ru.no_reserved:
                w[0] = flags_clear(w[0], PG_RESERVED)
            if ru.fsdax_refcount is not None and r["type"] == FS_DAX:
                w[6] = pack(lo32(w[6]), ru.fsdax_refcount)
            if ru.private_refcount is not None and r["type"] == PRIVATE:
                w[6] = pack(lo32(w[6]), ru.private_refcount)
        return w

    def prep_compound_head(self, head, order):
        """mm/internal.h prep_compound_head() for the kernel's version."""
        m = self.mem
        p1 = list(m.get(head + 1))
        hf = m.get(head)[0]
        # folio_set_order(): WARN_ON_ONCE(!folio_test_large(folio)) and
        # return when the head has lost PG_head (a later write through a
        # shared vmemmap frame): no order, no nr_pages
        large = isinstance(hf, Flags) and PG_HEAD in hf[2]
        if large:
            p1[0] = flags_order(p1[0], order)
        else:
            self.warnings.append("folio_set_order: head 0x%x without PG_head" % head)
        if self.k.v7:
            p1[2] = pack(-1, 0)          # _large_mapcount -1, _nr_pages_mapped 0
            p1[5] = 0                    # _mm_ids
            p1[4] = pack(-1, -1)         # _mm_id_mapcount[0..1]
            p1[3] = pack(-1, 0)          # _entire_mapcount -1, _pincount 0
        else:
            if large:
                p1[4] = pack(1 << order, hi32(p1[4]) if isinstance(p1[4], int) else 0)
            p1[2] = pack(-1, -1)         # _large_mapcount, _entire_mapcount
            p1[3] = pack(0, 0)           # _nr_pages_mapped, _pincount
        m.put(head + 1, p1)
        if order > 1:                    # INIT_LIST_HEAD(&folio->_deferred_list)
            p2 = list(m.get(head + 2))
            p2[2] = ("page", head + 2, 16)
            p2[3] = ("page", head + 2, 16)
            m.put(head + 2, p2)

    def nr_written(self, pfn, r):
        """compound_nr_pages(): the whole compound page in an early section
        or without vmemmap optimisation, else 128."""
        if (not self.rules.early_nrpages_reverted and early(pfn, self.boot)) or not can_optimize(r):
            return 1 << r["shift"]
        return VMEMMAP_RESERVE_NR * PER_VPAGE

    def compound(self, head, r, pg, nr, state):
        m, ru = self.mem, self.rules
        order = r["shift"]
        h = list(m.get(head))
        h[0] = flags_set(h[0], PG_HEAD)          # __SetPageHead()
        if ru.pgmap_null:
            h[1] = ("pgmap", pg)    # the mutant sets pgmap per compound head
        m.put(head, h)
        after_loop = self.k.v7 if ru.prep_head_after_loop is None else ru.prep_head_after_loop
        if ru.page1_order:
            self.prep_compound_head(head, order)
        end = head + nr - (1 if ru.last_tail else 0)
        template = None
        for pfn in range(head + 1, end):
            if not ru.template or pfn == head + 1:
                w = self.tail_slow(pfn, head, r, pg)
                m.put(pfn, w)
                if ru.template:
                    template = list(w)
                    if ru.stale_compound_head:
                        if state.get("tail_template") is None:
                            state["tail_template"] = template
                        template = state["tail_template"]
            else:
                m.put(pfn, self.copy_fixups(template, pfn, r, True))
            if pfn == head + 1 and not after_loop and not ru.page1_order:
                self.prep_compound_head(head, order)
                if ru.tail_template_after_head:
                    template = list(m.get(head + 1))
        if after_loop and not ru.page1_order:
            self.prep_compound_head(head, order)

    def zone_device(self, r, pg):
        """memmap_init_zone_device(start_pfn, nr_pages, pgmap)."""
        m, ru = self.mem, self.rules
        start = r["start_pfn"]
        if r["altmap"]:
            a = r["altmap"]
            # memmap_init_range() for the altmap pfns holding the memmap:
            # __init_single_page() + __SetPageReserved(), no pgmap
            for pfn in range(a["base"] + a["reserve"], a["base"] + a["reserve"] + a["free"]):
                m.put(pfn, [DEVICE_RESERVED, ("page", pfn, 8),
                            ("page", pfn, 8), 0, 0, 0, pack(-1, 1), 0])
            start = a["base"] + a["reserve"] + a["free"]   # vmem_altmap_offset()
        nr = 1 << r["shift"]
        end = r["end_pfn"]
        state = {}
        heads = list(range(start, end, nr))
        order0 = []
        if ru.natural_align and nr > 1:
            first = align_up(start, nr)
            last = align_down(end, nr)
            heads = list(range(first, last, nr))
            order0 = list(range(start, first)) + list(range(max(last, first), end))
        template = None
        hs = set(heads)
        for i, pfn in enumerate(order0 + heads):
            if ru.template and i > 0:
                m.put(pfn, self.copy_fixups(template, pfn, r, False))
            else:
                w = self.slow(pfn, r, pg)
                m.put(pfn, w)
                template = list(w)
            if nr > 1 and pfn in hs:
                self.compound(pfn, r, pg, self.nr_written(pfn, r), state)


# ---------------------------------------------------------------------------
# The guest workload (scripts/prove/guest/init, daxtouch.c): faults on device-dax

def workload(kernel, mem, ranges):
    """daxtouch maps the first 4 alignment units of every device-dax device
    (dax0.0, dax1.0, ... in region order) in one process, writing at offset 0
    of each unit; the 1 GiB devices get a process of their own with 1 unit.
    A fault that returns SIGBUS kills that process before it touches the rest.

    dax_set_mapping() (drivers/dax/device.c): the folio (6.12:
    compound_head()) of the fault pfn gets mapping and index unless its
    mapping is already set.  6.12 then maps the pfn (vmf_insert_pfn_pmd/pud:
    no struct page changes).  7.2 maps page_folio(): vmf_insert_folio_pmd/
    pud() WARN and SIGBUS unless folio_order() is the fault order; else
    folio_get() and folio_add_file_rmap_pmd/pud() (mm/rmap.c
    __folio_add_rmap(): _entire_mapcount and _large_mapcount +1,
    _nr_pages_mapped += ENTIRELY_MAPPED, mm id in _mm_ids[0] with
    _mm_id_mapcount[0] 0); a 4K device maps the page (folio_get(),
    _mapcount +1)."""
    writes = []
    pmem = [r for r in ranges if r.get("mode") not in (None, "hmm", "p2pdma")]
    for i, r in enumerate(pmem):
        r["device"] = "/dev/dax%d.0" % i     # namespace N.0 of region N
    devs = [r for r in ranges if r.get("mode") == "devdax"]
    procs = [("main", [r for r in devs if r["shift"] < 18]),
             ("big", [r for r in devs if r["shift"] >= 18])]
    for proc, targets in procs:
        dead = False
        for r in targets:
            if dead:
                break
            unit = 1 << r["shift"]
            size = r["end_pfn"] - r["data_pfn"]
            for k in range(min(4 if proc == "main" else 1, size // unit)):
                pfn = r["data_pfn"] + k * unit
                landed = fault(kernel, mem, r, pfn, k * unit, proc)
                writes.append({"device": r["device"], "offset": k * unit * PAGE,
                               "phys": landed})
                if landed is None:
                    dead = True
                    break
    return writes


def folio_of(mem, pfn):
    w1 = mem.get(pfn)[1]
    if isinstance(w1, tuple) and w1[0] == "page" and w1[2] & 1:
        return w1[1]
    return pfn


def fault(kernel, mem, r, pfn, pgoff, proc):
    """The physical address the process's write at the unit's offset 0
    reaches, or None for SIGBUS.  6.12 maps the pfn; 7.2 maps folio_pfn()
    through folio_mk_pmd()/folio_mk_pud(), whose pfn_pmd()/pfn_pud() keep only
    the bits of PHYSICAL_PMD_PAGE_MASK / PHYSICAL_PUD_PAGE_MASK."""
    f = folio_of(mem, pfn) if r["shift"] else pfn
    h = list(mem.get(f))
    if h[3] == 0:
        h[3] = ("obj", "f_mapping", r["region_start"])
        h[4] = pgoff
        mem.put(f, h)
    if not kernel.v7:
        return pfn * PAGE
    h = list(mem.get(f))
    if r["shift"] == 0:
        h[6] = pack(lo32(h[6]) + 1, hi32(h[6]) + 1)
        mem.put(f, h)
        return pfn * PAGE
    order = 0
    if PG_HEAD in h[0][2]:
        p1 = mem.get(f + 1)
        order = sum(1 << b for b in p1[0][2] if b < 8)
    if order != r["shift"]:
        return None                     # WARN_ON_ONCE + VM_FAULT_SIGBUS
    h[6] = pack(lo32(h[6]), hi32(h[6]) + 1)
    mem.put(f, h)
    p1 = list(mem.get(f + 1))
    p1[2] = pack(lo32(p1[2]) + 1, hi32(p1[2]) + 0x800000)
    p1[3] = pack(lo32(p1[3]) + 1, hi32(p1[3]))
    p1[4] = pack(0, hi32(p1[4]))
    p1[5] = ("obj", "mm_id", proc)
    mem.put(f + 1, p1)
    return align_down(f, 1 << r["shift"]) * PAGE


# ---------------------------------------------------------------------------
# One kernel image's final struct pages

def raw_probe_page(kernel, pfn, region_start):
    """Before ndctl reconfigures it, every legacy namespace is probed raw by
    nd_pmem: an order-0 MEMORY_DEVICE_FS_DAX pgmap over the whole region.
    Struct pages in an early section's boot memmap keep that content where
    a later init skips them."""
    return [DEVICE_RESERVED, ("obj", "raw-pgmap", region_start),
            0, 0, 0, 0, pack(-1, kernel.refcount(FS_DAX)), 0]


def image(kernel, rules, ranges, boot):
    vm = Vmemmap()
    region_of = {}
    for r in ranges:
        populate(vm, r, boot, rules.natural_align)
        for v in range(r["start_pfn"] // PER_VPAGE, (r["end_pfn"] + 63) // PER_VPAGE):
            region_of[v] = r

    def stale(kind, key, pfn):
        if kind == "device":
            return list(ZERO_PAGE)      # pmem never written before: zeroes
        if kind == "boot":
            return raw_probe_page(kernel, pfn, region_of[pfn // PER_VPAGE]["region_start"])
        return [("stale", key, k) for k in range(8)]   # recycled RAM frame: unknown

    mem = Memory(vm, stale)
    init = Init(kernel, rules, mem, boot)
    for i, r in enumerate(ranges):
        init.zone_device(r, i)
    mem.writes = workload(kernel, mem, ranges)
    drivers(kernel, mem, ranges)
    return vm, mem


# What the non-pmem drivers and the guest's workloads write after
# memmap_init_zone_device(), as far as it does not depend on the run.
HMM_TOUCHED = 2048      # hmmtouch's allocations per chunk, an upper bound
P2P_TOUCHED = 64        # p2ptouch's pages per device (mmc.p2p, default 4), an upper bound


def drivers(kernel, mem, ranges):
    """lib/test_hmm.c dmirror_allocate_chunk() threads its free list through
    page->zone_device_data (each page points at the one pushed before it),
    so whatever init left there is gone on every page of a chunk; the list
    is popped from the last page pushed (the chunk's highest pfn), so the
    pages hmmtouch migrates are at the top of a chunk.  The p2pdma genpool
    hands out a BAR's pages from its bottom.  Pages a workload may have
    allocated are run-dependent: "runtime" (uncertain in a comparison).
    7.x's test_hmm also makes large-folio chunks (dmirror_allocate_chunk(...,
    is_large): only every 512th page joins a free list, through
    free_folios), and the log does not say which chunk is one: on 7.x a
    whole hmm chunk is run-dependent."""
    for r in ranges:
        if r.get("mode") == "hmm":
            for pfn in range(r["start_pfn"], r["end_pfn"]):
                w = list(mem.get(pfn))
                w[2] = ("page", pfn - 1, 0) if pfn > r["start_pfn"] else ("free_pages",)
                mem.put(pfn, w)
            r["runtime"] = ((r["start_pfn"] if kernel.v7 else
                             max(r["start_pfn"], r["end_pfn"] - HMM_TOUCHED)), r["end_pfn"])
        elif r.get("mode") == "p2pdma":
            r["runtime"] = (r["start_pfn"], min(r["end_pfn"], r["start_pfn"] + P2P_TOUCHED))


# ---------------------------------------------------------------------------
# Comparing

def kind_of(w1, pfn):
    """The page kind a reader infers from the base image's word 1: a tail
    pointer (odd) one or two struct pages back is page[1] / page[2]."""
    if isinstance(w1, tuple) and w1[0] == "page" and w1[2] & 1:
        d = w1[1] - pfn
        return 1 if d == -1 else 2 if d == -2 else 3
    if isinstance(w1, int) and w1 & 1:
        return 3
    return 0


def word_fields(kernel, kind, k, a, b):
    names = kernel.names(kind)
    if k == 0:
        pre = "_flags_1" if kind == 1 else "flags"
        out = []
        if a[0] != b[0]:
            out.append(pre + ".zone")
        if a[1] != b[1]:
            out.append(pre + ".node")
        x = a[2] ^ b[2]
        if kind == 1 and any(bit < 8 for bit in x):
            out.append(pre + ".order")
            x = {bit for bit in x if bit >= 8}
        for bit in sorted(x):
            out.append("%s.%s" % (pre, PG_NAMES.get(bit, "bit%d" % bit)))
        return out
    name = names[k]
    if "+" in name and not name.startswith("+") and isinstance(a, int) and isinstance(b, int):
        lo, hi = name.split("+")
        out = []
        if lo32(a) != lo32(b):
            out.append(lo)
        if hi32(a) != hi32(b):
            out.append(hi)
        return out
    return [name]


def is_stale(page):
    for w in page[1:]:
        if isinstance(w, tuple) and w and w[0] == "stale":
            return True
    return False


def compare(kernel, ranges, A, B):
    vma, ma = A
    vmb, mb = B
    base_ok = ma.checked
    res = []
    for r in ranges:
        fields, groups, uncertain = {}, [], []
        differing = compared = not_init = vf = 0
        role_a = share_roles(vma, r)
        role_b = share_roles(vmb, r)
        cur = None
        res_r = {"start_pfn": r["start_pfn"], "end_pfn": r["end_pfn"], "kind": r["kind"]}
        reserve = set()
        if r["altmap"]:
            a = r["altmap"]
            reserve = set(range(a["base"], a["base"] + a["reserve"]))
        for pfn in range(r["start_pfn"], r["end_pfn"]):
            if pfn in reserve:
                not_init += 1
                cur = None
                continue
            compared += 1
            pa, pb = ma.get(pfn), mb.get(pfn)
            names = []
            # the base is compared with every variant: each of its pages
            # is checked once
            if pfn not in base_ok:
                if is_stale(pa):
                    raise SystemExit("oracle: base image has unwritten struct page at 0x%x" % pfn)
                base_ok.add(pfn)
            rt = r.get("runtime")
            # a page equal to the base's is not stale (the base's is not)
            # and has no differing word
            same = pa == pb
            if (not same and is_stale(pb)) or (rt and rt[0] <= pfn < rt[1]):
                uncertain.append(pfn)
                cur = None
                continue
            if not same:
                kind = kind_of(pa[1], pfn)
                for k in range(8):
                    if pa[k] != pb[k]:
                        names += word_fields(kernel, kind, k, pa[k], pb[k])
            if role_a[pfn] != role_b[pfn]:
                names.append("role")
            if not names:
                cur = None
                continue
            differing += 1
            for n in names:
                fields[n] = fields.get(n, 0) + 1
            key = frozenset(names)
            if cur is not None and cur[0] == key and groups[-1]["last_pfn"] == pfn - 1:
                groups[-1]["last_pfn"] = pfn
                groups[-1]["pages"] += 1
            else:
                groups.append({"first_pfn": pfn, "last_pfn": pfn, "pages": 1,
                               "fields": sorted(names)})
                cur = (key,)
        vf = vframe_diffs(vma, vmb, r)
        if vf:
            fields["vmemmap_frame"] = vf
        res_r.update(differing=differing, compared=compared, not_init=not_init,
                     vframes_differing=vf, fields=fields, groups=groups,
                     uncertain=compress(uncertain))
        res.append(res_r)
    return res


def share_roles(vm, r):
    """A struct page read through a vmemmap page whose frame an earlier
    vmemmap page of the same compound-page window (from the range start)
    maps too: "shared"; otherwise "device"."""
    nr = 1 << r["shift"]
    period = max(1, nr * SPS // PAGE) if r["shift"] else None
    out = {}
    seen = {}
    v0 = r["start_pfn"] // PER_VPAGE
    for v in range(v0, (r["end_pfn"] + 63) // PER_VPAGE):
        if period is None or (v - v0) % period == 0:
            seen = {}
        f = vm.frame.get(v)
        sh = f in seen
        seen.setdefault(f, v)
        for pfn in range(v * PER_VPAGE, min(r["end_pfn"], (v + 1) * PER_VPAGE)):
            out[pfn] = "shared" if sh else "device"
    return out


def vframe_diffs(va, vb, r):
    """vmemmap pages whose frame differs in kind: shared back to another
    vmemmap page (how far back within the compound-page window, and how
    far back to the first vmemmap page of the range on the same frame) vs
    own frame.  The second distance tells apart two kernels whose windows
    look alike but alias different frames: a part of the range that reuses
    the tail frame of an earlier compound page (reuse_compound_section())."""
    def desc(vm):
        nr = 1 << r["shift"]
        period = max(1, nr * SPS // PAGE) if r["shift"] else None
        seen, first, out = {}, {}, []
        v0 = r["start_pfn"] // PER_VPAGE
        for v in range(v0, (r["end_pfn"] + 63) // PER_VPAGE):
            if period is None or (v - v0) % period == 0:
                seen = {}
            f = vm.frame.get(v)
            first.setdefault(f, v)
            out.append((v - seen[f] if f in seen else 0, v - first[f]))
            seen.setdefault(f, v)
        return out
    a, b = desc(va), desc(vb)
    return sum(1 for x, y in zip(a, b) if x != y)


def compress(pfns):
    out = []
    for p in pfns:
        if out and out[-1][1] == p - 1:
            out[-1][1] = p
        else:
            out.append([p, p])
    return out


def predict(kver, variants, memmap, ns, ram_mb, boot_mb, console=None, jobs=1, cache=None):
    """{variant: prediction} for each variant against base.  jobs: how many
    variants are simulated at once (in forked processes); cache: a
    directory of predictions made before (see cache_key()), or None."""
    kernel = Kernel(kver)
    ranges = pgmap_ranges(memmap, ns)
    if console:
        ranges += console_ranges(console)
    ranges.sort(key=lambda r: r["start_pfn"])
    # boot RAM: [0, boot_mb) and the top 64 MiB (layout.sh), as pfn ranges
    boot = [(0, boot_mb * 256), ((ram_mb - 64) * 256, ram_mb * 256)]
    keys = {v: cache_key(kver, v, ranges, boot) for v in variants} if cache else {}
    out = {}
    for v, k in keys.items():
        try:
            with open(os.path.join(cache, k)) as f:
                out[v] = json.load(f)
        except (OSError, ValueError):
            pass
    todo = [v for v in dict.fromkeys(variants) if v not in out]
    if todo:
        global _FORKED
        _FORKED = (kernel, ranges, boot, image(kernel, variant_rules(kernel, "base"), ranges, boot))
        if jobs > 1 and len(todo) > 1:
            import concurrent.futures
            import multiprocessing
            # the workers are forked here, after the base image is made:
            # each inherits it and the geometry through _FORKED
            with concurrent.futures.ProcessPoolExecutor(
                    min(jobs, len(todo)), mp_context=multiprocessing.get_context("fork")) as ex:
                out.update(zip(todo, ex.map(predict_variant, todo)))
        else:
            out.update((v, predict_variant(v)) for v in todo)
        _FORKED = None
        for v in todo:
            if v in keys:
                tmp = os.path.join(cache, "%s.%d.tmp" % (keys[v], os.getpid()))
                with open(tmp, "w") as f:
                    json.dump(out[v], f)
                os.replace(tmp, os.path.join(cache, keys[v]))
    return {v: out[v] for v in variants}


_FORKED = None      # (kernel, ranges, boot, base image) of predict(), for its workers


def predict_variant(v):
    kernel, ranges, boot, base = _FORKED
    var = image(kernel, variant_rules(kernel, v), ranges, boot)
    return {"kernel": kernel.kver, "variant": v, "ranges": compare(kernel, ranges, base, var),
            "writes": var[1].writes, "base_writes": base[1].writes}


def cache_key(kver, variant, ranges, boot):
    """What a prediction depends on: this script's text and its geometry
    module's, the kernel, the variant and the geometry (pgmap ranges from
    the layout and the console log, boot memory)."""
    import hashlib
    import oracle_geometry
    h = hashlib.sha256()
    for path in (__file__, oracle_geometry.__file__):
        with open(os.path.abspath(path), "rb") as f:
            h.update(f.read())
    h.update(json.dumps([kver, variant, ranges, boot], sort_keys=True).encode())
    return h.hexdigest()


def run_cache():
    """$MMC_RUN_CACHE/oracle: where one test run (make check sets
    MMC_RUN_CACHE) keeps the predictions its tests ask for more than once;
    None without it."""
    d = os.environ.get("MMC_RUN_CACHE")
    if not d:
        return None
    d = os.path.join(d, "oracle")
    os.makedirs(d, exist_ok=True)
    return d


def main():
    if sys.argv[1:2] == ["hvo"]:
        # HugeTLB folios and hot-plugged memory blocks, read from a dump
        # (scripts/oracle/oracle_hvo.py; drgn for DWARF: /usr/bin/python3)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import oracle_hvo
        return oracle_hvo.main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kver")
    ap.add_argument("variant", nargs="+")
    ap.add_argument("--boot-mb", type=int, default=320)
    ap.add_argument("--no-1g", action="store_true")
    ap.add_argument("--memmap")
    ap.add_argument("--ns")
    ap.add_argument("--ram-mb", type=int)
    ap.add_argument("--layout")
    ap.add_argument("--console")
    ap.add_argument("-f", "--format", default="json", choices=["json", "text"])
    ap.add_argument("-j", "--jobs", type=int, default=len(os.sched_getaffinity(0)))
    a = ap.parse_args()
    if a.memmap or a.ns:
        if not (a.memmap and a.ns and a.ram_mb):
            ap.error("--memmap, --ns and --ram-mb go together")
        memmap, ns, ram = a.memmap.replace("memmap=", ""), a.ns, a.ram_mb
    elif a.layout:
        memmap, ns, ram = run_layout(0, True, a.layout)
        a.boot_mb = int(memmap.split(",")[0].split("!")[1], 16) >> 20
    else:
        memmap, ns, ram = run_layout(a.boot_mb, not a.no_1g)
    allres = predict(a.kver, a.variant, memmap, ns, ram, a.boot_mb, a.console,
                     jobs=a.jobs, cache=run_cache())
    if a.format == "json":
        json.dump(allres[a.variant[0]] if len(a.variant) == 1 else allres, sys.stdout)
        print()
        return 0
    for v in a.variant:
        text(a.kver, v, allres[v])
    return 0


def text(kver, variant, res):
    total = sum(r["differing"] for r in res["ranges"])
    print("%s %s vs base: %d pages differ" % (kver, variant, total))
    for w in res["writes"]:
        print("  write to %s +%#x lands at %s" % (w["device"], w["offset"],
              "%#x" % w["phys"] if w["phys"] is not None else "nothing (SIGBUS)"))
    for r in res["ranges"]:
        unc = sum(b - a_ + 1 for a_, b in r["uncertain"])
        print("  0x%x-0x%x %-16s differ %7d%s  %s" % (
            r["start_pfn"], r["end_pfn"], r["kind"], r["differing"],
            " (+%d uncertain)" % unc if unc else "",
            ", ".join("%s %d" % kv for kv in sorted(r["fields"].items()))))


if __name__ == "__main__":
    sys.exit(main())
