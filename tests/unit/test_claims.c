// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff's matching of claims (engine/diff_claims*.c) on hand-built
 * snapshot pairs: which pages and vmemmap pages each claim covers, the
 * verdicts, together, field names bound against both layouts (6.12 and
 * 7.2, through the rename table), and the cost of claims against a plain
 * diff.  test_claims_io has the claims file's grammar and the reports.
 *
 * [proof]: the expected answer follows from the grammar (doc/CLAIMS.md)
 * or from how the pair was built: which pages a mutation changes, and
 * which of them a claim's where/pages/values select, counted from the
 * geometry here, not from the diff.
 * [guard]: a value the tool itself gave, or the same answer two ways
 * (chunk by chunk and MEMMAPCHECK_PER_PAGE's page by page).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "claims_pair.h"
#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "pair_image.h"
#include "report.h"
#include "tap.h"

#define NCOMPOUND (R1_PAGES / 512)

static struct mmc_layout layout72;

/* ---- mutations: what b's kernel did differently (and claims_pair.h's m_tail_ref) ---- */

/* R2's index grows by one a page, 5 (a's) at R2_START + 500 */
static void m_index_ramp(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R2_START + 8)
		r->slot[4] = raw(pfn - R2_START - 495);
}

/* every page of R1 but the heads loses PG_reserved */
static void m_no_reserved(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R1_START && pfn < R1_START + R1_PAGES && (pfn - R1_START) % 512)
		r->slot[0] = raw((uint64_t)r->slot[0].v & ~PG_RESERVED);
}

/* R2's order-0 pages: zone 2 and refcount 0 (two fields, one page) */
static void m_zone_ref(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R2_START + 8 && pfn < R2_START + R2_PAGES) {
		r->slot[0] = raw(((uint64_t)r->slot[0].v & ~(7ULL << 61)) | (2ULL << 61));
		r->slot[6] = raw(0xffffffffULL);
	}
}

static void m_vframe(unsigned int range, uint64_t i, struct mmc_vframe *vf)
{
	if (range == 0 && i % 8 >= 2)
		vf->share_back = 0;
}

/*
 * The section-based vmemmap (patches/7.2/section-vmemmap.patch) in
 * miniature: the tail vmemmap pages vp1..vp7 of every compound page of R1
 * map one frame, the first one's vp1 (it allocates it), read-only.  So
 * vp1..vp7 of compound pages 1..7 change frame (49 vmemmap pages), those
 * of compound page 0 keep their sharing; all 56 turn read-only.
 */
static void m_section(unsigned int range, uint64_t i, struct mmc_vframe *vf)
{
	if (range == 0 && i % 8 >= 1) {
		vf->share_back = i == 1 ? 0 : (int64_t)i - 1;
		vf->prot &= (uint8_t)~MMC_VPROT_WRITABLE;
	}
}

/* ... and the same without the write-protect (mut-section-writable) */
static void m_section_rw(unsigned int range, uint64_t i, struct mmc_vframe *vf)
{
	if (range == 0 && i % 8 >= 1)
		vf->share_back = i == 1 ? 0 : (int64_t)i - 1;
}

/* R2's order-0 pages: zone 4 -> 2 on all, refcount 1 -> 0 on the first
 * half, 1 -> 2 on the next quarter, unchanged on the last quarter */
static void m_zone_ref_part(uint64_t pfn, struct mmc_nrec *r)
{
	uint64_t k = pfn - R2_START;

	if (pfn < R2_START + 8 || pfn >= R2_START + R2_PAGES)
		return;
	r->slot[0] = raw(((uint64_t)r->slot[0].v & ~(7ULL << 61)) | (2ULL << 61));
	if (k < R2_PAGES / 2)
		r->slot[6] = raw(0xffffffffULL);
	else if (k < R2_PAGES * 3 / 4)
		r->slot[6] = raw(0x2ffffffffULL);
}

static void m_shift(size_t i, struct mmc_spgmap *pg)
{
	if (i == 0)
		pg->vmemmap_shift = 0;
}

/* ---- running ---- */

struct run {
	struct mmc_diff_result *res;
	char *text;		/* the text report */
};

static const char *claims_text;	/* set per case */

static struct mmc_diff_result *run(const struct mut *m, const char *text, bool per_page)
{
	claims_text = text;
	return diff_with(&layout612, &layout612, m, text, per_page, false, NULL);
}

static const struct mmc_diff_claim *claim_of(const struct mmc_diff_result *res, const char *name)
{
	for (size_t i = 0; res->claims && i < res->claims->nclaims; i++)
		if (!strcmp(res->claims->claim[i].name, name))
			return &res->claims->claim[i];
	return NULL;
}

