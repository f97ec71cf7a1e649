// SPDX-License-Identifier: GPL-2.0-or-later
/* Diff: hand-built snapshot pairs (a base image and a mutated one), checked
 * against the expected verdict and field names and against a brute-force
 * page-by-page reference; O(runs) speed on 26 M page ranges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "normalise.h"
#include "page_decode.h"
#include "pair_image.h"
#include "tap.h"

static struct mmc_layout layout;

/* A mutation: change b's record at pfn (return nothing) / its vframes. */
struct mut {
	const char *name;
	void (*page)(uint64_t pfn, struct mmc_nrec *r);
	void (*vframe)(unsigned int range, uint64_t i, struct mmc_vframe *vf);
	void (*pgmap)(size_t i, struct mmc_spgmap *pg);
	bool drop_range2;
	bool split_runs;	/* b built with other run boundaries */
};

static void gen_vframe(unsigned int range, uint64_t i, struct mmc_vframe *vf)
{
	memset(vf, 0, sizeof(*vf));
	if (range == 0) {
		uint64_t k = i % 8;

		vf->kind = MMC_VF_RAM;
		vf->share_back = k >= 2 ? (int64_t)(k - 1) : 0;
		vf->paddr = 0x40000000ULL + i * 0x1000;
	} else {
		vf->kind = MMC_VF_DEVICE;
		vf->dev_off = (int64_t)i;
	}
}

static struct mmc_snapshot *build(uint64_t vbase, const struct mut *m)
{
	struct mmc_snapshot *s;
	struct mmc_geom g;
	struct mmc_srange r;
	size_t i, nr = m && m->drop_range2 ? 1 : 2;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(&layout, &g, "t", "test", &s));
	for (i = 0; i < 2; i++) {
		struct mmc_spgmap pg;

		memset(&pg, 0, sizeof(pg));
		pg.kaddr = vbase ^ (0x123000 + i);
		pg.type = i ? 3 : 4;
		pg.vmemmap_shift = i ? 0 : 9;
		pg.nr_range = 1;
		pg.ops = nv(MMC_V_OBJ, 0, (int64_t)i, vbase ^ 0x999);
		if (m && m->pgmap)
			m->pgmap(i, &pg);
		die(mmc_snapshot_add_pgmap(s, &pg));
	}
	for (i = 0; i < nr; i++) {
		uint64_t start = i ? R2_START : R1_START, n = i ? R2_PAGES : R1_PAGES, p, k;

		memset(&r, 0, sizeof(r));
		r.start_pfn = start;
		r.end_pfn = start + n;
		r.pgmap_index = (uint32_t)i;
		die(mmc_snapshot_begin_range(s, &r));
		for (p = start; p < start + n; p++) {
			struct mmc_nrec rec;

			pair_image_rec(vbase, p, true, &rec);
			if (m && m->page)
				m->page(p, &rec);
			if (m && m->split_runs && p % 7 == 3) {
				struct mmc_nrec zero = rec;

				for (unsigned int q = 0; q < rec.nslots; q++)
					zero.slot[q].v = 0, zero.slot[q].raw = 0;
				die(mmc_snapshot_append_run(s, &rec, &zero, 1));
			} else {
				die(mmc_snapshot_append(s, &rec));
			}
		}
		for (k = 0; k < n * 64 / 4096; k++) {
			struct mmc_vframe vf;

			gen_vframe((unsigned int)i, k, &vf);
			if (m && m->vframe)
				m->vframe((unsigned int)i, k, &vf);
			die(mmc_snapshot_append_vframe(s, &vf));
		}
		die(mmc_snapshot_end_range(s));
	}
	return s;
}

/* Reference: page by page with mmc_snapshot_get. */
struct ref {
	uint64_t compared, differing, unreadable, not_init;
};

