// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mmc_norm_page_moved(), the walker's record of a struct page whose bytes
 * it saw one vmemmap page back (HVO maps the folio's first vmemmap page
 * again every 64 pfns), against the slow path: mmc_norm_page() of the
 * same bytes at the pfn `by` further on, and the old copy-then-move
 * (mmc_norm_page_move()).  The expectation is the normaliser's own slow
 * path on the same bytes, so equality here is a proof that the fast path
 * gives the records the walk would give page by page, not a recorded
 * value.  The pages are built as 6.12 lays them out for a 1 GiB HugeTLB
 * folio under HVO (include/linux/mm_types.h, mm/hugetlb_vmemmap.c: the
 * head, page[1] and page[2] of the folio and tails, then the same bytes
 * one vmemmap page further on), plus the cases where a page pointer lands
 * on the moved pfn itself (it becomes a self-pointer) or leaves one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "layout_fixture.h"
#include "normalise.h"
#include "tap.h"

#define SPS 64
#define PG_HEAD 6
#define START 0x140000ULL		/* 1 GiB aligned pfn: the folio's head */
#define NPFN (1ULL << 18)		/* one 1 GiB folio */

static uint64_t page_addr(const struct mmc_geom *g, uint64_t pfn)
{
	return g->vmemmap_base + pfn * g->struct_page_size;
}

/* The head of a free HugeTLB folio: its lru on the hstate's free list. */
static void mk_head(const struct mmc_geom *g, uint8_t *p)
{
	memset(p, 0, SPS);
	le_put64(p + 0, 1ULL << PG_HEAD);
	le_put64(p + 8, 0xffff888104a3c000ULL);
	le_put64(p + 16, 0xffffffff82a1b2c0ULL);
	le_put32(p + 48, 0xffffffff);
	(void)g;
}

/* page[1]: compound_head, order and the folio's counters */
static void mk_page1(const struct mmc_geom *g, uint8_t *p)
{
	memset(p, 0, SPS);
	le_put64(p + 8, page_addr(g, START) + 1);
	le_put32(p + 16, 0xffffffff);
	le_put32(p + 20, 0xffffffff);
	le_put32(p + 32, 1U << 18);
	le_put64(p + 40, 18);
	le_put32(p + 48, 0xffffffff);
}

/* page[2]: _deferred_list pointing at itself (an empty list) */
static void mk_page2(const struct mmc_geom *g, uint8_t *p)
{
	memset(p, 0, SPS);
	le_put64(p + 8, page_addr(g, START) + 1);
	le_put64(p + 16, page_addr(g, START + 2) + 16);
	le_put64(p + 24, page_addr(g, START + 2) + 16);
	le_put32(p + 48, 0xffffffff);
}

static void mk_tail(const struct mmc_geom *g, uint8_t *p)
{
	memset(p, 0, SPS);
	le_put64(p + 8, page_addr(g, START) + 1);
	le_put64(p + 24, g->poison_pointer_delta + 0x400);
	le_put32(p + 48, 0xffffffff);
}

/* A page pointing `ahead` struct pages on (a list into a later page). */
static void mk_ahead(const struct mmc_geom *g, uint8_t *p, uint64_t pfn, int64_t ahead)
{
	memset(p, 0, SPS);
	le_put64(p + 16, page_addr(g, pfn + (uint64_t)ahead) + 8);
	le_put64(p + 24, page_addr(g, pfn) + 24);
	le_put32(p + 48, 0xffffffff);
}

/* Everything the snapshot keeps of a record: state, role, slots (raw too). */
static int recs_same(const struct mmc_nrec *a, const struct mmc_nrec *b)
{
	unsigned int i;

	if (a->state != b->state || a->role != b->role || a->nslots != b->nslots ||
	    a->reason != b->reason)
		return 0;
	for (i = 0; i < a->nslots; i++) {
		const struct mmc_nval *x = &a->slot[i], *y = &b->slot[i];

		if (x->cls != y->cls || x->region != y->region || x->off != y->off ||
		    x->v != y->v || x->raw != y->raw)
			return 0;
	}
	return 1;
}

/* bytes seen at pfn, then `by` pfns further on: fast == slow == old */
static int check_moved_rec(struct mmc_norm *n, const uint8_t *bytes, uint64_t pfn,
			   int64_t by, enum mmc_page_role role, struct mmc_nrec *got)
{
	struct mmc_nrec back, fast, slow, old;

	mmc_norm_page(n, pfn, bytes, role, &back);
	memset(&fast, 0, sizeof(fast));
	if (!mmc_norm_page_moved(n, &back, by, &fast))
		return 0;
	mmc_norm_page(n, pfn + (uint64_t)by, bytes, role, &slow);
	old = back;
	if (!mmc_norm_page_move(n, &old, by))
		return 0;
	*got = fast;
	return recs_same(&fast, &slow) && recs_same(&fast, &old);
}

static int check_moved(struct mmc_norm *n, const uint8_t *bytes, uint64_t pfn,
		       int64_t by, enum mmc_page_role role)
{
	struct mmc_nrec got;

	return check_moved_rec(n, bytes, pfn, by, role, &got);
}

