// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Claims' where on the kinds of range beyond ZONE_DEVICE (engine/claims.c,
 * engine/diff_claims_range.c): kind= and order=, and the pgmap keys (type,
 * shift, altmap, flags), which match pgmap ranges only.  A hand-built pair
 * holds one range of each: device-dax in 2 MiB compound pages, HugeTLB of
 * a 2 MiB and of a 1 GiB hstate, a hot-plugged memory block.
 *
 * [proof]: the expected answer follows from the grammar (doc/CLAIMS.md)
 * and from how the pair was built: which pages a mutation changes in
 * which range, counted from the geometry here, not from the diff.  Each
 * case is judged chunk by chunk and page by page (MEMMAPCHECK_PER_PAGE's
 * mode) against the same counts.
 *
 * Field names bind by the kind of range too: the word at offset 16 is
 * zone_device_data on a ZONE_DEVICE page and lru.prev elsewhere
 * (include/linux/mm_types.h: the union of lru with pgmap and
 * zone_device_data), so a claim naming one covers that word only in the
 * ranges where the kernel calls it so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "snapshot.h"
#include "snapshot_pair.h"
#include "tap.h"

/* The ranges, in pfn order (the diff's range numbers when both have all). */
enum { R_DAX, R_H2M, R_H1G, R_PLUG, NR };

static const struct pair_range rg[NR] = {
	[R_DAX] = { 0x100000, 2048, MMC_RANGE_PGMAP, 0, 9 },	/* vmemmap_shift 9 */
	[R_H2M] = { 0x200000, 2048, MMC_RANGE_HUGETLB, 0, 9 },	/* hugepages-2048kB */
	[R_H1G] = { 0x240000, 1ULL << 18, MMC_RANGE_HUGETLB, 1, 18 },	/* hugepages-1048576kB */
	[R_PLUG] = { 0x300000, 0x8000, MMC_RANGE_HOTPLUG, 0, 0 },	/* a 128 MiB block */
};

/* Pages of range i whose _refcount the mutation changes: page[3] and on of
 * every compound page (0 -> 1), every order-0 page (1 -> 2). */
static uint64_t ref_pages(size_t i)
{
	return rg[i].order ? rg[i].pages - (rg[i].pages >> rg[i].order) * 3 : rg[i].pages;
}

/* What b's kernel did differently (a takes the same struct for its own). */
struct kmut {
	bool ref;		/* the _refcount change above */
	bool no_1g;		/* the 1 GiB HugeTLB range absent */
	uint32_t shift;		/* pgmap->vmemmap_shift, 0: 9 as built */
	bool plug_memmap;	/* the block holds its memmap (memmap_on_memory) */
	bool altmap;		/* the pgmap given an altmap (and its flag) */
	bool w16;		/* the word at offset 16 of ref's pages holds 0x5 */
};