static struct ref reference(const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	struct ref x = { 0 };
	int64_t a2b[64], b2a[64];
	size_t i;

	for (i = 0; i < 64; i++)
		a2b[i] = b2a[i] = -1;
	/* pgmaps are compared first in diff.c: pair their objects first too */
	for (i = 0; i < mmc_snapshot_npgmaps(a) && i < mmc_snapshot_npgmaps(b); i++) {
		const struct mmc_nval *u = &mmc_snapshot_pgmap(a, i)->ops;
		const struct mmc_nval *w = &mmc_snapshot_pgmap(b, i)->ops;

		if (u->cls == MMC_V_OBJ && w->cls == MMC_V_OBJ && u->v >= 0 && u->v < 64 &&
		    w->v >= 0 && w->v < 64 && a2b[u->v] < 0 && b2a[w->v] < 0) {
			a2b[u->v] = w->v;
			b2a[w->v] = u->v;
		}
	}
	for (i = 0; i < mmc_snapshot_nranges(a); i++) {
		const struct mmc_srange *r = mmc_snapshot_range(a, i);
		size_t j;

		for (j = 0; j < mmc_snapshot_nranges(b); j++)
			if (mmc_snapshot_range(b, j)->start_pfn == r->start_pfn &&
			    mmc_snapshot_range(b, j)->end_pfn == r->end_pfn)
				break;
		if (j == mmc_snapshot_nranges(b))
			continue;
		for (uint64_t p = r->start_pfn; p < r->end_pfn; p++) {
			struct mmc_nrec ra, rb;
			bool d = false;

			mmc_snapshot_get(a, i, p, &ra);
			mmc_snapshot_get(b, j, p, &rb);
			if (ra.state == MMC_PS_UNREADABLE || ra.state == MMC_PS_UNMAPPED ||
			    rb.state == MMC_PS_UNREADABLE || rb.state == MMC_PS_UNMAPPED) {
				x.unreadable++;
				continue;
			}
			if (ra.state == MMC_PS_NOT_INIT && rb.state == MMC_PS_NOT_INIT) {
				x.not_init++;
				continue;
			}
			x.compared++;
			if (ra.state != rb.state || ra.role != rb.role || ra.nslots != rb.nslots)
				d = true;
			for (unsigned int k = 0; k < ra.nslots && !d; k++) {
				const struct mmc_nval *u = &ra.slot[k], *w = &rb.slot[k];

				/* OBJ numbers: one-to-one pairing, as diff.c does */
				if (u->cls == MMC_V_OBJ && w->cls == MMC_V_OBJ &&
				    u->region == w->region && u->v >= 0 && u->v < 64 &&
				    w->v >= 0 && w->v < 64) {
					if (a2b[u->v] < 0 && b2a[w->v] < 0) {
						a2b[u->v] = w->v;
						b2a[w->v] = u->v;
					}
					d = a2b[u->v] != w->v || b2a[w->v] != u->v;
					continue;
				}
				d = !mmc_nval_equal(u, w);
			}
			x.differing += d;
		}
	}
	return x;
}

static uint64_t field(const struct mmc_diff_result *res, size_t range, const char *name)
{
	const struct mmc_diff_range *r = &res->ranges[range];

	for (size_t i = 0; i < r->nfields; i++)
		if (!strcmp(r->fields[i].name, name))
			return r->fields[i].pages;
	return 0;
}

static void dump(const struct mmc_diff_result *res)
{
	size_t i, j;

	tap_diag("verdict %s: compared %llu differing %llu unreadable %llu not_init %llu",
		 mmc_verdict_name(res->verdict), (unsigned long long)res->pages_compared,
		 (unsigned long long)res->pages_differing,
		 (unsigned long long)res->pages_unreadable,
		 (unsigned long long)res->pages_not_init);
	for (i = 0; i < res->nranges; i++) {
		const struct mmc_diff_range *r = &res->ranges[i];

		tap_diag("  range [0x%llx,0x%llx) %s vframes %llu", (unsigned long long)r->start_pfn,
			 (unsigned long long)r->end_pfn, mmc_verdict_name(r->verdict),
			 (unsigned long long)r->vframes_differing);
		for (j = 0; j < r->nfields; j++)
			tap_diag("    %s: %llu", r->fields[j].name,
				 (unsigned long long)r->fields[j].pages);
	}
	for (i = 0; i < res->ngroups && i < 6; i++)
		tap_diag("  group 0x%llx..0x%llx (%llu) %s",
			 (unsigned long long)res->groups[i].first_pfn,
			 (unsigned long long)res->groups[i].last_pfn,
			 (unsigned long long)res->groups[i].npages, res->groups[i].fields);
	for (i = 0; i < res->npgmap_diffs; i++)
		tap_diag("  %s", res->pgmap_diffs[i]);
}

