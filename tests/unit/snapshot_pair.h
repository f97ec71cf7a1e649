/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Builders of the hand-made snapshot pairs the claims tests diff
 * (test_claims_kind, test_claims_pools, and through claims_pair.h
 * test_claims, test_claims_io): the struct page of a compound folio or
 * an order-0 page, a range of any kind with its RAM vmemmap frames, the
 * device-dax pgmap, a pair diffed with a claims text, a result reported.
 */
#ifndef MMC_TEST_SNAPSHOT_PAIR_H
#define MMC_TEST_SNAPSHOT_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "claims.h"
#include "diff.h"
#include "hand_snapshot.h"
#include "report.h"
#include "snapshot.h"

/* The two images' vmemmap bases, as two boots of one kernel may have
 * them: x86-64's __VMEMMAP_BASE_L4 and another. */
#define VBASE_A 0xffffea0000000000ULL
#define VBASE_B 0xffffd40000000000ULL

#define PAIR_ZONE_BITS (4ULL << 61)
#define PAIR_PG_HEAD (1ULL << 6)
#define PAIR_POISON_DELTA 0xdead000000000000ULL

/* A range of the pair: its pfns, enum mmc_range_kind, the hstate or
 * memory block it is of (a pgmap range: pgmap 0), its folios' order. */
struct pair_range {
	uint64_t start, pages;
	unsigned int kind, owner, order;
};

/*
 * The record at pfn of a range starting at start with folios of order
 * (0: order-0 pages, the zone bits and one reference).  ref: the folio's
 * page[3] and on, or every order-0 page, hold one reference more.
 */
static inline void pair_rec(uint64_t vbase, uint64_t pfn, uint64_t start, unsigned int order,
			    bool ref, struct mmc_nrec *r)
{
	uint64_t k = (pfn - start) & ((1ULL << order) - 1), head = pfn - k;

	memset(r, 0, sizeof(*r));
	r->nslots = 8;
	for (unsigned int i = 0; i < 8; i++)
		r->slot[i] = nv(MMC_V_NULL, 0, 0, 0);
	r->slot[0] = raw(PAIR_ZONE_BITS | (order ? (k ? (k == 1 ? order : 0) : PAIR_PG_HEAD) : 0));
	/* _mapcount -1 in the low half, _refcount in the high half */
	r->slot[6] = raw(((!k ? 1ULL : 0) + (ref && (k >= 3 || !order))) << 32 | 0xffffffffULL);
	if (!k)
		return;
	r->slot[1] = nv(MMC_V_PAGE, 1, -(int64_t)k, vbase + head * 64 + 1);
	if (k == 1) {
		r->slot[2] = raw(0xffffffffffffffffULL);
		r->slot[4] = raw(1ULL << order);
	} else if (k == 2) {
		r->slot[2] = nv(MMC_V_SELF, 16, 0, vbase + pfn * 64 + 16);
		r->slot[3] = nv(MMC_V_SELF, 16, 0, vbase + pfn * 64 + 16);
	} else {
		r->slot[3] = nv(MMC_V_POISON, 0, 0x400, PAIR_POISON_DELTA + 0x400);
	}
}

/* The range's vmemmap pages, each its own writable RAM frame. */
static inline void pair_add_vframes(struct mmc_snapshot *s, const struct pair_range *g)
{
	for (uint64_t k = 0; k < g->pages * 64 / 4096; k++) {
		struct mmc_vframe vf = { .kind = MMC_VF_RAM, .prot = MMC_VPROT_WRITABLE,
					 .prot_known = MMC_VPROT_WRITABLE, .leaf = MMC_VLEAF_PTE,
					 .paddr = (g->start * 64 + k * 4096) | 1ULL << 40 };

		die(mmc_snapshot_append_vframe(s, &vf));
	}
}

/* Range g into s: pair_rec()'s records with folios of order and ref, its
 * first altmap_pages pfns the altmap (a block holding its own memmap),
 * its vmemmap in RAM frames, writable PTEs. */
static inline void pair_add_range(struct mmc_snapshot *s, uint64_t vbase,
				  const struct pair_range *g, unsigned int order, bool ref,
				  uint64_t altmap_pages)
{
	struct mmc_srange r;
	struct mmc_nrec x;

	memset(&r, 0, sizeof(r));
	r.start_pfn = g->start;
	r.end_pfn = g->start + g->pages;
	r.kind = (uint8_t)g->kind;
	r.owner = g->owner;
	r.pgmap_index = g->kind == MMC_RANGE_PGMAP ? 0 : MMC_NO_PGMAP;
	if (altmap_pages) {
		r.altmap_start = r.start_pfn;
		r.altmap_end = r.start_pfn + altmap_pages;
	}
	die(mmc_snapshot_begin_range(s, &r));
	for (uint64_t p = r.start_pfn; p < r.end_pfn; p++) {
		pair_rec(vbase, p, r.start_pfn, order, ref, &x);
		die(mmc_snapshot_append(s, &x));
	}
	pair_add_vframes(s, g);
	die(mmc_snapshot_end_range(s));
}

/* The device-dax pgmap of an image whose vmemmap is at vbase: 2 MiB
 * compound pages (vmemmap_shift 9), one range. */
static inline void pair_devdax_pgmap(uint64_t vbase, struct mmc_spgmap *pg)
{
	memset(pg, 0, sizeof(*pg));
	pg->kaddr = vbase ^ 0x123000;
	pg->type = 4;
	snprintf(pg->type_name, sizeof(pg->type_name), "MEMORY_DEVICE_GENERIC");
	pg->vmemmap_shift = 9;
	pg->nr_range = 1;
}

/* a against b with o and the claims text, parsed as file name: the
 * parse's or the diff's error, else NULL and the result in *res. */
static inline struct mmc_error *pair_claims_diff(const struct mmc_snapshot *a,
						 const struct mmc_snapshot *b, const char *name,
						 const char *text, struct mmc_diff_opts o,
						 struct mmc_diff_result **res)
{
	struct mmc_claims *cl = NULL;
	struct mmc_error *err = mmc_claims_parse(name, text, strlen(text), &cl);

	if (!err) {
		o.claims = cl;
		err = mmc_diff(a, b, &o, res);
	}
	mmc_claims_destroy(cl);
	return err;
}

/* res of a against b reported in fmt. */
static inline char *pair_render(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
				const struct mmc_diff_result *res, enum mmc_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	mmc_report_diff(f, a, b, res, fmt);
	fclose(f);
	return buf;
}

#endif
