// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, chunks: the two images' runs of one range walked side by side.  At
 * each position the current runs of both images overlap for some pages;
 * the records of the two runs are linear in the pfn, so the set of
 * differing fields is constant over the overlap except where a slot's two
 * progressions cross (one pfn), where the flags word's difference would
 * change (different flag strides) or where the page's kind changes.  Such a
 * chunk is accounted at once: identical images cost O(runs), and so does a
 * constant difference (a mutant that changes every tail page the same way).
 * vmemmap frames are compared the same way, run against run.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"
#include "snapshot.h"
#include "vshare.h"


static bool side_load(struct side *sd, uint64_t pos)
{
	size_t run;

	/* far ahead (past a skipped pattern): jump */
	if (sd->start != UINT64_MAX && pos >= sd->start + sd->count + 64 &&
	    mmc_snapshot_find_run(sd->s, sd->range, pos, &run) && run > sd->run)
		sd->run = run;
	while (sd->run < sd->nruns && !(pos >= sd->start && pos < sd->start + sd->count)) {
		mmc_snapshot_range_run(sd->s, sd->range, sd->run, &sd->start, &sd->count,
				       &sd->first, &sd->stride);
		if (pos >= sd->start && pos < sd->start + sd->count)
			return true;
		sd->run++;
	}
	return pos >= sd->start && pos < sd->start + sd->count;
}

/* The kind of page pfn's record is: which page of its compound page. */
static enum mmc_tail_index tail_of(const struct dctx *c, uint64_t pfn,
				   const struct mmc_nrec *r)
{
	if (c->ch_slot >= r->nslots)
		return MMC_TAIL_NONE;
	return mmc_compound_info_tail_index(c->geom_a, pfn, &r->slot[c->ch_slot]);
}

/* Pages from pfn on (at most n) whose kind stays what it is at pfn. */
static uint64_t tail_const(const struct dctx *c, const struct side *A, uint64_t pfn,
			   const struct mmc_nrec *r, uint64_t n)
{
	if (c->ch_slot >= r->nslots)
		return n;
	return mmc_compound_info_tail_span(c->geom_a, pfn, &r->slot[c->ch_slot],
					   &A->stride.slot[c->ch_slot], n);
}

/* A HugeTLB head's list words (mmc_rule_hugetlb_list_word()) are not
 * compared: both records at pfn are heads of a HugeTLB range. */
static bool list_links(const struct dctx *c, uint64_t pfn, const struct mmc_nrec *ra,
		       const struct mmc_nrec *rb)
{
	return c->list_links && tail_of(c, pfn, ra) == MMC_TAIL_NONE &&
	       tail_of(c, pfn, rb) == MMC_TAIL_NONE;
}

/* Compare two READ records at the overlap start; returns the chunk length
 * (<= n) over which the signature stays the same. */
