// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Claims on the HugeTLB pools' and memory blocks' own differences
 * (engine/diff_pools.c's sentences, named hstate.*, folio.*, memblock.*
 * by engine/claims.c and matched in engine/diff_claims_range.c): a
 * hand-built pair whose struct pages are alike and whose pools differ in
 * known ways.
 * The pair has a device-dax range (for the pgmap keys to miss), an hstate
 * of 32 2 MiB folios and one of a 1 GiB folio, each with its HugeTLB range,
 * and two memory blocks, the first with its self-hosted memmap as a
 * hot-plug range.  The patch a claims file here describes is
 * patches/6.12/mut-mhp-no-self-hosted.patch's kind: HVO optimising the
 * folios on hot-plugged memory, vmemmap plain -> optimised.
 *
 * [proof]: the expected answer follows from the grammar (doc/CLAIMS.md)
 * and from how the pair was built: which folio, hstate or block a
 * mutation changes, its pfns, its values; the sentences expected are
 * diff_pools.c's, written from those, never taken from a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "claims_parse_errors.h"
#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "report.h"
#include "snapshot.h"
#include "snapshot_pair.h"
#include "tap.h"

#define MEM_OFFLINE 4	/* include/linux/memory.h; MEM_ONLINE is 1 */

/* The ranges, in pfn order: the diff's range numbers. */
enum { R_DAX, R_H2M, R_H1G, R_PLUG, NR };

#define N2M 32		/* 2 MiB folios, at 0x200000 + k * 512 */
#define PFN2M(k) (0x200000ULL + (uint64_t)(k) * 512)

static const struct pair_range rg[NR] = {
	[R_DAX] = { 0x100000, 2048, MMC_RANGE_PGMAP, 0, 9 },		/* vmemmap_shift 9 */
	[R_H2M] = { 0x200000, N2M * 512, MMC_RANGE_HUGETLB, 0, 9 },	/* hugepages-2048kB */
	[R_H1G] = { 0x240000, 1ULL << 18, MMC_RANGE_HUGETLB, 1, 18 },	/* hugepages-1048576kB */
	[R_PLUG] = { 0x300000, 512, MMC_RANGE_HOTPLUG, 0, 0 },		/* block 96's memmap */
};

/* One folio of the pools, a span of its own. */
struct folio {
	uint32_t hstate;
	uint64_t pfn;
	uint8_t list, vm;
	bool gone;
};

/* What a kernel's pools hold; b's a mutation changes. */
struct pools {
	struct mmc_shstate hs[3];
	size_t nh;
	struct folio f[N2M + 1];
	struct mmc_smemblock mb[3];
	size_t nb;
};

static void pools_base(struct pools *p)
{
	memset(p, 0, sizeof(*p));
	p->hs[0] = (struct mmc_shstate){ .order = 9, .flags = MMC_HSTATE_HVO, .nr = N2M, .free = N2M };
	p->hs[1] = (struct mmc_shstate){ .order = 18, .flags = MMC_HSTATE_HVO, .nr = 1, .free = 1 };
	snprintf(p->hs[0].name, sizeof(p->hs[0].name), "hugepages-2048kB");
	snprintf(p->hs[1].name, sizeof(p->hs[1].name), "hugepages-1048576kB");
	p->nh = 2;
	for (size_t k = 0; k < N2M; k++)
		p->f[k] = (struct folio){ .pfn = PFN2M(k), .vm = MMC_FVM_PLAIN };
	p->f[N2M] = (struct folio){ .hstate = 1, .pfn = rg[R_H1G].start, .vm = MMC_FVM_PLAIN };
	p->mb[0] = (struct mmc_smemblock){ .id = 96, .start_pfn = 0x300000, .end_pfn = 0x308000,
					   .state = 1, .flags = MMC_MEMBLOCK_SELF_HOSTED,
					   .altmap_pfns = 512 };
	p->mb[1] = (struct mmc_smemblock){ .id = 97, .start_pfn = 0x308000, .end_pfn = 0x310000,
					   .state = 1 };
	p->nb = 2;
}

