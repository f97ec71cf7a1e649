#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed corpora for the fuzz targets, from the committed vectors.

usage: mkseeds.py OUTDIR [DUMP LAYOUT]...

  snapshot/  the synthetic snapshot files of test-vectors/synthetic
  layout/    the saved layouts of test-vectors/layouts
  decode/    runs of real struct pages (16 at a time) of each DUMP, with its
             layout's selector byte (7.x layouts: the 7.2 fixture)
  walk/      no patch (the intact synthetic image, 4- and 5-level) and a few
  dump/      per DUMP: an ELF vmcore and a kdump-compressed file (raw and
             zlib) holding only the frames discovery and the first struct
             pages need (scripts/oracle/damage.py's oracle says which), and the
             flattened form of it; a tiny kdump that libkdumpfile refuses
             at address translation
  open/      every dump/ seed with selector byte 0 (libkdumpfile) and 1
             (the kcore reader), and selector 2 (the built-in kdump with the
             input written over its headers) with the template's own bytes
             and with its NT_PRSTATUS cut short
"""
import glob
import os
import shutil
import struct
import sys
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts', 'oracle'))
import damage  # noqa: E402


def small_kdump(d, pfns, out, compress=False):
    """A kdump-compressed file holding only `pfns` of dump d."""
    pfns = sorted(p for p in pfns if p in d.index)
    bs = d.bs
    max_pfn = pfns[-1] + 1
    bm_blocks = (max_pfn + bs * 8 - 1) // (bs * 8)
    hdr = bytearray(d.data[:bs])
    struct.pack_into('<iI', hdr, 432, 1, 2 * bm_blocks)   # sub_hdr_size, bitmap_blocks
    struct.pack_into('<I', hdr, 440, max_pfn)
    note = d.data[d.note_off:d.note_off + d.note_size]
    sub = bytearray(d.data[bs:bs + bs])
    bm = bytearray(bm_blocks * bs)
    for p in pfns:
        bm[p // 8] |= 1 << (p % 8)
    desc_off = (2 + 2 * bm_blocks) * bs
    data_off = desc_off + 24 * len(pfns)
    note_off = data_off
    struct.pack_into('<QQ', sub, 48, note_off, len(note))
    struct.pack_into('<QQQ', sub, 80, 0, max_pfn, max_pfn)
    struct.pack_into('<Q', sub, 96, max_pfn)
    descs, blob = [], bytearray(note)
    for p in pfns:
        page = d.page(p)
        flags = 0
        if compress:
            c = zlib.compress(page, 1)
            if len(c) < len(page):
                page, flags = c, 1
        descs.append(struct.pack('<QIIQ', data_off + len(blob), len(page), flags, 0))
        blob += page
    with open(out, 'wb') as f:
        f.write(hdr + sub + bm + bm + b''.join(descs) + blob)


def main():
    out = sys.argv[1]
    for t in ('snapshot', 'layout', 'decode', 'walk', 'dump', 'patterns', 'open'):
        os.makedirs(os.path.join(out, t), exist_ok=True)
    for f in glob.glob(os.path.join(TOP, 'test-vectors/synthetic/*.snap')):
        shutil.copy(f, os.path.join(out, 'snapshot'))
        shutil.copy(f, os.path.join(out, 'patterns'))
    # fuzz_patterns diffs two snapshots given back to back
    snaps = sorted(glob.glob(os.path.join(TOP, 'test-vectors/synthetic/*.snap')))
    for a, b in zip(snaps, snaps[1:]):
        name = '%s+%s' % (os.path.basename(a)[:-5], os.path.basename(b)[:-5])
        with open(os.path.join(out, 'patterns', name), 'wb') as f:
            for x in (a, b):
                with open(x, 'rb') as g:
                    f.write(g.read())
    for f in glob.glob(os.path.join(TOP, 'test-vectors/layouts/*.layout')):
        shutil.copy(f, os.path.join(out, 'layout'))
    with open(os.path.join(out, 'walk', 'intact-4'), 'wb') as f:
        f.write(b'\0')
    with open(os.path.join(out, 'walk', 'intact-5'), 'wb') as f:
        f.write(b'\1')
    with open(os.path.join(out, 'walk', 'xa-slot'), 'wb') as f:
        # slot 3 of the xa_node (2 MiB + 1024 + 40 + 24) pointing at itself
        f.write(b'\0' + struct.pack('<IQ', (2 << 28) | (1024 + 64), 0xffff888000200402))
    args = sys.argv[2:]
    for dump, layout in zip(args[::2], args[1::2]):
        name = os.path.basename(dump).rsplit('.', 1)[0]
        d = damage.KDump(dump)
        o = damage.Oracle(d, layout)
        sel = b'\1' if os.path.basename(layout).startswith('7.') else b'\0'
        for start, end, _r in o.ranges[:4]:
            va = o.vmemmap + start * o.sps
            pa = o.translate(va, 'seed')
            page = d.page(pa // 4096)
            geom = struct.pack('<Q', (0 << 24) | (start << 32))
            with open(os.path.join(out, 'decode', '%s-%x' % (name, start)), 'wb') as f:
                f.write(sel + geom + page[pa % 4096:pa % 4096 + 16 * o.sps])
        first = sorted(o.struct)[:4]
        keep = set(o.meta) | set(first)
        base = os.path.join(out, 'dump', name)
        small_kdump(d, keep, base + '.kdump')
        small_kdump(d, keep, base + '-zlib.kdump', compress=True)
        damage.write_flat(base + '.kdump', base + '.flat', seg=1 << 14)
        small_kdump(d, list(keep)[:3], base + '-tiny.kdump')
        damage.write_elf(damage.KDump(base + '.kdump'), FakeOracle(keep), base + '.elf')
    for f in sorted(glob.glob(os.path.join(out, 'dump', '*'))):
        data = open(f, 'rb').read()
        for sel in (0, 1):
            with open(os.path.join(out, 'open', '%d-%s' % (sel, os.path.basename(f))), 'wb') as g:
                g.write(bytes([sel]) + data)
    # selector 2: nothing over the template (bytes 400.. of the header as
    # fuzz_open.c makes them: zeros up to block_size at 428), and the same
    # with the NT_PRSTATUS descsz (notes at block 4: VMCOREINFO first) 0
    with open(os.path.join(out, 'open', '2-template'), 'wb') as g:
        g.write(b'\2')
    return 0


class FakeOracle:
    """write_elf wants an oracle: these pages, nothing else."""

    def __init__(self, pfns):
        self.meta = {p: '' for p in pfns}
        self.struct = {}
        self.shown = set()


if __name__ == '__main__':
    sys.exit(main())
