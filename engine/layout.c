// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The layout table every provider resolves, and the provider-independent
 * operations on a filled struct mmc_layout: check, enum look-ups,
 * fingerprint, compare, copy.
 */
#include "layout.h"
#include "mmc_util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * Candidates newest first: a provider takes the first that resolves, so an
 * old kernel falls through to the old name while a new one never matches a
 * leftover old member by accident.  Labels are "<type>.<stable name>" and
 * never change: reports and saved layouts key on them, the resolved kernel
 * name is kept in mmc_member.name.
 */
const struct mmc_member_spec mmc_member_specs[MMC_MEMBER_COUNT] = {
	[MMC_PAGE_FLAGS] = { MMC_PAGE_FLAGS, "page",
		{ "flags.f", "flags" }, false, "page.flags" },
	[MMC_PAGE_LRU] = { MMC_PAGE_LRU, "page",
		{ "lru" }, false, "page.lru" },
	[MMC_PAGE_COMPOUND_HEAD] = { MMC_PAGE_COMPOUND_HEAD, "page",
		{ "compound_info", "compound_head" }, false,
		"page.compound_head" },
	[MMC_PAGE_MAPPING] = { MMC_PAGE_MAPPING, "page",
		{ "mapping" }, false, "page.mapping" },
	[MMC_PAGE_INDEX] = { MMC_PAGE_INDEX, "page",
		{ "__folio_index", "index" }, false, "page.index" },
	[MMC_PAGE_PRIVATE] = { MMC_PAGE_PRIVATE, "page",
		{ "private" }, false, "page.private" },
	[MMC_PAGE_PGMAP] = { MMC_PAGE_PGMAP, "page",
		{ "pgmap" }, true, "page.pgmap" },
	[MMC_PAGE_ZONE_DEVICE_DATA] = { MMC_PAGE_ZONE_DEVICE_DATA, "page",
		{ "zone_device_data" }, true, "page.zone_device_data" },
	[MMC_PAGE_MAPCOUNT] = { MMC_PAGE_MAPCOUNT, "page",
		{ "_mapcount" }, false, "page.mapcount" },
	[MMC_PAGE_REFCOUNT] = { MMC_PAGE_REFCOUNT, "page",
		{ "_refcount" }, false, "page.refcount" },
	[MMC_PAGE_MEMCG_DATA] = { MMC_PAGE_MEMCG_DATA, "page",
		{ "memcg_data" }, true, "page.memcg_data" },

	[MMC_FOLIO_PGMAP] = { MMC_FOLIO_PGMAP, "folio",
		{ "pgmap" }, true, "folio.pgmap" },
	[MMC_FOLIO_FLAGS_1] = { MMC_FOLIO_FLAGS_1, "folio",
		{ "_flags_1.f", "_flags_1" }, true, "folio.flags_1" },
	[MMC_FOLIO_ORDER] = { MMC_FOLIO_ORDER, "folio",
		{ "_folio_order" }, true, "folio.order" },
	[MMC_FOLIO_DTOR] = { MMC_FOLIO_DTOR, "folio",
		{ "_folio_dtor" }, true, "folio.dtor" },
	[MMC_FOLIO_NR_PAGES] = { MMC_FOLIO_NR_PAGES, "folio",
		{ "_folio_nr_pages" }, true, "folio.nr_pages" },
	[MMC_FOLIO_LARGE_MAPCOUNT] = { MMC_FOLIO_LARGE_MAPCOUNT, "folio",
		{ "_large_mapcount" }, true, "folio.large_mapcount" },
	[MMC_FOLIO_ENTIRE_MAPCOUNT] = { MMC_FOLIO_ENTIRE_MAPCOUNT, "folio",
		{ "_entire_mapcount", "_total_mapcount" }, true,
		"folio.entire_mapcount" },
	[MMC_FOLIO_NR_PAGES_MAPPED] = { MMC_FOLIO_NR_PAGES_MAPPED, "folio",
		{ "_nr_pages_mapped" }, true, "folio.nr_pages_mapped" },
	[MMC_FOLIO_PINCOUNT] = { MMC_FOLIO_PINCOUNT, "folio",
		{ "_pincount" }, true, "folio.pincount" },
	[MMC_FOLIO_MM_ID_MAPCOUNT] = { MMC_FOLIO_MM_ID_MAPCOUNT, "folio",
		{ "_mm_id_mapcount" }, true, "folio.mm_id_mapcount" },
	[MMC_FOLIO_MM_IDS] = { MMC_FOLIO_MM_IDS, "folio",
		{ "_mm_ids" }, true, "folio.mm_ids" },
	[MMC_FOLIO_DEFERRED_LIST] = { MMC_FOLIO_DEFERRED_LIST, "folio",
		{ "_deferred_list" }, true, "folio.deferred_list" },

	[MMC_PGMAP_ALTMAP] = { MMC_PGMAP_ALTMAP, "dev_pagemap",
		{ "altmap" }, false, "dev_pagemap.altmap" },
	[MMC_PGMAP_REF] = { MMC_PGMAP_REF, "dev_pagemap",
		{ "ref" }, false, "dev_pagemap.ref" },
	[MMC_PGMAP_DONE] = { MMC_PGMAP_DONE, "dev_pagemap",
		{ "done" }, false, "dev_pagemap.done" },
	[MMC_PGMAP_TYPE] = { MMC_PGMAP_TYPE, "dev_pagemap",
		{ "type" }, false, "dev_pagemap.type" },
	[MMC_PGMAP_FLAGS] = { MMC_PGMAP_FLAGS, "dev_pagemap",
		{ "flags" }, false, "dev_pagemap.flags" },
	[MMC_PGMAP_VMEMMAP_SHIFT] = { MMC_PGMAP_VMEMMAP_SHIFT, "dev_pagemap",
		{ "vmemmap_shift" }, false, "dev_pagemap.vmemmap_shift" },
	[MMC_PGMAP_OPS] = { MMC_PGMAP_OPS, "dev_pagemap",
		{ "ops" }, false, "dev_pagemap.ops" },
	[MMC_PGMAP_OWNER] = { MMC_PGMAP_OWNER, "dev_pagemap",
		{ "owner" }, false, "dev_pagemap.owner" },
	[MMC_PGMAP_NR_RANGE] = { MMC_PGMAP_NR_RANGE, "dev_pagemap",
		{ "nr_range" }, false, "dev_pagemap.nr_range" },
	[MMC_PGMAP_RANGE] = { MMC_PGMAP_RANGE, "dev_pagemap",
		{ "range" }, false, "dev_pagemap.range" },

	[MMC_ALTMAP_BASE_PFN] = { MMC_ALTMAP_BASE_PFN, "vmem_altmap",
		{ "base_pfn" }, false, "vmem_altmap.base_pfn" },
	[MMC_ALTMAP_END_PFN] = { MMC_ALTMAP_END_PFN, "vmem_altmap",
		{ "end_pfn" }, false, "vmem_altmap.end_pfn" },
	[MMC_ALTMAP_RESERVE] = { MMC_ALTMAP_RESERVE, "vmem_altmap",
		{ "reserve" }, false, "vmem_altmap.reserve" },
	[MMC_ALTMAP_FREE] = { MMC_ALTMAP_FREE, "vmem_altmap",
		{ "free" }, false, "vmem_altmap.free" },
	[MMC_ALTMAP_ALIGN] = { MMC_ALTMAP_ALIGN, "vmem_altmap",
		{ "align" }, false, "vmem_altmap.align" },
	[MMC_ALTMAP_ALLOC] = { MMC_ALTMAP_ALLOC, "vmem_altmap",
		{ "alloc" }, false, "vmem_altmap.alloc" },

	[MMC_RANGE_START] = { MMC_RANGE_START, "range",
		{ "start" }, false, "range.start" },
	[MMC_RANGE_END] = { MMC_RANGE_END, "range",
		{ "end" }, false, "range.end" },

	[MMC_XARRAY_HEAD] = { MMC_XARRAY_HEAD, "xarray",
		{ "xa_head" }, false, "xarray.xa_head" },
	[MMC_XA_NODE_SHIFT] = { MMC_XA_NODE_SHIFT, "xa_node",
		{ "shift" }, false, "xa_node.shift" },
	[MMC_XA_NODE_OFFSET] = { MMC_XA_NODE_OFFSET, "xa_node",
		{ "offset" }, false, "xa_node.offset" },
	[MMC_XA_NODE_COUNT] = { MMC_XA_NODE_COUNT, "xa_node",
		{ "count" }, false, "xa_node.count" },
	[MMC_XA_NODE_PARENT] = { MMC_XA_NODE_PARENT, "xa_node",
		{ "parent" }, false, "xa_node.parent" },
	[MMC_XA_NODE_SLOTS] = { MMC_XA_NODE_SLOTS, "xa_node",
		{ "slots" }, false, "xa_node.slots" },

	[MMC_LIST_HEAD_NEXT] = { MMC_LIST_HEAD_NEXT, "list_head",
		{ "next" }, true, "list_head.next", 2 },
	[MMC_SB_S_INODES] = { MMC_SB_S_INODES, "super_block",
		{ "s_inodes" }, true, "super_block.s_inodes", 2 },
	[MMC_INODE_I_SB_LIST] = { MMC_INODE_I_SB_LIST, "inode",
		{ "i_sb_list" }, true, "inode.i_sb_list", 2 },
	[MMC_DAX_DEVICE_INODE] = { MMC_DAX_DEVICE_INODE, "dax_device",
		{ "inode" }, true, "dax_device.inode", 2 },
	[MMC_DAX_DEVICE_PRIVATE] = { MMC_DAX_DEVICE_PRIVATE, "dax_device",
		{ "private" }, true, "dax_device.private", 2 },
	[MMC_DEV_DAX_DAX_DEV] = { MMC_DEV_DAX_DAX_DEV, "dev_dax",
		{ "dax_dev" }, true, "dev_dax.dax_dev", 2 },
	[MMC_DEV_DAX_PGMAP] = { MMC_DEV_DAX_PGMAP, "dev_dax",
		{ "pgmap" }, true, "dev_dax.pgmap", 2 },
	[MMC_DEV_DAX_NR_RANGE] = { MMC_DEV_DAX_NR_RANGE, "dev_dax",
		{ "nr_range" }, true, "dev_dax.nr_range", 2 },
	[MMC_DEV_DAX_RANGES] = { MMC_DEV_DAX_RANGES, "dev_dax",
		{ "ranges" }, true, "dev_dax.ranges", 2 },
	[MMC_DEV_DAX_RANGE_START] = { MMC_DEV_DAX_RANGE_START, "dev_dax_range",
		{ "range.start" }, true, "dev_dax_range.start", 2 },
	[MMC_DEV_DAX_RANGE_END] = { MMC_DEV_DAX_RANGE_END, "dev_dax_range",
		{ "range.end" }, true, "dev_dax_range.end", 2 },

	[MMC_LIST_HEAD_PREV] = { MMC_LIST_HEAD_PREV, "list_head",
		{ "prev" }, true, "list_head.prev", 3 },
	[MMC_HSTATE_ORDER] = { MMC_HSTATE_ORDER, "hstate",
		{ "order" }, true, "hstate.order", 3 },
	[MMC_HSTATE_NR] = { MMC_HSTATE_NR, "hstate",
		{ "nr_huge_pages" }, true, "hstate.nr_huge_pages", 3 },
	[MMC_HSTATE_FREE] = { MMC_HSTATE_FREE, "hstate",
		{ "free_huge_pages" }, true, "hstate.free_huge_pages", 3 },
	[MMC_HSTATE_RESV] = { MMC_HSTATE_RESV, "hstate",
		{ "resv_huge_pages" }, true, "hstate.resv_huge_pages", 3 },
	[MMC_HSTATE_SURPLUS] = { MMC_HSTATE_SURPLUS, "hstate",
		{ "surplus_huge_pages" }, true, "hstate.surplus_huge_pages", 3 },
	[MMC_HSTATE_ACTIVELIST] = { MMC_HSTATE_ACTIVELIST, "hstate",
		{ "hugepage_activelist" }, true, "hstate.hugepage_activelist", 3 },
	[MMC_HSTATE_FREELISTS] = { MMC_HSTATE_FREELISTS, "hstate",
		{ "hugepage_freelists" }, true, "hstate.hugepage_freelists", 3 },
	[MMC_HSTATE_NAME] = { MMC_HSTATE_NAME, "hstate",
		{ "name" }, true, "hstate.name", 3 },
	[MMC_MEMBLOCK_START_SECTION] = { MMC_MEMBLOCK_START_SECTION, "memory_block",
		{ "start_section_nr" }, true, "memory_block.start_section_nr", 3 },
	[MMC_MEMBLOCK_STATE] = { MMC_MEMBLOCK_STATE, "memory_block",
		{ "state" }, true, "memory_block.state", 3 },
	[MMC_MEMBLOCK_NID] = { MMC_MEMBLOCK_NID, "memory_block",
		{ "nid" }, true, "memory_block.nid", 3 },
	[MMC_MEMBLOCK_ALTMAP] = { MMC_MEMBLOCK_ALTMAP, "memory_block",
		{ "altmap" }, true, "memory_block.altmap", 3 },
	[MMC_MEMBLOCK_GROUP] = { MMC_MEMBLOCK_GROUP, "memory_block",
		{ "group" }, true, "memory_block.group", 3 },
};

