/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diff of two snapshots (base "a", patched "b").  Ranges are matched by
 * (start_pfn, end_pfn); pgmaps by the ranges they own.  HugeTLB ranges
 * pair folio by folio: the pfns both images' ranges of one hstate cover
 * are compared, a folio at a pfn in one image only is placement when its
 * hstate's pools are alike (doc/DESIGN.md, "Diff: what compares"), else a
 * difference.  Pages compared where both are MMC_PS_READ; any page
 * unreadable/unmapped on either side makes the verdict at best INCOMPLETE
 * (never "identical"); NOT_INIT pages (altmap reserve) are counted and
 * reported, not compared.
 *
 * "identical" needs at least one compared page and a complete discovery on
 * both sides.  Two images without any ZONE_DEVICE range are INCOMPLETE
 * (no_ranges: nothing was compared, exit 4).  A range found on one side
 * only is DIFFERENT when the other side's discovery was complete, else
 * INCOMPLETE: it may exist there unseen.
 */
#ifndef MMC_DIFF_H
#define MMC_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "claims.h"
#include "mmc_error.h"
#include "model.h"
#include "rules.h"
#include "snapshot.h"

enum mmc_verdict {
	MMC_IDENTICAL = 0,
	MMC_DIFFERENT = 1,
	MMC_INCOMPLETE = 4,	/* no difference seen, but not everything was read */
	/* with claims (mmc_diff_opts.claims) */
	MMC_AS_CLAIMED = 5,	/* every difference covered by a claim (or none) */
	MMC_BEYOND_CLAIMS = 6,	/* a difference no claim covers */
};
/* "identical", "different", "incomplete", "as claimed", "beyond the claims" */
const char *mmc_verdict_name(enum mmc_verdict v);
/* DIFFERENT or BEYOND_CLAIMS: a difference nothing excuses. */
static inline bool mmc_verdict_differs(enum mmc_verdict v)
{
	return v == MMC_DIFFERENT || v == MMC_BEYOND_CLAIMS;
}

#define MMC_DIFF_MAX_FIELDS 64

struct mmc_diff_field_count {
	char name[48];		/* mmc_slot_label_of() name, or "state", "role",
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
	/* With claims, differing, fields and vframes_differing above hold
	 * what no claim covers; these, what the claims cover: pages whose
	 * every difference a claim covers, vmemmap pages likewise, and a
	 * range only in one image that a `field range` claim covers. */
	uint64_t claimed, vframes_claimed;
	bool range_claimed;
	/* HugeTLB: pages of folios at pfns only in a (only in b) whose
	 * hstate's pools are alike in both images: placement, not compared
	 * and no difference (mmc_diff_result.placed lists the folios) */
	uint64_t placed_a, placed_b;
};

/*
 * A HugeTLB folio at a pfn in one image only, whose hstate has the same
 * pool counts in both images (per node and list): the buddy allocator put
 * a run-time folio elsewhere.  Reported apart, no difference.
 */
struct mmc_diff_placed {
	uint64_t pfn;		/* head */
	uint32_t hstate, order, node;
	uint8_t list;		/* enum mmc_folio_list */
	uint8_t side;		/* 0: only in a, 1: only in b */
};

/* A differing page, for the first N detailed pages. */
struct mmc_diff_page {
	uint64_t pfn;
	size_t range;
	enum mmc_tail_index tail_index;	/* the base page's kind */
	uint8_t kind;			/* its range's (enum mmc_range_kind), for names */
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
	int32_t claim;		/* claimed groups: the first claim covering them; else -1 */
};

/*
 * What the claims covered (mmc_diff_opts.claims), per claim in file order.
 * A claim covers a page when it covers at least one of its differing
 * fields; a page is claimed when every differing field is covered, by one
 * claim or several.
 */
/*
 * A `together` claim's field that did not differ as claimed on pages
 * beyond the claims where the claim's other fields did (so the claim
 * covered none of them there): "vmemmap_writable unchanged, claimed
 * 1 -> 0".
 */
