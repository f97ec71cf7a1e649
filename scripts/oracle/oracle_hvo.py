#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""HugeTLB folios and hot-plugged memory blocks of a kernel image, read
without memmapcheck: the second implementation behind issue 19's tests
(run as `scripts/oracle/oracle.py hvo ...`, documented in doc/ORACLE.md).

From a kdump-compressed dump and the kernel's vmlinux it reads

  - every hstate (hstates[], hugetlb_max_hstate) and every folio on its
    free list (hugepage_freelists[0]) and active list (hugepage_activelist),
    linked through folio->lru;
  - per folio: the head's page_type, refcount, mapping, HPG flags
    (folio->private, enum hugetlb_page_flags), and the vmemmap page-table
    entries of its struct pages (its own walk of init_top_pgt): which vmemmap
    pages map which frame, read-only or not; so whether the vmemmap is
    optimised (HVO) and which frame the tail struct pages share;
  - every memory block (the memory_blocks xarray of drivers/base/memory.c)
    with its altmap (memmap_on_memory) and the struct pages of the altmap pfns;

checks them against the kernel's own rules (each rule names the kernel
function it comes from; the research note behind them is doc/ORACLE.md's
"HugeTLB and memory blocks" section), and predicts, for the hvo mutants of
patches/<kver>/, which pfns and fields differ from the base image, from the
base image's listing and each mutant's semantics.  `diff` compares two
images' struct pages word by word over the pfns the listings name (a raw
check of a prediction, still without memmapcheck).

Types, member offsets, enum values and symbol addresses come from the
vmlinux's DWARF through drgn (python3-drgn; /usr/bin/python3), page contents
from scripts/oracle/damage.py's kdump reader (with LZO pages decompressed through
liblzo2), the page-table walk is this file's own.  predict, diff and verify
are scripts/oracle/oracle_hvo_predict.py.

usage: oracle.py hvo list  VMLINUX DUMP [-f json|text]
       oracle.py hvo check VMLINUX DUMP
       oracle.py hvo predict KVER VARIANT VMLINUX BASE_DUMP [-f json|text]
       oracle.py hvo diff VMLINUX BASE_DUMP VMLINUX2 DUMP2
       oracle.py hvo verify KVER VARIANT VMLINUX BASE_DUMP VMLINUX2 DUMP2 [BASE_DUMP2]
  verify: predict from the base image, diff the two images, compare;
  BASE_DUMP2, another boot of the base kernel, names the words that vary
  from boot to boot (anon_vma pointers), which are left out.  diff leaves
  out, as memmapcheck's diff does (doc/DESIGN.md "Diff: what compares"),
  the folios placed apart (listed under "placement") and the lru words of
  struct pages that read as heads.
