// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Renderers: every format for ranges, show, lint and identical / different /
 * incomplete diffs on a hand-built 6.12-like snapshot (two ranges of two
 * 2 MiB devdax compound pages).  Checks key substrings; JSON is parsed by
 * python3's json module and JUnit by xml.dom.minidom (through popen).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout_fixture.h"
#include "lint.h"
#include "normalise.h"
#include "report.h"
#include "snapshot.h"
#include "tap.h"

#define NPAGES 1024ULL
#define PGMAP0 0xffff888100000000ULL
#define TAIL_MAPPING 0xdead000000000400ULL

static const uint64_t starts[2] = { 0x100000, 0x200000 };

static uint64_t vaddr(const struct mmc_geom *g, uint64_t pfn)
{
	return g->vmemmap_base + pfn * g->struct_page_size;
}

static void build_page(const struct mmc_geom *g, uint64_t start, uint64_t pfn,
		       uint8_t *p, bool break_refcount)
{
	uint64_t head = start + (pfn - start) / 512 * 512, i = pfn - head, v;
	uint64_t flags = (4ULL << 61) | (1ULL << 13);

	memset(p, 0, 64);
	v = i ? vaddr(g, head) | 1 : PGMAP0;
	memcpy(p + 8, &v, 8);
	v = i ? 0x00000000ffffffffULL : 0x00000001ffffffffULL;
	if (break_refcount && pfn == 0x100007)
		v = 0x00000001ffffffffULL;
	memcpy(p + 48, &v, 8);
	if (i) {
		v = TAIL_MAPPING;
		memcpy(p + 24, &v, 8);
	} else {
		flags |= 1ULL << 6;
	}
	if (i == 1) {
		flags |= 9;
		v = ~0ULL;
		memcpy(p + 16, &v, 8);
		v = 0;
		memcpy(p + 24, &v, 8);
		v = 512;
		memcpy(p + 32, &v, 8);
	}
	memcpy(p, &flags, 8);
}

/* unread: range 1 pfns 0x200100..0x20013f unreadable. */
static struct mmc_snapshot *make(bool unread, bool break_refcount)
{
	struct mmc_layout layout;
	struct mmc_geom geom;
	struct mmc_snapshot *snap = NULL;
	struct mmc_norm *norm = NULL;
	struct mmc_error *err;
	uint64_t kaddr = PGMAP0;
	struct mmc_spgmap pg;

	if (mmc_test_layout_612(&layout))
		return NULL;
	mmc_test_geom(&geom);
	err = mmc_snapshot_create(&layout, &geom, "test.elf", "test_report", &snap);
	if (!err)
		err = mmc_norm_create(&layout, &geom, &kaddr, 1, &norm);
	memset(&pg, 0, sizeof(pg));
	pg.kaddr = PGMAP0;
	pg.type = 4;
	snprintf(pg.type_name, sizeof(pg.type_name), "MEMORY_DEVICE_GENERIC");
	pg.vmemmap_shift = 9;
	pg.nr_range = 2;
	if (!err)
		err = mmc_snapshot_add_pgmap(snap, &pg);
	for (int r = 0; r < 2 && !err; r++) {
		struct mmc_srange sr;

		memset(&sr, 0, sizeof(sr));
		sr.start_pfn = starts[r];
		sr.end_pfn = starts[r] + NPAGES;
		sr.range_index = (uint32_t)r;
		sr.vmemmap_start = vaddr(&geom, starts[r]);
		err = mmc_snapshot_begin_range(snap, &sr);
		for (uint64_t pfn = sr.start_pfn; pfn < sr.end_pfn && !err; pfn++) {
			uint8_t bytes[64];
			struct mmc_nrec rec;

			if (unread && r == 1 && pfn >= 0x200100 && pfn < 0x200140) {
				memset(&rec, 0, sizeof(rec));
				rec.state = MMC_PS_UNREADABLE;
				rec.nslots = 8;
			} else {
				build_page(&geom, sr.start_pfn, pfn, bytes, break_refcount);
				mmc_norm_page(norm, pfn, bytes, MMC_ROLE_DEVICE, &rec);
			}
			err = mmc_snapshot_append(snap, &rec);
		}
		for (uint64_t i = 0; i < NPAGES * 64 / 4096 && !err; i++) {
			struct mmc_vframe vf;

			memset(&vf, 0, sizeof(vf));
			vf.paddr = 0x200000000ULL + (uint64_t)r * 0x100000 + i * 4096;
			/* as the walker records them (snapshot format 5) */
			vf.prot = vf.prot_known = MMC_VPROT_WRITABLE;
			vf.leaf = MMC_VLEAF_PTE;
			err = mmc_snapshot_append_vframe(snap, &vf);
		}
		if (!err)
			err = mmc_snapshot_end_range(snap);
	}
	mmc_norm_destroy(norm);
	mmc_test_layout_release(&layout);
	if (err) {
		tap_diag("building snapshot: %s", err->message);
		mmc_error_destroy(err);
		mmc_snapshot_destroy(snap);
		return NULL;
	}
	return snap;
}

