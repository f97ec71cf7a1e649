// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report's entry points (report.h): each hands its subject to the
 * renderer of the format asked for.  Text in crash's style is
 * report_text.c, JSON report_json.c, KTAP and JUnit report_ci.c, KCIDB
 * (a diff only) report_kcidb.c.
 */
#include <stdio.h>

#include "report_int.h"
#include "report_kcidb.h"

void mmc_report_ranges(FILE *out, const struct mmc_snapshot *snap, enum mmc_format fmt)
{
	if (fmt == MMC_FMT_TEXT)
		mmc_report_ranges_text(out, snap);
	else if (fmt == MMC_FMT_JSON)
		mmc_report_ranges_json(out, snap);
	else
		mmc_report_ranges_ci(out, snap, fmt);
}

/* show has text and JSON; any other format gets the text. */
void mmc_report_show(FILE *out, const struct mmc_snapshot *snap, long range,
		     enum mmc_format fmt)
{
	if (fmt == MMC_FMT_JSON)
		mmc_report_show_json(out, snap, range);
	else
		mmc_report_show_text(out, snap, range);
}

bool mmc_report_show_pfn(FILE *out, const struct mmc_snapshot *snap, uint64_t pfn,
			 enum mmc_format fmt)
{
	size_t nr = mmc_snapshot_nranges(snap), r;
	struct mmc_nrec rec;

	for (r = 0; r < nr; r++)
		if (mmc_snapshot_get(snap, r, pfn, &rec))
			break;
	if (r == nr)
		return false;
	if (fmt == MMC_FMT_JSON)
		mmc_report_show_pfn_json(out, snap, r, pfn, &rec);
	else
		mmc_report_show_pfn_text(out, snap, r, pfn, &rec);
	return true;
}

void mmc_report_diff(FILE *out, const struct mmc_snapshot *a,
		     const struct mmc_snapshot *b,
		     const struct mmc_diff_result *res, enum mmc_format fmt)
{
	switch (fmt) {
	case MMC_FMT_TEXT: mmc_report_diff_text(out, a, b, res); break;
	case MMC_FMT_JSON: mmc_report_diff_json(out, a, b, res); break;
	case MMC_FMT_KTAP: mmc_report_diff_ktap(out, a, b, res); break;
	case MMC_FMT_JUNIT: mmc_report_diff_junit(out, a, b, res); break;
	case MMC_FMT_KCIDB: mmc_report_diff_kcidb(out, a, b, res, NULL); break;
	default: break;
	}
}

void mmc_report_lint(FILE *out, const struct mmc_snapshot *snap,
		     const struct mmc_lint_result *res, enum mmc_format fmt)
{
	if (fmt == MMC_FMT_TEXT)
		mmc_report_lint_text(out, snap, res);
	else if (fmt == MMC_FMT_JSON)
		mmc_report_lint_json(out, snap, res);
	else
		mmc_report_lint_ci(out, snap, res, fmt);
}
