/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lint_hugetlb's images, built by hand from what 6.12.117 and 7.2.8
 * write: one range of four 2 MiB folios of one hstate (two free and
 * optimised by HVO, one active and optimised, one free and plain), built
 * as prep_compound_page(), prep_compound_head() and
 * init_new_hugetlb_folio() leave them (mm/page_alloc.c, mm/internal.h,
 * mm/hugetlb.c), their vmemmap as __hugetlb_vmemmap_optimize_folio() maps
 * it (6.12: every tail vmemmap page onto the folio's own head frame copy,
 * read-only, so struct page 64k+j reads struct page j; 7.2: onto one
 * zone-wide page of tails, read-only); and the 512 memmap pfns of an
 * online block as mhp_init_memmap_on_memory() leaves them
 * (memmap_init_range(), then PG_vmemmap_self_hosted).  Struct pages are
 * written at the fixture layouts' offsets and normalised by the real
 * normaliser, as the walker would read them through the vmemmap.  make()
 * builds the image with one mutation (enum mut) applied.
 */
#ifndef MMC_TEST_LINT_HUGETLB_FIXTURE_H
#define MMC_TEST_LINT_HUGETLB_FIXTURE_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "layout_fixture.h"
#include "lint.h"
#include "normalise.h"
#include "snapshot.h"
#include "tap.h"

#define H 0x100000ULL		/* the HugeTLB range: 4 folios of order 9 */
#define ORDER 9
#define NR (1ULL << ORDER)
#define NFOLIOS 4
#define PER 64			/* struct pages per vmemmap page */
#define NV (NR / PER)		/* vmemmap pages per folio */
#define P 0x200000ULL		/* the hot-plugged block's first pfn */
#define PLUG 512ULL		/* its self-hosted memmap pfns */
#define FRAME 0x40000000ULL	/* vmemmap frames */
#define ZONE_TAIL (FRAME + 0x1000000ULL)	/* 7.2's zone tail page */
#define OTHER_FRAME (FRAME + 0x2000000ULL)
#define LIST_OBJ 0xffffffff82a00100ULL	/* an hstate's list head */
#define MAPPING_OBJ 0xffff888100002000ULL
#define TAIL_MAPPING 0xdead000000000400ULL
#define LIST_POISON1 0xdead000000000100ULL
#define LIST_POISON2 0xdead000000000122ULL
#define ZONE_NORMAL 2
#define ZONE_DMA32 1
#define PGTY_HUGETLB 0xf4

enum mut {
	M_NONE, M_TAIL_MAPPING, M_RESTORED, M_WRONG_HEAD, M_TAIL_RW, M_NOT_SHARED,
	M_PLAIN_SHARES, M_HEAD_RO, M_OTHER_FRAME, M_HEAD_TYPE, M_FREE_REF, M_ACTIVE_REF0,
	M_ACTIVE_FREED, M_FREE_NODE, M_TAIL_ZONE, M_HVO_SELF_HOSTED, M_NO_SELF_HOSTED,
	M_ONE_SELF_HOSTED, M_PLUG_FLAG, M_PLUG_NODE, M_PLUG_NO_NID, M_NO_PAGETYPE, M_VM_UNKNOWN,
	M_PLUG_POISON,
};

struct fix {
	bool v72;
	enum mut m;
	struct mmc_layout layout;
	struct mmc_geom geom;
};

/* Folio k: its list and whether HVO optimised it. */
static const struct {
	uint8_t list, vm;
} folios[NFOLIOS] = {
	{ MMC_FOLIO_FREE, MMC_FVM_OPTIMISED }, { MMC_FOLIO_FREE, MMC_FVM_OPTIMISED },
	{ MMC_FOLIO_ACTIVE, MMC_FVM_OPTIMISED }, { MMC_FOLIO_FREE, MMC_FVM_PLAIN },
};

static inline uint64_t vaddr(const struct fix *f, uint64_t pfn)
{
	return f->geom.vmemmap_base + pfn * f->geom.struct_page_size;
}

