/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the fuzz targets that feed snapshot files: set the declared file
 * size (bytes 16..23) to the input's and recompute the trailing FNV-1a 64
 * checksum, so that mutations reach the section parsers instead of
 * stopping at those two checks.  n must be at least 24.
 */
#ifndef MMC_FUZZ_SNAPSHOT_FIXUP_H
#define MMC_FUZZ_SNAPSHOT_FIXUP_H

#include <stddef.h>
#include <stdint.h>

#include "bytes.h"

static inline void snapshot_fix_up(uint8_t *b, size_t n)
{
	le_put64(b + 16, (uint64_t)n);
	snapshot_reseal(b, n);
}

#endif
