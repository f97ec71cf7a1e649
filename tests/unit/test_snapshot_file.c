// SPDX-License-Identifier: GPL-2.0-or-later
/* The snapshot file: a round trip keeping everything the snapshot holds,
 * version 5's pools, memory blocks, range kinds and protection, and every
 * kind of corrupt file giving an error with file + offset.  test_snapshot
 * has the building. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "hand_snapshot.h"
#include "layout_fixture.h"
#include "slurp.h"
#include "snapshot.h"
#include "snapshot_image.h"
#include "tap.h"

/* The range header of version 5 (doc/SNAPSHOT-FORMAT.md): 7 x u64, 2 x
 * u32, kind u8, owner u32, then the two pattern counts. */
#define RNG_KIND 64
#define RNG_OWNER 65
#define RNG_NRUNS 69
#define RNG_HDR 85
/* An hstate record: order, flags, five u64, its name (a str). */
#define HSTATE_BYTES(namelen) (4 + 4 + 5 * 8 + 4 + (namelen))

/* The saved file, or the end of the test when it cannot be read. */
static unsigned char *slurp_or_exit(const char *path, size_t *n)
{
	unsigned char *b = (unsigned char *)slurp(path, n);

	if (!b)
		exit(1);
	return b;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b, 1, n, f) != n)
		exit(1);
	fclose(f);
}

/* Offset of section `tag`'s header. */
static size_t find_section(const unsigned char *b, size_t n, const char *tag)
{
	size_t pos = 24;

	while (pos + 12 <= n) {
		if (!memcmp(b + pos, tag, 4))
			return pos;
		pos += 12 + (size_t)le_get64(b + pos + 4);
	}
	return 0;
}

/* Load `b` from `path`; expect an error naming path, "byte offset" and
 * (if want_off >= 0) that offset. */
static void expect_bad(const char *path, const unsigned char *b, size_t n,
		       long long want_off, const char *what)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	char *msg;
	char offs[48];
	int ok;

	spit(path, b, n);
	err = mmc_snapshot_load(path, &s);
	msg = err ? mmc_error_string(err) : NULL;
	snprintf(offs, sizeof(offs), "byte offset %lld:", want_off);
	ok = err && !s && msg && err->path && !strcmp(err->path, path) &&
	     strstr(msg, "byte offset") &&
	     (want_off < 0 || strstr(msg, offs));
	tap_ok(ok, "%s -> %s", what, msg ? msg : "(no error)");
	free(msg);
	mmc_error_destroy(err);
	mmc_snapshot_destroy(s);
}

/* A range of n identical order-0 records and n * 64 / 4096 frames f. */
static struct mmc_error *plain_range(struct mmc_snapshot *s, const struct mmc_srange *r,
				     const struct mmc_vframe *f)
{
	struct mmc_error *err = mmc_snapshot_begin_range(s, r);
	struct mmc_nrec rec;
	uint64_t i;

	gen(R2_START + 100, &rec);
	for (i = r->start_pfn; i < r->end_pfn && !err; i++)
		err = mmc_snapshot_append(s, &rec);
	for (i = 0; i < (r->end_pfn - r->start_pfn) * 64 / 4096 && !err; i++)
		err = mmc_snapshot_append_vframe(s, f);
	return err ? err : mmc_snapshot_end_range(s);
}

static void expect_err(struct mmc_error *err, const char *what)
{
	tap_ok(err != NULL, "%s: refused (%s)", what, err ? err->message : "accepted");
	mmc_error_destroy(err);
}

/*
 * What test_snapshot's test_built records beside the pages (a discovery
 * problem, a note, a partial device-dax read), so that the file has those
 * sections to keep and to damage: the round trip and the damage offsets
 * below count on them.
 */