Exit: 0 fine (check: every rule holds; verify: prediction and measurement
agree), 1 violations / disagreements, 2 usage or unreadable input.
"""
import ctypes
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import damage  # noqa: E402  (its KDump reader)

PAGE = 4096
KTEXT = 0xffffffff80000000        # __START_KERNEL_map (arch/x86/include/asm/page_64_types.h)
PTE_PRESENT, PTE_RW, PTE_DIRTY, PTE_PSE = 1 << 0, 1 << 1, 1 << 6, 1 << 7   # pgtable_types.h _PAGE_BIT_*
PTE_PFN = 0x000ffffffffff000      # PTE_PFN_MASK with 52 physical address bits
TAIL_MAPPING = 0x400 + 0xdead000000000000   # poison.h: 0x400 + POISON_POINTER_DELTA (x86_64)


def u64(b, o=0):
    return struct.unpack_from('<Q', b, o)[0]


def s32(b, o):
    return struct.unpack_from('<i', b, o)[0]


# ---------------------------------------------------------------- the dump

class Dump(damage.KDump):
    """damage.py's reader, plus makedumpfile -l pages (liblzo2's
    lzo1x_decompress_safe through ctypes)."""
    DUMP_DH_COMPRESSED_LZO = 0x2

    def __init__(self, path):
        super().__init__(path)
        self._lzo = None
        self._cache = {}

    def page(self, pfn):
        got = self._cache.get(pfn)
        if got is not None:
            return got
        i = self.index.get(pfn)
        if i is None:
            return None
        off, size, flags, _ = self.desc[i]
        if flags & self.DUMP_DH_COMPRESSED_LZO:
            if self._lzo is None:
                self._lzo = ctypes.CDLL('liblzo2.so.2')
            src = self.data[off:off + size]
            dst = ctypes.create_string_buffer(PAGE)
            n = ctypes.c_size_t(PAGE)
            if self._lzo.lzo1x_decompress_safe(src, ctypes.c_size_t(size), dst,
                                               ctypes.byref(n), None) != 0 or n.value != PAGE:
                raise ValueError('%s: pfn %#x: bad LZO page' % (self.path, pfn))
            got = dst.raw
        else:
            got = super().page(pfn)
        if len(self._cache) > 65536:
            self._cache.clear()
        self._cache[pfn] = got
        return got


# ---------------------------------------------------------------- DWARF

class Types:
    """Offsets, sizes, enum values and symbols from the vmlinux (drgn)."""

    def __init__(self, vmlinux):
        try:
            import drgn
        except ImportError:
            raise SystemExit('oracle hvo: needs python3-drgn (run with /usr/bin/python3)')
        self.drgn = drgn
        self.prog = drgn.Program()
        self.prog.load_debug_info([vmlinux])
        self.vmlinux = vmlinux

    def off(self, typ, member):
        return self.drgn.offsetof(self.prog.type(typ), member)

    def has(self, typ, member):
        try:
            self.off(typ, member)
            return True
        except (LookupError, ValueError):
            return False

    def size(self, typ):
        return self.prog.type(typ).size

    def sym(self, name):
        return self.prog.symbol(name).address

    def has_sym(self, name):
        try:
            self.prog.symbol(name)
            return True
        except LookupError:
            return False

    def enum(self, typ, name):
        for e in self.prog.type(typ).enumerators:
            if e.name == name:
                return e.value
        raise LookupError('%s has no %s' % (typ, name))

    def word_names(self):
        """For struct page words 0..7 of page[0], page[1], page[2], page[3]
        and a further tail: the kernel member names that cover them, from
        struct folio (page[0..3]) and struct page (tails)."""
        drgn = self.drgn
        page_t = self.prog.type('struct page')
        link = 'compound_info' if self.has('struct page', 'compound_info') else 'compound_head'

        def leaves(t, base):
            out = []
            for m in t.members:
                mt = m.type.unqualified()
                while mt.kind == drgn.TypeKind.TYPEDEF:
                    mt = mt.type
                off = base + m.bit_offset // 8
                if mt.kind in (drgn.TypeKind.STRUCT, drgn.TypeKind.UNION) and \
                        (not m.name or mt.kind == drgn.TypeKind.UNION):
                    out += leaves(mt, off)
                elif m.name:
                    # drgn.sizeof(): an array of a typedef (7.x's
                    # mm_id_mapcount_t _mm_id_mapcount[2]) has no .size
                    size = drgn.sizeof(mt)
                    out.append((off, size, m.name))
            return out
        folio = [x for x in leaves(self.prog.type('struct folio'), 0) if x[1] <= 16]
        pagel = [x for x in leaves(page_t, 0)]
        prefer = [link, 'flags', 'mapping', 'index', '__folio_index', 'private',
                  '_mapcount', '_refcount', 'lru']

        def pick(cands, lo, hi, tail):
            c = [x for x in cands if x[0] < hi and x[0] + x[1] > lo]
            if tail:
                c = [x for x in c if x[2] in prefer]
                c.sort(key=lambda x: prefer.index(x[2]))
                if c and c[0][2] == 'lru':
                    return 'lru.prev' if lo > c[0][0] else 'lru.next'
            else:
                c = [x for x in c if not x[2].startswith('__') and not x[2].startswith('_unused')
                     and x[2] not in ('page', 'swap', 'share', 'mlock_count', 'pgmap', 'buddy_list',
                                      'pcp_list', 'callback_head', 'pp', 'pp_magic', 'dma_addr',
                                      'pp_ref_count', '_pp_mapping_pad', 'zone_device_data',
                                      'memcg_data', '_unused_slab_obj_exts', 'page_type', '_usable_1')]
                c.sort(key=lambda x: (x[1], x[0]))
            if not c:
                return '+%#x' % (lo % 64)
            names = sorted({x[2] for x in c if x[1] == c[0][1]}, key=lambda n: [x[2] for x in c].index(n))
            if c[0][2] == 'lru':
                return 'lru.prev' if lo > c[0][0] else 'lru.next'
            return '+'.join(names)
        tail = [pick(pagel, 8 * w, 8 * w + 8, True) for w in range(8)]
        out = []
        for i in range(4):
            names = [pick(folio, i * 64 + 8 * w, i * 64 + 8 * w + 8, False) for w in range(8)]
            # words struct folio leaves to struct page (page[1..3]'s private,
            # _mapcount, _refcount) take the struct page names
            out.append([tail[w] if n.startswith('+') else n for w, n in enumerate(names)])
        out.append(tail)
        return out


# ---------------------------------------------------------------- the image

class Image:
    def __init__(self, vmlinux, dump_path):
        self.touched = set()     # every frame read (scripts/vectors/trim-dump.py keeps them)
        # every kernel virtual page read through the direct map or the
        # kernel text mapping, which read() translates by arithmetic:
        # trim-dump.py keeps the page tables a reader that walks them needs
        self.vpages = set()
        self.t = Types(vmlinux)
        self.d = Dump(dump_path)
        self.path = dump_path
        vi = self.d.notes().get(b'VMCOREINFO')
        if vi is None:
            raise ValueError('%s: no VMCOREINFO note' % dump_path)
        self.vi = dict(line.split('=', 1) for line in vi.decode().splitlines() if '=' in line)
        self.kaslr = int(self.vi.get('KERNELOFFSET', '0'), 16)
        self.phys_base = int(self.vi.get('NUMBER(phys_base)', '0'))
        self.l5 = self.vi.get('NUMBER(pgtable_l5_enabled)', '0') == '1'
        self.section_pages = 1 << (int(self.vi['NUMBER(SECTION_SIZE_BITS)']) - 12)
        self.top = self.ksym('init_top_pgt') - KTEXT + self.phys_base
        self.page_offset = self.kvar('page_offset_base', 0xffff888000000000)
        self.vmemmap = self.kvar('vmemmap_base', 0xffffea0000000000)
        self.sps = self.t.size('struct page')
        self.names = self.t.word_names()
        self.kver = self.vi.get('OSRELEASE', '?')

    def ksym(self, name):
        return self.t.sym(name) + self.kaslr

    def phys(self, pa, n):
        out = b''
        while n:
            chunk = min(n, PAGE - pa % PAGE)
            self.touched.add(pa // PAGE)
            page = self.d.page(pa // PAGE)
            if page is None:
                raise ValueError('%s: physical %#x is not in the dump' % (self.path, pa))
            out += page[pa % PAGE:pa % PAGE + chunk]
            pa += chunk
            n -= chunk
        return out

    def walk(self, va):
        """(physical address, leaf entry, level) or None: level 1 a PTE,
        2 a PMD leaf, 3 a PUD leaf."""
        table = self.top
        for lvl in range(5 if self.l5 else 4, 0, -1):
            shift = 12 + 9 * (lvl - 1)
            e = u64(self.phys(table + ((va >> shift) & 511) * 8, 8))
            if not e & PTE_PRESENT:
                return None
            if lvl == 1 or (e & PTE_PSE and lvl in (2, 3)):
                size = 1 << shift
                return (e & PTE_PFN & ~(size - 1)) | (va & (size - 1)), e, lvl
            table = e & PTE_PFN
        return None

    def read(self, va, n):
        if va >= KTEXT or self.page_offset <= va < self.page_offset + (1 << 46):
            self.vpages.update(range(va // PAGE * PAGE, va + n, PAGE))
        if va >= KTEXT:
            return self.phys(va - KTEXT + self.phys_base, n)
        if self.page_offset <= va < self.page_offset + (1 << 46):
            return self.phys(va - self.page_offset, n)
        out = b''
        while n:
            chunk = min(n, PAGE - va % PAGE)
            w = self.walk(va)
            if w is None:
                raise ValueError('%s: %#x is not mapped' % (self.path, va))
            out += self.phys(w[0], chunk)
            va += chunk
            n -= chunk
        return out

    def kvar(self, name, fixed):
        if not self.t.has_sym(name):
            return fixed
        return u64(self.read(self.ksym(name), 8))

    def page_va(self, pfn):
        return self.vmemmap + pfn * self.sps

    def pfn_of_page(self, va):
        return (va - self.vmemmap) // self.sps

    def struct_page(self, pfn):
        """The 64 bytes the kernel sees for pfn, through the vmemmap."""
        return self.read(self.page_va(pfn), self.sps)

    def vmemmap_pte(self, pfn):
        """(frame pfn, entry, level) of the vmemmap page holding pfn's struct page."""
        w = self.walk(self.page_va(pfn))
        if w is None:
            return None
        return w[0] // PAGE, w[1], w[2]


