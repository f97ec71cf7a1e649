/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Page decoder (pure): normalised records + layout + geometry -> what the
 * kernel would say about the page.  Works on snapshot contents only, so show,
 * lint and diff work on saved snapshot files without the kernel at hand.
 */
#ifndef MMC_PAGE_DECODE_H
#define MMC_PAGE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "layout.h"
#include "model.h"
#include "rules.h"

struct mmc_page_view {
	uint64_t pfn;
	uint64_t flags_raw;		/* whole flags word */
	uint64_t pgflags;		/* bits below __NR_PAGEFLAGS */
	uint32_t zone, node;
	bool head;			/* PG_head */
	bool tail;			/* compound_head bit 0 */
	bool head_pfn_valid;		/* tail whose compound_head points at a struct page */
	uint64_t head_pfn;
	/* MMC_TAIL_NONE unless a tail naming a head at or before it */
	enum mmc_tail_index tail_index;
	/* page[1] of a kernel that keeps the folio order in its flags word:
	 * pgflags then excludes the order byte, flags_order holds it */
	bool flags_hold_order;
	uint32_t flags_order;
	struct mmc_nval compound_head;
	struct mmc_nval pgmap;		/* page->pgmap (<= 6.14) or the folio's, for heads/order-0 */
	struct mmc_nval zone_device_data;
	struct mmc_nval mapping;
	uint64_t index;
	struct mmc_nval private_;
	int32_t mapcount, refcount;
	struct mmc_nval lru_next, lru_prev;
	bool have_pgmap;		/* pgmap is meaningful: not a tail, member known */
	bool compound_mask;		/* tail with a 7.x mask-encoded compound_info */
};

/* The integer members of page[1] / page[2] a folio view reads. */
enum mmc_folio_int {
	MMC_FI_LARGE_MAPCOUNT,
	MMC_FI_ENTIRE_MAPCOUNT,
	MMC_FI_NR_PAGES_MAPPED,
	MMC_FI_PINCOUNT,
	MMC_FI_MM_ID_MAPCOUNT0,
	MMC_FI_MM_ID_MAPCOUNT1,
	MMC_FI_COUNT
};

/* Fields of page[1] / page[2] of a folio (from the head's next two records). */
struct mmc_folio_view {
	bool valid;
	uint32_t order;			/* _flags_1 & 0xff, or _folio_order */
	bool have_nr_pages;
	uint64_t nr_pages;		/* _folio_nr_pages */
	bool have_large_mapcount, have_entire_mapcount, have_nr_pages_mapped, have_pincount;
	int32_t large_mapcount, entire_mapcount, nr_pages_mapped, pincount;
	/* 7.x CONFIG_MM_ID: _mm_id_mapcount[2], _mm_ids (raw: the ids) */
	bool have_mm_id_mapcount, have_mm_ids;
	int32_t mm_id_mapcount[2];
	struct mmc_nval mm_ids;
	/*
	 * Members the layout has whose slot does not hold an integer (a
	 * pointer-classified value): bit (1 << enum mmc_folio_int).  Such a
	 * member is not "have_": its value is unknown.
	 */
	uint32_t not_int;
	bool have_deferred_list;
	struct mmc_nval deferred_next, deferred_prev;
};

void mmc_page_decode(const struct mmc_layout *layout, const struct mmc_geom *geom,
		     uint64_t pfn, const struct mmc_nrec *rec,
		     struct mmc_page_view *out);
/* recs[0] = head, recs[1] = page[1], recs[2] = page[2]; n = how many exist. */
void mmc_folio_decode(const struct mmc_layout *layout, const struct mmc_geom *geom,
		      const struct mmc_nrec *recs, size_t n,
		      struct mmc_folio_view *out);

/* Raw integer of a member from a record (RAW slots; sub-word members too).
 * false if the member is not found or lies in a non-RAW slot. */
bool mmc_nrec_member_u64(const struct mmc_layout *layout, const struct mmc_nrec *rec,
			 enum mmc_member_id id, uint32_t base_offset, uint64_t *value);

/*
 * true if some struct folio member the layout knows overlaps slot `slot` of
 * page[tail] (tail 1 or 2): that word is the folio's, not the page's.
 */
bool mmc_folio_owns_slot(const struct mmc_layout *layout, uint32_t struct_page_size,
			 enum mmc_tail_index tail, unsigned int slot);

/* The slot an 8-byte member of struct page starts in; false if the layout
 * lacks it or it is not slot-aligned. */
bool mmc_page_member_slot(const struct mmc_layout *layout, uint32_t struct_page_size,
			  enum mmc_member_id id, unsigned int *slot);

/* "PG_reserved|PG_head" into buf (names from enum pageflags). */
void mmc_format_pgflags(const struct mmc_layout *layout, uint64_t pgflags,
			char *buf, size_t size);
/* "NULL", "self+8", "page-3+1", "pgmap#0", "TAIL_MAPPING", "obj#2(direct)",
 * or the raw hex. */
void mmc_format_nval(const struct mmc_nval *v, char *buf, size_t size);

/*
 * The kernel name of what lives in slot `slot` of a struct page for a page of
 * this kind (tail) in a range of that kind: "flags", "compound_head" (or
 * "compound_info"), "pgmap", "zone_device_data", "mapping", "index",
 * "private", "_mapcount+_refcount", "memcg_data"; for page[1] / page[2] the
 * folio members ("_flags_1", "_large_mapcount+_entire_mapcount",
 * "_folio_nr_pages", "_deferred_list", ...).  Outside ZONE_DEVICE (HugeTLB,
 * hot-plug) the words of the pgmap/zone_device_data union are
 * lru.next/lru.prev.  Falls back to "+0xNN".
 */
const char *mmc_slot_label_of(const struct mmc_layout *layout, enum mmc_range_kind kind,
			      unsigned int slot, enum mmc_tail_index tail, char *buf,
			      size_t size);

/*
 * Slots holding exactly two members (two ints: "_mapcount+_refcount"): their
 * names, low half first, for the kind of page.  false for any other slot.
 */
bool mmc_slot_halves(const struct mmc_layout *layout, unsigned int slot,
		     enum mmc_tail_index tail, char lo[48], char hi[48]);

#endif
