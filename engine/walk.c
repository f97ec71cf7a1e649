// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The windowed walker.  makedumpfile's __exclude_unnecessary_pages() is the
 * model: read hundreds of struct pages per read, decode from the buffer.
 * Physically contiguous vmemmap frames are read with one call; frames that
 * the kernel shares between the tails of a compound page are read once and
 * then served from a small cache.  Memory use does not grow with the range.
 *
 * This file is the consumer: it takes the planned and read windows in pfn
 * order (walk_pipe.c, whatever thread read them) and builds the snapshot,
 * so the snapshot does not depend on the thread count.  A struct page with
 * the same bytes as the one before it is not normalised again: the
 * snapshot counts it into the open run, a frame's worth at a time.
 */
#include "walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normalise.h"
#include "walk_int.h"

#define FRAME_CACHE	8

struct cached_frame {
	uint64_t paddr;
	bool valid;
	uint8_t *data;
};

/*
 * The record of the last pfn taken at each position within a vmemmap page:
 * a frame mapped again further on (HVO maps one frame for all of a HugeTLB
 * folio's tail vmemmap pages: head, page[1..] and tails again every 64
 * pfns) has the same bytes one vmemmap page back, and its pages' records
 * follow from those without normalising them again.
 */
struct back_rec {
	uint64_t pfn;
	bool valid;
	uint8_t bytes[8 * MMC_MAX_SLOTS];
	struct mmc_nrec rec;
};

struct walker {
	struct mmc_kernel *k;
	const struct mmc_discovery *d;
	struct mmc_norm *norm;
	struct mmc_snapshot *snap;
	const struct mmc_walk_opts *opts;
	struct mmc_walk_stats *st;
	uint32_t ps, sps;
	/* log2 of ps and sps when powers of two (x86: 4096, 64), else 0:
	 * the divisions per page are shifts then */
	unsigned int ps_log, sps_log;
	bool ps_whole;		/* ps % sps == 0: same_span() may compare */
	struct cached_frame cache[FRAME_CACHE];
	unsigned int cache_next;
	uint64_t total;
	/* the consumer's state within a range */
	uint8_t prev_bytes[8 * MMC_MAX_SLOTS];
	uint64_t prev_pfn, lag;
	bool have_prev;
	struct mmc_nrec rec;
	struct back_rec *back;	/* nback = struct pages per vmemmap page, or none */
	unsigned int nback;
	/*
	 * Frame repeats: kpp struct pages tile a vmemmap page exactly and
	 * records move (else 0).  The vmemmap page at mark_pfn, its frame
	 * mark_paddr and role mark_role, was marked in the snapshot: the
	 * next vmemmap page, if it maps the same frame, repeats its records.
	 */
	unsigned int kpp;
	bool marked;
	uint64_t mark_pfn, mark_paddr;
	uint8_t mark_role;
};

static const uint8_t *cache_find(struct walker *w, uint64_t paddr)
{
	unsigned int i;

	for (i = 0; i < FRAME_CACHE; i++)
		if (w->cache[i].valid && w->cache[i].paddr == paddr)
			return w->cache[i].data;
	return NULL;
}

static void cache_add(struct walker *w, uint64_t paddr, const uint8_t *data)
{
	struct cached_frame *c = &w->cache[w->cache_next];

	w->cache_next = (w->cache_next + 1) % FRAME_CACHE;
	memcpy(c->data, data, w->ps);
	c->paddr = paddr;
	c->valid = true;
}

/*
 * The frames a window shares with an earlier vmemmap page: from the window
 * (read by now), else from the cache, else read here (and cached), in
 * page order, as a sequential walk would.
 */
static struct mmc_error *fill_shared(struct walker *w, struct witem *it)
{
	struct mmc_error *err;
	unsigned int i, j;

