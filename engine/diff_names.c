// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, naming: what differs, as the kernel names it for that kind of page
 * in that kind of range (mmc_slot_label_of(): "compound_head" on a tail,
 * "_flags_1" on page[1], "lru.next" on a HugeTLB head where a pgmap's
 * page has "pgmap"); the
 * flags word split into flags.zone, flags.node, page[1]'s order byte and
 * flags.PG_<bit> (rules.h); two 4-byte members of one slot told apart.
 * Counted per field and range, grouped over consecutive pfns with the same
 * fields, the first differing pages kept whole.
 */
#include <stdio.h>
#include <string.h>

#include "diff_int.h"
#include "mmc_util.h"
#include "page_decode.h"

void diff_slot_name(const struct dctx *c, unsigned int slot, enum mmc_tail_index tail,
		    char *buf, size_t size)
{
	if (c->layout_a)
		mmc_slot_label_of(c->layout_a, (enum mmc_range_kind)c->kind, slot, tail, buf, size);
	else
		snprintf(buf, size, "+0x%x", slot * 8);
}

static uint32_t nr_pageflags(const struct dctx *c)
{
	int64_t v;

	if (c->geom_a->nr_pageflags)
		return c->geom_a->nr_pageflags;
	if (c->layout_a && mmc_layout_enum_value(c->layout_a, MMC_ENUM_PAGEFLAGS, "__NR_PAGEFLAGS", &v) &&
	    v > 0 && v <= 64)
		return (uint32_t)v;
	return 0;
}

/* page[1]'s flags word keeps the folio order in its low byte: one field,
 * not eight bits. */
uint64_t diff_order_mask(const struct dctx *c, enum mmc_tail_index tail)
{
	return tail == MMC_TAIL_FIRST && mmc_order_in_flags1(c->layout_a) ? MMC_FLAGS1_ORDER_MASK : 0;
}

/* Prefix for split flag names: "flags" for the page flags word, else the
 * slot's label (page[1]'s "_flags_1"). */
void diff_flags_prefix(const struct dctx *c, enum mmc_tail_index tail, char *buf, size_t size)
{
	diff_slot_name(c, c->flags_slot, tail, buf, size);
	if (!strncmp(buf, "flags", 5))
		snprintf(buf, size, "flags");
}

void diff_bit_name(const struct dctx *c, enum mmc_tail_index tail, unsigned int bit,
		   char *buf, size_t size)
{
	char pre[32];
	const char *pg = NULL;

	diff_flags_prefix(c, tail, pre, sizeof(pre));
	/* page[1]'s _flags_1 is its own flags word: same bit names */
	if ((!strcmp(pre, "flags") || tail == MMC_TAIL_FIRST) && bit < nr_pageflags(c))
		pg = mmc_pageflag_name(c->layout_a, bit);
	if (pg)
		snprintf(buf, size, "%s.%s", pre, pg);
	else
		snprintf(buf, size, "%s.bit%u", pre, bit);
}

static void add_name(char *list, size_t size, const char *name)
{
	size_t len = strlen(list);

	if (len && len + 1 < size) {
		list[len++] = ',';
		list[len] = 0;
	}
	snprintf(list + len, size - len, "%s", name);
}

/* Comma-separated field names of a signature (no duplicates). */
static void sig_names(const struct dctx *c, const struct sig *s, char *out, size_t size)
{
	uint64_t zm = mmc_flags_zone_mask(c->geom_a), nm = mmc_flags_node_mask(c->geom_a);
	uint64_t om = diff_order_mask(c, s->tail);
	char name[48], pre[32];
	unsigned int k, b;

	out[0] = 0;
	for (k = 0; k < MMC_MAX_SLOTS; k++) {
		if (!(s->slot_mask & (1u << k)))
			continue;
		if (k == c->flags_slot && s->flags_split) {
			diff_flags_prefix(c, s->tail, pre, sizeof(pre));
			if (s->flag_xor & zm) {
				snprintf(name, sizeof(name), "%s.zone", pre);
				add_name(out, size, name);
			}
			if (s->flag_xor & nm) {
				snprintf(name, sizeof(name), "%s.node", pre);
				add_name(out, size, name);
			}
			if (s->flag_xor & om) {
				snprintf(name, sizeof(name), "%s.order", pre);
				add_name(out, size, name);
			}
			for (b = 0; b < 64; b++) {
				if (!(s->flag_xor & ~(zm | nm | om) & (1ULL << b)))
					continue;
				diff_bit_name(c, s->tail, b, name, sizeof(name));
				add_name(out, size, name);
			}
			continue;
		}
		if (s->half[k]) {
			if (s->half[k] & 1)
				add_name(out, size, c->half_name[k][s->tail][0]);
			if (s->half[k] & 2)
				add_name(out, size, c->half_name[k][s->tail][1]);
			continue;
		}
		diff_slot_name(c, k, s->tail, name, sizeof(name));
		add_name(out, size, name);
	}
	if (s->state)
		add_name(out, size, "state");
	if (s->role)
		add_name(out, size, "role");
}

