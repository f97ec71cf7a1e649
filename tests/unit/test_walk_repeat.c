// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Frame repeats: a vmemmap page that maps the frame of the vmemmap page
 * before it (HVO) is taken as that page's records moved by the struct
 * pages of a vmemmap page (mmc_snapshot_repeat_moved() with
 * mmc_norm_run_moved()), not struct page by struct page.
 *
 * [proof] Every snapshot here is held against the page-by-page path on
 * the same bytes: the walker with no_frame_repeats (synthetic images),
 * or mmc_norm_page() + mmc_snapshot_append() of every pfn (hand-built
 * frames).  Equal contents and equal file bytes say the fast path gives
 * what the slow path gives; which vmemmap pages are taken as repeats is
 * counted from the construction (synth_kernel.h's HugeTLB pool: a
 * folio's 8 vmemmap pages all map its first page's frame, 6.12 HVO), not
 * from the tool's output.  Cases: the pool as HVO maps it; a vmemmap page
 * that maps a frame of its own with nearly the same bytes (never taken
 * as a repeat); that frame missing from the dump (unreadable, never
 * taken, nor the page after it); records whose move would turn a page
 * pointer into a self-pointer; a frame of identical struct pages whose
 * moved first record would continue the run before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "layout_fixture.h"
#include "normalise.h"
#include "snapshot.h"
#include "synth_kernel.h"
#include "synth_open.h"
#include "tap.h"
#include "walk.h"

static char dir[] = "/tmp/mmc-repeat-XXXXXX";

/* ---- the walker on synthetic HugeTLB pools ---- */

static struct mmc_snapshot *walk(const char *name, const struct synth_opts *o,
				 bool repeats, unsigned int threads,
				 struct mmc_walk_stats *st)
{
	struct mmc_layout *l = synth_layout_new();
	struct mmc_kernel *k = NULL;
	struct mmc_snapshot *s = NULL;
	struct mmc_walk_opts wo = { .threads = threads, .no_frame_repeats = !repeats };
	struct mmc_error *err;

	if (l && sk_hugetlb_layout(l)) {
		mmc_layout_destroy(l);
		l = NULL;
	}
	err = synth_open_with(dir, name, o, l, &k);
	if (!err)
		err = mmc_walk(k, NULL, &wo, &s, st);
	if (err) {
		tap_diag("%s: %s", name, err->message);
		mmc_error_destroy(err);
	}
	mmc_kernel_destroy(k);
	return s;
}

