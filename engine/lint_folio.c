// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint, the struct folio fields in page[1] and page[2] of a compound page.
 *
 * prep_compound_head() (6.10+, mm/internal.h): folio_set_order() (order byte
 * of _flags_1; _folio_nr_pages up to 6.x), _large_mapcount -1,
 * _entire_mapcount -1, _nr_pages_mapped 0, _pincount 0; 7.x with
 * CONFIG_MM_ID also _mm_ids 0 and _mm_id_mapcount[] -1; order > 1:
 * INIT_LIST_HEAD(&folio->_deferred_list).  6.1 (mm/page_alloc.c):
 * set_compound_order() (_folio_order, _folio_nr_pages), compound_mapcount
 * -1, compound_pincount 0.  free_tail_page_prepare() checks the same values
 * when a folio is freed; a mapped folio legitimately differs, with
 * counters that still agree with each other.  A HugeTLB folio is
 * prep_compound_page()'s: the same fields, page[2]'s list written after
 * the tails; which words of a tail its struct folio keeps is
 * lint_folio_word()'s to say, for every check of a tail.
 */
#include <inttypes.h>
#include <stdio.h>

#include "snapshot_folio.h"
#include "lint_int.h"

bool lint_folio_mapped(const struct mmc_folio_view *fv)
{
	if (!fv->valid)
		return false;
	if (fv->have_large_mapcount)
		return fv->large_mapcount > MMC_MAPCOUNT_UNMAPPED;
	if (fv->have_entire_mapcount)
		return fv->entire_mapcount > MMC_MAPCOUNT_UNMAPPED;
	return false;
}

bool lint_folio_word(const struct lint_ctx *c, uint64_t index, unsigned int slot)
{
	if (mmc_folio_owns_slot(c->layout, c->sps, mmc_tail_index_of(index), slot))
		return true;
	return c->kind == MMC_RANGE_HUGETLB &&
	       mmc_rule_hugetlb_owns_slot(c->layout, c->sps, c->geom->page_size, index, slot);
}

static const char *member_name(const struct lint_ctx *c, enum mmc_member_id id)
{
	return c->layout->member[id].found ? c->layout->member[id].name : "?";
}

static void check_order(struct lint_ctx *c, uint64_t pfn, const struct mmc_folio_view *fv)
{
	if (fv->order != c->order)
		lint_violate(c, MMC_RULE_ORDER, pfn, "folio order %u, %s %u",
			     fv->order, c->order_what, c->order);
	else if (fv->have_nr_pages && fv->nr_pages != (1ULL << fv->order))
		lint_violate(c, MMC_RULE_ORDER, pfn, "_folio_nr_pages %" PRIu64 ", expected %llu",
			     fv->nr_pages, 1ULL << fv->order);
}

/* Integers of page[1] that hold a pointer-classified value. */
static bool check_ints(struct lint_ctx *c, uint64_t p1, const struct mmc_folio_view *fv)
{
	static const enum mmc_member_id ids[MMC_FI_COUNT] = {
		[MMC_FI_LARGE_MAPCOUNT] = MMC_FOLIO_LARGE_MAPCOUNT,
		[MMC_FI_ENTIRE_MAPCOUNT] = MMC_FOLIO_ENTIRE_MAPCOUNT,
		[MMC_FI_NR_PAGES_MAPPED] = MMC_FOLIO_NR_PAGES_MAPPED,
		[MMC_FI_PINCOUNT] = MMC_FOLIO_PINCOUNT,
		[MMC_FI_MM_ID_MAPCOUNT0] = MMC_FOLIO_MM_ID_MAPCOUNT,
		[MMC_FI_MM_ID_MAPCOUNT1] = MMC_FOLIO_MM_ID_MAPCOUNT,
	};

	for (unsigned int i = 0; i < MMC_FI_COUNT; i++) {
		if (fv->not_int & (1u << i)) {
			lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
				     "page[1] %s holds a pointer, not a count",
				     member_name(c, ids[i]));
			return false;
		}
	}
	return true;
}

/* An unmapped folio holds prep_compound_head()'s values. */
static void check_unmapped(struct lint_ctx *c, uint64_t p1, const struct mmc_folio_view *fv)
{
	if (fv->have_large_mapcount && fv->large_mapcount != MMC_MAPCOUNT_UNMAPPED)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
			     "_large_mapcount %d, expected -1 (nonzero large_mapcount)",
			     fv->large_mapcount);
	else if (fv->have_entire_mapcount && fv->entire_mapcount != MMC_MAPCOUNT_UNMAPPED)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
			     "%s %d on an unmapped folio, expected -1 (nonzero entire_mapcount)",
			     member_name(c, MMC_FOLIO_ENTIRE_MAPCOUNT), fv->entire_mapcount);
	else if (fv->have_nr_pages_mapped && fv->nr_pages_mapped != 0)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
			     "_nr_pages_mapped %d on an unmapped folio (nonzero nr_pages_mapped)",
			     fv->nr_pages_mapped);
	else if (fv->have_pincount && fv->pincount != 0)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
			     "_pincount %d on an unmapped folio (nonzero pincount)", fv->pincount);
	else if (fv->have_mm_id_mapcount &&
		 (fv->mm_id_mapcount[0] != MMC_MAPCOUNT_UNMAPPED ||
		  fv->mm_id_mapcount[1] != MMC_MAPCOUNT_UNMAPPED))
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
			     "_mm_id_mapcount %d/%d on an unmapped folio (nonzero mm mapcount)",
			     fv->mm_id_mapcount[0], fv->mm_id_mapcount[1]);
	else if (fv->have_mm_ids && fv->mm_ids.cls != MMC_V_NULL)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
			     "_mm_ids 0x%" PRIx64 " on an unmapped folio, expected 0", fv->mm_ids.raw);
}

