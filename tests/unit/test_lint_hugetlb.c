// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint of HugeTLB folios and a hot-plugged memmap_on_memory block, on
 * snapshots built by hand from what 6.12.117 and 7.2.8 write
 * (lint_hugetlb_fixture.h: four 2 MiB folios of one hstate, HVO's
 * vmemmap, the 512 self-hosted memmap pfns of an online block).
 *
 * Each mutation breaks what one kernel change or mutant breaks, and must
 * give exactly the rules and pages the geometry says (in the comments of
 * each case); the unmutated images must be clean.  Then the speed of a
 * pool of 100 x 1 GiB optimised folios, held as runs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint_hugetlb_fixture.h"
#include "tap.h"

static uint64_t rule_pages(const struct mmc_lint_result *res, const char *rule)
{
	for (size_t i = 0; i < res->nrules; i++)
		if (!strcmp(res->rules[i].rule, rule))
			return res->rules[i].pages;
	return 0;
}

/* The first pfn a group of `rule` starts at (UINT64_MAX if none). */
static uint64_t first_pfn(const struct mmc_lint_result *res, const char *rule)
{
	uint64_t first = UINT64_MAX;

	for (size_t i = 0; i < res->nviolations; i++)
		if (!strcmp(res->violations[i].rule, rule) && res->violations[i].pfn < first)
			first = res->violations[i].pfn;
	return first;
}

static void dump(const struct mmc_lint_result *res)
{
	for (size_t i = 0; i < res->nviolations && i < 30; i++)
		tap_diag("  %s range %zu pfn 0x%" PRIx64 " +%" PRIu64 ": %s",
			 res->violations[i].rule, res->violations[i].range,
			 res->violations[i].pfn, res->violations[i].npages,
			 res->violations[i].message);
	if (res->unchecked[0])
		tap_diag("  not checked: %s", res->unchecked);
}

/* The shortcuts (runs, patterns, the vshare by runs) and the page by page
 * path give one result. */
static bool same_per_page(const struct mmc_snapshot *snap, const struct mmc_lint_result *res)
{
	struct mmc_lint_opts o = { .per_page = true };
	struct mmc_lint_result *pp = NULL;
	struct mmc_error *err = mmc_lint(snap, &o, &pp);
	bool same = !err && pp->pages_checked == res->pages_checked &&
		    pp->pages_read == res->pages_read && pp->hvo_alias == res->hvo_alias &&
		    pp->violations_total == res->violations_total &&
		    pp->nviolations == res->nviolations;

	for (size_t i = 0; same && i < res->nviolations; i++)
		same = pp->violations[i].pfn == res->violations[i].pfn &&
		       pp->violations[i].npages == res->violations[i].npages &&
		       !strcmp(pp->violations[i].message, res->violations[i].message);
	mmc_lint_result_destroy(pp);
	mmc_error_destroy(err);
	return same;
}

struct want {
	const char *rule;
	uint64_t pages, pfn;	/* pages breaking it, the first of them */
};

/*
 * Lint the image with mutation m: exactly the rules of w (none: clean),
 * each on its pages from its first pfn; every page of both ranges visited,
 * the 6.12 aliases (3 optimised folios x 448 struct pages in their tail
 * vmemmap pages, minus those of a folio m unshares) not read.
 */
