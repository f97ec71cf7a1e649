/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside lint: the context its modules share.  lint.c drives the ranges and
 * keeps the violation groups; lint_page.c checks one struct page against
 * what the kernel wrote there; lint_folio.c a folio's page[1]/page[2];
 * lint_geom.c where compound pages start and which vmemmap frames they
 * share.  Every check names its rule from rules.h.
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
	uint64_t second_mask;		/* PAGE_FLAGS_SECOND */
	uint32_t sps;			/* sizeof(struct page) */
	/* slots of struct page members (have_* false: not slot-aligned) */
	bool have_mapping, have_private, have_index, have_zdd, have_memcg, have_lru;
	unsigned int mapping_slot, private_slot, index_slot, zdd_slot, memcg_slot, lru_slot;

	/* the range */
	size_t range;
	const struct mmc_srange *sr;
	const struct mmc_spgmap *pg;
	const char *type_name;		/* for messages */
	enum mmc_memory_type type;	/* what the checks switch on */
	uint64_t dev_start;		/* first pfn memmap_init_zone_device() writes */
	uint32_t order;			/* pgmap->vmemmap_shift, capped */
	uint64_t nr;			/* 1 << order */
	/* compound pages [first_head, compound_end), heads every nr pfns;
	 * the device pfns around them are order-0 pages */
	uint64_t first_head, compound_end;
	bool aligned_layout;		/* heads at aligned pfns (see lint_geom.c) */
	bool have_node;
	uint32_t node;			/* node of the range's first initialised page */
	uint64_t node_pfn;
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

#endif