/* Build base + mutant, diff, check against the reference; returns result. */
static struct mmc_diff_result *run(const struct mut *m, const struct mmc_diff_opts *o)
{
	struct mmc_snapshot *a = build(0xffffea0000000000ULL, NULL);
	struct mmc_snapshot *b = build(0xffffd40000000000ULL, m);	/* another boot */
	struct mmc_diff_result *res;
	struct ref x = reference(a, b);
	uint64_t gsum = 0;

	die(mmc_diff(a, b, o, &res));
	for (size_t i = 0; i < res->ngroups; i++)
		gsum += res->groups[i].npages;
	tap_ok(res->pages_compared == x.compared && res->pages_unreadable == x.unreadable &&
	       res->pages_not_init == x.not_init &&
	       (m && m->drop_range2 ? true : res->pages_differing == x.differing) &&
	       (res->groups_total > res->ngroups || m->drop_range2 ||
		gsum == res->pages_differing),
	       "%s: matches the page-by-page reference (compared %llu/%llu, differing %llu/%llu, unreadable %llu/%llu)",
	       m->name, (unsigned long long)res->pages_compared,
	       (unsigned long long)x.compared, (unsigned long long)res->pages_differing,
	       (unsigned long long)x.differing, (unsigned long long)res->pages_unreadable,
	       (unsigned long long)x.unreadable);
	dump(res);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
	return res;
}

/* ---- mutations ---- */
#define TAIL5 (R1_START + 512 + 5)
static void m_one_tail(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn == TAIL5)
		r->slot[6] = raw(0x1ffffffffULL);
}
static void m_null_self(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn == R2_START + 100)
		r->slot[2] = nv(MMC_V_SELF, 8, 0, 0x1234);
}
static void m_delta(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn == TAIL5)
		r->slot[1].v = -6;
}
static void m_pgmap_idx(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn == R2_START + 200)
		r->slot[1].v = 0;
}
static void m_shift(size_t i, struct mmc_spgmap *pg)
{
	if (i == 0)
		pg->vmemmap_shift = 0;
}
static void m_unreadable(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn == R2_START + 300)
		r->state = MMC_PS_UNREADABLE;
}
static void m_unreadable_and_diff(uint64_t pfn, struct mmc_nrec *r)
{
	m_unreadable(pfn, r);
	m_one_tail(pfn, r);
}
static void m_no_reserved(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R1_START && pfn < R1_START + R1_PAGES && (pfn - R1_START) % 512)
		r->slot[0] = raw((uint64_t)r->slot[0].v & ~PG_RESERVED);
}
static void m_zone(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn == R2_START + 50)
		r->slot[0] = raw(((uint64_t)r->slot[0].v & ~(7ULL << 61)) | (2ULL << 61));
}
static void m_vframe(unsigned int range, uint64_t i, struct mmc_vframe *vf)
{
	if (range == 0 && i % 8 >= 2)
		vf->share_back = 0;
}
static void m_all_tails_ref(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R1_START && pfn < R1_START + R1_PAGES && (pfn - R1_START) % 512 >= 3)
		r->slot[6] = raw(0x1ffffffffULL);
}
static void m_index_ramp(uint64_t pfn, struct mmc_nrec *r)
{
	/* a's index is 5 everywhere in range 2; b's grows by one: equal at 500 */
	if (pfn >= R2_START + 8)
		r->slot[4] = raw(pfn - R2_START - 495);
}
static void m_role(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R2_START + 8 && pfn < R2_START + 16)
		r->role = MMC_ROLE_ALTMAP;
	if (pfn == R2_START + 2)
		r->state = MMC_PS_READ;
}

/* heads of the second half point at another object than the first half */
static void m_obj_split(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn >= R1_START + R1_PAGES / 2 && pfn < R1_START + R1_PAGES &&
	    (pfn - R1_START) % 512 == 0)
		r->slot[5].v = 7;
}

