// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Page decoder: normalised records -> what the kernel would say about a page.
 *
 * Pure: it reads only the records, the layout (offsets, enum pageflags) and
 * the geometry (flags layout, vmemmap_base), so it works the same on a live
 * image and on a saved snapshot.  Corrupt records decode to whatever their
 * bits say; nothing here trusts a value enough to index with it.
 */
#include <string.h>

#include "page_decode.h"

/* A record slot holding an integer the decoder may read: RAW is the value,
 * NULL is a 0 the normaliser saw in a pointer-capable slot. */
static bool mmc_slot_int(const struct mmc_nval *nv, uint64_t *value)
{
	if (nv->cls == MMC_V_RAW) {
		*value = (uint64_t)nv->v;
		return true;
	}
	if (nv->cls == MMC_V_NULL) {
		*value = 0;
		return true;
	}
	return false;
}

bool mmc_nrec_member_u64(const struct mmc_layout *layout, const struct mmc_nrec *rec,
			 enum mmc_member_id id, uint32_t base_offset, uint64_t *value)
{
	const struct mmc_member *m = &layout->member[id];
	uint32_t rel, in_slot;
	uint64_t word;

	if (!m->found || m->size == 0 || m->size > 8 || m->offset < base_offset)
		return false;
	rel = m->offset - base_offset;
	in_slot = rel % 8;
	if (rel / 8 >= rec->nslots || rel / 8 >= MMC_MAX_SLOTS ||
	    in_slot + m->size > 8)
		return false;
	if (!mmc_slot_int(&rec->slot[rel / 8], &word))
		return false;
	word >>= 8 * in_slot;
	if (m->size < 8)
		word &= (1ULL << (8 * m->size)) - 1;
	*value = word;
	return true;
}

/* The slot an 8-byte-aligned member starts in, relative to base_offset. */
static const struct mmc_nval *mmc_member_slot(const struct mmc_layout *layout,
					      const struct mmc_nrec *rec,
					      enum mmc_member_id id,
					      uint32_t base_offset,
					      unsigned int extra)
{
	const struct mmc_member *m = &layout->member[id];
	uint32_t slot;

	if (!m->found || m->offset < base_offset || m->offset % 8)
		return NULL;
	slot = (m->offset - base_offset) / 8 + extra;
	if (slot >= rec->nslots || slot >= MMC_MAX_SLOTS)
		return NULL;
	return &rec->slot[slot];
}

static struct mmc_nval mmc_slot_or_null(const struct mmc_nval *nv)
{
	struct mmc_nval none = { .cls = MMC_V_NULL };

	return nv ? *nv : none;
}

void mmc_page_decode(const struct mmc_layout *layout, const struct mmc_geom *geom,
		     uint64_t pfn, const struct mmc_nrec *rec,
		     struct mmc_page_view *out)
{
	const struct mmc_nval *ch, *pg;
	uint64_t flags = 0, v;
	unsigned int head_bit;

	memset(out, 0, sizeof(*out));
	out->pfn = pfn;
	if (rec->nslots == 0)
		return;
	if (!mmc_nrec_member_u64(layout, rec, MMC_PAGE_FLAGS, 0, &flags))
		mmc_slot_int(&rec->slot[0], &flags);
	out->flags_raw = flags;
	out->pgflags = mmc_flags_pgflags(geom, flags);
	out->zone = mmc_flags_zone(geom, flags);
	out->node = mmc_flags_node(geom, flags);
	if (mmc_pageflag_bit(layout, "PG_head", &head_bit))
		out->head = (flags >> head_bit) & 1;

	ch = mmc_member_slot(layout, rec, MMC_PAGE_COMPOUND_HEAD, 0, 0);
	out->compound_head = mmc_slot_or_null(ch);
	if (ch) {
		out->tail = mmc_nval_bit0(ch);
		if (out->tail) {
			out->head_pfn_valid =
				mmc_compound_info_head_pfn(geom, pfn, ch,
							   &out->head_pfn);
			out->compound_mask = ch->cls == MMC_V_RAW &&
					     out->head_pfn_valid;
		}
	}
	if (out->tail)
		out->tail_index = out->head_pfn_valid && out->head_pfn < pfn ?
				  mmc_tail_index_of(pfn - out->head_pfn) :
				  MMC_TAIL_OTHER;
	if (out->tail_index == MMC_TAIL_FIRST && mmc_order_in_flags1(layout)) {
		out->flags_hold_order = true;
		out->flags_order = (uint32_t)(flags & MMC_FLAGS1_ORDER_MASK);
		out->pgflags &= ~MMC_FLAGS1_ORDER_MASK;
	}

