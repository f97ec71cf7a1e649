/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside diff: the context its modules share.
 *
 *   diff.c        ranges paired between the images (HugeTLB ranges folio
 *                 by folio), verdicts, the result
 *   diff_chunk.c  the two images' runs walked side by side, compared a
 *                 chunk (an overlap of two runs) at a time
 *   diff_pair.c   first-appearance object numbers paired one-to-one
 *   diff_names.c  what differs, named as the kernel names it, counted per
 *                 field, grouped over pfns, first pages kept
 *   diff_pgmap.c  pgmaps and range roles compared
 *   diff_claims.c claims bound to the images, differences matched with
 *                 them chunk by chunk
 */
#ifndef MMC_DIFF_INT_H
#define MMC_DIFF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "diff.h"
#include "rules.h"

/* What differs on one page (constant over a chunk). */
struct sig {
	uint32_t slot_mask;	/* differing slots (the flags slot too) */
	bool flags_split;	/* flags slot differs, both RAW: named per bit */
	uint64_t flag_xor;
	enum mmc_tail_index tail;	/* a's page kind */
	bool state, role;
	/* slots holding two 4-byte members (_mapcount+_refcount): which
	 * halves differ, bit 0 the low one; 0 when named as a whole */
	uint8_t half[MMC_MAX_SLOTS];
};

/* One image's current run in one range. */
struct side {
	const struct mmc_snapshot *s;
	size_t range, run, nruns;
	uint64_t start, count;
	struct mmc_nrec first, stride;
};

/* Pages per field, per page kind, as diff_names.c names them.  Named:
 * range, the two vmemmap fields, the pgmap and pool fields (claims.c),
 * each counted once; more go to "(other fields)". */
#define DIFF_MAX_NAMED 40
struct field_counts {
	uint64_t slot[MMC_MAX_SLOTS][MMC_TAIL_KINDS];
	uint64_t half[MMC_MAX_SLOTS][MMC_TAIL_KINDS][2];
	uint64_t zone[MMC_TAIL_KINDS], node[MMC_TAIL_KINDS];
	uint64_t bit[MMC_TAIL_KINDS][64], order[MMC_TAIL_KINDS];
	uint64_t state, role;
	/* fields that are not slots of a struct page: "vmemmap_frame", ... */
	size_t nnamed;
	struct mmc_diff_field_count named[DIFF_MAX_NAMED];
};

/* Consecutive pfns with the same fields, into a list of groups. */
struct grouper {
	bool open;
	struct sig sig;
	struct mmc_diff_group g;
	struct mmc_diff_group **arr;
	size_t *n, cap;
	uint64_t *total;
};

struct claims_bound;

struct dctx {
	const struct mmc_snapshot *a, *b;
	const struct mmc_layout *layout_a;
	const struct mmc_geom *geom_a;
	unsigned int flags_slot, ch_slot;
	/* struct page's lru (two slots from lru_slot), when slot-aligned */
	bool have_lru;
	unsigned int lru_slot;
	/* per range: a head's lru is its place on a HugeTLB list, not
	 * compared (mmc_rule_hugetlb_list_word()) */
	bool list_links;
	/* per range: its kind (enum mmc_range_kind), which names the words */
	uint8_t kind;
	size_t max_pages, max_groups;
	bool per_page;
	struct mmc_diff_result *res;
	size_t ranges_cap;		/* res->ranges' room */
	size_t pages_cap;
	/* per range */
	size_t ri;
	struct field_counts cnt;	/* what differs (with claims: uncovered) */
	/* per slot and page kind: the two members' names when it splits */
	bool split[MMC_MAX_SLOTS][MMC_TAIL_KINDS];
	char half_name[MMC_MAX_SLOTS][MMC_TAIL_KINDS][2][48];
	struct grouper grp;		/* differing (uncovered) pages */
	struct grouper cgrp;		/* claimed pages */
	struct claims_bound *claims;	/* diff_claims.c; NULL without claims */
	bool oom;
	/* object pairing (diff_pair.c); numbers beyond what an image's
	 * pages can number make it corrupt (bad_obj: the first, side 0/1) */
	int64_t *a2b, *b2a;
	size_t a2b_cap, b2a_cap;
	uint64_t obj_limit[2];
	bool bad_obj_seen;
	int bad_obj_side;
	int64_t bad_obj;
	/* pgmap pairing: a's pgmap i is b's pg_a2b[i] (-1: none), from the
	 * ranges the two images share */
	int64_t *pg_a2b;
	size_t npg_a;
};

/* diff_pair.c */
bool diff_nval_equal(struct dctx *c, const struct mmc_nval *x, const struct mmc_nval *y);
/* Pair a's pgmaps with b's through the ranges both images have; bound
 * each image's object numbers by its page count. */
bool diff_pair_pgmaps(struct dctx *c, const struct mmc_snapshot *a,
		      const struct mmc_snapshot *b);
