// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The device-dax data ranges, by the kernel's own chain (drivers/dax):
 * alloc_dax() takes every struct dax_device's inode from dax_superblock
 * (iget5_locked()), so the superblock's s_inodes list reaches them all;
 * a device-dax instance's dax_device has the dev_dax as its private data
 * (devm_create_dev_dax(): alloc_dax(dev_dax, ...)), and dev_dax->dax_dev
 * points back, which tells it from a pmem_device or an unused inode.
 * dev_dax->pgmap names the pgmap dev_dax_probe() registered, and
 * dev_dax->ranges[] the data it requested: for a pmem namespace the pgmap's
 * own range starts at the namespace and includes the info block, the dax
 * range starts after it.
 */
#include "discover.h"
#include "mmc_util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* More inodes than this on the dax superblock is a list gone round. */
#define MAX_DAX_INODES 65536
#define MAX_DAX_SPANS 4096

struct dax_walk {
	struct mmc_kernel *k;
	struct mmc_discovery *d;
	size_t cap;
};

static const enum mmc_member_id chain_members[] = {
	MMC_LIST_HEAD_NEXT, MMC_SB_S_INODES, MMC_INODE_I_SB_LIST,
	MMC_DAX_DEVICE_INODE, MMC_DAX_DEVICE_PRIVATE, MMC_DEV_DAX_DAX_DEV,
	MMC_DEV_DAX_PGMAP, MMC_DEV_DAX_NR_RANGE, MMC_DEV_DAX_RANGES,
	MMC_DEV_DAX_RANGE_START, MMC_DEV_DAX_RANGE_END,
};

static void why(struct mmc_discovery *d, enum mmc_dax_state state,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why(struct mmc_discovery *d, enum mmc_dax_state state,
		const char *fmt, ...)
{
	va_list ap;

	d->dax_state = state;
	va_start(ap, fmt);
	vsnprintf(d->dax_why, sizeof(d->dax_why), fmt, ap);
	va_end(ap);
}

/* The first item of the chain the layout lacks, or NULL. */
static const char *chain_missing(const struct mmc_layout *l)
{
	for (size_t i = 0; i < sizeof(chain_members) / sizeof(chain_members[0]); i++)
		if (!l->member[chain_members[i]].found)
			return mmc_member_specs[chain_members[i]].label;
	if (!l->size_found[MMC_SIZE_DEV_DAX_RANGE])
		return "sizeof(struct dev_dax_range)";
	if (!l->sym_found[MMC_SYM_DAX_SUPERBLOCK])
		return "dax_superblock";
	return NULL;
}

/* A read that failed stops the walk: the spans so far are kept. */
static bool read_word(struct dax_walk *w, uint64_t addr, const struct mmc_member *m,
		      const char *what, uint64_t *v)
{
	uint8_t buf[8];
	struct mmc_error *err;

	if (m->size != 1 && m->size != 2 && m->size != 4 && m->size != 8) {
		why(w->d, MMC_DAX_PARTIAL, "%s is %" PRIu32 " bytes, not a word", what, m->size);
		return false;
	}
	err = mmc_mem_read(w->k->mem, MMC_KVADDR, addr + m->offset, buf, m->size);
	if (err) {
		why(w->d, MMC_DAX_PARTIAL, "reading %s at 0x%" PRIx64 ": %s", what,
		    addr + m->offset, err->message);
		mmc_error_destroy(err);
		return false;
	}
	*v = m->size == 8 ? mmc_le64(buf) : m->size == 4 ? mmc_le32(buf) :
	     m->size == 2 ? (uint64_t)buf[0] | (uint64_t)buf[1] << 8 : buf[0];
	return true;
}

static bool kernel_pointer(uint64_t v)
{
	return (v >> 63) != 0;
}

static long pgmap_index(const struct mmc_discovery *d, uint64_t kaddr)
{
	for (size_t i = 0; i < d->npgmaps; i++)
		if (d->pgmaps[i].info.kaddr == kaddr)
			return (long)i;
	return -1;
}

static struct mmc_error *add_span(struct dax_walk *w, uint32_t pi,
				  uint64_t start, uint64_t end)
{
	struct mmc_discovery *d = w->d;

	if (d->ndax == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct mmc_dax_span *a = realloc(d->dax, cap * sizeof(*a));

		if (!a)
			return mmc_error_nomem();
		d->dax = a;
		w->cap = cap;
	}
	d->dax[d->ndax++] = (struct mmc_dax_span){ pi, start, end };
	return NULL;
}

/* The ranges of the dev_dax at dd; false when the walk must stop. */
static bool read_dev_dax(struct dax_walk *w, uint64_t dd, struct mmc_error **err)
{
	const struct mmc_member *m = w->k->layout->member;
	uint64_t ps = w->k->geom.page_size;
	uint64_t rsize = w->k->layout->size[MMC_SIZE_DEV_DAX_RANGE];
	uint64_t pgmap, nr, ranges, start, end;
	long pi;

	if (!read_word(w, dd, &m[MMC_DEV_DAX_PGMAP], "dev_dax.pgmap", &pgmap) ||
	    !read_word(w, dd, &m[MMC_DEV_DAX_NR_RANGE], "dev_dax.nr_range", &nr) ||
	    !read_word(w, dd, &m[MMC_DEV_DAX_RANGES], "dev_dax.ranges", &ranges))
		return false;
	pi = pgmap ? pgmap_index(w->d, pgmap) : -1;
	/* not probed, or bound to kmem: its memory is no ZONE_DEVICE range */
	if (pi < 0)
		return true;
	if (nr > MMC_MAX_PGMAP_RANGES || (nr && !kernel_pointer(ranges))) {
		why(w->d, MMC_DAX_PARTIAL,
		    "struct dev_dax at 0x%" PRIx64 " makes no sense: nr_range %" PRIu64 ", ranges 0x%" PRIx64,
		    dd, nr, ranges);
		return false;
	}
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ra = ranges + i * rsize;

		if (!read_word(w, ra, &m[MMC_DEV_DAX_RANGE_START], "dev_dax_range.range.start", &start) ||
		    !read_word(w, ra, &m[MMC_DEV_DAX_RANGE_END], "dev_dax_range.range.end", &end))
			return false;
		if (end < start || start % ps || (end + 1) % ps) {
			why(w->d, MMC_DAX_PARTIAL,
			    "dev_dax range at 0x%" PRIx64 " [0x%" PRIx64 ", 0x%" PRIx64 "] is not page-aligned",
			    ra, start, end);
			return false;
		}
		if (w->d->ndax >= MAX_DAX_SPANS) {
			why(w->d, MMC_DAX_PARTIAL, "more than %d device-dax ranges", MAX_DAX_SPANS);
			return false;
		}
		*err = add_span(w, (uint32_t)pi, start / ps, (end + 1) / ps);
		if (*err)
			return false;
	}
	return true;
}

