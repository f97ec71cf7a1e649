// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint, one struct page: what the kernel wrote there (mm/mm_init.c,
 * mm/internal.h, read in 6.1.192, 6.12.117 and 7.2.8), by where the pfn
 * sits (lint_expect()).
 *
 * Every device page: __init_zone_device_page() -> __init_single_page()
 * (zeroed, set_page_links(): zone ZONE_DEVICE and the range's node,
 * _refcount 1, _mapcount -1) then PG_reserved, pgmap, zone_device_data
 * NULL and the type's refcount.  Tails: memmap_init_compound() ->
 * prep_compound_tail() (mapping TAIL_MAPPING, compound_head, private 0) and
 * _refcount 0.  Memmap (altmap) pfns: memmap_init_range() ->
 * __init_single_page() and PG_reserved, nothing else.
 *
 * The compound-tail and memmap checks are the kernel's for every kind of
 * range: a HugeTLB folio's tails are prep_compound_page()'s
 * (prep_compound_tail(), _refcount 0, never mapped on their own), a
 * hot-plugged block's memmap pfns memmap_init_range()'s.  What differs by
 * kind is said where it is checked: which words the folio keeps
 * (lint_folio_word()), which flags a tail may carry, the words only
 * ZONE_DEVICE pages have (pgmap, zone_device_data, a dax index); a
 * HugeTLB head is lint_hugetlb.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lint_int.h"

static const struct mmc_nval *slot(const struct mmc_nrec *rec, bool have, unsigned int s)
{
	return have && s < rec->nslots ? &rec->slot[s] : NULL;
}

static const char *label(const struct lint_ctx *c, unsigned int s, enum mmc_tail_index t,
			 char *buf, size_t size)
{
	/* by the range's kind: the words a device page calls pgmap and
	 * zone_device_data are lru.next and lru.prev on any other page */
	return mmc_slot_label_of(c->layout, c->kind, s, t, buf, size);
}

static void check_poison(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
			 enum mmc_tail_index t)
{
	for (unsigned int s = 0; s < rec->nslots && s < MMC_MAX_SLOTS; s++) {
		const struct mmc_nval *sv = &rec->slot[s];
		const char *fill = mmc_fill_pattern_name(sv->raw);
		char lbuf[48];

		if (sv->cls == MMC_V_POISON) {
			/* prep_compound_tail()'s TAIL_MAPPING, wherever a tail
			 * keeps it (page[2]'s _deferred_list.prev on 6.12) */
			if (t != MMC_TAIL_NONE && c->have_mapping && s == c->mapping_slot &&
			    sv->v == MMC_POISON_TAIL_MAPPING)
				continue;
			/* a HugeTLB folio comes from the buddy allocator: a
			 * block merged into it kept list_del()'s LIST_POISON2
			 * in lru.prev, which no one writes on a tail */
			if (t != MMC_TAIL_NONE && c->kind == MMC_RANGE_HUGETLB && c->have_lru &&
			    s == c->lru_slot + 1 && sv->v == MMC_POISON_LIST2)
				continue;
			lint_violate(c, MMC_RULE_POISON, pfn,
				     "%s = 0x%016" PRIx64 " (poison +0x%" PRIx64 ") in an initialised page",
				     label(c, s, t, lbuf, sizeof(lbuf)), sv->raw, (uint64_t)sv->v);
			return;
		}
		if (fill) {
			lint_violate(c, MMC_RULE_POISON, pfn, "%s = 0x%016" PRIx64 " (%s)",
				     label(c, s, t, lbuf, sizeof(lbuf)), sv->raw, fill);
			return;
		}
	}
}

/* HugeTLB: a tail is in its head's zone and node, which prep_compound_page()
 * takes from one buddy block and hugetlb_folio_init_tail_vmemmap() from the
 * folio. */