const struct mmc_size_spec mmc_size_specs[MMC_SIZE_COUNT] = {
	[MMC_SIZE_PAGE] = { MMC_SIZE_PAGE, "page", false },
	[MMC_SIZE_FOLIO] = { MMC_SIZE_FOLIO, "folio", false },
	[MMC_SIZE_DEV_PAGEMAP] = { MMC_SIZE_DEV_PAGEMAP, "dev_pagemap", false },
	[MMC_SIZE_VMEM_ALTMAP] = { MMC_SIZE_VMEM_ALTMAP, "vmem_altmap", false },
	[MMC_SIZE_RANGE] = { MMC_SIZE_RANGE, "range", false },
	[MMC_SIZE_XA_NODE] = { MMC_SIZE_XA_NODE, "xa_node", false },
	[MMC_SIZE_DEV_DAX_RANGE] = { MMC_SIZE_DEV_DAX_RANGE, "dev_dax_range", true, 2 },
	[MMC_SIZE_HSTATE] = { MMC_SIZE_HSTATE, "hstate", true, 3 },
};

/*
 * vmemmap_base, page_offset_base and vmalloc_base exist only when the kernel
 * has CONFIG_DYNAMIC_MEMORY_LAYOUT (X86_5LEVEL or RANDOMIZE_MEMORY); without
 * it the kernel uses the architecture's fixed bases, and so does the engine
 * (kernel.c), saying which it used.
 */
