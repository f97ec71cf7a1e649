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

uint64_t mmc_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