static void annotate(struct mmc_snapshot *s)
{
	const struct mmc_dax_span span = { 0, R1_START + 2, R1_START + R1_PAGES };

	mmc_snapshot_set_discovery_problem(s, "reading struct dev_pagemap at 0xffff888004200000: dump truncated",
					   true, 0xffff888004200000ULL);
	die(mmc_snapshot_add_note(s, "test.elf: dump truncated: the file is 100 bytes, its headers need 200"));
	die(mmc_snapshot_set_dax(s, MMC_DAX_PARTIAL,
				 "reading dev_dax.ranges at 0xffff888004300218: excluded", &span, 1));
}

/* Save and load: everything the file holds comes back equal. */
static void test_round_trip(const struct mmc_snapshot *s, const char *path)
{
	struct mmc_snapshot *t = NULL;
	struct mmc_error *err;
	size_t n;

	err = mmc_snapshot_save(s, path);
	tap_ok(!err, "save");
	mmc_error_destroy(err);
	n = file_size(path);
	tap_diag("file: %zu bytes for %llu pages in %llu runs", n,
		 (unsigned long long)mmc_snapshot_npages(s),
		 (unsigned long long)mmc_snapshot_nruns(s));
	err = mmc_snapshot_load(path, &t);
	if (err)
		mmc_error_fprint(stdout, err), putchar('\n');
	tap_ok(!err && t, "load");
	mmc_error_destroy(err);
	tap_ok(t && mmc_snapshot_equal_content(s, t), "loaded snapshot equals the saved one");
	tap_ok(t && !mmc_snapshot_discovery_complete(t) && mmc_snapshot_nnotes(t) == 1 &&
	       mmc_snapshot_count_unreadable(t, MMC_UR_TRUNCATED) == 4 * 5 &&
	       mmc_snapshot_geom(t)->pgtable_levels == 5 &&
	       mmc_snapshot_geom(t)->base_origin == MMC_BASES_FIXED &&
	       mmc_snapshot_geom(t)->levels_origin == MMC_LEVELS_PAGE_TABLES,
	       "version 2: discovery, notes, reasons and paging geometry survive");
	{
		const struct mmc_dax_span *dax = NULL;
		const char *why = NULL;
		size_t nd = 0;
		enum mmc_dax_state st = t ? mmc_snapshot_dax(t, &dax, &nd, &why) : MMC_DAX_NOT_READ;

		tap_ok(st == MMC_DAX_PARTIAL && nd == 1 && dax[0].pgmap_index == 0 &&
		       dax[0].start_pfn == R1_START + 2 && dax[0].end_pfn == R1_START + R1_PAGES &&
		       !strcmp(why, "reading dev_dax.ranges at 0xffff888004300218: excluded"),
		       "version 4: device-dax ranges, their state and reason survive");
	}
	tap_ok(t && check_all(t, "loaded"), "loaded records read back");
	tap_ok(t && mmc_layout_compare(&layout, mmc_snapshot_layout(t), true) == NULL,
	       "embedded layout equals the original");
	tap_ok(t && !strcmp(mmc_snapshot_info(t)->dump, "test.elf") &&
	       !strcmp(mmc_snapshot_info(t)->release, "6.12.117") &&
	       mmc_snapshot_info(t)->layout_fingerprint == mmc_layout_fingerprint(&layout),
	       "info survives");
	tap_ok(mmc_snapshot_equal_content(s, s), "equal_content is reflexive");
	mmc_snapshot_destroy(t);

}

/*
 * The damage groups below: b is the file as saved, c a scratch copy of n
 * bytes they damage and write to the path bad.
 */

