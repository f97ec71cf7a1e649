// SPDX-License-Identifier: GPL-2.0-or-later
/* Snapshot building: the run encoder, random and sequential access, the
 * builder's contract, and O(runs) memory and file size on 100 GiB of
 * identical pages.  test_snapshot_file has the file: round trip, version
 * 5, damage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "slurp.h"
#include "snapshot.h"
#include "snapshot_image.h"
#include "tap.h"

/* The built snapshot: counts, discovery state, notes, reads, misuse. */
static void test_built(struct mmc_snapshot *s)
{
	struct mmc_error *err;
	struct mmc_nrec rec;
	struct mmc_srange r;

	TAP_EQ_U64(mmc_snapshot_npages(s), R1_PAGES + R2_PAGES, "npages");
	tap_ok(mmc_snapshot_nruns(s) <= 4 * 6 + 8 + 4 * 2, "runs: %llu for %llu pages (two more per compound page for the reasons)",
	       (unsigned long long)mmc_snapshot_nruns(s),
	       (unsigned long long)mmc_snapshot_npages(s));
	TAP_EQ_U64(mmc_snapshot_count_state(s, MMC_PS_NOT_INIT), 16, "NOT_INIT count");
	TAP_EQ_U64(mmc_snapshot_count_state(s, MMC_PS_UNREADABLE), 4 * 12, "UNREADABLE count");
	TAP_EQ_U64(mmc_snapshot_count_state(s, MMC_PS_UNMAPPED), 1, "UNMAPPED count");
	TAP_EQ_U64(mmc_snapshot_count_unreadable(s, MMC_UR_CORRUPT), 4 * 5, "unreadable: corrupt");
	TAP_EQ_U64(mmc_snapshot_count_unreadable(s, MMC_UR_TRUNCATED), 4 * 5, "unreadable: truncated");
	TAP_EQ_U64(mmc_snapshot_count_unreadable(s, MMC_UR_UNKNOWN), 4 * 2,
		   "unreadable without a reason: unknown");
	tap_ok(mmc_snapshot_discovery_complete(s) && !mmc_snapshot_discovery_problem(s) &&
	       !mmc_snapshot_discovery_address(s, NULL), "discovery complete by default");
	mmc_snapshot_set_discovery_problem(s, "reading struct dev_pagemap at 0xffff888004200000: dump truncated",
					   true, 0xffff888004200000ULL);
	err = mmc_snapshot_add_note(s, "test.elf: dump truncated: the file is 100 bytes, its headers need 200");
	tap_ok(!err && mmc_snapshot_nnotes(s) == 1 &&
	       !strcmp(mmc_snapshot_note(s, 0), "test.elf: dump truncated: the file is 100 bytes, its headers need 200"),
	       "a note is kept");
	{
		uint64_t a = 0;

		tap_ok(!mmc_snapshot_discovery_complete(s) &&
		       strstr(mmc_snapshot_discovery_problem(s), "dev_pagemap") &&
		       mmc_snapshot_discovery_address(s, &a) && a == 0xffff888004200000ULL,
		       "discovery problem and address kept");
	}
	TAP_EQ_U64(mmc_snapshot_range_nvframe_runs(s, 0), 9, "vframe runs of range 0 (2 per compound, the unreadable one apart)");
	TAP_EQ_U64(mmc_snapshot_range_nvframe_runs(s, 1), 1, "vframe runs of range 1");
	tap_ok(check_all(s, "built"), "every record and vframe reads back (cursor, get)");
	tap_ok(!mmc_snapshot_get(s, 0, R1_START - 1, &rec) &&
	       !mmc_snapshot_get(s, 0, R1_START + R1_PAGES, &rec) &&
	       !mmc_snapshot_get(s, 5, R1_START, &rec), "get outside a range is false");

	/* builder contract errors */
	err = mmc_snapshot_append(s, &rec);
	tap_ok(err != NULL, "append outside a range is an error");
	mmc_error_destroy(err);
	memset(&r, 0, sizeof(r));
	r.start_pfn = 0;
	r.end_pfn = 4;
	r.pgmap_index = 7;
	err = mmc_snapshot_begin_range(s, &r);
	tap_ok(err != NULL, "range naming a missing pgmap is an error");
	mmc_error_destroy(err);

	{
		const struct mmc_dax_span span = { 0, R1_START + 2, R1_START + R1_PAGES };

		err = mmc_snapshot_set_dax(s, MMC_DAX_PARTIAL,
					   "reading dev_dax.ranges at 0xffff888004300218: excluded",
					   &span, 1);
		tap_ok(!err, "device-dax ranges set");
		mmc_error_destroy(err);
	}

}

/* 100 GiB of identical 4K pages: a handful of runs, O(runs) memory. */
static void test_big_range(const char *path)
{
	struct mmc_snapshot *t = NULL, *big;
	struct mmc_error *err;
	struct timespec t0, t1;
	struct mmc_nrec rec;
	struct mmc_srange r;
	struct mmc_spgmap pg;
	uint64_t i;

	err = mmc_snapshot_create(&layout, &geom, "big", "test", &big);
	memset(&pg, 0, sizeof(pg));
	if (!err)
		err = mmc_snapshot_add_pgmap(big, &pg);
	memset(&r, 0, sizeof(r));
	r.start_pfn = 0x1000000;
	r.end_pfn = r.start_pfn + (100ULL << 18);
	if (!err)
		err = mmc_snapshot_begin_range(big, &r);
	gen(R2_START + 100, &rec);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = r.start_pfn; i < r.end_pfn && !err; i++)
		err = mmc_snapshot_append(big, &rec);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	{
		struct mmc_vframe vf = { .kind = MMC_VF_DEVICE };

		for (i = 0; i < (100ULL << 18) * 64 / 4096 && !err; i++) {
			vf.dev_off = (int64_t)i;
			err = mmc_snapshot_append_vframe(big, &vf);
		}
	}
	if (!err)
		err = mmc_snapshot_end_range(big);
	tap_ok(!err, "26 M page range built");
	mmc_error_destroy(err);
	TAP_EQ_U64(mmc_snapshot_nruns(big), 1, "26 M identical pages: one run");
	tap_ok(mmc_snapshot_mem_bytes(big) < 64 * 1024, "memory %zu bytes",
	       mmc_snapshot_mem_bytes(big));
	tap_diag("append: %.1f M pages/s",
		 (double)(100ULL << 18) / ((t1.tv_sec - t0.tv_sec) +
					   (t1.tv_nsec - t0.tv_nsec) / 1e9) / 1e6);
	err = mmc_snapshot_save(big, path);
	tap_ok(!err && file_size(path) < 64 * 1024, "26 M page snapshot file: %zu bytes",
	       file_size(path));
	mmc_error_destroy(err);
	err = mmc_snapshot_load(path, &t);
	tap_ok(!err && t && mmc_snapshot_equal_content(big, t), "26 M page snapshot round trip");
	mmc_error_destroy(err);
	mmc_snapshot_destroy(t);
	mmc_snapshot_destroy(big);
}

int main(void)
{
	struct mmc_snapshot *s;
	char path[] = "/tmp/mmc-test-snap-XXXXXX";
	int fd;

	if (image_init())
		return 1;

	s = build();
	test_built(s);

	/* the big range's file */
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	test_big_range(path);

	unlink(path);
	mmc_snapshot_destroy(s);
	mmc_test_layout_release(&layout);
	return tap_done();
}