static uint64_t compare_read(struct dctx *c, const struct side *A,
			     const struct side *B, uint64_t pfn, const struct mmc_nrec *ra,
			     const struct mmc_nrec *rb, uint64_t n, struct sig *s)
{
	unsigned int k, nmax = ra->nslots > rb->nslots ? ra->nslots : rb->nslots;
	bool links = list_links(c, pfn, ra, rb);

	if (links)
		n = 1;	/* the pages after a head are tails: their slots compare */
	for (k = 0; k < nmax; k++) {
		const struct mmc_nval *x = &ra->slot[k], *y = &rb->slot[k];
		int64_t da, db;
		bool eq;

		if (links && mmc_rule_hugetlb_list_word(c->layout_a, c->geom_a->struct_page_size, k))
			continue;

		if (k < ra->nslots && k < rb->nslots && k != c->flags_slot &&
		    c->split[k][s->tail] &&
		    (x->cls == MMC_V_RAW || x->cls == MMC_V_NULL) &&
		    (y->cls == MMC_V_RAW || y->cls == MMC_V_NULL) && x->cls != y->cls) {
			/* two ints in a pointer-capable slot: 0 is NULL, not a change of kind */
			uint64_t d = (x->cls == MMC_V_RAW ? (uint64_t)x->v : 0) ^
				     (y->cls == MMC_V_RAW ? (uint64_t)y->v : 0);

			s->slot_mask |= 1u << k;
			s->half[k] = (uint8_t)(((d & 0xffffffffULL) ? 1 : 0) | ((d >> 32) ? 2 : 0));
			n = 1;
			continue;
		}
		if (k >= ra->nslots || k >= rb->nslots || x->cls != y->cls ||
		    x->off != y->off || (x->cls == MMC_V_OBJ && x->region != y->region)) {
			s->slot_mask |= 1u << k;
			continue;
		}
		da = A->stride.slot[k].v;
		db = B->stride.slot[k].v;
		if (x->cls == MMC_V_OBJ && (da || db))
			n = 1;	/* each page meets other objects: pair one by one */
		eq = diff_nval_equal(c, x, y);
		if (!eq && x->cls == MMC_V_RAW && k != c->flags_slot &&
		    c->split[k][s->tail]) {
			uint64_t d = (uint64_t)x->v ^ (uint64_t)y->v;

			s->half[k] = (uint8_t)(((d & 0xffffffffULL) ? 1 : 0) |
					       ((d >> 32) ? 2 : 0));
			if (da != db)
				n = 1;	/* which half differs may change */
		}
		if (!eq) {
			s->slot_mask |= 1u << k;
			if (k == c->flags_slot && x->cls == MMC_V_RAW) {
				s->flags_split = true;
				s->flag_xor = (uint64_t)x->v ^ (uint64_t)y->v;
				if (da != 0 || db != 0)
					n = 1;
			}
		}
		if (da != db) {
			__int128 num = (__int128)y->v - x->v;
			__int128 den = (__int128)da - db;

			if (eq) {
				n = 1;
			} else if (num % den == 0) {
				__int128 kk = num / den;

				if (kk > 0 && kk < (__int128)n)
					n = (uint64_t)kk;
			}
		}
	}
	if (ra->role != rb->role)
		s->role = true;
	return n;
}

/*
 * Patterns (snapshot.h): where both images repeat a body of runs with the
 * same period from pos on, and every value moves by the same delta a
 * repetition in both (OBJ and pgmap numbers not at all: their pairing is
 * not a difference of values), each repetition's records differ from the
 * other image's exactly as the next one's do.  So after one repetition
 * compared chunk by chunk and found identical (nothing differing,
 * unreadable or uninitialised), the other repetitions both images share
 * are identical too.
 */
static bool rep_start(const struct side *sd, uint64_t pos, struct mmc_snapshot_pattern *p,
		      size_t *pi, uint64_t *rep)
{
	size_t lo = 0, hi = mmc_snapshot_range_npatterns(sd->s, sd->range);

	if (!hi)
		return false;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		mmc_snapshot_range_pattern(sd->s, sd->range, mid, p);
		if (p->start <= pos)
			lo = mid;
		else
			hi = mid;
	}
	mmc_snapshot_range_pattern(sd->s, sd->range, lo, p);
	if (pos < p->start || p->reps < 2 || !p->period || (pos - p->start) % p->period)
		return false;
	*rep = (pos - p->start) / p->period;
	*pi = lo;
	return *rep < p->reps;
}

static bool moves_alike(const struct side *A, size_t pa, const struct side *B, size_t pb,
			uint32_t nbody)
{
	for (uint32_t b = 0; b < nbody; b++) {
		struct mmc_nrec fa, fb, da, db;
		uint64_t ca, cb;

		mmc_snapshot_range_pattern_run(A->s, A->range, pa, b, &ca, &fa, NULL, &da);
		mmc_snapshot_range_pattern_run(B->s, B->range, pb, b, &cb, &fb, NULL, &db);
		if (ca != cb || fa.nslots != fb.nslots)
			return false;
		for (unsigned int k = 0; k < fa.nslots && k < MMC_MAX_SLOTS; k++) {
			bool numbered = fa.slot[k].cls == MMC_V_OBJ || fa.slot[k].cls == MMC_V_PGMAP ||
					fb.slot[k].cls == MMC_V_OBJ || fb.slot[k].cls == MMC_V_PGMAP;

			if (da.slot[k].v != db.slot[k].v || (numbered && da.slot[k].v))
				return false;
		}
	}
	return true;
}

/* Pages from pos on that one repetition's comparison stands for (0: none). */
static uint64_t alike_reps(const struct dctx *c, const struct side *A, const struct side *B,
			   uint64_t pos, uint64_t *period)
{
	struct mmc_snapshot_pattern pa, pb;
	size_t ia, ib;
	uint64_t ra, rb, left;

	if (c->per_page || !rep_start(A, pos, &pa, &ia, &ra) || !rep_start(B, pos, &pb, &ib, &rb) ||
	    pa.period != pb.period || pa.nbody != pb.nbody)
		return 0;
	left = pa.reps - ra < pb.reps - rb ? pa.reps - ra : pb.reps - rb;
	if (left < 2 || !moves_alike(A, ia, B, ib, pa.nbody))
		return 0;
	*period = pa.period;
	return (left - 1) * pa.period;
}

