// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff, claims bound to the images.  Every field name is resolved to the
 * name the diff prints (it names fields by the base image's layout): a
 * name the base layout has is taken as it is; one it has under the other
 * spelling of a kernel rename (rules.h mmc_field_rename()) is taken as
 * that, and said once; one only the patched layout has is kept (the diff
 * never prints it: the claim is then not seen); one neither layout has is
 * an error naming the line and both releases.  Each claim then becomes,
 * per page kind, bit masks of the diff's atoms of difference (diff_int.h
 * struct sig: whole slots, the two halves of a split slot, the bits of the
 * flags word, state, role) it covers whatever the values, plus the fields
 * it claims with FROM -> TO.
 *
 * A name binds by the kind of range the page is in, as the diff names the
 * word there (mmc_slot_label_of()): offsets 8 and 16 of a struct page are
 * pgmap and zone_device_data in a pgmap's range, lru.next and lru.prev in
 * a HugeTLB or hot-plug one.  So a claim's zone_device_data covers nothing
 * on a HugeTLB page, and its lru.prev nothing on a ZONE_DEVICE one, as a
 * where key of one kind holds for no range of another.  A name is known
 * when the diff prints it for some kind of range; each kind's binding is
 * made here (bclaim.by_kind) and taken when a range begins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_claims.h"
#include "page_decode.h"
#include "rules.h"

/* ---- names ---- */

static bool has_prefix(const char *name, const char *pre)
{
	size_t n = strlen(pre);

	return !strncmp(name, pre, n) && (name[n] == 0 || name[n] == '.');
}

static bool flags_name(const char *n)
{
	return has_prefix(n, "flags") || has_prefix(n, "_flags_1");
}

/* Every '+'-part of n (up to its '.') is a struct folio member of la. */
static bool folio_name(const struct mmc_layout *la, const char *n)
{
	static const enum mmc_member_id folio[] = {
		MMC_FOLIO_FLAGS_1, MMC_FOLIO_ORDER, MMC_FOLIO_DTOR, MMC_FOLIO_NR_PAGES,
		MMC_FOLIO_LARGE_MAPCOUNT, MMC_FOLIO_ENTIRE_MAPCOUNT, MMC_FOLIO_NR_PAGES_MAPPED,
		MMC_FOLIO_PINCOUNT, MMC_FOLIO_MM_ID_MAPCOUNT, MMC_FOLIO_MM_IDS,
		MMC_FOLIO_DEFERRED_LIST,
	};

	while (*n) {
		size_t len = strcspn(n, "+"), base = strcspn(n, ".+");
		bool found = false;

		for (size_t i = 0; i < sizeof(folio) / sizeof(folio[0]) && !found; i++) {
			const struct mmc_member *m = &la->member[folio[i]];

			found = m->found && strcspn(m->name, ".") == base &&
				!strncmp(m->name, n, base);
		}
		if (!found)
			return false;
		n += len;
		if (*n == '+')
			n++;
	}
	return true;
}

bool claims_field_covers(const struct dctx *c, const char *r, const char *n,
			 enum mmc_tail_index t)
{
	return !strcmp(r, "any") || !strcmp(r, n) || (!strcmp(r, "flags") && flags_name(n)) ||
	       (!strcmp(r, "vmemmap") && !strncmp(n, "vmemmap_", 8)) ||
	       (!strcmp(r, "pools") && claim_pool_field_known(n)) ||
	       (!strcmp(r, "folio") && (t == MMC_TAIL_FIRST || t == MMC_TAIL_SECOND) &&
		c->layout_a && folio_name(c->layout_a, n));
}

bool claims_covers(const struct dctx *c, const struct bclaim *b, const char *n,
		   enum mmc_tail_index t)
{
	const struct claim *cl = b->cl;
	char part[MMC_CLAIMS_NAME_MAX];

	for (size_t i = 0; i < cl->nfields; i++)
		if (!cl->fields[i].has_values && claims_field_covers(c, b->name[i], n, t))
			return true;
	if (!strchr(n, '+'))
		return false;
	while (*n) {
		size_t len = strcspn(n, "+");

		if (len >= sizeof(part))
			return false;
		memcpy(part, n, len);
		part[len] = 0;
		if (!claims_covers(c, b, part, t))
			return false;
		n += len;
		if (*n == '+')
			n++;
	}
	return true;
}

