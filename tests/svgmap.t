#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The difference map, as a reviewer sees it: the SVGs of real 7.2 images
rendered by a headless browser (Debian's chromium), and the pixels read back.

Expected pixels come from outside memmapcheck:
  - the guest geometry (scripts/prove/guest/layout.sh, boot RAM 320 MiB): range 0 is
    the 64 MiB devdax 2M map=mem namespace at pfn 0x14000, range 2 the 128 MiB
    one at 0x20000, both of 2 MiB (512-page) compound pages from their start;
  - the mutant's own semantics (patches/7.2/mut-stale-compound-head.patch):
    "page[2..] of every compound page but the first keep compound_info
    pointing at the first head of the range", so in ranges 0 and 2 exactly
    the pfns head+2..head+511 of every compound page but the first differ,
    in compound_info;
  - two boots of the same kernel (7.2-base-b1, -b2) must be identical (the
    guests are made deterministic for that), so no differing colour at all.
The column of a pfn is computed here from the geometry each SVG declares
(data-start-pfn, data-pages, data-columns, data-plot-x, data-column-width,
row data-y): column = (pfn - start) * columns // pages.  TAP output.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, Tap, layout_of, skip_all, unpack  # noqa: E402

RED = (0xd6, 0x27, 0x28)
SVGNS = "{http://www.w3.org/2000/svg}"
tap = Tap()


def chromium():
    for c in ("chromium", "chromium-browser"):
        p = shutil.which(c)
        if p:
            return p
    return None


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, w = 8, b"", None
    while pos < len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if ctype == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("%s: PNG depth %d colour %d interlace %d not handled"
                                 % (path, depth, colour, interlace))
            bpp = 3 if colour == 2 else 4
        elif ctype == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 0xff
            elif ftype == 2:
                line[x] = (line[x] + b) & 0xff
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 0xff
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def is_red(px):
    return all(abs(px[k] - RED[k]) <= 6 for k in range(3))


def screenshot(browser, svg, png, width, height, work):
    profile = tempfile.mkdtemp(dir=work)
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--hide-scrollbars",
           "--force-device-scale-factor=1", "--user-data-dir=" + profile,
           "--window-size=%d,%d" % (width, height), "--screenshot=" + png,
           "file://" + svg]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    return r.returncode == 0 and os.path.exists(png), r.stdout.decode(errors="replace")


