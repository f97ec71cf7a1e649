// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Normaliser: byte-level struct pages of 6.12 and 7.2 ZONE_DEVICE pages
 * (order-0, a 2M compound head, page[1], page[2], a tail), corrupt pages,
 * every value class, and boot independence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "layout_fixture.h"
#include "normalise.h"
#include "tap.h"

#define SPS 64
#define PG_RESERVED 13
#define PG_HEAD 6
#define ZONE_DEVICE_FLAGS (4ULL << 61)

struct boot {
	struct mmc_geom geom;
	uint64_t pgmap[2];
	uint64_t obj_direct, obj_direct2, obj_kimage;
};

static uint64_t page_addr(const struct mmc_geom *g, uint64_t pfn)
{
	return g->vmemmap_base + pfn * g->struct_page_size;
}

static void boot_a(struct boot *b)
{
	mmc_test_geom(&b->geom);
	b->pgmap[0] = 0xffff888100200000ULL;
	b->pgmap[1] = 0xffff888100300400ULL;
	b->obj_direct = 0xffff888104a3c000ULL;
	b->obj_direct2 = 0xffff888104a3d100ULL;
	b->obj_kimage = 0xffffffff82a1b2c0ULL;
}

/* Another boot with KASLR: every base and every allocation moved. */
static void boot_b(struct boot *b)
{
	mmc_test_geom(&b->geom);
	b->geom.vmemmap_base = 0xffffd48000000000ULL;
	b->geom.vmemmap_end = b->geom.vmemmap_base + (1ULL << 24) * SPS;
	b->geom.page_offset_base = 0xffff9c0000000000ULL;
	b->geom.direct_map_end = b->geom.page_offset_base + (64ULL << 30);
	b->geom.vmalloc_base = 0xffffb10000000000ULL;
	b->geom.vmalloc_end = 0xffffd10000000000ULL;
	b->geom.kaslr_offset = 0x1c000000;
	b->geom.kimage_start += b->geom.kaslr_offset;
	b->geom.kimage_end += b->geom.kaslr_offset;
	b->pgmap[0] = 0xffff9c0107f10000ULL;
	b->pgmap[1] = 0xffff9c0101230800ULL;
	b->obj_direct = 0xffff9c0100abc000ULL;
	b->obj_direct2 = 0xffff9c01000de200ULL;
	b->obj_kimage = 0xffffffff9ea1b2c0ULL;
}

/* Order-0 device page (6.12 memmap_init_zone_device + __init_zone_device_page). */
static void mk_order0(const struct boot *b, uint8_t *p, unsigned int pgmap)
{
	memset(p, 0, SPS);
	le_put64(p + 0, ZONE_DEVICE_FLAGS | (1ULL << PG_RESERVED));
	le_put64(p + 8, b->pgmap[pgmap]);
	le_put64(p + 16, b->obj_direct);		/* zone_device_data */
	le_put32(p + 48, 0xffffffff);
	le_put32(p + 52, 1);
}

static void mk_head(const struct boot *b, uint8_t *p)
{
	mk_order0(b, p, 1);
	le_put64(p + 0, ZONE_DEVICE_FLAGS | (1ULL << PG_RESERVED) | (1ULL << PG_HEAD));
	le_put64(p + 16, 0);
}

static void mk_page1(const struct boot *b, uint8_t *p, uint64_t head_pfn)
{
	memset(p, 0, SPS);
	le_put64(p + 0, ZONE_DEVICE_FLAGS | (1ULL << PG_RESERVED) | 9);
	le_put64(p + 8, page_addr(&b->geom, head_pfn) + 1);
	le_put32(p + 16, 0xffffffff);		/* _large_mapcount */
	le_put32(p + 20, 0xffffffff);		/* _entire_mapcount */
	le_put32(p + 24, 0);			/* _nr_pages_mapped */
	le_put32(p + 28, 0);			/* _pincount */
	le_put32(p + 32, 512);			/* _folio_nr_pages */
	le_put32(p + 48, 0xffffffff);
	le_put32(p + 52, 0);
}