static uint64_t field_pages(const struct mmc_diff_result *res, const char *name)
{
	uint64_t n = 0;

	for (size_t r = 0; r < res->nranges; r++)
		for (size_t f = 0; f < res->ranges[r].nfields; f++)
			if (!strcmp(res->ranges[r].fields[f].name, name))
				n += res->ranges[r].fields[f].pages;
	return n;
}

static void show(const struct mmc_diff_result *res)
{
	tap_diag("verdict %s, differing %llu, claimed %llu, unseen %zu", mmc_verdict_name(res->verdict),
		 (unsigned long long)res->pages_differing, (unsigned long long)res->pages_claimed,
		 res->claims ? res->claims->nunseen : 0);
	for (size_t i = 0; res->claims && i < res->claims->nclaims; i++)
		tap_diag("  claim %s: %llu pages %llu vframes %llu range pages %zu pgmap", res->claims->claim[i].name,
			 (unsigned long long)res->claims->claim[i].pages,
			 (unsigned long long)res->claims->claim[i].vframes,
			 (unsigned long long)res->claims->claim[i].range_pages,
			 res->claims->claim[i].pgmap_diffs);
	for (size_t r = 0; r < res->nranges; r++)
		for (size_t f = 0; f < res->ranges[r].nfields; f++)
			tap_diag("  range %zu beyond: %s %llu", r, res->ranges[r].fields[f].name,
				 (unsigned long long)res->ranges[r].fields[f].pages);
}

/* The same answer page by page [guard]. */
static bool same_result(const struct mmc_diff_result *x, const struct mmc_diff_result *y)
{
	if (x->verdict != y->verdict || x->pages_differing != y->pages_differing ||
	    x->pages_claimed != y->pages_claimed || x->pages_compared != y->pages_compared ||
	    x->claims->nunseen != y->claims->nunseen || x->ngroups != y->ngroups ||
	    x->claims->ngroups != y->claims->ngroups || x->nranges != y->nranges)
		return false;
	for (size_t i = 0; i < x->claims->nclaims; i++) {
		const struct mmc_diff_claim *a = &x->claims->claim[i], *b = &y->claims->claim[i];

		if (a->pages != b->pages || a->vframes != b->vframes || a->nfields != b->nfields ||
		    a->nranges != b->nranges || a->nunmet != b->nunmet)
			return false;
		for (size_t u = 0; u < a->nunmet; u++)
			if (strcmp(a->unmet[u].field, b->unmet[u].field) ||
			    a->unmet[u].unchanged != b->unmet[u].unchanged ||
			    a->unmet[u].pages != b->unmet[u].pages ||
			    a->unmet[u].vframes != b->unmet[u].vframes)
				return false;
		for (size_t f = 0; f < a->nfields; f++)
			if (strcmp(a->fields[f].name, b->fields[f].name) ||
			    a->fields[f].pages != b->fields[f].pages)
				return false;
	}
	for (size_t r = 0; r < x->nranges; r++)
		if (x->ranges[r].differing != y->ranges[r].differing ||
		    x->ranges[r].claimed != y->ranges[r].claimed ||
		    x->ranges[r].vframes_differing != y->ranges[r].vframes_differing ||
		    x->ranges[r].vframes_claimed != y->ranges[r].vframes_claimed ||
		    x->ranges[r].verdict != y->ranges[r].verdict)
			return false;
	for (size_t g = 0; g < x->ngroups; g++)
		if (x->groups[g].first_pfn != y->groups[g].first_pfn ||
		    x->groups[g].npages != y->groups[g].npages ||
		    strcmp(x->groups[g].fields, y->groups[g].fields))
			return false;
	return true;
}

/* One case: its result, checked against page by page. */
static struct mmc_diff_result *check(const struct mut *m, const char *text, const char *what)
{
	struct mmc_diff_result *res = run(m, text, false), *pp = run(m, text, true);

	tap_ok(same_result(res, pp), "[guard] %s: the same chunk by chunk and page by page", what);
	mmc_diff_result_destroy(pp);
	show(res);
	return res;
}

/* ---- matching ---- */

