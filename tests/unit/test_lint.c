// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint on hand-built snapshots: raw struct pages as 6.12 / 7.2 write them
 * for a devdax pgmap of two 2 MiB compound pages, normalised by
 * the real normaliser, each mutated in one way that must yield exactly its
 * rule.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_fixture.h"
#include "lint.h"
#include "normalise.h"
#include "snapshot.h"
#include "tap.h"

#define START 0x100000ULL
#define NPAGES 1024ULL
#define ORDER 9
#define PGMAP0 0xffff888100000000ULL
#define PGMAP1 0xffff888100001000ULL
#define TAIL_MAPPING 0xdead000000000400ULL
#define PG_HEAD 6
#define PG_RESERVED 13

enum mut {
	M_NONE, M_TAIL_NONHEAD, M_TAIL_REFCOUNT, M_NR_PAGES, M_ORDER, M_PGMAP,
	M_RESERVED, M_ZONE, M_CYCLE, M_UNREADABLE, M_POISON, M_SHARE_BAD,
	M_SHARE_OK, M_MAPPED_REF2, M_UNMAPPED_REF2, M_FILL, M_NEG_REF,
};

struct kcfg {
	bool v72;
	const char *type;	/* pgmap type name */
	int64_t type_val;
	int head_ref;		/* refcount written on heads */
};

static uint64_t vaddr(const struct mmc_geom *g, uint64_t pfn)
{
	return g->vmemmap_base + pfn * g->struct_page_size;
}

static void put64(uint8_t *p, unsigned int off, uint64_t v)
{
	memcpy(p + off, &v, 8);
}

static void put32(uint8_t *p, unsigned int off, uint32_t v)
{
	memcpy(p + off, &v, 4);
}

/* The struct page of pfn as the kernel writes it (memmap_init_compound). */
static void build_page(const struct kcfg *k, const struct mmc_geom *g, uint64_t pfn,
		       uint8_t *p)
{
	uint64_t nr = 1ULL << ORDER, rel = pfn - START, head = START + rel / nr * nr;
	uint64_t i = pfn - head;
	uint64_t flags = (4ULL << 61) | (1ULL << PG_RESERVED);

	memset(p, 0, 64);
	if (i == 0) {
		put64(p, 0, flags | (1ULL << PG_HEAD));
		put64(p, 8, PGMAP0);
		put32(p, 48, 0xffffffff);
		put32(p, 52, (uint32_t)k->head_ref);
		return;
	}
	put64(p, 0, flags);
	put64(p, 8, vaddr(g, head) | 1);
	put64(p, 24, TAIL_MAPPING);
	put32(p, 48, 0xffffffff);
	put32(p, 52, 0);
	if (i == 1) {
		put64(p, 0, flags | ORDER);		/* _flags_1: order */
		put64(p, 16, ~0ULL);			/* large/entire (6.12) mapcount -1 */
		if (!k->v72) {
			put64(p, 24, 0);		/* _nr_pages_mapped, _pincount */
			put64(p, 32, nr);		/* _folio_nr_pages */
		} else {
			put64(p, 16, 0x00000000ffffffffULL);	/* large -1, nr_pages_mapped 0 */
			put64(p, 24, 0x00000000ffffffffULL);	/* entire -1, pincount 0 */
			put64(p, 32, ~0ULL);		/* _mm_id_mapcount[2] = -1 */
			put64(p, 40, 0);		/* _mm_ids */
		}
	}
	if (i == 2 && k->v72) {	/* _deferred_list keeps its self-pointers */
		put64(p, 16, vaddr(g, pfn) + 16);
		put64(p, 24, vaddr(g, pfn) + 16);
	}
}