const struct mmc_symbol_spec mmc_symbol_specs[MMC_SYM_COUNT] = {
	[MMC_SYM_PGMAP_ARRAY] = { MMC_SYM_PGMAP_ARRAY, "pgmap_array", false },
	[MMC_SYM_VMEMMAP_BASE] = { MMC_SYM_VMEMMAP_BASE, "vmemmap_base", true },
	[MMC_SYM_PAGE_OFFSET_BASE] = { MMC_SYM_PAGE_OFFSET_BASE,
				       "page_offset_base", true },
	[MMC_SYM_VMALLOC_BASE] = { MMC_SYM_VMALLOC_BASE, "vmalloc_base", true },
	[MMC_SYM_INIT_TOP_PGT] = { MMC_SYM_INIT_TOP_PGT, "init_top_pgt", false },
	[MMC_SYM_TEXT] = { MMC_SYM_TEXT, "_text", false },
	[MMC_SYM_END] = { MMC_SYM_END, "_end", false },
	[MMC_SYM_STEXT] = { MMC_SYM_STEXT, "_stext", false },
	[MMC_SYM_INIT_UTS_NS] = { MMC_SYM_INIT_UTS_NS, "init_uts_ns", false },
	[MMC_SYM_NODE_DATA] = { MMC_SYM_NODE_DATA, "node_data", true },
	[MMC_SYM_DAX_SUPERBLOCK] = { MMC_SYM_DAX_SUPERBLOCK, "dax_superblock", true, 2 },
	[MMC_SYM_HSTATES] = { MMC_SYM_HSTATES, "hstates", true, 3 },
	[MMC_SYM_HUGETLB_MAX_HSTATE] = { MMC_SYM_HUGETLB_MAX_HSTATE, "hugetlb_max_hstate", true, 3 },
	[MMC_SYM_VMEMMAP_OPTIMIZE_ENABLED] = { MMC_SYM_VMEMMAP_OPTIMIZE_ENABLED,
					       "vmemmap_optimize_enabled", true, 3 },
	[MMC_SYM_MEMORY_BLOCKS] = { MMC_SYM_MEMORY_BLOCKS, "memory_blocks", true, 3 },
	[MMC_SYM_SECTIONS_PER_BLOCK] = { MMC_SYM_SECTIONS_PER_BLOCK, "sections_per_block", true, 3 },
};