static void mk_page2(const struct boot *b, uint8_t *p, uint64_t head_pfn)
{
	memset(p, 0, SPS);
	le_put64(p + 0, ZONE_DEVICE_FLAGS | (1ULL << PG_RESERVED));
	le_put64(p + 8, page_addr(&b->geom, head_pfn) + 1);
	le_put64(p + 16, page_addr(&b->geom, head_pfn + 2) + 16);
	le_put64(p + 24, b->geom.poison_pointer_delta + 0x400);
	le_put32(p + 48, 0xffffffff);
}

static void mk_tail(const struct boot *b, uint8_t *p, uint64_t head_pfn)
{
	memset(p, 0, SPS);
	le_put64(p + 0, ZONE_DEVICE_FLAGS | (1ULL << PG_RESERVED));
	le_put64(p + 8, page_addr(&b->geom, head_pfn) + 1);
	le_put64(p + 24, b->geom.poison_pointer_delta + 0x400);
	le_put32(p + 48, 0xffffffff);
}

static int cls_is(const struct mmc_nval *v, enum mmc_vclass cls, int64_t val,
		  uint16_t off)
{
	return v->cls == cls && v->v == val && v->off == off;
}

static int recs_equal(const struct mmc_nrec *a, const struct mmc_nrec *b)
{
	unsigned int i;

	if (a->nslots != b->nslots || a->state != b->state || a->role != b->role)
		return 0;
	for (i = 0; i < a->nslots; i++)
		if (!mmc_nval_equal(&a->slot[i], &b->slot[i]))
			return 0;
	return 1;
}

#define PFN0 0x100000ULL
#define HEAD 0x100200ULL

/* The sample image: order-0, head, page[1], page[2], tail 5, order-0 again. */
static int normalise_sample(const struct mmc_layout *l, const struct boot *b,
			    struct mmc_nrec *recs)
{
	struct mmc_norm *n;
	struct mmc_error *err;
	uint8_t p[SPS];

	err = mmc_norm_create(l, &b->geom, b->pgmap, 2, &n);
	if (err) {
		mmc_error_destroy(err);
		return -1;
	}
	mk_order0(b, p, 0);
	mmc_norm_page(n, PFN0, p, MMC_ROLE_DEVICE, &recs[0]);
	mk_head(b, p);
	mmc_norm_page(n, HEAD, p, MMC_ROLE_DEVICE, &recs[1]);
	mk_page1(b, p, HEAD);
	mmc_norm_page(n, HEAD + 1, p, MMC_ROLE_DEVICE, &recs[2]);
	mk_page2(b, p, HEAD);
	mmc_norm_page(n, HEAD + 2, p, MMC_ROLE_DEVICE, &recs[3]);
	mk_tail(b, p, HEAD);
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &recs[4]);
	mk_order0(b, p, 0);
	le_put64(p + 16, b->obj_direct2);
	le_put64(p + 24, b->obj_kimage);
	mmc_norm_page(n, PFN0 + 1, p, MMC_ROLE_DEVICE, &recs[5]);
	mmc_norm_destroy(n);
	return 0;
}

static void test_create(const struct mmc_layout *l, const struct boot *b)
{
	struct mmc_layout bad = *l;
	struct mmc_geom g = b->geom;
	struct mmc_norm *n = NULL;
	struct mmc_error *err;

	err = mmc_norm_create(l, &g, b->pgmap, 2, &n);
	tap_ok(!err && n, "create");
	if (n) {
		tap_ok(mmc_norm_slot_is_raw(n, 0) && mmc_norm_slot_is_raw(n, 6),
		       "flags and _mapcount/_refcount slots are raw");
		tap_ok(!mmc_norm_slot_is_raw(n, 1) && !mmc_norm_slot_is_raw(n, 7) &&
		       !mmc_norm_slot_is_raw(n, 8) && !mmc_norm_slot_is_raw(n, 99),
		       "pointer slots and out-of-range slots are not raw");
		tap_ok(!mmc_norm_failed(n), "no numbering failure");
	}
	mmc_norm_destroy(n);
	mmc_error_destroy(err);

	g.struct_page_size = 60;
	err = mmc_norm_create(l, &g, NULL, 0, &n);
	tap_ok(err && !n, "sizeof(struct page) not a multiple of 8 is refused");
	mmc_error_destroy(err);
	g.struct_page_size = 256;
	err = mmc_norm_create(l, &g, NULL, 0, &n);
	tap_ok(err && !n, "sizeof(struct page) above 128 is refused");
	mmc_error_destroy(err);
	bad.size[MMC_SIZE_PAGE] = 80;
	err = mmc_norm_create(&bad, &b->geom, NULL, 0, &n);
	tap_ok(err && err->code == MMC_ERR_MISMATCH && !n,
	       "layout and image disagreeing on sizeof(struct page) is refused");
	mmc_error_destroy(err);
}

