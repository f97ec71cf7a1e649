/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Walker: every pfn of every ZONE_DEVICE range, head and tail, read in large
 * windows through the engine's own vmemmap translation, normalised and
 * appended to a snapshot.  Pages the dump lacks become UNREADABLE records,
 * never zeros; the physical frame behind every vmemmap page is recorded so
 * shared tail vmemmap pages are visible and compared.
 */
#ifndef MMC_WALK_H
#define MMC_WALK_H

#include <stdint.h>

#include "discover.h"
#include "kernel.h"
#include "snapshot.h"

struct mmc_walk_stats {
	uint64_t pages, unreadable, unmapped, not_init;
	uint64_t vmemmap_pages, frames_read, bytes_read, reads;
};

struct mmc_walk_opts {
	const char *created_by;		/* "memmapcheck 0.1 cli" */
	/* called every few thousand pages; may be NULL */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

/* Discover the ranges (if d is NULL) and walk them all into a new snapshot. */
struct mmc_error *mmc_walk(struct mmc_kernel *k, const struct mmc_discovery *d,
			   const struct mmc_walk_opts *opts,
			   struct mmc_snapshot **out, struct mmc_walk_stats *stats);

#endif
