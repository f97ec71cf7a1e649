#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A copy of an ELF vmcore (/proc/vmcore as a capture kernel saves it)
with every page memmapcheck and makedumpfile do not read zeroed: the ELF
header, program headers and notes stay byte for byte, and so does every
page scripts/vectors/trim-dump.py keeps (its Keep: kernel variables, page tables,
pgmap_array, dev_pagemaps, the vmemmap of every ZONE_DEVICE range, what
makedumpfile --dump-dmesg reads, the daxtouch markers), in every PT_LOAD
that maps it (a /proc/vmcore maps the kernel image twice).  The frames
are found by damage.py's oracle in KDUMP, an uncompressed makedumpfile
-d 23 dump of the same vmcore.  The copy compresses to almost nothing,
and makedumpfile -d 23 of it (zero pages excluded) gives dumps of the
kept frames only: dumps/production.tar.xz is made this way.

usage: trim-elf.py LAYOUT KDUMP IN.elf OUT.elf
"""
import os
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle"))
from damage import PAGE, KDump  # noqa: E402

trim_dump = __import__('trim-dump')


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    layout, kdump, src, out = sys.argv[1:]
    keep = set(trim_dump.Keep(KDump(kdump), layout).why)
    with open(src, 'rb') as f:
        data = bytearray(f.read())
    if data[:4] != b'\x7fELF' or data[4] != 2:
        print('trim-elf.py: %s: not an ELF64 file' % src, file=sys.stderr)
        return 2
    phoff, = struct.unpack_from('<Q', data, 32)
    phnum, = struct.unpack_from('<H', data, 56)
    kept = zeroed = 0
    zero = bytes(PAGE)
    for i in range(phnum):
        p_type, _fl, off, _va, pa, filesz = struct.unpack_from('<IIQQQQ', data, phoff + 56 * i)
        if p_type != 1:
            continue
        a = pa
        while a < pa + filesz:
            n = min(PAGE - a % PAGE, pa + filesz - a)
            o = off + (a - pa)
            if a // PAGE in keep:
                kept += 1
            else:
                data[o:o + n] = zero[:n]
                zeroed += 1
            a += n
    with open(out, 'wb') as f:
        f.write(data)
    print('%s: kept %d pages, zeroed %d' % (os.path.basename(src), kept, zeroed),
          file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
