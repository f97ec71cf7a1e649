#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Read guest physical memory from a kdump-compressed dump (makedumpfile
output), independently of memmapcheck and libkdumpfile: the diskdump header,
the dumped-pages bitmap and the page descriptors are parsed here
(makedumpfile's diskdump_mod.h layout).  Uncompressed and zlib (-c) pages;
other compressions are refused with an error.

usage: physmem.py search DUMP STRING   physical addresses where STRING is
       physmem.py read DUMP ADDR LEN    bytes at a physical address (hex dump;
                                       a page the dump lacks is an error)
       physmem.py text DUMP ADDR        the NUL-terminated text at ADDR
Exit 0 found/read, 1 not found, 2 bad input.
"""
import mmap
import struct
import sys
import zlib

DESC = struct.Struct("<qIIQ")      # page_desc: offset, size, flags, page_flags
DUMP_DH_COMPRESSED_ZLIB = 0x1


class Dump:
    def __init__(self, path):
        self.path = path
        f = open(path, "rb")
        self.m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if self.m[:8] != b"KDUMP   ":
            raise ValueError("%s: not a kdump-compressed dump (signature %r)" % (path, self.m[:8]))
        version = struct.unpack_from("<i", self.m, 8)[0]
        bs, sub_blocks, bitmap_blocks, max_mapnr = struct.unpack_from("<iiII", self.m, 428)
        if version >= 6:
            max_mapnr = struct.unpack_from("<Q", self.m, bs + 96)[0]
        self.bs = bs
        bitmap = bs * (1 + sub_blocks)
        half = bitmap_blocks * bs // 2
        self.bm2 = bitmap + half           # 2nd bitmap: pages in the dump
        self.desc0 = bs * (1 + sub_blocks + bitmap_blocks)
        self.max_mapnr = max_mapnr
        self._index = None

    def index(self):
        """pfn -> descriptor number, for every dumped pfn."""
        if self._index is None:
            idx, n = {}, 0
            nbytes = (self.max_mapnr + 7) // 8
            bm = self.m[self.bm2:self.bm2 + nbytes]
            for byte_i, byte in enumerate(bm):
                if not byte:
                    continue
                for b in range(8):
                    if byte >> b & 1:
                        idx[byte_i * 8 + b] = None
            for pfn in sorted(idx):
                idx[pfn] = n
                n += 1
            self._index = idx
        return self._index

    def page(self, pfn):
        n = self.index().get(pfn)
        if n is None:
            raise KeyError("%s: pfn 0x%x is not in the dump" % (self.path, pfn))
        off, size, flags, _ = DESC.unpack_from(self.m, self.desc0 + n * DESC.size)
        data = self.m[off:off + size]
        if flags & DUMP_DH_COMPRESSED_ZLIB:
            data = zlib.decompress(data)
        elif flags:
            raise ValueError("%s: pfn 0x%x compressed with flags 0x%x (unsupported)" % (self.path, pfn, flags))
        return data

    def read(self, addr, length):
        out = b""
        while length > 0:
            pfn, off = divmod(addr, self.bs)
            chunk = self.page(pfn)[off:off + length]
            out += chunk
            addr += len(chunk)
            length -= len(chunk)
        return out

    def search(self, needle):
        """Physical addresses of needle (within a page)."""
        by_off = []
        for pfn, n in self.index().items():
            off, size, flags, _ = DESC.unpack_from(self.m, self.desc0 + n * DESC.size)
            by_off.append((off, size, flags, pfn))
        by_off.sort()
        hits = []
        for off, size, flags, pfn in by_off:
            if flags & DUMP_DH_COMPRESSED_ZLIB:
                data = zlib.decompress(self.m[off:off + size])
                base = 0
            elif flags:
                raise ValueError("%s: pfn 0x%x compressed with flags 0x%x (unsupported: "
                                 "makedumpfile -c or no compression)" % (self.path, pfn, flags))
            else:
                data = None
            if data is None:
                i = self.m.find(needle, off, off + size)
                while i >= 0:
                    hits.append(pfn * self.bs + i - off)
                    i = self.m.find(needle, i + 1, off + size)
            else:
                i = data.find(needle)
                while i >= 0:
                    hits.append(pfn * self.bs + base + i)
                    i = data.find(needle, i + 1)
        return sorted(set(hits))


def main(argv):
    if len(argv) < 4 or argv[1] not in ("search", "read", "text"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        d = Dump(argv[2])
        if argv[1] == "search":
            hits = d.search(argv[3].encode())
            for h in hits:
                print("0x%x" % h)
            if not hits:
                print("physmem: %r not found in %s" % (argv[3], argv[2]), file=sys.stderr)
            return 0 if hits else 1
        if argv[1] == "text":
            print(d.read(int(argv[3], 0), 256).split(b"\0")[0].decode("ascii", "replace"))
            return 0
        addr, length = int(argv[3], 0), int(argv[4], 0) if len(argv) > 4 else 64
        data = d.read(addr, length)
        for i in range(0, len(data), 16):
            row = data[i:i + 16]
            print("%016x: %-48s %s" % (addr + i, " ".join("%02x" % c for c in row),
                                       "".join(chr(c) if 32 <= c < 127 else "." for c in row)))
        return 0
    except (OSError, ValueError, KeyError, struct.error) as e:
        print("physmem: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
