#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The crash extension (crash-ext/, memmapcheck.so in crash 9) on issue 19's
hvo-flavour images: HugeTLB folios with the vmemmap optimisation and memory
hot-plugged with its memmap on itself (scripts/prove/guest/layouts/
standard-hvo.sh), 6.12-base-hvo-b1 and 7.2-base-hvo-b1.  crash 9 opens each
with its kernel's vmlinux from the cache, loads the extension and runs
`memmapcheck ranges` and `memmapcheck snapshot -f`, once reading the dump
file through libkdumpfile (the default) and once through crash's readmem()
(MEMMAPCHECK_CRASH_READER=readmem); the CLI snapshots the same dump.

Checks, each labelled:
  [proof]  the guest's geometry, standard-hvo.sh's "hugetlb N2M N1G add2m=
           free2m= demote1g= ... " and "hotplug START SIZE huge2m=": the
           pages of the 2 MiB (order 9) and 1 GiB (order 18, x86_64's
           PMD_ORDER and PUD_ORDER) HugeTLB ranges, the pools' folio and free
           counts, the 2 MiB folios on the hot-plugged memory, one hot-plug
           range per 128 MiB memory block (x86_64's memory block size below
           64 GiB of RAM) at its start, holding the block's memmap: 32768
           struct pages of 64 bytes, 512 pfns (doc/GUEST-LAYOUTS.md: "2 MiB
           of memmap each at their start"), and the blocks online with it;
  [proof]  two front ends: the extension's `ranges` (layout from crash's
           type information, kernel memory through crash) prints what the
           CLI's prints (layout from the vmlinux's DWARF, libkdumpfile), and
           its snapshot equals the CLI's section by section but INFO (which
           names the dump and the program), LAYT without its source and
           checksum lines (they name the source): what tests/crash-reader.t
           excuses;
  [proof]  two readers of the same bytes: the readmem() session's snapshot
           is byte for byte the libkdumpfile session's;
  [guard]  what the extension says of itself (which reader it used).
Anything absent (crash 9, the extension built for it, a dump, a vmlinux) is
a loud SKIP for what needs it.  make check runs this in its normal build
(make check-hvo too): scripts/test-prereqs.sh builds both kernels and makes
both full captures when the cache lacks them.
"""
import os
import difflib
import re
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import taplib  # noqa: E402
from taplib import BUILD, CACHE, CLI, Tap  # noqa: E402



class CheckTap(Tap):
    """taplib's Tap, also returning the result."""

    def __call__(self, ok, what, diag=None, todo=None):
        super().__call__(ok, what, diag, todo)
        return bool(ok)


tap = CheckTap(diag_lines=30)
IMAGES = ["6.12-base-hvo-b1", "7.2-base-hvo-b1"]
CRASH = os.path.join(CACHE, "crash-9", "root", "usr", "bin", "crash")
TMP = tempfile.mkdtemp(prefix="mmc-hvo-crash-")


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", env=env, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def geometry():
    """What standard-hvo.sh says the guest holds at dump time."""
    return taplib.hvo_guest()


def ranges_table(text):
    """RANGES rows of kind hugetlb/hotplug: (start, end, kind, order), and
    the altmap line under each hot-plug row."""
    out, sec = [], False
    for line in text.splitlines():
        if line.startswith("RANGES"):
            sec = True
            continue
        if sec and (not line.strip() or line[:1].isalpha()):
            break
        m = re.match(r"\s+\d+\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\d+\s+-\s+-\s+\S+\s+(hugetlb|hotplug)#\d+ order (\d+)",
                     line)
        if m:
            out.append({"start": int(m.group(1), 16), "end": int(m.group(2), 16),
                        "kind": m.group(3), "order": int(m.group(4)), "altmap": None})
            continue
        m = re.match(r"\s+altmap pfns\s+(0x[0-9a-f]+)-(0x[0-9a-f]+) \(memmap_init_range\)", line)
        if m and out and out[-1]["kind"] == "hotplug":
            out[-1]["altmap"] = (int(m.group(1), 16), int(m.group(2), 16))
    return out


def pools_table(text):
    """HUGETLB POOLS hstates: {order: (nr, free)}."""
    out, sec = {}, False
    for line in text.splitlines():
        if line.startswith("HUGETLB POOLS"):
            sec = True
            continue
        if line.startswith("MEMORY BLOCKS"):
            break
        w = line.split()
        if sec and len(w) == 9 and w[0].isdigit():
            out[int(w[3])] = (int(w[4]), int(w[5]))
    return out


def blocks_table(text):
    """MEMORY BLOCKS rows with a self-hosted memmap: (start, end, state, pfns, from)."""
    out, sec = [], False
    for line in text.splitlines():
        if line.startswith("MEMORY BLOCKS"):
            sec = True
            continue
        m = re.match(r"\s+\d+\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\d+)\s+\d+\s+(\d+) pfns from (0x[0-9a-f]+)", line)
        if sec and m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3)),
                        int(m.group(4)), int(m.group(5), 16)))
    return out


