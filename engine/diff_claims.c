// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, claims on struct pages: the page-field differences matched with
 * claims bound to the images (diff_claims_bind.c), at the diff's own
 * granularity, and each claim's totals.  Which claims hold on a range,
 * and the differences of ranges, pgmaps and pools, are
 * diff_claims_range.c's.
 *
 * Matching works on the diff's chunks: pages over which the same fields
 * differ, the two images' records moving linearly with the pfn.  What a
 * claim covers can change inside a chunk only at a pfn= window's edge,
 * where a claimed value is met by a moving slot (one pfn, solved), or
 * where a moving split word or flag bit holds a claimed value (then the
 * chunk goes page by page, as does the per_page test mode).  So a chunk
 * is cut at those pfns and each piece is judged on its first page: the
 * same answer as judging every page, at the cost of a few pieces.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_claims.h"
#include "page_decode.h"
#include "rules.h"

/* ---- values ---- */

bool claims_match_nval(const struct claim_value *cv, const struct mmc_nval *x)
{
	switch (cv->kind) {
	case CV_ANY:
		return true;
	case CV_INT:
		return (x->cls == MMC_V_RAW && x->v == cv->v) || (x->cls == MMC_V_NULL && !cv->v);
	case CV_NULL:
		return x->cls == MMC_V_NULL || (x->cls == MMC_V_RAW && !x->v);
	case CV_POISON:
		return x->cls == MMC_V_POISON && x->v == cv->v;
	case CV_SELF:
		return x->cls == MMC_V_SELF && x->off == cv->off;
	case CV_PAGE:
		return x->cls == MMC_V_PAGE && x->v == cv->v && x->off == cv->off;
	case CV_PGMAP:
		return x->cls == MMC_V_PGMAP && x->v == cv->v && x->off == cv->off;
	case CV_OBJ:
		return x->cls == MMC_V_OBJ && x->v == cv->v;
	case CV_WORD:
		return false;
	}
	return false;
}

static bool match_int(const struct claim_value *cv, int64_t v)
{
	return cv->kind == CV_ANY || (cv->kind == CV_INT && cv->v == v) ||
	       (cv->kind == CV_NULL && !v);
}

bool claims_match_word(const struct claim_value *cv, const char *w)
{
	return cv->kind == CV_ANY || (cv->kind == CV_WORD && w && !strcmp(cv->word, w));
}

static const char *state_word(unsigned int s)
{
	static const char *const w[] = { "read", "unreadable", "unmapped", "not-init" };

	return s < 4 ? w[s] : "?";
}

static const char *role_word(unsigned int r)
{
	static const char *const w[] = { "device", "altmap", "reserve", "shared" };

	return r < 4 ? w[r] : "?";
}

static bool side_value_ok(const struct claim_value *cv, const struct atom *a,
			  const struct mmc_nrec *r)
{
	const struct mmc_nval *x = &r->slot[a->slot];
	uint64_t raw;

	switch (a->kind) {
	case AK_WHOLE:
		return claims_match_nval(cv, x);
	case AK_HALF:
		if (x->cls != MMC_V_RAW && x->cls != MMC_V_NULL)
			return cv->kind == CV_ANY;
		raw = x->cls == MMC_V_RAW ? (uint64_t)x->v : 0;
		return match_int(cv, (int32_t)(uint32_t)(a->half ? raw >> 32 : raw));
	case AK_FLAGS:
		if (x->cls != MMC_V_RAW)
			return cv->kind == CV_ANY;
		return match_int(cv, (int64_t)(((uint64_t)x->v & a->mask) >>
					       __builtin_ctzll(a->mask)));
	case AK_STATE:
		return claims_match_word(cv, state_word(r->state));
	case AK_ROLE:
		return claims_match_word(cv, role_word(r->role));
	}
	return false;
}

/* Is atom a one of the ways s differs? */
static bool atom_in(const struct dctx *c, const struct sig *s, const struct atom *a)
{
	switch (a->kind) {
	case AK_WHOLE:
		return (s->slot_mask & (1u << a->slot)) && !s->half[a->slot] &&
		       !(a->slot == c->flags_slot && s->flags_split);
	case AK_HALF:
		return s->half[a->slot] & (1u << a->half);
	case AK_FLAGS:
		return s->flags_split && (s->flag_xor & a->mask);
	case AK_STATE:
		return s->state;
	case AK_ROLE:
		return s->role;
	}
	return false;
}

