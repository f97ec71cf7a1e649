// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, claims on ranges: where a claim holds (its pgmap, kind, order,
 * range= and pfn= keys, judged on a range, a pgmap or a pool), and the
 * differences above the struct pages matched with claims: a range only
 * one image has, a pgmap's or a range attribute's, a HugeTLB pool's or
 * a memory block's.  The struct-page fields are diff_claims.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_claims.h"
#include "rules.h"

/* ---- where ---- */

static bool alt_has(const struct claim_clause *k, uint64_t v)
{
	for (size_t i = 0; i < k->nalt; i++)
		if (v >= k->alt[i].lo && v <= k->alt[i].hi)
			return true;
	return false;
}

/* What a where line is judged on: a range of the diff (ri its number), or
 * a pgmap as a whole or a range's attributes (ri -1: the caller checks
 * range=, for a pgmap on every one of its ranges). */
struct where_on {
	const struct mmc_spgmap *pg;	/* NULL: the range is no pgmap's */
	unsigned int kind;		/* enum mmc_range_kind */
	uint64_t order;			/* UINT64_MAX: its owner is missing */
	int64_t ri;
};

/* Every clause but pfn= on w.  The pgmap keys need a pgmap: a claim
 * scoped to device-dax must never cover HugeTLB or hot-plugged pages. */
