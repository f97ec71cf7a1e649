// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rules.c: enum memory_type by name, the per-type predicates, the unmapped
 * mapcount and the compound_head kind of a page along a run.
 *
 * [oracle] checks take their expectation from the kernel: the refcount
 * table is read from __init_zone_device_page() in the kernel sources of
 * the cache ($MEMMAPCHECK_CACHE/src/linux-<kver>/mm/mm_init.c; skipped
 * loudly when absent), the names from include/linux/memremap.h, the
 * compound_head encodings from include/linux/page-flags.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "tap.h"

static const char *const kernel_names[] = {
	"MEMORY_DEVICE_PRIVATE", "MEMORY_DEVICE_COHERENT", "MEMORY_DEVICE_FS_DAX",
	"MEMORY_DEVICE_GENERIC", "MEMORY_DEVICE_PCI_P2PDMA",
};
#define NKERNEL (sizeof(kernel_names) / sizeof(kernel_names[0]))

static void test_parse(void)
{
	/* [oracle] include/linux/memremap.h enum memory_type; the short
	 * names are the diff's TYPE column's (doc/DESIGN.md) */
	static const struct { const char *name; enum mmc_memory_type t; } cases[] = {
		{ "MEMORY_DEVICE_GENERIC", MMC_MEMORY_GENERIC }, { "devdax", MMC_MEMORY_GENERIC },
		{ "MEMORY_DEVICE_FS_DAX", MMC_MEMORY_FS_DAX }, { "fsdax", MMC_MEMORY_FS_DAX },
		{ "MEMORY_DEVICE_PRIVATE", MMC_MEMORY_PRIVATE }, { "private", MMC_MEMORY_PRIVATE },
		{ "MEMORY_DEVICE_COHERENT", MMC_MEMORY_COHERENT }, { "coherent", MMC_MEMORY_COHERENT },
		{ "MEMORY_DEVICE_PCI_P2PDMA", MMC_MEMORY_PCI_P2PDMA }, { "p2pdma", MMC_MEMORY_PCI_P2PDMA },
		{ "MEMORY_DEVICE_FS", MMC_MEMORY_UNKNOWN }, { "", MMC_MEMORY_UNKNOWN },
		{ "DEVDAX", MMC_MEMORY_UNKNOWN },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(mmc_memory_type_parse(cases[i].name) == cases[i].t,
		       "[oracle] parse \"%s\" -> %d", cases[i].name, cases[i].t);
	tap_ok(mmc_memory_type_parse(NULL) == MMC_MEMORY_UNKNOWN, "[oracle] parse NULL: unknown");
	for (size_t i = 0; i < mmc_memory_type_count(); i++)
		tap_ok(mmc_memory_type_index(mmc_memory_type_short(i)) == (int)i &&
		       mmc_memory_type_index(mmc_memory_type_kernel(i)) == (int)i,
		       "[guard] short and kernel name of type %zu index it", i);
}

static void test_predicates(void)
{
	/* [oracle] rules.h's sources: dax_set_mapping() users, device-dax's
	 * dev_dax->ranges, __init_zone_device_page()'s zone_device_data */
	for (int t = MMC_MEMORY_UNKNOWN; t < MMC_MEMORY_TYPE_COUNT; t++) {
		enum mmc_memory_type m = (enum mmc_memory_type)t;

		tap_ok(mmc_rule_dax_type(m) == (m == MMC_MEMORY_GENERIC || m == MMC_MEMORY_FS_DAX),
		       "[oracle] dax type %d", t);
		tap_ok(mmc_rule_devdax_type(m) == (m == MMC_MEMORY_GENERIC),
		       "[oracle] devdax type %d", t);
		tap_ok(mmc_rule_zdd_driver_owned(m) ==
		       (m == MMC_MEMORY_PRIVATE || m == MMC_MEMORY_COHERENT),
		       "[oracle] zone_device_data driver-owned %d", t);
	}
	/* [oracle] __init_single_page(): atomic_set(&page->_mapcount, -1) */
	tap_ok(MMC_MAPCOUNT_UNMAPPED == -1, "[oracle] unmapped _mapcount is -1");
}

/* The memory types __init_zone_device_page() sets to refcount 0 in the
 * kernel source at path: the names between its first "pgmap->type" and
 * "set_page_count(page, 0)".  false if the file or function is missing. */
static bool zero_types_from_source(const char *path, bool zero[NKERNEL])
{
	FILE *f = fopen(path, "r");
	char *buf, *fn, *from, *to;
	long n;

	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n > 0 ? malloc((size_t)n + 1) : NULL;
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return false;
	}
	fclose(f);
	buf[n] = 0;
	fn = strstr(buf, "__init_zone_device_page(struct page");
	from = fn ? strstr(fn, "pgmap->type") : NULL;
	to = from ? strstr(from, "set_page_count(page, 0)") : NULL;
	if (!to) {
		free(buf);
		return false;
	}
	*to = 0;
	for (size_t i = 0; i < NKERNEL; i++)
		zero[i] = strstr(from, kernel_names[i]) != NULL;
	free(buf);
	return true;
}

