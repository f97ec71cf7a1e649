// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel setup, xarray, discovery, walker and diff end to end on synthetic
 * kcore images: a reboot compares identical, mutants differ exactly where
 * they break, a missing frame makes the result incomplete, corrupt inputs
 * are named errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "discover.h"
#include "kernel.h"
#include "synth_kernel.h"
#include "tap.h"
#include "walk.h"

static char dir[] = "/tmp/mmc-walk-XXXXXX";

static struct mmc_error *open_synth(const struct synth_opts *o, const char *name,
				    struct mmc_kernel **k)
{
	struct mmc_layout *l = mmc_layout_create();
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!l || synth_layout(l) || synth_write(path, o)) {
		mmc_layout_destroy(l);
		return mmc_error_create(MMC_ERR_INTERNAL, path, "building synthetic image");
	}
	err = mmc_mem_open_kcore(path, &mem);
	if (err) {
		mmc_layout_destroy(l);
		return err;
	}
	return mmc_kernel_create(l, mem, NULL, k);
}

static struct mmc_snapshot *snap_of(const struct synth_opts *o, const char *name,
				    struct mmc_walk_stats *st)
{
	struct mmc_kernel *k = NULL;
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err = open_synth(o, name, &k);

	if (!err)
		err = mmc_walk(k, NULL, NULL, &s, st);
	if (err) {
		char *m = mmc_error_string(err);

		tap_diag("%s: %s", name, m ? m : "?");
		free(m);
		mmc_error_destroy(err);
	}
	mmc_kernel_destroy(k);
	return s;
}

static struct mmc_diff_result *diff_of(struct mmc_snapshot *a, struct mmc_snapshot *b)
{
	struct mmc_diff_opts o = { .max_pages = 20, .max_groups = 50 };
	struct mmc_diff_result *r = NULL;
	struct mmc_error *err;

	if (!a || !b)
		return NULL;
	err = mmc_diff(a, b, &o, &r);
	if (err) {
		mmc_error_destroy(err);
		return NULL;
	}
	return r;
}

static const struct synth_opts base = { .bad_tail = -1, .wild_tail = -1 };

int main(void)
{
	struct synth_opts o;
	struct mmc_snapshot *a, *b;
	struct mmc_diff_result *r;
	struct mmc_walk_stats st;
	struct mmc_kernel *k = NULL;
	struct mmc_discovery *d = NULL;
	struct mmc_error *err;
	char cmd[300];

	if (!mkdtemp(dir))
		tap_skip_all("mkdtemp failed");

	err = open_synth(&base, "base.core", &k);
	tap_ok(!err, "synthetic kernel opens");
	if (!err) {
		err = mmc_discover(k, &d);
		tap_ok(!err && d && d->npgmaps == 2 && d->nranges == 2,
		       "discovery finds 2 pgmaps (multi-index entry + sibling)");
		if (d) {
			TAP_EQ_U64(d->ranges[0].start_pfn, SK_R0_PFN, "range 0 start");
			TAP_EQ_U64(d->ranges[1].end_pfn, SK_R1_PFN + 1024, "range 1 end");
			tap_ok(d->pgmaps[1].info.vmemmap_shift == 9 &&
			       !strcmp(d->pgmaps[1].info.type_name, "MEMORY_DEVICE_FS_DAX"),
			       "pgmap 1 decoded: %s shift %u", d->pgmaps[1].info.type_name,
			       d->pgmaps[1].info.vmemmap_shift);
		}
		mmc_discovery_destroy(d);
	}
	mmc_error_destroy(err);
	mmc_kernel_destroy(k);

	a = snap_of(&base, "a.core", &st);
	tap_ok(a && st.pages == 1536 && st.unreadable == 0, "walk: %llu pages, %llu unreadable",
	       (unsigned long long)st.pages, (unsigned long long)st.unreadable);
	tap_ok(a && mmc_snapshot_nruns(a) < 64, "runs compress: %llu runs",
	       a ? (unsigned long long)mmc_snapshot_nruns(a) : 0ULL);
	if (a) {
		struct mmc_vframe vf;

		mmc_snapshot_range_vframe(a, 1, 5, &vf);
		tap_ok(vf.kind == MMC_VF_RAM && vf.share_back == 4,
		       "vmemmap page 5 of a compound shares page 1's frame (share_back %lld)",
		       (long long)vf.share_back);
	}

	o = base;
	o.slab_shift = 7;
	o.frame_shift = 3;
	b = snap_of(&o, "reboot.core", NULL);
	r = diff_of(a, b);
	tap_ok(r && r->verdict == MMC_IDENTICAL && r->pages_compared == 1536,
	       "reboot (other pgmap addresses, other frames): identical");
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);

	o = base;
	o.tail_refcount = 1;
	b = snap_of(&o, "mut-refcount.core", NULL);
	r = diff_of(a, b);
	/* 126 written tails per compound (pages 1..127), 2 compounds; the
	 * shared pages read page 64..127's bytes, so they differ too */
	tap_ok(r && r->verdict == MMC_DIFFERENT && r->pages_differing == 1022,
	       "tail refcount 1: different, %llu pages",
	       r ? (unsigned long long)r->pages_differing : 0ULL);
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);

	o = base;
	o.bad_tail = SK_R1_PFN + 512 + 3;
	b = snap_of(&o, "mut-head.core", NULL);
	r = diff_of(a, b);
	tap_ok(r && r->verdict == MMC_DIFFERENT && r->pages_differing == 1 &&
	       r->npages == 1 && r->pages[0].pfn == SK_R1_PFN + 515 &&
	       r->pages[0].slot_mask == 2,
	       "compound_head to the previous compound: exactly pfn 0x%llx slot 1",
	       (unsigned long long)(SK_R1_PFN + 515));
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);

	o = base;
	o.drop_frame = SK_VMEMMAP + SK_R0_PFN * 64 + 4096;
	b = snap_of(&o, "hole.core", &st);
	tap_ok(b && st.unreadable == 64, "a frame missing from the dump: 64 pages unreadable (%llu)",
	       (unsigned long long)st.unreadable);
	r = diff_of(a, b);
	tap_ok(r && r->verdict == MMC_INCOMPLETE, "... and the diff says incomplete, never identical");
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);

	o = base;
	o.xa_cycle = 1;
	err = open_synth(&o, "cycle.core", &k);
	if (!err)
		err = mmc_discover(k, &d);
	tap_ok(err && err->code == MMC_ERR_CORRUPT, "xarray cycle: corrupt error, no hang");
	mmc_error_destroy(err);
	mmc_kernel_destroy(k);
	k = NULL;

	o = base;
	o.release = "6.12.9-other";
	err = open_synth(&o, "mismatch.core", &k);
	tap_ok(err && err->code == MMC_ERR_MISMATCH, "release mismatch refused");
	mmc_error_destroy(err);
	mmc_kernel_destroy(k);

	if (a)
		mmc_snapshot_destroy(a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
