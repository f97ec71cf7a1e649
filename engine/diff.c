// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff of two snapshots, run by run.  At each position the current runs of
 * both images overlap for some pages; the records of the two runs are linear
 * in the pfn, so the set of differing fields is constant over the overlap
 * except where a slot's two progressions cross (one pfn), where the flags
 * word's difference would change (different flag strides) or where the
 * page's tail index changes.  Such a chunk is accounted at once: identical
 * images cost O(runs), and so does a constant difference (a mutant that
 * changes every tail page the same way).
 */
#include "mmc_util.h"
#include "diff.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "normalise.h"
#include "page_decode.h"

const char *mmc_verdict_name(enum mmc_verdict v)
{
	switch (v) {
	case MMC_IDENTICAL: return "identical";
	case MMC_DIFFERENT: return "different";
	case MMC_INCOMPLETE: return "incomplete";
	}
	return "unknown";
}

/* What differs on one page (constant over a chunk). */
struct sig {
	uint32_t slot_mask;	/* differing slots (the flags slot too) */
	bool flags_split;	/* flags slot differs, both RAW: named per bit */
	uint64_t flag_xor;
	unsigned int tail;	/* tail index of a's page */
	bool state, role;
	/* slots holding two 4-byte members (_mapcount+_refcount): which
	 * halves differ, bit 0 the low one; 0 when named as a whole */
	uint8_t half[MMC_MAX_SLOTS];
};

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
	struct mmc_diff_result *res;
	size_t pages_cap, groups_cap;
	/* per range */
	size_t ri;
	uint64_t slot_cnt[MMC_MAX_SLOTS][4];
	uint64_t half_cnt[MMC_MAX_SLOTS][4][2];
	/* per slot and tail index: the two members' names when it splits */
	bool split[MMC_MAX_SLOTS][4];
	char half_name[MMC_MAX_SLOTS][4][2][48];
	uint64_t zone_cnt[4], node_cnt[4], bit_cnt[4][64], order_cnt[4];
	uint64_t state_cnt, role_cnt, vframe_cnt;
	bool group_open;
	struct sig gsig;
	struct mmc_diff_group g;
	bool oom;
	/*
	 * OBJ numbers are first-appearance numbers within each image, so they
	 * shift when one image could not read pages the other could.  Two
	 * numbers are equal when they are paired one-to-one: the first time an
	 * a-number meets a b-number pairs them, a later meeting with another
	 * number is a real difference.
	 */
	int64_t *a2b, *b2a;
	size_t a2b_cap, b2a_cap;
};

static bool obj_map_grow(struct dctx *c, int64_t **map, size_t *cap, int64_t v)
{
	size_t ncap = *cap ? *cap : 64, i;
	int64_t *m;

	if (v < 0 || (uint64_t)v > (1ULL << 32)) {
		c->oom = true;	/* numbers are dense: this is a corrupt snapshot */
		return false;
	}
	if ((size_t)v < *cap)
		return true;
	while (ncap <= (size_t)v)
		ncap *= 2;
	m = realloc(*map, ncap * sizeof(*m));
	if (!m) {
		c->oom = true;
		return false;
	}
	for (i = *cap; i < ncap; i++)
		m[i] = -1;
	*map = m;
	*cap = ncap;
	return true;
}

/* Equality of two normalised values, OBJ numbers through the pairing. */
static bool nval_equal(struct dctx *c, const struct mmc_nval *x,
		       const struct mmc_nval *y)
{
	if (x->cls != MMC_V_OBJ || y->cls != MMC_V_OBJ)
		return mmc_nval_equal(x, y);
	if (x->region != y->region || x->off != y->off)
		return false;
	if (!obj_map_grow(c, &c->a2b, &c->a2b_cap, x->v) ||
	    !obj_map_grow(c, &c->b2a, &c->b2a_cap, y->v))
		return false;
	if (c->a2b[x->v] < 0 && c->b2a[y->v] < 0) {
		c->a2b[x->v] = y->v;
		c->b2a[y->v] = x->v;
		return true;
	}
	return c->a2b[x->v] == y->v && c->b2a[y->v] == x->v;
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return mmc_grow_array(arr, cap, need, elem, 8);
}

/* ---- naming ---- */

static void slot_name(const struct dctx *c, unsigned int slot, unsigned int tail,
		      char *buf, size_t size)
{
	if (c->la)
		mmc_slot_label(c->la, slot, tail, buf, size);
	else
		snprintf(buf, size, "+0x%x", slot * 8);
}