	/* page->pgmap up to 6.14; from 6.15 the folio's, in the head page */
	pg = mmc_member_slot(layout, rec, MMC_PAGE_PGMAP, 0, 0);
	if (!pg && layout->member[MMC_FOLIO_PGMAP].found &&
	    layout->member[MMC_FOLIO_PGMAP].offset < geom->struct_page_size)
		pg = mmc_member_slot(layout, rec, MMC_FOLIO_PGMAP, 0, 0);
	out->pgmap = mmc_slot_or_null(pg);
	out->have_pgmap = pg && !out->tail;

	out->zone_device_data = mmc_slot_or_null(
		mmc_member_slot(layout, rec, MMC_PAGE_ZONE_DEVICE_DATA, 0, 0));
	out->mapping = mmc_slot_or_null(
		mmc_member_slot(layout, rec, MMC_PAGE_MAPPING, 0, 0));
	out->private_ = mmc_slot_or_null(
		mmc_member_slot(layout, rec, MMC_PAGE_PRIVATE, 0, 0));
	out->lru_next = mmc_slot_or_null(
		mmc_member_slot(layout, rec, MMC_PAGE_LRU, 0, 0));
	out->lru_prev = mmc_slot_or_null(
		mmc_member_slot(layout, rec, MMC_PAGE_LRU, 0, 1));
	if (mmc_nrec_member_u64(layout, rec, MMC_PAGE_INDEX, 0, &v))
		out->index = v;
	else if ((pg = mmc_member_slot(layout, rec, MMC_PAGE_INDEX, 0, 0)))
		out->index = pg->raw;
	if (mmc_nrec_member_u64(layout, rec, MMC_PAGE_MAPCOUNT, 0, &v))
		out->mapcount = (int32_t)(uint32_t)v;
	if (mmc_nrec_member_u64(layout, rec, MMC_PAGE_REFCOUNT, 0, &v))
		out->refcount = (int32_t)(uint32_t)v;
}

/* Where a struct folio member lies: record k = offset / page size. */
static bool mmc_folio_rec(const struct mmc_layout *layout,
			  const struct mmc_geom *geom, size_t n,
			  const struct mmc_nrec *recs, enum mmc_member_id id,
			  uint32_t *k)
{
	const struct mmc_member *m = &layout->member[id];

	if (!m->found || geom->struct_page_size == 0)
		return false;
	*k = m->offset / geom->struct_page_size;
	return *k < n && recs[*k].state == MMC_PS_READ;
}

/* A struct folio member from the head's records. */
static bool mmc_folio_member(const struct mmc_layout *layout,
			     const struct mmc_geom *geom,
			     const struct mmc_nrec *recs, size_t n,
			     enum mmc_member_id id, uint64_t *value)
{
	uint32_t k;

	if (!mmc_folio_rec(layout, geom, n, recs, id, &k))
		return false;
	return mmc_nrec_member_u64(layout, &recs[k], id,
				   k * geom->struct_page_size, value);
}

/*
 * An int member: true and *value when its slot holds an integer; when the
 * member is there but its slot holds a pointer-classified value, bit `fi`
 * goes into *not_int.
 */
static bool mmc_folio_i32(const struct mmc_layout *layout,
			  const struct mmc_geom *geom,
			  const struct mmc_nrec *recs, size_t n,
			  enum mmc_member_id id, enum mmc_folio_int fi,
			  uint32_t *not_int, int32_t *value)
{
	uint64_t v;
	uint32_t k;

	if (!mmc_folio_rec(layout, geom, n, recs, id, &k))
		return false;
	if (!mmc_nrec_member_u64(layout, &recs[k], id, k * geom->struct_page_size, &v)) {
		*not_int |= 1u << fi;
		return false;
	}
	*value = (int32_t)(uint32_t)v;
	return true;
}

