// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lint: rules every initialised ZONE_DEVICE memmap must satisfy, checked on
 * one snapshot (see lint.h).  One pass per range with the snapshot cursor;
 * heads are looked up once per compound page (the last head is cached), so
 * the cost is one decode per page plus O(log runs) per compound page.
 *
 * What the kernel writes, per version (mm/mm_init.c, read in 6.12.117 and
 * 7.2.8): __init_zone_device_page() sets PG_reserved on every device page,
 * heads and tails alike, in both; memmap_init_range() sets PG_reserved on the
 * altmap pfns that hold the memmap.  Refcount: before 6.15 only
 * MEMORY_DEVICE_PRIVATE/COHERENT start at 0; from 6.15 FS_DAX, PRIVATE,
 * COHERENT and PCI_P2PDMA start at 0 and GENERIC at 1.  Tails always 0, with
 * mapping = TAIL_MAPPING.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "page_decode.h"

enum lint_rule {
	R_TAIL_HEAD, R_HEAD_CYCLE, R_ORDER, R_REFCOUNT, R_PGMAP, R_ZONE,
	R_RESERVED, R_POISON, R_VMEMMAP_SHARE, R_UNREADABLE, R_COUNT
};

static const char *const rule_names[R_COUNT] = {
	[R_TAIL_HEAD] = "tail-head",
	[R_HEAD_CYCLE] = "head-cycle",
	[R_ORDER] = "order",
	[R_REFCOUNT] = "refcount",
	[R_PGMAP] = "pgmap",
	[R_ZONE] = "zone",
	[R_RESERVED] = "reserved",
	[R_POISON] = "poison",
	[R_VMEMMAP_SHARE] = "vmemmap-share",
	[R_UNREADABLE] = "unreadable",
};

#define TAIL_MAPPING_V 0x400	/* include/linux/poison.h: 0x400 + delta */
#define HEAD_DEPTH_MAX 2

/* An open group of consecutive pfns breaking one rule. */
struct open_group {
	bool active;
	uint64_t first, last;
	char message[200];
};

/* What a tail needs to know about its head, cached per head pfn. */
struct head_info {
	bool valid;		/* cache entry filled */
	uint64_t pfn;
	int rule;		/* -1: a proper head; else the rule its tails break */
	char message[200];
	uint64_t nr;		/* 1 << order of page[1] */
};

struct lint_ctx {
	const struct mmc_snapshot *snap;
	const struct mmc_layout *layout;
	const struct mmc_geom *geom;
	struct mmc_lint_result *res;
	size_t max_groups;
	uint64_t rule_pages[R_COUNT];
	/* kernel facts */
	int major, minor;
	bool have_zone_device;
	int64_t zone_device;
	bool have_pg_reserved;
	unsigned int pg_reserved;
	unsigned int mapping_slot;
	bool have_mapping_slot;
	/* current range */
	size_t range;
	const struct mmc_srange *sr;
	const struct mmc_spgmap *pg;
	const char *type_name;
	struct open_group open[R_COUNT];
	struct head_info head;
};

static bool rule_flush(struct lint_ctx *c, int rule)
{
	struct open_group *g = &c->open[rule];
	struct mmc_lint_result *res = c->res;
	struct mmc_lint_violation *v;

	if (!g->active)
		return true;
	g->active = false;
	if (res->nviolations >= c->max_groups)
		return true;
	v = &res->violations[res->nviolations++];
	snprintf(v->rule, sizeof(v->rule), "%s", rule_names[rule]);
	v->range = c->range;
	v->pfn = g->first;
	v->npages = g->last - g->first + 1;
	snprintf(v->message, sizeof(v->message), "%s", g->message);
	return true;
}

