// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, HugeTLB ranges paired folio by folio (engine/diff.c, the pools'
 * diff_hugetlb_placement()): the buddy allocator puts a run-time folio
 * where it has room, so two boots of one kernel can hold 3 of 4 folios at
 * the same pfns and the fourth elsewhere (7.2-base-hvo b1/b2: 0xc3e00 vs
 * 0xc3600), and the HugeTLB ranges, runs of consecutive folios, then
 * differ.  Folios at the same pfn are compared page by page; a folio at a
 * pfn in one image only is placement, no difference, when its hstate's
 * counts (nr/free/resv/surplus, and folios per node and list) are the
 * same in both images, else a difference.
 *
 * [proof]: every pair is built here from a list of folio slots (2 MiB
 * folios, order 9, at SLOT0 + i * 512) per image; the expected compared,
 * placed and differing pages are counted from those slots (same slot in
 * both: compared; one side only: placed or differing), not taken from the
 * diff.  The vmemmap is 7.x-HVO-like: every folio's tail vmemmap pages map
 * one frame shared across folios (mmc_rule_hvo_tails()), so a range's
 * share_back reaches back to its first folio, and a window starting at a
 * range's second folio must still compare alike.  Each case runs chunk by
 * chunk and page by page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "snapshot.h"
#include "tap.h"

#define ZONE_BITS (4ULL << 61)
#define PG_HEAD (1ULL << 6)
#define ORDER 9
#define FPAGES (1ULL << ORDER)
#define SLOT0 0x200000ULL
#define NSLOTS 8
#define VPF (FPAGES * 64 / 4096)	/* vmemmap pages a folio: 8 */
#define SHARED_TAIL_PADDR 0x7000000ULL

/* One image: which slots hold a folio, and how. */
struct image {
	unsigned int slots;		/* bit i: a folio at SLOT0 + i * FPAGES */
	unsigned int active;		/* of those, on the active list (else free) */
	unsigned int node1;		/* of those, on node 1 (else node 0) */
	int private_slot;		/* that folio's head: private changed (-1: none) */
	int ro_slot;			/* that folio's vmemmap page 3 read-only (-1: none) */
};

static struct mmc_layout layout612;

static void rec(uint64_t vbase, uint64_t pfn, const struct image *im, struct mmc_nrec *r)
{
	uint64_t k = pfn & (FPAGES - 1);
	int slot = (int)((pfn - SLOT0) >> ORDER);
	int64_t head_delta = -(int64_t)k;

	memset(r, 0, sizeof(*r));
	r->nslots = 8;
	for (unsigned int i = 0; i < 8; i++)
		r->slot[i] = nv(MMC_V_NULL, 0, 0, 0);
	r->slot[0] = raw(ZONE_BITS | (k ? (k == 1 ? ORDER : 0) : PG_HEAD));
	r->slot[6] = raw((!k ? 1ULL : 0) << 32 | 0xffffffffULL);
	if (!k) {
		if (slot == im->private_slot)
			r->slot[5] = raw(0x4);
		return;
	}
	r->slot[1] = nv(MMC_V_PAGE, 1, head_delta, vbase + (uint64_t)((int64_t)pfn + head_delta) * 64 + 1);
	if (k == 1)
		r->slot[4] = raw(1ULL << ORDER);
	else if (k >= 3)
		r->slot[3] = nv(MMC_V_POISON, 0, 0x400, 0xdead000000000400ULL);
}

