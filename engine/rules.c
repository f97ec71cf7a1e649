// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's rules for ZONE_DEVICE struct pages, HugeTLB folios and
 * hot-plugged memmaps (see rules.h).  Sources read: Debian's 6.1.192
 * (linux-source-6.1), 6.12.117 (linux-source-6.12) and 7.2.8 (sid):
 * mm/mm_init.c, mm/internal.h, mm/page_alloc.c, mm/sparse-vmemmap.c,
 * mm/hugetlb.c, mm/hugetlb_vmemmap.c, mm/memory_hotplug.c,
 * include/linux/mm_types.h, include/linux/page-flags.h,
 * include/linux/hugetlb.h, include/linux/rmap.h, include/linux/poison.h,
 * drivers/dax/device.c.
 */
#include <stdlib.h>
#include <string.h>

#include "rules.h"

const char *mmc_tail_index_name(enum mmc_tail_index t)
{
	switch (t) {
	case MMC_TAIL_NONE: return "head/order-0";
	case MMC_TAIL_FIRST: return "page[1]";
	case MMC_TAIL_SECOND: return "page[2]";
	default: return "tail";
	}
}

const char *mmc_poison_name(int64_t off)
{
	switch (off) {
	case MMC_POISON_LIST1: return "LIST_POISON1";
	case MMC_POISON_LIST2: return "LIST_POISON2";
	case MMC_POISON_TAIL_MAPPING: return "TAIL_MAPPING";
	default: return NULL;
	}
}

const char *mmc_fill_pattern_name(uint64_t raw)
{
	static const struct { uint64_t v; const char *name; } fills[] = {
		{ 0x6b6b6b6b6b6b6b6bULL, "POISON_FREE" },
		{ 0x5a5a5a5a5a5a5a5aULL, "POISON_INUSE" },
		{ 0xa5a5a5a5a5a5a5a5ULL, "POISON_END" },
		{ 0xccccccccccccccccULL, "uninitialised-stack fill" },
	};

	for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++)
		if (raw == fills[i].v)
			return fills[i].name;
	return NULL;
}

/*
 * Version cut: 6.1's set_compound_order() writes page[1]'s own
 * _folio_order byte; later kernels' folio_set_order() the low byte of
 * _flags_1.  Read from the layout (whether struct folio has _folio_order),
 * not from the version.
 */
bool mmc_order_in_flags1(const struct mmc_layout *layout)
{
	return layout && !layout->member[MMC_FOLIO_ORDER].found &&
	       layout->member[MMC_FOLIO_FLAGS_1].found;
}

static uint64_t field_mask(uint32_t width, uint32_t shift)
{
	uint64_t m;

	if (width == 0 || shift >= 64)
		return 0;
	m = width >= 64 ? UINT64_MAX : (1ULL << width) - 1;
	return m << shift;
}

uint64_t mmc_flags_zone_mask(const struct mmc_geom *geom)
{
	return field_mask(geom->zones_width, geom->zones_pgshift);
}

uint64_t mmc_flags_node_mask(const struct mmc_geom *geom)
{
	return field_mask(geom->nodes_width, geom->nodes_pgshift);
}

uint32_t mmc_flags_zone(const struct mmc_geom *geom, uint64_t flags)
{
	if (!mmc_flags_zone_mask(geom))
		return 0;
	return (uint32_t)((flags & mmc_flags_zone_mask(geom)) >> geom->zones_pgshift);
}

uint32_t mmc_flags_node(const struct mmc_geom *geom, uint64_t flags)
{
	if (!mmc_flags_node_mask(geom))
		return 0;
	return (uint32_t)((flags & mmc_flags_node_mask(geom)) >> geom->nodes_pgshift);
}

uint64_t mmc_flags_pgflags(const struct mmc_geom *geom, uint64_t flags)
{
	if (geom->nr_pageflags >= 64)
		return flags;
	return flags & ((1ULL << geom->nr_pageflags) - 1);
}

bool mmc_pageflag_bit(const struct mmc_layout *layout, const char *name,
		      unsigned int *bit)
{
	int64_t v;

	if (!layout || !mmc_layout_enum_value(layout, MMC_ENUM_PAGEFLAGS, name, &v) ||
	    v < 0 || v >= 64)
		return false;
	*bit = (unsigned int)v;
	return true;
}