/* every object number shifted, as when the other image read fewer pages
 * earlier: the pairing makes them equal */
static void m_obj_shift(uint64_t pfn, struct mmc_nrec *r)
{
	if (r->slot[5].cls == MMC_V_OBJ)
		r->slot[5].v += 5;
}

/* one head's object number far past anything its image's pages can hold
 * (found by fuzz_snapshot: diff allocated a pairing table that big) */
static void m_obj_huge(uint64_t pfn, struct mmc_nrec *r)
{
	if (pfn == R1_START + 512)
		r->slot[5].v = (int64_t)1 << 31;
}

static void m_obj_shift_pg(size_t i, struct mmc_spgmap *pg)
{
	pg->ops.v += 5;
}

static int has_pgdiff(const struct mmc_diff_result *res, const char *s)
{
	for (size_t i = 0; i < res->npgmap_diffs; i++)
		if (strstr(res->pgmap_diffs[i], s))
			return 1;
	return 0;
}

/* 100 GiB range: identical 4K pages, or 2M compound pages. */
static struct mmc_snapshot *big(uint64_t vbase, bool compound, bool mutate)
{
	struct mmc_snapshot *s;
	struct mmc_geom g;
	struct mmc_spgmap pg;
	struct mmc_srange r;
	struct mmc_nrec rec;
	uint64_t p, n = 100ULL << 18;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(&layout, &g, "big", "test", &s));
	memset(&pg, 0, sizeof(pg));
	die(mmc_snapshot_add_pgmap(s, &pg));
	memset(&r, 0, sizeof(r));
	r.start_pfn = R1_START;
	r.end_pfn = R1_START + n;
	die(mmc_snapshot_begin_range(s, &r));
	if (!compound) {
		struct mmc_nrec zero;

		pair_image_rec(vbase, R2_START + 100, true, &rec);
		memset(&zero, 0, sizeof(zero));
		zero.nslots = rec.nslots;
		/* a split at an odd place, so the two images' runs differ */
		die(mmc_snapshot_append_run(s, &rec, &zero, vbase & 0x10000000000ULL ? 1000 : 7777));
		die(mmc_snapshot_append_run(s, &rec, &zero, 77));
		die(mmc_snapshot_append_run(s, &rec, &zero,
					    n - 77 - (vbase & 0x10000000000ULL ? 1000 : 7777)));
	} else {
		/* whole runs per compound page (the encoder itself is tested
		 * on 26 M pages in test_snapshot): head, page[1], page[2],
		 * then 509 tails whose compound_head delta falls by one */
		for (p = r.start_pfn; p < r.end_pfn; p += 512) {
			struct mmc_nrec stride;
			uint64_t k;

			for (k = 0; k < 4; k++) {
				pair_image_rec(vbase, R1_START + k, true, &rec);
				if (k)
					rec.slot[1].raw = vbase + p * 64 + 1;
				if (mutate)
					m_all_tails_ref(R1_START + k, &rec);
				memset(&stride, 0, sizeof(stride));
				stride.nslots = rec.nslots;
				if (k == 3)
					stride.slot[1].v = -1;
				die(mmc_snapshot_append_run(s, &rec, &stride,
							    k == 3 ? 509 : 1));
			}
		}
	}
	{
		struct mmc_vframe vf = { .kind = MMC_VF_DEVICE };

		for (p = 0; p < n * 64 / 4096; p++) {
			vf.dev_off = (int64_t)p;
			die(mmc_snapshot_append_vframe(s, &vf));
		}
	}
	die(mmc_snapshot_end_range(s));
	return s;
}

/* Few pages and groups listed, for the cases that check the lists. */
static const struct mmc_diff_opts few_pages = { .max_pages = 5, .max_groups = 50 };

/* slot 6 of a tail is "_mapcount+_refcount": the mutants change only
 * _refcount, and diff names just the half that differs */
static const char refcount_field[] = "_refcount";

/* One range of never-initialised pages (altmap reserve) on both sides:
 * nothing compared, so never "identical". */