/* The slot of a folio member (8-byte aligned) in its record, or NULL. */
static const struct mmc_nval *mmc_folio_slot(const struct mmc_layout *layout,
					     const struct mmc_geom *geom,
					     const struct mmc_nrec *recs, size_t n,
					     enum mmc_member_id id, unsigned int extra)
{
	uint32_t k;

	if (!mmc_folio_rec(layout, geom, n, recs, id, &k))
		return NULL;
	return mmc_member_slot(layout, &recs[k], id, k * geom->struct_page_size, extra);
}

void mmc_folio_decode(const struct mmc_layout *layout, const struct mmc_geom *geom,
		      const struct mmc_nrec *recs, size_t n,
		      struct mmc_folio_view *out)
{
	const struct mmc_nval *next, *prev, *ids;
	struct mmc_page_view head;
	uint64_t v;
	uint32_t k;

	memset(out, 0, sizeof(*out));
	if (n < 2 || geom->struct_page_size == 0 ||
	    recs[0].state != MMC_PS_READ || recs[1].state != MMC_PS_READ)
		return;
	mmc_page_decode(layout, geom, 0, &recs[0], &head);
	if (!head.head)
		return;
	out->valid = true;

	/* 6.1: _folio_order byte; 6.5+: the low byte of _flags_1 */
	if (!mmc_order_in_flags1(layout)) {
		if (mmc_folio_member(layout, geom, recs, n, MMC_FOLIO_ORDER, &v))
			out->order = (uint32_t)v;
	} else if (mmc_folio_member(layout, geom, recs, n, MMC_FOLIO_FLAGS_1, &v)) {
		out->order = (uint32_t)(v & MMC_FLAGS1_ORDER_MASK);
	}
	out->have_nr_pages = mmc_folio_member(layout, geom, recs, n,
					      MMC_FOLIO_NR_PAGES, &out->nr_pages);
	out->have_large_mapcount =
		mmc_folio_i32(layout, geom, recs, n, MMC_FOLIO_LARGE_MAPCOUNT,
			      MMC_FI_LARGE_MAPCOUNT, &out->not_int, &out->large_mapcount);
	out->have_entire_mapcount =
		mmc_folio_i32(layout, geom, recs, n, MMC_FOLIO_ENTIRE_MAPCOUNT,
			      MMC_FI_ENTIRE_MAPCOUNT, &out->not_int, &out->entire_mapcount);
	out->have_nr_pages_mapped =
		mmc_folio_i32(layout, geom, recs, n, MMC_FOLIO_NR_PAGES_MAPPED,
			      MMC_FI_NR_PAGES_MAPPED, &out->not_int, &out->nr_pages_mapped);
	out->have_pincount =
		mmc_folio_i32(layout, geom, recs, n, MMC_FOLIO_PINCOUNT,
			      MMC_FI_PINCOUNT, &out->not_int, &out->pincount);

	/* 7.x: mm_id_mapcount_t _mm_id_mapcount[2] (two ints in one word) */
	if (layout->member[MMC_FOLIO_MM_ID_MAPCOUNT].size == 8 &&
	    mmc_folio_rec(layout, geom, n, recs, MMC_FOLIO_MM_ID_MAPCOUNT, &k)) {
		if (mmc_nrec_member_u64(layout, &recs[k], MMC_FOLIO_MM_ID_MAPCOUNT,
					k * geom->struct_page_size, &v)) {
			out->have_mm_id_mapcount = true;
			out->mm_id_mapcount[0] = (int32_t)(uint32_t)v;
			out->mm_id_mapcount[1] = (int32_t)(uint32_t)(v >> 32);
		} else {
			out->not_int |= 1u << MMC_FI_MM_ID_MAPCOUNT0 |
					1u << MMC_FI_MM_ID_MAPCOUNT1;
		}
	}
	ids = mmc_folio_slot(layout, geom, recs, n, MMC_FOLIO_MM_IDS, 0);
	if (ids) {
		out->have_mm_ids = true;
		out->mm_ids = *ids;
	}

