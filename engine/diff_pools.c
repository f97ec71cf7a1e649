// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, HugeTLB pools and memory blocks: what each image's hstates and the folios on their
 * lists say, as sentences like the pgmaps' ("hstate#0 nr_huge_pages: 536
 * vs 532", "folio at pfn 0xc1000 (hstate#0): only in a").  A pool whose
 * folio count differs is a difference by itself, even where the struct
 * pages of the folios both images have are alike.  hstates pair by index
 * (hugetlb_add_hstate() order, the same for one kernel config and command
 * line), folios by head pfn.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "diff_int.h"

/* Folio lines shown one by one; the rest are counted. */
#define MAX_FOLIO_LINES 20

static const char *state_name(enum mmc_read_state st)
{
	return st == MMC_READ_DONE ? "read" : "partly read";
}

static void diff_hstate(struct dctx *c, size_t i, const struct mmc_shstate *x,
			const struct mmc_shstate *y)
{
	static const struct { const char *name; size_t off; } f[] = {
		{ "nr_huge_pages", offsetof(struct mmc_shstate, nr) },
		{ "free_huge_pages", offsetof(struct mmc_shstate, free) },
		{ "resv_huge_pages", offsetof(struct mmc_shstate, resv) },
		{ "surplus_huge_pages", offsetof(struct mmc_shstate, surplus) },
	};

	if (x->order != y->order)
		diff_pgdiff(c, "hstate#%zu order: %u vs %u", i, x->order, y->order);
	if ((x->flags ^ y->flags) & MMC_HSTATE_HVO)
		diff_pgdiff(c, "hstate#%zu vmemmap optimisation: %s vs %s", i,
			    x->flags & MMC_HSTATE_HVO ? "on" : "off",
			    y->flags & MMC_HSTATE_HVO ? "on" : "off");
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		uint64_t vx = *(const uint64_t *)((const char *)x + f[k].off);
		uint64_t vy = *(const uint64_t *)((const char *)y + f[k].off);

		if (vx != vy)
			diff_pgdiff(c, "hstate#%zu %s: %" PRIu64 " vs %" PRIu64, i, f[k].name, vx, vy);
	}
}

/* One side's folios, one at a time in pfn order. */
struct fcur {
	const struct mmc_shstate *hs;
	size_t nh;
	const struct mmc_sfolios *f;
	size_t nf, span;
	uint64_t i;
};

static bool fcur_at(const struct fcur *p, uint64_t *pfn)
{
	const struct mmc_sfolios *s;

	if (p->span >= p->nf)
		return false;
	s = &p->f[p->span];
	*pfn = s->start_pfn + (s->hstate < p->nh ? p->i << p->hs[s->hstate].order : p->i);
	return true;
}

static void fcur_next(struct fcur *p)
{
	if (++p->i >= p->f[p->span].nfolios) {
		p->span++;
		p->i = 0;
	}
}

static const char *list_name(uint8_t l)
{
	return l == MMC_FOLIO_FREE ? "free" : l == MMC_FOLIO_ACTIVE ? "active" : "?";
}

static const char *vm_name(uint8_t v)
{
	return v == MMC_FVM_OPTIMISED ? "optimised" : v == MMC_FVM_PLAIN ? "plain" : "unknown";
}

static void diff_folios(struct dctx *c, struct fcur *a, struct fcur *b)
{
	uint64_t pa = 0, pb = 0, lines = 0, more = 0;
	bool ha, hb;

	while ((ha = fcur_at(a, &pa)) | (hb = fcur_at(b, &pb))) {
		const struct mmc_sfolios *sa = ha ? &a->f[a->span] : NULL;
		const struct mmc_sfolios *sb = hb ? &b->f[b->span] : NULL;
		char what[160] = "";

		if (ha && (!hb || pa < pb)) {
			snprintf(what, sizeof(what), "folio at pfn 0x%" PRIx64 " (hstate#%u, %s): only in a",
				 pa, sa->hstate, list_name(sa->list));
			fcur_next(a);
		} else if (hb && (!ha || pb < pa)) {
			snprintf(what, sizeof(what), "folio at pfn 0x%" PRIx64 " (hstate#%u, %s): only in b",
				 pb, sb->hstate, list_name(sb->list));
			fcur_next(b);
		} else {
			if (sa->hstate != sb->hstate)
				snprintf(what, sizeof(what), "folio at pfn 0x%" PRIx64 " hstate: #%u vs #%u",
					 pa, sa->hstate, sb->hstate);
			else if (sa->list != sb->list)
				snprintf(what, sizeof(what), "folio at pfn 0x%" PRIx64 " list: %s vs %s",
					 pa, list_name(sa->list), list_name(sb->list));
			else if (sa->vmemmap != sb->vmemmap)
				snprintf(what, sizeof(what), "folio at pfn 0x%" PRIx64 " vmemmap: %s vs %s",
					 pa, vm_name(sa->vmemmap), vm_name(sb->vmemmap));
			else if (sa->node != sb->node)
				snprintf(what, sizeof(what), "folio at pfn 0x%" PRIx64 " node: %u vs %u",
					 pa, sa->node, sb->node);
			fcur_next(a);
			fcur_next(b);
		}
		if (!what[0])
			continue;
		if (lines < MAX_FOLIO_LINES) {
			diff_pgdiff(c, "%s", what);
			lines++;
		} else {
			more++;
		}
	}
	if (more)
		diff_pgdiff(c, "and %" PRIu64 " more HugeTLB folios differ", more);
}