const struct mmc_enum_spec mmc_enum_specs[MMC_ENUM_COUNT] = {
	[MMC_ENUM_PAGEFLAGS] = { MMC_ENUM_PAGEFLAGS, "pageflags" },
	[MMC_ENUM_MEMORY_TYPE] = { MMC_ENUM_MEMORY_TYPE, "memory_type" },
	[MMC_ENUM_ZONE_TYPE] = { MMC_ENUM_ZONE_TYPE, "zone_type" },
	[MMC_ENUM_HUGETLB_PAGE_FLAGS] = { MMC_ENUM_HUGETLB_PAGE_FLAGS, "hugetlb_page_flags",
					  true, 3 },
	[MMC_ENUM_PAGETYPE] = { MMC_ENUM_PAGETYPE, "pagetype", true, 3 },
	[MMC_ENUM_MEMORY_BLOCK_STATE] = { MMC_ENUM_MEMORY_BLOCK_STATE, "memory_block_state",
					  true, 3 },
};

struct mmc_layout *mmc_layout_create(void)
{
	struct mmc_layout *layout = calloc(1, sizeof(*layout));

	if (layout)
		layout->max_numnodes = 1;
	return layout;
}

static void enum_clear(struct mmc_enum *e)
{
	for (size_t i = 0; i < e->count; i++)
		free(e->values[i].name);
	free(e->values);
	e->values = NULL;
	e->count = 0;
	e->found = false;
}

