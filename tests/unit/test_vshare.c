// SPDX-License-Identifier: GPL-2.0-or-later
/* Frame sharing by runs (engine/vshare.c) against the per-frame
 * table of engine/vshare_table.c, a second implementation that hashes
 * every frame address: on vmemmap layouts like the kernel's (map=mem with
 * shared tail frames in 2 MiB blocks, map=dev), and on ones where frames of
 * different runs coincide (a double mapping, the same frames in every
 * repetition), where the run answer must stand down. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "vshare.h"
#include "tap.h"

#define NPAGES (512ULL * 256)	/* 256 compound pages of 2 MiB: 2048 frames */

enum layout_kind { MEM, MEM_DOUBLE, DEV, DEV_DUP, SAME_EVERY_REP };

static uint64_t paddr_of(enum layout_kind k, uint64_t i)
{
	uint64_t cp = i / 8, in = i % 8;

	switch (k) {
	case MEM:
	case MEM_DOUBLE:
	case SAME_EVERY_REP:
		if (k == MEM_DOUBLE && i == 1000)
			return paddr_of(MEM, 3);	/* frame of compound page 0's tails */
		if (k == SAME_EVERY_REP)
			cp = 0;
		/* 64 compound pages a 2 MiB block; blocks far apart, out of order */
		return 0x100000000ULL + ((cp / 64) * 7919 % 31) * 0x200000ULL +
		       (cp % 64) * 0x2000ULL + (in ? 0x1000 : 0);
	case DEV:
	case DEV_DUP:
		if (k == DEV_DUP && i == 2047)
			return 0x800000000ULL;
		return 0x800000000ULL + i * 0x1000ULL;
	}
	return 0;
}

static struct mmc_snapshot *build(enum layout_kind k)
{
	struct mmc_geom g = { .page_size = 4096, .struct_page_size = 64 };
	struct mmc_spgmap pg = { .type_name = "MEMORY_DEVICE_GENERIC" };
	struct mmc_srange r = { .start_pfn = 0x100000, .end_pfn = 0x100000 + NPAGES };
	struct mmc_nrec rec, zero;
	struct mmc_snapshot *s;
	uint64_t nv = NPAGES * 64 / 4096;

	memset(&rec, 0, sizeof(rec));
	rec.nslots = 8;
	zero = rec;
	if (mmc_snapshot_create(NULL, &g, "synthetic", "test", &s) ||
	    mmc_snapshot_add_pgmap(s, &pg) || mmc_snapshot_begin_range(s, &r) ||
	    mmc_snapshot_append_run(s, &rec, &zero, NPAGES))
		return NULL;
	for (uint64_t i = 0; i < nv; i++) {
		struct mmc_vframe vf = { .kind = k == DEV || k == DEV_DUP ? MMC_VF_DEVICE : MMC_VF_RAM };

		vf.paddr = paddr_of(k, i);
		if (mmc_snapshot_append_vframe(s, &vf))
			return NULL;
	}
	if (mmc_snapshot_end_range(s))
		return NULL;
	return s;
}

static void check(enum layout_kind k, const char *name, bool want_by_runs)
{
	struct mmc_snapshot *s = build(k);
	struct mmc_vshare fs;
	struct mmc_vshare_table vs;
	uint64_t bad = 0, shared = 0;

	if (!tap_ok(s != NULL, "%s: snapshot built", name))
		return;
	if (!tap_ok(!mmc_vshare_build(s, 0, false, &fs) && !mmc_vshare_table_build(s, 0, &vs),
		    "%s: sharing computed both ways", name))
		return;
	tap_ok(fs.by_runs == want_by_runs, "%s: %s", name,
	       want_by_runs ? "answered by runs" : "runs stand down for the per-frame table");
	for (uint64_t i = 0; i < vs.n; i++) {
		uint64_t f, c;

		mmc_vshare_at(&fs, i, &f, &c);
		bad += f != vs.first[i] || c != vs.count[i];
		shared += vs.count[i] > 1;
	}
	tap_ok(bad == 0 && (shared > 0) == (k != DEV), "%s: every frame's first mapper and mapper count agree "
	       "(%llu frames, %llu shared, %llu differ)", name, (unsigned long long)vs.n,
	       (unsigned long long)shared, (unsigned long long)bad);
	mmc_vshare_free(&fs);
	mmc_vshare_table_free(&vs);
	mmc_snapshot_destroy(s);
}

int main(void)
{
	check(MEM, "map=mem, 2 MiB blocks", true);
	check(MEM_DOUBLE, "map=mem, one frame mapped twice across compound pages", false);
	check(DEV, "map=dev", true);
	check(DEV_DUP, "map=dev, last frame mapped twice", false);
	check(SAME_EVERY_REP, "the same two frames for every compound page", false);
	return tap_done();
}
