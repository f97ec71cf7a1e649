#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The hvo mutants' predictions, in make check: what scripts/oracle/oracle.py
hvo predict says each hvo variant of patches/<kver>/ changes against its
base image (from the patch's semantics, the kernel source and the guest's
geometry, scripts/prove/guest/layouts/standard-hvo.sh, applied to the base
image's listing; never from memmapcheck), held against

  (a) what the oracle itself reads from the dumps (`oracle.py hvo diff`
      base vs variant, and base b1 vs b2 for the words that vary from
      boot to boot): the predictions and the measurements are the records
      in test-vectors/hvo-oracle/ (predict-*, diff-*; tests/taplib.py
      HvoOracle), compared with the oracle's own verify()
      (scripts/oracle/oracle_hvo_predict.py), which `oracle.py hvo verify`
      runs.  make check-hvo (MMC_HVO_LIVE=1) runs predict and diff again on
      the cache's full captures and requires the records;
  (b) memmapcheck on the committed trimmed dumps (dumps/hvo.tar.xz), for the
      mutants mut-hvo-tail-rw and mut-mhp-no-self-hosted: its diff of
      mutant against base must name exactly the predicted struct pages with
      the predicted words, the predicted shared-frame roles, vmemmap PTE
      changes and folio changes, and its lint of the mutant exactly the
      predicted violations beyond those of base.

Checks, each labelled:
  [oracle]  (a): prediction against the oracle's measurement; and the
            folios memmapcheck places apart are the oracle's (the
            placement rule of doc/DESIGN.md "Diff: what compares").
  [proof]   (b): memmapcheck against the predictions.  Where a prediction
            leaves a pfn "uncertain" (a vmemmap frame HVO frees to the
            buddy allocator: its struct page is the allocator's, whatever
            it did with it), the tool may report it or not, any field,
            any rule.  The roles and vmemmap frame changes follow from the
            predicted HVO state by the sharing rules of doc/CLAIMS.md
            ("shared-frame": a vmemmap page mapping a frame an earlier
            vmemmap page of its own folio maps) and of
            scripts/oracle/oracle.py vframe_diffs() (a vmemmap page's frame
            told by how far back its folio and its range map it first).
  [guard]   the tool runs and says "different"; a record is there.
"""
import bisect
import collections
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, HvoOracle, Tap, dump_path, layout_of, run, skip_all  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
from oracle_hvo_predict import verify  # noqa: E402  (pure Python: no drgn)

tap = Tap(diag_lines=30)
oracle = HvoOracle(tap)
VARIANTS = {"6.12": ["mut-hvo-tail-rw", "mut-mhp-no-self-hosted", "hist-hvo-reset-nr4"],
            "7.2": ["mut-hvo-tail-rw", "mut-mhp-no-self-hosted", "hist-hvo-reset-nr3"]}
MUTANTS = ("mut-hvo-tail-rw", "mut-mhp-no-self-hosted")
PER = 4096 // 64        # struct pages per vmemmap page (x86_64: 64-byte struct page)


def hexset(s, n=10):
    return [hex(x) for x in sorted(s)[:n]]


class Base:
    """The base image's listing (oracle.py hvo list): folios by head, the
    kind of a pfn's struct page (head, page[1..3], further tail: the
    index into predict()'s word_names), the altmap pfns."""

    def __init__(self, lst):
        self.folios = {f["head"]: f for f in lst["folios"]}
        self.heads = sorted(self.folios)
        self.altmap = set()
        self.hotplug = []
        for b in lst["memory_blocks"]:
            if b["altmap"]:
                self.hotplug.append((b["start_pfn"], b["end_pfn"]))
                if b["state"] == "MEM_ONLINE":
                    a = b["altmap"]
                    self.altmap.update(range(a["base_pfn"], a["base_pfn"] + a["free"]))

    def kind(self, pfn):
        i = bisect.bisect_right(self.heads, pfn) - 1
        if i >= 0:
            h = self.heads[i]
            if pfn - h < 1 << self.folios[h]["order"]:
                return min(pfn - h, 4)
        return 0

    def on_hotplug(self, pfn):
        return any(s <= pfn < e for s, e in self.hotplug)