	for (j = 0; j < it->nv; j++) {
		const uint8_t *src = NULL;

		if (it->vstate[j] != VS_OK || it->vshare[j] <= 0)
			continue;
		for (i = 0; i < j && !src; i++)
			if (it->vstate[i] == VS_OK && it->vpaddr[i] == it->vpaddr[j])
				src = it->buf + (size_t)i * w->ps;
		if (!src)
			src = cache_find(w, it->vpaddr[j]);
		if (src) {
			memcpy(it->buf + (size_t)j * w->ps, src, w->ps);
			continue;
		}
		err = mmc_wread_frames(w->k->mem, w->k->mem->priv, w->ps, it, j, 1);
		if (err)
			return err;
		if (it->vstate[j] == VS_OK)
			cache_add(w, it->vpaddr[j], it->buf + (size_t)j * w->ps);
	}
	return NULL;
}

/*
 * rec holds the previous pfn's record; make it this pfn's, for identical raw
 * bytes: exactly what mmc_norm_value() gives for the same values one pfn
 * further on.
 */
static void same_as_previous(struct mmc_nrec *rec, enum mmc_page_role role)
{
	unsigned int i;

	rec->state = MMC_PS_READ;
	rec->role = (uint8_t)role;
	for (i = 0; i < rec->nslots; i++) {
		struct mmc_nval *v = &rec->slot[i];

		if (v->cls == MMC_V_SELF) {
			v->cls = MMC_V_PAGE;
			v->v = -1;
		} else if (v->cls == MMC_V_PAGE && --v->v == 0) {
			v->cls = MMC_V_SELF;
		}
	}
}

/*
 * Bring rec forward over `lag` pfns the snapshot took by
 * mmc_snapshot_extend_same(): its run guarantees no self-pointers and no
 * page pointer reaching its own pfn within them.
 */
static void catch_up(struct mmc_nrec *rec, uint64_t lag)
{
	unsigned int i;

	if (!lag)
		return;
	for (i = 0; i < rec->nslots; i++)
		if (rec->slot[i].cls == MMC_V_PAGE)
			rec->slot[i].v -= (int64_t)lag;
}

static struct mmc_error *emit_vframe(struct walker *w, const struct mmc_srange *r,
				     const struct witem *it, unsigned int j)
{
	struct mmc_vframe vf = { 0 };
	uint64_t fpfn;

	switch (it->vstate[j]) {
	case VS_UNREADABLE:
		vf.kind = MMC_VF_UNREADABLE;
		vf.reason = it->vreason[j];
		break;
	case VS_UNMAPPED:
		vf.kind = MMC_VF_UNMAPPED;
		break;
	default:
		fpfn = it->vpaddr[j] / w->ps;
		vf.paddr = it->vpaddr[j];
		vf.share_back = it->vshare[j];
		vf.prot = it->vprot[j];
		vf.prot_known = MMC_VPROT_ALL;
		vf.leaf = it->vleaf[j];
		if (fpfn >= r->start_pfn && fpfn < r->end_pfn) {
			vf.kind = MMC_VF_DEVICE;
			vf.dev_off = (int64_t)(fpfn - r->start_pfn);
		} else {
			vf.kind = MMC_VF_RAM;
		}
	}
	return mmc_snapshot_append_vframe(w->snap, &vf);
}

/* A hole in the page tables: one run of pfns, one of vmemmap pages. */
static struct mmc_error *take_hole(struct walker *w, const struct witem *it)
{
	struct mmc_nrec zero = it->hole_rec;
	struct mmc_vframe vzero = { 0 };
	uint64_t n = it->pend - it->pfn;
	struct mmc_error *err;

	memset(zero.slot, 0, sizeof(zero.slot));
	err = mmc_snapshot_append_run(w->snap, &it->hole_rec, &zero, n);
	if (err)
		return err;
	if (it->hole_nv) {
		vzero.kind = it->hole_vf.kind;
		vzero.reason = it->hole_vf.reason;
		err = mmc_snapshot_append_vframe_run(w->snap, &it->hole_vf, &vzero,
						     it->hole_nv);
		if (err)
			return err;
		w->st->vmemmap_pages += it->hole_nv;
	}
	w->st->pages += n;
	if (it->hole_rec.state == MMC_PS_UNMAPPED)
		w->st->unmapped += n;
	else
		w->st->unreadable += n;
	w->have_prev = false;
	w->lag = 0;
	w->marked = false;
	return NULL;
}