static void expect(bool v72, enum mut m, const char *what, const struct want *w, size_t n,
		   uint64_t aliases)
{
	const char *k = v72 ? "7.2" : "6.12";
	struct mmc_snapshot *snap = make(v72, m);
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;
	bool ok;

	if (!snap) {
		tap_ok(0, "%s %s: snapshot built", k, what);
		return;
	}
	err = mmc_lint(snap, NULL, &res);
	if (err) {
		tap_ok(0, "%s %s: mmc_lint: %s", k, what, err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
		return;
	}
	ok = res->nrules == n && res->pages_checked == NFOLIOS * NR + PLUG &&
	     res->hvo_alias == aliases && res->pages_read == NFOLIOS * NR + PLUG - aliases &&
	     res->verdict == (n ? MMC_LINT_VIOLATIONS : MMC_LINT_CLEAN) && !res->unchecked[0];
	for (size_t i = 0; ok && i < n; i++)
		ok = rule_pages(res, w[i].rule) == w[i].pages && first_pfn(res, w[i].rule) == w[i].pfn;
	if (!tap_ok(ok, "%s %s: %s", k, what, n ? "exactly the rules and pages the geometry says" : "clean"))
		dump(res);
	tap_ok(same_per_page(snap, res), "%s %s: the same page by page", k, what);
	mmc_lint_result_destroy(res);
	mmc_snapshot_destroy(snap);
}

#define EXPECT(v72, m, what, aliases, ...)                                          \
	do {                                                                           \
		const struct want w_[] = { __VA_ARGS__ };                              \
		expect(v72, m, what, w_ + 1, sizeof(w_) / sizeof(w_[0]) - 1, aliases); \
	} while (0)
#define NONE { NULL, 0, 0 }

static void cases_on(bool v72)
{
	/* 6.12: the tail vmemmap pages of the 3 optimised folios alias their
	 * head frame; 7.2 has none (the zone tail page holds real tails) */
	uint64_t al = v72 ? 0 : 3 * (NR - PER), al2 = v72 ? 0 : 2 * (NR - PER);
	uint64_t f0 = H, f1 = H + NR, f3 = H + 3 * NR;

	EXPECT(v72, M_NONE, "four folios as the kernel leaves them, a block's memmap", al, NONE);
	EXPECT(v72, M_TAIL_MAPPING, "a plain folio's tail lost TAIL_MAPPING", al, NONE,
	       { "tail-mapping", 1, f3 + 100 });
	/* restored (plain) tails 64k..64k+3, k = 1..7: 6.12.117 copies the
	 * head frame whole (a head, page[1..3]: PG_head; the order byte;
	 * folio words over mapping); 7.2 with hist-hvo-reset-nr3: 64k and
	 * 64k+3 are page[3] (mapping NULL, its _hugetlb_cgroup) */
	if (v72)
		EXPECT(v72, M_RESTORED, "hist-hvo-reset-nr3 restore (copy of page[3])", al, NONE,
		       { "tail-mapping", 2 * 7, f3 + PER });
	else
		EXPECT(v72, M_RESTORED, "6.12.117 restore (copy of the head frame)", al, NONE,
		       { "order", 7, f3 + PER }, { "tail-flags", 7, f3 + PER + 1 },
		       { "tail-mapping", 3 * 7, f3 + PER + 1 });
	EXPECT(v72, M_WRONG_HEAD, "a tail naming another head", al, NONE,
	       { "tail-head", 1, f3 + 10 });
	/* mut-hvo-tail-rw: every optimised folio's tail vmemmap pages */
	EXPECT(v72, M_TAIL_RW, "shared tail frame mapped writable", al, NONE,
	       { "hvo-ro", 3 * (NR - PER), f0 + PER });
	EXPECT(v72, M_NOT_SHARED, "HPG_vmemmap_optimized, tail vmemmap not shared", al2, NONE,
	       { "hvo-share", NR - PER, f1 + PER });
	EXPECT(v72, M_PLAIN_SHARES, "a plain folio sharing a tail frame", al, NONE,
	       { "hvo-share", NR - PER, f3 + PER });
	EXPECT(v72, M_HEAD_RO, "an optimised folio's first vmemmap page read-only", al, NONE,
	       { "hvo-ro", PER, f0 });
	if (v72)
		/* tails on the head frame: fake heads 7.2 cannot resolve, and
		 * struct pages 64k..64k+3 read the head, page[1..3] */
		EXPECT(v72, M_OTHER_FRAME, "tails on a frame of their own (7.2: allowed)", al, NONE);
	else
		EXPECT(v72, M_OTHER_FRAME, "tails on a frame other than the head frame", al2, NONE,
		       { "hvo-share", NR - PER, f0 + PER });
}

/* The heads: what the pool's lists say of them; the blocks' memmap. */
static void heads_and_blocks_on(bool v72)
{
	uint64_t al = v72 ? 0 : 3 * (NR - PER);
	uint64_t f0 = H, f1 = H + NR, f2 = H + 2 * NR, f3 = H + 3 * NR;

	EXPECT(v72, M_HEAD_TYPE, "active folio without the hugetlb type", al, NONE,
	       { "hugetlb-type", 1, f2 });
	EXPECT(v72, M_FREE_REF, "free folio with a reference", al, NONE,
	       { "hugetlb-list", 1, f1 });
	EXPECT(v72, M_ACTIVE_REF0, "active folio with _refcount 0", al, NONE,
	       { "hugetlb-list", 1, f2 });
	EXPECT(v72, M_ACTIVE_FREED, "active folio with HPG_freed", al, NONE,
	       { "hugetlb-list", 1, f2 });
	EXPECT(v72, M_FREE_NODE, "free folios on another node's list", al, NONE,
	       { "node", 2, f0 });
	EXPECT(v72, M_TAIL_ZONE, "a tail in another zone than its head", al, NONE,
	       { "zone", 1, f3 + 200 });
	EXPECT(v72, M_HVO_SELF_HOSTED, "optimised folios on a self-hosted block", al, NONE,
	       { "hvo-share", 3, f0 });
	/* mut-mhp-no-self-hosted: all the block's memmap pfns */
	EXPECT(v72, M_NO_SELF_HOSTED, "no memmap pfn self-hosted", al, NONE,
	       { "self-hosted", PLUG, P });
	EXPECT(v72, M_ONE_SELF_HOSTED, "one memmap pfn not self-hosted", al, NONE,
	       { "self-hosted", 1, P + 5 });
	EXPECT(v72, M_PLUG_FLAG, "PG_dirty on a memmap pfn", al, NONE,
	       { "altmap-init", 1, P + 300 });
	EXPECT(v72, M_PLUG_NODE, "a memmap pfn on another node", al, NONE,
	       { "node", 1, P + 7 });
	/* without CONFIG_NUMA memory_block.nid stays NUMA_NO_NODE
	 * (add_memory_block()): one node for the block, its first page's */
	EXPECT(v72, M_PLUG_NO_NID, "a memmap pfn on another node, the block's nid unset", al, NONE,
	       { "node", 1, P + 7 });
}

/*
 * A lint message names the word by the kind of range: offset 8 of a
 * hot-plugged memmap pfn is lru.next (include/linux/mm_types.h: lru
 * shares its words with a ZONE_DEVICE page's pgmap and zone_device_data),
 * never pgmap.  list_del()'s LIST_POISON1 there breaks poison and
 * altmap-init (not the empty list memmap_init_range() leaves).
 */
static void word_names_on(bool v72)
{
	const char *k = v72 ? "7.2" : "6.12";
	uint64_t al = v72 ? 0 : 3 * (NR - PER);
	struct mmc_snapshot *snap;
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;
	const char *msg = NULL;

	EXPECT(v72, M_PLUG_POISON, "LIST_POISON1 in a memmap pfn's lru.next", al, NONE,
	       { "poison", 1, P + 9 }, { "altmap-init", 1, P + 9 });
	snap = make(v72, M_PLUG_POISON);
	err = snap ? mmc_lint(snap, NULL, &res) : NULL;
	for (size_t i = 0; snap && !err && i < res->nviolations; i++)
		if (!strcmp(res->violations[i].rule, "poison"))
			msg = res->violations[i].message;
	if (!tap_ok(msg && !strncmp(msg, "lru.next = 0xdead000000000100", 29) &&
		    !strstr(msg, "pgmap"),
		    "[proof] %s the poison message names offset 8 of a hot-plugged page lru.next", k))
		tap_diag("message: %s", msg ? msg : "(none)");
	mmc_lint_result_destroy(res);
	mmc_error_destroy(err);
	mmc_snapshot_destroy(snap);
}

/*
 * 7.2 has no fake heads ("mm/hugetlb: Remove fake head pages"): the 6.12
 * image, whose optimised folios map their tail vmemmap pages onto their
 * head frame, read as a 7.2 kernel's.  Then, for each of the 3 optimised
 * folios: hvo-share on its 448 tail struct pages, and struct pages
 * 64k..64k+3 (k = 1..7) are checked as the tails they should be, reading
 * the head (PG_head: order), page[1] (the order byte in the flags:
 * tail-flags; folio words over mapping: tail-mapping), page[2] and page[3]
 * (mapping not TAIL_MAPPING); the active folio's head copy has its
 * _refcount 1 (refcount).
 */
static void fake_heads_72(void)
{
	static const struct want w[] = {
		{ "hvo-share", 3 * (NR - PER), H + PER }, { "order", 3 * 7, H + PER },
		{ "tail-flags", 3 * 7, H + PER + 1 }, { "tail-mapping", 3 * 21, H + PER + 1 },
		{ "refcount", 7, H + 2 * NR + PER },
	};
	const size_t n = sizeof(w) / sizeof(w[0]);
	struct mmc_snapshot *snap = make(false, M_NONE);
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;
	bool ok;

	if (!snap) {
		tap_ok(0, "7.2 fake heads: snapshot built");
		return;
	}
	{
		struct mmc_snapshot_info info = *mmc_snapshot_info(snap);

		snprintf(info.release, sizeof(info.release), "7.2.8");
		mmc_snapshot_set_info(snap, &info);
	}
	err = mmc_lint(snap, NULL, &res);
	ok = !err && res->nrules == n && res->hvo_alias == 0 &&
	     res->pages_read == NFOLIOS * NR + PLUG;
	for (size_t i = 0; ok && i < n; i++)
		ok = rule_pages(res, w[i].rule) == w[i].pages && first_pfn(res, w[i].rule) == w[i].pfn;
	if (!tap_ok(ok, "a 6.12 image read as 7.2: fake heads are violations on the 3 optimised folios") && res)
		dump(res);
	mmc_lint_result_destroy(res);
	mmc_error_destroy(err);
	mmc_snapshot_destroy(snap);
}

/*
 * What a layout cannot tell is said, not guessed: without enum pagetype
 * (6.1 keeps the hugetlb marker in page[1].compound_dtor) hugetlb-type;
 * without a folio's HPG_vmemmap_optimized (an older layout) its vmemmap
 * (hvo-share, hvo-ro: folios 0 and 1 are not checked, but their tail
 * vmemmap pages still map their head frame: aliases); the result is
 * clean, not a gap.
 */
static void unchecked(void)
{
	static const struct {
		enum mut m;
		const char *rule;
		uint64_t aliases;
	} cases[] = {
		{ M_NO_PAGETYPE, "hugetlb-type:", 3 * (NR - PER) },
		{ M_VM_UNKNOWN, "hvo-share:", 3 * (NR - PER) },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mmc_snapshot *snap = make(false, cases[i].m);
		struct mmc_lint_result *res = NULL;
		struct mmc_error *err = snap ? mmc_lint(snap, NULL, &res) : NULL;

		tap_ok(snap && !err && res->verdict == MMC_LINT_CLEAN &&
		       strstr(res->unchecked, cases[i].rule) && res->hvo_alias == cases[i].aliases,
		       "6.12 %s not checked, said: %s", cases[i].rule, res ? res->unchecked : "-");
		mmc_lint_result_destroy(res);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
	}
}

/* The version cut of rules.c and the rule table. */
static void rule_functions(void)
{
	static const struct { int ma, mi; unsigned int want; } cuts[] = {
		{ 6, 1, MMC_HVO_TAIL_HEAD_FRAME }, { 6, 12, MMC_HVO_TAIL_HEAD_FRAME },
		{ 6, 15, MMC_HVO_TAIL_HEAD_FRAME | MMC_HVO_TAIL_SHARED },
		{ 7, 1, MMC_HVO_TAIL_HEAD_FRAME | MMC_HVO_TAIL_SHARED },
		{ 7, 2, MMC_HVO_TAIL_SHARED }, { 7, 5, MMC_HVO_TAIL_SHARED },
	};
	bool ok = true;

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct mmc_kver v = { true, cuts[i].ma, cuts[i].mi };

		ok &= mmc_rule_hvo_tails(v) == cuts[i].want;
	}
	tap_ok(ok, "HVO's tail frame: the head frame up to 6.12, a shared page from 7.2, either between");
	ok = true;
	for (unsigned int r = MMC_RULE_HUGETLB_TYPE; r <= MMC_RULE_SELF_HOSTED; r++) {
		const struct mmc_rule_info *ri = mmc_rule_info((enum mmc_rule)r);
		enum mmc_rule back;

		ok &= ri && ri->name && ri->kernel && strstr(ri->kernel, "()") && ri->what &&
		      mmc_rule_by_name(ri->name, &back) && back == (enum mmc_rule)r;
	}
	tap_ok(ok, "the HugeTLB and hot-plug rules are named, cite a kernel function and are found by name");
}

