// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, pgmaps: what a pgmap and a range's roles say in both images
 * (type, flags, vmemmap_shift, owner, ops, altmap; reserve and memmap
 * pfns), as sentences: "pgmap#1 vmemmap_shift: 9 vs 0"; each one named by
 * its member for claims (pgmap.vmemmap_shift), with its two values.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "diff_int.h"
#include "page_decode.h"

void diff_pgdiff(struct dctx *c, const char *fmt, ...)
{
	struct mmc_diff_result *res = c->res;
	char **p;
	char *s;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		c->oom = true;
		return;
	}
	p = realloc(res->pgmap_diffs, (res->npgmap_diffs + 1) * sizeof(*p));
	if (!p) {
		free(s);
		c->oom = true;
		return;
	}
	res->pgmap_diffs = p;
	p[res->npgmap_diffs++] = s;
}

void diff_pgdiff_claimable(struct dctx *c, const char *member, int side, int64_t pgmap,
			   int64_t range, const struct mmc_nval *va, const struct mmc_nval *vb,
			   const char *word_a, const char *word_b, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		c->oom = true;
		return;
	}
	if (!c->claims ||
	    !diff_claims_pgdiff(c, member, side, pgmap, range, va, vb, word_a, word_b, s))
		diff_pgdiff(c, "%s", s);
	free(s);
}

static struct mmc_nval int_nval(uint64_t v)
{
	struct mmc_nval n = { .cls = MMC_V_RAW, .v = (int64_t)v, .raw = v };

	return n;
}

