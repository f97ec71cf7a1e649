// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint driver: one pass per range, pattern by pattern (lint_pattern.c), then that
 * range's vmemmap frames; violations of each rule are grouped over
 * consecutive pfns.  The checks are in lint_page.c, lint_folio.c and
 * lint_geom.c, the rules themselves in rules.c.  A range of another kind
 * than a pgmap's is set up by its module (lint_hugetlb.c, lint_hotplug.c),
 * which checks its vmemmap frames first: HugeTLB's tell which pages are
 * HVO's aliases, which the page pass then leaves out.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint_int.h"
#include "mmc_util.h"

/* Violation groups kept when mmc_lint_opts.max_groups is 0 (lint.h). */
#define LINT_DEFAULT_MAX_GROUPS 200
/* res->violations' first allocation, in groups. */
#define LINT_GROUPS_GROW 64

const char *mmc_lint_verdict_name(enum mmc_lint_verdict v)
{
	switch (v) {
	case MMC_LINT_CLEAN: return "clean";
	case MMC_LINT_VIOLATIONS: return "violations";
	case MMC_LINT_INCOMPLETE: return "incomplete";
	}
	return "unknown";
}

static void group_flush(struct lint_ctx *c, enum mmc_rule rule)
{
	struct lint_group *g = &c->open[rule];
	struct mmc_lint_result *res = c->res;
	struct mmc_lint_violation *v;

	if (!g->active)
		return;
	g->active = false;
	if (res->nviolations >= c->max_groups)
		return;
	if (!mmc_grow_array((void **)&res->violations, &c->violations_cap,
			    res->nviolations + 1, sizeof(*res->violations),
			    LINT_GROUPS_GROW)) {
		c->oom = true;
		return;
	}
	v = &res->violations[res->nviolations++];
	/* whole slot zeroed: the bytes after each string are the caller's to compare */
	memset(v, 0, sizeof(*v));
	snprintf(v->rule, sizeof(v->rule), "%s", mmc_rule_info(rule)->name);
	v->rule_id = rule;
	v->range = c->range;
	v->pfn = g->first;
	v->npages = g->last - g->first + 1;
	snprintf(v->message, sizeof(v->message), "%s", g->message);
}

void lint_violate_n(struct lint_ctx *c, enum mmc_rule rule, uint64_t pfn, uint64_t n,
		    const char *fmt, ...)
{
	struct lint_group *g = &c->open[rule];
	va_list ap;

	if (!n)
		return;
	if (g->active && pfn >= g->first && pfn <= g->last) {
		/* overlapping what the group holds: only the pfns past it */
		if (g->last >= pfn + n - 1)
			return;
		n -= g->last + 1 - pfn;
		pfn = g->last + 1;
	}
	c->rule_pages[rule] += n;
	c->res->violations_total += n;
	if (g->active && g->last + 1 == pfn) {
		g->last = pfn + n - 1;
		return;
	}
	group_flush(c, rule);
	g->active = true;
	g->first = pfn;
	g->last = pfn + n - 1;
	va_start(ap, fmt);
	vsnprintf(g->message, sizeof(g->message), fmt, ap);
	va_end(ap);
}

void lint_violate(struct lint_ctx *c, enum mmc_rule rule, uint64_t pfn,
		  const char *fmt, ...)
{
	struct lint_group *g = &c->open[rule];
	va_list ap;

	if (g->active && g->last == pfn)
		return;	/* same page, same rule twice: counted once */
	c->rule_pages[rule]++;
	c->res->violations_total++;
	if (g->active && g->last + 1 == pfn) {
		g->last = pfn;
		return;
	}
	group_flush(c, rule);
	g->active = true;
	g->first = g->last = pfn;
	va_start(ap, fmt);
	vsnprintf(g->message, sizeof(g->message), fmt, ap);
	va_end(ap);
}

void lint_unchecked(struct lint_ctx *c, enum mmc_rule rule, const char *why)
{
	char *u = c->res->unchecked;
	const char *name = mmc_rule_info(rule)->name;
	size_t len = strlen(u);
	char item[64];

	snprintf(item, sizeof(item), "%s:", name);
	if (strstr(u, item))
		return;
	snprintf(u + len, sizeof(c->res->unchecked) - len, "%s%s %s", len ? "; " : "", item, why);
}

