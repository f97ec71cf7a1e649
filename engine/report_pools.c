// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text report of a snapshot's structures beyond the pgmaps (`ranges`):
 * the HugeTLB pools with their folios, the memory blocks.
 */
#include <inttypes.h>
#include <stdio.h>

#include "report_int.h"

static void text_hugetlb(FILE *out, const struct mmc_snapshot *snap)
{
	static const char *const list[MMC_FOLIO_LISTS] = { "free", "active" };
	static const char *const vm[MMC_FVM_KINDS] = { "?", "optimised", "plain" };
	const struct mmc_shstate *hs;
	const struct mmc_sfolios *f;
	const char *why;
	size_t nh, nf;
	enum mmc_read_state st = mmc_snapshot_hugetlb(snap, &hs, &nh, &f, &nf, &why);

	fprintf(out, "\nHUGETLB POOLS (hstates[]): %s%s%s\n",
		st == MMC_READ_DONE ? "read" : st == MMC_READ_PARTIAL ? "partly read" : "not read",
		*why ? ": " : "", why);
	if (nh)
		fprintf(out, "  %3s  %-16s  %-18s  %5s  %8s  %8s  %8s  %8s  %s\n", "#", "HSTATE",
			"NAME", "ORDER", "NR", "FREE", "RESV", "SURPLUS", "HVO");
	for (size_t i = 0; i < nh; i++)
		fprintf(out, "  %3zu  %016" PRIx64 "  %-18s  %5u  %8" PRIu64 "  %8" PRIu64 "  %8" PRIu64
			"  %8" PRIu64 "  %s\n", i, hs[i].kaddr, hs[i].name, hs[i].order, hs[i].nr,
			hs[i].free, hs[i].resv, hs[i].surplus,
			hs[i].flags & MMC_HSTATE_HVO ? "yes" : "no");
	if (nf)
		fprintf(out, "  folios: %3s  %-10s  %8s  %6s  %4s  %-6s  %s\n", "#", "START_PFN",
			"FOLIOS", "HSTATE", "NODE", "LIST", "VMEMMAP");
	for (size_t i = 0; i < nf; i++)
		fprintf(out, "          %3zu  %#-10" PRIx64 "  %8" PRIu64 "  %6u  %4u  %-6s  %s\n",
			i, f[i].start_pfn, f[i].nfolios, f[i].hstate, f[i].node,
			f[i].list < MMC_FOLIO_LISTS ? list[f[i].list] : "?",
			f[i].vmemmap < MMC_FVM_KINDS ? vm[f[i].vmemmap] : "?");
}

static void text_hotplug(FILE *out, const struct mmc_snapshot *snap)
{
	const struct mmc_smemblock *b;
	const char *why;
	size_t n;
	enum mmc_read_state st = mmc_snapshot_hotplug(snap, &b, &n, &why);

	fprintf(out, "\nMEMORY BLOCKS (memory_blocks): %s%s%s\n",
		st == MMC_READ_DONE ? "read" : st == MMC_READ_PARTIAL ? "partly read" : "not read",
		*why ? ": " : "", why);
	if (n)
		fprintf(out, "  %5s  %-10s  %-10s  %5s  %10s  %s\n", "ID", "START_PFN", "END_PFN",
			"STATE", "NID", "SELF-HOSTED MEMMAP");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "  %5" PRIu64 "  %#-10" PRIx64 "  %#-10" PRIx64 "  %5u  %10u  ", b[i].id,
			b[i].start_pfn, b[i].end_pfn, b[i].state, b[i].nid);
		if (b[i].flags & MMC_MEMBLOCK_SELF_HOSTED)
			fprintf(out, "%" PRIu64 " pfns from 0x%" PRIx64 "\n", b[i].altmap_pfns,
				b[i].start_pfn);
		else
			fprintf(out, "-\n");
	}
}

void mmc_report_text_pools(FILE *out, const struct mmc_snapshot *snap)
{
	text_hugetlb(out, snap);
	text_hotplug(out, snap);
}
