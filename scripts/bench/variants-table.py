#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The variants of a `scripts/bench/bench.sh --variant` run (doc/upstream/libkdumpfile):
CPU seconds of snapshot and of the per-page loop per libkdumpfile build, and
the change against the head build.  usage: variants-table.py RESULTS.tsv"""
import sys, csv
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
order = ["debian 0.5.1", "lkf-head", "lkf-series", "lkf-series-skip", "lkf-series-cache16", "lkf-series-skip-cache16"]
desc = {"debian 0.5.1": "Debian's libkdumpfile 0.5.1", "lkf-head": "head (764baba)",
        "lkf-series": "head + 0001-0003", "lkf-series-skip": "+ file.skip_checksums=1",
        "lkf-series-cache16": "+ cache.size=16 (no patch)", "lkf-series-skip-cache16": "+ both"}
t = {}
imgs = []
for r in rows:
    v = r["note"][8:] if r["note"].startswith("variant ") else "debian 0.5.1"
    if r["tool"] not in ("snapshot", "kdump_read/page"): continue
    key = (r["image"], r["format"])
    if key not in imgs: imgs.append(key)
    t[(key, v, r["tool"])] = float(r["cpu_seconds"])
print("| dump | libkdumpfile | snapshot CPU s | vs head | per-page loop CPU s | vs head |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for key in imgs:
    hs = t.get((key, "lkf-head", "snapshot")); hk = t.get((key, "lkf-head", "kdump_read/page"))
    for v in order:
        s = t.get((key, v, "snapshot")); k = t.get((key, v, "kdump_read/page"))
        if s is None: continue
        pct = lambda a, b: ("%+.0f %%" % (100 * (a - b) / b)) if a is not None and b else "-"
        print("| %s %s | %s | %.3f | %s | %s | %s |" % (key[0].replace("6.12-base-", ""), key[1], desc[v], s,
              pct(s, hs) if v != "lkf-head" else "", "%.3f" % k if k is not None else "-", pct(k, hk) if v != "lkf-head" else ""))
