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

static inline void snapshot_fix_up(uint8_t *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < 8; i++)
		b[16 + i] = (uint8_t)((uint64_t)n >> (8 * i));
	for (i = 0; i < n - 8; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	for (i = 0; i < 8; i++)
		b[n - 8 + i] = (uint8_t)(h >> (8 * i));
}

#endif
