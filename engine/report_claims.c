// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The claims part of a diff report, in every format (report_int.h): what
 * each claim covered, with its reason beside it, per claim and per range;
 * the claims not seen; the pgmap differences a claim covered.  The
 * differences no claim covers are the diff's own tables (report_text.c,
 * report_json.c, report_ci.c).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

static bool seen(const struct mmc_diff_claim *d)
{
	return d->pages || d->vframes || d->range_pages || d->pgmap_diffs;
}

static uint64_t at(const uint64_t *v, const struct mmc_diff_claims *cl, size_t claim,
		   size_t range)
{
	return v[claim * cl->nranges + range];
}

/* "vmemmap_writable unchanged, claimed 1 -> 0: 441 vmemmap pages" */
static void unmet_text(const struct mmc_diff_unmet *u, char *buf, size_t size)
{
	char count[64];

	if (u->pages && u->vframes)
		snprintf(count, sizeof(count), "%" PRIu64 " pages, %" PRIu64 " vmemmap pages",
			 u->pages, u->vframes);
	else if (u->pages)
		snprintf(count, sizeof(count), "%" PRIu64 " pages", u->pages);
	else
		snprintf(count, sizeof(count), "%" PRIu64 " vmemmap pages", u->vframes);
	if (u->unchanged)
		snprintf(buf, size, "%s unchanged%s%s: %s", u->field, u->claimed[0] ? ", claimed " : "",
			 u->claimed, count);
	else
		snprintf(buf, size, "%s differs, not %s as claimed: %s", u->field, u->claimed, count);
}

size_t mmc_report_claims_unseen(const struct mmc_diff_result *res, char *buf, size_t size,
				size_t len)
{
	const struct mmc_diff_claims *cl = res->claims;
	bool first = true;

	if (!cl || !cl->nunseen || len >= size)
		return len;
	for (size_t i = 0; i < cl->nclaims && len < size; i++) {
		int n;

		if (seen(&cl->claim[i]))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", first ? "; claimed but not seen: " : ", ",
			     cl->claim[i].name);
		first = false;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	if (len < size && cl->strict) {
		int n = snprintf(buf + len, size - len, " (--strict: fails)");

		if (n > 0)
			len += (size_t)n;
	}
	return len < size ? len : size - 1;
}

/* "4 ranges (0, 2, 3, 6)" */
static void ranges_of(const struct mmc_diff_result *res, size_t i, char *buf, size_t size)
{
	const struct mmc_diff_claims *cl = res->claims;
	size_t len = 0, shown = 0;

	buf[0] = 0;
	for (size_t r = 0; r < res->nranges && len < size; r++) {
		int n;

		if (!at(cl->range_pages, cl, i, r) && !at(cl->range_vframes, cl, i, r))
			continue;
		if (shown == 8) {
			snprintf(buf + len, size - len, ",...");
			return;
		}
		n = snprintf(buf + len, size - len, "%s%zu", shown ? "," : "", r);
		if (n < 0)
			return;
		len += (size_t)n;
		shown++;
	}
	if (!shown)
		snprintf(buf, size, "-");
}

void mmc_report_claims_text(FILE *out, const struct mmc_diff_result *res)
{
	const struct mmc_diff_claims *cl = res->claims;
	char rl[64];
	bool any = false;

	if (!cl)
		return;
	fprintf(out, "\nCLAIMS (%s: %zu claim%s", cl->file, cl->nclaims, cl->nclaims == 1 ? "" : "s");
	if (cl->nunseen)
		fprintf(out, ", %zu claimed but not seen%s", cl->nunseen,
			cl->strict ? ", which --strict fails" : "");
	fprintf(out, ")\n");
	for (size_t i = 0; i < cl->nnotes; i++)
		fprintf(out, "  note: %s\n", cl->notes[i]);
	if (!cl->nclaims)
		return;
	fprintf(out, "  %-32s  %10s  %8s  %6s  %-14s  %s\n", "CLAIM", "PAGES", "VMEMMAP",
		"PGMAP", "RANGES", "REASON");
	for (size_t i = 0; i < cl->nclaims; i++) {
		const struct mmc_diff_claim *d = &cl->claim[i];

		ranges_of(res, i, rl, sizeof(rl));
		fprintf(out, "  %-32s  %10" PRIu64 "  %8" PRIu64 "  %6zu  %-14s  %s\n", d->name,
			d->pages + d->range_pages, d->vframes, d->pgmap_diffs, rl, d->reason);
		if (!seen(d))
			fprintf(out, "      claimed but not seen (line %u)\n", d->line);
		for (size_t f = 0; f < d->nfields; f++)
			fprintf(out, "      %-32s  %10" PRIu64 "\n", d->fields[f].name,
				d->fields[f].pages);
		if (d->together)
			fprintf(out, "      together: covers a page only where all its fields differ as claimed\n");
		for (size_t u = 0; u < d->nunmet; u++) {
			char why[256];

			unmet_text(&d->unmet[u], why, sizeof(why));
			fprintf(out, "      beyond the claims, %s\n", why);
		}
	}
	for (size_t r = 0; r < res->nranges; r++) {
		const struct mmc_diff_range *dr = &res->ranges[r];

		for (size_t i = 0; i < cl->nclaims; i++) {
			uint64_t p = at(cl->range_pages, cl, i, r), v = at(cl->range_vframes, cl, i, r);
			char span[48];

			if (!p && !v)
				continue;
			if (!any)
				fprintf(out, "\nCLAIMED, BY RANGE (the pages each claim covers, and why)\n"
					"  %5s  %-24s  %10s  %8s  %-32s  %s\n", "RANGE", "PFN RANGE",
					"PAGES", "VMEMMAP", "CLAIM", "REASON");
			any = true;
			snprintf(span, sizeof(span), "0x%" PRIx64 "-0x%" PRIx64, dr->start_pfn,
				 dr->end_pfn - 1);
			fprintf(out, "  %5zu  %-24s  %10" PRIu64 "  %8" PRIu64 "  %-32s  %s\n", r, span,
				p, v, cl->claim[i].name, cl->claim[i].reason);
		}
	}
	for (size_t i = 0; i < cl->npgmap_diffs; i++)
		fprintf(out, "%s%s  (%s)\n", i ? "  " : "\nCLAIMED PGMAP DIFFERENCES\n  ",
			cl->pgmap_diffs[i], cl->claim[cl->pgmap_diff_claim[i]].name);
}