void mmc_layout_destroy(struct mmc_layout *layout)
{
	if (!layout)
		return;
	for (int i = 0; i < MMC_ENUM_COUNT; i++)
		enum_clear(&layout->enums[i]);
	free(layout);
}

/* A growing message buffer; on allocation failure the result is nomem. */
struct msgbuf {
	char *buf;
	size_t len;
	FILE *f;
	unsigned int items;
};

static bool msg_open(struct msgbuf *m)
{
	memset(m, 0, sizeof(*m));
	m->f = open_memstream(&m->buf, &m->len);
	return m->f != NULL;
}

static void msg_item(struct msgbuf *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void msg_item(struct msgbuf *m, const char *fmt, ...)
{
	va_list ap;

	if (m->items++)
		fputs(", ", m->f);
	va_start(ap, fmt);
	vfprintf(m->f, fmt, ap);
	va_end(ap);
}

/* Close the buffer and return its text (caller frees), NULL on failure. */
static char *msg_close(struct msgbuf *m)
{
	if (fclose(m->f) != 0) {
		free(m->buf);
		return NULL;
	}
	return m->buf;
}

struct mmc_error *mmc_layout_check(const struct mmc_layout *layout)
{
	struct mmc_error *err = NULL;
	struct msgbuf m;
	char *text;

	if (!msg_open(&m))
		return mmc_error_nomem();
	for (int i = 0; i < MMC_MEMBER_COUNT; i++) {
		const struct mmc_member_spec *s = &mmc_member_specs[i];

		if (s->optional || layout->member[i].found)
			continue;
		msg_item(&m, "member %s (struct %s.%s", s->label, s->type,
			 s->candidates[0]);
		for (int c = 1; c < 4 && s->candidates[c]; c++)
			fprintf(m.f, " or %s", s->candidates[c]);
		fputc(')', m.f);
	}
	if (!layout->member[MMC_PAGE_PGMAP].found &&
	    !layout->member[MMC_FOLIO_PGMAP].found)
		msg_item(&m, "member pgmap (neither struct page.pgmap nor struct folio.pgmap)");
	for (int i = 0; i < MMC_SIZE_COUNT; i++)
		if (!mmc_size_specs[i].optional && !layout->size_found[i])
			msg_item(&m, "size of struct %s", mmc_size_specs[i].type);
	for (int i = 0; i < MMC_SYM_COUNT; i++)
		if (!mmc_symbol_specs[i].optional && !layout->sym_found[i])
			msg_item(&m, "symbol %s", mmc_symbol_specs[i].name);
	for (int i = 0; i < MMC_ENUM_COUNT; i++)
		if (!mmc_enum_specs[i].optional &&
		    (!layout->enums[i].found || !layout->enums[i].count))
			msg_item(&m, "enum %s", mmc_enum_specs[i].type);
	if (!m.items) {
		text = msg_close(&m);
		free(text);
		return NULL;
	}
	text = msg_close(&m);
	if (!text)
		return mmc_error_nomem();
	err = mmc_error_create(MMC_ERR_LAYOUT,
			       layout->source[0] ? layout->source : NULL,
			       "kernel layout incomplete, missing: %s", text);
	free(text);
	return err;
}

bool mmc_layout_enum_value(const struct mmc_layout *layout, enum mmc_enum_id id,
			   const char *name, int64_t *value)
{
	const struct mmc_enum *e;

	if ((int)id < 0 || id >= MMC_ENUM_COUNT)
		return false;
	e = &layout->enums[id];
	for (size_t i = 0; i < e->count; i++) {
		if (strcmp(e->values[i].name, name) == 0) {
			*value = e->values[i].value;
			return true;
		}
	}
	return false;
}

const char *mmc_layout_enum_name(const struct mmc_layout *layout,
				 enum mmc_enum_id id, int64_t value)
{
	const struct mmc_enum *e;

	if ((int)id < 0 || id >= MMC_ENUM_COUNT)
		return NULL;
	e = &layout->enums[id];
	for (size_t i = 0; i < e->count; i++)
		if (e->values[i].value == value)
			return e->values[i].name;
	return NULL;
}

struct mmc_error *mmc_layout_enum_add(struct mmc_layout *layout,
				      enum mmc_enum_id id, const char *name,
				      int64_t value)
{
	struct mmc_enum *e;
	struct mmc_enumerator *v;
	char *copy;

	if ((int)id < 0 || id >= MMC_ENUM_COUNT)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"enum id %d out of range", (int)id);
	e = &layout->enums[id];
	/* Powers of two: amortised growth without a capacity field. */
	if ((e->count & (e->count - 1)) == 0) {
		size_t cap = e->count < 8 ? 8 : e->count * 2;

		v = realloc(e->values, cap * sizeof(*v));
		if (!v)
			return mmc_error_nomem();
		e->values = v;
	}
	copy = strdup(name);
	if (!copy)
		return mmc_error_nomem();
	e->values[e->count].name = copy;
	e->values[e->count].value = value;
	e->count++;
	e->found = true;
	return NULL;
}

