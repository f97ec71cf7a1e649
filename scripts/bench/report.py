#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tables of a `make bench` run (scripts/bench/bench.sh writes results.tsv).

usage: report.py RESULTS.tsv [RESULTS.tsv ...] [--md] [--summary | --hugetlb]
       report.py --images DIR [--md]   (how long each image of
                                        scripts/bench/large-images.sh took to make)

results.tsv: one measurement a line, tab-separated, with a header:
  image format tool pages seconds cpu_seconds rss_kib note
Per image: every tool's wall and CPU seconds, struct pages/s (wall and CPU),
peak RSS, and its CPU rate divided by each peer's (kmem -p, the
one-read-per-page libkdumpfile loop, drgn) over the same pfns: on a shared
machine the wall time is mostly waiting for a core, the CPU time is not; then the formats side by side, then the
scaling series.  --md prints Markdown tables (for doc/BENCHMARKS.md).
--summary: only one line per image (its first format): snapshot, compare,
lint, memmapcheck.so in crash against kmem -p, the per-page loop and drgn
as CPU-time ratios, ELF snapshot; and the base/template pairs.
The full report, given a HugeTLB image (large-images.sh --modes hugetlb1g): CPU
ns per struct page of it beside the device-dax images of the same size
("/ device-dax ns/page": the HugeTLB image's ns per page over the device-dax
one's; 1.00 or less meets issue 19's target); --hugetlb: only that table.
"""
import sys
from collections import OrderedDict

PEERS = [("crash kmem -p", "kmem -p"), ("kdump_read/page", "per-page loop"),
         ("drgn", "drgn")]


def load(path):
    rows = []
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            v = dict(zip(head, line.rstrip("\n").split("\t")))
            v["pages"] = int(v["pages"] or 0)
            v["seconds"] = float(v["seconds"] or 0)
            v["cpu_seconds"] = float(v.get("cpu_seconds") or 0)
            v["rss_kib"] = int(v["rss_kib"] or 0)
            rows.append(v)
    return rows


def variant(r):
    return r["note"].startswith("variant ")


def rate(r):
    return r["pages"] / r["seconds"] if r["seconds"] > 0 else 0.0


def crate(r):
    return r["pages"] / r["cpu_seconds"] if r["cpu_seconds"] > 0 else 0.0


def mrate(x):
    return "%.1f M" % (x / 1e6) if x >= 1e5 else "%.0f K" % (x / 1e3)


def mib(kib):
    return "%.0f MiB" % (kib / 1024.0) if kib else "-"


class Table:
    def __init__(self, md, head):
        self.md, self.head, self.rows = md, head, []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def show(self):
        if self.md:
            print("| " + " | ".join(self.head) + " |")
            print("|" + "|".join(" --- " for _ in self.head) + "|")
            for r in self.rows:
                print("| " + " | ".join(r) + " |")
        else:
            w = [max(len(x) for x in col) for col in zip(self.head, *self.rows)]
            for r in [self.head] + self.rows:
                print("  ".join(c.ljust(w[0]) if i == 0 else c.rjust(w[i])
                                for i, c in enumerate(r)))
        print()


def images_table(d, md):
    import glob
    import os
    cols = [("boot_to_ready", "ready"), ("qmp_elf", "QMP ELF"),
            ("qmp_kdump_zlib", "QMP kdump-zlib"), ("makedumpfile_R", "-R"),
            ("makedumpfile_lzo", "lzo"), ("makedumpfile_zstd", "zstd"),
            ("makedumpfile_snappy", "snappy"), ("elf_fix_and_holes", "ELF holes"),
            ("total", "total")]
    t = Table(md, ["image", "guest RAM"] + [c[1] + " s" for c in cols] +
              ["zlib MB", "ELF on disk MB"])
    metas = []
    for m in glob.glob(os.path.join(d, "*.meta")):
        v = {}
        for line in open(m):
            k, _, val = line.rstrip("\n").partition("=")
            v[k] = val
        metas.append(v)
    for v in sorted(metas, key=lambda v: (int(v.get("size_gib", 0)), v.get("image", ""))):
        def size(k, alloc=False):
            x = v.get("bytes_" + k, "")
            if not x:
                return "-"
            n = int(x.split()[1].split("=")[1]) if alloc else int(x.split()[0])
            return "%.0f" % (n / 1e6)
        t.add(v.get("image", "?"), v.get("ram_gib", "?") + " GiB",
              *[v.get("seconds_" + c[0], "-") for c in cols],
              size("zlib.kdump"), size("elf", True))
    t.show()
    return 0


def summary(images, md):
    def find(rs, fmt, tool):
        for r in rs:
            if r["format"] == fmt and r["tool"].startswith(tool) and not variant(r):
                return r
        return None

    def ratio(a, b):
        return "%.1fx" % (crate(a) / crate(b)) if a and b and crate(a) and crate(b) else "-"

    t = Table(md, ["image", "struct pages", "snapshot CPU s (wall)", "pages/CPU s", "peak RSS",
                   "compare itself CPU s", "lint CPU s", "in crash / kmem -p",
                   "/ per-page loop", "/ drgn", "ELF snapshot pages/CPU s"])
    pairs = []
    for image, rs in images.items():
        if image.startswith("synth-"):
            continue
        pairs += [r for r in rs if r["format"] == "pair"]
        fmts = [r["format"] for r in rs if r["tool"] == "snapshot" and not variant(r)]
        if not fmts:
            continue
        f0 = "zlib" if "zlib" in fmts else fmts[0]
        s = find(rs, f0, "snapshot")
        c = find(rs, f0, "compare (image vs itself)")
        lint = find(rs, f0, "lint")
        ext = find(rs, "crash", "memmapcheck.so")
        kmem = find(rs, "crash", "crash kmem -p")
        kpp = find(rs, f0, "kdump_read/page")
        drgn = find(rs, "drgn", "drgn")
        elf = find(rs, "elf", "snapshot")
        t.add("%s (%s)" % (image, f0), s["pages"], "%.3f (%.3f)" % (s["cpu_seconds"], s["seconds"]),
              mrate(crate(s)), mib(s["rss_kib"]),
              "%.3f" % c["cpu_seconds"] if c else "-", "%.3f" % lint["cpu_seconds"] if lint else "-",
              ratio(ext, kmem), ratio(s, kpp), ratio(s, drgn),
              mrate(crate(elf)) if elf else "-")
    t.show()
    if pairs:
        t = Table(md, ["pair", "tool", "struct pages", "CPU s", "seconds", "peak RSS", "note"])
        for r in pairs:
            t.add(r["image"], r["tool"], r["pages"], "%.3f" % r["cpu_seconds"], "%.3f" % r["seconds"],
                  mib(r["rss_kib"]), r["note"])
        t.show()
    return 0


def hugetlb_table(images, md, heading=True):
    """HugeTLB images beside the device-dax images of the same size: CPU
    nanoseconds per struct page of the snapshot (every range), of the
    extension's snapshot of the largest range in crash, and of `kmem -p`
    (its rate over every struct page it walks)."""
    import re

    def size_mode(image):
        m = re.search(r"-(hugetlb[a-z0-9]*|devdax[a-z0-9-]*?|fsdax)-(\d+)g$", image)
        return (m.group(1), int(m.group(2))) if m else (None, 0)

    def ns(r):
        return "%.1f" % (1e9 / crate(r)) if r and crate(r) else "-"

    def find(rs, fmt, tool):
        for r in rs:
            if r["format"] == fmt and r["tool"].startswith(tool) and not variant(r):
                return r
        return None

    sizes = {size_mode(i)[1] for i in images if (size_mode(i)[0] or "").startswith("hugetlb")}
    if not sizes:
        return
    rows = []
    for image, rs in images.items():
        mode, gib = size_mode(image)
        if gib not in sizes or not mode or mode == "fsdax":
            continue
        s = find(rs, "zlib", "snapshot") or find(rs, "elf", "snapshot")
        if s:
            rows.append((image, s, find(rs, "crash", "memmapcheck.so"), find(rs, "crash", "crash kmem -p")))
    if heading:
        print(("### " if md else "") + "HugeTLB against device-dax: CPU ns per struct page")
        print()
    t = Table(md, ["image", "format", "struct pages", "of which HugeTLB", "snapshot CPU s (wall)",
                   "ns/page", "/ device-dax ns/page", "in crash ns/page", "kmem -p ns/page",
                   "kmem -p / in crash"])
    for gib in sorted(sizes):
        dd = [x for x in rows if size_mode(x[0])[1] == gib and size_mode(x[0])[0].startswith("devdax")]
        for image, s, ext, kmem in sorted((x for x in rows if size_mode(x[0])[1] == gib),
                                          key=lambda x: x[0]):
            hp = re.search(r"(\d+) HugeTLB", s["note"])
            rel = ", ".join("%.2f (%s)" % (crate(d[1]) / crate(s), size_mode(d[0])[0])
                            for d in dd if crate(s) and crate(d[1]))
            t.add(image, s["format"], s["pages"], hp.group(1) if hp else "-",
                  "%.3f (%.3f)" % (s["cpu_seconds"], s["seconds"]), ns(s),
                  rel if size_mode(image)[0].startswith("hugetlb") and rel else "-",
                  ns(ext), ns(kmem),
                  "%.1fx" % (crate(ext) / crate(kmem)) if ext and kmem and crate(kmem) else "-")
    t.show()


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    md = "--md" in argv[2:]
    if argv[1] == "--images":
        return images_table(argv[2], "--md" in argv[3:])
    rows = [r for path in argv[1:] if not path.startswith("--") for r in load(path)]
    images = OrderedDict()
    for r in rows:
        images.setdefault(r["image"], []).append(r)
    if "--hugetlb" in argv[2:]:
        hugetlb_table(images, md, heading=False)
        return 0
    if "--summary" in argv[2:]:
        return summary(images, md)

    for image, rs in images.items():
        if image.startswith("synth-"):
            continue
        fmt0 = "zlib" if any(r["format"] == "zlib" for r in rs) else rs[0]["format"]
        main_rows = [r for r in rs if r["format"] in (fmt0, "crash", "drgn", "pair")]
        peers = {}
        for key, label in PEERS:
            for r in main_rows:
                if r["tool"].startswith(key) and not variant(r):
                    peers[label] = crate(r)
        print(("### " if md else "") + "%s (%s)" % (image, fmt0))
        print()
        t = Table(md, ["tool", "struct pages", "seconds", "CPU s", "pages/s", "pages/CPU s",
                       "peak RSS"] + ["/ " + p for p in peers])
        for r in main_rows:
            x = crate(r)
            t.add(r["tool"] + (" [%s]" % r["note"] if r["note"] else ""), r["pages"],
                  "%.3f" % r["seconds"], "%.3f" % r["cpu_seconds"], mrate(rate(r)), mrate(x),
                  mib(r["rss_kib"]),
                  *["%.1fx" % (x / peers[p]) if peers[p] and x else "-" for p in peers])
        t.show()

    # formats side by side: memmapcheck snapshot and the per-page loop
    fmts = [f for f in ("zlib", "lzo", "zstd", "snappy", "elf", "none")
            if any(r["format"] == f and not r["image"].startswith("synth-") for r in rows)]
    if fmts:
        print(("### " if md else "") + "Formats: memmapcheck snapshot / one kdump_read per page, CPU seconds")
        print()
        t = Table(md, ["image", "struct pages"] + fmts)
        for image, rs in images.items():
            if image.startswith("synth-"):
                continue
            cells = []
            pages = max((r["pages"] for r in rs if r["tool"] == "snapshot"), default=0)
            for f in fmts:
                s = [r for r in rs if r["format"] == f and r["tool"] == "snapshot"]
                k = [r for r in rs if r["format"] == f and r["tool"] == "kdump_read/page"]
                cells.append("%s / %s" % ("%.2f" % s[0]["cpu_seconds"] if s else "-",
                                          "%.2f" % k[0]["cpu_seconds"] if k else "-"))
            if any(c != "- / -" for c in cells):
                t.add(image, pages, *cells)
        t.show()

    hugetlb_table(images, md)

    # scaling: every snapshot measurement by struct pages
    print(("### " if md else "") + "Scaling: memmapcheck snapshot")
    print()
    t = Table(md, ["image", "format", "struct pages", "seconds", "CPU s", "pages/s", "peak RSS", "note"])
    for r in sorted((r for r in rows if r["tool"].startswith("snapshot")),
                    key=lambda r: (r["image"].startswith("synth-"), r["format"], r["pages"])):
        t.add(r["image"], r["format"], r["pages"], "%.3f" % r["seconds"], "%.3f" % r["cpu_seconds"],
              mrate(rate(r)), mib(r["rss_kib"]), r["note"])
    t.show()
    other = [r for r in rows if r["image"].startswith("synth-") and not r["tool"].startswith("snapshot")]
    if other:
        t = Table(md, ["image", "tool", "struct pages", "seconds", "CPU s", "pages/s", "peak RSS"])
        for r in other:
            t.add(r["image"], r["tool"], r["pages"], "%.3f" % r["seconds"], "%.3f" % r["cpu_seconds"],
                  mrate(rate(r)), mib(r["rss_kib"]))
        t.show()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
