// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The walk's planner and reader.  The planner goes through the ranges in
 * pfn order: holes in the page tables larger than a window become one
 * item, the rest windows of WIN_VPAGES vmemmap pages, each translated page
 * by page and told which earlier page of its range maps the same frame
 * (the kernel shares tail vmemmap pages of compound pages).  The reader
 * reads a window's unshared frames, physically contiguous ones in one
 * call; the consumer (walk.c) fills the shared ones from what it has.
 */
#include "walk_int.h"

#include <stdlib.h>
#include <string.h>

#define SHARE_SLOTS	16384	/* power of two; > vmemmap pages of a 1 GiB compound */
#define SHARE_PERIOD	4096	/* reset period (vmemmap pages) for order-0 pgmaps */

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Index of the first vmemmap page (since the last reset) mapping paddr. */
static uint64_t share_lookup(struct wplan *p, uint64_t paddr, uint64_t index)
{
	uint64_t h = hash64(paddr) & (SHARE_SLOTS - 1);
	unsigned int probes;

	for (probes = 0; probes < SHARE_SLOTS; probes++) {
		struct share_slot *s = &p->share[h];

		if (s->gen != p->share_gen) {
			s->gen = p->share_gen;
			s->paddr = paddr;
			s->first = index;
			return index;
		}
		if (s->paddr == paddr)
			return s->first;
		h = (h + 1) & (SHARE_SLOTS - 1);
	}
	/* full: start over rather than probe forever */
	p->share_gen++;
	return share_lookup(p, paddr, index);
}

/* The reason a NODATA error gives; one that says none means "absent". */
uint8_t mmc_wnodata_reason(const struct mmc_error *err)
{
	if (err->code == MMC_ERR_CORRUPT)
		return MMC_UR_CORRUPT;
	return err->reason != MMC_UR_NONE ? err->reason : MMC_UR_ABSENT;
}

/*
 * A translation error that makes vmemmap pages unreadable rather than the
 * walk impossible: a page table the dump lacks, or a table entry that
 * cannot be right (a reserved bit set by damage).
 */
static bool translation_unreadable(const struct mmc_error *err)
{
	return err->code == MMC_ERR_NODATA || err->code == MMC_ERR_CORRUPT;
}

/*
 * A hole in the page tables larger than a window (an entry not present, or
 * a table the dump lacks, at the PMD level or above) holds no struct page:
 * its pfns become one run and its vmemmap pages one vframe run, at once.
 * So a range the page tables do not cover (a corrupt pgmap saying a range
 * of 2^34 pages) costs as much as the tables there are, not its size.
 */
static bool plan_hole(struct wplan *p, const struct mmc_srange *r, struct witem *it)
{
	uint64_t vb = p->k->geom.vmemmap_base, ps = p->ps, sps = p->sps;
	uint64_t vpage = (vb + p->pfn * sps) & ~(ps - 1);
	uint64_t paddr = 0, size = 0, end_va, end_pfn, vend;
	struct mmc_nrec *rec = &it->hole_rec;
	struct mmc_vframe *vf = &it->hole_vf;
	struct mmc_error *err;
	bool mapped = false;

	memset(rec, 0, sizeof(*rec));
	memset(vf, 0, sizeof(*vf));
	err = mmc_pgtable_translate(p->k->pgt, vpage, &mapped, &paddr, &size);
	if (err) {
		if (!translation_unreadable(err)) {
			mmc_error_destroy(err);
			return false;	/* the window says what it is */
		}
		rec->state = MMC_PS_UNREADABLE;
		rec->reason = mmc_wnodata_reason(err);
		vf->kind = MMC_VF_UNREADABLE;
		vf->reason = rec->reason;
		mmc_error_destroy(err);
	} else if (mapped) {
		return false;
	} else {
		rec->state = MMC_PS_UNMAPPED;
		vf->kind = MMC_VF_UNMAPPED;
	}
	if (size <= (uint64_t)WIN_VPAGES * ps)
		return false;
	end_va = size == UINT64_MAX || vpage + size < vpage ? UINT64_MAX :
		 (vpage & ~(size - 1)) + size;
	/* the pfns whose struct page lies wholly in the hole, one role */
	end_pfn = end_va == UINT64_MAX || end_va - vb < end_va - vpage ?
		  r->end_pfn : (end_va - vb) / sps;
	if (end_pfn > mmc_wrole_end(r, p->pfn))
		end_pfn = mmc_wrole_end(r, p->pfn);
	if (end_pfn <= p->pfn)
		return false;
	rec->nslots = (uint8_t)(sps / 8);
	rec->role = (uint8_t)mmc_wpfn_role(r, p->pfn);
	it->kind = WI_HOLE;
	it->pfn = p->pfn;
	it->pend = end_pfn;
	vend = (vb + end_pfn * sps - 1) / ps + 1;
	it->hole_nv = vend > p->next_vframe ? vend - p->next_vframe : 0;
	if (it->hole_nv)
		p->next_vframe = vend;
	p->share_gen++;		/* no frame before the hole is shared after it */
	p->pfn = end_pfn;
	return true;
}