static unsigned int log2_exact(uint32_t x)
{
	unsigned int l = 0;

	if (x < 2 || (x & (x - 1)))
		return 0;
	while ((1U << l) != x)
		l++;
	return l;
}

/* off / ps and off / sps, as shifts where they are powers of two */
static inline uint64_t div_ps(const struct walker *w, uint64_t off)
{
	return w->ps_log ? off >> w->ps_log : off / w->ps;
}

static inline uint64_t div_sps(const struct walker *w, uint64_t off)
{
	return w->sps_log ? off >> w->sps_log : off / w->sps;
}

/* The role of a struct page of role `role` on the window's readable
 * vmemmap page j: a device page on a frame that an earlier vmemmap page
 * maps too is a shared tail, which its own init did not write. */
static inline enum mmc_page_role frame_role(enum mmc_page_role role,
					    const struct witem *it, unsigned int j)
{
	return role == MMC_ROLE_DEVICE && it->vshare[j] > 0 ? MMC_ROLE_SHARED : role;
}

/* A record's used part: the slots past nslots stay zero in both. */
static void copy_rec(struct mmc_nrec *dst, const struct mmc_nrec *src)
{
	dst->state = src->state;
	dst->role = src->role;
	dst->nslots = src->nslots;
	dst->reason = src->reason;
	/* slot by slot: a short copy, which an inlined string move makes dear */
	for (unsigned int i = 0; i < src->nslots; i++)
		dst->slot[i] = src->slot[i];
}

/* The struct page of pfn, in a window whose frames are all there. */
static struct mmc_error *take_page(struct walker *w, const struct mmc_srange *r,
				   const struct witem *it, uint64_t pfn)
{
	uint64_t vb = w->k->geom.vmemmap_base, sps = w->sps;
	uint64_t off = vb + pfn * sps - it->wvpn * w->ps;
	unsigned int j0 = (unsigned int)div_ps(w, off);
	unsigned int j1 = (unsigned int)div_ps(w, off + sps - 1);
	enum mmc_page_role role = mmc_wpfn_role(r, pfn);
	unsigned int jb = it->vstate[j0] != VS_OK ? j0 : j1;
	enum vstate vs = it->vstate[jb];
	const uint8_t *bytes = it->buf + off;
	struct mmc_nrec *rec = &w->rec;

	if (vs == VS_OK)
		role = frame_role(role, it, j0);
	if (vs == VS_OK && w->have_prev && pfn == w->prev_pfn + 1 &&
	    !memcmp(w->prev_bytes, bytes, sps)) {
		/*
		 * Same bytes as the page before: the snapshot may take it
		 * without a record (rec then lags behind by `lag` pfns),
		 * else only what points into the vmemmap moves relative to
		 * this pfn.
		 */
		if (role == rec->role && rec->state == MMC_PS_READ &&
		    mmc_snapshot_extend_same(w->snap)) {
			w->lag++;
			w->prev_pfn = pfn;
			w->st->pages++;
			return NULL;
		}
		catch_up(rec, w->lag);
		w->lag = 0;
		same_as_previous(rec, role);
	} else if (vs == VS_OK) {
		const struct back_rec *b = w->nback ? &w->back[pfn % w->nback] : NULL;

		w->lag = 0;
		if (b && b->valid && b->pfn + w->nback == pfn && b->rec.role == role &&
		    !memcmp(b->bytes, bytes, sps)) {
			if (!mmc_norm_page_moved(w->norm, &b->rec, w->nback, rec))
				mmc_norm_page(w->norm, pfn, bytes, role, rec);
		} else {
			mmc_norm_page(w->norm, pfn, bytes, role, rec);
		}
		memcpy(w->prev_bytes, bytes, sps);
		w->have_prev = true;
	}
	w->prev_pfn = pfn;
	if (vs == VS_OK) {
		if (role == MMC_ROLE_RESERVE) {
			rec->state = MMC_PS_NOT_INIT;
			w->st->not_init++;
		} else if (w->nback) {
			struct back_rec *b = &w->back[pfn % w->nback];

			b->pfn = pfn;
			b->valid = true;
			memcpy(b->bytes, bytes, sps);
			copy_rec(&b->rec, rec);
		}
	} else {
		w->have_prev = false;
		w->lag = 0;
		memset(rec, 0, sizeof(*rec));
		rec->nslots = (uint8_t)(sps / 8);
		rec->role = (uint8_t)role;
		rec->state = vs == VS_UNMAPPED ? MMC_PS_UNMAPPED : MMC_PS_UNREADABLE;
		rec->reason = vs == VS_UNMAPPED ? MMC_UR_NONE : it->vreason[jb];
		if (vs == VS_UNMAPPED)
			w->st->unmapped++;
		else
			w->st->unreadable++;
	}
	w->st->pages++;
	return mmc_snapshot_append(w->snap, rec);
}