void diff_pgmap(struct dctx *c, uint32_t ia, const struct mmc_spgmap *pa,
		uint32_t ib, const struct mmc_spgmap *pb)
{
	char name[32], x[64], y[64];

	if (ia == ib)
		snprintf(name, sizeof(name), "pgmap#%u", ia);
	else
		snprintf(name, sizeof(name), "pgmap#%u/#%u", ia, ib);
	struct mmc_nval xa, xb;
	int ta = mmc_memory_type_index(pa->type_name), tb = mmc_memory_type_index(pb->type_name);

#define PGDIFF(member, a, b, wa, wb, ...) \
	diff_pgdiff_claimable(c, member, 0, ia, -1, a, b, wa, wb, __VA_ARGS__)
	if (ia == ib)
		snprintf(name, sizeof(name), "pgmap#%u", ia);
	else
		snprintf(name, sizeof(name), "pgmap#%u/#%u", ia, ib);
	if (pa->type != pb->type)
		PGDIFF("type", NULL, NULL, ta < 0 ? pa->type_name : mmc_memory_type_short((size_t)ta),
		       tb < 0 ? pb->type_name : mmc_memory_type_short((size_t)tb),
		       "%s type: %s(%lld) vs %s(%lld)", name, pa->type_name,
		       (long long)pa->type, pb->type_name, (long long)pb->type);
	if (pa->flags != pb->flags) {
		xa = int_nval(pa->flags);
		xb = int_nval(pb->flags);
		PGDIFF("flags", &xa, &xb, NULL, NULL, "%s flags: 0x%llx vs 0x%llx", name,
		       (unsigned long long)pa->flags, (unsigned long long)pb->flags);
	}
	if (pa->vmemmap_shift != pb->vmemmap_shift) {
		xa = int_nval(pa->vmemmap_shift);
		xb = int_nval(pb->vmemmap_shift);
		PGDIFF("vmemmap_shift", &xa, &xb, NULL, NULL, "%s vmemmap_shift: %u vs %u", name,
		       pa->vmemmap_shift, pb->vmemmap_shift);
	}
	if (pa->nr_range != pb->nr_range) {
		xa = int_nval(pa->nr_range);
		xb = int_nval(pb->nr_range);
		PGDIFF("nr_range", &xa, &xb, NULL, NULL, "%s nr_range: %u vs %u", name,
		       pa->nr_range, pb->nr_range);
	}
	if (!diff_nval_equal(c, &pa->owner, &pb->owner)) {
		mmc_format_nval(&pa->owner, x, sizeof(x));
		mmc_format_nval(&pb->owner, y, sizeof(y));
		PGDIFF("owner", &pa->owner, &pb->owner, NULL, NULL, "%s owner: %s vs %s", name, x, y);
	}
	if (!diff_nval_equal(c, &pa->ops, &pb->ops)) {
		mmc_format_nval(&pa->ops, x, sizeof(x));
		mmc_format_nval(&pb->ops, y, sizeof(y));
		PGDIFF("ops", &pa->ops, &pb->ops, NULL, NULL, "%s ops: %s vs %s", name, x, y);
	}
	if (pa->has_altmap != pb->has_altmap) {
		xa = int_nval(pa->has_altmap);
		xb = int_nval(pb->has_altmap);
		PGDIFF("altmap", &xa, &xb, NULL, NULL, "%s altmap: %s vs %s", name,
		       pa->has_altmap ? "yes" : "no", pb->has_altmap ? "yes" : "no");
	}
	if (!pa->has_altmap && !pb->has_altmap)
		return;
#define ALTMAP_FIELD(f) \
	if (pa->altmap_##f != pb->altmap_##f) { \
		xa = int_nval(pa->altmap_##f); \
		xb = int_nval(pb->altmap_##f); \
		PGDIFF("altmap." #f, &xa, &xb, NULL, NULL, "%s altmap." #f ": 0x%llx vs 0x%llx", \
		       name, (unsigned long long)pa->altmap_##f, \
		       (unsigned long long)pb->altmap_##f); \
	}
	ALTMAP_FIELD(base_pfn);
	ALTMAP_FIELD(end_pfn);
	ALTMAP_FIELD(reserve);
	ALTMAP_FIELD(free);
	ALTMAP_FIELD(align);
	ALTMAP_FIELD(alloc);
#undef ALTMAP_FIELD
#undef PGDIFF
}

void diff_srange(struct dctx *c, const struct mmc_srange *x, const struct mmc_srange *y)
{
	struct mmc_nval xa, xb;
	int64_t ri = (int64_t)c->ri;

	if (x->range_index != y->range_index) {
		xa = int_nval(x->range_index);
		xb = int_nval(y->range_index);
		diff_pgdiff_claimable(c, "range_index", 0, x->pgmap_index, ri, &xa, &xb, NULL, NULL,
				      "range [0x%llx, 0x%llx) range_index: %u vs %u",
				      (unsigned long long)x->start_pfn, (unsigned long long)x->end_pfn,
				      x->range_index, y->range_index);
	}
	if (x->reserve_start != y->reserve_start || x->reserve_end != y->reserve_end)
		diff_pgdiff_claimable(c, "reserve_pfns", 0, x->pgmap_index, ri, NULL, NULL, NULL, NULL,
				      "range [0x%llx, 0x%llx) altmap reserve: [0x%llx, 0x%llx) vs [0x%llx, 0x%llx)",
				      (unsigned long long)x->start_pfn, (unsigned long long)x->end_pfn,
				      (unsigned long long)x->reserve_start, (unsigned long long)x->reserve_end,
				      (unsigned long long)y->reserve_start, (unsigned long long)y->reserve_end);
	if (x->altmap_start != y->altmap_start || x->altmap_end != y->altmap_end)
		diff_pgdiff_claimable(c, "memmap_pfns", 0, x->pgmap_index, ri, NULL, NULL, NULL, NULL,
				      "range [0x%llx, 0x%llx) memmap pfns: [0x%llx, 0x%llx) vs [0x%llx, 0x%llx)",
				      (unsigned long long)x->start_pfn, (unsigned long long)x->end_pfn,
				      (unsigned long long)x->altmap_start, (unsigned long long)x->altmap_end,
				      (unsigned long long)y->altmap_start, (unsigned long long)y->altmap_end);
}
