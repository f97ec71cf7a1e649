// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, HugeTLB pools and memory blocks: what each image's hstates and the folios on their
 * lists say, as sentences like the pgmaps' ("hstate#0 nr_huge_pages: 536
 * vs 532", "folio at pfn 0xc1000 (hstate#0): only in a").  A pool whose
 * folio count differs is a difference by itself, even where the struct
 * pages of the folios both images have are alike.  hstates pair by index
 * (hugetlb_add_hstate() order, the same for one kernel config and command
 * line), folios by head pfn.
 *
 * Placement: a folio at a pfn in one image only, of an hstate whose pools
 * are alike in both images (diff_hugetlb_placement()), is the buddy
 * allocator's choice of where a run-time folio goes, not a difference: it
 * is listed in the result's placed folios instead of as a sentence.
 *
 * Each sentence is one difference with a field a claim can name
 * (hstate.*, folio.*, memblock.*: doc/CLAIMS.md), judged on its own: a
 * folio whose list and vmemmap both change says so twice, so that a claim
 * of one never hides the other.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "diff_int.h"

/* Folio (memory block) lines shown one by one; the rest are counted. */
#define MAX_FOLIO_LINES 20

/* What one hstate, folio or memory block differs in: a sentence each
 * (an hstate has the most: order, HVO and four counts). */
#define ITEM_MAX 6
struct item {
	size_t n;
	struct pool_diff d[ITEM_MAX];
	char what[ITEM_MAX][160];
};

/* Of one kind (folios, blocks): the items listed beyond the claims, those
 * counted past max, the claimed differences listed. */
struct plines {
	uint64_t max, shown, more, cshown;
};

static const char *state_name(enum mmc_read_state st)
{
	return st == MMC_READ_DONE ? "read" : "partly read";
}

static struct pool_diff with_num(struct pool_diff d, const char *field, uint64_t a, uint64_t b)
{
	d.field = field;
	d.va = (struct mmc_nval){ .cls = MMC_V_RAW, .v = (int64_t)a, .raw = a };
	d.vb = (struct mmc_nval){ .cls = MMC_V_RAW, .v = (int64_t)b, .raw = b };
	return d;
}

static struct pool_diff with_words(struct pool_diff d, const char *field, const char *a,
				   const char *b)
{
	d.field = field;
	d.word_a = a;
	d.word_b = b;
	return d;
}

static void item_add(struct item *it, const struct pool_diff *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void item_add(struct item *it, const struct pool_diff *d, const char *fmt, ...)
{
	va_list ap;

	if (it->n == ITEM_MAX)
		return;
	it->d[it->n] = *d;
	va_start(ap, fmt);
	vsnprintf(it->what[it->n], sizeof(it->what[0]), fmt, ap);
	va_end(ap);
	it->n++;
}

/* The item's differences: those a claim covers kept as claimed, the
 * others listed together (past ln->max items, the item counted). */
static void item_flush(struct dctx *c, struct item *it, struct plines *ln)
{
	bool beyond[ITEM_MAX], any = false;

	for (size_t k = 0; k < it->n; k++) {
		bool show = ln->cshown < ln->max;

		beyond[k] = !diff_claims_pooldiff(c, &it->d[k], it->what[k], show);
		ln->cshown += !beyond[k] && show;
		any |= beyond[k];
	}
	if (any && ln->shown >= ln->max) {
		ln->more++;
	} else if (any) {
		ln->shown++;
		for (size_t k = 0; k < it->n; k++)
			if (beyond[k])
				diff_pgdiff(c, "%s", it->what[k]);
	}
	it->n = 0;
}

static void diff_hstate(struct dctx *c, size_t i, const struct mmc_shstate *x,
			const struct mmc_shstate *y, struct plines *ln)
{
	static const struct { const char *field; size_t off; } f[] = {
		{ "hstate.nr_huge_pages", offsetof(struct mmc_shstate, nr) },
		{ "hstate.free_huge_pages", offsetof(struct mmc_shstate, free) },
		{ "hstate.resv_huge_pages", offsetof(struct mmc_shstate, resv) },
		{ "hstate.surplus_huge_pages", offsetof(struct mmc_shstate, surplus) },
	};
	const struct pool_diff at = { .kind = MMC_RANGE_HUGETLB, .order = x->order,
				      .hstate = (int64_t)i };
	bool hx = x->flags & MMC_HSTATE_HVO, hy = y->flags & MMC_HSTATE_HVO;
	struct item it = { 0 };
	struct pool_diff d;

	if (x->order != y->order) {
		d = with_num(at, "hstate.order", x->order, y->order);
		item_add(&it, &d, "hstate#%zu order: %u vs %u", i, x->order, y->order);
	}
	if (hx != hy) {
		d = with_num(at, "hstate.vmemmap_optimise", hx, hy);
		item_add(&it, &d, "hstate#%zu vmemmap optimisation: %s vs %s", i, hx ? "on" : "off",
			 hy ? "on" : "off");
	}
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		uint64_t vx = *(const uint64_t *)((const char *)x + f[k].off);
		uint64_t vy = *(const uint64_t *)((const char *)y + f[k].off);

		if (vx == vy)
			continue;
		d = with_num(at, f[k].field, vx, vy);
		item_add(&it, &d, "hstate#%zu %s: %" PRIu64 " vs %" PRIu64, i, f[k].field + 7, vx, vy);
	}
	item_flush(c, &it, ln);
}

/* Folios per node and list of one hstate: image 0 adds, image 1
 * subtracts; all zero when both images have as many. */
struct node_count {
	uint32_t node;
	uint8_t list;
	int64_t n;
};

static bool count_folios(struct node_count **nc, size_t *n, size_t *cap,
			 const struct mmc_sfolios *f, size_t nf, uint32_t h, int sign)
{
	for (size_t i = 0; i < nf; i++) {
		size_t k;

		if (f[i].hstate != h)
			continue;
		for (k = 0; k < *n; k++)
			if ((*nc)[k].node == f[i].node && (*nc)[k].list == f[i].list)
				break;
		if (k == *n) {
			if (*n == *cap) {
				size_t ncap = *cap ? 2 * *cap : 8;
				struct node_count *m = realloc(*nc, ncap * sizeof(*m));

				if (!m)
					return false;
				*nc = m;
				*cap = ncap;
			}
			(*nc)[(*n)++] = (struct node_count){ f[i].node, f[i].list, 0 };
		}
		(*nc)[k].n += sign * (int64_t)f[i].nfolios;
	}
	return true;
}

bool diff_hugetlb_placement(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			    uint32_t h)
{
	const struct mmc_shstate *ha, *hb;
	const struct mmc_sfolios *fa, *fb;
	size_t nha, nhb, nfa, nfb, n = 0, cap = 0;
	struct node_count *nc = NULL;
	bool alike;

	/* only pools read whole say how many folios each list holds */
	if (mmc_snapshot_hugetlb(a, &ha, &nha, &fa, &nfa, NULL) != MMC_READ_DONE ||
	    mmc_snapshot_hugetlb(b, &hb, &nhb, &fb, &nfb, NULL) != MMC_READ_DONE ||
	    h >= nha || h >= nhb)
		return false;
	if (ha[h].order != hb[h].order || (ha[h].flags ^ hb[h].flags) & MMC_HSTATE_HVO ||
	    ha[h].nr != hb[h].nr || ha[h].free != hb[h].free || ha[h].resv != hb[h].resv ||
	    ha[h].surplus != hb[h].surplus)
		return false;
	alike = count_folios(&nc, &n, &cap, fa, nfa, h, 1) &&
		count_folios(&nc, &n, &cap, fb, nfb, h, -1);
	for (size_t k = 0; k < n && alike; k++)
		alike = nc[k].n == 0;
	free(nc);
	return alike;
}

/* A folio in one image only, its hstate's pools alike: listed apart. */
static void note_placed(struct dctx *c, uint64_t pfn, const struct mmc_sfolios *s,
			uint32_t order, int side)
{
	struct mmc_diff_result *res = c->res;
	struct mmc_diff_placed *p;

	if ((res->nplaced & (res->nplaced - 1)) == 0) {
		p = realloc(res->placed, (res->nplaced ? 2 * res->nplaced : 1) * sizeof(*p));
		if (!p) {
			c->oom = true;
			return;
		}
		res->placed = p;
	}
	res->placed[res->nplaced++] = (struct mmc_diff_placed){
		.pfn = pfn, .hstate = s->hstate, .order = order, .node = s->node, .list = s->list,
		.side = (uint8_t)side };
}

/* One side's folios, one at a time in pfn order. */
struct fcur {
	const struct mmc_shstate *hs;
	size_t nh;
	const struct mmc_sfolios *f;
	size_t nf, span;
	uint64_t i;
};

static bool fcur_at(const struct fcur *p, uint64_t *pfn)
{
	const struct mmc_sfolios *s;

	if (p->span >= p->nf)
		return false;
	s = &p->f[p->span];
	*pfn = s->start_pfn + (s->hstate < p->nh ? p->i << p->hs[s->hstate].order : p->i);
	return true;
}

static void fcur_next(struct fcur *p)
{
	if (++p->i >= p->f[p->span].nfolios) {
		p->span++;
		p->i = 0;
	}
}

static const char *list_name(uint8_t l)
{
	return l == MMC_FOLIO_FREE ? "free" : l == MMC_FOLIO_ACTIVE ? "active" : "?";
}

static const char *vm_name(uint8_t v)
{
	return v == MMC_FVM_OPTIMISED ? "optimised" : v == MMC_FVM_PLAIN ? "plain" : "unknown";
}

/* The folio at pfn of p's current span, as a pool difference judged on
 * image side: its hstate's order, its pfns. */
static struct pool_diff folio_at(const struct fcur *p, uint64_t pfn, int side)
{
	uint32_t h = p->f[p->span].hstate;
	struct pool_diff d = { .side = side, .kind = MMC_RANGE_HUGETLB, .order = UINT64_MAX,
			       .hstate = -1, .lo = pfn, .hi = pfn + 1 };

	if (h < p->nh && p->hs[h].order < 64) {
		d.order = p->hs[h].order;
		d.hi = pfn + (1ULL << d.order);
	}
	return d;
}

/* A folio on one side only (side 0: a): on no list in the other. */
static void folio_only(struct item *it, const struct fcur *p, uint64_t pfn, int side)
{
	const struct mmc_sfolios *s = &p->f[p->span];
	const char *l = list_name(s->list);
	struct pool_diff d = with_words(folio_at(p, pfn, side), "folio.list", side ? "none" : l,
					side ? l : "none");

	item_add(it, &d, "folio at pfn 0x%" PRIx64 " (hstate#%u, %s): only in %s", pfn, s->hstate,
		 l, side ? "b" : "a");
}

static void folio_pair(struct item *it, const struct fcur *a, const struct fcur *b, uint64_t pfn)
{
	const struct mmc_sfolios *sa = &a->f[a->span], *sb = &b->f[b->span];
	const struct pool_diff at = folio_at(a, pfn, 0);
	struct pool_diff d;

	if (sa->hstate != sb->hstate) {
		d = with_num(at, "folio.hstate", sa->hstate, sb->hstate);
		item_add(it, &d, "folio at pfn 0x%" PRIx64 " hstate: #%u vs #%u", pfn, sa->hstate,
			 sb->hstate);
	}
	if (sa->list != sb->list) {
		d = with_words(at, "folio.list", list_name(sa->list), list_name(sb->list));
		item_add(it, &d, "folio at pfn 0x%" PRIx64 " list: %s vs %s", pfn, d.word_a, d.word_b);
	}
	if (sa->vmemmap != sb->vmemmap) {
		d = with_words(at, "folio.vmemmap", vm_name(sa->vmemmap), vm_name(sb->vmemmap));
		item_add(it, &d, "folio at pfn 0x%" PRIx64 " vmemmap: %s vs %s", pfn, d.word_a,
			 d.word_b);
	}
	if (sa->node != sb->node) {
		d = with_num(at, "folio.node", sa->node, sb->node);
		item_add(it, &d, "folio at pfn 0x%" PRIx64 " node: %u vs %u", pfn, sa->node, sb->node);
	}
}

/* The folio at p's cursor, at pfn, in image side only. */
static void one_side(struct dctx *c, struct item *it, const struct fcur *p, uint64_t pfn,
		     int side, const bool *placement, size_t nplacement)
{
	const struct mmc_sfolios *s = &p->f[p->span];

	if (s->hstate < nplacement && placement[s->hstate])
		note_placed(c, pfn, s, p->hs[s->hstate].order, side);
	else
		folio_only(it, p, pfn, side);
}

/* placement[h]: diff_hugetlb_placement() of hstate h (nplacement of them) */
static void diff_folios(struct dctx *c, struct fcur *a, struct fcur *b, const bool *placement,
			size_t nplacement)
{
	struct plines ln = { .max = MAX_FOLIO_LINES };
	uint64_t pa = 0, pb = 0;
	struct item it = { 0 };
	bool ha, hb;

	while ((ha = fcur_at(a, &pa)) | (hb = fcur_at(b, &pb))) {
		if (ha && (!hb || pa < pb)) {
			one_side(c, &it, a, pa, 0, placement, nplacement);
			fcur_next(a);
		} else if (hb && (!ha || pb < pa)) {
			one_side(c, &it, b, pb, 1, placement, nplacement);
			fcur_next(b);
		} else {
			folio_pair(&it, a, b, pa);
			fcur_next(a);
			fcur_next(b);
		}
		item_flush(c, &it, &ln);
	}
	if (ln.more)
		diff_pgdiff(c, "and %" PRIu64 " more HugeTLB folios differ", ln.more);
	diff_claims_pool_more(c, "HugeTLB folio differences");
}

void diff_hugetlb(struct dctx *c, const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	struct fcur fa = { 0 }, fb = { 0 };
	const char *wa, *wb;
	enum mmc_read_state sa = mmc_snapshot_hugetlb(a, &fa.hs, &fa.nh, &fa.f, &fa.nf, &wa);
	enum mmc_read_state sb = mmc_snapshot_hugetlb(b, &fb.hs, &fb.nh, &fb.f, &fb.nf, &wb);
	size_t n = fa.nh > fb.nh ? fa.nh : fb.nh;
	struct plines all = { .max = UINT64_MAX };
	bool *placement;

	/* not read (an older snapshot, a layout without them): nothing known
	 * to compare, which is no difference */
	if (sa == MMC_READ_NOT || sb == MMC_READ_NOT)
		return;
	/* what was read, not what the kernel did: no claim covers it */
	if (sa != sb)
		diff_pgdiff(c, "HugeTLB pools: %s vs %s", state_name(sa), state_name(sb));
	for (size_t i = 0; i < n; i++) {
		if (i >= fa.nh || i >= fb.nh) {
			const struct mmc_shstate *h = i < fa.nh ? &fa.hs[i] : &fb.hs[i];
			const struct pool_diff at = { .side = i >= fa.nh, .kind = MMC_RANGE_HUGETLB,
						      .order = h->order, .hstate = (int64_t)i };
			struct pool_diff d = with_num(at, "hstate.present", i < fa.nh, i < fb.nh);
			struct item it = { 0 };

			item_add(&it, &d, "hstate#%zu (order %u, %" PRIu64 " folios): only in %s", i,
				 h->order, h->nr, i < fa.nh ? "a" : "b");
			item_flush(c, &it, &all);
			continue;
		}
		diff_hstate(c, i, &fa.hs[i], &fb.hs[i], &all);
	}
	placement = calloc(n + 1, sizeof(*placement));
	if (!placement) {
		c->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		placement[i] = diff_hugetlb_placement(a, b, (uint32_t)i);
	diff_folios(c, &fa, &fb, placement, n);
	free(placement);
}

/* A memory block as a pool difference judged on image side. */
static struct pool_diff block_at(const struct mmc_smemblock *x, int side)
{
	return (struct pool_diff){ .side = side, .kind = MMC_RANGE_HOTPLUG, .order = 0,
				   .hstate = -1, .lo = x->start_pfn, .hi = x->end_pfn };
}

static void block_pair(struct item *it, const struct mmc_smemblock *x,
		       const struct mmc_smemblock *y)
{
	const struct pool_diff at = block_at(x, 0);
	bool sx = x->flags & MMC_MEMBLOCK_SELF_HOSTED, sy = y->flags & MMC_MEMBLOCK_SELF_HOSTED;
	struct pool_diff d;

	if (x->end_pfn != y->end_pfn || x->id != y->id) {
		d = with_num(at, "memblock.end_pfn", x->end_pfn, y->end_pfn);
		item_add(it, &d, "memory block %" PRIu64 " end pfn: 0x%" PRIx64 " vs 0x%" PRIx64,
			 x->id, x->end_pfn, y->end_pfn);
	}
	if (x->state != y->state) {
		d = with_num(at, "memblock.state", x->state, y->state);
		item_add(it, &d, "memory block %" PRIu64 " state: %u vs %u", x->id, x->state, y->state);
	}
	if (x->nid != y->nid) {
		d = with_num(at, "memblock.nid", x->nid, y->nid);
		item_add(it, &d, "memory block %" PRIu64 " nid: %u vs %u", x->id, x->nid, y->nid);
	}
	/* one sentence for the memmap either way: whether it is self-hosted,
	 * else how many pfns hold it */
	if (sx != sy)
		d = with_num(at, "memblock.self_hosted", sx, sy);
	else
		d = with_num(at, "memblock.altmap_pfns", x->altmap_pfns, y->altmap_pfns);
	if (sx != sy || x->flags != y->flags || x->altmap_pfns != y->altmap_pfns)
		item_add(it, &d, "memory block %" PRIu64 " self-hosted memmap pfns: %" PRIu64 " vs %" PRIu64,
			 x->id, x->altmap_pfns, y->altmap_pfns);
}

/* Memory blocks pair by start pfn; a block on one side only, or one whose
 * pfns, state, node or self-hosted memmap differs, is a difference. */
void diff_hotplug(struct dctx *c, const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	const struct mmc_smemblock *ba, *bb;
	size_t na, nb, i = 0, j = 0;
	enum mmc_read_state sa = mmc_snapshot_hotplug(a, &ba, &na, NULL);
	enum mmc_read_state sb = mmc_snapshot_hotplug(b, &bb, &nb, NULL);
	struct plines ln = { .max = MAX_FOLIO_LINES };
	struct item it = { 0 };

	if (sa == MMC_READ_NOT || sb == MMC_READ_NOT)
		return;
	if (sa != sb)
		diff_pgdiff(c, "memory blocks: %s vs %s", state_name(sa), state_name(sb));
	while (i < na || j < nb) {
		bool only_a = j >= nb || (i < na && ba[i].start_pfn < bb[j].start_pfn);
		bool only_b = !only_a && (i >= na || bb[j].start_pfn < ba[i].start_pfn);
		const struct mmc_smemblock *x = only_b ? &bb[j] : &ba[i];
		struct pool_diff d = with_num(block_at(x, only_b), "memblock.present", !only_b,
					      !only_a);

		if (only_a || only_b)
			item_add(&it, &d, "memory block %" PRIu64 " (pfn 0x%" PRIx64 "): only in %s",
				 x->id, x->start_pfn, only_a ? "a" : "b");
		else
			block_pair(&it, &ba[i], &bb[j]);
		i += !only_b;
		j += !only_a;
		item_flush(c, &it, &ln);
	}
	if (ln.more)
		diff_pgdiff(c, "and %" PRIu64 " more memory blocks differ", ln.more);
	diff_claims_pool_more(c, "memory block differences");
}