/*
 * How many pfns from pfn on are more of the same for take_page() (its
 * first case, which the snapshot may take without a record): the page
 * before was read, its record is READ, and these pfns have its role,
 * readable frames and the same bytes as the page before each.  Compared
 * a frame at a time (pages of a frame against the same bytes one struct
 * page further back), not a page at a time.  0: take_page() decides.
 */
static uint64_t same_span(struct walker *w, const struct mmc_srange *r,
			  const struct witem *it, uint64_t pfn)
{
	uint64_t vb = w->k->geom.vmemmap_base, sps = w->sps, ps = w->ps;
	uint64_t base = it->wvpn * ps, end, q;
	enum mmc_page_role role;
	unsigned int whole = UINT32_MAX;	/* the last frame found uniform */

	/* the frame's bytes are only there when it was read */
	if (!w->have_prev || pfn != w->prev_pfn + 1 || w->rec.state != MMC_PS_READ ||
	    !w->ps_whole || it->vstate[div_ps(w, vb + pfn * sps - base)] != VS_OK ||
	    memcmp(w->prev_bytes, it->buf + (vb + pfn * sps - base), sps))
		return 0;
	role = mmc_wpfn_role(r, pfn);
	end = mmc_wrole_end(r, pfn);
	if (end > it->pend)
		end = it->pend;
	for (q = pfn; q < end;) {
		uint64_t off = vb + q * sps - base;
		unsigned int j = (unsigned int)div_ps(w, off);
		uint64_t ffirst = div_sps(w, base + (uint64_t)j * ps - vb);
		uint64_t fend = ffirst + div_sps(w, ps);
		uint64_t s = q == pfn ? q + 1 : q;
		enum mmc_page_role fr;
		bool all = q == ffirst && fend <= end;

		if (it->vstate[j] != VS_OK)
			break;
		fr = frame_role(role, it, j);
		if (fr != w->rec.role)
			break;
		if (fend > end)
			fend = end;
		/*
		 * The frame before was all one struct page, repeated, and
		 * this vmemmap page maps the same frame (the kernel's shared
		 * tails): its pages are that one too, nothing to compare.
		 */
		if (j && whole == j - 1 && it->vpaddr[j] == it->vpaddr[j - 1]) {
			whole = all ? j : UINT32_MAX;
			q = fend;
			continue;
		}
		if (fend > s) {
			const uint8_t *a = it->buf + (vb + s * sps - base);

			if (memcmp(a, a - sps, (fend - s) * sps)) {
				/* the first page that differs ends the span */
				while (!memcmp(a, a - sps, sps)) {
					a += sps;
					s++;
				}
				return s - pfn;
			}
		}
		whole = all ? j : UINT32_MAX;
		q = fend;
	}
	return q - pfn;
}

static bool move_run(void *arg, uint64_t pfn, const struct mmc_nrec *first,
		     const struct mmc_nrec *stride, uint64_t count, int64_t by,
		     struct mmc_nrec *out)
{
	return mmc_norm_run_moved(arg, pfn, first, stride, count, by, out);
}

/*
 * pfn starts a vmemmap page.  If it maps the frame of the marked vmemmap
 * page just before it (the page tables' frame address, not the bytes),
 * with the same role for every pfn of both, its struct pages are the
 * marked page's bytes kpp pfns on, and mmc_norm_page_moved() says what
 * their records are: the snapshot takes them as the marked page's runs
 * moved (*taken).  Else mark it when the next vmemmap page may map its
 * frame again.
 */
