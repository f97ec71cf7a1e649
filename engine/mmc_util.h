/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by engine modules. */
#ifndef MMC_UTIL_H
#define MMC_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Make *arr (of *cap elements of elem bytes) hold at least need elements,
 * doubling from first; false on overflow or allocation failure (*arr is
 * then unchanged).
 */
bool mmc_grow_array(void **arr, size_t *cap, size_t need, size_t elem,
		    size_t first);

#endif
