/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hand-built layouts and geometry for unit tests, so that engine modules can
 * be tested without a vmlinux or layout.c.
 *
 * mmc_test_layout_612(): x86_64 6.12 with CONFIG_MEMCG, sizeof(struct page)
 * 64 (offsets as pahole shows them for Debian's 6.12 config).
 * mmc_test_layout_72(): a 7.2-like layout: flags.f, compound_info,
 * __folio_index, pgmap in struct folio, no _folio_nr_pages, _mm_ids in
 * page[1], PG_dropbehind before PG_mlocked.
 * mmc_test_layout_61(): Debian's 6.1 (offsets and enums as its saved layout
 * test-vectors/layouts/6.1-stock.layout has them): _folio_order and
 * _folio_dtor bytes, _total_mapcount, no _large_mapcount, no
 * _deferred_list in struct folio.
 * mmc_test_geom(): a non-KASLR x86_64 geometry (6.12: __NR_PAGEFLAGS 21);
 * mmc_test_geom_72(): the same with 7.2's __NR_PAGEFLAGS 22;
 * mmc_test_geom_61(): with 6.1's __NR_PAGEFLAGS 25.
 *
 * The fill functions zero the whole struct first (it may come from
 * mmc_layout_create() or the stack) and allocate the enum arrays with malloc,
 * so mmc_layout_destroy() or mmc_test_layout_release() can free them.
 * They return 0, or -1 when an allocation failed.
 */
#ifndef MMC_TEST_LAYOUT_FIXTURE_H
#define MMC_TEST_LAYOUT_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "model.h"

struct mmc_test_enumerator {
	const char *name;
	int64_t value;
};

static inline void mmc_test_member(struct mmc_layout *l, enum mmc_member_id id,
				   const char *name, uint32_t offset,
				   uint32_t size, uint32_t count)
{
	struct mmc_member *m = &l->member[id];

	m->found = true;
	m->offset = offset;
	m->size = size;
	m->count = count;
	snprintf(m->name, sizeof(m->name), "%s", name);
}

static inline int mmc_test_enum(struct mmc_layout *l, enum mmc_enum_id id,
				const struct mmc_test_enumerator *e, size_t n)
{
	struct mmc_enum *en = &l->enums[id];
	size_t i;

	en->values = calloc(n, sizeof(*en->values));
	if (!en->values)
		return -1;
	en->found = true;
	for (i = 0; i < n; i++) {
		en->values[i].name = strdup(e[i].name);
		if (!en->values[i].name)
			return -1;
		en->values[i].value = e[i].value;
		en->count = i + 1;
	}
	return 0;
}

/* Frees what the fill functions allocated; the struct itself stays. */
static inline void mmc_test_layout_release(struct mmc_layout *l)
{
	size_t i, j;

	for (i = 0; i < MMC_ENUM_COUNT; i++) {
		for (j = 0; j < l->enums[i].count; j++)
			free(l->enums[i].values[j].name);
		free(l->enums[i].values);
		l->enums[i].values = NULL;
		l->enums[i].count = 0;
		l->enums[i].found = false;
	}
}

static const struct mmc_test_enumerator mmc_test_memory_types[] = {
	{ "MEMORY_DEVICE_PRIVATE", 1 }, { "MEMORY_DEVICE_COHERENT", 2 },
	{ "MEMORY_DEVICE_FS_DAX", 3 }, { "MEMORY_DEVICE_GENERIC", 4 },
	{ "MEMORY_DEVICE_PCI_P2PDMA", 5 },
};

static const struct mmc_test_enumerator mmc_test_zone_types[] = {
	{ "ZONE_DMA", 0 }, { "ZONE_DMA32", 1 }, { "ZONE_NORMAL", 2 },
	{ "ZONE_MOVABLE", 3 }, { "ZONE_DEVICE", 4 }, { "__MAX_NR_ZONES", 5 },
};

/*
 * What every fixture starts from, in a zeroed struct: its identity, then
 * what 6.12 and 7.2 share (6.1 drops or resizes a few): the struct page
 * members that do not move, dev_pagemap, altmap, range, xarray, sizes,
 * symbols.
 */