static void set_pools(struct mmc_snapshot *s, const struct pools *p)
{
	struct mmc_sfolios fs[N2M + 1];
	size_t nf = 0;

	for (size_t k = 0; k <= N2M; k++)
		if (!p->f[k].gone)
			fs[nf++] = (struct mmc_sfolios){ .hstate = p->f[k].hstate,
							 .start_pfn = p->f[k].pfn, .nfolios = 1,
							 .list = p->f[k].list, .vmemmap = p->f[k].vm };
	die(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", p->hs, p->nh, fs, nf));
	die(mmc_snapshot_set_hotplug(s, MMC_READ_DONE, "", p->mb, p->nb));
}

static struct mmc_layout layout612;

/* An image with the base pools changed by mut (NULL: none); without_pools:
 * neither pools nor blocks read (an older snapshot), the pgmap's range only. */
static struct mmc_snapshot *build(uint64_t vbase, void (*mut)(struct pools *), bool without_pools)
{
	struct mmc_snapshot *s;
	struct mmc_spgmap pg;
	struct pools p;
	struct mmc_geom g;

	mmc_test_geom(&g);
	g.vmemmap_base = vbase;
	die(mmc_snapshot_create(&layout612, &g, "t", "test", &s));
	pools_base(&p);
	if (mut)
		mut(&p);
	if (!without_pools)
		set_pools(s, &p);
	pair_devdax_pgmap(vbase, &pg);
	die(mmc_snapshot_add_pgmap(s, &pg));
	/* a HugeTLB or hot-plug range needs the owner it names; the struct
	 * pages are order-0 records alike in both images: only the pools
	 * differ */
	for (size_t i = 0; i < (without_pools ? 1 : NR); i++)
		pair_add_range(s, vbase, &rg[i], 0, false, 0);
	return s;
}

/* a against b with the claims of text (after the version line). */
static struct mmc_diff_result *judge(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
				     const char *text, bool strict)
{
	struct mmc_diff_opts o = { .max_pages = 3, .max_groups = 100, .strict = strict };
	struct mmc_diff_result *res = NULL;
	char full[2048];

	snprintf(full, sizeof(full), "memmapcheck-claims 1\n%s", text);
	die(pair_claims_diff(a, b, "p.claims", full, o, &res));
	return res;
}

/* ---- the mutations: what b's kernel did to its pools ---- */

/* HVO optimises the first four 2 MiB folios (mut-mhp-no-self-hosted's kind) */
static void m_hvo4(struct pools *p)
{
	for (size_t k = 0; k < 4; k++)
		p->f[k].vm = MMC_FVM_OPTIMISED;
}

static void m_hvo_all(struct pools *p)
{
	for (size_t k = 0; k < N2M; k++)
		p->f[k].vm = MMC_FVM_OPTIMISED;
}

/* folio 3 allocated: on the active list, one free page fewer */
static void m_alloc(struct pools *p)
{
	p->f[3].list = MMC_FOLIO_ACTIVE;
	p->hs[0].free--;
}

/* folio 0 both allocated and optimised */
static void m_alloc_hvo(struct pools *p)
{
	p->f[0].list = MMC_FOLIO_ACTIVE;
	p->f[0].vm = MMC_FVM_OPTIMISED;
}

/* the last 2 MiB folio freed to the buddy allocator */
static void m_shrink(struct pools *p)
{
	p->f[N2M - 1].gone = true;
	p->hs[0].nr--;
	p->hs[0].free--;
}

static void m_hvo_off(struct pools *p)
{
	p->hs[1].flags = 0;
}

/* a third hstate, 4 MiB, no folio */
static void m_new_hstate(struct pools *p)
{
	p->hs[2] = (struct mmc_shstate){ .order = 10 };
	snprintf(p->hs[2].name, sizeof(p->hs[2].name), "hugepages-4096kB");
	p->nh = 3;
}

static void m_block_state(struct pools *p)
{
	p->mb[1].state = MEM_OFFLINE;
}

static void m_block_new(struct pools *p)
{
	p->mb[2] = (struct mmc_smemblock){ .id = 98, .start_pfn = 0x310000, .end_pfn = 0x318000,
					   .state = 1 };
	p->nb = 3;
}

static void m_block_altmap(struct pools *p)
{
	p->mb[0].altmap_pfns = 256;
}

static void m_block_nohost(struct pools *p)
{
	p->mb[0].flags = 0;
	p->mb[0].altmap_pfns = 0;
}

/* eight fields of the pools at once, one difference each */
static void m_many(struct pools *p)
{
	p->hs[0].nr = 40;
	p->hs[0].free = 30;
	p->hs[0].resv = 2;
	p->hs[0].surplus = 8;
	p->hs[1].flags = 0;
	p->f[0].list = MMC_FOLIO_ACTIVE;
	p->f[1].vm = MMC_FVM_OPTIMISED;
	p->mb[1].state = MEM_OFFLINE;
}

/* ---- looking at a result ---- */

static const struct mmc_diff_claim *claim_of(const struct mmc_diff_result *res, const char *name)
{
	for (size_t i = 0; res->claims && i < res->claims->nclaims; i++)
		if (!strcmp(res->claims->claim[i].name, name))
			return &res->claims->claim[i];
	return NULL;
}

static uint64_t field_count(const struct mmc_diff_claim *d, const char *name)
{
	for (size_t f = 0; d && f < d->nfields; f++)
		if (!strcmp(d->fields[f].name, name))
			return d->fields[f].pages;
	return 0;
}

static bool beyond_has(const struct mmc_diff_result *res, const char *sentence)
{
	for (size_t i = 0; i < res->npgmap_diffs; i++)
		if (!strcmp(res->pgmap_diffs[i], sentence))
			return true;
	return false;
}

/* The claim sentence is listed as claimed by, or NULL. */
static const char *claimed_by(const struct mmc_diff_result *res, const char *sentence)
{
	const struct mmc_diff_claims *cl = res->claims;

	for (size_t i = 0; cl && i < cl->npgmap_diffs; i++)
		if (!strcmp(cl->pgmap_diffs[i], sentence))
			return cl->claim[cl->pgmap_diff_claim[i]].name;
	return NULL;
}

static void diag_lists(const struct mmc_diff_result *res)
{
	for (size_t i = 0; i < res->npgmap_diffs; i++)
		tap_diag("beyond the claims: %s", res->pgmap_diffs[i]);
	for (size_t i = 0; res->claims && i < res->claims->npgmap_diffs; i++)
		tap_diag("claimed: %s (%s)", res->claims->pgmap_diffs[i],
			 res->claims->claim[res->claims->pgmap_diff_claim[i]].name);
}

/* ---- one difference, one claim t: covered or not ---- */

struct one {
	void (*mut)(struct pools *);
	const char *lines;	/* claim t's where and field lines */
	const char *sentence;	/* the difference the mutation makes */
	const char *field;	/* its field */
	bool covered;
	const char *why;
};

/* Covered: counted for t under its field, listed as t's, as claimed.
 * Not: t unseen, the sentence beyond the claims. */
static bool one_ok(const struct mmc_diff_result *res, const struct one *k)
{
	const struct mmc_diff_claim *t = claim_of(res, "t");
	const char *by = claimed_by(res, k->sentence);

	if (!t || res->pages_differing || res->pages_claimed)
		return false;
	if (k->covered)
		return t->pgmap_diffs == 1 && field_count(t, k->field) == 1 && by &&
		       !strcmp(by, "t") && res->claims->npgmap_diffs == 1 && !res->npgmap_diffs &&
		       !res->claims->nunseen && res->verdict == MMC_AS_CLAIMED;
	return !t->pgmap_diffs && !t->nfields && !by && !res->claims->npgmap_diffs &&
	       res->npgmap_diffs == 1 && beyond_has(res, k->sentence) && res->claims->nunseen == 1 &&
	       res->verdict == MMC_BEYOND_CLAIMS;
}

static const struct one ones[] = {
	/* an hstate's own: judged on its hstate (order, its ranges) */
	{ m_hvo_off, " where order=18\n field hstate.vmemmap_optimise on -> off\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", true,
	  "HVO off for the 1 GiB hstate, claimed on -> off where order=18" },
	{ m_hvo_off, " where kind=hugetlb\n field hstate.vmemmap_optimise yes -> no\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", true,
	  "the same as yes -> no (0/1) where kind=hugetlb" },
	{ m_hvo_off, " field hstate.vmemmap_optimise off -> on\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", false,
	  "the same claimed off -> on: the other way round" },
	{ m_hvo_off, " where order=9\n field hstate.vmemmap_optimise\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", false,
	  "the same where order=9: the 2 MiB hstate's" },
	{ m_hvo_off, " where kind=hotplug\n field hstate.vmemmap_optimise\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", false,
	  "the same where kind=hotplug: an hstate is HugeTLB's" },
	{ m_hvo_off, " where type=devdax\n field hstate.vmemmap_optimise\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", false,
	  "the same where type=devdax: a pgmap key never matches a pool" },
	{ m_hvo_off, " where pfn=0x240000-0x280000\n field hstate.vmemmap_optimise\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", true,
	  "the same where pfn= holds its whole HugeTLB range" },
	{ m_hvo_off, " where pfn=0x240000-0x260000\n field hstate.vmemmap_optimise\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", false,
	  "the same where pfn= holds half its range" },
	{ m_hvo_off, " where range=2\n field hstate.vmemmap_optimise\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", true,
	  "the same where range=2, its range" },
	{ m_hvo_off, " where range=1\n field hstate.vmemmap_optimise\n",
	  "hstate#1 vmemmap optimisation: on vs off", "hstate.vmemmap_optimise", false,
	  "the same where range=1, the other hstate's" },
	{ m_new_hstate, " where order=10\n field hstate.present no -> yes\n",
	  "hstate#2 (order 10, 0 folios): only in b", "hstate.present", true,
	  "an hstate only in b, present no -> yes where order=10 (b's hstate)" },
	{ m_new_hstate, " field hstate.present yes -> no\n",
	  "hstate#2 (order 10, 0 folios): only in b", "hstate.present", false,
	  "the same claimed yes -> no" },
	{ m_new_hstate, " where order=9\n field hstate.present\n",
	  "hstate#2 (order 10, 0 folios): only in b", "hstate.present", false,
	  "the same where order=9" },
	{ m_new_hstate, " where range=0-3\n field hstate.present\n",
	  "hstate#2 (order 10, 0 folios): only in b", "hstate.present", false,
	  "the same where range=0-3: it has no range to hold" },
	{ m_new_hstate, " where pfn=0x0-0x1000000\n field pools\n",
	  "hstate#2 (order 10, 0 folios): only in b", "hstate.present", false,
	  "the same, field pools where pfn= spans all: it has no pfn to hold" },
	/* a memory block: kind=hotplug, order 0, its pfns */
	{ m_block_state, " where kind=hotplug order=0\n field memblock.state 1 -> 4\n",
	  "memory block 97 state: 1 vs 4", "memblock.state", true,
	  "block 97 offlined, state 1 -> 4 where kind=hotplug order=0" },
	{ m_block_state, " field memblock.state 4 -> 1\n", "memory block 97 state: 1 vs 4",
	  "memblock.state", false, "the same claimed 4 -> 1" },
	{ m_block_state, " where kind=hugetlb\n field memblock.state\n",
	  "memory block 97 state: 1 vs 4", "memblock.state", false,
	  "the same where kind=hugetlb" },
	{ m_block_state, " where pfn=0x308000-0x310000\n field memblock.state\n",
	  "memory block 97 state: 1 vs 4", "memblock.state", true,
	  "the same where pfn= holds the block" },
	{ m_block_state, " where pfn=0x300000-0x30c000\n field memblock.state\n",
	  "memory block 97 state: 1 vs 4", "memblock.state", false,
	  "the same where pfn= holds half of it" },
	{ m_block_state, " where range=3\n field memblock.state\n",
	  "memory block 97 state: 1 vs 4", "memblock.state", false,
	  "the same where range=3: block 96's memmap, block 97 has no range" },
	{ m_block_state, " field memblock.nid\n", "memory block 97 state: 1 vs 4",
	  "memblock.state", false, "the same, field memblock.nid" },
	{ m_block_altmap, " where range=3\n field memblock.altmap_pfns 512 -> 256\n",
	  "memory block 96 self-hosted memmap pfns: 512 vs 256", "memblock.altmap_pfns", true,
	  "block 96's memmap pfns 512 -> 256 where range=3 (its memmap's range)" },
	{ m_block_altmap, " field memblock.self_hosted\n",
	  "memory block 96 self-hosted memmap pfns: 512 vs 256", "memblock.altmap_pfns", false,
	  "the same, field memblock.self_hosted: self-hosted in both" },
	{ m_block_altmap, " where altmap=yes\n field memblock.altmap_pfns\n",
	  "memory block 96 self-hosted memmap pfns: 512 vs 256", "memblock.altmap_pfns", false,
	  "the same where altmap=yes: a pgmap key" },
	{ m_block_nohost, " field memblock.self_hosted yes -> no\n",
	  "memory block 96 self-hosted memmap pfns: 512 vs 0", "memblock.self_hosted", true,
	  "block 96's memmap no longer self-hosted, yes -> no" },
	{ m_block_nohost, " field memblock.altmap_pfns\n",
	  "memory block 96 self-hosted memmap pfns: 512 vs 0", "memblock.self_hosted", false,
	  "the same, field memblock.altmap_pfns: the block stopped hosting it" },
	{ m_block_new, " where pfn=0x310000-0x318000\n field memblock.present no -> yes\n",
	  "memory block 98 (pfn 0x310000): only in b", "memblock.present", true,
	  "block 98 only in b, present no -> yes, its pfns" },
	{ m_block_new, " field memblock.present yes -> no\n",
	  "memory block 98 (pfn 0x310000): only in b", "memblock.present", false,
	  "the same claimed yes -> no" },
	{ m_block_new, " field any\n", "memory block 98 (pfn 0x310000): only in b",
	  "memblock.present", true, "the same, field any" },
};

static void test_one(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, false);

	for (size_t i = 0; i < sizeof(ones) / sizeof(ones[0]); i++) {
		struct mmc_snapshot *b = build(VBASE_B, ones[i].mut, false);
		char text[512];
		struct mmc_diff_result *res;

		snprintf(text, sizeof(text), "claim t\n reason r\n%s", ones[i].lines);
		res = judge(a, b, text, false);
		if (!tap_ok(one_ok(res, &ones[i]), "[proof] %s: %s", ones[i].why,
			    ones[i].covered ? "as claimed" : "beyond the claims, t not seen"))
			diag_lists(res);
		mmc_diff_result_destroy(res);
		mmc_snapshot_destroy(b);
	}
	mmc_snapshot_destroy(a);
}