static void add_atom(const struct dctx *c, struct sig *cov, const struct sig *s,
		     const struct atom *a)
{
	switch (a->kind) {
	case AK_WHOLE:
		cov->slot_mask |= 1u << a->slot;
		break;
	case AK_HALF:
		cov->slot_mask |= 1u << a->slot;
		cov->half[a->slot] |= (uint8_t)(1u << a->half);
		break;
	case AK_FLAGS:
		cov->slot_mask |= 1u << a->slot;
		cov->flags_split = true;
		cov->flag_xor |= s->flag_xor & a->mask;
		break;
	case AK_STATE:
		cov->state = true;
		break;
	case AK_ROLE:
		cov->role = true;
		break;
	}
}

/* ---- chunks ---- */

/* The claim role bits of a page of kind t whose base record is r. */
static unsigned int kind_bits(const struct dctx *c, enum mmc_tail_index t,
			      const struct mmc_nrec *r)
{
	const struct claims_bound *cb = c->claims;
	const struct mmc_nval *f = &r->slot[c->flags_slot];
	unsigned int k;

	if (r->role == MMC_ROLE_ALTMAP)
		return CR_ALTMAP;
	if (r->role == MMC_ROLE_RESERVE || r->state == MMC_PS_NOT_INIT)
		return CR_RESERVE;
	switch (t) {
	case MMC_TAIL_FIRST: k = CR_PAGE1; break;
	case MMC_TAIL_SECOND: k = CR_PAGE2; break;
	case MMC_TAIL_OTHER: k = CR_TAIL; break;
	default:
		k = cb->have_head_bit && f->cls == MMC_V_RAW &&
		    ((uint64_t)f->v >> cb->head_bit & 1) ? CR_HEAD : CR_ORDER0;
		break;
	}
	return r->role == MMC_ROLE_SHARED ? k | CR_SHARED : k;
}

/* Does s differ in an atom of m (a field's presence mask)? */
static bool sig_meets(const struct dctx *c, const struct sig *s, const struct sig *m)
{
	for (uint32_t x = s->slot_mask & m->slot_mask; x; x &= x - 1) {
		unsigned int k = (unsigned int)__builtin_ctz(x);

		if (k == c->flags_slot && s->flags_split) {
			if (s->flag_xor & m->flag_xor)
				return true;
		} else if (s->half[k]) {
			if (s->half[k] & m->half[k])
				return true;
		} else {
			return true;
		}
	}
	return (s->state && m->state) || (s->role && m->role);
}

/* Field i of together claim b on a page differing in s: 1 it differs as
 * claimed, 0 it does not differ, -1 it differs otherwise. */
static int field_met(const struct dctx *c, const struct bclaim *b, size_t i, const struct sig *s,
		     const struct mmc_nrec *ra, const struct mmc_nrec *rb)
{
	const struct claim_field *f = &b->cl->fields[i];
	const struct vfield *v;
	const struct atom *a;

	if (!f->has_values)
		return sig_meets(c, s, &b->fmask[i * MMC_TAIL_KINDS + s->tail]) ? 1 : 0;
	if (b->vfi[i] < 0)
		return 0;	/* a vmemmap page's field: never one of a struct page */
	v = &b->vf[b->vfi[i]];
	a = &v->at[s->tail];
	if (a->kind == AK_NONE || !atom_in(c, s, a))
		return 0;
	return side_value_ok(&f->from, a, ra) && side_value_ok(&f->to, a, rb) ? 1 : -1;
}

/* Together claim b: are all its fields met on this page?  If not, miss
 * and unch get the fields that are not (those not differing at all),
 * kept only when some other field was met (the claim fell short). */
