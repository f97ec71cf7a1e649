// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * HugeTLB and memory block discovery (engine/discover_hugetlb.c,
 * discover_hotplug.c) on the synthetic kernel
 * with a pool (synth_kernel.h "hugetlb"): the folios on the free and
 * active lists, their ranges walked with HVO's shared read-only vmemmap,
 * the pools in the snapshot; a list gone round and counts that do not add
 * up stop reading with a reason naming the address, never a hang; a
 * layout without the pools reads none; the memory blocks (synth_kernel.h
 * "hotplug") with a self-hosted memmap, a block whose section disagrees
 * with its index.  Expected values are the image's
 * own construction (synth_kernel.h), not the tool's output.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "discover.h"
#include "kernel.h"
#include "snapshot.h"
#include "synth_kernel.h"
#include "synth_open.h"
#include "tap.h"
#include "walk.h"

static char dir[] = "/tmp/mmc-pools-XXXXXX";

static struct mmc_error *open_huge(const char *name, const struct synth_opts *o, bool pools,
				   struct mmc_kernel **k)
{
	struct mmc_layout *l = synth_layout_new();

	if (l && pools && (sk_hugetlb_layout(l) || sk_hotplug_layout(l))) {
		mmc_layout_destroy(l);
		l = NULL;
	}
	return synth_open_with(dir, name, o, l, k);
}

static struct mmc_discovery *discover(const char *name, const struct synth_opts *o, bool pools)
{
	struct mmc_kernel *k = NULL;
	struct mmc_discovery *d = NULL;
	struct mmc_error *err = open_huge(name, o, pools, &k);

	if (!err)
		err = mmc_discover(k, &d);
	if (err) {
		tap_diag("%s: %s", name, err->message);
		mmc_error_destroy(err);
	}
	mmc_kernel_destroy(k);
	return d;
}

static struct mmc_snapshot *walk(const char *name, const struct synth_opts *o,
				 struct mmc_walk_stats *st)
{
	struct mmc_kernel *k = NULL;
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err = open_huge(name, o, true, &k);

	if (!err)
		err = mmc_walk(k, NULL, NULL, &s, st);
	if (err) {
		tap_diag("%s: %s", name, err->message);
		mmc_error_destroy(err);
	}
	mmc_kernel_destroy(k);
	return s;
}

static const struct mmc_srange *huge_range(const struct mmc_discovery *d)
{
	for (size_t i = 0; d && i < d->nranges; i++)
		if (d->ranges[i].kind == MMC_RANGE_HUGETLB)
			return &d->ranges[i];
	return NULL;
}

static void test_pool(void)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1, .hugetlb = 1 };
	struct mmc_discovery *d = discover("pool.core", &o, true);
	const struct mmc_srange *r = huge_range(d);

	tap_ok(d && d->huge_state == MMC_READ_DONE && !d->huge_why[0] && !d->problem,
	       "pool: read completely (%s)", d ? d->huge_why : "no discovery");
	if (!d)
		return;
	tap_ok(d->nhstates == 1 && d->hstates[0].order == 9 && d->hstates[0].nr == 3 &&
	       d->hstates[0].free == 2 && (d->hstates[0].flags & MMC_HSTATE_HVO) &&
	       !strcmp(d->hstates[0].name, "hugepages-2048kB") &&
	       d->hstates[0].kaddr == SK_SYM_HSTATES,
	       "pool: hstates[0] order 9, 3 folios, 2 free, HVO on, its name and address");
	tap_ok(d->nfolio_spans == 2 &&
	       d->folio_spans[0].start_pfn == SK_HUGE_PFN && d->folio_spans[0].nfolios == 2 &&
	       d->folio_spans[0].list == MMC_FOLIO_FREE &&
	       d->folio_spans[0].vmemmap == MMC_FVM_OPTIMISED &&
	       d->folio_spans[1].start_pfn == SK_HUGE_PFN + 1024 && d->folio_spans[1].nfolios == 1 &&
	       d->folio_spans[1].list == MMC_FOLIO_ACTIVE &&
	       d->folio_spans[1].vmemmap == MMC_FVM_OPTIMISED,
	       "pool: 2 free folios then 1 active, all HPG_vmemmap_optimized (%zu spans)",
	       d->nfolio_spans);
	tap_ok(d->nranges == 3 && r && r->start_pfn == SK_HUGE_PFN &&
	       r->end_pfn == SK_HUGE_PFN + 1536 && r->owner == 0 &&
	       r->pgmap_index == MMC_NO_PGMAP && d->ranges[0].kind == MMC_RANGE_HUGETLB,
	       "pool: one HugeTLB range over the 3 consecutive folios, sorted first");
	mmc_discovery_destroy(d);
}

