/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which vmemmap pages of a range map the same physical frame, from the
 * frames' addresses: for vmemmap page i, the first page of the range that
 * maps its frame and how many pages map it.  Boot-independent (it names
 * pages, not addresses), so diff compares it between images and lint
 * checks it against where the kernel may share frames.
 */
#ifndef MMC_VSHARE_TABLE_H
#define MMC_VSHARE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "mmc_error.h"
#include "snapshot.h"

struct mmc_vshare_table {
	size_t n;		/* vmemmap pages of the range */
	uint64_t *first;	/* first page mapping page i's frame (i if none before;
				 * i too for an unmapped or unreadable frame) */
	uint64_t *count;	/* pages mapping page i's frame (0: no frame) */
};

struct mmc_error *mmc_vshare_table_build(const struct mmc_snapshot *snap, size_t range,
				   struct mmc_vshare_table *out);
void mmc_vshare_table_free(struct mmc_vshare_table *vs);

#endif