/* The encodings of rules.c, against the sources: the hugetlb type, the
 * folio words HugeTLB keeps. */
static void rule_encodings(void)
{
	static const struct mmc_test_enumerator old_types[] = {
		{ "PG_buddy", 0x80 }, { "PG_hugetlb", 0x800 }, { "PAGE_TYPE_BASE", 0x80000000LL },
	};
	struct mmc_layout l612, l61, l611;

	if (mmc_test_layout_612(&l612) || add_enums(&l612, true) || mmc_test_layout_61(&l61) ||
	    mmc_test_layout_612(&l611) ||
	    mmc_test_enum(&l611, MMC_ENUM_PAGETYPE, old_types, sizeof(old_types) / sizeof(old_types[0]))) {
		tap_ok(0, "rule fixtures");
		return;
	}
	tap_ok(mmc_rule_hugetlb_type(&l612, 0xf4000000u) == MMC_HTYPE_YES &&
	       mmc_rule_hugetlb_type(&l612, 0xf4000000u | 0x123) == MMC_HTYPE_YES &&
	       mmc_rule_hugetlb_type(&l612, 0xffffffffu) == MMC_HTYPE_NO &&
	       mmc_rule_hugetlb_type(&l612, 0xf0000000u) == MMC_HTYPE_NO &&
	       mmc_rule_hugetlb_type(&l611, 0xfffff7ffu) == MMC_HTYPE_YES &&
	       mmc_rule_hugetlb_type(&l611, 0xffffffffu) == MMC_HTYPE_NO &&
	       mmc_rule_hugetlb_type(&l611, 0xffffff7fu) == MMC_HTYPE_NO &&
	       mmc_rule_hugetlb_type(&l61, 0xf4000000u) == MMC_HTYPE_UNKNOWN,
	       "hugetlb type: PGTY_hugetlb in the top byte (6.12+), PG_hugetlb cleared under PAGE_TYPE_BASE (6.9-6.11), unknown on 6.1");
	/* 6.12 (struct folio of 4 pages): page[3]'s subpool, cgroup,
	 * cgroup_rsvd, hwpoison words (slots 2..5); 6.1 (2 pages): the
	 * private word (slot 5) of page[1..63] */
	tap_ok(mmc_rule_hugetlb_owns_slot(&l612, 64, 4096, 3, 2) &&
	       mmc_rule_hugetlb_owns_slot(&l612, 64, 4096, 3, 3) &&
	       mmc_rule_hugetlb_owns_slot(&l612, 64, 4096, 3, 5) &&
	       !mmc_rule_hugetlb_owns_slot(&l612, 64, 4096, 3, 1) &&
	       !mmc_rule_hugetlb_owns_slot(&l612, 64, 4096, 3, 6) &&
	       !mmc_rule_hugetlb_owns_slot(&l612, 64, 4096, 2, 3) &&
	       !mmc_rule_hugetlb_owns_slot(&l612, 64, 4096, 4, 3) &&
	       mmc_rule_hugetlb_owns_slot(&l61, 64, 4096, 1, 5) &&
	       mmc_rule_hugetlb_owns_slot(&l61, 64, 4096, 63, 5) &&
	       !mmc_rule_hugetlb_owns_slot(&l61, 64, 4096, 64, 5) &&
	       !mmc_rule_hugetlb_owns_slot(&l61, 64, 4096, 3, 3),
	       "HugeTLB's folio words: page[3] from compound_head to _mapcount (6.12+), page[1..] private (6.1)");
	mmc_test_layout_release(&l612);
	mmc_test_layout_release(&l61);
	mmc_test_layout_release(&l611);
}