const char *mmc_pageflag_name(const struct mmc_layout *layout, unsigned int bit)
{
	const struct mmc_enum *e;

	if (!layout)
		return NULL;
	e = &layout->enums[MMC_ENUM_PAGEFLAGS];
	if (!e->found || !e->values)
		return NULL;
	for (size_t i = 0; i < e->count; i++) {
		const char *n = e->values[i].name;

		if (n && e->values[i].value == (int64_t)bit && strncmp(n, "__", 2))
			return n;
	}
	return NULL;
}

uint64_t mmc_flags_second_mask(const struct mmc_layout *layout)
{
	static const char *const second[] = {
		"PG_has_hwpoisoned", "PG_large_rmappable", "PG_partially_mapped",
		"PG_double_map",
	};
	uint64_t m = mmc_order_in_flags1(layout) ? MMC_FLAGS1_ORDER_MASK : 0;
	unsigned int bit;

	for (size_t i = 0; i < sizeof(second) / sizeof(second[0]); i++)
		if (mmc_pageflag_bit(layout, second[i], &bit))
			m |= 1ULL << bit;
	return m;
}

/*
 * Version cut: the mask form of compound_info comes with commit
 * 8c846c879e22 ("mm: rework compound_head() for power-of-2 sizeof(struct
 * page)", April 2026; 7.2.8 has it), the series that also renamed
 * page->compound_head to compound_info.  6.1 and 6.12 store head + 1
 * only.  Read from the value itself: a mask never looks like a vmemmap
 * pointer.
 *
 * Largest order a mask-encoded compound_info is accepted for (x86_64's
 * MAX_FOLIO_ORDER is PUD_ORDER 18).  The cap keeps the mask far above any
 * vmemmap, direct map or vmalloc address.
 */
#define MMC_MASK_MAX_ORDER 24

static unsigned int log2_exact(uint32_t v)
{
	unsigned int s = 0;

	while ((1u << s) < v)
		s++;
	return s;
}

/* Bit 0 set, bits 1 .. shift-1 clear, bits shift .. 63 set, with shift =
 * order + log2(sizeof(struct page)) and order >= 1. */
bool mmc_compound_info_is_mask(uint32_t struct_page_size, uint64_t raw,
			       unsigned int *order)
{
	unsigned int page_shift, shift;
	uint64_t low;

	if (struct_page_size == 0 ||
	    (struct_page_size & (struct_page_size - 1)) || !(raw & 1))
		return false;
	page_shift = log2_exact(struct_page_size);
	low = ~(raw & ~1ULL);	/* bits 1 .. shift-1 set, all else clear */
	low |= 1;		/* now (1 << shift) - 1 */
	if (low & (low + 1))
		return false;
	shift = (unsigned int)__builtin_popcountll(low);
	if (shift <= page_shift || shift - page_shift > MMC_MASK_MAX_ORDER)
		return false;
	if (order)
		*order = shift - page_shift;
	return true;
}

uint64_t mmc_compound_info_mask(uint32_t struct_page_size, unsigned int order)
{
	unsigned int shift;

	if (struct_page_size == 0 || (struct_page_size & (struct_page_size - 1)))
		return 0;
	shift = order + log2_exact(struct_page_size);
	if (shift >= 64)
		return 0;
	return (UINT64_MAX << shift) | 1;
}

bool mmc_compound_info_head_pfn(const struct mmc_geom *geom, uint64_t pfn,
				const struct mmc_nval *compound_head,
				uint64_t *head_pfn)
{
	uint64_t raw, addr, head;

	if (compound_head->cls == MMC_V_PAGE && compound_head->off == 1) {
		*head_pfn = pfn + (uint64_t)compound_head->v;
		return true;
	}
	if (compound_head->cls == MMC_V_SELF && compound_head->off == 1) {
		*head_pfn = pfn;
		return true;
	}
	if (compound_head->cls != MMC_V_RAW || geom->struct_page_size == 0)
		return false;
	raw = (uint64_t)compound_head->v;
	if (!mmc_compound_info_is_mask(geom->struct_page_size, raw, NULL))
		return false;
	/* _compound_head(): (unsigned long)page & info */
	addr = geom->vmemmap_base + pfn * geom->struct_page_size;
	head = addr & raw & ~1ULL;
	if (head < geom->vmemmap_base ||
	    (head - geom->vmemmap_base) % geom->struct_page_size)
		return false;
	*head_pfn = (head - geom->vmemmap_base) / geom->struct_page_size;
	return true;
}