static void test_matching(void)
{
	struct mmc_diff_result *res;
	const struct mmc_diff_claim *c;
	const uint64_t tails = NCOMPOUND * 509;	/* page[3..511] of 8 compound pages */

	{
		struct mut m = { .page = m_tail_ref };

		res = check(&m, "memmapcheck-claims 1\nclaim t\n reason r\n where type=devdax shift=9\n"
			    " pages tail\n field _refcount 0 -> 1\n", "tail refcount, claimed");
		c = claim_of(res, "t");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->pages_claimed == tails &&
		       res->pages_differing == 0 && c && c->pages == tails && c->nranges == 1 &&
		       res->ranges[0].verdict == MMC_AS_CLAIMED &&
		       res->ranges[1].verdict == MMC_IDENTICAL && !res->claims->nunseen &&
		       res->ngroups == 0 && res->npages == 0 && res->claims->ngroups == NCOMPOUND,
		       "[proof] every tail's refcount 0 -> 1, claimed on tails: as claimed, %llu pages (8 x 509)",
		       (unsigned long long)tails);
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim t\n reason r\n pages page1,page2\n"
			    " field _refcount\n", "tail refcount, claimed on page[1], page[2] only");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->pages_differing == tails &&
		       res->pages_claimed == 0 && res->claims->nunseen == 1 &&
		       field_pages(res, "_refcount") == tails && res->npages == 3 &&
		       res->pages[0].pfn == R1_START + 3,
		       "[proof] the same claimed on page[1]/page[2] only: beyond (%llu), the claim not seen, first page 0x%llx",
		       (unsigned long long)tails, (unsigned long long)(R1_START + 3));
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim t\n reason r\n field _refcount 0 -> 2\n",
			    "tail refcount, wrong TO");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->pages_differing == tails &&
		       res->claims->nunseen == 1, "[proof] a claim with the wrong TO value covers nothing");
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim t\n reason r\n where type=fsdax\n field any\n",
			    "tail refcount, claimed in the other type");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->pages_differing == tails &&
		       res->claims->nunseen == 1, "[proof] where type=fsdax does not cover a devdax range");
		mmc_diff_result_destroy(res);

		/* the first 4 compound pages only: pfn window and range= */
		res = check(&m, "memmapcheck-claims 1\nclaim half\n reason r\n where pfn=0x100000-0x100800 range=0\n"
			    " field _refcount\n", "tail refcount, pfn window over half");
		c = claim_of(res, "half");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && c && c->pages == tails / 2 &&
		       res->pages_differing == tails / 2 && res->pages_claimed == tails / 2 &&
		       res->npages && res->pages[0].pfn == R1_START + 0x800 + 3,
		       "[proof] pfn=0x100000-0x100800: the first 4 compound pages claimed (%llu), the other 4 beyond, first at 0x%llx",
		       (unsigned long long)(tails / 2), (unsigned long long)(R1_START + 0x800 + 3));
		mmc_diff_result_destroy(res);

		/* a window edge inside a run of tails: pfn 0x100105 */
		res = check(&m, "memmapcheck-claims 1\nclaim cut\n reason r\n where pfn=0x100000-0x100105\n"
			    " field _refcount\n", "tail refcount, window edge inside a run");
		c = claim_of(res, "cut");
		tap_ok(c && c->pages == 0x105 - 3 && res->pages_differing == tails - (0x105 - 3),
		       "[proof] a window ending inside a run of tails cuts it: %u pages claimed",
		       0x105 - 3);
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim t\n reason r\n field _refcount\n"
			    "claim never\n reason nothing like it happens\n field mapping\n",
			    "tail refcount, one claim unseen");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->claims->nunseen == 1 &&
		       claim_of(res, "never")->pages == 0,
		       "[proof] a claim that matches nothing is not seen (the verdict is still as claimed)");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .page = m_index_ramp };
		uint64_t differ = R2_PAGES - 8 - 1;	/* equal at R2_START + 500 */

		res = check(&m, "memmapcheck-claims 1\nclaim one\n reason r\n field index 5 -> 100\n",
			    "index ramp, one value");
		c = claim_of(res, "one");
		tap_ok(c && c->pages == 1 && res->pages_differing == differ - 1 &&
		       res->pages_claimed == 1,
		       "[proof] index 5 -> 100 on a moving index: exactly the one page where b's index is 100 (pfn 0x%llx)",
		       (unsigned long long)(R2_START + 595));
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim all\n reason r\n where type=fsdax shift=0\n"
			    " pages order0\n field index 5 -> *\n", "index ramp, any TO");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->pages_claimed == differ,
		       "[proof] index 5 -> * covers all %llu differing pages", (unsigned long long)differ);
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim lo\n reason r\n field index 5 -> -400\n"
			    "claim range\n reason r\n where pfn=0x140100-0x140110\n field index\n",
			    "index ramp, a value and a window");
		tap_ok(claim_of(res, "lo")->pages == 1 && claim_of(res, "range")->pages == 16 &&
		       res->pages_claimed == 17,
		       "[proof] index 5 -> -400 (pfn 0x140067) and a 16-page window: 17 pages claimed");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .page = m_no_reserved };

		res = check(&m, "memmapcheck-claims 1\nclaim r\n reason r\n field flags.PG_reserved set -> clear\n",
			    "PG_reserved, flags only");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->pages_claimed == NCOMPOUND * 510 &&
		       field_pages(res, "_flags_1.PG_reserved") == NCOMPOUND &&
		       res->pages_differing == NCOMPOUND,
		       "[proof] flags.PG_reserved claimed: page[1]'s _flags_1.PG_reserved (8) is beyond");
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim r\n reason r\n field flags\n", "PG_reserved, flags group");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->pages_claimed == NCOMPOUND * 511,
		       "[proof] the flags group covers flags.* and _flags_1.*: %llu pages",
		       (unsigned long long)(NCOMPOUND * 511));
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim r\n reason r\n pages head,order0\n field any\n",
			    "PG_reserved, heads only");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->claims->nunseen == 1,
		       "[proof] pages head,order0 does not cover tails");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .page = m_zone_ref };
		uint64_t n = R2_PAGES - 8;

		res = check(&m, "memmapcheck-claims 1\nclaim z\n reason r\n field flags.zone 4 -> 2\n"
			    "claim ref\n reason r\n field _refcount 1 -> 0\n", "two fields, two claims");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->pages_claimed == n &&
		       claim_of(res, "z")->pages == n && claim_of(res, "ref")->pages == n,
		       "[proof] two differing fields of each page, each claimed by its own claim: as claimed");
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim z\n reason r\n field flags.zone\n", "two fields, one claimed");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->pages_differing == n &&
		       res->pages_claimed == 0 && claim_of(res, "z")->pages == n &&
		       field_pages(res, "_refcount") == n && field_pages(res, "flags.zone") == 0 &&
		       res->npages && res->pages[0].slot_mask == 1u << 6,
		       "[proof] one of two fields claimed: the pages are beyond with _refcount only listed");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .vframe = m_vframe };

		res = check(&m, "memmapcheck-claims 1\nclaim v\n reason r\n where shift=9\n field vmemmap_frame\n",
			    "vmemmap frames");
		tap_ok(res->verdict == MMC_AS_CLAIMED && claim_of(res, "v")->vframes == 8 * 6 &&
		       res->ranges[0].vframes_claimed == 48 && res->ranges[0].vframes_differing == 0,
		       "[proof] vmemmap_frame claimed: 48 vmemmap pages (8 groups x 6 shared)");
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim v\n reason r\n where pfn=0x100000-0x100400\n"
			    " field vmemmap\n", "vmemmap frames, a window");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && claim_of(res, "v")->vframes == 12 &&
		       res->ranges[0].vframes_differing == 36,
		       "[proof] a window of 0x400 pfns (16 vmemmap pages, 2 of 8 groups): 12 claimed, 36 beyond");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .drop_range2 = true };

		res = check(&m, "memmapcheck-claims 1\nclaim gone\n reason r\n where type=fsdax\n field range\n",
			    "a range only in a");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->ranges[1].range_claimed &&
		       claim_of(res, "gone")->range_pages == R2_PAGES && res->npgmap_diffs == 0 &&
		       claim_of(res, "gone")->pgmap_diffs == 2 && res->ranges[1].verdict == MMC_AS_CLAIMED,
		       "[proof] field range covers a range only in a and its pgmap sentences");
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim gone\n reason r\n where type=devdax\n field range\n",
			    "a range only in a, other type");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && !res->ranges[1].range_claimed,
		       "[proof] ... not with where type=devdax");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .pgmap = m_shift };

		res = check(&m, "memmapcheck-claims 1\nclaim s\n reason r\n field pgmap.vmemmap_shift 9 -> 0\n",
			    "pgmap vmemmap_shift");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->npgmap_diffs == 0 &&
		       res->claims->npgmap_diffs == 1 && claim_of(res, "s")->pgmap_diffs == 1,
		       "[proof] pgmap.vmemmap_shift 9 -> 0 covers the pgmap difference");
		mmc_diff_result_destroy(res);
		res = check(&m, "memmapcheck-claims 1\nclaim s\n reason r\n field pgmap.vmemmap_shift 9 -> 1\n",
			    "pgmap vmemmap_shift, wrong TO");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->npgmap_diffs == 1,
		       "[proof] ... 9 -> 1 does not");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .page = m_tail_ref, .unreadable = true };

		res = check(&m, "memmapcheck-claims 1\nclaim t\n reason r\n field _refcount\n"
			    "claim all\n reason r\n where type=fsdax\n field any\n", "claimed, one page unreadable");
		tap_ok(res->verdict == MMC_INCOMPLETE && res->pages_unreadable == 1 &&
		       res->pages_claimed == tails && claim_of(res, "all")->pages == 0,
		       "[proof] every difference claimed but a page unreadable: incomplete; field any in its range covers nothing (the unread page is no difference)");
		mmc_diff_result_destroy(res);
	}
	{
		res = check(NULL, "memmapcheck-claims 1\n", "identical, empty claims");
		tap_ok(res->verdict == MMC_AS_CLAIMED && !res->pages_claimed && !res->claims->nclaims,
		       "[proof] identical images, no claims: as claimed, nothing claimed");
		mmc_diff_result_destroy(res);
	}
}

