/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The snapshot test_snapshot and test_snapshot_file build, record by
 * record: two ranges, R1 device-dax in 2 MiB compound pages whose last
 * pages are unreadable for one reason or another, R2 fsdax order-0 pages
 * behind an altmap (reserve, then memmap pfns), every slot class among
 * their records; R1's vmemmap frames shared RAM ones (one unreadable),
 * R2's device ones.  gen() and gen_vframe() are the image, build() the
 * snapshot of it, check_all() reads a snapshot back against the image;
 * image_init() fills the layout and geometry they use.
 */
#ifndef MMC_TEST_SNAPSHOT_IMAGE_H
#define MMC_TEST_SNAPSHOT_IMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "snapshot.h"
#include "tap.h"

#define VBASE 0xffffea0000000000ULL
#define DELTA 0xdead000000000000ULL
#define ZONE_BITS (4ULL << 61)
#define PG_RESERVED (1ULL << 13)
#define PG_HEAD (1ULL << 6)

#define R1_START 0x100000ULL	/* devdax, 2M compound pages */
#define R1_PAGES 2048ULL
#define R2_START 0x140000ULL	/* fsdax order-0, altmap */
#define R2_PAGES 1024ULL

static inline uint64_t paddr_of(uint64_t pfn, unsigned int off)
{
	return VBASE + pfn * 64 + off;
}

/* Every slot class: RAW, NULL, SELF, PAGE, PGMAP, POISON, OBJ. */
static inline void gen(uint64_t pfn, struct mmc_nrec *r)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->nslots = 8;
	for (i = 0; i < 8; i++)
		r->slot[i] = nv(MMC_V_NULL, 0, 0, 0);
	if (pfn >= R1_START && pfn < R1_START + R1_PAGES) {
		uint64_t k = (pfn - R1_START) % 512, head = pfn - k;

		r->role = MMC_ROLE_DEVICE;
		if (k == 0) {
			r->slot[0] = raw(ZONE_BITS | PG_RESERVED | PG_HEAD);
			r->slot[1] = nv(MMC_V_PGMAP, 0, 0, 0xffff888004000000ULL);
			r->slot[4] = raw(0);
			r->slot[5] = nv(MMC_V_OBJ, 0, 0, 0xffff888012345000ULL);
			r->slot[5].region = MMC_R_DIRECT;
			r->slot[6] = raw(0x1ffffffffULL);
			return;
		}
		r->slot[0] = raw(ZONE_BITS | PG_RESERVED | (k == 1 ? 9 : 0));
		r->slot[1] = nv(MMC_V_PAGE, 1, -(int64_t)k, paddr_of(head, 1));
		if (k == 1) {
			r->slot[2] = raw(0xffffffffffffffffULL);
			r->slot[4] = raw(512);
		} else if (k == 2) {
			r->slot[2] = nv(MMC_V_SELF, 16, 0, paddr_of(pfn, 16));
			r->slot[3] = nv(MMC_V_SELF, 16, 0, paddr_of(pfn, 16));
		} else {
			r->slot[3] = nv(MMC_V_POISON, 0, 0x400, DELTA + 0x400);
			r->slot[4] = raw(k);	/* grows by one per page */
		}
		r->slot[6] = raw(0xffffffffULL);
		if (k >= 500) {
			r->role = MMC_ROLE_SHARED;
			r->state = MMC_PS_UNREADABLE;
			/* two reasons, and one left for the snapshot to fill */
			r->reason = k >= 510 ? MMC_UR_NONE :
				    k >= 505 ? MMC_UR_TRUNCATED : MMC_UR_CORRUPT;
		}
		return;
	}
	/* range 2: 16 reserve, 16 memmap (altmap) pfns, then device pages */
	{
		uint64_t k = pfn - R2_START;

		if (k < 16) {
			r->state = MMC_PS_NOT_INIT;
			r->role = MMC_ROLE_RESERVE;
			r->slot[0] = raw(0x1234 + k * 3);
			return;
		}
		if (k < 32) {
			r->role = MMC_ROLE_ALTMAP;
			r->slot[0] = raw(ZONE_BITS);
			r->slot[1] = nv(MMC_V_SELF, 8, 0, paddr_of(pfn, 8));
			r->slot[2] = nv(MMC_V_SELF, 8, 0, paddr_of(pfn, 8));
			r->slot[6] = raw(0x1ffffffffULL);
			return;
		}
		r->slot[0] = raw(ZONE_BITS | PG_RESERVED);
		r->slot[1] = nv(MMC_V_PGMAP, 0, 1, 0xffff888004100000ULL);
		r->slot[6] = raw(0x1ffffffffULL);
		if (k == 700)
			r->state = MMC_PS_UNMAPPED;
	}
}