static bool sig_equal(const struct sig *a, const struct sig *b)
{
	return a->slot_mask == b->slot_mask && a->flags_split == b->flags_split &&
	       a->flag_xor == b->flag_xor && a->tail == b->tail &&
	       a->state == b->state && a->role == b->role &&
	       !memcmp(a->half, b->half, sizeof(a->half));
}

/* Names of the halves of slots holding two 4-byte members. */
void diff_names_init(struct dctx *c)
{
	for (unsigned int k = 0; k < MMC_MAX_SLOTS; k++)
		for (unsigned int t = 0; t < MMC_TAIL_KINDS; t++)
			c->split[k][t] = k != c->flags_slot && c->layout_a &&
					 mmc_slot_halves(c->layout_a, k, (enum mmc_tail_index)t,
							 c->half_name[k][t][0],
							 c->half_name[k][t][1]);
}

void diff_names_reset(struct dctx *c)
{
	memset(&c->cnt, 0, sizeof(c->cnt));
}

bool diff_sig_any(const struct sig *s)
{
	return s->slot_mask || s->state || s->role;
}

void diff_count_fields(struct dctx *c, struct field_counts *fc, const struct sig *s, uint64_t n)
{
	uint64_t zm = mmc_flags_zone_mask(c->geom_a), nm = mmc_flags_node_mask(c->geom_a);
	enum mmc_tail_index t = s->tail;
	uint64_t om = diff_order_mask(c, t);
	unsigned int k, b;

	for (k = 0; k < MMC_MAX_SLOTS; k++) {
		if (!(s->slot_mask & (1u << k)))
			continue;
		if (k == c->flags_slot && s->flags_split) {
			if (s->flag_xor & zm)
				fc->zone[t] += n;
			if (s->flag_xor & nm)
				fc->node[t] += n;
			if (s->flag_xor & om)
				fc->order[t] += n;
			for (b = 0; b < 64; b++)
				if (s->flag_xor & ~(zm | nm | om) & (1ULL << b))
					fc->bit[t][b] += n;
			continue;
		}
		if (s->half[k]) {
			if (s->half[k] & 1)
				fc->half[k][t][0] += n;
			if (s->half[k] & 2)
				fc->half[k][t][1] += n;
			continue;
		}
		fc->slot[k][t] += n;
	}
	if (s->state)
		fc->state += n;
	if (s->role)
		fc->role += n;
}

/* name's count in fields, which holds at most max: "(other fields)"
 * takes what the last place cannot. */
static void add_field_capped(struct mmc_diff_field_count *fields, size_t *nfields, size_t max,
			     const char *name, uint64_t n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < *nfields; i++) {
		if (!strcmp(fields[i].name, name)) {
			fields[i].pages += n;
			return;
		}
	}
	if (*nfields == max - 1 && strcmp(name, "(other fields)") != 0) {
		add_field_capped(fields, nfields, max, "(other fields)", n);
		return;
	}
	if (*nfields >= max)
		return;
	snprintf(fields[*nfields].name, sizeof(fields[0].name), "%s", name);
	fields[*nfields].pages = n;
	(*nfields)++;
}

/* fc->named is smaller than a range's fields: capped at its own size */
void diff_count_named(struct field_counts *fc, const char *name, uint64_t n)
{
	add_field_capped(fc->named, &fc->nnamed, DIFF_MAX_NAMED, name, n);
}

void diff_add_field_to(struct mmc_diff_field_count *fields, size_t *nfields,
		       const char *name, uint64_t n)
{
	add_field_capped(fields, nfields, MMC_DIFF_MAX_FIELDS, name, n);
}

void diff_add_field(struct mmc_diff_range *dr, const char *name, uint64_t n)
{
	diff_add_field_to(dr->fields, &dr->nfields, name, n);
}

void diff_flush_counts(struct dctx *c, const struct field_counts *fc,
		       struct mmc_diff_field_count *fields, size_t *nfields)
{
	char name[48], pre[32];

