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
#ifndef MMC_NREC_H
#define MMC_NREC_H

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

struct mmc_vframe {
	uint8_t kind;		/* enum mmc_vframe_kind */
	/* how many vmemmap pages back (within this range) the first page that
	 * maps the same frame is; 0 = not shared with an earlier one */
	int64_t share_back;
	int64_t dev_off;	/* MMC_VF_DEVICE: frame pfn - range start pfn */
	uint64_t paddr;		/* display only */
	/* MMC_VF_UNREADABLE: why the page table could not be read
	 * (enum mmc_unread_reason); MMC_UR_NONE otherwise */
	uint8_t reason;
};

struct mmc_srange {
	uint64_t start_pfn, end_pfn;	/* [start, end) */
	uint32_t pgmap_index;		/* into the snapshot's pgmaps */
	uint32_t range_index;		/* within its pgmap */
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