def sections(path):
    """A snapshot's sections but INFO; LAYT without its source and checksum
    lines (tests/crash-reader.t's same_sections())."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:7] != b"MMCSNAP":
        raise ValueError(path + ": not a snapshot")
    pos, end, out = 24, len(b) - 8, []
    while pos < end:
        tag, n = b[pos:pos + 4], struct.unpack_from("<Q", b, pos + 4)[0]
        out.append((tag, b[pos + 12:pos + 12 + n]))
        pos += 12 + n
    if pos != end:
        raise ValueError(path + ": sections do not end at the trailer")
    return [(t, b"\n".join(l for l in p.split(b"\n") if not l.startswith((b"source ", b"checksum ")))
             if t == b"LAYT" else p) for t, p in out if t != b"INFO"]


def crash_version():
    rc, out, _ = run([CRASH, "--version"])
    m = re.search(r"^crash (\S+)", out, re.M)
    return m.group(1) if m else None


def crash_flags(kdir):
    """tests/crash-lib.sh's crash_flags_for(): --no_modules without
    CONFIG_MODULES, --no_kmem_cache with SLUB_TINY."""
    flags = []
    try:
        with open(os.path.join(kdir, "config")) as f:
            cfg = f.read()
    except OSError:
        return flags
    if not re.search(r"^CONFIG_MODULES=y", cfg, re.M):
        flags.append("--no_modules")
    if re.search(r"^CONFIG_SLUB_TINY=y", cfg, re.M):
        flags.append("--no_kmem_cache")
    return flags


def session(so, vmlinux, dump, kdir, snap, out, readmem):
    """One crash batch session: load the extension, ranges, snapshot -f."""
    cmds = out + ".cmds"
    with open(cmds, "w") as f:
        f.write("extend %s\nmemmapcheck ranges\nmemmapcheck snapshot -f -v -o %s\n" % (so, snap))
    env = dict(os.environ)
    env.pop("MEMMAPCHECK_CRASH_READER", None)
    if readmem:
        env["MEMMAPCHECK_CRASH_READER"] = "readmem"
    _, o, e = run(["nice", "-n", "10", CRASH, "-s"] + crash_flags(kdir) + [vmlinux, dump, "-i", cmds],
                  env=env)
    with open(out, "w") as f:
        f.write(o + e)
    return o + e


def ext_ranges(text):
    """The extension's ranges output: from GEOMETRY to the walk's summary."""
    m = re.search(r"^GEOMETRY\n.*?(?=^memmapcheck: )", text, re.M | re.S)
    return m.group(0) if m else ""


def check_geometry(t, text, geo):
    rows = ranges_table(text)
    hug = [r for r in rows if r["kind"] == "hugetlb"]
    plug = [r for r in rows if r["kind"] == "hotplug"]
    for order, (nr, _) in sorted(geo["pools"].items()):
        pages = sum(r["end"] - r["start"] for r in hug if r["order"] == order)
        tap(pages == nr << order,
            "[proof] %s: `memmapcheck ranges` has %d pages in order-%d HugeTLB ranges, %d folios (%d)"
            % (t, nr << order, order, nr, pages), text)
    lo, hi = geo["hotplug"]
    on_plug = sum(r["end"] - r["start"] for r in hug if lo <= r["start"] and r["end"] <= hi and r["order"] == 9)
    tap(on_plug == geo["huge2m"] << 9,
        "[proof] %s: %d 2 MiB folios (%d pages) in HugeTLB ranges on the hot-plugged memory %#x-%#x (%d)"
        % (t, geo["huge2m"], geo["huge2m"] << 9, lo, hi, on_plug), text)
    want = geo["memmaps"]
    memmap = want[0][1] - want[0][0] if want else 0
    got = [(r["start"], r["end"]) for r in plug]
    alt = [r["altmap"] for r in plug]
    tap(got == want and alt == want and all(r["order"] == 0 for r in plug),
        "[proof] %s: %d hot-plug ranges, order 0, each its block's %d memmap pfns at its start, altmap pfns: %s"
        % (t, len(want), memmap, " ".join("%#x-%#x" % w for w in want)),
        "got %s altmap %s\n%s" % (got, alt, text))
    pools = pools_table(text)
    tap(pools == geo["pools"],
        "[proof] %s: HugeTLB pools (folios, free) by order %s" % (t, sorted(geo["pools"].items())),
        "got %s\n%s" % (sorted(pools.items()), text))
    blocks = blocks_table(text)
    want_b = [(s, e, 0, memmap, s) for s, e in geo["blocks"]]
    # state 0: MEM_ONLINE (enum memory_block_state, include/linux/memory.h)
    tap(blocks == want_b,
        "[proof] %s: memory blocks with a self-hosted memmap: %d, online, %d pfns from their start"
        % (t, len(want_b), memmap), "got %s\n%s" % (blocks, text))


def main():
    if not os.access(CLI, os.X_OK):
        taplib.skip_all("no CLI at %s (make)" % CLI, stderr=True)
    if not os.access(CRASH, os.X_OK):
        taplib.skip_all("crash 9 absent at %s (scripts/test-prereqs.sh)" % CRASH, stderr=True)
    ver = crash_version()
    so = os.path.join(os.environ.get("MMC_CRASH_EXT", os.path.join(BUILD, "crash-ext")),
                      ver or "?", "memmapcheck.so")
    if not ver or not os.path.exists(so):
        taplib.skip_all("crash %s (%s): no extension built at %s (make; the ASan build has none)"
                        % (ver, CRASH, so), stderr=True)
    geo = geometry()
    for name in IMAGES:
        kdir = os.path.join(CACHE, "kernels", re.sub(r"-b\d+$", "", name))
        vmlinux = os.path.join(kdir, "vmlinux")
        # the full capture: crash's own start reads what the committed
        # dumps were trimmed of (cpu_possible_map and more)
        dump = os.path.join(CACHE, "images", name + ".kdump")
        t = "crash %s, %s" % (ver, name)
        if not os.path.exists(dump):
            tap.skip("%s: no full capture at %s" % (name, dump), t)
            continue
        if not os.path.exists(vmlinux):
            tap.skip("%s: no vmlinux at %s" % (name, vmlinux), t)
            continue
        d = os.path.join(TMP, name)
        os.makedirs(d)
        cli_snap = os.path.join(d, "cli.snap")
        rc, _, err = run(["nice", "-n", "10", CLI, "snapshot", "-q", "-o", cli_snap, vmlinux, dump])
        if not tap(rc == 0, "[guard] %s: CLI snapshot, exit 0" % name, err):
            continue
        rc, cli_ranges, err = run(["nice", "-n", "10", CLI, "ranges", "-q", vmlinux, dump])
        tap(rc == 0, "[guard] %s: CLI ranges, exit 0" % name, err)
        file_snap, mem_snap = os.path.join(d, "file.snap"), os.path.join(d, "readmem.snap")
        out = session(so, vmlinux, dump, kdir, file_snap, os.path.join(d, "file.out"), False)
        if not tap("memmapcheck.so: shared object loaded" in out and os.path.exists(file_snap),
                   "[guard] %s: the extension loads and writes a snapshot" % t, out):
            continue
        tap(re.search(r"^memmapcheck: read %s through libkdumpfile \(physical reads; kernel virtual ones "
                      r"through readmem\(\)\), \d+ thread" % re.escape(dump), out, re.M),
            "[guard] %s: the dump file is read through libkdumpfile" % t, out)
        check_geometry(t, out, geo)
        er = ext_ranges(out)
        tap(er and er == cli_ranges,
            "[proof] %s: the extension's `memmapcheck ranges` prints what the CLI's does (%d lines)"
            % (t, er.count("\n")),
            "".join(l for l in difflib.unified_diff(
                cli_ranges.splitlines(True), er.splitlines(True), "cli", "crash")) or out)
        try:
            a, b = sections(file_snap), sections(cli_snap)
            diff = [x[0].decode() for x, y in zip(a, b) if x != y]
            tap(a == b, "[proof] %s: the extension's snapshot -f equals the CLI's but for INFO "
                "(%d sections, %d bytes)" % (t, len(a), sum(len(p) for _, p in a)),
                "sections %s vs %s; differing: %s" % ([x for x, _ in a], [x for x, _ in b], diff))
        except (OSError, ValueError) as e:
            tap(False, "[proof] %s: the extension's snapshot -f equals the CLI's but for INFO" % t, e)
        out = session(so, vmlinux, dump, kdir, mem_snap, os.path.join(d, "readmem.out"), True)
        tap(re.search(r"^memmapcheck: read readmem\(\) \(MEMMAPCHECK_CRASH_READER=readmem\)", out, re.M),
            "[guard] %s: MEMMAPCHECK_CRASH_READER=readmem reads through readmem()" % t, out)
        same = os.path.exists(mem_snap) and open(file_snap, "rb").read() == open(mem_snap, "rb").read()
        tap(same, "[proof] %s: the readmem() snapshot is byte for byte the libkdumpfile one (%d bytes)"
            % (t, os.path.getsize(file_snap)), out)
        check_geometry(t + " (readmem())", out, geo)
    return tap.plan()


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        subprocess.run(["rm", "-rf", TMP])