static void test_pages(const struct mmc_layout *l, const struct boot *b)
{
	struct mmc_nrec r[6];
	uint64_t zflags = ZONE_DEVICE_FLAGS | (1ULL << PG_RESERVED);

	if (!tap_ok(normalise_sample(l, b, r) == 0, "normalise sample image"))
		return;
	/* order-0 */
	tap_ok(r[0].state == MMC_PS_READ && r[0].role == MMC_ROLE_DEVICE &&
	       r[0].nslots == 8, "order-0: state, role, 8 slots");
	tap_ok(cls_is(&r[0].slot[0], MMC_V_RAW, (int64_t)zflags, 0),
	       "order-0: flags raw");
	tap_ok(cls_is(&r[0].slot[1], MMC_V_PGMAP, 0, 0), "order-0: pgmap#0");
	tap_ok(cls_is(&r[0].slot[2], MMC_V_OBJ, 0, 0) &&
	       r[0].slot[2].region == MMC_R_DIRECT,
	       "order-0: zone_device_data obj#0 direct");
	tap_ok(cls_is(&r[0].slot[3], MMC_V_NULL, 0, 0) &&
	       cls_is(&r[0].slot[7], MMC_V_NULL, 0, 0), "order-0: NULLs");
	tap_ok(cls_is(&r[0].slot[6], MMC_V_RAW, 0x1ffffffffLL, 0),
	       "order-0: _mapcount -1, _refcount 1 raw");
	/* head */
	tap_ok(cls_is(&r[1].slot[1], MMC_V_PGMAP, 1, 0), "head: pgmap#1");
	tap_ok(r[1].slot[0].v == (int64_t)(zflags | (1ULL << PG_HEAD)),
	       "head: PG_head in flags");
	/* page[1] */
	tap_ok(cls_is(&r[2].slot[1], MMC_V_PAGE, -1, 1), "page[1]: compound_head page-1+1");
	tap_ok(cls_is(&r[2].slot[2], MMC_V_RAW, -1, 0),
	       "page[1]: mapcounts -1/-1 raw, not a pointer");
	tap_ok(cls_is(&r[2].slot[3], MMC_V_NULL, 0, 0), "page[1]: zero counters NULL");
	tap_ok(cls_is(&r[2].slot[4], MMC_V_RAW, 512, 0), "page[1]: _folio_nr_pages raw");
	tap_ok(cls_is(&r[2].slot[6], MMC_V_RAW, 0xffffffffLL, 0), "page[1]: refcount 0");
	/* page[2] */
	tap_ok(cls_is(&r[3].slot[1], MMC_V_PAGE, -2, 1), "page[2]: compound_head page-2+1");
	tap_ok(cls_is(&r[3].slot[2], MMC_V_SELF, 0, 16), "page[2]: _deferred_list self+16");
	tap_ok(cls_is(&r[3].slot[3], MMC_V_POISON, 0x400, 0), "page[2]: TAIL_MAPPING");
	/* tail */
	tap_ok(cls_is(&r[4].slot[1], MMC_V_PAGE, -5, 1), "tail 5: compound_head page-5+1");
	tap_ok(cls_is(&r[4].slot[3], MMC_V_POISON, 0x400, 0), "tail 5: TAIL_MAPPING");
	tap_ok(cls_is(&r[4].slot[2], MMC_V_NULL, 0, 0), "tail 5: +16 NULL");
	/* second order-0: new objects numbered in order of appearance */
	tap_ok(cls_is(&r[5].slot[2], MMC_V_OBJ, 1, 0) &&
	       r[5].slot[2].region == MMC_R_DIRECT, "second direct object obj#1");
	tap_ok(cls_is(&r[5].slot[3], MMC_V_OBJ, 2, 0) &&
	       r[5].slot[3].region == MMC_R_KIMAGE, "kimage object obj#2");
	tap_ok(r[5].slot[3].raw == b->obj_kimage, "raw value kept for display");
}