/* ---- together ---- */

static const struct mmc_diff_unmet *unmet_of(const struct mmc_diff_claim *c, const char *field)
{
	for (size_t u = 0; c && u < c->nunmet; u++)
		if (!strcmp(c->unmet[u].field, field))
			return &c->unmet[u];
	return NULL;
}

#define SECTION_CLAIMS \
	"memmapcheck-claims 1\n" \
	"claim shared\n reason the tail vmemmap pages of a section share one read-only frame\n" \
	" where type=devdax shift=9 altmap=no\n together\n field vmemmap_frame\n" \
	" field vmemmap_writable 1 -> 0\n" \
	"claim read-only\n reason the first compound page's tail frame turns read-only too\n" \
	" where type=devdax shift=9 altmap=no\n field vmemmap_writable 1 -> 0\n"

static void test_together(void)
{
	struct mmc_diff_result *res;
	const struct mmc_diff_claim *sh, *ro;
	const struct mmc_diff_unmet *u;
	/* from the geometry: 8 compound pages of 8 vmemmap pages */
	const uint64_t moved = (NCOMPOUND - 1) * 7, ro_pages = NCOMPOUND * 7;

	{
		struct mut m = { .vframe = m_section };

		res = check(&m, SECTION_CLAIMS, "section vmemmap, the port's claims");
		sh = claim_of(res, "shared");
		ro = claim_of(res, "read-only");
		tap_ok(res->verdict == MMC_AS_CLAIMED && sh && sh->together && sh->vframes == moved &&
		       ro && ro->vframes == ro_pages && res->ranges[0].vframes_claimed == ro_pages &&
		       res->ranges[0].vframes_differing == 0 && !sh->nunmet && !res->claims->nunseen,
		       "[proof] section sharing + read-only, claimed together: as claimed, %llu vmemmap pages together, %llu read-only",
		       (unsigned long long)moved, (unsigned long long)ro_pages);
		mmc_diff_result_destroy(res);

		/* vmemmap_writable FROM -> TO is matched on the bits */
		res = check(&m, "memmapcheck-claims 1\nclaim f\n reason r\n field vmemmap_frame\n"
			    "claim w\n reason r\n field vmemmap_writable 0 -> 1\n", "section vmemmap, writable 0 -> 1");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->ranges[0].vframes_differing == ro_pages &&
		       field_pages(res, "vmemmap_writable") == ro_pages && claim_of(res, "w")->vframes == 0 &&
		       claim_of(res, "f")->vframes == moved,
		       "[proof] vmemmap_writable 0 -> 1 does not cover 1 -> 0: %llu vmemmap pages beyond",
		       (unsigned long long)ro_pages);
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .vframe = m_section_rw };

		res = check(&m, SECTION_CLAIMS, "section vmemmap without the write-protect, the port's claims");
		sh = claim_of(res, "shared");
		u = unmet_of(sh, "vmemmap_writable");
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && res->ranges[0].vframes_differing == moved &&
		       field_pages(res, "vmemmap_frame") == moved && sh && sh->vframes == 0 &&
		       res->claims->nunseen == 2 && u && u->unchanged && u->vframes == moved && !u->pages &&
		       !strcmp(u->claimed, "1 -> 0"),
		       "[proof] frames shared but left writable: beyond, %llu vmemmap pages, vmemmap_writable unchanged (claimed 1 -> 0)",
		       (unsigned long long)moved);
		mmc_diff_result_destroy(res);
		res = diff_with(&layout612, &layout612, &m, SECTION_CLAIMS, false, false, NULL);
		{
			char *t = render(res, MMC_FMT_TEXT), *j = render(res, MMC_FMT_JSON);
			char *k = render(res, MMC_FMT_KTAP), *x = render(res, MMC_FMT_JUNIT);

			if (getenv("TEST_CLAIMS_SHOW"))
				printf("%s\n%s\n%s\n", t, k, x);
			tap_ok(t && strstr(t, "      together: covers a page only where all its fields differ as claimed\n"
					   "      beyond the claims, vmemmap_writable unchanged, claimed 1 -> 0: 49 vmemmap pages\n") &&
			       j && strstr(j, "\"together\":true,\"unmet\":[{\"field\":\"vmemmap_writable\",\"claimed\":\"1 -> 0\","
					   "\"unchanged\":true,\"pages\":0,\"vframes\":49}]") &&
			       k && strstr(k, "# claim shared (together), beyond the claims: vmemmap_writable unchanged, claimed 1 -> 0: 49 vmemmap pages\n") &&
			       x && strstr(x, "<skipped message=\"claimed but not seen\"/>\n      <system-out>together, beyond the claims: "
					   "vmemmap_writable unchanged, claimed 1 -&gt; 0: 49 vmemmap pages</system-out>"),
			       "[proof] text, JSON, KTAP and JUnit say what the together claim missed: vmemmap_writable unchanged, claimed 1 -> 0");
			free(t);
			free(j);
			free(k);
			free(x);
		}
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim shared\n reason r\n where shift=9\n"
			    " field vmemmap_frame\nclaim read-only\n reason r\n field vmemmap_writable 1 -> 0\n",
			    "section vmemmap without the write-protect, claimed apart");
		tap_ok(res->verdict == MMC_AS_CLAIMED && res->claims->nunseen == 1 &&
		       claim_of(res, "read-only")->vframes == 0,
		       "[proof] the same claimed apart (no together): as claimed, the read-only claim only not seen -- the gap together closes");
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim shared\n reason r\n where shift=9\n"
			    " field vmemmap_frame\n", "section vmemmap without the write-protect, its own claims");
		tap_ok(res->verdict == MMC_AS_CLAIMED && !res->claims->nunseen &&
		       claim_of(res, "shared")->vframes == moved,
		       "[proof] ... and as claimed with its own claims (the frame only)");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .page = m_zone_ref_part };
		const uint64_t n = R2_PAGES - 8, both = R2_PAGES / 2 - 8, other = R2_PAGES / 4;
		const struct mmc_diff_claim *c;
		const struct mmc_diff_unmet *u0, *u1;

		res = check(&m, "memmapcheck-claims 1\nclaim zr\n reason r\n together\n"
			    " field flags.zone 4 -> 2\n field _refcount 1 -> 0\n", "zone and refcount together");
		c = claim_of(res, "zr");
		u0 = NULL;
		u1 = NULL;
		for (size_t k = 0; c && k < c->nunmet; k++) {
			if (c->unmet[k].unchanged)
				u0 = &c->unmet[k];
			else
				u1 = &c->unmet[k];
		}
		tap_ok(res->verdict == MMC_BEYOND_CLAIMS && c && c->pages == both &&
		       res->pages_claimed == both && res->pages_differing == n - both &&
		       field_pages(res, "flags.zone") == n - both && field_pages(res, "_refcount") == other &&
		       u0 && !strcmp(u0->field, "_refcount") && u0->pages == other &&
		       u1 && !strcmp(u1->field, "_refcount") && u1->pages == other && !u1->vframes &&
		       !strcmp(u1->claimed, "1 -> 0"),
		       "[proof] zone 4 -> 2 together with refcount 1 -> 0: %llu pages claimed; %llu beyond, refcount unchanged on %llu, 1 -> 2 on %llu",
		       (unsigned long long)both, (unsigned long long)(n - both), (unsigned long long)other,
		       (unsigned long long)other);
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim zr\n reason r\n together\n"
			    " field flags.zone 4 -> 2\n field _refcount 1 -> 0\n"
			    "claim z\n reason r\n field flags.zone\nclaim ref\n reason r\n field _refcount\n",
			    "zone and refcount together, and apart");
		tap_ok(res->verdict == MMC_AS_CLAIMED && claim_of(res, "zr")->pages == both &&
		       claim_of(res, "z")->pages == n && !claim_of(res, "zr")->nunmet,
		       "[proof] other claims covering the fields apart make it as claimed: together limits only its own claim");
		mmc_diff_result_destroy(res);

		res = check(&m, "memmapcheck-claims 1\nclaim zr\n reason r\n together\n"
			    " field flags.zone\n field any\n", "zone together with any");
		tap_ok(res->verdict == MMC_AS_CLAIMED && claim_of(res, "zr")->pages == n,
		       "[proof] together with the group any: met wherever the zone differs");
		mmc_diff_result_destroy(res);
	}
}

