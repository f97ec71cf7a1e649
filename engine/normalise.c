// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Normaliser: raw struct page bytes -> struct mmc_nrec.
 *
 * Every slot of a struct page is kept.  A slot is either one of the integer
 * slots (flags, _mapcount/_refcount), compared verbatim, or treated as a
 * possible pointer and classified by where it points: NULL, its own struct
 * page (SELF), another struct page (PAGE: pfn delta + byte offset), a
 * dev_pagemap of the image (PGMAP: index + offset), a poison value (POISON),
 * another kernel object (OBJ: numbered by first appearance in this image), or
 * nothing the kernel maps (RAW).  None of these depend on where the kernel
 * happened to put things in one boot, and none of them merges two different
 * pointer structures into one value.
 *
 * compound_head / compound_info of a tail page
 * --------------------------------------------
 * Up to 7.x the tail stores head + 1; it lies in the vmemmap, so it becomes
 * PAGE(v = head pfn - own pfn, off = 1) like any other struct page pointer.
 *
 * Since "mm: rework compound_head() for power-of-2 sizeof(struct page)"
 * (7.x), a kernel with CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP and a power-of-2
 * struct page stores instead a mask (compound_info_has_mask()):
 *
 *	set_compound_head(): info = GENMASK(63, order + log2(sizeof(page))) | 1
 *	_compound_head():    head = (unsigned long)page & info
 *
 * That value is the same in every boot (it depends only on the order and
 * sizeof(struct page)), so it is kept as MMC_V_RAW: two boots compare equal,
 * a pointer-encoded tail and a mask-encoded tail compare unequal (a real
 * change of state), and the head pfn is recovered from the raw mask, the
 * pfn and geom->vmemmap_base (mmc_compound_info_head_pfn() in rules.c).  The mask is recognised only in the compound_head slot and
 * only before the generic classification, because for large orders its value
 * (e.g. 0xfffffffffe000001) falls inside the module range and would
 * otherwise be numbered as an object.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mmc_util.h"
#include "normalise.h"

struct mmc_obj_entry {
	uint64_t raw;
	uint32_t number;
	bool used;
};

struct mmc_norm {
	const struct mmc_layout *layout;
	struct mmc_geom geom;
	uint64_t *pgmap_kaddrs;
	size_t npgmaps;
	/* the walked ZONE_DEVICE ranges, sorted, [start, end) pfns; none set:
	 * every vmemmap pointer is a page delta */
	uint64_t (*ranges)[2];
	size_t nranges;
	uint64_t pgmap_size;
	unsigned int nslots;
	bool raw_slot[MMC_MAX_SLOTS];
	bool have_compound_slot;
	unsigned int compound_slot;
	/* page[1]'s _mm_ids (7.x): ids of the mms mapping the folio */
	bool have_mmids_slot;
	unsigned int mmids_slot;
	/* first-appearance numbering of OBJ pointers: open addressing */
	struct mmc_obj_entry *objs;
	size_t obj_cap;		/* power of 2 */
	size_t obj_count;
	bool obj_failed;	/* the table could not grow: see mmc_norm_failed() */
	/*
	 * The previous page's slots: consecutive struct pages mostly repeat
	 * the same values, and a value's class does not depend on the pfn
	 * unless it points into the vmemmap, so those are reused as they are.
	 */
	bool have_prev;
	uint64_t prev_raw[MMC_MAX_SLOTS];
	struct mmc_nval prev_nv[MMC_MAX_SLOTS];
};

