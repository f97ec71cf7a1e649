// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, a HugeTLB folio's list links (rules.c mmc_rule_hugetlb_list_word()):
 * the lru words of a folio's head on an hstate list name its neighbours
 * there, whose order varies between boots (hugetlb_pages_alloc_boot()'s
 * padata threads), so they are not compared in HugeTLB ranges; the pools
 * compare which list each folio is on.  Everything else still compares:
 * a tail's compound_head (the same word as a head's lru.next), the head's
 * other words, and the same lru words in a ZONE_DEVICE range.  The words
 * are named as the range's kind has them (include/linux/mm_types.h: the
 * lru list_head, or the ZONE_DEVICE union's pgmap and zone_device_data).
 *
 * [proof]: the pair is built here, four 2 MiB folios in a HugeTLB range
 * and the same in a device-dax range; a's free list runs in pfn order, b's
 * in the reverse order (what two boots can give).  The expected pages
 * follow from which words each case changes, counted from the geometry
 * here, not from the diff.  Each case is judged chunk by chunk and page by
 * page.
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
#define NFOLIOS 4
#define PAGES (NFOLIOS << ORDER)
#define LRU_SLOT 1	/* layout_fixture.h: lru at offset 8, 16 bytes */

enum { R_DAX, R_HUGE, NR };
static const uint64_t range_start[NR] = { 0x100000, 0x200000 };

/* What an image holds besides its list order. */
struct variant {
	bool reversed;		/* the free list in reverse pfn order */
	bool head_private;	/* folio 1's head: private (HPG_* bits) changed */
	bool tail_head;		/* folio 2's page[5]: compound_head off by one folio */
	bool dax_links;		/* the device-dax heads get the same list links */
	bool tail_word2;	/* folio 3's page[7], both ranges: the word at offset 16 set */
};

/* lru.next/prev of folio i: neighbours on a circular list through a list
 * head (an object, numbered 1) in pfn order, or reversed. */
static void links(uint64_t vbase, uint64_t start, unsigned int i, bool reversed,
		  struct mmc_nrec *r, uint64_t pfn)
{
	int next = reversed ? (int)i - 1 : (int)i + 1, prev = reversed ? (int)i + 1 : (int)i - 1;
	const struct mmc_nval list_head = nv(MMC_V_OBJ, 0, 1, 0xffffffff83000000ULL);

	r->slot[LRU_SLOT] = next < 0 || next >= NFOLIOS ? list_head :
		nv(MMC_V_PAGE, 8, (int64_t)(start + ((uint64_t)next << ORDER)) - (int64_t)pfn,
		   vbase + (start + ((uint64_t)next << ORDER)) * 64 + 8);
	r->slot[LRU_SLOT + 1] = prev < 0 || prev >= NFOLIOS ? list_head :
		nv(MMC_V_PAGE, 8, (int64_t)(start + ((uint64_t)prev << ORDER)) - (int64_t)pfn,
		   vbase + (start + ((uint64_t)prev << ORDER)) * 64 + 8);
}

static void rec(uint64_t vbase, size_t ri, uint64_t pfn, const struct variant *v,
		struct mmc_nrec *r)
{
	uint64_t start = range_start[ri], k = (pfn - start) & ((1ULL << ORDER) - 1);
	unsigned int folio = (unsigned int)((pfn - start) >> ORDER);
	int64_t head_delta = -(int64_t)k;

	memset(r, 0, sizeof(*r));
	r->nslots = 8;
	for (unsigned int i = 0; i < 8; i++)
		r->slot[i] = nv(MMC_V_NULL, 0, 0, 0);
	r->slot[0] = raw(ZONE_BITS | (k ? (k == 1 ? ORDER : 0) : PG_HEAD));
	r->slot[6] = raw((!k ? 1ULL : 0) << 32 | 0xffffffffULL);
	if (!k) {
		if (ri == R_HUGE || v->dax_links)
			links(vbase, start, folio, v->reversed, r, pfn);
		if (ri == R_HUGE && v->head_private && folio == 1)
			r->slot[5] = raw(0x4);
		return;
	}
	if (v->tail_word2 && folio == 3 && k == 7)
		r->slot[LRU_SLOT + 1] = raw(0x1234);
	if (ri == R_HUGE && v->tail_head && folio == 2 && k == 5)
		head_delta -= 1 << ORDER;
	r->slot[1] = nv(MMC_V_PAGE, 1, head_delta, vbase + (uint64_t)((int64_t)pfn + head_delta) * 64 + 1);
	if (k == 1)
		r->slot[4] = raw(1ULL << ORDER);
	else if (k >= 3)
		r->slot[3] = nv(MMC_V_POISON, 0, 0x400, 0xdead000000000400ULL);
}

static void add_range(struct mmc_snapshot *s, uint64_t vbase, size_t ri, const struct variant *v)
{
	struct mmc_srange r;
	struct mmc_nrec x;

	memset(&r, 0, sizeof(r));
	r.start_pfn = range_start[ri];
	r.end_pfn = range_start[ri] + PAGES;
	r.kind = ri == R_HUGE ? MMC_RANGE_HUGETLB : MMC_RANGE_PGMAP;
	r.pgmap_index = ri == R_HUGE ? MMC_NO_PGMAP : 0;
	die(mmc_snapshot_begin_range(s, &r));
	for (uint64_t p = r.start_pfn; p < r.end_pfn; p++) {
		rec(vbase, ri, p, v, &x);
		die(mmc_snapshot_append(s, &x));
	}
	for (uint64_t k = 0; k < PAGES * 64 / 4096; k++) {
		struct mmc_vframe vf = { .kind = MMC_VF_RAM, .prot = MMC_VPROT_WRITABLE,
					 .prot_known = MMC_VPROT_WRITABLE, .leaf = MMC_VLEAF_PTE,
					 .paddr = (r.start_pfn * 64 + k * 4096) | 1ULL << 40 };

		die(mmc_snapshot_append_vframe(s, &vf));
	}
	die(mmc_snapshot_end_range(s));
}

