/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The snapshot pairs of the claims tests (test_claims, test_claims_io):
 * pair_image.h's two ranges with their two pgmaps and vmemmap frames,
 * built on a layout with another vmemmap base for b, which a struct mut
 * (what b's kernel did differently) changes; diff_with() parses a claims
 * text and diffs a pair with it, render() reports a result.  layout612,
 * the layout most cases build on, is main()'s to fill and release.
 */
#ifndef MMC_TEST_CLAIMS_PAIR_H
#define MMC_TEST_CLAIMS_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "claims.h"
#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "pair_image.h"
#include "report.h"
#include "snapshot_pair.h"

static struct mmc_layout layout612;

struct mut {
	void (*page)(uint64_t pfn, struct mmc_nrec *r);
	void (*vframe)(unsigned int range, uint64_t i, struct mmc_vframe *vf);
	void (*pgmap)(size_t i, struct mmc_spgmap *pg);
	bool drop_range2;
	bool unreadable;	/* one page of R2 unreadable in b */
};

/* One image of the pair on layout l, its vmemmap at vbase, m applied
 * when not NULL (a has none). */
static inline struct mmc_snapshot *build(const struct mmc_layout *l, uint64_t vbase,
					 const struct mut *m)
{
	struct mmc_snapshot *s;
	struct mmc_geom g;
	size_t nr = m && m->drop_range2 ? 1 : 2;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(l, &g, "t", "test", &s));
	for (size_t i = 0; i < 2; i++) {
		struct mmc_spgmap pg;

		memset(&pg, 0, sizeof(pg));
		pg.kaddr = vbase ^ (0x123000 + i);
		pg.type = i ? 3 : 4;
		snprintf(pg.type_name, sizeof(pg.type_name), "%s",
			 i ? "MEMORY_DEVICE_FS_DAX" : "MEMORY_DEVICE_GENERIC");
		pg.vmemmap_shift = i ? 0 : 9;
		pg.nr_range = 1;
		if (m && m->pgmap)
			m->pgmap(i, &pg);
		die(mmc_snapshot_add_pgmap(s, &pg));
	}
	for (size_t i = 0; i < nr; i++) {
		uint64_t start = i ? R2_START : R1_START, n = i ? R2_PAGES : R1_PAGES;
		struct mmc_srange r;

		memset(&r, 0, sizeof(r));
		r.start_pfn = start;
		r.end_pfn = start + n;
		r.pgmap_index = (uint32_t)i;
		die(mmc_snapshot_begin_range(s, &r));
		for (uint64_t p = start; p < start + n; p++) {
			struct mmc_nrec rec;

			pair_image_rec(vbase, p, false, &rec);
			if (m && m->page)
				m->page(p, &rec);
			if (m && m->unreadable && p == R2_START + 300)
				rec.state = MMC_PS_UNREADABLE;
			die(mmc_snapshot_append(s, &rec));
		}
		for (uint64_t k = 0; k < n * 64 / 4096; k++) {
			/* a version-5 snapshot: the PTE's writable bit recorded, set */
			struct mmc_vframe vf = { .kind = i ? MMC_VF_DEVICE : MMC_VF_RAM,
						 .prot = MMC_VPROT_WRITABLE,
						 .prot_known = MMC_VPROT_WRITABLE,
						 .leaf = MMC_VLEAF_PTE };

			if (!i)
				vf.share_back = k % 8 >= 2 ? (int64_t)(k % 8 - 1) : 0;
			else
				vf.dev_off = (int64_t)k;
			if (m && m->vframe)
				m->vframe((unsigned int)i, k, &vf);
			die(mmc_snapshot_append_vframe(s, &vf));
		}
		die(mmc_snapshot_end_range(s));
	}
	return s;
}

/* every tail page[3..511] of R1 keeps refcount 1 (the mutation most cases claim) */
static inline void m_tail_ref(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R1_START && pfn < R1_START + R1_PAGES && (pfn - R1_START) % 512 >= 3)
		r->slot[6] = raw(0x1ffffffffULL);
}

/*
 * a on la against b on lb with m, the claims text given as t.claims.  The
 * parse's or the diff's error goes to *errp when errp is not NULL (the
 * result is then NULL), else bails out of the run.
 */
static inline struct mmc_diff_result *diff_with(const struct mmc_layout *la,
						const struct mmc_layout *lb, const struct mut *m,
						const char *text, bool per_page, bool strict,
						struct mmc_error **errp)
{
	struct mmc_snapshot *a = build(la, VBASE_A, NULL);
	struct mmc_snapshot *b = build(lb, VBASE_B, m);
	struct mmc_diff_result *res = NULL;
	struct mmc_diff_opts o = { .max_pages = 3, .max_groups = 1000, .per_page = per_page,
				   .strict = strict };
	struct mmc_error *err = pair_claims_diff(a, b, "t.claims", text, o, &res);

	if (errp)
		*errp = err;
	else
		die(err);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
	return res;
}

/* res reported in fmt; the two snapshots the report names are built anew,
 * without a mutation (what differs is res's to say). */
static inline char *render(const struct mmc_diff_result *res, enum mmc_format fmt)
{
	struct mmc_snapshot *a = build(&layout612, VBASE_A, NULL);
	struct mmc_snapshot *b = build(&layout612, VBASE_B, NULL);
	char *buf = pair_render(a, b, res, fmt);

	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
	return buf;
}

#endif
