// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HugeTLB pools, by the kernel's own lists (mm/hugetlb.c): hstates[i]
 * for i < hugetlb_max_hstate is one pool size; a folio of it is on
 * h->hugepage_freelists[node] while free (enqueue_hugetlb_folio()) and on
 * h->hugepage_activelist while in use (dequeue_hugetlb_folio_node_exact(),
 * alloc_surplus/migration putback), both list_head rings through
 * folio->lru, i.e. the head struct page's lru.  An idle kernel has every
 * folio on exactly one list, so the lists must add up to nr_huge_pages
 * and the free lists to free_huge_pages; a list that does not come back
 * within nr_huge_pages entries, or whose prev links disagree, stops
 * reading it (MMC_READ_PARTIAL naming the address), never a hang.
 *
 * Consecutive folios of one hstate become one MMC_RANGE_HUGETLB range,
 * walked as a pgmap's range is: through the page tables, so the
 * read-only vmemmap frame HVO maps for a folio's tail struct pages
 * (mm/hugetlb_vmemmap.c vmemmap_remap_pte()) shows as a shared frame.
 */
#include "discover.h"
#include "mmc_util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* No real hstate is bigger (MAX_NUMNODES 1024: 36808 bytes in Debian's
 * 6.1); a layout saying so is not one. */
#define MAX_HSTATE_BYTES (1u << 20)
/* MAX_NUMNODES is at most 1 << 10 (NODES_SHIFT, mm Kconfig). */
#define MAX_NODES 1024
/* A pool with more folios than this is a corrupt count, not a machine:
 * 2^26 2 MiB folios are 128 TiB. */
#define MAX_POOL_FOLIOS (1ULL << 26)

struct hfolio {
	uint64_t pfn;
	uint32_t hstate, node;
	uint8_t list, vmemmap;
};

struct huge_walk {
	struct mmc_kernel *k;
	struct mmc_discovery *d;
	struct hfolio *f;
	size_t n, cap;
	uint32_t lru_off;
	bool stopped;		/* d->huge_why says where */
};

static const enum mmc_member_id pool_members[] = {
	MMC_LIST_HEAD_NEXT, MMC_LIST_HEAD_PREV, MMC_PAGE_LRU, MMC_PAGE_PRIVATE,
	MMC_HSTATE_ORDER, MMC_HSTATE_NR, MMC_HSTATE_FREE,
	MMC_HSTATE_ACTIVELIST, MMC_HSTATE_FREELISTS,
};

static void stop(struct huge_walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void stop(struct huge_walk *w, const char *fmt, ...)
{
	va_list ap;

	if (w->stopped)
		return;
	w->stopped = true;
	w->d->huge_state = MMC_READ_PARTIAL;
	va_start(ap, fmt);
	vsnprintf(w->d->huge_why, sizeof(w->d->huge_why), fmt, ap);
	va_end(ap);
}

/* The first item the layout lacks, or NULL. */
static const char *pools_missing(const struct mmc_layout *l)
{
	for (size_t i = 0; i < sizeof(pool_members) / sizeof(pool_members[0]); i++)
		if (!l->member[pool_members[i]].found)
			return mmc_member_specs[pool_members[i]].label;
	if (!l->size_found[MMC_SIZE_HSTATE])
		return "sizeof(struct hstate)";
	if (!l->sym_found[MMC_SYM_HSTATES])
		return "hstates";
	if (!l->sym_found[MMC_SYM_HUGETLB_MAX_HSTATE])
		return "hugetlb_max_hstate";
	return NULL;
}

static uint64_t word_at(const uint8_t *buf, const struct mmc_member *m, uint32_t extra)
{
	const uint8_t *p = buf + m->offset + extra;
	uint32_t size = m->count ? m->size / m->count : m->size;

	return size >= 8 ? mmc_le64(p) : size == 4 ? mmc_le32(p) :
	       size == 2 ? (uint64_t)p[0] | (uint64_t)p[1] << 8 : p[0];
}

/*
 * A word of kernel memory: struct pages through the kernel's page tables
 * (the vmemmap is not in a kcore's segments, and HVO remaps it), the rest
 * as the memory source maps it.
 */
static struct mmc_error *read_word8(struct mmc_kernel *k, uint64_t addr, uint8_t *buf)
{
	const struct mmc_geom *g = &k->geom;
	struct mmc_error *err;
	uint64_t pa = 0, size = 0;
	bool mapped = false;

	if (addr < g->vmemmap_base || addr >= g->vmemmap_end || !k->pgt)
		return mmc_mem_read(k->mem, MMC_KVADDR, addr, buf, 8);
	err = mmc_pgtable_translate(k->pgt, addr, &mapped, &pa, &size);
	if (err)
		return err;
	if (!mapped)
		return mmc_error_at(MMC_ERR_NODATA, k->dump_path, addr,
				    "the vmemmap address is not mapped");
	return mmc_mem_read(k->mem, MMC_PHYSADDR, pa, buf, 8);
}

static bool read_u64(struct huge_walk *w, uint64_t addr, const char *what, uint64_t *v)
{
	uint8_t buf[8];
	struct mmc_error *err = read_word8(w->k, addr, buf);

	if (err) {
		stop(w, "reading %s at 0x%" PRIx64 ": %s", what, addr, err->message);
		mmc_error_destroy(err);
		return false;
	}
	*v = mmc_le64(buf);
	return true;
}

static bool add_folio(struct huge_walk *w, const struct hfolio *f)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct hfolio *a = realloc(w->f, cap * sizeof(*a));

		if (!a)
			return false;
		w->f = a;
		w->cap = cap;
	}
	w->f[w->n++] = *f;
	return true;
}