static void check_folio_links(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v,
			      const struct lint_expect *e)
{
	const struct lint_head *h = &c->head;

	if (e->place != LP_TAIL || !h->valid || h->pfn != e->head || !h->readable)
		return;
	if (v->zone != h->zone)
		lint_violate(c, MMC_RULE_ZONE, pfn, "zone %u, its folio's head 0x%" PRIx64 " has zone %u",
			     v->zone, h->pfn, h->zone);
	if (v->node != h->node)
		lint_violate(c, MMC_RULE_NODE, pfn, "node %u, its folio's head 0x%" PRIx64 " has node %u",
			     v->node, h->pfn, h->node);
}

/* Hot-plug: memmap_init_range() with the block's nid, in the one zone
 * move_pfn_range_to_zone() gave the block.  add_memory_block() starts
 * mem->nid at NUMA_NO_NODE and only memory_block_add_nid() (CONFIG_NUMA)
 * sets it: without it, one node for the block as for a pgmap's range. */
static void check_block_links(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v)
{
	bool nid = c->block && (int32_t)c->block->nid >= 0;

	if (!c->have_zone) {
		c->have_zone = true;
		c->zone = v->zone;
		c->zone_pfn = pfn;
	} else if (v->zone != c->zone) {
		lint_violate(c, MMC_RULE_ZONE, pfn,
			     "zone %u, the block's first memmap page 0x%" PRIx64 " has zone %u",
			     v->zone, c->zone_pfn, c->zone);
	}
	if (nid && v->node != c->block->nid) {
		lint_violate(c, MMC_RULE_NODE, pfn, "node %u, memory block %" PRIu64 " has nid %u",
			     v->node, c->block->id, c->block->nid);
	} else if (!nid && !c->have_node) {
		c->have_node = true;
		c->node = v->node;
		c->node_pfn = pfn;
	} else if (!nid && v->node != c->node) {
		lint_violate(c, MMC_RULE_NODE, pfn,
			     "node %u, the block's first memmap page 0x%" PRIx64 " has node %u",
			     v->node, c->node_pfn, c->node);
	}
}

static void check_common(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v,
			 const struct lint_expect *e)
{
	if (c->kind == MMC_RANGE_HUGETLB) {
		check_folio_links(c, pfn, v, e);
		return;
	}
	if (c->kind == MMC_RANGE_HOTPLUG) {
		check_block_links(c, pfn, v);
		return;
	}
	if (c->have_zone_device && (int64_t)v->zone != c->zone_device)
		lint_violate(c, MMC_RULE_ZONE, pfn, "zone %u, expected ZONE_DEVICE (%" PRId64 ")",
			     v->zone, c->zone_device);
	if (!c->have_node) {
		c->have_node = true;
		c->node = v->node;
		c->node_pfn = pfn;
	} else if (v->node != c->node) {
		lint_violate(c, MMC_RULE_NODE, pfn,
			     "node %u, the range's first page 0x%" PRIx64 " has node %u",
			     v->node, c->node_pfn, c->node);
	}
	if (c->have_pg_reserved && !(v->pgflags & (1ULL << c->pg_reserved)))
		lint_violate(c, MMC_RULE_RESERVED, pfn, "PG_reserved clear");
}

/* Must be NULL (0): rule `rule`, the word named by slot s. */
static void want_null(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
		      bool have, unsigned int s, enum mmc_tail_index t,
		      enum mmc_rule rule, const char *why)
{
	const struct mmc_nval *sv = slot(rec, have, s);
	char lbuf[48], vbuf[64];

	if (!sv || sv->cls == MMC_V_NULL)
		return;
	mmc_format_nval(sv, vbuf, sizeof(vbuf));
	lint_violate(c, rule, pfn, "%s = %s, expected NULL (%s)",
		     label(c, s, t, lbuf, sizeof(lbuf)), vbuf, why);
}

/* A page mapped or given to a mapping by dax. */
static bool page_in_use(const struct mmc_page_view *v)
{
	return v->mapping.cls != MMC_V_NULL || v->mapcount > MMC_MAPCOUNT_UNMAPPED;
}

