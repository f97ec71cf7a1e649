// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel setup, xarray, discovery, walker and diff end to end on synthetic
 * kcore images: a reboot compares identical, mutants differ exactly where
 * they break, a missing frame makes the result incomplete, corrupt inputs
 * are named errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"
#include "discover.h"
#include "kernel.h"
#include "synth_kernel.h"
#include "synth_open.h"
#include "tap.h"
#include "walk.h"

static char dir[] = "/tmp/mmc-walk-XXXXXX";

static struct mmc_snapshot *snap_of(const struct synth_opts *o, const char *name,
				    struct mmc_walk_stats *st)
{
	struct mmc_kernel *k = NULL;
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err = synth_open(dir, name, o, &k);

	if (!err)
		err = mmc_walk(k, NULL, NULL, &s, st);
	if (err) {
		char *m = mmc_error_string(err);

		tap_diag("%s: %s", name, m ? m : "?");
		free(m);
		mmc_error_destroy(err);
	}
	mmc_kernel_destroy(k);
	return s;
}

static struct mmc_diff_result *diff_of(struct mmc_snapshot *a, struct mmc_snapshot *b)
{
	struct mmc_diff_opts o = { .max_pages = 20, .max_groups = 50 };
	struct mmc_diff_result *r = NULL;
	struct mmc_error *err;

	if (!a || !b)
		return NULL;
	err = mmc_diff(a, b, &o, &r);
	if (err) {
		mmc_error_destroy(err);
		return NULL;
	}
	return r;
}

static const struct synth_opts base = { .bad_tail = -1, .wild_tail = -1 };

/* Discovery on the base image: both pgmaps and their ranges. */
static void test_discovery(void)
{
	struct mmc_kernel *k = NULL;
	struct mmc_discovery *d = NULL;
	struct mmc_error *err;

	err = synth_open(dir, "base.core", &base, &k);
	tap_ok(!err, "synthetic kernel opens");
	if (!err) {
		err = mmc_discover(k, &d);
		tap_ok(!err && d && d->npgmaps == 2 && d->nranges == 2,
		       "discovery finds 2 pgmaps (multi-index entry + sibling)");
		if (d) {
			TAP_EQ_U64(d->ranges[0].start_pfn, SK_R0_PFN, "range 0 start");
			TAP_EQ_U64(d->ranges[1].end_pfn, SK_R1_PFN + 1024, "range 1 end");
			tap_ok(d->pgmaps[1].info.vmemmap_shift == 9 &&
			       !strcmp(d->pgmaps[1].info.type_name, "MEMORY_DEVICE_FS_DAX"),
			       "pgmap 1 decoded: %s shift %u", d->pgmaps[1].info.type_name,
			       d->pgmaps[1].info.vmemmap_shift);
		}
		mmc_discovery_destroy(d);
	}
	mmc_error_destroy(err);
	mmc_kernel_destroy(k);
}

/* The base image's walk, the snapshot the other groups diff against. */
static struct mmc_snapshot *test_base_walk(void)
{
	struct mmc_walk_stats st;
	struct mmc_snapshot *a = snap_of(&base, "a.core", &st);

	tap_ok(a && st.pages == 1536 && st.unreadable == 0, "walk: %llu pages, %llu unreadable",
	       (unsigned long long)st.pages, (unsigned long long)st.unreadable);
	tap_ok(a && mmc_snapshot_nruns(a) < 64, "runs compress: %llu runs",
	       a ? (unsigned long long)mmc_snapshot_nruns(a) : 0ULL);
	if (a) {
		struct mmc_vframe vf;

		mmc_snapshot_range_vframe(a, 1, 5, &vf);
		tap_ok(vf.kind == MMC_VF_RAM && vf.share_back == 4,
		       "vmemmap page 5 of a compound shares page 1's frame (share_back %lld)",
		       (long long)vf.share_back);
		/* every leaf the synthetic tables hold is a present, RW PTE
		 * under RW tables (synth_kernel.h: 0x63 everywhere) */
		{
			uint64_t bad = 0, n = 0;

			for (size_t ri = 0; ri < 2; ri++)
				for (size_t i = 0; i < mmc_snapshot_range_nvframes(a, ri); i++, n++) {
					mmc_snapshot_range_vframe(a, ri, i, &vf);
					bad += vf.prot_known != MMC_VPROT_WRITABLE ||
					       vf.prot != MMC_VPROT_WRITABLE ||
					       vf.leaf != MMC_VLEAF_PTE;
				}
			tap_ok(n == 24 && !bad, "[proof] %llu vmemmap pages writable through PTEs, %llu not",
			       (unsigned long long)n, (unsigned long long)bad);
		}
	}
	return a;
}

