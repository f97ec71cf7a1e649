// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint, the pages of one range, pattern by pattern (snapshot.h).  The
 * checks (lint_page.c) take one pfn and its record, so every page is
 * checked unless a pattern's repetitions are provably alike: then
 * repetitions 0, 1, ... are checked page by page until one (r >= 1) breaks
 * no rule (or only adds counts: struct rep_mark); repetitions r+1 ..
 * reps-2 are counted as it was and only the last one is checked again.
 * A long run of pages the checks see alike (run_alike()) is taken the
 * same way, page by page.
 *
 * "Provably alike": repetition k's records are repetition r's moved by
 * (k-r) periods, and nothing a check looks at changes with that move:
 *   - where memmap_init_zone_device() puts each pfn (lint_expect()) only
 *     depends on the pfn modulo the compound order inside [first_head,
 *     compound_end): the pattern lies inside, its period a multiple of it;
 *   - no value v moves between repetitions, and the only raw word that
 *     moves is a tail's compound_head (a PAGE value: the checks read its v,
 *     and its raw only against the fill patterns, which is solved exactly
 *     for the skipped repetitions);
 *   - the device-dax data range, when known, holds the whole pattern (the
 *     dax-range check reads a head's folio, up to nr-1 pfns past the head:
 *     for the repetitions skipped, reps-2 at the latest, that is still
 *     inside the pattern, as the period is a multiple of nr; the last
 *     repetition, whose last folio may reach past it, is checked page by
 *     page);
 *   - a check of one page reads at most its head's page[1] and page[2],
 *     at most one period ahead: inside the pattern up to repetition reps-1,
 *     which is checked page by page (a wrong compound_head's target is
 *     read anywhere: a repetition that read one stands for no other);
 *   - a driver folio's tail (order-0 pgmaps of 6.19+) reads its head:
 *     a repetition stands for the next ones only when the heads it read
 *     lie inside the pattern, at most one period ahead (they move with
 *     it);
 *   - what carries over from page to page (the current head, the range's
 *     node) moves with the repetition; groups of violations cannot, so
 *     repetition r had none, or the list of groups was full (later groups
 *     are counted, not kept);
 *   - a HugeTLB head's checks read what the pool says of its folio (list,
 *     node, vmemmap state): the pattern lies in one span of alike folios
 *     (lint_hugetlb_uniform()), and none of its pages is an HVO alias,
 *     which are left out wherever they are (lint_alias_run()).
 * mmc_lint_opts.per_page checks every page (tests compare both).
 */
#include <string.h>

#include "lint_int.h"

/* Repetitions (pages of a run) below this leave none to skip: the first
 * two and the last one are always checked. */
#define LINT_MIN_REPEATS 4
/* Past this many distinct raw words a slot is checked page by page
 * rather than solved against the fill patterns. */
#define LINT_FILL_SOLVE_MAX 4096
/* The stride of a tail's compound_head delta along one compound page:
 * the head stays, the page moves on by one. */
#define LINT_SAME_HEAD_STRIDE (-1)

/* The fill patterns mmc_fill_pattern_name() knows: words of one repeated
 * byte (rules.c).  A fill pattern of another form would need its own
 * entry here. */
static size_t fill_words(uint64_t *w)
{
	size_t n = 0;

	for (uint64_t b = 0; b < 256; b++)
		if (mmc_fill_pattern_name(b * 0x0101010101010101ULL))
			w[n++] = b * 0x0101010101010101ULL;
	return n;
}

/* Is x + k * d == w (mod 2^64) for some k in [kmin, kmax]? */
static bool hits(uint64_t x, uint64_t d, uint64_t w, uint64_t kmin, uint64_t kmax)
{
	unsigned int t = (unsigned int)__builtin_ctzll(d);
	uint64_t diff = w - x, dd = d >> t, y, inv = dd, k0, mod_mask;
	unsigned __int128 k, step;

	if (t && (diff & ((1ULL << t) - 1)))
		return false;
	for (int i = 0; i < 6; i++)
		inv *= 2 - dd * inv;	/* dd odd: its inverse mod 2^64 */
	y = diff >> t;
	mod_mask = t ? (1ULL << (64 - t)) - 1 : UINT64_MAX;
	k0 = (y * inv) & mod_mask;
	if (k0 >= kmin)
		return k0 <= kmax;
	step = (unsigned __int128)mod_mask + 1;
	k = k0 + ((kmin - k0 + step - 1) / step) * step;
	return k <= kmax;
}

