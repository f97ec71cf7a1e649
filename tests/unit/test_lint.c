// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint on hand-built snapshots: the struct pages 6.1, 6.12 and 7.2 write
 * for a device-dax pgmap of two 2 MiB compound pages (struct pages in RAM,
 * tail vmemmap frames shared as vmemmap_populate_compound_pages() shares
 * them) and one with an altmap (reserve, memmap pfns, one compound page),
 * built from the kernel's own code (mm/mm_init.c memmap_init_compound(),
 * __init_zone_device_page(), memmap_init_range(); mm/internal.h
 * prep_compound_head()/_tail(); 6.1 mm/page_alloc.c), written at the
 * fixture layouts' offsets and normalised by the real normaliser.  Each
 * mutation breaks one kernel rule and must yield exactly that rule on
 * exactly the pages it broke; the unmutated images must be clean.  The
 * expectations come from the kernel sources, not from lint's output.
 */
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

#define START 0x100000ULL	/* range 0: map=mem, two compound pages */
#define START2 0x200000ULL	/* range 1: map=dev, altmap */
#define NPAGES 1024ULL
#define ORDER 9
#define NR (1ULL << ORDER)
#define ALTMAP_RESERVE 2
#define ALTMAP_END (START2 + 512)	/* memmap pfns [START2 + 2, START2 + 512) */
#define PGMAP0 0xffff888100000000ULL
#define PGMAP1 0xffff888100001000ULL
#define MAPPING_OBJ 0xffff888100002000ULL	/* an address_space */
#define ZDD_OBJ 0xffff888100003000ULL
#define TAIL_MAPPING 0xdead000000000400ULL
#define LIST_POISON1 0xdead000000000100ULL
#define FRAME_BASE 0x200000000ULL

enum ver { V61, V612, V72 };

struct kcfg {
	const char *name;
	enum ver ver;
	bool mask;		/* 7.x compound_info mask form (HVO) */
	const char *type;	/* pgmap type name */
	int64_t type_val;
	int head_ref;		/* refcount written on heads / order-0 pages */
};

enum mut {
	M_NONE, M_TAIL_NONHEAD, M_TAIL_STALE, M_NOT_TAIL, M_MASK_ORDER, M_CYCLE,
	M_NR_PAGES, M_ORDER, M_TAIL_PG_HEAD, M_MISALIGNED, M_HEAD_FRAME,
	M_SHARE_BAD, M_DAX_OUT, M_DAX_IN, M_FOLIO_PIN, M_FOLIO_PTR, M_FOLIO_MMID,
	M_FOLIO_MAPPED_BAD, M_DEFERRED, M_TAIL_REFCOUNT, M_UNMAPPED_REF2,
	M_NEG_REF, M_MAPPED_REF2, M_TAIL_MAPCOUNT, M_HEAD_MAPCOUNT, M_PGMAP,
	M_ZONE, M_NODE, M_RESERVED, M_TAIL_FLAGS, M_TAIL_MAPPING,
	M_TAIL_PRIVATE, M_INDEX, M_HEAD_INDEX, M_ZDD, M_MEMCG, M_ALTMAP_LRU,
	M_ALTMAP_LRU_MID, M_ALTMAP_REF0, M_POISON, M_FILL, M_UNREADABLE, M_ALIGNED_FIX,
	M_SHARE_RO, M_SHARE_RO_WRITABLE, M_RO_HEAD, M_RO_ORDER0, M_NO_PROT,
};

struct fix {
	const struct kcfg *k;
	struct mmc_layout layout;
	struct mmc_geom geom;
	uint64_t start;		/* range 0's first pfn */
	/* range 0's compound pages [first, end): the naturally aligned layout
	 * (fix-compound-natural-align.patch) puts order-0 pages around them */
	uint64_t first, end;
};

static uint64_t vaddr(const struct fix *f, uint64_t pfn)
{
	return f->geom.vmemmap_base + pfn * f->geom.struct_page_size;
}

/* Write member id (its size, little-endian) into the struct page p of
 * page[k] of a folio: offsets of folio members count from the head. */
static void put(const struct fix *f, uint8_t *p, enum mmc_member_id id, unsigned int k,
		uint64_t v)
{
	const struct mmc_member *m = &f->layout.member[id];
	uint32_t off = m->offset - k * f->geom.struct_page_size;
	uint32_t size = m->size > 8 ? 8 : m->size;

	if (!m->found)
		return;
	le_put(p + off, v, size);
}

static uint64_t get(const struct fix *f, const uint8_t *p, enum mmc_member_id id)
{
	const struct mmc_member *m = &f->layout.member[id];

	return le_get(p + m->offset, m->size > 8 ? 8 : m->size);
}

static uint64_t flagbit(const struct fix *f, const char *name)
{
	int64_t v = -1;

	mmc_layout_enum_value(&f->layout, MMC_ENUM_PAGEFLAGS, name, &v);
	return v >= 0 ? 1ULL << v : 0;
}

static uint64_t zone_device(const struct fix *f)
{
	int64_t z = 0;

	mmc_layout_enum_value(&f->layout, MMC_ENUM_ZONE_TYPE, "ZONE_DEVICE", &z);
	return (uint64_t)z << f->geom.zones_pgshift;
}