/* The saved files' bytes equal? */
static bool same_file(const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	char pa[300], pb[300];
	struct mmc_error *err;
	FILE *fa = NULL, *fb = NULL;
	bool same = false;
	int ca, cb;

	snprintf(pa, sizeof(pa), "%s/a.snap", dir);
	snprintf(pb, sizeof(pb), "%s/b.snap", dir);
	err = mmc_snapshot_save(a, pa);
	if (!err)
		err = mmc_snapshot_save(b, pb);
	if (err) {
		tap_diag("save: %s", err->message);
		mmc_error_destroy(err);
		return false;
	}
	fa = fopen(pa, "rb");
	fb = fopen(pb, "rb");
	if (fa && fb) {
		do {
			ca = getc(fa);
			cb = getc(fb);
		} while (ca == cb && ca != EOF);
		same = ca == cb;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * o's pool walked with and without frame repeats, on 1 and 2 threads:
 * the same snapshot each time, `repeats` vmemmap pages taken as repeats
 * and `unreadable` struct pages unread.
 */
static void check_pool(const char *what, const struct synth_opts *o,
		       uint64_t repeats, uint64_t unreadable)
{
	struct mmc_walk_stats sf, ss;
	/* one image name: the snapshot's info names the dump */
	struct mmc_snapshot *slow = walk("pool.core", o, false, 1, &ss);

	for (unsigned int threads = 1; threads <= 2; threads++) {
		struct mmc_snapshot *fast = walk("pool.core", o, true, threads, &sf);

		tap_ok(slow && fast && mmc_snapshot_equal_content(fast, slow) &&
		       same_file(fast, slow),
		       "%s, %u thread(s): the snapshot of the page-by-page walk, to the byte",
		       what, threads);
		tap_ok(fast && sf.frame_repeats == repeats && ss.frame_repeats == 0 &&
		       sf.pages == ss.pages && sf.unreadable == unreadable &&
		       ss.unreadable == unreadable,
		       "%s, %u thread(s): %llu vmemmap pages taken as repeats (%llu expected), "
		       "%llu struct pages unread (%llu expected)", what, threads,
		       (unsigned long long)sf.frame_repeats, (unsigned long long)repeats,
		       (unsigned long long)sf.unreadable, (unsigned long long)unreadable);
		mmc_snapshot_destroy(fast);
	}
	mmc_snapshot_destroy(slow);
}

static void test_pools(void)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1, .hugetlb = 1 };

	/*
	 * 3 folios of 8 vmemmap pages, all on the folio's first frame: page
	 * 1 is the first to map it again (its struct pages are SHARED, page
	 * 0's are not: not a repeat), pages 2..7 repeat the page before.
	 */
	check_pool("HVO pool", &o, 3 * 6, 0);
	/*
	 * Folio 0's vmemmap pages 3 and 4 on a frame of their own, struct
	 * page 10 different: page 3 maps another frame than page 2 (and
	 * its struct pages are not SHARED: the frame's first mapping), page
	 * 4 maps page 3's frame but is SHARED, page 5 is SHARED like page 4
	 * but maps another frame: only the frame address tells them apart.
	 * Pages 2, 6 and 7 repeat.
	 */
	o.huge_other_frame = 1;
	check_pool("pages 3, 4 on another frame", &o, 3 + 2 * 6, 0);
	/* that frame missing from the dump: 128 struct pages unread */
	o.drop_frame = sk_vmemmap(&o) + SK_HUGE_PFN * 64 + 4 * 4096;
	check_pool("pages 3, 4's frame not in the dump", &o, 3 + 2 * 6, 128);
}

/* ---- the snapshot and normaliser on hand-built frames (6.12) ---- */

#define SPS 64
#define KPP 64			/* struct pages per vmemmap page */
#define START 0x140000ULL
#define NPFN (1ULL << 19)		/* two 1 GiB folios */
#define FOLIO (1ULL << 18)

static uint64_t page_addr(const struct mmc_geom *g, uint64_t pfn)
{
	return g->vmemmap_base + pfn * SPS;
}

/* A HugeTLB folio's first vmemmap page: head, page[1], page[2], tails. */
static void mk_hvo_frame(const struct mmc_geom *g, uint8_t *f)
{
	memset(f, 0, KPP * SPS);
	le_put64(f, 1ULL << 6);
	le_put64(f + 8, 0xffff888104a3c000ULL);
	le_put64(f + 16, 0xffffffff82a1b2c0ULL);
	for (unsigned int i = 1; i < KPP; i++) {
		uint8_t *p = f + i * SPS;

		le_put64(p + 8, page_addr(g, START) + 1);
		le_put32(p + 48, 0xffffffff);
		if (i == 1) {
			le_put32(p + 32, 1U << 18);
			le_put64(p + 40, 18);
		} else if (i == 2) {
			le_put64(p + 16, page_addr(g, START + 2) + 16);
			le_put64(p + 24, page_addr(g, START + 2) + 16);
		} else {
			le_put64(p + 24, g->poison_pointer_delta + 0x400);
		}
	}
}

/* Every struct page points `ahead` struct pages on from the frame's
 * first pfn `pfn0` plus its index: moved by KPP, ahead KPP lands on
 * itself. */
static void mk_ahead_frame(const struct mmc_geom *g, uint8_t *f, uint64_t pfn0, int64_t ahead)
{
	memset(f, 0, KPP * SPS);
	for (unsigned int i = 0; i < KPP; i++) {
		le_put64(f + i * SPS + 16, page_addr(g, pfn0 + i + (uint64_t)ahead) + 8);
		le_put32(f + i * SPS + 48, 0xffffffff);
	}
}