static bool together_met(const struct dctx *c, const struct bclaim *b, const struct sig *s,
			 const struct mmc_nrec *ra, const struct mmc_nrec *rb, uint64_t *miss,
			 uint64_t *unch)
{
	bool any = false;

	*miss = *unch = 0;
	for (size_t i = 0; i < b->cl->nfields; i++) {
		int m = field_met(c, b, i, s, ra, rb);

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

/* What claim b covers of s on the page whose records are ra, rb. */
static void claim_cover(const struct dctx *c, const struct bclaim *b, const struct sig *s,
			const struct mmc_nrec *ra, const struct mmc_nrec *rb, struct sig *cov)
{
	enum mmc_tail_index t = s->tail;

	memset(cov, 0, sizeof(*cov));
	cov->tail = t;
	for (uint32_t m = s->slot_mask; m; m &= m - 1) {
		unsigned int k = (unsigned int)__builtin_ctz(m);
		uint32_t bit = 1u << k;

		if (k == c->flags_slot && s->flags_split) {
			uint64_t x = s->flag_xor & b->bit_cover[t];

			if (x) {
				cov->slot_mask |= bit;
				cov->flags_split = true;
				cov->flag_xor |= x;
			}
		} else if (s->half[k]) {
			uint8_t h = s->half[k] & b->half_cover[t][k];

			if (h) {
				cov->slot_mask |= bit;
				cov->half[k] |= h;
			}
		} else if (b->slot_cover[t] & bit) {
			cov->slot_mask |= bit;
		}
	}
	cov->state = s->state && b->state;
	cov->role = s->role && b->role;
	for (size_t i = 0; i < b->nvf; i++) {
		const struct vfield *v = &b->vf[i];
		const struct atom *a = &v->at[t];

		if (a->kind != AK_NONE && atom_in(c, s, a) &&
		    side_value_ok(&v->f->from, a, ra) && side_value_ok(&v->f->to, a, rb))
			add_atom(c, cov, s, a);
	}
}

static void sig_or(struct sig *x, const struct sig *y)
{
	x->slot_mask |= y->slot_mask;
	x->flags_split |= y->flags_split;
	x->flag_xor |= y->flag_xor;
	x->state |= y->state;
	x->role |= y->role;
	for (unsigned int k = 0; k < MMC_MAX_SLOTS; k++)
		x->half[k] |= y->half[k];
}

/* s without what cov covers. */
static struct sig sig_minus(const struct dctx *c, const struct sig *s, const struct sig *cov)
{
	struct sig u = *s;

	for (unsigned int k = 0; k < MMC_MAX_SLOTS; k++) {
		uint32_t bit = 1u << k;

		if (!(s->slot_mask & bit) || !(cov->slot_mask & bit))
			continue;
		if (k == c->flags_slot && s->flags_split) {
			u.flag_xor &= ~cov->flag_xor;
			if (!u.flag_xor) {
				u.slot_mask &= ~bit;
				u.flags_split = false;
			}
		} else if (s->half[k]) {
			u.half[k] &= (uint8_t)~cov->half[k];
			if (!u.half[k])
				u.slot_mask &= ~bit;
		} else {
			u.slot_mask &= ~bit;
		}
	}
	u.state = s->state && !cov->state;
	u.role = s->role && !cov->role;
	return u;
}

void claims_note_short(struct claims_bound *cb, uint64_t n, bool vframes)
{
	for (size_t i = 0; i < cb->n; i++) {
		struct bclaim *b = &cb->b[i];

		for (uint64_t m = b->together ? cb->miss[i] : 0; m; m &= m - 1) {
			unsigned int f = (unsigned int)__builtin_ctzll(m);
			int k = (cb->unch[i] >> f & 1) ? 0 : 1;

			if (vframes)
				b->short_vframes[f][k] += n;
			else
				b->short_pages[f][k] += n;
		}
	}
}

/* Pages [p, p + len) of one piece: judged on p. */
static void piece(struct dctx *c, struct mmc_diff_range *dr, const struct sig *s,
		  uint64_t p, uint64_t len, const struct side *A, const struct side *B,
		  const struct mmc_nrec *ra0, const struct mmc_nrec *rb0)
{
	struct claims_bound *cb = c->claims;
	struct mmc_nrec rax, rbx;
	const struct mmc_nrec *ra = ra0, *rb = rb0;
	struct sig tot, cov, u;
	int32_t first = -1;
	unsigned int kind;
	bool short_of = false;

	if (!ra) {
		mmc_nrec_run_at(&A->first, &A->stride, p - A->start, &rax);
		mmc_nrec_run_at(&B->first, &B->stride, p - B->start, &rbx);
		ra = &rax;
		rb = &rbx;
	}
	kind = kind_bits(c, s->tail, ra);
	memset(&tot, 0, sizeof(tot));
	tot.tail = s->tail;
	for (size_t i = 0; i < cb->n; i++) {
		struct bclaim *b = &cb->b[i];

		if (b->together)
			cb->miss[i] = 0;
		if (!b->range_ok || !(b->cl->pages & kind) || (b->has_pfn && !claims_pfn_ok(b->cl, p)))
			continue;
		if (b->together && !together_met(c, b, s, ra, rb, &cb->miss[i], &cb->unch[i])) {
			short_of |= cb->miss[i] != 0;
			continue;
		}
		claim_cover(c, b, s, ra, rb, &cov);
		if (!diff_sig_any(&cov))
			continue;
		b->pages += len;
		cb->row_pages[c->ri * cb->n + i] += len;
		diff_count_fields(c, &b->kcnt[c->kind < MMC_RANGE_KINDS ? c->kind : 0], &cov, len);
		sig_or(&tot, &cov);
		if (first < 0)
			first = (int32_t)i;
	}
	u = sig_minus(c, s, &tot);
	if (diff_sig_any(&tot))
		diff_note_group(c, &c->cgrp, &tot, first, p, len);
	else
		diff_close_group(c, &c->cgrp);
	if (diff_sig_any(&u)) {
		diff_note_differing(c, dr, &u, p, len, A, B);
		if (short_of)
			claims_note_short(cb, len, false);
	} else {
		diff_close_group(c, &c->grp);
		dr->claimed += len;
		c->res->pages_claimed += len;
	}
}

#define MAX_CUTS 64

struct cuts {
	size_t n;
	bool overflow;
	uint64_t at[MAX_CUTS];
};

static void cut(struct cuts *k, uint64_t pos, uint64_t n, uint64_t at)
{
	if (at <= pos || at >= pos + n)
		return;
	if (k->n == MAX_CUTS) {
		k->overflow = true;
		return;
	}
	k->at[k->n++] = at;
}

/* Where a slot moving from v0 by d a page meets the value target: cut
 * before and after that page. */
static void cut_meet(struct cuts *k, uint64_t pos, uint64_t n, int64_t v0, int64_t d,
		     int64_t target)
{
	__int128 num = (__int128)target - v0, i;

	if (!d || num % d)
		return;
	i = num / d;
	if (i < 0 || i >= (__int128)n)
		return;
	cut(k, pos, n, pos + (uint64_t)i);
	cut(k, pos, n, pos + (uint64_t)i + 1);
}

static bool has_target(const struct claim_value *cv)
{
	return cv->kind == CV_INT || cv->kind == CV_NULL || cv->kind == CV_POISON ||
	       cv->kind == CV_PAGE || cv->kind == CV_PGMAP || cv->kind == CV_OBJ;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

void diff_claims_chunk(struct dctx *c, struct mmc_diff_range *dr, const struct sig *s,
		       uint64_t pos, uint64_t n, const struct side *A, const struct side *B,
		       const struct mmc_nrec *ra, const struct mmc_nrec *rb)
{
	struct claims_bound *cb = c->claims;
	bool per_page = c->per_page;
	struct cuts k = { 0 };
	uint64_t p;

	if (!cb->any_ok) {
		diff_note_differing(c, dr, s, pos, n, A, B);
		return;
	}
	for (size_t i = 0; i < cb->n && !per_page && n > 1; i++) {
		const struct bclaim *b = &cb->b[i];
		unsigned int hd = b->cl->pages & (CR_HEAD | CR_ORDER0);

		if (!b->range_ok || !b->cuts)
			continue;
		for (size_t q = 0; b->has_pfn && q < b->cl->nclauses; q++) {
			const struct claim_clause *cl = &b->cl->clauses[q];

			for (size_t a = 0; cl->key == CK_PFN && a < cl->nalt; a++) {
				cut(&k, pos, n, cl->alt[a].lo);
				cut(&k, pos, n, cl->alt[a].hi);
			}
		}
		/* head or order-0: PG_head moving along the run */
		if (s->tail == MMC_TAIL_NONE && hd && hd != (CR_HEAD | CR_ORDER0) &&
		    A->stride.slot[c->flags_slot].v)
			per_page = true;
		for (size_t j = 0; j < b->nvf; j++) {
			const struct vfield *v = &b->vf[j];
			const struct atom *a = &v->at[s->tail];
			int64_t da, db;

			if (a->kind == AK_NONE || !atom_in(c, s, a))
				continue;
			if (a->kind == AK_STATE || a->kind == AK_ROLE)
				continue;
			da = A->stride.slot[a->slot].v;
			db = B->stride.slot[a->slot].v;
			if (a->kind != AK_WHOLE) {
				per_page |= da || db;
				continue;
			}
			if (has_target(&v->f->from))
				cut_meet(&k, pos, n, ra->slot[a->slot].v, da,
					 v->f->from.kind == CV_NULL ? 0 : v->f->from.v);
			if (has_target(&v->f->to))
				cut_meet(&k, pos, n, rb->slot[a->slot].v, db,
					 v->f->to.kind == CV_NULL ? 0 : v->f->to.v);
		}
	}
	if (k.overflow)
		per_page = true;
	if (per_page) {
		for (p = pos; p < pos + n && !c->oom; p++)
			piece(c, dr, s, p, 1, A, B, p == pos ? ra : NULL, p == pos ? rb : NULL);
		return;
	}
	if (k.n > 1)
		qsort(k.at, k.n, sizeof(k.at[0]), cmp_u64);
	p = pos;
	for (size_t i = 0; i <= k.n && !c->oom; i++) {
		uint64_t q = i < k.n ? k.at[i] : pos + n;

		if (q > p) {
			piece(c, dr, s, p, q - p, A, B, p == pos ? ra : NULL, p == pos ? rb : NULL);
			p = q;
		}
	}
}

/* ---- totals ---- */

void diff_claims_finish(struct dctx *c)
{
	struct claims_bound *cb = c->claims;
	struct mmc_diff_claims *out = cb->out;
	size_t nr = c->res->nranges, n = cb->n;

	/* the rows, one per range, become a row per claim */
	out->nranges = nr;
	out->range_pages = calloc(n * nr + 1, sizeof(uint64_t));
	out->range_vframes = calloc(n * nr + 1, sizeof(uint64_t));
	if (!out->range_pages || !out->range_vframes) {
		c->oom = true;
		return;
	}
	for (size_t r = 0; r < nr; r++)
		for (size_t i = 0; i < n; i++) {
			out->range_pages[i * nr + r] = cb->row_pages[r * n + i];
			out->range_vframes[i * nr + r] = cb->row_vframes[r * n + i];
		}
	for (size_t i = 0; i < cb->n; i++) {
		struct bclaim *b = &cb->b[i];
		struct mmc_diff_claim *d = &out->claim[i];

		d->pages = b->pages;
		d->vframes = b->vframes;
		d->range_pages = b->range_pages;
		d->pgmap_diffs = b->pgmap_diffs;
		for (size_t r = 0; r < nr; r++)
			if (out->range_pages[i * nr + r] || out->range_vframes[i * nr + r])
				d->nranges++;
		for (unsigned int k = 0; k < MMC_RANGE_KINDS; k++) {
			uint8_t kind = c->kind;

			c->kind = (uint8_t)k;
			diff_flush_counts(c, &b->kcnt[k], d->fields, &d->nfields);
			c->kind = kind;
		}
		diff_flush_counts(c, &b->cnt, d->fields, &d->nfields);
		d->together = b->together;
		for (size_t f = 0; b->together && f < b->cl->nfields; f++) {
			for (int k = 0; k < 2 && d->nunmet < MMC_DIFF_MAX_UNMET; k++) {
				struct mmc_diff_unmet *u = &d->unmet[d->nunmet];

				if (!b->short_pages[f][k] && !b->short_vframes[f][k])
					continue;
				snprintf(u->field, sizeof(u->field), "%s", b->name[f]);
				snprintf(u->claimed, sizeof(u->claimed), "%s", b->cl->fields[f].values);
				u->unchanged = k == 0;
				u->pages = b->short_pages[f][k];
				u->vframes = b->short_vframes[f][k];
				d->nunmet++;
			}
		}
		if (!d->pages && !d->vframes && !d->range_pages && !d->pgmap_diffs)
			out->nunseen++;
	}
}