/* Cut short, bytes flipped, magic, version and size damaged. */
static void test_damaged_header(const unsigned char *b, unsigned char *c, size_t n,
				const char *bad)
{
	size_t i;

	{
		size_t cuts[] = { 0, 5, 23, 24, 40, n / 3, n / 2, n - 9, n - 1 };

		for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			char what[64];

			snprintf(what, sizeof(what), "truncated to %zu bytes", cuts[i]);
			expect_bad(bad, b, cuts[i], -1, what);
		}
	}
	{
		size_t flips[] = { 30, 100, n / 2, n - 20, n - 3 };

		for (i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
			char what[64];

			memcpy(c, b, n);
			c[flips[i]] ^= 0x10;
			snprintf(what, sizeof(what), "byte %zu flipped", flips[i]);
			expect_bad(bad, c, n, (long long)n - 8, what);
		}
	}
	memcpy(c, b, n);
	c[0] = 'X';
	expect_bad(bad, c, n, 0, "bad magic");
	memcpy(c, b, n);
	c[8] = 99;
	expect_bad(bad, c, n, 8, "bad version");
	memcpy(c, b, n);
	le_put64(c + 16, (uint64_t)n + 100);
	expect_bad(bad, c, n, 16, "header size disagrees with file size");

}

/* The range section's counts, runs and their patterns. */
static void test_damaged_runs(const unsigned char *b, unsigned char *c, size_t n,
			      const char *bad)
{
	size_t rng;

	rng = find_section(b, n, "RNGS");
	tap_ok(rng != 0, "ranges section found at %zu", rng);
	/* range count */
	memcpy(c, b, n);
	c[rng + 12 + 3] = 0x7f;
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12, "huge range count");
	/* run count of range 0 */
	memcpy(c, b, n);
	le_put64(c + rng + 12 + 4 + RNG_NRUNS, 1ULL << 60);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_NRUNS, "huge run count");
	/* first run's page count */
	memcpy(c, b, n);
	le_put64(c + rng + 12 + 4 + RNG_HDR, 1ULL << 40);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR, "run count beyond the range");
	memcpy(c, b, n);
	le_put64(c + rng + 12 + 4 + RNG_HDR, 0);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR, "run of zero pages");
	/* state, role, nslots, slot class of the first run */
	memcpy(c, b, n);
	c[rng + 12 + 4 + RNG_HDR + 12 + 8] = 9;
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR + 12 + 8, "page state out of range");
	memcpy(c, b, n);
	c[rng + 12 + 4 + RNG_HDR + 12 + 9] = 9;
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR + 12 + 9, "page role out of range");
	memcpy(c, b, n);
	c[rng + 12 + 4 + RNG_HDR + 12 + 10] = 200;
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR + 12 + 10, "nslots > MMC_MAX_SLOTS");
	memcpy(c, b, n);
	c[rng + 12 + 4 + RNG_HDR + 12 + 11] = 3;
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR + 12 + 11, "a read page with an unread reason");
	memcpy(c, b, n);
	c[rng + 12 + 4 + RNG_HDR + 12 + 12] = 77;
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR + 12 + 12, "slot class out of range");
	/* version 3: the first pattern's repetitions and body */
	memcpy(c, b, n);
	le_put32(c + rng + 12 + 4 + RNG_HDR + 8, 0);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR, "pattern of no runs");
	memcpy(c, b, n);
	le_put32(c + rng + 12 + 4 + RNG_HDR + 8, 0x7fffffff);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_HDR + 8, "pattern of more runs than the file holds");
}

/* The discovery and geometry sections. */
static void test_damaged_discovery_geometry(const unsigned char *b, unsigned char *c,
					    size_t n, const char *bad)
{
	/* the discovery section */
	{
		size_t disc = find_section(b, n, "DISC");

		tap_ok(disc != 0, "discovery section found at %zu", disc);
		memcpy(c, b, n);
		c[disc + 12] = 1;	/* complete, yet a problem is named */
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)disc + 12, "complete discovery with a problem");
		memcpy(c, b, n);
		c[disc + 12] = 2;
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)disc + 12, "discovery flag 2");
	}
	/* geometry: paging depth */
	{
		size_t g = find_section(b, n, "GEOM");

		memcpy(c, b, n);
		c[g + 12 + 124] = 3;
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)g + 12 + 124, "3 page-table levels");
	}
}