void diff_pair_free(struct dctx *c);

/* diff_names.c */
void diff_names_init(struct dctx *c);
void diff_names_reset(struct dctx *c);
bool diff_sig_any(const struct sig *s);
/* The names diff prints: a slot of a page kind, a flag bit ("flags.PG_head",
 * "_flags_1.bit40"), the flags word's prefix ("flags", "_flags_1"). */
void diff_slot_name(const struct dctx *c, unsigned int slot, enum mmc_tail_index tail,
		    char *buf, size_t size);
void diff_bit_name(const struct dctx *c, enum mmc_tail_index tail, unsigned int bit,
		   char *buf, size_t size);
void diff_flags_prefix(const struct dctx *c, enum mmc_tail_index tail, char *buf, size_t size);
/* page[1]'s order byte in its flags word (0 where the kernel has none). */
uint64_t diff_order_mask(const struct dctx *c, enum mmc_tail_index tail);
void diff_count_fields(struct dctx *c, struct field_counts *fc, const struct sig *s, uint64_t n);
void diff_count_named(struct field_counts *fc, const char *name, uint64_t n);
void diff_add_field(struct mmc_diff_range *dr, const char *name, uint64_t n);
void diff_add_field_to(struct mmc_diff_field_count *fields, size_t *nfields,
		       const char *name, uint64_t n);
/* Names and pages of fc into fields (added to what is there). */
void diff_flush_counts(struct dctx *c, const struct field_counts *fc,
		       struct mmc_diff_field_count *fields, size_t *nfields);
void diff_flush_fields(struct dctx *c, struct mmc_diff_range *dr);
void diff_close_group(struct dctx *c, struct grouper *gr);
void diff_close_groups(struct dctx *c);
/* claim: the claimed group's first claim (-1 for differing pages) */
void diff_note_group(struct dctx *c, struct grouper *gr, const struct sig *s, int32_t claim,
		     uint64_t pfn, uint64_t n);
void diff_note_pages(struct dctx *c, const struct sig *s, uint64_t pfn, uint64_t n,
		     const struct side *A, const struct side *B);
/* Pages [pfn, pfn + n) differ in s, no claim covering: counted, grouped,
 * the first ones kept. */
void diff_note_differing(struct dctx *c, struct mmc_diff_range *dr, const struct sig *s,
			 uint64_t pfn, uint64_t n, const struct side *A, const struct side *B);
/* ndiff of the vmemmap pages [idx, idx + n) of the range differ in
 * `field` (vmemmap_frame, ...): counted, or covered by a claim.  Every
 * vmemmap-page field goes through here, so claims match it by name.
 * Returns how many were counted as differing (0 when a claim covers them). */
uint64_t diff_note_vframes(struct dctx *c, struct mmc_diff_range *dr, const char *field,
			   uint64_t idx, uint64_t n, uint64_t ndiff);

/* diff_claims.c */
/* Bind opts->claims to the images (c->a, c->b): field names checked, the
 * result's claims part made.  NULL without claims. */
struct mmc_error *diff_claims_bind(struct dctx *c, const struct mmc_claims *claims,
				   bool strict);
void diff_claims_free(struct dctx *c);
/* The result gets range c->res->nranges: its counts per claim, zero
 * (false: out of memory). */
bool diff_claims_new_range(struct dctx *c);
/* A range begins (c->ri set, dr's pfns and sides): which claims apply. */
void diff_claims_range(struct dctx *c, const struct mmc_diff_range *dr);
/* Pages [pos, pos + n) differ in s (A and B the two images' runs there):
 * ra, rb the records at pos; split by what the claims cover; the
 * uncovered part is noted as
 * differing (diff_note_differing()), the rest counted per claim. */
void diff_claims_chunk(struct dctx *c, struct mmc_diff_range *dr, const struct sig *s,
		       uint64_t pos, uint64_t n, const struct side *A, const struct side *B,
		       const struct mmc_nrec *ra, const struct mmc_nrec *rb);
/* How many of the vmemmap pages [idx, idx + n) a claim's pfn window does
 * not split (>= 1). */
uint64_t diff_claims_vclip(const struct dctx *c, const struct mmc_diff_range *dr,
			   uint64_t idx, uint64_t n);
/* Vmemmap pages [idx, idx + n): nframe of them map another frame, all
 * n differ in the writable bit if wdiff (wa -> wb, 0/1): counted as
 * claimed per claim or as differing (dr->vframes_differing, the fields). */
void diff_claims_vpages(struct dctx *c, struct mmc_diff_range *dr, uint64_t idx, uint64_t n,
			uint64_t nframe, bool wdiff, int wa, int wb);
/* true if a claim covers ndiff vmemmap pages at idx differing in field
 * (counted for it). */
bool diff_claims_vframes(struct dctx *c, struct mmc_diff_range *dr, const char *field,
			 uint64_t idx, uint64_t ndiff);
