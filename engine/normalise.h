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
#include "nrec.h"

struct mmc_norm;

/* pgmap_kaddrs[i] is pgmap i's address; pgmap_size = sizeof(struct dev_pagemap). */
struct mmc_error *mmc_norm_create(const struct mmc_layout *layout,
				  const struct mmc_geom *geom,
				  const uint64_t *pgmap_kaddrs, size_t npgmaps,
				  struct mmc_norm **out);
void mmc_norm_destroy(struct mmc_norm *norm);

/* Normalise one pointer-capable value seen at slot `slot` of pfn's struct page. */
struct mmc_nval mmc_norm_value(struct mmc_norm *norm, uint64_t pfn, uint64_t raw);

/* bytes: geom->struct_page_size bytes of pfn's struct page.  Sets state
 * MMC_PS_READ, role as given, every slot. */
void mmc_norm_page(struct mmc_norm *norm, uint64_t pfn, const uint8_t *bytes,
		   enum mmc_page_role role, struct mmc_nrec *out);

/* true if the slot holds only integer members (flags, _mapcount/_refcount)
 * and is always MMC_V_RAW. */
bool mmc_norm_slot_is_raw(const struct mmc_norm *norm, unsigned int slot);

/*
 * Additions (normaliser engineer):
 * true if a first-appearance number could not be allocated, so some pointer
 * was kept MMC_V_RAW instead of MMC_V_OBJ (the image is still comparable,
 * but may show differences that are not there: report it).
 */
bool mmc_norm_failed(const struct mmc_norm *norm);
/* How many distinct MMC_V_OBJ targets were numbered so far. */
size_t mmc_norm_obj_count(const struct mmc_norm *norm);
/*
 * true if `raw` is a 7.x mask-encoded compound_info of a tail page
 * (GENMASK(63, order + log2(struct_page_size)) | 1, CONFIG_HUGETLB_PAGE_
 * OPTIMIZE_VMEMMAP with a power-of-2 struct page); *order is set if non-NULL.
 * Such values are kept MMC_V_RAW (they are boot-independent).
 */
bool mmc_compound_info_is_mask(uint32_t struct_page_size, uint64_t raw,
			       unsigned int *order);

/* Equality used by diff and run compression: cls, off, v (not raw). */
static inline int mmc_nval_equal(const struct mmc_nval *a, const struct mmc_nval *b)
{
	return a->cls == b->cls && a->off == b->off && a->v == b->v &&
	       (a->cls != MMC_V_OBJ || a->region == b->region);
}

#endif
