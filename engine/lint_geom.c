// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint, geometry: where memmap_init_zone_device() starts compound pages,
 * whether they are naturally aligned, which vmemmap frames they share and
 * whether a mapped device-dax folio stays inside its dax range.
 *
 * memmap_init_zone_device() (6.1, 6.12, 7.2 alike): with an altmap the
 * first altmap->reserve pfns are never written and the next altmap->free
 * are memmap_init_range()'s; from the first pfn after them it starts a
 * compound page every pgmap_vmemmap_nr(pgmap) pfns:
 *	for (pfn = start_pfn; pfn < end_pfn; pfn += pfns_per_compound)
 * so a head sits at dev_start + k << vmemmap_shift, aligned or not
 * (head-align then says so).  A kernel that keeps compound pages naturally
 * aligned (patches/<kver>/fix-compound-natural-align.patch) starts them at
 * ALIGN(dev_start, nr) and makes the pfns before the first and after the
 * last whole one order-0 pages.  Where dev_start is not aligned the two
 * differ; the page at dev_start says which one the image has: a head, or
 * an order-0 page.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lint_int.h"
#include "vshare.h"
#include "rules.h"

/* Orders beyond this are a corrupt snapshot, not a kernel: PUD_ORDER is 18. */
#define LINT_MAX_ORDER 40

/* Is the page at dev_start an order-0 page (the aligned layout)? */
static bool starts_order0(const struct lint_ctx *c)
{
	struct mmc_page_view v;
	struct mmc_nrec rec;

	if (!mmc_snapshot_get(c->snap, c->range, c->dev_start, &rec) ||
	    rec.state != MMC_PS_READ)
		return false;
	mmc_page_decode(c->layout, c->geom, c->dev_start, &rec, &v);
	return !v.head && !v.tail;
}

/* The device-dax data range of this range's pgmap, from the snapshot. */
static void lint_geom_dax(struct lint_ctx *c)
{
	const struct mmc_srange *sr = c->sr;
	const struct mmc_dax_span *dax;
	const char *why;
	size_t n;
	enum mmc_dax_state st;

	c->dax_known = false;
	if (!mmc_rule_devdax_type(c->type))
		return;
	st = mmc_snapshot_dax(c->snap, &dax, &n, &why);
	for (size_t i = 0; i < n; i++) {
		if (dax[i].pgmap_index == sr->pgmap_index &&
		    dax[i].start_pfn < sr->end_pfn && dax[i].end_pfn > sr->start_pfn) {
			c->dax_known = true;
			c->dax_start = dax[i].start_pfn;
			c->dax_end = dax[i].end_pfn;
			return;
		}
	}
	if (!c->res->dax_unchecked++)
		snprintf(c->res->dax_why, sizeof(c->res->dax_why), "%s",
			 st == MMC_DAX_READ ? "no device-dax instance names its pgmap" : why);
}

void lint_geom_range(struct lint_ctx *c)
{
	const struct mmc_srange *sr = c->sr;
	uint64_t ds = sr->start_pfn;

	if (sr->reserve_end > sr->reserve_start && sr->reserve_end > ds)
		ds = sr->reserve_end;
	if (sr->altmap_end > sr->altmap_start && sr->altmap_end > ds)
		ds = sr->altmap_end;
	c->dev_start = ds;
	c->order = c->pg->vmemmap_shift > LINT_MAX_ORDER ? LINT_MAX_ORDER
							 : c->pg->vmemmap_shift;
	c->nr = 1ULL << c->order;
	c->first_head = ds;
	c->compound_end = UINT64_MAX;
	c->aligned_layout = false;
	if (c->nr > 1 && (ds & (c->nr - 1)) && starts_order0(c)) {
		uint64_t first = (ds + c->nr - 1) & ~(c->nr - 1);
		uint64_t last = sr->end_pfn & ~(c->nr - 1);

		c->aligned_layout = true;
		c->first_head = first < last ? first : sr->end_pfn;
		c->compound_end = first < last ? last : sr->end_pfn;
	}
	lint_geom_dax(c);
}