static struct mmc_error *frame_repeat(struct walker *w, const struct mmc_srange *r,
				      const struct witem *it, uint64_t pfn, bool *taken)
{
	uint64_t off = w->k->geom.vmemmap_base + pfn * w->sps - it->wvpn * w->ps;
	uint64_t k = w->kpp;
	enum mmc_page_role base, role;
	struct mmc_error *err = NULL;
	unsigned int j;

	*taken = false;
	if (off & (w->ps - 1))
		return NULL;
	j = (unsigned int)div_ps(w, off);
	if (pfn + k > it->pend || it->vstate[j] != VS_OK) {
		w->marked = false;
		return NULL;
	}
	base = mmc_wpfn_role(r, pfn);
	role = frame_role(base, it, j);
	if (w->marked && w->mark_pfn + k == pfn && w->mark_paddr == it->vpaddr[j] &&
	    w->mark_role == role && mmc_wrole_end(r, w->mark_pfn) >= pfn + k) {
		err = mmc_snapshot_repeat_moved(w->snap, k, move_run, w->norm, taken);
		if (err || !*taken)
			goto mark;
		/* rec (lag pfns behind) was pfn - 1's: pfn + k - 1 has its bytes */
		catch_up(&w->rec, w->lag);
		w->lag = 0;
		if (!w->have_prev || w->prev_pfn + 1 != pfn ||
		    !mmc_norm_page_move(w->norm, &w->rec, (int64_t)k))
			w->have_prev = false;
		w->prev_pfn = pfn + k - 1;
		w->mark_pfn = pfn;
		w->st->pages += k;
		w->st->frame_repeats++;
		return NULL;
	}
mark:
	if (err)
		return err;
	w->marked = base != MMC_ROLE_RESERVE &&
		    (it->vshare[j] > 0 ||
		     (j + 1 < it->nv && it->vstate[j + 1] == VS_OK &&
		      it->vpaddr[j + 1] == it->vpaddr[j]));
	if (w->marked) {
		mmc_snapshot_mark(w->snap);
		w->mark_pfn = pfn;
		w->mark_paddr = it->vpaddr[j];
		w->mark_role = (uint8_t)role;
	}
	return NULL;
}

static struct mmc_error *take_window(struct walker *w, const struct mmc_srange *r,
				     struct witem *it)
{
	struct mmc_error *err;
	uint64_t pfn;
	unsigned int j;

	w->st->reads += it->reads;
	w->st->bytes_read += it->bytes_read;
	w->st->frames_read += it->frames_read;
	err = fill_shared(w, it);
	if (err)
		return err;
	for (j = it->emit_from; j < it->nv; j++) {
		err = emit_vframe(w, r, it, j);
		if (err)
			return err;
		w->st->vmemmap_pages++;
	}
	for (pfn = it->pfn; pfn < it->pend;) {
		uint64_t n, taken;

		if (w->kpp) {
			bool repeated;

			err = frame_repeat(w, r, it, pfn, &repeated);
			if (err)
				return err;
			if (repeated) {
				pfn += w->kpp;
				continue;
			}
		}
		n = same_span(w, r, it, pfn);
		taken = n ? mmc_snapshot_extend_same_n(w->snap, n) : 0;
		if (taken) {
			w->lag += taken;
			w->prev_pfn = pfn + taken - 1;
			w->st->pages += taken;
			pfn += taken;
			continue;
		}
		err = take_page(w, r, it, pfn++);
		if (err)
			return err;
	}
	if (w->opts && w->opts->progress)
		w->opts->progress(w->opts->progress_arg, w->st->pages, w->total);
	if (w->opts && w->opts->cancel && w->opts->cancel(w->opts->cancel_arg))
		return mmc_error_create(MMC_ERR_INTERRUPTED, NULL,
					"interrupted after %llu of %llu struct pages",
					(unsigned long long)w->st->pages,
					(unsigned long long)w->total);
	return NULL;
}

/* One item, in order; errors found while planning or reading are taken
 * from the item (so the pipe does not free them). */