/* ---- binding: names against both layouts ---- */

static void test_binding(void)
{
	struct mmc_diff_result *res;
	struct mmc_error *err;
	struct mut m = { .page = m_tail_ref };
	const char *mm_ids = "memmapcheck-claims 1\nclaim a\n reason r\n\n field _refcount\n field _mm_ids\n";
	const char *renamed = "memmapcheck-claims 1\nclaim h\n reason r\n field compound_head\n"
			      " field index\nclaim h2\n reason r\n field compound_head\n"
			      "claim t\n reason r\n field _refcount\n";

	res = diff_with(&layout612, &layout612, &m, mm_ids, false, false, &err);
	tap_ok(!res && err && !strcmp(err->path, "t.claims") &&
	       strstr(err->message, "line 6: field _mm_ids exists in neither image (6.12.117 and 6.12.117)"),
	       "[proof] _mm_ids on a 6.12 pair: an error naming the line and both releases (%s)",
	       err ? err->message : "none");
	mmc_error_destroy(err);
	res = diff_with(&layout612, &layout72, &m, mm_ids, false, false, &err);
	tap_ok(res && !err && res->verdict == MMC_AS_CLAIMED,
	       "[proof] _mm_ids on a 6.12 -> 7.2 pair: the patched layout has it, accepted");
	mmc_diff_result_destroy(res);
	mmc_error_destroy(err);
	res = diff_with(&layout612, &layout612, &m,
			"memmapcheck-claims 1\nclaim a\n reason r\n field flags.PG_dropbehind\n",
			false, false, &err);
	tap_ok(!res && err && strstr(err->message, "line 4: field flags.PG_dropbehind exists in neither image"),
	       "[proof] a flag 6.12 does not have: error");
	mmc_error_destroy(err);

	/* a 6.12-named claims file on a 7.2 pair, and the other way */
	res = diff_with(&layout72, &layout72, &m, renamed, false, false, &err);
	tap_ok(res && !err && res->claims->nnotes == 2 &&
	       strstr(res->claims->notes[0], "t.claims: line 4: compound_head is compound_info in 7.2.8 (a kernel rename): claimed as compound_info") &&
	       strstr(res->claims->notes[1], "index is __folio_index in 7.2.8"),
	       "[proof] 6.12 names on a 7.2 pair: taken through the rename table, each said once (%zu notes)",
	       res ? res->claims->nnotes : 0);
	mmc_diff_result_destroy(res);
	res = diff_with(&layout612, &layout612, &m,
			"memmapcheck-claims 1\nclaim h\n reason r\n field compound_info\n field __folio_index\n",
			false, false, &err);
	tap_ok(res && !err && res->claims->nnotes == 2 &&
	       strstr(res->claims->notes[0], "compound_info is compound_head in 6.12.117"),
	       "[proof] 7.2 names on a 6.12 pair: the same the other way");
	mmc_diff_result_destroy(res);
}

