/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the unit tests that build snapshots by hand, record by record
 * (test_snapshot*, test_diff, test_claims*, test_report_svg): the
 * normalised value of a slot, nv() and raw(), and die(), which bails out of
 * the TAP run when the engine refuses what the test builds.
 */
#ifndef MMC_TEST_HAND_SNAPSHOT_H
#define MMC_TEST_HAND_SNAPSHOT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mmc_error.h"
#include "model.h"

/* A slot of class cls (MMC_V_*): off and v as that class reads them, raw
 * the word the kernel held. */
static inline struct mmc_nval nv(unsigned int cls, unsigned int off, int64_t v, uint64_t raw)
{
	struct mmc_nval x = { .cls = (uint8_t)cls, .off = (uint16_t)off, .v = v, .raw = raw };

	return x;
}

/* A slot holding a plain number. */
static inline struct mmc_nval raw(uint64_t v)
{
	return nv(MMC_V_RAW, 0, (int64_t)v, v);
}

static inline void die(struct mmc_error *err)
{
	if (!err)
		return;
	printf("Bail out! ");
	mmc_error_fprint(stdout, err);
	putchar('\n');
	exit(1);
}

#endif