static inline void mmc_test_layout_common(struct mmc_layout *l, const char *release,
					  const char *source)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->release, sizeof(l->release), "%s", release);
	snprintf(l->source, sizeof(l->source), "%s", source);
	mmc_test_member(l, MMC_PAGE_LRU, "lru", 8, 16, 0);
	mmc_test_member(l, MMC_PAGE_MAPPING, "mapping", 24, 8, 0);
	mmc_test_member(l, MMC_PAGE_PRIVATE, "private", 40, 8, 0);
	mmc_test_member(l, MMC_PAGE_ZONE_DEVICE_DATA, "zone_device_data", 16, 8, 0);
	mmc_test_member(l, MMC_PAGE_MAPCOUNT, "_mapcount", 48, 4, 0);
	mmc_test_member(l, MMC_PAGE_REFCOUNT, "_refcount", 52, 4, 0);
	mmc_test_member(l, MMC_PAGE_MEMCG_DATA, "memcg_data", 56, 8, 0);
	mmc_test_member(l, MMC_FOLIO_LARGE_MAPCOUNT, "_large_mapcount", 80, 4, 0);
	mmc_test_member(l, MMC_FOLIO_DEFERRED_LIST, "_deferred_list", 144, 16, 0);

	mmc_test_member(l, MMC_PGMAP_ALTMAP, "altmap", 0, 48, 0);
	mmc_test_member(l, MMC_PGMAP_REF, "ref", 48, 16, 0);
	mmc_test_member(l, MMC_PGMAP_DONE, "done", 64, 96, 0);
	mmc_test_member(l, MMC_PGMAP_TYPE, "type", 160, 4, 0);
	mmc_test_member(l, MMC_PGMAP_FLAGS, "flags", 164, 4, 0);
	mmc_test_member(l, MMC_PGMAP_VMEMMAP_SHIFT, "vmemmap_shift", 168, 8, 0);
	mmc_test_member(l, MMC_PGMAP_OPS, "ops", 176, 8, 0);
	mmc_test_member(l, MMC_PGMAP_OWNER, "owner", 184, 8, 0);
	mmc_test_member(l, MMC_PGMAP_NR_RANGE, "nr_range", 192, 4, 0);
	mmc_test_member(l, MMC_PGMAP_RANGE, "range", 200, 16, 0);
	mmc_test_member(l, MMC_ALTMAP_BASE_PFN, "base_pfn", 0, 8, 0);
	mmc_test_member(l, MMC_ALTMAP_END_PFN, "end_pfn", 8, 8, 0);
	mmc_test_member(l, MMC_ALTMAP_RESERVE, "reserve", 16, 8, 0);
	mmc_test_member(l, MMC_ALTMAP_FREE, "free", 24, 8, 0);
	mmc_test_member(l, MMC_ALTMAP_ALIGN, "align", 32, 8, 0);
	mmc_test_member(l, MMC_ALTMAP_ALLOC, "alloc", 40, 8, 0);
	mmc_test_member(l, MMC_RANGE_START, "start", 0, 8, 0);
	mmc_test_member(l, MMC_RANGE_END, "end", 8, 8, 0);
	mmc_test_member(l, MMC_XARRAY_HEAD, "xa_head", 8, 8, 0);
	mmc_test_member(l, MMC_XA_NODE_SHIFT, "shift", 0, 1, 0);
	mmc_test_member(l, MMC_XA_NODE_OFFSET, "offset", 1, 1, 0);
	mmc_test_member(l, MMC_XA_NODE_COUNT, "count", 2, 1, 0);
	mmc_test_member(l, MMC_XA_NODE_PARENT, "parent", 8, 8, 0);
	mmc_test_member(l, MMC_XA_NODE_SLOTS, "slots", 40, 512, 64);

	l->size_found[MMC_SIZE_PAGE] = true;
	l->size[MMC_SIZE_PAGE] = 64;
	l->size_found[MMC_SIZE_FOLIO] = true;
	l->size[MMC_SIZE_FOLIO] = 256;
	l->size_found[MMC_SIZE_DEV_PAGEMAP] = true;
	l->size[MMC_SIZE_DEV_PAGEMAP] = 216;
	l->size_found[MMC_SIZE_VMEM_ALTMAP] = true;
	l->size[MMC_SIZE_VMEM_ALTMAP] = 48;
	l->size_found[MMC_SIZE_RANGE] = true;
	l->size[MMC_SIZE_RANGE] = 16;
	l->size_found[MMC_SIZE_XA_NODE] = true;
	l->size[MMC_SIZE_XA_NODE] = 576;

	/* link-time addresses of a non-KASLR build */
	l->sym_found[MMC_SYM_PGMAP_ARRAY] = true;
	l->sym[MMC_SYM_PGMAP_ARRAY] = 0xffffffff82c4a1e0ULL;
	l->sym_found[MMC_SYM_VMEMMAP_BASE] = true;
	l->sym[MMC_SYM_VMEMMAP_BASE] = 0xffffffff826154a8ULL;
	l->sym_found[MMC_SYM_PAGE_OFFSET_BASE] = true;
	l->sym[MMC_SYM_PAGE_OFFSET_BASE] = 0xffffffff826154b8ULL;
	l->sym_found[MMC_SYM_VMALLOC_BASE] = true;
	l->sym[MMC_SYM_VMALLOC_BASE] = 0xffffffff826154b0ULL;
	l->sym_found[MMC_SYM_INIT_TOP_PGT] = true;
	l->sym[MMC_SYM_INIT_TOP_PGT] = 0xffffffff82a0e000ULL;
	l->sym_found[MMC_SYM_TEXT] = true;
	l->sym[MMC_SYM_TEXT] = 0xffffffff81000000ULL;
	l->sym_found[MMC_SYM_STEXT] = true;
	l->sym[MMC_SYM_STEXT] = 0xffffffff81000000ULL;
	l->sym_found[MMC_SYM_END] = true;
	l->sym[MMC_SYM_END] = 0xffffffff83000000ULL;
	l->sym_found[MMC_SYM_INIT_UTS_NS] = true;
	l->sym[MMC_SYM_INIT_UTS_NS] = 0xffffffff82613d40ULL;

	l->max_numnodes = 1;
}