static void test_612(void)
{
	struct mmc_layout l;
	struct mmc_geom g;
	struct mmc_norm *n;
	struct mmc_error *err;
	struct mmc_srange r = { 0 };
	struct mmc_nrec got;
	uint8_t p[SPS];
	uint64_t q;
	int ok;

	if (mmc_test_layout_612(&l)) {
		tap_ok(0, "6.12 fixture");
		return;
	}
	mmc_test_geom(&g);
	err = mmc_norm_create(&l, &g, NULL, 0, &n);
	if (!tap_ok(!err, "6.12: create")) {
		mmc_error_destroy(err);
		mmc_test_layout_release(&l);
		return;
	}
	r.start_pfn = START;
	r.end_pfn = START + NPFN;
	r.reserve_start = r.reserve_end = r.altmap_start = r.altmap_end = START;
	err = mmc_norm_set_ranges(n, &r, 1);
	tap_ok(!err, "6.12: ranges set");
	mmc_error_destroy(err);
	tap_ok(mmc_norm_can_move(n), "6.12: records move");

	/* the folio's first vmemmap page, seen again every 64 pfns */
	mk_head(&g, p);
	tap_ok(check_moved(n, p, START, 64, MMC_ROLE_DEVICE),
	       "head bytes 64 pfns on (fake head) = normalised there");
	mk_page1(&g, p);
	tap_ok(check_moved(n, p, START + 1, 64, MMC_ROLE_DEVICE),
	       "page[1] bytes 64 pfns on = normalised there");
	mk_page2(&g, p);
	tap_ok(check_moved_rec(n, p, START + 2, 64, MMC_ROLE_DEVICE, &got) &&
	       got.slot[2].cls == MMC_V_PAGE && got.slot[2].v == -64,
	       "page[2] (self list) 64 pfns on: self becomes a page delta");
	ok = 1;
	for (q = START + 64; q < START + 64 * 80; q += 64) {
		mk_tail(&g, p);
		ok &= check_moved(n, p, q + 7, 64, MMC_ROLE_DEVICE);
		ok &= check_moved(n, p, q + 63, 64, MMC_ROLE_SHARED);
	}
	tap_ok(ok, "tails, 80 vmemmap pages: every move = normalised there");
	/* a page delta that reaches the moved pfn becomes self, and back */
	mk_ahead(&g, p, START + 100, 64);
	tap_ok(check_moved_rec(n, p, START + 100, 64, MMC_ROLE_DEVICE, &got) &&
	       got.slot[2].cls == MMC_V_SELF && got.slot[3].cls == MMC_V_PAGE,
	       "pointer 64 pages ahead, moved 64: self-pointer");
	mk_ahead(&g, p, START + 300, -64);
	tap_ok(check_moved(n, p, START + 300, 64, MMC_ROLE_DEVICE),
	       "pointer 64 pages back, moved 64: 128 back");
	mk_ahead(&g, p, START + 300, 3);
	tap_ok(check_moved(n, p, START + 300, 1, MMC_ROLE_DEVICE) &&
	       check_moved(n, p, START + 300, 3, MMC_ROLE_DEVICE) &&
	       check_moved(n, p, START + 300, -5, MMC_ROLE_DEVICE),
	       "moves by 1, 3 and -5 = normalised there");
	/* a pointer to a struct page outside the ranges is an object */
	mk_ahead(&g, p, START + NPFN - 10, 64);
	tap_ok(check_moved(n, p, START + NPFN - 100, 64, MMC_ROLE_DEVICE),
	       "pointer past the range's end = normalised there");
	mmc_norm_destroy(n);
	mmc_test_layout_release(&l);
}

/* 7.x: page[1]'s mm ids depend on the pfn; nothing moves, out untouched */
static void test_72(void)
{
	struct mmc_layout l;
	struct mmc_geom g;
	struct mmc_norm *n;
	struct mmc_error *err;
	struct mmc_nrec back, out, before;
	uint8_t p[SPS];

	if (mmc_test_layout_72(&l)) {
		tap_ok(0, "7.2 fixture");
		return;
	}
	mmc_test_geom(&g);
	mmc_test_geom_72(&g);
	err = mmc_norm_create(&l, &g, NULL, 0, &n);
	if (!tap_ok(!err, "7.2: create")) {
		mmc_error_destroy(err);
		mmc_test_layout_release(&l);
		return;
	}
	mk_tail(&g, p);
	mmc_norm_page(n, START + 5, p, MMC_ROLE_DEVICE, &back);
	memset(&out, 0x5a, sizeof(out));
	before = out;
	tap_ok(!mmc_norm_can_move(n) && !mmc_norm_page_moved(n, &back, 64, &out) &&
	       !memcmp(&out, &before, sizeof(out)),
	       "7.2: no move, out untouched (the caller normalises)");
	mmc_norm_destroy(n);
	mmc_test_layout_release(&l);
}

int main(void)
{
	test_612();
	test_72();
	return tap_done();
}
