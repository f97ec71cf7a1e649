// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vshare_table.h"

struct slot {
	uint64_t paddr, first;
	bool used;
};

static uint64_t hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static struct slot *find(struct slot *tab, size_t cap, uint64_t paddr)
{
	size_t i = hash(paddr) & (cap - 1);

	while (tab[i].used && tab[i].paddr != paddr)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static bool has_frame(const struct mmc_vframe *vf)
{
	return vf->kind == MMC_VF_RAM || vf->kind == MMC_VF_DEVICE;
}

struct mmc_error *mmc_vshare_table_build(const struct mmc_snapshot *snap, size_t range,
				   struct mmc_vshare_table *out)
{
	size_t n = mmc_snapshot_range_nvframes(snap, range), cap = 16;
	struct slot *tab;

	memset(out, 0, sizeof(*out));
	while (cap < 2 * n)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	out->first = calloc(n ? n : 1, sizeof(*out->first));
	out->count = calloc(n ? n : 1, sizeof(*out->count));
	if (!tab || !out->first || !out->count) {
		free(tab);
		mmc_vshare_table_free(out);
		return mmc_error_nomem();
	}
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		struct mmc_vframe vf;
		struct slot *s;

		mmc_snapshot_range_vframe(snap, range, i, &vf);
		out->first[i] = i;
		if (!has_frame(&vf))
			continue;
		s = find(tab, cap, vf.paddr);
		if (!s->used) {
			s->used = true;
			s->paddr = vf.paddr;
			s->first = i;
		}
		out->first[i] = s->first;
		out->count[s->first]++;
	}
	for (size_t i = 0; i < n; i++)
		out->count[i] = out->count[out->first[i]];
	free(tab);
	return NULL;
}

void mmc_vshare_table_free(struct mmc_vshare_table *vs)
{
	free(vs->first);
	free(vs->count);
	vs->first = vs->count = NULL;
	vs->n = 0;
}
