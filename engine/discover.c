// SPDX-License-Identifier: GPL-2.0-or-later
#include "discover.h"

#include <stdlib.h>
#include <string.h>

#include "xarray.h"

/* More pgmaps than this in one image is a corrupt xarray, not a machine. */
#define MAX_PGMAPS 4096

struct collect {
	struct mmc_kernel *k;
	uint64_t *addrs;
	size_t n, cap;
};

static struct mmc_error *collect_entry(void *arg, uint64_t index, uint64_t entry)
{
	struct collect *c = arg;
	size_t i;

	if (mmc_xa_is_value(entry) || (entry >> 63) == 0)
		return mmc_error_at(MMC_ERR_CORRUPT, c->k->dump_path, entry,
				    "pgmap_array entry for pfn 0x%llx is not a kernel pointer",
				    (unsigned long long)index);
	for (i = 0; i < c->n; i++)
		if (c->addrs[i] == entry)
			return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		uint64_t *a;

		if (cap > MAX_PGMAPS)
			return mmc_error_create(MMC_ERR_CORRUPT, c->k->dump_path,
						"pgmap_array holds more than %d pgmaps",
						MAX_PGMAPS);
		a = realloc(c->addrs, cap * sizeof(*a));
		if (!a)
			return mmc_error_nomem();
		c->addrs = a;
		c->cap = cap;
	}
	c->addrs[c->n++] = entry;
	return NULL;
}

static uint64_t get_uint(const uint8_t *buf, const struct mmc_member *m)
{
	uint64_t v = 0;

	if (!m->found)
		return 0;
	memcpy(&v, buf + m->offset, m->size < 8 ? m->size : 8);
	if (m->size < 8)
		v &= (1ULL << (8 * m->size)) - 1;
	return v;
}

static struct mmc_error *read_pgmap(struct mmc_kernel *k, uint64_t addr,
				    struct mmc_dpgmap *p)
{
	const struct mmc_layout *l = k->layout;
	const struct mmc_member *m = l->member;
	uint64_t size = l->size[MMC_SIZE_DEV_PAGEMAP];
	uint64_t range_size = l->size[MMC_SIZE_RANGE];
	uint32_t alt = m[MMC_PGMAP_ALTMAP].offset;
	struct mmc_error *err;
	uint8_t *buf = NULL;
	uint64_t nr, i, max_pfn;
	const char *name;