static unsigned int nslots_of(const struct dctx *c)
{
	unsigned int n = c->geom_a->struct_page_size / 8;

	return n > MMC_MAX_SLOTS ? MMC_MAX_SLOTS : n;
}

/* "zone", "PG_head", "bit40": a part of the flags word named on kind t. */
static bool flag_known(const struct dctx *x, enum mmc_tail_index t, const char *pre,
		       const char *rest, uint64_t zm, uint64_t nm)
{
	char label[48];

	if ((!strcmp(rest, "zone") && zm) || (!strcmp(rest, "node") && nm) ||
	    (!strcmp(rest, "order") && diff_order_mask(x, t)))
		return true;
	if (!strncmp(rest, "bit", 3)) {
		char *end;
		unsigned long bit = strtoul(rest + 3, &end, 10);

		if (end != rest + 3 && !*end && bit < 64)
			return true;
	}
	for (unsigned int bit = 0; bit < 64; bit++) {
		diff_bit_name(x, t, bit, label, sizeof(label));
		if (!strcmp(label + strlen(pre) + 1, rest))
			return true;
	}
	return false;
}

/* A field name the diff could print for the images x is made of. */
static bool name_known(const struct dctx *x, const char *name)
{
	uint64_t zm = mmc_flags_zone_mask(x->geom_a), nm = mmc_flags_node_mask(x->geom_a);
	char label[48], pre[32];

	for (unsigned int ti = 0; ti < MMC_TAIL_KINDS; ti++) {
		enum mmc_tail_index t = (enum mmc_tail_index)ti;

		for (unsigned int k = 0; k < nslots_of(x); k++) {
			const char *p;

			diff_slot_name(x, k, t, label, sizeof(label));
			if (!strcmp(label, name))
				return true;
			for (p = label; *p;) {
				size_t len = strcspn(p, "+");

				if (len == strlen(name) && !strncmp(p, name, len))
					return true;
				p += len;
				if (*p == '+')
					p++;
			}
		}
		diff_flags_prefix(x, t, pre, sizeof(pre));
		if (has_prefix(name, pre) && name[strlen(pre)] &&
		    flag_known(x, t, pre, name + strlen(pre) + 1, zm, nm))
			return true;
	}
	return false;
}

/* ... on a page of any kind of range (x->kind is put back). */
static bool name_known_any(struct dctx *x, const char *name)
{
	uint8_t kind = x->kind;
	bool known = false;

	for (unsigned int k = 0; k < MMC_RANGE_KINDS && !known; k++) {
		x->kind = (uint8_t)k;
		known = name_known(x, name);
	}
	x->kind = kind;
	return known;
}

/* Fields every diff may print, whatever the layout. */
static bool name_fixed(const char *n)
{
	return claim_field_is_group(n) || !strcmp(n, "state") || !strcmp(n, "role") ||
	       !strcmp(n, "range") || !strcmp(n, "vmemmap_frame") ||
	       !strcmp(n, "vmemmap_writable") || !strncmp(n, "pgmap.", 6) || claim_field_is_pool(n);
}

/* A naming context for image b (the diff names by a's layout). */
static struct dctx *names_of(const struct mmc_snapshot *s)
{
	struct dctx *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->layout_a = mmc_snapshot_layout(s);
	x->geom_a = mmc_snapshot_geom(s);
	if (x->layout_a && x->layout_a->member[MMC_PAGE_FLAGS].found)
		x->flags_slot = x->layout_a->member[MMC_PAGE_FLAGS].offset / 8;
	diff_names_init(x);
	return x;
}

static bool add_note(struct mmc_diff_claims *out, const char *note)
{
	char **n = realloc(out->notes, (out->nnotes + 1) * sizeof(*n));

	if (!n)
		return false;
	out->notes = n;
	if (!(n[out->nnotes] = strdup(note)))
		return false;
	out->nnotes++;
	return true;
}

