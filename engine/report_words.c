// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The words every format shares: the verdict sentences of diff and lint
 * (the text's first line, JSON's "summary", KTAP's first diagnostic, the
 * difference map's title), a range's memory type, where the geometry's
 * bases and paging depth came from, the device-dax ranges' state.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "report_int.h"

const char *mmc_report_type_short(const char *type_name)
{
	int i;

	if (!type_name || !type_name[0])
		return "unknown";
	i = mmc_memory_type_index(type_name);
	return i < 0 ? type_name : mmc_memory_type_short((size_t)i);
}

const char *mmc_report_range_type(const struct mmc_snapshot *snap, int64_t range)
{
	const struct mmc_srange *sr;
	const struct mmc_spgmap *pg;

	if (!snap || range < 0 || (size_t)range >= mmc_snapshot_nranges(snap))
		return "";
	sr = mmc_snapshot_range(snap, (size_t)range);
	if (sr->kind == MMC_RANGE_HUGETLB)
		return "hugetlb";
	if (sr->kind == MMC_RANGE_HOTPLUG)
		return "hotplug";
	if (sr->pgmap_index >= mmc_snapshot_npgmaps(snap))
		return "";
	pg = mmc_snapshot_pgmap(snap, sr->pgmap_index);
	if (pg->type_name[0])
		return pg->type_name;
	return "";
}

/* ---- sentences ---- */

static uint64_t diff_total_pages(const struct mmc_diff_result *res)
{
	uint64_t total = 0;

	for (size_t i = 0; i < res->nranges; i++)
		total += res->ranges[i].end_pfn - res->ranges[i].start_pfn;
	return total;
}

static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= size)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return len;
	len += (size_t)n;
	return len < size ? len : size - 1;
}

/* "2 ranges (0x100000-0x110000, 0x200000-0x210000)" of unreadable ranges. */
static size_t append_unread_ranges(const struct mmc_diff_result *res, char *buf,
				   size_t size, size_t len)
{
	size_t nun = 0, shown = 0;

	for (size_t i = 0; i < res->nranges; i++)
		if (res->ranges[i].unreadable_a || res->ranges[i].unreadable_b)
			nun++;
	len = append(buf, size, len, "%zu range%s (", nun, nun == 1 ? "" : "s");
	for (size_t i = 0; i < res->nranges; i++) {
		const struct mmc_diff_range *r = &res->ranges[i];

		if (!r->unreadable_a && !r->unreadable_b)
			continue;
		if (shown == 4) {
			len = append(buf, size, len, ", ...");
			break;
		}
		len = append(buf, size, len, "%s0x%" PRIx64 "-0x%" PRIx64 "%s%s",
			     shown ? ", " : "", r->start_pfn, r->end_pfn,
			     r->unreadable_a ? " base" : "",
			     r->unreadable_b ? " patched" : "");
		shown++;
	}
	return append(buf, size, len, ")");
}

/* "; discovery of the base image stopped early: ..." */
static size_t append_discovery(const struct mmc_diff_result *res, char *buf, size_t size,
			       size_t len)
{
	static const char *const side[2] = { "base", "patched" };

	for (int k = 0; k < 2; k++)
		if (res->discovery_incomplete[k])
			len = append(buf, size, len, "; discovery of the %s image stopped early: %s",
				     side[k], res->discovery_problem[k]);
	return len;
}

/* ", N pgmap difference(s)" */
static size_t append_pgmap_diffs(size_t n, char *buf, size_t size, size_t len)
{
	if (n)
		len = append(buf, size, len, ", %zu pgmap difference%s", n, n == 1 ? "" : "s");
	return len;
}

/* "; N pages unreadable in ...; discovery ... stopped early: ..." */
static size_t append_unread_and_discovery(const struct mmc_diff_result *res, char *buf,
					  size_t size, size_t len)
{
	if (res->pages_unreadable) {
		len = append(buf, size, len, "; %" PRIu64 " pages unreadable in ",
			     res->pages_unreadable);
		len = append_unread_ranges(res, buf, size, len);
	}
	return append_discovery(res, buf, size, len);
}

