/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's rules for ZONE_DEVICE struct pages, HugeTLB folios and
 * hot-plugged memmaps, in one place.
 *
 * - How the kernel encodes what it stores: a tail's compound_head /
 *   compound_info (head + 1, or the 7.x mask), the folio order in the low
 *   byte of page[1]'s flags, the zone and node fields of page->flags, the
 *   poison values of include/linux/poison.h.
 * - What the kernel writes, per version: the initial refcount of a device
 *   page per pgmap type, what memmap_init_compound() leaves in page[2].
 * - The lint rules, each with the kernel function it comes from.
 *
 * Pure: layout, geometry and values in, answers out.  The normaliser, the
 * decoder, lint, diff and report all take these from here, so a rule is
 * written once.  Offsets and flag bits still come from the layout; only the
 * encodings the kernel hard-codes itself are constants here.
 */
#ifndef MMC_RULES_H
#define MMC_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "model.h"

/* ---- which page of a compound page ---- */

/*
 * The struct folio members live in the head's next pages; the kernel's own
 * checks name them by position (free_tail_page_prepare(): "case 1", "case
 * 2", "default").
 */
enum mmc_tail_index {
	MMC_TAIL_NONE = 0,	/* a head, or an order-0 page */
	MMC_TAIL_FIRST = 1,	/* page[1]: _flags_1, mapcounts, order */
	MMC_TAIL_SECOND = 2,	/* page[2]: _deferred_list */
	MMC_TAIL_OTHER = 3,	/* page[3] and beyond */
	MMC_TAIL_KINDS = 4
};

/* Index i of a page within its compound page (0 = head) as a kind. */
static inline enum mmc_tail_index mmc_tail_index_of(uint64_t i)
{
	return i >= MMC_TAIL_OTHER ? MMC_TAIL_OTHER : (enum mmc_tail_index)i;
}

/* "head/order-0", "page[1]", "page[2]", "tail" */
const char *mmc_tail_index_name(enum mmc_tail_index t);

/* ---- include/linux/poison.h: POISON_POINTER_DELTA + these ---- */

#define MMC_POISON_LIST1	0x100	/* LIST_POISON1 */
#define MMC_POISON_LIST2	0x122	/* LIST_POISON2 */
#define MMC_POISON_TAIL_MAPPING	0x400	/* TAIL_MAPPING: prep_compound_tail() */
/* How far above POISON_POINTER_DELTA a value still counts as poison. */
#define MMC_POISON_SPAN		0x1000

/* "LIST_POISON1", "LIST_POISON2", "TAIL_MAPPING" or NULL. */
const char *mmc_poison_name(int64_t off);

/*
 * Fill patterns a struct page never holds once initialised: slab poison
 * (include/linux/poison.h POISON_FREE 0x6b, POISON_INUSE 0x5a, POISON_END
 * 0xa5) and the 0xcc of uninitialised stack (init_on_alloc off).  NULL if
 * raw is none of them.
 */
const char *mmc_fill_pattern_name(uint64_t raw);

/* ---- the folio order ---- */

/*
 * folio_set_order() (6.5+): folio->_flags_1 = (_flags_1 & ~0xffUL) | order;
 * 6.1 keeps it in its own byte, _folio_order (set_compound_order()).
 */
#define MMC_FLAGS1_ORDER_MASK 0xffULL

/* true when this kernel keeps the order in page[1]'s flags word. */
bool mmc_order_in_flags1(const struct mmc_layout *layout);

/* ---- page->flags fields (include/linux/page-flags-layout.h) ---- */

uint64_t mmc_flags_zone_mask(const struct mmc_geom *geom);
uint64_t mmc_flags_node_mask(const struct mmc_geom *geom);
uint32_t mmc_flags_zone(const struct mmc_geom *geom, uint64_t flags);
uint32_t mmc_flags_node(const struct mmc_geom *geom, uint64_t flags);
/* The bits below __NR_PAGEFLAGS. */
uint64_t mmc_flags_pgflags(const struct mmc_geom *geom, uint64_t flags);
/* Bit of a page flag by name from enum pageflags; false if the kernel has
 * no such flag (or it lies outside the word). */