# ---------------------------------------------------------------- hugetlb

def hpg_bits(img):
    t = 'enum hugetlb_page_flags'
    return {n: img.t.enum(t, n) for n in
            ('HPG_restore_reserve', 'HPG_migratable', 'HPG_temporary', 'HPG_freed',
             'HPG_vmemmap_optimized', 'HPG_raw_hwp_unreliable')}


def list_entries(img, head_va, link_off):
    """Addresses of the structures on a list_head ring (the ring's own
    head excluded), in list order; a ring that does not close is an error."""
    out, seen = [], set()
    nxt = u64(img.read(head_va, 8))
    while nxt != head_va:
        if nxt in seen or len(out) > 1 << 20:
            raise ValueError('%s: list at %#x does not close' % (img.path, head_va))
        seen.add(nxt)
        out.append(nxt - link_off)
        nxt = u64(img.read(nxt, 8))
    return out


def hstates(img):
    t = img.t
    base = img.ksym('hstates')
    n = int.from_bytes(img.read(img.ksym('hugetlb_max_hstate'), 4), 'little')
    hsz = t.size('struct hstate')
    lru = t.off('struct folio', 'lru')
    out = []
    for i in range(n):
        h = base + i * hsz
        raw = img.read(h, hsz)

        def f(member, size=8):
            o = t.off('struct hstate', member)
            return int.from_bytes(raw[o:o + size], 'little')
        name = raw[t.off('struct hstate', 'name'):].split(b'\0')[0].decode()
        out.append({
            'index': i, 'name': name, 'order': f('order', 4),
            'nr_huge_pages': f('nr_huge_pages'), 'free_huge_pages': f('free_huge_pages'),
            'free': [img.pfn_of_page(a) for a in
                     list_entries(img, h + t.off('struct hstate', 'hugepage_freelists[0]'), lru)],
            'active': [img.pfn_of_page(a) for a in
                       list_entries(img, h + t.off('struct hstate', 'hugepage_activelist'), lru)],
        })
    return out