void mmc_report_claims_json(FILE *out, const struct mmc_diff_result *res)
{
	const struct mmc_diff_claims *cl = res->claims;
	bool first = true;

	if (!cl)
		return;
	fputs(",\"claims\":{\"file\":", out);
	mmc_json_string(out, cl->file);
	fprintf(out, ",\"strict\":%s,\"pages_claimed\":%" PRIu64 ",\"unseen\":[",
		cl->strict ? "true" : "false", res->pages_claimed);
	for (size_t i = 0; i < cl->nclaims; i++) {
		if (seen(&cl->claim[i]))
			continue;
		fputs(first ? "" : ",", out);
		mmc_json_string(out, cl->claim[i].name);
		first = false;
	}
	fputs("],\"notes\":[", out);
	for (size_t i = 0; i < cl->nnotes; i++) {
		fputs(i ? "," : "", out);
		mmc_json_string(out, cl->notes[i]);
	}
	fputs("],\"claims\":[", out);
	for (size_t i = 0; i < cl->nclaims; i++) {
		const struct mmc_diff_claim *d = &cl->claim[i];
		bool fr = true;

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		mmc_json_string(out, d->name);
		fputs(",\"reason\":", out);
		mmc_json_string(out, d->reason);
		fprintf(out, ",\"line\":%u,\"seen\":%s,\"pages\":%" PRIu64 ",\"vframes\":%" PRIu64
			",\"range_pages\":%" PRIu64 ",\"pgmap_diffs\":%zu,\"ranges\":%zu,\"fields\":{",
			d->line, seen(d) ? "true" : "false", d->pages, d->vframes, d->range_pages,
			d->pgmap_diffs, d->nranges);
		for (size_t f = 0; f < d->nfields; f++) {
			fputs(f ? "," : "", out);
			mmc_json_string(out, d->fields[f].name);
			fprintf(out, ":%" PRIu64, d->fields[f].pages);
		}
		fprintf(out, "},\"together\":%s,\"unmet\":[", d->together ? "true" : "false");
		for (size_t u = 0; u < d->nunmet; u++) {
			const struct mmc_diff_unmet *x = &d->unmet[u];

			fputs(u ? ",{\"field\":" : "{\"field\":", out);
			mmc_json_string(out, x->field);
			fputs(",\"claimed\":", out);
			mmc_json_string(out, x->claimed);
			fprintf(out, ",\"unchanged\":%s,\"pages\":%" PRIu64 ",\"vframes\":%" PRIu64 "}",
				x->unchanged ? "true" : "false", x->pages, x->vframes);
		}
		fputs("],\"by_range\":[", out);
		for (size_t r = 0; r < res->nranges; r++) {
			uint64_t p = at(cl->range_pages, cl, i, r), v = at(cl->range_vframes, cl, i, r);

			if (!p && !v)
				continue;
			fprintf(out, "%s{\"range\":%zu,\"pages\":%" PRIu64 ",\"vframes\":%" PRIu64 "}",
				fr ? "" : ",", r, p, v);
			fr = false;
		}
		fputs("]}", out);
	}
	fputs("],\"pgmap_diffs\":[", out);
	for (size_t i = 0; i < cl->npgmap_diffs; i++) {
		fputs(i ? ",{\"diff\":" : "{\"diff\":", out);
		mmc_json_string(out, cl->pgmap_diffs[i]);
		fputs(",\"claim\":", out);
		mmc_json_string(out, cl->claim[cl->pgmap_diff_claim[i]].name);
		fputc('}', out);
	}
	fprintf(out, "],\"groups_total\":%" PRIu64 ",\"groups\":[", cl->groups_total);
	for (size_t i = 0; i < cl->ngroups; i++) {
		const struct mmc_diff_group *g = &cl->groups[i];

		fprintf(out, "%s{\"range\":%zu,\"first_pfn\":%" PRIu64 ",\"last_pfn\":%" PRIu64
			",\"pages\":%" PRIu64 ",\"fields\":", i ? "," : "", g->range, g->first_pfn,
			g->last_pfn, g->npages);
		mmc_json_string(out, g->fields);
		fputs(",\"claim\":", out);
		mmc_json_string(out, g->claim >= 0 && (size_t)g->claim < cl->nclaims ?
				cl->claim[g->claim].name : "");
		fputc('}', out);
	}
	fputs("]}", out);
}

