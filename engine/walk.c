// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The windowed walker.  makedumpfile's __exclude_unnecessary_pages() is the
 * model: read hundreds of struct pages per read, decode from the buffer.
 * Physically contiguous vmemmap frames are read with one call; frames that
 * the kernel shares between the tails of a compound page are read once and
 * then served from a small cache.  Memory use does not grow with the range.
 */
#include "walk.h"

#include <stdlib.h>
#include <string.h>

#include "normalise.h"

#define WIN_VPAGES	64	/* vmemmap pages per window: 256 KiB, 4096 struct pages */
#define FRAME_CACHE	8
#define SHARE_SLOTS	16384	/* power of two; > vmemmap pages of a 1 GiB compound */
#define SHARE_PERIOD	4096	/* reset period (vmemmap pages) for order-0 pgmaps */

enum vstate { VS_OK, VS_UNREADABLE, VS_UNMAPPED };

struct share_slot {
	uint64_t paddr;
	uint64_t gen;
	uint64_t first;		/* vmemmap page index (relative to range) */
};

struct cached_frame {
	uint64_t paddr;
	bool valid;
	uint8_t *data;
};

struct walker {
	struct mmc_kernel *k;
	struct mmc_norm *norm;
	struct mmc_snapshot *snap;
	const struct mmc_walk_opts *opts;
	struct mmc_walk_stats *st;
	uint32_t ps, sps;
	uint8_t *win;
	uint8_t vstate[WIN_VPAGES + 1];
	uint64_t vpaddr[WIN_VPAGES + 1];
	int64_t vshare[WIN_VPAGES + 1];
	struct share_slot *share;
	uint64_t share_gen;
	struct cached_frame cache[FRAME_CACHE];
	unsigned int cache_next;
	uint64_t total;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Index of the first vmemmap page (since the last reset) mapping paddr. */
static uint64_t share_lookup(struct walker *w, uint64_t paddr, uint64_t index)
{
	uint64_t h = hash64(paddr) & (SHARE_SLOTS - 1);
	unsigned int probes;

	for (probes = 0; probes < SHARE_SLOTS; probes++) {
		struct share_slot *s = &w->share[h];

		if (s->gen != w->share_gen) {
			s->gen = w->share_gen;
			s->paddr = paddr;
			s->first = index;
			return index;
		}
		if (s->paddr == paddr)
			return s->first;
		h = (h + 1) & (SHARE_SLOTS - 1);
	}
	/* full: start over rather than probe forever */
	w->share_gen++;
	return share_lookup(w, paddr, index);
}

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

/* Read n physically contiguous frames; pages the dump lacks are marked. */
static struct mmc_error *read_frames(struct walker *w, unsigned int j0,
				     unsigned int n)
{
	struct mmc_mem *mem = w->k->mem;
	uint64_t len = (uint64_t)n * w->ps, off = 0;
	uint64_t paddr = w->vpaddr[j0];
	uint8_t *dst = w->win + (size_t)j0 * w->ps;

	while (off < len) {
		size_t got = 0;
		struct mmc_error *err;
		uint64_t bad;

		err = mem->ops->read(mem->priv, MMC_PHYSADDR, paddr + off,
				     dst + off, len - off, &got);
		w->st->reads++;
		w->st->bytes_read += got;
		if (!err)
			break;
		if (err->code != MMC_ERR_NODATA)
			return err;
		mmc_error_destroy(err);
		bad = (off + got) / w->ps;
		w->vstate[j0 + bad] = VS_UNREADABLE;
		off = (bad + 1) * w->ps;
	}
	w->st->frames_read += n;
	return NULL;
}

/* Translate and read the vmemmap pages [vpn, vpn + nv) of one window. */
static struct mmc_error *fill_window(struct walker *w, uint64_t vpn,
				     unsigned int nv, uint64_t range_vfirst,
				     uint64_t share_period)
{
	struct mmc_error *err;
	unsigned int j, run;

	for (j = 0; j < nv; j++) {
		uint64_t vaddr = (vpn + j) * w->ps, paddr = 0, size = 0;
		uint64_t rel = vpn + j - range_vfirst;
		bool mapped = false;

		w->vshare[j] = 0;
		err = mmc_pgtable_translate(w->k->pgt, vaddr, &mapped, &paddr, &size);
		if (err) {
			if (err->code != MMC_ERR_NODATA)
				return mmc_error_prefix(err, "translating vmemmap 0x%llx",
							(unsigned long long)vaddr);
			mmc_error_destroy(err);
			w->vstate[j] = VS_UNREADABLE;
			continue;
		}
		if (!mapped) {
			w->vstate[j] = VS_UNMAPPED;
			continue;
		}
		w->vstate[j] = VS_OK;
		w->vpaddr[j] = paddr & ~(uint64_t)(w->ps - 1);
		if (rel % share_period == 0)
			w->share_gen++;
		w->vshare[j] = (int64_t)(rel - share_lookup(w, w->vpaddr[j], rel));
	}
	/* read: shared frames from the window or the cache, the rest in runs */
	for (j = 0; j < nv; j += run) {
		const uint8_t *src = NULL;
		unsigned int i;

		run = 1;
		if (w->vstate[j] != VS_OK)
			continue;
		if (w->vshare[j] > 0) {
			for (i = 0; i < j && !src; i++)
				if (w->vstate[i] == VS_OK && w->vpaddr[i] == w->vpaddr[j])
					src = w->win + (size_t)i * w->ps;
			if (!src)
				src = cache_find(w, w->vpaddr[j]);
			if (src) {
				memcpy(w->win + (size_t)j * w->ps, src, w->ps);
				continue;
			}
			err = read_frames(w, j, 1);
			if (err)
				return err;
			if (w->vstate[j] == VS_OK)
				cache_add(w, w->vpaddr[j], w->win + (size_t)j * w->ps);
			continue;
		}
		while (j + run < nv && w->vstate[j + run] == VS_OK &&
		       w->vshare[j + run] == 0 &&
		       w->vpaddr[j + run] == w->vpaddr[j] + (uint64_t)run * w->ps)
			run++;
		err = read_frames(w, j, run);
		if (err)
			return err;
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

static enum mmc_page_role pfn_role(const struct mmc_srange *r, uint64_t pfn)
{
	if (pfn >= r->reserve_start && pfn < r->reserve_end)
		return MMC_ROLE_RESERVE;
	if (pfn >= r->altmap_start && pfn < r->altmap_end)
		return MMC_ROLE_ALTMAP;
	return MMC_ROLE_DEVICE;
}

static struct mmc_error *emit_vframe(struct walker *w, const struct mmc_srange *r,
				     unsigned int j)
{
	struct mmc_vframe vf = { 0 };
	uint64_t fpfn;

	switch (w->vstate[j]) {
	case VS_UNREADABLE:
		vf.kind = MMC_VF_UNREADABLE;
		break;
	case VS_UNMAPPED:
		vf.kind = MMC_VF_UNMAPPED;
		break;
	default:
		fpfn = w->vpaddr[j] / w->ps;
		vf.paddr = w->vpaddr[j];
		vf.share_back = w->vshare[j];
		if (fpfn >= r->start_pfn && fpfn < r->end_pfn) {
			vf.kind = MMC_VF_DEVICE;
			vf.dev_off = (int64_t)(fpfn - r->start_pfn);
		} else {
			vf.kind = MMC_VF_RAM;
		}
	}
	return mmc_snapshot_append_vframe(w->snap, &vf);
}

static struct mmc_error *walk_range(struct walker *w, const struct mmc_srange *r,
				    uint32_t vmemmap_shift)
{
	uint64_t vb = w->k->geom.vmemmap_base, ps = w->ps, sps = w->sps;
	uint64_t vfirst = (vb + r->start_pfn * sps) / ps;
	uint64_t next_vframe = vfirst;
	uint64_t share_period = ((1ULL << vmemmap_shift) * sps) / ps;
	uint64_t pfn = r->start_pfn, prev_pfn = 0;
	uint8_t prev_bytes[8 * MMC_MAX_SLOTS];
	uint64_t lag = 0;
	bool have_prev = false;
	struct mmc_error *err;
	struct mmc_nrec rec;

	if (vmemmap_shift == 0 || share_period == 0)
		share_period = SHARE_PERIOD;
	w->share_gen++;
	err = mmc_snapshot_begin_range(w->snap, r);
	if (err)
		return err;
	while (pfn < r->end_pfn) {
		uint64_t wvpn = (vb + pfn * sps) / ps;
		uint64_t wend = (wvpn + WIN_VPAGES) * ps;
		uint64_t pend = (wend - vb) / sps;
		unsigned int nv, j;

		if (pend > r->end_pfn)
			pend = r->end_pfn;
		if (pend <= pfn)
			return mmc_error_create(MMC_ERR_INTERNAL, NULL,
						"struct page larger than the walk window");
		nv = (unsigned int)((vb + pend * sps - 1) / ps - wvpn + 1);
		err = fill_window(w, wvpn, nv, vfirst, share_period);
		if (err)
			return err;
		for (j = 0; j < nv; j++) {
			if (wvpn + j < next_vframe)
				continue;
			err = emit_vframe(w, r, j);
			if (err)
				return err;
			next_vframe = wvpn + j + 1;
			w->st->vmemmap_pages++;
		}
		for (; pfn < pend; pfn++) {
			uint64_t off = vb + pfn * sps - wvpn * ps;
			unsigned int j0 = (unsigned int)(off / ps);
			unsigned int j1 = (unsigned int)((off + sps - 1) / ps);
			enum mmc_page_role role = pfn_role(r, pfn);
			enum vstate vs = w->vstate[j0] != VS_OK ? w->vstate[j0] : w->vstate[j1];

			if (vs == VS_OK && w->vshare[j0] > 0 && role == MMC_ROLE_DEVICE)
				role = MMC_ROLE_SHARED;
			if (vs == VS_OK && have_prev && pfn == prev_pfn + 1 &&
			    !memcmp(prev_bytes, w->win + off, sps)) {
				/*
				 * Same bytes as the page before: the snapshot may
				 * take it without a record (rec then lags behind by
				 * `lag` pfns), else only what points into the
				 * vmemmap moves relative to this pfn.
				 */
				if (role == rec.role && rec.state == MMC_PS_READ &&
				    mmc_snapshot_extend_same(w->snap)) {
					lag++;
					prev_pfn = pfn;
					w->st->pages++;
					continue;
				}
				catch_up(&rec, lag);
				lag = 0;
				same_as_previous(&rec, role);
			} else if (vs == VS_OK) {
				lag = 0;
				mmc_norm_page(w->norm, pfn, w->win + off, role, &rec);
				memcpy(prev_bytes, w->win + off, sps);
				have_prev = true;
			}
			prev_pfn = pfn;
			if (vs == VS_OK) {
				if (role == MMC_ROLE_RESERVE) {
					rec.state = MMC_PS_NOT_INIT;
					w->st->not_init++;
				}
			} else {
				have_prev = false;
				lag = 0;
				memset(&rec, 0, sizeof(rec));
				rec.nslots = (uint8_t)(sps / 8);
				rec.role = (uint8_t)role;
				rec.state = vs == VS_UNMAPPED ? MMC_PS_UNMAPPED :
								MMC_PS_UNREADABLE;
				if (vs == VS_UNMAPPED)
					w->st->unmapped++;
				else
					w->st->unreadable++;
			}
			err = mmc_snapshot_append(w->snap, &rec);
			if (err)
				return err;
			w->st->pages++;
		}
		if (w->opts && w->opts->progress)
			w->opts->progress(w->opts->progress_arg, w->st->pages, w->total);
	}
	return mmc_snapshot_end_range(w->snap);
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

	*out = NULL;
	w.st = stats ? stats : &local;
	memset(w.st, 0, sizeof(*w.st));
	w.ps = k->geom.page_size;
	w.sps = k->geom.struct_page_size;
	if (!d) {
		err = mmc_discover(k, &own);
		if (err)
			return err;
		d = own;
	}
	w.win = malloc((size_t)(WIN_VPAGES + 1) * w.ps);
	w.share = calloc(SHARE_SLOTS, sizeof(*w.share));
	kaddrs = calloc(d->npgmaps ? d->npgmaps : 1, sizeof(*kaddrs));
	if (!w.win || !w.share || !kaddrs) {
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
	if (err)
		goto out;
	err = mmc_snapshot_create(k->layout, &k->geom, k->dump_path,
				  opts && opts->created_by ? opts->created_by :
							     "memmapcheck",
				  &w.snap);
	if (err)
		goto out;
	err = add_pgmaps(&w, d);
	for (i = 0; !err && i < d->nranges; i++)
		w.total += d->ranges[i].end_pfn - d->ranges[i].start_pfn;
	for (i = 0; !err && i < d->nranges; i++)
		err = walk_range(&w, &d->ranges[i],
				 d->pgmaps[d->ranges[i].pgmap_index].info.vmemmap_shift);
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
	free(w.share);
	free(w.win);
	free(kaddrs);
	mmc_discovery_destroy(own);
	return err;
}