/* "as claimed: ..." */
static size_t claimed_sentence(const struct mmc_diff_result *res, uint64_t total, char *buf,
			       size_t size)
{
	const struct mmc_diff_claims *cl = res->claims;
	uint64_t vf = 0;
	size_t len = 0, nr = 0;

	for (size_t i = 0; i < res->nranges; i++) {
		vf += res->ranges[i].vframes_claimed;
		nr += res->ranges[i].verdict == MMC_AS_CLAIMED;
	}
	if (!res->pages_claimed && !vf && !(cl && cl->npgmap_diffs))
		len = append(buf, size, len, "as claimed: no difference, %" PRIu64 " pages in %zu range%s, nothing unread",
			     total, res->nranges, res->nranges == 1 ? "" : "s");
	else
		len = append(buf, size, len, "as claimed: %" PRIu64 " of %" PRIu64 " pages in %zu of %zu range%s differ, every difference claimed",
			     res->pages_claimed, total, nr, res->nranges,
			     res->nranges == 1 ? "" : "s");
	if (vf)
		len = append(buf, size, len, ", %" PRIu64 " vmemmap pages", vf);
	len = append_pgmap_diffs(cl ? cl->npgmap_diffs : 0, buf, size, len);
	if (res->pages_not_init)
		len = append(buf, size, len, " (%" PRIu64 " never-initialised altmap reserve pages not compared)",
			     res->pages_not_init);
	return len;
}

void mmc_report_diff_sentence(const struct mmc_diff_result *res, char *buf, size_t size)
{
	uint64_t total = diff_total_pages(res), vf;
	size_t len = 0, ndiff = 0;

	if (!size)
		return;
	buf[0] = 0;
	for (size_t i = 0; i < res->nranges; i++)
		if (mmc_verdict_differs(res->ranges[i].verdict))
			ndiff++;
	switch (res->verdict) {
	case MMC_AS_CLAIMED:
		len = claimed_sentence(res, total, buf, size);
		break;
	case MMC_BEYOND_CLAIMS:
		len = append(buf, size, len, "beyond the claims: %" PRIu64 " of %" PRIu64 " pages in %zu of %zu range%s differ beyond the claims",
			     res->pages_differing, total, ndiff, res->nranges,
			     res->nranges == 1 ? "" : "s");
		vf = 0;
		for (size_t i = 0; i < res->nranges; i++)
			vf += res->ranges[i].vframes_differing;
		if (vf)
			len = append(buf, size, len, ", %" PRIu64 " vmemmap pages", vf);
		len = append_pgmap_diffs(res->npgmap_diffs, buf, size, len);
		len = append(buf, size, len, " (%" PRIu64 " more as claimed)", res->pages_claimed);
		len = append_unread_and_discovery(res, buf, size, len);
		break;
	case MMC_IDENTICAL:
		len = append(buf, size, len, "identical: %" PRIu64 " pages in %zu range%s, nothing unread",
			     total, res->nranges, res->nranges == 1 ? "" : "s");
		if (res->pages_not_init)
			len = append(buf, size, len, " (%" PRIu64 " never-initialised altmap reserve pages not compared)",
				     res->pages_not_init);
		break;
	case MMC_DIFFERENT:
		len = append(buf, size, len, "different: %" PRIu64 " of %" PRIu64 " pages in %zu of %zu range%s differ",
			     res->pages_differing, total, ndiff, res->nranges,
			     res->nranges == 1 ? "" : "s");
		len = append_pgmap_diffs(res->npgmap_diffs, buf, size, len);
		len = append_unread_and_discovery(res, buf, size, len);
		break;
	case MMC_INCOMPLETE:
	default:
		if (res->no_ranges && (res->discovery_incomplete[0] || res->discovery_incomplete[1])) {
			len = append(buf, size, len,
				     "incomplete: no ZONE_DEVICE range found, nothing compared");
		} else if (res->no_ranges) {
			len = append(buf, size, len,
				     "no ZONE_DEVICE ranges in either image: nothing compared (incomplete)");
		} else if (!res->pages_unreadable && !res->pages_compared) {
			len = append(buf, size, len, "incomplete: no page compared in %zu range%s",
				     res->nranges, res->nranges == 1 ? "" : "s");
		} else if (!res->pages_unreadable) {
			len = append(buf, size, len,
				     "incomplete: no difference in the %" PRIu64 " pages compared",
				     res->pages_compared);
		} else {
			len = append(buf, size, len, "incomplete: %" PRIu64 " pages unreadable in ",
				     res->pages_unreadable);
			len = append_unread_ranges(res, buf, size, len);
			len = append(buf, size, len, ", no difference in the %" PRIu64 " pages read",
				     res->pages_compared);
		}
		len = append_discovery(res, buf, size, len);
		if (res->claims)
			len = append(buf, size, len, "; %" PRIu64 " pages as claimed in the pages read",
				     res->pages_claimed);
		break;
	}
	if (res->nplaced)
		len = append(buf, size, len, "; %zu HugeTLB folio%s at a pfn in one image only: placement, the pools alike",
			     res->nplaced, res->nplaced == 1 ? "" : "s");
	mmc_report_claims_unseen(res, buf, size, len);
}

