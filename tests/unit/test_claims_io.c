// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A claims file in and out: its grammar (engine/claims.c) on good, bad
 * and damaged text, and the reports that carry its claims on a hand-built
 * snapshot pair (engine/report_claims.c: text, JSON, KTAP, JUnit; the
 * difference map of engine/report_svg*.c).  test_claims has the diff's
 * matching of claims.
 *
 * [proof]: the expected answer follows from the grammar (doc/CLAIMS.md)
 * or from how the pair was built: which pages a mutation changes, and
 * which of them a claim's where/pages/values select, counted from the
 * geometry here, not from the diff.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "claims.h"
#include "claims_pair.h"
#include "claims_parse_errors.h"
#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "pair_image.h"
#include "report.h"
#include "report_svg.h"
#include "slurp.h"
#include "tap.h"

/* ---- parser ---- */

static void test_parser(void)
{
	static const struct claims_bad bad[] = {
		{ "", 1, "an empty file" },
		{ "# only a comment\n\n", 2, "only comments" },
		{ "memmapcheck-claims 2\n", 1, "unsupported version '2'" },
		{ "claim x\n", 1, "first line must be 'memmapcheck-claims 1'" },
		{ "memmapcheck-claims 1\nmemmapcheck-claims 1\n", 2, "second version line" },
		{ "memmapcheck-claims 1\nreason why\n", 2, "before the first 'claim NAME'" },
		{ "memmapcheck-claims 1\nclaim a\n  feild x\n", 3, "unknown keyword 'feild'" },
		{ "memmapcheck-claims 1\nclaim a b\n", 2, "takes one NAME" },
		{ "memmapcheck-claims 1\nclaim a/b\n", 2, "bad claim name 'a/b'" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n field x\nclaim a\n", 5,
		  "duplicate claim name a (line 2" },
		{ "memmapcheck-claims 1\n\nclaim a\n field x\n", 3, "claim a has no reason line" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\nclaim b\n", 2, "claim a has no field line" },
		{ "memmapcheck-claims 1\nclaim a\n reason\n", 3, "'reason' needs a text" },
		{ "memmapcheck-claims 1\nclaim a\n where colour=red\n", 3, "unknown where key 'colour'" },
		{ "memmapcheck-claims 1\nclaim a\n where kind=slab\n", 3,
		  "unknown kind 'slab' (pgmap, hugetlb, hotplug)" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n where kind=pgmap\n where order=9 kind=HugeTLB\n", 5,
		  "unknown kind 'HugeTLB'" },
		{ "memmapcheck-claims 1\nclaim a\n where kind=hugetlb,\n", 3, "empty value in kind=" },
		{ "memmapcheck-claims 1\nclaim a\n where order=x\n", 3, "bad value 'x' of order= (N or N-M)" },
		{ "memmapcheck-claims 1\nclaim a\n where order=18-9\n", 3, "bad value '18-9' of order=" },
		{ "memmapcheck-claims 1\nclaim a\n where order=-1\n", 3, "bad value '-1' of order=" },
		{ "memmapcheck-claims 1\nclaim a\n where size=2M\n", 3,
		  "unknown where key 'size' (type, shift, altmap, flags, range, pfn, kind, order)" },
		{ "memmapcheck-claims 1\nclaim a\n where type=hugetlb\n", 3,
		  "unknown type 'hugetlb' (devdax, fsdax, private, coherent, p2pdma: a pgmap's); hugetlb is a kind of range: kind=hugetlb" },
		{ "memmapcheck-claims 1\nclaim a\n where shift=x\n", 3, "bad value 'x' of shift=" },
		{ "memmapcheck-claims 1\nclaim a\n where shift=9-3\n", 3, "bad value '9-3' of shift=" },
		{ "memmapcheck-claims 1\nclaim a\n where pfn=0x10-0x10\n", 3, "bad value '0x10-0x10' of pfn=" },
		{ "memmapcheck-claims 1\nclaim a\n where pfn=0x10\n", 3, "bad value '0x10' of pfn=" },
		{ "memmapcheck-claims 1\nclaim a\n where altmap=maybe\n", 3, "altmap= takes yes or no" },
		{ "memmapcheck-claims 1\nclaim a\n where type=\n", 3, "not KEY=VALUE" },
		{ "memmapcheck-claims 1\nclaim a\n where range=1,,2\n", 3, "empty value in range=" },
		{ "memmapcheck-claims 1\nclaim a\n pages head,neck\n", 3, "unknown role 'neck'" },
		{ "memmapcheck-claims 1\nclaim a\n field _refcount 0 1\n", 3, "takes FROM -> TO" },
		{ "memmapcheck-claims 1\nclaim a\n field _refcount 0 -> x+y\n", 3, "bad value 'x+y'" },
		{ "memmapcheck-claims 1\nclaim a\n field _refcount -> 1\n", 3, "one FROM and one TO" },
		{ "memmapcheck-claims 1\nclaim a\n field flags.PG_head 0 -> 2\n", 3, "one bit: its values are 0/1" },
		{ "memmapcheck-claims 1\nclaim a\n field any 0 -> 1\n", 3, "any is a group of fields" },
		{ "memmapcheck-claims 1\nclaim a\n field vmemmap_frame 0 -> 1\n", 3, "vmemmap_frame takes no FROM -> TO" },
		{ "memmapcheck-claims 1\nclaim a\n field pgmap.colour\n", 3, "unknown field pgmap.colour" },
		{ "memmapcheck-claims 1\nclaim a\n field bad;name\n", 3, "bad field name 'bad;name'" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n pages tail\n field vmemmap_frame\n", 5,
		  "vmemmap_frame is not a field of one struct page, so the pages line (line 4)" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n pages head\n field range\n", 5,
		  "range is not a field of one struct page" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n together\n field _refcount\n", 4,
		  "together needs at least two field lines (claim a has 1)" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n together now\n", 4, "'together' takes nothing after it" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n together\n together\n", 5,
		  "a second 'together' in claim a (line 4" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n together\n field _refcount\n field vmemmap_frame\n", 4,
		  "names _refcount (a struct page's) and vmemmap_frame (a vmemmap page's)" },
		{ "memmapcheck-claims 1\nclaim a\n reason r\n together\n field vmemmap_frame\n field range\n", 6,
		  "range is a range-level difference" },
		{ "memmapcheck-claims 1\ntogether\n", 2, "'together' before the first 'claim NAME'" },
		{ "memmapcheck-claims 1\nclaim a\n reason caf\xc3\n", 3, "not UTF-8" },
		{ "memmapcheck-claims 1\nclaim a\n reason \xed\xa0\x80\n", 3, "not UTF-8" },
	};
	char longline[5000];

	claims_parse_errors("x.claims", "", bad, sizeof(bad) / sizeof(bad[0]));
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	memcpy(longline, "memmapcheck-claims 1\n# ", 23);
	{
		struct mmc_claims *cl = NULL;
		struct mmc_error *err = mmc_claims_parse("x.claims", longline, strlen(longline), &cl);

		tap_ok(err && strstr(err->message, "line 2: line longer than 4096"),
		       "[proof] a line over 4096 bytes: error naming line 2 (%s)",
		       err ? err->message : "none");
		mmc_error_destroy(err);
	}
	{
		/* a NUL byte in the middle of a line */
		static const char nul[] = "memmapcheck-claims 1\nclaim a\0b\n";
		struct mmc_claims *cl = NULL;
		struct mmc_error *err = mmc_claims_parse("x.claims", nul, sizeof(nul) - 1, &cl);

		tap_ok(err && strstr(err->message, "line 2: not UTF-8 text (or a NUL byte)"),
		       "[proof] a NUL byte: error naming line 2");
		mmc_error_destroy(err);
	}
	{
		static const char good[] =
			"# header comment\n"
			"memmapcheck-claims 1   # version\n"
			"\n"
			"claim first.one-A_1\n"
			"\treason one\n"
			"    reason two # a comment\n"
			"    where type=devdax,fsdax shift=9-18 altmap=no flags=0x1 range=0-3 pfn=0x10-0x20,64-128\n"
			"    where kind=pgmap,hugetlb,hotplug order=0,9-18\n"
			"    pages head,shared-frame\n"
			"    field mapping TAIL_MAPPING->self+16\n"
			"    field compound_head page-3+1 -> pgmap#2+8\n"
			"claim second\n"
			"    reason r\n"
			"    field _refcount * -> -1\n"
			"    field flags.PG_head clear -> set\n"
			"    field pgmap.owner obj#3(direct) -> NULL\n";
		struct mmc_claims *cl = NULL;
		struct mmc_error *err = mmc_claims_parse("good.claims", good, strlen(good), &cl);

		tap_ok(!err && cl && mmc_claims_count(cl) == 2 &&
		       !strcmp(mmc_claim_name(cl, 0), "first.one-A_1") &&
		       !strcmp(mmc_claim_reason(cl, 0), "one two") && mmc_claim_line(cl, 0) == 4 &&
		       mmc_claim_line(cl, 1) == 12 && !strcmp(mmc_claims_file(cl), "good.claims"),
		       "[proof] a file with every key, role kind and value form parses: 2 claims, reasons joined, lines kept (%s)",
		       err ? err->message : "ok");
		mmc_error_destroy(err);
		mmc_claims_destroy(cl);
	}
	{
		struct mmc_claims *cl = NULL;
		struct mmc_error *err = mmc_claims_load("/nonexistent/x.claims", &cl);

		tap_ok(err && err->code == MMC_ERR_USAGE && !strcmp(err->path, "/nonexistent/x.claims"),
		       "[proof] a missing claims file: usage error naming it");
		mmc_error_destroy(err);
		err = mmc_claims_load("/", &cl);
		tap_ok(err && strstr(err->message, "directory"), "[proof] a directory: refused");
		mmc_error_destroy(err);
	}
}

/* Damaged files: every parse ends in claims or an error naming a line,
 * never a crash (the sanitizer build runs this too). */
static void test_damaged(void)
{
	static const char good[] =
		"memmapcheck-claims 1\nclaim a\n reason why # c\n where type=devdax shift=9-18 pfn=0x10-0x20\n"
		" pages head,tail\n together\n field _refcount 0 -> 1\n field compound_head page-3+1 -> pgmap#2+8\n"
		"claim b\n reason r\n field pgmap.owner obj#3(direct) -> NULL\n";
	unsigned int seed = 12345, bad_line = 0, parsed = 0;
	char buf[sizeof(good) + 8];

	for (int i = 0; i < 5000; i++) {
		struct mmc_claims *cl = NULL;
		struct mmc_error *err;
		size_t n = sizeof(good) - 1;

		memcpy(buf, good, n);
		for (int k = 0; k < 1 + i % 4; k++) {
			seed = seed * 1103515245 + 12345;
			buf[(seed >> 8) % n] = (char)(seed >> 20);
		}
		seed = seed * 1103515245 + 12345;
		if (i % 7 == 0)
			n = (seed >> 8) % n;
		err = mmc_claims_parse("d.claims", buf, n, &cl);
		if (err)
			bad_line += !strstr(err->message, "line ");
		else
			parsed++;
		mmc_error_destroy(err);
		mmc_claims_destroy(cl);
	}
	tap_ok(bad_line == 0, "[proof] 5000 damaged claims files: every error names a line (%u parsed)",
	       parsed);
}

/* ---- reports ---- */

static bool starts(const char *text, const char *want)
{
	return !strncmp(text, want, strlen(want));
}

/* A line of text holding a, b, c and d in this order. */
static bool line_has(const char *text, const char *a, const char *b, const char *c, const char *d)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n'), *p = strstr(l, a);

		if (!end)
			end = l + strlen(l);
		if (p && p < end && (p = strstr(p, b)) && p < end && (p = strstr(p, c)) && p < end &&
		    (p = strstr(p, d)) && p < end + 1)
			return true;
	}
	return false;
}

