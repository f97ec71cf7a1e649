// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint, the vmemmap of HugeTLB folios under HVO (mm/hugetlb_vmemmap.c,
 * read in 6.12.117 and 7.2.8; Documentation/mm/vmemmap_dedup.rst).
 *
 * __hugetlb_vmemmap_optimize_folio() copies a folio's first vmemmap page
 * (HUGETLB_VMEMMAP_RESERVE_SIZE: every struct page the hugetlb code
 * writes) into a new page, then vmemmap_remap_pte() maps that copy
 * PAGE_KERNEL and every other vmemmap page of the folio PAGE_KERNEL_RO
 * onto one frame, vmemmap_tail, and frees the frames they had; the folio
 * gets HPG_vmemmap_optimized.  6.x's vmemmap_tail is the copy itself, so
 * struct page 64k+j reads struct page j ("fake heads",
 * page_fixed_fake_head()); 7.2's is a page of identical tails per zone and
 * order (vmemmap_get_tail()), shared by every optimised folio of that
 * order in the zone.  Restoring (vmemmap_restore_pte()) gives each vmemmap
 * page a writable frame of its own again and clears the flag.
 * vmemmap_pmd_entry() refuses a folio whose memmap a hot-plugged block
 * hosts itself (PageVmemmapSelfHosted()).
 *
 * So, per folio of an optimisable hstate: the first vmemmap page
 * writable; optimised, the others one frame (the head's on 6.x, not on
 * 7.x: rules.h mmc_rule_hvo_tails()), read-only; plain, no frame shared.
 * Which vmemmap pages map the same frame comes from vshare.h, as
 * lint_geom.c's sharing rules take it; the cost is a few steps per
 * vmemmap page (1/64 of the struct pages), vframe runs read in order.
 * On 6.x the pfns of a folio's tail vmemmap pages that map its head frame
 * become alias spans, which the page pass leaves out (lint_huge.alias).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint_int.h"
#include "vshare.h"

/* No hstate has folios this large (a 16 GiB folio, MAX_FOLIO_ORDER on
 * 64-bit, has 2^16 vmemmap pages): a corrupt order, not checked. */
#define HVO_MAX_VMEMMAP_PAGES (1ULL << 24)

/* What one vmemmap page maps. */
struct hvo_page {
	bool frame;		/* a frame was read (not unmapped/unreadable) */
	int writable;		/* 1, 0, or -1: not recorded */
	uint64_t first, count;	/* mmc_vshare_at() */
	uint64_t paddr;
};

struct hvo_walk {
	struct lint_ctx *c;
	struct mmc_vshare fs;
	uint64_t per;		/* struct pages per vmemmap page */
	uint64_t nv;		/* vmemmap pages per folio */
	unsigned int tails;	/* mmc_rule_hvo_tails() */
	size_t j, nruns;	/* the vframe run last read */
	struct mmc_vshare_run run;
	bool have_run;
	uint64_t prot_unknown;	/* vmemmap pages without a recorded protection */
	struct hvo_page *pg;	/* the current folio's vmemmap pages, nv of them */
};

static bool load_run(struct hvo_walk *w, uint64_t i)
{
	if (w->have_run && i < w->run.start) {
		w->j = 0;	/* backwards: read the runs again */
		w->have_run = false;
	}
	while (!w->have_run || i >= w->run.start + w->run.count) {
		if (w->have_run)
			w->j++;
		if (w->j >= w->nruns)
			return false;
		mmc_vshare_load(w->c->snap, w->c->range, w->j, &w->run);
		w->have_run = true;
	}
	return i >= w->run.start;
}

static void page_at(struct hvo_walk *w, uint64_t i, struct hvo_page *p)
{
	const struct mmc_vframe *vf = &w->run.first;

	memset(p, 0, sizeof(*p));
	p->writable = -1;
	if (!load_run(w, i))
		return;
	p->frame = mmc_vshare_has_frame(&w->run);
	p->paddr = vf->paddr + w->run.stride.paddr * (i - w->run.start);
	if (vf->prot_known & MMC_VPROT_WRITABLE)
		p->writable = (vf->prot & MMC_VPROT_WRITABLE) != 0;
	else if (p->frame)
		w->prot_unknown++;
	mmc_vshare_at(&w->fs, i, &p->first, &p->count);
}

/* The pfns vmemmap page i of the range holds. */
static void page_pfns(const struct hvo_walk *w, uint64_t i, uint64_t *pfn, uint64_t *n)
{
	const struct mmc_srange *sr = w->c->sr;

	*pfn = sr->start_pfn + i * w->per;
	*n = *pfn + w->per <= sr->end_pfn ? w->per : sr->end_pfn - *pfn;
}