/* Member id of page[k] of a folio (offsets count from the head). */
static inline void put(const struct fix *f, uint8_t *p, enum mmc_member_id id, unsigned int k,
		       uint64_t v)
{
	const struct mmc_member *m = &f->layout.member[id];
	uint32_t size = m->size > 8 ? 8 : m->size;

	if (!m->found)
		return;
	le_put(p + m->offset - k * f->geom.struct_page_size, v, size);
}

static inline uint64_t enum_bit(const struct fix *f, enum mmc_enum_id e, const char *name)
{
	int64_t v = -1;

	mmc_layout_enum_value(&f->layout, e, name, &v);
	return v >= 0 ? 1ULL << v : 0;
}

static inline uint64_t links(const struct fix *f, uint32_t zone, uint32_t node)
{
	return (uint64_t)zone << f->geom.zones_pgshift | (uint64_t)node << f->geom.nodes_pgshift;
}

static inline bool optimised(const struct fix *f, unsigned int k)
{
	if (f->m == M_NOT_SHARED && k == 1)
		return true;	/* flagged, and its frames its own: below */
	return folios[k].vm == MMC_FVM_OPTIMISED;
}

/* A folio of the fixture (k: folios[], for its mutations) or of the big
 * pool (k -1). */
struct folio_at {
	uint64_t head;
	unsigned int order;
	bool active, opt;
	int k;
};

static inline struct folio_at small(const struct fix *f, unsigned int k)
{
	struct folio_at a = { H + k * NR, ORDER, folios[k].list == MMC_FOLIO_ACTIVE,
			      optimised(f, k), (int)k };

	return a;
}

/* prep_compound_head() on page[1] and page[2] (7.2 with CONFIG_MM_ID),
 * init_new_hugetlb_folio() on page[3]. */
static inline void folio_fields(const struct fix *f, const struct folio_at *a, uint64_t idx,
				uint8_t *p)
{
	uint64_t mc = a->active ? 0 : 0xffffffff;	/* mapped once */

	if (idx == 1) {
		put(f, p, MMC_PAGE_FLAGS, 0, links(f, ZONE_NORMAL, 0) | a->order);
		put(f, p, MMC_FOLIO_NR_PAGES, 1, 1ULL << a->order);
		put(f, p, MMC_FOLIO_LARGE_MAPCOUNT, 1, mc);
		put(f, p, MMC_FOLIO_ENTIRE_MAPCOUNT, 1, mc);
		put(f, p, MMC_FOLIO_NR_PAGES_MAPPED, 1, 0);
		put(f, p, MMC_FOLIO_PINCOUNT, 1, 0);
		put(f, p, MMC_FOLIO_MM_ID_MAPCOUNT, 1, ~0ULL);
		put(f, p, MMC_FOLIO_MM_IDS, 1, 0);
	} else if (idx == 2) {
		const struct mmc_member *dl = &f->layout.member[MMC_FOLIO_DEFERRED_LIST];
		uint64_t self = vaddr(f, a->head + 2) + dl->offset - 2 * f->geom.struct_page_size;

		le_put64(p + dl->offset - 2 * f->geom.struct_page_size, self);
		le_put64(p + dl->offset - 2 * f->geom.struct_page_size + 8, self);
	} else if (idx == 3) {
		/* subpool and cgroups NULL, over lru.prev, mapping and index
		 * (4eeec8c89a0c) */
		memset(p + 16, 0, 32);
	}
}