	memset(p, 0, sizeof(*p));
	max_pfn = (k->geom.vmemmap_end - k->geom.vmemmap_base) / k->geom.struct_page_size;
	buf = malloc(size);
	if (!buf)
		return mmc_error_nomem();
	err = mmc_mem_read(k->mem, MMC_KVADDR, addr, buf, size);
	if (err) {
		err = mmc_error_prefix(err, "reading struct dev_pagemap at 0x%llx",
				       (unsigned long long)addr);
		goto out;
	}
	p->info.kaddr = addr;
	p->info.type = (int64_t)get_uint(buf, &m[MMC_PGMAP_TYPE]);
	name = mmc_layout_enum_name(l, MMC_ENUM_MEMORY_TYPE, p->info.type);
	snprintf(p->info.type_name, sizeof(p->info.type_name), "%s",
		 name ? name : "?");
	p->info.flags = get_uint(buf, &m[MMC_PGMAP_FLAGS]);
	p->info.vmemmap_shift = (uint32_t)get_uint(buf, &m[MMC_PGMAP_VMEMMAP_SHIFT]);
	nr = get_uint(buf, &m[MMC_PGMAP_NR_RANGE]);
	p->owner_raw = get_uint(buf, &m[MMC_PGMAP_OWNER]);
	p->ops_raw = get_uint(buf, &m[MMC_PGMAP_OPS]);
	p->info.altmap_base_pfn = get_uint(buf + alt, &m[MMC_ALTMAP_BASE_PFN]);
	p->info.altmap_end_pfn = get_uint(buf + alt, &m[MMC_ALTMAP_END_PFN]);
	p->info.altmap_reserve = get_uint(buf + alt, &m[MMC_ALTMAP_RESERVE]);
	p->info.altmap_free = get_uint(buf + alt, &m[MMC_ALTMAP_FREE]);
	p->info.altmap_align = get_uint(buf + alt, &m[MMC_ALTMAP_ALIGN]);
	p->info.altmap_alloc = get_uint(buf + alt, &m[MMC_ALTMAP_ALLOC]);
	if (!name || nr == 0 || nr > MMC_MAX_PGMAP_RANGES || p->info.vmemmap_shift > 30) {
		err = mmc_error_at(MMC_ERR_CORRUPT, k->dump_path, addr,
				   "struct dev_pagemap makes no sense: type %lld, nr_range %llu, vmemmap_shift %u",
				   (long long)p->info.type, (unsigned long long)nr,
				   p->info.vmemmap_shift);
		goto out;
	}
	p->info.nr_range = (uint32_t)nr;
	for (i = 0; i < nr; i++) {
		uint64_t ra = addr + m[MMC_PGMAP_RANGE].offset + i * range_size;
		uint8_t rb[64];

		if (range_size > sizeof(rb)) {
			err = mmc_error_create(MMC_ERR_LAYOUT, l->source,
					       "sizeof(struct range) %llu is too big",
					       (unsigned long long)range_size);
			goto out;
		}
		err = mmc_mem_read(k->mem, MMC_KVADDR, ra, rb, range_size);
		if (err)
			goto out;
		p->range_start[i] = get_uint(rb, &m[MMC_RANGE_START]);
		p->range_end[i] = get_uint(rb, &m[MMC_RANGE_END]);
		if (p->range_end[i] < p->range_start[i] ||
		    (p->range_start[i] | (p->range_end[i] + 1)) % k->geom.page_size) {
			err = mmc_error_at(MMC_ERR_CORRUPT, k->dump_path, ra,
					   "pgmap range [0x%llx, 0x%llx] is not page-aligned",
					   (unsigned long long)p->range_start[i],
					   (unsigned long long)p->range_end[i]);
			goto out;
		}
		/* a pfn has a struct page only below MAX_PHYSMEM_BITS */
		if ((p->range_end[i] + 1) / k->geom.page_size > max_pfn) {
			err = mmc_error_at(MMC_ERR_CORRUPT, k->dump_path, ra,
					   "pgmap range [0x%llx, 0x%llx] ends beyond the physical address space (%llu pages)",
					   (unsigned long long)p->range_start[i],
					   (unsigned long long)p->range_end[i],
					   (unsigned long long)max_pfn);
			goto out;
		}
	}
	/*
	 * pgmap_altmap() trusts PGMAP_ALTMAP_VALID; that flag is a #define the
	 * DWARF does not carry, so decide from the altmap itself: a valid one
	 * starts inside the first range.
	 */
	{
		uint64_t ps = k->geom.page_size;
		uint64_t s = p->range_start[0] / ps, e = (p->range_end[0] + 1) / ps;
		uint64_t b = p->info.altmap_base_pfn;

		p->info.has_altmap = b && b >= s && b < e &&
			b + p->info.altmap_reserve + p->info.altmap_free <= e;
	}
out:
	free(buf);
	return err;
}

static int cmp_pgmap(const void *a, const void *b)
{
	const struct mmc_dpgmap *x = a, *y = b;

	return x->range_start[0] < y->range_start[0] ? -1 :
	       x->range_start[0] > y->range_start[0];
}

static int cmp_range(const void *a, const void *b)
{
	const struct mmc_srange *x = a, *y = b;

	return x->start_pfn < y->start_pfn ? -1 : x->start_pfn > y->start_pfn;
}

static void fill_range(struct mmc_kernel *k, const struct mmc_dpgmap *p,
		       size_t pi, uint32_t ri, struct mmc_srange *r)
{
	uint64_t ps = k->geom.page_size;

	memset(r, 0, sizeof(*r));
	r->start_pfn = p->range_start[ri] / ps;
	r->end_pfn = (p->range_end[ri] + 1) / ps;
	r->pgmap_index = (uint32_t)pi;
	r->range_index = ri;
	r->vmemmap_start = k->geom.vmemmap_base + r->start_pfn * k->geom.struct_page_size;
	r->reserve_start = r->reserve_end = r->start_pfn;
	r->altmap_start = r->altmap_end = r->start_pfn;
	/* the altmap only ever serves the first range (pagemap_range()) */
	if (p->info.has_altmap && ri == 0) {
		r->reserve_start = p->info.altmap_base_pfn;
		r->reserve_end = r->reserve_start + p->info.altmap_reserve;
		r->altmap_start = r->reserve_end;
		r->altmap_end = r->altmap_start + p->info.altmap_free;
	}
}

