// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Difference map (report_svg): hand-built snapshot pairs whose differing
 * pfns the test knows from its own mutation, rendered and read back from
 * the SVG text: every column holding a mutated pfn is painted in the
 * mutated field's row, no other column is; heads, tails and the altmap
 * reserve land in their rows; an identical pair paints nothing red; a
 * 100 GiB range (26 M pages) renders in bounded size and time; bad output
 * directories are errors naming the path.  (The rendered pixels are checked
 * in tests/svgmap.t with a headless browser.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "report_svg.h"
#include "slurp.h"
#include "tap.h"

#define ZONE_BITS (4ULL << 61)
#define PG_RESERVED (1ULL << 13)
#define PG_HEAD (1ULL << 6)	/* the fixture's enum pageflags */
#define DELTA 0xdead000000000000ULL
#define RED "#d62728"

#define R1_START 0x100000ULL	/* devdax, 2M compound pages */
#define R1_PAGES 8192ULL	/* 16 compound pages */
#define R2_START 0x140000ULL	/* order-0, 16 reserve pfns first */
#define R2_PAGES 3000ULL
#define R2_RESERVE 16ULL

static struct mmc_layout layout;

/* The base image's record at pfn (6.12-like, sizeof(struct page) 64). */
static void gen(uint64_t pfn, struct mmc_nrec *r)
{
	memset(r, 0, sizeof(*r));
	r->nslots = 8;
	if (pfn >= R1_START && pfn < R1_START + R1_PAGES) {
		uint64_t k = (pfn - R1_START) % 512;

		if (k == 0) {
			r->slot[0] = raw(ZONE_BITS | PG_RESERVED | PG_HEAD);
			r->slot[1] = nv(MMC_V_PGMAP, 0, 0, 0);
			r->slot[6] = raw(0x1ffffffffULL);
			return;
		}
		r->slot[0] = raw(ZONE_BITS | PG_RESERVED);
		r->slot[1] = nv(MMC_V_PAGE, 1, -(int64_t)k, 0);
		r->slot[3] = nv(MMC_V_POISON, 0, 0x400, DELTA + 0x400);
		r->slot[6] = raw(0xffffffffULL);
		return;
	}
	if (pfn - R2_START < R2_RESERVE) {
		r->state = MMC_PS_NOT_INIT;
		r->role = MMC_ROLE_RESERVE;
		r->slot[0] = raw(0x1234 + pfn * 3);
		return;
	}
	r->slot[0] = raw(ZONE_BITS | PG_RESERVED);
	r->slot[1] = nv(MMC_V_PGMAP, 0, 1, 0);
	r->slot[6] = raw(0x1ffffffffULL);
}

/* Mutation of the new image: which pfns, and what. */
struct mut {
	uint64_t lo, hi;	/* pfns [lo, hi) */
	unsigned int slot;	/* slot whose v changes */
	int64_t add;		/* by this much */
};

static struct mmc_snapshot *build(const struct mut *m, size_t nm)
{
	struct mmc_snapshot *s;
	struct mmc_geom g;

	mmc_test_geom(&g);
	die(mmc_snapshot_create(&layout, &g, "t.kdump", "test", &s));
	for (int i = 0; i < 2; i++) {
		struct mmc_spgmap pg;

		memset(&pg, 0, sizeof(pg));
		pg.type = 4;
		snprintf(pg.type_name, sizeof(pg.type_name), "MEMORY_DEVICE_GENERIC");
		pg.vmemmap_shift = i ? 0 : 9;
		pg.nr_range = 1;
		die(mmc_snapshot_add_pgmap(s, &pg));
	}
	for (int i = 0; i < 2; i++) {
		uint64_t start = i ? R2_START : R1_START, n = i ? R2_PAGES : R1_PAGES;
		struct mmc_srange r;
		struct mmc_vframe vf = { .kind = MMC_VF_RAM };

		memset(&r, 0, sizeof(r));
		r.start_pfn = start;
		r.end_pfn = start + n;
		r.pgmap_index = (uint32_t)i;
		if (i) {
			r.reserve_start = start;
			r.reserve_end = start + R2_RESERVE;
		}
		die(mmc_snapshot_begin_range(s, &r));
		for (uint64_t p = start; p < start + n; p++) {
			struct mmc_nrec rec;

			gen(p, &rec);
			for (size_t j = 0; j < nm; j++)
				if (p >= m[j].lo && p < m[j].hi)
					rec.slot[m[j].slot].v += m[j].add;
			die(mmc_snapshot_append(s, &rec));
		}
		for (uint64_t k = 0; k < (n * 64 + 4095) / 4096; k++) {
			vf.paddr = 0x40000000ULL + k * 4096;
			die(mmc_snapshot_append_vframe(s, &vf));
		}
		die(mmc_snapshot_end_range(s));
	}
	return s;
}

static long attr(const char *s, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(s, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Geometry from the SVG root's data attributes. */
struct geo {
	long start, pages, columns, plot_x, colw;
};

static struct geo geo_of(const char *svg)
{
	struct geo g = {
		attr(svg, "data-start-pfn"), attr(svg, "data-pages"),
		attr(svg, "data-columns"), attr(svg, "data-plot-x"),
		attr(svg, "data-column-width"),
	};

	return g;
}

/* Columns painted `colour` in row `row`: marks[c] = 1. Returns false when
 * the row is absent. */
static bool painted(const char *svg, const char *row, const char *colour,
		    unsigned char *marks)
{
	struct geo g = geo_of(svg);
	char key[96];
	const char *p, *end;

	memset(marks, 0, (size_t)g.columns);
	snprintf(key, sizeof(key), "data-row=\"%s\"", row);
	p = strstr(svg, key);
	if (!p)
		return false;
	end = strstr(p, "</g>");
	while ((p = strstr(p, "<rect ")) && p < end) {
		const char *close = strchr(p, '>');
		char tag[256];
		size_t len = (size_t)(close - p);
		long x, w;

		if (len >= sizeof(tag))
			len = sizeof(tag) - 1;
		memcpy(tag, p, len);
		tag[len] = 0;
		p = close;
		if (!strstr(tag, colour))
			continue;
		x = attr(tag, "x");
		w = attr(tag, "width");
		for (long c = (x - g.plot_x) / g.colw; c < (x - g.plot_x + w) / g.colw; c++)
			if (c >= 0 && c < g.columns)
				marks[c] = 1;
	}
	return true;
}

/* Columns that must be painted: those holding a pfn of [lo, hi) by the
 * binning the SVG root declares (column = (pfn - start) * columns / pages). */
static void expect_cols(const struct geo *g, uint64_t lo, uint64_t hi, unsigned char *want)
{
	for (uint64_t p = lo; p < hi; p++)
		if ((long)p >= g->start && (long)p < g->start + g->pages)
			want[(p - (uint64_t)g->start) * (uint64_t)g->columns / (uint64_t)g->pages] = 1;
}

static bool same_cols(const struct geo *g, const unsigned char *a, const unsigned char *b,
		      long *first_bad)
{
	for (long c = 0; c < g->columns; c++)
		if (!a[c] != !b[c]) {
			*first_bad = c;
			return false;
		}
	return true;
}

/* Every group placed on the map. */
static const struct mmc_diff_opts all_groups = { .max_groups = MMC_SVG_MAX_GROUPS };

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/test_report_svg.XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? strdup(d) : NULL;
}

static char *range_file(const char *dir, int i)
{
	char *p;

	if (asprintf(&p, "%s/range-%02d.svg", dir, i) < 0)
		return NULL;
	return p;
}

static void rm_dir(const char *dir)
{
	char *cmd;

	if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0) {
		if (system(cmd) != 0)
			tap_diag("could not remove %s", dir);
		free(cmd);
	}
}

/* 100 GiB range of 2M compound pages (whole runs per compound page); the
 * new image's compound_head of every tail of every 7th compound page is off. */
static struct mmc_snapshot *big(bool mutate)
{
	struct mmc_snapshot *s;
	struct mmc_geom g;
	struct mmc_spgmap pg;
	struct mmc_srange r;
	uint64_t n = 100ULL << 18;

	mmc_test_geom(&g);
	die(mmc_snapshot_create(&layout, &g, "big.kdump", "test", &s));
	memset(&pg, 0, sizeof(pg));
	pg.vmemmap_shift = 9;
	die(mmc_snapshot_add_pgmap(s, &pg));
	memset(&r, 0, sizeof(r));
	r.start_pfn = R1_START;
	r.end_pfn = R1_START + n;
	die(mmc_snapshot_begin_range(s, &r));
	for (uint64_t p = r.start_pfn; p < r.end_pfn; p += 512) {
		struct mmc_nrec rec, stride;

		gen(R1_START, &rec);
		memset(&stride, 0, sizeof(stride));
		stride.nslots = rec.nslots;
		die(mmc_snapshot_append_run(s, &rec, &stride, 1));
		gen(R1_START + 1, &rec);
		if (mutate && (p - R1_START) / 512 % 7 == 3)
			rec.slot[1].v += 1000;
		stride.slot[1].v = -1;
		die(mmc_snapshot_append_run(s, &rec, &stride, 511));
	}
	{
		struct mmc_vframe vf = { .kind = MMC_VF_RAM };

		for (uint64_t k = 0; k < n * 64 / 4096; k++)
			die(mmc_snapshot_append_vframe(s, &vf));
	}
	die(mmc_snapshot_end_range(s));
	return s;
}

/* Identical pair, image a and another build of it: nothing red anywhere. */
static void test_identical_pair(struct mmc_snapshot *a, const char *dir, const char *f0,
				const char *f1)
{
	struct mmc_diff_result *res;
	struct mmc_snapshot *b;
	char *svg0, *svg1;
	unsigned char got[2000], want[2000];
	struct geo g;
	long bad = -1;

	b = build(NULL, 0);
	die(mmc_diff(a, b, &all_groups, &res));
	die(mmc_report_svg(dir, a, b, res, NULL));
	svg0 = slurp(f0, NULL);
	svg1 = slurp(f1, NULL);
	tap_ok(res->verdict == MMC_IDENTICAL && svg0 && svg1,
	       "identical pair: verdict %s, range-00.svg and range-01.svg written",
	       mmc_verdict_name(res->verdict));
	tap_ok(svg0 && svg1 && !strstr(svg0, RED) && !strstr(svg1, RED),
	       "identical pair: no differing colour in either picture");
	g = svg0 ? geo_of(svg0) : (struct geo){ 0 };
	tap_ok(g.start == (long)R1_START && g.pages == (long)R1_PAGES && g.columns == 1000 &&
	       g.colw == 1, "range 0: 8192 pages in 1000 columns of 1 px from pfn 0x100000 "
	       "(start %ld pages %ld columns %ld width %ld)", g.start, g.pages, g.columns, g.colw);
	/* heads at every 512th pfn: exactly their columns in the head row */
	memset(want, 0, sizeof(want));
	for (uint64_t h = R1_START; h < R1_START + R1_PAGES; h += 512)
		expect_cols(&g, h, h + 1, want);
	tap_ok(svg0 && painted(svg0, "head", "#08519c", got) && same_cols(&g, got, want, &bad),
	       "head row: exactly the 16 columns holding a head (first wrong column %ld)", bad);
	memset(want, 0, sizeof(want));
	for (uint64_t h = R1_START; h < R1_START + R1_PAGES; h += 512)
		expect_cols(&g, h + 1, h + 512, want);
	tap_ok(svg0 && painted(svg0, "tail", "#6baed6", got) && same_cols(&g, got, want, &bad),
	       "tail row: every column holding a tail (first wrong column %ld)", bad);
	g = svg1 ? geo_of(svg1) : (struct geo){ 0 };
	memset(want, 0, sizeof(want));
	expect_cols(&g, R2_START, R2_START + R2_RESERVE, want);
	tap_ok(svg1 && g.columns == 1000 && painted(svg1, "altmap reserve", "#e6a817", got) &&
	       same_cols(&g, got, want, &bad),
	       "range 1 (3000 pages): reserve row exactly over the 16 reserve pfns (first wrong column %ld)",
	       bad);
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(b);
	free(svg0);
	free(svg1);
}

/*
 * A mutant of a: compound_head of the tails of compound page 5, and one
 * order-0 page's _refcount, painted exactly in their columns.
 */
static void test_mutant(struct mmc_snapshot *a, const char *dir, const char *f0,
			const char *f1)
{
	struct mmc_diff_result *res;
	struct mmc_snapshot *b;
	char *svg0, *svg1;
	unsigned char got[2000], want[2000];
	struct geo g;
	long bad = -1;
	struct mut m[] = {
		{ R1_START + 5 * 512 + 1, R1_START + 6 * 512, 1, 7 },
		/* the high half of slot 6: _refcount 1 -> 2 */
		{ R2_START + 2021, R2_START + 2022, 6, 1LL << 32 },
	};

	b = build(m, 2);
	die(mmc_diff(a, b, &all_groups, &res));
	die(mmc_report_svg(dir, a, b, res, NULL));
	svg0 = slurp(f0, NULL);
	svg1 = slurp(f1, NULL);
	tap_ok(res->verdict == MMC_DIFFERENT && res->pages_differing == 511 + 1,
	       "mutant: different, %llu pages", (unsigned long long)res->pages_differing);
	g = svg0 ? geo_of(svg0) : (struct geo){ 0 };
	memset(want, 0, sizeof(want));
	expect_cols(&g, m[0].lo, m[0].hi, want);
	tap_ok(svg0 && painted(svg0, "compound_head", RED, got) && same_cols(&g, got, want, &bad),
	       "range 0: compound_head row red exactly over the columns of pfns 0x%llx-0x%llx "
	       "(first wrong column %ld)", (unsigned long long)m[0].lo,
	       (unsigned long long)m[0].hi - 1, bad);
	tap_ok(svg0 && painted(svg0, "any field", RED, got) && same_cols(&g, got, want, &bad),
	       "range 0: 'any field' row the same (first wrong column %ld)", bad);
	g = svg1 ? geo_of(svg1) : (struct geo){ 0 };
	memset(want, 0, sizeof(want));
	expect_cols(&g, m[1].lo, m[1].hi, want);
	tap_ok(svg1 && painted(svg1, "_refcount", RED, got) && same_cols(&g, got, want, &bad),
	       "range 1: one differing page paints its one column in the _refcount row "
	       "(column %ld wrong)", bad);
	tap_ok(svg1 && strstr(svg1, "_refcount: pfn 0x1407e3-0x1407e5, 1 page differs"),
	       "range 1: the cell's tooltip names its 3 pfns 0x1407e3-0x1407e5 and 1 page");
	mmc_diff_result_destroy(res);
	free(svg0);
	free(svg1);

	/* groups beyond the limit are said to be not placed */
	{
		struct mmc_diff_opts few = { .max_groups = 1 };

		die(mmc_diff(a, b, &few, &res));
		die(mmc_report_svg(dir, a, b, res, NULL));
		svg1 = slurp(f1, NULL);
		tap_ok(svg1 && strstr(svg1, "1 differing pages not placed on this map"),
		       "group limit: range 1 says 1 differing page not placed");
		free(svg1);
		mmc_diff_result_destroy(res);
	}
	mmc_snapshot_destroy(b);
}

/* Errors name the path; nothing half-written is left. */
static void test_errors(const char *dir, const char *f0)
{
	struct mmc_diff_result *res;
	struct mmc_snapshot *a;
	struct mmc_error *err;
	char *file, *missing;

	a = build(NULL, 0);
	die(mmc_diff(a, a, &all_groups, &res));
	if (asprintf(&missing, "%s/no/such/dir", dir) < 0 || asprintf(&file, "%s", f0) < 0)
		die(mmc_error_nomem());
	err = mmc_report_svg(missing, a, a, res, NULL);
	tap_ok(err && err->code == MMC_ERR_OS && err->path && !strcmp(err->path, missing),
	       "missing parent directory: OS error naming %s", missing);
	mmc_error_destroy(err);
	err = mmc_report_svg(file, a, a, res, NULL);
	tap_ok(err && err->path && !strcmp(err->path, file),
	       "DIR is a file: error naming it");
	mmc_error_destroy(err);
	if (chmod(dir, 0555) == 0 && access(dir, W_OK) != 0) {
		err = mmc_report_svg(dir, a, a, res, NULL);
		tap_ok(err && err->code == MMC_ERR_OS && err->path && strstr(err->path, dir),
		       "read-only DIR: OS error naming a file in it (%s)",
		       err && err->path ? err->path : "-");
		mmc_error_destroy(err);
	} else if (geteuid() == 0) {
		/* root writes anyway: try it as nobody, in a child */
		pid_t pid = fork();
		int status = -1;

		if (pid == 0) {
			if (setgid(65534) || setuid(65534) || access(dir, W_OK) == 0)
				_exit(2);
			err = mmc_report_svg(dir, a, a, res, NULL);
			_exit(err && err->code == MMC_ERR_OS && err->path &&
			      strstr(err->path, dir) ? 0 : 1);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "read-only DIR, written as uid 65534 (root writes anyway): OS error naming a file in it (child status %d)",
		       status);
	} else {
		tap_ok(1, "# SKIP read-only DIR: running as a user who can write anyway");
	}
	chmod(dir, 0755);
	free(file);
	free(missing);
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(a);
}

/* 100 GiB: bounded size and time. */
static void test_big(const char *dir, const char *f0)
{
	struct mmc_diff_result *res;
	struct mmc_snapshot *a, *b;
	struct timespec t0;
	char *svg0;
	unsigned char got[2000], want[2000];
	struct geo g;
	long bad = -1;
	struct stat st;
	double secs;

	a = big(false);
	b = big(true);
	die(mmc_diff(a, b, &all_groups, &res));
	t0 = tap_cpu_start();
	die(mmc_report_svg(dir, a, b, res, NULL));
	secs = tap_cpu_since(&t0);
	svg0 = slurp(f0, NULL);
	if (stat(f0, &st) != 0)
		st.st_size = -1;
	tap_ok(svg0 && st.st_size > 0 && st.st_size < 600 * 1024 && secs < tap_cpu_limit(2.0),
	       "100 GiB range, %llu groups: %lld bytes in %.3f CPU s",
	       (unsigned long long)res->ngroups, (long long)st.st_size, secs);
	g = svg0 ? geo_of(svg0) : (struct geo){ 0 };
	memset(want, 0, sizeof(want));
	/* every 7th compound page from the 4th: some pfn of it lies in
	 * each column it touches */
	for (uint64_t cp = 3; cp < (100ULL << 18) / 512; cp += 7)
		expect_cols(&g, R1_START + cp * 512 + 1, R1_START + cp * 512 + 2, want),
		expect_cols(&g, R1_START + cp * 512 + 511, R1_START + cp * 512 + 512, want);
	tap_ok(svg0 && g.columns == 1000 && painted(svg0, "compound_head", RED, got) &&
	       same_cols(&g, got, want, &bad),
	       "100 GiB: 1000 columns, every one red (26214 pages each, 7314 differing "
	       "compound pages) (first wrong %ld)", bad);
	free(svg0);
	mmc_diff_result_destroy(res);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

int main(void)
{
	struct mmc_snapshot *a;
	char *dir, *f0, *f1;

	if (mmc_test_layout_612(&layout))
		tap_skip_all("out of memory");

	dir = tmpdir();
	f0 = range_file(dir, 0);
	f1 = range_file(dir, 1);
	a = build(NULL, 0);
	test_identical_pair(a, dir, f0, f1);
	test_mutant(a, dir, f0, f1);
	mmc_snapshot_destroy(a);
	test_errors(dir, f0);
	test_big(dir, f0);
	free(f0);
	free(f1);
	rm_dir(dir);
	free(dir);
	mmc_test_layout_release(&layout);
	return tap_done();
}
