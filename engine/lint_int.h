/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside lint: the context its modules share.  lint.c drives the ranges and
 * keeps the violation groups; lint_page.c checks one struct page against
 * what the kernel wrote there; lint_folio.c a folio's page[1]/page[2];
 * lint_geom.c where compound pages start and which vmemmap frames they
 * share.  A range of another kind than a pgmap's brings its own module:
 * lint_hugetlb.c (a HugeTLB folio's head, what its pool says of it) with
 * lint_hvo.c (its vmemmap under HVO), lint_hotplug.c (a hot-plugged
 * block's self-hosted memmap); they set the geometry lint_page.c's shared
 * checks read.  Every check names its rule from rules.h.
 *
 * Checks take one pfn and its record.  Pages of a snapshot run that repeat
 * the same record relative to their head give the same verdict, so a
 * per-run pass can call the same checks once per distinct position.
 */
#ifndef MMC_LINT_INT_H
#define MMC_LINT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "lint.h"
#include "page_decode.h"
#include "rules.h"
#include "snapshot.h"

/* An open group of consecutive pfns breaking one rule. */
struct lint_group {
	bool active;
	uint64_t first, last;
	char message[200];
};

/* Where memmap_init_zone_device() puts a pfn. */
enum lint_place {
	LP_NONE,	/* not initialised by the kernel (altmap reserve) */
	LP_ALTMAP,	/* memmap_init_range(): pfns holding the memmap */
	LP_SINGLE,	/* order-0 device page */
	LP_HEAD,	/* head of a compound page */
	LP_TAIL,	/* page[index] of the compound page at head */
};

struct lint_expect {
	enum lint_place place;
	uint64_t head;		/* LP_HEAD / LP_TAIL */
	uint64_t index;		/* pfn - head */
};

/* The compound page whose tails are being checked. */
struct lint_head {
	bool valid;		/* filled for pfn */
	uint64_t pfn;
	bool readable;		/* its record was read */
	bool proper;		/* PG_head and not itself a tail */
	bool folio_known;	/* page[1] decoded: mapped is meaningful */
	bool mapped;		/* the folio is mapped (page[1]'s mapcounts) */
	uint32_t zone, node;	/* its own (HugeTLB: what its tails must have) */
};

/* pfns [lo, hi) */
struct lint_span {
	uint64_t lo, hi;
};

/* A HugeTLB range (lint_hugetlb.c, lint_hvo.c). */
struct lint_huge {
	const struct mmc_shstate *hs;	/* the snapshot's hstates */
	const struct mmc_shstate *h;	/* the range's */
	const struct mmc_sfolios *spans;	/* the snapshot's, sorted */
	size_t nspans;
	size_t at;			/* the span last found (lookups go up) */
	const struct mmc_smemblock *blocks;	/* the hot-plugged blocks */
	size_t nblocks;
	/*
	 * pfns whose struct pages read their own folio's first vmemmap page
	 * through HVO's remapping (6.x "fake heads", rules.h
	 * mmc_rule_hvo_tails()): the kernel never reads them as pages of
	 * their own, their bytes are checked at the first page's pfns.
	 * Sorted, disjoint.
	 */
	struct lint_span *alias;
	size_t nalias, alias_cap;
	size_t alias_at;		/* the span last found */
};

/* A wrong compound_head's target, analysed once per target and head. */
struct lint_target {
	bool valid;
	uint64_t pfn, want;
	enum mmc_rule rule;
	char message[200];
};

struct lint_ctx {
	const struct mmc_snapshot *snap;
	const struct mmc_layout *layout;
	const struct mmc_geom *geom;
	const struct mmc_lint_opts *opts;
	struct mmc_lint_result *res;
	size_t max_groups;
	size_t violations_cap;		/* res->violations grows up to max_groups */
	bool oom;			/* a violation could not be kept */
	uint64_t rule_pages[MMC_RULE_COUNT];
	/* the fill patterns' words, which the pages lint_pattern.c counts
	 * without checking must not hold (set by lint_range_pages()) */
	uint64_t fills[256];
	size_t nfills;

	/* the kernel */
	struct mmc_kver kver;
	bool have_zone_device;
	int64_t zone_device;
	bool have_pg_reserved, have_pg_head;
	unsigned int pg_reserved, pg_head;
	bool have_pg_hwpoison, have_pg_self_hosted;
	unsigned int pg_hwpoison, pg_self_hosted;
	uint64_t second_mask;		/* PAGE_FLAGS_SECOND */
	uint32_t sps;			/* sizeof(struct page) */
	/* slots of struct page members (have_* false: not slot-aligned) */
	bool have_mapping, have_private, have_index, have_zdd, have_memcg, have_lru;
	unsigned int mapping_slot, private_slot, index_slot, zdd_slot, memcg_slot, lru_slot;

	/* the range */
	size_t range;
	const struct mmc_srange *sr;
	enum mmc_range_kind kind;	/* which of the checks below apply */
	const char *order_what;		/* where the compound order comes from, for messages */
	struct lint_huge *huge;		/* MMC_RANGE_HUGETLB */
	const struct mmc_smemblock *block;	/* MMC_RANGE_HOTPLUG */
	const struct mmc_spgmap *pg;	/* MMC_RANGE_PGMAP */
	const char *type_name;		/* for messages */
	enum mmc_memory_type type;	/* what the checks switch on */
	uint64_t dev_start;		/* first pfn memmap_init_zone_device() writes */
	uint32_t order;			/* pgmap->vmemmap_shift, capped */
	uint64_t nr;			/* 1 << order */
	/* compound pages [first_head, compound_end), heads every nr pfns;
	 * the device pfns around them are order-0 pages */
	uint64_t first_head, compound_end;
	bool aligned_layout;		/* heads at aligned pfns (see lint_geom.c) */
	bool have_node, have_zone;
	uint32_t node;			/* node of the range's first initialised page */
	uint64_t node_pfn;
	uint32_t zone;			/* hot-plug: zone of the range's first page */
	uint64_t zone_pfn;
	bool dax_known;
	uint64_t dax_start, dax_end;	/* device-dax data pfns [start, end) */
	struct lint_group open[MMC_RULE_COUNT];
	struct lint_head head;
	struct lint_target target;
	uint64_t target_reads;		/* analyse_target() calls: pfns read */
	/* other pages read by checks that may pass (a driver folio's head):
	 * the lowest and highest pfn since lint_pattern.c last asked */
	bool read_other;
	uint64_t read_lo, read_hi;
};

void lint_violate(struct lint_ctx *c, enum mmc_rule rule, uint64_t pfn,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Say once in the result that `rule` could not be checked, and why. */
void lint_unchecked(struct lint_ctx *c, enum mmc_rule rule, const char *why);
/* The same for pfns [pfn, pfn + n), in order, one message. */
void lint_violate_n(struct lint_ctx *c, enum mmc_rule rule, uint64_t pfn, uint64_t n,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* lint_geom.c */
void lint_geom_range(struct lint_ctx *c);
struct lint_expect lint_expect(const struct lint_ctx *c, uint64_t pfn);
void lint_check_head_align(struct lint_ctx *c, uint64_t pfn);
void lint_check_dax_range(struct lint_ctx *c, uint64_t head, uint64_t nr);
/* The vmemmap frames of the range: vmemmap-share, head-frame.  false when
 * out of memory. */
bool lint_check_vframes(struct lint_ctx *c);

/* lint_pattern.c: the range's pages, a repeated pattern checked once
 * where that gives the same result as checking every page */
void lint_range_pages(struct lint_ctx *c);

/* lint_page.c */
void lint_check_page(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec);

/* lint_folio.c: page[1]/page[2] of the head at pfn (its record rec);
 * fills c->head's folio state.  Returns whether the folio is mapped. */
bool lint_check_folio(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec);
/* Mapped, by page[1]'s counters: _large_mapcount (6.10+), else the
 * entire/compound mapcount (6.1). */
bool lint_folio_mapped(const struct mmc_folio_view *fv);

/* lint_hugetlb.c: a HugeTLB range begins (its geometry, pool, vmemmap)
 * and ends; the head of one of its folios. */
struct mmc_error *lint_hugetlb_begin(struct lint_ctx *c);
void lint_hugetlb_end(struct lint_ctx *c);
void lint_hugetlb_head(struct lint_ctx *c, uint64_t pfn, const struct mmc_nrec *rec,
		       const struct mmc_page_view *v);
/* Whether the kernel keeps slot `slot` of page[index] of this range's
 * folios for itself (struct folio members, HugeTLB's too). */
bool lint_folio_word(const struct lint_ctx *c, uint64_t index, unsigned int slot);
/* The pages [lo, hi) are alike to the pool: one folio span, no alias. */
bool lint_hugetlb_uniform(const struct lint_ctx *c, uint64_t lo, uint64_t hi);
/* How many pfns from pfn on (at most n) are all aliases (*alias) or all
 * not (lint_huge.alias); n and false outside HugeTLB ranges. */
uint64_t lint_alias_run(const struct lint_ctx *c, uint64_t pfn, uint64_t n, bool *alias);
/* Add an alias span (lint_hvo.c, in pfn order); false when out of memory. */
bool lint_alias_add(struct lint_huge *hu, uint64_t lo, uint64_t hi);

/* lint_hvo.c: the vmemmap frames of the range's folios, against what HVO
 * maps (hvo-share, hvo-ro); fills the alias spans.  false when out of
 * memory. */
bool lint_hvo_check(struct lint_ctx *c);

/* lint_hotplug.c: a hot-plug range begins; one of its memmap pages. */
struct mmc_error *lint_hotplug_begin(struct lint_ctx *c);
void lint_hotplug_page(struct lint_ctx *c, uint64_t pfn, const struct mmc_page_view *v);

#endif
