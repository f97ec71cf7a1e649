/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside diff's claims: a claims file bound to two images
 * (diff_claims_bind.c), as the matching uses it: on struct pages
 * (diff_claims.c), on ranges, pgmaps and pools (diff_claims_range.c), on
 * vmemmap pages (diff_claims_vmemmap.c).
 */
#ifndef MMC_DIFF_CLAIMS_H
#define MMC_DIFF_CLAIMS_H

#include "claims_int.h"
#include "diff_int.h"

enum atom_kind { AK_NONE, AK_WHOLE, AK_HALF, AK_FLAGS, AK_STATE, AK_ROLE };

struct atom {
	uint8_t kind, slot, half;
	uint64_t mask;		/* AK_FLAGS: its bits in the flags word */
};

/* A field line with FROM -> TO: the atom it names on each page kind. */
struct vfield {
	const struct claim_field *f;
	struct atom at[MMC_TAIL_KINDS];
};

/* What a claim's names bind to on the pages of one kind of range: the
 * words ZONE_DEVICE's union calls pgmap and zone_device_data are
 * lru.next and lru.prev outside a pgmap's range (mmc_slot_label_of()). */
struct bkind {
	uint32_t slot_cover[MMC_TAIL_KINDS];
	uint8_t half_cover[MMC_TAIL_KINDS][MMC_MAX_SLOTS];
	uint64_t bit_cover[MMC_TAIL_KINDS];
	struct atom *at;	/* [vf * MMC_TAIL_KINDS + page kind] */
	struct sig *fmask;	/* together: as fmask */
};

struct bclaim {
	const struct claim *cl;
	char (*name)[MMC_CLAIMS_NAME_MAX];	/* each field's resolved name */
	struct bkind by_kind[MMC_RANGE_KINDS];
	/* covered whatever the values, per page kind, in the current
	 * range's kind (claims_bind_kind(); so are vf's atoms and fmask) */
	uint32_t slot_cover[MMC_TAIL_KINDS];
	uint8_t half_cover[MMC_TAIL_KINDS][MMC_MAX_SLOTS];
	uint64_t bit_cover[MMC_TAIL_KINDS];
	bool state, role;
	size_t nvf;
	struct vfield *vf;
	bool has_pfn;
	/* a chunk may need cutting: pfn windows, values, head vs order-0 */
	bool cuts;
	bool range_ok;		/* its where holds for the current range */
	/* together: per field, its presence on each page kind (fields
	 * without values: the atoms it names), vf's index of a field with
	 * values (-1: none), and where it fell short on pages beyond the
	 * claims: [field][0 unchanged, 1 otherwise] */
	bool together;
	struct sig *fmask;	/* [field * MMC_TAIL_KINDS + kind] */
	int *vfi;
	uint64_t (*short_pages)[2], (*short_vframes)[2];
	struct field_counts cnt;	/* the named fields: range, vmemmap_*, pgmap.*, pools */
	/* the struct page fields, by the kind of range, named by it */
	struct field_counts kcnt[MMC_RANGE_KINDS];
	uint64_t pages, vframes, range_pages;
	size_t pgmap_diffs;
	size_t pool_more;	/* pool differences it covered first, not shown */
};

struct claims_bound {
	size_t n;
	struct bclaim *b;
	bool have_head_bit;
	unsigned int head_bit;
	uint64_t ppv;		/* struct pages per vmemmap page */
	bool any_ok;		/* a claim's where holds for the current range */
	/* per range of the result, as many as the diff makes
	 * (diff_claims_new_range()): [range * n + claim], the pages and
	 * vmemmap pages each claim covered there */
	size_t rows_cap;
	uint64_t *row_pages, *row_vframes;
	struct mmc_diff_claims *out;
	/* scratch, per claim: the together fields missing on the page being
	 * judged, and which of them did not differ at all */
	uint64_t *miss, *unch;
};

/* A range of kind c->kind begins: its binding of each claim's names
 * (by_kind) becomes the one the matching reads. */
void claims_bind_kind(struct dctx *c);

/* Every pfn= window of cl holds pfn. */
bool claims_pfn_ok(const struct claim *cl, uint64_t pfn);

/* Does a field's FROM or TO value cv match the normalised value x, or
 * the word w (a type name, a folio's list)? */
bool claims_match_nval(const struct claim_value *cv, const struct mmc_nval *x);
bool claims_match_word(const struct claim_value *cv, const char *w);

/* The together claims that fell short (cb->miss, cb->unch) on n pages
 * (vframes: vmemmap pages) beyond the claims: counted per field. */
void claims_note_short(struct claims_bound *cb, uint64_t n, bool vframes);

/* Does one of b's fields without values cover the field the diff names n
 * on a page of kind t?  A "A+B" word is covered when both parts are. */
bool claims_covers(const struct dctx *c, const struct bclaim *b, const char *n,
		   enum mmc_tail_index t);
/* Does the one field the diff names r cover the field named n? */
bool claims_field_covers(const struct dctx *c, const char *r, const char *n,
			 enum mmc_tail_index t);

#endif
