/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by engine modules. */
#ifndef MMC_UTIL_H
#define MMC_UTIL_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/*
 * The target's words at p, which may be unaligned: x86_64 data are
 * little-endian whatever the host is.  One load each, where a byte loop
 * was a fifth of the instructions of a walk.
 */
static inline uint64_t mmc_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline uint32_t mmc_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

#endif
