// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exact equality of two snapshots (mmc_snapshot_equal_content): info,
 * geometry, discovery status and notes, device-dax ranges, pgmaps, HugeTLB
 * pools, memory blocks, ranges, runs and vframe runs, for the tests that prove a file round trip or two front ends
 * agree.
 */
#include <string.h>

#include "snapshot.h"
#include "snapshot_int.h"

static bool geom_same(const struct mmc_geom *a, const struct mmc_geom *b)
{
	return a->page_size == b->page_size &&
	       a->struct_page_size == b->struct_page_size &&
	       a->vmemmap_base == b->vmemmap_base && a->vmemmap_end == b->vmemmap_end &&
	       a->page_offset_base == b->page_offset_base &&
	       a->direct_map_end == b->direct_map_end &&
	       a->vmalloc_base == b->vmalloc_base && a->vmalloc_end == b->vmalloc_end &&
	       a->kimage_start == b->kimage_start && a->kimage_end == b->kimage_end &&
	       a->module_start == b->module_start && a->module_end == b->module_end &&
	       a->kaslr_offset == b->kaslr_offset &&
	       a->poison_pointer_delta == b->poison_pointer_delta &&
	       a->zones_width == b->zones_width && a->zones_pgshift == b->zones_pgshift &&
	       a->nodes_width == b->nodes_width && a->nodes_pgshift == b->nodes_pgshift &&
	       a->nr_pageflags == b->nr_pageflags &&
	       a->pgtable_levels == b->pgtable_levels &&
	       a->base_origin == b->base_origin && a->levels_origin == b->levels_origin;
}

static bool info_equal(const struct mmc_snapshot_info *a,
		       const struct mmc_snapshot_info *b)
{
	return !strcmp(a->release, b->release) && !strcmp(a->build_id, b->build_id) &&
	       a->layout_fingerprint == b->layout_fingerprint &&
	       !strcmp(a->dump, b->dump) && !strcmp(a->layout_source, b->layout_source) &&
	       !strcmp(a->created_by, b->created_by);
}

static bool nval_same(const struct mmc_nval *a, const struct mmc_nval *b)
{
	return a->cls == b->cls && a->region == b->region && a->off == b->off &&
	       a->v == b->v && a->raw == b->raw;
}

static bool pgmap_same(const struct mmc_spgmap *a, const struct mmc_spgmap *b)
{
	return a->kaddr == b->kaddr && a->type == b->type &&
	       !strcmp(a->type_name, b->type_name) && a->flags == b->flags &&
	       a->vmemmap_shift == b->vmemmap_shift && a->nr_range == b->nr_range &&
	       nval_same(&a->owner, &b->owner) && nval_same(&a->ops, &b->ops) &&
	       a->has_altmap == b->has_altmap &&
	       a->altmap_base_pfn == b->altmap_base_pfn &&
	       a->altmap_end_pfn == b->altmap_end_pfn &&
	       a->altmap_reserve == b->altmap_reserve &&
	       a->altmap_free == b->altmap_free && a->altmap_align == b->altmap_align &&
	       a->altmap_alloc == b->altmap_alloc;
}

static bool srange_same(const struct mmc_srange *a, const struct mmc_srange *b)
{
	return a->start_pfn == b->start_pfn && a->end_pfn == b->end_pfn &&
	       a->pgmap_index == b->pgmap_index && a->range_index == b->range_index &&
	       a->vmemmap_start == b->vmemmap_start &&
	       a->reserve_start == b->reserve_start && a->reserve_end == b->reserve_end &&
	       a->altmap_start == b->altmap_start && a->altmap_end == b->altmap_end &&
	       a->kind == b->kind && a->owner == b->owner;
}

/* HugeTLB pools and memory blocks, field by field. */
static bool pools_same(const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	if (a->huge_state != b->huge_state || strcmp(a->huge_why, b->huge_why) ||
	    a->nhstates != b->nhstates || a->nfolios != b->nfolios ||
	    a->plug_state != b->plug_state || strcmp(a->plug_why, b->plug_why) ||
	    a->nblocks != b->nblocks)
		return false;
	for (size_t i = 0; i < a->nhstates; i++) {
		const struct mmc_shstate *x = &a->hstates[i], *y = &b->hstates[i];

		if (x->order != y->order || x->flags != y->flags || strcmp(x->name, y->name) ||
		    x->nr != y->nr || x->free != y->free || x->resv != y->resv ||
		    x->surplus != y->surplus || x->kaddr != y->kaddr)
			return false;
	}
	for (size_t i = 0; i < a->nfolios; i++) {
		const struct mmc_sfolios *x = &a->folios[i], *y = &b->folios[i];

		if (x->hstate != y->hstate || x->node != y->node || x->start_pfn != y->start_pfn ||
		    x->nfolios != y->nfolios || x->list != y->list || x->vmemmap != y->vmemmap)
			return false;
	}
	for (size_t i = 0; i < a->nblocks; i++) {
		const struct mmc_smemblock *x = &a->blocks[i], *y = &b->blocks[i];

		if (x->id != y->id || x->start_pfn != y->start_pfn || x->end_pfn != y->end_pfn ||
		    x->nid != y->nid || x->state != y->state || x->flags != y->flags ||
		    x->altmap_pfns != y->altmap_pfns || x->kaddr != y->kaddr)
			return false;
	}
	return true;
}