/* ---- the four folios HVO optimises: which a claim selects ---- */

struct sel {
	const char *lines;	/* claim t's where, pages and field lines */
	unsigned int folios;	/* bit k: folio k (pfn PFN2M(k)) covered */
	const char *why;
};

static void hvo_sentence(size_t k, char *buf, size_t size)
{
	snprintf(buf, size, "folio at pfn 0x%llx vmemmap: plain vs optimised",
		 (unsigned long long)PFN2M(k));
}

/* The folios selected claimed by t and counted for it, the others
 * beyond the claims; as claimed only when all four are selected. */
static bool selects(const struct mmc_diff_result *res, unsigned int folios)
{
	const struct mmc_diff_claim *t = claim_of(res, "t");
	size_t n = (size_t)__builtin_popcount(folios);
	char s[96];

	if (!t || t->pgmap_diffs != n || field_count(t, "folio.vmemmap") != n ||
	    res->npgmap_diffs != 4 - n || res->claims->npgmap_diffs != n ||
	    res->claims->nunseen != !n || res->verdict != (n == 4 ? MMC_AS_CLAIMED : MMC_BEYOND_CLAIMS))
		return false;
	for (size_t k = 0; k < 4; k++) {
		const char *by;

		hvo_sentence(k, s, sizeof(s));
		by = claimed_by(res, s);
		if ((folios >> k & 1) ? !by || strcmp(by, "t") || beyond_has(res, s) :
					by || !beyond_has(res, s))
			return false;
	}
	return true;
}