static void test_classes(const struct mmc_layout *l, const struct boot *b)
{
	const struct mmc_geom *g = &b->geom;
	struct mmc_nval v[16];
	struct mmc_norm *n;
	struct mmc_error *err;
	uint64_t pfn = PFN0 + 10;
	size_t i, j, nv = 0;
	int all_unequal = 1, all_self_equal = 1;

	err = mmc_norm_create(l, g, b->pgmap, 2, &n);
	if (!tap_ok(!err, "create for classes")) {
		mmc_error_destroy(err);
		return;
	}
	v[nv++] = mmc_norm_value(n, pfn, 0);
	v[nv++] = mmc_norm_value(n, pfn, page_addr(g, pfn) + 8);
	v[nv++] = mmc_norm_value(n, pfn, page_addr(g, pfn) + 16);
	v[nv++] = mmc_norm_value(n, pfn, page_addr(g, pfn + 1) + 8);
	v[nv++] = mmc_norm_value(n, pfn, page_addr(g, pfn + 2) + 8);
	v[nv++] = mmc_norm_value(n, pfn, page_addr(g, pfn - 1) + 8);
	v[nv++] = mmc_norm_value(n, pfn, page_addr(g, pfn + 1) + 1);
	v[nv++] = mmc_norm_value(n, pfn, b->pgmap[0]);
	v[nv++] = mmc_norm_value(n, pfn, b->pgmap[1]);
	v[nv++] = mmc_norm_value(n, pfn, b->pgmap[0] + 8);
	v[nv++] = mmc_norm_value(n, pfn, b->obj_direct);
	v[nv++] = mmc_norm_value(n, pfn, b->obj_direct2);
	v[nv++] = mmc_norm_value(n, pfn, g->poison_pointer_delta + 0x400);
	v[nv++] = mmc_norm_value(n, pfn, g->poison_pointer_delta + 0x100);
	v[nv++] = mmc_norm_value(n, pfn, 5);
	v[nv++] = mmc_norm_value(n, pfn, 0xffffc90000123000ULL);	/* vmalloc */

	tap_ok(v[1].cls == MMC_V_SELF && v[1].off == 8, "self+8");
	tap_ok(v[3].cls == MMC_V_PAGE && v[3].v == 1 && v[3].off == 8, "page+1+8");
	tap_ok(v[5].cls == MMC_V_PAGE && v[5].v == -1, "page-1: negative delta");
	tap_ok(v[9].cls == MMC_V_PGMAP && v[9].v == 0 && v[9].off == 8,
	       "inside a pgmap: pgmap#0+8");
	tap_ok(v[14].cls == MMC_V_RAW && v[14].v == 5, "small integer raw");
	tap_ok(v[15].cls == MMC_V_OBJ && v[15].region == MMC_R_VMALLOC,
	       "vmalloc object");
	for (i = 0; i < nv; i++) {
		all_self_equal &= mmc_nval_equal(&v[i], &v[i]);
		for (j = i + 1; j < nv; j++) {
			if (mmc_nval_equal(&v[i], &v[j])) {
				all_unequal = 0;
				tap_diag("values %zu and %zu compare equal", i, j);
			}
		}
	}
	tap_ok(all_self_equal, "every value equals itself");
	tap_ok(all_unequal,
	       "NULL/SELF/PAGE/deltas/offsets/pgmaps/objects/poisons/raw all unequal");
	mmc_norm_destroy(n);

	/* obj#0 in the direct map and obj#0 in the kernel image differ */
	err = mmc_norm_create(l, g, NULL, 0, &n);
	if (!err) {
		struct mmc_nval a = mmc_norm_value(n, pfn, b->obj_kimage);
		struct mmc_nval c = v[10];

		tap_ok(a.cls == MMC_V_OBJ && a.v == 0 && c.v == 0 &&
		       !mmc_nval_equal(&a, &c), "same OBJ number, other region: unequal");
		a = mmc_norm_value(n, pfn, b->obj_kimage);
		tap_ok(a.v == 0, "same address, same number");
		tap_ok(mmc_norm_obj_count(n) == 1, "one object numbered");
		/* past the first table size: numbers stay first-appearance */
		all_unequal = 1;
		for (i = 0; i < 5000; i++) {
			struct mmc_nval o = mmc_norm_value(n, pfn,
							   g->page_offset_base + 64 * i);

			all_unequal &= o.cls == MMC_V_OBJ && o.v == (int64_t)i + 1;
		}
		for (i = 0; i < 5000; i += 7) {
			struct mmc_nval o = mmc_norm_value(n, pfn,
							   g->page_offset_base + 64 * i);

			all_unequal &= o.v == (int64_t)i + 1;
		}
		tap_ok(all_unequal && mmc_norm_obj_count(n) == 5001 &&
		       !mmc_norm_failed(n), "5000 objects numbered 1..5000, stable");
		mmc_norm_destroy(n);
	}
	mmc_error_destroy(err);
}