struct mmc_error *diff_pages(struct dctx *c, struct mmc_diff_range *dr, uint64_t lo, uint64_t hi,
			     const struct mmc_snapshot *a, size_t ia,
			     const struct mmc_snapshot *b, size_t ib)
{
	struct side *A = calloc(2, sizeof(*A)), *B;
	struct mmc_diff_result *res = c->res;
	uint64_t pos = lo;
	uint64_t skip = 0, probe_end = 0, period = 0, seen[5] = { 0 };
	struct mmc_nrec ra, rb;

	if (!A)
		return mmc_error_nomem();
	B = A + 1;
	A->s = a;
	A->range = ia;
	A->nruns = mmc_snapshot_range_nruns(a, ia);
	B->s = b;
	B->range = ib;
	B->nruns = mmc_snapshot_range_nruns(b, ib);
	A->start = B->start = UINT64_MAX;
	while (pos < hi && !c->oom) {
		uint64_t n, na, nb;
		bool ua, ub;
		struct sig s;

		if (pos == probe_end && skip) {
			/* claimed pages differ too: a repetition holding
			 * them stands for nothing but itself */
			if (dr->differing == seen[0] && dr->unreadable_a == seen[1] &&
			    dr->unreadable_b == seen[2] && dr->not_init == seen[3] &&
			    dr->claimed == seen[4]) {
				dr->compared += skip;
				res->pages_compared += skip;
				pos += skip;
			}
			skip = 0;
			continue;
		}
		if (!skip && (skip = alike_reps(c, A, B, pos, &period))) {
			/* a window (HugeTLB folios paired by pfn) may end
			 * inside the repetitions: skip no further than it */
			probe_end = pos + period;
			skip = probe_end < hi ? (skip < hi - probe_end ? skip : hi - probe_end) : 0;
			seen[0] = dr->differing;
			seen[1] = dr->unreadable_a;
			seen[2] = dr->unreadable_b;
			seen[3] = dr->not_init;
			seen[4] = dr->claimed;
		}

		if (!side_load(A, pos) || !side_load(B, pos)) {
			free(A);
			return mmc_error_create(MMC_ERR_INTERNAL, NULL,
						"diff: range [0x%llx, 0x%llx) has no record for pfn 0x%llx",
						(unsigned long long)lo, (unsigned long long)hi,
						(unsigned long long)pos);
		}
		na = A->start + A->count - pos;
		nb = B->start + B->count - pos;
		n = na < nb ? na : nb;
		mmc_nrec_run_at(&A->first, &A->stride, pos - A->start, &ra);
		mmc_nrec_run_at(&B->first, &B->stride, pos - B->start, &rb);
		ua = ra.state == MMC_PS_UNREADABLE || ra.state == MMC_PS_UNMAPPED;
		ub = rb.state == MMC_PS_UNREADABLE || rb.state == MMC_PS_UNMAPPED;
		if (ua || ub) {
			if (ua)
				dr->unreadable_a += n;
			if (ub)
				dr->unreadable_b += n;
			res->pages_unreadable += n;
			diff_close_groups(c);
			pos += n;
			continue;
		}
		if (ra.state == MMC_PS_NOT_INIT && rb.state == MMC_PS_NOT_INIT) {
			dr->not_init += n;
			res->pages_not_init += n;
			diff_close_groups(c);
			pos += n;
			continue;
		}
		memset(&s, 0, sizeof(s));
		if (ra.state != rb.state) {
			s.state = true;
			s.role = ra.role != rb.role;
		} else {
			s.tail = tail_of(c, pos, &ra);	/* names of split slots */
			n = compare_read(c, A, B, pos, &ra, &rb, n, &s);
		}
		if (diff_sig_any(&s)) {
			s.tail = tail_of(c, pos, &ra);
			n = tail_const(c, A, pos, &ra, n);
		}
		dr->compared += n;
		res->pages_compared += n;
		if (!diff_sig_any(&s)) {
			diff_close_groups(c);
			pos += n;
			continue;
		}
		if (c->claims)
			diff_claims_chunk(c, dr, &s, pos, n, A, B, &ra, &rb);
		else
			diff_note_differing(c, dr, &s, pos, n, A, B);
		pos += n;
	}
	free(A);
	return NULL;
}