static struct mmc_layout layout612;

static struct mmc_snapshot *build(uint64_t vbase, const struct variant *v)
{
	struct mmc_shstate hs = { .order = ORDER, .nr = NFOLIOS, .free = NFOLIOS };
	struct mmc_sfolios fs = { .hstate = 0, .start_pfn = range_start[R_HUGE], .nfolios = NFOLIOS };
	struct mmc_snapshot *s;
	struct mmc_spgmap pg;
	struct mmc_geom g;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(&layout612, &g, "t", "test", &s));
	snprintf(hs.name, sizeof(hs.name), "hugepages-2048kB");
	die(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", &hs, 1, &fs, 1));
	memset(&pg, 0, sizeof(pg));
	pg.type = 4;
	snprintf(pg.type_name, sizeof(pg.type_name), "MEMORY_DEVICE_GENERIC");
	pg.vmemmap_shift = ORDER;
	pg.nr_range = 1;
	die(mmc_snapshot_add_pgmap(s, &pg));
	for (size_t i = 0; i < NR; i++)
		add_range(s, vbase, i, v);
	return s;
}

struct lcase {
	struct variant b;	/* a: the same without reversed */
	uint64_t differ[NR];	/* pages differing per range */
	const char *field;	/* a field that must be named, or NULL */
	const char *why;
};

static bool names(const struct mmc_diff_range *dr, const char *field)
{
	for (size_t i = 0; i < dr->nfields; i++)
		if (!strcmp(dr->fields[i].name, field))
			return true;
	return false;
}

static void run_case(const struct lcase *k, bool per_page)
{
	struct variant va = k->b;
	struct mmc_diff_opts o = { .max_pages = 3, .max_groups = 100, .per_page = per_page };
	struct mmc_diff_result *res = NULL;
	struct mmc_snapshot *a, *b;
	bool ok;

	va.reversed = false;
	va.head_private = va.tail_head = false;
	a = build(0xffffea0000000000ULL, &va);
	b = build(0xffffd40000000000ULL, &k->b);
	die(mmc_diff(a, b, &o, &res));
	ok = res->nranges == NR && res->npgmap_diffs == 0;
	for (size_t i = 0; ok && i < NR; i++)
		ok = res->ranges[i].differing == k->differ[i] &&
		     res->ranges[i].compared == PAGES;
	if (ok && k->field)
		ok = names(&res->ranges[k->differ[R_DAX] ? R_DAX : R_HUGE], k->field);
	tap_ok(ok, "[proof] %s (%s)", k->why, per_page ? "page by page" : "chunk by chunk");
	if (!ok && res->nranges == NR)
		fprintf(stderr, "# differing: dax %llu huge %llu, pgmap diffs %zu\n",
			(unsigned long long)res->ranges[R_DAX].differing,
			(unsigned long long)res->ranges[R_HUGE].differing, res->npgmap_diffs);
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

/*
 * The word at offset 16 of a tail: lru.prev where the page is not a
 * ZONE_DEVICE one (the HugeTLB range), zone_device_data in the device-dax
 * range; a pgmap page's lru words are not its own.
 */
static void test_names(void)
{
	struct variant va = { 0 }, vb = { .tail_word2 = true };
	struct mmc_diff_opts o = { .max_pages = 3, .max_groups = 100 };
	struct mmc_diff_result *res = NULL;
	struct mmc_snapshot *a, *b;
	bool ok, found = false;

	a = build(0xffffea0000000000ULL, &va);
	b = build(0xffffd40000000000ULL, &vb);
	die(mmc_diff(a, b, &o, &res));
	ok = res->nranges == NR && res->ranges[R_HUGE].differing == 1 &&
	     res->ranges[R_DAX].differing == 1;
	tap_ok(ok && names(&res->ranges[R_HUGE], "lru.prev") &&
	       !names(&res->ranges[R_HUGE], "zone_device_data"),
	       "[proof] a HugeTLB tail's word at offset 16 is lru.prev");
	tap_ok(ok && names(&res->ranges[R_DAX], "zone_device_data"),
	       "[proof] a device-dax tail's word at offset 16 is zone_device_data");
	for (size_t i = 0; i < res->npages; i++)
		if (res->pages[i].pfn == range_start[R_HUGE] + (3 << ORDER) + 7) {
			found = true;
			ok = ok && res->pages[i].kind == MMC_RANGE_HUGETLB;
		}
	tap_ok(ok && found, "[proof] the first differing pages keep their range's kind for the report's names");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

static void test_list_links(void)
{
	static const struct lcase cases[] = {
		{ { .reversed = true }, { 0, 0 }, NULL,
		  "free list in the other order: the HugeTLB range identical" },
		{ { .reversed = true, .dax_links = true }, { NFOLIOS, 0 }, NULL,
		  "the same words on device-dax heads: all 4 heads differ there (no list rule outside HugeTLB)" },
		{ { .reversed = true, .head_private = true }, { 0, 1 }, "private",
		  "list order and folio 1's private: only that head, private named" },
		{ { .reversed = true, .tail_head = true }, { 0, 1 }, "compound_head",
		  "list order and one tail's compound_head (a head's lru.next word): that tail" },
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
	test_list_links();
	test_names();
	mmc_test_layout_release(&layout612);
	return tap_done();
}
