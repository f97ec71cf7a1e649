/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A dump's declared extent, checked against the file before anything is
 * read from it.  libkdumpfile 0.5.1 reads data past the end of a file as
 * zeros, so a truncated or damaged dump would give struct pages of zeros,
 * page tables that map nothing and an empty pgmap_array.  Here the
 * structure of the file is read (not its page data: libkdumpfile does
 * that) and every page whose data the file does not hold is named:
 *
 *   kdump-compressed: header, sub-header, VMCOREINFO and notes, page
 *     bitmaps, the page descriptor table, every descriptor's data offset,
 *     size and flags (makedumpfile's diskdump_mod.h; libkdumpfile's
 *     diskdump.c reads the same);
 *   ELF: the program header table, every PT_NOTE and PT_LOAD's file range;
 *   flattened (makedumpfile -F): every segment header and its data,
 *     reassembled into an anonymous file for libkdumpfile (which cannot
 *     read the format), holes and all.
 *
 * Damage that leaves nothing to read (headers, bitmaps, notes) is an
 * MMC_ERR_INPUT error naming the file offset.  Damage to page data or to
 * page descriptors marks those pages: reads of them fail with
 * MMC_ERR_NODATA and MMC_UR_TRUNCATED or MMC_UR_CORRUPT, and a note says
 * what was found ("dump truncated: the file is M bytes, its page
 * descriptors and data need K; ...").
 */
#ifndef MMC_MEM_EXTENT_H
#define MMC_MEM_EXTENT_H

#include <stdbool.h>
#include <stdint.h>

#include "mem.h"

struct mmc_dump_damage;

/*
 * Check the dump open on *fd (path names it).  When the file is in the
 * flattened format, *fd is replaced by (and the caller owns) the
 * reassembled file, the original closed.  *damage is NULL when every
 * page the dump declares is in the file.  Notes go to mem.
 */
struct mmc_error *mmc_dump_check(int *fd, const char *path, struct mmc_mem *mem,
				 struct mmc_dump_damage **damage);
/*
 * Is [paddr, paddr + len) (physical) damaged?  If so, *good is how many
 * bytes from paddr are intact and *reason why the next one is not.
 */
bool mmc_dump_damage_find(const struct mmc_dump_damage *d, uint64_t paddr,
			  uint64_t len, uint64_t *good, uint8_t *reason);
void mmc_dump_damage_destroy(struct mmc_dump_damage *d);

#endif
