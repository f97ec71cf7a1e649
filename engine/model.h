/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The data model shared by walker, snapshot, diff, lint and report:
 * image geometry, normalised struct page records, vmemmap frames, ranges and
 * pgmaps as a snapshot holds them.
 *
 * A normalised record keeps EVERY 8-byte slot of a struct page (sizeof(struct
 * page) / 8 slots), so nothing the kernel wrote escapes comparison.  Each slot
 * carries a class and a boot-independent value `v`, plus the raw value for
 * display.  Diff compares (cls, off, v) only; `raw` is never compared except
 * where cls == MMC_V_RAW (then v == raw).
 */
#ifndef MMC_MODEL_H
#define MMC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "mmc_error.h"	/* enum mmc_unread_reason */

#define MMC_MAX_SLOTS 16	/* struct page up to 128 bytes */

/*
 * Where vmemmap_base, page_offset_base and vmalloc_base came from: the
 * kernel's own variables (CONFIG_DYNAMIC_MEMORY_LAYOUT: 5-level support or
 * RANDOMIZE_MEMORY), or, for kernels without them, the architecture's fixed
 * bases for the paging depth the image runs with.
 */
enum mmc_base_origin {
	MMC_BASES_UNKNOWN = 0,	/* not recorded (older snapshot files) */
	MMC_BASES_VARIABLES,	/* read from vmemmap_base/page_offset_base/vmalloc_base */
	MMC_BASES_FIXED,	/* __VMEMMAP_BASE_L4/L5 etc. (pgtable_64_types.h) */
};

/* How the paging depth was decided. */
enum mmc_levels_origin {
	MMC_LEVELS_UNKNOWN = 0,
	MMC_LEVELS_VMCOREINFO,	/* NUMBER(pgtable_l5_enabled) */
	MMC_LEVELS_PAGE_TABLES,	/* the depth under which _text translates to its load address */
};

/* What an image's addresses mean: enough to classify pointers and decode
 * flags without the kernel at hand (a snapshot file stores it). */
struct mmc_geom {
	uint32_t page_size;		/* 4096 */
	uint32_t struct_page_size;	/* sizeof(struct page) */
	uint64_t vmemmap_base;		/* relocated, as read from the kernel */
	uint64_t vmemmap_end;		/* vmemmap_base + max_pfn * struct_page_size */
	uint64_t page_offset_base;	/* direct map start */
	uint64_t direct_map_end;
	uint64_t vmalloc_base, vmalloc_end;
	uint64_t kimage_start, kimage_end;	/* relocated _text .. _end */
	uint64_t module_start, module_end;
	uint64_t kaslr_offset;
	uint64_t poison_pointer_delta;	/* 0xdead000000000000 on x86_64 */
	/* page->flags layout (include/linux/page-flags-layout.h) */
	uint32_t zones_width, zones_pgshift;
	uint32_t nodes_width, nodes_pgshift;
	uint32_t nr_pageflags;		/* __NR_PAGEFLAGS */
	uint32_t pgtable_levels;	/* 4 or 5 (0: not recorded) */
	uint8_t base_origin;		/* enum mmc_base_origin */
	uint8_t levels_origin;		/* enum mmc_levels_origin */
};

enum mmc_vclass {
	MMC_V_RAW = 0,	/* compared verbatim: integers, flags */
	MMC_V_NULL,	/* 0 in a pointer slot */
	MMC_V_SELF,	/* into its own struct page: off = byte offset */
	MMC_V_PAGE,	/* into another struct page: v = target pfn - own pfn, off = byte offset (compound_head: off 1) */
	MMC_V_PGMAP,	/* into a dev_pagemap of this image: v = pgmap index, off = byte offset */
	MMC_V_POISON,	/* poison_pointer_delta + small constant (TAIL_MAPPING, LIST_POISON*): v = raw - delta */
	MMC_V_OBJ,	/* other kernel object: v = number of first appearance in this image (0, 1, ...) */
};

enum mmc_region {	/* for MMC_V_OBJ: where it points */
	MMC_R_NONE = 0, MMC_R_DIRECT, MMC_R_VMALLOC, MMC_R_KIMAGE,
	MMC_R_MODULE, MMC_R_VMEMMAP,
	MMC_R_MMID,	/* not a pointer: page[1]'s _mm_ids, mm ids allocated per
			 * process (7.x), numbered like objects */
};

struct mmc_nval {
	uint8_t cls;		/* enum mmc_vclass */
	uint8_t region;		/* enum mmc_region, for OBJ */
	uint16_t off;
	int64_t v;
	uint64_t raw;		/* raw slot value, display only */
};