static void check_refcount(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v,
			   int expected, bool in_use, const char *who)
{
	if (v->refcount < 0)
		lint_violate(c, MMC_RULE_REFCOUNT, pfn, "_refcount %d is negative", v->refcount);
	else if (v->refcount < expected)
		lint_violate(c, MMC_RULE_REFCOUNT, pfn, "_refcount %d, expected %d (%s)",
			     v->refcount, expected, who);
	else if (v->refcount > expected && !in_use)
		lint_violate(c, MMC_RULE_REFCOUNT, pfn,
			     "_refcount %d on an unmapped page, expected %d (%s)",
			     v->refcount, expected, who);
}

/* What a head and an order-0 page share: __init_zone_device_page(). */
static void check_device_page(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
			      const struct mmc_page_view *v, bool in_use)
{
	bool dax = mmc_rule_dax_type(c->type);
	char buf[64], who[80];

	if (v->pgmap.cls != MMC_V_PGMAP || v->pgmap.v != (int64_t)c->sr->pgmap_index ||
	    v->pgmap.off != 0) {
		mmc_format_nval(&v->pgmap, buf, sizeof(buf));
		lint_violate(c, MMC_RULE_PGMAP, pfn, "pgmap %s, expected pgmap#%u", buf,
			     c->sr->pgmap_index);
	}
	snprintf(who, sizeof(who), "%s, %d.%d", c->type_name, c->kver.major, c->kver.minor);
	check_refcount(c, pfn, v, mmc_rule_head_refcount(c->kver, c->type), in_use, who);
	if (v->mapcount < MMC_MAPCOUNT_UNMAPPED)
		lint_violate(c, MMC_RULE_MAPCOUNT, pfn, "_mapcount %d below -1", v->mapcount);
	else if (dax && v->mapcount > MMC_MAPCOUNT_UNMAPPED && v->mapping.cls == MMC_V_NULL)
		lint_violate(c, MMC_RULE_MAPCOUNT, pfn,
			     "mapped (_mapcount %d) without a mapping (dax_set_mapping() sets one first)",
			     v->mapcount);
	if (dax && v->index && v->mapping.cls == MMC_V_NULL)
		lint_violate(c, MMC_RULE_INDEX, pfn,
			     "index %" PRIu64 " without a mapping", v->index);
	if (!mmc_rule_zdd_driver_owned(c->type))
		want_null(c, pfn, rec, c->have_zdd, c->zdd_slot, MMC_TAIL_NONE,
			  MMC_RULE_ZONE_DEVICE_DATA, "__init_zone_device_page()");
	if (dax)
		want_null(c, pfn, rec, c->have_memcg, c->memcg_slot, MMC_TAIL_NONE,
			  MMC_RULE_MEMCG, "device-dax and fsdax pages are never charged");
}

/* A tail of a folio the driver made (zone_device_folio_init()): its head is a
 * PG_head page of the same range below it. */
static bool driver_folio_tail(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v)
{
	struct mmc_nrec hrec;
	struct mmc_page_view hv;

	if (!v->head_pfn_valid || v->head_pfn >= pfn || v->head_pfn < c->sr->start_pfn)
		return false;
	if (!c->read_other || v->head_pfn < c->read_lo)
		c->read_lo = v->head_pfn;
	if (!c->read_other || v->head_pfn > c->read_hi)
		c->read_hi = v->head_pfn;
	c->read_other = true;
	if (!mmc_snapshot_get(c->snap, c->range, v->head_pfn, &hrec) ||
	    hrec.state != MMC_PS_READ)
		return false;
	mmc_page_decode(c->layout, c->geom, v->head_pfn, &hrec, &hv);
	return hv.head && !hv.tail;
}

