// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86_64 page-table walk (4- or 5-level) over physical reads.
 *
 * Each level keeps the last table page it read.  A vmemmap walk in address
 * order then re-reads nothing above the PTE level, and a PTE table (512
 * entries, 2 MiB of virtual space) is read once: the whole cost of
 * translation is about one 4 KiB read per 2 MiB of vmemmap.
 */
#include "mmc_util.h"
#include "pgtable.h"

#include <stdlib.h>
#include <string.h>

#define PT_ENTRIES		512
#define PT_PAGE_SIZE		4096u
/*
 * Entry bits, arch/x86/include/asm/pgtable_types.h: _PAGE_BIT_PRESENT 0,
 * _PAGE_BIT_RW 1, _PAGE_BIT_PSE 7 (the same in every x86_64 kernel: the
 * architecture's format).
 */
#define PTE_PRESENT		(1ULL << 0)
#define PTE_RW			(1ULL << 1)
#define PTE_PSE			(1ULL << 7)
/* Bits 12..51: the architectural maximum physical address width. */
#define PTE_PHYS_MASK_DEFAULT	0x000ffffffffff000ULL

struct pt_cache {
	bool valid;
	uint64_t table_phys;
	uint64_t e[PT_ENTRIES];
};

struct mmc_pgtable {
	struct mmc_mem *mem;
	uint64_t top;
	unsigned int levels;
	uint64_t phys_mask;
	uint64_t table_reads;
	/* Indexed by level: 1 = PTE, 2 = PMD, 3 = PUD, 4 = P4D/PGD, 5 = PGD. */
	struct pt_cache cache[6];
};

static const char *const level_name4[] = {
	[1] = "PTE", [2] = "PMD", [3] = "PUD", [4] = "PGD",
};
static const char *const level_name5[] = {
	[1] = "PTE", [2] = "PMD", [3] = "PUD", [4] = "P4D", [5] = "PGD",
};

static const char *level_name(const struct mmc_pgtable *pgt, unsigned int lvl)
{
	return pgt->levels == 5 ? level_name5[lvl] : level_name4[lvl];
}

struct mmc_error *mmc_pgtable_create(struct mmc_mem *mem, uint64_t top_pgt_phys,
				     unsigned int levels,
				     struct mmc_pgtable **out)
{
	struct mmc_pgtable *pgt;

	if (levels != 4 && levels != 5)
		return mmc_error_create(MMC_ERR_USAGE, mem ? mem->path : NULL,
					"unsupported number of page-table levels %u",
					levels);
	if (top_pgt_phys & (PT_PAGE_SIZE - 1))
		return mmc_error_at(MMC_ERR_CORRUPT, mem->path, top_pgt_phys,
				    "top-level page table is not page aligned");
	pgt = calloc(1, sizeof(*pgt));
	if (!pgt)
		return mmc_error_nomem();
	pgt->mem = mem;
	pgt->top = top_pgt_phys;
	pgt->levels = levels;
	pgt->phys_mask = PTE_PHYS_MASK_DEFAULT;
	*out = pgt;
	return NULL;
}

void mmc_pgtable_destroy(struct mmc_pgtable *pgt)
{
	free(pgt);
}

void mmc_pgtable_set_phys_mask(struct mmc_pgtable *pgt, uint64_t mask)
{
	/* Bits below 12 are flags at every level, never address bits. */
	pgt->phys_mask = mask & ~(uint64_t)(PT_PAGE_SIZE - 1);
}

uint64_t mmc_pgtable_table_reads(const struct mmc_pgtable *pgt)
{
	return pgt->table_reads;
}

static struct mmc_error *load_table(struct mmc_pgtable *pgt, unsigned int lvl,
				    uint64_t table_phys, uint64_t vaddr)
{
	struct pt_cache *c = &pgt->cache[lvl];
	unsigned char buf[PT_PAGE_SIZE];
	struct mmc_error *err;
	size_t i;

	if (c->valid && c->table_phys == table_phys)
		return NULL;
	c->valid = false;
	pgt->table_reads++;
	err = mmc_mem_read(pgt->mem, MMC_PHYSADDR, table_phys, buf, sizeof(buf));
	if (err) {
		/*
		 * Name the table, not the byte inside it that failed: the
		 * caller wants to know which page table the dump lacks.
		 */
		err->has_address = true;
		err->address = table_phys;
		return mmc_error_prefix(err, "%s table for 0x%llx",
					level_name(pgt, lvl),
					(unsigned long long)vaddr);
	}
	for (i = 0; i < PT_ENTRIES; i++)
		c->e[i] = mmc_le64(buf + i * 8);
	c->table_phys = table_phys;
	c->valid = true;
	return NULL;
}