struct lint_expect lint_expect(const struct lint_ctx *c, uint64_t pfn)
{
	const struct mmc_srange *sr = c->sr;
	struct lint_expect e = { .place = LP_NONE };

	if (pfn < c->dev_start) {
		if (pfn >= sr->altmap_start && pfn < sr->altmap_end)
			e.place = LP_ALTMAP;
		return e;
	}
	if (c->nr == 1 || pfn < c->first_head || pfn >= c->compound_end) {
		e.place = LP_SINGLE;
		e.head = pfn;
		return e;
	}
	e.index = (pfn - c->first_head) % c->nr;
	e.head = pfn - e.index;
	e.place = e.index ? LP_TAIL : LP_HEAD;
	return e;
}

void lint_check_head_align(struct lint_ctx *c, uint64_t pfn)
{
	if (pfn & (c->nr - 1))
		lint_violate(c, MMC_RULE_HEAD_ALIGN, pfn,
			     "head of an order-%u compound page at pfn 0x%" PRIx64
			     ", not a multiple of 0x%" PRIx64 " (memmap_init_zone_device() starts at 0x%" PRIx64 ")",
			     c->order, pfn, c->nr, c->dev_start);
}

void lint_check_dax_range(struct lint_ctx *c, uint64_t head, uint64_t nr)
{
	if (!c->dax_known)
		return;
	if (head < c->dax_start || head + nr > c->dax_end)
		lint_violate(c, MMC_RULE_DAX_RANGE, head,
			     "mapped folio 0x%" PRIx64 "-0x%" PRIx64 " reaches outside the device-dax range 0x%" PRIx64 "-0x%" PRIx64,
			     head, head + nr, c->dax_start, c->dax_end);
}

/* pfns [*first, *last] whose struct pages vmemmap page i holds. */
static void frame_pfns(const struct lint_ctx *c, uint64_t per, uint64_t i,
		       uint64_t *first, uint64_t *last)
{
	*first = c->sr->start_pfn + i * per;
	*last = *first + per - 1;
	if (*last >= c->sr->end_pfn)
		*last = c->sr->end_pfn - 1;
}

/* Compound page number of pfn; pfns outside the compound pages (memmap,
 * order-0) get numbers of their own. */
static uint64_t compound_of(const struct lint_ctx *c, uint64_t pfn)
{
	if (pfn < c->first_head || pfn >= c->compound_end)
		return (UINT64_MAX >> 1) + pfn;
	return (pfn - c->first_head) >> c->order;
}

/* The first head, page[1] or page[2] of a compound page in [first, last]. */
static bool holds_folio_page(const struct lint_ctx *c, uint64_t first, uint64_t last,
			     uint64_t *pfn)
{
	uint64_t p, idx;

	if (c->nr == 1 || last < c->first_head)
		return false;
	p = first < c->first_head ? c->first_head : first;
	idx = (p - c->first_head) & (c->nr - 1);
	if (idx >= MMC_TAIL_OTHER)
		p += c->nr - idx;
	if (p > last || p >= c->compound_end)
		return false;
	*pfn = p;
	return true;
}

/*
 * The first pfn of [first, last] the kernel writes after init, so that its
 * vmemmap page must be writable: a memmap (altmap) pfn (memmap_init_range()),
 * an order-0 device page, a head, page[1] or page[2]; the altmap reserve
 * (never written) and plain tails (written once, through the mapping that
 * populated them) are not.
 */
static bool holds_written(const struct lint_ctx *c, uint64_t first, uint64_t last,
			  uint64_t *pfn)
{
	uint64_t end = c->sr->end_pfn;
	/* [start, end) spans of memmap pfns and order-0 device pages */
	uint64_t span[3][2] = {
		{ c->sr->altmap_start, c->sr->altmap_end < c->dev_start ? c->sr->altmap_end : c->dev_start },
		{ c->dev_start, c->nr == 1 ? end : c->first_head },
		{ c->nr == 1 ? end : c->compound_end, end },
	};
	uint64_t best = UINT64_MAX, p;

	for (unsigned int k = 0; k < 3; k++) {
		uint64_t lo = first > span[k][0] ? first : span[k][0];
		uint64_t hi = last + 1 < span[k][1] ? last + 1 : span[k][1];

		if (lo < hi && lo < best)
			best = lo;
	}
	if (holds_folio_page(c, first, last, &p) && p < best)
		best = p;
	*pfn = best;
	return best != UINT64_MAX;
}