bool mmc_nval_bit0(const struct mmc_nval *nv)
{
	switch (nv->cls) {
	case MMC_V_RAW:
	case MMC_V_POISON:
		return nv->v & 1;
	case MMC_V_SELF:
	case MMC_V_PAGE:
	case MMC_V_PGMAP:
		/* targets are 8-byte aligned: the parity is the offset's */
		return nv->off & 1;
	case MMC_V_OBJ:
		return nv->raw & 1;
	default:
		return false;
	}
}

enum mmc_tail_index mmc_compound_info_tail_index(const struct mmc_geom *geom, uint64_t pfn,
						 const struct mmc_nval *compound_head)
{
	uint64_t head;

	if (!mmc_nval_bit0(compound_head) || compound_head->cls == MMC_V_NULL)
		return MMC_TAIL_NONE;
	if (mmc_compound_info_head_pfn(geom, pfn, compound_head, &head) && head < pfn)
		return mmc_tail_index_of(pfn - head);
	return MMC_TAIL_OTHER;
}

uint64_t mmc_compound_info_tail_span(const struct mmc_geom *geom, uint64_t pfn,
				     const struct mmc_nval *ch, const struct mmc_nval *stride,
				     uint64_t n)
{
	int64_t dv = stride->v;
	unsigned int order;

	if (ch->cls == MMC_V_PAGE && (ch->off & 1)) {
		/* head = pfn + v: a constant head (dv -1 a page) keeps the
		 * index growing, so only page[1] and page[2] change kind */
		if (dv == 0 || (ch->v <= -MMC_TAIL_OTHER && dv < 0) || (ch->v >= 0 && dv > 0))
			return n;
		return 1;
	}
	if (ch->cls == MMC_V_RAW && stride->raw == 0 &&
	    mmc_compound_info_is_mask(geom->struct_page_size, ch->raw, &order)) {
		uint64_t nr = 1ULL << order, i = pfn & (nr - 1);

		if (i < MMC_TAIL_OTHER)
			return 1;
		return nr - i < n ? nr - i : n;
	}
	if (ch->cls != MMC_V_PAGE && ch->cls != MMC_V_NULL && (stride->raw & 1))
		return 1;
	return n;
}

struct mmc_kver mmc_kver_parse(const char *release)
{
	struct mmc_kver v = { 0 };
	const char *p = release;
	char *end;
	long ma, mi;

	if (!p)
		return v;
	ma = strtol(p, &end, 10);
	if (end == p || *end != '.' || ma < 0 || ma > 1000)
		return v;
	p = end + 1;
	mi = strtol(p, &end, 10);
	if (end == p || mi < 0 || mi > 1000)
		return v;
	v.known = true;
	v.major = (int)ma;
	v.minor = (int)mi;
	return v;
}

/* Version cut without a release: 6.15 moved pgmap into struct folio
 * (__init_zone_device_page(): page_folio(page)->pgmap = pgmap) in the same
 * release as the refcount change of mmc_rule_head_refcount(). */
struct mmc_kver mmc_kver_of(const struct mmc_layout *layout, const char *release)
{
	struct mmc_kver v = mmc_kver_parse(release);

	if (!v.known && layout)
		v = mmc_kver_parse(layout->release);
	if (!v.known) {
		v.known = true;
		v.major = 6;
		v.minor = layout && layout->member[MMC_FOLIO_PGMAP].found ? 15 : 14;
	}
	return v;
}

int mmc_kver_cmp(struct mmc_kver v, int major, int minor)
{
	if (v.major != major)
		return v.major < major ? -1 : 1;
	if (v.minor != minor)
		return v.minor < minor ? -1 : 1;
	return 0;
}