static void test_corrupt(const struct mmc_layout *l, const struct boot *b)
{
	const struct mmc_geom *g = &b->geom;
	struct mmc_norm *n;
	struct mmc_error *err;
	struct mmc_nrec r;
	uint8_t p[SPS];
	unsigned int i;
	int ok;

	err = mmc_norm_create(l, g, b->pgmap, 2, &n);
	if (!tap_ok(!err, "create for corrupt pages")) {
		mmc_error_destroy(err);
		return;
	}
	mk_tail(b, p, HEAD);
	le_put64(p + 8, g->vmemmap_base - SPS + 1);		/* just below vmemmap */
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(r.slot[1].cls == MMC_V_RAW, "compound_head below vmemmap: raw");
	le_put64(p + 8, g->vmemmap_end + 1);		/* just past the end */
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(r.slot[1].cls == MMC_V_RAW, "compound_head past vmemmap_end: raw");
	le_put64(p + 8, 0x1234567);
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(cls_is(&r.slot[1], MMC_V_RAW, 0x1234567, 0), "odd junk compound_head: raw");
	le_put64(p + 8, page_addr(g, HEAD) + 3);
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(cls_is(&r.slot[1], MMC_V_PAGE, -5, 3), "misaligned head pointer keeps off 3");

	memset(p, 0xff, SPS);
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	ok = 1;
	for (i = 0; i < r.nslots; i++)
		ok &= cls_is(&r.slot[i], MMC_V_RAW, -1, 0);
	tap_ok(ok, "all -1 page: every slot raw -1");

	/* pfn 0 and the last pfn: no underflow */
	mk_order0(b, p, 0);
	le_put64(p + 24, page_addr(g, 0));
	mmc_norm_page(n, ((g->vmemmap_end - g->vmemmap_base) / SPS) - 1, p,
		      MMC_ROLE_ALTMAP, &r);
	tap_ok(r.slot[3].cls == MMC_V_PAGE &&
	       r.slot[3].v == -(int64_t)(((g->vmemmap_end - g->vmemmap_base) / SPS) - 1) &&
	       r.role == MMC_ROLE_ALTMAP, "pointer to pfn 0 from the last pfn");
	mmc_norm_destroy(n);

	/* without a poison delta small values are integers, not poison */
	{
		struct mmc_geom g0 = *g;

		g0.poison_pointer_delta = 0;
		err = mmc_norm_create(l, &g0, NULL, 0, &n);
		if (!err) {
			struct mmc_nval v = mmc_norm_value(n, 1, 0x400);

			tap_ok(v.cls == MMC_V_RAW, "no poison delta: 0x400 raw");
			mmc_norm_destroy(n);
		}
		mmc_error_destroy(err);
	}
}

static void test_boots(const struct mmc_layout *l)
{
	struct boot a, b;
	struct mmc_nrec ra[6], rb[6];
	unsigned int i;
	int eq = 1;

	boot_a(&a);
	boot_b(&b);
	if (normalise_sample(l, &a, ra) || normalise_sample(l, &b, rb)) {
		tap_ok(0, "normalise two boots");
		return;
	}
	for (i = 0; i < 6; i++) {
		if (!recs_equal(&ra[i], &rb[i])) {
			eq = 0;
			tap_diag("record %u differs between boots", i);
		}
	}
	tap_ok(eq, "two boots (KASLR, pgmaps, objects moved) normalise equal");
	tap_ok(ra[1].slot[1].raw != rb[1].slot[1].raw, "their raw values differ");

	/* a patched kernel whose tail points at the wrong head differs */
	{
		struct mmc_norm *n;
		struct mmc_error *err = mmc_norm_create(l, &b.geom, b.pgmap, 2, &n);
		struct mmc_nrec r;
		uint8_t p[SPS];

		if (!err) {
			mk_tail(&b, p, HEAD + 1);
			mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
			tap_ok(!recs_equal(&ra[4], &r), "tail with another head differs");
			mk_tail(&b, p, HEAD);
			le_put32(p + 52, 1);
			mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
			tap_ok(!recs_equal(&ra[4], &r), "tail with refcount 1 differs");
			mk_order0(&b, p, 1);
			mmc_norm_page(n, PFN0, p, MMC_ROLE_DEVICE, &r);
			tap_ok(!recs_equal(&ra[0], &r), "page in another pgmap differs");
			mmc_norm_destroy(n);
		}
		mmc_error_destroy(err);
	}
}