	next = mmc_folio_slot(layout, geom, recs, n, MMC_FOLIO_DEFERRED_LIST, 0);
	prev = mmc_folio_slot(layout, geom, recs, n, MMC_FOLIO_DEFERRED_LIST, 1);
	if (next && prev && layout->member[MMC_FOLIO_DEFERRED_LIST].size == 16) {
		out->have_deferred_list = true;
		out->deferred_next = *next;
		out->deferred_prev = *prev;
	}
}

bool mmc_folio_owns_slot(const struct mmc_layout *layout, uint32_t struct_page_size,
			 enum mmc_tail_index tail, unsigned int slot)
{
	static const enum mmc_member_id folio_members[] = {
		MMC_FOLIO_FLAGS_1, MMC_FOLIO_ORDER, MMC_FOLIO_DTOR,
		MMC_FOLIO_NR_PAGES, MMC_FOLIO_LARGE_MAPCOUNT,
		MMC_FOLIO_ENTIRE_MAPCOUNT, MMC_FOLIO_NR_PAGES_MAPPED,
		MMC_FOLIO_PINCOUNT, MMC_FOLIO_MM_ID_MAPCOUNT, MMC_FOLIO_MM_IDS,
		MMC_FOLIO_DEFERRED_LIST, MMC_FOLIO_PGMAP,
	};
	uint64_t lo, hi;

	if (tail != MMC_TAIL_FIRST && tail != MMC_TAIL_SECOND)
		return false;
	lo = (uint64_t)tail * struct_page_size + slot * 8ULL;
	hi = lo + 8;
	for (size_t i = 0; i < sizeof(folio_members) / sizeof(folio_members[0]); i++) {
		const struct mmc_member *m = &layout->member[folio_members[i]];

		if (m->found && m->size && m->offset < hi && m->offset + m->size > lo)
			return true;
	}
	return false;
}

bool mmc_page_member_slot(const struct mmc_layout *layout, uint32_t struct_page_size,
			  enum mmc_member_id id, unsigned int *slot)
{
	const struct mmc_member *m = &layout->member[id];

	if (!m->found || m->offset % 8 || m->offset >= struct_page_size ||
	    m->offset / 8 >= MMC_MAX_SLOTS)
		return false;
	*slot = m->offset / 8;
	return true;
}

void mmc_format_pgflags(const struct mmc_layout *layout, uint64_t pgflags,
			char *buf, size_t size)
{
	size_t len = 0;
	unsigned int bit;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (bit = 0; bit < 64; bit++) {
		const char *name;
		int w;

		if (!((pgflags >> bit) & 1))
			continue;
		name = mmc_pageflag_name(layout, bit);
		if (name)
			w = snprintf(buf + len, size - len, "%s%s",
				     len ? "|" : "", name);
		else
			w = snprintf(buf + len, size - len, "%sbit%u",
				     len ? "|" : "", bit);
		if (w < 0 || (size_t)w >= size - len) {
			buf[size - 1] = '\0';
			return;
		}
		len += (size_t)w;
	}
}

static const char *mmc_region_name(uint8_t region)
{
	switch (region) {
	case MMC_R_DIRECT: return "direct";
	case MMC_R_VMALLOC: return "vmalloc";
	case MMC_R_KIMAGE: return "kimage";
	case MMC_R_MODULE: return "module";
	case MMC_R_VMEMMAP: return "vmemmap";
	case MMC_R_MMID: return "mm_id";
	default: return "none";
	}
}

void mmc_format_nval(const struct mmc_nval *v, char *buf, size_t size)
{
	const char *name;

	if (size == 0)
		return;
	switch (v->cls) {
	case MMC_V_NULL:
		snprintf(buf, size, "NULL");
		break;
	case MMC_V_SELF:
		snprintf(buf, size, "self+%u", v->off);
		break;
	case MMC_V_PAGE:
		snprintf(buf, size, "page%+lld+%u", (long long)v->v, v->off);
		break;
	case MMC_V_PGMAP:
		if (v->off)
			snprintf(buf, size, "pgmap#%lld+%u", (long long)v->v, v->off);
		else
			snprintf(buf, size, "pgmap#%lld", (long long)v->v);
		break;
	case MMC_V_POISON:
		name = mmc_poison_name(v->v);
		if (name)
			snprintf(buf, size, "%s", name);
		else
			snprintf(buf, size, "POISON+0x%llx", (unsigned long long)v->v);
		break;
	case MMC_V_OBJ:
		snprintf(buf, size, "obj#%lld(%s)", (long long)v->v,
			 mmc_region_name(v->region));
		break;
	case MMC_V_RAW:
		snprintf(buf, size, "0x%llx", (unsigned long long)v->v);
		break;
	default:
		snprintf(buf, size, "?cls%u:0x%llx", v->cls,
			 (unsigned long long)v->raw);
		break;
	}
}

