// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Page decoder: flags, zone/node, head/tail, pgmap, counters of 6.12 and
 * 7.2 pages built byte by byte and normalised; folio fields; corrupt pages;
 * formatting and slot labels.
 */
#include <stdint.h>
#include <string.h>

#include "bytes.h"
#include "layout_fixture.h"
#include "normalise.h"
#include "page_decode.h"
#include "tap.h"

#define SPS 64
#define HEAD 0x100200ULL
#define PFN0 0x100000ULL

static const uint64_t pgmaps[2] = { 0xffff888100200000ULL, 0xffff888100300400ULL };

static uint64_t addr(const struct mmc_geom *g, uint64_t pfn)
{
	return g->vmemmap_base + pfn * SPS;
}

/* zone 4 (ZONE_DEVICE), node 1, PG_reserved, plus `more` */
static uint64_t dev_flags(uint64_t more)
{
	return (4ULL << 61) | (1ULL << 55) | (1ULL << 13) | more;
}

struct img {
	struct mmc_layout l;
	struct mmc_geom g;
	struct mmc_norm *n;
};

static int img_open(struct img *im, int v72)
{
	struct mmc_error *err;

	if (v72 ? mmc_test_layout_72(&im->l) : mmc_test_layout_612(&im->l))
		return -1;
	if (v72)
		mmc_test_geom_72(&im->g);
	else
		mmc_test_geom(&im->g);
	err = mmc_norm_create(&im->l, &im->g, pgmaps, 2, &im->n);
	if (err) {
		mmc_error_destroy(err);
		mmc_test_layout_release(&im->l);
		return -1;
	}
	return 0;
}

static void img_close(struct img *im)
{
	mmc_norm_destroy(im->n);
	mmc_test_layout_release(&im->l);
}

/* A 2M compound page: head, page[1], page[2]; and tail 5. */
static void mk_folio(struct img *im, struct mmc_nrec *r, uint64_t tail5_info,
		     int v72)
{
	uint8_t p[SPS];

	memset(p, 0, SPS);
	le_put64(p + 0, dev_flags(1ULL << 6));
	le_put64(p + 8, pgmaps[1]);
	le_put32(p + 48, 0xffffffff);
	le_put32(p + 52, 2);
	mmc_norm_page(im->n, HEAD, p, MMC_ROLE_DEVICE, &r[0]);

	memset(p, 0, SPS);
	le_put64(p + 0, dev_flags(9));		/* order 9 in _flags_1 */
	le_put64(p + 8, addr(&im->g, HEAD) + 1);
	if (v72) {
		le_put32(p + 16, 0xffffffff);	/* _large_mapcount */
		le_put32(p + 20, 0);		/* _nr_pages_mapped */
		le_put32(p + 24, 0xffffffff);	/* _entire_mapcount */
		le_put32(p + 28, 3);		/* _pincount */
	} else {
		le_put32(p + 16, 0xffffffff);	/* _large_mapcount */
		le_put32(p + 20, 0xfffffffe);	/* _entire_mapcount */
		le_put32(p + 24, 7);		/* _nr_pages_mapped */
		le_put32(p + 28, 3);		/* _pincount */
		le_put32(p + 32, 512);		/* _folio_nr_pages */
	}
	le_put32(p + 48, 0xffffffff);
	mmc_norm_page(im->n, HEAD + 1, p, MMC_ROLE_DEVICE, &r[1]);

	memset(p, 0, SPS);
	le_put64(p + 0, dev_flags(0));
	le_put64(p + 8, addr(&im->g, HEAD) + 1);
	le_put64(p + 16, addr(&im->g, HEAD + 2) + 16);
	le_put64(p + 24, v72 ? addr(&im->g, HEAD + 2) + 16 :
			   im->g.poison_pointer_delta + 0x400);
	le_put32(p + 48, 0xffffffff);
	mmc_norm_page(im->n, HEAD + 2, p, MMC_ROLE_DEVICE, &r[2]);

	memset(p, 0, SPS);
	le_put64(p + 0, dev_flags(0));
	le_put64(p + 8, tail5_info);
	le_put64(p + 24, im->g.poison_pointer_delta + 0x400);
	le_put32(p + 48, 0xffffffff);
	mmc_norm_page(im->n, HEAD + 5, p, MMC_ROLE_DEVICE, &r[3]);
}