static void test_reports(void)
{
	struct mut m = { .page = m_tail_ref };
	const char *text = "memmapcheck-claims 1\nclaim tail-ref\n reason tails keep refcount 1\n"
			   " pages tail\n field _refcount 0 -> 1\nclaim unused\n reason never happens\n"
			   " field mapping\n";
	struct mmc_diff_result *res = diff_with(&layout612, &layout612, &m, text, false, false, NULL);
	struct mmc_diff_result *strict = diff_with(&layout612, &layout612, &m, text, false, true, NULL);
	char *t = render(res, MMC_FMT_TEXT), *j = render(res, MMC_FMT_JSON);
	char *k = render(res, MMC_FMT_KTAP), *ks = render(strict, MMC_FMT_KTAP);
	char *u = render(res, MMC_FMT_JUNIT), *us = render(strict, MMC_FMT_JUNIT);

	if (getenv("TEST_CLAIMS_SHOW"))
		printf("%s\n%s\n%s\n", t, u, us);

	tap_ok(t && starts(t, "as claimed: 4072 of 5120 pages in 1 of 2 ranges differ, every difference claimed "
			   "(8 never-initialised altmap reserve pages not compared); claimed but not seen: unused\n") &&
	       strstr(t, "BEYOND   CLAIMED") && strstr(t, "CLAIMS (t.claims: 2 claims, 1 claimed but not seen)") &&
	       strstr(t, "claimed but not seen (line 6)") &&
	       line_has(t, "  0x100000-0x100fff ", " 4072 ", " tail-ref ", " tails keep refcount 1\n"),
	       "[proof] text: the verdict sentence, CLAIMED column, CLAIMS and the reason beside the range's pages");
	tap_ok(j && strstr(j, "\"verdict\":\"as claimed\"") && strstr(j, "\"claimed\":4072") &&
	       strstr(j, "\"claims\":{\"file\":\"t.claims\",\"strict\":false,\"pages_claimed\":4072,\"unseen\":[\"unused\"]") &&
	       strstr(j, "{\"name\":\"tail-ref\",\"reason\":\"tails keep refcount 1\",\"line\":2,\"seen\":true,\"pages\":4072") &&
	       strstr(j, "\"by_range\":[{\"range\":0,\"pages\":4072,\"vframes\":0}]"),
	       "[proof] JSON: verdict, per-range claimed, the claims object with reasons and by_range");
	tap_ok(k && strstr(k, "1..4\n") && strstr(k, "# claim tail-ref: 4072 pages, 0 vmemmap pages: tails keep refcount 1\nok 1 range") &&
	       strstr(k, "ok 3 claim tail-ref\n") && strstr(k, "ok 4 claim unused # SKIP claimed but not seen\n"),
	       "[proof] KTAP: 2 ranges + 2 claims, the unseen claim a SKIP");
	tap_ok(ks && strstr(ks, "not ok 4 claim unused # claimed but not seen (--strict)"),
	       "[proof] KTAP --strict: the unseen claim fails");
	tap_ok(u && strstr(u, "tests=\"4\" failures=\"0\" errors=\"0\" skipped=\"1\"") &&
	       strstr(u, "<testcase classname=\"memmapcheck.claims\" name=\"claim unused\">\n      <skipped message=\"claimed but not seen\"/>") &&
	       strstr(u, "<system-out>claim tail-ref: 4072 pages, 0 vmemmap pages: tails keep refcount 1"),
	       "[proof] JUnit: a claims testcase per claim, the unseen one skipped, the range's claims in system-out");
	tap_ok(us && strstr(us, "failures=\"1\" errors=\"0\" skipped=\"0\"") && strstr(us, "<failure type=\"unseen\""),
	       "[proof] JUnit --strict: the unseen claim is a failure");
	free(t);
	free(j);
	free(k);
	free(ks);
	free(u);
	free(us);
	mmc_diff_result_destroy(res);
	mmc_diff_result_destroy(strict);

	res = diff_with(&layout612, &layout612, &m, "memmapcheck-claims 1\n", false, false, NULL);
	t = render(res, MMC_FMT_TEXT);
	tap_ok(t && starts(t, "beyond the claims: 4072 of 5120 pages in 1 of 2 ranges differ beyond the claims (0 more as claimed)\n") &&
	       strstr(t, "FIELD (BEYOND THE CLAIMS)") && strstr(t, "GROUPS BEYOND THE CLAIMS (8 of 8)") &&
	       strstr(t, "FIRST 3 DIFFERING PAGES BEYOND THE CLAIMS"),
	       "[proof] text, nothing claimed: beyond, with the diff's own tables of what is beyond");
	free(t);
	mmc_diff_result_destroy(res);
}