static void flush_all(struct lint_ctx *c)
{
	for (unsigned int r = 0; r < MMC_RULE_COUNT; r++)
		group_flush(c, (enum mmc_rule)r);
}

static int cmp_violation(const void *pa, const void *pb)
{
	const struct mmc_lint_violation *a = pa, *b = pb;

	if (a->range != b->range)
		return a->range < b->range ? -1 : 1;
	if (a->pfn != b->pfn)
		return a->pfn < b->pfn ? -1 : 1;
	return strcmp(a->rule, b->rule);
}

static void slot_of(const struct lint_ctx *c, enum mmc_member_id id, bool *have,
		    unsigned int *slot)
{
	*have = mmc_page_member_slot(c->layout, c->sps, id, slot);
}

static void ctx_init_kernel(struct lint_ctx *c)
{
	const struct mmc_snapshot_info *info = mmc_snapshot_info(c->snap);

	c->kver = mmc_kver_of(c->layout, info ? info->release : NULL);
	c->have_zone_device = mmc_layout_enum_value(c->layout, MMC_ENUM_ZONE_TYPE,
						    "ZONE_DEVICE", &c->zone_device);
	c->have_pg_reserved = mmc_pageflag_bit(c->layout, "PG_reserved", &c->pg_reserved);
	c->have_pg_head = mmc_pageflag_bit(c->layout, "PG_head", &c->pg_head);
	c->have_pg_hwpoison = mmc_pageflag_bit(c->layout, "PG_hwpoison", &c->pg_hwpoison);
	c->have_pg_self_hosted = mmc_pageflag_bit(c->layout, "PG_vmemmap_self_hosted",
						  &c->pg_self_hosted);
	c->second_mask = mmc_flags_second_mask(c->layout);
	c->sps = c->geom->struct_page_size;
	slot_of(c, MMC_PAGE_MAPPING, &c->have_mapping, &c->mapping_slot);
	slot_of(c, MMC_PAGE_PRIVATE, &c->have_private, &c->private_slot);
	slot_of(c, MMC_PAGE_INDEX, &c->have_index, &c->index_slot);
	slot_of(c, MMC_PAGE_ZONE_DEVICE_DATA, &c->have_zdd, &c->zdd_slot);
	slot_of(c, MMC_PAGE_MEMCG_DATA, &c->have_memcg, &c->memcg_slot);
	slot_of(c, MMC_PAGE_LRU, &c->have_lru, &c->lru_slot);
}

static struct mmc_error *pgmap_begin(struct lint_ctx *c, size_t r)
{
	if (c->sr->pgmap_index >= mmc_snapshot_npgmaps(c->snap))
		return mmc_error_create(MMC_ERR_CORRUPT, NULL, "range %zu: pgmap index %u of %zu",
					r, c->sr->pgmap_index, mmc_snapshot_npgmaps(c->snap));
	c->pg = mmc_snapshot_pgmap(c->snap, c->sr->pgmap_index);
	c->type_name = c->pg->type_name;
	if (!c->type_name[0]) {
		const char *n = mmc_layout_enum_name(c->layout, MMC_ENUM_MEMORY_TYPE,
						     c->pg->type);
		c->type_name = n ? n : "";
	}
	c->type = mmc_memory_type_parse(c->type_name);
	c->order_what = "pgmap vmemmap_shift";
	lint_geom_range(c);
	return NULL;
}

static struct mmc_error *range_begin(struct lint_ctx *c, size_t r)
{
	c->range = r;
	c->sr = mmc_snapshot_range(c->snap, r);
	c->kind = (enum mmc_range_kind)c->sr->kind;
	c->pg = NULL;
	c->block = NULL;
	c->type = MMC_MEMORY_UNKNOWN;
	c->type_name = "";
	c->dax_known = false;
	memset(c->open, 0, sizeof(c->open));
	memset(&c->head, 0, sizeof(c->head));
	memset(&c->target, 0, sizeof(c->target));
	c->have_node = false;
	c->have_zone = false;
	switch (c->kind) {
	case MMC_RANGE_PGMAP:
		return pgmap_begin(c, r);
	case MMC_RANGE_HUGETLB:
		return lint_hugetlb_begin(c);
	case MMC_RANGE_HOTPLUG:
		return lint_hotplug_begin(c);
	default:
		return mmc_error_create(MMC_ERR_CORRUPT, NULL, "range %zu: kind %u", r,
					(unsigned int)c->sr->kind);
	}
}