static void check_single(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
			 const struct mmc_page_view *v)
{
	if (mmc_rule_driver_folios(c->kver, c->type)) {
		if (v->tail && !driver_folio_tail(c, pfn, v))
			lint_violate(c, MMC_RULE_ORDER, pfn,
				     "tail page whose compound_head is not a PG_head page below it in this range");
	} else if (v->tail) {
		lint_violate(c, MMC_RULE_ORDER, pfn, "tail page in an order-0 pgmap");
	} else if (v->head) {
		lint_violate(c, MMC_RULE_ORDER, pfn, "PG_head in an order-0 pgmap");
	}
	if (v->tail)
		return;
	check_device_page(c, pfn, rec, v, page_in_use(v));
	if (page_in_use(v) && mmc_rule_devdax_type(c->type))
		lint_check_dax_range(c, pfn, 1);
}

/* A wrong compound_head's target: which rule, and why (cached per target). */
static void analyse_target(struct lint_ctx *c, uint64_t pfn, uint64_t t, uint64_t want)
{
	struct lint_target *g = &c->target;
	struct mmc_page_view tv, tv2;
	struct mmc_nrec rec;

	c->target_reads++;
	if (g->valid && g->pfn == t && g->want == want)
		return;
	g->valid = true;
	g->pfn = t;
	g->want = want;
	g->rule = MMC_RULE_TAIL_HEAD;
	if (t < c->sr->start_pfn || t >= c->sr->end_pfn ||
	    !mmc_snapshot_get(c->snap, c->range, t, &rec)) {
		snprintf(g->message, sizeof(g->message),
			 "compound_head points to pfn 0x%" PRIx64 " outside range 0x%" PRIx64 "-0x%" PRIx64,
			 t, c->sr->start_pfn, c->sr->end_pfn);
		return;
	}
	if (rec.state != MMC_PS_READ) {
		snprintf(g->message, sizeof(g->message),
			 "compound_head names 0x%" PRIx64 " (unreadable), expected 0x%" PRIx64, t, want);
		return;
	}
	mmc_page_decode(c->layout, c->geom, t, &rec, &tv);
	if (tv.tail) {
		if (!tv.head_pfn_valid) {
			snprintf(g->message, sizeof(g->message),
				 "compound_head points to pfn 0x%" PRIx64 ", a tail without a head", t);
			return;
		}
		if (tv.head_pfn == t || tv.head_pfn == pfn) {
			g->rule = MMC_RULE_HEAD_CYCLE;
			snprintf(g->message, sizeof(g->message),
				 "compound_head loops: 0x%" PRIx64 " -> 0x%" PRIx64 " -> 0x%" PRIx64,
				 pfn, t, tv.head_pfn);
			return;
		}
		if (mmc_snapshot_get(c->snap, c->range, tv.head_pfn, &rec) &&
		    rec.state == MMC_PS_READ) {
			mmc_page_decode(c->layout, c->geom, tv.head_pfn, &rec, &tv2);
			if (tv2.tail) {
				g->rule = MMC_RULE_HEAD_CYCLE;
				snprintf(g->message, sizeof(g->message),
					 "compound_head chain deeper than 2: 0x%" PRIx64 " -> 0x%" PRIx64
					 " -> 0x%" PRIx64 " -> ...", pfn, t, tv.head_pfn);
				return;
			}
		}
		snprintf(g->message, sizeof(g->message),
			 "compound_head points to pfn 0x%" PRIx64 ", itself a tail of 0x%" PRIx64,
			 t, tv.head_pfn);
		return;
	}
	if (!tv.head) {
		snprintf(g->message, sizeof(g->message),
			 "compound_head points to pfn 0x%" PRIx64 " without PG_head", t);
		return;
	}
	snprintf(g->message, sizeof(g->message),
		 "compound_head names the head 0x%" PRIx64 ", not its own 0x%" PRIx64
		 " (compound_head not consistent)", t, want);
}

