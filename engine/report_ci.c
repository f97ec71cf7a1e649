// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CI renderers: KTAP (one test per range, "# field: n pages" diagnostics,
 * an incomplete range a SKIP) and JUnit XML (one testcase per range,
 * <failure>/<skipped> elements), for ranges, diff and lint.  A CI system
 * reads a range that differs or breaks a rule as a failed test and one
 * that could not be read as skipped, never as passed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

void mmc_report_xml_string(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* XML 1.0 forbids most control characters */
			if (ch < 0x20 && ch != '\n' && ch != '\t')
				fputc('?', out);
			else
				fputc(ch, out);
		}
	}
}

/* An empty plan is a skip, with its reason: nothing was there to test. */
static void ktap_header(FILE *out, size_t n)
{
	if (n)
		fprintf(out, "KTAP version 1\n1..%zu\n", n);
	else
		fprintf(out, "KTAP version 1\n1..0 # SKIP no ZONE_DEVICE ranges\n");
}

static void junit_open(FILE *out, const char *suite, size_t tests, size_t failures,
		       size_t skipped)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<testsuites name=\"memmapcheck\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		tests, failures, skipped);
	fprintf(out, "  <testsuite name=\"memmapcheck.%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		suite, tests, failures, skipped);
}

static void junit_close(FILE *out)
{
	fputs("  </testsuite>\n</testsuites>\n", out);
}

static void range_name(char *buf, size_t size, uint64_t start, uint64_t end, const char *type)
{
	snprintf(buf, size, "range 0x%" PRIx64 "-0x%" PRIx64 " %s", start, end,
		 mmc_report_type_short(type));
}

void mmc_report_ranges_ci(FILE *out, const struct mmc_snapshot *snap, enum mmc_format fmt)
{
	size_t nr = mmc_snapshot_nranges(snap);
	char name[96];

	if (fmt == MMC_FMT_KTAP)
		ktap_header(out, nr);
	else
		junit_open(out, "ranges", nr, 0, 0);
	for (size_t i = 0; i < nr; i++) {
		const struct mmc_srange *r = mmc_snapshot_range(snap, i);

		range_name(name, sizeof(name), r->start_pfn, r->end_pfn,
			   mmc_report_range_type(snap, (int64_t)i));
		if (fmt == MMC_FMT_KTAP) {
			fprintf(out, "ok %zu %s\n", i + 1, name);
		} else {
			fputs("    <testcase classname=\"memmapcheck.ranges\" name=\"", out);
			mmc_report_xml_string(out, name);
			fputs("\"/>\n", out);
		}
	}
	if (fmt == MMC_FMT_JUNIT)
		junit_close(out);
}

/* ---- diff ---- */

/* Range failure text, e.g. "511 of 65536 pages differ". */
static void range_failure(const struct mmc_diff_range *r, char *buf, size_t size)
{
	if ((r->a_index < 0 || r->b_index < 0) && r->unproven)
		snprintf(buf, size, "range only in the %s image; discovery of the %s image stopped early",
			 r->a_index < 0 ? "patched" : "base", r->a_index < 0 ? "base" : "patched");
	else if (r->a_index < 0 || r->b_index < 0)
		snprintf(buf, size, "range only in the %s image",
			 r->a_index < 0 ? "patched" : "base");
	else if (mmc_verdict_differs(r->verdict))
		snprintf(buf, size, "%" PRIu64 " of %" PRIu64 " pages differ%s%s", r->differing,
			 r->end_pfn - r->start_pfn, r->verdict == MMC_BEYOND_CLAIMS ? " beyond the claims" : "",
			 r->vframes_differing ? ", vmemmap frames differ" : "");
	else
		snprintf(buf, size, "incomplete: %" PRIu64 " base and %" PRIu64 " patched pages unreadable",
			 r->unreadable_a, r->unreadable_b);
}