static inline void gen_vframe(unsigned int range, uint64_t i, struct mmc_vframe *vf)
{
	memset(vf, 0, sizeof(*vf));
	if (range == 0) {
		uint64_t k = i % 8;

		vf->kind = MMC_VF_RAM;
		vf->share_back = k >= 2 ? (int64_t)(k - 1) : 0;
		vf->paddr = 0x40000000ULL + (i / 8) * 0x2000 + (k ? 0x1000 : 0);
		/* PTE-mapped; the shared tail frame mapped read-only again */
		vf->prot_known = MMC_VPROT_WRITABLE;
		vf->prot = k >= 2 ? 0 : MMC_VPROT_WRITABLE;
		vf->leaf = MMC_VLEAF_PTE;
		if (i == 7) {	/* a page table the dump lacks */
			vf->kind = MMC_VF_UNREADABLE;
			vf->share_back = 0;
			vf->paddr = 0;
			vf->reason = MMC_UR_ABSENT;
			vf->prot = vf->prot_known = vf->leaf = 0;
		}
	} else {
		vf->kind = MMC_VF_DEVICE;
		vf->dev_off = (int64_t)i;
		vf->paddr = (R2_START + i) << 12;
		vf->prot = vf->prot_known = MMC_VPROT_WRITABLE;
		vf->leaf = MMC_VLEAF_PMD;
	}
}

/* What the snapshot keeps: an unreadable record without a reason gets
 * MMC_UR_UNKNOWN. */
static inline uint8_t kept_reason(const struct mmc_nrec *r)
{
	if (r->state != MMC_PS_UNREADABLE)
		return MMC_UR_NONE;
	return r->reason ? r->reason : MMC_UR_UNKNOWN;
}

static inline int nrec_same(const struct mmc_nrec *a, const struct mmc_nrec *b)
{
	unsigned int i;

	if (a->state != b->state || a->role != b->role || a->nslots != b->nslots ||
	    a->reason != kept_reason(b))
		return 0;
	for (i = 0; i < a->nslots; i++) {
		const struct mmc_nval *x = &a->slot[i], *y = &b->slot[i];

		if (x->cls != y->cls || x->off != y->off || x->v != y->v ||
		    x->raw != y->raw || x->region != y->region)
			return 0;
	}
	return 1;
}

/* Filled by image_init(); main() releases the layout. */
static struct mmc_layout layout;
static struct mmc_geom geom;

/* The range r, gen_vframe()'s number `range`: its struct pages from gen(),
 * its vmemmap frames (64 struct pages each) from gen_vframe(). */
static inline struct mmc_error *add_range(struct mmc_snapshot *s, const struct mmc_srange *r,
					  unsigned int range)
{
	struct mmc_error *err = mmc_snapshot_begin_range(s, r);
	uint64_t pfn, i;

	for (pfn = r->start_pfn; pfn < r->end_pfn && !err; pfn++) {
		struct mmc_nrec rec;

		gen(pfn, &rec);
		err = mmc_snapshot_append(s, &rec);
	}
	for (i = 0; i < (r->end_pfn - r->start_pfn) * 64 / 4096 && !err; i++) {
		struct mmc_vframe vf;

		gen_vframe(range, i, &vf);
		err = mmc_snapshot_append_vframe(s, &vf);
	}
	return err ? err : mmc_snapshot_end_range(s);
}

/* The image as a snapshot: two pgmaps (the fsdax one with an altmap) and
 * their two ranges; a refusal ends the test. */