/* PageTail and compound_head(page) == head: free_tail_page_prepare(). */
static bool check_tail_head(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v,
			    const struct lint_expect *e)
{
	char buf[64];
	unsigned int order;

	if (!v->tail) {
		if (v->head)
			lint_violate(c, MMC_RULE_ORDER, pfn,
				     "PG_head on page[%" PRIu64 "] of the compound page at 0x%" PRIx64,
				     e->index, e->head);
		else
			lint_violate(c, MMC_RULE_TAIL_HEAD, pfn,
				     "PageTail not set on page[%" PRIu64 "] of the compound page at 0x%" PRIx64,
				     e->index, e->head);
		return false;
	}
	if (!v->head_pfn_valid) {
		mmc_format_nval(&v->compound_head, buf, sizeof(buf));
		lint_violate(c, MMC_RULE_TAIL_HEAD, pfn,
			     "compound_head %s is not a struct page (head 0x%" PRIx64 ")", buf, e->head);
		return false;
	}
	if (v->head_pfn == pfn) {
		lint_violate(c, MMC_RULE_HEAD_CYCLE, pfn, "compound_head points to its own page");
		return false;
	}
	if (v->head_pfn != e->head ||
	    (c->head.valid && c->head.pfn == e->head && c->head.readable && !c->head.proper)) {
		/* another page, or the right one that is no head */
		analyse_target(c, pfn, v->head_pfn, e->head);
		lint_violate(c, c->target.rule, pfn, "%s", c->target.message);
		return false;
	}
	if (v->compound_mask &&
	    mmc_compound_info_is_mask(c->sps, v->compound_head.raw, &order) && order != c->order)
		lint_violate(c, MMC_RULE_TAIL_HEAD, pfn,
			     "compound_info mask for order %u, the compound page has order %u",
			     order, c->order);
	if (v->head)
		lint_violate(c, MMC_RULE_ORDER, pfn,
			     "PG_head on page[%" PRIu64 "] of the compound page at 0x%" PRIx64,
			     e->index, e->head);
	return true;
}

/* The page flags a tail may carry besides PG_head (reported as order) and
 * page[1]'s: __init_zone_device_page()'s PG_reserved; on a HugeTLB tail
 * only memory_failure()'s PG_hwpoison of a raw page. */
static uint64_t tail_flags_allowed(const struct lint_ctx *c, enum mmc_tail_index t)
{
	uint64_t ok = (c->have_pg_head ? 1ULL << c->pg_head : 0) |
		      (t == MMC_TAIL_FIRST ? c->second_mask : 0);

	if (c->kind == MMC_RANGE_HUGETLB)
		return ok | (c->have_pg_hwpoison ? 1ULL << c->pg_hwpoison : 0);
	return ok | (c->have_pg_reserved ? 1ULL << c->pg_reserved : 0);
}

/* The words prep_compound_tail() and mm_zero_struct_page() leave, where
 * no struct folio member keeps its own value. */
