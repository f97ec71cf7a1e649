/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discovery: every ZONE_DEVICE pgmap of a kernel image and its ranges, from
 * the kernel's own pgmap_array xarray (mm/memremap.c), with which pfns each
 * init path writes: the altmap reserve is never written, the altmap "free"
 * pfns (that hold the memmap itself) are initialised by memmap_init_range(),
 * the rest by memmap_init_zone_device().
 */
#ifndef MMC_DISCOVER_H
#define MMC_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "model.h"

#define MMC_MAX_PGMAP_RANGES 64
#define MMC_DAX_WHY_MAX 512
/* HUGE_MAX_HSTATE is 2 on x86_64, at most 16 anywhere (snapshot.h) */
#define MMC_DISCOVER_MAX_HSTATES 16

struct mmc_dpgmap {
	struct mmc_spgmap info;		/* owner/ops left RAW until normalised */
	uint64_t owner_raw, ops_raw;
	uint64_t range_start[MMC_MAX_PGMAP_RANGES];	/* bytes, inclusive end below */
	uint64_t range_end[MMC_MAX_PGMAP_RANGES];
};

struct mmc_discovery {
	/*
	 * NULL when discovery was complete.  Otherwise the first kernel
	 * structure that could not be read or made no sense (the error names
	 * it and its address): the pgmaps and ranges found are kept, the ones
	 * behind it are missing.
	 */
	struct mmc_error *problem;
	size_t nproblems;		/* problems met (the first is kept) */
	size_t npgmaps;
	struct mmc_dpgmap *pgmaps;	/* sorted by first range start */
	size_t nranges;
	struct mmc_srange *ranges;	/* sorted by start_pfn */
	/*
	 * The device-dax data ranges of the pgmaps found (discover_dax.c);
	 * unlike a problem above, a dax_why never makes discovery incomplete:
	 * the struct pages are all there, one lint rule cannot be checked.
	 */
	enum mmc_dax_state dax_state;
	char dax_why[MMC_DAX_WHY_MAX];	/* "" exactly when MMC_DAX_READ */
	size_t ndax;
	struct mmc_dax_span *dax;	/* sorted by start_pfn */
	/*
	 * The HugeTLB pools (discover_hugetlb.c), as the snapshot keeps them
	 * (mmc_snapshot_set_hugetlb()); like dax_why, huge_why never makes
	 * discovery incomplete by itself: it says which folios are missing.
	 */
	enum mmc_read_state huge_state;
	char huge_why[MMC_DAX_WHY_MAX];	/* "" exactly when MMC_READ_DONE */
	size_t nhstates;
	struct mmc_shstate hstates[MMC_DISCOVER_MAX_HSTATES];
	size_t nfolio_spans;
	struct mmc_sfolios *folio_spans;	/* sorted by start_pfn */
	/* The memory blocks (discover_hotplug.c), the same way. */
	enum mmc_read_state plug_state;
	char plug_why[MMC_DAX_WHY_MAX];	/* "" exactly when MMC_READ_DONE */
	size_t nblocks;
	struct mmc_smemblock *blocks;	/* sorted by start_pfn */
};

/*
 * Fails only when nothing can be trusted (allocation, layout, internal
 * errors); unreadable or nonsensical kernel data is d->problem.
 */
struct mmc_error *mmc_discover(struct mmc_kernel *k, struct mmc_discovery **out);
/* Is err about the image's data (kept as a discovery problem) rather than
 * about the tool or its input (fatal)? */
bool mmc_discovery_problem_error(const struct mmc_error *err);
void mmc_discovery_destroy(struct mmc_discovery *d);

/*
 * The device-dax ranges of d's pgmaps, into d->dax: from dax_superblock
 * through every inode on its s_inodes list to the dax_device around it and,
 * when its private data is a dev_dax pointing back to it, dev_dax->ranges.
 * Fails only on allocation; what could not be read is d->dax_why.
 */
struct mmc_error *mmc_discover_dax(struct mmc_kernel *k, struct mmc_discovery *d);

/*
 * The HugeTLB pools: every hstate in use, the folios on its free and
 * active lists as d->folio_spans, and one MMC_RANGE_HUGETLB range per run
 * of consecutive folios of one hstate appended to d->ranges (unsorted).
 * Fails only on allocation or a layout that cannot be; what could not be
 * read is d->huge_why (MMC_READ_PARTIAL), a layout without the pools
 * MMC_READ_NOT.
 */
struct mmc_error *mmc_discover_hugetlb(struct mmc_kernel *k, struct mmc_discovery *d);

/*
 * The memory blocks (memory_blocks xarray) into d->blocks, and one
 * MMC_RANGE_HOTPLUG range per online block's self-hosted memmap pfns
 * (memmap_on_memory) appended to d->ranges (unsorted).  Fails only on
 * allocation; what could not be read is d->plug_why.
 */
struct mmc_error *mmc_discover_hotplug(struct mmc_kernel *k, struct mmc_discovery *d);

#endif