static void violate(struct lint_ctx *c, int rule, uint64_t pfn,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void violate(struct lint_ctx *c, int rule, uint64_t pfn,
		    const char *fmt, ...)
{
	struct open_group *g = &c->open[rule];
	va_list ap;

	if (g->active && g->last == pfn)
		return;	/* same page, same rule twice: counted once */
	c->rule_pages[rule]++;
	c->res->violations_total++;
	if (g->active && g->last + 1 == pfn) {
		g->last = pfn;
		return;
	}
	rule_flush(c, rule);
	g->active = true;
	g->first = g->last = pfn;
	va_start(ap, fmt);
	vsnprintf(g->message, sizeof(g->message), fmt, ap);
	va_end(ap);
}

/* "6.12.117" -> 6, 12; false if it does not start with two numbers. */
static bool parse_release(const char *rel, int *major, int *minor)
{
	char *end;
	long ma, mi;

	ma = strtol(rel, &end, 10);
	if (end == rel || *end != '.')
		return false;
	rel = end + 1;
	mi = strtol(rel, &end, 10);
	if (end == rel)
		return false;
	*major = (int)ma;
	*minor = (int)mi;
	return true;
}

static bool version_ge(const struct lint_ctx *c, int major, int minor)
{
	return c->major > major || (c->major == major && c->minor >= minor);
}

/* PG_reserved on device pages: every version read so far sets it (6.1,
 * 6.12, 7.2 __init_zone_device_page and memmap_init_range for altmap pfns). */
static bool reserved_expected(const struct lint_ctx *c)
{
	return c->have_pg_reserved;
}

/* Initial refcount of a head / order-0 page of this pgmap type. */
static int expected_refcount(const struct lint_ctx *c, const char *type)
{
	bool private_like = strcmp(type, "MEMORY_DEVICE_PRIVATE") == 0 ||
			    strcmp(type, "MEMORY_DEVICE_COHERENT") == 0;

	if (!version_ge(c, 6, 15))
		return private_like ? 0 : 1;
	if (private_like || strcmp(type, "MEMORY_DEVICE_FS_DAX") == 0 ||
	    strcmp(type, "MEMORY_DEVICE_PCI_P2PDMA") == 0)
		return 0;
	return 1;
}

/* 7.x with HVO: compound_info holds a mask | 1 instead of head | 1. */
static bool head_from_mask(const struct lint_ctx *c, uint64_t pfn,
			   const struct mmc_page_view *v, uint64_t *head_pfn)
{
	uint64_t mask = v->compound_head.raw & ~1ULL, addr, sps;
	unsigned int shift;

	if (v->compound_head.cls != MMC_V_RAW || mask == 0 ||
	    !(mask >> 63))
		return false;
	shift = (unsigned int)__builtin_ctzll(mask);
	if (shift >= 63 || (mask | ((1ULL << shift) - 1)) != UINT64_MAX)
		return false;
	sps = c->geom->struct_page_size;
	if (!sps)
		return false;
	addr = c->geom->vmemmap_base + pfn * sps;
	*head_pfn = ((addr & mask) - c->geom->vmemmap_base) / sps;
	return true;
}

static bool tail_head_pfn(const struct lint_ctx *c, uint64_t pfn,
			  const struct mmc_page_view *v, uint64_t *head_pfn)
{
	if (v->head_pfn_valid) {
		*head_pfn = v->head_pfn;
		return true;
	}
	if (v->compound_head.cls == MMC_V_PAGE) {
		*head_pfn = pfn + (uint64_t)v->compound_head.v;
		return true;
	}
	return head_from_mask(c, pfn, v, head_pfn);
}

static bool in_range(const struct lint_ctx *c, uint64_t pfn)
{
	return pfn >= c->sr->start_pfn && pfn < c->sr->end_pfn;
}

static void decode_at(const struct lint_ctx *c, uint64_t pfn,
		      const struct mmc_nrec *rec, struct mmc_page_view *v)
{
	mmc_page_decode(c->layout, c->geom, pfn, rec, v);
}

/* Folio fields of the head at pfn (page[1], page[2] from the snapshot). */
static bool folio_at(const struct lint_ctx *c, uint64_t pfn,
		     const struct mmc_nrec *head, struct mmc_folio_view *fv)
{
	struct mmc_nrec recs[3];
	size_t n = 1;

	recs[0] = *head;
	if (mmc_snapshot_get(c->snap, c->range, pfn + 1, &recs[1])) {
		n = 2;
		if (mmc_snapshot_get(c->snap, c->range, pfn + 2, &recs[2]))
			n = 3;
	}
	memset(fv, 0, sizeof(*fv));
	if (n < 2 || recs[1].state != MMC_PS_READ)
		return false;
	if (n == 3 && recs[2].state != MMC_PS_READ)
		n = 2;
	mmc_folio_decode(c->layout, c->geom, recs, n, fv);
	return fv->valid;
}

/* Fill c->head for head_pfn: is it a head its tails may point to? */
static void head_lookup(struct lint_ctx *c, uint64_t tail_pfn, uint64_t head_pfn)
{
	struct head_info *h = &c->head;
	struct mmc_nrec rec;
	struct mmc_page_view hv, hv2;
	struct mmc_folio_view fv;
	uint64_t h2;

	memset(h, 0, sizeof(*h));
	h->valid = true;
	h->pfn = head_pfn;
	h->rule = -1;
	h->nr = 1;
	if (!in_range(c, head_pfn) ||
	    !mmc_snapshot_get(c->snap, c->range, head_pfn, &rec)) {
		h->rule = R_TAIL_HEAD;
		snprintf(h->message, sizeof(h->message),
			 "compound_head points to pfn 0x%" PRIx64 " outside range 0x%" PRIx64 "-0x%" PRIx64,
			 head_pfn, c->sr->start_pfn, c->sr->end_pfn);
		return;
	}
	if (rec.state != MMC_PS_READ) {
		h->rule = -2;	/* head unreadable: reported as such */
		return;
	}
	decode_at(c, head_pfn, &rec, &hv);
	if (hv.tail) {
		/* A chain: follow at most HEAD_DEPTH_MAX links. */
		if (!tail_head_pfn(c, head_pfn, &hv, &h2)) {
			h->rule = R_TAIL_HEAD;
			snprintf(h->message, sizeof(h->message),
				 "compound_head points to pfn 0x%" PRIx64 ", a tail without a head",
				 head_pfn);
			return;
		}
		if (h2 == head_pfn || h2 == tail_pfn) {
			h->rule = R_HEAD_CYCLE;
			snprintf(h->message, sizeof(h->message),
				 "compound_head loops: 0x%" PRIx64 " -> 0x%" PRIx64 " -> 0x%" PRIx64,
				 tail_pfn, head_pfn, h2);
			return;
		}
		if (mmc_snapshot_get(c->snap, c->range, h2, &rec) &&
		    rec.state == MMC_PS_READ) {
			decode_at(c, h2, &rec, &hv2);
			if (hv2.tail) {
				h->rule = R_HEAD_CYCLE;
				snprintf(h->message, sizeof(h->message),
					 "compound_head chain deeper than %d: 0x%" PRIx64 " -> 0x%" PRIx64 " -> 0x%" PRIx64 " -> ...",
					 HEAD_DEPTH_MAX, tail_pfn, head_pfn, h2);
				return;
			}
		}
		h->rule = R_TAIL_HEAD;
		snprintf(h->message, sizeof(h->message),
			 "compound_head points to pfn 0x%" PRIx64 ", itself a tail of 0x%" PRIx64,
			 head_pfn, h2);
		return;
	}
	if (!hv.head) {
		h->rule = R_TAIL_HEAD;
		snprintf(h->message, sizeof(h->message),
			 "compound_head points to pfn 0x%" PRIx64 " without PG_head", head_pfn);
		return;
	}
	if (folio_at(c, head_pfn, &rec, &fv) && fv.order < 64)
		h->nr = 1ULL << fv.order;
	else
		h->nr = 1ULL << c->pg->vmemmap_shift;
}

static bool is_raw_poison(uint64_t raw)
{
	static const uint64_t pat[] = {
		0x6b6b6b6b6b6b6b6bULL,	/* POISON_FREE */
		0x5a5a5a5a5a5a5a5aULL,	/* POISON_INUSE */
		0xa5a5a5a5a5a5a5a5ULL,	/* POISON_END / KASAN-style fill */
		0xccccccccccccccccULL,	/* uninitialised stack / int3 fill */
	};

	for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (raw == pat[i])
			return true;
	return false;
}

static void check_poison(struct lint_ctx *c, uint64_t pfn,
			 const struct mmc_nrec *rec, bool tail)
{
	for (unsigned int s = 0; s < rec->nslots && s < MMC_MAX_SLOTS; s++) {
		const struct mmc_nval *sv = &rec->slot[s];
		char lbuf[48];

		if (sv->cls == MMC_V_POISON) {
			if (tail && c->have_mapping_slot && s == c->mapping_slot &&
			    sv->v == TAIL_MAPPING_V)
				continue;
			violate(c, R_POISON, pfn,
				"%s = 0x%016" PRIx64 " (poison +0x%" PRIx64 ") in an initialised page",
				mmc_slot_label(c->layout, s, tail ? 3 : 0, lbuf, sizeof(lbuf)),
				sv->raw, (uint64_t)sv->v);
			return;
		}
		if (is_raw_poison(sv->raw)) {
			violate(c, R_POISON, pfn, "%s = 0x%016" PRIx64 " (fill pattern)",
				mmc_slot_label(c->layout, s, tail ? 3 : 0, lbuf, sizeof(lbuf)),
				sv->raw);
			return;
		}
	}
}

static void check_common(struct lint_ctx *c, uint64_t pfn,
			 const struct mmc_page_view *v)
{
	if (c->have_zone_device && (int64_t)v->zone != c->zone_device)
		violate(c, R_ZONE, pfn, "zone %u, expected ZONE_DEVICE (%" PRId64 ")",
			v->zone, c->zone_device);
	if (reserved_expected(c) && !(v->pgflags & (1ULL << c->pg_reserved)))
		violate(c, R_RESERVED, pfn, "PG_reserved clear");
}

static void check_tail(struct lint_ctx *c, uint64_t pfn,
		       const struct mmc_page_view *v)
{
	uint64_t head_pfn;

	if (c->pg->vmemmap_shift == 0)
		violate(c, R_ORDER, pfn, "tail page in an order-0 pgmap");
	if (v->refcount != 0)
		violate(c, R_REFCOUNT, pfn, "tail _refcount %d, expected 0", v->refcount);
	if (!tail_head_pfn(c, pfn, v, &head_pfn)) {
		char buf[64];

		mmc_format_nval(&v->compound_head, buf, sizeof(buf));
		violate(c, R_TAIL_HEAD, pfn, "compound_head %s is not a struct page", buf);
		return;
	}
	if (head_pfn == pfn) {
		violate(c, R_HEAD_CYCLE, pfn, "compound_head points to its own page");
		return;
	}
	if (!c->head.valid || c->head.pfn != head_pfn)
		head_lookup(c, pfn, head_pfn);
	if (c->head.rule == -2)
		return;
	if (c->head.rule >= 0) {
		violate(c, c->head.rule, pfn, "%s", c->head.message);
		return;
	}
	if (pfn < head_pfn || pfn - head_pfn >= c->head.nr)
		violate(c, R_TAIL_HEAD, pfn,
			"tail outside its compound page: head 0x%" PRIx64 " has %" PRIu64 " pages",
			head_pfn, c->head.nr);
}

static bool page_mapped(const struct mmc_page_view *v, const struct mmc_folio_view *fv)
{
	if (v->mapping.cls != MMC_V_NULL || v->mapcount >= 0)
		return true;
	if (fv && fv->valid &&
	    ((fv->have_large_mapcount && fv->large_mapcount >= 0) ||
	     (fv->have_entire_mapcount && fv->entire_mapcount >= 0)))
		return true;
	return false;
}

static void check_refcount(struct lint_ctx *c, uint64_t pfn,
			   const struct mmc_page_view *v, int expected, bool mapped)
{
	if (v->refcount < 0)
		violate(c, R_REFCOUNT, pfn, "_refcount %d is negative", v->refcount);
	else if (v->refcount == 0 && expected > 0)
		violate(c, R_REFCOUNT, pfn, "_refcount 0, expected %d", expected);
	else if (v->refcount > expected && !mapped)
		violate(c, R_REFCOUNT, pfn, "_refcount %d on an unmapped page, expected %d",
			v->refcount, expected);
}

static void check_head_or_single(struct lint_ctx *c, uint64_t pfn,
				 const struct mmc_nrec *rec,
				 const struct mmc_page_view *v)
{
	struct mmc_folio_view fv;
	bool have_fv = false;
	uint32_t shift = c->pg->vmemmap_shift;

	if (v->pgmap.cls != MMC_V_PGMAP || v->pgmap.v != (int64_t)c->sr->pgmap_index) {
		char buf[64];

		mmc_format_nval(&v->pgmap, buf, sizeof(buf));
		violate(c, R_PGMAP, pfn, "pgmap %s, expected pgmap#%u", buf,
			c->sr->pgmap_index);
	}
	if (v->head) {
		if (shift == 0) {
			violate(c, R_ORDER, pfn, "PG_head in an order-0 pgmap");
		} else if (!(have_fv = folio_at(c, pfn, rec, &fv))) {
			violate(c, R_ORDER, pfn, "page[1] of head 0x%" PRIx64 " not readable in range", pfn);
		} else {
			if (fv.order != shift)
				violate(c, R_ORDER, pfn, "folio order %u, pgmap vmemmap_shift %u",
					fv.order, shift);
			else if (fv.have_nr_pages && fv.nr_pages != (1ULL << fv.order))
				violate(c, R_ORDER, pfn, "_folio_nr_pages %" PRIu64 ", expected %llu",
					fv.nr_pages, 1ULL << fv.order);
		}
		/* Cache the head for its tails. */
		c->head.valid = false;
	} else if (shift != 0 && rec->role == MMC_ROLE_DEVICE) {
		violate(c, R_ORDER, pfn, "neither head nor tail in a pgmap of order %u", shift);
	}
	check_refcount(c, pfn, v, expected_refcount(c, c->type_name),
		       page_mapped(v, have_fv ? &fv : NULL));
}

static void check_page(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec)
{
	struct mmc_page_view v;

	switch (rec->state) {
	case MMC_PS_UNREADABLE:
	case MMC_PS_UNMAPPED:
		c->res->incomplete = true;
		violate(c, R_UNREADABLE, pfn, "struct page %s",
			rec->state == MMC_PS_UNMAPPED ? "not mapped by the page tables"
						      : "missing from the dump");
		return;
	case MMC_PS_NOT_INIT:
		return;
	default:
		break;
	}
	if (rec->role == MMC_ROLE_RESERVE)
		return;
	decode_at(c, pfn, rec, &v);
	check_poison(c, pfn, rec, v.tail);
	check_common(c, pfn, &v);
	if (rec->role == MMC_ROLE_ALTMAP) {
		/* memmap_init_range(): __init_single_page, refcount 1, no compound */
		if (v.tail || v.head)
			violate(c, R_ORDER, pfn, "compound page on an altmap (memmap) pfn");
		check_refcount(c, pfn, &v, 1, false);
		return;
	}
	if (v.tail)
		check_tail(c, pfn, &v);
	else
		check_head_or_single(c, pfn, rec, &v);
}

/* Shared vmemmap frames: only without altmap, in a compound pgmap, and
 * both frames inside one compound page (never the frame holding the head). */
static void check_vframes(struct lint_ctx *c)
{
	size_t n = mmc_snapshot_range_nvframes(c->snap, c->range);
	uint32_t sps = c->geom->struct_page_size, psz = c->geom->page_size;
	uint64_t per, nr = 1ULL << c->pg->vmemmap_shift;

	if (!sps || !psz || psz % sps)
		return;
	per = psz / sps;
	for (size_t i = 0; i < n; i++) {
		struct mmc_vframe vf;
		uint64_t first, last, ofirst, cp_first, cp_last;
		const char *why = NULL;

		mmc_snapshot_range_vframe(c->snap, c->range, i, &vf);
		if (vf.share_back == 0)
			continue;
		first = c->sr->start_pfn + i * per;
		last = first + per - 1;
		if (last >= c->sr->end_pfn)
			last = c->sr->end_pfn - 1;
		if (vf.share_back < 0 || (uint64_t)vf.share_back > i) {
			why = "bad share_back";
		} else if (c->pg->vmemmap_shift == 0) {
			why = "shared in an order-0 pgmap";
		} else if (c->pg->has_altmap) {
			why = "shared with an altmap (memmap in device memory)";
		} else {
			ofirst = c->sr->start_pfn + (i - (uint64_t)vf.share_back) * per;
			cp_first = (ofirst - c->sr->start_pfn) / nr;
			cp_last = (last - c->sr->start_pfn) / nr;
			if (cp_first != cp_last)
				why = "shares a frame with another compound page";
			else if ((ofirst - c->sr->start_pfn) % nr == 0)
				why = "shares the frame holding the head";
		}
		if (!why)
			continue;
		for (uint64_t p = first; p <= last; p++)
			violate(c, R_VMEMMAP_SHARE, p,
				"vmemmap page %zu maps the frame of page %" PRIu64 " back (0x%" PRIx64 "): %s",
				i, (uint64_t)vf.share_back, vf.paddr, why);
	}
}

static void flush_all(struct lint_ctx *c)
{
	for (int r = 0; r < R_COUNT; r++)
		rule_flush(c, r);
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

static void ctx_init_kernel(struct lint_ctx *c)
{
	const struct mmc_snapshot_info *info = mmc_snapshot_info(c->snap);
	const struct mmc_member *m;
	int64_t val;

	if (!info || !parse_release(info->release, &c->major, &c->minor)) {
		if (!parse_release(c->layout->release, &c->major, &c->minor)) {
			/* No release: the pgmap moved into struct folio in 6.15
			 * together with the refcount policy change. */
			bool folio_pgmap = c->layout->member[MMC_FOLIO_PGMAP].found;

			c->major = 6;
			c->minor = folio_pgmap ? 15 : 14;
		}
	}
	c->have_zone_device = mmc_layout_enum_value(c->layout, MMC_ENUM_ZONE_TYPE,
						    "ZONE_DEVICE", &c->zone_device);
	if (mmc_layout_enum_value(c->layout, MMC_ENUM_PAGEFLAGS, "PG_reserved", &val) &&
	    val >= 0 && val < 64) {
		c->have_pg_reserved = true;
		c->pg_reserved = (unsigned int)val;
	}
	m = &c->layout->member[MMC_PAGE_MAPPING];
	if (m->found) {
		c->have_mapping_slot = true;
		c->mapping_slot = m->offset / 8;
	}
}

struct mmc_error *mmc_lint(const struct mmc_snapshot *snap,
			   const struct mmc_lint_opts *opts,
			   struct mmc_lint_result **out)
{
	struct mmc_lint_result *res;
	struct lint_ctx *c;
	size_t nranges;

	*out = NULL;
	if (!snap)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL, "mmc_lint: no snapshot");
	res = calloc(1, sizeof(*res));
	c = calloc(1, sizeof(*c));
	if (!res || !c)
		goto nomem;
	c->max_groups = opts && opts->max_groups ? opts->max_groups : 200;
	res->violations = calloc(c->max_groups, sizeof(*res->violations));
	if (!res->violations)
		goto nomem;
	c->snap = snap;
	c->res = res;
	c->layout = mmc_snapshot_layout(snap);
	c->geom = mmc_snapshot_geom(snap);
	if (!c->layout || !c->geom) {
		free(res->violations);
		free(res);
		free(c);
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"mmc_lint: snapshot without layout or geometry");
	}
	ctx_init_kernel(c);

	nranges = mmc_snapshot_nranges(snap);
	for (size_t r = 0; r < nranges; r++) {
		struct mmc_snapshot_cursor cur;
		struct mmc_nrec rec;
		uint64_t pfn;

		c->range = r;
		c->sr = mmc_snapshot_range(snap, r);
		if (c->sr->pgmap_index >= mmc_snapshot_npgmaps(snap)) {
			struct mmc_error *err = mmc_error_create(MMC_ERR_CORRUPT, NULL,
				"range %zu: pgmap index %u of %zu", r,
				c->sr->pgmap_index, mmc_snapshot_npgmaps(snap));

			mmc_lint_result_destroy(res);
			free(c);
			return err;
		}
		c->pg = mmc_snapshot_pgmap(snap, c->sr->pgmap_index);
		c->type_name = c->pg->type_name;
		if (!c->type_name[0]) {
			const char *n = mmc_layout_enum_name(c->layout, MMC_ENUM_MEMORY_TYPE,
							     c->pg->type);
			c->type_name = n ? n : "";
		}
		memset(c->open, 0, sizeof(c->open));
		c->head.valid = false;
		mmc_snapshot_cursor_init(snap, r, &cur);
		while (mmc_snapshot_cursor_next(&cur, &pfn, &rec)) {
			res->pages_checked++;
			check_page(c, pfn, &rec);
		}
		flush_all(c);
		check_vframes(c);
		flush_all(c);
	}

	for (int r = 0; r < R_COUNT; r++) {
		if (!c->rule_pages[r] || res->nrules >= sizeof(res->rules) / sizeof(res->rules[0]))
			continue;
		snprintf(res->rules[res->nrules].rule, sizeof(res->rules[0].rule), "%s",
			 rule_names[r]);
		res->rules[res->nrules].pages = c->rule_pages[r];
		res->nrules++;
	}
	qsort(res->violations, res->nviolations, sizeof(*res->violations), cmp_violation);
	free(c);
	*out = res;
	return NULL;
nomem:
	if (res)
		free(res->violations);
	free(res);
	free(c);
	return mmc_error_nomem();
}

void mmc_lint_result_destroy(struct mmc_lint_result *res)
{
	if (!res)
		return;
	free(res->violations);
	free(res);
}