/*
 * A range's pgmap, owner, vframe protection and end; the range section's
 * length; the embedded layout.
 */
static void test_damaged_range_fields(const unsigned char *b, unsigned char *c, size_t n,
				      const char *bad)
{
	size_t rng = find_section(b, n, "RNGS");

	/* pgmap index of range 0 */
	memcpy(c, b, n);
	c[rng + 12 + 4 + 16] = 5;
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + 16, "range names a missing pgmap");
	/* version 5: a pgmap's range whose owner is another pgmap */
	memcpy(c, b, n);
	le_put32(c + rng + 12 + 4 + RNG_OWNER, 1);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_OWNER, "a pgmap range owned by another pgmap");
	/* version 5: the protection of the last range's one vframe run, the
	 * last bytes of RNGS: a pattern header (12), count, kind, reason,
	 * then prot_known, prot, leaf */
	{
		size_t vrun = find_section(b, n, "DISC") - 61;

		memcpy(c, b, n);
		c[vrun + 10] = 0;	/* writable, yet not recorded */
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)vrun + 10, "a vframe run writable but not recorded");
		memcpy(c, b, n);
		c[vrun + 12] = 0;	/* recorded, no leaf level */
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)vrun + 10, "a vframe run recorded without a leaf");
	}
	/* range end moved: runs no longer sum to the range */
	memcpy(c, b, n);
	le_put64(c + rng + 12 + 4 + 8, R1_START + R1_PAGES + 1);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, -1, "runs do not sum to end_pfn - start_pfn");
	/* section length too large */
	memcpy(c, b, n);
	le_put64(c + rng + 4, 1ULL << 62);
	snapshot_reseal(c, n);
	expect_bad(bad, c, n, (long long)rng + 4, "section length beyond the file");
	/* embedded layout damaged */
	{
		size_t lay = find_section(b, n, "LAYT");

		memcpy(c, b, n);
		memset(c + lay + 12, '#', 16);
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, -1, "damaged embedded layout");
	}
}

/* Every kind of damage to the saved file: an error with file and offset. */
static void test_damaged(const char *path)
{
	char bad[4096];
	size_t n;
	unsigned char *b = slurp_or_exit(path, &n), *c = malloc(n);

	snprintf(bad, sizeof(bad), "%s.bad", path);
	test_damaged_header(b, c, n, bad);
	test_damaged_runs(b, c, n, bad);
	test_damaged_discovery_geometry(b, c, n, bad);
	test_damaged_range_fields(b, c, n, bad);
	free(b);
	free(c);
	unlink(bad);
}

/*
 * Version 5: a vmemmap frame's protection is recorded only where there is
 * a translation, and only with bits this build knows; ranges name HugeTLB
 * pools and memory blocks, which survive a save and load.
 */