void mmc_report_lint_sentence(const struct mmc_snapshot *snap,
			      const struct mmc_lint_result *res, char *buf, size_t size)
{
	size_t nranges = snap ? mmc_snapshot_nranges(snap) : 0, len = 0;

	if (!size)
		return;
	buf[0] = 0;
	switch (res->verdict) {
	case MMC_LINT_CLEAN:
		len = append(buf, size, len, "clean: %" PRIu64 " pages in %zu range%s",
			     res->pages_checked, nranges, nranges == 1 ? "" : "s");
		break;
	case MMC_LINT_VIOLATIONS:
		len = append(buf, size, len,
			     "%" PRIu64 " violation%s in %zu rule%s (%" PRIu64 " pages in %zu range%s checked%s)",
			     res->violations_total, res->violations_total == 1 ? "" : "s",
			     res->nrules, res->nrules == 1 ? "" : "s",
			     res->pages_checked, nranges, nranges == 1 ? "" : "s",
			     res->incomplete ? ", incomplete" : "");
		break;
	case MMC_LINT_INCOMPLETE:
	default:
		if ((res->gaps & MMC_LINT_GAP_NO_RANGES) && (res->gaps & MMC_LINT_GAP_DISCOVERY))
			len = append(buf, size, len,
				     "incomplete: no ZONE_DEVICE range found, nothing checked");
		else if (res->gaps & MMC_LINT_GAP_NO_RANGES)
			len = append(buf, size, len, "no ZONE_DEVICE ranges: nothing checked (incomplete)");
		else if (res->gaps & MMC_LINT_GAP_NO_PAGES)
			len = append(buf, size, len, "incomplete: no page read in %zu range%s",
				     nranges, nranges == 1 ? "" : "s");
		else if (res->gaps & MMC_LINT_GAP_UNREAD)
			len = append(buf, size, len,
				     "incomplete: %" PRIu64 " pages unreadable, no violation in the %" PRIu64 " pages read (%zu range%s)",
				     res->pages_checked - res->pages_read, res->pages_read, nranges,
				     nranges == 1 ? "" : "s");
		else
			len = append(buf, size, len, "incomplete: no violation in %" PRIu64 " pages in %zu range%s",
				     res->pages_read, nranges, nranges == 1 ? "" : "s");
		break;
	}
	if (res->gaps & MMC_LINT_GAP_DISCOVERY)
		len = append(buf, size, len, "; discovery stopped early: %s", res->discovery_problem);
	if (res->dax_unchecked)
		len = append(buf, size, len, "; dax-range not checked in %zu device-dax range%s: %s",
			     res->dax_unchecked, res->dax_unchecked == 1 ? "" : "s", res->dax_why);
	if (res->vprot_unchecked)
		len = append(buf, size, len, "; vmemmap-ro and read-only sharing not checked on %" PRIu64
			     " vmemmap page%s: the snapshot does not record their protection (a file before version 5)",
			     res->vprot_unchecked, res->vprot_unchecked == 1 ? "" : "s");
	if (res->hvo_alias)
		len = append(buf, size, len, "; %" PRIu64 " struct page%s of optimised HugeTLB folios read their folio's first vmemmap page through HVO, checked there",
			     res->hvo_alias, res->hvo_alias == 1 ? "" : "s");
	if (res->unchecked[0])
		append(buf, size, len, "; not checked: %s", res->unchecked);
}

/* ---- geometry and device-dax ---- */

const char *mmc_report_base_origin(const struct mmc_geom *g)
{
	switch (g->base_origin) {
	case MMC_BASES_VARIABLES:
		return "the kernel's vmemmap_base/page_offset_base/vmalloc_base variables";
	case MMC_BASES_FIXED:
		return "the architecture's fixed bases for the paging depth (pgtable_64_types.h)";
	default:
		return "not recorded";
	}
}

const char *mmc_report_levels_origin(const struct mmc_geom *g)
{
	switch (g->levels_origin) {
	case MMC_LEVELS_VMCOREINFO:
		return "VMCOREINFO NUMBER(pgtable_l5_enabled)";
	case MMC_LEVELS_PAGE_TABLES:
		return "probed: the depth under which _text translates";
	default:
		return "not recorded";
	}
}

const char *mmc_report_dax_state(enum mmc_dax_state state)
{
	switch (state) {
	case MMC_DAX_READ:
		return "read";
	case MMC_DAX_PARTIAL:
		return "partial";
	default:
		return "not read";
	}
}