/*
 * __init_zone_device_page(), mm/mm_init.c.  Version cut: 6.15, the series
 * of "fs/dax: Properly refcount fs dax pages" (ZONE_DEVICE refcounts made
 * zero based), made it a switch on
 * pgmap->type that sets 0 for FS_DAX, PRIVATE, COHERENT and PCI_P2PDMA and
 * leaves GENERIC at 1; before it, only PRIVATE and COHERENT were set to 0
 * (6.1, 6.12: "if (pgmap->type == MEMORY_DEVICE_PRIVATE || ...)").
 */
int mmc_rule_head_refcount(struct mmc_kver v, enum mmc_memory_type type)
{
	bool from_6_15 = mmc_kver_cmp(v, 6, 15) >= 0;

	switch (type) {
	case MMC_MEMORY_PRIVATE:
	case MMC_MEMORY_COHERENT:
		return 0;
	case MMC_MEMORY_FS_DAX:
	case MMC_MEMORY_PCI_P2PDMA:
		return from_6_15 ? 0 : 1;
	case MMC_MEMORY_GENERIC:
	default:
		return 1;
	}
}

bool mmc_rule_zdd_driver_owned(enum mmc_memory_type type)
{
	switch (type) {
	case MMC_MEMORY_PRIVATE:
	case MMC_MEMORY_COHERENT:
		return true;
	default:
		return false;
	}
}

/*
 * Device-private and coherent memory gets its large folios from the driver
 * at allocation time: zone_device_folio_init() -> zone_device_page_init(page,
 * pgmap, order) (include/linux/memremap.h, mm/memremap.c, since 6.19), in a
 * pgmap whose vmemmap_shift is 0.  Before that, every such page was order 0.
 */
bool mmc_rule_driver_folios(struct mmc_kver v, enum mmc_memory_type type)
{
	return mmc_rule_zdd_driver_owned(type) && mmc_kver_cmp(v, 6, 19) >= 0;
}

bool mmc_rule_dax_type(enum mmc_memory_type type)
{
	switch (type) {
	case MMC_MEMORY_GENERIC:
	case MMC_MEMORY_FS_DAX:
		return true;
	default:
		return false;
	}
}

bool mmc_rule_devdax_type(enum mmc_memory_type type)
{
	switch (type) {
	case MMC_MEMORY_GENERIC:
		return true;
	default:
		return false;
	}
}

/* Version cut: 7.2's memmap_init_compound() runs prep_compound_head()
 * after the tail loop; 6.1 and 6.12 before it (rules.h). */
unsigned int mmc_rule_page2_states(struct mmc_kver v)
{
	if (mmc_kver_cmp(v, 7, 2) < 0)
		return MMC_PAGE2_TAIL_WORDS | MMC_PAGE2_EMPTY_LIST;
	return MMC_PAGE2_EMPTY_LIST;
}

enum mmc_hugetlb_type mmc_rule_hugetlb_type(const struct mmc_layout *layout,
					    uint32_t page_type)
{
	int64_t pgty, base, bit;

	if (!layout)
		return MMC_HTYPE_UNKNOWN;
	if (mmc_layout_enum_value(layout, MMC_ENUM_PAGETYPE, "PGTY_hugetlb", &pgty))
		return (int64_t)(page_type >> MMC_PAGE_TYPE_SHIFT) == pgty ? MMC_HTYPE_YES
									    : MMC_HTYPE_NO;
	if (mmc_layout_enum_value(layout, MMC_ENUM_PAGETYPE, "PG_hugetlb", &bit) &&
	    mmc_layout_enum_value(layout, MMC_ENUM_PAGETYPE, "PAGE_TYPE_BASE", &base))
		/* 6.9-6.11 PAGE_TYPE_OPS: a type is a cleared bit under the base */
		return (page_type & (uint32_t)(base | bit)) == (uint32_t)base ? MMC_HTYPE_YES
									    : MMC_HTYPE_NO;
	return MMC_HTYPE_UNKNOWN;
}

/* Version cut: "mm/hugetlb: Remove fake head pages" (rules.h). */
unsigned int mmc_rule_hvo_tails(struct mmc_kver v)
{
	if (mmc_kver_cmp(v, 6, 12) <= 0)
		return MMC_HVO_TAIL_HEAD_FRAME;
	if (mmc_kver_cmp(v, 7, 2) >= 0)
		return MMC_HVO_TAIL_SHARED;
	return MMC_HVO_TAIL_HEAD_FRAME | MMC_HVO_TAIL_SHARED;
}