static unsigned int va_bits(unsigned int levels)
{
	return levels == 5 ? 57 : 48;
}

bool mmc_va_canonical(unsigned int levels, uint64_t vaddr)
{
	unsigned int bits = va_bits(levels);
	int64_t sext = (int64_t)(vaddr << (64 - bits)) >> (64 - bits);

	return (uint64_t)sext == vaddr;
}

struct mmc_error *mmc_pgtable_translate(struct mmc_pgtable *pgt, uint64_t vaddr,
					bool *mapped, uint64_t *paddr,
					uint64_t *page_size)
{
	struct mmc_xlat x;
	struct mmc_error *err = mmc_pgtable_xlate(pgt, vaddr, &x);

	*mapped = x.mapped;
	*page_size = x.page_size;
	if (x.mapped)
		*paddr = x.paddr;
	return err;
}

struct mmc_error *mmc_pgtable_xlate(struct mmc_pgtable *pgt, uint64_t vaddr,
				    struct mmc_xlat *out)
{
	uint64_t table = pgt->top, *page_size = &out->page_size;
	/*
	 * A supervisor write needs R/W in the entry of every level (Intel
	 * SDM vol. 3, 4.6.1, with CR0.WP set, which the kernel always sets:
	 * CR0_STATE in arch/x86/include/asm/processor-flags.h).
	 */
	uint64_t rw_all = PTE_RW;
	unsigned int lvl;

	memset(out, 0, sizeof(*out));
	/*
	 * A non-canonical address has no translation; it is a bad pointer.
	 * The hole [2^(va_bits-1), 2^64 - 2^(va_bits-1)) is made of whole
	 * aligned blocks of 2^(va_bits-1) bytes: say so, so a walk skips it.
	 */
	if (!mmc_va_canonical(pgt->levels, vaddr)) {
		*page_size = 1ULL << (va_bits(pgt->levels) - 1);
		return mmc_error_at(MMC_ERR_CORRUPT, pgt->mem->path, vaddr,
				    "non-canonical virtual address for %u-level paging",
				    pgt->levels);
	}

	for (lvl = pgt->levels; lvl >= 1; lvl--) {
		unsigned int shift = 12 + 9 * (lvl - 1);
		unsigned int idx = (vaddr >> shift) & (PT_ENTRIES - 1);
		struct mmc_error *err;
		uint64_t ent, size;

		/* what this table maps, and what one entry of it maps */
		*page_size = lvl == pgt->levels ? UINT64_MAX : 1ULL << (shift + 9);
		err = load_table(pgt, lvl, table, vaddr);
		if (err)
			return err;
		ent = pgt->cache[lvl].e[idx];
		size = 1ULL << shift;
		*page_size = size;
		if (!(ent & PTE_PRESENT))
			return NULL;
		rw_all &= ent;
		if (lvl == 1 || ((ent & PTE_PSE) && (lvl == 2 || lvl == 3))) {
			/*
			 * In a 2M/1G entry bit 12 is PAT, not address: the
			 * frame is aligned to the mapping size.
			 */
			out->paddr = (ent & pgt->phys_mask & ~(size - 1)) |
				     (vaddr & (size - 1));
			*page_size = size;
			out->mapped = true;
			out->prot = rw_all ? MMC_VPROT_WRITABLE : 0;
			out->prot_known = MMC_VPROT_ALL;
			out->leaf = (uint8_t)lvl;	/* enum mmc_vleaf: 1 PTE .. 3 PUD */
			return NULL;
		}
		*page_size = size;
		if (ent & PTE_PSE)
			return mmc_error_at(MMC_ERR_CORRUPT, pgt->mem->path,
					    table + idx * 8,
					    "%s entry 0x%llx for 0x%llx has the reserved PS bit set",
					    level_name(pgt, lvl),
					    (unsigned long long)ent,
					    (unsigned long long)vaddr);
		table = ent & pgt->phys_mask;
	}
	return mmc_error_create(MMC_ERR_INTERNAL, pgt->mem->path,
				"page-table walk fell through");
}