	for (unsigned int k = 0; k < MMC_MAX_SLOTS; k++) {
		for (unsigned int ti = 0; ti < MMC_TAIL_KINDS; ti++) {
			enum mmc_tail_index t = (enum mmc_tail_index)ti;

			if (k == c->flags_slot) {
				diff_flags_prefix(c, t, pre, sizeof(pre));
				snprintf(name, sizeof(name), "%s.zone", pre);
				diff_add_field_to(fields, nfields, name, fc->zone[t]);
				snprintf(name, sizeof(name), "%s.node", pre);
				diff_add_field_to(fields, nfields, name, fc->node[t]);
				snprintf(name, sizeof(name), "%s.order", pre);
				diff_add_field_to(fields, nfields, name, fc->order[t]);
				for (unsigned int b = 0; b < 64; b++) {
					if (!fc->bit[t][b])
						continue;
					diff_bit_name(c, t, b, name, sizeof(name));
					diff_add_field_to(fields, nfields, name, fc->bit[t][b]);
				}
			}
			if (c->split[k][t]) {
				diff_add_field_to(fields, nfields, c->half_name[k][t][0],
						  fc->half[k][t][0]);
				diff_add_field_to(fields, nfields, c->half_name[k][t][1],
						  fc->half[k][t][1]);
			}
			if (!fc->slot[k][t])
				continue;
			diff_slot_name(c, k, t, name, sizeof(name));
			diff_add_field_to(fields, nfields, name, fc->slot[k][t]);
		}
	}
	diff_add_field_to(fields, nfields, "state", fc->state);
	diff_add_field_to(fields, nfields, "role", fc->role);
	for (size_t i = 0; i < fc->nnamed; i++)
		diff_add_field_to(fields, nfields, fc->named[i].name, fc->named[i].pages);
}

void diff_flush_fields(struct dctx *c, struct mmc_diff_range *dr)
{
	diff_flush_counts(c, &c->cnt, dr->fields, &dr->nfields);
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return mmc_grow_array(arr, cap, need, elem, 8);
}

void diff_close_group(struct dctx *c, struct grouper *gr)
{
	if (!gr->open)
		return;
	gr->open = false;
	(*gr->total)++;
	if (*gr->n >= c->max_groups)
		return;
	if (!grow((void **)gr->arr, &gr->cap, *gr->n + 1, sizeof(**gr->arr))) {
		c->oom = true;
		return;
	}
	(*gr->arr)[(*gr->n)++] = gr->g;
}

void diff_close_groups(struct dctx *c)
{
	diff_close_group(c, &c->grp);
	if (c->claims)
		diff_close_group(c, &c->cgrp);
}

void diff_note_group(struct dctx *c, struct grouper *gr, const struct sig *s, int32_t claim,
		     uint64_t pfn, uint64_t n)
{
	char names[sizeof(gr->g.fields)];

	if (gr->open && gr->g.range == c->ri && gr->g.last_pfn + 1 == pfn &&
	    gr->g.claim == claim) {
		bool same = sig_equal(&gr->sig, s);

		if (!same) {
			sig_names(c, s, names, sizeof(names));
			same = !strcmp(names, gr->g.fields);
		}
		if (same) {
			gr->sig = *s;
			gr->g.last_pfn = pfn + n - 1;
			gr->g.npages += n;
			return;
		}
	}
	diff_close_group(c, gr);
	gr->open = true;
	gr->sig = *s;
	memset(&gr->g, 0, sizeof(gr->g));
	gr->g.range = c->ri;
	gr->g.first_pfn = pfn;
	gr->g.last_pfn = pfn + n - 1;
	gr->g.npages = n;
	gr->g.claim = claim;
	sig_names(c, s, gr->g.fields, sizeof(gr->g.fields));
}

void diff_note_pages(struct dctx *c, const struct sig *s, uint64_t pfn, uint64_t n,
		     const struct side *A, const struct side *B)
{
	struct mmc_diff_result *res = c->res;
	uint64_t i;

	for (i = 0; i < n && res->npages < c->max_pages; i++) {
		struct mmc_diff_page *p;

		if (!grow((void **)&res->pages, &c->pages_cap, res->npages + 1,
			  sizeof(*res->pages))) {
			c->oom = true;
			return;
		}
		p = &res->pages[res->npages++];
		memset(p, 0, sizeof(*p));
		p->pfn = pfn + i;
		p->range = c->ri;
		p->tail_index = s->tail;
		p->kind = c->kind;
		mmc_nrec_run_at(&A->first, &A->stride, pfn + i - A->start, &p->a);
		mmc_nrec_run_at(&B->first, &B->stride, pfn + i - B->start, &p->b);
		p->slot_mask = s->slot_mask;
		p->state_differs = s->state;
		p->role_differs = s->role;
	}
}

void diff_note_differing(struct dctx *c, struct mmc_diff_range *dr, const struct sig *s,
			 uint64_t pfn, uint64_t n, const struct side *A, const struct side *B)
{
	dr->differing += n;
	c->res->pages_differing += n;
	diff_count_fields(c, &c->cnt, s, n);
	diff_note_group(c, &c->grp, s, -1, pfn, n);
	diff_note_pages(c, s, pfn, n, A, B);
}

uint64_t diff_note_vframes(struct dctx *c, struct mmc_diff_range *dr, const char *field,
			   uint64_t idx, uint64_t n, uint64_t ndiff)
{
	if (!ndiff)
		return 0;
	if (c->claims && diff_claims_vframes(c, dr, field, idx, ndiff))
		return 0;
	dr->vframes_differing += ndiff;
	diff_count_named(&c->cnt, field, ndiff);
	return ndiff;
}