static void test_refcount_source(const char *kver, int major, int minor)
{
	const char *cache = getenv("MEMMAPCHECK_CACHE"), *home = getenv("HOME");
	struct mmc_kver v = { .known = true, .major = major, .minor = minor };
	bool zero[NKERNEL];
	char path[4096];

	if (cache && *cache)
		snprintf(path, sizeof(path), "%s/src/linux-%s/mm/mm_init.c", cache, kver);
	else
		snprintf(path, sizeof(path), "%s/.cache/memmapcheck/src/linux-%s/mm/mm_init.c",
			 home ? home : "", kver);
	if (!zero_types_from_source(path, zero)) {
		for (size_t i = 0; i < NKERNEL; i++)
			tap_ok(1, "# SKIP no __init_zone_device_page() in %s", path);
		return;
	}
	for (size_t i = 0; i < NKERNEL; i++) {
		int want = zero[i] ? 0 : 1;
		int got = mmc_rule_head_refcount(v, mmc_memory_type_parse(kernel_names[i]));

		tap_ok(got == want, "[oracle] %s %s: head refcount %d (mm_init.c: %d)", kver,
		       kernel_names[i], got, want);
	}
}

/* [oracle] include/linux/page-flags.h: a tail's compound_head is head + 1
 * (normalised: PAGE delta head - pfn, offset 1); bit 0 clear is no tail. */
static void test_tail_index(void)
{
	struct mmc_geom g = { .page_size = 4096, .struct_page_size = 64,
			      .vmemmap_base = 0xffffea0000000000ULL };
	struct mmc_nval ch = { .cls = MMC_V_PAGE, .off = 1 }, stride = { 0 }, flat = { 0 };
	const uint64_t pfn = 0x100205;

	ch.v = -1;
	tap_ok(mmc_compound_info_tail_index(&g, pfn, &ch) == MMC_TAIL_FIRST, "[oracle] head-1: page[1]");
	ch.v = -2;
	tap_ok(mmc_compound_info_tail_index(&g, pfn, &ch) == MMC_TAIL_SECOND, "[oracle] head-2: page[2]");
	ch.v = -5;
	tap_ok(mmc_compound_info_tail_index(&g, pfn, &ch) == MMC_TAIL_OTHER, "[oracle] head-5: tail");
	ch.v = 3;
	tap_ok(mmc_compound_info_tail_index(&g, pfn, &ch) == MMC_TAIL_OTHER,
	       "[oracle] a head above the page: a tail it cannot place");
	ch.off = 0;
	tap_ok(mmc_compound_info_tail_index(&g, pfn, &ch) == MMC_TAIL_NONE, "[oracle] bit 0 clear: no tail");
	tap_ok(mmc_compound_info_tail_index(&g, pfn, &flat) == MMC_TAIL_NONE, "[oracle] NULL: no tail");

	/* along a run the delta falls by one a page: the kind stays from
	 * page[3] on, page[1] and page[2] are runs of one */
	ch.off = 1;
	stride.v = -1;
	ch.v = -3;
	tap_ok(mmc_compound_info_tail_span(&g, pfn, &ch, &stride, 100) == 100,
	       "[oracle] from page[3]: the whole run keeps its kind");
	ch.v = -1;
	tap_ok(mmc_compound_info_tail_span(&g, pfn, &ch, &stride, 100) == 1,
	       "[oracle] page[1] then page[2]: kind changes after one page");
	stride.v = 0;
	tap_ok(mmc_compound_info_tail_span(&g, pfn, &ch, &stride, 100) == 100,
	       "[oracle] a constant delta keeps the kind");

	/* the 7.x mask form: one constant names the aligned head below */
	{
		unsigned int order = 9;
		uint64_t mask = mmc_compound_info_mask(g.struct_page_size, order);
		struct mmc_nval raw = { .cls = MMC_V_RAW, .v = (int64_t)mask, .raw = mask };
		struct mmc_nval none = { 0 };
		uint64_t head = 0x100200;

		tap_ok(mmc_compound_info_tail_index(&g, head + 1, &raw) == MMC_TAIL_FIRST,
		       "[oracle] mask form: head + 1 is page[1]");
		tap_ok(mmc_compound_info_tail_index(&g, head + 7, &raw) == MMC_TAIL_OTHER,
		       "[oracle] mask form: head + 7 is a tail");
		tap_ok(mmc_compound_info_tail_span(&g, head + 7, &raw, &none, 1000) == 512 - 7,
		       "[oracle] mask form: kind fixed to the end of the compound page");
		tap_ok(mmc_compound_info_tail_span(&g, head + 2, &raw, &none, 1000) == 1,
		       "[oracle] mask form: page[2] is a run of one");
	}
}

int main(void)
{
	test_parse();
	test_predicates();
	test_refcount_source("6.12", 6, 12);
	test_refcount_source("7.2", 7, 2);
	test_tail_index();
	return tap_done();
}