/* 7.2: pgmap in struct folio, compound_info, and the mask encoding. */
static void test_72(void)
{
	struct mmc_layout l;
	struct boot b;
	struct mmc_norm *n;
	struct mmc_error *err;
	struct mmc_nrec r;
	uint8_t p[SPS];
	uint64_t mask9 = ~((1ULL << (9 + 6)) - 1) | 1;
	uint64_t mask19 = ~((1ULL << (19 + 6)) - 1) | 1;
	unsigned int order = 0;

	if (mmc_test_layout_72(&l)) {
		tap_ok(0, "7.2 fixture");
		return;
	}
	boot_a(&b);
	mmc_test_geom_72(&b.geom);
	err = mmc_norm_create(&l, &b.geom, b.pgmap, 2, &n);
	if (!tap_ok(!err, "7.2: create")) {
		mmc_error_destroy(err);
		mmc_test_layout_release(&l);
		return;
	}
	mk_head(&b, p);
	mmc_norm_page(n, HEAD, p, MMC_ROLE_DEVICE, &r);
	tap_ok(cls_is(&r.slot[1], MMC_V_PGMAP, 1, 0), "7.2 head: folio pgmap#1");
	mk_tail(&b, p, HEAD);
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(cls_is(&r.slot[1], MMC_V_PAGE, -5, 1), "7.2 tail: compound_info head+1");
	le_put64(p + 8, mask9);
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(cls_is(&r.slot[1], MMC_V_RAW, (int64_t)mask9, 0),
	       "7.2 tail: mask compound_info kept raw");
	tap_ok(mmc_compound_info_is_mask(SPS, mask9, &order) && order == 9,
	       "mask recognised, order 9");
	le_put64(p + 8, mask19);
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(r.slot[1].cls == MMC_V_RAW,
	       "order-19 mask (inside the module range) stays raw in compound slot");
	tap_ok(mmc_norm_value(n, HEAD, mask19).cls == MMC_V_OBJ,
	       "the same value elsewhere is a module pointer");
	tap_ok(!mmc_compound_info_is_mask(SPS, page_addr(&b.geom, HEAD) + 1, NULL) &&
	       !mmc_compound_info_is_mask(SPS, ~0ULL, NULL) &&
	       !mmc_compound_info_is_mask(SPS, 1, NULL) &&
	       !mmc_compound_info_is_mask(SPS, ~((1ULL << 6) - 1) | 1, NULL) &&
	       !mmc_compound_info_is_mask(SPS, mask9 & ~1ULL, NULL) &&
	       !mmc_compound_info_is_mask(56, ~((1ULL << 15) - 1) | 1, NULL),
	       "pointers, -1, 1, order 0, even values, non-power-of-2 pages: no mask");
	/* page[1]'s _mm_ids (+104 of the folio = slot 5 of page[1]) */
	mk_tail(&b, p, HEAD);
	le_put64(p + 40, 0xb);
	mmc_norm_page(n, HEAD + 1, p, MMC_ROLE_DEVICE, &r);
	tap_ok(r.slot[5].cls == MMC_V_OBJ && r.slot[5].region == MMC_R_MMID,
	       "7.2 page[1]: _mm_ids numbered as an mm id");
	mmc_norm_page(n, HEAD + 5, p, MMC_ROLE_DEVICE, &r);
	tap_ok(r.slot[5].cls == MMC_V_RAW && r.slot[5].v == 0xb,
	       "the same word in another tail stays raw");
	{
		struct mmc_norm *n2;
		struct mmc_nrec r2;

		if (!mmc_norm_create(&l, &b.geom, b.pgmap, 2, &n2)) {
			mmc_norm_page(n, HEAD + 1, p, MMC_ROLE_DEVICE, &r);
			le_put64(p + 40, 0xc);	/* another boot: another free id */
			mmc_norm_page(n2, HEAD + 1, p, MMC_ROLE_DEVICE, &r2);
			/* numbers depend on what each image met first; diff pairs them */
			tap_ok(r.slot[5].cls == MMC_V_OBJ && r2.slot[5].cls == MMC_V_OBJ &&
			       r.slot[5].region == MMC_R_MMID && r2.slot[5].region == MMC_R_MMID &&
			       r2.slot[5].v == 0,
			       "mm id 0xc in another boot: the same class, numbered from 0 there");
			le_put64(p + 40, 0);
			mmc_norm_page(n2, HEAD + 1, p, MMC_ROLE_DEVICE, &r2);
			tap_ok(r2.slot[5].cls == MMC_V_NULL, "no mm: NULL, not numbered");
			mmc_norm_destroy(n2);
		}
	}
	mmc_norm_destroy(n);
	mmc_test_layout_release(&l);
}

