/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Normaliser: raw struct page bytes -> struct mmc_nrec, turning pointers into
 * classes that survive a reboot (KASLR, allocation addresses) without ever
 * hiding a real change: NULL vs self-pointer differ, a pointer into another
 * struct page keeps its pfn delta and byte offset, pgmaps become indexes,
 * other kernel pointers are numbered by first appearance in the image (so two
 * images with the same pointer structure compare equal and a page that points
 * elsewhere does not).  Values outside every kernel region stay MMC_V_RAW.
 * One context per image (it holds the first-appearance numbering).
 */
#ifndef MMC_NORMALISE_H
#define MMC_NORMALISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "mmc_error.h"
#include "model.h"
#include "rules.h"

struct mmc_norm;

/* pgmap_kaddrs[i] is pgmap i's address; pgmap_size = sizeof(struct dev_pagemap). */
struct mmc_error *mmc_norm_create(const struct mmc_layout *layout,
				  const struct mmc_geom *geom,
				  const uint64_t *pgmap_kaddrs, size_t npgmaps,
				  struct mmc_norm **out);
void mmc_norm_destroy(struct mmc_norm *norm);
/*
 * The ZONE_DEVICE ranges being walked, sorted by start_pfn.  Once set, a
 * vmemmap pointer to a struct page outside all of them is an MMC_V_OBJ
 * (region MMC_R_VMEMMAP, numbered by first appearance) rather than a page
 * delta: it names an allocation, which moves from boot to boot.
 */
struct mmc_error *mmc_norm_set_ranges(struct mmc_norm *norm,
				      const struct mmc_srange *ranges, size_t n);

/* Normalise one pointer-capable value seen at slot `slot` of pfn's struct page. */
struct mmc_nval mmc_norm_value(struct mmc_norm *norm, uint64_t pfn, uint64_t raw);

/* bytes: geom->struct_page_size bytes of pfn's struct page.  Sets state
 * MMC_PS_READ, role as given, every slot. */
void mmc_norm_page(struct mmc_norm *norm, uint64_t pfn, const uint8_t *bytes,
		   enum mmc_page_role role, struct mmc_nrec *out);

/*
 * rec, mmc_norm_page()'s record of a struct page (state READ), becomes
 * what it gives for the same bytes and role `by` pfns further on; false
 * (rec unchanged: call mmc_norm_page()) where more than vmemmap pointers
 * depend on the pfn: page[1]'s mm ids (7.x).
 */
bool mmc_norm_page_move(const struct mmc_norm *norm, struct mmc_nrec *rec, int64_t by);
/*
 * The same as copying rec's state, role, nslots, reason and first nslots
 * slots into out and moving that by `by`, in one pass (out's other slots
 * untouched); false (out untouched) where mmc_norm_page_move() is.
 */
bool mmc_norm_page_moved(const struct mmc_norm *norm, const struct mmc_nrec *rec,
			 int64_t by, struct mmc_nrec *out);
/*
 * A run of `count` records of pfns pfn + t, first + t * stride (t <
 * count; stride unread when count is 1), moved `by` pfns on: out becomes
 * the moved first record, and the moved records are out + t * stride,
 * each what mmc_norm_page() gives for the same bytes `by` pfns on.
 * false (out untouched) where the moved records would not be one run (a
 * page pointer of one record, not all, landing on its own pfn), or, on
 * 7.x, where a record of the run might be page[1] (its mm ids) where it
 * is or where it moves to.  Unlike mmc_norm_page_moved(), it moves runs
 * on 7.x.
 */
bool mmc_norm_run_moved(const struct mmc_norm *norm, uint64_t pfn,
			const struct mmc_nrec *first, const struct mmc_nrec *stride,
			uint64_t count, int64_t by, struct mmc_nrec *out);
/* false where mmc_norm_page_move() never moves a record (7.x mm ids) */
bool mmc_norm_can_move(const struct mmc_norm *norm);

/* true if the slot holds only integer members (flags, _mapcount/_refcount)
 * and is always MMC_V_RAW. */
bool mmc_norm_slot_is_raw(const struct mmc_norm *norm, unsigned int slot);

/*
 * true if a first-appearance number could not be allocated, so some pointer
 * was kept MMC_V_RAW instead of MMC_V_OBJ (the image is still comparable,
 * but may show differences that are not there: report it).
 */
bool mmc_norm_failed(const struct mmc_norm *norm);
/* How many distinct MMC_V_OBJ targets were numbered so far. */
size_t mmc_norm_obj_count(const struct mmc_norm *norm);

/* Equality used by diff and run compression: cls, off, v (not raw). */
static inline int mmc_nval_equal(const struct mmc_nval *a, const struct mmc_nval *b)
{
	return a->cls == b->cls && a->off == b->off && a->v == b->v &&
	       (a->cls != MMC_V_OBJ || a->region == b->region);
}

#endif