static uint64_t field_mask(uint32_t width, uint32_t shift)
{
	uint64_t m;

	if (width == 0 || shift >= 64)
		return 0;
	m = width >= 64 ? UINT64_MAX : ((1ULL << width) - 1);
	return m << shift;
}

static uint32_t nr_pageflags(const struct dctx *c)
{
	int64_t v;

	if (c->ga->nr_pageflags)
		return c->ga->nr_pageflags;
	if (c->la && mmc_layout_enum_value(c->la, MMC_ENUM_PAGEFLAGS, "__NR_PAGEFLAGS", &v) &&
	    v > 0 && v <= 64)
		return (uint32_t)v;
	return 0;
}

/* Prefix for split flag names: "flags" for the page flags word, else the
 * slot's label (page[1]'s "_flags_1"). */
/* page[1]'s flags word keeps the folio order in its low byte (6.5+: no
 * _folio_order member): one field, not eight bits. */
static uint64_t order_mask(const struct dctx *c, unsigned int tail)
{
	if (tail != 1 || !c->la || c->la->member[MMC_FOLIO_ORDER].found)
		return 0;
	return 0xff;
}

static void flags_prefix(const struct dctx *c, unsigned int tail, char *buf, size_t size)
{
	slot_name(c, c->flags_slot, tail, buf, size);
	if (!strncmp(buf, "flags", 5))
		snprintf(buf, size, "flags");
}