static const struct sel sels[] = {
	{ " field folio.vmemmap plain -> optimised\n", 0xf, "no where line: every folio" },
	{ " where kind=hugetlb order=9 pfn=0x200000-0x200800\n field folio.vmemmap plain -> optimised\n",
	  0xf, "mut-mhp-no-self-hosted's claim: kind=hugetlb order=9, the hot-plugged pfns" },
	{ " where order=18\n field folio.vmemmap\n", 0, "order=18: the other hstate's" },
	{ " where kind=hotplug\n field folio.vmemmap\n", 0, "kind=hotplug: a folio is HugeTLB's" },
	{ " where kind=pgmap\n field folio.vmemmap\n", 0, "kind=pgmap" },
	{ " where type=devdax\n field folio.vmemmap\n", 0, "type=devdax: a pgmap key" },
	{ " where shift=9\n field folio.vmemmap\n", 0, "shift=9: the pgmap's, not order-9 folios" },
	{ " where altmap=no\n field folio.vmemmap\n", 0, "altmap=no: a pgmap key" },
	{ " where flags=0x0\n field folio.vmemmap\n", 0, "flags=0x0: a pgmap key" },
	{ " where pfn=0x200000-0x200400\n field folio.vmemmap\n", 0x3, "pfn= holding folios 0 and 1" },
	{ " where pfn=0x200000-0x200300\n field folio.vmemmap\n", 0x1,
	  "pfn= holding folio 0 and half of folio 1: a folio is held whole" },
	{ " where pfn=0x200000-0x200200,0x200400-0x200800\n field folio.vmemmap\n", 0xd,
	  "pfn= two windows: folios 0, 2 and 3" },
	{ " where range=1\n field folio.vmemmap\n", 0xf, "range=1: the 2 MiB HugeTLB range" },
	{ " where range=0,2-3\n field folio.vmemmap\n", 0, "range=0,2-3: the other ranges" },
	{ " field folio.vmemmap plain -> *\n", 0xf, "plain -> *" },
	{ " field folio.vmemmap optimised -> plain\n", 0, "optimised -> plain: the other way round" },
	{ " field folio.vmemmap * -> unknown\n", 0, "* -> unknown" },
	{ " field pools\n", 0xf, "the group pools" },
	{ " field any\n", 0xf, "the group any" },
	{ " field folio\n", 0, "the group folio: struct folio's members, not a pool's folio" },
	{ " field vmemmap\n", 0, "the group vmemmap: a vmemmap page's fields" },
	{ " field folio.list\n", 0, "folio.list: not what changed" },
	{ " field hstate.vmemmap_optimise\n", 0, "hstate.vmemmap_optimise: an hstate's, not a folio's" },
	{ " pages any\n field folio.vmemmap\n", 0xf, "pages any: every page, as without a pages line" },
};