/* ---- a pool of 100 x 1 GiB, as runs ---- */

#define BIG_ORDER 18
#define BIG_NR (1ULL << BIG_ORDER)
#define BIG_FOLIOS 100
#define BIG_START 0x4000000ULL

/* Struct page idx of free optimised 1 GiB folio k as seen: its first
 * vmemmap page, then the zone's tail page (7.2) or the head frame (6.12). */
static void big_page(const struct fix *f, uint64_t k, uint64_t idx, uint8_t *p)
{
	struct folio_at a = { BIG_START + k * BIG_NR, BIG_ORDER, false, true, -1 };

	real_page(f, &a, idx < PER ? idx : f->v72 ? 4 : idx % PER, p);
}

/* Pages idx .. idx+n-1 of folio k as one run: the stride is what the
 * second page's record adds to the first's. */
static struct mmc_error *big_run(const struct fix *f, struct mmc_snapshot *s,
				 struct mmc_norm *norm, uint64_t k, uint64_t idx, uint64_t n,
				 enum mmc_page_role role)
{
	uint64_t pfn = BIG_START + k * BIG_NR + idx;
	struct mmc_nrec a, b, st;
	uint8_t bytes[64];

	big_page(f, k, idx, bytes);
	mmc_norm_page(norm, pfn, bytes, role, &a);
	if (n == 1)
		return mmc_snapshot_append(s, &a);
	big_page(f, k, idx + 1, bytes);
	mmc_norm_page(norm, pfn + 1, bytes, role, &b);
	st = a;
	for (unsigned int i = 0; i < a.nslots; i++) {
		st.slot[i].v = (int64_t)((uint64_t)b.slot[i].v - (uint64_t)a.slot[i].v);
		st.slot[i].raw = b.slot[i].raw - a.slot[i].raw;
	}
	return mmc_snapshot_append_run(s, &a, &st, n);
}

