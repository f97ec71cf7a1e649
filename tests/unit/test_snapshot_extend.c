// SPDX-License-Identifier: GPL-2.0-or-later
/* The walker's fast path, mmc_snapshot_extend_same_n(): taking up to n
 * repeated struct pages at once must give exactly the snapshot that
 * appending their records one by one gives (mmc_snapshot_append(), the
 * ordinary path, is the reference), and take exactly what calling
 * mmc_snapshot_extend_same() n times takes.  The records are those of a
 * struct page repeated: a pointer to another struct page, d pfns ahead,
 * falls back one pfn a record until it reaches its own pfn (a
 * self-pointer, which no run of repeated bytes may cover: the run's
 * same_limit); the range ends the runs too.  Spans are asked for in sizes
 * that cross both limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "tap.h"

/* pfn i's record, a page pointer aimed at pfn `target` and a raw value. */
static void rec_at(uint64_t i, uint64_t target, struct mmc_nrec *r)
{
	int64_t d = (int64_t)(target - i);

	memset(r, 0, sizeof(*r));
	r->nslots = 2;
	r->slot[0].cls = d == 0 ? MMC_V_SELF : MMC_V_PAGE;
	r->slot[0].v = d;
	r->slot[0].raw = 0xffffea0000001000ULL;
	r->slot[1].v = r->slot[1].raw = 0x2fffff00000400ULL;
}

static struct mmc_error *start(struct mmc_snapshot **s, uint64_t npages)
{
	struct mmc_geom g = { .page_size = 4096, .struct_page_size = 16 };
	struct mmc_spgmap pg = { .type_name = "MEMORY_DEVICE_GENERIC" };
	struct mmc_srange r = { .start_pfn = 0, .end_pfn = npages };
	struct mmc_error *err;

	err = mmc_snapshot_create(NULL, &g, "synthetic", "test", s);
	if (!err)
		err = mmc_snapshot_add_pgmap(*s, &pg);
	if (!err)
		err = mmc_snapshot_begin_range(*s, &r);
	return err;
}

static struct mmc_error *finish(struct mmc_snapshot *s, uint64_t npages)
{
	struct mmc_vframe first = { .kind = MMC_VF_RAM, .paddr = 0x100000000ULL };
	struct mmc_vframe stride = { .paddr = 0x1000 };
	struct mmc_error *err;

	err = mmc_snapshot_append_vframe_run(s, &first, &stride, (npages * 16 + 4095) / 4096);
	return err ? err : mmc_snapshot_end_range(s);
}

/*
 * Build one range of npages records whose pointer aims at target (and,
 * past it, at target2): by appending only (mode 0), by single
 * extend_same() calls up to `span` (1), or by extend_same_n(span) (2).
 * takes[] gets what each fast-path step took.
 */
static struct mmc_error *build(int mode, uint64_t npages, uint64_t target, uint64_t target2,
			       uint64_t span, struct mmc_snapshot **out,
			       uint64_t *takes, size_t *ntakes)
{
	struct mmc_error *err = start(out, npages);
	uint64_t i = 0;

	*ntakes = 0;
	while (!err && i < npages) {
		struct mmc_nrec rec;
		uint64_t taken = 0;

		if (mode == 1)
			while (taken < span && mmc_snapshot_extend_same(*out))
				taken++;
		else if (mode == 2)
			taken = mmc_snapshot_extend_same_n(*out, span);
		if (mode && *ntakes < 4096)
			takes[(*ntakes)++] = taken;
		if (taken > npages - i)
			return mmc_error_create(MMC_ERR_INTERNAL, NULL,
						"%llu records taken at pfn %llu of a range of %llu",
						(unsigned long long)taken, (unsigned long long)i,
						(unsigned long long)npages);
		if (taken) {
			i += taken;
			continue;
		}
		rec_at(i, i <= target ? target : target2, &rec);
		err = mmc_snapshot_append(*out, &rec);
		i++;
	}
	return err ? err : finish(*out, npages);
}

/*
 * extend_same_n() against the extend_same() calls it stands for: the same
 * steps taken, the same snapshot as record by record, for every span.
 */
static void test_spans(void)
{
	static const uint64_t spans[] = { 1, 2, 3, 7, 100, 1000, UINT64_MAX };
	static const struct { uint64_t npages, target, target2; } cases[] = {
		{ 512, 100, 400 },	/* pointer limits, then the range's end */
		{ 512, 600, 900 },	/* only the range's end */
		{ 64, 1, 63 },		/* a limit right after the run starts */
		{ 4096, 2048, 4095 },
	};
	static uint64_t t1[4096], t2[4096];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t np = cases[c].npages;
		struct mmc_snapshot *ref = NULL;
		struct mmc_error *err;
		size_t n1, n2;

		err = build(0, np, cases[c].target, cases[c].target2, 0, &ref, t1, &n1);
		tap_ok(!err, "case %zu: reference built record by record%s%s", c,
		       err ? ": " : "", err ? err->message : "");
		mmc_error_destroy(err);
		for (size_t k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
			struct mmc_snapshot *one = NULL, *bulk = NULL;
			struct mmc_error *e1, *e2;

			e1 = build(1, np, cases[c].target, cases[c].target2, spans[k], &one, t1, &n1);
			e2 = build(2, np, cases[c].target, cases[c].target2, spans[k], &bulk, t2, &n2);
			tap_ok(!e1 && !e2 && n1 == n2 && !memcmp(t1, t2, n1 * sizeof(t1[0])),
			       "case %zu, span %llu: extend_same_n takes what %s extend_same calls take (%zu steps)",
			       c, (unsigned long long)spans[k],
			       spans[k] == UINT64_MAX ? "unbounded" : "as many", n2);
			tap_ok(ref && bulk && mmc_snapshot_equal_content(ref, bulk) &&
			       mmc_snapshot_npages(bulk) == np &&
			       mmc_snapshot_count_state(bulk, MMC_PS_READ) == np &&
			       mmc_snapshot_nruns(bulk) == mmc_snapshot_nruns(ref),
			       "case %zu, span %llu: the same snapshot as record by record (%llu runs)",
			       c, (unsigned long long)spans[k],
			       (unsigned long long)(ref ? mmc_snapshot_nruns(ref) : 0));
			mmc_error_destroy(e1);
			mmc_error_destroy(e2);
			mmc_snapshot_destroy(one);
			mmc_snapshot_destroy(bulk);
		}
		mmc_snapshot_destroy(ref);
	}
}

/* Before a run has two records nothing is taken; n = 0 takes nothing. */
static void test_edges(void)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err = start(&s, 16);
	struct mmc_nrec rec;

	tap_ok(!err && mmc_snapshot_extend_same_n(s, 5) == 0,
	       "nothing is taken before a run has two records");
	rec_at(0, 100, &rec);
	err = err ? err : mmc_snapshot_append(s, &rec);
	rec_at(1, 100, &rec);
	err = err ? err : mmc_snapshot_append(s, &rec);
	tap_ok(!err && mmc_snapshot_extend_same_n(s, 0) == 0 &&
	       mmc_snapshot_extend_same_n(s, 100) == 14 &&
	       mmc_snapshot_extend_same_n(s, 1) == 0 && mmc_snapshot_npages(s) == 16,
	       "n = 0 takes nothing; the range's 14 remaining records, then none");
	mmc_error_destroy(err);
	mmc_snapshot_destroy(s);
}

int main(void)
{
	test_spans();
	test_edges();
	tap_plan(tap_n);
	return tap_failed ? 1 : 0;
}