static void test_612(void)
{
	struct img im;
	struct mmc_nrec r[4], z;
	struct mmc_page_view v;
	struct mmc_folio_view f;
	uint8_t p[SPS];
	uint64_t x;

	if (!tap_ok(img_open(&im, 0) == 0, "6.12 image"))
		return;
	/* order-0 */
	memset(p, 0, SPS);
	le_put64(p + 0, dev_flags(0));
	le_put64(p + 8, pgmaps[0]);
	le_put64(p + 32, 0x77);
	le_put32(p + 48, 0xffffffff);
	le_put32(p + 52, 1);
	mmc_norm_page(im.n, PFN0, p, MMC_ROLE_DEVICE, &z);
	mmc_page_decode(&im.l, &im.g, PFN0, &z, &v);
	tap_ok(v.pfn == PFN0 && v.flags_raw == dev_flags(0), "order-0: flags word");
	TAP_EQ_U64(v.pgflags, 1ULL << 13, "order-0: pgflags = PG_reserved");
	tap_ok(v.zone == 4 && v.node == 1, "order-0: zone 4, node 1");
	tap_ok(!v.head && !v.tail && !v.head_pfn_valid, "order-0: neither head nor tail");
	tap_ok(v.have_pgmap && v.pgmap.cls == MMC_V_PGMAP && v.pgmap.v == 0,
	       "order-0: pgmap#0");
	tap_ok(v.mapcount == -1 && v.refcount == 1, "order-0: mapcount -1, refcount 1");
	tap_ok(v.index == 0x77, "order-0: index");
	tap_ok(v.mapping.cls == MMC_V_NULL && v.zone_device_data.cls == MMC_V_NULL &&
	       v.private_.cls == MMC_V_NULL, "order-0: NULL mapping/zdd/private");
	tap_ok(v.lru_next.cls == MMC_V_PGMAP && v.lru_prev.cls == MMC_V_NULL,
	       "order-0: lru overlays pgmap/zone_device_data");

	mk_folio(&im, r, addr(&im.g, HEAD) + 1, 0);
	mmc_page_decode(&im.l, &im.g, HEAD, &r[0], &v);
	tap_ok(v.head && !v.tail && v.have_pgmap && v.pgmap.v == 1 &&
	       v.refcount == 2, "head: PG_head, pgmap#1, refcount 2");
	mmc_page_decode(&im.l, &im.g, HEAD + 1, &r[1], &v);
	tap_ok(v.tail && v.head_pfn_valid && v.head_pfn == HEAD && !v.head &&
	       !v.have_pgmap && !v.compound_mask, "page[1]: tail of HEAD, no pgmap");
	mmc_page_decode(&im.l, &im.g, HEAD + 5, &r[3], &v);
	tap_ok(v.tail && v.head_pfn_valid && v.head_pfn == HEAD &&
	       v.mapping.cls == MMC_V_POISON && v.refcount == 0,
	       "tail 5: head HEAD, TAIL_MAPPING, refcount 0");

	mmc_folio_decode(&im.l, &im.g, r, 3, &f);
	tap_ok(f.valid && f.order == 9, "folio: order 9 from _flags_1");
	tap_ok(f.have_nr_pages && f.nr_pages == 512, "folio: _folio_nr_pages 512");
	tap_ok(f.have_large_mapcount && f.large_mapcount == -1 &&
	       f.have_entire_mapcount && f.entire_mapcount == -2 &&
	       f.have_nr_pages_mapped && f.nr_pages_mapped == 7 &&
	       f.have_pincount && f.pincount == 3, "folio: mapcounts and pincount");
	tap_ok(f.have_deferred_list && f.deferred_next.cls == MMC_V_SELF &&
	       f.deferred_next.off == 16 && f.deferred_prev.cls == MMC_V_POISON,
	       "folio: _deferred_list next self+16, prev TAIL_MAPPING");
	mmc_folio_decode(&im.l, &im.g, r, 2, &f);
	tap_ok(f.valid && f.order == 9 && !f.have_deferred_list,
	       "folio with page[2] missing: no _deferred_list");
	mmc_folio_decode(&im.l, &im.g, &r[1], 2, &f);
	tap_ok(!f.valid, "folio decode from a non-head: invalid");
	r[1].state = MMC_PS_UNREADABLE;
	mmc_folio_decode(&im.l, &im.g, r, 3, &f);
	tap_ok(!f.valid, "folio with unreadable page[1]: invalid");
	r[1].state = MMC_PS_READ;

	tap_ok(mmc_nrec_member_u64(&im.l, &r[1], MMC_FOLIO_PINCOUNT, SPS, &x) && x == 3,
	       "member_u64: _pincount of page[1]");
	tap_ok(!mmc_nrec_member_u64(&im.l, &r[1], MMC_FOLIO_PINCOUNT, 0, &x),
	       "member_u64: folio member out of a base-0 record");
	tap_ok(!mmc_nrec_member_u64(&im.l, &r[0], MMC_PAGE_PGMAP, 0, &x),
	       "member_u64: pointer slot is not an integer");
	tap_ok(!mmc_nrec_member_u64(&im.l, &r[0], MMC_FOLIO_MM_IDS, 0, &x),
	       "member_u64: absent member");

	/* corrupt tails */
	memset(p, 0, SPS);
	le_put64(p + 0, dev_flags(0));
	le_put64(p + 8, 0x1234567);
	mmc_norm_page(im.n, HEAD + 5, p, MMC_ROLE_DEVICE, &z);
	mmc_page_decode(&im.l, &im.g, HEAD + 5, &z, &v);
	tap_ok(v.tail && !v.head_pfn_valid, "odd junk compound_head: tail, no head pfn");
	le_put64(p + 8, addr(&im.g, HEAD) + 3);
	mmc_norm_page(im.n, HEAD + 5, p, MMC_ROLE_DEVICE, &z);
	mmc_page_decode(&im.l, &im.g, HEAD + 5, &z, &v);
	tap_ok(v.tail && !v.head_pfn_valid, "head + 3: tail, no head pfn");
	le_put64(p + 8, im.g.vmemmap_end + 0x41);
	mmc_norm_page(im.n, HEAD + 5, p, MMC_ROLE_DEVICE, &z);
	mmc_page_decode(&im.l, &im.g, HEAD + 5, &z, &v);
	tap_ok(v.tail && !v.head_pfn_valid, "head outside vmemmap: no head pfn");
	le_put64(p + 8, 0xffff888100000000ULL);
	mmc_norm_page(im.n, HEAD + 5, p, MMC_ROLE_DEVICE, &z);
	mmc_page_decode(&im.l, &im.g, HEAD + 5, &z, &v);
	tap_ok(!v.tail && v.have_pgmap && v.pgmap.cls == MMC_V_OBJ,
	       "even object pointer: not a tail, pgmap is an object");
	memset(p, 0xff, SPS);
	mmc_norm_page(im.n, HEAD + 5, p, MMC_ROLE_DEVICE, &z);
	mmc_page_decode(&im.l, &im.g, HEAD + 5, &z, &v);
	tap_ok(v.tail && !v.head_pfn_valid && v.head && v.zone == 7 &&
	       v.node == 63 && v.mapcount == -1 && v.refcount == -1 &&
	       v.pgflags == (1ULL << 21) - 1, "all -1 page decodes without trust");
	r[0].nslots = 0;
	mmc_page_decode(&im.l, &im.g, HEAD, &r[0], &v);
	tap_ok(!v.head && !v.tail && v.pfn == HEAD, "empty record: nothing");
	img_close(&im);
}