bool mmc_pageflag_bit(const struct mmc_layout *layout, const char *name,
		      unsigned int *bit);
/* Name of page flag `bit`: the first enumerator with that value that is
 * not a "__NR_PAGEFLAGS"-style count; NULL if none. */
const char *mmc_pageflag_name(const struct mmc_layout *layout, unsigned int bit);

/*
 * PAGE_FLAGS_SECOND (include/linux/page-flags.h, 6.10+): what page[1]'s
 * own flags word may hold besides what every tail holds: the order byte
 * and the PF_SECOND flags (PG_has_hwpoisoned, PG_large_rmappable,
 * PG_partially_mapped; 6.1: PG_double_map).  Flags the kernel does not
 * have are left out.
 */
uint64_t mmc_flags_second_mask(const struct mmc_layout *layout);

/* ---- compound_head / compound_info (include/linux/page-flags.h) ---- */

/*
 * The 7.x mask form (compound_info_has_mask(): HVO and a power-of-2 struct
 * page): set_compound_head() stores GENMASK(63, order + log2(sizeof(struct
 * page))) | 1.  true if raw is such a value (order 1 .. 24); *order is set
 * when non-NULL.
 */
bool mmc_compound_info_is_mask(uint32_t struct_page_size, uint64_t raw,
			       unsigned int *order);
/* The value set_compound_head() stores for a tail of an order-`order`
 * folio in the mask form; 0 if sizeof(struct page) is not a power of 2. */
uint64_t mmc_compound_info_mask(uint32_t struct_page_size, unsigned int order);

/*
 * Head pfn of a tail from its normalised compound_head / compound_info, as
 * _compound_head() computes it: PAGE(delta, off 1) is head + 1; SELF+1
 * is a page naming itself (corrupt, but that is what the kernel reads); a
 * RAW mask is applied to the tail's own address.  false if the value is
 * none of these (not a tail, or a pointer outside the memmap).
 */
bool mmc_compound_info_head_pfn(const struct mmc_geom *geom, uint64_t pfn,
				const struct mmc_nval *compound_head,
				uint64_t *head_pfn);

/* PageTail(): bit 0 of the raw value behind a normalised slot. */
bool mmc_nval_bit0(const struct mmc_nval *nv);

/*
 * Which page of its compound page the page at pfn is, by its own
 * normalised compound_head: NONE unless bit 0 is set; the distance to the
 * head mmc_compound_info_head_pfn() finds, else OTHER (a tail naming a
 * head it cannot place).
 */
enum mmc_tail_index mmc_compound_info_tail_index(const struct mmc_geom *geom, uint64_t pfn,
						 const struct mmc_nval *compound_head);
/*
 * Pages from pfn on (at most n) along a run, first record's compound_head
 * ch and the run's stride of that slot, whose mmc_compound_info_tail_index()
 * stays what it is at pfn.  A pointer-encoded tail names head + 1 as a
 * PAGE delta that moves by the stride; a mask-encoded one (a RAW constant)
 * names the naturally aligned head below it, so the kind is fixed from
 * page[3] to the end of its compound page.
 */
uint64_t mmc_compound_info_tail_span(const struct mmc_geom *geom, uint64_t pfn,
				     const struct mmc_nval *ch, const struct mmc_nval *stride,
				     uint64_t n);

/* ---- mapcounts ---- */

/*
 * The value of an unmapped page's _mapcount and of an unmapped folio's
 * _large_mapcount, _entire_mapcount and _mm_id_mapcount[]: the counters
 * start at -1 so that the first map and the last unmap are the transitions
 * through 0 (include/linux/mm_types.h: "the mapcount is always initialized
 * to -1").  __init_single_page() and prep_compound_tail() write it
 * (atomic_set(&page->_mapcount, -1); 6.1 through page_mapcount_reset()),
 * prep_compound_head() for page[1]'s counters.  Anything below it is an
 * underflow.
 */
#define MMC_MAPCOUNT_UNMAPPED (-1)

/* ---- kernel versions ---- */

struct mmc_kver {
	bool known;
	int major, minor;
};

