#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A copy of an uncompressed kdump-compressed dump holding only the frames
memmapcheck and `makedumpfile --dump-dmesg` read.

The committed test dumps are mostly memory no test reads (System RAM's own
mem_map, the kernel heap, page cache).  The copy keeps the header, the
VMCOREINFO and notes and the first bitmap as they are, and rewrites the
second bitmap and the page descriptors so that only these frames are
dumped (scripts/oracle/damage.py's oracle finds them from the saved layout, the
page tables and pgmap_array, not from memmapcheck):

  meta     the kernel variables discovery reads (every symbol the saved
           layout names: vmemmap_base, page_offset_base, vmalloc_base,
           pgmap_array, vmemmap_optimize_enabled, ...), the xa_nodes, the
           dev_pagemaps with their ranges, every page-table page on the way
           to them, to the vmemmap and to _text (the paging-depth probe);
  dax      the device-dax chain: dax_superblock, its inodes, their
           dax_devices, the dev_daxes and their ranges (added after the
           committed trimmed dumps were made: those lack it);
  struct   every vmemmap frame of a ZONE_DEVICE range (also the ones
           holding only altmap-reserved pfns, which a snapshot shows);
  markers  every page holding the string the guest's daxtouch writes into
           the units it maps (tests/landing.t and FINDINGS.md look for it);
  dmesg    the frame of every VMCOREINFO SYMBOL() (makedumpfile reads
           several at open), the printk_ringbuffer prb points to, its
           descriptor, info and text rings;
  hvo      with --hvo VMLINUX (issue 19's images): what scripts/oracle/oracle_hvo.py
           reads of HugeTLB and hot-plugged memory: hstates[] and their
           free/active lists (every folio's list links), the memory_blocks
           xarray, its memory_block and vmem_altmap structs, 7.x zones'
           vmemmap_tails[], every vmemmap frame of every hugetlb folio and
           of every hot-plugged block's memmap, and the page tables to them
           and to every direct-map and kernel-image page the oracle reads
           (types from the vmlinux's DWARF through drgn: /usr/bin/python3).

Every other page is left out the way makedumpfile leaves out a filtered
page (present in the first bitmap, absent from the second), so a reader
sees it as excluded, never as zeros.  Pages are copied byte for byte in
the form the input holds them.

usage: trim-dump.py [--hvo VMLINUX] LAYOUT IN.kdump OUT.kdump   (a summary on stderr)
"""
import os
import struct
import sys

sys.dont_write_bytecode = True     # no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle"))
from damage import PAGE, KDump, Oracle, u64  # noqa: E402

# what scripts/prove/guest/daxtouch.c writes into each unit it maps
MARKER = b'memmapcheck /dev/'
# kdump_sub_header.size_eraseinfo (makedumpfile's diskdump_mod.h): eraseinfo
# sits after the page data, which this copy moves
SUB_SIZE_ERASEINFO = 72


class Keep:
    """The frames to keep, each with why."""

    def __init__(self, d, layout, vmlinux=None):
        self.d = d
        self.o = Oracle(d, layout)
        self.why = {}
        for f, what in self.o.meta.items():
            self.add(f, what)
        for f in self.o.struct:
            self.add(f, 'struct pages')
        for f in self.o.shown:
            self.add(f, 'struct pages (altmap reserve)')
        # the device-dax chain lint's dax-range rule reads (discover_dax.c)
        for f, what in self.o.dax_frames.items():
            self.add(f, 'device-dax chain: ' + what)
        self.more_meta()
        self.dmesg()
        self.markers()
        if vmlinux:
            self.hvo(vmlinux)
        # the page-table pages the walks above went through
        for f, what in self.o.meta.items():
            self.add(f, what)

    def add(self, frame, what):
        self.why.setdefault(frame, what)

    def more_meta(self):
        o = self.o
        # read_bases() reads vmalloc_base beside the two the oracle reads
        if 'vmalloc_base' in o.sym:
            o.kvar('vmalloc_base', 0)
        # decide_levels() translates _text when VMCOREINFO lacks
        # pgtable_l5_enabled; its page-table pages cost little
        if '_text' in o.sym:
            o.translate(o.ksym('_text'), '_text')
        # every kernel variable the saved layout names (discovery reads
        # them, e.g. vmemmap_optimize_enabled for the pools' HVO column)
        for name in sorted(o.sym):
            if name not in ('_text', '_stext', '_end'):
                self.keep_range(o.ksym(name), 8, 'kernel variable ' + name)

    def vread(self, va, n, what):
        """Kernel memory by virtual address, every frame touched kept."""
        o = self.o
        out = b''
        while n:
            chunk = min(n, PAGE - va % PAGE)
            pa = o.translate(va, what)
            if pa is None:
                raise ValueError('%s: %#x (%s) not mapped' % (self.d.path, va, what))
            frame = pa // PAGE
            self.add(frame, what)
            page = self.d.page(frame)
            if page is None:
                raise ValueError('%s: %#x (%s) not in the dump' % (self.d.path, va, what))
            out += page[pa % PAGE:pa % PAGE + chunk]
            va += chunk
            n -= chunk
        return out

    def keep_range(self, va, n, what):
        """Keep the frames of [va, va+n) without needing their contents."""
        end = va + n
        va -= va % PAGE
        while va < end:
            pa = self.o.translate(va, what)
            if pa is not None and pa // PAGE in self.d.index:
                self.add(pa // PAGE, what)
            va += PAGE

    def mem_section(self):
        """makedumpfile checks the sparsemem sections at open: with
        SPARSEMEM_EXTREME, SYMBOL(mem_section) is the array of LENGTH()
        root pointers, each root a page of struct mem_section."""
        vi = self.o.vi
        if 'SYMBOL(mem_section)' not in vi or 'LENGTH(mem_section)' not in vi:
            return
        n = int(vi['LENGTH(mem_section)'])
        roots = self.vread(int(vi['SYMBOL(mem_section)'], 16), 8 * n, 'mem_section roots')
        for i in range(n):
            root = u64(roots, 8 * i)
            if root >> 63:
                self.keep_range(root, PAGE, 'mem_section')

    def hvo(self, vmlinux):
        """HugeTLB folios and hot-plugged memory blocks (oracle_hvo.py)."""
        import oracle_hvo
        img = oracle_hvo.Image(vmlinux, self.d.path)
        for f in oracle_hvo.frames_to_keep(img):
            self.add(f, 'hugetlb/memory blocks')
        # the oracle reads the direct map and the kernel image by
        # arithmetic; memmapcheck translates through the page tables, so
        # every table on the way to each of those pages is kept (the
        # direct map has 4 KiB PTEs below its 2 MiB pages: memory_block
        # objects sit there)
        for va in sorted(img.vpages):
            self.o.translate(va, 'hugetlb/memory blocks')

    def markers(self):
        """The guest's daxtouch (scripts/prove/guest/daxtouch.c) writes
        MARKER at offset 0 of each unit it maps; tests/landing.t and
        FINDINGS.md's transcripts look for every copy in physical memory
        (scripts/oracle/physmem.py), so each page holding one is kept, and the
        next too when the 256 bytes `physmem.py text` reads cross into it."""
        d = self.d
        holders = {}
        for off, size, i in d.by_off:
            holders.setdefault((off, size), []).append(d.pfns[i])
        for (off, size), pfns in holders.items():
            flags = d.desc[d.index[pfns[0]]][2]
            page = d.page(pfns[0]) if flags else d.data[off:off + size]
            at = page.find(MARKER)
            while at >= 0:
                for p in pfns:
                    self.add(p, 'daxtouch marker')
                    if at + 256 > PAGE:
                        self.add(p + 1, 'daxtouch marker')
                at = page.find(MARKER, at + 1)

    def dmesg(self):
        """makedumpfile --dump-dmesg: the SYMBOL()s of VMCOREINFO (it
        looks several up at open) and the lockless printk ring buffer,
        its geometry from VMCOREINFO's OFFSET()s and SIZE()s."""
        vi = self.o.vi
        for key, val in vi.items():
            if key.startswith('SYMBOL('):
                name = key[7:-1]
                size = int(vi.get('SIZE(%s)' % name, '8'))
                size *= int(vi.get('LENGTH(%s)' % name, '1'))
                self.keep_range(int(val, 16), max(size, 8), 'VMCOREINFO ' + key)
        self.mem_section()
        if 'SYMBOL(prb)' not in vi:
            return      # the pre-5.10 log_buf: its SYMBOL()s kept above
        off = lambda k: int(vi['OFFSET(%s)' % k])
        size = lambda k: int(vi['SIZE(%s)' % k])
        prb = u64(self.vread(int(vi['SYMBOL(prb)'], 16), 8, 'prb'), 0)
        rb = self.vread(prb, size('printk_ringbuffer'), 'printk_ringbuffer')
        desc_ring = off('printk_ringbuffer.desc_ring')
        text_ring = off('printk_ringbuffer.text_data_ring')
        count = 1 << u64(rb, desc_ring + off('prb_desc_ring.count_bits')) % (1 << 32)
        descs = u64(rb, desc_ring + off('prb_desc_ring.descs'))
        infos = u64(rb, desc_ring + off('prb_desc_ring.infos'))
        data = u64(rb, text_ring + off('prb_data_ring.data'))
        data_size = 1 << u64(rb, text_ring + off('prb_data_ring.size_bits')) % (1 << 32)
        self.keep_range(descs, count * size('prb_desc'), 'printk descriptors')
        self.keep_range(infos, count * size('printk_info'), 'printk infos')
        self.keep_range(data, data_size, 'printk text')


def write_trimmed(d, frames, out):
    """d with only `frames` dumped: second bitmap and descriptors
    rewritten, page data copied (blocks shared in d stay shared)."""
    if u64(d.data, d.sub_off + SUB_SIZE_ERASEINFO):
        raise ValueError('%s: has eraseinfo after the page data: not handled' % d.path)
    keep = sorted(p for p in frames if p in d.index)
    bm = bytearray(d.bm_size)
    for p in keep:
        bm[p // 8] |= 1 << (p % 8)
    start = d.desc_off + 24 * len(keep)
    blocks, data, descs = {}, bytearray(), []
    for p in keep:
        off, size, flags, pf = d.desc[d.index[p]]
        if (off, size) not in blocks:
            blocks[(off, size)] = start + len(data)
            data += d.data[off:off + size]
        descs.append(struct.pack('<QIIQ', blocks[(off, size)], size, flags, pf))
    tmp = out + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(d.data[:d.bm2_off])
        f.write(bm)
        f.write(d.data[d.bm2_off + d.bm_size:d.desc_off])
        f.write(b''.join(descs))
        f.write(data)
    os.replace(tmp, out)
    return len(keep)


def main():
    args = sys.argv[1:]
    vmlinux = None
    if args[:1] == ['--hvo'] and len(args) > 1:
        vmlinux = args[1]
        args = args[2:]
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    layout, src, out = args
    try:
        d = KDump(src)
        k = Keep(d, layout, vmlinux)
        n = write_trimmed(d, k.why, out)
    except (ValueError, KeyError, LookupError, OSError) as e:
        print('trim-dump.py: %s: %s' % (src, e), file=sys.stderr)
        return 2
    kinds = {}
    for f, what in k.why.items():
        if f in d.index:
            w = what.split(' (')[0].split(' ')[0]
            kinds[w] = kinds.get(w, 0) + 1
    print('%s: kept %d of %d pages (%s); %d -> %d bytes' %
          (os.path.basename(src), n, len(d.pfns),
           ', '.join('%s %d' % kv for kv in sorted(kinds.items())),
           len(d.data), os.path.getsize(out)), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