static void bit_name(const struct dctx *c, unsigned int tail, unsigned int bit,
		     char *buf, size_t size)
{
	char pre[32];
	const char *pg = NULL;

	flags_prefix(c, tail, pre, sizeof(pre));
	/* page[1]'s _flags_1 is its own flags word: same bit names */
	if ((!strcmp(pre, "flags") || tail == 1) && bit < nr_pageflags(c) && c->la)
		pg = mmc_layout_enum_name(c->la, MMC_ENUM_PAGEFLAGS, bit);
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
	uint64_t zm = field_mask(c->ga->zones_width, c->ga->zones_pgshift);
	uint64_t nm = field_mask(c->ga->nodes_width, c->ga->nodes_pgshift);
	char name[48], pre[32];
	unsigned int k, b;

	out[0] = 0;
	for (k = 0; k < MMC_MAX_SLOTS; k++) {
		if (!(s->slot_mask & (1u << k)))
			continue;
		if (k == c->flags_slot && s->flags_split) {
			flags_prefix(c, s->tail, pre, sizeof(pre));
			if (s->flag_xor & zm) {
				snprintf(name, sizeof(name), "%s.zone", pre);
				add_name(out, size, name);
			}
			if (s->flag_xor & nm) {
				snprintf(name, sizeof(name), "%s.node", pre);
				add_name(out, size, name);
			}
			if (s->flag_xor & order_mask(c, s->tail)) {
				snprintf(name, sizeof(name), "%s.order", pre);
				add_name(out, size, name);
			}
			for (b = 0; b < 64; b++) {
				if (!(s->flag_xor & ~(zm | nm | order_mask(c, s->tail)) & (1ULL << b)))
					continue;
				bit_name(c, s->tail, b, name, sizeof(name));
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
		slot_name(c, k, s->tail, name, sizeof(name));
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

/* "a+b" labels of slots holding exactly two 4-byte members. */
static void init_split(struct dctx *c)
{
	unsigned int k, t;
	char full[48], *plus;

	for (k = 0; k < MMC_MAX_SLOTS; k++) {
		for (t = 0; t < 4; t++) {
			if (k == c->flags_slot || !c->la)
				continue;
			slot_name(c, k, t, full, sizeof(full));
			plus = strchr(full, '+');
			if (!plus || plus == full || strchr(plus + 1, '+') || !plus[1])
				continue;
			*plus = 0;
			c->split[k][t] = true;
			snprintf(c->half_name[k][t][0], 48, "%s", full);
			snprintf(c->half_name[k][t][1], 48, "%s", plus + 1);
		}
	}
}

static bool sig_any(const struct sig *s)
{
	return s->slot_mask || s->state || s->role;
}

/* ---- accounting ---- */

static void count_fields(struct dctx *c, const struct sig *s, uint64_t n)
{
	uint64_t zm = field_mask(c->ga->zones_width, c->ga->zones_pgshift);
	uint64_t nm = field_mask(c->ga->nodes_width, c->ga->nodes_pgshift);
	unsigned int k, b, t = s->tail;

	for (k = 0; k < MMC_MAX_SLOTS; k++) {
		if (!(s->slot_mask & (1u << k)))
			continue;
		if (k == c->flags_slot && s->flags_split) {
			if (s->flag_xor & zm)
				c->zone_cnt[t] += n;
			if (s->flag_xor & nm)
				c->node_cnt[t] += n;
			if (s->flag_xor & order_mask(c, t))
				c->order_cnt[t] += n;
			for (b = 0; b < 64; b++)
				if (s->flag_xor & ~(zm | nm | order_mask(c, t)) & (1ULL << b))
					c->bit_cnt[t][b] += n;
			continue;
		}
		if (s->half[k]) {
			if (s->half[k] & 1)
				c->half_cnt[k][t][0] += n;
			if (s->half[k] & 2)
				c->half_cnt[k][t][1] += n;
			continue;
		}
		c->slot_cnt[k][t] += n;
	}
	if (s->state)
		c->state_cnt += n;
	if (s->role)
		c->role_cnt += n;
}

static void add_field(struct mmc_diff_range *dr, const char *name, uint64_t n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < dr->nfields; i++) {
		if (!strcmp(dr->fields[i].name, name)) {
			dr->fields[i].pages += n;
			return;
		}
	}
	if (dr->nfields == MMC_DIFF_MAX_FIELDS - 1 &&
	    strcmp(name, "(other fields)") != 0) {
		add_field(dr, "(other fields)", n);
		return;
	}
	if (dr->nfields >= MMC_DIFF_MAX_FIELDS)
		return;
	snprintf(dr->fields[dr->nfields].name, sizeof(dr->fields[0].name), "%s", name);
	dr->fields[dr->nfields].pages = n;
	dr->nfields++;
}

static void flush_fields(struct dctx *c, struct mmc_diff_range *dr)
{
	char name[48], pre[32];
	unsigned int k, t, b;

	for (k = 0; k < MMC_MAX_SLOTS; k++) {
		for (t = 0; t < 4; t++) {
			if (k == c->flags_slot) {
				flags_prefix(c, t, pre, sizeof(pre));
				snprintf(name, sizeof(name), "%s.zone", pre);
				add_field(dr, name, c->zone_cnt[t]);
				snprintf(name, sizeof(name), "%s.node", pre);
				add_field(dr, name, c->node_cnt[t]);
				snprintf(name, sizeof(name), "%s.order", pre);
				add_field(dr, name, c->order_cnt[t]);
				for (b = 0; b < 64; b++) {
					if (!c->bit_cnt[t][b])
						continue;
					bit_name(c, t, b, name, sizeof(name));
					add_field(dr, name, c->bit_cnt[t][b]);
				}
			}
			if (c->split[k][t]) {
				add_field(dr, c->half_name[k][t][0], c->half_cnt[k][t][0]);
				add_field(dr, c->half_name[k][t][1], c->half_cnt[k][t][1]);
			}
			if (!c->slot_cnt[k][t])
				continue;
			slot_name(c, k, t, name, sizeof(name));
			add_field(dr, name, c->slot_cnt[k][t]);
		}
	}
	add_field(dr, "state", c->state_cnt);
	add_field(dr, "role", c->role_cnt);
	add_field(dr, "vmemmap_frame", c->vframe_cnt);
}

static void close_group(struct dctx *c)
{
	struct mmc_diff_result *res = c->res;

	if (!c->group_open)
		return;
	c->group_open = false;
	res->groups_total++;
	if (res->ngroups >= c->max_groups)
		return;
	if (!grow((void **)&res->groups, &c->groups_cap, res->ngroups + 1,
		  sizeof(*res->groups))) {
		c->oom = true;
		return;
	}
	res->groups[res->ngroups++] = c->g;
}

static void note_group(struct dctx *c, const struct sig *s, uint64_t pfn, uint64_t n)
{
	char names[sizeof(c->g.fields)];

	if (c->group_open && c->g.range == c->ri && c->g.last_pfn + 1 == pfn) {
		bool same = sig_equal(&c->gsig, s);

		if (!same) {
			sig_names(c, s, names, sizeof(names));
			same = !strcmp(names, c->g.fields);
		}
		if (same) {
			c->gsig = *s;
			c->g.last_pfn = pfn + n - 1;
			c->g.npages += n;
			return;
		}
	}
	close_group(c);
	c->group_open = true;
	c->gsig = *s;
	memset(&c->g, 0, sizeof(c->g));
	c->g.range = c->ri;
	c->g.first_pfn = pfn;
	c->g.last_pfn = pfn + n - 1;
	c->g.npages = n;
	sig_names(c, s, c->g.fields, sizeof(c->g.fields));
}

static void note_pages(struct dctx *c, const struct sig *s, uint64_t pfn, uint64_t n,
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
		mmc_nrec_run_at(&A->first, &A->stride, pfn + i - A->start, &p->a);
		mmc_nrec_run_at(&B->first, &B->stride, pfn + i - B->start, &p->b);
		p->slot_mask = s->slot_mask;
		p->state_differs = s->state;
		p->role_differs = s->role;
	}
}

/* ---- comparing ---- */

static bool side_load(struct side *sd, uint64_t pos)
{
	while (sd->run < sd->nruns && !(pos >= sd->start && pos < sd->start + sd->count)) {
		mmc_snapshot_range_run(sd->s, sd->range, sd->run, &sd->start, &sd->count,
				       &sd->first, &sd->stride);
		if (pos >= sd->start && pos < sd->start + sd->count)
			return true;
		sd->run++;
	}
	return pos >= sd->start && pos < sd->start + sd->count;
}

static unsigned int tail_of(const struct dctx *c, const struct mmc_nrec *r)
{
	const struct mmc_nval *ch;

	if (c->ch_slot >= r->nslots)
		return 0;
	ch = &r->slot[c->ch_slot];
	if (ch->cls == MMC_V_PAGE && (ch->off & 1)) {
		if (ch->v == -1)
			return 1;
		if (ch->v == -2)
			return 2;
		return 3;
	}
	if (ch->cls != MMC_V_PAGE && ch->cls != MMC_V_NULL && (ch->raw & 1))
		return 3;
	return 0;
}

/* Pages from pos for which tail_of() stays what it is at pos. */
static uint64_t tail_const(const struct dctx *c, const struct side *A,
			   const struct mmc_nrec *r, uint64_t n)
{
	const struct mmc_nval *ch;
	int64_t dv;

	if (c->ch_slot >= r->nslots)
		return n;
	ch = &r->slot[c->ch_slot];
	dv = A->stride.slot[c->ch_slot].v;
	if (ch->cls == MMC_V_PAGE && (ch->off & 1)) {
		if (dv == 0 || (ch->v <= -3 && dv < 0) || (ch->v >= 0 && dv > 0))
			return n;
		return 1;
	}
	if (ch->cls != MMC_V_PAGE && ch->cls != MMC_V_NULL &&
	    (A->stride.slot[c->ch_slot].raw & 1))
		return 1;
	return n;
}

/* Compare two READ records at the overlap start; returns the chunk length
 * (<= n) over which the signature stays the same. */
static uint64_t compare_read(struct dctx *c, const struct side *A,
			     const struct side *B, const struct mmc_nrec *ra,
			     const struct mmc_nrec *rb, uint64_t n, struct sig *s)
{
	unsigned int k, nmax = ra->nslots > rb->nslots ? ra->nslots : rb->nslots;

	for (k = 0; k < nmax; k++) {
		const struct mmc_nval *x = &ra->slot[k], *y = &rb->slot[k];
		int64_t da, db;
		bool eq;

		if (k < ra->nslots && k < rb->nslots && k != c->flags_slot &&
		    c->split[k][s->tail] &&
		    (x->cls == MMC_V_RAW || x->cls == MMC_V_NULL) &&
		    (y->cls == MMC_V_RAW || y->cls == MMC_V_NULL) && x->cls != y->cls) {
			/* two ints in a pointer-capable slot: 0 is NULL, not a change of kind */
			uint64_t d = (x->cls == MMC_V_RAW ? (uint64_t)x->v : 0) ^
				     (y->cls == MMC_V_RAW ? (uint64_t)y->v : 0);

			s->slot_mask |= 1u << k;
			s->half[k] = (uint8_t)(((d & 0xffffffffULL) ? 1 : 0) | ((d >> 32) ? 2 : 0));
			n = 1;
			continue;
		}
		if (k >= ra->nslots || k >= rb->nslots || x->cls != y->cls ||
		    x->off != y->off || (x->cls == MMC_V_OBJ && x->region != y->region)) {
			s->slot_mask |= 1u << k;
			continue;
		}
		da = A->stride.slot[k].v;
		db = B->stride.slot[k].v;
		if (x->cls == MMC_V_OBJ && (da || db))
			n = 1;	/* each page meets other objects: pair one by one */
		eq = nval_equal(c, x, y);
		if (!eq && x->cls == MMC_V_RAW && k != c->flags_slot &&
		    c->split[k][s->tail]) {
			uint64_t d = (uint64_t)x->v ^ (uint64_t)y->v;

			s->half[k] = (uint8_t)(((d & 0xffffffffULL) ? 1 : 0) |
					       ((d >> 32) ? 2 : 0));
			if (da != db)
				n = 1;	/* which half differs may change */
		}
		if (!eq) {
			s->slot_mask |= 1u << k;
			if (k == c->flags_slot && x->cls == MMC_V_RAW) {
				s->flags_split = true;
				s->flag_xor = (uint64_t)x->v ^ (uint64_t)y->v;
				if (da != 0 || db != 0)
					n = 1;
			}
		}
		if (da != db) {
			__int128 num = (__int128)y->v - x->v;
			__int128 den = (__int128)da - db;

			if (eq) {
				n = 1;
			} else if (num % den == 0) {
				__int128 kk = num / den;

				if (kk > 0 && kk < (__int128)n)
					n = (uint64_t)kk;
			}
		}
	}
	if (ra->role != rb->role)
		s->role = true;
	return n;
}

static struct mmc_error *diff_pages(struct dctx *c, struct mmc_diff_range *dr,
				    const struct mmc_snapshot *a, size_t ia,
				    const struct mmc_snapshot *b, size_t ib)
{
	struct side *A = calloc(2, sizeof(*A)), *B;
	struct mmc_diff_result *res = c->res;
	uint64_t pos = dr->start_pfn;
	struct mmc_nrec ra, rb;

	if (!A)
		return mmc_error_nomem();
	B = A + 1;
	A->s = a;
	A->range = ia;
	A->nruns = mmc_snapshot_range_nruns(a, ia);
	B->s = b;
	B->range = ib;
	B->nruns = mmc_snapshot_range_nruns(b, ib);
	A->start = B->start = UINT64_MAX;
	while (pos < dr->end_pfn && !c->oom) {
		uint64_t n, na, nb;
		bool ua, ub;
		struct sig s;

		if (!side_load(A, pos) || !side_load(B, pos)) {
			free(A);
			return mmc_error_create(MMC_ERR_INTERNAL, NULL,
						"diff: range [0x%llx, 0x%llx) has no record for pfn 0x%llx",
						(unsigned long long)dr->start_pfn,
						(unsigned long long)dr->end_pfn,
						(unsigned long long)pos);
		}
		na = A->start + A->count - pos;
		nb = B->start + B->count - pos;
		n = na < nb ? na : nb;
		mmc_nrec_run_at(&A->first, &A->stride, pos - A->start, &ra);
		mmc_nrec_run_at(&B->first, &B->stride, pos - B->start, &rb);
		ua = ra.state == MMC_PS_UNREADABLE || ra.state == MMC_PS_UNMAPPED;
		ub = rb.state == MMC_PS_UNREADABLE || rb.state == MMC_PS_UNMAPPED;
		if (ua || ub) {
			if (ua)
				dr->unreadable_a += n;
			if (ub)
				dr->unreadable_b += n;
			res->pages_unreadable += n;
			close_group(c);
			pos += n;
			continue;
		}
		if (ra.state == MMC_PS_NOT_INIT && rb.state == MMC_PS_NOT_INIT) {
			dr->not_init += n;
			res->pages_not_init += n;
			close_group(c);
			pos += n;
			continue;
		}
		memset(&s, 0, sizeof(s));
		if (ra.state != rb.state) {
			s.state = true;
			s.role = ra.role != rb.role;
		} else {
			s.tail = tail_of(c, &ra);	/* names of split slots */
			n = compare_read(c, A, B, &ra, &rb, n, &s);
		}
		if (sig_any(&s)) {
			s.tail = tail_of(c, &ra);
			n = tail_const(c, A, &ra, n);
		}
		dr->compared += n;
		res->pages_compared += n;
		if (!sig_any(&s)) {
			close_group(c);
			pos += n;
			continue;
		}
		dr->differing += n;
		res->pages_differing += n;
		count_fields(c, &s, n);
		note_group(c, &s, pos, n);
		note_pages(c, &s, pos, n, A, B);
		pos += n;
	}
	free(A);
	return NULL;
}

static void diff_vframes(struct dctx *c, struct mmc_diff_range *dr,
			 const struct mmc_snapshot *a, size_t ia,
			 const struct mmc_snapshot *b, size_t ib)
{
	size_t nva = mmc_snapshot_range_nvframe_runs(a, ia);
	size_t nvb = mmc_snapshot_range_nvframe_runs(b, ib);
	uint64_t ta = mmc_snapshot_range_nvframes(a, ia);
	uint64_t tb = mmc_snapshot_range_nvframes(b, ib);
	uint64_t total = ta < tb ? ta : tb, idx = 0;
	size_t ja = 0, jb = 0;
	struct mmc_vframe fa, sa, fb, sb;
	uint64_t sta = 0, ca = 0, stb = 0, cb = 0;

	while (idx < total) {
		uint64_t n, ka, kb;
		int64_t sha, shb, dva, dvb;
		bool ura, urb;

		while (idx >= sta + ca && ja < nva)
			mmc_snapshot_range_vframe_run(a, ia, ja++, &sta, &ca, &fa, &sa);
		while (idx >= stb + cb && jb < nvb)
			mmc_snapshot_range_vframe_run(b, ib, jb++, &stb, &cb, &fb, &sb);
		if (idx >= sta + ca || idx >= stb + cb)
			break;
		n = sta + ca - idx;
		if (stb + cb - idx < n)
			n = stb + cb - idx;
		ka = idx - sta;
		kb = idx - stb;
		ura = fa.kind == MMC_VF_UNREADABLE;
		urb = fb.kind == MMC_VF_UNREADABLE;
		if (ura || urb) {
			dr->vframes_unreadable += n;
			idx += n;
			continue;
		}
		sha = (int64_t)((uint64_t)fa.share_back + (uint64_t)sa.share_back * ka);
		shb = (int64_t)((uint64_t)fb.share_back + (uint64_t)sb.share_back * kb);
		dva = (int64_t)((uint64_t)fa.dev_off + (uint64_t)sa.dev_off * ka);
		dvb = (int64_t)((uint64_t)fb.dev_off + (uint64_t)sb.dev_off * kb);
		if (sa.share_back != sb.share_back || sa.dev_off != sb.dev_off)
			n = 1;
		if (fa.kind != fb.kind || sha != shb || dva != dvb) {
			dr->vframes_differing += n;
			c->vframe_cnt += n;
		}
		idx += n;
	}
	if (ta != tb) {
		uint64_t extra = ta > tb ? ta - tb : tb - ta;

		dr->vframes_differing += extra;
		c->vframe_cnt += extra;
	}
}

/* ---- pgmaps ---- */

static void pgdiff(struct dctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void pgdiff(struct dctx *c, const char *fmt, ...)
{
	struct mmc_diff_result *res = c->res;
	char **p;
	char *s;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		c->oom = true;
		return;
	}
	p = realloc(res->pgmap_diffs, (res->npgmap_diffs + 1) * sizeof(*p));
	if (!p) {
		free(s);
		c->oom = true;
		return;
	}
	res->pgmap_diffs = p;
	p[res->npgmap_diffs++] = s;
}

static void diff_pgmap(struct dctx *c, uint32_t ia, const struct mmc_spgmap *pa,
		       uint32_t ib, const struct mmc_spgmap *pb)
{
	char name[32], x[64], y[64];

	if (ia == ib)
		snprintf(name, sizeof(name), "pgmap#%u", ia);
	else
		snprintf(name, sizeof(name), "pgmap#%u/#%u", ia, ib);
	if (pa->type != pb->type)
		pgdiff(c, "%s type: %s(%lld) vs %s(%lld)", name, pa->type_name,
		       (long long)pa->type, pb->type_name, (long long)pb->type);
	if (pa->flags != pb->flags)
		pgdiff(c, "%s flags: 0x%llx vs 0x%llx", name,
		       (unsigned long long)pa->flags, (unsigned long long)pb->flags);
	if (pa->vmemmap_shift != pb->vmemmap_shift)
		pgdiff(c, "%s vmemmap_shift: %u vs %u", name, pa->vmemmap_shift,
		       pb->vmemmap_shift);
	if (pa->nr_range != pb->nr_range)
		pgdiff(c, "%s nr_range: %u vs %u", name, pa->nr_range, pb->nr_range);
	if (!nval_equal(c, &pa->owner, &pb->owner)) {
		mmc_format_nval(&pa->owner, x, sizeof(x));
		mmc_format_nval(&pb->owner, y, sizeof(y));
		pgdiff(c, "%s owner: %s vs %s", name, x, y);
	}
	if (!nval_equal(c, &pa->ops, &pb->ops)) {
		mmc_format_nval(&pa->ops, x, sizeof(x));
		mmc_format_nval(&pb->ops, y, sizeof(y));
		pgdiff(c, "%s ops: %s vs %s", name, x, y);
	}
	if (pa->has_altmap != pb->has_altmap)
		pgdiff(c, "%s altmap: %s vs %s", name, pa->has_altmap ? "yes" : "no",
		       pb->has_altmap ? "yes" : "no");
	if (!pa->has_altmap && !pb->has_altmap)
		return;
#define ALTMAP_FIELD(f) \
	if (pa->altmap_##f != pb->altmap_##f) \
		pgdiff(c, "%s altmap." #f ": 0x%llx vs 0x%llx", name, \
		       (unsigned long long)pa->altmap_##f, \
		       (unsigned long long)pb->altmap_##f)
	ALTMAP_FIELD(base_pfn);
	ALTMAP_FIELD(end_pfn);
	ALTMAP_FIELD(reserve);
	ALTMAP_FIELD(free);
	ALTMAP_FIELD(align);
	ALTMAP_FIELD(alloc);
#undef ALTMAP_FIELD
}

static void diff_srange(struct dctx *c, const struct mmc_srange *x,
			const struct mmc_srange *y)
{
	if (x->range_index != y->range_index)
		pgdiff(c, "range [0x%llx, 0x%llx) range_index: %u vs %u",
		       (unsigned long long)x->start_pfn, (unsigned long long)x->end_pfn,
		       x->range_index, y->range_index);
	if (x->reserve_start != y->reserve_start || x->reserve_end != y->reserve_end)
		pgdiff(c, "range [0x%llx, 0x%llx) altmap reserve: [0x%llx, 0x%llx) vs [0x%llx, 0x%llx)",
		       (unsigned long long)x->start_pfn, (unsigned long long)x->end_pfn,
		       (unsigned long long)x->reserve_start, (unsigned long long)x->reserve_end,
		       (unsigned long long)y->reserve_start, (unsigned long long)y->reserve_end);
	if (x->altmap_start != y->altmap_start || x->altmap_end != y->altmap_end)
		pgdiff(c, "range [0x%llx, 0x%llx) memmap pfns: [0x%llx, 0x%llx) vs [0x%llx, 0x%llx)",
		       (unsigned long long)x->start_pfn, (unsigned long long)x->end_pfn,
		       (unsigned long long)x->altmap_start, (unsigned long long)x->altmap_end,
		       (unsigned long long)y->altmap_start, (unsigned long long)y->altmap_end);
}

/* ---- driver ---- */

static void reset_range_acc(struct dctx *c)
{
	memset(c->slot_cnt, 0, sizeof(c->slot_cnt));
	memset(c->half_cnt, 0, sizeof(c->half_cnt));
	memset(c->zone_cnt, 0, sizeof(c->zone_cnt));
	memset(c->order_cnt, 0, sizeof(c->order_cnt));
	memset(c->node_cnt, 0, sizeof(c->node_cnt));
	memset(c->bit_cnt, 0, sizeof(c->bit_cnt));
	c->state_cnt = c->role_cnt = c->vframe_cnt = 0;
}

static void range_verdict(struct mmc_diff_range *dr)
{
	if (dr->differing || dr->vframes_differing || dr->a_index < 0 || dr->b_index < 0)
		dr->verdict = MMC_DIFFERENT;
	else if (dr->unreadable_a || dr->unreadable_b || dr->vframes_unreadable)
		dr->verdict = MMC_INCOMPLETE;
	else
		dr->verdict = MMC_IDENTICAL;
}

static int64_t find_range(const struct mmc_snapshot *s, const struct mmc_srange *r)
{
	size_t i;

	for (i = 0; i < mmc_snapshot_nranges(s); i++) {
		const struct mmc_srange *x = mmc_snapshot_range(s, i);

		if (x->start_pfn == r->start_pfn && x->end_pfn == r->end_pfn)
			return (int64_t)i;
	}
	return -1;
}

static struct mmc_error *diff_matched(struct dctx *c, const struct mmc_snapshot *a,
				      const struct mmc_snapshot *b,
				      struct mmc_diff_range *dr)
{
	struct mmc_error *err;

	reset_range_acc(c);
	err = diff_pages(c, dr, a, (size_t)dr->a_index, b, (size_t)dr->b_index);
	close_group(c);
	if (err)
		return err;
	diff_vframes(c, dr, a, (size_t)dr->a_index, b, (size_t)dr->b_index);
	flush_fields(c, dr);
	return NULL;
}

static void unmatched(struct dctx *c, struct mmc_diff_range *dr, const char *which)
{
	uint64_t n = dr->end_pfn - dr->start_pfn;

	dr->differing = n;
	c->res->pages_differing += n;
	add_field(dr, which, n);
}

struct mmc_error *mmc_diff(const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			   const struct mmc_diff_opts *opts,
			   struct mmc_diff_result **out)
{
	size_t na = mmc_snapshot_nranges(a), nb = mmc_snapshot_nranges(b);
	size_t npa = mmc_snapshot_npgmaps(a), i;
	struct mmc_diff_result *res;
	struct mmc_error *err = NULL;
	struct dctx *c;
	bool *pg_seen;
	bool incomplete = false, different = false;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	res = calloc(1, sizeof(*res));
	pg_seen = calloc(npa + 1, sizeof(*pg_seen));
	if (!c || !res || !pg_seen)
		goto nomem;
	res->ranges = calloc(na + nb + 1, sizeof(*res->ranges));
	if (!res->ranges)
		goto nomem;
	c->res = res;
	c->la = mmc_snapshot_layout(a);
	c->ga = mmc_snapshot_geom(a);
	c->max_pages = opts && opts->max_pages ? opts->max_pages : 20;
	c->max_groups = opts && opts->max_groups ? opts->max_groups : 200;
	c->flags_slot = 0;
	c->ch_slot = 1;
	if (c->la && c->la->member[MMC_PAGE_FLAGS].found)
		c->flags_slot = c->la->member[MMC_PAGE_FLAGS].offset / 8;
	if (c->la && c->la->member[MMC_PAGE_COMPOUND_HEAD].found)
		c->ch_slot = c->la->member[MMC_PAGE_COMPOUND_HEAD].offset / 8;
	init_split(c);
	res->layout_differs = mmc_snapshot_info(a)->layout_fingerprint !=
			      mmc_snapshot_info(b)->layout_fingerprint;

	for (i = 0; i < na && !c->oom; i++) {
		const struct mmc_srange *ra = mmc_snapshot_range(a, i);
		struct mmc_diff_range *dr = &res->ranges[res->nranges];
		int64_t j = find_range(b, ra);

		c->ri = res->nranges++;
		dr->start_pfn = ra->start_pfn;
		dr->end_pfn = ra->end_pfn;
		dr->a_index = (int64_t)i;
		dr->b_index = j;
		if (j < 0) {
			unmatched(c, dr, "(range only in a)");
		} else {
			const struct mmc_srange *rb = mmc_snapshot_range(b, (size_t)j);
			uint32_t pa = ra->pgmap_index, pb = rb->pgmap_index;

			diff_srange(c, ra, rb);
			if (pa < npa && !pg_seen[pa] && pb < mmc_snapshot_npgmaps(b)) {
				pg_seen[pa] = true;
				diff_pgmap(c, pa, mmc_snapshot_pgmap(a, pa), pb,
					   mmc_snapshot_pgmap(b, pb));
			}
			err = diff_matched(c, a, b, dr);
			if (err)
				goto fail;
		}
		range_verdict(dr);
	}
	for (i = 0; i < nb && !c->oom; i++) {
		const struct mmc_srange *rb = mmc_snapshot_range(b, i);
		struct mmc_diff_range *dr;

		if (find_range(a, rb) >= 0)
			continue;
		dr = &res->ranges[res->nranges];
		c->ri = res->nranges++;
		dr->start_pfn = rb->start_pfn;
		dr->end_pfn = rb->end_pfn;
		dr->a_index = -1;
		dr->b_index = (int64_t)i;
		unmatched(c, dr, "(range only in b)");
		range_verdict(dr);
	}
	for (i = 0; i < npa && !c->oom; i++) {
		if (!pg_seen[i])
			pgdiff(c, "pgmap#%zu of a: no range of it matches a range of b", i);
	}
	for (i = 0; i < mmc_snapshot_npgmaps(b) && !c->oom; i++) {
		size_t k;
		bool used = false;

		for (k = 0; k < nb && !used; k++) {
			const struct mmc_srange *rb = mmc_snapshot_range(b, k);

			used = rb->pgmap_index == i && find_range(a, rb) >= 0;
		}
		if (!used)
			pgdiff(c, "pgmap#%zu of b: no range of it matches a range of a", i);
	}
	if (c->oom)
		goto nomem;

	for (i = 0; i < res->nranges; i++) {
		if (res->ranges[i].verdict == MMC_DIFFERENT)
			different = true;
		else if (res->ranges[i].verdict == MMC_INCOMPLETE)
			incomplete = true;
	}
	if (different || res->npgmap_diffs || res->pages_differing)
		res->verdict = MMC_DIFFERENT;
	else if (incomplete || res->pages_unreadable)
		res->verdict = MMC_INCOMPLETE;
	else
		res->verdict = MMC_IDENTICAL;
	free(pg_seen);
	free(c->a2b);
	free(c->b2a);
	free(c);
	*out = res;
	return NULL;

nomem:
	err = mmc_error_nomem();
fail:
	free(pg_seen);
	if (c) {
		free(c->a2b);
		free(c->b2a);
	}
	free(c);
	mmc_diff_result_destroy(res);
	return err;
}

void mmc_diff_result_destroy(struct mmc_diff_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->npgmap_diffs; i++)
		free(res->pgmap_diffs[i]);
	free(res->pgmap_diffs);
	free(res->ranges);
	free(res->pages);
	free(res->groups);
	free(res);
}