/*
 * The canonical text the fingerprint hashes: types only.  Symbols, release,
 * build-id and source are left out on purpose, so two builds of the same
 * struct layout (or one kernel booted twice) share a fingerprint.
 */
/*
 * The struct page side of the layout only: the items saved layouts gained
 * later (the device-dax chain, the HugeTLB and memory block structures)
 * only steer discovery, so they stay out, and a kernel keeps the
 * fingerprint its older snapshot files carry.
 */
static void fingerprint_text(FILE *f, const struct mmc_layout *l)
{
	for (int i = 0; i < MMC_MEMBER_COUNT; i++) {
		const struct mmc_member *m = &l->member[i];

		if (mmc_member_specs[i].since)
			continue;
		if (m->found)
			fprintf(f, "m %s %s %" PRIu32 " %" PRIu32 " %" PRIu32 "\n",
				mmc_member_specs[i].label, m->name, m->offset,
				m->size, m->count);
		else
			fprintf(f, "m %s -\n", mmc_member_specs[i].label);
	}
	for (int i = 0; i < MMC_SIZE_COUNT; i++) {
		if (mmc_size_specs[i].since)
			continue;
		if (l->size_found[i])
			fprintf(f, "s %s %" PRIu64 "\n", mmc_size_specs[i].type,
				l->size[i]);
		else
			fprintf(f, "s %s -\n", mmc_size_specs[i].type);
	}
	for (int i = 0; i < MMC_ENUM_COUNT; i++) {
		const struct mmc_enum *e = &l->enums[i];

		if (mmc_enum_specs[i].since)
			continue;
		fprintf(f, "e %s %s\n", mmc_enum_specs[i].type,
			e->found ? "+" : "-");
		for (size_t j = 0; j < e->count; j++)
			fprintf(f, "v %s %" PRId64 "\n", e->values[j].name,
				e->values[j].value);
	}
	fprintf(f, "n %" PRIu32 "\n", l->max_numnodes);
}