static void test_walk(void)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1, .hugetlb = 1 };
	struct mmc_walk_stats st;
	struct mmc_snapshot *a = walk("walk-a.core", &o, &st), *b;
	const struct mmc_shstate *hs = NULL;
	const struct mmc_sfolios *f = NULL;
	const char *why = NULL;
	size_t nh = 0, nf = 0;
	struct mmc_diff_opts dopt = { .max_pages = 20, .max_groups = 50 };
	struct mmc_diff_result *res = NULL;
	struct mmc_error *err;

	tap_ok(a && st.pages == 1536 + 1536 && st.unreadable == 0 && mmc_snapshot_nranges(a) == 3,
	       "walk: the pgmap ranges and the pool's 1536 struct pages, all read (%llu pages)",
	       (unsigned long long)st.pages);
	if (!a)
		return;
	tap_ok(mmc_snapshot_hugetlb(a, &hs, &nh, &f, &nf, &why) == MMC_READ_DONE && nh == 1 &&
	       nf == 2 && hs[0].order == 9 && f[1].list == MMC_FOLIO_ACTIVE,
	       "walk: the snapshot holds the pool");
	/* a reboot moves frames */
	o.frame_shift = 7;
	b = walk("walk-b.core", &o, NULL);
	err = b ? mmc_diff(a, b, &dopt, &res) : NULL;
	tap_ok(b && !err && res && res->verdict == MMC_IDENTICAL,
	       "diff: the same pool after moved frames is identical (%llu pages differ)",
	       res ? (unsigned long long)res->pages_differing : 0ULL);
	mmc_diff_result_destroy(res);
	res = NULL;
	mmc_error_destroy(err);
	mmc_snapshot_destroy(b);
	/* nr_huge_pages one more than the lists hold: a pool difference */
	o.frame_shift = 0;
	mmc_snapshot_destroy(a);
	a = walk("walk-c.core", &o, NULL);
	{
		struct synth_opts o2 = o;

		o2.huge_count = 1;	/* nr 4 with 3 listed: partial */
		b = walk("walk-d.core", &o2, NULL);
	}
	err = a && b ? mmc_diff(a, b, &dopt, &res) : NULL;
	{
		bool named = false;

		for (size_t i = 0; res && i < res->npgmap_diffs; i++)
			if (strstr(res->pgmap_diffs[i], "hstate#0 nr_huge_pages: 3 vs 4"))
				named = true;
		tap_ok(!err && res && res->verdict == MMC_DIFFERENT && named,
		       "diff: a pool whose folio count differs is a difference, named (%llu pages differ)",
		       res ? (unsigned long long)res->pages_differing : 0ULL);
	}
	mmc_diff_result_destroy(res);
	mmc_error_destroy(err);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
}

static void test_broken(void)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1, .hugetlb = 1, .huge_cycle = 1 };
	struct mmc_discovery *d = discover("cycle.core", &o, true);
	char addr[40];

	snprintf(addr, sizeof(addr), "0x%" PRIx64, (uint64_t)(SK_SYM_HSTATES + SK_HSTATE_FREELIST));
	tap_ok(d && d->huge_state == MMC_READ_PARTIAL &&
	       strstr(d->huge_why, "hstates[0].hugepage_freelists[0]") &&
	       strstr(d->huge_why, addr) && strstr(d->huge_why, "prev"),
	       "a free list gone round stops, naming the list and its address: %s",
	       d ? d->huge_why : "no discovery");
	mmc_discovery_destroy(d);

	o.huge_cycle = 0;
	o.huge_count = 1;
	d = discover("count-up.core", &o, true);
	tap_ok(d && d->huge_state == MMC_READ_PARTIAL &&
	       strstr(d->huge_why, "2 free and 1 active folios on its lists, but free_huge_pages 2 and nr_huge_pages 4"),
	       "nr_huge_pages above what the lists hold: partial, said: %s",
	       d ? d->huge_why : "no discovery");
	tap_ok(d && d->nfolio_spans == 2 && huge_range(d),
	       "the folios read before the mismatch are kept");
	mmc_discovery_destroy(d);

	o.huge_count = -1;
	d = discover("count-down.core", &o, true);
	snprintf(addr, sizeof(addr), "0x%" PRIx64, (uint64_t)(SK_SYM_HSTATES + SK_HSTATE_ACTIVELIST));
	tap_ok(d && d->huge_state == MMC_READ_PARTIAL &&
	       strstr(d->huge_why, "hstates[0].hugepage_activelist") && strstr(d->huge_why, addr) &&
	       strstr(d->huge_why, "more than 0 entries"),
	       "more folios listed than nr_huge_pages: the walk stops at the count: %s",
	       d ? d->huge_why : "no discovery");
	mmc_discovery_destroy(d);

	o.huge_count = 0;
	d = discover("no-pools.core", &o, false);
	tap_ok(d && d->huge_state == MMC_READ_NOT && strstr(d->huge_why, "the layout has no") &&
	       d->nranges == 2 && !huge_range(d),
	       "a layout without the pools: not read, said, the pgmap ranges only: %s",
	       d ? d->huge_why : "no discovery");
	mmc_discovery_destroy(d);
}

