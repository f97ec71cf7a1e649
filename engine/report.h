/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rendering of ranges, snapshots, diffs and lint results to a FILE*, as
 * human tables in crash's style, JSON, or KTAP / JUnit for CI.  Used by both
 * front ends; nothing here decides a verdict.
 */
#ifndef MMC_REPORT_H
#define MMC_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "diff.h"
#include "lint.h"
#include "page_decode.h"
#include "snapshot.h"

/* KCIDB: diff only (report_kcidb.h); the other renderers write nothing for it. */
enum mmc_format { MMC_FMT_TEXT, MMC_FMT_JSON, MMC_FMT_KTAP, MMC_FMT_JUNIT, MMC_FMT_KCIDB };

/* Table of pgmaps and ranges (type, flags, vmemmap_shift, altmap, pfns by role). */
void mmc_report_ranges(FILE *out, const struct mmc_snapshot *snap, enum mmc_format fmt);
/* Every run of every range (or only range `range` if >= 0), decoded:
 * pfn span, role/state, flags by name, zone/node, head pfn, order, pgmap,
 * refcount, mapcount, mapping, index, private, folio fields. */
void mmc_report_show(FILE *out, const struct mmc_snapshot *snap, long range,
		     enum mmc_format fmt);
/* The struct page of one pfn, decoded as show does; false (nothing
 * printed) when no range of snap holds it. */
bool mmc_report_show_pfn(FILE *out, const struct mmc_snapshot *snap, uint64_t pfn,
			 enum mmc_format fmt);
/* "identical, N pages in M ranges, nothing unread" or the differences:
 * per range and per field counts, groups by pfn range, then the first
 * pages with raw and decoded values from both sides. */
void mmc_report_diff(FILE *out, const struct mmc_snapshot *a,
		     const struct mmc_snapshot *b,
		     const struct mmc_diff_result *res, enum mmc_format fmt);
void mmc_report_lint(FILE *out, const struct mmc_snapshot *snap,
		     const struct mmc_lint_result *res, enum mmc_format fmt);

#endif
