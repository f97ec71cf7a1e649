#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Markdown table of the committed test images and what each proves, from
test-vectors/images.tsv and test-vectors/verdicts.tsv (for README.md)."""
import collections
import os

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
images = collections.OrderedDict()
with open(os.path.join(top, "test-vectors", "images.tsv")) as f:
    head = f.readline().rstrip("\n").split("\t")
    for line in f:
        row = dict(zip(head, line.rstrip("\n").split("\t")))
        images[row["image"]] = row
proves = collections.defaultdict(list)
with open(os.path.join(top, "test-vectors", "verdicts.tsv")) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        kind, base, other, verdict, fields, ranges, note = line.rstrip("\n").split("\t")
        note = note.split(" (")[0]
        if kind == "diff":
            what = "vs %s: **%s**" % (base, verdict)
            if fields != "-":
                what += " in %s" % fields.replace(",", ", ")
            proves[other].append("%s — %s" % (what, note) if note else what)
        else:
            proves[base].append("lint: **%s** (%s) — %s" % (verdict, fields.replace(",", ", "), note))
print("| image | kernel | KASLR | what it proves | regenerate |")
print("| --- | --- | --- | --- | --- |")
for name, row in images.items():
    p = "; ".join(proves.get(name, [])) or ("reference image" if "base" in name or "stock" in name else "")
    print("| `%s` | %s | %s | %s | `%s` |" % (name, row["kernel"], "yes" if row["kaslr"] == "1" else "no",
                                           p, row["regenerate"].split(";")[0]))