/* The kernel's pageflags (each fixture its own), memory and zone types. */
static inline int mmc_test_layout_enums(struct mmc_layout *l,
					const struct mmc_test_enumerator *pageflags,
					size_t npageflags)
{
	if (mmc_test_enum(l, MMC_ENUM_PAGEFLAGS, pageflags, npageflags) ||
	    mmc_test_enum(l, MMC_ENUM_MEMORY_TYPE, mmc_test_memory_types,
			  sizeof(mmc_test_memory_types) / sizeof(mmc_test_memory_types[0])) ||
	    mmc_test_enum(l, MMC_ENUM_ZONE_TYPE, mmc_test_zone_types,
			  sizeof(mmc_test_zone_types) / sizeof(mmc_test_zone_types[0])))
		return -1;
	return 0;
}

static inline int mmc_test_layout_612(struct mmc_layout *l)
{
	static const struct mmc_test_enumerator pageflags[] = {
		{ "PG_locked", 0 }, { "PG_writeback", 1 }, { "PG_referenced", 2 },
		{ "PG_uptodate", 3 }, { "PG_dirty", 4 }, { "PG_lru", 5 },
		{ "PG_head", 6 }, { "PG_waiters", 7 }, { "PG_active", 8 },
		{ "PG_workingset", 9 }, { "PG_owner_priv_1", 10 },
		{ "PG_owner_2", 11 }, { "PG_arch_1", 12 }, { "PG_reserved", 13 },
		{ "PG_private", 14 }, { "PG_private_2", 15 }, { "PG_reclaim", 16 },
		{ "PG_swapbacked", 17 }, { "PG_unevictable", 18 },
		{ "PG_mlocked", 19 }, { "PG_hwpoison", 20 },
		{ "__NR_PAGEFLAGS", 21 },
		{ "PG_readahead", 16 }, { "PG_swapcache", 10 },
		{ "PG_checked", 10 }, { "PG_anon_exclusive", 11 },
		{ "PG_large_rmappable", 9 },
	};

	mmc_test_layout_common(l, "6.12.117", "test fixture 6.12");
	mmc_test_member(l, MMC_PAGE_FLAGS, "flags", 0, 8, 0);
	mmc_test_member(l, MMC_PAGE_COMPOUND_HEAD, "compound_head", 8, 8, 0);
	mmc_test_member(l, MMC_PAGE_INDEX, "index", 32, 8, 0);
	mmc_test_member(l, MMC_PAGE_PGMAP, "pgmap", 8, 8, 0);
	mmc_test_member(l, MMC_FOLIO_FLAGS_1, "_flags_1", 64, 8, 0);
	mmc_test_member(l, MMC_FOLIO_ENTIRE_MAPCOUNT, "_entire_mapcount", 84, 4, 0);
	mmc_test_member(l, MMC_FOLIO_NR_PAGES_MAPPED, "_nr_pages_mapped", 88, 4, 0);
	mmc_test_member(l, MMC_FOLIO_PINCOUNT, "_pincount", 92, 4, 0);
	mmc_test_member(l, MMC_FOLIO_NR_PAGES, "_folio_nr_pages", 96, 4, 0);
	return mmc_test_layout_enums(l, pageflags, sizeof(pageflags) / sizeof(pageflags[0]));
}

