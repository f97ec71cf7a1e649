/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which vmemmap pages of a range map the same physical frame (what
 * vshare_table.h computes), without a table per frame when the frames of
 * different vmemmap-frame runs are provably distinct, but for one case:
 * a run whose frame address does not move either has its frame to itself
 * (its pages all map it) or shares it with the last page of the run right
 * before it (mmc_vshare_joined()).  Then page i's answer comes from its run
 * and the one before.  The proof is by intervals: every run's frame
 * addresses (a repeating pattern's over all its repetitions) lie in an
 * interval, a joined run's inside its predecessor's, and the intervals
 * are otherwise disjoint.  When they are not, the per-frame table of
 * vshare_table.c decides.  Memory O(stored runs), not O(frames).
 */
#ifndef MMC_VSHARE_H
#define MMC_VSHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot.h"
#include "vshare_table.h"

struct mmc_vshare {
	const struct mmc_snapshot *snap;
	size_t range;
	uint64_t n;		/* vmemmap pages of the range */
	bool by_runs;		/* frames of different runs are distinct */
	struct mmc_vshare_table vs;	/* !by_runs: the per-frame answer */
};

/* per_frame: the per-frame table whatever the runs (tests compare). */
struct mmc_error *mmc_vshare_build(const struct mmc_snapshot *snap, size_t range,
				   bool per_frame, struct mmc_vshare *out);
void mmc_vshare_free(struct mmc_vshare *fs);
/* Page i's answer: the first page mapping its frame (i if none before
 * it, or no frame) and how many pages map the frame (0: no frame). */
void mmc_vshare_at(const struct mmc_vshare *fs, uint64_t i, uint64_t *first, uint64_t *count);

/* A vmemmap-frame run, as the sharing rules see it. */
struct mmc_vshare_run {
	uint64_t start, count;
	struct mmc_vframe first, stride;
};

static inline bool mmc_vshare_has_frame(const struct mmc_vshare_run *r)
{
	return r->first.kind == MMC_VF_RAM || r->first.kind == MMC_VF_DEVICE;
}

/* Its pages all map one frame. */
static inline bool mmc_vshare_run_shared(const struct mmc_vshare_run *r)
{
	return mmc_vshare_has_frame(r) && r->stride.paddr == 0 && r->count >= 2;
}

/*
 * cur's pages map the frame of prev's last page (prev right before cur,
 * not itself sharing one frame): how the walker splits a compound page's
 * tails, whose first vmemmap page has a frame of its own the next ones
 * map again.  prev may be NULL.
 */
static inline bool mmc_vshare_joined(const struct mmc_vshare_run *prev,
				     const struct mmc_vshare_run *cur)
{
	return prev && mmc_vshare_has_frame(cur) && cur->stride.paddr == 0 &&
	       mmc_vshare_has_frame(prev) && !mmc_vshare_run_shared(prev) &&
	       prev->start + prev->count == cur->start &&
	       prev->first.paddr + prev->stride.paddr * (prev->count - 1) == cur->first.paddr;
}

/* The first page mapping the frame of cur's pages and how many map it
 * (by runs; false: cur's pages map frames of their own). */
static inline bool mmc_vshare_group(const struct mmc_vshare_run *prev,
				    const struct mmc_vshare_run *cur, uint64_t *first,
				    uint64_t *count)
{
	if (mmc_vshare_joined(prev, cur)) {
		*first = cur->start - 1;
		*count = cur->count + 1;
		return true;
	}
	if (mmc_vshare_run_shared(cur)) {
		*first = cur->start;
		*count = cur->count;
		return true;
	}
	return false;
}

/* Virtual vframe run j of the range. */
void mmc_vshare_load(const struct mmc_snapshot *snap, size_t range, size_t j,
		     struct mmc_vshare_run *r);

#endif
