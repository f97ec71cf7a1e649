// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmemmap frame sharing by runs (vshare.h).
 */
#include <stdlib.h>
#include <string.h>

#include "vshare.h"

struct ival {
	unsigned __int128 lo, hi;	/* frame addresses [lo, hi] */
};

/* Frame addresses of a run: p + i * d, i < count. */
static struct ival run_ival(uint64_t p, uint64_t d, uint64_t count)
{
	struct ival v;
	__int128 step = (int64_t)d, span = step * (__int128)(count - 1);

	v.lo = p;
	v.hi = p;
	if (span < 0)
		v.lo = (unsigned __int128)((__int128)p + span);
	else
		v.hi = (unsigned __int128)((__int128)p + span);
	return v;
}

static int cmp_ival(const void *x, const void *y)
{
	const struct ival *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Intervals sorted and disjoint, none leaving [0, 2^64) (no wrap). */
static bool disjoint(struct ival *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((__int128)v[i].lo < 0 || v[i].hi > UINT64_MAX)
			return false;
	qsort(v, n, sizeof(*v), cmp_ival);
	for (size_t i = 1; i < n; i++)
		if (v[i].lo <= v[i - 1].hi)
			return false;
	return true;
}

/* A pattern's body intervals moved by r * D for every repetition r: the
 * body's hull must move past itself each repetition; nbody intervals of
 * repetition 0 in tmp.  Appends the pattern's interval(s) to out. */
#define SPLIT_MAX 64

/* false: out of memory (*out is kept; the caller sees *cap unchanged) */
static bool grow_out(struct ival **out, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 64;
	struct ival *p;

	while (ncap < need)
		ncap *= 2;
	p = realloc(*out, ncap * sizeof(*p));
	if (!p)
		return false;
	*out = p;
	*cap = ncap;
	return true;
}

static void load_body(const struct mmc_snapshot *snap, size_t range, size_t pi, uint32_t b,
		      uint64_t start, struct mmc_vshare_run *r, uint64_t *dpaddr)
{
	struct mmc_vframe d;

	mmc_snapshot_range_vframe_pattern_run(snap, range, pi, b, &r->count, &r->first,
					      &r->stride, &d);
	r->start = start;
	*dpaddr = d.paddr;
}

static bool add_pattern(const struct mmc_snapshot *snap, size_t range, size_t pi,
			const struct mmc_snapshot_pattern *p, struct ival *tmp,
			struct ival **out, size_t *nout, size_t *cap,
			struct mmc_vshare_run *last, bool *have_last)
{
	uint64_t D = 0, dl;
	size_t nt = 0;
	bool have_d = false;
	struct ival hull;
	struct mmc_vshare_run prev, cur, bl;

	/* the body's last run in repetition 0: the one before the body's
	 * first in repetitions 1 and on */
	mmc_snapshot_range_vframe_pattern_run(snap, range, pi, p->nbody - 1, &bl.count, NULL,
					      NULL, NULL);
	load_body(snap, range, pi, p->nbody - 1, p->start + p->period - bl.count, &bl, &dl);
	for (uint32_t b = 0; b < p->nbody; b++) {
		uint64_t d;
		bool joined;

		load_body(snap, range, pi, b, b ? prev.start + prev.count : p->start, &cur, &d);
		if (b) {
			joined = mmc_vshare_joined(&prev, &cur);
		} else {
			/* joined in every repetition or in none */
			joined = *have_last && mmc_vshare_joined(last, &cur);
			if (p->reps > 1) {
				struct mmc_vshare_run cur1 = cur;

				cur1.start += p->period;
				cur1.first.paddr += d;
				if (mmc_vshare_joined(&bl, &cur1) != joined)
					return false;
			}
		}
		prev = cur;
		if (!mmc_vshare_has_frame(&cur))
			continue;
		if (p->reps > 1) {
			/* every frame moves by the same delta */
			if (have_d && d != D)
				return false;
			D = d;
			have_d = true;
		}
		if (joined)
			continue;
		if (p->reps == 1 && cur.stride.paddr && cur.count <= SPLIT_MAX) {
			/* a few frames far apart (a jump to the next vmemmap
			 * block): points, not the interval between them */
			if (*nout + cur.count > *cap && !grow_out(out, cap, *nout + cur.count))
				return false;
			for (uint64_t i = 0; i < cur.count; i++)
				(*out)[(*nout)++] = run_ival(cur.first.paddr + i * cur.stride.paddr, 0, 1);
			continue;
		}
		tmp[nt++] = run_ival(cur.first.paddr, cur.stride.paddr, cur.count);
	}
	*last = bl;
	last->start += (p->reps - 1) * p->period;
	last->first.paddr += (p->reps - 1) * dl;
	*have_last = true;
	if (!nt)
		return true;
	if (p->reps == 1 || !D) {
		if (p->reps > 1 && nt)
			return false;	/* the same frames every repetition: shared */
		if (*nout + nt > *cap && !grow_out(out, cap, *nout + nt))
			return false;
		memcpy(*out + *nout, tmp, nt * sizeof(*tmp));
		*nout += nt;
		return true;
	}
	if (*nout + 1 > *cap && !grow_out(out, cap, *nout + 1))
		return false;
	if (!disjoint(tmp, nt))
		return false;
	hull.lo = tmp[0].lo;
	hull.hi = tmp[0].hi;
	for (size_t i = 1; i < nt; i++)
		if (tmp[i].hi > hull.hi)
			hull.hi = tmp[i].hi;
	{
		__int128 step = (int64_t)D, width = (__int128)(hull.hi - hull.lo);
		__int128 move = step * (__int128)(p->reps - 1);

		if ((step < 0 ? -step : step) <= width)
			return false;	/* repetitions overlap */
		if (move < 0)
			hull.lo = (unsigned __int128)((__int128)hull.lo + move);
		else
			hull.hi = (unsigned __int128)((__int128)hull.hi + move);
	}
	(*out)[(*nout)++] = hull;
	return true;
}

static bool runs_distinct(const struct mmc_snapshot *snap, size_t range, bool *nomem)
{
	size_t np = mmc_snapshot_range_nvframe_patterns(snap, range), n = 0, cap = 0;
	struct ival *out = NULL, *tmp = NULL;
	struct mmc_vshare_run last;
	bool ok = true, have_last = false;
	uint32_t maxbody = 1;

	memset(&last, 0, sizeof(last));
	*nomem = false;
	for (size_t i = 0; i < np; i++) {
		struct mmc_snapshot_pattern p;

		mmc_snapshot_range_vframe_pattern(snap, range, i, &p);
		cap += p.nbody;
		if (p.nbody > maxbody)
			maxbody = p.nbody;
	}
	out = malloc((cap ? cap : 1) * sizeof(*out));
	tmp = malloc(maxbody * sizeof(*tmp));
	if (!out || !tmp) {
		*nomem = true;
		ok = false;
	}
	if (!cap)
		cap = 1;
	for (size_t i = 0; i < np && ok; i++) {
		struct mmc_snapshot_pattern p;

		mmc_snapshot_range_vframe_pattern(snap, range, i, &p);
		ok = add_pattern(snap, range, i, &p, tmp, &out, &n, &cap, &last, &have_last);
	}
	if (ok)
		ok = disjoint(out, n);
	free(out);
	free(tmp);
	return ok;
}

struct mmc_error *mmc_vshare_build(const struct mmc_snapshot *snap, size_t range,
				   bool per_frame, struct mmc_vshare *out)
{
	bool nomem = false;

	memset(out, 0, sizeof(*out));
	out->snap = snap;
	out->range = range;
	out->n = mmc_snapshot_range_nvframes(snap, range);
	out->by_runs = !per_frame && runs_distinct(snap, range, &nomem);
	if (nomem)
		return mmc_error_nomem();
	if (out->by_runs)
		return NULL;
	return mmc_vshare_table_build(snap, range, &out->vs);
}

void mmc_vshare_free(struct mmc_vshare *fs)
{
	if (!fs->by_runs)
		mmc_vshare_table_free(&fs->vs);
	memset(fs, 0, sizeof(*fs));
}

void mmc_vshare_load(const struct mmc_snapshot *snap, size_t range, size_t j,
		     struct mmc_vshare_run *r)
{
	mmc_snapshot_range_vframe_run(snap, range, j, &r->start, &r->count, &r->first,
				      &r->stride);
}

void mmc_vshare_at(const struct mmc_vshare *fs, uint64_t i, uint64_t *first, uint64_t *count)
{
	size_t lo = 0, nv = mmc_snapshot_range_nvframe_runs(fs->snap, fs->range), hi = nv;
	struct mmc_vshare_run prev, cur, next;

	*first = i;
	*count = 0;
	if (i >= fs->n)
		return;
	if (!fs->by_runs) {
		*first = fs->vs.first[i];
		*count = fs->vs.count[i];
		return;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t start;

		mmc_snapshot_range_vframe_run(fs->snap, fs->range, mid, &start, NULL, NULL, NULL);
		if (start <= i)
			lo = mid;
		else
			hi = mid;
	}
	mmc_vshare_load(fs->snap, fs->range, lo, &cur);
	if (lo)
		mmc_vshare_load(fs->snap, fs->range, lo - 1, &prev);
	if (mmc_vshare_group(lo ? &prev : NULL, &cur, first, count) || !mmc_vshare_has_frame(&cur))
		return;
	*count = 1;
	if (i + 1 == cur.start + cur.count && lo + 1 < nv) {
		mmc_vshare_load(fs->snap, fs->range, lo + 1, &next);
		if (mmc_vshare_joined(&cur, &next))
			*count = next.count + 1;
	}
}