/* Members that may name a slot, by page kind, most telling first: for a
 * ZONE_DEVICE page the union at +8 is pgmap, not lru or compound_head. */
static const enum mmc_member_id mmc_head_members[] = {
	MMC_PAGE_FLAGS, MMC_PAGE_PGMAP, MMC_FOLIO_PGMAP,
	MMC_PAGE_ZONE_DEVICE_DATA, MMC_PAGE_MAPPING, MMC_PAGE_INDEX,
	MMC_PAGE_PRIVATE, MMC_PAGE_MAPCOUNT, MMC_PAGE_REFCOUNT,
	MMC_PAGE_MEMCG_DATA, MMC_PAGE_LRU, MMC_PAGE_COMPOUND_HEAD,
};
static const enum mmc_member_id mmc_tail_members[] = {
	MMC_PAGE_FLAGS, MMC_PAGE_COMPOUND_HEAD, MMC_PAGE_ZONE_DEVICE_DATA,
	MMC_PAGE_MAPPING, MMC_PAGE_INDEX, MMC_PAGE_PRIVATE,
	MMC_PAGE_MAPCOUNT, MMC_PAGE_REFCOUNT, MMC_PAGE_MEMCG_DATA,
	MMC_PAGE_LRU,
};
/* The same outside ZONE_DEVICE (HugeTLB folios, hot-plugged memory): the
 * words the ZONE_DEVICE union calls pgmap and zone_device_data are lru
 * there (a HugeTLB folio's place on its hstate's list). */
static const enum mmc_member_id mmc_head_members_ram[] = {
	MMC_PAGE_FLAGS, MMC_PAGE_LRU, MMC_PAGE_MAPPING, MMC_PAGE_INDEX,
	MMC_PAGE_PRIVATE, MMC_PAGE_MAPCOUNT, MMC_PAGE_REFCOUNT,
	MMC_PAGE_MEMCG_DATA, MMC_PAGE_COMPOUND_HEAD,
};
static const enum mmc_member_id mmc_tail_members_ram[] = {
	MMC_PAGE_FLAGS, MMC_PAGE_COMPOUND_HEAD, MMC_PAGE_LRU, MMC_PAGE_MAPPING,
	MMC_PAGE_INDEX, MMC_PAGE_PRIVATE, MMC_PAGE_MAPCOUNT, MMC_PAGE_REFCOUNT,
	MMC_PAGE_MEMCG_DATA,
};
static const enum mmc_member_id mmc_folio_members[] = {
	MMC_FOLIO_FLAGS_1, MMC_FOLIO_DTOR, MMC_FOLIO_ORDER,
	MMC_FOLIO_LARGE_MAPCOUNT, MMC_FOLIO_ENTIRE_MAPCOUNT,
	MMC_FOLIO_NR_PAGES_MAPPED, MMC_FOLIO_PINCOUNT, MMC_FOLIO_NR_PAGES,
	MMC_FOLIO_MM_ID_MAPCOUNT, MMC_FOLIO_MM_IDS, MMC_FOLIO_DEFERRED_LIST,
};

/*
 * Label slot `slot` from the members in ids[] whose offset relative to
 * `base` lies in this struct page: a member covering the whole slot gives
 * its name (list_heads: .next/.prev, other wide members +0xN), else the
 * members lying within the slot are joined with '+'.  false if none.
 */