static struct mmc_error *take_item(struct walker *w, struct witem *it)
{
	const struct mmc_srange *r = &w->d->ranges[it->range];
	struct mmc_error *err;

	if (it->range_first) {
		w->have_prev = false;
		w->lag = 0;
		w->prev_pfn = 0;
		w->marked = false;
		err = mmc_snapshot_begin_range(w->snap, r);
		if (err)
			return err;
	}
	if (it->err || it->read_err) {
		err = it->err ? it->err : it->read_err;
		if (it->err)
			it->err = NULL;
		else
			it->read_err = NULL;
		return err;
	}
	switch (it->kind) {
	case WI_HOLE:
		err = take_hole(w, it);
		break;
	case WI_WINDOW:
		err = take_window(w, r, it);
		break;
	default:
		err = NULL;
	}
	if (!err && it->range_last)
		err = mmc_snapshot_end_range(w->snap);
	return err;
}

static struct mmc_error *walk_ranges(struct walker *w, unsigned int threads)
{
	struct wpipe *pipe = NULL;
	struct mmc_error *err;
	struct witem *it;
	struct wplan plan;

	err = mmc_wplan_init(&plan, w->k, w->d);
	if (!err)
		err = mmc_wpipe_create(w->k->mem, w->ps, threads, &plan, &pipe);
	while (!err && (it = mmc_wpipe_next(pipe)))
		err = take_item(w, it);
	mmc_wpipe_destroy(pipe);
	mmc_wplan_fini(&plan);
	return err;
}

/* What the snapshot must say besides the pages: discovery's problem and
 * the memory source's damage notes. */
static struct mmc_error *add_status(struct walker *w, const struct mmc_discovery *d)
{
	const struct mmc_mem *mem = w->k->mem;
	struct mmc_error *err = NULL;
	size_t i;

	if (d->problem) {
		char text[MMC_SNAPSHOT_TEXT_MAX];

		if (d->nproblems > 1)
			snprintf(text, sizeof(text), "%s (and %zu more problems)",
				 d->problem->message, d->nproblems - 1);
		else
			snprintf(text, sizeof(text), "%s", d->problem->message);
		mmc_snapshot_set_discovery_problem(w->snap, text,
						   d->problem->has_address,
						   d->problem->address);
	}
	else if (w->k->identity_unchecked)
		/* nothing proved the layout is this kernel's: not complete */
		mmc_snapshot_set_discovery_problem(w->snap, w->k->identity_unchecked,
						   false, 0);
	for (i = 0; !err && i < mem->nnotes; i++)
		err = mmc_snapshot_add_note(w->snap, mem->notes[i]);
	return err;
}

static struct mmc_error *add_dax(struct walker *w, const struct mmc_discovery *d)
{
	return mmc_snapshot_set_dax(w->snap, d->dax_state, d->dax_why, d->dax, d->ndax);
}

static struct mmc_error *add_hugetlb(struct walker *w, const struct mmc_discovery *d)
{
	return mmc_snapshot_set_hugetlb(w->snap, d->huge_state, d->huge_why,
					d->hstates, d->nhstates,
					d->folio_spans, d->nfolio_spans);
}

static struct mmc_error *add_hotplug(struct walker *w, const struct mmc_discovery *d)
{
	return mmc_snapshot_set_hotplug(w->snap, d->plug_state, d->plug_why,
					d->blocks, d->nblocks);
}

static struct mmc_error *add_pgmaps(struct walker *w, const struct mmc_discovery *d)
{
	struct mmc_error *err;
	size_t i;

	for (i = 0; i < d->npgmaps; i++) {
		struct mmc_spgmap p = d->pgmaps[i].info;

		/* owner/ops first, so the object numbering starts the same way */
		p.owner = mmc_norm_value(w->norm, 0, d->pgmaps[i].owner_raw);
		p.ops = mmc_norm_value(w->norm, 0, d->pgmaps[i].ops_raw);
		err = mmc_snapshot_add_pgmap(w->snap, &p);
		if (err)
			return err;
	}
	return NULL;
}

/* The thread count asked for: opts, else MEMMAPCHECK_THREADS, else the
 * online CPUs (walk_pipe.c); 1 when the memory source has one reader. */