/* Render into a malloc'd string. */
#define RENDER(buf, call) do { \
	size_t len_; FILE *f_ = open_memstream(&(buf), &len_); \
	if (f_) { FILE *out = f_; call; fclose(f_); } else { (buf) = NULL; } \
} while (0)

static bool have_python(void)
{
	return access("/usr/bin/python3", X_OK) == 0;
}

/* Feed text to a python3 checker; true if it exits 0. */
static bool py_accepts(const char *code, const char *text)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c '%s' >/dev/null 2>&1", code);
	p = popen(cmd, "w");
	if (!p)
		return false;
	fputs(text, p);
	return pclose(p) == 0;
}

static void check_json(const char *what, const char *text)
{
	if (!have_python()) {
		tap_ok(1, "%s: JSON # SKIP no python3", what);
		return;
	}
	if (!tap_ok(text && py_accepts("import json,sys; json.load(sys.stdin)", text),
		    "%s: valid JSON", what))
		tap_diag("%s", text ? text : "(null)");
}

static void check_xml(const char *what, const char *text)
{
	if (!have_python()) {
		tap_ok(1, "%s: XML # SKIP no python3", what);
		return;
	}
	if (!tap_ok(text && py_accepts("import sys, xml.dom.minidom as m; m.parseString(sys.stdin.buffer.read())", text),
		    "%s: well-formed XML", what))
		tap_diag("%s", text ? text : "(null)");
}

static void has(const char *what, const char *text, const char *needle)
{
	char shown[160];
	size_t n = 0;

	/* TAP test names must stay on one line */
	for (const char *c = needle; *c && n + 3 < sizeof(shown); c++) {
		if (*c == '\n') {
			shown[n++] = '\\';
			shown[n++] = 'n';
		} else {
			shown[n++] = *c;
		}
	}
	shown[n] = 0;
	if (!tap_ok(text && strstr(text, needle), "%s: has \"%s\"", what, shown))
		tap_diag("got:\n%s", text ? text : "(null)");
}

static void first_line(const char *what, const char *text, const char *line)
{
	size_t n = strlen(line);

	if (!tap_ok(text && strncmp(text, line, n) == 0 && text[n] == '\n',
		    "%s: first line \"%s\"", what, line))
		tap_diag("got:\n%s", text ? text : "(null)");
}

static void init_ranges(struct mmc_diff_range *r)
{
	memset(r, 0, 2 * sizeof(*r));
	for (int i = 0; i < 2; i++) {
		r[i].start_pfn = starts[i];
		r[i].end_pfn = starts[i] + NPAGES;
		r[i].a_index = r[i].b_index = i;
		r[i].compared = NPAGES;
	}
}