bool mmc_rule_hugetlb_owns_slot(const struct mmc_layout *layout, uint32_t struct_page_size,
				uint32_t page_size, uint64_t index, unsigned int slot)
{
	const struct mmc_member *ch = &layout->member[MMC_PAGE_COMPOUND_HEAD];
	const struct mmc_member *mc = &layout->member[MMC_PAGE_MAPCOUNT];
	const struct mmc_member *priv = &layout->member[MMC_PAGE_PRIVATE];
	uint64_t pages;

	if (!struct_page_size || !index || !layout->size_found[MMC_SIZE_FOLIO])
		return false;
	pages = (layout->size[MMC_SIZE_FOLIO] + struct_page_size - 1) / struct_page_size;
	if (pages >= 3)
		return index == pages - 1 && ch->found && mc->found &&
		       slot * 8ULL > ch->offset && slot * 8ULL < mc->offset;
	/* 6.1: page[SUBPAGE_INDEX_*].private, within the reserved vmemmap */
	return priv->found && slot * 8ULL == priv->offset &&
	       index < (uint64_t)MMC_HVO_RESERVE_PAGES * page_size / struct_page_size;
}

bool mmc_rule_hugetlb_list_word(const struct mmc_layout *layout, uint32_t struct_page_size,
				unsigned int slot)
{
	const struct mmc_member *lru = &layout->member[MMC_PAGE_LRU];
	uint64_t first;

	if (!lru->found || lru->offset % 8 || lru->offset + 16ULL > struct_page_size)
		return false;
	first = lru->offset / 8;
	return slot == first || slot == first + 1;
}