/*
 * The shared tail frames mapped read-only (0x61): vmemmap pages 2..7 of
 * each compound page, and nothing else; the diff against a names only
 * their protection.
 */
static void test_ro_shared_tails(struct mmc_snapshot *a)
{
	struct synth_opts o = base;
	struct mmc_snapshot *b;
	struct mmc_diff_result *r;

	o.ro_shared_tails = 1;
	b = snap_of(&o, "ro-tails.core", NULL);
	if (b) {
		uint64_t bad = 0;

		for (size_t ri = 0; ri < 2; ri++)
			for (size_t i = 0; i < mmc_snapshot_range_nvframes(b, ri); i++) {
				struct mmc_vframe vf;
				bool ro = ri == 1 && i % 8 >= 2;

				mmc_snapshot_range_vframe(b, ri, i, &vf);
				bad += vf.prot_known != MMC_VPROT_WRITABLE ||
				       !(vf.prot & MMC_VPROT_WRITABLE) != ro;
			}
		tap_ok(!bad, "[proof] read-only shared tail PTEs: exactly vmemmap pages 2..7 of each compound page read-only (%llu wrong)",
		       (unsigned long long)bad);
	} else {
		tap_ok(0, "ro-tails image walked");
	}
	r = diff_of(a, b);
	{
		uint64_t w = 0, f = 0;

		for (size_t i = 0; r && i < r->nranges; i++)
			for (size_t j = 0; j < r->ranges[i].nfields; j++) {
				if (!strcmp(r->ranges[i].fields[j].name, "vmemmap_writable"))
					w += r->ranges[i].fields[j].pages;
				if (!strcmp(r->ranges[i].fields[j].name, "vmemmap_frame"))
					f += r->ranges[i].fields[j].pages;
			}
		tap_ok(r && r->verdict == MMC_DIFFERENT && r->pages_differing == 0 && w == 12 &&
		       f == 0 && r->ranges[1].vframes_differing == 12,
		       "[proof] diff base vs read-only tails: vmemmap_writable on 12 vmemmap pages (2 compound pages x 6), no struct page, no frame (%llu, %llu)",
		       (unsigned long long)w, (unsigned long long)f);
	}
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);
}

/* A reboot compares identical; mutants and a missing frame do not. */
static void test_reboot_and_mutants(struct mmc_snapshot *a)
{
	struct synth_opts o;
	struct mmc_snapshot *b;
	struct mmc_diff_result *r;
	struct mmc_walk_stats st;

	o = base;
	o.slab_shift = 7;
	o.frame_shift = 3;
	b = snap_of(&o, "reboot.core", NULL);
	r = diff_of(a, b);
	tap_ok(r && r->verdict == MMC_IDENTICAL && r->pages_compared == 1536,
	       "reboot (other pgmap addresses, other frames): identical");
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);

	o = base;
	o.tail_refcount = 1;
	b = snap_of(&o, "mut-refcount.core", NULL);
	r = diff_of(a, b);
	/* 126 written tails per compound (pages 1..127), 2 compounds; the
	 * shared pages read page 64..127's bytes, so they differ too */
	tap_ok(r && r->verdict == MMC_DIFFERENT && r->pages_differing == 1022,
	       "tail refcount 1: different, %llu pages",
	       r ? (unsigned long long)r->pages_differing : 0ULL);
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);

	o = base;
	o.bad_tail = SK_R1_PFN + 512 + 3;
	b = snap_of(&o, "mut-head.core", NULL);
	r = diff_of(a, b);
	tap_ok(r && r->verdict == MMC_DIFFERENT && r->pages_differing == 1 &&
	       r->npages == 1 && r->pages[0].pfn == SK_R1_PFN + 515 &&
	       r->pages[0].slot_mask == 2,
	       "compound_head to the previous compound: exactly pfn 0x%llx slot 1",
	       (unsigned long long)(SK_R1_PFN + 515));
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);

	o = base;
	o.drop_frame = SK_VMEMMAP + SK_R0_PFN * 64 + 4096;
	b = snap_of(&o, "hole.core", &st);
	tap_ok(b && st.unreadable == 64, "a frame missing from the dump: 64 pages unreadable (%llu)",
	       (unsigned long long)st.unreadable);
	r = diff_of(a, b);
	tap_ok(r && r->verdict == MMC_INCOMPLETE, "... and the diff says incomplete, never identical");
	mmc_diff_result_destroy(r);
	if (b)
		mmc_snapshot_destroy(b);
}