static void test_diff(const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	struct mmc_diff_range ranges[2];
	struct mmc_diff_group group;
	struct mmc_diff_page page;
	char *pd[1] = { (char *)"pgmap#0 vmemmap_shift: 9 vs 0" };
	struct mmc_diff_result res;
	char *t = NULL, *j = NULL, *k = NULL, *x = NULL;

	/* identical */
	memset(&res, 0, sizeof(res));
	init_ranges(ranges);
	res.verdict = MMC_IDENTICAL;
	res.pages_compared = 2 * NPAGES;
	res.nranges = 2;
	res.ranges = ranges;
	RENDER(t, mmc_report_diff(out, a, b, &res, MMC_FMT_TEXT));
	first_line("diff identical text", t, "identical: 2048 pages in 2 ranges, nothing unread");
	RENDER(j, mmc_report_diff(out, a, b, &res, MMC_FMT_JSON));
	check_json("diff identical", j);
	has("diff identical json", j, "\"verdict\":\"identical\"");
	RENDER(k, mmc_report_diff(out, a, b, &res, MMC_FMT_KTAP));
	has("diff identical ktap", k, "KTAP version 1\n1..2\n");
	has("diff identical ktap", k, "ok 1 range 0x100000-0x100400 devdax\n");
	has("diff identical ktap", k, "ok 2 range 0x200000-0x200400 devdax\n");
	tap_ok(k && !strstr(k, "not ok"), "diff identical ktap: no \"not ok\"");
	RENDER(x, mmc_report_diff(out, a, b, &res, MMC_FMT_JUNIT));
	check_xml("diff identical junit", x);
	tap_ok(x && !strstr(x, "<failure"), "diff identical junit: no failure");
	free(t); free(j); free(k); free(x);

	/* different: 511 tails of range 0 */
	ranges[0].differing = 511;
	ranges[0].verdict = MMC_DIFFERENT;
	ranges[0].nfields = 2;
	snprintf(ranges[0].fields[0].name, sizeof(ranges[0].fields[0].name), "compound_head");
	ranges[0].fields[0].pages = 511;
	snprintf(ranges[0].fields[1].name, sizeof(ranges[0].fields[1].name), "_mapcount+_refcount");
	ranges[0].fields[1].pages = 3;
	memset(&group, 0, sizeof(group));
	group.first_pfn = 0x100001;
	group.last_pfn = 0x1001ff;
	group.npages = 511;
	snprintf(group.fields, sizeof(group.fields), "compound_head");
	memset(&page, 0, sizeof(page));
	page.pfn = 0x100001;
	page.tail_index = 1;
	mmc_snapshot_get(a, 0, 0x100001, &page.a);
	mmc_snapshot_get(a, 0, 0x100002, &page.b);	/* a different tail: delta -2 */
	page.slot_mask = 1u << 1;
	res.verdict = MMC_DIFFERENT;
	res.pages_differing = 511;
	res.ngroups = 1;
	res.groups_total = 1;
	res.groups = &group;
	res.npages = 1;
	res.pages = &page;
	res.npgmap_diffs = 1;
	res.pgmap_diffs = pd;
	RENDER(t, mmc_report_diff(out, a, b, &res, MMC_FMT_TEXT));
	first_line("diff different text", t,
		   "different: 511 of 2048 pages in 1 of 2 ranges differ, 1 pgmap difference");
	has("diff different text", t, "compound_head");
	has("diff different text", t, "0x100001-0x1001ff");
	has("diff different text", t, "page-1+1");
	has("diff different text", t, "page-2+1");
	has("diff different text", t, "pgmap#0 vmemmap_shift: 9 vs 0");
	RENDER(j, mmc_report_diff(out, a, b, &res, MMC_FMT_JSON));
	check_json("diff different", j);
	has("diff different json", j, "\"pages_differing\":511");
	has("diff different json", j, "\"fields\":{\"compound_head\":511");
	has("diff different json", j, "\"raw\":\"0xffffea0004000001\"");
	RENDER(k, mmc_report_diff(out, a, b, &res, MMC_FMT_KTAP));
	has("diff different ktap", k, "not ok 1 range 0x100000-0x100400 devdax\n");
	has("diff different ktap", k, "# compound_head: 511 pages\n");
	has("diff different ktap", k, "ok 2 range 0x200000-0x200400 devdax\n");
	RENDER(x, mmc_report_diff(out, a, b, &res, MMC_FMT_JUNIT));
	check_xml("diff different junit", x);
	has("diff different junit", x, "failures=\"1\"");
	has("diff different junit", x, "<failure type=\"different\" message=\"511 of 1024 pages differ\">");
	free(t); free(j); free(k); free(x);

	/* incomplete: 64 pages of range 1 unreadable in the patched image */
	init_ranges(ranges);
	ranges[1].unreadable_b = 64;
	ranges[1].compared = NPAGES - 64;
	ranges[1].verdict = MMC_INCOMPLETE;
	memset(&res, 0, sizeof(res));
	res.verdict = MMC_INCOMPLETE;
	res.pages_compared = 2 * NPAGES - 64;
	res.pages_unreadable = 64;
	res.nranges = 2;
	res.ranges = ranges;
	RENDER(t, mmc_report_diff(out, a, b, &res, MMC_FMT_TEXT));
	first_line("diff incomplete text", t,
		   "incomplete: 64 pages unreadable in 1 range (0x200000-0x200400 patched), no difference in the 1984 pages read");
	RENDER(j, mmc_report_diff(out, a, b, &res, MMC_FMT_JSON));
	check_json("diff incomplete", j);
	has("diff incomplete json", j, "\"verdict\":\"incomplete\"");
	RENDER(k, mmc_report_diff(out, a, b, &res, MMC_FMT_KTAP));
	has("diff incomplete ktap", k, "ok 2 range 0x200000-0x200400 devdax # SKIP");
	RENDER(x, mmc_report_diff(out, a, b, &res, MMC_FMT_JUNIT));
	check_xml("diff incomplete junit", x);
	has("diff incomplete junit", x, "<skipped message=");
	free(t); free(j); free(k); free(x);
}