static void test_select(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, m_hvo4, false);
	char text[512];

	for (size_t i = 0; i < sizeof(sels) / sizeof(sels[0]); i++) {
		struct mmc_diff_result *res;

		snprintf(text, sizeof(text), "claim t\n reason r\n%s", sels[i].lines);
		res = judge(a, b, text, false);
		if (!tap_ok(selects(res, sels[i].folios), "[proof] four folios optimised, %s: %d claimed",
			    sels[i].why, __builtin_popcount(sels[i].folios)))
			diag_lists(res);
		mmc_diff_result_destroy(res);
	}
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

/* ---- several differences, several claims ---- */

/* Each of want[] (sentence, the claim listing it or NULL for beyond the
 * claims) where it belongs, nothing else listed. */
struct placed {
	const char *sentence, *claim;
};

static bool placed_ok(const struct mmc_diff_result *res, const struct placed *want, size_t n)
{
	size_t nb = 0, nc = 0;

	for (size_t i = 0; i < n; i++) {
		const char *by = claimed_by(res, want[i].sentence);

		if (want[i].claim ? !by || strcmp(by, want[i].claim) || beyond_has(res, want[i].sentence) :
				    by || !beyond_has(res, want[i].sentence))
			return false;
		nc += want[i].claim != NULL;
		nb += !want[i].claim;
	}
	return res->npgmap_diffs == nb && res->claims && res->claims->npgmap_diffs == nc &&
	       res->verdict == (nb ? MMC_BEYOND_CLAIMS : MMC_AS_CLAIMED);
}

static const char S_FREE[] = "hstate#0 free_huge_pages: 32 vs 31";
static const char S_LIST3[] = "folio at pfn 0x200600 list: free vs active";

static void test_alloc(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, m_alloc, false);
	static const char a_txt[] = "claim free\n reason one free page taken\n where kind=hugetlb order=9\n"
				    " field hstate.free_huge_pages 32 -> 31\n";
	static const char b_txt[] = "claim active\n reason the folio allocated\n field folio.list free -> active\n";
	static const char c_txt[] = "claim surplus\n reason a surplus page\n field hstate.surplus_huge_pages\n";
	const struct placed both[] = { { S_FREE, "free" }, { S_LIST3, "active" } };
	const struct placed no_a[] = { { S_FREE, NULL }, { S_LIST3, "active" } };
	const struct placed no_b[] = { { S_FREE, "free" }, { S_LIST3, NULL } };
	char text[1024];
	struct mmc_diff_result *res;

	snprintf(text, sizeof(text), "%s%s%s", a_txt, b_txt, c_txt);
	res = judge(a, b, text, false);
	tap_ok(placed_ok(res, both, 2) && claim_of(res, "free")->pgmap_diffs == 1 &&
	       claim_of(res, "active")->pgmap_diffs == 1 && !claim_of(res, "surplus")->pgmap_diffs &&
	       res->claims->nunseen == 1,
	       "[proof] a folio allocated: free count and list claimed, as claimed; the surplus claim not seen");
	mmc_diff_result_destroy(res);
	res = judge(a, b, b_txt, false);
	if (!tap_ok(placed_ok(res, no_a, 2), "[proof] the same with the list claim only: beyond the claims, naming the free count"))
		diag_lists(res);
	mmc_diff_result_destroy(res);
	res = judge(a, b, a_txt, false);
	tap_ok(placed_ok(res, no_b, 2), "[proof] the same with the count claim only: beyond the claims, naming the folio's list");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

/* A folio whose list and vmemmap both change: two differences, a claim
 * of one never hides the other. */
static void test_two_in_one(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, m_alloc_hvo, false);
	static const char l[] = "folio at pfn 0x200000 list: free vs active";
	static const char v[] = "folio at pfn 0x200000 vmemmap: plain vs optimised";
	const struct placed list_only[] = { { l, "l" }, { v, NULL } };
	const struct placed both[] = { { l, "l" }, { v, "v" } };
	const struct placed none[] = { { l, NULL }, { v, NULL } };
	struct mmc_diff_result *res;

	res = judge(a, b, "claim l\n reason r\n field folio.list free -> active\n", false);
	tap_ok(placed_ok(res, list_only, 2),
	       "[proof] a folio allocated and optimised, its list claimed: beyond the claims, naming its vmemmap");
	mmc_diff_result_destroy(res);
	res = judge(a, b, "claim l\n reason r\n field folio.list free -> active\n"
			  "claim v\n reason r\n field folio.vmemmap plain -> optimised\n", false);
	tap_ok(placed_ok(res, both, 2), "[proof] the same, both claimed (by two claims): as claimed");
	mmc_diff_result_destroy(res);
	res = judge(a, b, "", false);
	tap_ok(placed_ok(res, none, 2), "[proof] the same without claims: both differences listed");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

