/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86_64 page-table walk from the kernel's top-level table, over physical
 * reads of a memory source.  Used to translate vmemmap addresses, so the
 * physical frame behind every vmemmap page is known (shared tail vmemmap
 * pages show up as the same frame) and /proc/kcore works.
 * Caches the last page-table pages read: walking a vmemmap range in order
 * costs about one PTE-table read per 2 MiB of vmemmap.
 */
#ifndef MMC_PGTABLE_H
#define MMC_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "mem.h"
#include "model.h"	/* enum mmc_vprot, enum mmc_vleaf */

struct mmc_pgtable;

/* top_pgt_phys: physical address of init_top_pgt; levels: 4 or 5. */
struct mmc_error *mmc_pgtable_create(struct mmc_mem *mem, uint64_t top_pgt_phys,
				     unsigned int levels,
				     struct mmc_pgtable **out);
void mmc_pgtable_destroy(struct mmc_pgtable *pgt);

/* Whether vaddr is canonical for levels-level paging (48 or 57 bits, sign-extended). */
bool mmc_va_canonical(unsigned int levels, uint64_t vaddr);

/*
 * Translate vaddr.  *mapped=false (and NULL returned) when a table entry is
 * not present.  *page_size is the size of the mapping that covers it (4K,
 * 2M, 1G), so callers can read a whole huge mapping at once; when nothing
 * maps vaddr, the size of the aligned span the missing entry would have
 * mapped; after an error, the span the unreadable or corrupt table (entry)
 * covers (UINT64_MAX for the top-level table; for a non-canonical address,
 * the aligned 2^47 or 2^56 bytes around it, all non-canonical).  So a caller can skip a
 * whole hole at once.  An error when a page table itself cannot be read
 * (NODATA: the dump lacks it) or an entry cannot be right (CORRUPT).
 */
struct mmc_error *mmc_pgtable_translate(struct mmc_pgtable *pgt, uint64_t vaddr,
					bool *mapped, uint64_t *paddr,
					uint64_t *page_size);

/*
 * The same walk, with what the leaf entry says besides the frame.  On
 * success: mapped, paddr and page_size as above; when mapped, prot holds
 * the effective protection (enum mmc_vprot: writable only if every level's
 * entry allows writes), prot_known the bits read (MMC_VPROT_ALL), leaf the
 * level of the leaf entry; all 0 when not mapped.  Errors as above.
 */
struct mmc_xlat {
	bool mapped;
	uint64_t paddr;
	uint64_t page_size;
	uint8_t prot, prot_known;
	uint8_t leaf;		/* enum mmc_vleaf */
};
struct mmc_error *mmc_pgtable_xlate(struct mmc_pgtable *pgt, uint64_t vaddr,
				    struct mmc_xlat *out);

/*
 * Physical-address bits of a table entry (default bits 12..51).  Clear the
 * SME/TDX encryption bit here when the kernel runs with memory encryption
 * (sme_me_mask from the kernel): otherwise it reads as an address bit.
 * Bits below 12 are ignored.
 */
void mmc_pgtable_set_phys_mask(struct mmc_pgtable *pgt, uint64_t mask);
/* Page-table pages read from the memory source so far (cache misses). */
uint64_t mmc_pgtable_table_reads(const struct mmc_pgtable *pgt);

#endif