/* ---- the difference map ---- */

/* x of every rect of colour in row `row` of an SVG file, as pfn spans
 * [lo, hi) by the geometry the root declares. */
static bool row_spans(const char *svg, const char *row, const char *colour, uint64_t *lo,
		      uint64_t *hi)
{
	char key[96];
	const char *p, *end, *root = strstr(svg, "<svg ");
	long start, pages, columns, plot_x, colw;

	if (!root || sscanf(strstr(root, "data-start-pfn=") + 16, "%ld", &start) != 1 ||
	    sscanf(strstr(root, "data-pages=") + 12, "%ld", &pages) != 1 ||
	    sscanf(strstr(root, "data-columns=") + 14, "%ld", &columns) != 1 ||
	    sscanf(strstr(root, "data-plot-x=") + 13, "%ld", &plot_x) != 1 ||
	    sscanf(strstr(root, "data-column-width=") + 19, "%ld", &colw) != 1)
		return false;
	snprintf(key, sizeof(key), "data-row=\"%s\"", row);
	p = strstr(svg, key);
	if (!p)
		return false;
	end = strstr(p, "</g>");
	*lo = UINT64_MAX;
	*hi = 0;
	while ((p = strstr(p, "<rect ")) && p < end) {
		long x, w;

		if (sscanf(p, "<rect x=\"%ld\" y=\"%*d\" width=\"%ld\"", &x, &w) == 2 &&
		    strncmp(strstr(p, "fill=\"") + 6, colour, 7) == 0 &&
		    strstr(p, "fill=\"") < strchr(p, '>')) {
			uint64_t a = (uint64_t)(start + ((x - plot_x) / colw) * pages / columns);
			uint64_t b = (uint64_t)(start + ((x - plot_x + w) / colw) * pages / columns);

			*lo = a < *lo ? a : *lo;
			*hi = b > *hi ? b : *hi;
		}
		p++;
	}
	return *hi > 0;
}