class Picture:
    """An SVG of the map and its rendering."""

    def __init__(self, svg, png_rows):
        root = ET.parse(svg).getroot()
        self.start = int(root.get("data-start-pfn"))
        self.pages = int(root.get("data-pages"))
        self.columns = int(root.get("data-columns"))
        self.plot_x = int(root.get("data-plot-x"))
        self.colw = int(root.get("data-column-width"))
        self.rows = {}
        for g in root.iter(SVGNS + "g"):
            if g.get("data-row"):
                self.rows[g.get("data-row")] = (int(g.get("data-y")), int(g.get("data-height")))
        self.px = png_rows

    def column(self, pfn):
        return (pfn - self.start) * self.columns // self.pages

    def pixel(self, row, col):
        y, h = self.rows[row]
        return self.px[y + h // 2][self.plot_x + col * self.colw + self.colw // 2]

    def red_columns(self, row):
        return {c for c in range(self.columns) if is_red(self.pixel(row, c))}

    def any_red(self):
        return any(is_red(p) for line in self.px for p in line)


def main():
    browser = chromium()
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    if not browser:
        skip_all("no chromium (apt-get install chromium)")
    work = tempfile.mkdtemp(prefix="svgmap.")
    try:
        run(browser, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(tap.plan())


def draw(a, b, outdir):
    """memmapcheck diff --map outdir a b: (exit code, how)."""
    cmd = [CLI, "diff", "-q", "-n", "0", "--map", outdir, a, b]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return r.returncode, "memmapcheck diff --map"


def render_all(browser, outdir, work):
    pics, errors = {}, []
    for name in sorted(os.listdir(outdir)):
        if not name.endswith(".svg"):
            continue
        svg = os.path.join(outdir, name)
        root = ET.parse(svg).getroot()
        w, h = int(root.get("width")), int(root.get("height"))
        png = os.path.join(work, name + ".png")
        ok, out = screenshot(browser, svg, png, w, h, work)
        if not ok:
            errors.append("%s: %s" % (name, out[-500:]))
            continue
        pw, ph, rows = read_png(png)
        if (pw, ph) != (w, h):
            errors.append("%s: rendered %dx%d, SVG says %dx%d" % (name, pw, ph, w, h))
            continue
        pics[int(name[len("range-"):-len(".svg")])] = Picture(svg, rows)
    return pics, errors


def run(browser, work):
    dumps, err = unpack("7.2")
    if not dumps or not os.path.isdir(dumps):
        tap.skip("committed 7.2 dumps not unpacked: " +
                 (err.strip().splitlines() or ["unpack-dumps.sh failed"])[-1][-200:])
        return
    snaps = {}
    for image in ("7.2-base-b1", "7.2-base-b2", "7.2-mut-stale-compound-head-b1"):
        snaps[image] = os.path.join(work, image + ".snap")
        r = subprocess.run([CLI, "snapshot", "-q", "-o", snaps[image], layout_of(image),
                            os.path.join(dumps, image + ".kdump")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            tap(False, "snapshot of " + image, r.stdout.decode())
            return
    tap(True, "snapshots of 7.2-base-b1, -b2 and mut-stale-compound-head-b1")
    # one picture per range of the image (the guest layout's namespaces,
    # test_hmm chunks and p2pdma BAR: 15 on 7.2's standard layout)
    r = subprocess.run([CLI, "ranges", "-f", "json", snaps["7.2-base-b1"]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    nr = len(json.loads(r.stdout.decode())["ranges"]) if r.returncode == 0 else -1

    # two boots of one kernel: nothing red anywhere
    same = os.path.join(work, "same")
    rc, how = draw(snaps["7.2-base-b1"], snaps["7.2-base-b2"], same)
    tap(rc == 0, "base-b1 vs base-b2: %s exits 0 (identical), got %s" % (how, rc))
    pics, errors = render_all(browser, same, work)
    tap(not errors and len(pics) == nr,
        "base-b1 vs base-b2: chromium rendered all %d range pictures at their declared size" % nr,
        "\n".join(errors))
    reds = [i for i, p in sorted(pics.items()) if p.any_red()]
    tap(pics and not reds, "base-b1 vs base-b2: no differing colour in any picture",
        "red in ranges %s" % reds)

    # the mutant
    mut = os.path.join(work, "mut")
    rc, how = draw(snaps["7.2-base-b1"], snaps["7.2-mut-stale-compound-head-b1"], mut)
    tap(rc == 1, "base vs mut-stale-compound-head: %s exits 1 (different), got %s" % (how, rc))
    pics, errors = render_all(browser, mut, work)
    tap(not errors and len(pics) == nr, "mutant: chromium rendered all %d range pictures" % nr,
        "\n".join(errors))
    for ri, start, size_mib in ((0, 0x14000, 64), (2, 0x20000, 128)):
        p = pics.get(ri)
        if not p:
            tap(False, "range %d rendered" % ri)
            continue
        pages = size_mib << 8
        want = set()
        for head in range(start + 512, start + pages, 512):
            for pfn in range(head + 2, head + 512):
                want.add(p.column(pfn))
        geo_ok = p.start == start and p.pages == pages
        for row in ("compound_info", "any field"):
            got = p.red_columns(row) if row in p.rows else None
            tap(geo_ok and got == want,
                "range %d (pfn %#x, %d MiB, devdax 2M map=mem): '%s' row red in exactly the "
                "%d columns holding page[2..511] of compound pages 2.. (from the mutant's "
                "semantics)" % (ri, start, size_mib, row, len(want)),
                "start %#x pages %d; missing columns %s; extra columns %s" % (
                    p.start, p.pages, sorted(want - (got or set()))[:20],
                    sorted((got or set()) - want)[:20]))
        first_red = min(p.red_columns("compound_info") or {-1})
        tap(first_red == p.column(start + 512 + 2),
            "range %d: the first red column is the one holding pfn %#x (head of the second "
            "compound page + 2): column %d" % (ri, start + 512 + 2, first_red))
    p = pics.get(1)
    tap(p is not None and not p.any_red(),
        "range 1 (devdax 4K map=mem: order-0 pages, no compound tail to go stale): no red")
    with open(os.path.join(mut, "index.html")) as f:
        index = f.read()
    tap(nr > 0 and all(("range-%02d.svg" % i) in index for i in range(nr)),
        "index.html shows all %d range pictures" % nr)


main()