/* One image's current vframe run, the one before it, and where the
 * first page mapping its frame is when its pages share one (by runs). */
struct vside {
	struct mmc_vshare_run prev, cur;
	bool have_prev, grouped;
	uint64_t base, gcount;
};

static void vside_next(const struct mmc_snapshot *s, size_t range, size_t j, struct vside *v)
{
	if (j) {
		v->prev = v->cur;
		v->have_prev = true;
	}
	mmc_vshare_load(s, range, j, &v->cur);
	v->grouped = mmc_vshare_group(v->have_prev ? &v->prev : NULL, &v->cur, &v->base,
				      &v->gcount);
}

/* How far back the first vmemmap page mapping page k's frame is. */
static uint64_t back_of(const struct mmc_vshare *fs, const struct vside *v, uint64_t k)
{
	if (fs->by_runs)
		return v->grouped ? k - v->base : 0;
	return k - fs->vs.first[k];
}

/* Vmemmap pages in [idx, idx + n) whose frame is shared with another
 * page of the range in one image and not the same way in the other: the
 * walker's share_back only looks within one compound page's period.  The
 * chunk lies in the current run of each image. */
static uint64_t share_differs(const struct mmc_vshare *fa, const struct vside *va,
			      const struct mmc_vshare *fb, const struct vside *vb,
			      uint64_t idx, uint64_t n)
{
	uint64_t d = 0, end = idx + n;

	if (end > fa->n)
		end = fa->n;
	if (end > fb->n)
		end = fb->n;
	if (idx >= end)
		return 0;
	if (fa->by_runs && fb->by_runs) {
		/* back is k - base in a grouped run, 0 elsewhere */
		if (va->grouped && vb->grouped)
			return va->base == vb->base ? 0 : end - idx;
		if (va->grouped || vb->grouped) {
			uint64_t s = va->grouped ? va->base : vb->base;

			return end - idx - (s >= idx && s < end ? 1 : 0);
		}
		return 0;
	}
	for (uint64_t k = idx; k < end; k++)
		d += back_of(fa, va, k) != back_of(fb, vb, k);
	return d;
}

static bool vframe_mapped(const struct mmc_vframe *vf)
{
	return vf->kind == MMC_VF_RAM || vf->kind == MMC_VF_DEVICE;
}