/* What the vmemmap pages mapping one frame say about writing it. */
enum frame_prot {
	FP_READ_ONLY = 0,	/* every mapping read-only */
	FP_WRITABLE,		/* some mapping writable */
	FP_UNKNOWN,		/* none writable, some not recorded */
};

static enum frame_prot prot_of(const struct mmc_vframe *vf)
{
	if (!(vf->prot_known & MMC_VPROT_WRITABLE))
		return FP_UNKNOWN;
	return vf->prot & MMC_VPROT_WRITABLE ? FP_WRITABLE : FP_READ_ONLY;
}

static enum frame_prot prot_join(enum frame_prot a, enum frame_prot b)
{
	if (a == FP_WRITABLE || b == FP_WRITABLE)
		return FP_WRITABLE;
	return a == FP_UNKNOWN || b == FP_UNKNOWN ? FP_UNKNOWN : FP_READ_ONLY;
}

static void share_violation(struct lint_ctx *c, uint64_t per, uint64_t i, uint64_t f,
			    uint64_t paddr, enum frame_prot fp)
{
	uint64_t first, last, ofirst, olast;
	const char *why = NULL;

	frame_pfns(c, per, i, &first, &last);
	frame_pfns(c, per, f, &ofirst, &olast);
	if (c->nr == 1) {
		why = "shared in an order-0 pgmap";
	} else if (c->pg->has_altmap) {
		why = "shared with an altmap (memmap in device memory)";
	} else if (compound_of(c, ofirst) != compound_of(c, last) ||
		   compound_of(c, first) != compound_of(c, last)) {
		/* shared across compound pages: only read-only, as the
		 * shared tail frame is mapped (PAGE_KERNEL_RO); not
		 * recorded: not checked (check_prot() counts the pages) */
		if (fp == FP_WRITABLE)
			why = "shares a frame with another compound page, and a mapping of it is writable";
	}
	/* a head's frame shared within its compound page: head-frame */
	if (!why)
		return;
	for (uint64_t p = first; p <= last; p++)
		lint_violate(c, MMC_RULE_VMEMMAP_SHARE, p,
			     "vmemmap page %" PRIu64 " maps the frame of vmemmap page %" PRIu64
			     " (0x%" PRIx64 ", pfns 0x%" PRIx64 "-0x%" PRIx64 "): %s",
			     i, f, paddr, ofirst, olast, why);
}

/* Frame i, mapped by `count` vmemmap pages, the first of them f; fp what
 * all of them say. */
static void check_frame(struct lint_ctx *c, uint64_t per, uint64_t i, uint64_t f,
			uint64_t count, uint64_t paddr, enum frame_prot fp)
{
	uint64_t first, last, pfn;

	frame_pfns(c, per, i, &first, &last);
	if (holds_folio_page(c, first, last, &pfn)) {
		uint64_t idx = (pfn - c->first_head) & (c->nr - 1);

		lint_violate(c, MMC_RULE_HEAD_FRAME, pfn,
			     "%s 0x%" PRIx64 " lies in vmemmap page %" PRIu64 ", whose frame 0x%" PRIx64
			     " %" PRIu64 " vmemmap pages map (first: vmemmap page %" PRIu64 ")",
			     idx ? mmc_tail_index_name(mmc_tail_index_of(idx)) : "head", pfn, i,
			     paddr, count, f);
	}
	if (f != i)
		share_violation(c, per, i, f, paddr, fp);
}

/* Vmemmap page i, mapped read-only (vmemmap-ro), or its protection not
 * recorded (counted, not checked). */