/* prep_compound_head() and the 6.1 equivalents on page[1] / page[2]. */
static void folio_fields(const struct fix *f, uint64_t pfn, uint64_t i, uint8_t *p)
{
	if (i == 1) {
		if (f->k->ver == V61) {
			put(f, p, MMC_FOLIO_DTOR, 1, 1);	/* COMPOUND_PAGE_DTOR */
			put(f, p, MMC_FOLIO_ORDER, 1, ORDER);
		} else {
			put(f, p, MMC_PAGE_FLAGS, 0, get(f, p, MMC_PAGE_FLAGS) | ORDER);
		}
		put(f, p, MMC_FOLIO_NR_PAGES, 1, NR);
		put(f, p, MMC_FOLIO_LARGE_MAPCOUNT, 1, 0xffffffff);
		put(f, p, MMC_FOLIO_ENTIRE_MAPCOUNT, 1, 0xffffffff);
		put(f, p, MMC_FOLIO_NR_PAGES_MAPPED, 1, 0);
		put(f, p, MMC_FOLIO_PINCOUNT, 1, 0);
		put(f, p, MMC_FOLIO_MM_ID_MAPCOUNT, 1, ~0ULL);
		put(f, p, MMC_FOLIO_MM_IDS, 1, 0);
	}
	/* 7.2 calls prep_compound_head() after the tail loop: page[2]'s
	 * _deferred_list stays an empty list.  6.12 calls it before page[2]
	 * is initialised: the tail's words win. */
	if (i == 2 && f->k->ver == V72) {
		const struct mmc_member *dl = &f->layout.member[MMC_FOLIO_DEFERRED_LIST];
		uint64_t self = vaddr(f, pfn) + dl->offset - 2 * f->geom.struct_page_size;

		put(f, p, MMC_FOLIO_DEFERRED_LIST, 2, self);
		memcpy(p + dl->offset - 2 * f->geom.struct_page_size + 8, &self, 8);
	}
}

/* What the kernel writes at pfn of range r. */
static void build_page(const struct fix *f, unsigned int r, uint64_t pfn, uint8_t *p)
{
	uint64_t flags = zone_device(f) | flagbit(f, "PG_reserved");
	uint64_t ds = r == 0 ? f->first : ALTMAP_END;
	uint64_t i = (pfn - ds) % NR, head = pfn - i;
	bool order0 = r == 0 && (pfn < f->first || pfn >= f->end);
	enum mmc_member_id pgmap_id = f->layout.member[MMC_PAGE_PGMAP].found ?
				      MMC_PAGE_PGMAP : MMC_FOLIO_PGMAP;

	memset(p, 0, 64);
	put(f, p, MMC_PAGE_MAPCOUNT, 0, 0xffffffff);
	if (r == 1 && pfn < ALTMAP_END) {
		/* memmap_init_range(): __init_single_page(), PG_reserved */
		uint64_t lru = vaddr(f, pfn) + f->layout.member[MMC_PAGE_LRU].offset;

		put(f, p, MMC_PAGE_FLAGS, 0, flags);
		memcpy(p + 8, &lru, 8);
		memcpy(p + 16, &lru, 8);
		put(f, p, MMC_PAGE_REFCOUNT, 0, 1);
		return;
	}
	if (i == 0 || order0) {
		put(f, p, MMC_PAGE_FLAGS, 0, flags | (order0 ? 0 : flagbit(f, "PG_head")));
		put(f, p, pgmap_id, 0, r == 0 ? PGMAP0 : PGMAP1);
		put(f, p, MMC_PAGE_REFCOUNT, 0, (uint32_t)f->k->head_ref);
		return;
	}
	put(f, p, MMC_PAGE_FLAGS, 0, flags);
	put(f, p, MMC_PAGE_COMPOUND_HEAD, 0,
	    f->k->mask ? mmc_compound_info_mask(64, ORDER) : vaddr(f, head) | 1);
	put(f, p, MMC_PAGE_MAPPING, 0, TAIL_MAPPING);
	put(f, p, MMC_PAGE_REFCOUNT, 0, 0);
	folio_fields(f, pfn, i, p);
}