/* The head: PG_head, on a pool list, HPG flags, the hugetlb type. */
static inline void head_page(const struct fix *f, const struct folio_at *a, uint8_t *p)
{
	uint64_t hpg = (a->active ? 0 : enum_bit(f, MMC_ENUM_HUGETLB_PAGE_FLAGS, "HPG_freed")) |
		       (a->opt ? enum_bit(f, MMC_ENUM_HUGETLB_PAGE_FLAGS,
					  "HPG_vmemmap_optimized") : 0);
	uint32_t type = (uint32_t)PGTY_HUGETLB << 24;
	int ref = a->active ? 1 : 0;

	if (f->m == M_HEAD_TYPE && a->k == 2)
		type = 0xffffffff;
	if (f->m == M_FREE_REF && a->k == 1)
		ref = 1;
	if (f->m == M_ACTIVE_REF0 && a->k == 2)
		ref = 0;
	if (f->m == M_ACTIVE_FREED && a->k == 2)
		hpg |= enum_bit(f, MMC_ENUM_HUGETLB_PAGE_FLAGS, "HPG_freed");
	put(f, p, MMC_PAGE_FLAGS, 0, links(f, ZONE_NORMAL, 0) | enum_bit(f, MMC_ENUM_PAGEFLAGS, "PG_head"));
	le_put64(p + 8, LIST_OBJ);
	le_put64(p + 16, LIST_OBJ + 8);
	put(f, p, MMC_PAGE_MAPPING, 0, a->active ? MAPPING_OBJ : 0);
	put(f, p, MMC_PAGE_PRIVATE, 0, hpg);
	put(f, p, MMC_PAGE_MAPCOUNT, 0, type);
	put(f, p, MMC_PAGE_REFCOUNT, 0, (uint32_t)ref);
}

/* What the kernel wrote into struct page idx of folio a. */
static inline void real_page(const struct fix *f, const struct folio_at *a, uint64_t idx,
			     uint8_t *p)
{
	memset(p, 0, 64);
	put(f, p, MMC_PAGE_MAPCOUNT, 0, 0xffffffff);
	if (idx == 0) {
		head_page(f, a, p);
		return;
	}
	put(f, p, MMC_PAGE_FLAGS, 0, links(f, ZONE_NORMAL, 0));
	put(f, p, MMC_PAGE_COMPOUND_HEAD, 0,
	    f->v72 ? mmc_compound_info_mask(64, a->order) : vaddr(f, a->head) | 1);
	put(f, p, MMC_PAGE_MAPPING, 0, TAIL_MAPPING);
	/* a buddy block merged into the folio: list_del()'s LIST_POISON2 */
	if (a->k == 3 && idx == 5)
		le_put64(p + 16, LIST_POISON2);
	folio_fields(f, a, idx, p);
}

/* Whether folio k's tail vmemmap pages map the shared tail frame. */
static inline bool on_tail_frame(const struct fix *f, unsigned int k)
{
	return optimised(f, k) && !(f->m == M_NOT_SHARED && k == 1) &&
	       !(f->m == M_OTHER_FRAME && k == 0);
}

/* Which struct page of which folio the vmemmap shows at folio k's idx:
 * *src, or -1 for 7.2's zone tail page (a tail, of any folio). */
static inline int64_t shown(const struct fix *f, unsigned int k, uint64_t idx)
{
	uint64_t m = idx / PER, j = idx % PER;

	if (m == 0)
		return (int64_t)idx;
	if (f->m == M_RESTORED && k == 3 && j < 4)
		/* restore copied the head frame: 6.12.117 whole, 7.2 with
		 * hist-hvo-reset-nr3 (struct pages 0..2 from 3..5) */
		return f->v72 ? (j == 0 ? 3 : j == 3 ? 3 : (int64_t)(j + 3)) : (int64_t)j;
	if (f->m == M_PLAIN_SHARES && k == 3 && m >= 2)
		return (int64_t)(PER + j);
	if (f->m == M_OTHER_FRAME && k == 0)
		return (int64_t)(PER + j);	/* a frame holding page 1's tails */
	if (!on_tail_frame(f, k))
		return (int64_t)idx;
	return f->v72 ? -1 : (int64_t)j;
}

static inline void seen_page(const struct fix *f, uint64_t pfn, uint8_t *p)
{
	unsigned int k = (unsigned int)((pfn - H) / NR);
	uint64_t idx = (pfn - H) % NR;
	int64_t src = shown(f, k, idx);
	struct folio_at a = small(f, k);

	real_page(f, &a, src < 0 ? 4 : (uint64_t)src, p);
	if (f->m == M_TAIL_MAPPING && pfn == H + 3 * NR + 100)
		put(f, p, MMC_PAGE_MAPPING, 0, 0);
	if (f->m == M_WRONG_HEAD && pfn == H + 3 * NR + 10)
		put(f, p, MMC_PAGE_COMPOUND_HEAD, 0,
		    f->v72 ? mmc_compound_info_mask(64, ORDER - 1) : vaddr(f, H + NR) | 1);
	if (f->m == M_TAIL_ZONE && pfn == H + 3 * NR + 200)
		put(f, p, MMC_PAGE_FLAGS, 0, links(f, ZONE_DMA32, 0));
}