/* The pools the HugeTLB and hot-plug ranges name, and the device-dax pgmap. */
static void add_owners(struct mmc_snapshot *s, uint64_t vbase, const struct kmut *m)
{
	struct mmc_shstate hs[2] = { { .order = 9, .nr = 4, .free = 4 },
				     { .order = 18, .nr = 1, .free = 1 } };
	struct mmc_sfolios fs[2] = {
		{ .hstate = 0, .start_pfn = rg[R_H2M].start, .nfolios = 4 },
		{ .hstate = 1, .start_pfn = rg[R_H1G].start, .nfolios = 1 },
	};
	struct mmc_smemblock mb = { .id = 48, .start_pfn = rg[R_PLUG].start,
				    .end_pfn = rg[R_PLUG].start + rg[R_PLUG].pages, .state = 1 };
	struct mmc_spgmap pg;

	snprintf(hs[0].name, sizeof(hs[0].name), "hugepages-2048kB");
	snprintf(hs[1].name, sizeof(hs[1].name), "hugepages-1048576kB");
	if (m->plug_memmap) {
		mb.flags = MMC_MEMBLOCK_SELF_HOSTED;
		mb.altmap_pfns = 512;
	}
	die(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", hs, 2, fs, m->no_1g ? 1 : 2));
	die(mmc_snapshot_set_hotplug(s, MMC_READ_DONE, "", &mb, 1));
	pair_devdax_pgmap(vbase, &pg);
	if (m->shift)
		pg.vmemmap_shift = m->shift;
	if (m->altmap) {
		pg.flags = 0x1;
		pg.has_altmap = true;
		pg.altmap_base_pfn = rg[R_DAX].start;
		pg.altmap_end_pfn = rg[R_DAX].start + rg[R_DAX].pages;
		pg.altmap_reserve = 2;
		pg.altmap_free = 32;
	}
	die(mmc_snapshot_add_pgmap(s, &pg));
}

static struct mmc_layout layout612;

/* pair_add_range() with kmut's w16: the word at offset 16 (NULL as built)
 * set on the pages ref_pages() counts: page[3] and on of every compound
 * page, every order-0 page. */
static void add_range_w16(struct mmc_snapshot *s, uint64_t vbase, const struct pair_range *g)
{
	struct mmc_srange r;
	struct mmc_nrec x;

	memset(&r, 0, sizeof(r));
	r.start_pfn = g->start;
	r.end_pfn = g->start + g->pages;
	r.kind = (uint8_t)g->kind;
	r.owner = g->owner;
	r.pgmap_index = g->kind == MMC_RANGE_PGMAP ? 0 : MMC_NO_PGMAP;
	die(mmc_snapshot_begin_range(s, &r));
	for (uint64_t p = r.start_pfn; p < r.end_pfn; p++) {
		pair_rec(vbase, p, r.start_pfn, g->order, false, &x);
		if (!g->order || ((p - r.start_pfn) & ((1ULL << g->order) - 1)) >= 3)
			x.slot[2] = raw(0x5);
		die(mmc_snapshot_append(s, &x));
	}
	pair_add_vframes(s, g);
	die(mmc_snapshot_end_range(s));
}

static struct mmc_snapshot *build(uint64_t vbase, const struct kmut *m)
{
	struct mmc_snapshot *s;
	struct mmc_geom g;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(&layout612, &g, "t", "test", &s));
	add_owners(s, vbase, m);
	for (size_t i = 0; i < NR; i++)
		if (m->w16)
			add_range_w16(s, vbase, &rg[i]);
		else if (!(i == R_H1G && m->no_1g))
			pair_add_range(s, vbase, &rg[i], rg[i].order, m->ref,
				       i == R_PLUG && m->plug_memmap ? 512 : 0);
	return s;
}

/* a against b with the claims text. */
static struct mmc_diff_result *diff_pair(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
					 const char *text, bool per_page)
{
	struct mmc_diff_opts o = { .max_pages = 3, .max_groups = 1000, .per_page = per_page };
	struct mmc_diff_result *res = NULL;

	die(pair_claims_diff(a, b, "k.claims", text, o, &res));
	return res;
}

/* a built with ma against b built with mb, with the claims text. */
static struct mmc_diff_result *diff_kinds(const struct kmut *ma, const struct kmut *mb,
					  const char *text, bool per_page)
{
	struct mmc_snapshot *a = build(VBASE_A, ma), *b = build(VBASE_B, mb);
	struct mmc_diff_result *res = diff_pair(a, b, text, per_page);

	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
	return res;
}

/* ---- struct pages: which ranges a where line selects ---- */

struct sel {
	const char *where;
	unsigned int ranges;	/* bits 1 << R_*: the ranges it selects */
	const char *why;
};

/* Every range selected claimed in full, every other one beyond, the
 * claim's pages their sum (unseen when it is 0). */