/* A stale compound_head on the tails of a 7.2 pair, claimed by its 6.12
 * name: the rename is not only accepted but covers. */
static void m_stale_head(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R1_START + 512 && pfn < R1_START + R1_PAGES && (pfn - R1_START) % 512 >= 2)
		r->slot[1].v -= 512;
}

static void test_alias_covers(void)
{
	struct mut m = { .page = m_stale_head };
	const uint64_t n = (NCOMPOUND - 1) * 510;
	struct mmc_diff_result *res;

	res = diff_with(&layout72, &layout72, &m,
			"memmapcheck-claims 1\nclaim stale\n reason r\n pages page2,tail\n field compound_head\n",
			false, false, NULL);
	tap_ok(res->verdict == MMC_AS_CLAIMED && res->pages_claimed == n &&
	       claim_of(res, "stale")->fields[0].pages == n &&
	       !strcmp(claim_of(res, "stale")->fields[0].name, "compound_info"),
	       "[proof] compound_head claimed on a 7.2 pair covers the %llu compound_info differences",
	       (unsigned long long)n);
	mmc_diff_result_destroy(res);
}

/* ---- speed ---- */

/* 100 GiB of 2M compound pages, every tail differing: claims cost per
 * chunk, not per page. */
static struct mmc_snapshot *big(const struct mmc_layout *l, uint64_t vbase, bool mutate)
{
	struct mmc_snapshot *s;
	struct mmc_geom g;
	struct mmc_spgmap pg;
	struct mmc_srange r;
	uint64_t n = 100ULL << 18;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(l, &g, "big", "test", &s));
	memset(&pg, 0, sizeof(pg));
	snprintf(pg.type_name, sizeof(pg.type_name), "MEMORY_DEVICE_GENERIC");
	pg.vmemmap_shift = 9;
	die(mmc_snapshot_add_pgmap(s, &pg));
	memset(&r, 0, sizeof(r));
	r.start_pfn = R1_START;
	r.end_pfn = R1_START + n;
	die(mmc_snapshot_begin_range(s, &r));
	for (uint64_t p = r.start_pfn; p < r.end_pfn; p += 512) {
		for (uint64_t k = 0; k < 4; k++) {
			struct mmc_nrec rec, stride;

			pair_image_rec(vbase, R1_START + k, false, &rec);
			if (k)
				rec.slot[1].raw = vbase + p * 64 + 1;
			if (mutate)
				m_tail_ref(R1_START + k, &rec);
			memset(&stride, 0, sizeof(stride));
			stride.nslots = rec.nslots;
			if (k == 3)
				stride.slot[1].v = -1;
			die(mmc_snapshot_append_run(s, &rec, &stride, k == 3 ? 509 : 1));
		}
	}
	for (uint64_t p = 0; p < n * 64 / 4096; p++) {
		struct mmc_vframe vf = { .kind = MMC_VF_DEVICE, .dev_off = (int64_t)p };

		die(mmc_snapshot_append_vframe(s, &vf));
	}
	die(mmc_snapshot_end_range(s));
	return s;
}