/* "6.12.117" -> 6.12; known false if it does not start with two numbers. */
struct mmc_kver mmc_kver_parse(const char *release);
/* The image's version: the snapshot's release, else the layout's; without
 * either, 6.15 or 6.14 from where the layout keeps pgmap (it moved into
 * struct folio in 6.15 with the refcount change). */
struct mmc_kver mmc_kver_of(const struct mmc_layout *layout, const char *release);
/* <0, 0, >0 as v is before, at, after major.minor. */
int mmc_kver_cmp(struct mmc_kver v, int major, int minor);

/* ---- enum memory_type (include/linux/memremap.h) ---- */

/*
 * The pgmap types, by what they are.  The kernel's numbers are not the
 * same in every version (MEMORY_DEVICE_PRIVATE is 1 in 6.1 and 6.12, the
 * enum has grown since), so a dump's type is read by name: the snapshot's
 * string, or the layout's enum memory_type enumerator of pgmap->type.  It
 * becomes this enum in one place, mmc_memory_type_parse(); everything
 * else switches on the enum.  The values index the short-name table the
 * diff's TYPE column and claims files use.
 */
enum mmc_memory_type {
	MMC_MEMORY_UNKNOWN = -1,
	MMC_MEMORY_GENERIC,	/* MEMORY_DEVICE_GENERIC: "devdax" */
	MMC_MEMORY_FS_DAX,	/* MEMORY_DEVICE_FS_DAX: "fsdax" */
	MMC_MEMORY_PRIVATE,	/* MEMORY_DEVICE_PRIVATE: "private" */
	MMC_MEMORY_COHERENT,	/* MEMORY_DEVICE_COHERENT: "coherent" */
	MMC_MEMORY_PCI_P2PDMA,	/* MEMORY_DEVICE_PCI_P2PDMA: "p2pdma" */
	MMC_MEMORY_TYPE_COUNT
};

/* A short or kernel name ("devdax", "MEMORY_DEVICE_GENERIC"); UNKNOWN for
 * anything else, NULL included.  The one place a type name is compared. */
enum mmc_memory_type mmc_memory_type_parse(const char *name);

/* ---- what the kernel writes, per version ---- */

/*
 * _refcount of a head / order-0 device page after __init_zone_device_page()
 * (__init_single_page() sets 1 first): up to 6.14 MEMORY_DEVICE_PRIVATE and
 * _COHERENT are set to 0; from 6.15 also FS_DAX and PCI_P2PDMA, GENERIC
 * stays 1.
 */
int mmc_rule_head_refcount(struct mmc_kver v, enum mmc_memory_type type);

/* Device types whose zone_device_data belongs to the driver (the kernel
 * only clears it at init): MEMORY_DEVICE_PRIVATE, _COHERENT. */
bool mmc_rule_zdd_driver_owned(enum mmc_memory_type type);
/* Large folios made by the driver at run time may live in an order-0 pgmap. */
bool mmc_rule_driver_folios(struct mmc_kver v, enum mmc_memory_type type);
/* Device types whose pages hold only what dax gives them: mapping and
 * index together (dax_set_mapping(), dax_associate_entry()), no memcg
 * charge: MEMORY_DEVICE_GENERIC, _FS_DAX. */
bool mmc_rule_dax_type(enum mmc_memory_type type);
/* Device-dax (MEMORY_DEVICE_GENERIC): dev_dax->ranges bound its folios,
 * the dax-range rule applies. */
bool mmc_rule_devdax_type(enum mmc_memory_type type);

/*
 * What page[2]'s _deferred_list holds after memmap_init_compound().
 * prep_compound_head() makes it an empty list (INIT_LIST_HEAD, order > 1;
 * free_tail_page_prepare() reports "on deferred list" otherwise).  6.1 and
 * 6.12 call prep_compound_head() before page[2] is initialised, so there the
 * tail's own words win: next = zone_device_data NULL, prev = mapping
 * TAIL_MAPPING.  7.2 calls it after the tail loop.  Versions between the
 * ones read accept either.
 */
enum mmc_page2_state {
	MMC_PAGE2_EMPTY_LIST = 1 << 0,	/* next = prev = &_deferred_list */
	MMC_PAGE2_TAIL_WORDS = 1 << 1,	/* NULL, TAIL_MAPPING */
};
unsigned int mmc_rule_page2_states(struct mmc_kver v);

