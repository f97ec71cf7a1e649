/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Layout: everything the engine knows about one kernel's types and symbols,
 * resolved once, by name, before any struct page is read.
 *
 * Providers fill a struct mmc_layout: the DWARF provider (layout_dwarf.c,
 * libdw on a vmlinux), the saved-layout file (layout_file.c, written once from
 * DWARF so a dump can be checked without the debug file) and the crash front
 * end (crash-ext/, from crash's type info).  All of them resolve the same
 * table of members (mmc_member_specs[]) with the same fallback chains, newest
 * name first, so their results can be compared field by field.
 *
 * Offsets of struct folio members are relative to the folio, i.e. to the head
 * struct page: a page[1] member has offset >= sizeof(struct page).
 * Symbol addresses are link-time (unrelocated): add the KASLR offset.
 */
#ifndef MMC_LAYOUT_H
#define MMC_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmc_error.h"

enum mmc_member_id {
	/* struct page */
	MMC_PAGE_FLAGS,		/* "flags.f" (memdesc_flags_t, 6.18+), "flags" */
	MMC_PAGE_LRU,		/* "lru" */
	MMC_PAGE_COMPOUND_HEAD,	/* "compound_info" (7.x), "compound_head" */
	MMC_PAGE_MAPPING,	/* "mapping" */
	MMC_PAGE_INDEX,		/* "__folio_index" (7.x), "index" */
	MMC_PAGE_PRIVATE,	/* "private" */
	MMC_PAGE_PGMAP,		/* "pgmap" (up to 6.14; optional) */
	MMC_PAGE_ZONE_DEVICE_DATA, /* "zone_device_data" (optional) */
	MMC_PAGE_MAPCOUNT,	/* "_mapcount" */
	MMC_PAGE_REFCOUNT,	/* "_refcount" */
	MMC_PAGE_MEMCG_DATA,	/* "memcg_data" (optional) */
	/* struct folio, offsets from the head page */
	MMC_FOLIO_PGMAP,	/* "pgmap" (6.15+; optional) */
	MMC_FOLIO_FLAGS_1,	/* "_flags_1.f", "_flags_1" (optional: 6.1 has it) */
	MMC_FOLIO_ORDER,	/* "_folio_order" (6.1; optional) */
	MMC_FOLIO_DTOR,		/* "_folio_dtor" (6.1; optional) */
	MMC_FOLIO_NR_PAGES,	/* "_folio_nr_pages" (optional; gone in 7.x) */
	MMC_FOLIO_LARGE_MAPCOUNT, /* "_large_mapcount" (optional) */
	MMC_FOLIO_ENTIRE_MAPCOUNT, /* "_entire_mapcount", "_total_mapcount" (optional) */
	MMC_FOLIO_NR_PAGES_MAPPED, /* "_nr_pages_mapped" (optional) */
	MMC_FOLIO_PINCOUNT,	/* "_pincount" (optional) */
	MMC_FOLIO_MM_ID_MAPCOUNT, /* "_mm_id_mapcount" (7.x; optional) */
	MMC_FOLIO_MM_IDS,	/* "_mm_ids" (7.x; optional) */
	MMC_FOLIO_DEFERRED_LIST, /* "_deferred_list" (optional) */
	/* struct dev_pagemap */
	MMC_PGMAP_ALTMAP,	/* "altmap" (embedded struct vmem_altmap) */
	MMC_PGMAP_REF,		/* "ref" */
	MMC_PGMAP_DONE,		/* "done" */
	MMC_PGMAP_TYPE,		/* "type" */
	MMC_PGMAP_FLAGS,	/* "flags" */
	MMC_PGMAP_VMEMMAP_SHIFT, /* "vmemmap_shift" */
	MMC_PGMAP_OPS,		/* "ops" */
	MMC_PGMAP_OWNER,	/* "owner" */
	MMC_PGMAP_NR_RANGE,	/* "nr_range" */
	MMC_PGMAP_RANGE,	/* "range" (union with ranges[]) */
	/* struct vmem_altmap */
	MMC_ALTMAP_BASE_PFN,	/* "base_pfn" */
	MMC_ALTMAP_END_PFN,	/* "end_pfn" */
	MMC_ALTMAP_RESERVE,	/* "reserve" */
	MMC_ALTMAP_FREE,	/* "free" */
	MMC_ALTMAP_ALIGN,	/* "align" */
	MMC_ALTMAP_ALLOC,	/* "alloc" */
	/* struct range */
	MMC_RANGE_START,	/* "start" */
	MMC_RANGE_END,		/* "end" */
	/* struct xarray and struct xa_node */
	MMC_XARRAY_HEAD,	/* xarray "xa_head" */
	MMC_XA_NODE_SHIFT,	/* xa_node "shift" */
	MMC_XA_NODE_OFFSET,	/* xa_node "offset" */
	MMC_XA_NODE_COUNT,	/* xa_node "count" */
	MMC_XA_NODE_PARENT,	/* xa_node "parent" */
	MMC_XA_NODE_SLOTS,	/* xa_node "slots" */
	/*
	 * The device-dax chain (discover_dax.c), all optional: a kernel whose
	 * device_dax is a module has no struct dev_dax in its vmlinux.
	 */
	MMC_LIST_HEAD_NEXT,	/* list_head "next" */
	MMC_SB_S_INODES,	/* super_block "s_inodes" */
	MMC_INODE_I_SB_LIST,	/* inode "i_sb_list" */
	MMC_DAX_DEVICE_INODE,	/* dax_device "inode" (drivers/dax/super.c) */
	MMC_DAX_DEVICE_PRIVATE,	/* dax_device "private" */
	MMC_DEV_DAX_DAX_DEV,	/* dev_dax "dax_dev" (drivers/dax/dax-private.h) */
	MMC_DEV_DAX_PGMAP,	/* dev_dax "pgmap" */
	MMC_DEV_DAX_NR_RANGE,	/* dev_dax "nr_range" */
	MMC_DEV_DAX_RANGES,	/* dev_dax "ranges" */
	MMC_DEV_DAX_RANGE_START, /* dev_dax_range "range.start" */
	MMC_DEV_DAX_RANGE_END,	/* dev_dax_range "range.end" */
	/*
	 * HugeTLB pools and memory blocks (discover_hugetlb.c,
	 * discover_hotplug.c; saved layout version 3), all optional: a
	 * kernel without CONFIG_HUGETLB_PAGE or MEMORY_HOTPLUG has none.
	 */
	MMC_LIST_HEAD_PREV,	/* list_head "prev" */
	MMC_HSTATE_ORDER,	/* hstate "order" */
	MMC_HSTATE_NR,		/* hstate "nr_huge_pages" */
	MMC_HSTATE_FREE,	/* hstate "free_huge_pages" */
	MMC_HSTATE_RESV,	/* hstate "resv_huge_pages" */
	MMC_HSTATE_SURPLUS,	/* hstate "surplus_huge_pages" */
	MMC_HSTATE_ACTIVELIST,	/* hstate "hugepage_activelist" */
	MMC_HSTATE_FREELISTS,	/* hstate "hugepage_freelists" (array: MAX_NUMNODES) */
	MMC_HSTATE_NAME,	/* hstate "name" (char array) */
	MMC_MEMBLOCK_START_SECTION, /* memory_block "start_section_nr" */
	MMC_MEMBLOCK_STATE,	/* memory_block "state" */
	MMC_MEMBLOCK_NID,	/* memory_block "nid" */
	MMC_MEMBLOCK_ALTMAP,	/* memory_block "altmap" (pointer; NULL without memmap_on_memory) */
	MMC_MEMBLOCK_GROUP,	/* memory_block "group" (ACPI/virtio-mem memory groups) */
	MMC_MEMBER_COUNT
};

enum mmc_size_id {
	MMC_SIZE_PAGE,		/* struct page */
	MMC_SIZE_FOLIO,		/* struct folio */
	MMC_SIZE_DEV_PAGEMAP,	/* struct dev_pagemap */
	MMC_SIZE_VMEM_ALTMAP,	/* struct vmem_altmap */
	MMC_SIZE_RANGE,		/* struct range */
	MMC_SIZE_XA_NODE,	/* struct xa_node */
	MMC_SIZE_DEV_DAX_RANGE,	/* struct dev_dax_range (optional) */
	MMC_SIZE_HSTATE,	/* struct hstate (optional: hstates[] stride) */
	MMC_SIZE_COUNT
};

enum mmc_symbol_id {
	MMC_SYM_PGMAP_ARRAY,	/* mm/memremap.c: DEFINE_XARRAY(pgmap_array) */
	MMC_SYM_VMEMMAP_BASE,	/* x86_64 variables (exist with and without KASLR) */
	MMC_SYM_PAGE_OFFSET_BASE,
	MMC_SYM_VMALLOC_BASE,
	MMC_SYM_INIT_TOP_PGT,
	MMC_SYM_TEXT,		/* _text */
	MMC_SYM_END,		/* _end */
	MMC_SYM_STEXT,		/* _stext (VMCOREINFO has it: KASLR cross-check) */
	MMC_SYM_INIT_UTS_NS,
	MMC_SYM_NODE_DATA,	/* optional (NUMA) */
	MMC_SYM_DAX_SUPERBLOCK,	/* drivers/dax/super.c (optional) */
	/* mm/hugetlb.c, mm/hugetlb_vmemmap.c, drivers/base/memory.c (optional) */
	MMC_SYM_HSTATES,	/* struct hstate hstates[HUGE_MAX_HSTATE] */
	MMC_SYM_HUGETLB_MAX_HSTATE, /* int: hstates in use */
	MMC_SYM_VMEMMAP_OPTIMIZE_ENABLED, /* bool: HVO switched on */
	MMC_SYM_MEMORY_BLOCKS,	/* DEFINE_XARRAY(memory_blocks) */
	MMC_SYM_SECTIONS_PER_BLOCK, /* unsigned long */
	MMC_SYM_COUNT
};

/* Enumerations read from the kernel's own DWARF (or crash). */
enum mmc_enum_id {
	MMC_ENUM_PAGEFLAGS,	/* enum pageflags: PG_locked ... __NR_PAGEFLAGS */
	MMC_ENUM_MEMORY_TYPE,	/* enum memory_type: MEMORY_DEVICE_* */
	MMC_ENUM_ZONE_TYPE,	/* enum zone_type: ZONE_DMA ... ZONE_DEVICE, __MAX_NR_ZONES */
	/* saved layout version 3, optional: */
	MMC_ENUM_HUGETLB_PAGE_FLAGS, /* enum hugetlb_page_flags: HPG_* bits of folio->private */
	MMC_ENUM_PAGETYPE,	/* enum pagetype: PGTY_* (6.10+) */
	MMC_ENUM_MEMORY_BLOCK_STATE, /* enum memory_block_state: MEM_ONLINE ... */
	MMC_ENUM_COUNT
};

struct mmc_member {
	bool found;
	uint32_t offset;	/* bytes from the start of the struct (folio: head page) */
	uint32_t size;		/* bytes; for arrays the whole array */
	uint32_t count;		/* array length, 0 if not an array */
	char name[48];		/* the name that resolved, e.g. "compound_info" */
};

struct mmc_enumerator {
	char *name;
	int64_t value;
};

struct mmc_enum {
	bool found;
	size_t count;
	struct mmc_enumerator *values;	/* owned */
};

struct mmc_layout {
	char release[65];	/* e.g. "6.12.117" (init_uts_ns / linux_banner) */
	char build_id[65];	/* hex of the GNU build-id note, "" if none */
	char source[256];	/* where it came from: vmlinux path, layout file, "crash" */
	struct mmc_member member[MMC_MEMBER_COUNT];
	bool size_found[MMC_SIZE_COUNT];
	uint64_t size[MMC_SIZE_COUNT];
	bool sym_found[MMC_SYM_COUNT];
	uint64_t sym[MMC_SYM_COUNT];	/* link-time addresses */
	struct mmc_enum enums[MMC_ENUM_COUNT];
	/* MAX_NUMNODES: length of node_data[], 1 without NUMA */
	uint32_t max_numnodes;
};

/* Static description of what to resolve: shared by every provider. */
struct mmc_member_spec {
	enum mmc_member_id id;
	const char *type;		/* "page", "folio", "dev_pagemap", ... */
	const char *candidates[4];	/* member paths, newest first; "a.b" nests */
	bool optional;
	const char *label;		/* stable name used in reports, e.g. "compound_head" */
	/*
	 * The saved-layout version that added it (0: version 1).  A file of an
	 * older version has no line for it (it reads as missing).  Such items
	 * stay out of the fingerprint, so older snapshot files keep theirs.
	 */
	unsigned int since;
};
extern const struct mmc_member_spec mmc_member_specs[MMC_MEMBER_COUNT];
struct mmc_size_spec { enum mmc_size_id id; const char *type; bool optional; unsigned int since; };
extern const struct mmc_size_spec mmc_size_specs[MMC_SIZE_COUNT];
struct mmc_symbol_spec { enum mmc_symbol_id id; const char *name; bool optional; unsigned int since; };
extern const struct mmc_symbol_spec mmc_symbol_specs[MMC_SYM_COUNT];
struct mmc_enum_spec { enum mmc_enum_id id; const char *type; bool optional; unsigned int since; };
extern const struct mmc_enum_spec mmc_enum_specs[MMC_ENUM_COUNT];

struct mmc_layout *mmc_layout_create(void);
void mmc_layout_destroy(struct mmc_layout *layout);

/*
 * After a provider has filled what it could: every non-optional member, size,
 * symbol and enum must be found, and the folio needs a pgmap either in page
 * or folio.  The error names every missing item and the source.
 */
struct mmc_error *mmc_layout_check(const struct mmc_layout *layout);

/* Value of enumerator `name` in enum `id`; false if absent. */
bool mmc_layout_enum_value(const struct mmc_layout *layout, enum mmc_enum_id id,
			   const char *name, int64_t *value);
/* Name of the enumerator with `value` (first match), or NULL. */
const char *mmc_layout_enum_name(const struct mmc_layout *layout,
				 enum mmc_enum_id id, int64_t value);
/* Add an enumerator (providers use this); copies name. */
struct mmc_error *mmc_layout_enum_add(struct mmc_layout *layout,
				      enum mmc_enum_id id, const char *name,
				      int64_t value);

/*
 * 64-bit fingerprint of the type layout (members, sizes, enums; not symbol
 * addresses, not release/build-id, not the items of a spec's `since`): two
 * kernels with the same struct layout have the same fingerprint.
 */
uint64_t mmc_layout_fingerprint(const struct mmc_layout *layout);

/* Compare two layouts of the same kernel (e.g. DWARF vs saved vs crash):
 * NULL if equal, else an error listing the first differences. */
struct mmc_error *mmc_layout_compare(const struct mmc_layout *a,
				     const struct mmc_layout *b,
				     bool compare_symbols);

/* Providers */
struct mmc_error *mmc_layout_from_dwarf(const char *vmlinux_path,
					struct mmc_layout **out);
struct mmc_error *mmc_layout_save(const struct mmc_layout *layout,
				  const char *path);	/* atomic write */
struct mmc_error *mmc_layout_load(const char *path, struct mmc_layout **out);
/* The same text as a stream / buffer, so a snapshot file can embed it. */
struct mmc_error *mmc_layout_write_text(FILE *out, const struct mmc_layout *layout);
struct mmc_error *mmc_layout_parse_text(const char *text, size_t len,
					const char *path,
					struct mmc_layout **out);
/* Deep copy. */
struct mmc_error *mmc_layout_copy(const struct mmc_layout *src,
				  struct mmc_layout **out);

#endif