static bool where_ok(const struct claim *cl, const struct where_on *w)
{
	const struct mmc_spgmap *pg = w->pg;

	for (size_t i = 0; i < cl->nclauses; i++) {
		const struct claim_clause *k = &cl->clauses[i];
		bool ok = false;
		int ti;

		switch (k->key) {
		case CK_TYPE:
			ti = pg ? mmc_memory_type_index(pg->type_name) : -1;
			ok = ti >= 0 && alt_has(k, (uint64_t)ti);
			break;
		case CK_SHIFT:
			ok = pg && alt_has(k, pg->vmemmap_shift);
			break;
		case CK_ALTMAP:
			ok = pg && alt_has(k, pg->has_altmap ? 1 : 0);
			break;
		case CK_FLAGS:
			for (size_t a = 0; pg && a < k->nalt && !ok; a++)
				ok = (pg->flags & k->alt[a].lo) == k->alt[a].lo;
			break;
		case CK_KIND:
			ok = alt_has(k, w->kind);
			break;
		case CK_ORDER:
			ok = w->order != UINT64_MAX && alt_has(k, w->order);
			break;
		case CK_RANGE:
			ok = w->ri < 0 || alt_has(k, (uint64_t)w->ri);
			break;
		case CK_PFN:
			ok = true;
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* Every pfn= clause has a window holding [lo, hi). */
static bool pfn_span_ok(const struct claim *cl, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < cl->nclauses; i++) {
		const struct claim_clause *k = &cl->clauses[i];
		bool ok = false;

		if (k->key != CK_PFN)
			continue;
		for (size_t a = 0; a < k->nalt && !ok; a++)
			ok = lo >= k->alt[a].lo && hi <= k->alt[a].hi;
		if (!ok)
			return false;
	}
	return true;
}

static const struct mmc_spgmap *pgmap_of(const struct mmc_snapshot *s, uint32_t i)
{
	return i < mmc_snapshot_npgmaps(s) ? mmc_snapshot_pgmap(s, i) : NULL;
}

/*
 * order= is the compound order the kernel gives the range's folios: the
 * hstate's huge_page_order() for HugeTLB, pgmap->vmemmap_shift for a pgmap
 * (memmap_init_zone_device() makes compound pages of that order), 0 for
 * hot-plugged memory (memmap_init_range() initialises order-0 pages).
 */
static struct where_on where_on_range(const struct mmc_snapshot *s, const struct mmc_srange *r,
				      int64_t ri)
{
	struct where_on w = { .kind = r->kind, .order = UINT64_MAX, .ri = ri };
	const struct mmc_shstate *hs;
	size_t nh;

	switch (r->kind) {
	case MMC_RANGE_PGMAP:
		w.pg = pgmap_of(s, r->pgmap_index);
		if (w.pg)
			w.order = w.pg->vmemmap_shift;
		break;
	case MMC_RANGE_HUGETLB:
		mmc_snapshot_hugetlb(s, &hs, &nh, NULL, NULL, NULL);
		if (r->owner < nh)
			w.order = hs[r->owner].order;
		break;
	case MMC_RANGE_HOTPLUG:
		w.order = 0;
		break;
	}
	return w;
}

/* Range ri of the diff as where judges it: the base image's range, or the
 * patched image's when only that has it. */
static struct where_on where_on_diff_range(const struct dctx *c, const struct mmc_diff_range *dr,
					   int64_t ri)
{
	const struct mmc_snapshot *s = dr->a_index >= 0 ? c->a : c->b;

	return where_on_range(s, mmc_snapshot_range(s, (size_t)(dr->a_index >= 0 ? dr->a_index :
								   dr->b_index)), ri);
}

/* A pgmap as a whole (its own differences, or none of its ranges in the
 * other image). */
static struct where_on where_on_pgmap(const struct mmc_spgmap *pg)
{
	struct where_on w = { .pg = pg, .kind = MMC_RANGE_PGMAP, .order = UINT64_MAX, .ri = -1 };

	if (pg)
		w.order = pg->vmemmap_shift;
	return w;
}

void diff_claims_range(struct dctx *c, const struct mmc_diff_range *dr)
{
	struct claims_bound *cb = c->claims;
	const struct where_on w = where_on_diff_range(c, dr, (int64_t)c->ri);

	claims_bind_kind(c);
	cb->any_ok = false;
	for (size_t i = 0; i < cb->n; i++) {
		cb->b[i].range_ok = where_ok(cb->b[i].cl, &w);
		cb->any_ok |= cb->b[i].range_ok;
	}
}

bool claims_pfn_ok(const struct claim *cl, uint64_t pfn)
{
	return pfn_span_ok(cl, pfn, pfn + 1);
}

/* ---- ranges, pgmaps ---- */

bool diff_claims_range_only(struct dctx *c, struct mmc_diff_range *dr, int side)
{
	struct claims_bound *cb = c->claims;
	uint64_t n = dr->end_pfn - dr->start_pfn;
	bool covered = false;

	diff_claims_range(c, dr);
	for (size_t i = 0; i < cb->n; i++) {
		struct bclaim *b = &cb->b[i];

		if (!b->range_ok || b->cl->pages != CR_ANY ||
		    !pfn_span_ok(b->cl, dr->start_pfn, dr->end_pfn) ||
		    !claims_covers(c, b, "range", MMC_TAIL_NONE))
			continue;
		b->range_pages += n;
		cb->row_pages[c->ri * cb->n + i] += n;
		diff_count_named(&b->cnt, "range", n);
		covered = true;
	}
	return covered;
}

/* The diff's number of range j of image side (its ranges are a's, then
 * those only in b, in b's order). */
static int64_t range_number(const struct dctx *c, int side, size_t j)
{
	const struct mmc_snapshot *a = c->a, *b = c->b;
	const struct mmc_srange *r;
	size_t na = mmc_snapshot_nranges(a), before = 0;

	if (!side)
		return (int64_t)j;
	for (size_t k = 0; k <= j; k++) {
		bool in_a = false;

		r = mmc_snapshot_range(b, k);
		for (size_t i = 0; i < na && !in_a; i++) {
			const struct mmc_srange *x = mmc_snapshot_range(a, i);

			if (x->start_pfn == r->start_pfn && x->end_pfn == r->end_pfn) {
				if (k == j)
					return (int64_t)i;
				in_a = true;
			}
		}
		if (!in_a && k < j)
			before++;
	}
	return (int64_t)(na + before);
}

static bool range_key_ok(const struct claim *cl, int64_t ri)
{
	for (size_t q = 0; q < cl->nclauses; q++)
		if (cl->clauses[q].key == CK_RANGE && !alt_has(&cl->clauses[q], (uint64_t)ri))
			return false;
	return true;
}

/* range= and pfn= of a claim on the ranges a pgmap difference concerns:
 * the one range, or every range of the pgmap. */
static bool pgdiff_ranges_ok(const struct dctx *c, const struct claim *cl, int side,
			     int64_t pgmap, int64_t range)
{
	const struct mmc_snapshot *s = side ? c->b : c->a;

	if (range >= 0) {
		const struct mmc_diff_range *dr = &c->res->ranges[range];

		return range_key_ok(cl, range) && pfn_span_ok(cl, dr->start_pfn, dr->end_pfn);
	}
	for (size_t j = 0; j < mmc_snapshot_nranges(s); j++) {
		const struct mmc_srange *r = mmc_snapshot_range(s, j);

		if (r->pgmap_index != (uint64_t)pgmap)
			continue;
		if (!range_key_ok(cl, range_number(c, side, j)) ||
		    !pfn_span_ok(cl, r->start_pfn, r->end_pfn))
			return false;
	}
	return true;
}

static bool add_pgdiff(struct mmc_diff_claims *out, const char *sentence, size_t claim)
{
	char **p = realloc(out->pgmap_diffs, (out->npgmap_diffs + 1) * sizeof(*p));
	size_t *w;

	if (!p)
		return false;
	out->pgmap_diffs = p;
	w = realloc(out->pgmap_diff_claim, (out->npgmap_diffs + 1) * sizeof(*w));
	if (!w)
		return false;
	out->pgmap_diff_claim = w;
	if (!(p[out->npgmap_diffs] = strdup(sentence)))
		return false;
	w[out->npgmap_diffs++] = claim;
	return true;
}

/* A range-level difference as claims judge it: a pgmap's or a range
 * attribute's (pgdiff_ranges_ok()'s side, pgmap, range), or a pool's. */
struct rl_diff {
	const char *field;
	struct where_on w;
	const struct mmc_nval *va, *vb;
	const char *word_a, *word_b;
	int side;
	int64_t pgmap, range;
	const struct pool_diff *pool;
};

/* Is r one of the ranges pool difference d concerns: an hstate's own, or
 * one holding pfns of the folio or memory block? */
static bool pool_range_of(const struct pool_diff *d, const struct mmc_srange *r)
{
	if (r->kind != d->kind)
		return false;
	if (d->hstate >= 0)
		return r->owner == (uint64_t)d->hstate;
	return r->start_pfn < d->hi && d->lo < r->end_pfn;
}

/*
 * range= and pfn= of cl on pool difference d: pfn= on a folio's or a
 * block's own pfns, or on every range of an hstate (in both images: its
 * counts are its folios' in either); range= on every range d concerns.
 * With no range to judge them on they do not hold: a claim scoped to
 * some pfns never covers a pool wholesale.
 */
static bool pool_ranges_ok(const struct dctx *c, const struct claim *cl, const struct pool_diff *d)
{
	bool by_range = false, by_pfn = false;
	size_t n = 0;

	for (size_t q = 0; q < cl->nclauses; q++) {
		by_range |= cl->clauses[q].key == CK_RANGE;
		by_pfn |= cl->clauses[q].key == CK_PFN;
	}
	if (!by_range && !by_pfn)
		return true;
	if (d->hstate < 0 && !pfn_span_ok(cl, d->lo, d->hi))
		return false;
	for (int side = 0; side < 2; side++) {
		const struct mmc_snapshot *s = side ? c->b : c->a;

		if (d->hstate < 0 && side != d->side)
			continue;
		for (size_t j = 0; j < mmc_snapshot_nranges(s); j++) {
			const struct mmc_srange *r = mmc_snapshot_range(s, j);

			if (!pool_range_of(d, r))
				continue;
			n++;
			if ((by_range && !range_key_ok(cl, range_number(c, side, j))) ||
			    (d->hstate >= 0 && !pfn_span_ok(cl, r->start_pfn, r->end_pfn)))
				return false;
		}
	}
	return n || (d->hstate < 0 && !by_range);
}

/* Does a field of b name d, with its values where it has them? */
static bool rl_named(const struct dctx *c, const struct bclaim *b, const struct rl_diff *d)
{
	const struct claim *cl = b->cl;

	if (claims_covers(c, b, d->field, MMC_TAIL_NONE))
		return true;
	for (size_t f = 0; f < cl->nfields; f++) {
		const struct claim_field *cf = &cl->fields[f];

		if (!cf->has_values || strcmp(b->name[f], d->field))
			continue;
		if (d->word_a || d->word_b) {
			if (claims_match_word(&cf->from, d->word_a) &&
			    claims_match_word(&cf->to, d->word_b))
				return true;
		} else if (d->va && d->vb) {
			if (claims_match_nval(&cf->from, d->va) &&
			    claims_match_nval(&cf->to, d->vb))
				return true;
		} else if (cf->from.kind == CV_ANY && cf->to.kind == CV_ANY) {
			return true;
		}
	}
	return false;
}

/* The claims covering d count it; the first of them, or -1. */
static int64_t rl_judge(struct dctx *c, const struct rl_diff *d)
{
	struct claims_bound *cb = c->claims;
	int64_t first = -1;

	for (size_t i = 0; i < cb->n; i++) {
		struct bclaim *b = &cb->b[i];
		const struct claim *cl = b->cl;

		if (!rl_named(c, b, d) || cl->pages != CR_ANY || !where_ok(cl, &d->w) ||
		    !(d->pool ? pool_ranges_ok(c, cl, d->pool) :
				pgdiff_ranges_ok(c, cl, d->side, d->pgmap, d->range)))
			continue;
		b->pgmap_diffs++;
		diff_count_named(&b->cnt, d->field, 1);
		if (first < 0)
			first = (int64_t)i;
	}
	return first;
}

bool diff_claims_pgdiff(struct dctx *c, const char *member, int side, int64_t pgmap,
			int64_t range, const struct mmc_nval *va, const struct mmc_nval *vb,
			const char *word_a, const char *word_b, const char *sentence)
{
	const struct mmc_snapshot *s = side ? c->b : c->a;
	char field[64];
	/* a range's attributes are judged on the range, whatever its kind */
	const struct rl_diff d = {
		.field = field, .va = va, .vb = vb, .word_a = word_a, .word_b = word_b,
		.side = side, .pgmap = pgmap, .range = range,
		.w = range >= 0 ? where_on_diff_range(c, &c->res->ranges[range], -1) :
		     where_on_pgmap(pgmap >= 0 ? pgmap_of(s, (uint32_t)pgmap) : NULL),
	};
	int64_t first;

	if (!strcmp(member, "range"))
		snprintf(field, sizeof(field), "range");
	else
		snprintf(field, sizeof(field), "pgmap.%s", member);
	first = rl_judge(c, &d);
	if (first < 0)
		return false;
	if (!add_pgdiff(c->claims->out, sentence, (size_t)first))
		c->oom = true;
	return true;
}

bool diff_claims_pooldiff(struct dctx *c, const struct pool_diff *pd, const char *sentence,
			  bool show)
{
	bool words = pd->word_a || pd->word_b;
	/* a pool's or a block's difference: no pgmap key holds for it */
	const struct rl_diff d = {
		.field = pd->field, .va = words ? NULL : &pd->va, .vb = words ? NULL : &pd->vb,
		.word_a = pd->word_a, .word_b = pd->word_b, .pool = pd,
		.w = { .kind = pd->kind, .order = pd->order, .ri = -1 },
	};
	int64_t first = c->claims ? rl_judge(c, &d) : -1;

	if (first < 0)
		return false;
	if (!show)
		c->claims->b[first].pool_more++;
	else if (!add_pgdiff(c->claims->out, sentence, (size_t)first))
		c->oom = true;
	return true;
}

void diff_claims_pool_more(struct dctx *c, const char *what)
{
	struct claims_bound *cb = c->claims;
	char line[160];

	for (size_t i = 0; cb && i < cb->n; i++) {
		if (!cb->b[i].pool_more)
			continue;
		snprintf(line, sizeof(line), "and %zu more %s", cb->b[i].pool_more, what);
		if (!add_pgdiff(cb->out, line, i))
			c->oom = true;
		cb->b[i].pool_more = 0;
	}
}