static const struct mmc_rule_info rules[MMC_RULE_COUNT] = {
	[MMC_RULE_UNREADABLE] = { "unreadable",
		"(the dump)",
		"every struct page of the range can be read: no rule can be checked on a missing one" },
	[MMC_RULE_TAIL_HEAD] = { "tail-head",
		"prep_compound_tail()/set_compound_head(); free_tail_page_prepare(): \"PageTail not set\", \"compound_head not consistent\"",
		"every tail of a compound page memmap_init_compound() built (or of a HugeTLB folio, prep_compound_page()) names that page's head, in the encoding of the kernel" },
	[MMC_RULE_HEAD_CYCLE] = { "head-cycle",
		"_compound_head(): one step from a tail reaches a head",
		"compound_head never leads to a page that is itself a tail, or to itself" },
	[MMC_RULE_ORDER] = { "order",
		"memmap_init_zone_device()/memmap_init_compound() (__SetPageHead), prep_compound_head()/folio_set_order() (6.1: set_compound_order()); HugeTLB: prep_compound_page(), hugetlb_folio_init_vmemmap()",
		"PG_head exactly on the heads memmap_init_zone_device() starts every 1 << vmemmap_shift pfns (from the first device pfn, or from the first aligned one with order-0 pages around them), or on each HugeTLB folio's head; folio order and _folio_nr_pages say vmemmap_shift, or the hstate's order" },
	[MMC_RULE_HEAD_ALIGN] = { "head-align",
		"section_nr_vmemmap_pages() (VM_WARN_ON_ONCE(!IS_ALIGNED(pfn, pages_per_compound))), _compound_head() mask form, split_large_buddy()",
		"a compound page's head pfn is a multiple of its size (naturally aligned, relative to pfn 0)" },
	[MMC_RULE_HEAD_FRAME] = { "head-frame",
		"vmemmap_populate_compound_pages(): the head's vmemmap page is populated on its own, only tail pages are reused; prep_compound_head() writes page[1] and page[2]",
		"no head, page[1] or page[2] lies in a vmemmap frame shared with other vmemmap pages" },
	[MMC_RULE_VMEMMAP_SHARE] = { "vmemmap-share",
		"vmemmap_populate_compound_pages(), vmemmap_can_optimize() (no altmap, compound pgmap), Documentation/mm/vmemmap_dedup.rst; vmemmap_remap_pte(): a tail frame shared across folios is mapped PAGE_KERNEL_RO",
		"vmemmap frames are shared within one compound page, or across compound pages only read-only; never in order-0 pgmaps, never with an altmap" },
	[MMC_RULE_VMEMMAP_RO] = { "vmemmap-ro",
		"vmemmap_remap_pte() (PAGE_KERNEL_RO only for the shared tail frame); memmap_init_range(), __init_zone_device_page(), prep_compound_head() and the folio code write memmap pages, order-0 pages, heads, page[1] and page[2] after init",
		"a read-only vmemmap frame holds only plain tails (page[3] and beyond) and never-written reserve pages" },
	[MMC_RULE_DAX_RANGE] = { "dax-range",
		"__dev_dax_pmd_fault()/__dev_dax_pud_fault(): dax_pgoff_to_phys() then vmf_insert_folio_pmd()/_pud() map the whole folio",
		"a mapped device-dax folio lies inside its device-dax range (else the fault maps memory outside it)" },
	[MMC_RULE_FOLIO_MAPCOUNT] = { "folio-mapcount",
		"prep_compound_head(); free_tail_page_prepare() case 1: \"nonzero entire_mapcount\", \"nonzero large_mapcount\", \"nonzero nr_pages_mapped\", \"nonzero pincount\", \"nonzero mm mapcount\"",
		"page[1]'s counters are integers; an unmapped folio has prep_compound_head()'s values, a mapped one consistent ones" },
	[MMC_RULE_DEFERRED_LIST] = { "deferred-list",
		"prep_compound_head() INIT_LIST_HEAD(&folio->_deferred_list); free_tail_page_prepare() case 2: \"on deferred list\"; memmap_init_compound() order per version",
		"page[2]'s _deferred_list is an empty list (6.1-6.12: or the tail's own NULL/TAIL_MAPPING, written after prep_compound_head())" },
	[MMC_RULE_REFCOUNT] = { "refcount",
		"__init_zone_device_page() per pgmap type (6.15 change), memmap_init_compound() set_page_count(page, 0), init_page_count(); HugeTLB tails: prep_compound_page() on frozen buddy pages, hugetlb_folio_init_tail_vmemmap(); page_bad_reason(): \"nonzero _refcount\"",
		"heads and order-0 pages start at the type's count and only grow while in use; tails 0; memmap (altmap) pages 1, hot-plugged ones too" },
	[MMC_RULE_MAPCOUNT] = { "mapcount",
		"__init_single_page(): _mapcount = -1; page_bad_reason(): \"nonzero mapcount\"; hugetlb_add_file_rmap()/hugetlb_add_anon_rmap() count only the folio's mappings",
		"_mapcount is -1 unless the page is mapped, never below -1; a mapped dax page has a mapping; a HugeTLB tail's is always -1" },
	[MMC_RULE_PGMAP] = { "pgmap",
		"__init_zone_device_page(): page->pgmap = pgmap (6.15+: page_folio(page)->pgmap)",
		"heads and order-0 pages point at their range's dev_pagemap" },
	[MMC_RULE_ZONE] = { "zone",
		"__init_single_page()/set_page_links(); HugeTLB: prep_compound_page() on one buddy block, hugetlb_folio_init_tail_vmemmap() with folio_zonenum(); hot-plug: move_pfn_range_to_zone() of the block",
		"the zone field of page->flags says ZONE_DEVICE; a HugeTLB folio's pages are in its head's zone; a hot-plugged block's memmap pages in one zone" },
	[MMC_RULE_NODE] = { "node",
		"memmap_init_zone_device(): one nid (pgdat->node_id) for set_page_links() on every pfn of the range; enqueue_hugetlb_folio(): hugepage_freelists[folio_nid()]; memmap_init_range(): the block's nid",
		"every page of a range has the same node; a HugeTLB folio's pages have its head's, a free folio the node of its free list; a hot-plugged block's memmap pages the block's" },
	[MMC_RULE_RESERVED] = { "reserved",
		"__init_zone_device_page(), memmap_init_range() (MEMINIT_HOTPLUG): __SetPageReserved()",
		"PG_reserved is set on every initialised device page" },
	[MMC_RULE_TAIL_FLAGS] = { "tail-flags",
		"__init_zone_device_page() sets only PG_reserved; HugeTLB: hugetlb_folio_init_tail_vmemmap() (__ClearPageReserved(), __init_single_page()), memory_failure() (PG_hwpoison on a raw page); page_bad_reason(): \"PAGE_FLAGS_CHECK_AT_FREE flag(s) set\"; PAGE_FLAGS_SECOND",
		"a tail's page flags are PG_reserved (HugeTLB: none, or PG_hwpoison), plus the order byte and PF_SECOND flags on page[1]" },
	[MMC_RULE_TAIL_MAPPING] = { "tail-mapping",
		"prep_compound_tail(): mapping = TAIL_MAPPING; free_tail_page_prepare(): \"corrupted mapping in tail page\" (case 3: hugetlb specifics overlap page[3]'s)",
		"a tail's mapping is TAIL_MAPPING where no struct folio member holds that word" },
	[MMC_RULE_TAIL_PRIVATE] = { "tail-private",
		"prep_compound_tail(): set_page_private(p, 0)",
		"a tail's private is 0 where no struct folio member holds that word" },
	[MMC_RULE_INDEX] = { "index",
		"__init_single_page()/mm_zero_struct_page(); dax_set_mapping() and dax_associate_entry() set index with mapping",
		"a tail's index is 0 where no folio member holds it; a dax page with an index has a mapping" },
	[MMC_RULE_ZONE_DEVICE_DATA] = { "zone-device-data",
		"__init_zone_device_page(): page->zone_device_data = NULL",
		"zone_device_data is NULL (device-dax and fsdax: the kernel never sets it; private/coherent: the driver's)" },
	[MMC_RULE_MEMCG] = { "memcg",
		"mm_zero_struct_page(); page_bad_reason(): \"page still charged to cgroup\"",
		"memcg_data is 0 on tails and on device-dax/fsdax pages (never charged)" },
	[MMC_RULE_ALTMAP_INIT] = { "altmap-init",
		"memmap_init_range() -> __init_single_page() for the altmap pfns holding the memmap; hot-plug: memmap_init_range(MEMINIT_HOTPLUG), mhp_init_memmap_on_memory() (__ClearPageOffline(), SetPageVmemmapSelfHosted())",
		"a memmap (altmap) pfn is an order-0 page with its lru an empty list and nothing else set (hot-plugged: no page flag but PG_vmemmap_self_hosted)" },
	[MMC_RULE_POISON] = { "poison",
		"include/linux/poison.h; list_del() poisons lru, slab debugging fills freed memory; __del_page_from_free_list() leaves LIST_POISON2 in the lru.prev of a buddy merged into a larger block",
		"no poison value (other than a tail's TAIL_MAPPING, and a HugeTLB tail's LIST_POISON2 in lru.prev) or fill pattern in an initialised struct page" },
	[MMC_RULE_HUGETLB_TYPE] = { "hugetlb-type",
		"init_new_hugetlb_folio(): __folio_set_hugetlb(); folio_test_hugetlb(): page_type >> 24 == PGTY_hugetlb (6.12+, 4ffca5a96678), PG_hugetlb under PAGE_TYPE_BASE (6.9-6.11, d99e3140a4d3); 6.1: page[1].compound_dtor, not checked",
		"the head of a folio on a HugeTLB list carries the hugetlb page type" },
	[MMC_RULE_HUGETLB_LIST] = { "hugetlb-list",
		"enqueue_hugetlb_folio(): VM_BUG_ON_FOLIO(folio_ref_count(folio)), folio_set_hugetlb_freed(); dequeue_hugetlb_folio_node_exact() and the allocation paths: folio_ref_unfreeze(folio, 1), folio_clear_hugetlb_freed()",
		"a folio on a free list has _refcount 0 and HPG_freed; one on the active list a _refcount of at least 1 and no HPG_freed" },
	[MMC_RULE_HVO_SHARE] = { "hvo-share",
		"__hugetlb_vmemmap_optimize_folio(): vmemmap_remap_free() remaps every vmemmap page but the first (HUGETLB_VMEMMAP_RESERVE_SIZE) onto vmemmap_tail, sets HPG_vmemmap_optimized (6.x: vmemmap_tail = vmemmap_head; 7.x: vmemmap_get_tail(), \"mm/hugetlb: Remove fake head pages\"); vmemmap_restore_pte(): a page of its own for each; vmemmap_pmd_entry(): -ENOTSUPP on a self-hosted memmap",
		"an optimised folio (HPG_vmemmap_optimized) maps all its tail vmemmap pages onto one frame (6.x: its head frame; 7.x: not a head frame), and its memmap is not self-hosted; a plain one shares no vmemmap frame" },
	[MMC_RULE_HVO_RO] = { "hvo-ro",
		"vmemmap_remap_pte(): PAGE_KERNEL for the first vmemmap page (\"Remapping the head page requires r/w\"), PAGE_KERNEL_RO for the tail ones (\"to catch illegal write operation to the tail pages\"); vmemmap_restore_pte(), vmemmap_populate(): PAGE_KERNEL; 7.x boot: vmemmap_wrprotect_hvo()",
		"an optimised folio's tail vmemmap pages map the shared frame read-only; its first vmemmap page, and every vmemmap page of a plain folio, are writable" },
	[MMC_RULE_SELF_HOSTED] = { "self-hosted",
		"mhp_init_memmap_on_memory(): SetPageVmemmapSelfHosted() on every pfn of the block's altmap (PG_vmemmap_self_hosted = PG_owner_priv_1); vmemmap_pmd_entry() relies on it",
		"the pfns of an online memmap_on_memory block that hold its own memmap have PG_vmemmap_self_hosted" },
};

