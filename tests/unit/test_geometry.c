// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every x86_64 memory layout: the bases from the kernel's variables
 * (CONFIG_DYNAMIC_MEMORY_LAYOUT) or the architecture's fixed ones, 4- and
 * 5-level paging, the depth from VMCOREINFO or from the page tables.
 *
 * Expected values come from the kernel headers (page_64_types.h,
 * pgtable_64_types.h), not from the engine: the synthetic images put their
 * vmemmap at those addresses, and a walk that picked the wrong base would
 * find no struct pages there.  The walk of every variant must compare
 * identical with the one read through the variables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "kernel.h"
#include "synth_kernel.h"
#include "synth_open.h"
#include "tap.h"
#include "walk.h"

static char dir[] = "/tmp/mmc-geom-XXXXXX";

enum vars { VARS_ALL, VARS_NONE, VARS_ONLY_VMEMMAP };

static struct mmc_error *open_variant(const struct synth_opts *o, enum vars vars,
				      const char *name, struct mmc_kernel **k)
{
	struct mmc_layout *l = synth_layout_new();

	if (l && vars != VARS_ALL) {
		l->sym_found[MMC_SYM_PAGE_OFFSET_BASE] = false;
		l->sym_found[MMC_SYM_VMALLOC_BASE] = false;
		if (vars == VARS_NONE)
			l->sym_found[MMC_SYM_VMEMMAP_BASE] = false;
	}
	return synth_open_with(dir, name, o, l, k);
}

static struct mmc_snapshot *walk_of(struct mmc_kernel *k, uint64_t *pages)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_walk_stats st = { 0 };
	struct mmc_error *err = mmc_walk(k, NULL, NULL, &s, &st);

	if (err) {
		char *m = mmc_error_string(err);

		tap_diag("walk: %s", m ? m : "?");
		free(m);
		mmc_error_destroy(err);
		return NULL;
	}
	*pages = st.pages - st.unreadable - st.unmapped;
	return s;
}

static bool identical(const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	struct mmc_diff_opts o = { .max_pages = 1, .max_groups = 1 };
	struct mmc_diff_result *r = NULL;
	struct mmc_error *err;
	bool same;

	if (!a || !b)
		return false;
	err = mmc_diff(a, b, &o, &r);
	if (err) {
		mmc_error_destroy(err);
		return false;
	}
	same = r->verdict == MMC_IDENTICAL && r->pages_compared == 1536;
	mmc_diff_result_destroy(r);
	return same;
}

struct variant {
	const char *name;
	int la57, no_l5_note;
	enum vars vars;
	uint64_t vmemmap, page_offset, vmalloc;
	unsigned int levels;
	enum mmc_base_origin bases;
	enum mmc_levels_origin levels_from;
};

static const struct variant variants[] = {
	{ "l4-vars", 0, 0, VARS_ALL, SK_VMEMMAP, SK_PAGE_OFFSET, SK_VMALLOC, 4,
	  MMC_BASES_VARIABLES, MMC_LEVELS_VMCOREINFO },
	{ "l4-fixed", 0, 0, VARS_NONE, SK_VMEMMAP, SK_PAGE_OFFSET, SK_VMALLOC, 4,
	  MMC_BASES_FIXED, MMC_LEVELS_VMCOREINFO },
	{ "l4-fixed-probed", 0, 1, VARS_NONE, SK_VMEMMAP, SK_PAGE_OFFSET, SK_VMALLOC, 4,
	  MMC_BASES_FIXED, MMC_LEVELS_PAGE_TABLES },
	{ "l5-vars", 1, 0, VARS_ALL, SK_VMEMMAP_L5, SK_PAGE_OFFSET_L5, SK_VMALLOC_L5, 5,
	  MMC_BASES_VARIABLES, MMC_LEVELS_VMCOREINFO },
	{ "l5-fixed", 1, 0, VARS_NONE, SK_VMEMMAP_L5, SK_PAGE_OFFSET_L5, SK_VMALLOC_L5, 5,
	  MMC_BASES_FIXED, MMC_LEVELS_VMCOREINFO },
	{ "l5-fixed-probed", 1, 1, VARS_NONE, SK_VMEMMAP_L5, SK_PAGE_OFFSET_L5, SK_VMALLOC_L5, 5,
	  MMC_BASES_FIXED, MMC_LEVELS_PAGE_TABLES },
	{ "l5-vars-probed", 1, 1, VARS_ALL, SK_VMEMMAP_L5, SK_PAGE_OFFSET_L5, SK_VMALLOC_L5, 5,
	  MMC_BASES_VARIABLES, MMC_LEVELS_PAGE_TABLES },
};

