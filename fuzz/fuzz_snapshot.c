// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the snapshot file reader (mmc_snapshot_load_buffer), then
 * everything that reads a loaded snapshot without a kernel (counts,
 * cursor, random access, vframes, save to memory), and, when the input's
 * last byte has bit 1 set, for snapshots of up to 64 Ki pages, lint and a
 * diff with itself (helper rules' code on odd but valid snapshots).  The declared size and
 * the trailing checksum are fixed up first, so mutations reach the
 * section parsers instead of stopping at the checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "lint.h"
#include "snapshot.h"

#include "snapshot_fixup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	uint8_t *b;
	size_t r, i;

	if (size > (1u << 22))
		return 0;
	b = malloc(size ? size : 1);
	if (!b)
		return 0;
	memcpy(b, data, size);
	/* the first byte chooses: as is (checksum and size checks), or fixed up */
	if (size >= 40 && (data[size - 1] & 1))
		snapshot_fix_up(b, size);
	err = mmc_snapshot_load_buffer(b, size, "fuzz.snap", &s);
	mmc_error_destroy(err);
	if (s) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		(void)mmc_snapshot_npages(s);
		(void)mmc_snapshot_count_unreadable(s, MMC_UR_TRUNCATED);
		(void)mmc_snapshot_discovery_problem(s);
		for (r = 0; r < mmc_snapshot_nranges(s); r++) {
			const struct mmc_srange *sr = mmc_snapshot_range(s, r);
			struct mmc_snapshot_cursor cur;
			struct mmc_nrec rec;
			struct mmc_vframe vf;
			uint64_t pfn, n = 0;

			mmc_snapshot_cursor_init(s, r, &cur);
			while (n++ < 4096 && mmc_snapshot_cursor_next(&cur, &pfn, &rec))
				;
			mmc_snapshot_get(s, r, sr->start_pfn + (sr->end_pfn - sr->start_pfn) / 2, &rec);
			mmc_snapshot_get(s, r, sr->end_pfn - 1, &rec);
			for (i = 0; i < mmc_snapshot_range_nvframes(s, r) && i < 64; i++)
				mmc_snapshot_range_vframe(s, r, i, &vf);
		}
		if (f) {
			mmc_error_destroy(mmc_snapshot_write(s, f, "memory"));
			fclose(f);
		}
		/* the last byte's bit 1: lint and self-diff too (slow: not always) */
		if ((data[size - 1] & 2) && mmc_snapshot_npages(s) <= 65536) {
			struct mmc_lint_opts lo = { .max_groups = 8 };
			struct mmc_diff_opts dopt = { .max_pages = 4, .max_groups = 8 };
			struct mmc_lint_result *lr = NULL;
			struct mmc_diff_result *dr = NULL;

			mmc_error_destroy(mmc_lint(s, &lo, &lr));
			mmc_lint_result_destroy(lr);
			mmc_error_destroy(mmc_diff(s, s, &dopt, &dr));
			mmc_diff_result_destroy(dr);
		}
		free(text);
		mmc_snapshot_destroy(s);
	}
	free(b);
	return 0;
}