static void test_v5(const char *path)
{
	struct mmc_shstate hs[2];
	struct mmc_sfolios fs[3];
	struct mmc_smemblock mb;
	struct mmc_snapshot *s = NULL, *t = NULL;
	struct mmc_srange r;
	struct mmc_vframe vf;
	struct mmc_error *err;

	err = mmc_snapshot_create(&layout, &geom, "v5", "test", &s);
	if (err) {
		mmc_error_fprint(stdout, err);
		exit(1);
	}
	memset(hs, 0, sizeof(hs));
	hs[0].order = 9;
	hs[0].flags = MMC_HSTATE_HVO;
	hs[0].nr = 6;
	hs[0].free = 4;
	snprintf(hs[0].name, sizeof(hs[0].name), "hugepages-2048kB");
	hs[1].order = 18;
	hs[1].nr = hs[1].free = 1;
	snprintf(hs[1].name, sizeof(hs[1].name), "hugepages-1048576kB");
	memset(fs, 0, sizeof(fs));
	fs[0] = (struct mmc_sfolios){ .hstate = 0, .start_pfn = 0x200000, .nfolios = 4,
				      .list = MMC_FOLIO_FREE, .vmemmap = MMC_FVM_OPTIMISED };
	fs[1] = (struct mmc_sfolios){ .hstate = 0, .start_pfn = 0x200800, .nfolios = 2,
				      .list = MMC_FOLIO_ACTIVE, .vmemmap = MMC_FVM_PLAIN };
	fs[2] = (struct mmc_sfolios){ .hstate = 1, .start_pfn = 0x240000, .nfolios = 1,
				      .list = MMC_FOLIO_FREE, .vmemmap = MMC_FVM_OPTIMISED };
	memset(&mb, 0, sizeof(mb));
	mb.id = 24;
	mb.start_pfn = 0x300000;
	mb.end_pfn = 0x308000;
	mb.state = 1;
	mb.flags = MMC_MEMBLOCK_SELF_HOSTED;
	mb.altmap_pfns = 512;

	/* tables that cannot be */
	expect_err(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "why?", hs, 2, fs, 3),
		   "HugeTLB read completely, yet a reason");
	expect_err(mmc_snapshot_set_hugetlb(s, MMC_READ_NOT, "no layout", hs, 2, NULL, 0),
		   "HugeTLB not read, yet hstates");
	hs[1].order = 0;
	expect_err(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", hs, 2, fs, 3),
		   "an hstate of order 0");
	hs[1].order = 18;
	fs[1].start_pfn = 0x200600;
	expect_err(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", hs, 2, fs, 3),
		   "folio spans overlapping (4 folios of 512 from 0x200000 reach 0x200800)");
	fs[1].start_pfn = 0x200800;
	fs[2].hstate = 2;
	expect_err(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", hs, 2, fs, 3),
		   "a folio span naming a missing hstate");
	fs[2].hstate = 1;
	fs[2].list = MMC_FOLIO_LISTS;
	expect_err(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", hs, 2, fs, 3),
		   "a folio on no list this build knows");
	fs[2].list = MMC_FOLIO_FREE;
	mb.altmap_pfns = 0x9000;
	expect_err(mmc_snapshot_set_hotplug(s, MMC_READ_DONE, "", &mb, 1),
		   "a memory block's altmap larger than the block");
	mb.altmap_pfns = 512;
	mb.flags = 0;
	expect_err(mmc_snapshot_set_hotplug(s, MMC_READ_DONE, "", &mb, 1),
		   "altmap pfns without the altmap flag");
	mb.flags = MMC_MEMBLOCK_SELF_HOSTED;

	err = mmc_snapshot_set_hugetlb(s, MMC_READ_PARTIAL,
				       "reading hstates[0].hugepage_activelist at 0xffffffff83001234: the list does not come back",
				       hs, 2, fs, 3);
	if (!err)
		err = mmc_snapshot_set_hotplug(s, MMC_READ_DONE, "", &mb, 1);
	tap_ok(!err, "HugeTLB pools and a memory block set");
	mmc_error_destroy(err);

	/* ranges naming their owners */
	memset(&r, 0, sizeof(r));
	r.start_pfn = 0x200000;
	r.end_pfn = 0x200c00;
	r.kind = MMC_RANGE_HUGETLB;
	r.pgmap_index = MMC_NO_PGMAP;
	r.owner = 2;
	expect_err(mmc_snapshot_begin_range(s, &r), "a HugeTLB range naming hstate 2 of 2");
	r.owner = 0;
	r.pgmap_index = 0;
	expect_err(mmc_snapshot_begin_range(s, &r), "a HugeTLB range naming a pgmap");
	r.pgmap_index = MMC_NO_PGMAP;
	r.kind = MMC_RANGE_KINDS;
	expect_err(mmc_snapshot_begin_range(s, &r), "a range of an unknown kind");
	r.kind = MMC_RANGE_HUGETLB;

	/* the frames' protection */
	memset(&vf, 0, sizeof(vf));
	vf.kind = MMC_VF_RAM;
	vf.leaf = MMC_VLEAF_PTE;
	vf.prot_known = MMC_VPROT_WRITABLE;
	vf.prot = MMC_VPROT_WRITABLE;
	err = mmc_snapshot_begin_range(s, &r);
	tap_ok(!err, "a HugeTLB range begins");
	mmc_error_destroy(err);
	{
		struct mmc_vframe b = vf;

		b.prot_known = 0;
		expect_err(mmc_snapshot_append_vframe_run(s, &b, NULL, 1),
			   "writable, yet the protection not recorded");
		b = vf;
		b.prot_known = b.prot = 0x80;
		expect_err(mmc_snapshot_append_vframe_run(s, &b, NULL, 1),
			   "a protection bit this build does not know");
		b = vf;
		b.leaf = MMC_VLEAF_NONE;
		expect_err(mmc_snapshot_append_vframe_run(s, &b, NULL, 1),
			   "a recorded protection without a leaf level");
		b = vf;
		b.leaf = 4;
		expect_err(mmc_snapshot_append_vframe_run(s, &b, NULL, 1), "leaf level 4");
		b = vf;
		b.kind = MMC_VF_UNMAPPED;
		expect_err(mmc_snapshot_append_vframe_run(s, &b, NULL, 1),
			   "a protection for an unmapped vmemmap page");
	}
	err = NULL;
	for (uint64_t p = r.start_pfn; p < r.end_pfn && !err; p++) {
		struct mmc_nrec rec;

		gen(R2_START + 100, &rec);
		err = mmc_snapshot_append(s, &rec);
	}
	/* 48 frames: read-only but for every 8th (a head's) */
	for (uint64_t i = 0; i < 48 && !err; i++) {
		vf.prot = i % 8 ? 0 : MMC_VPROT_WRITABLE;
		vf.paddr = 0x7000000 + i * 4096;
		err = mmc_snapshot_append_vframe(s, &vf);
	}
	if (!err)
		err = mmc_snapshot_end_range(s);
	tap_ok(!err, "HugeTLB range built");
	mmc_error_destroy(err);
	TAP_EQ_U64(mmc_snapshot_range_nvframe_runs(s, 0), 12,
		   "a change of protection ends a vframe run (6 writable, 6 read-only runs)");
	expect_err(mmc_snapshot_set_hugetlb(s, MMC_READ_DONE, "", hs, 2, fs, 3),
		   "HugeTLB pools set after a range");
	memset(&r, 0, sizeof(r));
	r.start_pfn = 0x300000;
	r.end_pfn = 0x308000;
	r.kind = MMC_RANGE_HOTPLUG;
	r.pgmap_index = MMC_NO_PGMAP;
	r.altmap_start = 0x300000;
	r.altmap_end = 0x300200;
	vf.kind = MMC_VF_DEVICE;
	vf.prot = MMC_VPROT_WRITABLE;
	vf.paddr = 0x300000ULL << 12;
	err = plain_range(s, &r, &vf);
	tap_ok(!err, "a hot-plug range built");
	mmc_error_destroy(err);

	err = mmc_snapshot_save(s, path);
	if (!err)
		err = mmc_snapshot_load(path, &t);
	tap_ok(!err && t && mmc_snapshot_equal_content(s, t),
	       "version 5 round trip: pools, blocks, kinds, owners and protection equal");
	mmc_error_destroy(err);
	if (t) {
		const struct mmc_shstate *h;
		const struct mmc_sfolios *f;
		const struct mmc_smemblock *b;
		const char *why;
		size_t nh, nf, nb;
		struct mmc_vframe g;

		tap_ok(mmc_snapshot_hugetlb(t, &h, &nh, &f, &nf, &why) == MMC_READ_PARTIAL &&
		       nh == 2 && nf == 3 && h[0].order == 9 && h[0].flags == MMC_HSTATE_HVO &&
		       !strcmp(h[1].name, "hugepages-1048576kB") && f[1].start_pfn == 0x200800 &&
		       f[1].list == MMC_FOLIO_ACTIVE && f[1].vmemmap == MMC_FVM_PLAIN &&
		       strstr(why, "does not come back"), "HugeTLB pools read back");
		tap_ok(mmc_snapshot_hotplug(t, &b, &nb, &why) == MMC_READ_DONE && nb == 1 &&
		       b[0].altmap_pfns == 512 && b[0].id == 24 && !*why,
		       "memory block read back");
		tap_ok(mmc_snapshot_range(t, 0)->kind == MMC_RANGE_HUGETLB &&
		       mmc_snapshot_range(t, 0)->pgmap_index == MMC_NO_PGMAP &&
		       mmc_snapshot_range(t, 1)->kind == MMC_RANGE_HOTPLUG,
		       "range kinds read back");
		mmc_snapshot_range_vframe(t, 0, 9, &g);
		tap_ok(g.prot == 0 && g.prot_known == MMC_VPROT_WRITABLE && g.leaf == MMC_VLEAF_PTE,
		       "frame 9: read-only, recorded, PTE");
		mmc_snapshot_range_vframe(t, 0, 16, &g);
		tap_ok(g.prot == MMC_VPROT_WRITABLE, "frame 16: writable");
	}
	mmc_snapshot_destroy(t);
	mmc_snapshot_destroy(s);

	/* the file, damaged where version 5 added bytes */
	{
		size_t n, huge, rng;
		unsigned char *b = slurp_or_exit(path, &n), *c = malloc(n);
		char bad[4096];

		snprintf(bad, sizeof(bad), "%s.bad5", path);
		huge = find_section(b, n, "HUGE");
		rng = find_section(b, n, "RNGS");
		tap_ok(huge && rng && find_section(b, n, "HPLG") > huge &&
		       rng > find_section(b, n, "HPLG"),
		       "sections HUGE, HPLG before RNGS");
		size_t why_len = strlen("reading hstates[0].hugepage_activelist at 0xffffffff83001234: the list does not come back");

		memcpy(c, b, n);
		le_put32(c + huge + 12 + 1 + 4 + why_len, 1000);
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)(huge + 12 + 1 + 4 + why_len),
			   "hstate count beyond the section");
		memcpy(c, b, n);
		c[huge + 12 + 1 + 4 + why_len + 4 + HSTATE_BYTES(16) + HSTATE_BYTES(19) + 4 + 24] = 3;
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)huge + 12, "a folio span on list 3");
		memcpy(c, b, n);
		c[rng + 12 + 4 + RNG_KIND] = 7;
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)rng + 12 + 4 + RNG_KIND, "range kind 7");
		memcpy(c, b, n);
		le_put32(c + rng + 12 + 4 + RNG_OWNER, 5);
		snapshot_reseal(c, n);
		expect_bad(bad, c, n, (long long)rng + 12 + 4, "HugeTLB range naming hstate 5");
		/* the first vframe run of range 0: after its page patterns */
		free(b);
		free(c);
		unlink(bad);
	}
}

int main(void)
{
	struct mmc_snapshot *s, *t = NULL;
	struct mmc_error *err;
	char path[] = "/tmp/mmc-test-snap-XXXXXX";
	int fd;

	if (image_init())
		return 1;

	s = build();
	annotate(s);

	/* the file the save, load and damage tests share */
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	test_round_trip(s, path);
	test_damaged(path);
	test_v5(path);
	err = mmc_snapshot_load("/nonexistent/x.snap", &t);
	tap_ok(err && err->code == MMC_ERR_OS && !t, "missing file -> OS error");
	mmc_error_destroy(err);

	unlink(path);
	mmc_snapshot_destroy(s);
	mmc_test_layout_release(&layout);
	return tap_done();
}
