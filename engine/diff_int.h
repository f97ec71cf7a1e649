/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside diff: the context its modules share.
 *
 *   diff.c        ranges paired between the images, verdicts, the result
 *   diff_chunk.c  the two images' runs walked side by side, compared a
 *                 chunk (an overlap of two runs) at a time
 *   diff_pair.c   first-appearance object numbers paired one-to-one
 *   diff_names.c  what differs, named as the kernel names it, counted per
 *                 field, grouped over pfns, first pages kept
 *   diff_pgmap.c  pgmaps and range roles compared
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

struct dctx {
	const struct mmc_layout *la;
	const struct mmc_geom *ga;
	unsigned int flags_slot, ch_slot;
	size_t max_pages, max_groups;
	bool per_page;
	struct mmc_diff_result *res;
	size_t pages_cap, groups_cap;
	/* per range */
	size_t ri;
	uint64_t slot_cnt[MMC_MAX_SLOTS][MMC_TAIL_KINDS];
	uint64_t half_cnt[MMC_MAX_SLOTS][MMC_TAIL_KINDS][2];
	/* per slot and page kind: the two members' names when it splits */
	bool split[MMC_MAX_SLOTS][MMC_TAIL_KINDS];
	char half_name[MMC_MAX_SLOTS][MMC_TAIL_KINDS][2][48];
	uint64_t zone_cnt[MMC_TAIL_KINDS], node_cnt[MMC_TAIL_KINDS];
	uint64_t bit_cnt[MMC_TAIL_KINDS][64], order_cnt[MMC_TAIL_KINDS];
	uint64_t state_cnt, role_cnt, vframe_cnt;
	uint64_t vwritable_cnt;		/* vmemmap pages whose writable bit differs */
	bool group_open;
	struct sig gsig;
	struct mmc_diff_group g;
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
void diff_count_fields(struct dctx *c, const struct sig *s, uint64_t n);
void diff_add_field(struct mmc_diff_range *dr, const char *name, uint64_t n);
void diff_flush_fields(struct dctx *c, struct mmc_diff_range *dr);
void diff_close_group(struct dctx *c);
void diff_note_group(struct dctx *c, const struct sig *s, uint64_t pfn, uint64_t n);
void diff_note_pages(struct dctx *c, const struct sig *s, uint64_t pfn, uint64_t n,
		     const struct side *A, const struct side *B);

/* diff_chunk.c */
struct mmc_error *diff_pages(struct dctx *c, struct mmc_diff_range *dr,
			     const struct mmc_snapshot *a, size_t ia,
			     const struct mmc_snapshot *b, size_t ib);
void diff_vframes(struct dctx *c, struct mmc_diff_range *dr,
		  const struct mmc_snapshot *a, size_t ia,
		  const struct mmc_snapshot *b, size_t ib);

/* diff_pgmap.c */
void diff_pgdiff(struct dctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diff_pgmap(struct dctx *c, uint32_t ia, const struct mmc_spgmap *pa,
		uint32_t ib, const struct mmc_spgmap *pb);
void diff_srange(struct dctx *c, const struct mmc_srange *x, const struct mmc_srange *y);

#endif