enum mmc_page_state {
	MMC_PS_READ = 0,	/* read and normalised */
	MMC_PS_UNREADABLE,	/* the dump lacks the vmemmap page: never "zero" */
	MMC_PS_UNMAPPED,	/* vmemmap not mapped by the page tables */
	MMC_PS_NOT_INIT,	/* never written by the kernel (altmap reserve): read, not compared */
};

enum mmc_page_role {	/* which kernel code initialised the pfn */
	MMC_ROLE_DEVICE = 0,	/* memmap_init_zone_device / memmap_init_compound */
	MMC_ROLE_ALTMAP,	/* memmap_init_range: pfns holding the memmap (altmap free) */
	MMC_ROLE_RESERVE,	/* altmap reserve: never written */
	MMC_ROLE_SHARED,	/* compound tail whose vmemmap page is shared, not written */
};

struct mmc_nrec {
	uint8_t state;		/* enum mmc_page_state */
	uint8_t role;		/* enum mmc_page_role */
	uint8_t nslots;		/* struct_page_size / 8 */
	struct mmc_nval slot[MMC_MAX_SLOTS];
	/* MMC_PS_UNREADABLE: why (enum mmc_unread_reason); MMC_UR_NONE otherwise */
	uint8_t reason;
};

/* The physical frame behind one 4 KiB vmemmap page covering a range. */
enum mmc_vframe_kind {
	MMC_VF_RAM = 0,		/* frame in System RAM (map=mem) */
	MMC_VF_DEVICE,		/* frame inside the range's device memory (map=dev) */
	MMC_VF_UNMAPPED,
	MMC_VF_UNREADABLE,	/* a page table the dump lacks */
};

/*
 * The protection of the page-table entry that maps a vmemmap page
 * (engine/pgtable.c reads it), as bits, each recorded or not: prot_known
 * says which bits of prot the snapshot holds.  A snapshot file before
 * version 5, and a vmemmap page without a translation (unmapped,
 * unreadable), records none; diff and lint compare and check only
 * recorded bits.  A later bit (NX, global) is one more enumerator here and
 * one more bit in the walker's prot_known; older files read as "not
 * recorded" for it.
 */
enum mmc_vprot {
	/*
	 * Writes through the mapping are allowed: _PAGE_RW is set in the leaf
	 * and in every table entry above it (x86_64 with CR0.WP, which the
	 * kernel always sets: a supervisor write needs R/W at every level).
	 */
	MMC_VPROT_WRITABLE = 1 << 0,
};
#define MMC_VPROT_ALL MMC_VPROT_WRITABLE	/* the bits a version-5 file may hold */

/* The level of the entry that maps a vmemmap page (0: not recorded). */
enum mmc_vleaf {
	MMC_VLEAF_NONE = 0,
	MMC_VLEAF_PTE = 1,	/* 4 KiB */
	MMC_VLEAF_PMD = 2,	/* 2 MiB (vmemmap_populate_hugepages()) */
	MMC_VLEAF_PUD = 3,	/* 1 GiB */
};

struct mmc_vframe {
	uint8_t kind;		/* enum mmc_vframe_kind */
	uint8_t prot;		/* enum mmc_vprot bits, meaningful where known */
	uint8_t prot_known;	/* enum mmc_vprot bits recorded */
	uint8_t leaf;		/* enum mmc_vleaf */
	/* how many vmemmap pages back (within this range) the first page that
	 * maps the same frame is; 0 = not shared with an earlier one */
	int64_t share_back;
	int64_t dev_off;	/* MMC_VF_DEVICE: frame pfn - range start pfn */
	uint64_t paddr;		/* display only */
	/* MMC_VF_UNREADABLE: why the page table could not be read
	 * (enum mmc_unread_reason); MMC_UR_NONE otherwise */
	uint8_t reason;
};

/*
 * What a range of struct pages is.  The walker, snapshot, diff and lint
 * treat every kind alike; discovery and lint's rules tell them apart.
 */
enum mmc_range_kind {
	MMC_RANGE_PGMAP = 0,	/* a ZONE_DEVICE pgmap's range (pgmap_array) */
	MMC_RANGE_HUGETLB,	/* consecutive HugeTLB folios of one hstate */
	MMC_RANGE_HOTPLUG,	/* a hot-plugged memory block */
	MMC_RANGE_KINDS
};
#define MMC_NO_PGMAP UINT32_MAX	/* pgmap_index of a range that is not a pgmap's */

struct mmc_srange {
	uint64_t start_pfn, end_pfn;	/* [start, end) */
	uint32_t pgmap_index;		/* into the snapshot's pgmaps; MMC_NO_PGMAP
					 * for other kinds */
	uint32_t range_index;		/* within its pgmap (other kinds: 0) */
	uint8_t kind;			/* enum mmc_range_kind */
	/* into the kind's table: the pgmaps (== pgmap_index), the hstates,
	 * the memory blocks */
	uint32_t owner;
	uint64_t vmemmap_start;		/* address of start_pfn's struct page (display) */
	/* pfns by role, from discovery */
	uint64_t reserve_start, reserve_end;	/* altmap reserve [start,end), empty if none */
	uint64_t altmap_start, altmap_end;	/* memmap_init_range pfns */
};