static void check_prot(struct lint_ctx *c, uint64_t per, uint64_t i,
		       const struct mmc_vframe *vf)
{
	uint64_t first, last, pfn;

	if (vf->kind != MMC_VF_RAM && vf->kind != MMC_VF_DEVICE)
		return;
	if (prot_of(vf) == FP_UNKNOWN) {
		c->res->vprot_unchecked++;
		return;
	}
	if (prot_of(vf) == FP_WRITABLE)
		return;
	frame_pfns(c, per, i, &first, &last);
	if (!holds_written(c, first, last, &pfn))
		return;
	for (uint64_t p = pfn; p <= last; p++) {
		struct lint_expect e = lint_expect(c, p);
		const char *what = e.place == LP_ALTMAP ? "a memmap (altmap) page" :
				   e.place == LP_SINGLE ? "an order-0 page" :
				   e.place == LP_HEAD ? "a head" :
				   e.place == LP_TAIL && e.index < MMC_TAIL_OTHER ?
				   mmc_tail_index_name(mmc_tail_index_of(e.index)) : NULL;

		if (what)
			lint_violate(c, MMC_RULE_VMEMMAP_RO, p,
				     "%s at pfn 0x%" PRIx64 " lies in vmemmap page %" PRIu64
				     ", mapped read-only (frame 0x%" PRIx64 ")",
				     what, p, i, vf->paddr);
	}
}

bool lint_check_vframes(struct lint_ctx *c)
{
	uint32_t psz = c->geom->page_size;
	struct mmc_vshare fs;
	struct mmc_error *err;
	uint64_t per;

	if (!c->sps || !psz || psz % c->sps)
		return true;
	per = psz / c->sps;
	err = mmc_vshare_build(c->snap, c->range, c->opts && c->opts->per_page, &fs);
	if (err) {
		mmc_error_destroy(err);
		return false;
	}
	if (fs.by_runs) {
		/* sharing only inside a run whose frame does not move, and
		 * with the last page of the run before it */
		size_t nv = mmc_snapshot_range_nvframe_runs(c->snap, c->range);
		struct mmc_vshare_run prev, cur;

		memset(&prev, 0, sizeof(prev));
		for (size_t j = 0; j < nv; j++) {
			uint64_t first, count;
			enum frame_prot fp;

			mmc_vshare_load(c->snap, c->range, j, &cur);
			if (prot_of(&cur.first) != FP_WRITABLE)
				for (uint64_t i = cur.start; i < cur.start + cur.count; i++)
					check_prot(c, per, i, &cur.first);
			if (mmc_vshare_group(j ? &prev : NULL, &cur, &first, &count)) {
				fp = prot_of(&cur.first);
				if (first < cur.start)
					fp = prot_join(fp, prot_of(&prev.first));
				for (uint64_t i = first; i < cur.start + cur.count; i++)
					check_frame(c, per, i, first, count, cur.first.paddr, fp);
			}
			prev = cur;
		}
		mmc_vshare_free(&fs);
		return true;
	}
	{
		/* what every frame's mappings say, at its first page */
		uint8_t *fp = calloc(fs.vs.n ? fs.vs.n : 1, 1);

		if (!fp) {
			mmc_vshare_free(&fs);
			return false;
		}
		for (size_t i = 0; i < fs.vs.n; i++) {
			struct mmc_vframe vf;

			mmc_snapshot_range_vframe(c->snap, c->range, i, &vf);
			check_prot(c, per, i, &vf);
			fp[fs.vs.first[i]] = (uint8_t)prot_join((enum frame_prot)fp[fs.vs.first[i]],
								prot_of(&vf));
		}
		for (size_t i = 0; i < fs.vs.n; i++) {
			struct mmc_vframe vf;

			if (fs.vs.count[i] < 2)
				continue;
			mmc_snapshot_range_vframe(c->snap, c->range, i, &vf);
			check_frame(c, per, i, fs.vs.first[i], fs.vs.count[i], vf.paddr,
				    (enum frame_prot)fp[fs.vs.first[i]]);
		}
		free(fp);
	}
	mmc_vshare_free(&fs);
	return true;
}