static void test_shrink(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, m_shrink, false);
	static const char nr[] = "hstate#0 nr_huge_pages: 32 vs 31", fr[] = "hstate#0 free_huge_pages: 32 vs 31";
	static const char gone[] = "folio at pfn 0x203e00 (hstate#0, free): only in a";
	const struct placed one[] = { { nr, "s" }, { fr, "s" }, { gone, "s" } };
	const struct placed wrong_way[] = { { nr, "s" }, { fr, "s" }, { gone, NULL } };
	const struct placed split[] = { { nr, "counts" }, { fr, "counts" }, { gone, "folio" } };
	struct mmc_diff_result *res;

	res = judge(a, b, "claim s\n reason r\n field hstate.nr_huge_pages 32 -> 31\n"
			  " field hstate.free_huge_pages 32 -> 31\n field folio.list free -> none\n", false);
	tap_ok(placed_ok(res, one, 3) && claim_of(res, "s")->pgmap_diffs == 3 &&
	       field_count(claim_of(res, "s"), "folio.list") == 1 &&
	       field_count(claim_of(res, "s"), "hstate.nr_huge_pages") == 1,
	       "[proof] the last 2 MiB folio freed: counts and its list free -> none claimed, as claimed");
	mmc_diff_result_destroy(res);
	res = judge(a, b, "claim s\n reason r\n field hstate.nr_huge_pages\n"
			  " field hstate.free_huge_pages\n field folio.list none -> free\n", false);
	tap_ok(placed_ok(res, wrong_way, 3), "[proof] the same claimed none -> free: the folio beyond the claims");
	mmc_diff_result_destroy(res);
	res = judge(a, b, "claim counts\n reason r\n where kind=hugetlb range=1 pfn=0x200000-0x204000\n"
			  " field hstate.nr_huge_pages\n field hstate.free_huge_pages\n"
			  "claim folio\n reason r\n where pfn=0x203e00-0x204000\n field folio.list\n", false);
	tap_ok(placed_ok(res, split, 3),
	       "[proof] the same claimed by the hstate's range and pfns, and by the folio's pfns: as claimed");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

/* ---- many folio differences: the first 20 listed, the rest counted ---- */

/* Folios [from, to) listed as claimed by claim (NULL: beyond), in order
 * from list index at. */
static bool listed(char **list, const size_t *who, const struct mmc_diff_claims *cl, size_t at,
		   size_t from, size_t to, const char *claim)
{
	char s[96];

	for (size_t k = from; k < to; k++, at++) {
		hvo_sentence(k, s, sizeof(s));
		if (strcmp(list[at], s) || (claim && strcmp(cl->claim[who[at]].name, claim)))
			return false;
	}
	return true;
}

static void test_cap(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, m_hvo_all, false);
	struct mmc_diff_result *res = NULL;
	const struct mmc_diff_claims *cl;

	die(mmc_diff(a, b, NULL, &res));
	tap_ok(res->verdict == MMC_DIFFERENT && res->npgmap_diffs == 21 &&
	       listed(res->pgmap_diffs, NULL, NULL, 0, 0, 20, NULL) &&
	       !strcmp(res->pgmap_diffs[20], "and 12 more HugeTLB folios differ"),
	       "[proof] 32 folios optimised, no claims: 20 listed, 12 more counted, as before claims named them");
	mmc_diff_result_destroy(res);
	res = judge(a, b, "claim all\n reason r\n field folio.vmemmap plain -> optimised\n", false);
	cl = res->claims;
	tap_ok(res->verdict == MMC_AS_CLAIMED && !res->npgmap_diffs && cl->claim[0].pgmap_diffs == 32 &&
	       field_count(&cl->claim[0], "folio.vmemmap") == 32 && cl->npgmap_diffs == 21 &&
	       listed(cl->pgmap_diffs, cl->pgmap_diff_claim, cl, 0, 0, 20, "all") &&
	       !strcmp(cl->pgmap_diffs[20], "and 12 more HugeTLB folio differences") && cl->pgmap_diff_claim[20] == 0,
	       "[proof] the same, all claimed: 32 counted, 20 listed as claimed and 12 more");
	mmc_diff_result_destroy(res);
	res = judge(a, b, "claim first\n reason r\n where pfn=0x200000-0x203000\n field folio.vmemmap\n"
			  "claim all\n reason r\n field folio.vmemmap\n", false);
	cl = res->claims;
	tap_ok(res->verdict == MMC_AS_CLAIMED && cl->claim[0].pgmap_diffs == 24 && cl->claim[1].pgmap_diffs == 32 &&
	       cl->npgmap_diffs == 22 && listed(cl->pgmap_diffs, cl->pgmap_diff_claim, cl, 0, 0, 20, "first") &&
	       !strcmp(cl->pgmap_diffs[20], "and 4 more HugeTLB folio differences") && cl->pgmap_diff_claim[20] == 0 &&
	       !strcmp(cl->pgmap_diffs[21], "and 8 more HugeTLB folio differences") && cl->pgmap_diff_claim[21] == 1,
	       "[proof] the same, the first 24 folios claimed by one claim, all by another: each counts what it covers, the rest per claim");
	mmc_diff_result_destroy(res);
	res = judge(a, b, "claim half\n reason r\n where pfn=0x200000-0x202000\n field folio.vmemmap\n", false);
	cl = res->claims;
	tap_ok(res->verdict == MMC_BEYOND_CLAIMS && cl->claim[0].pgmap_diffs == 16 && cl->npgmap_diffs == 16 &&
	       listed(cl->pgmap_diffs, cl->pgmap_diff_claim, cl, 0, 0, 16, "half") && res->npgmap_diffs == 16 &&
	       listed(res->pgmap_diffs, NULL, NULL, 0, 16, 32, NULL),
	       "[proof] the same, half claimed: the 16 others listed beyond the claims, none counted away");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