static void test_72(void)
{
	struct img im;
	struct mmc_nrec r[4];
	struct mmc_page_view v;
	struct mmc_folio_view f;
	uint64_t mask9 = ~((1ULL << 15) - 1) | 1;

	if (!tap_ok(img_open(&im, 1) == 0, "7.2 image"))
		return;
	mk_folio(&im, r, mask9, 1);
	mmc_page_decode(&im.l, &im.g, HEAD, &r[0], &v);
	tap_ok(v.head && v.have_pgmap && v.pgmap.cls == MMC_V_PGMAP && v.pgmap.v == 1,
	       "7.2 head: folio pgmap#1");
	mmc_page_decode(&im.l, &im.g, HEAD + 1, &r[1], &v);
	tap_ok(v.tail && v.head_pfn == HEAD && !v.have_pgmap,
	       "7.2 page[1]: compound_info head+1, no pgmap");
	mmc_page_decode(&im.l, &im.g, HEAD + 5, &r[3], &v);
	tap_ok(v.tail && v.head_pfn_valid && v.compound_mask && v.head_pfn == HEAD,
	       "7.2 tail 5: mask compound_info gives head HEAD");
	mmc_page_decode(&im.l, &im.g, HEAD + 511, &r[3], &v);
	tap_ok(v.head_pfn_valid && v.head_pfn == HEAD, "7.2 tail 511: head HEAD");
	mmc_page_decode(&im.l, &im.g, HEAD + 512, &r[3], &v);
	tap_ok(v.head_pfn_valid && v.head_pfn == HEAD + 512,
	       "the mask at pfn HEAD+512 names that pfn (decoder follows the kernel)");
	mmc_folio_decode(&im.l, &im.g, r, 3, &f);
	tap_ok(f.valid && f.order == 9 && !f.have_nr_pages,
	       "7.2 folio: order from _flags_1.f, no _folio_nr_pages");
	tap_ok(f.large_mapcount == -1 && f.nr_pages_mapped == 0 &&
	       f.entire_mapcount == -1 && f.pincount == 3, "7.2 folio: counters");
	tap_ok(f.have_deferred_list && f.deferred_next.cls == MMC_V_SELF &&
	       f.deferred_prev.cls == MMC_V_SELF && f.deferred_prev.off == 16,
	       "7.2 folio: _deferred_list keeps self-pointers");
	img_close(&im);
}