/*
 * The folio whose lru is at node: its head struct page must be a struct
 * page of a pfn aligned to the order, inside the vmemmap.
 */
static bool folio_of(struct huge_walk *w, uint64_t node, uint32_t order,
		     const char *list, uint64_t *pfn)
{
	const struct mmc_geom *g = &w->k->geom;
	uint64_t page = node - w->lru_off;

	if (node < w->lru_off || page < g->vmemmap_base || page >= g->vmemmap_end ||
	    (page - g->vmemmap_base) % g->struct_page_size ||
	    ((page - g->vmemmap_base) / g->struct_page_size) & ((1ULL << order) - 1)) {
		stop(w, "%s: entry 0x%" PRIx64 " is not the lru of an order-%u folio's head struct page",
		     list, node, order);
		return false;
	}
	*pfn = (page - g->vmemmap_base) / g->struct_page_size;
	return true;
}

/* HPG_vmemmap_optimized of the head's private word (folio->private). */
static uint8_t folio_vmemmap(struct huge_walk *w, uint64_t pfn)
{
	const struct mmc_layout *l = w->k->layout;
	const struct mmc_geom *g = &w->k->geom;
	int64_t bit;
	uint64_t priv;
	uint8_t buf[8];
	struct mmc_error *err;

	if (!mmc_layout_enum_value(l, MMC_ENUM_HUGETLB_PAGE_FLAGS,
				   "HPG_vmemmap_optimized", &bit) || bit < 0 || bit > 63)
		return MMC_FVM_UNKNOWN;
	err = read_word8(w->k, g->vmemmap_base + pfn * g->struct_page_size +
			 l->member[MMC_PAGE_PRIVATE].offset, buf);
	if (err) {
		mmc_error_destroy(err);
		return MMC_FVM_UNKNOWN;
	}
	priv = mmc_le64(buf);
	return (priv >> bit) & 1 ? MMC_FVM_OPTIMISED : MMC_FVM_PLAIN;
}

/*
 * One list ring from head: every entry's prev must be the entry before,
 * and it must come back to head within limit entries.  Returns the
 * number of folios, or -1 when it stopped.
 */