void mmc_report_diff_ktap(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			  const struct mmc_diff_result *res)
{
	char sentence[1024], name[96], why[160];

	mmc_report_diff_sentence(res, sentence, sizeof(sentence));
	ktap_header(out, res->nranges + (res->claims ? res->claims->nclaims : 0));
	fprintf(out, "# memmapcheck diff: %s\n", sentence);
	for (size_t i = 0; i < res->npgmap_diffs; i++)
		fprintf(out, "# pgmap: %s\n", res->pgmap_diffs[i]);
	for (size_t i = 0; i < res->nranges; i++) {
		const struct mmc_diff_range *r = &res->ranges[i];
		const char *type = mmc_report_range_type(r->a_index >= 0 ? a : b,
							 r->a_index >= 0 ? r->a_index : r->b_index);

		range_name(name, sizeof(name), r->start_pfn, r->end_pfn, type);
		if (r->verdict == MMC_IDENTICAL || r->verdict == MMC_AS_CLAIMED) {
			mmc_report_claims_range_note(out, res, i, "# ");
			fprintf(out, "ok %zu %s\n", i + 1, name);
			continue;
		}
		range_failure(r, why, sizeof(why));
		if (r->verdict == MMC_INCOMPLETE) {
			fprintf(out, "ok %zu %s # SKIP %s\n", i + 1, name, why);
			continue;
		}
		fprintf(out, "# %s: %s\n", name, why);
		for (size_t f = 0; f < r->nfields && f < MMC_DIFF_MAX_FIELDS; f++)
			fprintf(out, "# %s: %" PRIu64 " pages\n", r->fields[f].name, r->fields[f].pages);
		for (size_t g = 0; g < res->ngroups; g++)
			if (res->groups[g].range == i)
				fprintf(out, "# pfn 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " pages): %s\n",
					res->groups[g].first_pfn, res->groups[g].last_pfn,
					res->groups[g].npages, res->groups[g].fields);
		mmc_report_claims_range_note(out, res, i, "# ");
		fprintf(out, "not ok %zu %s\n", i + 1, name);
	}
	mmc_report_claims_ktap(out, res, res->nranges + 1);
}

/* What the claims covered in range i, as XML text. */
static void junit_claims_of_range(FILE *out, const struct mmc_diff_result *res, size_t i)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	mmc_report_claims_range_note(m, res, i, "");
	fclose(m);
	mmc_report_xml_string(out, text);
	free(text);
}

void mmc_report_diff_junit(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			   const struct mmc_diff_result *res)
{
	size_t failures = 0, skipped = 0;
	char name[96], why[160];

	for (size_t i = 0; i < res->nranges; i++) {
		if (mmc_verdict_differs(res->ranges[i].verdict))
			failures++;
		else if (res->ranges[i].verdict == MMC_INCOMPLETE)
			skipped++;
	}
	mmc_report_claims_junit_counts(res, &failures, &skipped);
	junit_open(out, "diff", res->nranges + (res->claims ? res->claims->nclaims : 0), failures,
		   skipped);
	for (size_t i = 0; i < res->nranges; i++) {
		const struct mmc_diff_range *r = &res->ranges[i];
		const char *type = mmc_report_range_type(r->a_index >= 0 ? a : b,
							 r->a_index >= 0 ? r->a_index : r->b_index);

		range_name(name, sizeof(name), r->start_pfn, r->end_pfn, type);
		fputs("    <testcase classname=\"memmapcheck.diff\" name=\"", out);
		mmc_report_xml_string(out, name);
		if (r->verdict == MMC_IDENTICAL) {
			fputs("\"/>\n", out);
			continue;
		}
		fputs("\">\n", out);
		if (r->verdict == MMC_AS_CLAIMED) {
			fputs("      <system-out>", out);
			junit_claims_of_range(out, res, i);
			fputs("</system-out>\n    </testcase>\n", out);
			continue;
		}
		range_failure(r, why, sizeof(why));
		if (r->verdict == MMC_INCOMPLETE) {
			fputs("      <skipped message=\"", out);
			mmc_report_xml_string(out, why);
			fputs("\"/>\n    </testcase>\n", out);
			continue;
		}
		fputs("      <failure type=\"different\" message=\"", out);
		mmc_report_xml_string(out, why);
		fputs("\">", out);
		for (size_t f = 0; f < r->nfields && f < MMC_DIFF_MAX_FIELDS; f++) {
			mmc_report_xml_string(out, r->fields[f].name);
			fprintf(out, ": %" PRIu64 " pages\n", r->fields[f].pages);
		}
		for (size_t g = 0; g < res->ngroups; g++)
			if (res->groups[g].range == i) {
				fprintf(out, "pfn 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " pages): ",
					res->groups[g].first_pfn, res->groups[g].last_pfn,
					res->groups[g].npages);
				mmc_report_xml_string(out, res->groups[g].fields);
				fputc('\n', out);
			}
		fputs("</failure>\n", out);
		if (r->claimed || r->vframes_claimed) {
			fputs("      <system-out>", out);
			junit_claims_of_range(out, res, i);
			fputs("</system-out>\n", out);
		}
		fputs("    </testcase>\n", out);
	}
	mmc_report_claims_junit(out, res);
	junit_close(out);
}

