// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86_64 page-table walk over synthetic page tables in a fake physical
 * memory (a malloc'd buffer behind a counting mmc_mem backend), and the
 * same tables through the kcore reader of an ELF core (tests/unit/mkcore.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "mem.h"
#include "mkcore.h"
#include "pgtable.h"
#include "tap.h"

#define PHYS_SIZE	0x10000ULL	/* the fake machine's RAM: 64 KiB */
#define PGD		0x1000ULL
#define PUD		0x2000ULL
#define PMD		0x3000ULL
#define PTE		0x4000ULL
#define PTE_ENC		0x5000ULL	/* reached through an SME-tagged entry */
#define PGD5		0x6000ULL
#define P4D		0x7000ULL
#define PTE_ROTBL	0x8000ULL	/* reached through a PMD entry without RW */
#define MISSING_PMD	0x7ff00000ULL	/* outside RAM */

#define P		0x1ULL		/* present */
#define RW		0x2ULL
#define PS		0x80ULL
#define PAT_HUGE	0x1000ULL	/* bit 12 in a 2M/1G entry */
#define NX		(1ULL << 63)
#define SOFT		(0x7fULL << 52)	/* software / protection-key bits */
#define SME		(1ULL << 47)

#define VMEMMAP		0xffffea0000000000ULL
#define VMEMMAP5	0xffd4000000000000ULL
#define FRAME(i)	(0x800000ULL + (uint64_t)(i) * 0x1000)

struct fake_mem {
	unsigned char *ram;
	unsigned long reads;
};

static struct mmc_error *fake_read(void *priv, enum mmc_space space,
				   uint64_t addr, void *buf, size_t len,
				   size_t *done)
{
	struct fake_mem *fm = priv;

	fm->reads++;
	if (space != MMC_PHYSADDR) {
		*done = 0;
		return mmc_error_at(MMC_ERR_INTERNAL, "fake", addr,
				    "page tables must be read physically");
	}
	if (addr >= PHYS_SIZE) {
		*done = 0;
		return mmc_error_at(MMC_ERR_NODATA, "fake", addr, "no RAM");
	}
	if (len > PHYS_SIZE - addr) {
		memcpy(buf, fm->ram + addr, PHYS_SIZE - addr);
		*done = PHYS_SIZE - addr;
		return mmc_error_at(MMC_ERR_NODATA, "fake", PHYS_SIZE, "no RAM");
	}
	memcpy(buf, fm->ram + addr, len);
	*done = len;
	return NULL;
}

static const struct mmc_mem_ops fake_ops = { .read = fake_read };

static void set_entry(unsigned char *ram, uint64_t table, unsigned int idx,
		      uint64_t val)
{
	le_put64(ram + table + idx * 8, val);
}

static unsigned int idx_of(uint64_t va, unsigned int level)
{
	return (unsigned int)((va >> (12 + 9 * (level - 1))) & 511);
}

/*
 * VMEMMAP + 0:        PTE table, 4K pages at FRAME(i), entry 5 not present
 * VMEMMAP + 2M:       2M page at 0x40000000 (bit 12 = PAT set)
 * VMEMMAP + 4M:       PMD entry not present
 * VMEMMAP + 6M:       PMD entry with the SME bit -> PTE_ENC, frames with SME
 * VMEMMAP + 8M:       PMD entry without RW -> PTE_ROTBL, whose PTEs have RW
 *                     (read-only all the same: RW must be set at every level)
 * VMEMMAP + 0x6000:   a PTE without RW (how HVO and the section-based
 *                     compound vmemmap map a shared tail frame: PAGE_KERNEL_RO)
 * VMEMMAP + 1G:       1G page at 0x80000000
 * VMEMMAP + 2G:       PUD entry -> a PMD table outside RAM
 * VMEMMAP + 512G:     PGD entry not present
 * VMEMMAP + 1T:       PGD entry with PS set (reserved at that level)
 * VMEMMAP5 (5-level): PGD5 -> P4D -> the same PUD
 */
static void build_tables(unsigned char *ram)
{
	unsigned int i;

	memset(ram, 0, PHYS_SIZE);
	set_entry(ram, PGD, idx_of(VMEMMAP, 4), PUD | P | RW);
	set_entry(ram, PGD, idx_of(VMEMMAP + (1ULL << 40), 4),
		  0x40000000ULL | P | PS);
	set_entry(ram, PUD, 0, PMD | P | RW | SOFT);
	set_entry(ram, PUD, 1, 0x80000000ULL | P | RW | PS | NX);
	set_entry(ram, PUD, 2, MISSING_PMD | P | RW);
	for (i = 0; i < 512; i++)
		if (i != 5)
			set_entry(ram, PTE, i, FRAME(i) | P | (i == 6 ? 0 : RW) | NX | SOFT);
	set_entry(ram, PMD, 4, PTE_ROTBL | P);
	for (i = 0; i < 512; i++)
		set_entry(ram, PTE_ROTBL, i, FRAME(i) | P | RW | NX);
	set_entry(ram, PMD, 0, PTE | P | RW);
	set_entry(ram, PMD, 1, 0x40000000ULL | P | RW | PS | PAT_HUGE | NX);
	set_entry(ram, PMD, 3, PTE_ENC | SME | P | RW);
	for (i = 0; i < 512; i++)
		set_entry(ram, PTE_ENC, i, FRAME(i) | SME | P | RW | NX);
	set_entry(ram, PGD5, idx_of(VMEMMAP5, 5), P4D | P | RW);
	set_entry(ram, P4D, idx_of(VMEMMAP5, 4), PUD | P | RW);
}

struct xl {
	struct mmc_error *err;
	bool mapped;
	uint64_t paddr, size;
};

static struct xl xlate(struct mmc_pgtable *pgt, uint64_t va)
{
	struct xl r = { NULL, false, 0, 0 };

	r.err = mmc_pgtable_translate(pgt, va, &r.mapped, &r.paddr, &r.size);
	return r;
}

static void check_map(struct mmc_pgtable *pgt, uint64_t va, uint64_t pa,
		      uint64_t size, const char *what)
{
	struct xl r = xlate(pgt, va);

	tap_ok(!r.err && r.mapped && r.paddr == pa && r.size == size,
	       "%s: 0x%llx -> 0x%llx (%s, want 0x%llx) size 0x%llx",
	       what, (unsigned long long)va, (unsigned long long)r.paddr,
	       r.err ? r.err->message : r.mapped ? "mapped" : "unmapped",
	       (unsigned long long)pa, (unsigned long long)r.size);
	mmc_error_destroy(r.err);
}

/*
 * The protection and leaf level the x86_64 entry format gives (Intel SDM
 * vol. 3, 4.6.1: a supervisor write with CR0.WP needs R/W at every level;
 * the leaf is a PTE, or a PMD/PUD entry with PS).
 */
static void check_prot(struct mmc_pgtable *pgt, uint64_t va, bool writable,
		       unsigned int leaf, const char *what)
{
	struct mmc_xlat x;
	struct mmc_error *err = mmc_pgtable_xlate(pgt, va, &x);

	tap_ok(!err && x.mapped && x.prot_known == MMC_VPROT_WRITABLE &&
	       !!(x.prot & MMC_VPROT_WRITABLE) == writable && x.leaf == leaf,
	       "%s: 0x%llx %s, leaf level %u (got prot 0x%x known 0x%x leaf %u%s%s)",
	       what, (unsigned long long)va, writable ? "writable" : "read-only", leaf,
	       x.prot, x.prot_known, x.leaf, err ? ": " : "", err ? err->message : "");
	mmc_error_destroy(err);
}

static void check_unmapped(struct mmc_pgtable *pgt, uint64_t va,
			   const char *what)
{
	struct xl r = xlate(pgt, va);

	tap_ok(!r.err && !r.mapped, "%s: 0x%llx not mapped, no error", what,
	       (unsigned long long)va);
	mmc_error_destroy(r.err);
}

/* The span a hole covers: what the missing entry (or table) would map. */
static void check_span(struct mmc_pgtable *pgt, uint64_t va, uint64_t span,
		       const char *what)
{
	struct xl r = xlate(pgt, va);

	tap_ok(!r.mapped && r.size == span, "%s: 0x%llx: hole of 0x%llx (want 0x%llx)",
	       what, (unsigned long long)va, (unsigned long long)r.size,
	       (unsigned long long)span);
	mmc_error_destroy(r.err);
}

static void check_error(struct mmc_pgtable *pgt, uint64_t va,
			enum mmc_error_code code, bool has_addr, uint64_t addr,
			const char *what)
{
	struct xl r = xlate(pgt, va);

	tap_ok(r.err && r.err->code == code && !r.mapped &&
	       (!has_addr || (r.err->has_address && r.err->address == addr)),
	       "%s: 0x%llx: %s error (%s)", what, (unsigned long long)va,
	       mmc_error_code_name(code), r.err ? r.err->message : "none");
	mmc_error_destroy(r.err);
}

static void test_walk(struct mmc_mem *mem, const char *name)
{
	struct mmc_pgtable *pgt = NULL;
	struct mmc_error *err;
	char what[64];

	err = mmc_pgtable_create(mem, PGD, 4, &pgt);
	if (!tap_ok(!err, "%s: create 4-level walker", name)) {
		mmc_error_destroy(err);
		return;
	}
	snprintf(what, sizeof(what), "%s: 4K page", name);
	check_map(pgt, VMEMMAP + 0x3abc, FRAME(3) + 0xabc, 0x1000, what);
	check_map(pgt, VMEMMAP + 0x1ff000, FRAME(511), 0x1000, what);
	snprintf(what, sizeof(what), "%s: non-present PTE", name);
	check_unmapped(pgt, VMEMMAP + 0x5000, what);
	{
		struct mmc_xlat x;
		struct mmc_error *e = mmc_pgtable_xlate(pgt, VMEMMAP + 0x5000, &x);

		tap_ok(!e && !x.mapped && !x.prot && !x.prot_known && !x.leaf,
		       "%s: nothing recorded for a non-present PTE", name);
		mmc_error_destroy(e);
	}
	snprintf(what, sizeof(what), "%s: protection", name);
	check_prot(pgt, VMEMMAP + 0x3000, true, MMC_VLEAF_PTE, what);
	check_prot(pgt, VMEMMAP + 0x6000, false, MMC_VLEAF_PTE, what);
	check_prot(pgt, VMEMMAP + 0x7000, true, MMC_VLEAF_PTE, what);
	check_prot(pgt, VMEMMAP + 0x800000, false, MMC_VLEAF_PTE, what);
	check_prot(pgt, VMEMMAP + 0x9ff000, false, MMC_VLEAF_PTE, what);
	check_prot(pgt, VMEMMAP + 0x200000, true, MMC_VLEAF_PMD, what);
	check_prot(pgt, VMEMMAP + 0x40000000, true, MMC_VLEAF_PUD, what);
	snprintf(what, sizeof(what), "%s: PTE without RW, frame still translated", name);
	check_map(pgt, VMEMMAP + 0x6008, FRAME(6) + 8, 0x1000, what);
	snprintf(what, sizeof(what), "%s: PMD without RW, frame still translated", name);
	check_map(pgt, VMEMMAP + 0x801000, FRAME(1), 0x1000, what);
	snprintf(what, sizeof(what), "%s: 2M page, PAT bit ignored", name);
	check_map(pgt, VMEMMAP + 0x200000 + 0x12345, 0x40012345ULL, 0x200000,
		  what);
	snprintf(what, sizeof(what), "%s: non-present PMD", name);
	check_unmapped(pgt, VMEMMAP + 0x400000, what);
	snprintf(what, sizeof(what), "%s: 1G page, NX ignored", name);
	check_map(pgt, VMEMMAP + 0x40000000 + 0x123456, 0x80123456ULL,
		  0x40000000, what);
	snprintf(what, sizeof(what), "%s: PMD table outside memory", name);
	check_error(pgt, VMEMMAP + 0x80000000ULL, MMC_ERR_NODATA, true,
		    MISSING_PMD, what);
	snprintf(what, sizeof(what), "%s: non-present PGD", name);
	check_unmapped(pgt, VMEMMAP + (1ULL << 39), what);
	/* spans, from the x86_64 paging structure: a PTE maps 4 KiB, a PMD
	 * entry 2 MiB (a PTE table), a PUD entry 1 GiB, a PGD entry 512 GiB */
	snprintf(what, sizeof(what), "%s: span of a non-present PTE", name);
	check_span(pgt, VMEMMAP + 0x5000, 0x1000, what);
	snprintf(what, sizeof(what), "%s: span of a non-present PMD entry", name);
	check_span(pgt, VMEMMAP + 0x400000, 0x200000, what);
	snprintf(what, sizeof(what), "%s: span of a PMD table the dump lacks", name);
	check_span(pgt, VMEMMAP + 0x80000000ULL, 0x40000000, what);
	snprintf(what, sizeof(what), "%s: span of a non-present PGD entry", name);
	check_span(pgt, VMEMMAP + (1ULL << 39), 1ULL << 39, what);
	snprintf(what, sizeof(what), "%s: PS in a PGD entry", name);
	check_error(pgt, VMEMMAP + (1ULL << 40), MMC_ERR_CORRUPT, false, 0,
		    what);
	snprintf(what, sizeof(what), "%s: non-canonical address", name);
	check_error(pgt, 0x0000900000000000ULL, MMC_ERR_CORRUPT, true,
		    0x0000900000000000ULL, what);

	/* SME: the C-bit reads as an address bit until it is masked. */
	snprintf(what, sizeof(what), "%s: SME bit unmasked", name);
	check_error(pgt, VMEMMAP + 0x600000, MMC_ERR_NODATA, true,
		    PTE_ENC | SME, what);
	mmc_pgtable_set_phys_mask(pgt, 0x000ffffffffff000ULL & ~SME);
	snprintf(what, sizeof(what), "%s: SME bit masked", name);
	check_map(pgt, VMEMMAP + 0x607010, FRAME(7) + 0x10, 0x1000, what);
	mmc_pgtable_destroy(pgt);

	err = mmc_pgtable_create(mem, PGD5, 5, &pgt);
	if (!tap_ok(!err, "%s: create 5-level walker", name)) {
		mmc_error_destroy(err);
		return;
	}
	snprintf(what, sizeof(what), "%s: 5-level 4K page", name);
	check_map(pgt, VMEMMAP5 + 0x3010, FRAME(3) + 0x10, 0x1000, what);
	snprintf(what, sizeof(what), "%s: 5-level 1G page", name);
	check_map(pgt, VMEMMAP5 + 0x40000000, 0x80000000ULL, 0x40000000, what);
	snprintf(what, sizeof(what), "%s: 5-level protection", name);
	check_prot(pgt, VMEMMAP5 + 0x3000, true, MMC_VLEAF_PTE, what);
	check_prot(pgt, VMEMMAP5 + 0x6000, false, MMC_VLEAF_PTE, what);
	check_prot(pgt, VMEMMAP5 + 0x40000000, true, MMC_VLEAF_PUD, what);
	snprintf(what, sizeof(what), "%s: 57-bit non-canonical", name);
	check_error(pgt, 0x0100000000000000ULL, MMC_ERR_CORRUPT, false, 0,
		    what);
	mmc_pgtable_destroy(pgt);
}

static void test_cache(struct mmc_mem *mem, struct fake_mem *fm)
{
	struct mmc_pgtable *pgt = NULL;
	struct mmc_error *err = NULL;
	unsigned long before, n = 0;
	uint64_t va, expect_reads;
	bool ok = true;

	if (mmc_pgtable_create(mem, PGD, 4, &pgt))
		return;
	before = fm->reads;
	/* A vmemmap walk: one struct page (64 bytes) at a time over 4 MiB. */
	for (va = VMEMMAP; va < VMEMMAP + 0x400000 && !err; va += 64) {
		bool mapped;
		uint64_t pa, size;

		err = mmc_pgtable_translate(pgt, va, &mapped, &pa, &size);
		if (err || (va - VMEMMAP) / 0x1000 == 5)
			continue;
		if (va < VMEMMAP + 0x200000)
			ok = ok && mapped &&
			     pa == FRAME((va - VMEMMAP) >> 12) + (va & 0xfff);
		else
			ok = ok && mapped && pa == 0x40000000ULL + (va & 0x1fffff);
		n++;
	}
	tap_ok(!err && ok, "cache: %lu sequential translations correct", n);
	mmc_error_destroy(err);
	/* PGD, PUD, PMD, PTE: four table pages for 4 MiB, then nothing. */
	expect_reads = 4;
	TAP_EQ_U64(fm->reads - before, expect_reads,
		   "cache: backend reads for a 4 MiB sequential walk");
	TAP_EQ_U64(mmc_pgtable_table_reads(pgt), expect_reads,
		   "cache: table_reads counter");
	mmc_pgtable_destroy(pgt);
}

static void test_bad_args(struct mmc_mem *mem)
{
	struct mmc_pgtable *pgt = NULL;
	struct mmc_error *err;

	err = mmc_pgtable_create(mem, PGD, 3, &pgt);
	tap_ok(err && err->code == MMC_ERR_USAGE && !pgt,
	       "3-level paging refused");
	mmc_error_destroy(err);
	err = mmc_pgtable_create(mem, PGD + 8, 4, &pgt);
	tap_ok(err && !pgt, "unaligned top-level table refused");
	mmc_error_destroy(err);
}

int main(void)
{
	struct fake_mem fm = { NULL, 0 };
	struct mmc_mem mem = { .ops = &fake_ops, .priv = &fm, .path = (char *)"fake", .page_size = 4096 };
	char dir[] = "/tmp/mmc-test-pgtable-XXXXXX";
	char path[4200];
	struct mmc_mem *kmem = NULL;
	struct mmc_error *err;

	fm.ram = malloc(PHYS_SIZE);
	if (!fm.ram)
		tap_skip_all("out of memory");
	build_tables(fm.ram);
	test_walk(&mem, "fake");
	test_cache(&mem, &fm);
	test_bad_args(&mem);

	/* The same tables as the RAM segment of a kcore-format ELF. */
	if (mkdtemp(dir)) {
		struct mkcore_seg seg = { 0xffff888000000000ULL, 0, fm.ram,
					  PHYS_SIZE, 0 };

		snprintf(path, sizeof(path), "%s/pgt.core", dir);
		if (tap_ok(mkcore_write(path, &seg, 1, NULL) == 0,
			   "write page-table core")) {
			err = mmc_mem_open_kcore(path, &kmem);
			tap_ok(!err, "open page-table core with the kcore reader");
			mmc_error_destroy(err);
			if (kmem)
				test_walk(kmem, "kcore");
			mmc_mem_destroy(kmem);
		}
		unlink(path);
		rmdir(dir);
	}
	free(fm.ram);
	return tap_done();
}
