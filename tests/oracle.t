#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/oracle/oracle.py on its own: the geometry it derives and the rules it
applies, against values worked out by hand from the kernel source (cited per
check), without any dump or memmapcheck.  TAP output.
"""
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import TOP, Tap  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import oracle  # noqa: E402

ok = Tap(diag_lines=None)


memmap, ns, ram = oracle.run_layout(320, True)
rs = {r["start_pfn"]: r for r in oracle.pgmap_ranges(memmap, ns)}

# nd_pfn_init(): map=dev 128 MiB, align 2M: offset = ALIGN(start + 8K +
# 64 * (32768 - 2) pages, 2M) - start = 4 MiB; reserve 8K = 2 pages
r = rs[0x28000]
ok(r["altmap"] == {"base": 0x28000, "reserve": 2, "free": 1022},
   "map=dev 2M devdax: altmap reserve 2, free 1022 (pfn_devs.c offset 4 MiB)", r["altmap"])
# map=mem 2M: offset = ALIGN(start + 8K, 2M) - start = 2 MiB
ok(rs[0x20000]["data_pfn"] == 0x20200, "map=mem 2M devdax: data 2 MiB after the info block")
# 1 GiB devdax at 1008 MiB: data at the 1 GiB boundary, end truncated to a 1 GiB multiple
r = rs[0x3f000]
ok((r["start_pfn"], r["end_pfn"], r["data_pfn"], r["shift"]) == (0x3f000, 0x80000, 0x40000, 18),
   "1G devdax: range 0x3f000-0x80000, data 0x40000, vmemmap_shift 18",
   (hex(r["start_pfn"]), hex(r["end_pfn"]), hex(r["data_pfn"])))
ok(rs[0xc8000]["kind"] == "fsdax-raw" and rs[0xc8000]["end_pfn"] == 0xd0000,
   "raw legacy namespace: FS_DAX pgmap over the whole region")

# early_section(): boot RAM 0..320 MiB puts the section 0x10000-0x18000 in it
boot = [(0, 320 * 256), ((ram - 64) * 256, ram * 256)]
ok(oracle.early(0x14000, boot) and not oracle.early(0x20000, boot),
   "early section: 0x14000 (shares a section with boot RAM), not 0x20000")


def vm_of(r, fixed):
    vm = oracle.Vmemmap()
    oracle.populate(vm, r, boot, fixed)
    return vm


# vmemmap_populate_compound_pages() + reuse_compound_section(): the section
# 0x78000 (offset 0x39000, not a multiple of 0x40000) reuses the tail frame
# of 0x3f040, so the second head 0x7f000 lands in it (FINDINGS 2)
vm = vm_of(rs[0x3f000], False)
t = vm.frame[0x3f040 // 64]
ok(vm.frame[0x7f000 // 64] == t and vm.frame[0x3f000 // 64] != t,
   "unfixed 1G: the vmemmap page of 0x7f000 maps the first compound page's tail frame")
vm = vm_of(rs[0x3f000], True)
ok(vm.frame[0x7f000 // 64] == vm.frame[0x40040 // 64] and
   len({vm.frame[v] for v in range(0x3f000 // 64, 0x40000 // 64)}) == 64,
   "fixed 1G: 0x3f000-0x3ffff get 64 own vmemmap frames; 0x7f000 shares the tail frame of 0x40000")

# the whole simulation: base 6.12, the second head at 0x7f000 is a tail of itself
for kver in ("6.12", "7.2"):
    k = oracle.Kernel(kver)
    ranges = sorted(rs.values(), key=lambda r: r["start_pfn"])
    vm, mem = oracle.image(k, oracle.variant_rules(k, "base"), ranges, boot)
    p = mem.get(0x7f000)
    ok(p[1] == ("page", 0x7f000, 1) and oracle.PG_HEAD not in p[0][2],
       "%s base: pfn 0x7f000 is a tail pointing at itself, without PG_head" % kver, p)
    ok(mem.get(0x40000)[1] == ("page", 0x7f000, 1),
       "%s base: the data's first pfn names 0x7f000 as its head" % kver)
    w = [x for x in mem.writes if x["device"] == "/dev/dax6.0"]
    want = 0x40000000 if kver == "6.12" else None
    ok(w and w[0]["phys"] == want, "%s base: the 1G write lands at %s" % (
        kver, "%#x" % want if want is not None else "nothing (SIGBUS)"), w)
    vm, mem = oracle.image(k, oracle.variant_rules(k, "fix-compound-natural-align"), ranges, boot)
    heads = [pfn for pfn in range(0x3f000, 0x80000)
             if isinstance(mem.get(pfn)[0], oracle.Flags) and oracle.PG_HEAD in mem.get(pfn)[0][2]]
    ok(heads == [0x40000], "%s fixed: one head in the 1G range, at 0x40000" % kver, heads)
    w = [x for x in mem.writes if x["device"] == "/dev/dax6.0"]
    ok(w and w[0]["phys"] == 0x40000000, "%s fixed: the 1G write lands at the data, 0x40000000" % kver, w)

# 7.2 wrong-memory geometry: namespace at 0x48000000, the folio of the data is 0x48000
k = oracle.Kernel("7.2")
rr = oracle.pgmap_ranges("2G!0x48000000", "0x48000000:devdax:1G:mem")
bt = [(0, 1152 * 256), ((3264 - 64) * 256, 3264 * 256)]
vm, mem = oracle.image(k, oracle.variant_rules(k, "base"), rr, bt)
ok(oracle.folio_of(mem, 0x80000) == 0x48000 and mem.writes[0]["phys"] == 0x40000000,
   "7.2 section geometry: folio of 0x80000 is 0x48000, PUD maps 0x40000000", mem.writes)
vm, mem = oracle.image(k, oracle.variant_rules(k, "fix-compound-natural-align"), rr, bt)
ok(oracle.folio_of(mem, 0x80000) == 0x80000 and mem.writes[0]["phys"] == 0x80000000,
   "7.2 section geometry fixed: folio 0x80000, write at 0x80000000", mem.writes)

# lib/test_hmm.c dmirror_allocate_chunk()'s line gives DEVICE_PRIVATE ranges
with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
    f.write("[    1.500785] added new 256 MB chunk (total 1 chunks, 256 MB) PFNs [0xfcf0000 0xfd00000)\n")
hm = oracle.console_ranges(f.name)
os.unlink(f.name)
ok(len(hm) == 1 and (hm[0]["start_pfn"], hm[0]["end_pfn"], hm[0]["type"]) ==
   (0xfcf0000, 0xfd00000, oracle.PRIVATE), "test_hmm chunk line: one DEVICE_PRIVATE range", hm)

# mut-private-refcount touches only DEVICE_PRIVATE copies
k = oracle.Kernel("6.12")
hr = [dict(hm[0])]
res = oracle.compare(k, hr, oracle.image(k, oracle.variant_rules(k, "base"), hr, boot),
                     oracle.image(k, oracle.variant_rules(k, "mut-private-refcount"), hr, boot))
# (the chunk's top HMM_TOUCHED pages are the ones hmmtouch may have been
# given by test_hmm's free list: run-dependent, so uncertain)
top = 0xfd00000 - oracle.HMM_TOUCHED
ok(res[0]["differing"] == top - 0xfcf0000 - 1 and res[0]["fields"] == {"_refcount": top - 0xfcf0000 - 1}
   and res[0]["uncertain"] == [[top, 0xfd00000 - 1]],
   "mut-private-refcount: every DEVICE_PRIVATE page but the first (slow path) and the run-dependent top, _refcount",
   (res[0]["fields"], res[0]["uncertain"]))

sys.exit(ok.plan())