/* No raw value of slot (first raw x0, stride dx over n records, moving d a
 * repetition) equals a fill pattern in repetitions kmin..kmax. */
static bool fill_free(const struct lint_ctx *c, uint64_t x0, uint64_t dx,
		      uint64_t n, uint64_t d, uint64_t kmin, uint64_t kmax)
{
	if (dx && n > LINT_FILL_SOLVE_MAX)
		return false;	/* not worth solving: check page by page */
	for (uint64_t i = 0; i < (dx ? n : 1); i++)
		for (size_t f = 0; f < c->nfills; f++)
			if (hits(x0 + i * dx, d, c->fills[f], kmin, kmax))
				return false;
	return true;
}

static bool alike(const struct lint_ctx *c, size_t pi, const struct mmc_snapshot_pattern *p)
{
	uint64_t end = p->start + p->reps * p->period;
	unsigned int ch_slot;
	bool have_ch = mmc_page_member_slot(c->layout, c->sps, MMC_PAGE_COMPOUND_HEAD,
					    &ch_slot);

	if (p->reps < LINT_MIN_REPEATS || p->start < c->dev_start)
		return false;
	if (c->nr > 1 && (p->start < c->first_head || end > c->compound_end ||
			  p->period % c->nr))
		return false;
	if (c->dax_known && (p->start < c->dax_start || end > c->dax_end))
		return false;
	if (c->kind == MMC_RANGE_HUGETLB && !lint_hugetlb_uniform(c, p->start, end))
		return false;
	for (uint32_t b = 0; b < p->nbody; b++) {
		struct mmc_nrec first, stride, rep;
		uint64_t count;

		mmc_snapshot_range_pattern_run(c->snap, c->range, pi, b, &count, &first,
					       &stride, &rep);
		for (unsigned int k = 0; k < first.nslots && k < MMC_MAX_SLOTS; k++) {
			if (rep.slot[k].v)
				return false;
			if (!rep.slot[k].raw)
				continue;
			if (!have_ch || k != ch_slot || first.slot[k].cls != MMC_V_PAGE)
				return false;
			if (!fill_free(c, first.slot[k].raw, stride.slot[k].raw,
				       count, rep.slot[k].raw, 2, p->reps - 2))
				return false;
		}
	}
	return true;
}

/*
 * What one repetition added.  It stands for the next ones when it broke no
 * rule, or when the list of violation groups is full already (then only
 * the counts move, by the same amounts, as the checks see the same things)
 * and no check looked up another pfn's page (analyse_target()).
 */
struct rep_mark {
	uint64_t total, read, checked, targets;
	uint64_t rule[MMC_RULE_COUNT];
};

static void mark(struct lint_ctx *c, struct rep_mark *m)
{
	c->read_other = false;
	m->total = c->res->violations_total;
	m->read = c->res->pages_read;
	m->checked = c->res->pages_checked;
	m->targets = c->target_reads;
	memcpy(m->rule, c->rule_pages, sizeof(m->rule));
}

/* Other pages the repetition read must move with it: lie in [lo, hi),
 * where the next repetitions' reads are the same pages moved along. */
static bool stands_for_more(const struct lint_ctx *c, const struct rep_mark *m,
			    uint64_t lo, uint64_t hi)
{
	if (c->read_other && (c->read_lo < lo || c->read_hi >= hi))
		return false;
	return c->res->violations_total == m->total ||
	       (c->res->nviolations >= c->max_groups && c->target_reads == m->targets);
}

/* Count `times` more repetitions like the one since m. */
static void repeat(struct lint_ctx *c, const struct rep_mark *m, uint64_t times)
{
	struct mmc_lint_result *res = c->res;

	res->pages_read += times * (res->pages_read - m->read);
	res->pages_checked += times * (res->pages_checked - m->checked);
	res->violations_total += times * (res->violations_total - m->total);
	for (unsigned int r = 0; r < MMC_RULE_COUNT; r++)
		c->rule_pages[r] += times * (c->rule_pages[r] - m->rule[r]);
}

