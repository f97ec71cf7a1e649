/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the walker (walk.c, walk_plan.c, walk_pipe.c).  A walk is a
 * sequence of items in pfn order: windows of up to WIN_VPAGES vmemmap
 * pages and holes in the page tables.  The planner makes them in order
 * (translation and frame sharing need the page tables and what came
 * before); readers fill a window's frames, in any order and on any
 * thread; the consumer takes the items in order and builds the snapshot,
 * so the snapshot does not depend on how many threads read.
 */
#ifndef MMC_WALK_INT_H
#define MMC_WALK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "discover.h"
#include "kernel.h"
#include "model.h"

#define WIN_VPAGES	64	/* vmemmap pages per window: 256 KiB, 4096 struct pages */

enum vstate { VS_OK, VS_UNREADABLE, VS_UNMAPPED };

enum witem_kind {
	WI_WINDOW,	/* pfns [pfn, pend) over vmemmap pages [wvpn, wvpn + nv) */
	WI_HOLE,	/* pfns [pfn, pend) in a hole of the page tables */
	WI_EMPTY,	/* a range without pfns */
};

struct witem {
	/* planner */
	enum witem_kind kind;
	size_t range;			/* index into the discovery's ranges */
	bool range_first, range_last;
	uint64_t pfn, pend;
	uint64_t wvpn;
	unsigned int nv;
	unsigned int emit_from;		/* first vmemmap page whose vframe is new */
	uint8_t vstate[WIN_VPAGES + 1];
	uint8_t vreason[WIN_VPAGES + 1];	/* enum mmc_unread_reason, VS_UNREADABLE */
	uint64_t vpaddr[WIN_VPAGES + 1];
	uint8_t vprot[WIN_VPAGES + 1];	/* VS_OK: enum mmc_vprot of the mapping */
	uint8_t vleaf[WIN_VPAGES + 1];	/* VS_OK: enum mmc_vleaf */
	int64_t vshare[WIN_VPAGES + 1];	/* > 0: pages back to the first mapping the frame */
	struct mmc_nrec hole_rec;	/* WI_HOLE: every pfn's record ... */
	struct mmc_vframe hole_vf;	/* ... and every new vmemmap page's frame */
	uint64_t hole_nv;		/* new vmemmap pages of the hole */
	struct mmc_error *err;		/* planning failed here: the walk's error */
	/* reader: the frames not shared with an earlier page */
	uint8_t *buf;			/* (WIN_VPAGES + 1) pages */
	struct mmc_error *read_err;
	uint64_t reads, bytes_read, frames_read;
};

struct share_slot {
	uint64_t paddr;
	uint64_t gen;
	uint64_t first;		/* vmemmap page index (relative to range) */
};

struct wplan {
	struct mmc_kernel *k;
	const struct mmc_discovery *d;
	uint64_t ps, sps;
	size_t range;		/* being planned */
	bool in_range;		/* its first item was made */
	bool done;		/* all planned, or an item with err made */
	uint64_t pfn, vfirst, next_vframe, share_period;
	struct share_slot *share;
	uint64_t share_gen;
	/* the last huge mapping translated: the page tables do not change */
	uint64_t huge_va, huge_size, huge_pa;
	uint8_t huge_prot, huge_leaf;
};

/* Which init path wrote pfn's struct page, by the range's roles (discovery). */
static inline enum mmc_page_role mmc_wpfn_role(const struct mmc_srange *r, uint64_t pfn)
{
	if (pfn >= r->reserve_start && pfn < r->reserve_end)
		return MMC_ROLE_RESERVE;
	if (pfn >= r->altmap_start && pfn < r->altmap_end)
		return MMC_ROLE_ALTMAP;
	return MMC_ROLE_DEVICE;
}

/* The first pfn after `pfn` where the role changes (or the range's end). */
static inline uint64_t mmc_wrole_end(const struct mmc_srange *r, uint64_t pfn)
{
	uint64_t b[4] = { r->reserve_start, r->reserve_end, r->altmap_start, r->altmap_end };
	uint64_t end = r->end_pfn;
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (b[i] > pfn && b[i] < end)
			end = b[i];
	return end;
}

/* walk_plan.c */
struct mmc_error *mmc_wplan_init(struct wplan *p, struct mmc_kernel *k,
				 const struct mmc_discovery *d);
void mmc_wplan_fini(struct wplan *p);
/* The next item (buf untouched); call only while !p->done. */
void mmc_wplan_next(struct wplan *p, struct witem *it);
/* Read the item's unshared frames through one reader of the memory
 * source; pages the dump lacks become VS_UNREADABLE, other failures
 * it->read_err. */
void mmc_wread(struct mmc_mem *mem, void *reader, uint32_t ps, struct witem *it);
/* Read n frames of it from vmemmap page j0 (physically contiguous). */
struct mmc_error *mmc_wread_frames(struct mmc_mem *mem, void *reader,
				   uint32_t ps, struct witem *it,
				   unsigned int j0, unsigned int n);
uint8_t mmc_wnodata_reason(const struct mmc_error *err);

/* walk_pipe.c: items in order, read by `threads` threads (the caller's one
 * of them); threads 1 reads on the caller's thread, in order. */
struct wpipe;
struct mmc_error *mmc_wpipe_create(struct mmc_mem *mem, uint32_t ps,
				   unsigned int threads, struct wplan *plan,
				   struct wpipe **out);
/* The next item, read; NULL when all were taken.  Valid until the next call. */
struct witem *mmc_wpipe_next(struct wpipe *p);
void mmc_wpipe_destroy(struct wpipe *p);
/* How many threads a walk uses by default: online CPUs, at most 8 (the
 * reads stop scaling well before). */
unsigned int mmc_walk_default_threads(void);

#endif