static struct mmc_error *big_folio(const struct fix *f, struct mmc_snapshot *s,
				   struct mmc_norm *norm, uint64_t k)
{
	struct mmc_error *err = NULL;

	for (uint64_t i = 0; i < 4 && !err; i++)
		err = big_run(f, s, norm, k, i, 1, MMC_ROLE_DEVICE);
	if (!err)
		err = big_run(f, s, norm, k, 4, PER - 4, MMC_ROLE_DEVICE);
	if (f->v72)	/* one tail page, read through every tail vmemmap page */
		return err ? err : big_run(f, s, norm, k, PER, BIG_NR - PER, MMC_ROLE_SHARED);
	for (uint64_t m = 1; m < BIG_NR / PER && !err; m++) {
		for (uint64_t i = 0; i < 4 && !err; i++)
			err = big_run(f, s, norm, k, m * PER + i, 1, MMC_ROLE_SHARED);
		if (!err)
			err = big_run(f, s, norm, k, m * PER + 4, PER - 4, MMC_ROLE_SHARED);
	}
	return err;
}

/* Folio k's vmemmap: its head frame, then the tail vmemmap pages onto the
 * zone's tail page (7.2) or onto the head frame (6.12), read-only. */
static struct mmc_error *big_vframes(const struct fix *f, struct mmc_snapshot *s, uint64_t k)
{
	uint64_t a = k * (BIG_NR / PER);
	struct mmc_vframe h = { .kind = MMC_VF_RAM, .prot = MMC_VPROT_WRITABLE,
				.prot_known = MMC_VPROT_WRITABLE, .leaf = MMC_VLEAF_PTE,
				.paddr = FRAME + k * 0x1000 };
	struct mmc_vframe t = h, st = { .kind = MMC_VF_RAM, .share_back = 1 };
	struct mmc_error *err = mmc_snapshot_append_vframe(s, &h);

