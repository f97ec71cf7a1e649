#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""HugeTLB and memory-block discovery (engine/discover_hugetlb.c,
discover_hotplug.c) and the pools' and blocks' diff on the
real 6.12.117 and 7.2.8 hvo-flavour dumps of issue 19 (scripts/vectors/build-kernel.sh
--hvo, guest layout standard-hvo: test-vectors/hvo-images.txt), committed
trimmed in dumps/hvo.tar.xz with their kernels' layouts in
test-vectors/layouts/.  The oracle's answers, from the cache's full
captures, are recorded in test-vectors/hvo-oracle/ (tests/taplib.py
HvoOracle: make check reads them; make check-hvo, MMC_HVO_LIVE=1, runs the
oracle again on the full dumps and requires the records, and checks that
each trimmed dump gives the full one's snapshot; MMC_HVO_RECORD=1 writes
the records).

Checks, each labelled:
  [proof]   the guest's geometry, scripts/prove/guest/layouts/standard-hvo.sh:
            "hugetlb N2M N1G add2m= free2m= demote1g= file2m= anon2m=
            file1g=" and "hotplug ... huge2m=": every pool's folio count,
            free count and order (x86_64: 2 MiB = order 9, PMD_ORDER; 1 GiB
            = order 18, PUD_ORDER, arch/x86/include/asm/pgtable_64_types.h);
            "hotplug START SIZE": the hot-plug ranges, one self-hosted
            memmap of 512 pfns per 128 MiB block (memmap_on_memory), whose
            struct pages mhp_init_memmap_on_memory() writes alike on every
            boot and which no variant here touches.  With MMC_HVO_LIVE=1:
            the trimmed dump's snapshot equals the full capture's.
  [oracle]  scripts/oracle/oracle.py hvo (scripts/oracle/oracle_hvo.py: drgn + its own
            kdump reader and page-table walk, no memmapcheck), run on the
            full captures: `list` gives
            every hstate and every folio with its list and HPG flags, which
            the tool's pools must equal exactly, and every memory block with
            its altmap; `diff` gives the struct
            pages whose raw words differ between two images, and `predict`
            the ones a variant changes.  Both apply the placement rule of
            doc/DESIGN.md "Diff: what compares" (a folio at a pfn in one
            image only, the pools' counts equal, is listed apart and not
            compared; a head's list links are not compared): the folios the
            tool places apart must be the oracle's.  The struct pages the
            tool reports differing in HugeTLB ranges must be among the
            raw-different ones (the tool normalises object pointers such as
            a MAP_HUGETLB folio's anon_vma, so it may report fewer), and for
            hist-hvo-reset-nrN they must be exactly the predicted ones.
  [guard]   what the tool says of itself (verdict words), and that a
            record is there.
"""
import json
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import CACHE, CLI, TOP, HvoOracle, Tap, run, skip_all  # noqa: E402

tap = Tap(diag_lines=30)
oracle = HvoOracle(tap)


def hvo_images():
    with open(os.path.join(TOP, "test-vectors", "hvo-images.txt")) as f:
        return [w for w in (line.split("#", 1)[0].strip() for line in f) if w]


IMAGES = hvo_images()
TMP = tempfile.mkdtemp(prefix="mmc-hugetlb-")


def dump(image):
    """The committed (trimmed) dump."""
    return taplib.dump_path(image)


def geometry():
    """Expected pools from the guest layout: {order: (nr, free)}."""
    return taplib.hvo_guest()["pools"]


def tool_pools(text):
    """hstates and folios from `memmapcheck ranges`' HUGETLB POOLS."""
    hs, folios, state = [], [], None
    sec = False
    for line in text.splitlines():
        if line.startswith("HUGETLB POOLS"):
            sec = True
            state = line.split(":", 1)[1].strip()
            continue
        if line.startswith("MEMORY BLOCKS"):
            break
        if not sec:
            continue
        w = line.split()
        if len(w) == 9 and w[0].isdigit():
            hs.append({"order": int(w[3]), "nr": int(w[4]), "free": int(w[5])})
        elif len(w) == 7 and w[0].isdigit() and w[1].startswith("0x"):
            start, n, h = int(w[1], 16), int(w[2]), int(w[3])
            order = hs[h]["order"]
            for i in range(n):
                folios.append((start + (i << order), order, w[5], w[6]))
    return state, hs, sorted(folios)


def oracle_pools(js):
    hs = [{"order": h["order"], "nr": h["nr_huge_pages"], "free": h["free_huge_pages"]}
          for h in js["hstates"]]
    folios = sorted((f["head"], f["order"], f["list"],
                     "optimised" if "HPG_vmemmap_optimized" in f["hpg"] else "plain")
                    for f in js["folios"])
    return hs, folios


def tool_blocks(text):
    """(id, start, end, online, self-hosted pfns) from MEMORY BLOCKS."""
    out, sec = [], False
    for line in text.splitlines():
        if line.startswith("MEMORY BLOCKS"):
            sec = True
            continue
        w = line.split()
        if sec and len(w) >= 6 and w[0].isdigit():
            out.append((int(w[0]), int(w[1], 16), int(w[2], 16), int(w[3]) == 0,
                        int(w[5]) if w[5] != "-" else 0))
    return sorted(out)


def plug_geometry():
    """The DIMM of standard-hvo.sh ("hotplug 4G 256M"): its self-hosted
    memmaps, one per memory block (taplib.hvo_guest())."""
    return taplib.hvo_guest()["memmaps"]


def kind_ranges(text, kind):
    """(start, end) of the `ranges` rows of one kind (hugetlb, hotplug)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*\d+\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\d+\s+-\s+-\s+\S+\s+%s#" % kind, line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16)))
    return out


def plug_ranges(text):
    return kind_ranges(text, "hotplug")


def huge_ranges(text):
    return kind_ranges(text, "hugetlb")


def in_ranges(pfn, ranges):
    return any(s <= pfn < e for s, e in ranges)


def trimmed_as_full(img, lay, ranges_out):
    """make check-hvo: the committed trimmed dump gives what the cache's
    full capture gives (ranges, snapshot), so the oracle's answers on the
    full one hold for it."""
    # make check holds the trimmed dumps against the records, which were made
    # from the full captures: comparing the two is make check-hvo's (live) part,
    # not a check this tier leaves out
    if not oracle.live:
        return
    full = oracle.full(img)
    if not full:
        tap.skip("no full capture in %s" % CACHE, "%s: trimmed as full" % img)
        return
    rc, out, err = run([CLI, "ranges", lay, full])
    snaps = []
    for i, d in enumerate((full, dump(img))):
        snaps.append(os.path.join(TMP, "%s.%d.snap" % (img, i)))
        r2, _, e2 = run([CLI, "snapshot", "-q", "-o", snaps[-1], lay, d])
        err += e2 if r2 else ""
    r3, d_out, e3 = run([CLI, "diff", snaps[0], snaps[1]])
    tap(rc == 0 and out == ranges_out and r3 == 0 and d_out.startswith("identical:")
        and "nothing unread" in d_out and "partly read" not in ranges_out,
        "[proof] %s: the trimmed dump gives the full capture's ranges and snapshot (%s)"
        % (img, d_out.splitlines()[0] if d_out else "no diff"), err + e3 + d_out[:2000])


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    present = [i for i in IMAGES if dump(i)]
    for i in IMAGES:
        if i not in present:
            tap.skip("%s: not in dumps/hvo.tar.xz" % i, "image %s" % i)
    expect = geometry()
    expect_plug = plug_geometry()
    layouts, ranges_text, olists = {}, {}, {}
    for img in present:
        lay = taplib.layout_of(img)
        if not tap(os.path.exists(lay), "[guard] %s: its kernel's layout %s" % (img, os.path.basename(lay))):
            continue
        layouts[img] = lay
        rc, out, err = run([CLI, "ranges", lay, dump(img)])
        ranges_text[img] = out
        state, hs, folios = tool_pools(out)
        tap(rc == 0 and state == "read" and "partly read" not in out,
            "[guard] %s: HugeTLB pools and memory blocks read" % img,
            err + "\n" + str(state) + "\n" + "\n".join(l for l in out.splitlines() if "partly" in l))
        trimmed_as_full(img, lay, out)
        got = {h["order"]: (h["nr"], h["free"]) for h in hs}
        tap(got == expect, "[proof] %s: pools (order: nr, free) as standard-hvo.sh makes them: %s"
            % (img, expect), "tool: %s" % got)
        olists[img] = oracle("list-" + img, [img], ["list", None, None, "-f", "json"])
        if olists[img] is None:
            del olists[img]
            continue
        ohs, ofolios = oracle_pools(olists[img])
        tap(ohs == hs, "[oracle] %s: hstates (order, nr, free) equal the oracle's" % img,
            "tool %s\noracle %s" % (hs, ohs))
        diff = sorted(set(folios) ^ set(ofolios))
        tap(not diff, "[oracle] %s: %d folios (head, order, list, HPG_vmemmap_optimized) equal the oracle's %d"
            % (img, len(folios), len(ofolios)),
            "differing (first 10): %s" % [(hex(a), b, c, d) for a, b, c, d in diff[:10]])
        tap(sum(1 << f[1] for f in folios) == sum(e - s for s, e in huge_ranges(out)),
            "[proof] %s: the HugeTLB ranges cover exactly the folios' pages" % img)
        blocks = tool_blocks(out)
        oblocks = sorted((b["id"], b["start_pfn"], b["end_pfn"], b["state"] == "MEM_ONLINE",
                          b["altmap"]["free"] if b["altmap"] else 0)
                         for b in olists[img]["memory_blocks"])
        tap(blocks == oblocks, "[oracle] %s: %d memory blocks (id, pfns, online, self-hosted memmap pfns) equal the oracle's %d"
            % (img, len(blocks), len(oblocks)), "tool %s\noracle %s" % (blocks[-4:], oblocks[-4:]))
        tap(plug_ranges(out) == expect_plug,
            "[proof] %s: hot-plug ranges are the self-hosted memmaps standard-hvo.sh's DIMM makes: %s"
            % (img, [(hex(a), hex(b)) for a, b in expect_plug]),
            "tool: %s" % [(hex(a), hex(b)) for a, b in plug_ranges(out)])

    def pair(a, b, why):
        if a not in layouts or b not in layouts:
            tap.skip("%s or %s not available" % (a, b), "pair %s %s" % (a, b))
            return None
        rc, out, err = run([CLI, "compare", "-q", "--all-pages", "-f", "json",
                            layouts[a], dump(a), layouts[b], dump(b)])
        if not tap(rc in (0, 1), "[guard] compare %s %s runs (%s)" % (a, b, why), err):
            return None
        js = json.loads(out)
        pools = [d for d in js["pgmap_diffs"] if "hstate" in d or "folio" in d or "HugeTLB" in d
                 or "memory block" in d]
        pr = plug_ranges(ranges_text[a])
        plug_pfns = {p["pfn"] for p in js["pages"] if in_ranges(p["pfn"], pr)}
        tap(pr and not plug_pfns,
            "[proof] %s vs %s: the self-hosted memmaps' %d struct pages are identical (mhp_init_memmap_on_memory() writes them alike every boot; %s does not touch it)"
            % (a, b, sum(e - s for s, e in pr), why), "differing: %s" % sorted(plug_pfns)[:10])
        hr = huge_ranges(ranges_text[a])
        pfns = {p["pfn"] for p in js["pages"] if in_ranges(p["pfn"], hr)}
        od = oracle("diff-%s-%s" % (a, b), [a, b], ["diff", None, None, None, None])
        if od is None:
            return None
        raw = {int(k, 16): v for k, v in od["struct_pages"].items()}
        # a folio whose vmemmap is optimised in one image and not in the
        # other (the oracle's own page-table walk): its struct pages past
        # the first vmemmap page (HUGETLB_VMEMMAP_RESERVE_SIZE, 64 struct
        # pages) sit on a shared read-only frame in one image only, which
        # the tool records per page (role "shared") even where the words
        # are alike
        sps = 4096 // 64
        hvo_b = {f["head"]: f["hvo"] for f in olists[b]["folios"]} if b in olists else {}
        moved = set()
        for f in olists.get(a, {}).get("folios", []):
            if f["head"] in hvo_b and hvo_b[f["head"]] != f["hvo"]:
                moved.update(range(f["head"] + sps, f["head"] + (1 << f["order"])))
        extra = sorted(pfns - set(raw) - moved)
        tap(not extra, "[oracle] %s vs %s: the %d HugeTLB struct pages the tool reports differing are raw-different (oracle: %d) or on a vmemmap page HVO maps in one image only (oracle: %d)"
            % (a, b, len(pfns), len(raw), len(moved)), "neither: %s" % [hex(x) for x in extra[:10]])
        # placement (doc/DESIGN.md "Diff: what compares"): a folio at a pfn
        # in one image only, the pools' counts equal; the oracle applies
        # the same rule to its own listings
        placed = sorted((p["pfn"], p["only_in"]) for p in js.get("placement", []))
        oplaced = sorted([(int(h, 16), "base") for h in od["placement"]["only_in_base"]] +
                         [(int(h, 16), "patched") for h in od["placement"]["only_in_other"]])
        tap(placed == oplaced and not od["only_in_base"] and not od["only_in_other"],
            "[oracle] %s vs %s: the folios placed apart are the oracle's (%d): %s"
            % (a, b, len(oplaced), ", ".join("%#x only in %s" % x for x in oplaced) or "none"),
            "tool %s\noracle %s, folios in one image only that are no placement: %s %s"
            % ([(hex(x), y) for x, y in placed], [(hex(x), y) for x, y in oplaced],
               od["only_in_base"], od["only_in_other"]))
        return pools, pfns, raw, moved

    def claims(kver, variant):
        a, b = "%s-base-hvo-b1" % kver, "%s-%s-hvo-b1" % (kver, variant)
        own = os.path.join(TOP, "patches", kver, variant + ".claims")
        empty = os.path.join(TOP, "patches", kver, "template.claims")
        if not os.path.exists(own):
            tap.skip("no patches/%s/%s.claims" % (kver, variant), "claims %s %s" % (kver, variant))
            return
        if a not in layouts or b not in layouts:
            tap.skip("%s or %s not available" % (a, b), "claims %s" % variant)
            return
        rc, out, err = run([CLI, "compare", "-q", "--strict", "--claims", own,
                            layouts[a], dump(a), layouts[b], dump(b)])
        tap(rc == 0 and out.startswith("as claimed: "),
            "[proof] %s %s vs base: as claimed with its own claims (the patch's semantics and the guest's geometry), --strict, exit 0"
            % (kver, variant), out[:3000] + err)
        rc, out, err = run([CLI, "compare", "-q", "--claims", empty,
                            layouts[a], dump(a), layouts[b], dump(b)])
        tap(rc == 1 and out.startswith("beyond the claims: "),
            "[proof] %s %s vs base: beyond the claims with no claims, exit 1" % (kver, variant), out[:2000] + err)

    for kver in sorted({i.split("-", 1)[0] for i in IMAGES}):
        base, base2 = "%s-base-hvo-b1" % kver, "%s-base-hvo-b2" % kver
        variants = [re.sub(r"^%s-(.*)-hvo-b1$" % re.escape(kver), r"\1", i) for i in IMAGES
                    if i.startswith(kver + "-") and re.search(r"-(mut|hist)-", i)]
        for v in variants:
            claims(kver, v)
        if base in layouts and base2 in layouts:
            rc, out, err = run([CLI, "compare", "-q", layouts[base], dump(base), layouts[base2], dump(base2)])
            tap(rc == 0 and out.startswith("identical: "),
                "[proof] %s base b1 vs b2: two boots of one kernel compare identical, HugeTLB and hot-plug ranges included (exit 0)"
                % kver, out[:3000] + err)
        r = pair(base, base2, "two boots")
        if r:
            pools, pfns, raw, moved = r
            tap(not pools, "[oracle] %s base b1 vs b2: the pools are identical (oracle: same folios, lists, flags)"
                % kver, "\n".join(pools))
            # what varies between boots and neither implementation compares:
            # the pfns of folios placed apart, the list links of struct pages
            # that read as heads (the oracle leaves both out of its diff);
            # anon_vma pointers differ raw and the tool normalises them
            missed = sorted(p for p in set(raw) - pfns if set(raw[p]) - {"mapping"})
            tap(not missed, "[oracle] %s base b1 vs b2: every raw difference but object pointers (mapping) is reported"
                % kver, "missed: %s" % [(hex(p), raw[p]) for p in missed[:10]])
        r = pair(base, "%s-template-hvo-b1" % kver, "template series leaves HugeTLB alone")
        if r:
            pools, pfns, raw, moved = r
            tap(not pools, "[proof] %s template vs base: the pools are identical (the template series does not touch mm/hugetlb*.c)"
                % kver, "\n".join(pools))
        for hist in [v for v in variants if v.startswith("hist-hvo-reset-")]:
            r = pair(base, "%s-%s-hvo-b1" % (kver, hist), hist)
            if not r:
                continue
            pools, pfns, raw, moved = r
            op = oracle("predict-%s-%s" % (kver, hist), [base],
                        ["predict", kver, hist, None, None, "-f", "json"])
            if op is None:
                continue
            pred = {int(k, 16) for k in op["struct_pages"]}
            hr = huge_ranges(ranges_text[base])
            pred_h = {p for p in pred if in_ranges(p, hr)}
            want = pred_h | moved
            miss, extra = sorted(want - pfns), sorted(pfns - want)
            # the folios whose HVO the variant changes (oracle: predict),
            # against those whose vmemmap the oracle's walk finds changed
            pred_hvo = {int(h, 16) for h, ch in op["folios"].items() if "hvo" in ch}
            hvo_h = {g["head"]: g["hvo"] for g in olists.get("%s-%s-hvo-b1" % (kver, hist), {}).get("folios", [])}
            got_hvo = {f["head"] for f in olists[base]["folios"]
                       if f["head"] in hvo_h and hvo_h[f["head"]] != f["hvo"]}
            tap(pred_h and pred_hvo == got_hvo and not miss and not extra,
                "[oracle] %s %s vs base: the tool reports exactly the %d struct pages the oracle predicts in HugeTLB ranges and the %d on the vmemmap pages of the %d folios whose HVO it predicts changed (tool: %d)"
                % (kver, hist, len(pred_h), len(moved), len(pred_hvo), len(pfns)),
                "missed: %s\nextra: %s\nHVO changed: predicted %d, measured %d"
                % ([hex(x) for x in miss[:10]], [hex(x) for x in extra[:10]], len(pred_hvo), len(got_hvo)))
    return tap.plan()


sys.exit(main())