static inline int mmc_test_layout_72(struct mmc_layout *l)
{
	static const struct mmc_test_enumerator pageflags[] = {
		{ "PG_locked", 0 }, { "PG_writeback", 1 }, { "PG_referenced", 2 },
		{ "PG_uptodate", 3 }, { "PG_dirty", 4 }, { "PG_lru", 5 },
		{ "PG_head", 6 }, { "PG_waiters", 7 }, { "PG_active", 8 },
		{ "PG_workingset", 9 }, { "PG_owner_priv_1", 10 },
		{ "PG_owner_2", 11 }, { "PG_arch_1", 12 }, { "PG_reserved", 13 },
		{ "PG_private", 14 }, { "PG_private_2", 15 }, { "PG_reclaim", 16 },
		{ "PG_swapbacked", 17 }, { "PG_unevictable", 18 },
		{ "PG_dropbehind", 19 }, { "PG_mlocked", 20 },
		{ "PG_hwpoison", 21 }, { "__NR_PAGEFLAGS", 22 },
		{ "PG_readahead", 16 }, { "PG_swapcache", 10 },
	};

	mmc_test_layout_common(l, "7.2.8", "test fixture 7.2");
	mmc_test_member(l, MMC_PAGE_FLAGS, "flags.f", 0, 8, 0);
	mmc_test_member(l, MMC_PAGE_COMPOUND_HEAD, "compound_info", 8, 8, 0);
	mmc_test_member(l, MMC_PAGE_INDEX, "__folio_index", 32, 8, 0);
	mmc_test_member(l, MMC_FOLIO_PGMAP, "pgmap", 8, 8, 0);
	mmc_test_member(l, MMC_FOLIO_FLAGS_1, "_flags_1.f", 64, 8, 0);
	mmc_test_member(l, MMC_FOLIO_NR_PAGES_MAPPED, "_nr_pages_mapped", 84, 4, 0);
	mmc_test_member(l, MMC_FOLIO_ENTIRE_MAPCOUNT, "_entire_mapcount", 88, 4, 0);
	mmc_test_member(l, MMC_FOLIO_PINCOUNT, "_pincount", 92, 4, 0);
	mmc_test_member(l, MMC_FOLIO_MM_ID_MAPCOUNT, "_mm_id_mapcount", 96, 8, 2);
	mmc_test_member(l, MMC_FOLIO_MM_IDS, "_mm_ids", 104, 8, 0);
	return mmc_test_layout_enums(l, pageflags, sizeof(pageflags) / sizeof(pageflags[0]));
}