static void mutate(const struct fix *f, enum mut m, uint64_t pfn, uint8_t *p)
{
	uint64_t s = f->start;

	switch (m) {
	case M_TAIL_NONHEAD:
		if (pfn == s + 5)
			put(f, p, MMC_PAGE_COMPOUND_HEAD, 0, vaddr(f, s + 3) | 1);
		break;
	case M_TAIL_STALE:
		if (pfn == s + 520)
			put(f, p, MMC_PAGE_COMPOUND_HEAD, 0, vaddr(f, s) | 1);
		break;
	case M_NOT_TAIL:
		if (pfn == s + 9)
			put(f, p, MMC_PAGE_COMPOUND_HEAD, 0, 0);
		break;
	case M_MASK_ORDER:
		if (pfn == s + 5)
			put(f, p, MMC_PAGE_COMPOUND_HEAD, 0, mmc_compound_info_mask(64, ORDER - 1));
		break;
	case M_CYCLE:
		if (pfn == s + 5)
			put(f, p, MMC_PAGE_COMPOUND_HEAD, 0, vaddr(f, s + 6) | 1);
		if (pfn == s + 6)
			put(f, p, MMC_PAGE_COMPOUND_HEAD, 0, vaddr(f, s + 5) | 1);
		break;
	case M_NR_PAGES:
		if (pfn == s + 1)
			put(f, p, MMC_FOLIO_NR_PAGES, 1, NR / 2);
		break;
	case M_ORDER:
		if (pfn == s + NR + 1) {
			if (f->k->ver == V61)
				put(f, p, MMC_FOLIO_ORDER, 1, ORDER - 1);
			else
				put(f, p, MMC_PAGE_FLAGS, 0,
				    (get(f, p, MMC_PAGE_FLAGS) & ~0xffULL) | (ORDER - 1));
			put(f, p, MMC_FOLIO_NR_PAGES, 1, NR / 2);
		}
		break;
	case M_TAIL_PG_HEAD:
		if (pfn == s + 7)
			put(f, p, MMC_PAGE_FLAGS, 0, get(f, p, MMC_PAGE_FLAGS) | flagbit(f, "PG_head"));
		break;
	case M_DAX_OUT:
	case M_DAX_IN:
	case M_MAPPED_REF2:
		/* dax_set_mapping() on the head; 6.1/6.12 map pfns without a
		 * page reference, 7.x takes one */
		if (pfn == (m == M_DAX_IN ? s + NR : s)) {
			put(f, p, MMC_PAGE_MAPPING, 0, MAPPING_OBJ);
			if (m == M_MAPPED_REF2)
				put(f, p, MMC_PAGE_REFCOUNT, 0, 2);
		}
		break;
	case M_FOLIO_PIN:
		if (pfn == s + 1)
			put(f, p, MMC_FOLIO_PINCOUNT, 1, 1);
		break;
	case M_FOLIO_PTR:
		/* _large_mapcount's word holds &page->lru (zdd-self mutant) */
		if (pfn == s + 1) {
			uint32_t o = (f->layout.member[MMC_FOLIO_LARGE_MAPCOUNT].offset -
				      f->geom.struct_page_size) & ~7u;
			uint64_t self = vaddr(f, pfn) + 8;

			memcpy(p + o, &self, 8);
		}
		break;
	case M_FOLIO_MMID:
		if (pfn == s + 1)
			put(f, p, MMC_FOLIO_MM_ID_MAPCOUNT, 1, 0xffffffff00000000ULL);
		break;
	case M_FOLIO_MAPPED_BAD:
		if (pfn == s + 1) {
			put(f, p, MMC_FOLIO_LARGE_MAPCOUNT, 1, 0);
			put(f, p, MMC_FOLIO_ENTIRE_MAPCOUNT, 1, 1);
		}
		break;
	case M_DEFERRED:
		if (pfn == s + 2) {
			const struct mmc_member *dl = &f->layout.member[MMC_FOLIO_DEFERRED_LIST];
			uint32_t o = dl->offset - 2 * f->geom.struct_page_size;

			uint64_t tm = TAIL_MAPPING, lru = vaddr(f, pfn) + 8;

			if (f->k->ver == V72) {	/* the tail's words: 6.12's order */
				memset(p + o, 0, 8);
				memcpy(p + o + 8, &tm, 8);
			} else {		/* lru's INIT_LIST_HEAD left over */
				memcpy(p + o, &lru, 8);
				memcpy(p + o + 8, &lru, 8);
			}
		}
		break;
	case M_TAIL_REFCOUNT:
		if (pfn == s + 7)
			put(f, p, MMC_PAGE_REFCOUNT, 0, 1);
		break;
	case M_UNMAPPED_REF2:
		if (pfn == s)
			put(f, p, MMC_PAGE_REFCOUNT, 0, 2);
		break;
	case M_NEG_REF:
		if (pfn == s + NR)
			put(f, p, MMC_PAGE_REFCOUNT, 0, 0xffffff80);
		break;
	case M_TAIL_MAPCOUNT:
		if (pfn == s + 30)
			put(f, p, MMC_PAGE_MAPCOUNT, 0, 0);
		break;
	case M_HEAD_MAPCOUNT:
		if (pfn == s)
			put(f, p, MMC_PAGE_MAPCOUNT, 0, 0);
		break;
	case M_PGMAP:
		if (pfn == s + NR)
			put(f, p, f->layout.member[MMC_PAGE_PGMAP].found ? MMC_PAGE_PGMAP : MMC_FOLIO_PGMAP,
			    0, PGMAP1);
		break;
	case M_ZONE:
		if (pfn == s + 10)
			put(f, p, MMC_PAGE_FLAGS, 0,
			    (get(f, p, MMC_PAGE_FLAGS) & ~(7ULL << 61)) | (2ULL << 61));
		break;
	case M_NODE:
		if (pfn == s + 11)
			put(f, p, MMC_PAGE_FLAGS, 0, get(f, p, MMC_PAGE_FLAGS) |
			    1ULL << f->geom.nodes_pgshift);
		break;
	case M_RESERVED:
		if (pfn == s + 9)
			put(f, p, MMC_PAGE_FLAGS, 0,
			    get(f, p, MMC_PAGE_FLAGS) & ~flagbit(f, "PG_reserved"));
		break;
	case M_TAIL_FLAGS:
		if (pfn == s + 12)
			put(f, p, MMC_PAGE_FLAGS, 0, get(f, p, MMC_PAGE_FLAGS) | flagbit(f, "PG_dirty"));
		break;
	case M_TAIL_MAPPING:
		if (pfn == s + 13)
			put(f, p, MMC_PAGE_MAPPING, 0, 0);
		break;
	case M_TAIL_PRIVATE:
		if (pfn == s + 14)
			put(f, p, MMC_PAGE_PRIVATE, 0, 0x1234);
		break;
	case M_INDEX:
		if (pfn == s + 15)
			put(f, p, MMC_PAGE_INDEX, 0, 7);
		break;
	case M_HEAD_INDEX:
		if (pfn == s + NR)
			put(f, p, MMC_PAGE_INDEX, 0, 3);
		break;
	case M_ZDD:
		if (pfn == s + NR)
			put(f, p, MMC_PAGE_ZONE_DEVICE_DATA, 0, ZDD_OBJ);
		break;
	case M_MEMCG:
		if (pfn == s + 16)
			put(f, p, MMC_PAGE_MEMCG_DATA, 0, 0x1000);
		break;
	case M_ALTMAP_LRU:
		if (pfn == START2 + 10)
			memset(p + 8, 0, 8);
		break;
	case M_ALTMAP_LRU_MID:
		if (pfn == START2 + 300)
			memset(p + 8, 0, 8);
		break;
	case M_ALTMAP_REF0:
		if (pfn >= START2 + ALTMAP_RESERVE && pfn < ALTMAP_END)
			put(f, p, MMC_PAGE_REFCOUNT, 0, 0);
		break;
	case M_POISON:
		if (pfn == s)
			put(f, p, MMC_PAGE_PRIVATE, 0, LIST_POISON1);
		break;
	case M_FILL:
		if (pfn == s + NR)
			put(f, p, MMC_PAGE_PRIVATE, 0, 0x6b6b6b6b6b6b6b6bULL);
		break;
	default:
		break;
	}
}