/* A range of the folios in slots [s, e). */
static void add_range(struct mmc_snapshot *s, uint64_t vbase, const struct image *im,
		      unsigned int first, unsigned int end)
{
	struct mmc_srange r;
	struct mmc_nrec x;
	uint64_t tail0 = UINT64_MAX;	/* the range's first vmemmap page mapping the shared tail frame */

	memset(&r, 0, sizeof(r));
	r.start_pfn = SLOT0 + first * FPAGES;
	r.end_pfn = SLOT0 + end * FPAGES;
	r.kind = MMC_RANGE_HUGETLB;
	r.pgmap_index = MMC_NO_PGMAP;
	r.owner = 0;
	die(mmc_snapshot_begin_range(s, &r));
	for (uint64_t p = r.start_pfn; p < r.end_pfn; p++) {
		rec(vbase, p, im, &x);
		die(mmc_snapshot_append(s, &x));
	}
	for (uint64_t k = 0; k < (end - first) * VPF; k++) {
		unsigned int slot = first + (unsigned int)(k / VPF);
		struct mmc_vframe vf = { .kind = MMC_VF_RAM, .prot = 0,
					 .prot_known = MMC_VPROT_WRITABLE, .leaf = MMC_VLEAF_PTE };

		if (k % VPF == 0) {
			/* the head's vmemmap page: its own frame, writable */
			vf.prot = MMC_VPROT_WRITABLE;
			vf.paddr = (1ULL << 40) + (SLOT0 + slot * FPAGES) * 64;
		} else {
			/* a tail page: the frame every optimised folio shares, read-only */
			vf.paddr = SHARED_TAIL_PADDR;
			if (tail0 == UINT64_MAX)
				tail0 = k;
			vf.share_back = (int64_t)(k - tail0);
			if ((int)slot == im->ro_slot && k % VPF == 3)
				vf.prot = MMC_VPROT_WRITABLE;
		}
		die(mmc_snapshot_append_vframe(s, &vf));
	}
	die(mmc_snapshot_end_range(s));
}

static struct mmc_snapshot *build(uint64_t vbase, const struct image *im)
{
	struct mmc_shstate hs = { .order = ORDER, .flags = MMC_HSTATE_HVO };
	struct mmc_sfolios fs[NSLOTS];
	struct mmc_snapshot *s;
	struct mmc_geom g;
	size_t nf = 0;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(&layout612, &g, "t", "test", &s));
	snprintf(hs.name, sizeof(hs.name), "hugepages-2048kB");
	for (unsigned int i = 0; i < NSLOTS; i++) {
		if (!(im->slots & 1u << i))
			continue;
		hs.nr++;
		hs.free += !(im->active & 1u << i);
		fs[nf++] = (struct mmc_sfolios){ .hstate = 0, .node = im->node1 & 1u << i ? 1 : 0,
						 .start_pfn = SLOT0 + i * FPAGES, .nfolios = 1,
						 .list = im->active & 1u << i ? MMC_FOLIO_ACTIVE :
										  MMC_FOLIO_FREE,
						 .vmemmap = MMC_FVM_OPTIMISED };
	}
	die(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", &hs, 1, fs, nf));
	for (unsigned int i = 0; i < NSLOTS;) {
		unsigned int e = i;

		while (e < NSLOTS && im->slots & 1u << e)
			e++;
		if (e > i)
			add_range(s, vbase, im, i, e);
		i = e + 1;
	}
	return s;
}

struct pcase {
	struct image a, b;
	bool placement;		/* the pools alike: folios in one image only are placement */
	uint64_t differ;	/* struct pages differing among those compared */
	uint64_t vdiffer;	/* vmemmap pages differing */
	enum mmc_verdict verdict;
	const char *why;
};