static struct mmc_error *resolve(struct dctx *c, struct dctx *xb, struct bclaim *b,
				 size_t i, const char *file)
{
	const struct claim_field *f = &b->cl->fields[i];
	const char *alias = mmc_field_rename(f->name);
	const char *rel_a = mmc_snapshot_info(c->a)->release;
	const char *rel_b = mmc_snapshot_info(c->b)->release;
	struct mmc_diff_claims *out = c->claims->out;
	char note[512];

	snprintf(b->name[i], sizeof(b->name[i]), "%s", f->name);
	if (name_fixed(f->name) || name_known_any(c, f->name))
		return NULL;
	if (alias && name_known_any(c, alias)) {
		char what[160];

		snprintf(b->name[i], sizeof(b->name[i]), "%s", alias);
		snprintf(what, sizeof(what), "%s is %s in %s (a kernel rename)", f->name, alias,
			 rel_a[0] ? rel_a : "the base image");
		for (size_t k = 0; k < out->nnotes; k++)
			if (strstr(out->notes[k], what))
				return NULL;	/* said once */
		snprintf(note, sizeof(note), "%s: line %u: %s: claimed as %s", file, f->line, what,
			 alias);
		return add_note(out, note) ? NULL : mmc_error_nomem();
	}
	if (name_known_any(xb, f->name) || (alias && name_known_any(xb, alias)))
		return NULL;
	return mmc_error_create(MMC_ERR_INPUT, file,
				"line %u: field %s exists in neither image (%s and %s): not a name the diff prints for them",
				f->line, f->name, rel_a[0] ? rel_a : "base: no release",
				rel_b[0] ? rel_b : "patched: no release");
}

/* The atom name n is on a page of kind t (AK_NONE: none). */
static struct atom atom_of(const struct dctx *c, const char *n, enum mmc_tail_index t)
{
	uint64_t zm = mmc_flags_zone_mask(c->geom_a), nm = mmc_flags_node_mask(c->geom_a);
	uint64_t om = diff_order_mask(c, t);
	struct atom a = { .kind = AK_NONE };
	char label[48], pre[32];

	if (!strcmp(n, "state"))
		return (struct atom){ .kind = AK_STATE };
	if (!strcmp(n, "role"))
		return (struct atom){ .kind = AK_ROLE };
	for (unsigned int k = 0; k < nslots_of(c); k++) {
		diff_slot_name(c, k, t, label, sizeof(label));
		if (!strcmp(label, n))
			return (struct atom){ .kind = AK_WHOLE, .slot = (uint8_t)k };
		for (unsigned int h = 0; h < 2 && k != c->flags_slot; h++)
			if (c->split[k][t] && !strcmp(c->half_name[k][t][h], n))
				return (struct atom){ .kind = AK_HALF, .slot = (uint8_t)k,
						      .half = (uint8_t)h };
	}
	diff_flags_prefix(c, t, pre, sizeof(pre));
	if (!has_prefix(n, pre) || !n[strlen(pre)])
		return a;
	a = (struct atom){ .kind = AK_FLAGS, .slot = (uint8_t)c->flags_slot };
	n += strlen(pre) + 1;
	if (!strcmp(n, "zone"))
		a.mask = zm;
	else if (!strcmp(n, "node"))
		a.mask = nm;
	else if (!strcmp(n, "order"))
		a.mask = om;
	for (unsigned int bit = 0; bit < 64 && !a.mask; bit++) {
		if ((zm | nm | om) & (1ULL << bit))
			continue;
		diff_bit_name(c, t, bit, label, sizeof(label));
		if (!strcmp(label + strlen(pre) + 1, n))
			a.mask = 1ULL << bit;
	}
	if (!a.mask)
		a.kind = AK_NONE;
	return a;
}