def vmemmap_map(img, head, nr):
    """The vmemmap pages of struct pages head..head+nr-1: list of
    (frame, rw, dirty, level) per vmemmap page."""
    per = PAGE // img.sps
    out = []
    for k in range(max(1, nr // per)):
        p = img.vmemmap_pte(head + k * per)
        if p is None:
            out.append(None)
            continue
        frame, e, lvl = p
        out.append((frame, bool(e & PTE_RW), bool(e & PTE_DIRTY), lvl))
    return out


def zone_tail_frames(img):
    """7.x: frame pfn -> (zone index, order) of every zone's vmemmap_tails[]
    (mm/hugetlb_vmemmap.c vmemmap_get_tail()); {} on kernels without it."""
    t = img.t
    if not t.has('struct zone', 'vmemmap_tails') or not t.has_sym('contig_page_data'):
        return {}
    pg = img.ksym('contig_page_data')
    zsz = t.size('struct zone')
    zoff = t.off('struct pglist_data', 'node_zones')
    nz = t.prog.type('struct pglist_data').member('node_zones').type.length
    toff = t.off('struct zone', 'vmemmap_tails')
    ntails = t.prog.type('struct zone').member('vmemmap_tails').type.length
    min_order = (2 * PAGE // img.sps).bit_length() - 1     # VMEMMAP_TAIL_MIN_ORDER (mmzone.h)
    out = {}
    for z in range(nz):
        raw = img.read(pg + zoff + z * zsz + toff, 8 * ntails)
        for i in range(ntails):
            p = u64(raw, 8 * i)
            if p:
                out[img.pfn_of_page(p)] = (z, min_order + i)
    return out


def folio_record(img, head, order, where, bits):
    t = img.t
    nr = 1 << order
    pg = img.struct_page(head)
    mc = t.off('struct page', '_mapcount')
    priv = u64(pg, t.off('struct page', 'private'))
    vm = vmemmap_map(img, head, nr)
    rec = {
        'head': head, 'order': order, 'list': where,
        'private': priv,
        'hpg': sorted(n for n, b in bits.items() if priv >> b & 1),
        'page_type': struct.unpack_from('<I', pg, mc)[0],
        'refcount': s32(pg, t.off('struct page', '_refcount')),
        'mapping': u64(pg, t.off('struct page', 'mapping')),
        'head_frame': vm[0][0] if vm[0] else None,
    }
    tails = [v for v in vm[1:] if v]
    frames = {v[0] for v in tails}
    rec['vmemmap_pages'] = len(vm)
    rec['tail_frames'] = len(frames)
    rec['tail_rw'] = sorted({v[1] for v in tails})
    rec['tail_dirty'] = sorted({v[2] for v in tails})
    rec['levels'] = sorted({v[3] for v in vm if v})
    # optimised: vmemmap pages 1..N-1 all map one frame (vmemmap_remap_pte())
    rec['hvo'] = len(vm) > 1 and len(tails) == len(vm) - 1 and len(frames) == 1
    rec['tail_frame'] = next(iter(frames)) if len(frames) == 1 else None
    return rec


def hugetlb(img):
    if not img.t.has_sym('hstates'):
        return [], []       # a kernel without HugeTLB
    bits = hpg_bits(img)
    hs = hstates(img)
    folios = []
    for h in hs:
        for where in ('free', 'active'):
            for head in h[where]:
                folios.append(folio_record(img, head, h['order'], where, bits))
        del h['free'], h['active']
    tails = zone_tail_frames(img)
    users = {}
    for f in folios:
        if f['tail_frame'] is not None:
            users.setdefault(f['tail_frame'], []).append(f['head'])
    for f in folios:
        tf = f['tail_frame']
        f['tail_frame_users'] = len(users.get(tf, ())) if tf is not None else 0
        f['tail_frame_is_head_frame'] = tf is not None and tf == f['head_frame']
        f['tail_frame_zone_order'] = list(tails[tf]) if tf in tails else None
    return hs, folios


def tail_problems(img, f):
    """Tails of folio f that break what prep_compound_tail() /
    init_compound_tail() write and free_tail_page_prepare() checks
    (6.12 mm/internal.h:722, mm/page_alloc.c:969; 7.2 mm/internal.h:893/901,
    mm/page_alloc.c:1087): PG_head clear, the head link, mapping
    TAIL_MAPPING from page[4] on, private 0, _mapcount -1 (no page type),
    _refcount 0.  Read one vmemmap page (64 struct pages) at a time; an
    optimised folio's tail frame is read once (it is every tail page)."""
    t = img.t
    head, nr = f['head'], 1 << f['order']
    per = PAGE // img.sps
    pg_head = t.enum('enum pageflags', 'PG_head')
    pf_mask = (1 << t.enum('enum pageflags', '__NR_PAGEFLAGS')) - 1
    o_map, o_priv = t.off('struct page', 'mapping'), t.off('struct page', 'private')
    o_mc, o_rc = t.off('struct page', '_mapcount'), t.off('struct page', '_refcount')
    hva = img.page_va(head)
    out = []
    # optimised: vmemmap page 1 is the shared frame; on 6.12 that is the
    # head frame itself (struct page 64k reads the head: a "fake head",
    # page_fixed_fake_head()), so only vmemmap page 0 holds tails to check
    last = nr
    if f['hvo']:
        last = per if f['tail_frame_is_head_frame'] else min(nr, 2 * per)
    for k in range(0, last, per):
        raw = img.read(img.page_va(head + k), img.sps * per)
        for j in range(per):
            i = k + j
            if i == 0 or i >= nr:
                continue
            b = raw[j * img.sps:(j + 1) * img.sps]
            why = []
            fl, link = u64(b, 0), u64(b, 8)
            if fl >> pg_head & 1:
                why.append('PG_head')
            elif i >= 4 and fl & pf_mask:
                why.append('page flags %#x' % (fl & pf_mask))
            va = img.page_va(head + i)
            if not link & 1 or (link - 1 != hva and (va & (link & ~1)) != hva):
                why.append('head link %#x' % link)
            if i >= 4:
                if u64(b, o_map) != TAIL_MAPPING:
                    why.append('mapping %#x' % u64(b, o_map))
                if u64(b, o_priv):
                    why.append('private %#x' % u64(b, o_priv))
                if s32(b, o_mc) != -1:
                    why.append('_mapcount %#x' % (s32(b, o_mc) & 0xffffffff))
                if s32(b, o_rc):
                    why.append('_refcount %d' % s32(b, o_rc))
            if why:
                out.append((head + i, why))
    return out


# ---------------------------------------------------------------- memory blocks

def xa_leaves(img, head):
    """(index, entry) of an xarray's leaf entries (lib/xarray.c layout:
    internal entries are (p & 3) == 2, a node pointer is > 4096; value
    entries have bit 0)."""
    t = img.t
    shift_o, slots_o = t.off('struct xa_node', 'shift'), t.off('struct xa_node', 'slots')
    nslots = t.prog.type('struct xa_node').member('slots').type.length
    out = []

    def visit(e, index):
        if e & 3 == 2 and e > 4096:
            node = e - 2
            shift = img.read(node + shift_o, 1)[0]
            raw = img.read(node + slots_o, 8 * nslots)
            for i in range(nslots):
                s = u64(raw, 8 * i)
                if s:
                    visit(s, index + (i << shift))
        elif e & 3 == 0:
            out.append((index, e))
    visit(head, 0)
    return out


def memory_blocks(img):
    t = img.t
    if not t.has_sym('memory_blocks'):
        return []
    xa = img.ksym('memory_blocks')
    head = u64(img.read(xa + t.off('struct xarray', 'xa_head'), 8))
    spb = int.from_bytes(img.read(img.ksym('sections_per_block'), 4), 'little')
    states = {e.value: e.name for e in t.prog.type('enum memory_block_state').enumerators}
    mb = t.size('struct memory_block')
    out = []
    for idx, e in xa_leaves(img, head):
        raw = img.read(e, mb)

        def f(member, size=8):
            o = t.off('struct memory_block', member)
            return int.from_bytes(raw[o:o + size], 'little')
        start = f('start_section_nr') * img.section_pages
        rec = {'id': idx, 'start_pfn': start, 'end_pfn': start + spb * img.section_pages,
               'state': states.get(f('state', 4), f('state', 4)), 'nid': f('nid', 4),
               'altmap': None}
        am = f('altmap')
        if am:
            a = img.read(am, t.size('struct vmem_altmap'))

            def g(member):
                o = t.off('struct vmem_altmap', member)
                return u64(a, o)
            rec['altmap'] = {'base_pfn': g('base_pfn'), 'end_pfn': g('end_pfn'),
                             'reserve': g('reserve'), 'free': g('free'), 'alloc': g('alloc')}
        out.append(rec)
    return out


def altmap_pages(img, blk):
    """Per altmap pfn of an online block: the words memmap_init_range() and
    mhp_init_memmap_on_memory() set (flags' PG_vmemmap_self_hosted,
    _refcount, _mapcount, lru self-pointers)."""
    t = img.t
    a = blk['altmap']
    bit = t.enum('enum pageflags', 'PG_owner_priv_1')
    lru = t.off('struct page', 'lru')
    out = []
    for pfn in range(a['base_pfn'], a['base_pfn'] + a['free']):
        pg = img.struct_page(pfn)
        va = img.page_va(pfn)
        out.append({'pfn': pfn, 'self_hosted': bool(u64(pg) >> bit & 1),
                    'refcount': s32(pg, t.off('struct page', '_refcount')),
                    'mapcount': s32(pg, t.off('struct page', '_mapcount')),
                    'lru_self': u64(pg, lru) == va + lru and u64(pg, lru + 8) == va + lru})
    return out


def listing(img):
    hs, folios = hugetlb(img)
    blocks = memory_blocks(img)
    for b in blocks:
        if b['altmap'] and b['state'] == 'MEM_ONLINE':
            pages = altmap_pages(img, b)
            b['altmap_pages'] = {
                'self_hosted': sum(p['self_hosted'] for p in pages),
                'refcount_1': sum(p['refcount'] == 1 for p in pages),
                'mapcount_-1': sum(p['mapcount'] == -1 for p in pages),
                'lru_self': sum(p['lru_self'] for p in pages), 'total': len(pages)}
    return {'kernel': img.kver, 'vmlinux': img.t.vmlinux, 'dump': img.path,
            'hstates': hs, 'folios': folios, 'memory_blocks': blocks}


def frames_to_keep(img):
    """Every frame a reader of these structures needs: what listing()
    reads (kernel variables, hstates, list links, xa_nodes, memory_blocks,
    altmaps, zones, page tables), and every vmemmap frame of every hugetlb
    folio (the shared tail frames once) and of every hot-plugged block's
    memmap."""
    lst = listing(img)
    per = PAGE // img.sps
    for f in lst['folios']:
        for k in range(max(1, (1 << f['order']) // per)):
            p = img.vmemmap_pte(f['head'] + k * per)
            if p:
                img.touched.add(p[0])
    for b in lst['memory_blocks']:
        if b['altmap']:
            for pfn in range(b['start_pfn'], b['end_pfn'], per):
                p = img.vmemmap_pte(pfn)
                if p:
                    img.touched.add(p[0])
    return img.touched


# ---------------------------------------------------------------- checks

def hotplugged(blocks):
    """pfn ranges of blocks with an altmap (memmap_on_memory)."""
    return [(b['start_pfn'], b['end_pfn']) for b in blocks if b['altmap']]


def in_ranges(pfn, ranges):
    return any(lo <= pfn < hi for lo, hi in ranges)


def check(img, lst):
    """The kernel's rules (research note, doc/ORACLE.md); one line per
    violation."""
    bad = []
    v7 = bool(zone_tail_frames(img)) or img.t.has('struct zone', 'vmemmap_tails')
    hp = hotplugged(lst['memory_blocks'])
    pgty = img.t.enum('enum pagetype', 'PGTY_hugetlb') if img.t.prog.type('enum pagetype') else 0xf4
    for h in lst['hstates']:
        n = sum(1 for f in lst['folios'] if f['order'] == h['order'])
        nf = sum(1 for f in lst['folios'] if f['order'] == h['order'] and f['list'] == 'free')
        if n != h['nr_huge_pages'] or nf != h['free_huge_pages']:
            bad.append('hstate %s: lists hold %d folios (%d free), nr_huge_pages %d free_huge_pages %d'
                       % (h['name'], n, nf, h['nr_huge_pages'], h['free_huge_pages']))
    for f in lst['folios']:
        at = 'folio %#x order %d (%s)' % (f['head'], f['order'], f['list'])
        if f['page_type'] >> 24 != pgty:
            bad.append('%s: page_type %#x, not PGTY_hugetlb (init_new_hugetlb_folio)' % (at, f['page_type']))
        if ('HPG_freed' in f['hpg']) != (f['list'] == 'free'):
            bad.append('%s: HPG_freed %s on the %s list (enqueue/dequeue_hugetlb_folio)'
                       % (at, 'HPG_freed' in f['hpg'], f['list']))
        opt = 'HPG_vmemmap_optimized' in f['hpg']
        if f['vmemmap_pages'] >= 2 and opt != f['hvo']:
            bad.append('%s: HPG_vmemmap_optimized %s but vmemmap %s (hugetlb_vmemmap_optimize_folio)'
                       % (at, opt, 'remapped' if f['hvo'] else 'not remapped (%d tail frames)' % f['tail_frames']))
        if f['hvo']:
            if f['tail_rw'] != [False]:
                bad.append('%s: shared tail vmemmap frame %#x mapped writable (vmemmap_remap_pte: PAGE_KERNEL_RO)'
                           % (at, f['tail_frame']))
            if v7 and f['tail_frame_zone_order'] is None:
                bad.append('%s: tail frame %#x is no zone\'s vmemmap_tails[] (vmemmap_get_tail)' % (at, f['tail_frame']))
            elif v7 and f['tail_frame_zone_order'][1] != f['order']:
                bad.append('%s: tail frame %#x is the zone tail of order %d' % (at, f['tail_frame'], f['tail_frame_zone_order'][1]))
            if not v7 and not f['tail_frame_is_head_frame']:
                bad.append('%s: tail frame %#x is not the head frame %#x (6.12: vmemmap_tail = vmemmap_head)'
                           % (at, f['tail_frame'], f['head_frame']))
        tp = tail_problems(img, f)
        if tp:
            bad.append('%s: %d tails break prep_compound_tail()/free_tail_page_prepare() rules, e.g. %s'
                       % (at, len(tp), '; '.join('%#x: %s' % (p, ', '.join(w)) for p, w in tp[:4])))
        if in_ranges(f['head'], hp) and f['hvo']:
            bad.append('%s: on hot-plugged memory with its memmap on it, yet optimised '
                       '(vmemmap_pmd_entry: PageVmemmapSelfHosted -> -ENOTSUPP)' % at)
    for b in lst['memory_blocks']:
        ap = b.get('altmap_pages')
        if not ap:
            continue
        at = 'memory block %d (pfn %#x-%#x)' % (b['id'], b['start_pfn'], b['end_pfn'])
        if b['altmap']['base_pfn'] != b['start_pfn']:
            bad.append('%s: altmap base %#x, not the block start (create_altmaps_and_memory_blocks)'
                       % (at, b['altmap']['base_pfn']))
        for k, what in (('self_hosted', 'PG_vmemmap_self_hosted (mhp_init_memmap_on_memory)'),
                        ('refcount_1', '_refcount 1 (__init_single_page)'),
                        ('mapcount_-1', '_mapcount -1, no page type (__ClearPageOffline)'),
                        ('lru_self', 'lru self-pointers (__init_single_page)')):
            if ap[k] != ap['total']:
                bad.append('%s: %d of %d altmap pfns lack %s' % (at, ap['total'] - ap[k], ap['total'], what))
    return bad


# ---------------------------------------------------------------- output

def compress(pfns):
    out, run = [], None
    for p in sorted(pfns):
        if run and p == run[1] + 1:
            run[1] = p
        else:
            run = [p, p]
            out.append(run)
    return ['%#x' % a if a == b else '%#x-%#x' % (a, b) for a, b in out]


def text(lst):
    lines = ['kernel %s' % lst['kernel']]
    for h in lst['hstates']:
        lines.append('hstate %s order %d: %d folios, %d free' % (h['name'], h['order'], h['nr_huge_pages'],
                                                              h['free_huge_pages']))
    for f in lst['folios']:
        lines.append('  folio %#x order %2d %-6s hvo %-5s hpg %-45s type %#x ref %d head-frame %s tail-frame %s (%s, users %d%s)'
                     % (f['head'], f['order'], f['list'], f['hvo'], ','.join(h[4:] for h in f['hpg']),
                        f['page_type'], f['refcount'],
                        '%#x' % f['head_frame'] if f['head_frame'] is not None else '-',
                        '%#x' % f['tail_frame'] if f['tail_frame'] is not None else '-',
                        'rw' if f['tail_rw'] == [True] else 'ro' if f['tail_rw'] == [False] else 'n/a',
                        f['tail_frame_users'],
                        ', = head frame' if f['tail_frame_is_head_frame'] else
                        ', zone %d order %d' % tuple(f['tail_frame_zone_order']) if f['tail_frame_zone_order'] else ''))
    for b in lst['memory_blocks']:
        if not b['altmap']:
            continue
        a = b['altmap']
        lines.append('memory block %d pfn %#x-%#x %s altmap pfns %#x-%#x (%d) %s'
                     % (b['id'], b['start_pfn'], b['end_pfn'], b['state'], a['base_pfn'],
                        a['base_pfn'] + a['free'] - 1, a['free'], b.get('altmap_pages', '')))
    boot = [b for b in lst['memory_blocks'] if not b['altmap']]
    lines.append('memory blocks without altmap: %d (%s)' % (len(boot), ', '.join(compress(b['id'] for b in boot))))
    return '\n'.join(lines)


def main(argv):
    fmt = 'json'
    if '-f' in argv:
        i = argv.index('-f')
        fmt = argv[i + 1]
        del argv[i:i + 2]
    if not argv or argv[0] not in ('list', 'check', 'predict', 'diff', 'verify'):
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[0], argv[1:]
    # predict, diff, verify: scripts/oracle/oracle_hvo_predict.py
    from oracle_hvo_predict import diff, predict, verify
    try:
        if cmd in ('list', 'check') and len(args) == 2:
            img = Image(*args)
            lst = listing(img)
            if cmd == 'list':
                print(json.dumps(lst, indent=1) if fmt == 'json' else text(lst))
                return 0
            bad = check(img, lst)
            for b in bad:
                print('VIOLATION', b)
            print('%d folios, %d hot-plugged blocks: %d violations'
                  % (len(lst['folios']), sum(1 for b in lst['memory_blocks'] if b['altmap']), len(bad)))
            return 1 if bad else 0
        if cmd == 'predict' and len(args) == 4:
            img = Image(args[2], args[3])
            print(json.dumps(predict(args[0], args[1], img, listing(img)), indent=1))
            return 0
        if cmd == 'diff' and len(args) == 4:
            a, b = Image(args[0], args[1]), Image(args[2], args[3])
            print(json.dumps(diff(a, listing(a), b, listing(b)), indent=1))
            return 0
        if cmd == 'verify' and len(args) in (6, 7):
            kver, variant = args[0], args[1]
            a, b = Image(args[2], args[3]), Image(args[4], args[5])
            la = listing(a)
            pred = predict(kver, variant, a, la)
            got = diff(a, la, b, listing(b))
            noise = None
            if len(args) == 7:
                c = Image(args[2], args[6])
                noise = diff(a, la, c, listing(c))
            bad = verify(pred, got, noise)
            for x in bad[:40]:
                print('MISMATCH', x)
            print('%s %s: predicted %d struct pages (%d uncertain), %d folio changes; measured %d, %d: %s'
                  % (kver, variant, len(pred['struct_pages']), len(pred['uncertain']), len(pred['folios']),
                     len(got['struct_pages']), len(got['folios']),
                     'agree' if not bad else '%d disagreements' % len(bad)))
            return 1 if bad else 0
    except (ValueError, OSError, LookupError) as e:
        print('oracle hvo: %s' % e, file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