static int64_t walk_list(struct huge_walk *w, uint64_t head, uint32_t hi, uint32_t order,
			 uint8_t list, uint32_t node, uint64_t limit, const char *name)
{
	uint32_t next_off = w->k->layout->member[MMC_LIST_HEAD_NEXT].offset;
	uint32_t prev_off = w->k->layout->member[MMC_LIST_HEAD_PREV].offset;
	uint64_t at = head, next, prev, n = 0;

	for (;;) {
		if (!read_u64(w, at + next_off, name, &next))
			return -1;
		if (next == head)
			break;
		if (n == limit) {
			stop(w, "%s at 0x%" PRIx64 ": more than %" PRIu64 " entries (the pool's nr_huge_pages), a list gone round or a wrong count",
			     name, head, limit);
			return -1;
		}
		if (!read_u64(w, next + prev_off, name, &prev))
			return -1;
		if (prev != at) {
			stop(w, "%s at 0x%" PRIx64 ": entry 0x%" PRIx64 "'s prev is 0x%" PRIx64 ", not 0x%" PRIx64,
			     name, head, next, prev, at);
			return -1;
		}
		{
			struct hfolio f = { .hstate = hi, .node = node, .list = list };

			if (!folio_of(w, next, order, name, &f.pfn))
				return -1;
			f.vmemmap = folio_vmemmap(w, f.pfn);
			if (!add_folio(w, &f))
				return -2;
		}
		n++;
		at = next;
	}
	return (int64_t)n;
}

static bool hvo_enabled(struct huge_walk *w)
{
	uint8_t b = 0;
	struct mmc_error *err;

	if (!w->k->layout->sym_found[MMC_SYM_VMEMMAP_OPTIMIZE_ENABLED])
		return false;
	err = mmc_mem_read(w->k->mem, MMC_KVADDR,
			   mmc_kernel_sym(w->k, MMC_SYM_VMEMMAP_OPTIMIZE_ENABLED), &b, 1);
	mmc_error_destroy(err);
	return !err && b;
}

static void read_fields(struct mmc_shstate *h, const uint8_t *buf, const struct mmc_member *m)
{
	h->order = (uint32_t)word_at(buf, &m[MMC_HSTATE_ORDER], 0);
	h->nr = word_at(buf, &m[MMC_HSTATE_NR], 0);
	h->free = word_at(buf, &m[MMC_HSTATE_FREE], 0);
	if (m[MMC_HSTATE_RESV].found)
		h->resv = word_at(buf, &m[MMC_HSTATE_RESV], 0);
	if (m[MMC_HSTATE_SURPLUS].found)
		h->surplus = word_at(buf, &m[MMC_HSTATE_SURPLUS], 0);
	if (m[MMC_HSTATE_NAME].found) {
		uint32_t n = m[MMC_HSTATE_NAME].size;

		if (n > sizeof(h->name) - 1)
			n = sizeof(h->name) - 1;
		memcpy(h->name, buf + m[MMC_HSTATE_NAME].offset, n);
		h->name[n] = 0;
		for (uint32_t i = 0; h->name[i]; i++)
			if (h->name[i] < 0x20 || h->name[i] > 0x7e)
				h->name[i] = '?';
	}
}

/* hstate hi's lists, its fields read; false when stopped (or *nomem). */
static bool read_lists(struct huge_walk *w, uint32_t hi, uint64_t addr, bool hvo, bool *nomem)
{
	const struct mmc_member *m = w->k->layout->member;
	const struct mmc_geom *g = &w->k->geom;
	struct mmc_shstate *h = &w->d->hstates[hi];
	uint32_t nodes = m[MMC_HSTATE_FREELISTS].count ? m[MMC_HSTATE_FREELISTS].count : 1;
	uint32_t lh = m[MMC_HSTATE_FREELISTS].size / nodes;
	uint64_t nfree = 0, nactive = 0;
	char name[96];
	int64_t got;

	if (h->order < 1 || h->order > 30 || h->free > h->nr || h->nr > MAX_POOL_FOLIOS ||
	    nodes > MAX_NODES || lh < 16) {
		stop(w, "hstates[%u] at 0x%" PRIx64 " makes no sense: order %u, nr_huge_pages %" PRIu64 ", free_huge_pages %" PRIu64,
		     hi, addr, h->order, h->nr, h->free);
		return false;
	}
	/* hugetlb_vmemmap_optimizable_size(): a power-of-2 struct page and
	 * more than the one vmemmap page HVO keeps */
	if (hvo && !(g->struct_page_size & (g->struct_page_size - 1)) &&
	    ((uint64_t)g->struct_page_size << h->order) > g->page_size)
		h->flags |= MMC_HSTATE_HVO;
	w->d->nhstates = hi + 1;
	for (uint32_t node = 0; node < nodes; node++) {
		snprintf(name, sizeof(name), "hstates[%u].hugepage_freelists[%u]", hi, node);
		got = walk_list(w, addr + m[MMC_HSTATE_FREELISTS].offset + node * lh, hi,
				h->order, MMC_FOLIO_FREE, node, h->nr - nfree, name);
		if (got < 0) {
			*nomem = got == -2;
			return false;
		}
		nfree += (uint64_t)got;
	}
	snprintf(name, sizeof(name), "hstates[%u].hugepage_activelist", hi);
	got = walk_list(w, addr + m[MMC_HSTATE_ACTIVELIST].offset, hi, h->order,
			MMC_FOLIO_ACTIVE, UINT32_MAX, h->nr - nfree, name);
	if (got < 0) {
		*nomem = got == -2;
		return false;
	}
	nactive = (uint64_t)got;
	if (nfree != h->free || nfree + nactive != h->nr) {
		stop(w, "hstates[%u] at 0x%" PRIx64 ": %" PRIu64 " free and %" PRIu64 " active folios on its lists, but free_huge_pages %" PRIu64 " and nr_huge_pages %" PRIu64,
		     hi, addr, nfree, nactive, h->free, h->nr);
		return false;
	}
	return true;
}