/* b's masks on the pages of a range of kind c->kind, into m. */
static void cover_masks(const struct dctx *c, const struct bclaim *b, struct bkind *m)
{
	char label[48], pre[32], name[48];

	for (unsigned int ti = 0; ti < MMC_TAIL_KINDS; ti++) {
		enum mmc_tail_index t = (enum mmc_tail_index)ti;
		uint64_t zm = mmc_flags_zone_mask(c->geom_a), nm = mmc_flags_node_mask(c->geom_a);
		uint64_t om = diff_order_mask(c, t);

		for (unsigned int k = 0; k < nslots_of(c); k++) {
			diff_slot_name(c, k, t, label, sizeof(label));
			if (claims_covers(c, b, label, t))
				m->slot_cover[t] |= 1u << k;
			if (k == c->flags_slot)
				continue;
			for (unsigned int h = 0; h < 2; h++)
				if (c->split[k][t] && claims_covers(c, b, c->half_name[k][t][h], t))
					m->half_cover[t][k] |= (uint8_t)(1u << h);
		}
		diff_flags_prefix(c, t, pre, sizeof(pre));
		snprintf(name, sizeof(name), "%s.zone", pre);
		if (zm && claims_covers(c, b, name, t))
			m->bit_cover[t] |= zm;
		snprintf(name, sizeof(name), "%s.node", pre);
		if (nm && claims_covers(c, b, name, t))
			m->bit_cover[t] |= nm;
		snprintf(name, sizeof(name), "%s.order", pre);
		if (om && claims_covers(c, b, name, t))
			m->bit_cover[t] |= om;
		for (unsigned int bit = 0; bit < 64; bit++) {
			if ((zm | nm | om) & (1ULL << bit))
				continue;
			diff_bit_name(c, t, bit, name, sizeof(name));
			if (claims_covers(c, b, name, t))
				m->bit_cover[t] |= 1ULL << bit;
		}
	}
}

/* Does field r name label, or one of its '+'-parts ("_refcount" of a word
 * "_mapcount+_refcount" that differs as a whole)? */
static bool field_touches(const struct dctx *c, const char *r, const char *label,
			  enum mmc_tail_index t)
{
	if (claims_field_covers(c, r, label, t))
		return true;
	if (!strchr(label, '+'))
		return false;
	for (const char *p = label; *p;) {
		size_t len = strcspn(p, "+");
		char part[48];

		if (len < sizeof(part)) {
			memcpy(part, p, len);
			part[len] = 0;
			if (claims_field_covers(c, r, part, t))
				return true;
		}
		p += len;
		if (*p == '+')
			p++;
	}
	return false;
}

/* A together claim's field r without values: the atoms of difference it
 * names on each page kind (differing in any of them is differing in it). */
static void presence_mask(const struct dctx *c, const char *r, struct sig *m)
{
	char label[48], pre[32], name[48];

	for (unsigned int ti = 0; ti < MMC_TAIL_KINDS; ti++) {
		enum mmc_tail_index t = (enum mmc_tail_index)ti;
		struct sig *x = &m[ti];
		uint64_t zm = mmc_flags_zone_mask(c->geom_a), nm = mmc_flags_node_mask(c->geom_a);
		uint64_t om = diff_order_mask(c, t), bits = 0;

		memset(x, 0, sizeof(*x));
		x->tail = t;
		x->state = claims_field_covers(c, r, "state", t);
		x->role = claims_field_covers(c, r, "role", t);
		for (unsigned int k = 0; k < nslots_of(c); k++) {
			diff_slot_name(c, k, t, label, sizeof(label));
			if (k == c->flags_slot) {
				if (claims_field_covers(c, r, label, t))
					bits = ~0ULL;
				continue;
			}
			if (field_touches(c, r, label, t))
				x->slot_mask |= 1u << k;
			for (unsigned int h = 0; h < 2; h++)
				if (c->split[k][t] && (claims_field_covers(c, r, label, t) ||
						       claims_field_covers(c, r, c->half_name[k][t][h], t))) {
					x->slot_mask |= 1u << k;
					x->half[k] |= (uint8_t)(1u << h);
				}
		}
		diff_flags_prefix(c, t, pre, sizeof(pre));
		snprintf(name, sizeof(name), "%s.zone", pre);
		if (zm && claims_field_covers(c, r, name, t))
			bits |= zm;
		snprintf(name, sizeof(name), "%s.node", pre);
		if (nm && claims_field_covers(c, r, name, t))
			bits |= nm;
		snprintf(name, sizeof(name), "%s.order", pre);
		if (om && claims_field_covers(c, r, name, t))
			bits |= om;
		for (unsigned int bit = 0; bit < 64; bit++) {
			if ((zm | nm | om) & (1ULL << bit))
				continue;
			diff_bit_name(c, t, bit, name, sizeof(name));
			if (claims_field_covers(c, r, name, t))
				bits |= 1ULL << bit;
		}
		if (bits) {
			x->slot_mask |= 1u << c->flags_slot;
			x->flag_xor = bits;
		}
	}
}

