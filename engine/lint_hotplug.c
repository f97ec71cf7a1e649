// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint, a hot-plugged memory block's self-hosted memmap (memmap_on_memory):
 * the pfns at the start of an online block that hold the block's own
 * struct pages (discover_hotplug.c makes one range of them per block).
 * Read in 6.12.117 and 7.2.8, mm/memory_hotplug.c and mm/mm_init.c.
 *
 * memory_block_online() -> mhp_init_memmap_on_memory():
 * move_pfn_range_to_zone() -> memmap_init_range(MEMINIT_HOTPLUG), which
 * gives each pfn __init_single_page() (zeroed, the block's zone and nid,
 * _refcount 1, _mapcount -1, lru an empty list) and __SetPageOffline();
 * then __ClearPageOffline() and SetPageVmemmapSelfHosted() on every one.
 * These pages are never allocated (they hold the memmap), so that is what
 * they keep.  lint_page.c's memmap (altmap) checks apply as to a pgmap's
 * altmap pfns; the page flags are this module's: PG_vmemmap_self_hosted
 * (an alias of PG_owner_priv_1, by name from the layout's enum pageflags)
 * and nothing else.  The rest of the block is buddy memory, which
 * discovery does not walk.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lint_int.h"

struct mmc_error *lint_hotplug_begin(struct lint_ctx *c)
{
	const struct mmc_smemblock *b = NULL;
	size_t n = 0;

	mmc_snapshot_hotplug(c->snap, &b, &n, NULL);
	if (c->sr->owner >= n)
		return mmc_error_create(MMC_ERR_CORRUPT, NULL, "range %zu: memory block %u of %zu",
					c->range, c->sr->owner, n);
	c->block = &b[c->sr->owner];
	c->type_name = "memmap_on_memory";
	c->order_what = "memory block";
	c->order = 0;
	c->nr = 1;
	/* every pfn is one memmap_init_range() writes: an altmap pfn */
	c->dev_start = c->first_head = c->compound_end = c->sr->end_pfn;
	c->aligned_layout = false;
	if (!c->have_pg_self_hosted)
		lint_unchecked(c, MMC_RULE_SELF_HOSTED,
			       "the layout's enum pageflags has no PG_vmemmap_self_hosted (nor the memmap pages' other flags)");
	return NULL;
}

void lint_hotplug_page(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v)
{
	uint64_t self, extra;
	char buf[256];

	/* which bit is the alias only the layout says: without it, no flag
	 * can be told from the one the kernel sets */
	if (!c->have_pg_self_hosted)
		return;
	self = 1ULL << c->pg_self_hosted;
	extra = v->pgflags & ~self;
	if (!(v->pgflags & self))
		lint_violate(c, MMC_RULE_SELF_HOSTED, pfn,
			     "PG_vmemmap_self_hosted clear on a memmap page of memory block %" PRIu64 " (mhp_init_memmap_on_memory(): SetPageVmemmapSelfHosted())",
			     c->block->id);
	if (extra) {
		mmc_format_pgflags(c->layout, extra, buf, sizeof(buf));
		lint_violate(c, MMC_RULE_ALTMAP_INIT, pfn,
			     "flags %s on a memmap page of memory block %" PRIu64 " (memmap_init_range(MEMINIT_HOTPLUG) sets none to stay)",
			     buf, c->block->id);
	}
}