/* A range's pages, then (pgmaps) its vmemmap frames; false when out of
 * memory. */
static bool range_check(struct lint_ctx *c)
{
	bool ok = true;

	lint_range_pages(c);
	flush_all(c);
	if (c->kind == MMC_RANGE_PGMAP)
		ok = lint_check_vframes(c);
	flush_all(c);
	lint_hugetlb_end(c);
	return ok;
}

/* What makes a result incomplete, and the verdict. */
static void conclude(struct lint_ctx *c)
{
	struct mmc_lint_result *res = c->res;
	const char *problem = mmc_snapshot_discovery_problem(c->snap);
	uint64_t real = res->violations_total - c->rule_pages[MMC_RULE_UNREADABLE];

	if (c->rule_pages[MMC_RULE_UNREADABLE])
		res->gaps |= MMC_LINT_GAP_UNREAD;
	if (!mmc_snapshot_discovery_complete(c->snap)) {
		res->gaps |= MMC_LINT_GAP_DISCOVERY;
		snprintf(res->discovery_problem, sizeof(res->discovery_problem), "%s",
			 problem ? problem : "discovery stopped early");
	}
	if (mmc_snapshot_nranges(c->snap) == 0)
		res->gaps |= MMC_LINT_GAP_NO_RANGES;
	else if (res->pages_read == 0)
		res->gaps |= MMC_LINT_GAP_NO_PAGES;
	res->incomplete = res->gaps != 0;
	if (real)
		res->verdict = MMC_LINT_VIOLATIONS;
	else if (res->incomplete)
		res->verdict = MMC_LINT_INCOMPLETE;
	else
		res->verdict = MMC_LINT_CLEAN;
	for (unsigned int r = 0; r < MMC_RULE_COUNT; r++) {
		struct mmc_lint_rule_count *rc;

		if (!c->rule_pages[r])
			continue;
		rc = &res->rules[res->nrules++];
		snprintf(rc->rule, sizeof(rc->rule), "%s", mmc_rule_info((enum mmc_rule)r)->name);
		rc->rule_id = (enum mmc_rule)r;
		rc->pages = c->rule_pages[r];
	}
	if (res->nviolations)
		qsort(res->violations, res->nviolations, sizeof(*res->violations), cmp_violation);
}

struct mmc_error *mmc_lint(const struct mmc_snapshot *snap,
			   const struct mmc_lint_opts *opts,
			   struct mmc_lint_result **out)
{
	struct mmc_lint_result *res = NULL;
	struct mmc_error *err = NULL;
	struct lint_ctx *c = NULL;
	size_t nranges;

	*out = NULL;
	if (!snap)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL, "mmc_lint: no snapshot");
	res = calloc(1, sizeof(*res));
	c = calloc(1, sizeof(*c));
	if (!res || !c)
		goto nomem;
	c->max_groups = opts && opts->max_groups ? opts->max_groups : LINT_DEFAULT_MAX_GROUPS;
	c->snap = snap;
	c->opts = opts;
	c->res = res;
	c->layout = mmc_snapshot_layout(snap);
	c->geom = mmc_snapshot_geom(snap);
	if (!c->layout || !c->geom || !c->geom->struct_page_size) {
		err = mmc_error_create(MMC_ERR_INTERNAL, NULL,
				       "mmc_lint: snapshot without layout or geometry");
		goto fail;
	}
	ctx_init_kernel(c);

	nranges = mmc_snapshot_nranges(snap);
	for (size_t r = 0; r < nranges; r++) {
		err = range_begin(c, r);
		if (err) {
			lint_hugetlb_end(c);
			goto fail;
		}
		if (!range_check(c))
			goto nomem;
	}
	if (c->oom)
		goto nomem;
	conclude(c);
	free(c);
	*out = res;
	return NULL;
nomem:
	err = mmc_error_nomem();
fail:
	mmc_lint_result_destroy(res);
	free(c);
	return err;
}

void mmc_lint_result_destroy(struct mmc_lint_result *res)
{
	if (!res)
		return;
	free(res->violations);
	free(res);
}