/*
 * A pointer to a struct page outside the walked ranges (a driver's backing
 * page in System RAM) names an allocation: two boots that allocated it
 * elsewhere must compare equal, two different targets in one image must not,
 * and pointers inside the ranges keep their exact page deltas.
 */
static void test_outside_ranges(const struct mmc_layout *l, const struct boot *b)
{
	const struct mmc_geom *g = &b->geom;
	struct mmc_srange r = { .start_pfn = PFN0, .end_pfn = PFN0 + 512 };
	uint64_t pfn = PFN0 + 10, ram_a = 0x3692, ram_b = 0x5123;
	struct mmc_nval in, out1, out2, out1_again, boot2;
	struct mmc_norm *n = NULL, *n2 = NULL;
	struct mmc_error *err;

	err = mmc_norm_create(l, g, b->pgmap, 2, &n);
	if (!err)
		err = mmc_norm_set_ranges(n, &r, 1);
	if (!err)
		err = mmc_norm_create(l, g, b->pgmap, 2, &n2);
	if (!err)
		err = mmc_norm_set_ranges(n2, &r, 1);
	if (!tap_ok(!err, "create with ranges")) {
		mmc_error_destroy(err);
		mmc_norm_destroy(n);
		mmc_norm_destroy(n2);
		return;
	}
	in = mmc_norm_value(n, pfn, page_addr(g, pfn + 3) + 8);
	out1 = mmc_norm_value(n, pfn, page_addr(g, ram_a) + 8);
	out2 = mmc_norm_value(n, pfn, page_addr(g, ram_b) + 8);
	out1_again = mmc_norm_value(n, pfn + 1, page_addr(g, ram_a) + 8);
	boot2 = mmc_norm_value(n2, pfn, page_addr(g, ram_b) + 8);
	tap_ok(in.cls == MMC_V_PAGE && in.v == 3, "inside the ranges: page+3");
	tap_ok(out1.cls == MMC_V_OBJ && out1.region == MMC_R_VMEMMAP && out1.v == 0,
	       "outside the ranges: obj#0 in the vmemmap");
	tap_ok(out2.cls == MMC_V_OBJ && out2.v == 1 && !mmc_nval_equal(&out1, &out2),
	       "another struct page outside: obj#1, unequal");
	tap_ok(mmc_nval_equal(&out1, &out1_again), "the same target from another pfn: equal");
	tap_ok(mmc_nval_equal(&out1, &boot2),
	       "another boot allocated it elsewhere: equal (first appearance)");
	mmc_norm_destroy(n);
	mmc_norm_destroy(n2);
}

int main(void)
{
	struct mmc_layout l;
	struct boot b;

	if (mmc_test_layout_612(&l)) {
		tap_ok(0, "6.12 fixture");
		return tap_done();
	}
	boot_a(&b);
	test_create(&l, &b);
	test_pages(&l, &b);
	test_classes(&l, &b);
	test_outside_ranges(&l, &b);
	test_corrupt(&l, &b);
	test_boots(&l);
	test_72();
	mmc_test_layout_release(&l);
	return tap_done();
}