/* Translate the vmemmap pages [wvpn, wvpn + nv) of a window. */
static struct mmc_error *plan_frames(struct wplan *p, struct witem *it)
{
	struct mmc_error *err;
	unsigned int j;

	for (j = 0; j < it->nv; j++) {
		uint64_t vaddr = (it->wvpn + j) * p->ps, size;
		uint64_t rel = it->wvpn + j - p->vfirst;
		struct mmc_xlat x;

		it->vshare[j] = 0;
		it->vreason[j] = MMC_UR_NONE;
		it->vprot[j] = it->vleaf[j] = 0;
		if (p->huge_size && vaddr - p->huge_va < p->huge_size) {
			/* inside the 2 MiB/1 GiB mapping translated last */
			it->vstate[j] = VS_OK;
			it->vpaddr[j] = p->huge_pa + (vaddr - p->huge_va);
			it->vprot[j] = p->huge_prot;
			it->vleaf[j] = p->huge_leaf;
			goto share;
		}
		err = mmc_pgtable_xlate(p->k->pgt, vaddr, &x);
		size = x.page_size;
		if (err) {
			if (!translation_unreadable(err))
				return mmc_error_prefix(err, "translating vmemmap 0x%llx",
							(unsigned long long)vaddr);
			it->vstate[j] = VS_UNREADABLE;
			it->vreason[j] = mmc_wnodata_reason(err);
			mmc_error_destroy(err);
			continue;
		}
		if (!x.mapped) {
			it->vstate[j] = VS_UNMAPPED;
			continue;
		}
		it->vstate[j] = VS_OK;
		it->vpaddr[j] = x.paddr & ~(p->ps - 1);
		it->vprot[j] = x.prot;
		it->vleaf[j] = x.leaf;
		if (size > p->ps && !(size & (size - 1))) {
			p->huge_va = vaddr & ~(size - 1);
			p->huge_size = size;
			p->huge_pa = it->vpaddr[j] - (vaddr - p->huge_va);
			p->huge_prot = x.prot;
			p->huge_leaf = x.leaf;
		}
share:
		if (rel % p->share_period == 0)
			p->share_gen++;
		it->vshare[j] = (int64_t)(rel - share_lookup(p, it->vpaddr[j], rel));
	}
	return NULL;
}

static void plan_window(struct wplan *p, const struct mmc_srange *r, struct witem *it)
{
	uint64_t vb = p->k->geom.vmemmap_base, ps = p->ps, sps = p->sps;
	uint64_t wvpn = (vb + p->pfn * sps) / ps;
	uint64_t wend = (wvpn + WIN_VPAGES) * ps;
	uint64_t pend = (wend - vb) / sps;

	if (pend > r->end_pfn)
		pend = r->end_pfn;
	if (pend <= p->pfn) {
		it->err = mmc_error_create(MMC_ERR_INTERNAL, NULL,
					   "struct page larger than the walk window");
		return;
	}
	it->kind = WI_WINDOW;
	it->pfn = p->pfn;
	it->pend = pend;
	it->wvpn = wvpn;
	it->nv = (unsigned int)((vb + pend * sps - 1) / ps - wvpn + 1);
	it->emit_from = p->next_vframe > wvpn ?
			(unsigned int)(p->next_vframe - wvpn) : 0;
	if (it->emit_from > it->nv)
		it->emit_from = it->nv;
	if (wvpn + it->nv > p->next_vframe)
		p->next_vframe = wvpn + it->nv;
	it->err = plan_frames(p, it);
	p->pfn = pend;
}

