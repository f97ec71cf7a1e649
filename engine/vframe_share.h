/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which vmemmap pages of a range map the same physical frame, from the
 * frames' addresses: for vmemmap page i, the first page of the range that
 * maps its frame and how many pages map it.  Boot-independent (it names
 * pages, not addresses), so diff compares it between images and lint
 * checks it against where the kernel may share frames.
 */
#ifndef MMC_VFRAME_SHARE_H
#define MMC_VFRAME_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "mmc_error.h"
#include "snapshot.h"

struct mmc_vshare {
	size_t n;		/* vmemmap pages of the range */
	uint64_t *first;	/* first page mapping page i's frame (i if none before;
				 * i too for an unmapped or unreadable frame) */
	uint64_t *count;	/* pages mapping page i's frame (0: no frame) */
};

struct mmc_error *mmc_vshare_build(const struct mmc_snapshot *snap, size_t range,
				   struct mmc_vshare *out);
void mmc_vshare_free(struct mmc_vshare *vs);

#endif