/*
 * A device-dax data range: the pfns dev_dax_probe() requested
 * (dev_dax->ranges[i].range), [start, end), of the pgmap dev_dax->pgmap
 * names.  For a pmem namespace it starts after the info block, which the
 * pgmap's own range includes.
 */
struct mmc_dax_span {
	uint32_t pgmap_index;		/* into the snapshot's pgmaps */
	uint64_t start_pfn, end_pfn;
};

/* What the snapshot knows of the device-dax ranges. */
enum mmc_dax_state {
	MMC_DAX_NOT_READ = 0,	/* the layout has no device-dax chain, or an old file */
	MMC_DAX_READ = 1,	/* every dev_dax on the dax superblock was read */
	MMC_DAX_PARTIAL = 2,	/* reading stopped at a structure: the spans before it */
};

/* What a snapshot knows of a kind of structure beyond the pgmaps. */
enum mmc_read_state {
	MMC_READ_NOT = 0,	/* not read: the layout lacks it, or an older file */
	MMC_READ_DONE = 1,	/* every one was read */
	MMC_READ_PARTIAL = 2,	/* reading stopped at a structure: the ones before it */
};

/* A HugeTLB pool size: struct hstate (include/linux/hugetlb.h). */
enum mmc_hstate_flag {
	/* vmemmap_optimize_enabled (mm/hugetlb_vmemmap.c) was set, and the
	 * hstate's size can be optimised (hugetlb_vmemmap_optimizable()) */
	MMC_HSTATE_HVO = 1 << 0,
};
struct mmc_shstate {
	uint32_t order;			/* huge_page_order() */
	uint32_t flags;			/* enum mmc_hstate_flag */
	char name[32];			/* h->name, "hugepages-2048kB" */
	uint64_t nr, free, resv, surplus;	/* nr_huge_pages, free_huge_pages, ... */
	uint64_t kaddr;			/* display only */
};

/* Which of the hstate's lists a folio was found on. */
enum mmc_folio_list {
	MMC_FOLIO_FREE = 0,	/* h->hugepage_freelists[node] */
	MMC_FOLIO_ACTIVE,	/* h->hugepage_activelist (in use) */
	MMC_FOLIO_LISTS
};
/* Its vmemmap, as the folio's own HPG_vmemmap_optimized says. */
enum mmc_folio_vmemmap {
	MMC_FVM_UNKNOWN = 0,
	MMC_FVM_OPTIMISED,	/* HVO: the tail vmemmap pages remapped, freed */
	MMC_FVM_PLAIN,		/* never optimised, or restored */
	MMC_FVM_KINDS
};
/* Consecutive folios of one hstate alike in list, node and vmemmap:
 * heads start_pfn + i << order, i < nfolios. */
struct mmc_sfolios {
	uint32_t hstate;		/* into the snapshot's hstates */
	uint32_t node;
	uint64_t start_pfn;
	uint64_t nfolios;		/* >= 1 */
	uint8_t list;			/* enum mmc_folio_list */
	uint8_t vmemmap;		/* enum mmc_folio_vmemmap */
};

/* A hot-plugged memory block (struct memory_block, drivers/base/memory.c). */
enum mmc_memblock_flag {
	MMC_MEMBLOCK_SELF_HOSTED = 1 << 0,	/* memmap_on_memory: its memmap in its first pfns */
};
struct mmc_smemblock {
	uint64_t id;			/* memory block id: start section / sections per block */
	uint64_t start_pfn, end_pfn;
	uint32_t nid;
	uint32_t state;			/* mem->state: MEM_ONLINE, MEM_OFFLINE, ... */
	uint32_t flags;			/* enum mmc_memblock_flag */
	uint64_t altmap_pfns;		/* MMC_MEMBLOCK_SELF_HOSTED: pfns holding the memmap */
	uint64_t kaddr;			/* display only */
};

struct mmc_spgmap {
	uint64_t kaddr;			/* display only */
	int64_t type;			/* enum memory_type value */
	char type_name[40];		/* "MEMORY_DEVICE_FS_DAX" */
	uint64_t flags;
	uint32_t vmemmap_shift;
	uint32_t nr_range;
	struct mmc_nval owner, ops;	/* normalised pointers */
	bool has_altmap;		/* pgmap->flags & PGMAP_ALTMAP_VALID */
	uint64_t altmap_base_pfn, altmap_end_pfn, altmap_reserve, altmap_free,
		 altmap_align, altmap_alloc;
};

#endif