/* vmemmap_pmd_entry(): no HVO on a memmap a hot-plugged block hosts. */
static void check_self_hosted(struct hvo_walk *w, uint64_t head)
{
	const struct lint_huge *hu = w->c->huge;

	for (size_t b = 0; b < hu->nblocks; b++) {
		const struct mmc_smemblock *blk = &hu->blocks[b];

		if (!(blk->flags & MMC_MEMBLOCK_SELF_HOSTED) || head < blk->start_pfn ||
		    head >= blk->end_pfn)
			continue;
		lint_violate(w->c, MMC_RULE_HVO_SHARE, head,
			     "optimised folio 0x%" PRIx64 " on memory block %" PRIu64 ", whose memmap is self-hosted (vmemmap_pmd_entry(): -ENOTSUPP)",
			     head, blk->id);
		return;
	}
}

/* Do all tail vmemmap pages of the folio map the frame the first of them
 * maps? */
static bool one_tail_frame(const struct hvo_walk *w)
{
	const struct hvo_page *t = &w->pg[MMC_HVO_RESERVE_PAGES];

	for (uint64_t k = MMC_HVO_RESERVE_PAGES; k < w->nv; k++)
		if (!w->pg[k].frame || w->pg[k].first != t->first)
			return false;
	return true;
}

/* Where the tails' frame is, against this version's vmemmap_tail. */
static void check_tail_frame(struct hvo_walk *w, uint64_t head, bool fake)
{
	struct lint_ctx *c = w->c;
	uint64_t lo = head + MMC_HVO_RESERVE_PAGES * w->per, n = c->nr - MMC_HVO_RESERVE_PAGES * w->per;

	if (fake && !(w->tails & MMC_HVO_TAIL_HEAD_FRAME))
		lint_violate_n(c, MMC_RULE_HVO_SHARE, lo, n,
			       "optimised folio 0x%" PRIx64 ": tail vmemmap pages map its head frame, fake heads %d.%d no longer resolves (vmemmap_get_tail())",
			       head, c->kver.major, c->kver.minor);
	else if (!fake && !(w->tails & MMC_HVO_TAIL_SHARED))
		lint_violate_n(c, MMC_RULE_HVO_SHARE, lo, n,
			       "optimised folio 0x%" PRIx64 ": tail vmemmap pages map a frame other than its head frame (%d.%d: vmemmap_tail = vmemmap_head)",
			       head, c->kver.major, c->kver.minor);
}

static void check_optimised(struct hvo_walk *w, uint64_t head, uint64_t a)
{
	struct lint_ctx *c = w->c;
	uint64_t pfn, n;

	check_self_hosted(w, head);
	page_pfns(w, a, &pfn, &n);
	if (w->pg[0].writable == 0)
		lint_violate_n(c, MMC_RULE_HVO_RO, pfn, n,
			       "the first vmemmap page of optimised folio 0x%" PRIx64 " mapped read-only (vmemmap_remap_pte(): PAGE_KERNEL, \"Remapping the head page requires r/w\")",
			       head);
	if (!one_tail_frame(w)) {
		lint_violate_n(c, MMC_RULE_HVO_SHARE, head + MMC_HVO_RESERVE_PAGES * w->per,
			       c->nr - MMC_HVO_RESERVE_PAGES * w->per,
			       "optimised folio 0x%" PRIx64 " (HPG_vmemmap_optimized): its tail vmemmap pages do not all map one frame (vmemmap_remap_free())",
			       head);
		return;
	}
	check_tail_frame(w, head, w->pg[MMC_HVO_RESERVE_PAGES].first == w->pg[0].first);
	for (uint64_t k = MMC_HVO_RESERVE_PAGES; k < w->nv; k++) {
		page_pfns(w, a + k, &pfn, &n);
		if (w->pg[k].writable == 1)
			lint_violate_n(c, MMC_RULE_HVO_RO, pfn, n,
				       "vmemmap page %" PRIu64 " of optimised folio 0x%" PRIx64 " maps the shared tail frame 0x%" PRIx64 " writable (vmemmap_remap_pte(): PAGE_KERNEL_RO)",
				       k, head, w->pg[k].paddr);
	}
}

/*
 * The struct pages of tail vmemmap pages that map the folio's own head
 * frame read the first vmemmap page's: on 6.x that is HVO (fake heads),
 * whatever the folio's flag says (which hvo-share checks), and the page
 * pass leaves them out.
 */
static bool add_aliases(struct hvo_walk *w, uint64_t a)
{
	uint64_t pfn, n;

	if (!(w->tails & MMC_HVO_TAIL_HEAD_FRAME) || !w->pg[0].frame)
		return true;
	for (uint64_t k = MMC_HVO_RESERVE_PAGES; k < w->nv; k++) {
		page_pfns(w, a + k, &pfn, &n);
		if (w->pg[k].frame && w->pg[k].first == w->pg[0].first &&
		    !lint_alias_add(w->c->huge, pfn, pfn + n))
			return false;
	}
	return true;
}

