/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diff of two snapshots (base "a", patched "b").  Ranges are matched by
 * (start_pfn, end_pfn); pgmaps by the ranges they own.  Pages compared where
 * both are MMC_PS_READ; any page unreadable/unmapped on either side makes the
 * verdict at best INCOMPLETE (never "identical"); NOT_INIT pages (altmap
 * reserve) are counted and reported, not compared.
 *
 * "identical" needs at least one compared page and a complete discovery on
 * both sides.  Two images without any ZONE_DEVICE range are INCOMPLETE
 * (no_ranges: nothing was compared, exit 4).  A range found on one side
 * only is DIFFERENT when the other side's discovery was complete, else
 * INCOMPLETE: it may exist there unseen.
 */
#ifndef MMC_DIFF_H
#define MMC_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "mmc_error.h"
#include "nrec.h"
#include "rules.h"
#include "snapshot.h"

enum mmc_verdict {
	MMC_IDENTICAL = 0,
	MMC_DIFFERENT = 1,
	MMC_INCOMPLETE = 4,	/* no difference seen, but not everything was read */
};
const char *mmc_verdict_name(enum mmc_verdict v);	/* "identical", ... */

#define MMC_DIFF_MAX_FIELDS 64

struct mmc_diff_field_count {
	char name[48];		/* mmc_slot_label() name, or "state", "role",
				 * "vmemmap_frame", "vmemmap_writable",
				 * "flags.zone", "flags.node",
				 * "flags.PG_xxx" for single flag bits */
	uint64_t pages;		/* pages where it differs */
};

struct mmc_diff_range {
	uint64_t start_pfn, end_pfn;
	int64_t a_index, b_index;	/* -1 when only in one image */
	uint64_t compared, differing;
	uint64_t unreadable_a, unreadable_b;	/* UNREADABLE or UNMAPPED */
	uint64_t not_init;			/* NOT_INIT on either side */
	uint64_t vframes_differing;
	enum mmc_verdict verdict;
	size_t nfields;		/* "(range only in a)"/"(range only in b)" for unmatched */
	struct mmc_diff_field_count fields[MMC_DIFF_MAX_FIELDS];
	/* vmemmap frames UNREADABLE on either side (verdict at best INCOMPLETE) */
	uint64_t vframes_unreadable;
	/* vmemmap pages mapped on both sides whose writable bit was not
	 * compared: one side does not record it (a snapshot file before
	 * version 5).  Never a difference; the report says so. */
	uint64_t vprot_not_compared;
	/* only on one side, and the other side's discovery stopped early: its
	 * pages count as unreadable there, the verdict is INCOMPLETE */
	bool unproven;
};

/* A differing page, for the first N detailed pages. */
struct mmc_diff_page {
	uint64_t pfn;
	size_t range;
	enum mmc_tail_index tail_index;	/* the base page's kind */
	struct mmc_nrec a, b;
	uint32_t slot_mask;		/* slots that differ */
	bool state_differs, role_differs;
};

/* Consecutive differing pfns with the same set of differing fields. */
struct mmc_diff_group {
	size_t range;
	uint64_t first_pfn, last_pfn;
	uint64_t npages;
	char fields[256];	/* "compound_head,_refcount" */
};

struct mmc_diff_opts {
	size_t max_pages;	/* detailed pages kept (0: default 20) */
	size_t max_groups;	/* groups kept (0: default 200) */
	/* Compare every repetition of two alike patterns, which comparing
	 * one proves identical (diff_chunk.c): the same result, slower; for
	 * tests. */
	bool per_page;
};

struct mmc_diff_result {
	enum mmc_verdict verdict;
	uint64_t pages_compared, pages_differing, pages_unreadable, pages_not_init;
	size_t nranges;
	struct mmc_diff_range *ranges;
	size_t npages;
	struct mmc_diff_page *pages;
	size_t ngroups;
	uint64_t groups_total;	/* including those beyond max_groups */
	struct mmc_diff_group *groups;
	size_t npgmap_diffs;
	char **pgmap_diffs;	/* "pgmap#1 vmemmap_shift: 9 vs 0" */
	bool layout_differs;	/* fingerprints differ (informational) */
	bool no_ranges;		/* neither image has a ZONE_DEVICE range */
	/* [0] base, [1] patched: discovery stopped early, and why */
	bool discovery_incomplete[2];
	char discovery_problem[2][256];
};

struct mmc_error *mmc_diff(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			   const struct mmc_diff_opts *opts,
			   struct mmc_diff_result **out);
void mmc_diff_result_destroy(struct mmc_diff_result *res);

#endif
