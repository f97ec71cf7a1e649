#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Repair the ELF header of a QEMU 7.2 `dump-guest-memory` (ELF, x86_64) in place.

QEMU 7.2 writes its (empty) section header table right after the ELF header, at
offset 64, moves the program headers behind it (e_phoff 192) and stores
e_ehsize = 8 (sizeof of a pointer). makedumpfile 1.7.2 assumes the program
headers follow the ELF header directly, finds no PT_LOAD there and fails with
"Can't get the number of PT_LOAD". The fix: copy the program headers to offset
64, drop the section headers (e_shoff/e_shnum/e_shstrndx = 0) and set
e_ehsize = 64. Segment data is not moved. Files that are already fine are left
untouched. Usage: fix-qemu-elf.py FILE.elf [--check]
"""
import struct
import sys

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path, check = argv[1], "--check" in argv[2:]
    with open(path, "r+b") as f:
        raw = f.read(EHDR.size)
        (ident, etype, mach, ver, entry, phoff, shoff, flags, ehsize, phentsize,
         phnum, shentsize, shnum, shstrndx) = EHDR.unpack(raw)
        if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
            print("fix-qemu-elf: %s is not a little-endian ELF64 file" % path, file=sys.stderr)
            return 2
        if phentsize != 56 or phnum == 0xFFFF:
            print("fix-qemu-elf: unexpected program header layout", file=sys.stderr)
            return 2
        if phoff == 64 and ehsize == 64 and shoff == 0:
            print("fix-qemu-elf: %s: header already fine" % path)
            return 0
        f.seek(phoff)
        phdrs = f.read(phnum * 56)
        first_data = min(struct.unpack_from("<IIQ", phdrs, i * 56)[2] for i in range(phnum))
        if 64 + len(phdrs) > first_data:
            print("fix-qemu-elf: no room for %d program headers before offset %d" % (phnum, first_data),
                  file=sys.stderr)
            return 3
        if check:
            print("fix-qemu-elf: %s: needs fixing (e_phoff %d e_shoff %d e_ehsize %d)" % (path, phoff, shoff, ehsize))
            return 1
        f.seek(0)
        f.write(EHDR.pack(ident, etype, mach, ver, entry, 64, 0, flags, 64, 56, phnum, 0, 0, 0))
        f.write(phdrs)
        gap = first_data - 64 - len(phdrs)
        f.write(b"\0" * min(gap, 64 * 3 + 1024))  # clear the old section headers
        print("fix-qemu-elf: %s: e_phoff %d->64, e_shoff %d->0, e_shnum %d->0, e_ehsize %d->64"
              % (path, phoff, shoff, shnum, ehsize))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
