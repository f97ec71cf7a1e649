#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lint of the HugeTLB and hot-plug ranges (engine/lint_hugetlb.c,
lint_hvo.c, lint_hotplug.c) on the real hvo-flavour dumps of issue 19
(scripts/vectors/build-kernel.sh --hvo, guest layout standard-hvo), 6.12.117
and 7.2.8: the trimmed copies committed in dumps/hvo.tar.xz, with their
kernels' saved layouts (test-vectors/layouts/); each one missing skips
loudly.  The oracle's answers, from the cache's full captures, are the
records in test-vectors/hvo-oracle/ (tests/taplib.py HvoOracle: make
check-hvo runs the oracle again and requires them).

Checks, each labelled:
  [oracle]  scripts/oracle/oracle.py hvo (scripts/oracle/oracle_hvo.py:
            drgn, its own kdump reader and page-table walk, no memmapcheck)
            `check` names, per folio and memory block, the kernel rules it
            finds broken: the tool must flag the same folios and blocks
            under the matching rules (hvo-share: HPG_vmemmap_optimized
            against the vmemmap, the tail frame, a self-hosted memmap;
            hvo-ro: a writable shared tail frame, on its tail struct pages;
            the tail rules on as many tails; self-hosted, refcount,
            mapcount on as many altmap pfns), and nothing else there.
  [proof]   what each variant's patch (patches/README.md, "HugeTLB/HVO and
            memmap_on_memory") makes of it: hist-hvo-reset-nr4 (6.12's
            fixed restore) clean; mut-hvo-tail-rw hvo-ro on the tail struct
            pages of every optimised folio; mut-mhp-no-self-hosted
            self-hosted on every memmap pfn of the DIMM's blocks
            (standard-hvo.sh's "hotplug" line: 512 per 128 MiB block).
  [guard]   the tool runs, says what it checked, and gives the same result
            page by page as by runs and patterns; the records are there.
"""
import collections
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, HvoOracle, Tap, dump_path, hvo_guest, layout_of, run, skip_all  # noqa: E402

tap = Tap(diag_lines=30)
oracle = HvoOracle(tap)
VARIANTS = {"6.12": ["base", "template", "hist-hvo-reset-nr4", "mut-hvo-tail-rw",
                     "mut-mhp-no-self-hosted"],
            "7.2": ["base", "template", "hist-hvo-reset-nr3", "mut-hvo-tail-rw",
                    "mut-mhp-no-self-hosted"]}
# HUGETLB_VMEMMAP_RESERVE_SIZE / sizeof(struct page) (mm/hugetlb_vmemmap.h):
# the struct pages of a folio's first vmemmap page
RESERVE = 4096 // 64
# the rules of a compound tail (lint_page.c), which oracle_hvo.py's
# tail_problems() checks too
TAIL_RULES = {"tail-head", "head-cycle", "order", "mapcount", "refcount", "tail-flags",
              "tail-mapping", "tail-private", "memcg", "poison"}
LINK_RULES = {"tail-head", "head-cycle", "order"}


def plug_pfns():
    """The memmap pfns of standard-hvo.sh's DIMM: those at the start of each
    memory block (taplib.hvo_guest())."""
    return set(p for s, e in hvo_guest()["memmaps"] for p in range(s, e))


class Oracle:
    """oracle.py hvo list and check of one image, by folio and block."""

    def __init__(self, listing, check):
        self.folios = {f["head"]: f for f in listing["folios"]}
        self.heads = sorted(self.folios)
        self.altmap = {}
        for b in listing["memory_blocks"]:
            a = b["altmap"]
            if a and b["state"] == "MEM_ONLINE":
                for p in range(a["base_pfn"], a["base_pfn"] + a["free"]):
                    self.altmap[p] = b["id"]
        self.share, self.rw, self.type, self.list = set(), set(), set(), set()
        self.tails = {}
        self.block = collections.defaultdict(dict)
        for line in check.splitlines():
            self.parse(line)

    def parse(self, line):
        m = re.match(r"VIOLATION folio (0x[0-9a-f]+) order \d+ \(\w+\): (.*)", line)
        if m:
            head, what = int(m.group(1), 16), m.group(2)
            t = re.match(r"(\d+) tails break", what)
            if t:
                self.tails[head] = int(t.group(1))
            elif "mapped writable" in what:
                self.rw.add(head)
            elif what.startswith("page_type"):
                self.type.add(head)
            elif what.startswith("HPG_freed"):
                self.list.add(head)
            else:
                self.share.add(head)
            return
        m = re.match(r"VIOLATION memory block (\d+) .*: (\d+) of \d+ altmap pfns lack (\S+)", line)
        if m:
            self.block[int(m.group(1))][m.group(3)] = int(m.group(2))

    def folio_of(self, pfn):
        import bisect
        i = bisect.bisect_right(self.heads, pfn) - 1
        if i >= 0 and pfn < self.heads[i] + (1 << self.folios[self.heads[i]]["order"]):
            return self.heads[i]
        return None


def lint_pages(js):
    """rule -> [pfn, ...] of every violating page (groups expanded)."""
    out = collections.defaultdict(list)
    for g in js["groups"]:
        out[g["rule"]].extend(range(g["first_pfn"], g["last_pfn"] + 1))
    return out


def compare(img, js, o):
    """The tool's violations in the HugeTLB folios and altmap pfns against
    the oracle's, rule by rule."""
    pages = lint_pages(js)
    by = collections.defaultdict(set)
    tails = collections.Counter()
    blocks = collections.defaultdict(collections.Counter)
    stray = []
    for rule, pfns in pages.items():
        for p in pfns:
            head = o.folio_of(p)
            if head is not None:
                by[rule].add(head)
                # oracle_hvo.py's tail_problems() reads page[1..3] for the
                # head link and PG_head only
                if rule in TAIL_RULES and p != head and (p - head >= 4 or rule in LINK_RULES):
                    tails[head, p] += 1
            elif p in o.altmap:
                blocks[o.altmap[p]][rule] += 1
            else:
                stray.append((rule, hex(p)))
    tap(not stray, "[oracle] %s: no violation outside the HugeTLB folios and memmap pfns" % img,
        "e.g. %s" % stray[:10])
    tap(by["hvo-share"] == o.share,
        "[oracle] %s: hvo-share on exactly the %d folios whose vmemmap the oracle finds wrong"
        % (img, len(o.share)), "tool only %s\noracle only %s"
        % ([hex(x) for x in sorted(by["hvo-share"] - o.share)][:10],
           [hex(x) for x in sorted(o.share - by["hvo-share"])][:10]))
    want_rw = sum((1 << o.folios[h]["order"]) - RESERVE for h in o.rw)
    tap(by["hvo-ro"] == o.rw and len(pages["hvo-ro"]) == want_rw,
        "[oracle] %s: hvo-ro on the %d tail struct pages of the %d folios whose shared tail frame is writable"
        % (img, want_rw, len(o.rw)), "tool %d pages on %d folios" % (len(pages["hvo-ro"]), len(by["hvo-ro"])))
    # hugetlb-list: the oracle's HPG_freed findings, and the head _refcount
    # its listing reads against enqueue_hugetlb_folio()'s 0 / a reference
    want_list = o.list | {h for h, f in o.folios.items()
                          if (f["refcount"] != 0 if f["list"] == "free" else f["refcount"] < 1)}
    tap(by["hugetlb-type"] == o.type and by["hugetlb-list"] == want_list,
        "[oracle] %s: hugetlb-type and hugetlb-list on the folios the oracle finds (%d, %d)"
        % (img, len(o.type), len(want_list)),
        "tool %d, %d" % (len(by["hugetlb-type"]), len(by["hugetlb-list"])))
    per = collections.Counter(h for h, _ in tails)
    # the oracle reads an optimised folio's shared tail page once (7.2)
    opt72 = {h for h in per if o.folios[h]["hvo"] and not o.folios[h]["tail_frame_is_head_frame"]}
    tap(set(per) == set(o.tails) and all(per[h] == o.tails[h] for h in per if h not in opt72),
        "[oracle] %s: the tail rules on the tails of the %d folios the oracle finds breaking prep_compound_tail()'s, as many of them"
        % (img, len(o.tails)), "tool %s\noracle %s" % (sorted(per.items())[:6], sorted(o.tails.items())[:6]))
    for b in sorted(set(o.block) | set(blocks)):
        want = o.block.get(b, {})
        got = blocks.get(b, {})
        tap(got.get("self-hosted", 0) == want.get("PG_vmemmap_self_hosted", 0) and
            got.get("refcount", 0) == want.get("_refcount", 0) and
            got.get("mapcount", 0) == want.get("_mapcount", 0),
            "[oracle] %s: memory block %d: self-hosted, refcount, mapcount on as many memmap pfns as the oracle finds"
            % (img, b), "tool %s\noracle %s" % (dict(got), want))
    return pages


def proof(kver, variant, pages, o):
    img = "%s-%s" % (kver, variant)
    if variant == "hist-hvo-reset-nr4":
        tap(not any(pages.values()),
            "[proof] %s: the fixed restore leaves every folio and memmap page clean" % img,
            str({r: len(p) for r, p in pages.items() if p}))
    elif variant == "mut-hvo-tail-rw":
        hvo = [h for h, f in o.folios.items() if f["hvo"]]
        tap(pages["hvo-ro"] and o.rw and o.rw <= set(hvo),
            "[proof] %s: hvo-ro on %d struct pages, all in optimised folios' tail vmemmap pages"
            % (img, len(pages["hvo-ro"])))
    elif variant == "mut-mhp-no-self-hosted":
        want = plug_pfns()
        tap(set(pages["self-hosted"]) == want,
            "[proof] %s: self-hosted on the %d memmap pfns of the DIMM's blocks" % (img, len(want)),
            "tool %d" % len(pages["self-hosted"]))


def one(kver, variant):
    img = "%s-%s-hvo-b1" % (kver, variant)
    dump, lay = dump_path(img), layout_of(img)
    if not dump or not os.path.exists(lay):
        tap.skip("%s is not in dumps/hvo.tar.xz or %s is missing" % (img, os.path.relpath(lay, TOP)),
                 "image %s" % img)
        return
    rc, out, err = run([CLI, "lint", "--json", "--max-groups", "1000000", lay, dump])
    if not tap(rc in (0, 1), "[guard] %s: lint runs (exit %d)" % (img, rc), err):
        return
    js = json.loads(out)
    rc2, out2, _ = run([CLI, "lint", "--json", "--max-groups", "1000000", lay, dump],
                       dict(os.environ, MEMMAPCHECK_PER_PAGE="1"))
    tap(rc2 == rc and out2 == out,
        "[guard] %s: the same result page by page (MEMMAPCHECK_PER_PAGE=1) as by runs and patterns" % img)
    tap(not js["rules_unchecked"], "[guard] %s: every HugeTLB and hot-plug rule checked" % img,
        js["rules_unchecked"])
    lst = oracle("list-" + img, [img], ["list", None, None, "-f", "json"])
    chk = oracle("check-" + img, [img], ["check", None, None])
    if lst is None or chk is None:
        return
    o = Oracle(lst, chk["out"])
    proof(kver, variant, compare(img, js, o), o)


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    for kver, variants in VARIANTS.items():
        for v in variants:
            one(kver, v)
    return tap.plan()


sys.exit(main())