uint64_t mmc_layout_fingerprint(const struct mmc_layout *layout)
{
	uint64_t h;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	/* No error channel in the contract: 0 is never an FNV-1a result here. */
	if (!f)
		return 0;
	fingerprint_text(f, layout);
	if (fclose(f) != 0) {
		free(buf);
		return 0;
	}
	h = mmc_fnv1a(MMC_FNV1A_INIT, buf, len);
	free(buf);
	return h;
}

/* How many differences compare spells out before summarising. */
#define COMPARE_MAX_LISTED 8

static void diff_item(struct msgbuf *m, unsigned int *total, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void diff_item(struct msgbuf *m, unsigned int *total, const char *fmt, ...)
{
	va_list ap;

	if ((*total)++ >= COMPARE_MAX_LISTED)
		return;
	if (m->items++)
		fputs("; ", m->f);
	va_start(ap, fmt);
	vfprintf(m->f, fmt, ap);
	va_end(ap);
}

static void member_desc(char *buf, size_t n, const struct mmc_member *m)
{
	if (m->found)
		snprintf(buf, n, "%s@%" PRIu32 "+%" PRIu32 "[%" PRIu32 "]",
			 m->name, m->offset, m->size, m->count);
	else
		snprintf(buf, n, "missing");
}

static void compare_enums(struct msgbuf *m, unsigned int *total,
			  const struct mmc_layout *a, const struct mmc_layout *b)
{
	for (int i = 0; i < MMC_ENUM_COUNT; i++) {
		const struct mmc_enum *ea = &a->enums[i], *eb = &b->enums[i];
		const char *t = mmc_enum_specs[i].type;
		size_t n;

		if (ea->found != eb->found) {
			diff_item(m, total, "enum %s %s vs %s", t,
				  ea->found ? "found" : "missing",
				  eb->found ? "found" : "missing");
			continue;
		}
		n = ea->count < eb->count ? ea->count : eb->count;
		for (size_t j = 0; j < n; j++) {
			const struct mmc_enumerator *va = &ea->values[j];
			const struct mmc_enumerator *vb = &eb->values[j];

			if (strcmp(va->name, vb->name) || va->value != vb->value)
				diff_item(m, total,
					  "enum %s[%zu] %s=%" PRId64 " vs %s=%" PRId64,
					  t, j, va->name, va->value, vb->name,
					  vb->value);
		}
		if (ea->count != eb->count)
			diff_item(m, total, "enum %s has %zu vs %zu enumerators",
				  t, ea->count, eb->count);
	}
}

struct mmc_error *mmc_layout_compare(const struct mmc_layout *a,
				     const struct mmc_layout *b,
				     bool compare_symbols)
{
	struct mmc_error *err;
	unsigned int total = 0;
	struct msgbuf m;
	char *text;

	if (!msg_open(&m))
		return mmc_error_nomem();
	/* Providers that do not know the release or build-id leave it empty. */
	if (a->release[0] && b->release[0] && strcmp(a->release, b->release))
		diff_item(&m, &total, "release %s vs %s", a->release, b->release);
	if (a->build_id[0] && b->build_id[0] && strcmp(a->build_id, b->build_id))
		diff_item(&m, &total, "build-id %s vs %s", a->build_id,
			  b->build_id);
	for (int i = 0; i < MMC_MEMBER_COUNT; i++) {
		const struct mmc_member *ma = &a->member[i], *mb = &b->member[i];
		char da[96], db[96];

		if (ma->found == mb->found &&
		    (!ma->found || (ma->offset == mb->offset &&
				    ma->size == mb->size &&
				    ma->count == mb->count &&
				    !strcmp(ma->name, mb->name))))
			continue;
		member_desc(da, sizeof(da), ma);
		member_desc(db, sizeof(db), mb);
		diff_item(&m, &total, "member %s %s vs %s",
			  mmc_member_specs[i].label, da, db);
	}
	for (int i = 0; i < MMC_SIZE_COUNT; i++) {
		if (a->size_found[i] == b->size_found[i] &&
		    (!a->size_found[i] || a->size[i] == b->size[i]))
			continue;
		diff_item(&m, &total, "sizeof(struct %s) %s%" PRIu64 " vs %s%" PRIu64,
			  mmc_size_specs[i].type,
			  a->size_found[i] ? "" : "missing ", a->size[i],
			  b->size_found[i] ? "" : "missing ", b->size[i]);
	}
	compare_enums(&m, &total, a, b);
	if (a->max_numnodes != b->max_numnodes)
		diff_item(&m, &total, "max_numnodes %" PRIu32 " vs %" PRIu32,
			  a->max_numnodes, b->max_numnodes);
	for (int i = 0; compare_symbols && i < MMC_SYM_COUNT; i++) {
		if (a->sym_found[i] == b->sym_found[i] &&
		    (!a->sym_found[i] || a->sym[i] == b->sym[i]))
			continue;
		diff_item(&m, &total, "symbol %s %s0x%" PRIx64 " vs %s0x%" PRIx64,
			  mmc_symbol_specs[i].name,
			  a->sym_found[i] ? "" : "missing ", a->sym[i],
			  b->sym_found[i] ? "" : "missing ", b->sym[i]);
	}
	if (total > COMPARE_MAX_LISTED)
		fprintf(m.f, "; and %u more", total - COMPARE_MAX_LISTED);
	text = msg_close(&m);
	if (!text)
		return mmc_error_nomem();
	if (!total) {
		free(text);
		return NULL;
	}
	err = mmc_error_create(MMC_ERR_MISMATCH, NULL,
			       "layouts differ (%s vs %s): %u difference%s: %s",
			       a->source, b->source, total,
			       total == 1 ? "" : "s", text);
	free(text);
	return err;
}

struct mmc_error *mmc_layout_copy(const struct mmc_layout *src,
				  struct mmc_layout **out)
{
	struct mmc_layout *dst = mmc_layout_create();

	if (!dst)
		return mmc_error_nomem();
	*dst = *src;
	for (int i = 0; i < MMC_ENUM_COUNT; i++) {
		dst->enums[i].values = NULL;
		dst->enums[i].count = 0;
	}
	for (int i = 0; i < MMC_ENUM_COUNT; i++) {
		const struct mmc_enum *e = &src->enums[i];

		dst->enums[i].found = false;
		for (size_t j = 0; j < e->count; j++) {
			struct mmc_error *err = mmc_layout_enum_add(
				dst, i, e->values[j].name, e->values[j].value);

			if (err) {
				mmc_layout_destroy(dst);
				return err;
			}
		}
		dst->enums[i].found = e->found;
	}
	*out = dst;
	return NULL;
}
