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

#include <stdbool.h>
#include <stdint.h>

#include "discover.h"
#include "kernel.h"
#include "snapshot.h"

struct mmc_walk_stats {
	uint64_t pages, unreadable, unmapped, not_init;
	uint64_t vmemmap_pages, frames_read, bytes_read, reads;
	/* vmemmap pages whose records were the page before's moved (they
	 * map its frame: HVO), not taken struct page by struct page */
	uint64_t frame_repeats;
};

struct mmc_walk_opts {
	const char *created_by;		/* "memmapcheck 0.1 cli" */
	/* called every few thousand pages; may be NULL */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/*
	 * Asked between windows of a few thousand pages; may be NULL.  When
	 * it returns true the walk stops, frees everything it made and
	 * returns MMC_ERR_INTERRUPTED (crash's ^C, see crash-ext).
	 */
	bool (*cancel)(void *arg);
	void *cancel_arg;
	/*
	 * Threads reading the dump: 0 is MEMMAPCHECK_THREADS from the
	 * environment, else the online CPUs (at most 8); 1 reads on the
	 * caller's thread.  Only memory sources with second readers
	 * (mmc_mem_has_readers(): libkdumpfile, kcore) use more than one;
	 * the snapshot is the same for every count.
	 */
	unsigned int threads;
	/*
	 * Called once, right after the walk creates the snapshot and before
	 * anything is added to it; may be NULL.  For a caller that streams
	 * the snapshot to its file as it is built
	 * (mmc_snapshot_stream_open()).  An error stops the walk: the
	 * snapshot is freed and mmc_walk() returns the error.
	 */
	struct mmc_error *(*created)(void *arg, struct mmc_snapshot *snap);
	void *created_arg;
	/* every vmemmap page struct page by struct page, none taken as the
	 * page before's records moved (the same snapshot, more slowly: the
	 * path tests hold frame repeats against) */
	bool no_frame_repeats;
};

/* Discover the ranges (if d is NULL) and walk them all into a new snapshot. */
struct mmc_error *mmc_walk(struct mmc_kernel *k, const struct mmc_discovery *d,
			   const struct mmc_walk_opts *opts,
			   struct mmc_snapshot **out, struct mmc_walk_stats *stats);

/*
 * Two kernel+dump pairs (compare's base and new image) opened
 * (mmc_kernel_open()) and walked at once, each on threads of its own; each
 * job gets what mmc_kernel_open() + mmc_walk() would give it alone, the
 * kernel destroyed after.  opts.threads 0 gives each walk half the online
 * CPUs (at least one), or MEMMAPCHECK_THREADS each.  The jobs' progress and cancel callbacks are called
 * under one lock, so they need not be thread-safe (created is not: it
 * gets its own job's snapshot, on that job's thread).
 */
struct mmc_walk_job {
	const char *kernel;		/* vmlinux or saved layout */
	const char *dump;
	bool live;			/* dump is /proc/kcore (kcore backend) */
	struct mmc_walk_opts opts;
	struct mmc_snapshot *snap;	/* out, or NULL and err */
	struct mmc_walk_stats stats;	/* out */
	struct mmc_error *err;		/* out */
	double seconds;			/* out: open and walk, wall clock */
};
void mmc_walk_pair(struct mmc_walk_job job[2]);

#endif