/* Vmemmap page i of the HugeTLB range. */
static inline void huge_vframe(const struct fix *f, uint64_t i, struct mmc_vframe *vf)
{
	unsigned int k = (unsigned int)(i / NV);
	uint64_t m = i % NV, own = FRAME + k * 0x10000 + m * 0x1000;

	memset(vf, 0, sizeof(*vf));
	vf->kind = MMC_VF_RAM;
	vf->prot = vf->prot_known = MMC_VPROT_WRITABLE;
	vf->leaf = MMC_VLEAF_PTE;
	vf->paddr = own;
	if (m == 0) {
		if (f->m == M_HEAD_RO && k == 0)
			vf->prot = 0;
		return;
	}
	if (f->m == M_PLAIN_SHARES && k == 3 && m >= 2) {
		vf->paddr = own - (m - 1) * 0x1000;
		vf->share_back = (int64_t)(m - 1);
		return;
	}
	if (f->m == M_OTHER_FRAME && k == 0) {
		vf->paddr = OTHER_FRAME;
		vf->share_back = (int64_t)(m - 1);
		vf->prot = 0;
		return;
	}
	if (!on_tail_frame(f, k))
		return;
	vf->prot = f->m == M_TAIL_RW ? MMC_VPROT_WRITABLE : 0;
	if (f->v72) {
		unsigned int first = 0;

		while (!on_tail_frame(f, first))
			first++;	/* the first folio mapping the zone's page */
		vf->paddr = ZONE_TAIL;
		vf->share_back = (int64_t)(i - (first * NV + 1));
	} else {
		vf->paddr = FRAME + k * 0x10000;
		vf->share_back = (int64_t)m;
	}
}

/* As the walker: a page in a vmemmap page that maps an earlier one's
 * frame is MMC_ROLE_SHARED. */
static inline enum mmc_page_role huge_role(const struct fix *f, uint64_t pfn)
{
	struct mmc_vframe vf;

	huge_vframe(f, (pfn - H) / PER, &vf);
	return vf.share_back > 0 ? MMC_ROLE_SHARED : MMC_ROLE_DEVICE;
}

/* mhp_init_memmap_on_memory()'s memmap pfn. */
static inline void plug_page(const struct fix *f, uint64_t pfn, uint8_t *p)
{
	uint64_t self = vaddr(f, pfn) + f->layout.member[MMC_PAGE_LRU].offset;
	bool other = (f->m == M_PLUG_NODE || f->m == M_PLUG_NO_NID) && pfn == P + 7;
	uint64_t fl = links(f, ZONE_NORMAL, other ? 1 : 0);

	memset(p, 0, 64);
	if (!(f->m == M_NO_SELF_HOSTED || (f->m == M_ONE_SELF_HOSTED && pfn == P + 5)))
		fl |= enum_bit(f, MMC_ENUM_PAGEFLAGS, "PG_vmemmap_self_hosted");
	if (f->m == M_PLUG_FLAG && pfn == P + 300)
		fl |= enum_bit(f, MMC_ENUM_PAGEFLAGS, "PG_dirty");
	put(f, p, MMC_PAGE_FLAGS, 0, fl);
	le_put64(p + 8, f->m == M_PLUG_POISON && pfn == P + 9 ? LIST_POISON1 : self);
	le_put64(p + 16, self);
	put(f, p, MMC_PAGE_MAPCOUNT, 0, 0xffffffff);
	put(f, p, MMC_PAGE_REFCOUNT, 0, 1);
}