/* HVO aliases visited: counted, not read (lint_huge.alias). */
static void skip_aliases(struct lint_ctx *c, uint64_t n)
{
	c->res->pages_checked += n;
	c->res->hvo_alias += n;
}

/* Pages i0 .. i0+n-1 of a run (first f, stride s, from pfn start), but
 * for HVO aliases. */
static void check_pages(struct lint_ctx *c, const struct mmc_nrec *f, const struct mmc_nrec *s,
			uint64_t start, uint64_t i0, uint64_t n)
{
	struct mmc_nrec rec;

	for (uint64_t i = i0; i < i0 + n;) {
		bool alias;
		uint64_t k = lint_alias_run(c, start + i, i0 + n - i, &alias);

		if (alias) {
			skip_aliases(c, k);
			i += k;
			continue;
		}
		for (uint64_t e = i + k; i < e; i++) {
			mmc_nrec_run_at(f, s, i, &rec);
			lint_check_page(c, start + i, &rec);
		}
	}
}

/*
 * A slot of a run whose raw word moves with the pfn while its value does
 * not: a pointer at the page itself or at a page a fixed distance away
 * (an altmap pfn's empty lru list, a device-private page's
 * zone_device_data naming the page before).  The checks read its class,
 * its offset and its v, which stay, and its raw only against the fill
 * patterns, which no page of the run may hit.
 */
static bool moves_with_pfn(const struct lint_ctx *c, const struct mmc_nval *f,
			   const struct mmc_nval *s, uint64_t count)
{
	if (s->v || !s->raw || (f->cls != MMC_V_SELF && f->cls != MMC_V_PAGE))
		return false;
	return fill_free(c, f->raw, 0, 1, s->raw, 0, count - 1);
}

/*
 * A run whose pages the checks see alike, page after page (the pattern
 * argument above with period 1): records alike but for pointers that move
 * with the pfn (moves_with_pfn()) where every pfn is an order-0 device
 * page, whose checks only read the pfn for the device-dax range (when
 * known, the run must lie inside it), or a memmap (altmap) pfn, which
 * memmap_init_range() writes alike and whose checks (check_altmap()) read
 * nothing else that moves with the pfn; or tails of one compound page
 * from its page[3] on, whose only moving value is compound_head falling
 * back one pfn a page (the same head for all), whose checks see the same
 * page kind (MMC_TAIL_OTHER) and head; or such tails whose compound_head
 * does not move at all: the 7.x mask, which names the same head from
 * every pfn of the compound page (HVO's shared tail frame repeats it
 * over a whole HugeTLB folio), or a word without PageTail, which breaks
 * the same rule on every page (a repetition with violations stands for
 * no other).
 */
static bool run_alike(const struct lint_ctx *c, uint64_t start, uint64_t count,
		      const struct mmc_nrec *f, const struct mmc_nrec *s)
{
	uint64_t end = start + count, head;
	unsigned int ch_slot;
	bool have_ch = mmc_page_member_slot(c->layout, c->sps, MMC_PAGE_COMPOUND_HEAD,
					    &ch_slot);
	bool tails = false, altmap = start < c->dev_start, fixed;

	if (count < LINT_MIN_REPEATS)
		return false;
	if (altmap && (start < c->sr->altmap_start || end > c->sr->altmap_end ||
		       end > c->dev_start))
		return false;
	if (!altmap && c->dax_known && (start < c->dax_start || end > c->dax_end))
		return false;
	for (unsigned int k = 0; k < s->nslots && k < MMC_MAX_SLOTS; k++) {
		if (!s->slot[k].v && !s->slot[k].raw)
			continue;
		if (moves_with_pfn(c, &f->slot[k], &s->slot[k], count))
			continue;
		if (altmap || !have_ch || k != ch_slot || f->slot[k].cls != MMC_V_PAGE ||
		    s->slot[k].v != LINT_SAME_HEAD_STRIDE || s->slot[k].raw)
			return false;
		tails = true;
	}
	if (altmap)
		return true;
	/* a compound_head that does not move: the 7.x mask (one head for the
	 * whole compound page), or no tail at all (the same violation) */
	fixed = have_ch && ch_slot < f->nslots &&
		(f->slot[ch_slot].cls == MMC_V_RAW || f->slot[ch_slot].cls == MMC_V_NULL);
	if (!tails && !fixed)
		return c->nr == 1 || end <= c->first_head || start >= c->compound_end;
	if (!tails && (c->nr == 1 || end <= c->first_head || start >= c->compound_end))
		return true;
	if (c->nr <= MMC_TAIL_OTHER || start < c->first_head || end > c->compound_end)
		return false;
	head = start - (start - c->first_head) % c->nr;
	return start - head >= MMC_TAIL_OTHER && end <= head + c->nr;
}

