#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Damaged copies of a dump, each with the outcome its damage implies.

The expected outcome of every case follows from where the damage lands,
computed here from the dump's own structure and the kernel's, not from
memmapcheck: this file reads the kdump-compressed format itself
(makedumpfile's diskdump_mod.h), parses VMCOREINFO and the saved layout,
walks the kernel's page tables and its pgmap_array xarray, and so knows
which physical frames hold

  meta    kernel structures discovery needs: the kernel variables
          (vmemmap_base, page_offset_base, pgmap_array), xa_nodes,
          dev_pagemaps, every page-table page on the way to them and to
          the vmemmap;
  struct  struct pages of ZONE_DEVICE ranges that a diff compares (frame
          -> the pfns whose struct pages it holds);
  other   everything else.

Damage to format metadata (headers, bitmaps, notes, program headers) must
give exit 2 naming the file; to meta frames exit 2 or 4; to struct frames
"different" or "incomplete" naming only those pfns; to other memory the
clean verdict.  Never a crash, a hang or exit 0 when compared data was hit.

usage:
  damage.py oracle DUMP LAYOUT            the frame classes, as JSON
  damage.py table TSV                     a --table file as a markdown table
  damage.py summary TSV                   the same folded over the dumps (doc/DAMAGE.md)
  damage.py run --memmapcheck M --layout L --dump D --work DIR
                [--forms raw,zlib,flat,elf] [--makedumpfile]
                                          TAP on stdout; one table row per
                                          case with --table FILE
  run ... --valgrind SUPP [--valgrind-cases cheap|all]
                                          each case's snapshot under valgrind
                                          memcheck with suppressions SUPP (cheap:
                                          the format cases and the first of each
                                          form and class; all: every case)
Forms: raw = the dump as committed; zlib = the same pages recompressed
(this script writes it); flat = makedumpfile's flattened format (this
script writes it; --makedumpfile adds one made by makedumpfile -F); elf =
an ELF vmcore of every meta and struct frame and 256 others.
"""
import bisect
import json
import os
import re
import struct
import subprocess
import sys
import time
import zlib

PAGE = 4096
KTEXT = 0xffffffff80000000
DD_COMP = 0x1 | 0x2 | 0x4 | 0x20


def u32(b, o):
    return struct.unpack_from('<I', b, o)[0]


def i32(b, o):
    return struct.unpack_from('<i', b, o)[0]


def u64(b, o):
    return struct.unpack_from('<Q', b, o)[0]


# ---------------------------------------------------------------- the dump

class KDump:
    """A kdump-compressed file: header, bitmaps, descriptors, page data."""

    def __init__(self, path):
        self.path = path
        with open(path, 'rb') as f:
            self.data = f.read()
        d = self.data
        if d[:8] not in (b'KDUMP   ', b'DISKDUMP'):
            raise ValueError('%s: not kdump-compressed' % path)
        self.version = i32(d, 8)
        self.bs = u32(d, 428)
        self.sub_blocks = i32(d, 432)
        self.bitmap_blocks = u32(d, 436)
        self.max_pfn = u32(d, 440)
        self.sub_off = self.bs
        sub = d[self.bs:self.bs + 104]
        if self.version >= 6:
            self.max_pfn = u64(sub, 96)
        self.note_off, self.note_size = u64(sub, 48), u64(sub, 56)
        self.bitmap_off = (1 + self.sub_blocks) * self.bs
        bmsize = self.bitmap_blocks * self.bs
        bm2 = self.bitmap_off
        if self.max_pfn <= bmsize * 8 // 2:
            bmsize = (self.bitmap_blocks // 2) * self.bs
            bm2 = self.bitmap_off + bmsize
        self.bm2_off, self.bm_size = bm2, bmsize
        self.desc_off = (1 + self.sub_blocks + self.bitmap_blocks) * self.bs
        bitmap = d[bm2:bm2 + bmsize]
        end = min(self.max_pfn, bmsize * 8)
        pfns = []
        for byte_i, byte in enumerate(bitmap):
            if not byte:
                continue
            for bit in range(8):
                if byte >> bit & 1:
                    pfn = byte_i * 8 + bit
                    if pfn < end:
                        pfns.append(pfn)
        self.pfns = pfns
        self.index = {p: i for i, p in enumerate(pfns)}
        self.data_start = self.desc_off + 24 * len(pfns)
        table = d[self.desc_off:self.data_start]
        self.desc = list(struct.iter_unpack('<QIIQ', table))
        self.by_off = sorted((off, size, i) for i, (off, size, _f, _p) in enumerate(self.desc))
        self.data_offs = [b[0] for b in self.by_off]
        self.max_block = max((b[1] for b in self.by_off), default=0)

    def desc_pos(self, pfn):
        return self.desc_off + 24 * self.index[pfn]

    def page(self, pfn):
        """Page data, or None when the dump does not hold it."""
        i = self.index.get(pfn)
        if i is None:
            return None
        off, size, flags, _ = self.desc[i]
        raw = self.data[off:off + size]
        if flags & 1:
            return zlib.decompress(raw)
        if flags & DD_COMP:
            raise ValueError('%s: pfn %#x: compression %#x not read here'
                             % (self.path, pfn, flags))
        return raw

    def notes(self):
        n = self.data[self.note_off:self.note_off + self.note_size]
        out, i = {}, 0
        while i + 12 <= len(n):
            nsz, dsz, _t = struct.unpack_from('<III', n, i)
            name = n[i + 12:i + 12 + nsz].rstrip(b'\0')
            j = i + 12 + ((nsz + 3) & ~3)
            out[name] = n[j:j + dsz]
            i = j + ((dsz + 3) & ~3)
        return out


def with_vmcoreinfo(src, dst, edits):
    """A copy of the kdump-compressed dump src whose VMCOREINFO note has
    edits applied ({KEY: new value, or None to drop the line}); the notes
    are rewritten in place (the room before the bitmaps takes the growth)
    and size_note follows.  Returns the new VMCOREINFO text."""
    d = KDump(src)
    n = d.data[d.note_off:d.note_off + d.note_size]
    out, i, text = b'', 0, None
    while i + 12 <= len(n):
        nsz, dsz, typ = struct.unpack_from('<III', n, i)
        name = n[i + 12:i + 12 + ((nsz + 3) & ~3)]
        j = i + 12 + ((nsz + 3) & ~3)
        desc = n[j:j + dsz]
        if name.rstrip(b'\0') == b'VMCOREINFO':
            lines = desc.split(b'\0')[0].decode().splitlines()
            keys = [ln.split('=', 1)[0] for ln in lines]
            for k, v in edits.items():
                if k not in keys:
                    raise ValueError('%s: no %s in VMCOREINFO' % (src, k))
            lines = [ln if ln.split('=', 1)[0] not in edits else
                     (None if edits[ln.split('=', 1)[0]] is None else
                      '%s=%s' % (ln.split('=', 1)[0], edits[ln.split('=', 1)[0]]))
                     for ln in lines]
            text = ''.join(ln + '\n' for ln in lines if ln is not None)
            desc = text.encode()
            dsz = len(desc)
        out += struct.pack('<III', nsz, dsz, typ) + name + desc + b'\0' * ((-dsz) % 4)
        i = j + ((dsz_old := struct.unpack_from('<I', n, i + 4)[0]) + 3 & ~3)
    if text is None or d.note_off + len(out) > d.bitmap_off:
        raise ValueError('%s: VMCOREINFO note not found, or no room for it' % src)
    b = bytearray(d.data)
    b[d.note_off:d.note_off + len(out)] = out
    struct.pack_into('<Q', b, d.sub_off + 56, len(out))
    with open(dst, 'wb') as f:
        f.write(b)
    return text


def read_layout(path):
    members, sizes, syms = {}, {}, {}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if 'missing' in w:
            continue
        if w[0] == 'member' and len(w) == 7:
            members[w[1]] = (int(w[4]), int(w[5]), int(w[6]))
        elif w[0] == 'size':
            sizes[w[1]] = int(w[2])
        elif w[0] == 'symbol':
            syms[w[1]] = int(w[2], 16)
    return members, sizes, syms


# ---------------------------------------------------------------- the oracle

class Oracle:
    """Which frames hold what: a second reading of the kernel image."""

    def __init__(self, dump, layout_path):
        self.d = dump
        self.m, self.size, self.sym = read_layout(layout_path)
        vi = dump.notes()[b'VMCOREINFO'].decode()
        self.vi = dict(line.split('=', 1) for line in vi.splitlines() if '=' in line)
        self.kaslr = int(self.vi.get('KERNELOFFSET', '0'), 16)
        self.phys_base = int(self.vi.get('NUMBER(phys_base)', '0'))
        self.l5 = int(self.vi.get('NUMBER(pgtable_l5_enabled)', '0')) == 1
        self.meta = {}          # frame pfn -> what
        self.struct = {}        # frame pfn -> set of compared pfns
        self.shown = set()      # frames holding only never-compared pfns
        self.all_pfns = {}      # frame -> every struct pfn it holds
        self.top = self.ksym('init_top_pgt') - KTEXT + self.phys_base
        self.page_offset = self.kvar('page_offset_base',
                                     0xff11000000000000 if self.l5 else 0xffff888000000000)
        self.vmemmap = self.kvar('vmemmap_base',
                                 0xffd4000000000000 if self.l5 else 0xffffea0000000000)
        self.sps = self.size['page']
        self.ranges = []
        self.pgmaps = []        # dev_pagemap addresses, as pgmap_array holds them
        self.discover()
        self.vmemmap_frames()
        self.dax = []           # (dev_pagemap address, start pfn, end pfn)
        self.dax_frames = {}    # frame pfn -> what, for the device-dax chain
        self.dax_problem = None
        self.discover_dax()

    def ksym(self, name):
        return self.sym[name] + self.kaslr

    def note(self, pfn, what):
        self.meta.setdefault(pfn, what)

    def phys(self, pa, n, what):
        out = b''
        while n:
            chunk = min(n, PAGE - pa % PAGE)
            self.note(pa // PAGE, what)
            page = self.d.page(pa // PAGE)
            if page is None:
                raise ValueError('%#x (%s) not in the dump' % (pa, what))
            out += page[pa % PAGE:pa % PAGE + chunk]
            pa += chunk
            n -= chunk
        return out

    def translate(self, va, what):
        """Page-table walk; every table page read is meta."""
        table = self.top
        for lvl in range(5 if self.l5 else 4, 0, -1):
            shift = 12 + 9 * (lvl - 1)
            e = u64(self.phys(table + ((va >> shift) & 511) * 8, 8,
                              'page table (%s)' % what), 0)
            if not e & 1:
                return None
            if lvl == 1 or (e & 0x80 and lvl in (2, 3)):
                size = 1 << shift
                return (e & 0x000ffffffffff000 & ~(size - 1)) | (va & (size - 1))
            table = e & 0x000ffffffffff000
        return None

    def kread(self, va, n, what):
        """Kernel text/data and direct map reads, as a kernel would; the
        page tables that map them are meta too (a reader may walk them)."""
        self.translate(va, what)
        if va >= KTEXT:
            return self.phys(va - KTEXT + self.phys_base, n, what)
        return self.phys(va - self.page_offset, n, what)

    def kvar(self, name, fixed):
        if name not in self.sym:
            return fixed
        return u64(self.kread(self.ksym(name), 8, 'kernel variable ' + name), 0)

    def member(self, buf, name, base=0):
        off, size, _count = self.m[name]
        return int.from_bytes(buf[base + off:base + off + size], 'little')

    def xa_walk(self, node_va, out):
        node = self.kread(node_va, self.size['xa_node'], 'xa_node')
        shift = node[self.m['xa_node.shift'][0]]
        slots = self.m['xa_node.slots'][0]
        for i in range(self.m['xa_node.slots'][2]):
            e = u64(node, slots + 8 * i)
            if not e:
                continue
            if e & 3 == 2 and e > 4096:
                if shift:
                    self.xa_walk(e - 2, out)
                continue
            if e & 3 == 2:
                continue        # sibling, retry, zero entries
            if e not in out:
                out.append(e)

    def discover(self):
        xa = self.ksym('pgmap_array')
        head = u64(self.kread(xa + self.m['xarray.xa_head'][0], 8,
                              'pgmap_array'), 0)
        pgmaps = []
        if head & 3 == 2 and head > 4096:
            self.xa_walk(head - 2, pgmaps)
        elif head and head & 3 != 2:
            pgmaps.append(head)
        self.pgmaps = pgmaps
        for pg in pgmaps:
            buf = self.kread(pg, self.size['dev_pagemap'], 'dev_pagemap')
            nr = self.member(buf, 'dev_pagemap.nr_range')
            roff = self.m['dev_pagemap.range'][0]
            alt = self.m['dev_pagemap.altmap'][0]
            base = self.member(buf, 'vmem_altmap.base_pfn', alt)
            reserve = self.member(buf, 'vmem_altmap.reserve', alt)
            free = self.member(buf, 'vmem_altmap.free', alt)
            for r in range(nr):
                rb = self.kread(pg + roff + r * self.size['range'], self.size['range'],
                                'dev_pagemap')
                start = self.member(rb, 'range.start') // PAGE
                end = (self.member(rb, 'range.end') + 1) // PAGE
                # discover.c's reading of pgmap_altmap(): the altmap serves
                # the first range, its reserve pfns are never written
                res = (start, start)
                if r == 0 and base and start <= base < end and base + reserve + free <= end:
                    res = (base, base + reserve)
                self.ranges.append((start, end, res))

    DAX_CHAIN = ('list_head.next', 'super_block.s_inodes', 'inode.i_sb_list',
                 'dax_device.inode', 'dax_device.private', 'dev_dax.dax_dev',
                 'dev_dax.pgmap', 'dev_dax.nr_range', 'dev_dax.ranges',
                 'dev_dax_range.start', 'dev_dax_range.end')

    def discover_dax(self):
        """The device-dax data ranges, by drivers/dax's own chain:
        dax_superblock, every inode on its s_inodes list, the dax_device
        around it, its private dev_dax when that points back, and
        dev_dax->ranges.  Its frames are kept apart from meta: damage to
        them leaves every struct page readable."""
        if any(n not in self.m for n in self.DAX_CHAIN) or \
           'dev_dax_range' not in self.size or 'dax_superblock' not in self.sym:
            self.dax_problem = 'the layout has no device-dax chain'
            return
        meta, self.meta = self.meta, self.dax_frames
        try:
            self._dax_walk()
        except ValueError as e:
            self.dax_problem = str(e)
        finally:
            self.meta = meta

    def _dax_walk(self):
        off = lambda n: self.m[n][0]
        word = lambda va, n, what: int.from_bytes(
            self.kread(va + off(n), self.m[n][1], what), 'little')
        sb = u64(self.kread(self.ksym('dax_superblock'), 8, 'dax_superblock'), 0)
        if not sb:
            return
        head = sb + off('super_block.s_inodes')
        node = word(head, 'list_head.next', 'super_block')
        seen = 0
        while node != head:
            seen += 1
            if seen > 65536:
                raise ValueError('s_inodes list does not come back')
            dax_dev = node - off('inode.i_sb_list') - off('dax_device.inode')
            priv = word(dax_dev, 'dax_device.private', 'dax_device')
            if priv >> 63 and word(priv, 'dev_dax.dax_dev', 'dev_dax') == dax_dev:
                pgmap = word(priv, 'dev_dax.pgmap', 'dev_dax')
                if pgmap in self.pgmaps:
                    nr = word(priv, 'dev_dax.nr_range', 'dev_dax')
                    ranges = word(priv, 'dev_dax.ranges', 'dev_dax')
                    for i in range(nr):
                        ra = ranges + i * self.size['dev_dax_range']
                        start = word(ra, 'dev_dax_range.start', 'dev_dax range')
                        end = word(ra, 'dev_dax_range.end', 'dev_dax range')
                        self.dax.append((pgmap, start // PAGE, (end + 1) // PAGE))
            node = word(node, 'list_head.next', 'inode')
        self.dax.sort(key=lambda t: t[1])

    def vmemmap_frames(self):
        for start, end, (rs, re_) in self.ranges:
            va = (self.vmemmap + start * self.sps) // PAGE * PAGE
            last = self.vmemmap + end * self.sps
            while va < last:
                pa = self.translate(va, 'vmemmap')
                lo = max(start, (va - self.vmemmap) // self.sps)
                hi = min(end, (va + PAGE - self.vmemmap + self.sps - 1) // self.sps)
                if pa is not None:
                    pfns = {p for p in range(lo, hi) if not rs <= p < re_}
                    frame = pa // PAGE
                    self.all_pfns.setdefault(frame, set()).update(range(lo, hi))
                    if pfns:
                        self.struct.setdefault(frame, set()).update(pfns)
                    else:
                        self.shown.add(frame)
                va += PAGE

    def classify(self, frames):
        """(class, compared pfns) of a set of damaged frames."""
        frames = set(frames)
        if frames & set(self.meta):
            return 'meta', set()
        pfns = set()
        for f in frames & set(self.struct):
            pfns |= self.struct[f]
        return ('struct', pfns) if pfns else ('other', set())

    def reach(self, frames):
        """Every struct pfn held by the frames, compared or not."""
        out = set()
        for f in set(frames) & (set(self.struct) | self.shown):
            out |= self.all_pfns[f]
        return out

    def as_json(self):
        return {'meta': {hex(k): v for k, v in sorted(self.meta.items())},
                'struct_frames': len(self.struct),
                'struct_pfns': sum(len(v) for v in self.struct.values()),
                'ranges': [(hex(a), hex(b)) for a, b, _ in self.ranges]}


# ---------------------------------------------------------------- forms

def write_zlib(d, out):
    """The same dump with every page zlib-compressed where that saves room
    (what makedumpfile -c does); identical blocks stay shared."""
    blocks, data = {}, bytearray()
    start = d.data_start
    descs = []
    for off, size, flags, pf in d.desc:
        key = (off, size)
        if key not in blocks:
            raw = d.data[off:off + size]
            c = zlib.compress(raw, 1)
            if len(c) < size:
                blocks[key] = (start + len(data), len(c), 1)
                data += c
            else:
                blocks[key] = (start + len(data), size, 0)
                data += raw
        o, s, f = blocks[key]
        descs.append(struct.pack('<QIIQ', o, s, f, pf))
    with open(out, 'wb') as f:
        f.write(d.data[:d.desc_off])
        f.write(b''.join(descs))
        f.write(data)


def write_flat(src, out, seg=1 << 16):
    """makedumpfile's flattened format (makedumpfile.h): a 4096-byte
    header, then {be64 offset, be64 size, data} segments, then {-1, -1}."""
    data = open(src, 'rb').read()
    segs = []
    with open(out, 'wb') as f:
        hdr = b'makedumpfile'.ljust(16, b'\0') + struct.pack('>qq', 1, 1)
        f.write(hdr.ljust(4096, b'\0'))
        for o in range(0, len(data), seg):
            n = min(seg, len(data) - o)
            segs.append((f.tell(), o, n))
            f.write(struct.pack('>qq', o, n))
            f.write(data[o:o + n])
        f.write(struct.pack('>qq', -1, -1))
    return segs


def read_flat(path):
    """(position of the segment header, offset, size) of every segment."""
    data = open(path, 'rb').read()
    pos, segs = 4096, []
    while pos + 16 <= len(data):
        off, size = struct.unpack_from('>qq', data, pos)
        if off == -1:
            break
        segs.append((pos, off, size))
        pos += 16 + size
    return segs


def write_elf(d, oracle, out):
    """An ELF vmcore (what /proc/vmcore or QEMU write): the kdump's notes,
    then one PT_LOAD per run of consecutive pages, holding every meta and
    struct frame and 256 other pages.  Returns [(phdr offset, first pfn,
    npages)]."""
    keep = set(oracle.meta) | set(oracle.struct) | oracle.shown
    others = [p for p in d.pfns if p not in keep][::max(1, len(d.pfns) // 256)][:256]
    keep |= set(others)
    pfns = sorted(p for p in keep if p in d.index)
    runs = []
    for p in pfns:
        if runs and runs[-1][0] + runs[-1][1] == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    note = d.data[d.note_off:d.note_off + d.note_size]
    nph = 1 + len(runs)
    phoff = 64
    noteoff = phoff + 56 * nph
    dataoff = (noteoff + len(note) + PAGE - 1) // PAGE * PAGE
    ehdr = (b'\x7fELF\x02\x01\x01' + b'\0' * 9 +
            struct.pack('<HHIQQQIHHHHHH', 4, 62, 1, 0, phoff, 0, 0, 64, 56, nph, 64, 0, 0))
    phdrs = [struct.pack('<IIQQQQQQ', 4, 0, noteoff, 0, 0, len(note), len(note), 1)]
    table, off = [], dataoff
    for i, (p, n) in enumerate(runs):
        phdrs.append(struct.pack('<IIQQQQQQ', 1, 7, off, 0, p * PAGE, n * PAGE, n * PAGE, PAGE))
        table.append((phoff + 56 * (i + 1), p, n, off))
        off += n * PAGE
    with open(out, 'wb') as f:
        f.write(ehdr + b''.join(phdrs) + note)
        f.write(b'\0' * (dataoff - f.tell()))
        for p, n in runs:
            for q in range(p, p + n):
                f.write(d.page(q))
    return table, dataoff, off


# ---------------------------------------------------------------- cases

class Case:
    """pfns: the compared pfns whose struct pages the damage reaches; all
    the struct pfns it reaches, never-compared ones too, may be unread."""

    def __init__(self, name, form, path, cls, pfns=(), note='', reach=None, says=None):
        self.name, self.form, self.path = name, form, path
        self.cls, self.pfns, self.note = cls, set(pfns), note
        self.reach = set(reach) if reach is not None else set(pfns)
        # a struct case whose pages must come out unreadable (never read
        # from one of two claims), with a warning holding this text
        self.says = says


def copy_with(src, dst, edits=(), cut=None):
    """A copy of src (its first `cut` bytes) with bytes replaced."""
    size = os.path.getsize(src) if cut is None else cut
    with open(src, 'rb') as i, open(dst, 'wb') as o:
        done = 0
        while done < size:
            done += os.sendfile(o.fileno(), i.fileno(), done, size - done)
        for off, new in edits:
            os.pwrite(o.fileno(), new, off)


def frames_hit_kdump(d, lo, hi, cut=False):
    """pfns whose descriptor or data lies in [lo, hi) (cut: or beyond)."""
    if cut:
        hi = 1 << 64
    hit = set()
    first = max(0, (lo - d.desc_off) // 24)
    last = min(len(d.desc), max(0, (hi - d.desc_off + 23) // 24))
    hit.update(d.pfns[first:last])
    # data blocks starting before hi and ending after lo
    j = bisect.bisect_left(d.data_offs, lo - d.max_block)
    while j < len(d.data_offs) and d.data_offs[j] < hi:
        off, size, i = d.by_off[j]
        if off + size > lo:
            hit.add(d.pfns[i])
        j += 1
    return hit


def pick(d, oracle, cls, avoid_shared=True):
    """A dumped pfn of a class whose data block is its own and not zeros."""
    count = {}
    for off, size, _f, _pf in d.desc:
        count[off] = count.get(off, 0) + 1
    if cls == 'meta':
        order = sorted(oracle.meta, key=lambda p: ('page table' in oracle.meta[p], p))
    elif cls == 'struct':
        order = sorted(oracle.struct, key=lambda p: (len(oracle.struct[p]), p))
    else:
        busy = set(oracle.meta) | set(oracle.struct) | oracle.shown
        order = [p for p in d.pfns if p not in busy][len(d.pfns) // 3:]
    for p in order:
        i = d.index.get(p)
        if i is None:
            continue
        off, size, _f, _pf = d.desc[i]
        if avoid_shared and count[off] > 1:
            continue
        if any(d.data[off:off + size]):
            return p
    return None


def meta_pick(d, oracle, kind):
    for p in sorted(oracle.meta):
        if kind in oracle.meta[p] and p in d.index:
            off, size, _f, _pf = d.desc[d.index[p]]
            if any(d.data[off:off + size]):
                return p
    return None


def kdump_cases(d, oracle, src, form, work):
    """Damage a kdump-compressed form: headers, descriptors, data, cuts."""
    cases, size = [], len(d.data)
    tag = lambda n: os.path.join(work, '%s-%s.kdump' % (form, n))

    def cut_case(name, at, why):
        path = tag(name)
        copy_with(src, path, cut=at)
        if at < d.data_start and at < d.desc_off:
            cases.append(Case(name, form, path, 'format', note=why))
            return
        hit = frames_hit_kdump(d, at, None, cut=True)
        cls, pfns = oracle.classify(hit)
        cases.append(Case(name, form, path, cls, pfns, why, oracle.reach(hit)))

    # truncations: headers, bitmaps, descriptor table, page data, last byte
    cut_case('cut-header', 300, 'in the disk_dump_header')
    cut_case('cut-subheader', d.bs + 40, 'in the kdump_sub_header')
    cut_case('cut-bitmap', d.bitmap_off + (d.desc_off - d.bitmap_off) // 2, 'in the page bitmaps')
    cut_case('cut-desc-start', d.desc_off + 24 * 10 + 5, 'in the 11th page descriptor')
    cut_case('cut-desc-mid', (d.desc_off + d.data_start) // 2, 'in the middle of the descriptor table')
    cut_case('cut-desc-end', d.data_start - 7, 'in the last page descriptor')
    for pct in (25, 50, 75, 90):
        cut_case('cut-data-%d' % pct, d.data_start + (size - d.data_start) * pct // 100,
                 '%d%% into the page data' % pct)
    cut_case('cut-last-byte', size - 1, 'the last byte')
    # the cut just after the last byte any struct frame needs, and just before
    last_struct = max((d.desc[d.index[p]][0] + d.desc[d.index[p]][1])
                      for p in oracle.struct if p in d.index)
    if last_struct < size:
        cut_case('cut-after-struct', last_struct, 'just after the last struct page data')
    cut_case('cut-in-struct', last_struct - 100, 'inside the last struct page data')

    # header fields
    path = tag('zero-signature')
    copy_with(src, path, [(0, b'\0' * 8)])
    cases.append(Case('zero-signature', form, path, 'format', note='signature zeroed'))
    path = tag('flip-block-size')
    copy_with(src, path, [(428, struct.pack('<I', d.bs ^ 0x1000))])
    cases.append(Case('flip-block-size', form, path, 'format', note='block_size flipped'))
    path = tag('zero-bitmap-blocks')
    copy_with(src, path, [(436, b'\0' * 4)])
    cases.append(Case('zero-bitmap-blocks', form, path, 'format', note='bitmap_blocks zeroed'))

    # page descriptors and page data of a frame of each class
    for cls in ('struct', 'meta', 'other'):
        p = pick(d, oracle, cls)
        if p is None:
            continue
        i = d.index[p]
        dpos = d.desc_pos(p)
        off, sz, _f, _pf = d.desc[i]
        want = oracle.classify({p}) + ('', oracle.reach({p}))
        path = tag('zero-desc-%s' % cls)
        copy_with(src, path, [(dpos, b'\0' * 24)])
        cases.append(Case('zero-desc-%s' % cls, form, path, want[0], want[1],
                          'descriptor of pfn %#x zeroed' % p, want[3]))
        # a shorter size: raw data is then not a page, compressed data
        # is cut (a longer one would still decompress)
        path = tag('flip-desc-size-%s' % cls)
        copy_with(src, path, [(dpos + 8, struct.pack('<I', sz - 64 if sz > 64 else sz // 2))])
        cases.append(Case('flip-desc-size-%s' % cls, form, path, want[0], want[1],
                          'size of pfn %#x flipped' % p, want[3]))
        # page_flags (the 4th field) is not read by libkdumpfile
        path = tag('flip-desc-pageflags-%s' % cls)
        copy_with(src, path, [(dpos + 16, b'\xff' * 8)])
        cases.append(Case('flip-desc-pageflags-%s' % cls, form, path, 'other',
                          note='unused page_flags of pfn %#x flipped' % p))
        orig = d.data[off:off + sz]
        path = tag('zero-data-%s' % cls)
        copy_with(src, path, [(off, b'\0' * sz)])
        cases.append(Case('zero-data-%s' % cls, form, path, want[0], want[1],
                          'data of pfn %#x zeroed' % p, want[3]))
        flip = bytes(b ^ 0xff for b in orig[sz // 2:sz // 2 + 16])
        path = tag('flip-data-%s' % cls)
        copy_with(src, path, [(off + sz // 2, flip)])
        if cls == 'meta' and not d.desc[i][2] & DD_COMP:
            # 16 raw bytes of a kernel structure may be ones nobody reads
            want2 = ('meta-or-clean', set(), '', set())
        else:
            want2 = want
        cases.append(Case('flip-data-%s' % cls, form, path, want2[0], want2[1],
                          '16 bytes of pfn %#x data flipped (%s)' %
                          (p, 'compressed' if d.desc[i][2] else 'raw'), want2[3]))
    # the kernel structures one by one: zeroed, each must stop discovery
    for kind in ('xa_node', 'dev_pagemap', 'page table (vmemmap)', 'kernel variable vmemmap_base'):
        p = meta_pick(d, oracle, kind)
        if p is None:
            continue
        off, sz, _f, _pf = d.desc[d.index[p]]
        name = 'zero-%s' % kind.replace(' ', '-').replace('(', '').replace(')', '')
        path = tag(name)
        copy_with(src, path, [(off, b'\0' * sz)])
        cases.append(Case(name, form, path, 'meta', note='%s frame %#x zeroed' % (kind, p)))
    return cases


def flat_cases(d, oracle, flat, segs, form, work):
    """Drop one segment (its bytes become a hole in the reassembled dump),
    or end the stream early."""
    cases = []
    data = open(flat, 'rb').read()
    tag = lambda n: os.path.join(work, '%s-%s.flat' % (form, n))
    by_class = {}
    for pos, off, size in segs:
        if off < d.desc_off:
            continue
        hit = frames_hit_kdump(d, off, off + size)
        cls, pfns = oracle.classify(hit)
        if cls not in by_class or (cls == 'struct' and len(pfns) < len(by_class[cls][3])):
            by_class[cls] = (pos, off, size, pfns, oracle.reach(hit))
    for cls, (pos, off, size, pfns, reach) in sorted(by_class.items()):
        path = tag('drop-segment-%s' % cls)
        with open(path, 'wb') as f:
            f.write(data[:pos] + data[pos + 16 + size:])
        cases.append(Case('drop-segment-%s' % cls, form, path, cls, pfns,
                          'segment for dump bytes %d-%d left out' % (off, off + size), reach))
    # the stream cut in a segment near the end: everything after is a hole
    pos, off, size = segs[len(segs) * 9 // 10]
    path = tag('cut-stream')
    with open(path, 'wb') as f:
        f.write(data[:pos + 16 + size // 2])
    hit = frames_hit_kdump(d, off + size // 2, None, cut=True)
    cls, pfns = oracle.classify(hit)
    cases.append(Case('cut-stream', form, path, cls, pfns, 'stream cut in a segment',
                      oracle.reach(hit)))
    path = tag('no-end-marker')
    with open(path, 'wb') as f:
        f.write(data[:-16])
    cases.append(Case('no-end-marker', form, path, 'other', note='end marker missing'))
    path = tag('bad-segment-header')
    pos = segs[len(segs) // 2][0]
    with open(path, 'wb') as f:
        f.write(data[:pos] + struct.pack('>qq', -5, 16) + data[pos + 16:])
    cases.append(Case('bad-segment-header', form, path, 'format',
                      note='segment header with a negative offset'))
    return cases


def elf_cases(d, oracle, elf, table, dataoff, end, work):
    cases = []
    tag = lambda n: os.path.join(work, 'elf-%s.elf' % n)
    data = open(elf, 'rb').read()

    def seg_frames(p, n):
        return set(range(p, p + n))

    def cut(name, at, why):
        path = tag(name)
        with open(path, 'wb') as f:
            f.write(data[:at])
        if at < dataoff:
            cases.append(Case(name, 'elf', path, 'format', note=why))
            return
        hit = set()
        for _ph, p, n, off in table:
            if off + n * PAGE > at:
                first = max(0, (at - off) // PAGE)
                hit |= set(range(p + first, p + n))
        cls, pfns = oracle.classify(hit)
        cases.append(Case(name, 'elf', path, cls, pfns, why, oracle.reach(hit)))

    cut('cut-phdrs', 64 + 56 * 2 + 10, 'in the program headers')
    cut('cut-notes', 64 + 56 * (1 + len(table)) + 100, 'in the notes')
    cut('cut-data-50', dataoff + (end - dataoff) // 2, 'half way into the data')
    cut('cut-last-byte', end - 1, 'the last byte')
    best = {}
    for ph, p, n, off in table:
        cls, pfns = oracle.classify(seg_frames(p, n))
        if cls not in best or (cls == 'struct' and len(pfns) < len(best[cls][2])):
            best[cls] = (ph, p, pfns, n, oracle.reach(seg_frames(p, n)))
    # the segment table against itself (mem_extent_elf.c): outcomes from the
    # ELF's own program headers
    phdr = lambda ph: list(struct.unpack_from('<IIQQQQQQ', data, ph))

    def edited(name, edits, cls, pfns, why, reach, says=None):
        b = bytearray(data)
        for ph, f in edits:
            struct.pack_into('<IIQQQQQQ', b, ph, *f)
        path = tag(name)
        with open(path, 'wb') as f:
            f.write(b)
        cases.append(Case(name, 'elf', path, cls, pfns, why, reach, says))
    others = [t for t in table if oracle.classify(seg_frames(t[1], t[2]))[0] == 'other']
    structs = sorted((t for t in table
                      if oracle.classify(seg_frames(t[1], t[2]))[0] == 'struct'),
                     key=lambda t: t[2])
    if others and structs:
        oph, op, on, _oo = others[0]
        sph, sp, sn, soff = structs[0]
        # one page of an 'other' segment moved onto the first struct frame:
        # the same physical page twice with different bytes (the other
        # page's own frame is then in no segment: 'other' too)
        f = phdr(oph)
        f[4], f[5], f[6] = sp * PAGE, PAGE, PAGE
        hit = {sp} | seg_frames(op, on)
        cls, pfns = oracle.classify(hit)
        edited('alias-differ-struct', [(oph, f)], cls, pfns,
               'PT_LOAD of pfn %#x moved onto struct frame %#x: two contents' % (op, sp),
               oracle.reach(hit), 'map the same physical memory with different contents')
        # the same page mapped again by a copy of the struct segment's own
        # header: same bytes, nothing lost but the other page
        f = phdr(sph)
        hit = seg_frames(op, on)
        cls, pfns = oracle.classify(hit)
        edited('alias-same', [(oph, f)], cls, pfns,
               'PT_LOAD of pfn %#x replaced by a copy of the one of %#x: same bytes' % (op, sp),
               oracle.reach(hit))
        # the struct segment's data pointed at the ELF headers
        f = phdr(sph)
        f[2] = 0
        hit = seg_frames(sp, sn)
        cls, pfns = oracle.classify(hit)
        edited('load-in-headers', [(sph, f)], cls, pfns,
               'PT_LOAD of pfns %#x-%#x pointed at file offset 0' % (sp, sp + sn - 1),
               oracle.reach(hit), 'lies in the ELF header')
        # the struct segment 8 bytes up: not page-aligned, every page
        # shifted, the first 8 bytes in no segment
        f = phdr(sph)
        f[4] += 8
        hit = seg_frames(sp, sn + 1)
        cls, pfns = oracle.classify(hit)
        edited('load-misaligned', [(sph, f)], cls, pfns,
               'PT_LOAD of pfns %#x-%#x moved up 8 bytes' % (sp, sp + sn - 1),
               oracle.reach(hit), 'only partly inside the PT_LOAD segments')
    for cls, (ph, p, pfns, n, reach) in sorted(best.items()):
        path = tag('drop-load-%s' % cls)
        b = bytearray(data)
        b[ph:ph + 4] = struct.pack('<I', 0)     # PT_NULL
        with open(path, 'wb') as f:
            f.write(b)
        cases.append(Case('drop-load-%s' % cls, 'elf', path, cls, pfns,
                          'PT_LOAD of pfns %#x-%#x dropped' % (p, p + n - 1), reach))
    return cases


# ---------------------------------------------------------------- checking

# Sanitized builds: errors and leaks must not look like exit 1 (different).
SAN_ENV = dict(os.environ)
SAN_ENV['ASAN_OPTIONS'] = 'exitcode=86:' + os.environ.get('ASAN_OPTIONS', '')
SAN_ENV['LSAN_OPTIONS'] = 'exitcode=87:suppressions=%s:%s' % (
    os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                 'tests', 'lsan.supp'), os.environ.get('LSAN_OPTIONS', ''))


def run(cmd, timeout=300):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=SAN_ENV)
        return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        return 'timeout', '', ''


def unread_pfns(m, snap):
    rc, out, _ = run([m, 'show', '--json', snap])
    got = set()
    if rc not in (0, 4):
        return None
    for r in json.loads(out)['ranges']:
        for run_ in r['runs']:
            if run_['state'] in ('unreadable', 'unmapped'):
                got.update(range(run_['first_pfn'], run_['last_pfn'] + 1))
    return got


# run --valgrind SUPP: the snapshot of each chosen case runs under valgrind
# memcheck (exit 99 on any error it does not suppress)
VALGRIND = []


def check(m, layout, base_snap, c, work, unread0, valgrind=False):
    """(ok, outcome text, why not); unread0: pfns unread undamaged"""
    snap = c.path + '.snap'
    # not -q: the summary names the file and what could not be read
    rc, _o, err = run((VALGRIND if valgrind else []) +
                      [m, 'snapshot', '-o', snap, layout, c.path],
                      timeout=1800 if valgrind else 300)
    crash = rc not in (0, 1, 2, 3, 4) or 'Sanitizer' in err or 'runtime error' in err or \
        'Invalid read' in err or 'Invalid write' in err
    if crash:
        return False, 'rc %s' % rc, 'crashed or hung: ' + err[-300:]
    named = os.path.basename(c.path) in err
    # where in the file or the kernel: an offset, an address or a size
    located = bool(re.search(r'offset \d|0x[0-9a-f]+|\d+ bytes|needs? \d', err))
    if rc in (2, 3) or (rc == 4 and not os.path.exists(snap)):
        outcome = 'exit %d' % rc
        if c.cls in ('format', 'meta', 'meta-or-clean'):
            good = named and located
            return good, outcome, '' if good else \
                'message does not name the file and where: ' + err.strip()[-200:]
        return False, outcome, 'refused: ' + err.strip()[-300:]
    drc, dout, derr = run([m, 'diff', '--json', base_snap, snap])
    if drc not in (0, 1, 4):
        return False, 'diff rc %s' % drc, derr[-300:]
    verdict = json.loads(dout)['verdict']
    outcome = '%s (snapshot %d)' % (verdict, rc)
    if c.cls == 'format':
        return False, outcome, 'format damage not refused'
    if c.cls == 'other':
        good = rc == 0 and drc == 0
        return good, outcome, '' if good else 'expected the clean verdict'
    if c.cls == 'meta-or-clean':
        good = drc != 0 or rc == 0
        return good, outcome, ''
    if c.cls == 'meta':
        # written with exit 4: the snapshot itself says what is missing,
        # and the warning names the file
        good = rc == 4 and drc != 0 and named
        return good, outcome, '' if good else \
            'expected exit 2 or 4 naming the file: ' + err.strip()[-200:]
    if c.says is not None:
        # two claims on one page: unreadable and said, never one of them
        got = unread_pfns(m, snap) or set()
        got -= unread0
        good = rc == 4 and bool(got) and got <= c.reach and c.says in err and named
        return good, outcome + ' %d pfns unread' % len(got), '' if good else \
            'expected exit 4, only the damaged pfns unreadable and "%s": %s' % (c.says, err.strip()[-300:])
    # struct: different or incomplete, naming only those pfns
    if drc == 0:
        return False, outcome, 'identical although compared struct pages were damaged'
    got = unread_pfns(m, snap)
    if rc == 4 and got - unread0:
        got -= unread0
        good = got <= c.reach
        return good, outcome + ' %d pfns unread' % len(got), \
            '' if good else 'unreadable pfns not the damaged ones'
    groups = json.loads(dout)['groups']
    good = bool(groups) and all(g['first_pfn'] in c.pfns and g['last_pfn'] in c.pfns
                                for g in groups)
    n = json.loads(dout)['pages_differing']
    good = good and n <= len(c.pfns)
    return good, outcome + ' %d pfns differ' % n, '' if good else 'differing pfns not the damaged ones'


def print_table(tsv):
    """The rows of --table as a markdown table: one row per damage case,
    one column per dump; a cell is the outcome (2/3/4: exit code without a
    snapshot; id/diff/inc: the diff against the undamaged snapshot) and
    !! where it was not the expected one."""
    cells, dumps, cases = {}, [], []
    for line in open(tsv):
        dump, case, cls, outcome, ok = line.rstrip('\n').split('\t')
        if dump not in dumps:
            dumps.append(dump)
        if (case, cls) not in cases:
            cases.append((case, cls))
        short = ('id' if outcome.startswith('identical') else
                 'diff' if outcome.startswith('different') else
                 'inc' if outcome.startswith('incomplete') else
                 outcome.split()[1] if outcome.startswith('exit') else outcome.split()[0])
        cells[(case, cls, dump)] = short + ('' if ok == 'ok' else ' !!')
    out = ['| case | class | ' + ' | '.join(dumps) + ' |',
           '| --- | --- |' + ' --- |' * len(dumps)]
    for case, cls in cases:
        out.append('| %s | %s | ' % (case, cls) +
                   ' | '.join(cells.get((case, cls, d), '-') for d in dumps) + ' |')
    print('\n'.join(out))
    return 0


def print_summary(tsv):
    """The rows of --table folded over the dumps: one row per damage case,
    with how many dumps had it, each outcome and how often, and the cases
    whose outcome was not the expected one."""
    rows = {}
    for line in open(tsv):
        dump, case, cls, outcome, ok = line.rstrip('\n').split('\t')
        short = ('identical' if outcome.startswith('identical') else
                 'different' if outcome.startswith('different') else
                 'incomplete' if outcome.startswith('incomplete') else
                 'exit ' + outcome.split()[1] if outcome.startswith('exit') else outcome.split()[0])
        r = rows.setdefault((case, cls), {'dumps': 0, 'out': {}, 'bad': 0})
        r['dumps'] += 1
        r['out'][short] = r['out'].get(short, 0) + 1
        r['bad'] += ok != 'ok'
    out = ['| case | class | dumps | outcomes | wrong |', '| --- | --- | --- | --- | --- |']
    for (case, cls), r in rows.items():
        out.append('| %s | %s | %d | %s | %d |' % (
            case, cls, r['dumps'],
            ', '.join('%s %d' % kv for kv in sorted(r['out'].items())), r['bad']))
    print('\n'.join(out))
    return 0


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == 'table':
        return print_table(args[1])
    if len(args) == 2 and args[0] == 'summary':
        return print_summary(args[1])
    if len(args) == 3 and args[0] == 'oracle':
        o = Oracle(KDump(args[1]), args[2])
        json.dump(o.as_json(), sys.stdout, indent=1)
        return 0
    opts = {'--forms': 'raw,zlib,flat,elf'}
    flags = set()
    i = 1
    if not args or args[0] != 'run':
        print(__doc__, file=sys.stderr)
        return 2
    while i < len(args):
        if args[i] in ('--makedumpfile',):
            flags.add(args[i])
            i += 1
        else:
            opts[args[i]] = args[i + 1]
            i += 2
    m, layout, dump, work = (opts['--memmapcheck'], opts['--layout'], opts['--dump'],
                             opts['--work'])
    name = os.path.basename(dump).rsplit('.', 1)[0]
    forms = opts['--forms'].split(',')
    os.makedirs(work, exist_ok=True)
    d = KDump(dump)
    o = Oracle(d, layout)
    print('# %s: %d ranges, %d struct frames (%d pfns), %d meta frames' %
          (name, len(o.ranges), len(o.struct), sum(len(v) for v in o.struct.values()),
           len(o.meta)))
    base = os.path.join(work, 'base.snap')
    rc, _o, err = run([m, 'snapshot', '-q', '-o', base, layout, dump])
    results = []
    n = 0

    def report(ok, text):
        nonlocal n
        n += 1
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, text))
        sys.stdout.flush()

    report(rc in (0, 4), '%s: snapshot of the undamaged dump (exit %s)' % (name, rc))
    undamaged_rc = rc
    unread0 = unread_pfns(m, base) or set()
    cases = []
    if 'raw' in forms:
        cases += kdump_cases(d, o, dump, 'raw', work)
    if 'zlib' in forms:
        z = os.path.join(work, 'zlib.kdump')
        write_zlib(d, z)
        cases.append(Case('undamaged', 'zlib', z, 'other'))
        cases += kdump_cases(KDump(z), o, z, 'zlib', work)
    if 'flat' in forms:
        fl = os.path.join(work, 'dump.flat')
        segs = write_flat(dump, fl)
        cases.append(Case('undamaged', 'flat', fl, 'other'))
        cases += flat_cases(d, o, fl, segs, 'flat', work)
        if '--makedumpfile' in flags:
            mf = os.path.join(work, 'makedumpfile.flat')
            with open(mf, 'wb') as out:
                p = subprocess.run(['makedumpfile', '-F', '-d', '0', dump],
                                   stdout=out, stderr=subprocess.DEVNULL)
            if p.returncode == 0:
                cases.append(Case('undamaged', 'makedumpfile -F', mf, 'other'))
                cases += flat_cases(d, o, mf, read_flat(mf), 'makedumpfile-F', work)
    if 'elf' in forms:
        e = os.path.join(work, 'dump.elf')
        table, dataoff, end = write_elf(d, o, e)
        cases.append(Case('undamaged', 'elf', e, 'other'))
        cases += elf_cases(d, o, e, table, dataoff, end, work)
    if '--valgrind' in opts:
        VALGRIND[:] = ['valgrind', '-q', '--error-exitcode=99',
                       '--suppressions=' + opts['--valgrind']]
    vg_all = opts.get('--valgrind-cases', 'cheap') == 'all'
    seen_kinds = set()
    for c in cases:
        t0 = time.time()
        # cheap: every case refused for its format (fast under valgrind)
        # and the first of each form and class
        kind = (c.form, c.cls)
        vg = bool(VALGRIND) and (vg_all or c.cls == 'format' or kind not in seen_kinds)
        seen_kinds.add(kind)
        ok, outcome, why = check(m, layout, base, c, work, unread0, valgrind=vg)
        outcome += ' %.1fs%s' % (time.time() - t0, ' valgrind' if vg else '')
        if undamaged_rc == 4 and c.cls == 'other':
            # an image that is incomplete undamaged stays so
            ok = ok or outcome.startswith('incomplete')
        report(ok, '%s: %s %s [%s%s]: %s%s' % (name, c.form, c.name, c.cls,
                                                ' %d pfns' % len(c.pfns) if c.pfns else '',
                                                c.note, outcome and ' -> ' + outcome))
        if not ok:
            print('# ' + why.replace('\n', '\n# '))
        results.append((c.form + ' ' + c.name, c.cls, outcome, ok))
        for f in (c.path, c.path + '.snap'):
            if f.startswith(work) and os.path.exists(f) and c.name != 'undamaged':
                os.unlink(f)
    print('1..%d' % n)
    if '--table' in opts:
        with open(opts['--table'], 'a') as t:
            for row in results:
                t.write('%s\t%s\t%s\t%s\t%s\n' % (name, row[0], row[1], row[2],
                                                  'ok' if row[3] else 'WRONG'))
    return 0 if all(r[3] for r in results) else 1


if __name__ == '__main__':
    sys.exit(main())