static inline struct mmc_error *add_huge_range(const struct fix *f, struct mmc_snapshot *s,
					       struct mmc_norm *norm)
{
	struct mmc_srange r = { .start_pfn = H, .end_pfn = H + NFOLIOS * NR,
				.pgmap_index = MMC_NO_PGMAP, .kind = MMC_RANGE_HUGETLB,
				.owner = 0, .vmemmap_start = vaddr(f, H),
				.reserve_start = H, .reserve_end = H, .altmap_start = H,
				.altmap_end = H };
	struct mmc_error *err = mmc_snapshot_begin_range(s, &r);

	for (uint64_t pfn = H; pfn < r.end_pfn && !err; pfn++) {
		uint8_t bytes[64];
		struct mmc_nrec rec;

		seen_page(f, pfn, bytes);
		mmc_norm_page(norm, pfn, bytes, huge_role(f, pfn), &rec);
		err = mmc_snapshot_append(s, &rec);
	}
	for (uint64_t i = 0; i < NFOLIOS * NV && !err; i++) {
		struct mmc_vframe vf;

		huge_vframe(f, i, &vf);
		err = mmc_snapshot_append_vframe(s, &vf);
	}
	return err ? err : mmc_snapshot_end_range(s);
}

static inline struct mmc_error *add_plug_range(const struct fix *f, struct mmc_snapshot *s,
					       struct mmc_norm *norm)
{
	struct mmc_srange r = { .start_pfn = P, .end_pfn = P + PLUG,
				.pgmap_index = MMC_NO_PGMAP, .kind = MMC_RANGE_HOTPLUG,
				.owner = 1, .vmemmap_start = vaddr(f, P),
				.reserve_start = P, .reserve_end = P, .altmap_start = P,
				.altmap_end = P + PLUG };
	struct mmc_error *err = mmc_snapshot_begin_range(s, &r);

	for (uint64_t pfn = P; pfn < r.end_pfn && !err; pfn++) {
		uint8_t bytes[64];
		struct mmc_nrec rec;

		plug_page(f, pfn, bytes);
		mmc_norm_page(norm, pfn, bytes, MMC_ROLE_ALTMAP, &rec);
		err = mmc_snapshot_append(s, &rec);
	}
	for (uint64_t i = 0; i < PLUG * 64 / 4096 && !err; i++) {
		struct mmc_vframe vf = { .kind = MMC_VF_DEVICE, .prot = MMC_VPROT_WRITABLE,
					 .prot_known = MMC_VPROT_WRITABLE, .leaf = MMC_VLEAF_PMD,
					 .dev_off = (int64_t)i, .paddr = (P + i) << 12 };

		err = mmc_snapshot_append_vframe(s, &vf);
	}
	return err ? err : mmc_snapshot_end_range(s);
}

/* The pool and the blocks, as discovery would have read them. */
static inline struct mmc_error *add_pools(const struct fix *f, struct mmc_snapshot *s)
{
	struct mmc_shstate hs = { .order = ORDER, .flags = MMC_HSTATE_HVO, .nr = 4, .free = 3 };
	struct mmc_sfolios sp[3] = {
		{ .hstate = 0, .node = f->m == M_FREE_NODE ? 1 : 0, .start_pfn = H, .nfolios = 2,
		  .list = MMC_FOLIO_FREE,
		  .vmemmap = f->m == M_VM_UNKNOWN ? MMC_FVM_UNKNOWN : MMC_FVM_OPTIMISED },
		{ .hstate = 0, .start_pfn = H + 2 * NR, .nfolios = 1, .list = MMC_FOLIO_ACTIVE,
		  .vmemmap = MMC_FVM_OPTIMISED },
		{ .hstate = 0, .start_pfn = H + 3 * NR, .nfolios = 1, .list = MMC_FOLIO_FREE,
		  .vmemmap = MMC_FVM_PLAIN },
	};
	/* block 32 holds the pool's folios: offline here, memmap_on_memory
	 * only where M_HVO_SELF_HOSTED puts the folios on it */
	struct mmc_smemblock b[2] = {
		{ .id = H >> 15, .start_pfn = H, .end_pfn = H + 0x8000, .state = 2,
		  .flags = f->m == M_HVO_SELF_HOSTED ? MMC_MEMBLOCK_SELF_HOSTED : 0,
		  .altmap_pfns = f->m == M_HVO_SELF_HOSTED ? PLUG : 0 },
		{ .id = P >> 15, .start_pfn = P, .end_pfn = P + 0x8000, .state = 0,
		  .nid = f->m == M_PLUG_NO_NID ? UINT32_MAX : 0,
		  .flags = MMC_MEMBLOCK_SELF_HOSTED, .altmap_pfns = PLUG },
	};
	struct mmc_error *err;

	snprintf(hs.name, sizeof(hs.name), "hugepages-2048kB");
	err = mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", &hs, 1, sp, 3);
	return err ? err : mmc_snapshot_set_hotplug(s, MMC_READ_DONE, "", b, 2);
}