/* ---- HugeTLB (mm/hugetlb.c, mm/hugetlb_vmemmap.c) ---- */

/*
 * HUGETLB_VMEMMAP_RESERVE_SIZE is PAGE_SIZE (mm/hugetlb_vmemmap.h, 6.1,
 * 6.12, 7.2): HVO keeps a folio's first vmemmap page, which holds every
 * struct page the hugetlb code writes (BUILD_BUG_ON(__NR_USED_SUBPAGE >
 * HUGETLB_VMEMMAP_RESERVE_PAGES)), and remaps the others.
 */
#define MMC_HVO_RESERVE_PAGES 1

/*
 * Where the page type sits in page->page_type (the word of _mapcount):
 * 6.12+ __folio_set_hugetlb() writes (unsigned int)PGTY_hugetlb << 24
 * (include/linux/page-flags.h, FOLIO_TYPE_OPS).
 */
#define MMC_PAGE_TYPE_SHIFT 24

/* What a head's page_type word says of the hugetlb marker. */
enum mmc_hugetlb_type {
	MMC_HTYPE_UNKNOWN = 0,	/* the layout cannot tell (6.1: page[1].compound_dtor) */
	MMC_HTYPE_YES,
	MMC_HTYPE_NO,
};
/*
 * folio_test_hugetlb() on a head whose _mapcount word is page_type, by the
 * layout's enum pagetype: PGTY_hugetlb (6.12+, commit 4ffca5a96678 "mm:
 * support only one page_type per page": the top byte), else PG_hugetlb
 * with PAGE_TYPE_BASE (6.9-6.11, commit d99e3140a4d3 "mm: turn
 * folio_test_hugetlb into a PageType": the bit clear under the base).
 * Before 6.9 (6.1) the marker is page[1].compound_dtor ==
 * HUGETLB_PAGE_DTOR, an enum compound_dtor_id value the layout does not
 * carry: UNKNOWN.
 */
enum mmc_hugetlb_type mmc_rule_hugetlb_type(const struct mmc_layout *layout,
					    uint32_t page_type);

/*
 * Which frame HVO maps a folio's tail vmemmap pages (all but the first
 * MMC_HVO_RESERVE_PAGES) to, read-only (vmemmap_remap_pte(): PAGE_KERNEL_RO):
 * 6.1 and 6.12 the folio's own copy of its first vmemmap page
 * (__hugetlb_vmemmap_optimize_folio(): vmemmap_tail = vmemmap_head), so a
 * struct page there reads as one of the first page's, a "fake head" that
 * page_fixed_fake_head() resolves; 7.2 a page of tails shared by every
 * optimised folio of that order in the zone (vmemmap_get_tail():
 * zone->vmemmap_tails[]), since "mm/hugetlb: Remove fake head pages"
 * (Kiryl Shutsemau, the compound_info series).  Versions between the ones
 * read accept either.
 */
enum mmc_hvo_tail {
	MMC_HVO_TAIL_HEAD_FRAME = 1 << 0,	/* 6.x: the folio's head frame */
	MMC_HVO_TAIL_SHARED = 1 << 1,		/* 7.x: a frame no head is in */
};
unsigned int mmc_rule_hvo_tails(struct mmc_kver v);

/*
 * Whether a struct folio member the kernel keeps only for HugeTLB holds
 * slot `slot` of page[index] (index >= 1) of a hugetlb folio, on top of
 * what mmc_folio_owns_slot() says: from commit dad6a5eb5556 ("mm,hugetlb:
 * use folio fields in second tail page", 6.2) the subpool, cgroup and
 * hwpoison pointers are struct folio members of its last page (page[2];
 * page[3] since 4eeec8c89a0c "mm: move hugetlb specific things in folio
 * to page[3]", 6.15, in Debian's 6.12.117 too), the words between
 * compound_head and _mapcount; free_tail_page_prepare() "case 3" skips
 * that page's mapping.  Before it (6.1) they were the private words of
 * page[SUBPAGE_INDEX_SUBPOOL ..] (include/linux/hugetlb.h), all below
 * HUGETLB_VMEMMAP_RESERVE_PAGES.  Read from the layout's sizeof(struct
 * folio), not from the version.
 */
