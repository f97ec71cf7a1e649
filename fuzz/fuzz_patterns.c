// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target, differential: lint and diff take a snapshot's repeated
 * patterns once where that is provably the same as going page by page
 * (engine/lint_pattern.c, diff_chunk.c), and vmemmap frame sharing by
 * runs where intervals prove it (engine/vshare.c).  On any
 * snapshot the reader accepts (size and checksum fixed up first), both
 * ways must give the same result: a difference aborts.  Snapshots of up
 * to 1 Mi pages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "diff.h"
#include "lint.h"
#include "snapshot.h"
#include "vshare.h"

#include "snapshot_fixup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_lint(const struct mmc_snapshot *s)
{
	struct mmc_lint_opts fast = { .max_groups = 16 }, slow = { .max_groups = 16, .per_page = true };
	struct mmc_lint_result *a = NULL, *b = NULL;
	struct mmc_error *ea = mmc_lint(s, &fast, &a), *eb = mmc_lint(s, &slow, &b);

	if (!ea != !eb)
		abort();
	if (a && b &&
	    (a->pages_checked != b->pages_checked || a->pages_read != b->pages_read ||
	     a->violations_total != b->violations_total || a->nviolations != b->nviolations ||
	     a->nrules != b->nrules || a->verdict != b->verdict || a->gaps != b->gaps ||
	     memcmp(a->rules, b->rules, a->nrules * sizeof(a->rules[0]))))
		abort();
	/* field by field: a realloc'd list's padding is not part of the result */
	for (size_t i = 0; a && b && i < a->nviolations; i++) {
		const struct mmc_lint_violation *p = &a->violations[i], *q = &b->violations[i];

		if (p->rule_id != q->rule_id || p->range != q->range || p->pfn != q->pfn ||
		    p->npages != q->npages || strcmp(p->rule, q->rule) ||
		    strcmp(p->message, q->message))
			abort();
	}
	mmc_error_destroy(ea);
	mmc_error_destroy(eb);
	mmc_lint_result_destroy(a);
	mmc_lint_result_destroy(b);
}

/* Two snapshots, diffed with and without pattern shortcuts. */
static void same_diff(const struct mmc_snapshot *x, const struct mmc_snapshot *y)
{
	struct mmc_diff_opts fast = { .max_pages = 8, .max_groups = 16 };
	struct mmc_diff_opts slow = { .max_pages = 8, .max_groups = 16, .per_page = true };
	struct mmc_diff_result *a = NULL, *b = NULL;
	struct mmc_error *ea = mmc_diff(x, y, &fast, &a), *eb = mmc_diff(x, y, &slow, &b);

	if (!ea != !eb)
		abort();
	if (a && b) {
		if (a->verdict != b->verdict || a->pages_compared != b->pages_compared ||
		    a->pages_differing != b->pages_differing ||
		    a->pages_unreadable != b->pages_unreadable ||
		    a->pages_not_init != b->pages_not_init || a->nranges != b->nranges ||
		    a->npages != b->npages || a->ngroups != b->ngroups ||
		    a->groups_total != b->groups_total)
			abort();
		for (size_t i = 0; i < a->nranges; i++) {
			const struct mmc_diff_range *p = &a->ranges[i], *q = &b->ranges[i];

			if (p->compared != q->compared || p->differing != q->differing ||
			    p->vframes_differing != q->vframes_differing ||
			    p->vframes_unreadable != q->vframes_unreadable ||
			    p->nfields != q->nfields || p->verdict != q->verdict ||
			    memcmp(p->fields, q->fields, p->nfields * sizeof(p->fields[0])))
				abort();
		}
		for (size_t i = 0; i < a->npages; i++)
			if (a->pages[i].pfn != b->pages[i].pfn ||
			    a->pages[i].slot_mask != b->pages[i].slot_mask)
				abort();
		for (size_t i = 0; i < a->ngroups; i++)
			if (a->groups[i].first_pfn != b->groups[i].first_pfn ||
			    a->groups[i].npages != b->groups[i].npages ||
			    strcmp(a->groups[i].fields, b->groups[i].fields))
				abort();
	}
	mmc_error_destroy(ea);
	mmc_error_destroy(eb);
	mmc_diff_result_destroy(a);
	mmc_diff_result_destroy(b);
}

static void same_share(const struct mmc_snapshot *s)
{
	for (size_t r = 0; r < mmc_snapshot_nranges(s); r++) {
		struct mmc_vshare runs, frames;

		if (mmc_snapshot_range_nvframes(s, r) > (1u << 16))
			continue;
		if (mmc_vshare_build(s, r, false, &runs))
			continue;
		if (mmc_vshare_build(s, r, true, &frames)) {
			mmc_vshare_free(&runs);
			continue;
		}
		for (uint64_t i = 0; i < frames.n; i++) {
			uint64_t f, c;

			mmc_vshare_at(&runs, i, &f, &c);
			if (f != frames.vs.first[i] || c != frames.vs.count[i])
				abort();
		}
		mmc_vshare_free(&runs);
		mmc_vshare_free(&frames);
	}
}

static struct mmc_snapshot *load(const uint8_t *data, size_t size)
{
	struct mmc_snapshot *s = NULL;
	uint8_t *b;

	if (size < 40)
		return NULL;
	b = malloc(size);
	if (!b)
		return NULL;
	memcpy(b, data, size);
	snapshot_fix_up(b, size);
	mmc_error_destroy(mmc_snapshot_load_buffer(b, size, "fuzz.snap", &s));
	free(b);
	if (s && mmc_snapshot_npages(s) > (1u << 20)) {
		mmc_snapshot_destroy(s);
		s = NULL;
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmc_snapshot *s, *t = NULL;
	size_t half;

	if (size > (1u << 20))
		return 0;
	s = load(data, size);
	if (!s) {
		/* two snapshots back to back: the first's declared size splits */
		if (size < 80)
			return 0;
		half = (size_t)le_get64(data + 16);
		if (half < 40 || half > size - 40)
			return 0;
		s = load(data, half);
		t = load(data + half, size - half);
		if (s && t)
			same_diff(s, t);
		mmc_snapshot_destroy(s);
		mmc_snapshot_destroy(t);
		return 0;
	}
	same_lint(s);
	same_diff(s, s);
	same_share(s);
	mmc_snapshot_destroy(s);
	return 0;
}