void diff_hugetlb(struct dctx *c, const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	struct fcur fa = { 0 }, fb = { 0 };
	const char *wa, *wb;
	enum mmc_read_state sa = mmc_snapshot_hugetlb(a, &fa.hs, &fa.nh, &fa.f, &fa.nf, &wa);
	enum mmc_read_state sb = mmc_snapshot_hugetlb(b, &fb.hs, &fb.nh, &fb.f, &fb.nf, &wb);
	size_t n = fa.nh > fb.nh ? fa.nh : fb.nh;

	/* not read (an older snapshot, a layout without them): nothing known
	 * to compare, which is no difference */
	if (sa == MMC_READ_NOT || sb == MMC_READ_NOT)
		return;
	if (sa != sb)
		diff_pgdiff(c, "HugeTLB pools: %s vs %s", state_name(sa), state_name(sb));
	for (size_t i = 0; i < n; i++) {
		if (i >= fa.nh || i >= fb.nh) {
			const struct mmc_shstate *h = i < fa.nh ? &fa.hs[i] : &fb.hs[i];

			diff_pgdiff(c, "hstate#%zu (order %u, %" PRIu64 " folios): only in %s", i,
				    h->order, h->nr, i < fa.nh ? "a" : "b");
			continue;
		}
		diff_hstate(c, i, &fa.hs[i], &fb.hs[i]);
	}
	diff_folios(c, &fa, &fb);
}

/* Memory blocks pair by id; a block on one side only, or one whose state,
 * node or self-hosted memmap differs, is a difference. */
void diff_hotplug(struct dctx *c, const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	const struct mmc_smemblock *ba, *bb;
	size_t na, nb, i = 0, j = 0, lines = 0, more = 0;
	enum mmc_read_state sa = mmc_snapshot_hotplug(a, &ba, &na, NULL);
	enum mmc_read_state sb = mmc_snapshot_hotplug(b, &bb, &nb, NULL);

	if (sa == MMC_READ_NOT || sb == MMC_READ_NOT)
		return;
	if (sa != sb)
		diff_pgdiff(c, "memory blocks: %s vs %s", state_name(sa), state_name(sb));
	while (i < na || j < nb) {
		char what[200] = "";

		if (j >= nb || (i < na && ba[i].start_pfn < bb[j].start_pfn)) {
			snprintf(what, sizeof(what), "memory block %" PRIu64 " (pfn 0x%" PRIx64 "): only in a",
				 ba[i].id, ba[i].start_pfn);
			i++;
		} else if (i >= na || bb[j].start_pfn < ba[i].start_pfn) {
			snprintf(what, sizeof(what), "memory block %" PRIu64 " (pfn 0x%" PRIx64 "): only in b",
				 bb[j].id, bb[j].start_pfn);
			j++;
		} else {
			const struct mmc_smemblock *x = &ba[i++], *y = &bb[j++];

			if (x->end_pfn != y->end_pfn || x->id != y->id)
				snprintf(what, sizeof(what), "memory block %" PRIu64 " end pfn: 0x%" PRIx64 " vs 0x%" PRIx64,
					 x->id, x->end_pfn, y->end_pfn);
			else if (x->state != y->state)
				snprintf(what, sizeof(what), "memory block %" PRIu64 " state: %u vs %u",
					 x->id, x->state, y->state);
			else if (x->nid != y->nid)
				snprintf(what, sizeof(what), "memory block %" PRIu64 " nid: %u vs %u",
					 x->id, x->nid, y->nid);
			else if (x->flags != y->flags || x->altmap_pfns != y->altmap_pfns)
				snprintf(what, sizeof(what), "memory block %" PRIu64 " self-hosted memmap pfns: %" PRIu64 " vs %" PRIu64,
					 x->id, x->altmap_pfns, y->altmap_pfns);
		}
		if (!what[0])
			continue;
		if (lines++ < MAX_FOLIO_LINES)
			diff_pgdiff(c, "%s", what);
		else
			more++;
	}
	if (more)
		diff_pgdiff(c, "and %zu more memory blocks differ", more);
}