static void check_tail_words(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
			     const struct mmc_page_view *v, uint64_t index)
{
	enum mmc_tail_index t = mmc_tail_index_of(index);
	bool device = c->kind == MMC_RANGE_PGMAP;
	const struct mmc_nval *sv;
	char lbuf[48], vbuf[64], fbuf[256];
	uint64_t extra;

	extra = v->pgflags & ~tail_flags_allowed(c, t);
	if (extra) {
		mmc_format_pgflags(c->layout, extra, fbuf, sizeof(fbuf));
		lint_violate(c, MMC_RULE_TAIL_FLAGS, pfn, "%s flags %s set", mmc_tail_index_name(t),
			     fbuf);
	}
	if (c->have_mapping && !lint_folio_word(c, index, c->mapping_slot) &&
	    (sv = slot(rec, true, c->mapping_slot)) &&
	    !(sv->cls == MMC_V_POISON && sv->v == MMC_POISON_TAIL_MAPPING)) {
		mmc_format_nval(sv, vbuf, sizeof(vbuf));
		lint_violate(c, MMC_RULE_TAIL_MAPPING, pfn,
			     "%s mapping %s, expected TAIL_MAPPING (corrupted mapping in tail page)",
			     mmc_tail_index_name(t), vbuf);
	}
	if (!lint_folio_word(c, index, c->private_slot))
		want_null(c, pfn, rec, c->have_private, c->private_slot, t,
			  MMC_RULE_TAIL_PRIVATE, "prep_compound_tail()");
	/* index: mm_zero_struct_page() on a device page; a HugeTLB tail's is
	 * neither written by prep_compound_tail() nor checked at free */
	if (device && c->have_index && !lint_folio_word(c, index, c->index_slot) &&
	    (sv = slot(rec, true, c->index_slot)) && sv->raw)
		lint_violate(c, MMC_RULE_INDEX, pfn, "%s = %" PRIu64 " on a tail, expected 0",
			     label(c, c->index_slot, t, lbuf, sizeof(lbuf)), sv->raw);
	if (device && !mmc_rule_zdd_driver_owned(c->type) &&
	    !lint_folio_word(c, index, c->zdd_slot))
		want_null(c, pfn, rec, c->have_zdd, c->zdd_slot, t,
			  MMC_RULE_ZONE_DEVICE_DATA, "__init_zone_device_page()");
	if (!lint_folio_word(c, index, c->memcg_slot))
		want_null(c, pfn, rec, c->have_memcg, c->memcg_slot, t, MMC_RULE_MEMCG,
			  "a tail is never charged");
}

static void check_tail(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
		       const struct mmc_page_view *v, const struct lint_expect *e)
{
	bool huge = c->kind == MMC_RANGE_HUGETLB, known_unmapped;

	if (v->refcount != 0)
		lint_violate(c, MMC_RULE_REFCOUNT, pfn, "tail _refcount %d, expected 0 (%s)",
			     v->refcount, huge ? "prep_compound_page()" : "memmap_init_compound()");
	if (!check_tail_head(c, pfn, v, e))
		return;	/* not a tail of this compound page: its words say nothing */
	/* hugetlb_add_*_rmap() count a HugeTLB folio's mappings in page[1]
	 * only: its tails stay unmapped */
	known_unmapped = huge || (c->head.valid && c->head.pfn == e->head &&
				  c->head.folio_known && !c->head.mapped);
	if (v->mapcount < MMC_MAPCOUNT_UNMAPPED ||
	    (known_unmapped && v->mapcount != MMC_MAPCOUNT_UNMAPPED))
		lint_violate(c, MMC_RULE_MAPCOUNT, pfn,
			     "tail _mapcount %d of an unmapped folio, expected -1 (nonzero mapcount)",
			     v->mapcount);
	check_tail_words(c, pfn, rec, v, e->index);
}

static void check_head(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
		       const struct mmc_page_view *v)
{
	bool in_use;

	memset(&c->head, 0, sizeof(c->head));
	c->head.valid = true;
	c->head.pfn = pfn;
	c->head.readable = true;
	c->head.proper = v->head && !v->tail;
	lint_check_head_align(c, pfn);
	if (v->tail) {
		if (v->head_pfn_valid && v->head_pfn == pfn) {
			lint_violate(c, MMC_RULE_HEAD_CYCLE, pfn,
				     "compound_head points to its own page (a head memmap_init_zone_device() starts here)");
			return;
		}
		if (v->head_pfn_valid) {
			analyse_target(c, pfn, v->head_pfn, pfn);
			if (c->target.rule == MMC_RULE_HEAD_CYCLE) {
				lint_violate(c, MMC_RULE_HEAD_CYCLE, pfn, "%s", c->target.message);
				return;
			}
		}
		lint_violate(c, MMC_RULE_ORDER, pfn,
			     "a tail where memmap_init_zone_device() starts a compound page of order %u",
			     c->order);
		return;
	}
	if (!v->head) {
		lint_violate(c, MMC_RULE_ORDER, pfn,
			     "no PG_head where memmap_init_zone_device() starts a compound page of order %u",
			     c->order);
		check_device_page(c, pfn, rec, v, page_in_use(v));
		return;
	}
	in_use = lint_check_folio(c, pfn, rec) || page_in_use(v);
	check_device_page(c, pfn, rec, v, in_use);
	if (in_use && mmc_rule_devdax_type(c->type))
		lint_check_dax_range(c, pfn, c->nr);
}

