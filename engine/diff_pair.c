// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, objects: OBJ numbers are first-appearance numbers within each
 * image, so they shift when one image could not read pages the other could.
 * Two numbers are equal when they are paired one-to-one: the first time an
 * a-number meets a b-number pairs them, a later meeting with another number
 * is a real difference.  pgmap numbers are the order discovery found them
 * in: a pgmap is the same one in both images when it owns the same ranges,
 * whatever its number (one image may lack a pgmap the other has).
 */
#include <stdlib.h>

#include "diff_int.h"
#include "normalise.h"

static bool obj_map_grow(struct dctx *c, int side, int64_t **map, size_t *cap, int64_t v)
{
	size_t ncap = *cap ? *cap : 64, i;
	int64_t *m;

	if (v < 0 || (uint64_t)v >= c->obj_limit[side]) {
		/* numbers are dense: one past every object slot of every page
		 * cannot occur in an image the walk wrote */
		if (!c->bad_obj_seen) {
			c->bad_obj_seen = true;
			c->bad_obj_side = side;
			c->bad_obj = v;
		}
		return false;
	}
	if ((size_t)v < *cap)
		return true;
	while (ncap <= (size_t)v)
		ncap *= 2;
	m = realloc(*map, ncap * sizeof(*m));
	if (!m) {
		c->oom = true;
		return false;
	}
	for (i = *cap; i < ncap; i++)
		m[i] = -1;
	*map = m;
	*cap = ncap;
	return true;
}

bool diff_pair_pgmaps(struct dctx *c, const struct mmc_snapshot *a,
		      const struct mmc_snapshot *b)
{
	size_t na = mmc_snapshot_npgmaps(a);

	c->obj_limit[0] = mmc_snapshot_npages(a) * MMC_MAX_SLOTS + 1;
	c->obj_limit[1] = mmc_snapshot_npages(b) * MMC_MAX_SLOTS + 1;
	c->npg_a = na;
	c->pg_a2b = malloc((na ? na : 1) * sizeof(*c->pg_a2b));
	if (!c->pg_a2b)
		return false;
	for (size_t i = 0; i < na; i++)
		c->pg_a2b[i] = -1;
	for (size_t i = 0; i < mmc_snapshot_nranges(a); i++) {
		const struct mmc_srange *ra = mmc_snapshot_range(a, i);

		for (size_t j = 0; j < mmc_snapshot_nranges(b); j++) {
			const struct mmc_srange *rb = mmc_snapshot_range(b, j);

			if (rb->start_pfn == ra->start_pfn && rb->end_pfn == ra->end_pfn &&
			    ra->pgmap_index < na && c->pg_a2b[ra->pgmap_index] < 0)
				c->pg_a2b[ra->pgmap_index] = rb->pgmap_index;
		}
	}
	return true;
}

static bool pgmap_equal(const struct dctx *c, const struct mmc_nval *x,
			const struct mmc_nval *y)
{
	if (x->off != y->off)
		return false;
	if (x->v >= 0 && (uint64_t)x->v < c->npg_a && c->pg_a2b[x->v] >= 0)
		return c->pg_a2b[x->v] == y->v;
	return x->v == y->v;
}

bool diff_nval_equal(struct dctx *c, const struct mmc_nval *x, const struct mmc_nval *y)
{
	if (x->cls == MMC_V_PGMAP && y->cls == MMC_V_PGMAP)
		return pgmap_equal(c, x, y);
	if (x->cls != MMC_V_OBJ || y->cls != MMC_V_OBJ)
		return mmc_nval_equal(x, y);
	if (x->region != y->region || x->off != y->off)
		return false;
	if (!obj_map_grow(c, 0, &c->a2b, &c->a2b_cap, x->v) ||
	    !obj_map_grow(c, 1, &c->b2a, &c->b2a_cap, y->v))
		return false;
	if (c->a2b[x->v] < 0 && c->b2a[y->v] < 0) {
		c->a2b[x->v] = y->v;
		c->b2a[y->v] = x->v;
		return true;
	}
	return c->a2b[x->v] == y->v && c->b2a[y->v] == x->v;
}

void diff_pair_free(struct dctx *c)
{
	free(c->a2b);
	free(c->b2a);
	free(c->pg_a2b);
	c->a2b = c->b2a = NULL;
	c->pg_a2b = NULL;
	c->a2b_cap = c->b2a_cap = c->npg_a = 0;
}