static bool nrec_same(const struct mmc_nrec *x, const struct mmc_nrec *y)
{
	if (x->state != y->state || x->role != y->role || x->nslots != y->nslots ||
	    x->reason != y->reason)
		return false;
	for (unsigned int k = 0; k < x->nslots && k < MMC_MAX_SLOTS; k++) {
		const struct mmc_nval *p = &x->slot[k], *q = &y->slot[k];

		if (p->v != q->v || p->raw != q->raw || p->off != q->off ||
		    p->cls != q->cls || p->region != q->region)
			return false;
	}
	return true;
}

/* The runs as the builder closed them, whatever patterns hold them. */
static bool range_runs_same(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			    size_t i)
{
	const struct snap_range *ra = &a->ranges[i], *rb = &b->ranges[i];
	size_t n = mmc_snapshot_range_nruns(a, i), nv = mmc_snapshot_range_nvframe_runs(a, i);

	if (n != mmc_snapshot_range_nruns(b, i) || nv != mmc_snapshot_range_nvframe_runs(b, i) ||
	    ra->nrecs != rb->nrecs || ra->nvframes != rb->nvframes)
		return false;
	for (size_t j = 0; j < n; j++) {
		struct mmc_nrec fa, sa, fb, sb;
		uint64_t pa, ca, pb, cb;

		mmc_snapshot_range_run(a, i, j, &pa, &ca, &fa, &sa);
		mmc_snapshot_range_run(b, i, j, &pb, &cb, &fb, &sb);
		if (pa != pb || ca != cb || !nrec_same(&fa, &fb) || !nrec_same(&sa, &sb))
			return false;
	}
	for (size_t j = 0; j < nv; j++) {
		struct mmc_vframe x, dx, y, dy;
		uint64_t px, cx, py, cy;

		mmc_snapshot_range_vframe_run(a, i, j, &px, &cx, &x, &dx);
		mmc_snapshot_range_vframe_run(b, i, j, &py, &cy, &y, &dy);
		if (px != py || cx != cy || x.kind != y.kind || x.reason != y.reason ||
		    x.prot != y.prot || x.prot_known != y.prot_known || x.leaf != y.leaf ||
		    x.share_back != y.share_back || dx.share_back != dy.share_back ||
		    x.dev_off != y.dev_off || dx.dev_off != dy.dev_off ||
		    x.paddr != y.paddr || dx.paddr != dy.paddr)
			return false;
	}
	return true;
}

bool mmc_snapshot_equal_content(const struct mmc_snapshot *a,
				const struct mmc_snapshot *b)
{
	size_t i;

	if (!info_equal(&a->info, &b->info) ||
	    !geom_same(&a->geom, &b->geom) ||
	    a->discovery_incomplete != b->discovery_incomplete ||
	    strcmp(a->problem, b->problem) ||
	    a->problem_has_address != b->problem_has_address ||
	    a->problem_address != b->problem_address ||
	    a->nnotes != b->nnotes ||
	    a->dax_state != b->dax_state || strcmp(a->dax_why, b->dax_why) ||
	    a->ndax != b->ndax ||
	    a->npgmaps != b->npgmaps || a->nranges != b->nranges ||
	    !a->layout != !b->layout || !pools_same(a, b))
		return false;
	if (a->layout && mmc_layout_fingerprint(a->layout) !=
			 mmc_layout_fingerprint(b->layout))
		return false;
	for (i = 0; i < a->nnotes; i++)
		if (strcmp(a->notes[i], b->notes[i]))
			return false;
	for (i = 0; i < a->ndax; i++)
		if (a->dax[i].pgmap_index != b->dax[i].pgmap_index ||
		    a->dax[i].start_pfn != b->dax[i].start_pfn ||
		    a->dax[i].end_pfn != b->dax[i].end_pfn)
			return false;
	for (i = 0; i < a->npgmaps; i++)
		if (!pgmap_same(&a->pgmaps[i], &b->pgmaps[i]))
			return false;
	for (i = 0; i < a->nranges; i++) {
		if (!srange_same(&a->ranges[i].r, &b->ranges[i].r) ||
		    !range_runs_same(a, b, i))
			return false;
	}
	return true;
}
