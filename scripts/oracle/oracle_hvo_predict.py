#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The hvo oracle's predictions and measurements (scripts/oracle/oracle_hvo.py
reads the images and lists them; this file is its `predict`, `diff` and
`verify`, documented in doc/ORACLE.md): from the base image's listing and
each variant's semantics (patches/<kver>/<variant>.patch headers, the
kernel source), which struct pages and folios a variant changes; what two
images' struct pages and folios differ in, word by word; and whether the
two agree."""
import bisect
import struct

from oracle_hvo import PAGE, TAIL_MAPPING, hotplugged, hpg_bits, in_ranges, u64


# ---------------------------------------------------------------- predictions

class Kinds:
    """The member names of a pfn's struct page words: by its place in a
    hugetlb folio of the base listing (head, page[1..3], tail), else as a
    plain struct page."""

    def __init__(self, img, lst):
        self.names = img.names
        self.heads = sorted((f['head'], 1 << f['order']) for f in lst['folios'])
        self.starts = [h for h, _ in self.heads]

    def of(self, pfn):
        i = bisect.bisect_right(self.starts, pfn) - 1
        if i >= 0 and pfn - self.heads[i][0] < self.heads[i][1]:
            return self.names[min(pfn - self.heads[i][0], 4)]
        return self.names[0]

    def differing(self, pfn, a, b):
        n = self.of(pfn)
        return [n[w] for w in range(8) if a[8 * w:8 * w + 8] != b[8 * w:8 * w + 8]]


def words(b):
    return [u64(b, 8 * w) for w in range(8)]


def pack(ws):
    return struct.pack('<8Q', *ws)


def demoted_heads(lst):
    """Heads of 1 GiB-aligned ranges wholly made of 2 MiB folios of the
    listing: where a demoted 1 GiB folio was (demote_free_hugetlb_folios())."""
    small = {f['head'] for f in lst['folios'] if f['order'] == 9}
    return sorted(h for h in small if h % (1 << 18) == 0 and
                  all(h + 512 * m in small for m in range(512)))


def aliases(img, kinds, head, nr, frame, res):
    """Struct pages head+64 .. head+nr-1 once vmemmap pages 1..N-1 map
    `frame` (64 struct pages' bytes): every word that differs from what the
    base image holds there."""
    per = PAGE // img.sps
    for k in range(per, nr, per):
        raw = img.read(img.page_va(head + k), img.sps * per)
        for j in range(per):
            b = raw[j * img.sps:(j + 1) * img.sps]
            d = kinds.differing(head + k + j, b, frame[j])
            if d:
                res['struct_pages']['%#x' % (head + k + j)] = d


def folio_change(res, f, **kw):
    res['folios'].setdefault('%#x' % f['head'], {}).update(
        {k: [f[k] if k != 'hpg' else f['hpg'], v] for k, v in kw.items()})


def prehvo(img, f):
    """7.x: whether folio f was optimised at boot before the memmap was
    initialised ("pre-HVO", CONFIG_SPARSEMEM_VMEMMAP_PREINIT:
    hugetlb_vmemmap_init_early() exists): a gigantic folio (order above
    MAX_PAGE_ORDER: only memblock can give it at boot,
    hugetlb_hstate_alloc_pages(); the standard-hvo workload allocates none
    at run time) that vmemmap_should_optimize_bootmem_page() accepts: its
    physical address and size aligned to the section size and to what one
    vmemmap PMD maps ((PMD_SIZE / sizeof(struct page)) << PAGE_SHIFT).
    Its tail PTEs come from vmemmap_populate_hvo() and
    vmemmap_wrprotect_hvo(), not from vmemmap_remap_pte()
    (mm/hugetlb_vmemmap.c __hugetlb_vmemmap_optimize_folios(): "Already
    optimized by pre-HVO, just map the mirrored tail page structs RO")."""
    t = img.t
    if not t.has_sym('hugetlb_vmemmap_init_early'):
        return False
    max_order = t.prog.type('struct zone').member('free_area').type.length - 1
    if f['order'] <= max_order:
        return False
    pmd_span = (1 << 21) // img.sps     # pfns one vmemmap PMD maps (x86_64 PMD_SIZE 2 MiB)
    nr = 1 << f['order']
    return all(f['head'] % u == 0 and nr % u == 0 for u in (img.section_pages, pmd_span))


# Each hvo variant's semantics (patches/<kver>/<variant>.patch headers), as
# a function of the base image: which struct pages differ in which words,
# which folios change state (HVO, HPG flags, vmemmap PTE bits).
def predict(kver, variant, img, lst):
    v7 = kver.startswith('7.')
    per = PAGE // img.sps
    hp = hotplugged(lst['memory_blocks'])
    kinds = Kinds(img, lst)
    bits = hpg_bits(img) if lst['folios'] else {}
    # word_names: the member names predict() gives the words of a head,
    # page[1..3] and a further tail (Types.word_names()), so that a reader
    # without the vmlinux can name a word by its offset
    res = {'kver': kver, 'variant': variant, 'struct_pages': {}, 'uncertain': {},
           'folios': {}, 'notes': [], 'word_names': img.names}
    if variant == 'base':
        return res
    if variant == 'mut-hvo-tail-rw':
        # vmemmap_remap_pte(): PAGE_KERNEL (P|RW|A|D|G|NX) for the tail PTEs
        for f in lst['folios']:
            if not f['hvo']:
                continue
            if v7 and prehvo(img, f):
                res['notes'].append('folio %#x: a boot-time gigantic folio optimised before memmap '
                                    'init (vmemmap_populate_hvo(), vmemmap_wrprotect_hvo()): '
                                    'its tail PTEs stay read-only' % f['head'])
                continue
            folio_change(res, f, tail_rw=[True], tail_dirty=[True])
        return res
    if variant == 'mut-mhp-no-self-hosted':
        bit = img.t.enum('enum pageflags', 'PG_owner_priv_1')
        freed = set()
        for f in lst['folios']:
            if not in_ranges(f['head'], hp) or f['hvo'] or f['vmemmap_pages'] < 2:
                continue
            nr = 1 << f['order']
            # HVO no longer refused: optimised, and every altmap frame of
            # its vmemmap freed to the buddy allocator, the head's too
            # (6.12.117 and 7.2.8 alike): __hugetlb_vmemmap_optimize_folio()
            # copies the first vmemmap page to a page of alloc_pages_node()
            # (copy_page()), the walk starts at &folio->page, and
            # vmemmap_remap_pte() maps that copy there (walk->nr_walked ==
            # 0) and lists the old frame for free_vmemmap_page_list() with
            # those of vmemmap pages 1..N-1
            for k in range(0, nr, per):
                freed.add(img.vmemmap_pte(f['head'] + k)[0])
            hw = words(img.struct_page(f['head']))
            hw[5] |= 1 << bits['HPG_vmemmap_optimized']
            res['struct_pages']['%#x' % f['head']] = kinds.differing(f['head'], img.struct_page(f['head']), pack(hw))
            if v7:
                # the zone's tail frame: init_compound_tail() on a zeroed page
                t = words(img.struct_page(f['head'] + 4))
                tail = pack([t[0], t[1], 0, TAIL_MAPPING, 0, 0, 0xffffffff, 0])
                frame = [tail] * per
            else:
                frame = [pack(hw)] + [img.struct_page(f['head'] + j) for j in range(1, per)]
            aliases(img, kinds, f['head'], nr, frame, res)
            folio_change(res, f, hvo=True, tail_rw=[False], tail_dirty=[False],
                         hpg=sorted(f['hpg'] + ['HPG_vmemmap_optimized']))
        for blk in lst['memory_blocks']:
            if not (blk['altmap'] and blk['state'] == 'MEM_ONLINE'):
                continue
            a = blk['altmap']
            for pfn in range(a['base_pfn'], a['base_pfn'] + a['free']):
                if pfn in freed:
                    res['uncertain']['%#x' % pfn] = 'altmap frame freed to the buddy allocator'
                    continue
                w = words(img.struct_page(pfn))
                w[0] &= ~(1 << bit)
                d = kinds.differing(pfn, img.struct_page(pfn), pack(w))
                if d:
                    res['struct_pages']['%#x' % pfn] = d
        return res
    if variant == 'hist-hvo-reset-nr3' and v7:
        # demote_free_hugetlb_folios() restores the 1 GiB folio's vmemmap
        # (hugetlb_vmemmap_restore_folios()): with the patch each vmemmap
        # page k = 1..4095 is a copy of the folio's first one (struct pages
        # 0..63), then reset_struct_pages() (NR_RESET_STRUCT_PAGE 3): its
        # struct pages 0, 1, 2 are copies of 3, 4, 5; base copies the
        # zone's order-18 tail frame instead.  Struct pages 512m .. 512m+63
        # (m = 1..511) stay visible: each new 2 MiB folio keeps that memory
        # as its head vmemmap page (its copy, __hugetlb_vmemmap_optimize_folio())
        # and maps 64..511 onto the order-9 tail frame again, in both.  The
        # words the demotion writes (clear_compound_head(),
        # prep_compound_page(): prep_compound_tail()'s compound_info,
        # mapping, private, prep_compound_head()'s page[1..2] folio words;
        # new_folio->mapping; init_new_hugetlb_folio(): page type, lru,
        # page[3]'s subpool and cgroup words) are alike in both; what is
        # left is the copied source:
        #  - _mapcount and _refcount of struct pages 1..63: the 1 GiB folio's
        #    page[3..63] (hugetlb_folio_init_tail_vmemmap():
        #    __init_single_page() _mapcount -1, set_page_count(page, 0));
        #  - the head's _refcount, page[3]'s 0, where nothing sets it
        #    again: the folios still free (allocation sets it:
        #    alloc_hugetlb_folio());
        #  - lru.prev of struct pages 4..63: the 1 GiB folio's page[j]
        #    self-pointer (__init_single_page()'s INIT_LIST_HEAD()), which
        #    lru.next (compound_info) overwrites but not lru.prev.
        # Compared with what base holds there (FINDINGS.md 6: the order-18
        # tail frame reads _refcount 1), these are the words that differ.
        lru = img.t.off('struct page', 'lru') // 8
        mc = img.t.off('struct page', '_mapcount')
        rc = img.t.off('struct page', '_refcount')
        folio_at = {f['head']: f for f in lst['folios']}

        def counts(raw, mapcount, refcount):
            b = bytearray(raw)
            if mapcount is not None:
                struct.pack_into('<i', b, mc, mapcount)
            struct.pack_into('<i', b, rc, refcount)
            return bytes(b)
        for d in demoted_heads(lst):
            for m in range(1, 512):
                head = d + 512 * m
                for j in range(per):
                    pfn = head + j
                    base = img.struct_page(pfn)
                    if j == 0:
                        f = folio_at.get(pfn)
                        if not f or f['list'] != 'free':
                            continue
                        new = counts(base, None, 0)
                        folio_change(res, f, refcount=0)
                    else:
                        new = counts(base, -1, 0)
                    if j >= 4:
                        w = words(new)
                        w[lru + 1] = img.page_va(d + j) + 8 * lru
                        new = pack(w)
                    diff_ = kinds.differing(pfn, base, new)
                    if diff_:
                        res['struct_pages']['%#x' % pfn] = diff_
        res['notes'].append('free2m: the freed folios\' restored struct pages 64k and 64k+3 get mapping NULL; '
                            'with init_on_free=1 the kernel reports them and leaks the folios (not on any list)')
        return res
    if variant == 'hist-hvo-reset-nr4' and not v7:
        # with the reset the demoted folios get optimised: those the base
        # left flagged but unoptimised now map vmemmap pages 1..7 onto
        # their head frame
        for f in lst['folios']:
            if f['hvo'] or 'HPG_vmemmap_optimized' not in f['hpg'] or f['vmemmap_pages'] < 2:
                continue
            nr = 1 << f['order']
            frame = [img.struct_page(f['head'] + j) for j in range(per)]
            aliases(img, kinds, f['head'], nr, frame, res)
            folio_change(res, f, hvo=True, tail_rw=[False], tail_dirty=[False])
        res['notes'].append('free2m: the freed folios go to the buddy allocator (base: bad pages, leaked)')
        return res
    raise SystemExit('oracle hvo: no rules for %s on %s' % (variant, kver))


# ---------------------------------------------------------------- diff

FOLIO_STATE = ('list', 'hvo', 'hpg', 'tail_rw', 'tail_dirty', 'refcount', 'page_type')


def placement(la, lb):
    """Folios at a pfn in one listing only that are placement, not a
    difference (doc/DESIGN.md "Diff: what compares"): the buddy allocator
    puts a folio allocated at run time wherever it has room, which moves
    between boots, while the deterministic workload leaves each pool with as
    many folios, as many free and in use.  So a folio whose head only one
    image has is placement when the other image's pools have the same
    order with the same nr_huge_pages and free_huge_pages, and as many
    folios on the free and on the active list; otherwise it is a
    difference.  Returns ({head: folio} of a, of b) placed."""
    def counts(lst):
        out = {}
        for h in lst['hstates']:
            folios = [f for f in lst['folios'] if f['order'] == h['order']]
            out[h['order']] = (h['nr_huge_pages'], h['free_huge_pages'],
                               sum(f['list'] == 'free' for f in folios),
                               sum(f['list'] == 'active' for f in folios))
        return out
    ca, cb = counts(la), counts(lb)
    fa = {f['head']: f for f in la['folios']}
    fb = {f['head']: f for f in lb['folios']}

    def placed(mine, other):
        return {h: f for h, f in mine.items()
                if (h not in other or other[h]['order'] != f['order'])
                and f['order'] in ca and ca.get(f['order']) == cb.get(f['order'])}
    return placed(fa, fb), placed(fb, fa)


def diff(a, la, b, lb):
    """What differs between two images, in predict()'s terms: struct pages
    of every folio and altmap pfn of either listing (read through each
    image's own vmemmap), and each folio's state.  Not compared, as
    memmapcheck's diff documents it (doc/DESIGN.md "Diff: what compares"):
    the pfns of folios placed apart (placement(), listed under
    "placement"), and the list_head words (lru) of a struct page of a
    HugeTLB folio that reads as a head in both images (compound_head /
    compound_info bit 0 clear, PageTail()): its neighbours on its hstate's
    list, whose order varies between boots; the lists' membership and
    counts are compared (each folio's "list")."""
    kinds = Kinds(a, la)
    res = {'struct_pages': {}, 'folios': {}, 'only_in_base': [], 'only_in_other': [],
           'placement': {'only_in_base': [], 'only_in_other': []}}
    placed_a, placed_b = placement(la, lb)
    res['placement']['only_in_base'] = ['%#x' % h for h in sorted(placed_a)]
    res['placement']['only_in_other'] = ['%#x' % h for h in sorted(placed_b)]
    apart = set()
    for f in list(placed_a.values()) + list(placed_b.values()):
        apart.update(range(f['head'], f['head'] + (1 << f['order'])))
    pfns, huge = set(), set()
    for f in la['folios'] + lb['folios']:
        huge.update(range(f['head'], f['head'] + (1 << f['order'])))
    pfns.update(huge - apart)
    for blk in la['memory_blocks'] + lb['memory_blocks']:
        if blk['altmap']:
            pfns.update(range(blk['altmap']['base_pfn'], blk['altmap']['base_pfn'] + blk['altmap']['free']))
    per = PAGE // a.sps
    link = a.t.off('struct page', 'compound_info' if a.t.has('struct page', 'compound_info')
                   else 'compound_head') // 8
    lru = a.t.off('struct page', 'lru') // 8
    for base in sorted({p - p % per for p in pfns}):
        try:
            x = a.read(a.page_va(base), PAGE)
            y = b.read(b.page_va(base), PAGE)
        except ValueError as e:
            for p in range(base, base + per):
                if p in pfns:
                    res['struct_pages']['%#x' % p] = ['unreadable: %s' % e]
            continue
        if x == y:
            continue
        for j in range(per):
            p = base + j
            if p not in pfns:
                continue
            xs, ys = x[j * a.sps:(j + 1) * a.sps], y[j * a.sps:(j + 1) * a.sps]
            if p in huge and not u64(xs, 8 * link) & 1 and not u64(ys, 8 * link) & 1:
                xs = xs[:8 * lru] + bytes(16) + xs[8 * lru + 16:]
                ys = ys[:8 * lru] + bytes(16) + ys[8 * lru + 16:]
            d = kinds.differing(p, xs, ys)
            if d:
                res['struct_pages']['%#x' % p] = d
    fb = {f['head']: f for f in lb['folios']}
    for f in la['folios']:
        g = fb.pop(f['head'], None)
        if f['head'] in placed_a:
            continue
        if g is None or g['order'] != f['order']:
            res['only_in_base'].append('%#x' % f['head'])
            continue
        ch = {k: [f[k], g[k]] for k in FOLIO_STATE if f[k] != g[k]}
        if ch:
            res['folios']['%#x' % f['head']] = ch
    res['only_in_other'] = ['%#x' % h for h in sorted(fb) if h not in placed_b]
    return res


def verify(pred, got, noise=None):
    """Prediction against a measured diff: one line per disagreement.
    `noise` (a diff of two boots of the base kernel) names the words that
    still vary from boot to boot (anon_vma pointers; diff() already leaves
    out list links and folios placed apart): left out.  A prediction for a
    folio placed apart is not checked: its pfn is not compared."""
    bad = []
    unc = pred.get('uncertain', {})
    noise = noise['struct_pages'] if noise else {}
    for p in list(got['struct_pages']):
        if p in noise:
            rest = [n for n in got['struct_pages'][p] if n not in noise[p]]
            if rest:
                got['struct_pages'][p] = rest
            else:
                del got['struct_pages'][p]
    for p, names in got['struct_pages'].items():
        if p in unc:
            continue
        want = pred['struct_pages'].get(p)
        if want is None:
            bad.append('struct page %s differs (%s), not predicted' % (p, ', '.join(names)))
        elif sorted(want) != sorted(names):
            bad.append('struct page %s: predicted %s, measured %s' % (p, ', '.join(want), ', '.join(names)))
    for p, want in pred['struct_pages'].items():
        if p not in got['struct_pages'] and p not in unc:
            bad.append('struct page %s predicted to differ (%s), identical' % (p, ', '.join(want)))
    for h, ch in got['folios'].items():
        want = pred['folios'].get(h, {})
        for k, (x, y) in ch.items():
            if k not in want or want[k][1] != y:
                bad.append('folio %s %s: %s -> %s, predicted %s' % (h, k, x, y, want.get(k, 'no change')))
    placed = set(got.get('placement', {}).get('only_in_base', []))
    for h, want in pred['folios'].items():
        if h in placed:
            continue        # placed apart: not compared (diff())
        for k, (x, y) in want.items():
            if k not in got['folios'].get(h, {}):
                bad.append('folio %s %s predicted %s -> %s, unchanged' % (h, k, x, y))
    for k in ('only_in_base', 'only_in_other'):
        if got[k]:
            bad.append('folios %s: %s' % (k.replace('_', ' '), ' '.join(got[k][:8])))
    return bad
