// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint, HugeTLB: a range of consecutive folios of one hstate (model.h),
 * read in 6.1 (include/linux/hugetlb.h), 6.12.117 and 7.2.8 (mm/hugetlb.c,
 * mm/page_alloc.c, mm/internal.h, include/linux/page-flags.h).
 *
 * The geometry is the kernel's own: discovery takes a folio from its
 * pool's list only at a head aligned to the hstate's order, and a range is
 * made of whole folios, so the heads sit at start_pfn + i << order, which
 * is what lint_expect() computes when the range's compound pages start at
 * its first pfn.  The tails are prep_compound_page()'s (or, for a boot-time
 * gigantic folio, hugetlb_folio_init_tail_vmemmap()'s): lint_page.c's
 * checks of a compound tail and lint_folio.c's of page[1]/page[2] apply as
 * they are.  What only a HugeTLB head has is here: the hugetlb page type
 * (__folio_set_hugetlb()), and what its pool's lists say of it
 * (enqueue_hugetlb_folio() and the paths taking it off a free list).
 * Its vmemmap is lint_hvo.c's, which also tells the page pass which
 * struct pages are HVO's aliases of the folio's first vmemmap page.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint_int.h"

/* Orders beyond this are a corrupt snapshot, not a kernel (lint_geom.c). */
#define HUGE_MAX_ORDER 40

static uint64_t span_end(const struct mmc_sfolios *s, const struct mmc_shstate *hs)
{
	return s->start_pfn + (s->nfolios << hs[s->hstate].order);
}

/* The folio span holding pfn, or NULL. */
static const struct mmc_sfolios *span_of(struct lint_huge *hu, uint64_t pfn)
{
	const struct mmc_shstate *hs = hu->hs;
	size_t lo = 0, hi = hu->nspans;

	if (hu->at < hu->nspans && hu->spans[hu->at].start_pfn <= pfn &&
	    pfn < span_end(&hu->spans[hu->at], hs))
		return &hu->spans[hu->at];
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (hu->spans[mid].start_pfn <= pfn)
			lo = mid;
		else
			hi = mid;
	}
	if (lo < hu->nspans && hu->spans[lo].start_pfn <= pfn &&
	    pfn < span_end(&hu->spans[lo], hs)) {
		hu->at = lo;
		return &hu->spans[lo];
	}
	return NULL;
}

/* What the layout cannot tell on this kernel, said once. */
static void note_unchecked(struct lint_ctx *c)
{
	if (mmc_rule_hugetlb_type(c->layout, 0) == MMC_HTYPE_UNKNOWN)
		lint_unchecked(c, MMC_RULE_HUGETLB_TYPE,
			       "the layout's enum pagetype has no PGTY_hugetlb or PG_hugetlb (6.1 marks a HugeTLB folio in page[1].compound_dtor)");
}

struct mmc_error *lint_hugetlb_begin(struct lint_ctx *c)
{
	const struct mmc_shstate *hs = NULL;
	const struct mmc_sfolios *f = NULL;
	size_t nh = 0, nf = 0;
	struct lint_huge *hu;

	mmc_snapshot_hugetlb(c->snap, &hs, &nh, &f, &nf, NULL);
	if (c->sr->owner >= nh)
		return mmc_error_create(MMC_ERR_CORRUPT, NULL, "range %zu: hstate %u of %zu",
					c->range, c->sr->owner, nh);
	hu = calloc(1, sizeof(*hu));
	if (!hu)
		return mmc_error_nomem();
	c->huge = hu;
	hu->hs = hs;
	hu->h = &hs[c->sr->owner];
	hu->spans = f;
	hu->nspans = nf;
	mmc_snapshot_hotplug(c->snap, &hu->blocks, &hu->nblocks, NULL);
	c->type_name = hu->h->name;
	c->order_what = "hstate order";
	c->order = hu->h->order > HUGE_MAX_ORDER ? HUGE_MAX_ORDER : hu->h->order;
	c->nr = 1ULL << c->order;
	c->dev_start = c->first_head = c->sr->start_pfn;
	c->compound_end = c->sr->end_pfn;
	c->aligned_layout = false;
	note_unchecked(c);
	if (!lint_hvo_check(c))
		return mmc_error_nomem();
	return NULL;
}

void lint_hugetlb_end(struct lint_ctx *c)
{
	if (!c->huge)
		return;
	free(c->huge->alias);
	free(c->huge);
	c->huge = NULL;
}

bool lint_alias_add(struct lint_huge *hu, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return true;
	if (hu->nalias && hu->alias[hu->nalias - 1].hi == lo) {
		hu->alias[hu->nalias - 1].hi = hi;
		return true;
	}
	if (hu->nalias == hu->alias_cap) {
		size_t cap = hu->alias_cap ? hu->alias_cap * 2 : 16;
		struct lint_span *a = realloc(hu->alias, cap * sizeof(*a));

		if (!a)
			return false;
		hu->alias = a;
		hu->alias_cap = cap;
	}
	hu->alias[hu->nalias].lo = lo;
	hu->alias[hu->nalias].hi = hi;
	hu->nalias++;
	return true;
}