const struct mmc_rule_info *mmc_rule_info(enum mmc_rule rule)
{
	if ((unsigned int)rule >= MMC_RULE_COUNT)
		return NULL;
	return &rules[rule];
}

bool mmc_rule_by_name(const char *name, enum mmc_rule *rule)
{
	for (unsigned int r = 0; r < MMC_RULE_COUNT; r++) {
		if (rules[r].name && !strcmp(rules[r].name, name)) {
			*rule = (enum mmc_rule)r;
			return true;
		}
	}
	return false;
}

static const struct {
	const char *short_name, *kernel;
} memory_types[MMC_MEMORY_TYPE_COUNT] = {
	[MMC_MEMORY_GENERIC] = { "devdax", "MEMORY_DEVICE_GENERIC" },
	[MMC_MEMORY_FS_DAX] = { "fsdax", "MEMORY_DEVICE_FS_DAX" },
	[MMC_MEMORY_PRIVATE] = { "private", "MEMORY_DEVICE_PRIVATE" },
	[MMC_MEMORY_COHERENT] = { "coherent", "MEMORY_DEVICE_COHERENT" },
	[MMC_MEMORY_PCI_P2PDMA] = { "p2pdma", "MEMORY_DEVICE_PCI_P2PDMA" },
};

enum mmc_memory_type mmc_memory_type_parse(const char *name)
{
	for (int i = 0; name && i < MMC_MEMORY_TYPE_COUNT; i++)
		if (!strcmp(name, memory_types[i].short_name) ||
		    !strcmp(name, memory_types[i].kernel))
			return (enum mmc_memory_type)i;
	return MMC_MEMORY_UNKNOWN;
}

