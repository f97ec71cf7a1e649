/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by engine modules. */
#ifndef MMC_UTIL_H
#define MMC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Make *arr (of *cap elements of elem bytes) hold at least need elements,
 * doubling from first; false on overflow or allocation failure (*arr is
 * then unchanged).
 */
bool mmc_grow_array(void **arr, size_t *cap, size_t need, size_t elem,
		    size_t first);

/*
 * FNV-1a 64 (Fowler-Noll-Vo): the checksum of layout and snapshot files and
 * the layout fingerprint.  Start with MMC_FNV1A_INIT; feed data in pieces
 * by passing the previous result as h.
 */
#define MMC_FNV1A_INIT 0xcbf29ce484222325ULL
uint64_t mmc_fnv1a(uint64_t h, const void *data, size_t len);

#endif