static inline int mmc_test_layout_61(struct mmc_layout *l)
{
	static const struct mmc_test_enumerator pageflags[] = {
		{ "PG_locked", 0 }, { "PG_referenced", 1 }, { "PG_uptodate", 2 },
		{ "PG_dirty", 3 }, { "PG_lru", 4 }, { "PG_active", 5 },
		{ "PG_workingset", 6 }, { "PG_waiters", 7 }, { "PG_error", 8 },
		{ "PG_slab", 9 }, { "PG_owner_priv_1", 10 }, { "PG_arch_1", 11 },
		{ "PG_reserved", 12 }, { "PG_private", 13 }, { "PG_private_2", 14 },
		{ "PG_writeback", 15 }, { "PG_head", 16 }, { "PG_mappedtodisk", 17 },
		{ "PG_reclaim", 18 }, { "PG_swapbacked", 19 }, { "PG_unevictable", 20 },
		{ "PG_mlocked", 21 }, { "PG_uncached", 22 }, { "PG_hwpoison", 23 },
		{ "PG_arch_2", 24 }, { "__NR_PAGEFLAGS", 25 }, { "PG_readahead", 18 },
		{ "PG_anon_exclusive", 17 }, { "PG_checked", 10 },
		{ "PG_swapcache", 10 }, { "PG_double_map", 6 },
		{ "PG_has_hwpoisoned", 8 },
	};

	mmc_test_layout_common(l, "6.1.0-57-amd64", "test fixture 6.1");
	l->member[MMC_FOLIO_LARGE_MAPCOUNT].found = false;
	l->member[MMC_FOLIO_DEFERRED_LIST].found = false;
	mmc_test_member(l, MMC_PAGE_FLAGS, "flags", 0, 8, 0);
	mmc_test_member(l, MMC_PAGE_COMPOUND_HEAD, "compound_head", 8, 8, 0);
	mmc_test_member(l, MMC_PAGE_INDEX, "index", 32, 8, 0);
	mmc_test_member(l, MMC_PAGE_PGMAP, "pgmap", 8, 8, 0);
	mmc_test_member(l, MMC_FOLIO_FLAGS_1, "_flags_1", 64, 8, 0);
	mmc_test_member(l, MMC_FOLIO_DTOR, "_folio_dtor", 80, 1, 0);
	mmc_test_member(l, MMC_FOLIO_ORDER, "_folio_order", 81, 1, 0);
	mmc_test_member(l, MMC_FOLIO_ENTIRE_MAPCOUNT, "_total_mapcount", 84, 4, 0);
	mmc_test_member(l, MMC_FOLIO_PINCOUNT, "_pincount", 88, 4, 0);
	mmc_test_member(l, MMC_FOLIO_NR_PAGES, "_folio_nr_pages", 92, 4, 0);
	l->size[MMC_SIZE_FOLIO] = 112;
	l->size[MMC_SIZE_DEV_PAGEMAP] = 152;
	return mmc_test_layout_enums(l, pageflags, sizeof(pageflags) / sizeof(pageflags[0]));
}

/* Non-KASLR x86_64, 4-level paging, 64 GiB of pfns, NUMA with 6 node bits. */
static inline void mmc_test_geom(struct mmc_geom *g)
{
	memset(g, 0, sizeof(*g));
	g->page_size = 4096;
	g->struct_page_size = 64;
	g->vmemmap_base = 0xffffea0000000000ULL;
	g->vmemmap_end = g->vmemmap_base + (1ULL << 24) * 64;
	g->page_offset_base = 0xffff888000000000ULL;
	g->direct_map_end = g->page_offset_base + (64ULL << 30);
	g->vmalloc_base = 0xffffc90000000000ULL;
	g->vmalloc_end = 0xffffe90000000000ULL;
	g->kimage_start = 0xffffffff81000000ULL;
	g->kimage_end = 0xffffffff83000000ULL;
	g->module_start = 0xffffffffa0000000ULL;
	g->module_end = 0xffffffffff000000ULL;
	g->kaslr_offset = 0;
	g->poison_pointer_delta = 0xdead000000000000ULL;
	g->zones_width = 3;
	g->zones_pgshift = 61;
	g->nodes_width = 6;
	g->nodes_pgshift = 55;
	g->nr_pageflags = 21;
}

static inline void mmc_test_geom_72(struct mmc_geom *g)
{
	mmc_test_geom(g);
	g->nr_pageflags = 22;
}

static inline void mmc_test_geom_61(struct mmc_geom *g)
{
	mmc_test_geom(g);
	g->nr_pageflags = 25;
}

#endif