/* 6.1: _folio_order byte instead of the low byte of _flags_1. */
static void test_61_order(void)
{
	struct img im;
	struct mmc_nrec r[4];
	struct mmc_folio_view f;

	if (!tap_ok(img_open(&im, 0) == 0, "6.1-like image"))
		return;
	mmc_test_member(&im.l, MMC_FOLIO_DTOR, "_folio_dtor", 80, 1, 0);
	mmc_test_member(&im.l, MMC_FOLIO_ORDER, "_folio_order", 81, 1, 0);
	mk_folio(&im, r, addr(&im.g, HEAD) + 1, 0);
	mmc_folio_decode(&im.l, &im.g, r, 3, &f);
	tap_ok(f.valid && f.order == 0xff, "_folio_order read from byte 81");
	img_close(&im);
}

static void test_format(void)
{
	struct img im;
	char buf[160];
	struct mmc_nval nv;

	if (!tap_ok(img_open(&im, 0) == 0, "image for formats"))
		return;
	mmc_format_pgflags(&im.l, (1ULL << 13) | (1ULL << 6), buf, sizeof(buf));
	tap_ok(!strcmp(buf, "PG_head|PG_reserved"), "pgflags: %s", buf);
	mmc_format_pgflags(&im.l, (1ULL << 10) | (1ULL << 20) | (1ULL << 40), buf,
			   sizeof(buf));
	tap_ok(!strcmp(buf, "PG_owner_priv_1|PG_hwpoison|bit40"), "pgflags: %s", buf);
	mmc_format_pgflags(&im.l, 1ULL << 21, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "bit21"), "__NR_PAGEFLAGS is not a flag name: %s", buf);
	mmc_format_pgflags(&im.l, 0, buf, sizeof(buf));
	tap_ok(buf[0] == '\0', "no flags: empty");
	memset(buf, 'x', sizeof(buf));
	mmc_format_pgflags(&im.l, ~0ULL, buf, 9);
	tap_ok(strlen(buf) == 8, "pgflags truncated within the buffer");

	memset(&nv, 0, sizeof(nv));
	nv.cls = MMC_V_NULL;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "NULL"), "%s", buf);
	nv.cls = MMC_V_SELF; nv.off = 8;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "self+8"), "%s", buf);
	nv.cls = MMC_V_PAGE; nv.v = -3; nv.off = 1;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "page-3+1"), "%s", buf);
	nv.v = 2; nv.off = 16;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "page+2+16"), "%s", buf);
	nv.cls = MMC_V_PGMAP; nv.v = 0; nv.off = 0;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "pgmap#0"), "%s", buf);
	nv.cls = MMC_V_POISON; nv.v = 0x400;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "TAIL_MAPPING"), "%s", buf);
	nv.v = 0x5;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "POISON+0x5"), "%s", buf);
	nv.cls = MMC_V_OBJ; nv.v = 2; nv.region = MMC_R_DIRECT;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "obj#2(direct)"), "%s", buf);
	nv.cls = MMC_V_RAW; nv.v = 0x1234;
	mmc_format_nval(&nv, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "0x1234"), "%s", buf);
	nv.cls = 99;
	mmc_format_nval(&nv, buf, 4);
	tap_ok(strlen(buf) == 3, "unknown class, small buffer");
	img_close(&im);
}

