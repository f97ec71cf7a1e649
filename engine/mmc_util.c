// SPDX-License-Identifier: GPL-2.0-or-later
#include "mmc_util.h"

#include <stdint.h>
#include <stdlib.h>

bool mmc_grow_array(void **arr, size_t *cap, size_t need, size_t elem,
		    size_t first)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap : first;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return false;
		ncap *= 2;
	}
	p = realloc(*arr, ncap * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}