static uint64_t mmc_norm_hash(uint64_t x)
{
	/* splitmix64 finaliser: kernel pointers differ mostly in middle bits */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static struct mmc_obj_entry *mmc_norm_obj_slot(struct mmc_obj_entry *tab,
					       size_t cap, uint64_t raw)
{
	size_t i = mmc_norm_hash(raw) & (cap - 1);

	while (tab[i].used && tab[i].raw != raw)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static bool mmc_norm_obj_grow(struct mmc_norm *norm)
{
	size_t cap = norm->obj_cap ? norm->obj_cap * 2 : 256;
	struct mmc_obj_entry *tab;
	size_t i;

	if (cap < norm->obj_cap)
		return false;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return false;
	for (i = 0; i < norm->obj_cap; i++) {
		if (norm->objs[i].used)
			*mmc_norm_obj_slot(tab, cap, norm->objs[i].raw) =
				norm->objs[i];
	}
	free(norm->objs);
	norm->objs = tab;
	norm->obj_cap = cap;
	return true;
}

/*
 * Number of `raw` in first-appearance order.  If the table cannot grow the
 * context remembers it (mmc_norm_failed()) and the caller keeps the value
 * RAW, which can only make two images differ, never hide a difference.
 */
static bool mmc_norm_obj_number(struct mmc_norm *norm, uint64_t raw,
				uint32_t *number)
{
	struct mmc_obj_entry *e;

	if (norm->obj_failed)
		return false;
	if ((norm->obj_count + 1) * 2 > norm->obj_cap &&
	    !mmc_norm_obj_grow(norm)) {
		norm->obj_failed = true;
		return false;
	}
	e = mmc_norm_obj_slot(norm->objs, norm->obj_cap, raw);
	if (!e->used) {
		e->used = true;
		e->raw = raw;
		e->number = (uint32_t)norm->obj_count++;
	}
	*number = e->number;
	return true;
}

static void mmc_norm_mark_raw(struct mmc_norm *norm, enum mmc_member_id id)
{
	const struct mmc_member *m = &norm->layout->member[id];
	uint32_t first, last;

	if (!m->found || m->size == 0)
		return;
	first = m->offset / 8;
	last = (m->offset + m->size - 1) / 8;
	for (; first <= last && first < norm->nslots; first++)
		norm->raw_slot[first] = true;
}

struct mmc_error *mmc_norm_create(const struct mmc_layout *layout,
				  const struct mmc_geom *geom,
				  const uint64_t *pgmap_kaddrs, size_t npgmaps,
				  struct mmc_norm **out)
{
	struct mmc_norm *norm;
	const struct mmc_member *ch;

	*out = NULL;
	if (geom->struct_page_size == 0 || geom->struct_page_size % 8 ||
	    geom->struct_page_size / 8 > MMC_MAX_SLOTS)
		return mmc_error_create(MMC_ERR_LAYOUT, layout->source,
					"sizeof(struct page) = %u: not a multiple of 8 up to %u",
					geom->struct_page_size, MMC_MAX_SLOTS * 8);
	if (layout->size_found[MMC_SIZE_PAGE] &&
	    layout->size[MMC_SIZE_PAGE] != geom->struct_page_size)
		return mmc_error_create(MMC_ERR_MISMATCH, layout->source,
					"sizeof(struct page) %llu in the layout, %u in the image",
					(unsigned long long)layout->size[MMC_SIZE_PAGE],
					geom->struct_page_size);

	norm = calloc(1, sizeof(*norm));
	if (!norm)
		return mmc_error_nomem();
	norm->layout = layout;
	norm->geom = *geom;
	norm->nslots = geom->struct_page_size / 8;
	if (npgmaps) {
		norm->pgmap_kaddrs = malloc(npgmaps * sizeof(*pgmap_kaddrs));
		if (!norm->pgmap_kaddrs) {
			free(norm);
			return mmc_error_nomem();
		}
		memcpy(norm->pgmap_kaddrs, pgmap_kaddrs,
		       npgmaps * sizeof(*pgmap_kaddrs));
	}
	norm->npgmaps = npgmaps;
	/* Without the size a pgmap pointer still matches its first word. */
	norm->pgmap_size = layout->size_found[MMC_SIZE_DEV_PAGEMAP] &&
			   layout->size[MMC_SIZE_DEV_PAGEMAP] ?
			   layout->size[MMC_SIZE_DEV_PAGEMAP] : 8;

	/* flags is slot 0 by rule, wherever the member is reported */
	norm->raw_slot[0] = true;
	mmc_norm_mark_raw(norm, MMC_PAGE_FLAGS);
	mmc_norm_mark_raw(norm, MMC_PAGE_MAPCOUNT);
	mmc_norm_mark_raw(norm, MMC_PAGE_REFCOUNT);

	ch = &layout->member[MMC_PAGE_COMPOUND_HEAD];
	if (ch->found && ch->offset % 8 == 0 && ch->offset / 8 < norm->nslots) {
		norm->have_compound_slot = true;
		norm->compound_slot = ch->offset / 8;
	}
	ch = &layout->member[MMC_FOLIO_MM_IDS];
	if (ch->found && ch->offset >= geom->struct_page_size &&
	    ch->offset % 8 == 0 && ch->size == 8 &&
	    (ch->offset - geom->struct_page_size) / 8 < norm->nslots) {
		norm->have_mmids_slot = true;
		norm->mmids_slot = (ch->offset - geom->struct_page_size) / 8;
	}
	*out = norm;
	return NULL;
}

void mmc_norm_destroy(struct mmc_norm *norm)
{
	if (!norm)
		return;
	free(norm->objs);
	free(norm->pgmap_kaddrs);
	free(norm->ranges);
	free(norm);
}

struct mmc_error *mmc_norm_set_ranges(struct mmc_norm *norm,
				      const struct mmc_srange *ranges, size_t n)
{
	size_t i;

	free(norm->ranges);
	norm->ranges = NULL;
	norm->nranges = 0;
	if (!n)
		return NULL;
	norm->ranges = malloc(n * sizeof(*norm->ranges));
	if (!norm->ranges)
		return mmc_error_nomem();
	for (i = 0; i < n; i++) {
		if (i && ranges[i].start_pfn < ranges[i - 1].start_pfn) {
			free(norm->ranges);
			norm->ranges = NULL;
			return mmc_error_create(MMC_ERR_INTERNAL, NULL,
						"normaliser ranges not sorted");
		}
		norm->ranges[i][0] = ranges[i].start_pfn;
		norm->ranges[i][1] = ranges[i].end_pfn;
	}
	norm->nranges = n;
	return NULL;
}

static bool in_walked_range(const struct mmc_norm *norm, uint64_t pfn)
{
	size_t lo = 0, hi = norm->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pfn < norm->ranges[mid][0])
			hi = mid;
		else if (pfn >= norm->ranges[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

bool mmc_norm_failed(const struct mmc_norm *norm)
{
	return norm->obj_failed;
}

size_t mmc_norm_obj_count(const struct mmc_norm *norm)
{
	return norm->obj_count;
}

static bool mmc_in(uint64_t v, uint64_t start, uint64_t end)
{
	return start < end && v >= start && v < end;
}

static enum mmc_region mmc_norm_region(const struct mmc_geom *g, uint64_t v)
{
	if (mmc_in(v, g->page_offset_base, g->direct_map_end))
		return MMC_R_DIRECT;
	if (mmc_in(v, g->vmalloc_base, g->vmalloc_end))
		return MMC_R_VMALLOC;
	if (mmc_in(v, g->kimage_start, g->kimage_end))
		return MMC_R_KIMAGE;
	if (mmc_in(v, g->module_start, g->module_end))
		return MMC_R_MODULE;
	return MMC_R_NONE;
}

struct mmc_nval mmc_norm_value(struct mmc_norm *norm, uint64_t pfn, uint64_t raw)
{
	const struct mmc_geom *g = &norm->geom;
	struct mmc_nval nv = { .cls = MMC_V_RAW, .v = (int64_t)raw, .raw = raw };
	enum mmc_region region;
	uint32_t number;
	size_t i;

	if (raw == 0) {
		nv.cls = MMC_V_NULL;
		nv.v = 0;
		return nv;
	}
	if (g->poison_pointer_delta &&
	    raw - g->poison_pointer_delta < MMC_POISON_SPAN) {
		nv.cls = MMC_V_POISON;
		nv.v = (int64_t)(raw - g->poison_pointer_delta);
		return nv;
	}
	if (mmc_in(raw, g->vmemmap_base, g->vmemmap_end)) {
		uint64_t rel = raw - g->vmemmap_base;
		uint64_t target = rel / g->struct_page_size;

		if (target != pfn && norm->ranges && !in_walked_range(norm, target)) {
			/*
			 * A struct page outside every ZONE_DEVICE range (a
			 * driver's backing page in System RAM, say): where
			 * the kernel allocated it is not a property of the
			 * init code, so it is numbered like any other object.
			 */
			if (mmc_norm_obj_number(norm, raw, &number)) {
				nv.cls = MMC_V_OBJ;
				nv.region = MMC_R_VMEMMAP;
				nv.v = number;
			}
			return nv;
		}
		nv.off = (uint16_t)(rel % g->struct_page_size);
		if (target == pfn) {
			nv.cls = MMC_V_SELF;
			nv.v = 0;
		} else {
			nv.cls = MMC_V_PAGE;
			nv.v = (int64_t)(target - pfn);
		}
		return nv;
	}
	for (i = 0; i < norm->npgmaps; i++) {
		uint64_t k = norm->pgmap_kaddrs[i];

		if (raw >= k && raw - k < norm->pgmap_size) {
			nv.cls = MMC_V_PGMAP;
			nv.v = (int64_t)i;
			nv.off = (uint16_t)(raw - k);
			return nv;
		}
	}
	region = mmc_norm_region(g, raw);
	if (region != MMC_R_NONE && mmc_norm_obj_number(norm, raw, &number)) {
		nv.cls = MMC_V_OBJ;
		nv.region = (uint8_t)region;
		nv.v = number;
	}
	return nv;
}

/* Is this record page[1] of a folio: compound_head/info names pfn - 1? */
static bool is_page1(const struct mmc_norm *norm, uint64_t pfn,
		     const struct mmc_nrec *rec)
{
	uint64_t head;

	return norm->have_compound_slot &&
	       mmc_compound_info_head_pfn(&norm->geom, pfn,
					  &rec->slot[norm->compound_slot], &head) &&
	       head + 1 == pfn;
}

/*
 * mm ids are handed out per process (7.x folio mapcount tracking), from
 * the lowest free id: which one a mapping process gets depends on how many
 * processes were alive then, not on the kernel under test.  Like pointers
 * to allocated objects they are numbered by first appearance, and diff pairs
 * the numbers one-to-one, so "the same mm maps these folios" survives and a
 * changed id pattern still shows.
 */
static void number_mm_ids(struct mmc_norm *norm, struct mmc_nval *nv)
{
	uint32_t number;

	if (nv->raw == 0 || !mmc_norm_obj_number(norm, nv->raw, &number))
		return;
	nv->cls = MMC_V_OBJ;
	nv->region = MMC_R_MMID;
	nv->off = 0;
	nv->v = number;
}

void mmc_norm_page(struct mmc_norm *norm, uint64_t pfn, const uint8_t *bytes,
		   enum mmc_page_role role, struct mmc_nrec *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->state = MMC_PS_READ;
	out->role = (uint8_t)role;
	out->nslots = (uint8_t)norm->nslots;
	for (i = 0; i < norm->nslots; i++) {
		uint64_t raw = mmc_le64(bytes + 8 * i);
		struct mmc_nval *nv = &out->slot[i];

		if (norm->raw_slot[i] ||
		    (norm->have_compound_slot && i == norm->compound_slot &&
		     mmc_compound_info_is_mask(norm->geom.struct_page_size,
					       raw, NULL))) {
			nv->cls = MMC_V_RAW;
			nv->v = (int64_t)raw;
			nv->raw = raw;
			continue;
		}
		if (norm->have_prev && raw == norm->prev_raw[i] &&
		    norm->prev_nv[i].cls != MMC_V_SELF &&
		    norm->prev_nv[i].cls != MMC_V_PAGE) {
			*nv = norm->prev_nv[i];
			continue;
		}
		*nv = mmc_norm_value(norm, pfn, raw);
		norm->prev_raw[i] = raw;
		norm->prev_nv[i] = *nv;
	}
	norm->have_prev = true;
	if (norm->have_mmids_slot && is_page1(norm, pfn, out))
		number_mm_ids(norm, &out->slot[norm->mmids_slot]);
}

bool mmc_norm_can_move(const struct mmc_norm *norm)
{
	return !norm->have_mmids_slot;
}

bool mmc_norm_page_move(const struct mmc_norm *norm, struct mmc_nrec *rec, int64_t by)
{
	const struct mmc_nrec in = *rec;

	return mmc_norm_page_moved(norm, &in, by, rec);
}

/* mmc_norm_page_moved() where the caller knows no mm ids move */
static bool move_rec(const struct mmc_nrec *rec, int64_t by, struct mmc_nrec *out)
{
	unsigned int i;

	if (rec->state != MMC_PS_READ)
		return false;
	out->state = rec->state;
	out->role = rec->role;
	out->nslots = rec->nslots;
	out->reason = rec->reason;
	/* mmc_norm_value()'s pointer to a struct page is target - pfn: the
	 * same raw value names the same target, `by` pfns nearer (one pass,
	 * each slot moved as it is copied) */
	for (i = 0; i < rec->nslots; i++) {
		struct mmc_nval v = rec->slot[i];

		if (v.cls == MMC_V_SELF) {
			v.cls = MMC_V_PAGE;
			v.v = -by;
		} else if (v.cls == MMC_V_PAGE) {
			v.v -= by;
			if (v.v == 0)
				v.cls = MMC_V_SELF;
		}
		out->slot[i] = v;
	}
	return true;
}

bool mmc_norm_page_moved(const struct mmc_norm *norm, const struct mmc_nrec *rec,
			 int64_t by, struct mmc_nrec *out)
{
	return mmc_norm_can_move(norm) && move_rec(rec, by, out);
}

/* Is there a step t, 0 <= t < count, with t * dv == d (dv != 0)? */
static bool step_lands(int64_t d, int64_t dv, uint64_t count)
{
	return d % dv == 0 && d / dv >= 0 && (uint64_t)(d / dv) < count;
}

/*
 * Might a record of the run (first record's compound slot c at pfn, its
 * stride dv, count records) be page[1] of its folio, as is_page1() tells
 * (its compound head names the pfn before it)?  false only where none is.
 */
static bool run_may_hold_page1(const struct mmc_norm *norm, uint64_t pfn,
			       const struct mmc_nval *c, int64_t dv, uint64_t count)
{
	uint64_t h1, h2, last = pfn + count - 1;

	if (c->cls == MMC_V_PAGE && c->off == 1) {
		/* head = pfn + v: page[1] where v reaches -1 */
		int64_t d = -1 - c->v;

		return dv ? step_lands(d, dv, count) : !d;
	}
	if (c->cls != MMC_V_RAW)
		return false;		/* a self-pointer is a head; others name none */
	if (!mmc_compound_info_head_pfn(&norm->geom, pfn, c, &h1))
		return dv != 0;		/* a varying value might decode further on */
	/* a mask: the head is the struct page address rounded down, the same
	 * over the run when the same at both ends */
	if (dv || !mmc_compound_info_head_pfn(&norm->geom, last, c, &h2) || h1 != h2)
		return true;
	return h1 + 1 >= pfn && h1 + 1 <= last;
}

bool mmc_norm_run_moved(const struct mmc_norm *norm, uint64_t pfn,
			const struct mmc_nrec *first, const struct mmc_nrec *stride,
			uint64_t count, int64_t by, struct mmc_nrec *out)
{
	const int64_t lim = INT64_C(1) << 60;
	unsigned int i;

	if (!count || (by < 0 ? -by : by) >= lim)
		return false;
	for (i = 0; i < first->nslots; i++) {
		const struct mmc_nval *v = &first->slot[i];
		int64_t dv = count > 1 ? stride->slot[i].v : 0;

		/*
		 * The slow path moves every record of the run by itself: the
		 * moved records stay on one line where all of a slot's values
		 * keep their class or all change it (a constant page delta
		 * reaching 0 is a run of self-pointers), not where one
		 * record's delta reaches 0 inside the run.
		 */
		if (v->cls == MMC_V_SELF) {
			if (dv)
				return false;
		} else if (v->cls == MMC_V_PAGE && dv) {
			int64_t d;

			if ((v->v < 0 ? -v->v : v->v) >= lim || (dv < 0 ? -dv : dv) >= lim)
				return false;
			d = by - v->v;		/* record t lands on its own pfn when v + t * dv == by */
			if (step_lands(d, dv, count))
				return false;
		}
	}
	if (mmc_norm_can_move(norm))
		return move_rec(first, by, out);
	/*
	 * 7.x: mmc_norm_page() numbers page[1]'s mm ids, which depend on
	 * the pfn; a run none of whose records is page[1], neither where it
	 * is nor where it moves to, moves like any other.
	 */
	{
		struct mmc_nrec moved;
		unsigned int cs = norm->compound_slot;
		int64_t dv;

		if (!norm->have_compound_slot)
			return move_rec(first, by, out);	/* is_page1() is never true */
		if (cs >= first->nslots || first->state != MMC_PS_READ)
			return false;
		dv = count > 1 ? stride->slot[cs].v : 0;
		if (run_may_hold_page1(norm, pfn, &first->slot[cs], dv, count) ||
		    !move_rec(first, by, &moved) ||
		    run_may_hold_page1(norm, pfn + (uint64_t)by, &moved.slot[cs], dv, count))
			return false;
		*out = moved;
		return true;
	}
}

bool mmc_norm_slot_is_raw(const struct mmc_norm *norm, unsigned int slot)
{
	return slot < norm->nslots && norm->raw_slot[slot];
}
