// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, claims on vmemmap pages: which frame a vmemmap page maps
 * (vmemmap_frame) and whether its PTE allows writes (vmemmap_writable).
 *
 * The diff walks the two images' vmemmap runs a stretch at a time
 * (diff_chunk.c diff_vframes()): over a stretch the writable bit is
 * constant on each side and a count of the vmemmap pages map another
 * frame.  So the stretch falls into at most three groups, each judged
 * once: the pages differing in both fields, in the frame only, in the
 * writable bit only.  A together claim covers a group only where every
 * one of its fields differs as claimed; a group it falls short on is
 * counted per missing field when the group is beyond the claims.
 */
#include <string.h>

#include "diff_claims.h"

enum { VF_FRAME = 1, VF_WRITABLE = 2 };

/* A vmemmap_writable FROM -> TO of b matching a -> b's bits (0/1). */
static bool writable_values_ok(const struct claim_value *cv, int v)
{
	return cv->kind == CV_ANY || (cv->kind == CV_INT && cv->v == v) ||
	       (cv->kind == CV_NULL && !v);
}

static bool writable_claimed(const struct dctx *c, const struct bclaim *b, int wa, int wb)
{
	const struct claim *cl = b->cl;

	if (claims_covers(c, b, "vmemmap_writable", MMC_TAIL_NONE))
		return true;
	for (size_t i = 0; wa >= 0 && i < cl->nfields; i++)
		if (cl->fields[i].has_values && !strcmp(b->name[i], "vmemmap_writable") &&
		    writable_values_ok(&cl->fields[i].from, wa) &&
		    writable_values_ok(&cl->fields[i].to, wb))
			return true;
	return false;
}

/* Field i of together claim b on vmemmap pages differing in `diff`
 * (VF_* bits): 1 as claimed, 0 not differing, -1 differing otherwise. */
static int vfield_met(const struct bclaim *b, size_t i, unsigned int diff, int wa, int wb)
{
	const struct claim_field *f = &b->cl->fields[i];
	const char *n = b->name[i];

	if (!strcmp(n, "any") || !strcmp(n, "vmemmap"))
		return diff ? 1 : 0;
	if (!strcmp(n, "vmemmap_frame"))
		return diff & VF_FRAME ? 1 : 0;
	if (!strcmp(n, "vmemmap_writable")) {
		if (!(diff & VF_WRITABLE))
			return 0;
		if (!f->has_values)
			return 1;
		return wa >= 0 && writable_values_ok(&f->from, wa) &&
		       writable_values_ok(&f->to, wb) ? 1 : -1;
	}
	return 0;	/* a struct page's field */
}

static bool vtogether_met(const struct bclaim *b, unsigned int diff, int wa, int wb,
			  uint64_t *miss, uint64_t *unch)
{
	bool any = false;

	*miss = *unch = 0;
	for (size_t i = 0; i < b->cl->nfields; i++) {
		int m = vfield_met(b, i, diff, wa, wb);

		if (m > 0) {
			any = true;
			continue;
		}
		*miss |= 1ULL << i;
		if (!m)
			*unch |= 1ULL << i;
	}
	if (!any)
		*miss = *unch = 0;
	return !*miss && any;
}

/*
 * k vmemmap pages from idx differ in `diff` (VF_* bits; the writable bit
 * a -> b is wa -> wb, -1 unknown): counted for the claims covering them.
 * Returns the VF_* bits no claim covers; 0 counts them as claimed.
 */
static unsigned int vgroup(struct dctx *c, struct mmc_diff_range *dr, uint64_t idx, uint64_t k,
			   unsigned int diff, int wa, int wb)
{
	struct claims_bound *cb = c->claims;
	uint64_t pfn = dr->start_pfn + idx * cb->ppv;
	unsigned int covered = 0, left;
	bool short_of = false;

	for (size_t i = 0; i < cb->n; i++) {
		struct bclaim *b = &cb->b[i];
		unsigned int m = 0;

		if (b->together)
			cb->miss[i] = 0;
		if (!b->range_ok || b->cl->pages != CR_ANY ||
		    (b->has_pfn && !claims_pfn_ok(b->cl, pfn)))
			continue;
		if (b->together && !vtogether_met(b, diff, wa, wb, &cb->miss[i], &cb->unch[i])) {
			short_of |= cb->miss[i] != 0;
			continue;
		}
		if ((diff & VF_FRAME) && claims_covers(c, b, "vmemmap_frame", MMC_TAIL_NONE))
			m |= VF_FRAME;
		if ((diff & VF_WRITABLE) && writable_claimed(c, b, wa, wb))
			m |= VF_WRITABLE;
		if (!m)
			continue;
		b->vframes += k;
		cb->row_vframes[c->ri * cb->n + i] += k;
		if (m & VF_FRAME)
			diff_count_named(&b->cnt, "vmemmap_frame", k);
		if (m & VF_WRITABLE)
			diff_count_named(&b->cnt, "vmemmap_writable", k);
		covered |= m;
	}
	left = diff & ~covered;
	if (!left)
		dr->vframes_claimed += k;
	else if (short_of)
		claims_note_short(cb, k, true);
	return left;
}

void diff_claims_vpages(struct dctx *c, struct mmc_diff_range *dr, uint64_t idx, uint64_t n,
			uint64_t nframe, bool wdiff, int wa, int wb)
{
	/* both fields, the frame only, the writable bit only */
	const uint64_t k[3] = { wdiff ? nframe : 0, wdiff ? 0 : nframe, wdiff ? n - nframe : 0 };
	static const unsigned int what[3] = { VF_FRAME | VF_WRITABLE, VF_FRAME, VF_WRITABLE };

	for (int g = 0; g < 3; g++) {
		unsigned int left;

		if (!k[g])
			continue;
		left = vgroup(c, dr, idx, k[g], what[g], wa, wb);
		if (!left)
			continue;
		dr->vframes_differing += k[g];
		if (left & VF_FRAME)
			diff_count_named(&c->cnt, "vmemmap_frame", k[g]);
		if (left & VF_WRITABLE)
			diff_count_named(&c->cnt, "vmemmap_writable", k[g]);
	}
}

bool diff_claims_vframes(struct dctx *c, struct mmc_diff_range *dr, const char *field,
			 uint64_t idx, uint64_t ndiff)
{
	unsigned int diff = !strcmp(field, "vmemmap_writable") ? VF_WRITABLE : VF_FRAME;

	return !vgroup(c, dr, idx, ndiff, diff, -1, -1);
}

uint64_t diff_claims_vclip(const struct dctx *c, const struct mmc_diff_range *dr,
			   uint64_t idx, uint64_t n)
{
	const struct claims_bound *cb = c->claims;

	for (size_t i = 0; i < cb->n; i++) {
		const struct bclaim *b = &cb->b[i];

		for (size_t q = 0; b->range_ok && b->has_pfn && q < b->cl->nclauses; q++) {
			const struct claim_clause *cl = &b->cl->clauses[q];

			for (size_t a = 0; cl->key == CK_PFN && a < cl->nalt; a++) {
				uint64_t edge[2] = { cl->alt[a].lo, cl->alt[a].hi };

				for (int e = 0; e < 2; e++) {
					uint64_t kx;

					if (edge[e] <= dr->start_pfn)
						continue;
					/* first vmemmap page whose first pfn is >= edge */
					kx = (edge[e] - dr->start_pfn + cb->ppv - 1) / cb->ppv;
					if (kx > idx && kx < idx + n)
						n = kx - idx;
				}
			}
		}
	}
	return n;
}