static bool selects(const struct mmc_diff_result *res, unsigned int ranges)
{
	uint64_t claimed = 0, differing = 0;

	if (res->nranges != NR || !res->claims || res->claims->nclaims != 1)
		return false;
	for (size_t i = 0; i < NR; i++) {
		bool in = ranges & 1u << i;
		const struct mmc_diff_range *r = &res->ranges[i];

		if (r->claimed != (in ? ref_pages(i) : 0) || r->differing != (in ? 0 : ref_pages(i)) ||
		    r->verdict != (in ? MMC_AS_CLAIMED : MMC_BEYOND_CLAIMS))
			return false;
		claimed += r->claimed;
		differing += r->differing;
	}
	return res->claims->claim[0].pages == claimed && res->pages_claimed == claimed &&
	       res->pages_differing == differing && res->claims->nunseen == !claimed &&
	       res->verdict == (differing ? MMC_BEYOND_CLAIMS : MMC_AS_CLAIMED);
}

static const struct sel sel[] = {
	{ "", 0xf, "no where line: every range, of every kind, as before kind= existed" },
	{ " where kind=hugetlb\n", 1u << R_H2M | 1u << R_H1G, "kind=hugetlb: both HugeTLB ranges only" },
	{ " where kind=pgmap\n", 1u << R_DAX, "kind=pgmap: the device-dax range only" },
	{ " where kind=hotplug\n", 1u << R_PLUG, "kind=hotplug: the memory block only" },
	{ " where kind=pgmap,hotplug\n", 1u << R_DAX | 1u << R_PLUG, "kind=pgmap,hotplug: either" },
	{ " where order=9\n", 1u << R_DAX | 1u << R_H2M,
	  "order=9: the 2 MiB hstate and vmemmap_shift 9, not the 1 GiB hstate" },
	{ " where order=18\n", 1u << R_H1G, "order=18: the 1 GiB hstate only" },
	{ " where order=0\n", 1u << R_PLUG, "order=0: hot-plugged memory's order-0 pages" },
	{ " where order=1-63\n", 0x7, "order=1-63: every compound range" },
	{ " where order=10-17\n", 0, "order=10-17: none (the claim unseen)" },
	{ " where kind=hugetlb order=9\n", 1u << R_H2M, "kind=hugetlb order=9: keys AND" },
	{ " where kind=hugetlb\n where order=18,0\n", 1u << R_H1G,
	  "kind=hugetlb, then order=18,0 on another line: AND across lines" },
	{ " where type=devdax\n", 1u << R_DAX, "type=devdax never covers HugeTLB or hot-plugged pages" },
	{ " where shift=9\n", 1u << R_DAX, "shift=9 is the pgmap's: not the 2 MiB hstate" },
	{ " where shift=0-63\n", 1u << R_DAX, "shift=0-63: every pgmap, no other kind" },
	{ " where altmap=no\n", 1u << R_DAX, "altmap=no: a pgmap's, not a memory block's" },
	{ " where flags=0x0\n", 1u << R_DAX, "flags=0x0 (no bit asked): any pgmap, no other kind" },
	{ " where range=1-3\n", 0xe, "range= numbers every kind of range alike" },
	{ " where pfn=0x200000-0x300000\n", 1u << R_H2M | 1u << R_H1G, "pfn= over the HugeTLB ranges" },
};