void mmc_wplan_next(struct wplan *p, struct witem *it)
{
	const struct mmc_srange *r = &p->d->ranges[p->range];

	it->kind = WI_EMPTY;
	it->err = it->read_err = NULL;
	it->reads = it->bytes_read = it->frames_read = 0;
	it->range = p->range;
	it->range_first = !p->in_range;
	it->range_last = false;
	it->pfn = it->pend = p->pfn;
	it->nv = it->emit_from = 0;
	it->hole_nv = 0;
	if (!p->in_range) {
		/* a compound page's size: the pgmap's, or the pool's order */
		uint32_t shift = r->kind == MMC_RANGE_PGMAP ?
				 p->d->pgmaps[r->pgmap_index].info.vmemmap_shift :
				 r->kind == MMC_RANGE_HUGETLB && r->owner < p->d->nhstates ?
				 p->d->hstates[r->owner].order : 0;
		uint64_t vb = p->k->geom.vmemmap_base;

		p->in_range = true;
		p->vfirst = (vb + r->start_pfn * p->sps) / p->ps;
		p->next_vframe = p->vfirst;
		p->share_period = ((1ULL << shift) * p->sps) / p->ps;
		if (shift == 0 || p->share_period == 0)
			p->share_period = SHARE_PERIOD;
		p->pfn = r->start_pfn;
		p->share_gen++;
		it->pfn = it->pend = p->pfn;
	}
	if (p->pfn < r->end_pfn && !plan_hole(p, r, it))
		plan_window(p, r, it);
	if (it->err) {
		p->done = true;
		return;
	}
	if (p->pfn >= r->end_pfn) {
		it->range_last = true;
		p->in_range = false;
		if (++p->range >= p->d->nranges)
			p->done = true;
	}
}

struct mmc_error *mmc_wplan_init(struct wplan *p, struct mmc_kernel *k,
				 const struct mmc_discovery *d)
{
	memset(p, 0, sizeof(*p));
	p->k = k;
	p->d = d;
	p->ps = k->geom.page_size;
	p->sps = k->geom.struct_page_size;
	p->done = d->nranges == 0;
	p->share = calloc(SHARE_SLOTS, sizeof(*p->share));
	return p->share ? NULL : mmc_error_nomem();
}

void mmc_wplan_fini(struct wplan *p)
{
	free(p->share);
	p->share = NULL;
}

struct mmc_error *mmc_wread_frames(struct mmc_mem *mem, void *reader,
				   uint32_t ps, struct witem *it,
				   unsigned int j0, unsigned int n)
{
	uint64_t len = (uint64_t)n * ps, off = 0;
	uint64_t paddr = it->vpaddr[j0];
	uint8_t *dst = it->buf + (size_t)j0 * ps;

	while (off < len) {
		size_t got = 0;
		struct mmc_error *err;
		uint64_t bad;

		err = mem->ops->read(reader, MMC_PHYSADDR, paddr + off,
				     dst + off, len - off, &got);
		it->reads++;
		it->bytes_read += got;
		if (!err)
			break;
		if (err->code != MMC_ERR_NODATA)
			return err;
		bad = (off + got) / ps;
		it->vstate[j0 + bad] = VS_UNREADABLE;
		it->vreason[j0 + bad] = mmc_wnodata_reason(err);
		mmc_error_destroy(err);
		off = (bad + 1) * ps;
	}
	it->frames_read += n;
	return NULL;
}

void mmc_wread(struct mmc_mem *mem, void *reader, uint32_t ps, struct witem *it)
{
	unsigned int j, run;

	if (it->kind != WI_WINDOW || it->err)
		return;
	for (j = 0; j < it->nv; j += run) {
		run = 1;
		if (it->vstate[j] != VS_OK || it->vshare[j] > 0)
			continue;
		while (j + run < it->nv && it->vstate[j + run] == VS_OK &&
		       it->vshare[j + run] == 0 &&
		       it->vpaddr[j + run] == it->vpaddr[j] + (uint64_t)run * ps)
			run++;
		it->read_err = mmc_wread_frames(mem, reader, ps, it, j, run);
		if (it->read_err)
			return;
	}
}
