// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A snapshot range's runs folded into repeated patterns as they close
 * (snapshot_seq.h).  The builder keeps a small window of closed items;
 * three consecutive repetitions of up to SEQ_MAX_BODY items whose linear
 * words move by the same delta each time start a pattern, which then
 * grows one repetition at a time while items continue it.  An item that
 * breaks it sends the items of the unfinished repetition, and itself,
 * back through the window.
 */
#include "snapshot_seq.h"
#include "mmc_util.h"

#include <stdlib.h>
#include <string.h>

#define WMAX (3 * SEQ_MAX_BODY)
#define QMAX (SEQ_MAX_BODY + 1)

void seq_init(struct seq *s)
{
	memset(s, 0, sizeof(*s));
}

void seq_free(struct seq *s)
{
	free(s->pool);
	free(s->off);
	free(s->segs);
	free(s->win);
	memset(s, 0, sizeof(*s));
}

/* The window is a ring of WMAX items from whead, then QMAX queue slots
 * and one scratch item. */
static struct seq_item *W(struct seq *s, size_t i)
{
	return &s->win[(s->whead + i) % WMAX];
}

/* *dst = *src as far as anything reads an item: its used words only
 * (an item is mostly unused words, and items are copied per push) */
static void item_copy(struct seq_item *dst, const struct seq_item *src)
{
	uint32_t n = src->nshape + src->nlin;

	dst->start = src->start;
	dst->count = src->count;
	dst->nshape = src->nshape;
	dst->nlin = src->nlin;
	memcpy(dst->w, src->w, (n < SEQ_MAX_WORDS ? n : SEQ_MAX_WORDS) * sizeof(dst->w[0]));
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return mmc_grow_array(arr, cap, need, elem, 16);
}

static bool pool_item(struct seq *s, const struct seq_item *it, const uint64_t *dlin)
{
	size_t n = 3 + it->nshape + it->nlin + (dlin ? it->nlin : 0);
	uint64_t *p;

	if (!grow((void **)&s->pool, &s->pool_cap, s->npool + n, sizeof(*s->pool)) ||
	    !grow((void **)&s->off, &s->items_cap, s->nitems + 1, sizeof(*s->off)))
		return false;
	p = s->pool + s->npool;
	p[0] = it->start;
	p[1] = it->count;
	p[2] = it->nshape | (uint64_t)it->nlin << 32;
	memcpy(p + 3, it->w, (it->nshape + it->nlin) * sizeof(uint64_t));
	if (dlin)
		memcpy(p + 3 + it->nshape + it->nlin, dlin, it->nlin * sizeof(uint64_t));
	s->off[s->nitems++] = s->npool;
	s->npool += n;
	return true;
}

static bool new_seg(struct seq *s, uint64_t start, uint64_t period, uint64_t reps,
		    uint32_t nbody)
{
	struct seq_seg *g;

	if (!grow((void **)&s->segs, &s->segs_cap, s->nsegs + 1, sizeof(*s->segs)))
		return false;
	g = &s->segs[s->nsegs++];
	g->start = start;
	g->period = period;
	g->reps = reps;
	g->vidx0 = s->nvirt;
	g->item0 = s->nitems - nbody;
	g->nbody = nbody;
	s->nvirt += (uint64_t)nbody * reps;
	return true;
}

static bool commit_plain(struct seq *s, const struct seq_item *it)
{
	struct seq_seg *g = s->nsegs ? &s->segs[s->nsegs - 1] : NULL;

	if (!pool_item(s, it, NULL))
		return false;
	if (g && g->reps == 1 && g->nbody < SEQ_PLAIN_MAX) {
		g->nbody++;
		g->period += it->count;
		s->nvirt++;
		return true;
	}
	return new_seg(s, it->start, it->count, 1, 1);
}