static void mutate(enum mut m, const struct mmc_geom *g, uint64_t pfn, uint8_t *p)
{
	uint64_t v;

	switch (m) {
	case M_TAIL_NONHEAD:
		if (pfn == START + 5)
			put64(p, 8, vaddr(g, START + 3) | 1);
		break;
	case M_TAIL_REFCOUNT:
		if (pfn == START + 7)
			put32(p, 52, 1);
		break;
	case M_NR_PAGES:
		if (pfn == START + 1)
			put64(p, 32, 256);
		break;
	case M_ORDER:
		if (pfn == START + 513) {
			memcpy(&v, p, 8);
			put64(p, 0, (v & ~0xffULL) | 8);
			put64(p, 32, 256);
		}
		break;
	case M_PGMAP:
		if (pfn == START + 512)
			put64(p, 8, PGMAP1);
		break;
	case M_RESERVED:
		if (pfn == START + 9) {
			memcpy(&v, p, 8);
			put64(p, 0, v & ~(1ULL << PG_RESERVED));
		}
		break;
	case M_ZONE:
		if (pfn == START + 10) {
			memcpy(&v, p, 8);
			put64(p, 0, (v & ~(7ULL << 61)) | (2ULL << 61));
		}
		break;
	case M_CYCLE:
		if (pfn == START + 5)
			put64(p, 8, vaddr(g, START + 6) | 1);
		if (pfn == START + 6)
			put64(p, 8, vaddr(g, START + 5) | 1);
		break;
	case M_POISON:
		if (pfn == START + 11)
			put64(p, 40, 0xdead000000000100ULL);	/* LIST_POISON1 */
		break;
	case M_FILL:
		if (pfn == START + 12)
			put64(p, 32, 0x6b6b6b6b6b6b6b6bULL);
		break;
	case M_MAPPED_REF2:
		if (pfn == START) {
			put32(p, 48, 0);	/* mapcount 0: mapped once */
			put32(p, 52, 2);
		}
		break;
	case M_UNMAPPED_REF2:
		if (pfn == START)
			put32(p, 52, 2);
		break;
	case M_NEG_REF:
		if (pfn == START + 512)
			put32(p, 52, 0xffffff80);
		break;
	default:
		break;
	}
}

static struct mmc_snapshot *make(const struct kcfg *k, enum mut m)
{
	struct mmc_layout layout;
	struct mmc_geom geom;
	struct mmc_snapshot *snap = NULL;
	struct mmc_norm *norm = NULL;
	struct mmc_error *err;
	uint64_t kaddrs[2] = { PGMAP0, PGMAP1 };
	struct mmc_spgmap pg;
	struct mmc_srange r;