/* vmemmap frame i of range r: range 0's tail frames 2..7 of each compound
 * page map its frame 1 (vmemmap_populate_compound_pages()); range 1's
 * memmap lives in the device, unshared.  All writable (PAGE_KERNEL, as
 * vmemmap_pte_populate() maps them), range 0 by PTEs, range 1 by PMDs. */
static void build_vframe(const struct fix *f, enum mut m, unsigned int r, uint64_t i,
			 struct mmc_vframe *vf)
{
	uint64_t per = NR * 64 / 4096, own = i;

	memset(vf, 0, sizeof(*vf));
	if (m != M_NO_PROT) {
		vf->prot = vf->prot_known = MMC_VPROT_WRITABLE;
		vf->leaf = r == 1 ? MMC_VLEAF_PMD : MMC_VLEAF_PTE;
	}
	if (r == 1) {
		vf->kind = MMC_VF_DEVICE;
		vf->dev_off = (int64_t)i;
		vf->paddr = (START2 + i) << 12;
		/* the frame of pfns 64..127: memmap (altmap) and device pages */
		if (m == M_RO_ORDER0 && i == 1)
			vf->prot = 0;
		return;
	}
	vf->kind = MMC_VF_RAM;
	/* the section-based vmemmap: every compound page's tail vmemmap
	 * pages 1..7 map one shared tail frame, read-only (M_SHARE_RO);
	 * or the same with the first of them writable */
	if ((m == M_SHARE_RO || m == M_SHARE_RO_WRITABLE) && i % per >= 1) {
		vf->share_back = (int64_t)(i - 1);
		vf->paddr = FRAME_BASE + 4096;
		if (!(m == M_SHARE_RO_WRITABLE && i == 1))
			vf->prot = 0;
		return;
	}
	if (m == M_RO_HEAD && i == per)
		vf->prot = 0;	/* the 2nd compound's head frame read-only */
	if (m == M_ALIGNED_FIX) {
		/* compound frames from f->first; the order-0 part unshared */
		uint64_t ci = i - (f->first - f->start) / 64;

		if (i >= (f->first - f->start) / 64 && i < (f->end - f->start) / 64 &&
		    ci % per >= 2)
			own = i - ci % per + 1;
	} else if (i % per >= 2) {
		own = i - i % per + 1;
	}
	if (m == M_HEAD_FRAME && i == per + 1)
		own = per;		/* 2nd compound's tail frame maps its head frame */
	if (m == M_SHARE_BAD && i == per + 1)
		own = 1;		/* ... or the 1st compound's tail frame */
	vf->share_back = (int64_t)(i - own);
	vf->paddr = FRAME_BASE + own * 4096;
	if (m == M_UNREADABLE && i == per + 1) {
		vf->kind = MMC_VF_UNREADABLE;
		vf->prot = vf->prot_known = vf->leaf = 0;
	}
}

static struct mmc_error *add_range(struct fix *f, struct mmc_snapshot *snap,
				   struct mmc_norm *norm, enum mut m, unsigned int r)
{
	uint64_t start = r == 0 ? f->start : START2;
	struct mmc_srange sr = { .start_pfn = start, .end_pfn = start + NPAGES,
				 .pgmap_index = r, .vmemmap_start = vaddr(f, start) };
	struct mmc_error *err;