/* body: k items from window position i0; deltas from the next repetition */
static bool commit_pattern(struct seq *s, size_t i0, uint32_t k, uint64_t reps)
{
	uint64_t period = 0, dlin[SEQ_MAX_WORDS];

	for (uint32_t b = 0; b < k; b++) {
		const struct seq_item *a = W(s, i0 + b), *n = W(s, i0 + k + b);

		for (uint32_t j = 0; j < a->nlin; j++)
			dlin[j] = n->w[a->nshape + j] - a->w[a->nshape + j];
		if (!pool_item(s, a, dlin))
			return false;
		period += a->count;
	}
	return new_seg(s, W(s, i0)->start, period, reps, k);
}

static bool same_shape(const struct seq_item *a, const struct seq_item *b)
{
	return a->count == b->count && a->nshape == b->nshape && a->nlin == b->nlin &&
	       !memcmp(a->w, b->w, a->nshape * sizeof(uint64_t));
}

/* The last 3k window items: three repetitions of k items? */
static bool triple(struct seq *s, uint32_t k)
{
	size_t base = s->nwin - 3 * (size_t)k;

	for (uint32_t i = 0; i < k; i++) {
		const struct seq_item *a = W(s, base + i), *b = W(s, base + k + i);
		const struct seq_item *c = W(s, base + 2 * k + i);
		uint32_t o = a->nshape;

		if (!same_shape(a, b) || !same_shape(a, c))
			return false;
		for (uint32_t j = 0; j < a->nlin; j++)
			if (b->w[o + j] - a->w[o + j] != c->w[o + j] - b->w[o + j])
				return false;
	}
	return true;
}

static bool detect_push(struct seq *s, const struct seq_item *it)
{
	if (s->nwin == WMAX) {
		if (!commit_plain(s, W(s, 0)))
			return false;
		s->whead = (s->whead + 1) % WMAX;
		s->nwin--;
	}
	item_copy(W(s, s->nwin), it);
	s->nwin++;
	for (uint32_t k = 1; k <= SEQ_MAX_BODY && 3 * (size_t)k <= s->nwin; k++) {
		size_t first = s->nwin - 3 * (size_t)k;

		if (!triple(s, k))
			continue;
		for (size_t i = 0; i < first; i++)
			if (!commit_plain(s, W(s, i)))
				return false;
		if (!commit_pattern(s, first, k, 3))
			return false;
		s->nwin = 0;
		s->whead = 0;
		s->active = true;
		return true;
	}
	return true;
}

/* Does it continue the last segment's next repetition? */
static bool continues(const struct seq *s, const struct seq_item *it)
{
	const struct seq_seg *g = &s->segs[s->nsegs - 1];
	const uint64_t *p = s->pool + s->off[g->item0 + s->nwin];
	uint32_t ns = (uint32_t)p[2], nl = (uint32_t)(p[2] >> 32);
	const uint64_t *lin = p + 3 + ns, *dl = lin + nl;

	if (g->reps == UINT64_MAX || it->count != p[1] || it->nshape != ns ||
	    it->nlin != nl || memcmp(it->w, p + 3, ns * sizeof(uint64_t)))
		return false;
	for (uint32_t j = 0; j < nl; j++)
		if (it->w[ns + j] != lin[j] + g->reps * dl[j])
			return false;
	return true;
}

static void item_at(const struct seq *s, const struct seq_seg *g, uint32_t b,
		    uint64_t rep, struct seq_item *out, uint64_t *dlin);

/*
 * Item i (< nwin) of the active pattern's unfinished repetition: what
 * continues() found it equal to, the pattern's body item i at repetition
 * reps (the window does not keep a copy while a pattern is active).
 */
static void pending_item(const struct seq *s, size_t seg, uint64_t reps, size_t i,
			 struct seq_item *out)
{
	item_at(s, &s->segs[seg], (uint32_t)i, reps, out, NULL);
}