/* A head, then 63 identical struct pages pointing at one struct page
 * (pfn target). */
static void mk_cross_frame(const struct mmc_geom *g, uint8_t *f, uint64_t target)
{
	memset(f, 0, KPP * SPS);
	le_put64(f, 1ULL << 6);
	for (unsigned int i = 1; i < KPP; i++) {
		le_put64(f + i * SPS + 16, page_addr(g, target) + 8);
		le_put32(f + i * SPS + 48, 0xffffffff);
	}
}

/* 64 identical struct pages pointing at one struct page (pfn target). */
static void mk_same_frame(const struct mmc_geom *g, uint8_t *f, uint64_t target)
{
	memset(f, 0, KPP * SPS);
	for (unsigned int i = 0; i < KPP; i++) {
		le_put64(f + i * SPS + 16, page_addr(g, target) + 8);
		le_put32(f + i * SPS + 48, 0xffffffff);
	}
}

static bool move_run(void *arg, uint64_t pfn, const struct mmc_nrec *first,
		     const struct mmc_nrec *stride, uint64_t count, int64_t by,
		     struct mmc_nrec *out)
{
	return mmc_norm_run_moved(arg, pfn, first, stride, count, by, out);
}

struct hand {
	struct mmc_layout l;
	struct mmc_geom g;
	struct mmc_srange r;
};

static struct mmc_norm *hand_norm(struct hand *h)
{
	struct mmc_norm *n = NULL;
	struct mmc_error *err = mmc_norm_create(&h->l, &h->g, NULL, 0, &n);

	if (!err)
		err = mmc_norm_set_ranges(n, &h->r, 1);
	if (err) {
		tap_diag("norm: %s", err->message);
		mmc_error_destroy(err);
		mmc_norm_destroy(n);
		return NULL;
	}
	return n;
}

/*
 * nv vmemmap pages from START, page v mapping frame frames[map[v]]; the
 * snapshot of the range's first nv * KPP pfns, every pfn appended (slow)
 * or with a repeat tried on every page that maps the frame of the page
 * before it (fast; *taken counts them).  NULL on failure.
 */