static void test_select(void)
{
	const struct kmut none = { 0 }, ref = { .ref = true };
	struct mmc_snapshot *a = build(VBASE_A, &none), *b = build(VBASE_B, &ref);
	char text[512];

	for (size_t i = 0; i < sizeof(sel) / sizeof(sel[0]); i++) {
		snprintf(text, sizeof(text), "memmapcheck-claims 1\nclaim c\n reason r\n%s field _refcount\n",
			 sel[i].where);
		for (int pp = 0; pp < 2; pp++) {
			struct mmc_diff_result *res = diff_pair(a, b, text, pp);

			tap_ok(selects(res, sel[i].ranges), "[proof] %s (%s)", sel[i].why,
			       pp ? "page by page" : "chunk by chunk");
			mmc_diff_result_destroy(res);
		}
	}
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

/* ---- field names by the kind of range ---- */

struct named {
	const char *fields;
	unsigned int ranges;
	const char *why;
};

static const struct named named[] = {
	{ " field lru.prev\n", 1u << R_H2M | 1u << R_H1G | 1u << R_PLUG,
	  "lru.prev binds on HugeTLB and hot-plugged pages, not on a ZONE_DEVICE one" },
	{ " field zone_device_data\n", 1u << R_DAX,
	  "zone_device_data binds on a ZONE_DEVICE page, not on a HugeTLB or hot-plugged one" },
	{ " field lru.prev NULL -> 0x5\n", 1u << R_H2M | 1u << R_H1G | 1u << R_PLUG,
	  "lru.prev NULL -> 0x5: the same with values" },
	{ " field zone_device_data NULL -> 0x5\n", 1u << R_DAX,
	  "zone_device_data NULL -> 0x5: the same with values" },
	{ " field lru.prev\n field zone_device_data\n", 0xf,
	  "lru.prev and zone_device_data: the word in every kind of range" },
	{ " where kind=hugetlb\n field zone_device_data\n", 0,
	  "kind=hugetlb, zone_device_data: names no word there (the claim unseen)" },
};

static void test_names(void)
{
	const struct kmut none = { 0 }, w16 = { .w16 = true };
	struct mmc_snapshot *a = build(VBASE_A, &none), *b = build(VBASE_B, &w16);
	char text[512];

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		snprintf(text, sizeof(text), "memmapcheck-claims 1\nclaim c\n reason r\n%s",
			 named[i].fields);
		for (int pp = 0; pp < 2; pp++) {
			struct mmc_diff_result *res = diff_pair(a, b, text, pp);

			tap_ok(selects(res, named[i].ranges), "[proof] %s (%s)", named[i].why,
			       pp ? "page by page" : "chunk by chunk");
			mmc_diff_result_destroy(res);
		}
	}
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

/* ---- range-level differences ---- */

/*
 * A claim t against a range-level difference: a range only in one image
 * (range_pages its pages) or a pgmap or range attribute (range_pages 0).
 * pool: the pool sentences the change also makes (a folio or a memory
 * block differing: folio.list, memblock.self_hosted), which no t here
 * names (test_claims_pools.c claims them): with one the verdict stays
 * beyond the claims whatever t covers.
 */
struct rcase {
	const struct kmut *a, *b;
	const char *where, *field;
	bool covered;
	uint64_t range_pages;
	size_t pool;
	const char *why;
};

static bool range_level_ok(const struct mmc_diff_result *res, const struct rcase *k)
{
	const struct mmc_diff_claim *c = res->claims && res->claims->nclaims == 1 ?
					 &res->claims->claim[0] : NULL;
	bool pgdiff = !k->range_pages;

	if (!c || c->range_pages != (k->covered ? k->range_pages : 0) ||
	    c->pgmap_diffs != (k->covered && pgdiff) ||
	    res->npgmap_diffs != k->pool + (!k->covered && pgdiff) ||
	    res->pages_differing != (k->covered ? 0 : k->range_pages) ||
	    res->verdict != (k->covered && !k->pool ? MMC_AS_CLAIMED : MMC_BEYOND_CLAIMS))
		return false;
	/* the range only in b is the diff's last */
	return pgdiff || res->ranges[res->nranges - 1].range_claimed == k->covered;
}

static void range_level(const struct rcase *k)
{
	char text[512];
	struct mmc_diff_result *res;

	snprintf(text, sizeof(text), "memmapcheck-claims 1\nclaim t\n reason r\n%s field %s\n",
		 k->where, k->field);
	res = diff_kinds(k->a, k->b, text, false);
	tap_ok(range_level_ok(res, k), "[proof] %s: %s", k->why,
	       k->covered ? "covered" : "not covered");
	for (size_t i = 0; i < res->npgmap_diffs; i++)
		tap_diag("beyond the claims: %s", res->pgmap_diffs[i]);
	mmc_diff_result_destroy(res);
}

static void test_range_level(void)
{
	static const struct kmut none = { 0 }, no1g = { .no_1g = true }, shift18 = { .shift = 18 },
				 plug = { .plug_memmap = true };
	const uint64_t g = rg[R_H1G].pages;
	const struct rcase k[] = {
		/* the 1 GiB folio only in b: its range judged on b's */
		{ &no1g, &none, " where kind=hugetlb order=18\n", "range", true, g, 1,
		  "a 1 GiB HugeTLB range only in b, kind=hugetlb order=18 (b's range)" },
		{ &no1g, &none, " where kind=hugetlb order=9\n", "range", false, g, 1,
		  "the same, order=9: b's range has the 1 GiB hstate's order" },
		{ &no1g, &none, " where type=devdax\n", "range", false, g, 1,
		  "the same, type=devdax: not a pgmap's range" },
		/* a pgmap's own difference: judged on a's pgmap */
		{ &none, &shift18, " where kind=pgmap order=9\n", "pgmap.vmemmap_shift", true, 0, 0,
		  "vmemmap_shift 9 -> 18, kind=pgmap order=9 (a's pgmap)" },
		{ &none, &shift18, " where order=18\n", "pgmap.vmemmap_shift", false, 0, 0,
		  "the same, order=18: b's order, not the base's" },
		{ &none, &shift18, " where kind=hugetlb\n", "pgmap.vmemmap_shift", false, 0, 0,
		  "the same, kind=hugetlb: a pgmap difference is a pgmap's" },
		/* a memory block's range attribute: judged on that range */
		{ &none, &plug, " where kind=hotplug order=0\n", "pgmap.memmap_pfns", true, 0, 1,
		  "a memory block's memmap pfns, kind=hotplug order=0" },
		{ &none, &plug, " where kind=pgmap\n", "pgmap.memmap_pfns", false, 0, 1,
		  "the same, kind=pgmap: the range is a memory block's" },
		{ &none, &plug, " where altmap=no\n", "pgmap.memmap_pfns", false, 0, 1,
		  "the same, altmap=no: a pgmap key never matches a memory block" },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		range_level(&k[i]);
}

/*
 * A claim covering more named fields than the four vmemmap and range names
 * (here six pgmap members): each counted under its name.  The per-claim
 * counts of named fields once had room for four only, and the fifth name
 * was written past them.
 */
static void test_many_named(void)
{
	static const char *const f[] = {
		"pgmap.flags", "pgmap.altmap", "pgmap.altmap.base_pfn", "pgmap.altmap.end_pfn",
		"pgmap.altmap.reserve", "pgmap.altmap.free",
	};
	static const struct kmut none = { 0 }, altmap = { .altmap = true };
	struct mmc_diff_result *res = diff_kinds(&none, &altmap, "memmapcheck-claims 1\nclaim t\n reason r\n"
						 " where kind=pgmap\n field any\n", false);
	const struct mmc_diff_claim *c = &res->claims->claim[0];
	bool each = c->nfields == 6;

	for (size_t i = 0; i < 6 && each; i++) {
		each = false;
		for (size_t k = 0; k < c->nfields && !each; k++)
			each = !strcmp(c->fields[k].name, f[i]) && c->fields[k].pages == 1;
	}
	tap_ok(each && c->pgmap_diffs == 6 && !res->npgmap_diffs && res->verdict == MMC_AS_CLAIMED,
	       "[proof] the pgmap given an altmap: six pgmap differences, field any covers them, each field counted once");
	for (size_t i = 0; !each && i < c->nfields; i++)
		tap_diag("%s: %llu", c->fields[i].name, (unsigned long long)c->fields[i].pages);
	mmc_diff_result_destroy(res);
}

int main(void)
{
	if (mmc_test_layout_612(&layout612))
		return 1;
	test_select();
	test_names();
	test_range_level();
	test_many_named();
	mmc_test_layout_release(&layout612);
	return tap_done();
}