static void check_altmap(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
			 const struct mmc_page_view *v)
{
	const struct mmc_nval *n = slot(rec, c->have_lru, c->lru_slot);
	const struct mmc_nval *p = slot(rec, c->have_lru, c->lru_slot + 1);
	uint32_t lru_off = c->have_lru ? c->lru_slot * 8 : 0;
	char buf[64];

	if (v->tail || v->head)
		lint_violate(c, MMC_RULE_ORDER, pfn, "compound page on an altmap (memmap) pfn");
	check_refcount(c, pfn, v, 1, false, "memmap_init_range()");
	if (v->mapcount != MMC_MAPCOUNT_UNMAPPED)
		lint_violate(c, MMC_RULE_MAPCOUNT, pfn, "_mapcount %d on a memmap pfn, expected -1",
			     v->mapcount);
	if (n && p && !(n->cls == MMC_V_SELF && n->off == lru_off &&
			p->cls == MMC_V_SELF && p->off == lru_off)) {
		mmc_format_nval(n, buf, sizeof(buf));
		lint_violate(c, MMC_RULE_ALTMAP_INIT, pfn,
			     "lru.next %s: not the empty list INIT_LIST_HEAD() leaves", buf);
	}
	if (v->mapping.cls != MMC_V_NULL || v->index ||
	    (c->have_private && v->private_.cls != MMC_V_NULL))
		lint_violate(c, MMC_RULE_ALTMAP_INIT, pfn,
			     "mapping, index or private set on a memmap pfn");
}

/* What the kernel wrote where e puts the page, by the range's kind. */
static void check_place(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
			const struct mmc_page_view *v, const struct lint_expect *e)
{
	switch (e->place) {
	case LP_ALTMAP:
		check_altmap(c, pfn, rec, v);
		if (c->kind == MMC_RANGE_HOTPLUG)
			lint_hotplug_page(c, pfn, v);
		break;
	case LP_SINGLE:
		check_single(c, pfn, rec, v);
		break;
	case LP_HEAD:
		if (c->kind == MMC_RANGE_HUGETLB)
			lint_hugetlb_head(c, pfn, rec, v);
		else
			check_head(c, pfn, rec, v);
		break;
	case LP_TAIL:
		check_tail(c, pfn, rec, v, e);
		break;
	default:
		break;
	}
}

void lint_check_page(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec)
{
	struct mmc_page_view v;
	struct lint_expect e;

	c->res->pages_checked++;
	switch (rec->state) {
	case MMC_PS_UNREADABLE:
	case MMC_PS_UNMAPPED:
		if (rec->state == MMC_PS_UNMAPPED)
			lint_violate(c, MMC_RULE_UNREADABLE, pfn,
				     "struct page not mapped by the page tables");
		else
			lint_violate(c, MMC_RULE_UNREADABLE, pfn,
				     "struct page missing from the dump (%s)",
				     mmc_unread_reason_name(rec->reason ? rec->reason : MMC_UR_UNKNOWN));
		return;
	case MMC_PS_NOT_INIT:
		return;
	default:
		break;
	}
	e = lint_expect(c, pfn);
	if (e.place == LP_NONE || rec->role == MMC_ROLE_RESERVE)
		return;
	c->res->pages_read++;
	mmc_page_decode(c->layout, c->geom, pfn, rec, &v);
	/* a page that says it is a tail may hold TAIL_MAPPING wherever it is */
	check_poison(c, pfn, rec, e.place == LP_TAIL ? mmc_tail_index_of(e.index) :
				  v.tail ? MMC_TAIL_OTHER : MMC_TAIL_NONE);
	check_common(c, pfn, &v, &e);
	check_place(c, pfn, rec, &v, &e);
}