bool mmc_rule_hugetlb_owns_slot(const struct mmc_layout *layout, uint32_t struct_page_size,
				uint32_t page_size, uint64_t index, unsigned int slot);

/*
 * Whether slot `slot` of a HugeTLB folio's head is one of the two words of
 * its lru list_head, which link it into its hstate's list
 * (enqueue_hugetlb_folio(): list_move(&folio->lru,
 * &h->hugepage_freelists[nid]); the active list alike).  lru.next/prev
 * name its neighbours there, the order folios were freed and allocated
 * in: not struct page state a patch sets up, and it varies between boots
 * of one kernel (hugetlb_pages_alloc_boot() enqueues the boot-time folios
 * from padata_do_multithreaded() threads, 6.9+; a neighbour allocated at
 * another pfn changes the link).  Which list a folio is on, and the
 * lists' counts, are the pools' (diff_pools.c); the links are not
 * compared.  HVO's fake heads (page_fixed_fake_head(): the head's struct
 * page seen again through the shared vmemmap frame) carry the same words.
 * False when the layout has no slot-aligned lru.
 */
bool mmc_rule_hugetlb_list_word(const struct mmc_layout *layout, uint32_t struct_page_size,
				unsigned int slot);

/* ---- the lint rules ---- */

enum mmc_rule {
	MMC_RULE_UNREADABLE,
	MMC_RULE_TAIL_HEAD,
	MMC_RULE_HEAD_CYCLE,
	MMC_RULE_ORDER,
	MMC_RULE_HEAD_ALIGN,
	MMC_RULE_HEAD_FRAME,
	MMC_RULE_VMEMMAP_SHARE,
	MMC_RULE_VMEMMAP_RO,
	MMC_RULE_DAX_RANGE,
	MMC_RULE_FOLIO_MAPCOUNT,
	MMC_RULE_DEFERRED_LIST,
	MMC_RULE_REFCOUNT,
	MMC_RULE_MAPCOUNT,
	MMC_RULE_PGMAP,
	MMC_RULE_ZONE,
	MMC_RULE_NODE,
	MMC_RULE_RESERVED,
	MMC_RULE_TAIL_FLAGS,
	MMC_RULE_TAIL_MAPPING,
	MMC_RULE_TAIL_PRIVATE,
	MMC_RULE_INDEX,
	MMC_RULE_ZONE_DEVICE_DATA,
	MMC_RULE_MEMCG,
	MMC_RULE_ALTMAP_INIT,
	MMC_RULE_POISON,
	/* HugeTLB folios and hot-plugged memmaps (lint_hugetlb.c, lint_hvo.c,
	 * lint_hotplug.c) */
	MMC_RULE_HUGETLB_TYPE,
	MMC_RULE_HUGETLB_LIST,
	MMC_RULE_HVO_SHARE,
	MMC_RULE_HVO_RO,
	MMC_RULE_SELF_HOSTED,
	MMC_RULE_COUNT
};

struct mmc_rule_info {
	const char *name;	/* "tail-head": what lint reports */
	const char *kernel;	/* the kernel function(s) it comes from */
	const char *what;	/* one line: what must hold */
};

const struct mmc_rule_info *mmc_rule_info(enum mmc_rule rule);
/* false if no rule has that name. */
bool mmc_rule_by_name(const char *name, enum mmc_rule *rule);

/* ---- names the front ends and claims files use ---- */

/*
 * enum memory_type (include/linux/memremap.h) by the short names the
 * diff's TYPE column and claims files use: devdax (MEMORY_DEVICE_GENERIC),
 * fsdax (_FS_DAX), private, coherent, p2pdma (_PCI_P2PDMA).
 */
size_t mmc_memory_type_count(void);
const char *mmc_memory_type_short(size_t i);
const char *mmc_memory_type_kernel(size_t i);
/* Index of a short or kernel name; -1 if neither. */
int mmc_memory_type_index(const char *name);

/*
 * struct page / struct folio members the kernel renamed between the
 * versions read (layout.c resolves both spellings): the other name of
 * `name` ("compound_head" <-> "compound_info"), NULL if it was not renamed.
 */
const char *mmc_field_rename(const char *name);

#endif
