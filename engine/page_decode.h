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
#include "nrec.h"

struct mmc_page_view {
	uint64_t pfn;
	uint64_t flags_raw;		/* whole flags word */
	uint64_t pgflags;		/* bits below __NR_PAGEFLAGS */
	uint32_t zone, node;
	bool head;			/* PG_head */
	bool tail;			/* compound_head bit 0 */
	bool head_pfn_valid;		/* tail whose compound_head points at a struct page */
	uint64_t head_pfn;
	struct mmc_nval compound_head;
	struct mmc_nval pgmap;		/* page->pgmap (<= 6.14) or the folio's, for heads/order-0 */
	struct mmc_nval zone_device_data;
	struct mmc_nval mapping;
	uint64_t index;
	struct mmc_nval private_;
	int32_t mapcount, refcount;
	struct mmc_nval lru_next, lru_prev;
	/* additions: */
	bool have_pgmap;		/* pgmap is meaningful: not a tail, member known */
	bool compound_mask;		/* tail with a 7.x mask-encoded compound_info */
};

/* Fields of page[1] / page[2] of a folio (from the head's next two records). */
struct mmc_folio_view {
	bool valid;
	uint32_t order;			/* _flags_1 & 0xff, or _folio_order */
	bool have_nr_pages;
	uint64_t nr_pages;		/* _folio_nr_pages */
	bool have_large_mapcount, have_entire_mapcount, have_nr_pages_mapped, have_pincount;
	int32_t large_mapcount, entire_mapcount, nr_pages_mapped, pincount;
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
 * Head pfn of a tail from its normalised compound_head / compound_info:
 * PAGE(delta, off 1) (head + 1), or a RAW 7.x mask (GENMASK(63, order +
 * log2(sizeof(struct page))) | 1, applied to the tail's own address).
 * false if the value is neither (not a tail, or corrupt).
 */
bool mmc_compound_info_head_pfn(const struct mmc_geom *geom, uint64_t pfn,
				const struct mmc_nval *compound_head,
				uint64_t *head_pfn);

/* "PG_reserved|PG_head" into buf (names from enum pageflags). */
void mmc_format_pgflags(const struct mmc_layout *layout, uint64_t pgflags,
			char *buf, size_t size);
/* "NULL", "self+8", "page-3+1", "pgmap#0", "TAIL_MAPPING", "obj#2(direct)",
 * or the raw hex. */
void mmc_format_nval(const struct mmc_nval *v, char *buf, size_t size);

/*
 * The kernel name of what lives in slot `slot` of a struct page for a page of
 * this kind: "flags", "compound_head" (or "compound_info"), "pgmap",
 * "zone_device_data", "mapping", "index", "private", "_mapcount+_refcount",
 * "memcg_data"; for page[1] / page[2] (tail_index 1 / 2) the folio members
 * ("_flags_1", "_large_mapcount+_entire_mapcount", "_folio_nr_pages",
 * "_deferred_list", ...).  tail_index: 0 head or order-0, 1/2 page[1]/page[2],
 * 3 any other tail.  Falls back to "+0xNN".
 */
const char *mmc_slot_label(const struct mmc_layout *layout, unsigned int slot,
			   unsigned int tail_index, char *buf, size_t size);

#endif