static void test_nothing_compared(void)
{
	struct mmc_snapshot *s[2];
	struct mmc_diff_result *res = NULL;
	struct mmc_geom g;

	mmc_test_geom(&g);
	for (int k = 0; k < 2; k++) {
		struct mmc_spgmap pg = { .type = 4, .nr_range = 1, .has_altmap = true };
		struct mmc_srange r = { .start_pfn = R2_START, .end_pfn = R2_START + 4,
					.reserve_start = R2_START, .reserve_end = R2_START + 4 };
		struct mmc_nrec rec;
		struct mmc_vframe vf = { .kind = MMC_VF_RAM, .paddr = 0x1000 };

		snprintf(pg.type_name, sizeof(pg.type_name), "MEMORY_DEVICE_GENERIC");
		die(mmc_snapshot_create(&layout, &g, "t", "test", &s[k]));
		die(mmc_snapshot_add_pgmap(s[k], &pg));
		die(mmc_snapshot_begin_range(s[k], &r));
		memset(&rec, 0, sizeof(rec));
		rec.state = MMC_PS_NOT_INIT;
		rec.role = MMC_ROLE_RESERVE;
		rec.nslots = 8;
		for (int i = 0; i < 4; i++)
			die(mmc_snapshot_append(s[k], &rec));
		die(mmc_snapshot_append_vframe(s[k], &vf));
		die(mmc_snapshot_end_range(s[k]));
	}
	die(mmc_diff(s[0], s[1], NULL, &res));
	tap_ok(res->verdict == MMC_INCOMPLETE && res->pages_compared == 0 &&
	       res->pages_not_init == 4 && !res->no_ranges,
	       "a range with no page to compare: incomplete, not identical");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(s[0]);
	mmc_snapshot_destroy(s[1]);
}

/* Two boots of one image, and other run boundaries: identical. */
static void test_identical(void)
{
	struct mmc_diff_result *res;

	{
		struct mut m = { .name = "identical" };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_IDENTICAL && res->pages_differing == 0 &&
		       res->pages_compared == R1_PAGES + R2_PAGES - 8 &&
		       res->pages_not_init == 8 && !res->npgmap_diffs && !res->ngroups,
		       "identical images (different boots) -> identical");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "identical, other run boundaries", .split_runs = true };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_IDENTICAL, "misaligned runs of equal records -> identical");
		mmc_diff_result_destroy(res);
	}
}

/* One slot of one page differs: the field, the pfn and its group named. */
static void test_one_slot(void)
{
	struct mmc_diff_result *res;
	char l1[48];

	{
		struct mut m = { .name = "one tail refcount", .page = m_one_tail };

		res = run(&m, &few_pages);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 1 &&
		       field(res, 0, refcount_field) == 1 && res->ranges[0].nfields == 1 &&
		       res->npages == 1 && res->pages[0].pfn == TAIL5 &&
		       res->pages[0].tail_index == 3 && res->pages[0].slot_mask == 1u << 6 &&
		       res->ngroups == 1 && res->groups[0].first_pfn == TAIL5 &&
		       res->groups[0].last_pfn == TAIL5 && !strcmp(res->groups[0].fields, refcount_field),
		       "one slot in one tail -> field '%s', pfn, group", refcount_field);
		tap_ok(res->ranges[0].verdict == MMC_DIFFERENT &&
		       res->ranges[1].verdict == MMC_IDENTICAL, "per-range verdicts");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "NULL vs SELF", .page = m_null_self };

		mmc_slot_label_of(&layout, MMC_RANGE_PGMAP, 2, 0, l1, sizeof(l1));
		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 1 &&
		       field(res, 1, l1) == 1 && res->npages == 1 &&
		       res->pages[0].a.slot[2].cls == MMC_V_NULL &&
		       res->pages[0].b.slot[2].cls == MMC_V_SELF,
		       "NULL vs SELF -> field '%s'", l1);
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "PAGE delta", .page = m_delta };

		mmc_slot_label_of(&layout, MMC_RANGE_PGMAP, 1, 3, l1, sizeof(l1));
		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 1 &&
		       field(res, 0, l1) == 1 && !strcmp(l1, "compound_head"),
		       "compound_head delta -5 vs -6 -> field '%s'", l1);
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "pgmap index", .page = m_pgmap_idx };

		mmc_slot_label_of(&layout, MMC_RANGE_PGMAP, 1, 0, l1, sizeof(l1));
		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 1 &&
		       field(res, 1, l1) == 1, "pgmap index 1 vs 0 -> field '%s'", l1);
		mmc_diff_result_destroy(res);
	}
}

