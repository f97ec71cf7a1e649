// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, HugeTLB groups and the claims' counts per range (engine/diff.c,
 * engine/diff_claims*.c).  HugeTLB ranges of one hstate that overlap, in
 * either image, are compared as one range of the result, folio by folio:
 * a group holds as many folios as the two images' runs make, more than
 * the images have ranges, and up to its ranges less one windows (pfns
 * both images cover).  The result's ranges, and each claim's pages per
 * range of the result, are as many as the diff makes (one per group
 * here), the table's stride (mmc_diff_claims.nranges) the result's range
 * count.
 *
 * [proof]: every pair is built here from a bit mask of 2 MiB folio slots
 * per image (order 9, at SLOT0 + i * 512; a run of set bits is a range);
 * b holds one reference more on page[3] and on of every folio
 * (snapshot_pair.h's pair_rec()), which the claim names.  The expected
 * groups, compared, claimed and placed pages come from the masks: a slot
 * in both images is compared (509 of its 512 pages claimed), a slot in one
 * is placed when the pools are alike (every folio is free, on node 0: as
 * many folios in both), else differs.  Each case runs chunk by chunk and
 * page by page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "snapshot.h"
#include "snapshot_pair.h"
#include "tap.h"

#define ORDER 9
#define FPAGES (1ULL << ORDER)
#define SLOT0 0x200000ULL
#define NSLOTS 64
/* pages of a folio whose _refcount b changes: page[3] and on */
#define REF_PAGES (FPAGES - 3)

static struct mmc_layout layout612;

static const char claim_text[] = "memmapcheck-claims 1\nclaim refs\n reason r\n field _refcount\n";

static unsigned int popcount64(uint64_t x)
{
	unsigned int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

/* An image holding a free folio in every slot of mask, its runs the
 * hstate's ranges; ref: page[3] and on hold one reference more. */
static struct mmc_snapshot *build(uint64_t vbase, uint64_t mask, bool ref)
{
	struct mmc_shstate hs = { .order = ORDER };
	struct mmc_sfolios fs[NSLOTS];
	struct mmc_snapshot *s;
	struct mmc_geom g;
	size_t nf = 0;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(&layout612, &g, "t", "test", &s));
	snprintf(hs.name, sizeof(hs.name), "hugepages-2048kB");
	for (unsigned int i = 0; i < NSLOTS; i++) {
		if (!(mask >> i & 1))
			continue;
		hs.nr++;
		hs.free++;
		fs[nf++] = (struct mmc_sfolios){ .hstate = 0, .node = 0,
						 .start_pfn = SLOT0 + i * FPAGES, .nfolios = 1,
						 .list = MMC_FOLIO_FREE };
	}
	die(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", &hs, 1, fs, nf));
	for (unsigned int i = 0; i < NSLOTS;) {
		unsigned int e = i;

		while (e < NSLOTS && mask >> e & 1)
			e++;
		if (e > i) {
			const struct pair_range r = { SLOT0 + i * FPAGES, (e - i) * FPAGES,
						      MMC_RANGE_HUGETLB, 0, ORDER };

			pair_add_range(s, vbase, &r, ORDER, ref, 0);
		}
		i = e + 1;
	}
	return s;
}

/* The number of runs of set bits in mask: the image's ranges. */
static unsigned int runs(uint64_t mask)
{
	return popcount64(mask & ~(mask << 1));
}

struct gcase {
	uint64_t a, b;
	/* the groups: bit i set where a group begins at slot i (its first
	 * range's first folio), the group running to the next one's start
	 * or the last folio of either image */
	uint64_t group_starts;
	const char *why;
};

/* Group k of the case: its slots [lo, hi). */
static void group_span(const struct gcase *k, unsigned int g, unsigned int *lo, unsigned int *hi)
{
	uint64_t both = k->a | k->b;
	unsigned int n = 0, i;

	for (i = 0; i < NSLOTS; i++)
		if (k->group_starts >> i & 1 && n++ == g)
			break;
	*lo = i;
	for (*hi = i + 1; *hi < NSLOTS && !(k->group_starts >> *hi & 1); (*hi)++)
		;
	while (*hi > *lo && !(both >> (*hi - 1) & 1))
		(*hi)--;
}

static void run_case(const struct gcase *k, bool per_page)
{
	struct mmc_diff_opts o = { .max_pages = 3, .max_groups = 100, .per_page = per_page };
	unsigned int ng = popcount64(k->group_starts);
	struct mmc_snapshot *a = build(VBASE_A, k->a, false), *b = build(VBASE_B, k->b, true);
	struct mmc_diff_result *res = NULL;
	const struct mmc_diff_claims *cl;
	uint64_t total = 0, beyond = 0;
	bool alike = popcount64(k->a) == popcount64(k->b), ok;

	die(pair_claims_diff(a, b, "g.claims", claim_text, o, &res));
	cl = res->claims;
	ok = res->nranges == ng && cl && cl->nclaims == 1 && cl->nranges == ng &&
	     cl->claim[0].nranges == ng;
	for (unsigned int g = 0; ok && g < ng; g++) {
		const struct mmc_diff_range *dr = &res->ranges[g];
		unsigned int lo, hi;
		uint64_t span, both, only_a, only_b, only;

		group_span(k, g, &lo, &hi);
		span = (hi - lo < 64 ? (1ULL << (hi - lo)) - 1 : ~0ULL) << lo;
		both = k->a & k->b & span;
		only_a = k->a & ~k->b & span;
		only_b = k->b & ~k->a & span;
		only = (popcount64(only_a) + popcount64(only_b)) * FPAGES;
		ok = dr->start_pfn == SLOT0 + lo * FPAGES && dr->end_pfn == SLOT0 + hi * FPAGES &&
		     dr->compared == popcount64(both) * FPAGES &&
		     dr->claimed == popcount64(both) * REF_PAGES &&
		     dr->differing == (alike ? 0 : only) &&
		     dr->placed_a == (alike ? popcount64(only_a) * FPAGES : 0) &&
		     dr->placed_b == (alike ? popcount64(only_b) * FPAGES : 0) &&
		     dr->verdict == (alike || !only ? MMC_AS_CLAIMED : MMC_BEYOND_CLAIMS) &&
		     cl->range_pages[g] == popcount64(both) * REF_PAGES && cl->range_vframes[g] == 0;
		if (!ok)
			fprintf(stderr, "# group %u [%#llx, %#llx): range [%#llx, %#llx) compared %llu claimed %llu placed %llu+%llu claim's %llu %s\n",
				g, (unsigned long long)(SLOT0 + lo * FPAGES),
				(unsigned long long)(SLOT0 + hi * FPAGES),
				(unsigned long long)dr->start_pfn, (unsigned long long)dr->end_pfn,
				(unsigned long long)dr->compared, (unsigned long long)dr->claimed,
				(unsigned long long)dr->placed_a, (unsigned long long)dr->placed_b,
				(unsigned long long)cl->range_pages[g], mmc_verdict_name(dr->verdict));
		total += popcount64(both) * REF_PAGES;
		beyond += alike ? 0 : only;
	}
	ok = ok && cl->claim[0].pages == total && res->pages_claimed == total &&
	     res->pages_differing == beyond &&
	     res->verdict == (alike ? MMC_AS_CLAIMED : MMC_BEYOND_CLAIMS);
	tap_ok(ok, "[proof] %s: %u ranges of a, %u of b, %u folios in all, %u result ranges (%s)",
	       k->why, runs(k->a), runs(k->b), popcount64(k->a | k->b), ng,
	       per_page ? "page by page" : "chunk by chunk");
	if (!ok)
		fprintf(stderr, "# %zu result ranges, claims' table %zu ranges, the claim's %zu, verdict %s\n",
			res->nranges, cl ? cl->nranges : 0, cl ? cl->claim[0].nranges : 0,
			mmc_verdict_name(res->verdict));
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

/* Every other slot of [0, 2n) set: n ranges of one folio each. */
static uint64_t every_other(unsigned int n)
{
	uint64_t m = 0;

	for (unsigned int i = 0; i < n; i++)
		m |= 1ULL << (2 * i);
	return m;
}

static void test_groups(void)
{
	const struct gcase cases[] = {
		{ 0x3f, 0x7e, 0x1,
		  "a's one range at slots 0-5, b's at 1-6: one group of 7 folios, 5 compared, 2 placed" },
		{ 0xdb, 0xee, 0x21,
		  "a at 0-1, 3-4, 6-7, b at 1-3, 5-7: groups 0-4 (folios 1, 3 compared) and 5-7 (6, 7)" },
		{ every_other(24), every_other(24), every_other(24),
		  "24 one-folio ranges alike in both: 24 result ranges, past the first room of 16" },
		{ every_other(24), every_other(24) << 1 | every_other(24), 0x1,
		  "a's 24 one-folio ranges, b's one of 48 folios over them: one group, 24 windows, 24 folios of b differing (b's pool has 48)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_case(&cases[i], false);
		run_case(&cases[i], true);
	}
}

int main(void)
{
	if (mmc_test_layout_612(&layout612))
		return 1;
	test_groups();
	mmc_test_layout_release(&layout612);
	return tap_done();
}