/* x continues the active pattern (continues()): into its repetition */
static void continue_pattern(struct seq *s, const struct seq_item *x)
{
	struct seq_seg *g = &s->segs[s->nsegs - 1];

	(void)x;
	if (++s->nwin == g->nbody) {
		g->reps++;
		s->nvirt += g->nbody;
		s->nwin = 0;
		s->whead = 0;
	}
}

bool seq_push(struct seq *s, const struct seq_item *it)
{
	struct seq_item *q;
	size_t qh = 0, nq = 1;

	if (!s->win) {
		s->win = malloc((WMAX + QMAX + 1) * sizeof(*s->win));
		if (!s->win)
			return false;
	}
	s->end = it->start + it->count;
	/* the common case, a pattern going on: what the loop below does
	 * with it alone in the queue, without its two copies */
	if (s->active && continues(s, it)) {
		continue_pattern(s, it);
		return true;
	}
	q = s->win + WMAX;
	item_copy(&q[0], it);
	while (qh < nq) {
		struct seq_item *x = &q[QMAX];	/* scratch */

		item_copy(x, &q[qh++]);
		if (!s->active) {
			if (!detect_push(s, x))
				return false;
			continue;
		}
		if (continues(s, x)) {
			continue_pattern(s, x);
			continue;
		}
		/* the pattern ends: the unfinished repetition and x go round
		 * again, ahead of what is still queued (fewer items in flight
		 * each time: the pattern took at least one of them) */
		if (s->nwin + 1 + (nq - qh) > QMAX) {
			/* cannot happen (see above); stay lossless anyway */
			if (!seq_flush(s) || !detect_push(s, x))
				return false;
			continue;
		}
		memmove(q + s->nwin + 1, q + qh, (nq - qh) * sizeof(*q));
		nq = s->nwin + 1 + (nq - qh);
		for (size_t i = 0; i < s->nwin; i++)
			pending_item(s, s->nsegs - 1, s->segs[s->nsegs - 1].reps, i, &q[i]);
		item_copy(&q[s->nwin], x);
		qh = 0;
		s->nwin = 0;
		s->whead = 0;
		s->active = false;
	}
	return true;
}

bool seq_flush(struct seq *s)
{
	size_t seg = s->nsegs ? s->nsegs - 1 : 0;
	uint64_t reps = s->nsegs ? s->segs[seg].reps : 0;

	for (size_t i = 0; i < s->nwin; i++) {
		struct seq_item it;

		if (s->active)
			pending_item(s, seg, reps, i, &it);
		if (!commit_plain(s, s->active ? &it : W(s, i)))
			return false;
	}
	s->nwin = 0;
	s->whead = 0;
	s->active = false;
	return true;
}

bool seq_push_pattern(struct seq *s, const struct seq_item *body,
		      const uint64_t (*dlin)[SEQ_MAX_WORDS], uint32_t nbody,
		      uint64_t reps)
{
	uint64_t period = 0;

	if (reps == 1) {
		for (uint32_t b = 0; b < nbody; b++)
			if (!seq_push(s, &body[b]))
				return false;
		return true;
	}
	if (!seq_flush(s))
		return false;
	for (uint32_t b = 0; b < nbody; b++) {
		if (!pool_item(s, &body[b], dlin[b]))
			return false;
		period += body[b].count;
	}
	if (!new_seg(s, body[0].start, period, reps, nbody))
		return false;
	s->end = body[0].start + period * reps;
	return true;
}

void seq_shrink(struct seq *s)
{
	void *p;

	free(s->win);
	s->win = NULL;
	if (s->npool && s->npool < s->pool_cap && (p = realloc(s->pool, s->npool * sizeof(*s->pool)))) {
		s->pool = p;
		s->pool_cap = s->npool;
	}
	if (s->nitems && s->nitems < s->items_cap && (p = realloc(s->off, s->nitems * sizeof(*s->off)))) {
		s->off = p;
		s->items_cap = s->nitems;
	}
	if (s->nsegs && s->nsegs < s->segs_cap && (p = realloc(s->segs, s->nsegs * sizeof(*s->segs)))) {
		s->segs = p;
		s->segs_cap = s->nsegs;
	}
}