void mmc_report_claims_range_note(FILE *out, const struct mmc_diff_result *res, size_t r,
				  const char *prefix)
{
	const struct mmc_diff_claims *cl = res->claims;

	for (size_t i = 0; cl && i < cl->nclaims; i++) {
		uint64_t p = at(cl->range_pages, cl, i, r), v = at(cl->range_vframes, cl, i, r);

		if (!p && !v)
			continue;
		fprintf(out, "%sclaim %s: %" PRIu64 " pages, %" PRIu64 " vmemmap pages: %s\n", prefix,
			cl->claim[i].name, p, v, cl->claim[i].reason);
	}
}

static void claim_summary(const struct mmc_diff_claim *d, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 " pages, %" PRIu64 " vmemmap pages, %zu pgmap differences in %zu ranges",
		 d->pages + d->range_pages, d->vframes, d->pgmap_diffs, d->nranges);
}

void mmc_report_claims_ktap(FILE *out, const struct mmc_diff_result *res, size_t first)
{
	const struct mmc_diff_claims *cl = res->claims;
	char what[160];

	for (size_t i = 0; cl && i < cl->nnotes; i++)
		fprintf(out, "# note: %s\n", cl->notes[i]);
	for (size_t i = 0; cl && i < cl->nclaims; i++) {
		const struct mmc_diff_claim *d = &cl->claim[i];

		fprintf(out, "# claim %s: %s\n", d->name, d->reason);
		for (size_t u = 0; u < d->nunmet; u++) {
			char why[256];

			unmet_text(&d->unmet[u], why, sizeof(why));
			fprintf(out, "# claim %s (together), beyond the claims: %s\n", d->name, why);
		}
		if (!seen(d)) {
			if (cl->strict)
				fprintf(out, "not ok %zu claim %s # claimed but not seen (--strict)\n",
					first + i, d->name);
			else
				fprintf(out, "ok %zu claim %s # SKIP claimed but not seen\n",
					first + i, d->name);
			continue;
		}
		claim_summary(d, what, sizeof(what));
		fprintf(out, "# claim %s covered %s\n", d->name, what);
		fprintf(out, "ok %zu claim %s\n", first + i, d->name);
	}
}

void mmc_report_claims_junit_counts(const struct mmc_diff_result *res, size_t *failures,
				    size_t *skipped)
{
	const struct mmc_diff_claims *cl = res->claims;

	if (!cl)
		return;
	if (cl->strict)
		*failures += cl->nunseen;
	else
		*skipped += cl->nunseen;
}

void mmc_report_claims_junit(FILE *out, const struct mmc_diff_result *res)
{
	const struct mmc_diff_claims *cl = res->claims;
	char what[160];

	for (size_t i = 0; cl && i < cl->nclaims; i++) {
		const struct mmc_diff_claim *d = &cl->claim[i];

		fputs("    <testcase classname=\"memmapcheck.claims\" name=\"claim ", out);
		mmc_report_xml_string(out, d->name);
		fputs("\">\n", out);
		if (!seen(d))
			fprintf(out, "      <%s message=\"claimed but not seen%s\"/>\n",
				cl->strict ? "failure type=\"unseen\"" : "skipped",
				cl->strict ? " (--strict)" : "");
		if (!seen(d) && !d->nunmet) {
			fputs("    </testcase>\n", out);
			continue;
		}
		fputs("      <system-out>", out);
		if (seen(d)) {
			claim_summary(d, what, sizeof(what));
			mmc_report_xml_string(out, what);
			fputs(": ", out);
			mmc_report_xml_string(out, d->reason);
		}
		for (size_t u = 0; u < d->nunmet; u++) {
			char why[256];

			unmet_text(&d->unmet[u], why, sizeof(why));
			fputs(seen(d) || u ? "\ntogether, beyond the claims: " : "together, beyond the claims: ",
			      out);
			mmc_report_xml_string(out, why);
		}
		fputs("</system-out>\n", out);
		fputs("    </testcase>\n", out);
	}
}