/* Reads hstate hi into d->hstates[hi] and its lists; false when stopped
 * (or out of memory: *nomem). */
static bool read_hstate(struct huge_walk *w, uint32_t hi, bool hvo, bool *nomem)
{
	const struct mmc_layout *l = w->k->layout;
	uint64_t size = l->size[MMC_SIZE_HSTATE];
	uint64_t addr = mmc_kernel_sym(w->k, MMC_SYM_HSTATES) + hi * size;
	struct mmc_shstate *h = &w->d->hstates[hi];
	uint8_t *buf = malloc(size);
	struct mmc_error *err;

	if (!buf) {
		*nomem = true;
		return false;
	}
	err = mmc_mem_read(w->k->mem, MMC_KVADDR, addr, buf, size);
	if (err) {
		stop(w, "reading hstates[%u] at 0x%" PRIx64 ": %s", hi, addr, err->message);
		mmc_error_destroy(err);
		free(buf);
		return false;
	}
	memset(h, 0, sizeof(*h));
	h->kaddr = addr;
	read_fields(h, buf, l->member);
	free(buf);
	return read_lists(w, hi, addr, hvo, nomem);
}

static int cmp_folio(const void *a, const void *b)
{
	const struct hfolio *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* An active folio's node: page_to_nid() of its head, from the flags. */
static void active_nodes(struct huge_walk *w)
{
	const struct mmc_geom *g = &w->k->geom;
	const struct mmc_member *fm = &w->k->layout->member[MMC_PAGE_FLAGS];

	for (size_t i = 0; i < w->n; i++) {
		uint64_t flags = 0;
		uint8_t buf[8];
		struct mmc_error *err;

		if (w->f[i].node != UINT32_MAX)
			continue;
		w->f[i].node = 0;
		if (!g->nodes_width)
			continue;
		err = read_word8(w->k, g->vmemmap_base + w->f[i].pfn * g->struct_page_size +
				 fm->offset, buf);
		if (err) {
			mmc_error_destroy(err);
			continue;
		}
		flags = mmc_le64(buf);
		w->f[i].node = (uint32_t)((flags >> g->nodes_pgshift) &
					  ((1ULL << g->nodes_width) - 1));
	}
}

/* Folio spans and ranges from the sorted folios; a folio overlapping the
 * one before (on two lists, or two pools) stops there. */
static struct mmc_error *make_spans(struct huge_walk *w)
{
	struct mmc_discovery *d = w->d;
	struct mmc_srange *r;
	size_t nr = 0, i;
	uint64_t end = 0;

	if (w->n)
		qsort(w->f, w->n, sizeof(*w->f), cmp_folio);
	for (i = 0; i < w->n; i++) {
		if (i && w->f[i].pfn < end) {
			stop(w, "the HugeTLB folio at pfn 0x%" PRIx64 " (hstates[%u]) overlaps the one at pfn 0x%" PRIx64 " (hstates[%u])",
			     w->f[i].pfn, w->f[i].hstate, w->f[i - 1].pfn, w->f[i - 1].hstate);
			break;
		}
		end = w->f[i].pfn + (1ULL << d->hstates[w->f[i].hstate].order);
	}
	w->n = i;
	d->folio_spans = calloc(w->n ? w->n : 1, sizeof(*d->folio_spans));
	r = realloc(d->ranges, (d->nranges + w->n + 1) * sizeof(*d->ranges));
	if (!d->folio_spans || !r)
		return mmc_error_nomem();
	d->ranges = r;
	for (i = 0; i < w->n; i++) {
		const struct hfolio *f = &w->f[i];
		uint32_t order = d->hstates[f->hstate].order;
		struct mmc_sfolios *s = d->nfolio_spans ? &d->folio_spans[d->nfolio_spans - 1] : NULL;
		struct mmc_srange *last = nr ? &d->ranges[d->nranges + nr - 1] : NULL;

		if (s && s->hstate == f->hstate && s->node == f->node && s->list == f->list &&
		    s->vmemmap == f->vmemmap && s->start_pfn + (s->nfolios << order) == f->pfn)
			s->nfolios++;
		else
			d->folio_spans[d->nfolio_spans++] = (struct mmc_sfolios){
				.hstate = f->hstate, .node = f->node, .start_pfn = f->pfn,
				.nfolios = 1, .list = f->list, .vmemmap = f->vmemmap };
		if (last && last->owner == f->hstate && last->end_pfn == f->pfn) {
			last->end_pfn += 1ULL << order;
			continue;
		}
		last = &d->ranges[d->nranges + nr++];
		memset(last, 0, sizeof(*last));
		last->kind = MMC_RANGE_HUGETLB;
		last->pgmap_index = MMC_NO_PGMAP;
		last->owner = f->hstate;
		last->start_pfn = f->pfn;
		last->end_pfn = f->pfn + (1ULL << order);
		last->vmemmap_start = w->k->geom.vmemmap_base + f->pfn * w->k->geom.struct_page_size;
		last->reserve_start = last->reserve_end = f->pfn;
		last->altmap_start = last->altmap_end = f->pfn;
	}
	d->nranges += nr;
	return NULL;
}

struct mmc_error *mmc_discover_hugetlb(struct mmc_kernel *k, struct mmc_discovery *d)
{
	struct huge_walk w = { .k = k, .d = d };
	const char *missing = pools_missing(k->layout);
	struct mmc_error *err = NULL;
	uint64_t max;
	bool hvo, nomem = false;

	d->huge_state = MMC_READ_NOT;
	d->nhstates = 0;
	if (missing) {
		snprintf(d->huge_why, sizeof(d->huge_why),
			 "the layout has no %s (no CONFIG_HUGETLB_PAGE, or an older layout file)",
			 missing);
		return NULL;
	}
	if (k->layout->size[MMC_SIZE_HSTATE] > MAX_HSTATE_BYTES)
		return mmc_error_create(MMC_ERR_LAYOUT, k->layout->source,
					"sizeof(struct hstate) %llu is too big",
					(unsigned long long)k->layout->size[MMC_SIZE_HSTATE]);
	d->huge_state = MMC_READ_DONE;
	d->huge_why[0] = 0;
	w.lru_off = k->layout->member[MMC_PAGE_LRU].offset;
	if (!read_u64(&w, mmc_kernel_sym(k, MMC_SYM_HUGETLB_MAX_HSTATE), "hugetlb_max_hstate", &max))
		return NULL;
	max &= 0xffffffffu;	/* an int */
	if (max > MMC_DISCOVER_MAX_HSTATES) {
		stop(&w, "hugetlb_max_hstate at 0x%" PRIx64 " is %" PRIu64 ", more than %d",
		     mmc_kernel_sym(k, MMC_SYM_HUGETLB_MAX_HSTATE), max, MMC_DISCOVER_MAX_HSTATES);
		return NULL;
	}
	hvo = hvo_enabled(&w);
	for (uint32_t i = 0; i < max && read_hstate(&w, i, hvo, &nomem); i++)
		;
	if (nomem)
		err = mmc_error_nomem();
	if (!err) {
		active_nodes(&w);
		err = make_spans(&w);
	}
	free(w.f);
	return err;
}