/* pgmap fields, unreadable pages and a range only one image has. */
static void test_pgmaps_unreadable_ranges(void)
{
	struct mmc_diff_result *res;

	{
		struct mut m = { .name = "pgmap vmemmap_shift", .pgmap = m_shift };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 0 &&
		       res->npgmap_diffs == 1 && has_pgdiff(res, "pgmap#0 vmemmap_shift: 9 vs 0"),
		       "pgmap field -> pgmap_diffs");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "unreadable", .page = m_unreadable };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_INCOMPLETE && res->pages_unreadable == 1 &&
		       res->ranges[1].unreadable_b == 1 && res->ranges[1].unreadable_a == 0 &&
		       res->ranges[1].verdict == MMC_INCOMPLETE,
		       "one unreadable page -> incomplete");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "unreadable + diff", .page = m_unreadable_and_diff };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT, "unreadable page and a difference -> different");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "range missing", .drop_range2 = true };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT && res->nranges == 2 &&
		       res->ranges[1].b_index == -1 && res->ranges[1].start_pfn == R2_START &&
		       res->ranges[1].verdict == MMC_DIFFERENT &&
		       field(res, 1, "(range only in a)") == R2_PAGES &&
		       has_pgdiff(res, "pgmap#1 of a") && has_pgdiff(res, "pgmap#1 of b") &&
		       res->ranges[0].verdict == MMC_IDENTICAL,
		       "range missing in b -> different, range reported");
		mmc_diff_result_destroy(res);
	}
}

/* Flag bits, vmemmap frames, strides, roles and states: the fields named. */
static void test_fields(void)
{
	struct mmc_diff_result *res;
	char l1[48];

	{
		struct mut m = { .name = "tails lose PG_reserved", .page = m_no_reserved };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT &&
		       field(res, 0, "flags.PG_reserved") == 8 * 510 &&
		       field(res, 0, "_flags_1.PG_reserved") == 8 && res->ranges[0].nfields == 2,
		       "flags bit split: flags.PG_reserved on %llu tails, _flags_1.PG_reserved on page[1]",
		       (unsigned long long)field(res, 0, "flags.PG_reserved"));
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "zone", .page = m_zone };

		res = run(&m, NULL);
		tap_ok(field(res, 1, "flags.zone") == 1 && res->ranges[1].nfields == 1,
		       "zone bits -> flags.zone");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "vframe sharing", .vframe = m_vframe };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 0 &&
		       res->ranges[0].vframes_differing == 8 * 6 &&
		       field(res, 0, "vmemmap_frame") == 8 * 6,
		       "vmemmap frame share_back -> vmemmap_frame");
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "every tail's refcount", .page = m_all_tails_ref };

		res = run(&m, &few_pages);
		tap_ok(res->pages_differing == 8 * 509 && field(res, 0, refcount_field) == 8 * 509 &&
		       res->npages == 5 && res->ngroups == 8 && res->groups[0].npages == 509,
		       "constant difference over runs: %llu pages, %zu groups",
		       (unsigned long long)res->pages_differing, res->ngroups);
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "index ramp crosses", .page = m_index_ramp };

		mmc_slot_label_of(&layout, MMC_RANGE_PGMAP, 4, 0, l1, sizeof(l1));
		res = run(&m, NULL);
		tap_ok(res->pages_differing == R2_PAGES - 8 - 1 &&
		       field(res, 1, l1) == R2_PAGES - 9 && res->ngroups == 2,
		       "strides differ: equal at one pfn only (%llu differ, 2 groups)",
		       (unsigned long long)res->pages_differing);
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "role and state", .page = m_role };

		res = run(&m, NULL);
		tap_ok(field(res, 1, "role") == 8 && field(res, 1, "state") == 1 &&
		       res->pages_not_init == 7, "role and state differences named");
		mmc_diff_result_destroy(res);
	}
}

