// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A snapshot's structures beyond the pgmaps: the HugeTLB pools (hstates
 * and their folios) and the hot-plugged memory blocks that ranges of kind
 * MMC_RANGE_HUGETLB and MMC_RANGE_HOTPLUG name as their owners.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_int.h"

/* Orders beyond this are no hstate: PUD_ORDER is 18 on x86_64. */
#define HSTATE_MAX_ORDER 40

static void copy_why(char *dst, size_t size, const char *why)
{
	snprintf(dst, size, "%s", why ? why : "");
}

void snap_pools_init(struct mmc_snapshot *snap)
{
	copy_why(snap->huge_why, sizeof(snap->huge_why), "not looked for");
	copy_why(snap->plug_why, sizeof(snap->plug_why), "not looked for");
}

void snap_pools_free(struct mmc_snapshot *snap)
{
	free(snap->hstates);
	free(snap->folios);
	free(snap->blocks);
	snap->hstates = NULL;
	snap->folios = NULL;
	snap->blocks = NULL;
	snap->nhstates = snap->nfolios = snap->nblocks = 0;
}

/* why is "" exactly when everything was read; nothing was found when
 * nothing was read. */
static struct mmc_error *check_state(const char *what, enum mmc_read_state state,
				     const char *why, size_t n)
{
	if (state > MMC_READ_PARTIAL || (state == MMC_READ_NOT && n) ||
	    (state == MMC_READ_DONE) != !(why && *why))
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: %s state %d with %zu entries and %s reason",
					what, (int)state, n, why && *why ? "a" : "no");
	return NULL;
}

static bool hstate_valid(const struct mmc_shstate *h)
{
	return h->order >= 1 && h->order <= HSTATE_MAX_ORDER &&
	       !(h->flags & ~(uint32_t)MMC_HSTATE_HVO) &&
	       memchr(h->name, 0, sizeof(h->name)) != NULL;
}

/* Folio span i: its hstate exists, it is not empty, its last pfn does not
 * wrap, it starts after the previous one ends. */
static bool folios_valid(const struct mmc_shstate *hs, size_t nh,
			 const struct mmc_sfolios *f, size_t i)
{
	uint32_t order;

	if (f[i].hstate >= nh || !f[i].nfolios || f[i].list >= MMC_FOLIO_LISTS ||
	    f[i].vmemmap >= MMC_FVM_KINDS)
		return false;
	order = hs[f[i].hstate].order;
	if (f[i].nfolios > (UINT64_MAX >> order) ||
	    f[i].start_pfn > UINT64_MAX - (f[i].nfolios << order))
		return false;
	if (i) {
		const struct mmc_sfolios *p = &f[i - 1];

		if (f[i].start_pfn < p->start_pfn + (p->nfolios << hs[p->hstate].order))
			return false;
	}
	return true;
}

struct mmc_error *mmc_snapshot_set_hugetlb(struct mmc_snapshot *snap,
					   enum mmc_read_state state, const char *why,
					   const struct mmc_shstate *hstates, size_t nh,
					   const struct mmc_sfolios *folios, size_t nf)
{
	struct mmc_shstate *hc = NULL;
	struct mmc_sfolios *fc = NULL;
	struct mmc_error *err;

	err = check_state("HugeTLB", state, why, nh + nf);
	if (err)
		return err;
	if (nh > MMC_SNAPSHOT_MAX_HSTATES || nf > MMC_SNAPSHOT_MAX_FOLIO_SPANS)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: %zu hstates and %zu folio spans, at most %d and %u",
					nh, nf, MMC_SNAPSHOT_MAX_HSTATES,
					MMC_SNAPSHOT_MAX_FOLIO_SPANS);
	if (snap->nranges)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: HugeTLB pools set after the first range");
	for (size_t i = 0; i < nh; i++)
		if (!hstate_valid(&hstates[i]))
			return mmc_error_create(MMC_ERR_INPUT, NULL,
						"snapshot: hstate %zu: order %u or flags 0x%x out of range",
						i, hstates[i].order, hstates[i].flags);
	for (size_t i = 0; i < nf; i++)
		if (!folios_valid(hstates, nh, folios, i))
			return mmc_error_create(MMC_ERR_INPUT, NULL,
						"snapshot: folio span %zu (pfn 0x%llx, %llu folios of hstate %u) is empty, out of range, overlapping or unsorted",
						i, (unsigned long long)folios[i].start_pfn,
						(unsigned long long)folios[i].nfolios,
						folios[i].hstate);
	if ((nh && !(hc = malloc(nh * sizeof(*hc)))) ||
	    (nf && !(fc = malloc(nf * sizeof(*fc))))) {
		free(hc);
		return mmc_error_nomem();
	}
	if (nh)
		memcpy(hc, hstates, nh * sizeof(*hc));
	if (nf)
		memcpy(fc, folios, nf * sizeof(*fc));
	free(snap->hstates);
	free(snap->folios);
	snap->hstates = hc;
	snap->nhstates = nh;
	snap->folios = fc;
	snap->nfolios = nf;
	snap->huge_state = state;
	copy_why(snap->huge_why, sizeof(snap->huge_why), why);
	return NULL;
}