static void test_map(void)
{
	struct mut m = { .page = m_tail_ref };
	struct mmc_snapshot *a = build(&layout612, VBASE_A, NULL);
	struct mmc_snapshot *b = build(&layout612, VBASE_B, &m);
	struct mmc_diff_result *res = NULL;
	struct mmc_diff_opts o = { .max_pages = 1, .max_groups = MMC_SVG_MAX_GROUPS };
	static const char text[] = "memmapcheck-claims 1\nclaim half\n reason the first half\n"
				   " where pfn=0x100000-0x100800\n field _refcount\n";
	char dir[] = "/tmp/test_claims_io.XXXXXX", path[64];
	uint64_t glo = 0, ghi = 0, rlo = 0, rhi = 0;
	char *svg;
	bool green, red;

	die(pair_claims_diff(a, b, "map.claims", text, o, &res));
	if (!mkdtemp(dir)) {
		tap_ok(false, "mkdtemp");
		return;
	}
	die(mmc_report_svg(dir, a, b, res, NULL));
	snprintf(path, sizeof(path), "%s/range-00.svg", dir);
	svg = slurp(path, NULL);
	green = svg && row_spans(svg, "_refcount", "#2ca02c", &glo, &ghi);
	red = svg && row_spans(svg, "_refcount", "#d62728", &rlo, &rhi);
	/* 4096 pfns in 1000 columns: a column is 4.1 pfns, the spans are
	 * those columns' pfns */
	tap_ok(green && red && glo <= R1_START + 3 && ghi >= R1_START + 0x800 - 5 &&
	       ghi <= R1_START + 0x800 + 5 && rlo >= R1_START + 0x800 - 5 && rhi >= R1_START + R1_PAGES - 5 &&
	       strstr(svg, "data-claim=\"half\"") && strstr(svg, ">as claimed</text>"),
	       "[proof] map: the _refcount row green over pfns 0x%llx-0x%llx (claimed half), red over 0x%llx-0x%llx",
	       (unsigned long long)glo, (unsigned long long)ghi, (unsigned long long)rlo,
	       (unsigned long long)rhi);
	free(svg);
	snprintf(path, sizeof(path), "%s/range-00.svg", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/range-01.svg", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/index.html", dir);
	unlink(path);
	rmdir(dir);
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

int main(void)
{
	if (mmc_test_layout_612(&layout612))
		return 1;
	test_parser();
	test_damaged();
	test_reports();
	test_map();
	mmc_test_layout_release(&layout612);
	return tap_done();
}
