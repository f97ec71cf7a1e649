// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot in memory, reading: the runs a range's seqs hold
 * (snapshot_seq.h), as runs ("virtual" runs: every repetition of every
 * pattern, exactly the runs the builder closed), as patterns, record by
 * record (cursor) and by pfn.  Building: snapshot.c; snapshot files are
 * snapshot_file_*.c.
 */
#include "snapshot.h"
#include "snapshot_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- accessors ---- */

const struct mmc_snapshot_info *mmc_snapshot_info(const struct mmc_snapshot *snap)
{
	return &snap->info;
}

const struct mmc_layout *mmc_snapshot_layout(const struct mmc_snapshot *snap)
{
	return snap->layout;
}

const struct mmc_geom *mmc_snapshot_geom(const struct mmc_snapshot *snap)
{
	return &snap->geom;
}

size_t mmc_snapshot_npgmaps(const struct mmc_snapshot *snap)
{
	return snap->npgmaps;
}

const struct mmc_spgmap *mmc_snapshot_pgmap(const struct mmc_snapshot *snap, size_t i)
{
	return i < snap->npgmaps ? &snap->pgmaps[i] : NULL;
}

size_t mmc_snapshot_nranges(const struct mmc_snapshot *snap)
{
	return snap->nranges;
}

const struct mmc_srange *mmc_snapshot_range(const struct mmc_snapshot *snap, size_t i)
{
	return i < snap->nranges ? &snap->ranges[i].r : NULL;
}

uint64_t mmc_snapshot_npages(const struct mmc_snapshot *snap)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < snap->nranges; i++)
		n += snap->ranges[i].nrecs;
	return n;
}

uint64_t mmc_snapshot_nruns(const struct mmc_snapshot *snap)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < snap->nranges; i++)
		n += seq_nvirt(&snap->ranges[i].runs);
	return n;
}

uint64_t mmc_snapshot_count_state(const struct mmc_snapshot *snap,
				  enum mmc_page_state state)
{
	if ((unsigned int)state > MMC_PS_NOT_INIT)
		return 0;
	return snap->state_count[state];
}

uint64_t mmc_snapshot_count_unreadable(const struct mmc_snapshot *snap,
				       enum mmc_unread_reason reason)
{
	if ((unsigned int)reason > MMC_UR_MAX)
		return 0;
	return snap->reason_count[reason];
}

bool mmc_snapshot_streamed(const struct mmc_snapshot *snap)
{
	return snap->streamed;
}

size_t mmc_snapshot_mem_bytes(const struct mmc_snapshot *snap)
{
	size_t n = sizeof(*snap) + snap->pgmaps_cap * sizeof(*snap->pgmaps) +
		   snap->ranges_cap * sizeof(*snap->ranges);
	size_t i;

	for (i = 0; i < snap->nranges; i++) {
		const struct snap_range *r = &snap->ranges[i];

		n += seq_mem_bytes(&r->runs) + seq_mem_bytes(&r->vruns);
	}
	return n;
}


/* ---- runs ---- */

void mmc_nrec_run_at(const struct mmc_nrec *first, const struct mmc_nrec *stride,
		     uint64_t i, struct mmc_nrec *out)
{
	unsigned int k;

	*out = *first;
	for (k = 0; k < first->nslots && k < MMC_MAX_SLOTS; k++) {
		out->slot[k].v = lin(first->slot[k].v, stride->slot[k].v, i);
		out->slot[k].raw = first->slot[k].raw + stride->slot[k].raw * i;
	}
}

void mmc_snapshot_cursor_init(const struct mmc_snapshot *snap, size_t range,
			      struct mmc_snapshot_cursor *cur)
{
	memset(cur, 0, sizeof(*cur));
	cur->snap = snap;
	cur->range = range;
	cur->pfn = range < snap->nranges ? snap->ranges[range].r.start_pfn : 0;
}

bool mmc_snapshot_cursor_next(struct mmc_snapshot_cursor *cur, uint64_t *pfn,
			      struct mmc_nrec *rec)
{
	const struct snap_range *r;

	if (cur->range >= cur->snap->nranges || cur->snap->streamed)
		return false;
	r = &cur->snap->ranges[cur->range];
	if (!cur->loaded || cur->i >= cur->count) {
		if (cur->loaded) {
			cur->run++;
			cur->i = 0;
		}
		if (cur->run >= seq_nvirt(&r->runs))
			return false;
		mmc_snapshot_range_run(cur->snap, cur->range, cur->run, NULL,
				       &cur->count, &cur->first, &cur->stride);
		cur->loaded = true;
	}
	if (rec)
		mmc_nrec_run_at(&cur->first, &cur->stride, cur->i, rec);
	if (pfn)
		*pfn = cur->pfn;
	cur->i++;
	cur->pfn++;
	return true;
}

bool mmc_snapshot_find_run(const struct mmc_snapshot *snap, size_t range,
			   uint64_t pfn, size_t *run)
{
	const struct snap_range *r;

	if (range >= snap->nranges || snap->streamed)
		return false;
	r = &snap->ranges[range];
	if (pfn < r->r.start_pfn || pfn - r->r.start_pfn >= r->nrecs ||
	    !seq_nvirt(&r->runs))
		return false;
	*run = (size_t)seq_find(&r->runs, pfn);
	return true;
}