/* The first alias span ending after pfn (nalias if none). */
static size_t alias_from(struct lint_huge *hu, uint64_t pfn)
{
	size_t lo = 0, hi = hu->nalias;

	if (hu->alias_at < hu->nalias && hu->alias[hu->alias_at].hi > pfn &&
	    (!hu->alias_at || hu->alias[hu->alias_at - 1].hi <= pfn))
		return hu->alias_at;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hu->alias[mid].hi > pfn)
			hi = mid;
		else
			lo = mid + 1;
	}
	hu->alias_at = lo;
	return lo;
}

uint64_t lint_alias_run(const struct lint_ctx *c, uint64_t pfn, uint64_t n, bool *alias)
{
	struct lint_huge *hu = c->huge;
	const struct lint_span *s;
	size_t i;

	*alias = false;
	if (!hu || !hu->nalias || !n)
		return n;
	i = alias_from(hu, pfn);
	if (i == hu->nalias)
		return n;
	s = &hu->alias[i];
	if (s->lo <= pfn) {
		*alias = true;
		return s->hi - pfn < n ? s->hi - pfn : n;
	}
	return s->lo - pfn < n ? s->lo - pfn : n;
}

bool lint_hugetlb_uniform(const struct lint_ctx *c, uint64_t lo, uint64_t hi)
{
	const struct mmc_sfolios *s;
	bool alias;

	if (!c->huge || hi <= lo)
		return false;
	s = span_of(c->huge, lo);
	if (!s || hi > span_end(s, c->huge->hs))
		return false;
	return lint_alias_run(c, lo, hi - lo, &alias) == hi - lo && !alias;
}

/* init_new_hugetlb_folio(): __folio_set_hugetlb(), in the head's
 * _mapcount word (page_type). */
static void check_type(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v)
{
	uint32_t pt = (uint32_t)v->mapcount;

	if (mmc_rule_hugetlb_type(c->layout, pt) == MMC_HTYPE_NO)
		lint_violate(c, MMC_RULE_HUGETLB_TYPE, pfn,
			     "page_type 0x%08" PRIx32 " of a folio on %s's list: not the hugetlb type (__folio_set_hugetlb())",
			     pt, c->type_name);
}

/* HPG_freed of the head's private word: -1 when it cannot be read. */
static int hpg_freed(const struct lint_ctx *c, const struct mmc_page_view *v)
{
	int64_t bit;

	if (v->private_.cls != MMC_V_RAW && v->private_.cls != MMC_V_NULL)
		return -1;
	if (!mmc_layout_enum_value(c->layout, MMC_ENUM_HUGETLB_PAGE_FLAGS, "HPG_freed", &bit) ||
	    bit < 0 || bit > 63)
		return -1;
	return (int)((v->private_.raw >> bit) & 1);
}

/* enqueue_hugetlb_folio(): frozen, HPG_freed, on the list of its node;
 * taken off it (dequeue_hugetlb_folio_node_exact()) or allocated straight
 * to the active list: a reference, no HPG_freed. */
static void check_list(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v,
		       const struct mmc_sfolios *sf)
{
	int freed = hpg_freed(c, v);

	if (sf->list == MMC_FOLIO_FREE) {
		if (v->refcount != 0)
			lint_violate(c, MMC_RULE_HUGETLB_LIST, pfn,
				     "_refcount %d on a free list (enqueue_hugetlb_folio(): VM_BUG_ON_FOLIO(folio_ref_count(folio)))",
				     v->refcount);
		else if (freed == 0)
			lint_violate(c, MMC_RULE_HUGETLB_LIST, pfn,
				     "no HPG_freed on a free list (enqueue_hugetlb_folio(): folio_set_hugetlb_freed())");
		if (v->node != sf->node)
			lint_violate(c, MMC_RULE_NODE, pfn,
				     "node %u, on hugepage_freelists[%u] (enqueue_hugetlb_folio(): the list of folio_nid())",
				     v->node, sf->node);
		return;
	}
	if (v->refcount < 1)
		lint_violate(c, MMC_RULE_HUGETLB_LIST, pfn,
			     "_refcount %d on the active list (folio_ref_unfreeze(folio, 1) when taken)",
			     v->refcount);
	else if (freed == 1)
		lint_violate(c, MMC_RULE_HUGETLB_LIST, pfn,
			     "HPG_freed on the active list (dequeue_hugetlb_folio_node_exact(): folio_clear_hugetlb_freed())");
}

void lint_hugetlb_head(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
		       const struct mmc_page_view *v)
{
	const struct mmc_sfolios *sf = span_of(c->huge, pfn);

	memset(&c->head, 0, sizeof(c->head));
	c->head.valid = true;
	c->head.pfn = pfn;
	c->head.readable = true;
	c->head.proper = v->head && !v->tail;
	c->head.zone = v->zone;
	c->head.node = v->node;
	if (v->tail) {
		lint_violate(c, MMC_RULE_ORDER, pfn,
			     "a tail where a folio of %s (order %u) starts", c->type_name, c->order);
		return;
	}
	if (!v->head)
		lint_violate(c, MMC_RULE_ORDER, pfn,
			     "no PG_head on the head of a folio of %s (order %u, prep_compound_page())",
			     c->type_name, c->order);
	check_type(c, pfn, v);
	if (sf)
		check_list(c, pfn, v, sf);
	if (v->head)
		lint_check_folio(c, pfn, rec);
}