static void test_lint_render(const struct mmc_snapshot *good, const struct mmc_snapshot *bad)
{
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err;
	char *t = NULL, *j = NULL, *k = NULL, *x = NULL;

	err = mmc_lint(good, NULL, &res);
	if (!tap_ok(!err, "lint good snapshot")) {
		mmc_error_destroy(err);
		return;
	}
	RENDER(t, mmc_report_lint(out, good, res, MMC_FMT_TEXT));
	/* the fixture's snapshot was not made by discovery: no dax ranges */
	first_line("lint clean text", t, "clean: 2048 pages in 2 ranges; "
		   "dax-range not checked in 2 device-dax ranges: not looked for");
	RENDER(j, mmc_report_lint(out, good, res, MMC_FMT_JSON));
	check_json("lint clean", j);
	RENDER(k, mmc_report_lint(out, good, res, MMC_FMT_KTAP));
	has("lint clean ktap", k, "ok 1 range 0x100000-0x100400 devdax\n");
	tap_ok(k && !strstr(k, "not ok"), "lint clean ktap: no \"not ok\"");
	free(t); free(j); free(k);
	mmc_lint_result_destroy(res);

	err = mmc_lint(bad, NULL, &res);
	if (!tap_ok(!err, "lint bad snapshot")) {
		mmc_error_destroy(err);
		return;
	}
	RENDER(t, mmc_report_lint(out, bad, res, MMC_FMT_TEXT));
	first_line("lint bad text", t,
		   "1 violation in 1 rule (2048 pages in 2 ranges checked); "
		   "dax-range not checked in 2 device-dax ranges: not looked for");
	has("lint bad text", t, "refcount");
	has("lint bad text", t, "0x100007");
	RENDER(j, mmc_report_lint(out, bad, res, MMC_FMT_JSON));
	check_json("lint bad", j);
	has("lint bad json", j, "\"rules\":{\"refcount\":1}");
	RENDER(k, mmc_report_lint(out, bad, res, MMC_FMT_KTAP));
	has("lint bad ktap", k, "not ok 1 range 0x100000-0x100400 devdax\n");
	has("lint bad ktap", k,
	    "# refcount: pfn 0x100007 (1 pages): tail _refcount 1, expected 0 (memmap_init_compound())\n");
	has("lint bad json", j, "\"rule_sources\":{\"refcount\":");
	RENDER(x, mmc_report_lint(out, bad, res, MMC_FMT_JUNIT));
	check_xml("lint bad junit", x);
	has("lint bad junit", x, "failures=\"1\"");
	free(t); free(j); free(k); free(x);
	mmc_lint_result_destroy(res);
}