bool mmc_snapshot_get(const struct mmc_snapshot *snap, size_t range,
		      uint64_t pfn, struct mmc_nrec *rec)
{
	struct mmc_nrec first, stride;
	uint64_t start;
	size_t run;

	if (!mmc_snapshot_find_run(snap, range, pfn, &run))
		return false;
	mmc_snapshot_range_run(snap, range, run, &start, NULL, &first, &stride);
	mmc_nrec_run_at(&first, &stride, pfn - start, rec);
	return true;
}

/* A streamed snapshot's runs are in its file only. */
size_t mmc_snapshot_range_nruns(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges && !snap->streamed ?
	       (size_t)seq_nvirt(&snap->ranges[range].runs) : 0;
}

/* Virtual run `run` of s, of kind k: where it starts, its count, first
 * and stride (any may be NULL). */
static void seq_run(const struct seq *s, const struct snap_run_kind *k, size_t run,
		    uint64_t *start, uint64_t *count, void *first, void *stride)
{
	struct seq_item it;

	seq_get(s, run, &it);
	if (start)
		*start = it.start;
	if (count)
		*count = it.count;
	k->decode(&it, first, stride);
}

void mmc_snapshot_range_run(const struct mmc_snapshot *snap, size_t range,
			    size_t run, uint64_t *first_pfn, uint64_t *count,
			    struct mmc_nrec *first, struct mmc_nrec *stride)
{
	seq_run(&snap->ranges[range].runs, &snap_page_runs, run, first_pfn, count,
		first, stride);
}

size_t mmc_snapshot_range_nvframes(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges ? (size_t)snap->ranges[range].nvframes : 0;
}

size_t mmc_snapshot_range_nvframe_runs(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges && !snap->streamed ?
	       (size_t)seq_nvirt(&snap->ranges[range].vruns) : 0;
}

void mmc_snapshot_range_vframe_run(const struct mmc_snapshot *snap, size_t range,
				   size_t run, uint64_t *first_index,
				   uint64_t *count, struct mmc_vframe *first,
				   struct mmc_vframe *stride)
{
	seq_run(&snap->ranges[range].vruns, &snap_vframe_runs, run, first_index, count,
		first, stride);
}

void mmc_snapshot_range_vframe(const struct mmc_snapshot *snap, size_t range,
			       size_t i, struct mmc_vframe *vf)
{
	const struct snap_range *r = &snap->ranges[range];
	struct mmc_vframe first, stride;
	uint64_t start, k;

	memset(vf, 0, sizeof(*vf));
	if (i >= r->nvframes || !seq_nvirt(&r->vruns) || snap->streamed) {
		vf->kind = MMC_VF_UNREADABLE;
		return;
	}
	seq_run(&r->vruns, &snap_vframe_runs, seq_find(&r->vruns, i), &start, NULL,
		&first, &stride);
	k = i - start;
	*vf = first;
	vf->share_back = lin(first.share_back, stride.share_back, k);
	vf->dev_off = lin(first.dev_off, stride.dev_off, k);
	vf->paddr = first.paddr + stride.paddr * k;
}

/* ---- patterns ---- */

static void pattern_of(const struct seq *s, size_t i, struct mmc_snapshot_pattern *p)
{
	const struct seq_seg *g = &s->segs[i];

	p->start = g->start;
	p->period = g->period;
	p->reps = g->reps;
	p->first_run = g->vidx0;
	p->nbody = g->nbody;
}

size_t mmc_snapshot_range_npatterns(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges ? snap->ranges[range].runs.nsegs : 0;
}

void mmc_snapshot_range_pattern(const struct mmc_snapshot *snap, size_t range, size_t i,
				struct mmc_snapshot_pattern *p)
{
	pattern_of(&snap->ranges[range].runs, i, p);
}

/* Body run b of segment i of s, of kind k (any output may be NULL). */
static void seq_pattern_run(const struct seq *s, const struct snap_run_kind *k,
			    size_t i, uint32_t b, uint64_t *count, void *first,
			    void *stride, void *rep_delta)
{
	uint64_t dlin[SEQ_MAX_WORDS];
	struct seq_item it;

	seq_body(s, i, b, &it, dlin);
	if (count)
		*count = it.count;
	k->decode(&it, first, stride);
	if (rep_delta)
		k->decode_delta(&it, dlin, rep_delta);
}

void mmc_snapshot_range_pattern_run(const struct mmc_snapshot *snap, size_t range,
				    size_t i, uint32_t b, uint64_t *count,
				    struct mmc_nrec *first, struct mmc_nrec *stride,
				    struct mmc_nrec *rep_delta)
{
	seq_pattern_run(&snap->ranges[range].runs, &snap_page_runs, i, b, count, first,
			stride, rep_delta);
}

size_t mmc_snapshot_range_nvframe_patterns(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges ? snap->ranges[range].vruns.nsegs : 0;
}

void mmc_snapshot_range_vframe_pattern(const struct mmc_snapshot *snap, size_t range,
				       size_t i, struct mmc_snapshot_pattern *p)
{
	pattern_of(&snap->ranges[range].vruns, i, p);
}

void mmc_snapshot_range_vframe_pattern_run(const struct mmc_snapshot *snap, size_t range,
					   size_t i, uint32_t b, uint64_t *count,
					   struct mmc_vframe *first,
					   struct mmc_vframe *stride,
					   struct mmc_vframe *rep_delta)
{
	seq_pattern_run(&snap->ranges[range].vruns, &snap_vframe_runs, i, b, count,
			first, stride, rep_delta);
}