/* b's binding on each kind of range (c->kind is put back). */
static struct mmc_error *bind_kinds(struct dctx *c, struct bclaim *b)
{
	const struct claim *cl = b->cl;
	uint8_t kind = c->kind;

	for (unsigned int k = 0; k < MMC_RANGE_KINDS; k++) {
		struct bkind *m = &b->by_kind[k];

		c->kind = (uint8_t)k;
		cover_masks(c, b, m);
		m->at = calloc(b->nvf ? b->nvf * MMC_TAIL_KINDS : 1, sizeof(*m->at));
		if (b->together)
			m->fmask = calloc(cl->nfields * MMC_TAIL_KINDS, sizeof(*m->fmask));
		if (!m->at || (b->together && !m->fmask)) {
			c->kind = kind;
			return mmc_error_nomem();
		}
		for (size_t j = 0; j < b->nvf; j++) {
			size_t i = (size_t)(b->vf[j].f - cl->fields);

			for (unsigned int t = 0; t < MMC_TAIL_KINDS; t++)
				m->at[j * MMC_TAIL_KINDS + t] =
					atom_of(c, b->name[i], (enum mmc_tail_index)t);
		}
		for (size_t i = 0; b->together && i < cl->nfields; i++)
			if (!cl->fields[i].has_values)
				presence_mask(c, b->name[i], &m->fmask[i * MMC_TAIL_KINDS]);
	}
	c->kind = kind;
	return NULL;
}

void claims_bind_kind(struct dctx *c)
{
	struct claims_bound *cb = c->claims;
	unsigned int k = c->kind < MMC_RANGE_KINDS ? c->kind : MMC_RANGE_PGMAP;

	for (size_t i = 0; cb && i < cb->n; i++) {
		struct bclaim *b = &cb->b[i];
		const struct bkind *m = &b->by_kind[k];

		memcpy(b->slot_cover, m->slot_cover, sizeof(b->slot_cover));
		memcpy(b->half_cover, m->half_cover, sizeof(b->half_cover));
		memcpy(b->bit_cover, m->bit_cover, sizeof(b->bit_cover));
		for (size_t j = 0; m->at && j < b->nvf; j++)
			memcpy(b->vf[j].at, &m->at[j * MMC_TAIL_KINDS], sizeof(b->vf[j].at));
		if (b->together && m->fmask)
			memcpy(b->fmask, m->fmask,
			       b->cl->nfields * MMC_TAIL_KINDS * sizeof(*b->fmask));
	}
}

static struct mmc_error *bind_claim(struct dctx *c, struct dctx *xb, struct bclaim *b,
				    const char *file)
{
	const struct claim *cl = b->cl;
	struct mmc_error *err;

	b->name = calloc(cl->nfields ? cl->nfields : 1, sizeof(*b->name));
	b->vf = calloc(cl->nfields ? cl->nfields : 1, sizeof(*b->vf));
	if (!b->name || !b->vf)
		return mmc_error_nomem();
	b->together = cl->together_line != 0;
	if (b->together) {
		size_t nf = cl->nfields;

		b->fmask = calloc(nf * MMC_TAIL_KINDS, sizeof(*b->fmask));
		b->vfi = malloc(nf * sizeof(*b->vfi));
		b->short_pages = calloc(nf, sizeof(*b->short_pages));
		b->short_vframes = calloc(nf, sizeof(*b->short_vframes));
		if (!b->fmask || !b->vfi || !b->short_pages || !b->short_vframes)
			return mmc_error_nomem();
		for (size_t i = 0; i < nf; i++)
			b->vfi[i] = -1;
	}
	for (size_t i = 0; i < cl->nfields; i++) {
		err = resolve(c, xb, b, i, file);
		if (err)
			return err;
	}
	for (size_t k = 0; k < cl->nclauses; k++)
		b->has_pfn |= cl->clauses[k].key == CK_PFN;
	b->cuts = b->has_pfn || ((cl->pages & (CR_HEAD | CR_ORDER0)) &&
				 (cl->pages & (CR_HEAD | CR_ORDER0)) != (CR_HEAD | CR_ORDER0));
	b->state = claims_covers(c, b, "state", MMC_TAIL_NONE);
	b->role = claims_covers(c, b, "role", MMC_TAIL_NONE);
	for (size_t i = 0; i < cl->nfields; i++) {
		const struct claim_field *f = &cl->fields[i];
		struct vfield *v;

		if (!f->has_values || claim_field_is_range_level(f->name) ||
		    claim_field_is_vmemmap(f->name))
			continue;
		if (b->vfi)
			b->vfi[i] = (int)b->nvf;
		v = &b->vf[b->nvf++];
		b->cuts = true;
		v->f = f;
	}
	return bind_kinds(c, b);
}