	if (r == 1) {
		sr.reserve_start = START2;
		sr.reserve_end = START2 + ALTMAP_RESERVE;
		sr.altmap_start = sr.reserve_end;
		sr.altmap_end = ALTMAP_END;
	}
	err = mmc_snapshot_begin_range(snap, &sr);
	for (uint64_t pfn = start; pfn < start + NPAGES && !err; pfn++) {
		uint8_t bytes[64];
		struct mmc_nrec rec;
		enum mmc_page_role role = MMC_ROLE_DEVICE;

		if (r == 1 && pfn < sr.reserve_end)
			role = MMC_ROLE_RESERVE;
		else if (r == 1 && pfn < ALTMAP_END)
			role = MMC_ROLE_ALTMAP;
		else if (r == 0 && pfn >= f->first && pfn < f->end && (pfn - f->first) % NR >= 128)
			role = MMC_ROLE_SHARED;
		if (m == M_UNREADABLE && r == 0 && pfn >= start + 576 && pfn < start + 640) {
			memset(&rec, 0, sizeof(rec));
			rec.state = MMC_PS_UNREADABLE;
			rec.nslots = 8;
		} else {
			build_page(f, r, pfn, bytes);
			if (role == MMC_ROLE_RESERVE)
				memset(bytes, 0, sizeof(bytes));
			mutate(f, m, pfn, bytes);
			mmc_norm_page(norm, pfn, bytes, role, &rec);
			if (role == MMC_ROLE_RESERVE)
				rec.state = MMC_PS_NOT_INIT;
		}
		err = mmc_snapshot_append(snap, &rec);
	}
	for (uint64_t i = 0; i < NPAGES * 64 / 4096 && !err; i++) {
		struct mmc_vframe vf;

		build_vframe(f, m, r, i, &vf);
		err = mmc_snapshot_append_vframe(snap, &vf);
	}
	return err ? err : mmc_snapshot_end_range(snap);
}

/* The dax data range of pgmap 0: its second folio (drivers/dax: a
 * pmem namespace's data starts after the info block). */
static const struct mmc_dax_span dax_second_half = { 0, START + NR, START + NPAGES };

static struct mmc_snapshot *make(const struct kcfg *k, enum mut m)
{
	static struct fix f;
	struct mmc_snapshot *snap = NULL;
	struct mmc_norm *norm = NULL;
	struct mmc_error *err;
	uint64_t kaddrs[2] = { PGMAP0, PGMAP1 };
	int rc;

