// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A range's runs as seq items (snapshot_seq.h) and back: the one place
 * that knows which word of an item holds what.  A page run's shape words
 * are state | role | nslots | reason, then per slot class | region | off,
 * value stride and raw stride; its linear words (those a pattern moves
 * from one repetition to the next) are per slot the first value and raw.
 * A vframe run's shape words are kind | reason | prot | prot_known | leaf
 * and its three strides; its linear words its first share_back, dev_off
 * and paddr.  The builder (snapshot.c) encodes, the in-memory reader
 * decodes.
 */
#include <string.h>

#include "snapshot_priv.h"

void snap_run_item(const struct snap_run *run, struct seq_item *it)
{
	unsigned int k, ns = 1 + 3u * run->nslots;

	it->start = run->start;
	it->count = run->count;
	it->nshape = ns;
	it->nlin = 2u * run->nslots;
	it->w[0] = run->state | (uint64_t)run->role << 8 | (uint64_t)run->nslots << 16 |
		   (uint64_t)run->reason << 24;
	for (k = 0; k < run->nslots; k++) {
		const struct snap_slot *sl = &run->slot[k];

		it->w[1 + 3 * k] = sl->cls | (uint64_t)sl->region << 8 | (uint64_t)sl->off << 16;
		it->w[2 + 3 * k] = (uint64_t)sl->dv;
		it->w[3 + 3 * k] = sl->draw;
		it->w[ns + 2 * k] = (uint64_t)sl->v;
		it->w[ns + 2 * k + 1] = sl->raw;
	}
}

void snap_item_run(const struct seq_item *it, struct mmc_nrec *first,
		   struct mmc_nrec *stride)
{
	unsigned int k, ns = it->nshape, nslots = (uint8_t)(it->w[0] >> 16);

	if (first) {
		memset(first, 0, sizeof(*first));
		first->state = (uint8_t)it->w[0];
		first->role = (uint8_t)(it->w[0] >> 8);
		first->nslots = (uint8_t)nslots;
		first->reason = (uint8_t)(it->w[0] >> 24);
	}
	if (stride) {
		memset(stride, 0, sizeof(*stride));
		stride->state = (uint8_t)it->w[0];
		stride->role = (uint8_t)(it->w[0] >> 8);
		stride->nslots = (uint8_t)nslots;
		stride->reason = (uint8_t)(it->w[0] >> 24);
	}
	for (k = 0; k < nslots && k < MMC_MAX_SLOTS; k++) {
		uint64_t c = it->w[1 + 3 * k];

		if (first) {
			first->slot[k].cls = (uint8_t)c;
			first->slot[k].region = (uint8_t)(c >> 8);
			first->slot[k].off = (uint16_t)(c >> 16);
			first->slot[k].v = (int64_t)it->w[ns + 2 * k];
			first->slot[k].raw = it->w[ns + 2 * k + 1];
		}
		if (stride) {
			stride->slot[k].cls = (uint8_t)c;
			stride->slot[k].region = (uint8_t)(c >> 8);
			stride->slot[k].v = (int64_t)it->w[2 + 3 * k];
			stride->slot[k].raw = it->w[3 + 3 * k];
		}
	}
}

void snap_vrun_item(const struct snap_vrun *v, struct seq_item *it)
{
	it->start = v->start;
	it->count = v->count;
	it->nshape = 4;
	it->nlin = 3;
	it->w[0] = v->kind | (uint64_t)v->reason << 8 | (uint64_t)v->prot << 16 |
		   (uint64_t)v->prot_known << 24 | (uint64_t)v->leaf << 32;
	it->w[1] = (uint64_t)v->d_share;
	it->w[2] = (uint64_t)v->d_dev;
	it->w[3] = v->d_paddr;
	it->w[4] = (uint64_t)v->share_back;
	it->w[5] = (uint64_t)v->dev_off;
	it->w[6] = v->paddr;
}

/* The shape word's fields (snap_vrun_item()): equal over a run. */
static void vrun_shape(uint64_t w, struct mmc_vframe *vf)
{
	vf->kind = (uint8_t)w;
	vf->reason = (uint8_t)(w >> 8);
	vf->prot = (uint8_t)(w >> 16);
	vf->prot_known = (uint8_t)(w >> 24);
	vf->leaf = (uint8_t)(w >> 32);
}

void snap_item_vrun(const struct seq_item *it, struct mmc_vframe *first,
		    struct mmc_vframe *stride)
{
	if (first) {
		memset(first, 0, sizeof(*first));
		vrun_shape(it->w[0], first);
		first->share_back = (int64_t)it->w[4];
		first->dev_off = (int64_t)it->w[5];
		first->paddr = it->w[6];
	}
	if (stride) {
		memset(stride, 0, sizeof(*stride));
		vrun_shape(it->w[0], stride);
		stride->share_back = (int64_t)it->w[1];
		stride->dev_off = (int64_t)it->w[2];
		stride->paddr = it->w[3];
	}
}
