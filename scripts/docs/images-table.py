#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Markdown table of the test images and what each proves, from
test-vectors/images.tsv and test-vectors/verdicts.tsv (for README.md),
then the images of test-vectors/hvo-images.txt that images.tsv does not
list yet (issue 19's, in the cache only until dumps/hvo.tar.xz is
committed): their kernel from images.tsv's image of the same kernel
version, what they prove from scripts/docs/hvo-images.tsv, and the
capture command make-vectors.sh uses for them."""
import collections
import os
import re

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


def listed(path):
    """The names of an images file (test-vectors/*-images.txt), or []."""
    try:
        with open(path) as f:
            return [w for w in (line.split("#", 1)[0].strip() for line in f) if w]
    except OSError:
        return []


# issue 19's images not in images.tsv yet
hvo_proves = {}
with open(os.path.join(top, "scripts", "docs", "hvo-images.tsv")) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        name, what = line.rstrip("\n").split("\t")
        hvo_proves[name] = what
kernel_of_kver = {}
for name, row in images.items():
    kernel_of_kver.setdefault(name.split("-", 1)[0], row["kernel"])
# issue 19's images last, in hvo-images.txt's order, whether images.tsv
# lists them (dumps/hvo.tar.xz) or not
for name in listed(os.path.join(top, "test-vectors", "hvo-images.txt")):
    row = images.pop(name, None)
    if row is None:
        kernel = re.sub(r"-b\d+$", "", name)
        row = {"kernel": kernel_of_kver.get(name.split("-", 1)[0], "?"), "kaslr": "0",
               "regenerate": "scripts/prove/capture.sh $CACHE/kernels/%s %s --layout standard-hvo"
                             % (kernel, name)}
    images[name] = row
    proves[name].append(hvo_proves.get(name, ""))

print("| image | kernel | KASLR | what it proves | regenerate |")
print("| --- | --- | --- | --- | --- |")
for name, row in images.items():
    p = "; ".join(x for x in proves.get(name, []) if x) or \
        ("reference image" if "base" in name or "stock" in name else "")
    print("| `%s` | %s | %s | %s | `%s` |" % (name, row["kernel"], "yes" if row["kaslr"] == "1" else "no",
                                           p, row["regenerate"].split(";")[0]))