/* ---- lint ---- */

/* Violating pages and rule names of range r among the kept groups. */
static uint64_t lint_range_pages(const struct mmc_lint_result *res, size_t r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < res->nviolations; i++)
		if (res->violations[i].range == r)
			n += res->violations[i].npages;
	return n;
}

static bool lint_range_only_unreadable(const struct mmc_lint_result *res, size_t r)
{
	for (size_t i = 0; i < res->nviolations; i++)
		if (res->violations[i].range == r && strcmp(res->violations[i].rule, "unreadable"))
			return false;
	return true;
}

void mmc_report_lint_ci(FILE *out, const struct mmc_snapshot *snap,
			const struct mmc_lint_result *res, enum mmc_format fmt)
{
	size_t nr = snap ? mmc_snapshot_nranges(snap) : 0, failures = 0, skipped = 0;
	char sentence[1024], name[96];

	mmc_report_lint_sentence(snap, res, sentence, sizeof(sentence));
	for (size_t r = 0; r < nr; r++) {
		if (!lint_range_pages(res, r))
			continue;
		if (lint_range_only_unreadable(res, r))
			skipped++;
		else
			failures++;
	}
	if (fmt == MMC_FMT_KTAP) {
		ktap_header(out, nr);
		fprintf(out, "# memmapcheck lint: %s\n", sentence);
	} else {
		junit_open(out, "lint", nr, failures, skipped);
	}
	for (size_t r = 0; r < nr; r++) {
		const struct mmc_srange *sr = mmc_snapshot_range(snap, r);
		uint64_t bad = lint_range_pages(res, r);
		bool only_unread = bad && lint_range_only_unreadable(res, r);

		range_name(name, sizeof(name), sr->start_pfn, sr->end_pfn,
			   mmc_report_range_type(snap, (int64_t)r));
		if (fmt == MMC_FMT_KTAP) {
			if (!bad) {
				fprintf(out, "ok %zu %s\n", r + 1, name);
				continue;
			}
			if (only_unread) {
				fprintf(out, "ok %zu %s # SKIP %" PRIu64 " pages unreadable\n",
					r + 1, name, bad);
				continue;
			}
			for (size_t i = 0; i < res->nviolations; i++) {
				const struct mmc_lint_violation *v = &res->violations[i];

				if (v->range == r)
					fprintf(out, "# %s: pfn 0x%" PRIx64 " (%" PRIu64 " pages): %s\n",
						v->rule, v->pfn, v->npages, v->message);
			}
			fprintf(out, "not ok %zu %s\n", r + 1, name);
			continue;
		}
		fputs("    <testcase classname=\"memmapcheck.lint\" name=\"", out);
		mmc_report_xml_string(out, name);
		if (!bad) {
			fputs("\"/>\n", out);
			continue;
		}
		fprintf(out, "\">\n      <%s message=\"%" PRIu64 " pages %s\"",
			only_unread ? "skipped" : "failure", bad,
			only_unread ? "unreadable" : "violate lint rules");
		if (only_unread) {
			fputs("/>\n    </testcase>\n", out);
			continue;
		}
		fputs(" type=\"lint\">", out);
		for (size_t i = 0; i < res->nviolations; i++) {
			const struct mmc_lint_violation *v = &res->violations[i];

			if (v->range != r)
				continue;
			mmc_report_xml_string(out, v->rule);
			fprintf(out, ": pfn 0x%" PRIx64 " (%" PRIu64 " pages): ", v->pfn, v->npages);
			mmc_report_xml_string(out, v->message);
			fputc('\n', out);
		}
		fputs("</failure>\n    </testcase>\n", out);
	}
	if (fmt == MMC_FMT_JUNIT)
		junit_close(out);
}