def tail_frame_first(kver, k):
    """Whether vmemmap page k (>= 1) of an optimised folio is the first of
    its folio to map the frame it maps: 6.12 remaps vmemmap pages 1..N-1
    onto the head's frame (vmemmap_tail = vmemmap_head), which page 0 maps
    already; 7.x onto the zone's tail frame (vmemmap_get_tail()), which
    page 1 maps first."""
    return not kver.startswith("6.") and k == 1


def predicted_hvo(base, pred):
    """{head: (hvo in base, hvo in the variant)} of every base folio."""
    out = {}
    for h, f in base.folios.items():
        ch = pred["folios"].get("%#x" % h, {})
        out[h] = (f["hvo"], ch["hvo"][1] if "hvo" in ch else f["hvo"])
    return out


def roles(kver, base, hvo):
    """The struct pages whose role (doc/CLAIMS.md shared-frame) the variant
    changes: those on vmemmap pages of a folio whose HVO it changes that
    map a frame an earlier vmemmap page of the folio maps."""
    out = set()
    for h, (a, b) in hvo.items():
        if a == b:
            continue
        nr = 1 << base.folios[h]["order"]
        for k in range(1, nr // PER):
            if not tail_frame_first(kver, k):
                out.update(range(h + k * PER, h + (k + 1) * PER))
    return out


def vframes(kver, base, hvo, start, end, which):
    """Per vmemmap page of [start, end): (how far back its folio maps its
    frame first, how far back the range does), which = 0 base, 1 variant
    (as scripts/oracle/oracle.py vframe_diffs() describes a vmemmap page)."""
    out = []
    first = {}
    for h in base.heads:
        if not start <= h < end:
            continue
        nr = 1 << base.folios[h]["order"]
        seen = {}
        for k in range(nr // PER):
            v = (h + k * PER) // PER
            if hvo[h][which] and kver.startswith("6."):
                f = ("head", h)         # vmemmap pages 0..N-1: the head's frame
            elif hvo[h][which] and k:
                f = ("zone", base.folios[h]["order"])
            else:
                f = ("own", v)
            first.setdefault(f, v)
            out.append((v - seen[f] if f in seen else 0, v - first[f]))
            seen.setdefault(f, v)
    return out


def diff_checks(kver, variant, img, pred, got, base, lay, dumps):
    """(b), diff: memmapcheck compare base vs mutant on the trimmed dumps."""
    rc, out, err = run([CLI, "compare", "-q", "--all-pages", "-f", "json"] + [x for p in zip(lay, dumps) for x in p])
    if not tap(rc == 1, "[guard] %s: compare with base runs and says different (exit %d)" % (img, rc), err):
        return
    js = json.loads(out)
    names = pred["word_names"]
    unc = {int(p, 16) for p in pred["uncertain"]}
    want = {int(p, 16): sorted(w) for p, w in pred["struct_pages"].items()}
    tool = {}
    for pg in js["pages"]:
        if pg["slots"]:
            k = base.kind(pg["pfn"])
            tool[pg["pfn"]] = sorted({names[k][s["offset"] // 8] for s in pg["slots"]})
    miss = set(want) - set(tool)
    extra = set(tool) - set(want) - unc
    wrong = sorted(p for p in set(want) & set(tool) if want[p] != tool[p])
    per_word = collections.Counter(w for ws in want.values() for w in ws)
    tap(not miss and not extra and not wrong,
        "[proof] %s vs base: the %d predicted struct pages differ, in the predicted words (%s), "
        "nothing else but %d of the %d uncertain pfns"
        % (img, len(want), ", ".join("%s %d" % kv for kv in sorted(per_word.items())),
           len(set(tool) & unc), len(unc)),
        "missed %s\nnot predicted %s\nother words %s"
        % (hexset(miss), hexset(extra), [(hex(p), want[p], tool[p]) for p in wrong[:5]]))
    hvo = predicted_hvo(base, pred)
    want_roles = roles(kver, base, hvo)
    got_roles = {pg["pfn"] for pg in js["pages"] if pg["role_differs"]}
    tap(got_roles == want_roles,
        "[proof] %s vs base: role changes on the %d struct pages a folio's newly shared vmemmap frames hold"
        % (img, len(want_roles)),
        "tool %d; missed %s, not predicted %s"
        % (len(got_roles), hexset(want_roles - got_roles), hexset(got_roles - want_roles)))
    # folio changes: HVO (the tool's pool differences), and the vmemmap
    # PTEs' writable bit (vmemmap pages 1..N-1 of a folio whose tail_rw
    # the variant changes), range by range; folios placed apart are not
    # compared (doc/DESIGN.md), as the oracle's diff leaves them out
    placed = {int(h, 16) for h in got["placement"]["only_in_base"]}
    want_pg = sorted("folio at pfn %#x vmemmap: %s vs %s" % (h, "optimised" if a else "plain",
                                                           "optimised" if b else "plain")
                     for h, (a, b) in hvo.items() if a != b and h not in placed)
    tap(sorted(js["pgmap_diffs"]) == want_pg,
        "[proof] %s vs base: the pool differences are the %d folios whose HVO the variant changes"
        % (img, len(want_pg)), "tool %s\npredicted %s" % (js["pgmap_diffs"][:6], want_pg[:6]))
    rw = {h for h, ch in pred["folios"].items() if "tail_rw" in ch}
    bad = []
    n_rw = n_fr = 0
    for r in js["ranges"]:
        s, e = r["start_pfn"], r["end_pfn"]
        w = sum((1 << base.folios[h]["order"]) // PER - 1 for h in base.heads
                if s <= h < e and "%#x" % h in rw and h not in placed)
        fr = 0
        if r["type"] == "hugetlb":
            fr = sum(x != y for x, y in zip(vframes(kver, base, hvo, s, e, 0),
                                            vframes(kver, base, hvo, s, e, 1)))
        n_rw += w
        n_fr += fr
        got_w = r["fields"].get("vmemmap_writable", 0)
        got_f = r["fields"].get("vmemmap_frame", 0)
        if (got_w, got_f) != (w, fr):
            bad.append("range %#x-%#x: vmemmap_writable %d frame %d, predicted %d %d" % (s, e, got_w, got_f, w, fr))
    tap(not bad, "[proof] %s vs base: vmemmap_writable on the %d vmemmap pages of the folios whose tail PTEs "
        "the variant changes, vmemmap_frame on %d, range by range" % (img, n_rw, n_fr), "\n".join(bad))
    placed_t = sorted((p["pfn"], p["only_in"]) for p in js.get("placement", []))
    placed_o = sorted([(int(h, 16), "base") for h in got["placement"]["only_in_base"]] +
                      [(int(h, 16), "patched") for h in got["placement"]["only_in_other"]])
    tap(placed_t == placed_o, "[oracle] %s vs base: the folios placed apart are the oracle's (%d)"
        % (img, len(placed_o)), "tool %s\noracle %s" % (placed_t, placed_o))


_lints = {}


def lint_groups(lay, dump):
    """memmapcheck lint's violation groups of a dump, (rule, first pfn,
    last pfn) each (once per dump), or None; and its stderr."""
    if dump not in _lints:
        rc, out, err = run([CLI, "lint", "--json", "--max-groups", "1000000", lay, dump])
        groups = None
        if rc in (0, 1):
            groups = {(g["rule"], g["first_pfn"], g["last_pfn"]) for g in json.loads(out)["groups"]}
        _lints[dump] = groups, err
    return _lints[dump]


def pages(groups):
    return {(r, p) for r, a, b in groups for p in range(a, b + 1)}


def lint_checks(kver, variant, img, pred, got, base, mlist, lay, dumps):
    """(b), lint: memmapcheck lint of the mutant, against the base's."""
    lb, err = lint_groups(lay[0], dumps[0])
    lm, err2 = lint_groups(lay[1], dumps[1])
    if not tap(lb is not None and lm is not None, "[guard] lint runs on %s and its base" % img, err + err2):
        return
    # the pages flagged in one image only: a rule's groups of one image do
    # not overlap, so those of the groups the other image has not
    only_m, only_b = pages(lm - lb), pages(lb - lm)
    added, removed = only_m - only_b, only_b - only_m
    unc = {int(p, 16) for p in pred["uncertain"]}
    hvo = predicted_hvo(base, pred)
    # hvo-ro: the tail struct pages (past the first vmemmap page) of every
    # folio whose tail PTEs the variant makes writable; a folio placed
    # apart is one of the variant's placed folios of that order instead
    ro = {int(h, 16) for h, ch in pred["folios"].items() if ch.get("tail_rw", [0, [False]])[1] == [True]}
    apart = {int(h, 16) for h in got["placement"]["only_in_base"]}
    heads = {h: base.folios[h]["order"] for h in ro - apart}
    if apart & ro:
        # the buddy allocator put these run-time folios elsewhere in the
        # mutant (placement): its folios at pfns only it has take their
        # place, with their state (the pools alike), at the orders the
        # oracle lists there
        if not tap(apart <= ro, "[proof] %s: the folios placed apart all have the predicted writable tails" % img,
                   "placed apart %s, predicted %s" % (hexset(apart), hexset(apart & ro))):
            return
        lm_orders = {f["head"]: f["order"] for f in mlist["folios"]}
        heads.update((int(h, 16), lm_orders[int(h, 16)]) for h in got["placement"]["only_in_other"])
    want = {("hvo-ro", p) for h, o in heads.items() for p in range(h + PER, h + (1 << o))}
    # self-hosted: the patch drops SetPageVmemmapSelfHosted() for every
    # memmap_on_memory pfn (its prediction: flags of each, the freed frames
    # uncertain)
    if variant == "mut-mhp-no-self-hosted":
        lost = {int(p, 16) for p, w in pred["struct_pages"].items() if "flags" in w} | unc
        tap(lost & base.altmap == base.altmap and unc <= base.altmap,
            "[proof] %s: the prediction changes the flags of the %d memmap_on_memory pfns"
            % (img, len(base.altmap)), "predicted %d of them" % len(lost & base.altmap))
        want |= {("self-hosted", p) for p in base.altmap}
    # hvo-share: a folio on hot-plugged memory with its memmap on it that
    # is optimised (vmemmap_pmd_entry() refuses it in the kernel; oracle
    # check's rule), on its head
    want |= {("hvo-share", h) for h, (a, b) in hvo.items() if b and not a and base.on_hotplug(h)}
    miss = want - added
    extra = {(r, p) for r, p in added - want if p not in unc}
    rules = collections.Counter(r for r, _ in want)
    tap(not miss and not extra and not removed,
        "[proof] %s: lint flags beyond base's exactly the predicted %s, and any rule on %d of the %d uncertain pfns"
        % (img, ", ".join("%s on %d pages" % kv for kv in sorted(rules.items())) or "nothing",
           len({p for _, p in added} & unc), len(unc)),
        "missed %s\nnot predicted %s\nno longer flagged %s"
        % (sorted(miss)[:6], sorted(extra)[:6], sorted(removed)[:6]))


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    for kver, variants in VARIANTS.items():
        b1, b2 = "%s-base-hvo-b1" % kver, "%s-base-hvo-b2" % kver
        lst = oracle("list-" + b1, [b1], ["list", None, None, "-f", "json"])
        noise = oracle("diff-%s-%s" % (b1, b2), [b1, b2], ["diff", None, None, None, None])
        if lst is None or noise is None:
            continue
        base = Base(lst)
        for v in variants:
            img = "%s-%s-hvo-b1" % (kver, v)
            pred = oracle("predict-%s-%s" % (kver, v), [b1], ["predict", kver, v, None, None, "-f", "json"])
            got = oracle("diff-%s-%s" % (b1, img), [b1, img], ["diff", None, None, None, None])
            if pred is None or got is None:
                continue
            # verify() drops the noise's words from its measurement's struct pages
            bad = verify(pred, dict(got, struct_pages=dict(got["struct_pages"])), noise)
            tap(not bad, "[oracle] %s %s: the oracle's prediction (%d struct pages, %d uncertain, %d folio "
                "changes) is what it measures in the dumps (oracle_hvo_predict.verify())"
                % (kver, v, len(pred["struct_pages"]), len(pred["uncertain"]), len(pred["folios"])),
                "\n".join(bad))
            if v not in MUTANTS:
                continue
            lay = [layout_of(b1), layout_of(img)]
            dumps = [dump_path(b1), dump_path(img)]
            if None in dumps or not all(os.path.exists(x) for x in lay):
                tap.skip("%s or its base is not in dumps/hvo.tar.xz, or a layout is missing" % img,
                         "memmapcheck on %s" % img)
                continue
            diff_checks(kver, v, img, pred, got, base, lay, dumps)
            mlist = oracle("list-" + img, [img], ["list", None, None, "-f", "json"])
            if mlist is not None:
                lint_checks(kver, v, img, pred, got, base, mlist, lay, dumps)
    return tap.plan()


sys.exit(main())