size_t mmc_memory_type_count(void)
{
	return MMC_MEMORY_TYPE_COUNT;
}

const char *mmc_memory_type_short(size_t i)
{
	return i < mmc_memory_type_count() ? memory_types[i].short_name : NULL;
}

const char *mmc_memory_type_kernel(size_t i)
{
	return i < mmc_memory_type_count() ? memory_types[i].kernel : NULL;
}

int mmc_memory_type_index(const char *name)
{
	return (int)mmc_memory_type_parse(name);
}

/*
 * The renames layout.c's member table resolves (its fallback spellings):
 * page->compound_head became compound_info with the 7.x compound_head
 * rework; page->index became __folio_index (folio->index is the name);
 * 6.1's struct folio called page[1]'s entire mapcount _total_mapcount.
 */
static const struct {
	const char *old_name, *new_name;
} field_renames[] = {
	{ "compound_head", "compound_info" },
	{ "index", "__folio_index" },
	{ "_total_mapcount", "_entire_mapcount" },
};

const char *mmc_field_rename(const char *name)
{
	for (size_t i = 0; name && i < sizeof(field_renames) / sizeof(field_renames[0]); i++) {
		if (!strcmp(name, field_renames[i].old_name))
			return field_renames[i].new_name;
		if (!strcmp(name, field_renames[i].new_name))
			return field_renames[i].old_name;
	}
	return NULL;
}
