/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The snapshot file format's sizes and tags (doc/SNAPSHOT-FORMAT.md), shared
 * by the snapshot_file_*.c that write and read it.  Private to those.
 */
#ifndef MMC_SNAPSHOT_FILE_FORMAT_H
#define MMC_SNAPSHOT_FILE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define HDR_SIZE 24		/* magic[8], version u32, flags u32, file size u64 */
#define SEC_HDR 12		/* tag[4], length u64 */
#define TRAILER 8
#define NVAL_SIZE 20		/* cls u8, region u8, off u16, v i64, raw u64 */
#define RUN_HDR_V1 11	/* count u64, state u8, role u8, nslots u8 */
#define RUN_HDR 12		/* version 2: and reason u8 */
#define RUN_SLOT 36		/* nval + dv i64 + draw u64 */
#define VRUN_SIZE_V1 57		/* count u64, kind u8, 6 x 64-bit */
#define VRUN_SIZE_V2 58	/* versions 2-4: count u64, kind u8, reason u8, 6 x 64-bit */
#define VRUN_SIZE 61		/* version 5: and prot_known u8, prot u8, leaf u8 */
#define RANGE_HDR_V1 80		/* 7 x u64, 2 x u32, nruns u64, nvruns u64
				 * (version 3: pattern counts) */
#define RANGE_HDR 85		/* version 5: and kind u8, owner u32 before the counts */
#define HSTATE_SIZE 52		/* version 5: order u32, flags u32, 5 x u64, name str (>= 4) */
#define FOLIOS_SIZE 26		/* version 5: hstate u32, node u32, start u64, n u64, list u8, vmemmap u8 */
#define MEMBLOCK_SIZE 52	/* version 5: id u64, start u64, end u64, nid u32, state u32,
				 * flags u32, altmap_pfns u64, kaddr u64 */
#define PAT_HDR 12		/* version 3: reps u64, nbody u32 */
#define RUN_SLOT_REP 16		/* version 3, repeating pattern: rep dv i64, rep draw u64 */
#define VRUN_REP 24		/* version 3, repeating pattern: 3 x 64-bit rep deltas */
#define PAT_MAX_BODY 4096	/* runs in the body of a repeating pattern */

/* Section tags (4 bytes, no NUL in the file) */
#define SNAP_TAG_INFO		"INFO"
#define SNAP_TAG_LAYOUT		"LAYT"
#define SNAP_TAG_GEOM		"GEOM"
#define SNAP_TAG_PGMAPS		"PGMP"
#define SNAP_TAG_HUGETLB	"HUGE"	/* version 5 */
#define SNAP_TAG_HOTPLUG	"HPLG"	/* version 5 */
#define SNAP_TAG_RANGES		"RNGS"
#define SNAP_TAG_DISCOVERY	"DISC"

#endif