	t.prot = 0;
	t.paddr = f->v72 ? ZONE_TAIL : h.paddr;
	t.share_back = f->v72 ? (int64_t)a : 1;	/* 7.2: vmemmap page 1 maps it first */
	if (!err && f->v72 && k == 0) {
		t.share_back = 0;
		err = mmc_snapshot_append_vframe(s, &t);
		t.share_back = 1;
		return err ? err : mmc_snapshot_append_vframe_run(s, &t, &st, BIG_NR / PER - 2);
	}
	return err ? err : mmc_snapshot_append_vframe_run(s, &t, &st, BIG_NR / PER - 1);
}

static struct mmc_snapshot *make_big(struct fix *f)
{
	struct mmc_shstate hs = { .order = BIG_ORDER, .flags = MMC_HSTATE_HVO,
				  .nr = BIG_FOLIOS, .free = BIG_FOLIOS };
	struct mmc_sfolios sp = { .start_pfn = BIG_START, .nfolios = BIG_FOLIOS,
				  .list = MMC_FOLIO_FREE, .vmemmap = MMC_FVM_OPTIMISED };
	struct mmc_srange r = { .start_pfn = BIG_START, .end_pfn = BIG_START + BIG_FOLIOS * BIG_NR,
				.pgmap_index = MMC_NO_PGMAP, .kind = MMC_RANGE_HUGETLB,
				.reserve_start = BIG_START, .reserve_end = BIG_START,
				.altmap_start = BIG_START, .altmap_end = BIG_START };
	struct mmc_snapshot *s = NULL;
	struct mmc_norm *norm = NULL;
	struct mmc_error *err;