/*
 * Every variant opens with its bases and paging depth, walks all its
 * struct pages and compares identical to the first.
 */
static void test_variants(void)
{
	struct mmc_snapshot *ref = NULL;
	struct synth_opts o;
	struct mmc_kernel *k = NULL;
	struct mmc_error *err;
	size_t i;

	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		const struct variant *v = &variants[i];
		struct mmc_snapshot *s;
		uint64_t pages = 0;
		char name[64];

		memset(&o, 0, sizeof(o));
		o.bad_tail = o.wild_tail = -1;
		o.la57 = v->la57;
		o.no_l5_note = v->no_l5_note;
		snprintf(name, sizeof(name), "%s.core", v->name);
		err = open_variant(&o, v->vars, name, &k);
		tap_ok(!err, "%s: opens", v->name);
		if (err) {
			char *m = mmc_error_string(err);

			tap_diag("%s", m ? m : "?");
			free(m);
			mmc_error_destroy(err);
			continue;
		}
		tap_ok(k->geom.vmemmap_base == v->vmemmap &&
		       k->geom.page_offset_base == v->page_offset &&
		       k->geom.vmalloc_base == v->vmalloc,
		       "%s: vmemmap_base 0x%llx page_offset_base 0x%llx vmalloc_base 0x%llx",
		       v->name, (unsigned long long)k->geom.vmemmap_base,
		       (unsigned long long)k->geom.page_offset_base,
		       (unsigned long long)k->geom.vmalloc_base);
		tap_ok(k->geom.pgtable_levels == v->levels &&
		       k->geom.base_origin == v->bases &&
		       k->geom.levels_origin == v->levels_from,
		       "%s: %u-level (origin %u), bases origin %u", v->name,
		       k->geom.pgtable_levels, k->geom.levels_origin,
		       k->geom.base_origin);
		s = walk_of(k, &pages);
		tap_ok(s && pages == 1536, "%s: walk reads all 1536 struct pages (%llu)",
		       v->name, (unsigned long long)pages);
		if (!ref) {
			ref = s;
		} else {
			tap_ok(identical(ref, s), "%s: identical to %s", v->name,
			       variants[0].name);
			if (s)
				mmc_snapshot_destroy(s);
		}
		mmc_kernel_destroy(k);
		k = NULL;
	}
	if (ref)
		mmc_snapshot_destroy(ref);
}

/* CONFIG_DYNAMIC_MEMORY_LAYOUT defines all three or none. */
static void test_partial_bases(void)
{
	struct synth_opts o;
	struct mmc_kernel *k = NULL;
	struct mmc_error *err;

	memset(&o, 0, sizeof(o));
	o.bad_tail = o.wild_tail = -1;
	err = open_variant(&o, VARS_ONLY_VMEMMAP, "partial.core", &k);
	tap_ok(err && err->code == MMC_ERR_LAYOUT,
	       "a layout with vmemmap_base but no page_offset_base/vmalloc_base is refused");
	mmc_error_destroy(err);
	mmc_kernel_destroy(k);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		tap_skip_all("mkdtemp failed");

	test_variants();
	test_partial_bases();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