static void check_plain(struct hvo_walk *w, uint64_t head, uint64_t a)
{
	struct lint_ctx *c = w->c;
	uint64_t pfn, n;

	for (uint64_t k = 0; k < w->nv; k++) {
		const struct hvo_page *p = &w->pg[k];

		if (!p->frame)
			continue;
		page_pfns(w, a + k, &pfn, &n);
		if (p->count > 1)
			lint_violate_n(c, MMC_RULE_HVO_SHARE, pfn, n,
				       "vmemmap page %" PRIu64 " of plain folio 0x%" PRIx64 " (no HPG_vmemmap_optimized) maps frame 0x%" PRIx64 ", which %" PRIu64 " vmemmap pages map (vmemmap_restore_pte(): one of its own)",
				       k, head, p->paddr, p->count);
		if (p->writable == 0)
			lint_violate_n(c, MMC_RULE_HVO_RO, pfn, n,
				       "vmemmap page %" PRIu64 " of plain folio 0x%" PRIx64 " mapped read-only (PAGE_KERNEL: vmemmap_populate(), vmemmap_restore_pte())",
				       k, head);
	}
}

static bool check_folio(struct hvo_walk *w, uint64_t head, enum mmc_folio_vmemmap st)
{
	struct lint_ctx *c = w->c;
	uint64_t a = (head - c->sr->start_pfn) / w->per;

	for (uint64_t k = 0; k < w->nv; k++)
		page_at(w, a + k, &w->pg[k]);
	if (!add_aliases(w, a))
		return false;
	if (st == MMC_FVM_PLAIN)
		check_plain(w, head, a);
	else if (st != MMC_FVM_OPTIMISED)
		lint_unchecked(c, MMC_RULE_HVO_SHARE,
			       "a folio's HPG_vmemmap_optimized is unknown (no enum hugetlb_page_flags in the layout)");
	else if (w->pg[0].frame)
		check_optimised(w, head, a);
	return true;
}

/* Every folio of the range, by the pool's spans (sorted by pfn: from the
 * first one that can reach the range). */
static bool check_folios(struct hvo_walk *w)
{
	const struct lint_huge *hu = w->c->huge;
	const struct mmc_srange *sr = w->c->sr;
	uint32_t order = hu->h->order;
	size_t lo = 0, hi = hu->nspans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hu->spans[mid].start_pfn < sr->start_pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo ? lo - 1 : 0; i < hu->nspans && hu->spans[i].start_pfn < sr->end_pfn; i++) {
		const struct mmc_sfolios *s = &hu->spans[i];

		if (s->hstate != sr->owner)
			continue;
		for (uint64_t m = 0; m < s->nfolios; m++) {
			uint64_t head = s->start_pfn + (m << order);

			if (head < sr->start_pfn || head + w->c->nr > sr->end_pfn)
				continue;
			if (!check_folio(w, head, (enum mmc_folio_vmemmap)s->vmemmap))
				return false;
		}
	}
	return true;
}

bool lint_hvo_check(struct lint_ctx *c)
{
	uint32_t psz = c->geom->page_size;
	struct hvo_walk w = { .c = c };
	struct mmc_error *err;
	bool ok;

	/* hugetlb_vmemmap_optimizable_size(): more than the reserved vmemmap
	 * page, whole vmemmap pages per folio */
	if (!c->sps || !psz || psz % c->sps || c->order >= 64)
		return true;
	w.per = psz / c->sps;
	if (c->nr % w.per || c->nr / w.per <= MMC_HVO_RESERVE_PAGES || c->sr->start_pfn % w.per)
		return true;
	w.nv = c->nr / w.per;
	if (w.nv > HVO_MAX_VMEMMAP_PAGES)
		return true;
	w.tails = mmc_rule_hvo_tails(c->kver);
	w.nruns = mmc_snapshot_range_nvframe_runs(c->snap, c->range);
	w.pg = calloc(w.nv, sizeof(*w.pg));
	if (!w.pg)
		return false;
	err = mmc_vshare_build(c->snap, c->range, c->opts && c->opts->per_page, &w.fs);
	if (err) {
		mmc_error_destroy(err);
		free(w.pg);
		return false;
	}
	ok = check_folios(&w);
	mmc_vshare_free(&w.fs);
	free(w.pg);
	if (w.prot_unknown)
		lint_unchecked(c, MMC_RULE_HVO_RO,
			       "the snapshot does not record the vmemmap protection (a file before version 5)");
	return ok;
}