static inline struct mmc_snapshot *build(void)
{
	struct mmc_snapshot *s;
	struct mmc_spgmap pg;
	struct mmc_srange r;
	struct mmc_error *err;

	err = mmc_snapshot_create(&layout, &geom, "test.elf", "memmapcheck test", &s);
	if (err) {
		mmc_error_fprint(stdout, err);
		exit(1);
	}
	memset(&pg, 0, sizeof(pg));
	pg.kaddr = 0xffff888004000000ULL;
	pg.type = 4;
	snprintf(pg.type_name, sizeof(pg.type_name), "MEMORY_DEVICE_GENERIC");
	pg.vmemmap_shift = 9;
	pg.nr_range = 1;
	pg.owner = nv(MMC_V_NULL, 0, 0, 0);
	pg.ops = nv(MMC_V_OBJ, 0, 3, 0xffffffff82001000ULL);
	pg.ops.region = MMC_R_KIMAGE;
	err = mmc_snapshot_add_pgmap(s, &pg);
	pg.kaddr = 0xffff888004100000ULL;
	pg.type = 3;
	snprintf(pg.type_name, sizeof(pg.type_name), "MEMORY_DEVICE_FS_DAX");
	pg.vmemmap_shift = 0;
	pg.has_altmap = true;
	pg.altmap_base_pfn = R2_START;
	pg.altmap_reserve = 16;
	pg.altmap_free = 16;
	pg.altmap_alloc = 16;
	if (!err)
		err = mmc_snapshot_add_pgmap(s, &pg);

	memset(&r, 0, sizeof(r));
	r.start_pfn = R1_START;
	r.end_pfn = R1_START + R1_PAGES;
	r.vmemmap_start = paddr_of(R1_START, 0);
	if (!err)
		err = add_range(s, &r, 0);

	r.start_pfn = R2_START;
	r.end_pfn = R2_START + R2_PAGES;
	r.pgmap_index = 1;
	r.vmemmap_start = paddr_of(R2_START, 0);
	r.reserve_start = R2_START;
	r.reserve_end = R2_START + 16;
	r.altmap_start = R2_START + 16;
	r.altmap_end = R2_START + 32;
	if (!err)
		err = add_range(s, &r, 1);
	if (err) {
		mmc_error_fprint(stdout, err);
		exit(1);
	}
	return s;
}

/* Whether every record (by cursor and by get) and every vmemmap frame of s
 * is the image's; what names s in the diagnostics. */
static inline int check_all(const struct mmc_snapshot *s, const char *what)
{
	struct mmc_snapshot_cursor cur;
	struct mmc_nrec rec, want;
	uint64_t pfn, n = 0;
	size_t range;
	int ok = 1;

	for (range = 0; range < 2; range++) {
		const struct mmc_srange *r = mmc_snapshot_range(s, range);

		mmc_snapshot_cursor_init(s, range, &cur);
		while (mmc_snapshot_cursor_next(&cur, &pfn, &rec)) {
			gen(pfn, &want);
			if (!nrec_same(&rec, &want) || pfn >= r->end_pfn) {
				ok = 0;
				tap_diag("%s: cursor pfn 0x%llx differs", what,
					 (unsigned long long)pfn);
				break;
			}
			if (!mmc_snapshot_get(s, range, pfn, &rec) || !nrec_same(&rec, &want)) {
				ok = 0;
				tap_diag("%s: get pfn 0x%llx differs", what,
					 (unsigned long long)pfn);
				break;
			}
			n++;
		}
		for (uint64_t i = 0; i < mmc_snapshot_range_nvframes(s, range); i++) {
			struct mmc_vframe vf, wv;

			mmc_snapshot_range_vframe(s, range, i, &vf);
			gen_vframe((unsigned int)range, i, &wv);
			if (vf.kind != wv.kind || vf.share_back != wv.share_back ||
			    vf.dev_off != wv.dev_off || vf.paddr != wv.paddr ||
			    vf.reason != wv.reason || vf.prot != wv.prot ||
			    vf.prot_known != wv.prot_known || vf.leaf != wv.leaf) {
				ok = 0;
				tap_diag("%s: vframe %zu/%llu differs", what, range,
					 (unsigned long long)i);
				break;
			}
		}
	}
	return ok && n == R1_PAGES + R2_PAGES;
}

/* The 6.12 layout, and a geometry whose five-level paging was read from
 * the page tables (what a version-2 file keeps); -1 when the layout
 * cannot be made. */
static inline int image_init(void)
{
	if (mmc_test_layout_612(&layout))
		return -1;
	mmc_test_geom(&geom);
	geom.pgtable_levels = 5;
	geom.base_origin = MMC_BASES_FIXED;
	geom.levels_origin = MMC_LEVELS_PAGE_TABLES;
	return 0;
}

#endif
