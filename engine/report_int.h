/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the report: what its renderers share, for engine/report*.c only;
 * front ends use report.h (and report_kcidb.h, report_svg.h).
 *
 *   report.c         the entry points, each picking its format's renderer
 *   report_text.c    text in crash's style
 *   report_json.c    JSON
 *   report_ci.c      KTAP and JUnit
 *   report_words.c   the sentences and names every format repeats
 *   report_claims.c  the claims part of a diff, in every format
 *   report_pools.c   the HugeTLB pools and memory blocks, as text
 */
#ifndef MMC_REPORT_INT_H
#define MMC_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* report_text.c */
void mmc_report_ranges_text(FILE *out, const struct mmc_snapshot *snap);
/* Every range, or only range `only` if >= 0. */
void mmc_report_show_text(FILE *out, const struct mmc_snapshot *snap, long only);
/* The page of pfn, whose record rec range `range` of snap holds. */
void mmc_report_show_pfn_text(FILE *out, const struct mmc_snapshot *snap, size_t range,
			      uint64_t pfn, const struct mmc_nrec *rec);
void mmc_report_diff_text(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			  const struct mmc_diff_result *res);
void mmc_report_lint_text(FILE *out, const struct mmc_snapshot *snap,
			  const struct mmc_lint_result *res);

/* report_json.c */
void mmc_report_ranges_json(FILE *out, const struct mmc_snapshot *snap);
void mmc_report_show_json(FILE *out, const struct mmc_snapshot *snap, long only);
void mmc_report_show_pfn_json(FILE *out, const struct mmc_snapshot *snap, size_t range,
			      uint64_t pfn, const struct mmc_nrec *rec);
void mmc_report_diff_json(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			  const struct mmc_diff_result *res);
void mmc_report_lint_json(FILE *out, const struct mmc_snapshot *snap,
			  const struct mmc_lint_result *res);
/* A JSON string, quoted and escaped. */
void mmc_json_string(FILE *out, const char *s);

/* report_ci.c: KTAP when fmt is MMC_FMT_KTAP, else JUnit */
void mmc_report_ranges_ci(FILE *out, const struct mmc_snapshot *snap, enum mmc_format fmt);
void mmc_report_lint_ci(FILE *out, const struct mmc_snapshot *snap,
			const struct mmc_lint_result *res, enum mmc_format fmt);
void mmc_report_diff_ktap(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			  const struct mmc_diff_result *res);
void mmc_report_diff_junit(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			   const struct mmc_diff_result *res);
/* XML text escaping (JUnit). */
void mmc_report_xml_string(FILE *out, const char *s);

/* report_words.c */
/* The diff's first line, e.g. "identical: 262144 pages in 7 ranges, nothing
 * unread" (no newline); the lint's, "clean: N pages in M ranges". */
void mmc_report_diff_sentence(const struct mmc_diff_result *res, char *buf, size_t size);
void mmc_report_lint_sentence(const struct mmc_snapshot *snap,
			      const struct mmc_lint_result *res, char *buf, size_t size);
/* "devdax", "fsdax", "private", "coherent", "p2pdma" from "MEMORY_DEVICE_*". */
const char *mmc_report_type_short(const char *type_name);
/* Type name of the pgmap owning range `range` of snap ("" if none). */
const char *mmc_report_range_type(const struct mmc_snapshot *snap, int64_t range);
/* Where the geometry's memory-layout bases and paging depth came from. */
const char *mmc_report_base_origin(const struct mmc_geom *g);
const char *mmc_report_levels_origin(const struct mmc_geom *g);
/* "read", "partial", "not read" */
const char *mmc_report_dax_state(enum mmc_dax_state state);

/* report_pools.c: the HugeTLB pools and memory blocks, as text */
void mmc_report_text_pools(FILE *out, const struct mmc_snapshot *snap);

/*
 * report_claims.c: the claims part of a diff report, when the diff had
 * claims (res->claims): per claim its pages, vmemmap pages, ranges and
 * fields with its reason; per range the claims that covered it; the
 * claims not seen.
 */
/* "; claimed but not seen: a, b" (nothing when every claim was seen). */
size_t mmc_report_claims_unseen(const struct mmc_diff_result *res, char *buf, size_t size,
				size_t len);
void mmc_report_claims_text(FILE *out, const struct mmc_diff_result *res);
/* ,"claims":{...} */
void mmc_report_claims_json(FILE *out, const struct mmc_diff_result *res);
/* One KTAP test per claim, numbered from first. */
void mmc_report_claims_ktap(FILE *out, const struct mmc_diff_result *res, size_t first);
/* One JUnit testcase per claim; failures and skipped they add. */
void mmc_report_claims_junit_counts(const struct mmc_diff_result *res, size_t *failures,
				    size_t *skipped);
void mmc_report_claims_junit(FILE *out, const struct mmc_diff_result *res);
/* "pfn 0x...: 15810 pages as claimed (stale-head)" diagnostics of range i. */
void mmc_report_claims_range_note(FILE *out, const struct mmc_diff_result *res, size_t i,
				  const char *prefix);

#endif