/* Images without any ZONE_DEVICE range: nothing compared, nothing checked,
 * never "identical" or "clean". */
static void test_empty(void)
{
	struct mmc_layout layout;
	struct mmc_geom geom;
	struct mmc_snapshot *e = NULL;
	struct mmc_diff_result *dr = NULL;
	struct mmc_lint_result *lr = NULL;
	struct mmc_error *err;
	char *t = NULL, *j = NULL, *k = NULL;

	if (mmc_test_layout_612(&layout)) {
		tap_ok(0, "empty: layout");
		return;
	}
	mmc_test_geom(&geom);
	err = mmc_snapshot_create(&layout, &geom, "empty.elf", "test_report", &e);
	mmc_test_layout_release(&layout);
	if (!err)
		err = mmc_diff(e, e, NULL, &dr);
	if (!err)
		err = mmc_lint(e, NULL, &lr);
	if (!tap_ok(!err, "empty: diff and lint run")) {
		mmc_error_destroy(err);
		mmc_diff_result_destroy(dr);
		mmc_snapshot_destroy(e);
		return;
	}
	tap_ok(dr->verdict == MMC_INCOMPLETE && dr->no_ranges && dr->pages_compared == 0,
	       "empty diff: incomplete (exit 4), no_ranges");
	RENDER(t, mmc_report_diff(out, e, e, dr, MMC_FMT_TEXT));
	first_line("empty diff text", t,
		   "no ZONE_DEVICE ranges in either image: nothing compared (incomplete)");
	RENDER(j, mmc_report_diff(out, e, e, dr, MMC_FMT_JSON));
	check_json("empty diff", j);
	has("empty diff json", j, "\"verdict\":\"incomplete\"");
	has("empty diff json", j, "\"no_ranges\":true");
	RENDER(k, mmc_report_diff(out, e, e, dr, MMC_FMT_KTAP));
	has("empty diff ktap", k, "1..0 # SKIP no ZONE_DEVICE ranges\n");
	free(t); free(j); free(k);
	tap_ok(lr->verdict == MMC_LINT_INCOMPLETE && lr->incomplete &&
	       (lr->gaps & MMC_LINT_GAP_NO_RANGES) && !lr->violations_total,
	       "empty lint: incomplete (exit 4), no ranges");
	RENDER(t, mmc_report_lint(out, e, lr, MMC_FMT_TEXT));
	first_line("empty lint text", t, "no ZONE_DEVICE ranges: nothing checked (incomplete)");
	RENDER(j, mmc_report_lint(out, e, lr, MMC_FMT_JSON));
	check_json("empty lint", j);
	has("empty lint json", j, "\"incomplete_because\":[\"no ZONE_DEVICE ranges\"]");
	free(t); free(j);
	mmc_lint_result_destroy(lr);
	mmc_diff_result_destroy(dr);
	mmc_snapshot_destroy(e);
}