struct label_case {
	unsigned int slot, tail;
	const char *want;
};

static void check_labels(const struct mmc_layout *l, const char *what,
			 const struct label_case *c, size_t n)
{
	char buf[96];
	size_t i;

	for (i = 0; i < n; i++) {
		const char *got = mmc_slot_label_of(l, MMC_RANGE_PGMAP, c[i].slot, c[i].tail,
						    buf, sizeof(buf));

		tap_ok(got == buf && !strcmp(got, c[i].want),
		       "%s slot %u tail %u: %s (want %s)", what, c[i].slot,
		       c[i].tail, got, c[i].want);
	}
}

static void test_labels(void)
{
	static const struct label_case l612[] = {
		{ 0, 0, "flags" }, { 1, 0, "pgmap" }, { 2, 0, "zone_device_data" },
		{ 3, 0, "mapping" }, { 4, 0, "index" }, { 5, 0, "private" },
		{ 6, 0, "_mapcount+_refcount" }, { 7, 0, "memcg_data" },
		{ 9, 0, "+0x48" },
		{ 0, 1, "_flags_1" }, { 1, 1, "compound_head" },
		{ 2, 1, "_large_mapcount+_entire_mapcount" },
		{ 3, 1, "_nr_pages_mapped+_pincount" }, { 4, 1, "_folio_nr_pages" },
		{ 5, 1, "private" }, { 6, 1, "_mapcount+_refcount" },
		{ 0, 2, "flags" }, { 1, 2, "compound_head" },
		{ 2, 2, "_deferred_list.next" }, { 3, 2, "_deferred_list.prev" },
		{ 4, 2, "index" },
		{ 1, 3, "compound_head" }, { 2, 3, "zone_device_data" },
		{ 3, 3, "mapping" }, { 6, 3, "_mapcount+_refcount" },
	};
	static const struct label_case l72[] = {
		{ 0, 0, "flags.f" }, { 1, 0, "pgmap" }, { 4, 0, "__folio_index" },
		{ 0, 1, "_flags_1.f" }, { 1, 1, "compound_info" },
		{ 2, 1, "_large_mapcount+_nr_pages_mapped" },
		{ 3, 1, "_entire_mapcount+_pincount" },
		{ 4, 1, "_mm_id_mapcount" }, { 5, 1, "_mm_ids" },
		{ 6, 1, "_mapcount+_refcount" }, { 7, 1, "memcg_data" },
		{ 2, 2, "_deferred_list.next" }, { 1, 3, "compound_info" },
	};
	struct mmc_layout l;
	char small[6];

	if (mmc_test_layout_612(&l) == 0) {
		check_labels(&l, "6.12", l612, sizeof(l612) / sizeof(l612[0]));
		mmc_slot_label_of(&l, MMC_RANGE_PGMAP, 2, 1, small, sizeof(small));
		tap_ok(strlen(small) == 5, "label truncated within the buffer");
		/* 6.1: three members in one slot */
		mmc_test_member(&l, MMC_FOLIO_DTOR, "_folio_dtor", 80, 1, 0);
		mmc_test_member(&l, MMC_FOLIO_ORDER, "_folio_order", 81, 1, 0);
		l.member[MMC_FOLIO_LARGE_MAPCOUNT].found = false;
		check_labels(&l, "6.1",
			     (const struct label_case[]){
				     { 2, 1, "_folio_dtor+_folio_order+_entire_mapcount" } },
			     1);
	}
	mmc_test_layout_release(&l);
	if (mmc_test_layout_72(&l) == 0)
		check_labels(&l, "7.2", l72, sizeof(l72) / sizeof(l72[0]));
	mmc_test_layout_release(&l);
}

int main(void)
{
	test_612();
	test_72();
	test_61_order();
	test_format();
	test_labels();
	return tap_done();
}