/* A cyclic xarray and an unreadable pgmap: discovery ends, incomplete. */
static void test_corrupt_discovery(void)
{
	struct synth_opts o;
	struct mmc_snapshot *b;
	struct mmc_walk_stats st;
	struct mmc_kernel *k = NULL;
	struct mmc_discovery *d = NULL;
	struct mmc_error *err;

	o = base;
	o.xa_cycle = 1;
	err = synth_open(dir, "cycle.core", &o, &k);
	if (!err)
		err = mmc_discover(k, &d);
	/* the knob: slot 3 of the one shift-12 node points back at the node,
	 * after the two pgmaps in slots 0 and 1 */
	tap_ok(!err && d && d->problem && d->problem->code == MMC_ERR_CORRUPT &&
	       d->problem->has_address && d->npgmaps == 2 && d->nranges == 2,
	       "xarray cycle: no hang; discovery incomplete (%s), the 2 pgmaps before it kept",
	       d && d->problem ? d->problem->message : "no problem recorded");
	mmc_error_destroy(err);
	mmc_discovery_destroy(d);
	d = NULL;
	mmc_kernel_destroy(k);
	k = NULL;

	/*
	 * Corrupt kernel state: the walk terminates and records what is there,
	 * for lint to judge.  Expected values come from what each knob writes
	 * (synth_kernel.h), not from the walker.
	 */
	o = base;
	o.unreadable_pgmap = 1;		/* pgmap0 at page_offset + 3 MiB, its frame left out */
	err = synth_open(dir, "pgmap-unreadable.core", &o, &k);
	if (!err)
		err = mmc_discover(k, &d);
	tap_ok(!err && d && d->problem && d->problem->code == MMC_ERR_NODATA &&
	       d->problem->has_address &&
	       d->problem->address == SK_PAGE_OFFSET + (3ULL << 20) &&
	       d->npgmaps == 1 && d->nranges == 1 && d->ranges[0].start_pfn == SK_R1_PFN,
	       "pgmap pointer into unreadable memory: discovery incomplete at that address (%s), the good pgmap and its range kept",
	       d && d->problem ? d->problem->message : "no problem recorded");
	mmc_error_destroy(err);
	mmc_discovery_destroy(d);
	mmc_kernel_destroy(k);
	b = snap_of(&o, "pgmap-unreadable2.core", &st);
	tap_ok(b && !mmc_snapshot_discovery_complete(b) && st.pages == 1024,
	       "... and the snapshot says so, with the 1024 pages of the range it has");
	mmc_snapshot_destroy(b);
}

/* Corrupt struct pages and vmemmap mappings: recorded as they are. */
static void test_corrupt_pages(void)
{
	struct synth_opts o;
	struct mmc_snapshot *b;
	struct mmc_walk_stats st;

	o = base;
	o.big_order_head = SK_R1_PFN;	/* page[1]: order 10, nr_pages 1024 */
	b = snap_of(&o, "big-order.core", &st);
	{
		struct mmc_nrec rec;
		bool got = b && mmc_snapshot_get(b, 1, SK_R1_PFN + 1, &rec);

		tap_ok(got && rec.state == MMC_PS_READ && rec.slot[0].cls == MMC_V_RAW &&
		       (rec.slot[0].raw & 0xff) == 10 && rec.slot[4].raw == 1024,
		       "order 10 beyond vmemmap_shift 9: page[1] recorded as it is (_flags_1 order 10, nr_pages 1024)");
	}
	mmc_snapshot_destroy(b);

	o = base;
	o.double_map = 1;		/* range 0's vmemmap page 3 maps page 2's frame */
	b = snap_of(&o, "vmemmap-alias.core", &st);
	{
		struct mmc_vframe v2, v3;

		if (b) {
			mmc_snapshot_range_vframe(b, 0, 2, &v2);
			mmc_snapshot_range_vframe(b, 0, 3, &v3);
		}
		tap_ok(b && st.pages == 1536 && v3.kind == MMC_VF_RAM && v3.share_back == 1 &&
		       v3.paddr == v2.paddr,
		       "order-0 vmemmap page mapped twice: recorded as sharing the frame of the page before");
	}
	mmc_snapshot_destroy(b);

	o = base;
	o.wild_pgmap = SK_R0_PFN + 5;	/* its pgmap slot points 1 GiB into the direct map */
	b = snap_of(&o, "wild-pgmap.core", &st);
	{
		struct mmc_nrec rec;

		tap_ok(b && st.pages == 1536 && mmc_snapshot_get(b, 0, SK_R0_PFN + 5, &rec) &&
		       rec.slot[1].cls == MMC_V_OBJ && rec.slot[1].raw == SK_PAGE_OFFSET + (1ULL << 30),
		       "a page's pgmap pointing into memory the dump lacks: recorded as a pointer, not followed");
	}
	mmc_snapshot_destroy(b);

	o = base;
	o.vmemmap_cross = 1;
	b = snap_of(&o, "vmemmap-cross.core", &st);
	{
		struct mmc_vframe v0, v1;
		struct mmc_nrec rec;

		if (b) {
			mmc_snapshot_range_vframe(b, 0, 3, &v0);
			mmc_snapshot_range_vframe(b, 1, 0, &v1);
		}
		/* range 0's pfn 192 reads range 1's head page: PG_head set */
		tap_ok(b && v0.paddr == v1.paddr && v0.kind == MMC_VF_RAM &&
		       mmc_snapshot_get(b, 0, SK_R0_PFN + 192, &rec) &&
		       (rec.slot[0].raw & (1ULL << 6)),
		       "one frame under two ranges: both record its address, range 0 holds range 1's struct pages");
	}
	mmc_snapshot_destroy(b);

	o = base;
	o.wild_tail = SK_R1_PFN + 7;
	o.head_cycle = 1;
	b = snap_of(&o, "wild.core", &st);
	{
		struct mmc_nrec rec, head;

		tap_ok(b && st.pages == 1536 &&
		       mmc_snapshot_get(b, 1, SK_R1_PFN + 7, &rec) && rec.slot[1].cls == MMC_V_OBJ &&
		       mmc_snapshot_get(b, 1, SK_R1_PFN, &head) && head.slot[1].cls == MMC_V_PAGE &&
		       head.slot[1].v == 1 && head.slot[1].off == 1,
		       "compound_head outside the memmap and a head pointing at its page[1]: walk ends, both recorded (obj, page+1+1)");
	}
	mmc_snapshot_destroy(b);
}

