// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot files, reading version 5's HUGE (HugeTLB pools) and HPLG
 * (hot-plugged memory blocks) sections (doc/SNAPSHOT-FORMAT.md).  Counts
 * are checked against the bytes left before anything is allocated; the
 * tables are then checked as mmc_snapshot_set_hugetlb()/_hotplug() check
 * what discovery gives them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_file_format.h"
#include "snapshot_file_cursor.h"

static void parse_hugetlb(struct rd *r, struct mmc_snapshot *snap)
{
	char why[MMC_SNAPSHOT_TEXT_MAX];
	struct mmc_shstate *h = NULL;
	struct mmc_sfolios *f = NULL;
	uint64_t at = r->pos, nat;
	uint32_t nh, nf = 0, i;
	uint8_t state;

	state = get_u8(r, "HugeTLB state");
	rd_get_str(r, why, sizeof(why), "HugeTLB reason");
	nat = r->pos;
	nh = get_u32(r, "hstate count");
	if (r->err)
		return;
	if (nh > MMC_SNAPSHOT_MAX_HSTATES || nh > (r->end - r->pos) / HSTATE_SIZE) {
		rd_bad(r, nat, "%u hstates, at most %d, or more than the section holds", nh,
		       MMC_SNAPSHOT_MAX_HSTATES);
		return;
	}
	h = calloc(nh ? nh : 1, sizeof(*h));
	if (!h) {
		rd_wrap(r, nat, mmc_error_nomem());
		return;
	}
	for (i = 0; i < nh && !r->err; i++) {
		h[i].order = get_u32(r, "hstate");
		h[i].flags = get_u32(r, "hstate");
		h[i].nr = get_u64(r, "hstate");
		h[i].free = get_u64(r, "hstate");
		h[i].resv = get_u64(r, "hstate");
		h[i].surplus = get_u64(r, "hstate");
		h[i].kaddr = get_u64(r, "hstate");
		rd_get_str(r, h[i].name, sizeof(h[i].name), "hstate name");
	}
	nat = r->pos;
	if (!r->err)
		nf = get_u32(r, "folio span count");
	if (!r->err && (nf > MMC_SNAPSHOT_MAX_FOLIO_SPANS ||
			nf > (r->end - r->pos) / FOLIOS_SIZE))
		rd_bad(r, nat, "%u folio spans, at most %u, or more than the section holds",
		       nf, MMC_SNAPSHOT_MAX_FOLIO_SPANS);
	if (!r->err && !(f = calloc(nf ? nf : 1, sizeof(*f))))
		rd_wrap(r, nat, mmc_error_nomem());
	for (i = 0; i < nf && !r->err; i++) {
		f[i].hstate = get_u32(r, "folio span");
		f[i].node = get_u32(r, "folio span");
		f[i].start_pfn = get_u64(r, "folio span");
		f[i].nfolios = get_u64(r, "folio span");
		f[i].list = get_u8(r, "folio span");
		f[i].vmemmap = get_u8(r, "folio span");
	}
	if (!r->err)
		rd_wrap(r, at, mmc_snapshot_set_hugetlb(snap, state, why, h, nh, f, nf));
	free(h);
	free(f);
}

static void parse_hotplug(struct rd *r, struct mmc_snapshot *snap)
{
	char why[MMC_SNAPSHOT_TEXT_MAX];
	struct mmc_smemblock *b;
	uint64_t at = r->pos, nat;
	uint8_t state;
	uint32_t n, i;

	state = get_u8(r, "hot-plug state");
	rd_get_str(r, why, sizeof(why), "hot-plug reason");
	nat = r->pos;
	n = get_u32(r, "memory block count");
	if (r->err)
		return;
	if (n > MMC_SNAPSHOT_MAX_MEMBLOCKS || n > (r->end - r->pos) / MEMBLOCK_SIZE) {
		rd_bad(r, nat, "%u memory blocks, at most %d, or more than the section holds",
		       n, MMC_SNAPSHOT_MAX_MEMBLOCKS);
		return;
	}
	b = calloc(n ? n : 1, sizeof(*b));
	if (!b) {
		rd_wrap(r, nat, mmc_error_nomem());
		return;
	}
	for (i = 0; i < n && !r->err; i++) {
		b[i].id = get_u64(r, "memory block");
		b[i].start_pfn = get_u64(r, "memory block");
		b[i].end_pfn = get_u64(r, "memory block");
		b[i].nid = get_u32(r, "memory block");
		b[i].state = get_u32(r, "memory block");
		b[i].flags = get_u32(r, "memory block");
		b[i].altmap_pfns = get_u64(r, "memory block");
		b[i].kaddr = get_u64(r, "memory block");
	}
	if (!r->err)
		rd_wrap(r, at, mmc_snapshot_set_hotplug(snap, state, why, b, n));
	free(b);
}

void rd_parse_pools(struct rd *r, uint64_t file_end, struct mmc_snapshot *snap)
{
	char why[MMC_SNAPSHOT_TEXT_MAX];

	if (r->err)
		return;
	if (r->version < 5) {
		snprintf(why, sizeof(why),
			 "snapshot file version %u does not carry HugeTLB pools", r->version);
		rd_wrap(r, r->pos, mmc_snapshot_set_hugetlb(snap, MMC_READ_NOT, why,
							    NULL, 0, NULL, 0));
		snprintf(why, sizeof(why),
			 "snapshot file version %u does not carry memory blocks", r->version);
		rd_wrap(r, r->pos, mmc_snapshot_set_hotplug(snap, MMC_READ_NOT, why, NULL, 0));
		return;
	}
	rd_section(r, file_end, SNAP_TAG_HUGETLB);
	parse_hugetlb(r, snap);
	rd_section_done(r, SNAP_TAG_HUGETLB);
	if (r->err)
		return;
	rd_section(r, file_end, SNAP_TAG_HOTPLUG);
	parse_hotplug(r, snap);
	rd_section_done(r, SNAP_TAG_HOTPLUG);
}