static unsigned int walk_threads(const struct mmc_walk_opts *opts)
{
	const char *env = getenv("MEMMAPCHECK_THREADS");
	char *end = NULL;
	unsigned long n;

	if (opts && opts->threads)
		return opts->threads;
	if (env && *env) {
		n = strtoul(env, &end, 10);
		if (end && !*end && n >= 1 && n <= 64)
			return (unsigned int)n;
	}
	return mmc_walk_default_threads();
}

struct mmc_error *mmc_walk(struct mmc_kernel *k, const struct mmc_discovery *d,
			   const struct mmc_walk_opts *opts,
			   struct mmc_snapshot **out, struct mmc_walk_stats *stats)
{
	struct mmc_discovery *own = NULL;
	struct mmc_walk_stats local = { 0 };
	struct walker w = { .k = k, .opts = opts };
	struct mmc_error *err;
	uint64_t *kaddrs = NULL;
	size_t i;
	bool tiles;

	*out = NULL;
	w.st = stats ? stats : &local;
	memset(w.st, 0, sizeof(*w.st));
	w.ps = k->geom.page_size;
	w.sps = k->geom.struct_page_size;
	w.ps_log = log2_exact(w.ps);
	w.sps_log = log2_exact(w.sps);
	w.ps_whole = w.sps && w.ps % w.sps == 0;
	if (!d) {
		err = mmc_discover(k, &own);
		if (err)
			return err;
		d = own;
	}
	w.d = d;
	kaddrs = calloc(d->npgmaps ? d->npgmaps : 1, sizeof(*kaddrs));
	if (!kaddrs) {
		err = mmc_error_nomem();
		goto out;
	}
	for (i = 0; i < FRAME_CACHE; i++) {
		w.cache[i].data = malloc(w.ps);
		if (!w.cache[i].data) {
			err = mmc_error_nomem();
			goto out;
		}
	}
	for (i = 0; i < d->npgmaps; i++)
		kaddrs[i] = d->pgmaps[i].info.kaddr;
	err = mmc_norm_create(k->layout, &k->geom, kaddrs, d->npgmaps, &w.norm);
	if (!err)
		err = mmc_norm_set_ranges(w.norm, d->ranges, d->nranges);
	if (err)
		goto out;
	tiles = w.sps && w.sps <= 8 * MMC_MAX_SLOTS && w.ps % w.sps == 0;
	/* frame repeats move whole runs, which 7.x's mm ids allow where no
	 * page[1] moves (mmc_norm_run_moved()) */
	if (tiles && !(opts && opts->no_frame_repeats))
		w.kpp = w.ps / w.sps;
	/* without moves, keeping records back is only a cost */
	if (tiles && mmc_norm_can_move(w.norm)) {
		w.nback = w.ps / w.sps;
		w.back = calloc(w.nback, sizeof(*w.back));
		if (!w.back) {
			err = mmc_error_nomem();
			goto out;
		}
	}
	err = mmc_snapshot_create(k->layout, &k->geom, k->dump_path,
				  opts && opts->created_by ? opts->created_by :
							     "memmapcheck",
				  &w.snap);
	if (!err && opts && opts->created)
		err = opts->created(opts->created_arg, w.snap);
	if (err)
		goto out;
	err = add_status(&w, d);
	if (!err)
		err = add_pgmaps(&w, d);
	if (!err)
		err = add_dax(&w, d);
	if (!err)
		err = add_hugetlb(&w, d);
	if (!err)
		err = add_hotplug(&w, d);
	for (i = 0; !err && i < d->nranges; i++)
		w.total += d->ranges[i].end_pfn - d->ranges[i].start_pfn;
	if (!err)
		err = walk_ranges(&w, walk_threads(opts));
	if (!err) {
		*out = w.snap;
		w.snap = NULL;
	}
out:
	if (w.snap)
		mmc_snapshot_destroy(w.snap);
	if (w.norm)
		mmc_norm_destroy(w.norm);
	for (i = 0; i < FRAME_CACHE; i++)
		free(w.cache[i].data);
	free(w.back);
	free(kaddrs);
	mmc_discovery_destroy(own);
	return err;
}
