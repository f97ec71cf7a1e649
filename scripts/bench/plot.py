#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Scaling plot of a `make bench` run as SVG, no plotting library needed.

usage: plot.py RESULTS.tsv [RESULTS.tsv ...] > plot.svg

Two log-log panels over struct pages walked: the CPU seconds (user + system;
the machine is shared, its wall times are mostly waiting) of `memmapcheck
snapshot` and its peak RSS, one line per namespace mode and dump format
(real guests and synthetic images of simulated sizes), with the targets of
issue 9 as dashed lines (100 M struct pages/s; 64 MiB peak RSS).
"""
import math
import re
import sys
from collections import OrderedDict

MODES = {"devdax1g": "devdax 1G (FINDINGS 2)", "devdax1g-aligned": "devdax 1G aligned", "devdax2m-mem": "devdax 2M map=mem",
         "devdax2m-dev": "devdax 2M map=dev", "fsdax": "fsdax 2M map=mem",
         "pair": "2M map=mem + map=dev"}
FORMATS = {"zlib": "kdump-zlib", "lzo": "kdump-lzo", "zstd": "kdump-zstd",
           "snappy": "kdump-snappy", "elf": "ELF", "elf-kcore": "ELF, kcore reader",
           "none": "kdump, uncompressed"}
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
           "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#637939"]


def load(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f]


MODE_COLOURS = {"devdax1g": "#1f77b4", "devdax1g-aligned": "#17becf", "devdax2m-mem": "#d62728", "devdax2m-dev": "#2ca02c",
                "fsdax": "#9467bd", "pair": "#ff7f0e"}
DASHES = {"zlib": None, "lzo": "8,3", "zstd": "2,2", "snappy": "8,3,2,3", "elf": "14,4",
          "elf-kcore": "4,4"}


def series_of(r):
    """(label, colour, dash) of a snapshot measurement, None to leave it out."""
    m = re.match(r"^(synth-)?(?:[0-9.]+-[a-z0-9]+-)?(.*?)-(\d+)g$", r["image"])
    if not m or r["note"].startswith("variant "):
        return None
    synth, mode = m.group(1), m.group(2)
    fmt = FORMATS.get(r["format"], r["format"])
    name = MODES.get(mode, mode)
    if synth:	# the synthetic images are healthy in every mode
        name = name.replace(" (FINDINGS 2)", "")
    label = "%s, %s%s" % (name, "synthetic " if synth else "", fmt)
    return label, MODE_COLOURS.get(mode, "#7f7f7f"), DASHES.get(r["format"])


class Panel:
    def __init__(self, x0, y0, w, h, xr, yr, title, ylabel):
        self.x0, self.y0, self.w, self.h = x0, y0, w, h
        self.lx = (math.log10(xr[0]), math.log10(xr[1]))
        self.ly = (math.log10(yr[0]), math.log10(yr[1]))
        self.title, self.ylabel, self.out = title, ylabel, []

    def px(self, x):
        return self.x0 + (math.log10(x) - self.lx[0]) / (self.lx[1] - self.lx[0]) * self.w

    def py(self, y):
        return self.y0 + self.h - (math.log10(y) - self.ly[0]) / (self.ly[1] - self.ly[0]) * self.h

    def axes(self, yfmt):
        o = self.out
        o.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#000"/>'
                 % (self.x0, self.y0, self.w, self.h))
        for e in range(math.ceil(self.lx[0]), math.floor(self.lx[1]) + 1):
            x = self.px(10 ** e)
            o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>'
                     % (x, self.y0, x, self.y0 + self.h))
            o.append('<text x="%.1f" y="%.1f" text-anchor="middle">10<tspan dy="-5" '
                     'font-size="9">%d</tspan></text>' % (x, self.y0 + self.h + 16, e))
        for e in range(math.ceil(self.ly[0]), math.floor(self.ly[1]) + 1):
            y = self.py(10 ** e)
            o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>'
                     % (self.x0, y, self.x0 + self.w, y))
            o.append('<text x="%.1f" y="%.1f" text-anchor="end">%s</text>'
                     % (self.x0 - 5, y + 4, yfmt(10 ** e)))
        o.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%s</text>'
                 % (self.x0 + self.w / 2, self.y0 - 8, self.title))
        o.append('<text x="%.1f" y="%.1f" text-anchor="middle">struct pages walked</text>'
                 % (self.x0 + self.w / 2, self.y0 + self.h + 34))
        o.append('<text transform="translate(%.1f,%.1f) rotate(-90)" text-anchor="middle">%s</text>'
                 % (self.x0 - 62, self.y0 + self.h / 2, self.ylabel))

    def line(self, pts, colour, dash=None, marker=None, width=1.6):
        pts = sorted(pts)
        d = " ".join("%.1f,%.1f" % (self.px(x), self.py(y)) for x, y in pts)
        self.out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f"%s/>'
                        % (d, colour, width, ' stroke-dasharray="%s"' % dash if dash else ""))
        for x, y in pts if marker else []:
            self.out.append(marker % (self.px(x), self.py(y), colour))

    def note(self, x, y, text, colour="#555"):
        self.out.append('<text x="%.1f" y="%.1f" fill="%s" font-size="10">%s</text>'
                        % (self.px(x), self.py(y), colour, text))


def secs(v):
    return ("%g s" % v) if v >= 1 else ("%g ms" % (v * 1000))


def mib(v):
    return "%g MiB" % v


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = [r for path in argv[1:] for r in load(path)
            if r["tool"] == "snapshot" and float(r["cpu_seconds"]) > 0]
    series = OrderedDict()
    for r in sorted(rows, key=lambda r: (r["image"].startswith("synth-"), r["image"])):
        s = series_of(r)
        if s:
            series.setdefault(s, []).append((int(r["pages"]), float(r["cpu_seconds"]),
                                             int(r["rss_kib"]) / 1024.0))
    series = OrderedDict(sorted(series.items(), key=lambda kv: ("synthetic" in kv[0][0], kv[0][0])))
    if not series:
        print("plot: no snapshot measurements in %s" % " ".join(argv[1:]), file=sys.stderr)
        return 1
    pages = [p for v in series.values() for p, _, _ in v]
    sec = [s for v in series.values() for _, s, _ in v]
    rss = [m for v in series.values() for _, _, m in v]
    xr = (10 ** math.floor(math.log10(min(pages))), 10 ** math.ceil(math.log10(max(pages))))
    yr = (10 ** math.floor(math.log10(min(sec + [xr[0] / 1e8]))),
          10 ** math.ceil(math.log10(max(sec))))
    mr = (10 ** math.floor(math.log10(max(min(rss), 1))), 10 ** math.ceil(math.log10(max(rss + [64]))))
    W, H, ph = 1100, 440 + 8 * len(series), 300
    a = Panel(90, 40, 420, ph, xr, yr, "memmapcheck snapshot: CPU time", "CPU seconds (user + system)")
    b = Panel(660, 40, 420, ph, xr, mr, "memmapcheck snapshot: peak RSS", "peak RSS")
    a.axes(secs)
    b.axes(mib)
    # targets: 100 M struct pages/s; peak RSS 64 MiB
    a.line([(xr[0], xr[0] / 1e8), (xr[1], xr[1] / 1e8)], "#888", "6,4", None, 1)
    a.note(xr[1] / 30, xr[1] / 30 / 1e8 / 2.5, "100 M pages/s")
    b.line([(xr[0], 64), (xr[1], 64)], "#888", "6,4", None, 1)
    b.note(xr[0] * 1.5, 64 * 1.15, "64 MiB")
    legend = []
    dot = '<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>'
    square = '<rect x="%.1f" y="%.1f" width="5" height="5" fill="%s" transform="translate(-2.5,-2.5)"/>'
    for i, ((name, c, dash), pts) in enumerate(series.items()):
        mk = square if "synthetic" in name else dot
        a.line([(p, s) for p, s, _ in pts], c, dash, mk)
        b.line([(p, m) for p, _, m in pts], c, dash, mk)
        col, row = i % 2, i // 2
        x, y = 90 + 500 * col, 40 + ph + 60 + 16 * row
        legend.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                      % (x, y, x + 36, y, c, ' stroke-dasharray="%s"' % dash if dash else ""))
        legend.append((mk % (x + 18, y, c)))
        legend.append('<text x="%d" y="%d">%s</text>'
                      % (x + 44, y + 4, name.replace("&", "&amp;").replace("<", "&lt;")))
    print('<?xml version="1.0" encoding="UTF-8"?>')
    print('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
          'font-family="sans-serif" font-size="11">' % (W, H))
    print('<rect width="100%" height="100%" fill="#fff"/>')
    for line in a.out + b.out + legend:
        print(line)
    print("</svg>")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