/* Eight pool fields differ once each: one claim (pools) counts each. */
static void test_many_fields(void)
{
	static const char *const f[] = {
		"hstate.nr_huge_pages", "hstate.free_huge_pages", "hstate.resv_huge_pages",
		"hstate.surplus_huge_pages", "hstate.vmemmap_optimise", "folio.list",
		"folio.vmemmap", "memblock.state",
	};
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, m_many, false);
	struct mmc_diff_result *res = judge(a, b, "claim p\n reason r\n field pools\n", false);
	const struct mmc_diff_claim *d = claim_of(res, "p");
	bool each = d && d->nfields == 8;

	for (size_t i = 0; i < 8 && each; i++)
		each = field_count(d, f[i]) == 1;
	tap_ok(each && d->pgmap_diffs == 8 && res->verdict == MMC_AS_CLAIMED && !res->npgmap_diffs,
	       "[proof] eight pool fields differ once each: field pools covers all, each field counted once");
	for (size_t i = 0; !each && d && i < d->nfields; i++)
		tap_diag("%s: %llu", d->fields[i].name, (unsigned long long)d->fields[i].pages);
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

/* Images without pools read (an older snapshot): nothing of them differs. */
static void test_not_read(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, true), *b = build(VBASE_B, m_many, true);
	struct mmc_diff_result *res = judge(a, b, "claim p\n reason r\n field pools\n", true);

	tap_ok(res->verdict == MMC_AS_CLAIMED && !res->npgmap_diffs && res->claims->nunseen == 1 &&
	       !res->claims->claim[0].pgmap_diffs,
	       "[proof] pools read in neither image: no pool difference, field pools claimed but not seen");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

/* ---- parse errors: the file and the line ---- */

static void test_parse(void)
{
	/* after a version line, a comment and an empty line (lines 1-3) */
	static const struct claims_bad bad[] = {
		{ "claim a\n reason r\n field folio.colour\n", 6,
		  "unknown field folio.colour (folio.list, folio.vmemmap, folio.hstate, folio.node; the group pools names them all)" },
		{ "claim a\n reason r\n field memblock.presence no -> yes\n", 6,
		  "unknown field memblock.presence (memblock.present, memblock.end_pfn, memblock.state" },
		{ "claim a\n reason r\n field hstate.nr 4 -> 5\n", 6, "unknown field hstate.nr (hstate.present," },
		{ "claim a\n reason r\n field hstate.nr_huge_pages 4 -> many\n", 6,
		  "bad value 'many' of hstate.nr_huge_pages: a number, or *" },
		{ "claim a\n reason r\n\n field folio.list free -> used\n", 7,
		  "bad value 'used' of folio.list: free, active or none, or *" },
		{ "claim a\n reason r\n field folio.vmemmap plain -> optimized\n", 6,
		  "bad value 'optimized' of folio.vmemmap: optimised, plain or unknown, or *" },
		{ "claim a\n reason r\n field folio.vmemmap 0 -> 1\n", 6, "bad value '0' of folio.vmemmap" },
		{ "claim a\n reason r\n field folio.list active -> 1\n", 6, "bad value '1' of folio.list" },
		{ "claim a\n reason r\n field memblock.self_hosted 2 -> 0\n", 6,
		  "bad value '2' of memblock.self_hosted: yes or no (1/0, on/off), or *" },
		{ "claim a\n reason r\n field hstate.vmemmap_optimise on -> free\n", 6,
		  "bad value 'free' of hstate.vmemmap_optimise" },
		{ "claim a\n reason r\n field memblock.state 1 -> offline\n", 6,
		  "bad value 'offline' of memblock.state: a number" },
		{ "claim a\n reason r\n field pools 1 -> 2\n", 6, "pools is a group of fields: values need one field" },
		{ "claim a\n reason r\n pages tail\n field folio.vmemmap\n", 7,
		  "folio.vmemmap is not a field of one struct page, so the pages line (line 6) cannot apply to it" },
		{ "claim a\n reason r\n pages head\n field pools\n", 7, "pools is not a field of one struct page" },
		{ "claim a\n reason r\n field _refcount\n pages tail\n field hstate.free_huge_pages\n", 8,
		  "hstate.free_huge_pages is not a field of one struct page, so the pages line (line 7)" },
		{ "claim a\n reason r\n together\n field folio.list\n field folio.vmemmap\n", 7,
		  "folio.list is a pool's difference: a together claim asks its fields of one struct page or one vmemmap page (line 6)" },
	};

	claims_parse_errors("p.claims", "memmapcheck-claims 1\n# a comment\n\n", bad,
			    sizeof(bad) / sizeof(bad[0]));
}

/* The pool fields and values a file may use parse, on images of any
 * release (no layout has these names: binding takes them as they are). */