bool mmc_discovery_problem_error(const struct mmc_error *err)
{
	return err->code == MMC_ERR_NODATA || err->code == MMC_ERR_CORRUPT ||
	       err->code == MMC_ERR_INPUT;
}

/* Keep the first problem; a fatal error is returned for the caller. */
static struct mmc_error *note_problem(struct mmc_discovery *d, struct mmc_error *err)
{
	if (!mmc_discovery_problem_error(err))
		return err;
	if (!d->problem)
		d->problem = err;
	else
		mmc_error_destroy(err);
	d->nproblems++;
	return NULL;
}

struct mmc_error *mmc_discover(struct mmc_kernel *k, struct mmc_discovery **out)
{
	struct collect c = { .k = k };
	struct mmc_discovery *d;
	struct mmc_error *err;
	size_t i, n = 0, kept;
	uint32_t j;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return mmc_error_nomem();
	/* A walk cut short keeps the pgmaps it collected before. */
	err = mmc_xarray_walk(k, mmc_kernel_sym(k, MMC_SYM_PGMAP_ARRAY),
			      collect_entry, &c);
	if (err)
		err = note_problem(d, mmc_error_prefix(err, "walking pgmap_array"));
	if (err)
		goto fail;
	d->pgmaps = calloc(c.n ? c.n : 1, sizeof(*d->pgmaps));
	if (!d->pgmaps) {
		err = mmc_error_nomem();
		goto fail;
	}
	for (i = 0; i < c.n; i++) {
		err = read_pgmap(k, c.addrs[i], &d->pgmaps[d->npgmaps]);
		if (err) {
			err = note_problem(d, err);
			if (err)
				goto fail;
			continue;
		}
		n += d->pgmaps[d->npgmaps++].info.nr_range;
	}
	qsort(d->pgmaps, d->npgmaps, sizeof(*d->pgmaps), cmp_pgmap);
	d->ranges = calloc(n ? n : 1, sizeof(*d->ranges));
	if (!d->ranges) {
		err = mmc_error_nomem();
		goto fail;
	}
	for (i = 0; i < d->npgmaps; i++)
		for (j = 0; j < d->pgmaps[i].info.nr_range; j++)
			fill_range(k, &d->pgmaps[i], i, j, &d->ranges[d->nranges++]);
	err = mmc_discover_hugetlb(k, d);
	if (!err)
		err = mmc_discover_hotplug(k, d);
	if (err)
		goto fail;
	qsort(d->ranges, d->nranges, sizeof(*d->ranges), cmp_range);
	/* Overlapping ranges cannot both be right: keep the first. */
	for (i = 1, kept = d->nranges ? 1 : 0; i < d->nranges; i++) {
		if (d->ranges[i].start_pfn < d->ranges[kept - 1].end_pfn) {
			note_problem(d, mmc_error_create(MMC_ERR_CORRUPT, k->dump_path,
					"pgmap ranges overlap at pfn 0x%llx: range [0x%llx, 0x%llx) left out",
					(unsigned long long)d->ranges[i].start_pfn,
					(unsigned long long)d->ranges[i].start_pfn,
					(unsigned long long)d->ranges[i].end_pfn));
			continue;
		}
		d->ranges[kept++] = d->ranges[i];
	}
	d->nranges = kept;
	err = mmc_discover_dax(k, d);
	if (err)
		goto fail;
	free(c.addrs);
	*out = d;
	return NULL;
fail:
	free(c.addrs);
	mmc_discovery_destroy(d);
	return err;
}

void mmc_discovery_destroy(struct mmc_discovery *d)
{
	if (!d)
		return;
	mmc_error_destroy(d->problem);
	free(d->pgmaps);
	free(d->ranges);
	free(d->dax);
	free(d->folio_spans);
	free(d->blocks);
	free(d);
}