struct mmc_diff_unmet {
	char field[MMC_CLAIMS_NAME_MAX];	/* as the diff names it */
	char claimed[48];	/* "1 -> 0"; "" for a field claimed without values */
	bool unchanged;		/* it did not differ (else it differed otherwise) */
	uint64_t pages;		/* struct pages */
	uint64_t vframes;	/* vmemmap pages */
};
#define MMC_DIFF_MAX_UNMET 8

struct mmc_diff_claim {
	char name[MMC_CLAIMS_NAME_MAX];
	char *reason;
	unsigned int line;
	uint64_t pages;		/* struct pages it covered a field of */
	uint64_t vframes;	/* vmemmap pages (vmemmap_frame, vmemmap_writable) */
	uint64_t range_pages;	/* pages of ranges only in one image (field range) */
	size_t pgmap_diffs;	/* pgmap differences (field pgmap.*, range) */
	size_t nranges;		/* ranges it covered something in */
	size_t nfields;		/* the fields it covered, with their pages */
	struct mmc_diff_field_count fields[MMC_DIFF_MAX_FIELDS];
	bool together;		/* its fields are claimed together */
	size_t nunmet;		/* together: what was missing where it fell short */
	struct mmc_diff_unmet unmet[MMC_DIFF_MAX_UNMET];
};

struct mmc_diff_claims {
	char file[256];		/* the claims file */
	bool strict;		/* mmc_diff_opts.strict */
	size_t nclaims;
	struct mmc_diff_claim *claim;
	/* [claim * nranges + range]: pages and vmemmap pages a claim covered
	 * in a range of the result (nranges as the result's) */
	size_t nranges;
	uint64_t *range_pages, *range_vframes;
	size_t nunseen;		/* claims that covered nothing */
	/* what binding said once: "x.claims: line 5: compound_head is
	 * compound_info in 7.2.8 (a kernel rename), claimed as that" */
	size_t nnotes;
	char **notes;
	/* the pgmap differences a claim covered, and which claim */
	size_t npgmap_diffs;
	char **pgmap_diffs;
	size_t *pgmap_diff_claim;
	/* pfn groups of claimed differences (their covered fields), for the
	 * difference map; as many as mmc_diff_opts.max_groups */
	size_t ngroups;
	uint64_t groups_total;
	struct mmc_diff_group *groups;
};

struct mmc_diff_opts {
	size_t max_pages;	/* detailed pages kept (0: default 20) */
	size_t max_groups;	/* groups kept (0: default 200) */
	/* Compare every repetition of two alike patterns, which comparing
	 * one proves identical (diff_chunk.c): the same result, slower; for
	 * tests. */
	bool per_page;
	/*
	 * Claims the differences are matched with (claims.h), or NULL.  They
	 * are bound to the two images first: a field neither image has is an
	 * error naming the claims file and line.  With claims the result says
	 * AS_CLAIMED / BEYOND_CLAIMS / INCOMPLETE, and its differing pages,
	 * fields, groups, first pages and pgmap differences are those no
	 * claim covers.  The result keeps copies of what it reports of the
	 * claims (names, reasons).  per_page also matches the claims page by
	 * page.
	 */
	const struct mmc_claims *claims;
	/* a claim that covered nothing fails the check (the front ends' exit) */
	bool strict;
};

struct mmc_diff_result {
	enum mmc_verdict verdict;
	uint64_t pages_compared, pages_differing, pages_unreadable, pages_not_init;
	uint64_t pages_claimed;		/* with claims: pages every difference of which is claimed */
	struct mmc_diff_claims *claims;	/* NULL without claims */
	size_t nranges;
	struct mmc_diff_range *ranges;
	size_t npages;
	struct mmc_diff_page *pages;
	size_t ngroups;
	uint64_t groups_total;	/* including those beyond max_groups */
	struct mmc_diff_group *groups;
	size_t npgmap_diffs;
	char **pgmap_diffs;	/* "pgmap#1 vmemmap_shift: 9 vs 0" */
	/* HugeTLB placement: pages of folios at pfns only in one image, in
	 * both images together, and the folios (all of them) */
	uint64_t pages_placed;
	size_t nplaced;
	struct mmc_diff_placed *placed;
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