/* A mapped folio: each counter in its range, the entire mappings part of
 * all mappings (__folio_add_rmap() adds to both). */
static void check_mapped(struct lint_ctx *c, uint64_t p1, const struct mmc_folio_view *fv)
{
	if (fv->have_entire_mapcount && fv->entire_mapcount < MMC_MAPCOUNT_UNMAPPED)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1, "%s %d below -1",
			     member_name(c, MMC_FOLIO_ENTIRE_MAPCOUNT), fv->entire_mapcount);
	else if (fv->have_large_mapcount && fv->have_entire_mapcount &&
		 fv->entire_mapcount > fv->large_mapcount)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1,
			     "_entire_mapcount %d above _large_mapcount %d",
			     fv->entire_mapcount, fv->large_mapcount);
	else if (fv->have_nr_pages_mapped && fv->nr_pages_mapped < 0)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1, "_nr_pages_mapped %d is negative",
			     fv->nr_pages_mapped);
	else if (fv->have_pincount && fv->pincount < 0)
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1, "_pincount %d is negative",
			     fv->pincount);
	else if (fv->have_mm_id_mapcount &&
		 (fv->mm_id_mapcount[0] < MMC_MAPCOUNT_UNMAPPED ||
		  fv->mm_id_mapcount[1] < MMC_MAPCOUNT_UNMAPPED))
		lint_violate(c, MMC_RULE_FOLIO_MAPCOUNT, p1, "_mm_id_mapcount %d/%d below -1",
			     fv->mm_id_mapcount[0], fv->mm_id_mapcount[1]);
}

static void check_deferred(struct lint_ctx *c, uint64_t p2, const struct mmc_folio_view *fv)
{
	const struct mmc_member *dl = &c->layout->member[MMC_FOLIO_DEFERRED_LIST];
	uint32_t off = dl->offset % c->sps;
	/* prep_compound_page() (a HugeTLB folio) writes the head last */
	unsigned int states = c->kind == MMC_RANGE_PGMAP ? mmc_rule_page2_states(c->kver)
							 : MMC_PAGE2_EMPTY_LIST;
	const struct mmc_nval *n = &fv->deferred_next, *p = &fv->deferred_prev;
	bool empty = n->cls == MMC_V_SELF && n->off == off && p->cls == MMC_V_SELF && p->off == off;
	bool tail = n->cls == MMC_V_NULL && p->cls == MMC_V_POISON &&
		    p->v == MMC_POISON_TAIL_MAPPING;
	char a[48], b[48];

	if ((empty && (states & MMC_PAGE2_EMPTY_LIST)) || (tail && (states & MMC_PAGE2_TAIL_WORDS)))
		return;
	mmc_format_nval(n, a, sizeof(a));
	mmc_format_nval(p, b, sizeof(b));
	if (tail && c->kind != MMC_RANGE_PGMAP)
		lint_violate(c, MMC_RULE_DEFERRED_LIST, p2,
			     "_deferred_list %s/%s: the tail's words, but prep_compound_page() calls prep_compound_head() last (on deferred list)",
			     a, b);
	else if (tail)
		lint_violate(c, MMC_RULE_DEFERRED_LIST, p2,
			     "_deferred_list %s/%s: the tail's words, but %d.%d's memmap_init_compound() calls prep_compound_head() last (on deferred list)",
			     a, b, c->kver.major, c->kver.minor);
	else
		lint_violate(c, MMC_RULE_DEFERRED_LIST, p2,
			     "_deferred_list %s/%s: not an empty list (on deferred list)", a, b);
}

bool lint_check_folio(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec)
{
	struct mmc_folio_view fv;
	size_t n = mmc_snapshot_folio(c->snap, c->range, pfn, rec, &fv);
	bool mapped;

	if (n < 2 || !fv.valid) {
		if (pfn + 1 >= c->sr->end_pfn)
			lint_violate(c, MMC_RULE_ORDER, pfn,
				     "page[1] of head 0x%" PRIx64 " lies outside the range", pfn);
		return false;
	}
	check_order(c, pfn, &fv);
	mapped = lint_folio_mapped(&fv);
	c->head.folio_known = true;
	c->head.mapped = mapped;
	if (check_ints(c, pfn + 1, &fv)) {
		if (mapped)
			check_mapped(c, pfn + 1, &fv);
		else
			check_unmapped(c, pfn + 1, &fv);
	}
	if (n >= 3 && fv.have_deferred_list && c->order > 1)
		check_deferred(c, pfn + 2, &fv);
	return mapped;
}