static void test_hotplug(void)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1, .hotplug = 1 };
	struct mmc_discovery *d = discover("plug.core", &o, true);
	const struct mmc_srange *r = NULL;
	struct mmc_walk_stats st;
	struct mmc_snapshot *s;
	const struct mmc_smemblock *b = NULL;
	size_t n = 0;

	for (size_t i = 0; d && i < d->nranges; i++)
		if (d->ranges[i].kind == MMC_RANGE_HOTPLUG)
			r = &d->ranges[i];
	tap_ok(d && d->plug_state == MMC_READ_DONE && d->nblocks == 2 &&
	       d->blocks[0].id == 1 && d->blocks[0].start_pfn == SK_PLUG_PFN &&
	       d->blocks[0].end_pfn == 2 * SK_PLUG_PFN && d->blocks[0].state == 0 &&
	       d->blocks[0].flags == MMC_MEMBLOCK_SELF_HOSTED && d->blocks[0].altmap_pfns == 512 &&
	       d->blocks[1].id == 2 && d->blocks[1].start_pfn == 2 * SK_PLUG_PFN &&
	       d->blocks[1].state == 2 && !d->blocks[1].flags,
	       "blocks: 1 online with 512 self-hosted memmap pfns, 2 offline without (%s)",
	       d ? d->plug_why : "no discovery");
	tap_ok(d && d->nranges == 3 && r && r->start_pfn == SK_PLUG_PFN &&
	       r->end_pfn == SK_PLUG_PFN + 512 && r->owner == 0 &&
	       r->altmap_start == SK_PLUG_PFN && r->altmap_end == SK_PLUG_PFN + 512,
	       "blocks: one hot-plug range, the online block's memmap pfns, all memmap_init_range's");
	mmc_discovery_destroy(d);

	s = walk("plug-walk.core", &o, &st);
	tap_ok(s && st.pages == 1536 + 512 && st.unreadable == 0 &&
	       mmc_snapshot_hotplug(s, &b, &n, NULL) == MMC_READ_DONE && n == 2 &&
	       b[0].altmap_pfns == 512,
	       "walk: the 512 self-hosted struct pages read, the blocks in the snapshot (%llu pages)",
	       (unsigned long long)st.pages);
	mmc_snapshot_destroy(s);

	o.plug_bad_section = 1;
	d = discover("plug-bad.core", &o, true);
	tap_ok(d && d->plug_state == MMC_READ_PARTIAL &&
	       strstr(d->plug_why, "memory block 2 at 0xffff888000210800 says start_section_nr 3, not 2") &&
	       d->nblocks == 1 && d->nranges == 3,
	       "a block whose section is not its index stops, named with its address; the one before kept: %s",
	       d ? d->plug_why : "no discovery");
	mmc_discovery_destroy(d);

	o.plug_bad_section = 0;
	d = discover("plug-none.core", &o, false);
	tap_ok(d && d->plug_state == MMC_READ_NOT && strstr(d->plug_why, "the layout has no") &&
	       d->nranges == 2,
	       "a layout without memory blocks: not read, said: %s", d ? d->plug_why : "no discovery");
	mmc_discovery_destroy(d);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		tap_skip_all("mkdtemp failed");
	test_pool();
	test_walk();
	test_broken();
	test_hotplug();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
