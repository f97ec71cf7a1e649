/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lint: one snapshot against the kernel's own rules for ZONE_DEVICE struct
 * pages (rules.h has the table, each rule with the kernel function it comes
 * from): where memmap_init_zone_device() starts compound pages and what it,
 * __init_zone_device_page(), prep_compound_head()/_tail() and
 * memmap_init_range() write into every word; what free_tail_page_prepare()
 * and page_bad_reason() check; how vmemmap frames may be shared.  HugeTLB
 * ranges against prep_compound_page(), what the pool's lists say
 * (enqueue_hugetlb_folio()) and how HVO maps their vmemmap
 * (mm/hugetlb_vmemmap.c); hot-plugged memmap_on_memory blocks against
 * mhp_init_memmap_on_memory().
 *
 * "clean" means at least one page was checked and every page of every range
 * read and found to follow every rule; no ranges, an incomplete discovery
 * or unreadable pages make the result incomplete.
 */
#ifndef MMC_LINT_H
#define MMC_LINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmc_error.h"
#include "rules.h"
#include "snapshot.h"

struct mmc_lint_violation {
	char rule[40];		/* the rule's name (rules.h) */
	enum mmc_rule rule_id;
	size_t range;
	uint64_t pfn;		/* first pfn of the group */
	uint64_t npages;	/* consecutive pfns with the same violation */
	char message[200];
};

struct mmc_lint_rule_count {
	char rule[40];
	enum mmc_rule rule_id;
	uint64_t pages;
};

enum mmc_lint_verdict {
	MMC_LINT_CLEAN = 0,
	MMC_LINT_VIOLATIONS = 1,
	MMC_LINT_INCOMPLETE = 4,	/* no violation seen, but not everything was checked */
};

/* Why a result is incomplete (several can hold). */
enum mmc_lint_gap {
	MMC_LINT_GAP_UNREAD = 1 << 0,		/* some struct pages unreadable */
	MMC_LINT_GAP_NO_RANGES = 1 << 1,	/* the image has no ZONE_DEVICE range */
	MMC_LINT_GAP_DISCOVERY = 1 << 2,	/* discovery stopped early */
	MMC_LINT_GAP_NO_PAGES = 1 << 3,		/* ranges, but no page was read */
};

struct mmc_lint_result {
	uint64_t pages_checked;		/* pages of the ranges visited */
	uint64_t pages_read;		/* of them read and checked against the rules */
	uint64_t violations_total;	/* pages, summed over rules */
	size_t nviolations;		/* groups kept (max_groups) */
	struct mmc_lint_violation *violations;
	size_t nrules;
	struct mmc_lint_rule_count rules[MMC_RULE_COUNT];
	bool incomplete;		/* gaps != 0 */
	unsigned int gaps;		/* enum mmc_lint_gap */
	enum mmc_lint_verdict verdict;
	char discovery_problem[256];	/* MMC_LINT_GAP_DISCOVERY: why */
	/*
	 * Device-dax ranges (MEMORY_DEVICE_GENERIC) whose dax-range rule could
	 * not be checked, because the snapshot has no device-dax data range
	 * for them, and why.  Not a gap: every page was still checked against
	 * every other rule, and the report says which rule was left out.
	 */
	size_t dax_unchecked;
	char dax_why[256];
	/*
	 * Vmemmap pages with a frame whose protection the snapshot does not
	 * record (a file before version 5): vmemmap-ro and the read-only
	 * sharing of vmemmap-share were not checked on them.  Not a gap
	 * either; the report says so.
	 */
	uint64_t vprot_unchecked;
	/*
	 * Struct pages of optimised HugeTLB folios that read their folio's
	 * own first vmemmap page through HVO's remapping (6.x fake heads):
	 * visited, not read as pages of their own (checked there, once).
	 */
	uint64_t hvo_alias;
	/* Rules lint could not check on this kernel and why, "" if none:
	 * "hugetlb-type: ...; self-hosted: ..." (not a gap either). */
	char unchecked[256];
};

struct mmc_lint_opts {
	size_t max_groups;		/* default 200 */
	/* Check every page, also of repetitions of a pattern that checking
	 * one repetition proves alike (lint_pattern.c): the same result,
	 * slower; for tests. */
	bool per_page;
};

struct mmc_error *mmc_lint(const struct mmc_snapshot *snap,
			   const struct mmc_lint_opts *opts,
			   struct mmc_lint_result **out);
void mmc_lint_result_destroy(struct mmc_lint_result *res);

/* "clean", "violations", "incomplete" */
const char *mmc_lint_verdict_name(enum mmc_lint_verdict v);

#endif