static struct mmc_snapshot *hand_walk(struct hand *h, uint64_t base, uint8_t *const *frames,
				      const unsigned int *map, unsigned int nv,
				      bool fast, unsigned int *taken)
{
	struct mmc_norm *n = hand_norm(h);
	struct mmc_snapshot *s = NULL;
	struct mmc_srange r = h->r;
	struct mmc_error *err;
	struct mmc_spgmap pgmap = { 0 };
	struct mmc_nrec rec;

	*taken = 0;
	r.start_pfn = base;
	r.end_pfn = base + (uint64_t)nv * KPP;
	err = n ? mmc_snapshot_create(&h->l, &h->g, "hand", "test", &s) : NULL;
	if (!err && s)
		err = mmc_snapshot_add_pgmap(s, &pgmap);
	if (!err && s)
		err = mmc_snapshot_begin_range(s, &r);
	for (unsigned int v = 0; !err && s && v < nv; v++) {
		uint64_t pfn0 = base + (uint64_t)v * KPP;
		bool done = false;

		if (fast && v && map[v] == map[v - 1]) {
			err = mmc_snapshot_repeat_moved(s, KPP, move_run, n, &done);
			*taken += done;
		}
		/* a repeat taken leaves its runs as the next one's history:
		 * marking again would drop them */
		if (fast && !done)
			mmc_snapshot_mark(s);
		for (unsigned int i = 0; !err && !done && i < KPP; i++) {
			mmc_norm_page(n, pfn0 + i, frames[map[v]] + i * SPS,
				      MMC_ROLE_SHARED, &rec);
			err = mmc_snapshot_append(s, &rec);
		}
	}
	for (unsigned int v = 0; !err && s && v < nv; v++) {
		struct mmc_vframe vf = { .kind = MMC_VF_RAM, .paddr = 0x100000 + map[v] * 4096ULL };

		err = mmc_snapshot_append_vframe(s, &vf);
	}
	if (!err && s)
		err = mmc_snapshot_end_range(s);
	if (err) {
		tap_diag("hand walk: %s", err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(s);
		s = NULL;
	}
	mmc_norm_destroy(n);
	return s;
}

static void check_hand_at(struct hand *h, uint64_t base, const char *what,
			  uint8_t *const *frames, const unsigned int *map, unsigned int nv,
			  unsigned int want)
{
	unsigned int taken, none;
	struct mmc_snapshot *fast = hand_walk(h, base, frames, map, nv, true, &taken);
	struct mmc_snapshot *slow = hand_walk(h, base, frames, map, nv, false, &none);

	tap_ok(fast && slow && mmc_snapshot_equal_content(fast, slow) && same_file(fast, slow),
	       "%s: the records appended one by one, to the byte", what);
	tap_ok(taken == want, "%s: %u vmemmap pages taken as repeats (%u expected)",
	       what, taken, want);
	mmc_snapshot_destroy(fast);
	mmc_snapshot_destroy(slow);
}

static void check_hand(struct hand *h, const char *what, uint8_t *const *frames,
		       const unsigned int *map, unsigned int nv, unsigned int want)
{
	check_hand_at(h, START, what, frames, map, nv, want);
}

/*
 * 7.2 (the fixture's offsets: compound_info at 8, page[1]'s _mm_ids at
 * 40): struct pages naming their head by the mask of an order-18 folio
 * (include/linux/page-flags.h, 7.x _compound_head()), each pointing at
 * the struct page `ahead` on (offset 16, as the tails of 7.2's HVO
 * frame do), _mm_ids' offset 40 set (mm id 5: numbered only in page[1],
 * mm/rmap.c folio_set_mm_id()); with_head: struct page 0 a head.
 */
static void mk_72_frame(const struct mmc_geom *g, uint8_t *f, uint64_t pfn0, bool with_head)
{
	uint64_t mask = mmc_compound_info_mask(SPS, 18);

	memset(f, 0, KPP * SPS);
	for (unsigned int i = 0; i < KPP; i++) {
		uint8_t *p = f + i * SPS;

		le_put64(p + 8, mask);
		le_put64(p + 16, page_addr(g, pfn0 + i + 3 * FOLIO / 2) + 8);
		le_put64(p + 40, 5);
	}
	if (with_head) {
		le_put64(f, 1ULL << 6);
		le_put64(f + 8, 0);
	}
}

static void test_hand_72(void)
{
	struct hand h;
	uint8_t *fr[1];
	unsigned int same[6] = { 0, 0, 0, 0, 0, 0 };

	memset(&h, 0, sizeof(h));
	if (mmc_test_layout_72(&h.l)) {
		tap_ok(0, "7.2 fixture");
		return;
	}
	mmc_test_geom(&h.g);
	mmc_test_geom_72(&h.g);
	h.r.start_pfn = START;
	h.r.end_pfn = START + NPFN;
	h.r.reserve_start = h.r.reserve_end = h.r.altmap_start = h.r.altmap_end = START;
	fr[0] = malloc(KPP * SPS);
	if (!fr[0]) {
		tap_ok(0, "memory");
		goto out;
	}
	/* tails of a folio, away from its head: all but the first repeat */
	mk_72_frame(&h.g, fr[0], START + 128, false);
	check_hand_at(&h, START + 128, "7.2 tails frame", fr, same, 6, 5);
	/* the folio's first vmemmap page: page[1] (numbered mm id) at
	 * START + 1, not 64 pfns on: page 1 is no repeat, pages 2..5 are */
	mk_72_frame(&h.g, fr[0], START, true);
	check_hand_at(&h, START, "7.2 head frame (page[1] where it was)", fr, same, 6, 4);
	/*
	 * Tails across the next folio's head: moved from the page before
	 * it, the struct page at FOLIO + 1 would be page[1] where it moves
	 * to (refused), and the page after moves it away (refused); only
	 * the second page repeats the first.
	 */
	mk_72_frame(&h.g, fr[0], START + FOLIO - 128, false);
	check_hand_at(&h, START + FOLIO - 128, "7.2 tails onto a head (page[1] where it goes)",
		      fr, same, 4, 1);
out:
	free(fr[0]);
	mmc_test_layout_release(&h.l);
}

static void test_hand(void)
{
	struct hand h;
	uint8_t *fr[3];
	unsigned int hvo[40], ahead[6] = { 0, 0, 0, 0, 0, 0 };
	unsigned int join[4] = { 0, 1, 1, 1 }, mixed[8] = { 0, 0, 1, 0, 0, 2, 2, 2 };

	memset(&h, 0, sizeof(h));
	if (mmc_test_layout_612(&h.l)) {
		tap_ok(0, "6.12 fixture");
		return;
	}
	mmc_test_geom(&h.g);
	h.r.start_pfn = START;
	h.r.end_pfn = START + NPFN;
	h.r.reserve_start = h.r.reserve_end = h.r.altmap_start = h.r.altmap_end = START;
	for (unsigned int i = 0; i < 3; i++)
		fr[i] = malloc(KPP * SPS);
	if (!fr[0] || !fr[1] || !fr[2]) {
		tap_ok(0, "memory");
		goto out;
	}
	/* a folio's vmemmap as 6.12 HVO maps it: the first frame 40 times */
	mk_hvo_frame(&h.g, fr[0]);
	memset(hvo, 0, sizeof(hvo));
	check_hand(&h, "HVO frame, 40 vmemmap pages", fr, hvo, 40, 39);
	/*
	 * The frame, a copy of it with one struct page changed, the frame
	 * again, then a frame of identical struct pages: pages 1 and 4
	 * repeat the page before; 2 and 3 follow another frame; 6 and 7 map
	 * page 5's frame, but page 5 is one run of identical records which
	 * page 6's would continue (see the last case)
	 */
	memcpy(fr[1], fr[0], KPP * SPS);
	le_put64(fr[1] + 10 * SPS, 1ULL << 2);
	mk_same_frame(&h.g, fr[2], START + 5);
	check_hand(&h, "frames 0 0 1 0 0 2 2 2", fr, mixed, 8, 2);
	/* every pointer 64 ahead of page 0's pfn: moved 64, page 0's all
	 * land on their own pfns (a run of self-pointers), those move to
	 * pointers 64 back, and on: pages 1..5 repeat */
	mk_ahead_frame(&h.g, fr[0], START, 64);
	check_hand(&h, "pointers 64 ahead (page 1: self-pointers)", fr, ahead, 6, 5);
	mk_ahead_frame(&h.g, fr[0], START, 200);
	check_hand(&h, "pointers 200 ahead (stay page pointers)", fr, ahead, 6, 5);
	/*
	 * Struct pages 1..63 point at pfn START + 94: on page 0 one run
	 * (page deltas 93 down to 31); moved 64 on, delta 0 falls inside
	 * it (struct page 30 of page 1 points at itself): not a run move.
	 * Page 2's would join (page 1's three runs, moved, are one line),
	 * pages 3..5 repeat.
	 */
	mk_cross_frame(&h.g, fr[0], START + 94);
	check_hand(&h, "a page pointer reaching its own pfn mid-run", fr, ahead, 6, 3);
	/* a frame of identical pages after another frame: its moved first
	 * record continues its own run, so the moved runs would join */
	mk_hvo_frame(&h.g, fr[0]);
	mk_same_frame(&h.g, fr[1], START + NPFN - 1);
	check_hand(&h, "identical struct pages (runs would join)", fr, join, 4, 0);
out:
	for (unsigned int i = 0; i < 3; i++)
		free(fr[i]);
	mmc_test_layout_release(&h.l);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		tap_skip_all("mkdtemp failed");
	test_pools();
	test_hand();
	test_hand_72();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