static void test_speed(void)
{
	struct mmc_snapshot *a = big(&layout612, 0xffffea0000000000ULL, false);
	struct mmc_snapshot *b = big(&layout612, 0xffffd40000000000ULL, true);
	static const char text[] = "memmapcheck-claims 1\nclaim t\n reason r\n where type=devdax shift=9\n"
				   " pages tail\n field _refcount 0 -> 1\nclaim u\n reason r\n field mapping\n";
	struct mmc_diff_opts plain = { .max_groups = 200 }, with = plain;
	struct mmc_diff_result *r0, *r1;
	struct mmc_claims *cl;
	struct timespec t0;
	double s0 = 1e9, s1 = 1e9, s;

	die(mmc_claims_parse("speed.claims", text, sizeof(text) - 1, &cl));
	with.claims = cl;
	for (int i = 0; i < 3; i++) {
		t0 = tap_cpu_start();
		die(mmc_diff(a, b, &plain, &r0));
		s = tap_cpu_since(&t0);
		s0 = s < s0 ? s : s0;
		mmc_diff_result_destroy(r0);
		t0 = tap_cpu_start();
		die(mmc_diff(a, b, &with, &r1));
		s = tap_cpu_since(&t0);
		s1 = s < s1 ? s : s1;
		if (i < 2)
			mmc_diff_result_destroy(r1);
	}
	tap_ok(r1->verdict == MMC_AS_CLAIMED && r1->pages_claimed == 51200ULL * 509 &&
	       s1 < tap_cpu_limit(1.0),
	       "[proof] 26 M pages, every tail's refcount claimed: as claimed, %llu pages in %.3f CPU s",
	       (unsigned long long)r1->pages_claimed, s1);
	/* A complexity guard, not the speed target: claims matched page by page
	 * would cost 10x or more here.  The 10 % target is bench.sh's, on dumps,
	 * side by side; a ratio this tight flaked on a loaded CI machine. */
	tap_ok(s1 < s0 * 2.0 + tap_cpu_limit(0.01),
	       "[guard] claims cost %.3f CPU s against the plain diff's %.3f (%.2fx: matched by runs, not page by page)",
	       s1, s0, s0 > 0 ? s1 / s0 : 0);
	mmc_diff_result_destroy(r1);
	mmc_claims_destroy(cl);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

int main(void)
{
	if (mmc_test_layout_612(&layout612) || mmc_test_layout_72(&layout72))
		return 1;
	test_matching();
	test_binding();
	test_alias_covers();
	test_together();
	test_speed();
	mmc_test_layout_release(&layout612);
	mmc_test_layout_release(&layout72);
	(void)claims_text;
	return tap_done();
}