static bool mmc_label_from(const struct mmc_layout *layout,
			   const enum mmc_member_id *ids, size_t nids,
			   uint32_t base, uint32_t page_size, unsigned int slot,
			   char *buf, size_t size)
{
	uint32_t lo = slot * 8, hi = lo + 8;
	uint32_t used_off[8];
	size_t nused = 0, len = 0, i, j;
	bool any = false;

	for (i = 0; i < nids; i++) {
		const struct mmc_member *m = &layout->member[ids[i]];
		uint32_t r;

		if (!m->found || m->size == 0 || m->offset < base ||
		    m->offset - base >= page_size)
			continue;
		r = m->offset - base;
		if (r <= lo && r + m->size >= hi) {
			bool list = ids[i] == MMC_PAGE_LRU ||
				    ids[i] == MMC_FOLIO_DEFERRED_LIST;

			if (m->size <= 8)
				snprintf(buf, size, "%s", m->name);
			else if (list && m->size == 16)
				snprintf(buf, size, "%s.%s", m->name,
					 lo == r ? "next" : "prev");
			else if (lo == r)
				snprintf(buf, size, "%s", m->name);
			else
				snprintf(buf, size, "%s+0x%x", m->name, lo - r);
			return true;
		}
	}

	/* sub-word members, in offset order; one name per offset */
	for (;;) {
		const struct mmc_member *best = NULL;
		uint32_t best_r = 0;
		int w;

		for (i = 0; i < nids; i++) {
			const struct mmc_member *m = &layout->member[ids[i]];
			uint32_t r;
			bool seen = false;

			if (!m->found || m->size == 0 || m->offset < base)
				continue;
			r = m->offset - base;
			if (r < lo || r + m->size > hi)
				continue;
			for (j = 0; j < nused; j++)
				seen |= used_off[j] == r;
			if (seen || (best && r >= best_r))
				continue;
			best = m;
			best_r = r;
		}
		if (!best || nused == sizeof(used_off) / sizeof(used_off[0]))
			break;
		used_off[nused++] = best_r;
		w = snprintf(buf + len, size - len, "%s%s", any ? "+" : "",
			     best->name);
		any = true;
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
	return any;
}

const char *mmc_slot_label_of(const struct mmc_layout *layout, enum mmc_range_kind kind,
			      unsigned int slot, enum mmc_tail_index tail_index, char *buf,
			      size_t size)
{
	bool dev = kind == MMC_RANGE_PGMAP;
	const enum mmc_member_id *head = dev ? mmc_head_members : mmc_head_members_ram;
	const enum mmc_member_id *tail = dev ? mmc_tail_members : mmc_tail_members_ram;
	size_t nhead = dev ? sizeof(mmc_head_members) / sizeof(mmc_head_members[0]) :
			     sizeof(mmc_head_members_ram) / sizeof(mmc_head_members_ram[0]);
	size_t ntail = dev ? sizeof(mmc_tail_members) / sizeof(mmc_tail_members[0]) :
			     sizeof(mmc_tail_members_ram) / sizeof(mmc_tail_members_ram[0]);
	uint32_t page_size = layout->size_found[MMC_SIZE_PAGE] ?
			     (uint32_t)layout->size[MMC_SIZE_PAGE] : 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (page_size == 0)
		page_size = MMC_MAX_SLOTS * 8;
#define MMC_NIDS(a) (sizeof(a) / sizeof((a)[0]))
	if (tail_index == MMC_TAIL_NONE) {
		if (mmc_label_from(layout, head, nhead, 0, page_size, slot, buf, size))
			return buf;
	} else {
		if ((tail_index == MMC_TAIL_FIRST || tail_index == MMC_TAIL_SECOND) &&
		    mmc_label_from(layout, mmc_folio_members,
				   MMC_NIDS(mmc_folio_members),
				   tail_index * page_size, page_size, slot,
				   buf, size))
			return buf;
		if (mmc_label_from(layout, tail, ntail, 0, page_size, slot, buf, size))
			return buf;
	}
#undef MMC_NIDS
	snprintf(buf, size, "+0x%x", slot * 8);
	return buf;
}

bool mmc_slot_halves(const struct mmc_layout *layout, unsigned int slot,
		     enum mmc_tail_index tail, char lo[48], char hi[48])
{
	char full[48], *plus;

	mmc_slot_label_of(layout, MMC_RANGE_PGMAP, slot, tail, full, sizeof(full));
	plus = strchr(full, '+');
	if (!plus || plus == full || strchr(plus + 1, '+') || !plus[1])
		return false;
	*plus = 0;
	snprintf(lo, 48, "%s", full);
	snprintf(hi, 48, "%s", plus + 1);
	return true;
}