/* Object numbers: paired one to one, shifts forgiven, wild ones refused. */
static void test_objects(void)
{
	struct mmc_diff_result *res;

	{
		struct mut m = { .name = "obj split", .page = m_obj_split };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == R1_PAGES / 512 / 2,
		       "heads pointing at a second object: different (%llu pages)",
		       (unsigned long long)res->pages_differing);
		mmc_diff_result_destroy(res);
	}
	{
		struct mut m = { .name = "obj shift", .page = m_obj_shift, .pgmap = m_obj_shift_pg };

		res = run(&m, NULL);
		tap_ok(res->verdict == MMC_IDENTICAL,
		       "object numbers shifted consistently: identical (%s)",
		       mmc_verdict_name(res->verdict));
		mmc_diff_result_destroy(res);
	}
	{
		struct mmc_snapshot *a = build(0xffffea0000000000ULL, NULL);
		struct mut m = { .name = "obj huge", .page = m_obj_huge };
		struct mmc_snapshot *b = build(0xffffd40000000000ULL, &m);
		struct mmc_error *err = mmc_diff(a, b, NULL, &res);

		tap_ok(err && err->code == MMC_ERR_CORRUPT && !res &&
		       strstr(err->message, "second image's object number 2147483648"),
		       "an object number beyond the image's pages: corrupt snapshot (%s)",
		       err ? err->message : "no error");
		mmc_error_destroy(err);
		mmc_snapshot_destroy(a);
		mmc_snapshot_destroy(b);
	}
}

/* Speed: 100 GiB, 26 M pages, order-0 and in 2M compound pages. */
static void test_speed(void)
{
	struct mmc_diff_result *res;
	struct timespec t0;
	double secs;

	{
		struct mmc_snapshot *a = big(0xffffea0000000000ULL, false, false);
		struct mmc_snapshot *b = big(0xffffd40000000000ULL, false, false);

		t0 = tap_cpu_start();
		die(mmc_diff(a, b, NULL, &res));
		secs = tap_cpu_since(&t0);
		tap_ok(res->verdict == MMC_IDENTICAL && res->pages_compared == 100ULL << 18 &&
		       secs < tap_cpu_limit(0.1), "26 M identical order-0 pages: identical in %.6f CPU s", secs);
		mmc_diff_result_destroy(res);
		mmc_snapshot_destroy(a);
		mmc_snapshot_destroy(b);
	}
	{
		struct mmc_snapshot *a, *b;

		t0 = tap_cpu_start();
		a = big(0xffffea0000000000ULL, true, false);
		b = big(0xffffd40000000000ULL, true, false);
		tap_diag("built 2 x 26 M compound pages in %.2f CPU s, %llu runs, %zu bytes",
			 tap_cpu_since(&t0), (unsigned long long)mmc_snapshot_nruns(a),
			 mmc_snapshot_mem_bytes(a));
		t0 = tap_cpu_start();
		die(mmc_diff(a, b, NULL, &res));
		secs = tap_cpu_since(&t0);
		tap_ok(res->verdict == MMC_IDENTICAL && res->pages_compared == 100ULL << 18 &&
		       secs < tap_cpu_limit(1.0), "26 M pages in 2M compound pages: identical in %.3f CPU s", secs);
		mmc_diff_result_destroy(res);
		mmc_snapshot_destroy(b);
		b = big(0xffffd40000000000ULL, true, true);
		t0 = tap_cpu_start();
		die(mmc_diff(a, b, NULL, &res));
		secs = tap_cpu_since(&t0);
		tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 51200ULL * 509 &&
		       secs < tap_cpu_limit(1.0) && res->groups_total == 51200,
		       "26 M pages, every tail's refcount differs: %llu pages in %.3f CPU s",
		       (unsigned long long)res->pages_differing, secs);
		mmc_diff_result_destroy(res);
		mmc_snapshot_destroy(a);
		mmc_snapshot_destroy(b);
	}
}

int main(void)
{
	if (mmc_test_layout_612(&layout))
		return 1;
	test_nothing_compared();
	test_identical();
	test_one_slot();
	test_pgmaps_unreadable_ranges();
	test_fields();
	test_objects();
	test_speed();
	mmc_test_layout_release(&layout);
	return tap_done();
}