enum mmc_read_state mmc_snapshot_hugetlb(const struct mmc_snapshot *snap,
					 const struct mmc_shstate **hstates, size_t *nh,
					 const struct mmc_sfolios **folios, size_t *nf,
					 const char **why)
{
	if (hstates)
		*hstates = snap->hstates;
	if (nh)
		*nh = snap->nhstates;
	if (folios)
		*folios = snap->folios;
	if (nf)
		*nf = snap->nfolios;
	if (why)
		*why = snap->huge_why;
	return snap->huge_state;
}

static bool block_valid(const struct mmc_smemblock *b, size_t i)
{
	if (b[i].start_pfn >= b[i].end_pfn ||
	    (b[i].flags & ~(uint32_t)MMC_MEMBLOCK_SELF_HOSTED) ||
	    (!(b[i].flags & MMC_MEMBLOCK_SELF_HOSTED) && b[i].altmap_pfns) ||
	    b[i].altmap_pfns > b[i].end_pfn - b[i].start_pfn)
		return false;
	return !i || b[i].start_pfn >= b[i - 1].end_pfn;
}

struct mmc_error *mmc_snapshot_set_hotplug(struct mmc_snapshot *snap,
					   enum mmc_read_state state, const char *why,
					   const struct mmc_smemblock *blocks, size_t n)
{
	struct mmc_smemblock *c = NULL;
	struct mmc_error *err;

	err = check_state("hot-plug", state, why, n);
	if (err)
		return err;
	if (n > MMC_SNAPSHOT_MAX_MEMBLOCKS)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: %zu memory blocks, at most %d", n,
					MMC_SNAPSHOT_MAX_MEMBLOCKS);
	if (snap->nranges)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: memory blocks set after the first range");
	for (size_t i = 0; i < n; i++)
		if (!block_valid(blocks, i))
			return mmc_error_create(MMC_ERR_INPUT, NULL,
						"snapshot: memory block %zu [0x%llx, 0x%llx) is empty, overlapping, unsorted, or its altmap (%llu pfns, flags 0x%x) does not fit",
						i, (unsigned long long)blocks[i].start_pfn,
						(unsigned long long)blocks[i].end_pfn,
						(unsigned long long)blocks[i].altmap_pfns,
						blocks[i].flags);
	if (n && !(c = malloc(n * sizeof(*c))))
		return mmc_error_nomem();
	if (n)
		memcpy(c, blocks, n * sizeof(*c));
	free(snap->blocks);
	snap->blocks = c;
	snap->nblocks = n;
	snap->plug_state = state;
	copy_why(snap->plug_why, sizeof(snap->plug_why), why);
	return NULL;
}

enum mmc_read_state mmc_snapshot_hotplug(const struct mmc_snapshot *snap,
					 const struct mmc_smemblock **blocks, size_t *n,
					 const char **why)
{
	if (blocks)
		*blocks = snap->blocks;
	if (n)
		*n = snap->nblocks;
	if (why)
		*why = snap->plug_why;
	return snap->plug_state;
}

struct mmc_error *snap_pools_check_owner(const struct mmc_snapshot *snap,
					 const struct mmc_srange *range)
{
	size_t n = range->kind == MMC_RANGE_HUGETLB ? snap->nhstates :
		   range->kind == MMC_RANGE_HOTPLUG ? snap->nblocks : 0;

	if (range->kind >= MMC_RANGE_KINDS || range->kind == MMC_RANGE_PGMAP ||
	    range->pgmap_index != MMC_NO_PGMAP || range->owner >= n)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx) of kind %u names owner %u of %zu (pgmap %u)",
					(unsigned long long)range->start_pfn,
					(unsigned long long)range->end_pfn, range->kind,
					range->owner, n, range->pgmap_index);
	return NULL;
}
