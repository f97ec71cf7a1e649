#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Production kdump states (dumps/production.tar.xz, dumps/README.md): one
real in-guest kdump of the 6.12 base kernel as /proc/vmcore copied by hand,
as makedumpfile writes it whole, flattened (-F), split in three (--split)
and cut off by a full disk (DUMP_DH_COMPRESSED_INCOMPLETE).  Each is read
or refused with a message that says what to do.

Expected outcomes come from outside memmapcheck: the ELF program headers
and the kdump-compressed headers, bitmaps and descriptors read here with
scripts/oracle/damage.py's own reader; makedumpfile -R and --reassemble, which turn
the flattened and split forms back into the whole dump; and the fact that
makedumpfile made every file from the same vmcore, so every form that is
read must show the very same struct pages.  TAP output.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, Tap, skip_all, unpacked  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import damage  # noqa: E402

tap = Tap(diag_lines=20)
LAYOUT = os.path.join(TOP, "test-vectors", "layouts", "6.12-base.layout")
PAGE = 4096
# makedumpfile's diskdump_mod.h: disk_dump_header.status bits
DUMP_DH_COMPRESSED_INCOMPLETE = 0x8
DUMP_DH_EXCLUDED_VMEMMAP = 0x10


def run(*args, stdin=None):
    p = subprocess.run([CLI] + list(args), stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def show(path, work):
    """(exit code of snapshot, the runs of show --json, stderr)"""
    snap = os.path.join(work, os.path.basename(path) + ".snap")
    rc, _o, err = run("snapshot", "-q", "-o", snap, LAYOUT, path)
    if not os.path.exists(snap):
        return rc, None, err
    _r, out, _e = run("show", "--json", snap)
    try:
        return rc, json.loads(out)["ranges"], err
    except ValueError:
        return rc, None, err


def elf_partial_pages(path):
    """Pages only partly covered by the PT_LOAD segments, from the ELF."""
    with open(path, "rb") as f:
        h = f.read(64)
        phoff, = struct.unpack_from("<Q", h, 32)
        phnum, = struct.unpack_from("<H", h, 56)
        f.seek(phoff)
        ph = f.read(56 * phnum)
    cov = []
    for i in range(phnum):
        typ, _fl, _off, _va, pa, filesz = struct.unpack_from("<IIQQQQ", ph, 56 * i)
        if typ == 1 and filesz:
            cov.append([pa, pa + filesz])
    cov.sort()
    merged = []
    for a, b in cov:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    pages = []
    for a, b in merged:
        if a % PAGE:
            pages.append(a - a % PAGE)
        if b % PAGE:
            pages.append(b - b % PAGE)
    return sorted(set(pages))


def main():
    d = unpacked("production")
    if not d:
        skip_all("dumps/production.tar.xz not unpacked")
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    work = tempfile.mkdtemp(prefix="mmc-production-")
    try:
        body(d, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.plan()


def body(d, work):
    p = lambda n: os.path.join(d, "6.12-prod" + n)
    whole = p(".kdump")
    rc0, ref, err0 = show(whole, work)
    # the vmcore holds System RAM only: the map=dev struct pages are absent
    tap(rc0 == 4 and ref is not None,
        "[guard] the whole dump: snapshot exit %s (4: the map=dev struct pages are not in a kdump)" % rc0, err0)

    # /proc/vmcore copied by hand
    elf = p("-vmcore.elf")
    rc, runs, err = show(elf, work)
    tap(rc == rc0 and runs == ref,
        "[proof] /proc/vmcore copy: the same struct pages as the makedumpfile dump made from it (exit %s)" % rc, err)
    partial = elf_partial_pages(elf)
    named = all(("physical address 0x%x" % partial[0]) in err for _ in [0]) if partial else True
    tap(bool(partial) and named and "%d page" % len(partial) in err,
        "[proof] /proc/vmcore copy: the %d page(s) only partly inside PT_LOADs (first 0x%x, from the program headers) are said" %
        (len(partial), partial[0] if partial else 0), err)

    # flattened, not reassembled
    flat = p(".flat")
    rc, runs, err = show(flat, work)
    tap(rc == rc0 and runs == ref,
        "[proof] flattened (-F): read as the whole dump it flattens (exit %s)" % rc, err)
    if shutil.which("makedumpfile"):
        out = os.path.join(work, "reassembled.kdump")
        with open(flat, "rb") as f:
            r = subprocess.run(["makedumpfile", "-R", out], stdin=f,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        same = r.returncode == 0 and open(out, "rb").read() == open(whole, "rb").read()
        tap(same, "[proof] makedumpfile -R of the flattened file gives the whole dump byte for byte",
            r.stdout.decode(errors="replace"))
    else:
        tap.skip("makedumpfile not installed", "makedumpfile -R of the flattened file")

    # split in three
    parts = [p("-split-%d.kdump" % i) for i in (1, 2, 3)]
    for part in parts:
        k = damage.KDump(part)
        sub = k.data[k.bs:k.bs + 104]
        start, end = struct.unpack_from("<QQ", sub, 80)
        rc, _o, err = run("ranges", LAYOUT, part)
        want = "holds pfns 0x%x-0x%x" % (start, end)
        tap(rc == 2 and want in err and "makedumpfile --reassemble" in err,
            "[proof] %s: refused (exit %s), its pfns %s (from its kdump_sub_header) and what to do said" %
            (os.path.basename(part), rc, want), err)
    if shutil.which("makedumpfile"):
        out = os.path.join(work, "joined.kdump")
        r = subprocess.run(["makedumpfile", "--reassemble"] + parts + [out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        rc, runs, err = show(out, work) if r.returncode == 0 else (None, None, "")
        tap(r.returncode == 0 and rc == rc0 and runs == ref,
            "[proof] the parts joined by makedumpfile --reassemble read as the whole dump",
            r.stdout.decode(errors="replace") + err)
    else:
        tap.skip("makedumpfile not installed", "makedumpfile --reassemble of the parts")

    # the disk filled up
    inc = p("-incomplete.kdump")
    k = damage.KDump(inc)
    status, = struct.unpack_from("<I", k.data, 424)
    missing = sum(1 for (off, size, fl, _pf) in k.desc
                  if (off, size, fl) == (0, 0, 0) or off + size > len(k.data))
    missing += max(0, len(k.pfns) - len(k.desc))
    rc, runs, err = show(inc, work)
    want = "%d of its %d dumped pages are not in it" % (missing, len(k.pfns))
    tap(status & DUMP_DH_COMPRESSED_INCOMPLETE and rc == 4 and want in err and "DUMP_DH_COMPRESSED_INCOMPLETE" in err
        and "make the dump again" in err,
        "[proof] disk full: exit %s, '%s' (counted from its descriptors) and what to do said" % (rc, want), err)
    unread = set()
    for r in runs or []:
        for x in r["runs"]:
            if x["state"] in ("unreadable", "unmapped"):
                unread.update(range(x["first_pfn"], x["last_pfn"] + 1))
    before = set()
    for r in ref or []:
        for x in r["runs"]:
            if x["state"] in ("unreadable", "unmapped"):
                before.update(range(x["first_pfn"], x["last_pfn"] + 1))
    tap(runs is not None and unread >= before,
        "[proof] disk full: every struct page unreadable in the whole dump is unreadable here too (%d >= %d), none read as zeros"
        % (len(unread), len(before)), err)

    # makedumpfile -e: the status bit on a copy (1.7.2 cannot make one of 6.12)
    ex = os.path.join(work, "6.12-prod-e.kdump")
    data = bytearray(open(whole, "rb").read())
    struct.pack_into("<I", data, 424, struct.unpack_from("<I", data, 424)[0] | DUMP_DH_EXCLUDED_VMEMMAP)
    open(ex, "wb").write(data)
    rc, _o, err = run("snapshot", "-o", os.path.join(work, "e.snap"), LAYOUT, ex)
    tap(rc == 4 and "makedumpfile -e" in err and "DUMP_DH_EXCLUDED_VMEMMAP" in err,
        "[proof] DUMP_DH_EXCLUDED_VMEMMAP set (derived copy): said, with what to do (exit %s)" % rc, err)


if __name__ == "__main__":
    sys.exit(main())