	if (k->v72 ? mmc_test_layout_72(&layout) : mmc_test_layout_612(&layout))
		return NULL;
	if (k->v72)
		mmc_test_geom_72(&geom);
	else
		mmc_test_geom(&geom);
	err = mmc_snapshot_create(&layout, &geom, "test", "test_lint", &snap);
	if (!err)
		err = mmc_norm_create(&layout, &geom, kaddrs, 2, &norm);
	for (int i = 0; i < 2 && !err; i++) {
		memset(&pg, 0, sizeof(pg));
		pg.kaddr = kaddrs[i];
		pg.type = k->type_val;
		snprintf(pg.type_name, sizeof(pg.type_name), "%s", k->type);
		pg.vmemmap_shift = ORDER;
		pg.nr_range = 1;
		err = mmc_snapshot_add_pgmap(snap, &pg);
	}
	memset(&r, 0, sizeof(r));
	r.start_pfn = START;
	r.end_pfn = START + NPAGES;
	r.vmemmap_start = vaddr(&geom, START);
	if (!err)
		err = mmc_snapshot_begin_range(snap, &r);
	for (uint64_t pfn = START; pfn < START + NPAGES && !err; pfn++) {
		uint8_t bytes[64];
		struct mmc_nrec rec;

		if (m == M_UNREADABLE && pfn >= START + 600 && pfn < START + 664) {
			memset(&rec, 0, sizeof(rec));
			rec.state = MMC_PS_UNREADABLE;
			rec.nslots = 8;
		} else {
			build_page(k, &geom, pfn, bytes);
			mutate(m, &geom, pfn, bytes);
			mmc_norm_page(norm, pfn, bytes, MMC_ROLE_DEVICE, &rec);
		}
		err = mmc_snapshot_append(snap, &rec);
	}
	for (uint64_t i = 0; i < NPAGES * 64 / 4096 && !err; i++) {
		struct mmc_vframe vf;

		memset(&vf, 0, sizeof(vf));
		vf.kind = MMC_VF_RAM;
		vf.paddr = 0x200000000ULL + i * 4096;
		if (m == M_SHARE_BAD && i == 9)
			vf.share_back = 8;	/* frame 9 (2nd compound) maps frame 1 (1st) */
		if (m == M_SHARE_OK && i >= 2 && i < 8)
			vf.share_back = (int64_t)i - 1;	/* all map frame 1 */
		if (m == M_UNREADABLE && i == 9)
			vf.kind = MMC_VF_UNREADABLE;
		err = mmc_snapshot_append_vframe(snap, &vf);
	}
	if (!err)
		err = mmc_snapshot_end_range(snap);
	mmc_norm_destroy(norm);
	mmc_test_layout_release(&layout);
	if (err) {
		tap_diag("building snapshot: %s", err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
		return NULL;
	}
	return snap;
}

static uint64_t rule_pages(const struct mmc_lint_result *res, const char *rule)
{
	for (size_t i = 0; i < res->nrules; i++)
		if (strcmp(res->rules[i].rule, rule) == 0)
			return res->rules[i].pages;
	return 0;
}

static void dump(const struct mmc_lint_result *res)
{
	for (size_t i = 0; i < res->nviolations; i++)
		tap_diag("  %s range %zu pfn 0x%" PRIx64 " +%" PRIu64 ": %s",
			 res->violations[i].rule, res->violations[i].range,
			 res->violations[i].pfn, res->violations[i].npages,
			 res->violations[i].message);
}

/* Lint a mutated snapshot: exactly `rule` (or nothing if NULL) on `pages`
 * pages starting at `pfn`. */
static void expect(const struct kcfg *k, enum mut m, const char *what,
		   const char *rule, uint64_t pfn, uint64_t pages)
{
	struct mmc_snapshot *snap = make(k, m);
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;
	bool ok;

	if (!snap) {
		tap_ok(0, "%s: snapshot built", what);
		return;
	}
	err = mmc_lint(snap, NULL, &res);
	if (err) {
		tap_ok(0, "%s: mmc_lint: %s", what, err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
		return;
	}
	tap_ok(res->pages_checked == NPAGES, "%s: %" PRIu64 " pages checked", what,
	       res->pages_checked);
	if (!rule) {
		ok = tap_ok(res->violations_total == 0 && res->nrules == 0 && !res->incomplete,
			    "%s: clean (%" PRIu64 " violations)", what, res->violations_total);
	} else {
		uint64_t grouped = 0;

		for (size_t i = 0; i < res->nviolations; i++)
			grouped += res->violations[i].npages;
		ok = tap_ok(res->nrules == 1 && rule_pages(res, rule) == pages &&
			    res->nviolations >= 1 && res->violations[0].pfn == pfn &&
			    grouped == pages && strcmp(res->violations[0].rule, rule) == 0 &&
			    res->incomplete == (strcmp(rule, "unreadable") == 0),
			    "%s: exactly rule %s on %" PRIu64 " pages at 0x%" PRIx64,
			    what, rule, pages, pfn);
	}
	if (!ok)
		dump(res);
	mmc_lint_result_destroy(res);
	mmc_snapshot_destroy(snap);
}

int main(void)
{
	const struct kcfg k612 = { false, "MEMORY_DEVICE_GENERIC", 4, 1 };
	const struct kcfg k72 = { true, "MEMORY_DEVICE_GENERIC", 4, 1 };
	const struct kcfg k72fs0 = { true, "MEMORY_DEVICE_FS_DAX", 3, 0 };
	const struct kcfg k72fs1 = { true, "MEMORY_DEVICE_FS_DAX", 3, 1 };
	const struct kcfg k612fs1 = { false, "MEMORY_DEVICE_FS_DAX", 3, 1 };
	const struct kcfg k612priv0 = { false, "MEMORY_DEVICE_PRIVATE", 1, 0 };
	const struct kcfg k612priv1 = { false, "MEMORY_DEVICE_PRIVATE", 1, 1 };

	expect(&k612, M_NONE, "6.12 devdax 2M", NULL, 0, 0);
	expect(&k72, M_NONE, "7.2 devdax 2M", NULL, 0, 0);
	expect(&k72fs0, M_NONE, "7.2 fsdax refcount 0", NULL, 0, 0);
	expect(&k612fs1, M_NONE, "6.12 fsdax refcount 1", NULL, 0, 0);
	expect(&k612priv0, M_NONE, "6.12 private refcount 0", NULL, 0, 0);
	expect(&k612, M_SHARE_OK, "vmemmap shared inside one compound page", NULL, 0, 0);
	expect(&k612, M_MAPPED_REF2, "mapped head refcount 2", NULL, 0, 0);

	expect(&k612, M_TAIL_NONHEAD, "tail to a non-head", "tail-head", START + 5, 1);
	expect(&k612, M_CYCLE, "compound_head cycle", "head-cycle", START + 5, 2);
	expect(&k612, M_TAIL_REFCOUNT, "tail refcount 1", "refcount", START + 7, 1);
	expect(&k612, M_NR_PAGES, "wrong _folio_nr_pages", "order", START, 1);
	expect(&k612, M_PGMAP, "head with another pgmap", "pgmap", START + 512, 1);
	expect(&k612, M_RESERVED, "PG_reserved cleared", "reserved", START + 9, 1);
	expect(&k72, M_RESERVED, "7.2 PG_reserved cleared", "reserved", START + 9, 1);
	expect(&k612, M_ZONE, "zone bits wrong", "zone", START + 10, 1);
	expect(&k612, M_UNREADABLE, "64 pages unreadable", "unreadable", START + 600, 64);
	expect(&k612, M_POISON, "LIST_POISON1 in private", "poison", START + 11, 1);
	expect(&k612, M_FILL, "0x6b fill in index", "poison", START + 12, 1);
	expect(&k612, M_SHARE_BAD, "vmemmap shared across compound pages",
	       "vmemmap-share", START + 9 * 64, 64);
	expect(&k612, M_UNMAPPED_REF2, "unmapped head refcount 2", "refcount", START, 1);
	expect(&k612, M_NEG_REF, "negative refcount", "refcount", START + 512, 1);
	expect(&k72fs1, M_NONE, "7.2 fsdax refcount 1 on unmapped heads", "refcount", START, 2);
	expect(&k612priv1, M_NONE, "6.12 private refcount 1", "refcount", START, 2);

	/* Wrong order: the head breaks "order" and the tails beyond its
	 * (wrong) end break "tail-head"; check both are named. */
	{
		struct mmc_snapshot *snap = make(&k612, M_ORDER);
		struct mmc_lint_result *res = NULL;
		struct mmc_error *err = snap ? mmc_lint(snap, NULL, &res) : NULL;

		if (snap && !err) {
			tap_ok(rule_pages(res, "order") == 1, "order 8 in page[1]: order on the head");
			tap_ok(rule_pages(res, "tail-head") == 256,
			       "order 8 in page[1]: 256 tails outside the compound page (%" PRIu64 ")",
			       rule_pages(res, "tail-head"));
			mmc_lint_result_destroy(res);
		} else {
			tap_ok(0, "order 8: lint ran");
		}
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
	}
	/* max_groups caps the kept groups, not the counts. */
	{
		struct mmc_snapshot *snap = make(&k612, M_CYCLE);
		struct mmc_lint_opts o = { .max_groups = 1 };
		struct mmc_lint_result *res = NULL;
		struct mmc_error *err = snap ? mmc_lint(snap, &o, &res) : NULL;

		tap_ok(snap && !err && res->nviolations == 1 && res->violations_total == 2,
		       "max_groups 1 keeps one group and counts every page");
		mmc_lint_result_destroy(res);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
	}
	return tap_done();
}