static void test_parse_good(void)
{
	static const char text[] =
		"claim every\n reason r\n where kind=hugetlb,hotplug order=0-63\n"
		" field hstate.present no -> yes\n field hstate.order 9 -> 10\n"
		" field hstate.vmemmap_optimise off -> on\n field hstate.nr_huge_pages 0x10 -> *\n"
		" field hstate.free_huge_pages\n field hstate.resv_huge_pages 1->2\n"
		" field hstate.surplus_huge_pages * -> 0\n field folio.list none -> free\n"
		" field folio.vmemmap unknown -> plain\n field folio.hstate 0 -> 1\n field folio.node 1 -> 0\n"
		" field memblock.present yes -> no\n field memblock.end_pfn 0x308000 -> 0x310000\n"
		" field memblock.state 1 -> 4\n field memblock.nid\n field memblock.self_hosted set -> clear\n"
		" field memblock.altmap_pfns 512 -> 0\n field pools\n";
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, NULL, false);
	struct mmc_diff_result *res = judge(a, b, text, false);

	tap_ok(res && res->verdict == MMC_AS_CLAIMED && res->claims->nunseen == 1,
	       "[proof] every pool field, with and without values, parses and binds; nothing differs: unseen");
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

/* ---- reports: every format that lists claimed pgmap differences ---- */

static const char REPORT_CLAIMS[] =
	"claim hvo-hotplug\n reason HVO optimises the folios on hot-plugged memory\n"
	" where kind=hugetlb order=9 pfn=0x200000-0x200800\n field folio.vmemmap plain -> optimised\n"
	"claim never\n reason a block offlined\n field memblock.state\n";

static void test_reports(void)
{
	struct mmc_snapshot *a = build(VBASE_A, NULL, false), *b = build(VBASE_B, m_hvo4, false);
	struct mmc_diff_result *res = judge(a, b, REPORT_CLAIMS, false);
	struct mmc_diff_result *strict = judge(a, b, REPORT_CLAIMS, true);
	char *t = pair_render(a, b, res, MMC_FMT_TEXT), *j = pair_render(a, b, res, MMC_FMT_JSON);
	char *k = pair_render(a, b, res, MMC_FMT_KTAP), *ks = pair_render(a, b, strict, MMC_FMT_KTAP);
	char *u = pair_render(a, b, res, MMC_FMT_JUNIT), *us = pair_render(a, b, strict, MMC_FMT_JUNIT);
	/* 2048 + 32 * 512 + 1 << 18 + 512 pages in the four ranges */
	static const char verdict[] = "as claimed: 0 of 281088 pages in 0 of 4 ranges differ, every difference claimed, "
				      "4 pgmap differences; claimed but not seen: never\n";
	char fl[96];

	if (getenv("TEST_CLAIMS_SHOW"))
		printf("%s\n%s\n%s\n%s\n", t, j, k, u);
	snprintf(fl, sizeof(fl), "      %-32s  %10d\n", "folio.vmemmap", 4);
	tap_ok(t && !strncmp(t, verdict, strlen(verdict)) &&
	       strstr(t, "\nCLAIMED PGMAP DIFFERENCES\n  folio at pfn 0x200000 vmemmap: plain vs optimised  (hvo-hotplug)\n"
			 "  folio at pfn 0x200200 vmemmap: plain vs optimised  (hvo-hotplug)\n") &&
	       strstr(t, "  folio at pfn 0x200600 vmemmap: plain vs optimised  (hvo-hotplug)\n") &&
	       strstr(t, fl) && strstr(t, "claimed but not seen (line 6)") &&
	       !strstr(t, "\nPGMAP DIFFERENCES"),
	       "[proof] text: as claimed, 4 pgmap differences, each listed with its claim, the field counted, the unseen claim");
	tap_ok(j && strstr(j, "\"pgmap_diffs\":[],") &&
	       strstr(j, "\"name\":\"hvo-hotplug\",\"reason\":\"HVO optimises the folios on hot-plugged memory\",\"line\":2,"
			 "\"seen\":true,\"pages\":0,\"vframes\":0,\"range_pages\":0,\"pgmap_diffs\":4,\"ranges\":0,"
			 "\"fields\":{\"folio.vmemmap\":4}") &&
	       strstr(j, "\"pgmap_diffs\":[{\"diff\":\"folio at pfn 0x200000 vmemmap: plain vs optimised\",\"claim\":\"hvo-hotplug\"},") &&
	       strstr(j, "\"unseen\":[\"never\"]"),
	       "[proof] JSON: nothing beyond, the claim's count and field, the claimed differences with their claim");
	tap_ok(k && strstr(k, "1..6\n") &&
	       strstr(k, "# claim hvo-hotplug covered 0 pages, 0 vmemmap pages, 4 pgmap differences in 0 ranges\nok 5 claim hvo-hotplug\n") &&
	       strstr(k, "ok 6 claim never # SKIP claimed but not seen\n") && ks &&
	       strstr(ks, "not ok 6 claim never # claimed but not seen (--strict)\n"),
	       "[proof] KTAP: the claim ok with its pgmap differences, the unseen one a SKIP (--strict: not ok)");
	tap_ok(u && strstr(u, "<system-out>0 pages, 0 vmemmap pages, 4 pgmap differences in 0 ranges: "
			      "HVO optimises the folios on hot-plugged memory</system-out>") &&
	       strstr(u, "<skipped message=\"claimed but not seen\"/>") && us &&
	       strstr(us, "<failure type=\"unseen\""),
	       "[proof] JUnit: the claim's testcase says its pgmap differences; the unseen one skipped (--strict: a failure)");
	free(t);
	free(j);
	free(k);
	free(ks);
	free(u);
	free(us);
	mmc_diff_result_destroy(res);
	mmc_diff_result_destroy(strict);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(a);
}

int main(void)
{
	if (mmc_test_layout_612(&layout612))
		return 1;
	test_one();
	test_select();
	test_alloc();
	test_two_in_one();
	test_shrink();
	test_cap();
	test_many_fields();
	test_not_read();
	test_parse();
	test_parse_good();
	test_reports();
	mmc_test_layout_release(&layout612);
	return tap_done();
}
