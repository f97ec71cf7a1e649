#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/vectors/trim-dump.py on a committed full dump (6.12-base-b1, unpacked by
scripts/vectors/unpack-dumps.sh): the trimmed copy must give what the full dump
gives.

Expected values come from the full dump, not from the trimmer: memmapcheck's
snapshot of it (the trimmed dump's must be byte-identical, read under the
same file name), its lint output, `makedumpfile --dump-dmesg` of it, and
scripts/oracle/physmem.py's marker search in it (tests/landing.t's question).  Page
by page, with physmem.py's reader (not the trimmer's): every page the copy
holds is the full dump's, the first bitmap is unchanged, and a page left
out reads as absent, never as zeros.  Each check is a proof of equivalence
against the full image, not a recorded verdict.  TAP output.

MMC_TRIM_IMAGES="IMG..." trims other images of the committed 6.12 and 7.2
groups instead (each must be a full one: test-vectors/crash-images.txt).
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, Tap, group_of, layout_of, skip_all, unpacked  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import physmem  # noqa: E402

tap = Tap(diag_lines=20)


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def bitmap1(path):
    """The first bitmap (memory present), by physmem.py's header reading."""
    d = physmem.Dump(path)
    sub_blocks = struct.unpack_from("<i", d.m, 432)[0]
    return bytes(d.m[d.bs * (1 + sub_blocks):d.bm2])


def check(image, full, w):
    layout = layout_of(image)
    if not os.path.exists(layout):
        tap.skip("no %s" % layout, "%s: trim" % image)
        return
    for side in ("full", "trim"):
        os.makedirs(os.path.join(w, side), exist_ok=True)
    name = image + ".kdump"
    trimmed = os.path.join(w, "trim", name)
    os.symlink(full, os.path.join(w, "full", name))
    rc, _o, err = run([sys.executable, os.path.join(TOP, "scripts", "vectors", "trim-dump.py"),
                       layout, full, trimmed])
    tap(rc == 0 and os.path.getsize(trimmed) < os.path.getsize(full),
        "%s: trimmed, %d -> %d bytes" % (image, os.path.getsize(full),
                                        os.path.getsize(trimmed) if rc == 0 else 0), err)
    if rc:
        return

    # bad input: exit 2 naming the file, nothing written
    bad_out = os.path.join(w, "bad.kdump")
    rc, _o, err = run([sys.executable, os.path.join(TOP, "scripts", "vectors", "trim-dump.py"),
                       layout, layout, bad_out])
    tap(rc == 2 and layout in err and not os.path.exists(bad_out),
        "%s: a layout file given as the dump: exit %d naming it, no output" % (image, rc), err)

    # the pages, by physmem.py's reader
    f, t = physmem.Dump(full), physmem.Dump(trimmed)
    kept = set(t.index())
    bad = [p for p in sorted(kept) if p not in f.index() or f.page(p) != t.page(p)]
    tap(kept and not bad, "%s: each of the %d pages kept is the full dump's" % (image, len(kept)),
        "pages differing or not in the full dump: %s" % [hex(p) for p in bad[:10]])
    tap(bitmap1(full) == bitmap1(trimmed), "%s: first bitmap (memory present) unchanged" % image)
    dropped = sorted(set(f.index()) - kept)
    try:
        t.page(dropped[len(dropped) // 2])
        absent = False
    except KeyError:
        absent = True
    tap(dropped and absent, "%s: %d pages left out; pfn %#x reads as absent, not as zeros" %
        (image, len(dropped), dropped[len(dropped) // 2] if dropped else 0))

    # memmapcheck: the same snapshot under the same file name
    snaps = {}
    for side in ("full", "trim"):
        rc, _o, err = run([CLI, "snapshot", "-q", "-o", side + ".snap", layout, name],
                          cwd=os.path.join(w, side))
        snaps[side] = (rc, os.path.join(w, side, side + ".snap"), err)
    (rcf, sf, ef), (rct, st, et) = snaps["full"], snaps["trim"]
    same = os.path.exists(sf) and os.path.exists(st) and open(sf, "rb").read() == open(st, "rb").read()
    tap(rcf in (0, 4) and rct == rcf and same,
        "%s: snapshot exit %s as the full dump's %s, snapshot files byte-identical" % (image, rct, rcf),
        ef + et)
    rc, out, err = run([CLI, "diff", sf, st])
    out = out.decode(errors="replace")
    tap(rc == 0 and out.startswith("identical:") and "nothing unread" in out,
        "%s: diff full trimmed: %s" % (image, out.splitlines()[0] if out else "exit %d" % rc), err)
    lf, lt = run([CLI, "lint", sf]), run([CLI, "lint", st])
    tap(lf[0] == lt[0] and lf[1] == lt[1], "%s: lint exit %d and output as the full dump's (%d)" %
        (image, lt[0], lf[0]))

    # the printk log
    if not shutil.which("makedumpfile"):
        tap.skip("makedumpfile not installed", "%s: dmesg" % image)
    else:
        logs = []
        for dump, out in ((full, "full.dmesg"), (trimmed, "trim.dmesg")):
            out = os.path.join(w, out)
            rc, _o, err = run(["makedumpfile", "--dump-dmesg", dump, out])
            logs.append(open(out, "rb").read() if rc == 0 and os.path.exists(out) else None)
        tap(logs[0] and logs[0] == logs[1],
            "%s: makedumpfile --dump-dmesg: the same %d lines" %
            (image, logs[0].count(b"\n") if logs[0] else 0), err)

    # the guest's marker writes (tests/landing.t)
    needle = b"memmapcheck /dev/"
    hf, ht = f.search(needle), t.search(needle)
    tap(hf == ht, "%s: %d daxtouch markers found at the same addresses" % (image, len(hf)))


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    images = os.environ.get("MMC_TRIM_IMAGES", "6.12-base-b1").split()
    w = tempfile.mkdtemp(prefix="mmc-trim-")
    try:
        for image in images:
            g = group_of(image)
            dumps = unpacked(g)
            full = dumps and os.path.join(dumps, image + ".kdump")
            if not full or not os.path.exists(full):
                tap.skip("dumps/%s.tar.xz not unpacked" % g, "%s: trim" % image)
                continue
            d = os.path.join(w, image)
            os.makedirs(d)
            check(image, full, d)
            shutil.rmtree(d)
    finally:
        shutil.rmtree(w, ignore_errors=True)
    return tap.plan()


if __name__ == "__main__":
    sys.exit(main())
