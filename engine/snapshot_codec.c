// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A range's runs as seq items (snapshot_seq.h) and back: the one place
 * that knows which word of an item holds what.  A page run's shape words
 * are state | role | nslots | reason, then per slot class | region | off,
 * value stride and raw stride; its linear words (those a pattern moves
 * from one repetition to the next) are per slot the first value and raw.
 * A vframe run's shape words are kind | reason | prot | prot_known | leaf
 * and its three strides; its linear words its first share_back, dev_off
 * and paddr.  A pattern's per-repetition deltas are words for the linear
 * words, in their order.  The builder (snapshot.c) encodes, the in-memory
 * reader decodes; both reach the two kinds of runs through one table per
 * kind (struct snap_run_kind), so a pattern path is written once.
 */
#include <string.h>

#include "snapshot_int.h"

/* ---- page runs ---- */

void snap_run_set(struct snap_run *run, uint64_t start, uint64_t count,
		  const struct mmc_nrec *first, const struct mmc_nrec *stride)
{
	unsigned int i;

	/* field by field: the slots past nslots are never read, and clearing
	 * all MMC_MAX_SLOTS of them would cost every run the walker opens */
	run->open = false;
	run->start = start;
	run->count = count;
	run->state = first->state;
	run->role = first->role;
	run->nslots = first->nslots;
	run->reason = first->reason;
	run->same_bytes = false;
	run->same_limit = 0;
	for (i = 0; i < first->nslots; i++) {
		struct snap_slot *sl = &run->slot[i];

		sl->v = first->slot[i].v;
		sl->raw = first->slot[i].raw;
		sl->off = first->slot[i].off;
		sl->cls = first->slot[i].cls;
		sl->region = first->slot[i].region;
		sl->dv = stride ? stride->slot[i].v : 0;
		sl->draw = stride ? stride->slot[i].raw : 0;
	}
}

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

static void item_run(const struct seq_item *it, struct mmc_nrec *first,
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

/* ---- vframe runs ---- */

void snap_vrun_set(struct snap_vrun *v, uint64_t start, uint64_t count,
		   const struct mmc_vframe *first, const struct mmc_vframe *stride)
{
	memset(v, 0, sizeof(*v));
	v->start = start;
	v->count = count;
	v->kind = first->kind;
	v->reason = first->reason;
	v->prot = first->prot;
	v->prot_known = first->prot_known;
	v->leaf = first->leaf;
	v->share_back = first->share_back;
	v->dev_off = first->dev_off;
	v->paddr = first->paddr;
	if (stride) {
		v->d_share = stride->share_back;
		v->d_dev = stride->dev_off;
		v->d_paddr = stride->paddr;
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

static void item_vrun(const struct seq_item *it, struct mmc_vframe *first,
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

/* ---- the two kinds, through one table ---- */

static void page_encode(uint64_t start, uint64_t count, const void *first,
			const void *stride, struct seq_item *it)
{
	struct snap_run run;

	snap_run_set(&run, start, count, first, stride);
	snap_run_item(&run, it);
}

static void page_encode_delta(const void *delta, uint64_t dlin[SEQ_MAX_WORDS])
{
	const struct mmc_nrec *d = delta;

	memset(dlin, 0, SEQ_MAX_WORDS * sizeof(*dlin));
	for (unsigned int k = 0; k < d->nslots && k < MMC_MAX_SLOTS; k++) {
		dlin[2 * k] = (uint64_t)d->slot[k].v;
		dlin[2 * k + 1] = d->slot[k].raw;
	}
}

static void page_decode(const struct seq_item *it, void *first, void *stride)
{
	item_run(it, first, stride);
}

/* A delta has the stride's shape (classes, regions) and the deltas' values. */
static void page_decode_delta(const struct seq_item *it,
			      const uint64_t dlin[SEQ_MAX_WORDS], void *delta)
{
	struct mmc_nrec *d = delta;

	item_run(it, NULL, d);
	for (unsigned int k = 0; k < d->nslots; k++) {
		d->slot[k].v = (int64_t)dlin[2 * k];
		d->slot[k].raw = dlin[2 * k + 1];
	}
}

const struct snap_run_kind snap_page_runs = {
	.elem = sizeof(struct mmc_nrec),
	.encode = page_encode, .encode_delta = page_encode_delta,
	.decode = page_decode, .decode_delta = page_decode_delta,
};

static void vframe_encode(uint64_t start, uint64_t count, const void *first,
			  const void *stride, struct seq_item *it)
{
	struct snap_vrun v;

	snap_vrun_set(&v, start, count, first, stride);
	snap_vrun_item(&v, it);
}

static void vframe_encode_delta(const void *delta, uint64_t dlin[SEQ_MAX_WORDS])
{
	const struct mmc_vframe *d = delta;

	memset(dlin, 0, SEQ_MAX_WORDS * sizeof(*dlin));
	dlin[0] = (uint64_t)d->share_back;
	dlin[1] = (uint64_t)d->dev_off;
	dlin[2] = d->paddr;
}

static void vframe_decode(const struct seq_item *it, void *first, void *stride)
{
	item_vrun(it, first, stride);
}

static void vframe_decode_delta(const struct seq_item *it,
				const uint64_t dlin[SEQ_MAX_WORDS], void *delta)
{
	struct mmc_vframe *d = delta;

	item_vrun(it, NULL, d);
	d->share_back = (int64_t)dlin[0];
	d->dev_off = (int64_t)dlin[1];
	d->paddr = dlin[2];
}

const struct snap_run_kind snap_vframe_runs = {
	.elem = sizeof(struct mmc_vframe),
	.encode = vframe_encode, .encode_delta = vframe_encode_delta,
	.decode = vframe_decode, .decode_delta = vframe_decode_delta,
};