void diff_vframes(struct dctx *c, struct mmc_diff_range *dr,
		  const struct mmc_snapshot *a, size_t ia,
		  const struct mmc_snapshot *b, size_t ib)
{
	size_t nva = mmc_snapshot_range_nvframe_runs(a, ia);
	size_t nvb = mmc_snapshot_range_nvframe_runs(b, ib);
	uint64_t ta = mmc_snapshot_range_nvframes(a, ia);
	uint64_t tb = mmc_snapshot_range_nvframes(b, ib);
	uint64_t total = ta < tb ? ta : tb, idx = 0;
	size_t ja = 0, jb = 0;
	struct vside A, B;
	struct mmc_vshare va, vb;
	struct mmc_error *err;

	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
	err = mmc_vshare_build(a, ia, c->per_page, &va);
	if (!err) {
		err = mmc_vshare_build(b, ib, c->per_page, &vb);
		if (err)
			mmc_vshare_free(&va);
	}
	if (err) {
		mmc_error_destroy(err);
		c->oom = true;
		return;
	}
	while (idx < total) {
		const struct mmc_vframe *fa = &A.cur.first, *sa = &A.cur.stride;
		const struct mmc_vframe *fb = &B.cur.first, *sb = &B.cur.stride;
		uint64_t n, ka, kb, nf, uf, uw;
		int64_t sha, shb, dva, dvb;
		bool ura, urb, wdiff;

		while (idx >= A.cur.start + A.cur.count && ja < nva)
			vside_next(a, ia, ja++, &A);
		while (idx >= B.cur.start + B.cur.count && jb < nvb)
			vside_next(b, ib, jb++, &B);
		if (idx >= A.cur.start + A.cur.count || idx >= B.cur.start + B.cur.count)
			break;
		n = A.cur.start + A.cur.count - idx;
		if (B.cur.start + B.cur.count - idx < n)
			n = B.cur.start + B.cur.count - idx;
		ka = idx - A.cur.start;
		kb = idx - B.cur.start;
		ura = fa->kind == MMC_VF_UNREADABLE;
		urb = fb->kind == MMC_VF_UNREADABLE;
		if (ura || urb) {
			dr->vframes_unreadable += n;
			idx += n;
			continue;
		}
		sha = (int64_t)((uint64_t)fa->share_back + (uint64_t)sa->share_back * ka);
		shb = (int64_t)((uint64_t)fb->share_back + (uint64_t)sb->share_back * kb);
		dva = (int64_t)((uint64_t)fa->dev_off + (uint64_t)sa->dev_off * ka);
		dvb = (int64_t)((uint64_t)fb->dev_off + (uint64_t)sb->dev_off * kb);
		if (sa->share_back != sb->share_back || sa->dev_off != sb->dev_off)
			n = 1;
		if (c->claims)
			n = diff_claims_vclip(c, dr, idx, n);
		/* the writable bit (constant along a run), where both record it */
		wdiff = false;
		if (vframe_mapped(fa) && vframe_mapped(fb)) {
			if (fa->prot_known & fb->prot_known & MMC_VPROT_WRITABLE)
				wdiff = (fa->prot ^ fb->prot) & MMC_VPROT_WRITABLE;
			else
				dr->vprot_not_compared += n;
		}
		if (fa->kind != fb->kind || sha != shb || dva != dvb)
			nf = n;
		else
			nf = share_differs(&va, &A, &vb, &B, idx, n);
		if (c->claims) {
			diff_claims_vpages(c, dr, idx, n, nf, wdiff, fa->prot & MMC_VPROT_WRITABLE ? 1 : 0,
					   fb->prot & MMC_VPROT_WRITABLE ? 1 : 0);
			idx += n;
			continue;
		}
		uf = diff_note_vframes(c, dr, "vmemmap_frame", idx, n, nf);
		uw = wdiff ? diff_note_vframes(c, dr, "vmemmap_writable", idx, n, n) : 0;
		/* a vmemmap page whose frame and protection both differ is one
		 * differing vmemmap page, not two */
		dr->vframes_differing -= uf < uw ? uf : uw;
		idx += n;
	}
	mmc_vshare_free(&va);
	mmc_vshare_free(&vb);
	if (ta != tb) {
		uint64_t extra = ta > tb ? ta - tb : tb - ta;

		diff_note_vframes(c, dr, "vmemmap_frame", total, extra, extra);
	}
}

/* One image's vmemmap pages in a window of its range, read run by run. */
struct vwin {
	const struct mmc_snapshot *s;
	size_t range, nruns, run;
	uint64_t w0;			/* the window's first vmemmap page */
	struct mmc_vshare_run cur;
	bool loaded;
	/* first pages of frames shared with pages before the window: the
	 * page before it (root) and the first one in it */
	uint64_t *root, *first;
	size_t nroots, cap;
};

static bool vwin_at(struct vwin *w, uint64_t k, struct mmc_vframe *vf)
{
	while (!w->loaded || k >= w->cur.start + w->cur.count) {
		if (w->run >= w->nruns)
			return false;
		mmc_vshare_load(w->s, w->range, w->run++, &w->cur);
		w->loaded = true;
	}
	if (k < w->cur.start)
		return false;
	*vf = w->cur.first;
	vf->share_back = (int64_t)((uint64_t)w->cur.first.share_back +
				   (uint64_t)w->cur.stride.share_back * (k - w->cur.start));
	vf->dev_off = (int64_t)((uint64_t)w->cur.first.dev_off +
				(uint64_t)w->cur.stride.dev_off * (k - w->cur.start));
	return true;
}

/* The first page of the window that maps k's frame, relative to the
 * window: share_back counts back within the whole range, which reaches
 * before the window where a frame is shared across folios (7.x's tails,
 * mmc_rule_hvo_tails()). */
static bool vwin_first(struct vwin *w, uint64_t k, const struct mmc_vframe *vf, uint64_t *rel)
{
	uint64_t root = vf->share_back > 0 && (uint64_t)vf->share_back <= k ?
			k - (uint64_t)vf->share_back : k;

	if (root >= w->w0) {
		*rel = root - w->w0;
		return true;
	}
	for (size_t i = 0; i < w->nroots; i++)
		if (w->root[i] == root) {
			*rel = w->first[i] - w->w0;
			return true;
		}
	if (w->nroots == w->cap) {
		size_t ncap = w->cap ? 2 * w->cap : 8;
		uint64_t *r = realloc(w->root, ncap * sizeof(*r)), *f;

		if (!r)
			return false;
		w->root = r;
		f = realloc(w->first, ncap * sizeof(*f));
		if (!f)
			return false;
		w->first = f;
		w->cap = ncap;
	}
	w->root[w->nroots] = root;
	w->first[w->nroots++] = k;
	*rel = k - w->w0;
	return true;
}

