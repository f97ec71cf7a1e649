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
  run ... --cache DIR                     keep makedumpfile -F's output in DIR
                                          (named by the dump's sha256)
  run ... --valgrind SUPP [--valgrind-cases cheap|all]
                                          each case's snapshot under valgrind
                                          memcheck with suppressions SUPP (cheap:
                                          the format cases and the first of each
                                          form and class; all: every case)
This file is the reader, the oracle and the forms (also what other tests
and scripts import); `run` is scripts/oracle/damage_cases.py: the cases,
planned from the oracle, each written just before it runs, and their
checking, MMC_DAMAGE_JOBS (default 2) at a time.
Forms: raw = the dump as committed; zlib = the same pages recompressed
(this script writes it); flat = makedumpfile's flattened format (this
script writes it; --makedumpfile adds one made by makedumpfile -F); elf =
an ELF vmcore of every meta and struct frame and 256 others.
"""
import bisect
import json
import struct
import sys
import zlib

PAGE = 4096
KTEXT = 0xffffffff80000000
DD_COMP = 0x1 | 0x2 | 0x4 | 0x20


# the set bits of each byte value, lowest first
BITS = [tuple(bit for bit in range(8) if v >> bit & 1) for v in range(256)]


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
        # bit b of byte i is pfn 8 i + b (ascending)
        pfns = [i * 8 + bit for i, byte in enumerate(bitmap) if byte for bit in BITS[byte]]
        del pfns[bisect.bisect_left(pfns, end):]
        self.pfns = pfns
        self.index = dict(zip(pfns, range(len(pfns))))
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

def common(frames, keyed):
    """The frames (a set) that are keys of keyed (a dict or set), walking
    the smaller of the two: a cut's frames are most of the dump."""
    if len(frames) < len(keyed):
        return {f for f in frames if f in keyed}
    return {f for f in keyed if f in frames}


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
        frames = frames if isinstance(frames, (set, frozenset)) else set(frames)
        if common(frames, self.meta):
            return 'meta', set()
        pfns = set()
        for f in common(frames, self.struct):
            pfns |= self.struct[f]
        return ('struct', pfns) if pfns else ('other', set())

    def reach(self, frames):
        """Every struct pfn held by the frames, compared or not."""
        frames = frames if isinstance(frames, (set, frozenset)) else set(frames)
        out = set()
        for f in common(frames, self.struct) | common(frames, self.shown):
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
    if args and args[0] == 'run':
        # the matrix itself lives in damage_cases.py, which imports this
        # file as `damage`: one module, not a second copy of __main__
        sys.modules.setdefault('damage', sys.modules[__name__])
        import damage_cases
        return damage_cases.run_main(args[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