static unsigned int popcount(unsigned int x)
{
	unsigned int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

static void run_case(const struct pcase *k, bool per_page)
{
	struct mmc_diff_opts o = { .max_pages = 3, .max_groups = 100, .per_page = per_page };
	unsigned int both = k->a.slots & k->b.slots;
	uint64_t compared = popcount(both) * FPAGES;
	uint64_t only_a = popcount(k->a.slots & ~k->b.slots) * FPAGES;
	uint64_t only_b = popcount(k->b.slots & ~k->a.slots) * FPAGES;
	uint64_t pa = 0, pb = 0, cmp = 0, dif = 0, vdif = 0;
	struct mmc_diff_result *res = NULL;
	struct mmc_snapshot *a, *b;
	size_t placed_ok = 0;
	bool ok;

	a = build(0xffffea0000000000ULL, &k->a);
	b = build(0xffffd40000000000ULL, &k->b);
	die(mmc_diff(a, b, &o, &res));
	for (size_t i = 0; i < res->nranges; i++) {
		pa += res->ranges[i].placed_a;
		pb += res->ranges[i].placed_b;
		cmp += res->ranges[i].compared;
		dif += res->ranges[i].differing;
		vdif += res->ranges[i].vframes_differing;
	}
	/* the placed folios listed are exactly the slots one image has */
	for (size_t i = 0; i < res->nplaced; i++) {
		const struct mmc_diff_placed *p = &res->placed[i];
		unsigned int slot = (unsigned int)((p->pfn - SLOT0) >> ORDER);
		unsigned int mine = p->side ? k->b.slots & ~k->a.slots : k->a.slots & ~k->b.slots;

		placed_ok += p->order == ORDER && (p->pfn - SLOT0) % FPAGES == 0 && slot < NSLOTS &&
			     (mine & 1u << slot);
	}
	if (k->placement)
		ok = pa == only_a && pb == only_b && dif == k->differ &&
		     res->nplaced == (only_a + only_b) / FPAGES && placed_ok == res->nplaced;
	else
		ok = pa == 0 && pb == 0 && res->nplaced == 0 && dif == k->differ + only_a + only_b;
	ok = ok && cmp == compared && vdif == k->vdiffer && res->verdict == k->verdict;
	tap_ok(ok, "[proof] %s (%s)", k->why, per_page ? "page by page" : "chunk by chunk");
	if (!ok)
		fprintf(stderr, "# %zu ranges: compared %llu (want %llu) differing %llu vframes %llu placed %llu+%llu (%zu folios, %zu as built) verdict %s\n",
			res->nranges, (unsigned long long)cmp, (unsigned long long)compared,
			(unsigned long long)dif, (unsigned long long)vdif, (unsigned long long)pa,
			(unsigned long long)pb, res->nplaced, placed_ok, mmc_verdict_name(res->verdict));
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

#define NONE .private_slot = -1, .ro_slot = -1

static void test_placement(void)
{
	static const struct pcase cases[] = {
		{ { 0x0f, NONE }, { 0x0f, NONE }, true, 0, 0, MMC_IDENTICAL,
		  "the same 4 folios at the same pfns: all compared, identical" },
		{ { 0x0f, NONE }, { 0x1e, NONE }, true, 0, 0, MMC_IDENTICAL,
		  "folios 1-3 at the same pfns, folio 0 of a at slot 4 in b, pools alike: 3 compared, 2 placed, identical" },
		{ { 0x03, NONE }, { 0x30, NONE }, true, 0, 0, MMC_INCOMPLETE,
		  "no folio at the same pfn (ranges apart), pools alike: all placed, no difference; nothing compared, so incomplete" },
		{ { 0x03, NONE }, { 0x12, NONE }, true, 0, 0, MMC_IDENTICAL,
		  "folio 1 at the same pfn, folio 0 of a at slot 4 in b, a range of its own there: 1 compared, 2 placed, identical" },
		{ { 0x1b, NONE }, { 0x4e, NONE }, true, 0, 0, MMC_IDENTICAL,
		  "a's ranges at slots 0-1 and 3-4, b's at 1-3 and 6: one group over 0-4 (folios 1 and 3 compared), 4 placed, identical" },
		{ { 0x0f, NONE }, { 0x1e, .active = 0x10, .private_slot = -1, .ro_slot = -1 }, false, 0, 0,
		  MMC_DIFFERENT,
		  "the moved folio active in b (free counts differ): a difference, not placement" },
		{ { 0x0f, NONE }, { 0x1e, .node1 = 0x10, .private_slot = -1, .ro_slot = -1 }, false, 0, 0,
		  MMC_DIFFERENT,
		  "the moved folio on node 1 in b (per-node counts differ, totals alike): a difference" },
		{ { 0x0f, NONE }, { 0x0f, .private_slot = 2, .ro_slot = -1 }, true, 1, 0, MMC_DIFFERENT,
		  "the same folios, folio 2's head private changed: that head differs" },
		{ { 0x0f, NONE }, { 0x1e, .private_slot = 2, .ro_slot = -1 }, true, 1, 0, MMC_DIFFERENT,
		  "a folio moved and folio 2's head changed: placement does not hide the compared head" },
		{ { 0x0f, NONE }, { 0x1e, .private_slot = -1, .ro_slot = 2 }, true, 0, 1, MMC_DIFFERENT,
		  "a folio moved and folio 2's vmemmap page 3 writable in b: that vmemmap page differs in the window" },
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
	test_placement();
	mmc_test_layout_release(&layout612);
	return tap_done();
}