void diff_vframes_window(struct dctx *c, struct mmc_diff_range *dr, uint64_t lo, uint64_t hi,
			 const struct mmc_snapshot *a, size_t ia,
			 const struct mmc_snapshot *b, size_t ib)
{
	const struct mmc_srange *ra = mmc_snapshot_range(a, ia), *rb = mmc_snapshot_range(b, ib);
	uint64_t sps = c->geom_a ? c->geom_a->struct_page_size : 0;
	uint64_t ps = c->geom_a ? c->geom_a->page_size : 0;
	struct vwin A = { .s = a, .range = ia, .nruns = mmc_snapshot_range_nvframe_runs(a, ia) };
	struct vwin B = { .s = b, .range = ib, .nruns = mmc_snapshot_range_nvframe_runs(b, ib) };
	uint64_t n, idx0;

	if (lo == ra->start_pfn && hi == ra->end_pfn && lo == rb->start_pfn && hi == rb->end_pfn &&
	    lo == dr->start_pfn) {
		diff_vframes(c, dr, a, ia, b, ib);
		return;
	}
	/* folios pair by pfn, so a window's struct pages start a vmemmap
	 * page on both sides (a folio of order >= 9 has a multiple of 4 KiB
	 * of them); anything else is not a window this compares */
	if (!sps || !ps || ((lo - ra->start_pfn) * sps) % ps || ((lo - rb->start_pfn) * sps) % ps ||
	    ((lo - dr->start_pfn) * sps) % ps || ((hi - lo) * sps) % ps) {
		dr->vframes_unreadable += ((hi - lo) * sps + ps - 1) / (ps ? ps : 1);
		return;
	}
	n = (hi - lo) * sps / ps;
	A.w0 = (lo - ra->start_pfn) * sps / ps;
	B.w0 = (lo - rb->start_pfn) * sps / ps;
	idx0 = (lo - dr->start_pfn) * sps / ps;
	for (uint64_t i = 0; i < n && !c->oom; i++) {
		struct mmc_vframe fa, fb;
		uint64_t nf = 0, rela = 0, relb = 0;
		bool wdiff = false;

		if (!vwin_at(&A, A.w0 + i, &fa) || !vwin_at(&B, B.w0 + i, &fb) ||
		    fa.kind == MMC_VF_UNREADABLE || fb.kind == MMC_VF_UNREADABLE) {
			dr->vframes_unreadable++;
			continue;
		}
		if (!vwin_first(&A, A.w0 + i, &fa, &rela) || !vwin_first(&B, B.w0 + i, &fb, &relb)) {
			c->oom = true;
			break;
		}
		if (vframe_mapped(&fa) && vframe_mapped(&fb)) {
			if (fa.prot_known & fb.prot_known & MMC_VPROT_WRITABLE)
				wdiff = (fa.prot ^ fb.prot) & MMC_VPROT_WRITABLE;
			else
				dr->vprot_not_compared++;
		}
		if (fa.kind != fb.kind || rela != relb ||
		    (fa.kind == MMC_VF_DEVICE &&
		     (uint64_t)fa.dev_off - (lo - ra->start_pfn) != (uint64_t)fb.dev_off - (lo - rb->start_pfn)))
			nf = 1;
		if (c->claims) {
			diff_claims_vpages(c, dr, idx0 + i, 1, nf, wdiff,
					   fa.prot & MMC_VPROT_WRITABLE ? 1 : 0,
					   fb.prot & MMC_VPROT_WRITABLE ? 1 : 0);
		} else {
			uint64_t uf = diff_note_vframes(c, dr, "vmemmap_frame", idx0 + i, 1, nf);
			uint64_t uw = wdiff ? diff_note_vframes(c, dr, "vmemmap_writable", idx0 + i, 1, 1) : 0;

			dr->vframes_differing -= uf < uw ? uf : uw;
		}
	}
	free(A.root);
	free(A.first);
	free(B.root);
	free(B.first);
}