/* A pgmap range of 2^34 pages the page tables do not map: fast, in runs. */
static void test_huge_range(void)
{
	struct synth_opts o = base;
	struct mmc_snapshot *b;
	struct mmc_walk_stats st;
	struct timespec t0 = tap_cpu_start();
	double secs;

	o.huge_range = 1;
	b = snap_of(&o, "huge-range.core", &st);
	secs = tap_cpu_since(&t0);
	/* pages: range 0 (512) and range 1 up to 2^34 pfns; read: the
	 * 1536 mapped ones; the rest unmapped, about one run per
	 * non-present table entry (512 PMD + 512 PUD + PGD entries) */
	tap_ok(b && st.pages == 512 + (1ULL << 34) - SK_R1_PFN &&
	       st.unmapped == st.pages - 1536 && mmc_snapshot_nruns(b) < 2048 &&
	       secs < tap_cpu_limit(30),
	       "a pgmap range of 2^34 pages the page tables do not map: %llu pages, %llu unmapped, %llu runs, %.2f CPU s",
	       (unsigned long long)st.pages, (unsigned long long)st.unmapped,
	       b ? (unsigned long long)mmc_snapshot_nruns(b) : 0ULL, secs);
	mmc_snapshot_destroy(b);
}

/* Kernel setups refused at open: a bad vmemmap_base, another release. */
static void test_refused_kernels(void)
{
	static const uint64_t bad[] = { SK_VMEMMAP_L5, 0xff00000000000000ULL,
					0xffffffff00000000ULL };
	struct synth_opts o;
	struct mmc_kernel *k = NULL;
	struct mmc_error *err;

	/*
	 * A damaged vmemmap_base: x86_64's 4-level paging sign-extends bit 47,
	 * so 0xffd4000000000000 (the 5-level base) and 0xff00000000000000 are
	 * not addresses; 0xffffffff00000000 is, but its vmemmap of 2^34 struct
	 * pages (MAX_PHYSMEM_BITS 46) would run past 2^64.  One error each, at
	 * the variable.
	 */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = base;
		o.vmemmap_var = bad[i];
		err = synth_open(dir, "bad-vmemmap-base.core", &o, &k);
		tap_ok(err && err->code == MMC_ERR_CORRUPT && err->has_address &&
		       err->address == SK_SYM_VMEMMAP_BASE &&
		       strstr(err->message, "not canonical for 4-level paging"),
		       "vmemmap_base 0x%llx refused at the variable: %s",
		       (unsigned long long)bad[i], err ? err->message : "no error");
		mmc_error_destroy(err);
		mmc_kernel_destroy(k);
		k = NULL;
	}

	o = base;
	o.release = "6.12.9-other";
	err = synth_open(dir, "mismatch.core", &o, &k);
	tap_ok(err && err->code == MMC_ERR_MISMATCH, "release mismatch refused");
	mmc_error_destroy(err);
	mmc_kernel_destroy(k);
}

int main(void)
{
	struct mmc_snapshot *a;
	char cmd[300];

	if (!mkdtemp(dir))
		tap_skip_all("mkdtemp failed");

	test_discovery();
	a = test_base_walk();
	test_ro_shared_tails(a);
	test_reboot_and_mutants(a);
	test_corrupt_discovery();
	test_corrupt_pages();
	test_huge_range();
	test_refused_kernels();

	if (a)
		mmc_snapshot_destroy(a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