/* The kernel's enums the fixtures leave out: enum pagetype, enum
 * hugetlb_page_flags, PG_vmemmap_self_hosted (= PG_owner_priv_1). */
static inline int add_enums(struct mmc_layout *l, bool pagetype)
{
	static const struct mmc_test_enumerator pgty[] = {
		{ "PGTY_buddy", 0xf0 }, { "PGTY_offline", 0xf1 }, { "PGTY_table", 0xf2 },
		{ "PGTY_guard", 0xf3 }, { "PGTY_hugetlb", PGTY_HUGETLB }, { "PGTY_slab", 0xf5 },
		{ "PGTY_mapcount_underflow", 0xff },
	};
	static const struct mmc_test_enumerator hpg[] = {
		{ "HPG_restore_reserve", 0 }, { "HPG_migratable", 1 }, { "HPG_temporary", 2 },
		{ "HPG_freed", 3 }, { "HPG_vmemmap_optimized", 4 }, { "HPG_raw_hwp_unreliable", 5 },
	};
	struct mmc_enum *pf = &l->enums[MMC_ENUM_PAGEFLAGS];
	struct mmc_test_enumerator flags[64];
	size_t n = 0;
	int rc;

	if ((pagetype && mmc_test_enum(l, MMC_ENUM_PAGETYPE, pgty, sizeof(pgty) / sizeof(pgty[0]))) ||
	    mmc_test_enum(l, MMC_ENUM_HUGETLB_PAGE_FLAGS, hpg, sizeof(hpg) / sizeof(hpg[0])) ||
	    pf->count >= 63)
		return -1;
	/* the fixture's pageflags, and the alias (the fill functions size
	 * their arrays exactly: rebuild it) */
	for (; n < pf->count; n++) {
		flags[n].name = pf->values[n].name;
		flags[n].value = pf->values[n].value;
	}
	flags[n].name = "PG_vmemmap_self_hosted";
	flags[n++].value = 10;
	{
		struct mmc_enumerator *old = pf->values;
		size_t count = pf->count;

		rc = mmc_test_enum(l, MMC_ENUM_PAGEFLAGS, flags, n);
		for (size_t i = 0; i < count; i++)
			free(old[i].name);
		free(old);
	}
	return rc;
}

static inline struct mmc_snapshot *make(bool v72, enum mut m)
{
	static struct fix f;
	struct mmc_snapshot *snap = NULL;
	struct mmc_norm *norm = NULL;
	struct mmc_error *err;

	memset(&f, 0, sizeof(f));
	f.v72 = v72;
	f.m = m;
	if ((v72 ? mmc_test_layout_72(&f.layout) : mmc_test_layout_612(&f.layout)) ||
	    add_enums(&f.layout, m != M_NO_PAGETYPE))
		return NULL;
	if (v72)
		mmc_test_geom_72(&f.geom);
	else
		mmc_test_geom(&f.geom);
	err = mmc_snapshot_create(&f.layout, &f.geom, "test", "test_lint_hugetlb", &snap);
	if (!err)
		err = mmc_norm_create(&f.layout, &f.geom, NULL, 0, &norm);
	if (!err)
		err = add_pools(&f, snap);
	if (!err)
		err = add_huge_range(&f, snap, norm);
	if (!err)
		err = add_plug_range(&f, snap, norm);
	mmc_norm_destroy(norm);
	mmc_test_layout_release(&f.layout);
	if (err) {
		tap_diag("building snapshot: %s", err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
		return NULL;
	}
	return snap;
}

#endif