struct mmc_error *diff_claims_bind(struct dctx *c, const struct mmc_claims *claims,
				   bool strict)
{
	size_t n = claims->n;
	struct claims_bound *cb = calloc(1, sizeof(*cb));
	struct mmc_diff_claims *out = calloc(1, sizeof(*out));
	struct mmc_error *err = NULL;
	struct dctx *xb = names_of(c->b);

	c->claims = cb;
	c->res->claims = out;
	if (!cb || !out || !xb)
		goto nomem;
	cb->out = out;
	cb->n = n;
	cb->b = calloc(n ? n : 1, sizeof(*cb->b));
	out->claim = calloc(n ? n : 1, sizeof(*out->claim));
	cb->miss = calloc(n ? n : 1, sizeof(*cb->miss));
	cb->unch = calloc(n ? n : 1, sizeof(*cb->unch));
	if (!cb->b || !out->claim || !cb->miss || !cb->unch)
		goto nomem;
	snprintf(out->file, sizeof(out->file), "%s", claims->path);
	out->strict = strict;
	out->nclaims = n;
	cb->have_head_bit = c->layout_a && mmc_pageflag_bit(c->layout_a, "PG_head", &cb->head_bit);
	cb->ppv = c->geom_a->struct_page_size && c->geom_a->page_size >= c->geom_a->struct_page_size ?
		  c->geom_a->page_size / c->geom_a->struct_page_size : 1;
	c->cgrp = (struct grouper){ .arr = &out->groups, .n = &out->ngroups,
				    .total = &out->groups_total };
	for (size_t i = 0; i < n && !err; i++) {
		const struct claim *cl = &claims->claim[i];
		struct mmc_diff_claim *d = &out->claim[i];

		cb->b[i].cl = cl;
		snprintf(d->name, sizeof(d->name), "%s", cl->name);
		d->line = cl->line;
		if (!(d->reason = strdup(cl->reason ? cl->reason : "")))
			goto nomem;
		err = bind_claim(c, xb, &cb->b[i], claims->path);
	}
	free(xb);
	if (!err)
		claims_bind_kind(c);
	return err;
nomem:
	free(xb);
	return mmc_error_nomem();
}

bool diff_claims_new_range(struct dctx *c)
{
	struct claims_bound *cb = c->claims;
	size_t r = c->res->nranges, n = cb->n;

	if (r == cb->rows_cap) {
		size_t cap = cb->rows_cap ? 2 * cb->rows_cap : 16;
		uint64_t *p = realloc(cb->row_pages, (cap * n + 1) * sizeof(*p));

		if (!p)
			return false;
		cb->row_pages = p;
		p = realloc(cb->row_vframes, (cap * n + 1) * sizeof(*p));
		if (!p)
			return false;
		cb->row_vframes = p;
		cb->rows_cap = cap;
	}
	memset(cb->row_pages + r * n, 0, n * sizeof(*cb->row_pages));
	memset(cb->row_vframes + r * n, 0, n * sizeof(*cb->row_vframes));
	return true;
}

void diff_claims_free(struct dctx *c)
{
	struct claims_bound *cb = c->claims;

	if (!cb)
		return;
	for (size_t i = 0; i < cb->n && cb->b; i++) {
		free(cb->b[i].name);
		free(cb->b[i].vf);
		free(cb->b[i].fmask);
		free(cb->b[i].vfi);
		free(cb->b[i].short_pages);
		free(cb->b[i].short_vframes);
		for (unsigned int k = 0; k < MMC_RANGE_KINDS; k++) {
			free(cb->b[i].by_kind[k].at);
			free(cb->b[i].by_kind[k].fmask);
		}
	}
	free(cb->b);
	free(cb->miss);
	free(cb->unch);
	free(cb->row_pages);
	free(cb->row_vframes);
	free(cb);
	c->claims = NULL;
}