static void item_at(const struct seq *s, const struct seq_seg *g, uint32_t b,
		    uint64_t rep, struct seq_item *out, uint64_t *dlin)
{
	const uint64_t *p = s->pool + s->off[g->item0 + b];
	uint32_t ns = (uint32_t)p[2], nl = (uint32_t)(p[2] >> 32);
	const uint64_t *dl = p + 3 + ns + nl;

	out->start = p[0] + rep * g->period;
	out->count = p[1];
	out->nshape = ns;
	out->nlin = nl;
	memcpy(out->w, p + 3, (ns + nl) * sizeof(uint64_t));
	if (g->reps > 1 && rep)
		for (uint32_t j = 0; j < nl; j++)
			out->w[ns + j] += rep * dl[j];
	if (dlin) {
		for (uint32_t j = 0; j < nl; j++)
			dlin[j] = g->reps > 1 ? dl[j] : 0;
	}
}

void seq_get(const struct seq *s, uint64_t v, struct seq_item *out)
{
	size_t lo = 0, hi = s->nsegs;
	const struct seq_seg *g;
	uint64_t k;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->segs[mid].vidx0 <= v)
			lo = mid;
		else
			hi = mid;
	}
	g = &s->segs[lo];
	k = v - g->vidx0;
	item_at(s, g, (uint32_t)(k % g->nbody), k / g->nbody, out, NULL);
}

uint64_t seq_find(const struct seq *s, uint64_t pos)
{
	size_t lo = 0, hi = s->nsegs;
	const struct seq_seg *g;
	uint64_t rep, in;
	uint32_t blo, bhi;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->segs[mid].start <= pos)
			lo = mid;
		else
			hi = mid;
	}
	g = &s->segs[lo];
	rep = g->period ? (pos - g->start) / g->period : 0;
	if (rep >= g->reps)
		rep = g->reps - 1;
	in = g->start + (pos - g->start - rep * g->period);	/* rep-0 position */
	blo = 0;
	bhi = g->nbody;
	while (bhi - blo > 1) {
		uint32_t mid = blo + (bhi - blo) / 2;

		if (s->pool[s->off[g->item0 + mid]] <= in)
			blo = mid;
		else
			bhi = mid;
	}
	return g->vidx0 + rep * g->nbody + blo;
}

void seq_body(const struct seq *s, size_t seg, uint32_t b, struct seq_item *out,
	      uint64_t dlin[SEQ_MAX_WORDS])
{
	item_at(s, &s->segs[seg], b, 0, out, dlin);
}

size_t seq_mem_bytes(const struct seq *s)
{
	return s->pool_cap * sizeof(*s->pool) + s->items_cap * sizeof(*s->off) +
	       s->segs_cap * sizeof(*s->segs) + (s->win ? (WMAX + QMAX + 1) * sizeof(*s->win) : 0);
}

size_t seq_nfinal(const struct seq *s, bool flushed)
{
	if (flushed || !s->nsegs)
		return s->nsegs;
	return s->nsegs - 1;
}

void seq_drop(struct seq *s, size_t n)
{
	size_t item0, pool0;

	if (!n)
		return;
	item0 = n < s->nsegs ? s->segs[n].item0 : s->nitems;
	pool0 = item0 < s->nitems ? s->off[item0] : s->npool;
	memmove(s->pool, s->pool + pool0, (s->npool - pool0) * sizeof(*s->pool));
	s->npool -= pool0;
	for (size_t i = item0; i < s->nitems; i++)
		s->off[i - item0] = s->off[i] - pool0;
	s->nitems -= item0;
	memmove(s->segs, s->segs + n, (s->nsegs - n) * sizeof(*s->segs));
	s->nsegs -= n;
	for (size_t i = 0; i < s->nsegs; i++)
		s->segs[i].item0 -= item0;
}