static int cmp_span(const void *a, const void *b)
{
	const struct mmc_dax_span *x = a, *y = b;

	return x->start_pfn < y->start_pfn ? -1 : x->start_pfn > y->start_pfn;
}

struct mmc_error *mmc_discover_dax(struct mmc_kernel *k, struct mmc_discovery *d)
{
	const struct mmc_layout *l = k->layout;
	const struct mmc_member *m = l->member;
	struct dax_walk w = { .k = k, .d = d };
	struct mmc_error *err = NULL;
	const char *missing = chain_missing(l);
	uint64_t sb, head, node, n = 0;
	/* a pointer member read as a word, from an address of its own */
	struct mmc_member ptr = { .found = true, .offset = 0, .size = 8 };

	d->ndax = 0;
	d->dax_why[0] = 0;
	if (missing) {
		why(d, MMC_DAX_NOT_READ,
		    "the layout has no %s (a kernel without the dax core, or a layout saved before version 2)",
		    missing);
		return NULL;
	}
	d->dax_state = MMC_DAX_READ;
	if (!read_word(&w, mmc_kernel_sym(k, MMC_SYM_DAX_SUPERBLOCK), &ptr,
		       "dax_superblock", &sb))
		return NULL;
	if (!sb)
		return NULL;	/* dax_core_init() has not run: no dax device */
	head = sb + m[MMC_SB_S_INODES].offset;
	if (!read_word(&w, head, &m[MMC_LIST_HEAD_NEXT], "the dax superblock's s_inodes", &node))
		return NULL;
	while (node != head) {
		uint64_t inode = node - m[MMC_INODE_I_SB_LIST].offset;
		uint64_t dax_dev = inode - m[MMC_DAX_DEVICE_INODE].offset;
		uint64_t priv, back;

		if (!kernel_pointer(node) || ++n > MAX_DAX_INODES) {
			why(d, MMC_DAX_PARTIAL,
			    n > MAX_DAX_INODES ?
			    "the s_inodes list of the dax superblock at 0x%" PRIx64 " does not come back after %d inodes" :
			    "the s_inodes list of the dax superblock at 0x%" PRIx64 " holds a pointer that is not a kernel address",
			    sb, MAX_DAX_INODES);
			break;
		}
		if (!read_word(&w, dax_dev, &m[MMC_DAX_DEVICE_PRIVATE], "dax_device.private", &priv))
			break;
		if (kernel_pointer(priv)) {
			if (!read_word(&w, priv, &m[MMC_DEV_DAX_DAX_DEV], "dev_dax.dax_dev", &back))
				break;
			if (back == dax_dev && !read_dev_dax(&w, priv, &err))
				break;
		}
		if (!read_word(&w, node, &m[MMC_LIST_HEAD_NEXT], "inode.i_sb_list.next", &node))
			break;
	}
	if (err)
		return err;
	if (d->ndax)	/* none read: d->dax may be NULL, which qsort must not get */
		qsort(d->dax, d->ndax, sizeof(*d->dax), cmp_span);
	return NULL;
}