	snprintf(hs.name, sizeof(hs.name), "hugepages-1048576kB");
	r.vmemmap_start = vaddr(f, BIG_START);
	err = mmc_snapshot_create(&f->layout, &f->geom, "test", "test_lint_hugetlb", &s);
	if (!err)
		err = mmc_norm_create(&f->layout, &f->geom, NULL, 0, &norm);
	if (!err)
		err = mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", &hs, 1, &sp, 1);
	if (!err)
		err = mmc_snapshot_begin_range(s, &r);
	for (uint64_t k = 0; k < BIG_FOLIOS && !err; k++)
		err = big_folio(f, s, norm, k);
	for (uint64_t k = 0; k < BIG_FOLIOS && !err; k++)
		err = big_vframes(f, s, k);
	if (!err)
		err = mmc_snapshot_end_range(s);
	mmc_norm_destroy(norm);
	if (err) {
		tap_diag("building the pool: %s", err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(s);
		return NULL;
	}
	return s;
}

/*
 * 100 optimised 1 GiB folios (26 M struct pages): clean, every page
 * visited, on 6.12 all but each folio's first 64 read through the head
 * frame (aliases), and within a CPU bound that checking them page by page
 * would not meet: lint goes by runs (lint_pattern.c), the vmemmap by
 * vmemmap pages (lint_hvo.c).
 */
static void big_pool(bool v72)
{
	static struct fix f;
	const char *k = v72 ? "7.2" : "6.12";
	struct mmc_snapshot *snap;
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;
	struct timespec t0;
	double secs, limit = tap_cpu_limit(1.0);
	uint64_t pages = BIG_FOLIOS * BIG_NR, alias = v72 ? 0 : BIG_FOLIOS * (BIG_NR - PER);

	memset(&f, 0, sizeof(f));
	f.v72 = v72;
	if ((v72 ? mmc_test_layout_72(&f.layout) : mmc_test_layout_612(&f.layout)) ||
	    add_enums(&f.layout, true)) {
		tap_ok(0, "%s 100 x 1 GiB: layout", k);
		return;
	}
	if (v72)
		mmc_test_geom_72(&f.geom);
	else
		mmc_test_geom(&f.geom);
	f.geom.vmemmap_end = f.geom.vmemmap_base + (1ULL << 28) * 64;	/* 1 TiB of pfns */
	snap = make_big(&f);
	mmc_test_layout_release(&f.layout);
	if (!snap) {
		tap_ok(0, "%s 100 x 1 GiB: snapshot built", k);
		return;
	}
	t0 = tap_cpu_start();
	err = mmc_lint(snap, NULL, &res);
	secs = tap_cpu_since(&t0);
	if (!tap_ok(!err && res->verdict == MMC_LINT_CLEAN && res->pages_checked == pages &&
		    res->hvo_alias == alias && res->pages_read == pages - alias,
		    "%s 100 x 1 GiB optimised folios: clean, %" PRIu64 " pages, %" PRIu64 " of them aliases",
		    k, pages, alias) && res)
		dump(res);
	tap_ok(secs < limit, "%s 100 x 1 GiB: lint in %.3f s CPU (bound %.1f s)", k, secs, limit);
	mmc_lint_result_destroy(res);
	mmc_error_destroy(err);
	mmc_snapshot_destroy(snap);
}

int main(void)
{
	cases_on(false);
	heads_and_blocks_on(false);
	word_names_on(false);
	cases_on(true);
	heads_and_blocks_on(true);
	word_names_on(true);
	fake_heads_72();
	unchecked();
	rule_functions();
	rule_encodings();
	big_pool(true);
	big_pool(false);
	return tap_done();
}