/* Runs first .. first+n-1 of the range: page by page, or a run of
 * identical order-0 pages by its first two pages and its last one. */
static void check_runs(struct lint_ctx *c, uint64_t first, uint64_t n)
{
	bool per_page = c->opts && c->opts->per_page;

	for (uint64_t j = first; j < first + n; j++) {
		uint64_t start, count;
		struct mmc_nrec f, s;
		struct rep_mark m;

		bool alias;
		uint64_t k;

		mmc_snapshot_range_run(c->snap, c->range, (size_t)j, &start, &count, &f, &s);
		k = lint_alias_run(c, start, count, &alias);
		if (alias && k == count) {
			skip_aliases(c, count);
			continue;
		}
		if (per_page || k < count || !run_alike(c, start, count, &f, &s)) {
			check_pages(c, &f, &s, start, 0, count);
			continue;
		}
		check_pages(c, &f, &s, start, 0, 1);
		for (uint64_t i = 1; i < count; i++) {
			mark(c, &m);
			check_pages(c, &f, &s, start, i, 1);
			if (i + 2 < count && stands_for_more(c, &m, start, start + i + 1)) {
				repeat(c, &m, count - 2 - i);
				check_pages(c, &f, &s, start, count - 1, 1);
				break;
			}
		}
	}
}

/*
 * Repetitions r0 .. r1-1 of pattern p, run by run; whole repetitions of
 * HVO aliases (a 6.x optimised folio's tail vmemmap pages, 64 pfns each)
 * are counted at once.
 */
static void check_reps(struct lint_ctx *c, const struct mmc_snapshot_pattern *p,
		       uint64_t r0, uint64_t r1)
{
	for (uint64_t r = r0; r < r1;) {
		bool alias;
		uint64_t k = lint_alias_run(c, p->start + r * p->period, (r1 - r) * p->period,
					    &alias);
		uint64_t n = alias ? k / p->period : (k + p->period - 1) / p->period;

		if (alias && n) {
			skip_aliases(c, n * p->period);
			r += n;
			continue;
		}
		if (!n)
			n = 1;	/* a repetition part alias: run by run */
		check_runs(c, p->first_run + r * p->nbody, n * p->nbody);
		r += n;
	}
}

void lint_range_pages(struct lint_ctx *c)
{
	size_t np = mmc_snapshot_range_npatterns(c->snap, c->range);
	bool per_page = c->opts && c->opts->per_page;

	c->nfills = fill_words(c->fills);
	for (size_t i = 0; i < np; i++) {
		struct mmc_snapshot_pattern p;
		struct rep_mark m;
		uint64_t skip;

		mmc_snapshot_range_pattern(c->snap, c->range, i, &p);
		if (per_page || !alike(c, i, &p)) {
			check_reps(c, &p, 0, p.reps);
			continue;
		}
		/* repetition r (from 1) checked page by page, until one stands
		 * for the ones up to reps-2 */
		check_runs(c, p.first_run, p.nbody);
		for (uint64_t r = 1; r < p.reps; r++) {
			mark(c, &m);
			check_runs(c, p.first_run + r * p.nbody, p.nbody);
			if (r + 2 >= p.reps ||
			    !stands_for_more(c, &m, p.start, p.start + (r + 2) * p.period))
				continue;
			skip = p.reps - 2 - r;
			repeat(c, &m, skip);
			if (c->head.valid && c->head.pfn >= p.start + r * p.period)
				c->head.pfn += skip * p.period;
			check_runs(c, p.first_run + (p.reps - 1) * p.nbody, p.nbody);
			break;
		}
	}
}