/* true if a claim covers the range dr, only in one image (side 0: a). */
bool diff_claims_range_only(struct dctx *c, struct mmc_diff_range *dr, int side);
/*
 * A pgmap (or range attribute) difference, sentence as diff_pgdiff()
 * would list it: true if a claim covers it (then it is kept as claimed).
 * side, pgmap: the image (0 a, 1 b) and pgmap it is judged on; range:
 * the a-range it concerns, or -1 for the whole pgmap; va, vb: the two
 * values (NULL: no value), word_a/word_b for type names.
 */
bool diff_claims_pgdiff(struct dctx *c, const char *member, int side, int64_t pgmap,
			int64_t range, const struct mmc_nval *va, const struct mmc_nval *vb,
			const char *word_a, const char *word_b, const char *sentence);
/*
 * A difference of the HugeTLB pools or memory blocks (diff_pools.c), as
 * claims judge it: its field (claims.c's pool fields), the image and the
 * hstate, folio or block `where` judges it on (the base image unless only
 * the patched one has it), the pfns pfn= and range= judge, its values.
 */
struct pool_diff {
	const char *field;		/* "hstate.nr_huge_pages", "folio.list", ... */
	int side;			/* 0 a, 1 b */
	uint8_t kind;			/* MMC_RANGE_HUGETLB or MMC_RANGE_HOTPLUG */
	uint64_t order;			/* order=; UINT64_MAX: its hstate is missing */
	int64_t hstate;			/* an hstate's own difference: its index (its
					 * ranges, in both images, are judged); else -1 */
	uint64_t lo, hi;		/* else a folio's or a block's pfns [lo, hi) */
	struct mmc_nval va, vb;		/* numbers, 0/1 */
	const char *word_a, *word_b;	/* or words (folio.list, folio.vmemmap) */
};
/* true if a claim covers d (counted for the claims covering it); its
 * sentence is kept as claimed when show, else counted for
 * diff_claims_pool_more(). */
bool diff_claims_pooldiff(struct dctx *c, const struct pool_diff *d, const char *sentence,
			  bool show);
/* The claimed differences not shown, one line per claim: "and N more
 * <what>". */
void diff_claims_pool_more(struct dctx *c, const char *what);
/* After the last range: per-claim counts, claims not seen. */
void diff_claims_finish(struct dctx *c);

/* diff_chunk.c */
/* The pages [lo, hi) of dr (within a's range ia and b's range ib). */
struct mmc_error *diff_pages(struct dctx *c, struct mmc_diff_range *dr, uint64_t lo, uint64_t hi,
			     const struct mmc_snapshot *a, size_t ia,
			     const struct mmc_snapshot *b, size_t ib);
/* The vmemmap pages of two ranges with the same pfns. */
void diff_vframes(struct dctx *c, struct mmc_diff_range *dr,
		  const struct mmc_snapshot *a, size_t ia,
		  const struct mmc_snapshot *b, size_t ib);
/* The vmemmap pages of the pfns [lo, hi) of dr, in a's range ia and b's
 * range ib (HugeTLB folios paired by pfn): frames shared within the
 * window compared as such, frames shared with pages before it as shared
 * with the first page of the window mapping them.  Indices as dr's. */
void diff_vframes_window(struct dctx *c, struct mmc_diff_range *dr, uint64_t lo, uint64_t hi,
			 const struct mmc_snapshot *a, size_t ia,
			 const struct mmc_snapshot *b, size_t ib);

/* diff_pgmap.c */
void diff_pgdiff(struct dctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, unless a claim covers it (diff_claims_pgdiff()). */
void diff_pgdiff_claimable(struct dctx *c, const char *member, int side, int64_t pgmap,
			   int64_t range, const struct mmc_nval *va, const struct mmc_nval *vb,
			   const char *word_a, const char *word_b, const char *fmt, ...)
	__attribute__((format(printf, 10, 11)));
void diff_pgmap(struct dctx *c, uint32_t ia, const struct mmc_spgmap *pa,
		uint32_t ib, const struct mmc_spgmap *pb);
void diff_srange(struct dctx *c, const struct mmc_srange *x, const struct mmc_srange *y);

/* diff_pools.c: the HugeTLB pools of both images, as pgmap sentences */
void diff_hugetlb(struct dctx *c, const struct mmc_snapshot *a, const struct mmc_snapshot *b);
void diff_hotplug(struct dctx *c, const struct mmc_snapshot *a, const struct mmc_snapshot *b);
/*
 * Whether a HugeTLB folio at a pfn in one image only is a placement (the
 * buddy allocator put the run-time folio elsewhere) rather than a
 * difference: both images' pools were read whole, and hstate `h` (its
 * index in both) has the same order, the same nr/free/resv/surplus counts
 * and, per node, as many folios on the free lists and on the active list
 * in both images.
 */
bool diff_hugetlb_placement(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			    uint32_t h);

#endif
