/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lint: rules every initialised ZONE_DEVICE memmap must satisfy, checked on
 * one snapshot: tails point to a head with PG_head in the same range; the
 * order/nr_pages of page[1] match pgmap->vmemmap_shift; refcount policy per
 * pgmap type and kernel version; pgmap of heads/order-0 pages is the range's
 * own; zone bits say ZONE_DEVICE; PG_reserved set; no poison patterns; shared
 * vmemmap frames only where the kernel shares them; no unreadable pages.
 */
#ifndef MMC_LINT_H
#define MMC_LINT_H

#include <stddef.h>
#include <stdint.h>

#include "mmc_error.h"
#include "snapshot.h"

struct mmc_lint_violation {
	char rule[40];		/* "tail-head", "order", "refcount", "pgmap",
				 * "zone", "reserved", "poison", "vmemmap-share",
				 * "unreadable", "head-cycle" */
	size_t range;
	uint64_t pfn;		/* first pfn of the group */
	uint64_t npages;	/* consecutive pfns with the same violation */
	char message[200];
};

struct mmc_lint_rule_count {
	char rule[40];
	uint64_t pages;
};

struct mmc_lint_result {
	uint64_t pages_checked;
	uint64_t violations_total;	/* pages */
	size_t nviolations;		/* groups kept (max_groups) */
	struct mmc_lint_violation *violations;
	size_t nrules;
	struct mmc_lint_rule_count rules[32];
	bool incomplete;		/* some pages unreadable */
};

struct mmc_lint_opts { size_t max_groups; /* default 200 */ };

struct mmc_error *mmc_lint(const struct mmc_snapshot *snap,
			   const struct mmc_lint_opts *opts,
			   struct mmc_lint_result **out);
void mmc_lint_result_destroy(struct mmc_lint_result *res);

#endif