	memset(&f, 0, sizeof(f));
	f.k = k;
	f.start = m == M_MISALIGNED || m == M_ALIGNED_FIX ? START + NR / 2 : START;
	f.first = f.start;
	f.end = UINT64_MAX;
	if (m == M_ALIGNED_FIX) {
		f.first = START + NR;
		f.end = START + 2 * NR;
	}
	rc = k->ver == V61 ? mmc_test_layout_61(&f.layout) :
	     k->ver == V612 ? mmc_test_layout_612(&f.layout) : mmc_test_layout_72(&f.layout);
	if (rc)
		return NULL;
	if (k->ver == V61)
		mmc_test_geom_61(&f.geom);
	else if (k->ver == V612)
		mmc_test_geom(&f.geom);
	else
		mmc_test_geom_72(&f.geom);
	err = mmc_snapshot_create(&f.layout, &f.geom, "test", "test_lint", &snap);
	if (!err)
		err = mmc_norm_create(&f.layout, &f.geom, kaddrs, 2, &norm);
	for (int i = 0; i < 2 && !err; i++) {
		struct mmc_spgmap pg;

		memset(&pg, 0, sizeof(pg));
		pg.kaddr = kaddrs[i];
		pg.type = k->type_val;
		snprintf(pg.type_name, sizeof(pg.type_name), "%s", k->type);
		pg.vmemmap_shift = ORDER;
		pg.nr_range = 1;
		if (i == 1) {
			pg.has_altmap = true;
			pg.altmap_base_pfn = START2;
			pg.altmap_reserve = ALTMAP_RESERVE;
			pg.altmap_free = ALTMAP_END - START2 - ALTMAP_RESERVE;
		}
		err = mmc_snapshot_add_pgmap(snap, &pg);
	}
	if (!err && (m == M_DAX_OUT || m == M_DAX_IN))
		err = mmc_snapshot_set_dax(snap, MMC_DAX_READ, "", &dax_second_half, 1);
	for (unsigned int r = 0; r < 2 && !err; r++)
		err = add_range(&f, snap, norm, m, r);
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


/*
 * The same lint page by page (mmc_lint_opts.per_page): a second path
 * through the checks, which the pattern and run shortcuts
 * (lint_pattern.c) must agree with on every count and group.
 */
static void per_page_agrees(const struct kcfg *k, const char *what,
			    const struct mmc_snapshot *snap, const struct mmc_lint_opts *opts,
			    const struct mmc_lint_result *res)
{
	struct mmc_lint_opts o = *opts;
	struct mmc_lint_result *pp = NULL;
	struct mmc_error *err;
	bool same;

	o.per_page = true;
	err = mmc_lint(snap, &o, &pp);
	same = !err && pp->pages_checked == res->pages_checked &&
	       pp->pages_read == res->pages_read &&
	       pp->violations_total == res->violations_total &&
	       pp->nviolations == res->nviolations && pp->nrules == res->nrules;
	for (size_t i = 0; same && i < res->nviolations; i++)
		same = pp->violations[i].pfn == res->violations[i].pfn &&
		       pp->violations[i].npages == res->violations[i].npages &&
		       !strcmp(pp->violations[i].rule, res->violations[i].rule) &&
		       !strcmp(pp->violations[i].message, res->violations[i].message);
	tap_ok(same, "%s %s: the same result page by page", k->name, what);
	mmc_lint_result_destroy(pp);
	mmc_error_destroy(err);
}

/* Lint a mutated snapshot: exactly `rule` (or nothing if NULL) on `pages`
 * pages starting at `pfn`. */
static void expect(const struct kcfg *k, enum mut m, const char *what,
		   const char *rule, uint64_t pfn, uint64_t pages)
{
	struct mmc_snapshot *snap = make(k, m);
	struct mmc_lint_opts opts = { 0 };
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;
	bool ok;

	if (!snap) {
		tap_ok(0, "%s %s: snapshot built", k->name, what);
		return;
	}
	err = mmc_lint(snap, &opts, &res);
	if (err) {
		tap_ok(0, "%s %s: mmc_lint: %s", k->name, what, err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
		return;
	}
	per_page_agrees(k, what, snap, &opts, res);
	if (!rule) {
		ok = tap_ok(res->violations_total == 0 && res->nrules == 0 && !res->incomplete &&
			    res->verdict == MMC_LINT_CLEAN && res->pages_checked == 2 * NPAGES &&
			    res->pages_read == 2 * NPAGES - ALTMAP_RESERVE,
			    "%s %s: clean (%" PRIu64 " violations, %" PRIu64 " pages read)",
			    k->name, what, res->violations_total, res->pages_read);
	} else {
		uint64_t grouped = 0;
		bool unread = strcmp(rule, "unreadable") == 0;

		for (size_t i = 0; i < res->nviolations; i++)
			grouped += res->violations[i].npages;
		ok = tap_ok(res->nrules == 1 && rule_pages(res, rule) == pages &&
			    res->nviolations >= 1 && res->violations[0].pfn == pfn &&
			    grouped == pages && strcmp(res->violations[0].rule, rule) == 0 &&
			    res->incomplete == unread &&
			    res->verdict == (unread ? MMC_LINT_INCOMPLETE : MMC_LINT_VIOLATIONS),
			    "%s %s: exactly rule %s on %" PRIu64 " pages at 0x%" PRIx64,
			    k->name, what, rule, pages, pfn);
	}
	if (!ok)
		dump(res);
	mmc_lint_result_destroy(res);
	mmc_snapshot_destroy(snap);
}

/*
 * The dax-range rule needs the snapshot's device-dax range of the range's
 * own pgmap: without it the folio outside its data goes unflagged, and the
 * result says the rule was not checked, in how many ranges, and why.
 */
static void dax_unchecked(const struct kcfg *k)
{
	static const struct mmc_dax_span other = { 1, START + NR, START + NPAGES };
	static const struct mmc_dax_span bad[] = {
		{ 2, START, START + NR },		/* no pgmap 2 */
		{ 0, START + NR, START + NR },		/* empty */
	};
	static const struct mmc_dax_span unsorted[] = {
		{ 0, START + NR, START + NPAGES }, { 1, START, START + 1 },
	};
	struct {
		const char *what;
		enum mmc_dax_state st;
		const char *why;
		const struct mmc_dax_span *span;
		const char *want_why;
	} cases[] = {
		{ "not read", MMC_DAX_NOT_READ, "the layout has no dev_dax.pgmap", NULL,
		  "the layout has no dev_dax.pgmap" },
		{ "partial", MMC_DAX_PARTIAL, "reading dax_device.private at 0x1: excluded", NULL,
		  "reading dax_device.private at 0x1: excluded" },
		{ "read, of the other pgmap", MMC_DAX_READ, "", &other,
		  "no device-dax instance names its pgmap" },
	};
	struct mmc_snapshot *snap = make(k, M_DAX_OUT);
	struct mmc_error *err;

	if (!snap) {
		tap_ok(0, "%s dax-range unchecked: snapshot built", k->name);
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mmc_lint_result *res = NULL;

		err = mmc_snapshot_set_dax(snap, cases[i].st, cases[i].why, cases[i].span,
					   cases[i].span ? 1 : 0);
		if (!err)
			err = mmc_lint(snap, NULL, &res);
		tap_ok(!err && res->verdict == MMC_LINT_CLEAN && rule_pages(res, "dax-range") == 0 &&
		       res->dax_unchecked == 2 && !strcmp(res->dax_why, cases[i].want_why),
		       "%s dax ranges %s: clean, dax-range not checked in 2 ranges (%zu): %s",
		       k->name, cases[i].what, res ? res->dax_unchecked : 0,
		       res ? res->dax_why : err->message);
		mmc_error_destroy(err);
		mmc_lint_result_destroy(res);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = mmc_snapshot_set_dax(snap, MMC_DAX_READ, "", &bad[i], 1);
		tap_ok(err != NULL, "%s dax range %zu (pgmap %u, %" PRIu64 " pages) refused: %s",
		       k->name, i, bad[i].pgmap_index, bad[i].end_pfn - bad[i].start_pfn,
		       err ? err->message : "accepted");
		mmc_error_destroy(err);
	}
	err = mmc_snapshot_set_dax(snap, MMC_DAX_READ, "", unsorted, 2);
	tap_ok(err != NULL, "%s unsorted dax ranges refused", k->name);
	mmc_error_destroy(err);
	err = mmc_snapshot_set_dax(snap, MMC_DAX_READ, "why", NULL, 0);
	tap_ok(err != NULL, "%s dax ranges read but with a reason: refused", k->name);
	mmc_error_destroy(err);
	err = mmc_snapshot_set_dax(snap, MMC_DAX_PARTIAL, "", NULL, 0);
	tap_ok(err != NULL, "%s dax ranges partial without a reason: refused", k->name);
	mmc_error_destroy(err);
	mmc_snapshot_destroy(snap);
}

/*
 * A snapshot without the protection (a file before version 5): the frame
 * the 2nd compound page shares with the 1st is not called writable, nor
 * the sharing wrong; lint says how many vmemmap pages it could not check.
 */
static void not_recorded(const struct kcfg *k)
{
	struct mmc_snapshot *snap = make(k, M_NO_PROT);
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;

	if (!snap) {
		tap_ok(0, "%s protection not recorded: snapshot built", k->name);
		return;
	}
	err = mmc_lint(snap, NULL, &res);
	tap_ok(!err && res->verdict == MMC_LINT_CLEAN && res->vprot_unchecked == 2 * NPAGES * 64 / 4096,
	       "%s protection not recorded: clean, %" PRIu64 " vmemmap pages not checked (want %d)",
	       k->name, res ? res->vprot_unchecked : 0, (int)(2 * NPAGES * 64 / 4096));
	mmc_error_destroy(err);
	mmc_lint_result_destroy(res);
	mmc_snapshot_destroy(snap);
}

/* Every rule, broken alone, on one kernel. */
static void rules_on(const struct kcfg *k)
{
	bool v61 = k->ver == V61, v72 = k->ver == V72;

	expect(k, M_NONE, "as the kernel writes it", NULL, 0, 0);
	expect(k, M_DAX_IN, "mapped folio inside its dax range", NULL, 0, 0);
	expect(k, M_MAPPED_REF2, "mapped head refcount 2", NULL, 0, 0);

	expect(k, M_TAIL_NONHEAD, "tail names another tail", "tail-head", START + 5, 1);
	expect(k, M_TAIL_STALE, "tail names the previous head", "tail-head", START + 520, 1);
	expect(k, M_NOT_TAIL, "PageTail not set", "tail-head", START + 9, 1);
	if (k->mask)
		expect(k, M_MASK_ORDER, "compound_info mask of another order", "tail-head",
		       START + 5, 1);
	else
		expect(k, M_CYCLE, "compound_head cycle", "head-cycle", START + 5, 2);
	if (!v72)
		expect(k, M_NR_PAGES, "wrong _folio_nr_pages", "order", START, 1);
	expect(k, M_ORDER, "folio order 8", "order", START + NR, 1);
	expect(k, M_TAIL_PG_HEAD, "PG_head on a tail", "order", START + 7, 1);
	if (!k->mask)
		expect(k, M_MISALIGNED, "range starting half a folio off", "head-align",
		       START + NR / 2, 2);
	expect(k, M_ALIGNED_FIX, "naturally aligned compound page, order-0 pages around it",
	       NULL, 0, 0);
	expect(k, M_HEAD_FRAME, "tail frame maps the head frame", "head-frame", START + NR, 1);
	expect(k, M_SHARE_BAD, "tail frame maps the other folio's", "vmemmap-share",
	       START + NR + 64, 64);
	/* read-only vmemmap (vmemmap-ro, vmemmap-share) */
	expect(k, M_SHARE_RO, "one read-only tail frame shared by both compound pages", NULL, 0, 0);
	expect(k, M_SHARE_RO_WRITABLE, "the shared tail frame mapped writable once",
	       "vmemmap-share", START + NR + 64, NR - 64);
	expect(k, M_RO_HEAD, "head, page[1], page[2] in a read-only frame", "vmemmap-ro",
	       START + NR, 3);
	expect(k, M_RO_ORDER0, "memmap (altmap) pages in a read-only frame", "vmemmap-ro",
	       START2 + 64, 64);
	not_recorded(k);
	expect(k, M_DAX_OUT, "mapped folio outside its dax range", "dax-range", START, 1);
	if (!strcmp(k->type, "MEMORY_DEVICE_GENERIC"))
		dax_unchecked(k);
	expect(k, M_FOLIO_PIN, "page[1] _pincount 1, unmapped", "folio-mapcount", START + 1, 1);
	if (!v61) {
		expect(k, M_FOLIO_PTR, "page[1] mapcounts hold a pointer", "folio-mapcount",
		       START + 1, 1);
		expect(k, M_FOLIO_MAPPED_BAD, "entire above large mapcount", "folio-mapcount",
		       START + 1, 1);
		expect(k, M_DEFERRED, "page[2] _deferred_list", "deferred-list", START + 2, 1);
	}
	if (v72)
		expect(k, M_FOLIO_MMID, "_mm_id_mapcount 0, unmapped", "folio-mapcount",
		       START + 1, 1);
	expect(k, M_TAIL_REFCOUNT, "tail refcount 1", "refcount", START + 7, 1);
	expect(k, M_UNMAPPED_REF2, "unmapped head refcount 2", "refcount", START, 1);
	expect(k, M_NEG_REF, "negative refcount", "refcount", START + NR, 1);
	expect(k, M_TAIL_MAPCOUNT, "tail _mapcount 0", "mapcount", START + 30, 1);
	expect(k, M_HEAD_MAPCOUNT, "head mapped without a mapping", "mapcount", START, 1);
	expect(k, M_PGMAP, "head with another pgmap", "pgmap", START + NR, 1);
	expect(k, M_ZONE, "zone bits wrong", "zone", START + 10, 1);
	expect(k, M_NODE, "one page on another node", "node", START + 11, 1);
	expect(k, M_RESERVED, "PG_reserved cleared", "reserved", START + 9, 1);
	expect(k, M_TAIL_FLAGS, "PG_dirty on a tail", "tail-flags", START + 12, 1);
	expect(k, M_TAIL_MAPPING, "tail mapping NULL", "tail-mapping", START + 13, 1);
	expect(k, M_TAIL_PRIVATE, "tail private set", "tail-private", START + 14, 1);
	expect(k, M_INDEX, "tail index 7", "index", START + 15, 1);
	expect(k, M_HEAD_INDEX, "head index without a mapping", "index", START + NR, 1);
	expect(k, M_ZDD, "zone_device_data set", "zone-device-data", START + NR, 1);
	expect(k, M_MEMCG, "tail memcg_data set", "memcg", START + 16, 1);
	expect(k, M_ALTMAP_LRU, "memmap pfn lru not an empty list", "altmap-init",
	       START2 + 10, 1);
	/* inside a long run of memmap pfns, which lint takes as a run */
	expect(k, M_ALTMAP_LRU_MID, "one memmap pfn mid-run without its empty list",
	       "altmap-init", START2 + 300, 1);
	expect(k, M_ALTMAP_REF0, "every memmap pfn refcount 0 (init_page_count() missing)",
	       "refcount", START2 + ALTMAP_RESERVE, ALTMAP_END - START2 - ALTMAP_RESERVE);
	expect(k, M_POISON, "LIST_POISON1 in a head's private", "poison", START, 1);
	expect(k, M_FILL, "0x6b fill in a head's private", "poison", START + NR, 1);
	expect(k, M_UNREADABLE, "64 pages unreadable", "unreadable", START + NR + 64, 64);
}

/* The kernels and pgmap types the cases below build snapshots of. */
static const struct kcfg k61 = { "6.1", V61, false, "MEMORY_DEVICE_GENERIC", 4, 1 };
static const struct kcfg k612 = { "6.12", V612, false, "MEMORY_DEVICE_GENERIC", 4, 1 };
static const struct kcfg k72 = { "7.2", V72, false, "MEMORY_DEVICE_GENERIC", 4, 1 };
static const struct kcfg k72hvo = { "7.2-HVO", V72, true, "MEMORY_DEVICE_GENERIC", 4, 1 };
static const struct kcfg k72fs0 = { "7.2 fsdax", V72, false, "MEMORY_DEVICE_FS_DAX", 3, 0 };
static const struct kcfg k72fs1 = { "7.2 fsdax", V72, false, "MEMORY_DEVICE_FS_DAX", 3, 1 };
static const struct kcfg k612fs1 = { "6.12 fsdax", V612, false, "MEMORY_DEVICE_FS_DAX", 3, 1 };
static const struct kcfg k612priv0 = { "6.12 private", V612, false, "MEMORY_DEVICE_PRIVATE", 1, 0 };
static const struct kcfg k612priv1 = { "6.12 private", V612, false, "MEMORY_DEVICE_PRIVATE", 1, 1 };

/*
 * Each kernel's rules; __init_zone_device_page()'s refcount per type and
 * version.
 */
static void test_rules_per_kernel(void)
{
	rules_on(&k61);
	rules_on(&k612);
	rules_on(&k72);
	rules_on(&k72hvo);

	expect(&k72fs0, M_NONE, "refcount 0", NULL, 0, 0);
	expect(&k612fs1, M_NONE, "refcount 1", NULL, 0, 0);
	expect(&k612priv0, M_NONE, "refcount 0", NULL, 0, 0);
	expect(&k72fs1, M_NONE, "refcount 1 on the 3 unmapped heads (6.15+: 0)", "refcount",
	       START, 3);
	expect(&k612priv1, M_NONE, "refcount 1 on the 3 heads (private: 0)", "refcount", START, 3);
}

/*
 * With the compound_info mask a misaligned head also loses its tails:
 * _compound_head() masks each tail's address down to the aligned pfn.
 */
static void test_misaligned_masked_heads(void)
{
	struct mmc_snapshot *snap = make(&k72hvo, M_MISALIGNED);
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err = snap ? mmc_lint(snap, NULL, &res) : NULL;

	bool ok = snap && !err && res->nrules == 3 &&
		  rule_pages(res, "head-align") == 2 &&
		  rule_pages(res, "tail-head") + rule_pages(res, "head-cycle") == 2 * (NR - 1);

	tap_ok(ok, "7.2-HVO misaligned heads: head-align on 2 heads, every one of the %llu tails masked to an aligned pfn that is not its head",
	       2 * (NR - 1));
	if (res && !ok)
		dump(res);
	mmc_lint_result_destroy(res);
	mmc_error_destroy(err);
	mmc_snapshot_destroy(snap);
}

/* max_groups caps the kept groups, not the counts. */
static void test_max_groups(void)
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

/* Every rule has a name, a kernel source and a statement. */
static void test_rule_table(void)
{
	bool all = true;

	for (unsigned int r = 0; r < MMC_RULE_COUNT; r++) {
		const struct mmc_rule_info *ri = mmc_rule_info((enum mmc_rule)r);
		enum mmc_rule back;

		all &= ri && ri->name && ri->kernel && ri->what &&
		       mmc_rule_by_name(ri->name, &back) && back == (enum mmc_rule)r;
	}
	tap_ok(all, "rule table: %u rules, each named, sourced and found by name",
	       (unsigned int)MMC_RULE_COUNT);
}

int main(void)
{
	test_rules_per_kernel();
	test_misaligned_masked_heads();
	test_max_groups();
	test_rule_table();
	return tap_done();
}
