#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The guest geometry of scripts/oracle/oracle.py (the diff oracle): the
pgmap ranges a guest layout makes, from the legacy pmem regions and
namespaces of scripts/prove/guest/layout.sh (drivers/nvdimm/pfn_devs.c's
placement of the info block, altmap and data), and the non-pmem
ZONE_DEVICE ranges a kernel log names (test_hmm chunks, p2pdma BARs).
Nothing here reads memmapcheck's output or its code."""
import os
import re
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PAGE = 4096
SPS = 64                      # sizeof(struct page) on x86_64 (both kernels)
SZ_8K = 8192

# enum memory_type names (include/linux/memremap.h)
GENERIC, FS_DAX, PRIVATE, COHERENT, P2PDMA = (
    "MEMORY_DEVICE_GENERIC", "MEMORY_DEVICE_FS_DAX", "MEMORY_DEVICE_PRIVATE",
    "MEMORY_DEVICE_COHERENT", "MEMORY_DEVICE_PCI_P2PDMA")



def run_layout(boot_mb, with1g, name=None):
    args = [name] if name else [str(boot_mb), "1" if with1g else "0"]
    out = subprocess.run(["bash", os.path.join(TOP, "scripts", "prove", "guest", "layout.sh")] + args,
                         capture_output=True, text=True, check=True).stdout
    memmap = ns = ram = None
    for line in out.splitlines():
        # the "kernel:" line holds the guest's parameters, among them these
        for word in line.split():
            if word.startswith("memmap="):
                memmap = word[len("memmap="):]
            elif word.startswith("mmc.ns="):
                ns = word[len("mmc.ns="):]
        m = re.match(r"RAM (\d+) MiB", line)
        if m:
            ram = int(m.group(1))
    return memmap, ns, ram


def parse_size(s):
    m = re.match(r"(\d+)([KMG])", s)
    return int(m.group(1)) << {"K": 10, "M": 20, "G": 30}[m.group(2)]


def align_up(x, a):
    return (x + a - 1) // a * a


def align_down(x, a):
    return x // a * a


def pgmap_ranges(memmap, ns):
    """One dict per pgmap range, in address order.

    nd_pfn_init() (pfn_devs.c): align = max(pfn align, memremap_compat_align()
    = SUBSECTION_SIZE 2 MiB); end_trunc = start + size - ALIGN_DOWN(start +
    size, align); map=dev (PFN_MODE_PMEM): offset = ALIGN(start + 8K +
    64 * npfns, align) - start with npfns = (size - 8K) / 4K; map=mem
    (PFN_MODE_RAM): offset = ALIGN(start + 8K, align) - start.
    __nvdimm_setup_pfn(): the pgmap range is [start, end - end_trunc) (the
    info block included); altmap base = start, reserve = 8K / 4K, free =
    offset / 4K - reserve.  A legacy namespace left raw is mapped by
    pmem_attach_disk() as MEMORY_DEVICE_FS_DAX over the whole region, no
    altmap.  drivers/dax/pmem.c: the dax data starts at start + offset;
    dev_dax_probe(): vmemmap_shift = order of the device alignment.
    """
    sizes = {}
    for e in memmap.split(","):
        size, start = e.split("!")
        sizes[int(start, 16)] = parse_size(size)
    out = []
    for e in ns.split(","):
        start, mode, al, mp = e.split(":")
        start = int(start, 16)
        size = sizes[start]
        r = {"region_start": start, "region_size": size, "mode": mode, "map": mp}
        if mode == "raw":
            r.update(type=FS_DAX, start=start, end=start + size, shift=0,
                     altmap=None, data=start, kind="fsdax-raw")
            out.append(r)
            continue
        align = max(parse_size(al), 2 << 20)
        end_trunc = start + size - align_down(start + size, align)
        if mp == "dev":
            npfns = (size - SZ_8K) // PAGE
            offset = align_up(start + SZ_8K + SPS * npfns, align) - start
        else:
            offset = align_up(start + SZ_8K, align) - start
        end = start + size - end_trunc
        altmap = None
        if mp == "dev":
            reserve = SZ_8K // PAGE
            altmap = {"base": start // PAGE, "reserve": reserve,
                      "free": offset // PAGE - reserve}
        shift = 0
        if mode == "devdax":
            shift = {4096: 0, 2 << 20: 9, 1 << 30: 18}[parse_size(al)]
        r.update(type=GENERIC if mode == "devdax" else FS_DAX, start=start,
                 end=end, shift=shift, altmap=altmap, data=start + offset,
                 align=parse_size(al),
                 kind="%s-%s-%s" % (mode, al, mp) if mode == "devdax" else "fsdax-" + mp)
        out.append(r)
    for r in out:
        r["start_pfn"], r["end_pfn"] = r["start"] // PAGE, r["end"] // PAGE
        r["data_pfn"] = r["data"] // PAGE
    return out


def console_ranges(path):
    """Non-pmem ZONE_DEVICE ranges from a kernel log.

    lib/test_hmm.c dmirror_allocate_chunk() prints "added new %u MB chunk
    (total %u chunks, %u MB) PFNs [0x%lx 0x%lx)" for each chunk it
    hot-plugs: MEMORY_DEVICE_COHERENT when the chunk is the one its
    spm_addr_dev<N> parameter (on the command line) places, else
    MEMORY_DEVICE_PRIVATE.  drivers/pci/p2pdma.c pci_p2pdma_add_resource()
    prints "added peer-to-peer DMA memory %#llx-%#llx" for each BAR it
    publishes: MEMORY_DEVICE_PCI_P2PDMA, order 0, struct pages in RAM."""
    out = []
    spm = set()
    with open(path, errors="replace") as f:
        lines = f.readlines()
    for line in lines:
        if "command line:" in line.lower():
            spm |= {int(a, 16) for a in re.findall(r"test_hmm\.spm_addr_dev\d+=(0x[0-9a-fA-F]+)", line)}
    for line in lines:
        m = re.search(r"added new \d+ MB chunk .*PFNs \[0x([0-9a-f]+) 0x([0-9a-f]+)\)", line)
        if m:
            s, e = int(m.group(1), 16), int(m.group(2), 16)
            mtype = COHERENT if s * PAGE in spm else PRIVATE
            out.append({"type": mtype, "start_pfn": s, "end_pfn": e, "shift": 0,
                        "altmap": None, "data_pfn": s, "map": "mem",
                        "mode": "hmm", "kind": {PRIVATE: "private", COHERENT: "coherent"}[mtype],
                        "region_start": s * PAGE, "region_size": (e - s) * PAGE})
        m = re.search(r"added peer-to-peer DMA memory (0x[0-9a-f]+)-(0x[0-9a-f]+)", line)
        if m:
            s, e = int(m.group(1), 16) // PAGE, (int(m.group(2), 16) + 1) // PAGE
            out.append({"type": P2PDMA, "start_pfn": s, "end_pfn": e, "shift": 0,
                        "altmap": None, "data_pfn": s, "map": "mem",
                        "mode": "p2pdma", "kind": "p2pdma",
                        "region_start": s * PAGE, "region_size": (e - s) * PAGE})
    return out