/* `ranges` in every format. */
static void test_ranges(const struct mmc_snapshot *a)
{
	char *t = NULL, *j = NULL, *k = NULL, *x = NULL;

	RENDER(t, mmc_report_ranges(out, a, MMC_FMT_TEXT));
	has("ranges text", t, "GEOMETRY\n");
	has("ranges text", t, "  vmemmap_base ffffea0000000000");
	has("ranges text", t, "  bases from: not recorded\n");
	has("ranges text", t, "  paging: not recorded\n");
	has("ranges text", t, "PGMAPS\n");
	has("ranges text", t, "DEV_PAGEMAP");
	has("ranges text", t, "MEMORY_DEVICE_GENERIC");
	has("ranges text", t, "RANGES\n");
	has("ranges text", t, "0x200000");
	RENDER(j, mmc_report_ranges(out, a, MMC_FMT_JSON));
	check_json("ranges", j);
	has("ranges json", j, "\"vmemmap_shift\":9");
	has("ranges json", j, "\"geometry\":{\"vmemmap_base\":\"0xffffea0000000000\"");
	has("ranges json", j, "\"bases_from\":\"unknown\",\"pgtable_levels\":0,\"levels_from\":\"unknown\"");
	RENDER(k, mmc_report_ranges(out, a, MMC_FMT_KTAP));
	has("ranges ktap", k, "ok 2 range 0x200000-0x200400 devdax");
	RENDER(x, mmc_report_ranges(out, a, MMC_FMT_JUNIT));
	check_xml("ranges junit", x);
	free(t); free(j); free(k); free(x);
}

/* `show`: one range or all, readable pages and unreadable ones. */
static void test_show(const struct mmc_snapshot *a, const struct mmc_snapshot *u)
{
	char *t = NULL, *j = NULL;

	RENDER(t, mmc_report_show(out, a, 0, MMC_FMT_TEXT));
	has("show text", t, "RANGE 0: pfn 0x100000-0x100400 (1024 pages)");
	has("show text", t, "PFN RANGE");
	has("show text", t, "pfn 0x100000 (1 page)");
	has("show text", t, "pfn 0x100002-0x1001ff (510 pages)");
	has("show text", t, "folio: order 9, nr_pages 512");
	has("show text", t, "PG_head");
	has("show text", t, "TAIL_MAPPING");
	tap_ok(t && !strstr(t, "RANGE 1:"), "show text: only range 0");
	RENDER(j, mmc_report_show(out, a, -1, MMC_FMT_JSON));
	check_json("show", j);
	has("show json", j, "\"nr_pages\":512");
	/* page[1]: the order byte is not a page flag (folio_set_order()) */
	has("show json", j, "\"flags\":\"PG_reserved\",\"flags_order\":9");
	has("show json", j, "\"kind\":\"page[1]\"");
	has("show json", j, "\"deferred_list\":{\"next\":{");
	free(t); free(j);
	RENDER(t, mmc_report_show(out, u, 1, MMC_FMT_TEXT));
	has("show unreadable text", t, "pfn 0x200100-0x20013f (64 pages)");
	has("show unreadable text", t, "*** UNREADABLE");
	RENDER(j, mmc_report_show(out, u, -1, MMC_FMT_JSON));
	check_json("show unreadable", j);
	has("show unreadable json", j, "\"state\":\"unreadable\"");
	free(t); free(j);
}

int main(void)
{
	struct mmc_snapshot *a = make(false, false), *u = make(true, false);
	struct mmc_snapshot *bad = make(false, true);

	if (!a || !u || !bad) {
		tap_ok(0, "snapshots built");
		return tap_done();
	}
	test_ranges(a);
	test_show(a, u);
	test_diff(a, u);
	test_lint_render(a, bad);
	test_empty();

	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(u);
	mmc_snapshot_destroy(bad);
	return tap_done();
}
